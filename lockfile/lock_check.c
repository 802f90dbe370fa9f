/* lock_check.c — is a lock still a valid answer for its spec?
 *
 * Owns the comparison behind `envlock check SPEC LOCK`: spec digest, target,
 * options and (online) input identities against what the caller knows now,
 * then every root requirement against the locked version and every locked
 * dependency edge against the version it binds, each in its ecosystem's own
 * grammar (PEP 440/508, node-semver, dpkg), and — for `check` — every
 * artifact: its form (file name, hash, URL on its source's host), its
 * package's source against the spec's, and its entry in the index documents
 * the caller read. It reads the lock only; it never
 * fetches anything and never decides what a re-resolve would choose — a lock
 * that is still *a* valid answer passes even if a newer version exists. Every
 * difference becomes one line of the report, in a fixed order, so the report
 * itself is stable text that tests compare exactly. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uriparser/Uri.h>


#include "condaspec.h"
#include "debver.h"
#include "lock_internal.h"
#include "npm_spec.h"
#include "pep440.h"
#include "pep508.h"
#include "semver.h"

typedef struct checker {
    const lock_doc *lock;
    const lock_check_input *in;
    lock_report *report;
    bool stale;
    /* what the lines line() writes are about: set by each part */
    const char *kind;
    char *path;
    pypi_prerelease pre;
    pypi_env env;
    char python_xy[32];
    const char *machine;
    /* the spec's digest differs from the lock's: the root lines say what
     * the spec added, and `names` ("eco:name", malloc'd) collects every
     * root's package for what it no longer asks for (lock_check_spec.c) */
    bool spec_changed;
    const lock_check_root *root; /* the root at hand */
    bool asked;                  /* it is the spec's own (roots_asked) */
    ptrvec names;
} checker;

static void line(checker *c, const char *fmt, ...) EL_PRINTF(2, 3);
static void change(checker *c, const char *kind, const char *path, const char *before,
                   const char *after, const char *fmt, ...) EL_PRINTF(6, 7);

static void vchange(checker *c, const char *kind, const char *path, const char *before,
                    const char *after, const char *fmt, va_list ap)
{
    char *text = xvasprintf(fmt, ap);
    lock_report_add(c->report, kind, path, before, after, "%s", text);
    free(text);
    c->stale = true;
}

/* One report line about what the part at hand is checking (c->kind,
 * c->path). */
static void line(checker *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vchange(c, c->kind, c->path, NULL, NULL, fmt, ap);
    va_end(ap);
}

/* One report line about a value: what it was in the lock, what it is now. */
static void change(checker *c, const char *kind, const char *path, const char *before,
                   const char *after, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vchange(c, kind, path, before, after, fmt, ap);
    va_end(ap);
}

/* The subject of the lines that follow. */
static void about(checker *c, const char *kind, char *path)
{
    free(c->path);
    c->kind = kind;
    c->path = path;
}

/* The line about a root whose package the lock holds (`p`): when the spec
 * changed and the lock has `p` only because something else needs it, the
 * spec added the root; else, if `holds` is false, the root is no longer
 * satisfied (`why` the phrase after "satisfied: "). The change carries the
 * lock's pin as `before` and the requirement as `after`. */
static void root_held(checker *c, const lock_package *p, bool holds, const char *why, ...)
    EL_PRINTF(4, 5);
static void root_held(checker *c, const lock_package *p, bool holds, const char *why, ...)
{
    const char *text = c->root->text;
    char *pin = lock_pin_text(p);
    if (c->spec_changed && c->asked && !lock_spec_asked(p)) {
        char *key = xasprintf("%s:%s", p->ecosystem, p->name);
        change(c, "spec", key, NULL, text,
               "spec now asks for %s %s (the lock has %s only as a dependency%s)", p->ecosystem,
               text, pin, holds ? "" : ", which does not meet it");
        free(key);
    } else if (!holds) {
        va_list ap;
        va_start(ap, why);
        char *phrase = xvasprintf(why, ap);
        va_end(ap);
        change(c, c->kind, c->path, pin, text, "%s is no longer satisfied: %s", text, phrase);
        free(phrase);
    }
    free(pin);
}

/* The line about a root the lock holds no package for. */
static void root_missing(checker *c, const char *eco, const char *name)
{
    const char *text = c->root->text;
    if (c->spec_changed && c->asked) {
        char *key = xasprintf("%s:%s", eco, name);
        change(c, "spec", key, NULL, text, "spec now asks for %s %s, which is not in the lock", eco,
               text);
        free(key);
    } else
        change(c, c->kind, c->path, NULL, text, "%s is not in the lock", text);
}

static char *pkg_id(const char *eco, const char *name, const char *version)
{
    return xasprintf("%s:%s@%s", eco ? eco : "", name ? name : "", version ? version : "");
}

static const char *show(const char *s) { return s ? s : "(none)"; }

/* " (line N)" for where lock_read() found an entry, "" for a lock built in
 * memory; into buf[32]. */
static const char *at(unsigned line, char buf[32])
{
    buf[0] = '\0';
    if (line)
        snprintf(buf, 32, " (line %u)", line);
    return buf;
}

static void cmp_field(checker *c, const char *kind, const char *path, const char *what,
                      const char *was, const char *now)
{
    if (lock_strcmp(was, now) != 0)
        change(c, kind, path, was, now, "%s changed: %s -> %s", what, show(was), show(now));
}

/* A `pyproject` source: which of its two files changed since the lock
 * was read from them (the spec digest says only that something did). */
static void check_dep_file(checker *c)
{
    const lock_doc *d = c->lock;
    const lock_check_input *in = c->in;
    char w[32];
    if (lock_strcmp(d->dep_content, in->dep_content) != 0)
        change(c, "spec", "spec.build.dependencyFile.content", d->dep_content, in->dep_content,
               "pyproject.toml changed: spec.build.dependencyFile.content %s -> %s%s",
               show(d->dep_content), show(in->dep_content), at(d->line_dep, w));
    if (lock_strcmp(d->dep_lock, in->dep_lock) != 0)
        change(c, "spec", "spec.build.dependencyFile.lockContent", d->dep_lock, in->dep_lock,
               "uv.lock changed: spec.build.dependencyFile.lockContent %s -> %s%s",
               show(d->dep_lock), show(in->dep_lock), at(d->line_dep, w));
}

/* ---- target and options ---- */

static const char *digest_of(const char *const *variants, const char *const *digests,
                             const char *v, bool *found)
{
    *found = false;
    for (size_t i = 0; variants && variants[i]; i++)
        if (strcmp(variants[i], v) == 0) {
            *found = true;
            return digests ? digests[i] : NULL;
        }
    return NULL;
}

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *variants_show(const char *const *v)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; v && v[i]; i++)
        sb_addf(&sb, "%s%s", i ? "," : "", v[i]);
    return sb_detach(&sb, NULL);
}

/* Several targets (docs/lock-format.md, target.targets): the same list,
 * entry by entry. */
static void check_targets(checker *c)
{
    const lock_doc *d = c->lock;
    const lock_check_input *in = c->in;
    if (d->n_targets != in->n_targets) {
        char was[24], now[24];
        snprintf(was, sizeof was, "%zu", d->n_targets);
        snprintf(now, sizeof now, "%zu", in->n_targets);
        change(c, "target", "target.targets", was, now,
               "targets changed: the lock has %zu, the spec now has %zu", d->n_targets,
               in->n_targets);
        return;
    }
    for (size_t i = 0; i < d->n_targets; i++) {
        const lock_target *a = &d->targets[i], *b = &in->targets[i];
        char *va = variants_show(a->variants), *vb = variants_show(b->variants);
        char path[64], what[64];
        snprintf(path, sizeof path, "target.targets[%zu].variants", i);
        if (strcmp(va, vb) != 0)
            change(c, "target", path, va, vb, "target %zu variants changed: %s -> %s", i + 1, va,
                   vb);
        static const char *const part[] = { "python", "platform", "arch", "image" };
        const char *const was[] = { a->python_version, a->platform, a->arch, a->image };
        const char *const now[] = { b->python_version, b->platform, b->arch, b->image };
        for (size_t k = 0; k < 4; k++) {
            snprintf(path, sizeof path, "target.targets[%zu].%s", i, part[k]);
            snprintf(what, sizeof what, "target %zu (%s) %s", i + 1, va, part[k]);
            cmp_field(c, "target", path, what, was[k], now[k]);
        }
        free(va);
        free(vb);
    }
}

static void check_target(checker *c)
{
    const lock_doc *d = c->lock;
    const lock_check_input *in = c->in;
    if (in->n_targets || d->n_targets) {
        check_targets(c);
    } else {
        cmp_field(c, "target", "target.python", "target python", d->python_version,
                  in->python_version);
        cmp_field(c, "target", "target.platform", "target platform", d->platform, in->platform);
        cmp_field(c, "target", "target.arch", "target arch", d->arch, in->arch);
        cmp_field(c, "target", "target.image", "target image", d->image, in->image);
    }
    cmp_field(c, "target", "spec.base.ref", "base ref", d->base_ref, in->base_ref);
    cmp_field(c, "target", "spec.base.channel", "base channel", d->base_channel,
              in->base_channel);
    /* the union of variant names, in byte order */
    ptrvec names = PTRVEC_INIT;
    for (size_t i = 0; d->variants && d->variants[i]; i++)
        ptrvec_push(&names, (void *)d->variants[i]);
    for (size_t i = 0; in->variants && in->variants[i]; i++)
        ptrvec_push(&names, (void *)in->variants[i]);
    if (names.len)
        qsort(names.items, names.len, sizeof *names.items, str_ptr_cmp);
    for (size_t i = 0; i < names.len; i++) {
        const char *v = names.items[i];
        if (i && strcmp(names.items[i - 1], v) == 0)
            continue;
        bool in_lock, in_now;
        const char *was = digest_of((const char *const *)d->variants,
                                    (const char *const *)d->base_digests, v, &in_lock);
        const char *now = digest_of(in->variants, in->base_digests, v, &in_now);
        char *path = xasprintf("target.baseDigests.%s", v);
        if (!in_lock)
            change(c, "target", path, NULL, now,
                   "variant %s added (the lock has no base digest for it)", v);
        else if (!in_now)
            change(c, "target", path, was, NULL, "variant %s removed", v);
        else if (lock_strcmp(was, now) != 0)
            change(c, "target", path, was, now, "base digest for the %s variant changed: %s -> %s",
                   v, was ? was : "(unpublished)", now ? now : "(unpublished)");
        free(path);
    }
    ptrvec_release(&names);
}

static char *strv_show(const char *const *v, size_t n)
{
    strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '[');
    for (size_t i = 0; i < n; i++)
        sb_addf(&sb, "%s%s", i ? ", " : "", v[i]);
    sb_addc(&sb, ']');
    return sb_detach(&sb, NULL);
}

/* `what` compares as a sorted set: the lock's (sorted, NULL-terminated)
 * against `now` (any order, duplicates allowed). */
static void cmp_set(checker *c, const char *path, const char *what, const char *const *was,
                    const char *const *now_in, size_t n_now)
{
    size_t nl = 0;
    while (was && was[nl])
        nl++;
    const char **now = xcalloc(n_now + 1, sizeof *now);
    for (size_t i = 0; i < n_now; i++)
        now[i] = now_in[i];
    if (n_now)
        qsort(now, n_now, sizeof *now, str_ptr_cmp);
    size_t nn = 0;
    for (size_t i = 0; i < n_now; i++)
        if (nn == 0 || strcmp(now[nn - 1], now[i]) != 0)
            now[nn++] = now[i];
    bool same = nl == nn;
    for (size_t i = 0; same && i < nl; i++)
        same = strcmp(was[i], now[i]) == 0;
    if (!same) {
        char *a = strv_show(was, nl), *b = strv_show(now, nn);
        change(c, "option", path, a, b, "%s changed: %s -> %s", what, a, b);
        free(a);
        free(b);
    }
    free(now);
}

static size_t strv_len(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

static void cmp_bool(checker *c, const char *option, bool was, bool now)
{
    if (was == now)
        return;
    char *path = xasprintf("options.%s", option);
    const char *a = was ? "true" : "false", *b = now ? "true" : "false";
    change(c, "option", path, a, b, "option %s changed: %s -> %s", option, a, b);
    free(path);
}

static void check_options(checker *c)
{
    const lock_doc *d = c->lock;
    const lock_check_input *in = c->in;
    cmp_field(c, "option", "options.excludeNewer", "option excludeNewer", d->exclude_newer,
              in->exclude_newer);
    const char *dflt = "if-necessary-or-explicit";
    cmp_field(c, "option", "options.prereleases", "option prereleases",
              d->prereleases ? d->prereleases : dflt, in->prereleases ? in->prereleases : dflt);
    if (in->compare_build) {
        cmp_set(c, "options.onlyBinary", "option onlyBinary", (const char *const *)d->only_binary,
                in->only_binary, strv_len(in->only_binary));
        cmp_set(c, "options.noBinary", "option noBinary", (const char *const *)d->no_binary,
                in->no_binary, strv_len(in->no_binary));
        cmp_bool(c, "preferBinary", d->prefer_binary, in->prefer_binary);
    }
    if (!in->compare_upgrade)
        return;
    cmp_bool(c, "upgradeAll", d->upgrade_all, in->upgrade_all);
    cmp_set(c, "options.upgradePackages", "option upgradePackages",
            (const char *const *)d->upgrade, in->upgrade, in->n_upgrade);
}

/* ---- inputs ---- */

typedef struct input_ref {
    const lock_input *in;
    int kind; /* 0 fresh, 1 gone, 2 foreign */
} input_ref;

static int input_ref_cmp(const void *pa, const void *pb)
{
    const lock_input *a = ((const input_ref *)pa)->in, *b = ((const input_ref *)pb)->in;
    int c = lock_strcmp(a->ecosystem, b->ecosystem);
    return c ? c : lock_strcmp(a->url, b->url);
}

static void check_inputs(checker *c)
{
    const lock_check_input *in = c->in;
    size_t n = (in->fresh ? in->n_fresh : 0) + (in->gone ? in->n_gone : 0) +
               (in->foreign ? in->n_foreign : 0);
    if (!n)
        return;
    /* fresh, gone and foreign together, in (ecosystem, url) order */
    input_ref *f = xcalloc(n, sizeof *f);
    size_t k = 0;
    for (size_t i = 0; in->fresh && i < in->n_fresh; i++)
        f[k++] = (input_ref){ &in->fresh[i], 0 };
    for (size_t i = 0; in->gone && i < in->n_gone; i++)
        f[k++] = (input_ref){ &in->gone[i], 1 };
    for (size_t i = 0; in->foreign && i < in->n_foreign; i++)
        f[k++] = (input_ref){ &in->foreign[i], 2 };
    qsort(f, n, sizeof *f, input_ref_cmp);
    for (size_t i = 0; i < n; i++) {
        const lock_input *now = f[i].in, *was = NULL;
        const char *eco = show(now->ecosystem);
        for (size_t j = 0; j < c->lock->n_inputs && !was; j++)
            if (lock_strcmp(c->lock->inputs[j].ecosystem, now->ecosystem) == 0 &&
                lock_strcmp(c->lock->inputs[j].url, now->url) == 0)
                was = &c->lock->inputs[j];
        char w[32];
        at(was ? was->line : 0, w);
        about(c, "input", now->url ? xstrdup(now->url) : NULL);
        if (f[i].kind == 2) {
            line(c, "input not from this spec's indexes: %s %s%s", eco, show(now->url), w);
            continue;
        }
        if (f[i].kind == 1) {
            change(c, "input", now->url, was && was->identity && *was->identity ? was->identity : NULL,
                   NULL,
                   "input gone: %s %s (%s)%s", eco, show(now->url),
                   now->identity && *now->identity ? now->identity : "not found", w);
            continue;
        }
        if (!was) {
            change(c, "input", now->url, NULL, now->identity, "input added: %s %s", eco,
                   show(now->url));
            continue;
        }
        const char *label = lock_strcmp(now->ecosystem, "deb") == 0 ? "Release"
                            : c->lock->format_version >= 2           ? "content"
                                                                     : "etag";
        const char *wi = was->identity ? was->identity : "", *ni = now->identity ? now->identity : "";
        if (strcmp(wi, ni) != 0)
            change(c, "input", now->url, *wi ? wi : NULL, *ni ? ni : NULL,
                   "input changed: %s %s %s %s -> %s%s", eco, show(now->url), label,
                   *wi ? wi : "(none)", *ni ? ni : "(none)", w);
        else if (lock_strcmp(was->modified, now->modified) != 0)
            change(c, "input", now->url, was->modified, now->modified,
                   "input changed: %s %s modified %s -> %s%s", eco, show(now->url),
                   show(was->modified), show(now->modified), w);
    }
    free(f);
}

/* A package whose index document is not among the lock's inputs: the lock
 * does not record what it was resolved from, so nothing can confirm it and
 * a bundle could not serve it (lock_unindexed()). */
static void check_indexed(checker *c)
{
    const lock_doc *d = c->lock;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (lock_package_indexed(d, p))
            continue;
        char w[32];
        about(c, "package", pkg_id(p->ecosystem, p->name, p->version));
        line(c, "package without its index among the inputs: %s %s %s packages[%zu]%s",
             show(p->ecosystem), show(p->name), show(p->version), i, at(p->line, w));
    }
}

/* ---- pypi ---- */

static pypi_prerelease pre_mode(const char *mode)
{
    if (mode && strcmp(mode, "disallow") == 0)
        return PYPI_PRE_NO;
    if (mode && strcmp(mode, "explicit") == 0)
        return PYPI_PRE_DEFAULT;
    return PYPI_PRE_YES;
}

/* Whether `version` (PEP 440 text) is in `set` under the lock's pre-release
 * mode: 1 yes, 0 no, -1 the version does not parse. */
static int pypi_in(const checker *c, const pypi_specset *set, const char *version)
{
    pypi_version *v = pypi_version_parse(version, NULL);
    if (!v)
        return -1;
    bool ok = pypi_specset_contains(set, v, c->pre);
    pypi_version_free(v);
    return ok;
}

static bool strv_has(const char *const *v, const char *s)
{
    for (size_t i = 0; v && v[i]; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

/* The conda package that installs PyPI distribution `canon` in an
 * environment.yml's lock: a pip requirement on a name conda installs is
 * met by conda's copy (docs/specs.md, the pip layer), or NULL. */
static const lock_package *conda_installs(const lock_doc *d, const char *canon)
{
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (lock_strcmp(p->ecosystem, "conda") != 0 || !p->name)
            continue;
        if (p->has_pypi_names) { /* the record's purls say which */
            if (strv_has(p->pypi_names, canon))
                return p;
            continue;
        }
        char *n = pypi_name_canonical(p->name);
        bool same = strcmp(n, canon) == 0;
        free(n);
        if (same)
            return p;
    }
    return NULL;
}

static void root_pypi(checker *c, const char *text, const pypi_requirement *req)
{
    about(c, "requirement", xstrdup(text));
    lock_spec_names_add(&c->names, "pypi", req->canonical_name);
    if (req->marker) {
        char *err = NULL;
        int m = pypi_marker_evaluate(req->marker, &c->env, &err);
        free(err);
        if (m == 0)
            return; /* not for this target */
    }
    const lock_package *p = lock_find(c->lock, "pypi", req->canonical_name, NULL);
    if (!p && (p = conda_installs(c->lock, req->canonical_name)))
        lock_spec_names_add(&c->names, "conda", p->name);
    if (!p) {
        root_missing(c, "pypi", req->canonical_name);
        return;
    }
    if (!req->url) {
        int in = pypi_in(c, req->specset, p->version);
        if (in < 0) {
            line(c, "%s cannot be checked: the lock's version %s is not PEP 440", text,
                 show(p->version));
            return;
        }
        if (!in) {
            root_held(c, p, false, "the lock has %s", show(p->version));
            return;
        }
    }
    size_t before = c->report->n;
    for (size_t i = 0; i < req->nextras && c->report->n == before; i++)
        if (!strv_has(p->extras, req->extras_canonical[i]))
            root_held(c, p, false, "the lock does not install the extra %s",
                      req->extras_canonical[i]);
    if (c->report->n == before)
        root_held(c, p, true, "%s", "");
    if (c->spec_changed && c->asked && lock_strcmp(p->ecosystem, "pypi") == 0)
        lock_spec_extras_dropped(p, (const char *const *)req->extras_canonical, req->nextras,
                                 c->report);
}

/* An edge's spec: a PEP 508 requirement or a bare specifier set. 1 holds, 0
 * not, -1 unreadable. Markers are not evaluated: the edge exists, so it applied. */
static int edge_pypi(const checker *c, const lock_edge *e)
{
    pypi_requirement *req = pypi_requirement_parse(e->spec, NULL);
    if (req) {
        int in = req->url ? 1 : pypi_in(c, req->specset, e->version);
        pypi_requirement_free(req);
        return in;
    }
    pypi_specset *set = pypi_specset_parse(e->spec, NULL);
    if (!set)
        return -1;
    int in = pypi_in(c, set, e->version);
    pypi_specset_free(set);
    return in;
}

/* ---- npm ---- */

static const lock_package *npm_locked(const checker *c, const char *name)
{
    const lock_package *any = NULL;
    for (size_t i = 0; i < c->lock->n_packages; i++) {
        const lock_package *p = &c->lock->packages[i];
        if (lock_strcmp(p->ecosystem, "npm") != 0 || lock_strcmp(p->name, name) != 0)
            continue;
        /* the copy a root sees is the top-level one */
        if (p->path && strncmp(p->path, "node_modules/", 13) == 0 && strcmp(p->path + 13, name) == 0)
            return p;
        if (!any)
            any = p;
    }
    return any;
}

static void root_npm(checker *c, const char *text, const npm_pkgspec *s)
{
    about(c, "requirement", xstrdup(text));
    lock_spec_names_add(&c->names, "npm", s->name);
    const lock_package *p = npm_locked(c, s->name);
    if (!p) {
        root_missing(c, "npm", s->name);
        return;
    }
    /* a dist-tag's target is the registry's to say (online) */
    bool holds = s->kind == NPM_SPEC_TAG || npm_satisfies(p->version ? p->version : "", s->spec,
                                                          NPM_LOOSE);
    root_held(c, p, holds, "the lock has %s", show(p->version));
}

/* 1 if `version` meets the edge's spec, 0 not, 1 also for what only the
 * registry can judge (dist-tags, aliases, URLs). */
static int npm_spec_holds(const lock_edge *e, const char *version)
{
    const char *range = e->spec;
    const char *name, *ar;
    size_t n;
    if (npm_alias_split(range, &name, &n, &ar)) { /* npm:NAME[@RANGE] */
        if (strlen(e->name) != n || strncmp(e->name, name, n) != 0)
            return 0;
        if (!ar)
            return 1; /* the registry's latest: only the registry can say */
        range = ar;
    }
    npm_range *r = NULL;
    if (npm_range_parse(range, NPM_LOOSE, &r, NULL) == 0) {
        npm_range_free(r);
        return npm_satisfies(version, range, NPM_LOOSE);
    }
    npm_pkgspec s;
    if (npm_pkgspec_parse(range, &s, NULL) == 0) {
        int ok = s.kind == NPM_SPEC_TAG || npm_satisfies(version, s.spec, NPM_LOOSE);
        npm_pkgspec_release(&s);
        return ok;
    }
    return 1;
}

static int edge_npm(const lock_edge *e) { return npm_spec_holds(e, e->version); }

/* ---- npm: what Node loads ----
 * `require(name)` from a package at node_modules/a/node_modules/b looks in
 * its own node_modules, then in node_modules/ of each directory above it
 * that is not itself a node_modules, up to the project root. A lock whose
 * edge is met by some copy, but not by the copy this walk finds first, loads
 * the wrong version; so every npm edge is checked against that copy. */

static int path_cmp(const void *a, const void *b)
{
    const lock_package *x = *(const lock_package *const *)a, *y = *(const lock_package *const *)b;
    return strcmp(x->path, y->path);
}

/* The npm packages that have a path, sorted by it; caller frees. */
static const lock_package **npm_by_path(const lock_doc *d, size_t *n)
{
    const lock_package **v = xcalloc(d->n_packages ? d->n_packages : 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; i < d->n_packages; i++)
        if (lock_strcmp(d->packages[i].ecosystem, "npm") == 0 && d->packages[i].path)
            v[(*n)++] = &d->packages[i];
    qsort(v, *n, sizeof *v, path_cmp);
    return v;
}

static const lock_package *at_path(const lock_package **v, size_t n, const char *path)
{
    lock_package key = { .path = path };
    const lock_package *kp = &key;
    const lock_package **hit = bsearch(&kp, v, n, sizeof *v, path_cmp);
    return hit ? *hit : NULL;
}

/* The copy of `folder` Node finds from the package directory `from`
 * (a lock path, "" for the project root), or NULL; *where gets its path
 * (malloc'd) when found. */
static const lock_package *node_walk(const lock_package **v, size_t n, const char *from,
                                     const char *folder, char **where)
{
    char *dir = xstrdup(from);
    const lock_package *hit = NULL;
    for (;;) {
        size_t len = strlen(dir);
        const char *base = strrchr(dir, '/');
        base = base ? base + 1 : dir;
        if (strcmp(base, "node_modules") != 0) {
            char *cand = len ? xasprintf("%s/node_modules/%s", dir, folder)
                             : xasprintf("node_modules/%s", folder);
            hit = at_path(v, n, cand);
            if (hit) {
                *where = cand;
                break;
            }
            free(cand);
        }
        if (!len)
            break;
        char *slash = strrchr(dir, '/');
        *(slash ? slash : dir) = '\0';
    }
    free(dir);
    return hit;
}

static void check_npm_walk(checker *c)
{
    size_t n;
    const lock_package **v = npm_by_path(c->lock, &n);
    for (size_t i = 0; i < n; i++) {
        const lock_package *p = v[i];
        about(c, "dependency", pkg_id("npm", p->name, p->version));
        for (size_t j = 0; j < p->n_deps; j++) {
            const lock_edge *e = &p->deps[j];
            if (!e->name || (e->ecosystem && strcmp(e->ecosystem, "npm") != 0))
                continue;
            const char *folder = e->alias ? e->alias : e->name;
            char *where = NULL, w[32];
            at(e->line, w);
            const lock_package *got = node_walk(v, n, p->path, folder, &where);
            if (!got)
                line(c, "npm:%s@%s at %s needs %s %s, but Node finds no %s from there%s",
                     show(p->name), show(p->version), p->path, folder, show(e->spec), folder, w);
            else if (e->spec && got->version && lock_strcmp(got->version, e->version) != 0 &&
                     !npm_spec_holds(e, got->version)) /* the bound copy's own check said it */
                line(c, "npm:%s@%s at %s needs %s %s, but Node loads %s %s from %s%s",
                     show(p->name), show(p->version), p->path, folder, e->spec, folder,
                     got->version, where, w);
            free(where);
        }
    }
    free(v);
}

/* ---- conda ---- */

/* Whether the locked conda package `p` satisfies match spec `text`:
 * 1 yes, 0 no, -1 the text is not a match spec. */
static int conda_holds(const lock_package *p, const char *text)
{
    conda_matchspec *ms = conda_matchspec_parse(text, strlen(text), NULL);
    if (!ms)
        return -1;
    int ok = conda_matchspec_match(ms, p->name, p->version, p->build ? p->build : "",
                                   p->build_number);
    conda_matchspec_free(ms);
    return ok;
}

static void root_conda(checker *c, const char *text, const conda_matchspec *ms)
{
    about(c, "requirement", xstrdup(text));
    lock_spec_names_add(&c->names, "conda", ms->name);
    const lock_package *p = lock_find(c->lock, "conda", ms->name, NULL);
    if (!p)
        root_missing(c, "conda", ms->name);
    else
        root_held(c, p, conda_holds(p, text) != 0, "the lock has %s %s", show(p->version),
                  show(p->build));
}

static int edge_conda(const checker *c, const lock_edge *e)
{
    const lock_package *p = lock_find(c->lock, "conda", e->name, e->version);
    return p ? conda_holds(p, e->spec) : 0;
}

/* ---- deb ---- */

static bool deb_alt_holds(const deb_rel *alt, const char *version)
{
    if (alt->op == DEB_OP_ANY)
        return true;
    int cmp = 0;
    if (deb_version_cmp_str(version, alt->version, &cmp, NULL) != 0)
        return false;
    return deb_op_holds(alt->op, cmp);
}

static void root_deb(checker *c, const char *text, size_t idx, el_code *rc, el_ctx *ctx)
{
    about(c, "requirement", xstrdup(text));
    const char *eq = strchr(text, '=');
    if (eq && !strpbrk(text, "(<>")) { /* apt's name=version */
        const char *colon = memchr(text, ':', (size_t)(eq - text)); /* name:arch=version */
        char *name = xstrndup(text, (size_t)((colon ? colon : eq) - text));
        lock_spec_names_add(&c->names, "deb", name);
        const lock_package *p = lock_find(c->lock, "deb", name, NULL);
        int cmp = 1;
        if (!p)
            root_missing(c, "deb", name);
        else
            root_held(c, p,
                      deb_version_cmp_str(p->version ? p->version : "", eq + 1, &cmp, NULL) == 0 &&
                          cmp == 0,
                      "the lock has %s", show(p->version));
        free(name);
        return;
    }
    deb_relations *rels = NULL;
    deb_parse_error perr = { 0, NULL };
    if (deb_relations_parse(text, DEB_FIELD_DEPENDS, &rels, &perr) != 0) {
        *rc = el_fail(ctx, EL_SPEC_INVALID, "`%s` is not a Debian package relation: %s", text,
                      perr.message ? perr.message : "malformed");
        char *field = xasprintf("roots[%zu]", idx);
        el_detail_str(ctx, "field", field);
        free(field);
        free(perr.message);
        return;
    }
    size_t ng = 0;
    const deb_rel_group *g = deb_relations_groups(rels, &ng);
    for (size_t i = 0; i < ng; i++) {
        const lock_package *seen = NULL, *met = NULL;
        for (size_t j = 0; j < g[i].n_alts; j++)
            lock_spec_names_add(&c->names, "deb", g[i].alts[j].name);
        for (size_t j = 0; j < g[i].n_alts && !met; j++) {
            const lock_package *p = lock_find(c->lock, "deb", g[i].alts[j].name, NULL);
            if (p && !seen)
                seen = p;
            if (p && deb_alt_holds(&g[i].alts[j], p->version ? p->version : ""))
                met = p;
        }
        if (!seen)
            root_missing(c, "deb", g[i].alts[0].name);
        else
            root_held(c, met ? met : seen, met != NULL, "the lock has %s %s", seen->name,
                      show(seen->version));
    }
    deb_relations_free(rels);
}

static int edge_deb(const lock_edge *e)
{
    deb_relations *rels = NULL;
    deb_field f = lock_strcmp(e->kind, "pre-depends") == 0 ? DEB_FIELD_PRE_DEPENDS
                                                           : DEB_FIELD_DEPENDS;
    deb_parse_error perr = { 0, NULL };
    if (deb_relations_parse(e->spec, f, &rels, &perr) != 0) {
        free(perr.message);
        return -1;
    }
    size_t ng = 0;
    const deb_rel_group *g = deb_relations_groups(rels, &ng);
    int res = 1; /* no alternative names it: a virtual package the edge provides */
    for (size_t i = 0; i < ng; i++) {
        bool named = false, ok = false;
        for (size_t j = 0; j < g[i].n_alts; j++)
            if (strcmp(g[i].alts[j].name, e->name) == 0) {
                named = true;
                ok = ok || deb_alt_holds(&g[i].alts[j], e->version);
            }
        if (named && !ok)
            res = 0;
    }
    deb_relations_free(rels);
    return res;
}

/* ---- edges ---- */

static void check_edges(checker *c)
{
    const lock_doc *d = c->lock;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        about(c, "dependency", pkg_id(p->ecosystem, p->name, p->version));
        for (size_t j = 0; j < p->n_deps; j++) {
            const lock_edge *e = &p->deps[j];
            const char *eco = e->ecosystem ? e->ecosystem : p->ecosystem;
            char w[32];
            at(e->line, w);
            if (!lock_find(d, eco, e->name, e->version)) {
                line(c, "%s:%s@%s depends on %s:%s@%s, which is not in the lock%s",
                     show(p->ecosystem), show(p->name), show(p->version), show(eco), show(e->name),
                     show(e->version), w);
                continue;
            }
            if (!e->spec || !e->version)
                continue;
            int ok = 1;
            if (strcmp(eco, "pypi") == 0 || strcmp(p->ecosystem, "pypi") == 0)
                ok = edge_pypi(c, e); /* a PyPI requirement, also when conda meets it */
            else if (strcmp(eco, "npm") == 0)
                ok = edge_npm(e);
            else if (strcmp(eco, "deb") == 0)
                ok = edge_deb(e);
            else if (strcmp(eco, "conda") == 0)
                ok = edge_conda(c, e);
            if (ok < 0)
                line(c, "%s:%s@%s has a dependency envlock cannot read: %s%s", show(p->ecosystem),
                     show(p->name), show(p->version), e->spec, w);
            else if (!ok)
                line(c, "%s:%s@%s needs %s, but the lock binds %s to %s%s", show(p->ecosystem),
                     show(p->name), show(p->version), e->spec, e->name, e->version, w);
        }
    }
}


/* ---- artifacts ---- */

static bool has_suffix(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The ecosystem's naming: a wheel or sdist of the project, a .deb of the
 * package, an npm tarball. NULL when it fits. */
static const char *file_kind_problem(const char *eco, const char *name, const char *f)
{
    if (strcmp(eco, "pypi") == 0) {
        size_t stem;
        if (has_suffix(f, ".whl"))
            stem = strlen(f) - 4;
        else if (has_suffix(f, ".tar.gz"))
            stem = strlen(f) - 7;
        else if (has_suffix(f, ".zip"))
            stem = strlen(f) - 4;
        else
            return "is not a wheel (.whl) or an sdist (.tar.gz, .zip)";
        char *s = xstrndup(f, stem), *canon = pypi_name_canonical(s);
        size_t nl = name ? strlen(name) : 0;
        bool ok = nl && strncmp(canon, name, nl) == 0 && canon[nl] == '-';
        if (ok && has_suffix(f, ".whl")) { /* NAME-VER(-BUILD)?-PY-ABI-PLAT */
            size_t dashes = 0;
            for (size_t i = 0; i < stem; i++)
                dashes += f[i] == '-';
            ok = dashes == 4 || dashes == 5;
        }
        free(s);
        free(canon);
        return ok ? NULL : "is not a file name of this project";
    }
    if (strcmp(eco, "deb") == 0) {
        size_t nl = name ? strlen(name) : 0;
        if (!has_suffix(f, ".deb"))
            return "is not a .deb";
        if (!nl || strncmp(f, name, nl) != 0 || f[nl] != '_')
            return "is not a .deb of this package";
        return NULL;
    }
    if (strcmp(eco, "npm") == 0)
        return has_suffix(f, ".tgz") ? NULL : "is not an npm tarball (.tgz)";
    if (strcmp(eco, "conda") == 0) {
        size_t nl = name ? strlen(name) : 0;
        if (!has_suffix(f, ".conda") && !has_suffix(f, ".tar.bz2"))
            return "is not a conda package (.conda, .tar.bz2)";
        if (!nl || strncmp(f, name, nl) != 0 || f[nl] != '-')
            return "is not a conda package of this name";
        return NULL;
    }
    return "belongs to no known ecosystem";
}

/* The authority of an http(s)/file URL ("" for file:///), copied; NULL when
 * the scheme is none of those. */
static char *url_authority(const char *u)
{
    const char *rest = NULL;
    if (!u)
        return NULL;
    if (strncmp(u, "https://", 8) == 0)
        rest = u + 8;
    else if (strncmp(u, "http://", 7) == 0)
        rest = u + 7;
    else if (strncmp(u, "file://", 7) == 0)
        rest = u + 7;
    if (!rest)
        return NULL;
    size_t n = strcspn(rest, "/?#");
    char *a = xstrndup(rest, n);
    for (char *p = a; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return a;
}

char *lock_url_file(const char *u)
{
    const char *slash = strrchr(u, '/');
    if (!slash)
        return NULL;
    char *seg = xstrndup(slash + 1, strcspn(slash + 1, "?#"));
    uriUnescapeInPlaceExA(seg, URI_FALSE, URI_BR_DONT_TOUCH);
    return seg;
}

/* Whether the URL's last path segment, percent-decoded, is `file`. */
static bool url_ends_in(const char *u, const char *file)
{
    char *seg = lock_url_file(u);
    bool ok = seg && strcmp(seg, file) == 0;
    free(seg);
    return ok;
}

/* The URL a package's source names: the index or registry URL, or the URI
 * of an apt "URI SUITE/COMPONENT". Copied. */
static char *source_uri(const char *eco, const char *src)
{
    if (strcmp(eco, "deb") == 0)
        return xstrndup(src, strcspn(src, " "));
    return xstrdup(src);
}

static bool same_source(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    while (na && a[na - 1] == '/')
        na--;
    while (nb && b[nb - 1] == '/')
        nb--;
    return na == nb && strncmp(a, b, na) == 0;
}

/* What the url's host must be: the source's; for PyPI itself, its file
 * host too (pypi.org's pages link files.pythonhosted.org). It must end in
 * `file` unless that is NULL (a file name already refused). */
static const char *url_problem(const char *eco, const char *src, const char *u, const char *file)
{
    char *have = url_authority(u);
    if (!have)
        return "is not an https, http or file URL";
    const char *why = NULL;
    char *uri = src ? source_uri(eco, src) : NULL;
    char *want = uri ? url_authority(uri) : NULL;
    if (strchr(have, '@'))
        why = "carries credentials";
    else if (strpbrk(u, "?#"))
        why = "has a query or fragment";
    else if (!want)
        why = "cannot be checked: the package names no source";
    else if (strcmp(have, want) != 0 &&
             !(strcmp(eco, "pypi") == 0 && strcmp(want, "pypi.org") == 0 &&
               strcmp(have, "files.pythonhosted.org") == 0))
        why = "is not on the package source's host";
    else if (file && !url_ends_in(u, file))
        why = "does not end in the file name";
    free(have);
    free(want);
    free(uri);
    return why;
}

static const lock_index_doc *doc_of(const checker *c, const lock_package *p)
{
    for (size_t i = 0; i < c->in->n_docs; i++) {
        const lock_index_doc *d = &c->in->docs[i];
        if (lock_strcmp(d->ecosystem, p->ecosystem) == 0 && lock_strcmp(d->name, p->name) == 0)
            return d;
    }
    return NULL;
}

/* The index's entry for the artifact: pypi by file name; npm by version (one
 * tarball each); deb by version, the entry of the same file name first (one
 * version can have a file per architecture). */
static const lock_index_file *doc_file(const lock_index_doc *d, const lock_package *p,
                                       const lock_artifact *a)
{
    bool by_version = strcmp(d->ecosystem, "pypi") != 0;
    const lock_index_file *any = NULL;
    for (size_t i = 0; i < d->n_files; i++) {
        const lock_index_file *f = &d->files[i];
        if (by_version && lock_strcmp(f->version, p->version) != 0)
            continue;
        if (lock_strcmp(f->file, a->file) == 0)
            return f;
        if (by_version && !any)
            any = f;
    }
    return any;
}

static void malformed(checker *c, const lock_package *p, size_t i, size_t j, const char *field,
                      const char *value, const char *why)
{
    const lock_artifact *a = &p->artifacts[j];
    unsigned ln = strcmp(field, "file") == 0   ? a->line_file
                  : strcmp(field, "hash") == 0 ? a->line_hash
                  : strcmp(field, "url") == 0  ? a->line_url
                                               : 0;
    char w[32];
    line(c, "artifact malformed: %s %s %s packages[%zu].artifacts[%zu].%s%s: `%s` %s",
         show(p->ecosystem), show(p->name), show(p->version), i, j, field,
         at(ln ? ln : a->line, w), value ? value : "", why);
}

/* The artifact against the index's entry for it; one line per difference,
 * each naming the line of the field that differs. */
static void confirm(checker *c, const lock_package *p, const lock_artifact *a,
                    const lock_index_doc *d)
{
    const lock_index_file *f = doc_file(d, p, a);
    char w[32];
    char *who = xasprintf("artifact not confirmed: %s %s %s %s", show(p->ecosystem),
                          show(p->name), show(p->version), a->file);
#define WHERE(ln) who, at((ln) ? (ln) : a->line, w)
    if (!f) {
        if (strcmp(d->ecosystem, "pypi") != 0)
            line(c, "%s%s: the index has no version %s", WHERE(a->line), show(p->version));
        else
            line(c, "%s%s: the index lists no such file", WHERE(a->line));
        free(who);
        return;
    }
    if (lock_strcmp(f->file, a->file) != 0)
        line(c, "%s%s: the index gives the file %s", WHERE(a->line_file), show(f->file));
    if (!f->hash)
        line(c, "%s%s: the index gives no hash", WHERE(a->line_hash));
    else if (lock_strcmp(f->hash, a->hash) != 0)
        line(c, "%s%s: the index gives %s", WHERE(a->line_hash), f->hash);
    if (f->url && a->url && lock_strcmp(f->url, a->url) != 0)
        line(c, "%s%s: the index gives the URL %s", WHERE(a->line_url), f->url);
    if (f->md5 && a->md5 && lock_strcmp(f->md5, a->md5) != 0)
        line(c, "%s%s: the index gives md5 %s", WHERE(a->line), f->md5);
    if (f->size && a->size && f->size != a->size)
        line(c, "%s%s: the index gives size %llu", WHERE(a->line), (unsigned long long)f->size);
#undef WHERE
    free(who);
}

static void check_artifacts(checker *c)
{
    const lock_doc *d = c->lock;
    const lock_check_input *in = c->in;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        const char *eco = show(p->ecosystem);
        about(c, "artifact", pkg_id(p->ecosystem, p->name, p->version));
        if (p->n_artifacts && p->source && in->n_sources) {
            bool known = false;
            for (size_t k = 0; k < in->n_sources && !known; k++)
                known = lock_strcmp(in->sources[k].ecosystem, p->ecosystem) == 0 &&
                        same_source(in->sources[k].source, p->source);
            if (!known) {
                char w[32];
                line(c, "package source not from this spec: %s %s %s packages[%zu].source%s: `%s`",
                     eco, show(p->name), show(p->version), i, at(p->line_source, w), p->source);
            }
        }
        const lock_index_doc *doc = doc_of(c, p);
        for (size_t j = 0; j < p->n_artifacts; j++) {
            const lock_artifact *a = &p->artifacts[j];
            const size_t before = c->report->n;
            const char *why = lock_file_name_problem(a->file);
            if (!why)
                why = file_kind_problem(eco, p->name, a->file);
            const bool file_ok = !why;
            if (why)
                malformed(c, p, i, j, "file", a->file, why);
            if ((why = lock_hash_problem(eco, a->hash)))
                malformed(c, p, i, j, "hash", a->hash, why);
            /* the index's own URL for the file is canonical whatever its host */
            const lock_index_file *f = doc ? doc_file(doc, p, a) : NULL;
            bool given = f && f->url && lock_strcmp(f->url, a->url) == 0;
            /* format 2 names no URL for pypi and npm files: the index does */
            bool url_needed = a->url || d->format_version < 2 || strcmp(eco, "deb") == 0;
            if (url_needed && !given &&
                (why = url_problem(eco, p->source, a->url ? a->url : "",
                                   file_ok ? a->file : NULL)))
                malformed(c, p, i, j, "url", a->url, why);
            if (doc && c->report->n == before)
                confirm(c, p, a, doc);
        }
    }
}

/* ---- the marker environment of the target ---- */

static void init_env(checker *c)
{
    const char *full = c->in->python_version ? c->in->python_version : c->lock->python_version;
    const char *arch = c->in->arch ? c->in->arch : c->lock->arch;
    /* an environment.yml's pip layer runs on the conda `python` the lock
     * holds, and was resolved for it (resolver_resolve()) */
    const lock_package *conda_py = lock_find(c->lock, "conda", "python", NULL);
    if (conda_py && conda_py->version)
        full = conda_py->version;
    if (!full)
        full = "3.13.0";
    /* X.Y of X.Y.Z */
    const char *dot = strchr(full, '.');
    const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    size_t n = dot2 ? (size_t)(dot2 - full) : strlen(full);
    if (n >= sizeof c->python_xy)
        n = sizeof c->python_xy - 1;
    memcpy(c->python_xy, full, n);
    c->python_xy[n] = '\0';
    c->machine = !arch                          ? "x86_64"
                 : strcmp(arch, "amd64") == 0   ? "x86_64"
                 : strcmp(arch, "arm64") == 0   ? "aarch64"
                 : strcmp(arch, "i386") == 0    ? "i686"
                 : strcmp(arch, "ppc64el") == 0 ? "ppc64le"
                                                : arch;
    c->env = (pypi_env){
        .python_version = c->python_xy,
        .python_full_version = full,
        .os_name = "posix",
        .sys_platform = "linux",
        .platform_system = "Linux",
        .platform_machine = c->machine,
        .platform_python_implementation = "CPython",
        .implementation_name = "cpython",
        .implementation_version = full,
        .extra = "",
    };
}

el_code lock_check(el_ctx *ctx, const lock_doc *lock, const lock_check_input *in, bool *stale,
                   lock_report *report)
{
    checker c = { .lock = lock, .in = in, .report = report, .kind = "spec" };
    c.pre = pre_mode(lock->prereleases);
    init_env(&c);
    *stale = false;
    el_code rc = EL_OK;
    size_t digest_line = report->n;
    /* only a caller that tells the spec's own roots can say what changed */
    c.spec_changed = in->roots_asked && lock_strcmp(lock->spec_digest, in->spec_digest) != 0;
    cmp_field(&c, "spec", "specDigest", "spec digest", lock->spec_digest, in->spec_digest);
    check_dep_file(&c);
    check_target(&c);
    check_options(&c);
    check_inputs(&c);
    check_indexed(&c);
    for (size_t i = 0; i < in->n_roots && rc == EL_OK; i++) {
        const lock_check_root *r = &in->roots[i];
        c.root = r;
        c.asked = in->roots_asked && in->roots_asked[i];
        const char *eco = r->ecosystem ? r->ecosystem : "";
        char *err = NULL;
        if (strcmp(eco, "pypi") == 0) {
            pypi_requirement *req = pypi_requirement_parse(r->text, &err);
            if (req) {
                root_pypi(&c, r->text, req);
                pypi_requirement_free(req);
            } else {
                rc = el_fail(ctx, EL_SPEC_INVALID, "`%s` is not a PEP 508 requirement: %s", r->text,
                             err ? err : "malformed");
            }
        } else if (strcmp(eco, "npm") == 0) {
            npm_pkgspec s;
            if (npm_pkgspec_parse(r->text, &s, &err) == 0) {
                root_npm(&c, r->text, &s);
                npm_pkgspec_release(&s);
            } else {
                rc = el_fail(ctx, EL_SPEC_INVALID, "`%s` is not an npm package spec: %s", r->text,
                             err ? err : "malformed");
            }
        } else if (strcmp(eco, "deb") == 0) {
            root_deb(&c, r->text, i, &rc, ctx);
        } else if (strcmp(eco, "conda") == 0) {
            conda_error ce = {0, NULL};
            conda_matchspec *ms = conda_matchspec_parse(r->text, strlen(r->text), &ce);
            if (ms)
                root_conda(&c, r->text, ms);
            else
                rc = el_fail(ctx, EL_SPEC_INVALID, "`%s` is not a conda match spec: %s", r->text,
                             ce.message ? ce.message : "malformed");
            conda_matchspec_free(ms);
        } else {
            rc = el_fail(ctx, EL_SPEC_INVALID, "unknown ecosystem `%s` for `%s`", eco, r->text);
        }
        if (rc != EL_OK && strcmp(eco, "deb") != 0) {
            char *field = xasprintf("roots[%zu]", i);
            el_detail_str(ctx, "field", field);
            free(field);
        }
        free(err);
    }
    if (rc == EL_OK && c.spec_changed) {
        lock_spec_removed(lock, &c.names, report);
        lock_spec_unexplained(report, digest_line);
    }
    if (rc == EL_OK) {
        check_edges(&c);
        check_npm_walk(&c);
        if (in->check_artifacts)
            check_artifacts(&c);
        *stale = c.stale;
    }
    for (size_t i = 0; i < c.names.len; i++)
        free(c.names.items[i]);
    ptrvec_release(&c.names);
    free(c.path);
    return rc;
}

/* plan_export_conda.c — the two conda exports of an environment.yml's
 * lock: conda's explicit file (`conda-explicit`) and conda-lock's unified
 * lockfile (`conda-lock`, CEP 37), each with the environment's pip layer
 * (the lock's Python packages the base does not hold). Pure functions of a
 * plan_input like every export (plan_export.c owns the others and the
 * helpers both use); nothing here reads the network: a pip-layer file's
 * URL is in the lock the verb hands over. */
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "plan.h"
#include "plan_internal.h"

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* ---- the pip layer ---- */

/* The file a pip-layer entry names (conda-lock gives each one file): of
 * the files with a URL and a sha256, the first wheel by name, else the
 * first sdist; NULL when none has both. */
static const lock_artifact *pip_file(const lock_package *p)
{
    const lock_artifact *best = NULL;
    for (size_t i = 0; i < p->n_artifacts; i++) {
        const lock_artifact *a = &p->artifacts[i];
        if (!a->url || !a->file || !plan_sha256_hex(a))
            continue;
        if (!best || plan_is_wheel(a) > plan_is_wheel(best) ||
            (plan_is_wheel(a) == plan_is_wheel(best) && strcmp(a->file, best->file) < 0))
            best = a;
    }
    return best;
}

static bool any_sha256(const lock_package *p)
{
    for (size_t i = 0; i < p->n_artifacts; i++)
        if (plan_sha256_hex(&p->artifacts[i]))
            return true;
    return false;
}

/* The pip layer: the lock's Python packages the base does not hold, in
 * name order; each needs a sha256 to be checked by, and for conda-lock the
 * one file pip_file() picks (its URL comes from its index page, which the
 * verb reads). A package without is refused. */
static bool pip_layer(el_ctx *ctx, const plan_input *in, plan_format fmt, plan_pkgv *pv)
{
    *pv = plan_pkgs_of(in->lock, "pypi", true);
    for (size_t i = 0; i < pv->n; i++)
        if (fmt == PLAN_CONDA_LOCK ? !pip_file(pv->v[i]) : !any_sha256(pv->v[i])) {
            plan_export_refuse(ctx, fmt, pv->v[i],
                               fmt == PLAN_CONDA_LOCK ? "has no file with a URL and a sha256"
                                                      : "has no file with a sha256");
            free(pv->v);
            return false;
        }
    return true;
}

/* The reference's `# datalayer-pip: <requirement>` header lines, here the
 * locked pins with every sha256 the lock has for the package, in pip's
 * hash-checking syntax: the pip layer as it installs over the conda
 * environment. */
static void pip_lines(strbuf *sb, const plan_pkgv *pv)
{
    for (size_t i = 0; i < pv->n; i++) {
        const lock_package *p = pv->v[i];
        sb_addf(sb, "# datalayer-pip: %s==%s", p->name, p->version);
        const char **h = xcalloc(p->n_artifacts + 1, sizeof *h);
        size_t n = 0;
        for (size_t k = 0; k < p->n_artifacts; k++)
            if (plan_sha256_hex(&p->artifacts[k]))
                h[n++] = plan_sha256_hex(&p->artifacts[k]);
        n = plan_sort_unique(h, n);
        for (size_t k = 0; k < n; k++)
            sb_addf(sb, " --hash=sha256:%s", h[k]);
        sb_addc(sb, '\n');
        free(h);
    }
}

/* ---- conda-explicit ---- */

/* The platform subdir the environment is for: its packages' own (every
 * package is from it or from noarch), else the target's by its Debian
 * architecture (REFERENCE §3: linux-64). */
static const char *conda_platform(const lock_doc *d, const plan_pkgv *cv)
{
    for (size_t i = 0; i < cv->n; i++)
        if (cv->v[i]->subdir && strcmp(cv->v[i]->subdir, "noarch") != 0)
            return cv->v[i]->subdir;
    return d->arch && strcmp(d->arch, "arm64") == 0 ? "linux-aarch64" : "linux-64";
}

/* The conda packages of the lock in name order, each with its one file,
 * which has a URL and an md5 or sha256: what both conda formats name. A
 * lock with no conda package is no conda environment (it was not resolved
 * from an environment.yml) and is refused rather than written empty. */
static bool conda_pkgs(el_ctx *ctx, const plan_input *in, plan_format fmt, plan_pkgv *cv)
{
    *cv = plan_pkgs_of(in->lock, "conda", false);
    const char *why = cv->n ? NULL : "it has no conda packages (not resolved from an "
                                     "environment.yml)";
    const lock_package *bad = NULL;
    for (size_t i = 0; i < cv->n && !bad; i++) {
        const lock_package *p = cv->v[i];
        const lock_artifact *a = p->n_artifacts == 1 ? &p->artifacts[0] : NULL;
        if (!a || !a->url || (!a->md5 && !plan_sha256_hex(a))) {
            bad = p;
            why = "has no single file with a URL and an md5 or sha256";
        }
    }
    if (!why)
        return true;
    free(cv->v);
    plan_export_refuse(ctx, fmt, bad, why);
    return false;
}

/* `@EXPLICIT` and a `<url>#<md5>` line per package (`#sha256:<hex>` for a
 * record without md5), the URL canonical, or with `mirrored` as the
 * install step fetches it (plan_mirror_url()). */
static void explicit_body(strbuf *sb, const plan_input *in, const plan_pkgv *cv, bool mirrored)
{
    sb_adds(sb, "@EXPLICIT\n");
    for (size_t i = 0; i < cv->n; i++) {
        const lock_artifact *a = &cv->v[i]->artifacts[0];
        char *url = mirrored ? plan_mirror_url(in, a->url) : xstrdup(a->url);
        if (a->md5)
            sb_addf(sb, "%s#%s\n", url, a->md5);
        else
            sb_addf(sb, "%s#sha256:%s\n", url, plan_sha256_hex(a));
        free(url);
    }
}

/* conda's explicit file (what `conda list --explicit --md5` writes and
 * `conda create --file` / `micromamba create --file` read): `@EXPLICIT`,
 * then each package's canonical URL with its md5 as the fragment (the
 * sha256 as `#sha256:<hex>` for a record without md5). Packages in name
 * order; the installers compute the link order themselves. */
static char *export_conda_explicit(el_ctx *ctx, const plan_input *in, size_t *len)
{
    plan_pkgv cv;
    if (!conda_pkgs(ctx, in, PLAN_CONDA_EXPLICIT, &cv))
        return NULL;
    plan_pkgv pv;
    if (!pip_layer(ctx, in, PLAN_CONDA_EXPLICIT, &pv)) {
        free(cv.v);
        return NULL;
    }
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "# Exported by envlock from lock %s: create the environment with\n"
                 "# micromamba create --name ENV --file <this file>\n",
            in->lock_digest ? in->lock_digest : "(no digest)");
    if (pv.n)
        sb_adds(&sb, "# then install the pip layer (the datalayer-pip lines) into it with\n"
                     "# pip install --no-deps --require-hashes -r <those lines>\n");
    sb_addf(&sb, "# platform: %s\n", conda_platform(in->lock, &cv));
    pip_lines(&sb, &pv);
    free(pv.v);
    explicit_body(&sb, in, &cv, false);
    free(cv.v);
    return sb_detach(&sb, len);
}

char *plan_conda_install_text(const plan_input *in, size_t *len)
{
    plan_pkgv cv;
    el_ctx *ctx = el_ctx_new();
    bool ok = conda_pkgs(ctx, in, PLAN_CONDA_EXPLICIT, &cv);
    el_ctx_free(ctx);
    if (!ok)
        return NULL;
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "# The conda packages of lock %s, for\n"
                 "# micromamba install --prefix " PLAN_CONDA_PREFIX " --file <this file>\n"
                 "# platform: %s\n",
            in->lock_digest ? in->lock_digest : "(no digest)", conda_platform(in->lock, &cv));
    explicit_body(&sb, in, &cv, true);
    free(cv.v);
    return sb_detach(&sb, len);
}

/* ---- conda-lock ---- */

/* A key, plain, and its value double-quoted: a version such as `1.10` or a
 * name such as `yes` stays a string for every YAML reader. */
static void y_kv(lock_emit *e, const char *key, const char *value)
{
    lock_emit_scalar(e, key, false);
    lock_emit_scalar(e, value, true);
}

static int cmp_edge(const void *x, const void *y)
{
    const lock_edge *a = *(const lock_edge *const *)x, *b = *(const lock_edge *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : cmp_str(a->spec, b->spec);
}

/* conda-lock's value for a dependency: for conda, the match spec after its
 * name ("python >=3.13,<3.14.0a0" -> ">=3.13,<3.14.0a0", a bare name ->
 * ""); for pip, the PEP 508 requirement's specifier as pep508.h reads it,
 * without name, extras and marker ("idna<4,>=2.5; python_version >= '3'"
 * -> "<4,>=2.5", none -> "*"); a line it cannot read gives "*" too. */
static char *dep_value(const lock_edge *ed, bool pip)
{
    const char *s = ed->spec ? ed->spec : "";
    if (!pip) {
        s += strcspn(s, " \t");
        return xstrdup(s + strspn(s, " \t"));
    }
    pypi_requirement *q = pypi_requirement_parse(s, NULL);
    char *v = xstrdup(q && q->specifier && *q->specifier ? q->specifier : "*");
    pypi_requirement_free(q);
    return v;
}

/* dependencies: {name: spec}, by name, one entry per name. A name with
 * several edges (a record that depends on `python` and `python >=3.8`)
 * gets the values that say something, distinct, joined by commas, else
 * the one empty (or "*") value. */
static void condalock_deps(lock_emit *e, const lock_package *p, bool pip)
{
    const lock_edge **v = xcalloc(p->n_deps + 1, sizeof *v);
    for (size_t i = 0; i < p->n_deps; i++)
        v[i] = &p->deps[i];
    qsort(v, p->n_deps, sizeof *v, cmp_edge);
    lock_emit_open(e, true, false);
    strbuf val = STRBUF_INIT;
    for (size_t i = 0, j; i < p->n_deps; i = j) {
        sb_reset(&val);
        char *last = NULL;
        for (j = i; j < p->n_deps && strcmp(v[j]->name, v[i]->name) == 0; j++) {
            char *one = dep_value(v[j], pip);
            bool says = *one && strcmp(one, "*") != 0 && !(last && strcmp(last, one) == 0);
            if (says)
                sb_addf(&val, "%s%s", val.len ? "," : "", one);
            free(says ? last : one);
            last = says ? one : last;
        }
        free(last);
        lock_emit_scalar(e, v[i]->name, true);
        lock_emit_scalar(e, val.len ? val.buf : pip ? "*" : "", true);
    }
    sb_release(&val);
    lock_emit_close(e, true);
    free(v);
}

/* One entry of `package`, CEP 37's fields in a fixed order. */
static void condalock_package(lock_emit *e, const char *platform, const lock_package *p,
                              const lock_artifact *a, bool pip)
{
    lock_emit_open(e, true, false);
    y_kv(e, "name", p->name);
    y_kv(e, "version", p->version);
    y_kv(e, "manager", pip ? "pip" : "conda");
    y_kv(e, "platform", platform);
    lock_emit_scalar(e, "dependencies", false);
    condalock_deps(e, p, pip);
    y_kv(e, "url", a->url);
    lock_emit_scalar(e, "hash", false);
    lock_emit_open(e, true, false);
    if (a->md5)
        y_kv(e, "md5", a->md5);
    if (plan_sha256_hex(a))
        y_kv(e, "sha256", plan_sha256_hex(a));
    lock_emit_close(e, true);
    y_kv(e, "category", "main");
    lock_emit_scalar(e, "optional", false);
    lock_emit_scalar(e, "false", false);
    lock_emit_close(e, true);
}

/* metadata: content_hash (the lock digest's hex, for the one platform),
 * the conda packages' channels in name order, the platform, no sources. */
static void condalock_metadata(lock_emit *e, const plan_input *in, const plan_pkgv *cv,
                               const char *platform)
{
    const char *digest = in->lock_digest ? in->lock_digest : "";
    lock_emit_scalar(e, "metadata", false);
    lock_emit_open(e, true, false);
    lock_emit_scalar(e, "content_hash", false);
    lock_emit_open(e, true, false);
    y_kv(e, platform, strncmp(digest, "sha256:", 7) == 0 ? digest + 7 : digest);
    lock_emit_close(e, true);
    lock_emit_scalar(e, "channels", false);
    lock_emit_open(e, false, false);
    const char **ch = xcalloc(cv->n + 1, sizeof *ch);
    size_t n = 0;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->v[i]->source)
            ch[n++] = cv->v[i]->source;
    n = plan_sort_unique(ch, n);
    for (size_t i = 0; i < n; i++) {
        lock_emit_open(e, true, false);
        y_kv(e, "url", ch[i]);
        lock_emit_scalar(e, "used_env_vars", false);
        lock_emit_open(e, false, false);
        lock_emit_close(e, false);
        lock_emit_close(e, true);
    }
    free(ch);
    lock_emit_close(e, false);
    lock_emit_scalar(e, "platforms", false);
    lock_emit_open(e, false, false);
    lock_emit_scalar(e, platform, true);
    lock_emit_close(e, false);
    lock_emit_scalar(e, "sources", false);
    lock_emit_open(e, false, false);
    lock_emit_close(e, false);
    lock_emit_close(e, true);
}

/* conda-lock's unified lockfile, version 1 (CEP 37; what `conda-lock
 * install` and `micromamba create --file *-lock.yml` read): the conda
 * packages as conda_pkgs() checks them, then the pip layer (the Python
 * packages not in the base), each with one file (pip_file()). */
static char *export_conda_lock(el_ctx *ctx, const plan_input *in, size_t *len)
{
    plan_pkgv cv;
    if (!conda_pkgs(ctx, in, PLAN_CONDA_LOCK, &cv))
        return NULL;
    plan_pkgv pv;
    if (!pip_layer(ctx, in, PLAN_CONDA_LOCK, &pv)) {
        free(cv.v);
        return NULL;
    }
    const char *platform = conda_platform(in->lock, &cv);
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "# Exported by envlock from lock %s: create the environment with\n"
                 "# conda-lock install --name ENV <this file>\n",
            in->lock_digest ? in->lock_digest : "(no digest)");
    lock_emit *e = lock_emit_begin(&sb);
    lock_emit_open(e, true, false);
    lock_emit_scalar(e, "version", false);
    lock_emit_scalar(e, "1", false);
    condalock_metadata(e, in, &cv, platform);
    lock_emit_scalar(e, "package", false);
    lock_emit_open(e, false, false);
    for (size_t i = 0; i < cv.n; i++)
        condalock_package(e, platform, cv.v[i], &cv.v[i]->artifacts[0], false);
    for (size_t i = 0; i < pv.n; i++)
        condalock_package(e, platform, pv.v[i], pip_file(pv.v[i]), true);
    lock_emit_close(e, false);
    lock_emit_close(e, true);
    bool ok = lock_emit_end(e);
    free(cv.v);
    free(pv.v);
    if (!ok) {
        sb_release(&sb);
        el_fail(ctx, EL_INTERNAL, "the conda-lock text could not be written (invalid UTF-8)");
        return NULL;
    }
    return sb_detach(&sb, len);
}

char *plan_export_conda(el_ctx *ctx, const plan_input *in, plan_format fmt, size_t *len)
{
    *len = 0;
    return fmt == PLAN_CONDA_EXPLICIT ? export_conda_explicit(ctx, in, len)
                                      : export_conda_lock(ctx, in, len);
}

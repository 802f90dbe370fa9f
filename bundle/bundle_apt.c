/* bundle_apt.c — the apt part of a bundle: for every Release the lock was
 * resolved from, InRelease, Release and Release.gpg exactly as fetched (so
 * signatures and hashes still verify), the Packages indexes of the locked
 * components and architectures (and "all") at their paths and, when the
 * Release offers by-hash, at their by-hash paths too, each checked against
 * the signed Release's sha256 (only the compression the reader reads must
 * be there); and the locked .debs at their pool paths
 * (the lock's URL: deb artifacts keep one in every lock format). Release
 * text is read by indexes/apt. */
#include <stdlib.h>
#include <string.h>

#include "apt_index.h"
#include "bundle_internal.h"

typedef struct dist_job {
    bundle_tree *t;
    const char *uri;       /* archive URI, ending in '/' */
    const char *dist_url;  /* URI + "dists/SUITE/" (flat: URI + SUITE) */
    const char *dist_rel;  /* TREE/ + dist_url minus URI */
    const char *signed_name; /* "InRelease" or "Release": the one the lock names */
    const char *identity;  /* the lock's identity of it: "sha256:" of the Release text */
    const char **comps;    /* components the lock installs from ("" flat) */
    size_t ncomps;
} dist_job;

typedef struct file_job {
    dist_job *d;
    const char *name;
} file_job;

/* "URI SUITE/COMP" or "URI SUITE" (flat) into its parts (in the arena). */
static bool split_source(arena *a, const char *src, const char **uri, const char **dist,
                         const char **comp)
{
    const char *sp = strchr(src, ' ');
    if (!sp || sp == src || sp[-1] != '/')
        return false;
    *uri = arena_strndup(a, src, (size_t)(sp - src));
    const char *suite = sp + 1, *slash = strchr(suite, '/');
    if (slash) {
        *dist = arena_sprintf(a, "%sdists/%.*s/", *uri, (int)(slash - suite), suite);
        *comp = arena_strdup(a, slash + 1);
    } else {
        *dist = arena_sprintf(a, "%s%s", *uri, suite);
        *comp = "";
    }
    return true;
}

static bool wanted_index(const dist_job *d, const char *arch, const char *path, const char **comp)
{
    for (size_t i = 0; i < d->ncomps; i++) {
        const char *c = d->comps[i];
        char *pre = *c ? xasprintf("%s/binary-%s/Packages", c, arch) : xstrdup("Packages");
        size_t n = strlen(pre);
        bool ok = strncmp(path, pre, n) == 0 && !strchr(path + n, '/');
        free(pre);
        if (ok) {
            *comp = c;
            return true;
        }
    }
    return false;
}

/* Whether `path` is the one compression of its index the apt reader reads:
 * the first of .xz, .gz and none that the Release lists
 * (indexes/apt/apt_index_load.c, plan_index). The others are optional: an
 * archive may list a form it does not serve (Debian lists every
 * uncompressed Packages, for the hashes, and answers 404 for them). */
static bool read_form(const apt_release *rel, const char *path)
{
    static const char *const exts[] = { ".xz", ".gz" };
    size_t n = strlen(path), base = n;
    for (size_t i = 0; i < 2; i++)
        if (n > strlen(exts[i]) && strcmp(path + n - strlen(exts[i]), exts[i]) == 0)
            base = n - strlen(exts[i]);
    for (size_t i = 0; i < 3; i++) {
        char *p = xasprintf("%.*s%s", (int)base, path, i < 2 ? exts[i] : "");
        bool listed = apt_release_find(rel, p) != NULL;
        bool same = strcmp(p, path) == 0;
        free(p);
        if (listed)
            return same;
    }
    return false;
}

static void submit_indexes(bundle *b, dist_job *d, const apt_release *rel)
{
    /* No "all" index when the Release says the architecture ones carry
     * arch-all packages: apt and the reader then skip binary-all. */
    const char *archs[2] = { b->lock->arch ? b->lock->arch : "amd64",
                             rel->no_arch_all_packages ? NULL : "all" };
    for (size_t i = 0; i < rel->n_files; i++) {
        const apt_release_file *f = &rel->files[i];
        const char *comp = NULL;
        if (!wanted_index(d, archs[0], f->path, &comp) &&
            !(archs[1] && wanted_index(d, archs[1], f->path, &comp)))
            continue;
        char *url = xasprintf("%s%s", d->dist_url, f->path);
        char *relp = xasprintf("%s%s", d->dist_rel, f->path);
        char *hash = xasprintf("sha256:%s", f->sha256);
        char *byhash = NULL;
        if (rel->by_hash) {
            const char *slash = strrchr(f->path, '/');
            byhash = xasprintf("%s%.*sby-hash/SHA256/%s", d->dist_rel,
                               slash ? (int)(slash - f->path + 1) : 0, f->path, f->sha256);
        }
        char *what = xasprintf("apt %s", url);
        bundle_fetch bf = { .rel = relp, .url = url, .hash = hash, .what = what,
                            .source = d->dist_url, .also_rel = byhash,
                            .optional = !read_form(rel, f->path) };
        bundle_submit(b, &bf);
        free(what);
        free(byhash);
        free(hash);
        free(relp);
        free(url);
    }
}

static void release_fail(bundle *b, const char *url, const char *why)
{
    if (bundle_claim(b)) {
        el_fail(b->ctx, EL_PACKAGE_NOT_FOUND, "%s cannot be read: %s", url, why);
        el_detail_str(b->ctx, "reason", "bad_release");
        el_detail_str(b->ctx, "url", url);
    }
}

/* The Release text of the signed file as fetched: an InRelease's signed
 * part, a Release whole (as the lock's identity is taken). NULL after
 * recording the failure. */
static char *release_text(bundle *b, const cache_response *r, const char *name, size_t *len)
{
    char *text = NULL;
    if (strcmp(name, "InRelease") == 0) {
        if (apt_clearsigned_split((const char *)r->body, r->len, &text, len) != 0) {
            release_fail(b, r->url, "not one clearsigned message");
            return NULL;
        }
        return text;
    }
    *len = r->len;
    return xstrndup((const char *)r->body, r->len);
}

/* Whether the Release served now is the one the lock was resolved from (a
 * re-resolution in the site must see what the original saw): else the
 * bundle stops, naming both, before anything of that suite is written. */
static bool release_same(bundle *b, const dist_job *d, const cache_response *r, const char *text,
                         size_t len)
{
    char hex[65];
    sha256_hex(text, len, hex);
    char *now = xasprintf("sha256:%s", hex);
    bool same = !d->identity || strcmp(d->identity, now) == 0;
    if (!same && bundle_claim(b)) {
        el_fail(b->ctx, EL_ARTIFACT_MISSING,
                "%s is not the Release the lock was resolved from (the lock has %s, the archive "
                "serves %s now): bundle from the archive's snapshot the lock names, or resolve "
                "again",
                r->url, d->identity, now);
        el_detail_str(b->ctx, "reason", "index_changed");
        el_detail_str(b->ctx, "url", r->url);
        el_detail_str(b->ctx, "expected", d->identity);
        el_detail_str(b->ctx, "actual", now);
    }
    free(now);
    return same;
}

static void file_done(bundle *b, const cache_response *r, void *user)
{
    file_job *j = user;
    dist_job *d = j->d;
    if (!r)
        return; /* optional and absent: the archive has no such file */
    bool is_signed = strcmp(j->name, d->signed_name) == 0;
    size_t len = 0;
    char *text = is_signed ? release_text(b, r, j->name, &len) : NULL;
    if (is_signed && (!text || !release_same(b, d, r, text, len))) {
        free(text);
        return;
    }
    char *relp = xasprintf("%s%s", d->dist_rel, j->name);
    bool ok = bundle_put(b, relp, r->body, r->len);
    free(relp);
    if (ok)
        b->st->documents++;
    if (!ok || !is_signed) {
        free(text);
        return;
    }
    /* The Release the lock names: which Packages files to carry. Its
     * signature was checked when the lock was made; a mirror is not the
     * place to trust it less or more, so it is copied, not judged. */
    arena *a = arena_new();
    apt_release rel;
    char *err = NULL;
    if (apt_release_parse(text, len, a, &rel, &err) != 0)
        release_fail(b, r->url, err);
    else
        submit_indexes(b, d, &rel);
    free(err);
    arena_free(a);
    free(text);
}

static dist_job *dist_for(bundle *b, ptrvec *dists, const char *dist_url, const char *signed_name,
                          const char *identity)
{
    for (size_t i = 0; i < dists->len; i++) {
        dist_job *d = dists->items[i];
        if (strcmp(d->dist_url, dist_url) == 0)
            return d;
    }
    const lock_doc *ld = b->lock;
    dist_job *d = arena_alloc(b->a, sizeof *d);
    d->dist_url = arena_strdup(b->a, dist_url);
    d->signed_name = signed_name;
    d->identity = identity && strncmp(identity, "sha256:", 7) == 0 ? identity : NULL;
    ptrvec comps = PTRVEC_INIT;
    for (size_t i = 0; i < ld->n_packages; i++) {
        const lock_package *p = &ld->packages[i];
        const char *uri, *dist, *comp;
        if (strcmp(p->ecosystem, "deb") != 0 || !p->source ||
            !split_source(b->a, p->source, &uri, &dist, &comp) || strcmp(dist, dist_url) != 0)
            continue;
        d->uri = uri;
        bool have = false;
        for (size_t k = 0; k < comps.len && !have; k++)
            have = strcmp(comps.items[k], comp) == 0;
        if (!have)
            ptrvec_push(&comps, (void *)comp);
    }
    d->comps = arena_alloc(b->a, (comps.len + 1) * sizeof *d->comps);
    for (size_t k = 0; k < comps.len; k++)
        d->comps[k] = comps.items[k];
    d->ncomps = comps.len;
    ptrvec_release(&comps);
    if (!d->uri) { /* nothing locked from it: the dist's parent's parent */
        const char *s = strstr(dist_url, "/dists/");
        d->uri = s ? arena_strndup(b->a, dist_url, (size_t)(s - dist_url + 1))
                   : arena_strdup(b->a, dist_url);
    }
    d->t = bundle_tree_for(b, "deb", d->uri);
    d->dist_rel = arena_sprintf(b->a, "%s/%s", d->t->dir, dist_url + strlen(d->uri));
    ptrvec_push(dists, d);
    return d;
}

static void submit_debs(bundle *b)
{
    const lock_doc *d = b->lock;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        const char *uri, *dist, *comp;
        if (strcmp(p->ecosystem, "deb") != 0 || p->installed_in_base || !p->source ||
            !split_source(b->a, p->source, &uri, &dist, &comp))
            continue;
        bundle_tree *t = bundle_tree_for(b, "deb", uri);
        for (size_t k = 0; k < p->n_artifacts; k++) {
            const lock_artifact *a = &p->artifacts[k];
            char *what = xasprintf("deb %s %s %s", p->name, p->version, a->file);
            if (!a->url || strncmp(a->url, uri, strlen(uri)) != 0) {
                bundle_unsafe(b, what, a->url ? a->url : "(no url)");
            } else {
                char *rel = xasprintf("%s/%s", t->dir, a->url + strlen(uri));
                bundle_fetch bf = { .rel = rel, .url = a->url, .hash = a->hash, .what = what,
                                    .artifact = true };
                bundle_submit(b, &bf);
                free(rel);
            }
            free(what);
        }
    }
}

/* Whether the Release files of `in` land under DIR: its URL is the lock's,
 * so a `..` in it would let the server's bytes go anywhere. Else records
 * EL_SPEC_INVALID naming the lock line. */
static bool input_safe(bundle *b, const dist_job *d, const lock_input *in)
{
    char *rel = xasprintf("%s%s", d->dist_rel, d->signed_name);
    bool ok = bundle_safe_rel(rel);
    free(rel);
    if (ok)
        return true;
    if (bundle_claim(b)) {
        el_fail(b->ctx, EL_SPEC_INVALID,
                "the lock's apt input `%s` (line %u) is no safe path in a bundle: its Release "
                "files would be written outside the bundle directory",
                in->url, in->line);
        el_detail_str(b->ctx, "reason", "unsafe_path");
        el_detail_str(b->ctx, "url", in->url);
        el_detail_int(b->ctx, "line", in->line);
    }
    return false;
}

void bundle_apt_submit(bundle *b)
{
    const lock_doc *d = b->lock;
    ptrvec dists = PTRVEC_INIT;
    static const char *const names[] = { "InRelease", "Release", "Release.gpg" };
    for (size_t i = 0; i < d->n_inputs; i++) {
        const lock_input *in = &d->inputs[i];
        if (strcmp(in->ecosystem, "deb") != 0)
            continue;
        const char *slash = strrchr(in->url, '/');
        const char *last = slash ? slash + 1 : "";
        if (strcmp(last, "InRelease") != 0 && strcmp(last, "Release") != 0) {
            bundle_unsafe(b, "an apt input", in->url);
            continue;
        }
        char *dist_url = xstrndup(in->url, (size_t)(last - in->url));
        dist_job *dj = dist_for(b, &dists, dist_url,
                                strcmp(last, "InRelease") == 0 ? "InRelease" : "Release",
                                in->identity);
        free(dist_url);
        if (!input_safe(b, dj, in))
            continue;
        for (size_t k = 0; k < 3; k++) {
            file_job *fj = arena_alloc(b->a, sizeof *fj);
            fj->d = dj;
            fj->name = names[k];
            char *url = xasprintf("%s%s", dj->dist_url, names[k]);
            char *what = xasprintf("apt %s", url);
            bundle_submit_doc(b, url, NULL, 0, what, strcmp(names[k], dj->signed_name) != 0,
                              file_done, fj);
            free(what);
            free(url);
        }
    }
    submit_debs(b);
    ptrvec_release(&dists); /* the jobs live in the arena */
}

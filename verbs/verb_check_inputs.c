/* verb_check_inputs.c — what the inputs a lock records look like now, for the
 * online (and --offline) part of `envlock check`.
 *
 * Owns one cache run over every `inputs:` entry of a lock: PyPI project
 * pages and apt Release files are requested here, npm packuments through
 * the npm loader (one per registry), so that each request is the one the
 * resolver made — same URL, same Accept (and so the same cache entry and
 * the same negotiated document, whose ETag is what the lock holds), same
 * registry credentials — and each identity is derived exactly as
 * resolver_lock.c derived it. Only inputs the spec's request derives are
 * requested (a lock naming another host is a finding, never a request).
 * Project pages and packuments are parsed into the files they list, for
 * lock_check() to confirm artifacts with; Release files only as far as the
 * identity needs. It compares nothing (lock_check.c does). */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "apt_index.h"
#include "cache.h"
#include "conda_index.h"
#include "npm_index.h"
#include "pep508.h"
#include "pypi_index.h"
#include "resolver.h"
#include "verb_check_inputs.h"

#define TI_APT_RELEASE_MAX ((uint64_t)64 << 20)

typedef enum ti_state {
    TI_PENDING,
    TI_OK,     /* identity/modified read */
    TI_GONE,   /* the index answers not found (HTTP 404/410, no such file) */
    TI_MISS,   /* offline, not in the cache */
    TI_SKIP,   /* cannot be asked for (an npm URL that names no package) */
    TI_FAILED  /* any other failure: the check's error */
} ti_state;

typedef struct ti_slot {
    const lock_input *was;
    int format;          /* the lock's format: which identity it records */
    ti_state state;
    char *identity;
    char *modified;
    char *why;           /* GONE / MISS / SKIP: a short reason */
    cache_failure fail;  /* TI_FAILED, reported once the run is over (in mem) */
    /* npm: the loader that fetched it and the package name */
    npm_loader *nl;
    char *npm_name;
    /* pypi: the project name the URL names; the files its page lists */
    char *pypi_name;
    /* conda: the lock, whose packages from this repodata.json get a doc each */
    const lock_doc *lock;
    lock_index_doc *docs;
    size_t n_docs;
    arena *mem;          /* the result's arena, for `doc` */
    lock_index_doc *doc; /* TI_OK pypi and npm inputs */
} ti_slot;

static void slot_fail(ti_slot *s, const cache_failure *f)
{
    s->state = TI_FAILED;
    s->fail = cache_failure_copy(f, s->mem);
    if (s->fail.code == EL_OK)
        s->fail.code = EL_INTERNAL;
    if (!s->fail.reason)
        s->fail.reason = "fetch_failed";
}

/* A failed fetch: gone (404), missing from the cache offline, or an error. */
static void slot_failed(ti_slot *s, const cache_failure *f)
{
    if (f->reason && strcmp(f->reason, "not_found") == 0) {
        s->state = TI_GONE;
        s->why = xstrdup("not found");
    } else if (f->reason && strcmp(f->reason, "offline_cache_miss") == 0) {
        s->state = TI_MISS;
        s->why = xstrdup("offline and not in the cache");
    } else {
        slot_fail(s, f);
    }
}

/* The common outcomes of a cache response; false when the caller should
 * read the body. */
static bool response_settled(ti_slot *s, const cache_response *r)
{
    if (r->code == EL_OK)
        return false;
    cache_failure f = cache_failure_of(r);
    slot_failed(s, &f);
    return true;
}

/* The files of a project page as the PyPI reader sees them: links
 * resolved against the canonical page URL (and the page as read), mirror
 * URLs mapped back to canonical ones. A page that does not parse lists no
 * files (so no artifact of it is confirmed). */
static lock_index_doc *pypi_doc(cache *c, const cache_response *r, const char *name, arena *a,
                                char identity[PYPI_IDENTITY_LEN])
{
    identity[0] = '\0';
    lock_index_doc *d = arena_alloc(a, sizeof *d);
    d->ecosystem = "pypi";
    d->name = arena_strdup(a, name);
    pypi_page page;
    el_ctx *pctx = el_ctx_new();
    el_code prc = pypi_page_read(pctx, c, r, a, &page);
    el_ctx_free(pctx);
    if (prc != EL_OK)
        return d;
    pypi_page_identity(&page, identity);
    lock_index_file *f = arena_alloc(a, (page.nfiles + 1) * sizeof *f);
    for (size_t i = 0; i < page.nfiles; i++) {
        const pypi_file *pf = &page.files[i];
        f[i].file = pf->filename;
        f[i].url = pf->url;
        f[i].hash = pf->sha256 ? arena_sprintf(a, "sha256:%s", pf->sha256) : NULL;
        f[i].size = pf->size > 0 ? (uint64_t)pf->size : 0;
    }
    d->files = f;
    d->n_files = page.nfiles;
    return d;
}

static void pypi_done(cache *c, cache_response *r, void *user)
{
    ti_slot *s = user;
    if (response_settled(s, r))
        return;
    s->state = TI_OK;
    char id[PYPI_IDENTITY_LEN];
    s->doc = pypi_doc(c, r, s->pypi_name, s->mem, id);
    if (s->format >= 2) { /* the page's content */
        s->identity = xstrdup(id);
    } else { /* format 1: the response's validators */
        s->identity = xstrdup(r->etag ? r->etag : "");
        s->modified = r->last_modified ? xstrdup(r->last_modified) : NULL;
    }
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The identity of an apt suite is the sha256 of its Release text: the
 * signed part of an InRelease (the signature is not checked here — only
 * whether the text changed matters), or a Release file whole. */
static void apt_done(cache *c, cache_response *r, void *user)
{
    (void)c;
    ti_slot *s = user;
    if (response_settled(s, r))
        return;
    char *text = NULL;
    size_t len = 0;
    if (ends_with(s->was->url, "/InRelease")) {
        if (apt_clearsigned_split((const char *)r->body, r->len, &text, &len) < 0) {
            char *msg = xasprintf("%s is not a clearsigned message", s->was->url);
            cache_failure f = { .code = EL_PACKAGE_NOT_FOUND, .reason = "bad_release",
                                .message = msg, .url = s->was->url };
            slot_fail(s, &f);
            free(msg);
            return;
        }
    } else {
        text = (char *)cache_response_take_body(r, &len);
    }
    char hex[65];
    sha256_hex(text, len, hex);
    s->state = TI_OK;
    s->identity = xasprintf("sha256:%s", hex);
    arena *a = arena_new();
    apt_release rel;
    char *err = NULL;
    if (apt_release_parse(text, len, a, &rel, &err) == 0 && rel.date_text)
        s->modified = xstrdup(rel.date_text);
    free(err);
    arena_free(a);
    free(text);
}

/* An npm packument URL split back into its registry (ending in '/') and
 * package name ("%2f" of a scope undone); false when the URL is not one
 * npm_packument_url() makes. */
static bool npm_split(const char *url, char **registry, char **name)
{
    const char *slash = strrchr(url, '/');
    if (!slash || !slash[1] || !strstr(url, "://"))
        return false;
    *registry = xstrndup(url, (size_t)(slash + 1 - url));
    strbuf sb = STRBUF_INIT;
    for (const char *p = slash + 1; *p; p++) {
        if (p[0] == '%' && p[1] == '2' && (p[2] == 'f' || p[2] == 'F')) {
            sb_addc(&sb, '/');
            p += 2;
        } else {
            sb_addc(&sb, *p);
        }
    }
    *name = sb_detach(&sb, NULL);
    char *again = npm_packument_url(*registry, *name);
    bool ok = strcmp(again, url) == 0;
    free(again);
    if (!ok) {
        free(*registry);
        free(*name);
        *registry = *name = NULL;
    }
    return ok;
}

static void npm_settle(ti_slot *s)
{
    const npm_packument *p = npm_loader_get(s->nl, s->npm_name);
    if (!p) {
        cache_failure f = { .code = EL_INTERNAL, .message = "the npm load did not finish",
                            .url = s->was->url };
        slot_fail(s, &f);
        return;
    }
    if (p->code != EL_OK) {
        cache_failure f = p->fetch.code != EL_OK
                              ? p->fetch
                              : (cache_failure){ .code = p->code, .reason = p->reason,
                                                 .message = p->message, .url = p->url,
                                                 .status = p->status,
                                                 .retryable = p->retryable };
        slot_failed(s, &f);
        return;
    }
    s->state = TI_OK;
    const char *mod = p->modified;
    if (s->format >= 2) {
        s->identity = xstrdup(p->identity);
    } else {
        s->identity = xstrdup(p->etag ? p->etag : "");
        mod = mod ? mod : p->last_modified;
    }
    s->modified = mod ? xstrdup(mod) : NULL;
    /* every version's tarball and integrity, for confirming artifacts */
    arena *a = s->mem;
    lock_index_doc *d = arena_alloc(a, sizeof *d);
    d->ecosystem = "npm";
    d->name = arena_strdup(a, s->npm_name);
    lock_index_file *f = arena_alloc(a, (p->nversions + 1) * sizeof *f);
    for (size_t i = 0; i < p->nversions; i++) {
        const npm_version *v = &p->versions[i];
        const char *slash = v->tarball ? strrchr(v->tarball, '/') : NULL;
        f[i].version = arena_strdup(a, v->version);
        f[i].file = v->tarball ? arena_strdup(a, slash ? slash + 1 : v->tarball) : NULL;
        f[i].url = v->tarball ? arena_strdup(a, v->tarball) : NULL;
        f[i].hash = v->integrity ? arena_strdup(a, v->integrity) : NULL;
    }
    d->files = f;
    d->n_files = p->nversions;
    s->doc = d;
}

/* A conda repodata.json: the sha256 of its bytes is the identity a resolve
 * records, and each locked conda
 * package read from it (its channel and subdir) gets the records of its
 * name there, cut at the lock's own --exclude-newer as the resolve was. */
static void conda_done(cache *c, cache_response *r, void *user)
{
    (void)c;
    ti_slot *s = user;
    if (response_settled(s, r))
        return;
    const char *url = s->was->url, *end = strrchr(url, '/');
    const char *sub = end;
    while (sub > url && sub[-1] != '/')
        sub--;
    arena *a = s->mem;
    char *channel = arena_strndup(a, url, sub > url ? (size_t)(sub - 1 - url) : 0);
    char *subdir = arena_strndup(a, sub, (size_t)(end - sub));
    int64_t cutoff = 0;
    if (s->lock->exclude_newer)
        rfc3339_parse(s->lock->exclude_newer, RFC3339_DATE_OK, &cutoff);
    conda_repodata_options o = { .channel = channel, .subdir = subdir, .cutoff_ms = cutoff };
    conda_repodata *rd = NULL;
    el_ctx *pctx = el_ctx_new();
    el_code prc = conda_repodata_parse(pctx, (const char *)r->body, r->len, &o, &rd);
    if (prc != EL_OK) {
        cache_failure f = { .code = prc, .reason = "repodata_invalid",
                            .message = el_ctx_message(pctx), .url = url };
        slot_fail(s, &f);
        el_ctx_free(pctx);
        return;
    }
    el_ctx_free(pctx);
    s->state = TI_OK;
    s->identity = r->sha256 ? xasprintf("sha256:%s", r->sha256) : xstrdup("");
    const lock_doc *d = s->lock;
    s->docs = arena_alloc(a, (d->n_packages + 1) * sizeof *s->docs);
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (!p->ecosystem || strcmp(p->ecosystem, "conda") || !p->source || !p->subdir ||
            strcmp(p->source, channel) || strcmp(p->subdir, subdir))
            continue;
        lock_index_file *f = arena_alloc(a, (rd->n_records + 1) * sizeof *f);
        size_t nf = 0;
        for (size_t k = 0; k < rd->n_records; k++) {
            const conda_record *rec = &rd->records[k];
            if (strcmp(rec->name, p->name) != 0)
                continue;
            f[nf++] = (lock_index_file){
                .file = arena_strdup(a, rec->fn), .version = arena_strdup(a, rec->version),
                .url = arena_sprintf(a, "%s/%s/%s", channel, subdir, rec->fn),
                .hash = rec->sha256 ? arena_sprintf(a, "sha256:%s", rec->sha256) : NULL,
                .size = rec->size, .md5 = rec->md5 ? arena_strdup(a, rec->md5) : NULL };
        }
        s->docs[s->n_docs++] = (lock_index_doc){ "conda", p->name, f, nf };
    }
    conda_repodata_free(rd);
}

static void slot_clear(ti_slot *s)
{
    free(s->identity);
    free(s->modified);
    free(s->why);
    free(s->npm_name);
    free(s->pypi_name);
}

/* ---- what the spec lets check ask for ---- */

typedef struct ti_allow {
    const resolve_request *rq;
    ptrvec release_urls;  /* every apt source's InRelease and Release */
    char *registry;       /* the npm registry, ending in '/' */
    ptrvec conda_channels; /* an environment.yml's channels, canonical */
} ti_allow;

static char *with_slash(const char *u)
{
    size_t n = strlen(u);
    return n && u[n - 1] == '/' ? xstrdup(u) : xasprintf("%s/", u);
}

/* Whether the request has conda roots (an environment.yml). */
static bool rq_has_conda(const resolve_request *rq)
{
    for (size_t i = 0; i < rq->n_roots; i++)
        if (strcmp(rq->roots[i].ecosystem, "conda") == 0)
            return true;
    return false;
}

/* The allowed URLs, and the package sources the spec allows into t. */
static void allow_init(ti_allow *al, const resolve_request *rq, const char *cutoff,
                       verb_inputs *t)
{
    memset(al, 0, sizeof *al);
    al->rq = rq;
    al->registry = rq && rq->npm_registry ? with_slash(rq->npm_registry) : NULL;
    if (!rq)
        return;
    ptrvec src = PTRVEC_INIT;
    for (size_t i = 0; i < rq->n_pypi_indexes; i++) {
        lock_check_source *x = arena_alloc(t->mem, sizeof *x);
        *x = (lock_check_source){ "pypi", arena_strdup(t->mem, rq->pypi_indexes[i]) };
        ptrvec_push(&src, x);
    }
    if (al->registry) {
        lock_check_source *x = arena_alloc(t->mem, sizeof *x);
        *x = (lock_check_source){ "npm", arena_strdup(t->mem, al->registry) };
        ptrvec_push(&src, x);
    }
    /* an environment.yml's channels (none: conda-forge), canonical */
    size_t nch = rq->n_conda_channels;
    for (size_t i = 0; i < (nch ? nch : 1) && rq_has_conda(rq); i++) {
        const char *why = NULL;
        char *url = conda_channel_url(nch ? rq->conda_channels[i] : CONDA_DEFAULT_CHANNEL, &why);
        if (!url)
            continue;
        lock_check_source *x = arena_alloc(t->mem, sizeof *x);
        *x = (lock_check_source){ "conda", arena_strdup(t->mem, url) };
        ptrvec_push(&src, x);
        ptrvec_push(&al->conda_channels, url);
    }
    arena *a = arena_new();
    for (size_t i = 0; i < rq->n_apt_sources; i++) {
        apt_source as;
        char *err = NULL;
        /* the source as the lock's resolve read it: a snapshot at its cutoff */
        const char *line = apt_source_at_cutoff(rq->apt_sources[i], cutoff, a);
        if (deb_source_parse(line, a, &as, &err) != 0) {
            free(err);
            continue;
        }
        char *dist;
        if (as.flat)
            dist = xasprintf("%s%s", as.uri, strcmp(as.suite, "./") == 0 ? "" : as.suite);
        else
            dist = xasprintf("%sdists/%s/", as.uri, as.suite);
        ptrvec_push(&al->release_urls, xasprintf("%sInRelease", dist));
        ptrvec_push(&al->release_urls, xasprintf("%sRelease", dist));
        free(dist);
        for (size_t k = 0; k < (as.n_components ? as.n_components : 1); k++) {
            lock_check_source *x = arena_alloc(t->mem, sizeof *x);
            x->ecosystem = "deb";
            x->source = as.n_components
                            ? arena_sprintf(t->mem, "%s %s/%s", as.uri, as.suite, as.components[k])
                            : arena_sprintf(t->mem, "%s %s", as.uri, as.suite);
            ptrvec_push(&src, x);
        }
    }
    arena_free(a);
    t->sources = arena_alloc(t->mem, (src.len + 1) * sizeof *t->sources);
    for (size_t i = 0; i < src.len; i++)
        t->sources[i] = *(lock_check_source *)src.items[i];
    t->n_sources = src.len;
    ptrvec_release(&src);
}

static void allow_clear(ti_allow *al)
{
    for (size_t i = 0; i < al->release_urls.len; i++)
        free(al->release_urls.items[i]);
    ptrvec_release(&al->release_urls);
    free(al->registry);
    for (size_t i = 0; i < al->conda_channels.len; i++)
        free(al->conda_channels.items[i]);
    ptrvec_release(&al->conda_channels);
}

/* The project name of a PyPI page URL `<index>/<name>/` of one of the
 * spec's indexes, the name canonical (malloc'd); NULL for any other URL. */
static char *pypi_allowed(const ti_allow *al, const char *url)
{
    for (size_t i = 0; al->rq && i < al->rq->n_pypi_indexes; i++) {
        const char *idx = al->rq->pypi_indexes[i];
        size_t n = strlen(idx);
        while (n && idx[n - 1] == '/')
            n--;
        if (strncmp(url, idx, n) != 0 || url[n] != '/')
            continue;
        const char *name = url + n + 1;
        size_t m = strlen(name);
        if (m < 2 || name[m - 1] != '/' || memchr(name, '/', m - 1))
            continue;
        char *seg = xstrndup(name, m - 1), *canon = pypi_name_canonical(seg);
        bool ok = strcmp(seg, canon) == 0;
        free(canon);
        if (ok)
            return seg;
        free(seg);
    }
    return NULL;
}

static bool deb_allowed(const ti_allow *al, const char *url)
{
    for (size_t i = 0; i < al->release_urls.len; i++)
        if (strcmp(al->release_urls.items[i], url) == 0)
            return true;
    return false;
}

/* Whether the lock installs a Debian package it must download. */
static bool lock_downloads_debs(const lock_doc *lock)
{
    for (size_t i = 0; i < lock->n_packages; i++)
        if (lock->packages[i].ecosystem && strcmp(lock->packages[i].ecosystem, "deb") == 0 &&
            lock->packages[i].n_artifacts)
            return true;
    return false;
}

/* One document per Debian package of the lock: every file of that name
 * the loaded Packages indexes list (not its providers'). */
static void deb_docs_of(apt_loader *l, const lock_doc *lock, verb_inputs *t, ptrvec *docs)
{
    for (size_t i = 0; i < lock->n_packages; i++) {
        const lock_package *p = &lock->packages[i];
        if (!p->ecosystem || strcmp(p->ecosystem, "deb") != 0 || !p->n_artifacts || !p->name)
            continue;
        apt_candidate *cands = NULL;
        size_t nc = 0;
        apt_loader_candidates(l, p->name, t->mem, &cands, &nc);
        lock_index_file *files = arena_alloc(t->mem, (nc + 1) * sizeof *files);
        size_t nf = 0;
        for (size_t k = 0; k < nc; k++) {
            const apt_candidate *a = &cands[k];
            if (a->provided_as || !a->filename)
                continue;
            const char *slash = strrchr(a->filename, '/');
            files[nf++] = (lock_index_file){
                .file = slash ? slash + 1 : a->filename,
                .version = a->version,
                .url = a->url,
                .hash = a->sha256 ? arena_sprintf(t->mem, "sha256:%s", a->sha256) : NULL,
                .size = a->size,
            };
        }
        lock_index_doc *d = arena_alloc(t->mem, sizeof *d);
        *d = (lock_index_doc){ .ecosystem = "deb", .name = p->name, .files = files, .n_files = nf };
        ptrvec_push(docs, d);
    }
}

/* The Packages indexes behind the request's apt sources, read as the
 * lock's resolve read them (the same loader, keyring and cache; the lock's
 * cutoff, which `check` compares on its own), so that
 * lock_check() confirms each Debian artifact's file, hash, size and URL.
 * Offline with an index the cache lacks, a note says the debs were not
 * confirmed; any other failure is the check's error. */
static el_code deb_docs(el_ctx *ctx, cache *c, const lock_doc *lock,
                        const resolve_request *rq, verb_inputs *t, ptrvec *docs,
                        ptrvec *notes)
{
    if (!rq || !rq->n_apt_sources || !lock_downloads_debs(lock))
        return EL_OK;
    const char **src = arena_alloc(t->mem, (rq->n_apt_sources + 1) * sizeof *src);
    for (size_t i = 0; i < rq->n_apt_sources; i++)
        src[i] = apt_source_at_cutoff(rq->apt_sources[i], lock->exclude_newer, t->mem);
    apt_load_options o = { .sources = src,
                           .n_sources = rq->n_apt_sources,
                           .keyring = rq->apt_keyring,
                           .arch = lock->arch ? lock->arch : "amd64",
                           .ignore_valid_until = true /* as the resolver: snapshots are old */ };
    apt_loader *l = apt_loader_read(ctx, c, &o);
    if (l) {
        deb_docs_of(l, lock, t, docs);
        apt_loader_free(l);
        return EL_OK;
    }
    json_object *why = json_object_object_get(el_ctx_detail(ctx), "reason");
    if (!why || strcmp(json_object_get_string(why), "offline_cache_miss") != 0)
        return el_ctx_code(ctx);
    ptrvec_push(notes, xstrdup("deb artifacts not confirmed: an apt index is not in the cache "
                               "(offline)"));
    el_ctx_clear(ctx);
    return EL_OK;
}

void verb_inputs_free(verb_inputs *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_notes; i++)
        free(t->notes[i]);
    free(t->notes);
    arena_free(t->mem);
    free(t);
}

/* Whether the spec derives input `in` (a PyPI page of one of its indexes:
 * *pypi_name gets the project; a packument of its registry; a Release of
 * one of its apt sources). Inputs with no URL or of an unknown ecosystem
 * are notes, not findings: true. */
static bool input_allowed(const ti_allow *al, const lock_input *in, char **pypi_name)
{
    const char *eco = in->ecosystem ? in->ecosystem : "";
    const char *url = in->url ? in->url : "";
    if (!*url)
        return true;
    if (strcmp(eco, "pypi") == 0)
        return (*pypi_name = pypi_allowed(al, url)) != NULL;
    if (strcmp(eco, "npm") == 0) {
        char *reg = NULL, *name = NULL;
        bool ok = al->registry && npm_split(url, &reg, &name) && strcmp(reg, al->registry) == 0;
        free(reg);
        free(name);
        return ok;
    }
    if (strcmp(eco, "deb") == 0)
        return deb_allowed(al, url);
    if (strcmp(eco, "conda") == 0) /* <channel>/<subdir>/repodata.json */
        for (size_t i = 0; i < al->conda_channels.len; i++) {
            const char *ch = al->conda_channels.items[i];
            size_t n = strlen(ch);
            if (strncmp(url, ch, n) != 0 || url[n] != '/')
                continue;
            size_t k = strcspn(url + n + 1, "/");
            if (k && strcmp(url + n + 1 + k, "/repodata.json") == 0)
                return true;
        }
    return strcmp(eco, "conda") != 0;
}

/* One cache run's readers: an npm loader per registry. */
typedef struct ti_run {
    cache *c;
    npm_target nt;
    ptrvec loaders, registries;
} ti_run;

/* The npm loader of `reg`, made on first use. */
static npm_loader *run_npm_loader(ti_run *run, const char *reg)
{
    for (size_t k = 0; k < run->registries.len; k++)
        if (strcmp(run->registries.items[k], reg) == 0)
            return run->loaders.items[k];
    npm_loader_options no = { 0 };
    no.registry = reg;
    no.target = &run->nt;
    npm_loader *nl = npm_loader_new(run->c, &no);
    ptrvec_push(&run->loaders, nl);
    ptrvec_push(&run->registries, xstrdup(reg));
    return nl;
}

static void run_free(ti_run *run)
{
    for (size_t k = 0; k < run->loaders.len; k++) {
        npm_loader_free(run->loaders.items[k]);
        free(run->registries.items[k]);
    }
    ptrvec_release(&run->loaders);
    ptrvec_release(&run->registries);
    cache_close(run->c);
}

/* The request for the slot's input, with the reader that made it. */
static void slot_submit(ti_run *run, ti_slot *s)
{
    const lock_input *in = s->was;
    const char *eco = in->ecosystem ? in->ecosystem : "";
    if (!in->url || !*in->url) {
        s->state = TI_SKIP;
        s->why = xstrdup("the lock names no URL");
    } else if (strcmp(eco, "pypi") == 0 || strcmp(eco, "deb") == 0) {
        bool py = eco[0] == 'p';
        cache_request rq = { 0 };
        rq.url = in->url;
        rq.accept = py ? PYPI_PAGE_ACCEPT : NULL;
        rq.policy = CACHE_REVALIDATE;
        rq.max_bytes = py ? PYPI_PAGE_MAX : TI_APT_RELEASE_MAX;
        rq.done = py ? pypi_done : apt_done;
        rq.user = s;
        cache_submit(run->c, &rq);
    } else if (strcmp(eco, "npm") == 0) {
        char *reg = NULL;
        if (!npm_split(in->url, &reg, &s->npm_name)) {
            s->state = TI_SKIP;
            s->why = xstrdup("not an npm packument URL");
            return;
        }
        s->nl = run_npm_loader(run, reg);
        free(reg);
        npm_loader_submit(s->nl, s->npm_name);
    } else if (strcmp(eco, "conda") == 0 && ends_with(in->url, "/repodata.json")) {
        cache_request rq = { 0 };
        rq.url = in->url;
        rq.accept = "application/json";
        rq.policy = CACHE_REVALIDATE;
        rq.max_bytes = CONDA_REPODATA_MAX_BYTES;
        rq.done = conda_done;
        rq.user = s;
        cache_submit(run->c, &rq);
    } else {
        s->state = TI_SKIP;
        s->why = xasprintf("unknown ecosystem `%s`", eco);
    }
}

/* The slots' outcomes into t: fresh identities, gone inputs, the documents
 * read (the Debian ones first), and a note per input not compared, then
 * the Debian notes (taken). */
static void collect(const ti_slot *slots, size_t n, const ptrvec *debs, ptrvec *deb_notes,
                    verb_inputs *t)
{
    ptrvec notes = PTRVEC_INIT;
    t->fresh = arena_alloc(t->mem, (n + 1) * sizeof *t->fresh);
    t->gone = arena_alloc(t->mem, (n + 1) * sizeof *t->gone);
    size_t nd = n + debs->len + 1;
    for (size_t i = 0; i < n; i++)
        nd += slots[i].n_docs;
    t->docs = arena_alloc(t->mem, nd * sizeof *t->docs);
    for (size_t i = 0; i < debs->len; i++)
        t->docs[t->n_docs++] = *(lock_index_doc *)debs->items[i];
    for (size_t i = 0; i < n; i++) {
        const ti_slot *s = &slots[i];
        const lock_input *was = s->was;
        if (s->state == TI_SKIP && !s->why)
            continue; /* foreign: a report line, not a note */
        if (s->state == TI_OK && s->doc)
            t->docs[t->n_docs++] = *s->doc;
        for (size_t k = 0; s->state == TI_OK && k < s->n_docs; k++)
            t->docs[t->n_docs++] = s->docs[k];
        lock_input now = { .ecosystem = arena_strdup(t->mem, was->ecosystem ? was->ecosystem : ""),
                           .url = arena_strdup(t->mem, was->url ? was->url : "") };
        if (s->state == TI_OK) {
            now.identity = arena_strdup(t->mem, s->identity);
            now.modified = s->modified ? arena_strdup(t->mem, s->modified) : NULL;
            t->fresh[t->n_fresh++] = now;
        } else if (s->state == TI_GONE) {
            now.identity = arena_strdup(t->mem, s->why);
            t->gone[t->n_gone++] = now;
        } else {
            ptrvec_push(&notes, xasprintf("input not compared: %s %s (%s)", now.ecosystem,
                                          now.url, s->why ? s->why : "not read"));
        }
    }
    for (size_t i = 0; i < deb_notes->len; i++)
        ptrvec_push(&notes, deb_notes->items[i]);
    deb_notes->len = 0;
    t->n_notes = notes.len;
    t->notes = (char **)notes.items; /* taken: not released */
}

/* After the run: the first failed input is the error. */
static el_code first_failure(el_ctx *ctx, const ti_slot *slots, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (slots[i].state == TI_FAILED)
            return cache_failure_report(ctx, &slots[i].fail);
    return EL_OK;
}

el_code verb_inputs_fetch(el_ctx *ctx, const el_cache_options *co, const lock_doc *lock,
                          const resolve_request *req, verb_inputs **out)
{
    *out = NULL;
    verb_inputs *t = xcalloc(1, sizeof *t);
    t->mem = arena_new();
    size_t n = lock->n_inputs;
    ti_slot *slots = xcalloc(n + 1, sizeof *slots);
    /* refused before any request: inputs the spec does not derive */
    ti_allow al;
    allow_init(&al, req, lock->exclude_newer, t);
    t->foreign = arena_alloc(t->mem, (n + 1) * sizeof *t->foreign);
    for (size_t i = 0; i < n; i++) {
        ti_slot *s = &slots[i];
        *s = (ti_slot){ .was = &lock->inputs[i], .format = lock->format_version, .mem = t->mem,
                        .lock = lock };
        if (!input_allowed(&al, s->was, &s->pypi_name)) {
            s->state = TI_SKIP; /* in t->foreign */
            t->foreign[t->n_foreign++] = (lock_input){
                .ecosystem = arena_strdup(t->mem, s->was->ecosystem ? s->was->ecosystem : ""),
                .url = arena_strdup(t->mem, s->was->url ? s->was->url : "") };
        }
    }
    allow_clear(&al);
    el_code rc = EL_OK;
    ti_run run = { .loaders = PTRVEC_INIT, .registries = PTRVEC_INIT };
    if (n > t->n_foreign && !(run.c = cache_open(ctx, co)))
        rc = el_ctx_code(ctx);
    if (run.c) {
        /* the lock's own cutoff chose the full or the abbreviated packument */
        npm_target_for(&run.nt, lock->arch, lock->platform, lock->exclude_newer);
        for (size_t i = 0; i < n; i++)
            if (slots[i].state != TI_SKIP)
                slot_submit(&run, &slots[i]);
        rc = cache_run(run.c, ctx);
        for (size_t i = 0; rc == EL_OK && i < n; i++)
            if (slots[i].nl && slots[i].state == TI_PENDING)
                npm_settle(&slots[i]);
        if (rc == EL_OK)
            rc = first_failure(ctx, slots, n);
        ptrvec debs = PTRVEC_INIT, deb_notes = PTRVEC_INIT;
        if (rc == EL_OK)
            rc = deb_docs(ctx, run.c, lock, req, t, &debs, &deb_notes);
        if (rc == EL_OK)
            collect(slots, n, &debs, &deb_notes, t);
        for (size_t i = 0; i < deb_notes.len; i++)
            free(deb_notes.items[i]);
        ptrvec_release(&deb_notes);
        ptrvec_release(&debs);
        run_free(&run);
    }
    for (size_t i = 0; i < n; i++)
        slot_clear(&slots[i]);
    free(slots);
    if (rc != EL_OK) {
        verb_inputs_free(t);
        return rc;
    }
    *out = t;
    return EL_OK;
}


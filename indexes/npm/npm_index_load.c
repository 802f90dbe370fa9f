/* npm_index_load.c — the loader: many packuments through one cache run.
 * A caller submits names, runs the cache once, and reads one npm_packument
 * per name (a failed one carries its reason). Callbacks may submit more
 * names while the run is going, which is how a resolver walks the
 * dependency graph breadth-first without waiting for each level.
 *
 * This file owns the request: which document (abbreviated, or full when a
 * cutoff needs `time`), which URL (scoped names as `@scope%2fname`), the
 * size cap, and the Authorization header (computed once per loader, handed
 * to the cache, which sends it to the registry's host only and never stores
 * it). Parsing is npm_packument.c's. */
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npm_index.h"
#include "npm_spec.h"

typedef struct load_bundle {
    const npm_version *v;
    npm_bundle *b;
} load_bundle;

typedef struct load_item {
    npm_loader *l;
    char *name;
    npm_packument *p; /* NULL while in flight */
} load_item;

struct npm_loader {
    cache *c;
    char *registry;        /* normalized, ends in '/' */
    npm_target target;     /* strings below are owned copies */
    char *t_os, *t_cpu, *t_libc, *t_node, *t_cutoff;
    char *auth;            /* "Authorization: ..." or NULL */
    char *ca_file, *client_cert, *client_key; /* npmrc cafile, certfile, keyfile */
    uint64_t max_bytes;
    char *served_base;
    void (*loaded)(npm_loader *l, const npm_packument *p, void *user);
    void *user;
    bool cold;             /* packuments handed out cooled */
    ptrvec items;          /* load_item*, submission order */
    void *by_name;         /* tsearch tree of the same, by name: a crawl asks
                              for hundreds of names, each many times */
    ptrvec bundles;        /* load_bundle*: bundled trees read */
    size_t blobs_read;     /* packuments read from their parsed form */
    size_t blobs_written;
};

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

static int item_cmp(const void *a, const void *b)
{
    return strcmp(((const load_item *)a)->name, ((const load_item *)b)->name);
}

npm_loader *npm_loader_new(cache *c, const npm_loader_options *o)
{
    npm_loader_options none = { 0 };
    if (!o)
        o = &none;
    npm_loader *l = xcalloc(1, sizeof *l);
    l->c = c;
    l->registry = npm_registry_normalize(o->registry);
    const npm_target *t = o->target;
    l->t_os = xstrdup(t && t->os ? t->os : "linux");
    l->t_cpu = xstrdup(t && t->cpu ? t->cpu : "x64");
    l->t_libc = xstrdup(t && t->libc ? t->libc : "glibc");
    l->t_node = dup_or_null(t ? t->node_version : NULL);
    l->t_cutoff = dup_or_null(t ? t->cutoff : NULL);
    l->target = (npm_target){ l->t_os, l->t_cpu, l->t_libc, l->t_node, l->t_cutoff,
                              t && t->publish_times };
    l->max_bytes = o->max_bytes ? o->max_bytes : NPM_PACKUMENT_MAX_BYTES;
    l->served_base = dup_or_null(o->served_base);
    l->loaded = o->loaded;
    l->user = o->user;
    l->cold = o->cold;
    if (!o->no_auth) {
        npm_rc *own = o->rc ? NULL : npm_rc_load_user();
        const npm_rc *rc = o->rc ? o->rc : own;
        char *v = npm_auth_for_registry(rc, l->registry, cache_npm_token(c), NULL);
        if (v) {
            l->auth = xasprintf("Authorization: %s", v);
            memset(v, 0, strlen(v));
            free(v);
        }
        /* npm's TLS settings for its registry (docs/configuration.md) */
        l->ca_file = dup_or_null(npm_rc_get(rc, "cafile"));
        l->client_cert = dup_or_null(npm_rc_scoped(rc, l->registry, "certfile"));
        l->client_key = dup_or_null(npm_rc_scoped(rc, l->registry, "keyfile"));
        npm_rc_free(own);
    }
    return l;
}

void npm_loader_free(npm_loader *l)
{
    if (!l)
        return;
    while (l->by_name) /* tdestroy() is GNU's; this is POSIX */
        tdelete(*(void **)l->by_name, &l->by_name, item_cmp);
    for (size_t i = 0; i < l->items.len; i++) {
        load_item *it = l->items.items[i];
        npm_packument_free(it->p);
        free(it->name);
        free(it);
    }
    ptrvec_release(&l->items);
    for (size_t i = 0; i < l->bundles.len; i++) {
        load_bundle *lb = l->bundles.items[i];
        npm_bundle_free(lb->b);
        free(lb);
    }
    ptrvec_release(&l->bundles);
    free(l->registry);
    free(l->t_os);
    free(l->t_cpu);
    free(l->t_libc);
    free(l->t_node);
    free(l->t_cutoff);
    if (l->auth) {
        memset(l->auth, 0, strlen(l->auth));
        free(l->auth);
    }
    free(l->served_base);
    free(l->ca_file);
    free(l->client_cert);
    free(l->client_key);
    free(l);
}

static load_item *find(const npm_loader *l, const char *name)
{
    load_item key = { .name = (char *)name };
    void *const *hit = tfind(&key, &l->by_name, item_cmp);
    return hit ? *(load_item *const *)hit : NULL;
}

/* A packument that records a failure and holds no versions. */
static npm_packument *failed(npm_loader *l, const char *name, el_code code, const char *reason,
                             const char *message, long status, bool retryable)
{
    npm_packument *p = xcalloc(1, sizeof *p);
    p->arena_ = arena_new();
    p->name = arena_strdup(p->arena_, name);
    p->registry = arena_strdup(p->arena_, l->registry);
    char *url = npm_packument_url(l->registry, name);
    p->url = arena_strdup(p->arena_, url);
    free(url);
    p->code = code;
    p->reason = arena_strdup(p->arena_, reason);
    p->message = arena_strdup(p->arena_, message);
    p->status = status;
    p->retryable = retryable;
    return p;
}

static void finish(load_item *it, npm_packument *p)
{
    it->p = p;
    if (it->l->loaded)
        it->l->loaded(it->l, p, it->l->user);
}

static char *canonical_url(void *user, const char *url)
{
    return cache_canonical_url(user, url);
}

/* read_blob() : the parsed form of r's body, or NULL (a miss, or one
 *  that does not verify). Also for a body just fetched: a registry that
 *  sends no validators (as some proxies serve npmjs.org) answers every run
 *  with a full 200, most often of the same bytes, whose parsed form the
 *  last run stored. */
static npm_packument *read_blob(npm_loader *l, cache *c, const cache_response *r, const char *name,
                                const npm_parse_options *po)
{
    if (r->len > l->max_bytes)
        return NULL;
    size_t len = 0;
    FILE *f = cache_blob_open(c, name, &len);
    if (!f)
        return NULL;
    unsigned char *data = xmalloc(len ? len : 1);
    npm_packument *p = NULL;
    if (fread(data, 1, len, f) != len || npm_packument_blob_read(data, len, r->sha256, po, &p) != 0)
        p = NULL;
    fclose(f);
    free(data);
    if (p)
        l->blobs_read++;
    return p;
}

/* parse_or_read() : npm_packument_parse() of r's body, or its parsed form
 *  from the cache when that verifies (the body is then never read: the
 *  request asks for it on demand); a fresh parse is stored as a blob
 *  (best effort, without fsyncs: a blob lost in a crash costs one parse)
 *  for the next run. 1 when a deferred body could not be read. */
static int parse_or_read(npm_loader *l, cache *c, cache_response *r,
                         const npm_parse_options *po, npm_packument **p, const char **reason,
                         char **err)
{
    char *name = r->sha256 ? npm_packument_blob_name(r->sha256, po) : NULL;
    if (name && (*p = read_blob(l, c, r, name, po)) != NULL) {
        free(name);
        return 0;
    }
    if (!cache_response_body(c, r)) {
        free(name);
        return 1;
    }
    int rc = npm_packument_parse((const char *)r->body, r->len, po, p, reason, err);
    if (rc == 0 && name) {
        strbuf sb = STRBUF_INIT;
        npm_packument_blob_write(*p, r->sha256, po, &sb);
        if (cache_blob_put_lazy(c, name, sb.buf, sb.len))
            l->blobs_written++;
        sb_release(&sb);
    }
    free(name);
    return rc;
}

static void request(npm_loader *l, load_item *it, bool on_demand);

/* A body parsed on the cache's worker thread (cache_defer()): what the
 * work needs, copied out of the response, and what it made. */
typedef struct parse_job {
    load_item *it;
    cache *c;
    unsigned char *body;
    size_t len;
    char *sha256, *served, *url, *etag, *last_modified, *blob;
    long status;
    bool from_cache;
    npm_packument *p;
    int rc;
    const char *reason;
    char *err;
    strbuf blob_bytes;       /* the parsed form to store, when `blob` */
} parse_job;

static npm_parse_options job_options(const parse_job *j)
{
    const npm_loader *l = j->it->l;
    return (npm_parse_options){ .name = j->it->name, .registry = l->registry,
                                .served_base = l->served_base ? l->served_base : j->served,
                                .canonical_url = canonical_url, .canonical_user = j->c,
                                .target = &l->target, .max_bytes = (size_t)l->max_bytes };
}

/* On the worker: touches only the job, the item's name and the loader's
 * settings, none of which change during the run. */
static void parse_work(void *user)
{
    parse_job *j = user;
    npm_parse_options po = job_options(j);
    j->rc = npm_packument_parse((const char *)j->body, j->len, &po, &j->p, &j->reason, &j->err);
    free(j->body);
    j->body = NULL;
    if (j->rc == 0 && j->blob)
        npm_packument_blob_write(j->p, j->sha256, &po, &j->blob_bytes);
    if (j->rc == 0 && j->it->l->cold)
        npm_packument_cool(j->p);
}

static void parsed(load_item *it, npm_packument *p, const char *etag, const char *last_modified,
                   bool from_cache);

static void parse_done(cache *c, void *user)
{
    parse_job *j = user;
    npm_loader *l = j->it->l;
    if (j->rc == 0 && j->blob && cache_blob_put_lazy(c, j->blob, j->blob_bytes.buf, j->blob_bytes.len))
        l->blobs_written++;
    if (j->rc == 0) {
        parsed(j->it, j->p, j->etag, j->last_modified, j->from_cache);
    } else {
        char *msg = xasprintf("%s (%s)", j->err, j->url);
        finish(j->it, failed(l, j->it->name, EL_PACKAGE_NOT_FOUND, j->reason, msg, j->status, false));
        free(msg);
        free(j->err);
    }
    sb_release(&j->blob_bytes);
    free(j->sha256);
    free(j->served);
    free(j->url);
    free(j->etag);
    free(j->last_modified);
    free(j->blob);
    free(j);
}

static char *dup_opt(const char *s) { return s ? xstrdup(s) : NULL; }

/* defer_parse() : true when r's body is in memory and so settled here:
 *  from its parsed form in the cache, else left to parse_work() on the
 *  cache's worker thread (*served is then taken). */
static bool defer_parse(npm_loader *l, cache *c, load_item *it, cache_response *r,
                        const npm_parse_options *po, char **served)
{
    if (!r->body || r->body_deferred || r->len > l->max_bytes)
        return false;
    char *blob = r->sha256 ? npm_packument_blob_name(r->sha256, po) : NULL;
    npm_packument *p = blob ? read_blob(l, c, r, blob, po) : NULL;
    if (p) {
        free(blob);
        parsed(it, p, r->etag, r->last_modified, r->from_cache);
        return true;
    }
    parse_job *j = xcalloc(1, sizeof *j);
    j->it = it;
    j->c = c;
    j->body = cache_response_take_body(r, &j->len);
    if (!j->body) {
        j->len = r->len;
        j->body = xmalloc(r->len ? r->len : 1);
        memcpy(j->body, r->body, r->len);
    }
    j->sha256 = dup_opt(r->sha256);
    j->served = *served;
    *served = NULL;
    j->url = xstrdup(r->url);
    j->etag = dup_opt(r->etag);
    j->last_modified = dup_opt(r->last_modified);
    j->blob = blob;
    j->status = r->status;
    j->from_cache = r->from_cache;
    sb_init(&j->blob_bytes);
    cache_defer(c, parse_work, parse_done, j);
    return true;
}

/* A packument read: what its response said about it, then the callback. */
static void parsed(load_item *it, npm_packument *p, const char *etag, const char *last_modified,
                   bool from_cache)
{
    if (it->l->cold)
        npm_packument_cool(p); /* a no-op when the worker did it */
    p->etag = etag ? arena_strdup(p->arena_, etag) : NULL;
    p->last_modified = last_modified ? arena_strdup(p->arena_, last_modified) : NULL;
    p->from_cache = from_cache;
    finish(it, p);
}

static void on_done(cache *c, cache_response *r, void *user)
{
    load_item *it = user;
    npm_loader *l = it->l;
    if (r->code != EL_OK) {
        char *msg;
        if (r->reason && strcmp(r->reason, "not_found") == 0)
            msg = xasprintf("npm package `%s` is not in the registry %s (%s answered %ld)", it->name,
                            l->registry, r->url, r->status);
        else
            msg = xstrdup(r->message ? r->message : "fetch failed");
        npm_packument *p = failed(l, it->name, r->code, r->reason ? r->reason : "fetch_failed",
                                  msg, r->status, r->retryable);
        cache_failure f = cache_failure_of(r);
        f.message = msg;
        p->fetch = cache_failure_copy(&f, p->arena_);
        finish(it, p);
        free(msg);
        return;
    }
    /* The document came through a mirror when the cache rewrites the
     * registry's URL: tarball URLs under it are mapped back. */
    char *served = l->served_base ? NULL : cache_served_url(c, l->registry);
    if (served && strcmp(served, l->registry) == 0) {
        free(served);
        served = NULL;
    }
    npm_parse_options po = { .name = it->name, .registry = l->registry,
                             .served_base = l->served_base ? l->served_base : served,
                             .canonical_url = canonical_url, .canonical_user = c,
                             .target = &l->target, .max_bytes = (size_t)l->max_bytes };
    /* A body in memory is parsed beside the transfers (defer_parse()). */
    if (defer_parse(l, c, it, r, &po, &served)) {
        free(served);
        return;
    }
    npm_packument *p = NULL;
    const char *reason = NULL;
    char *err = NULL;
    int prc = parse_or_read(l, c, r, &po, &p, &reason, &err);
    free(served);
    if (prc == 1) {
        /* The stored body was damaged (and removed) or replaced since its
         * metadata was read: ask again for the body itself. */
        request(l, it, false);
        return;
    }
    if (prc != 0) {
        char *msg = xasprintf("%s (%s)", err, r->url);
        finish(it, failed(l, it->name, EL_PACKAGE_NOT_FOUND, reason, msg, r->status, false));
        free(msg);
        free(err);
        return;
    }
    parsed(it, p, r->etag, r->last_modified, r->from_cache);
}

void npm_loader_submit(npm_loader *l, const char *name)
{
    if (find(l, name))
        return;
    load_item *it = xcalloc(1, sizeof *it);
    it->l = l;
    it->name = xstrdup(name);
    ptrvec_push(&l->items, it);
    tsearch(it, &l->by_name, item_cmp);
    char *err = NULL;
    if (npm_name_check(name, NPM_NAME_LEGACY, &err) != 0) {
        char *msg = xasprintf("`%s` is not an npm package name: %s", name, err);
        finish(it, failed(l, name, EL_SPEC_INVALID, "invalid_name", msg, 0, false));
        free(msg);
        free(err);
        return;
    }
    request(l, it, true);
}

/* The packument's request; on demand: its body read only when its parsed
 * form misses (parse_or_read()). */
static void request(npm_loader *l, load_item *it, bool on_demand)
{
    char *url = npm_packument_url(l->registry, it->name);
    const char *headers[1] = { l->auth };
    cache_request rq = {
        .url = url,
        .accept = l->target.cutoff || l->target.publish_times ? NPM_ACCEPT_FULL
                                                               : NPM_ACCEPT_ABBREVIATED,
        .policy = CACHE_REVALIDATE,
        .body_on_demand = on_demand,
        .max_bytes = l->max_bytes,
        .headers = l->auth ? headers : NULL,
        .n_headers = l->auth ? 1 : 0,
        .ca_file = l->ca_file,
        .client_cert = l->client_cert,
        .client_key = l->client_key,
        .done = on_done,
        .user = it,
    };
    cache_submit(l->c, &rq);
    free(url);
}

el_code npm_loader_run(npm_loader *l, el_ctx *ctx) { return cache_run(l->c, ctx); }

const npm_packument *npm_loader_get(const npm_loader *l, const char *name)
{
    load_item *it = find(l, name);
    return it ? it->p : NULL;
}

size_t npm_loader_count(const npm_loader *l) { return l->items.len; }

void npm_loader_blob_stats(const npm_loader *l, size_t *read, size_t *written)
{
    *read = l ? l->blobs_read : 0;
    *written = l ? l->blobs_written : 0;
}

const npm_packument *npm_loader_at(const npm_loader *l, size_t i)
{
    return i < l->items.len ? ((load_item *)l->items.items[i])->p : NULL;
}

el_code npm_load_fail(el_ctx *ctx, const npm_packument *p)
{
    if (p->fetch.code != EL_OK) {
        cache_failure_report(ctx, &p->fetch);
        el_detail_str(ctx, "package", p->name);
        return p->fetch.code;
    }
    el_code code = p->code != EL_OK ? p->code : EL_INTERNAL;
    el_fail(ctx, code, "%s", p->message ? p->message : "npm load failed");
    el_detail_str(ctx, "reason", p->reason ? p->reason : "unknown");
    el_detail_str(ctx, "package", p->name);
    el_detail_str(ctx, "url", p->url);
    if (p->status)
        el_detail_int(ctx, "status", p->status);
    el_set_retryable(ctx, p->retryable);
    return code;
}

/* ---- bundled trees ---- */

const npm_bundle *npm_loader_bundle_get(const npm_loader *l, const npm_packument *p,
                                        const npm_version *v)
{
    (void)p;
    for (size_t i = 0; i < l->bundles.len; i++) {
        const load_bundle *lb = l->bundles.items[i];
        if (lb->v == v)
            return lb->b;
    }
    return NULL;
}

static el_code bundle_fail(el_ctx *ctx, const char *reason, const npm_packument *p,
                           const npm_version *v, const char *why)
{
    el_fail(ctx, EL_PACKAGE_NOT_FOUND,
            "npm package %s %s bundles dependencies, and its tarball %s: %s", p->name, v->version,
            v->tarball ? v->tarball : "(none)", why);
    el_detail_str(ctx, "reason", reason);
    char *pkg = xasprintf("npm:%s@%s", p->name, v->version);
    el_detail_str(ctx, "package", pkg);
    free(pkg);
    return EL_PACKAGE_NOT_FOUND;
}

/* The tarball's bytes, checked against v's integrity. */
static el_code bundle_fetch(npm_loader *l, el_ctx *ctx, const npm_packument *p,
                            const npm_version *v, unsigned char **body, size_t *len)
{
    bool ours = strncmp(v->tarball, l->registry, strlen(l->registry)) == 0;
    const char *headers[1] = { l->auth };
    cache_request rq = {
        .url = v->tarball,
        .policy = CACHE_IMMUTABLE,
        .max_bytes = NPM_BUNDLE_TARBALL_MAX_BYTES,
        .headers = ours && l->auth ? headers : NULL,
        .n_headers = ours && l->auth ? 1 : 0,
        .ca_file = ours ? l->ca_file : NULL,
        .client_cert = ours ? l->client_cert : NULL,
        .client_key = ours ? l->client_key : NULL,
    };
    el_code rc = cache_fetch(l->c, ctx, &rq, body, len);
    if (rc != EL_OK) {
        el_detail_str(ctx, "package", p->name);
        return rc;
    }
    if (v->integrity && !sri_matches(v->integrity, *body, *len)) {
        free(*body);
        *body = NULL;
        return bundle_fail(ctx, "integrity_mismatch", p, v,
                           "the bytes served do not have the packument's integrity");
    }
    return EL_OK;
}

el_code npm_loader_bundle(npm_loader *l, el_ctx *ctx, const npm_packument *p,
                          const npm_version *v, const npm_bundle **out)
{
    if ((*out = npm_loader_bundle_get(l, p, v)) != NULL)
        return EL_OK;
    if (!v->tarball)
        return bundle_fail(ctx, "no_tarball", p, v, "is not usable");
    npm_bundle *b = NULL;
    char *blob = v->integrity ? npm_bundle_blob_name(v->integrity) : NULL;
    unsigned char *data = NULL;
    size_t len = 0;
    if (blob && cache_blob_get(l->c, blob, &data, &len) &&
        npm_bundle_blob_read(data, len, v->integrity, &b) != 0)
        b = NULL;
    free(data);
    if (!b) {
        el_code rc = bundle_fetch(l, ctx, p, v, &data, &len);
        if (rc != EL_OK) {
            free(blob);
            return rc;
        }
        char *err = NULL;
        int prc = npm_bundle_parse(data, len, &b, &err);
        free(data);
        if (prc != 0) {
            rc = bundle_fail(ctx, "invalid_tarball", p, v, err);
            free(err);
            free(blob);
            return rc;
        }
        strbuf sb = STRBUF_INIT;
        npm_bundle_blob_write(b, v->integrity ? v->integrity : "", &sb);
        if (blob)
            cache_blob_put(l->c, blob, sb.buf, sb.len);
        sb_release(&sb);
    }
    free(blob);
    load_bundle *lb = xcalloc(1, sizeof *lb);
    lb->v = v;
    lb->b = b;
    ptrvec_push(&l->bundles, lb);
    *out = b;
    return EL_OK;
}

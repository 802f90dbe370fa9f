/* verb_bundle.c — the public el_bundle(): a lock and the cache in, a
 * static on-prem mirror out. Reads the lock, opens the cache with the
 * caller's options and hands both to bundle/ (bundle.h), which owns the
 * tree; this file only checks the request and turns the counts into the
 * public result. */
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "envlock/bundle.h"
#include "verbs_internal.h"

static void fill_result(const bundle_stats *st, const char *base_url, el_bundle_result *res)
{
    res->written = st->written;
    res->written_bytes = st->written_bytes;
    res->reused = st->reused;
    res->reused_bytes = st->reused_bytes;
    res->artifacts = st->artifacts;
    res->documents = st->documents;
    res->metadata = st->metadata;
    res->requests = st->requests;
    res->network = st->network;
    res->network_bytes = st->network_bytes;
    size_t bl = strlen(base_url);
    while (bl && base_url[bl - 1] == '/')
        bl--;
    res->mirrors = xcalloc(st->n_mirrors + 1, sizeof *res->mirrors);
    for (size_t i = 0; i < st->n_mirrors; i++) {
        el_bundle_mirror *m = &res->mirrors[i];
        m->ecosystem = xstrdup(st->mirrors[i].ecosystem);
        m->canonical = xstrdup(st->mirrors[i].canonical);
        m->url = xasprintf("%.*s/%s", (int)bl, base_url, st->mirrors[i].path);
    }
    res->n_mirrors = st->n_mirrors;
    res->signed_files = st->signed_files;
}

el_code el_bundle(el_ctx *ctx, const el_cache_options *co, const char *lock_path,
                  const el_bundle_options *o, el_bundle_result *res)
{
    memset(res, 0, sizeof *res);
    if (!o || !o->out_dir || !*o->out_dir) {
        el_code rc = el_fail(ctx, EL_USAGE, "a bundle needs an output directory (-o DIR)");
        el_detail_str(ctx, "option", "-o");
        return rc;
    }
    lock_doc *lock = verbs_lock_read(ctx, lock_path, res->lock_digest);
    if (!lock)
        return el_ctx_code(ctx);
    if (verbs_no_conda(ctx, lock, "bundle") != EL_OK) {
        lock_doc_free(lock);
        return el_ctx_code(ctx);
    }
    res->out_dir = xstrdup(o->out_dir);
    cache *c = cache_open(ctx, co);
    if (!c) {
        lock_doc_free(lock);
        return el_ctx_code(ctx);
    }
    const char *base_url = o->base_url ? o->base_url : "http://localhost:8080";
    bundle_options bo = { .out_dir = o->out_dir, .base_url = base_url, .sign_key = o->sign_key };
    bundle_stats st;
    el_code rc = bundle_write(ctx, c, lock, &bo, &st);
    fill_result(&st, base_url, res);
    bundle_stats_clear(&st);
    cache_close(c);
    lock_doc_free(lock);
    return rc;
}

el_code el_bundle_verify(el_ctx *ctx, const char *dir, const char *key_path, size_t *n_files)
{
    size_t n = 0;
    if (!dir || !*dir || !key_path || !*key_path) {
        el_code rc = el_fail(ctx, EL_USAGE, "verifying a bundle needs its directory and a key");
        el_detail_str(ctx, "option", "--verify");
        return rc;
    }
    el_code rc = bundle_verify(ctx, dir, key_path, &n);
    if (n_files)
        *n_files = n;
    return rc;
}

void el_bundle_result_clear(el_bundle_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->n_mirrors; i++) {
        free(res->mirrors[i].ecosystem);
        free(res->mirrors[i].canonical);
        free(res->mirrors[i].url);
    }
    free(res->mirrors);
    free(res->out_dir);
    memset(res, 0, sizeof *res);
}

/* resolve_api.c — the public el_resolve() and el_check(): catalog, request
 * (target_request.c), the solve (resolver_resolve), the lock (lockfile/) and,
 * for a check, the inputs as they are now (target_inputs.c). This file only
 * sequences those steps and owns the lock path rules; it solves nothing,
 * fetches nothing and writes no format itself.
 *
 * The resolver and lockfile modules are built by other hands; until both
 * are part of the build (EL_HAVE_RESOLVER, EL_HAVE_LOCKFILE, set by
 * resolver/target/CMakeLists.txt when their targets exist) the functions
 * that need them report EL_INTERNAL saying so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "envlock/resolve.h"
#include "cache.h"
#include "target_inputs.h"
#include "target_request.h"

#define SPEC_TEXT_MAX (1024 * 1024)

el_code el_exclude_newer_normalize(el_ctx *ctx, const char *value, char out[32])
{
    return target_time_normalize(ctx, value, (int64_t)time(NULL), out);
}

static char *default_lock_path(const char *spec_path)
{
    if (!spec_path || strcmp(spec_path, "-") == 0 || strncmp(spec_path, "/dev/", 5) == 0)
        return xstrdup("envlock.lock");
    const char *slash = strrchr(spec_path, '/');
    if (!slash)
        return xstrdup("envlock.lock");
    return xasprintf("%.*s/envlock.lock", (int)(slash - spec_path), spec_path);
}

/* The spec's text for positions; NULL (no positions) when it cannot be read
 * again, which is not an error: the spec itself is already loaded. */
static char *spec_text(const char *path, size_t *len)
{
    *len = 0;
    if (!path || strcmp(path, "-") == 0 || strncmp(path, "/dev/", 5) == 0)
        return NULL;
    return read_file(path, SPEC_TEXT_MAX, len);
}

static void add_note(el_resolve_result *res, const char *note)
{
    res->notes = xrealloc(res->notes, (res->n_notes + 1) * sizeof *res->notes);
    res->notes[res->n_notes++] = xstrdup(note);
}

void el_resolve_result_clear(el_resolve_result *res)
{
    if (!res)
        return;
    free(res->lock_path);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

void el_check_result_clear(el_check_result *res)
{
    if (!res)
        return;
    free(res->report);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

el_code el_resolve(el_ctx *ctx, const el_cache_options *co, const el_spec *spec,
                   const el_resolve_options *o, el_resolve_result *res)
{
    static const el_resolve_options none = { 0 };
    if (!o)
        o = &none;
    memset(res, 0, sizeof *res);
    el_code rc = el_spec_validate(ctx, spec);
    if (rc != EL_OK)
        return rc;
    if (o->exclude_newer &&
        (rc = el_exclude_newer_normalize(ctx, o->exclude_newer, res->exclude_newer)) != EL_OK)
        return rc;
    target_catalog *cat = target_catalog_load(ctx, o->bases_path);
    if (!cat)
        return el_ctx_code(ctx);
    size_t text_len = 0;
    char *text = spec_text(o->spec_path, &text_len);
    res->lock_path = o->lock_path ? xstrdup(o->lock_path) : default_lock_path(o->spec_path);

#ifdef EL_HAVE_LOCKFILE
    lock_doc *previous = NULL;
    if (!o->upgrade_all && file_exists(res->lock_path)) {
        previous = lock_read_file(ctx, res->lock_path);
        if (!previous) {
            char *why = xstrdup(el_ctx_message(ctx));
            rc = el_fail(ctx, EL_SPEC_INVALID,
                         "the existing lock %s cannot be read as a preference (%s): fix or "
                         "remove it, or pass --upgrade to resolve from scratch",
                         res->lock_path, why);
            el_detail_str(ctx, "reason", "invalid_lock");
            el_detail_str(ctx, "path", res->lock_path);
            free(why);
            goto out_text;
        }
        res->kept_previous = true;
    } else if (o->upgrade_all && file_exists(res->lock_path)) {
        /* --upgrade: the lock is no preference, only a list of names to
         * prefetch; one that cannot be read means no prefetch, not an error */
        previous = lock_read_file(ctx, res->lock_path);
        if (!previous)
            el_ctx_clear(ctx);
    }
#else
    void *previous = NULL;
    (void)file_exists;
#endif

    target_request_options to = {
        .spec_text = text,
        .spec_len = text_len,
        .spec_opts = o->spec_opts,
        .exclude_newer = res->exclude_newer[0] ? res->exclude_newer : NULL,
        .previous = o->upgrade_all ? NULL : previous,
        .prefetch = o->upgrade_all ? previous : NULL,
        .upgrade_all = o->upgrade_all,
        .upgrade = o->upgrade,
        .n_upgrade = o->n_upgrade,
        .debug_solver_dir = o->debug_solver_dir,
        .explain_full = o->explain_full,
    };
    target_request *tr = NULL;
    if ((rc = target_request_build(ctx, cat, spec, &to, &tr)) != EL_OK)
        goto out_prev;
    snprintf(res->spec_digest, sizeof res->spec_digest, "%s", tr->spec_digest);
    for (size_t i = 0; i < tr->n_notes; i++)
        add_note(res, tr->notes[i]);

#if defined(EL_HAVE_RESOLVER) && defined(EL_HAVE_LOCKFILE)
    {
        cache *c = cache_open(ctx, co);
        if (!c) {
            rc = el_ctx_code(ctx);
            goto out_req;
        }
        lock_doc *doc = NULL;
        rc = resolver_resolve(ctx, c, &tr->rq, &doc);
        cache_close(c);
        if (rc == EL_OK) {
            rc = lock_write_file(ctx, doc, res->lock_path, res->lock_digest);
            for (size_t i = 0; rc == EL_OK && i < doc->n_packages; i++) {
                const lock_package *p = &doc->packages[i];
                if (strcmp(p->ecosystem, "pypi") == 0)
                    res->n_pypi++;
                else if (strcmp(p->ecosystem, "npm") == 0)
                    res->n_npm++;
                else if (strcmp(p->ecosystem, "deb") == 0)
                    res->n_deb++;
                if (p->installed_in_base)
                    res->n_installed_in_base++;
            }
        }
        lock_doc_free(doc);
    }
    goto out_req; /* keeps the label used when both modules are present */
#else
    (void)co;
    rc = el_fail(ctx, EL_INTERNAL, "this envlock was built without the resolver: the request "
                                   "for %s is ready but nothing can solve it",
                 res->spec_digest);
    goto out_req;
#endif

out_req:
    target_request_free(tr);
out_prev:
#ifdef EL_HAVE_LOCKFILE
    lock_doc_free(previous);
out_text:
#endif
    free(text);
    target_catalog_free(cat);
    return rc;
}

el_code el_check(el_ctx *ctx, const el_cache_options *co, const el_spec *spec,
                 const char *lock_path, const el_check_options *o, el_check_result *res)
{
    static const el_check_options none = { 0 };
    if (!o)
        o = &none;
    memset(res, 0, sizeof *res);
    res->report = xstrdup("");
    el_code rc = el_spec_validate(ctx, spec);
    if (rc != EL_OK)
        return rc;
    char cutoff[32] = "";
    if (o->exclude_newer && (rc = el_exclude_newer_normalize(ctx, o->exclude_newer, cutoff)) != EL_OK)
        return rc;
    target_catalog *cat = target_catalog_load(ctx, o->bases_path);
    if (!cat)
        return el_ctx_code(ctx);
    size_t text_len = 0;
    char *text = spec_text(o->spec_path, &text_len);
    target_request_options to = { .spec_text = text, .spec_len = text_len,
                                  .spec_opts = o->spec_opts };
    target_request *tr = NULL;
    rc = target_request_build(ctx, cat, spec, &to, &tr);
    if (rc == EL_OK) {
        snprintf(res->spec_digest, sizeof res->spec_digest, "%s", tr->spec_digest);
#ifdef EL_HAVE_LOCKFILE
        size_t len = 0;
        char *bytes = read_file(lock_path, 64u * 1024 * 1024, &len);
        lock_doc *lock = NULL;
        if (!bytes) {
            rc = el_fail(ctx, EL_SPEC_INVALID, "the lock %s cannot be read: %s", lock_path,
                         strerror(errno));
            el_detail_str(ctx, "reason", "unreadable");
            el_detail_str(ctx, "path", lock_path);
        } else if (!(lock = lock_read_text(ctx, bytes, len))) {
            rc = el_ctx_code(ctx);
        } else {
            char hex[65];
            sha256_hex(bytes, len, hex);
            snprintf(res->lock_digest, sizeof res->lock_digest, "sha256:%s", hex);
            const resolve_request *rq = &tr->rq;
            lock_check_root *roots = xcalloc(rq->n_roots + 1, sizeof *roots);
            size_t n_roots = 0;
            for (size_t i = 0; i < rq->n_roots; i++)
                if (rq->roots[i].kind == ROOT_REQUIREMENT)
                    roots[n_roots++] = (lock_check_root){ rq->roots[i].ecosystem,
                                                          rq->roots[i].text };
            size_t nv = 0;
            while (rq->variants[nv])
                nv++;
            const char **digests = xcalloc(nv + 1, sizeof *digests);
            for (size_t i = 0; i < nv; i++) {
                const char *at = strrchr(tr->resolved_bases[i], '@');
                digests[i] = at ? at + 1 : NULL;
            }
            lock_check_input in = {
                .spec_digest = tr->spec_digest,
                .roots = roots,
                .n_roots = n_roots,
                .python_version = rq->base->python_version,
                .platform = rq->base->platform,
                .arch = rq->base->arch,
                .base_ref = rq->base->ref,
                .base_channel = rq->base->channel,
                .variants = rq->variants,
                .base_digests = digests,
                .exclude_newer = cutoff[0] ? cutoff : lock->exclude_newer,
                .prereleases = NULL,
                .compare_upgrade = false,
            };
            target_inputs *now = NULL;
#ifdef EL_HAVE_RESOLVER
            rc = target_inputs_fetch(ctx, co, lock, &now);
#else
            (void)co;
#endif
            if (now) {
                in.fresh = now->fresh;
                in.n_fresh = now->n_fresh;
                in.gone = now->gone;
                in.n_gone = now->n_gone;
                res->notes = now->notes; /* taken */
                res->n_notes = now->n_notes;
                now->notes = NULL;
                now->n_notes = 0;
            }
            strbuf report = STRBUF_INIT;
            bool stale = false;
            if (rc == EL_OK)
                rc = lock_check(ctx, lock, &in, &stale, &report);
            if (rc == EL_OK) {
                res->stale = stale;
                free(res->report);
                res->report = sb_detach(&report, NULL);
            }
            sb_release(&report);
#ifdef EL_HAVE_RESOLVER
            target_inputs_free(now);
#endif
            free(digests);
            free(roots);
        }
        lock_doc_free(lock);
        free(bytes);
#else
        (void)lock_path;
        rc = el_fail(ctx, EL_INTERNAL, "this envlock was built without the lockfile module: "
                                       "a lock cannot be read yet");
#endif
    }
    target_request_free(tr);
    free(text);
    target_catalog_free(cat);
    return rc;
}

/* verb_export.c — the public el_export(): a lock in another tool's format.
 * Reads the lock and, for what the lock does not hold (the base's
 * repository, minor Python, apt snapshot, protected pins), the bases
 * catalog; the formats themselves are plan/'s (plan_export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "cache.h"
#include "envlock/plan.h"
#include "plan.h"
#include "pypi_index.h"
#include "base.h"
#include "verbs_internal.h"

/* ---- PyPI download URLs for pylock.toml ---- */

typedef struct url_slot {
    lock_doc *lock;
    lock_package *p;
    el_code code;        /* the page's failure, EL_OK when read */
    char *message;
    char *reason;
} url_slot;

/* Each of the package's files gets the URL its page gives, as this run
 * would fetch it (through --mirror), and the page's size. */
static void page_read(cache *c, cache_response *r, void *user)
{
    url_slot *s = user;
    if (r->code != EL_OK) {
        s->code = r->code;
        s->message = xstrdup(r->message ? r->message : "the page could not be read");
        s->reason = xstrdup(r->reason ? r->reason : "fetch_failed");
        return;
    }
    arena *a = arena_new();
    pypi_page page;
    el_ctx *pctx = el_ctx_new();
    if (pypi_page_read(pctx, c, r, a, &page) == EL_OK) {
        for (size_t i = 0; i < s->p->n_artifacts; i++) {
            lock_artifact *art = &s->p->artifacts[i];
            for (size_t k = 0; k < page.nfiles && !art->url; k++) {
                const pypi_file *f = &page.files[k];
                if (f->bad_url || strcmp(f->filename, art->file) != 0)
                    continue;
                char *served = cache_served_url(c, f->read_url ? f->read_url : f->url);
                art->url = lock_strdup(s->lock, served);
                free(served);
                if (!art->size && f->size > 0)
                    art->size = (uint64_t)f->size;
            }
        }
    }
    el_ctx_free(pctx);
    arena_free(a);
}

/* A format-2 lock names no URL for a PyPI file (docs/lock-format.md,
 * "Where a lock was made"); pylock.toml and conda-lock's pip layer need
 * one, so each package's project page on its `source` index says, read
 * through the cache and the mirrors as `resolve` reads it. A file the page does not list stays
 * without a URL (plan_export() refuses it by name). */
static el_code pypi_urls(el_ctx *ctx, const el_cache_options *co, lock_doc *lock)
{
    size_t n = 0;
    url_slot *slots = xcalloc(lock->n_packages + 1, sizeof *slots);
    for (size_t i = 0; i < lock->n_packages; i++) {
        lock_package *p = &lock->packages[i];
        bool missing = false;
        for (size_t k = 0; k < p->n_artifacts; k++)
            missing |= !p->artifacts[k].url;
        if (strcmp(p->ecosystem, "pypi") == 0 && missing && p->source)
            slots[n++] = (url_slot){ .lock = lock, .p = p };
    }
    if (!n) {
        free(slots);
        return EL_OK;
    }
    el_cache_options defaults = { 0 };
    cache *c = cache_open(ctx, co ? co : &defaults);
    if (!c) {
        free(slots);
        return el_ctx_code(ctx);
    }
    for (size_t i = 0; i < n; i++) {
        char *url = pypi_page_url(slots[i].p->source, slots[i].p->name);
        cache_request rq = { .url = url, .accept = PYPI_PAGE_ACCEPT, .policy = CACHE_REVALIDATE,
                             .max_bytes = PYPI_PAGE_MAX, .done = page_read, .user = &slots[i] };
        cache_submit(c, &rq);
        free(url);
    }
    el_code rc = cache_run(c, ctx);
    for (size_t i = 0; i < n; i++) {
        if (rc == EL_OK && slots[i].code != EL_OK) {
            rc = el_fail(ctx, slots[i].code, "the download URLs of pypi %s %s come from its "
                         "index page: %s", slots[i].p->name, slots[i].p->version,
                         slots[i].message);
            el_detail_str(ctx, "reason", slots[i].reason);
        }
        free(slots[i].message);
        free(slots[i].reason);
    }
    free(slots);
    cache_close(c);
    return rc;
}

static bool has_conda(const lock_doc *lock)
{
    for (size_t i = 0; i < lock->n_packages; i++)
        if (strcmp(lock->packages[i].ecosystem, "conda") == 0)
            return true;
    return false;
}

/* --resolved-at as the uv-pip-compile header writes it:
 * "YYYY-MM-DDTHH:MM:SS+00:00" (UTC, fractions dropped). */
static el_code resolved_at(el_ctx *ctx, const char *text, char out[32])
{
    int64_t ms = 0;
    if (!rfc3339_parse(text, 0, &ms)) {
        el_code rc = el_fail(ctx, EL_USAGE, "`%s` is not an RFC 3339 date-time "
                                            "(2026-09-14T15:00:00Z)", text);
        el_detail_str(ctx, "option", "--resolved-at");
        return rc;
    }
    utc_format(ms / 1000 - (ms % 1000 < 0), "+00:00", out);
    return EL_OK;
}

static el_code export_text(el_ctx *ctx, lock_doc *lock, const char *digest, plan_format fmt,
                           const el_export_options *o, char **text, size_t *len)
{
    plan_input in = { .lock = lock, .lock_digest = digest };
    char when[32];
    target_catalog *cat = NULL;
    el_code rc = EL_OK;
    if (fmt == PLAN_UV_PIP_COMPILE) {
        if (o->resolved_at && (rc = resolved_at(ctx, o->resolved_at, when)) != EL_OK)
            return rc;
        in.resolved_at = o->resolved_at ? when : NULL;
        const target_base *b = NULL;
        if (!(cat = target_catalog_load(ctx, o->bases_path)) ||
            !(b = target_catalog_find(ctx, cat, lock->base_ref, lock->base_channel))) {
            target_catalog_free(cat);
            return el_ctx_code(ctx);
        }
        in.python_minor = b->python_minor;
        in.base_repository = b->repository;
        in.apt_snapshot = b->apt_snapshot;
        in.protected_pins = b->protected_pins;
    }
    /* pylock and conda-lock's pip layer name each file's download URL (a
     * lock without conda packages is refused by conda-lock, unread) */
    if ((fmt == PLAN_PYLOCK || (fmt == PLAN_CONDA_LOCK && has_conda(lock))) &&
        (rc = pypi_urls(ctx, o->cache, lock)) != EL_OK)
        return rc;
    *text = plan_export(ctx, &in, fmt, len);
    if (!*text)
        rc = el_ctx_code(ctx);
    target_catalog_free(cat);
    return rc;
}

static el_code write_out(el_ctx *ctx, const char *path, const char *text, size_t len)
{
    const char *step = NULL;
    int err = file_holds(path, text, len) ? 0 : file_write_atomic(path, text, len, &step);
    if (!err)
        return EL_OK;
    el_code rc = el_fail_io(ctx, err, "cannot write the export `%s`: %s: %s", path, step,
                            strerror(err));
    el_detail_str(ctx, "reason", "export_write_failed");
    el_detail_str(ctx, "path", path);
    return rc;
}

el_code el_export(el_ctx *ctx, const char *lock_path, const el_export_options *o, char **text,
                  size_t *len)
{
    *text = NULL;
    *len = 0;
    plan_format fmt;
    if (!o || !o->format || !plan_format_parse(o->format, &fmt)) {
        el_code rc = el_fail(ctx, EL_USAGE, "`%s` is not an export format; the formats are %s",
                             o && o->format ? o->format : "", plan_format_names());
        el_detail_str(ctx, "option", "--format");
        return rc;
    }
    el_code out_rc = o->out_path ? verbs_out_file_check(ctx, "-o", o->out_path) : EL_OK;
    if (out_rc != EL_OK)
        return out_rc;
    char digest[EL_DIGEST_SIZE];
    lock_doc *lock = verbs_lock_read(ctx, lock_path, digest);
    if (!lock)
        return el_ctx_code(ctx);
    el_code rc = lock_validate(ctx, lock);
    /* a conda environment's Python is conda's: the pip formats would
     * describe another environment; apt and npm stand apart, and the SBOMs
     * name conda packages by their purl */
    if (rc == EL_OK && fmt != PLAN_CONDA_EXPLICIT && fmt != PLAN_CONDA_LOCK && fmt != PLAN_APT &&
        fmt != PLAN_PACKAGE_LOCK && fmt != PLAN_CYCLONEDX && fmt != PLAN_SPDX) {
        char *what = xasprintf("export --format %s", o->format);
        rc = verbs_no_conda(ctx, lock, what);
        free(what);
    }
    if (rc == EL_OK)
        rc = export_text(ctx, lock, digest, fmt, o, text, len);
    lock_doc_free(lock);
    if (rc == EL_OK && o->out_path)
        rc = write_out(ctx, o->out_path, *text, *len);
    if (rc != EL_OK) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
    return rc;
}

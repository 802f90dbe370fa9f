/* verb_export.c — the public el_export(): a lock in another tool's format.
 * Reads the lock and, for what the lock does not hold (the base's
 * repository, minor Python, apt snapshot, protected pins), the bases
 * catalog; the formats themselves are plan/'s (plan_export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "envlock/plan.h"
#include "plan.h"
#include "target.h"
#include "verbs_internal.h"

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
    el_code rc = export_text(ctx, lock, digest, fmt, o, text, len);
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

/* error.c — the code table (codes.def) and the el_ctx that carries the last
 * failure: code, message, per-occurrence retryability and a JSON detail
 * object. This file owns json-c's use for the error body; it knows nothing of
 * what a failure is about. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util.h"

struct code_row {
    el_code code;
    const char *name;
    el_retry retry;
    int exit_status;
    const char *meaning;
    const char *action;
};

static const struct code_row rows[] = {
#define X(e, n, r, x, m, a) { e, n, r, x, m, a },
#include "codes.def"
#undef X
};

_Static_assert(sizeof rows / sizeof rows[0] == EL_CODE_COUNT, "codes.def must list every el_code");

static const struct code_row *row(el_code code)
{
    if ((unsigned)code >= EL_CODE_COUNT)
        code = EL_INTERNAL;
    return &rows[code];
}

const char *el_code_name(el_code code) { return row(code)->name; }
el_retry el_code_retry(el_code code) { return row(code)->retry; }
const char *el_code_meaning(el_code code) { return row(code)->meaning; }
const char *el_code_user_action(el_code code) { return row(code)->action; }
int el_code_exit_status(el_code code) { return row(code)->exit_status; }

/* Advice per failure reason (reasons.def), before the code's own. */
static const struct {
    const char *reason;
    int exit_status;
    const char *action;
} reason_actions[] = {
#define R(r, e, a) { r, e, a },
#include "reasons.def"
#undef R
};

const char *el_reason_user_action(const char *reason)
{
    for (size_t i = 0; reason && i < sizeof reason_actions / sizeof reason_actions[0]; i++)
        if (strcmp(reason_actions[i].reason, reason) == 0)
            return reason_actions[i].action;
    return NULL;
}

el_code el_code_from_name(const char *name)
{
    for (unsigned i = 0; i < EL_CODE_COUNT; i++)
        if (strcmp(rows[i].name, name) == 0)
            return rows[i].code;
    return EL_CODE_COUNT;
}

struct el_ctx {
    el_code code;
    char *message;
    char *text; /* the form for a terminal (el_set_text()), or NULL */
    bool retryable;
    json_object *detail;
};

el_ctx *el_ctx_new(void)
{
    el_ctx *ctx = xcalloc(1, sizeof *ctx);
    ctx->message = xstrdup("");
    return ctx;
}

void el_ctx_clear(el_ctx *ctx)
{
    ctx->code = EL_OK;
    free(ctx->message);
    ctx->message = xstrdup("");
    free(ctx->text);
    ctx->text = NULL;
    ctx->retryable = false;
    json_object_put(ctx->detail);
    ctx->detail = NULL;
}

void el_ctx_free(el_ctx *ctx)
{
    if (!ctx)
        return;
    el_ctx_clear(ctx);
    free(ctx->message);
    free(ctx);
}

el_code el_ctx_code(const el_ctx *ctx) { return ctx->code; }
const char *el_ctx_message(const el_ctx *ctx) { return ctx->message; }
const char *el_ctx_text(const el_ctx *ctx) { return ctx->text ? ctx->text : ctx->message; }

void el_set_text(el_ctx *ctx, const char *text)
{
    free(ctx->text);
    ctx->text = xstrdup(text);
}
bool el_ctx_retryable(const el_ctx *ctx) { return ctx->retryable; }
json_object *el_ctx_detail(const el_ctx *ctx) { return ctx->detail; }

static const char *ctx_reason(const el_ctx *ctx)
{
    json_object *r = NULL;
    if (ctx->detail && json_object_object_get_ex(ctx->detail, "reason", &r) &&
        json_object_is_type(r, json_type_string))
        return json_object_get_string(r);
    return NULL;
}

int el_ctx_exit_status(const el_ctx *ctx)
{
    const char *reason = ctx_reason(ctx);
    for (size_t i = 0; reason && i < sizeof reason_actions / sizeof reason_actions[0]; i++)
        if (strcmp(reason_actions[i].reason, reason) == 0 && reason_actions[i].exit_status)
            return reason_actions[i].exit_status;
    return el_code_exit_status(ctx->code);
}

const char *el_ctx_user_action(const el_ctx *ctx)
{
    const char *a = el_reason_user_action(ctx_reason(ctx));
    return a ? a : el_code_user_action(ctx->code);
}

el_code el_fail(el_ctx *ctx, el_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    el_failv(ctx, code, fmt, ap);
    va_end(ap);
    return code;
}

el_code el_failv(el_ctx *ctx, el_code code, const char *fmt, va_list ap)
{
    el_ctx_clear(ctx);
    free(ctx->message);
    ctx->message = xvasprintf(fmt, ap);
    ctx->code = code;
    el_retry r = el_code_retry(code);
    ctx->retryable = r == EL_RETRY_YES || r == EL_RETRY_LATER;
    ctx->detail = json_object_new_object();
    return code;
}

static json_object *detail(el_ctx *ctx)
{
    if (!ctx->detail)
        ctx->detail = json_object_new_object();
    return ctx->detail;
}

void el_detail_str(el_ctx *ctx, const char *key, const char *value)
{
    json_object_object_add(detail(ctx), key, json_object_new_string(value));
}

void el_detail_int(el_ctx *ctx, const char *key, int64_t value)
{
    json_object_object_add(detail(ctx), key, json_object_new_int64(value));
}

void el_detail_take(el_ctx *ctx, const char *key, json_object *value)
{
    json_object_object_add(detail(ctx), key, value);
}

void el_set_retryable(el_ctx *ctx, bool retryable)
{
    /* Only codes whose retryability is decided per occurrence may be set;
     * contradicting a code's fixed flag is a bug in the caller. */
    if (el_code_retry(ctx->code) == EL_RETRY_SOMETIMES)
        ctx->retryable = retryable;
}

/* The errno names an I/O failure may carry, and whether the condition can
 * clear without the user changing the command (a full disk is emptied, a
 * flaky device recovers); the rest name a path or a permission that stays
 * wrong. Unlisted errnos are not retryable and carry no name. */
static const struct {
    int err;
    const char *name;
    bool transient;
} io_errnos[] = {
    { ENOSPC, "ENOSPC", true },   { EDQUOT, "EDQUOT", true },   { EIO, "EIO", true },
    { EAGAIN, "EAGAIN", true },   { EINTR, "EINTR", true },     { EMFILE, "EMFILE", true },
    { ENFILE, "ENFILE", true },   { ENOMEM, "ENOMEM", true },   { EBUSY, "EBUSY", true },
    { EACCES, "EACCES", false },  { EPERM, "EPERM", false },    { EROFS, "EROFS", false },
    { ENOENT, "ENOENT", false },  { ENOTDIR, "ENOTDIR", false }, { EISDIR, "EISDIR", false },
    { EEXIST, "EEXIST", false },  { EINVAL, "EINVAL", false },  { EFBIG, "EFBIG", false },
    { ENAMETOOLONG, "ENAMETOOLONG", false }, { ELOOP, "ELOOP", false },
    { EXDEV, "EXDEV", false },    { ETXTBSY, "ETXTBSY", false },
};

el_code el_fail_io(el_ctx *ctx, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    el_failv(ctx, EL_IO, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < sizeof io_errnos / sizeof io_errnos[0]; i++)
        if (io_errnos[i].err == err) {
            el_detail_str(ctx, "errno", io_errnos[i].name);
            el_set_retryable(ctx, io_errnos[i].transient);
            break;
        }
    return EL_IO;
}

char *el_ctx_error_json(const el_ctx *ctx, bool pretty)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "code", json_object_new_string(el_code_name(ctx->code)));
    json_object_object_add(o, "message", json_object_new_string(ctx->message));
    json_object_object_add(o, "retryable", json_object_new_boolean(ctx->retryable));
    json_object_object_add(o, "userAction",
                           json_object_new_string(el_ctx_user_action(ctx)));
    json_object_object_add(o, "detail",
                           ctx->detail ? json_object_get(ctx->detail) : json_object_new_object());
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);
    char *s = xstrdup(json_object_to_json_string_ext(o, flags));
    json_object_put(o);
    return s;
}

void el_free(void *p)
{
    free(p);
}

el_code el_usage_error(el_ctx *ctx, const char *message)
{
    return el_fail(ctx, EL_USAGE, "%s", message);
}

const char *el_version_string(void)
{
    return ENVLOCK_VERSION;
}

/* envlock/error.h — the error model: DL_ENV_* codes and the context that
 * carries the last failure. Part of envlock.h; include that instead. */
#ifndef ENVLOCK_ERROR_H
#define ENVLOCK_ERROR_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__)
#define EL_API __attribute__((visibility("default")))
#define EL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define EL_API
#define EL_PRINTF(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Append-only: never remove, never renumber. The user-facing names are the
 * seed's DL_ENV_* strings (el_code_name). EL_USAGE, EL_INTERNAL and EL_IO
 * are not DL_ENV codes: a malformed command line, a bug in envlock, and a
 * file or directory of this machine that could not be read or written (a
 * read-only or full disk, a missing directory met while writing). */
typedef enum el_code {
    EL_OK = 0,
    EL_SPEC_INVALID = 1,
    EL_CAPABILITY_UNSUPPORTED = 2,
    EL_RESOLVE_CONFLICT = 3,
    EL_PACKAGE_NOT_FOUND = 4,
    EL_PROTECTED_PACKAGE = 5,
    EL_BUILD_FAILED = 6,
    EL_BUILD_TIMEOUT = 7,
    EL_QUOTA_EXCEEDED = 8,
    EL_POLICY_DENIED = 9,
    EL_SCAN_BLOCKED = 10,
    EL_SMOKE_TEST_FAILED = 11,
    EL_ARTIFACT_MISSING = 12,
    EL_PROVIDER_ERROR = 13,
    EL_BUILD_SECRET_UNAVAILABLE = 14,
    EL_PUBLICATION_BLOCKED = 15,
    EL_USAGE = 16,
    EL_INTERNAL = 17,
    EL_IO = 18,
    EL_CODE_COUNT
} el_code;

/* How a code may be retried, as the seed's table says. */
typedef enum el_retry {
    EL_RETRY_NO,        /* never: retryable=false */
    EL_RETRY_YES,       /* always: retryable=true */
    EL_RETRY_LATER,     /* after waiting: retryable=true */
    EL_RETRY_SOMETIMES  /* decided per occurrence; false unless the failure says so */
} el_retry;

/* el_code_name() :
 *  The stable string ("DL_ENV_SPEC_INVALID", "USAGE", "INTERNAL", "IO_ERROR", "OK").
 *  Never NULL: an out-of-range code gives "INTERNAL". */
EL_API const char *el_code_name(el_code code);

/* el_code_from_name() :
 *  Inverse of el_code_name(); returns EL_CODE_COUNT for an unknown name. */
EL_API el_code el_code_from_name(const char *name);

/* el_code_retry() / el_code_meaning() / el_code_user_action() :
 *  The table's retry class, meaning ("Dependency set unsatisfiable") and
 *  user action ("Relax a pin; the conflicting pair is shown"). */
EL_API el_retry el_code_retry(el_code code);
EL_API const char *el_code_meaning(el_code code);
EL_API const char *el_code_user_action(el_code code);

/* el_code_exit_status() :
 *  The process exit status the CLI uses for a failure with this code
 *  (documented in docs/troubleshooting.md): 0 for EL_OK, 2 for EL_USAGE, 10+n for
 *  DL_ENV codes, 70 for EL_INTERNAL, 74 for EL_IO (sysexits' EX_IOERR). */
EL_API int el_code_exit_status(el_code code);

/* The context: options shared by a run and the last failure. Not thread-safe;
 * use one per thread. */
typedef struct el_ctx el_ctx;

EL_API el_ctx *el_ctx_new(void);
EL_API void el_ctx_free(el_ctx *ctx);

/* el_ctx_code() / el_ctx_message() / el_ctx_retryable() :
 *  The last failure recorded on ctx (EL_OK and "" if none). The message is
 *  borrowed until the next failure or el_ctx_clear(). */
EL_API el_code el_ctx_code(const el_ctx *ctx);
EL_API const char *el_ctx_message(const el_ctx *ctx);
EL_API bool el_ctx_retryable(const el_ctx *ctx);

/* el_ctx_text() :
 *  The last failure as a terminal shows it: the message, or where the
 *  failure has several causes (the dead ends of a resolve), a first line
 *  and one indented "- " line per cause, with what it excludes below it.
 *  Same lifetime as el_ctx_message(); the message stays one line for
 *  --json and logs. */
EL_API const char *el_ctx_text(const el_ctx *ctx);

/* el_ctx_user_action() / el_reason_user_action() :
 *  What to do about the last failure: the advice for its detail.reason
 *  when that reason has its own (dns, connect, proxy, tls, auth, ...;
 *  docs/troubleshooting.md lists them), else el_code_user_action() of its
 *  code. el_reason_user_action() gives a reason's advice, or NULL.
 *  Static storage. */
EL_API const char *el_ctx_user_action(const el_ctx *ctx);
EL_API const char *el_reason_user_action(const char *reason);
EL_API void el_ctx_clear(el_ctx *ctx);

/* el_ctx_exit_status() :
 *  The exit status for the last failure: its detail.reason's own when that
 *  reason has one (25: the index gave no answer about the package, as for
 *  dns, connect, proxy, tls, auth; docs/cli.md "Exit status"), else
 *  el_code_exit_status() of its code. 0 if no failure. */
EL_API int el_ctx_exit_status(const el_ctx *ctx);

/* el_ctx_error_json() :
 *  The last failure as the API error body, one JSON object:
 *  {"code","message","retryable","userAction","detail"}; userAction is
 *  el_ctx_user_action(). With `pretty`, indented.
 *  Caller frees with el_free(). Returns "{}"-like success body if no failure:
 *  {"code":"OK",...}. */
EL_API char *el_ctx_error_json(const el_ctx *ctx, bool pretty);

/* el_usage_error() :
 *  Records a malformed request (EL_USAGE) with `message` on ctx; returns EL_USAGE.
 *  For front ends such as the CLI that validate their own arguments. */
EL_API el_code el_usage_error(el_ctx *ctx, const char *message);

/* el_closest_name() :
 *  The one of `names` (n of them) that `word` most likely meant, for a
 *  "did you mean" in a message: the nearest by edit distance (Damerau-
 *  Levenshtein) within a third of the word's length (1 to 3), else the
 *  one name that starts like `word` and holds its characters in order (an
 *  abbreviation, for words of 4 or more; none when several do). NULL
 *  when none is close. Returns one of `names` (borrowed). */
EL_API const char *el_closest_name(const char *word, const char *const *names, size_t n);

/* el_version_string() : envlock's own version, e.g. "0.1.0". Static storage. */
EL_API const char *el_version_string(void);

/* el_free() : frees strings that envlock hands to the caller. */
EL_API void el_free(void *p);

#ifdef __cplusplus
}
#endif
#endif

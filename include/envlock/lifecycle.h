/* envlock/lifecycle.h — the Environment Version lifecycle: its states, the
 * events that move a version between them, which moves are allowed, and the
 * state a finished build lands in. Part of envlock.h.
 *
 *   draft --submit--> resolving --lock_produced--> resolved
 *   resolving --resolution_conflict--> failed
 *   resolved --build_requested--> building
 *   building --builds_terminal--> validating
 *   building --required_variant_failed--> failed
 *   validating --smoke_test_passed--> ready
 *   validating --optional_variant_failed--> partially_ready
 *   validating --validation_failed--> failed
 *   partially_ready --backfill_succeeded--> ready
 *   ready, partially_ready --deprecate--> deprecated
 *   failed --retry--> building   (only when the failure is retryable)
 *
 * failed and deprecated are terminal (failed reopens only by that retry);
 * ready and partially_ready can be promoted and launched (partially_ready
 * only with an acknowledgement that some optional variants are missing); only
 * a draft can be edited.
 *
 * A refused transition is a request the caller should not have made; it
 * fails with DL_ENV_SPEC_INVALID (EL_SPEC_INVALID) and the detail
 * {reason: "invalid_transition", from, to, event, allowed: [states]} (plus
 * failureCode and retryable when leaving `failed`). A malformed build outcome
 * fails with EL_SPEC_INVALID and detail.reason "invalid_build_outcome". */
#ifndef ENVLOCK_LIFECYCLE_H
#define ENVLOCK_LIFECYCLE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append-only, like el_code. */
typedef enum el_version_state {
    EL_STATE_DRAFT,
    EL_STATE_RESOLVING,
    EL_STATE_RESOLVED,
    EL_STATE_BUILDING,
    EL_STATE_VALIDATING,
    EL_STATE_READY,
    EL_STATE_PARTIALLY_READY,
    EL_STATE_FAILED,
    EL_STATE_DEPRECATED,
    EL_STATE_COUNT
} el_version_state;

/* What happened. EL_EVENT_NONE leaves the event unstated: any allowed edge
 * accepts it except failed -> building, which needs EL_EVENT_RETRY. A stated
 * event must be the edge's own. */
typedef enum el_lifecycle_event {
    EL_EVENT_NONE,
    EL_EVENT_SUBMIT,                  /* draft -> resolving */
    EL_EVENT_LOCK_PRODUCED,           /* resolving -> resolved */
    EL_EVENT_RESOLUTION_CONFLICT,     /* resolving -> failed */
    EL_EVENT_BUILD_REQUESTED,         /* resolved -> building */
    EL_EVENT_BUILDS_TERMINAL,         /* building -> validating */
    EL_EVENT_REQUIRED_VARIANT_FAILED, /* building -> failed */
    EL_EVENT_SMOKE_TEST_PASSED,       /* validating -> ready */
    EL_EVENT_OPTIONAL_VARIANT_FAILED, /* validating -> partially_ready */
    EL_EVENT_VALIDATION_FAILED,       /* validating -> failed */
    EL_EVENT_BACKFILL_SUCCEEDED,      /* partially_ready -> ready */
    EL_EVENT_DEPRECATE,               /* ready, partially_ready -> deprecated */
    EL_EVENT_RETRY,                   /* failed -> building */
    EL_EVENT_COUNT
} el_lifecycle_event;

/* el_lifecycle_state_name() :
 *  "draft", "resolving", ..., "partially_ready", "failed", "deprecated".
 *  Never NULL: an out-of-range state gives "unknown". */
EL_API const char *el_lifecycle_state_name(el_version_state state);

/* el_lifecycle_state_parse() :
 *  Inverse of el_lifecycle_state_name() (exact, lowercase). Returns 0, or -1
 *  for an unknown name (and *out untouched). */
EL_API int el_lifecycle_state_parse(const char *name, el_version_state *out);

/* el_lifecycle_event_name() / el_lifecycle_event_parse() :
 *  "none", "submit", "lock_produced", ..., "deprecate", "retry"; as above. */
EL_API const char *el_lifecycle_event_name(el_lifecycle_event event);
EL_API int el_lifecycle_event_parse(const char *name, el_lifecycle_event *out);

/* el_lifecycle_next_states() :
 *  Writes the states `from` may move to, in declaration order, into `out`
 *  (room for EL_STATE_COUNT) and returns how many: 0 for deprecated, 1
 *  (building) for failed — reachable only by a retry of a retryable failure. */
EL_API size_t el_lifecycle_next_states(el_version_state from, el_version_state *out);

/* el_lifecycle_transition() :
 *  Checks the move `from` -> `to` on `event`. EL_OK if allowed. Otherwise
 *  EL_SPEC_INVALID with one of these messages:
 *   "a resolved version cannot become ready; it can become building"
 *   "a deprecated version cannot change state"
 *   "a failed version is reopened only by a retry of a retryable failure; ..."
 *     (the rest says what was missing: the target, the retry event, or the
 *     failure's retryability)
 *   "a draft version becomes resolving on `submit`, not on `retry`"
 *  `failure_code` is the code of the failure that put the version in
 *  `failed` (EL_OK if unknown: not retryable); it is read only when leaving
 *  `failed`. A code's retryability comes from the code table
 *  (el_code_retry): yes and later are retryable, no is not, and for the
 *  sometimes codes (DL_ENV_PACKAGE_NOT_FOUND, ...) `occurrence_retryable`
 *  decides, as the failure itself recorded it. */
EL_API el_code el_lifecycle_transition(el_ctx *ctx, el_version_state from, el_version_state to,
                                       el_lifecycle_event event, el_code failure_code,
                                       bool occurrence_retryable);

/* el_lifecycle_failure_retryable() :
 *  The retryability rule above on its own: false for EL_OK and unknown codes. */
EL_API bool el_lifecycle_failure_retryable(el_code failure_code, bool occurrence_retryable);

/* el_lifecycle_is_terminal() : failed or deprecated.
 * el_lifecycle_is_promotable() : ready or partially_ready (may be promoted
 *   and launched).
 * el_lifecycle_needs_acknowledgement() : partially_ready (promoting it means
 *   accepting that optional variants are unavailable).
 * el_lifecycle_is_editable() : draft only. */
EL_API bool el_lifecycle_is_terminal(el_version_state state);
EL_API bool el_lifecycle_is_promotable(el_version_state state);
EL_API bool el_lifecycle_needs_acknowledgement(el_version_state state);
EL_API bool el_lifecycle_is_editable(el_version_state state);

/* One variant's build-and-validation result. */
typedef struct el_variant_result {
    const char *variant;
    bool ok;
} el_variant_result;

/* el_lifecycle_build_outcome() :
 *  The state a version lands in once every variant's build is terminal:
 *  failed if any required variant failed; else ready if every optional one
 *  passed (or there are none); else partially_ready. Writes *state and
 *  returns EL_OK, or EL_SPEC_INVALID (detail.reason "invalid_build_outcome")
 *  with "at least one variant is required" for an empty required list,
 *  "a variant is either required or optional, not both: ['e2b', 'modal']"
 *  (sorted, detail.variants) for an overlap, or "`x` is listed twice among
 *  the required|optional variants". Borrows both lists. */
EL_API el_code el_lifecycle_build_outcome(el_ctx *ctx, const el_variant_result *required,
                                          size_t n_required, const el_variant_result *optional,
                                          size_t n_optional, el_version_state *state);

/* el_lifecycle_unavailable_variants() :
 *  The optional variants that failed, sorted (byte order), as a malloc'd
 *  array of *n pointers borrowed from `optional` (NULL when *n is 0). Caller
 *  frees the array with el_free(). */
EL_API const char **el_lifecycle_unavailable_variants(const el_variant_result *optional,
                                                      size_t n_optional, size_t *n);

#ifdef __cplusplus
}
#endif
#endif

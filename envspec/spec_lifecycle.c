/* spec_lifecycle.c — the Environment Version lifecycle (el_lifecycle_*): the
 * edge table, the checks behind a transition with their messages, the state
 * predicates, and the outcome of a finished build. Pure rules: nothing here
 * stores a version or knows how a build runs. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util.h"

static const char *const state_names[EL_STATE_COUNT] = {
    "draft", "resolving", "resolved", "building", "validating",
    "ready", "partially_ready", "failed", "deprecated",
};

static const char *const event_names[EL_EVENT_COUNT] = {
    "none", "submit", "lock_produced", "resolution_conflict", "build_requested",
    "builds_terminal", "required_variant_failed", "smoke_test_passed",
    "optional_variant_failed", "validation_failed", "backfill_succeeded", "deprecate", "retry",
};

/* The edges, each with the one event that takes it. */
static const struct spec_edge {
    el_version_state from, to;
    el_lifecycle_event event;
} edges[] = {
    { EL_STATE_DRAFT, EL_STATE_RESOLVING, EL_EVENT_SUBMIT },
    { EL_STATE_RESOLVING, EL_STATE_RESOLVED, EL_EVENT_LOCK_PRODUCED },
    { EL_STATE_RESOLVING, EL_STATE_FAILED, EL_EVENT_RESOLUTION_CONFLICT },
    { EL_STATE_RESOLVED, EL_STATE_BUILDING, EL_EVENT_BUILD_REQUESTED },
    { EL_STATE_BUILDING, EL_STATE_VALIDATING, EL_EVENT_BUILDS_TERMINAL },
    { EL_STATE_BUILDING, EL_STATE_FAILED, EL_EVENT_REQUIRED_VARIANT_FAILED },
    { EL_STATE_VALIDATING, EL_STATE_READY, EL_EVENT_SMOKE_TEST_PASSED },
    { EL_STATE_VALIDATING, EL_STATE_PARTIALLY_READY, EL_EVENT_OPTIONAL_VARIANT_FAILED },
    { EL_STATE_VALIDATING, EL_STATE_FAILED, EL_EVENT_VALIDATION_FAILED },
    { EL_STATE_READY, EL_STATE_DEPRECATED, EL_EVENT_DEPRECATE },
    { EL_STATE_PARTIALLY_READY, EL_STATE_READY, EL_EVENT_BACKFILL_SUCCEEDED },
    { EL_STATE_PARTIALLY_READY, EL_STATE_DEPRECATED, EL_EVENT_DEPRECATE },
    { EL_STATE_FAILED, EL_STATE_BUILDING, EL_EVENT_RETRY },
};
#define N_EDGES (sizeof edges / sizeof edges[0])

static bool state_ok(el_version_state s) { return (unsigned)s < EL_STATE_COUNT; }

const char *el_lifecycle_state_name(el_version_state state)
{
    return state_ok(state) ? state_names[state] : "unknown";
}

int el_lifecycle_state_parse(const char *name, el_version_state *out)
{
    for (int i = 0; i < EL_STATE_COUNT; i++)
        if (strcmp(name, state_names[i]) == 0) {
            *out = (el_version_state)i;
            return 0;
        }
    return -1;
}

const char *el_lifecycle_event_name(el_lifecycle_event event)
{
    return (unsigned)event < EL_EVENT_COUNT ? event_names[event] : "unknown";
}

int el_lifecycle_event_parse(const char *name, el_lifecycle_event *out)
{
    for (int i = 0; i < EL_EVENT_COUNT; i++)
        if (strcmp(name, event_names[i]) == 0) {
            *out = (el_lifecycle_event)i;
            return 0;
        }
    return -1;
}

size_t el_lifecycle_next_states(el_version_state from, el_version_state *out)
{
    size_t n = 0;
    /* Declaration order of the targets, whatever the table's order. */
    for (int to = 0; to < EL_STATE_COUNT; to++)
        for (size_t i = 0; i < N_EDGES; i++)
            if (edges[i].from == from && edges[i].to == (el_version_state)to) {
                out[n++] = (el_version_state)to;
                break;
            }
    return n;
}

static const struct spec_edge *find_edge(el_version_state from, el_version_state to)
{
    for (size_t i = 0; i < N_EDGES; i++)
        if (edges[i].from == from && edges[i].to == to)
            return &edges[i];
    return NULL;
}

bool el_lifecycle_failure_retryable(el_code failure_code, bool occurrence_retryable)
{
    if (failure_code == EL_OK || (unsigned)failure_code >= EL_CODE_COUNT)
        return false;
    switch (el_code_retry(failure_code)) {
    case EL_RETRY_YES:
    case EL_RETRY_LATER:
        return true;
    case EL_RETRY_SOMETIMES:
        return occurrence_retryable;
    case EL_RETRY_NO:
        break;
    }
    return false;
}

/* Adds the refusal's detail: reason, from, to, event and allowed targets. */
static void refusal_detail(el_ctx *ctx, el_version_state from, el_version_state to,
                           el_lifecycle_event event)
{
    el_detail_str(ctx, "reason", "invalid_transition");
    el_detail_str(ctx, "from", el_lifecycle_state_name(from));
    el_detail_str(ctx, "to", el_lifecycle_state_name(to));
    el_detail_str(ctx, "event", el_lifecycle_event_name(event));
    el_version_state next[EL_STATE_COUNT];
    size_t n = state_ok(from) ? el_lifecycle_next_states(from, next) : 0;
    json_object *allowed = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(allowed, json_object_new_string(el_lifecycle_state_name(next[i])));
    el_detail_take(ctx, "allowed", allowed);
}

static el_code refuse_from_failed(el_ctx *ctx, el_version_state to, el_lifecycle_event event,
                                  el_code failure_code, bool occurrence_retryable)
{
    bool retryable = el_lifecycle_failure_retryable(failure_code, occurrence_retryable);
    strbuf why = STRBUF_INIT;
    if (to != EL_STATE_BUILDING)
        sb_addf(&why, "it cannot become %s", el_lifecycle_state_name(to));
    else if (event != EL_EVENT_RETRY)
        sb_addf(&why, "`%s` is not a retry", el_lifecycle_event_name(event));
    else if (failure_code == EL_OK || (unsigned)failure_code >= EL_CODE_COUNT)
        sb_adds(&why, "the failure's code is unknown, so it is not retryable");
    else if (el_code_retry(failure_code) == EL_RETRY_SOMETIMES)
        sb_addf(&why, "this %s failure was not retryable", el_code_name(failure_code));
    else
        sb_addf(&why, "%s is not retryable", el_code_name(failure_code));
    el_fail(ctx, EL_SPEC_INVALID,
            "a failed version is reopened only by a retry of a retryable failure; %s", why.buf);
    sb_release(&why);
    refusal_detail(ctx, EL_STATE_FAILED, to, event);
    el_detail_str(ctx, "failureCode", el_code_name(failure_code));
    el_detail_take(ctx, "retryable", json_object_new_boolean(retryable));
    return EL_SPEC_INVALID;
}

el_code el_lifecycle_transition(el_ctx *ctx, el_version_state from, el_version_state to,
                                el_lifecycle_event event, el_code failure_code,
                                bool occurrence_retryable)
{
    if (!state_ok(from) || !state_ok(to) || (unsigned)event >= EL_EVENT_COUNT)
        return el_fail(ctx, EL_USAGE, "unknown lifecycle state or event");
    if (from == EL_STATE_FAILED) {
        if (to == EL_STATE_BUILDING && event == EL_EVENT_RETRY &&
            el_lifecycle_failure_retryable(failure_code, occurrence_retryable))
            return EL_OK;
        return refuse_from_failed(ctx, to, event, failure_code, occurrence_retryable);
    }
    const struct spec_edge *e = find_edge(from, to);
    if (e && (event == EL_EVENT_NONE || event == e->event))
        return EL_OK;
    if (e) {
        el_fail(ctx, EL_SPEC_INVALID, "a %s version becomes %s on `%s`, not on `%s`",
                el_lifecycle_state_name(from), el_lifecycle_state_name(to),
                el_lifecycle_event_name(e->event), el_lifecycle_event_name(event));
        refusal_detail(ctx, from, to, event);
        return EL_SPEC_INVALID;
    }
    el_version_state next[EL_STATE_COUNT];
    size_t n = el_lifecycle_next_states(from, next);
    if (n == 0) {
        el_fail(ctx, EL_SPEC_INVALID, "a %s version cannot change state", el_lifecycle_state_name(from));
    } else {
        strbuf list = STRBUF_INIT;
        for (size_t i = 0; i < n; i++)
            sb_addf(&list, "%s%s", i ? ", " : "", el_lifecycle_state_name(next[i]));
        el_fail(ctx, EL_SPEC_INVALID, "a %s version cannot become %s; it can become %s",
                el_lifecycle_state_name(from), el_lifecycle_state_name(to), list.buf);
        sb_release(&list);
    }
    refusal_detail(ctx, from, to, event);
    return EL_SPEC_INVALID;
}

bool el_lifecycle_is_terminal(el_version_state s)
{
    return s == EL_STATE_FAILED || s == EL_STATE_DEPRECATED;
}

bool el_lifecycle_is_promotable(el_version_state s)
{
    return s == EL_STATE_READY || s == EL_STATE_PARTIALLY_READY;
}

bool el_lifecycle_needs_acknowledgement(el_version_state s) { return s == EL_STATE_PARTIALLY_READY; }

bool el_lifecycle_is_editable(el_version_state s) { return s == EL_STATE_DRAFT; }

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static el_code outcome_failure(el_ctx *ctx, const char *msg)
{
    el_fail(ctx, EL_SPEC_INVALID, "%s", msg);
    el_detail_str(ctx, "reason", "invalid_build_outcome");
    return EL_SPEC_INVALID;
}

static el_code check_no_repeat(el_ctx *ctx, const el_variant_result *v, size_t n, const char *group)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(v[i].variant, v[j].variant) == 0) {
                char *msg = xasprintf("`%s` is listed twice among the %s variants", v[i].variant, group);
                outcome_failure(ctx, msg);
                free(msg);
                el_detail_str(ctx, "variant", v[i].variant);
                return EL_SPEC_INVALID;
            }
    return EL_OK;
}

el_code el_lifecycle_build_outcome(el_ctx *ctx, const el_variant_result *required, size_t n_required,
                                   const el_variant_result *optional, size_t n_optional,
                                   el_version_state *state)
{
    if (n_required == 0)
        return outcome_failure(ctx, "at least one variant is required");
    if (check_no_repeat(ctx, required, n_required, "required") != EL_OK ||
        check_no_repeat(ctx, optional, n_optional, "optional") != EL_OK)
        return EL_SPEC_INVALID;
    ptrvec both = PTRVEC_INIT;
    for (size_t i = 0; i < n_required; i++)
        for (size_t j = 0; j < n_optional; j++)
            if (strcmp(required[i].variant, optional[j].variant) == 0)
                ptrvec_push(&both, (void *)required[i].variant);
    if (both.len) {
        qsort(both.items, both.len, sizeof *both.items, cmp_str_ptr);
        /* Written as the reference prints a sorted Python list. */
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "a variant is either required or optional, not both: [");
        json_object *list = json_object_new_array();
        for (size_t i = 0; i < both.len; i++) {
            sb_addf(&sb, "%s'%s'", i ? ", " : "", (const char *)both.items[i]);
            json_object_array_add(list, json_object_new_string(both.items[i]));
        }
        sb_addc(&sb, ']');
        outcome_failure(ctx, sb.buf);
        el_detail_take(ctx, "variants", list);
        sb_release(&sb);
        ptrvec_release(&both);
        return EL_SPEC_INVALID;
    }
    *state = EL_STATE_READY;
    for (size_t j = 0; j < n_optional; j++)
        if (!optional[j].ok)
            *state = EL_STATE_PARTIALLY_READY;
    for (size_t i = 0; i < n_required; i++)
        if (!required[i].ok)
            *state = EL_STATE_FAILED;
    return EL_OK;
}

const char **el_lifecycle_unavailable_variants(const el_variant_result *optional, size_t n_optional,
                                               size_t *n)
{
    *n = 0;
    for (size_t j = 0; j < n_optional; j++)
        *n += !optional[j].ok;
    if (*n == 0)
        return NULL;
    const char **out = xcalloc(*n, sizeof *out);
    size_t k = 0;
    for (size_t j = 0; j < n_optional; j++)
        if (!optional[j].ok)
            out[k++] = optional[j].variant;
    qsort(out, *n, sizeof *out, cmp_str_ptr);
    return out;
}

/* test_lifecycle.c — the lifecycle rules: every allowed edge passes (with its
 * event and with none), every other pair of states is refused with the exact
 * message and detail, the failed -> building retry rule against the code
 * table, the state predicates, names, and build outcomes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "util.h"

#define S(x) EL_STATE_##x

static const struct { el_version_state from, to; el_lifecycle_event event; } edges[] = {
    { S(DRAFT), S(RESOLVING), EL_EVENT_SUBMIT },
    { S(RESOLVING), S(RESOLVED), EL_EVENT_LOCK_PRODUCED },
    { S(RESOLVING), S(FAILED), EL_EVENT_RESOLUTION_CONFLICT },
    { S(RESOLVED), S(BUILDING), EL_EVENT_BUILD_REQUESTED },
    { S(BUILDING), S(VALIDATING), EL_EVENT_BUILDS_TERMINAL },
    { S(BUILDING), S(FAILED), EL_EVENT_REQUIRED_VARIANT_FAILED },
    { S(VALIDATING), S(READY), EL_EVENT_SMOKE_TEST_PASSED },
    { S(VALIDATING), S(PARTIALLY_READY), EL_EVENT_OPTIONAL_VARIANT_FAILED },
    { S(VALIDATING), S(FAILED), EL_EVENT_VALIDATION_FAILED },
    { S(READY), S(DEPRECATED), EL_EVENT_DEPRECATE },
    { S(PARTIALLY_READY), S(READY), EL_EVENT_BACKFILL_SUCCEEDED },
    { S(PARTIALLY_READY), S(DEPRECATED), EL_EVENT_DEPRECATE },
};
#define N_EDGES (sizeof edges / sizeof edges[0])

/* What each state may become, as the messages list it. */
static const char *const allowed_text[EL_STATE_COUNT] = {
    "resolving", "resolved, failed", "building", "validating, failed",
    "ready, partially_ready, failed", "deprecated", "ready, deprecated", "building", "",
};

static bool is_edge(el_version_state from, el_version_state to)
{
    for (size_t i = 0; i < N_EDGES; i++)
        if (edges[i].from == from && edges[i].to == to)
            return true;
    return from == S(FAILED) && to == S(BUILDING);
}

static const char *detail_str(el_ctx *ctx, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(el_ctx_detail(ctx), key, &v))
        return NULL;
    return json_object_get_string(v);
}

static void test_edges(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    for (size_t i = 0; i < N_EDGES; i++) {
        assert_int_equal(el_lifecycle_transition(ctx, edges[i].from, edges[i].to, edges[i].event,
                                                 EL_OK, false), EL_OK);
        assert_int_equal(el_lifecycle_transition(ctx, edges[i].from, edges[i].to, EL_EVENT_NONE,
                                                 EL_OK, false), EL_OK);
        /* Any other stated event is refused, naming the edge's own. */
        el_lifecycle_event other = edges[i].event == EL_EVENT_RETRY ? EL_EVENT_SUBMIT : EL_EVENT_RETRY;
        assert_int_equal(el_lifecycle_transition(ctx, edges[i].from, edges[i].to, other, EL_OK, false),
                         EL_SPEC_INVALID);
        char want[256];
        snprintf(want, sizeof want, "a %s version becomes %s on `%s`, not on `%s`",
                 el_lifecycle_state_name(edges[i].from), el_lifecycle_state_name(edges[i].to),
                 el_lifecycle_event_name(edges[i].event), el_lifecycle_event_name(other));
        assert_string_equal(el_ctx_message(ctx), want);
    }
    /* failed -> building with a retry of an always-retryable failure. */
    assert_int_equal(el_lifecycle_transition(ctx, S(FAILED), S(BUILDING), EL_EVENT_RETRY,
                                             EL_BUILD_TIMEOUT, false), EL_OK);
    el_ctx_free(ctx);
}

static void test_refusals(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    size_t refused = 0;
    for (int f = 0; f < EL_STATE_COUNT; f++)
        for (int t = 0; t < EL_STATE_COUNT; t++) {
            el_version_state from = (el_version_state)f, to = (el_version_state)t;
            if (is_edge(from, to) || from == S(FAILED))
                continue;
            refused++;
            assert_int_equal(el_lifecycle_transition(ctx, from, to, EL_EVENT_NONE, EL_OK, false),
                             EL_SPEC_INVALID);
            char want[256];
            if (from == S(DEPRECATED))
                snprintf(want, sizeof want, "a deprecated version cannot change state");
            else
                snprintf(want, sizeof want, "a %s version cannot become %s; it can become %s",
                         el_lifecycle_state_name(from), el_lifecycle_state_name(to), allowed_text[from]);
            assert_string_equal(el_ctx_message(ctx), want);
            assert_string_equal(detail_str(ctx, "reason"), "invalid_transition");
            assert_string_equal(detail_str(ctx, "from"), el_lifecycle_state_name(from));
            assert_string_equal(detail_str(ctx, "to"), el_lifecycle_state_name(to));
            assert_false(el_ctx_retryable(ctx));
        }
    assert_int_equal(refused, 81 - 9 - 12); /* failed's row is test_retry's */

    /* detail.allowed lists the targets. */
    el_lifecycle_transition(ctx, S(VALIDATING), S(DRAFT), EL_EVENT_NONE, EL_OK, false);
    json_object *allowed = NULL;
    assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "allowed", &allowed));
    assert_int_equal(json_object_array_length(allowed), 3);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(allowed, 1)), "partially_ready");
    el_lifecycle_transition(ctx, S(DEPRECATED), S(READY), EL_EVENT_NONE, EL_OK, false);
    assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "allowed", &allowed));
    assert_int_equal(json_object_array_length(allowed), 0);

    assert_int_equal(el_lifecycle_transition(ctx, EL_STATE_COUNT, S(DRAFT), EL_EVENT_NONE, EL_OK, false),
                     EL_USAGE);
    el_ctx_free(ctx);
}

static void expect_failed(el_version_state to, el_lifecycle_event ev, el_code code, bool occ,
                          const char *tail)
{
    el_ctx *ctx = el_ctx_new();
    assert_int_equal(el_lifecycle_transition(ctx, S(FAILED), to, ev, code, occ), EL_SPEC_INVALID);
    char want[256];
    snprintf(want, sizeof want, "a failed version is reopened only by a retry of a retryable failure; %s", tail);
    assert_string_equal(el_ctx_message(ctx), want);
    assert_string_equal(detail_str(ctx, "reason"), "invalid_transition");
    assert_string_equal(detail_str(ctx, "failureCode"), el_code_name(code));
    el_ctx_free(ctx);
}

static void test_retry(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    /* Every code: retryable per the table, SOMETIMES per the occurrence. */
    for (int c = 0; c < EL_CODE_COUNT; c++) {
        el_retry r = el_code_retry((el_code)c);
        for (int occ = 0; occ < 2; occ++) {
            bool want = c != EL_OK && (r == EL_RETRY_YES || r == EL_RETRY_LATER ||
                                       (r == EL_RETRY_SOMETIMES && occ));
            assert_int_equal(el_lifecycle_failure_retryable((el_code)c, occ), want);
            el_code got = el_lifecycle_transition(ctx, S(FAILED), S(BUILDING), EL_EVENT_RETRY,
                                                  (el_code)c, occ);
            assert_int_equal(got, want ? EL_OK : EL_SPEC_INVALID);
        }
    }
    assert_int_equal(el_lifecycle_transition(ctx, S(FAILED), S(BUILDING), EL_EVENT_RETRY,
                                             EL_PACKAGE_NOT_FOUND, true), EL_OK);
    assert_int_equal(el_lifecycle_transition(ctx, S(FAILED), S(BUILDING), EL_EVENT_RETRY,
                                             EL_ARTIFACT_MISSING, false), EL_OK);
    assert_int_equal(el_lifecycle_transition(ctx, S(FAILED), S(BUILDING), EL_EVENT_RETRY,
                                             EL_QUOTA_EXCEEDED, false), EL_OK);
    assert_false(el_lifecycle_failure_retryable(EL_CODE_COUNT, true));
    el_ctx_free(ctx);

    expect_failed(S(BUILDING), EL_EVENT_RETRY, EL_BUILD_FAILED, true, "DL_ENV_BUILD_FAILED is not retryable");
    expect_failed(S(BUILDING), EL_EVENT_RETRY, EL_PACKAGE_NOT_FOUND, false,
                  "this DL_ENV_PACKAGE_NOT_FOUND failure was not retryable");
    expect_failed(S(BUILDING), EL_EVENT_RETRY, EL_OK, true, "the failure's code is unknown, so it is not retryable");
    expect_failed(S(BUILDING), EL_EVENT_NONE, EL_BUILD_TIMEOUT, false, "`none` is not a retry");
    expect_failed(S(BUILDING), EL_EVENT_BUILD_REQUESTED, EL_BUILD_TIMEOUT, false, "`build_requested` is not a retry");
    for (int t = 0; t < EL_STATE_COUNT; t++) {
        if (t == S(BUILDING))
            continue;
        char tail[64];
        snprintf(tail, sizeof tail, "it cannot become %s", el_lifecycle_state_name((el_version_state)t));
        expect_failed((el_version_state)t, EL_EVENT_RETRY, EL_BUILD_TIMEOUT, false, tail);
    }
}

static void test_predicates(void **state)
{
    (void)state;
    for (int i = 0; i < EL_STATE_COUNT; i++) {
        el_version_state s = (el_version_state)i;
        assert_int_equal(el_lifecycle_is_terminal(s), s == S(FAILED) || s == S(DEPRECATED));
        assert_int_equal(el_lifecycle_is_promotable(s), s == S(READY) || s == S(PARTIALLY_READY));
        assert_int_equal(el_lifecycle_needs_acknowledgement(s), s == S(PARTIALLY_READY));
        assert_int_equal(el_lifecycle_is_editable(s), s == S(DRAFT));
    }
    el_version_state next[EL_STATE_COUNT];
    assert_int_equal(el_lifecycle_next_states(S(DEPRECATED), next), 0);
    assert_int_equal(el_lifecycle_next_states(S(FAILED), next), 1);
    assert_int_equal(next[0], S(BUILDING));
    assert_int_equal(el_lifecycle_next_states(S(PARTIALLY_READY), next), 2);
    assert_int_equal(next[0], S(READY));
    assert_int_equal(next[1], S(DEPRECATED));
}

static void test_names(void **state)
{
    (void)state;
    const char *names[] = { "draft", "resolving", "resolved", "building", "validating",
                            "ready", "partially_ready", "failed", "deprecated" };
    for (int i = 0; i < EL_STATE_COUNT; i++) {
        el_version_state s;
        assert_string_equal(el_lifecycle_state_name((el_version_state)i), names[i]);
        assert_int_equal(el_lifecycle_state_parse(names[i], &s), 0);
        assert_int_equal(s, i);
    }
    el_version_state s = S(DRAFT);
    assert_int_equal(el_lifecycle_state_parse("Ready", &s), -1);
    assert_int_equal(el_lifecycle_state_parse("", &s), -1);
    assert_int_equal(s, S(DRAFT));
    assert_string_equal(el_lifecycle_state_name(EL_STATE_COUNT), "unknown");
    for (int i = 0; i < EL_EVENT_COUNT; i++) {
        el_lifecycle_event e;
        assert_int_equal(el_lifecycle_event_parse(el_lifecycle_event_name((el_lifecycle_event)i), &e), 0);
        assert_int_equal(e, i);
    }
    el_lifecycle_event e;
    assert_int_equal(el_lifecycle_event_parse("retry", &e), 0);
    assert_int_equal(e, EL_EVENT_RETRY);
    assert_int_equal(el_lifecycle_event_parse("Retry", &e), -1);
}

static el_version_state outcome(const el_variant_result *req, size_t nr, const el_variant_result *opt, size_t no)
{
    el_ctx *ctx = el_ctx_new();
    el_version_state s = EL_STATE_COUNT;
    assert_int_equal(el_lifecycle_build_outcome(ctx, req, nr, opt, no, &s), EL_OK);
    el_ctx_free(ctx);
    return s;
}

static void outcome_error(const el_variant_result *req, size_t nr, const el_variant_result *opt, size_t no,
                          const char *msg)
{
    el_ctx *ctx = el_ctx_new();
    el_version_state s = EL_STATE_COUNT;
    assert_int_equal(el_lifecycle_build_outcome(ctx, req, nr, opt, no, &s), EL_SPEC_INVALID);
    assert_int_equal(s, EL_STATE_COUNT);
    assert_string_equal(el_ctx_message(ctx), msg);
    assert_string_equal(detail_str(ctx, "reason"), "invalid_build_outcome");
    el_ctx_free(ctx);
}

static void test_build_outcome(void **state)
{
    (void)state;
    const el_variant_result dl_ok[] = { { "datalayer", true } };
    const el_variant_result dl_bad[] = { { "datalayer", false } };
    const el_variant_result two_ok[] = { { "datalayer", true }, { "e2b", true } };
    const el_variant_result two_mixed[] = { { "datalayer", true }, { "e2b", false } };
    const el_variant_result opt_ok[] = { { "modal", true }, { "daytona", true } };
    const el_variant_result opt_mixed[] = { { "modal", false }, { "daytona", true }, { "e2b", false } };
    const el_variant_result opt_bad[] = { { "modal", false }, { "daytona", false } };

    assert_int_equal(outcome(dl_ok, 1, NULL, 0), S(READY));
    assert_int_equal(outcome(dl_bad, 1, NULL, 0), S(FAILED));
    assert_int_equal(outcome(two_ok, 2, opt_ok, 2), S(READY));
    assert_int_equal(outcome(two_mixed, 2, opt_ok, 2), S(FAILED));
    assert_int_equal(outcome(dl_ok, 1, opt_mixed + 1, 1), S(READY));
    assert_int_equal(outcome(dl_ok, 1, opt_bad, 2), S(PARTIALLY_READY));
    assert_int_equal(outcome(dl_bad, 1, opt_bad, 2), S(FAILED));
    assert_int_equal(outcome(dl_ok, 1, opt_mixed, 2), S(PARTIALLY_READY));

    outcome_error(NULL, 0, opt_ok, 2, "at least one variant is required");
    outcome_error(NULL, 0, NULL, 0, "at least one variant is required");
    const el_variant_result req_overlap[] = { { "modal", true }, { "datalayer", true }, { "e2b", true } };
    outcome_error(req_overlap, 3, opt_mixed, 3,
                  "a variant is either required or optional, not both: ['e2b', 'modal']");
    const el_variant_result twice[] = { { "e2b", true }, { "e2b", false } };
    outcome_error(twice, 2, NULL, 0, "`e2b` is listed twice among the required variants");
    outcome_error(dl_ok, 1, twice, 2, "`e2b` is listed twice among the optional variants");

    el_ctx *ctx = el_ctx_new();
    el_version_state s;
    el_lifecycle_build_outcome(ctx, req_overlap, 3, opt_mixed, 3, &s);
    json_object *vars = NULL;
    assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "variants", &vars));
    assert_int_equal(json_object_array_length(vars), 2);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(vars, 0)), "e2b");
    el_ctx_free(ctx);

    size_t n = 99;
    const char **un = el_lifecycle_unavailable_variants(opt_mixed, 3, &n);
    assert_int_equal(n, 2);
    assert_string_equal(un[0], "e2b");
    assert_string_equal(un[1], "modal");
    el_free(un);
    assert_null(el_lifecycle_unavailable_variants(opt_ok, 2, &n));
    assert_int_equal(n, 0);
    assert_null(el_lifecycle_unavailable_variants(NULL, 0, &n));
    assert_int_equal(n, 0);
}

int main(int argc, char **argv)
{
    static const struct { const char *group; struct CMUnitTest test; } all[] = {
        { "edges", cmocka_unit_test(test_edges) },
        { "refusals", cmocka_unit_test(test_refusals) },
        { "retry", cmocka_unit_test(test_retry) },
        { "predicates", cmocka_unit_test(test_predicates) },
        { "names", cmocka_unit_test(test_names) },
        { "build_outcome", cmocka_unit_test(test_build_outcome) },
    };
    struct CMUnitTest chosen[sizeof all / sizeof all[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (argc < 2 || strcmp(argv[1], all[i].group) == 0)
            chosen[n++] = all[i].test;
    if (n == 0) {
        fprintf(stderr, "unknown group %s\n", argv[1]);
        return 2;
    }
    return _cmocka_run_group_tests("lifecycle", chosen, n, NULL, NULL);
}

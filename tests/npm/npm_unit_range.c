/* npm_unit_range.c — unit tests for npm ranges: desugaring (validRange
 * strings from node-semver's documentation), satisfies with prerelease
 * gating, max/minSatisfying, npm_filter, and the comparator accessors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "semver.h"

static void check_range(const char *in, unsigned opts, const char *want)
{
    char *got = npm_valid_range(in, opts);
    if (want == NULL) {
        if (got)
            fail_msg("validRange(%s, %u) = %s, want null", in, opts, got);
    } else {
        if (!got)
            fail_msg("validRange(%s, %u) = null, want %s", in, opts, want);
        assert_string_equal(got, want);
    }
    free(got);
}

static void test_desugar(void **state)
{
    (void)state;
    check_range("1.2.3 - 2.3.4", 0, ">=1.2.3 <=2.3.4");
    check_range("1.2 - 2.3.4", 0, ">=1.2.0 <=2.3.4");
    check_range("1.2.3 - 2.3", 0, ">=1.2.3 <2.4.0-0");
    check_range("1.2.3 - 2", 0, ">=1.2.3 <3.0.0-0");
    check_range("*", 0, "*");
    check_range("", 0, "*");
    check_range("1.x", 0, ">=1.0.0 <2.0.0-0");
    check_range("1.2.*", 0, ">=1.2.0 <1.3.0-0");
    check_range("~1.2.3", 0, ">=1.2.3 <1.3.0-0");
    check_range("~1", 0, ">=1.0.0 <2.0.0-0");
    check_range("~> 1.2", 0, ">=1.2.0 <1.3.0-0");
    check_range("^1.2.3", 0, ">=1.2.3 <2.0.0-0");
    check_range("^0.2.3", 0, ">=0.2.3 <0.3.0-0");
    check_range("^0.0.3", 0, ">=0.0.3 <0.0.4-0");
    check_range("^0.0.x", 0, "<0.1.0-0"); /* >=0.0.0 means any, dropped */
    check_range("^0.x", 0, "<1.0.0-0");
    check_range("^1.2.3-beta.2", 0, ">=1.2.3-beta.2 <2.0.0-0");
    check_range(">=1.2.3 <2", 0, ">=1.2.3 <2.0.0-0");
    check_range("> 1.2.3  < 2", 0, ">1.2.3 <2.0.0-0");
    check_range(">1.x", 0, ">=2.0.0");
    check_range("<=1.2", 0, "<1.3.0-0");
    check_range(">=0.0.0", 0, "*");
    check_range("<0.0.0-0 || 1.2.3", 0, "1.2.3");
    check_range("1.2.3 || *", 0, "*");
    check_range("1.2.7 || >=1.2.9 <2.0.0", 0, "1.2.7||>=1.2.9 <2.0.0");
    check_range("~1.2", NPM_INCLUDE_PRERELEASE, ">=1.2.0-0 <1.3.0-0");
    check_range("latest", 0, NULL);
    check_range("x.1", 0, NULL);
    check_range("= 1.2.3 - 2", 0, NULL);
    /* loose mode drops what it cannot read */
    check_range("= 1.2.3 - 2", NPM_LOOSE, "1.2.3 <3.0.0-0");
    check_range("1.2.3 foo", NPM_LOOSE, "1.2.3");
    check_range("1.2.3 foo", 0, NULL);
}

static void test_satisfies(void **state)
{
    (void)state;
    assert_true(npm_satisfies("1.2.4", "^1.2.3", 0));
    assert_false(npm_satisfies("2.0.0", "^1.2.3", 0));
    assert_false(npm_satisfies("2.0.0-alpha", "^1.2.3", 0));
    /* prerelease gate: same tuple with a prerelease in the set */
    assert_true(npm_satisfies("1.2.3-beta.4", "^1.2.3-beta.2", 0));
    assert_false(npm_satisfies("1.2.4-beta.1", "^1.2.3-beta.2", 0));
    assert_true(npm_satisfies("1.2.4-beta.1", "^1.2.3-beta.2", NPM_INCLUDE_PRERELEASE));
    assert_false(npm_satisfies("1.2.3-beta", "*", 0));
    assert_true(npm_satisfies("1.2.3-beta", "*", NPM_INCLUDE_PRERELEASE));
    assert_false(npm_satisfies("v1.2.3", "1.2.3", 0) == false);
    assert_false(npm_satisfies("=1.2.3", "1.2.3", 0));
    assert_true(npm_satisfies("=1.2.3", "1.2.3", NPM_LOOSE));
    assert_false(npm_satisfies("1.2.3", "not a range", 0));
    assert_false(npm_satisfies("", "*", 0));
}

static void test_pick(void **state)
{
    (void)state;
    const char *v[] = { "1.2.3", "1.2.4", "1.3.0", "2.0.0", "bogus", "v1.3.0" };
    assert_int_equal(npm_max_satisfying(v, 6, "~1.2", 0), 1);
    assert_int_equal(npm_max_satisfying(v, 6, "^1", 0), 2); /* tie keeps the first */
    assert_int_equal(npm_min_satisfying(v, 6, ">1.2.3", 0), 1);
    assert_int_equal(npm_max_satisfying(v, 6, ">5", 0), -1);
    assert_int_equal(npm_max_satisfying(v, 6, "junk", 0), -1);
}

static void test_filter(void **state)
{
    (void)state;
    const char *v[] = { "1.0.0", "1.5.0", "2.0.0-rc.1", "2.0.0", "x" };
    bool keep[5];
    char *err = NULL;
    assert_int_equal(npm_filter(">=1.5 <3", v, 5, keep, &err), 0);
    assert_false(keep[0]);
    assert_true(keep[1]);
    assert_false(keep[2]);
    assert_true(keep[3]);
    assert_false(keep[4]);
    assert_int_equal(npm_filter(">=1.5 <", v, 5, keep, &err), -1);
    assert_non_null(err);
    free(err);
}

static void test_accessors(void **state)
{
    (void)state;
    npm_range *r;
    char *err = NULL;
    assert_int_equal(npm_range_parse("^1.2.3 || 0.x", 0, &r, &err), 0);
    assert_int_equal(npm_range_nsets(r), 2);
    assert_int_equal(npm_range_set_size(r, 0), 2);
    npm_comparator c = npm_range_comparator(r, 0, 1);
    assert_int_equal(c.op, NPM_OP_LT);
    assert_string_equal(c.value, "<2.0.0-0");
    assert_int_equal(c.semver->major, 2);
    assert_int_equal(c.semver->npre, 1);
    assert_string_equal(npm_range_format(r), ">=1.2.3 <2.0.0-0||<1.0.0-0");
    npm_semver v;
    assert_int_equal(npm_semver_parse(&v, "0.9.1", 0, NULL), 0);
    assert_true(npm_range_test(r, &v));
    npm_semver_release(&v);
    npm_range_free(r);
    npm_range_free(NULL);
    assert_int_equal(npm_range_parse("*", 0, &r, &err), 0);
    c = npm_range_comparator(r, 0, 0);
    assert_int_equal(c.op, NPM_OP_ANY);
    assert_null(c.semver);
    npm_range_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_desugar), cmocka_unit_test(test_satisfies),
        cmocka_unit_test(test_pick),    cmocka_unit_test(test_filter),
        cmocka_unit_test(test_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

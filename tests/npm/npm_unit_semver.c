/* npm_unit_semver.c — unit tests for npm version parsing and comparison
 * (the cases node-semver documents, plus the JavaScript corners: length in
 * UTF-16 units, Unicode trimming, MAX_SAFE_INTEGER, double comparison). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "semver.h"

static void check_valid(const char *in, unsigned opts, const char *want)
{
    char *got = npm_valid(in, opts);
    if (want == NULL) {
        if (got)
            fail_msg("valid(%s, %u) = %s, want null", in, opts, got);
    } else {
        if (!got)
            fail_msg("valid(%s, %u) = null, want %s", in, opts, want);
        assert_string_equal(got, want);
    }
    free(got);
}

static void test_valid_strict(void **state)
{
    (void)state;
    check_valid("1.2.3", 0, "1.2.3");
    check_valid("v1.2.3", 0, "1.2.3");
    check_valid("  1.2.3\t", 0, "1.2.3");
    check_valid("\xc2\xa0" "1.2.3", 0, "1.2.3");
    check_valid("=1.2.3", 0, NULL);
    check_valid("01.2.3", 0, NULL);
    check_valid("1.2.3-01", 0, NULL);
    check_valid("1.2.3-0a", 0, "1.2.3-0a");
    check_valid("1.2.3-alpha.1+build.7", 0, "1.2.3-alpha.1");
    check_valid("1.2", 0, NULL);
    check_valid("1.2.3.4", 0, NULL);
    check_valid("1.2.3beta", 0, NULL);
    check_valid("9007199254740991.0.0", 0, "9007199254740991.0.0");
    check_valid("9007199254740992.0.0", 0, NULL);
    check_valid("", 0, NULL);
}

static void test_valid_loose(void **state)
{
    (void)state;
    check_valid("=v1.2.3", NPM_LOOSE, "1.2.3");
    check_valid("v 1.2.3", NPM_LOOSE, "1.2.3");
    check_valid("01.02.03", NPM_LOOSE, "1.2.3");
    check_valid("1.2.3beta", NPM_LOOSE, "1.2.3-beta");
    check_valid("1.2.3-01", NPM_LOOSE, "1.2.3-1");
    /* the patch gives digits back to an unhyphenated prerelease */
    check_valid("1.2.33.4", NPM_LOOSE, "1.2.3-3.4");
    /* a lone hyphen is an identifier in loose mode */
    check_valid("1.2.3-", NPM_LOOSE, "1.2.3--");
    check_valid("1.2.3-.a", NPM_LOOSE, "1.2.3--.a");
}

static void test_length_limit(void **state)
{
    (void)state;
    char buf[400];
    /* 251 spaces + "1.2.3" = 256 units: fine; one more is too long */
    memset(buf, ' ', 251);
    memcpy(buf + 251, "1.2.3", 6);
    check_valid(buf, 0, "1.2.3");
    memset(buf, ' ', 252);
    memcpy(buf + 252, "1.2.3", 6);
    check_valid(buf, 0, NULL);
    /* U+3000 is 3 bytes but one UTF-16 unit */
    buf[0] = '\0';
    for (int i = 0; i < 80; i++)
        strcat(buf, "\xe3\x80\x80");
    strcat(buf, "1.2.3");
    check_valid(buf, 0, "1.2.3");
}

static int cmp(const char *a, const char *b, unsigned opts)
{
    npm_semver x, y;
    assert_int_equal(npm_semver_parse(&x, a, opts, NULL), 0);
    assert_int_equal(npm_semver_parse(&y, b, opts, NULL), 0);
    int r = npm_semver_compare(&x, &y);
    assert_int_equal(npm_semver_rcompare(&y, &x), r);
    npm_semver_release(&x);
    npm_semver_release(&y);
    return r;
}

static void test_compare(void **state)
{
    (void)state;
    const char *order[] = { "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
                            "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1",
                            "1.1.0", "2.0.0" };
    size_t n = sizeof order / sizeof *order;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            assert_int_equal(cmp(order[i], order[j], 0), i < j ? -1 : i > j ? 1 : 0);
    assert_int_equal(cmp("1.2.3+a", "1.2.3+b", 0), 0);
    assert_int_equal(cmp("1.2.3-1", "1.2.3-a", 0), -1);
    /* too large for a number: compared as doubles, equal doubles stop */
    assert_int_equal(cmp("1.0.0-9007199254740993.a", "1.0.0-9007199254740992.b", 0), 0);
    assert_int_equal(cmp("1.0.0-9007199254740991", "1.0.0-5", 0), 1);
}

static void test_compare_build(void **state)
{
    (void)state;
    npm_semver x, y;
    assert_int_equal(npm_semver_parse(&x, "1.2.3+build.2", 0, NULL), 0);
    assert_int_equal(npm_semver_parse(&y, "1.2.3+build.10", 0, NULL), 0);
    assert_int_equal(npm_semver_compare_build(&x, &y), -1);
    assert_int_equal(x.nbuild, 2);
    assert_string_equal(x.build[1], "2");
    npm_semver_release(&x);
    npm_semver_release(&y);
}

static void test_cmp_str(void **state)
{
    (void)state;
    int c = 7;
    char *err = NULL;
    assert_int_equal(npm_version_cmp_str("v1.2.3", "=1.2.4", &c, &err), 0);
    assert_int_equal(c, -1);
    assert_int_equal(npm_version_cmp_str("nope", "1.2.3", &c, &err), -1);
    assert_non_null(err);
    free(err);
    err = NULL;
    assert_int_equal(npm_version_cmp_str("1.2.3", "1.2", &c, &err), -2);
    assert_non_null(err);
    free(err);
}

static void test_clean(void **state)
{
    (void)state;
    char *s = npm_clean("  =v1.2.3  ", 0);
    assert_string_equal(s, "1.2.3");
    free(s);
    assert_null(npm_clean("~1.2.3", 0));
}

static void test_idents(void **state)
{
    (void)state;
    npm_semver v;
    assert_int_equal(npm_semver_parse(&v, "1.2.3-alpha.007.9007199254740992", NPM_LOOSE, NULL), 0);
    assert_int_equal(v.npre, 3);
    assert_false(v.pre[0].numeric);
    assert_true(v.pre[1].numeric);
    assert_int_equal(v.pre[1].num, 7);
    assert_false(v.pre[2].numeric);
    assert_true(v.pre[2].digits);
    assert_string_equal(v.version, "1.2.3-alpha.7.9007199254740992");
    npm_semver_release(&v);
    npm_semver_release(&v); /* released twice is fine */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_strict), cmocka_unit_test(test_valid_loose),
        cmocka_unit_test(test_length_limit), cmocka_unit_test(test_compare),
        cmocka_unit_test(test_compare_build), cmocka_unit_test(test_cmp_str),
        cmocka_unit_test(test_clean),        cmocka_unit_test(test_idents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

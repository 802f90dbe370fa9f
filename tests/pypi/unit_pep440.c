/* unit_pep440.c — cmocka tests of the PEP 440 API in indexes/pypi: the
 * object accessors, ordering, specifier sets and the string conveniences
 * indexes/version.c calls. Exhaustive agreement with packaging is the
 * differential suite's job; these pin the contracts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pep440.h"

static void test_parse_normalize(void **state)
{
    (void)state;
    pypi_version *v = pypi_version_parse("  V1!01.02.0-ALPHA_3.r-4-DEV.5+Ubuntu-01.X \n", NULL);
    assert_non_null(v);
    assert_string_equal(pypi_version_str(v), "1!1.2.0a3.post4.dev5+ubuntu.1.x");
    assert_string_equal(pypi_version_public(v), "1!1.2.0a3.post4.dev5");
    assert_string_equal(pypi_version_base(v), "1!1.2.0");
    assert_string_equal(pypi_version_local(v), "ubuntu.1.x");
    assert_string_equal(pypi_version_epoch(v), "1");
    assert_int_equal(pypi_version_release_len(v), 3);
    assert_string_equal(pypi_version_release_at(v, 1), "2");
    assert_null(pypi_version_release_at(v, 3));
    const char *pn;
    assert_int_equal(pypi_version_pre(v, &pn), PYPI_PRE_A);
    assert_string_equal(pn, "3");
    assert_string_equal(pypi_version_post(v), "4");
    assert_string_equal(pypi_version_dev(v), "5");
    assert_true(pypi_version_is_prerelease(v));
    assert_true(pypi_version_is_devrelease(v));
    assert_true(pypi_version_is_postrelease(v));
    pypi_version *d = pypi_version_dup(v);
    assert_int_equal(pypi_version_cmp(v, d), 0);
    pypi_version_free(d);
    pypi_version_free(v);

    v = pypi_version_parse("1.0-1", NULL);
    assert_string_equal(pypi_version_str(v), "1.0.post1");
    assert_false(pypi_version_is_prerelease(v));
    assert_null(pypi_version_local(v));
    pypi_version_free(v);
    v = pypi_version_parse("1.0c", NULL);
    assert_string_equal(pypi_version_str(v), "1.0rc0");
    pypi_version_free(v);
    v = pypi_version_parse("123456789012345678901234567890", NULL);
    assert_int_equal(pypi_num_u64(pypi_version_release_at(v, 0)), UINT64_MAX);
    pypi_version_free(v);
    pypi_version_free(NULL);
}

static void test_invalid(void **state)
{
    (void)state;
    const char *bad[] = {"", "1.0.*", "1.0+", "a1", "1..0", "1.0 a", "1.0+a..b", "!1", "1.0\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        assert_null(pypi_version_parse(bad[i], &err));
        assert_non_null(err);
        free(err);
    }
    assert_null(pypi_version_parse("x", NULL));
}

static void test_order(void **state)
{
    (void)state;
    const char *asc[] = {"1.0.dev0", "1.0a0.dev0", "1.0a0", "1.0a1", "1.0b1", "1.0rc1", "1.0",
                         "1.0+abc", "1.0+abc.1", "1.0+1", "1.0+2", "1.0+10", "1.0.post0.dev0",
                         "1.0.post0", "1.0.1", "1.1.dev0", "1!0.1"};
    size_t n = sizeof asc / sizeof asc[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int c = 0;
            assert_int_equal(pypi_version_cmp_str(asc[i], asc[j], &c, NULL), 0);
            assert_int_equal(c < 0 ? -1 : c > 0, i < j ? -1 : i > j);
        }
    int c = 5;
    assert_int_equal(pypi_version_cmp_str("1.0", "1.0.0.0", &c, NULL), 0);
    assert_int_equal(c, 0);
    char *err = NULL;
    assert_int_equal(pypi_version_cmp_str("nope", "1", &c, &err), -1);
    assert_non_null(strstr(err, "nope"));
    free(err);
    err = NULL;
    assert_int_equal(pypi_version_cmp_str("1", "nope", &c, &err), -2);
    free(err);
}

static bool contains(const char *set, const char *ver, pypi_prerelease pre)
{
    pypi_specset *s = pypi_specset_parse(set, NULL);
    assert_non_null(s);
    pypi_version *v = pypi_version_parse(ver, NULL);
    assert_non_null(v);
    bool r = pypi_specset_contains(s, v, pre);
    pypi_version_free(v);
    pypi_specset_free(s);
    return r;
}

static void test_contains(void **state)
{
    (void)state;
    assert_true(contains("==1.2.*", "1.2.9", PYPI_PRE_DEFAULT));
    assert_false(contains("!=1.2.*", "1.2.9", PYPI_PRE_DEFAULT));
    assert_true(contains("==1.0", "1.0+local", PYPI_PRE_DEFAULT));
    assert_false(contains("==1.0+a", "1.0+b", PYPI_PRE_DEFAULT));
    assert_false(contains("<3.1", "3.1.dev0", PYPI_PRE_YES));
    assert_true(contains("<3.1", "3.0.dev0", PYPI_PRE_YES));
    assert_false(contains(">3.1", "3.1.post1", PYPI_PRE_DEFAULT));
    assert_true(contains(">3.1.post0", "3.1.post1", PYPI_PRE_DEFAULT));
    assert_false(contains(">3.1", "3.1+local", PYPI_PRE_DEFAULT));
    assert_true(contains("~=2.2", "2.9", PYPI_PRE_DEFAULT));
    assert_false(contains("~=2.2.0", "2.3", PYPI_PRE_DEFAULT));
    assert_false(contains(">=1.0", "2.0a1", PYPI_PRE_DEFAULT));
    assert_true(contains(">=1.0", "2.0a1", PYPI_PRE_YES));
    assert_true(contains(">=1.0a1", "2.0a1", PYPI_PRE_DEFAULT));
    assert_false(contains(">=1.0a1", "2.0a1", PYPI_PRE_NO));
    assert_true(contains("===1.0", "1.0", PYPI_PRE_DEFAULT));
    assert_false(contains("===1.0", "1.0.0", PYPI_PRE_DEFAULT));
    assert_true(contains("", "1.0", PYPI_PRE_DEFAULT));
    assert_false(contains("", "1.0a1", PYPI_PRE_DEFAULT));
}

static void test_specset_api(void **state)
{
    (void)state;
    pypi_specset *s = pypi_specset_parse(" >=1.0 , <2\t,>=1.0.0,  ", NULL);
    assert_non_null(s);
    assert_int_equal(pypi_specset_len(s), 2);
    assert_string_equal(pypi_specset_op(s, 0), ">=");
    assert_string_equal(pypi_specset_version(s, 0), "1.0");
    assert_string_equal(pypi_specset_str(s), "<2,>=1.0");
    assert_int_equal(pypi_specset_prereleases(s), 0);
    pypi_specset_free(s);
    s = pypi_specset_parse("", NULL);
    assert_int_equal(pypi_specset_prereleases(s), -1);
    pypi_specset_free(s);
    const char *bad[] = {"~=1", ">=1.0.*", "<1.0+local", "1.0", "=>1", "==1.0a1.*"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        assert_null(pypi_specset_parse(bad[i], &err));
        assert_non_null(err);
        free(err);
    }
    assert_int_equal(pypi_spec_match(">=1.0a1 ;x"), 7);
    assert_int_equal(pypi_spec_match("===a)b"), 4);
    assert_int_equal(pypi_spec_match("=1"), 0);
    assert_int_equal(pypi_spec_contains_str("== 3.8.*", "3.8.1"), 1);
    assert_int_equal(pypi_spec_contains_str("==a", "3.8.1"), -1);
    assert_int_equal(pypi_spec_contains_str("==3.8", "posix"), -2);
}

static void test_filter(void **state)
{
    (void)state;
    const char *vs[] = {"1.0", "1.5a1", "junk", "2.0", "0.9"};
    bool keep[5];
    assert_int_equal(pypi_filter(">=1.0", vs, 5, keep, NULL), 0);
    bool want1[] = {true, false, false, true, false};
    assert_memory_equal(keep, want1, sizeof keep);
    const char *pre[] = {"1.5a1", "junk", "2.0b1"};
    assert_int_equal(pypi_filter("", pre, 3, keep, NULL), 0);
    assert_true(keep[0] && !keep[1] && keep[2]);
    assert_int_equal(pypi_filter(">=1.0", pre, 3, keep, NULL), 0);
    assert_true(!keep[0] && !keep[1] && !keep[2]);
    char *err = NULL;
    assert_int_equal(pypi_filter(">=", vs, 5, keep, &err), -1);
    assert_non_null(err);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_normalize), cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_order),           cmocka_unit_test(test_contains),
        cmocka_unit_test(test_specset_api),     cmocka_unit_test(test_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

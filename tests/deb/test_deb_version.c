/* test_deb_version.c — unit tests of Debian version parsing and ordering:
 * dpkg's verdicts (valid / warned / refused) on the edge cases, the parts a
 * parse yields, the stricter epoch rule, and the ordering rules one by one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "debver.h"

static deb_verdict verdict(const char *s, const char **why)
{
    deb_version v;
    return deb_version_parse(s, strlen(s), &v, why);
}

static void test_valid(void **state)
{
    (void)state;
    const char *ok[] = { "0", "1.0", "1:1.0", "00:1", "2147483647:0", "1.0-1", "1.0~rc1-0ubuntu1",
                         "1:2:3", "1-2-3", "1.0+dfsg-1+deb12u1", "1.0-1~bpo12+1", " 1.0", "1.0\t",
                         "9999999999999999999999999999" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *why = NULL;
        if (verdict(ok[i], &why) != DEB_VALID)
            fail_msg("%s: %s", ok[i], why);
    }
}

static void test_refused(void **state)
{
    (void)state;
    struct { const char *v, *why; } bad[] = {
        { "", "version string is empty" },
        { "  ", "version string is empty" },
        { "1 .0", "version string has embedded spaces" },
        { ":1", "epoch in version is empty" },
        { "a:1", "epoch in version is empty" },
        { "1a:1", "epoch in version is not number" },
        { "2147483648:1", "epoch in version is too big" },
        { "1:", "nothing after colon in version number" },
        { "1: ", "version number is empty" },
        { "1:-1", "version number is empty" },
        { "-1", "version number is empty" },
        { "1.0-", "revision number is empty" },
        /* envlock's epoch is digits only; dpkg's strtol would take these */
        { "+1:1.0", "epoch in version is empty" },
        { "-0:1.0", "epoch in version is empty" },
        { "\v1:1.0", "epoch in version is empty" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = NULL;
        assert_int_equal(verdict(bad[i].v, &why), DEB_REFUSED);
        assert_string_equal(why, bad[i].why);
    }
    deb_version v;
    assert_int_equal(deb_version_parse("1\0" "2", 3, &v, NULL), DEB_REFUSED);
}

static void test_warned(void **state)
{
    (void)state;
    struct { const char *v, *why; } w[] = {
        { "a1", "version number does not start with digit" },
        { "1:a", "version number does not start with digit" },
        { "1_0", "invalid character in version number" },
        { "1.0-a_b", "invalid character in revision number" },
        { "1.0-1=2", "invalid character in revision number" },
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        const char *why = NULL;
        assert_int_equal(verdict(w[i].v, &why), DEB_WARNED);
        assert_string_equal(why, w[i].why);
        assert_false(deb_version_valid(w[i].v));
    }
}

static void test_parts(void **state)
{
    (void)state;
    deb_version v;
    const char *s = " 2:1.0-rc:1-3-4 ";
    assert_int_equal(deb_version_parse(s, strlen(s), &v, NULL), DEB_VALID);
    assert_true(v.has_epoch);
    assert_int_equal(v.epoch, 2);
    assert_int_equal(v.upstream_len, strlen("1.0-rc:1-3"));
    assert_memory_equal(v.upstream, "1.0-rc:1-3", v.upstream_len);
    assert_int_equal(v.revision_len, 1);
    assert_memory_equal(v.revision, "4", 1);
    s = "7";
    assert_int_equal(deb_version_parse(s, 1, &v, NULL), DEB_VALID);
    assert_false(v.has_epoch);
    assert_int_equal(v.epoch, 0);
    assert_int_equal(v.revision_len, 0);
}

static int cmp(const char *a, const char *b)
{
    int c = 99;
    char *err = NULL;
    if (deb_version_cmp_str(a, b, &c, &err) != 0)
        fail_msg("%s vs %s: %s", a, b, err);
    return c;
}

static void test_order(void **state)
{
    (void)state;
    /* Each strictly below the next. */
    const char *chain[] = { "0~~", "0~", "0", "0.0~", "0.0", "0.0A~", "0.0A", "0.0a~",
                            "0.0a", "0.0+", "0.0.1", "0.1", "0.9", "0.10", "1.0~~", "1.0~~a", "1.0~",
                            "1.0", "1.0-0.1", "1.0-1~1", "1.0-1", "1.0-1+b1", "1.0-1.1",
                            "1.0-2", "1.0-10", "1.0Z", "1.0a", "1.0+1", "1.0.0", "1.1",
                            "10", "123456789012345678901234567890", "0:123456789012345678901234567891",
                            "1:0", "1:0.1", "2:0~", "10:0" };
    size_t n = sizeof chain / sizeof chain[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int want = i < j ? -1 : i > j ? 1 : 0;
            if (cmp(chain[i], chain[j]) != want)
                fail_msg("%s vs %s: got %d want %d", chain[i], chain[j], cmp(chain[i], chain[j]), want);
        }
    /* Equal spellings. */
    assert_int_equal(cmp("1.0", "1.00"), 0);
    assert_int_equal(cmp("1.0", "1.0-0"), 0);
    assert_int_equal(cmp("1.0", "0:1.0"), 0);
    assert_int_equal(cmp("1:1.0", "001:1.0"), 0);
    assert_int_equal(cmp("1.01", "1.1"), 0);
    assert_int_equal(cmp("1.", "1.0"), 0);
    assert_int_equal(cmp(" 1.0 ", "1.0"), 0);
}

static void test_cmp_str_errors(void **state)
{
    (void)state;
    int c = 0;
    char *err = NULL;
    assert_int_equal(deb_version_cmp_str("x", "1", &c, &err), -1);
    assert_string_equal(err, "not a Debian version: version number does not start with digit");
    free(err);
    err = NULL;
    assert_int_equal(deb_version_cmp_str("1", "1.0-", &c, &err), -2);
    assert_string_equal(err, "not a Debian version: revision number is empty");
    free(err);
    assert_int_equal(deb_version_cmp_str("1", "", &c, NULL), -2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),   cmocka_unit_test(test_refused),
        cmocka_unit_test(test_warned),  cmocka_unit_test(test_parts),
        cmocka_unit_test(test_order),   cmocka_unit_test(test_cmp_str_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

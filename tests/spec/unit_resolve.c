/* unit_resolve.c — spec_yaml_resolve_plain(): plain scalars typed as PyYAML's
 * safe_load (YAML 1.1) types them. Each expectation was checked against the
 * YAML 1.1 type regexes PyYAML registers, not against our own output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spec_internal.h"

static spec_node_kind kind(const char *s, spec_node *out)
{
    memset(out, 0, sizeof *out);
    return spec_yaml_resolve_plain(s, strlen(s), out);
}

static void test_null(void **state)
{
    (void)state;
    spec_node n;
    const char *nulls[] = { "", "~", "null", "Null", "NULL" };
    for (size_t k = 0; k < sizeof nulls / sizeof *nulls; k++)
        assert_int_equal(kind(nulls[k], &n), SN_NULL);
    assert_int_equal(kind("nULL", &n), SN_STR);
    assert_int_equal(kind("None", &n), SN_STR);
}

static void test_bool(void **state)
{
    (void)state;
    spec_node n;
    const char *t[] = { "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE" };
    const char *f[] = { "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE" };
    for (size_t k = 0; k < 9; k++) {
        assert_int_equal(kind(t[k], &n), SN_BOOL);
        assert_true(n.b);
        assert_int_equal(kind(f[k], &n), SN_BOOL);
        assert_false(n.b);
    }
    assert_int_equal(kind("yEs", &n), SN_STR);
    assert_int_equal(kind("y", &n), SN_STR); /* PyYAML drops y/n */
    assert_int_equal(kind("n", &n), SN_STR);
}

static void test_int(void **state)
{
    (void)state;
    spec_node n;
    assert_int_equal(kind("0", &n), SN_INT);
    assert_int_equal(n.i, 0);
    assert_int_equal(kind("42", &n), SN_INT);
    assert_int_equal(n.i, 42);
    assert_int_equal(kind("-17", &n), SN_INT);
    assert_int_equal(n.i, -17);
    assert_int_equal(kind("+5", &n), SN_INT);
    assert_int_equal(n.i, 5);
    assert_int_equal(kind("1_000", &n), SN_INT);
    assert_int_equal(n.i, 1000);
    assert_int_equal(kind("0x1F", &n), SN_INT);
    assert_int_equal(n.i, 31);
    assert_int_equal(kind("0b101", &n), SN_INT);
    assert_int_equal(n.i, 5);
    assert_int_equal(kind("017", &n), SN_INT); /* YAML 1.1 octal */
    assert_int_equal(n.i, 15);
    assert_int_equal(kind("1:30", &n), SN_INT); /* sexagesimal */
    assert_int_equal(n.i, 90);
    assert_int_equal(kind("-1:00:00", &n), SN_INT);
    assert_int_equal(n.i, -3600);
    /* not ints in YAML 1.1 */
    assert_int_equal(kind("09", &n), SN_STR);
    assert_int_equal(kind("0o17", &n), SN_STR);
    assert_int_equal(kind("1e5", &n), SN_STR);
    assert_int_equal(kind("0x", &n), SN_STR);
    assert_int_equal(kind("1:60", &n), SN_STR);
    assert_int_equal(kind("12abc", &n), SN_STR);
    /* beyond int64: kept as a number */
    assert_int_equal(kind("99999999999999999999", &n), SN_FLOAT);
    assert_true(n.f > 9.9e19);
}

static void test_float(void **state)
{
    (void)state;
    spec_node n;
    assert_int_equal(kind("3.13", &n), SN_FLOAT);
    assert_true(fabs(n.f - 3.13) < 1e-12);
    assert_int_equal(kind("3.10", &n), SN_FLOAT);
    assert_true(fabs(n.f - 3.1) < 1e-12);
    assert_int_equal(kind("1.", &n), SN_FLOAT);
    assert_int_equal(kind(".5", &n), SN_FLOAT);
    assert_int_equal(kind("-2.5", &n), SN_FLOAT);
    assert_int_equal(kind("1_000.5", &n), SN_FLOAT);
    assert_true(fabs(n.f - 1000.5) < 1e-9);
    assert_int_equal(kind("6.02e+23", &n), SN_FLOAT);
    assert_int_equal(kind("1:30.5", &n), SN_FLOAT);
    assert_true(fabs(n.f - 90.5) < 1e-9);
    assert_int_equal(kind(".inf", &n), SN_FLOAT);
    assert_true(isinf(n.f) && n.f > 0);
    assert_int_equal(kind("-.Inf", &n), SN_FLOAT);
    assert_true(isinf(n.f) && n.f < 0);
    assert_int_equal(kind(".NaN", &n), SN_FLOAT);
    assert_true(isnan(n.f));
    /* YAML 1.1 wants a signed exponent and a dot */
    assert_int_equal(kind("1.0e5", &n), SN_STR);
    assert_int_equal(kind("+.5", &n), SN_STR);
    assert_int_equal(kind(".", &n), SN_STR);
    assert_int_equal(kind("2026.09", &n), SN_FLOAT);
    assert_int_equal(kind("1.2.3", &n), SN_STR);
    assert_int_equal(kind("inf", &n), SN_STR);
}

static void test_timestamp(void **state)
{
    (void)state;
    spec_node n;
    assert_int_equal(kind("2026-09-12", &n), SN_STR);
    assert_true(n.date);
    assert_int_equal(kind("2026-9-1 8:30:00", &n), SN_STR);
    assert_true(n.date);
    assert_int_equal(kind("2026-09-12T08:30:00.5Z", &n), SN_STR);
    assert_true(n.date);
    assert_int_equal(kind("2026-09-12t08:30:00 +02:00", &n), SN_STR);
    assert_true(n.date);
    assert_int_equal(kind("2026-9-1", &n), SN_STR); /* a bare date wants two digits */
    assert_false(n.date);
    assert_int_equal(kind("20260912T150000Z", &n), SN_STR);
    assert_false(n.date);
}

static void test_strings(void **state)
{
    (void)state;
    spec_node n;
    const char *s[] = { "python", "datalayer/python-cpu", "3", "geopandas==1.1.1", "-", "=",
                        "<<", "0.0.0.0", "1-2" };
    assert_int_equal(kind("3", &n), SN_INT);
    for (size_t k = 0; k < sizeof s / sizeof *s; k++)
        if (strcmp(s[k], "3") != 0)
            assert_int_equal(kind(s[k], &n), SN_STR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null),  cmocka_unit_test(test_bool),
        cmocka_unit_test(test_int),   cmocka_unit_test(test_float),
        cmocka_unit_test(test_timestamp), cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* conda_unit_version.c — versions/conda: the ordering example of conda's
 * VersionOrder documentation, run as a chain, and the refusals with their
 * columns (the differential files cover the bulk; these pin the API). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "condaver.h"

static int cmp(const char *a, const char *b)
{
    int c = 99;
    char *msg = NULL;
    assert_int_equal(conda_version_cmp_str(a, b, &c, &msg), 0);
    return c;
}

/* conda's documented order: "<" between neighbours, "==" where marked. */
static void documented_chain(void **state)
{
    (void)state;
    static const char *chain[][2] = {
        {"0.4", NULL}, {"0.4.0", "="}, {"0.4.1.rc", "<"}, {"0.4.1.RC", "="}, {"0.4.1", "<"},
        {"0.5a1", "<"}, {"0.5b3", "<"}, {"0.5C1", "<"}, {"0.5", "<"}, {"0.9.6", "<"},
        {"0.960923", "<"}, {"1.0", "<"}, {"1.1dev1", "<"}, {"1.1_", "<"}, {"1.1a1", "<"},
        {"1.1.0dev1", "<"}, {"1.1.dev1", "="}, {"1.1.a1", "<"}, {"1.1.0rc1", "<"},
        {"1.1.0", "<"}, {"1.1", "="}, {"1.1.0post1", "<"}, {"1.1.post1", "="},
        {"1.1post1", "<"}, {"1996.07.12", "<"}, {"1!0.4.1", "<"}, {"1!3.1.1.6", "<"},
        {"2!0.4.1", "<"},
    };
    size_t n = sizeof chain / sizeof chain[0];
    for (size_t i = 1; i < n; i++) {
        int want = chain[i][1][0] == '=' ? 0 : -1;
        assert_int_equal(cmp(chain[i - 1][0], chain[i][0]), want);
        assert_int_equal(cmp(chain[i][0], chain[i - 1][0]), -want);
    }
    /* The OpenSSL rule: a trailing underscore sorts before letters. */
    assert_int_equal(cmp("1.0.1_", "1.0.1a"), -1);
    assert_int_equal(cmp("1.0.1", "1.0.1a"), 1);
}

static void refusals(void **state)
{
    (void)state;
    static const struct { const char *text; size_t column; const char *msg; } bad[] = {
        {"", 1, "empty version string"},
        {"  ", 3, "empty version string"},
        {"1.0$", 4, "invalid character(s)"},
        {"1.0-1_2", 4, "invalid character(s)"},
        {"1!2!3", 4, "duplicated epoch separator '!'"},
        {"a!1", 1, "epoch must be an integer"},
        {"1+2+3", 4, "duplicated local version separator '+'"},
        {"+1", 1, "missing version before the local version separator '+'"},
        {"1..2", 3, "empty version component"},
        {" 1.0+", 6, "empty version component"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        conda_error e = {0, NULL};
        conda_version *v = conda_version_parse(bad[i].text, strlen(bad[i].text), &e);
        assert_null(v);
        assert_string_equal(e.message, bad[i].msg);
        assert_int_equal(e.column, bad[i].column);
    }
    char big[CONDA_VERSION_MAX + 2];
    memset(big, '1', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_null(conda_version_parse(big, strlen(big), NULL));
    assert_null(conda_version_parse("1\0.0", 4, NULL));
}

static void normalized(void **state)
{
    (void)state;
    conda_version *v = conda_version_parse(" 1.0-RC1 ", 9, NULL);
    assert_non_null(v);
    assert_string_equal(conda_version_norm(v), "1.0_rc1");
    assert_false(conda_version_has_local(v));
    conda_version_free(v);
    v = conda_version_parse("1.0+Abc_1", 9, NULL);
    assert_true(conda_version_has_local(v));
    char *r = conda_version_repr(v, true);
    assert_string_equal(r, "[[0, 'abc'], [1]]");
    free(r);
    conda_version_free(v);
    /* Digit runs of any length compare exactly. */
    assert_int_equal(cmp("1.99999999999999999999", "1.100000000000000000000"), -1);
    assert_int_equal(cmp("1.000000000000000000001", "1.1"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documented_chain),
        cmocka_unit_test(refusals),
        cmocka_unit_test(normalized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_deb_filter.c — unit tests of deb_filter(): every operator, the
 * deprecated < and >, parentheses and blanks, the empty range, invalid
 * versions in the list, and malformed ranges with their messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "debver.h"

static const char *const versions[] = { "0.9", "1.0~rc1", "1.0", "1.0-0", "1.0-1", "1:0.1", "bad", "1.0-" };
#define NV (sizeof versions / sizeof versions[0])

/* The kept set as a string of 0/1 for a compact comparison. */
static void expect(const char *range, const char *want)
{
    bool keep[NV];
    char got[NV + 1];
    char *err = NULL;
    if (deb_filter(range, versions, NV, keep, &err) != 0)
        fail_msg("%s: %s", range, err);
    for (size_t i = 0; i < NV; i++)
        got[i] = keep[i] ? '1' : '0';
    got[NV] = '\0';
    if (strcmp(got, want) != 0)
        fail_msg("range `%s`: got %s want %s", range, got, want);
}

static void test_ops(void **state)
{
    (void)state;
    expect("<< 1.0", "11000000");
    expect("<= 1.0", "11110000");
    expect("= 1.0", "00110000");
    expect(">= 1.0", "00111100");
    expect(">> 1.0", "00001100");
    expect("< 1.0", "11110000");  /* deprecated: means <= */
    expect("> 1.0", "00111100");  /* deprecated: means >= */
    expect("(>= 1.0-1)", "00001100");
    expect("  ( >>1.0 )  ", "00001100");
    expect(">=1:0", "00000100");
    expect("", "11111100");
    expect("   ", "11111100");
}

static void bad_range(const char *range, const char *want)
{
    bool keep[NV];
    char *err = NULL;
    assert_int_equal(deb_filter(range, versions, NV, keep, &err), -1);
    assert_non_null(err);
    if (strcmp(err, want) != 0)
        fail_msg("range `%s`: got \"%s\" want \"%s\"", range, err, want);
    free(err);
}

static void test_bad(void **state)
{
    (void)state;
    bad_range("1.0", "expected an operator: <<, <=, =, >= or >>");
    bad_range("~> 1.0", "expected an operator: <<, <=, =, >= or >>");
    bad_range(">=", "a version must follow `>=`");
    bad_range("(<)", "a version must follow `<`");
    bad_range("(>= 1.0", "an opening `(` needs a closing `)`");
    bad_range(">= 1.0)", "a closing `)` without an opening `(`");
    bad_range(">= 1.0 2", "`1.0 2` is not a Debian version: version string has embedded spaces");
    bad_range("==1.0", "`=1.0` is not a Debian version: version number does not start with digit");
    bad_range(">= a", "`a` is not a Debian version: version number does not start with digit");
    bool keep[1];
    assert_int_equal(deb_filter("=", versions, 1, keep, NULL), -1); /* err may be NULL */
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_ops), cmocka_unit_test(test_bad) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

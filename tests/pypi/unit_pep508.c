/* unit_pep508.c — cmocka tests of the PEP 508 API in indexes/pypi:
 * requirement fields, names, marker parsing modes, printing and evaluation
 * (including the error results), and the validator's messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pep508.h"

static void test_names(void **state)
{
    (void)state;
    char *c = pypi_name_canonical("Foo__Bar.-baz");
    assert_string_equal(c, "foo-bar-baz");
    free(c);
    assert_true(pypi_name_valid("zope.interface"));
    assert_true(pypi_name_valid("a"));
    assert_false(pypi_name_valid("foo-"));
    assert_false(pypi_name_valid("_foo"));
    assert_false(pypi_name_valid(""));
    assert_false(pypi_name_valid("f oo"));
}

static void test_requirement_fields(void **state)
{
    (void)state;
    char *err = NULL;
    pypi_requirement *r =
        pypi_requirement_parse("Foo.Bar [Security, socks,security] (>=2.0, <3) ; python_version < '3.8'", &err);
    assert_non_null(r);
    assert_string_equal(r->name, "Foo.Bar");
    assert_string_equal(r->canonical_name, "foo-bar");
    assert_int_equal(r->nextras, 3);
    assert_string_equal(r->extras[0], "Security");
    assert_string_equal(r->extras_canonical[0], "security");
    assert_string_equal(r->specifier, ">=2.0,<3");
    assert_string_equal(pypi_specset_str(r->specset), "<3,>=2.0");
    assert_null(r->url);
    assert_string_equal(pypi_marker_str(r->marker), "python_version < \"3.8\"");
    pypi_requirement_free(r);

    r = pypi_requirement_parse("pkg @ https://example.com/p.whl ; os_name == 'nt'", NULL);
    assert_non_null(r);
    assert_string_equal(r->url, "https://example.com/p.whl");
    assert_int_equal(pypi_specset_len(r->specset), 0);
    pypi_requirement_free(r);
    pypi_requirement_free(NULL);
}

static void test_requirement_errors(void **state)
{
    (void)state;
    const char *bad[] = {"", "-foo", "foo[a b]", "foo >=", "foo ==1.0 junk", "foo @ /local/path",
                         "foo @ file:/x", "foo[", "foo (>=1", "foo; os_name ==", "foo ~=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err = NULL;
        assert_int_equal(pypi_requirement_check(bad[i], &err), -1);
        assert_non_null(err);
        assert_true(strlen(err) > 10);
        free(err);
    }
    char *err = NULL;
    assert_int_equal(pypi_requirement_check("foo ==", &err), -1);
    assert_non_null(strstr(err, "version"));
    free(err);
    assert_int_equal(pypi_requirement_check("foo_", NULL), 0);
    assert_int_equal(pypi_requirement_check("foo>=1,", NULL), 0);
}

static void test_marker(void **state)
{
    (void)state;
    pypi_env env = {.python_version = "3.8", .python_full_version = "3.8.10", .os_name = "posix",
                    .sys_platform = "linux", .platform_machine = "x86_64", .extra = "Test_Extra"};
    pypi_marker *m = pypi_marker_parse("os.name == 'posix' and (python_version >= '3.8' or extra == 'x')", true, NULL);
    assert_non_null(m);
    assert_string_equal(pypi_marker_str(m), "os_name == \"posix\" and (python_version >= \"3.8\" or extra == \"x\")");
    assert_int_equal(pypi_marker_evaluate(m, &env, NULL), 1);
    pypi_marker_free(m);

    m = pypi_marker_parse("extra == 'test.extra'", true, NULL);
    assert_string_equal(pypi_marker_str(m), "extra == \"test-extra\"");
    assert_int_equal(pypi_marker_evaluate(m, &env, NULL), 1);
    assert_int_equal(pypi_marker_evaluate(m, NULL, NULL), 0);
    pypi_marker_free(m);

    /* or binds looser than and */
    m = pypi_marker_parse("os_name == 'nt' and os_name == 'x' or os_name == 'posix'", true, NULL);
    assert_int_equal(pypi_marker_evaluate(m, &env, NULL), 1);
    pypi_marker_free(m);

    /* a version specifier applies but the left side is not a version */
    m = pypi_marker_parse("os_name == '1.0'", true, NULL);
    char *err = NULL;
    assert_int_equal(pypi_marker_evaluate(m, &env, &err), -1);
    assert_non_null(err);
    free(err);
    pypi_marker_free(m);

    m = pypi_marker_parse("'lin' in sys_platform and \"a\\x41\" == 'aA'", true, NULL);
    assert_non_null(m);
    assert_int_equal(pypi_marker_evaluate(m, &env, NULL), -1); /* "aA" is no variable */
    pypi_marker_free(m);

    /* trailing text: ignored like packaging's Marker(), or rejected */
    m = pypi_marker_parse("os_name == 'posix' junk", false, NULL);
    assert_non_null(m);
    pypi_marker_free(m);
    err = NULL;
    assert_null(pypi_marker_parse("os_name == 'posix' junk", true, &err));
    assert_non_null(err);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_requirement_fields),
        cmocka_unit_test(test_requirement_errors),
        cmocka_unit_test(test_marker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

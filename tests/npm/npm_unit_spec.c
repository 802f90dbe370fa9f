/* npm_unit_spec.c — unit tests for npm package names and registry specs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "npm_spec.h"

static void ok(const char *text)
{
    char *err = NULL;
    if (npm_pkgspec_check(text, &err) != 0)
        fail_msg("`%s` rejected: %s", text, err);
}

static void bad(const char *text)
{
    char *err = NULL;
    if (npm_pkgspec_check(text, &err) == 0)
        fail_msg("`%s` accepted", text);
    assert_non_null(err);
    free(err);
}

static void test_check(void **state)
{
    (void)state;
    ok("zod");
    ok("zod@^3");
    ok("zod@3.22.4");
    ok("zod@next");
    ok("@types/node");
    ok("@types/node@20.1.0");
    ok("@scope/name@>=1.2 <2");
    ok("lodash.merge@~4.6");
    ok("events");
    ok("a-b_c.d");
    bad("");
    bad("Zod");
    bad(".hidden");
    bad("_private");
    bad("node_modules");
    bad("favicon.ico");
    bad("Node_Modules");
    bad("has space");
    bad("@scope");
    bad("@/name");
    bad("@scope/");
    bad("@scope/.name");
    bad("zod@");
    bad("zod@not a tag");
    bad("zod@npm:other@1");
    bad("user/repo");
    bad("git+https://example.com/x.git");
    bad("./local");
    bad("caf\xc3\xa9");
    bad("crazy!");
    char longname[300];
    memset(longname, 'a', 215);
    longname[215] = '\0';
    bad(longname);
    longname[214] = '\0';
    ok(longname);
}

static void test_parse(void **state)
{
    (void)state;
    npm_pkgspec s;
    char *err = NULL;
    assert_int_equal(npm_pkgspec_parse("@types/node@^20", &s, &err), 0);
    assert_string_equal(s.name, "@types/node");
    assert_string_equal(s.scope, "types");
    assert_int_equal(s.kind, NPM_SPEC_RANGE);
    assert_string_equal(s.spec, "^20");
    assert_string_equal(s.normalized, ">=20.0.0 <21.0.0-0");
    npm_pkgspec_release(&s);

    assert_int_equal(npm_pkgspec_parse("zod@v3.22.4", &s, &err), 0);
    assert_int_equal(s.kind, NPM_SPEC_VERSION);
    assert_string_equal(s.normalized, "3.22.4");
    npm_pkgspec_release(&s);

    assert_int_equal(npm_pkgspec_parse("react", &s, &err), 0);
    assert_int_equal(s.kind, NPM_SPEC_TAG);
    assert_true(s.implicit);
    assert_null(s.scope);
    assert_string_equal(s.spec, "latest");
    npm_pkgspec_release(&s);

    assert_int_equal(npm_pkgspec_parse("react@canary", &s, &err), 0);
    assert_int_equal(s.kind, NPM_SPEC_TAG);
    assert_false(s.implicit);
    assert_string_equal(s.normalized, "canary");
    npm_pkgspec_release(&s);
}

static void test_names(void **state)
{
    (void)state;
    char *err = NULL;
    assert_int_equal(npm_name_check("JSONStream", NPM_NAME_LEGACY, &err), 0);
    assert_int_equal(npm_name_check("JSONStream", 0, &err), -1);
    free(err);
    assert_int_equal(npm_name_check("@Scope/x", NPM_NAME_LEGACY, NULL), 0);
    assert_int_equal(npm_name_check("a/b/c", NPM_NAME_LEGACY, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

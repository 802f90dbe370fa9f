/* unit_npmrc.c — the .npmrc reader: ini syntax (comments, quotes, sections,
 * lists), ${VAR} expansion, scoped registries, and which credentials npm
 * would send to which registry URL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "npm_index.h"

static const char *fake_env(const char *name)
{
    if (strcmp(name, "TOKEN") == 0)
        return "t0k3n";
    if (strcmp(name, "HOST") == 0)
        return "npm.corp.example";
    if (strcmp(name, "ENVLOCK_NPM_TOKEN") == 0)
        return NULL;
    return NULL;
}

static npm_rc *rc_of(const char *text)
{
    return npm_rc_parse(text, strlen(text), "test.npmrc", fake_env);
}

static void test_syntax(void **state)
{
    (void)state;
    npm_rc *rc = rc_of("# a comment\n"
                       "; another\n"
                       "  registry = https://npm.corp.example/ \r\n"
                       "a=1 ; trailing comment\n"
                       "b = x\\;y # more\n"
                       "c = \"quoted ; # kept\"\n"
                       "d='single'\n"
                       "flag\n"
                       "list[] = one\n"
                       "list[] = two\n"
                       "=novalue\n"
                       "a=2\n"
                       "[section]\n"
                       "hidden = yes\n");
    assert_string_equal(npm_rc_get(rc, "registry"), "https://npm.corp.example/");
    assert_string_equal(npm_rc_get(rc, "a"), "2");
    assert_string_equal(npm_rc_get(rc, "b"), "x;y");
    assert_string_equal(npm_rc_get(rc, "c"), "quoted ; # kept");
    assert_string_equal(npm_rc_get(rc, "d"), "single");
    assert_string_equal(npm_rc_get(rc, "flag"), "true");
    assert_string_equal(npm_rc_get(rc, "list"), "two");
    assert_null(npm_rc_get(rc, "hidden"));
    assert_null(npm_rc_get(rc, "missing"));
    assert_int_equal(npm_rc_nnotes(rc), 1);
    assert_non_null(strstr(npm_rc_note(rc, 0), "test.npmrc:11:"));
    npm_rc_free(rc);
    rc = rc_of("");
    assert_null(npm_rc_get(rc, "registry"));
    npm_rc_free(rc);
}

static void test_env(void **state)
{
    (void)state;
    npm_rc *rc = rc_of("//${HOST}/:_authToken=${TOKEN}\n"
                       "x=${UNSET_VAR}\n"
                       "y=a${UNSET_VAR?}b\n"
                       "z=\\${TOKEN}\n"
                       "w=${unterminated\n");
    assert_string_equal(npm_rc_get(rc, "//npm.corp.example/:_authToken"), "t0k3n");
    assert_null(npm_rc_get(rc, "x"));
    assert_string_equal(npm_rc_get(rc, "y"), "ab");
    assert_string_equal(npm_rc_get(rc, "z"), "${TOKEN}");
    assert_string_equal(npm_rc_get(rc, "w"), "${unterminated");
    assert_int_equal(npm_rc_nnotes(rc), 1);
    const char *n = npm_rc_note(rc, 0);
    assert_non_null(strstr(n, "${UNSET_VAR} is not set"));
    assert_null(strstr(n, "t0k3n"));
    npm_rc_free(rc);
}

static void test_scopes(void **state)
{
    (void)state;
    npm_rc *rc = rc_of("@corp:registry=https://npm.corp.example/\n"
                       "registry=https://registry.npmjs.org/\n");
    assert_string_equal(npm_rc_scope_registry(rc, "@corp/tool"), "https://npm.corp.example/");
    assert_null(npm_rc_scope_registry(rc, "@other/tool"));
    assert_null(npm_rc_scope_registry(rc, "plain"));
    assert_null(npm_rc_scope_registry(rc, "@corp"));
    npm_rc_free(rc);
}

static void check_auth(npm_rc *rc, const char *url, const char *want)
{
    char *a = npm_rc_auth(rc, url);
    if (!want) {
        if (a)
            fail_msg("%s: expected no auth, got one", url);
        return;
    }
    if (!a)
        fail_msg("%s: expected auth `%s`, got none", url, want);
    assert_string_equal(a, want);
    free(a);
}

static void test_matching(void **state)
{
    (void)state;
    npm_rc *rc = rc_of("//npm.corp.example/:_authToken=root\n"
                       "//npm.corp.example/team/npm/:_authToken=team\n"
                       "//127.0.0.1:4873/:_authToken=local\n"
                       "//basic.example/:_auth=dXNlcjpwdw==\n"
                       "//pw.example/reg/:username=alice\n"
                       "//pw.example/reg/:_password=c2VjcmV0\n"
                       "//Upper.Example/:_authToken=up\n");
    check_auth(rc, "https://npm.corp.example/", "Bearer root");
    check_auth(rc, "https://npm.corp.example/zod", "Bearer root");
    check_auth(rc, "https://npm.corp.example/team/npm/", "Bearer team");
    check_auth(rc, "https://npm.corp.example/team/npm/@s%2fp", "Bearer team");
    check_auth(rc, "https://npm.corp.example/team/other/", "Bearer root");
    check_auth(rc, "https://npm.corp.example:443/", "Bearer root");
    check_auth(rc, "http://npm.corp.example:8080/", NULL);
    check_auth(rc, "https://evil.example/npm.corp.example/", NULL);
    check_auth(rc, "https://npm.corp.example.evil/", NULL);
    check_auth(rc, "http://127.0.0.1:4873/", "Bearer local");
    check_auth(rc, "http://127.0.0.1:4874/", NULL);
    check_auth(rc, "https://basic.example/x", "Basic dXNlcjpwdw==");
    check_auth(rc, "https://pw.example/reg/", "Basic YWxpY2U6c2VjcmV0");
    check_auth(rc, "https://pw.example/", NULL);
    check_auth(rc, "https://user:pw@npm.corp.example/", "Bearer root");
    check_auth(rc, "file:///srv/npm/", NULL);
    check_auth(rc, "https://upper.example/", NULL); /* keys are not case-folded; hosts are */
    npm_rc_free(rc);
}

/* certfile/keyfile are scoped like _authToken (npm's config docs:
 * "//other-registry.tld/:certfile=/path/to/cert.pem"). */
static void test_scoped_settings(void **state)
{
    (void)state;
    npm_rc *rc = rc_of("cafile=/etc/corp-ca.pem\n"
                       "//npm.corp.example/:certfile=/c/root.pem\n"
                       "//npm.corp.example/team/:certfile=/c/team.pem\n"
                       "//npm.corp.example/team/:keyfile=/c/team.key\n");
    assert_string_equal(npm_rc_get(rc, "cafile"), "/etc/corp-ca.pem");
    assert_string_equal(npm_rc_scoped(rc, "https://npm.corp.example/team/", "certfile"),
                        "/c/team.pem");
    assert_string_equal(npm_rc_scoped(rc, "https://npm.corp.example/team/", "keyfile"),
                        "/c/team.key");
    assert_string_equal(npm_rc_scoped(rc, "https://npm.corp.example/", "certfile"), "/c/root.pem");
    assert_null(npm_rc_scoped(rc, "https://npm.corp.example/", "keyfile"));
    assert_null(npm_rc_scoped(rc, "https://registry.npmjs.org/", "certfile"));
    assert_null(npm_rc_scoped(rc, "file:///srv/npm/", "certfile"));
    npm_rc_free(rc);
}

static const char *env_with_envlock(const char *name)
{
    if (strcmp(name, "ENVLOCK_NPM_TOKEN") == 0)
        return "from-env";
    return NULL;
}

static const char *env_with_npm(const char *name)
{
    if (strcmp(name, "npm_config__authToken") == 0)
        return "legacy";
    return NULL;
}

static void test_registry_auth(void **state)
{
    (void)state;
    npm_rc *rc = rc_of("//npm.corp.example/:_authToken=rc\n");
    /* the token option wins; the library never reads ENVLOCK_NPM_TOKEN
     * itself (the CLI passes it as el_cache_options.npm_token) */
    char *a = npm_auth_for_registry(rc, "https://npm.corp.example", "from-option", env_with_npm);
    assert_string_equal(a, "Bearer from-option");
    free(a);
    a = npm_auth_for_registry(rc, "https://npm.corp.example", NULL, env_with_envlock);
    assert_string_equal(a, "Bearer rc");
    free(a);
    a = npm_auth_for_registry(rc, "https://registry.npmjs.org", NULL, env_with_envlock);
    assert_null(a);
    a = npm_auth_for_registry(rc, "https://npm.corp.example", NULL, env_with_npm);
    assert_string_equal(a, "Bearer rc");
    free(a);
    a = npm_auth_for_registry(rc, "https://registry.npmjs.org", NULL, env_with_npm);
    assert_string_equal(a, "Bearer legacy");
    free(a);
    a = npm_auth_for_registry(rc, "https://registry.npmjs.org", NULL, fake_env);
    assert_null(a);
    a = npm_auth_for_registry(NULL, NULL, NULL, fake_env);
    assert_null(a);
    npm_rc_free(rc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax),   cmocka_unit_test(test_env),
        cmocka_unit_test(test_scopes),   cmocka_unit_test(test_matching),
        cmocka_unit_test(test_registry_auth), cmocka_unit_test(test_scoped_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

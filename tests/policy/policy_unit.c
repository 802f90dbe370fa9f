/* policy_unit.c — policy/: URL prefixes matched at a boundary, deny rules
 * judged in each ecosystem's order (pre-releases inside a range count),
 * PyPI names compared normalized, Debian rules on a source package, and
 * the file's refusals with their places (docs/policy.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy.h"

static policy *load_text(const char *text, el_ctx *ctx)
{
    char path[] = "/tmp/envlock-policy-unit-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    policy *p = policy_load(ctx, path);
    unlink(path);
    return p;
}

static void urls(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    policy *p = load_text("indexes: [https://pypi.org, 'https://m.example/pypi/']\n", ctx);
    assert_non_null(p);
    assert_true(policy_url_allowed(&p->indexes, "https://pypi.org/simple"));
    assert_true(policy_url_allowed(&p->indexes, "https://pypi.org"));
    assert_true(policy_url_allowed(&p->indexes, "https://m.example/pypi/simple"));
    assert_false(policy_url_allowed(&p->indexes, "https://pypi.org.evil.example/simple"));
    assert_false(policy_url_allowed(&p->indexes, "https://m.example/pypi-other/simple"));
    assert_false(policy_url_allowed(&p->indexes, "http://pypi.org/simple"));
    assert_true(policy_url_allowed(&p->registries, "https://anything.example")); /* unset */
    policy_free(p);
    el_ctx_free(ctx);
}

static void deny(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    policy *p = load_text("deny:\n"
                          "  - {ecosystem: pypi, name: Zope.Interface, versions: '<5'}\n"
                          "  - {ecosystem: npm, name: lodash, versions: '<4.17.21'}\n"
                          "  - {ecosystem: deb, name: openssl, versions: '<< 3.0.11-1~deb12u2'}\n"
                          "  - {ecosystem: pypi, name: evil}\n",
                          ctx);
    assert_non_null(p);
    assert_int_equal(p->n_deny, 4);
    assert_non_null(policy_denies(p, EL_ECO_PYPI, "zope-interface", "4.7", NULL, NULL));
    /* a pre-release inside the range counts; PEP 440's `<5` excludes the
     * pre-releases of 5 itself */
    assert_non_null(policy_denies(p, EL_ECO_PYPI, "zope-interface", "4.9rc1", NULL, NULL));
    assert_null(policy_denies(p, EL_ECO_PYPI, "zope-interface", "5.0rc1", NULL, NULL));
    assert_null(policy_denies(p, EL_ECO_PYPI, "zope-interface", "5.0", NULL, NULL));
    assert_non_null(policy_denies(p, EL_ECO_NPM, "lodash", "4.17.21-rc.1", NULL, NULL));
    assert_null(policy_denies(p, EL_ECO_NPM, "lodash", "4.17.21", NULL, NULL));
    assert_null(policy_denies(p, EL_ECO_NPM, "Lodash", "1.0.0", NULL, NULL));
    /* libssl3 is built from openssl: the rule reaches it through its source */
    assert_non_null(policy_denies(p, EL_ECO_DEB, "libssl3", "3.0.11-1~deb12u1", "openssl",
                                  "3.0.11-1~deb12u1"));
    assert_null(policy_denies(p, EL_ECO_DEB, "libssl3", "3.0.11-1~deb12u2", "openssl",
                              "3.0.11-1~deb12u2"));
    assert_non_null(policy_denies(p, EL_ECO_PYPI, "evil", "0.0.1", NULL, NULL));
    assert_string_equal(policy_denies(p, EL_ECO_PYPI, "evil", "9", NULL, NULL)->text, "pypi evil");
    policy_free(p);
    el_ctx_free(ctx);
}

static void refusals(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        el_code code;
        const char *in_message;
    } cases[] = {
        { "deny: {}\n", EL_SPEC_INVALID, ":1:7: deny: must be a list" },
        { "deny:\n  - {ecosystem: pypi}\n", EL_SPEC_INVALID, "deny[0].name" },
        { "deny:\n  - {ecosystem: pypi, name: a, versions: '=>1'}\n", EL_SPEC_INVALID,
          "deny[0].versions" },
        { "deny:\n  - {ecosystem: deb, name: a, versions: '<<'}\n", EL_SPEC_INVALID,
          "deny[0].versions" },
        { "deny:\n  - {ecosystem: npm, name: a, version: '1'}\n", EL_SPEC_INVALID,
          "deny[0].version: unknown key" },
        { "indexes: [ftp://x.example/]\n", EL_SPEC_INVALID, "indexes[0]" },
        { "registries: ['https://tok@r.example/']\n", EL_SPEC_INVALID, "credentials" },
        { "minimumReleaseAge: {npm: 3}\n", EL_CAPABILITY_UNSUPPORTED, "minimumReleaseAge" },
        { "- a\n", EL_SPEC_INVALID, "a policy is a mapping" },
        { "deny: []\ndeny: []\n", EL_SPEC_INVALID, ":2:" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        el_ctx *ctx = el_ctx_new();
        policy *p = load_text(cases[i].text, ctx);
        if (p || el_ctx_code(ctx) != cases[i].code ||
            !strstr(el_ctx_message(ctx), cases[i].in_message))
            fail_msg("case %zu: %s", i, p ? "(loaded)" : el_ctx_message(ctx));
        el_ctx_free(ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls),
        cmocka_unit_test(deny),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

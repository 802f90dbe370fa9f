/* policy_unit.c — policy/: URL prefixes matched at a boundary, deny rules
 * judged in each ecosystem's order (pre-releases inside a range count),
 * PyPI names compared normalized, Debian rules on a source package, and
 * the file's refusals with their places (docs/policy.md). */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy.h"
#include "spdx.h"

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
        { "minimumReleaseAge: {npm: 3}\n", EL_SPEC_INVALID, "minimumReleaseAge.npm" },
        { "minimumReleaseAge: {npm: 0d}\n", EL_SPEC_INVALID, "minimumReleaseAge.npm" },
        { "minimumReleaseAge: {conda: 1d}\n", EL_SPEC_INVALID, "minimumReleaseAge.conda" },
        { "minimumReleaseAge: {apt: 1d}\n", EL_CAPABILITY_UNSUPPORTED, "minimumReleaseAge.apt" },
        { "minimumReleaseAge:\n  exempt: [{ecosystem: deb, name: a}]\n", EL_SPEC_INVALID,
          "minimumReleaseAge.exempt[0].ecosystem" },
        { "licenses: [MIT]\n", EL_SPEC_INVALID, "licenses: must be a mapping" },
        { "licenses: {unknown: deny}\n", EL_SPEC_INVALID, "licenses.allow: is required" },
        { "licenses: {allow: [MIT OR Apache-2.0]}\n", EL_SPEC_INVALID, "licenses.allow[0]" },
        { "licenses: {allow: ['(MIT)']}\n", EL_SPEC_INVALID, "licenses.allow[0]" },
        { "licenses: {allow: [Apache License 2.0]}\n", EL_SPEC_INVALID, "licenses.allow[0]" },
        { "licenses: {allow: [MIT], unknown: maybe}\n", EL_SPEC_INVALID, "licenses.unknown" },
        /* an id the SPDX License List does not have, at its line and column */
        { "licenses:\n  allow: [MIT, Apache-2]\n", EL_SPEC_INVALID,
          ":2:16: licenses.allow[1]: `Apache-2` is not on the SPDX License List" },
        { "licenses:\n  allow:\n    - GPL-2.0-only WITH Classpath-2.0\n", EL_SPEC_INVALID,
          ":3:7: licenses.allow[0]: `Classpath-2.0` is not on the SPDX License List" },
        { "licenses: {allow: [UNLICENSED]}\n", EL_SPEC_INVALID, "`UNLICENSED` is not on" },
        { "licenses: {allow: [MIT], exempt: [{ecosystem: deb, name: a}]}\n", EL_SPEC_INVALID,
          "licenses.exempt[0].ecosystem: `deb` is not pypi, npm or conda" },
        { "licenses: {allow: [MIT], deny: [GPL-3.0-only]}\n", EL_SPEC_INVALID,
          "licenses.deny: unknown key" },
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

/* 2026-12-01T00:00:00Z */
#define DEC1 1796083200

static void cooldown(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    policy *p = load_text("minimumReleaseAge:\n  pypi: 7d\n  npm: 1d12h\n  exempt:\n"
                          "    - {ecosystem: pypi, name: Zope.Interface}\n"
                          "    - {ecosystem: npm, name: '@acme/*'}\n",
                          ctx);
    assert_non_null(p);
    assert_int_equal(p->cooldown[EL_ECO_PYPI].min_age_s, 7 * 86400);
    assert_int_equal(p->cooldown[EL_ECO_NPM].min_age_s, 36 * 3600);
    /* exactly the age is old enough; a second less is not */
    assert_null(policy_too_young(p, EL_ECO_PYPI, "a", "2026-11-24T00:00:00Z", DEC1));
    const policy_rule *r = policy_too_young(p, EL_ECO_PYPI, "a", "2026-11-24T00:00:01Z", DEC1);
    assert_non_null(r);
    assert_string_equal(r->text, "pypi minimumReleaseAge 7d");
    assert_int_equal(r->line, 2);
    /* fractions and offsets as the indexes write them */
    assert_non_null(policy_too_young(p, EL_ECO_PYPI, "a", "2026-11-24T01:00:00.5+01:00", DEC1));
    assert_null(policy_too_young(p, EL_ECO_PYPI, "a", "2026-11-23T23:59:59.999Z", DEC1));
    /* no time: no age can be proven */
    assert_non_null(policy_too_young(p, EL_ECO_PYPI, "a", NULL, DEC1));
    assert_non_null(policy_too_young(p, EL_ECO_PYPI, "a", "yesterday", DEC1));
    assert_null(policy_too_young(p, EL_ECO_PYPI, "zope-interface", NULL, DEC1));
    assert_null(policy_too_young(p, EL_ECO_NPM, "@acme/ui", NULL, DEC1));
    assert_non_null(policy_too_young(p, EL_ECO_NPM, "@acme-ui/x", NULL, DEC1));
    assert_null(policy_too_young(p, EL_ECO_NPM, "b", "2026-11-29T12:00:00.000Z", DEC1));
    assert_non_null(policy_too_young(p, EL_ECO_NPM, "b", "2026-11-29T12:00:01.000Z", DEC1));
    assert_null(policy_too_young(p, EL_ECO_DEB, "libc6", NULL, DEC1));
    policy_free(p);
    el_ctx_free(ctx);
}

static void spdx(void **state)
{
    (void)state;
    static const char *const allow[] = { "MIT", "Apache-2.0", "GPL-2.0-or-later",
                                         "GPL-3.0-only WITH GCC-exception-3.1", "LGPL-2.1+" };
    static const struct {
        const char *expr;
        int want; /* 1 admitted, 0 not, -1 not an expression */
    } cases[] = {
        { "MIT", 1 },
        { "mit", 1 }, /* ids match case-insensitively */
        { "BSD-3-Clause", 0 },
        { "MIT OR GPL-3.0-only", 1 },
        { "GPL-3.0-only OR MIT", 1 },
        { "MIT AND GPL-3.0-only", 0 },
        { "MIT AND Apache-2.0", 1 },
        { "MIT and Apache-2.0", 1 },
        /* AND binds tighter than OR: (MIT AND BSD) OR Apache */
        { "MIT AND BSD-3-Clause OR Apache-2.0", 1 },
        { "MIT AND (BSD-3-Clause OR Apache-2.0)", 1 },
        { "(MIT AND BSD-3-Clause) OR ISC", 0 },
        /* an exception only adds permissions: allowed when its license is */
        { "GPL-2.0-or-later WITH Classpath-exception-2.0", 1 },
        { "GPL-3.0-only WITH GCC-exception-3.1", 1 },
        { "GPL-3.0-only", 0 },
        { "GPL-3.0-only WITH Classpath-exception-2.0", 0 },
        /* `+` is its own license reference */
        { "LGPL-2.1+", 1 },
        { "LGPL-2.1", 0 },
        { "Apache-2.0+", 0 },
        { "LicenseRef-Proprietary", 0 },
        { "", -1 },
        { "SEE LICENSE IN LICENSE.md", -1 },
        { "Apache License 2.0", -1 },
        { "MIT OR", -1 },
        { "(MIT", -1 },
        { "MIT)", -1 },
        { "MIT WITH", -1 },
        { "+", -1 },
        { "MI+T", -1 },
        { "MIT/X11", -1 },
        /* identifiers are the SPDX License List's (tests/policy: real ids) */
        { "UNLICENSED", -1 }, /* npm's word for "no license", not an SPDX id */
        { "None", -1 },       /* what old conda records say */
        { "BSD", -1 },
        { "MIT OR Apache 2", -1 },
        { "GPL-2.0+", 0 },    /* deprecated, still on the list */
        { "LGPL-2.1 AND GPL-2.0", 0 },
        { "blessing OR TCL", 0 },
        { "X11 AND BSD-3-Clause", 0 },
        { "bzip2-1.0.6", 0 },
        { "0bsd", 0 },
        { "Python-2.0 OR MIT", 1 },
        { "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2", 0 },
        { "LicenseRef-", -1 },
        { "LicenseRef-x+", -1 },
        { "DocumentRef-a:MIT", -1 },
        { "MIT WITH Foo-exception", -1 },
        { "MIT WITH LLVM-exception", 1 },
        { "GPL-2.0-only WITH Nokia-Qt-exception-1.1", 0 }, /* a deprecated exception */
        { "MIT WITH GPL-2.0-only", -1 }, /* a license is no exception */
        { "GCC-exception-3.1", -1 },     /* nor an exception a license */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool admitted = false;
        bool expr = spdx_expr_admits(cases[i].expr, allow, 5, &admitted);
        int got = expr ? admitted : -1;
        if (got != cases[i].want)
            fail_msg("`%s`: %d, not %d", cases[i].expr, got, cases[i].want);
    }
    /* nesting deeper than any real expression is refused, not recursed */
    char deep[400] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "(");
    strcat(deep, "MIT");
    for (int i = 0; i < 100; i++)
        strcat(deep, ")");
    bool admitted;
    assert_false(spdx_expr_admits(deep, allow, 5, &admitted));
    /* what an allow list may hold: one license, or one WITH an exception */
    assert_true(spdx_expr_is_license("MIT"));
    assert_true(spdx_expr_is_license("GPL-2.0+"));
    assert_true(spdx_expr_is_license("GPL-2.0-only with Classpath-exception-2.0"));
    assert_false(spdx_expr_is_license("MIT and BSD-3-Clause"));
    assert_false(spdx_expr_is_license("MIT OR ISC"));
    assert_false(spdx_expr_is_license("(MIT)"));
    assert_false(spdx_expr_is_license("MIT WITH X+"));
    assert_false(spdx_expr_is_license("MIT WITH"));
    assert_false(spdx_expr_is_license(""));
}

/* The compiled-in SPDX License List: sorted as it is searched, every
 * entry found (in any case), and the questions the loader and the lock
 * reader ask of it. */
static void spdx_list(void **state)
{
    (void)state;
    const spdx_list_entry *lists[] = { spdx_licenses, spdx_exceptions };
    size_t ns[] = { spdx_n_licenses, spdx_n_exceptions };
    assert_int_equal(spdx_n_licenses, 560);
    assert_int_equal(spdx_n_exceptions, 56);
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < ns[k]; i++) {
            const char *id = lists[k][i].id;
            char up[128];
            size_t n = strlen(id);
            for (size_t j = 0; j <= n && j < sizeof up; j++)
                up[j] = (char)toupper((unsigned char)id[j]);
            if (i && strcasecmp(lists[k][i - 1].id, id) >= 0)
                fail_msg("not sorted: `%s` before `%s`", lists[k][i - 1].id, id);
            if (spdx_list_find(lists[k], ns[k], up, n) != &lists[k][i])
                fail_msg("`%s` not found as `%s`", id, up);
        }
    const spdx_list_entry *e = spdx_list_find(spdx_licenses, spdx_n_licenses, "GPL-2.0+", 8);
    assert_non_null(e);
    assert_true(e->deprecated);
    e = spdx_list_find(spdx_licenses, spdx_n_licenses, "Apache-2.0", 10);
    assert_non_null(e);
    assert_false(e->deprecated);
    assert_null(spdx_list_find(spdx_licenses, spdx_n_licenses, "Apache-2", 8));
    assert_null(spdx_list_find(spdx_licenses, spdx_n_licenses, "UNLICENSED", 10));
    char id[64];
    assert_true(spdx_expr_unlisted("MIT OR UNLICENSED", id, sizeof id));
    assert_string_equal(id, "UNLICENSED");
    assert_true(spdx_expr_unlisted("GPL-2.0-only WITH Foo-exception", id, sizeof id));
    assert_string_equal(id, "Foo-exception");
    assert_true(spdx_expr_unlisted("Apache-2.0 AND Foo+", id, sizeof id));
    assert_string_equal(id, "Foo+");
    assert_false(spdx_expr_unlisted("MIT OR LicenseRef-x", id, sizeof id));
    assert_false(spdx_expr_unlisted("SEE LICENSE IN LICENSE.md", id, sizeof id));
    assert_true(spdx_expr_deprecated("MIT OR GPL-2.0+", id, sizeof id));
    assert_string_equal(id, "GPL-2.0+");
    assert_true(spdx_expr_deprecated("LGPL-2.1", id, sizeof id));
    assert_false(spdx_expr_deprecated("LGPL-2.1-only OR Apache-2.0+", id, sizeof id));
}

static void licenses(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    policy *p = load_text("licenses:\n  allow: [MIT, '  Apache-2.0 ', GPL-2.0-only  WITH  "
                          "Classpath-exception-2.0]\n  exempt:\n    - {ecosystem: npm, name: "
                          "'@acme/*'}\n",
                          ctx);
    assert_non_null(p);
    assert_int_equal(p->licenses.n_allow, 3);
    assert_string_equal(p->licenses.allow[1], "Apache-2.0");
    assert_string_equal(p->licenses.allow[2], "GPL-2.0-only WITH Classpath-exception-2.0");
    assert_null(policy_license_denies(p, EL_ECO_PYPI, "a", "MIT OR GPL-3.0-only"));
    const policy_rule *r = policy_license_denies(p, EL_ECO_NPM, "b", "GPL-3.0-only");
    assert_non_null(r);
    assert_int_equal(r->kind, POLICY_LICENSE);
    assert_int_equal(r->line, 2);
    /* unknown is denied unless the policy says otherwise */
    assert_non_null(policy_license_denies(p, EL_ECO_NPM, "b", NULL));
    assert_non_null(policy_license_denies(p, EL_ECO_NPM, "b", "SEE LICENSE IN LICENSE"));
    assert_null(policy_license_denies(p, EL_ECO_NPM, "@acme/ui", "UNLICENSED"));
    assert_null(policy_license_denies(p, EL_ECO_DEB, "libc6", NULL));
    /* npm's licenses are in its full packuments only */
    assert_true(policy_licenses_judge(p, EL_ECO_NPM));
    assert_true(policy_licenses_judge(p, EL_ECO_PYPI));
    assert_false(policy_licenses_judge(p, EL_ECO_DEB));
    policy_free(p);
    p = load_text("licenses: {allow: [MIT], unknown: allow}\n", ctx);
    assert_non_null(p);
    assert_null(policy_license_denies(p, EL_ECO_PYPI, "a", NULL));
    assert_null(policy_license_denies(p, EL_ECO_PYPI, "a", "BSD like"));
    assert_non_null(policy_license_denies(p, EL_ECO_PYPI, "a", "BSD-2-Clause"));
    policy_free(p);
    p = load_text("deny:\n  - {ecosystem: npm, name: x}\n", ctx);
    assert_non_null(p);
    assert_false(policy_licenses_judge(p, EL_ECO_NPM));
    policy_free(p);
    el_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls),
        cmocka_unit_test(deny),
        cmocka_unit_test(refusals),
        cmocka_unit_test(cooldown),
        cmocka_unit_test(spdx),
        cmocka_unit_test(spdx_list),
        cmocka_unit_test(licenses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

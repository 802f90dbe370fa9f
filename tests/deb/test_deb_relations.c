/* test_deb_relations.c — unit tests of relationship-field parsing: the
 * structure of good fields (alternatives, qualifiers, versions, architecture
 * lists, build profiles, folded whitespace), the canonical format, what each
 * field kind refuses, and the exact message and column of malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "debver.h"

static deb_relations *parse_ok(const char *text, deb_field f)
{
    deb_relations *r = NULL;
    deb_parse_error e;
    if (deb_relations_parse(text, f, &r, &e) != 0)
        fail_msg("`%s`: %s", text, e.message);
    return r;
}

static void roundtrip(const char *text, deb_field f, const char *canonical)
{
    deb_relations *r = parse_ok(text, f);
    char *s = deb_relations_format(r);
    if (strcmp(s, canonical) != 0)
        fail_msg("`%s` formats as `%s`, want `%s`", text, s, canonical);
    deb_relations *again = parse_ok(s, f);
    char *s2 = deb_relations_format(again);
    assert_string_equal(s, s2);
    free(s);
    free(s2);
    deb_relations_free(r);
    deb_relations_free(again);
}

static void test_structure(void **state)
{
    (void)state;
    const char *text = "libc6 (>= 2.36), python3:any | python3-minimal (<< 3.12~) [amd64 arm64] <!nocheck> <stage1 cross>,\n foo:amd64";
    deb_relations *r = parse_ok(text, DEB_FIELD_DEPENDS);
    size_t n;
    const deb_rel_group *g = deb_relations_groups(r, &n);
    assert_int_equal(n, 3);
    assert_int_equal(g[0].n_alts, 1);
    assert_string_equal(g[0].alts[0].name, "libc6");
    assert_null(g[0].alts[0].archqual);
    assert_int_equal(g[0].alts[0].op, DEB_OP_GE);
    assert_string_equal(g[0].alts[0].version, "2.36");
    assert_int_equal(g[0].alts[0].ver.upstream_len, 4);
    assert_int_equal(g[0].alts[0].column, 1);
    assert_int_equal(g[1].n_alts, 2);
    const deb_rel *a = &g[1].alts[0], *b = &g[1].alts[1];
    assert_string_equal(a->name, "python3");
    assert_string_equal(a->archqual, "any");
    assert_int_equal(a->op, DEB_OP_ANY);
    assert_null(a->version);
    assert_int_equal(a->column, 18);
    assert_string_equal(b->name, "python3-minimal");
    assert_int_equal(b->op, DEB_OP_LT);
    assert_string_equal(b->version, "3.12~");
    assert_int_equal(b->n_arches, 2);
    assert_string_equal(b->arches[1].name, "arm64");
    assert_false(b->arches[0].negated);
    assert_int_equal(b->n_profiles, 2);
    assert_int_equal(b->profiles[0].n_terms, 1);
    assert_true(b->profiles[0].terms[0].negated);
    assert_string_equal(b->profiles[0].terms[0].name, "nocheck");
    assert_int_equal(b->profiles[1].n_terms, 2);
    assert_string_equal(b->profiles[1].terms[1].name, "cross");
    assert_string_equal(g[2].alts[0].archqual, "amd64");
    deb_relations_free(r);

    r = parse_ok("  \n ", DEB_FIELD_DEPENDS);
    deb_relations_groups(r, &n);
    assert_int_equal(n, 0);
    deb_relations_free(r);
    deb_relations_free(NULL);
}

static void test_format(void **state)
{
    (void)state;
    roundtrip("a1,b2", DEB_FIELD_DEPENDS, "a1, b2");
    roundtrip("a1 ( >=1.0 ) |b2(<<2)", DEB_FIELD_DEPENDS, "a1 (>= 1.0) | b2 (<< 2)");
    roundtrip("a1 (< 1), b2 (> 1)", DEB_FIELD_DEPENDS, "a1 (<= 1), b2 (>= 1)");
    roundtrip("a1 [ !i386  !armel ]", DEB_FIELD_DEPENDS, "a1 [!i386 !armel]");
    roundtrip("a1:native <pkg.foo.bar !nocheck>", DEB_FIELD_BUILD_DEPENDS, "a1:native <pkg.foo.bar !nocheck>");
    roundtrip("a1,\n b2,\n", DEB_FIELD_DEPENDS, "a1, b2");
    roundtrip("libfoo (= 1:2.0-1)", DEB_FIELD_PROVIDES, "libfoo (= 1:2.0-1)");
    roundtrip("g++-12 (>= 12), lib.x+y", DEB_FIELD_BREAKS, "g++-12 (>= 12), lib.x+y");
    roundtrip("\ta1\t(=\t1)\t", DEB_FIELD_CONFLICTS, "a1 (= 1)");

    deb_relations *r = parse_ok("a1 (< 1)", DEB_FIELD_DEPENDS);
    size_t n;
    assert_true(deb_relations_groups(r, &n)[0].alts[0].op_deprecated);
    deb_relations_free(r);
}

static void expect_error(const char *text, deb_field f, size_t column, const char *message)
{
    deb_relations *r = (deb_relations *)1;
    deb_parse_error e;
    if (deb_relations_parse(text, f, &r, &e) == 0)
        fail_msg("`%s` parsed", text);
    assert_null(r);
    if (e.column != column || strcmp(e.message, message) != 0)
        fail_msg("`%s`: got column %zu \"%s\", want column %zu \"%s\"", text, e.column, e.message,
                 column, message);
    free(e.message);
    /* A NULL error is allowed. */
    assert_int_equal(deb_relations_parse(text, f, &r, NULL), -1);
}

static void test_errors(void **state)
{
    (void)state;
    const deb_field D = DEB_FIELD_DEPENDS;
    expect_error(",a1", D, 1, "column 1: a relation is missing before `,`");
    expect_error("a1,,b2", D, 4, "column 4: a relation is missing before `,`");
    expect_error("a1, , b2", D, 5, "column 5: a relation is missing before `,`");
    expect_error("a1 | | b2", D, 6, "column 6: an alternative after `|` is missing before `|`");
    expect_error("a1 |", D, 5, "column 5: an alternative after `|` is missing at the end of the field");
    expect_error("a1 |, b2", D, 5, "column 5: an alternative after `|` is missing before `,`");
    expect_error("a", D, 1,
                 "column 1: `a` is not a package name: at least 2 of a-z 0-9 + . -, starting with a letter or digit");
    expect_error("a1, Foo", D, 5,
                 "column 5: `Foo` is not a package name: at least 2 of a-z 0-9 + . -, starting with a letter or digit");
    expect_error("a1, -foo", D, 5,
                 "column 5: `-foo` is not a package name: at least 2 of a-z 0-9 + . -, starting with a letter or digit");
    expect_error("foo_bar", D, 1,
                 "column 1: `foo_bar` is not a package name: at least 2 of a-z 0-9 + . -, starting with a letter or digit");
    expect_error("a1 (", D, 5, "column 5: expected a relation operator (<<, <=, =, >=, >>) after `(`, found the end of the field");
    expect_error("a1 (~ 1)", D, 5, "column 5: expected a relation operator (<<, <=, =, >=, >>) after `(`, found `~`");
    expect_error("a1 (>= )", D, 8, "column 8: a version must follow `>=`");
    expect_error("a1 (>=", D, 7, "column 7: a version must follow `>=`");
    expect_error("a1 (>= 1.0", D, 11, "column 11: `(` at column 4 is not closed with `)`, found the end of the field");
    expect_error("a1 (>= 1.0, b2", D, 11, "column 11: `(` at column 4 is not closed with `)`, found `,`");
    expect_error("a1 (>= 1.0 2)", D, 12, "column 12: unexpected `2` inside the version relation; a version has no blanks");
    expect_error("a1 (>= a.0)", D, 8, "column 8: `a.0` is not a Debian version: version number does not start with digit");
    expect_error("a1 (>= 1.0-)", D, 8, "column 8: `1.0-` is not a Debian version: revision number is empty");
    expect_error("a1 (= 1) (= 2)", D, 10, "column 10: a version relation `(...)` must come right after the package name");
    expect_error("a1 b2", D, 4, "column 4: expected `,` or `|` after the relation, found `b`");
    expect_error("a1 )", D, 4, "column 4: `)` without an opening `(`");
    expect_error("a1 ]", D, 4, "column 4: `]` without an opening `[`");
    expect_error("a1 >", D, 4, "column 4: `>` without an opening `<`");
    expect_error("a1 <x> [amd64]", D, 8, "column 8: an architecture list `[...]` must come before the build profiles");
    expect_error("a1:", D, 4, "column 4: an architecture qualifier must follow `:`, found the end of the field");
    expect_error("a1:Amd64", D, 4, "column 4: `Amd64` is not an architecture qualifier");
    expect_error("a1:native", D, 4, "column 4: `:native` is only allowed in Build-Depends and Build-Conflicts, not in Depends");
    expect_error("a1 [amd64", D, 10, "column 10: `[` at column 4 is not closed with `]`");
    expect_error("a1 []", D, 4, "column 4: the architecture list `[]` is empty");
    expect_error("a1 [amd64 !i386]", D, 11, "column 11: an architecture list is either all negated (`!`) or none; `!i386` breaks that");
    expect_error("a1 [amd_64]", D, 5, "column 5: `amd_64` is not an architecture name");
    expect_error("a1 [!]", D, 6, "column 6: expected an architecture name, found `]`");
    expect_error("a1 <nocheck", D, 12, "column 12: `<` at column 4 is not closed with `>`");
    expect_error("a1 <>", D, 4, "column 4: the build profile list `<>` is empty");
    expect_error("a1 <!>", D, 6, "column 6: expected a build profile name, found `>`");
    expect_error("a1 <No>", D, 5, "column 5: `No` is not a build profile name");
    expect_error("a1 \x01", D, 4, "column 4: expected `,` or `|` after the relation, found byte 0x01");
    expect_error("a1 | b2", DEB_FIELD_BREAKS, 4, "column 4: alternatives (`|`) are not allowed in Breaks");
    expect_error("a1 | b2", DEB_FIELD_CONFLICTS, 4, "column 4: alternatives (`|`) are not allowed in Conflicts");
    expect_error("a1 | b2", DEB_FIELD_PROVIDES, 4, "column 4: alternatives (`|`) are not allowed in Provides");
    expect_error("a1 (>= 1)", DEB_FIELD_PROVIDES, 5, "column 5: only exact versions (`=`) may be used in Provides");
    expect_error("a1,\n  b2 (>= x)", D, 14, "column 14: `x` is not a Debian version: version number does not start with digit");
}

static void test_kinds(void **state)
{
    (void)state;
    deb_relations *r = NULL;
    deb_field alt_ok[] = { DEB_FIELD_DEPENDS, DEB_FIELD_PRE_DEPENDS, DEB_FIELD_RECOMMENDS,
                           DEB_FIELD_SUGGESTS, DEB_FIELD_ENHANCES, DEB_FIELD_BUILD_DEPENDS };
    for (size_t i = 0; i < sizeof alt_ok / sizeof alt_ok[0]; i++) {
        assert_int_equal(deb_relations_parse("a1 | b2", alt_ok[i], &r, NULL), 0);
        deb_relations_free(r);
    }
    deb_field no_alt[] = { DEB_FIELD_BREAKS, DEB_FIELD_CONFLICTS, DEB_FIELD_REPLACES,
                           DEB_FIELD_PROVIDES, DEB_FIELD_BUILD_CONFLICTS };
    for (size_t i = 0; i < sizeof no_alt / sizeof no_alt[0]; i++)
        assert_int_equal(deb_relations_parse("a1 | b2", no_alt[i], &r, NULL), -1);
    assert_string_equal(deb_field_name(DEB_FIELD_PRE_DEPENDS), "Pre-Depends");
    assert_string_equal(deb_field_name(DEB_FIELD_BUILD_CONFLICTS), "Build-Conflicts");
}

static void test_names(void **state)
{
    (void)state;
    assert_true(deb_name_valid("g++", 3));
    assert_true(deb_name_valid("0ad", 3));
    assert_true(deb_name_valid("a.", 2));
    assert_false(deb_name_valid("a", 1));
    assert_false(deb_name_valid("+a", 2));
    assert_false(deb_name_valid("aB", 2));
    assert_false(deb_name_valid("a_b", 3));
    assert_false(deb_name_valid("", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure), cmocka_unit_test(test_format),
        cmocka_unit_test(test_errors),    cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

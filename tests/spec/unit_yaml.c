/* unit_yaml.c — spec_yaml_parse(): node positions, quoting, core tags,
 * merge keys and aliases, and the findings for text that is not one sound
 * document (checked in detail by the case suite; here the tree shape). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spec_internal.h"

static spec_node *parse(arena *mem, const char *text, size_t *nfind)
{
    spec_findings fs;
    spec_findings_init(&fs, mem);
    spec_node *root = spec_yaml_parse(mem, text, strlen(text), &fs);
    *nfind = fs.len;
    spec_findings_release(&fs);
    return root;
}

static void test_positions_and_quotes(void **state)
{
    (void)state;
    arena *mem = arena_new();
    size_t nf;
    spec_node *root = parse(mem, "a: 3.13\nb: \"3.13\"\nc: |\n  text\n", &nf);
    assert_int_equal(nf, 0);
    const spec_node *a = spec_node_get(root, "a"), *b = spec_node_get(root, "b"),
                    *c = spec_node_get(root, "c");
    assert_int_equal(a->kind, SN_FLOAT);
    assert_string_equal(a->text, "3.13"); /* the text as written survives */
    assert_int_equal(a->line, 1);
    assert_int_equal(a->column, 4);
    assert_int_equal(b->kind, SN_STR);
    assert_true(b->quoted);
    assert_int_equal(c->kind, SN_STR);
    assert_string_equal(c->text, "text\n");
    assert_int_equal(root->keys[1]->line, 2);
    arena_free(mem);
}

static void test_tags(void **state)
{
    (void)state;
    arena *mem = arena_new();
    size_t nf;
    spec_node *root = parse(mem, "a: !!str 3.13\nb: !!int \"7\"\nc: !!float 2\nd: ! 5\n", &nf);
    assert_int_equal(nf, 0);
    assert_int_equal(spec_node_get(root, "a")->kind, SN_STR);
    assert_int_equal(spec_node_get(root, "b")->kind, SN_INT);
    assert_int_equal(spec_node_get(root, "b")->i, 7);
    assert_int_equal(spec_node_get(root, "c")->kind, SN_FLOAT);
    assert_int_equal(spec_node_get(root, "d")->kind, SN_STR);
    assert_null(parse(mem, "a: !!python/object:os.system x\n", &nf));
    assert_int_equal(nf, 1);
    assert_null(parse(mem, "a: !!int abc\n", &nf));
    assert_int_equal(nf, 1);
    arena_free(mem);
}

static void test_merge_and_alias(void **state)
{
    (void)state;
    arena *mem = arena_new();
    size_t nf;
    spec_node *root = parse(mem,
                            "base: &b {x: 1, y: 2}\n"
                            "one: {<<: *b, y: 3}\n"
                            "list: &l [a, b]\n"
                            "again: *l\n",
                            &nf);
    assert_int_equal(nf, 0);
    const spec_node *one = spec_node_get(root, "one");
    assert_int_equal(one->n, 2);
    assert_int_equal(spec_node_get(one, "x")->i, 1);
    assert_int_equal(spec_node_get(one, "y")->i, 3); /* explicit keys win */
    assert_ptr_equal(spec_node_get(root, "again"), spec_node_get(root, "list"));
    assert_null(parse(mem, "a: *nowhere\n", &nf));
    assert_int_equal(nf, 1);
    arena_free(mem);
}

static void test_refusals(void **state)
{
    (void)state;
    arena *mem = arena_new();
    size_t nf;
    assert_null(parse(mem, "", &nf));
    assert_int_equal(nf, 1);
    assert_null(parse(mem, "# only a comment\n", &nf));
    assert_int_equal(nf, 1);
    assert_null(parse(mem, "a: [1, 2\n", &nf));
    assert_int_equal(nf, 1);
    assert_null(parse(mem, "? [a, b]\n: c\n", &nf));
    assert_int_equal(nf, 1);
    /* duplicate keys: findings, but the tree is still there */
    assert_non_null(parse(mem, "a: 1\nb: 2\na: 3\nb: 4\n", &nf));
    assert_int_equal(nf, 2);
    /* a list root is returned; the model refuses it */
    spec_node *root = parse(mem, "- a\n- b\n", &nf);
    assert_non_null(root);
    assert_int_equal(root->kind, SN_SEQ);
    arena_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positions_and_quotes),
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_merge_and_alias),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* unit_path.c — spec_node_get() and spec_node_at_path(): camelCase paths
 * find snake_case keys, keys with dots are found whole, list indexes step
 * into sequences, and a missing step returns the deepest node that exists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spec_internal.h"

static const char doc[] = "spec:\n"                       /* 1 */
                          "  packages:\n"                 /* 2 */
                          "    python:\n"                 /* 3 */
                          "      dependencies:\n"         /* 4 */
                          "        - numpy\n"             /* 5 */
                          "        - pandas\n"            /* 6 */
                          "  resources:\n"                /* 7 */
                          "    size_class: medium\n"      /* 8 */
                          "  env:\n"                      /* 9 */
                          "    A.B: one\n"                /* 10 */
                          "    A: two\n";                 /* 11 */

static spec_node *parse(arena *mem)
{
    spec_findings fs;
    spec_findings_init(&fs, mem);
    spec_node *root = spec_yaml_parse(mem, doc, strlen(doc), &fs);
    assert_int_equal(fs.len, 0);
    spec_findings_release(&fs);
    return root;
}

static void test_get(void **state)
{
    (void)state;
    arena *mem = arena_new();
    spec_node *root = parse(mem);
    assert_non_null(spec_node_get(root, "spec"));
    assert_null(spec_node_get(root, "spe"));
    assert_null(spec_node_get(NULL, "spec"));
    assert_null(spec_node_get(spec_node_get(spec_node_get(root, "spec"), "packages"), "node"));
    arena_free(mem);
}

static void test_at_path(void **state)
{
    (void)state;
    arena *mem = arena_new();
    spec_node *root = parse(mem);
    const spec_node *n = spec_node_at_path(root, "spec.packages.python.dependencies[1]");
    assert_string_equal(n->text, "pandas");
    assert_int_equal(n->line, 6);
    assert_int_equal(n->column, 11);
    /* snake_case in the document, camelCase in the path */
    n = spec_node_at_path(root, "spec.resources.sizeClass");
    assert_string_equal(n->text, "medium");
    /* a key with a dot, and its prefix key */
    n = spec_node_at_path(root, "spec.env.A.B");
    assert_string_equal(n->text, "one");
    n = spec_node_at_path(root, "spec.env.A");
    assert_string_equal(n->text, "two");
    /* missing steps: the deepest ancestor */
    n = spec_node_at_path(root, "spec.packages.python.indexes[0]");
    assert_int_equal(n->kind, SN_MAP);
    assert_int_equal(n->line, 4);
    n = spec_node_at_path(root, "spec.packages.python.dependencies[7]");
    assert_int_equal(n->kind, SN_SEQ);
    n = spec_node_at_path(root, "metadata.name");
    assert_ptr_equal(n, root);
    assert_null(spec_node_at_path(NULL, "spec"));
    assert_ptr_equal(spec_node_at_path(root, ""), root);
    arena_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get),
        cmocka_unit_test(test_at_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

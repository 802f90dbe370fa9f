/* test_datagen.c — unit tests for spec_datagen.c that the case files do not
 * show: the template table against the seed, recognizing a recipe, the
 * positions the built nodes keep, and the edges of the import's contract. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec_internal.h"
#include "spec_rules_internal.h"
#include "test_bases.h"

typedef struct fixture {
    arena *mem;
    spec_findings fs;
} fixture;

static int setup(void **state)
{
    fixture *f = xcalloc(1, sizeof *f);
    f->mem = arena_new();
    spec_findings_init(&f->fs, f->mem);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    spec_findings_release(&f->fs);
    arena_free(f->mem);
    free(f);
    return 0;
}

static spec_node *parse(fixture *f, const char *yaml)
{
    size_t before = f->fs.len;
    spec_node *root = spec_yaml_parse(f->mem, yaml, strlen(yaml), &f->fs);
    assert_non_null(root);
    assert_int_equal(f->fs.len, before);
    return root;
}

/* Follows a dotted path of map keys and [i] indexes (camelCase only). */
static const spec_node *at(const spec_node *n, const char *path)
{
    const spec_node *r = spec_node_at_path(n, path);
    return r;
}

static void template_names_in_seed_order(void **state)
{
    (void)state;
    size_t n = 0;
    const char *const *names = spec_datagen_template_names(&n);
    assert_int_equal(n, 4);
    assert_string_equal(names[0], "Data Science");
    assert_string_equal(names[1], "Data Engineering");
    assert_string_equal(names[2], "Web Scraping & HTTP");
    assert_string_equal(names[3], "Documents & Files");
    assert_null(names[4]);
    assert_non_null(spec_datagen_template_names(NULL));
}

/* Each built-in template pre-fills exactly the seed's pip list, in order. */
static void templates_are_the_seeds_lists(void **state)
{
    fixture *f = *state;
    static const char *const want[4][11] = {
        { "pandas", "numpy", "scipy", "scikit-learn", "matplotlib", "seaborn", "polars", "pyarrow",
          "openpyxl", "statsmodels", NULL },
        { "duckdb", "polars", "pyarrow", "sqlalchemy", "psycopg2-binary", "pandas", NULL },
        { "requests", "httpx", "beautifulsoup4", "lxml", NULL },
        { "openpyxl", "python-docx", "pypdf", "pillow", "markdown", "pandas", NULL },
    };
    const char *const *names = spec_datagen_template_names(NULL);
    for (size_t t = 0; t < 4; t++) {
        spec_node *env = spec_datagen_import(f->mem, NULL, names[t], test_first_base(), &f->fs);
        assert_non_null(env);
        assert_int_equal(f->fs.len, 0);
        const spec_node *deps = at(env, "spec.packages.python.dependencies");
        assert_int_equal(deps->kind, SN_SEQ);
        size_t k = 0;
        for (; want[t][k]; k++) {
            assert_true(k < deps->n);
            assert_string_equal(deps->items[k]->text, want[t][k]);
            assert_int_equal(deps->items[k]->line, 0); /* from the option: no position */
        }
        assert_int_equal(deps->n, k);
        assert_string_equal(at(env, "spec.packages.python.manager")->text, "pip");
        assert_string_equal(at(env, "metadata.title")->text, names[t]);
    }
}

static void recognizing_a_recipe(void **state)
{
    fixture *f = *state;
    assert_true(spec_datagen_looks_like(parse(f, "name: x\n")));
    assert_true(spec_datagen_looks_like(parse(f, "Base image (optional): python:3.12\n")));
    assert_true(spec_datagen_looks_like(parse(f, "packages: {pip: numpy}\nfoo: 1\n")));
    assert_false(spec_datagen_looks_like(parse(f, "apiVersion: v\nname: x\n")));
    assert_false(spec_datagen_looks_like(parse(f, "metadata: {name: x}\nspec: {}\n")));
    assert_false(spec_datagen_looks_like(parse(f, "kind: Environment\n")));
    assert_false(spec_datagen_looks_like(parse(f, "foo: 1\n")));
    assert_false(spec_datagen_looks_like(parse(f, "- name: x\n")));
    assert_false(spec_datagen_looks_like(NULL));
}

/* Built nodes keep the recipe's positions: each token of a plain package
 * string its own column, the name's slug the name's value. */
static void positions_follow_the_recipe(void **state)
{
    fixture *f = *state;
    spec_node *root = parse(f, "name: My Env\n"
                               "packages:\n"
                               "  pip: numpy, pandas==2.2.2\n"
                               "  apt:\n"
                               "    - \"curl jq\"\n"
                               "resources: {cpu: 2}\n"
                               "baseImage: python:3.12-slim\n");
    spec_node *env = spec_datagen_import(f->mem, root, NULL, test_first_base(), &f->fs);
    assert_non_null(env);
    assert_int_equal(f->fs.len, 0);
    const spec_node *n = at(env, "metadata.name");
    assert_string_equal(n->text, "my-env");
    assert_int_equal(n->line, 1);
    assert_int_equal(n->column, 7);
    const spec_node *deps = at(env, "spec.packages.python.dependencies");
    assert_int_equal(deps->n, 2);
    assert_int_equal(deps->items[0]->line, 3);
    assert_int_equal(deps->items[0]->column, 8);
    assert_int_equal(deps->items[1]->column, 15);
    const spec_node *apt = at(env, "spec.packages.system.apt");
    assert_int_equal(apt->n, 2);
    assert_int_equal(apt->items[1]->line, 5); /* quoted: the scalar's position */
    assert_int_equal(apt->items[1]->column, 7);
    const spec_node *cpu = at(env, "spec.resources.hints.cpu");
    assert_int_equal(cpu->kind, SN_INT);
    assert_int_equal(cpu->i, 2);
    assert_int_equal(cpu->line, 6);
    const spec_node *ver = at(env, "spec.language.version");
    assert_int_equal(ver->kind, SN_STR); /* a string, never the number 3.12 */
    assert_string_equal(ver->text, "3.12");
    assert_string_equal(at(env, "spec.build.image.reference")->text, "python:3.12-slim");
    assert_int_equal(at(env, "spec.build.source")->line, 7);
}

static void nothing_to_import(void **state)
{
    fixture *f = *state;
    assert_null(spec_datagen_import(f->mem, NULL, NULL, test_first_base(), &f->fs));
    assert_int_equal(f->fs.len, 1);
    assert_string_equal(f->fs.items[0].field, "(document)");
    assert_null(spec_datagen_import(f->mem, NULL, "No Such Template", test_first_base(), &f->fs));
    assert_int_equal(f->fs.len, 2);
    assert_string_equal(f->fs.items[1].field, "template");
    assert_null(spec_datagen_import(f->mem, parse(f, "[1, 2]"), NULL, test_first_base(), &f->fs));
    assert_int_equal(f->fs.len, 3);
    /* an empty document with a template is the template alone */
    spec_node null_root_node = { .kind = SN_NULL, .line = 1, .column = 1, .text = "~", .text_len = 1 };
    spec_node *null_root = &null_root_node;
    spec_node *env = spec_datagen_import(f->mem, null_root, "Data Science", test_first_base(),
                                         &f->fs);
    assert_non_null(env);
    assert_int_equal(f->fs.len, 3);
    assert_string_equal(at(env, "metadata.name")->text, "data-science");
}

/* A refused entry is left out of the tree, so the model and rules do not
 * report it again under Environment field names. */
static void refused_entries_are_left_out(void **state)
{
    fixture *f = *state;
    spec_node *root = parse(f, "name: x\n"
                               "packages: {pip: 'numpy == 1', apt: 'curl Bad', npm: 'ok BAD'}\n"
                               "registries: {pipIndexUrl: 'ftp://x/simple', npmRegistryUrl: x}\n"
                               "resources: {cpu: 3, memory: 2, disk: 5}\n");
    spec_node *env = spec_datagen_import(f->mem, root, NULL, test_first_base(), &f->fs);
    assert_non_null(env);
    assert_int_equal(f->fs.len, 6);
    const spec_node *deps = at(env, "spec.packages.python.dependencies");
    assert_int_equal(deps->n, 1);
    assert_string_equal(deps->items[0]->text, "numpy");
    assert_int_equal(at(env, "spec.packages.system.apt")->n, 1);
    assert_int_equal(at(env, "spec.packages.node.dependencies")->n, 1);
    assert_null(spec_node_get(at(env, "spec.packages.python"), "indexes"));
    assert_null(spec_node_get(at(env, "spec.packages.node"), "registry"));
    const spec_node *hints = at(env, "spec.resources.hints");
    assert_null(spec_node_get(hints, "cpu"));
    assert_int_equal(spec_node_get(hints, "memoryGi")->i, 2);
    assert_int_equal(spec_node_get(hints, "diskGi")->i, 5);
    for (size_t i = 0; i < f->fs.len; i++)
        assert_int_equal(f->fs.items[i].code, EL_SPEC_INVALID);
}

static void slug_is_a_dns_label(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *name, *slug;
    } cases[] = {
        { "Data Science", "data-science" },
        { "  --Hello,   World!--  ", "hello-world" },
        { "Crème Brûlée 2", "creme-brulee-2" },
        { "Straße", "strasse" },
        { "a×b", "a-b" },
        { "v1.2_beta", "v1-2-beta" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *yaml = xasprintf("name: \"%s\"\n", cases[i].name);
        spec_node *env =
            spec_datagen_import(f->mem, parse(f, yaml), NULL, test_first_base(), &f->fs);
        free(yaml);
        assert_string_equal(at(env, "metadata.name")->text, cases[i].slug);
    }
    /* 62 letters, a space, a letter: cut at 63 leaves a trailing '-', trimmed */
    char long_name[80];
    memset(long_name, 'a', 62);
    memcpy(long_name + 62, " b", 3);
    char *yaml = xasprintf("name: %s\n", long_name);
    spec_node *env = spec_datagen_import(f->mem, parse(f, yaml), NULL, test_first_base(), &f->fs);
    free(yaml);
    const char *slug = at(env, "metadata.name")->text;
    assert_int_equal(strlen(slug), 62);
    assert_int_equal(f->fs.len, 0);
}

/* npm entries go through the npm grammar, its message naming the recipe
 * field. Skipped while the spec module links a stand-in for that grammar. */
static void npm_grammar_findings(void **state)
{
    fixture *f = *state;
    char *err = NULL;
    bool stand_in = spec_check_npm("zod@^^3", &err);
    free(err);
    if (stand_in)
        skip();
    spec_node *root = parse(f, "name: x\npackages: {npm: 'zod@^^3 left-pad@github:x/y ok@^1'}\n");
    spec_node *env = spec_datagen_import(f->mem, root, NULL, test_first_base(), &f->fs);
    assert_non_null(env);
    assert_int_equal(f->fs.len, 2);
    assert_string_equal(f->fs.items[0].field, "packages.npm[0]");
    assert_string_equal(f->fs.items[1].field, "packages.npm[1]");
    assert_non_null(strstr(f->fs.items[0].message, "zod@^^3"));
    const spec_node *deps = at(env, "spec.packages.node.dependencies");
    assert_int_equal(deps->n, 1);
    assert_string_equal(deps->items[0]->text, "ok@^1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(template_names_in_seed_order),
        cmocka_unit_test_setup_teardown(templates_are_the_seeds_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(recognizing_a_recipe, setup, teardown),
        cmocka_unit_test_setup_teardown(positions_follow_the_recipe, setup, teardown),
        cmocka_unit_test_setup_teardown(nothing_to_import, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_entries_are_left_out, setup, teardown),
        cmocka_unit_test_setup_teardown(slug_is_a_dns_label, setup, teardown),
        cmocka_unit_test_setup_teardown(npm_grammar_findings, setup, teardown),
    };
    return cmocka_run_group_tests_name("datagen", tests, NULL, NULL);
}

/* datagen_driver.c — runs the DataGen importer on a recipe file for the
 * case tests (run_cases.py).
 *   datagen_driver tree FILE [TEMPLATE]
 *       spec_yaml_parse + spec_datagen_import only: prints the Environment
 *       tree the importer builds, as JSON (keys in tree order), then one line
 *       per finding "LINE:COL FIELD: MESSAGE".
 *   datagen_driver normalized FILE [TEMPLATE]     (built with the public API)
 *       el_spec_load_file with EL_SPEC_FORMAT_DATAGEN: prints the normalized
 *       document, or the findings as above.
 * FILE "-" with a TEMPLATE means no recipe, the template alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "spec_internal.h"
#include "test_bases.h"

static struct json_object *tree_json(const spec_node *n)
{
    if (!n)
        return NULL;
    switch (n->kind) {
    case SN_NULL:
        return NULL;
    case SN_BOOL:
        return json_object_new_boolean(n->b);
    case SN_INT:
        return json_object_new_int64(n->i);
    case SN_FLOAT:
        return json_object_new_double(n->f);
    case SN_STR:
        return json_object_new_string_len(n->text, (int)n->text_len);
    case SN_SEQ: {
        struct json_object *a = json_object_new_array();
        for (size_t i = 0; i < n->n; i++)
            json_object_array_add(a, tree_json(n->items[i]));
        return a;
    }
    case SN_MAP: {
        struct json_object *o = json_object_new_object();
        for (size_t i = 0; i < n->n; i++)
            json_object_object_add(o, n->keys[i]->text, tree_json(n->items[i]));
        return o;
    }
    }
    return NULL;
}

static void print_findings(const el_finding *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%u:%u %s: %s\n", f[i].line, f[i].column, f[i].field, f[i].message);
}

static int run_tree(const char *path, const char *tpl)
{
    arena *mem = arena_new();
    spec_findings fs;
    spec_findings_init(&fs, mem);
    spec_node *root = NULL;
    char *text = NULL;
    if (strcmp(path, "-") != 0) {
        size_t len;
        text = read_file(path, SPEC_MAX_BYTES, &len);
        if (!text) {
            perror(path);
            return 2;
        }
        root = spec_yaml_parse(mem, text, len, &fs);
    }
    spec_node *env = fs.len ? NULL : spec_datagen_import(mem, root, tpl, test_first_base(), &fs);
    if (env) {
        struct json_object *j = tree_json(env);
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
                                                   JSON_C_TO_STRING_SPACED |
                                                   JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
    } else {
        puts("null");
    }
    spec_findings_sort(&fs);
    print_findings(fs.items, fs.len);
    spec_findings_release(&fs);
    arena_free(mem);
    free(text);
    return 0;
}

#ifdef DATAGEN_PUBLIC_API
static int run_normalized(const char *path, const char *tpl)
{
    el_ctx *ctx = el_ctx_new();
    const el_spec_options *opts = test_spec_options(EL_SPEC_FORMAT_DATAGEN, tpl);
    el_spec *spec = strcmp(path, "-") == 0 ? el_spec_load_text(ctx, "", 0, "-", opts)
                                           : el_spec_load_file(ctx, path, opts);
    if (!spec) {
        printf("error: %s\n", el_ctx_message(ctx));
        el_ctx_free(ctx);
        return 0;
    }
    size_t n = el_spec_finding_count(spec);
    if (n == 0) {
        char *json = el_spec_normalized_json(ctx, spec, true);
        puts(json ? json : "null");
        el_free(json);
    } else {
        puts("null");
        for (size_t i = 0; i < n; i++)
            print_findings(el_spec_finding(spec, i), 1);
    }
    el_spec_free(spec);
    el_ctx_free(ctx);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: datagen_driver tree|normalized FILE [TEMPLATE]\n");
        return 2;
    }
    const char *tpl = argc == 4 ? argv[3] : NULL;
    if (strcmp(argv[1], "tree") == 0)
        return run_tree(argv[2], tpl);
#ifdef DATAGEN_PUBLIC_API
    if (strcmp(argv[1], "normalized") == 0)
        return run_normalized(argv[2], tpl);
#endif
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}

/* spec_entries.c — the lists a resolve starts from (Python dependencies and
 * constraints, npm dependencies, apt packages, variants) with the field path
 * of each entry, and their positions found by reading the spec's text again
 * (the spec object keeps only the normalized document). Read-only: nothing
 * here changes a spec. Also el_spec_text(), a string at a dotted path. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "spec_internal.h"
#include "spec_requirements.h"

static json_object *at_path(const el_spec *s, const char *path)
{
    json_object *o = (json_object *)spec_document(s);
    char *copy = xstrdup(path), *save = NULL;
    for (char *k = strtok_r(copy, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
        if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &o))
            o = NULL;
    free(copy);
    return o;
}

const char *el_spec_text(const el_spec *spec, const char *path)
{
    json_object *v = spec ? at_path(spec, path) : NULL;
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static const struct {
    el_spec_list list;
    const char *path;
} lists_table[] = {
    { EL_SPEC_PYTHON_DEPENDENCIES, "spec.packages.python.dependencies" },
    { EL_SPEC_PYTHON_CONSTRAINTS, "spec.packages.python.constraints" },
    { EL_SPEC_NODE_DEPENDENCIES, "spec.packages.node.dependencies" },
    { EL_SPEC_APT, "spec.packages.system.apt" },
    { EL_SPEC_VARIANTS, "spec.compatibility.variants.required" },
    { EL_SPEC_VARIANTS, "spec.compatibility.variants.optional" },
};

el_spec_entry *el_spec_entries(const el_spec *spec, unsigned lists, size_t *n)
{
    *n = 0;
    if (!spec || !spec_document(spec))
        return NULL;
    ptrvec found = PTRVEC_INIT;
    arena *mem = spec_arena(spec);
    for (size_t t = 0; t < sizeof lists_table / sizeof lists_table[0]; t++) {
        if (!(lists & lists_table[t].list))
            continue;
        json_object *a = at_path(spec, lists_table[t].path);
        if (!a || !json_object_is_type(a, json_type_array))
            continue;
        size_t len = json_object_array_length(a);
        for (size_t i = 0; i < len; i++) {
            json_object *e = json_object_array_get_idx(a, i);
            if (!json_object_is_type(e, json_type_string))
                continue;
            el_spec_entry *en = arena_alloc(mem, sizeof *en);
            en->list = lists_table[t].list;
            en->text = json_object_get_string(e);
            en->field = arena_sprintf(mem, "%s[%zu]", lists_table[t].path, i);
            ptrvec_push(&found, en);
        }
    }
    el_spec_entry *out = NULL;
    if (found.len) {
        out = xcalloc(found.len, sizeof *out);
        for (size_t i = 0; i < found.len; i++)
            out[i] = *(el_spec_entry *)found.items[i];
        *n = found.len;
    }
    ptrvec_release(&found);
    return out;
}

/* The tree of the text a spec was loaded from, as el_spec_load_text()
 * chose to read it (a recipe imported, keeping the recipe's positions),
 * with the arena and findings it lives in. reread_done() frees them. */
typedef struct reread_doc {
    arena *mem;
    spec_findings fs;
    spec_node *root; /* NULL if the text does not parse */
} reread_doc;

static void reread(reread_doc *d, const char *text, size_t len, const el_spec_options *opts)
{
    el_spec_format format = opts ? opts->format : EL_SPEC_FORMAT_AUTO;
    const char *template_name = opts ? opts->template_name : NULL;
    d->mem = arena_new();
    spec_findings_init(&d->fs, d->mem);
    d->root = spec_yaml_parse(d->mem, text, len, &d->fs);
    if (d->root && (format == EL_SPEC_FORMAT_DATAGEN || template_name ||
                    (format == EL_SPEC_FORMAT_AUTO && spec_datagen_looks_like(d->root))))
        d->root = spec_datagen_import(d->mem, d->root, template_name, spec_first_base(opts),
                                     &d->fs);
}

static void reread_done(reread_doc *d)
{
    spec_findings_release(&d->fs);
    arena_free(d->mem);
}

void spec_reqfile_locate(const char *text, size_t len, const el_spec_options *opts,
                         const char *field, spec_req *reqs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        reqs[i].file_line = reqs[i].file_column = 0;
    if (!text || !n)
        return;
    reread_doc d;
    reread(&d, text, len, opts);
    const spec_node *at =
        d.root ? spec_node_at_path(d.root, field ? field : "spec.build.dependencyFile.content")
               : NULL;
    for (size_t i = 0; at && at->kind == SN_STR && i < n; i++)
        spec_reqfile_file_position(at->line, at->column, at->body_line, at->body_column,
                                   reqs[i].line, reqs[i].column, &reqs[i].file_line,
                                   &reqs[i].file_column);
    reread_done(&d);
}

void el_spec_entries_locate(el_spec_entry *entries, size_t n, const char *text, size_t len,
                            const el_spec_options *opts)
{
    if (!text || !n)
        return;
    reread_doc d;
    reread(&d, text, len, opts);
    for (size_t i = 0; d.root && i < n; i++) {
        const spec_node *node = spec_node_at_path(d.root, entries[i].field);
        /* Only an exact hit counts: the deepest ancestor is not the entry. */
        if (node && (node->kind == SN_STR || node->kind == SN_INT || node->kind == SN_FLOAT ||
                     node->kind == SN_BOOL)) {
            entries[i].line = node->line;
            entries[i].column = node->column;
        }
    }
    reread_done(&d);
}

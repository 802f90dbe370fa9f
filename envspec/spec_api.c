/* spec_api.c — the public el_spec_* functions: loading a spec from a file or
 * text (YAML -> tree -> [DataGen import] -> model -> rules, every stage
 * running on what the previous one could make of the input), reporting its
 * findings, and the digest and normalized forms of a valid spec. Owns the
 * el_spec object and its arena; every string it hands out is borrowed from
 * that arena or malloc'd for the caller as documented in envlock/spec.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "spec_internal.h"

struct el_spec {
    arena *mem;
    spec_findings fs;
    spec_node *root;
    json_object *doc; /* the normalized document; NULL if the tree was unusable */
    const char *text; /* the source, for showing a finding's line; in mem */
    size_t text_len;
    size_t *line_starts; /* where each line of text starts (index_lines()); in mem */
    size_t n_lines;
    bool recipe;      /* read from a DataGen recipe (spec_datagen_import()) */
};

/* The start of every line of s->text, so that el_spec_source_line() finds
 * a line at once: marking a finding per line of a long spec (60000
 * duplicate keys) read the text once per finding, in quadratic time. */
static void index_lines(el_spec *s)
{
    size_t n = 1;
    for (size_t i = 0; i < s->text_len; i++)
        n += s->text[i] == '\n';
    s->line_starts = arena_alloc(s->mem, n * sizeof *s->line_starts);
    s->n_lines = 0;
    s->line_starts[s->n_lines++] = 0;
    for (size_t i = 0; i < s->text_len; i++)
        if (s->text[i] == '\n')
            s->line_starts[s->n_lines++] = i + 1;
}

static el_spec *spec_new(void)
{
    el_spec *s = xcalloc(1, sizeof *s);
    s->mem = arena_new();
    spec_findings_init(&s->fs, s->mem);
    return s;
}

static bool blank(const char *text, size_t len)
{
    for (size_t k = 0; k < len; k++)
        if (!strchr(" \t\r\n", text[k]))
            return false;
    return true;
}

/* The importer also notices a recipe key given twice, which the YAML reader
 * has already reported at the same node: keep only the reader's finding.
 * Findings [from, len) that repeat the field and position of one before
 * `from` are removed. A sorted index keeps this O(n log n) for a hostile
 * recipe with a duplicate on every line. */
static int pos_cmp(const void *a, const void *b)
{
    const el_finding *x = *(const el_finding *const *)a, *y = *(const el_finding *const *)b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->column < y->column ? -1 : x->column > y->column;
}

static void drop_repeats(spec_findings *fs, size_t from)
{
    if (from == 0 || fs->len == from)
        return;
    const el_finding **idx = xmalloc(from * sizeof *idx);
    for (size_t j = 0; j < from; j++)
        idx[j] = &fs->items[j];
    qsort(idx, from, sizeof *idx, pos_cmp);
    size_t out = from;
    for (size_t k = from; k < fs->len; k++) {
        el_finding f = fs->items[k];
        bool repeat = false;
        if (f.line != 0) {
            /* the first of the earlier findings at f's position */
            const el_finding *key = &f;
            size_t lo = 0, hi = from;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (pos_cmp(&idx[mid], &key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t j = lo; j < from && !repeat && pos_cmp(&idx[j], &key) == 0; j++)
                repeat = strcmp(idx[j]->field, f.field) == 0;
        }
        if (!repeat)
            fs->items[out++] = f;
    }
    fs->len = out;
    free(idx);
}

const el_spec_base *spec_first_base(const el_spec_options *opts)
{
    return opts && opts->bases && opts->n_bases ? &opts->bases[0] : NULL;
}

/* A finding on a line that holds a credential is secret whatever rule
 * made it: a requirements line's index URL, say, is not shown. */
static void mark_secret_lines(el_spec *s)
{
    for (size_t k = 0; k < s->fs.len; k++) {
        el_finding *f = &s->fs.items[k];
        size_t n;
        const char *line = el_spec_source_line(s, f->line, &n);
        if (f->secret || !line)
            continue;
        char *copy = xstrndup(line, n);
        f->secret = spec_text_is_secretish(copy);
        free(copy);
    }
}

el_spec *el_spec_load_text(el_ctx *ctx, const char *text, size_t len, const char *origin,
                           const el_spec_options *opts)
{
    (void)ctx;
    (void)origin;
    el_spec *s = spec_new();
    char *copy = arena_alloc(s->mem, len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    s->text = copy;
    s->text_len = len;
    index_lines(s);
    el_spec_format format = opts ? opts->format : EL_SPEC_FORMAT_AUTO;
    const char *template_name = opts ? opts->template_name : NULL;
    unsigned flags = 0;

    spec_node *root = NULL;
    bool template_only = template_name && blank(text, len);
    if (!template_only)
        root = spec_yaml_parse(s->mem, text, len, &s->fs);
    /* Only text with no document at all stops here. Everything else goes
     * through every stage, each doing what it can with what the earlier
     * ones left (duplicate keys, recipe entries the importer refused, fields
     * that fail their types), so that one run reports every finding. The
     * reference stops at the first stage with errors; envlock reports more,
     * never different, findings. */
    if ((root || template_only) &&
        (format == EL_SPEC_FORMAT_DATAGEN || template_name ||
         (format == EL_SPEC_FORMAT_AUTO && root && spec_datagen_looks_like(root)))) {
        size_t parsed = s->fs.len;
        root = spec_datagen_import(s->mem, root, template_name, spec_first_base(opts), &s->fs);
        drop_repeats(&s->fs, parsed);
        flags |= SPEC_RULES_DATAGEN;
        s->recipe = true;
    }
    s->root = root;
    if (opts && opts->resolve_checks)
        flags |= SPEC_RULES_RESOLVE;
    if (root) {
        s->doc = spec_model_build(root, &s->fs);
        if (s->doc)
            spec_rules_check(s->doc, root, flags, opts ? opts->bases : NULL,
                             opts ? opts->n_bases : 0, &s->fs);
    }
    if (!s->doc && s->fs.len == 0)
        spec_finding_add_pos(&s->fs, 0, 0, "(document)", EL_SPEC_INVALID,
                             "holds nothing usable as an Environment");
    spec_findings_sort(&s->fs);
    mark_secret_lines(s);
    return s;
}

el_spec *el_spec_load_file(el_ctx *ctx, const char *path, const el_spec_options *opts)
{
    size_t len = 0;
    char *text = read_file(path, SPEC_MAX_BYTES, &len);
    if (!text) {
        int err = errno;
        struct stat st;
        if (err == EFBIG && stat(path, &st) == 0) {
            el_spec *s = spec_new();
            spec_finding_add_pos(&s->fs, 0, 0, "(document)", EL_SPEC_INVALID,
                                 "is %lld bytes; a spec is at most %d bytes", (long long)st.st_size,
                                 SPEC_MAX_BYTES);
            return s;
        }
        el_fail(ctx, EL_SPEC_INVALID, "%s: cannot be read: %s", path, file_strerror(err));
        el_detail_str(ctx, "reason", err == ENOENT ? "file_not_found" : "unreadable");
        el_detail_str(ctx, "path", path);
        return NULL;
    }
    el_spec *s = el_spec_load_text(ctx, text, len, path, opts);
    free(text);
    return s;
}

void el_spec_free(el_spec *spec)
{
    if (!spec)
        return;
    json_object_put(spec->doc);
    spec_findings_release(&spec->fs);
    arena_free(spec->mem);
    free(spec);
}

const char *el_spec_source_line(const el_spec *spec, unsigned line, size_t *len)
{
    *len = 0;
    if (!spec || !spec->text || line == 0 || line > spec->n_lines)
        return NULL;
    const char *p = spec->text + spec->line_starts[line - 1];
    const char *end = spec->text + spec->text_len;
    if (p == end)
        return NULL;
    const char *stop = line < spec->n_lines ? spec->text + spec->line_starts[line] - 1 : end;
    if (stop > p && stop[-1] == '\r')
        stop--;
    *len = (size_t)(stop - p);
    return p;
}

bool el_spec_only_uv_drift(const el_spec *spec)
{
    size_t n = el_spec_finding_count(spec);
    for (size_t i = 0; i < n; i++) {
        const el_finding *f = &spec->fs.items[i];
        if (f->code != EL_RESOLVE_CONFLICT ||
            strcmp(f->field, "spec.build.dependencyFile.lockContent") != 0)
            return false;
    }
    return n > 0;
}

size_t el_spec_finding_count(const el_spec *spec) { return spec ? spec->fs.len : 0; }

const el_finding *el_spec_finding(const el_spec *spec, size_t i)
{
    return spec && i < spec->fs.len ? &spec->fs.items[i] : NULL;
}

el_code el_spec_validate(el_ctx *ctx, const el_spec *spec)
{
    if (spec->fs.len == 0)
        return EL_OK;
    /* Invalid outranks unsupported and denied: the user fixes the document
     * before anything else matters. */
    const el_finding *chosen = &spec->fs.items[0];
    for (size_t k = 0; k < spec->fs.len; k++)
        if (spec->fs.items[k].code == EL_SPEC_INVALID) {
            chosen = &spec->fs.items[k];
            break;
        }
    el_fail(ctx, chosen->code, "%s: %s", chosen->field, chosen->message);
    json_object *list = json_object_new_array();
    for (size_t k = 0; k < spec->fs.len; k++) {
        const el_finding *f = &spec->fs.items[k];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "field", json_object_new_string(f->field));
        json_object_object_add(o, "line", json_object_new_int64(f->line));
        json_object_object_add(o, "column", json_object_new_int64(f->column));
        json_object_object_add(o, "message", json_object_new_string(f->message));
        json_object_object_add(o, "code", json_object_new_string(el_code_name(f->code)));
        json_object_array_add(list, o);
    }
    el_detail_str(ctx, "field", chosen->field);
    el_detail_take(ctx, "findings", list);
    return chosen->code;
}

const char *el_spec_name(const el_spec *spec)
{
    if (!spec)
        return "";
    json_object *md, *name;
    if (spec->doc && json_object_object_get_ex(spec->doc, "metadata", &md) &&
        json_object_object_get_ex(md, "name", &name) && json_object_is_type(name, json_type_string))
        return json_object_get_string(name);
    const spec_node *n = spec_node_get(spec_node_get(spec->root, "metadata"), "name");
    return n && n->kind == SN_STR ? n->text : "";
}

char *el_spec_canonical_json(el_ctx *ctx, const el_spec *spec)
{
    if (el_spec_validate(ctx, spec) != EL_OK)
        return NULL;
    json_object *body;
    if (!spec->doc || !json_object_object_get_ex(spec->doc, "spec", &body)) {
        el_fail(ctx, EL_INTERNAL, "the normalized document has no spec");
        return NULL;
    }
    char *err = NULL;
    char *jcs = spec_jcs_serialize(body, &err);
    if (!jcs) {
        el_fail(ctx, EL_SPEC_INVALID, "spec: %s", err ? err : "cannot be canonicalized");
        el_detail_str(ctx, "field", "spec");
        free(err);
        return NULL;
    }
    return jcs;
}

el_code el_spec_digest(el_ctx *ctx, const el_spec *spec, char out[EL_DIGEST_SIZE])
{
    out[0] = '\0';
    char *jcs = el_spec_canonical_json(ctx, spec);
    if (!jcs)
        return el_ctx_code(ctx);
    char hex[65];
    sha256_hex(jcs, strlen(jcs), hex);
    snprintf(out, EL_DIGEST_SIZE, "sha256:%s", hex);
    free(jcs);
    return EL_OK;
}

char *el_spec_normalized_json(el_ctx *ctx, const el_spec *spec, bool pretty)
{
    if (el_spec_validate(ctx, spec) != EL_OK)
        return NULL;
    int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);
    return xstrdup(json_object_to_json_string_ext(spec->doc, flags));
}

const char *const *el_spec_template_names(size_t *n) { return spec_datagen_template_names(n); }

/* For spec_access.c: the normalized document and the spec's arena. */
const json_object *spec_document(const el_spec *s)
{
    return s->fs.len ? NULL : s->doc;
}

arena *spec_arena(const el_spec *s)
{
    return s->mem;
}

const char *el_spec_recipe_field(const el_spec *spec, const char *field)
{
    return spec && spec->recipe && field ? spec_datagen_field(spec->root, field) : NULL;
}

bool el_spec_locate(const el_spec *spec, const char *field, unsigned *line, unsigned *column)
{
    const spec_node *n = spec && field ? spec_node_at_path(spec->root, field) : NULL;
    *line = n ? n->line : 0;
    *column = n ? n->column : 0;
    return n && n->line;
}

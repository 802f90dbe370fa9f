/* lock_read.c — a lock's text back into a lock_doc, strictly.
 *
 * Owns the reading side of the format in docs/lock-format.md. libyaml's
 * event stream is composed here into a node tree (as yaml_parser_load()
 * would, but refusing deep nesting as it opens), which is then walked
 * against the format, refusing, with the line and column of the offending node and the
 * field path, everything a canonical lock never contains: a syntax error,
 * another lock format version (checked before anything else, so a newer lock
 * says so instead of listing its unknown keys), unknown or duplicate keys,
 * missing required keys, wrong types (a plain scalar YAML would read as a
 * number, boolean or null where a string belongs — `version: 1.10` — is a
 * wrong type, not a string), anchors and aliases, explicit tags, NUL
 * characters, and more than one document. Key order is not checked (YAML
 * mappings are unordered); writing the doc again restores canonical order.
 * A lock is input that may be hostile: text past LOCK_MAX_BYTES is refused
 * before it is parsed, and nesting past LOCK_MAX_DEPTH where it opens,
 * before the text after it is scanned (lock.h says why). Everything read lives in the new doc's arena. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#include "lock_internal.h"

/* The node tree of one document, as libyaml's yaml_document_t holds it
 * (yaml_node_t, 1-based indices, an alias is its anchor's index), but
 * composed here from the event stream so that nesting is refused as it
 * opens: yaml_parser_load() would first build all of it. */
typedef struct tree {
    yaml_node_t *nodes;    /* index i is nodes[i - 1] */
    size_t n, alloc;
    int *stack;            /* children of the open containers */
    size_t top, cap;
    struct anchor { const char *name; int idx; } *anchors;
    size_t n_anchors, cap_anchors;
    arena *mem;            /* scalar values, tags, anchor names, items, pairs */
} tree;

typedef struct reader {
    el_ctx *ctx;
    tree *y;
    lock_doc *d;
    arena *scratch;        /* field paths */
    unsigned char *seen;   /* per node index: visited once already */
    size_t n_nodes;
    bool failed;
} reader;

static bool fail_at(reader *r, const yaml_mark_t *m, const char *field, const char *fmt, ...)
    EL_PRINTF(4, 5);

static bool fail_at(reader *r, const yaml_mark_t *m, const char *field, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    if (field && !*field) /* the root mapping itself */
        field = NULL;
    va_list ap;
    va_start(ap, fmt);
    char *what = xvasprintf(fmt, ap);
    va_end(ap);
    unsigned long line = m ? (unsigned long)m->line + 1 : 1;
    unsigned long col = m ? (unsigned long)m->column + 1 : 1;
    if (field)
        el_fail(r->ctx, EL_SPEC_INVALID, "invalid lock at line %lu, column %lu: %s: %s", line, col,
                field, what);
    else
        el_fail(r->ctx, EL_SPEC_INVALID, "invalid lock at line %lu, column %lu: %s", line, col,
                what);
    el_detail_str(r->ctx, "reason", "invalid_lock");
    el_detail_int(r->ctx, "line", (int64_t)line);
    el_detail_int(r->ctx, "column", (int64_t)col);
    el_detail_str(r->ctx, "field", field ? field : "(document)");
    free(what);
    return false;
}

/* Field paths ("packages[3].dependencies[0].name") are made for every node
 * visited, since a failure must name its field, so they are concatenated
 * directly: through printf they were a fifth of reading a 400-package lock. */
static const char *path2(reader *r, const char *parent, const char *k)
{
    size_t pl = parent ? strlen(parent) : 0, kl = strlen(k);
    char *s = arena_alloc(r->scratch, pl + kl + 2);
    char *p = s;
    if (pl) {
        memcpy(p, parent, pl);
        p += pl;
        *p++ = '.';
    }
    memcpy(p, k, kl + 1);
    return s;
}

static const char *path_idx(reader *r, const char *parent, size_t i)
{
    char digits[24];
    size_t nd = 0;
    do
        digits[nd++] = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    size_t pl = strlen(parent);
    char *s = arena_alloc(r->scratch, pl + nd + 3);
    memcpy(s, parent, pl);
    char *p = s + pl;
    *p++ = '[';
    while (nd)
        *p++ = digits[--nd];
    *p++ = ']';
    *p = '\0';
    return s;
}

static const char *type_name(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: break;
    }
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return "a string";
    switch (lock_plain_classify((const char *)n->data.scalar.value, n->data.scalar.length, NULL)) {
    case LOCK_PLAIN_NULL: return "null";
    case LOCK_PLAIN_BOOL: return "a boolean";
    case LOCK_PLAIN_NUMBER: return "an unquoted number";
    default: return "a string";
    }
}

static yaml_node_t *tree_node(const tree *t, int idx)
{
    return idx >= 1 && (size_t)idx <= t->n ? &t->nodes[idx - 1] : NULL;
}

/* Fetches node `idx`, refusing a node reached twice (an alias) and tags a
 * lock never uses. */
static yaml_node_t *node(reader *r, int idx, const char *field)
{
    yaml_node_t *n = tree_node(r->y, idx);
    if (!n) {
        fail_at(r, NULL, field, "missing node");
        return NULL;
    }
    size_t i = (size_t)idx - 1;
    if (i < r->n_nodes) {
        if (r->seen[i]) {
            fail_at(r, &n->start_mark, field, "anchors and aliases are not used in locks");
            return NULL;
        }
        r->seen[i] = 1;
    }
    const char *tag = (const char *)n->tag;
    const char *want = n->type == YAML_SCALAR_NODE     ? YAML_STR_TAG
                       : n->type == YAML_SEQUENCE_NODE ? YAML_SEQ_TAG
                                                       : YAML_MAP_TAG;
    if (tag && strcmp(tag, want) != 0) {
        fail_at(r, &n->start_mark, field, "the tag `%s` is not used in locks", tag);
        return NULL;
    }
    return n;
}

static bool want_type(reader *r, yaml_node_t *n, yaml_node_type_t t, const char *field)
{
    if (n->type == t)
        return true;
    const char *exp = t == YAML_MAPPING_NODE ? "a mapping" : t == YAML_SEQUENCE_NODE ? "a list"
                                                                                      : "a scalar";
    return fail_at(r, &n->start_mark, field, "expected %s, found %s", exp, type_name(n));
}

static const char *get_str(reader *r, yaml_node_t *n, const char *field)
{
    if (n->type != YAML_SCALAR_NODE ||
        (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
         lock_plain_classify((const char *)n->data.scalar.value, n->data.scalar.length, NULL) !=
             LOCK_PLAIN_STRING)) {
        fail_at(r, &n->start_mark, field, "expected a string, found %s%s", type_name(n),
                n->type == YAML_SCALAR_NODE ? " (quote it)" : "");
        return NULL;
    }
    const char *v = (const char *)n->data.scalar.value;
    size_t len = n->data.scalar.length;
    if (memchr(v, '\0', len)) {
        fail_at(r, &n->start_mark, field, "a NUL character is not allowed");
        return NULL;
    }
    return arena_strndup(r->d->mem, v, len);
}

static bool get_u64(reader *r, yaml_node_t *n, const char *field, uint64_t *out)
{
    const char *v = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
    size_t len = v ? n->data.scalar.length : 0;
    bool ok = v && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && len > 0 && len <= 20 &&
              !(len > 1 && v[0] == '0');
    uint64_t x = 0;
    for (size_t i = 0; ok && i < len; i++) {
        unsigned dgt = (unsigned)(v[i] - '0');
        if (dgt > 9 || x > (UINT64_MAX - dgt) / 10)
            ok = false;
        else
            x = x * 10 + dgt;
    }
    if (!ok) {
        if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            return fail_at(r, &n->start_mark, field, "expected a non-negative integer, found `%.*s`",
                           (int)(len > 40 ? 40 : len), v);
        return fail_at(r, &n->start_mark, field, "expected a non-negative integer, found %s",
                       type_name(n));
    }
    *out = x;
    return true;
}

static bool get_bool(reader *r, yaml_node_t *n, const char *field, bool *out)
{
    if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        const char *v = (const char *)n->data.scalar.value;
        size_t len = n->data.scalar.length;
        if (len == 4 && memcmp(v, "true", 4) == 0)
            return *out = true, true;
        if (len == 5 && memcmp(v, "false", 5) == 0)
            return *out = false, true;
    }
    return fail_at(r, &n->start_mark, field, "expected true or false, found %s", type_name(n));
}

/* ---- mappings: a fixed set of keys ---- */

/* The most keys one mapping may have: a package has 18. A longer keys list
 * aborts in walk_map(), before any array is overrun. */
#define MAX_KEYS 24

typedef struct mapwalk {
    const char *const *keys;   /* allowed keys, NULL-terminated */
    yaml_node_t *val[MAX_KEYS];
    yaml_node_t *keynode[MAX_KEYS];
} mapwalk;

/* Checks that `n` is a mapping whose keys are plain or quoted strings from
 * `w->keys`, each at most once; fills w->val. */
static bool walk_map(reader *r, yaml_node_t *n, const char *field, mapwalk *w)
{
    memset(w->val, 0, sizeof w->val);
    for (size_t i = 0; w->keys[i]; i++)
        if (i + 1 >= MAX_KEYS)
            abort(); /* a keys list longer than the walk holds: a bug here, not input */
    if (!want_type(r, n, YAML_MAPPING_NODE, field))
        return false;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(r, p->key, field);
        if (!k)
            return false;
        if (k->type != YAML_SCALAR_NODE)
            return fail_at(r, &k->start_mark, field, "a key must be a string, found %s",
                           type_name(k));
        const char *ks = (const char *)k->data.scalar.value;
        size_t klen = k->data.scalar.length;
        size_t i = 0;
        for (; w->keys[i]; i++)
            if (strlen(w->keys[i]) == klen && memcmp(w->keys[i], ks, klen) == 0)
                break;
        if (!w->keys[i] || memchr(ks, '\0', klen)) {
            int shown = (int)(klen > 200 ? 200 : klen);
            const char *f = arena_sprintf(r->scratch, "%s%s%.*s", field, *field ? "." : "",
                                          shown, ks);
            return fail_at(r, &k->start_mark, f, "unknown key `%.*s`", shown, ks);
        }
        if (w->val[i])
            return fail_at(r, &k->start_mark, path2(r, field, w->keys[i]), "duplicate key `%s`",
                           w->keys[i]);
        w->keynode[i] = k;
        w->val[i] = node(r, p->value, path2(r, field, w->keys[i]));
        if (!w->val[i])
            return false;
    }
    return true;
}

static size_t key_index(const mapwalk *w, const char *k)
{
    for (size_t i = 0;; i++)
        if (strcmp(w->keys[i], k) == 0)
            return i;
}

static yaml_node_t *val(const mapwalk *w, const char *k) { return w->val[key_index(w, k)]; }

/* A required string key. */
static bool req_str(reader *r, yaml_node_t *map, const mapwalk *w, const char *field,
                    const char *k, const char **out)
{
    yaml_node_t *v = val(w, k);
    if (!v)
        return fail_at(r, &map->start_mark, path2(r, field, k), "missing required key `%s`", k);
    return (*out = get_str(r, v, path2(r, field, k))) != NULL;
}

/* An optional string key: absent leaves *out NULL. */
static bool opt_str(reader *r, const mapwalk *w, const char *field, const char *k,
                    const char **out)
{
    yaml_node_t *v = val(w, k);
    *out = NULL;
    return !v || (*out = get_str(r, v, path2(r, field, k))) != NULL;
}

/* The length of the list `n` into *cnt; false after a failure. */
static bool list_len(reader *r, yaml_node_t *n, const char *field, size_t *cnt)
{
    if (!want_type(r, n, YAML_SEQUENCE_NODE, field))
        return false;
    *cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    return true;
}

/* Item i of the list `n` of mappings, walked into *w (walk_map()), its
 * path in *f: the item, or NULL after a failure. */
static yaml_node_t *list_map(reader *r, yaml_node_t *n, const char *field, size_t i, mapwalk *w,
                             const char **f)
{
    *f = path_idx(r, field, i);
    yaml_node_t *it = node(r, n->data.sequence.items.start[i], *f);
    return it && walk_map(r, it, *f, w) ? it : NULL;
}

/* A flow list of strings into a NULL-terminated arena array (empty list: NULL). */
static bool get_strv(reader *r, yaml_node_t *n, const char *field, const char ***out)
{
    *out = NULL;
    size_t cnt;
    if (!list_len(r, n, field, &cnt))
        return false;
    if (cnt == 0)
        return true;
    const char **v = arena_alloc(r->d->mem, (cnt + 1) * sizeof *v);
    for (size_t i = 0; i < cnt; i++) {
        const char *f = path_idx(r, field, i);
        yaml_node_t *it = node(r, n->data.sequence.items.start[i], f);
        if (!it || !(v[i] = get_str(r, it, f)))
            return false;
    }
    *out = v;
    return true;
}

/* ---- the sections ---- */

/* The 1-based line a node starts on (check's report names it), 0 for none. */
static unsigned line_of(const yaml_node_t *n)
{
    return n ? (unsigned)n->start_mark.line + 1 : 0;
}


static bool read_targets(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "variants", "python", "platform", "arch", "image", NULL };
    lock_doc *d = r->d;
    size_t cnt;
    if (!list_len(r, n, "target.targets", &cnt))
        return false;
    d->targets = arena_alloc(d->mem, (cnt + 1) * sizeof *d->targets);
    memset(d->targets, 0, (cnt + 1) * sizeof *d->targets);
    for (size_t i = 0; i < cnt; i++) {
        const char *f;
        mapwalk w = { .keys = keys };
        yaml_node_t *it = list_map(r, n, "target.targets", i, &w, &f);
        lock_target *t = &d->targets[i];
        if (!it || !opt_str(r, &w, f, "python", &t->python_version) ||
            !opt_str(r, &w, f, "platform", &t->platform) || !opt_str(r, &w, f, "arch", &t->arch) ||
            !opt_str(r, &w, f, "image", &t->image))
            return false;
        yaml_node_t *v = val(&w, "variants");
        if (!v)
            return fail_at(r, &it->start_mark, path2(r, f, "variants"),
                           "missing required key `variants`");
        if (!get_strv(r, v, path2(r, f, "variants"), &t->variants))
            return false;
        d->n_targets++;
    }
    return true;
}

static bool read_target(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "python", "platform", "arch", "image", "base", "targets",
                                        NULL };
    static const char *const base_keys[] = { "ref", "channel", "digests", NULL };
    mapwalk w = { .keys = keys };
    lock_doc *d = r->d;
    d->line_target = line_of(n);
    if (!walk_map(r, n, "target", &w) || !opt_str(r, &w, "target", "python", &d->python_version) ||
        !opt_str(r, &w, "target", "platform", &d->platform) ||
        !opt_str(r, &w, "target", "arch", &d->arch) ||
        !opt_str(r, &w, "target", "image", &d->image))
        return false;
    yaml_node_t *ts = val(&w, "targets");
    if (ts && !read_targets(r, ts))
        return false;
    yaml_node_t *b = val(&w, "base");
    if (!b)
        return true;
    mapwalk bw = { .keys = base_keys };
    if (!walk_map(r, b, "target.base", &bw) ||
        !opt_str(r, &bw, "target.base", "ref", &d->base_ref) ||
        !opt_str(r, &bw, "target.base", "channel", &d->base_channel))
        return false;
    yaml_node_t *dg = val(&bw, "digests");
    if (!dg)
        return true;
    const char *field = "target.base.digests";
    if (!want_type(r, dg, YAML_MAPPING_NODE, field))
        return false;
    size_t cnt = (size_t)(dg->data.mapping.pairs.top - dg->data.mapping.pairs.start);
    if (cnt == 0)
        return true;
    d->variants = arena_alloc(d->mem, (cnt + 1) * sizeof *d->variants);
    d->base_digests = arena_alloc(d->mem, (cnt + 1) * sizeof *d->base_digests);
    unsigned *lines = arena_alloc(d->mem, (cnt + 1) * sizeof *lines);
    d->base_digest_lines = lines;
    for (size_t i = 0; i < cnt; i++) {
        yaml_node_pair_t *p = &dg->data.mapping.pairs.start[i];
        yaml_node_t *k = node(r, p->key, field);
        if (!k || !(d->variants[i] = get_str(r, k, field)))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(d->variants[j], d->variants[i]) == 0)
                return fail_at(r, &k->start_mark, path2(r, field, d->variants[i]),
                               "duplicate key `%s`", d->variants[i]);
        const char *f = path2(r, field, d->variants[i]);
        yaml_node_t *v = node(r, p->value, f);
        if (!v)
            return false;
        lines[i] = line_of(v);
        if (v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
            v->data.scalar.length == 4 && memcmp(v->data.scalar.value, "null", 4) == 0)
            d->base_digests[i] = NULL; /* unpublished */
        else if (!(d->base_digests[i] = get_str(r, v, f)))
            return false;
    }
    return true;
}

static bool read_options(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "excludeNewer", "noBinary", "noBuild", "onlyBinary",
                                        "preferBinary", "prereleases", "upgradeAll",
                                        "upgradePackages", NULL };
    mapwalk w = { .keys = keys };
    lock_doc *d = r->d;
    if (!walk_map(r, n, "options", &w) ||
        !opt_str(r, &w, "options", "excludeNewer", &d->exclude_newer) ||
        !opt_str(r, &w, "options", "prereleases", &d->prereleases))
        return false;
    yaml_node_t *ua = val(&w, "upgradeAll");
    if (!ua)
        return fail_at(r, &n->start_mark, "options.upgradeAll", "missing required key `upgradeAll`");
    if (!get_bool(r, ua, "options.upgradeAll", &d->upgrade_all))
        return false;
    yaml_node_t *nb = val(&w, "noBuild"), *ob = val(&w, "onlyBinary"), *nx = val(&w, "noBinary");
    yaml_node_t *pb = val(&w, "preferBinary");
    if ((nb && !get_bool(r, nb, "options.noBuild", &d->no_build)) ||
        (pb && !get_bool(r, pb, "options.preferBinary", &d->prefer_binary)) ||
        (ob && !get_strv(r, ob, "options.onlyBinary", &d->only_binary)) ||
        (nx && !get_strv(r, nx, "options.noBinary", &d->no_binary)))
        return false;
    yaml_node_t *up = val(&w, "upgradePackages");
    return !up || get_strv(r, up, "options.upgradePackages", &d->upgrade);
}

static bool read_dep_file(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "format", "content", "lockContent", NULL };
    mapwalk w = { .keys = keys };
    lock_doc *d = r->d;
    if (!walk_map(r, n, "dependencyFile", &w) ||
        !req_str(r, n, &w, "dependencyFile", "format", &d->dep_format) ||
        !req_str(r, n, &w, "dependencyFile", "content", &d->dep_content) ||
        !req_str(r, n, &w, "dependencyFile", "lockContent", &d->dep_lock))
        return false;
    d->line_dep = line_of(n);
    return true;
}

static bool read_advisories(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "snapshot", "newest", "vulnerable", "touched",
                                        "ignored", NULL };
    mapwalk w = { .keys = keys };
    lock_doc *d = r->d;
    yaml_node_t *t, *ig;
    if (!walk_map(r, n, "advisories", &w) ||
        !req_str(r, n, &w, "advisories", "snapshot", &d->adv_snapshot) ||
        !opt_str(r, &w, "advisories", "newest", &d->adv_newest) ||
        !req_str(r, n, &w, "advisories", "vulnerable", &d->adv_mode))
        return false;
    if (((t = val(&w, "touched")) && !get_strv(r, t, "advisories.touched", &d->adv_touched)) ||
        ((ig = val(&w, "ignored")) && !get_strv(r, ig, "advisories.ignored", &d->adv_ignored)))
        return false;
    d->line_adv = line_of(n);
    return true;
}

static bool read_inputs(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "ecosystem", "url", "identity", "modified", NULL };
    size_t cnt;
    if (!list_len(r, n, "inputs", &cnt))
        return false;
    lock_doc *d = r->d;
    d->inputs = cnt ? arena_alloc(d->mem, cnt * sizeof *d->inputs) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        const char *f;
        mapwalk w = { .keys = keys };
        yaml_node_t *it = list_map(r, n, "inputs", i, &w, &f);
        lock_input *in = &d->inputs[i];
        if (!it || !req_str(r, it, &w, f, "ecosystem", &in->ecosystem) ||
            !req_str(r, it, &w, f, "url", &in->url) ||
            !req_str(r, it, &w, f, "identity", &in->identity) ||
            !opt_str(r, &w, f, "modified", &in->modified))
            return false;
        in->line = line_of(it);
        d->n_inputs++;
    }
    return true;
}

static bool read_edges(reader *r, yaml_node_t *n, const char *field, lock_package *p)
{
    static const char *const keys[] = { "ecosystem", "name", "version", "kind", "spec", "alias", NULL };
    size_t cnt;
    if (!list_len(r, n, field, &cnt))
        return false;
    p->deps = cnt ? arena_alloc(r->d->mem, cnt * sizeof *p->deps) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        const char *f;
        mapwalk w = { .keys = keys };
        yaml_node_t *it = list_map(r, n, field, i, &w, &f);
        lock_edge *e = &p->deps[i];
        if (!it || !opt_str(r, &w, f, "ecosystem", &e->ecosystem) ||
            !req_str(r, it, &w, f, "name", &e->name) ||
            !req_str(r, it, &w, f, "version", &e->version) ||
            !opt_str(r, &w, f, "kind", &e->kind) || !opt_str(r, &w, f, "spec", &e->spec) ||
            !opt_str(r, &w, f, "alias", &e->alias))
            return false;
        if (!e->ecosystem)
            e->ecosystem = p->ecosystem;
        e->line = line_of(it);
        p->n_deps++;
    }
    return true;
}

static bool read_artifacts(reader *r, yaml_node_t *n, const char *field, lock_package *p)
{
    static const char *const keys[] = { "file", "url", "hash", "md5", "size", NULL };
    size_t cnt;
    if (!list_len(r, n, field, &cnt))
        return false;
    p->artifacts = cnt ? arena_alloc(r->d->mem, cnt * sizeof *p->artifacts) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        const char *f;
        mapwalk w = { .keys = keys };
        yaml_node_t *it = list_map(r, n, field, i, &w, &f);
        lock_artifact *a = &p->artifacts[i];
        /* format 1 requires a url; format 2 has none for pypi and npm */
        if (!it || !req_str(r, it, &w, f, "file", &a->file) ||
            !(r->d->format_version == 1 ? req_str(r, it, &w, f, "url", &a->url)
                                        : opt_str(r, &w, f, "url", &a->url)) ||
            !req_str(r, it, &w, f, "hash", &a->hash) || !opt_str(r, &w, f, "md5", &a->md5))
            return false;
        yaml_node_t *sz = val(&w, "size");
        if (sz && !get_u64(r, sz, path2(r, f, "size"), &a->size))
            return false;
        a->line = line_of(it);
        a->line_file = line_of(val(&w, "file"));
        a->line_url = line_of(val(&w, "url"));
        a->line_hash = line_of(val(&w, "hash"));
        p->n_artifacts++;
    }
    return true;
}

/* A deb package's source (sourcePackage, sourceVersion): only for deb,
 * each a Debian name or version, and written only when it differs from
 * the package's own (docs/lock-format.md): anything else is refused. */
static bool read_deb_source(reader *r, const mapwalk *w, const char *f, lock_package *p)
{
    if (!opt_str(r, w, f, "sourcePackage", &p->src_name) ||
        !opt_str(r, w, f, "sourceVersion", &p->src_version))
        return false;
    static const char *const keys[] = { "sourcePackage", "sourceVersion" };
    const char *vals[] = { p->src_name, p->src_version }, *own[] = { p->name, p->version };
    for (size_t k = 0; k < 2; k++) {
        if (!vals[k])
            continue;
        const char *why = strcmp(p->ecosystem, "deb") != 0 ? "is only for deb packages"
                          : strcmp(vals[k], own[k]) == 0    ? "is written only when it differs"
                          : k == 0 ? lock_name_problem("deb", vals[k])
                                   : lock_version_problem("deb", vals[k]);
        if (why)
            return fail_at(r, &val(w, keys[k])->start_mark, path2(r, f, keys[k]), "`%s` %s",
                           vals[k], why);
    }
    return true;
}

static bool read_packages(reader *r, yaml_node_t *n)
{
    static const char *const keys[] = { "ecosystem",  "name",        "version",      "arch",
                                        "sourcePackage", "sourceVersion",
                                        "build",      "buildNumber", "subdir",       "pypiNames",
                                        "path",
                                        "extras",
                                        "source",     "license",     "installedInBase",
                                        "inBundle",   "requestedBy",
                                        "dependencies", "artifacts", NULL };
    size_t cnt;
    if (!list_len(r, n, "packages", &cnt))
        return false;
    lock_doc *d = r->d;
    d->packages = cnt ? arena_alloc(d->mem, cnt * sizeof *d->packages) : NULL;
    for (size_t i = 0; i < cnt; i++) {
        const char *f;
        mapwalk w = { .keys = keys };
        yaml_node_t *it = list_map(r, n, "packages", i, &w, &f);
        lock_package *p = &d->packages[i];
        if (!it || !req_str(r, it, &w, f, "ecosystem", &p->ecosystem) ||
            !req_str(r, it, &w, f, "name", &p->name) ||
            !req_str(r, it, &w, f, "version", &p->version) ||
            !opt_str(r, &w, f, "arch", &p->arch) || !opt_str(r, &w, f, "build", &p->build) ||
            !opt_str(r, &w, f, "subdir", &p->subdir) || !opt_str(r, &w, f, "path", &p->path) ||
            !opt_str(r, &w, f, "source", &p->source) ||
            !opt_str(r, &w, f, "license", &p->license) || !read_deb_source(r, &w, f, p))
            return false;
        const char *lic_why = p->license ? lock_license_problem(p->license) : NULL;
        if (lic_why)
            return fail_at(r, &val(&w, "license")->start_mark, path2(r, f, "license"),
                           "the license %s", lic_why);
        yaml_node_t *v;
        if ((v = val(&w, "extras")) && !get_strv(r, v, path2(r, f, "extras"), &p->extras))
            return false;
        if ((v = val(&w, "pypiNames")) &&
            !(p->has_pypi_names = get_strv(r, v, path2(r, f, "pypiNames"), &p->pypi_names)))
            return false;
        if ((v = val(&w, "buildNumber")) &&
            !get_u64(r, v, path2(r, f, "buildNumber"), &p->build_number))
            return false;
        if ((v = val(&w, "installedInBase")) &&
            !get_bool(r, v, path2(r, f, "installedInBase"), &p->installed_in_base))
            return false;
        if ((v = val(&w, "inBundle")) && !get_bool(r, v, path2(r, f, "inBundle"), &p->in_bundle))
            return false;
        if (((v = val(&w, "requestedBy")) &&
             !get_strv(r, v, path2(r, f, "requestedBy"), &p->requested_by)) ||
            ((v = val(&w, "dependencies")) && !read_edges(r, v, path2(r, f, "dependencies"), p)) ||
            ((v = val(&w, "artifacts")) && !read_artifacts(r, v, path2(r, f, "artifacts"), p)))
            return false;
        static const char *const need[] = { "requestedBy", "dependencies", "artifacts", NULL };
        for (size_t k = 0; need[k]; k++)
            if (!val(&w, need[k]))
                return fail_at(r, &it->start_mark, path2(r, f, need[k]),
                               "missing required key `%s`", need[k]);
        const char *why = p->path && strcmp(p->ecosystem, "npm") == 0
                              ? lock_path_segment_problem(p->path) : NULL;
        if (why)
            return fail_at(r, &val(&w, "path")->start_mark, path2(r, f, "path"),
                           "`%s` %s", p->path, why);
        p->line = line_of(it);
        p->line_source = line_of(val(&w, "source"));
        d->n_packages++;
    }
    return true;
}

/* The format version first: a lock of another version is reported as that,
 * whatever else it contains. */
static bool read_version(reader *r, yaml_node_t *root)
{
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = tree_node(r->y, p->key);
        yaml_node_t *v = tree_node(r->y, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE || k->data.scalar.length != 11 ||
            memcmp(k->data.scalar.value, "lockVersion", 11) != 0)
            continue;
        uint64_t ver = 0;
        if (!get_u64(r, v, "lockVersion", &ver))
            return false;
        if (ver < LOCK_FORMAT_OLDEST || ver > LOCK_FORMAT_VERSION)
            return fail_at(r, &v->start_mark, "lockVersion",
                           "lock format version %llu is not supported; this envlock reads "
                           "versions %d to %d (re-lock with `envlock resolve`)",
                           (unsigned long long)ver, LOCK_FORMAT_OLDEST, LOCK_FORMAT_VERSION);
        r->d->format_version = (int)ver;
        return true;
    }
    return fail_at(r, &root->start_mark, "lockVersion", "missing required key `lockVersion`");
}

static bool read_root(reader *r, yaml_node_t *root)
{
    static const char *const keys[] = { "lockVersion", "specDigest", "target", "options",
                                        "dependencyFile", "advisories", "inputs", "packages",
                                        NULL };
    if (root->type != YAML_MAPPING_NODE)
        return fail_at(r, &root->start_mark, NULL, "a lock is a YAML mapping, found %s",
                       type_name(root));
    if (!read_version(r, root))
        return false;
    mapwalk w = { .keys = keys };
    if (!walk_map(r, root, "", &w) ||
        !req_str(r, root, &w, "", "specDigest", &r->d->spec_digest))
        return false;
    /* what is there first (problems in document order), then what is missing */
    yaml_node_t *v;
    if (((v = val(&w, "target")) && !read_target(r, v)) ||
        ((v = val(&w, "options")) && !read_options(r, v)) ||
        ((v = val(&w, "dependencyFile")) && !read_dep_file(r, v)) ||
        ((v = val(&w, "advisories")) && !read_advisories(r, v)) ||
        ((v = val(&w, "inputs")) && !read_inputs(r, v)) ||
        ((v = val(&w, "packages")) && !read_packages(r, v)))
        return false;
    static const char *const need[] = { "target", "options", "inputs", "packages", NULL };
    for (size_t k = 0; need[k]; k++)
        if (!val(&w, need[k]))
            return fail_at(r, &root->start_mark, need[k], "missing required key `%s`", need[k]);
    return true;
}

static void syntax_fail(el_ctx *ctx, const yaml_parser_t *p, const char *text, size_t len)
{
    reader r = { .ctx = ctx };
    yaml_mark_t m = p->problem_mark;
    if (p->error == YAML_READER_ERROR) {
        /* the reader reports a byte offset only: count lines up to it */
        m.line = 0;
        m.column = 0;
        for (size_t i = 0; i < p->problem_offset && i < len; i++) {
            if (text[i] == '\n')
                m.line++, m.column = 0;
            else if (((unsigned char)text[i] & 0xC0) != 0x80)
                m.column++;
        }
        fail_at(&r, &m, NULL, "not valid UTF-8 YAML text: %s", p->problem ? p->problem : "unreadable");
    } else if (p->context) {
        fail_at(&r, &m, NULL, "YAML syntax: %s %s", p->problem ? p->problem : "error", p->context);
    } else {
        fail_at(&r, &m, NULL, "YAML syntax: %s", p->problem ? p->problem : "error");
    }
}

static void too_large(el_ctx *ctx, uint64_t size)
{
    reader r = { .ctx = ctx };
    yaml_mark_t start = { 0, 0, 0 };
    fail_at(&r, &start, NULL, "the lock is %llu bytes; a lock is at most %u MiB",
            (unsigned long long)size, LOCK_MAX_BYTES >> 20);
}

/* ---- composing the tree from events ---- */

static const char *tag_of(tree *t, const yaml_char_t *tag, const char *dflt)
{
    if (!tag || strcmp((const char *)tag, "!") == 0) /* non-specific: as yaml_parser_load */
        return dflt;
    return arena_strdup(t->mem, (const char *)tag);
}

static int add_node(tree *t, yaml_node_type_t type, const yaml_event_t *ev)
{
    if (t->n == t->alloc) {
        t->alloc = t->alloc ? 2 * t->alloc : 256;
        t->nodes = xrealloc(t->nodes, t->alloc * sizeof *t->nodes);
    }
    yaml_node_t *n = &t->nodes[t->n++];
    memset(n, 0, sizeof *n);
    n->type = type;
    n->start_mark = ev->start_mark;
    n->end_mark = ev->end_mark;
    return (int)t->n;
}

static void push_child(tree *t, int idx)
{
    if (t->top == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->stack = xrealloc(t->stack, t->cap * sizeof *t->stack);
    }
    t->stack[t->top++] = idx;
}

static void remember_anchor(tree *t, const yaml_char_t *name, int idx)
{
    if (!name)
        return;
    if (t->n_anchors == t->cap_anchors) {
        t->cap_anchors = t->cap_anchors ? 2 * t->cap_anchors : 16;
        t->anchors = xrealloc(t->anchors, t->cap_anchors * sizeof *t->anchors);
    }
    t->anchors[t->n_anchors].name = arena_strdup(t->mem, (const char *)name);
    t->anchors[t->n_anchors++].idx = idx;
}

/* The latest anchor of that name (YAML lets an anchor be redefined). */
static int find_anchor(const tree *t, const yaml_char_t *name)
{
    for (size_t i = t->n_anchors; i-- > 0;)
        if (strcmp(t->anchors[i].name, (const char *)name) == 0)
            return t->anchors[i].idx;
    return 0;
}

typedef struct composer {
    el_ctx *ctx;
    yaml_parser_t *parser;
    const char *text;
    size_t len;
    tree *t;
} composer;

static bool next_event(composer *c, yaml_event_t *ev)
{
    if (yaml_parser_parse(c->parser, ev))
        return true;
    syntax_fail(c->ctx, c->parser, c->text, c->len);
    return false;
}

static bool compose_fail(composer *c, const yaml_mark_t *m, const char *what)
{
    reader r = { .ctx = c->ctx };
    return fail_at(&r, m, NULL, "%s", what);
}

static bool compose(composer *c, yaml_event_t *ev, unsigned depth, int *idx);

/* The node `self` given the children on t->stack from `base`: a
 * sequence's items, or a mapping's key and value pairs. */
static void fill_collection(tree *t, int self, const yaml_event_t *ev, size_t base, bool seq)
{
    size_t cnt = t->top - base;
    yaml_node_t *n = &t->nodes[self - 1];
    if (seq) {
        yaml_node_item_t *items = cnt ? arena_alloc(t->mem, cnt * sizeof *items) : NULL;
        if (cnt)
            memcpy(items, t->stack + base, cnt * sizeof *items);
        n->data.sequence.items.start = items;
        n->data.sequence.items.top = n->data.sequence.items.end = items + cnt;
        n->data.sequence.style = ev->data.sequence_start.style;
    } else {
        size_t np = cnt / 2; /* the parser pairs every key with a value */
        yaml_node_pair_t *pairs = np ? arena_alloc(t->mem, np * sizeof *pairs) : NULL;
        for (size_t i = 0; i < np; i++) {
            pairs[i].key = t->stack[base + 2 * i];
            pairs[i].value = t->stack[base + 2 * i + 1];
        }
        n->data.mapping.pairs.start = pairs;
        n->data.mapping.pairs.top = n->data.mapping.pairs.end = pairs + np;
        n->data.mapping.style = ev->data.mapping_start.style;
    }
}

/* A sequence or mapping from its start event: its children composed
 * depth-first up to its end event. */
static bool compose_collection(composer *c, yaml_event_t *ev, unsigned depth, int *idx)
{
    tree *t = c->t;
    bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
    *idx = add_node(t, seq ? YAML_SEQUENCE_NODE : YAML_MAPPING_NODE, ev);
    int self = *idx;
    t->nodes[self - 1].tag =
        (yaml_char_t *)(seq ? tag_of(t, ev->data.sequence_start.tag, YAML_DEFAULT_SEQUENCE_TAG)
                            : tag_of(t, ev->data.mapping_start.tag, YAML_DEFAULT_MAPPING_TAG));
    remember_anchor(t, seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor,
                    self);
    size_t base = t->top;
    yaml_event_type_t end = seq ? YAML_SEQUENCE_END_EVENT : YAML_MAPPING_END_EVENT;
    for (;;) {
        yaml_event_t child;
        if (!next_event(c, &child))
            return false;
        if (child.type == end) {
            t->nodes[self - 1].end_mark = child.end_mark;
            yaml_event_delete(&child);
            break;
        }
        int ci = 0;
        bool ok = compose(c, &child, depth + 1, &ci);
        yaml_event_delete(&child);
        if (!ok)
            return false;
        push_child(t, ci);
    }
    fill_collection(t, self, ev, base, seq);
    t->top = base;
    return true;
}

/* Composes the node that `ev` starts (the caller deletes `ev`) at nesting
 * level `depth` (the root is 1, as specs count: a scalar is a level too);
 * *idx is its index. Past LOCK_MAX_DEPTH the node is refused where it
 * starts, before anything after it is scanned, so libyaml's per-level work
 * (every token is checked against each open flow level) never adds up:
 * 100,000 nested `[` took 34 s through yaml_parser_load(). Recursion is
 * bounded by the same limit. */
static bool compose(composer *c, yaml_event_t *ev, unsigned depth, int *idx)
{
    tree *t = c->t;
    if (depth > LOCK_MAX_DEPTH) {
        char what[48];
        snprintf(what, sizeof what, "nests deeper than %d levels", LOCK_MAX_DEPTH);
        return compose_fail(c, &ev->start_mark, what);
    }
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        if (!(*idx = find_anchor(t, ev->data.alias.anchor)))
            return compose_fail(c, &ev->start_mark, "YAML syntax: found undefined alias");
        return true; /* the walk refuses the node's second visit */
    case YAML_SCALAR_EVENT: {
        *idx = add_node(t, YAML_SCALAR_NODE, ev);
        yaml_node_t *n = &t->nodes[*idx - 1];
        size_t len = ev->data.scalar.length;
        char *v = arena_alloc(t->mem, len + 1);
        memcpy(v, ev->data.scalar.value, len);
        n->tag = (yaml_char_t *)tag_of(t, ev->data.scalar.tag, YAML_DEFAULT_SCALAR_TAG);
        n->data.scalar.value = (yaml_char_t *)v;
        n->data.scalar.length = len;
        n->data.scalar.style = ev->data.scalar.style;
        remember_anchor(t, ev->data.scalar.anchor, *idx);
        return true;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        return compose_collection(c, ev, depth, idx);
    default:
        return compose_fail(c, &ev->start_mark, "YAML syntax: unexpected event");
    }
}

/* Reads events up to the next document's root node and composes it: 1 and
 * *root its index (0: the stream ended, no document), or 0 after a failure
 * recorded on ctx. The document's end event is consumed too. */
static int compose_document(composer *c, int *root)
{
    *root = 0;
    c->t->n_anchors = 0; /* anchors do not cross documents */
    yaml_event_t ev;
    for (;;) {
        if (!next_event(c, &ev))
            return 0;
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            return 1;
        }
        if (type != YAML_STREAM_START_EVENT && type != YAML_DOCUMENT_START_EVENT)
            break;
        yaml_event_delete(&ev);
    }
    bool ok = compose(c, &ev, 1, root);
    yaml_event_delete(&ev);
    if (!ok)
        return 0;
    if (!next_event(c, &ev)) /* the document's end */
        return 0;
    yaml_event_delete(&ev);
    return 1;
}

static void tree_release(tree *t)
{
    free(t->nodes);
    free(t->stack);
    free(t->anchors);
    arena_free(t->mem);
}

lock_doc *lock_read_text(el_ctx *ctx, const char *text, size_t len)
{
    if (len > LOCK_MAX_BYTES) {
        too_large(ctx, len);
        return NULL;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        abort(); /* out of memory */
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    tree t = { .mem = arena_new() };
    composer c = { .ctx = ctx, .parser = &parser, .text = text, .len = len, .t = &t };
    int root_idx = 0;
    lock_doc *d = NULL;
    reader r = { .ctx = ctx, .y = &t };
    if (!compose_document(&c, &root_idx)) {
        r.failed = true;
        goto out;
    }
    d = lock_doc_new();
    r.d = d;
    r.scratch = arena_new();
    r.n_nodes = t.n;
    r.seen = xcalloc(r.n_nodes ? r.n_nodes : 1, 1);
    yaml_node_t *root = tree_node(&t, root_idx);
    if (!root) {
        yaml_mark_t start = { 0, 0, 0 };
        fail_at(&r, &start, NULL, "the lock is empty");
    } else if (node(&r, root_idx, "(document)")) {
        read_root(&r, root);
    }
    if (!r.failed && root) { /* a second document is not part of a lock */
        int next_idx = 0;
        if (!compose_document(&c, &next_idx))
            r.failed = true;
        else if (next_idx)
            fail_at(&r, &tree_node(&t, next_idx)->start_mark, NULL,
                    "a lock is one YAML document; found another");
    }
    free(r.seen);
    arena_free(r.scratch);
out:
    tree_release(&t);
    yaml_parser_delete(&parser);
    if (r.failed) {
        lock_doc_free(d);
        return NULL;
    }
    return d;
}

char *lock_read_bytes(el_ctx *ctx, const char *path, size_t *len)
{
    char *text = read_file(path, LOCK_MAX_BYTES, len);
    if (text)
        return text;
    int err = errno;
    struct stat st;
    if (err == EFBIG && stat(path, &st) == 0) {
        too_large(ctx, (uint64_t)st.st_size);
    } else {
        el_fail(ctx, EL_SPEC_INVALID, "cannot read the lock `%s`: %s", path,
                err == EFBIG ? "larger than the limit" : file_strerror(err));
        el_detail_str(ctx, "reason", err == ENOENT ? "lock_not_found" : "invalid_lock");
    }
    el_detail_str(ctx, "path", path);
    return NULL;
}

lock_doc *lock_read_file(el_ctx *ctx, const char *path)
{
    size_t len = 0;
    char *text = lock_read_bytes(ctx, path, &len);
    if (!text)
        return NULL;
    lock_doc *d = lock_read_text(ctx, text, len);
    free(text);
    if (!d)
        el_detail_str(ctx, "path", path);
    return d;
}

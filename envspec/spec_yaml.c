/* spec_yaml.c — YAML (and so JSON) text to the positioned spec_node tree.
 *
 * Owns the one use of libyaml in the spec module: its event API drives a
 * small composer of our own, so every node keeps the line and column where it
 * starts, and so the composer can refuse what a spec never needs and an
 * attacker would love: more than one document, anchors whose aliases expand
 * past SPEC_MAX_NODES ("billion laughs"), nesting past SPEC_MAX_DEPTH, keys
 * that are not scalars, duplicate keys, and tags beyond the YAML core ones
 * (`!!python/object` is refused, never executed). Plain scalars are typed as
 * PyYAML's safe_load types them (YAML 1.1), since that is what the reference
 * validates: `version: 3.13` is a float there, and so it is here.
 * Everything is allocated in the caller's arena; problems become findings
 * with field "(document)" (or the duplicate key's path). Knows nothing about
 * the Environment schema. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "spec_internal.h"

#define DOC "(document)"

/* ---- the YAML 1.1 plain scalar resolver (PyYAML's implicit resolvers) ---- */

static bool span_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_in(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (span_eq(s, n, *list))
            return true;
    return false;
}

/* `[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+` without the sign, and its float cousin
 * with a trailing `\.[0-9_]*` when `fraction`. Returns the value. */
static bool match_sexagesimal(const char *s, size_t n, bool fraction, double *value)
{
    size_t k = 0;
    if (k >= n || !is_digit(s[k]))
        return false;
    /* the int form wants a non-zero first digit, the float form any digit */
    if (!fraction && s[k] == '0')
        return false;
    double v = 0;
    while (k < n && (is_digit(s[k]) || s[k] == '_')) {
        if (s[k] != '_')
            v = v * 10 + (s[k] - '0');
        k++;
    }
    int parts = 0;
    while (k < n && s[k] == ':') {
        k++;
        size_t start = k;
        int d = 0;
        while (k < n && is_digit(s[k]) && k - start < 2)
            d = d * 10 + (s[k++] - '0');
        size_t len = k - start;
        if (len == 0 || (len == 2 && s[start] > '5'))
            return false;
        v = v * 60 + d;
        parts++;
    }
    if (parts == 0)
        return false;
    if (fraction) {
        if (k >= n || s[k] != '.')
            return false;
        k++;
        double scale = 0.1;
        while (k < n && (is_digit(s[k]) || s[k] == '_')) {
            if (s[k] != '_') {
                v += (s[k] - '0') * scale;
                scale /= 10;
            }
            k++;
        }
    }
    if (k != n)
        return false;
    *value = v;
    return true;
}

/* Digits of `base` with `_` allowed, at least one char; value overflow is
 * reported through *overflow. */
static bool match_digits(const char *s, size_t n, int base, uint64_t *value, bool *overflow)
{
    if (n == 0)
        return false;
    uint64_t v = 0;
    bool any = false;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        int d;
        if (c == '_')
            continue;
        if (is_digit(c))
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        if (d >= base)
            return false;
        any = true;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            *overflow = true;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    (void)any;
    *value = v;
    return true;
}

static bool resolve_int(const char *s, size_t n, spec_node *out)
{
    bool neg = false;
    size_t k = 0;
    if (k < n && (s[k] == '-' || s[k] == '+')) {
        neg = s[k] == '-';
        k++;
    }
    const char *b = s + k;
    size_t m = n - k;
    if (m == 0)
        return false;
    uint64_t v = 0;
    bool overflow = false, ok = false;
    bool digits_seen = true;
    if (m >= 2 && b[0] == '0' && b[1] == 'b') {
        ok = match_digits(b + 2, m - 2, 2, &v, &overflow);
    } else if (m >= 2 && b[0] == '0' && b[1] == 'x') {
        ok = match_digits(b + 2, m - 2, 16, &v, &overflow);
    } else if (m >= 2 && b[0] == '0') {
        ok = match_digits(b + 1, m - 1, 8, &v, &overflow);
    } else if (m == 1 && b[0] == '0') {
        ok = true;
    } else if (b[0] >= '1' && b[0] <= '9') {
        size_t j = 0;
        while (j < m && (is_digit(b[j]) || b[j] == '_'))
            j++;
        if (j == m) {
            ok = match_digits(b, m, 10, &v, &overflow);
        } else {
            double d;
            if (!match_sexagesimal(b, m, false, &d))
                return false;
            if (d > 9.2e18)
                overflow = true;
            else
                v = (uint64_t)d;
            ok = true;
        }
    }
    if (!ok || !digits_seen)
        return false;
    /* "0b_" and the like match PyYAML's pattern but hold no digit; PyYAML
     * itself fails on them, so leave them strings. */
    bool has_digit = false;
    for (size_t j = 0; j < m; j++)
        if (is_digit(b[j]) || (j > 1 && ((b[j] >= 'a' && b[j] <= 'f') || (b[j] >= 'A' && b[j] <= 'F'))))
            has_digit = true;
    if (!has_digit)
        return false;
    if (overflow || v > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
        /* Python ints are unbounded; ours are not. A float keeps the
         * magnitude, and the model refuses it where an int is wanted. */
        char *tmp = xstrndup(s, n);
        double d = 0;
        for (const char *p = tmp + (s[0] == '-' || s[0] == '+'); *p; p++)
            if (is_digit(*p))
                d = d * 10 + (*p - '0');
        free(tmp);
        out->kind = SN_FLOAT;
        out->f = neg ? -d : d;
        return true;
    }
    out->kind = SN_INT;
    out->i = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool resolve_float(const char *s, size_t n, spec_node *out)
{
    size_t k = 0;
    bool signed_ = k < n && (s[k] == '-' || s[k] == '+');
    bool neg = signed_ && s[0] == '-';
    if (signed_)
        k++;
    const char *b = s + k;
    size_t m = n - k;
    if (m == 0)
        return false;
    if (span_eq(b, m, ".inf") || span_eq(b, m, ".Inf") || span_eq(b, m, ".INF")) {
        out->kind = SN_FLOAT;
        out->f = neg ? -INFINITY : INFINITY;
        return true;
    }
    if (!signed_ && (span_eq(b, m, ".nan") || span_eq(b, m, ".NaN") || span_eq(b, m, ".NAN"))) {
        out->kind = SN_FLOAT;
        out->f = NAN;
        return true;
    }
    double sx;
    if (match_sexagesimal(b, m, true, &sx)) {
        out->kind = SN_FLOAT;
        out->f = neg ? -sx : sx;
        return true;
    }
    /* [0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?  or (unsigned) \.[0-9_]+(...)? */
    size_t j = 0;
    if (j < m && is_digit(b[j])) {
        while (j < m && (is_digit(b[j]) || b[j] == '_'))
            j++;
        if (j >= m || b[j] != '.')
            return false;
        j++;
        while (j < m && (is_digit(b[j]) || b[j] == '_'))
            j++;
    } else if (!signed_ && j < m && b[j] == '.') {
        j++;
        size_t start = j;
        while (j < m && (is_digit(b[j]) || b[j] == '_'))
            j++;
        if (j == start)
            return false;
    } else {
        return false;
    }
    if (j < m && (b[j] == 'e' || b[j] == 'E')) {
        j++;
        if (j >= m || (b[j] != '-' && b[j] != '+'))
            return false;
        j++;
        size_t start = j;
        while (j < m && is_digit(b[j]))
            j++;
        if (j == start)
            return false;
    }
    if (j != m)
        return false;
    char *tmp = xmalloc(n + 1);
    size_t t = 0;
    for (size_t q = 0; q < n; q++)
        if (s[q] != '_')
            tmp[t++] = s[q];
    tmp[t] = '\0';
    if (strcmp(tmp, ".") == 0 || strcmp(tmp, "-.") == 0 || strcmp(tmp, "+.") == 0) {
        free(tmp); /* "._" matches the pattern; Python's float() would refuse it */
        return false;
    }
    errno = 0;
    double d = strtod(tmp, NULL);
    free(tmp);
    out->kind = SN_FLOAT;
    out->f = d;
    return true;
}

static size_t digits_run(const char *s, size_t n, size_t k, size_t min, size_t max)
{
    size_t j = k;
    while (j < n && is_digit(s[j]) && j - k < max)
        j++;
    return j - k >= min ? j - k : 0;
}

/* PyYAML's timestamp pattern: a date, or a date and time. */
static bool match_timestamp(const char *s, size_t n)
{
    size_t k = 0, d;
    if (digits_run(s, n, k, 4, 4) != 4 || n < 5 || s[4] != '-')
        return false;
    k = 5;
    if (n == 10 && digits_run(s, n, 5, 2, 2) == 2 && s[7] == '-' && digits_run(s, n, 8, 2, 2) == 2)
        return true;
    if (!(d = digits_run(s, n, k, 1, 2)))
        return false;
    k += d;
    if (k >= n || s[k] != '-')
        return false;
    k++;
    if (!(d = digits_run(s, n, k, 1, 2)))
        return false;
    k += d;
    if (k < n && (s[k] == 'T' || s[k] == 't')) {
        k++;
    } else {
        size_t start = k;
        while (k < n && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k == start)
            return false;
    }
    if (!(d = digits_run(s, n, k, 1, 2)))
        return false;
    k += d;
    for (int part = 0; part < 2; part++) {
        if (k >= n || s[k] != ':' || digits_run(s, n, k + 1, 2, 2) != 2)
            return false;
        k += 3;
    }
    if (k < n && s[k] == '.') {
        k++;
        while (k < n && is_digit(s[k]))
            k++;
    }
    if (k == n)
        return true;
    while (k < n && (s[k] == ' ' || s[k] == '\t'))
        k++;
    if (k < n && s[k] == 'Z')
        return k + 1 == n;
    if (k < n && (s[k] == '-' || s[k] == '+')) {
        k++;
        if (!(d = digits_run(s, n, k, 1, 2)))
            return false;
        k += d;
        if (k == n)
            return true;
        return s[k] == ':' && digits_run(s, n, k + 1, 2, 2) == 2 && k + 3 == n;
    }
    return false;
}

spec_node_kind spec_yaml_resolve_plain(const char *s, size_t n, spec_node *out)
{
    static const char *const nulls[] = { "~", "null", "Null", "NULL", NULL };
    static const char *const trues[] = { "yes", "Yes", "YES", "true", "True", "TRUE",
                                         "on",  "On",  "ON",  NULL };
    static const char *const falses[] = { "no",    "No",    "NO",  "false", "False",
                                          "FALSE", "off",   "Off", "OFF",   NULL };
    out->date = false;
    if (n == 0 || is_in(s, n, nulls)) {
        out->kind = SN_NULL;
    } else if (is_in(s, n, trues)) {
        out->kind = SN_BOOL;
        out->b = true;
    } else if (is_in(s, n, falses)) {
        out->kind = SN_BOOL;
        out->b = false;
    } else if (resolve_int(s, n, out) || resolve_float(s, n, out)) {
        /* kind set */
    } else {
        out->kind = SN_STR;
        out->date = match_timestamp(s, n);
    }
    return out->kind;
}

/* ---- the composer ---- */

typedef struct anchor {
    const char *name;
    spec_node *node;
    size_t weight; /* nodes it stands for, aliases expanded */
} anchor;

typedef struct composer {
    arena *mem;
    spec_findings *fs;
    yaml_parser_t parser;
    const char *text;
    size_t len;
    size_t nodes; /* expanded so far */
    anchor *anchors;
    size_t nanchors, aanchors;
    strbuf path; /* field path of the node being composed */
    bool failed;
} composer;

static void pos_of_offset(const char *text, size_t len, size_t off, unsigned *line, unsigned *col)
{
    unsigned l = 1, c = 1;
    for (size_t k = 0; k < off && k < len; k++) {
        unsigned char ch = (unsigned char)text[k];
        if (ch == '\n') {
            l++;
            c = 1;
        } else if ((ch & 0xC0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static void parser_problem(composer *y)
{
    yaml_parser_t *p = &y->parser;
    const char *problem = p->problem ? p->problem : "the text cannot be read";
    if (p->error == YAML_READER_ERROR) {
        unsigned line, col;
        pos_of_offset(y->text, y->len, p->problem_offset, &line, &col);
        if (p->problem_value >= 0 && p->problem_value < 0x20)
            spec_finding_add_pos(y->fs, line, col, DOC, EL_SPEC_INVALID,
                                 "is not valid YAML: the control character U+%04X is not allowed",
                                 (unsigned)p->problem_value);
        else
            spec_finding_add_pos(y->fs, line, col, DOC, EL_SPEC_INVALID, "is not valid YAML: %s",
                                 problem);
    } else if (p->context) {
        spec_finding_add_pos(y->fs, (unsigned)p->problem_mark.line + 1,
                             (unsigned)p->problem_mark.column + 1, DOC, EL_SPEC_INVALID,
                             "is not valid YAML: %s (%s at line %u, column %u)", problem,
                             p->context, (unsigned)p->context_mark.line + 1,
                             (unsigned)p->context_mark.column + 1);
    } else {
        spec_finding_add_pos(y->fs, (unsigned)p->problem_mark.line + 1,
                             (unsigned)p->problem_mark.column + 1, DOC, EL_SPEC_INVALID,
                             "is not valid YAML: %s", problem);
    }
    y->failed = true;
}

static bool next_event(composer *y, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&y->parser, ev)) {
        parser_problem(y);
        return false;
    }
    return true;
}

static void fail_at(composer *y, const yaml_mark_t *m, const char *fmt, ...) EL_PRINTF(3, 4);
static void fail_at(composer *y, const yaml_mark_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    spec_finding_add_pos(y->fs, (unsigned)m->line + 1, (unsigned)m->column + 1, DOC,
                         EL_SPEC_INVALID, "%s", msg);
    free(msg);
    y->failed = true;
}

static bool count_nodes(composer *y, size_t n, const yaml_mark_t *m)
{
    y->nodes += n;
    if (y->nodes > SPEC_MAX_NODES) {
        char lim[32];
        snprintf(lim, sizeof lim, "%d", SPEC_MAX_NODES);
        fail_at(y, m,
                "expands to more than %s values through its aliases; a spec is far smaller, so "
                "this looks like an alias bomb",
                lim);
        return false;
    }
    return true;
}

/* `tag:yaml.org,2002:int` as the user wrote it: `!!int`. */
static const char *display_tag(composer *y, const char *tag)
{
    static const char core[] = "tag:yaml.org,2002:";
    if (strncmp(tag, core, sizeof core - 1) == 0)
        return arena_sprintf(y->mem, "!!%s", tag + sizeof core - 1);
    return tag;
}

static spec_node *new_node(composer *y, spec_node_kind kind, const yaml_mark_t *m)
{
    spec_node *n = arena_alloc(y->mem, sizeof *n);
    n->kind = kind;
    n->line = (unsigned)m->line + 1;
    n->column = (unsigned)m->column + 1;
    return n;
}

/* A literal block's content starts on the line after its header, indented
 * as its first non-blank line is: each content line is one file line. */
static void literal_body(const composer *y, const yaml_event_t *ev, spec_node *node)
{
    /* libyaml's mark index counts characters, not bytes: find the header's
     * line by counting line breaks, and the content on the line after it */
    size_t i = 0, line = 0;
    while (i < y->len && line <= ev->start_mark.line)
        line += y->text[i++] == '\n';
    if (i >= y->len)
        return;
    size_t k = i;
    unsigned col = 0;
    while (k < y->len && (y->text[k] == ' ' || y->text[k] == '\n' || y->text[k] == '\r')) {
        col = y->text[k] == ' ' ? col + 1 : 0;
        k++;
    }
    node->body_line = (unsigned)ev->start_mark.line + 2;
    node->body_column = col + 1;
}

/* A scalar event to a node, applying an explicit core tag if there is one. */
static spec_node *compose_scalar(composer *y, yaml_event_t *ev)
{
    const char *value = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    spec_node *node = new_node(y, SN_STR, &ev->start_mark);
    node->text = arena_strndup(y->mem, value, n);
    node->text_len = n;
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    node->quoted = !plain;
    if (ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE)
        literal_body(y, ev, node);
    if (!tag || strcmp(tag, "!") == 0) {
        if (plain && !tag)
            spec_yaml_resolve_plain(value, n, node);
        return node;
    }
    static const char core[] = "tag:yaml.org,2002:";
    const char *t = strncmp(tag, core, sizeof core - 1) == 0 ? tag + sizeof core - 1 : NULL;
    if (t && strcmp(t, "str") == 0)
        return node;
    spec_node probe = { 0 };
    spec_yaml_resolve_plain(value, n, &probe);
    bool ok = false;
    if (t && strcmp(t, "null") == 0)
        ok = probe.kind == SN_NULL;
    else if (t && strcmp(t, "bool") == 0)
        ok = probe.kind == SN_BOOL;
    else if (t && strcmp(t, "int") == 0)
        ok = probe.kind == SN_INT;
    else if (t && strcmp(t, "float") == 0) {
        ok = probe.kind == SN_FLOAT || probe.kind == SN_INT;
        if (probe.kind == SN_INT) {
            probe.kind = SN_FLOAT;
            probe.f = (double)probe.i;
        }
    } else {
        fail_at(y, &ev->start_mark,
                "uses the tag `%s`, which a spec does not allow: only plain YAML values "
                "(strings, numbers, booleans, null, lists, mappings)",
                display_tag(y, tag));
        return NULL;
    }
    if (!ok) {
        char *msg = arena_sprintf(y->mem, "`%s` cannot be read as %s", node->text,
                                  display_tag(y, tag));
        fail_at(y, &ev->start_mark, "%s", msg);
        return NULL;
    }
    node->kind = probe.kind;
    node->b = probe.b;
    node->i = probe.i;
    node->f = probe.f;
    return node;
}

static bool collection_tag_ok(composer *y, const yaml_char_t *tag, const char *want,
                              const yaml_mark_t *m)
{
    if (!tag || strcmp((const char *)tag, "!") == 0 || strcmp((const char *)tag, want) == 0)
        return true;
    fail_at(y, m,
            "uses the tag `%s`, which a spec does not allow: only plain YAML values "
            "(strings, numbers, booleans, null, lists, mappings)",
            display_tag(y, (const char *)tag));
    return false;
}

static void remember_anchor(composer *y, const yaml_char_t *name, spec_node *node, size_t weight)
{
    if (!name || !node)
        return;
    /* a later anchor of the same name shadows the earlier one, as in PyYAML */
    if (y->nanchors == y->aanchors) {
        y->aanchors = y->aanchors ? 2 * y->aanchors : 8;
        anchor *grown = arena_alloc(y->mem, y->aanchors * sizeof *grown);
        if (y->nanchors)
            memcpy(grown, y->anchors, y->nanchors * sizeof *grown);
        y->anchors = grown;
    }
    y->anchors[y->nanchors++] =
        (anchor){ arena_strdup(y->mem, (const char *)name), node, weight };
}

static const anchor *find_anchor(const composer *y, const char *name)
{
    for (size_t k = y->nanchors; k-- > 0;)
        if (strcmp(y->anchors[k].name, name) == 0)
            return &y->anchors[k];
    return NULL;
}

static spec_node *compose(composer *y, yaml_event_t *ev, unsigned depth, size_t *weight);

/* The node a mapping or a list starts at `start`, or NULL after a finding
 * (a tag other than the plain one). *anchor_name is the anchor it defines
 * (a copy), or NULL. */
static spec_node *open_collection(composer *y, const yaml_event_t *start, spec_node_kind kind,
                                  const yaml_char_t **anchor_name)
{
    bool map = kind == SN_MAP;
    const yaml_char_t *name = map ? start->data.mapping_start.anchor : start->data.sequence_start.anchor;
    const yaml_char_t *tag = map ? start->data.mapping_start.tag : start->data.sequence_start.tag;
    spec_node *node = new_node(y, kind, &start->start_mark);
    *anchor_name = name ? (const yaml_char_t *)arena_strdup(y->mem, (const char *)name) : NULL;
    if (!collection_tag_ok(y, tag, map ? "tag:yaml.org,2002:map" : "tag:yaml.org,2002:seq",
                           &start->start_mark))
        return NULL;
    return node;
}

/* The next event inside a collection into *ev: 1; 0 at the collection's
 * `end` event (deleted); -1 after a finding. */
static int next_in(composer *y, yaml_event_type_t end, yaml_event_t *ev)
{
    if (!next_event(y, ev))
        return -1;
    if (ev->type == end) {
        yaml_event_delete(ev);
        return 0;
    }
    return 1;
}

/* Appends a key to the path buffer; returns the previous length to restore. */
static size_t path_push_key(composer *y, const spec_node *key)
{
    size_t old = y->path.len;
    if (old)
        sb_addc(&y->path, '.');
    sb_add(&y->path, key->text ? key->text : "", key->text ? strlen(key->text) : 0);
    return old;
}

static size_t path_push_index(composer *y, size_t i)
{
    size_t old = y->path.len;
    sb_addf(&y->path, "[%zu]", i);
    return old;
}

typedef struct key_ref {
    const spec_node *key;
    size_t index;
} key_ref;

static int key_ref_cmp(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    size_t lx = x->key->text_len, ly = y->key->text_len;
    int c = memcmp(x->key->text, y->key->text, lx < ly ? lx : ly);
    if (c)
        return c;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Duplicate keys: PyYAML silently keeps the last; a spec refuses them, at
 * the second key. Sorting keeps this O(n log n) for huge mappings. */
static void check_duplicates(composer *y, const spec_node *map)
{
    if (map->n < 2)
        return;
    key_ref *refs = xmalloc(map->n * sizeof *refs);
    for (size_t k = 0; k < map->n; k++)
        refs[k] = (key_ref){ map->keys[k], k };
    qsort(refs, map->n, sizeof *refs, key_ref_cmp);
    size_t run = 0; /* where the run of equal keys that refs[k] is in starts */
    for (size_t k = 1; k < map->n; k++) {
        const key_ref *prev = &refs[k - 1];
        if (prev->key->text_len != refs[k].key->text_len ||
            memcmp(prev->key->text, refs[k].key->text, prev->key->text_len) != 0) {
            run = k;
            continue;
        }
        const spec_node *orig = refs[run].key, *dup = refs[k].key;
        size_t old = path_push_key(y, dup);
        spec_finding_add(y->fs, dup, y->path.buf, EL_SPEC_INVALID,
                         "is listed twice; the first is at line %u", orig->line);
        sb_setlen(&y->path, old);
    }
    free(refs);
}

typedef struct pairvec {
    spec_node **keys, **vals;
    size_t n, alloc;
} pairvec;

static void pair_push(pairvec *v, spec_node *k, spec_node *val)
{
    if (v->n == v->alloc) {
        v->alloc = v->alloc ? 2 * v->alloc : 8;
        v->keys = xrealloc(v->keys, v->alloc * sizeof *v->keys);
        v->vals = xrealloc(v->vals, v->alloc * sizeof *v->vals);
    }
    v->keys[v->n] = k;
    v->vals[v->n] = val;
    v->n++;
}

static bool pair_has(const pairvec *v, size_t upto, const spec_node *key)
{
    for (size_t k = 0; k < upto; k++)
        if (v->keys[k]->text_len == key->text_len &&
            memcmp(v->keys[k]->text, key->text, key->text_len) == 0)
            return true;
    return false;
}

/* `<<: *base` (or a list of them): PyYAML's merge keys. Explicit keys win,
 * then earlier merge sources over later ones. */
static bool apply_merges(composer *y, pairvec *pairs, size_t explicit_n, spec_node **merges,
                         size_t nmerges, const yaml_mark_t *m)
{
    for (size_t s = 0; s < nmerges; s++) {
        spec_node *src = merges[s];
        spec_node **list = &src;
        size_t nlist = 1;
        if (src->kind == SN_SEQ) {
            list = src->items;
            nlist = src->n;
        }
        for (size_t q = 0; q < nlist; q++) {
            spec_node *one = list[q];
            if (one->kind != SN_MAP) {
                spec_finding_add(y->fs, one, DOC, EL_SPEC_INVALID,
                                 "a merge key (`<<`) takes a mapping or a list of mappings");
                y->failed = true;
                return false;
            }
            for (size_t k = 0; k < one->n; k++)
                if (!pair_has(pairs, pairs->n, one->keys[k])) {
                    if (!count_nodes(y, 1, m))
                        return false;
                    pair_push(pairs, one->keys[k], one->items[k]);
                }
        }
    }
    (void)explicit_n;
    return true;
}

static spec_node *compose_mapping(composer *y, yaml_event_t *start, unsigned depth,
                                  size_t *weight)
{
    const yaml_char_t *anchor_name;
    spec_node *map = open_collection(y, start, SN_MAP, &anchor_name);
    if (!map)
        return NULL;
    yaml_mark_t mark = start->start_mark;
    pairvec pairs = { 0 };
    ptrvec merges = PTRVEC_INIT;
    size_t total = 1;
    spec_node *result = NULL;
    for (;;) {
        yaml_event_t ev;
        int more = next_in(y, YAML_MAPPING_END_EVENT, &ev);
        if (more < 0)
            goto out;
        if (more == 0)
            break;
        size_t kw = 0;
        yaml_mark_t kmark = ev.start_mark;
        if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) {
            fail_at(y, &kmark, "a mapping key must be a plain value, not a %s",
                    ev.type == YAML_MAPPING_START_EVENT ? "mapping" : "list");
            yaml_event_delete(&ev);
            goto out;
        }
        bool merge_key = ev.type == YAML_SCALAR_EVENT && !ev.data.scalar.tag &&
                         ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                         ev.data.scalar.length == 2 &&
                         memcmp(ev.data.scalar.value, "<<", 2) == 0;
        spec_node *key = compose(y, &ev, depth + 1, &kw);
        yaml_event_delete(&ev);
        if (!key)
            goto out;
        if (key->kind == SN_SEQ || key->kind == SN_MAP) {
            fail_at(y, &kmark, "a mapping key must be a plain value, not a %s",
                    key->kind == SN_MAP ? "mapping" : "list");
            goto out;
        }
        if (!key->text) {
            key->text = "";
            key->text_len = 0;
        }
        yaml_event_t vev;
        if (!next_event(y, &vev))
            goto out;
        size_t vw = 0;
        size_t old = path_push_key(y, key);
        spec_node *val = compose(y, &vev, depth + 1, &vw);
        sb_setlen(&y->path, old);
        yaml_event_delete(&vev);
        if (!val)
            goto out;
        total += kw + vw;
        if (merge_key)
            ptrvec_push(&merges, val);
        else
            pair_push(&pairs, key, val);
    }
    size_t explicit_n = pairs.n;
    map->n = explicit_n;
    map->keys = pairs.keys;
    check_duplicates(y, map);
    if (merges.len && !apply_merges(y, &pairs, explicit_n, (spec_node **)merges.items, merges.len,
                                    &mark))
        goto out;
    map->n = pairs.n;
    map->keys = arena_alloc(y->mem, (pairs.n ? pairs.n : 1) * sizeof *map->keys);
    map->items = arena_alloc(y->mem, (pairs.n ? pairs.n : 1) * sizeof *map->items);
    if (pairs.n) {
        memcpy(map->keys, pairs.keys, pairs.n * sizeof *map->keys);
        memcpy(map->items, pairs.vals, pairs.n * sizeof *map->items);
    }
    *weight = total;
    remember_anchor(y, anchor_name, map, total);
    result = map;
out:
    free(pairs.keys);
    free(pairs.vals);
    ptrvec_release(&merges);
    return result;
}

static spec_node *compose_sequence(composer *y, yaml_event_t *start, unsigned depth,
                                   size_t *weight)
{
    const yaml_char_t *anchor_name;
    spec_node *seq = open_collection(y, start, SN_SEQ, &anchor_name);
    if (!seq)
        return NULL;
    ptrvec items = PTRVEC_INIT;
    size_t total = 1;
    spec_node *result = NULL;
    for (;;) {
        yaml_event_t ev;
        int more = next_in(y, YAML_SEQUENCE_END_EVENT, &ev);
        if (more < 0)
            goto out;
        if (more == 0)
            break;
        size_t w = 0;
        size_t old = path_push_index(y, items.len);
        spec_node *item = compose(y, &ev, depth + 1, &w);
        sb_setlen(&y->path, old);
        yaml_event_delete(&ev);
        if (!item)
            goto out;
        total += w;
        ptrvec_push(&items, item);
    }
    seq->n = items.len;
    seq->items = arena_alloc(y->mem, (items.len ? items.len : 1) * sizeof *seq->items);
    if (items.len)
        memcpy(seq->items, items.items, items.len * sizeof *seq->items);
    *weight = total;
    remember_anchor(y, anchor_name, seq, total);
    result = seq;
out:
    ptrvec_release(&items);
    return result;
}

/* Composes the node that starts with `ev` (which the caller deletes).
 * Returns NULL after a finding. */
static spec_node *compose(composer *y, yaml_event_t *ev, unsigned depth, size_t *weight)
{
    if (depth > SPEC_MAX_DEPTH) {
        char lim[16];
        snprintf(lim, sizeof lim, "%d", SPEC_MAX_DEPTH);
        fail_at(y, &ev->start_mark, "nests deeper than %s levels", lim);
        return NULL;
    }
    switch (ev->type) {
    case YAML_ALIAS_EVENT: {
        const anchor *a = find_anchor(y, (const char *)ev->data.alias.anchor);
        if (!a) {
            fail_at(y, &ev->start_mark,
                    "the alias `*%s` names no anchor defined before it (or its own container)",
                    (const char *)ev->data.alias.anchor);
            return NULL;
        }
        if (!count_nodes(y, a->weight, &ev->start_mark))
            return NULL;
        *weight = a->weight;
        return a->node;
    }
    case YAML_SCALAR_EVENT: {
        if (!count_nodes(y, 1, &ev->start_mark))
            return NULL;
        spec_node *n = compose_scalar(y, ev);
        if (n && ev->data.scalar.anchor)
            remember_anchor(y, ev->data.scalar.anchor, n, 1);
        *weight = 1;
        return n;
    }
    case YAML_SEQUENCE_START_EVENT:
        if (!count_nodes(y, 1, &ev->start_mark))
            return NULL;
        return compose_sequence(y, ev, depth, weight);
    case YAML_MAPPING_START_EVENT:
        if (!count_nodes(y, 1, &ev->start_mark))
            return NULL;
        return compose_mapping(y, ev, depth, weight);
    default:
        fail_at(y, &ev->start_mark, "is not valid YAML: unexpected %s", "event");
        return NULL;
    }
}

/* Offset of the first byte that breaks UTF-8, or len if none. */
static size_t first_bad_utf8(const char *s, size_t len)
{
    size_t k = 0;
    while (k < len) {
        unsigned char c = (unsigned char)s[k];
        size_t need = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2
                                 : (c & 0xF8) == 0xF0   ? 3
                                                        : 9;
        if (need == 9 || k + need >= len + (need == 0))
            return k;
        if (!utf8_valid(s + k, need + 1))
            return k;
        k += need + 1;
    }
    return len;
}

spec_node *spec_yaml_parse(arena *mem, const char *text, size_t len, spec_findings *fs)
{
    if (len > SPEC_MAX_BYTES) {
        spec_finding_add_pos(fs, 0, 0, DOC, EL_SPEC_INVALID,
                             "is %zu bytes; a spec is at most %d bytes", len, SPEC_MAX_BYTES);
        return NULL;
    }
    size_t bad = first_bad_utf8(text, len);
    if (bad < len) {
        unsigned line, col;
        pos_of_offset(text, len, bad, &line, &col);
        spec_finding_add_pos(fs, line, col, DOC, EL_SPEC_INVALID,
                             "is not UTF-8 text: the byte 0x%02X at line %u, column %u is not "
                             "valid UTF-8",
                             (unsigned char)text[bad], line, col);
        return NULL;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        unsigned line, col;
        pos_of_offset(text, len, (size_t)(nul - text), &line, &col);
        spec_finding_add_pos(fs, line, col, DOC, EL_SPEC_INVALID,
                             "holds a NUL byte, which YAML text cannot");
        return NULL;
    }

    composer y = { .mem = mem, .fs = fs, .text = text, .len = len };
    sb_init(&y.path);
    if (!yaml_parser_initialize(&y.parser))
        abort(); /* libyaml only fails here when out of memory */
    yaml_parser_set_input_string(&y.parser, (const unsigned char *)text, len);
    yaml_parser_set_encoding(&y.parser, YAML_UTF8_ENCODING);

    spec_node *root = NULL;
    bool have_doc = false;
    yaml_event_t ev;
    for (;;) {
        if (!next_event(&y, &ev))
            break;
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (type == YAML_DOCUMENT_START_EVENT) {
            if (have_doc) {
                fail_at(&y, &ev.start_mark,
                        "holds more than one YAML document; the second starts at line %s",
                        arena_sprintf(mem, "%u", (unsigned)ev.start_mark.line + 1));
                yaml_event_delete(&ev);
                break;
            }
            have_doc = true;
        } else if (type != YAML_STREAM_START_EVENT && type != YAML_DOCUMENT_END_EVENT) {
            size_t w = 0;
            root = compose(&y, &ev, 1, &w);
            if (!root) {
                yaml_event_delete(&ev);
                break;
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&y.parser);
    sb_release(&y.path);
    if (y.failed)
        return NULL;
    if (!have_doc || !root || root->kind == SN_NULL) {
        if (root && root->kind == SN_NULL && root->text_len > 0)
            spec_finding_add(fs, root, DOC, EL_SPEC_INVALID,
                             "is empty; an Environment is a mapping with apiVersion, kind, "
                             "metadata and spec");
        else
            spec_finding_add_pos(fs, 0, 0, DOC, EL_SPEC_INVALID,
                                 "is empty; an Environment is a mapping with apiVersion, kind, "
                                 "metadata and spec");
        return NULL;
    }
    /* duplicate keys are findings but leave a usable tree */
    return root;
}

static spec_node *spec_yaml_document(arena *mem, const char *text, size_t len, el_finding *why)
{
    spec_findings fs;
    spec_findings_init(&fs, mem);
    spec_node *root = spec_yaml_parse(mem, text, len, &fs);
    if (fs.len) {
        *why = fs.items[0];
        root = NULL;
    } else if (!root) {
        *why = (el_finding){ .field = "(document)", .code = EL_SPEC_INVALID,
                             .message = "holds no document" };
    }
    spec_findings_release(&fs);
    return root;
}

char *spec_document_read(el_ctx *ctx, const char *kind, const char *path, size_t max,
                         size_t *len)
{
    char *text = read_file(path, max, len);
    if (!text) {
        el_fail(ctx, EL_SPEC_INVALID, "%s %s cannot be read: %s", kind, path,
                file_strerror(errno));
        el_detail_str(ctx, "reason", "unreadable");
        el_detail_str(ctx, "path", path);
    }
    return text;
}

spec_node *spec_document_parse(el_ctx *ctx, arena *mem, const char *kind, const char *path,
                               const char *reason, const char *text, size_t len)
{
    el_finding why;
    spec_node *root = spec_yaml_document(mem, text, len, &why);
    if (!root)
        spec_document_fail(ctx, EL_SPEC_INVALID, kind, path, why.line, why.column, why.field,
                           reason, why.message);
    return root;
}

void spec_document_fail(el_ctx *ctx, el_code code, const char *kind, const char *path,
                        unsigned line, unsigned column, const char *field, const char *reason,
                        const char *msg)
{
    el_fail(ctx, code, "%s %s:%u:%u: %s: %s", kind, path, line, column, field, msg);
    el_detail_str(ctx, "reason", reason);
    el_detail_str(ctx, "path", path);
    el_detail_str(ctx, "field", field);
    el_detail_int(ctx, "line", line);
    el_detail_int(ctx, "column", column);
}

/* deb_relation.c — relationship fields (Depends, Pre-Depends, Breaks,
 * Conflicts, Provides, Build-Depends, ...): a recursive-descent parser from
 * the field text to groups of alternatives, with a column for every error,
 * and the canonical formatter. Version strings are judged by deb_version.c;
 * nothing here evaluates a relation against an index. One arena holds a
 * whole parse result. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "debver.h"

struct deb_relations {
    arena *a;
    deb_rel_group *groups;
    size_t n_groups;
};

typedef struct parser {
    const char *text;
    const char *p;
    deb_field field;
    arena *a;
    deb_parse_error *err;
} parser;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_lower_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
static bool is_name_char(char c) { return is_lower_digit(c) || c == '+' || c == '.' || c == '-'; }

/* Characters that can never continue a word: where a name, an architecture or
 * a profile stops. Anything else inside a word is reported as a bad word. */
static bool is_delim(char c)
{
    return c == '\0' || is_space(c) || strchr(",|()[]<>!:", c) != NULL;
}

static void skip_space(parser *ps)
{
    while (is_space(*ps->p))
        ps->p++;
}

static size_t column_of(const parser *ps, const char *at) { return (size_t)(at - ps->text) + 1; }

/* Records the error at `at` and returns -1. */
static int fail_at(parser *ps, const char *at, const char *fmt, ...) EL_PRINTF(3, 4);
static int fail_at(parser *ps, const char *at, const char *fmt, ...)
{
    if (!ps->err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    ps->err->column = column_of(ps, at);
    ps->err->message = xasprintf("column %zu: %s", ps->err->column, msg);
    free(msg);
    return -1;
}

/* A printable description of what is at `at`, for "found ..." messages. */
static const char *found(const char *at, char buf[16])
{
    if (*at == '\0')
        return "the end of the field";
    if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7f)
        snprintf(buf, 16, "byte 0x%02x", (unsigned char)*at);
    else
        snprintf(buf, 16, "`%c`", *at);
    return buf;
}

bool deb_name_valid(const char *s, size_t len)
{
    if (len < 2 || !is_lower_digit(s[0]))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!is_name_char(s[i]))
            return false;
    return true;
}

/* An architecture name or wildcard ("amd64", "linux-any", "any-i386"). */
static bool arch_valid(const char *s, size_t len)
{
    if (len == 0 || !is_lower_digit(s[0]))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!is_lower_digit(s[i]) && s[i] != '-')
            return false;
    return true;
}

/* A build profile name ("nocheck", "stage1", "pkg.foo.bar"). */
static bool profile_valid(const char *s, size_t len)
{
    if (len == 0 || !is_lower_digit(s[0]))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!is_name_char(s[i]))
            return false;
    return true;
}

/* Reads a word up to the next delimiter; returns its length (0 if none). */
static size_t word(parser *ps)
{
    const char *s = ps->p;
    while (!is_delim(*ps->p))
        ps->p++;
    return (size_t)(ps->p - s);
}

static bool alternatives_allowed(deb_field f)
{
    switch (f) {
    case DEB_FIELD_DEPENDS:
    case DEB_FIELD_PRE_DEPENDS:
    case DEB_FIELD_RECOMMENDS:
    case DEB_FIELD_SUGGESTS:
    case DEB_FIELD_ENHANCES:
    case DEB_FIELD_BUILD_DEPENDS:
        return true;
    default:
        return false;
    }
}

static bool is_build_field(deb_field f)
{
    return f == DEB_FIELD_BUILD_DEPENDS || f == DEB_FIELD_BUILD_CONFLICTS;
}

const char *deb_field_name(deb_field f)
{
    static const char *const names[] = {
        "Depends", "Pre-Depends", "Recommends", "Suggests", "Enhances", "Breaks",
        "Conflicts", "Replaces", "Provides", "Build-Depends", "Build-Conflicts",
    };
    if ((unsigned)f >= sizeof names / sizeof names[0])
        return "?";
    return names[f];
}

/* `(op version)`; ps->p is at the `(`. */
static int parse_version(parser *ps, deb_rel *r)
{
    const char *open = ps->p++;
    skip_space(ps);
    const char *opat = ps->p;
    const char *s = ps->p;
    bool deprecated = false;
    if (s[0] == '<' && s[1] == '<')
        r->op = DEB_OP_LT, s += 2;
    else if (s[0] == '<' && s[1] == '=')
        r->op = DEB_OP_LE, s += 2;
    else if (s[0] == '>' && s[1] == '>')
        r->op = DEB_OP_GT, s += 2;
    else if (s[0] == '>' && s[1] == '=')
        r->op = DEB_OP_GE, s += 2;
    else if (s[0] == '=')
        r->op = DEB_OP_EQ, s += 1;
    else if (s[0] == '<')
        r->op = DEB_OP_LE, deprecated = true, s += 1;
    else if (s[0] == '>')
        r->op = DEB_OP_GE, deprecated = true, s += 1;
    else {
        char buf[16];
        return fail_at(ps, opat, "expected a relation operator (<<, <=, =, >=, >>) after `(`, found %s",
                       found(opat, buf));
    }
    r->op_deprecated = deprecated;
    if (ps->field == DEB_FIELD_PROVIDES && r->op != DEB_OP_EQ)
        return fail_at(ps, opat, "only exact versions (`=`) may be used in Provides");
    ps->p = s;
    skip_space(ps);
    const char *vstart = ps->p;
    while (*ps->p && *ps->p != ')' && !is_space(*ps->p) && *ps->p != ',' && *ps->p != '|')
        ps->p++;
    const char *vend = ps->p;
    skip_space(ps);
    if (vstart == vend) {
        if (*ps->p == ')' || *ps->p == '\0')
            return fail_at(ps, vstart, "a version must follow `%.*s`", (int)(s - opat), opat);
    }
    if (*ps->p != ')') {
        char buf[16];
        if (*ps->p == '\0' || *ps->p == ',' || *ps->p == '|')
            return fail_at(ps, ps->p, "`(` at column %zu is not closed with `)`, found %s",
                           column_of(ps, open), found(ps->p, buf));
        return fail_at(ps, ps->p, "unexpected %s inside the version relation; a version has no blanks",
                       found(ps->p, buf));
    }
    const char *why = NULL;
    if (deb_version_parse(vstart, (size_t)(vend - vstart), &r->ver, &why) != DEB_VALID)
        return fail_at(ps, vstart, "`%.*s` is not a Debian version: %s", (int)(vend - vstart),
                       vstart, why);
    r->version = arena_strndup(ps->a, vstart, (size_t)(vend - vstart));
    /* Re-point the views at the arena copy so they outlive the input text. */
    deb_version_parse(r->version, strlen(r->version), &r->ver, NULL);
    ps->p++;
    return 0;
}

/* What sets an architecture list `[...]` apart from a build-profile formula
 * `<...>`: both are lists of words, each optionally negated with `!`. */
typedef struct term_list {
    char open, close;
    const char *word;   /* "an architecture name" */
    const char *list;   /* "architecture list" */
    bool (*valid)(const char *s, size_t len);
    bool same_negation; /* all terms negated or none */
} term_list;

static const term_list arch_list = { '[', ']', "an architecture name", "architecture list", arch_valid, true };
static const term_list profile_list = { '<', '>', "a build profile name", "build profile list", profile_valid,
                                        false };

/* Copies the n pointed-to items of `size` bytes each from `v` into one arena array. */
static void *arena_items(arena *a, const ptrvec *v, size_t size)
{
    char *arr = arena_alloc(a, v->len * size);
    for (size_t i = 0; i < v->len; i++)
        memcpy(arr + i * size, v->items[i], size);
    return arr;
}

/* One `[...]` or `<...>` list as `kind` says; ps->p is at the opening
 * character. Sets *terms and *n_terms (at least 1) on success. */
static int parse_terms(parser *ps, const term_list *kind, const deb_term **terms, size_t *n_terms)
{
    const char *open = ps->p++;
    ptrvec items = PTRVEC_INIT;
    int rc = 0;
    for (;;) {
        skip_space(ps);
        if (*ps->p == kind->close)
            break;
        char buf[16];
        if (*ps->p == '\0') {
            rc = fail_at(ps, ps->p, "`%c` at column %zu is not closed with `%c`", kind->open,
                         column_of(ps, open), kind->close);
            goto done;
        }
        const char *at = ps->p;
        bool neg = false;
        if (*ps->p == '!') {
            neg = true;
            ps->p++;
        }
        const char *ws = ps->p;
        size_t n = word(ps);
        if (n == 0) {
            rc = fail_at(ps, ps->p, "expected %s, found %s", kind->word, found(ps->p, buf));
            goto done;
        }
        if (!kind->valid(ws, n)) {
            rc = fail_at(ps, ws, "`%.*s` is not %s", (int)n, ws, kind->word);
            goto done;
        }
        if (kind->same_negation && items.len > 0 && ((deb_term *)items.items[0])->negated != neg) {
            rc = fail_at(ps, at, "an %s is either all negated (`!`) or none; `%.*s` breaks that", kind->list,
                         (int)(ps->p - at), at);
            goto done;
        }
        deb_term *t = arena_alloc(ps->a, sizeof *t);
        t->name = arena_strndup(ps->a, ws, n);
        t->negated = neg;
        ptrvec_push(&items, t);
    }
    if (items.len == 0) {
        rc = fail_at(ps, open, "the %s `%c%c` is empty", kind->list, kind->open, kind->close);
        goto done;
    }
    ps->p++;
    *terms = arena_items(ps->a, &items, sizeof(deb_term));
    *n_terms = items.len;
done:
    ptrvec_release(&items);
    return rc;
}

/* `[arch !arch ...]`; ps->p is at the `[`. */
static int parse_arches(parser *ps, deb_rel *r)
{
    return parse_terms(ps, &arch_list, &r->arches, &r->n_arches);
}

/* `<term term ...>`; ps->p is at the `<`. Appends to *profiles. */
static int parse_profile(parser *ps, ptrvec *profiles)
{
    deb_profile *prof = arena_alloc(ps->a, sizeof *prof);
    if (parse_terms(ps, &profile_list, &prof->terms, &prof->n_terms) != 0)
        return -1;
    ptrvec_push(profiles, prof);
    return 0;
}

/* One relation; ps->p is at its first non-space character. */
static int parse_rel(parser *ps, deb_rel *r)
{
    char buf[16];
    memset(r, 0, sizeof *r);
    const char *ns = ps->p;
    size_t n = word(ps);
    if (n == 0)
        return fail_at(ps, ns, "expected a package name, found %s", found(ns, buf));
    if (!deb_name_valid(ns, n))
        return fail_at(ps, ns,
                       "`%.*s` is not a package name: at least 2 of a-z 0-9 + . -, starting with a letter or digit",
                       (int)n, ns);
    r->name = arena_strndup(ps->a, ns, n);
    r->column = column_of(ps, ns);
    if (*ps->p == ':') {
        const char *qs = ++ps->p;
        size_t qn = word(ps);
        if (qn == 0)
            return fail_at(ps, qs, "an architecture qualifier must follow `:`, found %s", found(qs, buf));
        if (!arch_valid(qs, qn))
            return fail_at(ps, qs, "`%.*s` is not an architecture qualifier", (int)qn, qs);
        if (qn == 6 && memcmp(qs, "native", 6) == 0 && !is_build_field(ps->field))
            return fail_at(ps, qs, "`:native` is only allowed in Build-Depends and Build-Conflicts, not in %s",
                           deb_field_name(ps->field));
        r->archqual = arena_strndup(ps->a, qs, qn);
    }
    skip_space(ps);
    if (*ps->p == '(') {
        if (parse_version(ps, r) != 0)
            return -1;
        skip_space(ps);
    }
    if (*ps->p == '[') {
        if (parse_arches(ps, r) != 0)
            return -1;
        skip_space(ps);
    }
    ptrvec profiles = PTRVEC_INIT;
    while (*ps->p == '<') {
        if (parse_profile(ps, &profiles) != 0) {
            ptrvec_release(&profiles);
            return -1;
        }
        skip_space(ps);
    }
    if (profiles.len) {
        r->profiles = arena_items(ps->a, &profiles, sizeof(deb_profile));
        r->n_profiles = profiles.len;
    }
    ptrvec_release(&profiles);
    return 0;
}

/* Explains what is wrong with the character that ended a relation. */
static int fail_after_rel(parser *ps)
{
    char buf[16];
    const char *at = ps->p;
    switch (*at) {
    case '(':
        return fail_at(ps, at, "a version relation `(...)` must come right after the package name");
    case '[':
        return fail_at(ps, at, "an architecture list `[...]` must come before the build profiles");
    case ')':
        return fail_at(ps, at, "`)` without an opening `(`");
    case ']':
        return fail_at(ps, at, "`]` without an opening `[`");
    case '>':
        return fail_at(ps, at, "`>` without an opening `<`");
    default:
        return fail_at(ps, at, "expected `,` or `|` after the relation, found %s", found(at, buf));
    }
}

int deb_relations_parse(const char *text, deb_field field, deb_relations **out,
                        deb_parse_error *err)
{
    if (err) {
        err->column = 0;
        err->message = NULL;
    }
    *out = NULL;
    parser ps = { text, text, field, arena_new(), err };
    ptrvec groups = PTRVEC_INIT, alts = PTRVEC_INIT;
    int rc = 0;
    skip_space(&ps);
    while (*ps.p) {
        /* One group: rel ( '|' rel )* */
        for (;;) {
            skip_space(&ps);
            if (*ps.p == ',' || *ps.p == '|' || *ps.p == '\0') {
                const char *what = alts.len ? "an alternative after `|`" : "a relation";
                if (*ps.p == '\0' && alts.len)
                    rc = fail_at(&ps, ps.p, "%s is missing at the end of the field", what);
                else
                    rc = fail_at(&ps, ps.p, "%s is missing before `%c`", what, *ps.p);
                goto done;
            }
            deb_rel *r = arena_alloc(ps.a, sizeof *r);
            if (parse_rel(&ps, r) != 0) {
                rc = -1;
                goto done;
            }
            ptrvec_push(&alts, r);
            if (*ps.p == '|') {
                if (!alternatives_allowed(field)) {
                    rc = fail_at(&ps, ps.p, "alternatives (`|`) are not allowed in %s",
                                 deb_field_name(field));
                    goto done;
                }
                ps.p++;
                continue;
            }
            if (*ps.p != ',' && *ps.p != '\0') {
                rc = fail_after_rel(&ps);
                goto done;
            }
            break;
        }
        deb_rel_group *g = arena_alloc(ps.a, sizeof *g);
        deb_rel *arr = arena_alloc(ps.a, alts.len * sizeof *arr);
        for (size_t i = 0; i < alts.len; i++)
            arr[i] = *(deb_rel *)alts.items[i];
        g->alts = arr;
        g->n_alts = alts.len;
        alts.len = 0;
        ptrvec_push(&groups, g);
        if (*ps.p == ',') {
            ps.p++;
            skip_space(&ps); /* a single trailing comma ends the field */
        }
    }
    deb_relations *rels = xcalloc(1, sizeof *rels);
    rels->a = ps.a;
    rels->n_groups = groups.len;
    if (groups.len) {
        rels->groups = arena_alloc(ps.a, groups.len * sizeof *rels->groups);
        for (size_t i = 0; i < groups.len; i++)
            rels->groups[i] = *(deb_rel_group *)groups.items[i];
    }
    *out = rels;
done:
    ptrvec_release(&groups);
    ptrvec_release(&alts);
    if (rc != 0)
        arena_free(ps.a);
    return rc;
}

void deb_relations_free(deb_relations *rels)
{
    if (!rels)
        return;
    arena_free(rels->a);
    free(rels);
}

const deb_rel_group *deb_relations_groups(const deb_relations *rels, size_t *n)
{
    *n = rels->n_groups;
    return rels->groups;
}

static void format_terms(strbuf *sb, const deb_term *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addc(sb, ' ');
        if (t[i].negated)
            sb_addc(sb, '!');
        sb_adds(sb, t[i].name);
    }
}

char *deb_relations_format(const deb_relations *rels)
{
    strbuf sb = STRBUF_INIT;
    for (size_t g = 0; g < rels->n_groups; g++) {
        if (g)
            sb_adds(&sb, ", ");
        const deb_rel_group *grp = &rels->groups[g];
        for (size_t i = 0; i < grp->n_alts; i++) {
            const deb_rel *r = &grp->alts[i];
            if (i)
                sb_adds(&sb, " | ");
            sb_adds(&sb, r->name);
            if (r->archqual)
                sb_addf(&sb, ":%s", r->archqual);
            if (r->op != DEB_OP_ANY)
                sb_addf(&sb, " (%s %s)", deb_op_name(r->op), r->version);
            if (r->n_arches) {
                sb_adds(&sb, " [");
                format_terms(&sb, r->arches, r->n_arches);
                sb_addc(&sb, ']');
            }
            for (size_t k = 0; k < r->n_profiles; k++) {
                sb_adds(&sb, " <");
                format_terms(&sb, r->profiles[k].terms, r->profiles[k].n_terms);
                sb_addc(&sb, '>');
            }
        }
    }
    return sb_detach(&sb, NULL);
}

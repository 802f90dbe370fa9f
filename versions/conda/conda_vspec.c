/* conda_vspec.c — conda version specs ("1.2.*", ">=1.2,<2|==3"): the
 * and/or tree with parentheses, each item's kind (condaver.h lists them),
 * and matching a version against the tree. Versions and their order are
 * conda_version.c's; the name/build/channel parts of a match spec are
 * conda_match.c's. Regular expressions use POSIX regcomp (glibc). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "condaver.h"

typedef enum vs_kind {
    VS_ANY, VS_LT, VS_LE, VS_EQ, VS_NE, VS_GE, VS_GT,
    VS_STARTS, VS_NOT_STARTS, VS_COMPAT, VS_REGEX, VS_TEXT, VS_AND, VS_OR
} vs_kind;

typedef struct vs_node {
    vs_kind kind;
    conda_version *v;      /* the operand of comparisons */
    conda_version *prefix; /* VS_COMPAT: v minus its last component */
    regex_t re;            /* VS_REGEX */
    char *text;            /* VS_TEXT */
    struct vs_node **kids; /* VS_AND, VS_OR */
    size_t n;
} vs_node;

struct conda_vspec {
    vs_node *root;
};

typedef struct parser {
    const char *s;
    size_t len, pos;
    conda_error err;
    int depth;
} parser;

/* Nesting bound: a spec is one line of a recipe or repodata, and the
 * recursive descent must not run out of stack on hostile parentheses. */
#define VS_MAX_DEPTH 64

bool conda_regex_compile(struct re_pattern_buffer *re, const char *rx)
{
    size_t quantifiers = 0;
    bool after_quantifier = false;
    if (strlen(rx) > CONDA_REGEX_MAX)
        return false;
    for (const char *p = rx; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            after_quantifier = false;
            continue;
        }
        if (*p == '{' || *p == '}')
            return false;
        bool q = *p == '*' || *p == '+' || *p == '?';
        if (q && (after_quantifier || ++quantifiers > 16))
            return false;
        after_quantifier = q;
    }
    return regcomp(re, rx, REG_EXTENDED | REG_NOSUB) == 0;
}

static void node_free(vs_node *n)
{
    if (!n)
        return;
    conda_version_free(n->v);
    conda_version_free(n->prefix);
    if (n->kind == VS_REGEX)
        regfree(&n->re);
    free(n->text);
    for (size_t i = 0; i < n->n; i++)
        node_free(n->kids[i]);
    free(n->kids);
    free(n);
}

void conda_vspec_free(conda_vspec *s)
{
    if (!s)
        return;
    node_free(s->root);
    free(s);
}

static vs_node *perr(parser *p, size_t pos, const char *msg, vs_node *n)
{
    if (!p->err.message) {
        p->err.column = pos + 1;
        p->err.message = msg;
    }
    node_free(n);
    return NULL;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Parses a version operand at s[off..off+len) into n->v, errors placed at
 * their column in the whole spec. */
static vs_node *operand(parser *p, vs_node *n, size_t off, size_t len)
{
    conda_error e = {0, NULL};
    n->v = conda_version_parse(p->s + off, len, &e);
    if (!n->v)
        return perr(p, off + (e.column ? e.column - 1 : 0), e.message, n);
    return n;
}

/* `~=v`: the prefix is v's normalized text cut at its last `.`. */
static vs_node *compat(parser *p, vs_node *n, size_t off)
{
    const char *norm = conda_version_norm(n->v);
    const char *dot = strrchr(norm, '.');
    if (!dot || dot == norm)
        return perr(p, off, "`~=` needs a version of at least two components", n);
    n->prefix = conda_version_parse(norm, (size_t)(dot - norm), NULL);
    if (!n->prefix)
        return perr(p, off, "`~=` needs a version of at least two components", n);
    return n;
}

/* An item that starts with an operator character. */
static vs_node *op_item(parser *p, vs_node *n, size_t b, size_t e)
{
    static const struct { const char *op; vs_kind kind; } ops[] = {
        {"==", VS_EQ}, {"!=", VS_NE}, {"<=", VS_LE}, {">=", VS_GE}, {"~=", VS_COMPAT},
        {"=", VS_STARTS}, {"<", VS_LT}, {">", VS_GT},
    };
    const char *s = p->s;
    size_t k = 0, ol = 0;
    for (; k < sizeof ops / sizeof ops[0]; k++) {
        ol = strlen(ops[k].op);
        if (e - b > ol && strncmp(s + b, ops[k].op, ol) == 0 && !strchr("=<>!~", s[b + ol]))
            break;
    }
    if (k == sizeof ops / sizeof ops[0])
        return perr(p, b, "invalid operator", n);
    for (size_t i = b + ol; i < e; i++)
        if (blank(s[i]))
            return perr(p, i, "invalid operator: a blank inside the item", n);
    n->kind = ops[k].kind;
    size_t vb = b + ol, ve = e;
    if (ve - vb >= 2 && s[ve - 2] == '.' && s[ve - 1] == '*') {
        if (n->kind == VS_COMPAT)
            return perr(p, b, "invalid operator with '.*'", n);
        if (n->kind == VS_NE)
            n->kind = VS_NOT_STARTS;
        ve -= 2;
    }
    if (!operand(p, n, vb, ve - vb))
        return NULL;
    return n->kind == VS_COMPAT ? compat(p, n, b) : n;
}

/* A glob ("1.*.3"): `.` and `+` literal, `*` any text, anchored. */
static vs_node *glob_item(parser *p, vs_node *n, size_t b, size_t e)
{
    strbuf rx = STRBUF_INIT;
    sb_adds(&rx, "^(");
    for (size_t i = b; i < e; i++) {
        char c = p->s[i];
        if (c == '*')
            sb_adds(&rx, ".*");
        else if (strchr(".+?()[]{}|^$\\", c)) {
            sb_addc(&rx, '\\');
            sb_addc(&rx, c);
        } else
            sb_addc(&rx, c);
    }
    sb_adds(&rx, ")$");
    bool ok = conda_regex_compile(&n->re, rx.buf);
    sb_release(&rx);
    if (!ok)
        return perr(p, b, "invalid glob (or over 16 `*`)", n);
    n->kind = VS_REGEX;
    return n;
}

/* One item, s[b..e) with blanks already trimmed (b < e). */
static vs_node *item(parser *p, size_t b, size_t e)
{
    const char *s = p->s;
    vs_node *n = xcalloc(1, sizeof *n);
    if (s[b] == '^' || s[e - 1] == '$') {
        if (s[b] != '^' || s[e - 1] != '$' || e - b < 2)
            return perr(p, b, "regex specs must start with '^' and end with '$'", n);
        char *rx = xstrndup(s + b, e - b);
        bool ok = conda_regex_compile(&n->re, rx);
        free(rx);
        if (!ok)
            return perr(p, b, "invalid or unsupported regular expression", n);
        n->kind = VS_REGEX;
        return n;
    }
    if (strchr("=<>!~", s[b]))
        return op_item(p, n, b, e);
    if (e - b == 1 && s[b] == '*')
        return n; /* VS_ANY */
    size_t stars = e;
    while (stars > b && s[stars - 1] == '*')
        stars--;
    if (memchr(s + b, '*', stars - b))
        return glob_item(p, n, b, e);
    if (stars < e) {
        /* conda reads `X*` as `X.*` (one star dropped, `.*` added), then
         * drops the `.*` and every `.` before it: the prefix is X. */
        size_t ve = e - 1;
        if (e - b >= 2 && s[e - 2] == '.')
            ve = e - 2;
        while (ve > b && s[ve - 1] == '.')
            ve--;
        n->kind = VS_STARTS;
        return operand(p, n, b, ve - b);
    }
    if (memchr(s + b, '@', e - b)) {
        n->kind = VS_TEXT;
        n->text = xstrndup(s + b, e - b);
        return n;
    }
    n->kind = VS_EQ;
    return operand(p, n, b, e - b);
}

static vs_node *parse_or(parser *p);

static void skip_blanks(parser *p)
{
    while (p->pos < p->len && blank(p->s[p->pos]))
        p->pos++;
}

/* An item or a parenthesized group. An item runs to the next `(`, `)`,
 * `|` or `,`, except that `^...$` runs to its `$` (a regex may hold `|`). */
static vs_node *primary(parser *p)
{
    skip_blanks(p);
    size_t b = p->pos;
    if (b < p->len && p->s[b] == '(') {
        if (++p->depth > VS_MAX_DEPTH)
            return perr(p, b, "parentheses nested too deep", NULL);
        p->pos++;
        vs_node *n = parse_or(p);
        if (!n)
            return NULL;
        skip_blanks(p);
        if (p->pos >= p->len || p->s[p->pos] != ')')
            return perr(p, p->pos, "expected ')'", n);
        p->pos++;
        p->depth--;
        return n;
    }
    size_t e = b;
    if (b < p->len && p->s[b] == '^') {
        const char *dollar = memchr(p->s + b, '$', p->len - b);
        e = dollar ? (size_t)(dollar - p->s) + 1 : p->len;
    } else {
        while (e < p->len && !strchr("()|,", p->s[e]))
            e++;
    }
    p->pos = e;
    while (e > b && blank(p->s[e - 1]))
        e--;
    if (e == b)
        return perr(p, b, "empty version spec item", NULL);
    return item(p, b, e);
}

/* One level of the tree: items joined by `sep`, each parsed by `sub`. */
static vs_node *join(parser *p, char sep, vs_kind kind, vs_node *(*sub)(parser *))
{
    vs_node *first = sub(p);
    if (!first)
        return NULL;
    skip_blanks(p);
    if (p->pos >= p->len || p->s[p->pos] != sep)
        return first;
    vs_node *n = xcalloc(1, sizeof *n);
    n->kind = kind;
    n->kids = xmalloc(sizeof *n->kids);
    n->kids[n->n++] = first;
    while (p->pos < p->len && p->s[p->pos] == sep) {
        p->pos++;
        vs_node *k = sub(p);
        if (!k)
            return perr(p, p->pos, "bad version spec", n);
        n->kids = xrealloc(n->kids, (n->n + 1) * sizeof *n->kids);
        n->kids[n->n++] = k;
        skip_blanks(p);
    }
    return n;
}

static vs_node *parse_and(parser *p) { return join(p, ',', VS_AND, primary); }
static vs_node *parse_or(parser *p) { return join(p, '|', VS_OR, parse_and); }

conda_vspec *conda_vspec_parse(const char *text, size_t len, conda_error *err)
{
    parser p = {text, len, 0, {0, NULL}, 0};
    vs_node *root = NULL;
    if (memchr(text, '\0', len))
        perr(&p, (size_t)((const char *)memchr(text, '\0', len) - text), "invalid character(s)", NULL);
    else if (len > CONDA_VSPEC_MAX)
        perr(&p, 0, "version spec is longer than 4096 bytes", NULL);
    else if ((root = parse_or(&p)) != NULL) {
        skip_blanks(&p);
        if (p.pos < p.len) {
            perr(&p, p.pos, p.s[p.pos] == ')' ? "unbalanced ')'" : "unexpected text", root);
            root = NULL;
        }
    }
    if (!root) {
        if (err)
            *err = p.err;
        return NULL;
    }
    conda_vspec *s = xcalloc(1, sizeof *s);
    s->root = root;
    return s;
}

static bool node_match(const vs_node *n, const conda_version *v, const char *raw)
{
    switch (n->kind) {
    case VS_ANY: return true;
    case VS_REGEX: return regexec(&n->re, raw, 0, NULL, 0) == 0;
    case VS_TEXT: return strcmp(raw, n->text) == 0;
    case VS_AND:
    case VS_OR:
        for (size_t i = 0; i < n->n; i++)
            if (node_match(n->kids[i], v, raw) != (n->kind == VS_AND))
                return n->kind == VS_OR;
        return n->kind == VS_AND;
    default: break;
    }
    if (!v)
        return false;
    int c = conda_version_cmp(v, n->v);
    switch (n->kind) {
    case VS_LT: return c < 0;
    case VS_LE: return c <= 0;
    case VS_EQ: return c == 0;
    case VS_NE: return c != 0;
    case VS_GE: return c >= 0;
    case VS_GT: return c > 0;
    case VS_STARTS: return conda_version_startswith(v, n->v);
    case VS_NOT_STARTS: return !conda_version_startswith(v, n->v);
    case VS_COMPAT: return c >= 0 && conda_version_startswith(v, n->prefix);
    default: return false;
    }
}

bool conda_vspec_match(const conda_vspec *s, const conda_version *v, const char *raw)
{
    return node_match(s->root, v, raw);
}

int conda_filter(const char *spec, const char *const *versions, size_t n, bool *keep, char **msg)
{
    conda_error e = {0, NULL};
    conda_vspec *s = conda_vspec_parse(spec, strlen(spec), &e);
    if (!s) {
        if (msg)
            *msg = xasprintf("not a conda version spec: column %zu: %s", e.column, e.message);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        conda_version *v = conda_version_parse(versions[i], strlen(versions[i]), NULL);
        keep[i] = v && conda_vspec_match(s, v, versions[i]);
        conda_version_free(v);
    }
    conda_vspec_free(s);
    return 0;
}

/* pep508_parse.c — the PEP 508 requirement and marker parser, a
 * re-implementation of packaging 23.0's context-sensitive tokenizer and
 * recursive-descent parser (same tokens, same order of attempts, same
 * acceptance), plus the two checks Requirement() makes outside its grammar:
 * Python string-literal decoding of quoted marker values (ast.literal_eval)
 * and the URL test built on urllib.parse. Evaluation and printing of the
 * marker tree live in pep508_marker.c; version specifiers in pep440_*.c.
 *
 * Quirks reproduced on purpose: END also matches before one final "\n"
 * (Python's `$`); `\b` word boundaries treat every non-ASCII character as a
 * word character (Python uses Unicode classes; the two only differ where the
 * input is rejected either way); a requirement name may end in `_`; a
 * trailing comma in a specifier list is accepted.
 * Deliberate deviations (inputs rejected here that packaging accepts):
 * `\N{...}` escapes and escapes of surrogate code points in quoted values;
 * and we skip urllib's NFKC check of non-ASCII host names. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep508_tree.h"
#include "util.h"

typedef struct tk {
    const char *s;
    size_t len, pos;
    char *err; /* first error, malloc'd */
} tk;

static bool failf(tk *t, const char *fmt, ...) EL_PRINTF(2, 3);

/* Record the first error (with its column) and return false. */
static bool failf(tk *t, const char *fmt, ...)
{
    if (!t->err) {
        va_list ap;
        va_start(ap, fmt);
        char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        t->err = xasprintf("%s (at column %zu)", msg, t->pos + 1);
        free(msg);
    }
    return false;
}

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_word(unsigned char c) { return is_alnum(c) || c == '_' || c >= 0x80; }

/* Python's \b at index i. */
static bool boundary(const tk *t, size_t i)
{
    bool a = i > 0 && is_word((unsigned char)t->s[i - 1]);
    bool b = i < t->len && is_word((unsigned char)t->s[i]);
    return a != b;
}

static void consume_ws(tk *t)
{
    while (t->pos < t->len && (t->s[t->pos] == ' ' || t->s[t->pos] == '\t'))
        t->pos++;
}

static bool at_end(const tk *t)
{
    return t->pos == t->len || (t->pos + 1 == t->len && t->s[t->pos] == '\n');
}

/* IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, with the regex's backtracking
 * to the last word boundary. Returns the length, 0 if none. */
static size_t m_identifier(const tk *t)
{
    size_t p = t->pos;
    if (p >= t->len || !is_alnum((unsigned char)t->s[p]) || !boundary(t, p))
        return 0;
    size_t k = p + 1;
    while (k < t->len && (is_alnum((unsigned char)t->s[k]) || t->s[k] == '.' || t->s[k] == '_' || t->s[k] == '-'))
        k++;
    for (; k > p; k--)
        if (boundary(t, k))
            return k - p;
    return 0;
}

static bool m_keyword(const tk *t, const char *w)
{
    size_t n = strlen(w);
    return t->len - t->pos >= n && strncmp(t->s + t->pos, w, n) == 0 && boundary(t, t->pos) &&
           boundary(t, t->pos + n);
}

/* VARIABLE: returns the length matched and the canonical name. */
static size_t m_variable(const tk *t, const char **canon)
{
    static const struct { const char *text; const char *canon; } vars[] = {
        {"python_version", "python_version"},
        {"python_full_version", "python_full_version"},
        {"os_name", "os_name"}, {"os.name", "os_name"},
        {"sys_platform", "sys_platform"}, {"sys.platform", "sys_platform"},
        {"platform_release", "platform_release"},
        {"platform_system", "platform_system"},
        {"platform_version", "platform_version"}, {"platform.version", "platform_version"},
        {"platform_machine", "platform_machine"}, {"platform.machine", "platform_machine"},
        {"platform_python_implementation", "platform_python_implementation"},
        {"platform.python_implementation", "platform_python_implementation"},
        {"python_implementation", "platform_python_implementation"},
        {"implementation_name", "implementation_name"},
        {"implementation_version", "implementation_version"},
        {"extra", "extra"},
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (m_keyword(t, vars[i].text)) {
            *canon = vars[i].canon;
            return strlen(vars[i].text);
        }
    return 0;
}

/* ---- Python string literals ---- */

static void put_utf8(strbuf *sb, unsigned long cp)
{
    if (cp < 0x80) {
        sb_addc(sb, (char)cp);
    } else if (cp < 0x800) {
        sb_addc(sb, (char)(0xc0 | (cp >> 6)));
        sb_addc(sb, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        sb_addc(sb, (char)(0xe0 | (cp >> 12)));
        sb_addc(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_addc(sb, (char)(0x80 | (cp & 0x3f)));
    } else {
        sb_addc(sb, (char)(0xf0 | (cp >> 18)));
        sb_addc(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
        sb_addc(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_addc(sb, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A code point that may stand in a marker value: a Unicode scalar value,
 * not NUL. NULL, or why not. */
static const char *scalar_why(unsigned long cp)
{
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return "escape is not a valid Unicode scalar value";
    return cp == 0 ? "a quoted value cannot contain NUL" : NULL;
}

/* The `need` hex digits after p[*i] (\x, \u, \U) as UTF-8 onto sb. */
static bool decode_hex(const char *p, size_t n, size_t *i, int need, strbuf *sb,
                       const char **why)
{
    unsigned long cp = 0;
    for (int k = 0; k < need; k++) {
        int h = *i + 1 < n ? hex_digit(p[*i + 1]) : -1;
        if (h < 0) {
            *why = "truncated \\x, \\u or \\U escape";
            return false;
        }
        cp = cp * 16 + (unsigned long)h;
        (*i)++;
    }
    if ((*why = scalar_why(cp)) != NULL)
        return false;
    put_utf8(sb, cp);
    return true;
}

/* The escape whose letter is p[*i] (after its backslash) onto sb, *i at
 * its last character. */
static bool decode_escape(const char *p, size_t n, size_t *i, strbuf *sb, const char **why)
{
    char e = p[*i];
    switch (e) {
    case '\n': return true;
    case '\r':
        if (*i + 1 < n && p[*i + 1] == '\n')
            (*i)++;
        return true;
    case '\\': sb_addc(sb, '\\'); return true;
    case '\'': sb_addc(sb, '\''); return true;
    case '"': sb_addc(sb, '"'); return true;
    case 'a': sb_addc(sb, '\a'); return true;
    case 'b': sb_addc(sb, '\b'); return true;
    case 'f': sb_addc(sb, '\f'); return true;
    case 'n': sb_addc(sb, '\n'); return true;
    case 'r': sb_addc(sb, '\r'); return true;
    case 't': sb_addc(sb, '\t'); return true;
    case 'v': sb_addc(sb, '\v'); return true;
    case 'x': return decode_hex(p, n, i, 2, sb, why);
    case 'u': return decode_hex(p, n, i, 4, sb, why);
    case 'U': return decode_hex(p, n, i, 8, sb, why);
    case 'N':
        *why = "\\N{...} escapes are not supported";
        return false;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        unsigned long cp = (unsigned long)(e - '0');
        for (int k = 0; k < 2 && *i + 1 < n && p[*i + 1] >= '0' && p[*i + 1] <= '7'; k++)
            cp = cp * 8 + (unsigned long)(p[++(*i)] - '0');
        if (cp == 0) {
            *why = "a quoted value cannot contain NUL";
            return false;
        }
        put_utf8(sb, cp);
        return true;
    }
    default:
        /* Unknown escapes keep their backslash. */
        sb_addc(sb, '\\');
        sb_addc(sb, e);
        return true;
    }
}

/* Decode the body of a quoted marker value as ast.literal_eval would
 * (the quotes themselves excluded). NULL with *why on a Python
 * SyntaxError: raw newline or NUL, a backslash escaping the closing quote,
 * malformed \x \u \U, and (our deviation) \N{...} and surrogates. */
static char *decode_literal(const char *p, size_t n, const char **why)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\0' || c == '\n' || c == '\r') {
            *why = c ? "a quoted value cannot span lines" : "a quoted value cannot contain NUL";
            goto bad;
        }
        if (c != '\\') {
            sb_addc(&sb, c);
            continue;
        }
        if (i + 1 >= n) {
            *why = "a backslash escapes the closing quote";
            goto bad;
        }
        i++;
        if (!decode_escape(p, n, &i, &sb, why))
            goto bad;
    }
    return sb_detach(&sb, NULL);
bad:
    sb_release(&sb);
    return NULL;
}

/* ---- markers ---- */

static pypi_mnode *parse_marker(tk *t);

static bool parse_var(tk *t, pypi_mterm *out)
{
    const char *canon;
    size_t n = m_variable(t, &canon);
    if (n) {
        out->is_var = true;
        out->s = xstrdup(canon);
        t->pos += n;
        return true;
    }
    if (t->pos < t->len && (t->s[t->pos] == '\'' || t->s[t->pos] == '"')) {
        const char *close = memchr(t->s + t->pos + 1, t->s[t->pos], t->len - t->pos - 1);
        if (close) {
            const char *why = NULL;
            char *v = decode_literal(t->s + t->pos + 1, (size_t)(close - (t->s + t->pos + 1)), &why);
            if (!v)
                return failf(t, "bad quoted value: %s", why);
            out->is_var = false;
            out->s = v;
            t->pos = (size_t)(close - t->s) + 1;
            return true;
        }
    }
    return failf(t, "expected a marker variable or a quoted string");
}

static bool parse_op(tk *t, char **op)
{
    if (m_keyword(t, "in")) {
        t->pos += 2;
        *op = xstrdup("in");
        return true;
    }
    if (m_keyword(t, "not")) {
        t->pos += 3;
        if (t->pos >= t->len || (t->s[t->pos] != ' ' && t->s[t->pos] != '\t'))
            return failf(t, "expected whitespace after `not`");
        consume_ws(t);
        if (!m_keyword(t, "in"))
            return failf(t, "expected `in` after `not`");
        t->pos += 2;
        *op = xstrdup("not in");
        return true;
    }
    static const char *const ops[] = {"===", "==", "~=", "!=", "<=", ">=", "<", ">"};
    for (size_t i = 0; i < 8; i++) {
        size_t n = strlen(ops[i]);
        if (strncmp(t->s + t->pos, ops[i], n) == 0) {
            t->pos += n;
            *op = xstrdup(ops[i]);
            return true;
        }
    }
    return failf(t, "expected a marker operator (<, <=, !=, ==, >=, >, ~=, ===, in, not in)");
}

static pypi_mnode *parse_item(tk *t)
{
    pypi_mnode *n = xcalloc(1, sizeof *n);
    consume_ws(t);
    if (!parse_var(t, &n->lhs))
        goto bad;
    consume_ws(t);
    if (!parse_op(t, &n->op))
        goto bad;
    consume_ws(t);
    if (!parse_var(t, &n->rhs))
        goto bad;
    consume_ws(t);
    return n;
bad:
    pypi_mnode_free(n);
    return NULL;
}

static pypi_mnode *parse_atom(tk *t)
{
    pypi_mnode *n;
    consume_ws(t);
    if (t->pos < t->len && t->s[t->pos] == '(') {
        size_t open = t->pos;
        t->pos++;
        consume_ws(t);
        n = parse_marker(t);
        if (!n)
            return NULL;
        consume_ws(t);
        if (t->pos >= t->len || t->s[t->pos] != ')') {
            pypi_mnode_free(n);
            char col[32];
            snprintf(col, sizeof col, "%zu", open + 1);
            return failf(t, "expected `)` to close the `(` at column %s", col), NULL;
        }
        t->pos++;
    } else {
        n = parse_item(t);
        if (!n)
            return NULL;
    }
    consume_ws(t);
    return n;
}

static pypi_mnode *parse_marker(tk *t)
{
    pypi_mnode *list = xcalloc(1, sizeof *list);
    list->is_list = true;
    size_t alloc = 0;
    for (;;) {
        pypi_mnode *a = parse_atom(t);
        if (!a) {
            pypi_mnode_free(list);
            return NULL;
        }
        if (list->n == alloc) {
            alloc = alloc ? 2 * alloc : 4;
            list->kids = xrealloc(list->kids, alloc * sizeof *list->kids);
            list->is_or = xrealloc(list->is_or, alloc * sizeof *list->is_or);
        }
        list->kids[list->n++] = a;
        bool is_or;
        if (m_keyword(t, "or")) {
            is_or = true;
            t->pos += 2;
        } else if (m_keyword(t, "and")) {
            is_or = false;
            t->pos += 3;
        } else {
            break;
        }
        list->is_or[list->n - 1] = is_or;
    }
    return list;
}

pypi_marker *pypi_marker_parse(const char *text, bool strict, char **err)
{
    tk t = {text, strlen(text), 0, NULL};
    pypi_mnode *root = parse_marker(&t);
    if (root && strict) {
        consume_ws(&t);
        if (!at_end(&t)) {
            failf(&t, "unexpected text after the marker");
            pypi_mnode_free(root);
            root = NULL;
        }
    }
    if (!root) {
        if (err)
            *err = t.err;
        else
            free(t.err);
        return NULL;
    }
    return pypi_marker_from_tree(root);
}

/* ---- URLs (urllib.parse as Python 3.11 does it) ---- */

/* ipaddress.IPv4Address: four decimal octets, no leading zeros. */
static bool ipv4_ok(const char *s, size_t n)
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        size_t d = 0;
        unsigned v = 0;
        while (i + d < n && s[i + d] >= '0' && s[i + d] <= '9') {
            v = v * 10 + (unsigned)(s[i + d] - '0');
            d++;
            if (d > 3)
                return false;
        }
        if (d == 0 || v > 255 || (d > 1 && s[i] == '0'))
            return false;
        i += d;
        if (part < 3) {
            if (i >= n || s[i] != '.')
                return false;
            i++;
        }
    }
    return i == n;
}

/* ipaddress.IPv6Address, with an optional %scope. */
static bool ipv6_ok(const char *s, size_t n)
{
    const char *pct = memchr(s, '%', n);
    if (pct) {
        size_t sl = n - (size_t)(pct - s) - 1;
        if (sl == 0 || memchr(pct + 1, '%', sl))
            return false;
        n = (size_t)(pct - s);
    }
    if (n == 0 || n > 60)
        return false;
    /* Reproduce ipaddress's rules through inet_pton, after checking what
     * inet_pton is laxer or stricter about: hextets are 1-4 hex digits and
     * an embedded IPv4 tail follows IPv4Address's rules. */
    char buf[64];
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *last = strrchr(buf, ':');
    if (!last)
        return false;
    if (strchr(last, '.') && !ipv4_ok(last + 1, strlen(last + 1)))
        return false;
    unsigned char out[16];
    return inet_pton(AF_INET6, buf, out) == 1;
}

static bool bracketed_host_ok(const char *h, size_t n)
{
    if (n > 0 && h[0] == 'v') {
        /* \Av[a-fA-F0-9]+\..+\Z */
        size_t i = 1;
        while (i < n && hex_digit(h[i]) >= 0)
            i++;
        return i > 1 && i < n && h[i] == '.' && i + 1 < n;
    }
    if (ipv4_ok(h, n))
        return false;
    return ipv6_ok(h, n);
}

static bool netloc_brackets_ok(const char *nl, size_t n)
{
    bool open = memchr(nl, '[', n) != NULL, close = memchr(nl, ']', n) != NULL;
    if (open != close)
        return false;
    if (!open)
        return true;
    const char *hp = nl;
    for (size_t i = n; i > 0; i--)
        if (nl[i - 1] == '@') {
            hp = nl + i;
            break;
        }
    size_t hn = n - (size_t)(hp - nl);
    const char *ob = memchr(hp, '[', hn);
    if (ob) {
        if (ob != hp)
            return false;
        const char *br = ob + 1;
        size_t bn = hn - 1;
        const char *cb = memchr(br, ']', bn);
        size_t hostn = cb ? (size_t)(cb - br) : bn;
        if (cb && cb + 1 < hp + hn && cb[1] != ':')
            return false;
        return bracketed_host_ok(br, hostn);
    }
    const char *colon = memchr(hp, ':', hn);
    return bracketed_host_ok(hp, colon ? (size_t)(colon - hp) : hn);
}

/* urlparse's scheme of s[0..n): lowercased, "" when it has none; *rest
 * is what follows its colon (s itself without a scheme). Caller frees. */
static char *url_scheme(const char *s, size_t n, const char **rest)
{
    const char *colon = memchr(s, ':', n);
    *rest = s;
    if (!colon || colon == s || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return xstrdup("");
    for (const char *c = s; c < colon; c++)
        if (!(is_alnum((unsigned char)*c) || *c == '+' || *c == '-' || *c == '.'))
            return xstrdup("");
    char *scheme = xstrndup(s, (size_t)(colon - s));
    for (char *c = scheme; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    *rest = colon + 1;
    return scheme;
}

/* Whether urlunparse of a file: URL's parts (netloc, then rest..end: path,
 * query, fragment) gives `url` back unchanged. */
static bool file_url_round_trips(const char *url, const char *netloc, size_t netloc_n,
                                 const char *rest, const char *end)
{
    const char *hash = memchr(rest, '#', (size_t)(end - rest));
    const char *pend = hash ? hash : end;
    const char *q = memchr(rest, '?', (size_t)(pend - rest));
    const char *path = rest;
    size_t path_n = (size_t)((q ? q : pend) - rest);
    const char *query = q ? q + 1 : "";
    size_t query_n = q ? (size_t)(pend - q - 1) : 0;
    const char *frag = hash ? hash + 1 : "";
    size_t frag_n = hash ? (size_t)(end - hash - 1) : 0;
    strbuf r = STRBUF_INIT;
    sb_adds(&r, "file:");
    if (netloc_n || !(path_n >= 2 && path[0] == '/' && path[1] == '/')) {
        sb_adds(&r, "//");
        sb_add(&r, netloc, netloc_n);
        if (path_n && path[0] != '/')
            sb_addc(&r, '/');
    }
    sb_add(&r, path, path_n);
    if (query_n) {
        sb_addc(&r, '?');
        sb_add(&r, query, query_n);
    }
    if (frag_n) {
        sb_addc(&r, '#');
        sb_add(&r, frag, frag_n);
    }
    bool same = strcmp(r.buf, url) == 0;
    sb_release(&r);
    return same;
}

/* Requirement()'s URL test: urlparse must not raise; file: URLs must
 * round-trip through urlunparse unchanged; others need scheme and host. */
static bool url_ok(const char *url, const char **why)
{
    const char *u = url;
    while (*u && (unsigned char)*u <= 0x20)
        u++;
    strbuf sb = STRBUF_INIT;
    for (; *u; u++)
        if (*u != '\t' && *u != '\r' && *u != '\n')
            sb_addc(&sb, *u);
    const char *rest;
    char *scheme = url_scheme(sb.buf, sb.len, &rest);
    const char *end = sb.buf + sb.len;
    const char *netloc = rest;
    size_t netloc_n = 0;
    bool ok;
    if (end - rest >= 2 && rest[0] == '/' && rest[1] == '/') {
        netloc = rest + 2;
        const char *d = netloc;
        while (d < end && *d != '/' && *d != '?' && *d != '#')
            d++;
        netloc_n = (size_t)(d - netloc);
        rest = d;
        if (!netloc_brackets_ok(netloc, netloc_n)) {
            *why = "invalid IPv6 host in URL";
            ok = false;
            goto out;
        }
    }
    if (strcmp(scheme, "file") == 0) {
        ok = file_url_round_trips(url, netloc, netloc_n, rest, end);
        if (!ok)
            *why = "file: URL is not in canonical form";
    } else {
        ok = scheme[0] && netloc_n;
        if (!ok)
            *why = "URL needs a scheme and a host";
    }
out:
    free(scheme);
    sb_release(&sb);
    return ok;
}

/* ---- requirements ---- */

static void add_extra(pypi_requirement *r, const char *s, size_t n, size_t *alloc)
{
    for (size_t i = 0; i < r->nextras; i++)
        if (strlen(r->extras[i]) == n && memcmp(r->extras[i], s, n) == 0)
            return;
    if (r->nextras == *alloc) {
        *alloc = *alloc ? 2 * *alloc : 4;
        r->extras = xrealloc(r->extras, *alloc * sizeof(char *));
        r->extras_canonical = xrealloc(r->extras_canonical, *alloc * sizeof(char *));
    }
    r->extras[r->nextras] = xstrndup(s, n);
    r->extras_canonical[r->nextras] = pypi_name_canonical(r->extras[r->nextras]);
    r->nextras++;
}

static bool parse_extras(tk *t, pypi_requirement *r)
{
    size_t alloc = 0, open = t->pos;
    t->pos++;
    consume_ws(t);
    size_t k = m_identifier(t);
    if (k) {
        add_extra(r, t->s + t->pos, k, &alloc);
        t->pos += k;
        for (;;) {
            consume_ws(t);
            if (m_identifier(t))
                return failf(t, "expected a comma between extra names");
            if (t->pos >= t->len || t->s[t->pos] != ',')
                break;
            t->pos++;
            consume_ws(t);
            k = m_identifier(t);
            if (!k)
                return failf(t, "expected an extra name after the comma");
            add_extra(r, t->s + t->pos, k, &alloc);
            t->pos += k;
        }
    }
    consume_ws(t);
    if (t->pos >= t->len || t->s[t->pos] != ']') {
        char col[32];
        snprintf(col, sizeof col, "%zu", open + 1);
        return failf(t, "expected `]` to close the extras opened at column %s", col);
    }
    t->pos++;
    return true;
}

static bool parse_specifier(tk *t, strbuf *spec)
{
    bool paren = t->pos < t->len && t->s[t->pos] == '(';
    size_t open = t->pos;
    if (paren)
        t->pos++;
    consume_ws(t);
    size_t k;
    while ((k = pypi_spec_match(t->s + t->pos)) > 0) {
        sb_add(spec, t->s + t->pos, k);
        t->pos += k;
        consume_ws(t);
        if (t->pos >= t->len || t->s[t->pos] != ',')
            break;
        sb_addc(spec, ',');
        t->pos++;
        consume_ws(t);
    }
    consume_ws(t);
    if (paren) {
        if (t->pos >= t->len || t->s[t->pos] != ')') {
            char col[32];
            snprintf(col, sizeof col, "%zu", open + 1);
            return failf(t, "expected a version specifier and `)` to close the `(` at column %s", col);
        }
        t->pos++;
    }
    return true;
}

/* What follows a name or specifier must be `;` and a marker. */
static bool parse_req_marker(tk *t, pypi_requirement *r, const char *after)
{
    if (t->pos >= t->len || t->s[t->pos] != ';')
        return failf(t, "expected the end or `;` and a marker after %s", after);
    t->pos++;
    pypi_mnode *root = parse_marker(t);
    if (!root)
        return false;
    r->marker = pypi_marker_from_tree(root);
    consume_ws(t);
    return true;
}

/* At a comparison operator whose version did not parse: say so. */
static bool version_error(tk *t)
{
    const char *p = t->s + t->pos;
    size_t n = strspn(p, "=!<>~");
    if (n == 0 || n > 3)
        return false;
    return failf(t, "expected a valid PEP 440 version after `%.*s`%s", (int)n, p,
                 (n == 2 && p[0] == '~') ? " (with at least two release numbers)" : "");
}

pypi_requirement *pypi_requirement_parse(const char *text, char **err)
{
    tk t = {text, strlen(text), 0, NULL};
    pypi_requirement *r = xcalloc(1, sizeof *r);
    strbuf spec = STRBUF_INIT;
    consume_ws(&t);
    size_t k = m_identifier(&t);
    if (!k) {
        failf(&t, "expected a package name at the start");
        goto bad;
    }
    r->name = xstrndup(t.s + t.pos, k);
    r->canonical_name = pypi_name_canonical(r->name);
    t.pos += k;
    consume_ws(&t);
    if (t.pos < t.len && t.s[t.pos] == '[' && !parse_extras(&t, r))
        goto bad;
    consume_ws(&t);
    if (t.pos < t.len && t.s[t.pos] == '@') {
        t.pos++;
        consume_ws(&t);
        size_t u = 0;
        while (t.pos + u < t.len && t.s[t.pos + u] != ' ' && t.s[t.pos + u] != '\t')
            u++;
        if (!u) {
            failf(&t, "expected a URL after `@`");
            goto bad;
        }
        r->url = xstrndup(t.s + t.pos, u);
        t.pos += u;
        if (!at_end(&t)) {
            /* URL runs to whitespace, so whitespace is what follows. */
            consume_ws(&t);
            if (!at_end(&t) && !parse_req_marker(&t, r, "the URL and whitespace"))
                goto bad;
        }
    } else {
        if (!parse_specifier(&t, &spec))
            goto bad;
        consume_ws(&t);
        if (!at_end(&t) && t.s[t.pos] != ';' && version_error(&t))
            goto bad;
        if (!at_end(&t) &&
            !parse_req_marker(&t, r, spec.len ? "the version specifier" : "the name (no valid version specifier)"))
            goto bad;
    }
    if (!at_end(&t)) {
        failf(&t, "unexpected text where the requirement should end");
        goto bad;
    }
    if (r->url) {
        const char *why = NULL;
        if (!url_ok(r->url, &why)) {
            t.pos = 0;
            t.err = xasprintf("invalid URL `%s`: %s", r->url, why);
            goto bad;
        }
    }
    r->specifier = sb_detach(&spec, NULL);
    r->specset = pypi_specset_parse(r->specifier, &t.err);
    if (!r->specset)
        goto bad;
    return r;
bad:
    sb_release(&spec);
    pypi_requirement_free(r);
    if (err)
        *err = t.err;
    else
        free(t.err);
    return NULL;
}

void pypi_requirement_free(pypi_requirement *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->canonical_name);
    for (size_t i = 0; i < r->nextras; i++) {
        free(r->extras[i]);
        free(r->extras_canonical[i]);
    }
    free(r->extras);
    free(r->extras_canonical);
    free(r->specifier);
    pypi_specset_free(r->specset);
    free(r->url);
    pypi_marker_free(r->marker);
    free(r);
}

int pypi_requirement_check(const char *text, char **err)
{
    pypi_requirement *r = pypi_requirement_parse(text, err);
    if (!r)
        return -1;
    pypi_requirement_free(r);
    return 0;
}

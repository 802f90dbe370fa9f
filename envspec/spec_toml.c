/* spec_toml.c — a strict TOML 1.0 reader with positions (spec_toml.h).
 * It follows the TOML 1.0.0 specification text: UTF-8 only, LF or CRLF
 * line ends, no control characters but tab in strings and comments, keys
 * bare or quoted and dotted, every value form, and the table rules — a
 * table is defined once (by a header or by dotted keys in one section), an
 * inline table or a static array is complete when it closes, an array of
 * tables is extended only by its own headers. The first problem stops the
 * read: TOML has no recovery, and a finding needs only one position. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "spec_toml.h"

#define F_EXPLICIT 1u /* defined: by a [header], or by dotted keys of a closed section */
#define F_FROZEN 2u   /* an inline table or a static array: complete */
#define F_AOT 4u      /* an array of tables ([[header]]) */

typedef struct tp {
    arena *mem;
    const char *s;
    size_t n, p;
    unsigned line;
    size_t bol; /* offset where the current line begins */
    char *err;
    unsigned err_line, err_col;
    ptrvec pending; /* tables dotted keys made in the current section */
    unsigned key_line, key_col; /* where the key of the pair being read starts */
} tp;

static bool fail(tp *t, const char *fmt, ...) EL_PRINTF(2, 3);
static bool fail(tp *t, const char *fmt, ...)
{
    if (t->err)
        return false;
    va_list ap;
    va_start(ap, fmt);
    t->err = xvasprintf(fmt, ap);
    va_end(ap);
    t->err_line = t->line;
    t->err_col = (unsigned)(t->p - t->bol) + 1;
    return false;
}

static int peek(const tp *t, size_t k)
{
    return t->p + k < t->n ? (unsigned char)t->s[t->p + k] : -1;
}

static toml_value *new_value(tp *t, toml_kind kind)
{
    toml_value *v = arena_alloc(t->mem, sizeof *v);
    v->kind = kind;
    v->line = t->line;
    v->column = (unsigned)(t->p - t->bol) + 1;
    return v;
}

/* A key as read: its bytes may hold NULs. */
typedef struct tkey {
    const char *s;
    size_t len;
} tkey;

static void push(tp *t, toml_value *into, const tkey *key, toml_value *v)
{
    bool table = into->kind == TOML_TABLE;
    if (into->n == into->alloc) {
        size_t na = into->alloc ? 2 * into->alloc : 8;
        toml_value **items = arena_alloc(t->mem, na * sizeof *items);
        const char **keys = table ? arena_alloc(t->mem, na * sizeof *keys) : NULL;
        size_t *lens = table ? arena_alloc(t->mem, na * sizeof *lens) : NULL;
        if (into->n) {
            memcpy(items, into->items, into->n * sizeof *items);
            if (table) {
                memcpy(keys, into->keys, into->n * sizeof *keys);
                memcpy(lens, into->key_lens, into->n * sizeof *lens);
            }
        }
        into->items = items;
        into->keys = keys;
        into->key_lens = lens;
        into->alloc = na;
    }
    if (table) {
        into->keys[into->n] = key->s;
        into->key_lens[into->n] = key->len;
    }
    into->items[into->n++] = v;
}

static toml_value *find(const toml_value *table, const char *key, size_t len)
{
    if (!table || table->kind != TOML_TABLE)
        return NULL;
    for (size_t i = 0; i < table->n; i++)
        if (table->key_lens[i] == len && memcmp(table->keys[i], key, len) == 0)
            return table->items[i];
    return NULL;
}

const toml_value *toml_get(const toml_value *table, const char *key)
{
    return find(table, key, strlen(key));
}

/* ---- text: whitespace, line ends, comments, UTF-8 ---- */

static bool is_ctrl(int c)
{
    return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

static void skip_ws(tp *t)
{
    while (peek(t, 0) == ' ' || peek(t, 0) == '\t')
        t->p++;
}

/* Consumes a line end (LF or CRLF); false, without consuming, if none. */
static bool newline(tp *t)
{
    size_t k = peek(t, 0) == '\r' && peek(t, 1) == '\n' ? 2 : peek(t, 0) == '\n' ? 1 : 0;
    if (!k)
        return false;
    t->p += k;
    t->line++;
    t->bol = t->p;
    return true;
}

static bool comment(tp *t)
{
    if (peek(t, 0) != '#')
        return true;
    while (t->p < t->n && peek(t, 0) != '\n') {
        if (peek(t, 0) == '\r' && peek(t, 1) == '\n')
            break;
        if (is_ctrl(peek(t, 0)))
            return fail(t, "a comment holds a control character");
        t->p++;
    }
    return true;
}

/* The rest of a line after a key/value pair or a header: blanks, a
 * comment, then a line end or the end of the text. */
static bool line_end(tp *t)
{
    skip_ws(t);
    if (!comment(t))
        return false;
    if (t->p < t->n && !newline(t))
        return fail(t, "expected the end of the line");
    return true;
}

/* Blanks, comments and line ends, as arrays allow between values. */
static bool skip_ws_nl(tp *t)
{
    for (;;) {
        skip_ws(t);
        if (!comment(t))
            return false;
        if (!newline(t))
            return true;
    }
}

static bool utf8_ok(const char *s, size_t n, size_t *bad)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        size_t k = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
        if (k == 9 || i + k >= n + (k ? 0 : 1)) {
            *bad = i;
            return false;
        }
        unsigned cp = k == 0 ? c : c & (0x3f >> k);
        for (size_t j = 1; j <= k; j++) {
            if ((u[i + j] & 0xc0) != 0x80) {
                *bad = i;
                return false;
            }
            cp = (cp << 6) | (u[i + j] & 0x3f);
        }
        static const unsigned min[] = { 0, 0x80, 0x800, 0x10000 };
        if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            *bad = i;
            return false;
        }
        i += k + 1;
    }
    return true;
}

static void put_utf8(strbuf *b, unsigned cp)
{
    if (cp < 0x80) {
        sb_addc(b, (char)cp);
    } else if (cp < 0x800) {
        sb_addc(b, (char)(0xc0 | (cp >> 6)));
        sb_addc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        sb_addc(b, (char)(0xe0 | (cp >> 12)));
        sb_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_addc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        sb_addc(b, (char)(0xf0 | (cp >> 18)));
        sb_addc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        sb_addc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_addc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* ---- strings ---- */

static bool escape(tp *t, strbuf *b)
{
    int c = peek(t, 1);
    const char *map = "b\bt\tn\nf\fr\r\"\"\\\\";
    for (const char *m = map; *m; m += 2)
        if (c == m[0]) {
            sb_addc(b, m[1]);
            t->p += 2;
            return true;
        }
    if (c != 'u' && c != 'U')
        return fail(t, "`\\%c` is not an escape of TOML 1.0", c > 0x20 && c < 0x7f ? c : '?');
    size_t digits = c == 'u' ? 4 : 8;
    unsigned cp = 0;
    for (size_t k = 0; k < digits; k++) {
        int h = peek(t, 2 + k);
        int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (v < 0)
            return fail(t, "`\\%c` needs %zu hexadecimal digits", c, digits);
        cp = cp * 16 + (unsigned)v;
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return fail(t, "`\\%c` names no Unicode scalar value", c);
    put_utf8(b, cp);
    t->p += 2 + digits;
    return true;
}

/* A run of quotes in a multi-line string: fewer than 3 are content; 3 to
 * 5 close it, the extra ones content. *closed says which. */
static bool quote_run(tp *t, char q, strbuf *b, bool *closed)
{
    size_t r = 0;
    while (peek(t, r) == q)
        r++;
    if (r > 5)
        return fail(t, "too many quotes close this string");
    *closed = r >= 3;
    for (size_t k = 0; k < (r >= 3 ? r - 3 : r); k++)
        sb_addc(b, q);
    t->p += r;
    return true;
}

static bool ml_string(tp *t, char q, strbuf *b)
{
    t->p += 3;
    newline(t); /* a line end right after the opening quotes is trimmed */
    for (;;) {
        int c = peek(t, 0);
        if (c < 0)
            return fail(t, "the multi-line string is not closed");
        if (c == q) {
            bool closed = false;
            if (!quote_run(t, q, b, &closed))
                return false;
            if (closed)
                return true;
        } else if (c == '\n' || c == '\r') {
            size_t at = t->p;
            if (!newline(t))
                return fail(t, "a carriage return without a line feed");
            sb_add(b, t->s + at, t->p - at);
        } else if (q == '"' && c == '\\') {
            size_t k = 1;
            while (peek(t, k) == ' ' || peek(t, k) == '\t')
                k++;
            if (peek(t, k) == '\n' || (peek(t, k) == '\r' && peek(t, k + 1) == '\n')) {
                t->p += k; /* a line-ending backslash trims up to the next text */
                while (newline(t) || peek(t, 0) == ' ' || peek(t, 0) == '\t')
                    if (peek(t, 0) == ' ' || peek(t, 0) == '\t')
                        t->p++;
            } else if (!escape(t, b)) {
                return false;
            }
        } else if (is_ctrl(c)) {
            return fail(t, "a string holds a control character");
        } else {
            sb_addc(b, (char)c);
            t->p++;
        }
    }
}

/* A string at t->p (basic, literal, either multi-line unless `key`) into
 * *out, *len. */
static bool string(tp *t, bool key, const char **out, size_t *len)
{
    char q = (char)peek(t, 0);
    strbuf b;
    sb_init(&b);
    bool ok = true;
    if (!key && peek(t, 1) == q && peek(t, 2) == q) {
        ok = ml_string(t, q, &b);
    } else {
        t->p++;
        for (;;) {
            int c = peek(t, 0);
            if (c == q) {
                t->p++;
                break;
            }
            if (c < 0 || c == '\n' || c == '\r') {
                ok = fail(t, "the string is not closed on its line");
                break;
            }
            if (q == '"' && c == '\\') {
                if (!(ok = escape(t, &b)))
                    break;
                continue;
            }
            if (is_ctrl(c)) {
                ok = fail(t, "a string holds a control character");
                break;
            }
            sb_addc(&b, (char)c);
            t->p++;
        }
    }
    *len = b.len;
    char *copy = NULL;
    if (ok) {
        copy = arena_alloc(t->mem, b.len + 1);
        memcpy(copy, b.buf, b.len); /* escapes may have written NULs */
    }
    *out = copy;
    sb_release(&b);
    return ok;
}

/* ---- keys ---- */

static bool bare_char(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* A dotted key into `parts` (tkey in the arena). */
static bool key(tp *t, ptrvec *parts)
{
    for (;;) {
        skip_ws(t);
        int c = peek(t, 0);
        const char *k = NULL;
        size_t len = 0;
        if (c == '"' || c == '\'') {
            if (!string(t, true, &k, &len))
                return false;
        } else {
            size_t start = t->p;
            while (bare_char(peek(t, 0)))
                t->p++;
            if (t->p == start)
                return fail(t, "expected a key");
            len = t->p - start;
            k = arena_strndup(t->mem, t->s + start, len);
        }
        tkey *tk = arena_alloc(t->mem, sizeof *tk);
        tk->s = k;
        tk->len = len;
        ptrvec_push(parts, tk);
        skip_ws(t);
        if (peek(t, 0) != '.')
            return true;
        t->p++;
    }
}

/* ---- numbers, booleans, date-times ---- */

static bool digits_us(const char *s, size_t n, int base)
{
    if (n == 0 || s[0] == '_' || s[n - 1] == '_')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '_') {
            if (s[i + 1] == '_')
                return false;
            continue;
        }
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        if (v >= base)
            return false;
    }
    return true;
}

static char *no_us(tp *t, const char *s, size_t n)
{
    char *o = arena_alloc(t->mem, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            o[k++] = s[i];
    o[k] = '\0';
    return o;
}

/* A decimal integer part: 0, or no leading zero. */
static bool dec_int(const char *s, size_t n)
{
    return digits_us(s, n, 10) && (n == 1 || s[0] != '0');
}

static bool number(tp *t, toml_value *v, const char *text, size_t n)
{
    /* a NUL-terminated copy: the document text is not */
    const char *s = v->s = arena_strndup(t->mem, text, n);
    v->len = n;
    size_t sign = (s[0] == '+' || s[0] == '-') ? 1 : 0;
    const char *b = s + sign;
    size_t bn = n - sign;
    if (bn == 3 && (!strncmp(b, "inf", 3) || !strncmp(b, "nan", 3))) {
        v->kind = TOML_FLOAT;
        v->f = b[0] == 'i' ? (s[0] == '-' ? -INFINITY : INFINITY)
                           : (s[0] == '-' ? -NAN : NAN);
        return true;
    }
    if (bn > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'o' || b[1] == 'b')) {
        int base = b[1] == 'x' ? 16 : b[1] == 'o' ? 8 : 2;
        if (sign || !digits_us(b + 2, bn - 2, base))
            return fail(t, "`%.*s` is not a TOML integer", (int)n, s);
        errno = 0;
        unsigned long long u = strtoull(no_us(t, b + 2, bn - 2), NULL, base);
        if (errno || u > INT64_MAX)
            return fail(t, "`%.*s` does not fit in 64 bits", (int)n, s);
        v->kind = TOML_INTEGER;
        v->i = (int64_t)u;
        return true;
    }
    size_t ip = strcspn(b, ".eE");
    if (ip > bn)
        ip = bn;
    if (!dec_int(b, ip))
        return fail(t, "`%.*s` is not a TOML number", (int)n, s);
    if (ip == bn) {
        errno = 0;
        long long x = strtoll(no_us(t, s, n), NULL, 10);
        if (errno)
            return fail(t, "`%.*s` does not fit in 64 bits", (int)n, s);
        v->kind = TOML_INTEGER;
        v->i = x;
        return true;
    }
    size_t q = ip;
    if (b[q] == '.') {
        size_t f = q + 1 + strcspn(b + q + 1, "eE");
        if (f > bn)
            f = bn;
        if (!digits_us(b + q + 1, f - q - 1, 10))
            return fail(t, "`%.*s` is not a TOML float", (int)n, s);
        q = f;
    }
    if (q < bn) { /* the exponent */
        size_t e = q + 1 + (b[q + 1] == '+' || b[q + 1] == '-');
        if (!digits_us(b + e, bn - e, 10))
            return fail(t, "`%.*s` is not a TOML float", (int)n, s);
    }
    v->kind = TOML_FLOAT;
    v->f = strtod(no_us(t, s, n), NULL);
    return true;
}

static int num2(const char *s)
{
    return (s[0] - '0') * 10 + (s[1] - '0');
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* HH:MM:SS(.fraction)? at s; its length, or 0. */
static size_t time_part(const char *s, size_t n)
{
    if (n < 8 || !all_digits(s, 2) || s[2] != ':' || !all_digits(s + 3, 2) || s[5] != ':' ||
        !all_digits(s + 6, 2))
        return 0;
    if (num2(s) > 23 || num2(s + 3) > 59 || num2(s + 6) > 59)
        return 0;
    size_t k = 8;
    if (k < n && s[k] == '.') {
        size_t f = k + 1;
        while (f < n && s[f] >= '0' && s[f] <= '9')
            f++;
        if (f == k + 1)
            return 0;
        k = f;
    }
    return k;
}

static bool date_ok(const char *s)
{
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + num2(s + 2);
    int m = num2(s + 5), d = num2(s + 8);
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (m < 1 || m > 12 || d < 1)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= days[m - 1] + (m == 2 && leap);
}

/* A date-time, date or time at t->p; false (without a problem) if the
 * text there is none, so the caller reads a number. */
static bool datetime(tp *t, toml_value *v, bool *is)
{
    const char *s = t->s + t->p;
    size_t n = t->n - t->p, k = 0;
    *is = false;
    if (n >= 10 && all_digits(s, 4) && s[4] == '-' && all_digits(s + 5, 2) && s[7] == '-' &&
        all_digits(s + 8, 2)) {
        *is = true;
        if (!date_ok(s))
            return fail(t, "`%.10s` is not a date", s);
        k = 10;
        v->kind = TOML_DATE_LOCAL;
        bool sep = k < n && (s[k] == 'T' || s[k] == 't' ||
                             (s[k] == ' ' && k + 1 < n && s[k + 1] >= '0' && s[k + 1] <= '9'));
        if (sep) {
            size_t tl = time_part(s + k + 1, n - k - 1);
            if (!tl)
                return fail(t, "the time of this date-time is not HH:MM:SS");
            k += 1 + tl;
            v->kind = TOML_DATETIME_LOCAL;
            if (k < n && (s[k] == 'Z' || s[k] == 'z')) {
                k++;
                v->kind = TOML_DATETIME;
            } else if (k < n && (s[k] == '+' || s[k] == '-')) {
                if (n - k < 6 || !all_digits(s + k + 1, 2) || s[k + 3] != ':' ||
                    !all_digits(s + k + 4, 2) || num2(s + k + 1) > 23 || num2(s + k + 4) > 59)
                    return fail(t, "the offset of this date-time is not +HH:MM");
                k += 6;
                v->kind = TOML_DATETIME;
            }
        }
    } else if (n >= 3 && all_digits(s, 2) && s[2] == ':') {
        *is = true;
        if (!(k = time_part(s, n)))
            return fail(t, "this time is not HH:MM:SS");
        v->kind = TOML_TIME_LOCAL;
    } else {
        return false;
    }
    v->s = arena_strndup(t->mem, s, k);
    v->len = k;
    t->p += k;
    return true;
}

/* ---- values ---- */

static toml_value *value(tp *t, unsigned depth);

static bool set_kv(tp *t, toml_value *base, ptrvec *parts, toml_value *v, bool section);

static toml_value *array(tp *t, unsigned depth)
{
    toml_value *a = new_value(t, TOML_ARRAY);
    a->flags = F_FROZEN;
    t->p++;
    for (;;) {
        if (!skip_ws_nl(t))
            return NULL;
        if (peek(t, 0) == ']') {
            t->p++;
            return a;
        }
        toml_value *v = value(t, depth + 1);
        if (!v)
            return NULL;
        push(t, a, NULL, v);
        if (!skip_ws_nl(t))
            return NULL;
        if (peek(t, 0) == ',') {
            t->p++;
        } else if (peek(t, 0) != ']') {
            fail(t, "expected `,` or `]` in the array");
            return NULL;
        }
    }
}

static toml_value *inline_table(tp *t, unsigned depth)
{
    toml_value *tb = new_value(t, TOML_TABLE);
    t->p++;
    skip_ws(t);
    if (peek(t, 0) == '}') {
        t->p++;
        tb->flags = F_FROZEN;
        return tb;
    }
    for (;;) {
        ptrvec parts = PTRVEC_INIT;
        skip_ws(t);
        t->key_line = t->line;
        t->key_col = (unsigned)(t->p - t->bol) + 1;
        bool ok = key(t, &parts);
        if (ok && peek(t, 0) != '=')
            ok = fail(t, "expected `=` after the key");
        toml_value *v = NULL;
        if (ok) {
            t->p++;
            skip_ws(t);
            ok = (v = value(t, depth + 1)) && set_kv(t, tb, &parts, v, false);
        }
        ptrvec_release(&parts);
        if (!ok)
            return NULL;
        skip_ws(t);
        if (peek(t, 0) == '}') {
            t->p++;
            tb->flags = F_FROZEN;
            return tb;
        }
        if (peek(t, 0) != ',') {
            fail(t, "expected `,` or `}` in the inline table (on one line)");
            return NULL;
        }
        t->p++;
    }
}

static toml_value *value(tp *t, unsigned depth)
{
    if (depth > 64) { /* as the spec's YAML: nesting past this is refused */
        fail(t, "values nest deeper than 64 levels");
        return NULL;
    }
    int c = peek(t, 0);
    toml_value *v = new_value(t, TOML_STRING);
    if (c == '"' || c == '\'')
        return string(t, false, &v->s, &v->len) ? v : NULL;
    if (c == '[')
        return array(t, depth);
    if (c == '{')
        return inline_table(t, depth);
    static const char *const words[] = { "true", "false" };
    for (int w = 0; w < 2; w++) {
        size_t wl = strlen(words[w]);
        if (t->n - t->p >= wl && !strncmp(t->s + t->p, words[w], wl) &&
            !bare_char(peek(t, wl))) {
            v->kind = TOML_BOOL;
            v->b = w == 0;
            t->p += wl;
            return v;
        }
    }
    bool is_dt = false;
    if (datetime(t, v, &is_dt))
        return v;
    if (is_dt || t->err)
        return NULL;
    size_t start = t->p;
    while (t->p < t->n && (bare_char(peek(t, 0)) || peek(t, 0) == '.' || peek(t, 0) == '+'))
        t->p++;
    if (t->p == start) {
        fail(t, "expected a value");
        return NULL;
    }
    return number(t, v, t->s + start, t->p - start) ? v : NULL;
}

/* ---- tables ---- */

static toml_value *get_mut(toml_value *table, const tkey *key)
{
    return find(table, key->s, key->len);
}

static toml_value *new_table(tp *t, toml_value *into, const tkey *key, unsigned flags)
{
    toml_value *tb = new_value(t, TOML_TABLE);
    tb->flags = flags;
    push(t, into, key, tb);
    return tb;
}

/* `parts` = value under `base`: the tables the dotted prefix names are made
 * or reused (never an inline table, never one a header or an earlier
 * section defined); the last key must be new. */
static bool set_kv(tp *t, toml_value *base, ptrvec *parts, toml_value *v, bool section)
{
    toml_value *tb = base;
    for (size_t i = 0; i + 1 < parts->len; i++) {
        const tkey *k = parts->items[i];
        toml_value *x = get_mut(tb, k);
        if (!x) {
            x = new_table(t, tb, k, 0);
            if (section)
                ptrvec_push(&t->pending, x);
        } else if (x->kind != TOML_TABLE || (x->flags & F_FROZEN)) {
            return fail(t, "`%s` is %s: a dotted key cannot add to it", k->s,
                        x->kind == TOML_TABLE ? "an inline table" : "not a table");
        } else if (section && (x->flags & F_EXPLICIT)) {
            return fail(t, "`%s` is a table defined elsewhere: a dotted key cannot add to it",
                        k->s);
        }
        tb = x;
    }
    const tkey *last = parts->items[parts->len - 1];
    if (get_mut(tb, last)) {
        fail(t, "`%s` is defined twice", last->s);
        t->err_line = t->key_line; /* the finding names the key, not what follows */
        t->err_col = t->key_col;
        return false;
    }
    push(t, tb, last, v);
    return true;
}

/* A [header] or [[header]]: the section's table. */
static toml_value *header(tp *t, toml_value *root)
{
    for (size_t i = 0; i < t->pending.len; i++) /* dotted keys' tables are now defined */
        ((toml_value *)t->pending.items[i])->flags |= F_EXPLICIT;
    t->pending.len = 0;
    unsigned line = t->line, col = (unsigned)(t->p - t->bol) + 1;
    bool aot = peek(t, 1) == '[';
    t->p += aot ? 2 : 1;
    ptrvec parts = PTRVEC_INIT;
    toml_value *tb = root, *out = NULL;
    if (!key(t, &parts))
        goto done;
    if (peek(t, 0) != ']' || (aot && peek(t, 1) != ']')) {
        fail(t, aot ? "expected `]]` to close the header" : "expected `]` to close the header");
        goto done;
    }
    t->p += aot ? 2 : 1;
    for (size_t i = 0; i + 1 < parts.len; i++) {
        const tkey *k = parts.items[i];
        toml_value *x = get_mut(tb, k);
        if (!x)
            x = new_table(t, tb, k, 0);
        else if (x->kind == TOML_ARRAY && (x->flags & F_AOT))
            x = x->items[x->n - 1];
        else if (x->kind != TOML_TABLE || (x->flags & F_FROZEN)) {
            fail(t, "`%s` is not a table a header can extend", k->s);
            goto done;
        }
        tb = x;
    }
    const tkey *last = parts.items[parts.len - 1];
    toml_value *x = get_mut(tb, last);
    if (aot) {
        if (!x) {
            x = new_value(t, TOML_ARRAY);
            x->flags = F_AOT;
            push(t, tb, last, x);
        } else if (x->kind != TOML_ARRAY || !(x->flags & F_AOT)) {
            fail(t, "`%s` is not an array of tables", last->s);
            goto done;
        }
        out = new_value(t, TOML_TABLE);
        out->flags = F_EXPLICIT;
        push(t, x, NULL, out);
    } else if (!x) {
        out = new_table(t, tb, last, F_EXPLICIT);
    } else if (x->kind == TOML_TABLE && !(x->flags & (F_EXPLICIT | F_FROZEN))) {
        x->flags |= F_EXPLICIT;
        out = x;
    } else {
        fail(t, "`%s` is defined twice", last->s);
        goto done;
    }
    out->line = line;
    out->column = col;
done:
    ptrvec_release(&parts);
    return out;
}

toml_value *toml_parse(arena *mem, const char *text, size_t len, char **err, unsigned *line,
                       unsigned *column)
{
    tp t = { .mem = mem, .s = text, .n = len, .line = 1 };
    *err = NULL;
    *line = *column = 0;
    toml_value *root = new_value(&t, TOML_TABLE), *cur = root;
    size_t bad = 0;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        t.p = t.bol = 3; /* a byte order mark is no content */
    if (!utf8_ok(text, len, &bad)) {
        for (size_t i = 0; i < bad; i++)
            if (text[i] == '\n') {
                t.line++;
                t.bol = i + 1;
            }
        t.p = bad;
        fail(&t, "the text is not UTF-8");
    }
    while (!t.err && t.p < t.n) {
        skip_ws(&t);
        if (newline(&t))
            continue;
        if (peek(&t, 0) == '#' || t.p == t.n) {
            line_end(&t);
            continue;
        }
        if (peek(&t, 0) == '[') {
            if ((cur = header(&t, root)))
                line_end(&t);
            continue;
        }
        ptrvec parts = PTRVEC_INIT;
        t.key_line = t.line;
        t.key_col = (unsigned)(t.p - t.bol) + 1;
        if (key(&t, &parts)) {
            if (peek(&t, 0) != '=') {
                fail(&t, "expected `=` after the key");
            } else {
                t.p++;
                skip_ws(&t);
                toml_value *v = value(&t, 0);
                if (v && set_kv(&t, cur, &parts, v, true))
                    line_end(&t);
            }
        }
        ptrvec_release(&parts);
    }
    ptrvec_release(&t.pending);
    if (t.err) {
        *err = t.err;
        *line = t.err_line;
        *column = t.err_col;
        return NULL;
    }
    return root;
}

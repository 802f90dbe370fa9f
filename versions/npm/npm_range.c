/* npm_range.c — npm ranges: desugaring a range string into sets of primitive
 * comparators the way node-semver's Range class does, and testing versions
 * against them (satisfies, maxSatisfying, minSatisfying, validRange, and
 * the npm_filter entry point).
 *
 * node-semver desugars by rewriting the string in stages (strip build
 * metadata, hyphen ranges, glue operators to their versions, carets,
 * tildes, x-ranges, stars, `>=0.0.0`) and only then parses comparators.
 * Its answers for odd input (`= 1.2.3 - 2`, loose mode silently dropping
 * unreadable comparators, `>99999999999999999999999.x`) fall out of those
 * stages, so this file keeps the same stages over strings rather than
 * parsing into a tree first. Version matching itself is in npm_lex.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "semver.h"
#include "semver_internal.h"

typedef struct rcomp {
    npm_op op;
    npm_semver sv; /* unused (zeroed) for NPM_OP_ANY */
    char *value;
} rcomp;

typedef struct rset {
    size_t n;
    rcomp **c;
} rset;

struct npm_range {
    unsigned opts;
    size_t nsets;
    rset *sets;
    char *formatted;
};

/* ---- small string helpers ---- */

typedef struct piece {
    const char *s;
    size_t n;
} piece;

static piece pc(const char *s, size_t n)
{
    piece p = { s, n };
    return p;
}

static piece cap_piece(const char *s, npm_cap c)
{
    return pc(s + c.off, c.len);
}

static void sb_addp(strbuf *sb, piece p)
{
    sb_add(sb, p.s, p.n);
}

static bool piece_eq(piece p, const char *lit)
{
    size_t l = strlen(lit);
    return p.n == l && memcmp(p.s, lit, l) == 0;
}

/* isX: absent, empty, `x`, `X` or `*`. */
static bool is_x(const char *s, npm_cap c)
{
    if (!c.set || c.len == 0)
        return true;
    return c.len == 1 && (s[c.off] == 'x' || s[c.off] == 'X' || s[c.off] == '*');
}

/* Append JavaScript's String(+digits + 1). Values past the safe-integer
 * range only ever land in a main version component, which node-semver then
 * rejects, so any digit string above the limit answers the same. From 1e21
 * on JavaScript prints the shortest round-tripping digits in exponent form
 * ("1.2345678901234569e+23"), and that text does get re-read as a version,
 * so it is reproduced exactly. */
static void sb_add_inc(strbuf *sb, piece d)
{
    size_t i = 0;
    while (i + 1 < d.n && d.s[i] == '0')
        i++;
    char *t = xstrndup(d.s + i, d.n - i);
    double v = strtod(t, NULL);
    if (v >= 1e21) {
        char buf[64];
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
            if (strtod(buf, NULL) == v)
                break;
        }
        /* buf is "D[.DDD]e+XX": JavaScript writes the same without
         * exponent zero padding */
        char *e = strchr(buf, 'e');
        *e = '\0';
        sb_adds(sb, buf);
        sb_addf(sb, "e+%d", atoi(e + 2));
        free(t);
        return;
    }
    size_t len = strlen(t);
    size_t k = len;
    while (k > 0 && t[k - 1] == '9') {
        t[k - 1] = '0';
        k--;
    }
    if (k == 0) {
        sb_addc(sb, '1');
    } else {
        t[k - 1]++;
    }
    sb_adds(sb, t);
    free(t);
}

/* The bounds the hyphen, caret, tilde and x-range rewrites share. `z` is "-0" when
 * prereleases are included, "" otherwise. */

/* `M+1.0.0-0`: below the next major. */
static void sb_below_major(strbuf *sb, piece M)
{
    sb_add_inc(sb, M);
    sb_adds(sb, ".0.0-0");
}

/* `M.m+1.0-0`: below the next minor. */
static void sb_below_minor(strbuf *sb, piece M, piece m)
{
    sb_addp(sb, M);
    sb_addc(sb, '.');
    sb_add_inc(sb, m);
    sb_adds(sb, ".0-0");
}

/* `>=M.m.0z <`: from a minor, the upper bound to follow. */
static void sb_from_minor(strbuf *sb, piece M, piece m, const char *z)
{
    sb_adds(sb, ">=");
    sb_addp(sb, M);
    sb_addc(sb, '.');
    sb_addp(sb, m);
    sb_addf(sb, ".0%s <", z);
}

/* `>=M.m.p[-pre] <`: from the full version written, the upper bound to follow. */
static void sb_from_full(strbuf *sb, const char *s, const npm_xr_caps *c)
{
    sb_adds(sb, ">=");
    sb_addp(sb, cap_piece(s, c->major));
    sb_addc(sb, '.');
    sb_addp(sb, cap_piece(s, c->minor));
    sb_addc(sb, '.');
    sb_addp(sb, cap_piece(s, c->patch));
    if (c->pre.set) {
        sb_addc(sb, '-');
        sb_addp(sb, cap_piece(s, c->pre));
    }
    sb_adds(sb, " <");
}

/* `>=M.0.0z <M+1.0.0-0`: the whole major. */
static void sb_major_range(strbuf *sb, piece M, const char *z)
{
    sb_adds(sb, ">=");
    sb_addp(sb, M);
    sb_addf(sb, ".0.0%s <", z);
    sb_below_major(sb, M);
}

/* `>=M.m.0z <M.m+1.0-0`: the whole minor. */
static void sb_minor_range(strbuf *sb, piece M, piece m, const char *z)
{
    sb_from_minor(sb, M, m, z);
    sb_below_minor(sb, M, m);
}

/* ---- stage 1: build metadata ---- */

/* Remove every `+ident(.ident)*` (no length limits). */
static char *strip_builds(const char *s, size_t n)
{
    strbuf sb = STRBUF_INIT;
    size_t i = 0;
    while (i < n) {
        if (s[i] == '+' && npm_is_identc(npm_at(s, n, i + 1))) {
            size_t e = i + 1;
            for (;;) {
                while (e < n && npm_is_identc(s[e]))
                    e++;
                if (npm_at(s, n, e) == '.' && npm_is_identc(npm_at(s, n, e + 1)))
                    e++;
                else
                    break;
            }
            i = e;
            continue;
        }
        sb_addc(&sb, s[i++]);
    }
    return sb_detach(&sb, NULL);
}

/* ---- stage 2: hyphen ranges ---- */

typedef struct hy_ctx {
    bool loose;
    npm_xr_caps to;
} hy_ctx;

/* `\s?$` */
static bool cont_ws_end(const char *s, size_t n, size_t pos, void *ctx)
{
    (void)ctx;
    return pos == n || (pos + 1 == n && npm_is_aws(s[pos]));
}

/* `\s-\s` then the second version, then `\s?$`. */
static bool cont_hyphen(const char *s, size_t n, size_t pos, void *vctx)
{
    hy_ctx *h = vctx;
    if (!(npm_is_aws(npm_at(s, n, pos)) && npm_at(s, n, pos + 1) == '-' &&
          npm_is_aws(npm_at(s, n, pos + 2))))
        return false;
    return npm_match_xr(s, n, pos + 3, h->loose, cont_ws_end, NULL, &h->to);
}

/* `1.2 - 2.3.4` => `>=1.2.0 <=2.3.4`, or NULL if `s` is no hyphen range. */
static char *hyphen_replace(const char *s, size_t n, bool loose, bool incpre)
{
    hy_ctx h;
    npm_xr_caps f;
    memset(&h, 0, sizeof h);
    h.loose = loose;
    size_t start = npm_is_aws(npm_at(s, n, 0)) ? 1 : 0;
    if (!npm_match_xr(s, n, start, loose, cont_hyphen, &h, &f))
        return NULL;
    const char *z = incpre ? "-0" : "";
    strbuf sb = STRBUF_INIT;
    if (is_x(s, f.major)) {
        /* from = '' */
    } else if (is_x(s, f.minor)) {
        sb_adds(&sb, ">=");
        sb_addp(&sb, cap_piece(s, f.major));
        sb_addf(&sb, ".0.0%s", z);
    } else if (is_x(s, f.patch)) {
        sb_adds(&sb, ">=");
        sb_addp(&sb, cap_piece(s, f.major));
        sb_addc(&sb, '.');
        sb_addp(&sb, cap_piece(s, f.minor));
        sb_addf(&sb, ".0%s", z);
    } else if (f.pre.set) {
        sb_adds(&sb, ">=");
        sb_addp(&sb, cap_piece(s, f.whole));
    } else {
        sb_adds(&sb, ">=");
        sb_addp(&sb, cap_piece(s, f.whole));
        sb_adds(&sb, z);
    }
    sb_addc(&sb, ' ');
    npm_xr_caps *t = &h.to;
    if (is_x(s, t->major)) {
        /* to = '' */
    } else if (is_x(s, t->minor)) {
        sb_addc(&sb, '<');
        sb_below_major(&sb, cap_piece(s, t->major));
    } else if (is_x(s, t->patch)) {
        sb_addc(&sb, '<');
        sb_below_minor(&sb, cap_piece(s, t->major), cap_piece(s, t->minor));
    } else if (t->pre.set) {
        sb_adds(&sb, "<=");
        sb_addp(&sb, cap_piece(s, t->major));
        sb_addc(&sb, '.');
        sb_addp(&sb, cap_piece(s, t->minor));
        sb_addc(&sb, '.');
        sb_addp(&sb, cap_piece(s, t->patch));
        sb_addc(&sb, '-');
        sb_addp(&sb, cap_piece(s, t->pre));
    } else if (incpre) {
        sb_addc(&sb, '<');
        sb_addp(&sb, cap_piece(s, t->major));
        sb_addc(&sb, '.');
        sb_addp(&sb, cap_piece(s, t->minor));
        sb_addc(&sb, '.');
        sb_add_inc(&sb, cap_piece(s, t->patch));
        sb_adds(&sb, "-0");
    } else {
        sb_adds(&sb, "<=");
        sb_addp(&sb, cap_piece(s, t->whole));
    }
    /* .trim(): only the spaces around an empty side can be there */
    size_t b, e;
    npm_trim(sb.buf, sb.len, &b, &e);
    char *r = xstrndup(sb.buf + b, e - b);
    sb_release(&sb);
    return r;
}

/* ---- stage 3: glue comparison operators to their versions ----
 *
 * node-semver removes the one whitespace character between an operator (or
 * the start of a candidate) and a version-looking token, scanning left to
 * right and skipping over each version it finds so that nothing inside a
 * version is looked at twice. A version token here is either a loose full
 * version or a partial/x-range one; their extents use the same caps as the
 * patterns (256 digits, 257 for a strict number, 250-char tails). */

static bool g_prefix(const char *s, size_t n, size_t i)
{
    char c = npm_at(s, n, i);
    return c == 'v' || c == '=' || npm_is_aws(c);
}

static bool g_vstart(char c)
{
    return npm_is_digit(c) || c == 'x' || c == 'X' || c == '*';
}

static size_t g_digits(const char *s, size_t n, size_t i, size_t limit)
{
    size_t j = i;
    while (j < n && j - i < limit && npm_is_digit(s[j]))
        j++;
    return j;
}

static size_t g_number(const char *s, size_t n, size_t i, bool loose)
{
    if (!loose && npm_at(s, n, i) == '0')
        return i + 1;
    return g_digits(s, n, i, loose ? NPM_DIGITS_MAX : NPM_DIGITS_MAX + 1);
}

static size_t g_pre_ident(const char *s, size_t n, size_t i, bool loose)
{
    size_t d = g_digits(s, n, i, NPM_DIGITS_MAX);
    char c = npm_at(s, n, d);
    if (npm_is_letter(c) || c == '-') {
        size_t e = d + 1, lim = e + NPM_IDENT_TAIL_MAX;
        while (e < lim && npm_is_identc(npm_at(s, n, e)))
            e++;
        return e;
    }
    return g_number(s, n, i, loose);
}

static size_t g_pre(const char *s, size_t n, size_t i, bool loose)
{
    bool hy = npm_at(s, n, i) == '-';
    if (!loose && !hy)
        return i;
    size_t is = i + (hy ? 1 : 0);
    size_t e = g_pre_ident(s, n, is, loose);
    if (e == is) {
        if (!loose || !hy)
            return i;
        e = g_pre_ident(s, n, i, loose); /* a lone hyphen is an identifier */
    }
    while (npm_at(s, n, e) == '.') {
        size_t nx = g_pre_ident(s, n, e + 1, loose);
        if (nx == e + 1)
            break;
        e = nx;
    }
    return e;
}

static size_t g_build_ident(const char *s, size_t n, size_t i)
{
    size_t e = i;
    while (e - i < NPM_IDENT_TAIL_MAX && npm_is_identc(npm_at(s, n, e)))
        e++;
    return e;
}

static size_t g_build(const char *s, size_t n, size_t i)
{
    if (npm_at(s, n, i) != '+')
        return i;
    size_t e = g_build_ident(s, n, i + 1);
    if (e == i + 1)
        return i;
    while (npm_at(s, n, e) == '.') {
        size_t nx = g_build_ident(s, n, e + 1);
        if (nx == e + 1)
            break;
        e = nx;
    }
    return e;
}

static size_t g_full(const char *s, size_t n, size_t i)
{
    size_t e = i;
    for (int k = 0; k < 3; k++) {
        size_t nx = g_number(s, n, e, true);
        if (nx == e)
            return i;
        e = nx;
        if (k < 2) {
            if (npm_at(s, n, e) != '.')
                return i;
            e++;
        }
    }
    return g_build(s, n, g_pre(s, n, e, true));
}

static size_t g_part(const char *s, size_t n, size_t i)
{
    char c = npm_at(s, n, i);
    if (npm_is_digit(c))
        return g_number(s, n, i, false);
    return g_vstart(c) ? i + 1 : i;
}

static size_t g_partial(const char *s, size_t n, size_t i)
{
    size_t e = g_part(s, n, i);
    for (int k = 0; k < 2; k++) {
        if (npm_at(s, n, e) != '.')
            return e;
        size_t nx = g_part(s, n, e + 1);
        if (nx == e + 1)
            return e;
        e = nx;
    }
    return g_build(s, n, g_pre(s, n, e, false));
}

static char *glue_operators(const char *s, size_t n)
{
    strbuf sb = STRBUF_INIT;
    size_t copy = 0, cur = 0;
    while (cur < n) {
        size_t ms = cur;
        char c = s[cur];
        if (c == '<' || c == '>') {
            cur++;
        } else if (!g_prefix(s, n, cur) && !g_vstart(c)) {
            cur++;
            continue;
        }
        while (cur < n && g_prefix(s, n, cur))
            cur++;
        if (!g_vstart(npm_at(s, n, cur)))
            continue;
        size_t p = ms;
        if (npm_is_aws(npm_at(s, n, p)))
            p++;
        if (npm_at(s, n, p) == '<' || npm_at(s, n, p) == '>')
            p++;
        if (npm_at(s, n, p) == '=')
            p++;
        if (npm_is_aws(npm_at(s, n, p))) {
            sb_add(&sb, s + copy, p - copy);
            copy = p + 1;
        }
        size_t full = g_full(s, n, cur);
        cur = full != cur ? full : g_partial(s, n, cur);
    }
    sb_add(&sb, s + copy, n - copy);
    return sb_detach(&sb, NULL);
}

/* ---- stage 4: `~ 1.2` => `~1.2`, `^ 1.2` => `^1.2` ---- */

static char *glue_lone(const char *s, size_t n, char op)
{
    strbuf sb = STRBUF_INIT;
    size_t i = 0;
    while (i < n) {
        /* `(\s?)OP\s` (`OP>?` for the tilde), keeping the leading space */
        size_t j = i;
        bool lead = npm_is_aws(s[j]) && npm_at(s, n, j + 1) == op;
        if (lead)
            j++;
        if (npm_at(s, n, j) == op) {
            size_t k = j + 1;
            if (op == '~' && npm_at(s, n, k) == '>' && npm_is_aws(npm_at(s, n, k + 1)))
                k++;
            if (npm_is_aws(npm_at(s, n, k))) {
                if (lead)
                    sb_addc(&sb, s[i]);
                sb_addc(&sb, op);
                i = k + 1;
                continue;
            }
        }
        sb_addc(&sb, s[i++]);
    }
    return sb_detach(&sb, NULL);
}

/* ---- stage 5: one comparator token at a time ---- */

/* `^...`: returns the replacement, or NULL if the token is no caret range. */
static char *caret_replace(piece t, unsigned opts)
{
    npm_xr_caps c;
    const char *s = t.s;
    if (t.n == 0 || s[0] != '^' ||
        !npm_match_xr(s, t.n, 1, (opts & NPM_LOOSE) != 0, npm_cont_end, NULL, &c))
        return NULL;
    const char *z = (opts & NPM_INCLUDE_PRERELEASE) ? "-0" : "";
    piece M = cap_piece(s, c.major), m = cap_piece(s, c.minor), p = cap_piece(s, c.patch);
    strbuf sb = STRBUF_INIT;
    if (is_x(s, c.major)) {
        /* '' */
    } else if (is_x(s, c.minor)) {
        sb_major_range(&sb, M, z);
    } else if (is_x(s, c.patch)) {
        sb_from_minor(&sb, M, m, z);
        if (piece_eq(M, "0"))
            sb_below_minor(&sb, M, m);
        else
            sb_below_major(&sb, M);
    } else {
        sb_from_full(&sb, s, &c);
        if (!piece_eq(M, "0")) {
            sb_below_major(&sb, M);
        } else if (!piece_eq(m, "0")) {
            sb_below_minor(&sb, M, m);
        } else {
            sb_addp(&sb, M);
            sb_addc(&sb, '.');
            sb_addp(&sb, m);
            sb_addc(&sb, '.');
            sb_add_inc(&sb, p);
            sb_adds(&sb, "-0");
        }
    }
    return sb_detach(&sb, NULL);
}

/* `~...` / `~>...`: the replacement, or NULL. */
static char *tilde_replace(piece t, unsigned opts)
{
    npm_xr_caps c;
    const char *s = t.s;
    if (t.n == 0 || s[0] != '~')
        return NULL;
    size_t start = (t.n > 1 && s[1] == '>') ? 2 : 1;
    if (!npm_match_xr(s, t.n, start, (opts & NPM_LOOSE) != 0, npm_cont_end, NULL, &c))
        return NULL;
    const char *z = (opts & NPM_INCLUDE_PRERELEASE) ? "-0" : "";
    piece M = cap_piece(s, c.major), m = cap_piece(s, c.minor);
    strbuf sb = STRBUF_INIT;
    if (is_x(s, c.major)) {
        /* '' */
    } else if (is_x(s, c.minor)) {
        sb_major_range(&sb, M, z);
    } else if (is_x(s, c.patch)) {
        sb_minor_range(&sb, M, m, z);
    } else {
        sb_from_full(&sb, s, &c);
        sb_below_minor(&sb, M, m);
    }
    return sb_detach(&sb, NULL);
}

/* `[<>]?=?` prefix length. */
static size_t gtlt_len(const char *s, size_t n)
{
    size_t g = 0;
    if (g < n && (s[g] == '<' || s[g] == '>'))
        g++;
    if (g < n && s[g] == '=')
        g++;
    return g;
}

/* An x-range token (`1.x`, `>=1.2`, `*`): the replacement, or NULL to keep
 * the token as it is. */
static char *xrange_replace(piece t, unsigned opts)
{
    npm_xr_caps c;
    const char *s = t.s;
    size_t g = gtlt_len(s, t.n);
    if (!npm_match_xr(s, t.n, g, (opts & NPM_LOOSE) != 0, npm_cont_end, NULL, &c))
        return NULL;
    bool invalid_order = (is_x(s, c.major) && !is_x(s, c.minor)) ||
                         (is_x(s, c.minor) && c.patch.set && c.patch.len && !is_x(s, c.patch));
    if (invalid_order)
        return NULL;
    bool xM = is_x(s, c.major);
    bool xm = xM || is_x(s, c.minor);
    bool xp = xm || is_x(s, c.patch);
    char op[3] = { 0 };
    memcpy(op, s, g);
    if (strcmp(op, "=") == 0 && xp)
        op[0] = '\0';
    const char *pr = (opts & NPM_INCLUDE_PRERELEASE) ? "-0" : "";
    piece M = cap_piece(s, c.major), m = cap_piece(s, c.minor);
    strbuf sb = STRBUF_INIT;
    if (xM) {
        sb_adds(&sb, (strcmp(op, ">") == 0 || strcmp(op, "<") == 0) ? "<0.0.0-0" : "*");
    } else if (op[0] && xp) {
        /* M, m as written, or incremented; the patch is always 0 */
        bool incM = false, incm = false;
        if (strcmp(op, ">") == 0) {
            memcpy(op, ">=", 3);
            if (xm)
                incM = true;
            else
                incm = true;
        } else if (strcmp(op, "<=") == 0) {
            memcpy(op, "<", 2);
            if (xm)
                incM = true;
            else
                incm = true;
        }
        if (strcmp(op, "<") == 0)
            pr = "-0";
        sb_adds(&sb, op);
        if (incM)
            sb_add_inc(&sb, M);
        else
            sb_addp(&sb, M);
        sb_addc(&sb, '.');
        if (xm)
            sb_addc(&sb, '0');
        else if (incm)
            sb_add_inc(&sb, m);
        else
            sb_addp(&sb, m);
        sb_addf(&sb, ".0%s", pr);
    } else if (xm) {
        sb_major_range(&sb, M, pr);
    } else if (xp) {
        sb_minor_range(&sb, M, m, pr);
    } else {
        sb_release(&sb);
        return NULL;
    }
    return sb_detach(&sb, NULL);
}

/* Split on runs of whitespace like JavaScript's split(/\s+/): a leading or
 * trailing run yields an empty piece, and "" yields one empty piece. */
static size_t split_ws(const char *s, size_t n, ptrvec *out)
{
    size_t start = 0, i = 0, k = 0;
    while (i <= n) {
        if (i == n || npm_is_aws(s[i])) {
            piece *p = xmalloc(sizeof *p);
            *p = pc(s + start, i - start);
            ptrvec_push(out, p);
            k++;
            if (i == n)
                break;
            while (i < n && npm_is_aws(s[i]))
                i++;
            start = i;
            if (i == n) {
                p = xmalloc(sizeof *p);
                *p = pc(s + n, 0);
                ptrvec_push(out, p);
                k++;
                break;
            }
            continue;
        }
        i++;
    }
    return k;
}

static void free_pieces(ptrvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    ptrvec_release(v);
}

typedef char *(*token_fn)(piece t, unsigned opts);

/* trim (optionally), split(/\s+/), map fn (NULL result keeps the token),
 * join(' '). */
static char *map_tokens(const char *s, bool trim, token_fn fn, unsigned opts)
{
    size_t n = strlen(s), b = 0, e = n;
    if (trim)
        npm_trim(s, n, &b, &e);
    ptrvec toks = PTRVEC_INIT;
    split_ws(s + b, e - b, &toks);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < toks.len; i++) {
        piece *t = toks.items[i];
        if (i)
            sb_addc(&sb, ' ');
        char *r = fn(*t, opts);
        if (r) {
            sb_adds(&sb, r);
            free(r);
        } else {
            sb_addp(&sb, *t);
        }
    }
    free_pieces(&toks);
    return sb_detach(&sb, NULL);
}

static char *xrange_trimmed(piece t, unsigned opts)
{
    size_t b, e;
    npm_trim(t.s, t.n, &b, &e);
    char *r = xrange_replace(pc(t.s + b, e - b), opts);
    return r ? r : xstrndup(t.s + b, e - b);
}

/* Remove the first `[<>]?=?\s?\*` of the trimmed string. */
static char *remove_star(const char *s)
{
    size_t n = strlen(s), b, e;
    npm_trim(s, n, &b, &e);
    for (size_t i = b; i < e; i++) {
        size_t j = i;
        if (s[j] == '<' || s[j] == '>')
            j++;
        if (j < e && s[j] == '=')
            j++;
        if (j < e && npm_is_aws(s[j]))
            j++;
        if (j < e && s[j] == '*') {
            strbuf sb = STRBUF_INIT;
            sb_add(&sb, s + b, i - b);
            sb_add(&sb, s + j + 1, e - j - 1);
            return sb_detach(&sb, NULL);
        }
    }
    return xstrndup(s + b, e - b);
}

/* parseComparator: caret, tilde, x-range and star rewriting of one token. */
static char *rewrite_token(piece t, unsigned opts)
{
    char *tok = xstrndup(t.s, t.n);
    char *a = map_tokens(tok, true, caret_replace, opts);
    char *b = map_tokens(a, true, tilde_replace, opts);
    char *c = map_tokens(b, false, xrange_trimmed, opts);
    char *d = remove_star(c);
    free(tok);
    free(a);
    free(b);
    free(c);
    return d;
}

/* ---- comparators ---- */

static void rcomp_free(rcomp *c)
{
    if (!c)
        return;
    npm_semver_release(&c->sv);
    free(c->value);
    free(c);
}

/* new Comparator(tok): NULL and *err on failure. */
static rcomp *comparator_new(piece t, unsigned opts, char **err)
{
    rcomp *c = xcalloc(1, sizeof *c);
    if (t.n == 0) {
        c->op = NPM_OP_ANY;
        c->value = xstrdup("");
        return c;
    }
    bool loose = (opts & NPM_LOOSE) != 0;
    size_t g = gtlt_len(t.s, t.n);
    size_t v = g;
    if (!loose && npm_is_aws(npm_at(t.s, t.n, v)))
        v++;
    npm_plain_caps pcaps;
    if (!npm_match_plain(t.s, t.n, v, loose, &pcaps)) {
        *err = xasprintf("Invalid comparator: %.*s", (int)t.n, t.s);
        free(c);
        return NULL;
    }
    char op[3] = { 0 };
    memcpy(op, t.s, g);
    if (op[0] == '\0' || strcmp(op, "=") == 0) {
        c->op = NPM_OP_EQ;
        op[0] = '\0';
    } else if (strcmp(op, "<") == 0) {
        c->op = NPM_OP_LT;
    } else if (strcmp(op, "<=") == 0) {
        c->op = NPM_OP_LE;
    } else if (strcmp(op, ">") == 0) {
        c->op = NPM_OP_GT;
    } else {
        c->op = NPM_OP_GE;
    }
    char *ver = xstrndup(t.s + v, t.n - v);
    int rc = npm_semver_parse(&c->sv, ver, opts & NPM_LOOSE, err);
    free(ver);
    if (rc != 0) {
        free(c);
        return NULL;
    }
    c->value = xasprintf("%s%s", op, c->sv.version);
    return c;
}

/* Would node-semver's COMPARATORLOOSE pattern accept the token? */
static bool loose_comparator_ok(piece t)
{
    if (t.n == 0)
        return true;
    npm_plain_caps pcaps;
    return npm_match_plain(t.s, t.n, gtlt_len(t.s, t.n), true, &pcaps);
}

static bool comparator_test(const rcomp *c, const npm_semver *v)
{
    if (c->op == NPM_OP_ANY)
        return true;
    int r = npm_semver_compare(v, &c->sv);
    switch (c->op) {
    case NPM_OP_EQ: return r == 0;
    case NPM_OP_LT: return r < 0;
    case NPM_OP_LE: return r <= 0;
    case NPM_OP_GT: return r > 0;
    case NPM_OP_GE: return r >= 0;
    default: return true;
    }
}

static bool is_null_set(const rcomp *c)
{
    return strcmp(c->value, "<0.0.0-0") == 0;
}

static bool is_any(const rcomp *c)
{
    return c->value[0] == '\0';
}

/* Range.parseRange's rewriting of one `||` alternative: build metadata
 * stripped, hyphen ranges replaced, operators glued to their versions,
 * then each space-separated token rewritten (~, ^, x-ranges). Caller frees. */
static char *normalize_set(const char *part, size_t len, unsigned opts)
{
    bool loose = (opts & NPM_LOOSE) != 0;
    bool incpre = (opts & NPM_INCLUDE_PRERELEASE) != 0;
    char *s1 = strip_builds(part, len);
    char *s2 = hyphen_replace(s1, strlen(s1), loose, incpre);
    if (!s2)
        s2 = xstrdup(s1);
    char *s3 = glue_operators(s2, strlen(s2));
    char *s4 = glue_lone(s3, strlen(s3), '~');
    char *s5 = glue_lone(s4, strlen(s4), '^');
    free(s1);
    free(s2);
    free(s3);
    free(s4);

    /* split(' ') -> rewrite each -> join(' ') */
    strbuf joined = STRBUF_INIT;
    size_t n5 = strlen(s5), start = 0;
    for (size_t i = 0; i <= n5; i++) {
        if (i == n5 || s5[i] == ' ') {
            if (start)
                sb_addc(&joined, ' ');
            char *r = rewrite_token(pc(s5 + start, i - start), opts);
            sb_adds(&joined, r);
            free(r);
            start = i + 1;
        }
    }
    free(s5);
    return sb_detach(&joined, NULL);
}

/* The comparators of a normalized alternative, in order, into *comps;
 * -1 with *err (and *comps empty) for a bad one. */
static int parse_comparators(const char *text, unsigned opts, ptrvec *comps, char **err)
{
    bool loose = (opts & NPM_LOOSE) != 0;
    bool incpre = (opts & NPM_INCLUDE_PRERELEASE) != 0;
    ptrvec toks = PTRVEC_INIT;
    split_ws(text, strlen(text), &toks);
    int rc = 0;
    for (size_t i = 0; i < toks.len; i++) {
        piece t = *(piece *)toks.items[i];
        /* >=0.0.0 (>=0.0.0-0 with includePrerelease) means any */
        if (piece_eq(t, incpre ? ">=0.0.0-0" : ">=0.0.0"))
            t.n = 0;
        if (loose && !loose_comparator_ok(t))
            continue;
        rcomp *c = comparator_new(t, opts, err);
        if (!c) {
            rc = -1;
            break;
        }
        ptrvec_push(comps, c);
    }
    free_pieces(&toks);
    if (rc != 0) {
        for (size_t i = 0; i < comps->len; i++)
            rcomp_free(comps->items[i]);
        comps->len = 0;
    }
    return rc;
}

/* The set of `comps` (taken): a null set wins outright; otherwise dedupe
 * by value (first position kept) and drop "any" when there is anything
 * else. */
static void fill_set(ptrvec *comps, rset *set)
{
    set->n = 0;
    set->c = xcalloc(comps->len ? comps->len : 1, sizeof *set->c);
    for (size_t i = 0; i < comps->len; i++) {
        rcomp *c = comps->items[i];
        if (is_null_set(c)) {
            for (size_t j = 0; j < set->n; j++)
                rcomp_free(set->c[j]);
            for (size_t j = i + 1; j < comps->len; j++)
                rcomp_free(comps->items[j]);
            set->c[0] = c;
            set->n = 1;
            return;
        }
        bool dup = false;
        for (size_t j = 0; j < set->n && !dup; j++)
            dup = strcmp(set->c[j]->value, c->value) == 0;
        if (dup)
            rcomp_free(c);
        else
            set->c[set->n++] = c;
    }
    if (set->n > 1) {
        for (size_t j = 0; j < set->n; j++) {
            if (is_any(set->c[j])) {
                rcomp_free(set->c[j]);
                memmove(&set->c[j], &set->c[j + 1], (set->n - j - 1) * sizeof *set->c);
                set->n--;
                break;
            }
        }
    }
}

/* Range.parseRange for one `||` alternative; fills *set. */
static int parse_set(const char *part, size_t len, unsigned opts, rset *set, char **err)
{
    char *text = normalize_set(part, len, opts);
    ptrvec comps = PTRVEC_INIT;
    int rc = parse_comparators(text, opts, &comps, err);
    free(text);
    if (rc == 0)
        fill_set(&comps, set);
    ptrvec_release(&comps);
    return rc;
}

static void rset_release(rset *s)
{
    for (size_t j = 0; j < s->n; j++)
        rcomp_free(s->c[j]);
    free(s->c);
    s->c = NULL;
    s->n = 0;
}

void npm_range_free(npm_range *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nsets; i++)
        rset_release(&r->sets[i]);
    free(r->sets);
    free(r->formatted);
    free(r);
}

/* `text` trimmed, every whitespace run as one space. */
static void squeeze_ws(const char *text, strbuf *raw)
{
    size_t n = strlen(text), b, e;
    npm_trim(text, n, &b, &e);
    for (size_t i = b; i < e;) {
        size_t w = npm_ws_len(text, e, i);
        if (w) {
            while ((w = npm_ws_len(text, e, i)) != 0)
                i += w;
            sb_addc(raw, ' ');
        } else {
            sb_addc(raw, text[i++]);
        }
    }
}

/* The `||`-separated sets of `raw` into r->sets (empty ones dropped); -1
 * with *msg when one is invalid. */
static int parse_sets(const strbuf *raw, unsigned opts, npm_range *r, char **msg)
{
    size_t cap = 1;
    for (size_t i = 0; i + 1 < raw->len; i++)
        if (raw->buf[i] == '|' && raw->buf[i + 1] == '|') {
            cap++;
            i++;
        }
    r->sets = xcalloc(cap, sizeof *r->sets);
    size_t start = 0;
    for (size_t i = 0; i <= raw->len; i++) {
        bool bar = i + 1 < raw->len && raw->buf[i] == '|' && raw->buf[i + 1] == '|';
        if (i != raw->len && !bar)
            continue;
        size_t pb, pe;
        npm_trim(raw->buf + start, i - start, &pb, &pe);
        rset set;
        if (parse_set(raw->buf + start + pb, pe - pb, opts, &set, msg) != 0)
            return -1;
        if (set.n)
            r->sets[r->nsets++] = set;
        else
            rset_release(&set);
        if (bar)
            i++;
        start = i + 1;
    }
    return 0;
}

/* Of several sets: the null ones dropped unless all are (then one stays);
 * then a lone "any" set wins over the rest. */
static void simplify_sets(npm_range *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nsets; i++)
        if (!is_null_set(r->sets[i].c[0]))
            k++;
    if (k == 0) {
        for (size_t i = 1; i < r->nsets; i++)
            rset_release(&r->sets[i]);
        r->nsets = 1;
        return;
    }
    size_t w = 0;
    for (size_t i = 0; i < r->nsets; i++) {
        if (is_null_set(r->sets[i].c[0]))
            rset_release(&r->sets[i]);
        else
            r->sets[w++] = r->sets[i];
    }
    r->nsets = w;
    for (size_t i = 0; i < r->nsets && r->nsets > 1; i++) {
        if (r->sets[i].n == 1 && is_any(r->sets[i].c[0])) {
            rset keep = r->sets[i];
            for (size_t j = 0; j < r->nsets; j++)
                if (j != i)
                    rset_release(&r->sets[j]);
            r->sets[0] = keep;
            r->nsets = 1;
        }
    }
}

int npm_range_parse(const char *text, unsigned opts, npm_range **out, char **err)
{
    *out = NULL;
    strbuf raw = STRBUF_INIT;
    squeeze_ws(text, &raw);
    npm_range *r = xcalloc(1, sizeof *r);
    r->opts = opts;
    char *msg = NULL;
    int rc = parse_sets(&raw, opts, r, &msg);
    if (rc == 0 && r->nsets == 0) {
        msg = xasprintf("Invalid SemVer Range: %s", raw.buf ? raw.buf : "");
        rc = -1;
    }
    sb_release(&raw);
    if (rc != 0) {
        if (err)
            *err = msg;
        else
            free(msg);
        npm_range_free(r);
        return -1;
    }
    if (r->nsets > 1)
        simplify_sets(r);
    strbuf f = STRBUF_INIT;
    for (size_t i = 0; i < r->nsets; i++) {
        if (i)
            sb_adds(&f, "||");
        for (size_t j = 0; j < r->sets[i].n; j++) {
            if (j)
                sb_addc(&f, ' ');
            sb_adds(&f, r->sets[i].c[j]->value);
        }
    }
    r->formatted = sb_detach(&f, NULL);
    *out = r;
    return 0;
}

const char *npm_range_format(const npm_range *r)
{
    return r->formatted;
}

size_t npm_range_nsets(const npm_range *r)
{
    return r->nsets;
}

size_t npm_range_set_size(const npm_range *r, size_t set)
{
    return set < r->nsets ? r->sets[set].n : 0;
}

npm_comparator npm_range_comparator(const npm_range *r, size_t set, size_t j)
{
    const rcomp *c = r->sets[set].c[j];
    npm_comparator out = { c->op, c->op == NPM_OP_ANY ? NULL : &c->sv, c->value };
    return out;
}

unsigned npm_range_opts(const npm_range *r)
{
    return r->opts;
}

static bool set_test(const rset *s, const npm_semver *v, unsigned opts)
{
    for (size_t i = 0; i < s->n; i++)
        if (!comparator_test(s->c[i], v))
            return false;
    if (v->npre && !(opts & NPM_INCLUDE_PRERELEASE)) {
        /* a prerelease only gets in through a comparator that names a
         * prerelease of the same major.minor.patch */
        for (size_t i = 0; i < s->n; i++) {
            const rcomp *c = s->c[i];
            if (c->op == NPM_OP_ANY || c->sv.npre == 0)
                continue;
            if (c->sv.major == v->major && c->sv.minor == v->minor && c->sv.patch == v->patch)
                return true;
        }
        return false;
    }
    return true;
}

bool npm_range_test(const npm_range *r, const npm_semver *v)
{
    for (size_t i = 0; i < r->nsets; i++)
        if (set_test(&r->sets[i], v, r->opts))
            return true;
    return false;
}

bool npm_range_test_str(const npm_range *r, const char *version)
{
    npm_semver v;
    if (!version || !*version || npm_semver_parse(&v, version, r->opts, NULL) != 0)
        return false;
    bool ok = npm_range_test(r, &v);
    npm_semver_release(&v);
    return ok;
}

bool npm_satisfies(const char *version, const char *range, unsigned opts)
{
    npm_range *r;
    if (npm_range_parse(range, opts, &r, NULL) != 0)
        return false;
    bool ok = npm_range_test_str(r, version);
    npm_range_free(r);
    return ok;
}

char *npm_valid_range(const char *range, unsigned opts)
{
    npm_range *r;
    if (npm_range_parse(range, opts, &r, NULL) != 0)
        return NULL;
    char *s = xstrdup(r->formatted[0] ? r->formatted : "*");
    npm_range_free(r);
    return s;
}

/* want = 1 picks the maximum, -1 the minimum. */
static long pick_satisfying(const char *const *versions, size_t n, const char *range, unsigned opts,
                            int want)
{
    npm_range *r;
    if (npm_range_parse(range, opts, &r, NULL) != 0)
        return -1;
    long best = -1;
    npm_semver bv = { 0 };
    for (size_t i = 0; i < n; i++) {
        npm_semver v;
        if (!versions[i] || !*versions[i] || npm_semver_parse(&v, versions[i], opts, NULL) != 0)
            continue;
        if (npm_range_test(r, &v) && (best < 0 || npm_semver_compare(&bv, &v) == -want)) {
            npm_semver_release(&bv);
            bv = v;
            best = (long)i;
        } else {
            npm_semver_release(&v);
        }
    }
    npm_semver_release(&bv);
    npm_range_free(r);
    return best;
}

long npm_max_satisfying(const char *const *versions, size_t n, const char *range, unsigned opts)
{
    return pick_satisfying(versions, n, range, opts, 1);
}

long npm_min_satisfying(const char *const *versions, size_t n, const char *range, unsigned opts)
{
    return pick_satisfying(versions, n, range, opts, -1);
}

int npm_filter(const char *range, const char *const *versions, size_t n, bool *keep, char **err)
{
    npm_range *r;
    char *msg = NULL;
    if (npm_range_parse(range, 0, &r, &msg) != 0) {
        if (err)
            *err = xasprintf("not a valid npm range: %s", msg);
        free(msg);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        keep[i] = npm_range_test_str(r, versions[i]);
    npm_range_free(r);
    return 0;
}

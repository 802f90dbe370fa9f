/* npm_lex.c — the lexical layer of the npm grammar: JavaScript whitespace
 * and trimming, and matchers for the two version shapes node-semver's
 * patterns know (a full version, and an x-range version such as `1.x` or
 * `1.2.3-pre`).
 *
 * node-semver decides validity with backtracking regular expressions whose
 * repetition counts are capped (a digit run matches at most 256 digits, an
 * identifier tail at most 250 characters). The matchers here accept exactly
 * the strings those patterns accept and, where a pattern could match the
 * same text in several ways (loose `1.2.33.4` is patch 3, prerelease 3.4),
 * they make the same choice a leftmost-first engine makes. They never build
 * anything; callers turn the captured offsets into values. */
#include <stdint.h>
#include <string.h>

#include "semver_internal.h"

size_t npm_ws_len(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return 0;
    const unsigned char *u = (const unsigned char *)s + i;
    size_t left = n - i;
    if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
        return 1;
    if (left >= 2 && u[0] == 0xC2 && u[1] == 0xA0) /* U+00A0 */
        return 2;
    if (left < 3)
        return 0;
    if (u[0] == 0xE1 && u[1] == 0x9A && u[2] == 0x80) /* U+1680 */
        return 3;
    if (u[0] == 0xE2 && u[1] == 0x80 &&
        ((u[2] >= 0x80 && u[2] <= 0x8A) || u[2] == 0xA8 || u[2] == 0xA9 || u[2] == 0xAF))
        return 3; /* U+2000..200A, U+2028, U+2029, U+202F */
    if (u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F) /* U+205F */
        return 3;
    if (u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80) /* U+3000 */
        return 3;
    if (u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) /* U+FEFF */
        return 3;
    return 0;
}

size_t npm_utf16_len(const char *s, size_t n)
{
    size_t units = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) == 0x80)
            continue; /* continuation byte */
        units += (c >= 0xF0 && c <= 0xF4) ? 2 : 1;
    }
    return units;
}

void npm_trim(const char *s, size_t n, size_t *b, size_t *e)
{
    size_t i = 0, w;
    while ((w = npm_ws_len(s, n, i)) != 0)
        i += w;
    *b = i;
    *e = i;
    while (i < n) {
        w = npm_ws_len(s, n, i);
        if (w) {
            i += w;
        } else {
            i++;
            *e = i;
        }
    }
}

/* ---- identifiers ---- */

enum ident_kind { ID_PRE_STRICT, ID_PRE_LOOSE, ID_BUILD };

/* Can one identifier pattern match all of s[b, e) (a maximal run of
 * letters, digits and hyphens)? */
static bool run_valid(const char *s, size_t b, size_t e, enum ident_kind k)
{
    size_t len = e - b;
    if (len == 0)
        return false;
    if (k == ID_BUILD)
        return len <= NPM_IDENT_TAIL_MAX;
    size_t d = 0;
    while (d < len && npm_is_digit(s[b + d]))
        d++;
    if (d < len) /* digits, a letter or hyphen, then the tail */
        return d <= NPM_DIGITS_MAX && len - d - 1 <= NPM_IDENT_TAIL_MAX;
    if (k == ID_PRE_LOOSE)
        return len <= NPM_DIGITS_MAX;
    return (len == 1 && s[b] == '0') || (s[b] != '0' && len <= NPM_DIGITS_MAX + 1);
}

/* Greedy dot-separated identifier list from i. Each identifier must be a
 * whole run: what follows a list in every pattern (`+`, `.`, a space, the
 * end) can never take up the rest of a run. Returns the end of the list, or
 * i if the first identifier does not match. */
static size_t ident_list(const char *s, size_t n, size_t i, enum ident_kind k)
{
    size_t end = i, p = i;
    for (;;) {
        size_t q = p;
        while (q < n && npm_is_identc(s[q]))
            q++;
        if (!run_valid(s, p, q, k))
            return end;
        end = q;
        if (npm_at(s, n, q) != '.')
            return end;
        p = q + 1;
    }
}

static void cap_set(npm_cap *c, size_t b, size_t e)
{
    c->off = b;
    c->len = e - b;
    c->set = true;
}

static void cap_clear(npm_cap *c)
{
    c->off = 0;
    c->len = 0;
    c->set = false;
}

/* Length of the digit run at i (not capped). */
static size_t digit_run(const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && npm_is_digit(s[j]))
        j++;
    return j - i;
}

/* ---- full versions ---- */

/* A main-version number ending where it must be followed by `.`. */
static bool main_number(const char *s, size_t n, size_t *i, bool loose, npm_cap *c)
{
    size_t r = digit_run(s, n, *i);
    if (r == 0)
        return false;
    if (loose) {
        if (r > NPM_DIGITS_MAX)
            return false;
    } else if (s[*i] == '0') {
        r = 1;
    } else if (r > NPM_DIGITS_MAX + 1) {
        return false;
    }
    cap_set(c, *i, *i + r);
    *i += r;
    return true;
}

/* `(?:\+BUILD)?$` at t. */
static bool build_to_end(const char *s, size_t n, size_t t, npm_cap *build)
{
    cap_clear(build);
    if (t == n)
        return true;
    if (s[t] != '+')
        return false;
    size_t e = ident_list(s, n, t + 1, ID_BUILD);
    if (e == t + 1 || e != n)
        return false;
    cap_set(build, t + 1, e);
    return true;
}

/* The loose tail after the patch number: `(?:-?PRE)?(?:\+BUILD)?$`. */
static bool loose_tail(const char *s, size_t n, size_t t, npm_plain_caps *c)
{
    size_t e;
    if (npm_at(s, n, t) == '-') {
        e = ident_list(s, n, t + 1, ID_PRE_LOOSE);
        if (e > t + 1 && build_to_end(s, n, e, &c->build)) {
            cap_set(&c->pre, t + 1, e);
            return true;
        }
    }
    if (npm_is_identc(npm_at(s, n, t))) {
        e = ident_list(s, n, t, ID_PRE_LOOSE);
        if (e > t && build_to_end(s, n, e, &c->build)) {
            cap_set(&c->pre, t, e);
            return true;
        }
    }
    cap_clear(&c->pre);
    return build_to_end(s, n, t, &c->build);
}

/* `[v=\s]*`: the prefix a loose version and an x-range may carry; returns
 * the position after it. */
static size_t skip_v_eq_ws(const char *s, size_t n, size_t i)
{
    for (;;) {
        char ch = npm_at(s, n, i);
        size_t w;
        if (ch == 'v' || ch == '=')
            i++;
        else if ((w = npm_ws_len(s, n, i)) != 0)
            i += w;
        else
            return i;
    }
}

bool npm_match_plain(const char *s, size_t n, size_t pos, bool loose, npm_plain_caps *c)
{
    size_t i = pos;
    memset(c, 0, sizeof *c);
    if (!loose) {
        if (npm_at(s, n, i) == 'v')
            i++;
    } else {
        i = skip_v_eq_ws(s, n, i);
    }
    if (!main_number(s, n, &i, loose, &c->major) || npm_at(s, n, i) != '.')
        return false;
    i++;
    if (!main_number(s, n, &i, loose, &c->minor) || npm_at(s, n, i) != '.')
        return false;
    i++;
    if (!loose) {
        if (!main_number(s, n, &i, false, &c->patch))
            return false;
        if (npm_at(s, n, i) == '-') {
            size_t e = ident_list(s, n, i + 1, ID_PRE_STRICT);
            if (e == i + 1)
                return false;
            cap_set(&c->pre, i + 1, e);
            i = e;
        }
        return build_to_end(s, n, i, &c->build);
    }
    /* Loose: the patch's digits may give some back to an unhyphenated
     * prerelease, longest patch first. */
    size_t r = digit_run(s, n, i);
    if (r == 0)
        return false;
    for (size_t j = r > NPM_DIGITS_MAX ? NPM_DIGITS_MAX : r; j >= 1; j--) {
        if (loose_tail(s, n, i + j, c)) {
            cap_set(&c->patch, i, i + j);
            return true;
        }
    }
    return false;
}

/* ---- x-range versions ---- */

/* One x-range component at i (a number, `x`, `X` or `*`): its end, or i.
 * Strict numbers have no leading zero; "0" followed by digits yields just
 * the "0" and the caller's next step fails, as the pattern does. */
static size_t xr_ident(const char *s, size_t n, size_t i, bool loose)
{
    char ch = npm_at(s, n, i);
    if (ch == 'x' || ch == 'X' || ch == '*')
        return i + 1;
    size_t r = digit_run(s, n, i);
    if (r == 0)
        return i;
    if (loose)
        return r > NPM_DIGITS_MAX ? i : i + r;
    if (ch == '0')
        return i + 1;
    return r > NPM_DIGITS_MAX + 1 ? i : i + r;
}

typedef struct xr_try {
    const char *s;
    size_t n;
    bool loose;
    npm_xr_cont cont;
    void *ctx;
    npm_xr_caps *c;
    size_t end; /* where the accepted continuation started */
} xr_try;

static bool xr_cont(xr_try *t, size_t p)
{
    if (!t->cont(t->s, t->n, p, t->ctx))
        return false;
    t->end = p;
    return true;
}

/* `(?:\+BUILD)?` then the continuation. */
static bool xr_after_pre(xr_try *t, size_t p)
{
    if (npm_at(t->s, t->n, p) == '+') {
        size_t e = ident_list(t->s, t->n, p + 1, ID_BUILD);
        if (e > p + 1 && xr_cont(t, e))
            return true;
    }
    return xr_cont(t, p);
}

/* `(?:PRE)?(?:\+BUILD)?` then the continuation, after the third component. */
static bool xr_after_x3(xr_try *t, size_t p)
{
    size_t e;
    if (npm_at(t->s, t->n, p) == '-') {
        e = ident_list(t->s, t->n, p + 1, t->loose ? ID_PRE_LOOSE : ID_PRE_STRICT);
        if (e > p + 1 && xr_after_pre(t, e)) {
            cap_set(&t->c->pre, p + 1, e);
            return true;
        }
    }
    if (t->loose && npm_is_identc(npm_at(t->s, t->n, p))) {
        e = ident_list(t->s, t->n, p, ID_PRE_LOOSE);
        if (e > p && xr_after_pre(t, e)) {
            cap_set(&t->c->pre, p, e);
            return true;
        }
    }
    cap_clear(&t->c->pre);
    return xr_after_pre(t, p);
}

/* The third component and everything after it, from p. */
static bool xr_x3(xr_try *t, size_t p)
{
    const char *s = t->s;
    size_t n = t->n;
    if (t->loose && npm_is_digit(npm_at(s, n, p))) {
        size_t r = digit_run(s, n, p);
        for (size_t j = r > NPM_DIGITS_MAX ? NPM_DIGITS_MAX : r; j >= 1; j--) {
            if (xr_after_x3(t, p + j)) {
                cap_set(&t->c->patch, p, p + j);
                return true;
            }
        }
        return false;
    }
    size_t e = xr_ident(s, n, p, t->loose);
    if (e == p)
        return false;
    if (xr_after_x3(t, e)) {
        cap_set(&t->c->patch, p, e);
        return true;
    }
    return false;
}

bool npm_match_xr(const char *s, size_t n, size_t pos, bool loose, npm_xr_cont cont, void *ctx,
                  npm_xr_caps *c)
{
    xr_try t = { s, n, loose, cont, ctx, c, 0 };
    size_t i = skip_v_eq_ws(s, n, pos);
    memset(c, 0, sizeof *c);
    size_t e1 = xr_ident(s, n, i, loose);
    if (e1 == i)
        return false;
    cap_set(&c->major, i, e1);
    if (npm_at(s, n, e1) == '.') {
        size_t e2 = xr_ident(s, n, e1 + 1, loose);
        if (e2 > e1 + 1) {
            cap_set(&c->minor, e1 + 1, e2);
            if (npm_at(s, n, e2) == '.' && xr_x3(&t, e2 + 1)) {
                cap_set(&c->whole, pos, t.end);
                return true;
            }
            cap_clear(&c->patch);
            cap_clear(&c->pre);
            if (cont(s, n, e2, ctx)) {
                cap_set(&c->whole, pos, e2);
                return true;
            }
        }
    }
    cap_clear(&c->minor);
    cap_clear(&c->patch);
    cap_clear(&c->pre);
    if (cont(s, n, e1, ctx)) {
        cap_set(&c->whole, pos, e1);
        return true;
    }
    return false;
}

bool npm_cont_end(const char *s, size_t n, size_t pos, void *ctx)
{
    (void)s;
    (void)ctx;
    return pos == n;
}

/* spdx_expr.c — SPDX license expressions (SPDX 2.3, annex D): whether a
 * text is one (what a lock records as a package's license), and whether it
 * can be met with the licenses a policy allows: `A OR B` when either can,
 * `A AND B` when both can, `A WITH exception` when A can (an exception only
 * adds permissions) or the whole `A WITH exception` is allowed, `A+` only
 * when `A+` itself is allowed. Operators bind WITH, then AND, then OR;
 * identifiers and operators compare case-insensitively, as SPDX matches
 * them. Text that is not an expression ("SEE LICENSE IN LICENSE.md",
 * "BSD like", or an identifier the SPDX License List does not have, such
 * as "UNLICENSED" or "None") is reported as such: the caller treats it as
 * unknown. The list itself is data (spdx/list/, compiled into
 * spdx_list.c); this file only searches it. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "spdx.h"

typedef struct lexer {
    const char *s;      /* the next character */
    const char *tok;    /* the current token, tok_len long; NULL at the end */
    size_t tok_len;
    bool bad;
    const char *const *allow;
    size_t n_allow;
    int depth;
    bool any_id; /* well-formed identifiers count, listed or not */
} lexer;

static bool id_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '.' || c == ':' || c == '+';
}

static void next(lexer *L)
{
    while (*L->s == ' ' || *L->s == '\t')
        L->s++;
    L->tok = *L->s ? L->s : NULL;
    if (!L->tok) {
        L->tok_len = 0;
    } else if (*L->s == '(' || *L->s == ')') {
        L->tok_len = 1;
        L->s++;
    } else {
        size_t n = 0;
        while (id_char(L->s[n]))
            n++;
        if (!n)
            L->bad = true, L->tok = NULL;
        L->tok_len = n;
        L->s += n;
    }
}

static bool tok_is(const lexer *L, const char *word)
{
    return L->tok && L->tok_len == strlen(word) && strncasecmp(L->tok, word, L->tok_len) == 0;
}

static bool allowed(const lexer *L, const char *text, size_t n)
{
    for (size_t i = 0; i < L->n_allow; i++)
        if (strlen(L->allow[i]) == n && strncasecmp(L->allow[i], text, n) == 0)
            return true;
    return false;
}

/* `a` (na bytes) against the string b, case-insensitively; a shorter
 * text orders first, as strcasecmp() orders the list. */
static int ci_cmp(const char *a, size_t na, const char *b)
{
    for (size_t i = 0; i < na; i++) {
        int ca = tolower((unsigned char)a[i]), cb = tolower((unsigned char)b[i]);
        if (ca != cb || !cb)
            return ca - cb;
    }
    return b[na] ? -1 : 0;
}

const spdx_list_entry *spdx_list_find(const spdx_list_entry *list, size_t n, const char *id,
                                      size_t n_id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = ci_cmp(id, n_id, list[mid].id);
        if (c == 0)
            return &list[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* An idstring of annex D: letters, digits, '-' and '.'. */
static bool idstring(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '.')
            return false;
    return n > 0;
}

static bool has_prefix(const char *s, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && strncasecmp(s, pre, k) == 0;
}

/* LicenseRef-x, or DocumentRef-x:LicenseRef-y: a license the document (or
 * another one) defines, which no list could hold. */
static bool license_ref(const char *t, size_t n)
{
    const char *colon = memchr(t, ':', n);
    if (colon) {
        size_t d = (size_t)(colon - t);
        return has_prefix(t, d, "DocumentRef-") && idstring(t + 12, d - 12) &&
               license_ref(colon + 1, n - d - 1) && !memchr(colon + 1, ':', n - d - 1);
    }
    return has_prefix(t, n, "LicenseRef-") && idstring(t + 11, n - 11);
}

/* The list's entry for license token t (`GPL-2.0+` is itself on the list;
 * `Apache-2.0+` is Apache-2.0 "or later"), or NULL. */
static const spdx_list_entry *listed_license(const char *t, size_t n)
{
    const spdx_list_entry *e = spdx_list_find(spdx_licenses, spdx_n_licenses, t, n);
    if (!e && n > 1 && t[n - 1] == '+' && idstring(t, n - 1))
        e = spdx_list_find(spdx_licenses, spdx_n_licenses, t, n - 1);
    return e;
}

static bool operand(const lexer *L)
{
    return L->tok && !tok_is(L, "AND") && !tok_is(L, "OR") && !tok_is(L, "WITH") &&
           *L->tok != '(' && *L->tok != ')';
}

/* A license reference: a listed id, an optional '+' only at its end, or a
 * LicenseRef. */
static bool license_id(const lexer *L)
{
    const char *t = L->tok;
    size_t n = L->tok_len;
    if (!operand(L))
        return false;
    if (L->any_id && (idstring(t, n) || (n > 1 && t[n - 1] == '+' && idstring(t, n - 1))))
        return true;
    return listed_license(t, n) || license_ref(t, n);
}

/* An exception after WITH: one of the list's. */
static bool exception_id(const lexer *L)
{
    if (!operand(L))
        return false;
    if (L->any_id && idstring(L->tok, L->tok_len))
        return true;
    return spdx_list_find(spdx_exceptions, spdx_n_exceptions, L->tok, L->tok_len);
}

static bool or_expr(lexer *L);

/* license [WITH exception] | ( expression ) */
static bool with_expr(lexer *L)
{
    if (tok_is(L, "(")) {
        if (++L->depth > 64) /* no real expression nests like this */
            return L->bad = true, false;
        next(L);
        bool ok = or_expr(L);
        if (!tok_is(L, ")"))
            return L->bad = true, false;
        L->depth--;
        next(L);
        return ok;
    }
    if (!license_id(L))
        return L->bad = true, false;
    const char *lic = L->tok;
    size_t lic_len = L->tok_len;
    bool ok = allowed(L, lic, lic_len);
    next(L);
    if (!tok_is(L, "WITH"))
        return ok;
    next(L);
    if (!exception_id(L))
        return L->bad = true, false;
    char whole[256];
    int n = snprintf(whole, sizeof whole, "%.*s WITH %.*s", (int)lic_len, lic, (int)L->tok_len,
                     L->tok);
    ok = ok || (n > 0 && (size_t)n < sizeof whole && allowed(L, whole, (size_t)n));
    next(L);
    return ok;
}

static bool and_expr(lexer *L)
{
    bool ok = with_expr(L);
    while (!L->bad && tok_is(L, "AND")) {
        next(L);
        ok = with_expr(L) && ok;
    }
    return ok;
}

static bool or_expr(lexer *L)
{
    bool ok = and_expr(L);
    while (!L->bad && tok_is(L, "OR")) {
        next(L);
        ok = and_expr(L) || ok;
    }
    return ok;
}

/* The expression's verdict; any_id: with every well-formed identifier
 * taken as listed (the syntax alone). */
static bool parse(const char *expr, const char *const *allow, size_t n_allow, bool any_id,
                  bool *admitted)
{
    lexer L = { .s = expr, .allow = allow, .n_allow = n_allow, .any_id = any_id };
    next(&L);
    if (!L.tok)
        return false;
    bool ok = or_expr(&L);
    if (L.bad || L.tok)
        return false;
    *admitted = ok;
    return true;
}

bool spdx_expr_admits(const char *expr, const char *const *allow, size_t n_allow,
                      bool *admitted)
{
    return parse(expr, allow, n_allow, false, admitted);
}

bool spdx_expr_is_license(const char *expr)
{
    lexer L = { .s = expr };
    next(&L);
    if (!license_id(&L))
        return false;
    next(&L);
    if (tok_is(&L, "WITH")) {
        next(&L);
        if (!exception_id(&L))
            return false;
        next(&L);
    }
    return !L.bad && !L.tok;
}

bool spdx_expr_valid(const char *expr)
{
    bool admitted;
    return spdx_expr_admits(expr, NULL, 0, &admitted);
}

/* The first operand of expr for which pick() says yes, into buf. */
static bool first_operand(const char *expr, char *buf, size_t cap,
                          bool (*pick)(const lexer *L, bool after_with))
{
    lexer L = { .s = expr };
    bool after_with = false;
    for (next(&L); L.tok && !L.bad; next(&L)) {
        if (operand(&L) && pick(&L, after_with)) {
            snprintf(buf, cap, "%.*s", (int)L.tok_len, L.tok);
            return true;
        }
        after_with = tok_is(&L, "WITH");
    }
    return false;
}

static bool unlisted(const lexer *L, bool after_with)
{
    return after_with ? !exception_id(L) : !license_id(L);
}

static bool deprecated(const lexer *L, bool after_with)
{
    const spdx_list_entry *e =
        after_with ? spdx_list_find(spdx_exceptions, spdx_n_exceptions, L->tok, L->tok_len)
                   : listed_license(L->tok, L->tok_len);
    return e && e->deprecated;
}

bool spdx_expr_unlisted(const char *expr, char *buf, size_t cap)
{
    bool admitted;
    return parse(expr, NULL, 0, true, &admitted) && first_operand(expr, buf, cap, unlisted);
}

bool spdx_expr_deprecated(const char *expr, char *buf, size_t cap)
{
    return first_operand(expr, buf, cap, deprecated);
}

/* spdx_expr.c — SPDX license expressions (SPDX 2.3, annex D): whether a
 * text is one (what a lock records as a package's license), and whether it
 * can be met with the licenses a policy allows: `A OR B` when either can,
 * `A AND B` when both can, `A WITH exception` when A can (an exception only
 * adds permissions) or the whole `A WITH exception` is allowed, `A+` only
 * when `A+` itself is allowed. Operators bind WITH, then AND, then OR;
 * identifiers and operators compare case-insensitively, as SPDX matches
 * them. Text that is not an expression ("SEE LICENSE IN LICENSE.md",
 * "BSD like") is reported as such: the caller treats it as unknown. */
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

/* A license reference: an idstring, an optional '+' only at its end. */
static bool license_id(const lexer *L)
{
    if (!L->tok || tok_is(L, "AND") || tok_is(L, "OR") || tok_is(L, "WITH") || *L->tok == '(' ||
        *L->tok == ')')
        return false;
    const char *plus = memchr(L->tok, '+', L->tok_len);
    return !plus || (plus == L->tok + L->tok_len - 1 && L->tok_len > 1);
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
    if (!license_id(L) || memchr(L->tok, '+', L->tok_len))
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

bool spdx_expr_admits(const char *expr, const char *const *allow, size_t n_allow,
                        bool *admitted)
{
    lexer L = { .s = expr, .allow = allow, .n_allow = n_allow };
    next(&L);
    if (!L.tok)
        return false;
    bool ok = or_expr(&L);
    if (L.bad || L.tok)
        return false;
    *admitted = ok;
    return true;
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
        if (!license_id(&L) || memchr(L.tok, '+', L.tok_len))
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

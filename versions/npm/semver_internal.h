/* semver_internal.h — pieces shared by the npm grammar's files: JavaScript's
 * idea of whitespace, and matchers for the version shapes node-semver's
 * regular expressions recognise (with the same length limits and the same
 * choices where a pattern could match in more than one way). Not installed,
 * not used outside versions/npm. */
#ifndef EL_SEMVER_INTERNAL_H
#define EL_SEMVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* Limits node-semver builds into its patterns: a digit run matches at most
 * 256 digits (257 for a strict number: a non-zero digit then 256 more), and
 * the letters after the first non-digit of an identifier, or a build
 * identifier, at most 250 characters. */
#define NPM_DIGITS_MAX 256
#define NPM_IDENT_TAIL_MAX 250

/* A piece of a string: start offset and length; `set` false means the
 * pattern's group did not take part (JavaScript's undefined). */
typedef struct npm_cap {
    size_t off, len;
    bool set;
} npm_cap;

/* Byte length of the JavaScript whitespace character (the `\s` class and
 * what String.prototype.trim removes) at s[i], or 0. `n` bounds the read. */
size_t npm_ws_len(const char *s, size_t n, size_t i);
/* Length of `s` in UTF-16 code units (invalid UTF-8 bytes count one each). */
size_t npm_utf16_len(const char *s, size_t n);
/* String.prototype.trim as offsets: [*b, *e). */
void npm_trim(const char *s, size_t n, size_t *b, size_t *e);

static inline char npm_at(const char *s, size_t n, size_t i)
{
    return i < n ? s[i] : '\0';
}
static inline bool npm_is_digit(char c)
{
    return c >= '0' && c <= '9';
}
static inline bool npm_is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static inline bool npm_is_identc(char c)
{
    return npm_is_digit(c) || npm_is_letter(c) || c == '-';
}
/* The ASCII part of `\s`; inside ranges only these can remain. */
static inline bool npm_is_aws(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Captures of a full version (`FULLPLAIN` / `LOOSEPLAIN`). */
typedef struct npm_plain_caps {
    npm_cap major, minor, patch, pre, build;
} npm_plain_caps;

/* npm_match_plain() :
 *  Does s[pos, n) match a whole version (strict: `v?` then three numbers
 *  without leading zeros; loose: any run of `v`, `=`, whitespace, then three
 *  digit runs, optional `-`) to the end? Fills *c on success. */
bool npm_match_plain(const char *s, size_t n, size_t pos, bool loose, npm_plain_caps *c);

/* Captures of an x-range version (`XRANGEPLAIN`): `whole` is the entire
 * match including its `v`/`=`/space prefix. */
typedef struct npm_xr_caps {
    npm_cap whole, major, minor, patch, pre;
} npm_xr_caps;

/* What must follow an x-range version for the enclosing pattern to match. */
typedef bool (*npm_xr_cont)(const char *s, size_t n, size_t pos, void *ctx);

/* npm_match_xr() :
 *  Try x-range versions starting at `pos` in the order a backtracking regex
 *  engine would, and accept the first whose end satisfies `cont`. */
bool npm_match_xr(const char *s, size_t n, size_t pos, bool loose, npm_xr_cont cont, void *ctx,
                  npm_xr_caps *c);

/* The end-of-string continuation for npm_match_xr(). */
bool npm_cont_end(const char *s, size_t n, size_t pos, void *ctx);

#endif

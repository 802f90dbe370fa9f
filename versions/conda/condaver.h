/* condaver.h — conda's version grammar (el_conda_grammar): versions in the
 * order of conda's VersionOrder, and version specs (the version part of a
 * match spec: "1.2.*", ">=1.2,<2|==3", "~=1.4", "1.0|1.2").
 *
 * Self-contained: no libsolv, no I/O. Internal to envlock; names carry the
 * `conda_` prefix. Debian's libsolv is built without its conda support, so
 * this module is what gives conda packages their ranks (docs/architecture.md).
 *
 * The version order, in short (the facts the tests check):
 *  - case-insensitive; outer whitespace trimmed; the characters are
 *    [A-Za-z0-9_.+!*], and `-` too when there is no `_` (each `-` then reads
 *    as `_`);
 *  - `N!` in front is the epoch (digits only), `+local` at the end a local
 *    version compared only when everything before it is equal;
 *  - `.` and `_` separate components; a trailing `_` stays part of the last
 *    component ("1.1.0g_" style OpenSSL versions);
 *  - a component is runs of digits, of `*` and of anything else; a component
 *    that starts with a non-digit gets an implicit leading 0, so "1.0a1"
 *    sorts before "1.0";
 *  - digit runs compare as numbers, `post` above every number, strings below
 *    every number and among themselves by bytes with `dev` below everything
 *    but `*`: `*` < dev < `_` < a < b ... < z < 0 < 1 < ... < post;
 *  - missing components and runs read as 0, so 1.1 == 1.1.0.
 *
 * Limits: a version longer than CONDA_VERSION_MAX bytes is refused (conda has
 * none; repodata is hostile input and a version is a line of text). Digit
 * runs of any length compare exactly (no integer overflow). */
#ifndef EL_CONDAVER_H
#define EL_CONDAVER_H

#include <stdbool.h>
#include <stddef.h>

#define CONDA_VERSION_MAX 1024

/* A parse failure: `column` is the 1-based byte column in the text given to
 * the parser; `message` is a static English string. */
typedef struct conda_error {
    size_t column;
    const char *message;
} conda_error;

/* ---- versions ---- */

typedef struct conda_version conda_version;

/* conda_version_parse() :
 *  Parses `len` bytes of `text` (a NUL byte inside is refused).
 *  @return a new version (free with conda_version_free()), or NULL with *err
 *  filled when `err` is not NULL. */
conda_version *conda_version_parse(const char *text, size_t len, conda_error *err);
void conda_version_free(conda_version *v);

/* conda_version_cmp() : -1, 0 or 1 in conda's VersionOrder. */
int conda_version_cmp(const conda_version *a, const conda_version *b);

/* conda_version_norm() : the normalized text (trimmed, lower-cased, `-`
 *  read as `_`), as conda prints a VersionOrder. Borrowed. */
const char *conda_version_norm(const conda_version *v);

/* conda_version_has_local() : whether a `+local` part was given. */
bool conda_version_has_local(const conda_version *v);

/* conda_version_startswith() :
 *  Whether `v` begins with `prefix` component by component, as conda's
 *  `1.2.*` matches: every component of the prefix equals v's component at
 *  the same place, the last one allowed to be a leading run-wise prefix
 *  (so "1.2" starts "1.2.3" and "1.2a", not "1.20"). Local parts: the
 *  prefix's must start v's the same way. */
bool conda_version_startswith(const conda_version *v, const conda_version *prefix);

/* conda_version_repr() :
 *  The components of the version part (epoch first), or of the local part
 *  when `local`, written as conda's Python prints VersionOrder.version:
 *  "[[0], [1], [0, 'a', 1]]", `post` as inf, `dev` as 'DEV'. For tests and
 *  diagnostics; caller frees. */
char *conda_version_repr(const conda_version *v, bool local);

/* conda_version_cmp_str() :
 *  Compares two version strings. Returns 0 with *cmp in {-1, 0, 1}; -1 if
 *  `a` is not a conda version, -2 if `b` is not, with *msg a malloc'd reason
 *  naming the column (caller frees; `msg` may be NULL). */
int conda_version_cmp_str(const char *a, const char *b, int *cmp, char **msg);

/* ---- version specs ---- */

typedef struct conda_vspec conda_vspec;

/* conda_vspec_parse() :
 *  Parses a version spec as conda's VersionSpec: `,` (and) binds tighter
 *  than `|` (or), parentheses group; each item is one of
 *    `*`                 any version
 *    `^...$`             a regular expression over the version text (POSIX
 *                        extended syntax here, Python's in conda)
 *    `OP v`              == != < <= > >= (no blank after OP); `=v` and `v*`
 *                        / `v.*` are "starts with v"; `!=v.*` "does not";
 *                        `~=v` is ">= v and starts with v minus its last
 *                        component" (v needs two components here: conda
 *                        fails only when matching); `OPv.*` reads as `OPv`
 *    `1.*.3`             a glob: `*` inside is any text
 *    `v`                 equal to v in VersionOrder (1.1 == 1.1.0)
 *    text with `@`       the exact text
 *  Blanks around items are ignored. Spec texts over CONDA_VSPEC_MAX bytes
 *  are refused. @return a new spec, or NULL with *err (column into `text`). */
#define CONDA_VSPEC_MAX 4096
conda_vspec *conda_vspec_parse(const char *text, size_t len, conda_error *err);
void conda_vspec_free(conda_vspec *s);

/* conda_vspec_match() :
 *  Whether the version `raw` (its parse `v`, or NULL when it does not parse:
 *  then only regex, glob and exact-text items can match) satisfies `s`. */
bool conda_vspec_match(const conda_vspec *s, const conda_version *v, const char *raw);

/* conda_regex_compile() :
 *  regcomp(re, rx, REG_EXTENDED | REG_NOSUB) for a regex from a spec, after
 *  checking it is one glibc compiles in bounded memory: at most
 *  CONDA_REGEX_MAX bytes and 16 quantifiers, no `{m,n}` counts and no
 *  quantifier right after another (glibc's compiler duplicates the tree for
 *  each, so "0+++++..." takes gigabytes). conda's specs use nothing beyond.
 *  Returns true when compiled (the caller regfree()s). */
#define CONDA_REGEX_MAX 256
struct re_pattern_buffer;
bool conda_regex_compile(struct re_pattern_buffer *re, const char *rx);

/* conda_filter() :
 *  keep[i] = versions[i] satisfies the version spec `spec`. Versions that
 *  are not conda versions never satisfy it. Returns 0, or -1 if the spec is
 *  malformed, with *msg a malloc'd reason naming the column (caller frees;
 *  `msg` may be NULL). */
int conda_filter(const char *spec, const char *const *versions, size_t n, bool *keep, char **msg);

#endif

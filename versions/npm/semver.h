/* semver.h — npm's version grammar (the semantics of the node `semver`
 * package, 7.x): versions, comparison, ranges, satisfies, and the narrow
 * string-level entry points the public el_version_* API dispatches to.
 *
 * Options are a bit set: NPM_LOOSE accepts the forms node-semver's `loose`
 * option accepts (leading `v`/`=`/whitespace, leading zeros, `1.2.3beta`),
 * NPM_INCLUDE_PRERELEASE lets prerelease versions satisfy ranges without
 * the same-tuple gate. 0 is node-semver's default.
 *
 * Answers match node-semver 7.8.x exactly (tests/npm/npm_semver_diff.py
 * checks >100k cases against node). Deliberate deviations: node throws from
 * satisfies() when, with loose + includePrerelease, it tests a comparator
 * whose normalized version exceeds 256 characters; here that comparator is
 * simply evaluated. Inputs are C strings (no NUL inside); invalid UTF-8
 * bytes count as ordinary non-whitespace characters.
 *
 * Nothing here allocates without saying who frees it. */
#ifndef EL_NPM_SEMVER_H
#define EL_NPM_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NPM_LOOSE 1u
#define NPM_INCLUDE_PRERELEASE 2u

/* Longest version string node-semver accepts (in UTF-16 code units, which is
 * what JavaScript counts; for ASCII that is bytes). */
#define NPM_SEMVER_MAX_LENGTH 256
/* Number.MAX_SAFE_INTEGER: the largest major/minor/patch node-semver accepts. */
#define NPM_MAX_SAFE_INTEGER 9007199254740991ULL

/* ---------------------------------------------------------------------------
 * The narrow API used by indexes/version.c and the spec validator.
 * ------------------------------------------------------------------------ */

/* npm_version_cmp_str() :
 *  Compare two version strings like node-semver compare(a, b, {loose: true})
 *  (build metadata ignored). *cmp gets -1, 0 or 1.
 *  @return 0; -1 if `a` is not a valid version, -2 if `b` is not, and *err
 *  then gets a malloc'd message the caller frees. */
int npm_version_cmp_str(const char *a, const char *b, int *cmp, char **err);

/* npm_filter() :
 *  keep[i] = semver.satisfies(versions[i], range) with default options
 *  (loose false, includePrerelease false). Invalid versions never satisfy.
 *  @return 0, or -1 if `range` is invalid (*err malloc'd, caller frees). */
int npm_filter(const char *range, const char *const *versions, size_t n, bool *keep, char **err);

/* ---------------------------------------------------------------------------
 * Versions.
 * ------------------------------------------------------------------------ */

/* One prerelease identifier. node-semver turns an all-digit identifier into a
 * number when its value is below MAX_SAFE_INTEGER (`numeric`, value in `num`);
 * any other identifier stays a string. `digits` is true for every all-digit
 * identifier (also the too-large ones, which compare as JavaScript doubles:
 * `dval`). `str` is the identifier as formatted (numbers without leading
 * zeros). */
typedef struct npm_ident {
    const char *str;
    bool numeric;
    bool digits;
    uint64_t num;
    double dval;
} npm_ident;

/* A parsed version. Owns its arrays and strings (npm_semver_release()).
 * `version` is node-semver's normalized `.version`: "M.m.p" plus "-pre" if
 * any, never the build metadata. */
typedef struct npm_semver {
    uint64_t major, minor, patch;
    size_t npre;
    npm_ident *pre;
    size_t nbuild;
    char **build;
    char *version;
} npm_semver;

/* npm_semver_parse() :
 *  Parse `text` like `new SemVer(text, opts)`: at most 256 UTF-16 units
 *  before trimming, surrounding (Unicode) whitespace trimmed, components at
 *  most MAX_SAFE_INTEGER. Only NPM_LOOSE matters here.
 *  @return 0 and a filled *out (release it), or -1 with *err malloc'd (err
 *  may be NULL) and *out zeroed. */
int npm_semver_parse(npm_semver *out, const char *text, unsigned opts, char **err);
/* Frees what *v owns and zeroes it; a zeroed npm_semver is fine. */
void npm_semver_release(npm_semver *v);

/* SemVer.prototype.compare: -1, 0, 1 on major, minor, patch, then prerelease
 * (no prerelease sorts after any prerelease). Build metadata is ignored.
 * Surprise kept from node: two all-digit identifiers too large to be numbers
 * compare as doubles, and equal doubles end the comparison with 0. */
int npm_semver_compare(const npm_semver *a, const npm_semver *b);
/* compareBuild: compare(), then build identifiers (same identifier rules). */
int npm_semver_compare_build(const npm_semver *a, const npm_semver *b);
/* rcompare: compare(b, a). */
int npm_semver_rcompare(const npm_semver *a, const npm_semver *b);

/* semver.valid(text, opts): the normalized version, malloc'd, or NULL. */
char *npm_valid(const char *text, unsigned opts);
/* semver.clean(text, opts): trims, drops leading `=`/`v` characters, then
 * parses; the normalized version, malloc'd, or NULL. */
char *npm_clean(const char *text, unsigned opts);

/* ---------------------------------------------------------------------------
 * Ranges.
 * ------------------------------------------------------------------------ */

typedef enum npm_op {
    NPM_OP_ANY, /* the empty comparator: matches everything */
    NPM_OP_EQ,
    NPM_OP_LT,
    NPM_OP_LE,
    NPM_OP_GT,
    NPM_OP_GE
} npm_op;

/* One primitive comparator of a desugared range. `semver` is NULL for
 * NPM_OP_ANY. `value` is node's comparator string ("<2.0.0-0", "" for any). */
typedef struct npm_comparator {
    npm_op op;
    const npm_semver *semver;
    const char *value;
} npm_comparator;

/* A parsed range: a union (`||`) of sets of comparators (all must hold). */
typedef struct npm_range npm_range;

/* npm_range_parse() :
 *  Parse like `new Range(text, opts)`: hyphen ranges, x-ranges, `~`, `~>`,
 *  `^`, primitive comparators, `||`, desugared exactly as node-semver does
 *  (including its string-rewriting quirks, so loose mode drops comparators it
 *  cannot read instead of failing).
 *  @return 0 and *out (npm_range_free()), or -1 with *err malloc'd. */
int npm_range_parse(const char *text, unsigned opts, npm_range **out, char **err);
void npm_range_free(npm_range *r);

/* Range.prototype.range: the normalized string ("" for "any"; validRange
 * reports that as "*"). Borrowed from `r`. */
const char *npm_range_format(const npm_range *r);
size_t npm_range_nsets(const npm_range *r);
size_t npm_range_set_size(const npm_range *r, size_t set);
/* The j-th comparator of set `set`; borrowed from `r`. */
npm_comparator npm_range_comparator(const npm_range *r, size_t set, size_t j);
unsigned npm_range_opts(const npm_range *r);

/* Range.prototype.test with an already parsed version (parse it with the
 * range's options). Applies the prerelease gate: without
 * NPM_INCLUDE_PRERELEASE a prerelease version only satisfies a set that has
 * a comparator with a prerelease on the same major.minor.patch. */
bool npm_range_test(const npm_range *r, const npm_semver *v);
/* Range.prototype.test with a string; an invalid version is false. */
bool npm_range_test_str(const npm_range *r, const char *version);

/* semver.satisfies: false also when the range is invalid. */
bool npm_satisfies(const char *version, const char *range, unsigned opts);
/* semver.validRange: malloc'd normalized range ("*" for any), or NULL. */
char *npm_valid_range(const char *range, unsigned opts);
/* semver.maxSatisfying / minSatisfying: the index of the chosen version in
 * `versions` (ties keep the earlier one), or -1 if none satisfies or the
 * range is invalid. */
long npm_max_satisfying(const char *const *versions, size_t n, const char *range, unsigned opts);
long npm_min_satisfying(const char *const *versions, size_t n, const char *range, unsigned opts);

#endif

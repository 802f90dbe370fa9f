/* pep440.h — PEP 440 versions and version specifiers, with the exact
 * semantics of Python's `packaging` 23.0 (Version, Specifier, SpecifierSet).
 *
 * Text is UTF-8. Whitespace that packaging trims (Python's str.isspace set,
 * including U+00A0, U+3000 ...) is trimmed here too. Numbers are kept as
 * digit strings, so there is no overflow: "1.99999999999999999999" parses and
 * orders correctly.
 *
 * Ownership: every *_parse returns a heap object the caller frees with the
 * matching *_free (free(NULL) is a no-op). Borrowed `const char *` results
 * stay valid until their owner is freed. Error messages (`char **err`, may be
 * NULL) are malloc'd, caller frees, and read well after "`<text>`: ". */
#ifndef EL_PYPI_PEP440_H
#define EL_PYPI_PEP440_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- versions ---- */

typedef struct pypi_version pypi_version;

typedef enum pypi_pre_kind {
    PYPI_PRE_NONE = 0,
    PYPI_PRE_A,  /* a, alpha */
    PYPI_PRE_B,  /* b, beta */
    PYPI_PRE_RC, /* rc, c, pre, preview */
} pypi_pre_kind;

/* pypi_version_parse() :
 *  Parse `text` as packaging.version.Version does (case-insensitive, leading
 *  `v`, `-_.` separators, implicit post `1.0-1`, outer whitespace trimmed).
 *  @return a new version, or NULL (with *err) if `text` is not PEP 440. */
pypi_version *pypi_version_parse(const char *text, char **err);
void pypi_version_free(pypi_version *v);
/* Deep copy. */
pypi_version *pypi_version_dup(const pypi_version *v);

/* pypi_version_cmp() : <0, 0, >0 in PEP 440 order (dev < a < b < rc < final
 *  < post; trailing release zeros ignored; local labels sort after the public
 *  version, numeric segments above alphanumeric ones). */
int pypi_version_cmp(const pypi_version *a, const pypi_version *b);
/* As pypi_version_cmp() with both local labels ignored. */
int pypi_version_cmp_public(const pypi_version *a, const pypi_version *b);

/* Normalized forms, as str(v), v.public, v.base_version, v.local (NULL when
 * there is no local label). */
const char *pypi_version_str(const pypi_version *v);
const char *pypi_version_public(const pypi_version *v);
const char *pypi_version_base(const pypi_version *v);
const char *pypi_version_local(const pypi_version *v);

bool pypi_version_is_prerelease(const pypi_version *v); /* has pre or dev */
bool pypi_version_is_devrelease(const pypi_version *v);
bool pypi_version_is_postrelease(const pypi_version *v);

/* Numeric parts as decimal digit strings without leading zeros ("0" for
 * zero). epoch is "0" when absent; post/dev are NULL when absent. */
const char *pypi_version_epoch(const pypi_version *v);
size_t pypi_version_release_len(const pypi_version *v);
const char *pypi_version_release_at(const pypi_version *v, size_t i);
pypi_pre_kind pypi_version_pre(const pypi_version *v, const char **num);
const char *pypi_version_post(const pypi_version *v);
const char *pypi_version_dev(const pypi_version *v);

/* pypi_num_u64() : a digit string as uint64_t, saturating at UINT64_MAX. */
uint64_t pypi_num_u64(const char *digits);

/* ---- specifiers ---- */

typedef struct pypi_specset pypi_specset;

typedef enum pypi_prerelease {
    PYPI_PRE_DEFAULT = 0, /* packaging's prereleases=None */
    PYPI_PRE_YES,
    PYPI_PRE_NO,
} pypi_prerelease;

/* pypi_specset_parse() :
 *  Parse a comma-separated specifier set ("" is the empty set that matches
 *  every final release). Each item is `op version` with op one of ~= == !=
 *  <= >= < > ===; `==`/`!=` accept `.*` prefixes and local labels, `~=`
 *  needs two release segments, `===` takes any text without whitespace, `;`
 *  or `)`. Duplicates (equal after normalization) are kept once.
 *  @return a new set, or NULL (with *err naming the bad item). */
pypi_specset *pypi_specset_parse(const char *text, char **err);
void pypi_specset_free(pypi_specset *s);

size_t pypi_specset_len(const pypi_specset *s);
/* The i-th item's operator and version text (as written, trimmed), in input
 * order after duplicate removal. */
const char *pypi_specset_op(const pypi_specset *s, size_t i);
const char *pypi_specset_version(const pypi_specset *s, size_t i);
/* str(SpecifierSet): items sorted, joined by ",". Borrowed. */
const char *pypi_specset_str(const pypi_specset *s);

/* SpecifierSet.prereleases with no override: -1 (None) for the empty set,
 * else 1 if any item is an inclusive operator (== >= <= ~= ===) naming a
 * pre-release, else 0. */
int pypi_specset_prereleases(const pypi_specset *s);

/* pypi_specset_contains() : SpecifierSet.contains(v, prereleases). */
bool pypi_specset_contains(const pypi_specset *s, const pypi_version *v, pypi_prerelease pre);

/* pypi_specset_filter() :
 *  SpecifierSet.filter(versions, prereleases): keep[i] for each kept one.
 *  NULL entries in `versions` (unparseable input) are never kept. */
void pypi_specset_filter(const pypi_specset *s, const pypi_version *const *versions, size_t n,
                         pypi_prerelease pre, bool *keep);

/* ---- string conveniences (used by indexes/version.c) ---- */

/* 0 on success; -1 if `a` is not a valid PEP 440 version, -2 if `b` is not;
 * *err then gets a malloc'd message (caller frees). *cmp <0, 0, >0. */
int pypi_version_cmp_str(const char *a, const char *b, int *cmp, char **err);

/* packaging's SpecifierSet(specset).filter(versions) with prereleases=None:
 * keep[i] true for each kept version. 0, or -1 if specset is invalid (*err
 * malloc'd). Invalid versions are never kept (and do not count as matches
 * for the pre-release fallback). */
int pypi_filter(const char *specset, const char *const *versions, size_t n, bool *keep, char **err);

/* ---- shared helpers for pep508 (module-internal) ---- */

/* pypi_spec_match() :
 *  Length of the longest-first match of one specifier (operator + version,
 *  no leading whitespace) at the start of `s`, the way packaging's tokenizer
 *  matches its SPECIFIER token; 0 if none. */
size_t pypi_spec_match(const char *s);

/* pypi_spec_contains_str() :
 *  Specifier(spec).contains(version, prereleases=True) for one specifier
 *  (no comma splitting), as marker evaluation uses it: 1 or 0; -1 if `spec`
 *  is not one valid specifier; -2 if `version` is not a valid version. */
int pypi_spec_contains_str(const char *spec, const char *version);

/* Python's str.isspace for the code point starting at `s`: the byte length
 * of that whitespace character, or 0. */
size_t pypi_space_len(const char *s);

/* Python's str.strip() on [*start, *end): moves both ends past whitespace. */
void pypi_strip(const char **start, const char **end);

#endif

/* envlock/version.h — the four ecosystems' version semantics, for users and
 * scripts (`envlock version ...`). Part of envlock.h. */
#ifndef ENVLOCK_VERSION_H
#define ENVLOCK_VERSION_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum el_ecosystem {
    EL_ECO_PYPI, /* PEP 440 versions, PEP 440 specifier sets */
    EL_ECO_NPM,  /* node-semver versions and ranges */
    EL_ECO_DEB,  /* Debian versions (dpkg) and relations such as ">= 1.0" */
    EL_ECO_CONDA /* conda versions (VersionOrder) and version specs */
} el_ecosystem;

/* el_ecosystem_parse() :
 *  "pypi", "npm", "deb" (also "debian", "apt") or "conda". Returns 0, or -1
 *  if unknown. */
EL_API int el_ecosystem_parse(const char *name, el_ecosystem *out);

/* el_version_compare() :
 *  Compares two versions under the ecosystem's ordering; *cmp is <0, 0 or >0.
 *  npm compares strictly-parsed versions with loose fallback as node-semver's
 *  `compare(a, b, {loose: true})`. An unparsable version is EL_SPEC_INVALID with
 *  detail {reason: "invalid_version", requested}. */
EL_API el_code el_version_compare(el_ctx *ctx, el_ecosystem eco, const char *a,
                                  const char *b, int *cmp);

/* el_version_filter() :
 *  Marks keep[i] for each versions[i] that satisfies `range`:
 *  - pypi: packaging's SpecifierSet(range).filter(versions): pre-releases only
 *    when the specifier names one, or when nothing else matches; invalid
 *    versions never match.
 *  - npm: semver.satisfies(v, range) for each; invalid versions never match.
 *  - deb: a relation "OP VERSION" (OP one of << <= = >= >>, also < and > as
 *    dpkg's deprecated aliases) or an empty range (any).
 *  - conda: a version spec as conda's VersionSpec (">=1.2,<2|==3", "1.2.*",
 *    "~=1.4", "1.0|1.2"); invalid versions never match.
 *  An unparsable range is EL_SPEC_INVALID with detail {reason:"invalid_range"}. */
EL_API el_code el_version_filter(el_ctx *ctx, el_ecosystem eco, const char *range,
                                 const char *const *versions, size_t n, bool *keep);

#ifdef __cplusplus
}
#endif
#endif

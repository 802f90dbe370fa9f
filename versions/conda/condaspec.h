/* condaspec.h — conda match specs (el_conda_grammar): the strings of
 * environment.yml dependencies and of repodata `depends`/`constrains`,
 * parsed as conda's MatchSpec parses them:
 *
 *   numpy                      any version
 *   numpy 1.2.*                version spec (condaver.h)
 *   numpy >=1.2,<2|==3         blanks inside the version are dropped
 *   numpy 1.2 py39_0           version, then build (glob or ^regex$)
 *   numpy=1.2                  "1.2*" (starts with 1.2); numpy==1.2 exact
 *   numpy=1.2=py39*            version exactly 1.2, build py39*
 *   conda-forge::numpy         channel (a name or URL), optionally with
 *   conda-forge/linux-64::numpy   a subdir
 *   numpy[version='>=1.2,<2', build=py*, build_number='>=3']
 *                              brackets override the fields outside them
 *                              (not the name); keys: version, build,
 *                              build_number, channel, subdir, md5, sha256,
 *                              fn, url, license, license_family,
 *                              track_features, features
 *   numpy  # a comment         `#` starts a comment
 *
 * Refused, each with a column (where conda would drop or guess): a
 * parenthesized `(...)` part outside brackets (conda silently deletes it),
 * ` if ` conditions (conda ignores them), package file names and URLs as
 * specs, `feature@` specs, a channel URL with credentials, unknown or
 * repeated bracket keys, a bracket pair with blanks around `=` (conda skips
 * it), a `[` inside a bracket value or a build (conda cuts the spec there),
 * text after the brackets, a build_number that is not OP integer. Like
 * conda: a leading blank or a control character inside the spec is
 * refused; `build_number='=3'` is `==3`; a bracket version is sanitized as
 * if no build were given (`[version='=1.2', build=x]` is 1.2*); a bracket
 * channel replaces the outside one, keeping the outside subdir unless it
 * names its own, and `subdir=` wins over both. Names follow CEP 26
 * (lower-cased; `__virtual` names; `*` globs unchecked). Specs over
 * CONDA_MATCHSPEC_MAX bytes are refused: they are lines of hostile
 * repodata. tests/conda/conda_match_cases.txt holds conda's own answers. */
#ifndef EL_CONDASPEC_H
#define EL_CONDASPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "condaver.h"

#define CONDA_MATCHSPEC_MAX 4096

typedef struct conda_matchspec {
    char *name;         /* lower-cased; may be a glob ("*") */
    char *channel;      /* NULL, a channel name or URL (no trailing `/`) */
    char *subdir;       /* NULL or e.g. "linux-64" */
    char *version;      /* NULL (any) or the version spec text as conda keeps it */
    conda_vspec *vspec; /* parsed `version`, NULL when version is NULL */
    char *build;        /* NULL, an exact build string, a glob or ^regex$ */
    char *build_number; /* NULL, an integer, or OP integer */
    char *md5, *sha256, *fn, *url, *license, *license_family, *track_features, *features;
    size_t name_column;    /* 1-based columns in the spec text */
    size_t version_column; /* 0 when absent */
    size_t build_column;
} conda_matchspec;

/* conda_matchspec_parse() :
 *  @return a new spec (free with conda_matchspec_free()), or NULL with *err
 *  (a 1-based column into `text` and a static message). */
conda_matchspec *conda_matchspec_parse(const char *text, size_t len, conda_error *err);
void conda_matchspec_free(conda_matchspec *ms);

/* conda_matchspec_match() :
 *  Whether a record (name, version text, build string, build number)
 *  satisfies the name, version, build and build_number parts of `ms`
 *  (channel, subdir and the hash fields are the reader's to check). */
bool conda_matchspec_match(const conda_matchspec *ms, const char *name, const char *version,
                           const char *build, uint64_t build_number);
/* conda_matchspec_match_parsed() : the same with the version already
 *  parsed (`v`, NULL when `version` is not a conda version), for callers
 *  that match one record against many specs. */
bool conda_matchspec_match_parsed(const conda_matchspec *ms, const char *name,
                                  const conda_version *v, const char *version, const char *build,
                                  uint64_t build_number);

/* conda_name_valid() : a CEP 26 package name (already lower-case), or a
 *  `__virtual` one. */
bool conda_name_valid(const char *name, size_t len);

#endif

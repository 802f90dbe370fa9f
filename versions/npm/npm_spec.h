/* npm_spec.h — npm package names and registry dependency specs as a user
 * writes them on a command line (`zod`, `zod@^3`, `@types/node@20.1.0`,
 * `react@next`). Git URLs, tarballs, paths and `npm:` aliases are not
 * registry specs and are refused with a message saying so. */
#ifndef EL_NPM_SPEC_H
#define EL_NPM_SPEC_H

#include <stdbool.h>
#include <stddef.h>

/* npm_name_check() flags: accept names npm still serves but no longer
 * lets anyone publish (capital letters, more than 214 characters, the
 * characters ~'!()* ). Without it the rules for new packages apply. */
#define NPM_NAME_LEGACY 1u

/* npm_name_check() :
 *  0 if `name` is a valid npm package name: non-empty, URL-safe characters
 *  (for `@scope/name` each half separately), not starting with `.` or `_`,
 *  not `node_modules` / `favicon.ico`, and (without NPM_NAME_LEGACY)
 *  lowercase, at most 214 characters, none of ~'!()*. Node core module
 *  names (`events`, `buffer`) are accepted: they are real registry packages.
 *  @return 0, or -1 with *err malloc'd (caller frees; err may be NULL). */
int npm_name_check(const char *name, unsigned flags, char **err);

typedef enum npm_spec_kind {
    NPM_SPEC_TAG,     /* a dist-tag; `name` alone means the tag "latest" */
    NPM_SPEC_VERSION, /* one exact version */
    NPM_SPEC_RANGE    /* a semver range */
} npm_spec_kind;

/* A parsed registry spec; all strings owned (npm_pkgspec_release()). */
typedef struct npm_pkgspec {
    char *name;     /* full name, "@scope/pkg" or "pkg" */
    char *scope;    /* "scope" without the @, or NULL */
    npm_spec_kind kind;
    char *spec;     /* the text after `@` as written ("latest" if none) */
    char *normalized; /* VERSION: semver.valid(spec, loose); RANGE:
                       * validRange(spec, loose); TAG: the tag */
    bool implicit;  /* no `@...` was written */
} npm_pkgspec;

/* npm_pkgspec_parse() :
 *  Split `text` into name and version/range/tag the way npm-package-arg
 *  does for registry specs: after the name, a loose-valid version is a
 *  version, else a loose-valid range is a range, else a URL-safe word is a
 *  tag. The name follows npm_name_check() without NPM_NAME_LEGACY.
 *  @return 0 and *out filled, or -1 with *err malloc'd and *out zeroed. */
int npm_pkgspec_parse(const char *text, npm_pkgspec *out, char **err);
void npm_pkgspec_release(npm_pkgspec *s);

/* npm_alias_split() :
 *  For a dependency value `npm:NAME` or `npm:NAME@RANGE` (an alias, as
 *  package.json writes it), the real package's NAME (*name, *name_len
 *  bytes; a scope's `@` is part of it) and the text after its `@` (*range,
 *  NULL when none); false when `spec` is no alias. Nothing is checked. */
bool npm_alias_split(const char *spec, const char **name, size_t *name_len, const char **range);

/* npm_pkgspec_check() :
 *  0 if `text` is a valid npm dependency spec as a user writes it on a
 *  command line (see npm_pkgspec_parse()); -1 and a malloc'd message
 *  otherwise. */
int npm_pkgspec_check(const char *text, char **err);

#endif

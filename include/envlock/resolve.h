/* envlock/resolve.h — from a spec to a lock (`envlock resolve`), and
 * whether a lock still answers a spec (`envlock check`). Part of envlock.h;
 * include that instead.
 *
 * A resolve reads the approved bases catalog (corpus/bases/bases.yaml by
 * default, installed as share/envlock/bases/; el_resolve_options.bases_path
 * overrides it),
 * finds the spec's base, merges the base's protected pins, fetches what the
 * roots need through the cache (mirrors and --offline apply), solves once
 * for PyPI, npm and apt together, and writes the lock atomically. */
#ifndef ENVLOCK_RESOLVE_H
#define ENVLOCK_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "cache.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct el_resolve_options {
    const char *spec_path;   /* where the spec was read from: its text gives the
                                roots' positions, and the default lock path is
                                el_default_lock_path() of it; NULL: no
                                positions, and the default lock is
                                ./envlock.lock */
    const el_spec_options *spec_opts; /* as the spec was loaded (for positions); may be NULL */
    const char *lock_path;   /* where to write the lock; NULL: the default above */
    const char *bases_path;  /* the bases catalog; NULL: the one installed with the library */
    const struct el_bases *bases; /* the catalog already loaded (el_bases_load(),
                                     borrowed) that the spec was validated
                                     against; NULL: read bases_path */
    const char *exclude_newer; /* RFC 3339 date-time, date, or a span back from
                                now ("7d", "12h"); NULL: no cutoff. A span is
                                turned into the absolute instant, which the lock
                                records, so the answer depends on the clock. */
    bool upgrade_all;        /* ignore the existing lock's versions */
    const char *const *upgrade; /* names freed from the existing lock ("numpy",
                                "pypi:numpy", "npm:zod", "deb:libpq5") */
    size_t n_upgrade;
    const char *debug_solver_dir; /* write libsolv's testcase of the solve here */
    bool explain_full;       /* conflicts: the whole derivation, not a few lines */
    const char *prerelease;  /* uv's pre-release mode: "disallow", "allow",
                                "if-necessary", "explicit",
                                "if-necessary-or-explicit"; NULL: the spec's
                                manager's default (uv: if-necessary-or-explicit;
                                pip: pip's rule, recorded as "pip"). EL_USAGE
                                for another name */
    /* Build options, as uv and pip have them; recorded in the lock. Names
     * any spelling, ":all:" for every project; a name in both lists (or
     * ":all:" in both) is EL_USAGE; a name beats the other list's ":all:". */
    bool no_build;           /* no sdist is used (--no-build) */
    const char *const *only_binary; /* no sdist for these (--only-binary) */
    size_t n_only_binary;
    const char *const *no_binary;   /* no wheel for these (--no-binary) */
    size_t n_no_binary;
    /* Advisories in the solve (docs/cli.md): a directory of OSV records,
     * or NULL for none. vulnerable: "avoid" (the default: affected versions
     * lose to any unaffected one that fits; one kept is a note), "block"
     * (kept is DL_ENV_SCAN_BLOCKED) or "allow" (not steered, noted);
     * ignore: advisory ids or aliases accepted as risks (recorded). */
    const char *advisories_dir;
    const char *vulnerable;
    const char *const *ignore;
    size_t n_ignore;
    /* The organization policy file (docs/policy.md), or NULL for none: its
     * denied versions are kept out of the solve (DL_ENV_POLICY_DENIED when
     * nothing else satisfies the spec), its index, registry and apt source
     * prefixes bound where packages come from. */
    const char *policy_path;
    /* Statistics of the run, one line of text at a time (solves and their
     * pool sizes, crawl runs and their requests, parsed forms read and
     * written, the npm crawl's depths), for benchmarks and tests; valid
     * during the call only. NULL: none are gathered. */
    void (*stats)(void *user, const char *line);
    void *stats_user;
} el_resolve_options;

typedef struct el_resolve_result {
    char *lock_path;                    /* where the lock was written; el_free() */
    char lock_digest[EL_DIGEST_SIZE];   /* "sha256:" of the lock file's bytes */
    char spec_digest[EL_DIGEST_SIZE];
    char exclude_newer[32];             /* the normalized cutoff, or "" */
    size_t n_pypi, n_npm, n_deb;        /* locked packages per ecosystem */
    size_t n_installed_in_base;         /* of which already in the base image */
    size_t n_spec;                      /* of all: the spec asks for them (roots) */
    size_t n_protected;                 /* the base's protected pins, not asked for */
    size_t n_dependencies;              /* the rest: reached only as dependencies */
    bool kept_previous;                 /* an existing lock was read as the preference */
    char **notes;                       /* things the user should know (a dropped
                                           pin that agreed); n_notes of them */
    size_t n_notes;
    size_t n_conda;                     /* locked conda packages (an environment.yml) */
} el_resolve_result;

/* el_resolve() :
 *  Resolves `spec` (which must have no findings) and writes the lock. An
 *  existing lock at the lock path is read first and its versions preferred
 *  (unless upgrade_all); a malformed one is an error (upgrade_all ignores it).
 *  Fills *res (release it with el_resolve_result_clear(), also after a
 *  failure). On failure nothing is written and ctx says why: the spec's
 *  findings, the catalog's problems, DL_ENV_SPEC_INVALID for an unknown base
 *  or channel, DL_ENV_ARTIFACT_MISSING for an unpublished variant,
 *  DL_ENV_PROTECTED_PACKAGE for a user pin against a protected one,
 *  DL_ENV_RESOLVE_CONFLICT / DL_ENV_PACKAGE_NOT_FOUND from the solve, or a
 *  fetch failure. EL_USAGE for a malformed exclude_newer, and, before any
 *  work, for a lock path that is the spec's own file (same inode; stdin
 *  when spec_path is "-"), empty, a directory, not a regular file, or in a
 *  directory that does not exist (none is made). EL_IO when the cache or
 *  the lock cannot be written (retryable for a full disk). */
EL_API el_code el_resolve(el_ctx *ctx, const el_cache_options *co, const el_spec *spec,
                          const el_resolve_options *o, el_resolve_result *res);
EL_API void el_resolve_result_clear(el_resolve_result *res);

typedef struct el_check_options {
    const char *spec_path;   /* for positions only; may be NULL */
    const el_spec_options *spec_opts;
    const char *bases_path;  /* as el_resolve_options.bases_path */
    const struct el_bases *bases; /* as el_resolve_options.bases */
    const char *exclude_newer; /* the cutoff the lock should have been made
                                with; NULL: take the lock's own */
    const char *advisories_dir; /* an OSV snapshot, or NULL: an advisory
                                   that affects a locked version and that
                                   the lock did not know of is a difference */
    const char *policy_path; /* the organization policy (docs/policy.md), or
                                NULL: a locked version it denies, or one from
                                a source outside its prefixes, is a
                                difference (the lock is stale) */
} el_check_options;

/* One difference `check` found: its line of the report (`text`), and what
 * changed for a tool: `kind` (spec, target, option, input, requirement,
 * dependency, package, artifact, policy, advisory), `path` (a spec or lock
 * field, an input's URL, a requirement, "ecosystem:name@version"), and the
 * value in the lock (`before`) and now (`after`), NULL where the change has
 * no single value (docs/cli.md, check). */
typedef struct el_check_change {
    char *kind, *path, *before, *after, *text;
} el_check_change;

typedef struct el_check_result {
    bool stale;      /* the lock is no longer a valid answer */
    char *report;    /* one line per difference ("\n"-terminated), "" if none; el_free() */
    el_check_change *changes; /* the same differences, n_changes of them, in
                                 the report's order */
    size_t n_changes;
    char lock_digest[EL_DIGEST_SIZE];
    char spec_digest[EL_DIGEST_SIZE];
    char **notes;    /* what was not compared and why (an input offline and not
                        in the cache); n_notes of them; they do not make the
                        lock stale */
    size_t n_notes;
} el_check_result;

/* el_check() :
 *  Is the lock at `lock_path` still a valid answer for `spec`: every
 *  requirement satisfied by a locked version, the target (base, digests,
 *  Python, platform), the options and the inputs unchanged? The inputs
 *  (every index page, packument and Release the lock records) are read
 *  through the cache `co` opens, mirrors applied, in one parallel run: a
 *  changed ETag, modified time or Release hash, or an input its index no
 *  longer serves, makes the lock stale. With co->offline nothing goes to
 *  the network: inputs are compared with what the cache holds, and one it
 *  does not hold is a note, not a difference. A stale lock is an answer
 *  (EL_OK with res->stale), also for a spec whose only findings say its
 *  uv.lock no longer answers its pyproject.toml (RESOLVE_CONFLICT at
 *  spec.build.dependencyFile.lockContent, one report line each: nothing
 *  else is compared until `uv lock` runs); errors are a spec with other
 *  findings, an unreadable
 *  or malformed lock, the base resolution errors of el_resolve(), and an
 *  input that could not be read online (unreachable, timeout, an HTTP
 *  error: the fetch's DL_ENV code and detail). Release with
 *  el_check_result_clear(). */
/* el_default_lock_path() :
 *  Where a spec's lock goes when no path is given: beside the spec, named
 *  after it with its extension replaced by `.lock` (`geo.yaml` ->
 *  `geo.lock`, `env` -> `env.lock`), so that two specs in one directory
 *  never share a lock; ./envlock.lock for stdin ("-", NULL, /dev/...).
 *  Caller frees with el_free(). */
EL_API char *el_default_lock_path(const char *spec_path);

EL_API el_code el_check(el_ctx *ctx, const el_cache_options *co, const el_spec *spec,
                        const char *lock_path, const el_check_options *o, el_check_result *res);
EL_API void el_check_result_clear(el_check_result *res);

/* el_exclude_newer_normalize() :
 *  The absolute cutoff an exclude_newer value means now:
 *  "YYYY-MM-DDTHH:MM:SSZ" in out. EL_USAGE with a message for anything else. */
EL_API el_code el_exclude_newer_normalize(el_ctx *ctx, const char *value, char out[32]);

/* el_policy_check_spec() :
 *  The spec's own sources against an organization policy (docs/policy.md),
 *  as `validate --policy` reports them before anything is fetched: each
 *  PyPI index (the default one when the spec writes none) when the spec
 *  has Python packages, the npm registry when it has npm packages, and
 *  each of spec.packages.system.sources, against the policy's prefixes.
 *  EL_OK when all are allowed; else EL_POLICY_DENIED (detail reason
 *  source_denied, `findings` as el_spec_validate() gives them, each at the
 *  spec's line and column, naming the policy rule's place). A policy that
 *  does not load fails as `resolve --policy` does. The base's own apt
 *  sources are the catalog's, checked by resolve. */
EL_API el_code el_policy_check_spec(el_ctx *ctx, const el_spec *spec, const char *policy_path);

#ifdef __cplusplus
}
#endif
#endif

/* envlock/audit.h — `envlock audit`: every locked (package, version) that an
 * advisory of an offline OSV snapshot affects. Part of envlock.h. */
#ifndef ENVLOCK_AUDIT_H
#define ENVLOCK_AUDIT_H

#include <stddef.h>
#include "error.h"

struct el_spec;

#ifdef __cplusplus
extern "C" {
#endif

typedef struct el_audit_options {
    const char *advisories_dir;  /* the OSV snapshot (as el_resolve_options) */
    const char *const *ignore;   /* advisory ids or aliases accepted as risks */
    size_t n_ignore;
    /* --max-age: a snapshot whose newest `modified` is more than
     * max_age_days before `now` (seconds since 1970, UTC; the caller's
     * clock, so the library reads none) cannot audit. 0: no limit. */
    unsigned max_age_days;
    long long now;
    /* The lock's spec (optional, borrowed): each finding is then placed at
     * the spec entry that brings its package in. Its digest must be the
     * lock's specDigest (else EL_USAGE: its lines would point elsewhere). */
    const struct el_spec *spec;
} el_audit_options;

typedef struct el_audit_finding {
    char *ecosystem, *name, *version; /* the locked package */
    char *advisory;                   /* the record's id */
    char *aliases;                    /* comma-separated, "" when none */
    char *summary, *severity, *fixed; /* "" when the record does not say */
    char *chain;                      /* "spec → pypi:a@1 → pypi:b@2" from the lock's requestedBy */
    char *source;                     /* deb: "glibc 2.36-9+deb12u1", the source package the
                                         advisory names (and `fixed` is a version of), when
                                         it is not the binary; "" otherwise */
    unsigned lock_line;               /* the package's line in the lock */
    char *spec_field;                 /* with options.spec: the entry bringing the package in
                                         ("spec.packages.python.dependencies[0]"), else "" */
    unsigned spec_line, spec_column;  /* its 1-based position in the spec's text, or 0 */
} el_audit_finding;

typedef struct el_audit_result {
    el_audit_finding *findings; /* by ecosystem, name, version, advisory */
    size_t n_findings;
    char snapshot[72];          /* "sha256:..." of the snapshot read */
    size_t n_records;           /* records of PyPI, npm and Debian:12 in it */
    size_t n_packages;          /* packages of the lock judged */
    char newest[40];            /* the snapshot's newest `modified`, "" if none */
} el_audit_result;

/* el_audit() :
 *  Reads the lock at `lock_path` and the snapshot, and lists every affected
 *  package in *res (release with el_audit_result_clear(), also after a
 *  failure). Debian packages are judged by the source package and version
 *  the lock records, else by their own. EL_OK with or
 *  without findings; a failure means nothing was judged: EL_USAGE without a
 *  snapshot, EL_IO for one that cannot be read, DL_ENV_SPEC_INVALID for a
 *  malformed record or lock, DL_ENV_ARTIFACT_MISSING (detail.reason
 *  `advisories_stale`) for a snapshot older than max_age_days or with no
 *  `modified` time to judge its age by. */
EL_API el_code el_audit(el_ctx *ctx, const char *lock_path, const el_audit_options *o,
                        el_audit_result *res);
EL_API void el_audit_result_clear(el_audit_result *res);

#ifdef __cplusplus
}
#endif
#endif

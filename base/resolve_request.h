/* resolve_request.h — what the base stage hands the resolver: the target,
 * the roots as the user wrote them with their spec positions (protected pins
 * already merged), where to read indexes, and the options. base_request.c
 * builds it from a spec and the catalog; resolver_resolve() takes it. Not
 * part of the public API. */
#ifndef EL_RESOLVE_REQUEST_H
#define EL_RESOLVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"
#include "lock.h"
#include "base.h"

typedef enum resolve_root_kind {
    ROOT_REQUIREMENT, /* must be installed (spec dependency, or a protected pin) */
    ROOT_CONSTRAINT   /* restricts versions if installed (spec constraint, protected pin as constraint) */
} resolve_root_kind;

typedef struct resolve_root {
    const char *ecosystem;   /* "pypi" | "npm" | "deb" | "conda" */
    const char *text;        /* as written: "numpy==1.21.0", "zod@^3", "gdal-bin",
                                "libpq-dev=15.8-0+deb12u1", "numpy >=1.26" (a conda match spec) */
    resolve_root_kind kind;
    bool protected_pin;      /* comes from the base's protected pins */
    const char *field;       /* "spec.packages.python.dependencies[3]" or "protected" */
    unsigned line, column;   /* spec position, 0 if none */
    bool shared;             /* a version another target's lock holds, pinned so
                                that one lock serves every target (verbs'
                                multi-target resolve): in no requestedBy */
} resolve_root;

/* One version as the solve's gates (advisories, policy) see it. */
typedef struct resolve_version {
    const char *eco;         /* "pypi", "npm" or "deb" */
    const char *name, *version;
    const char *src, *src_version; /* deb: the source package (the Packages
                                      `Source:` field, else the binary's own
                                      name and version), which is what Debian
                                      advisories name; NULL otherwise */
    const char *published;   /* its release time (RFC 3339: PyPI's PEP 700
                                upload-time, npm's `time`), or NULL when the
                                index gives none (always for deb) */
    const char *license;     /* its license as an SPDX expression (PyPI's
                                core metadata, npm's `license`), or NULL when
                                none is declared or it is not one */
} resolve_version;

typedef struct resolve_request {
    const target_base *base;
    const char *spec_digest;
    const char *const *pypi_indexes;   /* canonical, in order */
    size_t n_pypi_indexes;
    const char *npm_registry;          /* canonical */
    const char *const *apt_sources;    /* canonical one-line sources: the base's, then the spec's */
    size_t n_apt_sources;
    const char *apt_keyring;           /* default keyring for sources without signed-by */
    const char *const *conda_channels; /* an environment.yml's `channels`, as written, in
                                          priority order; none: CONDA_DEFAULT_CHANNEL */
    size_t n_conda_channels;
    const char *const *variants;       /* the spec's variants (required + optional), sorted */
    const resolve_root *roots;
    size_t n_roots;
    /* options */
    const char *exclude_newer;         /* RFC 3339, already normalized, or NULL */
    const lock_doc *previous;          /* an existing lock: its versions are preferred, or NULL */
    bool upgrade_all;                  /* ignore `previous` */
    const char *const *upgrade;        /* names freed from `previous` ("pypi:numpy" or bare "numpy") */
    size_t n_upgrade;
    const char *debug_solver_dir;      /* write libsolv's testcase here, or NULL */
    bool explain_full;                 /* the whole derivation in conflict messages */
    const char *prereleases;           /* pre-release mode: uv's disallow, allow,
                                          if-necessary, explicit,
                                          if-necessary-or-explicit, or pip (pip's
                                          rule); NULL: if-necessary-or-explicit */
    /* build options (uv's and pip's; pypi_build_opts): names any spelling,
     * ":all:" for every project */
    bool no_build;                     /* --no-build: no sdist */
    const char *const *only_binary;    /* --only-binary: no sdist for these */
    size_t n_only_binary;
    const char *const *no_binary;      /* --no-binary: no wheel for these */
    size_t n_no_binary;
    bool prefer_binary;                /* pip's --prefer-binary (a requirements
                                          file's): a version whose file for the
                                          target is a wheel before any whose is
                                          an sdist, newest first within each */
    /* what the user should know about a successful answer (a fallback the
     * resolver took); called with the text, valid during the call only;
     * NULL: notes are dropped */
    void (*note)(void *user, const char *text);
    void *note_user;
    /* advisories (resolver_advise.c): whether a version is affected by an
     * advisory the user has not ignored (resolve_version says what is
     * known of it). NULL: no advisories. The first solve excludes affected
     * versions; if it has no answer, a second one only disfavours them (the
     * caller decides whether an affected version in the lock is a note or
     * a refusal). */
    bool (*affected)(void *user, const resolve_version *v);
    void *affected_user;
    /* policy (resolver_advise.c): whether the organization's policy denies
     * a version. Denied versions are kept out of every solve; only when no
     * answer exists without them is one made with them, for the caller to
     * refuse naming the rule. NULL: none. */
    bool (*denied)(void *user, const resolve_version *v);
    void *denied_user;
    /* npm: fetch full packuments (with `time`) even without a cutoff, for
     * a predicate that judges release times (a policy's cooldown) */
    bool publish_times;
    /* statistics lines (el_resolve_options.stats), or NULL: none */
    void (*stats)(void *user, const char *line);
    void *stats_user;
} resolve_request;

#endif

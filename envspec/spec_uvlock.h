/* spec_uvlock.h — a `pyproject` dependency file: pyproject.toml and the
 * uv.lock beside it, read as the answer (REFERENCE §3: the lock is never
 * re-solved). What the project installs on one target is selected from the
 * lock as uv's installers select it: from the project's own package (source
 * `editable = "."` or `virtual = "."`), its `dependencies` and default
 * dependency groups, each edge's marker evaluated against the target, edge
 * extras followed through `optional-dependencies`, a fork's copy chosen by
 * the edge's `version`/`source` or its `resolution-markers`; a workspace
 * member (`[manifest] members`) is walked as the project is and left out
 * of what is installed. Also checked
 * here, without the network: that the lock still answers pyproject.toml
 * (drift) and that each selected package is one an index serves by hash.
 * Shared by the base stage (the resolve request); not part of the public
 * API. */
#ifndef EL_SPEC_UVLOCK_H
#define EL_SPEC_UVLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "envlock/error.h"
#include "util.h"

struct pypi_env;

/* One file uv.lock records for a package: a wheel or its sdist. */
typedef struct spec_uvfile {
    const char *url;       /* as uv.lock writes it, or NULL */
    const char *file;      /* the URL's last segment, percent-decoded, or NULL */
    const char *hash;      /* "sha256:<hex>", or NULL */
    uint64_t size;         /* bytes, 0 when uv.lock does not say */
    bool wheel;            /* from `wheels` (else the `sdist`) */
} spec_uvfile;

/* A dependency edge the selection followed: `from` (a package's index in
 * spec_uvlock.pkgs, or -1 for the project itself) needs package `to`. */
typedef struct spec_uvedge {
    long from, to;
    const char *spec;      /* the edge as uv.lock records it, as PEP 508:
                              name, its `extra` list, its `marker`
                              ("uvicorn[standard]; sys_platform != 'win32'") */
} spec_uvedge;

typedef struct spec_uvpkg {
    const char *name;     /* PEP 503 canonical */
    const char *version;  /* as uv.lock writes it */
    const char **hashes;  /* "sha256:<hex>" of its wheels and sdist, NULL-terminated */
    size_t n_hashes;
    unsigned line, column; /* its [[package]] table in uv.lock */
    const char *registry;  /* its `source = { registry = ... }` */
    spec_uvfile *files;    /* its wheels in uv.lock's order, then its sdist */
    size_t n_files;
    const char **extras;   /* the extras the selection followed (canonical, in
                              the order taken), NULL-terminated */
} spec_uvpkg;

/* What stops the source: the first one is the error. `field` is
 * "spec.build.dependencyFile.content" (pyproject.toml) or
 * "spec.build.dependencyFile.lockContent" (uv.lock); line and column are
 * inside that text (0 when it gives none). */
typedef struct spec_uvproblem {
    el_code code;          /* RESOLVE_CONFLICT (drift), CAPABILITY_UNSUPPORTED
                              (a source envlock cannot lock by hash),
                              SPEC_INVALID (a shape uv does not write, or a
                              registry the spec does not name) */
    const char *field;
    const char *package;   /* canonical, or NULL */
    const char *at;        /* the field whose text line and column are in
                              (drift at lockContent may point into pyproject.toml) */
    unsigned line, column;
    const char *message;
} spec_uvproblem;

typedef struct spec_uvlock {
    spec_uvpkg *pkgs;      /* selected, in uv.lock's order; the project itself is not one */
    size_t n_pkgs;
    spec_uvproblem *problems;
    size_t n_problems;
    const char **members;  /* the workspace members the selection reached
                              (`[manifest] members` with an editable or
                              virtual source), canonical, in uv.lock's
                              order: source, not artifacts, so not in pkgs;
                              their edges are the project's (from -1) */
    size_t n_members;
    spec_uvedge *edges;    /* every edge followed between selected packages
                              (and from the project), in walk order: two
                              records of one pair (other markers or extras)
                              are two edges, one record reached twice one */
    size_t n_edges;
} spec_uvlock;

/* spec_uvlock_select() :
 *  Reads `pyproject` and `lock` (NUL-terminated) into `mem` and selects
 *  what the project installs where `env` holds. `indexes` (n of them) are
 *  the spec's Python indexes: a registry source that is none of them is a
 *  problem. Never fails: what it cannot take is a problem (a text that is
 *  not TOML, a lock without the project, an edge to no package, a git,
 *  path, directory, editable or direct-URL source, drift between the two
 *  files). `env` NULL is validate's reading, without a target: only edges
 *  without a marker are followed (a fork's copies not at all), which every
 *  target takes, and requires-python is not checked; what it finds there
 *  (drift, sources, registries) is what every target's resolve finds. */
spec_uvlock *spec_uvlock_select(arena *mem, const char *pyproject, const char *lock,
                                const struct pypi_env *env, const char *const *indexes,
                                size_t n_indexes);

/* spec_index_same() : two index URLs name the same index (scheme and host
 *  in any case, the rest byte for byte, trailing slashes aside). */
bool spec_index_same(const char *a, const char *b);

#endif

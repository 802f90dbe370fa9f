/* lock.h — the lock as data: what the resolver produces, what the lockfile
 * module writes canonically (YAML), reads back, digests and checks, and what
 * plans are generated from. Not part of the public API.
 *
 * Every string and array of a lock_doc lives in its arena (lock_doc.mem); a
 * lock_doc is freed whole with lock_doc_free(). Ecosystems are "deb", "npm"
 * and "pypi" (that order is also the canonical sort order). Versions are
 * the ecosystems' real version strings, never solver ranks. URLs are always
 * canonical (what the spec or base names), never a mirror's. */
#ifndef EL_LOCK_H
#define EL_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define LOCK_FORMAT_VERSION 1

typedef struct lock_artifact {
    const char *file;      /* file name: wheel/sdist, .deb, or npm tarball name */
    const char *url;       /* canonical download URL */
    const char *hash;      /* "sha256:<hex>" (wheels, sdists, debs) or the npm
                              integrity string ("sha512-<base64>") */
    uint64_t size;         /* bytes; 0 when the index does not say */
} lock_artifact;

/* A resolved dependency edge: this package needs `name` and the lock binds it
 * to `version` (for npm: the copy visible from this package's place). */
typedef struct lock_edge {
    const char *ecosystem;
    const char *name;
    const char *version;
    const char *kind;      /* "requires" (pypi), "depends"/"pre-depends"
                              (deb), "dependency"/"optional"/"peer" (npm) */
    const char *spec;      /* the requirement as the package wrote it */
} lock_edge;

typedef struct lock_package {
    const char *ecosystem; /* "deb" | "npm" | "pypi" */
    const char *name;      /* pypi: PEP 503 canonical; npm: as published; deb: package */
    const char *version;
    const char *arch;      /* deb: "amd64"/"all"; NULL otherwise */
    const char *path;      /* npm: node_modules placement ("node_modules/a/node_modules/b"); NULL otherwise */
    const char *source;    /* the canonical index/registry/apt source it came from */
    const char **extras;   /* pypi: extras installed, sorted; NULL-terminated or NULL */
    const char **requested_by; /* "spec" (a root), "protected" (a base pin) or
                              "<ecosystem>:<name>@<version>" of dependents, sorted, NULL-terminated */
    lock_edge *deps;
    size_t n_deps;
    lock_artifact *artifacts;
    size_t n_artifacts;
    bool installed_in_base; /* already in the base image (dpkg status / preinstalled dist) */
} lock_package;

/* One input whose content the lock depends on, with its snapshot identity. */
typedef struct lock_input {
    const char *ecosystem;  /* "deb" | "npm" | "pypi" */
    const char *url;        /* canonical: index page / packument / Release URL */
    const char *identity;   /* "sha256:<hex>" of Release, or ETag, or "" */
    const char *modified;   /* Release Date / Last-Modified / packument `modified`, or NULL */
} lock_input;

typedef struct lock_doc {
    arena *mem;
    int format_version;         /* LOCK_FORMAT_VERSION */
    const char *spec_digest;    /* "sha256:..." */
    /* target */
    const char *python_version; /* full, "3.13.7" */
    const char *platform;       /* most specific wheel platform tag */
    const char *arch;           /* "amd64" */
    const char *base_ref;
    const char *base_channel;
    const char **variants;      /* variant names, sorted, NULL-terminated */
    const char **base_digests;  /* parallel to variants: "sha256:..." or NULL if unpublished */
    /* options */
    const char *exclude_newer;  /* RFC 3339 or NULL */
    const char *prereleases;    /* "if-necessary-or-explicit" */
    const char **upgrade;       /* names given to --upgrade-package, sorted; NULL-terminated or NULL */
    bool upgrade_all;
    /* inputs and packages, in canonical order once lock_doc_sort() ran */
    lock_input *inputs;
    size_t n_inputs;
    lock_package *packages;
    size_t n_packages;
} lock_doc;

lock_doc *lock_doc_new(void);
void lock_doc_free(lock_doc *d);

/* lock_doc_sort() :
 *  Puts inputs (ecosystem, url) and packages (ecosystem, name, version,
 *  path) and each package's edges, artifacts, extras and requested_by into
 *  canonical byte order (strcmp, never locale). Writers call it; idempotent. */
void lock_doc_sort(lock_doc *d);

/* lock_write_text() :
 *  The canonical YAML text of `d` (sorted first). Same doc, same bytes.
 *  Caller frees. */
char *lock_write_text(lock_doc *d, size_t *len);

/* lock_write_file() :
 *  Writes the canonical text to `path` atomically (path.tmp, fsync, rename,
 *  fsync dir); on failure the old file is untouched. Fills digest_out with
 *  "sha256:" + hex of the bytes written. */
el_code lock_write_file(el_ctx *ctx, lock_doc *d, const char *path, char digest_out[72]);

/* lock_read_text() / lock_read_file() :
 *  Parse a lock back into a doc; DL_ENV_SPEC_INVALID with detail {reason:
 *  "invalid_lock", line, column} for anything malformed or of another format
 *  version. Reading then writing gives the same bytes. */
lock_doc *lock_read_text(el_ctx *ctx, const char *text, size_t len);
lock_doc *lock_read_file(el_ctx *ctx, const char *path);

/* lock_find() : the package (ecosystem, name[, version]) or NULL. */
const lock_package *lock_find(const lock_doc *d, const char *ecosystem, const char *name,
                              const char *version);

#endif

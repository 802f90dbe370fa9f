/* base.h — the approved bases as data, and the target a spec resolves
 * for. The catalog (corpus/bases/bases.yaml by default, --bases FILE or
 * the CLI's ENVLOCK_BASES to override) gives, per base ref and channel: the full Python
 * version, the platform (arch, libc and its version -> wheel platform tag),
 * per-variant image digests, apt sources with keyring and snapshot, the
 * image's dpkg status file, the Python distributions preinstalled, and the
 * protected pins. Not part of the public API. */
#ifndef EL_BASE_H
#define EL_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "envlock/spec.h"
#include "util.h"

typedef struct target_catalog target_catalog;
struct el_bases;

typedef struct target_base {
    const char *ref;            /* "datalayer/python-cpu" */
    const char *channel;        /* "2026.09" */
    const char *python_version; /* full: "3.13.7" */
    const char *arch;           /* Debian arch: "amd64" | "arm64" */
    const char *platform;       /* most specific wheel platform tag: "manylinux_2_36_x86_64" */
    bool cuda;
    const char *const *variants;      /* "datalayer", "e2b", ... NULL-terminated */
    const char *const *digests;       /* parallel: "sha256:<64 hex>" or NULL (unpublished) */
    const char *const *apt_sources;   /* one-line canonical sources ("deb [signed-by=...] URI SUITE COMP"), NULL-terminated */
    const char *apt_keyring;          /* absolute path, or NULL */
    const char *apt_snapshot;         /* "20260914T150000Z" or NULL */
    const char *dpkg_status;          /* absolute path of the image's dpkg status file, or NULL */
    const char *const *preinstalled;  /* Python dists in the image: "name==version", NULL-terminated */
    const char *const *protected_pins;/* requirement lines: "ipykernel==7.3.0", ... NULL-terminated */
    /* added with the catalog (resolve-cli) */
    const char *python_minor;   /* "3.13": what spec.language.version must say */
    const char *libc;           /* "glibc 2.36" */
    const char *repository;     /* "environments/base/python-cpu" */
    size_t n_variants;          /* entries of variants/digests */
    const char *cuda_version;   /* "12.8" (cudaVersion), or NULL: not given */
    const char *node_version;   /* "20.19.0" (node), or NULL: unknown */
    /* set only for an entry of the catalog's `images:`, which has no ref,
     * channel, variants or protected pins */
    const char *image;          /* normalized reference "python:3.11-slim", or NULL */
    const char *image_digest;   /* "sha256:<64 hex>" if the catalog records it, or NULL */
} target_base;

/* target_catalog_load() :
 *  Loads the catalog at `path` (NULL: the installed one,
 *  target_catalog_default_path()). Relative file paths inside it are resolved against the
 *  catalog's directory. DL_ENV_SPEC_INVALID with the position of what is
 *  malformed. */
target_catalog *target_catalog_load(el_ctx *ctx, const char *path);
/* target_catalog_of() : the catalog behind a public el_bases (borrowed). */
const target_catalog *target_catalog_of(const struct el_bases *bases);
void target_catalog_free(target_catalog *cat);

/* target_catalog_find() :
 *  The base for (ref, channel), with the reference's errors: unknown ref ->
 *  DL_ENV_SPEC_INVALID (detail.field spec.base.ref); unknown channel ->
 *  DL_ENV_SPEC_INVALID "`R` has no channel `C`; channels: ..." (detail.field
 *  spec.base.channel). */
const target_base *target_catalog_find(el_ctx *ctx, const target_catalog *cat, const char *ref,
                                       const char *channel);

/* target_image_normalize() :
 *  An image reference in the form the catalog's `images:` are keyed by:
 *  Docker Hub's implied parts dropped ("docker.io/library/python:3.11-slim",
 *  "library/python:3.11-slim" -> "python:3.11-slim"), ":latest" added when
 *  no tag is given, and a digest ("@sha256:...") split off into *digest
 *  (NULL when none). Both come from `mem`. */
const char *target_image_normalize(arena *mem, const char *reference, const char **digest);

/* target_catalog_image() :
 *  The catalog's `images:` entry keyed exactly `key` (a normalized
 *  reference, "e2bdev/code-interpreter:latest"), or NULL; records nothing:
 *  for a caller to whom a missing entry is no error. */
const target_base *target_catalog_image(const target_catalog *cat, const char *key);

/* target_catalog_find_image() :
 *  The catalog's entry for the image `reference` (any spelling
 *  target_image_normalize() folds), or NULL after recording
 *  DL_ENV_CAPABILITY_UNSUPPORTED (detail.reason image_not_in_catalog,
 *  detail.field spec.build.image.reference, detail.image): envlock cannot
 *  tell an image's Python, platform and installed set without its entry.
 *  A reference pinned by a digest the entry does not record is refused the
 *  same way (detail.reason image_digest_differs). */
const target_base *target_catalog_find_image(el_ctx *ctx, const target_catalog *cat,
                                             const char *reference);

/* target_base_digest() :
 *  The image digest of `variant`, or NULL after recording
 *  DL_ENV_ARTIFACT_MISSING (retryable, detail.reason base_channel_unpublished):
 *  "`R:C` has no published digest for the V variant; ...". */
const char *target_base_digest(el_ctx *ctx, const target_base *b, const char *variant);

/* target_catalog_spec_bases() :
 *  The catalog's bases as the spec rules take them (el_spec_options.bases):
 *  one per ref, in catalog order, each with its channels. The strings are
 *  borrowed from `cat`; free the view with target_catalog_spec_bases_free(). */
el_spec_base *target_catalog_spec_bases(const target_catalog *cat, size_t *n);
void target_catalog_spec_bases_free(el_spec_base *view, size_t n);

/* target_catalog_path() : the file the catalog was read from. Borrowed. */
const char *target_catalog_path(const target_catalog *cat);

/* target_catalog_default_path() : the catalog installed with the library
 *  (share/envlock/bases/bases.yaml beside the lib/ directory it was loaded
 *  from; corpus/bases/ in the source tree). Caller frees. */
char *target_catalog_default_path(void);

/* target_time_normalize() :
 *  Reads an --exclude-newer value: an RFC 3339 date-time ("2026-09-14T15:00:00Z",
 *  "2026-09-14t17:00:00.25+02:00", "2026-09-14 15:00:00Z"), a date
 *  ("2026-09-14" = its midnight UTC) or a span back from `now` ("7d", "12h",
 *  "90m", "1w2d", units s m h d w). Writes the absolute instant as
 *  "YYYY-MM-DDTHH:MM:SSZ" (UTC, fractions of a second dropped: the index
 *  readers compare whole seconds). A span makes the answer depend on the
 *  clock; the absolute cutoff is what a lock records. EL_USAGE (detail
 *  option "--exclude-newer", value) for anything else. */
el_code target_time_normalize(el_ctx *ctx, const char *text, int64_t now, char out[32]);

#endif

/* bundle.h — internal API of bundle/: from a lock and the cache, a static
 * on-prem mirror of exactly what the lock installs plus the index documents
 * it was resolved from (docs/bundle.md has the layout). Not part of the
 * public API; verbs/verb_bundle.c is its one caller.
 *
 * What it owns: the bundle's layout and its files (written atomically,
 * verified on reuse). What it must not know: an ecosystem's wire format —
 * pages are parsed and written by indexes/pypi, packuments parsed by
 * indexes/npm, Release files by indexes/apt; all fetching is cache/'s. */
#ifndef EL_BUNDLE_H
#define EL_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "lock.h"
#include "util.h"

/* An advisory snapshot to carry in DIR/advisories (docs/bundle.md,
 * "Advisories"). bundle/ copies files and knows nothing of OSV: the caller
 * lists them and checks the copy. */
typedef struct bundle_snapshot {
    const char *src;            /* the snapshot directory */
    const char *const *files;   /* its record files, relative to src, sorted */
    size_t n_files;
    size_t (*max_bytes)(const char *rel); /* each file's size cap */
    /* Called once the copy is in place, before the README: whether
     * `copy` (DIR/advisories) is the same snapshot; false after recording
     * the failure on ctx. */
    bool (*verify)(el_ctx *ctx, const char *copy, void *user);
    void *user;
} bundle_snapshot;

#define BUNDLE_ADVISORIES "advisories" /* the snapshot's folder in DIR */

typedef struct bundle_options {
    const char *out_dir;   /* DIR; made if missing */
    const char *base_url;  /* where DIR will be served, for README and the
                              mirror lines; NULL: http://localhost:8080 */
    const char *sign_key;  /* an Ed25519 private key (PEM): DIR/SHA256SUMS and
                              its signature are written last; NULL: none */
    const bundle_snapshot *advisories; /* NULL: none carried */
} bundle_options;

/* One CANONICAL=URL pair that points envlock at the bundle. */
typedef struct bundle_mirror {
    char *ecosystem;       /* "deb" | "npm" | "pypi" */
    char *canonical;       /* the lock's index, registry or archive URI, no
                              trailing '/' */
    char *path;            /* its tree in DIR ("pypi/simple", "npm", "apt") */
} bundle_mirror;

typedef struct bundle_stats {
    size_t written;        /* files written (missing or different before) */
    uint64_t written_bytes;
    size_t reused;         /* files already there with the right bytes */
    uint64_t reused_bytes;
    size_t artifacts;      /* locked artifacts in the bundle */
    size_t documents;      /* index documents (pages, packuments, Release, Packages) */
    size_t metadata;       /* .metadata files */
    uint64_t requests;     /* completed cache requests */
    uint64_t network;      /* of which went over the network */
    uint64_t network_bytes;
    bundle_mirror *mirrors; /* sorted by canonical */
    size_t n_mirrors;
    size_t signed_files;   /* files SHA256SUMS lists (with sign_key) */
    size_t advisories;     /* snapshot files carried in DIR/advisories */
} bundle_stats;

/* bundle_write() :
 *  Fetches through `c` every index document the lock's inputs name and
 *  every artifact of every package not installed in the base, verifies
 *  each (sha256, npm integrity), and writes them under o->out_dir with the
 *  generated PyPI pages and DIR/README. Files that already hold the right
 *  bytes are left alone (a rerun writes only what is missing or wrong).
 *  Failures do not stop the other transfers; the first one is returned:
 *   EL_ARTIFACT_MISSING  an artifact whose bytes do not have the locked
 *                        hash (detail.reason hash_mismatch, .artifact,
 *                        .url, .source, .expected), or that its index
 *                        no longer lists (reason not_listed)
 *   EL_PACKAGE_NOT_FOUND a fetch that failed (the cache's reasons:
 *                        http_status, truncated, too_slow, ...; retryable
 *                        as the cache says), detail.artifact naming it
 *   EL_IO                DIR or a file in it could not be written
 *                        (detail.path, detail.errno; ENOSPC retryable)
 *   EL_SPEC_INVALID      the lock names a file or path that cannot be a
 *                        plain name under DIR (detail.reason unsafe_path)
 *   EL_POLICY_DENIED     an advisory snapshot file that is a link, not a
 *                        regular file, or over its cap (detail.reason
 *                        not_a_file, too_large; detail.file), or a copy
 *                        the snapshot's verify() refuses
 *  st is filled in any case; free its mirrors with bundle_stats_clear(). */
el_code bundle_write(el_ctx *ctx, cache *c, const lock_doc *lock, const bundle_options *o,
                     bundle_stats *st);
void bundle_stats_clear(bundle_stats *st);

/* bundle_sign() :
 *  Writes DIR/SHA256SUMS ("HEX  PATH" for every other file of DIR, in byte
 *  order, as sha256sum writes it) and DIR/SHA256SUMS.sig (the raw 64-byte
 *  Ed25519 signature of SHA256SUMS by the private key at key_path).
 *  `only` (relative paths, sorted here; NULL: any) lists what the caller wrote or
 *  verified: a file of DIR outside it is not vouched for but refused,
 *  EL_POLICY_DENIED reason not_written (it was planted, or is left from
 *  another lock). EL_POLICY_DENIED (reason not_a_file) for an entry that
 *  is not a regular file or directory; EL_USAGE for a key that is not one;
 *  EL_IO. */
el_code bundle_sign(el_ctx *ctx, const char *dir, const char *key_path, ptrvec *only,
                    size_t *n_files);

/* bundle_verify() :
 *  Checks DIR/SHA256SUMS.sig against SHA256SUMS with the key at key_path
 *  (public or private PEM), then that every listed file holds its sha256
 *  and that nothing else is there. EL_POLICY_DENIED with detail.reason
 *  unsigned, bad_signature or tampered and detail.file; EL_USAGE; EL_IO. */
el_code bundle_verify(el_ctx *ctx, const char *dir, const char *key_path, size_t *n_files);

#endif

/* envlock/bundle.h — a static on-prem mirror of one lock (`envlock
 * bundle`). Part of envlock.h; include that instead.
 *
 * Everything is fetched through the cache (el_cache_options: --mirror,
 * --offline, retries, parallel transfers, progress reports) and verified
 * before it is written; docs/bundle.md describes the tree and how to serve
 * it. */
#ifndef ENVLOCK_BUNDLE_H
#define ENVLOCK_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct el_bundle_options {
    const char *out_dir;     /* DIR, required (made with its parents if missing) */
    const char *base_url;    /* where DIR will be served, for DIR/README and the
                                mirror lines; NULL: http://localhost:8080 */
    const char *sign_key;    /* an Ed25519 private key (PEM, as for `cache
                                export --sign`): DIR/SHA256SUMS and
                                DIR/SHA256SUMS.sig are written last; NULL: none */
    const char *advisories;  /* an OSV snapshot directory (as for `audit
                                --advisories`) to carry in DIR/advisories; it
                                must be the one the lock records
                                (advisories.snapshot). NULL: none */
} el_bundle_options;

/* One CANONICAL=URL pair that points envlock at the bundle. */
typedef struct el_bundle_mirror {
    char *ecosystem;         /* "deb" | "npm" | "pypi" */
    char *canonical;         /* the lock's index, registry or archive URI */
    char *url;               /* base_url + "/" + its tree ("pypi/simple", "npm", "apt") */
} el_bundle_mirror;

typedef struct el_bundle_result {
    char lock_digest[EL_DIGEST_SIZE]; /* "sha256:<hex>" of the lock's bytes */
    char *out_dir;
    size_t written;          /* files written this run (missing or wrong before) */
    uint64_t written_bytes;
    size_t reused;           /* files already there with the right bytes */
    uint64_t reused_bytes;
    size_t artifacts;        /* locked artifacts in the bundle */
    size_t documents;        /* index documents (pages, packuments, Release, Packages) */
    size_t metadata;         /* PEP 658 .metadata files */
    uint64_t requests;       /* fetches asked of the cache */
    uint64_t network;        /* of which went over the network */
    uint64_t network_bytes;
    el_bundle_mirror *mirrors; /* sorted by canonical */
    size_t n_mirrors;
    size_t signed_files;     /* with sign_key: the files SHA256SUMS lists */
    size_t advisory_files;   /* with advisories: the snapshot's files carried */
    char advisories_snapshot[EL_DIGEST_SIZE]; /* with advisories: "sha256:<hex>",
                                the lock's advisories.snapshot; else "" */
} el_bundle_result;

/* el_bundle() :
 *  Writes into o->out_dir a mirror of the lock at `lock_path`: for every
 *  package not installed in the base, each artifact (wheels and sdists,
 *  npm tarballs, .debs), verified against the lock's hash; and every index
 *  document the lock's inputs name, as the readers ask for it (PyPI pages
 *  rewritten as PEP 691 + PEP 503 with relative links and every file the
 *  page listed, with their .metadata files; npm packuments and apt Release
 *  and Packages files byte for byte). Download URLs come from the index
 *  documents read now (a PyPI page, an npm packument), except a .deb's,
 *  which is the lock's. Every file is written atomically; a file that
 *  already holds the right bytes is left alone, so a rerun after any
 *  failure fetches only what is missing or wrong. The other transfers go
 *  on after a failure; the first failure is returned:
 *    EL_USAGE             no out_dir, or it is empty
 *    DL_ENV_SPEC_INVALID  the lock cannot be read, or names a path that is
 *                         not a plain name under DIR (reason unsafe_path)
 *    DL_ENV_ARTIFACT_MISSING  an artifact's bytes do not have the locked
 *                         hash (detail.reason hash_mismatch, .artifact
 *                         "ECOSYSTEM NAME VERSION FILE", .url, .source: the
 *                         page, packument or "the lock" the URL came from,
 *                         .expected), or its index no longer lists it
 *                         (not_listed, index_changed)
 *    DL_ENV_PACKAGE_NOT_FOUND a fetch failed (detail.reason from the cache:
 *                         http_status, truncated, too_slow, timeout,
 *                         offline_cache_miss, ...; .artifact names it)
 *    EL_IO                a file or directory of DIR could not be written
 *                         (detail.path, .errno; a full disk is retryable)
 *  With o->advisories, before anything is written: DL_ENV_SPEC_INVALID when
 *  a record is malformed (detail.findings), or the lock records no snapshot
 *  or another one (detail.reason advisories_not_locked, advisories_mismatch;
 *  detail.field advisories.snapshot, .expected, .actual); EL_IO when it
 *  cannot be read. Its files are then copied byte for byte into
 *  DIR/advisories (DL_ENV_POLICY_DENIED for a link, a non-regular file or
 *  one over the loader's cap: detail.reason not_a_file, too_large) and the
 *  copy is read back to the same digest.
 *  *res is filled in any case (the counts of what was done); release it
 *  with el_bundle_result_clear(). DIR/README is written last, only when
 *  everything else is in place. */
EL_API el_code el_bundle(el_ctx *ctx, const el_cache_options *co, const char *lock_path,
                         const el_bundle_options *o, el_bundle_result *res);
EL_API void el_bundle_result_clear(el_bundle_result *res);

/* el_bundle_verify() :
 *  Whether the bundle in `dir` is the one a key signed: DIR/SHA256SUMS.sig
 *  must be the Ed25519 signature of DIR/SHA256SUMS by the key at key_path
 *  (its public or private PEM), every file SHA256SUMS lists must hold its
 *  sha256, and DIR must hold nothing else (docs/bundle.md, "Signing a
 *  bundle"). *n_files gets how many files were checked.
 *    DL_ENV_POLICY_DENIED  detail.reason unsigned (no SHA256SUMS or .sig),
 *                          bad_signature, or tampered (detail.file: a file
 *                          missing, changed, added, or not a regular file)
 *    EL_USAGE              key_path is no usable Ed25519 key
 *    EL_IO                 a file could not be read */
EL_API el_code el_bundle_verify(el_ctx *ctx, const char *dir, const char *key_path,
                                size_t *n_files);

#ifdef __cplusplus
}
#endif
#endif

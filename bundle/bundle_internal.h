/* bundle_internal.h — what the files of bundle/ share: the run's state,
 * the trees (one per canonical index, registry or archive), file output
 * and artifact fetches. Internal to el_bundle. */
#ifndef EL_BUNDLE_INTERNAL_H
#define EL_BUNDLE_INTERNAL_H

#include "bundle.h"

/* One tree of the bundle: what one canonical index serves. */
typedef struct bundle_tree {
    const char *ecosystem;  /* "conda" | "deb" | "npm" | "pypi" */
    const char *canonical;  /* no trailing '/' */
    const char *dir;        /* "pypi", "pypi-2", "npm", "apt", ... */
    ptrvec names;           /* pypi: project names whose page was written */
} bundle_tree;

typedef struct bundle {
    el_ctx *ctx;
    cache *c;
    const lock_doc *lock;
    const char *dir;        /* out_dir */
    arena *a;               /* everything of the run */
    ptrvec trees;           /* bundle_tree* */
    bundle_stats *st;
    int dir_fd;             /* DIR, flock'ed for the run */
    ptrvec done;            /* rel of every file this run wrote or verified */
    bool failed;            /* the first failure is on ctx */
    bool has_advisories;    /* DIR/advisories carries a snapshot */
} bundle;

/* bundle_dir_lock() : DIR opened (no link followed) and locked for the
 *  run (flock, released when the fd is closed). -1 after recording
 *  EL_QUOTA_EXCEEDED (reason bundle_busy: another run holds it, fail fast
 *  as apt-get does) or EL_IO. */
int bundle_dir_lock(el_ctx *ctx, const char *dir);
/* bundle_dir_sweep() : removes the NAME.tmp-PID-N files under DIR whose
 *  PID is no live process (a run killed mid-write). false after EL_IO. */
bool bundle_dir_sweep(bundle *b);
/* bundle_parents() : the directories of DIR/rel made, each opened from
 *  DIR without following a link (a link planted in DIR is refused,
 *  EL_POLICY_DENIED reason not_a_directory, never written through). false
 *  after recording the failure. The file itself is renamed into place, which
 *  replaces a link rather than following it. */
bool bundle_parents(bundle *b, const char *rel);
/* bundle_done() : records DIR/rel as this run's (written or verified):
 *  only those are signed. */
void bundle_done(bundle *b, const char *rel);

/* bundle_tree_for() : the tree of (ecosystem, canonical), made on first
 *  use; the first of an ecosystem is named after it, the next NAME-2, ...
 *  (callers go through the lock's sorted inputs, so names are stable). */
bundle_tree *bundle_tree_for(bundle *b, const char *ecosystem, const char *canonical);

/* bundle_claim() : true the first time (the caller then records its
 *  failure on b->ctx), false once a failure is recorded. Sets b->failed. */
bool bundle_claim(bundle *b);

/* bundle_safe_name() : whether `s` can be one path component under DIR
 *  (not empty, ".", "..", no '/', '\\' or control bytes). */
bool bundle_safe_name(const char *s);
/* bundle_safe_rel() : whether `rel` is a relative path of safe names. */
bool bundle_safe_rel(const char *rel);
/* bundle_unsafe() : records EL_SPEC_INVALID (reason unsafe_path) for
 *  `what` naming `name`, once; returns false. */
bool bundle_unsafe(bundle *b, const char *what, const char *name);

/* bundle_put() : makes DIR/rel hold exactly data[0..len) (parents made;
 *  an atomic write without fsync, FILE_LAZY; left alone when it already
 *  does). false after recording EL_IO. */
bool bundle_put(bundle *b, const char *rel, const void *data, size_t len);
/* bundle_sync() : the whole tree made durable (one syncfs) before the
 *  README marks the bundle complete. false after recording EL_IO. */
bool bundle_sync(bundle *b);

/* bundle_holds() : whether DIR/rel is a regular file whose bytes have
 *  `hash` ("sha256:<hex>", or an npm integrity); counted as reused when so. */
bool bundle_holds(bundle *b, const char *rel, const char *hash);

/* One file to fetch into the bundle. Strings are copied. */
typedef struct bundle_fetch {
    const char *rel;        /* where under DIR */
    const char *url;        /* canonical URL (the cache applies --mirror) */
    const char *hash;       /* "sha256:<hex>", an npm integrity, or NULL */
    const char *what;       /* "pypi requests 2.32.3 requests-2.32.3-py3-none-any.whl" */
    const char *source;     /* where the URL and hash came from */
    const char *also_rel;   /* a second place for the same bytes (apt by-hash), or NULL */
    bool optional;          /* a 404 is no failure (.metadata, Release.gpg) */
    bool artifact;          /* counted as an artifact, else a document */
    bool metadata;          /* counted as a .metadata file */
} bundle_fetch;

/* bundle_submit() : fetches f->url into DIR/f->rel unless it is already
 *  there with f->hash; verifies the bytes (sha256 by the cache, which then
 *  stores nothing wrong; an npm integrity here, a wrong body then evicted
 *  from the cache). Failures are recorded (bundle_claim). */
void bundle_submit(bundle *b, const bundle_fetch *f);

/* A fetched document for a callback of the ecosystem files: the response
 * (body borrowed for the call) or NULL when it was not found and optional. */
typedef void (*bundle_doc_fn)(bundle *b, const cache_response *r, void *user);

/* bundle_submit_doc() : fetches an index document (revalidated, `accept`
 *  as the readers ask) and hands it to fn; a failure other than an
 *  optional 404 is recorded naming `what`. */
void bundle_submit_doc(bundle *b, const char *url, const char *accept, uint64_t max_bytes,
                       const char *what, bool optional, bundle_doc_fn fn, void *user);

/* bundle_fail_response() : records a failed response for `what` (the
 *  cache's code, reason, url, status and retryability; detail.artifact). */
void bundle_fail_response(bundle *b, const cache_response *r, const char *what);

/* The ecosystems: each submits its documents; their callbacks submit the
 * artifacts. */
void bundle_pypi_submit(bundle *b);
void bundle_pypi_finish(bundle *b); /* the root pages, after the run */
void bundle_npm_submit(bundle *b);
void bundle_apt_submit(bundle *b);
void bundle_conda_submit(bundle *b);

/* bundle_advisories() : s's files copied into DIR/advisories, then
 *  s->verify() of the copy (bundle_advisories.c); true for s NULL. false
 *  after recording the failure. */
bool bundle_advisories(bundle *b, const bundle_snapshot *s);

/* bundle_readme() : DIR/README (how to serve it, the mirror lines). */
bool bundle_readme(bundle *b, const char *base_url);

#endif

/* cache.h — internal API of cache/: every network access envlock makes and
 * the on-disk, content-addressed cache behind it. The index readers
 * (indexes/pypi, npm, apt) submit requests and get verified bodies back;
 * they never see libcurl, zstd or the cache's file layout.
 *
 * Failures a callback can see (cache_response.code is then
 * EL_PACKAGE_NOT_FOUND; .reason is one of these and also lands in
 * detail.reason when cache_response_fail() records it):
 *   dns                 the host name did not resolve (after one retry;
 *                       retryable)
 *   connect             no connection to the host and port (refused, no
 *                       route), after every retry (retryable)
 *                       A host that fails so (dns, connect, or a proxy
 *                       that does not resolve or refuses) is given up
 *                       while the cache is open: the other requests to it
 *                       fail at once, with the same reason and words
 *                       (cache_hosts.h)
 *   proxy               the proxy did not resolve, could not be reached
 *                       (told by the port libcurl connected to differing
 *                       from the URL's), answered CONNECT with an error, or
 *                       answered HTTP 407 (retryable but for 407)
 *   tls                 the TLS handshake failed: an untrusted or wrong
 *                       certificate, a client certificate refused
 *                       (retryable only for a handshake error)
 *   unreachable         any other transfer error after the connection was
 *                       made (reset, closed, nothing received), after every
 *                       retry (retryable)
 *   auth                HTTP 401 or 403 (not retryable); detail.status
 *   timeout             a time bound passed: the request's transfer timeout,
 *                       the run's, or (after every retry) the connect or
 *                       attempt timeout; .limit names it ("transfer", "run",
 *                       "attempt"), .limit_seconds its value (retryable)
 *   too_slow            under the minimum speed (stall_bytes_per_s over
 *                       stall_seconds, nothing at all included), after every
 *                       retry; .limit "speed" (retryable)
 *   redirect_refused    a redirect to another host not allowed by
 *                       redirect_hosts, from https to http, or to another
 *                       scheme; .location is where it pointed
 *                       (EL_POLICY_DENIED instead of NOT_FOUND; not retryable)
 *   too_many_redirects  more than 10 redirects (not retryable)
 *   truncated           the body ended before its Content-Length, after every
 *                       retry (retryable)
 *   http_status         an HTTP status that is neither success, 304,
 *                       not-found, 401, 403 nor 407 (5xx and 429 after every retry: retryable;
 *                       others not); detail.status holds it. A Retry-After
 *                       that ends past the retry budget fails at once,
 *                       retryable, with .retry_after_s set
 *   not_found           HTTP 404/410 or a missing file:// file (status 404);
 *                       not retryable: callers usually turn this into their
 *                       own "no such package" answer
 *   too_large           the body passed the request's size cap (a file://
 *                       file larger than the cap: refused before reading;
 *                       not retryable)
 *   hash_mismatch       the body's sha256 is not the expected one; nothing is
 *                       cached (not retryable). The message gives the
 *                       sha256 read only for a network body, never for a
 *                       file:// read (cache_response.local)
 *   offline_cache_miss  offline and the cache has no valid entry (not
 *                       retryable until fetched online)
 *   write_failed        a request with a sink: its file could not be
 *                       written (code EL_IO; .write_errno is the errno,
 *                       ENOSPC for a full disk; not retryable here: the
 *                       caller words it with the path)
 *   bad_url             a URL libcurl refuses or a scheme other than
 *                       http/https/file, or a file:// URL that names
 *                       no regular file (a FIFO, a device, a socket:
 *                       refused before it is opened, so /dev/zero or a
 *                       FIFO never costs memory or time; not retryable). Still
 *                       EL_PACKAGE_NOT_FOUND: such URLs come from what a
 *                       server sent (a link, a tarball URL), and URLs from
 *                       the command line or a spec are checked before any
 *                       request, so none of this is a usage error
 * detail.url is always the canonical URL with any user:password@ removed;
 * through a mirror, detail.readUrl is the mirror's URL read and the message
 * names both ("M (mirror of C)");
 * detail.limit/seconds, detail.retryAfterSeconds and detail.location carry
 * the fields below when set.
 *
 * Threading: none. One cache object per run, driven by cache_run() from one
 * thread; callbacks run on that thread and may submit more requests. */
#ifndef EL_CACHE_H
#define EL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "envlock/cache.h"
#include "util.h"

typedef struct cache cache;

/* ---- the engine ---- */

/* cache_open() :
 *  Opens (creating if needed) the cache directory `o` selects. The HTTP
 *  engine (libcurl, loaded with dlopen, one multi handle and one share
 *  handle for DNS, connections and TLS sessions) is set up only when a
 *  request first needs a transfer; if libcurl.so.4 cannot be loaded then,
 *  that cache_run() returns EL_INTERNAL. Borrows nothing from `o` after
 *  returning.
 *  NULL after recording a failure (unusable directory: EL_IO with
 *  detail.path and detail.errno; malformed mirror: EL_USAGE with detail.mirror;
 *  no directory to use at all, HOME unset: cache_fail_no_dir()). */
cache *cache_open(el_ctx *ctx, const el_cache_options *o);
void cache_close(cache *c);

typedef enum cache_policy {
    CACHE_IMMUTABLE,  /* never changes (artifacts, .metadata): kept forever */
    CACHE_REVALIDATE  /* index pages: revalidated (ETag/Last-Modified) unless
                         Cache-Control max-age says it is still fresh, or it
                         was fetched since cache_open() (one run sees one
                         version of a page, however often it asks); offline,
                         any valid entry is served */
} cache_policy;

typedef struct cache_response {
    const char *url;           /* the canonical URL as submitted */
    const char *final_url;     /* after redirects on the requested host; mapped
                                  back to canonical when it stayed under the
                                  mirror; after a redirect to another (allowed)
                                  host, the canonical URL requested, so that
                                  nothing recorded names that host; credentials
                                  removed */
    long status;               /* success: 200 (206 for a Range request, also
                                  when served from the cache; file:// is 200);
                                  failure: the HTTP status, or 0 if none */
    const unsigned char *body; /* NUL-terminated (not counted in len); borrowed
                                  until the callback returns unless taken */
    size_t len;
    const char *sha256;        /* hex sha256 of body (success only) */
    const char *etag;          /* or NULL */
    const char *last_modified; /* or NULL */
    const char *content_type;  /* the response's Content-Type as sent
                                  ("text/html; charset=utf-8"), also on a
                                  cache hit (stored with the entry); NULL for
                                  file:// (except a directory's index page)
                                  and for entries older than it */
    bool from_cache;           /* no body came over the network this run */
    bool body_deferred;        /* a body_on_demand request served from the
                                  cache: body is NULL, len and sha256 are
                                  the stored entry's; cache_response_body()
                                  reads it */
    unsigned attempts;         /* network attempts made (0 for a cache hit) */
    el_code code;              /* EL_OK, or the failure (see the reasons above) */
    const char *reason;        /* NULL on success */
    const char *message;       /* human text on failure; names the URL */
    bool retryable;
    const char *limit;         /* timeout/too_slow: which bound, else NULL */
    long limit_seconds;        /* its value in seconds, or 0 */
    long retry_after_s;        /* a Retry-After not waited for, or 0 */
    const char *location;      /* redirect_refused: the target (redacted) */
    const char *read_url;      /* failure through a mirror: the mirror's URL
                                  read (redacted), else NULL */
    const char *path;          /* a request with a sink, on success: the sink,
                                  which now holds the verified body (body is
                                  then NULL and len its size); else NULL */
    int write_errno;           /* write_failed: the errno */
    bool local;                /* the request went to a file:// URL (its
                                  own, or a mirror's): a hash_mismatch
                                  message then gives no hash of what was
                                  read, so that no caller prints one (a
                                  hash of a local file is an oracle for
                                  whoever chose the URL) */
    void *owner_;              /* internal */
} cache_response;

typedef void (*cache_done_fn)(cache *c, cache_response *r, void *user);

/* The cap of a streamed (sink) response: bounded by disk, not memory; the
 * largest wheels on PyPI (CUDA builds) are a few GiB. */
#define CACHE_SINK_MAX_BYTES ((uint64_t)64 << 30)

typedef struct cache_request {
    const char *url;            /* canonical URL (http, https or file) */
    const char *accept;         /* Accept header; part of the cache key; NULL: none */
    cache_policy policy;
    uint64_t max_bytes;         /* size cap; 0: the options' default */
    const char *sha256;         /* expected hex sha256 of the body, or NULL */
    const char *const *headers; /* extra "Name: value" headers: an
                                   Authorization header is sent to the first
                                   host only (not to a mirror on another host,
                                   not across redirects) and never stored,
                                   logged or printed; a Range header becomes
                                   part of the cache key */
    size_t n_headers;
    /* TLS material of this request only (npmrc cafile/certfile/keyfile for
     * the npm registry): ca_file replaces the options' ca_bundle for it;
     * the client certificate and key, like an Authorization header, go to
     * the canonical host only (not to a mirror on another host, not across
     * a redirect). NULL: none. */
    const char *ca_file;
    const char *client_cert;
    const char *client_key;
    const char *sink;           /* or NULL. A file path: the body goes
                                   straight to a temp file beside it as it
                                   arrives (sha256 computed on the way) and
                                   is renamed onto it only when complete
                                   and verified, so memory stays flat
                                   whatever the size; a failure (truncated,
                                   5xx, wrong hash, full disk) leaves no
                                   file and `sink` as it was. The cap is
                                   then max_bytes if set, else
                                   CACHE_SINK_MAX_BYTES (not the options'
                                   in-memory default). With `sha256` set
                                   (an immutable artifact) the cache keeps
                                   a hard link to the finished file as its
                                   entry (<key>.file, see the store
                                   layout) and serves later sink requests
                                   by linking it (copying across
                                   filesystems) after re-checking its
                                   hash; without `sha256` nothing is
                                   cached. Directories of `sink` must
                                   exist. */
    bool body_on_demand;        /* a cache hit or a 304 is delivered without
                                   reading the stored body (body_deferred):
                                   for a caller that keeps a parsed form of
                                   it under its sha256 and reads the body
                                   only when that misses. The stored body is
                                   then checked only when it is read. Not
                                   for sink requests */
    bool sink_lazy;             /* write `sink` with FILE_LAZY (util.h): the
                                   caller checks it by hash before use and
                                   syncs its tree once (file_sync_fs()) */
    cache_done_fn done;         /* called exactly once, from cache_run() */
    void *user;
} cache_request;

/* cache_submit() :
 *  Queues a request; copies everything in `rq`. Nothing happens until
 *  cache_run(). Callable from a completion callback. */
void cache_submit(cache *c, const cache_request *rq);

/* cache_defer() :
 *  For CPU work on what a callback received (parsing a body) that need not
 *  hold up the transfers: runs `work(user)` on a worker thread, then
 *  `done(c, user)` on the thread in cache_run(), where it may submit
 *  requests and defer more. Works run on several threads at once: `work`
 *  may touch only `user` and what stays unchanged during the run. Each
 *  done runs exactly once, before cache_run() returns (also when the run
 *  fails), in the order the works finished. Outside a run, or when no
 *  thread can be started, both run at once. */
typedef void (*cache_work_fn)(void *user);
typedef void (*cache_done_task_fn)(cache *c, void *user);
void cache_defer(cache *c, cache_work_fn work, cache_done_task_fn done, void *user);

/* cache_run() :
 *  Runs until every submitted request (including those submitted by
 *  callbacks meanwhile) has completed and its callback has run, and every
 *  task deferred meanwhile has run its done. Individual
 *  failures go to the callbacks; the return value is EL_OK unless the engine
 *  itself failed (EL_INTERNAL). */
el_code cache_run(cache *c, el_ctx *ctx);

/* cache_phase() :
 *  Tells the progress callback (if any) that the caller now does `phase`
 *  (a string that outlives the call: "read apt indexes", "solve"), so the
 *  line stays up through work that fetches nothing; NULL: that work ended
 *  (the line is cleared). A cache_run() inside a phase ends by drawing the
 *  phase again. `c` may be NULL. */
void cache_phase(cache *c, const char *phase);

/* cache_failure : what a failed response says, kept past the response (a
 * reader reports it later, as its own error, maybe with its own message). */
typedef struct cache_failure {
    el_code code;
    const char *reason;
    const char *message;
    const char *url;       /* canonical, as submitted */
    long status;
    const char *limit;     /* timeout/too_slow: which bound */
    long limit_seconds;
    long retry_after_s;    /* a Retry-After not waited for */
    const char *location;  /* redirect_refused: the target */
    const char *read_url;  /* through a mirror: the URL read, else NULL */
    bool retryable;
} cache_failure;

/* cache_failure_of() : r's failure; the strings are r's (borrowed). */
cache_failure cache_failure_of(const cache_response *r);

/* cache_failure_copy() : f with its strings copied into `a`. */
cache_failure cache_failure_copy(const cache_failure *f, arena *a);

/* cache_failure_report() :
 *  Records f on ctx: its code and message, detail.reason, detail.url
 *  (redacted), and when given detail.status, limit, seconds,
 *  retryAfterSeconds, location (redacted) and readUrl (the mirror's
 *  URL); the retryable flag. Returns
 *  the code. The one place a fetch failure becomes an error. */
el_code cache_failure_report(el_ctx *ctx, const cache_failure *f);

/* cache_response_fail() : cache_failure_report() of r's failure. */
el_code cache_response_fail(el_ctx *ctx, const cache_response *r);

/* cache_response_take_body() :
 *  Takes ownership of the body (free with free()); afterwards r->body is
 *  NULL. Lets a callback keep a large body without copying it. */
unsigned char *cache_response_take_body(cache_response *r, size_t *len);

/* cache_response_body() :
 *  r's body, read and fully verified from the cache when it was deferred
 *  (body_on_demand); then owned by r like any other (takeable). NULL when
 *  the entry is gone, corrupt (removed) or no longer holds the body r
 *  describes (replaced by a concurrent run): the caller fails the request
 *  as retryable. Call only from the done callback. */
const unsigned char *cache_response_body(cache *c, cache_response *r);

/* cache_fetch() :
 *  Convenience for one request: submits `rq` (its done/user are ignored),
 *  runs, and on success hands the body to the caller (*body malloc'd,
 *  NUL-terminated). Returns EL_OK or the recorded failure. */
el_code cache_fetch(cache *c, el_ctx *ctx, const cache_request *rq, unsigned char **body,
                    size_t *len);

/* cache_canonical_url() :
 *  The canonical URL `served_url` stands for: when it lies under a mirror's
 *  base (the mirror URL of a --mirror CANONICAL=URL pair, at a path
 *  boundary, with or without the mirror's user:password@), that base is
 *  replaced by its canonical prefix (the longest matching base wins);
 *  otherwise a copy. Readers pass every absolute URL a served document
 *  names (artifact links in a PyPI page, npm tarball URLs) through this, so
 *  that records — and so locks — never name a mirror. Credentials are
 *  removed from the result. malloc'd. */
char *cache_canonical_url(const cache *c, const char *served_url);

/* cache_served_url() :
 *  Where a request for canonical `url` really goes (the mirror applied), or
 *  a copy when no mirror applies. malloc'd; may carry a mirror's
 *  credentials, so never print it. */
char *cache_served_url(const cache *c, const char *url);

/* cache_forget() :
 *  Removes the entry a request for canonical `url` with `accept` (NULL:
 *  none) reads, if there is one: for a body found wrong by a check the
 *  cache cannot make itself (an npm integrity that is no sha256), so that
 *  the next run fetches it again instead of serving it forever. */
void cache_forget(cache *c, const char *url, const char *accept);

/* Counters of this run (for progress, benchmarks and tests). */
typedef struct cache_run_stats {
    uint64_t requests;      /* completed submissions */
    uint64_t network;       /* HTTP/file attempts started */
    uint64_t hits;          /* answered from the cache without a request */
    uint64_t revalidated;   /* answered from the cache after a 304 */
    uint64_t retries;
    uint64_t bytes;         /* body bytes received over the network */
    uint64_t failures;
} cache_run_stats;
void cache_get_stats(const cache *c, cache_run_stats *st);

/* cache_npm_token() : el_cache_options.npm_token (borrowed from `c`), or
 *  NULL. */
const char *cache_npm_token(const cache *c);

/* Derived data (e.g. an apt index parsed into a .solv file) stored under a
 * name of the caller's choosing, with the same atomic, verified, compressed
 * storage as fetched bodies. Blobs are immutable: name them by the hash of
 * what they were derived from. get returns false on a miss (or a corrupt
 * blob, which is removed); put returns false if the cache could not be
 * written (not fatal: the caller just keeps its data). */
bool cache_blob_get(cache *c, const char *name, unsigned char **data, size_t *len);
bool cache_blob_put(cache *c, const char *name, const void *data, size_t len);
/* cache_blob_put_lazy() :
 *  As cache_blob_put() without the fsyncs (cache_store_put_lazy()), for a
 *  blob derived from a body the cache holds and cheap to derive again (an
 *  npm packument's parsed form, written once per page fetched: two fsyncs
 *  each would double a cold resolve). */
bool cache_blob_put_lazy(cache *c, const char *name, const void *data, size_t len);

/* cache_blob_open() :
 *  Blob `name` for reading in place, the fast way for big derived data (a
 *  Debian main .solv is ~18 MB): a FILE positioned at the blob's first byte
 *  of its entry file, *len its size. Blobs are stored uncompressed (see
 *  cache_blob_put), so nothing is decompressed or copied into memory; the
 *  entry is checked before it is returned — metadata, key, exact size and
 *  the CRC-32 of the bytes, or, when the entry is unchanged since it was
 *  written or last fully checked, its seal instead of the CRC (see "seals"
 *  in cache_store.c). (The sha256 that every entry also carries is
 *  checked by cache_blob_get, prune and import; CRC-32 detects the damage a
 *  cache suffers — torn, truncated or flipped bytes — at a fraction of the
 *  cost. It is no defence against someone who can write the cache dir, but
 *  neither is the sha256 stored beside the body.)
 *  NULL on a miss, on a corrupt entry (removed), and on a blob stored
 *  compressed by an older envlock (left alone: cache_blob_get reads it).
 *  Close with fclose(). */
FILE *cache_blob_open(cache *c, const char *name, size_t *len);

/* cache_blob_map() :
 *  Blob `name` as cache_blob_open() finds and checks it, mapped read-only
 *  and prefaulted, not read: *data is its first byte, *len its size, and
 *  *map / *map_len the mapping its owner munmap()s when done. false on a
 *  miss or when it cannot be mapped. */
bool cache_blob_map(cache *c, const char *name, const unsigned char **data, size_t *len,
                    void **map, size_t *map_len);

/* ---- the store (cache_store.c) ----
 * Layout: <dir>/v1/<k0k1>/<key> where key is the 64-hex cache key; beside it
 * <key>.lock (flock for fetch deduplication across processes), for a raw
 * entry <key>.seal (what its file looked like when last known good), and
 * .tmp-<key>-<pid>-<n>[.seal] while a write is in flight. An entry file is
 *   "envlock-cache 1\n" <one-line JSON metadata> "\n" <one zstd frame>
 * or, when the metadata says "encoding":"raw" (blobs), the body itself
 * instead of the frame, with its "crc32" in the metadata. A file entry,
 * <key>.file, is different: the bare bytes of an artifact fetched with a
 * sink and an expected sha256 (a hard link to the file the caller got),
 * no metadata; the expected sha256 of every request that reads it is its
 * check (a mismatch removes it). info and export skip file entries; prune
 * --all removes them. It is valid only
 * if the metadata parses, its key re-derives the file name, the frame
 * decompresses to (or the raw body is) exactly `size` bytes with no
 * trailing data, and those bytes hash to `sha256` (and, raw, to `crc32`). */

/* cache_key() : sha256 hex of "GET <url>\n<accept>" (accept "" if NULL);
 * `accept` is cache_meta.accept's "what the key covers" string. */
void cache_key(const char *url, const char *accept, char out[65]);

typedef struct cache_store cache_store;

/* cache_store_open() : creates <dir>/v1 if needed. NULL + EL_IO on failure. */
cache_store *cache_store_open(el_ctx *ctx, const char *dir);
void cache_store_close(cache_store *s);
const char *cache_store_dir(const cache_store *s);

typedef struct cache_meta {
    char *url;            /* canonical URL (or "blob:<name>") */
    char *accept;         /* what the key covers besides the URL: the Accept
                             header, plus "\n" and the Range header if one
                             was sent; or NULL */
    char *etag;           /* or NULL */
    char *last_modified;  /* or NULL */
    char *content_type;   /* Content-Type of the response, or NULL (file://
                           * has none, except a directory's index page) */
    int64_t max_age;      /* seconds from Cache-Control; -1 if none */
    int64_t fetched_ms;   /* wall clock of the fetch or last revalidation */
    bool immutable;
    bool raw;             /* body stored uncompressed (blobs), with crc32 */
    uint32_t crc32;       /* CRC-32 of the body (raw entries only) */
    long status;          /* 200, or 206 for a Range request */
    uint64_t size;        /* body length */
    char sha256[65];      /* of the body */
} cache_meta;
/* cache_meta_init() : empty record (max_age -1); cache_meta_clear() frees
 * the strings of an initialized record and empties it. */
void cache_meta_init(cache_meta *m);
void cache_meta_clear(cache_meta *m);

typedef enum cache_entry_state {
    CACHE_ENTRY_OK,
    CACHE_ENTRY_MISSING,
    CACHE_ENTRY_CORRUPT   /* detected and removed; *why says what was wrong */
} cache_entry_state;

/* cache_store_get() :
 *  Reads and fully verifies the entry for `key`. On OK fills *m and, if
 *  `body` is not NULL, *body (malloc'd, NUL-terminated) and *len. A corrupt
 *  entry is unlinked (if it is still the file that was read) and reported,
 *  never returned; so is anything but a regular file at its name (a FIFO
 *  is opened without blocking and never read: *why "not a regular file").
 *  A body is allocated at its recorded size only once the frame is proven
 *  to hold it (see frame_check() in cache_store.c). */
cache_entry_state cache_store_get(cache_store *s, const char *key, cache_meta *m,
                                  unsigned char **body, size_t *len, const char **why);

/* cache_store_get_meta() :
 *  The metadata of the entry for `key` without reading its body: the
 *  header line, checked to parse and to re-derive the name. The body is
 *  not verified (cache_store_get() does that when it is read), so this is
 *  for a caller that may never need the body: one with a parsed form of
 *  it, named by the sha256 recorded here, which carries its own checks.
 *  A header that fails is unlinked and reported as CORRUPT (*why). */
cache_entry_state cache_store_get_meta(cache_store *s, const char *key, cache_meta *m,
                                       const char **why);

/* cache_store_open_raw() :
 *  The fast read of a raw entry (cache_blob_open()): checks metadata, key,
 *  size and crc32 (not sha256; the crc32 only when the entry's seal, the
 *  <key>.seal file beside it, does not vouch for the file as it is now;
 *  a full check that passes writes the seal) and returns the entry file as a FILE
 *  positioned at the body, *len its size, *state CACHE_ENTRY_OK. NULL with
 *  *state MISSING, CORRUPT (the entry is removed; *why says why) or OK for
 *  a valid-looking entry that is not raw (stored compressed). */
FILE *cache_store_open_raw(cache_store *s, const char *key, size_t *len,
                           cache_entry_state *state, const char **why);

/* cache_store_put() :
 *  Writes the entry atomically (temp file in the same directory, fsync,
 *  rename, fsync of the directory). m->size and m->sha256 are set from the
 *  body. A raw entry is sealed after the rename (best effort). EL_IO (with detail.path) on an I/O failure; the old entry, if
 *  any, is then untouched. */
el_code cache_store_put(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                        const void *body, size_t len);

/* cache_store_put_lazy() :
 *  As cache_store_put() without the fsyncs, for data that is cheap to make
 *  again: a crash may leave no entry or a torn one (which reads as corrupt
 *  and is removed), never wrong bytes under a valid entry. */
el_code cache_store_put_lazy(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                             const void *body, size_t len);

/* cache_store_put_hashed() :
 *  As cache_store_put_lazy() for a body whose sha256 the caller has
 *  already put in m->sha256 (it is not computed again; m->size is set). */
el_code cache_store_put_hashed(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                               const void *body, size_t len);

/* cache_store_place_file() :
 *  Makes the existing file `src` the file entry of `key` (the one a
 *  request with a sink and an expected sha256 is served from): a hard link
 *  renamed into place, so no second copy and never a partial entry; the
 *  entry's directory is made first. Nothing is placed when no link can be
 *  made (the cache on another filesystem). 0, or the errno. */
int cache_store_place_file(cache_store *s, const char *key, const char *src);

/* cache_store_refresh() :
 *  As cache_store_put() for an entry whose body is unchanged (metadata
 *  refreshed by a 304), without the fsyncs: a crash may leave the old entry
 *  or a torn one (which reads as corrupt and is refetched), never wrong
 *  bytes under a valid entry. `body` may be NULL (len then m->size): the
 *  entry's encoded body is kept as it is on disk, or, when the file no
 *  longer holds that body, nothing is written. */
el_code cache_store_refresh(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                            const void *body, size_t len);

/* The write path in steps, for put() and for tests that kill a writer half
 * way: begin creates the temp file, write appends raw bytes of the entry
 * file, commit makes it visible, abort removes the temp file. */
typedef struct cache_writer cache_writer;
cache_writer *cache_writer_begin(cache_store *s, el_ctx *ctx, const char *key);
bool cache_writer_write(cache_writer *w, const void *data, size_t n);
el_code cache_writer_commit(cache_writer *w, el_ctx *ctx);
void cache_writer_abort(cache_writer *w);

/* cache_entry_encode() : the bytes of an entry file for (m, body). */
void cache_entry_encode(cache_meta *m, const void *body, size_t len, strbuf *out);

/* cache_entry_check() : verifies entry file bytes `data` named `key` (NULL:
 *  skip the name check). Fills *m (if not NULL) and *body (if not NULL).
 *  Returns NULL if valid, else a short reason. */
const char *cache_entry_check(const unsigned char *data, size_t n, const char *key,
                              cache_meta *m, unsigned char **body, size_t *len);

/* cache_store_lock() :
 *  Tries to take the per-entry lock without blocking. Returns an fd (>= 0)
 *  to pass to cache_store_unlock(), or -1 with *busy set when another holder
 *  has it (false: the lock file could not be opened; proceed unlocked). */
int cache_store_lock(cache_store *s, const char *key, bool *busy);
void cache_store_unlock(int fd);

/* cache_entry_path() : <dir>/v1/<k0k1>/<key><suffix>, malloc'd. */
#define CACHE_FILE_SUFFIX ".file"
char *cache_entry_path(const char *dir, const char *key, const char *suffix);

/* cache_store_walk() : calls fn for every file under <dir>/v1/??/ (entries,
 *  locks and temp files alike) with its full path and base name. */
void cache_store_walk(const char *dir, void (*fn)(const char *path, const char *name, void *u),
                      void *u);

/* cache_entry_read_meta() : reads only the metadata line of an entry file
 *  (cheap: no decompression). false if unreadable. */
bool cache_entry_read_meta(const char *path, cache_meta *m);

/* ---- mirrors and URLs (cache_mirror.c) ---- */
typedef struct cache_mirrors cache_mirrors;

/* cache_mirrors_load() :
 *  Builds the mirror table from the options and (unless no_mirror_config)
 *  ENVLOCK_MIRRORS and the mirrors file. NULL + EL_USAGE (detail.mirror,
 *  detail.source) for a malformed pair. */
cache_mirrors *cache_mirrors_load(el_ctx *ctx, const el_cache_options *o);
void cache_mirrors_free(cache_mirrors *m);

/* cache_mirrors_count(), cache_mirrors_canonical(), cache_mirrors_target() :
 *  the table's pairs in precedence order, without trailing '/' (borrowed
 *  from `m`); i < cache_mirrors_count(m). A NULL table has none. */
size_t cache_mirrors_count(const cache_mirrors *m);
const char *cache_mirrors_canonical(const cache_mirrors *m, size_t i);
const char *cache_mirrors_target(const cache_mirrors *m, size_t i);

/* cache_mirrors_rewrite() : the URL to request for canonical `url`
 *  (malloc'd; a copy of `url` when no mirror applies). */
char *cache_mirrors_rewrite(const cache_mirrors *m, const char *url);

/* cache_mirrors_unrewrite() : maps an effective URL under a mirror back to
 *  the canonical prefix it stands for (malloc'd; a copy when none applies). */
char *cache_mirrors_unrewrite(const cache_mirrors *m, const char *url);

/* cache_url_fetchable() : whether `url` is absolute http, https or file
 *  with a host, as cache_url_join() reads it (scheme case ignored): what
 *  a transfer can take. A URL from the command line is checked with it
 *  before any request, so that a bad one is a usage error and bad_url only
 *  ever means what a server sent. */
bool cache_url_fetchable(const char *url);

/* cache_link_allowed() :
 *  Whether a document (a PyPI page, an npm packument) read from
 *  `doc_read_url` — the URL actually read, a mirror's when one applies —
 *  may name `link` (absolute, as the document resolves it) as something to
 *  fetch. A document read over http or https links only to http or https,
 *  as a redirect must (see redirect_refused): a remote index never makes
 *  envlock read a local file. file:// links are followed only from a
 *  document itself read from file://, an index or mirror the user
 *  configured as local. A canonical http(s) link that a configured mirror
 *  maps onto file:// is allowed: the mapping is the user's. The readers
 *  mark a link this refuses and never submit it. */
bool cache_link_allowed(const char *doc_read_url, const char *link);

/* cache_fail_no_dir() : records why cache_default_dir() found no
 *  directory (HOME unset and no override: the environment, not envlock, is
 *  at fault) as EL_USAGE, detail.reason `no_cache_dir`; returns EL_USAGE. */
el_code cache_fail_no_dir(el_ctx *ctx);

/* cache_url_join() : `ref` (absolute, or relative) resolved against the
 *  absolute URL `base` per RFC 3986 5.2, on the bytes as written (no
 *  percent-decoding; the scheme lowercased, an empty path under an
 *  authority made "/"; spaces in a relative ref written "%20"), malloc'd;
 *  NULL if `base` has no scheme, or either has a control character or is
 *  absolute with a space, or an http/https/file result has no authority.
 *  Fragments are kept. Needs no libcurl. */
char *cache_url_join(const char *base, const char *ref);

/* cache_url_redact() : the URL without any userinfo ("user:pw@"), malloc'd.
 *  The one helper for every URL envlock shows or stores (messages, details,
 *  cache metadata, index show output). */
char *cache_url_redact(const char *url);

/* cache_url_host() : the host of an absolute URL, lowercased, without
 *  userinfo or port (an IPv6 literal keeps its brackets), malloc'd; NULL if
 *  the URL has no "scheme://". */
char *cache_url_host(const char *url);

/* cache_url_port() : the port an http(s) URL connects to (its own, else 80
 *  or 443); 0 for another scheme or a URL uriparser refuses. */
unsigned cache_url_port(const char *url);

/* cache_default_dir() : the directory el_cache_options selects, malloc'd,
 *  or NULL if no HOME is known. */
char *cache_default_dir(const el_cache_options *o);

/* cache_now_ms() : wall clock in milliseconds. */
int64_t cache_now_ms(void);

#endif

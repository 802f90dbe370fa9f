/* envlock/cache.h — network options and the on-disk cache of fetched index
 * documents and artifacts. Part of envlock.h; include that instead.
 *
 * Every fetch envlock makes goes through one cache directory: by default
 * $XDG_CACHE_HOME/envlock (else ~/.cache/envlock), overridden by
 * el_cache_options.dir (the CLI's --cache-dir, else $ENVLOCK_CACHE_DIR).
 * The library reads no ENVLOCK_* variable: the CLI turns them into these
 * options. It reads what it emulates: HOME and the XDG directories, NETRC
 * (as curl and pip do) and npm's own configuration (npmrc, npm_config_*).
 *
 * Mirrors ("CANONICAL=URL") redirect requests for URLs under CANONICAL to URL
 * (https://, http:// or file://) without changing what envlock reports: the
 * cache key, errors and locks always name the canonical URL. Sources, highest
 * precedence first — for the same CANONICAL the first source that names it
 * wins; across different CANONICALs the longest matching prefix wins:
 *   1. el_cache_options.mirrors (the CLI's repeatable --mirror CANONICAL=URL)
 *   2. el_cache_options.mirror_list (the CLI's ENVLOCK_MIRRORS): pairs
 *      separated by spaces, commas or newlines
 *   3. the mirrors file: config_dir/mirrors (the CLI's ENVLOCK_CONFIG), else
 *      $XDG_CONFIG_HOME/envlock/mirrors (else ~/.config/envlock/mirrors);
 *      one CANONICAL=URL per line, blank lines and `#` comments ignored.
 * A prefix matches at a path boundary only ("https://a/simple" matches
 * "https://a/simple/x" but not "https://a/simplex"). A file:// URL that ends
 * in `/` is read as its index.html, as a static web server would serve it. */
#ifndef ENVLOCK_CACHE_H
#define ENVLOCK_CACHE_H

#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Progress of a run's fetching, as the library reports it to a front end
 * (the library itself never writes to stderr: the CLI draws the line). */
typedef struct el_progress {
    unsigned long long done;     /* requests completed this run */
    unsigned long long total;    /* requests submitted this run */
    unsigned long long bytes;    /* body bytes received over the network */
    const char *slowest;         /* the transfer in flight longest, when over a
                                    second (canonical URL, no credentials), else
                                    NULL; borrowed for the call only */
    double slowest_s;            /* how long it has been in flight */
    bool final;                  /* the run ended: clear what was drawn */
    const char *phase;           /* NULL while fetching; else the work that runs
                                    between fetches ("read apt indexes",
                                    "solve"), with the counts of the fetches
                                    so far: the line stays up through it */
} el_progress;

/* el_progress_fn :
 *  Called from inside the fetching calls (el_resolve, el_check, el_bundle,
 *  index show, ...) on the caller's thread: at most every 200 ms while
 *  requests are in flight, once with `phase` set when work between fetches
 *  starts (reading apt indexes, the solve; a run that ends inside it
 *  reports the phase again rather than `final`), and once with `final` set
 *  when a run or phase that reported anything ends. It must not call back
 *  into envlock. */
typedef void (*el_progress_fn)(const el_progress *p, void *user);

/* Options for one run's fetching. Zero-initialized means every default. */
typedef struct el_cache_options {
    const char *dir;          /* cache directory; NULL: see above */
    bool offline;             /* answer from the cache only; a miss is an error */
    bool quiet;               /* no progress calls even with `progress` set */
    el_progress_fn progress;  /* progress reports, or NULL for none */
    void *progress_user;      /* passed to `progress` */
    const char *const *mirrors; /* "CANONICAL=URL" pairs, highest precedence */
    size_t n_mirrors;
    const char *mirror_list;  /* more mirrors, below `mirrors`: "CANONICAL=URL"
                                 pairs separated by spaces or commas (the CLI
                                 passes $ENVLOCK_MIRRORS); NULL: none */
    const char *mirror_list_name; /* what to call mirror_list in messages */
    const char *config_dir;   /* holds the `mirrors` file, lowest precedence;
                                 NULL: $XDG_CONFIG_HOME/envlock, else
                                 ~/.config/envlock (the CLI passes
                                 $ENVLOCK_CONFIG) */
    bool no_mirror_config;    /* ignore mirror_list and the mirrors file */
    unsigned max_parallel;    /* transfers at once; 0: 64 (over at most 32
                                 connections) */
    long connect_timeout_ms;  /* per attempt; 0: 15000 */
    long stall_seconds;       /* the minimum-speed window: an attempt that
                                 receives under stall_bytes_per_s on average over
                                 this many seconds is aborted ("too_slow", then
                                 retried); 0: 30 */
    long stall_bytes_per_s;   /* 0: 1024 (1 KiB/s) */
    long attempt_timeout_ms;  /* one attempt; 0: no limit beyond the others */
    int retries;              /* retries after the first attempt; 0: 4; <0: none.
                                 A name that does not resolve gets at most 1;
                                 a host that does not resolve or refuses
                                 connections is retried by one request, and
                                 once that gives up the others to it fail at
                                 once until cache_close() */
    long retry_base_ms;       /* first backoff; doubles each retry; 0: 500 */
    long retry_cap_ms;        /* cap on one backoff and on Retry-After; 0: 30000 */
    uint64_t max_bytes;       /* default size cap of one response held in memory
                                 (a streamed artifact has its own); 0: 512 MiB */
    const char *ca_bundle;    /* PEM CA bundle to trust for https (libcurl's
                                 CURLOPT_CAINFO: in place of the system's
                                 bundle; the CLI's --cert, $ENVLOCK_CERT,
                                 $SSL_CERT_FILE or $CURL_CA_BUNDLE); NULL: the
                                 system's */
    const char *ca_dir;       /* directory of hashed PEM CA certificates
                                 (`openssl rehash`; CURLOPT_CAPATH; the CLI's
                                 $SSL_CERT_DIR); NULL: the system's */
    const char *netrc_file;   /* netrc path; NULL: $NETRC, else ~/.netrc */
    const char *npm_token;    /* bearer token for the npm registry, before
                                 npmrc's (the CLI's $ENVLOCK_NPM_TOKEN); sent
                                 to the registry's host only; NULL: none */
    /* Bounds on time (every one of them is always finite). A request (all
     * its attempts and the waits between them) ends within transfer_timeout;
     * no retry starts, and no Retry-After is waited for, past retry_max
     * after its first attempt; nothing is fetched later than run_timeout
     * after cache_open(). 0 takes the default: transfer 300 s, retry_max
     * 60 s, run 900 s. */
    long transfer_timeout_ms;
    long retry_max_ms;
    long run_timeout_ms;
    /* Hosts a redirect may lead to besides the requested one (exact names,
     * case-insensitive; each entry may hold several, separated by spaces or
     * commas, as $ENVLOCK_REDIRECT_HOSTS does).
     * Any other redirect off the host, and any from https to http, is
     * refused (EL_POLICY_DENIED, detail.reason redirect_refused). */
    const char *const *redirect_hosts;
    size_t n_redirect_hosts;
} el_cache_options;

/* Counts of a cache directory (el_cache_info) or of what an operation
 * removed, exported or imported. */
typedef struct el_cache_stats {
    uint64_t entries;         /* valid-looking entries */
    uint64_t immutable;       /* of which kept forever */
    uint64_t revalidated;     /* of which revalidated (index pages) */
    uint64_t bytes;           /* bytes on disk of those entries */
    uint64_t body_bytes;      /* uncompressed bytes they hold */
    uint64_t corrupt;         /* entries whose header cannot be read */
    uint64_t temp_files;      /* leftovers of interrupted writes */
    uint64_t staging;         /* import staging directories (v1/.import-*):
                                 info counts all, prune those it removed */
    uint64_t staging_bytes;   /* bytes of the files in them */
} el_cache_stats;

/* el_cache_dir() :
 *  The cache directory `o` selects (see above), as a string the caller frees
 *  with el_free(). Fails (EL_INTERNAL) only when no HOME is known. */
EL_API el_code el_cache_dir(el_ctx *ctx, const el_cache_options *o, char **dir);

/* el_cache_info() :
 *  Counts the entries of the cache directory into *st. A missing directory
 *  is an empty cache, not an error. */
EL_API el_code el_cache_info(el_ctx *ctx, const el_cache_options *o, el_cache_stats *st);

/* el_cache_prune() :
 *  Removes revalidated entries fetched more than `days` days ago, entries
 *  whose header is unreadable (or that are not regular files), leftovers of
 *  interrupted writes older than an hour, and the staging directories of
 *  imports that died (not locked by a live import, untouched for ten
 *  minutes); with `all`, every entry. Removal is an unlink, so a concurrent
 *  reader that already opened an entry still reads it whole; a concurrent
 *  writer at worst fetches again. *removed (may be NULL) counts what went.
 *  Anything that should have gone but could not be removed (a read-only
 *  cache) fails the prune: EL_IO naming the first such path, with
 *  detail.path, detail.errno and detail.failed (how many); what could be
 *  removed is removed all the same and counted. */
EL_API el_code el_cache_prune(el_ctx *ctx, const el_cache_options *o, unsigned days, bool all,
                              el_cache_stats *removed);

/* el_cache_export() :
 *  Writes every valid entry into one tar archive compressed with zstd, with a
 *  manifest (manifest.json, the last member) giving each member's sha256 and
 *  size, for carrying a cache into an air-gapped site. Written to FILE.tmp
 *  and renamed. *st (may be NULL) counts what was exported. */
EL_API el_code el_cache_export(el_ctx *ctx, const el_cache_options *o, const char *file,
                               el_cache_stats *st);

/* el_cache_export_signed() :
 *  As el_cache_export(), and when `key` (a PEM file holding an Ed25519
 *  private key) is not NULL also signs the archive: the signature covers
 *  the manifest's list of members (sha256, size and name of each) and is
 *  the member manifest.sig, after the manifest. A key that cannot be used
 *  is EL_USAGE (detail.key) and nothing is written. */
EL_API el_code el_cache_export_signed(el_ctx *ctx, const el_cache_options *o, const char *file,
                                      const char *key, el_cache_stats *st);

/* el_cache_import() :
 *  Reads an archive written by el_cache_export() into the cache. Every member
 *  must be listed in the manifest with a matching sha256 and size, be a
 *  well-formed entry, and have a name of an entry; anything else refuses the
 *  whole archive (EL_POLICY_DENIED, detail.reason `tampered` and
 *  detail.member) and nothing is imported: members go to a temporary
 *  directory first and are renamed into place only after all are verified.
 *  *st (may be NULL) counts what was imported. */
EL_API el_code el_cache_import(el_ctx *ctx, const el_cache_options *o, const char *file,
                               el_cache_stats *st);

/* el_cache_import_verified() :
 *  As el_cache_import(), and when `key` (a PEM file holding an Ed25519
 *  public key, or a private key) is not NULL the archive must also carry a
 *  signature by that key over its manifest: an unsigned archive
 *  (detail.reason `unsigned`) or one whose signature does not verify
 *  (`bad_signature`) is refused with EL_POLICY_DENIED before anything is
 *  written. Without a key a signature is not looked at: the manifest then
 *  catches damage, not forgery. Archives are bounded before anything is
 *  decompressed to disk: a member may declare at most the largest entry the
 *  cache can hold, all of them together at most 64 times the archive's
 *  size plus 64 MiB (reason `too_large`), each must declare in its tar
 *  header the size the manifest lists, and none may give more bytes than
 *  that. Not enough free space for what the archive declares is EL_IO.
 *  Stale staging directories of imports that died are removed first. */
EL_API el_code el_cache_import_verified(el_ctx *ctx, const el_cache_options *o, const char *file,
                                        const char *key, el_cache_stats *st);

#ifdef __cplusplus
}
#endif
#endif

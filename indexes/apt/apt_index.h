/* apt_index.h — the apt repository reader (el_apt_index): sources.list
 * entries, Release/InRelease files and their signatures, Packages indexes
 * checked against the Release and loaded with libsolvext, a parsed-repo cache
 * (.solv blobs), the base's dpkg status as the installed set, and
 * `envlock index show deb:NAME`.
 *
 * Internal to envlock; names carry the `apt_` prefix. libsolv stays behind
 * this header except in apt_loader_load_into(), which fills a pool the
 * resolver owns.
 *
 * Trust model. A repository is usable only when its Release text is signed by
 * a key in the keyring the source names (`signed-by=`) or the query's keyring
 * (default /usr/share/keyrings/debian-archive-keyring.gpg), is not past its
 * Valid-Until (unless the source says check-valid-until=no or the caller
 * ignores it, for snapshot archives), and every Packages file matches the
 * size and SHA256 the Release lists. `trusted=yes` on a source skips the
 * signature check (never the hash checks). InRelease (clearsigned) is
 * verified by gpgv run as a subprocess; Release + Release.gpg (detached) by
 * libsolvext in-process, with gpgv as the fallback when libsolv cannot read
 * the keyring.
 *
 * Error mapping. Sources that do not parse: DL_ENV_SPEC_INVALID with
 * detail.field "packages.system.sources[i]", detail.source (the line) and
 * detail.reason "invalid_source". Everything that makes a repository unusable
 * is DL_ENV_PACKAGE_NOT_FOUND, retryable only when the cause is the network
 * (the cache's reasons: unreachable, timeout, truncated, http_status,
 * not_found, offline_cache_miss, too_large), with detail.url and
 * detail.reason one of:
 *   unsigned          no InRelease and no Release.gpg (and not trusted=yes)
 *   bad_signature     the signature does not verify, or no key of the
 *                     keyring made it (detail.keyid when known)
 *   keyring_missing   the keyring file cannot be read (detail.path)
 *   expired_release   Valid-Until is in the past (detail.valid_until)
 *   bad_release       the Release text does not parse, lacks Date/SHA256,
 *                     names another suite than asked, or lacks the component
 *                     or architecture (detail.message)
 *   hash_mismatch     a Packages file's sha256 or size differs from the
 *                     Release's
 *   bad_index         a Packages file cannot be decompressed or parsed
 * and `apt_index_show` of a name no repository has: reason `unknown_package`.
 * None of these is retryable. */
#ifndef EL_APT_INDEX_H
#define EL_APT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "debsources.h"
#include "cache.h"
#include "envlock/index.h"

struct s_Pool;

/* ---- sources.list entries (debsources.h) and snapshots (apt_sources.c) ---- */

/* The entries' syntax is versions/deb's (debsources.h); this reader takes
 * them as they are parsed there. */
typedef deb_source apt_source;

/* apt_snapshot_stamp_at() :
 *  Where the timestamp of a snapshot.debian.org URI starts
 *  ("http[s]://snapshot.debian.org/archive/ARCHIVE/YYYYMMDDTHHMMSSZ[/...]",
 *  the URI's first `len` bytes), or -1 when the URI is not one. */
long apt_snapshot_stamp_at(const char *uri, size_t len);

/* apt_source_at_cutoff() :
 *  --exclude-newer for a one-line source (issue 4: "the snapshot whose date
 *  is at or before it"): a snapshot.debian.org source whose timestamp is
 *  after `cutoff` (RFC 3339 UTC, "2024-03-15T00:00:00Z") is the same line
 *  with the cutoff's own timestamp, copied into `a`, since snapshot.debian.org
 *  serves for any instant the last snapshot taken at or before it. Any other
 *  line (another source, a snapshot at or before the cutoff, no cutoff) is
 *  returned as it is. */
const char *apt_source_at_cutoff(const char *line, const char *cutoff, arena *a);

/* The keyring apt itself verifies Debian's archive with, for sources that
 * name no signed-by and a query that names no keyring. */
#define APT_DEFAULT_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"

/* ---- Release files (apt_release.c) ---- */

typedef struct apt_release_file {
    const char *path;            /* "main/binary-amd64/Packages.xz" */
    uint64_t size;
    char sha256[65];
} apt_release_file;

typedef struct apt_release {
    const char *origin, *label, *suite, *codename, *version; /* NULL if absent */
    const char *date_text;       /* NULL if absent */
    int64_t date;                /* seconds since the epoch (UTC) */
    const char *valid_until_text;
    int64_t valid_until;         /* valid only if valid_until_text */
    const char *const *architectures;
    size_t n_architectures;
    const char *const *components;
    size_t n_components;
    bool by_hash;                /* Acquire-By-Hash: yes */
    bool no_arch_all_packages;   /* No-Support-for-Architecture-all: Packages */
    bool not_automatic;          /* NotAutomatic: yes (experimental, backports) */
    bool but_automatic_upgrades; /* ButAutomaticUpgrades: yes (backports) */
    const apt_release_file *files; /* the SHA256 list, in order */
    size_t n_files;
} apt_release;

/* apt_release_parse() :
 *  Parses Release text (the signed part of an InRelease, or a Release file):
 *  deb822 fields with folded values, the SHA256 file list ("hex size path",
 *  one per continuation line). Date and SHA256 are required; Valid-Until is
 *  parsed when present. Unknown fields are ignored, and so are MD5Sum/SHA1
 *  lists. Everything is allocated in `a`. Returns 0, or -1 with *err a
 *  malloc'd sentence (caller frees). */
int apt_release_parse(const char *text, size_t len, arena *a, apt_release *out, char **err);

/* apt_release_find() : the entry for `path`, or NULL. */
const apt_release_file *apt_release_find(const apt_release *r, const char *path);

/* apt_date_parse() :
 *  Release dates as apt reads them: RFC 1123 "Sat, 10 Jun 2023 08:49:33 UTC"
 *  (zone UTC, GMT, Z or a numeric +hhmm/-hhmm offset; the weekday may be
 *  omitted; a one-digit day is allowed). Returns 0 with *out the UTC epoch,
 *  or -1. */
int apt_date_parse(const char *s, int64_t *out);

/* apt_clearsigned_split() :
 *  The signed text of an OpenPGP clearsigned message (dash-escaping undone,
 *  each line ending in "\n") — used to cross-check gpgv's output and by the
 *  fuzz target. Returns 0 with *text and *len malloc'd (caller frees), or -1 if
 *  `msg` is not exactly one clearsigned message (text before the armor
 *  header or after the signature is refused). */
int apt_clearsigned_split(const char *msg, size_t n, char **text, size_t *len);

/* ---- signatures (apt_verify.c) ---- */

typedef enum apt_sig_result {
    APT_SIG_GOOD = 0,
    APT_SIG_BAD,          /* does not verify, or made by an unknown key */
    APT_SIG_NO_KEYRING,   /* the keyring cannot be read */
    APT_SIG_NO_TOOL       /* gpgv is not installed */
} apt_sig_result;

/* apt_verify_clearsigned() :
 *  Runs `gpgv --status-fd --keyring KEYRING --output FILE` on `msg`
 *  (posix_spawn, no shell, private temp dir as GnuPG home). GOOD only with
 *  exit status 0, a GOODSIG/VALIDSIG status and no BADSIG/ERRSIG/NO_PUBKEY/
 *  EXPKEYSIG/REVKEYSIG; then *text and *len are the signed text as gpgv wrote it
 *  (malloc'd). *why (malloc'd, may be NULL) explains a non-GOOD result. */
apt_sig_result apt_verify_clearsigned(const char *keyring, const void *msg, size_t n, char **text,
                                      size_t *len, char **why);

/* apt_verify_detached() :
 *  Verifies an (armored or binary) detached signature over `data` with
 *  libsolvext against the keyring (subkeys included); falls back to gpgv
 *  when libsolv reads no key from the keyring or cannot parse the
 *  signature. */
apt_sig_result apt_verify_detached(const char *keyring, const void *data, size_t n,
                                   const void *sig, size_t sig_n, char **why);

/* ---- loading (apt_index_load.c) ---- */

typedef struct apt_load_options {
    const char *const *sources;  /* one-line entries; at least one (the target's) */
    size_t n_sources;
    const char *keyring;         /* for sources without signed-by; NULL: default */
    const char *arch;            /* "amd64"; required */
    bool ignore_valid_until;
    int64_t now;                 /* for Valid-Until; 0: the wall clock */
    const char *status_file;     /* a dpkg status file to load as the installed
                                    repo, or NULL */
    /* Told once per Packages entry refused for a name, version or
     * Filename outside Debian's grammar (apt_loader_refused()); NULL:
     * notes are dropped. */
    void (*note)(void *user, const char *text);
    void *note_user;
} apt_load_options;

/* What the lock records about one loaded Packages index. */
typedef struct apt_repo_info {
    const char *repo_name;       /* the libsolv repo's name: "URI SUITE/COMP/binary-ARCH" */
    const char *uri;             /* canonical archive URI (never a mirror) */
    const char *suite;
    const char *component;       /* "" for a flat repository */
    const char *arch;            /* the index's architecture (or "all") */
    const char *release_url;     /* the InRelease or Release URL used */
    char release_sha256[65];     /* of the signed Release text */
    const char *release_date;    /* the Release's Date: as written */
    int64_t release_epoch;
    const char *origin, *label, *codename; /* or NULL */
    int pin_priority;            /* apt's default pin priority of the index
                                    (apt_preferences(5)): 500, or 1 for a
                                    NotAutomatic suite, 100 when it also says
                                    ButAutomaticUpgrades */
    const char *packages_url;    /* canonical path URL (not by-hash) */
    char packages_sha256[65];    /* of the uncompressed Packages when the
                                    Release lists it, else of the fetched file */
    uint64_t packages_size;
    bool signature_checked;      /* false only for trusted=yes */
    bool from_solv_cache;        /* loaded from a .solv blob (no parse) */
    unsigned n_packages;
    int source_index;            /* which source (0-based) */
} apt_repo_info;

typedef struct apt_loader apt_loader;

/* apt_loader_new() :
 *  Parses the sources (failing with DL_ENV_SPEC_INVALID, see above; NULL is
 *  returned). Borrows `c` until apt_loader_free(); copies the options. */
apt_loader *apt_loader_new(el_ctx *ctx, cache *c, const apt_load_options *o);
void apt_loader_free(apt_loader *l);

/* apt_loader_submit() :
 *  Submits every fetch (Release files first; their callbacks verify them and
 *  submit the Packages fetches, skipping those whose parsed repo is already
 *  in the cache). The caller then drives cache_run() (possibly together
 *  with other readers' requests). */
void apt_loader_submit(apt_loader *l);

/* apt_loader_load_into() :
 *  After cache_run(): checks every fetch, then creates one libsolv repo per
 *  Packages index in `pool` (repo_add_debpackages, or repo_add_solv from the
 *  cached blob; a blob libsolv refuses is dropped and rebuilt from the
 *  Packages file, fetching it if needed — which runs the cache again), and
 *  the installed repo from options.status_file (pool_set_installed). The
 *  pool should be DISTTYPE_DEB with its arch set; whatprovides is left for
 *  the caller to create. Returns EL_OK or the first failure (see above). */
el_code apt_loader_load_into(apt_loader *l, struct s_Pool *pool);

/* apt_solvable_size() :
 *  The `Size:` (bytes of the .deb) a Packages index gave for solvable p of
 *  a loaded repo, 0 when it gave none (libsolv's own reader drops it). */
uint64_t apt_solvable_size(struct s_Pool *pool, int p);

/* apt_loader_read() :
 *  apt_loader_new(), its fetches run (cache_run: the caller has nothing
 *  else in flight) and everything loaded into a pool of the loader's own
 *  (Debian, the loader's architecture), for readers that only look packages
 *  up with apt_loader_candidates() (index show, check). NULL with the
 *  failure on ctx. */
apt_loader *apt_loader_read(el_ctx *ctx, cache *c, const apt_load_options *o);

/* apt_repo_file_url() :
 *  The canonical URL of a file that a Packages index of `ri` names
 *  (`Filename:`, relative to the archive URI, as apt reads it for flat
 *  repositories too). In `a`. */
const char *apt_repo_file_url(const apt_repo_info *ri, const char *filename, arena *a);

/* A Packages entry that is not a candidate: its Package name is not
 * Debian's (policy 5.6.1: [a-z0-9][a-z0-9+.-]+), its Version not one dpkg
 * takes silently (policy 5.6.12, deb_version_parse() DEB_VALID), or its
 * Filename holds a character outside [A-Za-z0-9._+~%/-], a `..` segment or
 * a leading `/`. Such strings would reach apt-packages.txt, the lock and
 * `export --format apt` unquoted; they are removed from the pool right
 * after the load (a parsed-form .solv keeps them, so every run refuses
 * and notes them again). Strings shown with control bytes as `?`, at most
 * 120 bytes. */
typedef struct apt_refused {
    const char *name;      /* as written (shown form) */
    const char *version;   /* as written (shown form) */
    const char *reason;    /* "invalid_name", "invalid_version", "invalid_filename" */
    const char *why;       /* a sentence naming the index */
} apt_refused;

/* apt_loader_refused() : the entries refused by the last load, in index
 *  order. Borrowed until apt_loader_free(). */
const apt_refused *apt_loader_refused(const apt_loader *l, size_t *n);

/* apt_loader_repos() : the loaded indexes, in source order. Borrowed until
 *  apt_loader_free(). */
const apt_repo_info *apt_loader_repos(const apt_loader *l, size_t *n);

/* Statistics of the last load (benchmarks, tests). */
typedef struct apt_load_stats {
    unsigned parsed;             /* Packages files parsed with repo_add_debpackages */
    unsigned solv_hits;          /* repos loaded from a .solv blob */
    unsigned solv_rebuilt;       /* blobs libsolv refused, rebuilt */
    unsigned verified_inrelease; /* InRelease verified with gpgv */
    unsigned verified_detached;  /* Release.gpg verified */
    double solv_ms;              /* wall time opening, checking (size, CRC-32)
                                    and loading .solv blobs: the warm load */
} apt_load_stats;
void apt_loader_stats(const apt_loader *l, apt_load_stats *st);

/* apt_solv_blob_name() : the cache blob name of the parsed repo for a
 *  Packages index with this sha256 (covers libsolv's version and this
 *  reader's format). Caller frees. */
char *apt_solv_blob_name(const char *packages_sha256);

/* ---- what an index says about one name (apt_index_show.c) ---- */

typedef struct apt_candidate {
    const char *name, *version, *arch;
    const char *suite, *component, *repo_uri;
    /* relationship fields, each relation as Debian writes it, relations in
     * byte order (a .solv blob does not keep field order), "" if absent;
     * conflicts/breaks/replaces are the fields' text as written */
    const char *depends, *pre_depends, *recommends, *suggests, *conflicts, *breaks,
               *provides, *replaces, *enhances;
    const char *multi_arch, *priority, *source; /* or NULL */
    bool essential;
    const char *filename;        /* as in Packages */
    const char *url;             /* canonical pool URL */
    const char *sha256;          /* or NULL */
    uint64_t size;
    const char *provided_as;     /* set for a virtual match: the Provides entry */
    const apt_repo_info *repo;
} apt_candidate;

/* apt_loader_candidates() :
 *  After apt_loader_load_into(): every solvable named `name` in the loaded
 *  repos (not the installed one), newest first (dpkg order, then repo
 *  order); when none, the providers of `name` (virtual package), with
 *  provided_as set. Strings live in `a`. */
void apt_loader_candidates(apt_loader *l, const char *name, arena *a, apt_candidate **out,
                           size_t *n);

/* apt_index_show() : see indexes/index_show.c and envlock/index.h. */
el_code apt_index_show(el_ctx *ctx, cache *c, const el_index_query *q, bool json, strbuf *out);

#endif

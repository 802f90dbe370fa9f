/* npm_index.h — the npm registry reader: packuments (the registry's JSON
 * document for one package name) fetched through cache/, parsed into typed
 * candidate records, judged against the target (os, cpu, libc, publish
 * cutoff), and shown by `envlock index show npm:NAME`. Also the .npmrc
 * reader that finds a registry's auth token.
 *
 * Three layers, each usable alone:
 *   npm_packument_parse()  bytes -> records (no I/O; what the fuzzer drives)
 *   npm_rc_*               .npmrc text -> settings; auth for a registry URL
 *   npm_loader_*           "load these names": submit, cache_run(), read
 * and npm_index_show(), which the index dispatcher calls.
 *
 * Records live in one arena per packument and stay valid until the loader
 * (or npm_packument_free()) is freed. Strings are exactly what the registry
 * wrote unless a comment says otherwise. */
#ifndef EL_NPM_INDEX_H
#define EL_NPM_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "envlock.h"
#include "envlock/index.h"
#include "util.h"
#include "cache.h"
#include "semver.h"

/* The public registry, used when a query or spec names none. */
#define NPM_DEFAULT_REGISTRY "https://registry.npmjs.org"
/* Accept headers. The abbreviated ("corgi") document carries everything an
 * install needs except publish times; a cutoff needs the full one. */
#define NPM_ACCEPT_ABBREVIATED \
    "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"
#define NPM_ACCEPT_FULL "application/json"
/* Size cap of one packument. The largest real full documents (@types/node,
 * typescript) are tens of MiB; anything past this is refused as too_large
 * rather than parsed into memory several times its size. */
#define NPM_PACKUMENT_MAX_BYTES (128u * 1024u * 1024u)

/* ---- the target ---- */

/* What a version is judged against. Zeroed fields take the defaults:
 * os "linux", cpu "x64", libc "glibc", node unknown, no cutoff. */
typedef struct npm_target {
    const char *os;           /* process.platform: "linux" */
    const char *cpu;          /* process.arch: "x64", "arm64" */
    const char *libc;         /* "glibc" or "musl" */
    const char *node_version; /* NULL: unknown (engines are then only recorded) */
    const char *cutoff;       /* RFC 3339; versions published after it are excluded */
    bool publish_times;       /* full documents (with `time`) even without a cutoff */
} npm_target;

/* npm_target_for() :
 *  The Linux target of a base or a lock: cpu arm64 when `arch` is arm64 or
 *  `platform` (a wheel platform tag) ends in aarch64, else x64; libc musl
 *  for a musllinux platform, else glibc; `cutoff` as given. Any may be NULL.
 *  Borrows the strings. */
void npm_target_for(npm_target *t, const char *arch, const char *platform, const char *cutoff);

/* npm_target_from_query() :
 *  The target an el_index_query describes: cpu arm64 when q->platform ends
 *  in aarch64 or q->apt_arch is arm64 (else x64), libc musl for a musllinux
 *  platform, cutoff q->exclude_newer. Borrows q's strings. */
void npm_target_from_query(const el_index_query *q, npm_target *t);

/* npm_time_parse() :
 *  RFC 3339 / ISO 8601 date-time ("2024-05-02T12:00:00.000Z", offsets
 *  "+02:00", a bare date "2024-05-02" as midnight UTC) to milliseconds since
 *  the epoch. false when `s` is not such a time. */
bool npm_time_parse(const char *s, int64_t *ms);

/* ---- records ---- */

typedef enum npm_dep_kind {
    NPM_DEP_PROD,          /* dependencies (minus the optional ones) */
    NPM_DEP_OPTIONAL,      /* optionalDependencies */
    NPM_DEP_PEER,          /* peerDependencies */
    NPM_DEP_PEER_OPTIONAL  /* peerDependencies marked optional in peerDependenciesMeta */
} npm_dep_kind;

/* How a dependency's spec reads (npm-package-arg's classification, for
 * what a registry manifest can hold). */
typedef enum npm_dep_spec {
    NPM_SPEC_IS_RANGE,  /* a semver range (loose); `range` is parsed */
    NPM_SPEC_IS_TAG,    /* a dist-tag such as "latest" or "next" */
    NPM_SPEC_IS_ALIAS,  /* "npm:other@range": `alias_name`, and `range` if any */
    NPM_SPEC_IS_OTHER   /* git, tarball URL, file:, link:, workspace:, github
                           shorthand, or something invalid: only `spec` */
} npm_dep_spec;

typedef struct npm_dep {
    const char *name;
    const char *spec;          /* as written ("^1.2.0", "npm:x@^2", "latest") */
    npm_dep_kind kind;
    npm_dep_spec spec_kind;
    const char *range_text;    /* the text of its range (the spec, or an alias's
                                  part after '@', leading blanks skipped) when
                                  that parses with NPM_LOOSE, else NULL: the
                                  range itself is npm_dep_range()'s */
    const char *alias_name;    /* NPM_SPEC_IS_ALIAS: the real package, else NULL */
    npm_range *range_;         /* internal: npm_dep_range()'s parse, or NULL */
} npm_dep;

/* npm_dep_range() :
 *  d's range, parsed from range_text on the first call and kept until its
 *  packument is freed; NULL when range_text is NULL. Lazy because a crawl
 *  reads packuments whose every version lists its dependencies and uses
 *  the ranges of a few versions: parsed up front, the ranges of a large
 *  app's packuments were most of its peak memory. A model belongs to one
 *  thread. */
const npm_range *npm_dep_range(const npm_dep *d);

typedef struct npm_engine {
    const char *name;          /* "node", "npm", ... */
    const char *range;         /* as written */
} npm_engine;

/* Why a version is not a candidate. Stable ids (npm_exclusion_id()). */
typedef enum npm_exclusion {
    NPM_EX_NONE = 0,
    NPM_EX_INVALID_VERSION,    /* "invalid_version": not semver */
    NPM_EX_INVALID_MANIFEST,   /* "invalid_manifest": a field has the wrong type */
    NPM_EX_MISSING_DIST,       /* "missing_dist": no dist.tarball */
    NPM_EX_AFTER_CUTOFF,       /* "after_cutoff" */
    NPM_EX_NO_PUBLISH_TIME,    /* "no_publish_time": a cutoff, and its time entry is
                                  not a date (a missing entry is kept, as npm does) */
    NPM_EX_OS_MISMATCH,        /* "os_mismatch" */
    NPM_EX_CPU_MISMATCH,       /* "cpu_mismatch" */
    NPM_EX_LIBC_MISMATCH,      /* "libc_mismatch" */
    NPM_EX_BAD_TARBALL         /* "bad_tarball": dist.tarball is no http(s) URL
                                  in a packument read over http(s) (a file://
                                  one only from a registry read from file://,
                                  cache_link_allowed()), or its file name (the
                                  last path segment, what a lock records) is
                                  outside [A-Za-z0-9._~+-], "." or "..", or it
                                  has a query or fragment; the version then
                                  has no tarball */
} npm_exclusion;
#define NPM_EX_LAST NPM_EX_BAD_TARBALL

/* Facts that do not exclude a version but matter to the resolver or a user
 * (npm_flag_name() for each bit). */
#define NPM_FLAG_DEPRECATED       (1u << 0) /* npm installs it, but prefers others */
#define NPM_FLAG_ENGINES_UNCHECKED (1u << 1) /* engines.node given, target node unknown */
#define NPM_FLAG_ENGINES_MISMATCH (1u << 2) /* engines.node excludes the target's node */
#define NPM_FLAG_INSTALL_SCRIPT   (1u << 3) /* hasInstallScript (or install scripts) */
#define NPM_FLAG_INTEGRITY_SHA1   (1u << 4) /* no dist.integrity: sha1 from dist.shasum */
#define NPM_FLAG_NO_INTEGRITY     (1u << 5) /* neither integrity nor shasum */
#define NPM_FLAG_TARBALL_REBASED  (1u << 6) /* tarball URL mapped back to the registry */
#define NPM_FLAG_COUNT 7

typedef struct npm_version {
    const char *version;       /* the key in `versions`, exactly */
    npm_semver semver;         /* parsed (loose); zeroed when invalid */
    npm_dep *deps;             /* prod, optional, peer, in that order; by name within */
    size_t ndeps;
    const char **bundled;      /* bundleDependencies names */
    size_t nbundled;
    bool bundle_all;           /* bundleDependencies: true (every dependency) */
    const char *deprecated;    /* the message, or NULL ("" when the registry
                                  says `true`) */
    const char *license;       /* `license` as written (an SPDX expression,
                                  or "SEE LICENSE IN ..."); the old forms
                                  {type} and `licenses: [{type}...]` as
                                  "A" and "(A OR B)"; NULL when none. Not
                                  part of the identity. */
    const char **os, **cpu, **libc; /* as written, `!` negations kept */
    size_t nos, ncpu, nlibc;
    npm_engine *engines;
    size_t nengines;
    const char *integrity;     /* SRI ("sha512-..."); sha1-... from shasum when
                                  NPM_FLAG_INTEGRITY_SHA1; NULL if none */
    const char *shasum;        /* dist.shasum (hex) or NULL */
    const char *tarball;       /* canonical URL (see npm_packument_parse()) */
    const char *tarball_served;/* the URL in the document when it was rebased, else NULL */
    const char *time;          /* publish time from `time` (full documents) or NULL */
    int64_t time_ms;           /* parsed, or INT64_MIN */
    unsigned flags;            /* NPM_FLAG_* */
    npm_exclusion excluded;    /* NPM_EX_NONE for a candidate */
    const char *why;           /* a sentence when excluded (else NULL) */
} npm_version;

typedef struct npm_dist_tag {
    const char *tag;
    const char *version;
} npm_dist_tag;

typedef struct npm_packument {
    const char *name;
    const char *registry;      /* canonical registry URL, ending in '/' */
    const char *url;           /* canonical packument URL */
    bool full;                 /* the document had `time` (a full packument) */
    const char *modified;      /* `modified` (abbreviated) or time.modified, or NULL */
    const char *identity;      /* its snapshot identity for a lock (format 2):
                                  "sha256:" and the SHA-256 of a canonical JSON
                                  text of what the reader took from it: the
                                  dist-tags and, per version (by key), its
                                  dependencies, bundled names, deprecation,
                                  os/cpu/libc, engines, integrity, tarball
                                  file name, install-script flag and, when the
                                  parse had a cutoff (a full document was
                                  asked for), its publish time. Not the
                                  tarball URLs (a mirror rewrites them) nor
                                  anything else a mirror adds. */
    const char *etag;          /* of the response (a format-1 lock's identity); or NULL */
    const char *last_modified;
    bool from_cache;
    npm_dist_tag *tags;        /* sorted by tag */
    size_t ntags;
    /* Every version: candidates newest first (semver order, build metadata
     * and then bytes breaking ties), then the excluded ones (also newest
     * first, invalid versions last in byte order). ncandidates counts the
     * first part. */
    npm_version *versions;
    size_t nversions;
    size_t ncandidates;

    /* A failed load (npm_loader only): code != EL_OK and no versions. */
    el_code code;
    const char *reason;        /* "not_found", "invalid_packument", a cache reason */
    const char *message;
    long status;
    bool retryable;
    cache_failure fetch;       /* the response's own failure when the fetch
                                  failed (its limit, Retry-After, ...), else
                                  fetch.code == EL_OK */

    arena *arena_;             /* internal */
    struct npm_cold *cold_;    /* internal: npm_packument_cool()'s details */
} npm_packument;

/* npm_exclusion_id() : the stable id ("after_cutoff"); "" for NPM_EX_NONE. */
const char *npm_exclusion_id(npm_exclusion e);
/* npm_flag_name() : the name of flag bit `i` (0..NPM_FLAG_COUNT-1). */
const char *npm_flag_name(unsigned i);
/* npm_dep_kind_name() : "dependencies", "optionalDependencies",
 * "peerDependencies", "peerDependencies (optional)". */
const char *npm_dep_kind_name(npm_dep_kind k);

/* npm_dep_spec_what() : what a dependency spec that names no registry
 * version is, for a message: "a git URL", "a tarball URL", "a local path",
 * "an alias", ... (the forms classify() tells apart as NPM_SPEC_IS_OTHER). */
const char *npm_dep_spec_what(const char *spec);

/* npm_packument_find_tag() : the version a dist-tag names, or NULL. */
const char *npm_packument_find_tag(const npm_packument *p, const char *tag);
/* npm_packument_find() : the record of `version` (exact key), or NULL. */
const npm_version *npm_packument_find(const npm_packument *p, const char *version);

/* ---- parsing ---- */

typedef struct npm_parse_options {
    const char *name;          /* the name asked for; the document must agree */
    const char *registry;      /* canonical registry URL; NULL: the default */
    const char *served_base;   /* the registry URL the document was actually
                                  fetched from, if it was a mirror; NULL: same */
    /* Maps a URL the document names to the canonical URL it stands for
     * (malloc'd; a copy when none applies); NULL: no mapping. The loader
     * passes the cache's mirror table (cache_canonical_url()). */
    char *(*canonical_url)(void *user, const char *url);
    void *canonical_user;
    const npm_target *target;  /* NULL: the default target */
    size_t max_bytes;          /* 0: NPM_PACKUMENT_MAX_BYTES */
} npm_parse_options;

/* npm_packument_parse() :
 *  Parses a packument (abbreviated or full; either is accepted whatever was
 *  asked for) and judges every version against the target. Tarball URLs are
 *  kept as the document writes them when they are under the canonical
 *  registry or on another host; a URL that `canonical_url` maps to another
 *  URL, or that lies under `served_base` (a mirror that rewrote them), is
 *  recorded canonical and flagged NPM_FLAG_TARBALL_REBASED (see set_tarball
 *  in npm_packument.c for the one fallback: a tarball on the mirror's own
 *  origin in the registry's NAME/-/FILE.tgz layout).
 *  A version that cannot be used is excluded with a reason, never fatal;
 *  the whole document fails only when it is not JSON, not an object, has a
 *  `versions` or `dist-tags` of the wrong type, names another package, or is
 *  larger than max_bytes.
 *  @return 0 and *out (npm_packument_free()), or -1 with *reason ("too_large"
 *  or "invalid_packument", static) and *err (malloc'd sentence). */
int npm_packument_parse(const char *body, size_t len, const npm_parse_options *o,
                        npm_packument **out, const char **reason, char **err);
/* npm_packument_parse_full_tree() :
 *  For tests only: npm_packument_parse() from json-c's whole tree instead
 *  of the pruned one, to show both give the same records and failures. */
int npm_packument_parse_full_tree(const char *body, size_t len, const npm_parse_options *o,
                                  npm_packument **out, const char **reason, char **err);
void npm_packument_free(npm_packument *p);

/* npm_tarball_assign() :
 *  Sets v->tarball (and tarball_served, NPM_FLAG_TARBALL_REBASED) for the
 *  URL `url` a document names, by the rule of npm_packument_parse();
 *  `registry` canonical, `served_base` normalized or NULL. Strings go to `a`.
 *  Shared by the parser and the parsed-form reader, which redoes it so that
 *  the cache's mirror table of this run applies. */
void npm_tarball_assign(arena *a, const char *registry, const char *name, const char *served_base,
                        const npm_parse_options *o, npm_version *v, const char *url);

/* ---- cold versions (npm_packument_cold.c) ---- */

/* npm_packument_cool() :
 *  Keeps of each version of p (a successful load; anything else is left
 *  alone) only its head: version, semver, deprecated, license, time,
 *  time_ms, flags, excluded, why, and p's own fields; the details (deps,
 *  bundled and bundle_all, os/cpu/libc, engines, integrity, shasum,
 *  tarball, tarball_served) are kept compressed and read as absent (NULL,
 *  0, false) until npm_version_warm(). For a crawl, which picks among
 *  every version of a packument and uses the details of a few. Any
 *  pointer into p taken before is invalid after; p itself and p->versions
 *  stay where they are. */
void npm_packument_cool(npm_packument *p);

/* npm_version_warm() :
 *  v (a version of p, or NULL) with its details present: decoded into p's
 *  arena on the first call after npm_packument_cool(), in place (v and
 *  pointers into its head stay valid). A no-op for a packument never
 *  cooled. Returns v. A model belongs to one thread. */
const npm_version *npm_version_warm(const npm_packument *p, const npm_version *v);
/* npm_version_is_cold() : whether v's details are absent until warmed. */
bool npm_version_is_cold(const npm_packument *p, const npm_version *v);

/* ---- the parsed form (npm_packument_blob.c) ----
 * A packument as npm_packument_parse() made it, in a compact binary form
 * kept as a cache blob beside the body it came from, so that a page the
 * cache already holds (a fresh hit, or a 304) is not parsed again. */

/* Bump when the layout or the meaning of a field changes. */
#define NPM_BLOB_FORMAT 4 /* 2: empty non-object dependency maps read as no dependencies;
                             3: bad_tarball; 4: license */

/* npm_packument_blob_name() :
 *  The cache blob name for the parsed form of the body whose hex sha256 is
 *  `body_sha256` under the options `o` that change the model (name,
 *  registry, served_base, the target's os/cpu/libc/node/cutoff; not the
 *  mirror table, which the reader applies again). malloc'd. */
char *npm_packument_blob_name(const char *body_sha256, const npm_parse_options *o);

/* npm_packument_blob_write() :
 *  Appends the parsed form of `p` (a successful parse of the body with hex
 *  sha256 `body_sha256` under `o`) to `out`. */
void npm_packument_blob_write(const npm_packument *p, const char *body_sha256,
                              const npm_parse_options *o, strbuf *out);

/* npm_dep_put() :
 *  Appends dependency d as the parsed form encodes it (name, spec, kind,
 *  spec kind, alias name, range text); also the encoding of a cooled
 *  version's details (npm_packument_cold.c). */
void npm_dep_put(strbuf *sb, const npm_dep *d);

/* npm_packument_blob_read() :
 *  The packument a parsed form describes, when it verifies: its magic,
 *  format NPM_BLOB_FORMAT, the body hash and options key it was made for
 *  (`body_sha256`, `o`), every length and count within the data, every enum
 *  in range, strings free of NUL, versions and ranges that parse again, and
 *  nothing left over. The tarball URLs are mapped again with `o` (see
 *  npm_tarball_assign()). etag, last_modified and from_cache are not part
 *  of it (the loader sets them).
 *  @return 0 and *out (npm_packument_free()), or -1 (*out NULL): the caller
 *  parses the body instead. */
int npm_packument_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                            const npm_parse_options *o, npm_packument **out);

/* npm_packument_url() :
 *  The canonical URL of `name`'s packument under `registry` (NULL: the
 *  default): registry + "/" + the name with a scope's "/" written "%2f", as
 *  the registry expects. malloc'd. */
char *npm_packument_url(const char *registry, const char *name);

/* npm_registry_normalize() : `registry` with exactly one trailing '/'
 *  (NULL or "": the default registry). malloc'd. */
char *npm_registry_normalize(const char *registry);

/* ---- .npmrc ---- */

typedef struct npm_rc npm_rc;

/* npm_rc_parse() :
 *  Parses .npmrc text (ini: `key = value`, `#`/`;` comment lines and
 *  trailing comments on unquoted values, "quoted" values, [sections] whose
 *  keys npm never reads and so are skipped, `${VAR}` expanded from the
 *  environment via `getenv_fn` (NULL: getenv), `${VAR?}` empty when unset).
 *  A line naming an unset `${VAR}` is dropped and noted, as npm refuses it.
 *  Never fails; `origin` names the file in notes. */
npm_rc *npm_rc_parse(const char *text, size_t len, const char *origin,
                     const char *(*getenv_fn)(const char *name));
/* npm_rc_load_user() :
 *  Reads the user config: $NPM_CONFIG_USERCONFIG (or npm_config_userconfig)
 *  if set, else ~/.npmrc. A missing file gives an empty config. */
npm_rc *npm_rc_load_user(void);
void npm_rc_free(npm_rc *rc);

/* npm_rc_get() : the last value of `key` (keys compare exactly), or NULL. */
const char *npm_rc_get(const npm_rc *rc, const char *key);
/* npm_rc_scope_registry() : `@scope:registry` for the scope of `name`
 *  ("@corp/x" -> the value of "@corp:registry"), or NULL. */
const char *npm_rc_scope_registry(const npm_rc *rc, const char *name);
/* npm_rc_notes() : problems seen while parsing ("FILE:LINE: ..."), never
 *  containing a value. */
size_t npm_rc_nnotes(const npm_rc *rc);
const char *npm_rc_note(const npm_rc *rc, size_t i);

/* npm_rc_auth() :
 *  The Authorization header value for requests to `url` the way npm finds
 *  it: the key `//host[:port]/path/:_authToken` (then `:_auth`, then
 *  `:username` + `:_password`) with the longest path that is a prefix of
 *  url's, walking up to `//host`. "Bearer TOKEN" or "Basic B64", malloc'd;
 *  NULL when nothing matches (also for non-http(s) URLs). */
char *npm_rc_auth(const npm_rc *rc, const char *url);

/* npm_rc_scoped() :
 *  The value of a registry-scoped setting (`//host[:port]/path/:FIELD`,
 *  such as certfile and keyfile) for `url`, with the longest matching path
 *  as npm_rc_auth() walks it; borrowed from `rc`, or NULL. */
const char *npm_rc_scoped(const npm_rc *rc, const char *url, const char *field);

/* npm_auth_for_registry() :
 *  The Authorization value envlock sends to `registry` (and only to it):
 *  "Bearer TOKEN" for `token` when set (the caller's option: the CLI's
 *  ENVLOCK_NPM_TOKEN), else what `rc` matches for the registry URL, else
 *  npm_config__authToken (npm's legacy unscoped token). malloc'd or NULL.
 *  Never printed, logged or recorded. */
char *npm_auth_for_registry(const npm_rc *rc, const char *registry, const char *token,
                            const char *(*getenv_fn)(const char *name));


/* ---- bundled packages (npm_bundle.c) ----
 * What a tarball ships in its own node_modules (bundleDependencies): npm
 * reads it from the tarball, as its lock's `inBundle` entries show. */

typedef struct npm_bundled_dep {
    const char *name, *spec;
    npm_dep_kind kind;
} npm_bundled_dep;

typedef struct npm_bundled {
    const char *path;          /* below the bundler: "node_modules/a/node_modules/@s/b" */
    const char *name;          /* its package.json name, else the folder */
    const char *version;       /* as its package.json writes it */
    npm_bundled_dep *deps;     /* dependencies, optional, peer (as npm's edges) */
    size_t ndeps;
} npm_bundled;

typedef struct npm_bundle {
    npm_bundled *pkgs;         /* sorted by path (bytes) */
    size_t n;
    arena *arena_;             /* internal */
} npm_bundle;

/* Size cap of a tarball read for its bundled tree (aws-cdk-lib: 35 MB). */
#define NPM_BUNDLE_TARBALL_MAX_BYTES (256u * 1024u * 1024u)

/* npm_bundle_parse() :
 *  The packages in a tarball's node_modules (gzip'd tar, the top folder
 *  whatever its name): every regular file NODE_MODULES_PATH/package.json
 *  whose folders are npm package names (no "." or "..", at most 24 levels)
 *  and whose JSON has a version. Other entries are skipped. Bounded: 400,000
 *  entries, 5,000 packages, 1 MiB per package.json.
 *  @return 0 and *out (npm_bundle_free()), or -1 and *err (malloc'd). */
int npm_bundle_parse(const unsigned char *tgz, size_t len, npm_bundle **out, char **err);
void npm_bundle_free(npm_bundle *b);
/* The cache blob of the bundle of the tarball with `integrity` (malloc'd),
 * its text, and reading it back (-1 when it does not verify). */
char *npm_bundle_blob_name(const char *integrity);
void npm_bundle_blob_write(const npm_bundle *b, const char *integrity, strbuf *out);
int npm_bundle_blob_read(const unsigned char *data, size_t len, const char *integrity,
                         npm_bundle **out);

/* ---- the loader ---- */

typedef struct npm_loader npm_loader;

typedef struct npm_loader_options {
    const char *registry;      /* canonical registry; NULL: the default */
    const npm_target *target;  /* copied; NULL: the default target */
    const npm_rc *rc;          /* auth source; NULL: the user's .npmrc is read */
    bool no_auth;              /* send no Authorization at all */
    uint64_t max_bytes;        /* per packument; 0: NPM_PACKUMENT_MAX_BYTES */
    const char *served_base;   /* where the registry is really served (a mirror),
                                  to map tarball URLs back; NULL: what the
                                  cache's mirror table says (cache_served_url());
                                  tarball URLs also go through
                                  cache_canonical_url() */
    /* Called once per finished load (success or failure), from cache_run();
     * may call npm_loader_submit() for more names. */
    void (*loaded)(npm_loader *l, const npm_packument *p, void *user);
    void *user;
    bool cold;                 /* hand out packuments cooled (npm_packument_cool()):
                                  the reader warms the versions it reads
                                  details of (npm_version_warm()) */
} npm_loader_options;

/* npm_loader_new() : a loader fetching through `c` (borrowed; it must
 *  outlive the loader's runs). The full document is requested when the
 *  target has a cutoff, the abbreviated one otherwise. */
npm_loader *npm_loader_new(cache *c, const npm_loader_options *o);
void npm_loader_free(npm_loader *l);

/* npm_loader_submit() :
 *  Queues a load of `name` (a second submit of the same name is a no-op).
 *  Nothing is fetched until cache_run() (or npm_loader_run()); callable from
 *  a `loaded` callback. An invalid name fails its load at once (reason
 *  "invalid_name") without a request. */
void npm_loader_submit(npm_loader *l, const char *name);

/* npm_loader_run() : cache_run() on the loader's cache. */
el_code npm_loader_run(npm_loader *l, el_ctx *ctx);

/* npm_loader_get() :
 *  The result for `name`: NULL if never submitted or still in flight; else
 *  a packument, which may be a failed one (p->code != EL_OK). Borrowed
 *  until npm_loader_free(). */
const npm_packument *npm_loader_get(const npm_loader *l, const char *name);
/* All results in submission order. */
size_t npm_loader_count(const npm_loader *l);
const npm_packument *npm_loader_at(const npm_loader *l, size_t i);

/* npm_loader_blob_stats() :
 *  How many packuments this loader read from their parsed form in the
 *  cache (instead of parsing), and how many parsed forms it stored. */
void npm_loader_blob_stats(const npm_loader *l, size_t *read, size_t *written);

/* npm_loader_bundle() :
 *  The bundled tree of version v of p (v has bundleDependencies): from the
 *  cache blob of its integrity, else its tarball fetched (auth only when
 *  the tarball is under the loader's registry), checked against the
 *  integrity and read (npm_bundle_parse()). Kept by the loader: a second
 *  call returns the same. Failures: the fetch's own code, or
 *  DL_ENV_PACKAGE_NOT_FOUND (reason integrity_mismatch, invalid_tarball,
 *  no_tarball) naming the package. *out borrowed until npm_loader_free(). */
el_code npm_loader_bundle(npm_loader *l, el_ctx *ctx, const npm_packument *p,
                          const npm_version *v, const npm_bundle **out);
/* npm_loader_bundle_get() : a bundle npm_loader_bundle() has read, or NULL. */
const npm_bundle *npm_loader_bundle_get(const npm_loader *l, const npm_packument *p,
                                        const npm_version *v);

/* npm_load_fail() : records a failed load on ctx (code, message,
 *  detail.reason, detail.package, detail.url, detail.status) and returns
 *  its code. */
el_code npm_load_fail(el_ctx *ctx, const npm_packument *p);

/* ---- `envlock index show npm:NAME` ---- */

/* npm_index_show() :
 *  Loads q->package's packument (the name after "npm:") from
 *  q->npm_registry and appends to `out` the dist-tags, the candidates newest
 *  first (dependencies of each kind, integrity, tarball, flags) and every
 *  excluded version with its reason; or, with `json`, one JSON object.
 *  Failures: DL_ENV_PACKAGE_NOT_FOUND (unknown name, unreachable registry,
 *  offline cache miss, malformed or oversized packument: detail.reason),
 *  DL_ENV_SPEC_INVALID for an invalid package name. */
el_code npm_index_show(el_ctx *ctx, struct cache *c, const el_index_query *q, bool json,
                       strbuf *out);

#endif

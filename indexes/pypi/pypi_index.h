/* pypi_index.h — the PyPI index reader: PEP 503 HTML and PEP 691 JSON
 * project pages, core metadata (PEP 658/714 `.metadata` files, a wheel's
 * METADATA, an sdist's PKG-INFO), wheel tags for a target, and the candidate
 * records the resolver builds its pool from.
 *
 * Layers, each usable on its own (the unit tests and fuzzers drive them):
 *   pypi_tags.c        wheel filenames and the target's ordered tag list
 *   pypi_meta.c        core metadata (RFC 822-style headers)
 *   pypi_license.c     the license core metadata declares, as one text
 *   pypi_page.c        project pages -> file records (JSON and HTML)
 *   pypi_page_blob.c   a parsed page's compact binary form (cache blob)
 *   pypi_index_load.c  the loader: pages through the cache, several indexes,
 *                      exclusions, metadata fetching, one cache run
 *   pypi_index_show.c  `envlock index show pypi:NAME`
 *
 * Reason ids of excluded candidates (stable; each comes with a sentence):
 *   invalid_version    the files' version is not PEP 440
 *   unsupported_url    no file of the version has a link envlock can fetch:
 *                      each resolves to something other than an http, https
 *                      or file URL with a host (`file:/x`, `a-1.0+02:00`,
 *                      which RFC 3986 reads as scheme `a-1.0+02`); such a
 *                      file is listed with this reason, never fetched
 *   local_link         no file of the version has a link envlock may fetch:
 *                      each is a file:// link on a page read over http or
 *                      https (cache_link_allowed()); listed, never read
 *   no_hash            no fetchable file has a sha256 on the page (PEP 503
 *                      `#sha256=`, PEP 691 `hashes.sha256`; md5 alone does
 *                      not do): a lock pins every file by hash and installs
 *                      with --require-hashes, so such a file is listed with
 *                      this reason, never locked
 *   no_upload_time     a cutoff is set and no file gives an upload time to
 *                      compare with it (every PEP 503 HTML page; PEP 691 JSON
 *                      without PEP 700 upload-time): out, as uv has it, since
 *                      nothing shows the file predates the cutoff
 *   after_cutoff       every dated file was uploaded after exclude_newer
 *                      (the undated ones were dropped just before)
 *   yanked             every remaining file is yanked (PEP 592; with reason)
 *   requires_python    Requires-Python (page or metadata) excludes the target
 *   no_compatible_wheel  no wheel for the target's tags and no sdist (or
 *                      an sdist --no-build / --only-binary refuses)
 *   no_binary          --no-binary refuses the version's wheels, and it has
 *                      no sdist (or --no-build / --only-binary refuses it)
 *   sdist_needs_build  no wheel for the target (none at all, or none whose
 *                      tags fit) and an sdist whose PKG-INFO is missing,
 *                      older than 2.2, or lists Requires-Dist as Dynamic
 *   metadata_mismatch  the metadata names another project or version
 *   invalid_metadata   the metadata cannot be read (not UTF-8, no headers,
 *                      a Requires-Dist that is not PEP 508, ...)
 *   missing_file       the file the metadata had to come from is not there
 *                      (HTTP 404): a dead link costs its version only
 *
 * Threading: none (one loader per cache run). */
#ifndef EL_PYPI_INDEX_H
#define EL_PYPI_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "envlock/index.h"
#include "pep440.h"
#include "pep508.h"
#include "util.h"

/* ---- wheel tags (pypi_tags.c) ---- */

typedef struct pypi_tag {
    const char *interp; /* "cp313", "py3" */
    const char *abi;    /* "cp313", "abi3", "none" */
    const char *plat;   /* "manylinux_2_17_x86_64", "any" */
} pypi_tag;

/* A parsed wheel filename: NAME-VER(-BUILD)?-PY-ABI-PLAT.whl with the
 * compressed tag sets expanded (every combination, in filename order). */
typedef struct pypi_wheel_name {
    const char *name;    /* as written (underscores for dashes, usually) */
    const char *version; /* as written */
    const char *build;   /* build tag or NULL; starts with a digit */
    uint64_t build_num;  /* its leading number (0 if none) */
    const char *build_rest;
    pypi_tag *tags;
    size_t ntags;
} pypi_wheel_name;

/* pypi_wheel_name_parse() :
 *  Split a wheel filename (no directory) into its parts, allocating from `a`.
 *  false with *err (malloc'd) when it is not a wheel filename: wrong number
 *  of dash-separated parts, an empty part, a name with characters other
 *  than ASCII letters, digits, `_` and `.`, a build tag not a digit then
 *  those, or a tag with other characters (the binary distribution format;
 *  so no shell or path character reaches a lock). The version is not
 *  checked here (PEP 440 is, by the loader). */
bool pypi_wheel_name_parse(arena *a, const char *filename, pypi_wheel_name *out, char **err);

/* The target's supported tags in packaging's sys_tags() preference order
 * (best first) for CPython X.Y on one Linux platform. */
typedef struct pypi_tags pypi_tags;

/* pypi_tags_new() :
 *  `python_version` "3.13" or "3.13.5" (CPython 3.x only); `platform` the
 *  most specific platform tag: manylinux_2_N_ARCH (also the legacy
 *  manylinux1/2010/2014 spellings) or musllinux_1_N_ARCH. The platform list
 *  is manylinux_2_N down to 2_5 (x86_64, i686) or 2_17 (other arches), each
 *  legacy alias right after its 2_N, or musllinux_1_N down to 1_0;
 *  linux_ARCH is never included (such wheels cannot come from an index).
 *  NULL with *err (malloc'd) for anything else. */
pypi_tags *pypi_tags_new(const char *python_version, const char *platform, char **err);
void pypi_tags_free(pypi_tags *t);
size_t pypi_tags_len(const pypi_tags *t);
/* The i-th tag as "interp-abi-plat" (borrowed). */
const char *pypi_tags_at(const pypi_tags *t, size_t i);
/* Preference rank of one tag (0 best), or -1 if the target cannot use it. */
long pypi_tags_rank(const pypi_tags *t, const pypi_tag *tag);
/* Best rank over a wheel's tags, or -1 if none is supported. */
long pypi_wheel_rank(const pypi_tags *t, const pypi_wheel_name *w);
/* Target facts: "cp313", "3.13", "3.13.0" (or as given), "x86_64",
 * libc "glibc"/"musl", and the platform tag as normalized
 * ("manylinux_2_36_x86_64"). Borrowed. */
const char *pypi_tags_interp(const pypi_tags *t);
const char *pypi_tags_python(const pypi_tags *t);
const char *pypi_tags_python_full(const pypi_tags *t);
const char *pypi_tags_arch(const pypi_tags *t);
const char *pypi_tags_platform(const pypi_tags *t);
bool pypi_tags_musl(const pypi_tags *t);

/* ---- core metadata (pypi_meta.c) ---- */

typedef struct pypi_core_meta {
    const char *metadata_version; /* as written, or NULL */
    unsigned mv_major, mv_minor;  /* parsed Metadata-Version (0.0 if absent) */
    const char *name;
    const char *version;
    const char *requires_python;  /* NULL if absent */
    const char *summary;
    const char **requires_dist;   /* as written, unfolded, trimmed */
    size_t n_requires_dist;
    const char **provides_extra;  /* canonicalized (PEP 685) */
    size_t n_provides_extra;
    const char **dynamic;         /* as written */
    size_t n_dynamic;
    const char *license_expression; /* License-Expression (PEP 639), or NULL */
    const char *license;          /* License (free text before PEP 639), or NULL */
    const char **license_classifiers; /* the `License :: ...` classifiers */
    size_t n_license_classifiers;
} pypi_core_meta;

/* pypi_core_meta_parse() :
 *  Parse core metadata (METADATA, PKG-INFO, a `.metadata` file): header
 *  lines `Field: value` up to the first empty line (the rest is the
 *  description body and is ignored), continuation lines (starting with a
 *  space or tab) appended to the previous field with the line break removed,
 *  field names case-insensitive, CRLF accepted. Strings come from `a`.
 *  false with *err (malloc'd) when the text is not UTF-8, contains a NUL,
 *  starts with a continuation line, has a header line without a colon, or
 *  lacks Name or Version. */
bool pypi_core_meta_parse(arena *a, const char *text, size_t len, pypi_core_meta *out,
                          char **err);
/* pypi_core_meta_license() :
 *  The license the metadata declares, as text a policy can read
 *  (pypi_license.c): License-Expression; else the license classifiers
 *  when each names one SPDX license, joined with AND (a list of
 *  classifiers does not say whether it is a choice); else the License
 *  field as written; else NULL. From `a` (or m's own strings). */
const char *pypi_core_meta_license(arena *a, const pypi_core_meta *m);
/* true if `field` (case-insensitive) is listed in Dynamic. */
bool pypi_core_meta_dynamic(const pypi_core_meta *m, const char *field);

/* pypi_archive_metadata() :
 *  The core metadata member of a distribution held in memory (libarchive):
 *  a wheel's (zip) top-level `*.dist-info/METADATA`, or with `sdist` an
 *  sdist's (tar.gz, tar.bz2 or zip) `<dir>/PKG-INFO`. Malloc'd,
 *  NUL-terminated, *out_len its length; members over 16 MiB are refused.
 *  NULL if there is none or the archive is unreadable; *err (static text)
 *  then says which. */
char *pypi_archive_metadata(const unsigned char *data, size_t len, bool sdist, size_t *out_len,
                            const char **err);

/* ---- project pages (pypi_page.c) ---- */

typedef enum pypi_page_format { PYPI_PAGE_HTML, PYPI_PAGE_JSON } pypi_page_format;

typedef struct pypi_file {
    const char *filename;
    const char *url;              /* absolute, resolved against the page URL,
                                     without the #fragment */
    const char *read_url;         /* where this run reads it, when not url's
                                     mirror: the link resolved against the URL
                                     the page was read from (a link that leaves
                                     the mirrored prefix); NULL otherwise */
    const char *sha256;           /* lowercase hex, or NULL */
    int64_t size;                 /* -1 if unknown */
    const char *upload_time;      /* as written (PEP 700), or NULL */
    int64_t upload_s;             /* seconds since the epoch; INT64_MIN unknown */
    const char *requires_python;  /* or NULL */
    bool yanked;
    const char *yanked_reason;    /* NULL when none was given */
    bool core_metadata;           /* a .metadata file is offered */
    const char *core_metadata_sha256; /* its sha256, or NULL */
    const char *bad_url;          /* "unsupported_url" when the link is no
                                     http, https or file URL with a host:
                                     then `url` is the link as written
                                     (control bytes shown as '?', at most
                                     200 bytes) and never fetched;
                                     "local_link" for a file:// link on a
                                     page read over http(s) (the same, see
                                     cache_link_allowed()); else NULL */
} pypi_file;

typedef struct pypi_page {
    pypi_page_format format;
    const char *api_version;      /* "1.1", or NULL if the page gives none */
    pypi_file *files;
    size_t nfiles;
} pypi_page;

/* pypi_page_parse() :
 *  Parse a project page: PEP 691 JSON when the body starts with `{` (after
 *  whitespace), else PEP 503 HTML (libxml2's HTML parser; `<base href>`
 *  honoured). Relative URLs resolve against `page_url` (RFC 3986 5.2).
 *  A file whose link resolves to no http, https or file URL with a host is
 *  kept with `bad_url` set (the loader lists it as unusable); one with no
 *  link or name at all is skipped. Strings come from `a`.
 *  Failure (EL_PACKAGE_NOT_FOUND, detail.reason `invalid_page`, detail.url
 *  = page_url): JSON that does not parse or has the wrong shape, an
 *  api-version whose major is not 1. */
el_code pypi_page_parse(el_ctx *ctx, arena *a, const char *body, size_t len,
                        const char *page_url, pypi_page *out);

/* pypi_page_parse_typed() :
 *  The same, with the response's Content-Type deciding the format (PEP 691:
 *  clients go by Content-Type): a `+json` type or application/json is
 *  JSON, a `+html` type or text/html is HTML, whatever the body looks like;
 *  only when content_type is NULL or names neither (file://,
 *  application/octet-stream) is the body sniffed as above. */
el_code pypi_page_parse_typed(el_ctx *ctx, arena *a, const char *body, size_t len,
                              const char *page_url, const char *content_type, pypi_page *out);

/* pypi_page_parse_read() :
 *  The same for a page read from `read_url` (a mirror's URL for the
 *  canonical `page_url`; NULL when the page was read from where it names
 *  itself): every link is resolved against both, `url` from the canonical
 *  page (what records name) and `read_url` from the page as read, where
 *  they differ. */
el_code pypi_page_parse_read(el_ctx *ctx, arena *a, const char *body, size_t len,
                             const char *page_url, const char *read_url,
                             const char *content_type, pypi_page *out);

/* pypi_page_url() : the project page the loader asks `index` for:
 *  `<index>/<name>/` (name PEP 503 normalized). Anyone reading a page the
 *  loader read (export, bundle) asks for this URL, so the cache has it. */
char *pypi_page_url(const char *index, const char *name);

/* pypi_page_read() :
 *  The page of a finished cache response as envlock reads it: parsed
 *  (pypi_page_parse_read(), the links resolved against the canonical URL
 *  and the URL the cache read), then every link a mirror wrote on its own
 *  host mapped back to the canonical URL, so `url` never names a mirror;
 *  `read_url` stays only where the file must be read elsewhere.
 *  The page is read from its parsed form, named by r->sha256, when one
 *  verifies (pypi_page_blob_read()), which gives the page the parse would;
 *  a page parsed here stores its parsed form (cache_blob_put_lazy(), best
 *  effort) for the next run. r's body must be at hand (a request without
 *  body_on_demand; the loader's own requests are on demand): a deferred
 *  one whose form misses is EL_IO, retryable, detail.reason
 *  cache_changed. */
el_code pypi_page_read(el_ctx *ctx, cache *c, const cache_response *r, arena *a,
                       pypi_page *out);

/* ---- the parsed form (pypi_page_blob.c) ----
 * A page as pypi_page_parse_read() made it, in a compact binary form kept
 * as a cache blob beside the body it came from, so that a page the cache
 * already holds is not parsed again. */

/* Bump when the layout or the meaning of a field changes. */
#define PYPI_BLOB_FORMAT 2

/* The inputs of a parse other than the body (pypi_page_parse_read()'s):
 * all of them are part of a parsed form's key. */
typedef struct pypi_page_src {
    const char *page_url;     /* the canonical page URL links resolve against */
    const char *read_url;     /* where the page was read from, or NULL */
    const char *content_type; /* the response's, or NULL (only the format it
                                 declares counts, pypi_page_format_of()) */
} pypi_page_src;

/* pypi_page_blob_name() :
 *  The cache blob name for the parsed form of the body whose hex sha256 is
 *  `body_sha256` read from `s`. The cache's mirror table is not part of it:
 *  pypi_page_read() maps links back after a read as after a parse.
 *  malloc'd; NULL (no parsed form kept) for a page read from a URL with
 *  credentials in it, which its form would hold. */
char *pypi_page_blob_name(const char *body_sha256, const pypi_page_src *s);

/* pypi_page_blob_write() :
 *  Appends the parsed form of `pg` (a successful pypi_page_parse_read() of
 *  the body with hex sha256 `body_sha256` from `s`) to `out`. */
void pypi_page_blob_write(const pypi_page *pg, const char *body_sha256, const pypi_page_src *s,
                          strbuf *out);

/* pypi_page_blob_read() :
 *  The page a parsed form describes, when it verifies: its magic, format
 *  PYPI_BLOB_FORMAT, the body hash and sources it was made for, its CRC-32,
 *  every length and count within the data, enums and flags in range,
 *  strings free of NUL, hashes 64 lowercase hex digits, no field a parse
 *  never gives (a yanked reason on a file not yanked, ...), and nothing
 *  left over. The payload is copied into `a` once and the strings point
 *  into it (also after a refusal, until `a` is freed).
 *  @return 0 and *out (its memory in `a`), or -1 (*out zeroed): the caller
 *  parses the body instead. */
int pypi_page_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                        const pypi_page_src *s, arena *a, pypi_page *out);

/* pypi_page_identity() :
 *  The page's snapshot identity for a lock (format 2): "sha256:" and the
 *  hex SHA-256 of the JSON text `[E,...]`, one E per file sorted by its
 *  text, E = [filename, sha256, requires-python, yanked, core-metadata]
 *  (null for a missing string; yanked false, true or the reason;
 *  core-metadata false, true or its sha256), written without spaces.
 *  Only what PEP 503 HTML and PEP 691 JSON both carry: no URLs (a mirror's
 *  links differ), sizes or upload times (HTML has none), so the same files
 *  give the same identity on any mirror and in either form. */
#define PYPI_IDENTITY_LEN 72
void pypi_page_identity(const pypi_page *pg, char out[PYPI_IDENTITY_LEN]);

/* pypi_page_format_of() : PYPI_PAGE_JSON or PYPI_PAGE_HTML for a
 *  Content-Type value (parameters and case ignored), -1 when it names
 *  neither or is NULL. */
int pypi_page_format_of(const char *content_type);

/* pypi_time_parse() : RFC 3339 date-time ("2024-01-01T00:00:00Z",
 *  fractions and offsets allowed) to seconds since the epoch. */
bool pypi_time_parse(const char *s, int64_t *out);

/* ---- the target ---- */

/* Build options, as uv and pip have them. Names are any spelling (compared
 * PEP 503 normalized); ":all:" in a list means every project. A project in
 * both lists by name is refused by the caller (a usage error); against
 * ":all:" of the other list, the name wins (pip's rule). */
typedef struct pypi_build_opts {
    bool no_build;                  /* --no-build: no sdist is used */
    const char *const *only_binary; /* --only-binary: no sdist for these */
    size_t n_only_binary;
    const char *const *no_binary;   /* --no-binary: no wheel for these */
    size_t n_no_binary;
} pypi_build_opts;

/* pypi_build_refuses() :
 *  The option that refuses `project`'s wheels (*wheels) and its sdists
 *  (*sdists), as the user would write it ("--no-build", "--only-binary
 *  :all:", "--no-binary numpy"), or NULL where none does. */
void pypi_build_refuses(const pypi_build_opts *b, const char *project, const char **wheels,
                        const char **sdists);

typedef struct pypi_target {
    pypi_tags *tags;
    pypi_version *python;     /* the full version, for Requires-Python */
    pypi_env env;             /* marker environment (strings owned here) */
    const char *exclude_newer;
    int64_t cutoff_s;         /* INT64_MAX when no cutoff */
    pypi_build_opts build;    /* borrowed; zero (pypi_target_init): none */
    bool keep_yanked;         /* false (pypi_target_init): a version whose
                                 remaining files are all yanked is excluded
                                 ("yanked"); true: it stays usable with
                                 `yanked` set, for a resolver that admits it
                                 only for an exact pin (PEP 592) */
    char *owned_[4];
} pypi_target;

/* pypi_target_init() :
 *  Fills *t for CPython `python_version` ("3.13" or "3.13.5") on `platform`
 *  (both required: the target's, from the bases catalog) with an optional
 *  cutoff.
 *  The marker environment: python_version X.Y, python_full_version and
 *  implementation_version X.Y.Z (X.Y.0 when only X.Y is given), os_name
 *  posix, sys_platform linux, platform_system Linux, platform_machine the
 *  arch, platform_python_implementation CPython, implementation_name
 *  cpython; platform_release/platform_version empty.
 *  EL_SPEC_INVALID (detail.field, detail.reason `invalid_target`) for a bad
 *  version, platform or cutoff. */
el_code pypi_target_init(el_ctx *ctx, pypi_target *t, const char *python_version,
                         const char *platform, const char *exclude_newer);
void pypi_target_clear(pypi_target *t);

/* ---- candidate records (pypi_index_load.c) ---- */

typedef enum pypi_kind { PYPI_WHEEL, PYPI_SDIST, PYPI_OTHER } pypi_kind;

typedef struct pypi_artifact {
    const pypi_file *file;        /* filename, canonical url, sha256, size,
                                     upload time, yanked, requires-python */
    pypi_kind kind;
    long rank;                    /* wheel: pypi_wheel_rank(); else -1 */
    const char *dropped;          /* why this file is unusable for the
                                     target (a reason id), or NULL */
} pypi_artifact;

typedef struct pypi_dep {
    const char *text;             /* Requires-Dist as written */
    pypi_requirement *req;        /* parsed (owned by the loader) */
} pypi_dep;

typedef enum pypi_meta_state {
    PYPI_META_NONE,      /* not fetched (outside the window) */
    PYPI_META_PENDING,   /* requested in this run */
    PYPI_META_LOADED,    /* deps/extras below are valid */
} pypi_meta_state;

typedef struct pypi_candidate {
    const char *version;          /* normalized (str(Version)); as written
                                     when invalid */
    pypi_version *parsed;         /* NULL when invalid (owned by the loader) */
    pypi_artifact *artifacts;     /* every file of this version, page order */
    size_t nartifacts;
    long chosen;                  /* artifact to install: the best-ranked
                                     usable wheel, else the sdist (also for
                                     a version whose wheels all miss the
                                     target, as pip and uv do); -1 */
    const char *wheels_missed;    /* when the sdist is chosen although the
                                     version has wheels: "no wheel for
                                     cp313 PLATFORM; wheels exist for ...";
                                     else NULL */
    const char *requires_python;  /* from the page, else the metadata */
    const char *upload_time;      /* earliest usable file's, or NULL */
    int64_t upload_s;
    bool yanked;                  /* every file yanked; with keep_yanked
                                     also: every file left after the cutoff */
    const char *yanked_reason;
    pypi_meta_state meta;
    const char *meta_source;      /* "metadata-file", "wheel", "pkg-info" */
    const char *license;          /* pypi_core_meta_license(), or NULL */
    pypi_dep *deps;
    size_t ndeps;
    const char **extras;          /* Provides-Extra, canonical */
    size_t nextras;
    const char *excluded;         /* reason id, or NULL when usable */
    const char *why;              /* the sentence, or NULL */
} pypi_candidate;

typedef struct pypi_project {
    const char *name;             /* PEP 503 normalized */
    const char *index;            /* the index that served it (canonical
                                     URL as given), or NULL */
    const char *page_url;         /* canonical project page URL */
    pypi_page_format format;
    bool from_cache;              /* the page came from the cache */
    const char *identity;         /* pypi_page_identity() of the page (its
                                     snapshot identity for a lock) */
    const char *etag;             /* the page response's ETag (a format-1
                                     lock's identity), or NULL */
    const char *last_modified;    /* its Last-Modified, or NULL */
    pypi_candidate *cands;        /* every version, newest first; invalid
                                     versions last */
    size_t ncands;
    size_t nrefused;              /* wheel or sdist files whose names leave
                                     their grammar: never candidates */
    const char *refused;          /* the first of them, control bytes as `?` */
    /* failure of the whole project (EL_OK when loaded) */
    el_code code;
    const char *reason;           /* detail.reason */
    const char *message;
    const char *fail_url;
    long fail_status;
    cache_failure fetch;         /* the response's own failure when a fetch
                                    failed (its limit, Retry-After, ...), else
                                    fetch.code == EL_OK */
    bool retryable;
} pypi_project;

/* The request for a project page: its Accept (PEP 691 JSON first, PEP 503
 * HTML as a fallback) is part of the cache key and picks the document whose
 * validators a lock records, so every reader of a page (the loader, `envlock
 * check`) must ask the same way; and its size cap (numpy's page is a few MB). */
#define PYPI_PAGE_ACCEPT                                                                     \
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "       \
    "text/html;q=0.01"
#define PYPI_PAGE_MAX ((uint64_t)64 << 20)

typedef struct pypi_loader pypi_loader;

/* pypi_loader_new() :
 *  A loader reading through `c` from `indexes` (canonical URLs in the
 *  spec's order; NULL/0: https://pypi.org/simple) for target `t`. Borrows c
 *  and t (they must outlive the loader); copies the index list. */
pypi_loader *pypi_loader_new(cache *c, const pypi_target *t, const char *const *indexes,
                             size_t nindexes);
void pypi_loader_free(pypi_loader *l);

/* pypi_loader_submit() :
 *  Asks for project `name` (any spelling; normalized per PEP 503) and the
 *  dependency metadata of its `window` newest usable versions (0: all of
 *  them). Nothing happens until cache_run(); callable again (also from
 *  inside a run) to widen a window: only what is missing is fetched.
 *  The indexes are tried in order; the first one whose page exists serves
 *  the whole name. A failure other than "not found" (timeout, offline miss,
 *  a bad page) stops there: it never falls through to a later index, since
 *  a later index could serve a look-alike of a private name. */
void pypi_loader_submit(pypi_loader *l, const char *name, size_t window);

/* pypi_loader_on_meta() :
 *  Calls fn (from cache_run(), after the loader's own bookkeeping) each time
 *  the metadata of one of a project's candidates (p->cands[cand]) has
 *  loaded: for a crawl that asks for the next level's pages as soon as
 *  their dependents' metadata arrives, not after the run. fn may submit. */
typedef void (*pypi_meta_fn)(pypi_loader *l, const pypi_project *p, size_t cand, void *user);
void pypi_loader_on_meta(pypi_loader *l, pypi_meta_fn fn, void *user);

/* pypi_loader_get() :
 *  The project after cache_run(), or NULL if it was never submitted.
 *  Borrowed until pypi_loader_free(). */
const pypi_project *pypi_loader_get(const pypi_loader *l, const char *name);

/* pypi_loader_blob_stats() :
 *  How many pages this loader read from their parsed form and how many
 *  parsed forms it stored (ENVLOCK_DEBUG_STATS, tests). l may be NULL. */
void pypi_loader_blob_stats(const pypi_loader *l, size_t *read, size_t *written);

/* pypi_project_fail() : records a failed project's failure on ctx (code,
 *  message, detail.reason/url/status/package/index) and returns the code. */
el_code pypi_project_fail(el_ctx *ctx, const pypi_project *p);

/* ---- index show (pypi_index_show.c) ---- */

/* The window `show` fetches dependency metadata for: the newest this many
 * usable versions (older usable ones are listed without dependencies). */
#define PYPI_SHOW_WINDOW 10

/* pypi_index_show() :
 *  The reader behind `envlock index show pypi:NAME` (see envlock/index.h):
 *  usable candidates newest first with their Requires-Dist, artifacts and
 *  the chosen file, then the excluded ones with their reasons; or one JSON
 *  object with the same structure. */
el_code pypi_index_show(el_ctx *ctx, cache *c, const el_index_query *q, bool json, strbuf *out);

#endif

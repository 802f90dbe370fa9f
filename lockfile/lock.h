/* lock.h — the lock as data: what the resolver produces, what the lockfile
 * module writes canonically (YAML), reads back, digests and checks, and what
 * plans are generated from. Not part of the public API.
 *
 * Every string and array of a lock_doc lives in its arena (lock_doc.mem); a
 * lock_doc is freed whole with lock_doc_free(). Ecosystems are "conda",
 * "deb", "npm" and "pypi" (that order is also the canonical sort order). Versions are
 * the ecosystems' real version strings, never solver ranks. URLs are always
 * canonical (what the spec or base names), never a mirror's. */
#ifndef EL_LOCK_H
#define EL_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The format envlock writes, and the oldest it reads (docs/lock-format.md,
 * "Compatibility"). */
#define LOCK_FORMAT_VERSION 2
#define LOCK_FORMAT_OLDEST 1

/* The reader's limits (docs/lock-format.md, "Reading: what is refused"),
 * owned here for every reader of locks (lockfile/, verbs/). A lock is about
 * 650 bytes per package (the 592-package benchmark lock is 389 KB), so
 * 16 MiB holds some 25,000 packages; libyaml's document tree takes over 20
 * times the text, so a larger "lock" would cost gigabytes before its first
 * problem is found. A canonical lock nests 6 levels (the root, `packages`, a
 * package, its `dependencies`, an edge, its scalars); specs stop at 64 and
 * so do locks, refused where the 65th level opens, before the text after it
 * is scanned (libyaml's scanner does work for every open flow level at every
 * token: 100,000 nested `[` took 34 s). */
#define LOCK_MAX_BYTES (16u * 1024u * 1024u)
#define LOCK_MAX_DEPTH 64

typedef struct lock_artifact {
    const char *file;      /* file name: wheel/sdist, .deb, or npm tarball name */
    const char *url;       /* canonical download URL: deb always; pypi and npm
                              only in format-1 locks, else NULL */
    const char *hash;      /* "sha256:<hex>" (wheels, sdists, debs) or the npm
                              integrity string ("sha512-<base64>") */
    uint64_t size;         /* bytes; 0 when the index does not say (pypi in
                              format 2: never recorded) */
    const char *md5;       /* conda: the record's md5 (32 hex), or NULL */
    /* where lock_read() found it (1-based; 0 for a lock built in memory):
     * the entry, and its file, url and hash values (check's report) */
    unsigned line, line_file, line_url, line_hash;
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
    const char *alias;     /* npm: the name the dependent asked for it by and
                              it is installed under, when that is another
                              package's name (`"x": "npm:real@^1"`); else NULL */
    unsigned line;         /* where lock_read() found it, or 0 */
} lock_edge;

typedef struct lock_package {
    const char *ecosystem; /* "conda" | "deb" | "npm" | "pypi" */
    const char *name;      /* pypi: PEP 503 canonical; npm: as published; deb: package;
                              conda: the record's (lower case) */
    const char *version;
    const char *arch;      /* deb: "amd64"/"all"; NULL otherwise */
    const char *src_name;  /* deb: the Packages `Source:` name when it is not `name`
                              (libc6 is built from glibc); NULL otherwise */
    const char *src_version; /* deb: the source's version when it is not `version`
                              (`Source: glibc (2.36-9)` of a binNMU); NULL otherwise */
    const char *build;     /* conda: the build string ("py313h2e6d5d4_0"); NULL otherwise */
    const char *subdir;    /* conda: the channel subdir ("linux-64", "noarch"); NULL otherwise */
    const char **pypi_names; /* conda, with has_pypi_names: the PyPI distributions the
                              record's repodata `purls` name (PEP 503, sorted,
                              distinct; NULL-terminated, or NULL for none) */
    bool has_pypi_names;   /* conda: its repodata gave `purls` (written `pypiNames`) */
    uint64_t build_number; /* conda: the record's build_number (written for conda only) */
    const char *path;      /* npm: node_modules placement ("node_modules/a/node_modules/b"); NULL otherwise */
    const char *source;    /* the canonical index/registry/apt source (conda: channel URL) it came from */
    const char *license;   /* the SPDX license expression its index declares
                              (lock_license_problem() NULL), or NULL: unknown */
    const char **extras;   /* pypi: extras installed, sorted; NULL-terminated or NULL */
    const char **requested_by; /* "spec" (a root), "protected" (a base pin) or
                              "<ecosystem>:<name>@<version>" of dependents, sorted, NULL-terminated */
    lock_edge *deps;
    size_t n_deps;
    lock_artifact *artifacts;
    size_t n_artifacts;
    bool installed_in_base; /* already in the base image (dpkg status / preinstalled dist) */
    bool in_bundle;         /* npm: shipped inside an ancestor's tarball
                               (bundleDependencies): no source, no artifact */
    unsigned line, line_source; /* where lock_read() found it and its source, or 0 */
} lock_package;

/* One of several targets (the variants of a `build.source: image` spec
 * that build on the image, and modal on the base): what its variants'
 * markers, Requires-Python and wheel tags were evaluated against. */
typedef struct lock_target {
    const char **variants;      /* sorted, NULL-terminated */
    const char *python_version; /* full */
    const char *platform;
    const char *arch;
    const char *image;          /* the image reference, or NULL for the base */
} lock_target;

/* One input whose content the lock depends on, with its snapshot identity. */
typedef struct lock_input {
    const char *ecosystem;  /* "conda" | "deb" | "npm" | "pypi" */
    const char *url;        /* canonical: index page / packument / Release URL /
                               repodata.json URL */
    const char *identity;   /* "sha256:<hex>" of Release, or ETag, or "" */
    const char *modified;   /* Release Date / Last-Modified / packument `modified`, or NULL */
    unsigned line;          /* where lock_read() found it, or 0 */
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
    const unsigned *base_digest_lines; /* parallel to variants: where lock_read() found each
                                   digest (1-based), or NULL for a lock built in memory */
    unsigned line_target;       /* where lock_read() found `target`, or 0 */
    const char *image;          /* the one target is this image ("python:3.11-slim"), or NULL */
    lock_target *targets;       /* several targets (python/platform/arch/image are then
                                   NULL), or NULL */
    size_t n_targets;
    /* options */
    const char *exclude_newer;  /* RFC 3339 or NULL */
    const char *prereleases;    /* "if-necessary-or-explicit" */
    bool no_build;              /* --no-build (noBuild) */
    const char **only_binary;   /* --only-binary names (PEP 503) or ":all:",
                                   sorted; NULL-terminated or NULL */
    const char **no_binary;     /* --no-binary, the same way */
    bool prefer_binary;         /* pip's --prefer-binary (preferBinary) */
    const char **upgrade;       /* names given to --upgrade-package, sorted; NULL-terminated or NULL */
    bool upgrade_all;
    /* a `pyproject` dependency file, whose uv.lock the Python packages
     * were read from without an index (docs/lock-format.md,
     * "dependencyFile"): the digests of both files, or all NULL */
    const char *dep_format;     /* "pyproject" */
    const char *dep_content;    /* "sha256:<hex>" of pyproject.toml's text */
    const char *dep_lock;       /* "sha256:<hex>" of uv.lock's text */
    unsigned line_dep;          /* where lock_read() found it, or 0 */
    /* the advisory snapshot the solve read (docs/lock-format.md,
     * "advisories"), or adv_snapshot NULL: resolved without one */
    const char *adv_snapshot;   /* "sha256:<hex>" of the snapshot's files */
    const char *adv_newest;     /* its newest record `modified`, or NULL */
    const char *adv_mode;       /* --vulnerable: "avoid", "block" or "allow" */
    const char **adv_touched;   /* ids of the advisories that affect a version of
                                   a locked package, sorted; NULL-terminated or NULL */
    const char **adv_ignored;   /* --ignore values, sorted; NULL-terminated or NULL */
    unsigned line_adv;          /* where lock_read() found it, or 0 */
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

/* lock_emit : one YAML document written into a strbuf by libyaml's emitter
 *  with the lock's settings (UTF-8 as is, no folding, indent 2, LF); the
 *  one YAML writer of the project (lock_emit.c), also used for the catalog
 *  entries base inspect writes.
 * lock_emit_begin() : starts the stream and the document into `out`
 *  (borrowed until lock_emit_end()).
 * lock_emit_scalar() : `s` plain (a key, or a value the caller found safe
 *  plain) or, when `quoted`, double-quoted.
 * lock_emit_open() / lock_emit_close() : a mapping (`map`) or a sequence,
 *  in flow or block style.
 * lock_emit_end() : ends the document, flushes and frees `e`; false when any
 *  event failed (a string that is not UTF-8): `out` then holds a torn text.
 *  After a failure the other calls do nothing. */
typedef struct lock_emit lock_emit;
lock_emit *lock_emit_begin(strbuf *out);
void lock_emit_scalar(lock_emit *e, const char *s, bool quoted);
void lock_emit_open(lock_emit *e, bool map, bool flow);
void lock_emit_close(lock_emit *e, bool map);
bool lock_emit_end(lock_emit *e);

/* lock_write_file() :
 *  Writes the canonical text to `path` atomically (a unique temp file
 *  `path.tmp-<pid>-<n>` in the same directory, fsync, rename, fsync dir); on
 *  failure the old file is untouched and the temp file removed (EL_IO,
 *  retryable for a full disk, detail.reason lock_write_failed, detail.path,
 *  detail.errno). When `path` is a regular
 *  file that already holds exactly these bytes (a re-resolve that changed
 *  nothing), it is left in place and only its mtime is set to now, as a
 *  rewrite would (no temp file, no fsync). Fills digest_out with
 *  "sha256:" + hex of the bytes written. */
el_code lock_write_file(el_ctx *ctx, lock_doc *d, const char *path, char digest_out[72]);

/* lock_read_text() / lock_read_file() :
 *  Parse a lock back into a doc; DL_ENV_SPEC_INVALID with detail {reason:
 *  "invalid_lock", line, column, field} for anything malformed or of another
 *  format version, larger than LOCK_MAX_BYTES or nested deeper than
 *  LOCK_MAX_DEPTH. Reading then writing gives the same bytes. A file that
 *  cannot be read is DL_ENV_SPEC_INVALID too (detail.reason lock_not_found
 *  when it does not exist, else invalid_lock; detail.path): a FIFO, device
 *  or directory is refused without being read (read_file()). */
lock_doc *lock_read_text(el_ctx *ctx, const char *text, size_t len);
lock_doc *lock_read_file(el_ctx *ctx, const char *path);

/* lock_read_bytes() :
 *  The bytes of the lock at `path` (NUL-terminated, *len set; caller frees),
 *  for a reader that also digests them; NULL with ctx set as
 *  lock_read_file() sets it for a file that cannot be read or is too large. */
char *lock_read_bytes(el_ctx *ctx, const char *path, size_t *len);

/* lock_validate() :
 *  Every string of `d` against its grammar, offline (docs/lock-format.md,
 *  "Reading: what is refused"): the spec and base digests, the target's
 *  words, each package's name and version in its ecosystem's grammar, npm
 *  paths, sources (URLs without credentials; deb "URI SUITE/COMPONENT"),
 *  artifact file names, hashes and URLs, edges, requestedBy, extras, and no
 *  control character or line break in any free text. Whoever copies lock
 *  strings into another tool's text (plan, export, bundle) calls it first.
 *  @return EL_OK, or DL_ENV_SPEC_INVALID naming the first bad value: its
 *  field, " (line N)" where lock_read() found it, the value with
 *  non-printable bytes as \xNN, and why (detail.reason invalid_lock,
 *  detail.field, detail.line). */
el_code lock_validate(el_ctx *ctx, const lock_doc *d);

/* The longest license expression a lock holds. Real ones are tens of
 * bytes (the longest npm declares are some 200); the bound keeps a hostile
 * lock from carrying a document's worth of text into an SBOM. */
#define LOCK_LICENSE_MAX 1024

/* lock_license_problem() :
 *  NULL when `s` may be recorded as a package's license: an SPDX license
 *  expression (SPDX 2.3 annex D syntax, each identifier on the SPDX
 *  License List or a LicenseRef-) of at most LOCK_LICENSE_MAX bytes, its tokens
 *  separated by single spaces, no control character; else why not, as a
 *  phrase that follows the value ("is not an SPDX license expression"). The
 *  resolver records a declared license only when this is NULL; the reader
 *  and lock_validate() refuse a lock whose license is not. */
const char *lock_license_problem(const char *s);

/* lock_unindexed() : the first package not installed in the base whose
 *  index document (its PyPI page, npm packument or apt Release, by its
 *  source) is not among the lock's inputs, or NULL. Such a lock cannot be
 *  checked or bundled: what it was resolved from is not recorded. */
const lock_package *lock_unindexed(const lock_doc *d);
/* lock_package_indexed() : whether `p` is in the base, or its index document
 *  is among the inputs of `d`, or (dependencyFile) it is a Python package
 *  read from the uv.lock the lock records, every file with its URL
 *  (lock_unindexed()'s test for one package). */
bool lock_package_indexed(const lock_doc *d, const lock_package *p);

/* lock_url_file() : the last path segment of `u` (query and fragment
 *  aside), percent-decoded: the file name a download URL names. Caller
 *  frees; NULL when `u` has no `/`. */
char *lock_url_file(const char *u);

/* lock_find() : the package (ecosystem, name[, version]) or NULL. With
 *  version NULL and several copies of the name (npm), the first in the
 *  doc's order; the doc need not be sorted (linear scan). */
const lock_package *lock_find(const lock_doc *d, const char *ecosystem, const char *name,
                              const char *version);

/* ---- additions (lockfile engineer); docs/lock-format.md is the reference ---- */

/* lock_doc_sort() also normalizes: an edge whose ecosystem is NULL takes its
 * package's; exact duplicates in extras, requested_by, upgrade are dropped.
 *
 * lock_write_text() returns NULL (and *len 0) only when a string is not valid
 * UTF-8 or holds a NUL-free control character libyaml refuses; the resolver
 * never produces such strings. lock_write_file() reports that as EL_INTERNAL.
 *
 * Strings the writer treats as absent when NULL (key omitted): target fields,
 * excludeNewer, prereleases, package arch/path/source/license, edge kind/spec, input
 * modified. Required strings that are NULL are written as "". */

/* lock_doc_add_*() : append one zeroed element to the doc's arrays (arena
 *  backed, amortized growth) and return it for the caller to fill. Strings
 *  put into it should come from lock_strdup() so they live in the arena. */
lock_package *lock_doc_add_package(lock_doc *d);
lock_input *lock_doc_add_input(lock_doc *d);
lock_edge *lock_package_add_dep(lock_doc *d, lock_package *p);
lock_artifact *lock_package_add_artifact(lock_doc *d, lock_package *p);
/* lock_strv_add() : append `s` (copied into the arena) to a NULL-terminated
 *  string array held in *v (NULL means empty). */
void lock_strv_add(lock_doc *d, const char ***v, const char *s);
const char *lock_strdup(lock_doc *d, const char *s);

/* One root requirement of the spec, as written. */
typedef struct lock_check_root {
    const char *ecosystem;  /* "pypi" | "npm" | "deb" */
    const char *text;       /* pypi: PEP 508 ("numpy>=1.22; python_version<'3.14'");
                               npm: "name", "name@range", "name@version", "name@tag";
                               deb: "name", "name=version", or a Depends relation
                               ("name (>> 1.0) | other") */
} lock_check_root;

/* A package source the spec allows now, written as the lock writes
 * `packages[].source`: a PyPI index URL, the npm registry URL, or an apt
 * source "URI SUITE/COMPONENT" ("URI SUITE" for a flat repository). */
typedef struct lock_check_source {
    const char *ecosystem;
    const char *source;
} lock_check_source;

/* One file as an index document lists it now, to confirm an artifact. */
typedef struct lock_index_file {
    const char *file;      /* pypi: filename; npm: the tarball URL's last segment;
                              deb: the Filename's last segment */
    const char *version;   /* npm, deb: the version it belongs to; NULL for pypi */
    const char *url;       /* canonical URL, or NULL */
    const char *hash;      /* "sha256:<hex>" or the npm integrity; NULL if none */
    uint64_t size;         /* 0 when the index does not say */
    const char *md5;       /* conda: the record's md5, or NULL */
} lock_index_file;

/* An index document that was read (online, or offline from the cache): a
 * PyPI project page or an npm packument, and every file it lists; or for a
 * Debian package every file of that name its Packages indexes list. */
typedef struct lock_index_doc {
    const char *ecosystem; /* "pypi" | "npm" | "deb" */
    const char *name;      /* pypi: the page's (canonical) name; npm, deb: the package */
    const lock_index_file *files;
    size_t n_files;
} lock_index_doc;

/* What `envlock check` knows now, to compare with the lock. */
typedef struct lock_check_input {
    const char *spec_digest;         /* the spec's digest now */
    /* a `pyproject` source's files now, as the lock's dependencyFile digests
     * them ("sha256:<hex>" of pyproject.toml and of uv.lock), or NULL for
     * another source */
    const char *dep_content;
    const char *dep_lock;
    const lock_check_root *roots;    /* requirements (not constraints) of the spec now */
    size_t n_roots;
    /* parallel to roots, or NULL for none: the spec's own requirement (not a
     * protected pin, a uv.lock entry or another target's pin). When the spec
     * changed, such a root whose package the lock holds only as a dependency
     * (or not at all) is reported as added to the spec. */
    const bool *roots_asked;
    /* the target now; NULL means "none" and differs from a lock value */
    const char *python_version;
    const char *platform;
    const char *arch;
    const char *base_ref;
    const char *base_channel;
    const char *const *variants;     /* NULL-terminated, any order, or NULL */
    const char *const *base_digests; /* parallel to variants (entries may be NULL) */
    const char *image;               /* the one target's image, or NULL */
    const lock_target *targets;      /* several targets (python_version etc. are then
                                        the first's, for markers only), or NULL */
    size_t n_targets;
    /* the options now */
    const char *exclude_newer;       /* normalized RFC 3339 (a span must be
                                        resolved to the time it meant), or NULL */
    const char *prereleases;         /* NULL: "if-necessary-or-explicit" */
    bool compare_upgrade;            /* false: the upgrade options below are
                                        not compared (check has no --upgrade) */
    bool upgrade_all;
    const char *const *upgrade;
    size_t n_upgrade;
    /* a requirements file's build options as a resolve would record them
     * now (docs/cli.md, check); compare_build false: not compared */
    bool compare_build;
    const char *const *only_binary;  /* NULL-terminated, any order, or NULL */
    const char *const *no_binary;    /* the same way */
    bool prefer_binary;
    /* fresh identities of the inputs (an online check), or NULL/0 offline.
     * Inputs in the lock that are missing here are not compared. */
    const lock_input *fresh;
    size_t n_fresh;
    /* inputs of the lock that their index no longer serves (an online
     * check found them "not found"): ecosystem, url, and in `identity` a
     * short reason ("not found"); NULL/0 if none. */
    const lock_input *gone;
    size_t n_gone;
    /* inputs of the lock that no index of the spec derives (never fetched) */
    const lock_input *foreign;
    size_t n_foreign;
    /* artifacts: false leaves them unchecked (callers comparing versions
     * only). true checks every artifact's form and, against `sources`
     * (when n_sources > 0), its package's source; and each artifact of a
     * package whose document is in `docs` against that document. */
    bool check_artifacts;
    const lock_check_source *sources;
    size_t n_sources;
    const lock_index_doc *docs;
    size_t n_docs;
} lock_check_input;

/* What `check` found, one change a line of its report: the line's text
 *  (control bytes of the lock's strings written as \xNN) and, for tools,
 *  what changed: its kind ("spec", "target", "option", "input",
 *  "requirement", "dependency", "package", "artifact", "policy",
 *  "advisory"), the path of what changed (a field, a URL, a requirement,
 *  "ecosystem:name@version") and its value in the lock (`before`) and now
 *  (`after`), NULL where the change has no single value. */
typedef struct lock_change {
    char *kind, *path, *before, *after, *text;
} lock_change;

typedef struct lock_report {
    lock_change *v;
    size_t n, cap;
} lock_report;

void lock_report_add(lock_report *r, const char *kind, const char *path, const char *before,
                     const char *after, const char *fmt, ...) EL_PRINTF(6, 7);
/* The report's text: each change's line, "\n"-terminated. Caller frees. */
char *lock_report_text(const lock_report *r);
void lock_report_release(lock_report *r);

/* lock_check() :
 *  Is `lock` still a valid answer for `in`? Compares, in this order, and
 *  appends one line per difference to `report` ("\n"-terminated, stable
 *  order): the spec digest; a `pyproject` source's files ("pyproject.toml
 *  changed: ..." / "uv.lock changed: FIELD A -> B"); the target; the options; the inputs (when fresh
 *  identities or gone inputs are given: "input changed: ECOSYSTEM URL etag
 *  A -> B" (deb: "Release"; "modified" when only that differs), "input
 *  gone: ECOSYSTEM URL (why)", "input added: ECOSYSTEM URL", in
 *  (ecosystem, url) order); each root requirement against the locked version
 *  (in `in->roots` order; PEP 440 / node-semver / dpkg semantics, pre-releases
 *  as the lock's pre-release mode allows: "disallow" never, "explicit" only
 *  when the specifier names one, otherwise — "if-necessary-or-explicit",
 *  "allow" — a pre-release that fits the specifier is accepted); and every
 *  locked dependency edge (its target is in the lock and its spec still
 *  holds for the bound version); with check_artifacts, every artifact
 *  (packages in lock order): "artifact malformed: ECO NAME VERSION
 *  packages[i].artifacts[j].FIELD: why" for a file that is not a plain
 *  file name of its ecosystem's kind, a hash that is not sha256:<64
 *  lowercase hex> (pypi, deb) or an npm sha512/sha1 integrity, all zeros, a
 *  URL that is not http(s)/file on the source's host or does not end in the
 *  file name, a source the spec does not name; "artifact not confirmed:
 *  ECO NAME VERSION FILE: the index gives ..." when the package's document
 *  is in `docs` and lists the file differently or not at all. Foreign
 *  inputs are "input not from this spec's indexes: ECO URL" lines among
 *  the inputs. A line about an entry lock_read() found ends its location
 *  with " (line N)". *stale = true when any line was written.
 *  A stale lock is an answer, not an error: the return is EL_OK.
 *  @return EL_OK, or DL_ENV_SPEC_INVALID (detail.field "roots[i]") when a
 *  root's text cannot be read in its ecosystem's grammar. */
el_code lock_check(el_ctx *ctx, const lock_doc *lock, const lock_check_input *in, bool *stale,
                   lock_report *report);

#endif

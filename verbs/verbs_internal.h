/* verbs_internal.h — what the verbs (verb_resolve.c, verb_check.c,
 * verb_plan.c, verb_export.c) share: the paths of a spec and its lock, the
 * spec's text for positions, and reading a lock with the digest of its
 * bytes. Internal to el_verbs. */
#ifndef EL_VERBS_INTERNAL_H
#define EL_VERBS_INTERNAL_H

#include <stddef.h>

#include "envlock/spec.h"
#include "base.h"
#include "lock.h"
#include "util.h"

/* verbs_catalog() :
 *  The bases catalog a verb reads: `given` when the caller loaded it
 *  already (borrowed), else the one at `path` (NULL: the installed one),
 *  which *own then holds for target_catalog_free(). NULL after a failure
 *  on ctx. So one run reads its catalog once. */
const target_catalog *verbs_catalog(el_ctx *ctx, const struct el_bases *given, const char *path,
                                    target_catalog **own);

/* verbs_beside() : `name` in the directory of `path` (just `name` for a
 *  path without a directory, stdin or none): the default lock beside its
 *  spec, the default plan directory beside its lock. Caller frees. */
char *verbs_beside(const char *path, const char *name);

/* verbs_spec_text() : the spec's text again, for positions; NULL (and *len
 *  0) when it cannot be read again, which is not an error. Caller frees. */
char *verbs_spec_text(const char *path, size_t *len);

/* verbs_lock_read() :
 *  The lock at `path` and "sha256:<hex>" of its bytes in digest_out. NULL
 *  with ctx set as lock_read_file() sets it: DL_ENV_SPEC_INVALID, reason
 *  lock_not_found or invalid_lock (and the path), within the reader's one
 *  size limit (LOCK_MAX_BYTES, lock.h). */
lock_doc *verbs_lock_read(el_ctx *ctx, const char *path, char digest_out[EL_DIGEST_SIZE]);

/* verbs_no_conda() :
 *  Refuses a lock with conda packages in a verb that cannot carry them yet
 *  (`verb`: "plan", "export", "bundle"): DL_ENV_CAPABILITY_UNSUPPORTED
 *  naming the first such package (detail.field packages[i]), rather than an
 *  output that silently leaves the conda environment out. EL_OK otherwise. */
el_code verbs_no_conda(el_ctx *ctx, const lock_doc *lock, const char *verb);

/* verbs_out_file_check() :
 *  Refuses, before any work, an output file a verb would write atomically
 *  (the lock, an export) that cannot be one: EL_USAGE naming `option` and
 *  the path when it is empty, an existing directory, an existing FIFO,
 *  device or socket (a rename would replace it), or in a directory that is
 *  missing or not a directory (the verbs make no directories for a file;
 *  `plan` makes its output directory). EL_OK otherwise. */
el_code verbs_out_file_check(el_ctx *ctx, const char *option, const char *path);

struct cache;
struct target_request;

/* verbs_resolve_targets() :
 *  One lock for the parts of `tr` (several targets; verb_resolve_targets.c):
 *  each target solved with every PyPI/Debian version of the others pinned,
 *  until they agree, then merged. A target's failure keeps its code and
 *  detail, its message prefixed with the variant, detail.variant added,
 *  and detail.sharedWith when it failed with the others' versions pinned.
 *  *out: caller frees. */
el_code verbs_resolve_targets(el_ctx *ctx, struct cache *c, const struct target_request *tr,
                              lock_doc **out);

/* verbs_merge_locks() :
 *  The one lock of `locks` (one per part of `tr`, agreeing on every PyPI and
 *  Debian version): locks[0] itself, joined with the others' packages and
 *  inputs (copied into it) and its target given as `targets`. */
lock_doc *verbs_merge_locks(const struct target_request *tr, lock_doc *const *locks);

/* verbs_prerelease_mode() :
 *  The pre-release mode a resolve of `spec` records: `asked` (--prerelease)
 *  when given, else the Python manager's default ("pip" for pip, else
 *  "if-necessary-or-explicit"). A requirements file's --pre is applied
 *  after (verbs_reqfile_options()). */
const char *verbs_prerelease_mode(const el_spec *spec, const char *asked);

/* verbs_reqfile_options() :
 *  A `requirements` dependency file's --pre (uv's `allow`, unless
 *  --prerelease was given), --only-binary and --no-binary (joined with the
 *  command line's) and --prefer-binary set on tr->rq (the caller copies them to every
 *  target's request), so the solve and the lock's options carry them. Nothing for any
 *  other source. */
struct target_request;
struct el_resolve_options;
void verbs_reqfile_options(struct target_request *tr, const char *asked_prerelease,
                           const struct el_resolve_options *o);

/* verbs_reqfile_hashes() :
 *  pip's hash-checking mode over the solved lock: each artifact locked for
 *  a requirement with --hash is one it lists, else DL_ENV_RESOLVE_CONFLICT
 *  naming the line and the hash the index serves (detail field
 *  `content[i]`, package, served, line, column). EL_OK otherwise. */
el_code verbs_reqfile_hashes(el_ctx *ctx, const struct target_request *tr, const lock_doc *doc);

/* verbs_uvlock_packages() (verb_resolve_uvlock.c) :
 *  A `pyproject` source's Python packages, read from what its uv.lock
 *  selects for the target (tr->uvlock), onto `doc` (the solve's lock of the
 *  other ecosystems) with the digests of pyproject.toml and uv.lock as its
 *  dependencyFile. No index is asked. DL_ENV_PACKAGE_NOT_FOUND (detail
 *  field, package, contentLine) for a package with no file the target
 *  installs. The workspace members uv.lock's selection reached are left
 *  out, and `note` (may be NULL) is told which, once. */
el_code verbs_uvlock_packages(el_ctx *ctx, const struct target_request *tr, const el_spec *spec,
                              lock_doc *doc, void (*note)(void *user, const char *text),
                              void *user);

/* verbs_text_digest() : "sha256:<hex>" of a dependency file's text as the
 *  spec holds it (NULL: of ""), in `mem`: the lock's dependencyFile digests,
 *  written by resolve and compared by check. */
const char *verbs_text_digest(arena *mem, const char *text);

/* verbs_advisories_load() (verb_advisories.c) :
 *  The OSV snapshot at `dir` (advisories/osv.h) into *out, caller frees
 *  with osv_db_free(). A malformed record fails the load with
 *  DL_ENV_SPEC_INVALID naming the first and listing every one in
 *  detail.findings ({file, message}): an unread advisory must not pass for
 *  "not affected". */
struct osv_db;
el_code verbs_advisories_load(el_ctx *ctx, const char *dir, struct osv_db **out);
/* verbs_advisories_load_cached() : the same through the snapshot's parsed
 *  form in the cache `co` selects (osv_db_blob_read(); written after a
 *  load without findings), so that an unchanged snapshot is not parsed
 *  again. A cache that cannot be opened is no parsed form: the snapshot is
 *  loaded. `stats` (may be NULL) gets one line: whether the form was read. */
el_code verbs_advisories_load_cached(el_ctx *ctx, const struct el_cache_options *co,
                                     const char *dir, void (*stats)(void *, const char *),
                                     void *stats_user, struct osv_db **out);
void verbs_advise_db_free(struct osv_db *db);
/* verbs_advise_recheck() (`check`, verb_audit.c) : one report line per
 *  (locked package, advisory) the snapshot `db` affects that the lock did
 *  not know of: not among its advisories.touched, not ignored by it (no
 *  lock made with a snapshot knows any). Returns how many; 0 for NULL db.
 *  Debian packages by their own name and version, as audit judges them. */
size_t verbs_advise_recheck(const struct osv_db *db, const lock_doc *d, lock_report *report);

/* verbs_lock_chain() (verb_audit.c) : "spec → pypi:a@1 → pypi:b@2", the
 *  first requestedBy path from the spec to `p` (malloc'd). */
char *verbs_lock_chain(const lock_doc *d, const lock_package *p);
/* verbs_lock_query() (verb_audit.c) : the name and version advisories and
 *  source rules know package p by: a deb's recorded source package and
 *  version (sourcePackage, sourceVersion) where the lock has them, else
 *  its own. Borrowed from p. */
void verbs_lock_query(const struct lock_package *p, el_ecosystem eco, const char **name,
                      const char **version);
/* verbs_lock_find() (verb_audit.c) : the package a requestedBy entry
 *  ("pypi:a@1") names, or NULL. */
const lock_package *verbs_lock_find(const lock_doc *d, const char *ref);
/* verbs_lock_top() (verb_audit.c) : the spec's requirement (or protected
 *  pin) that brings `p` in: the end of its first requestedBy path. */
const lock_package *verbs_lock_top(const lock_doc *d, const lock_package *p);
/* verbs_root_name() (verb_audit.c) : the package name a root requirement
 *  of `ecosystem` ("pypi", "npm", "deb") names, as the lock spells it
 *  (PEP 503 for pypi), or NULL if `text` does not parse. Caller frees. */
char *verbs_root_name(const char *ecosystem, const char *text);
struct osv_record;
/* verbs_osv_named() (verb_audit.c) : whether one of ids[0..n) (n may be
 *  SIZE_MAX for a NULL-terminated list; ids may be NULL) is the record's id
 *  or one of its aliases: --ignore values, a lock's advisories. */
bool verbs_osv_named(const struct osv_record *r, const char *const *ids, size_t n);

/* Advisories in `resolve` (verb_resolve_advise.c). */
typedef struct verbs_advise verbs_advise;
struct el_resolve_options;
struct resolve_request;
struct resolve_version;
/* verbs_advise_open() : *out NULL when o names no snapshot; EL_USAGE for
 *  --vulnerable/--ignore without one or an unknown mode; the load's errors. */
el_code verbs_advise_open(el_ctx *ctx, const struct el_cache_options *co,
                          const struct el_resolve_options *o, verbs_advise **out);
/* verbs_advise_attach() : the predicate on rq (no-op for NULL v). */
void verbs_advise_attach(verbs_advise *v, struct resolve_request *rq);
/* verbs_advise_affected() : resolve_request.affected. */
bool verbs_advise_affected(void *user, const struct resolve_version *rv);
/* verbs_advise_judge() : notes through `note` for every affected locked
 *  version (avoid, allow), or DL_ENV_SCAN_BLOCKED (block) with
 *  detail.blocked = [{advisory, aliases, summary, severity, ecosystem,
 *  package, version, sourcePackage?, chain, fixed, fix, file}]. */
el_code verbs_advise_judge(el_ctx *ctx, verbs_advise *v, const struct resolve_request *rq,
                           const lock_doc *d, void (*note)(void *, const char *), void *user);
/* verbs_advise_record() : the snapshot as an input of the lock `d`. */
void verbs_advise_record(verbs_advise *v, lock_doc *d);
void verbs_advise_free(verbs_advise *v);

/* The organization policy in `resolve` and `check` (verb_policy.c). */
typedef struct verbs_policy verbs_policy;
/* verbs_policy_load() : *out NULL when path is NULL; the load's errors. */
el_code verbs_policy_load(el_ctx *ctx, const char *path, verbs_policy **out);
void verbs_policy_free(verbs_policy *v);
/* verbs_policy_sources() : DL_ENV_POLICY_DENIED (detail reason
 *  source_denied, kind, url, rule) for an index, registry or apt source of
 *  rq that the policy's prefixes do not admit; only the ecosystems rq has
 *  roots in count. */
el_code verbs_policy_sources(el_ctx *ctx, const verbs_policy *v,
                             const struct resolve_request *rq);
/* verbs_policy_attach() : the deny predicate on rq (no-op for NULL v); it
 *  remembers what it denied for the judge. */
void verbs_policy_attach(verbs_policy *v, struct resolve_request *rq);
/* verbs_policy_judge() : DL_ENV_POLICY_DENIED (detail reason
 *  package_denied, denied: [{ecosystem, package, version, rule, line,
 *  column, reason, chain}]) when the lock holds a denied version: the
 *  resolver admits one only when nothing else satisfies the spec. The
 *  base's own packages are not judged (the catalog approved them). */
el_code verbs_policy_judge(el_ctx *ctx, const verbs_policy *v, const lock_doc *d);
/* verbs_policy_notes() : what the policy could not judge in lock d, as
 *  notes (resolve's and check's): with `licenses`, one per allowed id the SPDX
 *  License List deprecates, and one counting the Debian
 *  packages the lock installs (apt's indexes carry no license). No-op for
 *  NULL v. */
void verbs_policy_notes(const verbs_policy *v, const lock_doc *d,
                        void (*note)(void *user, const char *text), void *user);
/* verbs_policy_recheck() (`check`) : one report line per locked package
 *  the policy now denies or whose source is outside its prefixes (a lock
 *  made before a rule was added), or whose recorded license (none:
 *  unknown) the licenses rule denies; returns how many. Debian rules on a
 *  source package are not seen here: the lock records binaries only. */
size_t verbs_policy_recheck(const verbs_policy *v, const lock_doc *d, lock_report *report);
#endif

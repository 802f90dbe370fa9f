/* base_request.h — from a valid spec and the bases catalog to a
 * resolve_request (resolve_request.h): the base and its digests per variant, the
 * roots of every ecosystem with their spec positions, the protected pins
 * merged by the reference's rules (REFERENCE §3 merge_requirements), the
 * sources, and the options. Not part of the public API. */
#ifndef EL_BASE_REQUEST_H
#define EL_BASE_REQUEST_H

#include "resolve_request.h"

/* target_merge() :
 *  The reference's merge_requirements over the user's Python dependencies
 *  and constraints (each an el_spec_entry with field and position) and the
 *  base's protected pins, before any solve. Every string the roots use is
 *  copied into `mem`. On success fills:
 *    roots   — kept dependencies (ROOT_REQUIREMENT, in order), then every pin
 *              (ROOT_REQUIREMENT, protected_pin), then kept constraints
 *              (ROOT_CONSTRAINT, in order), then every pin again
 *              (ROOT_CONSTRAINT, protected_pin: last, "so they win");
 *    notes   — "NAME is Datalayer's to pin; `LINE` agrees and is dropped" for
 *              each user line naming a protected package that the pin satisfies.
 *  Blank lines and `#` comments are skipped. Fails with DL_ENV_SPEC_INVALID
 *  "`text` is not a requirement" (detail field, requirement) or
 *  DL_ENV_PROTECTED_PACKAGE "`NAME` is pinned by Datalayer to `==V`, which
 *  `LINE` excludes: remove it, or ask for a version inside that range"
 *  (detail field, package, requested, supported). */
typedef struct target_merged {
    resolve_root *roots;
    size_t n_roots;
    const char **notes;
    size_t n_notes;
} target_merged;

el_code target_merge(el_ctx *ctx, arena *mem, const char *const *pins,
                     const el_spec_entry *deps, size_t n_deps, const el_spec_entry *cons,
                     size_t n_cons, target_merged *out);

typedef struct target_request_options {
    const char *spec_text;        /* the text the spec was loaded from (positions), or NULL */
    size_t spec_len;
    const el_spec_options *spec_opts;
    const char *exclude_newer;    /* already normalized, or NULL */
    const lock_doc *previous;     /* the existing lock as a preference, or NULL */
    const lock_doc *prefetch;     /* with upgrade_all: the existing lock, for
                                     prefetching its names only (never a
                                     preference), or NULL */
    bool upgrade_all;
    const char *const *upgrade;
    size_t n_upgrade;
    const char *debug_solver_dir;
    bool explain_full;
    void (*stats)(void *user, const char *line); /* see resolve_request */
    void *stats_user;
} target_request_options;

/* The request for one target and the variants that build on it. */
typedef struct target_part {
    resolve_request rq;          /* rq.base is this target: the base, or the
                                    image's catalog entry with the spec's base
                                    ref, channel and per-variant digests */
    const target_base *target;
    const char **variants;       /* those building on it, sorted, NULL-terminated */
} target_part;

typedef struct target_request {
    arena *mem;
    resolve_request rq;            /* parts[0].rq */
    target_part *parts;            /* one per distinct target (1 or 2), in the
                                      order of each one's first variant */
    size_t n_parts;
    const char **notes;            /* merge notes, for the user */
    size_t n_notes;
    const char **resolved_bases;   /* parallel to rq.variants: "<repository>@<digest>" */
    char spec_digest[EL_DIGEST_SIZE];
    /* a `requirements` dependency file as read (its requirements are the
     * Python roots; its --pre, --only-binary, --no-binary and hashes are
     * the verb's to apply), or a `pyproject` file's uv.lock selection read
     * the same way (target_pyproject()), or NULL for any other source */
    const struct spec_reqfile *reqfile;
    /* a `pyproject` file: what its uv.lock selects for the target
     * (target_pyproject()); the Python part of the lock is read from it and
     * rq has no Python roots; NULL for any other source */
    const struct spec_uvlock *uvlock;
} target_request;

/* target_request_build() :
 *  The whole request for `spec` (which must have no findings) against the
 *  catalog: refuses what cannot be resolved (build sources other than
 *  `packages`, `image` and a `requirements`, `pyproject` or `conda`
 *  dependency file, the conda manager) with CAPABILITY_UNSUPPORTED; a
 *  requirements file's lines stand for `packages.python.dependencies`, with
 *  fields `content[i]`; an environment.yml adds conda roots (target_conda());
 *  finds the base (unknown ref or channel: SPEC_INVALID) and for an `image`
 *  source the image's entry (target_catalog_find_image()); checks the spec's
 *  Python against the base, or the image for an image source; resolves the
 *  digest of every wanted variant (ARTIFACT_MISSING for an unpublished base
 *  one; an image variant has its entry's digest or none), merges each
 *  target's protected pins, and adds npm and apt roots. Every variant but
 *  modal builds on the image of an image source; modal on the base.
 *  Caller frees with target_request_free(); the request borrows `cat` and
 *  `spec`, which must outlive it. */
/* target_pyproject() :
 *  A `pyproject` dependency file (base_pyproject.c): what uv.lock selects
 *  for `tb` (spec_uvlock.h) goes to r->uvlock, and the Python dependencies
 *  and constraints leave `*all` (uv.lock is never re-solved; the request
 *  build then drops the protected pins' Python roots too).
 *  Fails with the selection's first problem (RESOLVE_CONFLICT for drift,
 *  CAPABILITY_UNSUPPORTED for a source no hash-pinned lock installs,
 *  SPEC_INVALID), or PROTECTED_PACKAGE for a pin uv.lock leaves out or
 *  locks outside its range; detail field, package, line/column in the
 *  spec text and contentLine/contentColumn inside the file. */
el_code target_pyproject(el_ctx *ctx, target_request *r, const el_spec *spec,
                         const target_base *tb, const target_request_options *o,
                         el_spec_entry **all, size_t *n_all);

/* target_conda() :
 *  A `conda` dependency file (base_conda.c): every part's request gets the
 *  environment.yml's match specs as `conda` roots after `python=<X.Y>`
 *  (field spec.language.version), and its channels. A `python` spec of the
 *  file is dropped with a note. */
el_code target_conda(el_ctx *ctx, target_request *r, const el_spec *spec,
                     const target_request_options *o);

/* target_reqfile_entries() :
 *  `all` with its EL_SPEC_PYTHON_DEPENDENCIES replaced by the requirements
 *  of `f` (a requirements file, or an environment.yml's pip list), first,
 *  each at its position in the spec text and with its field (the
 *  requirement's own, else `spec.build.dependencyFile.content[i]`); `f`
 *  becomes r->reqfile. Takes and returns ownership of `all`. */
el_spec_entry *target_reqfile_entries(target_request *r, struct spec_reqfile *f,
                                      const target_request_options *o, el_spec_entry *all,
                                      size_t *n_all);

/* target_pip_layer() :
 *  A `conda` dependency file's `pip:` list (base_conda.c) as the Python
 *  dependencies: `all` with its EL_SPEC_PYTHON_DEPENDENCIES replaced by the
 *  list's requirements (field `...content.dependencies[i].pip[j]`, spec
 *  position), as a requirements file's replace them, and the list read as
 *  a requirements file in r->reqfile (its options are the verb's to apply).
 *  Takes and returns ownership of `all` (unchanged without a `pip:` list). */
el_spec_entry *target_pip_layer(target_request *r, const el_spec *spec,
                                const target_request_options *o, el_spec_entry *all,
                                size_t *n_all);

el_code target_request_build(el_ctx *ctx, const target_catalog *cat, const el_spec *spec,
                             const target_request_options *o, target_request **out);
void target_request_free(target_request *r);

#endif

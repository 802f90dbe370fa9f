/* plan.h — per-variant install plans and lock exports from one lock
 * (DESIGN.md §5, plan/README.md). Not part of the public API.
 *
 * Everything here is a pure function of a plan_input: it reads no file,
 * fetches nothing and writes nothing to disk; the verbs write what it
 * returns. The same input gives the same bytes. */
#ifndef EL_PLAN_H
#define EL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock.h"
#include "util.h"


/* Where a spec value was written: its field path and 1-based position
 * (0 when the spec text gave none, e.g. a defaulted value). */
typedef struct plan_pos {
    const char *field;   /* "spec.commands.postInstall[2]" */
    unsigned line, column;
} plan_pos;

typedef struct plan_env {         /* one spec.env entry */
    const char *key, *value;
    plan_pos at;                  /* field "spec.env.KEY" */
} plan_env;

typedef struct plan_file {        /* one spec.files entry */
    const char *path;             /* absolute path in the image */
    const char *content_ref;      /* blob://, https://, s3:// */
    const char *sha256;           /* 64 hex, or NULL */
    int64_t size;                 /* bytes, or -1 when not given */
    plan_pos at;
} plan_file;

typedef struct plan_command {     /* one spec.commands.postInstall entry */
    const char *text;
    plan_pos at;
} plan_command;

typedef struct plan_secret {      /* one spec.buildSecrets entry */
    const char *id;               /* dlsec_... */
    const char *mount_as;         /* "env" | "file" */
    const char *name;             /* the env variable or file name */
    plan_pos at;
} plan_secret;

/* What the spec says beyond what the lock holds, taken by the verb from a
 * spec whose digest equals the lock's specDigest. Lists keep spec order
 * (env is sorted by key by the generators, not here). */
typedef struct plan_spec {
    const char *name;             /* metadata.name */
    const char *contract;         /* spec.contract */
    const char *manager;          /* spec.packages.python.manager: "uv" | "pip" */
    plan_pos manager_at;
    const char *build_source;     /* spec.build.source */
    const char *build_format;     /* spec.build.dependencyFile.sourceFormat, or NULL */
    const char *build_image;      /* spec.build.image.reference, or NULL */
    plan_pos build_source_at;     /* a DataGen recipe's: field "baseImage" */
    const char *architecture;     /* spec.platform.architecture */
    plan_pos architecture_at;
    const char *size_class;       /* spec.resources.sizeClass */
    plan_pos size_class_at;
    bool accelerator;             /* spec.resources.accelerator is not "none" */
    plan_pos accelerator_at;
    plan_pos variants_at;         /* spec.compatibility.variants */
    plan_pos channel_at;          /* spec.base.channel: what chose the lock's target */
    const char *const *regions;   /* spec.compatibility.regions, NULL-terminated */
    plan_pos regions_at;
    const char *const *python_constraints; /* user constraints as written, NULL-terminated */
    plan_env *env;
    size_t n_env;
    plan_file *files;
    size_t n_files;
    plan_command *post_install;
    size_t n_post_install;
    plan_secret *secrets;
    size_t n_secrets;
    plan_pos secrets_at;          /* spec.buildSecrets */
} plan_spec;

/* Everything a plan or an export is generated from. */
typedef struct plan_input {
    const lock_doc *lock;         /* sorted (as read back from its file) */
    const char *lock_digest;      /* "sha256:<hex>" of the lock file's bytes */
    const plan_spec *spec;        /* NULL for exports (no spec needed) */
    const char *python_minor;     /* "3.13" (the catalog's, else the lock's X.Y) */
    const char *base_repository;  /* "environments/base/python-cpu" */
    const char *base_registry;    /* prefix "host[:port]" for the base image, or NULL */
    const char *apt_snapshot;     /* "20260914T150000Z", or NULL */
    bool base_cuda;               /* the base carries CUDA (the catalog's `cuda`) */
    /* The digest the bases catalog's `images:` entry for PLAN_E2B_IMAGE
     * records, or NULL: the e2b plan's FROM is pinned by it, else left on
     * the tag with a note (plan_note()). Never the base's e2b digest, which
     * is the Datalayer base's, not the image E2B's template is built from. */
    const char *e2b_image_digest;
    const char *const *protected_pins; /* the base's pins, NULL-terminated, or NULL */
    const char *resolved_at;      /* "2026-09-14T15:00:00+00:00" for lock.txt; NULL: plan_resolved_at() */
    /* The site's mirrors, as a mapping the caller owns (verbs pass the
     * cache's: --mirror, ENVLOCK_MIRRORS, the mirrors file), or NULL. Only
     * the URLs an install step fetches from go through it
     * (plan_mirror_url()): the Python index URLs, the npm registry, the apt
     * sources; the lock, its digest and every file that restates the lock
     * (lock.txt, expected-packages.json) stay canonical. map_url returns a
     * new string, or NULL for "no mirror applies". */
    char *(*map_url)(const void *user, const char *url);
    const void *map_url_user;
} plan_input;

/* plan_mirror_url() :
 *  `url` as an install step fetches it: mapped through in->map_url; a copy
 *  when no mirror applies or there is no mapping. Caller frees. */
char *plan_mirror_url(const plan_input *in, const char *url);

/* ---- exports ---- */

typedef enum plan_format {
    PLAN_UV_PIP_COMPILE,  /* the reference's lock text (REFERENCE §3) */
    PLAN_REQUIREMENTS,    /* name==version --hash=sha256:... for --require-hashes */
    PLAN_PYLOCK,          /* PEP 751 pylock.toml */
    PLAN_PACKAGE_LOCK,    /* npm package-lock.json, lockfileVersion 3 */
    PLAN_APT,             /* name=version lines */
    PLAN_CYCLONEDX,       /* CycloneDX 1.6 JSON SBOM */
    PLAN_SPDX,            /* SPDX 2.3 JSON SBOM */
    PLAN_CONDA_EXPLICIT,  /* conda's @EXPLICIT file: one url#md5 line per package */
    PLAN_CONDA_LOCK,      /* conda-lock's conda-lock.yml, version 1 (CEP 37) */
} plan_format;

/* plan_format_parse() : "uv-pip-compile" ... "apt" -> format; false if unknown. */
bool plan_format_parse(const char *name, plan_format *out);
/* plan_format_names() : "uv-pip-compile, requirements, pylock, package-lock, apt,
 *  cyclonedx, spdx, conda-explicit, conda-lock". */
const char *plan_format_names(void);

/* plan_resolved_at() :
 *  The `# resolved-at:` value the uv-pip-compile export writes when none is
 *  given, derived from the lock so the export stays deterministic: the
 *  lock's excludeNewer, else the apt snapshot's time, else
 *  1970-01-01T00:00:00+00:00. Writes "YYYY-MM-DDTHH:MM:SS+00:00". */
void plan_resolved_at(const plan_input *in, char out[32]);

/* plan_export() :
 *  The export of `in->lock` in `fmt`. Returns the text (caller frees; *len
 *  its length), or NULL after recording on ctx why the lock cannot be
 *  exported in that format (EL_USAGE when the lock has nothing of that
 *  ecosystem is NOT an error: an empty export is valid text). */
char *plan_export(el_ctx *ctx, const plan_input *in, plan_format fmt, size_t *len);

/* plan_sbom_text() :
 *  The SBOM of in->lock as PLAN_CYCLONEDX or PLAN_SPDX (plan_sbom.c): with
 *  variant NULL every package of the lock and the base image by
 *  plan_lock_base_digest() as the root; with a variant only the packages
 *  its plan installs (not those the image it builds on already holds) and
 *  as the root that image, the one its FROM names (E2B's for e2b, a
 *  spec's own image, else the base), by digest when pinned, else by tag.
 *  Deterministic: identities from in->lock_digest (and variant), the time
 *  from the lock. Caller frees; *len its length. */
char *plan_sbom_text(const plan_input *in, plan_format fmt, const char *variant, size_t *len);

/* plan_purl() :
 *  The package URL of `p` by the purl spec's rules for its type (pypi,
 *  npm, deb with arch and distro qualifiers; deb_source names the apt
 *  source a deb without its own (one in the base) takes its distro from,
 *  or NULL). Caller frees. */
char *plan_purl(const lock_package *p, const char *deb_source);

/* plan_requirements_text() :
 *  The requirements export; with only_installs, restricted to the packages
 *  the base does not already have (what a plan's Python step installs). */
char *plan_requirements_text(const plan_input *in, bool only_installs, size_t *len);

/* plan_package_json_text() :
 *  The package.json of the npm project a plan installs with `npm ci`: the
 *  lock's top-level spec roots as exact versions, matching the root entry
 *  of the package-lock export. NULL when the lock has no npm package. */
char *plan_package_json_text(const plan_input *in, size_t *len);

/* plan_apt_sources_text() :
 *  The locked apt sources of the debs the lock installs, one
 *  "deb URI SUITE COMPONENT" line each (URI through in->map_url), sorted,
 *  no duplicates. NULL when the lock installs no deb. */
char *plan_apt_sources_text(const plan_input *in, size_t *len);

/* ---- plans ---- */

/* The image of E2B's `code-interpreter-v1` template, which the e2b plan
 * builds FROM (REFERENCE §7), as the catalog's `images:` key it: normalized
 * (target_image_normalize()), so a tag-less or docker.io/ spelling of the
 * key is refused by the catalog loader with this spelling to write. */
#define PLAN_E2B_REPOSITORY "e2bdev/code-interpreter"
#define PLAN_E2B_IMAGE PLAN_E2B_REPOSITORY ":latest"

/* One generated file, relative to the variant's directory. */
typedef struct plan_out_file {
    char *name;       /* "Dockerfile", "lock.txt", ... */
    char *data;
    size_t len;
} plan_out_file;

typedef struct plan_files {
    plan_out_file *v;
    size_t n;
} plan_files;

void plan_files_add(plan_files *f, const char *name, char *data, size_t len); /* takes data */
void plan_files_release(plan_files *f);

/* Why a variant cannot honour the spec (REFERENCE §7). */
typedef struct plan_refusal {
    char *message;    /* "E2B sets the sandbox's HOME itself: ..." */
    plan_pos at;      /* the spec field that asks for it (borrowed from the plan_spec) */
} plan_refusal;

void plan_refusal_clear(plan_refusal *r);

/* plan_variant_image() :
 *  The image `variant` builds on in the lock (target.image, or its entry of
 *  target.targets; docs/lock-format.md), or NULL when it builds on the
 *  base. Its digest, when the catalog recorded one, is the lock's base
 *  digest for the variant (plan_base_digest()). Borrowed from the lock. */
const char *plan_variant_image(const lock_doc *d, const char *variant);

/* plan_variant_known() : one of datalayer, e2b, daytona, modal. */
bool plan_variant_known(const char *variant);

/* plan_refuse() :
 *  Whether `variant` can build in->spec: false and *r empty if it can; true
 *  with the first refusal (in REFERENCE §7's order for that variant) if not.
 *  Caller clears *r. */
bool plan_refuse(const plan_input *in, const char *variant, plan_refusal *r);

/* plan_variant() :
 *  Every file of `variant`'s plan (Dockerfile or module, and the context
 *  files of plan/README.md), appended to *out in a fixed order. The caller
 *  has checked plan_refuse() first. */
void plan_variant(const plan_input *in, const char *variant, plan_files *out);

/* plan_note() :
 *  What the user should know of `variant`'s plan that is not a refusal: for
 *  e2b without in->e2b_image_digest, or daytona on a spec's image the lock
 *  holds no digest of, that its FROM is a floating tag and what pins it.
 *  A new string (caller frees), or NULL when there is
 *  nothing to say. Deterministic, like the plans. */
char *plan_note(const plan_input *in, const char *variant);

#endif

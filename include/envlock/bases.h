/* envlock/bases.h — the approved bases catalog as the spec rules need it.
 * The catalog (corpus/bases/bases.yaml, installed as
 * share/envlock/bases/bases.yaml; a site's own with --bases FILE or the
 * CLI's $ENVLOCK_BASES; format in corpus/bases/README.md) is the one source of
 * the approved bases: load it here and hand its view to el_spec_load_*()
 * through el_spec_options.bases, so that validation approves exactly what a
 * resolve against the same catalog can use. Part of envlock.h. */
#ifndef ENVLOCK_BASES_H
#define ENVLOCK_BASES_H

#include <stddef.h>

#include "error.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct el_bases el_bases;

/* el_bases_load() :
 *  Reads and checks the catalog at `path` (NULL: the catalog installed
 *  with the library). NULL on failure, with
 *  DL_ENV_SPEC_INVALID on ctx naming file:line:column and the field of what
 *  is malformed (or detail.reason "unreadable"). Free with el_bases_free(). */
EL_API el_bases *el_bases_load(el_ctx *ctx, const char *path);

/* el_bases_free() : frees `bases` and its view; NULL is a no-op. */
EL_API void el_bases_free(el_bases *bases);

/* el_bases_spec_view() :
 *  One el_spec_base per base reference of the catalog, in catalog order,
 *  for el_spec_options.bases / n_bases (*n gets the count). Borrowed until
 *  el_bases_free(). */
EL_API const el_spec_base *el_bases_spec_view(const el_bases *bases, size_t *n);

/* el_bases_path() : the file the catalog was read from. Borrowed. */
EL_API const char *el_bases_path(const el_bases *bases);

/* What the catalog says of one base at one channel: the target a query
 * with no resolve of its own (index show) reads packages for. Borrowed
 * until el_bases_free(). */
typedef struct el_base_target {
    const char *python;              /* "3.13.7" */
    const char *platform;            /* "manylinux_2_36_x86_64" */
    const char *arch;                /* "amd64" */
    const char *const *apt_sources;  /* one-line entries; may be empty */
    size_t n_apt_sources;
    const char *apt_keyring;         /* or NULL */
} el_base_target;

/* el_bases_target() :
 *  The target of `ref` at `channel`. NULL ref: the catalog's first base;
 *  NULL channel: the base's newest (the el_spec_base view's channel).
 *  EL_SPEC_INVALID naming the known refs or channels when there is no such
 *  base. */
EL_API el_code el_bases_target(el_ctx *ctx, const el_bases *bases, const char *ref,
                               const char *channel, el_base_target *out);

/* What `envlock base inspect` is told besides the archive. */
typedef struct el_base_inspect_options {
    const char *reference;   /* the image's reference, the entry's key; NULL: the
                                archive's own (RepoTags, or the OCI index's
                                io.containerd.image.name / ref.name annotation) */
    const char *status_path; /* where to write the image's dpkg status, or NULL */
    const char *status_name; /* how the entry names that file (dpkgStatus:),
                                relative to the entry's own file; with status_path */
    const char *out_path;    /* also write the entry here, or NULL. Both files are
                                written with an exclusive temp file renamed into
                                place, the status first; on failure (EL_IO) neither
                                is left half written, nor a new status without
                                its entry, and no file is written through a
                                planted temp name */
} el_base_inspect_options;

/* el_base_inspect() :
 *  Reads the image archive at `archive` (a `docker save` tarball or an OCI
 *  image layout tar; layers applied in order with their whiteouts) and
 *  returns a bases catalog holding its one `images:` entry (format:
 *  corpus/bases/README.md): the Python version, arch, glibc and manylinux
 *  platform, the apt sources, the dpkg status (written to
 *  o->status_path), and the distributions in the Python's site-packages.
 *  Free with el_free(). NULL on failure, with DL_ENV_SPEC_INVALID and
 *  detail.reason (not_an_image_archive, missing_manifest, missing_layer,
 *  path_traversal, unreadable, no_reference, no_python, no_glibc,
 *  unsupported_arch), detail.path (the archive) and detail.file (the
 *  member at fault), or EL_IO when the status or the entry cannot be
 *  written (o->out_path a directory or not a regular file included).
 *  Every value is double-quoted by libyaml's emitter, so a control
 *  character the image holds reads back as itself, never as YAML. */
EL_API char *el_base_inspect(el_ctx *ctx, const char *archive, const el_base_inspect_options *o);

#ifdef __cplusplus
}
#endif
#endif

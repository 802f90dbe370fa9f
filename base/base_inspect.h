/* base_inspect.h — an image archive's file system as `envlock base
 * inspect` needs it (base_inspect.c), and the catalog entry written from
 * it (base_inspect_entry.c). Not part of the public API. */
#ifndef EL_BASE_INSPECT_H
#define EL_BASE_INSPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* One file of the image after every layer is applied: only the files the
 * entry is worked out from are kept, with their bytes (`data` NULL for a
 * file kept by name only, such as usr/local/bin/python3.11). */
typedef struct inspect_file {
    const char *path;   /* relative, normalized: "var/lib/dpkg/status" */
    const char *data;
    size_t len;
} inspect_file;

typedef struct inspect_image {
    arena *mem;
    const char *reference;     /* the archive's own name for the image, or NULL */
    const char *arch;          /* the config's architecture ("amd64"), or NULL */
    const char *python_env;    /* PYTHON_VERSION of the config's Env, or NULL */
    inspect_file *files;       /* sorted by path */
    size_t n_files;
    size_t n_layers;
} inspect_image;

/* inspect_image_read() :
 *  Reads the `docker save` tarball or OCI image layout tar at `path`: its
 *  manifest.json (docker) or index.json (OCI; a nested index is followed
 *  to its linux/amd64 manifest, else its first), the config, and the layers
 *  in order, each with its whiteouts (`.wh.NAME` removes NAME of the layers
 *  below, `.wh..wh..opq` everything below in its directory) applied before
 *  its own files. Layers may be plain or compressed (libarchive's filters).
 *  DL_ENV_SPEC_INVALID with detail.reason and detail.path (the archive),
 *  detail.file (the member) for: not_an_image_archive (no tar, or neither
 *  manifest), missing_manifest (a manifest or config the index names is not
 *  in the archive, or does not parse), missing_layer (a layer is not in the
 *  archive), path_traversal (an absolute name or a `..` component in the
 *  archive or in a layer), unreadable (I/O). 0 on success. */
el_code inspect_image_read(el_ctx *ctx, const char *path, inspect_image *out);
void inspect_image_clear(inspect_image *im);

/* inspect_find() : the file at `path` in the image, or NULL. */
const inspect_file *inspect_find(const inspect_image *im, const char *path);

#endif

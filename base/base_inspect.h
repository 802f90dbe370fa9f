/* base_inspect.h — an image archive's file system as `envlock base
 * inspect` needs it (base_inspect.c), and the catalog entry written from
 * it (base_inspect_entry.c). Not part of the public API. */
#ifndef EL_BASE_INSPECT_H
#define EL_BASE_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* What base inspect holds at most, so that a hostile archive is refused
 * before it costs more than a real image does (DL_ENV_SPEC_INVALID, reason
 * too_large, detail.limit and detail.file; detail.entry for a file inside
 * a layer). An image has a few members per layer and at most 127 layers
 * (docker's limit); its JSON members are a few KiB; its dpkg status about
 * 1 MiB per 1000 packages. */
#define INSPECT_MEMBERS_MAX 100000u        /* members of the archive */
#define INSPECT_LAYERS_MAX 1024u           /* layers a manifest names */
#define INSPECT_JSON_MAX (1u << 20)        /* one manifest, index or config */
#define INSPECT_FILE_MAX (32u << 20)       /* one file read from a layer */
#define INSPECT_KEPT_MAX (128u << 20)      /* all that is kept: names, JSON, files */

/* inspect_image_read() :
 *  Reads the `docker save` tarball or OCI image layout tar at `path`: its
 *  manifest.json (docker) or index.json (OCI; a nested index is followed
 *  to its linux/amd64 manifest, else its first), the config, and the layers
 *  in order, each with its whiteouts (`.wh.NAME` removes NAME of the layers
 *  below, `.wh..wh..opq` everything below in its directory) applied before
 *  its own files. A layer the manifest names twice is applied twice, as
 *  docker does (the second application is the one that shows). Layers may
 *  be plain or compressed (libarchive's filters). Time is O(n log n) in the
 *  entries kept, memory bounded by the INSPECT_*_MAX limits above.
 *  DL_ENV_SPEC_INVALID with detail.reason and detail.path (the archive),
 *  detail.file (the member) for: not_an_image_archive (no tar, or neither
 *  manifest), missing_manifest (a manifest or config the index names is not
 *  in the archive, or does not parse), missing_layer (a layer is not in the
 *  archive), path_traversal (an absolute name or a `..` component in the
 *  archive or in a layer), too_large (a limit above), unreadable (I/O).
 *  0 on success. */
el_code inspect_image_read(el_ctx *ctx, const char *path, inspect_image *out);
void inspect_image_clear(inspect_image *im);

/* inspect_find() : the file at `path` in the image, or NULL. */
const inspect_file *inspect_find(const inspect_image *im, const char *path);

/* ---- the entry, written (base_inspect_write.c) ---- */

/* What base_inspect_entry.c worked out; every string UTF-8 (a value that
 * is not is left out before it gets here). */
typedef struct inspect_entry {
    const char *archive;      /* the archive's file name, for the header */
    size_t n_layers;
    const char *ref;          /* the entry's key, normalized */
    const char *digest;       /* "sha256:<64 hex>" or NULL */
    const char *python, *arch, *libc, *platform;
    const char *const *sources;
    size_t n_sources;
    const char *keyring;      /* the one keyring every source names, or NULL */
    bool keyring_here;        /* ... and this machine has it: written as keyring: */
    const char *status_name;  /* dpkgStatus:, or NULL */
    const char *const *dists; /* "name==version", sorted */
    size_t n_dists;
    const char *const *notes; /* header comment lines (already quoted) */
    size_t n_notes;
} inspect_entry;

/* inspect_entry_yaml() : the catalog document holding the one entry
 *  (malloc'd), made by libyaml's emitter with every value double-quoted,
 *  so any control character (CR, NEL, LS, PS, C0, C1) is escaped; NULL if
 *  the emitter refuses (it never should). */
char *inspect_entry_yaml(const inspect_entry *x);

/* inspect_yaml_quote() : appends `s` as a YAML double-quoted scalar, on
 *  one line whatever it holds (bytes that are not UTF-8 become U+FFFD):
 *  for naming a value inside a comment. */
void inspect_yaml_quote(strbuf *sb, const char *s);

/* inspect_write_pair() :
 *  Writes the dpkg status to `status_path` and the entry `text` to
 *  `entry_path` (either may be NULL), each with an exclusive temp file
 *  renamed into place (util's file_stream), the status first. A path that
 *  is a directory or not a regular file is refused before anything is
 *  written; when the entry cannot be put in place after its status was, a
 *  status that did not exist before is removed. EL_IO naming the path. */
el_code inspect_write_pair(el_ctx *ctx, const char *entry_path, const char *text,
                           const char *status_path, const char *status, size_t status_len);

/* ---- shared by base_inspect.c (the archive, its manifests) and
 * base_inspect_layers.c (the layers, applied) ---- */

typedef struct inspect_reader {
    el_ctx *ctx;
    const char *path;   /* the archive, for messages */
    arena *mem;         /* the image's */
    uint64_t kept;      /* bytes charged against INSPECT_KEPT_MAX */
} inspect_reader;

/* inspect_bad() : DL_ENV_SPEC_INVALID "<archive>: <message>" with
 *  detail.reason, detail.path and detail.file (when not NULL). */
el_code inspect_bad(inspect_reader *R, const char *reason, const char *file, const char *fmt,
                    ...) EL_PRINTF(4, 5);
/* inspect_vbad() : inspect_bad() for the archive `path` on `ctx`, with a va_list. */
el_code inspect_vbad(el_ctx *ctx, const char *path, const char *reason, const char *file,
                     const char *fmt, va_list ap) EL_PRINTF(5, 0);

/* inspect_charge() : counts `n` more bytes kept (a name, a JSON member, a
 *  file); too_large naming `file` (and `entry`, a path inside that layer,
 *  when not NULL) once the total passes INSPECT_KEPT_MAX. */
el_code inspect_charge(inspect_reader *R, uint64_t n, const char *file, const char *entry);

/* inspect_clean_name() : "./a//b/" -> "a/b" into `sb` (reset first);
 *  false for an absolute name or a `..` component. */
bool inspect_clean_name(const char *name, strbuf *sb);

/* inspect_tar_new() : a libarchive reader taking a tar under any filter
 *  (gzip, zstd, ...), not yet opened. */
struct archive;
struct archive *inspect_tar_new(void);

/* inspect_layers_read() :
 *  The second pass over the archive at `fd` (rewound here): reads each
 *  of the `n` layers named (cleaned member names, manifest order) and
 *  applies them into out->files. */
el_code inspect_layers_read(inspect_reader *R, int fd, const char *const *names, size_t n,
                            inspect_image *out);

#endif

/* envlock/bases.h — the approved bases catalog as the spec rules need it.
 * The catalog (corpus/bases/bases.yaml, a site's own with --bases FILE or
 * $ENVLOCK_BASES; format in corpus/bases/README.md) is the one source of
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
 *  Reads and checks the catalog at `path` (NULL: $ENVLOCK_BASES if set and
 *  non-empty, else the catalog shipped with envlock). NULL on failure, with
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

#ifdef __cplusplus
}
#endif
#endif

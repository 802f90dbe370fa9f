/* verb_check_inputs.h — the inputs a lock records, as their indexes serve them
 * now: what `envlock check` compares with the lock's `inputs:` (see
 * verb_check_inputs.c). Internal to el_verbs. */
#ifndef EL_VERB_CHECK_INPUTS_H
#define EL_VERB_CHECK_INPUTS_H

#include <stddef.h>

#include "envlock/cache.h"
#include "lock.h"
#include "util.h"

typedef struct verb_inputs {
    arena *mem;          /* every string below */
    lock_input *fresh;   /* identities now, one per input that was read */
    size_t n_fresh;
    lock_input *gone;    /* inputs the index no longer serves: url, and in
                            `identity` why ("not found") */
    size_t n_gone;
    char **notes;        /* inputs that were not compared, and why (offline
                            and not in the cache); malloc'd, in lock order */
    size_t n_notes;
    lock_input *foreign; /* inputs no index of the spec derives: never fetched */
    size_t n_foreign;
    lock_check_source *sources; /* the package sources the spec allows */
    size_t n_sources;
    lock_index_doc *docs; /* PyPI pages and npm packuments read, with their files */
    size_t n_docs;
} verb_inputs;

struct resolve_request;

/* verb_inputs_fetch() :
 *  Reads the identity of every input of `lock` now, as the lock's format
 *  records it — each PyPI project page (format 2: pypi_page_identity();
 *  format 1: its ETag and Last-Modified), each npm packument (format 2: its
 *  content identity and `modified` time; format 1: ETag, and `modified` or
 *  Last-Modified), each apt Release or InRelease (sha256 of the signed
 *  Release text, and its Date) — with the requests the index
 *  readers make (same Accept, so the same cache entries and the same
 *  negotiated document), all through one cache run: conditional GETs,
 *  mirrors applied to the canonical URLs the lock holds. Offline, the cache
 *  answers; an input it does not hold is a note, not a failure. An index
 *  that answers "not found" makes the input gone. Any other failure (the
 *  index unreachable, a 5xx after retries) is the error: a check that
 *  could not look cannot say the lock is current.
 *  Only URLs that `rq` derives are requested: a PyPI page
 *  `<index>/<canonical name>/` of one of its indexes, a packument of its
 *  registry, the InRelease or Release of one of its apt sources. Any other
 *  input of the lock is put in `foreign` and never fetched, so that a lock
 *  cannot make check ask a host the spec does not name. The PyPI pages and
 *  packuments read are parsed into `docs` (file, hash, size, URL of every
 *  file) for confirming the lock's artifacts, and so, when the lock
 *  downloads debs, are the Packages indexes behind `rq`'s apt sources at
 *  the lock's cutoff (one doc per Debian package); `sources` lists the
 *  package sources `rq` allows, as the lock writes them.
 *  @return EL_OK with *out filled (free with verb_inputs_free()), or the
 *  failure recorded on ctx (the first one, in the lock's input order). */
el_code verb_inputs_fetch(el_ctx *ctx, const el_cache_options *co, const lock_doc *lock,
                          const struct resolve_request *rq, verb_inputs **out);
void verb_inputs_free(verb_inputs *t);

#endif

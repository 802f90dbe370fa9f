/* resolver.h — one libsolv pool for PyPI, npm, apt and conda, one solve, and the
 * answer as a lock_doc or as explained problems (DESIGN.md §2). libsolv's
 * Pool and Id never leave resolver/. Not part of the public API.
 *
 * The caller (resolve.c, from a validated spec and the bases catalog) builds
 * a resolve_request: the roots as the user wrote them, with their spec
 * positions for explanations, protected pins already merged (a conflicting
 * user pin was refused before this point), and where to read indexes. */
#ifndef EL_RESOLVER_H
#define EL_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"
#include "lock.h"
#include "resolve_request.h"

struct cache;

/* resolver_prerelease_mode() : the mode `name` names (NULL: the default),
 *  or -1 for a name that is none of resolve_request.prereleases'. */
int resolver_prerelease_mode(const char *name);
/* resolver_prerelease_name() : the name of a mode resolver_prerelease_mode()
 *  returned (static). */
const char *resolver_prerelease_name(int mode);

/* resolver_resolve() :
 *  Fetches what the roots need through `c` (demand-driven and parallel),
 *  builds the pool, solves once (widening PyPI windows and solving again only
 *  when a failing rule touches a cut window), and on success returns a new
 *  lock_doc (caller frees) with every package, edge, artifact and input.
 *  On failure: DL_ENV_RESOLVE_CONFLICT (detail.conflict = the two
 *  requirements as written, detail.chains = the shortest chain from the spec
 *  to each, detail.suggestion; message short unless explain_full),
 *  DL_ENV_PACKAGE_NOT_FOUND (detail.package, detail.index, detail.closest,
 *  detail.excluded = every existing version with its reason), or the
 *  fetch's failure. A problem with a conda rule in it is told by
 *  resolver_conda_explain() instead: DL_ENV_RESOLVE_CONFLICT naming the
 *  specs and the first rule of each kind (every rule with explain_full;
 *  detail.rules has them all), detail.conflict (the conda specs as
 *  written) and detail.fields (where they are written). conda's channels are loaded in
 *  one cache run of their own, all records at once (no crawl). */
el_code resolver_resolve(el_ctx *ctx, struct cache *c, const resolve_request *rq, lock_doc **out);

/* resolver_conda_solve() :
 *  conda alone in a pool of its own (the resolver-level agreement tests
 *  with rattler; resolver_resolve() puts conda roots in the one pool):
 *  the records of `set` (channel priority order), the virtual
 *  packages `virt` as installed, one job per match spec of `specs`. On
 *  success EL_OK and the installed records in *answer, one per line
 *  ("name version build channel/subdir/fn", sorted). Otherwise
 *  EL_RESOLVE_CONFLICT explained (resolver_conda_explain()), or
 *  EL_SPEC_INVALID for a spec that does not parse. */
struct conda_channel_set;
struct conda_virtual;
el_code resolver_conda_solve(el_ctx *ctx, const struct conda_channel_set *set,
                             const struct conda_virtual *virt, size_t nvirt,
                             const char *const *specs, size_t nspecs, strbuf *answer);

#endif

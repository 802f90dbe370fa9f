/* resolver_npm_pick.c — which version npm picks for a range: npm-pick-manifest's
 * preference (the `latest` shortcut, rank, highest), the previous lock's
 * version first, among the versions a caller's filter lets through. The
 * one owner of that choice: the tree builder (resolver_npm_tree.c) binds
 * edges with resolver_npm_pick(), and the crawl (resolver_npm.c) follows
 * exactly the versions resolver_npm_picks() says the tree can bind, so the
 * two cannot drift apart. Reads packuments, the previous lock and the
 * request's advisory and policy predicates; no pool, no state. */
#include <string.h>

#include "resolver_internal.h"

/* resolver_npm_rank() : npm-pick-manifest's order among the versions a range
 *  admits, best last: 3 not deprecated and engines.node admits the node npm
 *  runs with, 2 engines ok but deprecated, 1 not deprecated but engines
 *  not ok, 0 neither; the highest version within a rank. Without a known
 *  node every version's engines count as ok (NPM_FLAG_ENGINES_MISMATCH is
 *  set only against a node version; the request then carries a note). */
int resolver_npm_rank(const npm_version *v)
{
    bool engines_ok = !(v->flags & NPM_FLAG_ENGINES_MISMATCH);
    return engines_ok ? (v->deprecated ? 2 : 3) : (v->deprecated ? 0 : 1);
}

/* resolver_npm_latest_ok() : whether v is what npm-pick-manifest's latest shortcut
 *  takes for any range admitting it: the `latest` dist-tag's version when it
 *  is not deprecated and its engines admit the node (npm 11). */
bool resolver_npm_latest_ok(const npm_packument *p, const npm_version *v)
{
    const char *lt = npm_packument_find_tag(p, "latest");
    return lt && strcmp(lt, v->version) == 0 && v->excluded == NPM_EX_NONE && resolver_npm_rank(v) == 3;
}

/* resolver_npm_range_admits() : whether `range` admits v of p as npm does: the
 *  node-semver test, and for the any-range (`*`, empty; node-semver formats
 *  `x` the same, so it is treated alike) also the version `latest` names,
 *  pre-release or not (npm-pick-manifest's `range === '*'` shortcut;
 *  arborist holds any version valid for `*`). */
bool resolver_npm_range_admits(const npm_range *range, const npm_packument *p, const npm_version *v)
{
    if (npm_range_test(range, &v->semver))
        return true;
    if (npm_range_format(range)[0] != '\0')
        return false;
    const char *lt = npm_packument_find_tag(p, "latest");
    return lt && strcmp(lt, v->version) == 0;
}

bool resolver_npm_spec_admits(const npm_range *range, const char *tag, const npm_packument *p,
                              const npm_version *v)
{
    if (range)
        return resolver_npm_range_admits(range, p, v);
    const char *tv = tag ? npm_packument_find_tag(p, tag) : NULL;
    return tv && strcmp(tv, v->version) == 0;
}

static bool takes(rsv_npm_take take, void *user, const npm_range *range, const char *tag,
                  const npm_packument *p, const npm_version *v)
{
    return resolver_npm_spec_admits(range, tag, p, v) && (!take || take(user, p, v));
}

const npm_version *resolver_npm_pick(const rsv *r, const npm_packument *p, const npm_range *range,
                                     const char *tag, bool locked, rsv_npm_take take, void *user)
{
    /* a locked version that still satisfies the edge comes first (the
     * highest, when the lock has several copies of the name) */
    for (size_t i = 0; locked && i < p->ncandidates; i++)
        if (takes(take, user, range, tag, p, &p->versions[i]) &&
            resolver_locked(r, "npm", p->name, p->versions[i].version))
            return &p->versions[i];
    const char *lt = npm_packument_find_tag(p, "latest");
    const npm_version *lv = lt ? npm_packument_find(p, lt) : NULL;
    if (lv && resolver_npm_latest_ok(p, lv) && takes(take, user, range, tag, p, lv))
        return lv;
    /* versions are highest first: the first one of the best rank */
    for (int rank = 3; rank >= 0; rank--)
        for (size_t i = 0; i < p->ncandidates; i++)
            if (resolver_npm_rank(&p->versions[i]) == rank &&
                takes(take, user, range, tag, p, &p->versions[i]))
                return &p->versions[i];
    return NULL;
}

/* The crawl's filter for the advisory-clean pick: as resolver_advised()
 * will judge the version's solvable in the first (strict) solve. */
static bool clean(void *user, const npm_packument *p, const npm_version *v)
{
    return !resolver_advise_npm(user, p, v);
}

size_t resolver_npm_picks(const rsv *r, const npm_packument *p, const npm_range *range,
                          const char *tag, const npm_version *out[RSV_NPM_PICKS])
{
    size_t n = 0;
    bool lock = resolver_locked(r, "npm", p->name, NULL) != NULL;
    bool advised = r->rq->affected || r->rq->denied;
    for (int locked = lock; locked >= 0; locked--)
        for (int c = advised; c >= 0; c--) {
            const npm_version *v = resolver_npm_pick(r, p, range, tag, locked, c ? clean : NULL,
                                                     (void *)r);
            bool seen = !v;
            for (size_t i = 0; i < n && !seen; i++)
                seen = out[i] == v;
            if (!seen)
                out[n++] = v;
        }
    return n;
}

/* resolver_npm_tree.c — npm's ideal tree, built as arborist (npm 11) builds
 * it: breadth-first by depth and then path, each edge bound to the visible
 * copy when it satisfies the edge, else to npm-pick-manifest's version for
 * the edge alone, placed at the shallowest place where it does not
 * conflict (no shadowing of a copy others load, peers beside their
 * dependent), nested under the dependent when the first step up conflicts.
 * The tree is built before the solve and handed to it as exact install
 * jobs (resolver_npm_tree_jobs), as resolver_apt_mark.c hands apt's walk;
 * only where npm would refuse (ERESOLVE, ETARGET) or the tree cannot hold
 * with the rest of the spec does the solve search, and the tree is then
 * built from the versions the solve installed, with a note. Reads the pool
 * and the packuments; writes nothing but jobs and notes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <solv/bitmap.h>
#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "npm_spec.h"
#include "semver.h"
#include "resolver_internal.h"

/* ---- node_modules ---- */

/* resolver_npm_bind() : the installed solvable that edge `dep` binds to:
 *  the highest installed version providing it, or 0. */
Id resolver_npm_bind(rsv *r, Id dep)
{
    Pool *pool = r->pool;
    Id p, pp, best = 0;
    FOR_PROVIDES(p, pp, dep) {
        if (solver_get_decisionlevel(r->solver, p) <= 0)
            continue;
        if (!best || strcmp(pool_id2str(pool, pool->solvables[p].evr),
                            pool_id2str(pool, pool->solvables[best].evr)) > 0)
            best = p;
    }
    return best;
}

static rsv_npm_node *node_new(rsv_npm_node *parent, Id p, const char *name, ptrvec *all)
{
    rsv_npm_node *n = xcalloc(1, sizeof *n);
    n->p = p;
    n->parent = parent;
    n->name = name;
    if (parent) {
        n->path = parent->path[0] ? xasprintf("%s/node_modules/%s", parent->path, name)
                                  : xasprintf("node_modules/%s", name);
        ptrvec_push(&parent->children, n);
    } else {
        n->path = xstrdup("");
    }
    ptrvec_push(all, n);
    return n;
}

static rsv_npm_node *child_named(const rsv_npm_node *loc, const char *name)
{
    for (size_t i = 0; i < loc->children.len; i++) {
        rsv_npm_node *c = loc->children.items[i];
        if (strcmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

static bool admits(const rsv_dep *d, const npm_packument *p, const npm_version *v)
{
    return resolver_npm_spec_admits(d->nrange, d->nrange ? NULL : d->ntag, p, v);
}

/* The solvable of version v of p in the pool (0: not there). */
static Id solv_of(rsv *r, const npm_packument *p, const npm_version *v)
{
    Pool *pool = r->pool;
    char *pname = xasprintf("npm:%s", p->name);
    Id name = pool_str2id(pool, pname, 0);
    free(pname);
    Id sp, pp;
    if (name)
        FOR_PROVIDES(sp, pp, name)
            if (resolver_solv(r, sp)->nv == v)
                return sp;
    return 0;
}

/* What a pick may take besides satisfying the edge: when the solve
 * searched (npm_search), only a version the solve installed, so the tree
 * is built from the solve's answer; when `clean`, only one no advisory
 * affects. */
typedef struct pick_filter {
    rsv *r;
    bool clean;
} pick_filter;

static bool usable(void *user, const npm_packument *p, const npm_version *v)
{
    const pick_filter *f = user;
    rsv *r = f->r;
    Id sp = (r->npm_search && r->solver) || f->clean ? solv_of(r, p, v) : 0;
    if (r->npm_search && r->solver && !(sp && solver_get_decisionlevel(r->solver, sp) > 0))
        return false;
    return !f->clean || !resolver_advised(r, sp);
}

/* The solvable of the version npm picks for `d` on its own
 * (resolver_npm_pick(): the lock's version, the `latest` shortcut, the
 * best rank), among the usable() ones. 0 when none is in the pool. */
static Id pick_among(rsv *r, const rsv_dep *d, const npm_packument *p, bool clean, bool locked)
{
    pick_filter f = { r, clean };
    bool any = clean || (r->npm_search && r->solver);
    const npm_version *v = resolver_npm_pick(r, p, d->nrange, d->nrange ? NULL : d->ntag, locked,
                                             any ? usable : NULL, &f);
    return v ? solv_of(r, p, v) : 0;
}

/* With advisories (resolver_advise.c) the pick is made among the
 * unaffected versions first; an affected one only when none satisfies the
 * edge and the solve is no longer excluding them. */
static Id npm_pick_as(rsv *r, const rsv_dep *d, bool locked)
{
    const npm_packument *p = npm_loader_get(r->nl, d->name);
    if (!p || p->code != EL_OK)
        return 0;
    if (!r->vuln_on)
        return pick_among(r, d, p, false, locked);
    Id b = pick_among(r, d, p, true, locked);
    return b || resolver_advise_strict(r) ? b : pick_among(r, d, p, false, locked);
}

/* locked = false: no preference for the previous lock's versions, for the
 * versions a placement check assumes (peers_conflict()), so the check
 * answers as it did when the lock was made. */
static Id npm_pick(rsv *r, const rsv_dep *d)
{
    return npm_pick_as(r, d, true);
}

static int depth_of(const rsv_npm_node *n)
{
    int d = 0;
    for (const rsv_npm_node *x = n; x->parent; x = x->parent)
        d++;
    return d;
}

/* A peer edge is bound from its dependent's parent (the peer must be the
 * copy visible beside the dependent): when a version that does not satisfy
 * it already sits there, no copy can be placed; the first such edge is
 * noted in *bad (with its dependent and the copy in the way). */
typedef struct npm_peer_bad {
    const rsv_dep *d;
    rsv_npm_node *dependent, *in_way;
    const rsv_dep *unbound; /* the first required edge no version
                               satisfies (npm's ETARGET), or NULL */
} npm_peer_bad;

/* One tree build: the npm dependencies grouped by dependent (the project's
 * under 0), the nodes placed and those still to process. */
typedef struct npm_build {
    rsv *r;
    ptrvec *all, pending;
    npm_peer_bad *bad;
    const rsv_dep **by_from; /* every npm dependency, by `from` then position */
    size_t n_by_from;
    ptrvec *unread;          /* or NULL: the solvables (as Id) of bundlers
                                whose bundle is not read yet */
    rsv_npm_node *top;       /* the project */
    rsv_npm_node *current;   /* the node whose edges are being bound */
    ptrvec opt_peers;        /* const rsv_dep *: every optional peer */
    ptrvec placing;          /* copies whose peers are being placed with
                                them (place_peers()), outermost first:
                                not bound by an edge yet, they stay */
} npm_build;

static int dep_from_cmp(const void *a, const void *b)
{
    const rsv_dep *x = *(const rsv_dep *const *)a, *y = *(const rsv_dep *const *)b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The npm dependencies of solvable p (0: the project's roots): *n of them. */
static const rsv_dep **deps_of(const npm_build *t, Id p, size_t *n)
{
    size_t lo = 0, hi = t->n_by_from;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->by_from[mid]->from < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < t->n_by_from && t->by_from[end]->from == p)
        end++;
    *n = end - lo;
    return t->by_from + lo;
}

static bool descends(const rsv_npm_node *x, const rsv_npm_node *of)
{
    for (; x; x = x->parent)
        if (x == of)
            return true;
    return false;
}

/* The copy of `folder` visible from `at` (its own node_modules first). */
static rsv_npm_node *visible(const rsv_npm_node *at, const char *folder)
{
    return resolver_npm_visible(at, folder);
}

rsv_npm_node *resolver_npm_visible(const rsv_npm_node *at, const char *folder)
{
    for (; at; at = at->parent) {
        rsv_npm_node *c = child_named(at, folder);
        if (c)
            return c;
    }
    return NULL;
}

/* Whether version v of p, placed under e's folder, satisfies edge e as
 * arborist's depValid judges it: an alias edge (`npm:NAME@RANGE`) wants
 * that package; a plain edge looks at the version only, so an alias copy
 * of another package under the folder satisfies a range by its version,
 * and `*` whatever the version (a peer `react-loadable@*` is met by
 * `react-loadable` aliased to another package). */
static bool takes(const rsv_dep *e, const npm_packument *p, const npm_version *v)
{
    if (strcmp(p->name, e->name) == 0)
        return admits(e, p, v);
    if (e->folder || !e->nrange)
        return false;
    return npm_range_format(e->nrange)[0] == '\0' || npm_range_test(e->nrange, &v->semver);
}

/* Whether node n (a placed version, or a bundled package, read by its
 * version in the name's packument when that is loaded) satisfies edge d. */
static bool node_admits(rsv *r, const rsv_dep *d, const rsv_npm_node *n)
{
    if (n->bundled) {
        const npm_packument *p = npm_loader_get(r->nl, d->name);
        if (!p || p->code != EL_OK)
            return false;
        const npm_version *v = strcmp(n->bundled->name, d->name) == 0
                                   ? npm_packument_find(p, n->bundled->version)
                                   : NULL;
        return v && admits(d, p, v);
    }
    const rsv_solv *s = n->p ? resolver_solv(r, n->p) : NULL;
    return s && takes(d, s->np, s->nv);
}

/* arborist's CanPlaceDep where `loc` has no copy of the folder yet: a new
 * copy v there is a CONFLICT when loc itself depends on the name and v does
 * not satisfy it (unless that is the edge being placed), or when a
 * dependent at or below loc that now loads the copy visible above loc, and
 * is satisfied by it, would not be by v: placing v would hide it. */
static bool no_current_conflict(const npm_build *t, const rsv_npm_node *loc, const char *folder,
                                const rsv_dep *d, const npm_packument *p, const npm_version *v)
{
    size_t n;
    const rsv_dep **own = deps_of(t, loc->p, &n);
    for (size_t i = 0; i < n; i++) {
        const char *f = own[i]->folder ? own[i]->folder : own[i]->name;
        if (own[i] != d && strcmp(f, folder) == 0 && !takes(own[i], p, v))
            return true;
    }
    rsv_npm_node *cur = visible(loc->parent, folder);
    if (!cur || cur->bundled) /* a bundle is out of reach of loc's dependents */
        return false;
    const rsv_solv *cs = resolver_solv(t->r, cur->p);
    const npm_packument *cp = npm_loader_get(t->r->nl, cs->name);
    for (size_t i = 0; i < cur->dependents.len; i++) {
        const rsv_npm_node *x = cur->dependents.items[i];
        if (!descends(x, loc))
            continue;
        for (size_t j = 0; j < x->edges.len; j++)
            if (x->edges.items[j].to == cur && !takes(x->edges.items[j].dep, p, v))
                return true;
    }
    /* nodes not processed yet: their edges resolve by the same walk */
    for (size_t i = 0; cp && i < t->pending.len; i++) {
        const rsv_npm_node *x = t->pending.items[i];
        if (!descends(x, loc) || visible(x, folder) != cur)
            continue;
        const rsv_dep **xd = deps_of(t, x->p, &n);
        for (size_t j = 0; j < n; j++) {
            const char *f = xd[j]->folder ? xd[j]->folder : xd[j]->name;
            if (strcmp(f, folder) == 0 && takes(xd[j], cp, cs->nv) &&
                !takes(xd[j], p, v))
                return true;
        }
    }
    return false;
}

/* Whether b's peer pd is one arborist marks peerConflicted while loading
 * b's peer set for an edge of `from` (buildIdealTree's loadPeerSet): `from`
 * has its own dependency on the name and no version satisfies both, so
 * from's pick stands in the set and the peer is left unmet for now. Not
 * for the project's own edges (npm refuses those: ERESOLVE), nor in
 * strict-peer-deps mode, which envlock does not offer. */
static bool peer_conflicted(const npm_build *t, const rsv_npm_node *from, const rsv_dep *pd)
{
    if (!from || !from->p)
        return false;
    const npm_packument *p = npm_loader_get(t->r->nl, pd->name);
    size_t n;
    const rsv_dep **own = deps_of(t, from->p, &n);
    for (size_t i = 0; p && i < n; i++) {
        if (strcmp(own[i]->kind, "peer") == 0 || strcmp(own[i]->name, pd->name) != 0)
            continue;
        for (size_t k = 0; k < p->ncandidates; k++)
            if (admits(own[i], p, &p->versions[k]) && admits(pd, p, &p->versions[k]))
                return false;
        return true;
    }
    return false;
}

static bool vec_has(const ptrvec *v, const void *item)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == item)
            return true;
    return false;
}

static bool solv_takes(const npm_build *t, const rsv_dep *e, Id s)
{
    const rsv_solv *rs = resolver_solv(t->r, s);
    return takes(e, rs->np, rs->nv);
}

static const char *folder_of(const rsv_dep *d)
{
    return d->folder ? d->folder : d->name;
}

/* The version arborist loads, in the virtual root of `source`, for peer pd
 * of a copy placed for source (buildIdealTree's loadPeerSet): source's own
 * edge on the name picks it when that pick satisfies pd, else pd's pick
 * when it satisfies source's edge; when neither does, source's pick stands
 * (*stands, when asked) and pd is left unmet (0). Without such an edge,
 * pd's own pick. */
static Id peer_pick(const npm_build *t, const rsv_npm_node *source, const rsv_dep *pd,
                    bool locked, Id *stands)
{
    size_t n;
    const rsv_dep **sd = deps_of(t, source->p, &n);
    for (size_t i = 0; i < n; i++) {
        if ((!source->p && sd[i]->root < 0) || sd[i] == pd ||
            strcmp(folder_of(sd[i]), folder_of(pd)) != 0)
            continue;
        Id first = npm_pick_as(t->r, sd[i], locked);
        if (first && solv_takes(t, pd, first))
            return first;
        Id second = npm_pick_as(t->r, pd, locked);
        if (second && solv_takes(t, sd[i], second))
            return second;
        if (stands)
            *stands = first;
        return 0;
    }
    return npm_pick_as(t->r, pd, locked);
}

static bool has_edge(const rsv_npm_node *x, const rsv_dep *d)
{
    for (size_t j = 0; j < x->edges.len; j++)
        if (x->edges.items[j].dep == d)
            return true;
    return false;
}

/* Whether node x has a peer dependency on folder `name`. */
static bool has_peer_on(const npm_build *t, const rsv_npm_node *x, const char *name)
{
    size_t n;
    const rsv_dep **xd = deps_of(t, x->p, &n);
    for (size_t i = 0; x->p && i < n; i++)
        if (strcmp(xd[i]->kind, "peer") == 0 &&
            strcmp(xd[i]->folder ? xd[i]->folder : xd[i]->name, name) == 0)
            return true;
    return false;
}

/* arborist's deepestNestingTarget: the deepest node_modules where a copy
 * of `name` can serve x: x's own, or above it while the node has a peer
 * on the name (a peer sits beside its dependent); the project's at most. */
static const rsv_npm_node *deepest(const npm_build *t, const rsv_npm_node *x, const char *name)
{
    while (x->parent && has_peer_on(t, x, name))
        x = x->parent;
    return x;
}

/* arborist's canPlacePeers: a new copy b at `loc` brings its peers (the
 * versions peer_pick() loads for `source`) to loc, or above it while loc
 * has a peer on the name (deepest()). b cannot go there
 * (CONFLICT) when loc holds another version of a peer that does not
 * satisfy b's range, unless the peer is conflicted for the edge of `from`
 * being placed (peer_conflicted()); nor when a peer with no copy there
 * could not be placed there itself: no_current_conflict() (loc depends on
 * another version, or it would hide a copy the subtree uses) or its own
 * peers, recursively along the peer path. Optional peers are checked too
 * (arborist loads them into the peer set: resolver_npm.c note_peer()). */
static bool peers_conflict_at(const npm_build *t, const rsv_npm_node *loc, Id b,
                              const rsv_npm_node *from, const rsv_npm_node *source, ptrvec *path)
{
    size_t n;
    const rsv_dep **bd = deps_of(t, b, &n);
    bool bad = false;
    ptrvec_push(path, (void *)(intptr_t)b);
    for (size_t i = 0; !bad && i < n; i++) {
        const rsv_dep *pd = bd[i];
        if (strcmp(pd->kind, "peer") != 0)
            continue;
        /* checked where it would go: above a node with a peer on it */
        const rsv_npm_node *at = deepest(t, loc, folder_of(pd));
        const rsv_npm_node *c = child_named(at, folder_of(pd));
        Id stands = 0, pv = peer_pick(t, source, pd, false, &stands);
        if (c) { /* the copy there is the one the set holds: KEEP */
            bad = !node_admits(t->r, pd, c) && !(stands && c->p == stands) &&
                  !peer_conflicted(t, from, pd);
            continue;
        }
        if (!pv || vec_has(path, (void *)(intptr_t)pv) || !solv_takes(t, pd, pv))
            continue;
        const rsv_solv *ps = resolver_solv(t->r, pv);
        bad = no_current_conflict(t, at, folder_of(pd), pd, ps->np, ps->nv) ||
              peers_conflict_at(t, at, pv, from, source, path);
    }
    path->len--;
    return bad;
}

static bool peers_conflict(const npm_build *t, const rsv_npm_node *loc, Id b,
                           const rsv_npm_node *from, const rsv_npm_node *source)
{
    ptrvec path = PTRVEC_INIT;
    bool bad = peers_conflict_at(t, loc, b, from, source, &path);
    ptrvec_release(&path);
    return bad;
}

/* The edge of x bound to g, or NULL. */
static const rsv_npm_edge *edge_to(const rsv_npm_node *x, const rsv_npm_node *g)
{
    for (size_t j = 0; j < x->edges.len; j++)
        if (x->edges.items[j].to == g)
            return &x->edges.items[j];
    return NULL;
}

static bool is_peer(const rsv_npm_edge *e)
{
    return e && strcmp(e->dep->kind, "peer") == 0;
}

/* Adds to `set` every node reached from its members by bound peer edges
 * (and, with `back`, every node whose peer edge reaches a member). */
static void peer_closure(ptrvec *set, bool back)
{
    for (size_t i = 0; i < set->len; i++) {
        const rsv_npm_node *g = set->items[i];
        for (size_t j = 0; j < g->edges.len; j++)
            if (is_peer(&g->edges.items[j]) && g->edges.items[j].to &&
                !vec_has(set, g->edges.items[j].to))
                ptrvec_push(set, g->edges.items[j].to);
        for (size_t j = 0; back && j < g->dependents.len; j++) {
            rsv_npm_node *x = g->dependents.items[j];
            if (is_peer(edge_to(x, g)) && !vec_has(set, x))
                ptrvec_push(set, x);
        }
    }
}

/* The version the peer set being placed brings for folder f (arborist
 * loads it in a virtual root): b for the peer being bound (folder df),
 * else the pick for a peer of its dependent or of b on f; 0: none. */
static Id rep_for(const npm_build *t, const rsv_npm_node *peer_of, const char *df, Id b,
                  const char *f)
{
    if (strcmp(f, df) == 0)
        return b;
    Id owners[2] = { peer_of->p, b };
    for (int k = 0; k < 2; k++) {
        size_t n;
        const rsv_dep **od = deps_of(t, owners[k], &n);
        for (size_t i = 0; owners[k] && i < n; i++)
            if (strcmp(od[i]->kind, "peer") == 0 &&
                strcmp(od[i]->folder ? od[i]->folder : od[i]->name, f) == 0)
                return npm_pick(t->r, od[i]);
    }
    return 0;
}

/* Whether version s satisfies every edge bound to g (the project's too). */
static bool meets_all(const npm_build *t, const rsv_npm_node *g, Id s)
{
    const rsv_npm_edge *e = g->from_spec ? edge_to(t->top, g) : NULL;
    if (e && !solv_takes(t, e->dep, s))
        return false;
    for (size_t i = 0; i < g->dependents.len; i++) {
        e = edge_to(g->dependents.items[i], g);
        if (e && !solv_takes(t, e->dep, s))
            return false;
    }
    return true;
}

/* arborist's canClobber: the peer set entered at g (which the new set has
 * no version of) can stay when every peer edge reached from g, through
 * copies the new set does not bring, is met by the new set's version. */
static bool clobbers(const npm_build *t, rsv_npm_node *g, const rsv_npm_node *peer_of,
                     const char *df, Id b)
{
    ptrvec walk = PTRVEC_INIT;
    ptrvec_push(&walk, g);
    bool ok = true;
    for (size_t i = 0; ok && i < walk.len; i++) {
        const rsv_npm_node *w = walk.items[i];
        for (size_t j = 0; ok && j < w->edges.len; j++) {
            const rsv_npm_edge *e = &w->edges.items[j];
            if (!is_peer(e) || !e->to)
                continue;
            Id rep = rep_for(t, peer_of, df, b, e->to->name);
            if (rep)
                ok = solv_takes(t, e->dep, rep);
            else if (!vec_has(&walk, e->to))
                ptrvec_push(&walk, e->to);
        }
    }
    ptrvec_release(&walk);
    return ok;
}

/* Whether the peer set that entry edge (x → g) brings, when it holds ex,
 * may give way (CanPlaceDep's checkCanPlaceCurrent): the new set's
 * version of g meets every edge into g, or the new set has none and
 * clobbers() the set, or every member can nest under loc from x. */
static bool entry_nests(const npm_build *t, const rsv_npm_node *loc, const rsv_npm_node *ex,
                        const rsv_npm_node *x, rsv_npm_node *g, const rsv_npm_node *peer_of,
                        const char *df, Id b)
{
    ptrvec sub = PTRVEC_INIT;
    ptrvec_push(&sub, g);
    peer_closure(&sub, false);
    bool ok = true;
    if (vec_has(&sub, ex)) {
        Id rep = rep_for(t, peer_of, df, b, g->name);
        if (rep ? meets_all(t, g, rep) : clobbers(t, g, peer_of, df, b)) {
            ptrvec_release(&sub);
            return true;
        }
    }
    if (vec_has(&sub, ex))
        for (size_t k = 0; ok && k < sub.len; k++) {
            const rsv_npm_node *d = deepest(t, x, ((rsv_npm_node *)sub.items[k])->name);
            ok = d != loc && descends(d, loc);
        }
    ptrvec_release(&sub);
    return ok;
}

/* arborist's REPLACE of a copy in a peer's way (CanPlaceDep's
 * checkCanPlaceCurrent at the peer's deepest target): the copy ex at loc
 * may go when every peer set it belongs to may give way (entry_nests(),
 * for each entry edge into the set: a dependency, not a peer, of a node
 * x, or the project's). b: the version taking its place, for a peer of
 * peer_of on folder df. A peer of a node beside ex that b does not
 * satisfy stays a conflict unless the new set replaces that node too
 * (arborist would prune its set). */
static bool can_replace(const npm_build *t, const rsv_npm_node *loc, rsv_npm_node *ex, Id b,
                        const rsv_npm_node *peer_of, const char *df)
{
    if (ex->bundled || vec_has(&t->placing, ex))
        return false;
    ptrvec set = PTRVEC_INIT;
    ptrvec_push(&set, ex);
    peer_closure(&set, true);
    bool ok = true;
    for (size_t i = 0; ok && i < set.len; i++) {
        rsv_npm_node *g = set.items[i];
        if (g->from_spec)
            ok = entry_nests(t, loc, ex, t->top, g, peer_of, df, b);
        for (size_t j = 0; ok && j < g->dependents.len; j++) {
            const rsv_npm_node *x = g->dependents.items[j];
            const rsv_npm_edge *e = edge_to(x, g);
            if (!is_peer(e))
                ok = entry_nests(t, loc, ex, x, g, peer_of, df, b);
            else if (g == ex && x->parent == loc && !solv_takes(t, e->dep, b)) {
                Id rep = x->p ? rep_for(t, peer_of, df, b, x->name) : 0;
                ok = rep && rep != x->p;
            }
        }
    }
    ptrvec_release(&set);
    return ok;
}

static void vec_drop(ptrvec *v, const void *item)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == item) {
            memmove(v->items + i, v->items + i + 1, (v->len - i - 1) * sizeof *v->items);
            v->len--;
            return;
        }
}

/* Marks g and what it reaches: its bound edges, its children that are
 * bundled (never bound by an edge), and for a node whose edges are not
 * bound yet the copies they would bind now (arborist keeps a replaced
 * node's children for its replacement). */
static void mark_live(const npm_build *t, rsv_npm_node *g, ptrvec *live)
{
    if (vec_has(live, g))
        return;
    ptrvec_push(live, g);
    if (g->parent) /* a folder stays while something in it does */
        mark_live(t, g->parent, live);
    for (size_t j = 0; j < g->edges.len; j++)
        if (g->edges.items[j].to)
            mark_live(t, g->edges.items[j].to, live);
    for (size_t j = 0; j < g->children.len; j++)
        if (((rsv_npm_node *)g->children.items[j])->bundled)
            mark_live(t, g->children.items[j], live);
    if (g->bound || !g->p)
        return;
    size_t n;
    const rsv_dep **gd = deps_of(t, g->p, &n);
    for (size_t i = 0; i < n; i++) {
        rsv_npm_node *c = visible(g, gd[i]->folder ? gd[i]->folder : gd[i]->name);
        if (c && !c->bundled && node_admits(t->r, gd[i], c))
            mark_live(t, c, live);
    }
}

/* Removes every node nothing reaches any more from the project, the node
 * being bound or `fresh` (a copy just placed, its edge not recorded yet):
 * arborist prunes a replaced node's own dependencies at once, and every
 * extraneous node at the end. */
static void sweep(npm_build *t, rsv_npm_node *fresh)
{
    if (t->bad && t->bad->d)
        return; /* refused: the nodes it names stay */
    ptrvec live = PTRVEC_INIT, dead = PTRVEC_INIT;
    mark_live(t, t->top, &live);
    if (t->current)
        mark_live(t, t->current, &live);
    if (fresh)
        mark_live(t, fresh, &live);
    for (size_t i = 0; i < t->placing.len; i++)
        mark_live(t, t->placing.items[i], &live);
    for (size_t i = 0; i < t->all->len; i++)
        if (!vec_has(&live, t->all->items[i]))
            ptrvec_push(&dead, t->all->items[i]);
    for (size_t i = 0; i < dead.len; i++) {
        rsv_npm_node *g = dead.items[i];
        vec_drop(&g->parent->children, g);
        vec_drop(t->all, g);
        vec_drop(&t->pending, g);
        for (size_t j = 0; j < g->edges.len; j++)
            if (g->edges.items[j].to)
                vec_drop(&g->edges.items[j].to->dependents, g);
    }
    resolver_npm_layout_free(&dead);
    ptrvec_release(&live);
}

/* Puts b at loc in place of ex (can_replace()): b's node takes ex's
 * children, every edge bound to ex is unbound and its dependent queued
 * again (its edge is then placed anew, deeper), and what only ex reached
 * goes (sweep()). Returns b's node. */
static rsv_npm_node *replace(npm_build *t, rsv_npm_node *loc, rsv_npm_node *ex, Id b,
                             const char *folder)
{
    vec_drop(&loc->children, ex);
    vec_drop(&t->pending, ex);
    vec_drop(t->all, ex);
    rsv_npm_node *n = node_new(loc, b, folder, t->all);
    ptrvec_push(&t->pending, n);
    for (size_t i = 0; i < ex->children.len; i++) {
        rsv_npm_node *c = ex->children.items[i];
        c->parent = n;
        ptrvec_push(&n->children, c);
    }
    ex->children.len = 0;
    for (size_t j = 0; j < ex->edges.len; j++)
        if (ex->edges.items[j].to)
            vec_drop(&ex->edges.items[j].to->dependents, ex);
    ptrvec_push(&ex->dependents, t->top); /* the project's edges too */
    for (size_t i = 0; i < ex->dependents.len; i++) {
        rsv_npm_node *x = ex->dependents.items[i];
        bool hit = false;
        for (size_t j = 0; j < x->edges.len; j++)
            if (x->edges.items[j].to == ex) {
                x->edges.items[j].to = NULL;
                hit = true;
            }
        if (hit && !vec_has(&t->pending, x))
            ptrvec_push(&t->pending, x);
    }
    ptrvec one = PTRVEC_INIT;
    ptrvec_push(&one, ex);
    resolver_npm_layout_free(&one);
    sweep(t, n);
    return n;
}

/* Binds edge d of a dependent at `from` the way npm's tree builder does: the
 * copy visible from there if it satisfies the edge, else npm's pick for the
 * edge alone, placed at the shallowest ancestor reached before a CONFLICT
 * (another version of the name there, or no_current_conflict()); nested
 * below the dependent when the first step up conflicts. A peer
 * (`peer_of` its dependent) that cannot be placed returns NULL, see
 * npm_peer_bad. */
static int dep_name_cmp(const void *a, const void *b)
{
    const rsv_dep *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c ? c : strcmp((*x)->kind, (*y)->kind);
}

static void place_peers(npm_build *t, rsv_npm_node *n, const rsv_npm_node *source);

/* b: the version to place (0: npm's pick for the edge); source: the node
 * whose edge sets off the placement, for the new copy's peers
 * (place_peers()). */
static void requeue_optional(npm_build *t, rsv_npm_node *n);

/* Whether b satisfies every edge into ex from outside ex's folder: bound
 * ones, and those of queued nodes that would bind ex (arborist's
 * canReplace). */
static bool takes_all_into(const npm_build *t, const rsv_npm_node *ex, Id b)
{
    const rsv_npm_edge *e = ex->from_spec ? edge_to(t->top, ex) : NULL;
    if (e && !solv_takes(t, e->dep, b))
        return false;
    for (size_t i = 0; i < ex->dependents.len; i++) {
        const rsv_npm_node *x = ex->dependents.items[i];
        e = edge_to(x, ex);
        if (e && !descends(x, ex) && !solv_takes(t, e->dep, b))
            return false;
    }
    for (size_t i = 0; i < t->pending.len; i++) {
        const rsv_npm_node *x = t->pending.items[i];
        if (x->bound || descends(x, ex) || visible(x, ex->name) != ex)
            continue;
        size_t n;
        const rsv_dep **xd = deps_of(t, x->p, &n);
        for (size_t j = 0; j < n; j++)
            if (strcmp(folder_of(xd[j]), ex->name) == 0 && !solv_takes(t, xd[j], b))
                return false;
    }
    return true;
}

/* arborist's tryReplace (CanPlaceDep's checkCanPlaceCurrent): a copy ex
 * at loc gives way to b, newer or the same age, when b satisfies every
 * edge into ex and b's peers can go there. */
static bool try_replace(const npm_build *t, const rsv_npm_node *loc, rsv_npm_node *ex, Id b,
                        const rsv_npm_node *from, const rsv_npm_node *source)
{
    if (!ex->p || ex->bundled || vec_has(&t->placing, ex))
        return false;
    const rsv_solv *bs = resolver_solv(t->r, b), *es = resolver_solv(t->r, ex->p);
    return npm_semver_compare(&bs->nv->semver, &es->nv->semver) >= 0 &&
           takes_all_into(t, ex, b) && !peers_conflict(t, loc, b, from, source);
}

/* Whether x is, or is above, a node being worked on (bound now, or
 * placing its peers): such a node stays. */
static bool busy(const npm_build *t, const rsv_npm_node *x)
{
    if (t->current && descends(t->current, x))
        return true;
    for (size_t i = 0; i < t->placing.len; i++)
        if (descends(t->placing.items[i], x))
            return true;
    return false;
}

/* arborist's canDedupe (without preferDedupe): x, below a top-level
 * node, can go when the copy visible from its grandparent is the same
 * version, or newer and satisfies every edge into x; or when nothing
 * loads x. *other: that copy. */
static bool can_dedupe(const npm_build *t, const rsv_npm_node *x, rsv_npm_node **other)
{
    *other = NULL;
    if (!x->p || x->bundled || !x->parent || !x->parent->parent || busy(t, x))
        return false;
    rsv_npm_node *o = visible(x->parent->parent, x->name);
    if (!o || !o->p || o->bundled)
        return false;
    *other = o;
    if (o->p == x->p)
        return true;
    const rsv_solv *os = resolver_solv(t->r, o->p), *xs = resolver_solv(t->r, x->p);
    return takes_all_into(t, x, o->p) && npm_semver_compare(&os->nv->semver, &xs->nv->semver) >= 0;
}

/* Drops x and its folder: its dependents' edges go to `other`. */
static void drop_node(npm_build *t, rsv_npm_node *x, rsv_npm_node *other)
{
    for (size_t i = 0; i < x->dependents.len; i++) {
        rsv_npm_node *d = x->dependents.items[i];
        for (size_t j = 0; j < d->edges.len; j++)
            if (d->edges.items[j].to == x)
                d->edges.items[j].to = other;
        if (!vec_has(&other->dependents, d))
            ptrvec_push(&other->dependents, d);
    }
    vec_drop(&x->parent->children, x);
    ptrvec gone = PTRVEC_INIT;
    ptrvec_push(&gone, x);
    for (size_t i = 0; i < gone.len; i++) {
        rsv_npm_node *g = gone.items[i];
        for (size_t j = 0; j < g->children.len; j++)
            ptrvec_push(&gone, g->children.items[j]);
        vec_drop(t->all, g);
        vec_drop(&t->pending, g);
        for (size_t j = 0; j < g->edges.len; j++)
            if (g->edges.items[j].to)
                vec_drop(&g->edges.items[j].to->dependents, g);
    }
    resolver_npm_layout_free(&gone);
}

static void sweep(npm_build *t, rsv_npm_node *fresh);

/* arborist's pruneDedupable after a placement: every other copy of the
 * name below `at` that can_dedupe() goes (what only it reached with it),
 * and of those that stay, their children that can. n: the copy placed. */
static void dedupe_below(npm_build *t, rsv_npm_node *at, rsv_npm_node *n)
{
    ptrvec same = PTRVEC_INIT;
    for (size_t i = 0; i < t->all->len; i++) {
        rsv_npm_node *x = t->all->items[i];
        if (x != n && x != at && strcmp(x->name, n->name) == 0 && descends(x, at))
            ptrvec_push(&same, x);
    }
    bool dropped = false;
    rsv_npm_node *o;
    for (size_t i = 0; i < same.len; i++) {
        rsv_npm_node *x = same.items[i];
        if (!vec_has(t->all, x))
            continue;
        if (can_dedupe(t, x, &o)) {
            drop_node(t, x, o);
            dropped = true;
            continue;
        }
        for (size_t j = 0; j < x->children.len; j++) {
            rsv_npm_node *k = x->children.items[j];
            if (can_dedupe(t, k, &o)) {
                drop_node(t, k, o);
                dropped = true;
                j--;
            }
        }
    }
    ptrvec_release(&same);
    if (dropped)
        sweep(t, n);
}

static rsv_npm_node *bind_edge(npm_build *t, rsv_npm_node *from, const rsv_dep *d,
                               rsv_npm_node *peer_of, const rsv_npm_node *source, Id b)
{
    rsv *r = t->r;
    const npm_packument *p = npm_loader_get(r->nl, d->name);
    /* an alias is placed, and looked for, under its own folder name */
    const char *folder = d->folder ? d->folder : d->name;
    rsv_npm_node *ex = visible(from, folder);
    if (ex && node_admits(r, d, ex))
        return ex;
    if (!b)
        b = npm_pick(r, d);
    if (!b) {
        if (t->bad && !t->bad->unbound && !d->optional_peer && strcmp(d->kind, "optional") != 0)
            t->bad->unbound = d;
        return NULL;
    }
    const npm_version *bv = resolver_solv(r, b)->nv;
    rsv_npm_node *cand = NULL, *repl = NULL;
    for (rsv_npm_node *loc = from; loc; loc = loc->parent) {
        ex = child_named(loc, folder);
        if (ex) {
            if (ex->p == b)
                return ex;
            if (!peer_of && try_replace(t, loc, ex, b, from, source)) {
                cand = loc;
                repl = ex;
                continue;
            }
            if (!cand && peer_of && can_replace(t, loc, ex, b, peer_of, folder)) {
                rsv_npm_node *n = replace(t, loc, ex, b, folder);
                requeue_optional(t, n);
                place_peers(t, n, source);
                return n;
            }
            if (!cand && peer_of) {
                if (t->bad && !t->bad->d) {
                    t->bad->d = d;
                    t->bad->dependent = peer_of;
                    t->bad->in_way = ex;
                }
                return NULL;
            }
            break;
        }
        if (!cand && peer_of && no_current_conflict(t, loc, folder, d, p, bv)) {
            /* the peer's own first place conflicts (its parent depends on
             * another version): npm leaves the peer unmet with a warning,
             * unless the dependent is the project's (ERESOLVE) */
            if (peer_of->from_spec && t->bad && !t->bad->d) {
                t->bad->d = d;
                t->bad->dependent = peer_of;
                t->bad->in_way = visible(loc, folder) ? visible(loc, folder) : peer_of;
            }
            return NULL;
        }
        if (cand && (no_current_conflict(t, loc, folder, d, p, bv) || peers_conflict(t, loc, b, from, source)))
            break;
        cand = loc;
    }
    if (!cand)
        cand = from;
    rsv_npm_node *n;
    if (repl && repl->parent == cand) {
        n = replace(t, cand, repl, b, folder);
    } else {
        n = node_new(cand, b, folder, t->all);
        ptrvec_push(&t->pending, n);
    }
    dedupe_below(t, cand, n);
    requeue_optional(t, n);
    place_peers(t, n, source);
    return n;
}

/* arborist's PlaceDep places a new copy's peers with it, at once and
 * depth first in name order, before the queue moves on: so a peer is
 * queued (and its own dependencies placed) at its depth from then on, not
 * when its dependent's turn comes. Each required peer binds to the copy
 * visible beside n when it satisfies it, else peer_pick()'s version is
 * placed from n's parent. One with no place now (a conflict) is left for
 * n's own turn, which refuses or warns as before. */
static void place_peers(npm_build *t, rsv_npm_node *n, const rsv_npm_node *source)
{
    size_t k;
    const rsv_dep **nd = deps_of(t, n->p, &k);
    ptrvec peers = PTRVEC_INIT;
    for (size_t i = 0; n->p && n->parent && i < k; i++)
        if (strcmp(nd[i]->kind, "peer") == 0 && !nd[i]->optional_peer)
            ptrvec_push(&peers, (void *)nd[i]);
    if (peers.len)
        qsort(peers.items, peers.len, sizeof(void *), dep_name_cmp);
    npm_peer_bad *bad = t->bad;
    t->bad = NULL; /* a failure here is judged on n's turn */
    ptrvec_push(&t->placing, n);
    for (size_t i = 0; i < peers.len; i++) {
        const rsv_dep *pd = peers.items[i];
        if (has_edge(n, pd))
            continue;
        rsv_npm_node *vis = visible(n->parent, folder_of(pd)), *to = NULL;
        if (vis && node_admits(t->r, pd, vis)) {
            to = vis;
        } else {
            Id b = peer_pick(t, source, pd, true, NULL);
            if (b && solv_takes(t, pd, b))
                to = bind_edge(t, n->parent, pd, n, source, b);
        }
        if (to) {
            rsv_npm_edges_push(&n->edges, (rsv_npm_edge){ pd, to });
            ptrvec_push(&to->dependents, n);
        }
    }
    t->placing.len--;
    t->bad = bad;
    ptrvec_release(&peers);
}

/* An optional peer of a node already processed, with no copy in reach on
 * its turn, that now resolves to n (the edge arborist keeps for it finds
 * n): recorded as bound when n satisfies it; when n does not, arborist
 * queues the node again (npm/cli#8726), so the edge is recorded unbound
 * and the node's next turn (rebind_node()) binds it as a peer in reach:
 * npm's pick for it, beside the node. */
static void requeue_optional(npm_build *t, rsv_npm_node *n)
{
    for (size_t i = 0; i < t->opt_peers.len; i++) {
        const rsv_dep *d = t->opt_peers.items[i];
        if (strcmp(folder_of(d), n->name) != 0)
            continue;
        bool ok = node_admits(t->r, d, n);
        for (size_t j = 0; j < t->all->len; j++) {
            rsv_npm_node *x = t->all->items[j];
            if (x->p != d->from || !x->bound || !x->parent || has_edge(x, d) ||
                visible(x->parent, n->name) != n)
                continue;
            rsv_npm_edges_push(&x->edges, (rsv_npm_edge){ d, ok ? n : NULL });
            if (ok)
                ptrvec_push(&n->dependents, x);
            else if (!vec_has(&t->pending, x))
                ptrvec_push(&t->pending, x);
        }
    }
}

/* arborist's crackOpen when it takes a node from its queue: a version with
 * a bundleDependencies list gets its tarball's node_modules as its own
 * children (bundled, never queued: npm resolves nothing for them), each
 * under the folder its path names. An unread bundle is left for
 * resolver_npm_bundles() (t->unread). */
static void attach_bundle(npm_build *t, rsv_npm_node *node)
{
    const rsv_solv *s = resolver_solv(t->r, node->p);
    if (!s->nv->nbundled)
        return;
    const npm_bundle *b = npm_loader_bundle_get(t->r->nl, s->np, s->nv);
    if (!b) {
        if (t->unread)
            ptrvec_push(t->unread, (void *)(intptr_t)node->p);
        return;
    }
    /* paths sorted: a folder's parent comes before it */
    rsv_npm_node **made = xcalloc(b->n + 1, sizeof *made);
    for (size_t i = 0; i < b->n; i++) {
        const char *path = b->pkgs[i].path, *cut = NULL;
        for (const char *c = strstr(path, "/node_modules/"); c; c = strstr(c + 1, "/node_modules/"))
            cut = c;
        rsv_npm_node *parent = cut ? NULL : node;
        for (size_t j = i; cut && j-- > 0;)
            if (made[j] && strlen(b->pkgs[j].path) == (size_t)(cut - path) &&
                strncmp(b->pkgs[j].path, path, (size_t)(cut - path)) == 0)
                parent = made[j];
        if (!parent)
            continue; /* a folder with no package.json above it */
        made[i] = node_new(parent, 0, path + (cut ? cut - path + 14 : 13), t->all);
        made[i]->bundled = &b->pkgs[i];
    }
    free(made);
}

/* Binds the edges of `node` (sorted by name), from node, or for a peer from
 * its parent. */
/* Binds edge d of node (a peer from node's parent) and records it;
 * false when it binds nowhere. */
static bool bind_one(npm_build *t, rsv_npm_node *node, const rsv_dep *d, rsv_npm_edge *slot)
{
    bool peer = node->parent && strcmp(d->kind, "peer") == 0;
    rsv_npm_node *to = bind_edge(t, peer ? node->parent : node, d, peer ? node : NULL, node, 0);
    if (!to)
        return false;
    rsv_npm_edge e = { d, to };
    if (slot)
        *slot = e;
    else
        rsv_npm_edges_push(&node->edges, e);
    if (node->p)
        ptrvec_push(&to->dependents, node);
    else
        to->from_spec = true;
    return true;
}

/* A node queued again after a copy it used was replaced (replace()): its
 * unbound edges are placed anew, in name order; one that binds nowhere
 * goes. */
static void rebind_node(npm_build *t, rsv_npm_node *node)
{
    for (size_t j = 0; j < node->edges.len; j++) {
        rsv_npm_edge *e = &node->edges.items[j];
        if (e->to || bind_one(t, node, e->dep, e))
            continue;
        memmove(e, e + 1, (node->edges.len - j - 1) * sizeof *e);
        node->edges.len--;
        j--;
    }
}

static void bind_node(npm_build *t, rsv_npm_node *node)
{
    if (node->bound) {
        rebind_node(t, node);
        return;
    }
    node->bound = true;
    /* a peer placed with node whose copy was replaced since is bound anew
     * below, in its turn */
    size_t kept = 0;
    for (size_t j = 0; j < node->edges.len; j++)
        if (node->edges.items[j].to)
            node->edges.items[kept++] = node->edges.items[j];
    node->edges.len = kept;
    if (node->p)
        attach_bundle(t, node);
    size_t n;
    const rsv_dep **own = deps_of(t, node->p, &n);
    ptrvec mine = PTRVEC_INIT;
    for (size_t i = 0; i < n; i++)
        if (node->p || own[i]->root >= 0)
            ptrvec_push(&mine, (void *)own[i]);
    if (mine.len)
        qsort(mine.items, mine.len, sizeof(void *), dep_name_cmp);
    for (size_t i = 0; i < mine.len; i++) {
        rsv_dep *d = mine.items[i];
        /* an optional peer is installed only when a copy is in reach */
        if (d->optional_peer && (!node->parent || !visible(node->parent, d->folder ? d->folder : d->name)))
            continue;
        if (has_edge(node, d)) /* a peer placed with node (place_peers()) */
            continue;
        bind_one(t, node, d, NULL);
    }
    ptrvec_release(&mine);
}

static rsv_npm_node *layout(rsv *r, ptrvec *all, npm_peer_bad *bad, ptrvec *unread)
{
    npm_build t = { .r = r, .all = all, .pending = PTRVEC_INIT, .bad = bad, .unread = unread };
    t.by_from = xcalloc(r->ndeps ? r->ndeps : 1, sizeof *t.by_from);
    for (size_t i = 0; i < r->ndeps; i++)
        if (r->deps[i].eco == RSV_NPM)
            t.by_from[t.n_by_from++] = &r->deps[i];
    for (size_t i = 0; i < r->ndeps; i++)
        if (r->deps[i].eco == RSV_NPM && r->deps[i].optional_peer)
            ptrvec_push(&t.opt_peers, &r->deps[i]);
    qsort(t.by_from, t.n_by_from, sizeof *t.by_from, dep_from_cmp);
    rsv_npm_node *top = node_new(NULL, 0, "", all);
    t.top = top;
    bind_node(&t, top);
    /* npm's order: the shallowest placed node first, ties by path */
    while (t.pending.len) {
        size_t bi = 0;
        for (size_t i = 1; i < t.pending.len; i++) {
            rsv_npm_node *a = t.pending.items[i], *bb = t.pending.items[bi];
            int da = depth_of(a), db = depth_of(bb);
            if (da < db || (da == db && strcmp(a->path, bb->path) < 0))
                bi = i;
        }
        rsv_npm_node *node = t.pending.items[bi];
        t.pending.items[bi] = t.pending.items[--t.pending.len];
        t.current = node;
        bind_node(&t, node);
    }
    t.current = NULL;
    sweep(&t, NULL);
    ptrvec_release(&t.pending);
    ptrvec_release(&t.placing);
    ptrvec_release(&t.opt_peers);
    free(t.by_from);
    return top;
}

/* The tree kept in r->npm_tree. It is reused while it would be built the
 * same: not from a search's answer (usable()), with the advisories as
 * strict, every bundle in it read; drop_pool() frees it. */
typedef struct npm_tree_cache {
    ptrvec all;
    rsv_npm_node *top;
    npm_peer_bad bad;
    bool reusable, strict;
} npm_tree_cache;

static bool solve_free(const rsv *r)
{
    return !(r->npm_search && r->solver);
}

static bool tree_valid(const rsv *r)
{
    const npm_tree_cache *c = r->npm_tree;
    return c && c->reusable && solve_free(r) && c->strict == resolver_advise_strict(r);
}

/* The tree, reused when tree_valid(), else built (with `unread`, the
 * bundles it lacks: reusable only when none). */
static npm_tree_cache *tree_get(rsv *r, ptrvec *unread)
{
    if (!unread && tree_valid(r))
        return r->npm_tree;
    npm_tree_cache *c = r->npm_tree;
    if (c)
        resolver_npm_layout_free(&c->all);
    else
        c = r->npm_tree = xcalloc(1, sizeof *c);
    memset(&c->bad, 0, sizeof c->bad);
    c->top = layout(r, &c->all, &c->bad, unread);
    c->reusable = solve_free(r) && unread && unread->len == 0;
    c->strict = resolver_advise_strict(r);
    r->npm_layouts++;
    return c;
}

const ptrvec *resolver_npm_tree(rsv *r)
{
    return &tree_get(r, NULL)->all;
}

void resolver_npm_tree_drop(rsv *r)
{
    if (!r->npm_tree)
        return;
    resolver_npm_layout_free(&r->npm_tree->all);
    free(r->npm_tree);
    r->npm_tree = NULL;
}

el_code resolver_npm_bundles(rsv *r)
{
    if (tree_valid(r))
        return EL_OK; /* built complete, and would be built the same */
    /* each round reads at least one bundle, so this ends; the cap only
     * bounds a pathological chain of bundlers reached through bundles */
    for (int round = 0; round < 64; round++) {
        ptrvec unread = PTRVEC_INIT;
        tree_get(r, &unread);
        el_code rc = EL_OK;
        for (size_t i = 0; rc == EL_OK && i < unread.len; i++) {
            const rsv_solv *s = resolver_solv(r, (Id)(intptr_t)unread.items[i]);
            const npm_bundle *b;
            rc = npm_loader_bundle(r->nl, r->ctx, s->np, s->nv, &b);
        }
        bool done = unread.len == 0;
        ptrvec_release(&unread);
        if (rc != EL_OK || done)
            return rc;
    }
    return EL_OK;
}

/* The edge that placed `n` and the story of how the spec reaches it, into
 * *line ("app@^1 (spec line 3) → b@^2"); returns the edge (NULL if none). */
static const rsv_dep *node_story(rsv *r, const rsv_npm_node *top, const rsv_npm_node *n, strbuf *line,
                                 int depth)
{
    if (n->from_spec || depth > 64) {
        for (size_t i = 0; i < top->edges.len; i++)
            if (top->edges.items[i].to == n) {
                const rsv_dep *d = top->edges.items[i].dep;
                char *l = resolver_root_label(r, d->root);
                sb_adds(line, l);
                free(l);
                return d;
            }
        return NULL;
    }
    if (!n->dependents.len)
        return NULL;
    const rsv_npm_node *up = n->dependents.items[0];
    const rsv_dep *d = NULL;
    for (size_t i = 0; i < up->edges.len && !d; i++)
        if (up->edges.items[i].to == n)
            d = up->edges.items[i].dep;
    node_story(r, top, up, line, depth + 1);
    if (d)
        sb_addf(line, " → %s", d->text);
    return d;
}

/* A chosen version that depends on something envlock cannot lock (git, a
 * tarball URL, file:, link:, workspace:, an alias): npm would choose it
 * too and install that dependency, so no lock is the npm answer. The
 * first one, in placement order, is DL_ENV_CAPABILITY_UNSUPPORTED naming
 * the dependency, the package and the chain from the spec. Such versions
 * are not avoided: choosing an older one would differ from npm silently. */
static el_code unlockable(rsv *r, const rsv_npm_node *top, const ptrvec *all)
{
    for (size_t i = 0; i < all->len; i++) {
        const rsv_npm_node *n = all->items[i];
        const rsv_solv *s = n->p ? resolver_solv(r, n->p) : NULL;
        const npm_version *v = s ? s->nv : NULL;
        for (size_t d = 0; v && d < v->ndeps; d++) {
            const npm_dep *dp = &v->deps[d];
            if ((dp->spec_kind != NPM_SPEC_IS_OTHER &&
                 (dp->spec_kind != NPM_SPEC_IS_ALIAS || resolver_npm_alias_ok(dp))) ||
                dp->kind == NPM_DEP_PEER_OPTIONAL || resolver_npm_bundled(v, dp->name))
                continue;
            strbuf chain = STRBUF_INIT;
            node_story(r, top, n, &chain, 0);
            el_fail(r->ctx, EL_CAPABILITY_UNSUPPORTED,
                    "%s %s depends on `%s@%s`, %s, which envlock cannot lock (it locks registry "
                    "versions: semver ranges and dist-tags)%s%s. Suggestion: pin a version of %s "
                    "that does not, or install %s outside the lock",
                    s->name, s->version, dp->name, dp->spec, npm_dep_spec_what(dp->spec),
                    chain.len ? "; asked for by " : "", chain.buf ? chain.buf : "", s->name,
                    dp->name);
            el_detail_str(r->ctx, "reason", "unlockable_dependency");
            el_detail_str(r->ctx, "dependency", dp->name);
            el_detail_str(r->ctx, "spec", dp->spec);
            char *pkg = xasprintf("npm:%s@%s", s->name, s->version);
            el_detail_str(r->ctx, "package", pkg);
            free(pkg);
            sb_release(&chain);
            return EL_CAPABILITY_UNSUPPORTED;
        }
    }
    return EL_OK;
}

/* The sentence for a peer with no place (npm's ERESOLVE): the copy in the
 * way and the peer, each with the chain from the spec, into *msg; *at the
 * edge in the way as written; the suggestion (caller frees). */
static char *peer_text(rsv *r, const rsv_npm_node *top, const npm_peer_bad *bad, strbuf *msg,
                       const char **at)
{
    strbuf la = STRBUF_INIT, lb = STRBUF_INIT;
    const rsv_dep *a = node_story(r, top, bad->in_way, &la, 0);
    node_story(r, top, bad->dependent, &lb, 0);
    const rsv_solv *ds = resolver_solv(r, bad->dependent->p);
    sb_addf(&lb, "%s%s (peer of %s %s)", lb.len ? " → " : "", bad->d->text, ds->name, ds->version);
    *at = a ? a->text : bad->in_way->name;
    char *suggestion = a && a->from == 0 && a->root >= 0 && !r->rq->roots[a->root].protected_pin
                           ? xasprintf("relax %s in the spec", *at)
                           : xasprintf("pin other versions of the packages that ask for %s and %s", *at,
                                       bad->d->text);
    sb_addf(msg, "`%s` and `%s` cannot both be satisfied: %s against %s", *at, bad->d->text,
            la.buf, lb.buf);
    sb_release(&la);
    sb_release(&lb);
    return suggestion;
}

const rsv_npm_edge *resolver_npm_misload(const ptrvec *all, rsv_npm_in_range in_range,
                                         void *user, const rsv_npm_node **at,
                                         const rsv_npm_node **got)
{
    for (size_t i = 0; i < all->len; i++) {
        const rsv_npm_node *n = all->items[i];
        for (size_t j = 0; j < n->edges.len; j++) {
            const rsv_npm_edge *e = &n->edges.items[j];
            const rsv_dep *d = e->dep;
            const rsv_npm_node *g = visible(n, d->folder ? d->folder : d->name);
            if (g && g == e->to && in_range(user, d, g))
                continue;
            *at = n;
            *got = g;
            return e;
        }
    }
    return NULL;
}

/* Whether the copy Node loads is the package the edge names, in range. */
static bool loads_in_range(void *user, const rsv_dep *d, const rsv_npm_node *got)
{
    return node_admits(user, d, got);
}

/* Node's own resolution of the tree, before a lock is written: a placement
 * that hides a copy (a node put in an ancestor's node_modules, between a
 * dependent and the copy its edge was bound to) gives a lock whose edge
 * says one version while Node loads another. That is envlock's bug, so it
 * is an internal error naming the edge and no lock. */
static el_code node_resolves(rsv *r, const ptrvec *all)
{
    const rsv_npm_node *n, *got;
    const rsv_npm_edge *e = resolver_npm_misload(all, loads_in_range, r, &n, &got);
    if (!e)
        return EL_OK;
    const rsv_solv *ts = e->to && e->to->p ? resolver_solv(r, e->to->p) : NULL;
    const rsv_solv *gs = got && got->p ? resolver_solv(r, got->p) : NULL;
    el_fail(r->ctx, EL_INTERNAL,
            "npm tree: `%s` of %s at %s is bound to %s %s at %s, but Node would load %s%s%s%s%s "
            "from there; no lock is written",
            e->dep->text, n->p ? resolver_solv(r, n->p)->name : "the project",
            n->path[0] ? n->path : ".", ts ? ts->name : "?", ts ? ts->version : "?",
            e->to ? e->to->path : "?", gs ? gs->name : "nothing", gs ? " " : "",
            gs ? gs->version : "", gs ? " at " : "", gs ? got->path : "");
    el_detail_str(r->ctx, "reason", "node_resolution");
    el_detail_str(r->ctx, "edge", e->dep->text);
    el_detail_str(r->ctx, "dependent", n->path[0] ? n->path : ".");
    return EL_INTERNAL;
}

el_code resolver_npm_check(rsv *r)
{
    const npm_tree_cache *c = tree_get(r, NULL);
    const npm_peer_bad bad = c->bad;
    el_code rc = unlockable(r, c->top, &c->all);
    if (rc == EL_OK && !bad.d)
        rc = node_resolves(r, &c->all);
    if (rc != EL_OK || !bad.d)
        return rc;
    strbuf msg = STRBUF_INIT;
    const char *at;
    char *suggestion = peer_text(r, c->top, &bad, &msg, &at);
    el_fail(r->ctx, EL_RESOLVE_CONFLICT, "%s. Suggestion: %s.", msg.buf, suggestion);
    json_object *pair = json_object_new_array();
    json_object_array_add(pair, json_object_new_string(at));
    json_object_array_add(pair, json_object_new_string(bad.d->text));
    el_detail_take(r->ctx, "conflict", pair);
    el_detail_str(r->ctx, "suggestion", suggestion);
    free(suggestion);
    sb_release(&msg);
    return EL_RESOLVE_CONFLICT;
}

/* Why npm would refuse the tree it builds (arena), or NULL when it would
 * not: a peer with no place (ERESOLVE), a required edge no version
 * satisfies (ETARGET). *name: the package name it is about. */
static const char *refusal(rsv *r, const rsv_npm_node *top, const npm_peer_bad *bad,
                           const char **name)
{
    if (bad->d) {
        strbuf msg = STRBUF_INIT;
        const char *at;
        free(peer_text(r, top, bad, &msg, &at));
        const char *why = arena_sprintf(r->mem, "ERESOLVE: %s", msg.buf);
        sb_release(&msg);
        *name = bad->d->name;
        return why;
    }
    if (!bad->unbound)
        return NULL;
    const rsv_dep *d = bad->unbound;
    char *who = d->from ? xasprintf("%s %s", resolver_solv(r, d->from)->name,
                                    resolver_solv(r, d->from)->version)
                        : resolver_root_label(r, d->root);
    const char *why = arena_sprintf(r->mem, "ETARGET: no version of %s satisfies `%s` of %s",
                                    d->name, d->text, who);
    free(who);
    /* the dependent is what the search may choose otherwise */
    *name = d->from ? resolver_solv(r, d->from)->name : d->name;
    return why;
}

void resolver_npm_tree_jobs(rsv *r)
{
    r->npm_search = false;
    r->npm_search_why = r->npm_search_name = NULL;
    r->npm_exact_lo = r->npm_exact_hi = r->job.count;
    const npm_tree_cache *c = tree_get(r, NULL);
    const ptrvec all = c->all;
    npm_peer_bad bad = c->bad;
    r->npm_search_why = refusal(r, c->top, &bad, &r->npm_search_name);
    r->npm_search = r->npm_search_why != NULL;
    Map seen;
    map_init(&seen, r->pool->nsolvables);
    for (size_t i = 0; !r->npm_search && i < all.len; i++) {
        Id p = ((rsv_npm_node *)all.items[i])->p;
        if (p && !MAPTST(&seen, p)) {
            MAPSET(&seen, p);
            queue_push2(&r->job, SOLVER_INSTALL | SOLVER_SOLVABLE, p);
        }
    }
    map_free(&seen);
    r->npm_exact_hi = r->job.count;
}

bool resolver_npm_exact_failed(rsv *r, int nproblems)
{
    /* npm's names depend on npm's names only: a problem of a solve with
     * the tree's jobs (apt's exact jobs already dropped) is the tree's */
    if (!nproblems || r->npm_exact_hi == r->npm_exact_lo)
        return false;
    int n = r->npm_exact_hi - r->npm_exact_lo;
    queue_deleten(&r->job, r->npm_exact_lo, n);
    if (r->apt_exact_lo >= r->npm_exact_hi) {
        r->apt_exact_lo -= n;
        r->apt_exact_hi -= n;
    }
    r->npm_exact_hi = r->npm_exact_lo;
    r->npm_search = true;
    r->npm_search_why = "the tree npm builds cannot be installed with the rest of the spec";
    r->npm_search_name = NULL;
    return true;
}

void resolver_npm_note(rsv *r)
{
    if (!r->npm_search || !r->rq->note)
        return;
    strbuf t = STRBUF_INIT;
    sb_addf(&t, "npm: npm install would refuse this spec (%s); envlock searched the versions "
                "instead, and the lock is the tree built from the versions that search chose",
            r->npm_search_why);
    const ptrvec all = *resolver_npm_tree(r);
    const char *sep = ": ";
    for (size_t i = 0; r->npm_search_name && i < all.len; i++) {
        const rsv_npm_node *n = all.items[i];
        const rsv_solv *s = n->p ? resolver_solv(r, n->p) : NULL;
        if (s && strcmp(s->name, r->npm_search_name) == 0) {
            sb_addf(&t, "%s%s %s at %s", sep, s->name, s->version, n->path);
            sep = ", ";
        }
    }
    r->rq->note(r->rq->note_user, t.buf);
    sb_release(&t);
}

void resolver_npm_layout_free(ptrvec *all)
{
    for (size_t i = 0; i < all->len; i++) {
        rsv_npm_node *n = all->items[i];
        free(n->path);
        ptrvec_release(&n->children);
        ptrvec_release(&n->dependents);
        free(n->edges.items);
        free(n);
    }
    ptrvec_release(all);
}

void rsv_npm_edges_push(rsv_npm_edges *v, rsv_npm_edge e)
{
    if (v->len == v->alloc) {
        v->alloc = v->alloc ? 2 * v->alloc : 8;
        v->items = xrealloc(v->items, v->alloc * sizeof *v->items);
    }
    v->items[v->len++] = e;
}

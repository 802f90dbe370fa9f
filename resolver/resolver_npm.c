/* resolver_npm.c — npm in the pool: the crawl through packuments (only the
 * versions npm's tree builder can pick for a requirement are followed,
 * resolver_npm_picks(); every version a requirement admits once widened,
 * when the tree or a search reaches past that), `npm:NAME` solvables with
 * rank EVRs under SOLVER_MULTIVERSION, dependencies as rank intervals of
 * node-semver ranges, and the jobs: the roots, favor jobs ordered as
 * `npm install` prefers (the `latest` dist-tag when it satisfies,
 * non-deprecated versions), and npm's own tree as exact jobs
 * (resolver_npm_tree.c builds it, and the node_modules layout of the
 * lock). The previous lock's names are submitted to the loader before the
 * first cache run as a prefetch; only names the crawl reaches count.
 * Packuments come cooled (npm_packument_cool()): a version's details are
 * warmed here where they are first read (the crawl's picks, the pool's
 * relevant versions), so a resolve holds those of the versions the tree
 * can use, not of every version it read. */
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/repo.h>

#include "npm_spec.h"
#include "resolver_internal.h"

static int nname_tree_cmp(const void *a, const void *b)
{
    const rsv_npm_name *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/* By name through r->npm_index (a tsearch tree of npm_names' entries): the
 * crawl looks a name up for every dependency of every version it follows. */
static rsv_npm_name *nname_find(const rsv *r, const char *name)
{
    rsv_npm_name key = { .name = (char *)name };
    void *const *hit = tfind(&key, &r->npm_index, nname_tree_cmp);
    return hit ? *(rsv_npm_name *const *)hit : NULL;
}

void resolver_npm_free_index(rsv *r)
{
    while (r->npm_index) /* tdestroy() is GNU's; this is POSIX */
        tdelete(*(void **)r->npm_index, &r->npm_index, nname_tree_cmp);
}

typedef struct range_entry {
    char *text;                 /* the key */
    npm_range *range;
} range_entry;

static int range_entry_cmp(const void *a, const void *b)
{
    return strcmp(((const range_entry *)a)->text, ((const range_entry *)b)->text);
}

const npm_range *resolver_npm_range(rsv *r, const npm_dep *dp)
{
    if (!dp->range_text)
        return NULL;
    range_entry key = { .text = (char *)dp->range_text };
    void *const *hit = tfind(&key, &r->npm_ranges, range_entry_cmp);
    if (hit)
        return (*(range_entry *const *)hit)->range;
    range_entry *e = xcalloc(1, sizeof *e);
    e->text = xstrdup(dp->range_text);
    if (npm_range_parse(e->text, NPM_LOOSE, &e->range, NULL) != 0)
        e->range = NULL; /* range_text parsed when it was set: not reached */
    tsearch(e, &r->npm_ranges, range_entry_cmp);
    return e->range;
}

void resolver_npm_free_ranges(rsv *r)
{
    while (r->npm_ranges) {
        range_entry *e = *(range_entry **)r->npm_ranges;
        tdelete(e, &r->npm_ranges, range_entry_cmp);
        npm_range_free(e->range);
        free(e->text);
        free(e);
    }
}

static rsv_npm_name *nname_get(rsv *r, const char *name)
{
    rsv_npm_name *n = nname_find(r, name);
    if (n)
        return n;
    n = xcalloc(1, sizeof *n);
    n->name = xstrdup(name);
    n->depth = r->npm_note_depth;
    ptrvec_push(&r->npm_names, n);
    tsearch(n, &r->npm_index, nname_tree_cmp);
    npm_loader_submit(r->nl, name);
    return n;
}

static void note_peer(rsv *r, const npm_dep *dp);

/* A name a dependency or peer edge reaches (it is installed): the picks
 * of its ranges are followed; optional peers seen before on it count now
 * (as peer ranges; once widened, as ranges). */
static void make_full(rsv *r, rsv_npm_name *n)
{
    if (n->full)
        return;
    n->full = true;
    for (size_t i = 0; i < r->npm_opt_peers.len; i++) {
        const npm_dep *dp = r->npm_opt_peers.items[i];
        if (strcmp(dp->name, n->name) != 0)
            continue;
        if (r->npm_wide)
            ptrvec_push(&n->ranges, (void *)resolver_npm_range(r, dp));
        else
            note_peer(r, dp);
    }
}

/* A name that gained a requirement is followed again once its packument is
 * there (now, or when it arrives: resolver_npm_loaded()). */
static void queue(rsv *r, rsv_npm_name *n)
{
    if (!n->queued) {
        n->queued = true;
        ptrvec_push(&r->npm_todo, n);
    }
}

static void note(rsv *r, const char *name, const npm_range *range, const char *tag)
{
    rsv_npm_name *n = nname_get(r, name);
    if (!n->full) {
        make_full(r, n);
        if (n->ranges.len)
            queue(r, n);
    }
    if (range) {
        for (size_t i = 0; i < n->ranges.len; i++)
            if (n->ranges.items[i] == range)
                return;
        ptrvec_push(&n->ranges, (void *)range);
    } else if (tag) {
        for (size_t i = 0; i < n->tags.len; i++)
            if (strcmp(n->tags.items[i], tag) == 0)
                return;
        ptrvec_push(&n->tags, (void *)tag);
    } else {
        return;
    }
    queue(r, n);
}

/* Whether v is admitted by one of n's requirements from index `from_r`
 * (ranges) and `from_t` (tags) on; from 0, by any requirement seen. */
static bool relevant_from(const rsv_npm_name *n, const npm_packument *p, const npm_version *v,
                          size_t from_r, size_t from_t)
{
    for (size_t i = from_r; i < n->ranges.len; i++)
        if (resolver_npm_range_admits(n->ranges.items[i], p, v))
            return true;
    for (size_t i = from_t; i < n->tags.len; i++) {
        const char *tv = npm_packument_find_tag(p, n->tags.items[i]);
        if (tv && strcmp(tv, v->version) == 0)
            return true;
    }
    return false;
}

/* Memoized per name: the pool is built after the crawl, when a name's
 * requirements no longer grow, and asks this for every candidate of a name
 * once per dependency on it (npm_dep_id()), each test going through every
 * range noted on the name (one per dependent version). */
/* Whether the narrowed crawl followed candidate k of p on n. */
static bool picked(const rsv_npm_name *n, const npm_packument *p, size_t k)
{
    return n->picked_p == p && k < p->ncandidates && n->picked[k];
}

/* 2 when v's dependencies were followed (wide: one of n's requirements
 * admits v; narrowed: v is a pick of one, resolver_npm_picks()), 1 when v
 * is only the pick of a peer-set range (its peers alone matter), 0
 * otherwise. */
static int relevant(const rsv *r, const rsv_npm_name *cn, const npm_packument *p,
                    const npm_version *v)
{
    rsv_npm_name *n = (rsv_npm_name *)cn;
    if (n->rel_p != p || n->rel_ranges != n->ranges.len || n->rel_tags != n->tags.len ||
        n->rel_pranges != n->pranges.len || n->rel_npicked != n->npicked ||
        n->rel_wide != r->npm_wide) {
        free(n->rel);
        n->rel = xcalloc(p->ncandidates ? p->ncandidates : 1, sizeof *n->rel);
        for (size_t i = 0; i < n->pranges.len; i++) {
            const npm_version *pv[RSV_NPM_PICKS];
            size_t npv = resolver_npm_picks(r, p, n->pranges.items[i], NULL, pv);
            for (size_t j = 0; j < npv; j++)
                n->rel[pv[j] - p->versions] = 1;
        }
        for (size_t k = 0; k < p->ncandidates; k++)
            if (r->npm_wide ? relevant_from(n, p, &p->versions[k], 0, 0) : picked(n, p, k))
                n->rel[k] = 2;
        n->rel_p = p;
        n->rel_ranges = n->ranges.len;
        n->rel_tags = n->tags.len;
        n->rel_pranges = n->pranges.len;
        n->rel_npicked = n->npicked;
        n->rel_wide = r->npm_wide;
    }
    size_t k = (size_t)(v - p->versions);
    if (k < p->ncandidates)
        return n->rel[k];
    return r->npm_wide ? 2 * relevant_from(n, p, v, 0, 0) : 0;
}

/* arborist keys a version's edges by name, loading peers first and then
 * dependencies and optional ones over them: a peer also listed as a
 * dependency is the dependency only. */
static bool peer_overridden(const npm_version *v, const npm_dep *dp)
{
    if (dp->kind != NPM_DEP_PEER && dp->kind != NPM_DEP_PEER_OPTIONAL)
        return false;
    for (size_t i = 0; i < v->ndeps; i++)
        if ((v->deps[i].kind == NPM_DEP_PROD || v->deps[i].kind == NPM_DEP_OPTIONAL) &&
            strcmp(v->deps[i].name, dp->name) == 0)
            return true;
    return false;
}

bool resolver_npm_bundled(const npm_version *v, const char *name)
{
    if (v->bundle_all)
        return true;
    for (size_t i = 0; i < v->nbundled; i++)
        if (strcmp(v->bundled[i], name) == 0)
            return true;
    return false;
}

/* A name of the previous lock, asked of the loader only (not noted). */
static void prefetch(rsv *r, const char *name)
{
    npm_loader_submit(r->nl, name);
}

void resolver_npm_seed(rsv *r)
{
    r->npm_note_depth = 1;
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco == RSV_NPM)
            note(r, rt->name, rt->nrange, rt->ntag);
    }
    resolver_prefetch_locked(r, "npm", prefetch);
}

/* An alias envlock follows: `npm:NAME` or `npm:NAME@RANGE` of a valid
 * range (`npm:NAME@TAG` and the like are refused by unlockable()). */
bool resolver_npm_alias_ok(const npm_dep *dp)
{
    const char *name, *range;
    size_t n;
    return npm_alias_split(dp->spec, &name, &n, &range) && n && (!range || dp->range_text);
}

/* An optional peer is installed only when some other edge brings its name
 * into the tree; npm then enforces its range. So its range is noted on a
 * name that is crawled (now, or when make_full() makes it so), never a
 * reason to crawl one: as a peer range (note_peer()), once widened as a
 * range. */
static void note_optional_peer(rsv *r, const npm_dep *dp)
{
    if (dp->spec_kind != NPM_SPEC_IS_RANGE || !dp->range_text)
        return;
    const rsv_npm_name *n = nname_find(r, dp->name);
    if (n && n->full && r->npm_wide)
        note(r, dp->name, resolver_npm_range(r, dp), NULL);
    else if (n && n->full)
        note_peer(r, dp);
    else
        ptrvec_push(&r->npm_opt_peers, (void *)dp);
}

/* npm-pick-manifest's version for `range` alone (no lock, no advisory),
 * or NULL. */
static const npm_version *range_pick(const rsv *r, const npm_packument *p, const npm_range *range)
{
    return resolver_npm_pick(r, p, range, NULL, false, NULL, NULL);
}

static bool vec_has(const ptrvec *v, const void *item)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == item)
            return true;
    return false;
}

/* A range of a peer edge, or of a peer set arborist loads with one
 * (buildIdealTree's loadPeerSet loads optional peers too, to place the set
 * where none conflicts): the name is fetched and the range's picks
 * followed, for their peers only. A peer a copy in reach satisfies brings
 * nothing more, which is why arborist fetches nothing for it; one placed
 * is extended after the tree is built (resolver_npm_extend()). */
static void note_peer(rsv *r, const npm_dep *dp)
{
    if (dp->spec_kind != NPM_SPEC_IS_RANGE || !dp->range_text)
        return;
    rsv_npm_name *n = nname_get(r, dp->name);
    if (vec_has(&n->pranges, resolver_npm_range(r, dp)))
        return;
    ptrvec_push(&n->pranges, (void *)resolver_npm_range(r, dp));
    queue(r, n);
}

/* The peers arborist loads with v, the pick of a range (every peer when
 * v is itself in a peer set, else the optional ones: required peers are
 * noted with its dependencies, note_deps()). */
static void follow_pick(rsv *r, const npm_packument *p, const npm_version *v, bool in_set)
{
    v = npm_version_warm(p, v);
    for (size_t d = 0; v && d < v->ndeps; d++) {
        const npm_dep *dp = &v->deps[d];
        if ((dp->kind == NPM_DEP_PEER_OPTIONAL || (in_set && dp->kind == NPM_DEP_PEER)) &&
            !resolver_npm_bundled(v, dp->name) && !peer_overridden(v, dp))
            note_peer(r, dp);
    }
}

/* The peer sets of the picks of n's ranges from from_r and of its
 * peer-set ranges from from_pr. */
static void follow_picks(rsv *r, rsv_npm_name *n, const npm_packument *p, size_t from_r,
                         size_t from_pr)
{
    for (size_t i = from_r; i < n->ranges.len; i++)
        follow_pick(r, p, range_pick(r, p, n->ranges.items[i]), false);
    for (size_t i = from_pr; i < n->pranges.len; i++) {
        const npm_version *pv[RSV_NPM_PICKS];
        size_t npv = resolver_npm_picks(r, p, n->pranges.items[i], NULL, pv);
        for (size_t j = 0; j < npv; j++)
            follow_pick(r, p, pv[j], true);
    }
}

/* A required peer: its name is installed, by the copy in reach that
 * satisfies it or by a pick of its range (note_peer()); once widened, a
 * range like a dependency's. */
static void note_required_peer(rsv *r, const npm_version *v, const npm_dep *dp)
{
    if (dp->spec_kind != NPM_SPEC_IS_RANGE || !dp->range_text || peer_overridden(v, dp))
        return;
    if (r->npm_wide) {
        note(r, dp->name, resolver_npm_range(r, dp), NULL);
        return;
    }
    make_full(r, nname_get(r, dp->name));
    note_peer(r, dp);
}

/* Notes the dependencies of version v of p (warmed: the crawl is what
 * reads a version's details first). */
static void note_deps(rsv *r, const npm_packument *p, const npm_version *v)
{
    v = npm_version_warm(p, v);
    for (size_t d = 0; d < v->ndeps; d++) {
        const npm_dep *dp = &v->deps[d];
        if (resolver_npm_bundled(v, dp->name))
            continue;
        if (dp->kind == NPM_DEP_PEER_OPTIONAL)
            note_optional_peer(r, dp);
        else if (dp->kind == NPM_DEP_PEER && dp->spec_kind == NPM_SPEC_IS_RANGE)
            note_required_peer(r, v, dp);
        else if (dp->spec_kind == NPM_SPEC_IS_RANGE && dp->range_text)
            note(r, dp->name, resolver_npm_range(r, dp), NULL);
        else if (dp->spec_kind == NPM_SPEC_IS_TAG)
            note(r, dp->name, NULL, dp->spec);
        else if (dp->spec_kind == NPM_SPEC_IS_ALIAS && resolver_npm_alias_ok(dp))
            note(r, dp->alias_name, resolver_npm_range(r, dp), dp->range_text ? NULL : "latest");
    }
}

/* n->picked, sized for p's candidates. */
static void picks_for(rsv_npm_name *n, const npm_packument *p)
{
    if (n->picked_p != p) {
        free(n->picked);
        n->picked = xcalloc(p->ncandidates ? p->ncandidates : 1, 1);
        n->picked_p = p;
    }
}

/* The narrowed crawl: the dependencies of the versions the tree builder
 * can bind to an edge of `range` (or `tag`) on n, each version once. */
static void follow_spec(rsv *r, rsv_npm_name *n, const npm_packument *p, const npm_range *range,
                        const char *tag)
{
    picks_for(n, p);
    const npm_version *v[RSV_NPM_PICKS];
    size_t nv = resolver_npm_picks(r, p, range, tag, v);
    for (size_t i = 0; i < nv; i++) {
        size_t k = (size_t)(v[i] - p->versions);
        if (k < p->ncandidates && !n->picked[k]) {
            n->picked[k] = 1;
            n->npicked++;
            note_deps(r, p, v[i]);
        }
    }
}

/* Notes the dependencies of the versions of n that its requirements not
 * followed yet bring: their picks (resolver_npm_picks()), or once widened
 * every version they admit; false when its packument is not there (yet). */
static bool follow(rsv *r, rsv_npm_name *n)
{
    const npm_packument *p = npm_loader_get(r->nl, n->name);
    if (!p)
        return false;
    /* a name noted now waits for this packument and for the arrival being
     * followed, whichever came later */
    r->npm_note_depth = (n->depth > r->npm_cur_depth ? n->depth : r->npm_cur_depth) + 1;
    while (p->code == EL_OK &&
           (n->followed_ranges < n->ranges.len || n->followed_tags < n->tags.len ||
            n->followed_pranges < n->pranges.len)) {
        size_t from_r = n->followed_ranges, from_t = n->followed_tags,
               from_pr = n->followed_pranges;
        size_t to_r = n->followed_ranges = n->ranges.len; /* a dependency on itself adds more */
        size_t to_t = n->followed_tags = n->tags.len;
        n->followed_pranges = n->pranges.len;
        follow_picks(r, n, p, from_r, from_pr);
        for (size_t i = from_r; !r->npm_wide && i < to_r; i++)
            follow_spec(r, n, p, n->ranges.items[i], NULL);
        for (size_t i = from_t; !r->npm_wide && i < to_t; i++)
            follow_spec(r, n, p, NULL, n->tags.items[i]);
        for (size_t k = 0; r->npm_wide && k < p->ncandidates; k++)
            if (relevant_from(n, p, &p->versions[k], from_r, from_t))
                note_deps(r, p, &p->versions[k]);
    }
    return true;
}

/* Follows every queued name whose packument is there; the others stay
 * queued for their arrival. Not re-entered: a load that finishes inside
 * (an invalid name fails at once) is only queued. */
static void follow_queued(rsv *r)
{
    if (r->npm_following)
        return;
    r->npm_following = true;
    for (size_t i = 0; i < r->npm_todo.len;) {
        rsv_npm_name *n = r->npm_todo.items[i];
        if (follow(r, n)) {
            n->queued = false;
            r->npm_todo.items[i] = r->npm_todo.items[r->npm_todo.len - 1];
            r->npm_todo.len--; /* slot i is checked again; names following
                                  queued are appended, so this pass reaches them */
        } else {
            i++;
        }
    }
    r->npm_following = false;
}

/* A packument arrived (from cache_run()): its dependencies are noted, and
 * their packuments asked for, at once, so the crawl has no level barriers —
 * a dependency's fetch starts when its dependent's packument arrives, not
 * when the slowest packument of the level does. Arrival order does not
 * matter: what a name admits only grows with the ranges noted on it, so the
 * crawl ends on the same names and ranges whatever the order (npm_names is
 * sorted before the pool). */
void resolver_npm_loaded(npm_loader *l, const npm_packument *p, void *user)
{
    (void)l;
    rsv *r = user;
    if (r->npm_following)
        return; /* an invalid name, failed inside a follow: only queued */
    double t0 = resolver_now_ms();
    rsv_npm_name *n = p && p->name ? nname_find(r, p->name) : NULL;
    if (n && !n->arrived_ms)
        n->arrived_ms = t0 - r->t0_ms;
    r->npm_cur_depth = n ? n->depth : 0;
    follow_queued(r);
    r->npm_cur_depth = 0;
    r->npm_follow_ms += resolver_now_ms() - t0;
}

/* After a cache run: follows what is left (names whose packuments came from
 * the cache before they were noted); true when that asked for more. */
bool resolver_npm_round(rsv *r)
{
    size_t before = r->npm_names.len;
    follow_queued(r);
    return r->npm_names.len != before || r->npm_todo.len != 0;
}

/* ---- the narrowed crawl against the tree ---- */

/* The version tree node x holds when the crawl did not follow its
 * dependencies (*np: its name, NULL when never noted), else NULL. */
static const rsv_solv *unfollowed(rsv *r, const rsv_npm_node *x, rsv_npm_name **np)
{
    const rsv_solv *s = x->p ? resolver_solv(r, x->p) : NULL;
    rsv_npm_name *n = s ? nname_find(r, s->name) : NULL;
    *np = n;
    return s && (!n || relevant(r, n, s->np, s->nv) != 2) ? s : NULL;
}

const char *resolver_npm_missed(rsv *r)
{
    if (r->npm_wide)
        return NULL;
    if (r->npm_search)
        return arena_sprintf(r->mem, "the solve searched (%s)",
                             r->npm_search_why ? r->npm_search_why : "npm's tree");
    const ptrvec *all = resolver_npm_tree(r);
    for (size_t i = 0; i < all->len; i++) {
        const rsv_npm_node *x = all->items[i];
        rsv_npm_name *n;
        const rsv_solv *s = unfollowed(r, x, &n);
        if (s)
            return arena_sprintf(r->mem, "the tree holds %s %s at %s, whose dependencies were "
                                 "not followed", s->name, s->version, x->path);
    }
    return NULL;
}

bool resolver_npm_extend(rsv *r)
{
    if (r->npm_wide || r->npm_search)
        return false;
    const ptrvec *all = resolver_npm_tree(r);
    size_t added = 0;
    r->npm_note_depth = 1;
    for (size_t i = 0; i < all->len; i++) {
        rsv_npm_name *n;
        const rsv_solv *s = unfollowed(r, all->items[i], &n);
        if (!s || !n)
            continue;
        picks_for(n, s->np);
        n->picked[s->nv - s->np->versions] = 1;
        n->npicked++;
        added++;
        note_deps(r, s->np, s->nv);
    }
    if (added)
        resolver_stat(r, "npm crawl extended: %zu peer picks placed by the tree", added);
    return added != 0;
}

bool resolver_npm_widen(rsv *r, const char *why)
{
    if (r->npm_wide)
        return false;
    r->npm_wide = true;
    resolver_stat(r, "npm crawl widened: %s; every admitted version is followed now", why);
    for (size_t i = 0; i < r->npm_names.len; i++) {
        rsv_npm_name *n = r->npm_names.items[i];
        n->followed_ranges = n->followed_tags = 0;
        if (n->ranges.len || n->tags.len)
            queue(r, n);
    }
    return true;
}

/* ---- ENVLOCK_DEBUG_STATS: the crawl's critical path ---- */

static int nname_ptr_cmp(const void *a, const void *b)
{
    const rsv_npm_name *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

static rsv_npm_name *sorted_find(rsv_npm_name **sorted, size_t n, const char *name)
{
    rsv_npm_name key = { .name = (char *)name }, *kp = &key;
    rsv_npm_name **hit = bsearch(&kp, sorted, n, sizeof *sorted, nname_ptr_cmp);
    return hit ? *hit : NULL;
}

/* Breadth-first from the roots over the edges follow() took (the relevant
 * versions' dependencies): each name's shortest chain, the fewest
 * sequential fetches any crawl needs to reach it. */
static void min_depths(rsv *r, rsv_npm_name **sorted, size_t nn)
{
    rsv_npm_name **fifo = xcalloc(nn ? nn : 1, sizeof *fifo);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < nn; i++)
        if (sorted[i]->depth == 1) {
            sorted[i]->min_depth = 1;
            fifo[tail++] = sorted[i];
        }
    while (head < tail) {
        rsv_npm_name *n = fifo[head++];
        const npm_packument *p = npm_loader_get(r->nl, n->name);
        for (size_t k = 0; p && p->code == EL_OK && k < p->ncandidates; k++) {
            const npm_version *v = &p->versions[k];
            if (!relevant(r, n, p, v))
                continue;
            v = npm_version_warm(p, v);
            for (size_t d = 0; d < v->ndeps; d++) {
                const npm_dep *dp = &v->deps[d];
                const char *to = dp->spec_kind == NPM_SPEC_IS_ALIAS ? dp->alias_name : dp->name;
                rsv_npm_name *t = to ? sorted_find(sorted, nn, to) : NULL;
                if (t && !t->min_depth && dp->kind != NPM_DEP_PEER_OPTIONAL &&
                    !resolver_npm_bundled(v, dp->name)) {
                    t->min_depth = n->min_depth + 1;
                    fifo[tail++] = t;
                }
            }
        }
    }
    free(fifo);
}

/* One line: names per depth as the crawl reached them (the chain of
 * fetches that asked for each, root = 1: what this run waited for), per
 * shortest depth, and the last arrival of each depth in ms since the
 * resolve began; the time spent following arrivals (and computing this). */
static void crawl_stats(rsv *r)
{
    double t0 = resolver_now_ms();
    size_t nn = r->npm_names.len;
    rsv_npm_name **sorted = xcalloc(nn ? nn : 1, sizeof *sorted);
    unsigned maxd = 0;
    for (size_t i = 0; i < nn; i++) {
        sorted[i] = r->npm_names.items[i];
        if (sorted[i]->depth > maxd)
            maxd = sorted[i]->depth;
    }
    qsort(sorted, nn, sizeof *sorted, nname_ptr_cmp);
    min_depths(r, sorted, nn);
    size_t *at = xcalloc(maxd + 2, sizeof *at), *atmin = xcalloc(maxd + 2, sizeof *atmin);
    double *last = xcalloc(maxd + 2, sizeof *last);
    unsigned maxmin = 0;
    for (size_t i = 0; i < nn; i++) {
        const rsv_npm_name *n = sorted[i];
        at[n->depth]++;
        unsigned m = n->min_depth <= maxd ? n->min_depth : maxd + 1;
        atmin[m]++;
        if (m > maxmin)
            maxmin = m;
        if (n->arrived_ms > last[n->depth])
            last[n->depth] = n->arrived_ms;
    }
    strbuf line = STRBUF_INIT;
    sb_addf(&line, "npm crawl: %zu names, depth %u (shortest %u); names per depth:",
            nn, maxd, maxmin);
    for (unsigned d = 1; d <= maxd; d++)
        sb_addf(&line, " %u:%zu", d, at[d]);
    sb_adds(&line, "; per shortest depth:");
    for (unsigned d = 1; d <= maxmin; d++)
        sb_addf(&line, " %u:%zu", d, atmin[d]);
    sb_adds(&line, "; last arrival per depth, ms:");
    for (unsigned d = 1; d <= maxd; d++)
        sb_addf(&line, " %u:%.0f", d, last[d]);
    sb_addf(&line, "; %.0f ms following arrivals, %.0f ms for this line", r->npm_follow_ms,
            resolver_now_ms() - t0);
    resolver_stat(r, "%s", line.buf);
    /* the names themselves, to set against what npm's log says it fetched
     * (bench/npm_fetch) */
    sb_reset(&line);
    sb_adds(&line, "npm crawl names:");
    for (size_t i = 0; i < nn; i++)
        sb_addf(&line, " %s", sorted[i]->name);
    resolver_stat(r, "%s", line.buf);
    sb_release(&line);
    free(at);
    free(atmin);
    free(last);
    free(sorted);
}

el_code resolver_npm_finish(rsv *r)
{
    if (resolver_stats_on(r))
        crawl_stats(r);
    for (size_t i = 0; i < r->npm_names.len; i++) {
        rsv_npm_name *n = r->npm_names.items[i];
        const npm_packument *p = npm_loader_get(r->nl, n->name);
        if (p && p->code != EL_OK && !(p->reason && strcmp(p->reason, "not_found") == 0))
            return npm_load_fail(r->ctx, p);
    }
    return EL_OK;
}

/* ---- the pool ---- */

static int nname_cmp(const void *a, const void *b)
{
    const rsv_npm_name *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* The dependency on `name` admitting what `range` (or `tag`) admits among
 * the relevant candidates; *any says whether some candidate matched. */
static Id npm_dep_id(rsv *r, const char *name, const npm_range *range, const char *tag, bool *any)
{
    rsv_npm_name *n = nname_find(r, name);
    const npm_packument *p = n ? npm_loader_get(r->nl, name) : NULL;
    char *pname = xasprintf("npm:%s", name);
    *any = false;
    if (!p || p->code != EL_OK || p->ncandidates == 0) {
        Id d = pool_str2id(r->pool, pname, 1);
        free(pname);
        return d;
    }
    size_t nc = p->ncandidates;
    bool *keep = xcalloc(nc, sizeof *keep), *present = xcalloc(nc, sizeof *present);
    size_t *ranks = xcalloc(nc, sizeof *ranks);
    const char *tv = tag ? npm_packument_find_tag(p, tag) : NULL;
    /* ascending order: index j is candidate nc-1-j */
    for (size_t j = 0; j < nc; j++) {
        const npm_version *v = &p->versions[nc - 1 - j];
        ranks[j] = j + 1;
        present[j] = relevant(r, n, p, v);
        keep[j] = range ? resolver_npm_range_admits(range, p, v) : (tv && strcmp(tv, v->version) == 0);
        if (keep[j] && present[j])
            *any = true;
    }
    rsv_interval *iv = xcalloc(nc, sizeof *iv);
    size_t niv = resolver_intervals(keep, present, nc, iv);
    Id d = resolver_interval_dep(r->pool, pname, ranks, nc, iv, niv);
    free(keep);
    free(present);
    free(ranks);
    free(iv);
    free(pname);
    return d;
}

static const char *kind_name(npm_dep_kind k)
{
    switch (k) {
    case NPM_DEP_OPTIONAL: return "optional";
    case NPM_DEP_PEER:
    case NPM_DEP_PEER_OPTIONAL: return "peer";
    default: return "dependency";
    }
}

void resolver_npm_add(rsv *r)
{
    Pool *pool = r->pool;
    if (r->npm_names.len)
        qsort(r->npm_names.items, r->npm_names.len, sizeof(void *), nname_cmp);
    if (!r->repo_npm)
        r->repo_npm = repo_create(pool, "npm");
    for (size_t i = 0; i < r->npm_names.len; i++) {
        rsv_npm_name *n = r->npm_names.items[i];
        const npm_packument *p = npm_loader_get(r->nl, n->name);
        if (!p || p->code != EL_OK)
            continue;
        char *pname = xasprintf("npm:%s", n->name);
        size_t nc = p->ncandidates;
        for (size_t k = nc; k-- > 0;) {
            const npm_version *v = &p->versions[k];
            int rel = relevant(r, n, p, v);
            if (!rel)
                continue;
            v = npm_version_warm(p, v); /* the tree and the lock read it too */
            Id sp = repo_add_solvable(r->repo_npm);
            Solvable *s = pool->solvables + sp;
            char evr[16];
            resolver_rank_evr(nc - k, evr);
            s->name = pool_str2id(pool, pname, 1);
            s->evr = pool_str2id(pool, evr, 1);
            s->arch = ARCH_ALL;
            s->provides = repo_addid_dep(r->repo_npm, s->provides,
                                         pool_rel2id(pool, s->name, s->evr, REL_EQ, 1), 0);
            rsv_solv *rs = resolver_solv(r, sp);
            rs->ours = true;
            rs->eco = RSV_NPM;
            rs->name = p->name;
            rs->version = v->version;
            rs->np = p;
            rs->nv = v;
            for (size_t d = 0; d < v->ndeps; d++) {
                const npm_dep *dp = &v->deps[d];
                bool opt_peer = dp->kind == NPM_DEP_PEER_OPTIONAL;
                if ((rel == 1 && dp->kind != NPM_DEP_PEER && !opt_peer) || /* a peer-set pick */
                    resolver_npm_bundled(v, dp->name) || peer_overridden(v, dp) ||
                    (opt_peer && (dp->spec_kind != NPM_SPEC_IS_RANGE || !dp->range_text ||
                                  !nname_find(r, dp->name))))
                    continue; /* an optional peer nothing else brings is never installed */
                bool any = false;
                Id did;
                if (dp->spec_kind == NPM_SPEC_IS_RANGE && dp->range_text)
                    did = npm_dep_id(r, dp->name, resolver_npm_range(r, dp), NULL, &any);
                else if (dp->spec_kind == NPM_SPEC_IS_TAG)
                    did = npm_dep_id(r, dp->name, NULL, dp->spec, &any);
                else if (dp->spec_kind == NPM_SPEC_IS_ALIAS && resolver_npm_alias_ok(dp))
                    did = npm_dep_id(r, dp->alias_name, resolver_npm_range(r, dp),
                                     dp->range_text ? NULL : "latest", &any);
                else
                    continue; /* no registry version: refused if chosen (unlockable()) */
                bool alias = dp->spec_kind == NPM_SPEC_IS_ALIAS;
                /* an optional dependency nothing here can satisfy (os, cpu,
                 * no version) is skipped, as npm skips a failed optional one */
                if (dp->kind == NPM_DEP_OPTIONAL && !any)
                    continue;
                s = pool->solvables + sp;
                if (!opt_peer)
                    s->requires = repo_addid_dep(r->repo_npm, s->requires, did, 0);
                char *text = xasprintf("%s@%s", dp->name, dp->spec);
                rsv_dep *rd = resolver_add_dep(r, sp, -1, did, RSV_NPM,
                                               alias ? dp->alias_name : dp->name,
                                               arena_strdup(r->mem, text), NULL, kind_name(dp->kind));
                rd->nomatch = !any;
                rd->nrange = dp->spec_kind != NPM_SPEC_IS_TAG ? resolver_npm_range(r, dp) : NULL;
                rd->ntag = dp->spec_kind == NPM_SPEC_IS_TAG ? dp->spec
                           : alias && !dp->range_text     ? "latest"
                                                          : NULL;
                rd->folder = alias ? dp->name : NULL;
                rd->optional_peer = opt_peer;
                free(text);
            }
        }
        free(pname);
    }
}

el_code resolver_npm_jobs(rsv *r)
{
    Pool *pool = r->pool;
    for (size_t i = 0; i < r->npm_names.len; i++) {
        rsv_npm_name *n = r->npm_names.items[i];
        char *pname = xasprintf("npm:%s", n->name);
        queue_push2(&r->job, SOLVER_MULTIVERSION | SOLVER_SOLVABLE_NAME, pool_str2id(pool, pname, 1));
        free(pname);
    }
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_NPM)
            continue;
        bool any = false;
        Id d = npm_dep_id(r, rt->name, rt->nrange, rt->ntag, &any);
        rt->dep = d;
        rsv_dep *rd = resolver_add_dep(r, 0, (int)i, d, RSV_NPM, rt->name, rt->r->text, NULL,
                                       "dependency");
        rd->nomatch = !any;
        rd->nrange = rt->nrange;
        rd->ntag = rt->ntag;
        queue_push2(&r->job, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, d);
    }
    /* npm's preferences (resolver_npm_rank()): one favor job per rank, weakest
     * first (libsolv ranks favored candidates by their job, the later
     * wins, and takes the highest version within one job's set), then,
     * strongest, the versions npm takes by the latest shortcut */
    Queue q;
    queue_init(&q);
    for (int rank = 1; rank <= 4; rank++) {
        queue_empty(&q);
        Id p;
        Solvable *s;
        FOR_REPO_SOLVABLES(r->repo_npm, p, s) {
            const rsv_solv *rs = resolver_solv(r, p);
            if (rank < 4 ? resolver_npm_rank(rs->nv) == rank : resolver_npm_latest_ok(rs->np, rs->nv))
                queue_push(&q, p);
        }
        if (q.count)
            queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF,
                        pool_queuetowhatprovides(pool, &q));
    }
    queue_free(&q);
    /* npm's own tree, as exact jobs: the favor jobs above only steer the
     * search that runs where npm would refuse (resolver_npm_tree.c); the
     * packages its tarballs bundle first, as they take places in it */
    el_code rc = resolver_npm_bundles(r);
    if (rc == EL_OK)
        resolver_npm_tree_jobs(r);
    return rc;
}

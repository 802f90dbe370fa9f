/* resolver_npm.c — npm in the pool: the crawl through packuments (only the
 * versions some requirement admits are followed), `npm:NAME` solvables with
 * rank EVRs under SOLVER_MULTIVERSION, dependencies as rank intervals of
 * node-semver ranges, favor jobs so libsolv picks what `npm install` picks
 * (the `latest` dist-tag when it satisfies, non-deprecated versions), and
 * after the solve the node_modules layout: every edge bound to the highest
 * installed version satisfying it, each copy hoisted to the shallowest
 * place where no other version of its name is visible. The previous lock's
 * names are submitted to the loader before the first cache run as a
 * prefetch; only names the crawl reaches count. */
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
    /* optional peers seen before the name was: their ranges count now */
    for (size_t i = 0; i < r->npm_opt_peers.len; i++) {
        const npm_dep *dp = r->npm_opt_peers.items[i];
        if (strcmp(dp->name, name) == 0)
            ptrvec_push(&n->ranges, (void *)dp->range);
    }
    return n;
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

/* npm_rank() : npm-pick-manifest's order among the versions a range
 *  admits, best last: 3 not deprecated and engines.node admits the node npm
 *  runs with, 2 engines ok but deprecated, 1 not deprecated but engines
 *  not ok, 0 neither; the highest version within a rank. Without a known
 *  node every version's engines count as ok (NPM_FLAG_ENGINES_MISMATCH is
 *  set only against a node version; the request then carries a note). */
static int npm_rank(const npm_version *v)
{
    bool engines_ok = !(v->flags & NPM_FLAG_ENGINES_MISMATCH);
    return engines_ok ? (v->deprecated ? 2 : 3) : (v->deprecated ? 0 : 1);
}

/* npm_latest_ok() : whether v is what npm-pick-manifest's latest shortcut
 *  takes for any range admitting it: the `latest` dist-tag's version when it
 *  is not deprecated and its engines admit the node (npm 11). */
static bool npm_latest_ok(const npm_packument *p, const npm_version *v)
{
    const char *lt = npm_packument_find_tag(p, "latest");
    return lt && strcmp(lt, v->version) == 0 && v->excluded == NPM_EX_NONE && npm_rank(v) == 3;
}

/* Whether version v of packument p is admitted by some requirement seen. */
/* npm_range_admits() : whether `range` admits v of p as npm does: the
 *  node-semver test, and for the any-range (`*`, empty; node-semver formats
 *  `x` the same, so it is treated alike) also the version `latest` names,
 *  pre-release or not (npm-pick-manifest's `range === '*'` shortcut;
 *  arborist holds any version valid for `*`). */
static bool npm_range_admits(const npm_range *range, const npm_packument *p, const npm_version *v)
{
    if (npm_range_test(range, &v->semver))
        return true;
    if (npm_range_format(range)[0] != '\0')
        return false;
    const char *lt = npm_packument_find_tag(p, "latest");
    return lt && strcmp(lt, v->version) == 0;
}

/* Whether v is admitted by one of n's requirements from index `from_r`
 * (ranges) and `from_t` (tags) on; from 0, by any requirement seen. */
static bool relevant_from(const rsv_npm_name *n, const npm_packument *p, const npm_version *v,
                          size_t from_r, size_t from_t)
{
    for (size_t i = from_r; i < n->ranges.len; i++)
        if (npm_range_admits(n->ranges.items[i], p, v))
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
static bool relevant(const rsv_npm_name *cn, const npm_packument *p, const npm_version *v)
{
    rsv_npm_name *n = (rsv_npm_name *)cn;
    if (n->rel_p != p || n->rel_ranges != n->ranges.len || n->rel_tags != n->tags.len) {
        free(n->rel);
        n->rel = xcalloc(p->ncandidates ? p->ncandidates : 1, sizeof *n->rel);
        for (size_t k = 0; k < p->ncandidates; k++)
            n->rel[k] = relevant_from(n, p, &p->versions[k], 0, 0);
        n->rel_p = p;
        n->rel_ranges = n->ranges.len;
        n->rel_tags = n->tags.len;
    }
    size_t k = (size_t)(v - p->versions);
    return k < p->ncandidates ? n->rel[k] : relevant_from(n, p, v, 0, 0);
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

static bool bundled(const npm_version *v, const char *name)
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
static bool alias_ok(const npm_dep *dp)
{
    const char *name, *range;
    size_t n;
    return npm_alias_split(dp->spec, &name, &n, &range) && n && (!range || dp->range);
}

/* An optional peer is installed only when some other edge brings its name
 * into the tree; npm then enforces its range. So its range is noted on a
 * name that is crawled (now, or when nname_get() creates it), never a
 * reason to crawl one. */
static void note_optional_peer(rsv *r, const npm_dep *dp)
{
    if (dp->spec_kind != NPM_SPEC_IS_RANGE || !dp->range)
        return;
    if (nname_find(r, dp->name))
        note(r, dp->name, dp->range, NULL);
    else
        ptrvec_push(&r->npm_opt_peers, (void *)dp);
}

/* Notes the dependencies of every version of n that its requirements not
 * followed yet admit; false when its packument is not there (yet). */
static bool follow(rsv *r, rsv_npm_name *n)
{
    const npm_packument *p = npm_loader_get(r->nl, n->name);
    if (!p)
        return false;
    /* a name noted now waits for this packument and for the arrival being
     * followed, whichever came later */
    r->npm_note_depth = (n->depth > r->npm_cur_depth ? n->depth : r->npm_cur_depth) + 1;
    while (p->code == EL_OK &&
           (n->followed_ranges < n->ranges.len || n->followed_tags < n->tags.len)) {
        size_t from_r = n->followed_ranges, from_t = n->followed_tags;
        n->followed_ranges = n->ranges.len; /* a dependency on itself adds more */
        n->followed_tags = n->tags.len;
        for (size_t k = 0; k < p->ncandidates; k++) {
            const npm_version *v = &p->versions[k];
            if (!relevant_from(n, p, v, from_r, from_t))
                continue;
            for (size_t d = 0; d < v->ndeps; d++) {
                const npm_dep *dp = &v->deps[d];
                if (bundled(v, dp->name))
                    continue;
                if (dp->kind == NPM_DEP_PEER_OPTIONAL)
                    note_optional_peer(r, dp);
                else if (dp->spec_kind == NPM_SPEC_IS_RANGE && dp->range)
                    note(r, dp->name, dp->range, NULL);
                else if (dp->spec_kind == NPM_SPEC_IS_TAG)
                    note(r, dp->name, NULL, dp->spec);
                else if (dp->spec_kind == NPM_SPEC_IS_ALIAS && alias_ok(dp))
                    note(r, dp->alias_name, dp->range, dp->range ? NULL : "latest");
            }
        }
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
            if (!relevant(n, p, v))
                continue;
            for (size_t d = 0; d < v->ndeps; d++) {
                const npm_dep *dp = &v->deps[d];
                const char *to = dp->spec_kind == NPM_SPEC_IS_ALIAS ? dp->alias_name : dp->name;
                rsv_npm_name *t = to ? sorted_find(sorted, nn, to) : NULL;
                if (t && !t->min_depth && dp->kind != NPM_DEP_PEER_OPTIONAL &&
                    !bundled(v, dp->name)) {
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
        present[j] = relevant(n, p, v);
        keep[j] = range ? npm_range_admits(range, p, v) : (tv && strcmp(tv, v->version) == 0);
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
            if (!relevant(n, p, v))
                continue;
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
                if (bundled(v, dp->name) || peer_overridden(v, dp) ||
                    (opt_peer && (dp->spec_kind != NPM_SPEC_IS_RANGE || !dp->range ||
                                  !nname_find(r, dp->name))))
                    continue; /* an optional peer nothing else brings is never installed */
                bool any = false;
                Id did;
                if (dp->spec_kind == NPM_SPEC_IS_RANGE && dp->range)
                    did = npm_dep_id(r, dp->name, dp->range, NULL, &any);
                else if (dp->spec_kind == NPM_SPEC_IS_TAG)
                    did = npm_dep_id(r, dp->name, NULL, dp->spec, &any);
                else if (dp->spec_kind == NPM_SPEC_IS_ALIAS && alias_ok(dp))
                    did = npm_dep_id(r, dp->alias_name, dp->range, dp->range ? NULL : "latest",
                                     &any);
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
                rd->nrange = dp->spec_kind != NPM_SPEC_IS_TAG ? dp->range : NULL;
                rd->ntag = dp->spec_kind == NPM_SPEC_IS_TAG ? dp->spec
                           : alias && !dp->range          ? "latest"
                                                          : NULL;
                rd->folder = alias ? dp->name : NULL;
                rd->optional_peer = opt_peer;
                free(text);
            }
        }
        free(pname);
    }
}

void resolver_npm_jobs(rsv *r)
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
    /* npm's preferences (npm_rank()): one favor job per rank, weakest
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
            if (rank < 4 ? npm_rank(rs->nv) == rank : npm_latest_ok(rs->np, rs->nv))
                queue_push(&q, p);
        }
        if (q.count)
            queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF,
                        pool_queuetowhatprovides(pool, &q));
    }
    queue_free(&q);
}

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
    if (d->nrange)
        return npm_range_admits(d->nrange, p, v);
    const char *tv = d->ntag ? npm_packument_find_tag(p, d->ntag) : NULL;
    return tv && strcmp(tv, v->version) == 0;
}

/* The solvable of the version npm picks for `d` on its own: a version the
 * previous lock has that satisfies it (npm keeps what its package-lock says
 * while it fits), else the `latest` tag when the shortcut takes it
 * (npm_latest_ok()) and it satisfies, else the highest of the best
 * npm_rank() that does. 0 when none is in the pool. */
static Id npm_pick(rsv *r, const rsv_dep *d)
{
    const npm_packument *p = npm_loader_get(r->nl, d->name);
    if (!p || p->code != EL_OK)
        return 0;
    const npm_version *best = NULL;
    /* a locked version that still satisfies the edge comes first (the
     * highest, when the lock has several copies of the name) */
    for (size_t i = 0; i < p->ncandidates && !best; i++)
        if (admits(d, p, &p->versions[i]) && resolver_locked(r, "npm", p->name, p->versions[i].version))
            best = &p->versions[i];
    const char *lt = npm_packument_find_tag(p, "latest");
    const npm_version *lv = lt ? npm_packument_find(p, lt) : NULL;
    if (!best && lv && npm_latest_ok(p, lv) && admits(d, p, lv))
        best = lv;
    /* versions are highest first: the first one of the best rank */
    for (int rank = 3; rank >= 0 && !best; rank--)
        for (size_t i = 0; i < p->ncandidates && !best; i++)
            if (admits(d, p, &p->versions[i]) && npm_rank(&p->versions[i]) == rank)
                best = &p->versions[i];
    if (!best)
        return 0;
    Id sp;
    Solvable *s;
    FOR_REPO_SOLVABLES(r->repo_npm, sp, s)
        if (resolver_solv(r, sp)->nv == best)
            return sp;
    return 0;
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
} npm_peer_bad;

/* One tree build: the npm dependencies grouped by dependent (the project's
 * under 0), the nodes placed and those still to process. */
typedef struct npm_build {
    rsv *r;
    ptrvec *all, pending;
    npm_peer_bad *bad;
    const rsv_dep **by_from; /* every npm dependency, by `from` then position */
    size_t n_by_from;
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
    for (; at; at = at->parent) {
        rsv_npm_node *c = child_named(at, folder);
        if (c)
            return c;
    }
    return NULL;
}

/* Whether version v of p (npm's pick for edge d) meets dependency e. */
static bool meets(const rsv_dep *e, const rsv_dep *d, const npm_packument *p, const npm_version *v)
{
    return strcmp(e->name, d->name) == 0 && admits(e, p, v);
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
        if (own[i] != d && strcmp(f, folder) == 0 && !meets(own[i], d, p, v))
            return true;
    }
    rsv_npm_node *cur = visible(loc->parent, folder);
    if (!cur)
        return false;
    const rsv_solv *cs = resolver_solv(t->r, cur->p);
    const npm_packument *cp = npm_loader_get(t->r->nl, cs->name);
    for (size_t i = 0; i < cur->dependents.len; i++) {
        const rsv_npm_node *x = cur->dependents.items[i];
        if (!descends(x, loc))
            continue;
        for (size_t j = 0; j < x->edges.len; j++)
            if (x->edges.items[j].to == cur && !meets(x->edges.items[j].dep, d, p, v))
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
            if (strcmp(f, folder) == 0 && meets(xd[j], xd[j], cp, cs->nv) &&
                !meets(xd[j], d, p, v))
                return true;
        }
    }
    return false;
}

/* arborist's canPlacePeers, one level: a new copy b at `loc` brings its
 * peers to loc (or above), so where loc already holds another version of a
 * peer that does not satisfy b's range, b cannot go there (CONFLICT). A
 * peer with no copy at loc is placed beside b when b's edges are bound. */
static bool peers_conflict(const npm_build *t, const rsv_npm_node *loc, Id b)
{
    size_t n;
    const rsv_dep **bd = deps_of(t, b, &n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(bd[i]->kind, "peer") != 0)
            continue;
        const char *f = bd[i]->folder ? bd[i]->folder : bd[i]->name;
        const rsv_npm_node *c = child_named(loc, f);
        if (!c)
            continue;
        const rsv_solv *cs = resolver_solv(t->r, c->p);
        const npm_packument *cp = npm_loader_get(t->r->nl, cs->name);
        if (!cp || !meets(bd[i], bd[i], cp, cs->nv))
            return true;
    }
    return false;
}

/* Binds edge d of a dependent at `from` the way npm's tree builder does: the
 * copy visible from there if it satisfies the edge, else npm's pick for the
 * edge alone, placed at the shallowest ancestor reached before a CONFLICT
 * (another version of the name there, or no_current_conflict()); nested
 * below the dependent when the first step up conflicts. A peer
 * (`peer_of` its dependent) that cannot be placed returns NULL, see
 * npm_peer_bad. */
static rsv_npm_node *bind_edge(npm_build *t, rsv_npm_node *from, const rsv_dep *d,
                               rsv_npm_node *peer_of)
{
    rsv *r = t->r;
    const npm_packument *p = npm_loader_get(r->nl, d->name);
    /* an alias is placed, and looked for, under its own folder name */
    const char *folder = d->folder ? d->folder : d->name;
    rsv_npm_node *ex = visible(from, folder);
    if (ex) {
        const rsv_solv *es = resolver_solv(r, ex->p);
        if (p && strcmp(es->name, d->name) == 0 && admits(d, p, es->nv))
            return ex;
    }
    Id b = npm_pick(r, d);
    if (!b)
        return NULL;
    const npm_version *bv = resolver_solv(r, b)->nv;
    rsv_npm_node *cand = NULL;
    for (rsv_npm_node *loc = from; loc; loc = loc->parent) {
        ex = child_named(loc, folder);
        if (ex) {
            if (ex->p == b)
                return ex;
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
        if (cand && (no_current_conflict(t, loc, folder, d, p, bv) || peers_conflict(t, loc, b)))
            break;
        cand = loc;
    }
    if (!cand)
        cand = from;
    rsv_npm_node *n = node_new(cand, b, folder, t->all);
    ptrvec_push(&t->pending, n);
    return n;
}

static int dep_name_cmp(const void *a, const void *b)
{
    const rsv_dep *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c ? c : strcmp((*x)->kind, (*y)->kind);
}

/* Binds the edges of `node` (sorted by name), from node, or for a peer from
 * its parent. */
static void bind_node(npm_build *t, rsv_npm_node *node)
{
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
        bool peer = node->parent && strcmp(d->kind, "peer") == 0;
        /* an optional peer is installed only when a copy is in reach */
        if (d->optional_peer && (!node->parent || !visible(node->parent, d->folder ? d->folder : d->name)))
            continue;
        rsv_npm_node *to = bind_edge(t, peer ? node->parent : node, d, peer ? node : NULL);
        if (!to)
            continue;
        rsv_npm_edge e = { d, to };
        rsv_npm_edges_push(&node->edges, e);
        if (node->p)
            ptrvec_push(&to->dependents, node);
        else
            to->from_spec = true;
    }
    ptrvec_release(&mine);
}

static rsv_npm_node *layout(rsv *r, ptrvec *all, npm_peer_bad *bad)
{
    npm_build t = { .r = r, .all = all, .pending = PTRVEC_INIT, .bad = bad };
    t.by_from = xcalloc(r->ndeps ? r->ndeps : 1, sizeof *t.by_from);
    for (size_t i = 0; i < r->ndeps; i++)
        if (r->deps[i].eco == RSV_NPM)
            t.by_from[t.n_by_from++] = &r->deps[i];
    qsort(t.by_from, t.n_by_from, sizeof *t.by_from, dep_from_cmp);
    rsv_npm_node *top = node_new(NULL, 0, "", all);
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
        bind_node(&t, node);
    }
    ptrvec_release(&t.pending);
    free(t.by_from);
    return top;
}

rsv_npm_node *resolver_npm_layout(rsv *r, ptrvec *all)
{
    return layout(r, all, NULL);
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
                 (dp->spec_kind != NPM_SPEC_IS_ALIAS || alias_ok(dp))) ||
                dp->kind == NPM_DEP_PEER_OPTIONAL || bundled(v, dp->name))
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

el_code resolver_npm_check(rsv *r)
{
    ptrvec all = PTRVEC_INIT;
    npm_peer_bad bad = { 0 };
    rsv_npm_node *top = layout(r, &all, &bad);
    el_code rc = unlockable(r, top, &all);
    if (rc != EL_OK || !bad.d) {
        resolver_npm_layout_free(&all);
        return rc;
    }
    strbuf la = STRBUF_INIT, lb = STRBUF_INIT, msg = STRBUF_INIT;
    const rsv_dep *a = node_story(r, top, bad.in_way, &la, 0);
    node_story(r, top, bad.dependent, &lb, 0);
    const rsv_solv *ds = resolver_solv(r, bad.dependent->p);
    sb_addf(&lb, "%s%s (peer of %s %s)", lb.len ? " → " : "", bad.d->text, ds->name, ds->version);
    const char *at = a ? a->text : bad.in_way->name;
    char *suggestion = a && a->from == 0 && a->root >= 0 && !r->rq->roots[a->root].protected_pin
                           ? xasprintf("relax %s in the spec", at)
                           : xasprintf("pin other versions of the packages that ask for %s and %s", at,
                                       bad.d->text);
    sb_addf(&msg, "`%s` and `%s` cannot both be satisfied: %s against %s. Suggestion: %s.", at, bad.d->text,
            la.buf, lb.buf, suggestion);
    el_fail(r->ctx, EL_RESOLVE_CONFLICT, "%s", msg.buf);
    json_object *pair = json_object_new_array();
    json_object_array_add(pair, json_object_new_string(at));
    json_object_array_add(pair, json_object_new_string(bad.d->text));
    el_detail_take(r->ctx, "conflict", pair);
    el_detail_str(r->ctx, "suggestion", suggestion);
    free(suggestion);
    sb_release(&la);
    sb_release(&lb);
    sb_release(&msg);
    resolver_npm_layout_free(&all);
    return EL_RESOLVE_CONFLICT;
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

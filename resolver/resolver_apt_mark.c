/* resolver_apt_mark.c — what `apt-get install` itself would install, walked
 * the way apt walks it, so that the lock is apt's answer whenever apt has
 * one. Owns three rules of apt 2.6 (tests/agreement/README.md):
 *   - every package's candidate: the version of highest pin priority, then
 *     highest version, never below the installed one (apt_preferences(5):
 *     500 for a suite, 100 for the installed version, 1 for a NotAutomatic
 *     suite, 100 when it is also ButAutomaticUpgrades);
 *   - the requested packages marked first, then apt's depth-first
 *     MarkInstall from each: a dependency group already satisfied by what
 *     is installed or marked is left alone, else its first alternative
 *     whose candidate can be installed (the dependency's own package, then
 *     Essential, then Priority among providers) is marked, recursively;
 *   - APT::Get::Upgrade-By-Source-Package (on by default): a package marked
 *     at a new version marks the installed binaries of its source package
 *     whose candidates come from the same source version.
 * The walk only reads the pool; its answer becomes exact install jobs
 * (resolver_apt_mark_jobs). When the walk fails or libsolv finds those jobs
 * cannot all hold, resolver_solve.c drops them and libsolv searches every
 * version (rule apt-candidate-only), with a note. Reads the pool only:
 * no index text, no libsolv solve. */
#include <stdlib.h>
#include <string.h>

#include <solv/bitmap.h>
#include <solv/evr.h>
#include <solv/knownid.h>
#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/repo.h>
#include <solv/solvable.h>
#include <solv/util.h>

#include "resolver_internal.h"

/* apt's depth limit for MarkInstall's recursion: a guard
 * against dependency loops, never reached by a real archive. */
#define MARK_MAX_DEPTH 3000

typedef struct amark {
    rsv *r;
    Pool *pool;
    Id *cand;       /* by name Id: the candidate solvable, 0: none (cand()) */
    unsigned char *cand_known; /* by name Id: cand[] is worked out */
    Id *inst;       /* by name Id: what is installed after the walk so far */
    unsigned char *done; /* by name Id: its dependencies were walked */
    Queue undo;     /* (name, previous inst, previous done) */
    Queue live;     /* names that have had an inst (checked again on use) */
    Map deb;        /* the Debian solvables (apt repos and the dpkg status) */
    int *prio;      /* by repo Id: the repo's pin priority */
    int *fprio;     /* by solvable Id: its file's pin priority */
    Id deporder;    /* APT_KEY_DEPORDER's key, or 0 */
    const char *failed; /* what the walk could not install (pool string) */
    Queue blocked;  /* names whose candidates a failed dependency or
                       conflict was about (which locked pins to drop) */
    const unsigned char *unpinned; /* by name Id: locked pin dropped, or NULL */
} amark;

static Id name_of(const amark *m, Id p)
{
    return m->pool->solvables[p].name;
}

static void set_inst(amark *m, Id name, Id p, bool done)
{
    if (!m->inst[name])
        queue_push(&m->live, name);
    queue_push2(&m->undo, name, m->inst[name]);
    queue_push(&m->undo, m->done[name]);
    m->inst[name] = p;
    m->done[name] = done;
}

static void undo_to(amark *m, int mark)
{
    while (m->undo.count > mark) {
        Id done = queue_pop(&m->undo), prev = queue_pop(&m->undo), name = queue_pop(&m->undo);
        m->inst[name] = prev;
        m->done[name] = (unsigned char)done;
    }
}

/* Whether what is installed or marked satisfies dep (any alternative). */
static bool satisfied(const amark *m, Id dep)
{
    Pool *pool = m->pool;
    Id p, pp;
    FOR_PROVIDES(p, pp, dep)
        if (MAPTST(&m->deb, p) && m->inst[name_of(m, p)] == p)
            return true;
    return false;
}

/* The pin priority of one solvable's file (apt_preferences(5)); set by
 * set_priorities(). */
static int file_prio(const amark *m, Id p)
{
    return m->fprio[p];
}

/* Every Debian solvable's pin priority: 100 for the installed version,
 * its suite's otherwise. With use_lock, a version the previous lock names
 * counts as pinned at 990, apt's priority for a target release: kept while
 * a suite still has it, never a downgrade. */
static void set_priorities(amark *m, bool use_lock)
{
    Pool *pool = m->pool;
    Id p, pp;
    FOR_POOL_SOLVABLES(p) {
        if (!MAPTST(&m->deb, p))
            continue;
        const Solvable *s = pool->solvables + p;
        m->fprio[p] = s->repo == pool->installed ? 100 : m->prio[s->repo->repoid];
    }
    const lock_doc *d = use_lock ? m->r->rq->previous : NULL;
    for (size_t i = 0; d && i < d->n_packages; i++) {
        const lock_package *lp = &d->packages[i];
        Id name = strcmp(lp->ecosystem, "deb") == 0 ? pool_str2id(pool, lp->name, 0) : 0;
        if (!name || (m->unpinned && m->unpinned[name]) || !resolver_locked(m->r, "deb", lp->name, lp->version))
            continue;
        FOR_PROVIDES(p, pp, name) {
            const Solvable *s = pool->solvables + p;
            if (MAPTST(&m->deb, p) && s->name == name && s->repo != pool->installed &&
                strcmp(pool_id2str(pool, s->evr), lp->version) == 0)
                m->fprio[p] = 990;
        }
    }
}

static int cmp_versions(const void *a, const void *b, void *data)
{
    const amark *m = data;
    Id x = *(const Id *)a, y = *(const Id *)b;
    const Solvable *sx = m->pool->solvables + x, *sy = m->pool->solvables + y;
    if (sx->name != sy->name)
        return sx->name < sy->name ? -1 : 1;
    int c = pool_evrcmp(m->pool, sy->evr, sx->evr, EVRCMP_COMPARE);
    if (c)
        return c;
    int px = file_prio(m, x), py = file_prio(m, y);
    if (px != py)
        return px > py ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The candidate of one package, whose versions are v[0..n) newest first
 * (each version's files highest priority first): apt's GetCandidateVer
 * walks them down, keeps the first of strictly highest priority, and stops
 * at the installed version (no pin reaches 1000 to allow a downgrade). A
 * candidate equal to the installed version is the installed solvable. */
static Id candidate_of(amark *m, const Id *v, int n)
{
    Pool *pool = m->pool;
    Id pref = 0;
    int max = 0;
    for (int i = 0; i < n;) {
        int j = i;
        Id inst = 0;
        while (j < n && pool->solvables[v[j]].evr == pool->solvables[v[i]].evr) {
            if (pool->solvables[v[j]].repo == pool->installed)
                inst = v[j];
            j++;
        }
        int pr = file_prio(m, v[i]);
        if (pr > max) {
            pref = inst ? inst : v[i];
            max = pr;
        }
        if (inst)
            break;
        i = j;
    }
    return pref;
}

/* The candidate of package `name`, worked out when first asked for (a
 * walk reaches a few hundred of the archive's names). */
static Id cand(amark *m, Id name)
{
    if (m->cand_known[name])
        return m->cand[name];
    Pool *pool = m->pool;
    Queue v;
    queue_init(&v);
    Id p, pp;
    FOR_PROVIDES(p, pp, name)
        if (MAPTST(&m->deb, p) && pool->solvables[p].name == name)
            queue_push(&v, p);
    solv_sort(v.elements, (size_t)v.count, sizeof(Id), cmp_versions, m);
    m->cand[name] = candidate_of(m, v.elements, v.count);
    m->cand_known[name] = 1;
    queue_free(&v);
    return m->cand[name];
}

static Id source_name(Pool *pool, Id p)
{
    Solvable *s = pool->solvables + p;
    Id n = solvable_lookup_id(s, SOLVABLE_SOURCENAME);
    return n ? n : s->name;
}

static Id source_evr(Pool *pool, Id p)
{
    Solvable *s = pool->solvables + p;
    Id e = solvable_lookup_id(s, SOLVABLE_SOURCEEVR);
    return e ? e : s->evr;
}

static bool mark(amark *m, Id name, int depth);

static bool installed_now(const amark *m, Id p)
{
    return m->pool->solvables[p].repo == m->pool->installed;
}

/* Upgrade-By-Source-Package: after `name` is marked at a new version, the
 * installed binaries of the same source package are marked too when their
 * candidate comes from the same source version ("Upgrading libssl3 ...
 * due to openssl" in apt's Debug::pkgDepCache::AutoInstall). One that
 * cannot be installed is left as it is, as apt does. */
static void upgrade_siblings(amark *m, Id name, int depth)
{
    Pool *pool = m->pool;
    Id c = m->inst[name];
    if (!pool->installed || !c)
        return;
    Id src = source_name(pool, c), sevr = source_evr(pool, c), p;
    Solvable *s;
    FOR_REPO_SOLVABLES(pool->installed, p, s) {
        if (!MAPTST(&m->deb, p) || s->name == name || m->inst[s->name] != p)
            continue;
        Id qc = cand(m, s->name);
        if (!qc || qc == p || source_name(pool, p) != src || source_name(pool, qc) != src ||
            source_evr(pool, qc) != sevr)
            continue;
        int at = m->undo.count;
        if (!mark(m, s->name, depth + 1))
            undo_to(m, at);
    }
}

/* The alternatives of an OR group in the order written. */
static void alternatives(Pool *pool, Id dep, Queue *out)
{
    if (ISRELDEP(dep) && GETRELDEP(pool, dep)->flags == REL_OR) {
        Reldep *rd = GETRELDEP(pool, dep);
        alternatives(pool, rd->name, out);
        alternatives(pool, rd->evr, out);
        return;
    }
    queue_push(out, dep);
}

typedef struct prov_cmp_ctx {
    Pool *pool;
    Id name; /* the dependency's own name */
} prov_cmp_ctx;

/* apt's order among one alternative's candidates (CompareProviders): the
 * dependency's own package, then Essential and Priority
 * (resolver_apt_provider_rank), then the name, standing in for apt's
 * position in its binary cache, which has no meaning outside one machine. */
static int cmp_provider(const void *a, const void *b, void *data)
{
    const prov_cmp_ctx *c = data;
    Id x = *(const Id *)a, y = *(const Id *)b;
    Solvable *sx = c->pool->solvables + x, *sy = c->pool->solvables + y;
    if ((sx->name == c->name) != (sy->name == c->name))
        return sx->name == c->name ? -1 : 1;
    int rx = resolver_apt_provider_rank(c->pool, x), ry = resolver_apt_provider_rank(c->pool, y);
    if (rx != ry)
        return rx > ry ? -1 : 1;
    return strcmp(pool_id2str(c->pool, sx->name), pool_id2str(c->pool, sy->name));
}

/* One unsatisfied dependency group: its first alternative with a
 * candidate that can be marked, and within it apt's provider order. A
 * candidate that fails is undone before the next is tried. */
static bool install_group(amark *m, Id dep, int depth)
{
    Pool *pool = m->pool;
    Queue alts, c;
    queue_init(&alts);
    queue_init(&c);
    alternatives(pool, dep, &alts);
    bool ok = false;
    for (int i = 0; i < alts.count && !ok; i++) {
        Id p, pp;
        queue_empty(&c);
        FOR_PROVIDES(p, pp, alts.elements[i])
            if (MAPTST(&m->deb, p) && cand(m, name_of(m, p)) == p)
                queue_pushunique(&c, p);
        prov_cmp_ctx cc = { pool, resolver_apt_dep_name(pool, alts.elements[i]) };
        solv_sort(c.elements, (size_t)c.count, sizeof(Id), cmp_provider, &cc);
        for (int k = 0; k < c.count && !ok; k++) {
            int at = m->undo.count;
            ok = mark(m, name_of(m, c.elements[k]), depth + 1);
            if (!ok)
                undo_to(m, at);
        }
    }
    for (int i = 0; i < alts.count && !ok; i++)
        queue_push(&m->blocked, resolver_apt_dep_name(pool, alts.elements[i]));
    queue_free(&alts);
    queue_free(&c);
    if (ok)
        m->failed = NULL; /* what failed on the way was passed over */
    return ok;
}

/* Where a dependency group stands in the order its package wrote it: the
 * place of its first name in APT_KEY_DEPORDER (Pre-Depends first), or
 * after all of them when unknown (the dpkg status keeps no such order). */
static int group_rank(const amark *m, const char *order, Id dep)
{
    if (!order)
        return 0;
    Queue alts;
    queue_init(&alts);
    alternatives(m->pool, dep, &alts);
    const char *want = pool_id2str(m->pool, resolver_apt_dep_name(m->pool, alts.elements[0]));
    queue_free(&alts);
    size_t wl = strlen(want);
    int at = 0;
    for (const char *s = order; *s; at++) {
        size_t n = strcspn(s, " ");
        if (n == wl && strncmp(s, want, n) == 0)
            return at;
        s += n;
        while (*s == ' ')
            s++;
    }
    return at;
}

/* A version's dependency groups (Pre-Depends and Depends) in the order
 * apt walks them. */
static void groups_of(const amark *m, Id p, Queue *out)
{
    Solvable *s = m->pool->solvables + p;
    queue_empty(out);
    if (!s->requires)
        return;
    const char *order = m->deporder ? solvable_lookup_str(s, m->deporder) : NULL;
    Queue pre, rest;
    queue_init(&pre);
    queue_init(&rest);
    bool in_pre = false;
    for (Id *dp = s->repo->idarraydata + s->requires; *dp; dp++) {
        if (*dp == SOLVABLE_PREREQMARKER)
            in_pre = true;
        else
            queue_push(in_pre ? &pre : &rest, *dp);
    }
    for (int k = 0; k < 2; k++) { /* stable insertion by rank; Pre-Depends first on ties */
        Queue *q = k == 0 ? &pre : &rest;
        for (int i = 0; i < q->count; i++) {
            int rank = group_rank(m, order, q->elements[i]), at = out->count;
            while (at > 0 && group_rank(m, order, out->elements[at - 1]) > rank)
                at--;
            queue_insert(out, at, q->elements[i]);
        }
    }
    queue_free(&pre);
    queue_free(&rest);
}

/* Whether p's Conflicts or Breaks (libsolv merges them) hit q. */
static bool conflicts_with(Pool *pool, Id p, Id q)
{
    Solvable *s = pool->solvables + p;
    if (!s->conflicts || s->name == pool->solvables[q].name)
        return false;
    for (Id *dp = s->repo->idarraydata + s->conflicts; *dp; dp++) {
        Id x, xx;
        FOR_PROVIDES(x, xx, *dp)
            if (x == q)
                return true;
    }
    return false;
}

/* The new version c against what is installed or marked, both ways: a
 * package it conflicts with, or that Breaks or Conflicts with it, is
 * upgraded when its candidate is clear of c (apt upgrades what a new
 * package Breaks rather than remove it); anything else fails (apt would
 * pass over this candidate when the other package is requested, or remove
 * it, which a lock cannot say). */
static bool clear_conflicts(amark *m, Id c, int depth)
{
    Pool *pool = m->pool;
    for (int i = 0; i < m->live.count; i++) {
        Id n = m->live.elements[i], q = m->inst[n];
        if (!q || n == name_of(m, c) || !(conflicts_with(pool, c, q) || conflicts_with(pool, q, c)))
            continue;
        Id qc = cand(m, n);
        if (qc == q || !installed_now(m, q) || conflicts_with(pool, c, qc) || conflicts_with(pool, qc, c) ||
            !mark(m, n, depth + 1)) {
            m->failed = pool_id2str(pool, name_of(m, c));
            queue_push2(&m->blocked, name_of(m, c), n);
            return false;
        }
    }
    return true;
}

/* pkgDepCache::MarkInstall(Pkg, AutoInst = true): the candidate of `name`
 * marked, then every dependency group not yet satisfied, depth first. A
 * package already marked or installed at its candidate with its
 * dependencies satisfied is left alone. */
static bool mark(amark *m, Id name, int depth)
{
    Id c = cand(m, name);
    if (!c || depth > MARK_MAX_DEPTH) {
        m->failed = pool_id2str(m->pool, name);
        return false;
    }
    if (m->done[name] && m->inst[name] == c)
        return true;
    /* a change that was not walked yet: new, an upgrade, or a requested
     * package marked before the walk */
    bool fresh = m->inst[name] != c || !installed_now(m, c);
    set_inst(m, name, c, true);
    if (fresh) {
        upgrade_siblings(m, name, depth);
        if (!clear_conflicts(m, c, depth))
            return false;
    }
    Queue g;
    queue_init(&g);
    groups_of(m, c, &g);
    bool ok = true;
    for (int i = 0; i < g.count && ok; i++)
        if (!satisfied(m, g.elements[i]) && !install_group(m, g.elements[i], depth)) {
            if (!m->failed)
                m->failed = pool_id2str(m->pool, name);
            ok = false;
        }
    queue_free(&g);
    return ok;
}

/* The package a root names: itself when real (`name=version` making that
 * version its candidate, SetCandidateVersion), else the one package that
 * Provides a purely virtual name (resolver_apt_check_roots() refused
 * several). 0 when nothing does. */
static Id root_package(amark *m, const rsv_root *rt)
{
    Pool *pool = m->pool;
    Id name = pool_str2id(pool, rt->name, 0), p, pp, prov = 0, pick = 0;
    if (!name)
        return 0;
    bool real = false;
    FOR_PROVIDES(p, pp, rt->dep) {
        if (!MAPTST(&m->deb, p))
            continue;
        if (name_of(m, p) != name) {
            if (!prov || cand(m, name_of(m, p)) == p)
                prov = name_of(m, p);
            continue;
        }
        real = true;
        if (rt->dversion && (!pick || pool->solvables[p].repo == pool->installed ||
                             (pool->solvables[pick].repo != pool->installed &&
                              file_prio(m, p) > file_prio(m, pick))))
            pick = p;
    }
    if (rt->dversion && !pick)
        return 0; /* apt: "Version ... for ... was not found"; the solve says so */
    if (pick) {
        m->cand[name] = pick;
        m->cand_known[name] = 1;
    }
    return real ? name : prov;
}

static void init_mark(amark *m, rsv *r, bool use_lock, const unsigned char *unpinned)
{
    Pool *pool = r->pool;
    memset(m, 0, sizeof *m);
    m->r = r;
    m->pool = pool;
    m->unpinned = unpinned;
    queue_init(&m->blocked);
    size_t ns = (size_t)pool->ss.nstrings;
    m->cand = xcalloc(ns, sizeof *m->cand);
    m->cand_known = xcalloc(ns, 1);
    m->inst = xcalloc(ns, sizeof *m->inst);
    m->done = xcalloc(ns, 1);
    queue_init(&m->undo);
    queue_init(&m->live);
    map_init(&m->deb, pool->nsolvables);
    m->prio = xcalloc((size_t)pool->nrepos + 1, sizeof *m->prio);
    m->deporder = pool_str2id(pool, "envlock:deb:deporder", 0);
    size_t n = 0;
    const apt_repo_info *ri = r->al ? apt_loader_repos(r->al, &n) : NULL;
    Repo *repo;
    int rid;
    FOR_REPOS(rid, repo) {
        bool apt = repo == pool->installed;
        for (size_t i = 0; i < n && !apt; i++)
            if (repo->name && strcmp(ri[i].repo_name, repo->name) == 0) {
                m->prio[rid] = ri[i].pin_priority;
                apt = true;
            }
        Id p;
        Solvable *s;
        if (!apt)
            continue;
        FOR_REPO_SOLVABLES(repo, p, s) {
            if (!((size_t)p < r->nsolv && r->solv[p].ours) && s->arch != ARCH_SRC &&
                s->arch != ARCH_NOSRC && pool_installable(pool, s))
                MAPSET(&m->deb, p);
        }
    }
    m->fprio = xcalloc((size_t)pool->nsolvables, sizeof *m->fprio);
    set_priorities(m, use_lock);
    if (pool->installed) {
        Id p;
        Solvable *s;
        FOR_REPO_SOLVABLES(pool->installed, p, s) {
            if (MAPTST(&m->deb, p)) {
                m->inst[s->name] = p;
                queue_push(&m->live, s->name);
            }
        }
    }
}

static void free_mark(amark *m)
{
    free(m->cand);
    free(m->cand_known);
    free(m->inst);
    free(m->done);
    free(m->prio);
    free(m->fprio);
    queue_free(&m->undo);
    queue_free(&m->live);
    queue_free(&m->blocked);
    map_free(&m->deb);
}

/* One walk from the roots: apt-get install marks every requested package
 * first, then walks each one's dependencies in the order requested
 * (TryToInstall, then doAutoInstall). True with apt's answer in m->inst. */
static bool walk(amark *m, rsv *r)
{
    Id *names = xcalloc(r->nroots + 1, sizeof *names);
    bool ok = true;
    for (size_t i = 0; i < r->nroots && ok; i++) {
        if (r->roots[i].eco != RSV_DEB)
            continue;
        names[i] = root_package(m, &r->roots[i]);
        ok = names[i] && cand(m, names[i]);
        if (!ok)
            m->failed = r->roots[i].name;
        else if (m->inst[names[i]] != cand(m, names[i]))
            set_inst(m, names[i], cand(m, names[i]), false);
    }
    for (size_t i = 0; i < r->nroots && ok; i++)
        if (names[i])
            ok = mark(m, names[i], 0);
    free(names);
    return ok;
}

void resolver_apt_mark_jobs(rsv *r)
{
    r->apt_exact_lo = r->apt_exact_hi = r->job.count;
    bool any = false;
    for (size_t i = 0; i < r->nroots && !any; i++)
        any = r->roots[i].eco == RSV_DEB;
    if (!any || r->apt_all_versions)
        return;
    /* the locked versions are pinned at 990; a walk that fails on one drops
     * the pins of the names it failed on and walks again (each round drops
     * at least one), and last walks as apt-get would from no lock, before
     * every version is searched */
    unsigned char *unpin = xcalloc((size_t)r->pool->ss.nstrings, 1);
    bool use_lock = r->rq->previous && !r->rq->upgrade_all, ok;
    amark m;
    for (;;) {
        init_mark(&m, r, use_lock, unpin);
        ok = walk(&m, r);
        if (ok || !use_lock)
            break;
        bool more = false;
        for (int i = 0; i < m.blocked.count; i++)
            if (!unpin[m.blocked.elements[i]])
                unpin[m.blocked.elements[i]] = more = true;
        use_lock = more;
        free_mark(&m);
    }
    free(unpin);
    if (ok) {
        Pool *pool = m.pool;
        Id p;
        FOR_POOL_SOLVABLES(p)
            if (MAPTST(&m.deb, p) && m.inst[name_of(&m, p)] == p &&
                pool->solvables[p].repo != pool->installed)
                queue_push2(&r->job, SOLVER_INSTALL | SOLVER_SOLVABLE, p);
    } else {
        r->apt_all_versions = true;
        r->apt_fallback_why = arena_sprintf(r->mem, "%s", m.failed ? m.failed : "?");
    }
    r->apt_exact_hi = r->job.count;
    free_mark(&m);
}

bool resolver_apt_exact_failed(rsv *r, int nproblems)
{
    /* libsolv names a minimal set of rules, which need not include the
     * exact jobs even when they cause the problem (the spec's own jobs
     * may stand for them): any problem of a solve with them means apt's
     * answer does not hold */
    if (!nproblems || r->apt_exact_hi == r->apt_exact_lo)
        return false;
    queue_deleten(&r->job, r->apt_exact_lo, r->apt_exact_hi - r->apt_exact_lo);
    r->apt_exact_hi = r->apt_exact_lo;
    r->apt_all_versions = true;
    return true;
}

/* resolver_advise.c — advisories in the solve (docs/cli.md, "Advisories").
 * The caller's predicate (resolve_request.affected) says which versions an
 * advisory affects; this file marks those solvables and turns them into
 * jobs: first a lock that keeps each out (an unaffected version wins
 * whenever one satisfies everything), and, when that solve has no answer,
 * a favour job for the unaffected versions instead, so the lock keeps an
 * affected version only where nothing else fits. It knows nothing of OSV; deciding whether an
 * affected version in the answer is a note or a refusal is the caller's. */
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>

#include "resolver_internal.h"

/* The source package of a Debian binary: libsolv's SOURCENAME and
 * SOURCEEVR from the Packages `Source:` field, else its own. */
static bool deb_affected(rsv *r, Solvable *s)
{
    Pool *pool = r->pool;
    Id sn = solvable_lookup_id(s, SOLVABLE_SOURCENAME);
    Id se = solvable_lookup_id(s, SOLVABLE_SOURCEEVR);
    const char *name = pool_id2str(pool, s->name);
    const char *evr = pool_id2str(pool, s->evr);
    return r->rq->affected(r->rq->affected_user, "deb", name, evr,
                           sn ? pool_id2str(pool, sn) : name, se ? pool_id2str(pool, se) : evr);
}

void resolver_advise_mark(rsv *r)
{
    Pool *pool = r->pool;
    r->vuln_on = false;
    if (!r->rq->affected)
        return;
    map_init(&r->vuln, pool->nsolvables);
    r->vuln_on = true;
    for (Id p = 2; p < pool->nsolvables; p++) {
        Solvable *s = pool->solvables + p;
        if (!s->repo || s->repo == pool->installed)
            continue; /* what the base holds is not ours to choose */
        bool hit;
        if ((size_t)p < r->nsolv && r->solv[p].ours) {
            const rsv_solv *rs = &r->solv[p];
            if (!rs->version || (rs->eco != RSV_PYPI && rs->eco != RSV_NPM))
                continue; /* conda: no OSV ecosystem of ours */
            hit = r->rq->affected(r->rq->affected_user, rs->eco == RSV_PYPI ? "pypi" : "npm",
                                  rs->name, rs->version, NULL, NULL);
        } else if (s->repo == r->repo_pypi || s->repo == r->repo_npm ||
                   s->repo == r->repo_conda) {
            continue;
        } else {
            hit = deb_affected(r, s);
        }
        if (hit)
            MAPSET(&r->vuln, p);
    }
}

bool resolver_advised(const rsv *r, Id p)
{
    return r->vuln_on && p > 0 && p < r->vuln.size * 8 && MAPTST(&r->vuln, p);
}

bool resolver_advise_strict(const rsv *r)
{
    return r->vuln_on && !r->vuln_relaxed;
}

/* The relaxed job: ONE favour job for every unaffected solvable of a name
 * that has affected ones, placed before the previous lock's favours
 * (resolver_prefer_jobs(), which then still win for the locked versions):
 * within one job libsolv's own order decides, so the newest unaffected
 * version is taken, and when none fits the newest affected one, as without
 * advisories. (A disfavour job per affected solvable would reorder the
 * affected ones among themselves.) Returns 0 when there is none. */
static Id favour_clean(rsv *r)
{
    Pool *pool = r->pool;
    Map names;
    map_init(&names, pool->ss.nstrings);
    for (Id p = 2; p < pool->nsolvables; p++)
        if (MAPTST(&r->vuln, p))
            MAPSET(&names, pool->solvables[p].name);
    Queue fav;
    queue_init(&fav);
    for (Id p = 2; p < pool->nsolvables; p++) {
        Solvable *s = pool->solvables + p;
        if (s->repo && s->repo != pool->installed && !MAPTST(&r->vuln, p) &&
            MAPTST(&names, s->name))
            queue_push(&fav, p);
    }
    Id what = fav.count ? pool_queuetowhatprovides(pool, &fav) : 0;
    queue_free(&fav);
    map_free(&names);
    return what;
}

/* Strict: a lock keeps each affected solvable out. */
void resolver_advise_jobs(rsv *r)
{
    if (!r->vuln_on)
        return;
    if (r->vuln_relaxed) {
        Id what = favour_clean(r);
        if (what)
            queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF, what);
        return;
    }
    for (Id p = 2; p < r->pool->nsolvables; p++)
        if (MAPTST(&r->vuln, p))
            queue_push2(&r->job, SOLVER_LOCK | SOLVER_SOLVABLE, p);
}

void resolver_advise_requeue(rsv *r)
{
    int at = -1;
    for (int i = 0; i < r->job.count;) {
        if (r->job.elements[i] == (SOLVER_LOCK | SOLVER_SOLVABLE)) {
            if (at < 0)
                at = i;
            queue_deleten(&r->job, i, 2);
        } else {
            i += 2;
        }
    }
    Id what = favour_clean(r);
    if (what && at >= 0)
        queue_insert2(&r->job, at, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF, what);
}

bool resolver_advise_relax(rsv *r)
{
    if (!r->vuln_on || r->vuln_relaxed)
        return false;
    bool any = false; /* nothing excluded: the failure is not ours */
    for (int i = 0; i < r->vuln.size && !any; i++)
        any = r->vuln.map[i] != 0;
    if (!any)
        return false;
    r->vuln_relaxed = true;
    return true;
}

void resolver_advise_drop(rsv *r)
{
    if (r->vuln_on)
        map_free(&r->vuln);
    r->vuln_on = false;
}

/* resolver_pypi_binary.c — pip's --prefer-binary in the solve (a
 * requirements file's option: resolve_request.prefer_binary). pip's
 * candidate order puts every version whose file for the target is a wheel
 * before every version whose file is an sdist, newest first within each
 * (the binary preference comes before the version in its sort key, after
 * yanking). Here that is one favour job for the PyPI solvables whose
 * chosen file is a wheel, of the names that also have a version whose
 * chosen file is an sdist: within one job libsolv's own order (newest)
 * decides, so an sdist version is taken only when no wheel version fits.
 * The job goes before the advisories' and the previous lock's favours,
 * which are later jobs and so still win. And the metadata window of such
 * a name reaches back to its newest wheel version, so that its solvable
 * exists. Nothing here when the option is off. */
#include <solv/pool.h>
#include <solv/repo.h>

#include "resolver_internal.h"

static bool wheel_chosen(const pypi_candidate *c)
{
    return c && c->chosen >= 0 && (size_t)c->chosen < c->nartifacts &&
           c->artifacts[c->chosen].kind == PYPI_WHEEL;
}

size_t resolver_pypi_binary_window(const rsv *r, const pypi_project *p)
{
    if (!r->rq->prefer_binary)
        return 0;
    size_t usable = 0;
    bool sdist_newer = false;
    for (size_t i = 0; i < p->ncands; i++) {
        const pypi_candidate *c = &p->cands[i];
        if (c->excluded || !c->parsed)
            continue;
        usable++;
        if (wheel_chosen(c))
            return sdist_newer ? usable : 0;
        sdist_newer = true;
    }
    return 0;
}

/* Whether solvable p is one of ours from the index, and its chosen file
 * a wheel (*wheel). */
static bool indexed(const rsv *r, Id p, bool *wheel)
{
    const Solvable *s = r->pool->solvables + p;
    if (s->repo != r->repo_pypi || (size_t)p >= r->nsolv || !r->solv[p].ours || !r->solv[p].pc)
        return false;
    *wheel = wheel_chosen(r->solv[p].pc);
    return true;
}

void resolver_pypi_binary_jobs(rsv *r)
{
    if (!r->rq->prefer_binary || !r->repo_pypi)
        return;
    Pool *pool = r->pool;
    Map mixed;
    map_init(&mixed, pool->ss.nstrings);
    bool wheel;
    for (Id p = 2; p < pool->nsolvables; p++)
        if (indexed(r, p, &wheel) && !wheel)
            MAPSET(&mixed, pool->solvables[p].name);
    Queue fav;
    queue_init(&fav);
    for (Id p = 2; p < pool->nsolvables; p++)
        if (indexed(r, p, &wheel) && wheel && MAPTST(&mixed, pool->solvables[p].name))
            queue_push(&fav, p);
    if (fav.count)
        queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF,
                    pool_queuetowhatprovides(pool, &fav));
    queue_free(&fav);
    map_free(&mixed);
}

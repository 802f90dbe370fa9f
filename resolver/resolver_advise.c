/* resolver_advise.c — advisories and policy in the solve (docs/cli.md,
 * "Advisories", docs/policy.md). The caller's predicates say which versions
 * an advisory affects (resolve_request.affected) and which the policy denies
 * (resolve_request.denied); this file marks those solvables and turns them
 * into jobs. Affected versions: first a lock that keeps each out (an
 * unaffected version wins whenever one satisfies everything), and, when
 * that solve has no answer, a favour job for the unaffected versions
 * instead, so the lock keeps an affected version only where nothing else
 * fits. Denied versions stay locked out through that; only when nothing
 * else has an answer is the solve run once without them, so the caller can
 * name the rule, the package and the chain of the answer that needs them.
 * It knows nothing of OSV or of policy files; deciding what an affected or
 * denied version in the answer means is the caller's. */
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>

#include "resolver_internal.h"

/* What the gates are told of version v of npm packument p. */
static resolve_version npm_version_of(const npm_packument *p, const npm_version *v)
{
    return (resolve_version){ .eco = "npm", .name = p->name, .version = v->version,
                              .published = v->time, .license = v->license };
}

/* What the gates are told of solvable p: PyPI and npm by the side
 * table's name, version, release time and license; Debian with its source
 * package too (libsolv's SOURCENAME and SOURCEEVR from the Packages
 * `Source:` field, else its own); conda by its record's name, version and
 * repodata `license` (no OSV ecosystem: only a policy judges it). false
 * for what the base holds and for conda's virtual packages. */
static bool version_of(const rsv *r, Id p, resolve_version *v)
{
    Pool *pool = r->pool;
    Solvable *s = pool->solvables + p;
    if (!s->repo || s->repo == pool->installed)
        return false; /* what the base holds is not ours to choose */
    if ((size_t)p < r->nsolv && r->solv[p].ours) {
        const rsv_solv *rs = &r->solv[p];
        if (rs->eco == RSV_CONDA && rs->crec && rs->cchannel) {
            *v = (resolve_version){ .eco = "conda", .name = rs->crec->name,
                                    .version = rs->crec->version, .license = rs->crec->license };
            return true;
        }
        if (!rs->version || (rs->eco != RSV_PYPI && rs->eco != RSV_NPM))
            return false;
        if (rs->eco == RSV_NPM && rs->np && rs->nv) {
            *v = npm_version_of(rs->np, rs->nv);
            return true;
        }
        bool py = rs->eco == RSV_PYPI;
        *v = (resolve_version){
            .eco = py ? "pypi" : "npm", .name = rs->name, .version = rs->version,
            .published = py ? (rs->pc ? rs->pc->upload_time : NULL) : (rs->nv ? rs->nv->time : NULL),
            .license = py ? (rs->pc ? rs->pc->license : NULL) : (rs->nv ? rs->nv->license : NULL),
        };
        return true;
    }
    if (s->repo == r->repo_pypi || s->repo == r->repo_npm || s->repo == r->repo_conda)
        return false;
    Id sn = solvable_lookup_id(s, SOLVABLE_SOURCENAME);
    Id se = solvable_lookup_id(s, SOLVABLE_SOURCEEVR);
    *v = (resolve_version){ .eco = "deb", .name = pool_id2str(pool, s->name),
                            .version = pool_id2str(pool, s->evr) };
    v->src = sn ? pool_id2str(pool, sn) : v->name;
    v->src_version = se ? pool_id2str(pool, se) : v->version;
    return true;
}

void resolver_advise_mark(rsv *r)
{
    Pool *pool = r->pool;
    const resolve_request *rq = r->rq;
    r->vuln_on = false;
    if (!rq->affected && !rq->denied)
        return;
    map_init(&r->vuln, pool->nsolvables);
    map_init(&r->deny, pool->nsolvables);
    r->vuln_on = true;
    for (Id p = 2; p < pool->nsolvables; p++) {
        resolve_version v;
        if (!version_of(r, p, &v))
            continue;
        if (rq->affected && rq->affected(rq->affected_user, &v))
            MAPSET(&r->vuln, p);
        if (rq->denied && rq->denied(rq->denied_user, &v))
            MAPSET(&r->deny, p);
    }
}

static bool denied_now(const rsv *r, Id p)
{
    return !r->deny_relaxed && MAPTST(&r->deny, p);
}

bool resolver_advised(const rsv *r, Id p)
{
    return r->vuln_on && p > 0 && p < r->vuln.size * 8 &&
           (MAPTST(&r->vuln, p) || denied_now(r, p));
}

bool resolver_advise_npm(const rsv *r, const npm_packument *p, const npm_version *v)
{
    const resolve_request *rq = r->rq;
    resolve_version rv = npm_version_of(p, v);
    return (rq->affected && rq->affected(rq->affected_user, &rv)) ||
           (rq->denied && rq->denied(rq->denied_user, &rv));
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
            !denied_now(r, p) && MAPTST(&names, s->name))
            queue_push(&fav, p);
    }
    Id what = fav.count ? pool_queuetowhatprovides(pool, &fav) : 0;
    queue_free(&fav);
    map_free(&names);
    return what;
}

/* A lock on each denied solvable (until the policy is relaxed), and on
 * each affected one while the solve is strict. */
static void push_locks(rsv *r)
{
    for (Id p = 2; p < r->pool->nsolvables; p++)
        if (denied_now(r, p) || (!r->vuln_relaxed && MAPTST(&r->vuln, p)))
            queue_push2(&r->job, SOLVER_LOCK | SOLVER_SOLVABLE, p);
}

void resolver_advise_jobs(rsv *r)
{
    if (!r->vuln_on)
        return;
    if (r->vuln_relaxed) {
        Id what = favour_clean(r);
        if (what)
            queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF, what);
    }
    push_locks(r);
}

/* Only this file pushes SOLVER_LOCK jobs: they all go, the favour job
 * takes the place of the first, and the denied ones' locks come back. */
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
    push_locks(r);
}

static bool any_set(const Map *m)
{
    for (int i = 0; i < m->size; i++)
        if (m->map[i])
            return true;
    return false;
}

bool resolver_advise_relax(rsv *r)
{
    if (!r->vuln_on || r->vuln_relaxed)
        return false;
    if (!any_set(&r->vuln))
        return false; /* nothing excluded: the failure is not ours */
    r->vuln_relaxed = true;
    return true;
}

bool resolver_policy_relax(rsv *r)
{
    if (!r->vuln_on || r->deny_relaxed || !any_set(&r->deny))
        return false;
    r->deny_relaxed = true;
    return true;
}

void resolver_advise_drop(rsv *r)
{
    if (r->vuln_on) {
        map_free(&r->vuln);
        map_free(&r->deny);
    }
    r->vuln_on = false;
}

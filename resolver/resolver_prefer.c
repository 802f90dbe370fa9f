/* resolver_prefer.c — an existing lock as a preference (issue 4: "re-resolving
 * keeps every locked version that still fits"). Owns three things: which
 * locked packages still count (everything but the names --upgrade-package
 * frees; with --upgrade none: rq->previous is then the old lock read as a
 * prefetch list only, see resolver_locked() and resolver_prefer_jobs()), the
 * PyPI metadata window that must reach back to a locked version so that its
 * solvable exists, and the SOLVER_FAVOR jobs for the locked versions of
 * every ecosystem (a conda record by its build, subdir and channel too). Favor jobs only steer choices: a locked version that no
 * longer fits the spec (or the index no longer serves) is simply not chosen,
 * and the rest of the lock is kept. The npm tree builder asks
 * resolver_npm_locked() for its own preference (resolver_npm.c).
 * Also here: the lock as a prefetch list (every PyPI and npm name it holds,
 * submitted before the crawl's first cache run, so a re-resolve revalidates
 * its index pages in one parallel batch), and the crawl's per-run counters
 * printed under ENVLOCK_DEBUG_STATS that make the batching visible, and
 * one line per solve (pool size, problems, names widened) that makes the
 * widening rounds visible. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <solv/pool.h>
#include <solv/repo.h>

#include "resolver_internal.h"

/* An --upgrade-package value frees (eco, name): "pypi:numpy", "npm:zod",
 * "deb:libc6", or a bare name for every ecosystem. PyPI names compare in
 * PEP 503 form on both sides. */
static bool freed_by(const char *arg, const char *eco, const char *name)
{
    const char *colon = strchr(arg, ':');
    const char *want = arg;
    if (colon && ((colon - arg == 4 && strncmp(arg, "pypi", 4) == 0) ||
                  (colon - arg == 3 && strncmp(arg, "npm", 3) == 0) ||
                  (colon - arg == 3 && strncmp(arg, "deb", 3) == 0) ||
                  (colon - arg == 5 && strncmp(arg, "conda", 5) == 0))) {
        if (strncmp(arg, eco, (size_t)(colon - arg)) != 0 || eco[colon - arg] != '\0')
            return false;
        want = colon + 1;
    }
    if (strcmp(eco, "pypi") != 0)
        return strcmp(want, name) == 0;
    char *a = pypi_name_canonical(want), *b = pypi_name_canonical(name);
    bool same = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return same;
}

bool resolver_freed(const rsv *r, const char *eco, const char *name)
{
    for (size_t i = 0; i < r->rq->n_upgrade; i++)
        if (r->rq->upgrade[i] && freed_by(r->rq->upgrade[i], eco, name))
            return true;
    return false;
}

const lock_package *resolver_locked(const rsv *r, const char *eco, const char *name,
                                    const char *version)
{
    const lock_doc *d = r->rq->previous;
    if (!d || r->rq->upgrade_all)
        return NULL;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, eco) != 0 || strcmp(p->name, name) != 0)
            continue;
        if (version && strcmp(p->version, version) != 0)
            continue;
        return resolver_freed(r, eco, name) ? NULL : p;
    }
    return NULL;
}

void resolver_prefetch_locked(rsv *r, const char *eco, void (*submit)(rsv *r, const char *name))
{
    /* deliberately not resolver_locked(): a freed name is still likely to be
     * reached, and a prefetch changes nothing the crawl decides; for the same
     * reason this holds under --upgrade too (upgrade_all set, previous the
     * old lock carried for this alone) */
    const lock_doc *d = r->rq->previous;
    for (size_t i = 0; d && i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, eco) == 0 && p->name && p->name[0])
            submit(r, p->name);
    }
}

bool resolver_stats_on(const rsv *r)
{
    return r->rq->stats != NULL;
}

void resolver_stat(rsv *r, const char *fmt, ...)
{
    if (!r->rq->stats)
        return;
    strbuf line = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&line, fmt, ap);
    va_end(ap);
    r->rq->stats(r->rq->stats_user, line.buf);
    sb_release(&line);
}

double resolver_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void resolver_solve_note(rsv *r, int nproblems, size_t widened)
{
    r->solves++;
    if (!resolver_stats_on(r) || !r->pool)
        return;
    size_t versions = 0;
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        const rsv_pypi_name *n = r->pypi_names.items[i];
        for (size_t k = 0; k < n->nent; k++)
            versions += n->present[k];
    }
    resolver_stat(r,
            "solve %u: %d solvables, %zu pypi versions of %zu names, %d problems, "
            "%zu names widened, %.1f ms since the resolve began",
            r->solves, r->pool->nsolvables, versions, r->pypi_names.len, nproblems, widened,
            resolver_now_ms() - r->t0_ms);
}

void resolver_crawl_note(rsv *r)
{
    cache_run_stats st;
    cache_get_stats(r->c, &st);
    r->crawl_runs++;
    resolver_stat(r,
                "crawl run %u: %" PRIu64 " requests, %" PRIu64 " network, %" PRIu64
                " revalidated, %" PRIu64 " hits",
                r->crawl_runs, st.requests - r->crawl_seen.requests, st.network - r->crawl_seen.network,
                st.revalidated - r->crawl_seen.revalidated, st.hits - r->crawl_seen.hits);
    if (resolver_stats_on(r) && r->nl) {
        size_t nread, nwritten;
        npm_loader_blob_stats(r->nl, &nread, &nwritten);
        resolver_stat(r, "npm parsed forms: %zu read, %zu written", nread, nwritten);
    }
    if (resolver_stats_on(r) && r->pl) {
        size_t nread, nwritten;
        pypi_loader_blob_stats(r->pl, &nread, &nwritten);
        resolver_stat(r, "pypi parsed forms: %zu read, %zu written", nread, nwritten);
    }
    r->crawl_seen = st;
}

size_t resolver_pypi_locked_window(const rsv *r, const pypi_project *p)
{
    const lock_package *lp = resolver_locked(r, "pypi", p->name, NULL);
    if (!lp)
        return 0;
    size_t usable = 0;
    for (size_t i = 0; i < p->ncands; i++) {
        const pypi_candidate *c = &p->cands[i];
        if (c->excluded)
            continue;
        usable++;
        if (strcmp(c->version, lp->version) == 0)
            return usable;
    }
    return 0; /* gone from the index or excluded now: nothing to keep */
}

/* Favors p when its (name, version) is locked. */
/* A conda record is the locked one when its name, version, build, subdir
 * and channel are (one name has many builds of one version); a virtual
 * package is the target's, never locked. */
static void favor_conda(rsv *r, Id p, Queue *favs)
{
    const rsv_solv *rs = &r->solv[p];
    if (!rs->cchannel || !rs->crec)
        return;
    const lock_package *lp = resolver_locked(r, "conda", rs->name, rs->version);
    if (lp && lp->build && lp->subdir && lp->source && strcmp(lp->build, rs->crec->build) == 0 &&
        strcmp(lp->subdir, rs->crec->subdir) == 0 && strcmp(lp->source, rs->cchannel) == 0)
        queue_push(favs, p);
}

static void favor_ours(rsv *r, Id p, Queue *favs)
{
    const rsv_solv *rs = &r->solv[p];
    if (rs->eco == RSV_CONDA) {
        favor_conda(r, p, favs);
        return;
    }
    const char *eco = rs->eco == RSV_PYPI ? "pypi" : "npm";
    if (rs->version && resolver_locked(r, eco, rs->name, rs->version))
        queue_push(favs, p);
}

/* Whether libsolv repo `repo` ("URI SUITE/COMP/binary-ARCH", as the apt
 * loader names them) is the lock's `source` ("URI SUITE/COMP"). */
static bool repo_is_source(const Repo *repo, const char *source)
{
    if (!repo || !repo->name || !source)
        return false;
    size_t n = strlen(source);
    return strncmp(repo->name, source, n) == 0 && strncmp(repo->name + n, "/binary-", 8) == 0;
}

void resolver_prefer_jobs(rsv *r)
{
    const lock_doc *d = r->rq->previous;
    if (!d || r->rq->upgrade_all)
        return;
    Pool *pool = r->pool;
    Queue favs, debs;
    queue_init(&favs);
    queue_init(&debs);
    /* pypi (base, extra and installed copies), npm and conda: our side table */
    for (Id p = 2; p < pool->nsolvables; p++)
        if ((size_t)p < r->nsolv && r->solv[p].ours)
            favor_ours(r, p, &favs);
    /* deb: the locked name, version and architecture */
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *lp = &d->packages[i];
        if (strcmp(lp->ecosystem, "deb") != 0 || resolver_freed(r, "deb", lp->name))
            continue;
        Id name = pool_str2id(pool, lp->name, 0);
        Id evr = pool_str2id(pool, lp->version, 0);
        if (!name || !evr)
            continue;
        /* the same name and version can be in several suites (identical
         * stanzas): favor the copy of the locked source, so a re-resolve
         * keeps the source too; any copy when none is from that source */
        Queue same;
        queue_init(&same);
        bool from_source = false;
        Id p, pp;
        FOR_PROVIDES(p, pp, name) {
            Solvable *s = pool->solvables + p;
            if (s->name != name || s->evr != evr)
                continue;
            if ((size_t)p < r->nsolv && r->solv[p].ours)
                continue;
            if (lp->arch && strcmp(pool_id2str(pool, s->arch), lp->arch) != 0)
                continue;
            bool src = repo_is_source(s->repo, lp->source);
            if (src && !from_source) {
                queue_empty(&same);
                from_source = true;
            }
            if (src || !from_source)
                queue_pushunique(&same, p);
        }
        for (int k = 0; k < same.count; k++)
            queue_pushunique(&debs, same.elements[k]);
        queue_free(&same);
    }
    /* last, so these favors outrank the ecosystems' own preferences; the
     * locked Debian packages as ONE job: libsolv orders favored candidates
     * by their job, so one job per package would let the lock's name order
     * decide between two locked providers (sysvinit-utils over lsb-base);
     * within one job apt's own choice (resolver_apt.c) still decides */
    for (int i = 0; i < favs.count; i++)
        queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE, favs.elements[i]);
    if (debs.count)
        queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF, pool_queuetowhatprovides(pool, &debs));
    queue_free(&favs);
    queue_free(&debs);
}

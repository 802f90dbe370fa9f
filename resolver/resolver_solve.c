/* resolver_solve.c — resolver_resolve(): the roots parsed, the three
 * readers fed through one cache run per crawl round (conda's channels in
 * one run of their own before it), one pool built for all
 * ecosystems, the jobs, and ONE solver_solve(). When a problem involves a
 * PyPI requirement whose matching versions were cut from the metadata
 * window, those names are widened and the pool is built and solved again;
 * a lock only ever comes from a solve that needed no widening. Owns the
 * lifetime of everything in `rsv`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/problems.h>
#include <solv/repo.h>
#include <solv/solver.h>
#include <solv/testcase.h>

#include "debver.h"
#include "npm_spec.h"
#include "resolver_internal.h"

/* A failed solve widens every cut window a problem touches and tries again.
 * Windows only grow and the universe is finite, so this ends on its own; a
 * deep chain of conflicts needs a round per level (a fixed cap of 6 rounds
 * once reported a false conflict ten levels deep). The bound is a guard
 * against a bug, not a tuning knob. */
#define RSV_MAX_WIDENINGS 100000

static const char *eco_word(int eco)
{
    return eco == RSV_PYPI ? "pypi" : eco == RSV_NPM ? "npm" : eco == RSV_CONDA ? "conda" : "deb";
}

char *resolver_root_label(const rsv *r, int root)
{
    const resolve_root *rr = r->rq->roots + root;
    if (rr->protected_pin)
        return xasprintf("%s (the base's protected pin)", rr->text);
    if (rr->line)
        return xasprintf("%s (spec line %u)", rr->text, rr->line);
    if (rr->field)
        return xasprintf("%s (%s)", rr->text, rr->field);
    return xstrdup(rr->text);
}

static el_code root_invalid(rsv *r, size_t i, const char *why)
{
    const resolve_root *rr = &r->rq->roots[i];
    el_fail(r->ctx, EL_SPEC_INVALID, "%s: `%s`: %s", rr->field ? rr->field : "spec", rr->text, why);
    if (rr->field)
        el_detail_str(r->ctx, "field", rr->field);
    return EL_SPEC_INVALID;
}

static bool marker_applies(rsv *r, const pypi_requirement *q)
{
    if (!q->marker)
        return true;
    pypi_env env = r->pt.env;
    env.extra = "";
    char *err = NULL;
    int v = pypi_marker_evaluate(q->marker, &env, &err);
    free(err);
    return v == 1;
}

static el_code parse_roots(rsv *r)
{
    const resolve_request *rq = r->rq;
    r->roots = xcalloc(rq->n_roots + 1, sizeof *r->roots);
    r->nroots = rq->n_roots;
    for (size_t i = 0; i < rq->n_roots; i++) {
        const resolve_root *rr = &rq->roots[i];
        rsv_root *rt = &r->roots[i];
        rt->r = rr;
        char *err = NULL;
        if (strcmp(rr->ecosystem, "pypi") == 0) {
            rt->eco = RSV_PYPI;
            rt->preq = pypi_requirement_parse(rr->text, &err);
            if (!rt->preq) {
                el_code rc = root_invalid(r, i, err ? err : "not a PEP 508 requirement");
                free(err);
                return rc;
            }
            if (rt->preq->url)
                return root_invalid(r, i, "a direct URL reference cannot be locked from an index");
            rt->name = xstrdup(rt->preq->canonical_name);
            rt->skipped = !marker_applies(r, rt->preq);
            r->has_pypi = true;
        } else if (strcmp(rr->ecosystem, "npm") == 0) {
            rt->eco = RSV_NPM;
            npm_pkgspec ps;
            if (npm_pkgspec_parse(rr->text, &ps, &err) != 0) {
                el_code rc = root_invalid(r, i, err ? err : "not an npm package spec");
                free(err);
                return rc;
            }
            rt->name = xstrdup(ps.name);
            if (ps.kind == NPM_SPEC_TAG) {
                rt->ntag = xstrdup(ps.spec);
            } else if (npm_range_parse(ps.spec, NPM_LOOSE, &rt->nrange, &err) != 0) {
                npm_pkgspec_release(&ps);
                el_code rc = root_invalid(r, i, err ? err : "not a semver range");
                free(err);
                return rc;
            }
            npm_pkgspec_release(&ps);
            r->has_npm = true;
        } else if (strcmp(rr->ecosystem, "deb") == 0) {
            rt->eco = RSV_DEB;
            const char *eq = strchr(rr->text, '=');
            rt->name = eq ? xstrndup(rr->text, (size_t)(eq - rr->text)) : xstrdup(rr->text);
            if (eq)
                rt->dversion = xstrdup(eq + 1);
            if (!deb_name_valid(rt->name, strlen(rt->name)) ||
                (rt->dversion && !deb_version_valid(rt->dversion)))
                return root_invalid(r, i, "not an apt package name, optionally `=version`");
            r->has_deb = true;
        } else if (strcmp(rr->ecosystem, "conda") == 0) {
            rt->eco = RSV_CONDA; /* the match spec is read by resolver_conda_jobs() */
            rt->name = xstrdup(rr->text);
            r->has_conda = true;
        } else {
            return root_invalid(r, i, "unknown ecosystem");
        }
    }
    return EL_OK;
}

/* Runs the cache and the crawl rounds of PyPI and npm until nothing new is
 * asked for. */
static el_code crawl(rsv *r)
{
    bool more = true;
    while (more) {
        el_code rc = cache_run(r->c, r->ctx);
        if (rc != EL_OK)
            return rc;
        if (r->pl || r->nl)
            resolver_crawl_note(r);
        more = false;
        if (r->pl && resolver_pypi_round(r))
            more = true;
        if (r->nl && resolver_npm_round(r))
            more = true;
    }
    el_code rc = r->pl ? resolver_pypi_finish(r) : EL_OK;
    if (rc == EL_OK && r->nl)
        rc = resolver_npm_finish(r);
    return rc;
}

static void drop_pool(rsv *r)
{
    if (r->solver)
        solver_free(r->solver);
    r->solver = NULL;
    if (r->pool)
        pool_free(r->pool);
    r->pool = NULL;
    r->repo_pypi = r->repo_npm = NULL;
    resolver_npm_tree_drop(r);
    resolver_advise_drop(r);
    resolver_conda_free(r);
    r->repo_conda = NULL;
    free(r->solv);
    r->solv = NULL;
    r->nsolv = 0;
    r->solv_lo = 0;
    r->ndeps = 0;
    queue_empty(&r->job);
}

/* mkdir -p: libsolv's testcase_write() creates only the last component. */
static bool make_dirs(const char *path)
{
    char *p = xstrdup(path);
    bool ok = true;
    for (char *s = p + 1; ok && *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        ok = mkdir(p, 0777) == 0 || errno == EEXIST;
        *s = '/';
    }
    if (ok)
        ok = mkdir(p, 0777) == 0 || errno == EEXIST;
    struct stat st;
    ok = ok && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    free(p);
    return ok;
}

/* --debug-solver DIR: libsolv's testcase of this solve (testcase.t, the
 * repos, solver.result) inside DIR, created with its parents; a later solve
 * (after widening) overwrites it, so DIR holds the solve the answer came
 * from. A DIR that cannot be made or written is the user's to fix. */
static el_code write_testcase(rsv *r)
{
    const char *dir = r->rq->debug_solver_dir;
    errno = 0;
    if (!make_dirs(dir) ||
        !testcase_write(r->solver, dir, TESTCASE_RESULT_TRANSACTION | TESTCASE_RESULT_PROBLEMS,
                        NULL, NULL)) {
        el_fail(r->ctx, EL_USAGE, "--debug-solver: cannot write the solver testcase into %s: %s",
                dir, errno ? strerror(errno) : "libsolv refused it");
        el_detail_str(r->ctx, "option", "--debug-solver");
        el_detail_str(r->ctx, "path", dir);
        return EL_USAGE;
    }
    return EL_OK;
}

/* pool_createwhatprovides() that keeps the pool's string hash.
 * libsolv frees its string and relation hashes there (its own source calls
 * that misplaced), so the first pool_str2id() afterwards (the jobs, the
 * multiarch pass, the preferences all look names up) rehashed every string
 * of the pool: with Debian main loaded, ~22M instructions, ~2.5% of a warm
 * apt resolve. Building whatprovides adds no strings, so the table stays
 * exact; the Stringpool fields are public API (strpool.h). The relation
 * hash is libsolv-internal and is left to libsolv. */
static void create_whatprovides(Pool *pool)
{
    Hashtable tbl = pool->ss.stringhashtbl;
    Hashval mask = pool->ss.stringhashmask;
    pool->ss.stringhashtbl = NULL; /* so pool_freeidhashes() leaves it */
    pool->ss.stringhashmask = 0;
    pool_createwhatprovides(pool);
    if (pool->ss.stringhashtbl) { /* a future libsolv that keeps or rebuilds it */
        solv_free(tbl);
        return;
    }
    pool->ss.stringhashtbl = tbl;
    pool->ss.stringhashmask = mask;
}

/* A new solver over the same pool and r->job (some jobs dropped). */
static int solve_again(rsv *r)
{
    solver_free(r->solver);
    Solver *solv = r->solver = solver_create(r->pool);
    solver_set_flag(solv, SOLVER_FLAG_IGNORE_RECOMMENDED, 1);
    return solver_solve(solv, &r->job);
}

static el_code build_and_solve(rsv *r, int *nproblems)
{
    Pool *pool = r->pool = pool_create();
    pool_setdisttype(pool, DISTTYPE_DEB);
    pool_setarch(pool, r->rq->base && r->rq->base->arch ? r->rq->base->arch : "amd64");
    el_code rc = resolver_apt_load(r);
    if (rc != EL_OK)
        return rc;
    if (!pool->installed)
        pool_set_installed(pool, repo_create(pool, "installed"));
    if (r->has_conda)
        resolver_conda_layout(r); /* the PyPI distributions conda installs */
    if (r->pl || r->preinst.len)
        resolver_pypi_add(r);
    if (r->nl)
        resolver_npm_add(r);
    if (r->has_conda)
        resolver_conda_add(r);
    pool_addfileprovides(pool);
    create_whatprovides(pool);
    resolver_advise_mark(r);
    resolver_apt_multiarch_any(r);
    resolver_pypi_jobs(r);
    if (r->nl && (rc = resolver_npm_jobs(r)) != EL_OK)
        return rc;
    if (r->has_conda && (rc = resolver_conda_jobs(r)) != EL_OK)
        return rc;
    rc = resolver_apt_check_roots(r);
    if (rc != EL_OK)
        return rc;
    resolver_apt_jobs(r);
    resolver_pypi_binary_jobs(r); /* the earliest favour: the later ones win */
    resolver_advise_jobs(r); /* before the lock's favours: see there */
    resolver_prefer_jobs(r);
    Solver *solv = r->solver = solver_create(pool);
    solver_set_flag(solv, SOLVER_FLAG_IGNORE_RECOMMENDED, 1);
    cache_phase(r->c, "solve"); /* cleared by resolver_resolve() */
    *nproblems = solver_solve(solv, &r->job);
    if (*nproblems && resolver_apt_exact_failed(r, *nproblems)) {
        /* apt's own answer does not hold: every version (apt-candidate-only) */
        *nproblems = solve_again(r);
        if (*nproblems)
            r->apt_all_versions = false; /* not apt's alone: its answer again next round */
    }
    if (*nproblems && r->nl && resolver_npm_exact_failed(r, *nproblems))
        *nproblems = solve_again(r); /* npm's tree does not hold: a search, noted */
    if (r->rq->debug_solver_dir)
        return write_testcase(r);
    return EL_OK;
}

/* The excluding solve had no answer (resolver_advise.c): the same pool
 * solved again with the unaffected versions favoured instead. The loaders
 * hand their indexes to one pool only, so the pool is kept. */
static el_code relax_and_solve(rsv *r, int *nproblems)
{
    resolver_advise_requeue(r);
    *nproblems = solve_again(r);
    if (*nproblems && r->nl && resolver_npm_exact_failed(r, *nproblems))
        *nproblems = solve_again(r);
    return r->rq->debug_solver_dir ? write_testcase(r) : EL_OK;
}

/* After a failed solve: widens every PyPI name a problem rule's dependency
 * was cut on. Returns how many names were widened (0: none could be). */
static size_t widen_for_problems(rsv *r, int nproblems)
{
    Solver *solv = r->solver;
    Pool *pool = r->pool;
    size_t widened = 0;
    Queue rules;
    queue_init(&rules);
    for (Id pr = 1; pr <= (Id)nproblems; pr++) {
        queue_empty(&rules);
        solver_findallproblemrules(solv, pr, &rules);
        for (int i = 0; i < rules.count; i++) {
            Id source, target, dep;
            solver_ruleinfo(solv, rules.elements[i], &source, &target, &dep);
            if (!dep)
                continue;
            for (size_t k = 0; k < r->ndeps; k++) {
                const rsv_dep *d = &r->deps[k];
                if (d->dep == dep && d->truncated && d->eco == RSV_PYPI) {
                    rsv_pypi_name *n = NULL;
                    for (size_t j = 0; j < r->pypi_names.len && !n; j++)
                        if (strcmp(((rsv_pypi_name *)r->pypi_names.items[j])->name, d->name) == 0)
                            n = r->pypi_names.items[j];
                    if (n && !n->all) {
                        resolver_pypi_widen(r, d->name);
                        widened++;
                    }
                }
            }
        }
    }
    queue_free(&rules);
    (void)pool;
    return widened;
}

static void rsv_free(rsv *r)
{
    drop_pool(r);
    queue_free(&r->job);
    for (size_t i = 0; i < r->nroots; i++) {
        pypi_requirement_free(r->roots[i].preq);
        npm_range_free(r->roots[i].nrange);
        free(r->roots[i].name);
        free(r->roots[i].ntag);
        free(r->roots[i].dversion);
    }
    free(r->roots);
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        for (size_t k = 0; k < n->extras.len; k++)
            free(n->extras.items[k]);
        ptrvec_release(&n->extras);
        ptrvec_release(&n->specs);
        free(n->noted);
        free(n->name);
        free(n);
    }
    ptrvec_release(&r->pypi_names);
    ptrvec_release(&r->pypi_ahead);
    resolver_npm_free_index(r);
    resolver_npm_tree_drop(r);
    for (size_t i = 0; i < r->npm_names.len; i++) {
        rsv_npm_name *n = r->npm_names.items[i];
        ptrvec_release(&n->ranges);
        ptrvec_release(&n->pranges);
        ptrvec_release(&n->tags);
        free(n->rel);
        free(n->picked);
        free(n->name);
        free(n);
    }
    ptrvec_release(&r->npm_names);
    ptrvec_release(&r->npm_todo);
    ptrvec_release(&r->npm_opt_peers);
    resolver_npm_free_ranges(r);
    for (size_t i = 0; i < r->preinst.len; i++)
        pypi_requirement_free(r->preinst.items[i]);
    ptrvec_release(&r->preinst);
    for (size_t i = 0; i < r->owned_versions.len; i++)
        pypi_version_free(r->owned_versions.items[i]);
    ptrvec_release(&r->owned_versions);
    free(r->deps);
    if (r->pl)
        pypi_loader_free(r->pl);
    if (r->nl)
        npm_loader_free(r->nl);
    if (r->al)
        apt_loader_free(r->al);
    resolver_conda_unload(r);
    if (r->pt_ok)
        pypi_target_clear(&r->pt);
    arena_free(r->mem);
}

/* The narrowed npm crawl (resolver_npm.c) missed what the solve needs
 * (`why`, NULL: it did not): the crawl is widened to every admitted version
 * and run again, the pool dropped; *rc is the crawl's result. false when
 * nothing was widened (not missed, or wide already). */
static bool widen_npm(rsv *r, const char *why, el_code *rc)
{
    if (!r->nl || !why || !resolver_npm_widen(r, why))
        return false;
    drop_pool(r);
    *rc = crawl(r);
    return true;
}

/* The tree placed peer picks the narrowed crawl followed for their peers
 * only: their dependencies are crawled and the pool dropped, to solve
 * again; *rc is the crawl's result. A tree that keeps reaching further
 * is widened instead (resolver_npm_missed()). */
static bool extend_npm(rsv *r, el_code *rc)
{
    if (!r->nl || r->npm_extends >= RSV_NPM_MAX_EXTENDS || !resolver_npm_extend(r))
        return false;
    r->npm_extends++;
    drop_pool(r);
    *rc = crawl(r);
    return true;
}

/* What follows a solve with no problem. */
enum { ANSWER_DONE, ANSWER_AGAIN, ANSWER_AGAIN_SAME };

/* After a solve with no problem: solve again (pip's pre-release recheck
 * rebuilt the pool: ANSWER_AGAIN; npm's crawl widened, which is not a
 * widening round: ANSWER_AGAIN_SAME), or ANSWER_DONE with *out the lock
 * and *rc EL_OK, or a failure in *rc. */
static int on_answer(rsv *r, lock_doc **out, el_code *rc)
{
    resolver_solve_note(r, 0, 0);
    if (resolver_pypi_recheck(r)) { /* pip's pre-release rule */
        drop_pool(r);
        return ANSWER_AGAIN;
    }
    /* a search may need versions only the wide crawl has; a tree that
     * reached past the narrowed one needs their dependencies */
    if (r->nl && r->npm_search && widen_npm(r, resolver_npm_missed(r), rc))
        return *rc != EL_OK ? ANSWER_DONE : ANSWER_AGAIN_SAME;
    if (r->nl && (*rc = resolver_npm_bundles(r)) != EL_OK)
        return ANSWER_DONE;
    if (extend_npm(r, rc) || (r->nl && widen_npm(r, resolver_npm_missed(r), rc)))
        return *rc != EL_OK ? ANSWER_DONE : ANSWER_AGAIN_SAME;
    if (r->nl && (*rc = resolver_npm_check(r)) != EL_OK)
        return ANSWER_DONE;
    *out = resolver_make_lock(r);
    resolver_apt_note(r);
    if (r->nl) {
        resolver_npm_note(r);
        resolver_stat(r, "npm trees built: %u", r->npm_layouts);
    }
    *rc = EL_OK;
    return ANSWER_DONE;
}

/* Solves until there is an answer (*out) or an explained failure: pip's
 * pre-release recheck and the widening rounds rebuild the pool; the
 * advisories' relaxed solve reuses it. */
static el_code solve_rounds(rsv *r, lock_doc **out)
{
    el_code rc;
    bool relax_now = false;
    for (int attempt = 0;; attempt++) {
        int np = 0;
        if (relax_now) {
            relax_now = false;
            rc = relax_and_solve(r, &np);
        } else {
            rc = build_and_solve(r, &np);
        }
        if (rc != EL_OK)
            return rc;
        if (np == 0) {
            int next = on_answer(r, out, &rc);
            if (next == ANSWER_DONE)
                return rc;
            if (next == ANSWER_AGAIN_SAME)
                attempt--;
            continue;
        }
        /* no answer from the narrowed npm crawl: the wide one first, so
         * what follows (widenings, relaxing, the explanation) is the same */
        if (r->nl && !r->npm_wide) {
            resolver_solve_note(r, np, 0);
            widen_npm(r, "the solve found no answer", &rc);
            if (rc != EL_OK)
                return rc;
            attempt--;
            continue;
        }
        size_t widened = attempt < RSV_MAX_WIDENINGS ? widen_for_problems(r, np) : 0;
        resolver_solve_note(r, np, widened);
        if (widened) {
            drop_pool(r);
            rc = crawl(r);
            if (rc != EL_OK)
                return rc;
            continue;
        }
        if (resolver_advise_relax(r)) { /* nothing unaffected fits: favour only */
            relax_now = true;
            continue;
        }
        if (resolver_policy_relax(r)) { /* the answer the policy stands in the way of */
            drop_pool(r);
            if ((rc = crawl(r)) != EL_OK)
                return rc;
            continue;
        }
        if (r->has_conda && resolver_conda_involved(r, np))
            return (rc = resolver_conda_not_found(r)) != EL_OK ? rc
                                                               : resolver_conda_explain(r, np);
        return resolver_explain(r, np);
    }
}

/* One resolve with `python` (full version) as the PyPI target's
 * interpreter. */
static el_code resolve_with(el_ctx *ctx, struct cache *c, const resolve_request *rq,
                            const char *python, lock_doc **out)
{
    *out = NULL;
    rsv r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.c = c;
    r.rq = rq;
    r.mem = arena_new();
    r.t0_ms = resolver_now_ms();
    queue_init(&r.job);
    const target_base *b = rq->base;
    el_code rc = pypi_target_init(ctx, &r.pt, python, b ? b->platform : NULL, rq->exclude_newer);
    if (rc != EL_OK)
        goto done;
    r.pt.keep_yanked = true; /* admitted for exact pins only (resolver_pypi.c) */
    r.pt.build = (pypi_build_opts){ rq->no_build, rq->only_binary, rq->n_only_binary,
                                    rq->no_binary, rq->n_no_binary };
    r.pre_mode = resolver_prerelease_mode(rq->prereleases);
    if (r.pre_mode < 0)
        r.pre_mode = RSV_PRE_IF_NECESSARY_OR_EXPLICIT; /* the caller checked the name */
    r.pt_ok = true;
    rc = parse_roots(&r);
    if (rc != EL_OK)
        goto done;
    for (const char *const *pi = b ? b->preinstalled : NULL; pi && *pi; pi++) {
        pypi_requirement *q = pypi_requirement_parse(*pi, NULL);
        if (q)
            ptrvec_push(&r.preinst, q);
    }
    if (r.has_pypi)
        r.pl = pypi_loader_new(c, &r.pt, rq->pypi_indexes, rq->n_pypi_indexes);
    if (r.has_npm) {
        npm_target_for(&r.ntarget, b ? b->arch : NULL, b ? b->platform : NULL, rq->exclude_newer);
        r.ntarget.node_version = b ? b->node_version : NULL; /* engines.node */
        r.ntarget.publish_times = rq->publish_times;
        npm_loader_options no = { 0 };
        no.registry = rq->npm_registry;
        no.target = &r.ntarget;
        no.loaded = resolver_npm_loaded;
        no.user = &r;
        no.cold = true; /* resolver_npm.c warms the versions it follows */
        r.nl = npm_loader_new(c, &no);
    }
    rc = resolver_apt_prepare(&r);
    if (rc == EL_OK && r.has_conda)
        rc = resolver_conda_load(&r);
    if (rc != EL_OK)
        goto done;
    cache_get_stats(c, &r.crawl_seen);
    if (r.pl)
        resolver_pypi_seed(&r);
    if (r.nl)
        resolver_npm_seed(&r);
    rc = crawl(&r);
    if (rc != EL_OK)
        goto done;
    rc = solve_rounds(&r, out);
done:
    rsv_free(&r);
    (void)eco_word;
    return rc;
}

/* The version of the conda `python` a lock holds, or NULL. */
static const char *conda_python(const lock_doc *d)
{
    for (size_t i = 0; i < d->n_packages; i++)
        if (strcmp(d->packages[i].ecosystem, "conda") == 0 &&
            strcmp(d->packages[i].name, "python") == 0)
            return d->packages[i].version;
    return NULL;
}

/* Whether the request has a pip layer: a PyPI root of its own (a protected
 * pin is the base's). */
static bool has_pip_layer(const resolve_request *rq)
{
    for (size_t i = 0; i < rq->n_roots; i++)
        if (strcmp(rq->roots[i].ecosystem, "pypi") == 0 && !rq->roots[i].protected_pin)
            return true;
    return false;
}

/* An environment.yml's pip layer installs into the conda environment, so
 * its markers, Requires-Python and wheel tags are the conda `python`'s,
 * which the solve chooses. The first solve assumes the target's Python
 * (the same minor: spec.language.version is both); when conda chose
 * another version, the solve runs again with that one as the PyPI
 * interpreter and conda's python held at it (`python ==V`, from
 * spec.language.version), so the answer is one solve's and consistent:
 * every marker was decided for the Python that gets installed. */
el_code resolver_resolve(el_ctx *ctx, struct cache *c, const resolve_request *rq, lock_doc **out)
{
    const char *target = rq->base ? rq->base->python_version : NULL;
    el_code rc = resolve_with(ctx, c, rq, target, out);
    const char *py = rc == EL_OK ? conda_python(*out) : NULL;
    if (!py || !has_pip_layer(rq) || (target && strcmp(py, target) == 0)) {
        cache_phase(c, NULL);
        return rc;
    }
    char *held = xasprintf("python ==%s", py);
    char *python = xstrdup(py);
    resolve_root *roots = xcalloc(rq->n_roots + 1, sizeof *roots);
    memcpy(roots, rq->roots, rq->n_roots * sizeof *roots);
    roots[rq->n_roots] = (resolve_root){ "conda", held, ROOT_REQUIREMENT, false,
                                         "spec.language.version", 0, 0, false };
    resolve_request again = *rq;
    again.roots = roots;
    again.n_roots = rq->n_roots + 1;
    lock_doc_free(*out);
    rc = resolve_with(ctx, c, &again, python, out);
    cache_phase(c, NULL);
    free(roots);
    free(held);
    free(python);
    return rc;
}

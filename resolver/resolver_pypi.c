/* resolver_pypi.c — PyPI in the pool: the demand-driven crawl (breadth
 * first from the roots through pypi_loader, a metadata window per name that
 * grows to cover the newest few versions each requirement admits), then
 * `pypi:NAME` solvables with rank EVRs, extras as `pypi:NAME[EXTRA]`
 * solvables, the base's preinstalled dists in the installed repo, and every
 * Requires-Dist as a rank-interval dependency. Markers and Requires-Python
 * are decided here, against the target, before the pool sees anything.
 * The previous lock's names are handed to the loader before the first
 * cache run as a prefetch (resolver_prefetch_locked()); only names the
 * crawl reaches count. */
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/repo.h>

#include "resolver_internal.h"

/* The metadata window a name starts with, and how many admissible versions
 * each requirement should see before the first solve. */
#define RSV_PYPI_WINDOW 6
#define RSV_PYPI_MATCHES 4

static rsv_pypi_name *pname_find(rsv *r, const char *canon)
{
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        if (strcmp(n->name, canon) == 0)
            return n;
    }
    return NULL;
}

/* The preinstalled dist named `canon`, or NULL. */
static const pypi_requirement *preinstalled(const rsv *r, const char *canon)
{
    for (size_t i = 0; i < r->preinst.len; i++) {
        const pypi_requirement *q = r->preinst.items[i];
        if (strcmp(q->canonical_name, canon) == 0)
            return q;
    }
    return NULL;
}

static const char *pinned_version(const pypi_requirement *q)
{
    if (pypi_specset_len(q->specset) != 1)
        return NULL;
    const char *op = pypi_specset_op(q->specset, 0);
    if (strcmp(op, "==") != 0 && strcmp(op, "===") != 0)
        return NULL;
    return pypi_specset_version(q->specset, 0);
}

/* Whether the base carries `canon` at the version its protected pin names:
 * then that installed copy is the only candidate any requirement may take
 * (the pin must hold), so no index is asked about it at all and a spec
 * needs PyPI only for what the base does not already hold. */
static bool held_by_base(const rsv *r, const char *canon)
{
    const pypi_requirement *pq = preinstalled(r, canon);
    const char *have = pq ? pinned_version(pq) : NULL;
    if (!have)
        return false;
    for (size_t i = 0; i < r->nroots; i++) {
        const rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_PYPI || !rt->preq || !rt->r->protected_pin ||
            strcmp(rt->preq->canonical_name, canon) != 0)
            continue;
        const char *pin = pinned_version(rt->preq);
        if (pin && strcmp(pin, have) == 0)
            return true;
    }
    return false;
}

static rsv_pypi_name *pname_get(rsv *r, const char *canon, bool *changed)
{
    rsv_pypi_name *n = pname_find(r, canon);
    if (n)
        return n;
    n = xcalloc(1, sizeof *n);
    n->name = xstrdup(canon);
    n->window = RSV_PYPI_WINDOW;
    ptrvec_push(&r->pypi_names, n);
    n->held = held_by_base(r, canon);
    n->all = n->held; /* nothing to widen */
    if (!n->held)
        pypi_loader_submit(r->pl, canon, n->window);
    *changed = true;
    return n;
}

/* Registers one requirement: its name (submitted if new), its specifier
 * (for the window) and its extras (crawled next round). */
static void note_req(rsv *r, const pypi_requirement *q, bool *changed)
{
    rsv_pypi_name *n = pname_get(r, q->canonical_name, changed);
    const char *ss = pypi_specset_str(q->specset);
    bool seen = false;
    for (size_t i = 0; i < n->specs.len && !seen; i++)
        seen = strcmp(pypi_specset_str(n->specs.items[i]), ss) == 0;
    if (!seen) {
        ptrvec_push(&n->specs, q->specset);
        *changed = true;
    }
    for (size_t i = 0; i < q->nextras; i++)
        if (!ptrvec_has_str(&n->extras, q->extras_canonical[i])) {
            ptrvec_push(&n->extras, xstrdup(q->extras_canonical[i]));
            *changed = true;
        }
}

/* resolver_pypi_marker_true() : whether a requirement applies on the target with `extra`
 * ("" for the base). A marker packaging would raise on applies nowhere. */
bool resolver_pypi_marker_true(const rsv *r, const pypi_requirement *q, const char *extra)
{
    if (!q->marker)
        return true;
    pypi_env env = r->pt.env;
    env.extra = extra;
    char *err = NULL;
    int v = pypi_marker_evaluate(q->marker, &env, &err);
    free(err);
    return v == 1;
}

/* The window that shows RSV_PYPI_MATCHES admissible versions of `s`. */
static size_t window_for(const pypi_project *p, const pypi_specset *s)
{
    const pypi_version **v = xcalloc(p->ncands + 1, sizeof *v);
    bool *keep = xcalloc(p->ncands + 1, sizeof *keep);
    for (size_t i = 0; i < p->ncands; i++)
        v[i] = p->cands[i].excluded ? NULL : p->cands[i].parsed;
    resolver_pypi_match(s, v, p->ncands, keep);
    size_t usable = 0, found = 0, need = 0;
    for (size_t i = 0; i < p->ncands; i++) {
        if (!v[i])
            continue;
        usable++;
        if (keep[i]) {
            need = usable;
            if (++found == RSV_PYPI_MATCHES)
                break;
        }
    }
    free(v);
    free(keep);
    return need;
}

/* A name of the previous lock, asked of the loader only: its page and the
 * metadata of the window every reached name starts with (RSV_PYPI_WINDOW;
 * never more, or a name reached later would find versions loaded that its
 * own crawl would not have, and the pool would differ). */
static void prefetch(rsv *r, const char *name)
{
    if (!held_by_base(r, name))
        pypi_loader_submit(r->pl, name, RSV_PYPI_WINDOW);
}

static bool ahead(const rsv *r, const char *canon)
{
    return ptrvec_has_str(&r->pypi_ahead, canon);
}

/* The metadata of a candidate of a name the crawl reaches arrived (from
 * cache_run()): the pages of its requirements, with the window every
 * reached name starts with, are asked of the loader now, as prefetch()
 * asks for the previous lock's names, instead of after the run. A round
 * notes exactly these (every loaded candidate of a crawled name, markers
 * true under the extras it has: at least "", which is all this uses for a
 * name not crawled yet, and the extras it has now) and asks the same
 * window, so the loader, the crawl and the pool end as they would
 * without this; such a name is reached, so its own requirements are asked
 * ahead in turn. Only the level barrier goes: a page is fetched when its
 * dependent's metadata arrives, not after the slowest of the level (and
 * the PEP 658 fetches of its newest versions follow it at once). */
static void meta_arrived(pypi_loader *l, const pypi_project *p, size_t ci, void *user)
{
    (void)l;
    rsv *r = user;
    const rsv_pypi_name *n = pname_find(r, p->name);
    const pypi_candidate *pc = &p->cands[ci];
    if ((n && n->held) || (!n && !ahead(r, p->name)) || pc->excluded)
        return;
    for (size_t d = 0; d < pc->ndeps; d++) {
        const pypi_requirement *q = pc->deps[d].req;
        if (!q || pname_find(r, q->canonical_name) || ahead(r, q->canonical_name))
            continue;
        bool use = resolver_pypi_marker_true(r, q, "");
        for (size_t e = 0; n && e < n->extras.len && !use; e++)
            use = resolver_pypi_marker_true(r, q, n->extras.items[e]);
        if (use) {
            ptrvec_push(&r->pypi_ahead, arena_strdup(r->mem, q->canonical_name));
            prefetch(r, q->canonical_name);
        }
    }
}

void resolver_pypi_seed(rsv *r)
{
    bool changed = false;
    pypi_loader_on_meta(r->pl, meta_arrived, r);
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco == RSV_PYPI && !rt->skipped)
            note_req(r, rt->preq, &changed);
    }
    resolver_prefetch_locked(r, "pypi", prefetch);
}

/* One pass over the names known when it starts. A name first noted during
 * the pass waits for the next one even when a prefetch has loaded it
 * already: the pass after a cache run is when the crawl has always first
 * looked at a name (its page and newest window loaded), so windows and
 * extras grow exactly as they would without the prefetch and the pool is
 * the same. The later runs find every page fetched already; only metadata
 * the prefetch's window did not cover is read, from the cache. */
/* Resets n's memo when it was kept for another project or the project has
 * excluded more versions since (metadata can exclude one). */
static void memo_check(rsv_pypi_name *n, const pypi_project *p)
{
    size_t excl = 0;
    for (size_t i = 0; i < p->ncands; i++)
        excl += p->cands[i].excluded != NULL;
    if (n->memo_p == p && n->excl_seen == excl)
        return;
    if (n->memo_p != p) {
        free(n->noted);
        n->noted = xcalloc(p->ncands + 1, sizeof *n->noted);
        n->noted_extras = 0;
    }
    n->memo_p = p;
    n->excl_seen = excl;
    n->specs_seen = 0;
    n->spec_need = 0;
}

/* The largest window_for() over n's specs (the memo's, plus the new ones). */
static size_t specs_need(rsv_pypi_name *n, const pypi_project *p)
{
    for (; n->specs_seen < n->specs.len; n->specs_seen++) {
        size_t w = window_for(p, n->specs.items[n->specs_seen]);
        if (w > n->spec_need)
            n->spec_need = w;
    }
    return n->spec_need;
}

/* Notes the requirements of n's loaded candidates not noted yet under the
 * extras n has (all of them again when extras were added: a marker may
 * name a new one). Noting is append-only, so a candidate noted once adds
 * nothing the next time: skipping it leaves every list as it was. */
static void note_candidates(rsv *r, rsv_pypi_name *n, const pypi_project *p, bool *changed)
{
    if (n->noted_extras != n->extras.len) {
        memset(n->noted, 0, (p->ncands + 1) * sizeof *n->noted);
        n->noted_extras = n->extras.len;
    }
    for (size_t c = 0; c < p->ncands; c++) {
        const pypi_candidate *pc = &p->cands[c];
        if (n->noted[c] || pc->excluded || pc->meta != PYPI_META_LOADED)
            continue;
        n->noted[c] = true;
        for (size_t d = 0; d < pc->ndeps; d++) {
            const pypi_requirement *q = pc->deps[d].req;
            if (!q)
                continue;
            bool use = resolver_pypi_marker_true(r, q, "");
            for (size_t e = 0; e < n->extras.len && !use; e++)
                use = resolver_pypi_marker_true(r, q, n->extras.items[e]);
            if (use)
                note_req(r, q, changed);
        }
    }
}

bool resolver_pypi_round(rsv *r)
{
    bool changed = false;
    size_t known = r->pypi_names.len;
    for (size_t i = 0; i < known; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        const pypi_project *p = n->held ? NULL : pypi_loader_get(r->pl, n->name);
        if (!p || p->code != EL_OK)
            continue;
        memo_check(n, p);
        if (!n->all) {
            size_t need = n->window, w = specs_need(n, p);
            if (w > need)
                need = w;
            /* a locked version older than the window needs its metadata */
            size_t lw = resolver_pypi_locked_window(r, p);
            if (lw > need)
                need = lw;
            /* --prefer-binary: the newest wheel version, behind sdist ones */
            size_t bw = resolver_pypi_binary_window(r, p);
            if (bw > need)
                need = bw;
            if (need > n->window) {
                n->window = need;
                pypi_loader_submit(r->pl, n->name, need);
                changed = true;
            }
        }
        note_candidates(r, n, p, &changed);
    }
    return changed;
}

/* A page listing wheel or sdist names outside their grammar (a shell or
 * path character) is either broken or hostile: those files are never
 * candidates, and the user hears which index served them. */
static void note_refused(rsv *r, const pypi_project *p)
{
    if (!r->rq->note)
        return;
    char *t = xasprintf("pypi: %s at %s lists %zu file%s whose name%s not a wheel or sdist file "
                        "name (e.g. `%s`); not used", p->name, p->page_url, p->nrefused,
                        p->nrefused == 1 ? "" : "s", p->nrefused == 1 ? " is" : "s are", p->refused);
    r->rq->note(r->rq->note_user, t);
    free(t);
}

el_code resolver_pypi_finish(rsv *r)
{
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        n->p = n->held ? NULL : pypi_loader_get(r->pl, n->name);
        if (n->p && n->p->code != EL_OK && !(n->p->reason && strcmp(n->p->reason, "not_found") == 0))
            return pypi_project_fail(r->ctx, n->p);
        if (n->p && n->p->nrefused && !n->refused_noted) {
            note_refused(r, n->p);
            n->refused_noted = true;
        }
    }
    return EL_OK;
}

void resolver_pypi_widen(rsv *r, const char *name)
{
    rsv_pypi_name *n = pname_find(r, name);
    if (!n || n->all)
        return;
    n->all = true;
    n->window = 0;
    pypi_loader_submit(r->pl, name, 0);
}

/* ---- the pool ---- */

typedef struct ent {
    const pypi_version *v;
    int ci;     /* the candidate; -1 the base's copy, RSV_PYPI_CONDA a conda record's */
    bool inst;
} ent;

static int ent_cmp(const void *a, const void *b)
{
    const ent *x = a, *y = b;
    int c = pypi_version_cmp(x->v, y->v);
    if (c)
        return c;
    if (x->inst != y->inst)
        return x->inst ? 1 : -1;
    return y->ci - x->ci; /* newer index first in the page means lower ci */
}

static int pname_cmp(const void *a, const void *b)
{
    const rsv_pypi_name *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* Lays out a name's versions in ascending order with shared ranks. */
static void layout(rsv *r, rsv_pypi_name *n, ptrvec *owned)
{
    const pypi_project *p = n->p && n->p->code == EL_OK ? n->p : NULL;
    size_t max = (p ? p->ncands : 0) + 1;
    ent *e = xcalloc(max, sizeof *e);
    size_t ne = 0;
    for (size_t i = 0; p && i < p->ncands; i++)
        if (p->cands[i].parsed) {
            e[ne].v = p->cands[i].parsed;
            e[ne].ci = (int)i;
            ne++;
        }
    const pypi_requirement *pq = preinstalled(r, n->name);
    const char *pv = pq ? pinned_version(pq) : NULL;
    pypi_version *ipv = pv ? pypi_version_parse(pv, NULL) : NULL;
    if (ipv) {
        ptrvec_push(owned, ipv);
        e[ne].v = ipv;
        e[ne].ci = -1;
        e[ne].inst = true;
        ne++;
        n->inst_version = arena_strdup(r->mem, pypi_version_str(ipv));
    }
    size_t nc = 0;
    const char **cv = resolver_conda_pypi_versions(r, n->name, &nc);
    if (nc) {
        e = xrealloc(e, (ne + nc + 1) * sizeof *e);
        for (size_t i = 0; i < nc; i++) {
            pypi_version *v = pypi_version_parse(cv[i], NULL);
            if (!v)
                continue; /* not a PEP 440 version: no PyPI requirement can name it */
            ptrvec_push(owned, v);
            e[ne++] = (ent){ v, RSV_PYPI_CONDA, false };
        }
    }
    free(cv);
    qsort(e, ne, sizeof *e, ent_cmp);
    n->nent = ne;
    n->vers = arena_alloc(r->mem, (ne + 1) * sizeof *n->vers);
    n->allv = arena_alloc(r->mem, (ne + 1) * sizeof *n->allv);
    n->ranks = arena_alloc(r->mem, (ne + 1) * sizeof *n->ranks);
    n->present = arena_alloc(r->mem, (ne + 1) * sizeof *n->present);
    n->cut = arena_alloc(r->mem, (ne + 1) * sizeof *n->cut);
    n->yanked = arena_alloc(r->mem, (ne + 1) * sizeof *n->yanked);
    n->ci = arena_alloc(r->mem, (ne + 1) * sizeof *n->ci);
    size_t rank = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i == 0 || pypi_version_cmp(e[i - 1].v, e[i].v) != 0)
            rank++;
        n->ranks[i] = rank;
        n->ci[i] = e[i].ci;
        n->allv[i] = e[i].v;
        if (e[i].inst || e[i].ci == RSV_PYPI_CONDA) {
            n->vers[i] = e[i].v;
            n->present[i] = true;
            continue;
        }
        const pypi_candidate *c = &p->cands[e[i].ci];
        if (c->excluded)
            continue;
        n->vers[i] = e[i].v;
        n->yanked[i] = c->yanked;
        if (c->meta == PYPI_META_LOADED)
            n->present[i] = true;
        else
            n->cut[i] = true;
    }
    free(e);
}

/* keep[i] for the entries of n that requirement specifier `s` admits, under
 * the project's pre-release admission (resolver_pypi_policy()). A yanked
 * release is admitted only when `s` pins exactly and no release that is not
 * yanked matches (PEP 592); a constraint (`complement`) is matched against
 * every release, yanked or pre-release, since it only narrows: whether a
 * pre-release may be taken is the requirements' to say. */
static void match_entries(const rsv_pypi_name *n, const pypi_specset *s, bool complement, bool *keep)
{
    if (complement) {
        pypi_specset_filter(s, n->vers, n->nent, PYPI_PRE_YES, keep);
        return;
    }
    const pypi_version **v = xcalloc(n->nent + 1, sizeof *v);
    for (size_t i = 0; i < n->nent; i++)
        v[i] = n->yanked[i] ? NULL : n->vers[i];
    resolver_pypi_admit(n, s, v, keep);
    free(v);
    bool any = false;
    for (size_t i = 0; i < n->nent && !any; i++)
        any = keep[i];
    if (!any && resolver_pypi_exact_pin(s))
        resolver_pypi_admit(n, s, n->vers, keep);
}

/* The dependency Ids for requirement q on the pool: the base name's
 * intervals, then one per extra. Records each in the side table. */
static void req_deps(rsv *r, Id from, int root, const pypi_requirement *q, const char *text,
                     const char *kind, bool complement, Queue *out)
{
    rsv_pypi_name *n = pname_find(r, q->canonical_name);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, q->name);
    if (q->nextras) {
        sb_addc(&sb, '[');
        for (size_t i = 0; i < q->nextras; i++)
            sb_addf(&sb, "%s%s", i ? "," : "", q->extras[i]);
        sb_addc(&sb, ']');
    }
    sb_adds(&sb, q->specifier ? q->specifier : "");
    const char *short_text = arena_strdup(r->mem, sb.buf);
    sb_release(&sb);
    size_t ne = n ? n->nent : 0;
    bool *keep = xcalloc(ne + 1, sizeof *keep);
    bool truncated = false, any = false;
    if (ne) {
        match_entries(n, q->specset, complement, keep);
        for (size_t i = 0; i < ne; i++) {
            if (complement)
                keep[i] = n->vers[i] && !keep[i];
            if (keep[i] && n->cut[i])
                truncated = true;
            if (keep[i] && n->present[i])
                any = true;
        }
    }
    rsv_interval *iv = xcalloc(ne + 1, sizeof *iv);
    size_t niv = ne ? resolver_intervals(keep, n->present, ne, iv) : 0;
    /* x == 0 is the name itself, then name[extra] per extra; a complement
     * has no extras, and no dependency at all when it matches nothing */
    size_t n_names = complement ? (niv ? 1 : 0) : 1 + q->nextras;
    for (size_t x = 0; x < n_names; x++) {
        char *xname = x ? xasprintf("pypi:%s[%s]", q->canonical_name, q->extras_canonical[x - 1])
                        : xasprintf("pypi:%s", q->canonical_name);
        Id d = ne ? resolver_interval_dep(r->pool, xname, n->ranks, ne, iv, niv)
                  : pool_str2id(r->pool, xname, 1);
        rsv_dep *rd = resolver_add_dep(r, from, root, d, RSV_PYPI,
                                       n ? n->name : q->canonical_name, text, short_text, kind);
        rd->truncated = truncated;
        rd->nomatch = !any;
        queue_push(out, d);
        free(xname);
    }
    free(keep);
    free(iv);
}

static Id add_solvable(rsv *r, Repo *repo, const char *name, size_t rank)
{
    Pool *pool = r->pool;
    Id p = repo_add_solvable(repo);
    Solvable *s = pool->solvables + p;
    char evr[16];
    resolver_rank_evr(rank, evr);
    s->name = pool_str2id(pool, name, 1);
    s->evr = pool_str2id(pool, evr, 1);
    s->arch = ARCH_ALL;
    s->provides = repo_addid_dep(repo, s->provides, pool_rel2id(pool, s->name, s->evr, REL_EQ, 1), 0);
    return p;
}

/* A PyPI solvable of ours named `pname` (rank `rank`) for `name` at
 * `version`; the caller fills in what else it knows. */
static Id add_pypi(rsv *r, Repo *repo, const char *pname, size_t rank, const char *name,
                   const char *version)
{
    Id p = add_solvable(r, repo, pname, rank);
    rsv_solv *rs = resolver_solv(r, p);
    rs->ours = true;
    rs->eco = RSV_PYPI;
    rs->name = name;
    rs->version = version;
    return p;
}

/* Adds requirement q (written text) to solvable p's requires. */
static void require(rsv *r, Id p, const pypi_requirement *q, const char *text, Queue *deps)
{
    Pool *pool = r->pool;
    queue_empty(deps);
    req_deps(r, p, -1, q, text, "requires", false, deps);
    for (int j = 0; j < deps->count; j++)
        pool->solvables[p].requires =
            repo_addid_dep(r->repo_pypi, pool->solvables[p].requires, deps->elements[j], 0);
}

/* Adds c's requirements whose markers hold (without an extra) to solvable
 * p's requires. */
static void add_requires(rsv *r, Id p, const pypi_candidate *c, Queue *deps)
{
    for (size_t d = 0; d < c->ndeps; d++) {
        const pypi_requirement *q = c->deps[d].req;
        if (q && resolver_pypi_marker_true(r, q, ""))
            require(r, p, q, c->deps[d].text, deps);
    }
}

/* The solvable of name[ex] for candidate c (solvable p): it requires p
 * exactly, and what the extra's markers add; extra_missing when the
 * metadata names no such extra. */
static void add_extra(rsv *r, const rsv_pypi_name *n, const pypi_candidate *c, Id p, size_t rank,
                      const char *ex, Queue *deps)
{
    Pool *pool = r->pool;
    char *xname = xasprintf("pypi:%s[%s]", n->name, ex);
    Id xp = add_solvable(r, r->repo_pypi, xname, rank);
    free(xname);
    rsv_solv *xs = resolver_solv(r, xp);
    *xs = *resolver_solv(r, p);
    xs->extra = ex;
    Solvable *s = pool->solvables + xp;
    Id base = pool_rel2id(pool, pool->solvables[p].name, pool->solvables[p].evr, REL_EQ, 1);
    s->requires = repo_addid_dep(r->repo_pypi, s->requires, base, 0);
    char *btext = xasprintf("%s==%s", n->name, c->version);
    resolver_add_dep(r, xp, -1, base, RSV_PYPI, n->name, arena_strdup(r->mem, btext), NULL,
                     "requires");
    free(btext);
    bool provided = false;
    for (size_t e = 0; e < c->nextras && !provided; e++)
        provided = strcmp(c->extras[e], ex) == 0;
    for (size_t d = 0; d < c->ndeps; d++) {
        const pypi_requirement *q = c->deps[d].req;
        if (!q || resolver_pypi_marker_true(r, q, "") || !resolver_pypi_marker_true(r, q, ex))
            continue;
        provided = true; /* metadata without Provides-Extra */
        require(r, xp, q, c->deps[d].text, deps);
    }
    resolver_solv(r, xp)->extra_missing = !provided;
}

/* Entry k of n: the base's own version (ci < 0), or a candidate with its
 * requirements, its installed twin when the base holds that version, and
 * a solvable per extra asked for. */
static void add_entry(rsv *r, rsv_pypi_name *n, const char *pname, size_t k, Queue *deps)
{
    Pool *pool = r->pool;
    if (n->ci[k] == RSV_PYPI_CONDA)
        return; /* the conda record's own solvable provides it (resolver_conda.c) */
    if (n->ci[k] < 0) {
        Id p = add_pypi(r, pool->installed, pname, n->ranks[k], n->name, n->inst_version);
        resolver_solv(r, p)->pp = n->p;
        n->inst = p;
        return;
    }
    const pypi_candidate *c = &n->p->cands[n->ci[k]];
    Id p = add_pypi(r, r->repo_pypi, pname, n->ranks[k], n->name, c->version);
    rsv_solv *rs = resolver_solv(r, p);
    rs->pp = n->p;
    rs->pc = c;
    add_requires(r, p, c, deps);
    /* conda wins: a distribution conda installs is not installed again */
    const char *cname = resolver_conda_pypi_owner(r, n->name);
    if (cname)
        pool->solvables[p].conflicts = repo_addid_dep(r->repo_pypi, pool->solvables[p].conflicts,
                                                      pool_str2id(pool, cname, 1), 0);
    /* the installed copy of the same version, if the base has it */
    if (n->inst_version && strcmp(n->inst_version, c->version) == 0) {
        Id ip = add_solvable(r, pool->installed, pname, n->ranks[k]);
        rsv_solv *is = resolver_solv(r, ip);
        *is = *resolver_solv(r, p);
        n->inst = ip;
    }
    for (size_t x = 0; x < n->extras.len; x++)
        add_extra(r, n, c, p, n->ranks[k], n->extras.items[x], deps);
}

size_t resolver_pypi_rank_of(const rsv *r, const char *canon, const char *version)
{
    const rsv_pypi_name *n = NULL;
    for (size_t i = 0; i < r->pypi_names.len && !n; i++)
        if (strcmp(((const rsv_pypi_name *)r->pypi_names.items[i])->name, canon) == 0)
            n = r->pypi_names.items[i];
    pypi_version *v = n && n->nent ? pypi_version_parse(version, NULL) : NULL;
    size_t rank = 0;
    for (size_t k = 0; v && k < n->nent && !rank; k++)
        if (n->ci[k] == RSV_PYPI_CONDA && pypi_version_cmp(n->allv[k], v) == 0)
            rank = n->ranks[k];
    pypi_version_free(v);
    return rank;
}

/* preinstalled dists nobody asked about: in the base all the same */
static void add_unasked_preinstalled(rsv *r)
{
    for (size_t i = 0; i < r->preinst.len; i++) {
        const pypi_requirement *q = r->preinst.items[i];
        if (pname_find(r, q->canonical_name))
            continue;
        const char *pv = pinned_version(q);
        char *pname = xasprintf("pypi:%s", q->canonical_name);
        add_pypi(r, r->pool->installed, pname, 1, arena_strdup(r->mem, q->canonical_name),
                 arena_strdup(r->mem, pv ? pv : ""));
        free(pname);
    }
}

el_code resolver_pypi_add(rsv *r)
{
    Pool *pool = r->pool;
    ptrvec owned = PTRVEC_INIT;
    if (r->pypi_names.len)
        qsort(r->pypi_names.items, r->pypi_names.len, sizeof(void *), pname_cmp);
    for (size_t i = 0; i < r->pypi_names.len; i++)
        layout(r, r->pypi_names.items[i], &owned);
    resolver_pypi_policy(r);
    if (!r->repo_pypi)
        r->repo_pypi = repo_create(pool, "pypi");
    Queue deps;
    queue_init(&deps);
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        char *pname = xasprintf("pypi:%s", n->name);
        for (size_t k = 0; k < n->nent; k++)
            if (n->present[k])
                add_entry(r, n, pname, k, &deps);
        free(pname);
    }
    add_unasked_preinstalled(r);
    queue_free(&deps);
    /* the parsed preinstalled versions live as long as the resolve */
    for (size_t i = 0; i < owned.len; i++)
        ptrvec_push(&r->owned_versions, owned.items[i]);
    ptrvec_release(&owned);
    return EL_OK;
}

void resolver_pypi_jobs(rsv *r)
{
    Queue deps;
    queue_init(&deps);
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_PYPI || rt->skipped)
            continue;
        bool constraint = rt->r->kind == ROOT_CONSTRAINT;
        queue_empty(&deps);
        req_deps(r, 0, (int)i, rt->preq, rt->r->text, "requires", constraint, &deps);
        for (int j = 0; j < deps.count; j++) {
            queue_push2(&r->job, (constraint ? SOLVER_ERASE : SOLVER_INSTALL) | SOLVER_SOLVABLE_PROVIDES,
                        deps.elements[j]);
            if (j == 0)
                rt->dep = deps.elements[j];
        }
    }
    queue_free(&deps);
}

/* resolver_explain.c — a failed solve as findings people can act on.
 * libsolv's problem rules are mapped through our side table (dependency Id
 * -> text as written and origin) to the two requirements that cannot both
 * hold, the shortest chain from the spec to each (breadth first over the
 * requirement graph the solver considered), and a suggestion. A requirement
 * that nothing the indexes serve can satisfy becomes PACKAGE_NOT_FOUND with
 * every excluded version's reason, and every other such dead end of the
 * solve beside it, unless another requirement on the same name excludes it
 * anyway, in which case the conflict is the better story. A pair is shown
 * only when each of its requirements admits some version.
 * Real versions everywhere: ranks never reach a message. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <solv/bitmap.h>
#include <solv/evr.h>
#include <solv/pool.h>
#include <solv/problems.h>
#include <solv/rules.h>
#include <solv/solver.h>

#include "resolver_internal.h"

/* One requirement involved in a problem. */
typedef struct req {
    Id from;          /* requiring solvable, 0 for a root */
    int root;         /* root index or -1 */
    Id dep;
    const rsv_dep *rd; /* side-table record, or NULL (deb) */
    char *text;       /* short text */
    char *full;       /* as written */
    char *target;     /* the name it is about */
} req;

typedef struct bfs {
    Id *pred;         /* predecessor solvable (0: a root) */
    Id *pdep;         /* the dependency that led here */
    int *proot;       /* the root, for nodes at distance 1 */
    int *dist;        /* -1 unreached */
} bfs;

static const char *sname(rsv *r, Id p, char **own)
{
    Pool *pool = r->pool;
    if ((size_t)p < r->nsolv && r->solv[p].ours) {
        const rsv_solv *s = &r->solv[p];
        *own = s->extra ? xasprintf("%s[%s] %s", s->name, s->extra, s->version)
                        : xasprintf("%s %s", s->name, s->version);
    } else {
        Solvable *s = pool->solvables + p;
        *own = xasprintf("%s %s", pool_id2str(pool, s->name), pool_id2str(pool, s->evr));
    }
    return *own;
}

/* The text of dependency `dep` required by `from`. */
static void dep_texts(rsv *r, Id from, Id dep, char **shorttext, char **full, char **target,
                      const rsv_dep **rdo)
{
    const rsv_dep *rd = resolver_find_dep(r, from, dep);
    *rdo = rd;
    if (rd) {
        *shorttext = xstrdup(rd->short_text);
        *full = xstrdup(rd->text);
        *target = xstrdup(rd->name);
        return;
    }
    Pool *pool = r->pool;
    *shorttext = resolver_deb_dep_text(pool, dep);
    *full = xstrdup(*shorttext);
    Id n = dep;
    while (ISRELDEP(n))
        n = GETRELDEP(pool, n)->name;
    *target = xstrdup(pool_id2str(pool, n));
}

static void run_bfs(rsv *r, bfs *b)
{
    Pool *pool = r->pool;
    size_t n = (size_t)pool->nsolvables;
    b->pred = xcalloc(n, sizeof *b->pred);
    b->pdep = xcalloc(n, sizeof *b->pdep);
    b->proot = xcalloc(n, sizeof *b->proot);
    b->dist = xmalloc(n * sizeof *b->dist);
    for (size_t i = 0; i < n; i++)
        b->dist[i] = -1;
    Queue q;
    queue_init(&q);
    for (size_t i = 0; i < r->nroots; i++) {
        const rsv_root *rt = &r->roots[i];
        if (rt->skipped || !rt->dep || rt->r->kind == ROOT_CONSTRAINT)
            continue;
        /* every dependency of this root (a pypi root with extras has several) */
        for (size_t k = 0; k < r->ndeps; k++) {
            const rsv_dep *d = &r->deps[k];
            if (d->from != 0 || d->root != (int)i)
                continue;
            Id p, pp;
            FOR_PROVIDES(p, pp, d->dep) {
                if (b->dist[p] >= 0)
                    continue;
                b->dist[p] = 1;
                b->pred[p] = 0;
                b->pdep[p] = d->dep;
                b->proot[p] = (int)i;
                queue_push(&q, p);
            }
        }
    }
    for (int qi = 0; qi < q.count; qi++) {
        Id p = q.elements[qi];
        Solvable *s = pool->solvables + p;
        if (!s->repo || !s->requires)
            continue;
        for (Id *dp = s->repo->idarraydata + s->requires; *dp; dp++) {
            if (*dp == SOLVABLE_PREREQMARKER)
                continue;
            Id t, tt;
            FOR_PROVIDES(t, tt, *dp) {
                if (b->dist[t] >= 0)
                    continue;
                b->dist[t] = b->dist[p] + 1;
                b->pred[t] = p;
                b->pdep[t] = *dp;
                queue_push(&q, t);
            }
        }
    }
    queue_free(&q);
}

static void bfs_free(bfs *b)
{
    free(b->pred);
    free(b->pdep);
    free(b->proot);
    free(b->dist);
}

/* The chain from the spec to requirement q as a JSON array of steps and as
 * one line ("a (spec line 1) → b>=2 → c>=3"); with `full`, each step names
 * the version that made it. Returns the chain length (steps). */
static int chain(rsv *r, const bfs *b, const req *q, bool full, strbuf *line, json_object *arr)
{
    if (q->from == 0) {
        char *l = resolver_root_label(r, q->root);
        sb_adds(line, l);
        json_object_array_add(arr, json_object_new_string(l));
        free(l);
        return 1;
    }
    if (b->dist[q->from] < 0)
        return 0;
    /* collect the path backwards */
    Queue path;
    queue_init(&path);
    for (Id p = q->from; p; p = b->pred[p])
        queue_unshift(&path, p);
    Id first = path.elements[0];
    char *l = resolver_root_label(r, b->proot[first]);
    sb_adds(line, l);
    json_object_array_add(arr, json_object_new_string(l));
    free(l);
    for (int i = 1; i < path.count; i++) {
        Id p = path.elements[i];
        char *st, *fu, *tg, *own = NULL;
        const rsv_dep *rd;
        dep_texts(r, b->pred[p], b->pdep[p], &st, &fu, &tg, &rd);
        char *step = full ? xasprintf("%s requires %s", sname(r, b->pred[p], &own), fu) : xstrdup(st);
        sb_addf(line, " → %s", step);
        json_object_array_add(arr, json_object_new_string(step));
        free(step);
        free(own);
        free(st);
        free(fu);
        free(tg);
    }
    {
        char *own = NULL;
        char *step = full ? xasprintf("%s requires %s", sname(r, q->from, &own), q->full) : xstrdup(q->text);
        sb_addf(line, " → %s", step);
        json_object_array_add(arr, json_object_new_string(step));
        free(step);
        free(own);
    }
    int n = path.count + 1;
    queue_free(&path);
    return n;
}

static bool provided(Pool *pool, Id dep)
{
    Id w = pool_whatprovides(pool, dep);
    return w && pool->whatprovidesdata[w];
}

/* Whether two requirements can never hold together: each admits some
 * version and no solvable provides both (for a name with version semantics
 * of our own, over every version known, excluded ones included, so an
 * excluded pin still conflicts). Two that admit nothing are two dead ends,
 * not a pair. With a_may_be_empty, `a` may admit nothing known: a
 * requirement on a name the base holds at its protected pin, whose other
 * versions no index was asked for, against that pin (protected_partner()). */
static bool disjoint_sets(rsv *r, const req *a, const req *b, bool a_may_be_empty)
{
    if (strcmp(a->target, b->target) != 0)
        return false;
    const rsv_pypi_name *n = NULL;
    for (size_t i = 0; i < r->pypi_names.len && a->rd && a->rd->eco == RSV_PYPI; i++)
        if (strcmp(((rsv_pypi_name *)r->pypi_names.items[i])->name, a->target) == 0)
            n = r->pypi_names.items[i];
    if (n && n->nent) {
        pypi_requirement *qa = pypi_requirement_parse(a->full, NULL);
        pypi_requirement *qb = pypi_requirement_parse(b->full, NULL);
        bool res = false;
        if (qa && qb) {
            bool *ka = xcalloc(n->nent, 1), *kb = xcalloc(n->nent, 1);
            resolver_pypi_match(qa->specset, n->allv, n->nent, ka);
            resolver_pypi_match(qb->specset, n->allv, n->nent, kb);
            /* two requirements that each admit nothing do not conflict:
             * each is a dead end of its own (not_found()) */
            bool any_a = false, any_b = false;
            res = true;
            for (size_t i = 0; i < n->nent; i++) {
                any_a |= ka[i];
                any_b |= kb[i];
                if (ka[i] && kb[i])
                    res = false;
            }
            res = res && (any_a || a_may_be_empty) && any_b;
            free(ka);
            free(kb);
        }
        pypi_requirement_free(qa);
        pypi_requirement_free(qb);
        return res;
    }
    Pool *pool = r->pool;
    Id p, pp, q, qq;
    if ((!a_may_be_empty && !provided(pool, a->dep)) || !provided(pool, b->dep))
        return false; /* nothing satisfies one of them: not a pair */
    FOR_PROVIDES(p, pp, a->dep)
        FOR_PROVIDES(q, qq, b->dep)
            if (p == q)
                return false;
    /* npm names hold several versions at once: never a same-name conflict */
    if (a->rd && a->rd->eco == RSV_NPM)
        return false;
    return true;
}

static bool disjoint(rsv *r, const req *a, const req *b)
{
    return disjoint_sets(r, a, b, false);
}

static void req_free(req *q)
{
    free(q->text);
    free(q->full);
    free(q->target);
}

/* What libsolv's rule says, in our words (no ranks). */
static char *rule_words(rsv *r, Id rid)
{
    Id source, target, dep;
    SolverRuleinfo t = solver_ruleinfo(r->solver, rid, &source, &target, &dep);
    char *a = NULL, *b = NULL, *st = NULL, *fu = NULL, *tg = NULL, *out;
    const rsv_dep *rd;
    switch (t) {
    case SOLVER_RULE_JOB:
    case SOLVER_RULE_JOB_NOTHING_PROVIDES_DEP:
    case SOLVER_RULE_JOB_UNKNOWN_PACKAGE:
    case SOLVER_RULE_JOB_PROVIDED_BY_SYSTEM: {
        rd = resolver_find_dep(r, 0, dep);
        if (rd && rd->root >= 0) {
            char *l = resolver_root_label(r, rd->root);
            out = t == SOLVER_RULE_JOB ? xasprintf("the spec asks for %s", l)
                                       : xasprintf("nothing the indexes serve satisfies %s", l);
            free(l);
            return out;
        }
        return xstrdup("a job of the request");
    }
    case SOLVER_RULE_PKG_REQUIRES:
        dep_texts(r, source, dep, &st, &fu, &tg, &rd);
        out = xasprintf("%s requires %s", sname(r, source, &a), fu);
        break;
    case SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP:
        dep_texts(r, source, dep, &st, &fu, &tg, &rd);
        out = xasprintf("%s requires %s, which nothing the indexes serve satisfies", sname(r, source, &a), fu);
        break;
    case SOLVER_RULE_PKG_SAME_NAME: {
        /* the pair in a stable order: the solvables' order follows the
         * order the index lists them in */
        const char *x = sname(r, source, &a), *y = sname(r, target, &b);
        if (strcmp(x, y) > 0) {
            const char *sw = x;
            x = y;
            y = sw;
        }
        out = xasprintf("%s and %s cannot both be installed", x, y);
        break;
    }
    case SOLVER_RULE_PKG_CONFLICTS:
        st = resolver_deb_dep_text(r->pool, dep);
        out = xasprintf("%s conflicts with %s (%s)", sname(r, source, &a), sname(r, target, &b), st);
        break;
    case SOLVER_RULE_PKG_NOT_INSTALLABLE:
        out = xasprintf("%s is not installable", sname(r, source, &a));
        break;
    default:
        out = xstrdup("a rule of the installed base");
        break;
    }
    free(a);
    free(b);
    free(st);
    free(fu);
    free(tg);
    return out;
}

static void closest(rsv *r, const char *name, json_object *arr, strbuf *txt)
{
    /* What is knowable without listing an index: the names this resolve loaded. */
    const char *best[3] = { NULL, NULL, NULL };
    size_t bd[3] = { 0, 0, 0 };
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        const rsv_pypi_name *n = r->pypi_names.items[i];
        if (!n->p || n->p->code != EL_OK || strcmp(n->name, name) == 0)
            continue;
        size_t dd = edit_distance(n->name, name);
        if (dd > 3)
            continue;
        for (int k = 0; k < 3; k++)
            if (!best[k] || dd < bd[k] || (dd == bd[k] && strcmp(n->name, best[k]) < 0)) {
                for (int j = 2; j > k; j--) {
                    best[j] = best[j - 1];
                    bd[j] = bd[j - 1];
                }
                best[k] = n->name;
                bd[k] = dd;
                break;
            }
    }
    for (int k = 0; k < 3 && best[k]; k++) {
        json_object_array_add(arr, json_object_new_string(best[k]));
        sb_addf(txt, "%s%s", k ? ", " : "", best[k]);
    }
}

/* Whether the apt sources have a real package (any version) called name:
 * then only the version asked for is missing. */
static bool deb_name_exists(rsv *r, const char *name)
{
    Pool *pool = r->pool;
    Id nid = pool_str2id(pool, name, 0);
    if (!nid)
        return false;
    Id p;
    Solvable *s;
    FOR_POOL_SOLVABLES(p)
    {
        s = pool->solvables + p;
        if (s->name == nid && s->repo && s->repo != pool->installed &&
            !((size_t)p < r->nsolv && r->solv[p].ours))
            return true;
    }
    return false;
}

/* Whether the base holds PyPI name `name` at its protected pin (no index
 * was asked about it). */
static bool held(const rsv *r, const char *name)
{
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        const rsv_pypi_name *n = r->pypi_names.items[i];
        if (strcmp(n->name, name) == 0)
            return n->held;
    }
    return false;
}

/* A requirement nothing satisfies, on a name the base holds at its
 * protected pin (no index was asked: resolver_pypi.c): the pin is what it
 * runs into, so that root is its partner in a conflict rather than a
 * "not found". false if no such pin excludes it. */
static bool protected_partner(rsv *r, const req *q, req *out)
{
    for (size_t k = 0; k < r->ndeps; k++) {
        const rsv_dep *d = &r->deps[k];
        if (d->eco != RSV_PYPI || d->from != 0 || d->root < 0 ||
            !r->rq->roots[d->root].protected_pin || strcmp(d->name, q->target) != 0 ||
            !held(r, d->name))
            continue;
        req c = { 0 };
        c.root = d->root;
        c.dep = d->dep;
        dep_texts(r, 0, d->dep, &c.text, &c.full, &c.target, &c.rd);
        if (disjoint_sets(r, q, &c, true)) {
            *out = c;
            return true;
        }
        req_free(&c);
    }
    return false;
}

/* What an index says about one name: where it was asked, and whether it
 * has the name at all. */
typedef struct name_facts {
    int eco;
    const char *index;
    const pypi_project *p;   /* PyPI */
    const npm_packument *np; /* npm */
    bool exists;
    bool empty;              /* it lists no version at all */
} name_facts;

static name_facts facts_of(rsv *r, const req *q)
{
    name_facts f = { 0 };
    f.eco = q->rd ? q->rd->eco : RSV_DEB;
    if (f.eco == RSV_PYPI) {
        for (size_t i = 0; i < r->pypi_names.len; i++)
            if (strcmp(((rsv_pypi_name *)r->pypi_names.items[i])->name, q->target) == 0)
                f.p = ((rsv_pypi_name *)r->pypi_names.items[i])->p;
        f.index = f.p && f.p->index ? f.p->index
                  : r->rq->n_pypi_indexes ? r->rq->pypi_indexes[0] : "https://pypi.org/simple";
        f.exists = f.p && f.p->code == EL_OK;
        f.empty = f.exists && f.p->ncands == 0;
    } else if (f.eco == RSV_NPM) {
        f.index = r->rq->npm_registry ? r->rq->npm_registry : NPM_DEFAULT_REGISTRY;
        f.np = npm_loader_get(r->nl, q->target);
        f.exists = f.np && f.np->code == EL_OK;
        f.empty = f.exists && f.np->nversions == 0;
    } else {
        f.index = "the apt sources";
        f.exists = deb_name_exists(r, q->target);
    }
    return f;
}

/* The page of f's name as read through a mirror (credentials removed),
 * or NULL when no mirror applies: a message that names only the
 * canonical index hides a mirror path one level off. malloc'd. */
static char *read_through_mirror(rsv *r, const name_facts *f)
{
    const char *page = f->p ? f->p->page_url : f->np ? f->np->url : NULL;
    if (!page || !r->c)
        return NULL;
    char *served = cache_served_url(r->c, page);
    char *read = strcmp(served, page) != 0 ? cache_url_redact(served) : NULL;
    free(served);
    return read;
}

/* Every excluded version of a name that exists, with its reason, into
 * `excluded` and `why` ("x 1.0: yanked: broken; x 2.0: ..."). */
static void exclusions(const name_facts *f, const char *target, json_object *excluded, strbuf *why)
{
    if (f->eco == RSV_PYPI && f->exists) {
        for (size_t i = 0; i < f->p->ncands; i++) {
            const pypi_candidate *c = &f->p->cands[i];
            /* a yanked version is usable only for an exact pin, which this
             * requirement is not (or it would have matched): excluded too */
            const char *reason = c->excluded ? c->excluded : c->yanked ? "yanked" : NULL;
            if (!reason)
                continue;
            char *ywhy = NULL;
            if (!c->excluded)
                ywhy = c->yanked_reason ? xasprintf("yanked: %s", c->yanked_reason)
                                        : xstrdup("yanked (no reason given)");
            const char *cwhy = ywhy ? ywhy : c->why ? c->why : reason;
            json_object *o = json_object_new_object();
            json_object_object_add(o, "version", json_object_new_string(c->version));
            json_object_object_add(o, "reason", json_object_new_string(reason));
            json_object_object_add(o, "why", json_object_new_string(cwhy));
            json_object_array_add(excluded, o);
            sb_addf(why, "%s%s %s: %s", why->len ? "; " : "", target, c->version, cwhy);
            free(ywhy);
        }
    } else if (f->eco == RSV_NPM && f->exists) {
        for (size_t i = f->np->ncandidates; i < f->np->nversions; i++) {
            const npm_version *v = &f->np->versions[i];
            json_object *o = json_object_new_object();
            json_object_object_add(o, "version", json_object_new_string(v->version));
            json_object_object_add(o, "reason", json_object_new_string(npm_exclusion_id(v->excluded)));
            json_object_object_add(o, "why", json_object_new_string(v->why ? v->why : ""));
            json_object_array_add(excluded, o);
            sb_addf(why, "%s%s %s: %s", why->len ? "; " : "", target, v->version,
                    v->why ? v->why : npm_exclusion_id(v->excluded));
        }
    }
}

/* The usable versions of a name that exists (what could be asked for
 * instead), ascending, and where the version q names would sort among
 * them: `pos` counts those below it (all of them when q names none). */
typedef struct vlist {
    const char **v; /* borrowed from the index's parse or the pool */
    size_t n, pos;
    bool anchored;
} vlist;

/* PyPI: the version of q's first specifier that names one (`!=` does
 * not), its `.*` dropped; NULL when none parses. */
static pypi_version *pypi_anchor(const req *q)
{
    pypi_requirement *pr = pypi_requirement_parse(q->full, NULL);
    pypi_version *a = NULL;
    for (size_t i = 0; pr && !a && i < pypi_specset_len(pr->specset); i++) {
        if (strcmp(pypi_specset_op(pr->specset, i), "!=") == 0)
            continue;
        const char *t = pypi_specset_version(pr->specset, i);
        size_t n = strlen(t);
        char *v = n >= 2 && strcmp(t + n - 2, ".*") == 0 ? xstrndup(t, n - 2) : xstrdup(t);
        a = pypi_version_parse(v, NULL);
        free(v);
    }
    pypi_requirement_free(pr);
    return a;
}

/* Candidates newest first (pypi_project, npm_packument), invalid last:
 * walked backwards they ascend. Yanked and excluded versions are not
 * offered; exclusions() says why each is out. */
static void pypi_versions(const name_facts *f, const req *q, vlist *out)
{
    pypi_version *a = pypi_anchor(q);
    out->anchored = a != NULL;
    out->v = xcalloc(f->p->ncands + 1, sizeof *out->v);
    for (size_t i = f->p->ncands; i-- > 0;) {
        const pypi_candidate *c = &f->p->cands[i];
        if (c->excluded || c->yanked || !c->parsed)
            continue;
        out->v[out->n++] = c->version;
        if (!a || pypi_version_cmp(c->parsed, a) < 0)
            out->pos = out->n;
    }
    pypi_version_free(a);
}

static void npm_versions(const name_facts *f, const req *q, vlist *out)
{
    const npm_range *rg = q->rd ? q->rd->nrange : NULL;
    const npm_semver *a = NULL;
    if (rg && npm_range_nsets(rg) && npm_range_set_size(rg, 0))
        a = npm_range_comparator(rg, 0, 0).semver;
    out->anchored = a != NULL;
    out->v = xcalloc(f->np->ncandidates + 1, sizeof *out->v);
    for (size_t i = f->np->ncandidates; i-- > 0;) {
        const npm_version *v = &f->np->versions[i];
        if (!v->semver.version)
            continue;
        out->v[out->n++] = v->version;
        if (!a || npm_semver_compare(&v->semver, a) < 0)
            out->pos = out->n;
    }
}

/* apt: every version the sources list for the name, once each, where the
 * relation names a version (`tool (= 9.9-1)`), its anchor. */
static void deb_versions(rsv *r, const req *q, vlist *out)
{
    Pool *pool = r->pool;
    const char *a = NULL;
    for (Id d = q->dep; ISRELDEP(d) && !a; d = GETRELDEP(pool, d)->name) {
        Reldep *rd = GETRELDEP(pool, d);
        if (rd->flags > 0 && rd->flags < 8)
            a = pool_id2str(pool, rd->evr);
    }
    out->anchored = a != NULL;
    /* an unversioned relation that fails is not about versions (the
     * architecture, Multi-Arch): none are offered */
    Id nid = a ? pool_str2id(pool, q->target, 0) : 0;
    out->v = xcalloc((size_t)pool->nsolvables + 1, sizeof *out->v);
    for (Id p = 2; nid && p < pool->nsolvables; p++) {
        Solvable *s = pool->solvables + p;
        if (s->name != nid || !s->repo || s->repo == pool->installed ||
            ((size_t)p < r->nsolv && r->solv[p].ours))
            continue;
        const char *e = pool_id2str(pool, s->evr);
        bool dup = false;
        for (size_t k = 0; k < out->n && !dup; k++)
            dup = strcmp(out->v[k], e) == 0;
        if (dup)
            continue;
        /* insertion in version order: a name has few versions */
        size_t k = out->n++;
        for (; k > 0 && pool_evrcmp_str(pool, out->v[k - 1], e, EVRCMP_COMPARE) > 0; k--)
            out->v[k] = out->v[k - 1];
        out->v[k] = e;
    }
    for (size_t k = 0; k < out->n; k++)
        if (!a || pool_evrcmp_str(pool, out->v[k], a, EVRCMP_COMPARE) < 0)
            out->pos = k + 1;
}

/* The versions a name that exists offers instead of what was asked: the
 * few nearest the version asked for (three below it, two above, fewer at
 * an end; the newest when no version is named), ascending, into `arr` and
 * `txt` ("; versions available: 1.0, 2.0"). Returns how many it has. */
static size_t versions_near(rsv *r, const name_facts *f, const req *q, json_object *arr,
                            strbuf *txt)
{
    enum { SHOWN = 5, BELOW = 3 };
    vlist l = { 0 };
    if (f->exists && f->eco == RSV_PYPI)
        pypi_versions(f, q, &l);
    else if (f->exists && f->eco == RSV_NPM)
        npm_versions(f, q, &l);
    else if (f->exists)
        deb_versions(r, q, &l);
    size_t lo = l.pos > BELOW ? l.pos - BELOW : 0;
    size_t hi = lo + SHOWN < l.n ? lo + SHOWN : l.n;
    lo = hi > SHOWN ? hi - SHOWN : 0;
    if (l.n && hi - lo == l.n)
        sb_adds(txt, "; versions available: ");
    else if (l.n)
        sb_addf(txt, "; versions available (%zu %s of %zu): ", hi - lo,
                l.anchored ? "nearest" : "newest", l.n);
    for (size_t i = lo; i < hi; i++) {
        json_object_array_add(arr, json_object_new_string(l.v[i]));
        sb_addf(txt, "%s%s", i > lo ? ", " : "", l.v[i]);
    }
    free(l.v);
    return l.n;
}

/* The sentence of one dead end, without its exclusions into `head`;
 * returns its reason id. */
static const char *dead_end_head(const name_facts *f, const char *target, const char *where,
                                 const strbuf *lines, const strbuf *asked, const strbuf *near,
                                 strbuf *head)
{
    if (f->empty) {
        sb_addf(head, "`%s` has no versions in %s (%s): %s", target, where,
                f->eco == RSV_NPM ? "its packument lists none" : "its page lists no files",
                lines->buf);
        return "no_versions";
    }
    if (f->exists) {
        sb_addf(head, "No version of `%s` that %s %s satisfies %s", target, where,
                f->eco == RSV_DEB ? "serve" : "serves", asked->buf);
        return "no_match";
    }
    sb_addf(head, "`%s` is not in %s (%s)%s%s", target, where, lines->buf,
            near->len ? "; closest names: " : "", near->len ? near->buf : "");
    return "not_found";
}

/* One dead end: the name qs[0..n) are all about, none of them satisfiable
 * by what its index serves. Its sentence goes into msg (exclusions, then
 * the versions it has); its detail entry is returned, whose `message` is
 * the sentence without the exclusions (the CLI lists those one a line). */
static json_object *dead_end(rsv *r, const req *qs, size_t n, const bfs *b, strbuf *msg)
{
    const char *target = qs[0].target;
    name_facts f = facts_of(r, &qs[0]);
    json_object *excluded = json_object_new_array(), *close = json_object_new_array();
    json_object *chains = json_object_new_array(), *requested = json_object_new_array();
    json_object *versions = json_object_new_array();
    strbuf why = STRBUF_INIT, near = STRBUF_INIT, lines = STRBUF_INIT, asked = STRBUF_INIT;
    strbuf head = STRBUF_INIT, vers = STRBUF_INIT;
    char **said = xcalloc(n + 1, sizeof *said); /* each chain once in the sentence */
    for (size_t i = 0; i < n; i++) {
        strbuf line = STRBUF_INIT;
        json_object *ch = json_object_new_array();
        chain(r, b, &qs[i], false, &line, ch);
        json_object_array_add(chains, ch);
        json_object_array_add(requested, json_object_new_string(qs[i].full));
        said[i] = xasprintf("`%s` (%s)", qs[i].text, line.buf ? line.buf : "");
        bool again = false;
        for (size_t k = 0; k < i && !again; k++)
            again = strcmp(said[k], said[i]) == 0;
        if (!again) {
            sb_addf(&lines, "%s%s", lines.len ? " and " : "", line.buf ? line.buf : "");
            sb_addf(&asked, "%s%s", asked.len ? " or " : "", said[i]);
        }
        sb_release(&line);
    }
    for (size_t i = 0; i < n; i++)
        free(said[i]);
    free(said);
    exclusions(&f, target, excluded, &why);
    if (!f.exists && f.eco == RSV_PYPI)
        closest(r, target, close, &near);
    size_t nversions = f.empty ? 0 : versions_near(r, &f, &qs[0], versions, &vers);
    char *read = read_through_mirror(r, &f);
    /* Only where the index gave no page: a page that answered was found
     * where the mirror should hold it. */
    char *where = read && !f.exists ? xasprintf("%s, read through its mirror at %s,", f.index, read)
                                    : xstrdup(f.index);
    const char *reason = dead_end_head(&f, target, where, &lines, &asked, &near, &head);
    sb_addf(msg, "%s%s%s%s", head.buf, why.len ? ": " : "", why.len ? why.buf : "",
            vers.len ? vers.buf : "");
    sb_addf(&head, "%s", vers.len ? vers.buf : "");
    json_object *o = json_object_new_object();
    json_object_object_add(o, "package", json_object_new_string(target));
    json_object_object_add(o, "index", json_object_new_string(f.index));
    if (read && !f.exists)
        json_object_object_add(o, "readUrl", json_object_new_string(read));
    json_object_object_add(o, "reason", json_object_new_string(reason));
    json_object_object_add(o, "message", json_object_new_string(head.buf));
    json_object_object_add(o, "requested", requested);
    json_object_object_add(o, "chains", chains);
    json_object_object_add(o, "closest", close);
    json_object_object_add(o, "excluded", excluded);
    json_object_object_add(o, "versions", versions);
    json_object_object_add(o, "versionCount", json_object_new_int64((int64_t)nversions));
    free(read);
    free(where);
    strbuf *bufs[] = { &why, &near, &lines, &asked, &head, &vers };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        sb_release(bufs[i]);
    return o;
}

static int req_cmp(const void *x, const void *y)
{
    const req *a = x, *b = y;
    int c = strcmp(a->target, b->target);
    if (c)
        return c;
    c = (a->from != 0) - (b->from != 0);
    return c ? c : strcmp(a->full, b->full);
}

/* Whether requirement (from, dep) fails on its own: nothing the index
 * serves for the target satisfies it. */
static bool is_dead_end(rsv *r, const rsv_dep *d)
{
    if (d->optional_peer)
        return false; /* asks nothing of the solve */
    return d->nomatch || !provided(r->pool, d->dep);
}

/* The packages some problem's rules name as requiring something. */
static bool *involved_solvables(rsv *r, int nproblems)
{
    Pool *pool = r->pool;
    bool *involved = xcalloc((size_t)pool->nsolvables + 1, 1);
    Queue rules;
    queue_init(&rules);
    for (int pr = 1; pr <= nproblems; pr++) {
        solver_findallproblemrules(r->solver, pr, &rules);
        for (int i = 0; i < rules.count; i++) {
            Id source, target, dep;
            SolverRuleinfo t = solver_ruleinfo(r->solver, rules.elements[i], &source, &target, &dep);
            if ((t == SOLVER_RULE_PKG_REQUIRES || t == SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP) &&
                source > 0 && source < pool->nsolvables)
                involved[source] = true;
        }
    }
    queue_free(&rules);
    return involved;
}

/* Appends requirement (from, dep) to out[0..*k) unless it is there. */
static req *push_req(rsv *r, req *out, size_t *k, Id from, int root, Id dep)
{
    for (size_t j = 0; j < *k; j++)
        if (out[j].from == from && out[j].dep == dep)
            return out;
    out = xrealloc(out, (*k + 1) * sizeof *out);
    req *q = &out[(*k)++];
    memset(q, 0, sizeof *q);
    q->from = from;
    q->root = from ? -1 : root;
    q->dep = dep;
    dep_texts(r, from, dep, &q->text, &q->full, &q->target, &q->rd);
    return out;
}

/* The dead ends of a failed solve: `first`, and every other requirement
 * that nothing satisfies, of a root or of a package some problem's rules
 * name (a package that fails on one missing dependency usually has more:
 * every one of them is said). Sorted by name. */
static req *dead_ends(rsv *r, const req *first, int nproblems, size_t *n)
{
    Pool *pool = r->pool;
    bool *involved = involved_solvables(r, nproblems);
    size_t k = 0;
    req *out = push_req(r, NULL, &k, first->from, first->root, first->dep);
    for (size_t i = 0; i < r->ndeps; i++) {
        const rsv_dep *d = &r->deps[i];
        if (!is_dead_end(r, d) || (d->eco == RSV_PYPI && held(r, d->name)))
            continue;
        if (d->from ? involved[d->from] : d->root >= 0 && !r->roots[d->root].skipped)
            out = push_req(r, out, &k, d->from, d->root, d->dep);
    }
    /* apt packages' dependencies are not in the side table: their requires */
    for (Id p = 2; p < pool->nsolvables; p++) {
        Solvable *sv = pool->solvables + p;
        if (!involved[p] || ((size_t)p < r->nsolv && r->solv[p].ours) || !sv->repo || !sv->requires)
            continue;
        for (Id *dp = sv->repo->idarraydata + sv->requires; *dp; dp++)
            if (*dp != SOLVABLE_PREREQMARKER && !provided(pool, *dp))
                out = push_req(r, out, &k, p, -1, *dp);
    }
    free(involved);
    qsort(out, k, sizeof *out, req_cmp);
    *n = k;
    return out;
}

/* detail.key = o.from (its element `idx` when idx >= 0), shared. */
static void detail_from(rsv *r, json_object *o, const char *key, const char *from, int idx)
{
    json_object *v;
    if (json_object_object_get_ex(o, from, &v))
        el_detail_take(r->ctx, key, json_object_get(idx >= 0 ? json_object_array_get_idx(v, idx) : v));
}

static const char *member(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

/* The dead ends for a terminal (el_set_text()): one "- " line per name
 * under a first line (just the sentence when there is one name), each
 * excluded version on a line of its own below it, instead of the one line
 * the message strings them into. */
static void dead_ends_text(json_object *list, strbuf *out)
{
    size_t n = json_object_array_length(list);
    if (n > 1)
        sb_addf(out, "%zu packages cannot be resolved from what the indexes serve:", n);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(list, i), *ex;
        sb_addf(out, "%s%s", n > 1 ? "\n  - " : "", member(e, "message"));
        json_object_object_get_ex(e, "excluded", &ex);
        for (size_t k = 0; k < json_object_array_length(ex); k++) {
            json_object *x = json_object_array_get_idx(ex, k);
            sb_addf(out, "\n%s- %s %s: %s", n > 1 ? "      " : "  ", member(e, "package"),
                    member(x, "version"), member(x, "why"));
        }
    }
}

/* The reason of the whole failure, whose advice it prints: a name the
 * index does not have (not_found) before one it lists without versions
 * (no_versions) before one whose versions all miss (no_match). */
static const char *overall_reason(json_object *list)
{
    static const char *const order[] = { "not_found", "no_versions", "no_match" };
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < json_object_array_length(list); i++)
            if (strcmp(member(json_object_array_get_idx(list, i), "reason"), order[k]) == 0)
                return order[k];
    return "no_match";
}

/* PACKAGE_NOT_FOUND for requirement q (nothing served satisfies it) and
 * every other dead end of the solve: one sentence per name. detail.reason
 * is overall_reason() (its advice in util/reasons.def); detail keeps the
 * first name's package, index, requested, closest, excluded, versions and
 * chain; detail.deadEnds has one entry per name. */
static el_code not_found(rsv *r, const req *q, const bfs *b, int nproblems)
{
    size_t n = 0;
    req *all = dead_ends(r, q, nproblems, &n);
    strbuf msg = STRBUF_INIT;
    json_object *list = json_object_new_array();
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(all[j].target, all[i].target) == 0)
            j++;
        if (i)
            sb_adds(&msg, ". ");
        json_object_array_add(list, dead_end(r, all + i, j - i, b, &msg));
        i = j;
    }
    el_fail(r->ctx, EL_PACKAGE_NOT_FOUND, "%s", msg.buf);
    strbuf text = STRBUF_INIT;
    dead_ends_text(list, &text);
    el_set_text(r->ctx, text.buf);
    sb_release(&text);
    /* the first name's facts under the keys a single dead end always had */
    json_object *first = json_object_array_get_idx(list, 0);
    el_detail_str(r->ctx, "reason", overall_reason(list));
    detail_from(r, first, "package", "package", -1);
    detail_from(r, first, "index", "index", -1);
    detail_from(r, first, "readUrl", "readUrl", -1);
    detail_from(r, first, "requested", "requested", 0);
    detail_from(r, first, "closest", "closest", -1);
    detail_from(r, first, "excluded", "excluded", -1);
    detail_from(r, first, "versions", "versions", -1);
    detail_from(r, first, "chain", "chains", 0);
    el_detail_take(r->ctx, "deadEnds", list);
    el_set_retryable(r->ctx, false);
    for (size_t i = 0; i < n; i++)
        req_free(&all[i]);
    free(all);
    sb_release(&msg);
    return EL_PACKAGE_NOT_FOUND;
}

/* The requirement edge that brought solvable p in (for chains), or false
 * when the search never reached it. */
static bool edge_to(rsv *r, const bfs *b, Id p, req *q)
{
    if (b->dist[p] < 0)
        return false;
    memset(q, 0, sizeof *q);
    q->from = b->pred[p];
    q->root = q->from ? -1 : b->proot[p];
    q->dep = b->pdep[p];
    dep_texts(r, q->from, q->dep, &q->text, &q->full, &q->target, &q->rd);
    return true;
}

/* A Conflicts/Breaks rule among the problem rules: "S conflicts with T" with
 * the chain that brought in each. */
static bool conflict_rule(rsv *r, const Queue *rules, const bfs *b, strbuf *msg, json_object *pair,
                          json_object *chains, char **suggestion)
{
    for (int i = 0; i < rules->count; i++) {
        Id source, target, dep;
        if (solver_ruleinfo(r->solver, rules->elements[i], &source, &target, &dep) != SOLVER_RULE_PKG_CONFLICTS)
            continue;
        req qs, qt;
        if (!edge_to(r, b, source, &qs))
            continue;
        if (!edge_to(r, b, target, &qt)) {
            req_free(&qs);
            continue;
        }
        strbuf ls = STRBUF_INIT, lt = STRBUF_INIT;
        json_object *cs = json_object_new_array(), *ct = json_object_new_array();
        chain(r, b, &qs, r->rq->explain_full, &ls, cs);
        chain(r, b, &qt, r->rq->explain_full, &lt, ct);
        char *a = NULL, *bb = NULL;
        char *dt = resolver_deb_dep_text(r->pool, dep);
        char *what = xasprintf("%s conflicts with %s", sname(r, source, &a), dt);
        json_object_array_add(pair, json_object_new_string(what));
        json_object_array_add(pair, json_object_new_string(qt.text));
        json_object_array_add(chains, cs);
        json_object_array_add(chains, ct);
        sb_addf(msg, "`%s` and `%s` cannot both be satisfied (Conflicts/Breaks): %s against %s", what,
                qt.text, ls.buf, lt.buf);
        Id ps = source, pt = target;
        while (b->pred[ps])
            ps = b->pred[ps];
        while (b->pred[pt])
            pt = b->pred[pt];
        *suggestion = xasprintf("drop %s or %s from the spec", r->rq->roots[b->proot[ps]].text,
                                r->rq->roots[b->proot[pt]].text);
        sb_addf(msg, ". Suggestion: %s.", *suggestion);
        free(a);
        free(bb);
        free(dt);
        free(what);
        sb_release(&ls);
        sb_release(&lt);
        req_free(&qs);
        req_free(&qt);
        return true;
    }
    return false;
}

/* The requirements behind the problem rules (the spec's jobs and the
 * packages' requires), each (from, dep) once. */
static size_t problem_reqs(rsv *r, const Queue *rules, req **out)
{
    Solver *solv = r->solver;
    req *reqs = xcalloc((size_t)rules->count + 1, sizeof *reqs);
    size_t nreq = 0;
    for (int i = 0; i < rules->count; i++) {
        Id source, target, dep;
        SolverRuleinfo t = solver_ruleinfo(solv, rules->elements[i], &source, &target, &dep);
        req q = { 0 };
        q.root = -1;
        if (t == SOLVER_RULE_JOB || t == SOLVER_RULE_JOB_NOTHING_PROVIDES_DEP ||
            t == SOLVER_RULE_JOB_UNKNOWN_PACKAGE) {
            const rsv_dep *rd = resolver_find_dep(r, 0, dep);
            if (!rd || rd->root < 0)
                continue;
            q.from = 0;
            q.root = rd->root;
            dep_texts(r, 0, dep, &q.text, &q.full, &q.target, &q.rd);
        } else if (t == SOLVER_RULE_PKG_REQUIRES || t == SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP) {
            q.from = source;
            dep_texts(r, source, dep, &q.text, &q.full, &q.target, &q.rd);
        } else {
            continue;
        }
        q.dep = dep;
        bool dup = false;
        for (size_t k = 0; k < nreq && !dup; k++)
            dup = reqs[k].from == q.from && reqs[k].dep == q.dep;
        if (dup) {
            req_free(&q);
            continue;
        }
        reqs[nreq++] = q;
    }
    *out = reqs;
    return nreq;
}

/* The first requirement nothing satisfies (none matched on the index, or
 * nothing provides it), or -1. */
static int unsatisfied(rsv *r, const req *reqs, size_t nreq)
{
    for (size_t i = 0; i < nreq; i++)
        if (reqs[i].rd && reqs[i].rd->nomatch)
            return (int)i;
    Pool *pool = r->pool;
    for (size_t i = 0; i < nreq; i++)
        if (!pool_whatprovides(pool, reqs[i].dep) ||
            !pool->whatprovidesdata[pool_whatprovides(pool, reqs[i].dep)])
            return (int)i;
    return -1;
}

/* For a requirement `q` nothing satisfies: the reachable requirement on the
 * same name, nearest the spec, that excludes it anyway (else a protected
 * pin's) into *partner. false when there is none. */
static bool find_partner(rsv *r, const bfs *b, const req *q, req *partner)
{
    int bestd = -1;
    for (size_t k = 0; k < r->ndeps; k++) {
        const rsv_dep *d = &r->deps[k];
        if (d->eco != RSV_PYPI || strcmp(d->name, q->target) != 0 ||
            (d->from == q->from && d->dep == q->dep) || d->from == 0)
            continue;
        if (b->dist[d->from] < 0)
            continue;
        req c = { 0 };
        c.from = d->from;
        c.root = -1;
        c.dep = d->dep;
        dep_texts(r, d->from, d->dep, &c.text, &c.full, &c.target, &c.rd);
        if (disjoint(r, q, &c) && (bestd < 0 || b->dist[d->from] < bestd)) {
            req_free(partner);
            *partner = c;
            bestd = b->dist[d->from];
        } else {
            req_free(&c);
        }
    }
    return bestd >= 0 || protected_partner(r, q, partner);
}

/* The message for two requirements that cannot both hold, their chains
 * from the spec in `chains`; returns the suggestion. `nf`: the one nothing
 * satisfies, or NULL. */
static char *pair_text(rsv *r, bfs *b, const req *A, const req *B, const req *nf, strbuf *msg,
                       json_object *detail_conflict, json_object *chains)
{
    strbuf la = STRBUF_INIT, lb = STRBUF_INIT;
    json_object *ca = json_object_new_array(), *cb = json_object_new_array();
    int na = chain(r, b, A, r->rq->explain_full, &la, ca);
    int nb = chain(r, b, B, r->rq->explain_full, &lb, cb);
    /* the longer story first, "against" the shorter one */
    if (nb > na || (nb == na && strcmp(lb.buf, la.buf) < 0)) {
        const req *t = A;
        A = B;
        B = t;
        strbuf ts = la;
        la = lb;
        lb = ts;
        json_object *tj = ca;
        ca = cb;
        cb = tj;
    }
    json_object_array_add(detail_conflict, json_object_new_string(A->text));
    json_object_array_add(detail_conflict, json_object_new_string(B->text));
    json_object_array_add(chains, ca);
    json_object_array_add(chains, cb);
    const req *root = B->from == 0 ? B : A->from == 0 ? A : NULL;
    const req *other = root == B ? A : B;
    char *suggestion;
    if (root && other->from != 0 && !r->rq->roots[root->root].protected_pin)
        suggestion = xasprintf("relax %s to %s", root->text, other->text);
    else if (root && other->from == 0)
        suggestion = xasprintf("remove %s or %s from the spec", A->text, B->text);
    else
        suggestion = xasprintf("pin other versions of the packages that ask for %s and %s", A->text,
                               B->text);
    sb_addf(msg, "`%s` and `%s` cannot both be satisfied: %s against %s", A->text, B->text, la.buf,
            lb.buf);
    if (nf && nf->rd && nf->rd->nomatch && !held(r, nf->target))
        sb_addf(msg, " (and no version of %s that the index serves for this target matches %s)",
                nf->target, nf->text);
    sb_addf(msg, ". Suggestion: %s.", suggestion);
    sb_release(&la);
    sb_release(&lb);
    return suggestion;
}

/* No pair and no conflict rule to tell: the first rules in words. */
static void generic_text(rsv *r, const Queue *rules, const req *reqs, size_t nreq, strbuf *msg,
                         json_object *detail_conflict)
{
    sb_adds(msg, "The requirements cannot be satisfied together");
    for (int i = 0; i < rules->count && i < 3; i++) {
        char *w = rule_words(r, rules->elements[i]);
        sb_addf(msg, "%s%s", i ? "; " : ": ", w);
        free(w);
    }
    sb_addc(msg, '.');
    for (size_t i = 0; i < nreq && i < 2; i++)
        json_object_array_add(detail_conflict, json_object_new_string(reqs[i].text));
}

/* Records the failure: the message (with the derivation under
 * --explain-full) and its details. */
static void explain_fail(rsv *r, strbuf *msg, json_object *detail_conflict, json_object *chains,
                         json_object *derivation, const char *suggestion, int nproblems)
{
    if (r->rq->explain_full) {
        sb_adds(msg, "\nDerivation:");
        for (size_t i = 0; i < json_object_array_length(derivation); i++)
            sb_addf(msg, "\n  - %s", json_object_get_string(json_object_array_get_idx(derivation, i)));
    }
    if (nproblems > 1)
        sb_addf(msg, "%s(%d more problem%s not shown)", r->rq->explain_full ? "\n" : " ", nproblems - 1,
                nproblems > 2 ? "s" : "");
    el_fail(r->ctx, EL_RESOLVE_CONFLICT, "%s", msg->buf);
    el_detail_take(r->ctx, "conflict", detail_conflict);
    el_detail_take(r->ctx, "chains", chains);
    if (suggestion)
        el_detail_str(r->ctx, "suggestion", suggestion);
    el_detail_take(r->ctx, "derivation", derivation);
    el_detail_int(r->ctx, "problems", nproblems);
}

/* rules -> the pair of requirements that cannot both hold -> text. */
el_code resolver_explain(rsv *r, int nproblems)
{
    Queue rules;
    queue_init(&rules);
    solver_findallproblemrules(r->solver, 1, &rules);
    req *reqs;
    size_t nreq = problem_reqs(r, &rules, &reqs);
    bfs b;
    run_bfs(r, &b);
    const req *A = NULL, *B = NULL, *nf = NULL;
    for (size_t i = 0; i < nreq && !A; i++)
        for (size_t k = i + 1; k < nreq && !A; k++)
            if (disjoint(r, &reqs[i], &reqs[k]))
                A = &reqs[i], B = &reqs[k];
    req partner = { 0 };
    el_code rc = EL_RESOLVE_CONFLICT;
    int u = A ? -1 : unsatisfied(r, reqs, nreq);
    if (u >= 0) {
        nf = &reqs[u];
        if (find_partner(r, &b, nf, &partner))
            A = &partner, B = nf;
        else
            rc = not_found(r, nf, &b, nproblems);
    }
    if (A || !nf) {
        strbuf msg = STRBUF_INIT;
        json_object *detail_conflict = json_object_new_array(), *chains = json_object_new_array();
        json_object *derivation = json_object_new_array();
        for (int i = 0; i < rules.count; i++) {
            char *w = rule_words(r, rules.elements[i]);
            json_object_array_add(derivation, json_object_new_string(w));
            free(w);
        }
        char *suggestion = NULL;
        if (A)
            suggestion = pair_text(r, &b, A, B, nf, &msg, detail_conflict, chains);
        else if (!conflict_rule(r, &rules, &b, &msg, detail_conflict, chains, &suggestion))
            generic_text(r, &rules, reqs, nreq, &msg, detail_conflict);
        explain_fail(r, &msg, detail_conflict, chains, derivation, suggestion, nproblems);
        free(suggestion);
        sb_release(&msg);
    }
    req_free(&partner);
    for (size_t i = 0; i < nreq; i++)
        req_free(&reqs[i]);
    free(reqs);
    bfs_free(&b);
    queue_free(&rules);
    return rc;
}

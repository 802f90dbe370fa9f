/* resolver_conda.c — conda in the one pool: every record of the channels as
 * a `conda:<name>` solvable whose EVR is its rank in conda's preference
 * (indexes/conda conda_records_rank(): version, build_number, platform over
 * noarch, timestamp, build; records with track_features, or the legacy
 * `features`, below all others, as conda's solvers de-prioritise them),
 * `depends` match specs as rank
 * intervals, `constrains` as conflicts with the records they exclude, and
 * the target's virtual packages as installed facts. Owns `struct
 * rsv_conda`; knows nothing of repodata.json (indexes/conda does). */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "condaspec.h"
#include "pep508.h"
#include "resolver_internal.h"

typedef struct cname {
    const char *name;           /* conda name (the records') */
    char *pname;                /* "conda:<name>" */
    const conda_record **recs;  /* ascending preference: recs[k] has rank k+1 */
    const char **chan;          /* channel URL of each; NULL: virtual */
    size_t n;
    size_t *ranks;              /* 1..n */
    conda_version **vers;       /* each record's version, parsed once (NULL:
                                   not a conda version) */
    bool virt;
    char *pypi;                 /* its PEP 503 name when a record is a Python
                                   package (depends on `python`), else NULL:
                                   what a record without `purls` installs */
} cname;

/* A dependency text already turned into a pool dependency: repodata repeats
 * the same few texts ("python >=3.9") across thousands of records. */
typedef struct memo {
    const char *text;
    bool invert;
    Id dep;
    bool any;
    const char *name;           /* the package it is about */
} memo;

struct rsv_conda {
    cname *names;               /* sorted by name */
    size_t n;
    void *memo;                 /* tsearch tree of memo (from r->mem) */
};

static int memo_cmp(const void *x, const void *y)
{
    const memo *a = x, *b = y;
    if (a->invert != b->invert)
        return a->invert ? 1 : -1;
    return strcmp(a->text, b->text);
}

/* One record as found, before a name's records are chosen. */
typedef struct found {
    const conda_record *rec;
    const char *chan;
    size_t order;               /* the channel's priority (0 first) */
} found;

static int found_cmp(const void *x, const void *y)
{
    const found *a = x, *b = y;
    int c = strcmp(a->rec->name, b->rec->name);
    if (c)
        return c;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if ((c = strcmp(a->rec->subdir ? a->rec->subdir : "", b->rec->subdir ? b->rec->subdir : "")))
        return c;
    return strcmp(a->rec->fn, b->rec->fn);
}

/* The file name without its extension. */
static size_t stem_len(const char *fn)
{
    size_t n = strlen(fn);
    if (n > 6 && strcmp(fn + n - 6, ".conda") == 0)
        return n - 6;
    if (n > 8 && strcmp(fn + n - 8, ".tar.bz2") == 0)
        return n - 8;
    return n;
}

/* One name of one subdir's load, with its channel's priority. */
typedef struct nref {
    const char *name;
    conda_repodata *rd;
    size_t idx;                 /* among rd's names */
    const char *chan;
    size_t order;               /* the channel's priority (0 first) */
    size_t sub;                 /* the subdir's place in the set */
} nref;

static int nref_cmp(const void *x, const void *y)
{
    const nref *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* Every name of every subdir's load, sorted by name (the records stay
 * where they are until a name is reached: conda_repodata_records_at()). */
static nref *collect(const conda_channel_set *set, size_t *nout)
{
    size_t n = 0, cap = 0, norder = 0;
    nref *f = NULL;
    const char *last = NULL;
    for (size_t i = 0; set && i < set->n_subdirs; i++) {
        const conda_subdir_load *sl = &set->subdirs[i];
        if (!last || strcmp(last, sl->channel) != 0) {
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = strcmp(set->subdirs[j].channel, sl->channel) == 0;
            if (!seen)
                norder++;
            last = sl->channel;
        }
        size_t nn = sl->repodata ? conda_repodata_n_names(sl->repodata) : 0;
        for (size_t k = 0; k < nn; k++) {
            if (n == cap)
                f = xrealloc(f, (cap = cap ? 2 * cap : 256) * sizeof *f);
            f[n++] = (nref){conda_repodata_name_at(sl->repodata, k), sl->repodata, k, sl->channel,
                            norder - 1, i};
        }
    }
    if (n)
        qsort(f, n, sizeof *f, nref_cmp);
    *nout = n;
    return f;
}

typedef struct ordered {
    const conda_record *rec;
    const char *chan;
    size_t rank;                /* conda_records_rank() */
} ordered;

static int ordered_cmp(const void *x, const void *y)
{
    const ordered *a = x, *b = y;
    /* a record with legacy features ranks with the trackers: conda takes it
     * only with a tracker installed, which it minimises before versions */
    bool atf = a->rec->n_track_features + a->rec->n_features > 0,
         btf = b->rec->n_track_features + b->rec->n_features > 0;
    if (atf != btf)
        return atf ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return strcmp(a->rec->fn, b->rec->fn);
}

/* Lays out one name's records f[0..n) (one channel's, sorted by subdir and
 * file name): a .tar.bz2 beside the .conda of the same build is dropped,
 * the rest ordered by preference. */
static void lay_out(rsv *r, cname *cn, const found *f, size_t n)
{
    ordered *o = xcalloc(n, sizeof *o);
    const conda_record **recs = xcalloc(n, sizeof *recs);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && strcmp(o[m - 1].rec->subdir, f[i].rec->subdir) == 0 &&
            stem_len(o[m - 1].rec->fn) == stem_len(f[i].rec->fn) &&
            strncmp(o[m - 1].rec->fn, f[i].rec->fn, stem_len(f[i].rec->fn)) == 0)
            continue; /* ".conda" sorts before ".tar.bz2": the .conda is kept */
        o[m].rec = f[i].rec;
        o[m].chan = f[i].chan;
        recs[m++] = f[i].rec;
    }
    size_t *rank = xcalloc(m, sizeof *rank);
    conda_records_rank(recs, m, rank);
    for (size_t i = 0; i < m; i++)
        o[i].rank = rank[i];
    qsort(o, m, sizeof *o, ordered_cmp);
    cn->name = f[0].rec->name;
    cn->pname = xasprintf("conda:%s", cn->name);
    cn->n = m;
    cn->recs = arena_alloc(r->mem, m * sizeof *cn->recs);
    cn->chan = arena_alloc(r->mem, m * sizeof *cn->chan);
    cn->ranks = arena_alloc(r->mem, m * sizeof *cn->ranks);
    cn->vers = xcalloc(m, sizeof *cn->vers);
    for (size_t i = 0; i < m; i++) {
        cn->recs[i] = o[i].rec;
        cn->chan[i] = o[i].chan;
        cn->ranks[i] = i + 1;
        cn->vers[i] = conda_version_parse(o[i].rec->version, strlen(o[i].rec->version), NULL);
    }
    free(rank);
    free(recs);
    free(o);
}

static int cname_cmp(const void *x, const void *y)
{
    return strcmp(((const cname *)x)->name, ((const cname *)y)->name);
}

static const cname *find_name(const struct rsv_conda *c, const char *name)
{
    cname key = {.name = name};
    return bsearch(&key, c->names, c->n, sizeof *c->names, cname_cmp);
}

/* The virtual packages as one-record names. */
static void add_virtual(rsv *r, struct rsv_conda *c)
{
    for (size_t i = 0; i < r->conda_nvirt; i++) {
        const conda_virtual *v = &r->conda_virt[i];
        conda_record *rec = arena_alloc(r->mem, sizeof *rec);
        memset(rec, 0, sizeof *rec);
        rec->name = v->name;
        rec->version = v->version;
        rec->build = v->build;
        rec->fn = v->name;
        rec->subdir = "";
        cname *cn = &c->names[c->n++];
        memset(cn, 0, sizeof *cn);
        cn->name = v->name;
        cn->pname = xasprintf("conda:%s", v->name);
        cn->n = 1;
        cn->recs = arena_alloc(r->mem, sizeof *cn->recs);
        cn->recs[0] = rec;
        cn->chan = arena_alloc(r->mem, sizeof *cn->chan);
        cn->chan[0] = NULL;
        cn->ranks = arena_alloc(r->mem, sizeof *cn->ranks);
        cn->ranks[0] = 1;
        cn->vers = xcalloc(1, sizeof *cn->vers);
        cn->vers[0] = conda_version_parse(v->version, strlen(v->version), NULL);
        cn->virt = true;
    }
}

static bool is_virtual_name(const rsv *r, const char *name)
{
    for (size_t i = 0; i < r->conda_nvirt; i++)
        if (strcmp(r->conda_virt[i].name, name) == 0)
            return true;
    return false;
}

/* The names of `f` (sorted by name): group g is f[start[g] .. start[g+1]). */
typedef struct groups {
    size_t *start;
    const char **name;
    size_t n;
} groups;

static groups group(const nref *f, size_t n)
{
    groups g = { xcalloc(n + 1, sizeof *g.start), xcalloc(n + 1, sizeof *g.name), 0 };
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(f[i].name, f[i - 1].name) != 0) {
            g.start[g.n] = i;
            g.name[g.n++] = f[i].name;
        }
    g.start[g.n] = n;
    return g;
}

static int name_cmp(const void *key, const void *elt)
{
    return strcmp(key, *(const char *const *)elt);
}

/* Marks the group named by the match spec text `t` (its name: after any
 * `channel::`, up to the version) and queues it when new. */
static void reach(const groups *g, bool *seen, size_t *queue, size_t *nq, const char *t)
{
    const char *c = strstr(t, "::");
    const char *s = c ? c + 2 : t;
    while (*s == ' ')
        s++;
    char name[256];
    size_t len = strcspn(s, " =<>!~[,|");
    if (!len || len >= sizeof name)
        return;
    memcpy(name, s, len);
    name[len] = '\0';
    const char **hit = bsearch(name, g->name, g->n, sizeof *g->name, name_cmp);
    size_t k = hit ? (size_t)(hit - g->name) : g->n;
    if (hit && !seen[k]) {
        seen[k] = true;
        queue[(*nq)++] = k;
    }
}

/* Which names the roots can reach through `depends` (any record of the
 * name, any channel: a superset of what strict priority keeps). A channel
 * the size of conda-forge holds hundreds of thousands of records, and
 * an environment reaches a few thousand names; the rest can never be
 * installed, so they stay out of the pool (as conda's and rattler's
 * loaders leave them out). A root whose name is a glob reaches all. */
static bool *reachable(const rsv *r, const nref *f, const groups *g)
{
    bool *seen = xcalloc(g->n + 1, sizeof *seen);
    size_t *queue = xcalloc(g->n + 1, sizeof *queue), nq = 0;
    for (size_t i = 0; i < r->nroots; i++) {
        if (r->roots[i].eco != RSV_CONDA)
            continue;
        const char *t = r->roots[i].r->text;
        conda_matchspec *ms = conda_matchspec_parse(t, strlen(t), NULL);
        if (ms && strchr(ms->name, '*'))
            for (size_t k = 0; k < g->n; k++)
                seen[k] = true;
        else if (ms)
            reach(g, seen, queue, &nq, ms->name);
        conda_matchspec_free(ms);
    }
    for (size_t q = 0; q < nq; q++)
        for (size_t i = g->start[queue[q]]; i < g->start[queue[q] + 1]; i++) {
            size_t m = 0;
            const conda_record *const *recs = conda_repodata_records_at(f[i].rd, f[i].idx, &m);
            for (size_t j = 0; j < m; j++)
                for (size_t k = 0; k < recs[j]->n_depends; k++)
                    reach(g, seen, queue, &nq, recs[j]->depends[k]);
        }
    free(queue);
    return seen;
}

/* The names the roots reach: strict channel priority (a name's records
 * from the first channel that has it), the virtual packages replacing any
 * record of theirs a channel serves. */
static struct rsv_conda *lay_out_names(rsv *r)
{
    size_t n = 0;
    nref *f = collect(r->conda_set, &n);
    groups g = group(f, n);
    bool *keep = reachable(r, f, &g);
    struct rsv_conda *c = xcalloc(1, sizeof *c);
    c->names = xcalloc(g.n + r->conda_nvirt + 1, sizeof *c->names);
    for (size_t k = 0; k < g.n; k++) {
        size_t i = g.start[k], j = g.start[k + 1];
        if (!keep[k] || is_virtual_name(r, f[i].name))
            continue;
        found *recs = NULL;
        size_t m = 0, cap = 0;
        for (size_t e = i; e < j && f[e].order == f[i].order; e++) {
            size_t nr = 0;
            const conda_record *const *rs = conda_repodata_records_at(f[e].rd, f[e].idx, &nr);
            for (size_t q = 0; q < nr; q++) {
                if (m == cap)
                    recs = xrealloc(recs, (cap = cap ? 2 * cap : 16) * sizeof *recs);
                recs[m++] = (found){rs[q], f[e].chan, f[e].order};
            }
        }
        if (m) {
            qsort(recs, m, sizeof *recs, found_cmp);
            lay_out(r, &c->names[c->n++], recs, m);
        }
        free(recs);
    }
    free(keep);
    free(g.start);
    free(g.name);
    add_virtual(r, c);
    qsort(c->names, c->n, sizeof *c->names, cname_cmp);
    free(f);
    return c;
}

/* Whether a record satisfies a match spec (its channel too, when named). */
static bool spec_match(const conda_matchspec *ms, const conda_record *rec,
                       const conda_version *v, const char *chan)
{
    if (!conda_matchspec_match_parsed(ms, rec->name, v, rec->version, rec->build,
                                      rec->build_number))
        return false;
    if (ms->subdir && (!rec->subdir || strcmp(ms->subdir, rec->subdir) != 0))
        return false;
    if (!ms->channel)
        return true;
    if (!chan)
        return false;
    const char *why = NULL;
    char *url = conda_channel_url(ms->channel, &why);
    bool ok = url && strcmp(url, chan) == 0;
    free(url);
    return ok;
}

/* The dependency admitting the records of ms's name that match it (or,
 * `invert`, that do not). *any says whether any does; a name no channel
 * has gives a dependency nothing provides. */
static Id spec_dep(rsv *r, const conda_matchspec *ms, bool invert, bool *any)
{
    const cname *cn = find_name(r->conda, ms->name);
    *any = false;
    if (!cn) {
        char *pname = xasprintf("conda:%s", ms->name);
        Id d = resolver_interval_dep(r->pool, pname, NULL, 0, NULL, 0);
        free(pname);
        return d;
    }
    bool *keep = xcalloc(cn->n, sizeof *keep);
    for (size_t i = 0; i < cn->n; i++) {
        keep[i] = spec_match(ms, cn->recs[i], cn->vers[i], cn->chan[i]) != invert;
        *any = *any || keep[i];
    }
    rsv_interval *iv = xcalloc(cn->n, sizeof *iv);
    size_t niv = resolver_intervals(keep, NULL, cn->n, iv);
    Id d = resolver_interval_dep(r->pool, cn->pname, cn->ranks, cn->n, iv, niv);
    free(iv);
    free(keep);
    return d;
}

/* The dependency for one depends (or, `invert`, constrains) text, through
 * the memo; NULL when the text does not parse (the reader checked it does). */
static const memo *text_dep(rsv *r, const char *text, bool invert)
{
    memo key = {text, invert, 0, false, NULL};
    memo **hit = tfind(&key, &r->conda->memo, memo_cmp);
    if (hit)
        return *hit;
    conda_matchspec *ms = conda_matchspec_parse(text, strlen(text), NULL);
    if (!ms)
        return NULL;
    memo *m = arena_alloc(r->mem, sizeof *m);
    m->text = text;
    m->invert = invert;
    m->dep = spec_dep(r, ms, invert, &m->any);
    m->name = arena_strdup(r->mem, ms->name);
    conda_matchspec_free(ms);
    tsearch(m, &r->conda->memo, memo_cmp);
    return m;
}

/* The pool name a tracker of feature `f` provides. */
static Id feature_id(Pool *pool, const char *f)
{
    char *n = xasprintf("conda-feature:%s", f);
    Id id = pool_str2id(pool, n, 1);
    free(n);
    return id;
}

/* The legacy `features` (old channels): as conda does, a record with
 * features needs, for each, an installed record whose track_features names
 * it (which the solve disfavours like every tracker); a record tracking a
 * feature provides it. So without a tracker such a build is never taken. */
static void add_feature_deps(rsv *r, Id sp, const conda_record *rec, Repo *repo)
{
    Pool *pool = r->pool;
    Solvable *s = pool->solvables + sp;
    for (size_t i = 0; i < rec->n_track_features; i++)
        s->provides = repo_addid_dep(repo, s->provides, feature_id(pool, rec->track_features[i]),
                                     0);
    for (size_t i = 0; i < rec->n_features; i++) {
        Id dep = feature_id(pool, rec->features[i]);
        s->requires = repo_addid_dep(repo, s->requires, dep, 0);
        char *text = arena_sprintf(r->mem, "a record tracking the feature `%s`",
                                   rec->features[i]);
        resolver_add_dep(r, sp, -1, dep, RSV_CONDA, pool_id2str(pool, dep), text, text,
                         "features");
    }
}

/* depends (requires) and constrains (conflicts with what they exclude) of
 * solvable sp. */
static void add_deps(rsv *r, Id sp, const conda_record *rec, Repo *repo)
{
    Pool *pool = r->pool;
    for (size_t i = 0; i < rec->n_depends + rec->n_constrains; i++) {
        bool req = i < rec->n_depends;
        const char *text = req ? rec->depends[i] : rec->constrains[i - rec->n_depends];
        const memo *m = text_dep(r, text, !req);
        if (!m || (!req && !m->any))
            continue;
        Solvable *s = pool->solvables + sp;
        if (req)
            s->requires = repo_addid_dep(repo, s->requires, m->dep, 0);
        else
            s->conflicts = repo_addid_dep(repo, s->conflicts, m->dep, 0);
        rsv_dep *rd = resolver_add_dep(r, sp, -1, m->dep, RSV_CONDA, m->name, text, text,
                                       req ? "depends" : "constrains");
        rd->nomatch = req && !m->any;
    }
    add_feature_deps(r, sp, rec, repo);
}

/* A record that is a Python package: one that depends on `python` (noarch
 * python records and those built for one interpreter alike). Such a
 * record installs the PyPI distribution of its name (conda-forge names
 * most so), unless repodata gives its `purls` (record_installs()). */
static bool is_python_package(const conda_record *rec)
{
    for (size_t i = 0; i < rec->n_depends; i++) {
        const char *d = rec->depends[i];
        if (strncmp(d, "python", 6) == 0 && (d[6] == '\0' || d[6] == ' ' || d[6] == '>' ||
                                            d[6] == '<' || d[6] == '=' || d[6] == '!'))
            return true;
    }
    return false;
}

/* Whether record k of cn installs the PyPI distribution `canon` (PEP 503):
 * one its `purls` name when repodata gives them (`matplotlib-base` installs
 * `matplotlib`; an empty list, none), else its own name's when it is a
 * Python package. */
static bool record_installs(const cname *cn, size_t k, const char *canon)
{
    const conda_record *rec = cn->recs[k];
    if (cn->virt)
        return false;
    if (!rec->has_purls)
        return cn->pypi && strcmp(cn->pypi, canon) == 0 && is_python_package(rec);
    for (size_t i = 0; i < rec->n_pypi_names; i++) {
        char *n = pypi_name_canonical(rec->pypi_names[i]);
        bool same = strcmp(n, canon) == 0;
        free(n);
        if (same && strcmp(cn->name, "python") != 0)
            return true;
    }
    return false;
}

/* The PyPI distributions record k of cn installs (record_installs()), PEP
 * 503 names, distinct; the caller frees each and the vector. */
static void record_pypi(const cname *cn, size_t k, ptrvec *out)
{
    const conda_record *rec = cn->recs[k];
    if (!rec->has_purls) {
        if (cn->pypi && !cn->virt && is_python_package(rec))
            ptrvec_push(out, xstrdup(cn->pypi));
        return;
    }
    for (size_t i = 0; i < rec->n_pypi_names; i++) {
        char *n = pypi_name_canonical(rec->pypi_names[i]);
        bool dup = strcmp(cn->name, "python") == 0;
        for (size_t j = 0; j < out->len && !dup; j++)
            dup = strcmp(out->items[j], n) == 0;
        if (dup)
            free(n);
        else
            ptrvec_push(out, n);
    }
}

static Id add_solvable(rsv *r, Repo *repo, const cname *cn, size_t k)
{
    Pool *pool = r->pool;
    Id sp = repo_add_solvable(repo);
    Solvable *s = pool->solvables + sp;
    char evr[16];
    resolver_rank_evr(cn->ranks[k], evr);
    s->name = pool_str2id(pool, cn->pname, 1);
    s->evr = pool_str2id(pool, evr, 1);
    s->arch = ARCH_ALL;
    s->provides = repo_addid_dep(repo, s->provides, pool_rel2id(pool, s->name, s->evr, REL_EQ, 1), 0);
    rsv_solv *rs = resolver_solv(r, sp);
    rs->ours = true;
    rs->eco = RSV_CONDA;
    rs->name = cn->name;
    rs->version = cn->recs[k]->version;
    rs->crec = cn->recs[k];
    rs->cchannel = cn->chan[k];
    /* the PyPI distributions it installs, each at its version's PyPI rank,
     * and the name a PyPI copy of one conflicts with (conda wins) */
    ptrvec dists = PTRVEC_INIT;
    record_pypi(cn, k, &dists);
    for (size_t i = 0; i < dists.len; i++) {
        const char *canon = dists.items[i];
        char *cp = xasprintf("conda-pypi:%s", canon);
        s->provides = repo_addid_dep(repo, s->provides, pool_str2id(pool, cp, 1), 0);
        free(cp);
        size_t prank = resolver_pypi_rank_of(r, canon, cn->recs[k]->version);
        if (!prank)
            continue;
        char *pn = xasprintf("pypi:%s", canon);
        resolver_rank_evr(prank, evr);
        s->provides = repo_addid_dep(repo, s->provides,
                                     pool_rel2id(pool, pool_str2id(pool, pn, 1),
                                                 pool_str2id(pool, evr, 1), REL_EQ, 1), 0);
        free(pn);
    }
    for (size_t i = 0; i < dists.len; i++)
        free(dists.items[i]);
    ptrvec_release(&dists);
    return sp;
}

void resolver_conda_layout(rsv *r)
{
    if (r->conda)
        return;
    r->conda = lay_out_names(r);
    for (size_t i = 0; i < r->conda->n; i++) {
        cname *cn = &r->conda->names[i];
        bool py = false;
        for (size_t k = 0; k < cn->n && !py && !cn->virt; k++)
            py = is_python_package(cn->recs[k]);
        cn->pypi = py && strcmp(cn->name, "python") != 0 ? pypi_name_canonical(cn->name) : NULL;
    }
}

/* Whether some record of the solve installs PyPI distribution `canon`. */
static bool conda_installs(const rsv *r, const char *canon)
{
    for (size_t i = 0; r->conda && i < r->conda->n; i++)
        for (size_t k = 0; k < r->conda->names[i].n; k++)
            if (record_installs(&r->conda->names[i], k, canon))
                return true;
    return false;
}

const char *resolver_conda_pypi_owner(const rsv *r, const char *canon)
{
    if (!conda_installs(r, canon))
        return NULL;
    return arena_sprintf(r->mem, "conda-pypi:%s", canon);
}

const char **resolver_conda_pypi_versions(const rsv *r, const char *canon, size_t *n)
{
    *n = 0;
    size_t total = 0;
    for (size_t i = 0; r->conda && i < r->conda->n; i++)
        total += r->conda->names[i].n;
    if (!total || !conda_installs(r, canon))
        return NULL;
    const char **v = xcalloc(total + 1, sizeof *v);
    for (size_t i = 0; i < r->conda->n; i++)
        for (size_t k = 0; k < r->conda->names[i].n; k++)
            if (record_installs(&r->conda->names[i], k, canon))
                v[(*n)++] = r->conda->names[i].recs[k]->version;
    return v;
}

void resolver_conda_add(rsv *r)
{
    Pool *pool = r->pool;
    resolver_conda_layout(r);
    if (!r->repo_conda)
        r->repo_conda = repo_create(pool, "conda");
    if (!pool->installed)
        pool_set_installed(pool, repo_create(pool, "installed"));
    for (size_t i = 0; i < r->conda->n; i++) {
        const cname *cn = &r->conda->names[i];
        Repo *repo = cn->virt ? pool->installed : r->repo_conda;
        for (size_t k = 0; k < cn->n; k++) {
            Id sp = add_solvable(r, repo, cn, k);
            add_deps(r, sp, cn->recs[k], repo);
        }
    }
}

el_code resolver_conda_jobs(rsv *r)
{
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_CONDA)
            continue;
        const char *text = rt->r->text;
        conda_error err = {0, NULL};
        conda_matchspec *ms = conda_matchspec_parse(text, strlen(text), &err);
        if (!ms) {
            el_fail(r->ctx, EL_SPEC_INVALID, "%s: `%s`: column %zu: %s",
                    rt->r->field ? rt->r->field : "spec", text, err.column,
                    err.message ? err.message : "not a conda match spec");
            if (rt->r->field)
                el_detail_str(r->ctx, "field", rt->r->field);
            return EL_SPEC_INVALID;
        }
        bool any = false;
        Id d = spec_dep(r, ms, false, &any);
        rt->dep = d;
        rsv_dep *rd = resolver_add_dep(r, 0, (int)i, d, RSV_CONDA, arena_strdup(r->mem, ms->name),
                                       text, text, "spec");
        rd->nomatch = !any;
        conda_matchspec_free(ms);
        queue_push2(&r->job, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, d);
    }
    return EL_OK;
}

/* The record versions of `name` in ascending preference, distinct (the
 * channels' words for what a spec could ask for), or none. */
static json_object *versions_of(const rsv *r, const char *name)
{
    json_object *v = json_object_new_array();
    const cname *cn = r->conda ? find_name(r->conda, name) : NULL;
    for (size_t i = 0; cn && !cn->virt && i < cn->n; i++) {
        const char *ver = cn->recs[i]->version;
        bool seen = false;
        for (size_t k = 0; k < json_object_array_length(v) && !seen; k++)
            seen = strcmp(json_object_get_string(json_object_array_get_idx(v, k)), ver) == 0;
        if (!seen)
            json_object_array_add(v, json_object_new_string(ver));
    }
    return v;
}

el_code resolver_conda_not_found(rsv *r)
{
    for (size_t i = 0; i < r->ndeps; i++) {
        const rsv_dep *d = &r->deps[i];
        if (d->eco != RSV_CONDA || d->from != 0 || d->root < 0 || !d->nomatch)
            continue;
        const resolve_root *rr = &r->rq->roots[d->root];
        json_object *vers = versions_of(r, d->name), *chans = json_object_new_array();
        strbuf where = STRBUF_INIT;
        for (size_t k = 0; r->conda_set && k < r->conda_set->n_subdirs; k++) {
            const conda_subdir_load *sl = &r->conda_set->subdirs[k];
            if (k && strcmp(sl->channel, r->conda_set->subdirs[k - 1].channel) == 0)
                continue;
            sb_addf(&where, "%s%s", k ? ", " : "", sl->channel);
            json_object_array_add(chans, json_object_new_string(sl->channel));
        }
        size_t nv = json_object_array_length(vers);
        if (nv)
            el_fail(r->ctx, EL_PACKAGE_NOT_FOUND,
                    "`%s` (%s): no record of `%s` in %s matches it; they have %s %s to %s",
                    rr->text, rr->field ? rr->field : "spec", d->name, where.buf, d->name,
                    json_object_get_string(json_object_array_get_idx(vers, 0)),
                    json_object_get_string(json_object_array_get_idx(vers, nv - 1)));
        else
            el_fail(r->ctx, EL_PACKAGE_NOT_FOUND, "`%s` (%s): `%s` is in none of the channels: %s",
                    rr->text, rr->field ? rr->field : "spec", d->name, where.buf);
        el_detail_str(r->ctx, "reason", nv ? "no_match" : "not_found");
        el_detail_str(r->ctx, "package", d->name);
        el_detail_str(r->ctx, "requested", rr->text);
        if (rr->field)
            el_detail_str(r->ctx, "field", rr->field);
        el_detail_take(r->ctx, "channels", chans);
        el_detail_take(r->ctx, "versions", vers);
        sb_release(&where);
        return EL_PACKAGE_NOT_FOUND;
    }
    return EL_OK;
}

void resolver_conda_free(rsv *r)
{
    if (!r->conda)
        return;
    for (size_t i = 0; i < r->conda->n; i++) {
        cname *cn = &r->conda->names[i];
        for (size_t k = 0; k < cn->n; k++)
            conda_version_free(cn->vers[k]);
        free(cn->vers);
        free(cn->pname);
        free(cn->pypi);
    }
    while (r->conda->memo) /* tdestroy() is GNU's; this is POSIX */
        tdelete(*(memo **)r->conda->memo, &r->conda->memo, memo_cmp);
    free(r->conda->names);
    free(r->conda);
    r->conda = NULL;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void resolver_conda_answer(rsv *r, strbuf *out)
{
    Queue q;
    queue_init(&q);
    solver_get_decisionqueue(r->solver, &q);
    ptrvec lines = {0};
    for (int i = 0; i < q.count; i++) {
        Id p = q.elements[i];
        if (p <= 0 || (size_t)p >= r->nsolv || !r->solv[p].ours || r->solv[p].eco != RSV_CONDA ||
            !r->solv[p].cchannel)
            continue;
        const conda_record *rec = r->solv[p].crec;
        ptrvec_push(&lines, xasprintf("%s %s %s %s/%s/%s", rec->name, rec->version, rec->build,
                                      r->solv[p].cchannel, rec->subdir, rec->fn));
    }
    qsort(lines.items, lines.len, sizeof(void *), str_cmp);
    for (size_t i = 0; i < lines.len; i++) {
        sb_addf(out, "%s\n", (char *)lines.items[i]);
        free(lines.items[i]);
    }
    ptrvec_release(&lines);
    queue_free(&q);
}

/* resolver_lock.c — the solved pool as a lock_doc: every installed package
 * reachable from the roots with its real version (never a rank), who asked
 * for it, each dependency edge bound to the version that satisfies it, the
 * artifacts with canonical URLs and hashes, the inputs with their snapshot
 * identities, the target and the options. Everything emitted is sorted in
 * byte order, so index entry order never shows. Does not write YAML: the
 * lockfile module does. */
#include <stdlib.h>
#include <string.h>

#include <solv/bitmap.h>
#include <solv/evr.h>
#include <solv/knownid.h>
#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solvable.h>

#include "resolver_internal.h"

/* A package under construction. */
typedef struct pkg {
    lock_package lp;
    Id p;                       /* the base solvable (0 for npm nodes: use node) */
    ptrvec extras;              /* const char * */
    ptrvec reqby;               /* char * (malloc'd) */
    ptrvec edges;               /* lock_edge * (malloc'd) */
} pkg;

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int nullcmp(const char *a, const char *b)
{
    if (!a || !b)
        return a ? 1 : b ? -1 : 0;
    return strcmp(a, b);
}

static int edge_cmp(const void *a, const void *b)
{
    const lock_edge *x = *(const lock_edge *const *)a, *y = *(const lock_edge *const *)b;
    int c;
    if ((c = strcmp(x->ecosystem, y->ecosystem)) || (c = strcmp(x->name, y->name)) ||
        (c = nullcmp(x->version, y->version)) || (c = strcmp(x->kind, y->kind)))
        return c;
    if ((c = nullcmp(x->spec, y->spec)))
        return c;
    return nullcmp(x->alias, y->alias);
}

static int pkg_cmp(const void *a, const void *b)
{
    const pkg *x = *(const pkg *const *)a, *y = *(const pkg *const *)b;
    int c;
    if ((c = strcmp(x->lp.ecosystem, y->lp.ecosystem)) || (c = strcmp(x->lp.name, y->lp.name)) ||
        (c = strcmp(x->lp.version, y->lp.version)))
        return c;
    return nullcmp(x->lp.path, y->lp.path);
}

static int input_cmp(const void *a, const void *b)
{
    const lock_input *x = a, *y = b;
    int c = strcmp(x->ecosystem, y->ecosystem);
    return c ? c : strcmp(x->url, y->url);
}

static void push_unique(ptrvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return;
    ptrvec_push(v, xstrdup(s));
}

static const char **str_array(arena *a, ptrvec *v, bool free_items)
{
    if (v->len)
        qsort(v->items, v->len, sizeof(void *), str_cmp);
    const char **out = arena_alloc(a, (v->len + 1) * sizeof *out);
    size_t n = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (n && strcmp(out[n - 1], v->items[i]) == 0)
            continue;
        out[n++] = arena_strdup(a, v->items[i]);
    }
    out[n] = NULL;
    if (free_items)
        for (size_t i = 0; i < v->len; i++)
            free(v->items[i]);
    return out;
}

/* The names of a build option as the lock records them: PEP 503
 * normalized (":all:" as it is), sorted, once each; NULL for none. */
static const char **build_names(arena *a, const char *const *names, size_t n)
{
    if (!n)
        return NULL;
    ptrvec v = PTRVEC_INIT;
    for (size_t i = 0; i < n; i++) {
        char *copy = xstrdup(names[i]), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
            ptrvec_push(&v, strcmp(t, ":all:") == 0 ? xstrdup(t) : pypi_name_canonical(t));
        free(copy);
    }
    if (!v.len) {
        ptrvec_release(&v);
        return NULL;
    }
    const char **out = str_array(a, &v, true);
    ptrvec_release(&v);
    return out;
}

static const char *eco_name(int eco)
{
    return eco == RSV_PYPI ? "pypi" : eco == RSV_CONDA ? "conda" : "npm";
}

/* SPDX separates tokens by any whitespace, and a policy reads the
 * recorded expression so: runs of spaces become one. */
const char *resolver_license_of(const char *declared, arena *a)
{
    if (!declared)
        return NULL;
    strbuf sb = STRBUF_INIT;
    for (const char *s = declared + strspn(declared, " \t"); *s;) {
        size_t n = strcspn(s, " \t");
        sb_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)n, s);
        s += n;
        s += strspn(s, " \t");
    }
    const char *out = sb.len && !lock_license_problem(sb.buf) ? arena_strdup(a, sb.buf) : NULL;
    sb_release(&sb);
    return out;
}

/* A deb's source (the Packages `Source:` field, libsolv's SOURCENAME and
 * SOURCEEVR), each only where it differs from the binary's own: what
 * Debian's advisories and a policy's source rules name. */
static void lock_deb_origin(Pool *pool, Solvable *s, lock_package *lp, arena *a)
{
    Id sn = solvable_lookup_id(s, SOLVABLE_SOURCENAME);
    Id se = solvable_lookup_id(s, SOLVABLE_SOURCEEVR);
    if (sn && sn != s->name)
        lp->src_name = arena_strdup(a, pool_id2str(pool, sn));
    if (se && se != s->evr)
        lp->src_version = arena_strdup(a, pool_id2str(pool, se));
}

static bool installed(const rsv *r, Id p)
{
    return solver_get_decisionlevel(r->solver, p) > 0;
}

/* The label a dependent gives in requested_by. */
static char *label_of(rsv *r, Id p)
{
    Pool *pool = r->pool;
    if ((size_t)p < r->nsolv && r->solv[p].ours) {
        const rsv_solv *s = &r->solv[p];
        return xasprintf("%s:%s@%s", eco_name(s->eco), s->name, s->version);
    }
    Solvable *s = pool->solvables + p;
    return xasprintf("deb:%s@%s", pool_id2str(pool, s->name), pool_id2str(pool, s->evr));
}

static const apt_repo_info *repo_info(rsv *r, Repo *repo)
{
    size_t n = 0;
    const apt_repo_info *ri = r->al ? apt_loader_repos(r->al, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        if (repo->name && strcmp(ri[i].repo_name, repo->name) == 0)
            return &ri[i];
    return NULL;
}

/* The highest installed provider of dep (0 if none). */
static Id bound(rsv *r, Id dep)
{
    Pool *pool = r->pool;
    Id p, pp, best = 0;
    FOR_PROVIDES(p, pp, dep) {
        if (!installed(r, p))
            continue;
        if (!best || pool_evrcmp(pool, pool->solvables[p].evr, pool->solvables[best].evr, EVRCMP_COMPARE) > 0)
            best = p;
    }
    return best;
}

static pkg *pkg_for(rsv *r, ptrvec *pkgs, Id *map, Id p, arena *a)
{
    Pool *pool = r->pool;
    const rsv_solv *rs = (size_t)p < r->nsolv && r->solv[p].ours ? &r->solv[p] : NULL;
    Id key = p;
    if (rs && rs->extra) {
        /* an extra solvable folds into its base package */
        Solvable *s = pool->solvables + p;
        char *bn = xasprintf("pypi:%s", rs->name);
        Id bid = pool_str2id(pool, bn, 0);
        free(bn);
        Id q, qq;
        key = 0;
        FOR_PROVIDES(q, qq, pool_rel2id(pool, bid, s->evr, REL_EQ, 1))
            if (installed(r, q) && !r->solv[q].extra)
                key = q;
        if (!key)
            key = p;
    }
    if (map[key] > 0)
        return pkgs->items[map[key] - 1];
    pkg *k = xcalloc(1, sizeof *k);
    k->p = key;
    Solvable *s = pool->solvables + key;
    if (rs && rs->eco == RSV_CONDA) {
        resolver_conda_lock_package(r, key, &k->lp, a);
    } else if (rs) {
        const rsv_solv *bs = &r->solv[key];
        k->lp.ecosystem = eco_name(bs->eco);
        k->lp.name = arena_strdup(a, bs->name);
        k->lp.version = arena_strdup(a, bs->version);
        k->lp.installed_in_base = s->repo == pool->installed;
        if (bs->pp && bs->pp->index)
            k->lp.source = arena_strdup(a, bs->pp->index);
        if (bs->pc && bs->pc->chosen >= 0) {
            const pypi_artifact *ar = &bs->pc->artifacts[bs->pc->chosen];
            lock_artifact *la = arena_alloc(a, sizeof *la);
            /* No URL or size: both depend on the index's layout and form
             * (docs/lock-format.md, "Where a lock was made") */
            la->file = arena_strdup(a, ar->file->filename);
            la->hash = ar->file->sha256 ? arena_sprintf(a, "sha256:%s", ar->file->sha256) : NULL;
            k->lp.artifacts = la;
            k->lp.n_artifacts = 1;
        }
        if (bs->pc && !k->lp.installed_in_base)
            k->lp.license = resolver_license_of(bs->pc->license, a);
    } else {
        k->lp.ecosystem = "deb";
        k->lp.name = arena_strdup(a, pool_id2str(pool, s->name));
        k->lp.version = arena_strdup(a, pool_id2str(pool, s->evr));
        k->lp.arch = arena_strdup(a, pool_id2str(pool, s->arch));
        lock_deb_origin(pool, s, &k->lp, a);
        k->lp.installed_in_base = s->repo == pool->installed;
        const apt_repo_info *ri = s->repo != pool->installed ? repo_info(r, s->repo) : NULL;
        if (ri) {
            k->lp.source = ri->component && ri->component[0]
                               ? arena_sprintf(a, "%s %s/%s", ri->uri, ri->suite, ri->component)
                               : arena_sprintf(a, "%s %s", ri->uri, ri->suite);
            unsigned medianr = 0;
            const char *loc = solvable_lookup_location(s, &medianr);
            if (loc) {
                lock_artifact *la = arena_alloc(a, sizeof *la);
                const char *slash = strrchr(loc, '/');
                la->file = arena_strdup(a, slash ? slash + 1 : loc);
                la->url = apt_repo_file_url(ri, loc, a);
                Id type = 0;
                const char *sum = solvable_lookup_checksum(s, SOLVABLE_CHECKSUM, &type);
                la->hash = sum && type == REPOKEY_TYPE_SHA256 ? arena_sprintf(a, "sha256:%s", sum) : NULL;
                la->size = apt_solvable_size(pool, key);
                k->lp.artifacts = la;
                k->lp.n_artifacts = 1;
            }
        }
    }
    ptrvec_push(pkgs, k);
    map[key] = (Id)pkgs->len;
    return k;
}

/* alias: npm's folder name for an edge written `"alias": "npm:name@range"`. */
static void add_edge(pkg *k, const char *eco, const char *name, const char *version, const char *kind,
                     const char *spec, const char *alias, arena *a)
{
    lock_edge *e = xcalloc(1, sizeof *e);
    e->ecosystem = eco;
    e->name = arena_strdup(a, name);
    e->version = version ? arena_strdup(a, version) : NULL;
    e->kind = kind;
    e->spec = spec ? arena_strdup(a, spec) : NULL;
    e->alias = alias ? arena_strdup(a, alias) : NULL;
    for (size_t i = 0; i < k->edges.len; i++)
        if (edge_cmp(&k->edges.items[i], &e) == 0) {
            free(e);
            return;
        }
    ptrvec_push(&k->edges, e);
}

/* Whether a conflict (Conflicts/Breaks) of solvable q matches ip. */
static bool conflicts_with(Pool *pool, Id q, Id ip)
{
    Solvable *s = pool->solvables + q;
    if (!s->repo || !s->conflicts)
        return false;
    for (Id *dp = s->repo->idarraydata + s->conflicts; *dp; dp++) {
        Id x, xx;
        FOR_PROVIDES(x, xx, *dp)
            if (x == ip)
                return true;
    }
    return false;
}

/* deb packages of the base the solve had to upgrade (apt upgrades an
 * installed package that a new one Breaks rather than remove it): the new
 * version is locked, requested by the packages that break the old one,
 * and pushed on todo so its own dependencies are locked too. */
static void upgraded_base_debs(rsv *r, ptrvec *pkgs, Id *map, arena *a, Queue *todo)
{
    Pool *pool = r->pool;
    if (!pool->installed)
        return;
    Id ip;
    Solvable *is;
    FOR_REPO_SOLVABLES(pool->installed, ip, is) {
        if (((size_t)ip < r->nsolv && r->solv[ip].ours) || installed(r, ip))
            continue;
        Id np = 0, p;
        FOR_POOL_SOLVABLES(p) {
            Solvable *s = pool->solvables + p;
            if (s->name == is->name && s->repo != pool->installed && installed(r, p) &&
                !((size_t)p < r->nsolv && r->solv[p].ours)) {
                np = p;
                break;
            }
        }
        if (!np)
            continue;
        pkg *k = pkg_for(r, pkgs, map, np, a);
        FOR_POOL_SOLVABLES(p) {
            if (p == np || !installed(r, p) || !conflicts_with(pool, p, ip))
                continue;
            char *l = label_of(r, p);
            push_unique(&k->reqby, l);
            free(l);
        }
        queue_push(todo, np);
    }
}

/* What a Debian dependency binds to, as apt reads an OR group: its first
 * alternative that something installed satisfies, and within it the
 * package of the alternative's own name when that is installed (apt
 * installs the real package a name names, even when another installed
 * package Provides it too: postgresql-client beside postgresql-client-15),
 * else its highest installed provider. */
static Id bound_deb(rsv *r, Id dep)
{
    Pool *pool = r->pool;
    if (ISRELDEP(dep) && GETRELDEP(pool, dep)->flags == REL_OR) {
        Reldep *rd = GETRELDEP(pool, dep);
        Id b = bound_deb(r, rd->name);
        return b ? b : bound_deb(r, rd->evr);
    }
    Id name = resolver_apt_dep_name(pool, dep), p, pp;
    FOR_PROVIDES(p, pp, dep)
        if (pool->solvables[p].name == name && installed(r, p))
            return p;
    return bound(r, dep);
}

/* PyPI and deb: breadth first over installed providers from the roots. */
static void walk_solvables(rsv *r, ptrvec *pkgs, Id *map, arena *a)
{
    Pool *pool = r->pool;
    Queue todo;
    queue_init(&todo);
    Map seen;
    map_init(&seen, pool->nsolvables);
    for (size_t i = 0; i < r->ndeps; i++) {
        const rsv_dep *d = &r->deps[i];
        if (d->root < 0 || d->eco == RSV_NPM || r->rq->roots[d->root].kind == ROOT_CONSTRAINT)
            continue;
        Id b = d->eco == RSV_DEB ? bound_deb(r, d->dep) : bound(r, d->dep);
        if (!b || resolver_conda_is_virtual(r, b))
            continue;
        pkg *k = pkg_for(r, pkgs, map, b, a);
        if (!r->rq->roots[d->root].shared)
            push_unique(&k->reqby, r->rq->roots[d->root].protected_pin ? "protected" : "spec");
        if (r->solv && (size_t)b < r->nsolv && r->solv[b].extra && !r->solv[b].extra_missing)
            push_unique(&k->extras, r->solv[b].extra);
        queue_push(&todo, b);
    }
    upgraded_base_debs(r, pkgs, map, a, &todo);
    for (int qi = 0; qi < todo.count; qi++) {
        Id p = todo.elements[qi];
        if (MAPTST(&seen, p))
            continue;
        MAPSET(&seen, p);
        pkg *k = pkg_for(r, pkgs, map, p, a);
        char *me = label_of(r, k->p);
        Solvable *s = pool->solvables + p;
        bool ours = (size_t)p < r->nsolv && r->solv[p].ours;
        if (!s->requires) {
            free(me);
            continue;
        }
        Id *dp = s->repo->idarraydata + s->requires;
        bool pre = false;
        for (; *dp; dp++) {
            if (*dp == SOLVABLE_PREREQMARKER) {
                pre = true;
                continue;
            }
            Id b = ours ? bound(r, *dp) : bound_deb(r, *dp);
            if (!b || b == p || resolver_conda_is_virtual(r, b))
                continue; /* a virtual package is the target's, never locked */
            const rsv_solv *bs = (size_t)b < r->nsolv && r->solv[b].ours ? &r->solv[b] : NULL;
            if (ours && bs && bs->extra == NULL && r->solv[p].extra &&
                strcmp(bs->name, r->solv[p].name) == 0)
                continue; /* an extra's own base */
            pkg *t = pkg_for(r, pkgs, map, b, a);
            push_unique(&t->reqby, me);
            if (bs && bs->extra && !bs->extra_missing)
                push_unique(&t->extras, bs->extra);
            if (ours && r->solv[p].eco == RSV_CONDA) {
                const rsv_dep *rd = resolver_find_dep(r, p, *dp);
                add_edge(k, "conda", t->lp.name, t->lp.version, "depends", rd ? rd->text : NULL,
                         NULL, a);
            } else if (ours) {
                const rsv_dep *rd = resolver_find_dep(r, p, *dp);
                /* a PyPI requirement conda's record meets is an edge to it */
                add_edge(k, t->lp.ecosystem, t->lp.name, t->lp.version, "requires",
                         rd ? rd->text : NULL, NULL, a);
            } else {
                char *dt = resolver_deb_dep_text(pool, *dp);
                add_edge(k, t->lp.ecosystem, t->lp.name, t->lp.version, pre ? "pre-depends" : "depends",
                         dt, NULL, a);
                free(dt);
            }
            queue_push(&todo, b);
        }
        free(me);
    }
    map_free(&seen);
    queue_free(&todo);
}

static const char *npm_kind(npm_dep_kind k)
{
    return k == NPM_DEP_OPTIONAL ? "optional"
           : k == NPM_DEP_PROD   ? "dependency"
                                 : "peer";
}

/* An edge the tree builder does not bind (to or from a bundled package):
 * to the copy Node loads from n's place, when there is one. */
static const rsv_npm_node *bundle_edge(rsv *r, pkg *k, const rsv_npm_node *n, const char *name,
                                       const char *spec, npm_dep_kind kind, arena *a)
{
    const rsv_npm_node *to = resolver_npm_visible(n, name);
    if (!to || to == n || (!to->bundled && !to->p))
        return NULL;
    const char *tn = to->bundled ? to->bundled->name : r->solv[to->p].name;
    const char *tv = to->bundled ? to->bundled->version : r->solv[to->p].version;
    add_edge(k, "npm", tn, tv, npm_kind(kind), spec, strcmp(tn, name) ? name : NULL, a);
    return to;
}

/* The edges to or from bundled packages of node all[i] (made[i] its
 * package), each also recorded as a requestedBy of the copy it reaches. */
static void bundle_edges(rsv *r, const ptrvec *all, pkg **made, size_t i, arena *a)
{
    const rsv_npm_node *n = all->items[i];
    const npm_version *v = n->bundled ? NULL : r->solv[n->p].nv;
    size_t nd = n->bundled ? n->bundled->ndeps : v->nbundled ? v->ndeps : 0;
    char *me = xasprintf("npm:%s@%s", made[i]->lp.name, made[i]->lp.version);
    for (size_t j = 0; j < nd; j++) {
        const rsv_npm_node *to;
        if (n->bundled) {
            const npm_bundled_dep *d = &n->bundled->deps[j];
            to = bundle_edge(r, made[i], n, d->name, d->spec, d->kind, a);
        } else {
            const npm_dep *d = &v->deps[j];
            to = resolver_npm_bundled(v, d->name) ? bundle_edge(r, made[i], n, d->name, d->spec, d->kind, a)
                                                  : NULL;
        }
        for (size_t x = 1; to && x < all->len; x++)
            if (all->items[x] == to)
                push_unique(&made[x]->reqby, me);
    }
    free(me);
}

/* A package its bundler's tarball ships: no artifact of its own, its
 * edges as its package.json writes them. */
static pkg *bundled_pkg(rsv *r, const rsv_npm_node *n, arena *a)
{
    pkg *k = xcalloc(1, sizeof *k);
    k->lp.ecosystem = "npm";
    k->lp.name = arena_strdup(a, n->bundled->name);
    k->lp.version = arena_strdup(a, n->bundled->version);
    k->lp.path = arena_strdup(a, n->path);
    k->lp.in_bundle = true;
    return k;
}

static pkg *npm_pkg(rsv *r, const rsv_npm_node *n, arena *a)
{
    const rsv_solv *rs = &r->solv[n->p];
    pkg *k = xcalloc(1, sizeof *k);
    k->p = n->p;
    k->lp.ecosystem = "npm";
    k->lp.name = arena_strdup(a, rs->name);
    k->lp.version = arena_strdup(a, rs->version);
    k->lp.path = arena_strdup(a, n->path);
    k->lp.source = rs->np->registry ? arena_strdup(a, rs->np->registry) : NULL;
    /* Only from a full packument asked for as such (a cutoff, or publish
     * times for a policy): the abbreviated one carries no license, and a
     * mirror that serves the full one anyway must not change the lock. */
    if (r->rq->exclude_newer || r->rq->publish_times)
        k->lp.license = resolver_license_of(rs->nv->license, a);
    if (rs->nv->tarball) {
        lock_artifact *la = arena_alloc(a, sizeof *la);
        const char *slash = strrchr(rs->nv->tarball, '/');
        la->file = arena_strdup(a, slash ? slash + 1 : rs->nv->tarball);
        la->hash = rs->nv->integrity ? arena_strdup(a, rs->nv->integrity) : NULL;
        k->lp.artifacts = la;
        k->lp.n_artifacts = 1;
    }
    if (n->from_spec)
        push_unique(&k->reqby, "spec");
    for (size_t j = 0; j < n->dependents.len; j++) {
        char *l = label_of(r, ((rsv_npm_node *)n->dependents.items[j])->p);
        push_unique(&k->reqby, l);
        free(l);
    }
    for (size_t j = 0; j < n->edges.len; j++) {
        const rsv_npm_edge *e = &n->edges.items[j];
        const rsv_solv *ts = &r->solv[e->to->p];
        const char *spec = e->dep->text;
        const char *at = strchr(spec + 1, '@');
        /* a plain edge met by an alias copy (a peer `x@*` and `"x":
         * "npm:y@1"`) is written like the alias: y, under folder x */
        const char *folder = e->dep->folder ? e->dep->folder
                             : strcmp(e->to->name, ts->name) ? e->to->name
                                                             : NULL;
        add_edge(k, "npm", ts->name, ts->version, e->dep->kind, at ? at + 1 : spec, folder, a);
    }
    return k;
}

static void walk_npm(rsv *r, ptrvec *pkgs, arena *a)
{
    const ptrvec all = *resolver_npm_tree(r);
    pkg **made = xcalloc(all.len + 1, sizeof *made);
    for (size_t i = 1; i < all.len; i++) {
        rsv_npm_node *n = all.items[i];
        made[i] = n->bundled ? bundled_pkg(r, n, a) : npm_pkg(r, n, a);
        ptrvec_push(pkgs, made[i]);
    }
    /* the tree builder binds no edge of a bundle: they are added here */
    for (size_t i = 1; i < all.len; i++)
        bundle_edges(r, &all, made, i, a);
    free(made);
}

static void add_input(ptrvec *v, arena *a, const char *eco, const char *url, const char *id,
                      const char *mod)
{
    for (size_t i = 0; i < v->len; i++) {
        lock_input *x = v->items[i];
        if (strcmp(x->ecosystem, eco) == 0 && strcmp(x->url, url) == 0)
            return;
    }
    lock_input *in = arena_alloc(a, sizeof *in);
    in->ecosystem = eco;
    in->url = arena_strdup(a, url);
    in->identity = arena_strdup(a, id ? id : "");
    in->modified = mod ? arena_strdup(a, mod) : NULL;
    ptrvec_push(v, in);
}

struct conda_inputs {
    ptrvec *ins;
    arena *a;
};

static void conda_input(void *user, const char *url, const char *identity)
{
    struct conda_inputs *ci = user;
    add_input(ci->ins, ci->a, "conda", url, identity, NULL);
}

/* The target: format, spec digest, base facts, variants and each
 * variant's base digest. */
static void lock_base(rsv *r, lock_doc *d)
{
    const resolve_request *rq = r->rq;
    const target_base *b = rq->base;
    arena *a = d->mem;
    d->format_version = LOCK_FORMAT_VERSION;
    d->spec_digest = rq->spec_digest ? arena_strdup(a, rq->spec_digest) : NULL;
    if (b) {
        d->python_version = b->python_version ? arena_strdup(a, b->python_version) : NULL;
        d->platform = b->platform ? arena_strdup(a, b->platform) : NULL;
        d->arch = b->arch ? arena_strdup(a, b->arch) : NULL;
        d->base_ref = b->ref ? arena_strdup(a, b->ref) : NULL;
        d->base_channel = b->channel ? arena_strdup(a, b->channel) : NULL;
        d->image = b->image ? arena_strdup(a, b->image) : NULL;
    }
    ptrvec vs = PTRVEC_INIT;
    for (const char *const *v = rq->variants; v && *v; v++)
        ptrvec_push(&vs, (void *)*v);
    d->variants = str_array(a, &vs, false);
    ptrvec_release(&vs);
    size_t nv = 0;
    while (d->variants[nv])
        nv++;
    d->base_digests = arena_alloc(a, (nv + 1) * sizeof *d->base_digests);
    for (size_t i = 0; i < nv; i++)
        for (size_t k = 0; b && b->variants && b->variants[k]; k++)
            if (strcmp(b->variants[k], d->variants[i]) == 0 && b->digests && b->digests[k])
                d->base_digests[i] = arena_strdup(a, b->digests[k]);
}

/* What the resolve was asked: cutoff, prereleases, build and binary
 * choices, upgrades. */
static void lock_request(rsv *r, lock_doc *d)
{
    const resolve_request *rq = r->rq;
    arena *a = d->mem;
    d->exclude_newer = rq->exclude_newer ? arena_strdup(a, rq->exclude_newer) : NULL;
    d->prereleases = resolver_prerelease_name(r->pre_mode);
    d->no_build = rq->no_build;
    d->prefer_binary = rq->prefer_binary;
    d->only_binary = build_names(a, rq->only_binary, rq->n_only_binary);
    d->no_binary = build_names(a, rq->no_binary, rq->n_no_binary);
    d->upgrade_all = rq->upgrade_all;
    if (rq->n_upgrade) {
        ptrvec up = PTRVEC_INIT;
        for (size_t i = 0; i < rq->n_upgrade; i++)
            ptrvec_push(&up, (void *)rq->upgrade[i]);
        d->upgrade = str_array(a, &up, false);
        ptrvec_release(&up);
    }
}

/* The packages of the answer, sorted, each with its requesters, extras
 * and sorted edges. */
static void lock_packages(rsv *r, lock_doc *d)
{
    arena *a = d->mem;
    ptrvec pkgs = PTRVEC_INIT;
    Id *map = xcalloc((size_t)r->pool->nsolvables + 1, sizeof *map);
    walk_solvables(r, &pkgs, map, a);
    free(map);
    if (r->nl)
        walk_npm(r, &pkgs, a);
    if (pkgs.len)
        qsort(pkgs.items, pkgs.len, sizeof(void *), pkg_cmp);
    d->packages = arena_alloc(a, (pkgs.len + 1) * sizeof *d->packages);
    d->n_packages = pkgs.len;
    for (size_t i = 0; i < pkgs.len; i++) {
        pkg *k = pkgs.items[i];
        k->lp.requested_by = str_array(a, &k->reqby, true);
        if (k->extras.len)
            k->lp.extras = str_array(a, &k->extras, true);
        if (k->edges.len)
            qsort(k->edges.items, k->edges.len, sizeof(void *), edge_cmp);
        k->lp.deps = arena_alloc(a, (k->edges.len + 1) * sizeof *k->lp.deps);
        k->lp.n_deps = k->edges.len;
        for (size_t j = 0; j < k->edges.len; j++) {
            k->lp.deps[j] = *(lock_edge *)k->edges.items[j];
            free(k->edges.items[j]);
        }
        d->packages[i] = k->lp;
        ptrvec_release(&k->reqby);
        ptrvec_release(&k->extras);
        ptrvec_release(&k->edges);
        free(k);
    }
    ptrvec_release(&pkgs);
}

/* The inputs the answer was read from (index pages, packuments,
 * Releases), sorted. */
static void lock_inputs(rsv *r, lock_doc *d)
{
    arena *a = d->mem;
    ptrvec ins = PTRVEC_INIT;
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        const rsv_pypi_name *n = r->pypi_names.items[i];
        if (n->p && n->p->code == EL_OK && n->p->page_url)
            add_input(&ins, a, "pypi", n->p->page_url, n->p->identity, NULL);
    }
    for (size_t i = 0; r->nl && i < r->npm_names.len; i++) {
        const npm_packument *p = npm_loader_get(r->nl, ((rsv_npm_name *)r->npm_names.items[i])->name);
        if (p && p->code == EL_OK)
            add_input(&ins, a, "npm", p->url, p->identity, p->modified);
    }
    struct conda_inputs ci = { &ins, a };
    resolver_conda_lock_inputs(r, conda_input, &ci);
    size_t nr = 0;
    const apt_repo_info *ri = r->al ? apt_loader_repos(r->al, &nr) : NULL;
    for (size_t i = 0; i < nr; i++) {
        char id[80];
        snprintf(id, sizeof id, "sha256:%s", ri[i].release_sha256);
        add_input(&ins, a, "deb", ri[i].release_url, id, ri[i].release_date);
    }
    d->inputs = arena_alloc(a, (ins.len + 1) * sizeof *d->inputs);
    d->n_inputs = ins.len;
    for (size_t i = 0; i < ins.len; i++)
        d->inputs[i] = *(lock_input *)ins.items[i];
    if (d->n_inputs)
        qsort(d->inputs, d->n_inputs, sizeof *d->inputs, input_cmp);
    ptrvec_release(&ins);
}

lock_doc *resolver_make_lock(rsv *r)
{
    lock_doc *d = lock_doc_new();
    lock_base(r, d);
    lock_request(r, d);
    lock_packages(r, d);
    lock_inputs(r, d);
    return d;
}

/* resolver_apt.c — apt in the pool: the verified repositories and the
 * base's dpkg status that apt_loader_load_into() puts into our pool (native
 * Debian names, relations, Provides, Breaks/Conflicts, Pre-Depends), the
 * root jobs (`name`, `name=version`), and favor jobs for the first
 * alternative of every `a | b` reachable from the roots, so libsolv's choice
 * is apt's. Never parses a Packages file itself. */
#include <stdlib.h>
#include <string.h>

#include <solv/bitmap.h>
#include <solv/pool.h>
#include <solv/repo.h>

#include "resolver_internal.h"

el_code resolver_apt_prepare(rsv *r)
{
    if (!r->has_deb)
        return EL_OK;
    apt_load_options o = { 0 };
    o.sources = r->rq->apt_sources;
    o.n_sources = r->rq->n_apt_sources;
    o.keyring = r->rq->apt_keyring;
    o.arch = r->rq->base && r->rq->base->arch ? r->rq->base->arch : "amd64";
    o.status_file = r->rq->base ? r->rq->base->dpkg_status : NULL;
    o.ignore_valid_until = true; /* snapshots are old by design */
    r->al = apt_loader_new(r->ctx, r->c, &o);
    if (!r->al)
        return el_ctx_code(r->ctx);
    apt_loader_submit(r->al);
    return EL_OK;
}

el_code resolver_apt_load(rsv *r)
{
    if (!r->al)
        return EL_OK;
    return apt_loader_load_into(r->al, r->pool);
}

/* The left-most alternative of an OR dependency. */
static Id first_alt(Pool *pool, Id dep)
{
    while (ISRELDEP(dep)) {
        Reldep *rd = GETRELDEP(pool, dep);
        if (rd->flags != REL_OR)
            break;
        dep = rd->name;
    }
    return dep;
}

void resolver_apt_jobs(rsv *r)
{
    Pool *pool = r->pool;
    Queue todo;
    queue_init(&todo);
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_DEB)
            continue;
        Id name = pool_str2id(pool, rt->name, 1);
        Id d = rt->dversion ? pool_rel2id(pool, name, pool_str2id(pool, rt->dversion, 1), REL_EQ, 1)
                            : name;
        rt->dep = d;
        resolver_add_dep(r, 0, (int)i, d, RSV_DEB, rt->name, rt->r->text, NULL, "depends");
        /* apt installs the real package of that name when there is one and
         * considers providers only for a purely virtual name */
        bool real = false;
        Id p, pp;
        FOR_PROVIDES(p, pp, d)
            if (pool->solvables[p].name == name)
                real = true;
        queue_push2(&r->job, SOLVER_INSTALL | (real ? SOLVER_SOLVABLE_NAME : SOLVER_SOLVABLE_PROVIDES), d);
        FOR_PROVIDES(p, pp, d)
            if (!real || pool->solvables[p].name == name)
                queue_push(&todo, p);
    }
    /* favor first alternatives reachable from the roots */
    Map seen;
    map_init(&seen, pool->nsolvables);
    Queue favs;
    queue_init(&favs);
    for (int qi = 0; qi < todo.count; qi++) {
        Id p = todo.elements[qi];
        if (MAPTST(&seen, p))
            continue;
        MAPSET(&seen, p);
        Solvable *s = pool->solvables + p;
        if (!s->repo || !s->requires)
            continue;
        if ((size_t)p < r->nsolv && r->solv[p].ours)
            continue;
        Id *dp = s->repo->idarraydata + s->requires;
        for (; *dp; dp++) {
            if (*dp == SOLVABLE_PREREQMARKER)
                continue;
            if (ISRELDEP(*dp) && GETRELDEP(pool, *dp)->flags == REL_OR)
                queue_pushunique(&favs, first_alt(pool, *dp));
            Id q, qq;
            FOR_PROVIDES(q, qq, *dp)
                if (!MAPTST(&seen, q))
                    queue_push(&todo, q);
        }
    }
    for (int i = 0; i < favs.count; i++)
        queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_PROVIDES, favs.elements[i]);
    queue_free(&favs);
    map_free(&seen);
    queue_free(&todo);
}

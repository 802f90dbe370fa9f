/* resolver_conda_load.c — conda's side of a resolve_request: the channels
 * of an environment.yml loaded through the cache for the target's subdir
 * and noarch, the target's virtual packages, and what the lock records of
 * a conda record (its channel, subdir, file, URL and hashes) and of the
 * repodata.json documents read. The pool side is resolver_conda.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/problems.h>
#include <solv/rules.h>
#include <solv/solver.h>

#include "resolver_internal.h"

el_code resolver_conda_load(rsv *r)
{
    const resolve_request *rq = r->rq;
    const target_base *b = rq->base;
    conda_load_options o = {0};
    o.channels = rq->conda_channels;
    o.n_channels = rq->n_conda_channels;
    o.deb_arch = b ? b->arch : NULL;
    int64_t cutoff_ms = 0;
    if (rq->exclude_newer && rfc3339_parse(rq->exclude_newer, RFC3339_DATE_OK, &cutoff_ms))
        o.cutoff_ms = cutoff_ms; /* normalized already (el_exclude_newer_normalize) */
    el_code rc = conda_channels_load(r->ctx, r->c, &o, &r->conda_owned);
    if (rc != EL_OK)
        return rc;
    r->conda_set = r->conda_owned;
    conda_virtual_target t = { b ? b->arch : NULL, b ? b->libc : NULL,
                               b ? b->cuda_version : NULL, NULL };
    conda_virtual *v = arena_alloc(r->mem, CONDA_VIRTUAL_MAX * sizeof *v);
    const char *why = NULL;
    int n = conda_virtual_packages(&t, r->mem, v, &why);
    if (n < 0) {
        el_fail(r->ctx, EL_SPEC_INVALID, "conda has no virtual packages for the target: %s", why);
        el_detail_str(r->ctx, "field", "spec.base");
        return EL_SPEC_INVALID;
    }
    r->conda_virt = v;
    r->conda_nvirt = (size_t)n;
    return EL_OK;
}

void resolver_conda_unload(rsv *r)
{
    conda_channel_set_free(r->conda_owned);
    r->conda_owned = NULL;
    r->conda_set = NULL;
}

bool resolver_conda_is_virtual(const rsv *r, Id p)
{
    return p > 0 && (size_t)p < r->nsolv && r->solv[p].ours && r->solv[p].eco == RSV_CONDA &&
           !r->solv[p].cchannel;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The PyPI distributions a record's `purls` name, PEP 503, sorted and
 * distinct (NULL-terminated, in `a`), or NULL for none. */
static const char **pypi_names(const conda_record *rec, arena *a)
{
    if (!rec->n_pypi_names)
        return NULL;
    const char **v = arena_alloc(a, (rec->n_pypi_names + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < rec->n_pypi_names; i++) {
        char *c = pypi_name_canonical(rec->pypi_names[i]);
        v[n++] = arena_strdup(a, c);
        free(c);
    }
    qsort(v, n, sizeof *v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || strcmp(v[k - 1], v[i]) != 0)
            v[k++] = v[i];
    v[k] = NULL;
    return v;
}

void resolver_conda_lock_package(const rsv *r, Id p, lock_package *lp, arena *a)
{
    const rsv_solv *s = &r->solv[p];
    const conda_record *rec = s->crec;
    lp->ecosystem = "conda";
    lp->name = arena_strdup(a, rec->name);
    lp->version = arena_strdup(a, rec->version);
    lp->build = arena_strdup(a, rec->build);
    lp->build_number = rec->build_number;
    lp->subdir = arena_strdup(a, rec->subdir);
    lp->source = arena_strdup(a, s->cchannel);
    lp->license = resolver_license_of(rec->license, a);
    lp->has_pypi_names = rec->has_purls;
    lp->pypi_names = pypi_names(rec, a);
    lock_artifact *la = arena_alloc(a, sizeof *la);
    memset(la, 0, sizeof *la);
    la->file = arena_strdup(a, rec->fn);
    la->url = arena_sprintf(a, "%s/%s/%s", s->cchannel, rec->subdir, rec->fn);
    /* a record without sha256 (old channels) is pinned by its md5 alone */
    la->hash = rec->sha256 ? arena_sprintf(a, "sha256:%s", rec->sha256) : NULL;
    la->md5 = rec->md5 ? arena_strdup(a, rec->md5) : NULL;
    la->size = rec->size;
    lp->artifacts = la;
    lp->n_artifacts = 1;
}

void resolver_conda_lock_inputs(const rsv *r, void (*add)(void *user, const char *url,
                                                          const char *identity),
                                void *user)
{
    for (size_t i = 0; r->conda_set && i < r->conda_set->n_subdirs; i++) {
        const conda_subdir_load *sl = &r->conda_set->subdirs[i];
        if (!sl->repodata)
            continue;
        /* the content, not how it was served: a mirror's ETag is its own */
        char id[80];
        snprintf(id, sizeof id, "sha256:%s", sl->body_sha256 ? sl->body_sha256 : "");
        add(user, sl->url, sl->body_sha256 ? id : "");
    }
}

static bool is_conda_solvable(const rsv *r, Id p)
{
    return p > 0 && (size_t)p < r->nsolv && r->solv[p].ours && r->solv[p].eco == RSV_CONDA;
}

bool resolver_conda_involved(rsv *r, int nproblems)
{
    bool yes = false;
    Queue rules;
    queue_init(&rules);
    for (Id pr = 1; pr <= (Id)nproblems && !yes; pr++) {
        queue_empty(&rules);
        solver_findallproblemrules(r->solver, pr, &rules);
        for (int i = 0; i < rules.count && !yes; i++) {
            Id source = 0, target = 0, dep = 0;
            solver_ruleinfo(r->solver, rules.elements[i], &source, &target, &dep);
            const rsv_dep *d = dep ? resolver_find_dep(r, is_conda_solvable(r, source) ? source : 0,
                                                       dep)
                                   : NULL;
            yes = is_conda_solvable(r, source) || is_conda_solvable(r, target) ||
                  (d && d->eco == RSV_CONDA);
        }
    }
    queue_free(&rules);
    return yes;
}

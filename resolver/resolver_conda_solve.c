/* resolver_conda_solve.c — a conda solve's problems as sentences that name
 * the match specs as written and the records involved, and
 * resolver_conda_solve(): conda alone in a pool of its own (what the
 * resolver-level agreement tests drive; a resolve_request's conda roots go
 * through resolver_resolve()).
 * Builds nothing resolver_conda.c does not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <solv/pool.h>
#include <solv/problems.h>
#include <solv/repo.h>
#include <solv/rules.h>
#include <solv/solver.h>

#include "resolver_internal.h"

/* "numpy 1.26.4 py311h7125741_0", or "__osx 10.15 (virtual)". */
static char *label(const rsv *r, Id p)
{
    if (p > 0 && (size_t)p < r->nsolv && r->solv[p].ours && r->solv[p].eco == RSV_PYPI)
        return xasprintf("%s %s from PyPI", r->solv[p].name, r->solv[p].version);
    if (p <= 0 || (size_t)p >= r->nsolv || !r->solv[p].crec)
        return xasprintf("%s", pool_solvid2str(r->pool, p));
    const conda_record *rec = r->solv[p].crec;
    if (!r->solv[p].cchannel)
        return xasprintf("%s %s (virtual)", rec->name, rec->version);
    return xasprintf("%s %s %s", rec->name, rec->version, rec->build);
}

static const char *dep_text(const rsv *r, Id from, Id dep)
{
    const rsv_dep *d = resolver_find_dep(r, from, dep);
    return d ? d->text : pool_dep2str(r->pool, dep);
}

/* One rule of a problem as a sentence (malloc'd); *root the spec it names
 * (or NULL). */
static char *sentence(const rsv *r, Id rid, const char **root)
{
    Id source = 0, target = 0, dep = 0;
    SolverRuleinfo type = solver_ruleinfo(r->solver, rid, &source, &target, &dep);
    *root = NULL;
    char *s = NULL, *a = NULL, *b = NULL;
    switch (type) {
    case SOLVER_RULE_JOB:
    case SOLVER_RULE_JOB_NOTHING_PROVIDES_DEP:
        *root = dep_text(r, 0, dep);
        s = xasprintf("the spec asks for `%s`%s", *root,
                      type == SOLVER_RULE_JOB ? "" : ", which no record matches");
        break;
    case SOLVER_RULE_PKG_REQUIRES:
    case SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP:
        a = label(r, source);
        s = xasprintf("%s depends on `%s`%s", a, dep_text(r, source, dep),
                      type == SOLVER_RULE_PKG_REQUIRES ? ""
                                                       : ", which no record or virtual package matches");
        break;
    case SOLVER_RULE_PKG_CONFLICTS:
        a = label(r, source);
        b = label(r, target);
        if ((size_t)source < r->nsolv && r->solv[source].eco == RSV_PYPI)
            s = xasprintf("%s cannot join the pip layer: conda installs %s, and conda's "
                          "copy wins", a, b); /* resolver_pypi.c: conda wins */
        else
            s = xasprintf("%s constrains `%s`, which %s is not", a, dep_text(r, source, dep), b);
        break;
    case SOLVER_RULE_PKG_SAME_NAME:
        a = label(r, source);
        b = label(r, target);
        s = xasprintf("only one of %s and %s can be installed", a, b);
        break;
    default:
        s = xstrdup(solver_problemruleinfo2str(r->solver, type, source, target, dep));
        break;
    }
    free(a);
    free(b);
    return s;
}

el_code resolver_conda_explain(rsv *r, int nproblems)
{
    ptrvec shown = {0};  /* parallel to `said`: in the short message */
    SolverRuleinfo kinds[16];
    size_t nkinds = 0;
    ptrvec said = {0}, roots = {0};
    Queue rules;
    queue_init(&rules);
    for (Id pr = 1; pr <= (Id)nproblems; pr++) {
        queue_empty(&rules);
        solver_findallproblemrules(r->solver, pr, &rules);
        for (int i = 0; i < rules.count; i++) {
            const char *root = NULL;
            char *s = sentence(r, rules.elements[i], &root);
            if (root && !ptrvec_has_str(&roots, root))
                ptrvec_push(&roots, (void *)root);
            if (ptrvec_has_str(&said, s)) {
                free(s);
                continue;
            }
            ptrvec_push(&said, s);
            Id src = 0, tgt = 0, dep = 0;
            SolverRuleinfo t = solver_ruleinfo(r->solver, rules.elements[i], &src, &tgt, &dep);
            /* the short message: every spec, and the first rule of each kind */
            bool first = root != NULL;
            for (size_t k = 0; k < nkinds && !first; k++)
                first = kinds[k] == t;
            first = root != NULL || !first;
            if (!root && first && nkinds < sizeof kinds / sizeof *kinds)
                kinds[nkinds++] = t;
            ptrvec_push(&shown, (void *)(uintptr_t)first);
        }
    }
    queue_free(&rules);
    /* A conda problem lists every candidate build it ruled out (numpy's
     * dozens): the message tells the specs and the first rule of each kind
     * (depends, constrains, ...), the rest with --explain; detail.rules
     * has them all. */
    bool full = !r->rq || r->rq->explain_full;
    strbuf msg = STRBUF_INIT, specs = STRBUF_INIT;
    for (size_t i = 0; i < roots.len; i++)
        sb_addf(&specs, "%s`%s`", i == 0 ? "" : i + 1 == roots.len ? " and " : ", ",
                (char *)roots.items[i]);
    struct json_object *rules_js = json_object_new_array();
    size_t told = 0;
    for (size_t i = 0; i < said.len; i++) {
        if (full || shown.items[i])
            sb_addf(&msg, "%s%s", told++ ? "; " : "", (char *)said.items[i]);
        json_object_array_add(rules_js, json_object_new_string(said.items[i]));
        free(said.items[i]);
    }
    if (told < said.len)
        sb_addf(&msg, "; and %zu more like these (--explain shows every one)", said.len - told);
    ptrvec_release(&shown);
    /* a pip-layer requirement among them: not conda's alone */
    const char *what = "conda ";
    for (size_t i = 0; r->rq && i < roots.len; i++)
        for (size_t k = 0; k < r->rq->n_roots; k++)
            if (strcmp(r->rq->roots[k].ecosystem, "pypi") == 0 &&
                strcmp(r->rq->roots[k].text, roots.items[i]) == 0)
                what = "";
    if (roots.len == 1)
        el_fail(r->ctx, EL_RESOLVE_CONFLICT, "the %sspec %s cannot be satisfied: %s", what,
                specs.buf, msg.buf);
    else
        el_fail(r->ctx, EL_RESOLVE_CONFLICT, "the %sspecs %s%scannot be satisfied together: %s",
                what, specs.buf, roots.len ? " " : "", msg.buf);
    sb_release(&specs);
    el_detail_take(r->ctx, "rules", rules_js);
    struct json_object *arr = json_object_new_array();
    for (size_t i = 0; i < roots.len; i++)
        json_object_array_add(arr, json_object_new_string(roots.items[i]));
    el_detail_take(r->ctx, "conflict", arr);
    /* where each spec named is written (a resolve_request's roots) */
    struct json_object *fields = json_object_new_array();
    for (size_t i = 0; r->rq && i < roots.len; i++)
        for (size_t k = 0; k < r->rq->n_roots; k++)
            if ((strcmp(r->rq->roots[k].ecosystem, "conda") == 0 ||
                 strcmp(r->rq->roots[k].ecosystem, "pypi") == 0) &&
                strcmp(r->rq->roots[k].text, roots.items[i]) == 0 && r->rq->roots[k].field) {
                json_object_array_add(fields, json_object_new_string(r->rq->roots[k].field));
                break;
            }
    if (json_object_array_length(fields))
        el_detail_take(r->ctx, "fields", fields);
    else
        json_object_put(fields);
    sb_release(&msg);
    ptrvec_release(&said);
    ptrvec_release(&roots);
    return EL_RESOLVE_CONFLICT;
}

static void conda_only_free(rsv *r)
{
    resolver_conda_free(r);
    if (r->solver)
        solver_free(r->solver);
    if (r->pool)
        pool_free(r->pool);
    queue_free(&r->job);
    free(r->solv);
    free(r->deps);
    free(r->roots);
    arena_free(r->mem);
}

el_code resolver_conda_solve(el_ctx *ctx, const struct conda_channel_set *set,
                             const struct conda_virtual *virt, size_t nvirt,
                             const char *const *specs, size_t nspecs, strbuf *answer)
{
    rsv r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.mem = arena_new();
    r.conda_set = set;
    r.conda_virt = virt;
    r.conda_nvirt = nvirt;
    queue_init(&r.job);
    resolve_root *rr = arena_alloc(r.mem, (nspecs + 1) * sizeof *rr);
    r.roots = xcalloc(nspecs + 1, sizeof *r.roots);
    r.nroots = nspecs;
    for (size_t i = 0; i < nspecs; i++) {
        memset(&rr[i], 0, sizeof rr[i]);
        rr[i].ecosystem = "conda";
        rr[i].text = specs[i];
        r.roots[i].r = &rr[i];
        r.roots[i].eco = RSV_CONDA;
    }
    r.pool = pool_create();
    pool_setdisttype(r.pool, DISTTYPE_DEB);
    resolver_conda_add(&r);
    pool_addfileprovides(r.pool);
    pool_createwhatprovides(r.pool);
    el_code rc = resolver_conda_jobs(&r);
    if (rc == EL_OK) {
        r.solver = solver_create(r.pool);
        int np = solver_solve(r.solver, &r.job);
        if (np)
            rc = resolver_conda_explain(&r, np);
        else
            resolver_conda_answer(&r, answer);
    }
    conda_only_free(&r);
    return rc;
}

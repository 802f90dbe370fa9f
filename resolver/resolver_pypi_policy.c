/* resolver_pypi_policy.c — what a PyPI project admits, decided per project
 * rather than per requirement: the pre-release mode (uv's five modes, or
 * pip's rule for the `pip` manager) and the yanked versions a spec pins
 * exactly (PEP 592). Runs after resolver_pypi.c has laid a name's versions
 * out and before any requirement on it becomes a pool dependency; owns no
 * pool state. The modes are described in docs/cli.md ("Pre-releases"). */
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/solver.h>

#include "resolver_internal.h"

static const char *const mode_names[] = {
    [RSV_PRE_IF_NECESSARY_OR_EXPLICIT] = "if-necessary-or-explicit",
    [RSV_PRE_DISALLOW] = "disallow",
    [RSV_PRE_ALLOW] = "allow",
    [RSV_PRE_IF_NECESSARY] = "if-necessary",
    [RSV_PRE_EXPLICIT] = "explicit",
    [RSV_PRE_PIP] = "pip",
};

int resolver_prerelease_mode(const char *name)
{
    if (!name)
        return RSV_PRE_IF_NECESSARY_OR_EXPLICIT;
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(name, mode_names[i]) == 0)
            return (int)i;
    return -1;
}

const char *resolver_prerelease_name(int mode) { return mode_names[mode]; }

/* uv's "explicit pre-release marker": a clause other than `!=` whose version
 * is a pre-release (a dev release counts). */
static bool uv_names_pre(const pypi_specset *s)
{
    for (size_t i = 0; i < pypi_specset_len(s); i++) {
        const char *op = pypi_specset_op(s, i);
        if (strcmp(op, "!=") == 0)
            continue;
        char *v = xstrdup(pypi_specset_version(s, i));
        size_t n = strlen(v);
        if (n >= 2 && strcmp(v + n - 2, ".*") == 0)
            v[n - 2] = '\0';
        pypi_version *pv = pypi_version_parse(v, NULL);
        bool pre = pv && pypi_version_is_prerelease(pv);
        pypi_version_free(pv);
        free(v);
        if (pre)
            return true;
    }
    return false;
}

/* Whether a root (spec dependency, constraint or protected pin whose marker
 * holds) on `n` names a pre-release: uv's test, or packaging's
 * Specifier.prereleases (an inclusive operator naming one) for pip. */
static bool root_names_pre(const rsv *r, const rsv_pypi_name *n, bool pip)
{
    for (size_t i = 0; i < r->nroots; i++) {
        const rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_PYPI || rt->skipped || !rt->preq ||
            strcmp(rt->preq->canonical_name, n->name) != 0)
            continue;
        if (pip ? pypi_specset_prereleases(rt->preq->specset) == 1 : uv_names_pre(rt->preq->specset))
            return true;
    }
    return false;
}

/* uv's "all versions of a package are pre-release": every version the target
 * can use (yanked ones included; excluded ones are not versions here). */
static bool only_prereleases(const rsv_pypi_name *n)
{
    for (size_t i = 0; i < n->nent; i++)
        if (n->vers[i] && !pypi_version_is_prerelease(n->vers[i]))
            return false;
    return true;
}

/* Whether a loaded dependency of some present candidate names a pre-release
 * of `name` by packaging's rule (pip combines it with every other
 * requirement on the project). */
static bool dep_names_pre(rsv *r, const char *name)
{
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        const rsv_pypi_name *o = r->pypi_names.items[i];
        for (size_t k = 0; k < o->nent; k++) {
            if (!o->present[k] || o->ci[k] < 0)
                continue;
            const pypi_candidate *c = &o->p->cands[o->ci[k]];
            for (size_t d = 0; d < c->ndeps; d++) {
                const pypi_requirement *q = c->deps[d].req;
                if (!q || strcmp(q->canonical_name, name) != 0 ||
                    pypi_specset_prereleases(q->specset) != 1)
                    continue;
                bool use = resolver_pypi_marker_true(r, q, "");
                for (size_t e = 0; e < o->extras.len && !use; e++)
                    use = resolver_pypi_marker_true(r, q, o->extras.items[e]);
                if (use)
                    return true;
            }
        }
    }
    return false;
}

static void decide_pre(rsv *r, rsv_pypi_name *n)
{
    n->pre_from_deps = false;
    switch (r->pre_mode) {
    case RSV_PRE_ALLOW:
        n->pre = PYPI_PRE_YES;
        return;
    case RSV_PRE_DISALLOW:
        n->pre = PYPI_PRE_NO;
        return;
    case RSV_PRE_IF_NECESSARY:
        n->pre = only_prereleases(n) ? PYPI_PRE_YES : PYPI_PRE_NO;
        return;
    case RSV_PRE_EXPLICIT:
        n->pre = root_names_pre(r, n, false) ? PYPI_PRE_YES : PYPI_PRE_NO;
        return;
    case RSV_PRE_PIP:
        /* pip: one SpecifierSet of every requirement on the project, with
         * packaging's pre-release rule (no fallback for a non-empty set).
         * A dependency that names a pre-release counts only when its
         * dependent is installed: resolver_pypi_recheck() takes the
         * admission back otherwise. */
        if (root_names_pre(r, n, true)) {
            n->pre = PYPI_PRE_YES;
        } else if (!n->pre_denied && dep_names_pre(r, n->name)) {
            n->pre = PYPI_PRE_YES;
            n->pre_from_deps = true;
        } else {
            n->pre = PYPI_PRE_DEFAULT;
        }
        return;
    default:
        n->pre = only_prereleases(n) || root_names_pre(r, n, false) ? PYPI_PRE_YES : PYPI_PRE_NO;
        return;
    }
}

void resolver_pypi_admit(const rsv_pypi_name *n, const pypi_specset *s,
                         const pypi_version *const *v, bool *keep)
{
    pypi_specset_filter(s, v, n->nent, n->pre, keep);
}

/* Whether `s` pins one version exactly as PEP 592 means it: an `===`, or
 * an `==` without a wildcard (pip's rule; other clauses may accompany it). */
bool resolver_pypi_exact_pin(const pypi_specset *s)
{
    for (size_t i = 0; i < pypi_specset_len(s); i++) {
        const char *op = pypi_specset_op(s, i);
        if (strcmp(op, "===") == 0)
            return true;
        const char *v = pypi_specset_version(s, i);
        size_t vl = strlen(v);
        if (strcmp(op, "==") == 0 && !(vl >= 2 && strcmp(v + vl - 2, ".*") == 0))
            return true;
    }
    return false;
}

/* PEP 592 for the spec's own exact pins: when a root pins `n` exactly and
 * only yanked versions match it, those versions are selectable for every
 * requirement on `n`, as pip does with the project's requirements combined
 * (a dependency's `n>=1` must not refuse what the spec pinned). */
static void pinned_yanked(rsv *r, rsv_pypi_name *n)
{
    const pypi_version **v = xcalloc(n->nent + 1, sizeof *v);
    bool *keep = xcalloc(n->nent + 1, sizeof *keep);
    for (size_t i = 0; i < r->nroots; i++) {
        const rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_PYPI || rt->skipped || !rt->preq ||
            strcmp(rt->preq->canonical_name, n->name) != 0 ||
            !resolver_pypi_exact_pin(rt->preq->specset))
            continue;
        for (size_t k = 0; k < n->nent; k++)
            v[k] = n->yanked[k] ? NULL : n->vers[k];
        resolver_pypi_admit(n, rt->preq->specset, v, keep);
        bool any = false;
        for (size_t k = 0; k < n->nent && !any; k++)
            any = keep[k];
        if (any)
            continue;
        resolver_pypi_admit(n, rt->preq->specset, n->vers, keep);
        for (size_t k = 0; k < n->nent; k++)
            if (keep[k])
                n->yanked[k] = false;
    }
    free(v);
    free(keep);
}

void resolver_pypi_policy(rsv *r)
{
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        decide_pre(r, n);
        pinned_yanked(r, n);
    }
}

/* Whether installed solvable p (ours, pypi) has a requirement on `name`
 * that names a pre-release and applies to it (its extra's, for an extra). */
static bool installed_names_pre(rsv *r, Id p, const char *name)
{
    const rsv_solv *s = &r->solv[p];
    if (!s->pc)
        return false;
    for (size_t d = 0; d < s->pc->ndeps; d++) {
        const pypi_requirement *q = s->pc->deps[d].req;
        if (q && strcmp(q->canonical_name, name) == 0 &&
            pypi_specset_prereleases(q->specset) == 1 &&
            resolver_pypi_marker_true(r, q, s->extra ? s->extra : ""))
            return true;
    }
    return false;
}

bool resolver_pypi_recheck(rsv *r)
{
    if (r->pre_mode != RSV_PRE_PIP)
        return false;
    bool again = false;
    for (size_t i = 0; i < r->pypi_names.len; i++) {
        rsv_pypi_name *n = r->pypi_names.items[i];
        if (!n->pre_from_deps)
            continue;
        bool pre_chosen = false, named = false;
        for (Id p = (Id)r->solv_lo; (size_t)p < r->nsolv; p++) {
            const rsv_solv *s = &r->solv[p];
            if (!s->ours || s->eco != RSV_PYPI || solver_get_decisionlevel(r->solver, p) <= 0)
                continue;
            if (strcmp(s->name, n->name) == 0 && !s->extra && s->pc && s->pc->parsed &&
                pypi_version_is_prerelease(s->pc->parsed))
                pre_chosen = true;
            if (installed_names_pre(r, p, n->name))
                named = true;
        }
        if (pre_chosen && !named) {
            n->pre_denied = true;
            again = true;
        }
    }
    return again;
}

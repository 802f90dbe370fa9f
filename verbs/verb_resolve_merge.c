/* verb_resolve_merge.c — the one lock of several targets' locks that agree
 * on every PyPI and Debian version (verb_resolve_targets.c): the first
 * target's lock, with each other lock's packages joined in (a package in
 * both gets the union of their artifacts, edges, extras and requestedBy,
 * and is installedInBase only if every base has it), their inputs joined,
 * and `target.targets` naming each target and its variants in place of the
 * one target's python/platform/arch (docs/lock-format.md). Everything taken
 * from another lock is copied into the first one's arena, so the others can
 * be freed. */
#include <stdlib.h>
#include <string.h>

#include "base_request.h"
#include "verbs_internal.h"

static const char *cp(arena *a, const char *s)
{
    return s ? arena_strdup(a, s) : NULL;
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* `have` (NULL-terminated, in `a`) with the strings of `add` it lacks. */
static const char **join_strs(arena *a, const char **have, const char *const *add)
{
    size_t n = 0, m = 0;
    while (have && have[n])
        n++;
    while (add && add[m])
        m++;
    const char **out = arena_alloc(a, (n + m + 1) * sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        out[k++] = have[i];
    for (size_t i = 0; i < m; i++) {
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++)
            dup = !strcmp(out[j], add[i]);
        if (!dup)
            out[k++] = cp(a, add[i]);
    }
    out[k] = NULL;
    return n + m ? out : have;
}

static void join_artifacts(arena *a, lock_package *p, const lock_package *q)
{
    lock_artifact *out = arena_alloc(a, (p->n_artifacts + q->n_artifacts + 1) * sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < p->n_artifacts; i++)
        out[k++] = p->artifacts[i];
    for (size_t i = 0; i < q->n_artifacts; i++) {
        const lock_artifact *x = &q->artifacts[i];
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++)
            dup = same(out[j].file, x->file) && same(out[j].hash, x->hash);
        if (!dup)
            out[k++] = (lock_artifact){ .file = cp(a, x->file), .url = cp(a, x->url),
                                        .hash = cp(a, x->hash), .md5 = cp(a, x->md5),
                                        .size = x->size };
    }
    p->artifacts = out;
    p->n_artifacts = k;
}

static void join_edges(arena *a, lock_package *p, const lock_package *q)
{
    lock_edge *out = arena_alloc(a, (p->n_deps + q->n_deps + 1) * sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < p->n_deps; i++)
        out[k++] = p->deps[i];
    for (size_t i = 0; i < q->n_deps; i++) {
        const lock_edge *x = &q->deps[i];
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++)
            dup = same(out[j].ecosystem, x->ecosystem) && same(out[j].name, x->name) &&
                  same(out[j].version, x->version) && same(out[j].kind, x->kind) &&
                  same(out[j].spec, x->spec) && same(out[j].alias, x->alias);
        if (!dup)
            out[k++] = (lock_edge){ .ecosystem = cp(a, x->ecosystem), .name = cp(a, x->name),
                                    .version = cp(a, x->version), .kind = cp(a, x->kind),
                                    .spec = cp(a, x->spec), .alias = cp(a, x->alias) };
    }
    p->deps = out;
    p->n_deps = k;
}

static lock_package copy_package(arena *a, const lock_package *q)
{
    lock_package p = { 0 };
    p.ecosystem = cp(a, q->ecosystem);
    p.name = cp(a, q->name);
    p.version = cp(a, q->version);
    p.arch = cp(a, q->arch);
    p.build = cp(a, q->build); /* conda: a package is its name, version and build */
    p.subdir = cp(a, q->subdir);
    p.build_number = q->build_number;
    p.has_pypi_names = q->has_pypi_names; /* the record's: the same in both */
    p.pypi_names = q->pypi_names ? join_strs(a, NULL, (const char *const *)q->pypi_names) : NULL;
    p.src_name = cp(a, q->src_name);
    p.src_version = cp(a, q->src_version);
    p.path = cp(a, q->path);
    p.source = cp(a, q->source);
    p.license = cp(a, q->license);
    p.extras = q->extras ? join_strs(a, NULL, (const char *const *)q->extras) : NULL;
    p.requested_by = join_strs(a, NULL, (const char *const *)q->requested_by);
    p.installed_in_base = q->installed_in_base;
    p.in_bundle = q->in_bundle;
    join_artifacts(a, &p, q);
    join_edges(a, &p, q);
    return p;
}

static void join_package(arena *a, lock_package *p, const lock_package *q)
{
    join_artifacts(a, p, q);
    join_edges(a, p, q);
    p->requested_by = join_strs(a, p->requested_by, (const char *const *)q->requested_by);
    if (q->extras)
        p->extras = join_strs(a, p->extras, (const char *const *)q->extras);
    p->installed_in_base = p->installed_in_base && q->installed_in_base;
    if (!p->source)
        p->source = cp(a, q->source); /* held by one base, fetched for another */
    if (!p->license)
        p->license = cp(a, q->license);
}

static void join_locks(lock_doc *d, const lock_doc *o)
{
    arena *a = d->mem;
    lock_package *pk = arena_alloc(a, (d->n_packages + o->n_packages + 1) * sizeof *pk);
    if (d->n_packages) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(pk, d->packages, d->n_packages * sizeof *pk);
    size_t n = d->n_packages;
    for (size_t i = 0; i < o->n_packages; i++) {
        const lock_package *q = &o->packages[i];
        lock_package *p = NULL;
        for (size_t j = 0; j < n && !p; j++)
            if (same(pk[j].ecosystem, q->ecosystem) && same(pk[j].name, q->name) &&
                same(pk[j].version, q->version) && same(pk[j].path, q->path) &&
                same(pk[j].build, q->build))
                p = &pk[j];
        if (p)
            join_package(a, p, q);
        else
            pk[n++] = copy_package(a, q);
    }
    d->packages = pk;
    d->n_packages = n;
    lock_input *in = arena_alloc(a, (d->n_inputs + o->n_inputs + 1) * sizeof *in);
    if (d->n_inputs)
        memcpy(in, d->inputs, d->n_inputs * sizeof *in);
    size_t m = d->n_inputs;
    for (size_t i = 0; i < o->n_inputs; i++) {
        bool dup = false;
        for (size_t j = 0; j < m && !dup; j++)
            dup = same(in[j].ecosystem, o->inputs[i].ecosystem) && same(in[j].url, o->inputs[i].url);
        if (!dup)
            in[m++] = (lock_input){ .ecosystem = cp(a, o->inputs[i].ecosystem),
                                    .url = cp(a, o->inputs[i].url),
                                    .identity = cp(a, o->inputs[i].identity),
                                    .modified = cp(a, o->inputs[i].modified) };
    }
    d->inputs = in;
    d->n_inputs = m;
}

lock_doc *verbs_merge_locks(const target_request *tr, lock_doc *const *locks)
{
    lock_doc *d = locks[0];
    arena *a = d->mem;
    for (size_t i = 1; i < tr->n_parts; i++)
        join_locks(d, locks[i]);
    d->targets = arena_alloc(a, (tr->n_parts + 1) * sizeof *d->targets);
    for (size_t i = 0; i < tr->n_parts; i++) {
        const target_base *t = tr->parts[i].target;
        d->targets[i] = (lock_target){
            .variants = join_strs(a, NULL, (const char *const *)tr->parts[i].variants),
            .python_version = cp(a, t->python_version),
            .platform = cp(a, t->platform),
            .arch = cp(a, t->arch),
            .image = cp(a, t->image),
        };
    }
    d->n_targets = tr->n_parts;
    d->python_version = d->platform = d->arch = d->image = NULL;
    lock_doc_sort(d);
    return d;
}

/* base_request.c — builds the resolve_request for a valid spec: the base
 * from the catalog with the reference's errors, digests per variant, the
 * protected-pin merge (REFERENCE §3 merge_requirements, exact messages), the
 * npm and apt roots, sources and options. A `build.source: image` spec
 * builds its variants on the image the catalog's `images:` describes, but
 * modal on the spec's base (REFERENCE §7: the modal builder starts from the
 * resolved base; seed 000: Modal ignores a DataGen recipe's baseImage), so
 * the variants may have different targets: one request part per target. It decides nothing about versions:
 * everything here happens before the solve, and a refusal here means the
 * resolver never runs. */
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "spec_protected.h"
#include "spec_requirements.h"
#include "base_request.h"

#define DEFAULT_NPM_REGISTRY "https://registry.npmjs.org"

/* ---- the protected-pin merge ---- */

static void add_root(arena *mem, ptrvec *roots, const char *eco, const char *text,
                     resolve_root_kind kind, bool protected_pin, const char *field, unsigned line,
                     unsigned column)
{
    resolve_root *r = arena_alloc(mem, sizeof *r);
    r->ecosystem = eco;
    r->text = arena_strdup(mem, text);
    r->kind = kind;
    r->protected_pin = protected_pin;
    r->field = arena_strdup(mem, field);
    r->line = line;
    r->column = column;
    ptrvec_push(roots, r);
}

el_code target_merge(el_ctx *ctx, arena *mem, const char *const *pin_lines,
                     const el_spec_entry *deps, size_t n_deps, const el_spec_entry *cons,
                     size_t n_cons, target_merged *out)
{
    memset(out, 0, sizeof *out);
    size_t n_pins = 0;
    spec_pin *pins = spec_pins_read(pin_lines, &n_pins);
    ptrvec reqs = PTRVEC_INIT, constraints = PTRVEC_INIT, notes = PTRVEC_INIT;
    el_code rc = EL_OK;
    for (size_t pass = 0; pass < 2 && rc == EL_OK; pass++) {
        const el_spec_entry *list = pass ? cons : deps;
        size_t n = pass ? n_cons : n_deps;
        for (size_t i = 0; i < n && rc == EL_OK; i++) {
            const el_spec_entry *e = &list[i];
            char *line = arena_trimmed(mem, e->text);
            if (!*line || *line == '#')
                continue;
            pypi_requirement *r = pypi_requirement_parse(line, NULL);
            if (!r) {
                rc = el_fail(ctx, EL_SPEC_INVALID, "`%s` is not a requirement", line);
                el_detail_str(ctx, "field", e->field);
                el_detail_str(ctx, "requirement", line);
                break;
            }
            const spec_pin *p = spec_pin_find(pins, n_pins, r->canonical_name);
            if (!p) {
                add_root(mem, pass ? &constraints : &reqs, "pypi", line,
                         pass ? ROOT_CONSTRAINT : ROOT_REQUIREMENT, false, e->field, e->line,
                         e->column);
            } else if (spec_pin_permits(p, r)) {
                ptrvec_push(&notes, arena_sprintf(mem, "%s is Datalayer's to pin; `%s` agrees and "
                                                       "is dropped", p->canonical, line));
            } else {
                rc = el_fail(ctx, EL_PROTECTED_PACKAGE, SPEC_PIN_EXCLUDED, r->name, p->supported,
                             line);
                el_detail_str(ctx, "field", e->field);
                el_detail_str(ctx, "package", r->canonical_name);
                el_detail_str(ctx, "requested", pypi_specset_len(r->specset)
                                                    ? pypi_specset_str(r->specset)
                                                    : "any");
                el_detail_str(ctx, "supported", p->supported);
                if (e->line) {
                    el_detail_int(ctx, "line", e->line);
                    el_detail_int(ctx, "column", e->column);
                }
            }
            pypi_requirement_free(r);
        }
    }
    if (rc == EL_OK) {
        ptrvec roots = PTRVEC_INIT;
        for (size_t i = 0; i < reqs.len; i++)
            ptrvec_push(&roots, reqs.items[i]);
        for (size_t k = 0; k < n_pins; k++)
            add_root(mem, &roots, "pypi", pins[k].text, ROOT_REQUIREMENT, true, "protected", 0, 0);
        for (size_t i = 0; i < constraints.len; i++)
            ptrvec_push(&roots, constraints.items[i]);
        for (size_t k = 0; k < n_pins; k++)
            add_root(mem, &roots, "pypi", pins[k].text, ROOT_CONSTRAINT, true, "protected", 0, 0);
        out->roots = arena_alloc(mem, (roots.len + 1) * sizeof *out->roots);
        for (size_t i = 0; i < roots.len; i++)
            out->roots[i] = *(resolve_root *)roots.items[i];
        out->n_roots = roots.len;
        out->notes = arena_alloc(mem, (notes.len + 1) * sizeof *out->notes);
        for (size_t i = 0; i < notes.len; i++)
            out->notes[i] = notes.items[i];
        out->n_notes = notes.len;
        ptrvec_release(&roots);
    }
    ptrvec_release(&reqs);
    ptrvec_release(&constraints);
    ptrvec_release(&notes);
    spec_pins_free(pins, n_pins);
    return rc;
}

/* ---- the whole request ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The requirements of a `requirements` dependency file, or NULL for any
 * other source. */
static bool is_requirements(const el_spec *spec)
{
    const char *source = el_spec_text(spec, "spec.build.source");
    const char *format = el_spec_text(spec, "spec.build.dependencyFile.sourceFormat");
    return source && format && strcmp(source, "dependencyFile") == 0 &&
           strcmp(format, "requirements") == 0;
}

/* A `pyproject` dependency file: pyproject.toml with its uv.lock. */
static bool is_pyproject(const el_spec *spec)
{
    const char *source = el_spec_text(spec, "spec.build.source");
    const char *format = el_spec_text(spec, "spec.build.dependencyFile.sourceFormat");
    return source && format && strcmp(source, "dependencyFile") == 0 &&
           strcmp(format, "pyproject") == 0;
}

/* A `conda` dependency file: an environment.yml (base_conda.c). */
static bool is_conda(const el_spec *spec)
{
    const char *source = el_spec_text(spec, "spec.build.source");
    const char *format = el_spec_text(spec, "spec.build.dependencyFile.sourceFormat");
    return source && format && strcmp(source, "dependencyFile") == 0 &&
           strcmp(format, "conda") == 0;
}

static el_code check_source(el_ctx *ctx, const el_spec *spec)
{
    const char *source = el_spec_text(spec, "spec.build.source");
    if (source && strcmp(source, "dependencyFile") == 0 && !is_requirements(spec) &&
        !is_pyproject(spec) && !is_conda(spec)) {
        const char *format = el_spec_text(spec, "spec.build.dependencyFile.sourceFormat");
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED,
                "a `%s` dependency file is not resolved by envlock yet: only `requirements`, "
                "`pyproject` and `conda` are",
                format ? format : "(unknown)");
        el_detail_str(ctx, "field", "spec.build.dependencyFile.sourceFormat");
        return EL_CAPABILITY_UNSUPPORTED;
    }
    if (source && strcmp(source, "packages") != 0 && strcmp(source, "image") != 0 &&
        strcmp(source, "dependencyFile") != 0) {
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED,
                "`%s` is not resolved by envlock yet: only `packages`, `dependencyFile` and "
                "`image` are", source);
        el_detail_str(ctx, "field", "spec.build.source");
        return EL_CAPABILITY_UNSUPPORTED;
    }
    const char *manager = el_spec_text(spec, "spec.packages.python.manager");
    if (manager && strcmp(manager, "conda") == 0) {
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED,
                "Conda environments resolve through their own solver, which is not built yet: "
                "use `uv` or `pip` syntax");
        el_detail_str(ctx, "field", "spec.packages.python.manager");
        return EL_CAPABILITY_UNSUPPORTED;
    }
    return EL_OK;
}

/* Splits the entries of one list out of the whole array (a view, no copy). */
static size_t take(const el_spec_entry *all, size_t n, el_spec_list list, size_t *from)
{
    *from = 0;
    while (*from < n && all[*from].list != list)
        (*from)++;
    size_t k = *from;
    while (k < n && all[k].list == list)
        k++;
    return k - *from;
}

/* npm prefers the versions whose engines.node admits the node it runs
 * with; a base that names no node leaves that preference out, and the user
 * should know the npm choices may then differ (corpus/bases/README.md). */
static void add_node_note(target_request *r, const target_base *base)
{
    const char **notes = arena_alloc(r->mem, (r->n_notes + 2) * sizeof *notes);
    for (size_t i = 0; i < r->n_notes; i++)
        notes[i] = r->notes[i];
    notes[r->n_notes++] = arena_sprintf(
        r->mem,
        "`%s:%s` names no node version: npm's preference for versions whose engines.node "
        "admits its node is not applied, so npm may pick other versions than this lock",
        base->ref, base->channel);
    r->notes = notes;
}

/* The sorted set of required + optional variants, or {datalayer}. */
static const char **spec_variants(arena *mem, const el_spec_entry *all, size_t n_all, size_t *n)
{
    size_t from, nv = take(all, n_all, EL_SPEC_VARIANTS, &from);
    const char **variants = arena_alloc(mem, (nv + 2) * sizeof *variants);
    size_t k = 0;
    for (size_t i = 0; i < nv; i++)
        variants[k++] = all[from + i].text;
    if (!k)
        variants[k++] = "datalayer";
    qsort(variants, k, sizeof *variants, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || strcmp(variants[u - 1], variants[i]) != 0)
            variants[u++] = variants[i];
    variants[u] = NULL;
    *n = u;
    return variants;
}

static bool builds_from_image(const char *variant)
{
    return strcmp(variant, "modal") != 0;
}

static el_code python_mismatch(el_ctx *ctx, const char *python, const char *what,
                               const char *provides, const char *kind)
{
    el_fail(ctx, EL_SPEC_INVALID,
            "Python %s is not what `%s` provides (%s); it is validated against the %s, "
            "not replaced",
            python ? python : "(none)", what, provides, kind);
    el_detail_str(ctx, "field", "spec.language.version");
    return EL_SPEC_INVALID;
}

/* The base and the image the variants build on, with the spec's Python
 * checked against what its build source validates it with (the base, or
 * for an image source the image: REFERENCE §1 rule 3 skips the base). The
 * base is looked up only when a variant builds on it; *image stays NULL
 * unless the source is `image`. */
static el_code find_targets(el_ctx *ctx, const target_catalog *cat, const el_spec *spec,
                            const char *const *variants, const target_base **base,
                            const target_base **image)
{
    *base = *image = NULL;
    const char *source = el_spec_text(spec, "spec.build.source");
    bool from_image = source && strcmp(source, "image") == 0, need_base = !from_image;
    const char *python = el_spec_python_version(spec);
    if (from_image) {
        const char *ref = el_spec_text(spec, "spec.build.image.reference");
        if (!(*image = target_catalog_find_image(ctx, cat, ref ? ref : "")))
            return el_ctx_code(ctx);
        if (!python || strcmp(python, (*image)->python_minor) != 0)
            return python_mismatch(ctx, python, (*image)->image, (*image)->python_minor, "image");
        for (const char *const *v = variants; *v; v++)
            need_base |= !builds_from_image(*v);
    }
    const char *ref = el_spec_text(spec, "spec.base.ref");
    const char *channel = el_spec_text(spec, "spec.base.channel");
    *base = target_catalog_find(ctx, cat, ref ? ref : "", channel ? channel : "");
    if (!*base && need_base)
        return el_ctx_code(ctx);
    if (!*base)
        el_ctx_clear(ctx); /* only its digests were wanted */
    if (!from_image && (!python || strcmp(python, (*base)->python_minor) != 0))
        return python_mismatch(ctx, python, (*base)->ref, (*base)->python_minor, "base");
    return EL_OK;
}

/* An image target carries the base's protected pins, held at the versions
 * the base holds them: Datalayer's builder puts its wheelhouse (the
 * protected stack) on an image source before the sync (REFERENCE §7,
 * datalayer), so those come from there, never from an index, and the
 * contract's pins hold on every variant. */
static void with_wheelhouse(arena *mem, target_base *t, const target_base *base)
{
    size_t n = 0, m = 0;
    while (t->preinstalled && t->preinstalled[n])
        n++;
    while (base->preinstalled && base->preinstalled[m])
        m++;
    const char **pre = arena_alloc(mem, (n + m + 1) * sizeof *pre);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        pre[k++] = t->preinstalled[i];
    for (size_t i = 0; i < m; i++) {
        pypi_requirement *q = pypi_requirement_parse(base->preinstalled[i], NULL);
        bool pinned = false;
        for (const char *const *p = base->protected_pins; q && p && *p && !pinned; p++) {
            pypi_requirement *pq = pypi_requirement_parse(*p, NULL);
            pinned = pq && strcmp(pq->canonical_name, q->canonical_name) == 0;
            pypi_requirement_free(pq);
        }
        bool dup = false;
        for (size_t j = 0; q && pinned && j < k && !dup; j++) {
            pypi_requirement *o = pypi_requirement_parse(pre[j], NULL);
            dup = o && strcmp(o->canonical_name, q->canonical_name) == 0;
            pypi_requirement_free(o);
        }
        if (pinned && !dup)
            pre[k++] = base->preinstalled[i];
        pypi_requirement_free(q);
    }
    pre[k] = NULL;
    t->preinstalled = pre;
    t->protected_pins = base->protected_pins;
}

/* Each variant's digest (of the base, or of the image it builds from when
 * the catalog records one) and "<repository>@<digest>" / the image's
 * reference; and the two targets as the lock records them: the spec's base
 * ref and channel with these per-variant digests. */
static el_code variant_digests(el_ctx *ctx, target_request *r, const el_spec *spec,
                               const target_base *base, const target_base *image,
                               const char *const *variants, size_t nv, target_base **tb_base,
                               target_base **tb_image)
{
    const char **digests = arena_alloc(r->mem, (nv + 1) * sizeof *digests);
    r->resolved_bases = arena_alloc(r->mem, (nv + 1) * sizeof *r->resolved_bases);
    for (size_t i = 0; i < nv; i++) {
        if (image && builds_from_image(variants[i])) {
            digests[i] = image->image_digest;
            r->resolved_bases[i] = digests[i] ? arena_sprintf(r->mem, "%s@%s", image->image,
                                                              digests[i])
                                              : image->image;
            continue;
        }
        if (!(digests[i] = target_base_digest(ctx, base, variants[i])))
            return el_ctx_code(ctx);
        r->resolved_bases[i] = arena_sprintf(r->mem, "%s@%s", base->repository, digests[i]);
    }
    const char *ref = base ? base->ref : el_spec_text(spec, "spec.base.ref");
    const char *channel = base ? base->channel : el_spec_text(spec, "spec.base.channel");
    for (int k = 0; k < 2; k++) {
        const target_base *from = k ? image : base;
        if (!from)
            continue;
        target_base *t = arena_alloc(r->mem, sizeof *t);
        *t = *from;
        t->ref = ref;
        t->channel = channel;
        t->variants = variants;
        t->digests = digests;
        t->n_variants = nv;
        if (k && base)
            with_wheelhouse(r->mem, t, base);
        *(k ? tb_image : tb_base) = t;
    }
    return EL_OK;
}

/* The request part for one target: its protected pins merged into the
 * Python roots, the npm and apt roots, its apt sources then the spec's. */
static el_code build_part(el_ctx *ctx, target_request *r, const el_spec *spec,
                          const el_spec_entry *all, size_t n_all, const target_base *tb,
                          const target_request_options *o, resolve_request *rq)
{
    rq->base = tb;
    rq->spec_digest = r->spec_digest;
    size_t fd, nd = take(all, n_all, EL_SPEC_PYTHON_DEPENDENCIES, &fd);
    size_t fc, nc = take(all, n_all, EL_SPEC_PYTHON_CONSTRAINTS, &fc);
    target_merged m;
    el_code rc = target_merge(ctx, r->mem, tb->protected_pins, all + fd, nd, all + fc, nc, &m);
    if (rc != EL_OK)
        return rc;
    if (!r->notes || m.n_notes > r->n_notes) {
        r->notes = m.notes;
        r->n_notes = m.n_notes;
    }
    size_t fn, nn = take(all, n_all, EL_SPEC_NODE_DEPENDENCIES, &fn);
    if (nn && !tb->node_version && rq == &r->parts[0].rq)
        add_node_note(r, tb);
    size_t fa, na = take(all, n_all, EL_SPEC_APT, &fa);
    resolve_root *roots = arena_alloc(r->mem, (m.n_roots + nn + na + 1) * sizeof *roots);
    size_t n_roots = 0;
    for (size_t i = 0; i < m.n_roots; i++)
        roots[n_roots++] = m.roots[i];
    for (size_t pass = 0; pass < 2; pass++) {
        size_t f = pass ? fa : fn, n = pass ? na : nn;
        for (size_t i = 0; i < n; i++) {
            const el_spec_entry *e = &all[f + i];
            char *text = arena_trimmed(r->mem, e->text);
            if (!*text)
                continue;
            roots[n_roots++] = (resolve_root){ pass ? "deb" : "npm", text, ROOT_REQUIREMENT,
                                               false, arena_strdup(r->mem, e->field), e->line,
                                               e->column, false };
        }
    }
    rq->roots = roots;
    rq->n_roots = n_roots;

    /* Where to read: the spec's indexes, the registry, the target's apt
     * sources and then the spec's. */
    rq->pypi_indexes = el_spec_python_indexes(spec, &rq->n_pypi_indexes);
    rq->npm_registry = el_spec_npm_registry(spec);
    if (!rq->npm_registry)
        rq->npm_registry = DEFAULT_NPM_REGISTRY;
    size_t n_spec_src = 0, n_base_src = 0;
    const char *const *spec_src = el_spec_apt_sources(spec, &n_spec_src);
    while (tb->apt_sources && tb->apt_sources[n_base_src])
        n_base_src++;
    const char **sources = arena_alloc(r->mem, (n_base_src + n_spec_src + 1) * sizeof *sources);
    for (size_t i = 0; i < n_base_src; i++)
        sources[rq->n_apt_sources++] = tb->apt_sources[i];
    for (size_t i = 0; i < n_spec_src; i++)
        sources[rq->n_apt_sources++] = spec_src[i];
    rq->apt_sources = sources;
    rq->apt_keyring = tb->apt_keyring;
    if (o) {
        rq->exclude_newer = o->exclude_newer ? arena_strdup(r->mem, o->exclude_newer) : NULL;
        /* With --upgrade the request still carries the old lock, but only
         * as a prefetch list: resolver.h's contract is that upgrade_all
         * ignores `previous` as a preference, and resolver_prefer.c reads it
         * then only in resolver_prefetch_locked() (the names the crawl's
         * first cache run revalidates together). The lock and the answer
         * are the same as with no lock at all. */
        rq->previous = o->upgrade_all ? o->prefetch : o->previous;
        rq->upgrade_all = o->upgrade_all;
        rq->upgrade = o->upgrade;
        rq->n_upgrade = o->n_upgrade;
        rq->debug_solver_dir = o->debug_solver_dir;
        rq->explain_full = o->explain_full;
        rq->stats = o->stats;
        rq->stats_user = o->stats_user;
    }
    return EL_OK;
}

/* One part per distinct target, in the order of each one's first variant. */
static el_code build_parts(el_ctx *ctx, target_request *r, const el_spec *spec,
                           const el_spec_entry *all, size_t n_all, const target_base *tb_base,
                           const target_base *tb_image, const target_request_options *o)
{
    const char *const *variants = r->rq.variants;
    size_t nv = 0;
    while (variants[nv])
        nv++;
    r->parts = arena_alloc(r->mem, 3 * sizeof *r->parts);
    memset(r->parts, 0, 3 * sizeof *r->parts);
    for (size_t i = 0; i < nv; i++) {
        const target_base *t = tb_image && builds_from_image(variants[i]) ? tb_image : tb_base;
        size_t k = 0;
        while (k < r->n_parts && r->parts[k].target != t)
            k++;
        target_part *p = &r->parts[k];
        if (k == r->n_parts) {
            r->n_parts++;
            p->target = t;
            p->variants = arena_alloc(r->mem, (nv + 1) * sizeof *p->variants);
            p->rq.variants = variants;
            el_code rc = build_part(ctx, r, spec, all, n_all, t, o, &p->rq);
            if (rc != EL_OK)
                return rc;
        }
        size_t j = 0;
        while (p->variants[j])
            j++;
        p->variants[j] = variants[i];
    }
    r->rq = r->parts[0].rq;
    return EL_OK;
}

/* A requirements file's lines stand where `packages.python.dependencies`
 * stands (REFERENCE §3: the source's requirements, then the same merge):
 * `all` with its Python dependencies replaced by the file's requirements,
 * each with its field `content[i]` and its position in the spec text. The
 * lists stay in their bit order, which take() relies on. */
el_spec_entry *target_reqfile_entries(target_request *r, spec_reqfile *f,
                                      const target_request_options *o, el_spec_entry *all,
                                      size_t *n_all)
{
    spec_reqfile_locate(o ? o->spec_text : NULL, o ? o->spec_len : 0, o ? o->spec_opts : NULL,
                        NULL, f->reqs, f->n_reqs);
    r->reqfile = f;
    el_spec_entry *out = xcalloc(f->n_reqs + *n_all + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < f->n_reqs; i++) {
        const spec_req *q = &f->reqs[i];
        const char *field = q->field ? q->field
                                     : arena_sprintf(r->mem, "spec.build.dependencyFile.content[%u]",
                                                     q->index);
        out[k++] = (el_spec_entry){ EL_SPEC_PYTHON_DEPENDENCIES, q->text, field, q->file_line,
                                    q->file_column };
    }
    for (size_t i = 0; i < *n_all; i++)
        if (all[i].list != EL_SPEC_PYTHON_DEPENDENCIES)
            out[k++] = all[i];
    free(all);
    *n_all = k;
    return out;
}

static el_spec_entry *with_requirements(target_request *r, const el_spec *spec,
                                        const target_request_options *o, el_spec_entry *all,
                                        size_t *n_all)
{
    const char *content = el_spec_text(spec, "spec.build.dependencyFile.content");
    spec_reqfile *f = spec_reqfile_parse(r->mem, content ? content : "");
    return target_reqfile_entries(r, f, o, all, n_all);
}

/* A `pyproject` source asks nothing of PyPI: uv.lock is its Python answer,
 * and the protected pins are checked against it, not solved for. */
static void without_pypi_roots(target_request *r)
{
    for (size_t k = 0; k < r->n_parts; k++) {
        resolve_request *rq = &r->parts[k].rq;
        resolve_root *roots = arena_alloc(r->mem, (rq->n_roots + 1) * sizeof *roots);
        size_t n = 0;
        for (size_t i = 0; i < rq->n_roots; i++)
            if (strcmp(rq->roots[i].ecosystem, "pypi") != 0)
                roots[n++] = rq->roots[i];
        rq->roots = roots;
        rq->n_roots = n;
    }
    r->rq = r->parts[0].rq;
}

el_code target_request_build(el_ctx *ctx, const target_catalog *cat, const el_spec *spec,
                             const target_request_options *o, target_request **out)
{
    *out = NULL;
    el_code rc = el_spec_validate(ctx, spec);
    if (rc != EL_OK || (rc = check_source(ctx, spec)) != EL_OK)
        return rc;
    target_request *r = xcalloc(1, sizeof *r);
    r->mem = arena_new();
    size_t n_all = 0;
    el_spec_entry *all = el_spec_entries(spec,
                                         EL_SPEC_PYTHON_DEPENDENCIES | EL_SPEC_PYTHON_CONSTRAINTS |
                                             EL_SPEC_NODE_DEPENDENCIES | EL_SPEC_APT |
                                             EL_SPEC_VARIANTS,
                                         &n_all);
    if (o && o->spec_text)
        el_spec_entries_locate(all, n_all, o->spec_text, o->spec_len, o->spec_opts);
    if (is_requirements(spec))
        all = with_requirements(r, spec, o, all, &n_all);
    else if (is_conda(spec))
        all = target_pip_layer(r, spec, o, all, &n_all);
    size_t nv = 0;
    const char **variants = spec_variants(r->mem, all, n_all, &nv);
    r->rq.variants = variants;
    const target_base *base = NULL, *image = NULL;
    target_base *tb_base = NULL, *tb_image = NULL;
    if ((rc = find_targets(ctx, cat, spec, variants, &base, &image)) == EL_OK &&
        (rc = el_spec_digest(ctx, spec, r->spec_digest)) == EL_OK &&
        (rc = variant_digests(ctx, r, spec, base, image, variants, nv, &tb_base, &tb_image)) ==
            EL_OK &&
        (!is_pyproject(spec) ||
         (rc = target_pyproject(ctx, r, spec, tb_base, o, &all, &n_all)) == EL_OK))
        rc = build_parts(ctx, r, spec, all, n_all, tb_base, tb_image, o);
    if (rc == EL_OK && r->uvlock)
        without_pypi_roots(r);
    if (rc == EL_OK && is_conda(spec))
        rc = target_conda(ctx, r, spec, o);
    free(all);
    if (rc != EL_OK) {
        target_request_free(r);
        return rc;
    }
    *out = r;
    return EL_OK;
}

void target_request_free(target_request *r)
{
    if (!r)
        return;
    arena_free(r->mem);
    free(r);
}

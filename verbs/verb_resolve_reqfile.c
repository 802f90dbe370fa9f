/* verb_resolve_reqfile.c — what a `requirements` dependency file asks of a
 * resolve beyond its requirements (base_request.c makes those the roots):
 * its --pre, --only-binary, --no-binary and --prefer-binary, applied as
 * envlock's own options so the lock records them, and pip's hash-checking mode, checked
 * against the artifacts the solve locked. It reads the file as the spec
 * stage read it (spec_requirements.h) and decides nothing else. */
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "spec_requirements.h"
#include "base_request.h"
#include "verbs_internal.h"

/* `cli` then `file`, each name once (the file's are PEP 503 already). */
static const char *const *joined(arena *mem, const char *const *cli, size_t n_cli,
                                 const char *const *file, size_t n_file, size_t *n)
{
    const char **v = arena_alloc(mem, (n_cli + n_file + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n_cli; i++)
        v[k++] = cli[i];
    for (size_t i = 0; i < n_file; i++) {
        bool seen = false;
        for (size_t j = 0; j < n_cli && !seen; j++) {
            char *c = pypi_name_canonical(cli[j]);
            seen = strcmp(c, file[i]) == 0 || strcmp(cli[j], file[i]) == 0;
            free(c);
        }
        if (!seen)
            v[k++] = file[i];
    }
    *n = k;
    return v;
}

void verbs_reqfile_options(target_request *tr, const char *asked_prerelease,
                           const el_resolve_options *o)
{
    const spec_reqfile *f = tr->reqfile;
    if (!f)
        return;
    /* pip's --pre lets every pre-release be a candidate: uv's `allow`;
     * --prerelease on the command line still decides */
    if (f->pre && !asked_prerelease)
        tr->rq.prereleases = "allow";
    tr->rq.only_binary = joined(tr->mem, o->only_binary, o->n_only_binary, f->only_binary,
                                f->n_only_binary, &tr->rq.n_only_binary);
    tr->rq.no_binary = joined(tr->mem, o->no_binary, o->n_no_binary, f->no_binary,
                              f->n_no_binary, &tr->rq.n_no_binary);
    /* pip's --prefer-binary: an older wheel before a newer sdist (envlock
     * has no command-line form of it) */
    tr->rq.prefer_binary = f->prefer_binary;
}

static const lock_package *locked(const lock_doc *doc, const char *canonical)
{
    for (size_t i = 0; i < doc->n_packages; i++)
        if (strcmp(doc->packages[i].ecosystem, "pypi") == 0 &&
            strcmp(doc->packages[i].name, canonical) == 0)
            return &doc->packages[i];
    return NULL;
}

static bool listed(const spec_req *q, const char *hash)
{
    for (size_t i = 0; i < q->n_hashes; i++)
        if (strcmp(q->hashes[i], hash) == 0)
            return true;
    return false;
}

/* The requirement naming `canonical`, or NULL. */
static const spec_req *naming(const spec_reqfile *f, const char *canonical)
{
    for (size_t i = 0; i < f->n_reqs; i++) {
        pypi_requirement *pr = pypi_requirement_parse(f->reqs[i].text, NULL);
        bool same = pr && strcmp(pr->canonical_name, canonical) == 0;
        pypi_requirement_free(pr);
        if (same)
            return &f->reqs[i];
    }
    return NULL;
}

/* pip installs nothing without a hash in hash-checking mode, dependencies
 * included: every package the lock installs (not already in the base) is
 * one the file lists. */
static el_code all_listed(el_ctx *ctx, const spec_reqfile *f, const lock_doc *doc)
{
    for (size_t i = 0; i < doc->n_packages; i++) {
        const lock_package *p = &doc->packages[i];
        if (strcmp(p->ecosystem, "pypi") != 0 || p->installed_in_base || naming(f, p->name))
            continue;
        const char *by = p->requested_by && p->requested_by[0] ? p->requested_by[0] : "spec";
        el_code rc = f->what
            ? el_fail(ctx, EL_RESOLVE_CONFLICT,
                      "%s %s is needed (by %s) and %s does not lock it for this target: the "
                      "index's metadata asks for more than uv resolved, so run `uv lock` and "
                      "bring the updated uv.lock",
                      p->name, p->version, by, f->what)
            : el_fail(ctx, EL_RESOLVE_CONFLICT,
                      "%s %s is needed (by %s) and the requirements do not list it: in "
                      "hash-checking mode pip installs nothing without a hash, so add "
                      "`%s==%s` with its --hash lines",
                      p->name, p->version, by, p->name, p->version);
        el_detail_str(ctx, "field", f->what ? "spec.build.dependencyFile.lockContent"
                                            : "spec.build.dependencyFile.content");
        el_detail_str(ctx, "package", p->name);
        return rc;
    }
    return EL_OK;
}

/* Hash-checking mode: every artifact the lock installs for a requirement
 * that lists hashes is one of them, as pip refuses a download whose hash
 * the line does not list. A package the base already holds installs
 * nothing, and one the target's markers leave out is not locked. */
el_code verbs_reqfile_hashes(el_ctx *ctx, const target_request *tr, const lock_doc *doc)
{
    const spec_reqfile *f = tr->reqfile;
    for (size_t i = 0; f && f->require_hashes && i < f->n_reqs; i++) {
        const spec_req *q = &f->reqs[i];
        pypi_requirement *pr = pypi_requirement_parse(q->text, NULL);
        const lock_package *p = pr ? locked(doc, pr->canonical_name) : NULL;
        pypi_requirement_free(pr);
        if (!p || p->installed_in_base)
            continue;
        for (size_t a = 0; a < p->n_artifacts; a++) {
            const lock_artifact *art = &p->artifacts[a];
            if (listed(q, art->hash))
                continue;
            el_code rc = f->what
                ? el_fail(ctx, EL_RESOLVE_CONFLICT,
                          "`%s` (line %u of the %s) records %zu hash%s, and the index serves "
                          "`%s` of %s %s with %s: the index is not the one uv locked from, or "
                          "its file changed; run `uv lock` against the spec's index and bring "
                          "the updated uv.lock",
                          q->text, q->line, f->what, q->n_hashes, q->n_hashes == 1 ? "" : "es",
                          art->file, p->name, p->version, art->hash)
                : el_fail(ctx, EL_RESOLVE_CONFLICT,
                          "`%s` (line %u of the requirements) lists %zu hash%s, and the "
                          "index serves `%s` of %s %s with %s: bring the hashes of the "
                          "files the index serves, or pin the version they belong to",
                          q->text, q->line, q->n_hashes, q->n_hashes == 1 ? "" : "es",
                          art->file, p->name, p->version, art->hash);
            el_detail_str(ctx, "field",
                          q->field ? q->field
                                   : arena_sprintf(tr->mem,
                                                   "spec.build.dependencyFile.content[%u]",
                                                   q->index));
            el_detail_str(ctx, "package", p->name);
            el_detail_str(ctx, "served", art->hash);
            if (q->file_line) {
                el_detail_int(ctx, "line", q->file_line);
                el_detail_int(ctx, "column", q->file_column);
            }
            el_detail_int(ctx, "contentLine", q->line);
            el_detail_int(ctx, "contentColumn", q->column);
            return rc;
        }
    }
    return f && f->require_hashes ? all_listed(ctx, f, doc) : EL_OK;
}

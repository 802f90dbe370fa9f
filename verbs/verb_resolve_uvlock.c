/* verb_resolve_uvlock.c — the Python part of a lock read from a `pyproject`
 * source's uv.lock (REFERENCE §3: never re-solved), asking no index: what
 * the selection (spec_uvlock.h) holds for the target, each package with one
 * file chosen as installers choose (the wheel whose tags the target ranks
 * best, else the sdist), its hash, size and URL as uv.lock records them,
 * the edges the selection followed, and the digests of both files as the
 * lock's `dependencyFile` (docs/lock-format.md). A package the base already
 * holds at that version installs nothing, as a solve would have said.
 * Workspace members are not packages of the lock (their dependencies are):
 * a note names them. It decides nothing about which packages: the envspec
 * stage did. */
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "pypi_index.h"
#include "spec_uvlock.h"
#include "base_request.h"
#include "verbs_internal.h"

#define F_CONTENT "spec.build.dependencyFile.content"
#define F_LOCK "spec.build.dependencyFile.lockContent"

/* `name` (canonical) at `version` among the base's preinstalled dists. */
static bool in_base(const target_base *tb, const char *name, const char *version)
{
    for (size_t i = 0; tb->preinstalled && tb->preinstalled[i]; i++) {
        pypi_requirement *q = pypi_requirement_parse(tb->preinstalled[i], NULL);
        const char *eq = strstr(tb->preinstalled[i], "==");
        int cmp = 1;
        bool same = q && eq && strcmp(q->canonical_name, name) == 0 &&
                    pypi_version_cmp_str(eq + 2, version, &cmp, NULL) == 0 && cmp == 0;
        pypi_requirement_free(q);
        if (same)
            return true;
    }
    return false;
}

/* Whether `name` is in a build-option list (names any spelling, ":all:"). */
static bool named_in(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        char *c = pypi_name_canonical(list[i]);
        bool hit = strcmp(list[i], ":all:") == 0 || strcmp(c, name) == 0;
        free(c);
        if (hit)
            return true;
    }
    return false;
}

/* The file installers take for the target: the wheel whose tags rank best
 * (uv.lock's order on a tie), unless --no-binary names the package; else
 * the sdist, unless --no-build or --only-binary does. NULL for none. */
static const spec_uvfile *choose(arena *mem, const pypi_tags *tags, const resolve_request *rq,
                                 const spec_uvpkg *u)
{
    const spec_uvfile *best = NULL, *sdist = NULL;
    long best_rank = -1;
    bool wheels_ok = !named_in(rq->no_binary, rq->n_no_binary, u->name);
    for (size_t i = 0; i < u->n_files; i++) {
        const spec_uvfile *f = &u->files[i];
        char *file = f->url && f->hash ? lock_url_file(f->url) : NULL;
        pypi_wheel_name w;
        char *err = NULL;
        if (file && !f->wheel)
            sdist = sdist ? sdist : f;
        else if (file && wheels_ok && pypi_wheel_name_parse(mem, file, &w, &err)) {
            long rank = pypi_wheel_rank(tags, &w);
            if (rank >= 0 && (best_rank < 0 || rank < best_rank)) {
                best = f;
                best_rank = rank;
            }
        }
        free(err);
        free(file);
    }
    if (best || !sdist || rq->no_build || named_in(rq->only_binary, rq->n_only_binary, u->name))
        return best;
    return sdist;
}

static el_code no_file(el_ctx *ctx, const pypi_tags *tags, const spec_uvpkg *u)
{
    el_code rc = el_fail(ctx, EL_PACKAGE_NOT_FOUND,
                         "%s %s (line %u of the uv.lock) has no file this target installs: no "
                         "wheel fits %s on %s, and no sdist may be built: lock it with uv for "
                         "this platform, or allow building from source",
                         u->name, u->version, u->line, pypi_tags_interp(tags),
                         pypi_tags_platform(tags));
    el_detail_str(ctx, "field", F_LOCK);
    el_detail_str(ctx, "package", u->name);
    el_detail_int(ctx, "contentLine", u->line);
    return rc;
}

/* The spec's spelling of the index uv.lock names (validation made sure
 * there is one): lock sources are what the spec names. */
static const char *spec_index(const resolve_request *rq, const char *registry)
{
    for (size_t k = 0; registry && k < rq->n_pypi_indexes; k++)
        if (spec_index_same(rq->pypi_indexes[k], registry))
            return rq->pypi_indexes[k];
    return registry;
}

/* One selected package onto `lp`: its source and chosen file, or nothing
 * to install when the base holds it. */
static el_code fill(el_ctx *ctx, lock_doc *doc, lock_package *lp, const spec_uvpkg *u,
                    const resolve_request *rq, const pypi_tags *tags)
{
    lp->ecosystem = "pypi";
    lp->name = lock_strdup(doc, u->name);
    lp->version = lock_strdup(doc, u->version);
    for (size_t x = 0; u->extras && u->extras[x]; x++)
        lock_strv_add(doc, &lp->extras, u->extras[x]);
    if (in_base(rq->base, u->name, u->version)) {
        lp->installed_in_base = true;
        return EL_OK;
    }
    const spec_uvfile *f = choose(doc->mem, tags, rq, u);
    if (!f)
        return no_file(ctx, tags, u);
    lp->source = lock_strdup(doc, spec_index(rq, u->registry));
    lock_artifact *a = lock_package_add_artifact(doc, lp);
    char *file = lock_url_file(f->url);
    a->file = lock_strdup(doc, file);
    free(file);
    a->url = lock_strdup(doc, f->url);
    a->hash = lock_strdup(doc, f->hash);
    a->size = f->size;
    return EL_OK;
}

/* The edges the selection followed: dependencies and requestedBy. */
static void link_edges(lock_doc *doc, size_t first, const spec_uvlock *u)
{
    for (size_t i = 0; i < u->n_edges; i++) {
        const spec_uvedge *e = &u->edges[i];
        lock_package *to = &doc->packages[first + (size_t)e->to];
        if (e->from < 0) {
            lock_strv_add(doc, &to->requested_by, "spec");
            continue;
        }
        lock_package *from = &doc->packages[first + (size_t)e->from];
        lock_edge *d = lock_package_add_dep(doc, from);
        d->ecosystem = "pypi";
        d->name = to->name;
        d->version = to->version;
        d->kind = "requires";
        d->spec = lock_strdup(doc, e->spec);
        char *by = xasprintf("pypi:%s@%s", from->name, from->version);
        lock_strv_add(doc, &to->requested_by, by);
        free(by);
    }
}

const char *verbs_text_digest(arena *mem, const char *text)
{
    char hex[65];
    sha256_hex(text ? text : "", text ? strlen(text) : 0, hex);
    return arena_sprintf(mem, "sha256:%s", hex);
}

/* The workspace members the selection reached, said once: they are the
 * project's own source, which the lock does not install (uv installs them
 * from their directories; envlock locks only what an index serves). */
static void note_members(const spec_uvlock *u, void (*note)(void *, const char *), void *user)
{
    if (!u->n_members || !note)
        return;
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "pypi: uv.lock's workspace member%s ", u->n_members == 1 ? "" : "s");
    for (size_t i = 0; i < u->n_members; i++)
        sb_addf(&sb, "%s`%s`", i ? ", " : "", u->members[i]);
    sb_addf(&sb, " %s source, not artifacts: left out of the lock, their dependencies locked "
                 "as the project's; install %s from the project's own tree",
            u->n_members == 1 ? "is" : "are", u->n_members == 1 ? "it" : "them");
    note(user, sb.buf);
    sb_release(&sb);
}

el_code verbs_uvlock_packages(el_ctx *ctx, const target_request *tr, const el_spec *spec,
                              lock_doc *doc, void (*note)(void *, const char *), void *user)
{
    const spec_uvlock *u = tr->uvlock;
    const resolve_request *rq = &tr->rq;
    char *err = NULL;
    pypi_tags *tags = pypi_tags_new(rq->base->python_version, rq->base->platform, &err);
    if (!tags) {
        el_code rc = el_fail(ctx, EL_INTERNAL, "the target's wheel tags: %s", err ? err : "");
        free(err);
        return rc;
    }
    size_t first = doc->n_packages;
    for (size_t i = 0; i < u->n_pkgs; i++)
        lock_doc_add_package(doc);
    el_code rc = EL_OK;
    for (size_t i = 0; i < u->n_pkgs && rc == EL_OK; i++)
        rc = fill(ctx, doc, &doc->packages[first + i], &u->pkgs[i], rq, tags);
    pypi_tags_free(tags);
    if (rc != EL_OK)
        return rc;
    link_edges(doc, first, u);
    note_members(u, note, user);
    doc->dep_format = "pyproject";
    doc->dep_content = verbs_text_digest(doc->mem, el_spec_text(spec, F_CONTENT));
    doc->dep_lock = verbs_text_digest(doc->mem, el_spec_text(spec, F_LOCK));
    return EL_OK;
}

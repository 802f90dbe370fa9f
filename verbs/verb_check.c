/* verb_check.c — the public el_check(): is a lock still a valid answer for
 * its spec? The request the spec makes now (base_request.c), the lock as
 * read, the inputs as their indexes serve them now (verb_check_inputs.c),
 * compared by lock_check(). This file only sequences those steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envlock/resolve.h"
#include "spec_requirements.h"
#include "spec_uvlock.h"
#include "base_request.h"
#include "verb_check_inputs.h"
#include "verbs_internal.h"

static void changes_free(el_check_change *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].kind);
        free(v[i].path);
        free(v[i].before);
        free(v[i].after);
        free(v[i].text);
    }
    free(v);
}

void el_check_result_clear(el_check_result *res)
{
    if (!res)
        return;
    free(res->report);
    changes_free(res->changes, res->n_changes);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

/* The report into the result: its text, and its changes (whose fields
 * el_check_change mirrors), leaving `r` empty. */
static void take_report(el_check_result *res, lock_report *r)
{
    free(res->report);
    res->report = lock_report_text(r);
    changes_free(res->changes, res->n_changes);
    res->changes = xcalloc(r->n + 1, sizeof *res->changes);
    for (size_t i = 0; i < r->n; i++) {
        const lock_change *c = &r->v[i];
        res->changes[i] = (el_check_change){ c->kind, c->path, c->before, c->after, c->text };
    }
    res->n_changes = r->n;
    free(r->v); /* the strings moved into res->changes */
    *r = (lock_report){ 0 };
}

/* What the spec asks for now, in lock_check()'s terms. Borrows the request;
 * the arrays it allocates are freed with release_now(). */
static lock_check_input check_input_now(const target_request *tr, const char *cutoff,
                                        const lock_doc *lock)
{
    const resolve_request *rq = &tr->rq;
    /* every target's requirements (a base target adds its protected pins) */
    size_t cap = 1;
    for (size_t k = 0; k < tr->n_parts; k++)
        cap += tr->parts[k].rq.n_roots;
    lock_check_root *roots = xcalloc(cap, sizeof *roots);
    bool *asked = xcalloc(cap, sizeof *asked);
    size_t n_roots = 0;
    for (size_t k = 0; k < tr->n_parts; k++) {
        const resolve_request *pq = &tr->parts[k].rq;
        for (size_t i = 0; i < pq->n_roots; i++) {
            const resolve_root *rr = &pq->roots[i];
            bool own = !rr->protected_pin && !rr->shared;
            bool dup = rr->kind != ROOT_REQUIREMENT;
            for (size_t j = 0; j < n_roots && !dup; j++)
                if (!strcmp(roots[j].ecosystem, rr->ecosystem) && !strcmp(roots[j].text, rr->text)) {
                    asked[j] = asked[j] || own;
                    dup = true;
                }
            if (!dup) {
                asked[n_roots] = own;
                roots[n_roots++] = (lock_check_root){ rr->ecosystem, rr->text };
            }
        }
    }
    lock_target *targets = NULL;
    if (tr->n_parts > 1) {
        targets = xcalloc(tr->n_parts, sizeof *targets);
        for (size_t k = 0; k < tr->n_parts; k++) {
            const target_base *t = tr->parts[k].target;
            targets[k] = (lock_target){ tr->parts[k].variants, t->python_version, t->platform,
                                        t->arch, t->image };
        }
    }
    size_t nv = 0;
    while (rq->variants[nv])
        nv++;
    const char **digests = xcalloc(nv + 1, sizeof *digests);
    for (size_t i = 0; i < nv; i++) {
        const char *at = strrchr(tr->resolved_bases[i], '@');
        digests[i] = at ? at + 1 : NULL;
    }
    return (lock_check_input){
        .spec_digest = tr->spec_digest,
        .roots = roots,
        .n_roots = n_roots,
        .roots_asked = asked,
        .python_version = rq->base->python_version,
        .platform = rq->base->platform,
        .arch = rq->base->arch,
        .base_ref = rq->base->ref,
        .base_channel = rq->base->channel,
        .variants = rq->variants,
        .base_digests = digests,
        .image = tr->n_parts > 1 ? NULL : rq->base->image,
        .targets = targets,
        .n_targets = targets ? tr->n_parts : 0,
        .exclude_newer = cutoff[0] ? cutoff : lock->exclude_newer,
        .prereleases = lock->prereleases, /* the lock's own: check has no --prerelease */
        .compare_upgrade = false,
    };
}

static void release_now(lock_check_input *in)
{
    free((void *)in->roots);
    free((void *)in->roots_asked);
    free((void *)in->base_digests);
    free((void *)in->targets);
}

/* The inputs now go into `in` (only those the request derives are
 * fetched; the others are foreign), with the index documents read and the
 * sources the request allows, for the artifacts; their notes move to res. */
static el_code fetch_inputs(el_ctx *ctx, const el_cache_options *co, const lock_doc *lock,
                            const resolve_request *rq, lock_check_input *in,
                            el_check_result *res, verb_inputs **now)
{
    el_code rc = verb_inputs_fetch(ctx, co, lock, rq, now);
    if (!*now)
        return rc;
    in->fresh = (*now)->fresh;
    in->n_fresh = (*now)->n_fresh;
    in->gone = (*now)->gone;
    in->n_gone = (*now)->n_gone;
    in->foreign = (*now)->foreign;
    in->n_foreign = (*now)->n_foreign;
    in->check_artifacts = true;
    in->sources = (*now)->sources;
    in->n_sources = (*now)->n_sources;
    in->docs = (*now)->docs;
    in->n_docs = (*now)->n_docs;
    res->notes = (*now)->notes;
    res->n_notes = (*now)->n_notes;
    (*now)->notes = NULL;
    (*now)->n_notes = 0;
    return rc;
}

/* The request whose inputs check reads: the first target's, with the apt
 * sources of every target (a lock of several was made from each one's). The
 * sources array is the caller's to free(). */
static resolve_request every_target(const target_request *tr)
{
    resolve_request all = tr->rq;
    const char **sources = xcalloc(1, sizeof *sources);
    size_t n = 0;
    for (size_t k = 0; k < tr->n_parts; k++) {
        const resolve_request *pq = &tr->parts[k].rq;
        for (size_t i = 0; i < pq->n_apt_sources; i++) {
            bool dup = false;
            for (size_t j = 0; j < n && !dup; j++)
                dup = !strcmp(sources[j], pq->apt_sources[i]);
            if (dup)
                continue;
            sources = xrealloc(sources, (n + 2) * sizeof *sources);
            sources[n++] = pq->apt_sources[i];
        }
        if (!all.apt_keyring)
            all.apt_keyring = pq->apt_keyring;
    }
    all.apt_sources = sources;
    all.n_apt_sources = n;
    return all;
}

/* A `pyproject` source: its files' digests now, and each package uv.lock
 * selects for the target as a `name==version` root (it asks for exactly
 * that version). `mem` holds the strings. */
static void pyproject_now(arena *mem, const target_request *tr, const el_spec *spec,
                          lock_check_input *in)
{
    const spec_uvlock *u = tr->uvlock;
    if (!u)
        return;
    in->dep_content = verbs_text_digest(mem, el_spec_text(spec, "spec.build.dependencyFile.content"));
    in->dep_lock = verbs_text_digest(mem, el_spec_text(spec, "spec.build.dependencyFile.lockContent"));
    lock_check_root *roots = xrealloc((void *)in->roots, (in->n_roots + u->n_pkgs + 1) * sizeof *roots);
    bool *asked = xrealloc((void *)in->roots_asked, (in->n_roots + u->n_pkgs + 1) * sizeof *asked);
    memset(asked + in->n_roots, 0, (u->n_pkgs + 1) * sizeof *asked);
    in->roots_asked = asked;
    for (size_t i = 0; i < u->n_pkgs; i++)
        roots[in->n_roots++] = (lock_check_root){
            "pypi", arena_sprintf(mem, "%s==%s", u->pkgs[i].name, u->pkgs[i].version) };
    in->roots = roots;
}

/* `lock`'s names and the file's, NULL-terminated, in `mem`. */
static const char *const *with_file(arena *mem, const char *const *lock, const char *const *file,
                                    size_t n_file)
{
    size_t n = 0;
    while (lock && lock[n])
        n++;
    const char **v = arena_alloc(mem, (n + n_file + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = lock[i];
    for (size_t i = 0; i < n_file; i++)
        v[n + i] = file[i];
    v[n + n_file] = NULL;
    return v;
}

/* A requirements file's build options now, as a resolve with the command
 * line the lock shows would record them: --prefer-binary as the file says
 * (it has no command-line form); each --only-binary / --no-binary name
 * joined to the lock's (names the command line gave stay; one the file
 * adds is a change); --pre as `allow` when the lock has its manager's
 * default mode (no --prerelease was given). A name or --pre the file drops
 * is not told from one the command line gave: the spec digest line says
 * the file changed. */
static void reqfile_now(arena *mem, const target_request *tr, const el_spec *spec,
                        const lock_doc *lock, lock_check_input *in)
{
    const spec_reqfile *f = tr->reqfile;
    if (!f || tr->uvlock)
        return;
    in->compare_build = true;
    in->only_binary = with_file(mem, (const char *const *)lock->only_binary, f->only_binary,
                                f->n_only_binary);
    in->no_binary = with_file(mem, (const char *const *)lock->no_binary, f->no_binary,
                              f->n_no_binary);
    in->prefer_binary = f->prefer_binary;
    const char *was = lock->prereleases ? lock->prereleases : "if-necessary-or-explicit";
    if (f->pre && strcmp(was, verbs_prerelease_mode(spec, NULL)) == 0)
        in->prereleases = "allow";
}

/* What check re-verifies beside the inputs: the policy and the advisory
 * snapshot as they are now (docs/policy.md, docs/cli.md "check"). */
typedef struct recheck {
    verbs_policy *pol;
    struct osv_db *db;
} recheck;

static el_code recheck_open(el_ctx *ctx, const el_cache_options *co, const el_check_options *o,
                            recheck *g)
{
    el_code rc = verbs_policy_load(ctx, o->policy_path, &g->pol);
    if (rc == EL_OK && o->advisories_dir)
        rc = verbs_advisories_load_cached(ctx, co, o->advisories_dir, NULL, NULL, &g->db);
    return rc;
}

static void recheck_free(recheck *g)
{
    verbs_policy_free(g->pol);
    verbs_advise_db_free(g->db);
}

/* A note of check's result (verbs_policy_notes()'s callback). */
static void add_note(void *user, const char *text)
{
    el_check_result *res = user;
    res->notes = xrealloc(res->notes, (res->n_notes + 1) * sizeof *res->notes);
    res->notes[res->n_notes++] = xstrdup(text);
}

static el_code compare(el_ctx *ctx, const el_cache_options *co, const target_request *tr,
                       const el_spec *spec, const char *cutoff, const char *lock_path,
                       const recheck *g, el_check_result *res)
{
    lock_doc *lock = verbs_lock_read(ctx, lock_path, res->lock_digest);
    if (!lock)
        return el_ctx_code(ctx);
    lock_check_input in = check_input_now(tr, cutoff, lock);
    pyproject_now(tr->mem, tr, spec, &in);
    reqfile_now(tr->mem, tr, spec, lock, &in);
    verb_inputs *now = NULL;
    resolve_request all = every_target(tr);
    el_code rc = fetch_inputs(ctx, co, lock, &all, &in, res, &now);
    lock_report report = { 0 };
    bool stale = false;
    if (rc == EL_OK)
        rc = lock_check(ctx, lock, &in, &stale, &report);
    if (rc == EL_OK && verbs_policy_recheck(g->pol, lock, &report))
        stale = true;
    if (rc == EL_OK)
        verbs_policy_notes(g->pol, lock, add_note, res);
    if (rc == EL_OK && verbs_advise_recheck(g->db, lock, &report))
        stale = true;
    if (rc == EL_OK) {
        res->stale = stale;
        take_report(res, &report);
    }
    lock_report_release(&report);
    verb_inputs_free(now);
    free((void *)all.apt_sources);
    release_now(&in);
    lock_doc_free(lock);
    return rc;
}

/* A lock checked against a spec whose uv.lock no longer answers its
 * pyproject.toml (a dependency added to pyproject.toml without `uv lock`):
 * the lock is stale, one line per drift, as for any other change of the
 * spec. Nothing else is compared: until `uv lock` runs, the spec asks for
 * nothing a lock could answer. The lock must still be one envlock reads. */
static el_code uv_drifted(el_ctx *ctx, const el_spec *spec, const char *lock_path,
                          el_check_result *res)
{
    lock_doc *lock = verbs_lock_read(ctx, lock_path, res->lock_digest);
    if (!lock)
        return el_ctx_code(ctx);
    el_ctx_clear(ctx);
    lock_report r = { 0 };
    for (size_t i = 0; i < el_spec_finding_count(spec); i++) {
        const el_finding *f = el_spec_finding(spec, i);
        lock_report_add(&r, "spec", f->field, NULL, NULL,
                        "uv.lock no longer answers pyproject.toml: %s (spec line %u)", f->message,
                        f->line);
    }
    take_report(res, &r);
    res->stale = true;
    lock_doc_free(lock);
    return EL_OK;
}

el_code el_check(el_ctx *ctx, const el_cache_options *co, const el_spec *spec,
                 const char *lock_path, const el_check_options *o, el_check_result *res)
{
    static const el_check_options none = { 0 };
    if (!o)
        o = &none;
    memset(res, 0, sizeof *res);
    res->report = xstrdup("");
    el_code rc = el_spec_validate(ctx, spec);
    if (rc != EL_OK)
        return el_spec_only_uv_drift(spec) ? uv_drifted(ctx, spec, lock_path, res) : rc;
    char cutoff[32] = "";
    if (o->exclude_newer && (rc = el_exclude_newer_normalize(ctx, o->exclude_newer, cutoff)) != EL_OK)
        return rc;
    recheck g = { 0 };
    if ((rc = recheck_open(ctx, co, o, &g)) != EL_OK) {
        recheck_free(&g);
        return rc;
    }
    target_catalog *own = NULL;
    const target_catalog *cat = verbs_catalog(ctx, o->bases, o->bases_path, &own);
    if (!cat) {
        recheck_free(&g);
        return el_ctx_code(ctx);
    }
    size_t text_len = 0;
    char *text = verbs_spec_text(o->spec_path, &text_len);
    target_request_options to = { .spec_text = text, .spec_len = text_len,
                                  .spec_opts = o->spec_opts };
    target_request *tr = NULL;
    rc = target_request_build(ctx, cat, spec, &to, &tr);
    if (rc == EL_OK) {
        snprintf(res->spec_digest, sizeof res->spec_digest, "%s", tr->spec_digest);
        rc = compare(ctx, co, tr, spec, cutoff, lock_path, &g, res);
    }
    recheck_free(&g);
    target_request_free(tr);
    free(text);
    target_catalog_free(own);
    return rc;
}

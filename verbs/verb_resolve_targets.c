/* verb_resolve_targets.c — one lock for variants with different targets
 * (base_request.h: a `build.source: image` spec builds on the image, modal
 * on the base). Each target is solved by resolver_resolve() with its own
 * Python, platform, markers and apt sources; every PyPI and Debian package
 * the other targets' locks hold is added to its roots at that version
 * (`shared` roots), so a target's solve proves that each package of the
 * one lock has, at that one version, an installable artifact for it and
 * that its dependencies there are in the lock too. Rounds go on until every
 * target's lock holds the same packages at the same versions; the locks are
 * then merged (artifacts, edges and requestedBy joined) and the lock's
 * target lists each target with its variants (docs/lock-format.md). npm
 * choices do not depend on the Python target; they must simply agree. A
 * target that cannot take the others' versions fails the resolve with its
 * own code, the variant named (detail.variant, detail.sharedWith). */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "resolver.h"
#include "base_request.h"
#include "verbs_internal.h"

/* Enough for two targets to settle: each round adds to a target only what
 * the other's markers pulled in, which rarely pulls in more. */
#define MAX_ROUNDS 4

static bool pinned_eco(const char *eco)
{
    return strcmp(eco, "pypi") == 0 || strcmp(eco, "deb") == 0;
}

static const lock_package *find_pkg(const lock_doc *d, const char *eco, const char *name)
{
    for (size_t i = 0; d && i < d->n_packages; i++)
        if (!strcmp(d->packages[i].ecosystem, eco) && !strcmp(d->packages[i].name, name))
            return &d->packages[i];
    return NULL;
}

/* Whether `a` holds every PyPI and Debian package of `b` at its version. */
static bool covers(const lock_doc *a, const lock_doc *b)
{
    for (size_t i = 0; b && i < b->n_packages; i++) {
        const lock_package *p = &b->packages[i];
        if (!pinned_eco(p->ecosystem))
            continue;
        const lock_package *q = find_pkg(a, p->ecosystem, p->name);
        if (!q || strcmp(q->version, p->version) != 0)
            return false;
    }
    return true;
}

static bool all_agree(lock_doc *const *locks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j && (!locks[i] || !locks[j] || !covers(locks[i], locks[j])))
                return false;
    return true;
}

static const char *describe(arena *mem, const target_part *p)
{
    const target_base *t = p->target;
    return arena_sprintf(mem, "`%s` (Python %s, %s, on %s%s%s)", p->variants[0],
                         t->python_version, t->platform, t->image ? t->image : t->ref,
                         t->image ? "" : ":", t->image ? "" : t->channel);
}

/* The part's roots, then every PyPI/Debian package of the other locks. */
static const resolve_root *roots_with_pins(arena *mem, const target_request *tr, size_t self,
                                           lock_doc *const *locks, size_t *n_roots)
{
    const resolve_request *rq = &tr->parts[self].rq;
    size_t cap = rq->n_roots + 1;
    for (size_t j = 0; j < tr->n_parts; j++)
        cap += j != self && locks[j] ? locks[j]->n_packages : 0;
    resolve_root *roots = arena_alloc(mem, cap * sizeof *roots);
    size_t n = 0;
    for (size_t i = 0; i < rq->n_roots; i++)
        roots[n++] = rq->roots[i];
    for (size_t j = 0; j < tr->n_parts; j++) {
        for (size_t i = 0; j != self && locks[j] && i < locks[j]->n_packages; i++) {
            const lock_package *p = &locks[j]->packages[i];
            if (!pinned_eco(p->ecosystem))
                continue;
            bool deb = !strcmp(p->ecosystem, "deb");
            roots[n++] = (resolve_root){
                .ecosystem = deb ? "deb" : "pypi",
                .text = arena_sprintf(mem, deb ? "%s=%s" : "%s==%s", p->name, p->version),
                .kind = ROOT_REQUIREMENT,
                .field = arena_sprintf(mem, "the lock of %s", tr->parts[j].variants[0]),
                .shared = true,
            };
        }
    }
    *n_roots = n;
    return roots;
}

/* Whether the failure on ctx is a fetch that failed (it names the URL, or
 * the index gave no answer: exit 25, reasons.def) rather than a solve that
 * found no answer: only the latter can say the targets are incompatible. */
static bool fetch_failed(const el_ctx *ctx)
{
    json_object *url = NULL;
    return el_ctx_exit_status(ctx) == 25 ||
           json_object_object_get_ex(el_ctx_detail(ctx), "url", &url);
}

/* The failure on ctx again, its message prefixed with the variant (and the
 * variants whose versions it was given, unless a fetch failed: that says
 * nothing of the targets), its detail kept. */
static el_code name_variant(el_ctx *ctx, arena *mem, const target_request *tr, size_t self,
                            bool shared)
{
    shared = shared && !fetch_failed(ctx);
    el_code code = el_ctx_code(ctx);
    bool retryable = el_ctx_retryable(ctx);
    char *msg = xstrdup(el_ctx_message(ctx));
    json_object *old = json_object_get(el_ctx_detail(ctx));
    strbuf others = STRBUF_INIT;
    json_object *with = json_object_new_array();
    for (size_t j = 0; j < tr->n_parts; j++)
        if (j != self) {
            sb_addf(&others, "%s%s", others.len ? ", " : "", describe(mem, &tr->parts[j]));
            json_object_array_add(with, json_object_new_string(tr->parts[j].variants[0]));
        }
    if (shared)
        el_fail(ctx, code, "%s cannot share one lock with %s: %s", describe(mem, &tr->parts[self]),
                others.buf, msg);
    else
        el_fail(ctx, code, "for %s: %s", describe(mem, &tr->parts[self]), msg);
    if (old) {
        json_object_object_foreach(old, k, v) el_detail_take(ctx, k, json_object_get(v));
    }
    el_detail_str(ctx, "variant", tr->parts[self].variants[0]);
    if (shared)
        el_detail_take(ctx, "sharedWith", with);
    else
        json_object_put(with);
    el_set_retryable(ctx, retryable);
    json_object_put(old);
    sb_release(&others);
    free(msg);
    return code;
}

/* npm packages do not depend on the Python target, but must agree. */
static el_code npm_agree(el_ctx *ctx, arena *mem, const target_request *tr, lock_doc *const *locks)
{
    for (size_t j = 1; j < tr->n_parts; j++)
        for (size_t k = 0; k < 2; k++) {
            const lock_doc *a = locks[k ? j : 0], *b = locks[k ? 0 : j];
            for (size_t i = 0; i < a->n_packages; i++) {
                const lock_package *p = &a->packages[i];
                bool found = false;
                for (size_t m = 0; strcmp(p->ecosystem, "npm") == 0 && !found && m < b->n_packages; m++)
                    found = !strcmp(b->packages[m].ecosystem, "npm") &&
                            !strcmp(b->packages[m].name, p->name) &&
                            !strcmp(b->packages[m].version, p->version) &&
                            !strcmp(b->packages[m].path ? b->packages[m].path : "",
                                    p->path ? p->path : "");
                if (strcmp(p->ecosystem, "npm") == 0 && !found) {
                    el_fail(ctx, EL_RESOLVE_CONFLICT, "npm %s %s at %s: another npm tree",
                            p->name, p->version, p->path ? p->path : "");
                    el_detail_str(ctx, "package", p->name);
                    return name_variant(ctx, mem, tr, j, true);
                }
            }
        }
    return EL_OK;
}

static el_code solve_part(el_ctx *ctx, cache *c, arena *mem, const target_request *tr,
                          size_t i, lock_doc **locks, bool shared)
{
    resolve_request rq = tr->parts[i].rq;
    rq.roots = roots_with_pins(mem, tr, i, locks, &rq.n_roots);
    if (i > 0 && locks[0])
        rq.previous = locks[0]; /* npm: prefer the tree the first target has */
    lock_doc *d = NULL;
    el_code rc = resolver_resolve(ctx, c, &rq, &d);
    if (rc != EL_OK)
        return name_variant(ctx, mem, tr, i, shared);
    lock_doc_free(locks[i]);
    locks[i] = d;
    return EL_OK;
}

el_code verbs_resolve_targets(el_ctx *ctx, cache *c, const target_request *tr, lock_doc **out)
{
    *out = NULL;
    arena *mem = arena_new();
    lock_doc **locks = xcalloc(tr->n_parts, sizeof *locks);
    el_code rc = EL_OK;
    for (int round = 0; rc == EL_OK && round < MAX_ROUNDS && !all_agree(locks, tr->n_parts);
         round++)
        for (size_t i = 0; rc == EL_OK && i < tr->n_parts; i++) {
            bool others = false;
            for (size_t j = 0; j < tr->n_parts; j++)
                others |= j != i && locks[j];
            bool done = locks[i] != NULL;
            for (size_t j = 0; done && j < tr->n_parts; j++)
                done = j == i || !locks[j] || covers(locks[i], locks[j]);
            if (!done)
                rc = solve_part(ctx, c, mem, tr, i, locks, others);
        }
    if (rc == EL_OK && !all_agree(locks, tr->n_parts)) {
        el_fail(ctx, EL_RESOLVE_CONFLICT,
                "the targets' locks still differ after %d rounds of sharing versions",
                MAX_ROUNDS);
        rc = name_variant(ctx, mem, tr, tr->n_parts - 1, true);
    }
    if (rc == EL_OK)
        rc = npm_agree(ctx, mem, tr, locks);
    if (rc == EL_OK)
        *out = verbs_merge_locks(tr, locks);
    for (size_t i = 0; i < tr->n_parts; i++)
        if (locks[i] != *out)
            lock_doc_free(locks[i]);
    free(locks);
    arena_free(mem);
    return rc;
}

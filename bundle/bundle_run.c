/* bundle_run.c — one bundle run: the trees of DIR, the first failure, and
 * the order of the work (every document submitted, their callbacks submit
 * the artifacts, one cache run, then the pages that list the others and the
 * README). Owns no ecosystem: bundle_pypi.c, bundle_npm.c, bundle_apt.c,
 * bundle_conda.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle_internal.h"

bundle_tree *bundle_tree_for(bundle *b, const char *ecosystem, const char *canonical)
{
    size_t n = strlen(canonical);
    while (n && canonical[n - 1] == '/')
        n--;
    unsigned same_eco = 0;
    for (size_t i = 0; i < b->trees.len; i++) {
        bundle_tree *t = b->trees.items[i];
        if (strcmp(t->ecosystem, ecosystem) != 0)
            continue;
        same_eco++;
        if (strlen(t->canonical) == n && strncmp(t->canonical, canonical, n) == 0)
            return t;
    }
    bundle_tree *t = arena_alloc(b->a, sizeof *t);
    t->ecosystem = arena_strdup(b->a, ecosystem);
    t->canonical = arena_strndup(b->a, canonical, n);
    const char *stem = strcmp(ecosystem, "deb") == 0 ? "apt" : ecosystem;
    t->dir = same_eco ? arena_sprintf(b->a, "%s-%u", stem, same_eco + 1) : arena_strdup(b->a, stem);
    ptrvec_push(&b->trees, t);
    return t;
}

void bundle_done(bundle *b, const char *rel)
{
    ptrvec_push(&b->done, arena_strdup(b->a, rel));
}

bool bundle_claim(bundle *b)
{
    if (b->failed)
        return false;
    b->failed = true;
    return true;
}

static int cmp_mirror(const void *x, const void *y)
{
    const bundle_mirror *a = x, *b = y;
    return strcmp(a->canonical, b->canonical);
}

static void fill_mirrors(bundle *b)
{
    bundle_stats *st = b->st;
    st->mirrors = xcalloc(b->trees.len + 1, sizeof *st->mirrors);
    for (size_t i = 0; i < b->trees.len; i++) {
        const bundle_tree *t = b->trees.items[i];
        bundle_mirror *m = &st->mirrors[st->n_mirrors++];
        m->ecosystem = xstrdup(t->ecosystem);
        m->canonical = xstrdup(t->canonical);
        m->path = strcmp(t->ecosystem, "pypi") == 0 ? xasprintf("%s/simple", t->dir)
                                                    : xstrdup(t->dir);
    }
    qsort(st->mirrors, st->n_mirrors, sizeof *st->mirrors, cmp_mirror);
}

/* Whether every package's index is among the lock's inputs: else the
 * bundle would lack what the site resolves from. */
static bool indexed(bundle *b)
{
    const lock_package *p = lock_unindexed(b->lock);
    if (!p)
        return true;
    bundle_claim(b);
    el_fail(b->ctx, EL_SPEC_INVALID,
            "the lock is incomplete: %s %s %s (line %u) has no index among its inputs, so a "
            "bundle could not serve it; resolve the lock again", p->ecosystem, p->name,
            p->version ? p->version : "", p->line);
    el_detail_str(b->ctx, "reason", "incomplete_lock");
    el_detail_str(b->ctx, "package", p->name);
    el_detail_int(b->ctx, "line", p->line);
    return false;
}

/* The run's end: DIR unlocked, its memory freed, its code. */
static el_code finish(bundle *b)
{
    for (size_t i = 0; i < b->trees.len; i++)
        ptrvec_release(&((bundle_tree *)b->trees.items[i])->names);
    ptrvec_release(&b->trees);
    ptrvec_release(&b->done);
    close(b->dir_fd);
    arena_free(b->a);
    return b->failed ? el_ctx_code(b->ctx) : EL_OK;
}

el_code bundle_write(el_ctx *ctx, cache *c, const lock_doc *lock, const bundle_options *o,
                     bundle_stats *st)
{
    memset(st, 0, sizeof *st);
    /* every lock string by its grammar before any of it names a file, a URL
     * or a line of the README (the lock is untrusted input) */
    el_code valid = lock_validate(ctx, lock);
    if (valid != EL_OK)
        return valid;
    bundle b = { .ctx = ctx, .c = c, .lock = lock, .dir = o->out_dir, .a = arena_new(), .st = st,
                 .has_advisories = o->advisories != NULL };
    int err = file_mkdirs(o->out_dir);
    if (err) {
        el_fail_io(ctx, err, "cannot make the bundle directory %s: %s", o->out_dir,
                   strerror(err));
        el_detail_str(ctx, "path", o->out_dir);
        arena_free(b.a);
        return EL_IO;
    }
    if ((b.dir_fd = bundle_dir_lock(ctx, o->out_dir)) < 0) {
        arena_free(b.a);
        return el_ctx_code(ctx);
    }
    /* the snapshot first: local, and refused before any fetch when hostile */
    if (!bundle_dir_sweep(&b) || !indexed(&b) || !bundle_advisories(&b, o->advisories))
        return finish(&b);
    /* Inputs first, in the lock's order, so tree names are stable. */
    bundle_apt_submit(&b);
    bundle_npm_submit(&b);
    bundle_pypi_submit(&b);
    bundle_conda_submit(&b);
    el_code rc = cache_run(c, ctx);
    if (rc != EL_OK && !b.failed)
        b.failed = true; /* the engine's failure is on ctx */
    if (!b.failed)
        bundle_pypi_finish(&b);
    fill_mirrors(&b);
    if (!b.failed && bundle_sync(&b))
        bundle_readme(&b, o->base_url ? o->base_url : "http://localhost:8080");
    /* the signed list last: it covers the README too, and only what this
     * run wrote or verified */
    if (!b.failed && o->sign_key && bundle_sign(ctx, o->out_dir, o->sign_key, &b.done,
                                                &st->signed_files) != EL_OK)
        b.failed = true;
    cache_run_stats cs;
    cache_get_stats(c, &cs);
    st->requests = cs.requests;
    st->network = cs.network;
    st->network_bytes = cs.bytes;
    return finish(&b);
}

void bundle_stats_clear(bundle_stats *st)
{
    for (size_t i = 0; i < st->n_mirrors; i++) {
        free(st->mirrors[i].ecosystem);
        free(st->mirrors[i].canonical);
        free(st->mirrors[i].path);
    }
    free(st->mirrors);
    st->mirrors = NULL;
    st->n_mirrors = 0;
}

/* bundle_conda.c — the conda part of a bundle: a static channel per
 * channel the lock was resolved from (tree `conda`, `conda-2`, ...), laid
 * out as conda channels are served: TREE/SUBDIR/repodata.json and each
 * locked package file at TREE/SUBDIR/FILE. The repodata.json is the one
 * the lock names, byte for byte: its sha256 is the lock's input identity,
 * so a re-resolution from the bundle sees what the original saw and gives
 * the same lock. A channel that serves another repodata.json now stops the
 * bundle for that subdir before anything of it is written (conda-forge's
 * changes every few minutes: bundle soon after resolving). The package
 * files are fetched at the lock's URL (the channel, the subdir and the
 * file: that is how conda names them) and verified by sha256. Reads no
 * record: identical bytes hold exactly the records the lock chose. */
#include <stdlib.h>
#include <string.h>

#include "bundle_internal.h"
#include "conda_repodata.h"

typedef struct subdir_job {
    bundle_tree *t;
    const char *channel;   /* canonical, no trailing '/' */
    const char *subdir;    /* "linux-64", "noarch" */
    const char *url;       /* the lock's input URL */
    const char *identity;  /* "sha256:<hex>" the lock recorded, or NULL */
} subdir_job;

/* "<channel>/<subdir>/repodata.json": the channel and the subdir, each
 * part a safe path (the subdir one component), or false. */
static bool split_input(arena *a, const char *url, const char **channel, const char **subdir)
{
    static const char TAIL[] = "/repodata.json";
    size_t n = strlen(url), tl = sizeof TAIL - 1;
    if (n <= tl || strcmp(url + n - tl, TAIL) != 0)
        return false;
    const char *end = url + n - tl, *slash = end;
    while (slash > url && slash[-1] != '/')
        slash--;
    if (slash <= url + 1)
        return false;
    *channel = arena_strndup(a, url, (size_t)(slash - 1 - url));
    *subdir = arena_strndup(a, slash, (size_t)(end - slash));
    return bundle_safe_name(*subdir);
}

static void submit_files(bundle *b, const subdir_job *j)
{
    const lock_doc *d = b->lock;
    size_t cl = strlen(j->channel);
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, "conda") != 0 || !p->source || !p->subdir ||
            strcmp(p->subdir, j->subdir) != 0 || strncmp(p->source, j->channel, cl) != 0 ||
            (p->source[cl] && strcmp(p->source + cl, "/") != 0))
            continue;
        for (size_t k = 0; k < p->n_artifacts; k++) {
            const lock_artifact *a = &p->artifacts[k];
            char *what = xasprintf("conda %s %s %s", p->name, p->version, a->file);
            char *want = xasprintf("%s/%s/%s", j->channel, j->subdir, a->file);
            if (!bundle_safe_name(a->file) || !a->url || strcmp(a->url, want) != 0) {
                bundle_unsafe(b, what, a->url ? a->url : a->file);
            } else {
                char *rel = xasprintf("%s/%s/%s", j->t->dir, j->subdir, a->file);
                bundle_fetch bf = { .rel = rel, .url = a->url, .hash = a->hash, .what = what,
                                    .source = j->url, .artifact = true };
                bundle_submit(b, &bf);
                free(rel);
            }
            free(want);
            free(what);
        }
    }
}

/* Whether the repodata.json served now is the one the lock names; else the
 * failure, naming both (as for an apt Release). */
static bool same_repodata(bundle *b, const subdir_job *j, const cache_response *r)
{
    char hex[65];
    sha256_hex(r->body, r->len, hex);
    char *now = xasprintf("sha256:%s", hex);
    bool same = !j->identity || strcmp(j->identity, now) == 0;
    if (!same && bundle_claim(b)) {
        el_fail(b->ctx, EL_ARTIFACT_MISSING,
                "%s is not the repodata.json the lock was resolved from (the lock has %s, the "
                "channel serves %s now): resolve again and bundle right after, from the same "
                "cache", j->url, j->identity, now);
        el_detail_str(b->ctx, "reason", "index_changed");
        el_detail_str(b->ctx, "url", j->url);
        el_detail_str(b->ctx, "expected", j->identity);
        el_detail_str(b->ctx, "actual", now);
    }
    free(now);
    return same;
}

static void doc_done(bundle *b, const cache_response *r, void *user)
{
    subdir_job *j = user;
    if (!same_repodata(b, j, r))
        return;
    char *rel = xasprintf("%s/%s/repodata.json", j->t->dir, j->subdir);
    bool ok = bundle_put(b, rel, r->body, r->len);
    free(rel);
    if (!ok)
        return;
    b->st->documents++;
    submit_files(b, j);
}

void bundle_conda_submit(bundle *b)
{
    const lock_doc *d = b->lock;
    for (size_t i = 0; i < d->n_inputs; i++) {
        const lock_input *in = &d->inputs[i];
        if (strcmp(in->ecosystem, "conda") != 0)
            continue;
        subdir_job *j = arena_alloc(b->a, sizeof *j);
        if (!split_input(b->a, in->url, &j->channel, &j->subdir)) {
            bundle_unsafe(b, "a conda input", in->url);
            continue;
        }
        j->t = bundle_tree_for(b, "conda", j->channel);
        j->url = arena_strdup(b->a, in->url);
        j->identity = in->identity && strncmp(in->identity, "sha256:", 7) == 0
                          ? arena_strdup(b->a, in->identity) : NULL;
        char *what = xasprintf("the conda repodata.json of %s/%s", j->channel, j->subdir);
        bundle_submit_doc(b, in->url, "application/json", CONDA_REPODATA_MAX_BYTES, what, false,
                          doc_done, j);
        free(what);
    }
}

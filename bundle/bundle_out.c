/* bundle_out.c — the bundle's files: paths checked to stay under DIR,
 * every file written atomically without its own fsync (nothing half-written, a
 * full disk leaves the old file and no temp), existing files verified by
 * hash before they are reused, and the fetches that fill them. Artifacts
 * with a sha256 are streamed by the cache straight into DIR (cache.h's
 * sink: a CUDA wheel of a few GiB never sits in memory); the rest are
 * small documents and npm tarballs, held and written here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle_internal.h"

bool bundle_safe_name(const char *s)
{
    if (!s || !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == '/' || *p == '\\' || *p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

bool bundle_safe_rel(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/')
        return false;
    char *copy = xstrdup(rel);
    bool ok = true;
    char *save = NULL;
    for (char *part = strtok_r(copy, "/", &save); part && ok; part = strtok_r(NULL, "/", &save))
        ok = bundle_safe_name(part);
    ok = ok && !strstr(rel, "//") && rel[strlen(rel) - 1] != '/';
    free(copy);
    return ok;
}

bool bundle_unsafe(bundle *b, const char *what, const char *name)
{
    if (bundle_claim(b)) {
        el_fail(b->ctx, EL_SPEC_INVALID, "%s names `%s`, which is no safe path in a bundle", what,
                name);
        el_detail_str(b->ctx, "reason", "unsafe_path");
        el_detail_str(b->ctx, "artifact", what);
    }
    return false;
}

static bool io_fail(bundle *b, int err, const char *path, const char *step)
{
    if (bundle_claim(b)) {
        el_fail_io(b->ctx, err, "cannot write %s (%s): %s; run the bundle again once it can be",
                   path, step, strerror(err));
        el_detail_str(b->ctx, "reason", "bundle_write_failed");
        el_detail_str(b->ctx, "path", path);
    }
    return false;
}

/* Every file of the bundle is written without its own fsync (FILE_LAZY:
 * ~2 ms each, most of writing a small file) and checked by content when a
 * later run finds it; one syncfs makes the whole tree durable before the
 * README, the mark of a complete bundle, is written. */
bool bundle_sync(bundle *b)
{
    int err = file_sync_fs(b->dir);
    return err ? io_fail(b, err, b->dir, "syncing the bundle") : true;
}

bool bundle_put(bundle *b, const char *rel, const void *data, size_t len)
{
    if (!bundle_safe_rel(rel))
        return bundle_unsafe(b, "a bundle file", rel);
    char *path = xasprintf("%s/%s", b->dir, rel);
    bool ok = true;
    bundle_done(b, rel);
    if (file_holds(path, data, len)) {
        b->st->reused++;
        b->st->reused_bytes += len;
    } else if (!bundle_parents(b, rel)) {
        ok = false;
    } else {
        const char *step = "writing";
        int err = file_write_atomic_flags(path, data, len, FILE_LAZY, &step); /* bundle_sync() */
        if (err) {
            ok = io_fail(b, err, path, step);
        } else {
            b->st->written++;
            b->st->written_bytes += len;
        }
    }
    free(path);
    return ok;
}

/* Whether data has `hash`: "sha256:<hex>" or an npm integrity. */
static bool hash_ok(const char *hash, const void *data, size_t len)
{
    if (strncmp(hash, "sha256:", 7) == 0) {
        char hex[65];
        sha256_hex(data, len, hex);
        return strcmp(hex, hash + 7) == 0;
    }
    return sri_matches(hash, data, len);
}

bool bundle_holds(bundle *b, const char *rel, const char *hash)
{
    if (!hash)
        return false;
    char *path = xasprintf("%s/%s", b->dir, rel);
    bool ok;
    uint64_t len = 0;
    if (strncmp(hash, "sha256:", 7) == 0) { /* read in pieces: artifacts can be GiBs */
        char hex[65];
        ok = file_sha256(path, hex, &len) == 0 && strcmp(hex, hash + 7) == 0;
    } else {
        size_t n = 0;
        char *data = read_file(path, (size_t)1 << 32, &n);
        ok = data && hash_ok(hash, data, n);
        len = n;
        free(data);
    }
    if (ok) {
        bundle_done(b, rel);
        b->st->reused++;
        b->st->reused_bytes += len;
    }
    free(path);
    return ok;
}

void bundle_fail_response(bundle *b, const cache_response *r, const char *what)
{
    if (!bundle_claim(b))
        return;
    /* the cache's failure, with the artifact in front of its message */
    cache_failure f = cache_failure_of(r);
    char *msg = xasprintf("%s: %s", what, r->message ? r->message : "fetch failed");
    f.message = msg;
    if (!f.reason)
        f.reason = "fetch_failed";
    cache_failure_report(b->ctx, &f);
    el_detail_str(b->ctx, "artifact", what);
    free(msg);
}

typedef struct fetch_job {
    bundle *b;
    bundle_fetch f;
    char *sink; /* DIR/rel when the cache streams it there, else NULL */
} fetch_job;

static void hash_mismatch(bundle *b, const bundle_fetch *f, const char *got)
{
    if (!bundle_claim(b))
        return;
    char *url = cache_url_redact(f->url);
    el_fail(b->ctx, EL_ARTIFACT_MISSING,
            "%s: the bytes served for %s do not have the locked hash %s%s%s (the URL and hash "
            "come from %s); nothing was written",
            f->what, url, f->hash, got ? ", they have sha256:" : "", got ? got : "", f->source);
    el_detail_str(b->ctx, "reason", "hash_mismatch");
    el_detail_str(b->ctx, "artifact", f->what);
    el_detail_str(b->ctx, "url", url);
    el_detail_str(b->ctx, "source", f->source);
    el_detail_str(b->ctx, "expected", f->hash);
    free(url);
}

/* A file of the bundle in place, written now or found right. */
static void count_file(bundle *b, const bundle_fetch *f)
{
    if (f->artifact)
        b->st->artifacts++;
    else if (f->metadata)
        b->st->metadata++;
    else
        b->st->documents++;
}

static void fetch_done(cache *c, cache_response *r, void *user)
{
    fetch_job *j = user;
    bundle *b = j->b;
    const bundle_fetch *f = &j->f;
    if (r->code != EL_OK) {
        if (r->reason && strcmp(r->reason, "hash_mismatch") == 0)
            hash_mismatch(b, f, NULL);
        else if (r->reason && strcmp(r->reason, "write_failed") == 0)
            io_fail(b, r->write_errno, j->sink, "writing");
        else if (!(f->optional && r->reason && strcmp(r->reason, "not_found") == 0))
            bundle_fail_response(b, r, f->what);
        return;
    }
    if (f->hash && strncmp(f->hash, "sha256:", 7) != 0 && !hash_ok(f->hash, r->body, r->len)) {
        cache_forget(c, f->url, NULL); /* or every rerun would serve it */
        hash_mismatch(b, f, r->local ? NULL : r->sha256); /* no local-file oracle */
        return;
    }
    if (r->path) { /* streamed into place by the cache, verified */
        bundle_done(b, f->rel);
        b->st->written++;
        b->st->written_bytes += r->len;
    } else if (!bundle_put(b, f->rel, r->body, r->len))
        return;
    if (f->also_rel && !bundle_put(b, f->also_rel, r->body, r->len))
        return;
    count_file(b, f);
}

void bundle_submit(bundle *b, const bundle_fetch *f)
{
    if (!bundle_safe_rel(f->rel) || (f->also_rel && !bundle_safe_rel(f->also_rel))) {
        bundle_unsafe(b, f->what, f->rel);
        return;
    }
    if (bundle_holds(b, f->rel, f->hash) &&
        (!f->also_rel || bundle_holds(b, f->also_rel, f->hash))) {
        count_file(b, f);
        return;
    }
    fetch_job *j = arena_alloc(b->a, sizeof *j);
    j->b = b;
    j->f.rel = arena_strdup(b->a, f->rel);
    j->f.url = arena_strdup(b->a, f->url);
    j->f.hash = f->hash ? arena_strdup(b->a, f->hash) : NULL;
    j->f.what = arena_strdup(b->a, f->what);
    j->f.source = arena_strdup(b->a, f->source ? f->source : "the lock");
    j->f.also_rel = f->also_rel ? arena_strdup(b->a, f->also_rel) : NULL;
    j->f.optional = f->optional;
    j->f.artifact = f->artifact;
    j->f.metadata = f->metadata;
    cache_request rq = { 0 };
    rq.url = f->url;
    rq.policy = CACHE_IMMUTABLE;
    rq.sha256 = f->hash && strncmp(f->hash, "sha256:", 7) == 0 ? f->hash + 7 : NULL;
    if (f->artifact && rq.sha256 && !f->also_rel) {
        j->sink = arena_sprintf(b->a, "%s/%s", b->dir, f->rel);
        if (!bundle_parents(b, f->rel))
            return;
        rq.sink = j->sink;
        rq.sink_lazy = true; /* checked by hash on reuse; bundle_sync() */
    }
    rq.done = fetch_done;
    rq.user = j;
    cache_submit(b->c, &rq);
}

typedef struct doc_job {
    bundle *b;
    const char *what;
    bool optional;
    bundle_doc_fn fn;
    void *user;
} doc_job;

static void doc_done(cache *c, cache_response *r, void *user)
{
    doc_job *j = user;
    if (r->code != EL_OK) {
        if (j->optional && r->reason && strcmp(r->reason, "not_found") == 0)
            j->fn(j->b, NULL, j->user);
        else
            bundle_fail_response(j->b, r, j->what);
        return;
    }
    j->fn(j->b, r, j->user);
}

void bundle_submit_doc(bundle *b, const char *url, const char *accept, uint64_t max_bytes,
                       const char *what, bool optional, bundle_doc_fn fn, void *user)
{
    doc_job *j = arena_alloc(b->a, sizeof *j);
    j->b = b;
    j->what = arena_strdup(b->a, what);
    j->optional = optional;
    j->fn = fn;
    j->user = user;
    cache_request rq = { 0 };
    rq.url = url;
    rq.accept = accept;
    rq.policy = CACHE_REVALIDATE;
    rq.max_bytes = max_bytes;
    rq.done = doc_done;
    rq.user = j;
    cache_submit(b->c, &rq);
}

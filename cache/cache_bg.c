/* cache_bg.c — the cache's background writer: one thread that encodes
 * (sha256, zstd) and writes the entries a run stores lazily (fetched bodies,
 * parsed forms), so that compressing and creating files runs beside the
 * transfers instead of between them on the thread that drives libcurl (a
 * cold npm resolve of ~450 packuments, 116 MB, spent most of its wall
 * there). It owns the jobs and their byte budget; the thread and its
 * queue are cache_worker.c's, what an entry is and how it is written
 * cache_store.c's, when to store cache_http.c's.
 * The thread lives for one cache_run() (cache_http.c frees the writer at
 * its end), so the cache is complete, and the process single-threaded,
 * whenever a run has returned. */
#include <stdlib.h>
#include <string.h>

#include "cache_bg.h"
#include "cache_worker.h"

/* The bodies queued at most: bounds the memory a writer slower than the
 * network holds (the first job of an empty queue is taken whatever its
 * size: an npm packument can be 20 MB and more). */
#define CACHE_BG_MAX_BYTES ((size_t)64 << 20)

typedef struct bg_job {
    char key[65];
    cache_meta m;
    unsigned char *body;
    size_t len;
    int lock_fd;
    bool hashed;
} bg_job;

struct cache_bg {
    cache_store *s;
    cache_worker *w;
};

static void write_job(cache_store *s, bg_job *j)
{
    el_ctx *ctx = el_ctx_new();
    if (j->hashed)
        (void)cache_store_put_hashed(s, ctx, j->key, &j->m, j->body, j->len);
    else
        (void)cache_store_put_lazy(s, ctx, j->key, &j->m, j->body, j->len);
    el_ctx_free(ctx);
    cache_store_unlock(j->lock_fd);
    cache_meta_clear(&j->m);
    free(j->body);
    free(j);
}

/* The worker's job function: writes, and keeps nothing to hand back. */
static bool run(void *job, void *user)
{
    write_job(user, job);
    return false;
}

cache_bg *cache_bg_new(cache_store *s)
{
    cache_bg *bg = xcalloc(1, sizeof *bg);
    bg->s = s;
    bg->w = cache_worker_new(run, NULL, s, 1);
    return bg;
}

void cache_bg_put(cache_bg *bg, const char *key, cache_meta *m, unsigned char *body, size_t len,
                  int lock_fd, bool hashed)
{
    bg_job *j = xcalloc(1, sizeof *j);
    memcpy(j->key, key, sizeof j->key - 1);
    j->m = *m;
    cache_meta_init(m);
    j->body = body;
    j->len = len;
    j->lock_fd = lock_fd;
    j->hashed = hashed;
    if (!cache_worker_start(bg->w))
        write_job(bg->s, j);
    else
        cache_worker_push(bg->w, j, len, CACHE_BG_MAX_BYTES);
}

void cache_bg_free(cache_bg *bg)
{
    if (!bg)
        return;
    cache_worker_free(bg->w); /* writes every entry queued first */
    free(bg);
}

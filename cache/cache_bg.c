/* cache_bg.c — the cache's background writer: one thread that encodes
 * (sha256, zstd) and writes the entries a run stores lazily (fetched bodies,
 * parsed forms), so that compressing and creating files runs beside the
 * transfers instead of between them on the thread that drives libcurl (a
 * cold npm resolve of ~450 packuments, 116 MB, spent most of its wall
 * there). It owns the queue and the thread, nothing else: what an entry is
 * and how it is written is cache_store.c's, when to store cache_http.c's.
 * The thread lives for one cache_run() (cache_http.c frees the writer at
 * its end), so the cache is complete, and the process single-threaded,
 * whenever a run has returned. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cache_bg.h"

/* The bodies queued at most: bounds the memory a writer slower than the
 * network holds (the first job of an empty queue is taken whatever its
 * size: an npm packument can be 20 MB and more). */
#define CACHE_BG_MAX_BYTES ((size_t)64 << 20)

typedef struct bg_job {
    struct bg_job *next;
    char key[65];
    cache_meta m;
    unsigned char *body;
    size_t len;
    int lock_fd;
    bool hashed;
} bg_job;

struct cache_bg {
    cache_store *s;
    pthread_mutex_t mu;
    pthread_cond_t more;   /* a job queued, or closing */
    pthread_cond_t done;   /* a job written */
    bg_job *head, *tail;
    size_t bytes;          /* bodies queued or being written */
    size_t pending;        /* jobs queued or being written */
    bool closing;
    bool started;
    pthread_t thread;
};

cache_bg *cache_bg_new(cache_store *s)
{
    cache_bg *bg = xcalloc(1, sizeof *bg);
    bg->s = s;
    pthread_mutex_init(&bg->mu, NULL);
    pthread_cond_init(&bg->more, NULL);
    pthread_cond_init(&bg->done, NULL);
    return bg;
}

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

static void *run(void *arg)
{
    cache_bg *bg = arg;
    pthread_mutex_lock(&bg->mu);
    for (;;) {
        while (!bg->head && !bg->closing)
            pthread_cond_wait(&bg->more, &bg->mu);
        bg_job *j = bg->head;
        if (!j)
            break;
        bg->head = j->next;
        if (!bg->head)
            bg->tail = NULL;
        size_t len = j->len;
        pthread_mutex_unlock(&bg->mu);
        write_job(bg->s, j);
        pthread_mutex_lock(&bg->mu);
        bg->bytes -= len;
        bg->pending--;
        pthread_cond_broadcast(&bg->done);
    }
    pthread_mutex_unlock(&bg->mu);
    return NULL;
}

/* Starts the thread with every signal blocked in it: SIGINT and friends
 * stay the main thread's (util/file.c defers them around a temp file's
 * naming on whichever thread writes). */
static bool start(cache_bg *bg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bg->started = pthread_create(&bg->thread, NULL, run, bg) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return bg->started;
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
    if (!bg->started && !start(bg)) {
        write_job(bg->s, j);
        return;
    }
    pthread_mutex_lock(&bg->mu);
    while (bg->pending && bg->bytes + len > CACHE_BG_MAX_BYTES)
        pthread_cond_wait(&bg->done, &bg->mu);
    if (bg->tail)
        bg->tail->next = j;
    else
        bg->head = j;
    bg->tail = j;
    bg->bytes += len;
    bg->pending++;
    pthread_cond_signal(&bg->more);
    pthread_mutex_unlock(&bg->mu);
}

void cache_bg_free(cache_bg *bg)
{
    if (!bg)
        return;
    if (bg->started) {
        pthread_mutex_lock(&bg->mu);
        bg->closing = true;
        pthread_cond_signal(&bg->more);
        pthread_mutex_unlock(&bg->mu);
        pthread_join(bg->thread, NULL); /* the thread empties the queue first */
    }
    pthread_cond_destroy(&bg->more);
    pthread_cond_destroy(&bg->done);
    pthread_mutex_destroy(&bg->mu);
    free(bg);
}

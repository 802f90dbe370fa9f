/* cache_worker.c — worker threads and their queue: the jobs pushed are
 * taken in order by the threads, and those the job function hands back
 * wait on a second list, in the order they finished, until their owner
 * takes them. It owns the lock, the conditions, the lists and the threads,
 * nothing else: what a job is, how
 * much of them may wait (the background writer's byte budget) and how the
 * owner learns of a finished one (the deferred tasks' pipe) are the
 * owners' (cache_bg.c, cache_task.c). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "cache_worker.h"

typedef struct node {
    struct node *next;
    void *job;
    size_t cost;
} node;

typedef struct list {
    node *head, *tail;
} list;

struct cache_worker {
    cache_worker_fn run;
    cache_worker_notify_fn notify;
    void *user;
    pthread_mutex_t mu;
    pthread_cond_t more; /* a job queued, or closing */
    pthread_cond_t ran;  /* a job ran */
    list todo, done;
    size_t cost;         /* of the jobs queued or running */
    size_t busy;         /* jobs queued or running */
    bool closing;
    size_t want;         /* threads to start */
    size_t nthreads;     /* started */
    pthread_t thread[CACHE_WORKER_MAX_THREADS];
};

static void push(list *l, node *n)
{
    n->next = NULL;
    if (l->tail)
        l->tail->next = n;
    else
        l->head = n;
    l->tail = n;
}

static node *pop(list *l)
{
    node *n = l->head;
    if (n && !(l->head = n->next))
        l->tail = NULL;
    return n;
}

cache_worker *cache_worker_new(cache_worker_fn run, cache_worker_notify_fn notify, void *user,
                               size_t threads)
{
    cache_worker *w = xcalloc(1, sizeof *w);
    w->want = threads < 1                          ? 1
              : threads > CACHE_WORKER_MAX_THREADS ? CACHE_WORKER_MAX_THREADS
                                                   : threads;
    w->run = run;
    w->notify = notify;
    w->user = user;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->more, NULL);
    pthread_cond_init(&w->ran, NULL);
    return w;
}

static void *loop(void *arg)
{
    cache_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->todo.head && !w->closing)
            pthread_cond_wait(&w->more, &w->mu);
        node *n = pop(&w->todo);
        if (!n)
            break;
        pthread_mutex_unlock(&w->mu);
        bool back = w->run(n->job, w->user);
        pthread_mutex_lock(&w->mu);
        w->cost -= n->cost;
        w->busy--;
        pthread_cond_broadcast(&w->ran);
        if (!back) {
            free(n);
            continue;
        }
        push(&w->done, n);
        if (w->notify) {
            pthread_mutex_unlock(&w->mu);
            w->notify(w->user);
            pthread_mutex_lock(&w->mu);
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

bool cache_worker_start(cache_worker *w)
{
    if (w->nthreads)
        return true;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (size_t i = 0; i < w->want; i++)
        if (pthread_create(&w->thread[w->nthreads], NULL, loop, w) == 0)
            w->nthreads++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return w->nthreads > 0;
}

void cache_worker_push(cache_worker *w, void *job, size_t cost, size_t max_cost)
{
    node *n = xcalloc(1, sizeof *n);
    n->job = job;
    n->cost = cost;
    pthread_mutex_lock(&w->mu);
    while (w->busy && (cost > max_cost || w->cost > max_cost - cost))
        pthread_cond_wait(&w->ran, &w->mu);
    push(&w->todo, n);
    w->cost += cost;
    w->busy++;
    pthread_cond_signal(&w->more);
    pthread_mutex_unlock(&w->mu);
}

size_t cache_worker_take_done(cache_worker *w, ptrvec *out)
{
    pthread_mutex_lock(&w->mu);
    node *n = w->done.head;
    w->done.head = w->done.tail = NULL;
    pthread_mutex_unlock(&w->mu);
    size_t k = 0;
    while (n) {
        node *next = n->next;
        ptrvec_push(out, n->job);
        free(n);
        k++;
        n = next;
    }
    return k;
}

void cache_worker_free(cache_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->closing = true;
    pthread_cond_broadcast(&w->more);
    pthread_mutex_unlock(&w->mu);
    for (size_t i = 0; i < w->nthreads; i++)
        pthread_join(w->thread[i], NULL); /* the threads empty the queue first */
    for (node *n; (n = pop(&w->done));)
        free(n);
    pthread_cond_destroy(&w->more);
    pthread_cond_destroy(&w->ran);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

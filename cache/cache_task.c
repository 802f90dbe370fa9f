/* cache_task.c — deferred work of a run (cache_defer()): worker threads,
 * one per processor up to MAX_WORKERS, run the tasks' `work` (parsing a
 * body a callback received, say) while
 * the run's thread goes on driving the transfers, and hands each finished
 * task back through a pipe that the run's poll watches, so its `done` runs
 * on the run's thread, where it may submit requests. It owns the queues,
 * the thread and the pipe; when to collect is cache_http.c's. Like the
 * background writer (cache_bg.c), the thread lives for one cache_run(). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cache_task.h"

/* A cold crawl's bodies arrive faster than one thread parses the largest
 * (next's packument is 21 MB): a second worker parses the others beside
 * it. More than a few only adds threads waiting on the same transfers. */
#define MAX_WORKERS 4

typedef struct task {
    struct task *next;
    cache_work_fn work;
    cache_done_task_fn done;
    void *user;
} task;

struct cache_tasks {
    pthread_mutex_t mu;
    pthread_cond_t more;  /* a task queued, or closing */
    task *todo, *todo_tail;
    task *done, *done_tail;
    size_t pending;       /* queued, running, or done and not collected */
    int pipe[2];          /* a byte per task done; read end polled */
    bool closing;
    bool started;
    size_t nthreads;
    pthread_t thread[MAX_WORKERS];
};

static void push(task **head, task **tail, task *t)
{
    t->next = NULL;
    if (*tail)
        (*tail)->next = t;
    else
        *head = t;
    *tail = t;
}

static void *run(void *arg)
{
    cache_tasks *ts = arg;
    pthread_mutex_lock(&ts->mu);
    for (;;) {
        while (!ts->todo && !ts->closing)
            pthread_cond_wait(&ts->more, &ts->mu);
        task *t = ts->todo;
        if (!t)
            break;
        ts->todo = t->next;
        if (!ts->todo)
            ts->todo_tail = NULL;
        pthread_mutex_unlock(&ts->mu);
        t->work(t->user);
        pthread_mutex_lock(&ts->mu);
        push(&ts->done, &ts->done_tail, t);
        char b = 1;
        while (write(ts->pipe[1], &b, 1) < 0 && errno == EINTR)
            ;
    }
    pthread_mutex_unlock(&ts->mu);
    return NULL;
}

cache_tasks *cache_tasks_new(void)
{
    cache_tasks *ts = xcalloc(1, sizeof *ts);
    ts->pipe[0] = ts->pipe[1] = -1;
    pthread_mutex_init(&ts->mu, NULL);
    pthread_cond_init(&ts->more, NULL);
    return ts;
}

static size_t workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (size_t)n;
}

/* The pipe (non-blocking, close-on-exec) and the threads, every signal
 * blocked in them (see cache_bg.c). Started when at least one thread is. */
static bool start(cache_tasks *ts)
{
    if (pipe(ts->pipe) != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        fcntl(ts->pipe[i], F_SETFD, FD_CLOEXEC);
        fcntl(ts->pipe[i], F_SETFL, fcntl(ts->pipe[i], F_GETFL) | O_NONBLOCK);
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (size_t i = 0, n = workers(); i < n; i++)
        if (pthread_create(&ts->thread[ts->nthreads], NULL, run, ts) == 0)
            ts->nthreads++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    ts->started = ts->nthreads > 0;
    if (!ts->started) {
        close(ts->pipe[0]);
        close(ts->pipe[1]);
        ts->pipe[0] = ts->pipe[1] = -1;
    }
    return ts->started;
}

bool cache_tasks_add(cache_tasks *ts, cache_work_fn work, cache_done_task_fn done, void *user)
{
    if (!ts->started && !start(ts))
        return false;
    task *t = xcalloc(1, sizeof *t);
    t->work = work;
    t->done = done;
    t->user = user;
    pthread_mutex_lock(&ts->mu);
    push(&ts->todo, &ts->todo_tail, t);
    ts->pending++;
    pthread_cond_signal(&ts->more);
    pthread_mutex_unlock(&ts->mu);
    return true;
}

size_t cache_tasks_pending(const cache_tasks *ts) { return ts ? ts->pending : 0; }

int cache_tasks_fd(const cache_tasks *ts) { return ts ? ts->pipe[0] : -1; }

size_t cache_tasks_collect(cache_tasks *ts, cache *c)
{
    if (!ts || !ts->started)
        return 0;
    char buf[256];
    while (read(ts->pipe[0], buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&ts->mu);
    task *t = ts->done;
    ts->done = ts->done_tail = NULL;
    pthread_mutex_unlock(&ts->mu);
    size_t n = 0;
    while (t) {
        task *next = t->next;
        /* pending counts a task until its done has run: cache_run() must
         * not end between the two */
        t->done(c, t->user);
        free(t);
        ts->pending--;
        n++;
        t = next;
    }
    return n;
}

void cache_tasks_wait(cache_tasks *ts, int timeout_ms)
{
    if (!ts || !ts->started)
        return;
    struct pollfd p = { .fd = ts->pipe[0], .events = POLLIN };
    (void)poll(&p, 1, timeout_ms);
}

void cache_tasks_free(cache_tasks *ts, cache *c)
{
    if (!ts)
        return;
    while (ts->pending) {
        cache_tasks_wait(ts, 100);
        cache_tasks_collect(ts, c);
    }
    if (ts->started) {
        pthread_mutex_lock(&ts->mu);
        ts->closing = true;
        pthread_cond_broadcast(&ts->more);
        pthread_mutex_unlock(&ts->mu);
        for (size_t i = 0; i < ts->nthreads; i++)
            pthread_join(ts->thread[i], NULL);
        close(ts->pipe[0]);
        close(ts->pipe[1]);
    }
    pthread_cond_destroy(&ts->more);
    pthread_mutex_destroy(&ts->mu);
    free(ts);
}

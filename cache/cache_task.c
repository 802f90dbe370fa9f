/* cache_task.c — deferred work of a run (cache_defer()): worker threads,
 * one per processor up to CACHE_WORKER_MAX_THREADS, run the tasks' `work`
 * (parsing a body a callback received, say) while the run's thread goes
 * on driving the transfers, and hand each finished task back through a
 * pipe that the run's poll watches, so its `done` runs on the run's
 * thread, where it may submit requests. It owns the tasks and the pipe;
 * the threads and their queues are cache_worker.c's, when to collect
 * cache_http.c's. Like the background writer (cache_bg.c), the threads
 * live for one cache_run(). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cache_task.h"
#include "cache_worker.h"

/* A cold crawl's bodies arrive faster than one thread parses the largest
 * (next's packument is 21 MB): a second worker parses the others beside
 * it. More than a few (CACHE_WORKER_MAX_THREADS) only adds threads waiting
 * on the same transfers. */
static size_t workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > CACHE_WORKER_MAX_THREADS ? CACHE_WORKER_MAX_THREADS : (size_t)n;
}

typedef struct task {
    cache_work_fn work;
    cache_done_task_fn done;
    void *user;
} task;

struct cache_tasks {
    cache_worker *w;
    size_t pending;       /* queued, running, or done and not collected */
    int pipe[2];          /* a byte per task done; read end polled */
    bool started;
};

/* The worker's job function: the task's work, then back to the run. */
static bool run(void *job, void *user)
{
    (void)user;
    task *t = job;
    t->work(t->user);
    return true;
}

/* After a task is handed back: a byte on the pipe wakes the run's poll. */
static void notify(void *user)
{
    cache_tasks *ts = user;
    char b = 1;
    while (write(ts->pipe[1], &b, 1) < 0 && errno == EINTR)
        ;
}

cache_tasks *cache_tasks_new(void)
{
    cache_tasks *ts = xcalloc(1, sizeof *ts);
    ts->pipe[0] = ts->pipe[1] = -1;
    ts->w = cache_worker_new(run, notify, ts, workers());
    return ts;
}

/* The pipe (non-blocking, close-on-exec), then the worker's threads. */
static bool start(cache_tasks *ts)
{
    if (pipe(ts->pipe) != 0)
        return false;
    for (int i = 0; i < 2; i++) {
        fcntl(ts->pipe[i], F_SETFD, FD_CLOEXEC);
        fcntl(ts->pipe[i], F_SETFL, fcntl(ts->pipe[i], F_GETFL) | O_NONBLOCK);
    }
    ts->started = cache_worker_start(ts->w);
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
    ts->pending++;
    cache_worker_push(ts->w, t, 0, SIZE_MAX);
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
    ptrvec done = PTRVEC_INIT;
    size_t n = cache_worker_take_done(ts->w, &done);
    for (size_t i = 0; i < n; i++) {
        task *t = done.items[i];
        /* pending counts a task until its done has run: cache_run() must
         * not end between the two */
        t->done(c, t->user);
        free(t);
        ts->pending--;
    }
    ptrvec_release(&done);
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
    cache_worker_free(ts->w);
    if (ts->started) {
        close(ts->pipe[0]);
        close(ts->pipe[1]);
    }
    free(ts);
}

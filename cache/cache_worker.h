/* cache_worker.h — worker threads draining a queue of jobs
 * (cache_worker.c), internal to cache/: the background writer (cache_bg.c,
 * one thread) and the deferred tasks (cache_task.c, a few) each run one
 * for a cache_run(). */
#ifndef EL_CACHE_WORKER_H
#define EL_CACHE_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "cache.h"

typedef struct cache_worker cache_worker;

/* Runs `job` on the worker thread. Returns true to hand it back to the
 *  owner (cache_worker_take_done()), false when it has disposed of it. */
typedef bool (*cache_worker_fn)(void *job, void *user);

/* Called on the worker thread after a job is handed back, outside the
 *  worker's lock (cache_task.c wakes the run's poll). */
typedef void (*cache_worker_notify_fn)(void *user);

/* CACHE_WORKER_MAX_THREADS : the most threads one worker runs. */
#define CACHE_WORKER_MAX_THREADS 4

/* cache_worker_new() : a worker that runs `run` on each job pushed, in the
 *  order pushed (on `threads` threads, 1 to CACHE_WORKER_MAX_THREADS: with
 *  more than one, jobs run at once), and calls `notify` (may be NULL) after
 *  each one handed back; `user` is passed to both. The threads start at
 *  cache_worker_start(). */
cache_worker *cache_worker_new(cache_worker_fn run, cache_worker_notify_fn notify, void *user,
                               size_t threads);

/* cache_worker_start() : starts the threads (with every signal blocked in
 *  them: SIGINT and friends stay the main thread's; util/file.c defers
 *  them around a temp file's naming on whichever thread writes) unless
 *  they run. false when no thread can be started (true when some could):
 *  the owner then does the work itself. */
bool cache_worker_start(cache_worker *w);

/* cache_worker_push() :
 *  Queues `job` (the worker must have started), of `cost` in the owner's
 *  unit. Blocks while the cost of the jobs queued or running would pass
 *  `max_cost` with this one (a worker with nothing queued takes any job):
 *  the owner's bound on what it holds in memory. SIZE_MAX: no bound. */
void cache_worker_push(cache_worker *w, void *job, size_t cost, size_t max_cost);

/* cache_worker_take_done() : appends to `out` the jobs handed back since
 *  the last call, in the order they finished; returns how many. */
size_t cache_worker_take_done(cache_worker *w, ptrvec *out);

/* cache_worker_free() : runs every job queued, stops the thread and frees
 *  the worker; jobs handed back and not taken are the owner's to have
 *  taken before. NULL is a no-op. */
void cache_worker_free(cache_worker *w);

#endif

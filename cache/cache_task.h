/* cache_task.h — deferred work of a run (cache_task.c), internal to cache/:
 * cache_defer() (cache.h) queues here, cache_run() collects. */
#ifndef EL_CACHE_TASK_H
#define EL_CACHE_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "cache.h"

typedef struct cache_tasks cache_tasks;

cache_tasks *cache_tasks_new(void);

/* cache_tasks_add() : queues `work` for the worker thread (started at the
 *  first task). false when no thread can be started: the caller then runs
 *  the task itself. */
bool cache_tasks_add(cache_tasks *ts, cache_work_fn work, cache_done_task_fn done, void *user);

/* cache_tasks_pending() : tasks whose `done` has not run yet (0 for NULL). */
size_t cache_tasks_pending(const cache_tasks *ts);

/* cache_tasks_fd() : readable when a task's work has finished; -1 when no
 *  thread runs (NULL too). */
int cache_tasks_fd(const cache_tasks *ts);

/* cache_tasks_collect() : runs, on the calling thread, the `done` of every
 *  task whose work has finished, in the order they finished (a done may
 *  add tasks). Returns how many ran. */
size_t cache_tasks_collect(cache_tasks *ts, cache *c);

/* cache_tasks_wait() : waits up to timeout_ms for a task to finish. */
void cache_tasks_wait(cache_tasks *ts, int timeout_ms);

/* cache_tasks_free() : runs every task to its done (on the calling
 *  thread), stops the thread, frees. NULL is a no-op. */
void cache_tasks_free(cache_tasks *ts, cache *c);

#endif

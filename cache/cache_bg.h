/* cache_bg.h — the cache's background writer (cache_bg.c), internal to
 * cache/: entries a run stores lazily are encoded and written by one thread
 * beside the transfers. */
#ifndef EL_CACHE_BG_H
#define EL_CACHE_BG_H

#include <stdbool.h>
#include <stddef.h>

#include "cache.h"

typedef struct cache_bg cache_bg;

/* cache_bg_new() : a writer for store `s` (borrowed; it must outlive the
 *  writer). Its thread starts at the first cache_bg_put(). */
cache_bg *cache_bg_new(cache_store *s);

/* cache_bg_put() :
 *  Queues the entry `key` for cache_store_put_lazy() (or, when `hashed`,
 *  for cache_store_put_hashed(): m->sha256 and m->size already describe
 *  `body`). Takes `m`'s strings (*m is left empty), `body` (malloc'd) and
 *  `lock_fd` (cache_store_lock()'s, or -1), which is released once the
 *  entry is written, so another request for the key waits for the entry
 *  instead of fetching it again. Blocks while the bodies queued pass
 *  CACHE_BG_MAX_BYTES (a queue that is empty takes any one). Writes
 *  synchronously when no thread can be started. Write failures are dropped
 *  as the lazy puts' are: a missing entry is a later miss. */
void cache_bg_put(cache_bg *bg, const char *key, cache_meta *m, unsigned char *body, size_t len,
                  int lock_fd, bool hashed);

/* cache_bg_free() : waits until every queued entry is written, stops the
 *  thread and frees the writer. NULL is a no-op. */
void cache_bg_free(cache_bg *bg);

#endif

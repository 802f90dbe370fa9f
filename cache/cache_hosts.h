/* cache_hosts.h — hosts a cache found unreachable (cache_hosts.c), internal
 * to cache/: a host name that does not resolve, a proxy that does not, a
 * host and port that refuse connections or let them time out. cache_http.c asks before each
 * attempt, so that once one request to such a host has used its retries
 * the others to it fail at once, for as long as the cache is open (one
 * command), instead of each paying the same retries again. */
#ifndef EL_CACHE_HOSTS_H
#define EL_CACHE_HOSTS_H

#include <stdbool.h>

typedef struct cache_hosts cache_hosts;

/* What a host's requests are answered with once it is down. */
typedef struct cache_host_down {
    const char *reason; /* "dns", "connect", "proxy" or "timeout" (static) */
    const char *text;   /* libcurl's words ("Could not resolve host: h") */
    unsigned attempts;  /* the attempts of the request that gave up */
    bool retryable;
} cache_host_down;

typedef enum cache_host_state {
    CACHE_HOST_UNKNOWN, /* nothing against it: make the attempt */
    CACHE_HOST_PROBED,  /* an attempt failed and another request retries
                           it: wait for that one's outcome */
    CACHE_HOST_DOWN,    /* a request gave up on it: fail at once */
} cache_host_state;

cache_hosts *cache_hosts_new(void);

/* cache_hosts_free() : NULL is a no-op. */
void cache_hosts_free(cache_hosts *h);

/* cache_hosts_state() :
 *  What is known of the origin (scheme, host, port) of `url` for the
 *  request `who` (its own probe counts as UNKNOWN). For DOWN, *down
 *  (borrowed from `h`, valid until it is freed) says how it failed. A URL
 *  with no host (file://) is always UNKNOWN. */
cache_host_state cache_hosts_state(const cache_hosts *h, const char *url, const void *who,
                                   const cache_host_down **down);

/* cache_hosts_probe() : an attempt of `who` at `url` failed at the host
 *  and `who` retries it; the others wait (PROBED). A host already probed
 *  or down is left as it is. */
void cache_hosts_probe(cache_hosts *h, const char *url, const void *who);

/* cache_hosts_give_up() : a request gave up on `url`'s host after its
 *  retries: the host is DOWN with `d` (copied) until h is freed. */
void cache_hosts_give_up(cache_hosts *h, const char *url, const cache_host_down *d);

/* cache_hosts_reached() : an attempt at `url` got through to its host:
 *  forgets a probe of it (not a DOWN). */
void cache_hosts_reached(cache_hosts *h, const char *url);

/* cache_hosts_release() : `who` ends without a verdict on what it probed
 *  (out of time, say): the host is UNKNOWN again, so a waiting request
 *  makes the next attempt. */
void cache_hosts_release(cache_hosts *h, const void *who);

#endif

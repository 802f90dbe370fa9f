/* cache_hosts.c — the hosts a cache found unreachable: a table of origins
 * (scheme://host:port), each probed by one request or down with the
 * failure that ended it. It owns that table only: which failures count,
 * and what a request does about a state, is cache_http.c's. A run reaches
 * a handful of hosts, so the table is a list searched in order. */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cache_hosts.h"

typedef struct host {
    char *origin;
    cache_host_state state;
    const void *prober;  /* PROBED: the request retrying it */
    cache_host_down down; /* DOWN: its text is owned */
} host;

struct cache_hosts {
    ptrvec hosts;
};

cache_hosts *cache_hosts_new(void) { return xcalloc(1, sizeof(cache_hosts)); }

static void host_free(host *e)
{
    free(e->origin);
    free((char *)e->down.text);
    free(e);
}

void cache_hosts_free(cache_hosts *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->hosts.len; i++)
        host_free(h->hosts.items[i]);
    ptrvec_release(&h->hosts);
    free(h);
}

/* "scheme://host:port", lowercased (the host is; schemes are written so
 * here), malloc'd; NULL for a URL without a host or a known port. */
static char *origin_of(const char *url)
{
    const char *sep = strstr(url, "://");
    unsigned port = cache_url_port(url);
    char *name = sep && port ? cache_url_host(url) : NULL;
    if (!name)
        return NULL;
    char *o = xasprintf("%.*s://%s:%u", (int)(sep - url), url, name, port);
    free(name);
    return o;
}

static host *find(const cache_hosts *h, const char *origin, size_t *at)
{
    for (size_t i = 0; origin && i < h->hosts.len; i++) {
        host *e = h->hosts.items[i];
        if (strcmp(e->origin, origin) == 0) {
            if (at)
                *at = i;
            return e;
        }
    }
    return NULL;
}

static void drop(cache_hosts *h, size_t i)
{
    host_free(h->hosts.items[i]);
    h->hosts.items[i] = h->hosts.items[--h->hosts.len];
}

cache_host_state cache_hosts_state(const cache_hosts *h, const char *url, const void *who,
                                   const cache_host_down **down)
{
    char *origin = origin_of(url);
    const host *e = find(h, origin, NULL);
    free(origin);
    if (!e || (e->state == CACHE_HOST_PROBED && e->prober == who))
        return CACHE_HOST_UNKNOWN;
    if (e->state == CACHE_HOST_DOWN)
        *down = &e->down;
    return e->state;
}

void cache_hosts_probe(cache_hosts *h, const char *url, const void *who)
{
    char *origin = origin_of(url);
    if (!origin || find(h, origin, NULL)) {
        free(origin);
        return;
    }
    host *e = xcalloc(1, sizeof *e);
    e->origin = origin;
    e->state = CACHE_HOST_PROBED;
    e->prober = who;
    ptrvec_push(&h->hosts, e);
}

void cache_hosts_give_up(cache_hosts *h, const char *url, const cache_host_down *d)
{
    char *origin = origin_of(url);
    if (!origin)
        return;
    host *e = find(h, origin, NULL);
    if (e && e->state == CACHE_HOST_DOWN) {
        free(origin);
        return;
    }
    if (e) {
        free(origin);
    } else {
        e = xcalloc(1, sizeof *e);
        e->origin = origin;
        ptrvec_push(&h->hosts, e);
    }
    e->state = CACHE_HOST_DOWN;
    e->prober = NULL;
    e->down = *d;
    e->down.text = xstrdup(d->text ? d->text : "");
}

void cache_hosts_reached(cache_hosts *h, const char *url)
{
    char *origin = origin_of(url);
    size_t i;
    host *e = find(h, origin, &i);
    if (e && e->state == CACHE_HOST_PROBED)
        drop(h, i);
    free(origin);
}

void cache_hosts_release(cache_hosts *h, const void *who)
{
    for (size_t i = h->hosts.len; i-- > 0;) {
        const host *e = h->hosts.items[i];
        if (e->state == CACHE_HOST_PROBED && e->prober == who)
            drop(h, i);
    }
}

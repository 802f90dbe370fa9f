/* cache_http.c — the fetch engine: one libcurl multi handle with one share
 * handle (DNS, connections, TLS sessions: a host is resolved once per run),
 * HTTP/2 multiplexing, bounded parallelism, retries with backoff, revalidation
 * of index pages, size caps, expected-hash checks, offline mode and the
 * progress reports (el_cache_options.progress: the CLI draws them).
 * Requests are queued by cache_submit() and driven by
 * cache_run(); each ends in exactly one callback. A file:// URL ending in
 * '/' reads the directory's index page: index.json (Content-Type PEP 691
 * JSON) when the Accept asks for that type and the file exists, else
 * index.html (text/html); other file:// reads carry no Content-Type. A request
 * with a sink streams its body to a temp file (util's file_stream) and
 * hashes it on the way instead of holding it. Storage itself is
 * cache_store.c's; mirror rewriting is cache_mirror.c's. libcurl is loaded
 * (cache_curl.c) only when a request needs a transfer: cache hits, fresh
 * entries and offline answers never map it. Nothing here prints request
 * headers: they may carry credentials. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <search.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <libxml/uri.h>
#include <libxml/xmlmemory.h>

#include "cache.h"
#include "cache_bg.h"
#include "cache_hosts.h"
#include "cache_task.h"
#include "cache_curl.h"

/* Transfers in flight at once. A re-resolve revalidates a whole lock's
 * pages in one batch (~80 for a mid-size npm tree) and prefetches its
 * packuments at once, and a cold npm crawl asks for a level of the tree at
 * once (400 packuments in a large app's), so all are latency-bound by N /
 * this. bench/npm_fetch's cra set (1,290 packuments), Release, 2 cores:
 * prefetched from a previous lock 2.9-3.2 s at 32, 2.1-2.9 s at 64 and 96;
 * a cold crawl 3.4-3.7 s at 32, 3.3-3.5 s at 64 (gatsby: 3.4 s, 2.9-3.1 s).
 * At 128 and 256, beyond the 100 streams HTTP/2 servers commonly allow on
 * one connection, it got slower with twice the CPU. uv allows 50, npm 15
 * sockets. */
#define DEFAULT_PARALLEL 64
/* Connections at once, whatever max_parallel: over HTTP/2 the transfers
 * are streams of a few; over HTTP/1.1 the ones beyond wait in libcurl's
 * queue rather than open more sockets to one server. */
#define MAX_CONNECTIONS 32
#define DEFAULT_MAX_BYTES ((uint64_t)512 << 20)
/* How long to wait for another process (or request) fetching the same URL
 * before fetching it ourselves; rename keeps the cache consistent either way. */
#define LOCK_WAIT_MS 120000
#define LOCK_POLL_MS 25
/* Time bounds (include/envlock/cache.h; docs/testing.md, "Reliability"). A
 * request ends within the transfer timeout whatever the server does; the
 * retry budget bounds how long failures are retried (without it a server
 * that never answers took 157 s: five attempts of the stall window); the
 * run timeout bounds a whole run that fetches page after page. */
#define DEFAULT_TRANSFER_TIMEOUT_S 300
#define DEFAULT_RETRY_MAX_S 60
#define DEFAULT_RUN_TIMEOUT_S 900
/* The minimum speed: an attempt that averages under 1 KiB/s over 30 s is
 * too slow (a server dripping a byte a second kept the old rule, "no byte
 * for 30 s", satisfied forever). */
#define DEFAULT_MIN_SPEED 1024
#define DEFAULT_MIN_SPEED_TIME_S 30
/* Samples of the bytes received kept for the minimum-speed window: the
 * window slides in steps of 1/RATE_SLOTS of its length. */
#define RATE_SLOTS 16
/* Redirects followed per attempt (libcurl's CURLOPT_MAXREDIRS was 10). */
#define MAX_REDIRECTS 10

/* The order of the keys in cache.confirmed. */
static int key_cmp(const void *a, const void *b) { return strcmp(a, b); }

/* X_HOSTWAIT: an attempt failed at a host another request is retrying;
 * waits for that one's outcome (see failed_curl()). */
typedef enum xstate { X_NEW, X_LOCKWAIT, X_DELAY, X_HOSTWAIT, X_ACTIVE } xstate;

typedef struct xfer {
    cache *c;
    char *url;       /* canonical */
    char *redacted;  /* canonical without credentials, for messages */
    char *transport; /* what is requested (mirror applied) */
    char *shown;     /* what failure messages name: the URL read, and the
                        canonical URL it stands for when a mirror applies
                        ("M (mirror of C)"), both without credentials */
    char *read_url;  /* the mirror's URL read (redacted), or NULL */
    char *accept;
    char *vary;      /* what besides the URL the key covers: Accept [+ Range] */
    cache_policy policy;
    uint64_t max_bytes;
    char *want_sha;
    char **headers;
    size_t n_headers;
    char *ca_file, *client_cert, *client_key; /* cache_request's */
    unsigned socket_port; /* the port of the last socket libcurl opened */
    cache_done_fn done;
    void *user;
    /* a request with a sink: the body goes to a temp file, not to `body` */
    char *sink;
    unsigned sink_flags; /* FILE_LAZY when the request asked for sink_lazy */
    file_stream *fs;     /* this attempt's temp file, made at its first byte */
    sha256_stream *hs;   /* ... and the digest of what went into it */
    uint64_t got;        /* body bytes of this attempt (written or dropped) */
    int werr;            /* the errno of a failed write, 0 if none */

    char key[65];
    xstate state;
    int lock_fd;
    int64_t submitted_ms;
    int64_t lockwait_since_ms;
    int64_t due_ms;  /* X_DELAY: when to try again */
    int64_t started_ms;
    unsigned attempts;

    cache_meta cached; /* the entry we hold for revalidation */
    unsigned char *cached_body; /* NULL for an on-demand request until read */
    size_t cached_len;
    bool have_cached;
    bool on_demand; /* body_on_demand: a hit or a 304 is served from the
                       metadata alone; cache_response_body() reads the body */
    cache_meta *later; /* the new entry for `body`, stored by the background
                          writer once the callback is done (store_later()) */

    CURL *easy;
    struct curl_slist *hdrs;
    strbuf body;
    const char *file_type; /* file:// directory: the Content-Type of the page
                              chosen (static string), else NULL */
    bool too_large;
    bool too_slow;         /* aborted by the minimum-speed rule */
    char *hop;             /* the redirect target this attempt is at, or NULL
                              (at transport); may carry credentials */
    unsigned hops;         /* redirects followed in this attempt */
    int64_t first_ms;      /* start of the first attempt; 0 before */
    const char *tlimit;    /* which bound set this attempt's CURLOPT_TIMEOUT */
    long tlimit_ms;        /* ... and its value */
    /* minimum-speed window: ring of (time, bytes received) samples */
    int64_t rate_t[RATE_SLOTS + 1];
    curl_off_t rate_b[RATE_SLOTS + 1];
    unsigned rate_head, rate_n;
    char errbuf[CURL_ERROR_SIZE];
} xfer;

struct cache {
    el_cache_options o;
    uint64_t jitter;       /* xorshift state for retry backoff (no srand: the
                              library leaves the process's rand() alone) */
    char *dir;
    cache_store *store;
    cache_mirrors *mirrors;
    ptrvec redirect_hosts; /* lowercased host names a redirect may reach */
    int64_t run_deadline_ms;
    /* The HTTP engine, set up by engine_ready() at the first transfer:
     * libcurl is loaded only by a run that fetches something. */
    cache_curl *cu;
    CURLM *multi;
    CURLSH *share;
    bool load_failed; /* this cache_run() could not load libcurl */
    el_ctx *run_ctx;  /* the ctx of the cache_run() in progress */
    cache_bg *bg;     /* the lazy writes of the run in progress, or NULL */
    cache_tasks *tasks; /* cache_defer()'s of the run in progress, or NULL */
    cache_hosts *hosts; /* hosts found unreachable while the cache is open */
    ptrvec queue; /* X_NEW, FIFO from qhead */
    size_t qhead;
    ptrvec waiting; /* X_LOCKWAIT, X_DELAY and X_HOSTWAIT */
    ptrvec active;
    cache_run_stats st;
    uint64_t submitted;
    bool progress;
    int64_t opened_ms;
    void *confirmed; /* tsearch tree of the keys a 304 confirmed this run
                        without their entry being rewritten (see fresh()) */
    int64_t progress_ms;
    bool progress_shown;
    const char *phase; /* cache_phase()'s, or NULL */
    /* for cache_fetch() */
    el_ctx *fetch_ctx;
};

/* ---- response delivery ---- */

/* Drops what a sink request's attempt wrote (its temp file) and, when
 * `again`, readies a fresh digest for the next attempt. */
static void sink_reset(xfer *x, bool again)
{
    file_stream_abort(x->fs);
    x->fs = NULL;
    if (x->hs) {
        char unused[65];
        sha256_end(x->hs, unused);
    }
    x->hs = x->sink && again ? sha256_begin() : NULL;
    x->got = 0;
    x->werr = 0;
}

static void xfer_free(xfer *x)
{
    free(x->url);
    free(x->redacted);
    free(x->transport);
    free(x->shown);
    free(x->read_url);
    free(x->accept);
    free(x->vary);
    free(x->want_sha);
    free(x->hop);
    sink_reset(x, false);
    free(x->sink);
    for (size_t i = 0; i < x->n_headers; i++)
        free(x->headers[i]);
    free(x->headers);
    free(x->ca_file);
    free(x->client_cert);
    free(x->client_key);
    cache_meta_clear(&x->cached);
    if (x->later)
        cache_meta_clear(x->later);
    free(x->later);
    free(x->cached_body);
    if (x->easy)
        x->c->cu->easy_cleanup(x->easy);
    if (x->hdrs)
        x->c->cu->slist_free_all(x->hdrs);
    sb_release(&x->body);
    cache_store_unlock(x->lock_fd);
    free(x);
}

static bool is_file_url(const char *u) { return strncmp(u, "file://", 7) == 0; }

static void store_later(xfer *x);

static void deliver(xfer *x, cache_response *r)
{
    cache *c = x->c;
    r->url = x->url;
    if (!r->final_url)
        r->final_url = x->redacted;
    r->attempts = x->attempts;
    r->local = x->transport && is_file_url(x->transport);
    /* Release the lock before the callback: it may submit the same URL. A
     * new entry keeps it until the background writer has stored it. */
    if (!x->later) {
        cache_store_unlock(x->lock_fd);
        x->lock_fd = -1;
    }
    c->st.requests++;
    cache_hosts_release(c->hosts, x);
    if (r->code != EL_OK)
        c->st.failures++;
    r->owner_ = x;
    if (x->done)
        x->done(c, r, x->user);
    if (x->later)
        store_later(x);
    xfer_free(x);
}

/* What a failure carries besides its reason (cache_response's fields). */
typedef struct fail_extra {
    el_code code; /* EL_OK: the reason's usual code */
    int err;      /* write_failed: the errno */
    const char *limit;
    long limit_seconds;
    long retry_after_s;
    const char *location;
} fail_extra;

static void vfail(xfer *x, const char *reason, long status, bool retryable, const fail_extra *e,
                  const char *fmt, va_list ap)
{
    char *msg = xvasprintf(fmt, ap);
    cache_response r = { 0 };
    /* bad_url too: a URL that reaches a transfer came from a server (a
     * link on a page), never from the command line (see cache.h). */
    r.code = e && e->code != EL_OK ? e->code : EL_PACKAGE_NOT_FOUND;
    r.reason = reason;
    r.status = status;
    r.message = msg;
    r.retryable = retryable;
    if (e) {
        r.limit = e->limit;
        r.limit_seconds = e->limit_seconds;
        r.retry_after_s = e->retry_after_s;
        r.location = e->location;
        r.write_errno = e->err;
    }
    r.read_url = x->read_url;
    deliver(x, &r);
    free(msg);
}

static void fail(xfer *x, const char *reason, long status, bool retryable, const char *fmt, ...)
    EL_PRINTF(5, 6);
static void fail_x(xfer *x, const char *reason, long status, bool retryable, const fail_extra *e,
                   const char *fmt, ...) EL_PRINTF(6, 7);

static void fail(xfer *x, const char *reason, long status, bool retryable, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(x, reason, status, retryable, NULL, fmt, ap);
    va_end(ap);
}

static void fail_x(xfer *x, const char *reason, long status, bool retryable, const fail_extra *e,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(x, reason, status, retryable, e, fmt, ap);
    va_end(ap);
}

/* Serves a verified body: `body` is either x->body.buf, x->cached_body or a
 * malloc'd buffer deliver() frees. */
static void succeed(xfer *x, const unsigned char *body, size_t len, const cache_meta *m,
                    bool from_cache, const char *final_url)
{
    cache_response r = { 0 };
    r.status = m->status ? m->status : 200;
    r.body = body;
    r.len = len;
    r.sha256 = m->sha256;
    r.etag = m->etag;
    r.last_modified = m->last_modified;
    r.content_type = m->content_type;
    r.from_cache = from_cache;
    r.final_url = final_url;
    r.body_deferred = x->on_demand && from_cache && !body;
    if (x->sink) {
        r.path = x->sink;
        r.body = NULL;
    }
    deliver(x, &r);
}

unsigned char *cache_response_take_body(cache_response *r, size_t *len)
{
    xfer *x = r->owner_;
    unsigned char *b;
    if (!r->body || !x)
        return NULL;
    if (r->body == (const unsigned char *)x->body.buf && x->later) {
        /* the background writer stores these bytes: the caller gets a copy */
        b = xmalloc(r->len ? r->len : 1);
        memcpy(b, r->body, r->len);
    } else if (r->body == (const unsigned char *)x->body.buf) {
        b = (unsigned char *)sb_detach(&x->body, NULL);
    } else if (r->body == x->cached_body) {
        b = x->cached_body;
        x->cached_body = NULL;
    } else {
        return NULL;
    }
    *len = r->len;
    r->body = NULL;
    return b;
}

const unsigned char *cache_response_body(cache *c, cache_response *r)
{
    xfer *x = r->owner_;
    if (!r->body_deferred || !x)
        return r->body;
    cache_meta m;
    unsigned char *body = NULL;
    size_t len = 0;
    cache_meta_init(&m);
    cache_entry_state s = cache_store_get(c->store, x->key, &m, &body, &len, NULL);
    /* Another writer may have stored another version meanwhile: only the
     * body the response describes will do. */
    bool same = s == CACHE_ENTRY_OK && strcmp(m.sha256, r->sha256) == 0 && len == r->len;
    cache_meta_clear(&m);
    if (!same) {
        free(body);
        return NULL;
    }
    free(x->cached_body);
    x->cached_body = body;
    x->cached_len = len;
    r->body = body;
    r->body_deferred = false;
    return body;
}

cache_failure cache_failure_of(const cache_response *r)
{
    return (cache_failure){ .code = r->code,
                            .reason = r->reason,
                            .message = r->message,
                            .url = r->url,
                            .status = r->status,
                            .limit = r->limit,
                            .limit_seconds = r->limit_seconds,
                            .retry_after_s = r->retry_after_s,
                            .location = r->location,
                            .read_url = r->read_url,
                            .retryable = r->retryable };
}

static const char *copy_or_null(arena *a, const char *s)
{
    return s ? arena_strdup(a, s) : NULL;
}

cache_failure cache_failure_copy(const cache_failure *f, arena *a)
{
    cache_failure c = *f;
    c.reason = copy_or_null(a, f->reason);
    c.message = copy_or_null(a, f->message);
    c.url = copy_or_null(a, f->url);
    c.limit = copy_or_null(a, f->limit);
    c.location = copy_or_null(a, f->location);
    c.read_url = copy_or_null(a, f->read_url);
    return c;
}

static void detail_url(el_ctx *ctx, const char *key, const char *url)
{
    char *u = cache_url_redact(url);
    el_detail_str(ctx, key, u);
    free(u);
}

el_code cache_failure_report(el_ctx *ctx, const cache_failure *f)
{
    if (f->code == EL_OK)
        return EL_OK;
    el_fail(ctx, f->code, "%s", f->message ? f->message : "fetch failed");
    el_detail_str(ctx, "reason", f->reason ? f->reason : "unreachable");
    if (f->url)
        detail_url(ctx, "url", f->url);
    if (f->status)
        el_detail_int(ctx, "status", f->status);
    if (f->limit)
        el_detail_str(ctx, "limit", f->limit);
    if (f->limit_seconds)
        el_detail_int(ctx, "seconds", f->limit_seconds);
    if (f->retry_after_s)
        el_detail_int(ctx, "retryAfterSeconds", f->retry_after_s);
    if (f->location)
        detail_url(ctx, "location", f->location);
    if (f->read_url)
        detail_url(ctx, "readUrl", f->read_url);
    el_set_retryable(ctx, f->retryable);
    return f->code;
}

el_code cache_response_fail(el_ctx *ctx, const cache_response *r)
{
    cache_failure f = cache_failure_of(r);
    return cache_failure_report(ctx, &f);
}

/* ---- progress ---- */

static void progress(cache *c, bool final)
{
    if (!c->progress)
        return;
    int64_t now = cache_now_ms();
    if (!final && now - c->progress_ms < 200)
        return;
    c->progress_ms = now;
    if (final && c->phase) {
        cache_phase(c, c->phase); /* the work around the run goes on */
        return;
    }
    if (final && !c->progress_shown)
        return;
    el_progress p = { .done = c->st.requests, .total = c->submitted, .bytes = c->st.bytes,
                      .final = final };
    const xfer *slow = NULL;
    for (size_t i = 0; !final && i < c->active.len; i++) {
        const xfer *x = c->active.items[i];
        if (!slow || x->started_ms < slow->started_ms)
            slow = x;
    }
    if (slow && now - slow->started_ms > 1000) {
        p.slowest = slow->redacted;
        p.slowest_s = (double)(now - slow->started_ms) / 1000;
    }
    c->o.progress(&p, c->o.progress_user);
    c->progress_shown = !final;
}

void cache_phase(cache *c, const char *phase)
{
    if (!c)
        return;
    c->phase = phase;
    if (!c->progress || (!phase && !c->progress_shown))
        return;
    el_progress p = { .done = c->st.requests, .total = c->submitted, .bytes = c->st.bytes,
                      .final = !phase, .phase = phase };
    c->o.progress(&p, c->o.progress_user);
    c->progress_shown = phase != NULL;
}

/* ---- engine setup ---- */

/* Time bounds and the minimum speed: the option, else the default. */
static void bounds(el_cache_options *o)
{
    if (o->transfer_timeout_ms <= 0)
        o->transfer_timeout_ms = DEFAULT_TRANSFER_TIMEOUT_S * 1000L;
    if (o->retry_max_ms <= 0)
        o->retry_max_ms = DEFAULT_RETRY_MAX_S * 1000L;
    if (o->run_timeout_ms <= 0)
        o->run_timeout_ms = DEFAULT_RUN_TIMEOUT_S * 1000L;
    if (o->stall_bytes_per_s <= 0)
        o->stall_bytes_per_s = DEFAULT_MIN_SPEED;
    if (o->stall_seconds <= 0)
        o->stall_seconds = DEFAULT_MIN_SPEED_TIME_S;
}

/* Adds the host names of a space- or comma-separated list, lowercased. */
static void add_hosts(ptrvec *v, const char *list)
{
    for (const char *p = list; p && *p;) {
        p += strspn(p, " ,\t\n");
        size_t n = strcspn(p, " ,\t\n");
        if (n) {
            char *h = xstrndup(p, n);
            for (char *q = h; *q; q++)
                *q = (char)tolower((unsigned char)*q);
            ptrvec_push(v, h);
        }
        p += n;
    }
}

cache *cache_open(el_ctx *ctx, const el_cache_options *o)
{
    static const el_cache_options none = { 0 };
    if (!o)
        o = &none;
    char *dir = cache_default_dir(o);
    if (!dir) {
        cache_fail_no_dir(ctx);
        return NULL;
    }
    cache_mirrors *mir = cache_mirrors_load(ctx, o);
    if (!mir) {
        free(dir);
        return NULL;
    }
    el_cache_options opt = *o;
    bounds(&opt);
    cache_store *store = cache_store_open(ctx, dir);
    if (!store) {
        cache_mirrors_free(mir);
        free(dir);
        return NULL;
    }
    cache *c = xcalloc(1, sizeof *c);
    c->o = opt;
    c->o.dir = NULL;
    c->o.mirrors = NULL;
    c->o.n_mirrors = 0;
    c->o.redirect_hosts = NULL;
    c->o.n_redirect_hosts = 0;
    c->o.ca_bundle = o->ca_bundle ? xstrdup(o->ca_bundle) : NULL;
    c->o.ca_dir = o->ca_dir ? xstrdup(o->ca_dir) : NULL;
    c->o.npm_token = o->npm_token ? xstrdup(o->npm_token) : NULL;
    /* netrc is always read, optional per host (libcurl's default file is
     * ~/.netrc); $NETRC names another file, as for curl and pip. */
    const char *netrc = o->netrc_file ? o->netrc_file : getenv("NETRC");
    c->o.netrc_file = netrc && *netrc ? xstrdup(netrc) : NULL;
    for (size_t i = 0; i < o->n_redirect_hosts; i++)
        add_hosts(&c->redirect_hosts, o->redirect_hosts[i]);
    if (!c->o.max_parallel)
        c->o.max_parallel = DEFAULT_PARALLEL;
    if (!c->o.connect_timeout_ms)
        c->o.connect_timeout_ms = 15000;
    if (!c->o.retries)
        c->o.retries = 4;
    if (c->o.retries < 0)
        c->o.retries = 0;
    if (!c->o.retry_base_ms)
        c->o.retry_base_ms = 500;
    if (!c->o.retry_cap_ms)
        c->o.retry_cap_ms = 30000;
    if (!c->o.max_bytes)
        c->o.max_bytes = DEFAULT_MAX_BYTES;
    c->dir = dir;
    c->store = store;
    c->mirrors = mir;
    c->hosts = cache_hosts_new();
    c->progress = !o->quiet && o->progress; /* the front end draws it (cli/) */
    c->opened_ms = cache_now_ms();
    c->run_deadline_ms = c->opened_ms + c->o.run_timeout_ms;
    c->jitter = ((uint64_t)cache_now_ms() << 20) ^ (uint64_t)getpid() ^ 0x9e3779b97f4a7c15u;
    return c;
}

/* engine_ready() :
 *  Loads libcurl and makes the multi handle and the share handle (DNS,
 *  connections, TLS sessions) the first time a transfer starts. false when
 *  libcurl cannot be loaded: the failure is recorded on the ctx of the
 *  cache_run() in progress, which then returns EL_INTERNAL. */
static bool engine_ready(cache *c)
{
    if (c->cu)
        return true;
    if (c->load_failed)
        return false;
    el_ctx *tmp = c->run_ctx ? NULL : el_ctx_new();
    c->cu = cache_curl_load(c->run_ctx ? c->run_ctx : tmp);
    el_ctx_free(tmp);
    if (!c->cu) {
        c->load_failed = true;
        return false;
    }
    const cache_curl *cu = c->cu;
    c->multi = cu->multi_init();
    c->share = cu->share_init();
    if (!c->multi || !c->share)
        abort(); /* only out of memory fails these */
    cu->share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    cu->share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    cu->share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    cu->multi_setopt(c->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    cu->multi_setopt(c->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                     (long)(c->o.max_parallel < MAX_CONNECTIONS ? c->o.max_parallel : MAX_CONNECTIONS));
    return true;
}

static void free_list(ptrvec *v, size_t from)
{
    for (size_t i = from; i < v->len; i++) {
        xfer *x = v->items[i];
        if (x->easy)
            x->c->cu->multi_remove_handle(x->c->multi, x->easy);
        xfer_free(x);
    }
    ptrvec_release(v);
}

void cache_close(cache *c)
{
    if (!c)
        return;
    cache_tasks_free(c->tasks, c);
    free_list(&c->queue, c->qhead);
    free_list(&c->waiting, 0);
    free_list(&c->active, 0);
    cache_bg_free(c->bg);
    if (c->cu) {
        c->cu->multi_cleanup(c->multi);
        c->cu->share_cleanup(c->share);
        cache_curl_unload(c->cu);
    }
    while (c->confirmed) { /* tdestroy() is GNU's; this is POSIX */
        char *k = *(char **)c->confirmed;
        tdelete(k, &c->confirmed, key_cmp);
        free(k);
    }
    cache_store_close(c->store);
    cache_mirrors_free(c->mirrors);
    cache_hosts_free(c->hosts);
    for (size_t i = 0; i < c->redirect_hosts.len; i++)
        free(c->redirect_hosts.items[i]);
    ptrvec_release(&c->redirect_hosts);
    free((char *)c->o.ca_bundle);
    free((char *)c->o.ca_dir);
    if (c->o.npm_token) {
        memset((char *)c->o.npm_token, 0, strlen(c->o.npm_token));
        free((char *)c->o.npm_token);
    }
    free((char *)c->o.netrc_file);
    free(c->dir);
    free(c);
}

void cache_get_stats(const cache *c, cache_run_stats *st) { *st = c->st; }

const char *cache_npm_token(const cache *c) { return c->o.npm_token; }

char *cache_canonical_url(const cache *c, const char *served_url)
{
    char *canon = cache_mirrors_unrewrite(c->mirrors, served_url);
    char *out = cache_url_redact(canon);
    free(canon);
    return out;
}

char *cache_served_url(const cache *c, const char *url)
{
    return cache_mirrors_rewrite(c->mirrors, url);
}

void cache_submit(cache *c, const cache_request *rq)
{
    xfer *x = xcalloc(1, sizeof *x);
    x->c = c;
    x->url = xstrdup(rq->url);
    x->redacted = cache_url_redact(rq->url);
    x->transport = cache_mirrors_rewrite(c->mirrors, rq->url);
    if (strcmp(x->transport, rq->url) != 0) {
        /* A failure names what was read, not only what it mirrors: a
         * mirror path one level off is then plain to see. */
        x->read_url = cache_url_redact(x->transport);
        x->shown = xasprintf("%s (mirror of %s)", x->read_url, x->redacted);
    } else {
        x->shown = xstrdup(x->redacted);
    }
    x->accept = rq->accept ? xstrdup(rq->accept) : NULL;
    x->policy = rq->policy;
    x->sink = rq->sink ? xstrdup(rq->sink) : NULL;
    x->sink_flags = rq->sink_lazy ? FILE_LAZY : 0;
    x->on_demand = rq->body_on_demand && !rq->sink;
    x->max_bytes = rq->max_bytes ? rq->max_bytes : x->sink ? CACHE_SINK_MAX_BYTES : c->o.max_bytes;
    x->want_sha = rq->sha256 ? xstrdup(rq->sha256) : NULL;
    if (x->want_sha)
        for (char *p = x->want_sha; *p; p++)
            if (*p >= 'A' && *p <= 'F')
                *p = (char)(*p - 'A' + 'a');
    if (rq->n_headers) {
        x->headers = xcalloc(rq->n_headers, sizeof *x->headers);
        for (size_t i = 0; i < rq->n_headers; i++)
            x->headers[i] = xstrdup(rq->headers[i]);
        x->n_headers = rq->n_headers;
    }
    x->ca_file = rq->ca_file ? xstrdup(rq->ca_file) : NULL;
    x->client_cert = rq->client_cert ? xstrdup(rq->client_cert) : NULL;
    x->client_key = rq->client_key ? xstrdup(rq->client_key) : NULL;
    x->done = rq->done;
    x->user = rq->user;
    x->lock_fd = -1;
    x->submitted_ms = cache_now_ms();
    cache_meta_init(&x->cached);
    sb_init(&x->body);
    /* A range is a different document: it gets its own key. */
    const char *range = NULL;
    for (size_t i = 0; i < x->n_headers; i++)
        if (strncasecmp(x->headers[i], "range:", 6) == 0)
            range = x->headers[i];
    if (range)
        x->vary = xasprintf("%s\n%s", x->accept ? x->accept : "", range);
    else if (x->accept)
        x->vary = xstrdup(x->accept);
    /* Keyed (and stored, see store_and_serve) by the URL without
     * credentials: a password never reaches the cache directory. */
    cache_key(x->redacted, x->vary, x->key);
    ptrvec_push(&c->queue, x);
    c->submitted++;
}

/* ---- one transfer ---- */

/* A sink request's bytes: to the temp file if the response is a success
 * (file:// has no status), else dropped (an error page or a redirect's
 * body is no artifact). */
static size_t sink_write(xfer *x, const char *data, size_t len)
{
    if (x->got + len > x->max_bytes) {
        x->too_large = true;
        return 0;
    }
    x->got += len;
    long status = 0;
    x->c->cu->easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status != 0 && (status < 200 || status > 299))
        return len;
    if (!x->fs && !(x->fs = file_stream_begin_flags(x->sink, x->sink_flags, &x->werr)))
        return 0; /* CURLE_WRITE_ERROR; x->werr says why */
    if ((x->werr = file_stream_write(x->fs, data, len)) != 0)
        return 0;
    sha256_update(x->hs, data, len);
    return len;
}

/* Room for the whole body the response announces (Content-Length, up to
 * the size cap) at its first bytes: a packument of 20 MB grown by doubling
 * was copied about as many times over, and left holes in the heap. */
static void presize(xfer *x)
{
    curl_off_t cl = -1;
    if (x->c->cu->easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK ||
        cl <= 0 || (uint64_t)cl > x->max_bytes)
        return;
    sb_grow(&x->body, (size_t)cl);
}

static size_t on_write(char *data, size_t size, size_t n, void *u)
{
    xfer *x = u;
    size_t len = size * n;
    if (x->sink)
        return sink_write(x, data, len);
    if ((uint64_t)x->body.len + len > x->max_bytes) {
        x->too_large = true;
        return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
    }
    if (x->body.len == 0)
        presize(x);
    sb_add(&x->body, data, len);
    return len;
}

/* The minimum-speed rule: an attempt that received fewer than
 * stall_bytes_per_s bytes a second on average over the last stall_seconds
 * (nothing at all included, headers not yet in) is too slow. The window
 * slides: a sample of the byte count is kept every 1/RATE_SLOTS of it, and
 * the oldest sample, at least a window old, is compared with now. (libcurl's
 * low-speed check restarts its window whenever the speed passes the limit
 * for a moment, so a server alternating bursts and silence can hold it off;
 * a sliding average cannot be.) */
static int on_progress(void *u, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    xfer *x = u;
    const cache *c = x->c;
    int64_t now = cache_now_ms();
    int64_t window = (int64_t)c->o.stall_seconds * 1000;
    if (now - x->rate_t[x->rate_head] >= window / RATE_SLOTS) {
        x->rate_head = (x->rate_head + 1) % (RATE_SLOTS + 1);
        x->rate_t[x->rate_head] = now;
        x->rate_b[x->rate_head] = dlnow;
        if (x->rate_n < RATE_SLOTS + 1)
            x->rate_n++;
    }
    unsigned oldest = x->rate_n < RATE_SLOTS + 1 ? 0 : (x->rate_head + 1) % (RATE_SLOTS + 1);
    int64_t span = now - x->rate_t[oldest];
    if (span >= window &&
        (double)(dlnow - x->rate_b[oldest]) < (double)c->o.stall_bytes_per_s * (double)span / 1000) {
        x->too_slow = true;
        return 1; /* CURLE_ABORTED_BY_CALLBACK */
    }
    return 0;
}

/* A file:// directory stands for an index page. Its PEP 691 JSON form
 * (index.json) is the one that carries upload times (PEP 700), which a
 * cutoff needs; its HTML form (index.html) is what a PEP 503-only mirror
 * has. Which one is read follows the request's Accept, as a server
 * negotiating the page would. */
#define PEP691_JSON "application/vnd.pypi.simple.v1+json"

/* Whether the Accept header `accept` names media type `type` (exactly,
 * ignoring case) with a q-value above zero. Wildcards do not count: a
 * client that merely tolerates anything has not asked for this form. */
static bool accepts_type(const char *accept, const char *type)
{
    size_t tn = strlen(type);
    for (const char *p = accept; p && *p;) {
        size_t n = strcspn(p, ",");
        const char *end = p + n;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        size_t mn = strcspn(p, ";, \t");
        if (p + mn > end)
            mn = (size_t)(end - p);
        if (mn == tn && strncasecmp(p, type, tn) == 0) {
            bool zero = false;
            for (const char *q = p + mn; q < end; q++) {
                if (*q != ';')
                    continue;
                q++;
                while (q < end && (*q == ' ' || *q == '\t'))
                    q++;
                if (end - q >= 2 && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
                    /* q=0, q=0.0, q=0.000 refuse the type (RFC 9110 12.4.2) */
                    const char *v = q + 2;
                    zero = v < end && *v == '0';
                    for (v++; zero && v < end && *v != ';' && *v != ' ' && *v != '\t'; v++)
                        zero = *v == '.' || *v == '0';
                }
            }
            if (!zero)
                return true;
        }
        p = *end ? end + 1 : end;
    }
    return false;
}

/* Whether the file:// directory URL `dir_url` (ending in '/') holds a
 * regular file `name`. The URL's path (after the authority, before any
 * query or fragment) is percent-decoded as libcurl's file:// reader
 * decodes it; one with an encoded NUL (%00) names no file. */
static char *file_url_path(const char *url, const char *name)
{
    const char *p = url + 7; /* after "file://" */
    p += strcspn(p, "/?#");
    size_t n = strcspn(p, "?#");
    for (size_t i = 0; i + 2 < n; i++)
        if (p[i] == '%' && p[i + 1] == '0' && p[i + 2] == '0')
            return NULL;
    char *path = xmlURIUnescapeString(p, (int)n, NULL);
    if (!path)
        abort(); /* out of memory */
    char *full = xasprintf("%s%s", path, name);
    xmlFree(path);
    return full;
}

static bool file_dir_has(const char *dir_url, const char *name)
{
    char *full = file_url_path(dir_url, name);
    struct stat st;
    bool ok = full && stat(full, &st) == 0 && S_ISREG(st.st_mode);
    free(full);
    return ok;
}

/* Whether x's file:// URL may be read: the file it names (a directory's
 * index page, see launch()) is a regular file within the size cap. A FIFO
 * would block the one thread past every time limit (libcurl opens it
 * without a timeout) and a device such as /dev/zero never ends, so
 * neither is opened at all. A missing file is left to libcurl (not_found).
 * Fails x and returns false otherwise. */
static bool file_readable(xfer *x)
{
    const char *u = x->transport;
    bool dir = u[strlen(u) - 1] == '/';
    char *path = file_url_path(u, dir ? "index.html" : "");
    if (dir && path && accepts_type(x->accept, PEP691_JSON) && file_dir_has(u, "index.json")) {
        free(path);
        path = file_url_path(u, "index.json");
    }
    struct stat st;
    bool there = path && stat(path, &st) == 0;
    free(path);
    if (there && !S_ISREG(st.st_mode)) {
        fail(x, "bad_url", 0, false, "cannot fetch %s: not a regular file", x->shown);
        return false;
    }
    if (there && x->max_bytes && (uint64_t)st.st_size > x->max_bytes) {
        fail(x, "too_large", 0, false, "%s is larger than the %llu-byte cap", x->shown,
             (unsigned long long)x->max_bytes);
        return false;
    }
    return true;
}

/* Same host (ignoring userinfo, port and scheme). */
static bool same_host(const char *a, const char *b)
{
    char *ha = cache_url_host(a), *hb = cache_url_host(b);
    bool same = ha && hb && strcmp(ha, hb) == 0;
    free(ha);
    free(hb);
    return same;
}

/* Same scheme://authority part (what credentials are bound to). */
static bool same_origin(const char *a, const char *b)
{
    const char *sa = strstr(a, "://"), *sb = strstr(b, "://");
    if (!sa || !sb)
        return false;
    size_t na = (size_t)(sa - a) + 3 + strcspn(sa + 3, "/?#");
    size_t nb = (size_t)(sb - b) + 3 + strcspn(sb + 3, "/?#");
    return na == nb && strncasecmp(a, b, na) == 0;
}

/* The time left for this request: the nearer of its transfer deadline and
 * the run's, with which one it is. */
static int64_t time_left(const xfer *x, int64_t now, const char **limit, long *limit_ms)
{
    const cache *c = x->c;
    int64_t t = x->first_ms + c->o.transfer_timeout_ms - now;
    int64_t r = c->run_deadline_ms - now;
    *limit = r < t ? "run" : "transfer";
    *limit_ms = r < t ? c->o.run_timeout_ms : c->o.transfer_timeout_ms;
    return r < t ? r : t;
}

static const char *limit_variable(const char *limit)
{
    return strcmp(limit, "run") == 0        ? "ENVLOCK_RUN_TIMEOUT"
           : strcmp(limit, "transfer") == 0 ? "ENVLOCK_TRANSFER_TIMEOUT"
           : strcmp(limit, "speed") == 0    ? "ENVLOCK_MIN_SPEED, ENVLOCK_MIN_SPEED_TIME"
                                            : "the connect timeout";
}

/* Fails x for having used up `limit` (a time bound of limit_ms). */
static void fail_timeout(xfer *x, const char *limit, long limit_ms, const char *what)
{
    fail_extra e = { .limit = limit, .limit_seconds = (limit_ms + 999) / 1000 };
    fail_x(x, "timeout", 0, true, &e, "cannot fetch %s after %u attempt%s: %s (%s %ld s; %s)",
           x->shown, x->attempts, x->attempts == 1 ? "" : "s", what,
           strcmp(limit, "run") == 0 ? "the run's time limit is" : "the time limit is",
           e.limit_seconds, limit_variable(limit));
}

static void launch(xfer *x);

/* Fails x at once for a host an earlier request gave up on (`d`): no
 * attempt is made, the reason and libcurl's words are that request's. */
static void fail_down(xfer *x, const cache_host_down *d)
{
    fail(x, d->reason, 0, d->retryable,
         "cannot fetch %s%s: %s (as an earlier request to this host, after %u attempt%s; "
         "not tried again)",
         x->shown, strcmp(d->reason, "proxy") == 0 ? " through the proxy" : "", d->text,
         d->attempts, d->attempts == 1 ? "" : "s");
}

/* Parks x until the request probing its host has an outcome (run_loop()
 * then calls start() again, which fails x if the host is down). A host x
 * itself probed (one a redirect led from) is left to the next request, so
 * no two requests can wait for each other. */
static void park(xfer *x)
{
    cache_hosts_release(x->c->hosts, x);
    x->state = X_HOSTWAIT;
    ptrvec_push(&x->c->waiting, x);
}

/* Fails x for a body whose sha256 `got` is not the expected one. The hash
 * of a file:// read is not given: the URL may come from whoever wrote an
 * index, and the hash of a local file they cannot read is theirs to test
 * guesses against. */
static void hash_mismatch(xfer *x, long status, const char *got)
{
    if (is_file_url(x->transport))
        fail(x, "hash_mismatch", status, false, "%s: the local file's sha256 is not the "
             "expected %s; not used, not cached", x->shown, x->want_sha);
    else
        fail(x, "hash_mismatch", status, false, "%s: sha256 is %s, expected %s; not used, "
             "not cached", x->shown, got, x->want_sha);
}

/* A new attempt at x, from its first URL. */
static void start(xfer *x)
{
    cache *c = x->c;
    int64_t now = cache_now_ms();
    if (!x->first_ms)
        x->first_ms = now;
    const char *limit;
    long limit_ms;
    if (time_left(x, now, &limit, &limit_ms) <= 0) {
        fail_timeout(x, limit, limit_ms, "out of time before an attempt could start");
        return;
    }
    const cache_host_down *down = NULL;
    switch (cache_hosts_state(c->hosts, x->transport, x, &down)) {
    case CACHE_HOST_DOWN:
        fail_down(x, down);
        return;
    case CACHE_HOST_PROBED:
        park(x);
        return;
    case CACHE_HOST_UNKNOWN:
        break;
    }
    if (!engine_ready(c)) {
        /* Parked until a later cache_run() (this one returns EL_INTERNAL). */
        x->state = X_DELAY;
        x->due_ms = 0;
        ptrvec_push(&c->waiting, x);
        return;
    }
    if (is_file_url(x->transport) && !file_readable(x))
        return;
    x->attempts++;
    if (x->attempts > 1)
        c->st.retries++;
    free(x->hop);
    x->hop = NULL;
    x->hops = 0;
    launch(x);
}

/* libcurl's socket opener, recording the port it is about to connect to:
 * when that is not the URL's own, the connection was to a proxy (libcurl
 * takes HTTPS_PROXY and the rest from the environment itself, and 7.88
 * has no CURLINFO_USED_PROXY to ask). */
static curl_socket_t open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *a)
{
    xfer *x = user;
    (void)purpose;
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in))
        x->socket_port = ntohs(((const struct sockaddr_in *)(const void *)&a->addr)->sin_port);
    else if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6))
        x->socket_port = ntohs(((const struct sockaddr_in6 *)(const void *)&a->addr)->sin6_port);
    return socket(a->family, a->socktype, a->protocol);
}

/* Clears what the previous attempt of x left behind. */
static void begin_attempt(xfer *x)
{
    sb_reset(&x->body);
    sink_reset(x, true);
    x->too_large = false;
    x->too_slow = false;
    x->errbuf[0] = '\0';
    x->started_ms = cache_now_ms();
    x->rate_t[0] = x->started_ms;
    x->rate_b[0] = 0;
    x->rate_head = 0;
    x->rate_n = 1;
}

/* The attempt's bounds: connect timeout, the nearest time bound, size cap. */
static void set_limits(xfer *x, CURL *e)
{
    cache *c = x->c;
    const cache_curl *cu = c->cu;
    cu->easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->o.connect_timeout_ms);
    /* The minimum speed is on_progress()'s; the time bounds are one
     * CURLOPT_TIMEOUT: the nearest of the request's, the run's and the
     * attempt's. */
    int64_t left = time_left(x, x->started_ms, &x->tlimit, &x->tlimit_ms);
    if (c->o.attempt_timeout_ms > 0 && c->o.attempt_timeout_ms < left) {
        left = c->o.attempt_timeout_ms;
        x->tlimit = "attempt";
        x->tlimit_ms = c->o.attempt_timeout_ms;
    }
    cu->easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(left > 0 ? left : 1));
    cu->easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max_bytes);
}

/* netrc, the conditional-request and Accept headers, the client
 * certificate and the caller's headers, each sent only where it belongs. */
static void set_credentials(xfer *x, CURL *e, const char *cur)
{
    cache *c = x->c;
    const cache_curl *cu = c->cu;
    /* netrc credentials for the host envlock was asked to fetch from (the
     * index, or its mirror), never for a host a redirect leads to. */
    bool first_host = !x->hop || same_host(x->hop, x->transport);
    if (first_host) {
        cu->easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
        if (c->o.netrc_file)
            cu->easy_setopt(e, CURLOPT_NETRC_FILE, c->o.netrc_file);
    }
    cu->slist_free_all(x->hdrs);
    x->hdrs = NULL;
    if (x->accept) {
        char *h = xasprintf("Accept: %s", x->accept);
        x->hdrs = cu->slist_append(x->hdrs, h);
        free(h);
    }
    if (x->have_cached && x->cached.etag) {
        char *h = xasprintf("If-None-Match: %s", x->cached.etag);
        x->hdrs = cu->slist_append(x->hdrs, h);
        free(h);
    }
    if (x->have_cached && x->cached.last_modified) {
        char *h = xasprintf("If-Modified-Since: %s", x->cached.last_modified);
        x->hdrs = cu->slist_append(x->hdrs, h);
        free(h);
    }
    bool canonical_origin = same_origin(x->url, cur);
    /* a client certificate is a credential of the canonical host, as an
     * Authorization header is */
    if (canonical_origin && x->client_cert) {
        cu->easy_setopt(e, CURLOPT_SSLCERT, x->client_cert);
        if (x->client_key)
            cu->easy_setopt(e, CURLOPT_SSLKEY, x->client_key);
    }
    for (size_t i = 0; i < x->n_headers; i++) {
        /* Credentials meant for the canonical host never go to a mirror on
         * another host, nor across a redirect; a mirror's own come from
         * netrc. */
        if (!canonical_origin && strncasecmp(x->headers[i], "authorization:", 14) == 0)
            continue;
        x->hdrs = cu->slist_append(x->hdrs, x->headers[i]);
    }
}

/* Starts the transfer of x's current URL (x->hop, else x->transport). */
static void launch(xfer *x)
{
    cache *c = x->c;
    const cache_curl *cu = c->cu;
    const char *cur = x->hop ? x->hop : x->transport;
    c->st.network++;
    begin_attempt(x);
    if (!x->easy)
        x->easy = cu->easy_init();
    else
        cu->easy_reset(x->easy);
    CURL *e = x->easy;
    char *url = NULL;
    x->file_type = NULL;
    if (!x->hop && is_file_url(x->transport) && x->transport[strlen(x->transport) - 1] == '/') {
        bool json = accepts_type(x->accept, PEP691_JSON) && file_dir_has(x->transport, "index.json");
        url = xasprintf("%s%s", x->transport, json ? "index.json" : "index.html");
        x->file_type = json ? PEP691_JSON : "text/html";
    }
    cu->easy_setopt(e, CURLOPT_URL, url ? url : cur);
    free(url); /* libcurl copies strings */
    cu->easy_setopt(e, CURLOPT_PRIVATE, x);
    cu->easy_setopt(e, CURLOPT_SHARE, c->share);
    cu->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    cu->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https,file");
    /* Redirects are followed here, one hop at a time (follow_redirect()),
     * so that each target is checked before anything is sent to it. */
    cu->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    cu->easy_setopt(e, CURLOPT_UNRESTRICTED_AUTH, 0L);
    cu->easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    /* Wait for a connection to say whether it multiplexes only over TLS,
     * where ALPN answers at the handshake; plain http is HTTP/1.1 here
     * (CURL_HTTP_VERSION_2TLS), and waiting would serialize requests behind
     * the first response. */
    if (strncmp(cur, "https://", 8) == 0)
        cu->easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    cu->easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    set_limits(x, e);
    cu->easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    cu->easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    cu->easy_setopt(e, CURLOPT_XFERINFODATA, x);
    cu->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    cu->easy_setopt(e, CURLOPT_WRITEDATA, x);
    cu->easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
    x->socket_port = 0;
    cu->easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    cu->easy_setopt(e, CURLOPT_OPENSOCKETDATA, x);
    cu->easy_setopt(e, CURLOPT_USERAGENT, "envlock/" ENVLOCK_VERSION_STR);
    if (x->ca_file || c->o.ca_bundle)
        cu->easy_setopt(e, CURLOPT_CAINFO, x->ca_file ? x->ca_file : c->o.ca_bundle);
    if (c->o.ca_dir)
        cu->easy_setopt(e, CURLOPT_CAPATH, c->o.ca_dir);
    set_credentials(x, e, cur);
    cu->easy_setopt(e, CURLOPT_HTTPHEADER, x->hdrs);
    x->state = X_ACTIVE;
    ptrvec_push(&c->active, x);
    cu->multi_add_handle(c->multi, e);
}

static bool fresh(const xfer *x, const cache_meta *m)
{
    if (m->immutable || x->policy == CACHE_IMMUTABLE)
        return true;
    /* Fetched or revalidated since this cache was opened (by this run or a
     * concurrent one): as fresh as a fetch of our own would be, and a run
     * sees one version of each page however often it asks. */
    if (m->fetched_ms >= x->c->opened_ms)
        return true;
    if (tfind(x->key, &x->c->confirmed, key_cmp))
        return true;
    return m->max_age > 0 && cache_now_ms() < m->fetched_ms + m->max_age * 1000;
}

static bool try_cache_sink(xfer *x);
static void fail_sink(xfer *x, int err);

/* Looks the entry up; serves it if usable (to the sink, for a sink
 * request). Returns true if x was delivered. */
static bool try_cache(xfer *x)
{
    cache *c = x->c;
    if (x->sink && try_cache_sink(x))
        return true;
    cache_meta m;
    unsigned char *body = NULL;
    size_t len = 0;
    const char *why = NULL;
    cache_meta_init(&m);
    cache_entry_state s = x->on_demand ? cache_store_get_meta(c->store, x->key, &m, &why)
                                       : cache_store_get(c->store, x->key, &m, &body, &len, &why);
    if (s == CACHE_ENTRY_OK && x->on_demand)
        len = (size_t)m.size;
    if (s != CACHE_ENTRY_OK) {
        if (c->o.offline) {
            fail(x, "offline_cache_miss", 0, false,
                 "offline and %s is not in the cache%s%s%s", x->redacted,
                 why ? " (a corrupt entry was removed: " : "", why ? why : "", why ? ")" : "");
            return true;
        }
        return false;
    }
    if (x->want_sha && strcmp(x->want_sha, m.sha256) != 0) {
        /* Not what the index promises: never serve it. */
        char *p = cache_entry_path(c->dir, x->key, NULL);
        unlink(p);
        free(p);
        free(body);
        cache_meta_clear(&m);
        if (c->o.offline) {
            fail(x, "offline_cache_miss", 0, false,
                 "offline and the cached %s does not have the expected sha256", x->redacted);
            return true;
        }
        return false;
    }
    if (c->o.offline || fresh(x, &m)) {
        c->st.hits++;
        cache_meta_clear(&x->cached);
        x->cached = m;
        free(x->cached_body);
        x->cached_body = body;
        x->cached_len = len;
        const char *step;
        int err = x->sink ? file_write_atomic_flags(x->sink, body, len, x->sink_flags, &step) : 0;
        if (err)
            fail_sink(x, err);
        else
            succeed(x, body, len, &x->cached, true, NULL);
        return true;
    }
    /* Stale: keep it for a conditional request. */
    cache_meta_clear(&x->cached);
    x->cached = m;
    free(x->cached_body);
    x->cached_body = body;
    x->cached_len = len;
    x->have_cached = true;
    return false;
}

/* Moves a new or lock-waiting request on. Returns true if it left the
 * waiting states (delivered or started). */
static bool advance(xfer *x)
{
    cache *c = x->c;
    if (x->state == X_NEW && try_cache(x))
        return true;
    bool busy = false;
    x->lock_fd = cache_store_lock(c->store, x->key, &busy);
    if (x->lock_fd < 0 && busy) {
        int64_t now = cache_now_ms();
        if (x->state != X_LOCKWAIT) {
            x->state = X_LOCKWAIT;
            x->lockwait_since_ms = now;
        }
        if (now - x->lockwait_since_ms < LOCK_WAIT_MS && now < c->run_deadline_ms)
            return false;
        /* The holder is taking too long: fetch anyway, unlocked. */
    }
    /* We hold the lock (or go without): someone may have just written it.
     * Re-reading is free for a miss; a stale entry we already hold is only
     * re-read after waiting (else a conditional request settles it). */
    if (x->state == X_LOCKWAIT || (x->lock_fd >= 0 && !x->have_cached)) {
        x->have_cached = false;
        if (try_cache(x))
            return true;
    }
    start(x);
    return true;
}

/* detail.reason of a failed transfer (cache.h lists them; util/reasons.def
 * says what to do about each): what failed, told apart so that a company
 * network's usual causes (DNS, a firewall, the proxy, TLS inspection) each
 * get their own advice. */
static const char *curl_reason(const xfer *x, CURLcode rc)
{
    const cache_curl *cu = x->c->cu;
    long connect_code = 0;
    cu->easy_getinfo(x->easy, CURLINFO_HTTP_CONNECTCODE, &connect_code);
    const char *cur = x->hop ? x->hop : x->transport;
    bool via_proxy = x->socket_port && x->socket_port != cache_url_port(cur);
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_PROXY:
        return "proxy";
    case CURLE_COULDNT_RESOLVE_HOST:
        return "dns";
    case CURLE_COULDNT_CONNECT:
        return via_proxy ? "proxy" : "connect";
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED:
        return "tls";
    case CURLE_PARTIAL_FILE:
        return "truncated";
    default:
        /* a CONNECT the proxy answered with an error (CURLE_RECV_ERROR in
         * 7.88, CURLE_PROXY later) */
        return connect_code >= 300 || rc == CURLE_PROXY ? "proxy" : "unreachable";
    }
}

static bool retryable_curl(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_BAD_CONTENT_ENCODING:
        return true;
    default:
        return false;
    }
}

static bool retryable_status(long s)
{
    return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* Schedules another attempt; false when the retries are used up. */
static bool schedule_retry(xfer *x, long retry_after_s)
{
    cache *c = x->c;
    if (x->attempts > (unsigned)c->o.retries)
        return false;
    long delay;
    if (retry_after_s > 0) {
        delay = retry_after_s * 1000;
    } else {
        long d = c->o.retry_base_ms;
        for (unsigned i = 1; i < x->attempts && d < c->o.retry_cap_ms; i++)
            d *= 2;
        /* Half fixed, half random: spreads out processes that failed together. */
        c->jitter ^= c->jitter << 13;
        c->jitter ^= c->jitter >> 7;
        c->jitter ^= c->jitter << 17;
        delay = d / 2 + (long)(c->jitter % (uint64_t)(d / 2 + 1));
    }
    if (delay > c->o.retry_cap_ms)
        delay = c->o.retry_cap_ms;
    /* No retry past the retry budget or the time left. */
    int64_t due = cache_now_ms() + delay;
    const char *limit;
    long limit_ms;
    if (due > x->first_ms + c->o.retry_max_ms || time_left(x, due, &limit, &limit_ms) <= 0)
        return false;
    x->state = X_DELAY;
    x->due_ms = due;
    ptrvec_push(&c->waiting, x);
    return true;
}

static char *header(const xfer *x, const char *name)
{
    CURL *e = x->easy;
    const cache_curl *cu = x->c->cu;
    struct curl_header *h = NULL;
    if (cu->easy_header(e, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK || !h || !h->value)
        return NULL;
    return xstrdup(h->value);
}

/* RFC 9110 8.8.3.2 weak comparison: the opaque tags match, W/ ignored. */
static bool etag_weak_equal(const char *a, const char *b)
{
    if (strncmp(a, "W/", 2) == 0)
        a += 2;
    if (strncmp(b, "W/", 2) == 0)
        b += 2;
    return strcmp(a, b) == 0;
}

static int64_t max_age(const xfer *x)
{
    char *cc = header(x, "Cache-Control");
    int64_t age = -1;
    if (cc) {
        if (strstr(cc, "no-cache") || strstr(cc, "no-store"))
            age = 0;
        else {
            const char *p = strstr(cc, "max-age=");
            if (p)
                age = strtoll(p + 8, NULL, 10);
        }
        free(cc);
    }
    return age;
}

/* Remembers that a 304 (or a 200 of the same body) confirmed `x`'s entry
 * in this run (fresh() then serves it again without asking), for an entry
 * not rewritten. */
static void confirm(xfer *x)
{
    char *k = xstrdup(x->key);
    char **at = tsearch(k, &x->c->confirmed, key_cmp);
    if (!at || *at != k)
        free(k);
}

static bool str_same(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* Whether a 200 brought exactly the entry held already (m: its new
 * metadata): the same body and nothing a later run reads changed, as a
 * registry that sends no validators answers every run. Then, as after a
 * plain 304, the entry is not written again (compressing a 10 MB
 * packument again was most of a warm run against such a registry). Sets
 * m's size and sha256 when it compares. */
static bool same_as_cached(xfer *x, cache_meta *m)
{
    const cache_meta *o = &x->cached;
    if (!x->have_cached || o->size != x->body.len || m->max_age > 0 || o->max_age != m->max_age ||
        o->immutable != m->immutable || o->status != m->status || !str_same(o->etag, m->etag) ||
        !str_same(o->last_modified, m->last_modified) ||
        !str_same(o->content_type, m->content_type) || !str_same(o->accept, m->accept))
        return false;
    sha256_hex(x->body.buf, x->body.len, m->sha256);
    m->size = x->body.len;
    return strcmp(m->sha256, o->sha256) == 0;
}

/* The run's background writer, started at its first lazy write. */
static cache_bg *bg_of(cache *c)
{
    if (!c->bg)
        c->bg = cache_bg_new(c->store);
    return c->bg;
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

/* Notes x's new entry (m: its metadata, hash included) for store_later(). */
static void note_later(xfer *x, const cache_meta *m)
{
    cache_meta *copy = xmalloc(sizeof *copy);
    *copy = *m;
    copy->url = dup_or_null(m->url);
    copy->accept = dup_or_null(m->accept);
    copy->etag = dup_or_null(m->etag);
    copy->last_modified = dup_or_null(m->last_modified);
    copy->content_type = dup_or_null(m->content_type);
    x->later = copy;
}

/* After the callback (deliver()): hands x's body, its new entry and x's
 * lock to the background writer. The lock is released once the entry is
 * on disk, so a request for the same key waits for it (advance()). */
static void store_later(xfer *x)
{
    size_t len = x->body.len;
    unsigned char *body = (unsigned char *)sb_detach(&x->body, NULL);
    cache_bg_put(bg_of(x->c), x->key, x->later, body, len, x->lock_fd, true);
    x->lock_fd = -1;
    free(x->later);
    x->later = NULL;
}

static void store_and_serve(xfer *x, const char *final_url)
{
    cache *c = x->c;
    CURL *e = x->easy;
    const cache_curl *cu = c->cu;
    cache_meta m;
    cache_meta_init(&m);
    m.url = xstrdup(x->redacted);
    m.accept = x->vary ? xstrdup(x->vary) : NULL;
    long status = 200;
    cu->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    m.status = is_file_url(x->transport) ? 200 : status;
    m.etag = is_file_url(x->transport) ? NULL : header(x, "ETag");
    m.last_modified = is_file_url(x->transport) ? NULL : header(x, "Last-Modified");
    if (!is_file_url(x->transport)) {
        const char *ct = NULL;
        if (cu->easy_getinfo(e, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct && *ct)
            m.content_type = xstrdup(ct);
    } else if (x->file_type) {
        m.content_type = xstrdup(x->file_type); /* a directory's page, as chosen */
    }
    m.max_age = is_file_url(x->transport) ? -1 : max_age(x);
    m.fetched_ms = cache_now_ms();
    m.immutable = x->policy == CACHE_IMMUTABLE;
    if (same_as_cached(x, &m)) {
        confirm(x);
    } else {
        /* A failed write is not a failed fetch: the body is good, serve it.
         * Without fsyncs: whatever a server sent can be fetched again, and
         * a crash leaves at worst a torn entry, which reads as corrupt and
         * is refetched (offline: a miss). Two fsyncs per entry were most of
         * a cold crawl's disk time (a cold npm resolve of 101 packuments:
         * 204 fsyncs, 0.73 s). */
        sha256_hex(x->body.buf, x->body.len, m.sha256);
        m.size = x->body.len;
        note_later(x, &m);
    }
    cache_meta_clear(&x->cached);
    x->cached = m;
    succeed(x, (const unsigned char *)x->body.buf, x->body.len, &x->cached, false, final_url);
}

static void fail_sink(xfer *x, int err)
{
    fail_extra fe = { .code = EL_IO, .err = err };
    fail_x(x, "write_failed", 0, false, &fe, "cannot write %s (fetching %s): %s", x->sink,
           x->shown, strerror(err));
}

/* Keeps the file a sink request got as the cache's entry for it: a hard
 * link, so no second copy (none when the cache is on another filesystem).
 * Only with an expected sha256, the check every later reader makes. */
static void keep_file(xfer *x)
{
    if (x->want_sha) /* not caching is no failure */
        (void)cache_store_place_file(x->c->store, x->key, x->sink);
}

/* A sink request's complete body: checked against the expected sha256,
 * renamed onto the sink, kept by the cache, served. */
static void sink_serve(xfer *x, const char *final_url)
{
    int err = 0;
    if (!x->fs && !(x->fs = file_stream_begin_flags(x->sink, x->sink_flags, &err))) { /* an empty body */
        fail_sink(x, err);
        return;
    }
    cache_meta_clear(&x->cached);
    cache_meta_init(&x->cached);
    sha256_end(x->hs, x->cached.sha256);
    x->hs = NULL;
    if (x->want_sha && strcmp(x->cached.sha256, x->want_sha) != 0) {
        hash_mismatch(x, 200, x->cached.sha256);
        return;
    }
    const char *step;
    file_stream *fs = x->fs;
    x->fs = NULL;
    if ((err = file_stream_commit(fs, &step)) != 0) {
        fail_sink(x, err);
        return;
    }
    keep_file(x);
    x->cached.status = 200;
    x->cached.size = x->got;
    succeed(x, NULL, x->got, &x->cached, false, final_url);
}

/* try_cache() for a sink request: its file entry (linked onto the sink
 * after its hash is checked), else a stored entry written out to the
 * sink. true if x was delivered. */
static bool try_cache_sink(xfer *x)
{
    cache *c = x->c;
    if (x->want_sha) {
        char *entry = cache_entry_path(c->dir, x->key, CACHE_FILE_SUFFIX);
        char sha[65];
        uint64_t size = 0;
        int err = file_sha256(entry, sha, &size);
        if (!err && strcmp(sha, x->want_sha) != 0)
            (void)unlink(entry); /* changed since it was kept: never serve it */
        const char *step;
        if (!err && strcmp(sha, x->want_sha) == 0) {
            err = file_link_atomic(entry, x->sink, true, &step);
            free(entry);
            if (err) {
                fail_sink(x, err);
                return true;
            }
            c->st.hits++;
            cache_meta_clear(&x->cached);
            cache_meta_init(&x->cached);
            memcpy(x->cached.sha256, sha, sizeof sha);
            x->cached.status = 200;
            x->cached.size = size;
            succeed(x, NULL, (size_t)size, &x->cached, true, NULL);
            return true;
        }
        free(entry);
    }
    return false;
}

/* Whether a redirect from the current hop to `loc` may be followed: only
 * to http or https, never from https to http, and only to the requested
 * host (the index, or its mirror) or one of redirect_hosts. Otherwise a
 * static string saying why not. */
static const char *redirect_refusal(const xfer *x, const char *loc)
{
    const cache *c = x->c;
    const char *from = x->hop ? x->hop : x->transport;
    bool https = strncasecmp(loc, "https://", 8) == 0;
    if (!https && strncasecmp(loc, "http://", 7) != 0)
        return "to a URL that is neither http nor https";
    if (!https && strncasecmp(from, "https://", 8) == 0)
        return "from https to plain http";
    if (same_host(loc, x->transport))
        return NULL;
    char *h = cache_url_host(loc);
    bool listed = false;
    for (size_t i = 0; h && i < c->redirect_hosts.len && !listed; i++)
        listed = strcmp(h, c->redirect_hosts.items[i]) == 0;
    free(h);
    return listed ? NULL : "to another host";
}

/* Follows a redirect of x's current hop to `loc` (absolute, as libcurl
 * resolved the Location), or fails x when the rule refuses it. */
static void follow_redirect(xfer *x, const char *loc)
{
    if (x->hops >= MAX_REDIRECTS) {
        fail(x, "too_many_redirects", 0, false, "%s: more than %d redirects", x->shown,
             MAX_REDIRECTS);
        return;
    }
    const char *why = redirect_refusal(x, loc);
    if (why) {
        char *shown = cache_url_redact(loc);
        fail_extra fe = { .code = EL_POLICY_DENIED, .location = shown };
        fail_x(x, "redirect_refused", 0, false, &fe,
               "%s: the server redirected %s, to %s; refused (allow a host with "
               "ENVLOCK_REDIRECT_HOSTS; https never falls back to http)",
               x->shown, why, shown);
        free(shown);
        return;
    }
    char *next = xstrdup(loc);
    free(x->hop);
    x->hop = next;
    x->hops++;
    launch(x);
}

/* A 304 for the entry we hold: serve it, with whatever the 304 changed in
 * its metadata. The entry is rewritten (a new file, renamed over it) only
 * when something a later run reads changed: a new validator or
 * Content-Type, or a max-age whose window now starts again. Otherwise only
 * the fetch time would change, which nothing reads but fresh() within
 * this run (confirm()); a file created and renamed per page was most of
 * the CPU of a run where every page is revalidated (ext4 inode allocation
 * and the flush a rename over a file starts). */
static void serve_not_modified(xfer *x, const char *final_url)
{
    cache *c = x->c;
    c->st.revalidated++;
    x->cached.fetched_ms = cache_now_ms();
    int64_t age = max_age(x);
    bool changed = age >= 0 && age != x->cached.max_age;
    if (age >= 0)
        x->cached.max_age = age;
    /* A 304 names the validator of the representation we hold; one that
     * differs only by weakness (W/"x" after "x", as servers that filter
     * or compress bodies answer) is the same validator, so the stored one
     * stands and what a lock records of this page does not flip. */
    char *etag = header(x, "ETag");
    if (etag && !(x->cached.etag && etag_weak_equal(etag, x->cached.etag))) {
        free(x->cached.etag);
        x->cached.etag = etag;
        changed = true;
    } else {
        free(etag);
    }
    /* A 304 may repeat the Content-Type; else the stored one stands. */
    char *ct = header(x, "Content-Type");
    if (ct && !(x->cached.content_type && strcmp(ct, x->cached.content_type) == 0)) {
        free(x->cached.content_type);
        x->cached.content_type = ct;
        changed = true;
    } else {
        free(ct);
    }
    if (changed || x->cached.max_age > 0) {
        el_ctx *ctx = el_ctx_new();
        cache_store_refresh(c->store, ctx, x->key, &x->cached, x->cached_body, x->cached_len);
        el_ctx_free(ctx);
    } else {
        confirm(x);
    }
    const char *step;
    int err = x->sink ? file_write_atomic_flags(x->sink, x->cached_body, x->cached_len,
                                               x->sink_flags, &step)
                      : 0;
    if (err)
        fail_sink(x, err);
    else
        succeed(x, x->cached_body, x->cached_len, &x->cached, true, final_url);
}

/* Takes a finished transfer out of the running set. */
static void detach(xfer *x)
{
    cache *c = x->c;
    for (size_t i = 0; i < c->active.len; i++) {
        if (c->active.items[i] == x) {
            c->active.items[i] = c->active.items[--c->active.len];
            break;
        }
    }
    c->cu->multi_remove_handle(c->multi, x->easy);
}

/* What is known of x's host before x retries it (cache_hosts.h): true
 * when x is settled here, failed at once (the host was given up) or
 * parked (another request probes it); false when x may try again. */
static bool host_gate(xfer *x)
{
    const cache_host_down *down = NULL;
    const char *cur = x->hop ? x->hop : x->transport;
    cache_host_state s = cache_hosts_state(x->c->hosts, cur, x, &down);
    if (s == CACHE_HOST_DOWN)
        fail_down(x, down);
    else if (s == CACHE_HOST_PROBED)
        park(x);
    return s != CACHE_HOST_UNKNOWN;
}

/* A transfer that curl ended with a timeout: which bound ran out, and a
 * retry when that bound leaves time for another attempt. */
static void timed_out(xfer *x, CURLcode rc)
{
    cache *c = x->c;
    const cache_curl *cu = c->cu;
    /* Which bound: the connect timeout (no connection made), else the
     * one that set CURLOPT_TIMEOUT. Only the connect and the attempt
     * timeouts leave time for another attempt. */
    curl_off_t connect_us = 0;
    cu->easy_getinfo(x->easy, CURLINFO_CONNECT_TIME_T, &connect_us);
    int64_t took = cache_now_ms() - x->started_ms;
    bool connect = connect_us == 0 && took < x->tlimit_ms;
    const char *limit = connect ? "connect" : x->tlimit;
    long limit_ms = connect ? c->o.connect_timeout_ms : x->tlimit_ms;
    bool again = connect || strcmp(limit, "attempt") == 0;
    const char *what = x->errbuf[0] ? x->errbuf : cu->easy_strerror(rc);
    if (connect) {
        /* A host that lets connections time out (a firewall dropping
         * them) is retried by one request and given up as one that
         * refuses them is. */
        const char *cur = x->hop ? x->hop : x->transport;
        if (host_gate(x))
            return;
        if (schedule_retry(x, 0)) {
            cache_hosts_probe(c->hosts, cur, x);
            return;
        }
        cache_host_down d = { "timeout", what, x->attempts, true };
        cache_hosts_give_up(c->hosts, cur, &d);
    } else if (again && schedule_retry(x, 0)) {
        return;
    }
    fail_timeout(x, limit, limit_ms, what);
}

/* Whether libcurl's rc says the host itself cannot be reached: its name
 * (or the proxy's) does not resolve, or it refuses the connection. Every
 * other request to it would fail the same way (cache_hosts.h). */
static bool host_failure(CURLcode rc)
{
    return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY ||
           rc == CURLE_COULDNT_CONNECT;
}

/* A name that does not resolve gets one retry, not el_cache_options.retries:
 * the system's resolver has already retried over its servers, and libcurl
 * reports a name that does not exist as it reports a lookup that timed out
 * (EAI_AGAIN), so one retry catches a resolver that hiccuped (a VPN coming
 * up) while an offline machine waits through one backoff, not four. */
#define DNS_RETRIES 1

static bool retry_allowed(const xfer *x, CURLcode rc)
{
    bool dns = rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY;
    return retryable_curl(rc) && (!dns || x->attempts <= DNS_RETRIES);
}

/* A transfer libcurl ended with an error: retried, or answered. A host
 * that cannot be reached is retried by one request at a time: the others
 * wait for it (park()), and once it gives up every request to the host
 * fails at once with its reason and words (fail_down()). */
static void failed_curl(xfer *x, CURLcode rc, long status)
{
    cache *c = x->c;
    const char *cur = x->hop ? x->hop : x->transport;
    const char *reason = curl_reason(x, rc);
    const char *text = x->errbuf[0] ? x->errbuf : c->cu->easy_strerror(rc);
    if (host_failure(rc)) {
        if (host_gate(x))
            return;
        if (retry_allowed(x, rc) && schedule_retry(x, 0)) {
            cache_hosts_probe(c->hosts, cur, x);
            return;
        }
        cache_host_down d = { reason, text, x->attempts, true };
        cache_hosts_give_up(c->hosts, cur, &d);
    } else if (retry_allowed(x, rc) && schedule_retry(x, 0)) {
        return;
    }
    fail(x, reason, status, retryable_curl(rc), "cannot fetch %s%s after %u attempt%s: %s",
         x->shown, strcmp(reason, "proxy") == 0 ? " through the proxy" : "", x->attempts,
         x->attempts == 1 ? "" : "s", text);
}

/* The transfer's own failures (size cap, sink, URL, speed, timeouts, curl
 * errors), answered or retried; false when the transfer came through and
 * its HTTP status is the next thing to judge. */
static bool failed_transfer(xfer *x, CURLcode rc, long status, bool file)
{
    cache *c = x->c;
    const cache_curl *cu = c->cu;
    if (x->too_large || rc == CURLE_FILESIZE_EXCEEDED) {
        fail(x, "too_large", status, false, "%s is larger than the %llu-byte cap", x->shown,
             (unsigned long long)x->max_bytes);
        return true;
    }
    if (x->werr) {
        fail_sink(x, x->werr);
        return true;
    }
    if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
        fail(x, "bad_url", 0, false, "cannot fetch %s: %s", x->shown,
             x->errbuf[0] ? x->errbuf : cu->easy_strerror(rc));
        return true;
    }
    if (file && rc == CURLE_FILE_COULDNT_READ_FILE) {
        fail(x, "not_found", 404, false, "%s does not exist", x->shown);
        return true;
    }
    if (x->too_slow) {
        if (schedule_retry(x, 0))
            return true;
        fail_extra fe = { .limit = "speed", .limit_seconds = c->o.stall_seconds };
        fail_x(x, "too_slow", status, true, &fe,
               "cannot fetch %s after %u attempt%s: under %ld bytes/s for %ld s (%s)",
               x->shown, x->attempts, x->attempts == 1 ? "" : "s", c->o.stall_bytes_per_s,
               c->o.stall_seconds, limit_variable("speed"));
        return true;
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        timed_out(x, rc);
        return true;
    }
    if (rc != CURLE_OK) {
        failed_curl(x, rc, status);
        return true;
    }
    return false;
}

/* The URL a page was served from when a redirect moved it, as the caller
 * should record it; NULL when it is the URL requested. */
static char *redirected_url(xfer *x, bool file)
{
    cache *c = x->c;
    char *eff = NULL;
    char *final_url = NULL;
    c->cu->easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
    if (eff && strcmp(eff, x->transport) != 0 && !file) {
        /* A redirect on the requested host: the page's own URL (links on it
         * resolve against it), mapped back under the mirror. One that ends
         * on another host (allowed by redirect_hosts) is reported as the
         * URL requested: nothing recorded names where it was served from. */
        char *canon = cache_mirrors_unrewrite(c->mirrors, eff);
        if (same_host(canon, x->url))
            final_url = cache_url_redact(canon);
        free(canon);
    }
    return final_url;
}

/* A status outside 2xx: retried when the server says it may pass (within
 * the retry budget, as long as Retry-After asks), else answered. */
static void failed_status(xfer *x, long status)
{
    cache *c = x->c;
    if (retryable_status(status)) {
        curl_off_t ra = 0;
        c->cu->easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &ra);
        const char *limit;
        long limit_ms;
        int64_t until = cache_now_ms() + (int64_t)ra * 1000;
        if (ra > 0 && (until > x->first_ms + c->o.retry_max_ms ||
                       time_left(x, until, &limit, &limit_ms) <= 0)) {
            /* Waiting as asked would pass the retry budget: say so now,
             * with the time the server asked for. */
            fail_extra fe = { .retry_after_s = (long)ra };
            fail_x(x, "http_status", status, true, &fe,
                   "%s: HTTP %ld, Retry-After %ld s, past the %ld s retry budget "
                   "(ENVLOCK_RETRY_MAX_TIME); try again later",
                   x->shown, status, (long)ra, c->o.retry_max_ms / 1000);
            return;
        }
        if (schedule_retry(x, (long)ra))
            return;
    }
    if (status == 404 || status == 410)
        fail(x, "not_found", status, false, "%s: HTTP %ld (not found)", x->shown, status);
    else if (status == 401 || status == 403 || status == 407)
        fail(x, status == 407 ? "proxy" : "auth", status, false, "%s: HTTP %ld (%s)",
             x->shown, status,
             status == 401 ? "authentication required or refused"
             : status == 403 ? "forbidden" : "proxy authentication required");
    else
        fail(x, "http_status", status, retryable_status(status) || status >= 500,
             "%s: HTTP %ld after %u attempt%s", x->shown, status, x->attempts,
             x->attempts == 1 ? "" : "s");
}

static void finish(xfer *x, CURLcode rc)
{
    cache *c = x->c;
    CURL *e = x->easy;
    const cache_curl *cu = c->cu;
    detach(x);
    long status = 0;
    cu->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    c->st.bytes += x->sink ? x->got : x->body.len;
    bool file = is_file_url(x->transport);
    if (!host_failure(rc) && rc != CURLE_OPERATION_TIMEDOUT)
        cache_hosts_reached(c->hosts, x->hop ? x->hop : x->transport);
    if (failed_transfer(x, rc, status, file))
        return;
    if (file)
        status = 200;
    if (!file && (status == 301 || status == 302 || status == 303 || status == 307 ||
                  status == 308)) {
        char *loc = NULL;
        cu->easy_getinfo(e, CURLINFO_REDIRECT_URL, &loc);
        if (loc) {
            follow_redirect(x, loc);
            return;
        }
    }
    char *final_url = redirected_url(x, file);
    if (status == 304 && x->have_cached) {
        serve_not_modified(x, final_url);
        free(final_url);
        return;
    }
    if (status < 200 || status > 299) {
        free(final_url);
        failed_status(x, status);
        return;
    }
    if (x->sink) {
        sink_serve(x, final_url);
        free(final_url);
        return;
    }
    if (x->want_sha) {
        char sha[65];
        sha256_hex(x->body.buf, x->body.len, sha);
        if (strcmp(sha, x->want_sha) != 0) {
            free(final_url);
            hash_mismatch(x, status, sha);
            return;
        }
    }
    store_and_serve(x, final_url);
    free(final_url);
}

/* ---- the loop ---- */

/* Waiting requests whose time has come (retry delays, lock polls, host
 * waits), while there is room. */
static void wake_waiting(cache *c)
{
    int64_t now = cache_now_ms();
    ptrvec w = c->waiting;
    c->waiting = (ptrvec)PTRVEC_INIT;
    for (size_t i = 0; i < w.len; i++) {
        xfer *x = w.items[i];
        bool ready = x->state == X_LOCKWAIT || x->state == X_HOSTWAIT || now >= x->due_ms;
        if (!ready || c->active.len >= c->o.max_parallel)
            ptrvec_push(&c->waiting, x);
        else if (x->state != X_LOCKWAIT)
            start(x);
        else if (!advance(x))
            ptrvec_push(&c->waiting, x);
    }
    ptrvec_release(&w);
}

/* New requests, FIFO, while there is room (cache hits need none). */
static void take_new(cache *c)
{
    while (c->qhead < c->queue.len && c->active.len < c->o.max_parallel) {
        xfer *x = c->queue.items[c->qhead++];
        if (!advance(x))
            ptrvec_push(&c->waiting, x);
    }
    if (c->qhead == c->queue.len) {
        c->queue.len = 0;
        c->qhead = 0;
    }
}

/* Whether the run has nothing left: no request queued, waiting or in
 * flight, and no deferred task whose done has not run. */
static bool run_done(const cache *c)
{
    return !c->active.len && !c->waiting.len && c->qhead == c->queue.len &&
           !cache_tasks_pending(c->tasks);
}

/* Nothing transferred yet (libcurl not loaded): only lock waits or tasks
 * are pending; waits a lock poll's time for them. */
static void wait_unloaded(cache *c)
{
    if (cache_tasks_pending(c->tasks)) {
        cache_tasks_wait(c->tasks, LOCK_POLL_MS);
        cache_tasks_collect(c->tasks, c);
    } else {
        usleep(LOCK_POLL_MS * 1000);
    }
}

/* Drives the transfers in flight and finishes those done; false when
 * libcurl's multi interface failed. */
static bool drive(cache *c)
{
    const cache_curl *cu = c->cu;
    int running = 0;
    if (cu->multi_perform(c->multi, &running) != CURLM_OK)
        return false;
    CURLMsg *msg;
    int left;
    while ((msg = cu->multi_info_read(c->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        xfer *x = NULL;
        cu->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        finish(x, msg->data.result);
    }
    return true;
}

/* Milliseconds until a waiting request is due, at most 200 (a request
 * waiting for another's host is woken by that one, not by time). */
static long next_due(const cache *c)
{
    long wait = 200;
    int64_t now = cache_now_ms();
    for (size_t i = 0; i < c->waiting.len; i++) {
        const xfer *x = c->waiting.items[i];
        if (x->state == X_HOSTWAIT)
            continue;
        long d = x->state == X_LOCKWAIT ? LOCK_POLL_MS : (long)(x->due_ms - now);
        if (d < wait)
            wait = d < 0 ? 0 : d;
    }
    return wait;
}

/* Sleeps until a transfer, a finished task (its pipe wakes the poll) or
 * a waiting request needs the loop. */
static void wait_for_work(cache *c)
{
    long wait = next_due(c);
    struct curl_waitfd wfd = { cache_tasks_fd(c->tasks), CURL_WAIT_POLLIN, 0 };
    unsigned n_wfd = wfd.fd >= 0 && cache_tasks_pending(c->tasks) ? 1 : 0;
    if (c->active.len)
        c->cu->multi_poll(c->multi, n_wfd ? &wfd : NULL, n_wfd, (int)wait, NULL);
    else if (n_wfd)
        cache_tasks_wait(c->tasks, (int)wait);
    else if (c->waiting.len && wait > 0)
        usleep((useconds_t)wait * 1000);
}

/* The end of run_loop(), whatever it returns: the last progress report. */
static el_code end_run(cache *c, el_code rc)
{
    progress(c, true);
    c->run_ctx = NULL;
    return rc;
}

/* Moves every request on until none is left: waiting ones whose time has
 * come, new ones while there is room, the transfers, the deferred tasks'
 * dones; then sleeps until something needs it. */
static el_code run_loop(cache *c, el_ctx *ctx)
{
    c->run_ctx = ctx;
    c->load_failed = false;
    for (;;) {
        wake_waiting(c);
        take_new(c);
        if (c->load_failed) /* a transfer was due and libcurl could not be loaded (recorded) */
            return end_run(c, EL_INTERNAL);
        if (run_done(c))
            return end_run(c, EL_OK);
        if (!c->cu) {
            wait_unloaded(c);
            continue;
        }
        if (!drive(c))
            return end_run(c, el_fail(ctx, EL_INTERNAL, "libcurl's multi interface failed"));
        cache_tasks_collect(c->tasks, c);
        progress(c, false);
        if (c->qhead < c->queue.len && c->active.len < c->o.max_parallel)
            continue; /* callbacks queued more */
        wait_for_work(c);
    }
}

/* Every entry the run stored lazily is on disk (and its lock released)
 * when it returns: the writer's thread lives for one run. */
el_code cache_run(cache *c, el_ctx *ctx)
{
    el_code rc = run_loop(c, ctx);
    /* a failed run still runs every deferred task's done (run_ctx kept for
     * the requests they may submit, which then wait for the next run) */
    c->run_ctx = ctx;
    cache_tasks_free(c->tasks, c);
    c->tasks = NULL;
    c->run_ctx = NULL;
    cache_bg_free(c->bg);
    c->bg = NULL;
    return rc;
}

void cache_defer(cache *c, cache_work_fn work, cache_done_task_fn done, void *user)
{
    if (c->run_ctx) {
        if (!c->tasks)
            c->tasks = cache_tasks_new();
        if (cache_tasks_add(c->tasks, work, done, user))
            return;
    }
    work(user);
    done(c, user);
}

typedef struct fetch_result {
    el_ctx *ctx;
    el_code code;
    unsigned char *body;
    size_t len;
} fetch_result;

static void fetch_done(cache *c, cache_response *r, void *user)
{
    fetch_result *fr = user;
    fr->code = r->code;
    if (r->code != EL_OK)
        cache_response_fail(fr->ctx, r);
    else
        fr->body = cache_response_take_body(r, &fr->len);
}

el_code cache_fetch(cache *c, el_ctx *ctx, const cache_request *rq, unsigned char **body,
                    size_t *len)
{
    fetch_result fr = { ctx, EL_INTERNAL, NULL, 0 };
    cache_request q = *rq;
    q.done = fetch_done;
    q.user = &fr;
    cache_submit(c, &q);
    el_code rc = cache_run(c, ctx);
    if (rc != EL_OK) {
        free(fr.body);
        return rc;
    }
    if (fr.code == EL_OK) {
        *body = fr.body;
        *len = fr.len;
    }
    return fr.code;
}

void cache_forget(cache *c, const char *url, const char *accept)
{
    char *redacted = cache_url_redact(url);
    char key[65];
    cache_key(redacted, accept, key);
    free(redacted);
    char *path = cache_entry_path(cache_store_dir(c->store), key, NULL);
    (void)unlink(path); /* a missing entry is what was wanted */
    free(path);
}

/* ---- blobs ---- */

bool cache_blob_get(cache *c, const char *name, unsigned char **data, size_t *len)
{
    char *url = xasprintf("blob:%s", name);
    char key[65];
    cache_key(url, NULL, key);
    free(url);
    cache_meta m;
    cache_meta_init(&m);
    bool ok = cache_store_get(c->store, key, &m, data, len, NULL) == CACHE_ENTRY_OK;
    cache_meta_clear(&m);
    return ok;
}

FILE *cache_blob_open(cache *c, const char *name, size_t *len)
{
    char *url = xasprintf("blob:%s", name);
    char key[65];
    cache_key(url, NULL, key);
    free(url);
    cache_entry_state st;
    return cache_store_open_raw(c->store, key, len, &st, NULL);
}

bool cache_blob_map(cache *c, const char *name, const unsigned char **data, size_t *len,
                    void **map, size_t *map_len)
{
    FILE *f = cache_blob_open(c, name, len);
    if (!f)
        return false;
    long at = ftell(f);
    *map_len = at >= 0 ? (size_t)at + *len : 0;
    *map = *map_len ? mmap(NULL, *map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(f), 0)
                    : MAP_FAILED;
    fclose(f);
    if (*map == MAP_FAILED)
        return false;
    *data = (const unsigned char *)*map + at;
    return true;
}

/* Blobs are stored raw (uncompressed, with a CRC-32) so that
 * cache_blob_open() can hand out the entry file itself: a warm load of a
 * big index is then one read by its consumer, not decompress + copy. */
static bool blob_put(cache *c, const char *name, const void *data, size_t len, bool lazy)
{
    cache_meta m;
    cache_meta_init(&m);
    m.url = xasprintf("blob:%s", name);
    m.raw = true;
    m.immutable = true;
    m.fetched_ms = cache_now_ms();
    char key[65];
    cache_key(m.url, NULL, key);
    el_ctx *ctx = el_ctx_new();
    bool ok;
    if (lazy && c->run_ctx) {
        /* Written beside the run's transfers (cache_bg.c), done by its end. */
        unsigned char *copy = xmalloc(len ? len : 1);
        memcpy(copy, data, len);
        cache_bg_put(bg_of(c), key, &m, copy, len, -1, false);
        ok = true;
    } else {
        ok = (lazy ? cache_store_put_lazy : cache_store_put)(c->store, ctx, key, &m, data, len) ==
             EL_OK;
    }
    el_ctx_free(ctx);
    cache_meta_clear(&m);
    return ok;
}

bool cache_blob_put(cache *c, const char *name, const void *data, size_t len)
{
    return blob_put(c, name, data, len, false);
}

bool cache_blob_put_lazy(cache *c, const char *name, const void *data, size_t len)
{
    return blob_put(c, name, data, len, true);
}

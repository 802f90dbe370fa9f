/* cache_fetch.c — test driver for cache/: fetches the URLs on its command
 * line through one cache object and prints one JSON line per response plus a
 * final {"stats":...} line, so the Python fault tests can check codes,
 * reasons, timings and request counts. Also the "killed writer" helper:
 * --hang-writing URL starts an entry write, prints "writing" and sleeps until
 * killed. --on-demand asks for bodies on demand (cache_response_body()
 * reads a deferred one unless --no-read). Exit 0 if every fetch succeeded, 1 otherwise, 2 on usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cache.h"
#include "cli_env.h"

static int failures;
static cache_request chain_rq; /* --chain: follow "next=URL" bodies */
static bool chain;
static bool no_read; /* --on-demand --no-read: leave a deferred body unread */

static void done(cache *c, cache_response *r, void *user)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "url", json_object_new_string(r->url));
    json_object_object_add(o, "final_url", json_object_new_string(r->final_url ? r->final_url : ""));
    json_object_object_add(o, "status", json_object_new_int64(r->status));
    json_object_object_add(o, "code", json_object_new_string(el_code_name(r->code)));
    if (r->reason)
        json_object_object_add(o, "reason", json_object_new_string(r->reason));
    if (r->message)
        json_object_object_add(o, "message", json_object_new_string(r->message));
    json_object_object_add(o, "retryable", json_object_new_boolean(r->retryable));
    json_object_object_add(o, "from_cache", json_object_new_boolean(r->from_cache));
    json_object_object_add(o, "attempts", json_object_new_int64(r->attempts));
    json_object_object_add(o, "len", json_object_new_int64((int64_t)r->len));
    if (r->body_deferred) {
        json_object_object_add(o, "deferred", json_object_new_boolean(true));
        if (!no_read && !cache_response_body(c, r))
            json_object_object_add(o, "body_error", json_object_new_boolean(true));
    }
    if (r->sha256)
        json_object_object_add(o, "sha256", json_object_new_string(r->sha256));
    if (r->content_type)
        json_object_object_add(o, "content_type", json_object_new_string(r->content_type));
    if (r->etag)
        json_object_object_add(o, "etag", json_object_new_string(r->etag));
    if (r->code == EL_OK && r->body && r->len < 256 && utf8_valid((const char *)r->body, r->len))
        json_object_object_add(o, "body", json_object_new_string_len((const char *)r->body, (int)r->len));
    if (r->code != EL_OK) {
        /* What the index readers will record: exercise cache_response_fail. */
        el_ctx *ctx = el_ctx_new();
        cache_response_fail(ctx, r);
        char *body = el_ctx_error_json(ctx, false);
        json_object_object_add(o, "error", json_tokener_parse(body));
        free(body);
        el_ctx_free(ctx);
        failures++;
    }
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    fflush(stdout);
    json_object_put(o);
    /* Submitting from a callback: the crawl pattern the index readers use. */
    if (chain && r->code == EL_OK && r->len > 5 && memcmp(r->body, "next=", 5) == 0) {
        char *next = xstrndup((const char *)r->body + 5, r->len - 5);
        next[strcspn(next, "\n")] = '\0';
        cache_request q = chain_rq;
        q.url = next;
        cache_submit(c, &q);
        free(next);
    }
}

int main(int argc, char **argv)
{
    el_cache_options o = { 0 };
    o.no_mirror_config = true;
    o.quiet = true;
    const char *mirrors[16];
    const char *headers[16];
    const char *redirect_hosts[16];
    size_t nh = 0;
    cache_request rq = { 0 };
    rq.policy = CACHE_REVALIDATE;
    const char *hang = NULL;
    bool mirror_config = false;
    int i;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (strcmp(a, name) == 0 && v && ++i)
        if (ARG("--dir")) o.dir = v;
        else if (strcmp(a, "--offline") == 0) o.offline = true;
        else if (strcmp(a, "--chain") == 0) chain = true;
        else if (strcmp(a, "--on-demand") == 0) rq.body_on_demand = true;
        else if (strcmp(a, "--no-read") == 0) no_read = true;
        else if (strcmp(a, "--mirror-config") == 0) mirror_config = true;
        else if (ARG("--mirror")) { if (o.n_mirrors < 16) mirrors[o.n_mirrors++] = v; }
        else if (ARG("--stall")) o.stall_seconds = atol(v);
        else if (ARG("--min-speed")) o.stall_bytes_per_s = atol(v);
        else if (ARG("--transfer-timeout-ms")) o.transfer_timeout_ms = atol(v);
        else if (ARG("--retry-max-ms")) o.retry_max_ms = atol(v);
        else if (ARG("--run-timeout-ms")) o.run_timeout_ms = atol(v);
        else if (ARG("--attempt-timeout-ms")) o.attempt_timeout_ms = atol(v);
        else if (ARG("--redirect-host")) { if (o.n_redirect_hosts < 15) redirect_hosts[o.n_redirect_hosts++] = v; }
        else if (ARG("--connect-timeout-ms")) o.connect_timeout_ms = atol(v);
        else if (ARG("--retries")) o.retries = atoi(v);
        else if (ARG("--retry-base")) o.retry_base_ms = atol(v);
        else if (ARG("--retry-cap")) o.retry_cap_ms = atol(v);
        else if (ARG("--ca-bundle")) o.ca_bundle = v;
        else if (ARG("--netrc-file")) o.netrc_file = v;
        else if (ARG("--parallel")) o.max_parallel = (unsigned)atoi(v);
        else if (ARG("--max-bytes")) rq.max_bytes = strtoull(v, NULL, 10);
        else if (ARG("--sha256")) rq.sha256 = v;
        else if (ARG("--accept")) rq.accept = v;
        else if (ARG("--header")) { if (nh < 16) headers[nh++] = v; }
        else if (ARG("--policy")) rq.policy = strcmp(v, "immutable") == 0 ? CACHE_IMMUTABLE : CACHE_REVALIDATE;
        else if (ARG("--hang-writing")) hang = v;
        else {
            fprintf(stderr, "cache_fetch: bad option %s\n", a);
            return 2;
        }
#undef ARG
    }
    o.mirrors = mirrors;
    o.redirect_hosts = redirect_hosts;
    o.no_mirror_config = !mirror_config;
    rq.headers = headers;
    rq.n_headers = nh;
    rq.done = done;
    chain_rq = rq;
    el_ctx *ctx = el_ctx_new();
    if (hang) {
        cache_store *s = cache_store_open(ctx, o.dir);
        if (!s)
            return 2;
        char key[65];
        cache_key(hang, rq.accept, key);
        cache_meta m;
        cache_meta_init(&m);
        m.url = xstrdup(hang);
        m.immutable = true;
        strbuf sb = STRBUF_INIT;
        static const char body[] = "this body is never committed";
        cache_entry_encode(&m, body, sizeof body - 1, &sb);
        cache_writer *w = cache_writer_begin(s, ctx, key);
        if (!w || !cache_writer_write(w, sb.buf, sb.len / 2))
            return 2;
        printf("writing\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    /* the ENVLOCK_* variables, as the envlock CLI reads them (cli/env.c) */
    cache *c = NULL;
    if (cli_env_cache_options(ctx, &o, &redirect_hosts[o.n_redirect_hosts]) == EL_OK)
        c = cache_open(ctx, &o);
    if (!c) {
        char *body = el_ctx_error_json(ctx, false);
        printf("%s\n", body);
        free(body);
        el_ctx_free(ctx);
        return 2;
    }
    for (; i < argc; i++) {
        rq.url = argv[i];
        cache_submit(c, &rq);
    }
    el_code rc = cache_run(c, ctx);
    cache_run_stats st;
    cache_get_stats(c, &st);
    printf("{\"stats\":{\"requests\":%llu,\"network\":%llu,\"hits\":%llu,\"revalidated\":%llu,"
           "\"retries\":%llu,\"bytes\":%llu,\"failures\":%llu}}\n",
           (unsigned long long)st.requests, (unsigned long long)st.network,
           (unsigned long long)st.hits, (unsigned long long)st.revalidated,
           (unsigned long long)st.retries, (unsigned long long)st.bytes,
           (unsigned long long)st.failures);
    cache_close(c);
    el_ctx_free(ctx);
    return rc != EL_OK ? 2 : failures ? 1 : 0;
}

/* npm_index_driver.c — a command-line harness over the npm reader for the
 * integration tests (npm_index_integ.py):
 *
 *   npm_index_driver [options] show NAME        npm_index_show() text
 *   npm_index_driver [options] show-json NAME   npm_index_show() JSON
 *   npm_index_driver [options] load NAME...     the loader, one run; one JSON
 *                                               line per name, then the stats
 *   npm_index_driver [options] follow NAME...   load, and from the loader's
 *                                               callback also every dependency
 *                                               of each `latest` (one run)
 * options: --cache DIR, --offline, --mirror CANONICAL=URL (repeatable),
 *   --registry URL, --cutoff TIME, --arch aarch64, --max-bytes N, --retries N,
 *   --no-auth (load only)
 *
 * A failure prints the error body (el_ctx_error_json) on stdout and exits
 * with the CLI's status for its code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "npm_index.h"

/* The `loaded` callback of `follow`: submits the prod and optional
 * dependencies of the version the latest tag names (registry specs only). */
static void follow(npm_loader *l, const npm_packument *p, void *user)
{
    (void)user;
    const char *latest = p->code == EL_OK ? npm_packument_find_tag(p, "latest") : NULL;
    const npm_version *v = latest ? npm_packument_find(p, latest) : NULL;
    for (size_t i = 0; v && i < v->ndeps; i++)
        if (v->deps[i].kind <= NPM_DEP_OPTIONAL && v->deps[i].spec_kind != NPM_SPEC_IS_OTHER)
            npm_loader_submit(l, v->deps[i].alias_name ? v->deps[i].alias_name : v->deps[i].name);
}

static int failure(el_ctx *ctx)
{
    char *j = el_ctx_error_json(ctx, false);
    printf("%s\n", j);
    el_free(j);
    return el_code_exit_status(el_ctx_code(ctx));
}

int main(int argc, char **argv)
{
    el_cache_options co = { 0 };
    const char *mirrors[16];
    size_t nm = 0;
    el_index_query q = { 0 };
    const char *cutoff = NULL;
    uint64_t max_bytes = 0;
    bool no_auth = false;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--offline") == 0)
            co.offline = true;
        else if (strcmp(a, "--no-auth") == 0)
            no_auth = true;
        else if (i + 1 >= argc)
            break;
        else if (strcmp(a, "--cache") == 0)
            co.dir = argv[++i];
        else if (strcmp(a, "--mirror") == 0 && nm < 16)
            mirrors[nm++] = argv[++i];
        else if (strcmp(a, "--registry") == 0)
            q.npm_registry = argv[++i];
        else if (strcmp(a, "--cutoff") == 0)
            cutoff = argv[++i];
        else if (strcmp(a, "--arch") == 0)
            q.platform = strcmp(argv[++i], "aarch64") == 0 ? "manylinux_2_36_aarch64" : NULL;
        else if (strcmp(a, "--max-bytes") == 0)
            max_bytes = strtoull(argv[++i], NULL, 10);
        else if (strcmp(a, "--retries") == 0)
            co.retries = atoi(argv[++i]);
        else if (strcmp(a, "--npm-token") == 0)
            co.npm_token = argv[++i]; /* the CLI's ENVLOCK_NPM_TOKEN */
        else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "usage: npm_index_driver [options] show|show-json|load NAME...\n");
        return 2;
    }
    co.mirrors = mirrors;
    co.n_mirrors = nm;
    co.quiet = true;
    co.no_mirror_config = true;
    co.retry_base_ms = 50;
    q.exclude_newer = cutoff;
    const char *cmd = argv[i++];
    el_ctx *ctx = el_ctx_new();
    cache *c = cache_open(ctx, &co);
    if (!c) {
        int st = failure(ctx);
        el_ctx_free(ctx);
        return st;
    }
    int status = 0;
    if (strcmp(cmd, "show") == 0 || strcmp(cmd, "show-json") == 0) {
        char *pkg = xasprintf("npm:%s", argv[i]);
        q.package = pkg;
        strbuf out = STRBUF_INIT;
        if (npm_index_show(ctx, c, &q, strcmp(cmd, "show-json") == 0, &out) == EL_OK)
            printf("%s%s", out.buf, out.len && out.buf[out.len - 1] == '\n' ? "" : "\n");
        else
            status = failure(ctx);
        sb_release(&out);
        free(pkg);
    } else if (strcmp(cmd, "load") == 0 || strcmp(cmd, "follow") == 0) {
        npm_target t;
        q.package = "npm:x";
        npm_target_from_query(&q, &t);
        npm_loader_options lo = { .registry = q.npm_registry, .target = &t, .no_auth = no_auth,
                                  .max_bytes = max_bytes,
                                  .loaded = strcmp(cmd, "follow") == 0 ? follow : NULL };
        npm_loader *l = npm_loader_new(c, &lo);
        for (; i < argc; i++)
            npm_loader_submit(l, argv[i]);
        if (npm_loader_run(l, ctx) != EL_OK)
            status = failure(ctx);
        for (size_t k = 0; k < npm_loader_count(l); k++) {
            const npm_packument *p = npm_loader_at(l, k);
            json_object *o = json_object_new_object();
            json_object_object_add(o, "name", json_object_new_string(p->name));
            json_object_object_add(o, "code", json_object_new_string(el_code_name(p->code)));
            if (p->code != EL_OK) {
                json_object_object_add(o, "reason", json_object_new_string(p->reason));
                json_object_object_add(o, "message", json_object_new_string(p->message));
                status = 1;
            } else {
                json_object_object_add(o, "versions", json_object_new_int64((int64_t)p->nversions));
                json_object_object_add(o, "candidates", json_object_new_int64((int64_t)p->ncandidates));
                json_object_object_add(o, "full", json_object_new_boolean(p->full));
                json_object_object_add(o, "from_cache", json_object_new_boolean(p->from_cache));
                if (p->etag)
                    json_object_object_add(o, "etag", json_object_new_string(p->etag));
                const char *latest = npm_packument_find_tag(p, "latest");
                if (latest)
                    json_object_object_add(o, "latest", json_object_new_string(latest));
            }
            printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                 JSON_C_TO_STRING_NOSLASHESCAPE));
            json_object_put(o);
        }
        npm_loader_free(l);
    } else {
        fprintf(stderr, "unknown command %s\n", cmd);
        status = 2;
    }
    cache_run_stats st;
    cache_get_stats(c, &st);
    fprintf(stderr, "stats requests=%llu network=%llu hits=%llu revalidated=%llu bytes=%llu retries=%llu\n",
            (unsigned long long)st.requests, (unsigned long long)st.network,
            (unsigned long long)st.hits, (unsigned long long)st.revalidated,
            (unsigned long long)st.bytes, (unsigned long long)st.retries);
    cache_close(c);
    el_ctx_free(ctx);
    return status;
}

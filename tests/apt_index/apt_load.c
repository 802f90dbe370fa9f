/* apt_load.c — test and bench driver for the apt reader: loads the sources
 * on its command line through one cache (as the resolver will) and prints one
 * JSON object: {"repos":[...], "refused":[...], "stats":{...}, "timing":{...}} on success, or
 * {"error":{...}} on failure; with --show NAME, what apt_index_show prints
 * instead. Exit 0 on success, 1 on failure, 2 on usage.
 *
 *   apt_load [--cache-dir D] [--offline] [--mirror C=U]... [--keyring K]
 *            [--arch A] [--ignore-valid-until] [--now EPOCH] [--status FILE]
 *            [--show NAME [--json]] [--candidates NAME] [--put-blob SHA256]
 *            [--write-solv DIR]
 *            SOURCE-LINE...
 * --write-solv DIR writes each loaded repo with repo_write (bench).
 * --put-blob stores bytes libsolv refuses as the .solv blob of that Packages
 * sha256 (the corrupt-blob tests), then loads the sources if any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repo_write.h>

#include "apt_index.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int usage(void)
{
    fprintf(stderr, "usage: apt_load [options] SOURCE-LINE...\n");
    return 2;
}

static int print_error(el_ctx *ctx)
{
    char *e = el_ctx_error_json(ctx, false);
    printf("{\"error\":%s}\n", e);
    el_free(e);
    return 1;
}

int main(int argc, char **argv)
{
    el_cache_options co = { 0 };
    apt_load_options o = { 0 };
    const char *mirrors[16];
    const char *sources[64];
    const char *show = NULL, *cands = NULL;
    const char *put_blob = NULL; /* store a blob libsolv refuses under this sha's name */
    const char *write_solv = NULL; /* write each loaded repo to DIR/N.solv (bench) */
    bool json = false;
    co.quiet = true;
    co.no_mirror_config = true;
    o.arch = "amd64"; /* the tests' unless --arch says otherwise: no library default */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--cache-dir") && i + 1 < argc)
            co.dir = argv[++i];
        else if (!strcmp(a, "--offline"))
            co.offline = true;
        else if (!strcmp(a, "--mirror") && i + 1 < argc && co.n_mirrors < 16)
            mirrors[co.n_mirrors++] = argv[++i];
        else if (!strcmp(a, "--keyring") && i + 1 < argc)
            o.keyring = argv[++i];
        else if (!strcmp(a, "--arch") && i + 1 < argc)
            o.arch = argv[++i];
        else if (!strcmp(a, "--ignore-valid-until"))
            o.ignore_valid_until = true;
        else if (!strcmp(a, "--now") && i + 1 < argc)
            o.now = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(a, "--status") && i + 1 < argc)
            o.status_file = argv[++i];
        else if (!strcmp(a, "--show") && i + 1 < argc)
            show = argv[++i];
        else if (!strcmp(a, "--candidates") && i + 1 < argc)
            cands = argv[++i];
        else if (!strcmp(a, "--put-blob") && i + 1 < argc)
            put_blob = argv[++i];
        else if (!strcmp(a, "--write-solv") && i + 1 < argc)
            write_solv = argv[++i];
        else if (!strcmp(a, "--json"))
            json = true;
        else if (a[0] == '-' && a[1] == '-')
            return usage();
        else if (o.n_sources < 64)
            sources[o.n_sources++] = a;
    }
    co.mirrors = mirrors;
    o.sources = sources;
    el_ctx *ctx = el_ctx_new();
    cache *c = cache_open(ctx, &co);
    if (!c) {
        int rc = print_error(ctx);
        el_ctx_free(ctx);
        return rc;
    }
    if (put_blob) {
        char *bn = apt_solv_blob_name(put_blob);
        static const char junk[] = "this is not a solv file\n";
        bool ok = cache_blob_put(c, bn, junk, sizeof junk - 1);
        free(bn);
        if (o.n_sources == 0) {
            printf("{\"put\":%s}\n", ok ? "true" : "false");
            cache_close(c);
            el_ctx_free(ctx);
            return ok ? 0 : 1;
        }
    }
    if (show) {
        el_index_query q = { 0 };
        char *pkg = xasprintf("deb:%s", show);
        q.package = pkg;
        q.apt_sources = sources;
        q.n_apt_sources = o.n_sources;
        q.apt_keyring = o.keyring;
        q.apt_arch = o.arch;
        q.ignore_valid_until = o.ignore_valid_until;
        strbuf out = STRBUF_INIT;
        el_code rc = apt_index_show(ctx, c, &q, json, &out);
        if (rc == EL_OK)
            printf("%s\n", out.buf);
        sb_release(&out);
        free(pkg);
        int ret = rc == EL_OK ? 0 : print_error(ctx);
        cache_close(c);
        el_ctx_free(ctx);
        return ret;
    }
    double t0 = now_ms();
    apt_loader *l = apt_loader_new(ctx, c, &o);
    int ret = 0;
    if (!l) {
        ret = print_error(ctx);
        cache_close(c);
        el_ctx_free(ctx);
        return ret;
    }
    apt_loader_submit(l);
    el_code rc = cache_run(c, ctx);
    double t1 = now_ms();
    Pool *pool = pool_create();
    pool_setdisttype(pool, DISTTYPE_DEB);
    pool_setarch(pool, o.arch ? o.arch : "amd64");
    if (rc == EL_OK)
        rc = apt_loader_load_into(l, pool);
    double t2 = now_ms();
    if (rc != EL_OK) {
        ret = print_error(ctx);
    } else {
        json_object *root = json_object_new_object();
        json_object *ra = json_object_new_array();
        size_t n;
        const apt_repo_info *r = apt_loader_repos(l, &n);
        for (size_t i = 0; i < n; i++) {
            json_object *x = json_object_new_object();
            json_object_object_add(x, "name", json_object_new_string(r[i].repo_name));
            json_object_object_add(x, "uri", json_object_new_string(r[i].uri));
            json_object_object_add(x, "suite", json_object_new_string(r[i].suite));
            json_object_object_add(x, "component", json_object_new_string(r[i].component));
            json_object_object_add(x, "arch", json_object_new_string(r[i].arch));
            json_object_object_add(x, "release_url", json_object_new_string(r[i].release_url));
            json_object_object_add(x, "release_sha256", json_object_new_string(r[i].release_sha256));
            json_object_object_add(x, "release_date", json_object_new_string(r[i].release_date));
            json_object_object_add(x, "packages_url", json_object_new_string(r[i].packages_url));
            json_object_object_add(x, "packages_sha256", json_object_new_string(r[i].packages_sha256));
            json_object_object_add(x, "signature_checked", json_object_new_boolean(r[i].signature_checked));
            json_object_object_add(x, "from_solv_cache", json_object_new_boolean(r[i].from_solv_cache));
            json_object_object_add(x, "packages", json_object_new_int64(r[i].n_packages));
            json_object_array_add(ra, x);
        }
        json_object_object_add(root, "repos", ra);
        size_t nrf;
        const apt_refused *rf = apt_loader_refused(l, &nrf);
        json_object *rfa = json_object_new_array();
        for (size_t i = 0; i < nrf; i++) {
            json_object *x = json_object_new_object();
            json_object_object_add(x, "name", json_object_new_string(rf[i].name));
            json_object_object_add(x, "version", json_object_new_string(rf[i].version));
            json_object_object_add(x, "reason", json_object_new_string(rf[i].reason));
            json_object_object_add(x, "why", json_object_new_string(rf[i].why));
            json_object_array_add(rfa, x);
        }
        json_object_object_add(root, "refused", rfa);
        apt_load_stats st;
        apt_loader_stats(l, &st);
        cache_run_stats cs;
        cache_get_stats(c, &cs);
        json_object *s = json_object_new_object();
        json_object_object_add(s, "parsed", json_object_new_int64(st.parsed));
        json_object_object_add(s, "solv_hits", json_object_new_int64(st.solv_hits));
        json_object_object_add(s, "solv_rebuilt", json_object_new_int64(st.solv_rebuilt));
        json_object_object_add(s, "verified_inrelease", json_object_new_int64(st.verified_inrelease));
        json_object_object_add(s, "verified_detached", json_object_new_int64(st.verified_detached));
        json_object_object_add(s, "requests", json_object_new_int64((int64_t)cs.requests));
        json_object_object_add(s, "network", json_object_new_int64((int64_t)cs.network));
        json_object_object_add(s, "bytes", json_object_new_int64((int64_t)cs.bytes));
        json_object_object_add(s, "installed",
                               json_object_new_int64(pool->installed ? pool->installed->nsolvables : -1));
        json_object_object_add(root, "stats", s);
        json_object *t = json_object_new_object();
        json_object_object_add(t, "fetch_ms", json_object_new_double(t1 - t0));
        json_object_object_add(t, "load_ms", json_object_new_double(t2 - t1));
        json_object_object_add(t, "solv_ms", json_object_new_double(st.solv_ms));
        json_object_object_add(root, "timing", t);
        if (write_solv) {
            for (int i = 0; i < pool->nrepos; i++) {
                Repo *rp = pool->repos[i];
                if (!rp || rp == pool->installed)
                    continue;
                char *path = xasprintf("%s/%d.solv", write_solv, i);
                FILE *f = fopen(path, "w");
                if (f) {
                    repo_write(rp, f);
                    fclose(f);
                }
                free(path);
            }
        }
        if (cands) {
            arena *a = arena_new();
            apt_candidate *cv;
            size_t cn;
            apt_loader_candidates(l, cands, a, &cv, &cn);
            json_object *ca = json_object_new_array();
            for (size_t i = 0; i < cn; i++) {
                json_object *x = json_object_new_object();
                json_object_object_add(x, "version", json_object_new_string(cv[i].version));
                json_object_object_add(x, "suite", json_object_new_string(cv[i].suite));
                json_object_object_add(x, "url", json_object_new_string(cv[i].url ? cv[i].url : ""));
                json_object_object_add(x, "breaks", json_object_new_string(cv[i].breaks));
                json_object_array_add(ca, x);
            }
            json_object_object_add(root, "candidates", ca);
            arena_free(a);
        }
        printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    }
    apt_loader_free(l);
    pool_free(pool);
    cache_close(c);
    el_ctx_free(ctx);
    return ret;
}

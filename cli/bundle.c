/* bundle.c — `envlock bundle LOCK -o DIR [--base-url URL]`: a static
 * on-prem mirror of what the lock installs. Prints what was written and
 * reused and the --mirror lines that point envlock at DIR (stdout, or one
 * JSON object with --json); the progress line comes from the cache options
 * (cli_cache_options). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char bundle_usage[] = "usage: envlock bundle LOCK -o DIR [--base-url URL]";

static void print_json(const el_bundle_result *r)
{
    printf("{\"dir\":");
    cli_json_string(stdout, r->out_dir);
    printf(",\"lockDigest\":");
    cli_json_string(stdout, r->lock_digest);
    printf(",\"written\":{\"files\":%zu,\"bytes\":%llu}", r->written,
           (unsigned long long)r->written_bytes);
    printf(",\"reused\":{\"files\":%zu,\"bytes\":%llu}", r->reused,
           (unsigned long long)r->reused_bytes);
    printf(",\"fetched\":{\"requests\":%llu,\"network\":%llu,\"bytes\":%llu}",
           (unsigned long long)r->requests, (unsigned long long)r->network,
           (unsigned long long)r->network_bytes);
    printf(",\"artifacts\":%zu,\"documents\":%zu,\"metadata\":%zu,\"mirrors\":[", r->artifacts,
           r->documents, r->metadata);
    for (size_t i = 0; i < r->n_mirrors; i++) {
        printf("%s{\"ecosystem\":", i ? "," : "");
        cli_json_string(stdout, r->mirrors[i].ecosystem);
        printf(",\"canonical\":");
        cli_json_string(stdout, r->mirrors[i].canonical);
        printf(",\"url\":");
        cli_json_string(stdout, r->mirrors[i].url);
        /* the --mirror value, CANONICAL=URL */
        size_t n = strlen(r->mirrors[i].canonical) + strlen(r->mirrors[i].url) + 2;
        char *pair = malloc(n);
        snprintf(pair, n, "%s=%s", r->mirrors[i].canonical, r->mirrors[i].url);
        printf(",\"mirror\":");
        cli_json_string(stdout, pair);
        printf("}");
        free(pair);
    }
    printf("]}\n");
}

static void print_text(const el_bundle_result *r)
{
    printf("bundle: %s\n", r->out_dir);
    printf("lock digest: %s\n", r->lock_digest);
    printf("artifacts: %zu, index documents: %zu, metadata files: %zu\n", r->artifacts,
           r->documents, r->metadata);
    printf("written: %zu files (%.1f MB); already there: %zu files (%.1f MB)\n", r->written,
           (double)r->written_bytes / 1e6, r->reused, (double)r->reused_bytes / 1e6);
    printf("fetched: %llu requests, %llu over the network (%.1f MB)\n",
           (unsigned long long)r->requests, (unsigned long long)r->network,
           (double)r->network_bytes / 1e6);
    printf("serve it as %s/README says, then point envlock at it with:\n", r->out_dir);
    for (size_t i = 0; i < r->n_mirrors; i++)
        printf("  --mirror %s=%s\n", r->mirrors[i].canonical, r->mirrors[i].url);
}

int cli_bundle(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_bundle_options bo = { 0 };
    const char *lock = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--base-url") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value\n%s", a, bundle_usage);
            if (strcmp(a, "--base-url") == 0)
                bo.base_url = argv[++i];
            else
                bo.out_dir = argv[++i];
        } else if (strncmp(a, "--output=", 9) == 0) {
            bo.out_dir = a + 9;
        } else if (strncmp(a, "--base-url=", 11) == 0) {
            bo.base_url = a + 11;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(ctx, o, "unknown option `%s`\n%s", a, bundle_usage);
        } else if (lock) {
            return cli_usage_error(ctx, o, "one lock at a time (got `%s` and `%s`)", lock, a);
        } else {
            lock = a;
        }
    }
    if (!lock)
        return cli_usage_error(ctx, o, "which lock? give a LOCK file\n%s", bundle_usage);
    if (!bo.out_dir || !*bo.out_dir)
        return cli_usage_error(ctx, o, "where to? give -o DIR\n%s", bundle_usage);
    el_cache_options co;
    cli_cache_options(o, &co);
    el_bundle_result res;
    int status = 0;
    if (el_bundle(ctx, &co, lock, &bo, &res) != EL_OK)
        status = cli_report_failure(ctx, o);
    else if (o->json)
        print_json(&res);
    else
        print_text(&res);
    el_bundle_result_clear(&res);
    return status;
}

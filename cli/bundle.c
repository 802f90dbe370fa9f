/* bundle.c — `envlock bundle LOCK -o DIR [--base-url URL] [--sign KEY]
 * [--advisories DIR]`: a static on-prem mirror of what the lock installs,
 * and the advisory snapshot it was resolved with. Prints what was written
 * and reused and the --mirror lines that point envlock at DIR (stdout, or
 * one JSON object with --json); the progress line comes from the cache
 * options (cli_cache_options). `envlock bundle --verify KEY DIR` checks a
 * signed bundle. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char bundle_usage[] =
    "usage: envlock bundle LOCK -o DIR [--base-url URL] [--sign KEY] [--advisories DIR]\n"
    "       envlock bundle --verify KEY DIR";

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
    printf(",\"artifacts\":%zu,\"documents\":%zu,\"metadata\":%zu", r->artifacts,
           r->documents, r->metadata);
    if (r->signed_files)
        printf(",\"signedFiles\":%zu", r->signed_files);
    if (r->advisories_snapshot[0]) {
        printf(",\"advisories\":{\"dir\":\"advisories\",\"files\":%zu,\"snapshot\":",
               r->advisory_files);
        cli_json_string(stdout, r->advisories_snapshot);
        printf("}");
    }
    printf(",\"mirrors\":[");
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
    if (r->advisories_snapshot[0])
        printf("advisories: %zu snapshot files (%s, as the lock records) in %s/advisories; "
               "audit with --advisories %s/advisories\n", r->advisory_files,
               r->advisories_snapshot, r->out_dir, r->out_dir);
    if (r->signed_files)
        printf("signed: %s/SHA256SUMS lists %zu files; SHA256SUMS.sig is its Ed25519 signature\n",
               r->out_dir, r->signed_files);
    printf("serve it as %s/README says, then point envlock at it with:\n", r->out_dir);
    for (size_t i = 0; i < r->n_mirrors; i++)
        printf("  --mirror %s=%s\n", r->mirrors[i].canonical, r->mirrors[i].url);
}

/* `envlock bundle --verify KEY DIR`. */
static int verify(el_ctx *ctx, const cli_opts *o, const char *key, const char *dir)
{
    size_t n = 0;
    if (el_bundle_verify(ctx, dir, key, &n) != EL_OK)
        return cli_report_failure(ctx, o);
    if (o->json) {
        printf("{\"dir\":");
        cli_json_string(stdout, dir);
        printf(",\"verified\":true,\"files\":%zu,\"key\":", n);
        cli_json_string(stdout, key);
        printf("}\n");
    } else {
        printf("bundle %s: %zu files, each as SHA256SUMS lists it, signed by %s\n", dir, n, key);
    }
    return 0;
}

/* The arguments into *bo, *lock and *verify_key; 0, or the usage
 * error's status. */
static int parse(el_ctx *ctx, const cli_opts *o, int argc, char **argv, el_bundle_options *bo,
                 const char **lock, const char **verify_key)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--base-url") == 0 ||
            strcmp(a, "--sign") == 0 || strcmp(a, "--verify") == 0 ||
            strcmp(a, "--advisories") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value\n%s", a, bundle_usage);
            const char *v = argv[++i];
            if (strcmp(a, "--base-url") == 0)
                bo->base_url = v;
            else if (strcmp(a, "--sign") == 0)
                bo->sign_key = v;
            else if (strcmp(a, "--verify") == 0)
                *verify_key = v;
            else if (strcmp(a, "--advisories") == 0)
                bo->advisories = v;
            else
                bo->out_dir = v;
        } else if (strncmp(a, "--output=", 9) == 0) {
            bo->out_dir = a + 9;
        } else if (strncmp(a, "--base-url=", 11) == 0) {
            bo->base_url = a + 11;
        } else if (strncmp(a, "--advisories=", 13) == 0) {
            bo->advisories = a + 13;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_unknown_option(ctx, o, a, bundle_usage, NULL);
        } else if (*lock) {
            return cli_usage_error(ctx, o, "one %s at a time (got `%s` and `%s`)",
                                   *verify_key ? "bundle" : "lock", *lock, a);
        } else {
            *lock = a;
        }
    }
    return 0;
}

int cli_bundle(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_bundle_options bo = { 0 };
    const char *lock = NULL, *verify_key = NULL;
    int status = parse(ctx, o, argc, argv, &bo, &lock, &verify_key);
    if (status)
        return status;
    if (verify_key) {
        if (bo.out_dir || bo.sign_key || bo.base_url || bo.advisories)
            return cli_usage_error(ctx, o, "--verify checks a bundle: give only --verify KEY "
                                   "DIR\n%s", bundle_usage);
        if (!lock)
            return cli_usage_error(ctx, o, "which bundle? give its DIR\n%s", bundle_usage);
        return verify(ctx, o, verify_key, lock);
    }
    if (!lock)
        return cli_usage_error(ctx, o, "which lock? give a LOCK file\n%s", bundle_usage);
    if (!bo.out_dir || !*bo.out_dir)
        return cli_usage_error(ctx, o, "where to? give -o DIR\n%s", bundle_usage);
    /* as resolve, check and audit take it: the snapshot the lock was made with */
    bo.advisories = cli_path_or_env(bo.advisories, "ENVLOCK_ADVISORIES");
    el_cache_options co;
    cli_cache_options(o, &co);
    el_bundle_result res;
    if (el_bundle(ctx, &co, lock, &bo, &res) != EL_OK)
        status = cli_report_failure(ctx, o);
    else if (o->json)
        print_json(&res);
    else
        print_text(&res);
    el_bundle_result_clear(&res);
    return status;
}

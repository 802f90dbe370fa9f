/* env.c — the ENVLOCK_* environment variables that configure fetching,
 * turned into el_cache_options. The library reads none of them (DESIGN.md
 * §1: cli/ is the only reader of envlock's own variables); this file is
 * the one place that does, and docs/configuration.md lists them. It uses
 * nothing else of the CLI, so the cache's test driver builds it too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli_env.h"

/* A whole number from the environment variable `name` into *out (left
 * alone when it is unset or empty); EL_USAGE naming the variable when it
 * is not a number in [1, max]. */
static el_code env_number(el_ctx *ctx, const char *name, long max, long *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return EL_OK;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 1 || n > max) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s=%.64s: expected a whole number from 1 to %ld", name, v, max);
        return el_usage_error(ctx, msg);
    }
    *out = n;
    return EL_OK;
}

static const char *env_text(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

el_code cli_ca_path(el_ctx *ctx, const char *what, const char *path, bool dir)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
        return EL_OK;
    char msg[512];
    snprintf(msg, sizeof msg, "%s %.300s: %s", what, path,
             !exists ? "no such file or directory" : dir ? "not a directory" : "not a file");
    return el_usage_error(ctx, msg);
}

/* The CA certificates to trust, from the variables curl, OpenSSL and uv
 * read, below envlock's own (docs/configuration.md gives the order):
 * ENVLOCK_CERT, SSL_CERT_FILE, CURL_CA_BUNDLE for the bundle;
 * SSL_CERT_DIR for the directory. A name that is not there is a usage
 * error naming the variable, not a TLS failure at the first fetch. */
static el_code env_ca(el_ctx *ctx, el_cache_options *co)
{
    static const char *const files[] = { "ENVLOCK_CERT", "SSL_CERT_FILE", "CURL_CA_BUNDLE" };
    for (size_t i = 0; i < sizeof files / sizeof *files && !co->ca_bundle; i++) {
        const char *v = env_text(files[i]);
        if (v && cli_ca_path(ctx, files[i], v, false) != EL_OK)
            return EL_USAGE;
        co->ca_bundle = v;
    }
    const char *d = env_text("SSL_CERT_DIR");
    if (d && !co->ca_dir) {
        if (cli_ca_path(ctx, "SSL_CERT_DIR", d, true) != EL_OK)
            return EL_USAGE;
        co->ca_dir = d;
    }
    return EL_OK;
}

el_code cli_env_cache_options(el_ctx *ctx, el_cache_options *co, const char **redirect_slot)
{
    static const long day = 86400;
    long transfer = 0, retry = 0, run = 0, speed = 0, speed_time = 0, cap = 0;
    el_code rc;
    if ((rc = env_number(ctx, "ENVLOCK_TRANSFER_TIMEOUT", 7 * day, &transfer)) != EL_OK ||
        (rc = env_number(ctx, "ENVLOCK_RETRY_MAX_TIME", 7 * day, &retry)) != EL_OK ||
        (rc = env_number(ctx, "ENVLOCK_RUN_TIMEOUT", 7 * day, &run)) != EL_OK ||
        (rc = env_number(ctx, "ENVLOCK_MIN_SPEED", 1L << 30, &speed)) != EL_OK ||
        (rc = env_number(ctx, "ENVLOCK_MIN_SPEED_TIME", day, &speed_time)) != EL_OK ||
        (rc = env_number(ctx, "ENVLOCK_MAX_BYTES", 1L << 40, &cap)) != EL_OK ||
        (rc = env_ca(ctx, co)) != EL_OK)
        return rc;
    /* an option already set (a flag, a test driver's argument) wins */
    if (!co->transfer_timeout_ms)
        co->transfer_timeout_ms = transfer * 1000;
    if (!co->retry_max_ms)
        co->retry_max_ms = retry * 1000;
    if (!co->run_timeout_ms)
        co->run_timeout_ms = run * 1000;
    if (!co->stall_bytes_per_s)
        co->stall_bytes_per_s = speed;
    if (!co->stall_seconds)
        co->stall_seconds = speed_time;
    if (!co->max_bytes)
        co->max_bytes = (uint64_t)cap;
    if (!co->dir)
        co->dir = env_text("ENVLOCK_CACHE_DIR");
    co->mirror_list = env_text("ENVLOCK_MIRRORS");
    co->mirror_list_name = "ENVLOCK_MIRRORS";
    co->config_dir = env_text("ENVLOCK_CONFIG");
    co->npm_token = env_text("ENVLOCK_NPM_TOKEN");
    /* the variable's hosts go after the options' own, in the slot the
     * caller keeps at the end of its redirect_hosts array */
    const char *hosts = env_text("ENVLOCK_REDIRECT_HOSTS");
    if (hosts && redirect_slot) {
        *redirect_slot = hosts;
        co->n_redirect_hosts++;
    }
    return EL_OK;
}

/* check.c — `envlock check SPEC LOCK`: is the lock still a valid answer for
 * the spec? Prints what changed when it is not (exit 1), "up to date" when
 * it is (exit 0); any other failure has its DL_ENV code's status. The
 * lock's inputs (index pages, packuments, Releases) are re-read through the
 * cache and mirrors; with the global --offline only the cache answers, and
 * an input it lacks is a note on stderr ("not compared"), not a change. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char check_usage[] =
    "usage: envlock check SPEC [LOCK] [--bases FILE] [--exclude-newer TIME] [--policy FILE]\n"
    "                           [--advisories DIR] [--offline]";

/* The options that take a value, and where each goes. */
static const char **value_slot(el_check_options *c, const char *a)
{
    if (strcmp(a, "--bases") == 0)
        return &c->bases_path;
    if (strcmp(a, "--exclude-newer") == 0)
        return &c->exclude_newer;
    if (strcmp(a, "--policy") == 0)
        return &c->policy_path;
    if (strcmp(a, "--advisories") == 0)
        return &c->advisories_dir;
    return NULL;
}

/* The JSON answer: the lock, whether it is valid, the digests, one object
 * a change (kind, path, before, after and the report's text), and the
 * notes. */
static void print_json(const char *lock_path, const el_check_result *res)
{
    printf("{\"lock\":");
    cli_json_string(stdout, lock_path);
    printf(",\"valid\":%s,\"lockDigest\":", res->stale ? "false" : "true");
    cli_json_string(stdout, res->lock_digest);
    printf(",\"specDigest\":");
    cli_json_string(stdout, res->spec_digest);
    printf(",\"changes\":[");
    for (size_t i = 0; i < res->n_changes; i++) {
        const el_check_change *c = &res->changes[i];
        const char *const keys[] = { "kind", "path", "before", "after", "text" };
        const char *const vals[] = { c->kind, c->path, c->before, c->after, c->text };
        putchar(i ? ',' : '{');
        if (i)
            putchar('{');
        for (size_t k = 0; k < 5; k++) {
            printf("%s\"%s\":", k ? "," : "", keys[k]);
            if (vals[k])
                cli_json_string(stdout, vals[k]);
            else
                fputs("null", stdout);
        }
        putchar('}');
    }
    printf("],\"notes\":[");
    for (size_t i = 0; i < res->n_notes; i++) {
        if (i)
            putchar(',');
        cli_json_string(stdout, res->notes[i]);
    }
    printf("]}\n");
}

/* The text answer: stale with the changes indented, or up to date; the
 * notes on stderr unless quiet. */
static void print_text(const cli_opts *o, const char *spec_path, const char *lock_path,
                       const el_check_result *res)
{
    if (res->stale) {
        printf("%s is stale for %s:\n", lock_path, spec_path);
        const char *p = res->report;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fputs("  ", stdout);
            cli_text(stdout, p, n);
            putchar('\n');
            p += n + (nl ? 1 : 0);
        }
    } else {
        printf("%s is up to date for %s\n", lock_path, spec_path);
    }
    if (!o->quiet)
        for (size_t i = 0; i < res->n_notes; i++) {
            fputs("note: ", stderr);
            cli_text(stderr, res->notes[i], strlen(res->notes[i]));
            fputc('\n', stderr);
        }
}

/* What the command line asks: the check's options, the spec's (kept as
 * argv words for cli_load_spec_in()), the spec and the lock. */
typedef struct check_args {
    el_check_options co;
    el_spec_options so;
    char **spec_args;
    int n_spec_args;
    const char *spec_path, *lock_path;
} check_args;

/* Parses argv into *c (its spec_args room for argc + 4 words); 0, or the
 * exit status of a usage error it reported. */
static int parse_args(el_ctx *ctx, const cli_opts *o, int argc, char **argv, check_args *c)
{
    int status = 0;
    const char **slot;
    for (int i = 0; i < argc && status == 0; i++) {
        const char *a = argv[i];
        int r = cli_spec_option(ctx, o, argc, argv, &i, &c->so);
        if (r < 0) {
            status = 2;
        } else if (r > 0) {
            c->spec_args[c->n_spec_args++] = argv[i - 1];
            c->spec_args[c->n_spec_args++] = argv[i];
        } else if ((slot = value_slot(&c->co, a))) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value", a);
            *slot = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            status = cli_unknown_option(ctx, o, a, check_usage, NULL);
        } else if (!c->spec_path) {
            c->spec_path = a;
        } else if (!c->lock_path) {
            c->lock_path = a;
        } else {
            status = cli_usage_error(ctx, o, "one spec and one lock (got also `%s`)\n%s", a,
                                     check_usage);
        }
    }
    if (status == 0 && !c->spec_path)
        status = cli_usage_error(ctx, o, "check needs a SPEC (and its LOCK)\n%s", check_usage);
    return status;
}

/* el_check() of a loaded spec, its answer printed: the exit status. */
static int run_check(el_ctx *ctx, const cli_opts *o, const el_spec *spec, const check_args *c)
{
    el_cache_options co;
    cli_cache_options(o, &co);
    el_check_result res;
    int status;
    if (el_check(ctx, &co, spec, c->lock_path, &c->co, &res) != EL_OK) {
        status = cli_report_failure(ctx, o);
    } else {
        status = res.stale ? 1 : 0;
        if (o->json)
            print_json(c->lock_path, &res);
        else
            print_text(o, c->spec_path, c->lock_path, &res);
    }
    el_check_result_clear(&res);
    return status;
}

int cli_check(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    check_args c = { .so = { .format = EL_SPEC_FORMAT_AUTO } };
    c.spec_args = calloc((size_t)argc + 4, sizeof *c.spec_args);
    int status = parse_args(ctx, o, argc, argv, &c);
    if (status != 0) {
        free(c.spec_args);
        return status;
    }
    /* the lock resolve writes by default for this spec */
    char *default_lock = c.lock_path ? NULL : el_default_lock_path(c.spec_path);
    if (default_lock)
        c.lock_path = default_lock;
    c.co.spec_path = c.spec_path;
    c.co.spec_opts = &c.so;
    c.co.bases_path = cli_bases_path(c.co.bases_path);
    c.co.policy_path = cli_path_or_env(c.co.policy_path, "ENVLOCK_POLICY");
    c.co.advisories_dir = cli_path_or_env(c.co.advisories_dir, "ENVLOCK_ADVISORIES");
    /* One read of the catalog: the spec is checked against the one the
     * check uses. */
    el_bases *bases = el_bases_load(ctx, c.co.bases_path);
    if (!bases) {
        free(c.spec_args);
        el_free(default_lock);
        return cli_report_failure(ctx, o);
    }
    c.co.bases = bases;
    c.spec_args[c.n_spec_args++] = (char *)c.spec_path;
    const char *path = NULL;
    el_spec *spec = cli_load_spec_in(ctx, o, c.n_spec_args, c.spec_args, bases, &path, &status);
    if (spec && !el_spec_only_uv_drift(spec) &&
        (status = cli_report_findings(ctx, o, spec, path)) != 0) {
        el_spec_free(spec);
        spec = NULL;
    }
    if (spec)
        status = run_check(ctx, o, spec, &c);
    el_spec_free(spec);
    el_bases_free(bases);
    free(c.spec_args);
    el_free(default_lock);
    return status;
}

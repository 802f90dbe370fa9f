/* resolve.c — `envlock resolve SPEC [-o FILE] ...`: spec in, lock out.
 * Reports where the lock went, its digest, the spec digest and the package
 * counts (stdout, or one JSON object with --json); notes such as a dropped
 * agreeing pin go to stderr unless --quiet. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char resolve_usage[] =
    "usage: envlock resolve SPEC [-o FILE] [--bases FILE] [--exclude-newer TIME] [--upgrade]\n"
    "                       [--upgrade-package NAME]... [--debug-solver DIR] [--explain]\n"
    "                       [--prerelease MODE] [--no-build] [--only-binary :all:|NAME,...]\n"
    "                       [--no-binary :all:|NAME,...] [--advisories DIR]\n"
    "                       [--vulnerable avoid|block|allow] [--ignore ID]... [--policy FILE]";

static const char *value_of(el_ctx *ctx, const cli_opts *o, int argc, char **argv, int *i,
                            int *status)
{
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    if (a[0] == '-' && a[1] == '-' && eq)
        return eq + 1;
    if (*i + 1 >= argc) {
        *status = cli_usage_error(ctx, o, "%s needs a value", a);
        return NULL;
    }
    return argv[++*i];
}

/* "--name" or "--name=value" */
static bool is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* Appends the comma-separated names of one --only-binary / --no-binary value
 * (pip's syntax) to v (copies; freed with free_names()). */
static void add_names(const char *value, char **v, size_t *n)
{
    const char *s = value;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len) {
            char *name = malloc(len + 1);
            memcpy(name, s, len);
            name[len] = '\0';
            v[(*n)++] = name;
        }
        s += len + (e ? 1 : 0);
    }
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void print_json_result(const el_resolve_result *r)
{
    printf("{\"lock\":");
    cli_json_string(stdout, r->lock_path);
    printf(",\"lockDigest\":");
    cli_json_string(stdout, r->lock_digest);
    printf(",\"specDigest\":");
    cli_json_string(stdout, r->spec_digest);
    printf(",\"excludeNewer\":");
    if (r->exclude_newer[0])
        cli_json_string(stdout, r->exclude_newer);
    else
        printf("null");
    printf(",\"packages\":{");
    if (r->n_conda) /* only an environment.yml's lock has conda packages */
        printf("\"conda\":%zu,", r->n_conda);
    printf("\"deb\":%zu,\"npm\":%zu,\"pypi\":%zu,\"installedInBase\":%zu", r->n_deb,
           r->n_npm, r->n_pypi, r->n_installed_in_base);
    printf(",\"spec\":%zu,\"protected\":%zu,\"dependencies\":%zu}", r->n_spec,
           r->n_protected, r->n_dependencies);
    printf(",\"keptPrevious\":%s,\"notes\":[", r->kept_previous ? "true" : "false");
    for (size_t i = 0; i < r->n_notes; i++) {
        if (i)
            putchar(',');
        cli_json_string(stdout, r->notes[i]);
    }
    printf("]}\n");
}

/* What the command line asks of a resolve: the resolve's options, the spec
 * options (also kept as argv words for cli_load_spec), and the spec. */
typedef struct {
    el_resolve_options ro;
    el_spec_options so;
    const char **upgrade, **ignore;
    char **only_binary, **no_binary, **spec_args;
    int n_spec_args;
    const char *spec_path;
} resolve_args;

static void resolve_args_free(resolve_args *a)
{
    free(a->upgrade);
    free(a->ignore);
    free(a->spec_args);
    free_names(a->only_binary, a->ro.n_only_binary);
    free_names(a->no_binary, a->ro.n_no_binary);
}

/* One word of the command line (and its value); a status, 0 to go on. */
static int resolve_option(el_ctx *ctx, const cli_opts *o, int argc, char **argv, int *i,
                          resolve_args *ra)
{
    el_resolve_options *ro = &ra->ro;
    const char *a = argv[*i];
    int status = 0;
    int r = cli_spec_option(ctx, o, argc, argv, i, &ra->so);
    if (r < 0) {
        status = 2;
    } else if (r > 0) {
        ra->spec_args[ra->n_spec_args++] = argv[*i - 1];
        ra->spec_args[ra->n_spec_args++] = argv[*i];
    } else if (strcmp(a, "-o") == 0 || is_opt(a, "--output")) {
        ro->lock_path = value_of(ctx, o, argc, argv, i, &status);
    } else if (is_opt(a, "--bases")) {
        ro->bases_path = value_of(ctx, o, argc, argv, i, &status);
    } else if (is_opt(a, "--exclude-newer")) {
        ro->exclude_newer = value_of(ctx, o, argc, argv, i, &status);
    } else if (is_opt(a, "--upgrade-package")) {
        const char *v = value_of(ctx, o, argc, argv, i, &status);
        if (v)
            ra->upgrade[ro->n_upgrade++] = v;
    } else if (is_opt(a, "--advisories")) {
        ro->advisories_dir = value_of(ctx, o, argc, argv, i, &status);
    } else if (is_opt(a, "--policy")) {
        ro->policy_path = value_of(ctx, o, argc, argv, i, &status);
    } else if (is_opt(a, "--vulnerable")) {
        ro->vulnerable = value_of(ctx, o, argc, argv, i, &status);
    } else if (is_opt(a, "--ignore")) {
        const char *v = value_of(ctx, o, argc, argv, i, &status);
        if (v)
            ra->ignore[ro->n_ignore++] = v;
    } else if (strcmp(a, "--upgrade") == 0 || strcmp(a, "-U") == 0) {
        ro->upgrade_all = true;
    } else if (is_opt(a, "--debug-solver")) {
        ro->debug_solver_dir = value_of(ctx, o, argc, argv, i, &status);
    } else if (strcmp(a, "--explain") == 0) {
        ro->explain_full = true;
    } else if (is_opt(a, "--prerelease")) {
        ro->prerelease = value_of(ctx, o, argc, argv, i, &status);
    } else if (strcmp(a, "--no-build") == 0) {
        ro->no_build = true;
    } else if (is_opt(a, "--only-binary") || is_opt(a, "--no-binary")) {
        bool only = is_opt(a, "--only-binary");
        const char *v = value_of(ctx, o, argc, argv, i, &status);
        if (v)
            add_names(v, only ? ra->only_binary : ra->no_binary,
                      only ? &ro->n_only_binary : &ro->n_no_binary);
    } else if (a[0] == '-' && a[1] != '\0') {
        status = cli_unknown_option(ctx, o, a, resolve_usage, NULL);
    } else if (ra->spec_path) {
        status = cli_usage_error(ctx, o, "one spec at a time (got `%s` and `%s`)", ra->spec_path, a);
    } else {
        ra->spec_path = a;
    }
    return status;
}

/* Reads the command line into ra; a status, 0 when the resolve can run. */
static int resolve_parse(el_ctx *ctx, const cli_opts *o, int argc, char **argv, resolve_args *ra)
{
    ra->so.format = EL_SPEC_FORMAT_AUTO;
    ra->upgrade = calloc((size_t)argc + 1, sizeof *ra->upgrade);
    ra->ignore = calloc((size_t)argc + 1, sizeof *ra->ignore);
    size_t room = 1;
    for (int i = 0; i < argc; i++)
        room += strlen(argv[i]) + 1; /* at most one name per byte of a value */
    ra->only_binary = calloc(room, sizeof *ra->only_binary);
    ra->no_binary = calloc(room, sizeof *ra->no_binary);
    ra->spec_args = calloc((size_t)argc + 4, sizeof *ra->spec_args);
    int status = 0;
    for (int i = 0; i < argc && status == 0; i++)
        status = resolve_option(ctx, o, argc, argv, &i, ra);
    if (status == 0 && !ra->spec_path)
        status = cli_usage_error(ctx, o, "which spec? give a FILE\n%s", resolve_usage);
    if (status == 0 && ra->ro.exclude_newer) {
        char cutoff[32];
        if (el_exclude_newer_normalize(ctx, ra->ro.exclude_newer, cutoff) != EL_OK)
            status = cli_report_failure(ctx, o);
    }
    return status;
}

static void print_text_result(const cli_opts *o, const el_resolve_result *res)
{
    if (!o->quiet)
        for (size_t i = 0; i < res->n_notes; i++)
            fprintf(stderr, "note: %s\n", res->notes[i]);
    printf("lock: %s\n", res->lock_path);
    printf("lock digest: %s\n", res->lock_digest);
    printf("spec digest: %s\n", res->spec_digest);
    if (res->exclude_newer[0])
        printf("exclude newer than: %s\n", res->exclude_newer);
    printf("packages: ");
    if (res->n_conda)
        printf("%zu conda, ", res->n_conda);
    printf("%zu pypi, %zu npm, %zu deb; %zu of them already in the base\n", res->n_pypi,
           res->n_npm, res->n_deb, res->n_installed_in_base);
    printf("  %zu asked for by the spec, %zu the base's protected pins, %zu dependencies\n",
           res->n_spec, res->n_protected, res->n_dependencies);
}

int cli_resolve(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    resolve_args ra = { 0 };
    el_resolve_options *ro = &ra.ro;
    int status = resolve_parse(ctx, o, argc, argv, &ra);
    if (status != 0) {
        resolve_args_free(&ra);
        return status;
    }
    ro->upgrade = ra.upgrade;
    ro->ignore = ra.ignore;
    ro->only_binary = (const char *const *)ra.only_binary;
    ro->no_binary = (const char *const *)ra.no_binary;
    ro->spec_path = ra.spec_path;
    ro->spec_opts = &ra.so;
    if (cli_debug_stats()) {
        ro->stats = cli_print_stat;
        ro->stats_user = NULL;
    }

    ro->bases_path = cli_bases_path(ro->bases_path);
    ro->policy_path = cli_path_or_env(ro->policy_path, "ENVLOCK_POLICY");
    ro->advisories_dir = cli_path_or_env(ro->advisories_dir, "ENVLOCK_ADVISORIES");
    /* One read of the catalog: the spec is checked against the one the
     * resolve uses. */
    el_bases *bases = el_bases_load(ctx, ro->bases_path);
    if (!bases) {
        resolve_args_free(&ra);
        return cli_report_failure(ctx, o);
    }
    ro->bases = bases;
    ra.spec_args[ra.n_spec_args++] = (char *)ra.spec_path;
    const char *path = NULL;
    el_spec *spec =
        cli_load_valid_spec_in(ctx, o, ra.n_spec_args, ra.spec_args, bases, &path, &status);
    if (spec) {
        el_cache_options co;
        cli_cache_options(o, &co);
        el_resolve_result res;
        if (el_resolve(ctx, &co, spec, ro, &res) != EL_OK)
            status = cli_report_failure(ctx, o);
        else if (o->json)
            print_json_result(&res);
        else
            print_text_result(o, &res);
        el_resolve_result_clear(&res);
    }
    el_spec_free(spec);
    el_bases_free(bases);
    resolve_args_free(&ra);
    return status;
}

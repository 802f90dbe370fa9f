/* plan.c — `envlock plan SPEC LOCK`: from one lock, the plan directory of
 * every wanted variant (what that provider's builder consumes). Prints one
 * line per file written ("sha256:<hex>  PATH"), and on stderr one line per
 * note ("note: ...") and per optional variant that was dropped and why. A
 * required variant that cannot honour the spec fails the whole command
 * before anything is written. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char plan_usage[] =
    "usage: envlock plan SPEC LOCK [--variant datalayer|e2b|daytona|modal|all]... [-o DIR]\n"
    "                    [--bases FILE] [--base-registry HOST]";

typedef struct plan_args {
    el_plan_options po;
    const char **variants;
    const char *spec_path, *lock_path;
    char **spec_args;
    int n_spec_args;
} plan_args;

/* --variant takes one name or a comma-separated list. */
static void add_variants(plan_args *a, char *list)
{
    for (char *save = NULL, *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save))
        a->variants[a->po.n_variants++] = v;
}

static int parse(el_ctx *ctx, const cli_opts *o, int argc, char **argv, plan_args *a,
                 el_spec_options *so)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        int r = cli_spec_option(ctx, o, argc, argv, &i, so);
        if (r < 0)
            return 2;
        if (r > 0) {
            a->spec_args[a->n_spec_args++] = argv[i - 1];
            a->spec_args[a->n_spec_args++] = argv[i];
        } else if (!strcmp(s, "--variant") || !strcmp(s, "-o") || !strcmp(s, "--bases") ||
                   !strcmp(s, "--base-registry")) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value\n%s", s, plan_usage);
            char *v = argv[++i];
            if (!strcmp(s, "--variant"))
                add_variants(a, v);
            else if (!strcmp(s, "-o"))
                a->po.out_dir = v;
            else if (!strcmp(s, "--bases"))
                a->po.bases_path = v;
            else
                a->po.base_registry = v;
        } else if (s[0] == '-' && s[1] != '\0') {
            return cli_unknown_option(ctx, o, s, plan_usage, NULL);
        } else if (!a->spec_path) {
            a->spec_path = s;
        } else if (!a->lock_path) {
            a->lock_path = s;
        } else {
            return cli_usage_error(ctx, o, "one spec and one lock (got also `%s`)\n%s", s,
                                   plan_usage);
        }
    }
    if (!a->lock_path)
        return cli_usage_error(ctx, o, "plan needs a SPEC and a LOCK\n%s", plan_usage);
    return 0;
}

static void print_json(const el_plan_result *r)
{
    printf("{\"lockDigest\":");
    cli_json_string(stdout, r->lock_digest);
    printf(",\"specDigest\":");
    cli_json_string(stdout, r->spec_digest);
    printf(",\"outDir\":");
    cli_json_string(stdout, r->out_dir);
    printf(",\"variants\":[");
    for (size_t i = 0; i < r->n_variants; i++) {
        printf(i ? "," : "");
        cli_json_string(stdout, r->variants[i]);
    }
    printf("],\"dropped\":[");
    for (size_t i = 0; i < r->n_dropped; i++) {
        const el_plan_dropped *d = &r->dropped[i];
        printf("%s{\"variant\":", i ? "," : "");
        cli_json_string(stdout, d->variant);
        printf(",\"reason\":");
        cli_json_string(stdout, d->reason);
        printf(",\"field\":");
        cli_json_string(stdout, d->field);
        printf(",\"line\":%u,\"column\":%u}", d->line, d->column);
    }
    printf("],\"notes\":[");
    for (size_t i = 0; i < r->n_notes; i++) {
        printf(i ? "," : "");
        cli_json_string(stdout, r->notes[i]);
    }
    printf("],\"files\":[");
    for (size_t i = 0; i < r->n_files; i++) {
        const el_plan_file *f = &r->files[i];
        printf("%s{\"variant\":", i ? "," : "");
        cli_json_string(stdout, f->variant);
        printf(",\"path\":");
        cli_json_string(stdout, f->path);
        printf(",\"sha256\":");
        cli_json_string(stdout, f->sha256);
        printf(",\"size\":%zu}", f->size);
    }
    printf("]}\n");
}

static void print_text(const cli_opts *o, const el_plan_result *r)
{
    for (size_t i = 0; i < r->n_files; i++)
        printf("%s  %s\n", r->files[i].sha256, r->files[i].path);
    for (size_t i = 0; i < r->n_notes && !o->quiet; i++)
        fprintf(stderr, "note: %s\n", r->notes[i]);
    for (size_t i = 0; i < r->n_dropped && !o->quiet; i++) {
        const el_plan_dropped *d = &r->dropped[i];
        if (d->line)
            fprintf(stderr, "dropped %s: %s (%s, line %u)\n", d->variant, d->reason, d->field,
                    d->line);
        else
            fprintf(stderr, "dropped %s: %s (%s)\n", d->variant, d->reason, d->field);
    }
}

int cli_plan(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_spec_options so = { .format = EL_SPEC_FORMAT_AUTO };
    plan_args a = { 0 };
    a.variants = calloc((size_t)argc + 1, sizeof *a.variants);
    a.spec_args = calloc((size_t)argc + 4, sizeof *a.spec_args);
    int status = parse(ctx, o, argc, argv, &a, &so);
    el_spec *spec = NULL;
    el_bases *bases = NULL;
    if (status == 0) {
        a.po.spec_path = a.spec_path;
        a.po.spec_opts = &so;
        a.po.variants = a.variants;
        a.po.bases_path = cli_bases_path(a.po.bases_path);
        /* One read of the catalog: the spec is checked against the one the
         * plan uses. */
        if (!(bases = el_bases_load(ctx, a.po.bases_path)))
            status = cli_report_failure(ctx, o);
        a.po.bases = bases;
        a.spec_args[a.n_spec_args++] = (char *)a.spec_path;
        const char *path = NULL;
        if (bases)
            spec = cli_load_valid_spec_in(ctx, o, a.n_spec_args, a.spec_args, bases, &path,
                                          &status);
    }
    if (spec && status == 0) {
        /* Only the --mirror flags map the install steps' URLs: the mirrors
         * configured for resolving (ENVLOCK_MIRRORS, the mirrors file) are
         * often local copies no builder can reach (docs/cli.md, plan). */
        el_cache_options co;
        cli_cache_options(o, &co);
        co.no_mirror_config = true;
        a.po.cache = &co;
        el_plan_result res;
        if (el_plan(ctx, spec, a.lock_path, &a.po, &res) != EL_OK)
            status = cli_report_failure(ctx, o);
        else if (o->json)
            print_json(&res);
        else
            print_text(o, &res);
        el_plan_result_clear(&res);
    }
    el_spec_free(spec);
    el_bases_free(bases);
    free(a.variants);
    free(a.spec_args);
    return status;
}

/* index.c — `envlock index show ECO:NAME`: what an index says about one
 * package for a target, read through the cache (so --offline and --mirror
 * apply). The sources and target come from --spec SPEC and/or flags; flags
 * win. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_LIST 64

static const char *need_value(el_ctx *ctx, const cli_opts *o, int argc, char **argv, int *i,
                              int *status)
{
    if (*i + 1 >= argc) {
        *status = cli_usage_error(ctx, o, "%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* What `index show` was asked: the query, and the lists it points into. */
typedef struct {
    el_index_query q;
    const char *indexes[MAX_LIST], *sources[MAX_LIST], *only[MAX_LIST], *nobin[MAX_LIST];
    size_t nindexes, nsources;
    const char *spec_path;
} show_args;

/* An option that may be given up to MAX_LIST times: its value goes into
 * list; 0, or the usage error's status. */
static int add_listed(el_ctx *ctx, const cli_opts *o, const char *a, const char *v,
                      const char **list, size_t *n)
{
    if (*n == MAX_LIST)
        return cli_usage_error(ctx, o, "at most %d %s options", MAX_LIST, a);
    list[(*n)++] = v;
    return 0;
}

/* Reads the command line into sa; 0, or the usage error's status. */
static int show_parse(el_ctx *ctx, const cli_opts *o, int argc, char **argv, show_args *sa)
{
    el_index_query *q = &sa->q;
    const struct {
        const char *name;
        const char **value;
    } valued[] = {
        { "--spec", &sa->spec_path },          { "--python", &q->python_version },
        { "--platform", &q->platform },        { "--registry", &q->npm_registry },
        { "--keyring", &q->apt_keyring },      { "--arch", &q->apt_arch },
        { "--exclude-newer", &q->exclude_newer },
    };
    int status = 0;
    for (int i = 0; i < argc && status == 0; i++) {
        const char *a = argv[i], *v;
        size_t k = 0;
        while (k < sizeof valued / sizeof *valued && strcmp(a, valued[k].name) != 0)
            k++;
        if (k < sizeof valued / sizeof *valued) {
            if (!(*valued[k].value = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--ignore-valid-until") == 0) {
            q->ignore_valid_until = true;
        } else if (strcmp(a, "--no-build") == 0) {
            q->no_build = true;
        } else if (strcmp(a, "--only-binary") == 0 || strcmp(a, "--no-binary") == 0) {
            if (!(v = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
            bool ob = strcmp(a, "--only-binary") == 0;
            status = add_listed(ctx, o, a, v, ob ? sa->only : sa->nobin,
                                ob ? &q->n_only_binary : &q->n_no_binary);
        } else if (strcmp(a, "--index") == 0 || strcmp(a, "--apt-source") == 0) {
            if (!(v = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
            bool idx = strcmp(a, "--index") == 0;
            status = add_listed(ctx, o, a, v, idx ? sa->indexes : sa->sources,
                                idx ? &sa->nindexes : &sa->nsources);
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_unknown_option(ctx, o, a, NULL,
                                      "--index --apt-source --only-binary --no-binary --no-build "
                                      "--python --platform --arch --registry --keyring --spec "
                                      "--exclude-newer --ignore-valid-until");
        } else if (!q->package) {
            q->package = a;
        } else {
            return cli_usage_error(ctx, o, "one package at a time (got `%s` and `%s`)", q->package, a);
        }
    }
    if (status == 0 && !q->package)
        return cli_usage_error(ctx, o, "usage: envlock index show ECOSYSTEM:NAME [options]");
    return status;
}

/* Loads --spec, checked against the catalog `bases`, which supplies what
 * the flags left open; 0, or the status of the spec's failure (*spec is
 * then NULL). */
static int show_spec(el_ctx *ctx, const cli_opts *o, show_args *sa, const el_bases *bases,
                     el_spec **spec)
{
    el_index_query *q = &sa->q;
    int status = 0;
    const char *sargv[1] = { sa->spec_path };
    const char *path = NULL;
    *spec = cli_load_valid_spec_in(ctx, o, 1, (char **)sargv, bases, &path, &status);
    if (!*spec)
        return status;
    if (!sa->nindexes)
        q->pypi_indexes = el_spec_python_indexes(*spec, &q->n_pypi_indexes);
    if (!sa->nsources)
        q->apt_sources = el_spec_apt_sources(*spec, &q->n_apt_sources);
    if (!q->npm_registry)
        q->npm_registry = el_spec_npm_registry(*spec);
    return 0;
}

/* What flags and the spec left open comes from the catalog: the spec's base
 * at its channel, or with no spec the catalog's first base at its newest
 * channel, as the lock a resolve writes would have it. */
static int show_target(el_ctx *ctx, const cli_opts *o, el_index_query *q, const el_spec *spec,
                       const el_bases *bases)
{
    el_base_target t;
    if (el_bases_target(ctx, bases, spec ? el_spec_base_ref(spec) : NULL,
                        spec ? el_spec_base_channel(spec) : NULL, &t) != EL_OK)
        return cli_report_failure(ctx, o);
    if (!q->python_version)
        q->python_version = t.python;
    if (!q->platform)
        q->platform = t.platform;
    if (!q->apt_arch)
        q->apt_arch = t.arch;
    if (!q->n_apt_sources) {
        q->apt_sources = t.apt_sources;
        q->n_apt_sources = t.n_apt_sources;
        if (!q->apt_keyring)
            q->apt_keyring = t.apt_keyring;
    }
    return 0;
}

static int show(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    show_args sa = { 0 };
    el_index_query *q = &sa.q;
    int status = show_parse(ctx, o, argc, argv, &sa);
    if (status != 0)
        return status;
    q->only_binary = sa.only;
    q->no_binary = sa.nobin;
    /* one catalog for the spec's check and the target */
    el_bases *bases = el_bases_load(ctx, cli_bases_path(NULL));
    if (!bases)
        return cli_report_failure(ctx, o);
    el_spec *spec = NULL;
    if (sa.spec_path && (status = show_spec(ctx, o, &sa, bases, &spec)) != 0) {
        el_bases_free(bases);
        return status;
    }
    if (sa.nindexes) {
        q->pypi_indexes = sa.indexes;
        q->n_pypi_indexes = sa.nindexes;
    }
    if (sa.nsources) {
        q->apt_sources = sa.sources;
        q->n_apt_sources = sa.nsources;
    }
    if ((status = show_target(ctx, o, q, spec, bases)) != 0) {
        el_bases_free(bases);
        el_spec_free(spec);
        return status;
    }
    el_cache_options co;
    cli_cache_options(o, &co);
    char *out = NULL;
    if (el_index_show(ctx, &co, q, o->json, &out) != EL_OK)
        status = cli_report_failure(ctx, o);
    else
        fputs(out, stdout);
    if (out && out[0] && out[strlen(out) - 1] != '\n')
        putchar('\n');
    el_free(out);
    el_bases_free(bases);
    el_spec_free(spec);
    return status;
}

int cli_index(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "show") == 0)
        return show(ctx, o, argc - 1, argv + 1);
    return cli_usage_error(ctx, o, "usage: envlock index show ECOSYSTEM:NAME [options]");
}

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

static int show(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_index_query q = { 0 };
    const char *indexes[MAX_LIST], *sources[MAX_LIST], *only[MAX_LIST], *nobin[MAX_LIST];
    size_t nindexes = 0, nsources = 0;
    const char *spec_path = NULL;
    int status = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--spec") == 0) {
            if (!(spec_path = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--python") == 0) {
            if (!(q.python_version = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--platform") == 0) {
            if (!(q.platform = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--registry") == 0) {
            if (!(q.npm_registry = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--keyring") == 0) {
            if (!(q.apt_keyring = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--arch") == 0) {
            if (!(q.apt_arch = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--exclude-newer") == 0) {
            if (!(q.exclude_newer = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
        } else if (strcmp(a, "--ignore-valid-until") == 0) {
            q.ignore_valid_until = true;
        } else if (strcmp(a, "--no-build") == 0) {
            q.no_build = true;
        } else if (strcmp(a, "--only-binary") == 0 || strcmp(a, "--no-binary") == 0) {
            if (!(v = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
            bool ob = strcmp(a, "--only-binary") == 0;
            size_t *n = ob ? &q.n_only_binary : &q.n_no_binary;
            if (*n == MAX_LIST)
                return cli_usage_error(ctx, o, "at most %d %s options", MAX_LIST, a);
            (ob ? only : nobin)[(*n)++] = v;
        } else if (strcmp(a, "--index") == 0 || strcmp(a, "--apt-source") == 0) {
            if (!(v = need_value(ctx, o, argc, argv, &i, &status)))
                return status;
            bool idx = strcmp(a, "--index") == 0;
            size_t *n = idx ? &nindexes : &nsources;
            if (*n == MAX_LIST)
                return cli_usage_error(ctx, o, "at most %d %s options", MAX_LIST, a);
            (idx ? indexes : sources)[(*n)++] = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(ctx, o, "unknown option `%s`", a);
        } else if (!q.package) {
            q.package = a;
        } else {
            return cli_usage_error(ctx, o, "one package at a time (got `%s` and `%s`)", q.package, a);
        }
    }
    if (!q.package)
        return cli_usage_error(ctx, o, "usage: envlock index show ECOSYSTEM:NAME [options]");
    q.only_binary = only;
    q.no_binary = nobin;

    el_spec *spec = NULL;
    if (spec_path) {
        const char *sargv[1] = { spec_path };
        const char *path = NULL;
        spec = cli_load_spec(ctx, o, 1, (char **)sargv, &path, &status);
        if (!spec)
            return status;
        if ((status = cli_report_findings(ctx, o, spec, path)) != 0) {
            el_spec_free(spec);
            return status;
        }
        /* The spec supplies what the flags left open. */
        if (!nindexes)
            q.pypi_indexes = el_spec_python_indexes(spec, &q.n_pypi_indexes);
        if (!nsources)
            q.apt_sources = el_spec_apt_sources(spec, &q.n_apt_sources);
        if (!q.npm_registry)
            q.npm_registry = el_spec_npm_registry(spec);
        if (!q.python_version)
            q.python_version = el_spec_python_version(spec);
    }
    if (nindexes) {
        q.pypi_indexes = indexes;
        q.n_pypi_indexes = nindexes;
    }
    if (nsources) {
        q.apt_sources = sources;
        q.n_apt_sources = nsources;
    }
    el_cache_options co;
    cli_cache_options(o, &co);
    char *out = NULL;
    if (el_index_show(ctx, &co, &q, o->json, &out) != EL_OK)
        status = cli_report_failure(ctx, o);
    else
        fputs(out, stdout);
    if (out && out[0] && out[strlen(out) - 1] != '\n')
        putchar('\n');
    el_free(out);
    el_spec_free(spec);
    return status;
}

int cli_index(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "show") == 0)
        return show(ctx, o, argc - 1, argv + 1);
    return cli_usage_error(ctx, o, "usage: envlock index show ECOSYSTEM:NAME [options]");
}

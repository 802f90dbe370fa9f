/* pypi_index_tool.c — test driver for the PyPI index reader: runs
 * pypi_index_show() for one name through a cache configured from the command
 * line and prints its output, or the failure as the API error JSON on
 * stdout. Exit 0 on success, 1 on a failure, 2 on usage.
 *
 *   pypi_index_tool [--cache-dir D] [--offline] [--mirror C=U]... [--index URL]...
 *                   [--python V] [--platform P] [--exclude-newer T] [--json]
 *                   [--no-build] [--only-binary V]... [--no-binary V]... NAME
 *   pypi_index_tool --print-tags [--python V] [--platform P]   the target's tags, best first */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

int main(int argc, char **argv)
{
    el_cache_options o = { 0 };
    o.no_mirror_config = true;
    o.quiet = true;
    o.retries = -1;
    /* the tests' target unless --python / --platform say otherwise (the
     * library has no default: the CLI takes it from the bases catalog) */
    el_index_query q = { .python_version = "3.13", .platform = "manylinux_2_36_x86_64" };
    const char *mirrors[16], *indexes[16], *only[16], *nobin[16];
    size_t nm = 0, ni = 0;
    bool json = false, print_tags = false;
    int i;
    for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--print-tags") == 0) {
            print_tags = true;
        } else if (strcmp(a, "--offline") == 0) {
            o.offline = true;
        } else if (strcmp(a, "--no-build") == 0) {
            q.no_build = true;
        } else if (!v) {
            fprintf(stderr, "%s needs a value\n", a);
            return 2;
        } else if (strcmp(a, "--cache-dir") == 0) {
            o.dir = v, i++;
        } else if (strcmp(a, "--mirror") == 0 && nm < 16) {
            mirrors[nm++] = v, i++;
        } else if (strcmp(a, "--index") == 0 && ni < 16) {
            indexes[ni++] = v, i++;
        } else if (strcmp(a, "--python") == 0) {
            q.python_version = v, i++;
        } else if (strcmp(a, "--platform") == 0) {
            q.platform = v, i++;
        } else if (strcmp(a, "--exclude-newer") == 0) {
            q.exclude_newer = v, i++;
        } else if (strcmp(a, "--only-binary") == 0 && q.n_only_binary < 16) {
            only[q.n_only_binary++] = v, i++;
        } else if (strcmp(a, "--no-binary") == 0 && q.n_no_binary < 16) {
            nobin[q.n_no_binary++] = v, i++;
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
    }
    if (print_tags) {
        char *err = NULL;
        pypi_tags *t = pypi_tags_new(q.python_version, q.platform, &err);
        if (!t) {
            fprintf(stderr, "%s\n", err);
            free(err);
            return 1;
        }
        for (size_t k = 0; k < pypi_tags_len(t); k++)
            printf("%s\n", pypi_tags_at(t, k));
        pypi_tags_free(t);
        return 0;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "usage: pypi_index_tool [options] NAME\n");
        return 2;
    }
    o.mirrors = mirrors;
    o.n_mirrors = nm;
    q.pypi_indexes = indexes;
    q.n_pypi_indexes = ni;
    q.only_binary = only;
    q.no_binary = nobin;
    char *pkg = xasprintf("pypi:%s", argv[i]);
    q.package = pkg;
    el_ctx *ctx = el_ctx_new();
    int status = 0;
    cache *c = cache_open(ctx, &o);
    strbuf out = STRBUF_INIT;
    if (!c || pypi_index_show(ctx, c, &q, json, &out) != EL_OK) {
        char *e = el_ctx_error_json(ctx, false);
        printf("%s\n", e);
        free(e);
        status = 1;
    } else {
        printf("%s%s", out.buf, json ? "\n" : "");
    }
    sb_release(&out);
    cache_close(c);
    el_ctx_free(ctx);
    free(pkg);
    return status;
}

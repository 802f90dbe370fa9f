/* version.c — `envlock version compare|satisfies`: the four ecosystems'
 * version semantics for users and scripts. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int parse_eco(el_ctx *ctx, const cli_opts *o, const char *name, el_ecosystem *eco)
{
    if (el_ecosystem_parse(name, eco) == 0)
        return 0;
    return cli_usage_error(ctx, o, "ECOSYSTEM is pypi, npm, deb or conda, not `%s`", name);
}

static int compare(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_ecosystem eco;
    if (argc != 3)
        return cli_usage_error(ctx, o, "usage: envlock version compare ECOSYSTEM A B");
    int st = parse_eco(ctx, o, argv[0], &eco);
    if (st)
        return st;
    int cmp = 0;
    if (el_version_compare(ctx, eco, argv[1], argv[2], &cmp) != EL_OK)
        return cli_report_failure(ctx, o);
    const char *sign = cmp < 0 ? "<" : cmp > 0 ? ">" : "=";
    if (o->json)
        printf("{\"code\":\"OK\",\"result\":\"%s\"}\n", sign);
    else
        printf("%s\n", sign);
    return 0;
}

static int satisfies(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_ecosystem eco;
    if (argc < 2)
        return cli_usage_error(ctx, o, "usage: envlock version satisfies ECOSYSTEM RANGE V...");
    int st = parse_eco(ctx, o, argv[0], &eco);
    if (st)
        return st;
    size_t n = (size_t)argc - 2;
    bool *keep = calloc(n ? n : 1, sizeof(bool));
    if (!keep)
        abort();
    if (el_version_filter(ctx, eco, argv[1], (const char *const *)argv + 2, n, keep) != EL_OK) {
        free(keep);
        return cli_report_failure(ctx, o);
    }
    size_t kept = 0;
    if (o->json)
        printf("{\"code\":\"OK\",\"satisfying\":[");
    for (size_t i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        if (o->json) {
            if (kept)
                putchar(',');
            cli_json_string(stdout, argv[2 + i]);
        } else {
            printf("%s\n", argv[2 + i]);
        }
        kept++;
    }
    if (o->json)
        printf("]}\n");
    free(keep);
    /* Like grep: a negative answer is status 1, not an error. */
    return kept ? 0 : 1;
}

int cli_version(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "compare") == 0)
        return compare(ctx, o, argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "satisfies") == 0)
        return satisfies(ctx, o, argc - 1, argv + 1);
    return cli_usage_error(ctx, o, "usage: envlock version compare|satisfies ...");
}

/* normalize.c — `envlock normalize FILE`: the normalized document (every
 * default written out) that the digest is computed from. */
#include "cli.h"

int cli_normalize(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    const char *path = NULL;
    int status = 0;
    el_spec *spec = cli_load_valid_spec(ctx, o, argc, argv, &path, &status);
    if (!spec)
        return status;
    /* Pretty for people; one line for --json consumers. */
    char *doc = el_spec_normalized_json(ctx, spec, !o->json);
    if (!doc) {
        status = cli_report_failure(ctx, o);
    } else {
        printf("%s\n", doc);
        el_free(doc);
    }
    el_spec_free(spec);
    return status;
}

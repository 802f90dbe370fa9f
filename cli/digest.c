/* digest.c — `envlock digest FILE`: the spec digest (sha256 of the RFC 8785
 * canonical JSON of the spec with every default). Refuses a spec with
 * findings, printing them as `validate` does. */
#include "cli.h"

static void print_digest(const cli_opts *o, const char *path, const el_spec *spec,
                         const char *digest)
{
    (void)path;
    (void)spec;
    if (o->json)
        printf("{\"code\":\"OK\",\"specDigest\":\"%s\"}\n", digest);
    else
        printf("%s\n", digest);
}

int cli_digest(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    return cli_spec_digest_run(ctx, o, argc, argv, NULL, print_digest);
}

/* digest.c — `envlock digest FILE`: the spec digest (sha256 of the RFC 8785
 * canonical JSON of the spec with every default). Refuses a spec with
 * findings, printing them as `validate` does. */
#include "cli.h"

int cli_digest(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    const char *path = NULL;
    int status = 0;
    el_spec *spec = cli_load_valid_spec(ctx, o, argc, argv, &path, &status);
    if (!spec)
        return status;
    char digest[EL_DIGEST_SIZE];
    if (el_spec_digest(ctx, spec, digest) != EL_OK)
        status = cli_report_failure(ctx, o);
    else if (o->json)
        printf("{\"code\":\"OK\",\"specDigest\":\"%s\"}\n", digest);
    else
        printf("%s\n", digest);
    el_spec_free(spec);
    return status;
}

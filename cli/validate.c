/* validate.c — `envlock validate FILE [--bases CATALOG]`: load a spec
 * (Environment document or DataGen recipe) against the approved bases of the
 * catalog in use (--bases, $ENVLOCK_BASES, else the built-in one; see
 * cli_load_spec()) and report every finding with its position, or that it
 * is valid with its name and digest. */
#include "cli.h"

static void print_valid(const cli_opts *o, const char *path, const el_spec *spec,
                        const char *digest)
{
    if (o->json) {
        printf("{\"code\":\"OK\",\"valid\":true,\"name\":");
        cli_json_string(stdout, el_spec_name(spec));
        printf(",\"specDigest\":\"%s\",\"findings\":[]}\n", digest);
    } else {
        printf("%s: valid: %s (%s)\n", path, el_spec_name(spec), digest);
    }
}

int cli_validate(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    return cli_spec_digest_run(ctx, o, argc, argv, print_valid);
}

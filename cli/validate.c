/* validate.c — `envlock validate FILE [--bases CATALOG]`: load a spec
 * (Environment document or DataGen recipe) against the approved bases of the
 * catalog in use (--bases, $ENVLOCK_BASES, else the built-in one; see
 * cli_load_spec()) and report every finding with its position, or that it
 * is valid with its name and digest. */
#include "cli.h"

int cli_validate(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    const char *path = NULL;
    int status = 0;
    el_spec *spec = cli_load_valid_spec(ctx, o, argc, argv, &path, &status);
    if (!spec)
        return status;
    char digest[EL_DIGEST_SIZE];
    if (el_spec_digest(ctx, spec, digest) != EL_OK) {
        status = cli_report_failure(ctx, o);
    } else if (o->json) {
        printf("{\"code\":\"OK\",\"valid\":true,\"name\":");
        cli_json_string(stdout, el_spec_name(spec));
        printf(",\"specDigest\":\"%s\",\"findings\":[]}\n", digest);
    } else {
        printf("%s: valid: %s (%s)\n", path, el_spec_name(spec), digest);
    }
    el_spec_free(spec);
    return status;
}

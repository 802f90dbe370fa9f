/* validate.c — `envlock validate FILE [--bases CATALOG] [--policy FILE]`:
 * load a spec (Environment document or DataGen recipe) against the
 * approved bases of the catalog in use (--bases, $ENVLOCK_BASES, else the
 * built-in one; see cli_load_spec()) and report every finding with its
 * position, or that it is valid with its name and digest. With a policy
 * (--policy, else $ENVLOCK_POLICY) the spec's own indexes, registry and
 * apt sources are judged against it too (docs/policy.md). */
#include <string.h>

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

/* Takes `--policy FILE` / `--policy=FILE` out of argv (the spec options
 * are cli_load_spec()'s); -1 when its value is missing. */
static int take_policy(int *argc, char **argv, const char **policy)
{
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        if (strncmp(argv[i], "--policy=", 9) == 0) {
            *policy = argv[i] + 9;
        } else if (strcmp(argv[i], "--policy") == 0) {
            if (i + 1 >= *argc)
                return -1;
            *policy = argv[++i];
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    return 0;
}

int cli_validate(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    const char *policy = NULL;
    if (take_policy(&argc, argv, &policy) != 0)
        return cli_usage_error(ctx, o, "--policy needs a value");
    cli_opts vo = *o;
    vo.resolve_checks = true; /* validate says what resolve would refuse */
    return cli_spec_digest_run(ctx, &vo, argc, argv, cli_path_or_env(policy, "ENVLOCK_POLICY"),
                               print_valid);
}

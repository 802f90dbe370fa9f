/* export.c — `envlock export LOCK --format F [-o FILE]`: the lock in
 * another tool's format (uv-pip-compile, requirements, pylock,
 * package-lock, apt, the SBOMs cyclonedx and spdx, conda-explicit and
 * conda-lock), on stdout or written atomically to FILE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char export_usage[] =
    "usage: envlock export LOCK --format uv-pip-compile|requirements|pylock|package-lock|apt|cyclonedx|spdx|\n"
    "                      conda-explicit|conda-lock\n"
    "                      [-o FILE] [--bases FILE] [--resolved-at TIME]";

static int parse(el_ctx *ctx, const cli_opts *o, int argc, char **argv, el_export_options *eo,
                 const char **lock_path, const char **out)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--format") || !strcmp(s, "-o") || !strcmp(s, "--bases") ||
            !strcmp(s, "--resolved-at")) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value\n%s", s, export_usage);
            const char *v = argv[++i];
            if (!strcmp(s, "--format"))
                eo->format = v;
            else if (!strcmp(s, "-o"))
                *out = v;
            else if (!strcmp(s, "--bases"))
                eo->bases_path = v;
            else
                eo->resolved_at = v;
        } else if (s[0] == '-' && s[1] != '\0') {
            return cli_unknown_option(ctx, o, s, export_usage, NULL);
        } else if (!*lock_path) {
            *lock_path = s;
        } else {
            return cli_usage_error(ctx, o, "one lock (got also `%s`)\n%s", s, export_usage);
        }
    }
    if (!*lock_path)
        return cli_usage_error(ctx, o, "export needs a LOCK\n%s", export_usage);
    if (!eo->format)
        return cli_usage_error(ctx, o, "export needs --format\n%s", export_usage);
    return 0;
}

int cli_export(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    el_export_options eo = { 0 };
    const char *lock_path = NULL, *out = NULL;
    int status = parse(ctx, o, argc, argv, &eo, &lock_path, &out);
    if (status != 0)
        return status;
    eo.out_path = out;
    eo.bases_path = cli_bases_path(eo.bases_path);
    el_cache_options co;
    cli_cache_options(o, &co);
    eo.cache = &co;
    char *text = NULL;
    size_t len = 0;
    if (el_export(ctx, lock_path, &eo, &text, &len) != EL_OK)
        return cli_report_failure(ctx, o);
    if (out && o->json) {
        printf("{\"path\":");
        cli_json_string(stdout, out);
        printf(",\"format\":");
        cli_json_string(stdout, eo.format);
        printf(",\"size\":%zu}\n", len);
    } else if (out) {
        printf("%s (%s, %zu bytes)\n", out, eo.format, len);
    } else if (o->json) { /* one JSON object, the export's text in a field */
        printf("{\"path\":null,\"format\":");
        cli_json_string(stdout, eo.format);
        printf(",\"size\":%zu,\"text\":", len);
        cli_json_string(stdout, text);
        printf("}\n");
    } else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
        status = cli_usage_error(ctx, o, "cannot write the export to stdout");
    }
    el_free(text);
    return status;
}

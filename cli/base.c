/* base.c — `envlock base inspect IMAGE.tar [-o FILE] [--ref REF]`: the
 * bases catalog entry of an image archive (el_base_inspect), on stdout or
 * in FILE, with the image's dpkg status beside FILE (FILE's name with
 * .yaml/.yml replaced by .status). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* FILE.yaml -> FILE.status; the entry names it by its base name. */
static char *status_path_for(const char *out)
{
    size_t n = strlen(out);
    if (n > 5 && !strcmp(out + n - 5, ".yaml"))
        n -= 5;
    else if (n > 4 && !strcmp(out + n - 4, ".yml"))
        n -= 4;
    char *p = malloc(n + 8);
    if (p)
        snprintf(p, n + 8, "%.*s.status", (int)n, out);
    return p;
}

static int inspect(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    const char *archive = NULL, *out = NULL;
    el_base_inspect_options io = { 0 };
    for (int i = 0; i < argc; i++) {
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--ref")) && i + 1 < argc) {
            if (!strcmp(argv[i], "-o"))
                out = argv[++i];
            else
                io.reference = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error(ctx, o, "base inspect: unknown option or missing value `%s`",
                                   argv[i]);
        } else if (archive) {
            return cli_usage_error(ctx, o, "base inspect takes one IMAGE.tar");
        } else {
            archive = argv[i];
        }
    }
    if (!archive)
        return cli_usage_error(ctx, o, "base inspect needs IMAGE.tar (docker save or OCI layout)");
    char *status_path = out ? status_path_for(out) : NULL;
    if (status_path) {
        io.status_path = status_path;
        io.status_name = strrchr(status_path, '/') ? strrchr(status_path, '/') + 1 : status_path;
    }
    io.out_path = out; /* written by the library, atomically, with the status */
    char *text = el_base_inspect(ctx, archive, &io);
    int status = 0;
    if (!text)
        status = cli_report_failure(ctx, o);
    else if (!out)
        fputs(text, stdout);
    if (status == 0 && out && o->json) {
        fputs("{\"ok\":true,\"entry\":", stdout);
        cli_json_string(stdout, out);
        fputs(",\"dpkgStatus\":", stdout);
        cli_json_string(stdout, status_path);
        fputs("}\n", stdout);
    }
    el_free(text);
    free(status_path);
    return status;
}

int cli_base(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "inspect"))
        return inspect(ctx, o, argc - 1, argv + 1);
    return cli_usage_error(ctx, o, "base: the subcommand is `inspect IMAGE.tar`");
}

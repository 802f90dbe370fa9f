/* templates.c — `envlock templates`: the DataGen built-in templates. */
#include "cli.h"

int cli_templates(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    if (argc > 0)
        return cli_usage_error(ctx, o, "`templates` takes no arguments");
    size_t n = 0;
    const char *const *names = el_spec_template_names(&n);
    if (o->json) {
        printf("{\"code\":\"OK\",\"templates\":[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                putchar(',');
            cli_json_string(stdout, names[i]);
        }
        printf("]}\n");
    } else {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", names[i]);
    }
    return 0;
}

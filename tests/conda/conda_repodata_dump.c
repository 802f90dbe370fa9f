/* conda_repodata_dump.c — reads a repodata.json with indexes/conda and
 * prints what it loaded, one line per record (R) and per excluded record
 * (X), or the refusal (E reason) with exit status 1. repodata_check.py
 * compares this with what Python's json module reads from the same file.
 * usage: conda_repodata_dump FILE [SUBDIR] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util.h"
#include "conda_repodata.h"

static void list(const char *const *items, size_t n, const char *sep)
{
    for (size_t i = 0; i < n; i++)
        printf("%s%s", i ? sep : "", items[i]);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: conda_repodata_dump FILE [SUBDIR]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    strbuf sb = STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    el_ctx *ctx = el_ctx_new();
    conda_repodata_options o = {.channel = "test", .subdir = argc == 3 ? argv[2] : NULL};
    conda_repodata *r = NULL;
    int status = 0;
    if (conda_repodata_parse(ctx, sb.buf, sb.len, &o, &r) != EL_OK) {
        char *body = el_ctx_error_json(ctx, false);
        json_object *j = json_tokener_parse(body), *d = NULL, *reason = NULL;
        if (json_object_object_get_ex(j, "detail", &d))
            json_object_object_get_ex(d, "reason", &reason);
        printf("E\t%s\t%s\n", el_code_name(el_ctx_code(ctx)),
               reason ? json_object_get_string(reason) : "?");
        json_object_put(j);
        el_free(body);
        status = 1;
    } else {
        for (size_t i = 0; i < r->n_records; i++) {
            const conda_record *c = &r->records[i];
            printf("R\t%s\t%s\t%s\t%s\t%llu\t%lld\t%d\t%s\t%s\t%llu\t%s\t%s\t%d\t", c->fn, c->name,
                   c->version, c->build, (unsigned long long)c->build_number,
                   (long long)c->timestamp_ms, (int)c->noarch, c->sha256 ? c->sha256 : "-",
                   c->md5 ? c->md5 : "-", (unsigned long long)c->size,
                   c->license ? c->license : "-", c->subdir ? c->subdir : "-", c->is_conda);
            list(c->depends, c->n_depends, " ; ");
            putchar('\t');
            list(c->constrains, c->n_constrains, " ; ");
            putchar('\t');
            list(c->track_features, c->n_track_features, ",");
            putchar('\n');
        }
        for (size_t i = 0; i < r->n_excluded; i++)
            printf("X\t%s\t%s\n", r->excluded[i].fn, r->excluded[i].reason);
    }
    conda_repodata_free(r);
    el_ctx_free(ctx);
    sb_release(&sb);
    return status;
}

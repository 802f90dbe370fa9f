/* conda_load_dump.c — loads conda channels with indexes/conda through a
 * real cache and prints what came back: one S line per subdir (channel
 * URL, subdir, absent|loaded, records, excluded, from_cache,
 * from_parsed_form), one X line
 * per excluded record (file, reason), or E code reason on failure (exit 1).
 * load_check.py drives it over file:// channels and mirrors.
 * usage: conda_load_dump CACHE_DIR [--offline] [--arch A] [--cutoff MS]
 *                        [--mirror CANONICAL=URL]... CHANNEL... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util.h"
#include "conda_index.h"

static void print_error(el_ctx *ctx)
{
    json_object *d = el_ctx_detail(ctx), *reason = NULL;
    if (d)
        json_object_object_get_ex(d, "reason", &reason);
    printf("E\t%s\t%s\n", el_code_name(el_ctx_code(ctx)),
           reason ? json_object_get_string(reason) : "?");
}

static void print_list(const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%s%s", i ? "," : "", v[i]);
    printf("\t");
}

/* One R line a record of name k: every field the parsed form keeps. */
static void print_records(const conda_subdir_load *l, conda_repodata *r, size_t k)
{
    size_t n = 0;
    const conda_record *const *recs = conda_repodata_records_at(r, k, &n);
    for (size_t i = 0; i < n; i++) {
        const conda_record *c = recs[i];
        printf("R\t%s\t%s\t%s\t%s\t%s\t%s\t%llu\t", l->channel, l->subdir, c->name, c->fn,
               c->version, c->build, (unsigned long long)c->build_number);
        print_list(c->depends, c->n_depends);
        print_list(c->constrains, c->n_constrains);
        print_list(c->track_features, c->n_track_features);
        print_list(c->pypi_names, c->n_pypi_names);
        printf("%lld\t%d\t%s\t%s\t%llu\t%s\t%s\t%d\n", (long long)c->timestamp_ms, (int)c->noarch,
               c->sha256 ? c->sha256 : "-", c->md5 ? c->md5 : "-", (unsigned long long)c->size,
               c->license ? c->license : "-", c->subdir ? c->subdir : "-", c->is_conda + 2 * c->has_purls);
    }
}

static void print_set(const conda_channel_set *s)
{
    for (size_t i = 0; i < s->n_subdirs; i++) {
        const conda_subdir_load *l = &s->subdirs[i];
        const conda_repodata *r = l->repodata;
        printf("S\t%s\t%s\t%s\t%zu\t%zu\t%d\t%d\n", l->channel, l->subdir,
               l->absent ? "absent" : "loaded", r ? r->n_records : 0, r ? r->n_excluded : 0,
               l->from_cache, l->from_parsed_form);
        for (size_t k = 0; r && k < r->n_excluded; k++)
            printf("X\t%s\t%s\n", r->excluded[k].fn, r->excluded[k].reason);
        for (size_t k = 0; r && k < conda_repodata_n_names(r); k++)
            print_records(l, l->repodata, k);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: conda_load_dump CACHE_DIR [options] CHANNEL...\n");
        return 2;
    }
    el_cache_options co = {.dir = argv[1], .no_mirror_config = true, .quiet = true, .retries = -1};
    conda_load_options lo = {0};
    const char **mirrors = xcalloc((size_t)argc, sizeof *mirrors);
    const char **channels = xcalloc((size_t)argc, sizeof *channels);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--offline") == 0)
            co.offline = true;
        else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
            lo.deb_arch = argv[++i];
        else if (strcmp(argv[i], "--cutoff") == 0 && i + 1 < argc)
            lo.cutoff_ms = strtoll(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--mirror") == 0 && i + 1 < argc)
            mirrors[co.n_mirrors++] = argv[++i];
        else
            channels[lo.n_channels++] = argv[i];
    }
    co.mirrors = mirrors;
    lo.channels = channels;
    el_ctx *ctx = el_ctx_new();
    int status = 0;
    cache *c = cache_open(ctx, &co);
    conda_channel_set *set = NULL;
    if (!c || conda_channels_load(ctx, c, &lo, &set) != EL_OK) {
        print_error(ctx);
        status = 1;
    } else {
        print_set(set);
    }
    conda_channel_set_free(set);
    cache_close(c);
    el_ctx_free(ctx);
    free(mirrors);
    free(channels);
    return status;
}

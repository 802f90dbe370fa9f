/* index_show.c — the public el_index_show(): checks the query, opens the
 * cache for the run, and hands the package to its ecosystem's reader. The
 * readers own everything about their wire formats; this file owns none. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "cache.h"
#include "pypi/pypi_index.h"
#include "npm/npm_index.h"
#include "apt/apt_index.h"

el_code el_index_show(el_ctx *ctx, const el_cache_options *co, const el_index_query *q, bool json,
                      char **out)
{
    *out = NULL;
    const char *colon = q && q->package ? strchr(q->package, ':') : NULL;
    if (!colon || colon[1] == '\0') {
        el_fail(ctx, EL_SPEC_INVALID,
                "`%s` does not name a package as ECOSYSTEM:NAME (pypi:requests, npm:zod, "
                "deb:gdal-bin)",
                q && q->package ? q->package : "");
        el_detail_str(ctx, "reason", "invalid_query");
        return EL_SPEC_INVALID;
    }
    size_t eco_len = (size_t)(colon - q->package);
    el_code (*show)(el_ctx *, cache *, const el_index_query *, bool, strbuf *);
    if (eco_len == 4 && strncmp(q->package, "pypi", 4) == 0)
        show = pypi_index_show;
    else if (eco_len == 3 && strncmp(q->package, "npm", 3) == 0)
        show = npm_index_show;
    else if ((eco_len == 3 && strncmp(q->package, "deb", 3) == 0) ||
             (eco_len == 3 && strncmp(q->package, "apt", 3) == 0))
        show = apt_index_show;
    else {
        el_fail(ctx, EL_SPEC_INVALID, "`%.*s` is not an ecosystem; the ecosystems are pypi, npm, deb",
                (int)eco_len, q->package);
        el_detail_str(ctx, "reason", "invalid_query");
        return EL_SPEC_INVALID;
    }
    /* URLs typed on the command line are checked before any request: a
     * bad one is a usage error here, while bad_url from the cache means a
     * URL a server sent (cache.h). */
    const char *bad = NULL, *flag = NULL;
    for (size_t i = 0; !bad && i < q->n_pypi_indexes; i++)
        if (!cache_url_fetchable(q->pypi_indexes[i]))
            bad = q->pypi_indexes[i], flag = "--index";
    if (!bad && q->npm_registry && !cache_url_fetchable(q->npm_registry))
        bad = q->npm_registry, flag = "--registry";
    if (bad) {
        char *shown = cache_url_redact(bad);
        el_fail(ctx, EL_USAGE, "%s `%s`: not an http, https or file URL with a host", flag, shown);
        el_detail_str(ctx, "url", shown);
        free(shown);
        return EL_USAGE;
    }
    el_cache_options defaults = { 0 };
    cache *c = cache_open(ctx, co ? co : &defaults);
    if (!c)
        return el_ctx_code(ctx);
    strbuf sb = STRBUF_INIT;
    el_code rc = show(ctx, c, q, json, &sb);
    cache_close(c);
    if (rc != EL_OK) {
        sb_release(&sb);
        return rc;
    }
    *out = sb_detach(&sb, NULL);
    return EL_OK;
}

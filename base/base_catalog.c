/* base_catalog.c — the public face of the bases catalog (envlock/bases.h):
 * a loaded catalog and the view of it the spec rules take. It adds nothing
 * to what base_target.c reads and checks; the spec module stays free of the
 * catalog, the caller passes the view in. */
#include <stdlib.h>
#include <string.h>

#include "envlock/bases.h"
#include "base.h"

struct el_bases {
    target_catalog *cat;
    el_spec_base *view;
    size_t n;
};

el_bases *el_bases_load(el_ctx *ctx, const char *path)
{
    target_catalog *cat = target_catalog_load(ctx, path);
    if (!cat)
        return NULL;
    el_bases *b = xcalloc(1, sizeof *b);
    b->cat = cat;
    b->view = target_catalog_spec_bases(cat, &b->n);
    return b;
}

const target_catalog *target_catalog_of(const el_bases *bases)
{
    return bases->cat;
}

void el_bases_free(el_bases *bases)
{
    if (!bases)
        return;
    target_catalog_spec_bases_free(bases->view, bases->n);
    target_catalog_free(bases->cat);
    free(bases);
}

const el_spec_base *el_bases_spec_view(const el_bases *bases, size_t *n)
{
    *n = bases->n;
    return bases->view;
}

const char *el_bases_path(const el_bases *bases)
{
    return target_catalog_path(bases->cat);
}

el_code el_bases_target(el_ctx *ctx, const el_bases *bases, const char *ref, const char *channel,
                        el_base_target *out)
{
    memset(out, 0, sizeof *out);
    const el_spec_base *first = NULL;
    for (size_t k = 0; k < bases->n && !first; k++)
        if (!ref || strcmp(bases->view[k].ref, ref) == 0)
            first = &bases->view[k];
    if (!ref && !first) {
        el_fail(ctx, EL_SPEC_INVALID, "the bases catalog %s approves no base",
                el_bases_path(bases));
        return EL_SPEC_INVALID;
    }
    const target_base *b = target_catalog_find(ctx, bases->cat, ref ? ref : first->ref,
                                               channel ? channel : first ? first->channel : "");
    if (!b)
        return el_ctx_code(ctx);
    out->python = b->python_version;
    out->platform = b->platform;
    out->arch = b->arch;
    out->apt_sources = b->apt_sources;
    while (b->apt_sources && b->apt_sources[out->n_apt_sources])
        out->n_apt_sources++;
    out->apt_keyring = b->apt_keyring;
    return EL_OK;
}

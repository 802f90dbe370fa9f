/* plan_from.c — the image each variant builds FROM, the one owner of that
 * choice: the Dockerfiles' FROM lines (plan_common.c's base build,
 * plan_daytona.c on a spec's image, plan_e2b.c) and each variant's SBOM
 * root (plan_sbom.c) are all written from plan_variant_from(), so they
 * cannot name different images. It also owns which of the lock's packages
 * the plan on that image installs (plan_image_installs()). Nothing here does I/O. */
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* "repo[:tag]" split at the tag's colon (one after the last `/`, so a
 * registry's port is not a tag). */
static void split_tag(plan_image *im, const char *ref)
{
    const char *slash = strrchr(ref, '/');
    const char *colon = strrchr(slash ? slash : ref, ':');
    im->name = colon ? xstrndup(ref, (size_t)(colon - ref)) : xstrdup(ref);
    im->tag = colon ? xstrdup(colon + 1) : NULL;
}

void plan_variant_from(const plan_input *in, const char *variant, plan_image *out)
{
    memset(out, 0, sizeof *out);
    const char *image = in->lock ? plan_variant_image(in->lock, variant) : NULL;
    if (strcmp(variant, "e2b") == 0) {
        out->kind = PLAN_FROM_E2B;
        out->digest = in->e2b_image_digest;
        split_tag(out, PLAN_E2B_IMAGE);
        out->from = out->digest ? xasprintf("%s@%s", out->name, out->digest)
                                : xstrdup(PLAN_E2B_IMAGE);
        return;
    }
    out->digest = plan_base_digest(in, variant);
    if (image) {   /* the spec's image: its reference as written, then the digest */
        out->kind = PLAN_FROM_SPEC_IMAGE;
        split_tag(out, image);
        out->from = out->digest ? xasprintf("%s@%s", image, out->digest) : xstrdup(image);
        return;
    }
    strbuf repo = STRBUF_INIT;
    out->kind = PLAN_FROM_BASE;
    out->name = xstrdup(plan_base_repository(in, &repo));
    out->from = out->digest ? xasprintf("%s@%s", out->name, out->digest) : xstrdup(out->name);
    sb_release(&repo);
}

void plan_image_release(plan_image *im)
{
    free(im->from);
    free(im->name);
    free(im->tag);
    memset(im, 0, sizeof *im);
}

bool plan_from_wheelhouse(const lock_package *p)
{
    if (!p->installed_in_base || strcmp(p->ecosystem, "pypi") != 0)
        return false;
    for (const char **r = p->requested_by; r && *r; r++)
        if (strcmp(*r, "protected") == 0)
            return true;
    return false;
}

bool plan_image_installs(const plan_image *im, const lock_package *p)
{
    if (!p->installed_in_base)
        return true;
    return im->kind != PLAN_FROM_BASE && plan_from_wheelhouse(p);
}

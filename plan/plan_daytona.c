/* plan_daytona.c — the daytona variant (REFERENCE §7): a Dockerfile the
 * Daytona snapshot builder takes, from the lock's daytona base digest (the
 * doctor is in that base). The same steps as datalayer's, without what only
 * BuildKit reads (no cache mount, no --network=none, no secret mount:
 * Daytona has no per-step secrets, so a spec with build secrets is refused).
 *
 * A spec built on an image (`build.source: image`, a DataGen recipe's
 * `baseImage`) builds daytona on that image instead: FROM the image at the
 * digest the lock records for daytona (the catalog's, when it has one; a
 * tag alone floats, which the Dockerfile and the plan's note say), the
 * same locked installs in pip's form (the image is not Datalayer's: it has
 * pip, not necessarily uv), the base's protected stack from the wheelhouse
 * (the lock holds it as the base's, as Datalayer's builder does on an
 * image), the contract's user made when missing, and the doctor copied
 * from the build context as e2b does; both come from the build service. It owns this variant's
 * refusals and order of steps. */
#include <string.h>

#include "plan_internal.h"

static const char *image_of(const plan_facts *f)
{
    return f->in->lock ? plan_variant_image(f->in->lock, "daytona") : NULL;
}

/* A GPU class needs CUDA: the base's, which the catalog states; of a
 * spec's own image envlock knows none. */
static bool refuse_gpu(const plan_facts *f, bool on_image, plan_refusal *r)
{
    if (on_image)
        return plan_refuse_gpu(f, "and envlock knows no CUDA in this image for the Daytona "
                                  "builder to use",
                               "or drop `daytona` from the optional variants", r);
    return plan_refuse_gpu_without_cuda(
        f, "and this base has no CUDA for the Daytona builder to use",
        "choose a CUDA base, or drop `daytona` from the optional variants", r);
}

bool plan_daytona_refuse(const plan_facts *f, plan_refusal *r)
{
    bool on_image = image_of(f) != NULL;
    return plan_refuse_common(f, "the Daytona builder", r) ||
           plan_refuse_copy_paths(f, "the Daytona builder", r) ||
           plan_refuse_secrets(f,
                               "Daytona has no per-step secret mechanism: a build secret cannot "
                               "be mounted on only the postInstall commands that name it. Remove "
                               "`spec.buildSecrets`, or drop `daytona` from the optional variants",
                               r) ||
           refuse_gpu(f, on_image, r) || (!on_image && plan_refuse_no_base(f, "daytona", r));
}

char *plan_daytona_note(const plan_input *in)
{
    const char *image = in->lock ? plan_variant_image(in->lock, "daytona") : NULL;
    if (!image || plan_base_digest(in, "daytona"))
        return NULL;
    return xasprintf("daytona: Dockerfile builds FROM %s, a floating tag, not pinned by a "
                     "digest: the lock records none for it, as the bases catalog's `images:` "
                     "entry `%s` has no `digest:`. To pin it, add the image's digest to that "
                     "entry (`envlock base inspect IMAGE.tar --ref %s@sha256:...` writes the "
                     "entry with it from a `docker save` of the image) and resolve again with "
                     "that catalog (--bases)",
                     image, image, image);
}

/* FROM the image by digest, else by its tag with the comment saying why. */
static void df_from_image(strbuf *sb, const plan_facts *f)
{
    plan_image im;  /* the one choice of FROM, which the SBOM's root also names */
    plan_variant_from(f->in, "daytona", &im);
    sb_adds(sb, "# Built on the spec's image, not the approved base: the contract's user\n"
                "# is made below when missing; the doctor and the base's wheelhouse come\n"
                "# from the build context (`" PLAN_DOCTOR_CONTEXT "`, `" PLAN_WHEELHOUSE_CONTEXT
                "`), supplied by\n# the build service.\n");
    if (!im.digest)
        sb_adds(sb, "# Not pinned by a digest, so a later build may start from another image:\n"
                    "# the lock records none for it (the bases catalog's `images:` entry has no\n"
                    "# `digest:`). Add it there and resolve again to pin it.\n");
    sb_addf(sb, "FROM %s\n", im.from);
    plan_image_release(&im);
}

/* header, FROM the image, labels, installs (pip), the doctor, the user,
 * files, postInstall, the doctor's run. */
static void image_build(const plan_facts *f, plan_files *out)
{
    const plan_df_style st = { .buildkit = false, .pip = true, .user = PLAN_USER_IDS,
                               .conda_create = true, .wheelhouse = true };
    strbuf sb = STRBUF_INIT;
    plan_df_header(&sb, f, "daytona");
    df_from_image(&sb, f);
    plan_df_labels(&sb, f);
    plan_df_installs(&sb, f, &st);
    plan_df_foreign_tail(&sb, f, &st);
    size_t len;
    char *t = sb_detach(&sb, &len);
    plan_files_add(out, "Dockerfile", t, len);
}

void plan_daytona_files(const plan_facts *f, plan_files *out)
{
    const char *image = image_of(f);
    if (image) {
        image_build(f, out);
        return;
    }
    const plan_df_style st = { .buildkit = false, .pip = f->pip, .user = PLAN_USER_IDS };
    plan_df_base_build(f, "daytona", &st, out);
}

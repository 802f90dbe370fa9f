/* plan_datalayer.c — the datalayer variant (REFERENCE §7): a BuildKit
 * Dockerfile from the lock's datalayer base digest, which Datalayer's build
 * service builds with the build args DL_ENVIRONMENT_UID, DL_VERSION and
 * DL_BUILD_UID, the spec's baked files at files/<i> of the context and the
 * build secrets the postInstall commands name. It owns this variant's
 * refusals and the Dockerfile's order of steps; the steps themselves and
 * the context files are plan_common.c's. */
#include <string.h>

#include "plan_internal.h"

bool plan_datalayer_refuse(const plan_facts *f, plan_refusal *r)
{
    return plan_refuse_common(f, "the datalayer builder", r) ||
           plan_refuse_image_source(f, "datalayer",
                                    "envlock does not write the datalayer builder's image path "
                                    "yet (the wheelhouse it imports and the uv it installs "
                                    "first)", r) ||
           plan_refuse_copy_paths(f, "the datalayer builder", r) ||
           plan_refuse_secret_env_names(f, r) ||
           plan_refuse_gpu(f, "and the datalayer variant has none (D-20)",
                           "or build the GPU classes for modal or daytona on a CUDA base", r) ||
           plan_refuse_no_base(f, "datalayer", r);
}

void plan_datalayer_files(const plan_facts *f, plan_files *out)
{
    const plan_df_style st = { .buildkit = true, .pip = f->pip, .user = PLAN_USER_IDS,
                               .micromamba_image = true };
    plan_df_base_build(f, "datalayer", &st, out);
}

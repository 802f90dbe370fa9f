/* plan_daytona.c — the daytona variant (REFERENCE §7): a Dockerfile the
 * Daytona snapshot builder takes, from the lock's daytona base digest (the
 * doctor is in that base). The same steps as datalayer's, without what only
 * BuildKit reads (no cache mount, no --network=none, no secret mount:
 * Daytona has no per-step secrets, so a spec with build secrets is refused).
 * It owns this variant's refusals and order of steps. */
#include <string.h>

#include "plan_internal.h"

bool plan_daytona_refuse(const plan_facts *f, plan_refusal *r)
{
    return plan_refuse_common(f, "the Daytona builder", r) ||
           plan_refuse_copy_paths(f, "the Daytona builder", r) ||
           plan_refuse_secrets(f,
                               "Daytona has no per-step secret mechanism: a build secret cannot "
                               "be mounted on only the postInstall commands that name it. Remove "
                               "`spec.buildSecrets`, or drop `daytona` from the optional variants",
                               r) ||
           plan_refuse_gpu_without_cuda(f, "and this base has no CUDA for the Daytona builder to use",
                                        "choose a CUDA base, or drop `daytona` from the optional variants", r) ||
           plan_refuse_no_base(f, "daytona", r);
}

void plan_daytona_files(const plan_facts *f, plan_files *out)
{
    const plan_df_style st = { .buildkit = false, .pip = f->pip, .user = PLAN_USER_IDS };
    plan_df_base_build(f, "daytona", &st, out);
}

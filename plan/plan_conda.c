/* plan_conda.c — the install step of a conda environment (an
 * environment.yml's lock), for every variant: micromamba brought into the
 * build, the lock's conda packages installed from conda-explicit.txt
 * without solving, into the prefix whose python the sandbox runs. The
 * pip layer that follows is the ordinary hash-checked Python step
 * (plan_python_cmd(), pointed at that prefix's python). The explicit file
 * itself is plan_export_conda.c's; this file only writes commands and
 * Dockerfile lines, and does no I/O. */
#include "plan_internal.h"

/* The reference's bootstrap for builders driving an SDK (E2B, Daytona,
 * Modal): the pinned release from micromamba's own download service. */
void plan_micromamba_fetch_cmd(strbuf *sb)
{
    sb_adds(sb, "curl -fsSL https://micro.mamba.pm/api/micromamba/linux-64/" PLAN_MICROMAMBA_VERSION
                " | tar -xj -C /usr/local/bin --strip-components=1 bin/micromamba");
}

/* `install` into the base's prefix, never `create`: create would replace
 * the prefix, and with it what the base carries there (the doctor's and
 * the kernel's packages, the Python packages the lock marks as already in
 * the base and leaves out of the pip layer). Both prefixes are named so
 * nothing depends on the user the step runs as or on MAMBA_ROOT_PREFIX.
 * An explicit file is installed as listed: micromamba solves nothing. */
void plan_conda_cmd(strbuf *sb, bool create)
{
    sb_addf(sb, "%s %s --yes --root-prefix " PLAN_CONDA_PREFIX " --prefix " PLAN_CONDA_PREFIX
                " --file " PLAN_OPT "/conda-explicit.txt && %s clean --all --yes",
            PLAN_MICROMAMBA, create ? "create" : "install", PLAN_MICROMAMBA);
}

void plan_df_conda(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    if (!f->n_conda)
        return;
    sb_adds(sb, "COPY conda-explicit.txt " PLAN_OPT "/conda-explicit.txt\n");
    if (st->micromamba_image) {
        sb_adds(sb, "COPY --from=" PLAN_MICROMAMBA_IMAGE " /bin/micromamba " PLAN_MICROMAMBA "\n");
    } else {
        sb_adds(sb, "RUN ");
        plan_micromamba_fetch_cmd(sb);
        sb_addc(sb, '\n');
    }
    sb_adds(sb, "RUN ");
    plan_conda_cmd(sb, st->conda_create);
    sb_addc(sb, '\n');
}

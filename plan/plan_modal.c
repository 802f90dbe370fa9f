/* plan_modal.c — the modal variant (REFERENCE §7): `modal_image.py`, a
 * Python 3 module (stdlib and `modal` only) whose image(registry,
 * ecr_secret_name) returns the modal.Image of the plan, built from the
 * lock's modal base digest pulled from ECR. The same steps as the
 * Dockerfiles, as Image method calls, with no USER (Modal ignores it) and
 * the entrypoint Modal needs. It owns this variant's refusals and the
 * module's text; every value put into the module goes through
 * plan_py_str(), so any spec value gives a module Python parses. */
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"

static bool refuse_instruction(const plan_facts *f, plan_refusal *r)
{
    static const char *const REFUSED[] = { "ONBUILD", "STOPSIGNAL", "VOLUME" };
    for (size_t i = 0; i < f->spec->n_post_install; i++) {
        const plan_command *c = &f->spec->post_install[i];
        char word[16];
        plan_first_word_upper(c->text ? c->text : "", word, sizeof word);
        for (size_t k = 0; k < sizeof REFUSED / sizeof REFUSED[0]; k++)
            if (strcmp(word, REFUSED[k]) == 0)
                return plan_refusal_set(r, c->at,
                                        "`%s` is not supported by the Modal builder. Remove it, "
                                        "or drop `modal` from the optional variants", word);
    }
    return false;
}

bool plan_modal_refuse(const plan_facts *f, plan_refusal *r)
{
    return plan_refuse_common(f, "the Modal builder", r) || refuse_instruction(f, r) ||
           plan_refuse_secrets(f,
                               "the Modal builder mounts no build secrets yet: a build secret "
                               "cannot reach the postInstall commands that name it. Remove "
                               "`spec.buildSecrets`, or drop `modal` from the optional variants",
                               r) ||
           plan_refuse_gpu_without_cuda(f, "and this base has no CUDA for the Modal builder to use",
                                        "choose a CUDA base, or drop `modal` from the optional variants", r) ||
           plan_refuse_regions(f,
                               "Modal is regionless here: the builder places each sandbox "
                               "itself, so `spec.compatibility.regions` cannot be honoured. "
                               "Remove the regions, or drop `modal` from the optional variants",
                               r) ||
           plan_refuse_no_base(f, "modal", r);
}

/* ---- the module's text ---- */

#define CHAIN "        ."

static void run_command(strbuf *sb, const char *cmd)
{
    sb_adds(sb, CHAIN "run_commands(");
    plan_py_str(sb, cmd);
    sb_adds(sb, ")\n");
}

/* .add_local_file(HERE / "a" [/ "b"], "remote", copy=True) */
static void add_file(strbuf *sb, const char *local, const char *sub, const char *remote)
{
    sb_adds(sb, CHAIN "add_local_file(HERE / ");
    plan_py_str(sb, local);
    if (sub) {
        sb_adds(sb, " / ");
        plan_py_str(sb, sub);
    }
    sb_adds(sb, ", ");
    plan_py_str(sb, remote);
    sb_adds(sb, ", copy=True)\n");
}

static void env_call(strbuf *sb, const ptrvec *env)
{
    if (!env->len)
        return;
    sb_adds(sb, CHAIN "env(\n            {\n");
    for (size_t i = 0; i < env->len; i++) {
        const plan_env *e = env->items[i];
        sb_adds(sb, "                ");
        plan_py_str(sb, e->key);
        sb_adds(sb, ": ");
        plan_py_str(sb, e->value);
        sb_adds(sb, ",\n");
    }
    sb_adds(sb, "            }\n        )\n");
}

/* Modal's apt_install runs a bare `apt-get update && apt-get install -y`.
 * For the lock's exact closure it must read only the locked sources and
 * install no recommends, as the Dockerfiles' apt step does: an apt.conf.d
 * file says so for the duration of the step and is removed after it. */
#define APT_CONF "/etc/apt/apt.conf.d/00datalayer-lock"

static void apt_steps(strbuf *sb, const plan_facts *f)
{
    static const char *const CONF[] = {
        "Dir::Etc::SourceList \"" PLAN_OPT "/apt-sources.list\";",
        "Dir::Etc::SourceParts \"-\";",
        "APT::Install-Recommends \"false\";",
        "APT::Install-Suggests \"false\";",
    };
    if (!f->debs.len)
        return;
    add_file(sb, "apt-sources.list", NULL, PLAN_OPT "/apt-sources.list");
    add_file(sb, "apt-packages.txt", NULL, PLAN_OPT "/apt-packages.txt");
    strbuf cmd = STRBUF_INIT;
    sb_adds(&cmd, "printf '%s\\n'");
    for (size_t i = 0; i < sizeof CONF / sizeof CONF[0]; i++) {
        sb_addc(&cmd, ' ');
        plan_sh_quote(&cmd, CONF[i]);
    }
    sb_adds(&cmd, " > " APT_CONF);
    run_command(sb, cmd.buf);
    sb_release(&cmd);
    sb_adds(sb, CHAIN "apt_install(\n");
    plan_apt_pins(sb, f, "            ", plan_py_str, ",\n");
    sb_adds(sb, "        )\n");
    run_command(sb, "rm -f " APT_CONF " && rm -rf /var/lib/apt/lists/*");
}

/* A conda environment: micromamba fetched (Modal's own micromamba_install
 * needs an image built from Image.micromamba(), not this base), then the
 * explicit file installed into the base's prefix. */
static void conda_steps(strbuf *sb, const plan_facts *f)
{
    if (!f->n_conda)
        return;
    add_file(sb, "conda-explicit.txt", NULL, PLAN_OPT "/conda-explicit.txt");
    strbuf cmd = STRBUF_INIT;
    plan_micromamba_fetch_cmd(&cmd);
    run_command(sb, cmd.buf);
    sb_reset(&cmd);
    plan_conda_cmd(&cmd, false);
    run_command(sb, cmd.buf);
    sb_release(&cmd);
}

static void python_steps(strbuf *sb, const plan_facts *f)
{
    add_file(sb, "lock.txt", NULL, PLAN_OPT "/lock.txt");
    add_file(sb, "expected-packages.json", NULL, PLAN_OPT "/expected-packages.json");
    conda_steps(sb, f);
    if (!f->n_pypi_installs)
        return;
    add_file(sb, "requirements.txt", NULL, PLAN_OPT "/requirements.txt");
    strbuf cmd = STRBUF_INIT;
    plan_python_cmd(&cmd, f, f->pip, true);
    run_command(sb, cmd.buf);
    sb_release(&cmd);
}

static void npm_steps(strbuf *sb, const plan_facts *f)
{
    if (!f->npm_registry)
        return;
    add_file(sb, "package.json", NULL, PLAN_OPT "/node/package.json");
    add_file(sb, "package-lock.json", NULL, PLAN_OPT "/node/package-lock.json");
    strbuf cmd = STRBUF_INIT;
    plan_npm_cmd(&cmd, f);
    run_command(sb, cmd.buf);
    sb_release(&cmd);
    sb_adds(sb, CHAIN "env({\"NODE_PATH\": \"" PLAN_OPT "/node/node_modules\"})\n");
}

/* The baked files come from files/<i> beside the module, which the build
 * service fills from each spec.files[i] contentRef. */
static void content_steps(strbuf *sb, const plan_facts *f)
{
    sb_adds(sb, CHAIN "workdir(\"" PLAN_CONTENT_DIR "\")\n");
    for (size_t i = 0; i < f->spec->n_files; i++) {
        char idx[24];
        snprintf(idx, sizeof idx, "%zu", i);
        const char *path = f->spec->files[i].path ? f->spec->files[i].path : "";
        add_file(sb, "files", idx, path);
    }
    for (size_t i = 0; i < f->spec->n_post_install; i++) {
        const char *cmd = f->spec->post_install[i].text;
        run_command(sb, cmd ? cmd : "");
    }
    run_command(sb, PLAN_DOCTOR);
}

static void module_head(strbuf *sb, const plan_facts *f)
{
    plan_image im;  /* the one choice of image, which the SBOM's root also names */
    plan_variant_from(f->in, "modal", &im);
    sb_adds(sb, "# modal_image.py: the Modal image of environment `");
    plan_comment_text(sb, f->name);
    sb_addf(sb, "` (modal variant).\n# Lock: %s\n", f->in->lock_digest ? f->in->lock_digest : "");
    sb_adds(sb, "# Generated by envlock from the lock above; do not edit: a new lock makes a "
                "new plan.\n# The files it adds (lock.txt, requirements.txt, ...) sit beside "
                "it; files/<i> are\n# supplied by the build service from each spec.files "
                "contentRef.\nimport pathlib\n\nimport modal\n\nREPOSITORY = ");
    plan_py_str(sb, im.name);
    sb_adds(sb, "\nDIGEST = ");
    plan_py_str(sb, im.digest ? im.digest : "");
    sb_adds(sb, "\nLOCK_DIGEST = ");
    plan_py_str(sb, f->in->lock_digest ? f->in->lock_digest : "");
    sb_adds(sb, "\nMODAL_IMAGE_BUILDER_VERSION = \"2025.06\"\n\n"
                "HERE = pathlib.Path(__file__).resolve().parent\n\n\n");
    plan_image_release(&im);
}

static char *module_text(const plan_facts *f, size_t *len)
{
    strbuf sb = STRBUF_INIT;
    module_head(&sb, f);
    sb_adds(&sb, "def image(registry, ecr_secret_name):\n"
                 "    \"\"\"The modal.Image of this plan, from the base in `registry`, pulled\n"
                 "    with the Modal secret named `ecr_secret_name`.\"\"\"\n"
                 "    return (\n"
                 "        modal.Image.from_aws_ecr(\n"
                 "            f\"{registry}/{REPOSITORY}@{DIGEST}\",\n"
                 "            secret=modal.Secret.from_name(ecr_secret_name),\n"
                 "        )\n");
    env_call(&sb, &f->env);
    apt_steps(&sb, f);
    python_steps(&sb, f);
    npm_steps(&sb, f);
    content_steps(&sb, f);
    sb_adds(&sb, CHAIN "entrypoint([\"/bin/sh\", \"-c\", \"exec $0 $@\"])\n    )\n");
    return sb_detach(&sb, len);
}

void plan_modal_files(const plan_facts *f, plan_files *out)
{
    size_t len;
    char *t = module_text(f, &len);
    plan_files_add(out, "modal_image.py", t, len);
}

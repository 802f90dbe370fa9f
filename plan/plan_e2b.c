/* plan_e2b.c — the e2b variant (REFERENCE §7): an E2B template built from
 * E2B's `code-interpreter-v1` template rather than the Datalayer base, as
 * `e2b.Dockerfile` plus `template.json` (the name and tag formats the build
 * service fills in). The base is E2B's, so the Python step always uses pip
 * (the base has pip, not necessarily uv), the sandbox user is created when
 * the base lacks it, and the doctor, which that base does not carry, comes
 * from the build context (the zipapp `datalayer-sandbox`, which the build
 * service supplies as it supplies files/<i>) before it runs as the last
 * step. The base's protected Python stack, which E2B's image lacks, is
 * installed from the base's wheelhouse in the build context (REFERENCE §7:
 * e2b copies the wheelhouse and the lock), as on a spec's own image. A
 * conda environment is made at /opt/conda (that image has no
 * conda prefix) and its bin put first on PATH, so its python is the
 * sandbox's. It owns this variant's refusals and its two files.
 *
 * FROM is that template's image, PLAN_E2B_IMAGE. The lock holds no digest
 * of it (the base's e2b digest is the Datalayer base's), so it is pinned
 * only by the digest the bases catalog's `images:` entry for it records;
 * without one the tag stays and the Dockerfile and the plan's note say
 * why, and what to add to pin it. */
#include <string.h>

#include <json-c/json.h>

#include "plan_internal.h"

#define E2B_TEMPLATE "code-interpreter-v1"
#define E2B_DOCTOR_CONTEXT PLAN_DOCTOR_CONTEXT /* in the build context, from the build service */

static bool refuse_home(const plan_facts *f, plan_refusal *r)
{
    for (size_t i = 0; i < f->spec->n_env; i++)
        if (strcmp(f->spec->env[i].key, "HOME") == 0)
            return plan_refusal_set(r, f->spec->env[i].at,
                                    "E2B sets the sandbox's HOME itself: remove `HOME` from "
                                    "`spec.env`, or drop `e2b` from the optional variants");
    return false;
}

bool plan_e2b_refuse(const plan_facts *f, plan_refusal *r)
{
    return plan_refuse_common(f, "the E2B builder", r) ||
           plan_refuse_image_source(f, "e2b", "E2B builds every template from its own `"
                                    E2B_TEMPLATE "` template, never from another image", r) ||
           plan_refuse_copy_paths(f, "the E2B builder", r) || refuse_home(f, r) ||
           plan_refuse_gpu(f, "and E2B has no GPU",
                           "or build the GPU classes for modal or daytona on a CUDA base", r) ||
           plan_refuse_secrets(f,
                               "E2B has no per-step secret mechanism: a build secret cannot be "
                               "mounted on only the postInstall commands that name it. Remove "
                               "`spec.buildSecrets`, or drop `e2b` from the optional variants",
                               r) ||
           plan_refuse_regions(f,
                               "E2B is regionless: it places each sandbox itself, so "
                               "`spec.compatibility.regions` cannot be honoured. Remove the "
                               "regions, or drop `e2b` from the optional variants",
                               r);
}

static const plan_env E2B_ENV[] = {
    { "LC_ALL", "C.UTF-8", { NULL, 0, 0 } },
    { "LANG", "C.UTF-8", { NULL, 0, 0 } },
};

/* FROM's reference: the repository at the catalog's digest (a validated
 * "sha256:<64 hex>"), else the tag (plan_variant_from(), which the SBOM's
 * root is also named from). Caller frees. */
static char *from_reference(const plan_input *in)
{
    plan_image im;
    plan_variant_from(in, "e2b", &im);
    char *ref = im.from;
    im.from = NULL;
    plan_image_release(&im);
    return ref;
}

static void df_from(strbuf *sb, const plan_facts *f)
{
    sb_adds(sb, "# The template is built from E2B's `" E2B_TEMPLATE "` template, whose image\n"
                "# this is; E2B pins the result by its template build id, the immutable\n"
                "# reference of the build.\n");
    if (f->in->e2b_image_digest)
        sb_adds(sb, "# " PLAN_E2B_IMAGE ", pinned by the digest the bases catalog's\n"
                    "# `images:` entry for it records.\n");
    else
        sb_adds(sb, "# Not pinned by a digest, so a later build may start from another image:\n"
                    "# the bases catalog has no `images:` entry `" PLAN_E2B_IMAGE "`\n"
                    "# with a `digest:` (the base's e2b digest is the Datalayer base's, not\n"
                    "# this image's). Add that entry and plan with that catalog (--bases)\n"
                    "# to pin it.\n");
    char *ref = from_reference(f->in);
    sb_addf(sb, "FROM %s\n", ref);
    free(ref);
}

char *plan_e2b_note(const plan_input *in)
{
    if (in->e2b_image_digest)
        return NULL;
    return xstrdup("e2b: e2b.Dockerfile builds FROM " PLAN_E2B_IMAGE ", a floating tag, "
                   "not pinned by a digest: the bases catalog has no `images:` entry `"
                   PLAN_E2B_IMAGE "` with a `digest:` (the base's e2b digest is the Datalayer "
                   "base's, not this image's). To pin it, add that entry (`envlock base inspect "
                   "IMAGE.tar --ref " PLAN_E2B_REPOSITORY "@sha256:...` writes one from a "
                   "`docker save` of the image) and plan with that catalog (--bases)");
}

static char *dockerfile(const plan_facts *f, size_t *len)
{
    const plan_df_style st = { .buildkit = false, .pip = true, .user = "datalayer",
                               .extra_env = E2B_ENV, .n_extra_env = 2, .conda_create = true,
                               .wheelhouse = true };
    strbuf sb = STRBUF_INIT;
    plan_df_header(&sb, f, "e2b");
    df_from(&sb, f);
    plan_df_installs(&sb, f, &st);
    plan_df_foreign_tail(&sb, f, &st);
    return sb_detach(&sb, len);
}

static char *template_json(const plan_facts *f, size_t *len)
{
    json_object *o = json_object_new_object();
    json_object *ctx = json_object_new_array();
    json_object_array_add(ctx, json_object_new_string(E2B_DOCTOR_CONTEXT));
    for (size_t i = 0; i < f->pypi.len; i++)
        if (plan_from_wheelhouse(f->pypi.items[i])) { /* the Dockerfile copies it */
            json_object_array_add(ctx, json_object_new_string(PLAN_WHEELHOUSE_CONTEXT));
            break;
        }
    json_object_object_add(o, "contextFromBuildService", ctx);
    json_object_object_add(o, "dockerfile", json_object_new_string("e2b.Dockerfile"));
    char *from = from_reference(f->in);
    json_object_object_add(o, "fromImage", json_object_new_string(from));
    free(from);
    json_object_object_add(o, "fromTemplate", json_object_new_string(E2B_TEMPLATE));
    json_object_object_add(o, "lock",
                           json_object_new_string(f->in->lock_digest ? f->in->lock_digest : ""));
    json_object_object_add(o, "maxBuildMinutes", json_object_new_int(20));
    char *name = xasprintf("dl-%s", f->name);
    char *name_fmt = xasprintf("dl-%s-v{version}", f->name);
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "nameFormat", json_object_new_string(name_fmt));
    json_object_object_add(o, "tagFormat", json_object_new_string("v{version}-{buildUid}"));
    char *t = plan_json_text(o, len);
    free(name);
    free(name_fmt);
    json_object_put(o);
    return t;
}

void plan_e2b_files(const plan_facts *f, plan_files *out)
{
    size_t len;
    char *t = dockerfile(f, &len);
    plan_files_add(out, "e2b.Dockerfile", t, len);
    t = template_json(f, &len);
    plan_files_add(out, "template.json", t, len);
}

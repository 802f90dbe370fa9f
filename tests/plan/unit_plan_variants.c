/* unit_plan_variants.c — cmocka tests of the variant generators
 * (plan_common.c, plan_datalayer.c, plan_e2b.c, plan_daytona.c,
 * plan_modal.c): every refusal of every variant with its field and order;
 * the exact bytes of the datalayer Dockerfile and of the small files for a
 * small hand-made lock (tests/plan/data/variants-small.lock) and spec,
 * worked out by hand from the rules of plan/README.md and REFERENCE §7;
 * that every install step installs only what the lock holds (the apt pins
 * are exactly the lock's installed debs); determinism; and, with the real
 * /usr/bin/python3 and /bin/sh, that the escapers are right for nasty
 * values and that modal_image.py imports and builds the expected call
 * chain against a recording `modal` stand-in.
 *
 * `unit_plan_variants write DIR` instead writes every variant's plan of
 * tests/plan/data/variants-demo.lock under DIR/demo/<variant>/ and of
 * variants-small.lock under DIR/small/<variant>/ (for checkers outside C). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lock.h"
#include "plan.h"
#include "plan_internal.h"

#define DIGEST_A "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST_2 "sha256:2222222222222222222222222222222222222222222222222222222222222222"
#define DIGEST_3 "sha256:3333333333333333333333333333333333333333333333333333333333333333"
#define DIGEST_4 "sha256:4444444444444444444444444444444444444444444444444444444444444444"
#define SHA_AB "abababababababababababababababababababababababababababababababab"

static const char *const VARIANT_NAMES[] = { "datalayer", "e2b", "daytona", "modal" };

/* ---- fixtures ---- */

static lock_doc *load_lock(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PLAN_TEST_DIR, name);
    size_t len = 0;
    char *text = read_file(path, 1 << 24, &len);
    assert_non_null(text);
    el_ctx *ctx = el_ctx_new();
    lock_doc *d = lock_read_text(ctx, text, len);
    if (!d)
        fail_msg("%s: %s", name, el_ctx_message(ctx));
    el_ctx_free(ctx);
    free(text);
    return d;
}

/* A spec and the arrays it points into. */
typedef struct fixture {
    plan_spec spec;
    plan_env env[8];
    plan_file files[2];
    plan_command cmds[10];
    plan_secret secrets[2];
    const char *regions[2];
    lock_doc *lock;
    plan_input in;
} fixture;

static plan_pos pos(const char *field, unsigned line)
{
    return (plan_pos){ field, line, 3 };
}

/* A spec every variant accepts: nothing beyond the defaults. */
static void fixture_init(fixture *fx, const char *lock_name)
{
    memset(fx, 0, sizeof *fx);
    fx->spec.name = "small-env";
    fx->spec.manager = "uv";
    fx->spec.manager_at = pos("spec.packages.python.manager", 10);
    fx->spec.build_source_at = pos("spec.build.source", 11);
    fx->spec.architecture_at = pos("spec.platform.architecture", 12);
    fx->spec.size_class_at = pos("spec.resources.sizeClass", 13);
    fx->spec.accelerator_at = pos("spec.resources.accelerator", 14);
    fx->spec.regions_at = pos("spec.compatibility.regions", 15);
    fx->spec.secrets_at = pos("spec.buildSecrets", 16);
    fx->spec.env = fx->env;
    fx->spec.files = fx->files;
    fx->spec.post_install = fx->cmds;
    fx->spec.secrets = fx->secrets;
    fx->lock = load_lock(lock_name);
    fx->in.lock = fx->lock;
    fx->in.lock_digest = DIGEST_A;
    fx->in.spec = &fx->spec;
    fx->in.python_minor = "3.13";
    fx->in.base_repository = "environments/base/python-cpu";
    fx->in.resolved_at = "2026-09-14T15:00:00+00:00";
}

static void fixture_done(fixture *fx)
{
    lock_doc_free(fx->lock);
}

static void add_env(fixture *fx, const char *key, const char *value)
{
    plan_env *e = &fx->env[fx->spec.n_env++];
    e->key = key;
    e->value = value;
    e->at = pos(key, 20 + (unsigned)fx->spec.n_env); /* field is the key: easy to check */
}

static void add_cmd(fixture *fx, const char *text)
{
    plan_command *c = &fx->cmds[fx->spec.n_post_install];
    c->text = text;
    c->at = pos("spec.commands.postInstall[i]", 30 + (unsigned)fx->spec.n_post_install);
    fx->spec.n_post_install++;
}

static void add_secret(fixture *fx, const char *id, const char *mount_as, const char *name)
{
    plan_secret *s = &fx->secrets[fx->spec.n_secrets++];
    s->id = id;
    s->mount_as = mount_as;
    s->name = name;
}

/* The full spec of the exact-bytes test. */
static void full_spec(fixture *fx)
{
    add_env(fx, "ZED", "it's $HOME");
    add_env(fx, "ALPHA", "1");
    fx->files[0] = (plan_file){ "/home/datalayer/content/data.csv", "blob://abc", SHA_AB, 12,
                                pos("spec.files[0]", 40) };
    fx->spec.n_files = 1;
    add_cmd(fx, "python3 -c 'import idna'");
    add_cmd(fx, "pip-config --key \"$API_KEY\"");
    add_cmd(fx, "cp /run/secrets/netrc ~/.netrc");
    add_cmd(fx, "[ -d /tmp ] && echo ok");
    add_secret(fx, "dlsec_abc", "env", "API_KEY");
    add_secret(fx, "dlsec_def", "file", "netrc");
    fx->in.base_registry = "registry.example:5000";
}

static const plan_out_file *find_file(const plan_files *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].name, name) == 0)
            return &f->v[i];
    return NULL;
}

static const char *text_of(const plan_files *f, const char *name)
{
    const plan_out_file *o = find_file(f, name);
    if (!o)
        fail_msg("no %s in the plan", name);
    return o->data;
}

static const char *main_file(const char *variant)
{
    if (strcmp(variant, "e2b") == 0)
        return "e2b.Dockerfile";
    if (strcmp(variant, "modal") == 0)
        return "modal_image.py";
    return "Dockerfile";
}

/* ---- refusals: one test per refusal per variant ---- */

typedef struct refusal_case {
    const char *variant;
    void (*mutate)(fixture *fx);
    const char *lock;    /* NULL: variants-small.lock */
    const char *field;
    unsigned line;       /* 0: not checked */
    const char *phrase;  /* the message contains it */
} refusal_case;

static void m_source(fixture *fx) { fx->spec.build_source = "dockerfile"; }
static void m_manager(fixture *fx) { fx->spec.manager = "conda"; }
static void m_arch(fixture *fx) { fx->spec.architecture = "linux/arm64"; }
static void m_class(fixture *fx) { fx->spec.size_class = "huge"; }
static void m_gpu(fixture *fx) { fx->spec.size_class = "gpu-small"; fx->spec.accelerator = true; }
static void m_gpu_large(fixture *fx) { fx->spec.size_class = "gpu-large"; }
static void m_accel(fixture *fx) { fx->spec.accelerator = true; }
static void m_home(fixture *fx) { add_env(fx, "A", "1"); add_env(fx, "HOME", "/root"); }
static void m_secret(fixture *fx)
{
    add_cmd(fx, "echo $TOKEN_X");
    add_secret(fx, "dlsec_1", "env", "TOKEN_X");
}
static void m_regions(fixture *fx)
{
    fx->regions[0] = "r1";
    fx->spec.regions = fx->regions;
}
static void m_volume(fixture *fx) { add_cmd(fx, "echo ok"); add_cmd(fx, "  VOLUME /data"); }
static void m_onbuild(fixture *fx) { add_cmd(fx, "onbuild RUN x"); }
static void m_stopsignal(fixture *fx) { add_cmd(fx, "StopSignal\tSIGKILL"); }
static void m_image(fixture *fx)
{
    fx->spec.build_source = "image";
    fx->spec.build_image = "python:3.11-slim";
}
/* a DataGen recipe's: the verb names its `baseImage` (verb_plan.c) */
static void m_recipe_image(fixture *fx)
{
    m_image(fx);
    fx->spec.build_source_at.field = "baseImage";
}
/* Order: the first refusal in §7's order wins. */
static void m_manager_and_gpu(fixture *fx) { m_gpu(fx); m_manager(fx); }
static void m_source_and_manager(fixture *fx) { m_manager(fx); m_source(fx); }
static void m_home_and_gpu(fixture *fx) { m_gpu(fx); m_home(fx); }
static void m_gpu_and_secret(fixture *fx) { m_secret(fx); m_gpu(fx); }
static void m_secret_and_regions(fixture *fx) { m_regions(fx); m_secret(fx); }
static void m_volume_and_secret(fixture *fx) { m_secret(fx); m_volume(fx); }
static void m_secret_and_gpu(fixture *fx) { m_gpu(fx); m_secret(fx); }

#define SRC "spec.build.source"
#define MGR "spec.packages.python.manager"
#define ARCH "spec.platform.architecture"
#define CLS "spec.resources.sizeClass"
#define ACC "spec.resources.accelerator"
#define SEC "spec.buildSecrets"
#define REG "spec.compatibility.regions"
#define CMD "spec.commands.postInstall[i]"
#define VARS "spec.compatibility.variants"
#define DEMO "variants-demo.lock"

#define COMMON_CASES(v, builder)                                                              \
    { v, m_source, NULL, SRC, 11, "`dockerfile` is not buildable from a lock yet" },          \
    { v, m_manager, NULL, MGR, 10, "`conda` is not supported by " builder "; supported: uv, pip" }, \
    { v, m_arch, NULL, ARCH, 12, "`linux/arm64` is not buildable: " builder " builds linux/amd64" }, \
    { v, m_class, NULL, CLS, 13, "`huge` is not a size class; the classes are small, medium" }, \
    { v, m_source_and_manager, NULL, SRC, 11, "`dockerfile`" },                               \
    { v, m_manager_and_gpu, NULL, MGR, 10, "`conda`" }

static const refusal_case REFUSALS[] = {
    COMMON_CASES("datalayer", "the datalayer builder"),
    COMMON_CASES("e2b", "the E2B builder"),
    COMMON_CASES("daytona", "the Daytona builder"),
    COMMON_CASES("modal", "the Modal builder"),
    /* an image source: daytona builds on it, modal on the base; e2b and datalayer refuse */
    { "e2b", m_image, NULL, SRC, 11, "`e2b` cannot build on the image `python:3.11-slim`: E2B builds every template from its own `code-interpreter-v1` template, never from another image. Set `spec.build.source` to `packages`" },
    { "datalayer", m_image, NULL, SRC, 11, "`datalayer` cannot build on the image `python:3.11-slim`: envlock does not write the datalayer builder's image path yet" },
    { "e2b", m_recipe_image, NULL, "baseImage", 11, "remove `baseImage` to build e2b on the approved base" },
    { "datalayer", m_recipe_image, NULL, "baseImage", 11, "A DataGen recipe's `baseImage` is built by daytona" },
    /* datalayer */
    { "datalayer", m_gpu, NULL, CLS, 13, "`gpu-small` needs a GPU, and the datalayer variant has none (D-20)" },
    { "datalayer", m_gpu_large, NULL, CLS, 13, "`gpu-large` needs a GPU" },
    { "datalayer", m_accel, NULL, ACC, 14, "an accelerator needs a GPU, and the datalayer variant has none" },
    /* e2b */
    { "e2b", m_home, NULL, "HOME", 22, "E2B sets the sandbox's HOME itself" },
    { "e2b", m_gpu, NULL, CLS, 13, "E2B has no GPU. Choose small, medium or large, or build the GPU classes for modal or daytona" },
    { "e2b", m_accel, NULL, ACC, 14, "E2B has no GPU. Set `spec.resources.accelerator` to `none`, or build the GPU classes for modal or daytona" },
    { "e2b", m_secret, NULL, SEC, 16, "E2B has no per-step secret mechanism" },
    { "e2b", m_regions, NULL, REG, 15, "E2B is regionless" },
    { "e2b", m_home_and_gpu, NULL, "HOME", 22, "HOME" },
    { "e2b", m_gpu_and_secret, NULL, CLS, 13, "no GPU" },
    { "e2b", m_secret_and_regions, NULL, SEC, 16, "secret" },
    /* daytona */
    { "daytona", m_secret, NULL, SEC, 16, "Daytona has no per-step secret mechanism" },
    { "daytona", m_gpu, NULL, CLS, 13, "`gpu-small` needs a GPU, and this base has no CUDA for the Daytona builder to use. Choose small, medium or large, choose a CUDA base" },
    { "daytona", m_accel, NULL, ACC, 14, "an accelerator needs a GPU, and this base has no CUDA for the Daytona builder" },
    { "daytona", m_secret_and_gpu, NULL, SEC, 16, "secret" },
    { "daytona", NULL, DEMO, VARS, 0, "the lock holds no base digest for the daytona variant" },
    /* modal */
    { "modal", m_volume, NULL, CMD, 31, "`VOLUME` is not supported by the Modal builder. Remove it, or drop `modal` from the optional variants" },
    { "modal", m_onbuild, NULL, CMD, 30, "`ONBUILD` is not supported by the Modal builder" },
    { "modal", m_stopsignal, NULL, CMD, 30, "`STOPSIGNAL` is not supported by the Modal builder" },
    { "modal", m_secret, NULL, SEC, 16, "the Modal builder mounts no build secrets" },
    { "modal", m_gpu, NULL, CLS, 13, "`gpu-small` needs a GPU, and this base has no CUDA for the Modal builder to use" },
    { "modal", m_accel, NULL, ACC, 14, "an accelerator needs a GPU, and this base has no CUDA for the Modal builder" },
    { "modal", m_regions, NULL, REG, 15, "Modal is regionless" },
    { "modal", m_volume_and_secret, NULL, CMD, 32, "`VOLUME`" },
    { "modal", NULL, DEMO, VARS, 0, "the lock holds no base digest for the modal variant" },
};

static void test_refusal(void **state)
{
    const refusal_case *c = *state;
    fixture fx;
    fixture_init(&fx, c->lock ? c->lock : "variants-small.lock");
    if (c->mutate)
        c->mutate(&fx);
    plan_refusal r;
    assert_true(plan_refuse(&fx.in, c->variant, &r));
    assert_non_null(r.message);
    if (!strstr(r.message, c->phrase))
        fail_msg("%s: \"%s\" lacks \"%s\"", c->variant, r.message, c->phrase);
    assert_non_null(r.at.field);
    assert_string_equal(r.at.field, c->field);
    if (c->line)
        assert_int_equal(r.at.line, c->line);
    plan_refusal_clear(&r);
    assert_null(r.message);
    fixture_done(&fx);
}

/* The spec of the exact-bytes test is accepted where it should be: the
 * datalayer variant (secrets and all), and every variant without secrets. */
/* A GPU spec on a CUDA base: daytona and modal can build it; datalayer
 * (no GPU, D-20) and e2b (no GPU) still refuse. */
static void test_gpu_on_cuda_base(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    m_gpu(&fx);
    fx.in.base_cuda = true;
    plan_refusal r;
    assert_false(plan_refuse(&fx.in, "daytona", &r));
    assert_false(plan_refuse(&fx.in, "modal", &r));
    assert_true(plan_refuse(&fx.in, "datalayer", &r));
    assert_string_equal(r.at.field, "spec.resources.sizeClass");
    plan_refusal_clear(&r);
    assert_true(plan_refuse(&fx.in, "e2b", &r));
    assert_non_null(strstr(r.message, "E2B has no GPU"));
    plan_refusal_clear(&r);
    fx.in.base_cuda = false;
    assert_true(plan_refuse(&fx.in, "daytona", &r));
    plan_refusal_clear(&r);
    fixture_done(&fx);
}

/* A lock resolved for another architecture cannot be planned (the contract
 * is linux/amd64), whatever the spec's own field says. */
static void test_lock_arch(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    ((lock_doc *)fx.in.lock)->arch = "arm64";
    fx.spec.channel_at = (plan_pos){ "spec.base.channel", 9, 14 };
    for (size_t i = 0; i < 4; i++) {
        plan_refusal r;
        assert_true(plan_refuse(&fx.in, VARIANT_NAMES[i], &r));
        assert_string_equal(r.at.field, "spec.base.channel");
        assert_int_equal(r.at.line, 9);
        if (!strstr(r.message, "resolved for arm64"))
            fail_msg("%s: %s", VARIANT_NAMES[i], r.message);
        plan_refusal_clear(&r);
    }
    fixture_done(&fx);
}

static void test_accepted(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    full_spec(&fx);
    plan_refusal r;
    assert_false(plan_refuse(&fx.in, "datalayer", &r));
    assert_null(r.message);
    assert_true(plan_refuse(&fx.in, "e2b", &r)); /* buildSecrets */
    plan_refusal_clear(&r);
    fx.spec.n_secrets = 0;
    for (size_t i = 0; i < 4; i++) {
        if (plan_refuse(&fx.in, VARIANT_NAMES[i], &r))
            fail_msg("%s refused: %s", VARIANT_NAMES[i], r.message);
    }
    assert_true(plan_refuse(&fx.in, "lambda", &r));
    assert_non_null(strstr(r.message, "`lambda` is not a variant"));
    plan_refusal_clear(&r);
    for (size_t i = 0; i < 4; i++)
        assert_true(plan_variant_known(VARIANT_NAMES[i]));
    assert_false(plan_variant_known("Datalayer"));
    assert_false(plan_variant_known(NULL));
    fixture_done(&fx);
}

/* ---- exact bytes ---- */

static const char DATALAYER_DOCKERFILE[] =
    "# syntax=docker/dockerfile:1.7\n"
    "# Environment: small-env (datalayer variant)\n"
    "# Lock: " DIGEST_A "\n"
    "# Generated by envlock from the lock above; do not edit: a new lock makes a new plan.\n"
    "FROM registry.example:5000/environments/base/python-cpu@" DIGEST_2 "\n"
    "ARG DL_ENVIRONMENT_UID DL_VERSION DL_BUILD_UID\n"
    "LABEL io.datalayer.environment=small-env \\\n"
    "      io.datalayer.uid=${DL_ENVIRONMENT_UID} \\\n"
    "      io.datalayer.version=${DL_VERSION} \\\n"
    "      io.datalayer.build=${DL_BUILD_UID} \\\n"
    "      io.datalayer.lock=" DIGEST_A " \\\n"
    "      io.datalayer.contract=sandbox-contract/v1 \\\n"
    "      io.datalayer.size-class=small\n"
    "ENV ALPHA=1\n"
    "ENV ZED='it'\"'\"'s $HOME'\n"
    "USER root\n"
    "COPY apt-sources.list apt-packages.txt /opt/datalayer/\n"
    "RUN apt-get update -o Dir::Etc::SourceList=/opt/datalayer/apt-sources.list"
    " -o Dir::Etc::SourceParts=- \\\n"
    " && apt-get install -y --no-install-recommends"
    " -o Dir::Etc::SourceList=/opt/datalayer/apt-sources.list -o Dir::Etc::SourceParts=- \\\n"
    "      curl=7.88.1-10+deb12u12 \\\n"
    "      'libssl-dev=3.0.17-1~deb12u2' \\\n"
    " && rm -rf /var/lib/apt/lists/*\n"
    "COPY lock.txt /opt/datalayer/lock.txt\n"
    "COPY expected-packages.json /opt/datalayer/expected-packages.json\n"
    "COPY requirements.txt /opt/datalayer/requirements.txt\n"
    "RUN --mount=type=cache,target=/root/.cache/uv uv pip install --system --no-deps"
    " --require-hashes --index-url https://pypi.org/simple -r /opt/datalayer/requirements.txt\n"
    "USER 1000:100\n"
    "WORKDIR /home/datalayer/content\n"
    "# Context files supplied by the build service from each contentRef:\n"
    "#   files/0 <- blob://abc (sha256 " SHA_AB ")\n"
    "COPY --chown=1000:100 files/0 /home/datalayer/content/data.csv\n"
    "RUN --network=none python3 -c 'import idna'\n"
    "RUN --network=none --mount=type=secret,id=dlsec_abc,uid=1000,gid=100,required=true"
    " export API_KEY=\"$(cat /run/secrets/dlsec_abc)\" && pip-config --key \"$API_KEY\"\n"
    "RUN --network=none --mount=type=secret,id=dlsec_def,uid=1000,gid=100,required=true,"
    "target=/run/secrets/netrc cp /run/secrets/netrc ~/.netrc\n"
    "RUN --network=none [\"/bin/sh\", \"-c\", \"[ -d /tmp ] && echo ok\"]\n"
    "RUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json\n";

static void test_datalayer_bytes(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    full_spec(&fx);
    plan_files out = { 0 };
    plan_variant(&fx.in, "datalayer", &out);
    const plan_out_file *df = find_file(&out, "Dockerfile");
    assert_non_null(df);
    assert_string_equal(df->data, DATALAYER_DOCKERFILE);
    assert_int_equal(df->len, strlen(DATALAYER_DOCKERFILE));
    plan_files_release(&out);
    fixture_done(&fx);
}

/* The same spec with manager pip: only the Python step changes. */
static void test_datalayer_pip(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    full_spec(&fx);
    fx.spec.manager = "pip";
    plan_files out = { 0 };
    plan_variant(&fx.in, "datalayer", &out);
    const char *want = "RUN python3 -m pip install --no-deps --require-hashes --no-cache-dir"
                       " --index-url https://pypi.org/simple -r /opt/datalayer/requirements.txt\n";
    assert_non_null(strstr(text_of(&out, "Dockerfile"), want));
    assert_null(strstr(text_of(&out, "Dockerfile"), "uv pip"));
    assert_null(strstr(text_of(&out, "Dockerfile"), "pip sync"));
    plan_files_release(&out);
    fixture_done(&fx);
}

static const char EXPECTED_SMALL[] =
    "{\n"
    "  \"expected_packages\": {\n"
    "    \"idna\": \"3.10\",\n"
    "    \"ipykernel\": \"7.3.0\"\n"
    "  },\n"
    "  \"lock\": \"" DIGEST_A "\",\n"
    "  \"python\": \"3.13\"\n"
    "}\n";

static const char TEMPLATE_SMALL[] =
    "{\n"
    "  \"contextFromBuildService\": [\n"
    "    \"datalayer-sandbox\",\n"
    "    \"wheelhouse\"\n"
    "  ],\n"
    "  \"dockerfile\": \"e2b.Dockerfile\",\n"
    "  \"fromImage\": \"e2bdev/code-interpreter:latest\",\n"
    "  \"fromTemplate\": \"code-interpreter-v1\",\n"
    "  \"lock\": \"" DIGEST_A "\",\n"
    "  \"maxBuildMinutes\": 20,\n"
    "  \"name\": \"dl-small-env\",\n"
    "  \"nameFormat\": \"dl-small-env-v{version}\",\n"
    "  \"tagFormat\": \"v{version}-{buildUid}\"\n"
    "}\n";

/* Which files each variant writes, in order, and the small ones' bytes. */
static void test_file_sets(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    full_spec(&fx);
    fx.spec.n_secrets = 0;
    static const char *const CONTEXT[] = { "lock.txt", "requirements.txt", "apt-packages.txt",
                                           "apt-sources.list", "expected-packages.json",
                                           "sbom.cdx.json" };
    for (size_t v = 0; v < 4; v++) {
        plan_files out = { 0 };
        plan_variant(&fx.in, VARIANT_NAMES[v], &out);
        size_t k = 0;
        assert_string_equal(out.v[k++].name, main_file(VARIANT_NAMES[v]));
        if (strcmp(VARIANT_NAMES[v], "e2b") == 0)
            assert_string_equal(out.v[k++].name, "template.json");
        for (size_t i = 0; i < sizeof CONTEXT / sizeof CONTEXT[0]; i++) {
            assert_true(k < out.n);
            assert_string_equal(out.v[k++].name, CONTEXT[i]);
        }
        assert_int_equal(k, out.n);
        assert_string_equal(text_of(&out, "expected-packages.json"), EXPECTED_SMALL);
        if (strcmp(VARIANT_NAMES[v], "e2b") == 0)
            assert_string_equal(text_of(&out, "template.json"), TEMPLATE_SMALL);
        plan_files_release(&out);
    }
    fixture_done(&fx);
}

/* Every npm package the project files name is the lock's, at its version
 * (and, in package-lock.json, at its node_modules place). */
static void check_npm_in_lock(const lock_doc *lock, const char *package_json, const char *package_lock)
{
    json_object *pj = json_tokener_parse(package_json), *pl = json_tokener_parse(package_lock);
    json_object *deps, *pkgs;
    assert_non_null(pj);
    assert_non_null(pl);
    assert_true(json_object_object_get_ex(pj, "dependencies", &deps));
    json_object_object_foreach(deps, name, version)
    {
        if (!lock_find(lock, "npm", name, json_object_get_string(version)))
            fail_msg("package.json names %s@%s", name, json_object_get_string(version));
    }
    assert_true(json_object_object_get_ex(pl, "packages", &pkgs));
    size_t seen = 0;
    json_object_object_foreach(pkgs, path, entry)
    {
        json_object *v;
        if (!*path || !json_object_object_get_ex(entry, "version", &v))
            continue;
        bool found = false;
        for (size_t i = 0; i < lock->n_packages && !found; i++) {
            const lock_package *p = &lock->packages[i];
            found = strcmp(p->ecosystem, "npm") == 0 && p->path && strcmp(p->path, path) == 0 &&
                    strcmp(p->version, json_object_get_string(v)) == 0;
        }
        if (!found)
            fail_msg("package-lock.json installs %s@%s", path, json_object_get_string(v));
        seen++;
    }
    assert_true(seen > 0);
    json_object_put(pj);
    json_object_put(pl);
}

/* The demo lock has npm packages too: package.json and package-lock.json,
 * and the npm step. */
static void test_npm_files(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, DEMO);
    plan_files out = { 0 };
    plan_variant(&fx.in, "datalayer", &out);
    check_npm_in_lock(fx.lock, text_of(&out, "package.json"), text_of(&out, "package-lock.json"));
    const char *df = text_of(&out, "Dockerfile");
    assert_non_null(strstr(df, "COPY package.json package-lock.json /opt/datalayer/node/\n"
                               "RUN cd /opt/datalayer/node && npm ci --ignore-scripts --no-audit"
                               " --no-fund --registry https://registry.npmjs.org/"
                               " && rm -f node_modules/.package-lock.json && npm rebuild --ignore-scripts\n"
                               "ENV NODE_PATH=/opt/datalayer/node/node_modules\n"));
    plan_files_release(&out);
    fixture_done(&fx);
}

/* A lock with no deb, no Python install and no npm package writes only
 * lock.txt and expected-packages.json beside the Dockerfile, and no step
 * for them. */
static void test_nothing_to_install(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    for (size_t i = 0; i < fx.lock->n_packages; i++)
        fx.lock->packages[i].installed_in_base = true;
    plan_files out = { 0 };
    plan_variant(&fx.in, "datalayer", &out);
    assert_int_equal(out.n, 4);
    assert_string_equal(out.v[1].name, "lock.txt");
    assert_string_equal(out.v[2].name, "expected-packages.json");
    assert_string_equal(out.v[3].name, "sbom.cdx.json");
    /* nothing installed, nothing in the bill; the root is this variant's base */
    json_object *bom = json_tokener_parse(text_of(&out, "sbom.cdx.json")), *x = NULL, *m = NULL;
    assert_non_null(bom);
    assert_true(json_object_object_get_ex(bom, "components", &x));
    assert_int_equal(json_object_array_length(x), 0);
    assert_true(json_object_object_get_ex(bom, "metadata", &m));
    assert_true(json_object_object_get_ex(m, "component", &x));
    assert_true(json_object_object_get_ex(x, "version", &x));
    assert_string_equal(json_object_get_string(x), DIGEST_2);
    json_object_put(bom);
    const char *df = text_of(&out, "Dockerfile");
    assert_null(strstr(df, "apt-get"));
    assert_null(strstr(df, "requirements.txt"));
    assert_null(strstr(df, "npm"));
    assert_non_null(strstr(df, "COPY lock.txt /opt/datalayer/lock.txt\n"));
    plan_files_release(&out);
    fixture_done(&fx);
}

static void test_e2b_daytona_shape(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    full_spec(&fx);
    fx.spec.n_secrets = 0;
    plan_files e = { 0 }, d = { 0 };
    plan_variant(&fx.in, "e2b", &e);
    plan_variant(&fx.in, "daytona", &d);
    const char *et = text_of(&e, "e2b.Dockerfile"), *dt = text_of(&d, "Dockerfile");
    assert_non_null(strstr(et, "code-interpreter-v1"));
    assert_non_null(strstr(et, "\nFROM e2bdev/code-interpreter:latest\nENV ALPHA=1\n"));
    assert_non_null(strstr(et, "\nENV ALPHA=1\nENV LANG=C.UTF-8\nENV LC_ALL=C.UTF-8\nENV ZED="));
    assert_non_null(strstr(et, "\nRUN python3 -m pip install --no-deps --require-hashes"));
    assert_non_null(strstr(et, "\nUSER datalayer\nWORKDIR /home/datalayer/content\n"));
    assert_non_null(strstr(et, "\nRUN python3 -c 'import idna'\n"));
    /* the doctor comes from the build context (E2B's image lacks it), after the
     * installs and before the user switch, and runs last */
    assert_non_null(strstr(et, "\nCOPY datalayer-sandbox /opt/datalayer/bin/datalayer-sandbox\nRUN (id -u datalayer"));
    const char *last = strstr(et, "\nRUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json\n");
    assert_non_null(last);
    assert_string_equal(last + strlen("\nRUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json\n"), "");
    assert_non_null(strstr(dt, "\nFROM registry.example:5000/environments/base/python-cpu@" DIGEST_3 "\n"));
    assert_non_null(strstr(dt, "\nRUN uv pip install --system --no-deps --require-hashes --no-cache"));
    assert_non_null(strstr(dt, "\nRUN python3 -c 'import idna'\n"));
    assert_non_null(strstr(dt, "\nRUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json\n"));
    for (const char *t = et; t; t = t == et ? dt : NULL) {
        assert_null(strstr(t, "--mount"));
        assert_null(strstr(t, "--network"));
        assert_null(strstr(t, "# syntax"));
        assert_non_null(strstr(t, "# Lock: " DIGEST_A "\n"));
    }
    plan_files_release(&e);
    plan_files_release(&d);
    fixture_done(&fx);
}

/* ---- what the steps install ---- */

/* The Dockerfile's instructions, continuation lines joined. */
static ptrvec instructions(const char *df)
{
    ptrvec v = PTRVEC_INIT;
    strbuf cur = STRBUF_INIT;
    for (const char *p = df; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n && p[n - 1] == '\\') {
            sb_add(&cur, p, n - 1);
        } else {
            sb_add(&cur, p, n);
            if (cur.buf[0] != '#')
                ptrvec_push(&v, sb_detach(&cur, NULL));
            sb_reset(&cur);
        }
        p += n + (nl != NULL);
    }
    sb_release(&cur);
    return v;
}

static void free_strs(ptrvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    ptrvec_release(v);
}

/* A shell word unquoted the way plan_sh_quote() quotes. */
static char *unquote(const char *w, size_t n)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (w[i] != '\'') {
            sb_addc(&sb, w[i]);
            continue;
        }
        if (i + 4 < n && w[i + 1] == '"' && w[i + 2] == '\'' && w[i + 3] == '"' &&
            w[i + 4] == '\'') {
            sb_addc(&sb, '\'');
            i += 4;
        }
    }
    return sb_detach(&sb, NULL);
}

/* The pins of the apt-get install of `df`, in order. */
static ptrvec apt_pins(const char *df)
{
    ptrvec pins = PTRVEC_INIT;
    const char *p = strstr(df, "apt-get install");
    if (!p)
        return pins;
    p = strchr(p, '\n') + 1;
    while (strncmp(p, " && rm", 6) != 0) {
        while (*p == ' ')
            p++;
        const char *end = strstr(p, " \\\n");
        assert_non_null(end);
        ptrvec_push(&pins, unquote(p, (size_t)(end - p)));
        p = end + 3;
    }
    return pins;
}

static ptrvec lock_debs(const lock_doc *d)
{
    ptrvec v = PTRVEC_INIT;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, "deb") == 0 && !p->installed_in_base)
            ptrvec_push(&v, xasprintf("%s=%s", p->name, p->version));
    }
    return v;
}

static void assert_same_strs(const ptrvec *a, const ptrvec *b)
{
    assert_int_equal(a->len, b->len);
    for (size_t i = 0; i < a->len; i++)
        assert_string_equal(a->items[i], b->items[i]);
}

/* Lines of an export that are not comments. */
static ptrvec export_lines(const char *t)
{
    ptrvec v = PTRVEC_INIT;
    for (const char *p = t; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n && p[0] != '#')
            ptrvec_push(&v, xstrndup(p, n));
        p += n + (nl != NULL);
    }
    return v;
}

/* E2B's image is pinned only by the digest the catalog's `images:` entry
 * for it gives (plan_input.e2b_image_digest), never by the lock's e2b base
 * digest (DIGEST_2, the Datalayer base's). Without it FROM keeps the tag and
 * both the Dockerfile and plan_note() say why and what to add; with it FROM
 * is `repository@digest` (the tag it pins named in a comment), template.json
 * says the same reference, and there is no note. Nothing else changes. */
#define DIGEST_E2B "sha256:e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0e2b0"
static void test_e2b_pin(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    plan_files tag = { 0 }, pin = { 0 };
    plan_variant(&fx.in, "e2b", &tag);
    const char *df = text_of(&tag, "e2b.Dockerfile");
    assert_non_null(strstr(df, "\n# Not pinned by a digest, so a later build may start from "
                               "another image:\n# the bases catalog has no `images:` entry "
                               "`e2bdev/code-interpreter:latest`\n# with a `digest:`"));
    assert_non_null(strstr(df, "\nFROM e2bdev/code-interpreter:latest\n"));
    assert_non_null(strstr(text_of(&tag, "template.json"),
                           "\n  \"fromImage\": \"e2bdev/code-interpreter:latest\",\n"));
    char *note = plan_note(&fx.in, "e2b");
    assert_non_null(note);
    assert_non_null(strstr(note, "e2b: e2b.Dockerfile builds FROM "
                                 "e2bdev/code-interpreter:latest, a floating tag"));
    assert_non_null(strstr(note, "no `images:` entry `e2bdev/code-interpreter:latest` with a "
                                 "`digest:`"));
    assert_non_null(strstr(note, "--bases"));
    free(note);
    for (size_t i = 0; i < 4; i++)
        if (strcmp(VARIANT_NAMES[i], "e2b") != 0)
            assert_null(plan_note(&fx.in, VARIANT_NAMES[i]));

    fx.in.e2b_image_digest = DIGEST_E2B;
    plan_variant(&fx.in, "e2b", &pin);
    df = text_of(&pin, "e2b.Dockerfile");
    assert_non_null(strstr(df, "\n# e2bdev/code-interpreter:latest, pinned by the digest the "
                               "bases catalog's\n# `images:` entry for it records.\n"
                               "FROM e2bdev/code-interpreter@" DIGEST_E2B "\n"));
    assert_null(strstr(df, "Not pinned"));
    assert_null(strstr(df, ":latest\n"));
    assert_null(strstr(df, DIGEST_2));
    assert_non_null(strstr(text_of(&pin, "template.json"),
                           "\n  \"fromImage\": \"e2bdev/code-interpreter@" DIGEST_E2B "\",\n"));
    assert_null(plan_note(&fx.in, "e2b"));
    /* the SBOM's root is the image FROM names, never the base's e2b digest */
    const char *sb_tag = text_of(&tag, "sbom.cdx.json"), *sb_pin = text_of(&pin, "sbom.cdx.json");
    assert_non_null(strstr(sb_tag, "\"name\": \"e2bdev/code-interpreter\",\n"
                                   "      \"version\": \"latest\",\n"));
    assert_non_null(strstr(sb_pin, "\"name\": \"e2bdev/code-interpreter\",\n"
                                   "      \"version\": \"" DIGEST_E2B "\",\n"));
    assert_null(strstr(sb_tag, DIGEST_2 + 7));
    assert_null(strstr(sb_pin, DIGEST_2 + 7));
    assert_int_equal(tag.n, pin.n);
    for (size_t i = 0; i < tag.n; i++) {
        assert_string_equal(tag.v[i].name, pin.v[i].name);
        if (strcmp(tag.v[i].name, "e2b.Dockerfile") == 0 ||
            strcmp(tag.v[i].name, "template.json") == 0 ||
            strcmp(tag.v[i].name, "sbom.cdx.json") == 0)
            continue;
        assert_int_equal(tag.v[i].len, pin.v[i].len);
        assert_memory_equal(tag.v[i].data, pin.v[i].data, tag.v[i].len);
    }
    plan_files_release(&tag);
    plan_files_release(&pin);
    fixture_done(&fx);
}

static void test_apt_pins_are_the_locks(void **state)
{
    (void)state;
    const char *const LOCKS[] = { DEMO, "variants-small.lock" };
    for (size_t l = 0; l < 2; l++) {
        fixture fx;
        fixture_init(&fx, LOCKS[l]);
        ptrvec want = lock_debs(fx.lock);
        assert_true(want.len > 0);
        for (size_t v = 0; v < 3; v++) { /* the Dockerfile variants */
            const char *name = v == 1 ? "e2b" : v == 2 ? "daytona" : "datalayer";
            plan_files out = { 0 };
            plan_variant(&fx.in, name, &out);
            ptrvec got = apt_pins(text_of(&out, main_file(name)));
            assert_same_strs(&got, &want);
            ptrvec exported = export_lines(text_of(&out, "apt-packages.txt"));
            assert_same_strs(&exported, &want);
            free_strs(&exported);
            free_strs(&got);
            plan_files_release(&out);
        }
        free_strs(&want);
        fixture_done(&fx);
    }
}

static bool has(const char *s, const char *needle)
{
    return strstr(s, needle) != NULL;
}

/* The wheelhouse step installs exactly the lock's protected pins the base
 * holds, at their locked versions. */
static void check_wheelhouse(const char *run, const fixture *fx)
{
    size_t n = 0, want = 0;
    for (size_t i = 0; i < fx->lock->n_packages; i++) {
        const lock_package *p = &fx->lock->packages[i];
        if (!plan_from_wheelhouse(p))
            continue;
        want++;
        char *pin = xasprintf(" %s==%s", p->name, p->version);
        n += strstr(run, pin) != NULL;
        free(pin);
    }
    assert_true(want > 0);
    assert_int_equal(n, want);
}

/* Every RUN that installs anything is one of the three locked steps (the
 * wheelhouse's a fourth, off the base), and
 * requirements.txt names only locked versions the base lacks. */
static void check_installs(const char *df, const fixture *fx, const plan_files *out)
{
    ptrvec ins = instructions(df);
    size_t apt = 0, py = 0, npm = 0;
    for (size_t i = 0; i < ins.len; i++) {
        const char *s = ins.items[i];
        if (strncmp(s, "RUN ", 4) != 0 || !(has(s, "install") || has(s, "npm")))
            continue;
        if (has(s, "apt-get install -y --no-install-recommends -o Dir::Etc::SourceList="))
            apt++;
        else if (has(s, "pip install") && has(s, "--no-deps --require-hashes") &&
                 has(s, " -r /opt/datalayer/requirements.txt") && !has(s, "pip sync"))
            py++;
        else if (has(s, "npm ci --ignore-scripts"))
            npm++;
        else if (has(s, "pip install --no-index --no-deps --no-cache-dir --find-links "
                        "/opt/datalayer/wheelhouse-import "))
            check_wheelhouse(s, fx);
        else if (!has(s, "useradd"))
            fail_msg("an install outside the lock: %s", s);
    }
    assert_true(apt <= 1 && py <= 1 && npm <= 1);
    free_strs(&ins);
    const plan_out_file *req = find_file(out, "requirements.txt");
    ptrvec lines = export_lines(req ? req->data : "");
    for (size_t i = 0; i < lines.len; i++) {
        char *l = lines.items[i], *eq = strstr(l, "==");
        if (l[0] == ' ')
            continue; /* a --hash continuation */
        assert_non_null(eq);
        char *end = strpbrk(eq, " \\");
        *eq = '\0';
        if (end)
            *end = '\0';
        const lock_package *p = lock_find(fx->lock, "pypi", l, eq + 2);
        if (!p || p->installed_in_base)
            fail_msg("requirements.txt installs %s==%s", l, eq + 2);
    }
    free_strs(&lines);
}

static void test_installs_only_the_lock(void **state)
{
    (void)state;
    const char *const LOCKS[] = { DEMO, "variants-small.lock" };
    const char *const DF[] = { "datalayer", "e2b", "daytona" };
    for (size_t l = 0; l < 2; l++) {
        fixture fx;
        fixture_init(&fx, LOCKS[l]);
        add_cmd(&fx, "echo done");
        for (size_t v = 0; v < 3; v++) {
            plan_refusal r;
            if (plan_refuse(&fx.in, DF[v], &r)) { /* the demo lock has no daytona base */
                plan_refusal_clear(&r);
                continue;
            }
            plan_files out = { 0 };
            plan_variant(&fx.in, DF[v], &out);
            check_installs(text_of(&out, main_file(DF[v])), &fx, &out);
            plan_files_release(&out);
        }
        fixture_done(&fx);
    }
}

/* ---- determinism ---- */

static void plan_all(fixture *fx, plan_files out[4])
{
    for (size_t v = 0; v < 4; v++) {
        memset(&out[v], 0, sizeof out[v]);
        plan_variant(&fx->in, VARIANT_NAMES[v], &out[v]);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    fixture a, b;
    fixture_init(&a, "variants-small.lock");
    fixture_init(&b, "variants-small.lock");
    full_spec(&a);
    full_spec(&b);
    /* the same env in another order */
    plan_env t = b.env[0];
    b.env[0] = b.env[1];
    b.env[1] = t;
    plan_files x[4], y[4];
    plan_all(&a, x);
    plan_all(&b, y);
    for (size_t v = 0; v < 4; v++) {
        assert_int_equal(x[v].n, y[v].n);
        for (size_t i = 0; i < x[v].n; i++) {
            assert_string_equal(x[v].v[i].name, y[v].v[i].name);
            assert_int_equal(x[v].v[i].len, y[v].v[i].len);
            assert_memory_equal(x[v].v[i].data, y[v].v[i].data, x[v].v[i].len);
            assert_int_equal(strlen(x[v].v[i].data), x[v].v[i].len);
        }
        plan_files_release(&x[v]);
        plan_files_release(&y[v]);
    }
    fixture_done(&a);
    fixture_done(&b);
}

/* ---- quoting, checked by the real shell and Python ---- */

static const char *const NASTY[] = {
    "",
    "plain-word_1.2:3,4@5%6+7=8/9",
    "it's",
    "a b",
    "$HOME ${HOME} $(id) `id`",
    "'''\"\"\"",
    "back\\slash \\\\ \\n \\x41 \\N{BULLET} \\u0041",
    "{braces} {0} %s %%",
    "~user *.txt ?[a] !x #not-a-comment ;|&<>",
    "tab\there\rcr\nnewline",
    "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9d\x84\x9e",
    "\x01\x1f\x7f",
};

static char *run_capture(const char *cmd, size_t *len)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        sb_add(&sb, buf, n);
    int rc = pclose(p);
    if (rc != 0)
        fail_msg("`%.200s` exited %d", cmd, rc);
    return sb_detach(&sb, len);
}

static void test_sh_quote(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof NASTY / sizeof NASTY[0]; i++) {
        strbuf cmd = STRBUF_INIT;
        sb_adds(&cmd, "printf '%s|' ");
        plan_sh_quote(&cmd, NASTY[i]);
        size_t len;
        char *out = run_capture(cmd.buf, &len);
        char *want = xasprintf("%s|", NASTY[i]);
        assert_string_equal(out, want);
        free(want);
        free(out);
        sb_release(&cmd);
    }
    strbuf sb = STRBUF_INIT;
    plan_sh_quote(&sb, "curl=7.88.1-10+deb12u12");
    assert_string_equal(sb.buf, "curl=7.88.1-10+deb12u12");
    sb_reset(&sb);
    plan_sh_quote(&sb, "");
    assert_string_equal(sb.buf, "''");
    sb_release(&sb);
}

static char *temp_dir(void)
{
    char *t = xstrdup("/tmp/unit_plan_variants.XXXXXX");
    assert_non_null(mkdtemp(t));
    return t;
}

static void write_text(const char *dir, const char *name, const char *data, size_t len)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(path);
}

static void remove_dir(const char *dir)
{
    char *cmd = xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

/* plan_py_str() literals evaluate, in python3, to the original bytes (as
 * UTF-8 with surrogateescape for bytes that are not UTF-8). */
/* What each FROM image's plan installs of the packages the lock marks
 * installedInBase: nothing on the base; on a spec's image and on E2B's the
 * base's protected stack (from the wheelhouse), nothing else. */
static void test_image_installs(void **state)
{
    (void)state;
    const char *prot[] = { "protected", NULL }, *dep[] = { "pypi:x@1", NULL };
    lock_package pinned = { .ecosystem = "pypi", .name = "kernelpkg", .version = "2.0",
                            .requested_by = prot, .installed_in_base = true };
    lock_package own = { .ecosystem = "pypi", .name = "pip", .version = "24.0",
                         .requested_by = dep, .installed_in_base = true };
    lock_package deb = { .ecosystem = "deb", .name = "libc6", .version = "2.36-9",
                         .requested_by = prot, .installed_in_base = true };
    lock_package fresh = { .ecosystem = "pypi", .name = "fastlib", .version = "1.5",
                           .requested_by = dep };
    plan_image base = { .kind = PLAN_FROM_BASE }, img = { .kind = PLAN_FROM_SPEC_IMAGE },
               e2b = { .kind = PLAN_FROM_E2B };
    assert_true(plan_from_wheelhouse(&pinned));
    assert_false(plan_from_wheelhouse(&own) || plan_from_wheelhouse(&deb) ||
                 plan_from_wheelhouse(&fresh));
    assert_false(plan_image_installs(&base, &pinned) || plan_image_installs(&base, &own) ||
                 plan_image_installs(&base, &deb));
    assert_true(plan_image_installs(&img, &pinned));
    assert_false(plan_image_installs(&img, &own) || plan_image_installs(&img, &deb));
    assert_true(plan_image_installs(&e2b, &pinned));
    assert_false(plan_image_installs(&e2b, &own) || plan_image_installs(&e2b, &deb));
    assert_true(plan_image_installs(&base, &fresh) && plan_image_installs(&img, &fresh) &&
                plan_image_installs(&e2b, &fresh));
}

static void test_py_str(void **state)
{
    (void)state;
    static const char *const MORE[] = { "\xff\xfe not utf-8 \xc3", "\xed\xa0\x80 surrogate" };
    strbuf py = STRBUF_INIT, want = STRBUF_INIT;
    sb_adds(&py, "import sys\nVALUES = [\n");
    for (size_t i = 0; i < sizeof NASTY / sizeof NASTY[0] + 2; i++) {
        const char *s = i < sizeof NASTY / sizeof NASTY[0] ? NASTY[i] : MORE[i - sizeof NASTY / sizeof NASTY[0]];
        sb_adds(&py, "    ");
        plan_py_str(&py, s);
        sb_adds(&py, ",\n");
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
            sb_addf(&want, "%02x", *p);
        sb_addc(&want, '\n');
    }
    sb_adds(&py, "]\nfor v in VALUES:\n"
                 "    print(v.encode('utf-8', 'surrogateescape').hex())\n");
    for (size_t i = 0; i < py.len; i++)
        assert_true((unsigned char)py.buf[i] < 0x80); /* the module is ASCII */
    char *dir = temp_dir();
    write_text(dir, "values.py", py.buf, py.len);
    char *cmd = xasprintf("/usr/bin/python3 '%s/values.py'", dir);
    size_t len;
    char *out = run_capture(cmd, &len);
    assert_string_equal(out, want.buf);
    free(out);
    free(cmd);
    remove_dir(dir);
    free(dir);
    sb_release(&py);
    sb_release(&want);
}

static void test_names_secret(void **state)
{
    (void)state;
    assert_true(plan_names_secret("echo $TOKEN", "TOKEN"));
    assert_true(plan_names_secret("TOKEN", "TOKEN"));
    assert_true(plan_names_secret("cat /run/secrets/netrc", "netrc"));
    assert_true(plan_names_secret("a ${TOKEN}b", "TOKEN"));
    assert_false(plan_names_secret("echo $TOKENS", "TOKEN"));
    assert_false(plan_names_secret("echo MY_TOKEN", "TOKEN"));
    assert_false(plan_names_secret("cat ~/.netrc", "netrc"));
    assert_false(plan_names_secret("echo TOKEN-2", "TOKEN"));
    assert_true(plan_names_secret("echo TOKEN-2 TOKEN", "TOKEN"));
}

/* A command the Dockerfile parser would misread goes in the exec form,
 * whose JSON carries it intact. */
static void test_exec_form(void **state)
{
    (void)state;
    static const char *const ODD[] = { "cat <<EOF > /tmp/x", "--network=host echo", "echo a \\",
                                       "[ -f x ] || true" };
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    for (size_t i = 0; i < 4; i++)
        add_cmd(&fx, ODD[i]);
    plan_files out = { 0 };
    plan_variant(&fx.in, "datalayer", &out);
    ptrvec ins = instructions(text_of(&out, "Dockerfile"));
    size_t seen = 0;
    for (size_t i = 0; i < ins.len; i++) {
        const char *s = ins.items[i], *j = strstr(s, "RUN --network=none [");
        if (!j)
            continue;
        json_object *a = json_tokener_parse(strchr(j, '['));
        assert_non_null(a);
        assert_int_equal(json_object_array_length(a), 3);
        assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 2)), ODD[seen]);
        json_object_put(a);
        seen++;
    }
    assert_int_equal(seen, 4);
    free_strs(&ins);
    plan_files_release(&out);
    fixture_done(&fx);
}

/* ---- the Modal module, run by python3 against a recording `modal` ---- */

static const char FAKE_MODAL[] =
    "import json\n"
    "CALLS = []\n"
    "class Secret:\n"
    "    @staticmethod\n"
    "    def from_name(name):\n"
    "        CALLS.append(['Secret.from_name', name])\n"
    "        return 'secret:' + name\n"
    "class Image:\n"
    "    @staticmethod\n"
    "    def from_aws_ecr(tag, secret=None):\n"
    "        CALLS.append(['from_aws_ecr', tag, secret])\n"
    "        return Image()\n"
    "    def __getattr__(self, name):\n"
    "        def call(*args, **kwargs):\n"
    "            CALLS.append([name] + [str(a) if not isinstance(a, (dict, list)) else a\n"
    "                                   for a in args] + ([kwargs] if kwargs else []))\n"
    "            return self\n"
    "        return call\n";

static const char CHECKER[] =
    "import ast, json, pathlib, sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "src = open(sys.argv[1] + '/modal_image.py').read()\n"
    "ast.parse(src)\n"
    "import modal, modal_image\n"
    "modal_image.image('reg.example', 'ecr-pull')\n"
    "here = str(pathlib.Path(sys.argv[1]).resolve()) + '/'\n"
    "out = [[a.replace(here, '$HERE/') if isinstance(a, str) else a for a in c]\n"
    "       for c in modal.CALLS]\n"
    "print(json.dumps({'calls': out, 'digest': modal_image.DIGEST,\n"
    "                  'lock': modal_image.LOCK_DIGEST,\n"
    "                  'builder': modal_image.MODAL_IMAGE_BUILDER_VERSION}))\n";

static json_object *run_modal(const plan_files *out)
{
    char *dir = temp_dir();
    const plan_out_file *m = find_file(out, "modal_image.py");
    assert_non_null(m);
    write_text(dir, "modal_image.py", m->data, m->len);
    write_text(dir, "modal.py", FAKE_MODAL, strlen(FAKE_MODAL));
    write_text(dir, "checker.py", CHECKER, strlen(CHECKER));
    char *cmd = xasprintf("/usr/bin/python3 -B '%s/checker.py' '%s'", dir, dir);
    size_t len;
    char *text = run_capture(cmd, &len);
    json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    free(text);
    free(cmd);
    remove_dir(dir);
    free(dir);
    return o;
}

static json_object *call_at(json_object *calls, size_t i, const char *name)
{
    json_object *c = json_object_array_get_idx(calls, i);
    assert_non_null(c);
    const char *got = json_object_get_string(json_object_array_get_idx(c, 0));
    if (strcmp(got, name) != 0)
        fail_msg("call %zu is %s, not %s", i, got, name);
    return c;
}

static const char *arg(json_object *c, size_t i)
{
    return json_object_get_string(json_object_array_get_idx(c, i));
}

/* The calls up to the Python install: base, env, apt. */
static size_t check_modal_head(json_object *calls, const fixture *fx, size_t k)
{
    json_object *c = call_at(calls, k++, "Secret.from_name");
    assert_string_equal(arg(c, 1), "ecr-pull");
    c = call_at(calls, k++, "from_aws_ecr");
    assert_string_equal(arg(c, 1), "reg.example/environments/base/python-cpu@" DIGEST_4);
    assert_string_equal(arg(c, 2), "secret:ecr-pull");
    c = call_at(calls, k++, "env");
    json_object *env = json_object_array_get_idx(c, 1);
    assert_int_equal(json_object_object_length(env), fx->spec.n_env);
    for (size_t i = 0; i < fx->spec.n_env; i++) {
        json_object *v;
        assert_true(json_object_object_get_ex(env, fx->env[i].key, &v));
        assert_string_equal(json_object_get_string(v), fx->env[i].value);
    }
    c = call_at(calls, k++, "add_local_file");
    assert_string_equal(arg(c, 1), "$HERE/apt-sources.list");
    assert_string_equal(arg(c, 2), "/opt/datalayer/apt-sources.list");
    call_at(calls, k++, "add_local_file");
    c = call_at(calls, k++, "run_commands");
    assert_true(has(arg(c, 1), "Dir::Etc::SourceParts \"-\";"));
    c = call_at(calls, k++, "apt_install");
    ptrvec want = lock_debs(fx->lock);
    assert_int_equal(json_object_array_length(c), want.len + 1);
    for (size_t i = 0; i < want.len; i++)
        assert_string_equal(arg(c, i + 1), want.items[i]);
    free_strs(&want);
    call_at(calls, k++, "run_commands");
    return k;
}

static void test_modal_module(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx, "variants-small.lock");
    full_spec(&fx);
    fx.spec.n_secrets = 0;
    fx.spec.n_post_install = 0;
    for (size_t i = 0; i < 4; i++)
        add_env(&fx, xasprintf("NASTY_%zu", i), NASTY[i + 2]);
    add_env(&fx, "UNICODE", NASTY[10]);
    for (size_t i = 2; i < sizeof NASTY / sizeof NASTY[0] - 3; i++)
        add_cmd(&fx, NASTY[i]);
    plan_files out = { 0 };
    plan_variant(&fx.in, "modal", &out);
    assert_null(strstr(text_of(&out, "modal_image.py"), "USER"));
    json_object *o = run_modal(&out), *calls, *v;
    assert_true(json_object_object_get_ex(o, "calls", &calls));
    assert_true(json_object_object_get_ex(o, "builder", &v));
    assert_string_equal(json_object_get_string(v), "2025.06");
    assert_true(json_object_object_get_ex(o, "lock", &v));
    assert_string_equal(json_object_get_string(v), DIGEST_A);
    size_t k = check_modal_head(calls, &fx, 0);
    json_object *c = call_at(calls, k++, "add_local_file");
    assert_string_equal(arg(c, 1), "$HERE/lock.txt");
    assert_string_equal(arg(c, 2), "/opt/datalayer/lock.txt");
    c = json_object_array_get_idx(c, 3);
    assert_true(json_object_object_get_ex(c, "copy", &v) && json_object_get_boolean(v));
    call_at(calls, k++, "add_local_file"); /* expected-packages.json */
    call_at(calls, k++, "add_local_file"); /* requirements.txt */
    c = call_at(calls, k++, "run_commands");
    assert_string_equal(arg(c, 1), "uv pip install --system --no-deps --require-hashes --no-cache"
                                   " --index-url https://pypi.org/simple -r /opt/datalayer/requirements.txt");
    c = call_at(calls, k++, "workdir");
    assert_string_equal(arg(c, 1), "/home/datalayer/content");
    c = call_at(calls, k++, "add_local_file");
    assert_string_equal(arg(c, 1), "$HERE/files/0");
    assert_string_equal(arg(c, 2), "/home/datalayer/content/data.csv");
    for (size_t i = 0; i < fx.spec.n_post_install; i++) {
        c = call_at(calls, k++, "run_commands");
        assert_string_equal(arg(c, 1), fx.cmds[i].text);
    }
    c = call_at(calls, k++, "run_commands");
    assert_string_equal(arg(c, 1), PLAN_DOCTOR);
    c = call_at(calls, k++, "entrypoint");
    json_object *ep = json_object_array_get_idx(c, 1);
    assert_string_equal(json_object_to_json_string_ext(ep, JSON_C_TO_STRING_PLAIN |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE),
                        "[\"/bin/sh\",\"-c\",\"exec $0 $@\"]");
    assert_int_equal(k, json_object_array_length(calls));
    json_object_put(o);
    for (size_t i = 2; i < 6; i++)
        free((char *)fx.env[i].key);
    plan_files_release(&out);
    fixture_done(&fx);
}

/* ---- `write DIR` ---- */

/* The lock's real digest (the fixtures give a made-up one). */
static void real_digest(fixture *fx, const char *lock_name, char out[72])
{
    char path[512], hex[65];
    snprintf(path, sizeof path, "%s/%s", PLAN_TEST_DIR, lock_name);
    size_t len = 0;
    char *text = read_file(path, 1 << 24, &len);
    assert_non_null(text);
    sha256_hex(text, len, hex);
    snprintf(out, 72, "sha256:%s", hex);
    fx->in.lock_digest = out;
    free(text);
}

static int write_lock_plans(const char *dir, const char *lock_name)
{
    fixture fx;
    char digest[72];
    fixture_init(&fx, lock_name);
    real_digest(&fx, lock_name, digest);
    add_env(&fx, "GREETING", "it's \"quoted\" $HOME");
    add_cmd(&fx, "python3 -c 'import idna'");
    add_cmd(&fx, "cat <<EOF > /tmp/x");
    fx.files[0] = (plan_file){ "/home/datalayer/content/my data.csv", "blob://abc", SHA_AB, 12,
                               pos("spec.files[0]", 40) };
    fx.files[1] = (plan_file){ "/etc/motd", "https://example.com/motd", NULL, -1,
                               pos("spec.files[1]", 41) };
    fx.spec.n_files = 2;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return 1;
    for (size_t v = 0; v < 4; v++) {
        plan_refusal r;
        if (plan_refuse(&fx.in, VARIANT_NAMES[v], &r)) {
            printf("%s %s: refused at %s: %s\n", lock_name, VARIANT_NAMES[v], r.at.field, r.message);
            plan_refusal_clear(&r);
            continue;
        }
        char *sub = xasprintf("%s/%s", dir, VARIANT_NAMES[v]);
        if (mkdir(sub, 0755) != 0 && errno != EEXIST)
            return 1;
        plan_files out = { 0 };
        plan_variant(&fx.in, VARIANT_NAMES[v], &out);
        for (size_t i = 0; i < out.n; i++)
            write_text(sub, out.v[i].name, out.v[i].data, out.v[i].len);
        printf("%s %s: %zu files in %s\n", lock_name, VARIANT_NAMES[v], out.n, sub);
        plan_files_release(&out);
        free(sub);
    }
    fixture_done(&fx);
    return 0;
}

/* DIR/demo/<variant> from variants-demo.lock, DIR/small/<variant> from
 * variants-small.lock (which has a base digest for every variant). */
static int write_plans(const char *dir)
{
    char *demo = xasprintf("%s/demo", dir), *small = xasprintf("%s/small", dir);
    int rc = (mkdir(dir, 0755) != 0 && errno != EEXIST) || write_lock_plans(demo, DEMO) ||
             write_lock_plans(small, "variants-small.lock");
    free(demo);
    free(small);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        return write_plans(argv[2]);
    enum { N_REFUSALS = sizeof REFUSALS / sizeof REFUSALS[0] };
    struct CMUnitTest tests[N_REFUSALS + 20];
    char names[N_REFUSALS][96];
    size_t n = 0;
    for (size_t i = 0; i < N_REFUSALS; i++) {
        snprintf(names[i], sizeof names[i], "refusal_%s_%zu", REFUSALS[i].variant, i);
        tests[n++] = (struct CMUnitTest){ names[i], test_refusal, NULL, NULL, (void *)&REFUSALS[i] };
    }
    const struct CMUnitTest rest[] = {
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_gpu_on_cuda_base),
        cmocka_unit_test(test_lock_arch),
        cmocka_unit_test(test_datalayer_bytes),
        cmocka_unit_test(test_datalayer_pip),
        cmocka_unit_test(test_file_sets),
        cmocka_unit_test(test_npm_files),
        cmocka_unit_test(test_nothing_to_install),
        cmocka_unit_test(test_e2b_daytona_shape),
        cmocka_unit_test(test_e2b_pin),
        cmocka_unit_test(test_image_installs),
        cmocka_unit_test(test_apt_pins_are_the_locks),
        cmocka_unit_test(test_installs_only_the_lock),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_sh_quote),
        cmocka_unit_test(test_py_str),
        cmocka_unit_test(test_names_secret),
        cmocka_unit_test(test_exec_form),
        cmocka_unit_test(test_modal_module),
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        tests[n++] = rest[i];
    return _cmocka_run_group_tests("plan_variants", tests, n, NULL, NULL);
}

/* unit_target.c — the bases catalog (good and malformed), base resolution
 * errors with the reference's exact messages and codes, the protected-pin
 * merge (every branch of REFERENCE §3 merge_requirements), the catalog's
 * view for the spec rules (equal to the spec module's fallback), the spec ->
 * resolve_request step, and --exclude-newer parsing. No network, no solve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "envlock/bases.h"
#include "base_request.h"
#include "test_bases.h"

#ifndef BASES_YAML
#error "BASES_YAML must name corpus/bases/bases.yaml"
#endif

static const char *detail(el_ctx *ctx, const char *key)
{
    json_object *v;
    if (!el_ctx_detail(ctx) || !json_object_object_get_ex(el_ctx_detail(ctx), key, &v))
        return NULL;
    return json_object_get_string(v);
}

/* Writes `text` to a fresh temporary catalog file; caller unlinks and frees. */
static char *temp_catalog(const char *text)
{
    char *path = xstrdup("/tmp/envlock-bases-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* ---- the catalog ---- */

static void catalog_shipped(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, BASES_YAML);
    assert_non_null(cat);
    const target_base *b = target_catalog_find(ctx, cat, "datalayer/python-cpu", "2026.09");
    assert_non_null(b);
    assert_string_equal(b->python_version, "3.13.7");
    assert_string_equal(b->python_minor, "3.13");
    assert_string_equal(b->arch, "amd64");
    assert_string_equal(b->libc, "glibc 2.36");
    assert_string_equal(b->platform, "manylinux_2_36_x86_64");
    assert_false(b->cuda);
    assert_string_equal(b->repository, "environments/base/python-cpu");
    assert_int_equal(b->n_variants, 4);
    static const char *const variants[] = { "datalayer", "e2b", "daytona", "modal" };
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(b->variants[i], variants[i]);
        assert_string_equal(b->digests[i], "sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde"
                                           "41932c782f81c432b36");
        assert_string_equal(target_base_digest(ctx, b, variants[i]), b->digests[i]);
    }
    assert_null(b->variants[4]);
    assert_string_equal(b->apt_snapshot, "20260914T150000Z");
    assert_string_equal(b->apt_sources[0], "deb https://snapshot.debian.org/archive/debian/"
                                           "20260914T150000Z/ bookworm main");
    assert_null(b->apt_sources[1]);
    assert_string_equal(b->apt_keyring, "/usr/share/keyrings/debian-archive-keyring.gpg");
    assert_non_null(b->dpkg_status);
    assert_true(b->dpkg_status[0] == '/');
    assert_int_equal(access(b->dpkg_status, R_OK), 0);
    static const char *const pins[] = { "ipykernel==7.3.0", "jupyter-client==8.9.1",
                                        "jupyter-server==2.21.0+datalayer.1",
                                        "jupyter-server-nbmodel==0.2.8",
                                        "jupyter-kernels==1.2.23", "datalayer==1.7.4" };
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(b->protected_pins[i], pins[i]);
    assert_null(b->protected_pins[6]);
    size_t n = 0;
    while (b->preinstalled[n])
        n++;
    assert_int_equal(n, 7);
    assert_string_equal(b->preinstalled[6], "uv==0.12.11");

    const target_base *cuda = target_catalog_find(ctx, cat, "datalayer/python-cuda", "2026.09");
    assert_non_null(cuda);
    assert_true(cuda->cuda);
    assert_null(cuda->apt_sources);
    assert_null(cuda->dpkg_status);
    target_catalog_free(cat);
    el_ctx_free(ctx);
}

static void catalog_default_path_env(void **state)
{
    (void)state;
    /* The library reads no ENVLOCK_* variable (the CLI passes
     * ENVLOCK_BASES as a path): the default is the catalog installed beside
     * the code, here this test program's own directory. */
    setenv("ENVLOCK_BASES", "/nonexistent/bases.yaml", 1);
    char *p = target_catalog_default_path();
    char *exe = realpath("/proc/self/exe", NULL); /* <prefix>/<dir>/program */
    assert_non_null(exe);
    *strrchr(exe, '/') = '\0';
    *strrchr(exe, '/') = '\0';
    char *want = xasprintf("%s/share/envlock/bases/bases.yaml", exe);
    assert_string_equal(p, want);
    free(want);
    free(exe);
    el_ctx *ctx = el_ctx_new();
    assert_null(target_catalog_load(ctx, NULL));
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    assert_string_equal(detail(ctx, "reason"), "unreadable");
    assert_string_equal(detail(ctx, "path"), p);
    unsetenv("ENVLOCK_BASES");
    free(p);
    el_ctx_free(ctx);
}

static const char good_head[] = "format: envlock-bases/1\n"
                                "variants: [datalayer, e2b]\n"
                                "bases:\n"
                                "  acme/py:\n"
                                "    python: \"3.13\"\n"
                                "    channels:\n"
                                "      \"1\":\n"
                                "        python: 3.13.2\n"
                                "        arch: amd64\n"
                                "        libc: glibc 2.36\n"
                                "        platform: manylinux_2_36_x86_64\n";

/* Loads good_head + `tail` and expects a refusal whose message contains
 * `needle` at `line`. */
static void expect_bad(const char *tail, const char *needle, int line)
{
    char *text = xasprintf("%s%s", good_head, tail);
    char *path = temp_catalog(text);
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, path);
    if (cat)
        fail_msg("accepted a catalog with %s", tail);
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    assert_string_equal(detail(ctx, "reason"), "invalid_catalog");
    if (!strstr(el_ctx_message(ctx), needle))
        fail_msg("message `%s` lacks `%s`", el_ctx_message(ctx), needle);
    json_object *v;
    assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "line", &v));
    if (line)
        assert_int_equal(json_object_get_int(v), line);
    el_ctx_free(ctx);
    unlink(path);
    free(path);
    free(text);
}

static void catalog_minimal_ok(void **state)
{
    (void)state;
    char *path = temp_catalog(good_head);
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, path);
    assert_non_null(cat);
    const target_base *b = target_catalog_find(ctx, cat, "acme/py", "1");
    assert_non_null(b);
    assert_string_equal(b->repository, "environments/base/py");
    assert_null(b->protected_pins[0]);
    assert_null(b->digests[0]);
    assert_null(target_base_digest(ctx, b, "e2b"));
    assert_int_equal(el_ctx_code(ctx), EL_ARTIFACT_MISSING);
    assert_string_equal(target_catalog_path(cat), path);
    assert_null(b->node_version); /* engines.node unchecked */
    target_catalog_free(cat);
    el_ctx_free(ctx);
    unlink(path);
    free(path);
}

/* The optional node version of a channel (npm's engines.node preference). */
static void catalog_node_version(void **state)
{
    (void)state;
    char *text = xasprintf("%s        node: 20.20.2\n", good_head);
    char *path = temp_catalog(text);
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, path);
    assert_non_null(cat);
    const target_base *b = target_catalog_find(ctx, cat, "acme/py", "1");
    assert_non_null(b);
    assert_string_equal(b->node_version, "20.20.2");
    target_catalog_free(cat);
    el_ctx_free(ctx);
    unlink(path);
    free(path);
    free(text);
    expect_bad("        node: v20\n", "`v20` is not a full node version (X.Y.Z)", 12);
    expect_bad("        node: \"20.1\"\n", "`20.1` is not a full node version (X.Y.Z)", 12);
}

static void catalog_malformed(void **state)
{
    (void)state;
    expect_bad("        digests: {datalayer: sha256:abc}\n", "`sha256:abc` is not a digest", 12);
    expect_bad("        digests: {lambda: sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932"
               "c782f81c432b36}\n",
               "`lambda` is not one of the catalog's variants", 12);
    expect_bad("        colour: blue\n", "bases.acme/py.channels.1.colour: is not a catalog key "
                                         "here; known: python, arch",
               12);
    expect_bad("        protected: [\"ipykernel=7\"]\n", "`ipykernel=7` is not a requirement", 12);
    expect_bad("        preinstalled: [\"uv>=0.12\"]\n", "`uv>=0.12` should be `name==version`",
               12);
    expect_bad("        apt: {snapshot: yesterday, sources: []}\n",
               "`yesterday` is not a snapshot id", 12);
    expect_bad("        apt: {sources: [\"https://x/ bookworm main\"]}\n",
               "is not a one-line `deb URI SUITE COMPONENT...` source", 12);
    expect_bad("        apt: {keyring: /nonexistent.gpg, sources: []}\n",
               "`/nonexistent.gpg` cannot be read", 12);
    expect_bad("        dpkgStatus: missing.status\n", "missing.status` cannot be read", 12);
    expect_bad("        digests: [a]\n", "should be a mapping from variant to digest", 12);
    expect_bad("  acme/other:\n    python: \"3.13\"\n    channels:\n      \"1\":\n"
               "        python: \"3.13\"\n        arch: amd64\n        libc: x\n"
               "        platform: manylinux_2_36_x86_64\n",
               "`3.13` is not a full Python version (X.Y.Z)", 16);
    expect_bad("  acme/other:\n    python: \"3.13\"\n    channels:\n      \"1\":\n"
               "        python: 3.12.1\n        arch: i386\n        libc: x\n"
               "        platform: manylinux_2_36_x86_64\n",
               "`3.12.1` is not a 3.13 release", 16);
    expect_bad("  noslash:\n    python: \"3.13\"\n    channels: {}\n",
               "`noslash` is not a base reference (owner/name)", 12);
    expect_bad("  acme/two:\n    channels: {}\n", "bases.acme/two.python: is required", 13);
    expect_bad("  acme/py:\n    python: \"3.13\"\n    channels: {}\n", "acme/py", 12); /* duplicate key */
    expect_bad("        python: [\n", "", 0);                                           /* YAML syntax */
    expect_bad("  acme/gpu:\n    cuda: true\n    cudaVersion: twelve\n    python: \"3.13\"\n"
               "    channels: {}\n",
               "`twelve` is not a CUDA version (X.Y)", 14);
    expect_bad("  acme/gpu:\n    cudaVersion: \"12.8\"\n    python: \"3.13\"\n    channels: {}\n",
               "bases.acme/gpu.cudaVersion: is given for a base without CUDA", 13);
}

/* The view the spec rules take says what the built-in catalog says, field
 * by field and in order (corpus/bases/bases.yaml): the catalog owns the
 * approved bases, the spec module has no copy. */
static void spec_view_of_the_catalog(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    el_bases *cat = el_bases_load(ctx, BASES_YAML);
    assert_non_null(cat);
    assert_string_equal(el_bases_path(cat), BASES_YAML);
    size_t n = 0;
    const el_spec_base *view = el_bases_spec_view(cat, &n);
    assert_int_equal(n, 2);
    assert_string_equal(view[0].ref, "datalayer/python-cpu");
    assert_string_equal(view[0].repository, "environments/base/python-cpu");
    assert_string_equal(view[0].python, "3.13");
    assert_false(view[0].cuda);
    assert_null(view[0].cuda_version);
    assert_string_equal(view[0].channel, "2026.09");
    assert_string_equal(view[1].ref, "datalayer/python-cuda");
    assert_string_equal(view[1].repository, "environments/base/python-cuda");
    assert_true(view[1].cuda);
    assert_string_equal(view[1].cuda_version, "12.8");
    el_bases_free(cat);
    el_bases_free(NULL);
    assert_null(el_bases_load(ctx, "/nonexistent/bases.yaml"));
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    el_ctx_free(ctx);
}

/* A spec loaded with a site catalog's view is checked against it alone. */
static void spec_rules_take_the_view(void **state)
{
    (void)state;
    static const char head[] = "apiVersion: environments.datalayer.io/v1alpha1\n"
                               "kind: Environment\nmetadata: {name: site}\nspec:\n"
                               "  language: {name: python, version: \"%s\"}\n"
                               "  base: {ref: %s, channel: \"2026.10\"}\n";
    static const el_spec_base site[] = {
        { .ref = "acme/python-312", .python = "3.12", .channel = "2026.10" },
    };
    el_spec_options so = { .bases = site, .n_bases = 1 };
    el_ctx *ctx = el_ctx_new();
    char *text = xasprintf(head, "3.12", "acme/python-312");
    el_spec *s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 0);
    el_spec_free(s);
    s = el_spec_load_text(ctx, text, strlen(text), "t", NULL); /* no bases at all */
    assert_int_equal(el_spec_finding_count(s), 1);
    assert_string_equal(el_spec_finding(s, 0)->message,
                        "`acme/python-312` cannot be checked: no approved bases were given (no "
                        "bases catalog)");
    el_spec_free(s);
    free(text);
    text = xasprintf(head, "3.13", "datalayer/python-cpu");
    s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 1);
    assert_string_equal(el_spec_finding(s, 0)->message,
                        "`datalayer/python-cpu` is not an approved base; approved: acme/python-312");
    el_spec_free(s);
    free(text);
    el_ctx_free(ctx);
}

/* With the catalog's channels known, `validate` says what `resolve` would
 * refuse, at the line: a channel the base does not have, and a requirement
 * the channel's protected pins exclude (same message as resolve's). */
static void channel_and_pins_are_findings(void **state)
{
    (void)state;
    static const char head[] = "apiVersion: environments.datalayer.io/v1alpha1\n"
                               "kind: Environment\nmetadata: {name: site}\nspec:\n"
                               "  language: {name: python, version: \"3.12\"}\n"
                               "  base: {ref: acme/python-312, channel: \"%s\"}\n"
                               "  packages:\n    python:\n      dependencies: [\"%s\"]\n";
    static const char *const pins[] = { "ipykernel==7.3.0", NULL };
    static const el_spec_channel channels[] = { { "2026.09", NULL }, { "2026.10", pins } };
    static const el_spec_base site[] = {
        { .ref = "acme/python-312", .python = "3.12", .channel = "2026.10",
          .channels = channels, .n_channels = 2 },
    };
    el_spec_options so = { .bases = site, .n_bases = 1, .resolve_checks = true };
    el_ctx *ctx = el_ctx_new();
    char *text = xasprintf(head, "2026.11", "requests");
    el_spec *s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 1);
    assert_string_equal(el_spec_finding(s, 0)->field, "spec.base.channel");
    assert_int_equal(el_spec_finding(s, 0)->line, 6);
    assert_string_equal(el_spec_finding(s, 0)->message,
                        "`acme/python-312` has no channel `2026.11`; channels: 2026.09, 2026.10");
    el_spec_free(s);
    free(text);
    text = xasprintf(head, "2026.10", "IPyKernel<7");
    s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 1);
    assert_int_equal(el_spec_finding(s, 0)->code, EL_PROTECTED_PACKAGE);
    assert_string_equal(el_spec_finding(s, 0)->field, "spec.packages.python.dependencies[0]");
    assert_string_equal(el_spec_finding(s, 0)->message,
                        "`IPyKernel` is pinned by Datalayer to `==7.3.0`, which `IPyKernel<7` "
                        "excludes: remove it, or ask for a version inside that range");
    el_spec_free(s);
    free(text);
    /* agreeing with the pin, or on a channel that pins nothing: no finding */
    text = xasprintf(head, "2026.10", "ipykernel>=7");
    s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 0);
    el_spec_free(s);
    free(text);
    text = xasprintf(head, "2026.09", "ipykernel<7");
    s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 0);
    el_spec_free(s);
    free(text);
    /* without resolve_checks (digest, normalize), as the reference: neither */
    so.resolve_checks = false;
    text = xasprintf(head, "2026.11", "ipykernel<7");
    s = el_spec_load_text(ctx, text, strlen(text), "t", &so);
    assert_int_equal(el_spec_finding_count(s), 0);
    el_spec_free(s);
    free(text);
    el_ctx_free(ctx);
}

/* A DataGen recipe names no base: it goes on the first base of the catalog
 * in use, at that base's channel, with its Python; with no catalog it
 * cannot be placed, and says so. */
static void datagen_recipe_takes_the_first_base(void **state)
{
    (void)state;
    static const char recipe[] = "name: demo\n";
    static const el_spec_base site[] = {
        { .ref = "acme/python-312", .python = "3.12", .channel = "2026.10" },
        { .ref = "acme/python-313", .python = "3.13", .channel = "2026.11" },
    };
    el_spec_options so = { .format = EL_SPEC_FORMAT_DATAGEN, .bases = site, .n_bases = 2 };
    el_ctx *ctx = el_ctx_new();
    el_spec *s = el_spec_load_text(ctx, recipe, strlen(recipe), "r", &so);
    assert_int_equal(el_spec_finding_count(s), 0);
    char *json = el_spec_normalized_json(ctx, s, false);
    assert_non_null(strstr(json, "\"ref\":\"acme/python-312\",\"channel\":\"2026.10\""));
    assert_non_null(strstr(json, "\"name\":\"python\",\"version\":\"3.12\""));
    el_free(json);
    el_spec_free(s);
    so.bases = NULL;
    so.n_bases = 0;
    s = el_spec_load_text(ctx, recipe, strlen(recipe), "r", &so);
    bool said = false;
    for (size_t i = 0; i < el_spec_finding_count(s); i++)
        said |= strstr(el_spec_finding(s, i)->message, "no approved bases were given") != NULL;
    assert_true(said);
    el_spec_free(s);
    el_ctx_free(ctx);
}

static void catalog_format_and_root(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "format: envlock-bases/9\nvariants: [a]\nbases: {}\n",
        "- just\n- a list\n",
        "format: envlock-bases/1\nvariants: []\nbases: {}\n",
        "format: envlock-bases/1\nvariants: [a, a]\nbases: {}\n",
        "format: envlock-bases/1\nvariants: [a]\n",
    };
    static const char *const needles[] = {
        "is not a catalog format this envlock reads (envlock-bases/1)",
        "should be a mapping with format, variants and bases",
        "should name at least one variant",
        "`a` is listed twice",
        "bases: is required",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *path = temp_catalog(texts[i]);
        el_ctx *ctx = el_ctx_new();
        assert_null(target_catalog_load(ctx, path));
        if (!strstr(el_ctx_message(ctx), needles[i]))
            fail_msg("message `%s` lacks `%s`", el_ctx_message(ctx), needles[i]);
        el_ctx_free(ctx);
        unlink(path);
        free(path);
    }
}

/* ---- base resolution errors ---- */

static void base_errors(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, BASES_YAML);
    assert_non_null(cat);

    assert_null(target_catalog_find(ctx, cat, "datalayer/python-gpu", "2026.09"));
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    assert_string_equal(el_ctx_message(ctx), "`datalayer/python-gpu` is not an approved base; "
                                             "approved: datalayer/python-cpu, datalayer/python-cuda");
    assert_string_equal(detail(ctx, "field"), "spec.base.ref");

    assert_null(target_catalog_find(ctx, cat, "datalayer/python-cpu", "2026.08"));
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    assert_string_equal(el_ctx_message(ctx),
                        "`datalayer/python-cpu` has no channel `2026.08`; channels: 2026.09");
    assert_string_equal(detail(ctx, "field"), "spec.base.channel");

    const target_base *cuda = target_catalog_find(ctx, cat, "datalayer/python-cuda", "2026.09");
    assert_non_null(cuda);
    assert_null(target_base_digest(ctx, cuda, "e2b"));
    assert_int_equal(el_ctx_code(ctx), EL_ARTIFACT_MISSING);
    assert_true(el_ctx_retryable(ctx));
    assert_string_equal(el_ctx_message(ctx),
                        "`datalayer/python-cuda:2026.09` has no published digest for the e2b "
                        "variant; it resolves once the channel is pushed to "
                        "`environments/base/python-cuda`");
    assert_string_equal(detail(ctx, "reason"), "base_channel_unpublished");
    assert_string_equal(detail(ctx, "variant"), "e2b");
    target_catalog_free(cat);
    el_ctx_free(ctx);
}

/* ---- the protected-pin merge ---- */

static const char *const ref_pins[] = { "ipykernel==7.3.0",
                                        "jupyter-client==8.9.1",
                                        "jupyter-server==2.21.0+datalayer.1",
                                        "jupyter-server-nbmodel==0.2.8",
                                        "jupyter-kernels==1.2.23",
                                        "datalayer==1.7.4",
                                        NULL };

static el_spec_entry dep(const char *text, size_t i, unsigned line)
{
    static char fields[64][64];
    static size_t next;
    char *f = fields[next++ % 64];
    snprintf(f, 64, "spec.packages.python.dependencies[%zu]", i);
    return (el_spec_entry){ EL_SPEC_PYTHON_DEPENDENCIES, text, f, line, 7 };
}

static el_spec_entry con(const char *text, size_t i)
{
    static char fields[64][64];
    static size_t next;
    char *f = fields[next++ % 64];
    snprintf(f, 64, "spec.packages.python.constraints[%zu]", i);
    return (el_spec_entry){ EL_SPEC_PYTHON_CONSTRAINTS, text, f, 0, 0 };
}

static void merge_pins_only(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    arena *mem = arena_new();
    target_merged m;
    assert_int_equal(target_merge(ctx, mem, ref_pins, NULL, 0, NULL, 0, &m), EL_OK);
    assert_int_equal(m.n_roots, 12);
    assert_int_equal(m.n_notes, 0);
    for (size_t i = 0; i < 12; i++) {
        assert_string_equal(m.roots[i].text, ref_pins[i % 6]);
        assert_int_equal(m.roots[i].kind, i < 6 ? ROOT_REQUIREMENT : ROOT_CONSTRAINT);
        assert_true(m.roots[i].protected_pin);
        assert_string_equal(m.roots[i].field, "protected");
        assert_string_equal(m.roots[i].ecosystem, "pypi");
    }
    arena_free(mem);
    el_ctx_free(ctx);
}

static void merge_order_and_drops(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    arena *mem = arena_new();
    el_spec_entry deps[] = { dep("numpy==2.2.6", 0, 14), dep("  jupyter-server>=2.19  ", 1, 15),
                             dep("", 2, 16), dep("# a comment", 3, 17), dep("Jupyter_Client", 4, 18),
                             dep("pandas>=2", 5, 19) };
    el_spec_entry cons[] = { con("urllib3<3", 0), con("datalayer<2", 1), con("six", 2) };
    target_merged m;
    assert_int_equal(target_merge(ctx, mem, ref_pins, deps, 6, cons, 3, &m), EL_OK);
    /* numpy, pandas, 6 pins, urllib3, six, 6 pins */
    assert_int_equal(m.n_roots, 16);
    assert_string_equal(m.roots[0].text, "numpy==2.2.6");
    assert_int_equal(m.roots[0].line, 14);
    assert_int_equal(m.roots[0].column, 7);
    assert_string_equal(m.roots[0].field, "spec.packages.python.dependencies[0]");
    assert_false(m.roots[0].protected_pin);
    assert_string_equal(m.roots[1].text, "pandas>=2");
    assert_string_equal(m.roots[1].field, "spec.packages.python.dependencies[5]");
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(m.roots[2 + i].text, ref_pins[i]);
        assert_int_equal(m.roots[2 + i].kind, ROOT_REQUIREMENT);
        assert_true(m.roots[2 + i].protected_pin);
    }
    /* the jupyter-server pin is forced in as a requirement and as a constraint */
    assert_string_equal(m.roots[4].text, "jupyter-server==2.21.0+datalayer.1");
    assert_string_equal(m.roots[8].text, "urllib3<3");
    assert_int_equal(m.roots[8].kind, ROOT_CONSTRAINT);
    assert_false(m.roots[8].protected_pin);
    assert_string_equal(m.roots[9].text, "six");
    for (size_t i = 0; i < 6; i++) {
        assert_string_equal(m.roots[10 + i].text, ref_pins[i]);
        assert_int_equal(m.roots[10 + i].kind, ROOT_CONSTRAINT);
        assert_true(m.roots[10 + i].protected_pin);
    }
    assert_string_equal(m.roots[12].text, "jupyter-server==2.21.0+datalayer.1");
    assert_int_equal(m.n_notes, 3);
    assert_string_equal(m.notes[0], "jupyter-server is Datalayer's to pin; `jupyter-server>=2.19` "
                                    "agrees and is dropped");
    assert_string_equal(m.notes[1], "jupyter-client is Datalayer's to pin; `Jupyter_Client` "
                                    "agrees and is dropped");
    assert_string_equal(m.notes[2], "datalayer is Datalayer's to pin; `datalayer<2` agrees and "
                                    "is dropped");
    arena_free(mem);
    el_ctx_free(ctx);
}

static void merge_refused(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    arena *mem = arena_new();
    target_merged m;
    el_spec_entry d1[] = { dep("numpy", 0, 0), dep("ipykernel==6.0", 1, 15) };
    assert_int_equal(target_merge(ctx, mem, ref_pins, d1, 2, NULL, 0, &m), EL_PROTECTED_PACKAGE);
    assert_string_equal(el_ctx_message(ctx), "`ipykernel` is pinned by Datalayer to `==7.3.0`, "
                                             "which `ipykernel==6.0` excludes: remove it, or ask "
                                             "for a version inside that range");
    assert_string_equal(detail(ctx, "field"), "spec.packages.python.dependencies[1]");
    assert_string_equal(detail(ctx, "package"), "ipykernel");
    assert_string_equal(detail(ctx, "requested"), "==6.0");
    assert_string_equal(detail(ctx, "supported"), "==7.3.0");
    assert_false(el_ctx_retryable(ctx));

    /* the name as the user wrote it; the package canonical */
    el_spec_entry d2[] = { dep("IPyKernel<7", 0, 3) };
    assert_int_equal(target_merge(ctx, mem, ref_pins, d2, 1, NULL, 0, &m), EL_PROTECTED_PACKAGE);
    assert_string_equal(el_ctx_message(ctx), "`IPyKernel` is pinned by Datalayer to `==7.3.0`, "
                                             "which `IPyKernel<7` excludes: remove it, or ask for "
                                             "a version inside that range");
    assert_string_equal(detail(ctx, "package"), "ipykernel");
    assert_string_equal(detail(ctx, "requested"), "<7");

    /* a constraint is checked the same way, with its own field */
    el_spec_entry c1[] = { con("jupyter-server<2.21", 0) };
    assert_int_equal(target_merge(ctx, mem, ref_pins, NULL, 0, c1, 1, &m), EL_PROTECTED_PACKAGE);
    assert_string_equal(el_ctx_message(ctx),
                        "`jupyter-server` is pinned by Datalayer to `==2.21.0+datalayer.1`, which "
                        "`jupyter-server<2.21` excludes: remove it, or ask for a version "
                        "inside that range");
    assert_string_equal(detail(ctx, "field"), "spec.packages.python.constraints[0]");
    assert_string_equal(detail(ctx, "supported"), "==2.21.0+datalayer.1");

    /* several items: str(SpecifierSet) sorts them */
    el_spec_entry d3[] = { dep("datalayer>=1.8,<2", 0, 0) };
    assert_int_equal(target_merge(ctx, mem, ref_pins, d3, 1, NULL, 0, &m), EL_PROTECTED_PACKAGE);
    assert_string_equal(detail(ctx, "requested"), "<2,>=1.8");

    /* not a requirement */
    el_spec_entry d4[] = { dep("numpy>=>1", 0, 0) };
    assert_int_equal(target_merge(ctx, mem, ref_pins, d4, 1, NULL, 0, &m), EL_SPEC_INVALID);
    assert_string_equal(el_ctx_message(ctx), "`numpy>=>1` is not a requirement");
    assert_string_equal(detail(ctx, "requirement"), "numpy>=>1");
    assert_string_equal(detail(ctx, "field"), "spec.packages.python.dependencies[0]");
    arena_free(mem);
    el_ctx_free(ctx);
}

/* Branches of "permits" that the reference's own pins cannot reach. */
static void merge_permits_branches(void **state)
{
    (void)state;
    static const char *const pins[] = { "pre==2.0b1", "range>=1,<3", "arb===1.0", "local==1.0+x.1",
                                        NULL };
    el_ctx *ctx = el_ctx_new();
    arena *mem = arena_new();
    target_merged m;
    /* pre-releases allowed: >=1.0 contains 2.0b1 */
    el_spec_entry d1[] = { dep("pre>=1.0", 0, 0),
                           /* a pin without one version permits anything */
                           dep("range==5", 1, 0),
                           /* === pin: its version is compared as a version */
                           dep("arb>=1", 2, 0),
                           /* == on the public part matches a local version */
                           dep("local==1.0", 3, 0),
                           /* a public == ignores the pin's local label (PEP 440) */
                           dep("local==1.0.0", 6, 0),
                           /* a URL requirement has no specifier */
                           dep("pre @ https://example.invalid/pre-2.0b1-py3-none-any.whl", 4, 0),
                           /* markers are not consulted */
                           dep("arb; python_version < '3'", 5, 0) };
    assert_int_equal(target_merge(ctx, mem, pins, d1, 7, NULL, 0, &m), EL_OK);
    assert_int_equal(m.n_notes, 7);
    assert_int_equal(m.n_roots, 8);
    el_spec_entry d2[] = { dep("pre<2.0b1", 0, 0) };
    assert_int_equal(target_merge(ctx, mem, pins, d2, 1, NULL, 0, &m), EL_PROTECTED_PACKAGE);
    assert_string_equal(detail(ctx, "supported"), "==2.0b1");
    el_spec_entry d3[] = { dep("local==1.0+y", 0, 0) };
    assert_int_equal(target_merge(ctx, mem, pins, d3, 1, NULL, 0, &m), EL_PROTECTED_PACKAGE);
    arena_free(mem);
    el_ctx_free(ctx);
}

/* ---- the whole request from a spec ---- */

static const char demo_spec[] =
    "apiVersion: environments.datalayer.io/v1alpha1\n"   /* 1 */
    "kind: Environment\n"                                 /* 2 */
    "metadata:\n"                                         /* 3 */
    "  name: req-test\n"                                  /* 4 */
    "spec:\n"                                             /* 5 */
    "  language: {version: \"3.13\"}\n"                   /* 6 */
    "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n" /* 7 */
    "  packages:\n"                                       /* 8 */
    "    python:\n"                                       /* 9 */
    "      dependencies:\n"                               /* 10 */
    "        - numpy==2.2.6\n"                            /* 11 */
    "        - jupyter-server>=2.19\n"                    /* 12 */
    "      constraints: [\"urllib3<3\"]\n"                /* 13 */
    "    node:\n"                                         /* 14 */
    "      dependencies: [\"zod@^3\"]\n"                  /* 15 */
    "    system:\n"                                       /* 16 */
    "      apt: [gdal-bin, \"libpq-dev=15.8-0+deb12u1\"]\n" /* 17 */
    "      sources:\n"                                    /* 18 */
    "        - deb [signed-by=/etc/k.gpg] https://apt.example.invalid/debian bookworm main\n"
    "  compatibility:\n"
    "    variants: {required: [modal, datalayer], optional: [e2b]}\n";

static void request_from_spec(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, BASES_YAML);
    el_spec *spec = el_spec_load_text(ctx, demo_spec, strlen(demo_spec), "t",
                                      test_spec_opts());
    assert_int_equal(el_spec_validate(ctx, spec), EL_OK);
    target_request_options o = { .spec_text = demo_spec, .spec_len = strlen(demo_spec),
                                 .exclude_newer = "2026-09-01T00:00:00Z" };
    target_request *r = NULL;
    assert_int_equal(target_request_build(ctx, cat, spec, &o, &r), EL_OK);
    const resolve_request *rq = &r->rq;
    assert_string_equal(rq->base->ref, "datalayer/python-cpu");
    assert_string_equal(rq->spec_digest, r->spec_digest);
    assert_true(strncmp(rq->spec_digest, "sha256:", 7) == 0);
    assert_string_equal(rq->variants[0], "datalayer");
    assert_string_equal(rq->variants[1], "e2b");
    assert_string_equal(rq->variants[2], "modal");
    assert_null(rq->variants[3]);
    assert_string_equal(r->resolved_bases[2], "environments/base/python-cpu@sha256:334adf6c2714c891"
                                              "9ef60beeca1db12e3531a391c9dde41932c782f81c432b36");
    /* numpy, 6 pins, urllib3, 6 pins, zod, gdal-bin, libpq-dev */
    assert_int_equal(rq->n_roots, 17);
    assert_string_equal(rq->roots[0].text, "numpy==2.2.6");
    assert_int_equal(rq->roots[0].line, 11);
    assert_int_equal(rq->roots[0].column, 11);
    assert_string_equal(rq->roots[7].text, "urllib3<3");
    assert_int_equal(rq->roots[7].line, 13);
    assert_string_equal(rq->roots[14].ecosystem, "npm");
    assert_string_equal(rq->roots[14].text, "zod@^3");
    assert_string_equal(rq->roots[14].field, "spec.packages.node.dependencies[0]");
    assert_int_equal(rq->roots[14].line, 15);
    assert_string_equal(rq->roots[15].ecosystem, "deb");
    assert_string_equal(rq->roots[15].text, "gdal-bin");
    assert_string_equal(rq->roots[16].text, "libpq-dev=15.8-0+deb12u1");
    assert_int_equal(rq->roots[16].line, 17);
    /* a merge note, then: the shipped base names no node for zod@^3 */
    assert_int_equal(r->n_notes, 2);
    assert_string_equal(r->notes[1], "`datalayer/python-cpu:2026.09` names no node version: npm's "
                                     "preference for versions whose engines.node admits its node "
                                     "is not applied, so npm may pick other versions than this lock");
    assert_int_equal(rq->n_pypi_indexes, 1);
    assert_string_equal(rq->pypi_indexes[0], "https://pypi.org/simple");
    assert_string_equal(rq->npm_registry, "https://registry.npmjs.org");
    assert_int_equal(rq->n_apt_sources, 2);
    assert_string_equal(rq->apt_sources[0], "deb https://snapshot.debian.org/archive/debian/"
                                            "20260914T150000Z/ bookworm main");
    assert_string_equal(rq->apt_sources[1], "deb [signed-by=/etc/k.gpg] "
                                            "https://apt.example.invalid/debian bookworm main");
    assert_string_equal(rq->apt_keyring, "/usr/share/keyrings/debian-archive-keyring.gpg");
    assert_string_equal(rq->exclude_newer, "2026-09-01T00:00:00Z");
    target_request_free(r);
    el_spec_free(spec);
    target_catalog_free(cat);
    el_ctx_free(ctx);
}

/* An environment.yml (sourceFormat conda): python=<X.Y> first, the file's
 * match specs with their fields and spec positions (its own python spec
 * dropped with a note), its channels, the apt roots beside them; a pip:
 * list refused at its field (REFERENCE §3, conda). */
static const char conda_spec[] =
    "apiVersion: environments.datalayer.io/v1alpha1\n"       /* 1 */
    "kind: Environment\n"
    "metadata:\n"
    "  name: conda-env\n"
    "spec:\n"                                                  /* 5 */
    "  language:\n"
    "    version: \"3.13\"\n"
    "  base:\n"
    "    ref: datalayer/python-cpu\n"
    "    channel: \"2026.09\"\n"                               /* 10 */
    "  packages:\n"
    "    system:\n"
    "      apt: [gdal-bin]\n"
    "  build:\n"
    "    source: dependencyFile\n"                             /* 15 */
    "    dependencyFile:\n"
    "      sourceFormat: conda\n"
    "      content: |\n"
    "        channels: [conda-forge, bioconda]\n"
    "        dependencies:\n"                                  /* 20 */
    "          - numpy >=1.26\n"
    "          - python 3.12.*\n"
    "          - conda-forge::requests\n";

static void request_from_environment_yml(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, BASES_YAML);
    el_spec *spec = el_spec_load_text(ctx, conda_spec, strlen(conda_spec), "t",
                                      test_spec_opts());
    assert_int_equal(el_spec_validate(ctx, spec), EL_OK);
    target_request_options o = { .spec_text = conda_spec, .spec_len = strlen(conda_spec) };
    target_request *r = NULL;
    assert_int_equal(target_request_build(ctx, cat, spec, &o, &r), EL_OK);
    const resolve_request *rq = &r->rq;
    /* python=3.13, numpy, requests, then 6 pins twice, then gdal-bin */
    assert_int_equal(rq->n_roots, 16);
    assert_string_equal(rq->roots[0].ecosystem, "conda");
    assert_string_equal(rq->roots[0].text, "python=3.13");
    assert_string_equal(rq->roots[0].field, "spec.language.version");
    assert_string_equal(rq->roots[1].text, "numpy >=1.26");
    assert_string_equal(rq->roots[1].field, "spec.build.dependencyFile.content.dependencies[0]");
    assert_int_equal(rq->roots[1].line, 21);
    assert_int_equal(rq->roots[1].column, 13);
    assert_string_equal(rq->roots[2].text, "conda-forge::requests");
    assert_string_equal(rq->roots[2].field, "spec.build.dependencyFile.content.dependencies[2]");
    assert_int_equal(rq->roots[2].line, 23);
    assert_string_equal(rq->roots[3].ecosystem, "pypi");
    assert_true(rq->roots[3].protected_pin);
    assert_string_equal(rq->roots[15].ecosystem, "deb");
    assert_string_equal(rq->roots[15].text, "gdal-bin");
    assert_int_equal(rq->n_conda_channels, 2);
    assert_string_equal(rq->conda_channels[0], "conda-forge");
    assert_string_equal(rq->conda_channels[1], "bioconda");
    assert_int_equal(r->n_notes, 1);
    assert_string_equal(r->notes[0], "`python 3.12.*` (spec.build.dependencyFile.content."
                                     "dependencies[1]) is dropped: the environment's Python is "
                                     "`python=3.13`, from spec.language.version");
    target_request_free(r);
    el_spec_free(spec);

    /* a pip: list is the pip layer: its requirements are PyPI roots after
     * the conda ones, where a requirements file's would be (before the
     * pins), with their fields and spec positions */
    char *with_pip = xasprintf("%s          - pip:\n            - rich>=13\n", conda_spec);
    spec = el_spec_load_text(ctx, with_pip, strlen(with_pip), "t", test_spec_opts());
    o = (target_request_options){ .spec_text = with_pip, .spec_len = strlen(with_pip) };
    assert_int_equal(target_request_build(ctx, cat, spec, &o, &r), EL_OK);
    rq = &r->rq;
    assert_int_equal(rq->n_roots, 17);
    assert_string_equal(rq->roots[3].ecosystem, "pypi");
    assert_string_equal(rq->roots[3].text, "rich>=13");
    assert_false(rq->roots[3].protected_pin);
    assert_string_equal(rq->roots[3].field,
                        "spec.build.dependencyFile.content.dependencies[3].pip[0]");
    assert_int_equal(rq->roots[3].line, 25);
    assert_int_equal(rq->roots[3].column, 15);
    assert_true(rq->roots[4].protected_pin);
    assert_non_null(r->reqfile);
    target_request_free(r);
    el_spec_free(spec);
    free(with_pip);
    target_catalog_free(cat);
    el_ctx_free(ctx);
}

static el_code build_for(const char *text, el_ctx *ctx)
{
    target_catalog *cat = target_catalog_load(ctx, BASES_YAML);
    el_spec *spec =
        el_spec_load_text(ctx, text, strlen(text), "t", test_spec_opts());
    target_request *r = NULL;
    el_code rc = target_request_build(ctx, cat, spec, NULL, &r);
    target_request_free(r);
    el_spec_free(spec);
    target_catalog_free(cat);
    return rc;
}

static void image_references(void **state)
{
    (void)state;
    arena *mem = arena_new();
    const char *dg = NULL;
    assert_string_equal(target_image_normalize(mem, "docker.io/library/python:3.11-slim", &dg),
                        "python:3.11-slim");
    assert_null(dg);
    assert_string_equal(target_image_normalize(mem, "library/python:3.11-slim", &dg),
                        "python:3.11-slim");
    assert_string_equal(target_image_normalize(mem, "python", &dg), "python:latest");
    assert_string_equal(target_image_normalize(mem, "ghcr.io/acme/py:1@sha256:ab", &dg),
                        "ghcr.io/acme/py:1");
    assert_string_equal(dg, "sha256:ab");
    /* a registry port is not a tag */
    assert_string_equal(target_image_normalize(mem, "reg.example:5000/py", &dg),
                        "reg.example:5000/py:latest");
    arena_free(mem);
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, BASES_YAML);
    assert_non_null(cat);
    const target_base *b = target_catalog_find_image(ctx, cat, "docker.io/python:3.12-slim");
    assert_non_null(b);
    assert_string_equal(b->image, "python:3.12-slim");
    assert_string_equal(b->python_minor, "3.12");
    assert_string_equal(b->platform, "manylinux_2_36_x86_64");
    assert_null(target_catalog_find_image(ctx, cat, "python:3.12-slim@sha256:00"));
    assert_string_equal(detail(ctx, "reason"), "image_digest_differs");
    target_catalog_free(cat);
    el_ctx_free(ctx);
}

static void request_refusals(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    assert_int_equal(build_for("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
                               "metadata: {name: x}\nspec:\n  language: {version: \"3.13\"}\n"
                               "  base: {ref: datalayer/python-cuda, channel: \"2026.09\"}\n",
                               ctx),
                     EL_ARTIFACT_MISSING);
    assert_string_equal(detail(ctx, "variant"), "datalayer");
    assert_int_equal(build_for("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
                               "metadata: {name: x}\nspec:\n  language: {version: \"3.13\"}\n"
                               "  base: {ref: datalayer/python-cpu, channel: \"2026.08\"}\n",
                               ctx),
                     EL_SPEC_INVALID);
    assert_string_equal(detail(ctx, "field"), "spec.base.channel");
    assert_int_equal(build_for("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
                               "metadata: {name: x}\nspec:\n  language: {version: \"3.13\"}\n"
                               "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n"
                               "  packages: {python: {dependencies: [\"ipykernel==6.0\"]}}\n",
                               ctx),
                     EL_PROTECTED_PACKAGE);
    assert_string_equal(detail(ctx, "field"), "spec.packages.python.dependencies[0]");
    assert_int_equal(build_for("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
                               "metadata: {name: x}\nspec:\n  language: {version: \"3.13\"}\n"
                               "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n"
                               "  build: {source: image, image: {reference: "
                               "\"docker.io/library/python:3.13\"}}\n",
                               ctx),
                     EL_CAPABILITY_UNSUPPORTED);
    /* an image the catalog does not describe: its target is unknown */
    assert_string_equal(detail(ctx, "reason"), "image_not_in_catalog");
    assert_string_equal(detail(ctx, "field"), "spec.build.image.reference");
    assert_string_equal(detail(ctx, "image"), "docker.io/library/python:3.13");
    assert_int_equal(build_for("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
                               "metadata: {name: x}\nspec:\n  language: {version: \"3.13\"}\n"
                               "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n"
                               "  build: {source: dockerfile, dockerfile: {content: \"FROM "
                               "datalayer/python-cpu\"}}\n",
                               ctx),
                     EL_CAPABILITY_UNSUPPORTED);
    assert_string_equal(el_ctx_message(ctx),
                        "`dockerfile` is not resolved by envlock yet: only `packages`, "
                        "`dependencyFile` and `image` are");
    /* a spec with findings is refused with them */
    assert_int_equal(build_for("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
                               "metadata: {name: X}\nspec:\n  language: {version: \"3.13\"}\n"
                               "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n",
                               ctx),
                     EL_SPEC_INVALID);
    el_ctx_free(ctx);
}

/* ---- --exclude-newer ---- */

static void cutoff_instants(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "2026-09-14T15:00:00Z", "2026-09-14T15:00:00Z" },
        { "2026-09-14t17:00:00.25+02:00", "2026-09-14T15:00:00Z" },
        { "2026-09-14 15:00:00z", "2026-09-14T15:00:00Z" },
        { "2026-09-14T15:00:00.999999Z", "2026-09-14T15:00:00Z" },
        { "2026-09-14", "2026-09-14T00:00:00Z" },
        { "2024-02-29T00:00:00-01:30", "2024-02-29T01:30:00Z" },
        { "2026-12-31T23:30:00-00:45", "2027-01-01T00:15:00Z" },
        { "2026-01-01T00:10:00+00:30", "2025-12-31T23:40:00Z" },
        { "1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z" },
        { "2000-02-29T12:00:00Z", "2000-02-29T12:00:00Z" },
    };
    el_ctx *ctx = el_ctx_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[32];
        if (target_time_normalize(ctx, cases[i][0], 0, out) != EL_OK)
            fail_msg("refused %s: %s", cases[i][0], el_ctx_message(ctx));
        assert_string_equal(out, cases[i][1]);
    }
    el_ctx_free(ctx);
}

static void cutoff_spans(void **state)
{
    (void)state;
    /* now = 2026-09-14T15:00:00Z */
    const int64_t now = 1789398000;
    static const char *const cases[][2] = {
        { "7d", "2026-09-07T15:00:00Z" },   { "12h", "2026-09-14T03:00:00Z" },
        { "1w2d", "2026-09-05T15:00:00Z" }, { "90m", "2026-09-14T13:30:00Z" },
        { "30s", "2026-09-14T14:59:30Z" },  { "0d", "2026-09-14T15:00:00Z" },
        { "1d12h", "2026-09-13T03:00:00Z" },
    };
    el_ctx *ctx = el_ctx_new();
    char out[32];
    assert_int_equal(target_time_normalize(ctx, "0s", now, out), EL_OK);
    assert_string_equal(out, "2026-09-14T15:00:00Z");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(target_time_normalize(ctx, cases[i][0], now, out), EL_OK);
        assert_string_equal(out, cases[i][1]);
    }
    el_ctx_free(ctx);
}

static void cutoff_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "7", "d", "7x", "-7d", "7d ", " 7d", "2026-13-01", "2026-02-29", "2026-09-31",
        "2026-09-14T25:00:00Z", "2026-09-14T15:00:00", "2026-09-14T15:00:60Z",
        "2026-09-14T15:00Z", "2026-09-14T15:00:00.Z", "2026-09-14T15:00:00+0200",
        "2026-09-14T15:00:00+02:00x", "yesterday", "1969-12-31T23:59:59Z", "99999999999d",
        "2026-9-14",
    };
    el_ctx *ctx = el_ctx_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[32];
        if (target_time_normalize(ctx, bad[i], 1789398000, out) != EL_USAGE)
            fail_msg("accepted `%s` as %s", bad[i], out);
        assert_string_equal(detail(ctx, "option"), "--exclude-newer");
        assert_string_equal(out, "");
    }
    target_time_normalize(ctx, "soon", 0, (char[32]){ 0 });
    assert_string_equal(el_ctx_message(ctx),
                        "--exclude-newer `soon` is neither an RFC 3339 date-time "
                        "(2026-09-14T15:00:00Z), a date (2026-09-14) nor a span back from now "
                        "(7d, 12h, 1w2d)");
    el_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalog_shipped),
        cmocka_unit_test(catalog_default_path_env),
        cmocka_unit_test(catalog_minimal_ok),
        cmocka_unit_test(catalog_malformed),
        cmocka_unit_test(catalog_node_version),
        cmocka_unit_test(catalog_format_and_root),
        cmocka_unit_test(spec_view_of_the_catalog),
        cmocka_unit_test(spec_rules_take_the_view),
        cmocka_unit_test(channel_and_pins_are_findings),
        cmocka_unit_test(datagen_recipe_takes_the_first_base),
        cmocka_unit_test(base_errors),
        cmocka_unit_test(merge_pins_only),
        cmocka_unit_test(merge_order_and_drops),
        cmocka_unit_test(merge_refused),
        cmocka_unit_test(merge_permits_branches),
        cmocka_unit_test(request_from_spec),
        cmocka_unit_test(request_from_environment_yml),
        cmocka_unit_test(image_references),
        cmocka_unit_test(request_refusals),
        cmocka_unit_test(cutoff_instants),
        cmocka_unit_test(cutoff_spans),
        cmocka_unit_test(cutoff_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

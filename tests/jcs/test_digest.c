/* test_digest.c — the spec digest through the public API (el_spec_load_text,
 * el_spec_digest, el_spec_canonical_json): what must leave it unchanged
 * (defaults written or not, key order, spelling, metadata) and what must
 * change it (any value of the spec).
 *
 * On postInstall: REFERENCE §2 lists "postInstall=[]" among the changes.
 * `commands` defaults to {} which the model dumps as {"postInstall": []}, so
 * writing `postInstall: []` where there was nothing cannot change the digest;
 * the change the reference means is a non-empty list emptied. Both facts are
 * tested: emptying ["echo ready"] changes the digest, while absent `commands`,
 * `commands: {}` and `commands: {postInstall: []}` share one.
 *
 * `jcs_digest print FILE...` prints each file's digest instead (for
 * digest_reference.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util.h"
#include "test_bases.h"

/* A spec with a value in most fields, with `platform`, `build` and
 * `contract` written at their defaults. */
static const char *const BASE =
    "apiVersion: environments.datalayer.io/v1alpha1\n"
    "kind: Environment\n"
    "metadata:\n"
    "  name: digest-base\n"
    "  title: Digest base\n"
    "spec:\n"
    "  contract: sandbox-contract/v1\n"
    "  language: {name: python, version: \"3.13\"}\n"
    "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n"
    "  platform: {architecture: linux/amd64}\n"
    "  packages:\n"
    "    python:\n"
    "      dependencies: [\"numpy==2.1.0\", \"httpx>=0.27\"]\n"
    "    system:\n"
    "      apt: [curl, jq]\n"
    "  env: {MODE: fast, LEVEL: \"3\"}\n"
    "  commands:\n"
    "    postInstall: [\"echo ready\"]\n"
    "  resources:\n"
    "    hints: {cpu: 2, memoryGi: 4}\n"
    "  compatibility:\n"
    "    variants: {required: [datalayer], optional: [e2b]}\n"
    "  build: {source: packages}\n";

/* The same document, every mapping's keys in reverse order, and flow style. */
static const char *const BASE_REVERSED =
    "spec:\n"
    "  build: {source: packages}\n"
    "  compatibility:\n"
    "    variants: {optional: [e2b], required: [datalayer]}\n"
    "  resources:\n"
    "    hints: {memoryGi: 4, cpu: 2}\n"
    "  commands: {postInstall: [\"echo ready\"]}\n"
    "  env: {LEVEL: \"3\", MODE: fast}\n"
    "  packages:\n"
    "    system: {apt: [curl, jq]}\n"
    "    python: {dependencies: [\"numpy==2.1.0\", \"httpx>=0.27\"]}\n"
    "  platform: {architecture: linux/amd64}\n"
    "  base: {channel: \"2026.09\", ref: datalayer/python-cpu}\n"
    "  language: {version: \"3.13\", name: python}\n"
    "  contract: sandbox-contract/v1\n"
    "metadata: {title: Digest base, name: digest-base}\n"
    "kind: Environment\n"
    "apiVersion: environments.datalayer.io/v1alpha1\n";

/* Returns BASE with the one occurrence of `from` replaced by `to`. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    if (!p)
        fail_msg("`%s` is not in the base document", from);
    if (strstr(p + 1, from))
        fail_msg("`%s` is in the base document twice", from);
    strbuf sb = STRBUF_INIT;
    sb_add(&sb, text, (size_t)(p - text));
    sb_adds(&sb, to);
    sb_adds(&sb, p + strlen(from));
    return sb_detach(&sb, NULL);
}

/* The digest of `text` (which must load with no findings) into out. */
static void digest_of(const char *text, char out[EL_DIGEST_SIZE])
{
    el_ctx *ctx = el_ctx_new();
    el_spec *spec = el_spec_load_text(ctx, text, strlen(text), "test", test_spec_opts());
    assert_non_null(spec);
    size_t n = el_spec_finding_count(spec);
    for (size_t i = 0; i < n; i++) {
        const el_finding *f = el_spec_finding(spec, i);
        print_error("finding %u:%u %s: %s\n", f->line, f->column, f->field, f->message);
    }
    assert_int_equal(n, 0);
    assert_int_equal(el_spec_digest(ctx, spec, out), EL_OK);
    el_spec_free(spec);
    el_ctx_free(ctx);
}

static void assert_same(const char *a, const char *b)
{
    char da[EL_DIGEST_SIZE], db[EL_DIGEST_SIZE];
    digest_of(a, da);
    digest_of(b, db);
    assert_string_equal(da, db);
}

static void digest_format_is_sha256_of_canonical_json(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    el_spec *spec = el_spec_load_text(ctx, BASE, strlen(BASE), "base", test_spec_opts());
    assert_non_null(spec);
    char d[EL_DIGEST_SIZE];
    assert_int_equal(el_spec_digest(ctx, spec, d), EL_OK);
    assert_int_equal(strlen(d), 71);
    assert_memory_equal(d, "sha256:", 7);
    for (size_t i = 7; i < 71; i++)
        assert_non_null(strchr("0123456789abcdef", d[i]));
    char *canon = el_spec_canonical_json(ctx, spec);
    assert_non_null(canon);
    char hex[65];
    sha256_hex(canon, strlen(canon), hex);
    assert_string_equal(d + 7, hex);
    /* the spec object only, defaults written, no whitespace */
    assert_memory_equal(canon, "{\"base\":{\"channel\":\"2026.09\"", 28);
    assert_null(strstr(canon, "digest-base"));
    assert_null(strstr(canon, "Digest base"));
    assert_null(strstr(canon, ": "));
    assert_non_null(strstr(canon, "\"hints\":{\"cpu\":2,\"diskGi\":null,\"memoryGi\":4}"));
    assert_non_null(strstr(canon, "\"platform\":{\"architecture\":\"linux/amd64\"}"));
    el_free(canon);
    el_spec_free(spec);
    el_ctx_free(ctx);
}

static void defaults_written_or_not(void **state)
{
    (void)state;
    char *no_platform = edit(BASE, "  platform: {architecture: linux/amd64}\n", "");
    char *no_build = edit(BASE, "  build: {source: packages}\n", "");
    char *no_contract = edit(BASE, "  contract: sandbox-contract/v1\n", "");
    char *t1 = edit(no_platform, "  build: {source: packages}\n", "");
    char *none = edit(t1, "  contract: sandbox-contract/v1\n", "");
    char *no_lang_name = edit(BASE, "{name: python, version: \"3.13\"}", "{version: \"3.13\"}");
    char *explicit = edit(BASE, "  build: {source: packages}\n",
                          "  build: {source: packages, dependencyFile: null, image: null}\n"
                          "  files: []\n  buildSecrets: []\n  contentsBuild: []\n");
    assert_same(BASE, no_platform);
    assert_same(BASE, no_build);
    assert_same(BASE, no_contract);
    assert_same(BASE, none);
    assert_same(BASE, no_lang_name);
    assert_same(BASE, explicit);
    free(no_platform);
    free(no_build);
    free(no_contract);
    free(t1);
    free(none);
    free(no_lang_name);
    free(explicit);
}

static void key_order_spelling_and_syntax(void **state)
{
    (void)state;
    assert_same(BASE, BASE_REVERSED);
    /* snake_case spellings are the same fields */
    char *snake = edit(BASE, "memoryGi: 4", "memory_gi: 4");
    char *snake2 = edit(snake, "postInstall:", "post_install:");
    assert_same(BASE, snake2);
    /* an integral float is the same number as the integer */
    char *flt = edit(BASE, "cpu: 2,", "cpu: 2.0,");
    assert_same(BASE, flt);
    /* JSON text of the same document */
    const char *json =
        "{\"apiVersion\": \"environments.datalayer.io/v1alpha1\", \"kind\": \"Environment\","
        " \"metadata\": {\"name\": \"digest-base\"},"
        " \"spec\": {\"language\": {\"version\": \"3.13\"},"
        " \"base\": {\"ref\": \"datalayer/python-cpu\", \"channel\": \"2026.09\"},"
        " \"packages\": {\"python\": {\"dependencies\": [\"numpy==2.1.0\", \"httpx>=0.27\"]},"
        " \"system\": {\"apt\": [\"curl\", \"jq\"]}},"
        " \"env\": {\"MODE\": \"fast\", \"LEVEL\": \"3\"},"
        " \"commands\": {\"postInstall\": [\"echo ready\"]},"
        " \"resources\": {\"hints\": {\"cpu\": 2, \"memoryGi\": 4.0}},"
        " \"compatibility\": {\"variants\": {\"required\": [\"datalayer\"], \"optional\": [\"e2b\"]}}}}";
    assert_same(BASE, json);
    free(snake);
    free(snake2);
    free(flt);
}

static void metadata_is_not_digested(void **state)
{
    (void)state;
    char *title = edit(BASE, "title: Digest base", "title: Another title entirely");
    char *no_title = edit(BASE, "  title: Digest base\n", "");
    char *name = edit(BASE, "name: digest-base", "name: renamed");
    char *labels = edit(BASE, "  title: Digest base\n", "  labels: {team: ml, tier: gold}\n");
    assert_same(BASE, title);
    assert_same(BASE, no_title);
    assert_same(BASE, name);
    assert_same(BASE, labels);
    free(title);
    free(no_title);
    free(name);
    free(labels);
}

/* Absent `commands`, `commands: {}` and `postInstall: []` are one value. */
static void post_install_default(void **state)
{
    (void)state;
    char *empty = edit(BASE, "    postInstall: [\"echo ready\"]\n", "    postInstall: []\n");
    char *braces = edit(BASE, "  commands:\n    postInstall: [\"echo ready\"]\n", "  commands: {}\n");
    char *absent = edit(BASE, "  commands:\n    postInstall: [\"echo ready\"]\n", "");
    assert_same(empty, braces);
    assert_same(empty, absent);
    free(empty);
    free(braces);
    free(absent);
}

/* Every value change changes the digest, and no two changes collide. */
static void value_changes_change_it(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to;
    } changes[] = {
        { "numpy==2.1.0", "numpy==2.1.1" },                  /* a dependency pin */
        { "\"httpx>=0.27\"]", "\"httpx>=0.27\", \"rich\"]" }, /* a dependency added */
        { "[\"numpy==2.1.0\", \"httpx>=0.27\"]", "[\"httpx>=0.27\", \"numpy==2.1.0\"]" }, /* order */
        { "apt: [curl, jq]", "apt: [curl, jq=1.6-2.1]" },    /* an apt entry */
        { "MODE: fast", "MODE: slow" },                      /* an env value */
        { "LEVEL: \"3\"", "LEVEL: \"03\"" },                 /* an env value, textually */
        { "optional: [e2b]", "optional: [e2b, modal]" },     /* optional variants */
        { "optional: [e2b]", "optional: []" },
        { "cpu: 2,", "cpu: 1," },                            /* hints */
        { "memoryGi: 4}", "memoryGi: 4, diskGi: 10}" },
        { "cpu: 2,", "cpu: 2.5," },
        { "channel: \"2026.09\"", "channel: \"2026.08\"" },  /* base.channel */
        { "postInstall: [\"echo ready\"]", "postInstall: []" }, /* postInstall emptied */
        { "postInstall: [\"echo ready\"]", "postInstall: [\"echo  ready\"]" },
    };
    size_t n = sizeof changes / sizeof changes[0];
    char (*d)[EL_DIGEST_SIZE] = xcalloc(n + 1, sizeof *d);
    digest_of(BASE, d[n]);
    for (size_t i = 0; i < n; i++) {
        char *t = edit(BASE, changes[i].from, changes[i].to);
        digest_of(t, d[i]);
        free(t);
        if (strcmp(d[i], d[n]) == 0)
            fail_msg("`%s` -> `%s` left the digest unchanged", changes[i].from, changes[i].to);
        for (size_t j = 0; j < i; j++)
            if (strcmp(d[i], d[j]) == 0)
                fail_msg("changes %zu and %zu give the same digest", j, i);
    }
    /* sizeClass, an env key, regions, manager */
    static const struct {
        const char *from, *to;
    } more[] = {
        { "    hints: {cpu: 2, memoryGi: 4}\n", "    hints: {cpu: 2, memoryGi: 4}\n    sizeClass: medium\n" },
        { "{MODE: fast, LEVEL: \"3\"}", "{MODE: fast, LEVEL: \"3\", EXTRA: \"\"}" },
        { "optional: [e2b]}\n", "optional: [e2b]}\n    regions: [r1]\n" },
        { "      dependencies:", "      manager: pip\n      dependencies:" },
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        char *t = edit(BASE, more[i].from, more[i].to);
        char dd[EL_DIGEST_SIZE];
        digest_of(t, dd);
        free(t);
        if (strcmp(dd, d[n]) == 0)
            fail_msg("`%s` -> `%s` left the digest unchanged", more[i].from, more[i].to);
    }
    free(d);
}

static void refused_with_findings(void **state)
{
    (void)state;
    char *bad = edit(BASE, "channel: \"2026.09\"}", "channel: \"2026.09\", extra: 1}");
    el_ctx *ctx = el_ctx_new();
    el_spec *spec = el_spec_load_text(ctx, bad, strlen(bad), "bad", test_spec_opts());
    assert_non_null(spec);
    assert_true(el_spec_finding_count(spec) > 0);
    char d[EL_DIGEST_SIZE] = "";
    assert_int_equal(el_spec_digest(ctx, spec, d), EL_SPEC_INVALID);
    assert_null(el_spec_canonical_json(ctx, spec));
    el_spec_free(spec);
    el_ctx_free(ctx);
    free(bad);
}

/* A DataGen recipe's digest is that of the Environment it maps to. */
static void datagen_recipe_digest(void **state)
{
    (void)state;
    const char *recipe = "name: Scraper\n"
                         "template: Web Scraping & HTTP\n"
                         "packages: {apt: curl}\n"
                         "resources: {cpu: 2, memory: 2GB}\n";
    const char *env = "apiVersion: environments.datalayer.io/v1alpha1\n"
                      "kind: Environment\n"
                      "metadata: {name: whatever}\n"
                      "spec:\n"
                      "  language: {version: \"3.13\"}\n"
                      "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n"
                      "  packages:\n"
                      "    python: {manager: pip, dependencies: [requests, httpx, beautifulsoup4, lxml]}\n"
                      "    system: {apt: [curl]}\n"
                      "  resources: {hints: {cpu: 2, memoryGi: 2}}\n";
    assert_same(recipe, env);
}

static int print_digests(int argc, char **argv)
{
    int rc = 0;
    for (int i = 2; i < argc; i++) {
        el_ctx *ctx = el_ctx_new();
        el_spec *spec = el_spec_load_file(ctx, argv[i], test_spec_opts());
        char d[EL_DIGEST_SIZE];
        if (spec && el_spec_digest(ctx, spec, d) == EL_OK) {
            puts(d);
        } else {
            fprintf(stderr, "%s: %s\n", argv[i], el_ctx_message(ctx));
            rc = 1;
        }
        el_spec_free(spec);
        el_ctx_free(ctx);
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "print") == 0)
        return print_digests(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(digest_format_is_sha256_of_canonical_json),
        cmocka_unit_test(defaults_written_or_not),
        cmocka_unit_test(key_order_spelling_and_syntax),
        cmocka_unit_test(metadata_is_not_digested),
        cmocka_unit_test(post_install_default),
        cmocka_unit_test(value_changes_change_it),
        cmocka_unit_test(refused_with_findings),
        cmocka_unit_test(datagen_recipe_digest),
    };
    return cmocka_run_group_tests_name("digest", tests, NULL, NULL);
}

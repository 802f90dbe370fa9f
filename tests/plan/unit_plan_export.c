/* unit_plan_export.c — cmocka tests of plan_export.c: the exact bytes of
 * every export of a small hand-written lock (export-small.lock; the
 * expected files beside it were worked out by hand from each format's
 * rules), determinism on a real lock (demo.lock), the resolved-at rule,
 * the format names, and the locks each format refuses.
 *
 * `unit_plan_export write DIR` writes the exports of the fixtures to DIR
 * instead (export_readers.py checks them with the formats' own readers:
 * the reference's lock-text readers, tomllib, pip's parser, node). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lock.h"
#include "plan.h"

#define DIGEST "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static lock_doc *load(const char *name)
{
    char *path = xasprintf("%s/%s", PLAN_TEST_DIR, name);
    size_t len;
    char *text = read_file(path, 1 << 24, &len);
    if (!text)
        fail_msg("cannot read %s", path);
    el_ctx *ctx = el_ctx_new();
    lock_doc *d = lock_read_text(ctx, text, len);
    if (!d)
        fail_msg("%s: %s", path, el_ctx_message(ctx));
    el_ctx_free(ctx);
    free(text);
    free(path);
    return d;
}

static const char *const small_pins[] = { "ipykernel==7.3.0", "jupyter-client==8.9.1", NULL };
static const char *const small_constraints[] = { "urllib3<3", NULL };

/* What the verbs would give for the small lock: a spec, the catalog's facts. */
static plan_input small_input(const lock_doc *d, plan_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->name = "small-env";
    spec->python_constraints = small_constraints;
    return (plan_input){ .lock = d,
                         .lock_digest = DIGEST,
                         .spec = spec,
                         .python_minor = "3.13",
                         .base_repository = "environments/base/python-cpu",
                         .base_registry = "registry.example:5000",
                         .apt_snapshot = "20260914T150000Z",
                         .protected_pins = small_pins };
}

static void expect_file(const char *got, size_t len, const char *name)
{
    char *path = xasprintf("%s/%s", PLAN_TEST_DIR, name);
    size_t want_len;
    char *want = read_file(path, 1 << 24, &want_len);
    if (!want)
        fail_msg("cannot read %s", path);
    assert_non_null(got);
    assert_int_equal(strlen(got), len);
    if (len != want_len || memcmp(got, want, len) != 0) {
        print_message("--- %s differs; got:\n%s", name, got);
        assert_string_equal(got, want);
    }
    free(want);
    free(path);
}

static char *export_ok(const plan_input *in, plan_format fmt, size_t *len)
{
    el_ctx *ctx = el_ctx_new();
    char *t = plan_export(ctx, in, fmt, len);
    if (!t)
        fail_msg("export %d: %s", (int)fmt, el_ctx_message(ctx));
    el_ctx_free(ctx);
    return t;
}

/* ---- names and resolved-at ---- */

static void test_format_names(void **state)
{
    (void)state;
    static const char *const names[] = { "uv-pip-compile", "requirements", "pylock",
                                         "package-lock", "apt", "cyclonedx", "spdx",
                                         "conda-explicit", "conda-lock" };
    for (int i = 0; i < 9; i++) {
        plan_format f = PLAN_APT;
        assert_true(plan_format_parse(names[i], &f));
        assert_int_equal(f, i);
        assert_non_null(strstr(plan_format_names(), names[i]));
    }
    plan_format f;
    assert_false(plan_format_parse("pip", &f));
    assert_false(plan_format_parse("APT", &f));
    assert_false(plan_format_parse("", &f));
    assert_false(plan_format_parse(NULL, &f));
    assert_string_equal(plan_format_names(),
                        "uv-pip-compile, requirements, pylock, package-lock, apt, cyclonedx, "
                        "spdx, conda-explicit, conda-lock");
}

/* conda-explicit: conda's explicit file (`conda list --explicit --md5`'s
 * shape), the platform from the packages' own subdir, one URL#md5 line per
 * package in name order, #sha256:<hex> without an md5; a package without a
 * file URL is refused by name. */
static lock_package *conda_pkg(lock_doc *d, const char *name, const char *version,
                               const char *build, const char *subdir, const char *md5)
{
    lock_package *p = lock_doc_add_package(d);
    p->ecosystem = "conda";
    p->name = name;
    p->version = version;
    p->build = build;
    p->subdir = subdir;
    p->source = "https://conda.anaconda.org/conda-forge";
    lock_artifact *a = lock_package_add_artifact(d, p);
    a->file = lock_strdup(d, "f");
    char *url = xasprintf("https://conda.anaconda.org/conda-forge/%s/%s-%s-%s.conda", subdir,
                          name, version, build);
    a->url = lock_strdup(d, url);
    free(url);
    a->hash = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    a->md5 = md5;
    return p;
}

static void test_conda_explicit(void **state)
{
    (void)state;
    lock_doc *d = lock_doc_new();
    d->arch = "amd64";
    conda_pkg(d, "tzdata", "2025c", "hc9c84f9_1", "noarch", NULL);
    conda_pkg(d, "python", "3.13.7", "h2b335a9_100_cp313", "linux-64",
              "0123456789abcdef0123456789abcdef");
    lock_doc_sort(d);
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    size_t len = 0;
    char *t = export_ok(&in, PLAN_CONDA_EXPLICIT, &len);
    assert_string_equal(
        t, "# Exported by envlock from lock " DIGEST ": create the environment with\n"
           "# micromamba create --name ENV --file <this file>\n"
           "# platform: linux-64\n"
           "@EXPLICIT\n"
           "https://conda.anaconda.org/conda-forge/linux-64/python-3.13.7-h2b335a9_100_cp313.conda"
           "#0123456789abcdef0123456789abcdef\n"
           "https://conda.anaconda.org/conda-forge/noarch/tzdata-2025c-hc9c84f9_1.conda"
           "#sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
    free(t);
    lock_package *p = conda_pkg(d, "zlib", "1.3", "h0_0", "linux-64", NULL);
    p->artifacts[0].url = NULL;
    el_ctx *ctx = el_ctx_new();
    assert_null(plan_export(ctx, &in, PLAN_CONDA_EXPLICIT, &len));
    assert_int_equal(el_ctx_code(ctx), EL_CAPABILITY_UNSUPPORTED);
    assert_non_null(strstr(el_ctx_message(ctx), "conda:zlib@1.3"));
    el_ctx_free(ctx);
    lock_doc_free(d);
}

/* A lock with no conda package is no conda environment: both conda
 * formats refuse it as the lock a format cannot hold, not an empty file. */
static void test_conda_none(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    for (plan_format f = PLAN_CONDA_EXPLICIT; f <= PLAN_CONDA_LOCK; f++) {
        el_ctx *ctx = el_ctx_new();
        size_t len = 1;
        assert_null(plan_export(ctx, &in, f, &len));
        assert_int_equal(len, 0);
        assert_int_equal(el_ctx_code(ctx), EL_CAPABILITY_UNSUPPORTED);
        assert_non_null(strstr(el_ctx_message(ctx), "it has no conda packages"));
        el_ctx_free(ctx);
    }
    lock_doc_free(d);
}

static void add_edge(lock_doc *d, lock_package *p, const char *eco, const char *name,
                     const char *spec)
{
    lock_edge *e = lock_package_add_dep(d, p);
    e->ecosystem = eco;
    e->name = name;
    e->version = "1";
    e->spec = spec;
}

static lock_package *pypi_pkg(lock_doc *d, const char *name, const char *version, bool in_base)
{
    lock_package *p = lock_doc_add_package(d);
    p->ecosystem = "pypi";
    p->name = name;
    p->version = version;
    p->installed_in_base = in_base;
    p->source = "https://pypi.org/simple";
    return p;
}

static void pypi_file(lock_doc *d, lock_package *p, const char *file, char hex)
{
    lock_artifact *a = lock_package_add_artifact(d, p);
    a->file = file;
    char *url = xasprintf("https://files.example/%s", file), h[72] = "sha256:";
    a->url = lock_strdup(d, url);
    free(url);
    memset(h + 7, hex, 64);
    h[71] = '\0';
    a->hash = lock_strdup(d, h);
}

/* conda-lock (CEP 37, conda-lock's lockfile version 1): version, metadata
 * (content_hash per platform = the lock digest's hex, channels with
 * used_env_vars, platforms, sources), then one package entry per conda
 * package in name order and per pip-layer package (Python packages not in
 * the base), with name, version, manager, platform (the environment's, for
 * noarch too), dependencies (conda: the match spec after the name, "" for
 * none; pip: the PEP 508 specifier without name, extras, marker, "*" for
 * none; a repeated name's values that say something, joined), url, hash
 * (md5 and sha256 as the record has them), category main, optional false.
 * A pip package picks its first wheel by name. */
static void test_conda_lock(void **state)
{
    (void)state;
    lock_doc *d = lock_doc_new();
    d->arch = "amd64";
    conda_pkg(d, "tzdata", "2025c", "hc9c84f9_1", "noarch", NULL);
    lock_package *py = conda_pkg(d, "python", "3.13.7", "h2b335a9_100_cp313", "linux-64",
                                 "0123456789abcdef0123456789abcdef");
    add_edge(d, py, "conda", "tzdata", "tzdata");
    add_edge(d, py, "conda", "libzlib", "libzlib >=1.3.1,<2.0a0");
    add_edge(d, py, "conda", "libzlib", "libzlib"); /* a repeat saying nothing more */
    lock_package *rq = pypi_pkg(d, "requests", "2.32.5", false);
    pypi_file(d, rq, "requests-2.32.5.tar.gz", 'c');
    pypi_file(d, rq, "requests-2.32.5-py3-none-any.whl", 'b');
    add_edge(d, rq, "pypi", "idna", "idna<4,>=2.5");
    add_edge(d, rq, "pypi", "pysocks", "PySocks[x]!=1.5.7,>=1.5.6; extra == \"socks\"");
    add_edge(d, rq, "pypi", "certifi", "certifi");
    pypi_pkg(d, "pip", "25.2", true);
    lock_doc_sort(d); /* packages move: `rq` is found again by name */
    for (size_t i = 0; i < d->n_packages; i++)
        if (strcmp(d->packages[i].name, "requests") == 0)
            rq = &d->packages[i];
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    size_t len = 0;
    char *t = export_ok(&in, PLAN_CONDA_LOCK, &len);
    assert_string_equal(
        t, "# Exported by envlock from lock " DIGEST ": create the environment with\n"
           "# conda-lock install --name ENV <this file>\n"
           "version: 1\n"
           "metadata:\n"
           "  content_hash:\n"
           "    linux-64: \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n"
           "  channels:\n"
           "  - url: \"https://conda.anaconda.org/conda-forge\"\n"
           "    used_env_vars: []\n"
           "  platforms:\n"
           "  - \"linux-64\"\n"
           "  sources: []\n"
           "package:\n"
           "- name: \"python\"\n"
           "  version: \"3.13.7\"\n"
           "  manager: \"conda\"\n"
           "  platform: \"linux-64\"\n"
           "  dependencies:\n"
           "    \"libzlib\": \">=1.3.1,<2.0a0\"\n"
           "    \"tzdata\": \"\"\n"
           "  url: \"https://conda.anaconda.org/conda-forge/linux-64/"
           "python-3.13.7-h2b335a9_100_cp313.conda\"\n"
           "  hash:\n"
           "    md5: \"0123456789abcdef0123456789abcdef\"\n"
           "    sha256: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n"
           "  category: \"main\"\n"
           "  optional: false\n"
           "- name: \"tzdata\"\n"
           "  version: \"2025c\"\n"
           "  manager: \"conda\"\n"
           "  platform: \"linux-64\"\n"
           "  dependencies: {}\n"
           "  url: \"https://conda.anaconda.org/conda-forge/noarch/"
           "tzdata-2025c-hc9c84f9_1.conda\"\n"
           "  hash:\n"
           "    sha256: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n"
           "  category: \"main\"\n"
           "  optional: false\n"
           "- name: \"requests\"\n"
           "  version: \"2.32.5\"\n"
           "  manager: \"pip\"\n"
           "  platform: \"linux-64\"\n"
           "  dependencies:\n"
           "    \"certifi\": \"*\"\n"
           "    \"idna\": \"<4,>=2.5\"\n"
           "    \"pysocks\": \"!=1.5.7,>=1.5.6\"\n"
           "  url: \"https://files.example/requests-2.32.5-py3-none-any.whl\"\n"
           "  hash:\n"
           "    sha256: \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"\n"
           "  category: \"main\"\n"
           "  optional: false\n");
    free(t);
    lock_artifact *whl = &rq->artifacts[0], *sdist = &rq->artifacts[1];
    if (strstr(sdist->file, ".whl")) {
        whl = &rq->artifacts[1];
        sdist = &rq->artifacts[0];
    }
    whl->url = NULL; /* the sdist is then the one file to name */
    t = export_ok(&in, PLAN_CONDA_LOCK, &len);
    assert_non_null(strstr(t, "  url: \"https://files.example/requests-2.32.5.tar.gz\"\n"
                              "  hash:\n    sha256: \"cccccccc"));
    free(t);
    sdist->url = NULL; /* no file with a URL: refused by name */
    el_ctx *ctx = el_ctx_new();
    assert_null(plan_export(ctx, &in, PLAN_CONDA_LOCK, &len));
    assert_int_equal(el_ctx_code(ctx), EL_CAPABILITY_UNSUPPORTED);
    assert_non_null(strstr(el_ctx_message(ctx), "pypi:requests@2.32.5"));
    el_ctx_free(ctx);
    lock_doc_free(d);
}

static void test_resolved_at(void **state)
{
    (void)state;
    lock_doc *d = lock_doc_new();
    plan_input in = { .lock = d };
    char out[32];
    plan_resolved_at(&in, out);
    assert_string_equal(out, "1970-01-01T00:00:00+00:00");
    in.apt_snapshot = "20260914T150000Z";
    plan_resolved_at(&in, out);
    assert_string_equal(out, "2026-09-14T15:00:00+00:00");
    in.apt_snapshot = "20261314T150000Z"; /* no 13th month: not a time */
    plan_resolved_at(&in, out);
    assert_string_equal(out, "1970-01-01T00:00:00+00:00");
    in.apt_snapshot = "20260914T150000Z";
    d->exclude_newer = "2026-09-01T14:30:45.999+02:00"; /* wins; fraction dropped, UTC */
    plan_resolved_at(&in, out);
    assert_string_equal(out, "2026-09-01T12:30:45+00:00");
    d->exclude_newer = "1969-12-31T23:59:59.5Z";
    plan_resolved_at(&in, out);
    assert_string_equal(out, "1969-12-31T23:59:59+00:00");
    lock_doc_free(d);
}

/* ---- the small lock, byte for byte ---- */

/* The fixtures are locks as envlock writes them (read, write: same bytes). */
static void test_fixtures_canonical(void **state)
{
    (void)state;
    static const char *const names[] = { "export-small.lock", "export-collate.lock", "demo.lock" };
    for (size_t i = 0; i < 3; i++) {
        char *path = xasprintf("%s/%s", PLAN_TEST_DIR, names[i]);
        size_t len, wlen;
        char *text = read_file(path, 1 << 24, &len);
        lock_doc *d = load(names[i]);
        char *w = lock_write_text(d, &wlen);
        assert_non_null(text);
        if (wlen != len || memcmp(w, text, len) != 0)
            fail_msg("%s is not canonical; written back:\n%s", names[i], w);
        free(w);
        free(text);
        free(path);
        lock_doc_free(d);
    }
}

static void check_small(plan_format fmt, const char *expected)
{
    lock_doc *d = load("export-small.lock");
    plan_spec spec;
    plan_input in = small_input(d, &spec);
    size_t len;
    char *t = export_ok(&in, fmt, &len);
    expect_file(t, len, expected);
    free(t);
    lock_doc_free(d);
}

static void test_small_uv(void **state)
{
    (void)state;
    check_small(PLAN_UV_PIP_COMPILE, "export-small.uv-pip-compile.txt");
}

static void test_small_requirements(void **state)
{
    (void)state;
    check_small(PLAN_REQUIREMENTS, "export-small.requirements.txt");
}

static void test_small_pylock(void **state)
{
    (void)state;
    check_small(PLAN_PYLOCK, "export-small.pylock.toml");
}

static void test_small_package_lock(void **state)
{
    (void)state;
    check_small(PLAN_PACKAGE_LOCK, "export-small.package-lock.json");
}

static void test_small_apt(void **state)
{
    (void)state;
    check_small(PLAN_APT, "export-small.apt.txt");
}

static void test_small_texts(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_spec spec;
    plan_input in = small_input(d, &spec);
    size_t len;
    char *t = plan_package_json_text(&in, &len);
    expect_file(t, len, "export-small.package.json");
    free(t);
    t = plan_apt_sources_text(&in, &len);
    expect_file(t, len, "export-small.sources.list");
    free(t);
    /* only_installs: the base's ipykernel has no hash either way; all the
     * others are installed, so both texts are the export's */
    t = plan_requirements_text(&in, true, &len);
    expect_file(t, len, "export-small.requirements.txt");
    free(t);
    lock_doc_free(d);
}

/* Without a spec or catalog facts (what `envlock export` gives the
 * formats other than uv-pip-compile): the lock's own values. */
static void test_small_bare_input(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    size_t len;
    char *t = export_ok(&in, PLAN_UV_PIP_COMPILE, &len);
    expect_file(t, len, "export-small.bare.uv-pip-compile.txt");
    free(t);
    t = plan_package_json_text(&in, &len);
    assert_non_null(strstr(t, "\"name\": \"envlock-plan\""));
    free(t);
    t = export_ok(&in, PLAN_PACKAGE_LOCK, &len);
    assert_non_null(strstr(t, "\"name\": \"envlock-plan\""));
    free(t);
    lock_doc_free(d);
}

/* ---- the demo lock: same bytes every time ---- */

static void test_demo_deterministic(void **state)
{
    (void)state;
    lock_doc *a = load("demo.lock"), *b = load("demo.lock");
    plan_input ia = { .lock = a, .lock_digest = DIGEST }, ib = { .lock = b, .lock_digest = DIGEST };
    for (int f = PLAN_UV_PIP_COMPILE; f <= PLAN_APT; f++) {
        size_t la, lb, lc;
        char *x = export_ok(&ia, (plan_format)f, &la), *y = export_ok(&ib, (plan_format)f, &lb);
        char *z = export_ok(&ia, (plan_format)f, &lc);
        assert_true(la > 0);
        assert_int_equal(la, lb);
        assert_int_equal(la, lc);
        assert_memory_equal(x, y, la);
        assert_memory_equal(x, z, la);
        free(x);
        free(y);
        free(z);
    }
    /* the demo installs debs and npm packages: both texts exist */
    size_t len;
    char *t = plan_apt_sources_text(&ia, &len);
    assert_string_equal(t, "# The apt sources of envlock lock " DIGEST "\n"
                           "deb [check-valid-until=no] https://snapshot.debian.org/archive/debian/20260914T150000Z/ "
                           "bookworm main\n");
    free(t);
    t = plan_package_json_text(&ia, &len);
    assert_non_null(t);
    free(t);
    lock_doc_free(a);
    lock_doc_free(b);
}

/* A lock with nothing in it: every export is valid (empty) text. */
static void test_empty_lock(void **state)
{
    (void)state;
    lock_doc *d = lock_doc_new();
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    size_t len;
    char *t = export_ok(&in, PLAN_APT, &len);
    assert_int_equal(len, 0);
    assert_string_equal(t, "");
    free(t);
    t = export_ok(&in, PLAN_PACKAGE_LOCK, &len);
    assert_string_equal(t, "{\n  \"name\": \"envlock-plan\",\n  \"lockfileVersion\": 3,\n"
                           "  \"requires\": true,\n  \"packages\": {\n    \"\": {\n"
                           "      \"name\": \"envlock-plan\"\n    }\n  }\n}\n");
    free(t);
    t = export_ok(&in, PLAN_REQUIREMENTS, &len);
    assert_non_null(strstr(t, DIGEST));
    assert_null(strstr(t, "=="));
    free(t);
    t = export_ok(&in, PLAN_PYLOCK, &len);
    assert_string_equal(t, "# Exported by envlock from lock " DIGEST
                           ". Do not edit: change the spec and lock again.\n"
                           "lock-version = \"1.0\"\ncreated-by = \"envlock\"\n");
    free(t);
    t = export_ok(&in, PLAN_UV_PIP_COMPILE, &len);
    assert_non_null(strstr(t, "# resolved-at: 1970-01-01T00:00:00+00:00\n# python: \n# base: \n"));
    free(t);
    assert_null(plan_package_json_text(&in, &len));
    assert_null(plan_apt_sources_text(&in, &len));
    lock_doc_free(d);
}

/* ---- what each format refuses ---- */

static lock_package *find_pkg(lock_doc *d, const char *eco, const char *name, const char *version)
{
    for (size_t i = 0; i < d->n_packages; i++) {
        lock_package *p = &d->packages[i];
        if (!strcmp(p->ecosystem, eco) && !strcmp(p->name, name) &&
            (!version || !strcmp(p->version, version)))
            return p;
    }
    fail_msg("no %s:%s", eco, name);
    return NULL;
}

static void expect_refusal(const plan_input *in, plan_format fmt, const char *package,
                           const char *words)
{
    el_ctx *ctx = el_ctx_new();
    size_t len = 99;
    char *t = plan_export(ctx, in, fmt, &len);
    assert_null(t);
    assert_int_equal(len, 0);
    assert_int_equal(el_ctx_code(ctx), EL_CAPABILITY_UNSUPPORTED);
    const char *msg = el_ctx_message(ctx);
    if (!strstr(msg, package) || !strstr(msg, words))
        fail_msg("message `%s` lacks `%s` / `%s`", msg, package, words);
    json_object *det = el_ctx_detail(ctx), *v;
    assert_true(json_object_object_get_ex(det, "reason", &v));
    assert_string_equal(json_object_get_string(v), "unexportable_lock");
    assert_true(json_object_object_get_ex(det, "package", &v));
    assert_string_equal(json_object_get_string(v), package);
    el_ctx_free(ctx);
}

/* A pypi package the base does not have and no sha256 artifact: pip's
 * hash-checking mode cannot install it, so requirements and uv-pip-compile
 * refuse the lock (naming it) instead of leaving it out; the plan's
 * requirements text, which has no way to fail, leaves it out. pylock
 * takes any algorithm:value hash, so an md5 is kept there. */
static void test_refuse_unhashed(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    lock_package *p = find_pkg(d, "pypi", "certifi", NULL);
    p->artifacts[0].hash = "md5:00112233445566778899aabbccddeeff";
    expect_refusal(&in, PLAN_REQUIREMENTS, "pypi:certifi@2025.4.26", "no sha256 artifact");
    expect_refusal(&in, PLAN_UV_PIP_COMPILE, "pypi:certifi@2025.4.26", "no sha256 artifact");
    size_t len;
    char *t = plan_requirements_text(&in, true, &len);
    assert_null(strstr(t, "certifi"));
    assert_non_null(strstr(t, "requests==2.32.3"));
    free(t);
    t = export_ok(&in, PLAN_PYLOCK, &len);
    assert_non_null(strstr(t, "hashes = {md5 = \"00112233445566778899aabbccddeeff\"}"));
    free(t);
    p->n_artifacts = 0; /* no file at all: pylock refuses too */
    expect_refusal(&in, PLAN_PYLOCK, "pypi:certifi@2025.4.26", "no wheel or sdist");
    expect_refusal(&in, PLAN_REQUIREMENTS, "pypi:certifi@2025.4.26", "no sha256 artifact");
    /* the other formats do not read pypi packages */
    free(export_ok(&in, PLAN_APT, &len));
    free(export_ok(&in, PLAN_PACKAGE_LOCK, &len));
    lock_doc_free(d);
}

static void test_refuse_pypi_shapes(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    lock_package *np = find_pkg(d, "pypi", "numpy", NULL);
    np->artifacts[0].file = "numpy-2.2.6.zip"; /* two sdists now */
    expect_refusal(&in, PLAN_PYLOCK, "pypi:numpy@2.2.6", "more than one sdist");
    size_t len;
    free(export_ok(&in, PLAN_REQUIREMENTS, &len)); /* hashes are all pip needs */
    np->artifacts[0].hash = "f0f0";                /* not algorithm:value */
    expect_refusal(&in, PLAN_PYLOCK, "pypi:numpy@2.2.6", "not `algorithm:value`");
    lock_doc_free(d);
    d = load("export-small.lock");
    in.lock = d;
    find_pkg(d, "pypi", "certifi", NULL)->name = "numpy"; /* numpy at two versions */
    lock_doc_sort(d);
    expect_refusal(&in, PLAN_UV_PIP_COMPILE, "pypi:numpy@2025.4.26", "two versions");
    expect_refusal(&in, PLAN_PYLOCK, "pypi:numpy@2025.4.26", "two versions");
    lock_doc_free(d);
}

static void test_refuse_npm_shapes(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    lock_package *w = find_pkg(d, "npm", "wrap", "1.0.0");
    w->path = "node_modules/wrap"; /* the same place as wrap@2.0.0 */
    expect_refusal(&in, PLAN_PACKAGE_LOCK, "npm:wrap@2.0.0", "shares its node_modules path");
    w->path = "lib/wrap";
    expect_refusal(&in, PLAN_PACKAGE_LOCK, "npm:wrap@1.0.0", "outside node_modules/");
    w->path = NULL;
    expect_refusal(&in, PLAN_PACKAGE_LOCK, "npm:wrap@1.0.0", "no node_modules path");
    w->path = "node_modules/left-pad/node_modules/wrap";
    w->n_artifacts = 0;
    expect_refusal(&in, PLAN_PACKAGE_LOCK, "npm:wrap@1.0.0", "no tarball");
    size_t len;
    free(export_ok(&in, PLAN_UV_PIP_COMPILE, &len)); /* not an npm export */
    lock_doc_free(d);
}

/* Flags as npm computes them: reachable only through optional edges is
 * optional, only through peer edges peer, not at all extraneous. An alias
 * (a folder named other than its package) carries its name, and as a root
 * the root depends on it as npm:<name>@<version>. */
static void test_npm_flags(void **state)
{
    (void)state;
    lock_doc *d = load("export-small.lock");
    plan_input in = { .lock = d, .lock_digest = DIGEST };
    find_pkg(d, "npm", "wrap", "2.0.0")->name = "wrap-real"; /* node_modules/wrap is an alias */
    size_t len;
    char *t = export_ok(&in, PLAN_PACKAGE_LOCK, &len);
    json_object *o = json_tokener_parse(t), *pk, *e, *v;
    assert_true(json_object_object_get_ex(o, "packages", &pk));
    assert_true(json_object_object_get_ex(pk, "node_modules/wrap", &e));
    assert_true(json_object_object_get_ex(e, "name", &v));
    assert_string_equal(json_object_get_string(v), "wrap-real");
    assert_false(json_object_object_get_ex(e, "extraneous", &v));
    assert_true(json_object_object_get_ex(pk, "", &e));
    assert_true(json_object_object_get_ex(e, "dependencies", &e));
    assert_true(json_object_object_get_ex(e, "wrap", &v));
    assert_string_equal(json_object_get_string(v), "npm:wrap-real@2.0.0");
    json_object_put(o);
    free(t);
    t = plan_package_json_text(&in, &len);
    assert_non_null(strstr(t, "\"wrap\": \"npm:wrap-real@2.0.0\""));
    free(t);
    find_pkg(d, "npm", "wrap", "1.0.0")->n_deps = 0; /* nothing reaches @scope/util now */
    t = export_ok(&in, PLAN_PACKAGE_LOCK, &len);
    o = json_tokener_parse(t);
    assert_true(json_object_object_get_ex(o, "packages", &pk));
    assert_true(json_object_object_get_ex(pk, "node_modules/@scope/util", &e));
    assert_true(json_object_object_get_ex(e, "extraneous", &v));
    assert_false(json_object_object_get_ex(e, "peer", &v));
    assert_true(json_object_object_get_ex(pk, "node_modules/fsevents", &e));
    assert_true(json_object_object_get_ex(e, "optional", &v));
    json_object_put(o);
    free(t);
    lock_doc_free(d);
}

/* ---- write mode: the fixtures' exports for export_readers.py ---- */

static int write_one(const char *dir, const char *name, char *text, size_t len)
{
    if (!text)
        return 0;
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    free(path);
    free(text);
    return ok ? 0 : 1;
}

static int write_exports(const char *dir, const char *fixture, const char *stem)
{
    static const char *const ext[] = { "uv-pip-compile.txt", "requirements.txt", "pylock.toml",
                                       "package-lock.json", "apt.txt" };
    lock_doc *d = load(fixture);
    plan_spec spec;
    plan_input in = small_input(d, &spec);
    int bad = 0;
    el_ctx *ctx = el_ctx_new();
    for (int f = PLAN_UV_PIP_COMPILE; f <= PLAN_APT; f++) {
        char *name = xasprintf("%s.%s", stem, ext[f]);
        size_t len = 0;
        char *t = plan_export(ctx, &in, (plan_format)f, &len);
        if (!t)
            fprintf(stderr, "%s: %s\n", name, el_ctx_message(ctx)), bad = 1;
        bad |= write_one(dir, name, t, len);
        free(name);
    }
    size_t len = 0;
    char *name = xasprintf("%s.package.json", stem);
    char *t = plan_package_json_text(&in, &len);
    bad |= write_one(dir, name, t, len);
    free(name);
    name = xasprintf("%s.sources.list", stem);
    t = plan_apt_sources_text(&in, &len);
    bad |= write_one(dir, name, t, len);
    free(name);
    el_ctx_free(ctx);
    lock_doc_free(d);
    return bad;
}

/* Package URLs worked out by hand from the purl spec (purl-spec
 * docs/standard/characters-and-encoding.md: only letters, digits, `.-_~`
 * and `:` stay as they are; types/pypi-definition.json: runs of `-_.`
 * are one `-`, lowercased; types/npm-definition.json: the scope's `@` is
 * %40; types/deb-definition.json, whose own example is
 * pkg:deb/debian/attr@1:2.4.47-2%2Bb1?arch=amd64). */
static void test_purl(void **state)
{
    (void)state;
    static const struct { lock_package p; const char *src, *want; } cases[] = {
        { { .ecosystem = "pypi", .name = "Foo_Bar.baz", .version = "1.0" }, NULL,
          "pkg:pypi/foo-bar-baz@1.0" },
        { { .ecosystem = "pypi", .name = "zope..interface", .version = "7.2+local.1" }, NULL,
          "pkg:pypi/zope-interface@7.2%2Blocal.1" },
        { { .ecosystem = "npm", .name = "@types/node", .version = "22.10.1" }, NULL,
          "pkg:npm/%40types/node@22.10.1" },
        { { .ecosystem = "npm", .name = "left-pad", .version = "1.3.0-rc.1" }, NULL,
          "pkg:npm/left-pad@1.3.0-rc.1" },
        { { .ecosystem = "deb", .name = "attr", .version = "1:2.4.47-2+b1", .arch = "amd64" },
          "https://deb.debian.org/debian bookworm-updates/main",
          "pkg:deb/debian/attr@1:2.4.47-2%2Bb1?arch=amd64&distro=debian-12" },
        { { .ecosystem = "deb", .name = "libc6", .version = "2.41-12", .arch = "arm64",
            .source = "https://deb.debian.org/debian trixie/main" }, NULL,
          "pkg:deb/debian/libc6@2.41-12?arch=arm64&distro=debian-13" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = plan_purl(&cases[i].p, cases[i].src);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0) {
        mkdir(argv[2], 0777);
        return write_exports(argv[2], "demo.lock", "demo") |
               write_exports(argv[2], "export-small.lock", "small") |
               write_exports(argv[2], "export-collate.lock", "collate");
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_names),       cmocka_unit_test(test_resolved_at),
        cmocka_unit_test(test_conda_explicit),     cmocka_unit_test(test_conda_none),
        cmocka_unit_test(test_conda_lock),
        cmocka_unit_test(test_fixtures_canonical),
        cmocka_unit_test(test_small_uv),           cmocka_unit_test(test_small_requirements),
        cmocka_unit_test(test_small_pylock),       cmocka_unit_test(test_small_package_lock),
        cmocka_unit_test(test_small_apt),          cmocka_unit_test(test_small_texts),
        cmocka_unit_test(test_small_bare_input),   cmocka_unit_test(test_demo_deterministic),
        cmocka_unit_test(test_empty_lock),         cmocka_unit_test(test_refuse_unhashed),
        cmocka_unit_test(test_refuse_pypi_shapes), cmocka_unit_test(test_refuse_npm_shapes),
        cmocka_unit_test(test_npm_flags),          cmocka_unit_test(test_purl),
    };
    return cmocka_run_group_tests_name("plan_export", tests, NULL, NULL);
}

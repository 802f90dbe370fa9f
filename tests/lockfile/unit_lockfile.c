/* unit_lockfile.c — cmocka tests of lockfile/: canonical order under
 * shuffling, quoting of every scalar YAML could misread, the exact text of a
 * known lock, write -> read -> write byte identity over generated docs,
 * malformed locks with their exact line/column/field, the atomic write and
 * its digest, and lock_check() over each ecosystem's grammar edge cases.
 * Run as `unit_lockfile GROUP` (one ctest per group). */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lock.h"
#include "lock_gen.h"
#include "lock_sample.h"

static char *text_of(lock_doc *d, size_t *len)
{
    char *t = lock_write_text(d, len);
    assert_non_null(t);
    return t;
}

/* ---- sort ---- */

static void test_shuffle_1000(void **state)
{
    (void)state;
    lock_doc *d = gen_doc(42, 40);
    size_t ref_len;
    char *ref = text_of(d, &ref_len);
    gen g = { 7 };
    for (int i = 0; i < 1000; i++) {
        gen_shuffle(&g, d);
        size_t len;
        char *t = text_of(d, &len);
        assert_int_equal(len, ref_len);
        assert_memory_equal(t, ref, len);
        free(t);
    }
    free(ref);
    lock_doc_free(d);
}

static void test_shuffle_many_docs(void **state)
{
    (void)state;
    gen g = { 99 };
    for (uint64_t seed = 1; seed <= 100; seed++) {
        lock_doc *d = gen_doc(seed, 12);
        size_t ref_len;
        char *ref = text_of(d, &ref_len);
        for (int i = 0; i < 10; i++) {
            gen_shuffle(&g, d);
            size_t len;
            char *t = text_of(d, &len);
            assert_int_equal(len, ref_len);
            assert_memory_equal(t, ref, len);
            free(t);
        }
        free(ref);
        lock_doc_free(d);
    }
}

static void test_sort_idempotent_and_order(void **state)
{
    (void)state;
    lock_doc *d = lock_doc_new();
    const char *names[] = { "b", "a", "B", "a-b", "a_b", "A", "é", "z" };
    for (size_t i = 0; i < 8; i++) {
        lock_package *p = lock_doc_add_package(d);
        p->ecosystem = "pypi";
        p->name = names[i];
        p->version = "1";
    }
    lock_package *p = lock_doc_add_package(d);
    p->ecosystem = "deb";
    p->name = "zz";
    p->version = "1";
    lock_doc_sort(d);
    lock_doc_sort(d);
    /* byte order: deb before pypi; "A" < "B" < "a" < "a-b" < "a_b" < "b" < "z" < "é" */
    const char *want[] = { "zz", "A", "B", "a", "a-b", "a_b", "b", "z", "é" };
    for (size_t i = 0; i < 9; i++)
        assert_string_equal(d->packages[i].name, want[i]);
    assert_ptr_equal(lock_find(d, "pypi", "a-b", NULL), &d->packages[4]);
    assert_null(lock_find(d, "npm", "a", NULL));
    assert_null(lock_find(d, "pypi", "a", "2"));
    lock_doc_free(d);
}

/* ---- quoting ---- */

static void test_quoting_roundtrip(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    for (size_t i = 0; gen_tricky[i]; i++) {
        const char *s = gen_tricky[i];
        lock_doc *d = lock_doc_new();
        d->spec_digest = s;
        d->python_version = s;
        d->exclude_newer = s;
        lock_strv_add(d, &d->upgrade, s);
        lock_strv_add(d, &d->variants, s);
        lock_package *p = lock_doc_add_package(d);
        p->ecosystem = "pypi";
        p->name = s;
        p->version = s;
        lock_strv_add(d, &p->requested_by, s);
        lock_edge *e = lock_package_add_dep(d, p);
        e->name = s;
        e->version = s;
        e->spec = s;
        lock_artifact *a = lock_package_add_artifact(d, p);
        a->file = s;
        a->url = s;
        a->hash = s;
        size_t len;
        char *t = text_of(d, &len);
        lock_doc *r = lock_read_text(ctx, t, len);
        if (!r)
            fail_msg("`%s` did not read back: %s\n%s", s, el_ctx_message(ctx), t);
        assert_string_equal(r->spec_digest, s);
        assert_string_equal(r->python_version, s);
        assert_string_equal(r->exclude_newer, s);
        assert_string_equal(r->upgrade[0], s);
        assert_string_equal(r->variants[0], s);
        assert_null(r->base_digests[0]);
        assert_string_equal(r->packages[0].name, s);
        assert_string_equal(r->packages[0].version, s);
        assert_string_equal(r->packages[0].requested_by[0], s);
        assert_string_equal(r->packages[0].deps[0].spec, s);
        assert_string_equal(r->packages[0].deps[0].ecosystem, "pypi");
        assert_string_equal(r->packages[0].artifacts[0].hash, s);
        free(t);
        lock_doc_free(r);
        lock_doc_free(d);
    }
    el_ctx_free(ctx);
}

static void test_quoting_choices(void **state)
{
    (void)state;
    struct { const char *in, *line; } cases[] = {
        { "1.10", "  version: \"1.10\"\n" },
        { "yes", "  version: \"yes\"\n" },
        { "Off", "  version: \"Off\"\n" },
        { "null", "  version: \"null\"\n" },
        { "~", "  version: \"~\"\n" },
        { "0o7", "  version: \"0o7\"\n" },
        { "", "  version: \"\"\n" },
        { "a: b", "  version: \"a: b\"\n" },
        { "a#b", "  version: \"a#b\"\n" },
        { "tab\there", "  version: \"tab\\there\"\n" },
        { "\x01", "  version: \"\\x01\"\n" },
        { "ü", "  version: \"ü\"\n" },
        { "v1.0", "  version: v1.0\n" },
        { "a1!b", "  version: a1!b\n" },
        { "sha512-a+b/c==", "  version: sha512-a+b/c==\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lock_doc *d = lock_doc_new();
        d->spec_digest = "x";
        lock_package *p = lock_doc_add_package(d);
        p->ecosystem = "pypi";
        p->name = "n";
        p->version = cases[i].in;
        size_t len;
        char *t = text_of(d, &len);
        if (!strstr(t, cases[i].line))
            fail_msg("`%s`: expected line %s in\n%s", cases[i].in, cases[i].line, t);
        free(t);
        lock_doc_free(d);
    }
}

static void test_invalid_utf8_refused(void **state)
{
    (void)state;
    lock_doc *d = lock_doc_new();
    d->spec_digest = "bad \xff byte";
    size_t len = 7;
    assert_null(lock_write_text(d, &len));
    assert_int_equal(len, 0);
    el_ctx *ctx = el_ctx_new();
    char dir[] = "/tmp/el_lock_utf8_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/envlock.lock", dir);
    char digest[72];
    assert_int_equal(lock_write_file(ctx, d, path, digest), EL_INTERNAL);
    assert_int_equal(access(path, F_OK), -1);
    rmdir(dir);
    free(path);
    el_ctx_free(ctx);
    lock_doc_free(d);
}

/* ---- golden ---- */

static void golden(const char *name, lock_doc *d)
{
    char *path = xasprintf("%s/%s", getenv("LOCK_TEST_DIR") ? getenv("LOCK_TEST_DIR")
                                                            : LOCK_TEST_DIR, name);
    size_t want_len;
    char *want = read_file(path, 1 << 20, &want_len);
    assert_non_null(want);
    size_t len;
    char *t = text_of(d, &len);
    if (len != want_len || memcmp(t, want, len) != 0)
        fail_msg("the sample lock differs from %s:\n%s", path, t);
    /* reading the golden file and writing it again gives the same bytes */
    el_ctx *ctx = el_ctx_new();
    lock_doc *r = lock_read_text(ctx, want, want_len);
    assert_non_null(r);
    assert_int_equal(r->format_version, d->format_version);
    char *t2 = text_of(r, &len);
    assert_int_equal(len, want_len);
    assert_memory_equal(t2, want, len);
    el_ctx_free(ctx);
    free(t2);
    lock_doc_free(r);
    free(t);
    lock_doc_free(d);
    free(want);
    free(path);
}

/* The lock as this envlock writes it, and a format-1 lock, which it still
 * reads and writes back unchanged. */
static void test_golden_sample(void **state)
{
    (void)state;
    golden("sample.lock", sample_doc());
    golden("sample-v1.lock", sample_doc_v1());
}

/* ---- round trip ---- */

static void test_roundtrip_generated(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        lock_doc *d = gen_doc(seed, 10);
        size_t len1, len2;
        char *t1 = text_of(d, &len1);
        lock_doc *r = lock_read_text(ctx, t1, len1);
        if (!r)
            fail_msg("seed %llu: %s\n%s", (unsigned long long)seed, el_ctx_message(ctx), t1);
        char *t2 = text_of(r, &len2);
        if (len1 != len2 || memcmp(t1, t2, len1) != 0)
            fail_msg("seed %llu: bytes differ after reading back\n%s\n----\n%s",
                     (unsigned long long)seed, t1, t2);
        assert_int_equal(r->n_packages, d->n_packages);
        assert_int_equal(r->n_inputs, d->n_inputs);
        assert_int_equal(r->upgrade_all, d->upgrade_all);
        free(t1);
        free(t2);
        lock_doc_free(r);
        lock_doc_free(d);
    }
    el_ctx_free(ctx);
}

/* ---- malformed ---- */

#define HEAD "lockVersion: 1\nspecDigest: \"sha256:x\"\ntarget: {}\noptions:\n  upgradeAll: false\ninputs: []\n"
#define PKG  "packages:\n- ecosystem: pypi\n  name: numpy\n"
#define DEB  "packages:\n- ecosystem: deb\n  name: libc6\n  version: \"2.36-9+deb12u1\"\n" \
             "  arch: amd64\n"
#define REST "  requestedBy: []\n  dependencies: []\n  artifacts: []\n"

typedef struct bad_case {
    const char *name;
    const char *text;
    size_t len; /* 0: strlen */
    int line, column;
    const char *field;
    const char *message_part;
} bad_case;

static void test_malformed(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        { "valid control", HEAD PKG "  version: \"1\"\n  requestedBy: []\n  dependencies: []\n  artifacts: []\n",
          0, 0, 0, NULL, NULL },
        { "syntax: unterminated quote", "lockVersion: 1\nspecDigest: \"abc\n", 0, 3, 1, "(document)",
          "YAML syntax" },
        { "syntax: bad indentation", HEAD PKG "  version: \"1\"\n   requestedBy: []\n", 0, 11, 4,
          "(document)", "YAML syntax" },
        { "syntax: tab indentation", "lockVersion: 1\n\tspecDigest: x\n", 0, 2, 1, "(document)",
          "YAML syntax" },
        { "not UTF-8", "lockVersion: 1\nspecDigest: \"\xff\"\n", 0, 2, 14, "(document)", "UTF-8" },
        { "empty", "", 0, 1, 1, "(document)", "empty" },
        { "root is a list", "- a\n", 0, 1, 1, "(document)", "a lock is a YAML mapping" },
        { "format version 3", "lockVersion: 3\nfuture: {}\n", 0, 1, 14, "lockVersion",
          "lock format version 3 is not supported" },
        { "format version 0", "lockVersion: 0\nfuture: {}\n", 0, 1, 14, "lockVersion",
          "lock format version 0 is not supported" },
        { "format version quoted", "lockVersion: \"1\"\n", 0, 1, 14, "lockVersion",
          "expected a non-negative integer" },
        { "format version leading zero", "lockVersion: 01\n", 0, 1, 14, "lockVersion",
          "expected a non-negative integer, found `01`" },
        { "format version missing", "specDigest: x\n", 0, 1, 1, "lockVersion", "missing required key" },
        { "unknown top-level key", HEAD "bogus: 1\n" PKG, 0, 7, 1, "bogus", "unknown key `bogus`" },
        { "unknown package key", HEAD PKG "  version: \"1\"\n  color: red\n", 0, 11, 3,
          "packages[0].color", "unknown key `color`" },
        { "wrong type: unquoted version", HEAD PKG "  version: 1.10\n", 0, 10, 12,
          "packages[0].version", "expected a string, found an unquoted number (quote it)" },
        { "wrong type: boolean name", HEAD "packages:\n- ecosystem: pypi\n  name: yes\n", 0, 9, 9,
          "packages[0].name", "found a boolean" },
        { "wrong type: null digest", "lockVersion: 1\nspecDigest: ~\n", 0, 2, 13, "specDigest",
          "found null" },
        { "wrong type: list for a mapping", "lockVersion: 1\nspecDigest: x\ntarget: []\n", 0, 3, 9,
          "target", "expected a mapping, found a list" },
        { "wrong type: inputs mapping", "lockVersion: 1\nspecDigest: x\ntarget: {}\noptions: {upgradeAll: true}\ninputs: {}\n",
          0, 5, 9, "inputs", "expected a list, found a mapping" },
        { "wrong type: upgradeAll yes", "lockVersion: 1\nspecDigest: x\ntarget: {}\noptions: {upgradeAll: yes}\n",
          0, 4, 23, "options.upgradeAll", "expected true or false" },
        { "wrong type: size quoted", HEAD PKG "  version: \"1\"\n  requestedBy: []\n  dependencies: []\n  artifacts:\n  - {file: f, url: u, hash: h, size: \"12\"}\n",
          0, 14, 38, "packages[0].artifacts[0].size", "expected a non-negative integer" },
        { "wrong type: size negative", HEAD PKG "  version: \"1\"\n  requestedBy: []\n  dependencies: []\n  artifacts:\n  - {file: f, url: u, hash: h, size: -1}\n",
          0, 14, 38, "packages[0].artifacts[0].size", "found `-1`" },
        { "wrong type: edge is a string", HEAD PKG "  version: \"1\"\n  requestedBy: []\n  dependencies: [x]\n",
          0, 12, 18, "packages[0].dependencies[0]", "expected a mapping" },
        { "missing package version", HEAD PKG "  requestedBy: []\n  dependencies: []\n  artifacts: []\n",
          0, 8, 3, "packages[0].version", "missing required key `version`" },
        { "missing artifacts", HEAD PKG "  version: \"1\"\n  requestedBy: []\n  dependencies: []\n",
          0, 8, 3, "packages[0].artifacts", "missing required key `artifacts`" },
        { "missing edge version", HEAD PKG "  version: \"1\"\n  requestedBy: []\n  dependencies:\n  - {name: a}\n  artifacts: []\n",
          0, 13, 5, "packages[0].dependencies[0].version", "missing required key" },
        { "missing packages", "lockVersion: 1\nspecDigest: x\ntarget: {}\noptions: {upgradeAll: true}\ninputs: []\n",
          0, 1, 1, "packages", "missing required key `packages`" },
        { "missing upgradeAll", "lockVersion: 1\nspecDigest: x\ntarget: {}\noptions: {}\ninputs: []\npackages: []\n",
          0, 4, 10, "options.upgradeAll", "missing required key" },
        { "duplicate key", HEAD PKG "  name: pandas\n", 0, 10, 3, "packages[0].name",
          "duplicate key `name`" },
        { "duplicate top-level key", "lockVersion: 1\nlockVersion: 1\n", 0, 2, 1, "lockVersion",
          "duplicate key" },
        { "duplicate variant", "lockVersion: 1\nspecDigest: x\ntarget:\n  base:\n    digests:\n      a: null\n      a: \"sha256:1\"\n",
          0, 7, 7, "target.base.digests.a", "duplicate key" },
        { "anchor and alias", HEAD PKG "  version: &v \"1\"\n  requestedBy: [*v]\n", 0, 10, 12,
          "packages[0].requestedBy[0]", "anchors and aliases" },
        { "explicit tag", HEAD PKG "  version: !!int \"1\"\n", 0, 10, 12, "packages[0].version",
          "tag" },
        { "NUL in a string", HEAD PKG "  version: \"a\\0b\"\n", 0, 10, 12, "packages[0].version",
          "NUL" },
        { "second document", HEAD "packages: []\n---\nx: 1\n", 0, 9, 1, "(document)",
          "one YAML document" },
        { "non-string key", "lockVersion: 1\n[a]: 1\n", 0, 2, 1, "(document)", "a key must be a string" },
        { "valid license", HEAD PKG "  version: \"1\"\n  license: \"(MIT OR Apache-2.0)\"\n"
          "  requestedBy: []\n  dependencies: []\n  artifacts: []\n", 0, 0, 0, NULL, NULL },
        { "license: a number", HEAD PKG "  version: \"1\"\n  license: 5\n", 0, 11, 12,
          "packages[0].license", "expected a string" },
        { "license: a list", HEAD PKG "  version: \"1\"\n  license: [MIT]\n", 0, 11, 12,
          "packages[0].license", "expected a string" },
        { "license: not SPDX", HEAD PKG "  version: \"1\"\n  license: \"SEE LICENSE IN x\"\n", 0, 11,
          12, "packages[0].license", "is not an SPDX license expression" },
        { "license: dangling OR", HEAD PKG "  version: \"1\"\n  license: \"MIT OR\"\n", 0, 11, 12,
          "packages[0].license", "is not an SPDX license expression" },
        { "license: a tab", HEAD PKG "  version: \"1\"\n  license: \"MIT\\tOR ISC\"\n", 0, 11, 12,
          "packages[0].license", "control character" },
        { "license: empty", HEAD PKG "  version: \"1\"\n  license: \"\"\n", 0, 11, 12,
          "packages[0].license", "is empty" },
        { "sourcePackage: a deb's source", HEAD DEB "  sourcePackage: glibc\n"
          "  sourceVersion: \"2.36-9\"\n" REST, 0, 0, 0, NULL, NULL },
        { "sourcePackage: not deb", HEAD PKG "  version: \"1\"\n  sourcePackage: numpy-src\n",
          0, 11, 18, "packages[0].sourcePackage", "is only for deb packages" },
        { "sourcePackage: the binary's own", HEAD DEB "  sourcePackage: libc6\n" REST, 0, 12, 18,
          "packages[0].sourcePackage", "is written only when it differs" },
        { "sourcePackage: not a name", HEAD DEB "  sourcePackage: Glibc\n" REST, 0, 12, 18,
          "packages[0].sourcePackage", "`Glibc`" },
        { "sourceVersion: not a version", HEAD DEB "  sourceVersion: \"2.36 9\"\n" REST, 0, 12,
          18, "packages[0].sourceVersion", "`2.36 9`" },
        { "sourceVersion: a number", HEAD DEB "  sourceVersion: 2\n" REST, 0, 12, 18,
          "packages[0].sourceVersion", "expected a string" },
        { "license: an id not on the SPDX list", HEAD PKG "  version: \"1\"\n"
          "  license: \"MIT OR UNLICENSED\"\n", 0, 11, 12, "packages[0].license",
          "(an identifier is not on the SPDX License List)" },
        { "license: a listed id, a LicenseRef", HEAD PKG "  version: \"1\"\n"
          "  license: \"GPL-3.0-only WITH GCC-exception-3.1 AND LicenseRef-Public-Domain\"\n"
          "  requestedBy: []\n  dependencies: []\n  artifacts: []\n", 0, 0, 0, NULL, NULL },
    };
    el_ctx *ctx = el_ctx_new();
    int mismatches = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        lock_doc *d = lock_read_text(ctx, c->text, len);
        if (!c->field) {
            if (!d)
                fail_msg("%s: %s", c->name, el_ctx_message(ctx));
            lock_doc_free(d);
            continue;
        }
        if (d)
            fail_msg("%s: accepted", c->name);
        assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
        struct json_object *det = el_ctx_detail(ctx), *v;
        assert_true(json_object_object_get_ex(det, "reason", &v));
        assert_string_equal(json_object_get_string(v), "invalid_lock");
        assert_true(json_object_object_get_ex(det, "line", &v));
        int line = json_object_get_int(v);
        assert_true(json_object_object_get_ex(det, "column", &v));
        int col = json_object_get_int(v);
        assert_true(json_object_object_get_ex(det, "field", &v));
        const char *field = json_object_get_string(v);
        const char *msg = el_ctx_message(ctx);
        if (line != c->line || col != c->column || strcmp(field, c->field) != 0 ||
            !strstr(msg, c->message_part)) {
            print_error("%s: got %d:%d field %s: %s; want %d:%d field %s, message with `%s`\n",
                        c->name, line, col, field, msg, c->line, c->column, c->field,
                        c->message_part);
            mismatches++;
        }
    }
    el_ctx_free(ctx);
    assert_int_equal(mismatches, 0);
}

/* ---- limits: a hostile lock is refused before the costly work ---- */

static const char *detail_of(el_ctx *ctx, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(el_ctx_detail(ctx), key, &v))
        return "(absent)";
    return json_object_get_string(v);
}

static int detail_int(el_ctx *ctx, const char *key)
{
    struct json_object *v;
    assert_true(json_object_object_get_ex(el_ctx_detail(ctx), key, &v));
    return json_object_get_int(v);
}

/* A license longer than LOCK_LICENSE_MAX is refused where it stands; one
 * at the bound reads and writes back unchanged. */
static void test_license_bound(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    for (size_t n = LOCK_LICENSE_MAX; n <= LOCK_LICENSE_MAX + 1; n++) {
        char *id = xmalloc(n + 1); /* one idstring n bytes long */
        memcpy(id, "LicenseRef-", 11);
        memset(id + 11, 'a', n - 11);
        id[n] = '\0';
        char *text = xasprintf("%s%s  version: \"1\"\n  license: %s\n  requestedBy: []\n"
                               "  dependencies: []\n  artifacts: []\n", HEAD, PKG, id);
        lock_doc *d = lock_read_text(ctx, text, strlen(text));
        if (n == LOCK_LICENSE_MAX) {
            if (!d)
                fail_msg("%zu bytes: %s", n, el_ctx_message(ctx));
            assert_string_equal(d->packages[0].license, id);
            assert_int_equal(lock_validate(ctx, d), EL_SPEC_INVALID); /* the made-up digest */
            assert_string_equal(detail_of(ctx, "field"), "specDigest");
        } else {
            assert_null(d);
            assert_string_equal(detail_of(ctx, "field"), "packages[0].license");
            assert_int_equal(detail_int(ctx, "line"), 11);
            assert_non_null(strstr(el_ctx_message(ctx), "longer than 1024 bytes"));
        }
        lock_doc_free(d);
        free(text);
        free(id);
    }
    el_ctx_free(ctx);
}

/* Expects `text` refused as invalid_lock at line:column with `part` in the
 * message. */
static void expect_refused(el_ctx *ctx, const char *what, const char *text, size_t len, int line,
                           int column, const char *part)
{
    lock_doc *d = lock_read_text(ctx, text, len);
    if (d)
        fail_msg("%s: accepted", what);
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    assert_string_equal(detail_of(ctx, "reason"), "invalid_lock");
    assert_string_equal(detail_of(ctx, "field"), "(document)");
    if (detail_int(ctx, "line") != line || detail_int(ctx, "column") != column ||
        !strstr(el_ctx_message(ctx), part))
        fail_msg("%s: got %d:%d %s; want %d:%d with `%s`", what, detail_int(ctx, "line"),
                 detail_int(ctx, "column"), el_ctx_message(ctx), line, column, part);
}

/* n `[` then n `]`: a flow list nested n levels (the root is level 1). */
static char *brackets(size_t n)
{
    char *t = xmalloc(2 * n + 2);
    memset(t, '[', n);
    memset(t + n, ']', n);
    t[2 * n] = '\n';
    t[2 * n + 1] = '\0';
    return t;
}

static void test_depth_limit(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    /* 64 levels pass the depth check: what refuses them is the format */
    char *t = brackets(LOCK_MAX_DEPTH);
    expect_refused(ctx, "64 levels", t, strlen(t), 1, 1, "a lock is a YAML mapping");
    free(t);
    /* the 65th `[` is refused where it stands */
    t = brackets(LOCK_MAX_DEPTH + 1);
    expect_refused(ctx, "65 levels", t, strlen(t), 1, LOCK_MAX_DEPTH + 1,
                   "nests deeper than 64 levels");
    free(t);
    /* 100,000 levels: the same refusal at the same place (once quadratic) */
    t = brackets(100000);
    expect_refused(ctx, "100,000 levels", t, strlen(t), 1, LOCK_MAX_DEPTH + 1,
                   "nests deeper than 64 levels");
    free(t);
    /* unclosed: the depth is refused before the syntax error at the end */
    t = brackets(100000);
    t[100000] = '\0';
    expect_refused(ctx, "100,000 unclosed", t, 100000, 1, LOCK_MAX_DEPTH + 1, "nests deeper");
    free(t);
    /* block mappings: line L holds key aL at column L, in the mapping that
     * starts there (level L); the key on line 64 is level 65 */
    strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 200; i++)
        sb_addf(&sb, "%*sa%d:\n", i, "", i);
    expect_refused(ctx, "block mappings", sb.buf, sb.len, 64, 64, "nests deeper");
    sb_release(&sb);
    /* compact block lists: `- ` k times opens level k at column 2k-1 */
    for (int i = 0; i < 1000; i++)
        sb_adds(&sb, "- ");
    sb_adds(&sb, "x\n");
    expect_refused(ctx, "block lists", sb.buf, sb.len, 1, 2 * (LOCK_MAX_DEPTH + 1) - 1,
                   "nests deeper");
    sb_release(&sb);
    /* a scalar is a level too: 64 lists around it are one too many */
    t = brackets(LOCK_MAX_DEPTH);
    char *inner = xasprintf("%.*sx%s", LOCK_MAX_DEPTH, t, t + LOCK_MAX_DEPTH);
    expect_refused(ctx, "scalar at 65", inner, strlen(inner), 1, LOCK_MAX_DEPTH + 1,
                   "nests deeper");
    free(inner);
    free(t);
    el_ctx_free(ctx);
}

static void test_size_limit(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    /* text: refused from its length, before parsing */
    size_t n = (size_t)LOCK_MAX_BYTES + 1;
    char *big = xmalloc(n + 1);
    memset(big, '#', n); /* a comment: valid YAML, were it parsed */
    big[n] = '\0';
    char want[96];
    snprintf(want, sizeof want, "the lock is %zu bytes; a lock is at most 16 MiB", n);
    expect_refused(ctx, "text over the limit", big, n, 1, 1, want);
    free(big);

    /* a file: refused from its size, without reading it (sparse) */
    char dir[] = "/tmp/el_lock_limit_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/envlock.lock", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)50 << 20), 0);
    close(fd);
    assert_null(lock_read_file(ctx, path));
    assert_int_equal(el_ctx_code(ctx), EL_SPEC_INVALID);
    assert_string_equal(detail_of(ctx, "reason"), "invalid_lock");
    assert_int_equal(detail_int(ctx, "line"), 1);
    assert_int_equal(detail_int(ctx, "column"), 1);
    assert_string_equal(detail_of(ctx, "path"), path);
    assert_non_null(strstr(el_ctx_message(ctx), "the lock is 52428800 bytes; a lock is at most 16 MiB"));
    size_t len = 0;
    assert_null(lock_read_bytes(ctx, path, &len));
    assert_non_null(strstr(el_ctx_message(ctx), "a lock is at most 16 MiB"));

    /* exactly the limit is read (and then refused for what it holds) */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)LOCK_MAX_BYTES), 0);
    close(fd);
    assert_null(lock_read_file(ctx, path));
    assert_null(strstr(el_ctx_message(ctx), "at most"));
    unlink(path);

    /* a FIFO (no writer) and a directory are refused at once, not read */
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20); /* a regression fails instead of hanging the suite */
        el_ctx *c2 = el_ctx_new();
        bool ok = !lock_read_file(c2, path) && el_ctx_code(c2) == EL_SPEC_INVALID &&
                  strstr(el_ctx_message(c2), "not a regular file") &&
                  strcmp(detail_of(c2, "reason"), "invalid_lock") == 0;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    unlink(path);
    assert_null(lock_read_file(ctx, dir));
    assert_non_null(strstr(el_ctx_message(ctx), "Is a directory"));
    assert_null(lock_read_file(ctx, path));
    assert_string_equal(detail_of(ctx, "reason"), "lock_not_found");
    rmdir(dir);
    free(path);
    el_ctx_free(ctx);
}

/* ---- atomic write and digest ---- */

static size_t dir_entries(const char *dir)
{
    DIR *dh = opendir(dir);
    assert_non_null(dh);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dh)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(dh);
    return n;
}

static void test_atomic_write(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    char dir[] = "/tmp/el_lock_atomic_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/envlock.lock", dir);
    char digest[72];

    /* a first lock, then overwrite it: one file, no temp left */
    lock_doc *small = gen_doc(3, 2);
    assert_int_equal(lock_write_file(ctx, small, path, digest), EL_OK);
    lock_doc *big = gen_doc(5, 200);
    assert_int_equal(lock_write_file(ctx, big, path, digest), EL_OK);
    assert_int_equal(dir_entries(dir), 1);
    assert_int_equal(lock_write_file(ctx, small, path, digest), EL_OK);
    size_t old_len;
    char *old = read_file(path, 1 << 24, &old_len);
    assert_non_null(old);

    /* a write that fails half-way (file size limit): the old lock stays */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = { 512, 512 };
        setrlimit(RLIMIT_FSIZE, &rl);
        el_ctx *c2 = el_ctx_new();
        char dg[72];
        el_code rc = lock_write_file(c2, big, path, dg);
        _exit(rc == EL_IO && el_ctx_code(c2) == EL_IO && !el_ctx_retryable(c2) &&
                      strstr(el_ctx_message(c2), "writing")
                  ? 0
                  : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    size_t now_len;
    char *now = read_file(path, 1 << 24, &now_len);
    assert_int_equal(now_len, old_len);
    assert_memory_equal(now, old, old_len);
    assert_int_equal(dir_entries(dir), 1);
    free(now);

    /* the rename fails (the target is a non-empty directory): nothing changes */
    char *sub = xasprintf("%s/lockdir", dir);
    char *inner = xasprintf("%s/keep", sub);
    assert_int_equal(mkdir(sub, 0755), 0);
    FILE *f = fopen(inner, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(lock_write_file(ctx, small, sub, digest), EL_IO);
    assert_int_equal(el_ctx_code(ctx), EL_IO);
    assert_non_null(strstr(el_ctx_message(ctx), "renaming"));
    assert_int_equal(dir_entries(dir), 2);
    assert_int_equal(dir_entries(sub), 1);

    /* a directory that does not exist */
    char *missing = xasprintf("%s/no/such/dir/envlock.lock", dir);
    assert_int_equal(lock_write_file(ctx, small, missing, digest), EL_IO);
    assert_false(el_ctx_retryable(ctx)); /* ENOENT: the same run meets it again */
    assert_string_equal(detail_of(ctx, "reason"), "lock_write_failed");
    assert_string_equal(detail_of(ctx, "errno"), "ENOENT");

    unlink(inner);
    rmdir(sub);
    unlink(path);
    rmdir(dir);
    free(missing);
    free(inner);
    free(sub);
    free(old);
    free(path);
    lock_doc_free(small);
    lock_doc_free(big);
    el_ctx_free(ctx);
}

/* Writing the bytes the file already holds leaves the file (same inode, no
 * temp file) but moves its mtime; different bytes replace it. */
static void test_rewrite_same(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    char dir[] = "/tmp/el_lock_same_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/envlock.lock", dir);
    char d1[72], d2[72], d3[72];
    lock_doc *a = gen_doc(7, 30);
    lock_doc *b = gen_doc(8, 30);
    assert_int_equal(lock_write_file(ctx, a, path, d1), EL_OK);
    struct stat st1, st2, st3;
    assert_int_equal(stat(path, &st1), 0);
    struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
    assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
    assert_int_equal(lock_write_file(ctx, a, path, d2), EL_OK);
    assert_int_equal(stat(path, &st2), 0);
    assert_string_equal(d1, d2);
    assert_true(st2.st_ino == st1.st_ino && st2.st_dev == st1.st_dev); /* left in place */
    assert_true(st2.st_mtim.tv_sec > 1000000000);                      /* but touched */
    assert_int_equal(dir_entries(dir), 1);
    assert_int_equal(lock_write_file(ctx, b, path, d3), EL_OK);
    assert_int_equal(stat(path, &st3), 0);
    assert_string_not_equal(d1, d3);
    assert_true(st3.st_ino != st1.st_ino); /* replaced by the rename */
    size_t len;
    char *bytes = read_file(path, 1 << 24, &len);
    size_t tlen;
    char *t = text_of(b, &tlen);
    assert_int_equal(tlen, len);
    assert_memory_equal(t, bytes, len);
    free(t);
    free(bytes);
    unlink(path);
    rmdir(dir);
    free(path);
    lock_doc_free(a);
    lock_doc_free(b);
    el_ctx_free(ctx);
}

static void test_digest(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    char dir[] = "/tmp/el_lock_digest_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/x.lock", dir);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        lock_doc *d = gen_doc(seed, 20);
        char digest[72];
        assert_int_equal(lock_write_file(ctx, d, path, digest), EL_OK);
        size_t len;
        char *bytes = read_file(path, 1 << 24, &len);
        char hex[65], want[72];
        sha256_hex(bytes, len, hex);
        snprintf(want, sizeof want, "sha256:%s", hex);
        assert_string_equal(digest, want);
        size_t tlen;
        char *t = text_of(d, &tlen);
        assert_int_equal(tlen, len);
        assert_memory_equal(t, bytes, len);
        free(t);
        free(bytes);
        lock_doc_free(d);
    }
    unlink(path);
    rmdir(dir);
    free(path);
    el_ctx_free(ctx);
}

/* ---- check ---- */

/* A package added to a sample together with its index document among the
 * inputs, as resolve records it (else check reports it unindexed). */
static lock_package *indexed_pkg(lock_doc *d, const char *eco, const char *name,
                                 const char *version, const char *source)
{
    char *url = strcmp(eco, "pypi") == 0 ? xasprintf("%s/%s/", source, name)
                                         : xasprintf("%s/%s", source, name);
    char *slash = strcmp(eco, "npm") == 0 ? strchr(url + strlen(source) + 1, '/') : NULL;
    if (slash) {
        char *esc = xasprintf("%.*s%%2f%s", (int)(slash - url), url, slash + 1);
        free(url);
        url = esc;
    }
    bool have = false;
    for (size_t i = 0; i < d->n_inputs && !have; i++)
        have = strcmp(d->inputs[i].url, url) == 0;
    if (!have)
        sample_index(d, eco, url, "\"e\"", "sha256:" SAMPLE_HEX_C);
    free(url);
    return sample_pkg(d, eco, name, version, source);
}

static const char *sample_variants[] = { "datalayer", "e2b", NULL };
static const char *sample_digests[] = { "sha256:" SAMPLE_HEX_B, NULL, NULL };

static lock_check_input sample_input(void)
{
    return (lock_check_input){
        .spec_digest = "sha256:" SAMPLE_HEX_A,
        .python_version = "3.13.7",
        .platform = "manylinux_2_36_x86_64",
        .arch = "amd64",
        .base_ref = "datalayer/python-cpu",
        .base_channel = "2026.09",
        .variants = sample_variants,
        .base_digests = sample_digests,
        .exclude_newer = "2026-09-01T00:00:00Z",
        .prereleases = "if-necessary-or-explicit",
    };
}

/* Runs lock_check and compares the report with `want` ("" = valid). */
static void expect_report(lock_doc *d, const lock_check_input *in, const char *want)
{
    el_ctx *ctx = el_ctx_new();
    lock_report rep = { 0 };
    bool stale = true;
    el_code rc = lock_check(ctx, d, in, &stale, &rep);
    if (rc != EL_OK)
        fail_msg("lock_check failed: %s", el_ctx_message(ctx));
    char *text = lock_report_text(&rep);
    if (strcmp(text, want) != 0)
        fail_msg("report:\n%s\nwanted:\n%s", text, want);
    assert_int_equal(stale, *want != '\0');
    free(text);
    lock_report_release(&rep);
    el_ctx_free(ctx);
}

static void expect_root(lock_doc *d, const char *eco, const char *text, const char *want)
{
    lock_check_input in = sample_input();
    lock_check_root r = { eco, text };
    in.roots = &r;
    in.n_roots = 1;
    expect_report(d, &in, want);
}

static void test_check_unchanged(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    lock_doc_sort(d);
    lock_check_input in = sample_input();
    lock_check_root roots[] = {
        { "pypi", "pandas>=2" }, { "pypi", "requests[socks]" }, { "npm", "zod@^3" },
        { "npm", "wrap-ansi" },  { "deb", "gdal-bin" },          { "deb", "tzdata" },
    };
    in.roots = roots;
    in.n_roots = 6;
    expect_report(d, &in, "");
    lock_doc_free(d);
}

static void test_check_spec_target_options(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    lock_check_input in = sample_input();
    in.spec_digest = "sha256:00";
    in.python_version = "3.13.8";
    in.base_channel = "2026.10";
    static const char *vars[] = { "datalayer", "daytona", NULL };
    static const char *digs[] = { "sha256:ff", "sha256:ee", NULL };
    in.variants = vars;
    in.base_digests = digs;
    in.exclude_newer = NULL;
    in.prereleases = "disallow";
    expect_report(d, &in,
                  "spec digest changed: sha256:" SAMPLE_HEX_A " -> sha256:00\n"
                  "target python changed: 3.13.7 -> 3.13.8\n"
                  "base channel changed: 2026.09 -> 2026.10\n"
                  "base digest for the datalayer variant changed: sha256:" SAMPLE_HEX_B " -> sha256:ff\n"
                  "variant daytona added (the lock has no base digest for it)\n"
                  "variant e2b removed\n"
                  "option excludeNewer changed: 2026-09-01T00:00:00Z -> (none)\n"
                  "option prereleases changed: if-necessary-or-explicit -> disallow\n");
    /* upgrade options are compared only when asked */
    in = sample_input();
    in.upgrade_all = true;
    expect_report(d, &in, "");
    in.compare_upgrade = true;
    static const char *up[] = { "numpy", "pandas", "numpy" };
    in.upgrade = up;
    in.n_upgrade = 3;
    expect_report(d, &in,
                  "option upgradeAll changed: false -> true\n"
                  "option upgradePackages changed: [] -> [numpy, pandas]\n");
    /* a requirements file's build options: compared only when asked, as sets */
    in = sample_input();
    static const char *only[] = { "numpy", ":all:", NULL }, *none[] = { NULL };
    in.only_binary = only;
    in.prefer_binary = true;
    expect_report(d, &in, "");
    in.compare_build = true;
    expect_report(d, &in,
                  "option onlyBinary changed: [] -> [:all:, numpy]\n"
                  "option preferBinary changed: false -> true\n");
    static const char *locked_only[] = { ":all:", "numpy", NULL };
    static const char *locked_no[] = { "pandas", NULL };
    d->only_binary = locked_only;
    d->no_binary = locked_no;
    d->prefer_binary = true;
    in.no_binary = none;
    expect_report(d, &in, "option noBinary changed: [pandas] -> []\n");
    d->only_binary = d->no_binary = NULL;
    d->prefer_binary = false;
    lock_doc_free(d);
}

static void test_check_inputs(void **state)
{
    (void)state;
    lock_doc *d = sample_doc_v1(); /* format 1: ETags */
    lock_check_input in = sample_input();
    lock_input fresh[] = {
        { "pypi", "https://pypi.org/simple/numpy/", "W/\"5e1f-numpy\"", NULL, 0 },
        { "pypi", "https://pypi.org/simple/pyyaml/", "\"p1\"", NULL, 0 },
        { "npm", "https://registry.npmjs.org/zod", "\"a7c3\"", "2026-09-02T00:00:00.000Z", 0 },
        { "deb", "https://snapshot.debian.org/archive/debian/20260914T150000Z/dists/bookworm/Release",
          "sha256:" SAMPLE_HEX_A, "Sat, 13 Sep 2026 09:12:44 UTC", 0 },
    };
    in.fresh = fresh;
    in.n_fresh = 1;
    expect_report(d, &in, "");
    in.n_fresh = 4;
    expect_report(d, &in,
                  "input changed: deb https://snapshot.debian.org/archive/debian/20260914T150000Z/dists/bookworm/Release Release sha256:" SAMPLE_HEX_B " -> sha256:" SAMPLE_HEX_A "\n"
                  "input changed: npm https://registry.npmjs.org/zod modified 2026-08-30T11:02:13.512Z -> 2026-09-02T00:00:00.000Z\n"
                  "input added: pypi https://pypi.org/simple/pyyaml/\n");
    fresh[0].identity = "W/\"5e20-numpy\"";
    in.n_fresh = 1;
    expect_report(d, &in,
                  "input changed: pypi https://pypi.org/simple/numpy/ etag W/\"5e1f-numpy\" -> W/\"5e20-numpy\"\n");
    /* an input its index no longer serves, in (ecosystem, url) order among the others */
    lock_input gone[] = { { "npm", "https://registry.npmjs.org/zod", "not found", NULL, 0 } };
    in.gone = gone;
    in.n_gone = 1;
    expect_report(d, &in,
                  "input gone: npm https://registry.npmjs.org/zod (not found)\n"
                  "input changed: pypi https://pypi.org/simple/numpy/ etag W/\"5e1f-numpy\" -> W/\"5e20-numpy\"\n");
    in.fresh = NULL;
    in.n_fresh = 0;
    expect_report(d, &in, "input gone: npm https://registry.npmjs.org/zod (not found)\n");
    lock_doc_free(d);
    /* format 2: the content identities */
    d = sample_doc();
    lock_input now[] = { { "pypi", "https://pypi.org/simple/numpy/", "sha256:" SAMPLE_HEX_C, NULL, 0 } };
    lock_check_input in2 = sample_input();
    in2.fresh = now;
    in2.n_fresh = 1;
    expect_report(d, &in2, "");
    now[0].identity = "sha256:" SAMPLE_HEX_A;
    expect_report(d, &in2,
                  "input changed: pypi https://pypi.org/simple/numpy/ content sha256:" SAMPLE_HEX_C
                  " -> sha256:" SAMPLE_HEX_A "\n");
    lock_doc_free(d);
    /* a package whose index is not among the inputs (data loss 2 of issue
     * 19's probe: such a lock was called up to date); one in the base needs
     * none, and a deb's index is its source's Release */
    d = sample_doc();
    lock_doc_sort(d);
    for (size_t i = 0; i < d->n_inputs; i++)
        if (strcmp(d->inputs[i].url, "https://pypi.org/simple/requests/") == 0)
            d->inputs[i].url = "https://pypi.org/simple/requests-oauthlib/";
    lock_check_input in3 = sample_input();
    expect_report(d, &in3,
                  "package without its index among the inputs: pypi requests 2.32.3 packages[12]\n");
    d->n_inputs = 0;
    expect_report(d, &in3,
                  "package without its index among the inputs: deb gdal-bin 3.6.2+dfsg-1+b2 packages[0]\n"
                  "package without its index among the inputs: deb libgdal32 3.6.2+dfsg-1+b2 packages[2]\n"
                  "package without its index among the inputs: deb tzdata 1:2026a-0+deb12u1 packages[3]\n"
                  "package without its index among the inputs: npm ansi-styles 4.3.0 packages[4]\n"
                  "package without its index among the inputs: npm ansi-styles 6.2.1 packages[5]\n"
                  "package without its index among the inputs: npm wrap-ansi 7.0.0 packages[6]\n"
                  "package without its index among the inputs: npm zod 3.23.8 packages[7]\n"
                  "package without its index among the inputs: pypi numpy 1.26.4 packages[9]\n"
                  "package without its index among the inputs: pypi pandas 2.2.3 packages[10]\n"
                  "package without its index among the inputs: pypi pysocks 1.7.1 packages[11]\n"
                  "package without its index among the inputs: pypi requests 2.32.3 packages[12]\n");
    lock_doc_free(d);
}

static void test_check_pypi(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    lock_package *t = indexed_pkg(d, "pypi", "torch", "2.4.0+cpu", "https://download.pytorch.org/whl/cpu");
    (void)t;
    indexed_pkg(d, "pypi", "numpy-post", "1.26.4.post1", "https://pypi.org/simple");
    lock_doc_sort(d);
    expect_root(d, "pypi", "numpy==1.26.4", "");
    expect_root(d, "pypi", "NumPy==1.26.4", "");
    expect_root(d, "pypi", "numpy==1.21.0",
                "numpy==1.21.0 is no longer satisfied: the lock has 1.26.4\n");
    expect_root(d, "pypi", "numpy~=1.26", "");
    expect_root(d, "pypi", "numpy~=1.25.0",
                "numpy~=1.25.0 is no longer satisfied: the lock has 1.26.4\n");
    expect_root(d, "pypi", "numpy!=1.26.*", "numpy!=1.26.* is no longer satisfied: the lock has 1.26.4\n");
    /* pre-releases: accepted when they fit, never below `<V` of their own release */
    expect_root(d, "pypi", "ipykernel>=6", "");
    expect_root(d, "pypi", "ipykernel<7", "ipykernel<7 is no longer satisfied: the lock has 7.0.0a1\n");
    expect_root(d, "pypi", "ipykernel==7.0.0a1", "");
    /* local versions */
    expect_root(d, "pypi", "torch==2.4.0", "");
    expect_root(d, "pypi", "torch<=2.4.0", "");
    expect_root(d, "pypi", "torch==2.4.0+cpu", "");
    expect_root(d, "pypi", "torch==2.4.0+cu121",
                "torch==2.4.0+cu121 is no longer satisfied: the lock has 2.4.0+cpu\n");
    expect_root(d, "pypi", "torch>2.4.0", "torch>2.4.0 is no longer satisfied: the lock has 2.4.0+cpu\n");
    /* post releases */
    expect_root(d, "pypi", "numpy-post>1.26", "");
    expect_root(d, "pypi", "numpy_post>1.26.4",
                "numpy_post>1.26.4 is no longer satisfied: the lock has 1.26.4.post1\n");
    /* extras, markers, missing names */
    expect_root(d, "pypi", "requests[SOCKS]>=2.31", "");
    expect_root(d, "pypi", "requests[security,socks]",
                "requests[security,socks] is no longer satisfied: the lock does not install the extra security\n");
    expect_root(d, "pypi", "tomli>=2; python_version < \"3.11\"", "");
    expect_root(d, "pypi", "scipy; platform_machine == \"x86_64\"",
                "scipy; platform_machine == \"x86_64\" is not in the lock\n");
    expect_root(d, "pypi", "pandas @ https://example.org/pandas-2.2.3.tar.gz", "");

    /* pre-release modes of the lock */
    d->prereleases = "explicit";
    lock_check_input in = sample_input();
    in.prereleases = "explicit";
    lock_check_root r1 = { "pypi", "ipykernel>=6" };
    in.roots = &r1;
    in.n_roots = 1;
    expect_report(d, &in, "ipykernel>=6 is no longer satisfied: the lock has 7.0.0a1\n");
    r1.text = "ipykernel>=7.0.0a0";
    expect_report(d, &in, "");
    d->prereleases = "disallow";
    in.prereleases = "disallow";
    expect_report(d, &in, "ipykernel>=7.0.0a0 is no longer satisfied: the lock has 7.0.0a1\n");
    lock_doc_free(d);
}

static void test_check_npm(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    indexed_pkg(d, "npm", "tiny", "0.2.5", "https://registry.npmjs.org")->path = "node_modules/tiny";
    indexed_pkg(d, "npm", "beta", "1.0.0-beta.3", "https://registry.npmjs.org")->path = "node_modules/beta";
    indexed_pkg(d, "npm", "@types/node", "20.11.5", "https://registry.npmjs.org")->path = "node_modules/@types/node";
    lock_doc_sort(d);
    expect_root(d, "npm", "zod@^3", "");
    expect_root(d, "npm", "zod@3.23.8", "");
    expect_root(d, "npm", "zod", "");
    expect_root(d, "npm", "zod@latest", "");
    expect_root(d, "npm", "zod@^4", "zod@^4 is no longer satisfied: the lock has 3.23.8\n");
    expect_root(d, "npm", "zod@~3.22.0", "zod@~3.22.0 is no longer satisfied: the lock has 3.23.8\n");
    /* the root sees the top-level copy, not the nested one */
    expect_root(d, "npm", "ansi-styles@^6", "");
    expect_root(d, "npm", "ansi-styles@^4",
                "ansi-styles@^4 is no longer satisfied: the lock has 6.2.1\n");
    /* ^0.x pins the minor */
    expect_root(d, "npm", "tiny@^0.2.0", "");
    expect_root(d, "npm", "tiny@^0.1.0", "tiny@^0.1.0 is no longer satisfied: the lock has 0.2.5\n");
    /* prerelease gating: only a range naming a prerelease of 1.0.0 admits it */
    expect_root(d, "npm", "beta@^1.0.0-beta.1", "");
    expect_root(d, "npm", "beta@>=0.9.0", "beta@>=0.9.0 is no longer satisfied: the lock has 1.0.0-beta.3\n");
    expect_root(d, "npm", "@types/node@^20", "");
    expect_root(d, "npm", "@types/node@>=21 <22",
                "@types/node@>=21 <22 is no longer satisfied: the lock has 20.11.5\n");
    expect_root(d, "npm", "left-pad@^1", "left-pad@^1 is not in the lock\n");
    lock_doc_free(d);
}

static void test_check_deb(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    lock_doc_sort(d);
    expect_root(d, "deb", "gdal-bin", "");
    expect_root(d, "deb", "gdal-bin=3.6.2+dfsg-1+b2", "");
    expect_root(d, "deb", "gdal-bin:amd64=3.6.2+dfsg-1+b2", "");
    expect_root(d, "deb", "gdal-bin:amd64", "");
    expect_root(d, "deb", "gdal-bin=3.6.2+dfsg-1",
                "gdal-bin=3.6.2+dfsg-1 is no longer satisfied: the lock has 3.6.2+dfsg-1+b2\n");
    expect_root(d, "deb", "gdal-bin (>> 3.6.2+dfsg-1)", "");
    expect_root(d, "deb", "gdal-bin (>> 3.6.2+dfsg-1+b2)",
                "gdal-bin (>> 3.6.2+dfsg-1+b2) is no longer satisfied: the lock has gdal-bin 3.6.2+dfsg-1+b2\n");
    expect_root(d, "deb", "gdal-bin (<< 3.6.2+dfsg-1+b2~)",
                "gdal-bin (<< 3.6.2+dfsg-1+b2~) is no longer satisfied: the lock has gdal-bin 3.6.2+dfsg-1+b2\n");
    /* epochs outrank everything after them */
    expect_root(d, "deb", "tzdata (>> 2099a)", "");
    expect_root(d, "deb", "tzdata (<< 2099a)",
                "tzdata (<< 2099a) is no longer satisfied: the lock has tzdata 1:2026a-0+deb12u1\n");
    expect_root(d, "deb", "tzdata=1:2026a-0+deb12u1", "");
    expect_root(d, "deb", "tzdata=2026a-0+deb12u1",
                "tzdata=2026a-0+deb12u1 is no longer satisfied: the lock has 1:2026a-0+deb12u1\n");
    expect_root(d, "deb", "no-such-mta | gdal-bin", "");
    expect_root(d, "deb", "no-such-pkg", "no-such-pkg is not in the lock\n");
    lock_doc_free(d);
}

/* conda packages (an environment.yml's lock): roots and edges as conda's
 * match specs read them against name, version, build and build number. */
static lock_doc *conda_doc(void)
{
    lock_doc *d = sample_doc();
    const char *const names[] = { "python", "requests" };
    const char *const versions[] = { "3.13.7", "2.32.5" };
    const char *const builds[] = { "h2b335a9_100_cp313", "pyhcf101f3_1" };
    const uint64_t numbers[] = { 100, 1 };
    for (int i = 0; i < 2; i++) {
        lock_package *p = lock_doc_add_package(d);
        p->ecosystem = "conda";
        p->name = names[i];
        p->version = versions[i];
        p->build = builds[i];
        p->build_number = numbers[i];
        p->subdir = i ? "noarch" : "linux-64";
        p->source = "https://conda.anaconda.org/conda-forge";
        lock_strv_add(d, &p->requested_by, "spec");
        lock_artifact *a = lock_package_add_artifact(d, p);
        a->file = lock_strdup(d, i ? "requests-2.32.5-pyhcf101f3_1.conda"
                                   : "python-3.13.7-h2b335a9_100_cp313.conda");
        a->url = lock_strdup(d, i ? "https://conda.anaconda.org/conda-forge/noarch/"
                                    "requests-2.32.5-pyhcf101f3_1.conda"
                                  : "https://conda.anaconda.org/conda-forge/linux-64/"
                                    "python-3.13.7-h2b335a9_100_cp313.conda");
        a->hash = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
        a->md5 = "0123456789abcdef0123456789abcdef";
        if (i) {
            lock_edge *e = lock_package_add_dep(d, p);
            e->name = "python";
            e->version = "3.13.7";
            e->kind = "depends";
            e->spec = "python >=3.9";
        }
    }
    for (int i = 0; i < 2; i++) {
        lock_input *in = lock_doc_add_input(d);
        in->ecosystem = "conda";
        in->url = i ? "https://conda.anaconda.org/conda-forge/noarch/repodata.json"
                    : "https://conda.anaconda.org/conda-forge/linux-64/repodata.json";
        in->identity = "";
    }
    lock_doc_sort(d);
    return d;
}

static void test_check_conda(void **state)
{
    (void)state;
    lock_doc *d = conda_doc();
    el_ctx *ctx = el_ctx_new();
    assert_int_equal(lock_validate(ctx, d), EL_OK);
    /* the conda keys survive a round trip, byte for byte */
    size_t len = 0, len2 = 0;
    char *text = lock_write_text(d, &len);
    assert_non_null(strstr(text, "  build: h2b335a9_100_cp313\n  buildNumber: 100\n"
                                 "  subdir: linux-64\n"));
    assert_non_null(strstr(text, "    md5: \"0123456789abcdef0123456789abcdef\"\n"));
    lock_doc *back = lock_read_text(ctx, text, len);
    assert_non_null(back);
    char *again = lock_write_text(back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    free(text);
    free(again);
    lock_doc_free(back);
    el_ctx_free(ctx);
    expect_root(d, "conda", "python=3.13", "");
    expect_root(d, "conda", "python 3.13.* *_cp313", "");
    expect_root(d, "conda", "python[build_number=100]", "");
    expect_root(d, "conda", "python[build_number=99]",
                "python[build_number=99] is no longer satisfied: the lock has 3.13.7 "
                "h2b335a9_100_cp313\n");
    expect_root(d, "conda", "python 3.12.*",
                "python 3.12.* is no longer satisfied: the lock has 3.13.7 h2b335a9_100_cp313\n");
    expect_root(d, "conda", "requests >=2.32,<3", "");
    expect_root(d, "conda", "numpy", "numpy is not in the lock\n");
    /* an edge the bound version no longer meets */
    for (size_t i = 0; i < d->n_packages; i++)
        if (strcmp(d->packages[i].ecosystem, "conda") == 0 && d->packages[i].n_deps)
            d->packages[i].deps[0].spec = "python <3.13";
    expect_root(d, "conda", "requests",
                "conda:requests@2.32.5 needs python <3.13, but the lock binds python to 3.13.7\n");
    lock_doc_free(d);
}

static void test_check_edges(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    lock_doc_sort(d);
    lock_check_input in = sample_input();
    expect_report(d, &in, "");
    /* numpy downgraded in the lock: every pandas edge now fails */
    for (size_t i = 0; i < d->n_packages; i++) {
        lock_package *p = &d->packages[i];
        if (strcmp(p->name, "numpy") == 0)
            p->version = "1.21.0";
        for (size_t j = 0; j < p->n_deps; j++)
            if (strcmp(p->deps[j].name, "numpy") == 0)
                p->deps[j].version = "1.21.0";
        if (strcmp(p->name, "libc6") == 0)
            p->version = "2.34-1";
        if (strcmp(p->name, "libgdal32") == 0)
            for (size_t j = 0; j < p->n_deps; j++)
                p->deps[j].version = "2.34-1";
        if (strcmp(p->name, "gdal-bin") == 0)
            for (size_t j = 0; j < p->n_deps; j++)
                if (strcmp(p->deps[j].name, "libc6") == 0)
                    p->deps[j].version = "2.34-1";
        if (strcmp(p->name, "wrap-ansi") == 0)
            p->deps[0].version = "4.2.9"; /* not in the lock */
    }
    expect_report(d, &in,
                  "deb:libgdal32@3.6.2+dfsg-1+b2 needs libc6 (>= 2.35), but the lock binds libc6 to 2.34-1\n"
                  "npm:wrap-ansi@7.0.0 depends on npm:ansi-styles@4.2.9, which is not in the lock\n"
                  "pypi:pandas@2.2.3 needs numpy>=1.22.4; python_version < \"3.11\", but the lock binds numpy to 1.21.0\n"
                  "pypi:pandas@2.2.3 needs numpy>=1.23.2; python_version == \"3.11\", but the lock binds numpy to 1.21.0\n"
                  "pypi:pandas@2.2.3 needs numpy>=1.26.0; python_version >= \"3.12\", but the lock binds numpy to 1.21.0\n");
    lock_doc_free(d);

    /* an npm alias edge ("x": "npm:ansi-styles@^4") holds for that package
     * in its range only */
    static const char *const specs[][2] = {
        { "npm:ansi-styles@^4.0.0", "" },
        { "npm:ansi-styles", "" },
        { "npm:ansi-styles@^5.0.0", "npm:wrap-ansi@7.0.0 needs npm:ansi-styles@^5.0.0, but the lock "
                                    "binds ansi-styles to 4.3.0\n" },
        { "npm:chalk@^4.0.0", "npm:wrap-ansi@7.0.0 needs npm:chalk@^4.0.0, but the lock binds "
                              "ansi-styles to 4.3.0\n" },
    };
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        d = sample_doc();
        for (size_t i = 0; i < d->n_packages; i++)
            if (strcmp(d->packages[i].name, "wrap-ansi") == 0) {
                d->packages[i].deps[0].spec = specs[k][0];
                d->packages[i].deps[0].alias = "@x/styles";
            } else if (strcmp(d->packages[i].version, "4.3.0") == 0) {
                d->packages[i].path = "node_modules/wrap-ansi/node_modules/@x/styles";
            }
        lock_doc_sort(d);
        expect_report(d, &in, specs[k][1]);
        lock_doc_free(d);
    }
}

/* An edge met by some copy in the lock but not by the copy Node's
 * require() finds walking up node_modules from the dependent (express's
 * shape: send needs ms 2.1.3, the hoisted ms is debug's 2.0.0). */
static void walk_doc(lock_doc *d, const char *ms_213_path)
{
    const char *reg = "https://registry.npmjs.org";
    lock_package *p = indexed_pkg(d, "npm", "send", "0.18.0", reg);
    p->path = "node_modules/send";
    sample_dep(d, p, "ms", "2.1.3", "dependency", "2.1.3");
    p = indexed_pkg(d, "npm", "debug", "2.6.9", reg);
    p->path = "node_modules/debug";
    sample_dep(d, p, "ms", "2.0.0", "dependency", "2.0.0");
    p = indexed_pkg(d, "npm", "ms", "2.0.0", reg);
    p->path = "node_modules/ms";
    p = indexed_pkg(d, "npm", "ms", "2.1.3", reg);
    p->path = ms_213_path;
    p = indexed_pkg(d, "npm", "@s/p", "1.0.0", reg);
    p->path = "node_modules/@s/p";
    sample_dep(d, p, "debug", "2.6.9", "peer", "^2");
    lock_doc_sort(d);
}

static void test_check_npm_walk(void **state)
{
    (void)state;
    lock_check_input in = sample_input();
    lock_doc *d = sample_doc();
    walk_doc(d, "node_modules/send/node_modules/ms");
    expect_report(d, &in, "");
    lock_doc_free(d);

    d = sample_doc();
    walk_doc(d, "node_modules/debug/node_modules/ms");
    expect_report(d, &in,
                  "npm:debug@2.6.9 at node_modules/debug needs ms 2.0.0, but Node loads ms 2.1.3 "
                  "from node_modules/debug/node_modules/ms\n"
                  "npm:send@0.18.0 at node_modules/send needs ms 2.1.3, but Node loads ms 2.0.0 "
                  "from node_modules/ms\n");
    lock_doc_free(d);

    /* debug's ms sits below another package: debug finds none */
    d = sample_doc();
    walk_doc(d, "node_modules/send/node_modules/ms");
    for (size_t i = 0; i < d->n_packages; i++)
        if (strcmp(d->packages[i].name, "ms") == 0 && strcmp(d->packages[i].version, "2.0.0") == 0)
            d->packages[i].path = "node_modules/send/node_modules/x/node_modules/ms";
    lock_doc_sort(d);
    expect_report(d, &in,
                  "npm:debug@2.6.9 at node_modules/debug needs ms 2.0.0, but Node finds no ms "
                  "from there\n");
    lock_doc_free(d);
}

static void test_check_bad_root(void **state)
{
    (void)state;
    lock_doc *d = sample_doc();
    lock_check_input in = sample_input();
    const char *bad[][2] = { { "pypi", "numpy>=>1" }, { "npm", "git+https://x/y.git" },
                             { "deb", "gdal-bin (>>)" }, { "cargo", "serde" } };
    for (size_t i = 0; i < 4; i++) {
        lock_check_root r[2] = { { "pypi", "numpy" }, { bad[i][0], bad[i][1] } };
        in.roots = r;
        in.n_roots = 2;
        el_ctx *ctx = el_ctx_new();
        lock_report rep = { 0 };
        bool stale = false;
        assert_int_equal(lock_check(ctx, d, &in, &stale, &rep), EL_SPEC_INVALID);
        struct json_object *v;
        assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "field", &v));
        assert_string_equal(json_object_get_string(v), "roots[1]");
        lock_report_release(&rep);
        el_ctx_free(ctx);
    }
    lock_doc_free(d);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest sort[] = {
        cmocka_unit_test(test_shuffle_1000),
        cmocka_unit_test(test_shuffle_many_docs),
        cmocka_unit_test(test_sort_idempotent_and_order),
    };
    const struct CMUnitTest quoting[] = {
        cmocka_unit_test(test_quoting_roundtrip),
        cmocka_unit_test(test_quoting_choices),
        cmocka_unit_test(test_invalid_utf8_refused),
    };
    const struct CMUnitTest golden[] = { cmocka_unit_test(test_golden_sample) };
    const struct CMUnitTest roundtrip[] = { cmocka_unit_test(test_roundtrip_generated) };
    const struct CMUnitTest malformed[] = { cmocka_unit_test(test_malformed) };
    const struct CMUnitTest limits[] = { cmocka_unit_test(test_depth_limit),
                                         cmocka_unit_test(test_license_bound),
                                         cmocka_unit_test(test_size_limit) };
    const struct CMUnitTest atomic[] = { cmocka_unit_test(test_atomic_write),
                                         cmocka_unit_test(test_rewrite_same) };
    const struct CMUnitTest digest[] = { cmocka_unit_test(test_digest) };
    const struct CMUnitTest check[] = {
        cmocka_unit_test(test_check_unchanged), cmocka_unit_test(test_check_spec_target_options),
        cmocka_unit_test(test_check_inputs),    cmocka_unit_test(test_check_pypi),
        cmocka_unit_test(test_check_npm),       cmocka_unit_test(test_check_deb),
        cmocka_unit_test(test_check_conda),
        cmocka_unit_test(test_check_edges), cmocka_unit_test(test_check_npm_walk),     cmocka_unit_test(test_check_bad_root),
    };
    const char *g = argc > 1 ? argv[1] : "all";
    int fails = 0;
    bool all = strcmp(g, "all") == 0;
#define GROUP(n)                                                                                   \
    if (all || strcmp(g, #n) == 0)                                                                 \
        fails += cmocka_run_group_tests_name(#n, n, NULL, NULL);
    GROUP(sort)
    GROUP(quoting)
    GROUP(golden)
    GROUP(roundtrip)
    GROUP(malformed)
    GROUP(limits)
    GROUP(atomic)
    GROUP(digest)
    GROUP(check)
    return fails ? 1 : 0;
}

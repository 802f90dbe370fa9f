/* unit_packument_blob.c — the parsed form of a packument
 * (npm_packument_blob.c): what it reads back is the model a parse makes,
 * field by field, under every option that changes the model; and a blob
 * that is truncated, has a flipped byte, another format number, or was made
 * for another body or other options is refused, so the caller parses again.
 *
 * Without arguments: the cmocka units. With FILE... : every file (a
 * packument, its name taken from the document) goes through the same
 * comparison under several targets (npm_index_blob_demo runs it over the
 * demo mirror; point it at recorded registry packuments by hand); exit 1
 * on the first difference. With --seed DIR
 * FILE... : the fuzzer's seeds (tests/fuzz/fuzz_packument_blob.c) for each
 * file, a payload ("p-NAME") and a whole blob ("b-NAME"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blob_seed.h"
#include "npm_index.h"

/* ---- field-by-field comparison ---- */

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool list_eq(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!str_eq(a[i], b[i]))
            return false;
    return true;
}

static bool semver_eq(const npm_semver *a, const npm_semver *b)
{
    if (!a->version || !b->version)
        return !a->version && !b->version;
    return strcmp(a->version, b->version) == 0 && npm_semver_compare_build(a, b) == 0 &&
           a->major == b->major && a->minor == b->minor && a->patch == b->patch &&
           a->npre == b->npre && a->nbuild == b->nbuild;
}

static bool range_eq(const npm_range *a, const npm_range *b)
{
    if (!a || !b)
        return !a && !b;
    return strcmp(npm_range_format(a), npm_range_format(b)) == 0 &&
           npm_range_opts(a) == npm_range_opts(b) && npm_range_nsets(a) == npm_range_nsets(b);
}

static const char *dep_diff(const npm_dep *a, const npm_dep *b)
{
    if (!str_eq(a->name, b->name) || !str_eq(a->spec, b->spec))
        return "dep name/spec";
    if (a->kind != b->kind || a->spec_kind != b->spec_kind)
        return "dep kind";
    if (!str_eq(a->alias_name, b->alias_name))
        return "dep alias";
    if (!str_eq(a->range_text, b->range_text))
        return "dep range text";
    return range_eq(npm_dep_range(a), npm_dep_range(b)) ? NULL : "dep range";
}

static const char *version_diff(const npm_version *a, const npm_version *b)
{
    if (!str_eq(a->version, b->version) || !semver_eq(&a->semver, &b->semver))
        return "version/semver";
    if (a->ndeps != b->ndeps)
        return "ndeps";
    for (size_t i = 0; i < a->ndeps; i++) {
        const char *d = dep_diff(&a->deps[i], &b->deps[i]);
        if (d)
            return d;
    }
    if (a->bundle_all != b->bundle_all || !list_eq(a->bundled, a->nbundled, b->bundled, b->nbundled))
        return "bundled";
    if (!str_eq(a->deprecated, b->deprecated))
        return "deprecated";
    if (!list_eq(a->os, a->nos, b->os, b->nos) || !list_eq(a->cpu, a->ncpu, b->cpu, b->ncpu) ||
        !list_eq(a->libc, a->nlibc, b->libc, b->nlibc))
        return "os/cpu/libc";
    if (a->nengines != b->nengines)
        return "nengines";
    for (size_t i = 0; i < a->nengines; i++)
        if (!str_eq(a->engines[i].name, b->engines[i].name) ||
            !str_eq(a->engines[i].range, b->engines[i].range))
            return "engines";
    if (!str_eq(a->integrity, b->integrity) || !str_eq(a->shasum, b->shasum))
        return "integrity/shasum";
    if (!str_eq(a->tarball, b->tarball) || !str_eq(a->tarball_served, b->tarball_served))
        return "tarball";
    if (!str_eq(a->time, b->time) || a->time_ms != b->time_ms)
        return "time";
    if (a->flags != b->flags || a->excluded != b->excluded || !str_eq(a->why, b->why))
        return "flags/excluded/why";
    return NULL;
}

/* The first field in which a and b differ ("versions[3]: tarball"), or
 * NULL. malloc'd. */
static char *packument_diff(const npm_packument *a, const npm_packument *b)
{
    if (!str_eq(a->name, b->name) || !str_eq(a->registry, b->registry) || !str_eq(a->url, b->url))
        return xstrdup("name/registry/url");
    if (a->full != b->full || !str_eq(a->modified, b->modified))
        return xstrdup("full/modified");
    if (!str_eq(a->identity, b->identity))
        return xstrdup("identity");
    if (a->code != b->code || a->ntags != b->ntags)
        return xstrdup("code/ntags");
    for (size_t i = 0; i < a->ntags; i++)
        if (!str_eq(a->tags[i].tag, b->tags[i].tag) || !str_eq(a->tags[i].version, b->tags[i].version))
            return xasprintf("tags[%zu]", i);
    if (a->nversions != b->nversions || a->ncandidates != b->ncandidates)
        return xstrdup("nversions/ncandidates");
    for (size_t i = 0; i < a->nversions; i++) {
        const char *d = version_diff(&a->versions[i], &b->versions[i]);
        if (d)
            return xasprintf("versions[%zu] (%s): %s", i, a->versions[i].version, d);
    }
    return NULL;
}

/* ---- helpers ---- */

static const char SHA_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/* Parses `doc` again, cools it (npm_packument_cool()) and warms every
 * version, last first: 0 when that gives `p` field by field, and every
 * version was cold (no details) with its head intact before. */
static int cold_trip(const char *doc, size_t len, const npm_parse_options *o, const char *what,
                     const npm_packument *p)
{
    npm_packument *c = NULL;
    const char *reason;
    char *err = NULL;
    if (npm_packument_parse(doc, len, o, &c, &reason, &err) != 0) {
        free(err);
        return 1;
    }
    npm_packument_cool(c);
    int rc = 0;
    for (size_t i = 0; i < c->nversions && !rc; i++) {
        const npm_version *v = &c->versions[i], *pv = &p->versions[i];
        if (!npm_version_is_cold(c, v) || v->ndeps || v->tarball || v->integrity || v->nos ||
            !str_eq(v->version, pv->version) || !str_eq(v->deprecated, pv->deprecated) ||
            !str_eq(v->time, pv->time) || v->flags != pv->flags || !str_eq(v->why, pv->why)) {
            fprintf(stderr, "%s: cooled version %zu is not its head alone\n", what, i);
            rc = 1;
        }
    }
    for (size_t i = c->nversions; i-- > 0;)
        if (npm_version_warm(c, &c->versions[i]) != &c->versions[i] ||
            npm_version_is_cold(c, &c->versions[i]))
            rc = 1;
    char *d = rc ? NULL : packument_diff(p, c);
    if (d)
        fprintf(stderr, "%s: the warmed model differs in %s\n", what, d);
    rc |= d != NULL;
    free(d);
    npm_packument_free(c);
    return rc;
}

/* Parses `doc`, writes its blob, reads it back: 0 when the model read back
 * is the parsed one (and cold_trip() gives it too), else prints the
 * difference. *blob gets the bytes when asked for. */
static int round_trip(const char *doc, size_t len, const npm_parse_options *o, const char *what,
                      strbuf *blob)
{
    npm_packument *p = NULL, *q = NULL;
    const char *reason;
    char *err = NULL;
    if (npm_packument_parse(doc, len, o, &p, &reason, &err) != 0) {
        free(err);
        return 0; /* nothing to store: the loader writes no blob then */
    }
    strbuf sb = STRBUF_INIT;
    npm_packument_blob_write(p, SHA_A, o, &sb);
    int rc = 0;
    if (npm_packument_blob_read((const unsigned char *)sb.buf, sb.len, SHA_A, o, &q) != 0) {
        fprintf(stderr, "%s: its own blob was refused\n", what);
        rc = 1;
    } else {
        char *d = packument_diff(p, q);
        if (d)
            fprintf(stderr, "%s: the blob's model differs in %s\n", what, d);
        rc = d ? 1 : 0;
        free(d);
    }
    rc |= cold_trip(doc, len, o, what, p);
    npm_packument_free(p);
    npm_packument_free(q);
    if (blob)
        *blob = sb;
    else
        sb_release(&sb);
    return rc;
}

#define DIST(n, v)                                                                            \
    "\"dist\":{\"tarball\":\"http://127.0.0.1:9/npm/" n "/-/" n "-" v ".tgz\",\"integrity\":" \
    "\"sha512-AAAA\",\"shasum\":\"0123456789abcdef0123456789abcdef01234567\"}"

/* A document with every field the model takes, in its odd forms too. */
static const char DOC[] =
    "{\"name\":\"x\",\"modified\":\"2024-06-10T00:00:00.000Z\","
    "\"dist-tags\":{\"latest\":\"1.2.0\",\"next\":\"2.0.0-rc.1\",\"bad\":3},"
    "\"time\":{\"1.0.0\":\"2020-01-01T00:00:00Z\",\"1.2.0\":\"2024-01-01T00:00:00Z\","
    "\"2.0.0-rc.1\":\"soon\",\"modified\":\"2024-06-10T00:00:00Z\"},"
    "\"versions\":{"
    "\"1.0.0\":{\"dependencies\":{\"a\":\"^1.0.0\",\"b\":\"npm:c@~2.1\",\"g\":\"user/repo\","
    "\"t\":\"latest\",\"o\":\"1\"},\"optionalDependencies\":{\"o\":\">=1 <2 || 3.x\"},"
    "\"peerDependencies\":{\"p\":\"*\",\"q\":\"npm:r\"},\"peerDependenciesMeta\":{\"q\":{\"optional\":true}},"
    "\"bundleDependencies\":[\"a\"],\"deprecated\":\"use 1.2\",\"os\":[\"linux\",\"!win32\"],"
    "\"cpu\":\"x64\",\"libc\":[\"glibc\"],\"engines\":{\"node\":\">=14\",\"npm\":\"*\"},"
    "\"hasInstallScript\":true," DIST("x", "1.0.0") "},"
    "\"1.2.0\":{\"bundleDependencies\":true,\"deprecated\":true,"
    "\"dist\":{\"tarball\":\"https://cdn.example/x-1.2.0.tgz\",\"shasum\":"
    "\"0123456789abcdef0123456789abcdef01234567\"}},"
    "\"2.0.0-rc.1+b.7\":{\"os\":[\"darwin\"]," DIST("x", "2.0.0-rc.1") "},"
    "\"2.0.0-rc.1\":{\"cpu\":[\"arm64\"]," DIST("x", "2.0.0-rc.1") "},"
    "\"nope\":{" DIST("x", "nope") "},"
    "\"1.1.0\":{\"dependencies\":[1]," DIST("x", "1.1.0") "},"
    "\"1.1.1\":{\"dist\":{}},"
    "\"1.1.2\":{\"libc\":[\"musl\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/x/-/x-1.1.2.tgz\"}}"
    "}}";

static char *canon_mirror(void *user, const char *url)
{
    (void)user;
    const char m[] = "https://cdn.example/";
    if (strncmp(url, m, strlen(m)) == 0)
        return xasprintf("https://registry.npmjs.org/x/-/%s", url + strlen(m));
    return xstrdup(url);
}

/* The option sets every document is tried under. */
static size_t option_sets(npm_parse_options *os, const char *name)
{
    static const npm_target cutoff = { "linux", "x64", "glibc", NULL, "2023-01-01T00:00:00Z", false };
    static const npm_target arm = { "linux", "arm64", "musl", "18.0.0", NULL, false };
    static const npm_target mac = { "darwin", "arm64", NULL, "12.0.0", NULL, false };
    size_t n = 0;
    os[n++] = (npm_parse_options){ .name = name };
    os[n++] = (npm_parse_options){ .name = name, .target = &cutoff };
    os[n++] = (npm_parse_options){ .name = name, .target = &arm };
    os[n++] = (npm_parse_options){ .name = name, .target = &mac,
                                   .served_base = "http://127.0.0.1:9/npm" };
    os[n++] = (npm_parse_options){ .name = name, .registry = "https://reg.corp/npm/",
                                   .served_base = "http://127.0.0.1:9/npm/",
                                   .canonical_url = canon_mirror };
    return n;
}

/* ---- units ---- */

static void test_round_trip(void **state)
{
    (void)state;
    npm_parse_options os[8];
    size_t n = option_sets(os, "x");
    for (size_t i = 0; i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, "DOC options %zu", i);
        assert_int_equal(round_trip(DOC, strlen(DOC), &os[i], what, NULL), 0);
    }
    /* the name may come from the document */
    npm_parse_options o = { 0 };
    assert_int_equal(round_trip(DOC, strlen(DOC), &o, "DOC unnamed", NULL), 0);
    const char empty[] = "{}";
    assert_int_equal(round_trip(empty, 2, &os[0], "{}", NULL), 0);
}

/* Every damaged blob is refused; the caller's reparse is the model. */
static void refused(const strbuf *blob, const char *sha, const npm_parse_options *o)
{
    npm_packument *q = (npm_packument *)1;
    assert_int_equal(npm_packument_blob_read((const unsigned char *)blob->buf, blob->len, sha, o, &q),
                     -1);
    assert_null(q);
}

static void test_damage(void **state)
{
    (void)state;
    npm_parse_options os[8];
    option_sets(os, "x");
    strbuf blob;
    assert_int_equal(round_trip(DOC, strlen(DOC), &os[1], "DOC", &blob), 0);
    strbuf b = STRBUF_INIT;
    /* truncated at every length */
    for (size_t len = 0; len < blob.len; len++) {
        sb_reset(&b);
        sb_add(&b, blob.buf, len);
        refused(&b, SHA_A, &os[1]);
    }
    /* one flipped byte anywhere */
    for (size_t i = 0; i < blob.len; i++) {
        sb_reset(&b);
        sb_add(&b, blob.buf, blob.len);
        b.buf[i] ^= 0x20;
        refused(&b, SHA_A, &os[1]);
    }
    /* trailing data */
    sb_reset(&b);
    sb_add(&b, blob.buf, blob.len);
    sb_addc(&b, 0);
    refused(&b, SHA_A, &os[1]);
    /* another format number (bytes 8..11, little-endian) */
    sb_reset(&b);
    sb_add(&b, blob.buf, blob.len);
    b.buf[8] = (char)(NPM_BLOB_FORMAT + 1);
    refused(&b, SHA_A, &os[1]);
    /* made for another body, or other options */
    refused(&blob, SHA_B, &os[1]);
    for (size_t i = 0; i < 5; i++)
        if (i != 1)
            refused(&blob, SHA_A, &os[i]);
    sb_release(&b);
    sb_release(&blob);

    /* and the reparse after a refusal is the model the blob held */
    npm_packument *p = NULL;
    const char *reason;
    char *err;
    assert_int_equal(npm_packument_parse(DOC, strlen(DOC), &os[1], &p, &reason, &err), 0);
    assert_string_equal(npm_packument_find(p, "1.2.0")->why,
                        "published 2024-01-01T00:00:00Z, after the cutoff 2023-01-01T00:00:00Z");
    npm_packument_free(p);
}

/* Blob names differ by body and by every option folded into the key; the
 * mirror table is not one of them (the reader maps tarballs again). */
static void test_names(void **state)
{
    (void)state;
    npm_parse_options os[8];
    size_t n = option_sets(os, "x");
    char *names[8] = { NULL };
    assert_true(n >= 5 && n <= 8);
    for (size_t i = 0; i < n; i++)
        names[i] = npm_packument_blob_name(SHA_A, &os[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(names[i], names[j]);
    char *other = npm_packument_blob_name(SHA_B, &os[0]);
    assert_string_not_equal(other, names[0]);
    assert_non_null(strstr(names[0], SHA_A));
    npm_parse_options nomap = os[4];
    nomap.canonical_url = NULL;
    char *same = npm_packument_blob_name(SHA_A, &nomap);
    assert_string_equal(same, names[4]);
    free(same);
    free(other);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

/* ---- files ---- */

static int check_files(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        size_t len = 0;
        char *doc = read_file(argv[i], NPM_PACKUMENT_MAX_BYTES, &len);
        if (!doc) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 2;
        }
        npm_parse_options os[8];
        size_t n = option_sets(os, NULL);
        for (size_t k = 0; k < n; k++) {
            char what[4200];
            snprintf(what, sizeof what, "%s (options %zu)", argv[i], k);
            bad |= round_trip(doc, len, &os[k], what, NULL);
        }
        free(doc);
    }
    printf("%d files compared\n", argc - 1);
    return bad;
}

/* The options and body hash fuzz_packument_blob.c reads with. */
static const char FUZZ_SHA[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static int write_seeds(int argc, char **argv)
{
    const size_t header = BLOB_FRAME_HEADER;
    npm_parse_options o = { .name = NULL, .served_base = "http://127.0.0.1:4873/npm/" };
    for (int i = 3; i < argc; i++) {
        size_t len = 0;
        char *doc = read_file(argv[i], NPM_PACKUMENT_MAX_BYTES, &len);
        npm_packument *p = NULL;
        const char *reason;
        char *err = NULL;
        if (!doc || npm_packument_parse(doc, len, &o, &p, &reason, &err) != 0) {
            fprintf(stderr, "%s: cannot read or parse\n", argv[i]);
            free(doc);
            free(err);
            return 2;
        }
        strbuf sb = STRBUF_INIT;
        npm_packument_blob_write(p, FUZZ_SHA, &o, &sb);
        int rc = blob_seed_write(argv[2], argv[i], 0, &sb, header) |
                 blob_seed_write(argv[2], argv[i], 1, &sb, 0);
        sb_release(&sb);
        npm_packument_free(p);
        free(doc);
        if (rc)
            return rc;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--seed") == 0)
        return write_seeds(argc, argv);
    if (argc > 1)
        return check_files(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* unit_packument.c — the packument parser: abbreviated and full documents,
 * scoped names, every field a version can carry, the target's judgements
 * (cutoff, os/cpu/libc, engines), and malformed input of every kind, which
 * must end in a clear reason and never a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "npm_index.h"

static npm_packument *parse_t(const char *doc, const char *name, const npm_target *t,
                              const char **reason, char **err)
{
    npm_parse_options o = { .name = name, .target = t };
    npm_packument *p = NULL;
    const char *r = NULL;
    char *e = NULL;
    int rc = npm_packument_parse(doc, strlen(doc), &o, &p, &r, &e);
    if (reason)
        *reason = r;
    if (err)
        *err = e;
    else
        free(e);
    assert_true(rc == 0 ? p != NULL : p == NULL);
    return p;
}

static npm_packument *parse_ok(const char *doc, const char *name, const npm_target *t)
{
    char *err = NULL;
    npm_packument *p = parse_t(doc, name, t, NULL, &err);
    if (!p)
        fail_msg("parse failed: %s", err);
    return p;
}

static void parse_bad(const char *doc, const char *name, const char *want_reason, const char *want_msg)
{
    const char *reason = NULL;
    char *err = NULL;
    npm_packument *p = parse_t(doc, name, NULL, &reason, &err);
    assert_null(p);
    assert_string_equal(reason, want_reason);
    assert_non_null(err);
    if (want_msg && !strstr(err, want_msg))
        fail_msg("message `%s` lacks `%s`", err, want_msg);
    free(err);
}

#define DIST(n, v) \
    "\"dist\":{\"tarball\":\"https://registry.npmjs.org/" n "/-/" n "-" v ".tgz\",\"integrity\":\"sha512-AAAA\",\"shasum\":\"0123456789abcdef0123456789abcdef01234567\"}"

static const char ABBREV[] =
    "{\"name\":\"zod\",\"modified\":\"2024-06-10T00:00:00.000Z\","
    "\"dist-tags\":{\"latest\":\"3.23.8\",\"next\":\"4.0.0-beta.1\"},"
    "\"versions\":{"
    "\"3.22.4\":{\"name\":\"zod\",\"version\":\"3.22.4\"," DIST("zod", "3.22.4") "},"
    "\"3.23.8\":{\"name\":\"zod\",\"version\":\"3.23.8\"," DIST("zod", "3.23.8") "},"
    "\"4.0.0-beta.1\":{\"name\":\"zod\",\"version\":\"4.0.0-beta.1\"," DIST("zod", "4.0.0-beta.1") "},"
    "\"3.24.0\":{\"name\":\"zod\",\"version\":\"3.24.0\"," DIST("zod", "3.24.0") "}"
    "}}";

/* The identity (lock format 2): what the reader takes, not the bytes or
 * the tarball URLs. The same content re-rendered by a mirror (other key
 * order, tarballs on the mirror, its own bookkeeping keys) keeps it; a moved
 * dist-tag, a deprecation or another integrity changes it. */
static char *replaced(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    assert_non_null(at);
    return xasprintf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
}

static void test_identity(void **state)
{
    (void)state;
    npm_packument *p = parse_ok(ABBREV, "zod", NULL);
    char *id = xstrdup(p->identity);
    assert_true(strncmp(id, "sha256:", 7) == 0 && strlen(id) == 71);
    npm_packument_free(p);
    /* re-rendered: versions in another order, tarballs on a mirror, extra keys */
    const char *mirror =
        "{\"_rev\":\"3-abc\",\"name\":\"zod\",\"modified\":\"2024-06-10T00:00:00.000Z\","
        "\"versions\":{"
        "\"3.24.0\":{\"version\":\"3.24.0\",\"name\":\"zod\",\"dist\":{\"shasum\":"
        "\"0123456789abcdef0123456789abcdef01234567\",\"integrity\":\"sha512-AAAA\","
        "\"tarball\":\"http://127.0.0.1:4873/zod/-/zod-3.24.0.tgz\"}},"
        "\"3.22.4\":{\"name\":\"zod\",\"version\":\"3.22.4\"," DIST("zod", "3.22.4") "},"
        "\"4.0.0-beta.1\":{\"name\":\"zod\",\"version\":\"4.0.0-beta.1\"," DIST("zod", "4.0.0-beta.1") "},"
        "\"3.23.8\":{\"name\":\"zod\",\"version\":\"3.23.8\"," DIST("zod", "3.23.8") "}"
        "},\"dist-tags\":{\"next\":\"4.0.0-beta.1\",\"latest\":\"3.23.8\"},\"_uplinks\":{}}";
    p = parse_ok(mirror, "zod", NULL);
    assert_string_equal(p->identity, id);
    npm_packument_free(p);
    static const char *const changes[][2] = {
        { "\"latest\":\"3.23.8\"", "\"latest\":\"3.24.0\"" },
        { "\"version\":\"3.22.4\",", "\"version\":\"3.22.4\",\"deprecated\":\"old\"," },
        { "\"version\":\"3.23.8\",", "\"version\":\"3.23.8\",\"dependencies\":{\"a\":\"^1\"}," },
    };
    for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
        char *doc = replaced(ABBREV, changes[i][0], changes[i][1]);
        p = parse_ok(doc, "zod", NULL);
        if (strcmp(p->identity, id) == 0)
            fail_msg("change %zu (%s) kept the identity", i, changes[i][1]);
        npm_packument_free(p);
        free(doc);
    }
    free(id);
}

/* The identity's text is defined as json-c's (JSON_C_TO_STRING_PLAIN |
 * NOSLASHESCAPE) of nested arrays; the parser writes it without json-c.
 * Here the reference: the arrays built with json-c and printed by it, over
 * a document with every kind of byte json-c escapes or not. */
static json_object *jstr(const char *s) { return s ? json_object_new_string(s) : NULL; }

static json_object *jstrs(const char *const *v, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp((*(const npm_version *const *)a)->version, (*(const npm_version *const *)b)->version);
}

static char *identity_by_json_c(const npm_packument *p, bool with_time)
{
    json_object *doc = json_object_new_array(), *tags = json_object_new_array();
    for (size_t i = 0; i < p->ntags; i++) {
        json_object_array_add(tags, jstr(p->tags[i].tag));
        json_object_array_add(tags, jstr(p->tags[i].version));
    }
    json_object_array_add(doc, tags);
    const npm_version **vs = calloc(p->nversions + 1, sizeof *vs);
    for (size_t i = 0; i < p->nversions; i++)
        vs[i] = &p->versions[i];
    qsort(vs, p->nversions, sizeof *vs, key_cmp);
    for (size_t k = 0; k < p->nversions; k++) {
        const npm_version *v = vs[k];
        json_object *e = json_object_new_array(), *deps = json_object_new_array();
        json_object_array_add(e, jstr(v->version));
        for (size_t i = 0; i < v->ndeps; i++) {
            json_object *d = json_object_new_array();
            json_object_array_add(d, json_object_new_int((int)v->deps[i].kind));
            json_object_array_add(d, jstr(v->deps[i].name));
            json_object_array_add(d, jstr(v->deps[i].spec));
            json_object_array_add(deps, d);
        }
        json_object_array_add(e, deps);
        json_object_array_add(e, v->bundle_all ? json_object_new_boolean(true)
                                               : jstrs(v->bundled, v->nbundled));
        json_object_array_add(e, jstr(v->deprecated));
        json_object_array_add(e, jstrs(v->os, v->nos));
        json_object_array_add(e, jstrs(v->cpu, v->ncpu));
        json_object_array_add(e, jstrs(v->libc, v->nlibc));
        json_object *eng = json_object_new_array();
        for (size_t i = 0; i < v->nengines; i++) {
            json_object_array_add(eng, jstr(v->engines[i].name));
            json_object_array_add(eng, jstr(v->engines[i].range));
        }
        json_object_array_add(e, eng);
        json_object_array_add(e, jstr(v->integrity));
        const char *slash = v->tarball ? strrchr(v->tarball, '/') : NULL;
        json_object_array_add(e, jstr(slash ? slash + 1 : v->tarball));
        json_object_array_add(e, json_object_new_boolean((v->flags & NPM_FLAG_INSTALL_SCRIPT) != 0));
        json_object_array_add(e, with_time ? jstr(v->time) : NULL);
        json_object_array_add(doc, e);
    }
    free(vs);
    const char *text =
        json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    char hex[65];
    sha256_hex(text, strlen(text), hex);
    json_object_put(doc);
    return xasprintf("sha256:%s", hex);
}

static void test_identity_text(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"name\":\"q\",\"dist-tags\":{\"latest\":\"1.0.0\",\"a/b\\\"c\":\"2.0.0\"},"
        "\"time\":{\"1.0.0\":\"2020-01-01T00:00:00Z\",\"2.0.0\":\"2021-01-01T00:00:00Z\"},"
        "\"versions\":{"
        "\"1.0.0\":{\"dependencies\":{\"a\":\"^1 || 2/x\",\"b\\\\\":\"npm:c@~2\"},"
        "\"peerDependencies\":{\"p\":\"*\"},\"optionalDependencies\":{\"o\":\"1\"},"
        "\"bundleDependencies\":[\"a\"],"
        "\"deprecated\":\"ctl \\u0001\\u001f\\b\\f\\n\\r\\t q\\\" bs\\\\ sl/ del\\u007f \\u00e9 \\ud83d\\ude00\","
        "\"os\":[\"linux\",\"!win32\"],\"cpu\":[\"x64\"],\"libc\":[\"glibc\"],"
        "\"engines\":{\"node\":\">=14\",\"npm\":\"*\"},\"hasInstallScript\":true," DIST("q", "1.0.0") "},"
        "\"2.0.0\":{\"bundleDependencies\":true,\"deprecated\":\"\"," DIST("q", "2.0.0") "}"
        "}}";
    static const npm_target cutoff = { "linux", "x64", "glibc", NULL, "2030-01-01T00:00:00Z", false };
    for (int with_time = 0; with_time < 2; with_time++) {
        npm_packument *p = parse_ok(doc, "q", with_time ? &cutoff : NULL);
        char *want = identity_by_json_c(p, with_time);
        assert_string_equal(p->identity, want);
        free(want);
        npm_packument_free(p);
    }
}

static void test_abbreviated(void **state)
{
    (void)state;
    npm_packument *p = parse_ok(ABBREV, "zod", NULL);
    assert_false(p->full);
    assert_string_equal(p->name, "zod");
    assert_string_equal(p->registry, "https://registry.npmjs.org/");
    assert_string_equal(p->url, "https://registry.npmjs.org/zod");
    assert_string_equal(p->modified, "2024-06-10T00:00:00.000Z");
    assert_int_equal(p->ntags, 2);
    assert_string_equal(p->tags[0].tag, "latest");
    assert_string_equal(npm_packument_find_tag(p, "next"), "4.0.0-beta.1");
    assert_int_equal(p->nversions, 4);
    assert_int_equal(p->ncandidates, 4);
    assert_string_equal(p->versions[0].version, "4.0.0-beta.1");
    assert_string_equal(p->versions[1].version, "3.24.0");
    assert_string_equal(p->versions[2].version, "3.23.8");
    assert_string_equal(p->versions[3].version, "3.22.4");
    const npm_version *v = npm_packument_find(p, "3.23.8");
    assert_string_equal(v->integrity, "sha512-AAAA");
    assert_string_equal(v->tarball, "https://registry.npmjs.org/zod/-/zod-3.23.8.tgz");
    assert_null(v->tarball_served);
    assert_null(v->time);
    assert_int_equal(v->flags, 0);
    npm_packument_free(p);
}

static const char FULL[] =
    "{\"_id\":\"zod\",\"name\":\"zod\",\"dist-tags\":{\"latest\":\"3.23.8\"},"
    "\"time\":{\"created\":\"2023-10-04T09:00:00.000Z\",\"modified\":\"2024-06-10T00:00:00.000Z\","
    "\"3.22.4\":\"2023-10-04T09:00:00.000Z\",\"3.23.8\":\"2024-05-02T12:00:00.000Z\","
    "\"3.24.0\":\"2024-06-10T00:00:00.000Z\"},"
    "\"versions\":{"
    "\"3.22.4\":{\"version\":\"3.22.4\"," DIST("zod", "3.22.4") "},"
    "\"3.23.8\":{\"version\":\"3.23.8\"," DIST("zod", "3.23.8") "},"
    "\"3.24.0\":{\"version\":\"3.24.0\"," DIST("zod", "3.24.0") "},"
    "\"3.25.0\":{\"version\":\"3.25.0\"," DIST("zod", "3.25.0") "}"
    "}}";

static void test_full_cutoff(void **state)
{
    (void)state;
    npm_target t = { .cutoff = "2024-06-01T00:00:00Z" };
    npm_packument *p = parse_ok(FULL, "zod", &t);
    assert_true(p->full);
    assert_string_equal(p->modified, "2024-06-10T00:00:00.000Z");
    /* 3.25.0 has no `time` entry: kept, as npm's --before keeps it */
    assert_int_equal(p->ncandidates, 3);
    assert_string_equal(p->versions[0].version, "3.25.0");
    assert_null(p->versions[0].time);
    assert_int_equal(p->versions[0].excluded, NPM_EX_NONE);
    assert_string_equal(p->versions[1].version, "3.23.8");
    assert_string_equal(p->versions[1].time, "2024-05-02T12:00:00.000Z");
    assert_string_equal(p->versions[3].version, "3.24.0");
    assert_int_equal(p->versions[3].excluded, NPM_EX_AFTER_CUTOFF);
    assert_string_equal(npm_exclusion_id(p->versions[3].excluded), "after_cutoff");
    assert_non_null(strstr(p->versions[3].why, "2024-06-10T00:00:00.000Z"));
    npm_packument_free(p);

    /* no cutoff: everything is a candidate, times recorded */
    p = parse_ok(FULL, "zod", NULL);
    assert_int_equal(p->ncandidates, 4);
    npm_packument_free(p);

    /* a document without `time` (abbreviated) filters nothing, as in npm */
    p = parse_ok(ABBREV, "zod", &t);
    assert_int_equal(p->ncandidates, p->nversions);
    npm_packument_free(p);

    /* a `time` entry that is not a date drops its version */
    p = parse_ok("{\"name\":\"zod\",\"time\":{\"3.22.4\":\"last tuesday\"},"
                 "\"versions\":{\"3.22.4\":{\"version\":\"3.22.4\"," DIST("zod", "3.22.4") "}}}",
                 "zod", &t);
    assert_int_equal(p->ncandidates, 0);
    assert_int_equal(p->versions[0].excluded, NPM_EX_NO_PUBLISH_TIME);
    assert_string_equal(npm_exclusion_id(p->versions[0].excluded), "no_publish_time");
    assert_non_null(strstr(p->versions[0].why, "`last tuesday`"));
    npm_packument_free(p);

    /* a bad cutoff is refused */
    const char *reason;
    char *err;
    npm_target bad = { .cutoff = "yesterday" };
    assert_null(parse_t(FULL, "zod", &bad, &reason, &err));
    assert_string_equal(reason, "invalid_cutoff");
    free(err);
}

static void test_scoped(void **state)
{
    (void)state;
    const char doc[] =
        "{\"name\":\"@turf/helpers\",\"dist-tags\":{\"latest\":\"7.1.0\"},\"versions\":{"
        "\"7.1.0\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/@turf/helpers/-/helpers-7.1.0.tgz\","
        "\"integrity\":\"sha512-x\"}}}}";
    npm_packument *p = parse_ok(doc, "@turf/helpers", NULL);
    assert_string_equal(p->url, "https://registry.npmjs.org/@turf%2fhelpers");
    assert_int_equal(p->ncandidates, 1);
    npm_packument_free(p);
    char *u = npm_packument_url("http://127.0.0.1:8/npm///", "@a/b");
    assert_string_equal(u, "http://127.0.0.1:8/npm/@a%2fb");
    free(u);
    u = npm_packument_url(NULL, "lodash");
    assert_string_equal(u, "https://registry.npmjs.org/lodash");
    free(u);
    /* the document must name the package asked for */
    parse_bad(doc, "@turf/other", "invalid_packument", "names the package `@turf/helpers`");
}

static void test_every_field(void **state)
{
    (void)state;
    const char doc[] =
        "{\"name\":\"w\",\"versions\":{\"1.0.0\":{"
        "\"dependencies\":{\"a\":\"^1.0.0\",\"opt\":\"~2.3.2\",\"t\":\"latest\",\"al\":\"npm:real@^3\","
        "\"g\":\"github:u/r\",\"f\":\"file:../x\",\"e\":\"\",\"sh\":\"user/repo\"},"
        "\"optionalDependencies\":{\"opt\":\"~2.3.2\"},"
        "\"peerDependencies\":{\"react\":\">=17 <19\",\"react-dom\":\">=17 <19\"},"
        "\"peerDependenciesMeta\":{\"react-dom\":{\"optional\":true},\"react\":{\"optional\":false}},"
        "\"bundleDependencies\":[\"a\",3,\"b\"],"
        "\"deprecated\":\"use 2.x\",\"os\":[\"!win32\"],\"cpu\":\"x64\",\"engines\":{\"node\":\">=18\",\"npm\":7},"
        "\"hasInstallScript\":true,"
        "\"dist\":{\"tarball\":\"https://registry.npmjs.org/w/-/w-1.0.0.tgz\","
        "\"shasum\":\"da39a3ee5e6b4b0d3255bfef95601890afd80709\"}}}}";
    npm_packument *p = parse_ok(doc, "w", NULL);
    assert_int_equal(p->ncandidates, 1);
    const npm_version *v = &p->versions[0];
    /* prod (sorted by name), optional, peer, peer-optional */
    const char *names[] = { "a", "al", "e", "f", "g", "sh", "t", "opt", "react", "react-dom" };
    npm_dep_kind kinds[] = { NPM_DEP_PROD, NPM_DEP_PROD, NPM_DEP_PROD, NPM_DEP_PROD, NPM_DEP_PROD,
                             NPM_DEP_PROD, NPM_DEP_PROD, NPM_DEP_OPTIONAL, NPM_DEP_PEER,
                             NPM_DEP_PEER_OPTIONAL };
    assert_int_equal(v->ndeps, 10);
    for (size_t i = 0; i < 10; i++) {
        assert_string_equal(v->deps[i].name, names[i]);
        assert_int_equal(v->deps[i].kind, kinds[i]);
    }
    assert_int_equal(v->deps[0].spec_kind, NPM_SPEC_IS_RANGE);
    assert_non_null(npm_dep_range(&v->deps[0]));
    assert_string_equal(npm_range_format(npm_dep_range(&v->deps[0])), ">=1.0.0 <2.0.0-0");
    assert_int_equal(v->deps[1].spec_kind, NPM_SPEC_IS_ALIAS);
    assert_string_equal(v->deps[1].alias_name, "real");
    assert_non_null(npm_dep_range(&v->deps[1]));
    assert_int_equal(v->deps[2].spec_kind, NPM_SPEC_IS_RANGE); /* "" is "*" */
    assert_int_equal(v->deps[3].spec_kind, NPM_SPEC_IS_OTHER);
    assert_int_equal(v->deps[4].spec_kind, NPM_SPEC_IS_OTHER);
    assert_int_equal(v->deps[5].spec_kind, NPM_SPEC_IS_OTHER);
    assert_int_equal(v->deps[6].spec_kind, NPM_SPEC_IS_TAG);
    assert_int_equal(v->nbundled, 2);
    assert_string_equal(v->bundled[1], "b");
    assert_false(v->bundle_all);
    assert_string_equal(v->deprecated, "use 2.x");
    assert_int_equal(v->nos, 1);
    assert_string_equal(v->os[0], "!win32");
    assert_int_equal(v->ncpu, 1);
    assert_int_equal(v->nengines, 1); /* npm: 7 is not a string */
    assert_string_equal(v->engines[0].range, ">=18");
    assert_string_equal(v->integrity, "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
    assert_string_equal(v->shasum, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    unsigned want = NPM_FLAG_DEPRECATED | NPM_FLAG_ENGINES_UNCHECKED | NPM_FLAG_INSTALL_SCRIPT |
                    NPM_FLAG_INTEGRITY_SHA1;
    assert_int_equal(v->flags, want);
    npm_packument_free(p);

    /* with a known node version the engines are checked */
    npm_target t = { .node_version = "16.20.0" };
    p = parse_ok(doc, "w", &t);
    assert_true(p->versions[0].flags & NPM_FLAG_ENGINES_MISMATCH);
    assert_false(p->versions[0].flags & NPM_FLAG_ENGINES_UNCHECKED);
    npm_packument_free(p);
}

static void test_bundle_forms(void **state)
{
    (void)state;
    const char doc[] =
        "{\"versions\":{"
        "\"1.0.0\":{\"bundledDependencies\":true,\"dist\":{\"tarball\":\"https://registry.npmjs.org/b/-/b-1.0.0.tgz\"}},"
        "\"1.0.1\":{\"bundleDependencies\":false,\"dist\":{\"tarball\":\"https://registry.npmjs.org/b/-/b-1.0.1.tgz\"}},"
        "\"1.0.2\":{\"bundleDependencies\":\"x\",\"deprecated\":\"\",\"dist\":{\"tarball\":\"https://registry.npmjs.org/b/-/b-1.0.2.tgz\"}},"
        "\"1.0.3\":{\"bundledDependencies\":[\"q\"],\"deprecated\":true,\"dist\":{\"tarball\":\"https://registry.npmjs.org/b/-/b-1.0.3.tgz\"}}"
        "}}";
    npm_packument *p = parse_ok(doc, "b", NULL);
    assert_int_equal(p->ncandidates, 4);
    assert_true(npm_packument_find(p, "1.0.0")->bundle_all);
    assert_false(npm_packument_find(p, "1.0.1")->bundle_all);
    assert_int_equal(npm_packument_find(p, "1.0.2")->nbundled, 0);
    assert_null(npm_packument_find(p, "1.0.2")->deprecated);
    assert_int_equal(npm_packument_find(p, "1.0.3")->nbundled, 1);
    assert_string_equal(npm_packument_find(p, "1.0.3")->deprecated, "");
    assert_true(npm_packument_find(p, "1.0.0")->flags & NPM_FLAG_NO_INTEGRITY);
    npm_packument_free(p);
}

/* license: an SPDX string as written; npm's earlier forms, an object with
 * `type` and a `licenses` list (a choice among them), become one. */
static void test_license_forms(void **state)
{
    (void)state;
    const char doc[] =
        "{\"versions\":{"
        "\"1.0.0\":{\"license\":\"(MIT OR Apache-2.0)\"},"
        "\"1.0.1\":{\"license\":{\"type\":\"ISC\",\"url\":\"https://x.example\"}},"
        "\"1.0.2\":{\"licenses\":[{\"type\":\"MIT\"},{\"type\":\"GPL-2.0\"},{\"url\":\"u\"}]},"
        "\"1.0.3\":{\"licenses\":[{\"type\":\"BSD-2-Clause\"}]},"
        "\"1.0.4\":{\"license\":\"\",\"licenses\":[{\"type\":\"MIT\"}]},"
        "\"1.0.5\":{\"license\":7},"
        "\"1.0.6\":{}"
        "}}";
    npm_packument *p = parse_ok(doc, "l", NULL);
    assert_string_equal(npm_packument_find(p, "1.0.0")->license, "(MIT OR Apache-2.0)");
    assert_string_equal(npm_packument_find(p, "1.0.1")->license, "ISC");
    assert_string_equal(npm_packument_find(p, "1.0.2")->license, "(MIT OR GPL-2.0)");
    assert_string_equal(npm_packument_find(p, "1.0.3")->license, "BSD-2-Clause");
    assert_null(npm_packument_find(p, "1.0.4")->license); /* `license` wins, even empty */
    assert_null(npm_packument_find(p, "1.0.5")->license);
    assert_null(npm_packument_find(p, "1.0.6")->license);
    npm_packument_free(p);
}

static void test_platform(void **state)
{
    (void)state;
    const char doc[] =
        "{\"versions\":{"
        "\"1.0.0\":{\"os\":[\"darwin\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/p/-/p-1.0.0.tgz\"}},"
        "\"1.0.1\":{\"os\":[\"!linux\",\"!win32\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/p/-/p-1.0.1.tgz\"}},"
        "\"1.0.2\":{\"os\":[\"!win32\"],\"cpu\":[\"arm64\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/p/-/p-1.0.2.tgz\"}},"
        "\"1.0.3\":{\"os\":\"linux\",\"cpu\":[\"x64\",\"arm64\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/p/-/p-1.0.3.tgz\"}},"
        "\"1.0.4\":{\"os\":[\"any\"],\"cpu\":[\"!x64\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/p/-/p-1.0.4.tgz\"}},"
        "\"1.0.5\":{\"libc\":[\"musl\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/p/-/p-1.0.5.tgz\"}}"
        "}}";
    npm_packument *p = parse_ok(doc, "p", NULL);
    assert_int_equal(npm_packument_find(p, "1.0.0")->excluded, NPM_EX_OS_MISMATCH);
    assert_non_null(strstr(npm_packument_find(p, "1.0.0")->why, "[darwin]; the target is linux"));
    assert_int_equal(npm_packument_find(p, "1.0.1")->excluded, NPM_EX_OS_MISMATCH);
    assert_int_equal(npm_packument_find(p, "1.0.2")->excluded, NPM_EX_CPU_MISMATCH);
    assert_int_equal(npm_packument_find(p, "1.0.3")->excluded, NPM_EX_NONE);
    assert_int_equal(npm_packument_find(p, "1.0.4")->excluded, NPM_EX_CPU_MISMATCH);
    assert_int_equal(npm_packument_find(p, "1.0.5")->excluded, NPM_EX_LIBC_MISMATCH);
    assert_int_equal(p->ncandidates, 1);
    npm_packument_free(p);

    npm_target arm = { .cpu = "arm64", .libc = "musl" };
    p = parse_ok(doc, "p", &arm);
    assert_int_equal(npm_packument_find(p, "1.0.2")->excluded, NPM_EX_NONE);
    assert_int_equal(npm_packument_find(p, "1.0.4")->excluded, NPM_EX_NONE);
    assert_int_equal(npm_packument_find(p, "1.0.5")->excluded, NPM_EX_NONE);
    npm_packument_free(p);

    el_index_query q = { .package = "npm:x", .platform = "manylinux_2_36_aarch64" };
    npm_target t;
    npm_target_from_query(&q, &t);
    assert_string_equal(t.cpu, "arm64");
    assert_string_equal(t.libc, "glibc");
    q.platform = "musllinux_1_2_x86_64";
    npm_target_from_query(&q, &t);
    assert_string_equal(t.cpu, "x64");
    assert_string_equal(t.libc, "musl");
    q.platform = NULL;
    q.apt_arch = "arm64";
    npm_target_from_query(&q, &t);
    assert_string_equal(t.cpu, "arm64");
}

static void test_bad_versions(void **state)
{
    (void)state;
    const char doc[] =
        "{\"versions\":{"
        "\"not-a-version\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-x.tgz\"}},"
        "\"1.0.0\":{\"dist\":{}},"
        "\"1.0.1\":\"a string\","
        "\"1.0.2\":{\"dependencies\":[\"a\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.2.tgz\"}},"
        "\"1.0.3\":{\"peerDependencies\":{\"a\":1},\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.3.tgz\"}},"
        "\"1.0.4\":{\"dist\":{\"tarball\":7}},"
        "\"1.0.5\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.5.tgz\",\"integrity\":null}},"
        "\"1.0.6\":{\"dist\":\"nope\"},"
        "\"1.0.7\":{\"os\":{\"a\":1},\"cpu\":5,\"engines\":[\"node >=4\"],\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.7.tgz\"}}"
        "}}";
    npm_packument *p = parse_ok(doc, "v", NULL);
    assert_int_equal(npm_packument_find(p, "not-a-version")->excluded, NPM_EX_INVALID_VERSION);
    assert_int_equal(npm_packument_find(p, "1.0.0")->excluded, NPM_EX_MISSING_DIST);
    assert_int_equal(npm_packument_find(p, "1.0.1")->excluded, NPM_EX_INVALID_MANIFEST);
    assert_int_equal(npm_packument_find(p, "1.0.2")->excluded, NPM_EX_INVALID_MANIFEST);
    assert_non_null(strstr(npm_packument_find(p, "1.0.2")->why, "dependencies is an array"));
    assert_int_equal(npm_packument_find(p, "1.0.3")->excluded, NPM_EX_INVALID_MANIFEST);
    assert_int_equal(npm_packument_find(p, "1.0.4")->excluded, NPM_EX_MISSING_DIST);
    assert_int_equal(npm_packument_find(p, "1.0.5")->excluded, NPM_EX_NONE);
    assert_true(npm_packument_find(p, "1.0.5")->flags & NPM_FLAG_NO_INTEGRITY);
    assert_int_equal(npm_packument_find(p, "1.0.6")->excluded, NPM_EX_MISSING_DIST);
    assert_int_equal(npm_packument_find(p, "1.0.7")->excluded, NPM_EX_NONE);
    assert_int_equal(p->ncandidates, 2);
    /* invalid versions sort last */
    assert_string_equal(p->versions[p->nversions - 1].version, "not-a-version");
    npm_packument_free(p);
}

/* `pagination` writes `"dependencies": []` in every version (the abbreviated
 * document of registry.npmjs.org/pagination, 2026-12-04, two of its five
 * versions, trimmed to the fields the reader takes): npm installs it with no
 * dependency, so no version is excluded. Other maps npm reads as empty
 * (false, a number, "") are ignored too; a non-empty array still is not. */
static const char PAGINATION[] =
    "{\"name\":\"pagination\",\"dist-tags\":{\"latest\":\"0.4.6\"},\"versions\":{"
    "\"0.4.5\":{\"name\":\"pagination\",\"version\":\"0.4.5\",\"dependencies\":[],"
    "\"dist\":{\"tarball\":\"https://registry.npmjs.org/pagination/-/pagination-0.4.5.tgz\","
    "\"shasum\":\"6fa22c75863259f845b6ee07bdcb1d5ba7c14b7e\",\"integrity\":\"sha512-NoWDcvP5OuUXXtb"
    "A/AMgATRIz5+QwPyAHj12wiyJk/Lm4JqZJ8c84vAfP1Qpg3QVjjb/sg2Xsev6BOfNH70Jnw==\"}},"
    "\"0.4.6\":{\"name\":\"pagination\",\"version\":\"0.4.6\",\"dependencies\":[],"
    "\"dist\":{\"tarball\":\"https://registry.npmjs.org/pagination/-/pagination-0.4.6.tgz\","
    "\"shasum\":\"d25657bd58d1143545f55ac1af2d299f134b848e\",\"integrity\":\"sha512-TnZ3l17uuC5H9Wl"
    "c9FMYuEi65JlUCSn1ZAbnLnvUGkR7RgaFknUNGQTEumhjq1Jy1ePkXSiYUFFbHH70LGb9dA==\"}}}}";

static void test_empty_non_object_maps(void **state)
{
    (void)state;
    npm_packument *p = parse_ok(PAGINATION, "pagination", NULL);
    assert_int_equal(p->ncandidates, 2);
    for (size_t i = 0; i < p->nversions; i++) {
        assert_int_equal(p->versions[i].excluded, NPM_EX_NONE);
        assert_int_equal(p->versions[i].ndeps, 0);
    }
    npm_packument_free(p);
    const char other[] =
        "{\"versions\":{"
        "\"1.0.0\":{\"dependencies\":false,\"optionalDependencies\":3,\"peerDependencies\":\"\","
        DIST("v", "1.0.0") "},"
        "\"1.0.1\":{\"dependencies\":[],\"peerDependencies\":{\"a\":\"^1\"}," DIST("v", "1.0.1") "},"
        "\"1.0.2\":{\"dependencies\":\"a b\"," DIST("v", "1.0.2") "}"
        "}}";
    p = parse_ok(other, "v", NULL);
    assert_int_equal(npm_packument_find(p, "1.0.0")->excluded, NPM_EX_NONE);
    assert_int_equal(npm_packument_find(p, "1.0.0")->ndeps, 0);
    assert_int_equal(npm_packument_find(p, "1.0.1")->excluded, NPM_EX_NONE);
    assert_int_equal(npm_packument_find(p, "1.0.1")->ndeps, 1);
    assert_int_equal(npm_packument_find(p, "1.0.2")->excluded, NPM_EX_INVALID_MANIFEST);
    npm_packument_free(p);
}

static void test_malformed(void **state)
{
    (void)state;
    parse_bad("", "x", "invalid_packument", "not valid JSON");
    parse_bad("{\"versions\":{", "x", "invalid_packument", "truncated");
    parse_bad("{} trailing", "x", "invalid_packument", "not valid JSON");
    parse_bad("[1,2]", "x", "invalid_packument", "a JSON array");
    parse_bad("\"str\"", "x", "invalid_packument", "a JSON string");
    parse_bad("{\"a\":1,}", "x", "invalid_packument", "not valid JSON");
    parse_bad("{\"a\":nul}", "x", "invalid_packument", "not valid JSON");
    parse_bad("{\"versions\":[]}", "x", "invalid_packument", "`versions` of type array");
    parse_bad("{\"dist-tags\":\"latest\"}", "x", "invalid_packument", "`dist-tags` of type string");
    parse_bad("{\"name\":5}", "x", "invalid_packument", NULL);
    parse_bad("{\"error\":\"Not found\"}", "x", "invalid_packument", "Not found");
    parse_bad("{\"name\":\"\xff\xfe\"}", "x", "invalid_packument", "not valid JSON");
    /* an empty object is an empty package, not an error */
    npm_packument *p = parse_ok("{}", "x", NULL);
    assert_int_equal(p->nversions, 0);
    npm_packument_free(p);
    /* dist-tags with non-string values are skipped */
    p = parse_ok("{\"dist-tags\":{\"latest\":1,\"next\":\"2.0.0\"}}", "x", NULL);
    assert_int_equal(p->ntags, 1);
    npm_packument_free(p);
    /* deep nesting is refused by depth, not by the stack */
    strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 10000; i++)
        sb_addc(&sb, '[');
    parse_bad(sb.buf, "x", "invalid_packument", NULL);
    sb_release(&sb);
}

static void test_huge(void **state)
{
    (void)state;
    /* over the caller's cap: refused before parsing */
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\"versions\":{");
    for (int i = 0; i < 3000; i++)
        sb_addf(&sb, "%s\"1.0.%d\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/h/-/h-1.0.%d.tgz\"}}",
                i ? "," : "", i, i);
    sb_adds(&sb, "}}");
    npm_parse_options o = { .name = "h", .max_bytes = 1000 };
    npm_packument *p = NULL;
    const char *reason = NULL;
    char *err = NULL;
    assert_int_equal(npm_packument_parse(sb.buf, sb.len, &o, &p, &reason, &err), -1);
    assert_string_equal(reason, "too_large");
    assert_non_null(strstr(err, "over the 1000-byte cap"));
    free(err);
    /* under the default cap it parses, newest first */
    o.max_bytes = 0;
    assert_int_equal(npm_packument_parse(sb.buf, sb.len, &o, &p, &reason, &err), 0);
    assert_int_equal(p->ncandidates, 3000);
    assert_string_equal(p->versions[0].version, "1.0.2999");
    assert_string_equal(p->versions[2999].version, "1.0.0");
    npm_packument_free(p);
    sb_release(&sb);
}

/* A mirror table of one pair: http://127.0.0.1:4873/npm -> the registry. */
static char *fake_canonical(void *user, const char *url)
{
    (void)user;
    const char *m = "http://127.0.0.1:4873/npm/";
    if (strncmp(url, m, strlen(m)) == 0)
        return xasprintf("https://registry.npmjs.org/%s", url + strlen(m));
    return xstrdup(url);
}

static void test_tarball_rebase(void **state)
{
    (void)state;
    const char doc[] =
        "{\"versions\":{"
        "\"1.0.0\":{\"dist\":{\"tarball\":\"http://127.0.0.1:4873/npm/@s/n/-/n-1.0.0.tgz\"}},"
        "\"1.0.1\":{\"dist\":{\"tarball\":\"https://cdn.example/download/@s/n/1.0.1/abc\"}},"
        "\"1.0.2\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/@s/n/-/n-1.0.2.tgz\"}}"
        "}}";
    /* no mirror known: every URL is what the registry names (no guessing) */
    npm_packument *p = parse_ok(doc, "@s/n", NULL);
    const npm_version *v = npm_packument_find(p, "1.0.0");
    assert_string_equal(v->tarball, "http://127.0.0.1:4873/npm/@s/n/-/n-1.0.0.tgz");
    assert_null(v->tarball_served);
    assert_false(v->flags & NPM_FLAG_TARBALL_REBASED);
    v = npm_packument_find(p, "1.0.1");
    assert_string_equal(v->tarball, "https://cdn.example/download/@s/n/1.0.1/abc");
    assert_null(v->tarball_served);
    v = npm_packument_find(p, "1.0.2");
    assert_null(v->tarball_served);
    npm_packument_free(p);

    /* an explicit served base maps exactly */
    npm_parse_options o = { .name = "@s/n", .registry = "https://reg.corp/npm",
                            .served_base = "http://127.0.0.1:4873/npm/" };
    const char *reason;
    char *err;
    assert_int_equal(npm_packument_parse(doc, strlen(doc), &o, &p, &reason, &err), 0);
    v = npm_packument_find(p, "1.0.0");
    assert_string_equal(v->tarball, "https://reg.corp/npm/@s/n/-/n-1.0.0.tgz");
    v = npm_packument_find(p, "1.0.2");
    assert_string_equal(v->tarball, "https://registry.npmjs.org/@s/n/-/n-1.0.2.tgz");
    npm_packument_free(p);

    /* the mirror table maps back (here: the CDN is mirrored too) */
    o = (npm_parse_options){ .name = "@s/n", .canonical_url = fake_canonical };
    assert_int_equal(npm_packument_parse(doc, strlen(doc), &o, &p, &reason, &err), 0);
    v = npm_packument_find(p, "1.0.1");
    assert_string_equal(v->tarball, "https://cdn.example/download/@s/n/1.0.1/abc");
    assert_null(v->tarball_served);
    v = npm_packument_find(p, "1.0.0");
    assert_string_equal(v->tarball, "https://registry.npmjs.org/@s/n/-/n-1.0.0.tgz");
    assert_string_equal(v->tarball_served, "http://127.0.0.1:4873/npm/@s/n/-/n-1.0.0.tgz");
    assert_true(v->flags & NPM_FLAG_TARBALL_REBASED);
    npm_packument_free(p);

    /* fallback: a mirror writing tarballs on its own origin outside its base */
    o = (npm_parse_options){ .name = "@s/n", .served_base = "http://127.0.0.1:4873/registry/" };
    assert_int_equal(npm_packument_parse(doc, strlen(doc), &o, &p, &reason, &err), 0);
    v = npm_packument_find(p, "1.0.0");
    assert_string_equal(v->tarball, "https://registry.npmjs.org/@s/n/-/n-1.0.0.tgz");
    assert_true(v->flags & NPM_FLAG_TARBALL_REBASED);
    v = npm_packument_find(p, "1.0.1");
    assert_null(v->tarball_served);
    npm_packument_free(p);
}

/* A packument read over http(s) names no local file and no tarball whose
 * file name (what a lock records) is outside npm's: such versions are
 * excluded as bad_tarball with no tarball; a registry read from file://
 * (configured as local, or mirrored there) may name local tarballs. */
static void test_bad_tarball(void **state)
{
    (void)state;
    const char *doc =
        "{\"name\":\"v\",\"versions\":{"
        "\"1.0.0\":{\"dist\":{\"tarball\":\"file:///etc/shadow\"}},"
        "\"1.0.1\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.1;touch${IFS}x.tgz\"}},"
        "\"1.0.2\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.2.tgz?x=1\"}},"
        "\"1.0.3\":{\"dist\":{\"tarball\":\"ftp://h/v-1.0.3.tgz\"}},"
        "\"1.0.4\":{\"dist\":{\"tarball\":\"https://cdn.example/download/v/1.0.4/abc\"}},"
        "\"1.0.5\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/\"}},"
        "\"1.0.6\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/v-1.0.6.tgz\"}},"
        "\"1.0.7\":{\"dist\":{\"tarball\":\"https://registry.npmjs.org/v/-/$(id).tgz\"}}"
        "}}";
    npm_packument *p = parse_ok(doc, "v", NULL);
    static const char *const bad[] = { "1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.5", "1.0.7" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const npm_version *v = npm_packument_find(p, bad[i]);
        assert_int_equal(v->excluded, NPM_EX_BAD_TARBALL);
        assert_null(v->tarball);
        assert_non_null(v->why);
    }
    assert_string_equal(npm_exclusion_id(NPM_EX_BAD_TARBALL), "bad_tarball");
    assert_non_null(strstr(npm_packument_find(p, "1.0.0")->why, "file:///etc/shadow"));
    assert_int_equal(npm_packument_find(p, "1.0.4")->excluded, NPM_EX_NONE);
    assert_int_equal(npm_packument_find(p, "1.0.6")->excluded, NPM_EX_NONE);
    npm_packument_free(p);
    /* read over http from a mirror: the same */
    npm_parse_options o = { .name = "v", .served_base = "http://127.0.0.1:4873/npm/" };
    const char *reason;
    char *err = NULL;
    assert_int_equal(npm_packument_parse(doc, strlen(doc), &o, &p, &reason, &err), 0);
    assert_int_equal(npm_packument_find(p, "1.0.0")->excluded, NPM_EX_BAD_TARBALL);
    npm_packument_free(p);
    /* a registry read from file://: its local tarballs are fine */
    o = (npm_parse_options){ .name = "v", .registry = "file:///srv/npm/" };
    assert_int_equal(npm_packument_parse(doc, strlen(doc), &o, &p, &reason, &err), 0);
    assert_int_equal(npm_packument_find(p, "1.0.0")->excluded, NPM_EX_NONE);
    assert_string_equal(npm_packument_find(p, "1.0.0")->tarball, "file:///etc/shadow");
    assert_int_equal(npm_packument_find(p, "1.0.1")->excluded, NPM_EX_BAD_TARBALL);
    npm_packument_free(p);
    o = (npm_parse_options){ .name = "v", .served_base = "file:///srv/npm/" };
    assert_int_equal(npm_packument_parse(doc, strlen(doc), &o, &p, &reason, &err), 0);
    assert_int_equal(npm_packument_find(p, "1.0.0")->excluded, NPM_EX_NONE);
    npm_packument_free(p);
}

static void test_time(void **state)
{
    (void)state;
    int64_t ms;
    assert_true(npm_time_parse("1970-01-01T00:00:00Z", &ms));
    assert_int_equal(ms, 0);
    assert_true(npm_time_parse("2024-05-02T12:00:00.123Z", &ms));
    assert_int_equal(ms, 1714651200123LL);
    assert_true(npm_time_parse("2024-05-02T14:00:00+02:00", &ms));
    assert_int_equal(ms, 1714651200000LL);
    assert_true(npm_time_parse("2024-05-02", &ms));
    assert_int_equal(ms, 1714608000000LL);
    assert_false(npm_time_parse("2024-05-02T12:00:00", &ms));
    assert_false(npm_time_parse("2024-13-02T12:00:00Z", &ms));
    assert_false(npm_time_parse("2024-05-02T12:00:00Zjunk", &ms));
    assert_false(npm_time_parse("", &ms));
    assert_false(npm_time_parse(NULL, &ms));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abbreviated),  cmocka_unit_test(test_identity),  cmocka_unit_test(test_identity_text),  cmocka_unit_test(test_full_cutoff),
        cmocka_unit_test(test_scoped),       cmocka_unit_test(test_every_field),
        cmocka_unit_test(test_bundle_forms), cmocka_unit_test(test_platform),
        cmocka_unit_test(test_bad_versions), cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_huge),         cmocka_unit_test(test_tarball_rebase),
        cmocka_unit_test(test_time),         cmocka_unit_test(test_empty_non_object_maps),
        cmocka_unit_test(test_bad_tarball),  cmocka_unit_test(test_license_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

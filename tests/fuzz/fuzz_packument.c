/* fuzz_packument.c — libFuzzer target for the npm packument parser. The
 * input is a document; it is parsed for three targets (default; arm64 +
 * musl + a known node + a cutoff; a mirror base) and every record is
 * checked for the parser's promises: candidates first and in semver order,
 * excluded versions carry a reason id and a sentence, candidates have a
 * tarball, flags stay in range, dist-tags sorted. A failure must come with
 * one of the two reasons and a message. The pruned tree the parser builds
 * must give what json-c's whole tree gives (npm_packument_parse_full_tree()):
 * the same parsed form bytes, or a failure for the same reason; only where
 * json-c's strict mode accepts what RFC 8259 (and yajl) refuses may the
 * pruned parse fail alone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "npm_index.h"

static const char SHA0[] = "0000000000000000000000000000000000000000000000000000000000000000";

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* yajl alone (no tree) accepts the document up to its first NUL. */
static bool yajl_accepts(const char *data, size_t size)
{
    size_t n = strnlen(data, size);
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    bool ok = yajl_parse(h, (const unsigned char *)data, n) == yajl_status_ok &&
              yajl_complete_parse(h) == yajl_status_ok;
    yajl_free(h);
    return ok;
}

static void differential(const char *data, size_t size, const npm_parse_options *o)
{
    npm_packument *p = NULL, *q = NULL;
    const char *rp = NULL, *rq = NULL;
    char *ep = NULL, *eq = NULL;
    int a = npm_packument_parse(data, size, o, &p, &rp, &ep);
    int b = npm_packument_parse_full_tree(data, size, o, &q, &rq, &eq);
    if (a != 0 && b == 0) {
        CHECK(!yajl_accepts(data, size)); /* json-c's laxity, nothing else */
    } else {
        CHECK(a == b);
        if (a != 0) {
            CHECK(strcmp(rp, rq) == 0);
        } else {
            strbuf x = STRBUF_INIT, y = STRBUF_INIT;
            npm_packument_blob_write(p, SHA0, o, &x);
            npm_packument_blob_write(q, SHA0, o, &y);
            CHECK(x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0);
            sb_release(&x);
            sb_release(&y);
        }
    }
    npm_packument_free(p);
    npm_packument_free(q);
    free(ep);
    free(eq);
}

static void check(const char *data, size_t size, const npm_target *t, const char *served)
{
    npm_parse_options o = { .name = NULL, .target = t, .served_base = served,
                            .max_bytes = 1u << 20 };
    differential(data, size, &o);
    npm_packument *p = NULL;
    const char *reason = NULL;
    char *err = NULL;
    if (npm_packument_parse(data, size, &o, &p, &reason, &err) != 0) {
        CHECK(p == NULL && err != NULL && reason != NULL);
        CHECK(strcmp(reason, "invalid_packument") == 0 || strcmp(reason, "too_large") == 0);
        free(err);
        return;
    }
    CHECK(p && !err && p->ncandidates <= p->nversions);
    for (size_t i = 0; i < p->nversions; i++) {
        const npm_version *v = &p->versions[i];
        CHECK((v->excluded == NPM_EX_NONE) == (i < p->ncandidates));
        CHECK(v->flags < (1u << NPM_FLAG_COUNT));
        if (i < p->ncandidates) {
            CHECK(v->tarball && v->semver.version && !v->why);
            /* read over https (or a http mirror): no local tarball */
            CHECK(strncmp(v->tarball, "file:", 5) != 0 &&
                  (!v->tarball_served || strncmp(v->tarball_served, "file:", 5) != 0));
            if (i > 0)
                CHECK(npm_semver_compare_build(&p->versions[i - 1].semver, &v->semver) >= 0);
        } else {
            CHECK(v->why && npm_exclusion_id(v->excluded)[0]);
        }
        for (size_t d = 0; d < v->ndeps; d++) {
            CHECK(v->deps[d].name && v->deps[d].spec);
            CHECK((v->deps[d].spec_kind == NPM_SPEC_IS_RANGE) <= (npm_dep_range(&v->deps[d]) != NULL));
            if (d > 0)
                CHECK(v->deps[d - 1].kind <= v->deps[d].kind);
        }
    }
    for (size_t i = 1; i < p->ntags; i++)
        CHECK(strcmp(p->tags[i - 1].tag, p->tags[i].tag) <= 0);
    npm_packument_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the cache hands over NUL-terminated bodies */
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    check(buf, size, NULL, NULL);
    npm_target t = { "linux", "arm64", "musl", "20.11.1", "2024-06-05T00:00:00Z", false };
    check(buf, size, &t, NULL);
    check(buf, size, NULL, "http://127.0.0.1:4873/npm/");
    free(buf);
    return 0;
}

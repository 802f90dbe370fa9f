/* unit_pypi_page_blob.c — the parsed form of a project page
 * (pypi_page_blob.c): what it reads back is the page a parse makes, field
 * by field, for PEP 691 JSON and PEP 503 HTML pages read from the page's
 * own URL or from a mirror; and a blob that is truncated, has a flipped
 * byte, trailing bytes, another format number, or was made for another
 * body or other sources (page URL, read URL, declared format) is refused,
 * so the caller parses again.
 *
 * Without arguments: the cmocka units. With FILE... : every file (a page;
 * JSON or HTML by its first byte) goes through the same comparison under
 * each source set (pypi_index_blob_demo runs it over the demo mirror's
 * pages); exit 1 on the first difference. With --seed DIR FILE... : the
 * fuzzer's seeds (tests/fuzz/fuzz_pypi_page_blob.c) for each file, a
 * payload ("p-NAME") and a whole blob ("b-NAME"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blob_seed.h"
#include "pypi_index.h"

/* ---- field-by-field comparison ---- */

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *file_diff(const pypi_file *a, const pypi_file *b)
{
    if (!str_eq(a->filename, b->filename))
        return "filename";
    if (!str_eq(a->url, b->url) || !str_eq(a->read_url, b->read_url))
        return "url/read_url";
    if (!str_eq(a->sha256, b->sha256))
        return "sha256";
    if (a->size != b->size)
        return "size";
    if (!str_eq(a->upload_time, b->upload_time) || a->upload_s != b->upload_s)
        return "upload time";
    if (!str_eq(a->requires_python, b->requires_python))
        return "requires_python";
    if (a->yanked != b->yanked || !str_eq(a->yanked_reason, b->yanked_reason))
        return "yanked";
    if (a->core_metadata != b->core_metadata ||
        !str_eq(a->core_metadata_sha256, b->core_metadata_sha256))
        return "core_metadata";
    if (!str_eq(a->bad_url, b->bad_url))
        return "bad_url";
    return NULL;
}

/* The first field in which a and b differ ("files[3] (x.whl): size"), or
 * NULL. malloc'd. */
static char *page_diff(const pypi_page *a, const pypi_page *b)
{
    if (a->format != b->format || !str_eq(a->api_version, b->api_version))
        return xstrdup("format/api_version");
    if (a->nfiles != b->nfiles)
        return xasprintf("nfiles %zu != %zu", a->nfiles, b->nfiles);
    for (size_t i = 0; i < a->nfiles; i++) {
        const char *d = file_diff(&a->files[i], &b->files[i]);
        if (d)
            return xasprintf("files[%zu] (%s): %s", i, a->files[i].filename, d);
    }
    return NULL;
}

/* ---- helpers ---- */

static const char SHA_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define U64 "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"

/* Parses `doc` from `s`, writes its blob, reads it back: 0 when the page
 * read back is the parsed one, else prints the difference. *blob gets the
 * bytes when asked for; *nfiles the parse's count. */
static int round_trip(const char *doc, size_t len, const pypi_page_src *s, const char *what,
                      strbuf *blob, size_t *nfiles)
{
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page p, q;
    int rc = 0;
    strbuf sb = STRBUF_INIT;
    if (pypi_page_parse_read(ctx, a, doc, len, s->page_url, s->read_url, s->content_type, &p) !=
        EL_OK)
        goto done; /* nothing to store: the loader writes no blob then */
    if (nfiles)
        *nfiles = p.nfiles;
    pypi_page_blob_write(&p, SHA_A, s, &sb);
    arena *b = arena_new(); /* another arena: nothing may point into the parse's */
    if (pypi_page_blob_read((const unsigned char *)sb.buf, sb.len, SHA_A, s, b, &q) != 0) {
        fprintf(stderr, "%s: its own blob was refused\n", what);
        rc = 1;
    } else {
        char *d = page_diff(&p, &q);
        if (d)
            fprintf(stderr, "%s: the blob's page differs in %s\n", what, d);
        rc = d ? 1 : 0;
        free(d);
    }
    arena_free(b);
done:
    el_ctx_free(ctx);
    arena_free(a);
    if (blob)
        *blob = sb;
    else
        sb_release(&sb);
    return rc;
}

/* PEP 691 JSON with every field the page model takes, in its odd forms:
 * yanked as true, false, a reason and ""; hashes upper case, missing, md5
 * alone, a fragment; PEP 714 and PEP 658 metadata keys, true, false and
 * hashed; sizes and upload times valid, negative and unparsable; a link
 * that cannot be fetched; an absolute link on the mirror's host; a local
 * file's link on a page read over http(s). */
static const char JSON_DOC[] =
    "{\"meta\":{\"api-version\":\"1.1\"},\"name\":\"x\",\"files\":["
    "{\"filename\":\"x-1.0-py3-none-any.whl\",\"url\":\"../../files/x-1.0-py3-none-any.whl\","
    "\"hashes\":{\"sha256\":\"" U64 "\"},\"size\":120,\"upload-time\":\"2024-01-02T03:04:05Z\","
    "\"requires-python\":\">=3.8\",\"yanked\":\"bad build\",\"core-metadata\":{\"sha256\":\"" H64
    "\"}},"
    "{\"filename\":\"x-1.0.tar.gz\",\"url\":\"https://files.example/x-1.0.tar.gz#sha256=" H64 "\","
    "\"hashes\":{},\"size\":-4,\"upload-time\":\"yesterday\",\"requires-python\":\"\","
    "\"yanked\":true,\"dist-info-metadata\":true},"
    "{\"filename\":\"x-0.9-py3-none-any.whl\",\"url\":\"http://127.0.0.1:9/pypi/files/x-0.9.whl\","
    "\"hashes\":{\"md5\":\"00\"},\"yanked\":\"\",\"core-metadata\":false},"
    "{\"filename\":\"x-0.8.zip\",\"url\":\"a-1.0+02:00\",\"hashes\":{\"sha256\":\"" H64 "\"},"
    "\"yanked\":false,\"core-metadata\":{}},"
    "{\"filename\":\"x-0.7.zip\",\"url\":\"/packages/x-0.7.zip\"},"
    "{\"filename\":\"x-0.6.zip\",\"url\":\"file:///etc/x-0.6.zip\"},"
    "{\"filename\":\"\",\"url\":\"skipped\"},{\"url\":\"skipped\"},7"
    "]}";

/* PEP 503 HTML: <base href>, the repository version, fragments, every data-
 * attribute form, a link with no path (its name from the text), a bad link
 * with control bytes. */
static const char HTML_DOC[] =
    "<!DOCTYPE html><html><head><meta name=\"pypi:repository-version\" content=\"1.0\">"
    "<base href=\"../../files/\"></head><body>"
    "<a href=\"x-1.0-py3-none-any.whl#sha256=" H64 "\" data-requires-python=\"&gt;=3.8\" "
    "data-core-metadata=\"sha256=" H64 "\">x-1.0-py3-none-any.whl</a>"
    "<a href=\"x-1.0.tar.gz#md5=00\" data-yanked=\"\" data-dist-info-metadata=\"true\">s</a>"
    "<a href=\"x%2D0.9.zip#sha256=" U64 "\" data-yanked=\"gone\" data-core-metadata=\"md5=00\">"
    "z</a>"
    "<a href=\"https://other.example/\">  named by text  </a>"
    "<a href=\"b\x01" "ad:x\" data-requires-python=\"\">bad</a>"
    "<a>no href</a></body></html>";

/* The source sets every document is tried under. */
static size_t source_sets(pypi_page_src *s)
{
    size_t n = 0;
    s[n++] = (pypi_page_src){ "https://pypi.org/simple/x/", NULL, NULL };
    s[n++] = (pypi_page_src){ "https://pypi.org/simple/x/", "http://127.0.0.1:9/pypi/simple/x/",
                              "application/vnd.pypi.simple.v1+json" };
    s[n++] = (pypi_page_src){ "https://pypi.org/simple/x/", "http://127.0.0.1:9/pypi/simple/x/",
                              "text/html" };
    s[n++] = (pypi_page_src){ "https://mirror.example/root/simple/x/", NULL,
                              "application/octet-stream" };
    return n;
}

/* ---- units ---- */

static void test_round_trip(void **state)
{
    (void)state;
    pypi_page_src ss[8];
    size_t n = source_sets(ss);
    for (size_t i = 0; i < n; i++) {
        char what[64];
        size_t nf = 0;
        snprintf(what, sizeof what, "JSON sources %zu", i);
        assert_int_equal(round_trip(JSON_DOC, strlen(JSON_DOC), &ss[i], what, NULL, &nf), 0);
        snprintf(what, sizeof what, "HTML sources %zu", i);
        assert_int_equal(round_trip(HTML_DOC, strlen(HTML_DOC), &ss[i], what, NULL, &nf), 0);
    }
    /* the fixtures do reach every field: JSON under the mirror */
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page p;
    assert_int_equal(pypi_page_parse_read(ctx, a, JSON_DOC, strlen(JSON_DOC), ss[1].page_url,
                                          ss[1].read_url, ss[1].content_type, &p),
                     EL_OK);
    assert_int_equal(p.nfiles, 6);
    assert_string_equal(p.files[0].yanked_reason, "bad build");
    assert_string_equal(p.files[0].sha256, H64);
    assert_non_null(p.files[0].core_metadata_sha256);
    assert_string_equal(p.files[0].read_url,
                        "http://127.0.0.1:9/pypi/files/x-1.0-py3-none-any.whl");
    assert_int_equal(p.files[1].size, -1);
    assert_int_equal(p.files[1].upload_s, INT64_MIN);
    assert_non_null(p.files[1].upload_time);
    assert_true(p.files[1].yanked && p.files[1].core_metadata);
    assert_null(p.files[2].sha256);
    assert_string_equal(p.files[3].bad_url, "unsupported_url");
    assert_non_null(p.files[4].read_url); /* leaves the mirrored prefix */
    assert_string_equal(p.files[5].bad_url, "local_link");
    el_ctx_free(ctx);
    arena_free(a);
    /* pages with no files, no api version, nothing at all */
    const char *docs[] = { "{\"files\":[]}", "", "<html></html>", "\xef\xbb\xbf  {\"files\":[{}]}" };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        assert_int_equal(round_trip(docs[i], strlen(docs[i]), &ss[0], docs[i], NULL, NULL), 0);
}

/* Every damaged blob is refused; the caller's reparse is the page. */
static void refused(const strbuf *blob, const char *sha, const pypi_page_src *s)
{
    arena *a = arena_new();
    pypi_page q;
    memset(&q, 0xa5, sizeof q);
    assert_int_equal(pypi_page_blob_read((const unsigned char *)blob->buf, blob->len, sha, s, a, &q),
                     -1);
    assert_null(q.files);
    assert_int_equal(q.nfiles, 0);
    arena_free(a);
}

static void damage(const char *doc, const pypi_page_src *s)
{
    strbuf blob;
    size_t nf = 0;
    assert_int_equal(round_trip(doc, strlen(doc), s, "damage", &blob, &nf), 0);
    assert_true(nf > 0);
    strbuf b = STRBUF_INIT;
    for (size_t len = 0; len < blob.len; len++) { /* truncated at every length */
        sb_reset(&b);
        sb_add(&b, blob.buf, len);
        refused(&b, SHA_A, s);
    }
    for (size_t i = 0; i < blob.len; i++) { /* one flipped byte anywhere */
        sb_reset(&b);
        sb_add(&b, blob.buf, blob.len);
        b.buf[i] ^= 0x20;
        refused(&b, SHA_A, s);
    }
    sb_reset(&b); /* trailing data */
    sb_add(&b, blob.buf, blob.len);
    sb_addc(&b, 0);
    refused(&b, SHA_A, s);
    sb_reset(&b); /* another format number (bytes 8..11, little-endian) */
    sb_add(&b, blob.buf, blob.len);
    b.buf[8] = (char)(PYPI_BLOB_FORMAT + 1);
    refused(&b, SHA_A, s);
    refused(&blob, SHA_B, s); /* made for another body */
    refused(&blob, "short", s);
    sb_release(&b);
    sb_release(&blob);
}

static void test_damage(void **state)
{
    (void)state;
    pypi_page_src ss[8];
    source_sets(ss);
    damage(JSON_DOC, &ss[1]);
    damage(HTML_DOC, &ss[2]);
}

/* A blob made from other sources is refused: another page URL (a
 * redirect), another read URL (another mirror, or none), another declared
 * format. The Content-Type's spelling alone is no other source. */
static void test_sources(void **state)
{
    (void)state;
    pypi_page_src ss[8];
    size_t n = source_sets(ss);
    strbuf blob;
    assert_int_equal(round_trip(JSON_DOC, strlen(JSON_DOC), &ss[1], "JSON", &blob, NULL), 0);
    pypi_page_src other[] = {
        { "https://pypi.org/simple/y/", ss[1].read_url, ss[1].content_type },
        { ss[1].page_url, NULL, ss[1].content_type },
        { ss[1].page_url, "http://127.0.0.1:10/pypi/simple/x/", ss[1].content_type },
        { ss[1].page_url, ss[1].read_url, NULL },
        { ss[1].page_url, ss[1].read_url, "text/html" },
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        refused(&blob, SHA_A, &other[i]);
    for (size_t i = 0; i < n; i++)
        if (i != 1)
            refused(&blob, SHA_A, &ss[i]);
    pypi_page_src spelled = { ss[1].page_url, ss[1].read_url, "Application/JSON; charset=utf-8" };
    arena *a = arena_new();
    pypi_page q;
    assert_int_equal(
        pypi_page_blob_read((const unsigned char *)blob.buf, blob.len, SHA_A, &spelled, a, &q), 0);
    arena_free(a);
    sb_release(&blob);

    /* blob names: by body and by every source; spelling aside */
    char *names[8] = { NULL };
    for (size_t i = 0; i < n; i++)
        names[i] = pypi_page_blob_name(SHA_A, &ss[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(names[i], names[j]);
    char *b = pypi_page_blob_name(SHA_B, &ss[1]);
    char *sp = pypi_page_blob_name(SHA_A, &spelled);
    assert_string_not_equal(b, names[1]);
    assert_string_equal(sp, names[1]);
    assert_non_null(strstr(names[0], SHA_A));
    free(b);
    free(sp);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

/* A payload a parse never gives, under a correct header: refused. */
static void test_impossible(void **state)
{
    (void)state;
    pypi_page_src ss[8];
    source_sets(ss);
    pypi_file f = { .filename = "x.whl", .url = "https://pypi.org/x.whl", .sha256 = H64,
                    .size = -1, .upload_s = INT64_MIN };
    pypi_file bad[] = { f, f, f, f, f, f, f };
    bad[0].sha256 = U64;                          /* hashes are lower case */
    bad[1].yanked_reason = "why";                 /* a reason, not yanked */
    bad[2].core_metadata_sha256 = H64;            /* a hash, no metadata */
    bad[3].bad_url = "unsupported_url";
    bad[3].read_url = "http://m/x.whl";           /* a bad link is never read */
    bad[4].filename = "";                         /* a parse skips such files */
    bad[5].size = -2;
    bad[6].upload_s = 5;                          /* a time without its text */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pypi_page pg = { PYPI_PAGE_JSON, NULL, &bad[i], 1 };
        strbuf sb = STRBUF_INIT;
        pypi_page_blob_write(&pg, SHA_A, &ss[0], &sb);
        refused(&sb, SHA_A, &ss[0]);
        sb_release(&sb);
    }
    pypi_page good = { PYPI_PAGE_HTML, "1.0", &f, 1 };
    strbuf sb = STRBUF_INIT;
    pypi_page_blob_write(&good, SHA_A, &ss[0], &sb);
    arena *a = arena_new();
    pypi_page q;
    assert_int_equal(pypi_page_blob_read((const unsigned char *)sb.buf, sb.len, SHA_A, &ss[0], a, &q),
                     0);
    assert_null(page_diff(&good, &q));
    arena_free(a);
    sb_release(&sb);
}

/* ---- files ---- */

static int check_files(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        size_t len = 0;
        char *doc = read_file(argv[i], PYPI_PAGE_MAX, &len);
        if (!doc) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 2;
        }
        pypi_page_src ss[8];
        size_t n = source_sets(ss);
        for (size_t k = 0; k < n; k++) {
            char what[4200];
            snprintf(what, sizeof what, "%s (sources %zu)", argv[i], k);
            bad |= round_trip(doc, len, &ss[k], what, NULL, NULL);
        }
        free(doc);
    }
    printf("%d files compared\n", argc - 1);
    return bad;
}

/* The sources and body hash fuzz_pypi_page_blob.c reads with. */
static const char FUZZ_SHA[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const pypi_page_src FUZZ_SRC = { "https://pypi.org/simple/x/",
                                        "http://127.0.0.1:9/pypi/simple/x/", NULL };

/* Seeds are named after the file and its directory (index.json of
 * simple/idna/ is "idna-index.json"). */
static int write_seeds(int argc, char **argv)
{
    const size_t header = BLOB_FRAME_HEADER;
    for (int i = 3; i < argc; i++) {
        size_t len = 0;
        char *doc = read_file(argv[i], PYPI_PAGE_MAX, &len);
        arena *a = arena_new();
        el_ctx *ctx = el_ctx_new();
        pypi_page p;
        if (!doc || pypi_page_parse_read(ctx, a, doc, len, FUZZ_SRC.page_url, FUZZ_SRC.read_url,
                                         NULL, &p) != EL_OK) {
            fprintf(stderr, "%s: cannot read or parse\n", argv[i]);
            free(doc);
            el_ctx_free(ctx);
            arena_free(a);
            return 2;
        }
        strbuf sb = STRBUF_INIT;
        pypi_page_blob_write(&p, FUZZ_SHA, &FUZZ_SRC, &sb);
        char *name = xstrdup(argv[i]);
        char *slash = strrchr(name, '/');
        if (slash) {
            *slash = '-';
            char *prev = slash;
            while (prev > name && prev[-1] != '/')
                prev--;
            memmove(name, prev, strlen(prev) + 1);
        }
        int rc = blob_seed_write(argv[2], name, 0, &sb, header) |
                 blob_seed_write(argv[2], name, 1, &sb, 0);
        free(name);
        sb_release(&sb);
        free(doc);
        el_ctx_free(ctx);
        arena_free(a);
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
        cmocka_unit_test(test_sources),
        cmocka_unit_test(test_impossible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

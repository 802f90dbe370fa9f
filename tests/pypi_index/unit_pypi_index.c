/* unit_pypi_index.c — cmocka tests of the PyPI reader's parsers: project
 * pages (PEP 691 JSON, PEP 503 HTML, malformed ones), RFC 3339 times, core
 * metadata (folded headers, repeated fields, bad encodings), wheel
 * filenames, the target's tags and their order, the target, and METADATA /
 * PKG-INFO extraction from archives this test writes with libarchive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "pypi_index.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define PAGE "https://idx.example/simple/demo/"

/* a well-formed sha256 for links whose files are never fetched */
#define SHA_AB "abababababababababababababababababababababababababababababababab"

static el_code parse(arena *a, el_ctx *ctx, const char *body, pypi_page *pg)
{
    return pypi_page_parse(ctx, a, body, strlen(body), PAGE, pg);
}

/* ---- the page format: Content-Type first, sniffing only without one ---- */

static void test_page_content_type(void **state)
{
    (void)state;
    assert_int_equal(pypi_page_format_of("application/vnd.pypi.simple.v1+json"), PYPI_PAGE_JSON);
    assert_int_equal(pypi_page_format_of(" Application/VND.pypi.simple.latest+JSON ; q=1"),
                     PYPI_PAGE_JSON);
    assert_int_equal(pypi_page_format_of("application/json"), PYPI_PAGE_JSON);
    assert_int_equal(pypi_page_format_of("application/vnd.pypi.simple.v1+html"), PYPI_PAGE_HTML);
    assert_int_equal(pypi_page_format_of("text/html; charset=utf-8"), PYPI_PAGE_HTML);
    assert_int_equal(pypi_page_format_of("text/htmlx"), -1);
    assert_int_equal(pypi_page_format_of("application/octet-stream"), -1);
    assert_int_equal(pypi_page_format_of(""), -1);
    assert_int_equal(pypi_page_format_of(NULL), -1);

    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    /* An HTML page whose text starts with `{`: sniffing would call it JSON. */
    const char *html = "{ demo }<html><body>"
                       "<a href=\"../../files/demo-1.0.tar.gz#sha256=" SHA_A "\">demo-1.0.tar.gz</a>"
                       "</body></html>";
    assert_int_equal(pypi_page_parse_typed(ctx, a, html, strlen(html), PAGE, "text/html", &pg),
                     EL_OK);
    assert_int_equal(pg.format, PYPI_PAGE_HTML);
    assert_int_equal(pg.nfiles, 1);
    assert_string_equal(pg.files[0].url, "https://idx.example/files/demo-1.0.tar.gz");
    /* Without a type (file://) it is sniffed, and is not JSON. */
    assert_int_equal(pypi_page_parse_typed(ctx, a, html, strlen(html), PAGE, NULL, &pg),
                     EL_PACKAGE_NOT_FOUND);
    /* JSON declared: parsed as JSON even after leading junk-free whitespace. */
    const char *json = "\n {\"meta\":{\"api-version\":\"1.0\"},\"name\":\"demo\",\"files\":["
                       "{\"filename\":\"demo-1.0.tar.gz\",\"url\":\"../../files/demo-1.0.tar.gz\","
                       "\"hashes\":{\"sha256\":\"" SHA_B "\"}}]}";
    assert_int_equal(pypi_page_parse_typed(ctx, a, json, strlen(json), PAGE,
                                           "application/vnd.pypi.simple.v1+json", &pg), EL_OK);
    assert_int_equal(pg.format, PYPI_PAGE_JSON);
    assert_int_equal(pg.nfiles, 1);
    /* A type the format does not have: sniffed. */
    assert_int_equal(pypi_page_parse_typed(ctx, a, json, strlen(json), PAGE,
                                           "application/octet-stream", &pg), EL_OK);
    assert_int_equal(pg.format, PYPI_PAGE_JSON);
    /* JSON declared but the body is HTML: the declaration wins, and it fails. */
    assert_int_equal(pypi_page_parse_typed(ctx, a, "<html></html>", 13, PAGE,
                                           "application/vnd.pypi.simple.v1+json", &pg),
                     EL_PACKAGE_NOT_FOUND);
    el_ctx_free(ctx);
    arena_free(a);
}

/* ---- JSON pages ---- */

static void test_json_full(void **state)
{
    (void)state;
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    const char *body =
        "{\"meta\":{\"api-version\":\"1.1\"},\"name\":\"demo\",\"versions\":[\"1.0\"],\"files\":["
        "{\"filename\":\"demo-1.0-py3-none-any.whl\",\"url\":\"../../files/demo-1.0-py3-none-any.whl\","
        "\"hashes\":{\"sha256\":\"" SHA_A "\"},\"size\":1234,\"upload-time\":\"2024-01-02T03:04:05.123456Z\","
        "\"requires-python\":\">=3.8\",\"core-metadata\":{\"sha256\":\"" SHA_B "\"},\"yanked\":false},"
        "{\"filename\":\"demo-1.0.tar.gz\",\"url\":\"https://files.example/demo-1.0.tar.gz#sha256=" SHA_B "\","
        "\"hashes\":{},\"yanked\":\"broken\",\"dist-info-metadata\":true},"
        "{\"filename\":\"demo-0.9.tar.gz\",\"url\":\"/x/demo-0.9.tar.gz\",\"hashes\":{\"sha256\":\"XYZ\"},"
        "\"size\":-4,\"yanked\":true,\"core-metadata\":false,\"dist-info-metadata\":true},"
        "{\"filename\":\"no-url.whl\"},"
        "7,"
        "{\"filename\":\"demo-0.8.tar.gz\",\"url\":\"demo-0.8.tar.gz\",\"size\":\"big\","
        "\"upload-time\":\"yesterday\",\"hashes\":{\"sha256\":\"" "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" "\"}}"
        "]}";
    pypi_page pg;
    assert_int_equal(parse(a, ctx, body, &pg), EL_OK);
    assert_int_equal(pg.format, PYPI_PAGE_JSON);
    assert_string_equal(pg.api_version, "1.1");
    assert_int_equal(pg.nfiles, 4);
    pypi_file *f = &pg.files[0];
    assert_string_equal(f->url, "https://idx.example/files/demo-1.0-py3-none-any.whl");
    assert_string_equal(f->sha256, SHA_A);
    assert_int_equal(f->size, 1234);
    assert_string_equal(f->upload_time, "2024-01-02T03:04:05.123456Z");
    assert_int_equal(f->upload_s, 1704164645);
    assert_string_equal(f->requires_python, ">=3.8");
    assert_true(f->core_metadata);
    assert_string_equal(f->core_metadata_sha256, SHA_B);
    assert_false(f->yanked);
    f = &pg.files[1];
    assert_string_equal(f->url, "https://files.example/demo-1.0.tar.gz");
    assert_string_equal(f->sha256, SHA_B); /* from the fragment when hashes has none */
    assert_true(f->yanked);
    assert_string_equal(f->yanked_reason, "broken");
    assert_true(f->core_metadata); /* PEP 658 spelling */
    assert_null(f->core_metadata_sha256);
    f = &pg.files[2];
    assert_string_equal(f->url, "https://idx.example/x/demo-0.9.tar.gz");
    assert_null(f->sha256);
    assert_int_equal(f->size, -1);
    assert_true(f->yanked);
    assert_null(f->yanked_reason);
    assert_false(f->core_metadata); /* PEP 714's key wins */
    f = &pg.files[3];
    assert_string_equal(f->url, "https://idx.example/simple/demo/demo-0.8.tar.gz");
    assert_string_equal(f->sha256, SHA_A); /* lowercased */
    assert_int_equal(f->size, -1);
    assert_true(f->upload_s == INT64_MIN);
    arena_free(a);
    el_ctx_free(ctx);
}

static void expect_bad_page(const char *body, const char *needle)
{
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    assert_int_equal(pypi_page_parse(ctx, a, body, strlen(body), PAGE, &pg), EL_PACKAGE_NOT_FOUND);
    if (!strstr(el_ctx_message(ctx), needle))
        fail_msg("message `%s` lacks `%s`", el_ctx_message(ctx), needle);
    char *j = el_ctx_error_json(ctx, false);
    assert_non_null(strstr(j, "\"reason\":\"invalid_page\""));
    assert_non_null(strstr(j, "\"url\":\"https:\\/\\/idx.example\\/simple\\/demo\\/\"") ||
                    strstr(j, "\"url\":\"https://idx.example/simple/demo/\""));
    free(j);
    arena_free(a);
    el_ctx_free(ctx);
}

static void test_json_malformed(void **state)
{
    (void)state;
    expect_bad_page("{\"meta\":{\"api-version\":\"1.0\"},\"files\":[{\"filename\":", "ends early");
    expect_bad_page("{\"files\":[]} trailing", "text after");
    expect_bad_page("{\"files\":{}}", "no \"files\" array");
    expect_bad_page("{\"name\":\"x\"}", "no \"files\" array");
    expect_bad_page("{\"meta\":{\"api-version\":\"2.0\"},\"files\":[]}", "not 1.x");
    expect_bad_page("{\"files\":[]", "ends early");
    expect_bad_page("  {\"files\":[1,2,}", "invalid JSON");
    expect_bad_page("{\"a\":\"\\ud800\",", "invalid JSON");
}

/* ---- HTML pages ---- */

static void test_html_full(void **state)
{
    (void)state;
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    const char *body =
        "<!DOCTYPE html><html><head><meta name=\"pypi:repository-version\" content=\"1.0\">"
        "<title>Links</title></head><body>\n"
        "<a href=\"../../files/demo-1.0-py3-none-any.whl#sha256=" SHA_A "\" "
        "data-requires-python=\"&gt;=3.8,&lt;4\" data-core-metadata=\"sha256=" SHA_B "\">demo-1.0-py3-none-any.whl</a><br>\n"
        "<A HREF=\"https://cdn.example/p/demo%2B1-2.0.tar.gz#md5=00&sha256=" SHA_B "\" data-yanked=\"\" "
        "data-dist-info-metadata=\"true\">ignored text</A>\n"
        "<a href=\"demo-3.0.tar.gz\" data-yanked=\"do not use &amp; see #4\" data-core-metadata=\"false\">demo-3.0.tar.gz</a>\n"
        "<a>no href</a><a href=\"demo-4.0.zip\" data-dist-info-metadata=\"md5=abc\">demo-4.0.zip</a>\n"
        "</body></html>";
    pypi_page pg;
    assert_int_equal(parse(a, ctx, body, &pg), EL_OK);
    assert_int_equal(pg.format, PYPI_PAGE_HTML);
    assert_string_equal(pg.api_version, "1.0");
    assert_int_equal(pg.nfiles, 4);
    pypi_file *f = &pg.files[0];
    assert_string_equal(f->filename, "demo-1.0-py3-none-any.whl");
    assert_string_equal(f->url, "https://idx.example/files/demo-1.0-py3-none-any.whl");
    assert_string_equal(f->sha256, SHA_A);
    assert_string_equal(f->requires_python, ">=3.8,<4");
    assert_true(f->core_metadata);
    assert_string_equal(f->core_metadata_sha256, SHA_B);
    assert_false(f->yanked);
    assert_int_equal(f->size, -1);
    f = &pg.files[1];
    assert_string_equal(f->filename, "demo+1-2.0.tar.gz"); /* from the URL, decoded */
    assert_string_equal(f->sha256, SHA_B);
    assert_true(f->yanked);
    assert_null(f->yanked_reason);
    assert_true(f->core_metadata);
    assert_null(f->core_metadata_sha256);
    f = &pg.files[2];
    assert_string_equal(f->url, "https://idx.example/simple/demo/demo-3.0.tar.gz");
    assert_string_equal(f->yanked_reason, "do not use & see #4");
    assert_false(f->core_metadata);
    f = &pg.files[3];
    assert_true(f->core_metadata); /* offered, with a hash we do not check */
    assert_null(f->core_metadata_sha256);
    arena_free(a);
    el_ctx_free(ctx);
}

static void test_html_base_and_errors(void **state)
{
    (void)state;
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    assert_int_equal(parse(a, ctx,
                           "<html><head><base href=\"https://mirror.example/pkgs/\"></head>"
                           "<body><a href=\"d/demo-1.0.tar.gz\">demo-1.0.tar.gz</a></body></html>",
                           &pg),
                     EL_OK);
    assert_int_equal(pg.nfiles, 1);
    assert_string_equal(pg.files[0].url, "https://mirror.example/pkgs/d/demo-1.0.tar.gz");
    /* Garbage of every kind: never a crash, good links kept. */
    static const char *const junk[] = {
        "", "   ", "<", "<a href=", "<a href='x'", "\x01\x02\x03", "<html><a href=\"#\"></a>",
        "<a href=\"http://[::1\">x</a>", "<a href=\"ht tp://x y/\">y</a>",
        "<!-- <a href='demo-1.0.tar.gz'>",
    };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        assert_int_equal(parse(a, ctx, junk[i], &pg), EL_OK);
    const char bad[] = "<a href=\"demo-1.0.tar.gz\">\xff\xfe</a>\0<a href=\"demo-2.0.tar.gz\">x</a>";
    assert_int_equal(pypi_page_parse(ctx, a, bad, sizeof bad - 1, PAGE, &pg), EL_OK);
    assert_int_equal(pg.nfiles, 2);
    assert_int_equal(parse(a, ctx,
                           "<html><head><meta name=\"pypi:repository-version\" content=\"2.0\">"
                           "</head></html>", &pg),
                     EL_PACKAGE_NOT_FOUND);
    arena_free(a);
    el_ctx_free(ctx);
}

/* ---- links to local files ---- */

static const char *bad_of(const char *body, const char *page_url, const char *read_url,
                          size_t i)
{
    static char why[32];
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    assert_int_equal(pypi_page_parse_read(ctx, a, body, strlen(body), page_url, read_url, NULL,
                                          &pg),
                     EL_OK);
    assert_true(i < pg.nfiles);
    snprintf(why, sizeof why, "%s", pg.files[i].bad_url ? pg.files[i].bad_url : "ok");
    el_ctx_free(ctx);
    arena_free(a);
    return why;
}

/* A page read over http(s) never makes envlock read a local file: an
 * absolute file:// link, a relative one under <base href="file:...">, in
 * either format, from the index or from an http mirror of it, is listed as
 * local_link; a page read from file:// (a local index or mirror) may link
 * to local files, and https links stay fetchable from anywhere. */
static void test_local_links(void **state)
{
    (void)state;
    const char *json = "{\"files\":[{\"filename\":\"demo-1.0-py3-none-any.whl\","
                       "\"url\":\"file:///etc/shadow\",\"hashes\":{\"sha256\":\"" SHA_A "\"}},"
                       "{\"filename\":\"demo-1.0.tar.gz\",\"url\":\"../../f/demo-1.0.tar.gz\","
                       "\"hashes\":{\"sha256\":\"" SHA_A "\"}}]}";
    const char *html = "<a href=\"FILE:///dev/zero#sha256=" SHA_A "\">demo-1.0-py3-none-any.whl</a>"
                       "<a href=\"https://files.example/demo-1.0.tar.gz\">demo-1.0.tar.gz</a>";
    const char *based = "<base href=\"file:///home/u/\"><a href=\"demo-1.0-py3-none-any.whl\">"
                        "demo-1.0-py3-none-any.whl</a>";
    assert_string_equal(bad_of(json, PAGE, NULL, 0), "local_link");
    assert_string_equal(bad_of(json, PAGE, NULL, 1), "ok");
    assert_string_equal(bad_of(html, PAGE, NULL, 0), "local_link");
    assert_string_equal(bad_of(html, PAGE, NULL, 1), "ok");
    assert_string_equal(bad_of(based, PAGE, NULL, 0), "local_link");
    /* an http mirror of the index: the same */
    assert_string_equal(bad_of(json, PAGE, "http://127.0.0.1:9/simple/demo/", 0), "local_link");
    assert_string_equal(bad_of(based, PAGE, "http://127.0.0.1:9/simple/demo/", 0), "local_link");
    /* read from file://, as an index or as the mirror of one: allowed */
    assert_string_equal(bad_of(json, "file:///srv/simple/demo/", NULL, 0), "ok");
    assert_string_equal(bad_of(json, PAGE, "file:///srv/m/simple/demo/", 0), "ok");
    assert_string_equal(bad_of(json, PAGE, "file:///srv/m/simple/demo/", 1), "ok");
    assert_string_equal(bad_of(html, PAGE, "file:///srv/m/simple/demo/", 0), "ok");
}

/* ---- the page's identity (lock format 2) ---- */

static void identity_of(const char *body, const char *page_url, char out[PYPI_IDENTITY_LEN])
{
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    assert_int_equal(pypi_page_parse(ctx, a, body, strlen(body), page_url, &pg), EL_OK);
    pypi_page_identity(&pg, out);
    el_ctx_free(ctx);
    arena_free(a);
}

/* The same files as PEP 691 JSON (with sizes, upload times, absolute links)
 * and as PEP 503 HTML (relative links, no sizes) on another host: one
 * identity. A changed hash, requires-python, yank or metadata hash: another. */
static void test_page_identity(void **state)
{
    (void)state;
    const char *json =
        "{\"meta\":{\"api-version\":\"1.1\"},\"name\":\"demo\",\"files\":["
        "{\"filename\":\"demo-1.0-py3-none-any.whl\","
        "\"url\":\"https://files.example/packages/aa/demo-1.0-py3-none-any.whl\","
        "\"hashes\":{\"sha256\":\"" SHA_A "\"},\"size\":10,"
        "\"upload-time\":\"2024-01-01T00:00:00Z\",\"requires-python\":\">=3.8\","
        "\"core-metadata\":{\"sha256\":\"" SHA_B "\"}},"
        "{\"filename\":\"demo-0.9.tar.gz\",\"url\":\"../../f/demo-0.9.tar.gz\","
        "\"hashes\":{\"sha256\":\"" SHA_B "\"},\"yanked\":\"broken\"}]}";
    /* the other order, another host, HTML escapes, the old metadata attribute */
    const char *html =
        "<html><body>"
        "<a href=\"/x/demo-0.9.tar.gz#sha256=" SHA_B "\" data-yanked=\"broken\">demo-0.9.tar.gz</a>"
        "<a href=\"http://mirror.local/+f/demo-1.0-py3-none-any.whl#sha256=" SHA_A "\" "
        "data-requires-python=\"&gt;=3.8\" data-dist-info-metadata=\"sha256=" SHA_B "\">"
        "demo-1.0-py3-none-any.whl</a></body></html>";
    char a[PYPI_IDENTITY_LEN], b[PYPI_IDENTITY_LEN], c[PYPI_IDENTITY_LEN];
    identity_of(json, PAGE, a);
    identity_of(html, "http://mirror.local/simple/demo/", b);
    assert_true(strncmp(a, "sha256:", 7) == 0 && strlen(a) == 71);
    assert_string_equal(a, b);
    static const char *const changes[][2] = {
        { "\"sha256\":\"" SHA_A "\"}", "\"sha256\":\"" SHA_B "\"}" },
        { ">=3.8", ">=3.9" },
        { "\"yanked\":\"broken\"", "\"yanked\":true" },
        { "\"core-metadata\":{\"sha256\":\"" SHA_B "\"}", "\"core-metadata\":true" },
        { "demo-0.9.tar.gz\",", "demo-0.8.tar.gz\"," },
    };
    for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
        const char *at = strstr(json, changes[i][0]);
        assert_non_null(at);
        char *other = xasprintf("%.*s%s%s", (int)(at - json), json, changes[i][1],
                                at + strlen(changes[i][0]));
        identity_of(other, PAGE, c);
        if (strcmp(a, c) == 0)
            fail_msg("change %zu (%s) kept the identity", i, changes[i][1]);
        free(other);
    }
}

static void test_time(void **state)
{
    (void)state;
    int64_t t;
    assert_true(pypi_time_parse("1970-01-01T00:00:00Z", &t));
    assert_int_equal(t, 0);
    assert_true(pypi_time_parse("2024-02-29T12:00:00+02:00", &t));
    assert_int_equal(t, 1709200800);
    assert_true(pypi_time_parse("2000-03-01t00:00:00.5z", &t));
    assert_int_equal(t, 951868800);
    assert_true(pypi_time_parse("1969-12-31T23:59:59Z", &t));
    assert_int_equal(t, -1);
    static const char *const bad[] = { "", "2024-01-01", "2024-01-01T00:00:00", "2024-13-01T00:00:00Z",
                                       "2024-01-01T24:00:00Z", "2024-01-01T00:00:00Zx",
                                       "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+0100",
                                       "２024-01-01T00:00:00Z" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(pypi_time_parse(bad[i], &t));
}

/* ---- core metadata ---- */

static void test_meta_basic(void **state)
{
    (void)state;
    arena *a = arena_new();
    const char *text =
        "Metadata-Version: 2.3\r\n"
        "Name: Demo_Pkg\r\n"
        "version:  1.0.post1 \r\n"
        "Summary: a demo\r\n"
        "Requires-Python: >=3.8\r\n"
        "Requires-Dist: idna>=2\r\n"
        "Requires-Dist: requests[socks]\r\n"
        "  >=2.0; extra ==\r\n"
        "\t\"Socks\"\r\n"
        "Requires-Dist:\r\n"
        "Provides-Extra: Socks\r\n"
        "Provides-Extra: Use__Chardet.On-Py3\r\n"
        "Dynamic: requires-dist\r\n"
        "\r\n"
        "Requires-Dist: not-a-header-this-is-the-body\r\n";
    pypi_core_meta m;
    char *err = NULL;
    assert_true(pypi_core_meta_parse(a, text, strlen(text), &m, &err));
    assert_string_equal(m.metadata_version, "2.3");
    assert_int_equal(m.mv_major, 2);
    assert_int_equal(m.mv_minor, 3);
    assert_string_equal(m.name, "Demo_Pkg");
    assert_string_equal(m.version, "1.0.post1");
    assert_string_equal(m.summary, "a demo");
    assert_string_equal(m.requires_python, ">=3.8");
    assert_int_equal(m.n_requires_dist, 2);
    assert_string_equal(m.requires_dist[0], "idna>=2");
    assert_string_equal(m.requires_dist[1], "requests[socks]  >=2.0; extra ==\t\"Socks\"");
    pypi_requirement *r = pypi_requirement_parse(m.requires_dist[1], NULL);
    assert_non_null(r);
    pypi_requirement_free(r);
    assert_int_equal(m.n_provides_extra, 2);
    assert_string_equal(m.provides_extra[0], "socks");
    assert_string_equal(m.provides_extra[1], "use-chardet-on-py3");
    assert_true(pypi_core_meta_dynamic(&m, "Requires-Dist"));
    assert_false(pypi_core_meta_dynamic(&m, "Summary"));

    /* A line that is not a header ends the headers, as the email parser does. */
    const char *t2 = "Name: x\nVersion: 1\nthis is not a header\nRequires-Dist: y\n";
    assert_true(pypi_core_meta_parse(a, t2, strlen(t2), &m, NULL));
    assert_int_equal(m.n_requires_dist, 0);
    assert_int_equal(m.mv_major, 0);
    /* A BOM and no trailing newline. */
    const char *t3 = "\xef\xbb\xbfName: x\nVersion: 2";
    assert_true(pypi_core_meta_parse(a, t3, strlen(t3), &m, NULL));
    assert_string_equal(m.version, "2");
    assert_null(pypi_core_meta_license(a, &m));
    arena_free(a);
}

/* The license core metadata declares (docs/policy.md, "licenses"). */
static void test_core_meta_license(void **state)
{
    (void)state;
    arena *a = arena_new();
    pypi_core_meta m;
    static const struct {
        const char *headers, *want;
    } cases[] = {
        /* PEP 639 first, whatever else is there */
        { "License-Expression: MIT OR Apache-2.0\nLicense: BSD\n"
          "Classifier: License :: OSI Approved :: BSD License\n",
          "MIT OR Apache-2.0" },
        /* classifiers that each name one license, the same one once */
        { "Classifier: License :: OSI Approved :: Apache Software License\n"
          "Classifier: Programming Language :: Python\n"
          "Classifier: License :: OSI Approved :: MIT License\n"
          "Classifier: License :: OSI Approved :: Apache Software License\n",
          "Apache-2.0 AND MIT" },
        { "Classifier: License :: OSI Approved :: MIT No Attribution License (MIT-0)\n"
          "Classifier: License :: OSI Approved :: MIT License\n",
          "MIT-0 AND MIT" },
        /* a family is no license: the License field is what is left */
        { "License: BSD-3-Clause\nClassifier: License :: OSI Approved :: BSD License\n",
          "BSD-3-Clause" },
        { "Classifier: License :: OSI Approved :: BSD License\n", NULL },
        { "License: Apache License, Version 2.0\n", "Apache License, Version 2.0" },
        { "Summary: none declared\n", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = xasprintf("Metadata-Version: 2.4\nName: x\nVersion: 1\n%s",
                               cases[i].headers);
        assert_true(pypi_core_meta_parse(a, text, strlen(text), &m, NULL));
        const char *got = pypi_core_meta_license(a, &m);
        if (cases[i].want ? !got || strcmp(got, cases[i].want) : got != NULL)
            fail_msg("case %zu: `%s`, not `%s`", i, got ? got : "(null)",
                     cases[i].want ? cases[i].want : "(null)");
        free(text);
    }
    arena_free(a);
}

static void expect_bad_meta(const char *text, size_t len, const char *needle)
{
    arena *a = arena_new();
    pypi_core_meta m;
    char *err = NULL;
    assert_false(pypi_core_meta_parse(a, text, len, &m, &err));
    assert_non_null(err);
    if (!strstr(err, needle))
        fail_msg("error `%s` lacks `%s`", err, needle);
    free(err);
    arena_free(a);
}

static void test_meta_bad(void **state)
{
    (void)state;
    expect_bad_meta("Name: caf\xe9\nVersion: 1\n", 22, "not UTF-8");
    expect_bad_meta("Name: x\nVersion: 1\nSummary: \xc0\xaf\n", 30, "not UTF-8 (line 3)");
    expect_bad_meta("Name: x\0y\nVersion: 1\n", 20, "NUL");
    expect_bad_meta("  Name: x\nVersion: 1\n", 21, "continuation line before");
    expect_bad_meta("Version: 1\n", 11, "no Name");
    expect_bad_meta("Name: x\n", 8, "no Version");
    expect_bad_meta("Name:   \nVersion: 1\n", 20, "no Name");
    expect_bad_meta("", 0, "no Name");
    expect_bad_meta("\n\nName: x\nVersion: 1\n", 21, "no Name");
    /* Invalid UTF-8 in the body is not our business. */
    arena *a = arena_new();
    pypi_core_meta m;
    assert_true(pypi_core_meta_parse(a, "Name: x\nVersion: 1\n\n\xff\xff", 22, &m, NULL));
    arena_free(a);
}

/* ---- wheel filenames ---- */

static void test_wheel_names(void **state)
{
    (void)state;
    arena *a = arena_new();
    pypi_wheel_name w;
    char *err = NULL;
    assert_true(pypi_wheel_name_parse(
        a, "numpy-2.2.6-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", &w, &err));
    assert_string_equal(w.name, "numpy");
    assert_string_equal(w.version, "2.2.6");
    assert_null(w.build);
    assert_int_equal(w.ntags, 2);
    assert_string_equal(w.tags[1].plat, "manylinux2014_x86_64");
    assert_true(pypi_wheel_name_parse(a, "Foo_Bar-1.0-12abc-py2.py3-none-ANY.whl", &w, &err));
    assert_string_equal(w.build, "12abc");
    assert_int_equal(w.build_num, 12);
    assert_string_equal(w.build_rest, "abc");
    assert_int_equal(w.ntags, 2);
    assert_string_equal(w.tags[0].interp, "py2");
    assert_string_equal(w.tags[1].plat, "any"); /* lowercased, as packaging does */
    assert_true(pypi_wheel_name_parse(a, "x-1-cp38.cp39-abi3.none-a.b.c.whl", &w, NULL));
    assert_int_equal(w.ntags, 12);
    static const char *const bad[] = {
        "foo-1.0-py3-none-any.zip", "foo-1.0-py3-none.whl", "foo-1.0-1-2-py3-none-any.whl",
        "foo-1.0-x1-py3-none-any.whl", "foo--py3-none-any.whl", "fo+o-1.0-py3-none-any.whl",
        ".whl", "foo-1.0-py3-none-any..whl", "foo-1.0-py3..py2-none-any.whl",
        /* outside the format's characters: nothing of it may reach a lock */
        "foo-1.0-1$(touch${IFS}x)-py3-none-any.whl", "foo-1.0-1`id`-py3-none-any.whl",
        "foo-1.0-1_a.b-py3-none-any;id.whl", "foo-1.0-py3-none-any x.whl",
        "f\xc3\xb6o-1.0-py3-none-any.whl", "foo-1.0-1/..-py3-none-any.whl",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = NULL;
        if (pypi_wheel_name_parse(a, bad[i], &w, &err))
            fail_msg("accepted %s", bad[i]);
        assert_non_null(err);
        free(err);
    }
    arena_free(a);
}

/* ---- tags ---- */

static long rank(const pypi_tags *t, const char *interp, const char *abi, const char *plat)
{
    pypi_tag tg = { interp, abi, plat };
    return pypi_tags_rank(t, &tg);
}

static void test_tags_order(void **state)
{
    (void)state;
    char *err = NULL;
    pypi_tags *t = pypi_tags_new("3.13", "manylinux_2_36_x86_64", &err);
    assert_non_null(t);
    assert_string_equal(pypi_tags_at(t, 0), "cp313-cp313-manylinux_2_36_x86_64");
    assert_string_equal(pypi_tags_at(t, pypi_tags_len(t) - 1), "py30-none-any");
    assert_int_equal(pypi_tags_len(t), 1031);
    /* Every legacy alias right after its manylinux_2_N. */
    static const struct { const char *legacy, *modern; } al[] = {
        { "manylinux2014_x86_64", "manylinux_2_17_x86_64" },
        { "manylinux2010_x86_64", "manylinux_2_12_x86_64" },
        { "manylinux1_x86_64", "manylinux_2_5_x86_64" } };
    for (size_t i = 0; i < 3; i++) {
        long l = rank(t, "cp313", "cp313", al[i].legacy), m = rank(t, "cp313", "cp313", al[i].modern);
        assert_true(m >= 0);
        assert_int_equal(l, m + 1);
    }
    assert_true(rank(t, "cp313", "cp313", "manylinux_2_36_x86_64") <
                rank(t, "cp313", "cp313", "manylinux_2_17_x86_64"));
    assert_true(rank(t, "cp313", "cp313", "manylinux1_x86_64") < rank(t, "cp313", "abi3", "manylinux_2_36_x86_64"));
    assert_true(rank(t, "cp313", "abi3", "manylinux1_x86_64") < rank(t, "cp313", "none", "manylinux_2_36_x86_64"));
    assert_true(rank(t, "cp313", "none", "manylinux1_x86_64") < rank(t, "cp312", "abi3", "manylinux_2_36_x86_64"));
    assert_true(rank(t, "cp39", "abi3", "manylinux1_x86_64") < rank(t, "cp37", "abi3", "manylinux_2_36_x86_64"));
    assert_true(rank(t, "cp32", "abi3", "manylinux1_x86_64") < rank(t, "py313", "none", "manylinux_2_36_x86_64"));
    assert_true(rank(t, "py3", "none", "manylinux1_x86_64") < rank(t, "cp313", "none", "any"));
    assert_true(rank(t, "cp313", "none", "any") < rank(t, "py3", "none", "any"));
    assert_true(rank(t, "py3", "none", "any") < rank(t, "py312", "none", "any"));
    /* Not for this target. */
    assert_int_equal(rank(t, "cp313", "cp313", "linux_x86_64"), -1);
    assert_int_equal(rank(t, "cp313", "cp313", "manylinux_2_37_x86_64"), -1);
    assert_int_equal(rank(t, "cp313", "cp313", "manylinux_2_4_x86_64"), -1);
    assert_int_equal(rank(t, "cp313", "cp313", "musllinux_1_1_x86_64"), -1);
    assert_int_equal(rank(t, "cp313", "cp313", "manylinux_2_17_aarch64"), -1);
    assert_int_equal(rank(t, "cp314", "cp314", "manylinux_2_17_x86_64"), -1);
    assert_int_equal(rank(t, "cp31", "abi3", "manylinux_2_17_x86_64"), -1);
    assert_int_equal(rank(t, "cp313", "cp313t", "manylinux_2_17_x86_64"), -1);
    assert_int_equal(rank(t, "py2", "none", "any"), -1);
    assert_int_equal(rank(t, "pp310", "pypy310_pp73", "manylinux_2_17_x86_64"), -1);
    assert_string_equal(pypi_tags_python_full(t), "3.13.0");
    pypi_tags_free(t);

    /* aarch64: from 2_17 only, so manylinux2014 but never 2010/1. */
    t = pypi_tags_new("3.13.5", "manylinux2014_aarch64", NULL);
    assert_non_null(t);
    assert_string_equal(pypi_tags_platform(t), "manylinux_2_17_aarch64");
    assert_string_equal(pypi_tags_python_full(t), "3.13.5");
    assert_int_equal(rank(t, "cp313", "cp313", "manylinux2014_aarch64"), 1);
    assert_int_equal(rank(t, "cp313", "cp313", "manylinux_2_16_aarch64"), -1);
    assert_int_equal(rank(t, "cp313", "cp313", "manylinux2010_aarch64"), -1);
    pypi_tags_free(t);

    /* musl */
    t = pypi_tags_new("3.12", "musllinux_1_2_x86_64", NULL);
    assert_true(pypi_tags_musl(t));
    assert_int_equal(rank(t, "cp312", "cp312", "musllinux_1_2_x86_64"), 0);
    assert_int_equal(rank(t, "cp312", "cp312", "musllinux_1_0_x86_64"), 2);
    assert_int_equal(rank(t, "cp312", "cp312", "manylinux_2_17_x86_64"), -1);
    pypi_tags_free(t);

    static const char *const bad[][2] = {
        { "2.7", "manylinux_2_17_x86_64" }, { "3", "manylinux_2_17_x86_64" },
        { "3.13a1", "manylinux_2_17_x86_64" }, { "3.13.", "manylinux_2_17_x86_64" },
        { "3.13", "linux_x86_64" }, { "3.13", "manylinux_3_1_x86_64" },
        { "3.13", "musllinux_2_1_x86_64" }, { "3.13", "manylinux_2_17_" },
        { "3.13", "manylinux_2_x_x86_64" }, { "3.13", "macosx_11_0_arm64" },
        { "3.13", "manylinux_2_17_X86" }, { "3.1234", "manylinux_2_17_x86_64" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = NULL;
        if (pypi_tags_new(bad[i][0], bad[i][1], &err))
            fail_msg("accepted %s %s", bad[i][0], bad[i][1]);
        assert_non_null(err);
        free(err);
    }
}

static void test_wheel_rank(void **state)
{
    (void)state;
    arena *a = arena_new();
    pypi_tags *t = pypi_tags_new("3.13", "manylinux_2_36_x86_64", NULL);
    pypi_wheel_name w;
    assert_true(pypi_wheel_name_parse(
        a, "x-1-cp313-cp313-manylinux_2_39_x86_64.manylinux2014_x86_64.whl", &w, NULL));
    assert_int_equal(pypi_wheel_rank(t, &w), rank(t, "cp313", "cp313", "manylinux2014_x86_64"));
    assert_true(pypi_wheel_name_parse(a, "x-1-cp313-cp313-manylinux_2_39_x86_64.whl", &w, NULL));
    assert_int_equal(pypi_wheel_rank(t, &w), -1);
    pypi_tags_free(t);
    arena_free(a);
}

/* ---- target ---- */

static void test_target(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    pypi_target t;
    /* the target is the catalog's to say: no built-in default */
    assert_int_equal(pypi_target_init(ctx, &t, NULL, "manylinux_2_36_x86_64", NULL), EL_SPEC_INVALID);
    assert_int_equal(pypi_target_init(ctx, &t, "3.13", NULL, NULL), EL_SPEC_INVALID);
    assert_int_equal(pypi_target_init(ctx, &t, "3.13", "manylinux_2_36_x86_64", NULL), EL_OK);
    assert_string_equal(t.env.python_version, "3.13");
    assert_string_equal(t.env.python_full_version, "3.13.0");
    assert_string_equal(t.env.platform_machine, "x86_64");
    assert_string_equal(t.env.sys_platform, "linux");
    assert_string_equal(t.env.implementation_name, "cpython");
    assert_true(t.cutoff_s == INT64_MAX);
    pypi_marker *m = pypi_marker_parse("python_version >= \"3.9\" and platform_machine == \"x86_64\" "
                                       "and sys_platform == \"linux\" and platform_python_implementation "
                                       "== \"CPython\"", true, NULL);
    assert_int_equal(pypi_marker_evaluate(m, &t.env, NULL), 1);
    pypi_marker_free(m);
    pypi_target_clear(&t);
    assert_int_equal(pypi_target_init(ctx, &t, "3.12.4", "musllinux_1_2_aarch64", "2026-02-15T00:00:00Z"),
                     EL_OK);
    assert_string_equal(t.env.python_full_version, "3.12.4");
    assert_string_equal(t.env.platform_machine, "aarch64");
    assert_int_equal(t.cutoff_s, 1771113600);
    pypi_target_clear(&t);
    assert_int_equal(pypi_target_init(ctx, &t, "3.13", "manylinux_2_36_x86_64", "Feb 15"), EL_SPEC_INVALID);
    assert_int_equal(pypi_target_init(ctx, &t, "3.x", "manylinux_2_36_x86_64", NULL), EL_SPEC_INVALID);
    assert_int_equal(pypi_target_init(ctx, &t, "3.13", "win_amd64", NULL), EL_SPEC_INVALID);
    char *j = el_ctx_error_json(ctx, false);
    assert_non_null(strstr(j, "\"field\":\"platform\""));
    free(j);
    el_ctx_free(ctx);
}

/* ---- archives ---- */

typedef struct member {
    const char *path, *data;
} member;

static unsigned char *make_archive(bool zip, const member *ms, size_t n, size_t *len)
{
    size_t cap = 1 << 20;
    unsigned char *buf = xmalloc(cap);
    struct archive *w = archive_write_new();
    if (zip) {
        archive_write_set_format_zip(w);
    } else {
        archive_write_set_format_pax_restricted(w);
        archive_write_add_filter_gzip(w);
    }
    assert_int_equal(archive_write_open_memory(w, buf, cap, len), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, ms[i].path);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)strlen(ms[i].data));
        assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
        archive_write_data(w, ms[i].data, strlen(ms[i].data));
        archive_entry_free(e);
    }
    archive_write_close(w);
    archive_write_free(w);
    return buf;
}

static void test_archives(void **state)
{
    (void)state;
    static const member wheel[] = {
        { "demo/__init__.py", "" },
        { "other/METADATA", "Name: wrong\nVersion: 0\n" },
        { "deep/x.dist-info/METADATA", "Name: wrong\nVersion: 0\n" },
        { "demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
                                         "Requires-Dist: idna\n" },
        { "demo-1.0.dist-info/RECORD", "" },
    };
    size_t len, mlen;
    const char *err = NULL;
    unsigned char *z = make_archive(true, wheel, 5, &len);
    char *md = pypi_archive_metadata(z, len, false, &mlen, &err);
    assert_non_null(md);
    assert_non_null(strstr(md, "Requires-Dist: idna"));
    assert_int_equal(mlen, strlen(md));
    free(md);
    /* Cut short: not a readable zip, or no member; never a crash. */
    for (size_t cut = 0; cut < len; cut += 37) {
        err = NULL;
        md = pypi_archive_metadata(z, cut, false, &mlen, &err);
        if (md)
            free(md);
        else
            assert_non_null(err);
    }
    free(z);
    static const member nometa[] = { { "demo-1.0.dist-info/RECORD", "" } };
    z = make_archive(true, nometa, 1, &len);
    assert_null(pypi_archive_metadata(z, len, false, &mlen, &err));
    assert_string_equal(err, "the wheel has no *.dist-info/METADATA");
    free(z);

    static const member sdist[] = {
        { "demo-1.0/setup.py", "" },
        { "demo-1.0/src/PKG-INFO", "Name: wrong\nVersion: 0\n" },
        { "demo-1.0/PKG-INFO", "Metadata-Version: 2.2\nName: demo\nVersion: 1.0\n" },
    };
    z = make_archive(false, sdist, 3, &len);
    md = pypi_archive_metadata(z, len, true, &mlen, &err);
    assert_non_null(md);
    assert_non_null(strstr(md, "Metadata-Version: 2.2"));
    free(md);
    free(z);
    assert_null(pypi_archive_metadata((const unsigned char *)"garbage", 7, true, &mlen, &err));
    assert_null(pypi_archive_metadata((const unsigned char *)"", 0, false, &mlen, &err));
}

/* ---- the loader over file:// ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Two projects in one run, a window of 3 widened to 5 by a second submit,
 * and a third name that no index has. */
static void test_loader_file_index(void **state)
{
    (void)state;
    char dir[] = "/tmp/unit-pypi-index-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/simple", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    free(path);
    strbuf page = STRBUF_INIT;
    for (int v = 1; v <= 12; v++) {
        char *meta = xasprintf("Metadata-Version: 2.1\nName: alpha\nVersion: %d.0\n"
                               "Requires-Dist: beta>=%d\n", v, v);
        char sha[65];
        sha256_hex(meta, strlen(meta), sha);
        char *mp = xasprintf("%s/alpha-%d.0-py3-none-any.whl.metadata", dir, v);
        write_file(mp, meta);
        /* the wheel's own sha256 (any will do: it is never fetched); a file
         * with none is no_hash */
        sb_addf(&page, "<a href=\"../../alpha-%d.0-py3-none-any.whl#sha256=%s\" data-core-metadata=\"sha256=%s\"%s>x</a>\n",
                v, sha, sha, v == 12 ? " data-yanked=\"bad\"" : "");
        free(mp);
        free(meta);
    }
    path = xasprintf("%s/simple/alpha", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    free(path);
    path = xasprintf("%s/simple/alpha/index.html", dir);
    write_file(path, page.buf);
    free(path);
    sb_release(&page);
    path = xasprintf("%s/simple/beta", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    free(path);
    char *meta = xstrdup("Name: beta\nVersion: 1.0\n");
    char *mp = xasprintf("%s/beta-1.0-py3-none-any.whl.metadata", dir);
    write_file(mp, meta);
    free(mp);
    free(meta);
    path = xasprintf("%s/simple/beta/index.html", dir);
    write_file(path, "<a href='../../beta-1.0-py3-none-any.whl#sha256=" SHA_AB "' "
                     "data-dist-info-metadata='true'>b</a>"
                     "<a href='../../beta-1.0.tar.gz#sha256=" SHA_AB "'>b</a>"
                     "<a href='../../unrelated-1.0.tar.gz#sha256=" SHA_AB "'>u</a>"
                     /* outside the grammars: refused and counted for a note */
                     "<a href='../../beta-1.0-1$(id)-py3-none-any.whl#sha256=" SHA_AB "'>h</a>"
                     "<a href='../../beta-1.0;id.tar.gz#sha256=" SHA_AB "'>h</a>");
    free(path);

    el_ctx *ctx = el_ctx_new();
    char *cdir = xasprintf("%s/cache", dir);
    el_cache_options o = { 0 };
    o.dir = cdir;
    o.no_mirror_config = true;
    o.quiet = true;
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    pypi_target t;
    assert_int_equal(pypi_target_init(ctx, &t, "3.13", "manylinux_2_36_x86_64", NULL), EL_OK);
    char *idx = xasprintf("file://%s/simple/", dir);
    const char *indexes[] = { idx };
    pypi_loader *l = pypi_loader_new(c, &t, indexes, 1);
    pypi_loader_submit(l, "Alpha", 3);
    pypi_loader_submit(l, "beta", 0);
    pypi_loader_submit(l, "gamma", 0);
    assert_int_equal(cache_run(c, ctx), EL_OK);
    const pypi_project *p = pypi_loader_get(l, "ALPHA");
    assert_non_null(p);
    assert_int_equal(p->code, EL_OK);
    assert_int_equal(p->ncands, 12);
    assert_string_equal(p->cands[0].version, "12.0");
    assert_string_equal(p->cands[0].excluded, "yanked");
    assert_string_equal(p->cands[0].why, "yanked: bad");
    size_t loaded = 0;
    for (size_t i = 0; i < p->ncands; i++)
        loaded += p->cands[i].meta == PYPI_META_LOADED;
    assert_int_equal(loaded, 3);
    assert_int_equal(p->cands[1].meta, PYPI_META_LOADED);
    assert_int_equal(p->cands[1].ndeps, 1);
    assert_string_equal(p->cands[1].deps[0].text, "beta>=11");
    assert_string_equal(p->cands[1].deps[0].req->canonical_name, "beta");
    assert_int_equal(p->cands[4].meta, PYPI_META_NONE);
    const pypi_project *b = pypi_loader_get(l, "beta");
    assert_int_equal(b->ncands, 1);
    assert_int_equal(b->cands[0].nartifacts, 2);
    assert_int_equal(b->cands[0].chosen, 0); /* the wheel over the sdist */
    assert_string_equal(b->cands[0].meta_source, "metadata-file");
    assert_int_equal(b->nrefused, 2);
    assert_string_equal(b->refused, "beta-1.0-1$(id)-py3-none-any.whl");
    assert_int_equal(pypi_loader_get(l, "alpha")->nrefused, 0);
    const pypi_project *g = pypi_loader_get(l, "gamma");
    assert_int_equal(g->code, EL_PACKAGE_NOT_FOUND);
    assert_string_equal(g->reason, "not_found");
    assert_null(pypi_loader_get(l, "delta"));
    /* Widening fetches only what is missing. */
    pypi_loader_submit(l, "alpha", 5);
    assert_int_equal(cache_run(c, ctx), EL_OK);
    cache_run_stats st;
    cache_get_stats(c, &st);
    loaded = 0;
    for (size_t i = 0; i < p->ncands; i++)
        loaded += p->cands[i].meta == PYPI_META_LOADED;
    assert_int_equal(loaded, 5);
    assert_int_equal(p->cands[5].meta, PYPI_META_LOADED);
    assert_int_equal(p->cands[6].meta, PYPI_META_NONE);
    pypi_loader_free(l);
    pypi_target_clear(&t);
    cache_close(c);
    el_ctx_free(ctx);
    free(idx);
    free(cdir);
    char *rm = xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
    free(rm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_content_type), cmocka_unit_test(test_page_identity),
        cmocka_unit_test(test_local_links),
        cmocka_unit_test(test_json_full),     cmocka_unit_test(test_json_malformed),
        cmocka_unit_test(test_html_full),     cmocka_unit_test(test_html_base_and_errors),
        cmocka_unit_test(test_time),          cmocka_unit_test(test_meta_basic),
        cmocka_unit_test(test_core_meta_license),
        cmocka_unit_test(test_meta_bad),      cmocka_unit_test(test_wheel_names),
        cmocka_unit_test(test_tags_order),    cmocka_unit_test(test_wheel_rank),
        cmocka_unit_test(test_target),        cmocka_unit_test(test_archives),
        cmocka_unit_test(test_loader_file_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

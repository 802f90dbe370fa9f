/* unit_prune.c — the pruned packument tree (indexes/npm/npm_json_prune.c)
 * against json-c's whole tree: for every document given (files, or
 * directories searched for packument files) and for crafted edge cases
 * (duplicate names, nesting at and past the limit, escapes and surrogates,
 * invalid UTF-8, huge numbers, trailing data, every truncation of a
 * document), npm_packument_parse() and npm_packument_parse_full_tree() give
 * the same parsed form bytes, or fail with the same reason and message,
 * under three option sets. The forms json-c's strict mode accepts against
 * RFC 8259 (leading zeros, `1.`, NaN, raw control characters) must be
 * accepted by json-c and refused by the pruned parser.
 * Usage: npm_index_unit_prune [FILE|DIR...]; exit 1 on any difference. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npm_index.h"

static const char SHA0[] = "0000000000000000000000000000000000000000000000000000000000000000";

static int failures, compared;

static npm_target arm = { "linux", "arm64", "musl", "20.11.1", "2024-06-05T00:00:00Z", false };
static const npm_parse_options opts[] = {
    { .name = NULL },
    { .name = NULL, .target = &arm },
    { .name = NULL, .served_base = "http://127.0.0.1:4873/npm/" },
};

static void fail(const char *what, const char *fmt, ...) EL_PRINTF(2, 3);

static void fail(const char *what, const char *fmt, ...)
{
    failures++;
    fprintf(stderr, "FAIL %s: ", what);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* -1: either; 0: both parse; 1: both fail alike; 2: json-c parses, pruned
 * refuses; 3: both fail for the same reason, messages may differ */
static void compare(const char *doc, size_t len, const char *what, int expect)
{
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        npm_packument *p = NULL, *q = NULL;
        const char *rp = NULL, *rq = NULL;
        char *ep = NULL, *eq = NULL;
        int a = npm_packument_parse(doc, len, &opts[k], &p, &rp, &ep);
        int b = npm_packument_parse_full_tree(doc, len, &opts[k], &q, &rq, &eq);
        compared++;
        if (expect == 2) {
            if (!(a != 0 && b == 0 && strcmp(rp, "invalid_packument") == 0))
                fail(what, "json-c's laxity: pruned %s / full %s", ep ? ep : "parsed",
                     eq ? eq : "parsed");
        } else if (a != b) {
            fail(what, "pruned: %s; full tree: %s", ep ? ep : "parsed", eq ? eq : "parsed");
        } else if (a != 0) {
            if (strcmp(rp, rq) != 0 || (expect != 3 && strcmp(ep, eq) != 0))
                fail(what, "failures differ: `%s` vs `%s`", ep ? ep : "(null)", eq ? eq : "(null)");
            if (expect == 0)
                fail(what, "expected a parse, got `%s`", ep ? ep : "(null)");
        } else {
            strbuf x = STRBUF_INIT, y = STRBUF_INIT;
            npm_packument_blob_write(p, SHA0, &opts[k], &x);
            npm_packument_blob_write(q, SHA0, &opts[k], &y);
            if (x.len != y.len || memcmp(x.buf, y.buf, x.len) != 0)
                fail(what, "the models differ");
            if (expect == 1 || expect == 3)
                fail(what, "expected a failure, both parsed");
            sb_release(&x);
            sb_release(&y);
        }
        npm_packument_free(p);
        npm_packument_free(q);
        free(ep);
        free(eq);
        if (k == 0 && expect == 2)
            break;
    }
}

static void compare_s(const char *doc, int expect)
{
    compare(doc, strlen(doc), doc, expect);
}

/* ---- crafted documents ---- */

static const char BASE[] =
    "{\"name\":\"x\",\"readme\":\"# x\\n\\u00e9\",\"dist-tags\":{\"latest\":\"1.0.0\",\"b\\u0065ta\":\"2.0.0-b.1\"},"
    "\"time\":{\"modified\":\"2024-06-01T00:00:00.000Z\",\"1.0.0\":\"2024-01-01T00:00:00.000Z\","
    "\"2.0.0-b.1\":\"2024-07-01T00:00:00.000Z\"},"
    "\"versions\":{\"1.0.0\":{\"name\":\"x\",\"description\":\"d\\\"q\",\"maintainers\":[{\"n\":1}],"
    "\"dependencies\":{\"a\":\"^1.0.0\",\"b\":\"npm:c@2\"},\"optionalDependencies\":{\"b\":\"npm:c@2\"},"
    "\"peerDependencies\":{\"p\":\"*\"},\"peerDependenciesMeta\":{\"p\":{\"optional\":true}},"
    "\"engines\":{\"node\":\">=18\"},\"os\":[\"linux\"],\"cpu\":\"x64\",\"scripts\":{\"test\":\"t\","
    "\"postinstall\":\"p\"},\"dist\":{\"tarball\":\"https://registry.npmjs.org/x/-/x-1.0.0.tgz\","
    "\"shasum\":\"0123456789abcdef0123456789abcdef01234567\",\"fileCount\":3,\"signatures\":[{}]}},"
    "\"2.0.0-b.1\":{\"deprecated\":\"use \\u00e9\\ud83d\\ude00\",\"bundleDependencies\":[\"a\"],"
    "\"dist\":{\"tarball\":\"http://127.0.0.1:4873/npm/x/-/x-2.0.0-b.1.tgz\",\"integrity\":\"sha512-AA==\"}}}}";

static char *nest(const char *prefix, int n, const char *inner, const char *suffix)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, prefix);
    for (int i = 0; i < n; i++)
        sb_addc(&sb, '[');
    sb_adds(&sb, inner);
    for (int i = 0; i < n; i++)
        sb_addc(&sb, ']');
    sb_adds(&sb, suffix);
    return sb_detach(&sb, NULL);
}

static void depth_cases(void)
{
    /* levels: document 1, versions 2, a manifest 3, its engines 4, arrays from 5 */
    struct { const char *pre; int base; } at[] = {
        { "{\"versions\":{\"1.0.0\":{\"engines\":", 4 }, /* kept */
        { "{\"versions\":{\"1.0.0\":{\"readme\":", 4 },  /* skipped */
        { "{\"junk\":", 2 },                            /* skipped at the top */
    };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        int free_levels = 64 - at[i].base; /* arrays that still fit with a value inside */
        char *ok = nest(at[i].pre, free_levels, "1", "}}}");
        char *ok_empty = nest(at[i].pre, free_levels + 1, "", "}}}");
        char *deep = nest(at[i].pre, free_levels + 1, "1", "}}}");
        char *deeper = nest(at[i].pre, free_levels + 40, "\"s\"", "}}}");
        if (at[i].base == 2) { /* one closing brace fewer */
            ok[strlen(ok) - 2] = '\0';
            ok_empty[strlen(ok_empty) - 2] = '\0';
            deep[strlen(deep) - 2] = '\0';
            deeper[strlen(deeper) - 2] = '\0';
        }
        compare(ok, strlen(ok), "depth: at the limit", 0);
        compare(ok_empty, strlen(ok_empty), "depth: empty array at the limit", 0);
        compare(deep, strlen(deep), "depth: one past", 1);
        compare(deeper, strlen(deeper), "depth: far past", 1);
        free(ok);
        free(ok_empty);
        free(deep);
        free(deeper);
    }
}

static const char *const crafted_ok[] = {
    /* duplicate names: the last wins, in the first one's place */
    "{\"versions\":{\"1.0.0\":{}},\"versions\":{\"2.0.0\":{\"dist\":{\"tarball\":\"https://r/x.tgz\"}}}}",
    "{\"versions\":{\"1.0.0\":{\"dist\":{\"tarball\":\"https://a/1.tgz\"}},\"2.0.0\":{},"
    "\"1.0.0\":{\"dist\":{\"tarball\":\"https://b/1.tgz\",\"tarball\":\"https://c/1.tgz\"}}}}",
    "{\"versions\":{\"1.0.0\":{\"dependencies\":{\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"},"
    "\"dependencies\":{\"z\":\"1\"},\"dist\":{\"tarball\":\"https://a/1.tgz\"}}}}",
    "{\"name\":\"x\",\"name\":\"y\",\"dist-tags\":{\"latest\":\"1\",\"latest\":\"2\"}}",
    /* escaped names and values */
    "{\"vers\\u0069ons\":{\"1.0.0\":{\"dep\\u0065ndencies\":{\"\\u0061\":\"^1\"},"
    "\"dist\":{\"tarball\":\"https:\\/\\/r\\/a\\\\b\\\"c.tgz\"}}}}",
    "{\"versions\\u0000junk\":{\"1.0.0\":{\"dist\":{\"tarball\":\"https://r/1.tgz\"}}}}",
    "{\"versions\":{\"1.0.0\":{\"deprecated\":\"\\ud800x\",\"dist\":{\"tarball\":\"https://r/\\udc00.tgz\"}},"
    "\"2.0.0\":{\"deprecated\":\"\\ud800\\u0041\\ud83d\\ude00\\u0000end\",\"dist\":{\"tarball\":\"t\"}}}}",
    "{\"versions\":{\"1.0.\\u0030\":{\"deprecated\":\"\\b\\f\\n\\r\\t\"}},\"time\":{\"1.0.0\":\"2024\"}}",
    "{\"readme\":\"\\ud800\",\"x\":\"\\udfff\\ud800\\ud800\",\"versions\":{}}",
    /* UTF-8 both accept, raw */
    "{\"versions\":{\"1.0.0\":{\"deprecated\":\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}},\"d\":\"\xc3\xa9\"}",
    "{\"x\":\"\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80\",\"versions\":{\"1.0.0\":{\"deprecated\":\"\xc0\x80\"}}}",
    /* numbers */
    "{\"x\":18446744073709551616,\"y\":-9223372036854775809,\"z\":1e999,\"w\":-0,\"v\":0.1e-400,"
    "\"versions\":{\"1.0.0\":{\"hasInstallScript\":1,\"deprecated\":123456789012345678901234567890,"
    "\"os\":[1e5,-1.5E+3,\"linux\"],\"engines\":{\"node\":18446744073709551616},"
    "\"dist\":{\"tarball\":\"https://r/1.tgz\",\"fileCount\":99999999999999999999}}}}",
    /* types where objects are expected */
    "{\"versions\":{\"1.0.0\":[1,2],\"2.0.0\":\"s\",\"3.0.0\":null,\"4.0.0\":{\"dist\":[\"t\"],"
    "\"scripts\":\"install\",\"dependencies\":[\"a\"]}}}",
    "{\"versions\":{\"1.0.0\":{\"scripts\":{\"install\":null},\"dist\":{\"tarball\":\"https://r/1.tgz\"}}}}",
    "{\"time\":{\"modified\":7},\"modified\":\"2024-01-01T00:00:00Z\",\"versions\":{}}",
    /* whitespace json-c takes */
    " \t\r\n{ \"versions\" : { } } \n\t\r ",
    "{}",
    "{} \n",
};

static const char *const crafted_fail[] = {
    "{\"versions\":[]}", "{\"dist-tags\":\"x\"}", "{\"name\":1}",
    "null", "null ", "123", "123 ", "true", "false ", "\"s\"", "[]", "[1,2]",
    "{\"error\":\"not_found\",\"reason\":\"missing\"}",
    "{} x", "{}x", "{}{}", "{} ]", "{}\v", "{}\"", "{} \"ab", "{}1", "{}tr", "{}[", "\"s\"\"",
    "{\"a\":1,}", "{1:2}", "[1,]", "{\"a\":nul}", "{\"a\":tru}", "{\"a\":\"\\x\"}",
    "{\"a\":\"\\u12\"}", "{\"a\":1]", "[1}", ":", "]", "/", "{\"a\":/*c*/1}", "{\"a\":-a}",
    "{\"a\" 1}", "{\"a\":1 \"b\":2}",
    "{\"a\":\"\xff\"}", "{\"a\":\"\xc3\"}", "{\"a\":\"\xf8\x88\x80\x80\x80\"}", "{\"\xff\":1}",
    "{\"a\":1}\xc3\xa9",
    "{\"versions\":{\"1.0.0\":{\"deprecated\":\"\xe2\x82\"}}}",
};

/* Refused by both for the same reason, in other words: where json-c's
 * message depends on the state its tokener was in (a \v or \f, a non-ASCII
 * byte outside strings, a number or literal yajl ends earlier). */
static const char *const crafted_fail_worded[] = {
    "{\v}", "{\f\"a\":1}", "\xef\xbb\xbf{}", "{\"a\":\"x\"}\xff", "{\"a\":1.5.}", "{\"a\":True}",
    "{\"a\":01}",
};

static const char *const jsonc_lax[] = {
    "{'a':1}",
    "{\"a\":00}", "{\"a\":-01}", "{\"a\":1.}", "{\"a\":-.5}", "{\"a\":1.e5}", "{\"a\":NaN}",
    "{\"a\":Infinity}", "{\"a\":-Infinity}", "{\"a\":\"a\tb\"}", "{\"versions\":{},\"r\":\"\x01\"}",
};

static void nul_cases(void)
{
    static const struct { const char *s; size_t n; } c[] = {
        { "{}\0x", 4 }, { "{}\0", 3 }, { "{} \0", 4 }, { "{\0}", 3 }, { "\0", 1 },
        { "{\"a\":\"b\0c\"}", 11 }, { "123\0", 4 }, { "true\0", 5 }, { "{\"a\":1\0}", 8 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        compare(c[i].s, c[i].n, "NUL byte", 1);
}

static void truncations(void)
{
    size_t n = strlen(BASE);
    compare(BASE, n, "the base document", 0);
    for (size_t i = 0; i < n; i++) {
        char what[64];
        snprintf(what, sizeof what, "the base document cut at %zu", i);
        compare(BASE, i, what, 1);
    }
}

/* ---- files ---- */

static void compare_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(path, "cannot open");
        return;
    }
    strbuf sb = STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    compare(sb.buf, sb.len, path, -1);
    sb_release(&sb);
}

static void walk(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fail(path, "missing");
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        compare_file(path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        /* packuments: corpus files (no dot) and a fixture tree's packument.* */
        if (e->d_name[0] == '.' ||
            (strchr(e->d_name, '.') && strncmp(e->d_name, "packument.", 10) != 0))
            continue;
        char *sub = xasprintf("%s/%s", path, e->d_name);
        walk(sub);
        free(sub);
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    truncations();
    depth_cases();
    nul_cases();
    for (size_t i = 0; i < sizeof crafted_ok / sizeof crafted_ok[0]; i++)
        compare_s(crafted_ok[i], 0);
    for (size_t i = 0; i < sizeof crafted_fail / sizeof crafted_fail[0]; i++)
        compare_s(crafted_fail[i], 1);
    for (size_t i = 0; i < sizeof crafted_fail_worded / sizeof crafted_fail_worded[0]; i++)
        compare_s(crafted_fail_worded[i], 3);
    for (size_t i = 0; i < sizeof jsonc_lax / sizeof jsonc_lax[0]; i++)
        compare_s(jsonc_lax[i], 2);
    int files_before = compared;
    for (int i = 1; i < argc; i++)
        walk(argv[i]);
    printf("%d comparisons (%d of given documents), %d failures\n", compared,
           compared - files_before, failures);
    return failures ? 1 : 0;
}

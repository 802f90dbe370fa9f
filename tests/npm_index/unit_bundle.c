/* unit_bundle.c — npm_bundle_parse() (indexes/npm/npm_bundle.c): the
 * packages a tarball ships in its node_modules, as npm reads them for its
 * lock's `inBundle` entries, and what a hostile tarball cannot make it do
 * (paths that climb out, links, oversized manifests, a name that is no npm
 * name, damaged archives), and the cache blob read back or refused. The
 * tarballs are made here with libarchive's writer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "npm_index.h"

typedef struct ent {
    const char *path;
    const char *text;   /* NULL: a symlink to "../../x" */
    size_t pad;         /* bytes of spaces appended (size cap tests) */
} ent;

/* A gzip'd ustar of `n` entries, malloc'd, *len its size. */
static unsigned char *tgz(const ent *e, size_t n, size_t *len)
{
    size_t cap = 1u << 22;
    unsigned char *buf = malloc(cap);
    struct archive *a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_ustar(a);
    assert_int_equal(archive_write_open_memory(a, buf, cap, len), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *x = archive_entry_new();
        archive_entry_set_pathname(x, e[i].path);
        archive_entry_set_perm(x, 0644);
        if (!e[i].text) {
            archive_entry_set_filetype(x, AE_IFLNK);
            archive_entry_set_symlink(x, "../../x");
            archive_write_header(a, x);
        } else {
            size_t tl = strlen(e[i].text);
            archive_entry_set_filetype(x, AE_IFREG);
            archive_entry_set_size(x, (la_int64_t)(tl + e[i].pad));
            archive_write_header(a, x);
            archive_write_data(a, e[i].text, tl);
            char sp[4096];
            memset(sp, ' ', sizeof sp);
            for (size_t left = e[i].pad; left;) {
                size_t k = left < sizeof sp ? left : sizeof sp;
                archive_write_data(a, sp, k);
                left -= k;
            }
        }
        archive_entry_free(x);
    }
    archive_write_close(a);
    archive_write_free(a);
    return buf;
}

static npm_bundle *parse_ok(const ent *e, size_t n)
{
    size_t len;
    unsigned char *t = tgz(e, n, &len);
    npm_bundle *b = NULL;
    char *err = NULL;
    int rc = npm_bundle_parse(t, len, &b, &err);
    if (rc != 0)
        fprintf(stderr, "unexpected failure: %s\n", err);
    assert_int_equal(rc, 0);
    free(t);
    return b;
}

#define MAN(name, ver) "{\"name\":\"" name "\",\"version\":\"" ver "\"}"

static void test_tree(void **state)
{
    (void)state;
    const ent e[] = {
        { "package/package.json", MAN("top", "1.0.0"), 0 },
        { "package/node_modules/fs-extra/package.json",
          "{\"name\":\"fs-extra\",\"version\":\"11.3.6\",\"dependencies\":{\"graceful-fs\":\"^4.2.0\","
          "\"jsonfile\":\"^6.0.1\"},\"optionalDependencies\":{\"jsonfile\":\"^6.0.1\"},"
          "\"peerDependencies\":{\"p\":\"*\"},\"peerDependenciesMeta\":{\"p\":{\"optional\":true}}}",
          0 },
        { "package/node_modules/@s/b/package.json", MAN("@s/b", "2.0.0"), 0 },
        { "package/node_modules/@s/b/node_modules/c/package.json", MAN("c", "3.0.0-beta"), 0 },
        /* not packages: a nested non-node_modules manifest, a dot folder, no version */
        { "package/node_modules/c2/dist/esm/package.json", MAN("c2", "1.0.0"), 0 },
        { "package/node_modules/.bin/package.json", MAN("bin", "1.0.0"), 0 },
        { "package/node_modules/nover/package.json", "{\"name\":\"nover\"}", 0 },
        /* an alias folder: the folder is the place, the name the package */
        { "package/node_modules/alias/package.json", MAN("real", "1.2.3"), 0 },
    };
    npm_bundle *b = parse_ok(e, sizeof e / sizeof *e);
    assert_int_equal(b->n, 4);
    assert_string_equal(b->pkgs[0].path, "node_modules/@s/b");
    assert_string_equal(b->pkgs[1].path, "node_modules/@s/b/node_modules/c");
    assert_string_equal(b->pkgs[1].version, "3.0.0-beta");
    assert_string_equal(b->pkgs[2].path, "node_modules/alias");
    assert_string_equal(b->pkgs[2].name, "real");
    const npm_bundled *fx = &b->pkgs[3];
    assert_string_equal(fx->name, "fs-extra");
    assert_int_equal(fx->ndeps, 3);
    /* jsonfile is optional only (optionalDependencies wins) */
    size_t prod = 0, opt = 0, peeropt = 0;
    for (size_t i = 0; i < fx->ndeps; i++) {
        prod += fx->deps[i].kind == NPM_DEP_PROD && !strcmp(fx->deps[i].name, "graceful-fs");
        opt += fx->deps[i].kind == NPM_DEP_OPTIONAL && !strcmp(fx->deps[i].name, "jsonfile");
        peeropt += fx->deps[i].kind == NPM_DEP_PEER_OPTIONAL && !strcmp(fx->deps[i].name, "p");
    }
    assert_int_equal(prod + opt + peeropt, 3);
    npm_bundle_free(b);
}

static void test_hostile_paths(void **state)
{
    (void)state;
    const ent e[] = {
        { "package/node_modules/../../etc/package.json", MAN("etc", "1.0.0"), 0 },
        { "/abs/node_modules/x/package.json", MAN("x", "1.0.0"), 0 },
        { "package/node_modules/./package.json", MAN("dot", "1.0.0"), 0 },
        { "package/node_modules/a/node_modules/../package.json", MAN("up", "1.0.0"), 0 },
        { "package/node_modules//package.json", MAN("empty", "1.0.0"), 0 },
        { "package/node_modules/a\\b/package.json", MAN("bs", "1.0.0"), 0 },
        { "package/node_modules/@scope/package.json", MAN("half", "1.0.0"), 0 },
        { "package/node_modules/link/package.json", NULL, 0 },
        { "package/node_modules/big/package.json", MAN("big", "1.0.0"), 1024 * 1024 + 1 },
        { "package/node_modules/ok/package.json", MAN("ok", "1.0.0"), 1000 },
    };
    npm_bundle *b = parse_ok(e, sizeof e / sizeof *e);
    assert_int_equal(b->n, 1);
    assert_string_equal(b->pkgs[0].path, "node_modules/ok");
    npm_bundle_free(b);
}

static void test_damaged(void **state)
{
    (void)state;
    npm_bundle *b = (npm_bundle *)1;
    char *err = NULL;
    assert_int_equal(npm_bundle_parse((const unsigned char *)"not a tarball", 13, &b, &err), -1);
    assert_null(b);
    assert_non_null(err);
    free(err);
    const ent e[] = { { "package/node_modules/a/package.json", MAN("a", "1.0.0"), 20000 },
                      { "package/node_modules/b/package.json", MAN("b", "1.0.0"), 20000 } };
    size_t len;
    unsigned char *t = tgz(e, 2, &len);
    err = NULL;
    assert_int_equal(npm_bundle_parse(t, len / 2, &b, &err), -1);
    assert_non_null(err);
    free(err);
    free(t);
}

static void test_blob(void **state)
{
    (void)state;
    const ent e[] = { { "package/node_modules/a/package.json",
                        "{\"name\":\"a\",\"version\":\"1.0.0\",\"dependencies\":{\"b\":\"^2\"}}", 0 },
                      { "package/node_modules/a/node_modules/b/package.json", MAN("b", "2.0.0"), 0 } };
    npm_bundle *b = parse_ok(e, 2);
    strbuf sb = STRBUF_INIT;
    npm_bundle_blob_write(b, "sha512-abc", &sb);
    npm_bundle *back = NULL;
    assert_int_equal(npm_bundle_blob_read((unsigned char *)sb.buf, sb.len, "sha512-abc", &back), 0);
    assert_int_equal(back->n, 2);
    assert_string_equal(back->pkgs[0].deps[0].spec, "^2");
    assert_string_equal(back->pkgs[1].path, "node_modules/a/node_modules/b");
    npm_bundle_free(back);
    /* made for another tarball, truncated, or naming a path that climbs out */
    assert_int_equal(npm_bundle_blob_read((unsigned char *)sb.buf, sb.len, "sha512-other", &back), -1);
    assert_int_equal(npm_bundle_blob_read((unsigned char *)sb.buf, sb.len - 3, "sha512-abc", &back), -1);
    char *evil = strdup(sb.buf);
    char *at = strstr(evil, "node_modules/a/node_modules/b");
    assert_non_null(at);
    memcpy(at, "node_modules/a/node_modules/.", 29);
    assert_int_equal(npm_bundle_blob_read((unsigned char *)evil, strlen(evil), "sha512-abc", &back), -1);
    assert_null(back);
    free(evil);
    sb_release(&sb);
    npm_bundle_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_hostile_paths),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_blob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

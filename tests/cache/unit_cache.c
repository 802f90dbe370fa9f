/* unit_cache.c — cmocka tests of cache/'s store (key derivation, atomic
 * writes, corrupt-entry detection, prune), export/import (roundtrip and
 * refusal of tampered archives), mirror rewriting, URL redaction and
 * joining, the table of unreachable hosts, and that a run answered from
 * the cache never loads libcurl. No network: everything works on temporary
 * directories. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>

#include "cache.h"
#include "cache_bg.h"
#include "cache_curl.h"
#include "cache_hosts.h"

#define UNIT_TMP_PREFIX "el-unit-cache"
#include "unit_cache_tmp.h"

static size_t count_files(const char *dir, const char *prefix)
{
    char *cmd = xasprintf("find '%s' -type f -name '%s*' | wc -l", dir, prefix);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    assert_int_equal(fscanf(p, "%zu", &n), 1);
    pclose(p);
    free(cmd);
    return n;
}

static void put(cache_store *s, const char *url, const char *body, bool immutable, int64_t fetched)
{
    el_ctx *ctx = el_ctx_new();
    cache_meta m;
    cache_meta_init(&m);
    m.url = xstrdup(url);
    m.immutable = immutable;
    m.fetched_ms = fetched;
    m.etag = xstrdup("\"e1\"");
    m.content_type = xstrdup("text/html; charset=utf-8");
    char key[65];
    cache_key(url, NULL, key);
    assert_int_equal(cache_store_put(s, ctx, key, &m, body, strlen(body)), EL_OK);
    cache_meta_clear(&m);
    el_ctx_free(ctx);
}

static void test_key(void **state)
{
    char a[65], b[65], c[65], d[65];
    cache_key("https://pypi.org/simple/numpy/", NULL, a);
    cache_key("https://pypi.org/simple/numpy/", "", b);
    cache_key("https://pypi.org/simple/numpy/", "application/vnd.pypi.simple.v1+json", c);
    cache_key("https://pypi.org/simple/numpy", NULL, d);
    assert_int_equal(strlen(a), 64);
    assert_string_equal(a, b);        /* no Accept and an empty one are the same */
    assert_string_not_equal(a, c);    /* the Accept header is part of the key */
    assert_string_not_equal(a, d);    /* URLs are taken byte for byte */
    /* Stable across releases: the key of a known input. */
    char e[65];
    cache_key("x", NULL, e);
    char want[65];
    sha256_hex("GET x\n", 6, want);
    assert_string_equal(e, want);
}

/* The reverse mirror mapping readers use for links in served documents. */
static void test_canonical_url(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    const char *mirrors[] = { "https://pypi.org=http://127.0.0.1:8080/pypi/pypi",
                              "https://pypi.org/files=https://u:pw@files.corp/pf",
                              "https://registry.npmjs.org/=http://127.0.0.1:8080/npm/" };
    el_cache_options o = { 0 };
    o.dir = dir;
    o.mirrors = mirrors;
    o.n_mirrors = 3;
    o.no_mirror_config = true;
    o.quiet = true;
    el_ctx *ctx = el_ctx_new();
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    static const char *const cases[][2] = {
        { "http://127.0.0.1:8080/pypi/pypi/files/a-1.whl", "https://pypi.org/files/a-1.whl" },
        { "http://127.0.0.1:8080/pypi/pypi", "https://pypi.org" },
        /* not at a path boundary: no mapping */
        { "http://127.0.0.1:8080/pypi/pypix/a.whl", "http://127.0.0.1:8080/pypi/pypix/a.whl" },
        /* the longest base wins; the mirror's credentials need not be in the link */
        { "https://files.corp/pf/b-2.whl", "https://pypi.org/files/b-2.whl" },
        { "https://u:pw@files.corp/pf/b-2.whl", "https://pypi.org/files/b-2.whl" },
        { "http://127.0.0.1:8080/npm/zod/-/zod-3.0.0.tgz",
          "https://registry.npmjs.org/zod/-/zod-3.0.0.tgz" },
        /* not a mirror: a copy, credentials removed */
        { "https://cdn.example/x.tgz", "https://cdn.example/x.tgz" },
        { "https://a:b@cdn.example/x.tgz", "https://cdn.example/x.tgz" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = cache_canonical_url(c, cases[i][0]);
        assert_string_equal(got, cases[i][1]);
        free(got);
    }
    char *fw = cache_served_url(c, "https://registry.npmjs.org/zod");
    assert_string_equal(fw, "http://127.0.0.1:8080/npm/zod");
    free(fw);
    fw = cache_served_url(c, "https://example.org/x");
    assert_string_equal(fw, "https://example.org/x");
    free(fw);
    cache_close(c);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* The path of blob `name`'s entry file. */
static char *blob_path(const char *dir, const char *name)
{
    char *url = xasprintf("blob:%s", name);
    char key[65];
    cache_key(url, NULL, key);
    free(url);
    return cache_entry_path(dir, key, NULL);
}

/* A 304 refresh: new header (fetch time, validator), the same body; the
 * header-only rewrite keeps the stored encoded body, and a refresh whose
 * body no longer matches the file (another writer replaced it) writes the
 * whole entry. Either way the entry reads back whole and verified. */
static void test_refresh(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    assert_non_null(s);
    const char *text = "a packument body that is compressed in the store";
    put(s, "https://h/r", text, false, 1000);
    char key[65];
    cache_key("https://h/r", NULL, key);
    for (int round = 0; round < 2; round++) {
        cache_meta m;
        cache_meta_init(&m);
        unsigned char *body;
        size_t len;
        assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
        if (round == 1)
            put(s, "https://h/r", "another writer's body", false, 1500); /* file changed */
        m.fetched_ms = 2000 + round;
        free(m.etag);
        m.etag = xstrdup(round ? "\"e3\"" : "\"e2\"");
        assert_int_equal(cache_store_refresh(s, ctx, key, &m, body, len), EL_OK);
        cache_meta_clear(&m);
        free(body);
        cache_meta_init(&m);
        assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
        assert_int_equal(len, strlen(text));
        assert_memory_equal(body, text, len);
        assert_int_equal(m.fetched_ms, 2000 + round);
        assert_string_equal(m.etag, round ? "\"e3\"" : "\"e2\"");
        cache_meta_clear(&m);
        free(body);
    }
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* A cache on `dir` with no mirrors, no config file and no progress line. */
static cache *open_plain(el_ctx *ctx, const char *dir)
{
    el_cache_options o = { 0 };
    o.dir = dir;
    o.no_mirror_config = true;
    o.quiet = true;
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    return c;
}

/* Raw blobs: read in place through cache_blob_open(), still readable by
 * cache_blob_get(), and any damage (a flipped byte, a torn tail, extra bytes)
 * is caught by the CRC/size check and the entry removed. */
static void test_blob_raw(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache *c = open_plain(ctx, dir);
    size_t n = 300000;
    unsigned char *data = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 7 + i / 251);
    assert_true(cache_blob_put(c, "t/one", data, n));
    size_t len = 0;
    FILE *f = cache_blob_open(c, "t/one", &len);
    assert_non_null(f);
    assert_int_equal(len, n);
    unsigned char *back = xmalloc(n + 1);
    assert_int_equal(fread(back, 1, n + 1, f), n); /* exactly the blob, then EOF */
    assert_memory_equal(back, data, n);
    fclose(f);
    free(back);
    unsigned char *got = NULL;
    assert_true(cache_blob_get(c, "t/one", &got, &len));
    assert_int_equal(len, n);
    assert_memory_equal(got, data, n);
    free(got);
    assert_null(cache_blob_open(c, "t/none", &len));

    /* damage: flip one byte of the body, cut the tail, append a byte */
    char *path = blob_path(dir, "t/one");
    for (int kind = 0; kind < 3; kind++) {
        assert_true(cache_blob_put(c, "t/one", data, n));
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        if (kind == 0) {
            FILE *w = fopen(path, "r+b");
            assert_int_equal(fseek(w, st.st_size - 1000, SEEK_SET), 0);
            int ch = fgetc(w);
            assert_int_equal(fseek(w, st.st_size - 1000, SEEK_SET), 0);
            fputc(ch ^ 0x10, w);
            fclose(w);
        } else if (kind == 1) {
            assert_int_equal(truncate(path, st.st_size - 10), 0);
        } else {
            FILE *w = fopen(path, "ab");
            fputc('x', w);
            fclose(w);
        }
        assert_null(cache_blob_open(c, "t/one", &len));
        assert_int_not_equal(stat(path, &st), 0); /* removed */
        assert_false(cache_blob_get(c, "t/one", &got, &len));
    }
    /* a flipped byte is also caught by the full check (sha256 and crc32) */
    assert_true(cache_blob_put(c, "t/one", data, n));
    FILE *w = fopen(path, "r+b");
    assert_int_equal(fseek(w, -5, SEEK_END), 0);
    fputc('Z', w);
    fclose(w);
    assert_false(cache_blob_get(c, "t/one", &got, &len));

    /* a blob stored compressed (older envlock): not opened in place, but
     * cache_blob_get still serves it */
    cache_store *s = cache_store_open(ctx, dir);
    cache_meta m;
    cache_meta_init(&m);
    m.url = xstrdup("blob:t/old");
    m.immutable = true;
    char key[65];
    cache_key(m.url, NULL, key);
    assert_int_equal(cache_store_put(s, ctx, key, &m, data, n), EL_OK);
    cache_meta_clear(&m);
    cache_store_close(s);
    assert_null(cache_blob_open(c, "t/old", &len));
    assert_true(cache_blob_get(c, "t/old", &got, &len));
    assert_int_equal(len, n);
    free(got);

    free(path);
    free(data);
    cache_close(c);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* The whole text of a small file (NULL if it cannot be read). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return xstrdup(buf);
}

/* Seals of raw blobs: the writer seals a blob; a blob altered in place whose
 * mtime is put back (`touch -d`) no longer matches its seal (the ctime moved)
 * and is caught by the full CRC; a lost seal is rewritten by the next full
 * check, identical; a seal that still matches is trusted (the full CRC is
 * skipped: damage below the kernel is the documented gap). */
static void test_blob_seal(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache *c = open_plain(ctx, dir);
    size_t n = 400000; /* well past the two 64 KiB edges the seal CRCs */
    unsigned char *data = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 13 + i / 509);
    char *path = blob_path(dir, "t/sealed");
    char *seal_path = xasprintf("%s.seal", path);
    size_t len = 0;

    /* written and sealed; opens */
    assert_true(cache_blob_put(c, "t/sealed", data, n));
    char *seal1 = slurp(seal_path);
    assert_non_null(seal1);
    assert_int_equal(strncmp(seal1, "envlock-seal 1 ", 15), 0);
    FILE *f = cache_blob_open(c, "t/sealed", &len);
    assert_non_null(f);
    fclose(f);

    /* a lost seal: the full check passes and writes the same seal again */
    assert_int_equal(unlink(seal_path), 0);
    f = cache_blob_open(c, "t/sealed", &len);
    assert_non_null(f);
    fclose(f);
    char *seal2 = slurp(seal_path);
    assert_non_null(seal2);
    assert_string_equal(seal1, seal2);

    /* altered in the middle, in place, with atime and mtime put back */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    FILE *w = fopen(path, "r+b");
    assert_non_null(w);
    assert_int_equal(fseek(w, st.st_size / 2, SEEK_SET), 0);
    int ch = fgetc(w);
    assert_int_equal(fseek(w, st.st_size / 2, SEEK_SET), 0);
    fputc(ch ^ 0x20, w);
    fclose(w);
    struct timespec times[2] = { st.st_atim, st.st_mtim };
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
    struct stat st2;
    assert_int_equal(stat(path, &st2), 0);
    assert_int_equal(st2.st_size, st.st_size);
    assert_int_equal(st2.st_mtim.tv_sec, st.st_mtim.tv_sec);
    assert_int_equal(st2.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
    assert_null(cache_blob_open(c, "t/sealed", &len)); /* caught */
    assert_int_not_equal(stat(path, &st2), 0);          /* and removed */
    unsigned char *got = NULL;
    assert_false(cache_blob_get(c, "t/sealed", &got, &len));

    /* the same alteration with a seal forged to match the file as it is
     * now: trusted, the body is served as it stands (no full CRC) */
    assert_true(cache_blob_put(c, "t/sealed", data, n));
    char *seal3 = slurp(seal_path);
    assert_non_null(seal3);
    unsigned long long head = 0, tail = 0;
    assert_int_equal(sscanf(seal3, "envlock-seal 1 %*u %*u %*u %*u %*u %*u %*u %llu %llu", &head,
                            &tail), 2);
    assert_int_equal(stat(path, &st), 0);
    w = fopen(path, "r+b");
    assert_non_null(w);
    assert_int_equal(fseek(w, st.st_size / 2, SEEK_SET), 0);
    ch = fgetc(w);
    assert_int_equal(fseek(w, st.st_size / 2, SEEK_SET), 0);
    fputc(ch ^ 0x20, w);
    fclose(w);
    assert_int_equal(stat(path, &st), 0);
    FILE *sw = fopen(seal_path, "wb");
    assert_non_null(sw);
    fprintf(sw, "envlock-seal 1 %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
            (unsigned long long)st.st_size, (unsigned long long)st.st_mtim.tv_sec,
            (unsigned long long)st.st_mtim.tv_nsec, (unsigned long long)st.st_ctim.tv_sec,
            (unsigned long long)st.st_ctim.tv_nsec, (unsigned long long)st.st_dev,
            (unsigned long long)st.st_ino, head, tail);
    fclose(sw);
    f = cache_blob_open(c, "t/sealed", &len);
    assert_non_null(f);
    fclose(f);
    assert_false(cache_blob_get(c, "t/sealed", &got, &len)); /* the sha256 check sees it */

    /* a seal that does not parse is no seal: full check */
    assert_true(cache_blob_put(c, "t/sealed", data, n));
    sw = fopen(seal_path, "wb");
    assert_non_null(sw);
    fputs("envlock-seal 1 12 x\n", sw);
    fclose(sw);
    f = cache_blob_open(c, "t/sealed", &len);
    assert_non_null(f);
    fclose(f);
    char *seal4 = slurp(seal_path);
    assert_non_null(seal4);
    assert_int_equal(strncmp(seal4, "envlock-seal 1 ", 15), 0); /* rewritten */
    assert_null(strstr(seal4, " x"));

    free(seal1);
    free(seal2);
    free(seal3);
    free(seal4);
    free(seal_path);
    free(path);
    free(data);
    cache_close(c);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

static void test_roundtrip_atomic(void **state)
{
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    assert_non_null(s);
    put(s, "https://h/a", "body of a", true, 1000);
    char key[65];
    cache_key("https://h/a", NULL, key);
    cache_meta m;
    cache_meta_init(&m);
    unsigned char *body;
    size_t len;
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
    assert_int_equal(len, 9);
    assert_memory_equal(body, "body of a", 9);
    assert_int_equal(body[len], 0);
    assert_string_equal(m.url, "https://h/a");
    assert_string_equal(m.etag, "\"e1\"");
    assert_string_equal(m.content_type, "text/html; charset=utf-8");
    assert_true(m.immutable);
    assert_int_equal(m.fetched_ms, 1000);
    free(body);
    cache_meta_clear(&m);
    /* The entry lives at v1/<k0k1>/<key>; no temp files remain. */
    char *path = cache_entry_path(dir, key, NULL);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    free(path);
    assert_int_equal(count_files(dir, ".tmp-"), 0);
    /* Overwrite replaces whole. */
    put(s, "https://h/a", "second", true, 2000);
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
    assert_int_equal(len, 6);
    free(body);
    cache_meta_clear(&m);
    /* An aborted writer leaves nothing. */
    cache_writer *w = cache_writer_begin(s, ctx, key);
    assert_true(cache_writer_write(w, "junk", 4));
    cache_writer_abort(w);
    assert_int_equal(count_files(dir, ".tmp-"), 0);
    assert_int_equal(cache_store_get(s, key, &m, NULL, NULL, NULL), CACHE_ENTRY_OK);
    cache_meta_clear(&m);
    /* A missing entry. */
    cache_key("https://h/none", NULL, key);
    assert_int_equal(cache_store_get(s, key, &m, NULL, NULL, NULL), CACHE_ENTRY_MISSING);
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* Writes `data` as the entry file for url. */
static void write_raw(const char *dir, const char *url, const void *data, size_t n)
{
    char key[65];
    cache_key(url, NULL, key);
    char *sub = xasprintf("%s/v1/%.2s", dir, key);
    mkdir(sub, 0777);
    free(sub);
    char *path = cache_entry_path(dir, key, NULL);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    free(path);
}

static void test_corrupt(void **state)
{
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    const char *url = "https://h/c";
    put(s, url, "a body long enough to compress somewhat, somewhat, somewhat", false, 1);
    char key[65];
    cache_key(url, NULL, key);
    char *path = cache_entry_path(dir, key, NULL);
    size_t n;
    unsigned char *good = (unsigned char *)read_file(path, 1 << 20, &n);
    assert_non_null(good);
    struct {
        const char *name;
        size_t cut;      /* keep this many bytes (0: all) */
        long flip;       /* flip the byte at this offset from the end (-1: none) */
        const char *extra;
    } cases[] = {
        { "flipped body byte", 0, 3, NULL },
        { "truncated frame", 1, -1, NULL },
        { "truncated metadata", 30, -1, NULL },
        { "trailing data", 0, -1, "xx" },
        { "bad magic", 0, (long)n, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf sb = STRBUF_INIT;
        size_t keep = cases[i].cut == 1 ? n - 4 : cases[i].cut ? cases[i].cut : n;
        sb_add(&sb, good, keep);
        if (cases[i].flip >= 0)
            sb.buf[n - (size_t)cases[i].flip] ^= 0x55;
        if (cases[i].extra)
            sb_adds(&sb, cases[i].extra);
        write_raw(dir, url, sb.buf, sb.len);
        sb_release(&sb);
        cache_meta m;
        cache_meta_init(&m);
        const char *why = NULL;
        unsigned char *body = NULL;
        size_t len;
        assert_int_equal(cache_store_get(s, key, &m, &body, &len, &why), CACHE_ENTRY_CORRUPT);
        assert_non_null(why);
        assert_null(body);
        /* Removed, never served twice. */
        assert_int_equal(cache_store_get(s, key, &m, NULL, NULL, NULL), CACHE_ENTRY_MISSING);
    }
    /* A valid entry stored under another URL's name. */
    write_raw(dir, "https://h/elsewhere", good, n);
    cache_key("https://h/elsewhere", NULL, key);
    cache_meta m;
    cache_meta_init(&m);
    assert_int_equal(cache_store_get(s, key, &m, NULL, NULL, NULL), CACHE_ENTRY_CORRUPT);
    free(good);
    free(path);
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

static void test_prune(void **state)
{
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    int64_t now = cache_now_ms();
    put(s, "https://h/old-page", "old", false, now - 40LL * 86400 * 1000);
    put(s, "https://h/new-page", "new", false, now);
    put(s, "https://h/old-wheel", "wheel", true, now - 400LL * 86400 * 1000);
    el_cache_options o = { 0 };
    o.dir = dir;
    el_cache_stats st;
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    assert_int_equal(st.immutable, 1);
    assert_int_equal(st.revalidated, 2);
    assert_int_equal(st.body_bytes, 11);
    assert_true(st.bytes > st.body_bytes);
    assert_int_equal(el_cache_prune(ctx, &o, 30, false, &st), EL_OK);
    assert_int_equal(st.entries, 1); /* only the old revalidated page */
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 2);
    assert_int_equal(el_cache_prune(ctx, &o, 30, true, &st), EL_OK);
    assert_int_equal(st.entries, 2);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 0);
    /* A missing directory is an empty cache. */
    o.dir = "/nonexistent/el-cache";
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 0);
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* Seals are not entries: info does not count them, prune removes a blob's
 * seal with the blob (and a seal whose entry is gone), export carries none
 * and import leaves none stale; an imported blob is sealed again by its
 * first full check. */
static void test_prune_seals(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache *c = open_plain(ctx, dir);
    el_cache_options o = { 0 };
    o.dir = dir;
    assert_true(cache_blob_put(c, "t/a", "blob a", 6));
    assert_true(cache_blob_put(c, "t/b", "blob b", 6));
    cache_store *s = cache_store_open(ctx, dir);
    put(s, "https://h/page", "page", false, cache_now_ms());
    cache_store_close(s);
    char *pa = blob_path(dir, "t/a"), *pb = blob_path(dir, "t/b");
    char *sa = xasprintf("%s.seal", pa), *sb = xasprintf("%s.seal", pb);
    assert_int_equal(access(sa, F_OK), 0);
    assert_int_equal(access(sb, F_OK), 0);
    el_cache_stats st;
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 3); /* two blobs and a page; seals are not counted */
    assert_int_equal(st.corrupt, 0);
    assert_int_equal(st.temp_files, 0);

    /* export skips seals; import into a cache whose copy of blob a is
     * sealed replaces the entry and drops the old seal */
    char *arc = xasprintf("%s/x.tar.zst", dir);
    assert_int_equal(el_cache_export(ctx, &o, arc, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    char *cmd = xasprintf("zstd -dcq '%s' | tar -t | grep -c seal", arc);
    FILE *p = popen(cmd, "r");
    int nseal = -1;
    assert_int_equal(fscanf(p, "%d", &nseal), 1);
    pclose(p);
    free(cmd);
    assert_int_equal(nseal, 0);
    char *dst = mkdir_tmp();
    el_cache_options od = o;
    od.dir = dst;
    cache *cd = cache_open(ctx, &od);
    assert_non_null(cd);
    assert_true(cache_blob_put(cd, "t/a", "blob a", 6));
    char *dpa = blob_path(dst, "t/a");
    char *dsa = xasprintf("%s.seal", dpa);
    free(dpa);
    assert_int_equal(access(dsa, F_OK), 0);
    assert_int_equal(el_cache_import(ctx, &od, arc, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    assert_int_not_equal(access(dsa, F_OK), 0); /* the replaced entry's seal is gone */
    assert_int_equal(count_files(dst, "*.seal"), 0);
    size_t len = 0;
    FILE *f = cache_blob_open(cd, "t/a", &len); /* full check, sealed again */
    assert_non_null(f);
    assert_int_equal(len, 6);
    fclose(f);
    assert_int_equal(access(dsa, F_OK), 0);
    assert_int_equal(el_cache_info(ctx, &od, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    cache_close(cd);

    /* a seal whose entry is gone: not counted, removed by prune */
    assert_int_equal(unlink(pb), 0);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 2);
    assert_int_equal(el_cache_prune(ctx, &o, 30, false, &st), EL_OK);
    assert_int_equal(st.entries, 0);
    assert_int_not_equal(access(sb, F_OK), 0);
    assert_int_equal(access(sa, F_OK), 0); /* blob a is kept, and its seal */
    /* prune --all removes the blob and its seal */
    assert_int_equal(el_cache_prune(ctx, &o, 30, true, &st), EL_OK);
    assert_int_equal(st.entries, 2);
    assert_int_not_equal(access(pa, F_OK), 0);
    assert_int_not_equal(access(sa, F_OK), 0);
    assert_int_equal(count_files(dir, "*.seal"), 0);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 0);
    /* a corrupt blob removed by prune takes its seal along */
    assert_true(cache_blob_put(c, "t/a", "blob a", 6));
    assert_int_equal(access(sa, F_OK), 0);
    FILE *w = fopen(pa, "wb");
    assert_non_null(w);
    fputs("not an entry", w);
    fclose(w);
    assert_int_equal(el_cache_prune(ctx, &o, 30, false, &st), EL_OK);
    assert_int_equal(st.corrupt, 1);
    assert_int_not_equal(access(pa, F_OK), 0);
    assert_int_not_equal(access(sa, F_OK), 0);

    cache_close(c);
    el_ctx_free(ctx);
    rm_rf(dir);
    rm_rf(dst);
    free(dsa);
    free(dst);
    free(arc);
    free(pa);
    free(pb);
    free(sa);
    free(sb);
    free(dir);
}

static char *make_cache_with_entries(void)
{
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    put(s, "https://h/p1", "page one", false, cache_now_ms());
    put(s, "https://h/w1", "wheel one", true, cache_now_ms());
    put(s, "https://h/w2", "wheel two", true, cache_now_ms());
    cache_store_close(s);
    el_ctx_free(ctx);
    return dir;
}

static void test_export_import(void **state)
{
    char *src = make_cache_with_entries();
    char *dst = mkdir_tmp();
    char *arc = xasprintf("%s/export.tar.zst", dst);
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    o.dir = src;
    el_cache_stats st;
    assert_int_equal(el_cache_export(ctx, &o, arc, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    /* Deterministic: the same cache exports to the same bytes. */
    char *arc2 = xasprintf("%s/export2.tar.zst", dst);
    assert_int_equal(el_cache_export(ctx, &o, arc2, &st), EL_OK);
    size_t n1, n2;
    char *a1 = read_file(arc, 1 << 24, &n1), *a2 = read_file(arc2, 1 << 24, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a1, a2, n1);
    free(a1);
    free(a2);
    char *into = xasprintf("%s/cache", dst);
    o.dir = into;
    assert_int_equal(el_cache_import(ctx, &o, arc, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    assert_int_equal(st.immutable, 2);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    /* The imported entries are real entries. */
    cache_store *s = cache_store_open(ctx, into);
    char key[65];
    cache_key("https://h/w2", NULL, key);
    cache_meta m;
    cache_meta_init(&m);
    unsigned char *body;
    size_t len;
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
    assert_memory_equal(body, "wheel two", 9);
    free(body);
    cache_meta_clear(&m);
    cache_store_close(s);
    /* No leftovers of the temporary import directory. */
    char *cmd = xasprintf("test -z \"$(ls -A '%s/v1' | grep import)\"", into);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    el_ctx_free(ctx);
    rm_rf(src);
    rm_rf(dst);
    free(src);
    free(dst);
    free(arc);
    free(arc2);
    free(into);
}

/* Copies archive `in` to `out`, letting `edit` change members: it gets the
 * member name and data and may modify it; returning false drops the member.
 * `append` adds one more member (name=data) before the manifest if set. */
typedef bool (*edit_fn)(const char *name, strbuf *data);

static void rewrite_archive(const char *in, const char *out, edit_fn edit, const char *append_name,
                            const char *append_data, bool append_after)
{
    struct archive *r = archive_read_new();
    archive_read_support_filter_zstd(r);
    archive_read_support_format_tar(r);
    assert_int_equal(archive_read_open_filename(r, in, 65536), ARCHIVE_OK);
    struct archive *w = archive_write_new();
    archive_write_add_filter_zstd(w);
    archive_write_set_format_pax_restricted(w);
    assert_int_equal(archive_write_open_filename(w, out), ARCHIVE_OK);
    struct archive_entry *e;
    bool appended = false;
    while (archive_read_next_header(r, &e) == ARCHIVE_OK) {
        const char *name = archive_entry_pathname(e);
        strbuf data = STRBUF_INIT;
        char buf[4096];
        la_ssize_t n;
        while ((n = archive_read_data(r, buf, sizeof buf)) > 0)
            sb_add(&data, buf, (size_t)n);
        bool is_manifest = strcmp(name, "manifest.json") == 0;
        if (append_name && !appended && (is_manifest != append_after)) {
            struct archive_entry *x = archive_entry_new();
            archive_entry_set_pathname(x, append_name);
            archive_entry_set_size(x, (la_int64_t)strlen(append_data));
            archive_entry_set_filetype(x, AE_IFREG);
            archive_entry_set_perm(x, 0644);
            archive_write_header(w, x);
            archive_write_data(w, append_data, strlen(append_data));
            archive_entry_free(x);
            appended = is_manifest || !append_after;
        }
        if (!edit || edit(name, &data)) {
            struct archive_entry *x = archive_entry_new();
            archive_entry_set_pathname(x, name);
            archive_entry_set_size(x, (la_int64_t)data.len);
            archive_entry_set_filetype(x, AE_IFREG);
            archive_entry_set_perm(x, 0644);
            archive_write_header(w, x);
            archive_write_data(w, data.buf, data.len);
            archive_entry_free(x);
        }
        sb_release(&data);
    }
    if (append_name && append_after) {
        struct archive_entry *x = archive_entry_new();
        archive_entry_set_pathname(x, append_name);
        archive_entry_set_size(x, (la_int64_t)strlen(append_data));
        archive_entry_set_filetype(x, AE_IFREG);
        archive_entry_set_perm(x, 0644);
        archive_write_header(w, x);
        archive_write_data(w, append_data, strlen(append_data));
        archive_entry_free(x);
    }
    archive_read_free(r);
    archive_write_close(w);
    archive_write_free(w);
}

static bool flip_first_entry(const char *name, strbuf *data)
{
    static bool done;
    if (!done && strncmp(name, "v1/", 3) == 0) {
        data->buf[data->len - 2] ^= 1;
        done = true;
    }
    return true;
}

static bool drop_manifest(const char *name, strbuf *data)
{
    return strcmp(name, "manifest.json") != 0;
}

static bool drop_one_entry(const char *name, strbuf *data)
{
    static bool done;
    if (!done && strncmp(name, "v1/", 3) == 0) {
        done = true;
        return false;
    }
    return true;
}

/* Rewrites the manifest's first sha256 to match a body we also change: the
 * archive is self-consistent, but the member is no longer a valid entry. */
static char forged_sha[65];
static bool forge_consistent(const char *name, strbuf *data)
{
    static char old_sha[65];
    if (strncmp(name, "v1/", 3) == 0 && !old_sha[0]) {
        sha256_hex(data->buf, data->len, old_sha);
        data->buf[data->len - 2] ^= 1;
        sha256_hex(data->buf, data->len, forged_sha);
    } else if (strcmp(name, "manifest.json") == 0) {
        char *p = strstr(data->buf, old_sha);
        assert_non_null(p);
        memcpy(p, forged_sha, 64);
    }
    return true;
}

static void expect_refused(const char *arc, const char *into)
{
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    o.dir = into;
    el_cache_stats st;
    assert_int_equal(el_cache_import(ctx, &o, arc, &st), EL_POLICY_DENIED);
    char *body = el_ctx_error_json(ctx, false);
    assert_non_null(strstr(body, "\"reason\":\"tampered\""));
    free(body);
    assert_int_equal(st.entries, 0);
    /* Nothing half-imported. */
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.temp_files, 0);
    char *cmd = xasprintf("test -z \"$(ls -A '%s/v1' 2>/dev/null | grep import)\"", into);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    el_ctx_free(ctx);
}

static void test_import_tampered(void **state)
{
    char *src = make_cache_with_entries();
    char *work = mkdir_tmp();
    char *arc = xasprintf("%s/good.tar.zst", work);
    char *bad = xasprintf("%s/bad.tar.zst", work);
    char *into = xasprintf("%s/cache", work);
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    o.dir = src;
    assert_int_equal(el_cache_export(ctx, &o, arc, NULL), EL_OK);
    el_ctx_free(ctx);

    rewrite_archive(arc, bad, flip_first_entry, NULL, NULL, false);
    expect_refused(bad, into);
    rewrite_archive(arc, bad, drop_manifest, NULL, NULL, false);
    expect_refused(bad, into);
    rewrite_archive(arc, bad, drop_one_entry, NULL, NULL, false);
    expect_refused(bad, into);
    rewrite_archive(arc, bad, forge_consistent, NULL, NULL, false);
    expect_refused(bad, into);
    rewrite_archive(arc, bad, NULL, "../../escape", "evil", false);
    expect_refused(bad, into);
    rewrite_archive(arc, bad, NULL,
                    "v1/00/0000000000000000000000000000000000000000000000000000000000000000",
                    "unlisted", false);
    expect_refused(bad, into);
    rewrite_archive(arc, bad, NULL, "v1/extra-after-manifest", "x", true);
    expect_refused(bad, into);
    /* Not an archive at all. */
    FILE *f = fopen(bad, "wb");
    fputs("this is not a tar file", f);
    fclose(f);
    expect_refused(bad, into);
    /* The untouched archive still imports. */
    ctx = el_ctx_new();
    o.dir = into;
    el_cache_stats st;
    assert_int_equal(el_cache_import(ctx, &o, arc, &st), EL_OK);
    assert_int_equal(st.entries, 3);
    /* A missing file is a usage error, not tampering. */
    assert_int_equal(el_cache_import(ctx, &o, "/nonexistent.tar.zst", &st), EL_USAGE);
    el_ctx_free(ctx);
    rm_rf(src);
    rm_rf(work);
    free(src);
    free(work);
    free(arc);
    free(bad);
    free(into);
}

static void test_mirrors(void **state)
{
    el_ctx *ctx = el_ctx_new();
    const char *pairs[] = {
        "https://pypi.org/simple/=http://10.0.0.1/pypi/",
        "https://pypi.org=file:///srv/all",
        "https://pypi.org/simple=https://ignored.example/", /* same canonical: first wins */
    };
    el_cache_options o = { 0 };
    o.mirrors = pairs;
    o.n_mirrors = 3;
    o.no_mirror_config = true;
    cache_mirrors *m = cache_mirrors_load(ctx, &o);
    assert_non_null(m);
    char *u = cache_mirrors_rewrite(m, "https://pypi.org/simple/numpy/");
    assert_string_equal(u, "http://10.0.0.1/pypi/numpy/");
    free(u);
    u = cache_mirrors_rewrite(m, "https://pypi.org/packages/a.whl");
    assert_string_equal(u, "file:///srv/all/packages/a.whl");
    free(u);
    u = cache_mirrors_rewrite(m, "https://pypi.org/simplex");
    assert_string_equal(u, "file:///srv/all/simplex");
    free(u);
    u = cache_mirrors_rewrite(m, "https://pypi.org.evil/simple/x");
    assert_string_equal(u, "https://pypi.org.evil/simple/x");
    free(u);
    u = cache_mirrors_unrewrite(m, "http://10.0.0.1/pypi/numpy/");
    assert_string_equal(u, "https://pypi.org/simple/numpy/");
    free(u);
    cache_mirrors_free(m);
    const char *bad[] = { "ftp://x=https://y" };
    o.mirrors = bad;
    o.n_mirrors = 1;
    assert_null(cache_mirrors_load(ctx, &o));
    assert_int_equal(el_ctx_code(ctx), EL_USAGE);
    el_ctx_free(ctx);
}

static void test_redact(void **state)
{
    char *u = cache_url_redact("https://user:pw@host.example/path@x");
    assert_string_equal(u, "https://host.example/path@x");
    free(u);
    u = cache_url_redact("https://host/p");
    assert_string_equal(u, "https://host/p");
    free(u);
    u = cache_url_redact("file:///tmp/a@b");
    assert_string_equal(u, "file:///tmp/a@b");
    free(u);
}

static void test_default_dir(void **state)
{
    el_cache_options o = { 0 };
    /* the library reads no ENVLOCK_* variable: the CLI passes it as o.dir */
    setenv("ENVLOCK_CACHE_DIR", "/from/env", 1);
    setenv("HOME", "/home/u", 1);
    unsetenv("XDG_CACHE_HOME");
    char *d = cache_default_dir(&o);
    assert_string_equal(d, "/home/u/.cache/envlock");
    free(d);
    o.dir = "/from/option";
    d = cache_default_dir(&o);
    assert_string_equal(d, "/from/option");
    free(d);
    o.dir = NULL;
    unsetenv("ENVLOCK_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    d = cache_default_dir(&o);
    assert_string_equal(d, "/xdg/envlock");
    free(d);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    d = cache_default_dir(&o);
    assert_string_equal(d, "/home/u/.cache/envlock");
    free(d);
}

static void test_blob(void **state)
{
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    o.dir = dir;
    o.no_mirror_config = true;
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    unsigned char *data;
    size_t len;
    assert_false(cache_blob_get(c, "solv/abc", &data, &len));
    assert_true(cache_blob_put(c, "solv/abc", "\0\1\2binary", 9));
    assert_true(cache_blob_get(c, "solv/abc", &data, &len));
    assert_int_equal(len, 9);
    assert_memory_equal(data, "\0\1\2binary", 9);
    free(data);
    cache_close(c);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* cache_url_join() against the strings libcurl's URL API gave for the same
 * pairs (checked once with a differential program over these pairs, from
 * the fixture mirrors' pages and RFC 3986 5.4's examples), except where
 * the join follows RFC 3986 5.2 and libcurl did not: "" and "#s" resolve to
 * the base document (libcurl: its directory), "x?" and "x#" keep their
 * empty query/fragment (libcurl dropped them), and a space in a relative
 * reference's query or fragment is "%20" (libcurl: "+"). */
static void test_url_join(void **state)
{
    static const struct {
        const char *base, *ref, *want;
    } cases[] = {
        { "https://pypi.org/simple/numpy/", "../../files/numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=9c25b374b7c8600b3b60607288d02c8bf536dbf358dcba880cb43bca914bb577",
          "https://pypi.org/files/numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=9c25b374b7c8600b3b60607288d02c8bf536dbf358dcba880cb43bca914bb577" },
        { "https://pypi.org/simple/numpy", "../../files/numpy-1.26.4.tar.gz#sha256=abc",
          "https://pypi.org/files/numpy-1.26.4.tar.gz#sha256=abc" },
        { "https://pypi.org/simple/", "numpy/",
          "https://pypi.org/simple/numpy/" },
        { "https://pypi.org/simple", "numpy/",
          "https://pypi.org/numpy/" },
        { "https://pypi.org/simple/numpy/", "https://files.pythonhosted.org/packages/ab/cd/numpy-2.0.0.tar.gz#sha256=0123",
          "https://files.pythonhosted.org/packages/ab/cd/numpy-2.0.0.tar.gz#sha256=0123" },
        { "https://pypi.org/simple/numpy/", "/packages/ab/cd/numpy-2.0.0.tar.gz",
          "https://pypi.org/packages/ab/cd/numpy-2.0.0.tar.gz" },
        { "https://pypi.org/simple/numpy/", "//files.example.org/a/b.whl",
          "https://files.example.org/a/b.whl" },
        { "https://download.pytorch.org/whl/cpu/torch/", "/whl/cpu/torch-2.0.0%2Bcpu-cp310-cp310-linux_x86_64.whl#sha256=deadbeef",
          "https://download.pytorch.org/whl/cpu/torch-2.0.0%2Bcpu-cp310-cp310-linux_x86_64.whl#sha256=deadbeef" },
        { "https://download.pytorch.org/whl/cpu/torch/", "torch-2.0.0%2Bcpu-cp310-cp310-linux_x86_64.whl",
          "https://download.pytorch.org/whl/cpu/torch/torch-2.0.0%2Bcpu-cp310-cp310-linux_x86_64.whl" },
        { "https://pypi.org/simple/numpy/", "../../files/pkg%20name-1.0.tar.gz",
          "https://pypi.org/files/pkg%20name-1.0.tar.gz" },
        { "https://pypi.org/simple/numpy/", "../../files/pkg-1.0.tar.gz?x=1&y=2#sha256=aa",
          "https://pypi.org/files/pkg-1.0.tar.gz?x=1&y=2#sha256=aa" },
        { "https://pypi.org/simple/numpy/", "?page=2",
          "https://pypi.org/simple/numpy/?page=2" },
        { "https://pypi.org/simple/numpy/", "#frag",
          "https://pypi.org/simple/numpy/#frag" },
        { "https://pypi.org/simple/numpy/", ".",
          "https://pypi.org/simple/numpy/" },
        { "https://pypi.org/simple/numpy/", "..",
          "https://pypi.org/simple/" },
        { "https://pypi.org/simple/numpy/", "./x.whl",
          "https://pypi.org/simple/numpy/x.whl" },
        { "https://pypi.org/simple/numpy/", "../../../../../x.whl",
          "https://pypi.org/x.whl" },
        { "https://pypi.org/simple/numpy/", "a/./b/../c.whl",
          "https://pypi.org/simple/numpy/a/c.whl" },
        { "https://pypi.org/simple/numpy/?q=1", "x.whl",
          "https://pypi.org/simple/numpy/x.whl" },
        { "https://pypi.org/simple/numpy/#f", "x.whl",
          "https://pypi.org/simple/numpy/x.whl" },
        { "http://127.0.0.1:54731/pypi/pypi/simple/numpy/", "../../files/numpy-2.2.6-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=c5ef",
          "http://127.0.0.1:54731/pypi/pypi/files/numpy-2.2.6-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl#sha256=c5ef" },
        { "http://127.0.0.1:54731/pypi/pypi/simple/", "certifi/",
          "http://127.0.0.1:54731/pypi/pypi/simple/certifi/" },
        { "http://user:pw@127.0.0.1:54731/pypi/simple/numpy/", "../../files/x.whl",
          "http://user:pw@127.0.0.1:54731/pypi/files/x.whl" },
        { "http://127.0.0.1:80/simple/numpy/", "x.whl",
          "http://127.0.0.1:80/simple/numpy/x.whl" },
        { "https://pypi.org:443/simple/numpy/", "x.whl",
          "https://pypi.org:443/simple/numpy/x.whl" },
        { "file:///tmp/mirror/pypi/simple/numpy/", "../../files/numpy-1.0.tar.gz#sha256=ab",
          "file:///tmp/mirror/pypi/files/numpy-1.0.tar.gz#sha256=ab" },
        { "file:///tmp/mirror/pypi/simple/", "numpy/",
          "file:///tmp/mirror/pypi/simple/numpy/" },
        { "file:///tmp/mirror/pypi/simple/numpy/index.html", "../../files/a.whl",
          "file:///tmp/mirror/pypi/files/a.whl" },
        { "file:///tmp/mirror%20dir/simple/numpy/", "../../files/a%2Bb.whl",
          "file:///tmp/mirror%20dir/files/a%2Bb.whl" },
        { "file:///tmp/mirror/simple/numpy/", "file:///elsewhere/a.whl",
          "file:///elsewhere/a.whl" },
        { "https://pypi.org/simple/numpy/", "HTTPS://Files.Example.ORG/A/B.whl",
          "https://Files.Example.ORG/A/B.whl" },
        { "https://Pypi.ORG/simple/numpy/", "x.whl",
          "https://Pypi.ORG/simple/numpy/x.whl" },
        { "https://pypi.org/simple/numpy/", "https://files.example.org",
          "https://files.example.org/" },
        { "https://pypi.org/simple/numpy/", "https://files.example.org/a/../b/./c.whl",
          "https://files.example.org/b/c.whl" },
        { "https://pypi.org/simple/numpy/", "../../files/a~b.whl",
          "https://pypi.org/files/a~b.whl" },
        { "https://pypi.org/simple/numpy/", "../../files/a%7Eb.whl",
          "https://pypi.org/files/a%7Eb.whl" },
        { "https://pypi.org/simple/numpy/", "../../files/a%2fb.whl",
          "https://pypi.org/files/a%2fb.whl" },
        { "https://pypi.org/simple/numpy/", "../../files/caf%C3%A9-1.0.tar.gz",
          "https://pypi.org/files/caf%C3%A9-1.0.tar.gz" },
        { "https://pypi.org/simple/numpy/", "../../files/a=b;c,d@e.whl",
          "https://pypi.org/files/a=b;c,d@e.whl" },
        { "https://pypi.org/simple/numpy/", "../../files/a.whl#sha256=ab&md5=cd",
          "https://pypi.org/files/a.whl#sha256=ab&md5=cd" },
        { "https://pypi.org/simple/numpy/", "../../files/a.whl#egg=a%20b",
          "https://pypi.org/files/a.whl#egg=a%20b" },
        { "https://pypi.org/simple/numpy/", "x.whl?a=%2F&b=c+d",
          "https://pypi.org/simple/numpy/x.whl?a=%2F&b=c+d" },
        { "https://pypi.org/simple/numpy/", "//host",
          "https://host/" },
        { "https://pypi.org/a/b/c/d;p?q", "g",
          "https://pypi.org/a/b/c/g" },
        { "https://pypi.org/a/b/c/d;p?q", "./g",
          "https://pypi.org/a/b/c/g" },
        { "https://pypi.org/a/b/c/d;p?q", "g/",
          "https://pypi.org/a/b/c/g/" },
        { "https://pypi.org/a/b/c/d;p?q", "/g",
          "https://pypi.org/g" },
        { "https://pypi.org/a/b/c/d;p?q", "?y",
          "https://pypi.org/a/b/c/d;p?y" },
        { "https://pypi.org/a/b/c/d;p?q", "g?y",
          "https://pypi.org/a/b/c/g?y" },
        { "https://pypi.org/a/b/c/d;p?q", "#s",
          "https://pypi.org/a/b/c/d;p?q#s" },
        { "https://pypi.org/a/b/c/d;p?q", "g#s",
          "https://pypi.org/a/b/c/g#s" },
        { "https://pypi.org/a/b/c/d;p?q", "g?y#s",
          "https://pypi.org/a/b/c/g?y#s" },
        { "https://pypi.org/a/b/c/d;p?q", ";x",
          "https://pypi.org/a/b/c/;x" },
        { "https://pypi.org/a/b/c/d;p?q", "g;x",
          "https://pypi.org/a/b/c/g;x" },
        { "https://pypi.org/a/b/c/d;p?q", "",
          "https://pypi.org/a/b/c/d;p?q" },
        { "https://pypi.org/a/b/c/d;p?q", "../..",
          "https://pypi.org/a/" },
        { "https://pypi.org/a/b/c/d;p?q", "../../g",
          "https://pypi.org/a/g" },
        { "https://pypi.org/a/b/c/d;p?q", "../../../g",
          "https://pypi.org/g" },
        { "https://pypi.org/a/b/c/d;p?q", "/./g",
          "https://pypi.org/g" },
        { "https://pypi.org/a/b/c/d;p?q", "g.",
          "https://pypi.org/a/b/c/g." },
        { "https://pypi.org/a/b/c/d;p?q", "..g",
          "https://pypi.org/a/b/c/..g" },
        { "https://pypi.org/a/b/c/d;p?q", "./../g",
          "https://pypi.org/a/b/g" },
        { "https://pypi.org/a/b/c/d;p?q", "g/./h",
          "https://pypi.org/a/b/c/g/h" },
        { "https://pypi.org/a/b/c/d;p?q", "g;x=1/../y",
          "https://pypi.org/a/b/c/y" },
        { "https://registry.npmjs.org/express", "https://registry.npmjs.org/express/-/express-5.0.0.tgz",
          "https://registry.npmjs.org/express/-/express-5.0.0.tgz" },
        { "https://pypi.org/simple/numpy/", "../../files/a b.whl",
          "https://pypi.org/files/a%20b.whl" },
        { "https://pypi.org/simple/numpy/", "x.whl#",
          "https://pypi.org/simple/numpy/x.whl#" },
        { "https://pypi.org/simple/numpy/", "x.whl?",
          "https://pypi.org/simple/numpy/x.whl?" },
        { "https://pypi.org/simple/numpy/", "http:x.whl",
          NULL },
        { "https://pypi.org", "x.whl",
          "https://pypi.org/x.whl" },
        { "https://pypi.org", "/x/../y",
          "https://pypi.org/y" },
        { "file:///tmp/m/simple/numpy/", "/abs/file.whl",
          "file:///abs/file.whl" },
        { "file:///tmp/m/simple/numpy/", "../../files/numpy-1.0-py3-none-any.whl#sha256=0011",
          "file:///tmp/m/files/numpy-1.0-py3-none-any.whl#sha256=0011" },
        /* a fragment may not contain '#' (RFC 3986 3.5): no URL */
        { "https://pypi.org/simple/numpy/", "../../files/a.whl#sha256=ab#cd",
          NULL },
        { "https://pypi.org/simple/numpy/", "https://user:p%40ss@files.example.org/a.whl",
          "https://user:p%40ss@files.example.org/a.whl" },
        { "http://[::1]:8080/simple/numpy/", "../x.whl",
          "http://[::1]:8080/simple/x.whl" },
        { "https://pypi.org/simple/numpy/", "https://files.example.org/a b.whl",
          NULL },
        { "https://pypi.org/simple/numpy/", "../a\tb.whl",
          NULL },
        { "https://pypi.org/sim ple/numpy/", "x.whl",
          NULL },
        { "https://pypi.org/simple/numpy/", "x y.whl?a b#c d",
          "https://pypi.org/simple/numpy/x%20y.whl?a%20b#c%20d" },

    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = cache_url_join(cases[i].base, cases[i].ref);
        bool ok = cases[i].want ? got && strcmp(got, cases[i].want) == 0 : !got;
        if (!ok) {
            print_message("join(%s, %s) = %s, want %s\n", cases[i].base, cases[i].ref,
                          got ? got : "NULL", cases[i].want ? cases[i].want : "NULL");
            bad++;
        }
        free(got);
    }
    assert_int_equal(bad, 0);
    assert_null(cache_url_join("not a url", "x"));
    assert_null(cache_url_join("relative/base/", "x"));
}

/* A cache hit and an offline miss are answered without loading libcurl
 * (checked only when nothing else in this process has it loaded). */
static void test_hit_no_curl(void **state)
{
    void *pre = dlopen(CACHE_CURL_SONAME, RTLD_NOW | RTLD_NOLOAD);
    if (pre) {
        dlclose(pre);
        skip();
    }
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    assert_non_null(s);
    put(s, "https://idx.example/simple/a/", "<html>a</html>", true, cache_now_ms());
    cache_store_close(s);
    el_cache_options o = { 0 };
    o.dir = dir;
    o.no_mirror_config = true;
    o.offline = true;
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    cache_request rq = { 0 };
    rq.url = "https://idx.example/simple/a/";
    rq.policy = CACHE_REVALIDATE;
    unsigned char *body = NULL;
    size_t len = 0;
    assert_int_equal(cache_fetch(c, ctx, &rq, &body, &len), EL_OK);
    assert_string_equal((char *)body, "<html>a</html>");
    free(body);
    rq.url = "https://idx.example/simple/missing/";
    assert_int_equal(cache_fetch(c, ctx, &rq, &body, &len), EL_PACKAGE_NOT_FOUND);
    void *h = dlopen(CACHE_CURL_SONAME, RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    assert_null(h);
    cache_close(c);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* The background writer (cache_bg.c): every entry queued is on disk,
 * whole and under its key, once the writer is freed, past the queue's
 * byte bound (ten bodies of 10 MiB, each different); a hashed entry keeps
 * the caller's sha256; a lock handed over is released. */
static void test_bg_writer(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    assert_non_null(s);
    cache_bg *bg = cache_bg_new(s);
    enum { N = 10 };
    size_t len = (size_t)10 << 20;
    char keys[N][65];
    bool busy = false;
    for (int i = 0; i < N; i++) {
        char *url = xasprintf("https://bg.example/%d", i);
        cache_key(url, NULL, keys[i]);
        unsigned char *body = xmalloc(len);
        memset(body, 'a' + i, len);
        body[0] = (unsigned char)i;
        cache_meta m;
        cache_meta_init(&m);
        m.url = url;
        m.status = 200;
        m.fetched_ms = cache_now_ms();
        bool hashed = i % 2 == 0;
        if (hashed)
            sha256_hex(body, len, m.sha256);
        int fd = -1;
        if (i == 3) {
            fd = cache_store_lock(s, keys[i], &busy);
            assert_true(fd >= 0);
        }
        cache_bg_put(bg, keys[i], &m, body, len, fd, hashed);
        assert_null(m.url); /* taken */
    }
    cache_bg_free(bg);
    int again = cache_store_lock(s, keys[3], &busy);
    assert_true(again >= 0);
    assert_false(busy);
    cache_store_unlock(again);
    for (int i = 0; i < N; i++) {
        cache_meta m;
        cache_meta_init(&m);
        unsigned char *got = NULL;
        size_t n = 0;
        assert_int_equal(cache_store_get(s, keys[i], &m, &got, &n, NULL), CACHE_ENTRY_OK);
        assert_int_equal(n, len);
        assert_int_equal(got[0], i);
        assert_int_equal(got[len - 1], 'a' + i);
        char want[65];
        sha256_hex(got, n, want);
        assert_string_equal(m.sha256, want);
        free(got);
        cache_meta_clear(&m);
    }
    cache_bg_free(NULL);
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* Per-entry locks: a second taker of a key finds it busy (in the same
 * process too: a crawl may ask for one URL twice), another key is free,
 * and unlocking frees the key; no file per entry is made. */
/* A file placed as an entry on a fresh cache (no entry written yet, so no
 * shard directory): linked, not copied, under the entry's name. */
static void test_place_file(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    assert_non_null(s);
    char *src = xasprintf("%s/artifact.whl", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs("wheel bytes\n", f);
    fclose(f);
    char key[65];
    cache_key("https://files.example/a.whl", NULL, key);
    assert_int_equal(cache_store_place_file(s, key, src), 0);
    char *entry = cache_entry_path(dir, key, CACHE_FILE_SUFFIX);
    struct stat a, b;
    assert_int_equal(stat(src, &a), 0);
    assert_int_equal(stat(entry, &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    assert_int_equal(cache_store_place_file(s, key, src), 0); /* again: replaced */
    free(entry);
    free(src);
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

static void test_entry_lock(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    assert_non_null(s);
    char a[65], b[65];
    cache_key("https://lock.example/a", NULL, a);
    cache_key("https://lock.example/b", NULL, b);
    bool busy = true;
    int fa = cache_store_lock(s, a, &busy);
    assert_true(fa >= 0);
    assert_false(busy);
    assert_int_equal(cache_store_lock(s, a, &busy), -1);
    assert_true(busy);
    int fb = cache_store_lock(s, b, &busy);
    assert_true(fb >= 0);
    cache_store_unlock(fa);
    fa = cache_store_lock(s, a, &busy);
    assert_true(fa >= 0);
    cache_store_unlock(fa);
    cache_store_unlock(fb);
    char *per_entry = cache_entry_path(dir, a, ".lock");
    assert_int_not_equal(access(per_entry, F_OK), 0);
    free(per_entry);
    cache_store_close(s);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* cache_defer() within a run: the work runs on another thread, its done
 * on the run's thread before cache_run() returns, and a request the done
 * submits is fetched by the same run; outside a run both run at once. */
typedef struct defer_state {
    pthread_t main;
    bool off_main;       /* the work ran on another thread */
    bool done_on_main;
    size_t len;          /* the body's length, as the work measured it */
    char *body;          /* the first response's body, taken */
    int fetched;         /* responses with code EL_OK */
    char *second_url;
} defer_state;

static void defer_work(void *user)
{
    defer_state *d = user;
    d->off_main = !pthread_equal(pthread_self(), d->main);
    d->len = strlen(d->body);
}

static void defer_fetched(cache *c, cache_response *r, void *user);

static void defer_done(cache *c, void *user)
{
    defer_state *d = user;
    d->done_on_main = pthread_equal(pthread_self(), d->main);
    if (d->second_url) {
        cache_request rq = { 0 };
        rq.url = d->second_url;
        rq.policy = CACHE_REVALIDATE;
        rq.done = defer_fetched;
        rq.user = d;
        cache_submit(c, &rq);
        d->second_url = NULL;
    }
}

static void defer_fetched(cache *c, cache_response *r, void *user)
{
    defer_state *d = user;
    if (r->code != EL_OK)
        return;
    d->fetched++;
    if (d->fetched == 1) {
        size_t n = 0;
        unsigned char *b = cache_response_take_body(r, &n);
        d->body = xmalloc(n + 1);
        memcpy(d->body, b, n);
        d->body[n] = '\0';
        free(b);
        cache_defer(c, defer_work, defer_done, d);
    }
}

static void test_defer(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    char *a = xasprintf("%s/a.txt", dir), *b = xasprintf("%s/b.txt", dir);
    const char *step = NULL;
    assert_int_equal(file_write_atomic(a, "first body", 10, &step), 0);
    assert_int_equal(file_write_atomic(b, "second", 6, &step), 0);
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    char *cdir = xasprintf("%s/cache", dir);
    o.dir = cdir;
    o.no_mirror_config = true;
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    defer_state d = { .main = pthread_self() };
    char *ua = xasprintf("file://%s", a);
    d.second_url = xasprintf("file://%s", b);
    char *second = d.second_url;
    cache_request rq = { 0 };
    rq.url = ua;
    rq.policy = CACHE_REVALIDATE;
    rq.done = defer_fetched;
    rq.user = &d;
    cache_submit(c, &rq);
    assert_int_equal(cache_run(c, ctx), EL_OK);
    assert_true(d.off_main);
    assert_true(d.done_on_main);
    assert_int_equal(d.len, 10);
    assert_int_equal(d.fetched, 2);
    /* outside a run: at once, on this thread */
    d.off_main = true;
    d.done_on_main = false;
    cache_defer(c, defer_work, defer_done, &d);
    assert_false(d.off_main);
    assert_true(d.done_on_main);
    cache_close(c);
    el_ctx_free(ctx);
    free(d.body);
    free(second);
    free(ua);
    free(a);
    free(b);
    free(cdir);
    rm_rf(dir);
    free(dir);
}

/* The table of unreachable hosts: one request probes a host, the others
 * wait; a host reached is forgotten, one given up on stays down; a prober
 * that ends without a verdict lets the next one try. Keyed by scheme, host
 * (case-insensitive) and port. */
static void test_hosts(void **state)
{
    (void)state;
    cache_hosts *h = cache_hosts_new();
    int a, b;
    const cache_host_down *d = NULL;
    const char *u = "http://Mirror.example:8080/simple/x/";
    assert_int_equal(cache_hosts_state(h, u, &a, &d), CACHE_HOST_UNKNOWN);
    cache_hosts_probe(h, u, &a);
    assert_int_equal(cache_hosts_state(h, u, &a, &d), CACHE_HOST_UNKNOWN); /* its own probe */
    assert_int_equal(cache_hosts_state(h, "http://mirror.example:8080/y", &b, &d), CACHE_HOST_PROBED);
    assert_int_equal(cache_hosts_state(h, "http://mirror.example/y", &b, &d), CACHE_HOST_UNKNOWN);
    assert_int_equal(cache_hosts_state(h, "https://mirror.example:8080/y", &b, &d), CACHE_HOST_UNKNOWN);
    cache_hosts_reached(h, "http://mirror.example:8080/z");
    assert_int_equal(cache_hosts_state(h, u, &b, &d), CACHE_HOST_UNKNOWN);
    cache_hosts_probe(h, u, &a);
    cache_hosts_release(h, &a);
    assert_int_equal(cache_hosts_state(h, u, &b, &d), CACHE_HOST_UNKNOWN);
    cache_hosts_probe(h, u, &b);
    char text[] = "Could not resolve host: mirror.example";
    cache_host_down down = { "dns", text, 2, true };
    cache_hosts_give_up(h, u, &down);
    text[0] = 'X'; /* copied */
    assert_int_equal(cache_hosts_state(h, u, &b, &d), CACHE_HOST_DOWN);
    assert_string_equal(d->reason, "dns");
    assert_string_equal(d->text, "Could not resolve host: mirror.example");
    assert_int_equal(d->attempts, 2);
    cache_hosts_reached(h, u); /* a down host stays down */
    cache_hosts_release(h, &b);
    assert_int_equal(cache_hosts_state(h, u, &a, &d), CACHE_HOST_DOWN);
    assert_int_equal(cache_hosts_state(h, "file:///srv/mirror/", &a, &d), CACHE_HOST_UNKNOWN);
    cache_hosts_probe(h, "file:///srv/mirror/", &a);
    assert_int_equal(cache_hosts_state(h, "file:///srv/mirror/", &b, &d), CACHE_HOST_UNKNOWN);
    cache_hosts_free(h);
    cache_hosts_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_roundtrip_atomic),
        cmocka_unit_test(test_canonical_url),
        cmocka_unit_test(test_blob_raw),
        cmocka_unit_test(test_blob_seal),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_prune_seals),
        cmocka_unit_test(test_export_import),
        cmocka_unit_test(test_import_tampered),
        cmocka_unit_test(test_mirrors),
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_default_dir),
        cmocka_unit_test(test_blob),
        cmocka_unit_test(test_url_join),
        cmocka_unit_test(test_refresh),
        cmocka_unit_test(test_hit_no_curl),
        cmocka_unit_test(test_bg_writer),
        cmocka_unit_test(test_entry_lock),
        cmocka_unit_test(test_place_file),
        cmocka_unit_test(test_defer),
        cmocka_unit_test(test_hosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

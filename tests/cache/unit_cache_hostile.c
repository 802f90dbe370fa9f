/* unit_cache_hostile.c — cmocka tests of the cache against hostile or
 * broken local input: an entry whose zstd frame claims gigabytes, a FIFO
 * where an entry belongs, staging directories left by killed imports, and
 * signed archives (a forged archive that the manifest alone accepts is
 * refused by --verify). Archives bombs that need a crafted tar+zstd stream
 * are in cache_archive.py. No network; temporary directories only. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>

#include "cache.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define UNIT_TMP_PREFIX "el-unit-hostile"
#include "unit_cache_tmp.h"

static void put(cache_store *s, const char *url, const char *body, bool immutable)
{
    el_ctx *ctx = el_ctx_new();
    cache_meta m;
    cache_meta_init(&m);
    m.url = xstrdup(url);
    m.immutable = immutable;
    m.fetched_ms = cache_now_ms();
    char key[65];
    cache_key(url, NULL, key);
    assert_int_equal(cache_store_put(s, ctx, key, &m, body, strlen(body)), EL_OK);
    cache_meta_clear(&m);
    el_ctx_free(ctx);
}

/* ---- a frame that claims 3 GiB ---- */

#define GIB3 ((uint64_t)3 << 30)

/* Appends a zstd frame that declares `declared` bytes of content (an
 * 8-byte Frame_Content_Size, a 128 KiB window) and holds `blocks` RLE
 * blocks of 128 KiB of 'x' (the last one marked last): a real frame whose
 * true content is blocks * 128 KiB. */
static void rle_frame(strbuf *out, uint64_t declared, unsigned blocks)
{
    static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    sb_add(out, magic, 4);
    sb_addc(out, (char)0xc0); /* FCS 8 bytes, not single segment, no checksum */
    sb_addc(out, (char)0x38); /* window 2^17 */
    for (int i = 0; i < 8; i++)
        sb_addc(out, (char)(unsigned char)(declared >> (8 * i)));
    for (unsigned b = 0; b < blocks; b++) {
        uint32_t h = (uint32_t)(128u << 10) << 3 | 1u << 1 | (b + 1 == blocks ? 1u : 0u);
        sb_addc(out, (char)(h & 0xff));
        sb_addc(out, (char)((h >> 8) & 0xff));
        sb_addc(out, (char)((h >> 16) & 0xff));
        sb_addc(out, 'x');
    }
}

/* The bytes of an entry file for `url` whose metadata records `size` and
 * whose body is the given frame. */
static void bomb_entry(strbuf *out, const char *url, uint64_t size, unsigned blocks, char key[65])
{
    cache_key(url, NULL, key);
    sb_addf(out,
            "envlock-cache 1\n{\"url\":\"%s\",\"max_age\":-1,\"fetched_ms\":1,\"immutable\":true,"
            "\"size\":%llu,\"sha256\":\"%064d\"}\n",
            url, (unsigned long long)size, 0);
    rle_frame(out, GIB3, blocks);
}

/* Runs fn in a child whose address space is capped at 1 GiB (not under
 * ASan, whose shadow memory needs far more): an allocation of the 3 GiB a
 * frame claims aborts the child, so the test fails instead of passing
 * after taking 3 GiB. Returns the child's exit status. */
static int in_small_child(void (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!UNDER_ASAN) {
            struct rlimit rl = { (rlim_t)1 << 30, (rlim_t)1 << 30 };
            setrlimit(RLIMIT_AS, &rl);
        }
        fn(arg);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void check_bomb_entries(void *arg)
{
    (void)arg;
    char key[65];
    unsigned char *body = NULL;
    size_t len = 0;
    /* 16 KB of file: 4 blocks (512 KiB real), metadata and frame agree on 3 GiB */
    strbuf e = STRBUF_INIT;
    bomb_entry(&e, "https://h/bomb", GIB3, 4, key);
    if (e.len > 16384)
        _exit(2);
    const char *why = cache_entry_check((const unsigned char *)e.buf, e.len, key, NULL, &body, &len);
    if (!why || body)
        _exit(3);
    /* without a body wanted (prune, export, import): the same answer */
    if (!cache_entry_check((const unsigned char *)e.buf, e.len, key, NULL, NULL, NULL))
        _exit(4);
    sb_release(&e);
    /* the frame claims 3 GiB, the metadata 512 KiB: refused before decoding */
    strbuf f = STRBUF_INIT;
    bomb_entry(&f, "https://h/bomb2", 512u << 10, 4, key);
    why = cache_entry_check((const unsigned char *)f.buf, f.len, key, NULL, &body, &len);
    if (!why || strcmp(why, "size mismatch") != 0)
        _exit(5);
    sb_release(&f);
    _exit(0);
}

static void test_frame_bomb(void **state)
{
    (void)state;
    assert_int_equal(in_small_child(check_bomb_entries, NULL), 0);
    /* Through the store: the entry is corrupt, removed, never served. */
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    char key[65];
    strbuf e = STRBUF_INIT;
    bomb_entry(&e, "https://h/bomb", GIB3, 4, key);
    char *sub = xasprintf("%s/v1/%.2s", dir, key);
    mkdir(sub, 0777);
    char *path = cache_entry_path(dir, key, NULL);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(e.buf, 1, e.len, f), e.len);
    fclose(f);
    cache_meta m;
    cache_meta_init(&m);
    unsigned char *body = NULL;
    size_t len = 0;
    const char *why = NULL;
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, &why), CACHE_ENTRY_CORRUPT);
    assert_non_null(why);
    assert_null(body);
    assert_int_not_equal(access(path, F_OK), 0);
    /* A genuine body past the plausible ratio still reads: 80 MiB of one
     * byte is a ~2 KB frame, proven by streaming and then allocated. */
    size_t big = (size_t)80 << 20;
    char *x = xmalloc(big + 1);
    memset(x, 'x', big);
    x[big] = '\0';
    put(s, "https://h/big", x, true);
    cache_key("https://h/big", NULL, key);
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
    assert_int_equal(len, big);
    assert_memory_equal(body, x, big);
    free(body);
    free(x);
    cache_meta_clear(&m);
    cache_store_close(s);
    el_ctx_free(ctx);
    sb_release(&e);
    free(sub);
    free(path);
    rm_rf(dir);
    free(dir);
}

/* ---- a FIFO where an entry belongs ---- */

static void test_fifo_entry(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    put(s, "https://h/page", "page", false);
    char key[65];
    cache_key("https://h/page", NULL, key);
    char *path = cache_entry_path(dir, key, NULL);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0644), 0);
    /* read: corrupt (never opened for a blocking read), and removed */
    cache_meta m;
    cache_meta_init(&m);
    unsigned char *body = NULL;
    size_t len = 0;
    const char *why = NULL;
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, &why), CACHE_ENTRY_CORRUPT);
    assert_string_equal(why, "not a regular file");
    assert_int_not_equal(access(path, F_OK), 0);
    /* the fast raw read too */
    assert_int_equal(mkfifo(path, 0644), 0);
    cache_entry_state st;
    why = NULL;
    assert_null(cache_store_open_raw(s, key, &len, &st, &why));
    assert_int_equal(st, CACHE_ENTRY_CORRUPT);
    assert_string_equal(why, "not a regular file");
    assert_int_not_equal(access(path, F_OK), 0);
    /* info counts one as corrupt, prune removes it */
    assert_int_equal(mkfifo(path, 0644), 0);
    el_cache_options o = { 0 };
    o.dir = dir;
    el_cache_stats cs;
    assert_int_equal(el_cache_info(ctx, &o, &cs), EL_OK);
    assert_int_equal(cs.corrupt, 1);
    assert_int_equal(el_cache_prune(ctx, &o, 30, false, &cs), EL_OK);
    assert_int_equal(cs.corrupt, 1);
    assert_int_not_equal(access(path, F_OK), 0);
    /* export skips it; the archive named by a FIFO is refused, not waited on */
    assert_int_equal(mkfifo(path, 0644), 0);
    char *arc = xasprintf("%s/a.tar.zst", dir);
    assert_int_equal(el_cache_export(ctx, &o, arc, &cs), EL_OK);
    assert_int_equal(cs.entries, 0);
    char *fifo_arc = xasprintf("%s/fifo.tar.zst", dir);
    assert_int_equal(mkfifo(fifo_arc, 0644), 0);
    assert_int_equal(el_cache_import(ctx, &o, fifo_arc, &cs), EL_USAGE);
    free(arc);
    free(fifo_arc);
    cache_store_close(s);
    el_ctx_free(ctx);
    free(path);
    rm_rf(dir);
    free(dir);
}

/* ---- file:// URLs that name no ordinary file ---- */

static el_code fetch_local(cache *c, el_ctx *ctx, const char *url, uint64_t max,
                           const char *sha, const char *sink)
{
    cache_request rq = { .url = url, .policy = CACHE_IMMUTABLE, .max_bytes = max,
                         .sha256 = sha, .sink = sink };
    unsigned char *body = NULL;
    size_t len = 0;
    el_code rc = cache_fetch(c, ctx, &rq, &body, &len);
    free(body);
    return rc;
}

static bool reason_is(el_ctx *ctx, const char *reason)
{
    char *js = el_ctx_error_json(ctx, false);
    char *want = xasprintf("\"reason\":\"%s\"", reason);
    bool ok = strstr(js, want) != NULL;
    if (!ok)
        fprintf(stderr, "error: %s\n", js);
    free(want);
    el_free(js);
    return ok;
}

/* A FIFO is never opened (it would block past every time limit), a device
 * such as /dev/zero never read (it never ends), a file over the cap never
 * read, in memory or into a sink; and a hash mismatch of a local file says
 * nothing of the file's hash (an oracle for whoever chose the URL). */
static void test_local_not_regular(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    char *cdir = xasprintf("%s/cache", dir);
    o.dir = cdir;
    o.no_mirror_config = true;
    o.quiet = true;
    cache *c = cache_open(ctx, &o);
    assert_non_null(c);
    alarm(60); /* a FIFO opened for reading would hang here */
    char *fifo = xasprintf("%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    char *url = xasprintf("file://%s", fifo);
    assert_int_equal(fetch_local(c, ctx, url, 0, NULL, NULL), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "bad_url"));
    free(url);
    assert_int_equal(fetch_local(c, ctx, "file:///dev/zero", 0, NULL, NULL), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "bad_url"));
    char *sink = xasprintf("%s/out.whl", dir);
    assert_int_equal(fetch_local(c, ctx, "file:///dev/zero", 0,
                                 "0000000000000000000000000000000000000000000000000000000000000000",
                                 sink), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "bad_url"));
    assert_int_not_equal(access(sink, F_OK), 0);
    /* a symbolic link to a device is the device */
    char *link = xasprintf("%s/zero.whl", dir);
    assert_int_equal(symlink("/dev/zero", link), 0);
    url = xasprintf("file://%s", link);
    assert_int_equal(fetch_local(c, ctx, url, 0, NULL, NULL), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "bad_url"));
    free(url);
    /* over the cap: refused before it is read */
    char *big = xasprintf("%s/big", dir);
    FILE *f = fopen(big, "wb");
    assert_non_null(f);
    fputs("secret-bytes-of-a-local-file\n", f);
    fclose(f);
    url = xasprintf("file://%s", big);
    assert_int_equal(fetch_local(c, ctx, url, 8, NULL, NULL), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "too_large"));
    /* a wrong hash: the message gives the expected hash, never the file's */
    char real[65];
    sha256_hex("secret-bytes-of-a-local-file\n", 29, real);
    const char *want = "1111111111111111111111111111111111111111111111111111111111111111";
    assert_int_equal(fetch_local(c, ctx, url, 0, want, NULL), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "hash_mismatch"));
    assert_non_null(strstr(el_ctx_message(ctx), want));
    assert_null(strstr(el_ctx_message(ctx), real));
    assert_int_equal(fetch_local(c, ctx, url, 0, want, sink), EL_PACKAGE_NOT_FOUND);
    assert_true(reason_is(ctx, "hash_mismatch"));
    assert_null(strstr(el_ctx_message(ctx), real));
    /* and the right hash reads it */
    assert_int_equal(fetch_local(c, ctx, url, 0, real, NULL), EL_OK);
    alarm(0);
    free(url);
    free(big);
    free(link);
    free(sink);
    free(fifo);
    cache_close(c);
    free(cdir);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* The link rule every reader applies (cache_link_allowed()). */
static void test_link_rule(void **state)
{
    (void)state;
    assert_true(cache_link_allowed("https://pypi.org/simple/a/", "https://files.example/a.whl"));
    assert_true(cache_link_allowed("http://127.0.0.1:8080/simple/a/", "HTTP://h/a.whl"));
    assert_false(cache_link_allowed("https://pypi.org/simple/a/", "file:///etc/shadow"));
    assert_false(cache_link_allowed("http://127.0.0.1/simple/a/", "FILE:///dev/zero"));
    assert_false(cache_link_allowed("https://registry.npmjs.org/", "ftp://h/a.tgz"));
    assert_true(cache_link_allowed("file:///srv/mirror/simple/a/", "file:///srv/mirror/a.whl"));
    assert_true(cache_link_allowed("file:///srv/mirror/simple/a/", "https://h/a.whl"));
    assert_false(cache_link_allowed(NULL, "https://h/a.whl"));
}

/* ---- staging left by a killed import ---- */

/* Makes <dir>/v1/.import-<name> holding `bytes` bytes, with a .lock file
 * unless `no_lock`; back-dated by `age` seconds. */
static char *make_staging(const char *dir, const char *name, size_t bytes, bool no_lock, int age)
{
    char *p = xasprintf("%s/v1/.import-%s", dir, name);
    assert_int_equal(mkdir(p, 0755), 0);
    char *member = xasprintf("%s/%064d", p, 7);
    FILE *f = fopen(member, "wb");
    assert_non_null(f);
    char buf[4096] = { 0 };
    for (size_t i = 0; i < bytes; i += sizeof buf)
        fwrite(buf, 1, bytes - i < sizeof buf ? bytes - i : sizeof buf, f);
    fclose(f);
    char *lock = xasprintf("%s/.lock", p);
    if (!no_lock) {
        int fd = open(lock, O_RDWR | O_CREAT, 0644);
        assert_true(fd >= 0);
        close(fd);
    }
    struct timeval tv[2];
    gettimeofday(&tv[0], NULL);
    tv[0].tv_sec -= age;
    tv[1] = tv[0];
    if (!no_lock)
        assert_int_equal(utimes(lock, tv), 0);
    assert_int_equal(utimes(member, tv), 0);
    assert_int_equal(utimes(p, tv), 0);
    free(member);
    free(lock);
    return p;
}

static void test_stale_staging(void **state)
{
    (void)state;
    char *dir = mkdir_tmp();
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, dir);
    put(s, "https://h/page", "page", false);
    cache_store_close(s);
    char *dead = make_staging(dir, "dead01", 100000, false, 7200);
    char *old = make_staging(dir, "nolock", 5000, true, 7200);
    char *live = make_staging(dir, "live01", 3000, false, 7200);
    char *young = make_staging(dir, "young1", 1000, false, 0);
    /* "live": another process holds its lock (a separate open file
     * description conflicts like another process would) */
    char *live_lock = xasprintf("%s/.lock", live);
    int hold = open(live_lock, O_RDWR);
    assert_true(hold >= 0);
    assert_int_equal(flock(hold, LOCK_EX | LOCK_NB), 0);

    el_cache_options o = { 0 };
    o.dir = dir;
    el_cache_stats st;
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.staging, 4);
    assert_int_equal(st.staging_bytes, 109000);
    /* prune removes the dead and the lockless old one, never the live or
     * the young one */
    assert_int_equal(el_cache_prune(ctx, &o, 30, false, &st), EL_OK);
    assert_int_equal(st.staging, 2);
    assert_int_equal(st.staging_bytes, 105000);
    assert_int_not_equal(access(dead, F_OK), 0);
    assert_int_not_equal(access(old, F_OK), 0);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(young, F_OK), 0);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.staging, 2);
    assert_int_equal(st.entries, 1);

    /* an import sweeps dead staging too, and leaves none of its own */
    free(make_staging(dir, "dead02", 2000, false, 7200));
    char *arc = xasprintf("%s/x.tar.zst", dir);
    assert_int_equal(el_cache_export(ctx, &o, arc, NULL), EL_OK);
    assert_int_equal(el_cache_import(ctx, &o, arc, &st), EL_OK);
    assert_int_equal(st.entries, 1);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.staging, 2); /* live and young */
    assert_int_equal(access(live, F_OK), 0);
    /* once its holder is gone, the live one is dead too */
    close(hold);
    assert_int_equal(el_cache_prune(ctx, &o, 30, false, &st), EL_OK);
    assert_int_equal(st.staging, 1);
    assert_int_not_equal(access(live, F_OK), 0);
    assert_int_equal(access(young, F_OK), 0);

    free(arc);
    free(live_lock);
    free(dead);
    free(old);
    free(live);
    free(young);
    el_ctx_free(ctx);
    rm_rf(dir);
    free(dir);
}

/* ---- signed archives ---- */

static bool have_openssl(void)
{
    return system("openssl version >/dev/null 2>&1") == 0;
}

static void genkey(const char *dir, const char *name)
{
    char *cmd = xasprintf("cd '%s' && openssl genpkey -algorithm ed25519 -out %s.pem 2>/dev/null && "
                          "openssl pkey -in %s.pem -pubout -out %s.pub.pem 2>/dev/null",
                          dir, name, name, name);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

/* Rewrites archive `in` into `out`: the member for `url` becomes a valid
 * entry with body `body`, and the manifest lists its new sha256 and size:
 * a consistent forgery, which only a signature can tell. */
static const char *forge_url, *forge_body;

static void forge_archive(const char *in, const char *out)
{
    char key[65], old_sha[65] = "", new_sha[65] = "";
    size_t old_size = 0, new_size = 0;
    cache_key(forge_url, NULL, key);
    struct archive *r = archive_read_new();
    archive_read_support_filter_zstd(r);
    archive_read_support_format_tar(r);
    assert_int_equal(archive_read_open_filename(r, in, 65536), ARCHIVE_OK);
    struct archive *w = archive_write_new();
    archive_write_add_filter_zstd(w);
    archive_write_set_format_pax_restricted(w);
    assert_int_equal(archive_write_open_filename(w, out), ARCHIVE_OK);
    struct archive_entry *e;
    while (archive_read_next_header(r, &e) == ARCHIVE_OK) {
        char *name = xstrdup(archive_entry_pathname(e));
        strbuf data = STRBUF_INIT;
        char buf[4096];
        la_ssize_t n;
        while ((n = archive_read_data(r, buf, sizeof buf)) > 0)
            sb_add(&data, buf, (size_t)n);
        if (strstr(name, key)) {
            sha256_hex(data.buf, data.len, old_sha);
            old_size = data.len;
            cache_meta m;
            cache_meta_init(&m);
            m.url = xstrdup(forge_url);
            m.immutable = true;
            m.fetched_ms = 1;
            strbuf ent = STRBUF_INIT;
            cache_entry_encode(&m, forge_body, strlen(forge_body), &ent);
            cache_meta_clear(&m);
            sb_release(&data);
            data = ent;
            sha256_hex(data.buf, data.len, new_sha);
            new_size = data.len;
        } else if (strcmp(name, "manifest.json") == 0) {
            assert_true(old_sha[0]);
            char *p = strstr(data.buf, old_sha);
            assert_non_null(p);
            memcpy(p, new_sha, 64);
            char *from = xasprintf("\"size\":%zu", old_size), *to = xasprintf("\"size\":%zu", new_size);
            strbuf fixed = STRBUF_INIT;
            char *q = strstr(p, "\"size\"");
            if (!q || strncmp(q, from, strlen(from)) != 0) {
                /* pretty printing puts a space after the colon */
                free(from);
                free(to);
                from = xasprintf("\"size\": %zu", old_size);
                to = xasprintf("\"size\": %zu", new_size);
            }
            q = strstr(p, from);
            assert_non_null(q);
            sb_add(&fixed, data.buf, (size_t)(q - data.buf));
            sb_adds(&fixed, to);
            sb_adds(&fixed, q + strlen(from));
            sb_release(&data);
            data = fixed;
            free(from);
            free(to);
        }
        struct archive_entry *x = archive_entry_new();
        archive_entry_set_pathname(x, name);
        archive_entry_set_size(x, (la_int64_t)data.len);
        archive_entry_set_filetype(x, AE_IFREG);
        archive_entry_set_perm(x, 0644);
        assert_int_equal(archive_write_header(w, x), ARCHIVE_OK);
        assert_int_equal(archive_write_data(w, data.buf, data.len), (la_ssize_t)data.len);
        archive_entry_free(x);
        sb_release(&data);
        free(name);
    }
    archive_read_free(r);
    assert_int_equal(archive_write_close(w), ARCHIVE_OK);
    archive_write_free(w);
}

static void expect_policy(const char *arc, const char *into, const char *key, const char *reason)
{
    el_ctx *ctx = el_ctx_new();
    el_cache_options o = { 0 };
    o.dir = into;
    el_cache_stats st;
    assert_int_equal(el_cache_import_verified(ctx, &o, arc, key, &st), EL_POLICY_DENIED);
    char *body = el_ctx_error_json(ctx, false);
    char *want = xasprintf("\"reason\":\"%s\"", reason);
    if (!strstr(body, want))
        fail_msg("%s: %s", want, body);
    free(want);
    free(body);
    assert_int_equal(st.entries, 0);
    assert_int_equal(el_cache_info(ctx, &o, &st), EL_OK);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.staging, 0);
    el_ctx_free(ctx);
}

static void test_signed_archive(void **state)
{
    (void)state;
    if (!have_openssl())
        skip();
    char *src = mkdir_tmp();
    char *work = mkdir_tmp();
    genkey(work, "a");
    genkey(work, "b");
    char *priv_a = xasprintf("%s/a.pem", work), *pub_a = xasprintf("%s/a.pub.pem", work);
    char *pub_b = xasprintf("%s/b.pub.pem", work);
    el_ctx *ctx = el_ctx_new();
    cache_store *s = cache_store_open(ctx, src);
    put(s, "https://h/w1", "wheel one", true);
    put(s, "https://h/p1", "page one", false);
    cache_store_close(s);
    el_cache_options o = { 0 };
    o.dir = src;
    el_cache_stats st;
    char *signed_arc = xasprintf("%s/signed.tar.zst", work);
    char *plain_arc = xasprintf("%s/plain.tar.zst", work);
    char *forged_arc = xasprintf("%s/forged.tar.zst", work);
    assert_int_equal(el_cache_export_signed(ctx, &o, signed_arc, priv_a, &st), EL_OK);
    assert_int_equal(st.entries, 2);
    assert_int_equal(el_cache_export(ctx, &o, plain_arc, NULL), EL_OK);
    /* deterministic: Ed25519 signatures are */
    char *again = xasprintf("%s/again.tar.zst", work);
    assert_int_equal(el_cache_export_signed(ctx, &o, again, priv_a, NULL), EL_OK);
    size_t n1, n2;
    char *b1 = read_file(signed_arc, 1 << 24, &n1), *b2 = read_file(again, 1 << 24, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    /* signing needs a private key; a public one is a usage error, nothing written */
    char *nowhere = xasprintf("%s/nowhere.tar.zst", work);
    assert_int_equal(el_cache_export_signed(ctx, &o, nowhere, pub_a, NULL), EL_USAGE);
    assert_int_not_equal(access(nowhere, F_OK), 0);
    assert_int_equal(el_cache_export_signed(ctx, &o, nowhere, "/nonexistent.pem", NULL), EL_USAGE);

    /* the right key: imported */
    char *into = xasprintf("%s/c1", work);
    o.dir = into;
    assert_int_equal(el_cache_import_verified(ctx, &o, signed_arc, pub_a, &st), EL_OK);
    assert_int_equal(st.entries, 2);
    /* the private key file verifies too */
    assert_int_equal(el_cache_import_verified(ctx, &o, signed_arc, priv_a, &st), EL_OK);
    /* without --verify, signed and unsigned archives import as before */
    char *into2 = xasprintf("%s/c2", work);
    o.dir = into2;
    assert_int_equal(el_cache_import(ctx, &o, signed_arc, &st), EL_OK);
    assert_int_equal(el_cache_import(ctx, &o, plain_arc, &st), EL_OK);
    assert_int_equal(st.entries, 2);

    /* refused, nothing half-imported: another key, no signature, a forgery */
    char *into3 = xasprintf("%s/c3", work);
    expect_policy(signed_arc, into3, pub_b, "bad_signature");
    expect_policy(plain_arc, into3, pub_a, "unsigned");
    forge_url = "https://h/w1";
    forge_body = "forged wheel";
    forge_archive(signed_arc, forged_arc);
    expect_policy(forged_arc, into3, pub_a, "bad_signature");
    /* what an unsigned check cannot see: the consistent forgery imports */
    char *into4 = xasprintf("%s/c4", work);
    o.dir = into4;
    assert_int_equal(el_cache_import(ctx, &o, forged_arc, &st), EL_OK);
    s = cache_store_open(ctx, into4);
    char key[65];
    cache_key("https://h/w1", NULL, key);
    cache_meta m;
    cache_meta_init(&m);
    unsigned char *body;
    size_t len;
    assert_int_equal(cache_store_get(s, key, &m, &body, &len, NULL), CACHE_ENTRY_OK);
    assert_memory_equal(body, "forged wheel", len);
    free(body);
    cache_meta_clear(&m);
    cache_store_close(s);
    /* a key file that is not a key */
    assert_int_equal(el_cache_import_verified(ctx, &o, signed_arc, signed_arc, &st), EL_USAGE);

    el_ctx_free(ctx);
    rm_rf(src);
    rm_rf(work);
    free(src);
    free(work);
    free(priv_a);
    free(pub_a);
    free(pub_b);
    free(signed_arc);
    free(plain_arc);
    free(forged_arc);
    free(again);
    free(nowhere);
    free(into);
    free(into2);
    free(into3);
    free(into4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_bomb),
        cmocka_unit_test(test_fifo_entry),
        cmocka_unit_test(test_local_not_regular),
        cmocka_unit_test(test_link_rule),
        cmocka_unit_test(test_stale_staging),
        cmocka_unit_test(test_signed_archive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

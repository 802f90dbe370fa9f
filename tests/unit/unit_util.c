/* unit_util.c — the error table and context, strbuf, arena, ptrvec, UTF-8
 * validation, edit distance, the SHA-256 helper, read_file() on what is
 * not a regular file, and the streaming atomic write (file_stream_*,
 * file_link_atomic, file_sha256). */
#define _GNU_SOURCE /* O_TMPFILE */
#include <fcntl.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "util.h"

static void code_table(void **state)
{
    (void)state;
    assert_string_equal(el_code_name(EL_SPEC_INVALID), "DL_ENV_SPEC_INVALID");
    assert_string_equal(el_code_name(EL_PUBLICATION_BLOCKED), "DL_ENV_PUBLICATION_BLOCKED");
    assert_string_equal(el_code_name((el_code)999), "INTERNAL");
    assert_int_equal(el_code_from_name("DL_ENV_PROVIDER_ERROR"), EL_PROVIDER_ERROR);
    assert_int_equal(el_code_from_name("DL_ENV_NOPE"), EL_CODE_COUNT);
    /* Every code round-trips and has a distinct exit status. */
    int seen[256] = { 0 };
    for (int c = 0; c < EL_CODE_COUNT; c++) {
        assert_int_equal(el_code_from_name(el_code_name((el_code)c)), c);
        int st = el_code_exit_status((el_code)c);
        assert_true(st >= 0 && st < 256);
        assert_int_equal(seen[st], 0);
        seen[st] = 1;
        assert_true(strlen(el_code_user_action((el_code)c)) > 0);
    }
    /* The seed's retry column. */
    assert_int_equal(el_code_retry(EL_SPEC_INVALID), EL_RETRY_NO);
    assert_int_equal(el_code_retry(EL_BUILD_TIMEOUT), EL_RETRY_YES);
    assert_int_equal(el_code_retry(EL_QUOTA_EXCEEDED), EL_RETRY_LATER);
    assert_int_equal(el_code_retry(EL_PACKAGE_NOT_FOUND), EL_RETRY_SOMETIMES);
    assert_int_equal(el_code_retry(EL_BUILD_SECRET_UNAVAILABLE), EL_RETRY_SOMETIMES);
    assert_int_equal(el_code_retry(EL_ARTIFACT_MISSING), EL_RETRY_YES);
    assert_int_equal(el_code_retry(EL_PROVIDER_ERROR), EL_RETRY_YES);
    assert_int_equal(el_code_exit_status(EL_OK), 0);
    assert_int_equal(el_code_exit_status(EL_USAGE), 2);
    assert_int_equal(el_code_exit_status(EL_SPEC_INVALID), 10);
    assert_int_equal(el_code_exit_status(EL_INTERNAL), 70);
    assert_int_equal(el_code_exit_status(EL_IO), 74);
    assert_string_equal(el_code_name(EL_IO), "IO_ERROR");
    assert_int_equal(el_code_retry(EL_IO), EL_RETRY_SOMETIMES);
}

/* el_fail_io(): a full disk may clear, a wrong path does not. */
static void io_failures(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    json_object *v;
    assert_int_equal(el_fail_io(ctx, ENOSPC, "cannot write %s", "x"), EL_IO);
    assert_int_equal(el_ctx_code(ctx), EL_IO);
    assert_string_equal(el_ctx_message(ctx), "cannot write x");
    assert_true(el_ctx_retryable(ctx));
    assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "errno", &v));
    assert_string_equal(json_object_get_string(v), "ENOSPC");
    static const int fixed[] = { EACCES, EROFS, ENOENT, ENOTDIR, EISDIR, EFBIG };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        el_fail_io(ctx, fixed[i], "no");
        assert_false(el_ctx_retryable(ctx));
        assert_true(json_object_object_get_ex(el_ctx_detail(ctx), "errno", &v));
    }
    el_fail_io(ctx, 0, "no errno");
    assert_false(el_ctx_retryable(ctx));
    assert_false(json_object_object_get_ex(el_ctx_detail(ctx), "errno", &v));
    el_ctx_free(ctx);
}

/* read_file() reads regular files only, and refuses the rest at once: a FIFO
 * without a writer (the open must not wait for one), a directory, a device
 * that never ends. Run in a child with an alarm, so that a regression fails
 * instead of hanging the suite. */
static void read_file_kinds(void **state)
{
    (void)state;
    char dir[] = "/tmp/el_util_read_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *fifo = xasprintf("%s/fifo", dir), *reg = xasprintf("%s/file", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(reg, "w");
    assert_non_null(f);
    fputs("0123456789", f);
    fclose(f);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        size_t len = 99;
        int bad = 0;
        errno = 0;
        if (read_file(fifo, 1 << 20, &len) || errno != EINVAL)
            bad |= 1;
        if (strcmp(file_strerror(EINVAL), "not a regular file") != 0)
            bad |= 2;
        errno = 0;
        if (read_file(dir, 1 << 20, &len) || errno != EISDIR)
            bad |= 4;
        errno = 0;
        if (read_file("/dev/zero", (size_t)1 << 40, &len) || errno != EINVAL)
            bad |= 8;
        errno = 0;
        if (read_file(reg, 9, &len) || errno != EFBIG) /* refused from its size */
            bad |= 16;
        char *t = read_file(reg, 10, &len);
        if (!t || len != 10 || strcmp(t, "0123456789") != 0)
            bad |= 32;
        free(t);
        _exit(bad);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    unlink(fifo);
    unlink(reg);
    rmdir(dir);
    free(fifo);
    free(reg);
}

static void ctx_failures(void **state)
{
    (void)state;
    el_ctx *ctx = el_ctx_new();
    assert_int_equal(el_ctx_code(ctx), EL_OK);
    assert_string_equal(el_ctx_message(ctx), "");
    assert_int_equal(el_fail(ctx, EL_PACKAGE_NOT_FOUND, "`%s` is not in any index", "nmupy"),
                     EL_PACKAGE_NOT_FOUND);
    assert_false(el_ctx_retryable(ctx)); /* SOMETIMES defaults to false */
    el_set_retryable(ctx, true);
    assert_true(el_ctx_retryable(ctx));
    el_detail_str(ctx, "package", "nmupy");
    el_detail_int(ctx, "attempts", 3);
    char *body = el_ctx_error_json(ctx, false);
    json_object *o = json_tokener_parse(body);
    assert_non_null(o);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "code", &v));
    assert_string_equal(json_object_get_string(v), "DL_ENV_PACKAGE_NOT_FOUND");
    assert_true(json_object_object_get_ex(o, "retryable", &v));
    assert_true(json_object_get_boolean(v));
    assert_true(json_object_object_get_ex(o, "userAction", &v));
    assert_string_equal(json_object_get_string(v),
                        "Check the name, the version, or the index allowlist");
    assert_true(json_object_object_get_ex(o, "detail", &v));
    json_object *pkg;
    assert_true(json_object_object_get_ex(v, "package", &pkg));
    assert_string_equal(json_object_get_string(pkg), "nmupy");
    json_object_put(o);
    el_free(body);

    /* A reason with its own advice (util/reasons.def) replaces the code's;
     * one without keeps the code's. */
    el_fail(ctx, EL_PACKAGE_NOT_FOUND, "cannot fetch");
    el_detail_str(ctx, "reason", "tls");
    assert_ptr_equal(el_ctx_user_action(ctx), el_reason_user_action("tls"));
    assert_non_null(strstr(el_ctx_user_action(ctx), "--cert FILE"));
    body = el_ctx_error_json(ctx, false);
    assert_non_null(strstr(body, "--cert FILE"));
    el_free(body);
    el_detail_str(ctx, "reason", "no_such_reason");
    assert_null(el_reason_user_action("no_such_reason"));
    assert_string_equal(el_ctx_user_action(ctx), el_code_user_action(EL_PACKAGE_NOT_FOUND));
    el_detail_int(ctx, "reason", 4);
    assert_string_equal(el_ctx_user_action(ctx), el_code_user_action(EL_PACKAGE_NOT_FOUND));

    /* A fixed flag cannot be contradicted. */
    el_fail(ctx, EL_BUILD_TIMEOUT, "slow");
    assert_true(el_ctx_retryable(ctx));
    el_set_retryable(ctx, false);
    assert_true(el_ctx_retryable(ctx));
    /* A new failure replaces the detail. */
    el_fail(ctx, EL_SPEC_INVALID, "x");
    assert_null(json_object_object_get(el_ctx_detail(ctx), "package"));
    el_ctx_clear(ctx);
    assert_int_equal(el_ctx_code(ctx), EL_OK);
    el_ctx_free(ctx);
    el_ctx_free(NULL);
}

static void strbuf_invariants(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    assert_non_null(sb.buf);
    assert_string_equal(sb.buf, "");
    sb_setlen(&sb, 0); /* harmless on the shared empty string */
    for (int i = 0; i < 1000; i++)
        sb_addf(&sb, "%d,", i % 10);
    assert_int_equal(sb.len, 2000);
    assert_int_equal(sb.buf[sb.len], '\0');
    sb_setlen(&sb, 3);
    assert_string_equal(sb.buf, "0,1");
    size_t len;
    char *s = sb_detach(&sb, &len);
    assert_int_equal(len, 3);
    assert_string_equal(s, "0,1");
    assert_string_equal(sb.buf, "");
    free(s);
    char *e = sb_detach(&sb, NULL); /* detaching an empty buffer gives a fresh "" */
    assert_string_equal(e, "");
    free(e);
    sb_adds(&sb, "x");
    sb_release(&sb);
    assert_int_equal(sb.len, 0);
}

static void arena_and_vec(void **state)
{
    (void)state;
    arena *a = arena_new();
    char *big = arena_alloc(a, 200000);
    assert_int_equal(((uintptr_t)big) % 16, 0);
    assert_int_equal(big[199999], 0);
    for (int i = 0; i < 10000; i++) {
        char *s = arena_sprintf(a, "n%d", i);
        assert_int_equal(((uintptr_t)s) % 16, 0);
        assert_true(strncmp(s, "n", 1) == 0);
    }
    assert_string_equal(arena_strndup(a, "abcdef", 3), "abc");
    arena_free(a);
    arena_free(NULL);
    ptrvec v = PTRVEC_INIT;
    for (intptr_t i = 0; i < 100; i++)
        ptrvec_push(&v, (void *)i);
    assert_int_equal(v.len, 100);
    assert_ptr_equal(v.items[42], (void *)42);
    ptrvec_release(&v);
}

static void text_helpers(void **state)
{
    (void)state;
    assert_true(utf8_valid("caf\xc3\xa9", 5));
    assert_false(utf8_valid("\xc0\xaf", 2));         /* overlong */
    assert_false(utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    assert_false(utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
    assert_false(utf8_valid("\xe2\x82", 2));         /* truncated */
    assert_true(utf8_valid("\xf0\x9f\x98\x80", 4));
    assert_int_equal(edit_distance("packges", "packages"), 1);
    assert_int_equal(edit_distance("pakcages", "packages"), 1); /* transposition */
    assert_int_equal(edit_distance("", "abc"), 3);
    static const char *const opts[] = { "--upgrade", "--upgrade-package", "--exclude-newer",
                                        "--explain", "--offline" };
    assert_string_equal(el_closest_name("--ofline", opts, 5), "--offline");
    assert_string_equal(el_closest_name("--upgrade-pkg", opts, 5), "--upgrade-package");
    assert_null(el_closest_name("--ex", opts, 5));   /* two abbreviations: no guess */
    assert_null(el_closest_name("--zzzz", opts, 5)); /* nothing close */
    assert_null(el_closest_name("x", opts, 0));
    char hex[65];
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* How many entries of `dir` start with `prefix`. */
static int count_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void file_streaming(void **state)
{
    (void)state;
    char dir[] = "/tmp/el_util_stream_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = xasprintf("%s/out", dir), *link2 = xasprintf("%s/link", dir);
    int err = -1;
    const char *step = NULL;
    /* aborted: nothing at path, no temp file */
    file_stream *s = file_stream_begin(path, &err);
    assert_non_null(s);
    assert_int_equal(file_stream_write(s, "ab", 2), 0);
    file_stream_abort(s);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(count_prefix(dir, "out.tmp-"), 0);
    /* committed in pieces: the bytes, and their sha256 (FIPS 180-2's "abc") */
    s = file_stream_begin(path, &err);
    assert_int_equal(file_stream_write(s, "a", 1), 0);
    assert_int_equal(file_stream_write(s, "bc", 2), 0);
    assert_int_equal(file_stream_size(s), 3);
    /* until commit the bytes have no name where the filesystem has
     * O_TMPFILE, so a run killed here leaves nothing in the directory */
    int probe = open(dir, O_TMPFILE | O_WRONLY, 0600);
    if (probe >= 0) {
        close(probe);
        assert_int_equal(count_prefix(dir, "out"), 0);
    }
    assert_int_equal(file_stream_commit(s, &step), 0);
    assert_int_equal(count_prefix(dir, "out.tmp-"), 0);
    char hex[65];
    uint64_t size = 0;
    assert_int_equal(file_sha256(path, hex, &size), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(size, 3);
    assert_true(file_holds(path, "abc", 3));
    /* a hard link, atomically over an existing file */
    assert_int_equal(file_write_atomic(link2, "old", 3, &step), 0);
    assert_int_equal(file_link_atomic(path, link2, false, &step), 0);
    struct stat a, b;
    assert_int_equal(stat(path, &a), 0);
    assert_int_equal(stat(link2, &b), 0);
    assert_true(a.st_ino == b.st_ino);
    assert_int_equal(count_prefix(dir, "link.tmp-"), 0);
    /* no such source: the errno, the old file untouched */
    char *none = xasprintf("%s/none", dir);
    assert_int_equal(file_link_atomic(none, link2, true, &step), ENOENT);
    assert_true(file_holds(link2, "abc", 3));
    assert_int_equal(file_sha256(none, hex, NULL), ENOENT);
    assert_int_equal(file_sha256(dir, hex, NULL), EINVAL);
    /* a temp file that cannot be made */
    char *nodir = xasprintf("%s/no/such", dir);
    assert_null(file_stream_begin(nodir, &err));
    assert_int_equal(err, ENOENT);
    unlink(path);
    unlink(link2);
    rmdir(dir);
    free(nodir);
    free(none);
    free(path);
    free(link2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(code_table),      cmocka_unit_test(ctx_failures),
        cmocka_unit_test(strbuf_invariants), cmocka_unit_test(arena_and_vec),
        cmocka_unit_test(text_helpers),    cmocka_unit_test(io_failures),
        cmocka_unit_test(read_file_kinds), cmocka_unit_test(file_streaming),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

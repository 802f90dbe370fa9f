/* unit_apt_index.c — cmocka tests of the apt reader's parsers: sources.list
 * lines (good and bad), Release text (folded SHA256 lists, dates, missing
 * fields, malformed lines), apt dates, clearsigned framing, blob names. No
 * network, no gpgv. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apt_index.h"

/* ---- sources ---- */

static void test_source_plain(void **state)
{
    (void)state;
    arena *a = arena_new();
    apt_source s;
    char *err = NULL;
    assert_int_equal(deb_source_parse("  deb http://deb.debian.org/debian bookworm main contrib  ", a, &s,
                                      &err), 0);
    assert_string_equal(s.uri, "http://deb.debian.org/debian/");
    assert_string_equal(s.suite, "bookworm");
    assert_int_equal(s.n_components, 2);
    assert_string_equal(s.components[1], "contrib");
    assert_false(s.flat);
    assert_false(s.trusted);
    assert_int_equal(s.check_valid_until, -1);
    assert_null(s.signed_by);
    arena_free(a);
}

static void test_source_options(void **state)
{
    (void)state;
    arena *a = arena_new();
    apt_source s;
    char *err = NULL;
    assert_int_equal(deb_source_parse("deb [arch=amd64,arm64 signed-by=/k/key.gpg trusted=yes "
                                      "check-valid-until=no lang=none] https://mirror.example/debian/ "
                                      "bookworm-updates main",
                                      a, &s, &err),
                     0);
    assert_int_equal(s.n_arches, 2);
    assert_string_equal(s.arches[1], "arm64");
    assert_string_equal(s.signed_by, "/k/key.gpg");
    assert_true(s.trusted);
    assert_int_equal(s.check_valid_until, 0);
    assert_string_equal(s.uri, "https://mirror.example/debian/");
    assert_int_equal(deb_source_parse("deb file:/srv/repo ./", a, &s, &err), 0);
    assert_true(s.flat);
    assert_string_equal(s.uri, "file:/srv/repo/");
    assert_int_equal(deb_source_parse("deb [ arch+=amd64 ] http://h/d sid main", a, &s, &err), 0);
    assert_int_equal(s.n_arches, 1);
    arena_free(a);
}

static void bad_source(const char *line, const char *frag)
{
    arena *a = arena_new();
    apt_source s;
    char *err = NULL;
    assert_int_equal(deb_source_parse(line, a, &s, &err), -1);
    assert_non_null(err);
    if (!strstr(err, frag))
        fail_msg("`%s`: message `%s` lacks `%s`", line, err, frag);
    free(err);
    arena_free(a);
}

static void test_source_bad(void **state)
{
    (void)state;
    bad_source("", "empty");
    bad_source("   ", "empty");
    bad_source("deb-src http://h/d bookworm main", "deb-src");
    bad_source("rpm http://h/d bookworm main", "not `deb`");
    bad_source("deb", "no URI");
    bad_source("deb http://h/d", "no suite");
    bad_source("deb http://h/d bookworm", "component");
    bad_source("deb ftp://h/d bookworm main", "not http");
    bad_source("deb http:///d bookworm main", "no host");
    bad_source("deb [arch=amd64 http://h/d bookworm main", "not closed");
    bad_source("deb [arch=amd64]http://h/d bookworm main", "no blank");
    bad_source("deb [arch] http://h/d bookworm main", "key=value");
    bad_source("deb [arch=] http://h/d bookworm main", "empty value");
    bad_source("deb [arch=amd64,,i386] http://h/d bookworm main", "empty architecture");
    bad_source("deb [trusted=maybe] http://h/d bookworm main", "neither yes nor no");
    bad_source("deb [check-valid-until=perhaps] http://h/d bookworm main", "neither yes nor no");
    bad_source("deb [colour=red] http://h/d bookworm main", "unknown option");
    bad_source("deb [signed-by=-----BEGIN] http://h/d bookworm main", "inline key");
    bad_source("deb http://h/d ./ main", "flat repository");
    bad_source("deb http://h/d ../etc main", "relative directory");
    bad_source("deb http://h/d /abs main", "relative directory");
    bad_source("deb http://h/d bookworm ../main", "plain name");
    bad_source("deb http://h/d bookworm\nmain", "one line");
    bad_source("deb http://h/d bookw\x01rm main", "plain name");
    bad_source("deb http://h/\x01d bookworm main", "control character");
    bad_source("deb http://h/d bookworm \xff\xfe", "UTF-8");
}

/* ---- dates ---- */

static void test_dates(void **state)
{
    (void)state;
    int64_t t;
    assert_int_equal(apt_date_parse("Mon, 01 Jan 2024 00:00:00 UTC", &t), 0);
    assert_int_equal(t, 1704067200);
    assert_int_equal(apt_date_parse("Sat, 10 Jun 2023 08:49:33 UTC", &t), 0);
    assert_int_equal(t, 1686386973);
    assert_int_equal(apt_date_parse("10 Jun 2023 08:49:33 GMT", &t), 0);
    assert_int_equal(t, 1686386973);
    assert_int_equal(apt_date_parse("Sat, 10 Jun 2023 10:49:33 +0200", &t), 0);
    assert_int_equal(t, 1686386973);
    assert_int_equal(apt_date_parse("Sat, 10 Jun 2023 07:49:33 -0100", &t), 0);
    assert_int_equal(t, 1686386973);
    assert_int_equal(apt_date_parse("Thu, 1 Feb 2024 00:00:00 UTC", &t), 0);
    assert_int_equal(t, 1706745600);
    assert_int_equal(apt_date_parse("Thu, 29 Feb 2024 12:00:00 UTC", &t), 0);
    assert_int_equal(apt_date_parse("Thu, 01 Jan 1970 00:00:00 Z", &t), 0);
    assert_int_equal(t, 0);
    static const char *const bad[] = {
        "", "Mon 01 Jan 2024 00:00:00 UTC", "Xyz, 01 Jan 2024 00:00:00 UTC", "01 Foo 2024 00:00:00 UTC",
        "29 Feb 2023 00:00:00 UTC", "31 Apr 2024 00:00:00 UTC", "00 Jan 2024 00:00:00 UTC",
        "01 Jan 2024 24:00:00 UTC", "01 Jan 2024 00:60:00 UTC", "01 Jan 24 00:00:00 UTC",
        "01 Jan 2024 00:00 UTC", "01 Jan 2024 00:00:00 CEST", "01 Jan 2024 00:00:00 +02",
        "01 Jan 2024 00:00:00 UTC trailing", "2024-01-01T00:00:00Z", "01 Jan 2024 00:00:00 +2500",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (apt_date_parse(bad[i], &t) == 0)
            fail_msg("date `%s` accepted", bad[i]);
}

/* ---- Release ---- */

static const char release_good[] =
    "Origin: Debian\n"
    "Label: Debian\n"
    "Suite: stable\n"
    "Version: 12.7\n"
    "Codename: bookworm\n"
    "Date: Sat, 31 Aug 2024 10:40:03 UTC\n"
    "Valid-Until: Sat, 07 Sep 2024 10:40:03 UTC\n"
    "Acquire-By-Hash: yes\n"
    "No-Support-for-Architecture-all: Packages\n"
    "Architectures: all amd64 arm64\n"
    "Components: main contrib non-free-firmware\n"
    "Description: Debian 12.7 Released 31 August 2024\n"
    "MD5Sum:\n"
    " 0123456789abcdef0123456789abcdef  1 main/binary-amd64/Packages\n"
    "SHA256:\n"
    " ca76324dad3cadd6457b74755ea523a85eb18b5a1e359c153dd9e4396860feb2    45678901 main/binary-amd64/Packages\n"
    " 296F2D9E66E47679853DFB82744691D4C9391E6CD6F0E844C465A6C13026F626  8901234 main/binary-amd64/Packages.xz\r\n"
    "\t8654ca19ff6213ea154f00317aa545d4d61fe65631191d550b30f655979d2a30 0 main/i18n/Translation-en\n";

static void test_release_good(void **state)
{
    (void)state;
    arena *a = arena_new();
    apt_release r;
    char *err = NULL;
    assert_int_equal(apt_release_parse(release_good, strlen(release_good), a, &r, &err), 0);
    assert_null(err);
    assert_string_equal(r.suite, "stable");
    assert_string_equal(r.codename, "bookworm");
    assert_string_equal(r.origin, "Debian");
    assert_string_equal(r.version, "12.7");
    assert_int_equal(r.date, 1725100803);
    assert_non_null(r.valid_until_text);
    assert_int_equal(r.valid_until, 1725100803 + 7 * 86400);
    assert_true(r.by_hash);
    assert_true(r.no_arch_all_packages);
    assert_int_equal(r.n_architectures, 3);
    assert_string_equal(r.architectures[2], "arm64");
    assert_int_equal(r.n_components, 3);
    assert_int_equal(r.n_files, 3);
    const apt_release_file *f = apt_release_find(&r, "main/binary-amd64/Packages.xz");
    assert_non_null(f);
    assert_int_equal(f->size, 8901234);
    assert_string_equal(f->sha256, "296f2d9e66e47679853dfb82744691d4c9391e6cd6f0e844c465a6c13026f626");
    f = apt_release_find(&r, "main/binary-amd64/Packages");
    assert_int_equal(f->size, 45678901);
    assert_null(apt_release_find(&r, "main/binary-arm64/Packages"));
    assert_non_null(apt_release_find(&r, "main/i18n/Translation-en"));
    arena_free(a);
}

static void test_release_minimal(void **state)
{
    (void)state;
    arena *a = arena_new();
    apt_release r;
    char *err = NULL;
    static const char t[] = "date: 01 Jan 2024 00:00:00 UTC\nsha256:\n";
    assert_int_equal(apt_release_parse(t, strlen(t), a, &r, &err), 0);
    assert_null(r.suite);
    assert_null(r.valid_until_text);
    assert_false(r.by_hash);
    assert_int_equal(r.n_files, 0);
    arena_free(a);
}

static void bad_release(const char *text, const char *frag)
{
    arena *a = arena_new();
    apt_release r;
    char *err = NULL;
    assert_int_equal(apt_release_parse(text, strlen(text), a, &r, &err), -1);
    assert_non_null(err);
    if (!strstr(err, frag))
        fail_msg("Release `%s`: message `%s` lacks `%s`", text, err, frag);
    free(err);
    arena_free(a);
}

static void test_release_bad(void **state)
{
    (void)state;
    const char *sha = "SHA256:\n";
    char buf[512];
    bad_release("Suite: x\nSHA256:\n", "no Date");
    bad_release("Date: Sat, 31 Aug 2024 10:40:03 UTC\nMD5Sum:\n 0123 1 x\n", "no SHA256");
    bad_release("Date: yesterday\nSHA256:\n", "Date `yesterday`");
    bad_release("Date: 01 Jan 2024 00:00:00 UTC\nValid-Until: soon\nSHA256:\n", "Valid-Until");
    bad_release(" leading continuation\n", "continuation line without a field");
    bad_release("Date yesterday\n", "not `Field: value`");
    bad_release(": empty name\n", "not `Field: value`");
    bad_release("Da te: x\n", "invalid character");
    snprintf(buf, sizeof buf, "Date: 01 Jan 2024 00:00:00 UTC\n%s abc 12 main/Packages\n", sha);
    bad_release(buf, "SHA256 line 2");
    snprintf(buf, sizeof buf, "Date: 01 Jan 2024 00:00:00 UTC\n%s %s 12x main/Packages\n", sha,
             "ca76324dad3cadd6457b74755ea523a85eb18b5a1e359c153dd9e4396860feb2");
    bad_release(buf, "SHA256 line");
    snprintf(buf, sizeof buf, "Date: 01 Jan 2024 00:00:00 UTC\n%s %s 12\n", sha,
             "ca76324dad3cadd6457b74755ea523a85eb18b5a1e359c153dd9e4396860feb2");
    bad_release(buf, "SHA256 line");
    snprintf(buf, sizeof buf, "Date: 01 Jan 2024 00:00:00 UTC\n%s %s 99999999999999999999999 p\n", sha,
             "ca76324dad3cadd6457b74755ea523a85eb18b5a1e359c153dd9e4396860feb2");
    bad_release(buf, "out of range");
    bad_release("Date: 01 Jan 2024 00:00:00 UTC\nSHA256:\nSHA256:\n", "two SHA256");
    arena *a = arena_new();
    apt_release r;
    char *err = NULL;
    static const char nul[] = "Date: 01 Jan 2024 00:00:00 UTC\nSHA256:\n\0x";
    assert_int_equal(apt_release_parse(nul, sizeof nul - 1, a, &r, &err), -1);
    assert_non_null(strstr(err, "NUL"));
    free(err);
    arena_free(a);
}

/* ---- clearsigned framing ---- */

static void test_clearsigned(void **state)
{
    (void)state;
    static const char good[] = "-----BEGIN PGP SIGNED MESSAGE-----\n"
                               "Hash: SHA256\n"
                               "\n"
                               "Origin: x\n"
                               "- -----dash line\n"
                               "Date: y\r\n"
                               "-----BEGIN PGP SIGNATURE-----\n"
                               "\n"
                               "iQEzBAEBCAAdFiEE\n"
                               "=abcd\n"
                               "-----END PGP SIGNATURE-----\n"
                               "\n";
    char *t;
    size_t n;
    assert_int_equal(apt_clearsigned_split(good, strlen(good), &t, &n), 0);
    assert_string_equal(t, "Origin: x\n-----dash line\nDate: y\n");
    assert_int_equal(n, strlen(t));
    free(t);
    static const char *const bad[] = {
        "garbage\n-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nx\n-----BEGIN PGP SIGNATURE-----\n"
        "-----END PGP SIGNATURE-----\n",
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nx\n",
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nx\n-----BEGIN PGP SIGNATURE-----\nabc\n",
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nx\n-----BEGIN PGP SIGNATURE-----\n"
        "-----END PGP SIGNATURE-----\nextra text after\n",
        "-----BEGIN PGP SIGNED MESSAGE-----\nnot a header\n\nx\n-----BEGIN PGP SIGNATURE-----\n"
        "-----END PGP SIGNATURE-----\n",
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n-unescaped\n-----BEGIN PGP SIGNATURE-----\n"
        "-----END PGP SIGNATURE-----\n",
        "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nx\n-----BEGIN PGP SIGNATURE-----\n"
        "-----BEGIN PGP SIGNATURE-----\n-----END PGP SIGNATURE-----\n",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (apt_clearsigned_split(bad[i], strlen(bad[i]), &t, &n) == 0)
            fail_msg("clearsigned case %zu accepted", i);
}

static void test_blob_name(void **state)
{
    (void)state;
    char *a = apt_solv_blob_name("ab");
    char *b = apt_solv_blob_name("cd");
    assert_non_null(strstr(a, "ab"));
    assert_non_null(strstr(a, "libsolv-"));
    assert_string_not_equal(a, b);
    free(a);
    free(b);
}

static void test_verify_missing_keyring(void **state)
{
    (void)state;
    char *why = NULL;
    assert_int_equal(apt_verify_detached("/nonexistent/keyring.gpg", "x", 1, "y", 1, &why),
                     APT_SIG_NO_KEYRING);
    assert_non_null(why);
    free(why);
    char *t;
    size_t n;
    why = NULL;
    assert_int_equal(apt_verify_clearsigned("/nonexistent/keyring.gpg", "x", 1, &t, &n, &why),
                     APT_SIG_NO_KEYRING);
    free(why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_plain),   cmocka_unit_test(test_source_options),
        cmocka_unit_test(test_source_bad),     cmocka_unit_test(test_dates),
        cmocka_unit_test(test_release_good),   cmocka_unit_test(test_release_minimal),
        cmocka_unit_test(test_release_bad),    cmocka_unit_test(test_clearsigned),
        cmocka_unit_test(test_blob_name),      cmocka_unit_test(test_verify_missing_keyring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

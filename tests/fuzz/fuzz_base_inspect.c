/* fuzz_base_inspect.c — libFuzzer target for `envlock base inspect`: the
 * input is the image archive (docker save or OCI layout tar, any filter).
 * Checks that nothing crashes or grows past the limits (the sanitizers and
 * libFuzzer's -rss_limit_mb see to that), that a refusal always carries a
 * code and a message, and that an entry written is a catalog the loader
 * reads back. Seeds: the archives tests/base_inspect/base_inspect.py
 * builds (its --seeds DIR). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envlock/bases.h"
#include "base.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static char archive[] = "/tmp/fuzz_base_inspect_XXXXXX";
static char catalog[] = "/tmp/fuzz_base_inspect_cat_XXXXXX";
static int archive_fd = -1, catalog_fd = -1;

static void cleanup(void)
{
    unlink(archive);
    unlink(catalog);
}

static void put(int fd, const void *data, size_t size)
{
    CHECK(ftruncate(fd, 0) == 0);
    CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (archive_fd < 0) {
        CHECK((archive_fd = mkstemp(archive)) >= 0);
        CHECK((catalog_fd = mkstemp(catalog)) >= 0);
        atexit(cleanup);
    }
    put(archive_fd, data, size);
    el_ctx *ctx = el_ctx_new();
    el_base_inspect_options o = { .reference = NULL };
    char *text = el_base_inspect(ctx, archive, &o);
    if (!text) {
        CHECK(el_ctx_code(ctx) != EL_OK);
        CHECK(el_ctx_message(ctx) && el_ctx_message(ctx)[0]);
    } else {
        put(catalog_fd, text, strlen(text));
        target_catalog *cat = target_catalog_load(ctx, catalog);
        if (!cat)
            fprintf(stderr, "%s\n%s", el_ctx_message(ctx), text);
        CHECK(cat != NULL);
        target_catalog_free(cat);
    }
    el_free(text);
    el_ctx_free(ctx);
    return 0;
}

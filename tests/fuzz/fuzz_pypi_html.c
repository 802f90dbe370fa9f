/* fuzz_pypi_html.c — libFuzzer target for PEP 503 project pages: the input,
 * prefixed with `<` so the JSON sniff never takes it, is parsed as an HTML
 * page; every file record must hold an absolute URL (or, marked bad_url, the
 * link as written) and a filename, and the
 * filenames then go through the wheel filename parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

/* A usable file's URL is absolute with an authority, and http(s): the
 * page is read over https, so it never names a local file; an unusable one
 * (bad_url) is the link as written, short and free of control bytes. */
static int url_ok(const pypi_file *f)
{
    if (!f->bad_url)
        return strncmp(f->url, "http://", 7) == 0 || strncmp(f->url, "https://", 8) == 0;
    if ((strcmp(f->bad_url, "unsupported_url") != 0 && strcmp(f->bad_url, "local_link") != 0) ||
        f->read_url || strlen(f->url) > 200)
        return 0;
    for (const char *p = f->url; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Keep the JSON path out: a leading '{' would select it. */
    char *buf = malloc(size + 2);
    if (!buf)
        return 0;
    buf[0] = '<';
    memcpy(buf + 1, data, size);
    buf[size + 1] = '\0';
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    el_code rc = pypi_page_parse(ctx, a, buf, size + 1, "https://idx.example/simple/p/", &pg);
    if (rc == EL_OK) {
        for (size_t i = 0; i < pg.nfiles; i++) {
            const pypi_file *f = &pg.files[i];
            if (!f->url || !f->filename || !*f->filename || !url_ok(f))
                abort();
            if (f->sha256 && strlen(f->sha256) != 64)
                abort();
            pypi_wheel_name w;
            char *err = NULL;
            if (!pypi_wheel_name_parse(a, f->filename, &w, &err) && !err)
                abort();
            free(err);
        }
    } else if (rc != EL_PACKAGE_NOT_FOUND) {
        abort();
    }
    el_ctx_free(ctx);
    arena_free(a);
    free(buf);
    return 0;
}

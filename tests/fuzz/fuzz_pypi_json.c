/* fuzz_pypi_json.c — libFuzzer target for PEP 691 project pages: the input
 * is parsed as a JSON page (a leading '{' is added when missing so the JSON
 * path is taken); a success must give well-formed records (an unfetchable
 * link kept as written, marked bad_url), a failure must
 * be EL_PACKAGE_NOT_FOUND with a message. */
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
    char *buf = malloc(size + 2);
    if (!buf)
        return 0;
    size_t n = 0;
    if (size == 0 || data[0] != '{')
        buf[n++] = '{';
    memcpy(buf + n, data, size);
    n += size;
    buf[n] = '\0';
    arena *a = arena_new();
    el_ctx *ctx = el_ctx_new();
    pypi_page pg;
    el_code rc = pypi_page_parse(ctx, a, buf, n, "https://idx.example/simple/p/", &pg);
    if (rc == EL_OK) {
        if (pg.format != PYPI_PAGE_JSON)
            abort();
        for (size_t i = 0; i < pg.nfiles; i++) {
            const pypi_file *f = &pg.files[i];
            if (!f->url || !f->filename || !url_ok(f))
                abort();
            if (f->sha256 && strlen(f->sha256) != 64)
                abort();
            if (f->core_metadata_sha256 && !f->core_metadata)
                abort();
        }
    } else if (rc != EL_PACKAGE_NOT_FOUND || !*el_ctx_message(ctx)) {
        abort();
    }
    el_ctx_free(ctx);
    arena_free(a);
    free(buf);
    return 0;
}

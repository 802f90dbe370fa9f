/* fuzz_pypi_json.c — libFuzzer target for PEP 691 project pages: the input
 * is parsed as a JSON page (a leading '{' is added when missing so the JSON
 * path is taken); a success must give well-formed records, a failure must
 * be EL_PACKAGE_NOT_FOUND with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

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
            if (!f->url || !f->filename || !strstr(f->url, "://"))
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

/* fuzz_pypi_page_blob.c — libFuzzer target for the reader of a project
 * page's parsed form (pypi_page_blob_read()). The first input byte chooses
 * the mode: even, the rest is a payload and gets a correct header (magic,
 * format, body hash, source key, length, CRC-32: the layout in
 * pypi_page_blob.c), so the fuzzer explores the payload reader rather than
 * the CRC; odd, the rest is a whole blob as the cache would hand it over.
 * Whatever is read must keep the page's promises (format in range, every
 * file with a name and a URL, hashes of 64 lowercase hex digits, a bad link
 * never read elsewhere) and survive what the loader does next (the page's
 * identity); a refusal must leave the page empty. Seeds: the payloads of
 * real parses (unit_pypi_page_blob --seed). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

#include "blob_seed.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static const char SHA[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const pypi_page_src SRC = { "https://pypi.org/simple/x/",
                                   "http://127.0.0.1:9/pypi/simple/x/", NULL };

static void check_hash(const char *h)
{
    if (!h)
        return;
    CHECK(strlen(h) == 64);
    for (size_t i = 0; i < 64; i++)
        CHECK(isxdigit((unsigned char)h[i]) && !isupper((unsigned char)h[i]));
}

static void check(const pypi_page *pg)
{
    CHECK(pg->format == PYPI_PAGE_HTML || pg->format == PYPI_PAGE_JSON);
    CHECK(pg->files != NULL || pg->nfiles == 0);
    for (size_t i = 0; i < pg->nfiles; i++) {
        const pypi_file *f = &pg->files[i];
        CHECK(f->filename && *f->filename && f->url);
        check_hash(f->sha256);
        check_hash(f->core_metadata_sha256);
        CHECK(f->size >= -1);
        CHECK(!f->bad_url || (!f->read_url && (strcmp(f->bad_url, "unsupported_url") == 0 ||
                                               strcmp(f->bad_url, "local_link") == 0)));
        CHECK(!f->yanked_reason || f->yanked);
        CHECK(!f->core_metadata_sha256 || f->core_metadata);
    }
    char id[PYPI_IDENTITY_LEN];
    pypi_page_identity(pg, id);
    CHECK(strncmp(id, "sha256:", 7) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    strbuf blob = STRBUF_INIT;
    if (data[0] % 2 == 0) {
        /* the header of a real blob made for the same body and sources */
        pypi_page e = { PYPI_PAGE_JSON, NULL, NULL, 0 };
        pypi_page_blob_write(&e, SHA, &SRC, &blob);
        sb_setlen(&blob, 8 + 4 + 128);
        blob_frame_tail(&blob, data + 1, size - 1);
    }
    sb_add(&blob, data + 1, size - 1);
    arena *a = arena_new();
    pypi_page pg;
    memset(&pg, 0xa5, sizeof pg); /* must be zeroed on refusal */
    if (pypi_page_blob_read((const unsigned char *)blob.buf, blob.len, SHA, &SRC, a, &pg) == 0) {
        check(&pg);
    } else {
        CHECK(pg.files == NULL && pg.nfiles == 0 && pg.api_version == NULL);
    }
    arena_free(a);
    sb_release(&blob);
    return 0;
}

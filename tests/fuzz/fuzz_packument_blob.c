/* fuzz_packument_blob.c — libFuzzer target for the reader of a packument's
 * parsed form (npm_packument_blob_read()). The first input byte chooses the
 * mode: even, the rest is a payload and gets a correct header (magic,
 * format, body hash, options key, length, CRC-32: the layout in
 * npm_packument_blob.c), so the fuzzer explores the payload reader rather
 * than the CRC; odd, the rest is a whole blob as the cache would hand it
 * over. Whatever is read must keep the model's promises (counts within
 * bounds, enums in range, strings set) and free cleanly; a refusal must
 * leave *out NULL. Seeds: the payloads of real parses
 * (npm_index_unit_packument_blob --seed). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npm_index.h"

#include "blob_seed.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static const char SHA[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static void check(const npm_packument *p)
{
    CHECK(p->name && p->registry && p->url && p->identity);
    CHECK(p->ncandidates <= p->nversions);
    for (size_t i = 0; i < p->nversions; i++) {
        const npm_version *v = &p->versions[i];
        CHECK(v->version && v->flags < (1u << NPM_FLAG_COUNT));
        CHECK((unsigned)v->excluded <= NPM_EX_LIBC_MISMATCH);
        for (size_t d = 0; d < v->ndeps; d++)
            CHECK(v->deps[d].name && v->deps[d].spec &&
                  (unsigned)v->deps[d].kind <= NPM_DEP_PEER_OPTIONAL);
        for (size_t k = 0; k < v->nos + v->ncpu + v->nlibc + v->nbundled; k++) {
            const char *s = k < v->nos ? v->os[k]
                            : k < v->nos + v->ncpu ? v->cpu[k - v->nos]
                            : k < v->nos + v->ncpu + v->nlibc ? v->libc[k - v->nos - v->ncpu]
                                                              : v->bundled[k - v->nos - v->ncpu - v->nlibc];
            CHECK(s != NULL);
        }
        CHECK(!(v->flags & NPM_FLAG_TARBALL_REBASED) || (v->tarball && v->tarball_served));
    }
    for (size_t i = 0; i < p->ntags; i++)
        CHECK(p->tags[i].tag && p->tags[i].version);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    npm_parse_options o = { .name = NULL, .served_base = "http://127.0.0.1:4873/npm/" };
    strbuf blob = STRBUF_INIT;
    if (data[0] % 2 == 0) {
        /* the header of a real blob made with the same options */
        npm_packument *e = NULL;
        const char *reason;
        char *err;
        CHECK(npm_packument_parse("{}", 2, &o, &e, &reason, &err) == 0);
        npm_packument_blob_write(e, SHA, &o, &blob);
        npm_packument_free(e);
        sb_setlen(&blob, 8 + 4 + 128);
        blob_frame_tail(&blob, data + 1, size - 1);
    }
    sb_add(&blob, data + 1, size - 1);
    npm_packument *p = (npm_packument *)&blob; /* must be reset to NULL on refusal */
    if (npm_packument_blob_read((const unsigned char *)blob.buf, blob.len, SHA, &o, &p) == 0) {
        check(p);
        npm_packument_free(p);
    } else {
        CHECK(p == NULL);
    }
    sb_release(&blob);
    return 0;
}

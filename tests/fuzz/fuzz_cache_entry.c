/* fuzz_cache_entry.c — libFuzzer target for the cache's entry files (what
 * cache_store_get and `cache import` read back from disk): the input is an
 * entry file, zstd-framed or raw. A valid one must give metadata whose
 * size, sha256 (and, raw, crc32) match the body returned; an invalid one a
 * reason and nothing else. Also re-encodes a valid entry and checks that it
 * reads back to the same body (the encoder and the checker agree). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cache_meta m;
    cache_meta_init(&m);
    unsigned char *body = NULL;
    size_t len = 0;
    const char *why = cache_entry_check(data, size, NULL, &m, &body, &len);
    if (why) {
        CHECK(why[0] && !body && !m.url);
        return 0;
    }
    CHECK(body && m.url && len == m.size && body[len] == '\0');
    char sha[65];
    sha256_hex(body, len, sha);
    CHECK(strcmp(sha, m.sha256) == 0);
    strbuf sb = STRBUF_INIT;
    cache_entry_encode(&m, body, len, &sb);
    cache_meta m2;
    cache_meta_init(&m2);
    unsigned char *body2 = NULL;
    size_t len2 = 0;
    CHECK(cache_entry_check((const unsigned char *)sb.buf, sb.len, NULL, &m2, &body2, &len2) == NULL);
    CHECK(len2 == len && memcmp(body2, body, len) == 0 && m2.raw == m.raw);
    free(body2);
    cache_meta_clear(&m2);
    sb_release(&sb);
    free(body);
    cache_meta_clear(&m);
    return 0;
}

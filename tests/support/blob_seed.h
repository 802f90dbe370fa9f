/* blob_seed.h — fuzz seeds for the readers of the parsed forms
 * (tests/fuzz/fuzz_packument_blob.c, fuzz_pypi_page_blob.c), written by
 * the blob unit tests' --seed mode. A seed's first byte is the fuzzer's
 * mode: even (0), the rest is a payload the fuzzer frames with a correct
 * header (seed "p-FILE"); odd (1), the rest is a whole blob taken as it is
 * ("b-FILE"). */
#ifndef ENVLOCK_BLOB_SEED_H
#define ENVLOCK_BLOB_SEED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util.h"

/* The frame's header before the payload (bin_frame_write(), util.h): the
 * magic, u32 format, the two hex sha256, u64 length, u32 CRC-32. */
#define BLOB_FRAME_HEADER (8 + 4 + 128 + 8 + 4)

/* blob_frame_tail() : the last fields of a frame's header for the payload
 *  p[0..n): its u64 length and u32 CRC-32 (zlib's), as bin_frame_write()
 *  writes them; a fuzzer frames its input with these. */
static inline void blob_frame_tail(strbuf *sb, const unsigned char *p, size_t n)
{
    bin_put_u64(sb, n);
    bin_put_u32(sb, (uint32_t)crc32_z(0, p, n));
}

/* blob_seed_write() : writes DIR/p-BASE or DIR/b-BASE (BASE the last part
 *  of `file`): `mode`, then `blob` from byte `skip` on. 0, or 2 when the
 *  file cannot be written. */
static inline int blob_seed_write(const char *dir, const char *file, char mode,
                                  const strbuf *blob, size_t skip)
{
    const char *base = strrchr(file, '/');
    char *path = xasprintf("%s/%c-%s", dir, mode == 0 ? 'p' : 'b', base ? base + 1 : file);
    FILE *f = fopen(path, "wb");
    int rc = f && fputc(mode, f) != EOF && fwrite(blob->buf + skip, 1, blob->len - skip, f) ==
                                               blob->len - skip ? 0 : 2;
    if (f && fclose(f) != 0)
        rc = 2;
    free(path);
    return rc;
}

#endif

/* binform.c — the little-endian integers and length-prefixed strings of
 * envlock's binary parsed forms (npm_packument_blob.c, pypi_page_blob.c,
 * conda_repodata_blob.c): written to a strbuf, read through a bin_reader
 * that turns bad at the first read past its end; and the frame the forms
 * share (bin_frame_write(), bin_frame_open()) and the fields of their
 * options keys (bin_key_field()). */
#include <string.h>

#include <zlib.h>

#include "util.h"

void bin_put_u32(strbuf *sb, uint32_t v)
{
    unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24) };
    sb_add(sb, b, 4);
}

void bin_put_u64(strbuf *sb, uint64_t v)
{
    bin_put_u32(sb, (uint32_t)v);
    bin_put_u32(sb, (uint32_t)(v >> 32));
}

bool bin_need(bin_reader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n)
        r->bad = true;
    return !r->bad;
}

#define NULL_LEN 0xffffffffu

/* u32 length, the bytes, and their NUL when `nul`. */
static void put_str(strbuf *sb, const char *s, bool nul)
{
    if (!s) {
        bin_put_u32(sb, NULL_LEN);
        return;
    }
    size_t n = strlen(s);
    bin_put_u32(sb, (uint32_t)n);
    sb_add(sb, s, nul ? n + 1 : n);
}

void bin_put_str(strbuf *sb, const char *s) { put_str(sb, s, false); }

void bin_put_strz(strbuf *sb, const char *s) { put_str(sb, s, true); }

void bin_put_strs(strbuf *sb, const char *const *v, size_t n)
{
    bin_put_u32(sb, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        bin_put_str(sb, v[i]);
}

const char *bin_str(bin_reader *r, arena *a, bool nullable)
{
    uint32_t n = bin_u32(r);
    if (!r->bad && n == NULL_LEN && nullable)
        return NULL;
    /* a C string could not have been written with a NUL inside */
    if (n == NULL_LEN || !bin_need(r, n) || memchr(r->p, '\0', n)) {
        r->bad = true;
        return nullable ? NULL : "";
    }
    const char *s = arena_strndup(a, (const char *)r->p, n);
    r->p += n;
    return s;
}

const char *bin_strz(bin_reader *r)
{
    uint32_t n = bin_u32(r);
    if (r->bad || n == NULL_LEN)
        return NULL;
    if (!bin_need(r, (size_t)n + 1) || r->p[n] != '\0' || memchr(r->p, '\0', n)) {
        r->bad = true;
        return NULL;
    }
    const char *s = (const char *)r->p;
    r->p += (size_t)n + 1;
    return s;
}

void bin_put_strzs(strbuf *sb, const char *const *v, size_t n)
{
    bin_put_u32(sb, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        bin_put_strz(sb, v[i]);
}

size_t bin_count(bin_reader *r, size_t min)
{
    uint32_t n = bin_u32(r);
    if (!r->bad && (size_t)(r->end - r->p) / min < n)
        r->bad = true;
    return r->bad ? 0 : n;
}

const char *bin_need_strz(bin_reader *r)
{
    const char *s = bin_strz(r);
    if (!s)
        r->bad = true;
    return s ? s : "";
}

const char **bin_strzs(bin_reader *r, arena *a, size_t *n)
{
    *n = bin_count(r, 5); /* a length and a NUL at the least */
    const char **v = a ? arena_alloc(a, (*n + 1) * sizeof *v) : NULL;
    for (size_t i = 0; i < *n && !r->bad; i++) {
        const char *s = bin_need_strz(r);
        if (v)
            v[i] = s;
    }
    return v;
}

const char **bin_strs(bin_reader *r, arena *a, size_t *n)
{
    uint32_t k = bin_u32(r);
    /* each entry takes at least its 4-byte length */
    if (!r->bad && (size_t)(r->end - r->p) / 4 < k)
        r->bad = true;
    *n = r->bad ? 0 : k;
    const char **v = arena_alloc(a, (*n ? *n : 1) * sizeof *v);
    for (size_t i = 0; i < *n && !r->bad; i++)
        v[i] = bin_str(r, a, false);
    return v;
}

uint32_t bin_u32(bin_reader *r)
{
    if (!bin_need(r, 4))
        return 0;
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
                 (uint32_t)r->p[3] << 24;
    r->p += 4;
    return v;
}

uint64_t bin_u64(bin_reader *r)
{
    uint64_t lo = bin_u32(r);
    return lo | (uint64_t)bin_u32(r) << 32;
}

unsigned bin_u8(bin_reader *r, unsigned max)
{
    if (!bin_need(r, 1))
        return 0;
    unsigned v = *r->p++;
    if (v > max)
        r->bad = true;
    return r->bad ? 0 : v;
}

void bin_frame_write(strbuf *out, const char magic[8], uint32_t format, const char *body_sha256,
                     const char key[65], const strbuf *payload)
{
    sb_add(out, magic, 8);
    bin_put_u32(out, format);
    sb_add(out, body_sha256, 64);
    sb_add(out, key, 64);
    bin_put_u64(out, payload->len);
    bin_put_u32(out, (uint32_t)crc32_z(0, (const unsigned char *)payload->buf, payload->len));
    sb_add(out, payload->buf, payload->len);
}

/* The frame up to its CRC-32: *n the payload's length, *crc the CRC. */
static bool frame_head(bin_reader *r, const char magic[8], uint32_t format,
                       const char *body_sha256, const char key[65], uint64_t *n, uint32_t *crc)
{
    if (!bin_need(r, 8) || memcmp(r->p, magic, 8) != 0)
        return false;
    r->p += 8;
    if (bin_u32(r) != format || !bin_need(r, 128))
        return false;
    if (strlen(body_sha256) != 64 || memcmp(r->p, body_sha256, 64) != 0 ||
        memcmp(r->p + 64, key, 64) != 0)
        return false;
    r->p += 128;
    *n = bin_u64(r);
    *crc = bin_u32(r);
    return !r->bad && *n == (uint64_t)(r->end - r->p);
}

bool bin_frame_open(bin_reader *r, const char magic[8], uint32_t format, const char *body_sha256,
                    const char key[65])
{
    uint64_t n;
    uint32_t crc;
    return frame_head(r, magic, format, body_sha256, key, &n, &crc) &&
           crc32_z(0, r->p, (size_t)n) == crc;
}

bool bin_frame_open_trusted(bin_reader *r, const char magic[8], uint32_t format,
                            const char *body_sha256, const char key[65])
{
    uint64_t n;
    uint32_t crc;
    return frame_head(r, magic, format, body_sha256, key, &n, &crc);
}

void bin_key_field(strbuf *sb, const char *s)
{
    if (s) {
        sb_adds(sb, s);
        sb_addc(sb, '\n');
    } else {
        sb_adds(sb, "\x01\n"); /* NULL is not "" */
    }
}

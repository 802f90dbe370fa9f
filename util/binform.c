/* binform.c — the little-endian integers of envlock's binary parsed forms
 * (npm_packument_blob.c, pypi_page_blob.c): written to a strbuf, read
 * through a bin_reader that turns bad at the first read past its end. */
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

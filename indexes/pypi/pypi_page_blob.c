/* pypi_page_blob.c — the parsed form of a project page: pypi_page in a
 * compact binary layout, written after a parse and read back instead of
 * parsing when the cache already holds the page (a fresh hit or a 304), as
 * npm_packument_blob.c does for packuments. The reader trusts nothing: the
 * data is a cache file that may be torn, stale or damaged, and any doubt
 * means -1 and a parse of the body, never a wrong page.
 *
 * What is stored is what pypi_page_parse_read() gave for the body, before
 * pypi_page_read() maps mirror links back through the cache's mirror table:
 * that mapping is redone on every read, so this run's table applies. The
 * parse itself depends on the body and on three inputs of the run, and all
 * three are in the blob's key: the page URL links resolve against (a
 * redirect changes it), the URL the page was read from (a mirror), and the
 * format the Content-Type declares.
 *
 * Layout (integers little-endian):
 *   "ELPYPG1\n" u32 format, then the body's hex sha256 and the source key
 *   (64 hex each), u64 payload length, u32 CRC-32 of the payload (zlib's:
 *   the cache's own check does not cover a blob handed to this reader from
 *   elsewhere, e.g. the fuzzer), payload.
 *   payload: u8 format, str api_version, u32 nfiles, file*:
 *     str filename, url, read_url, sha256; i64 size; str upload_time;
 *     i64 upload_s; str requires_python; u8 flags (FL_*); str yanked_reason,
 *     core_metadata_sha256.
 *   str: u32 length, the bytes, a NUL (so the reader points into its one
 *   copy of the payload instead of copying every string); 0xffffffff and no
 *   bytes is NULL.
 * Does no I/O. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

#define MAGIC "ELPYPG1\n"

enum { FL_YANKED = 1, FL_CORE_METADATA = 2, FL_BAD_URL = 4, FL_LOCAL_LINK = 8, FL_ALL = 15 };

/* ---- the key ---- */

/* Hex sha256 of every input of the run that changes the parse. Only the
 * format the Content-Type declares matters, not its spelling. */
static void source_key(const pypi_page_src *s, char out[65])
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "pypi-page-blob %d\n", PYPI_BLOB_FORMAT);
    bin_key_field(&sb, s->page_url);
    bin_key_field(&sb, s->read_url);
    sb_addf(&sb, "%d\n", pypi_page_format_of(s->content_type));
    sha256_hex(sb.buf, sb.len, out);
    sb_release(&sb);
}

/* Whether `u` names a user or password: a page read from such a URL (a
 * mirror given as https://user:pw@host/...) resolves its links against it,
 * so its parsed form would carry the credentials into the cache dir, which
 * never holds one (cache_url_redact()). */
static bool has_userinfo(const char *u)
{
    if (!u)
        return false;
    char *r = cache_url_redact(u);
    bool has = strcmp(r, u) != 0;
    free(r);
    return has;
}

char *pypi_page_blob_name(const char *body_sha256, const pypi_page_src *s)
{
    if (has_userinfo(s->page_url) || has_userinfo(s->read_url))
        return NULL;
    char key[65];
    source_key(s, key);
    return xasprintf("pypi-page/%s/%.16s/f%d", body_sha256, key, PYPI_BLOB_FORMAT);
}

/* ---- writing ---- */

static void put_file(strbuf *sb, const pypi_file *f)
{
    bin_put_strz(sb, f->filename);
    bin_put_strz(sb, f->url);
    bin_put_strz(sb, f->read_url);
    bin_put_strz(sb, f->sha256);
    bin_put_u64(sb, (uint64_t)f->size);
    bin_put_strz(sb, f->upload_time);
    bin_put_u64(sb, (uint64_t)f->upload_s);
    bin_put_strz(sb, f->requires_python);
    sb_addc(sb, (char)((f->yanked ? FL_YANKED : 0) | (f->core_metadata ? FL_CORE_METADATA : 0) |
                       (f->bad_url ? FL_BAD_URL : 0) |
                       (f->bad_url && strcmp(f->bad_url, "local_link") == 0 ? FL_LOCAL_LINK : 0)));
    bin_put_strz(sb, f->yanked_reason);
    bin_put_strz(sb, f->core_metadata_sha256);
}

void pypi_page_blob_write(const pypi_page *pg, const char *body_sha256, const pypi_page_src *s,
                          strbuf *out)
{
    strbuf pl = STRBUF_INIT;
    sb_addc(&pl, (char)pg->format);
    bin_put_strz(&pl, pg->api_version);
    bin_put_u32(&pl, (uint32_t)pg->nfiles);
    for (size_t i = 0; i < pg->nfiles; i++)
        put_file(&pl, &pg->files[i]);

    char key[65];
    source_key(s, key);
    bin_frame_write(out, MAGIC, PYPI_BLOB_FORMAT, body_sha256, key, &pl);
    sb_release(&pl);
}

/* ---- reading ---- */

typedef struct rd {
    bin_reader b;
} rd;

/* A string of the payload copy, in place (bin_strz()). */
static const char *get_str(rd *r) { return bin_strz(&r->b); }

/* A string that may be neither NULL nor "". */
static const char *get_str_nn(rd *r)
{
    const char *s = get_str(r);
    if (!s || !*s)
        r->b.bad = true;
    return s;
}

/* NULL, or 64 lowercase hex digits (what the parser keeps of a hash). */
static const char *get_hash(rd *r)
{
    const char *s = get_str(r);
    if (!s)
        return NULL;
    bool ok = strlen(s) == 64;
    for (size_t i = 0; ok && i < 64; i++)
        ok = isxdigit((unsigned char)s[i]) && !isupper((unsigned char)s[i]);
    if (!ok)
        r->b.bad = true;
    return s;
}

static void get_file(rd *r, pypi_file *f)
{
    f->filename = get_str_nn(r);
    f->url = get_str(r);
    if (!f->url)
        r->b.bad = true;
    f->read_url = get_str(r);
    f->sha256 = get_hash(r);
    f->size = (int64_t)bin_u64(&r->b);
    f->upload_time = get_str(r);
    f->upload_s = (int64_t)bin_u64(&r->b);
    f->requires_python = get_str(r);
    unsigned fl = bin_u8(&r->b, FL_ALL);
    f->yanked = fl & FL_YANKED;
    f->core_metadata = fl & FL_CORE_METADATA;
    f->bad_url = fl & FL_LOCAL_LINK ? "local_link" : fl & FL_BAD_URL ? "unsupported_url" : NULL;
    if ((fl & FL_LOCAL_LINK) && !(fl & FL_BAD_URL))
        r->b.bad = true;
    f->yanked_reason = get_str(r);
    f->core_metadata_sha256 = get_hash(r);
    /* what a parse never gives */
    if (f->size < -1 || (!f->upload_time && f->upload_s != INT64_MIN) ||
        (f->yanked_reason && (!f->yanked || !*f->yanked_reason)) ||
        (f->core_metadata_sha256 && !f->core_metadata) || (f->bad_url && f->read_url) ||
        (f->requires_python && !*f->requires_python))
        r->b.bad = true;
}

/* The header, and the payload's length and CRC: false unless the blob was
 * written whole for this body and these sources. */
static bool read_header(rd *r, const char *body_sha256, const pypi_page_src *s)
{
    char key[65];
    source_key(s, key);
    return bin_frame_open(&r->b, MAGIC, PYPI_BLOB_FORMAT, body_sha256, key);
}

int pypi_page_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                        const pypi_page_src *s, arena *a, pypi_page *out)
{
    memset(out, 0, sizeof *out);
    rd h = { .b = { .p = data, .end = data + len } };
    if (!read_header(&h, body_sha256, s))
        return -1;
    size_t n = (size_t)(h.b.end - h.b.p);
    unsigned char *copy = arena_alloc(a, n ? n : 1);
    memcpy(copy, h.b.p, n);
    rd r = { .b = { .p = copy, .end = copy + n } };
    pypi_page pg = { 0 };
    pg.format = (pypi_page_format)bin_u8(&r.b, PYPI_PAGE_JSON);
    pg.api_version = get_str(&r);
    /* each file takes at least 50 bytes: a damaged count cannot ask for a
     * huge allocation */
    uint32_t nf = bin_u32(&r.b);
    if (!r.b.bad && (size_t)(r.b.end - r.b.p) / 50 < nf)
        r.b.bad = true;
    if (r.b.bad)
        return -1;
    pg.nfiles = nf;
    pg.files = arena_alloc(a, (nf ? nf : 1) * sizeof *pg.files);
    for (size_t i = 0; i < nf && !r.b.bad; i++)
        get_file(&r, &pg.files[i]);
    if (r.b.bad || r.b.p != r.b.end)
        return -1;
    *out = pg;
    return 0;
}

/* conda_repodata_blob.c — the parsed form of a repodata.json: a
 * conda_repodata in a compact binary layout, written after a parse and
 * read back instead of parsing when the cache already holds the body (as
 * the npm and apt readers keep theirs). The reader trusts nothing: the
 * data is a cache file that may be torn, stale or damaged, and any doubt
 * means false and a parse of the body, never a wrong model.
 *
 * Layout (integers little-endian): util's bin_frame (magic "ELCONDA\n",
 * format, the body's sha256, the options key, payload length, CRC-32),
 * then the payload: str subdir; u32 nrecords, record*; u32 nexcluded,
 * (str fn, str reason, str detail)*. A record: str fn name version build,
 * u64 build_number, list depends constrains track_features, u64
 * timestamp_ms, u8 noarch, str sha256 md5, u64 size, str license subdir,
 * u8 is_conda. str: u32 length then the bytes, 0xffffffff for NULL; list:
 * u32 count then str*. Does no I/O. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "conda_repodata.h"

#define MAGIC "ELCONDA\n"
#define BLOB_FORMAT 1
#define NULL_LEN 0xffffffffu

/* The reasons records are excluded for, as static strings again. */
static const char *const reasons[] = {
    "bad_filename", "bad_name", "bad_build", "bad_number", "bad_dependency", "bad_hash",
    "too_many_dependencies", "bad_noarch", "bad_version", "bad_record", "after_cutoff", NULL};

static void options_key(const conda_repodata_options *o, char out[65])
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "conda-repodata-blob %d\n%s\n%llu\n%zu\n%lld\n", BLOB_FORMAT,
            o && o->subdir ? o->subdir : "\x01",
            (unsigned long long)(o && o->max_bytes ? o->max_bytes : CONDA_REPODATA_MAX_BYTES),
            o && o->max_records ? o->max_records : (size_t)CONDA_REPODATA_MAX_RECORDS,
            (long long)(o ? o->cutoff_ms : 0));
    sha256_hex(sb.buf, sb.len, out);
    sb_release(&sb);
}

char *conda_repodata_blob_name(const char *body_sha256, const conda_repodata_options *o)
{
    char key[65];
    options_key(o, key);
    return xasprintf("conda-repodata/%s/%.16s/f%d", body_sha256, key, BLOB_FORMAT);
}

static void put_str(strbuf *sb, const char *s)
{
    if (!s) {
        bin_put_u32(sb, NULL_LEN);
        return;
    }
    size_t n = strlen(s);
    bin_put_u32(sb, (uint32_t)n);
    sb_add(sb, s, n);
}

static void put_list(strbuf *sb, const char *const *v, size_t n)
{
    bin_put_u32(sb, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        put_str(sb, v[i]);
}

static void put_record(strbuf *sb, const conda_record *r)
{
    put_str(sb, r->fn);
    put_str(sb, r->name);
    put_str(sb, r->version);
    put_str(sb, r->build);
    bin_put_u64(sb, r->build_number);
    put_list(sb, r->depends, r->n_depends);
    put_list(sb, r->constrains, r->n_constrains);
    put_list(sb, r->track_features, r->n_track_features);
    bin_put_u64(sb, (uint64_t)r->timestamp_ms);
    sb_addc(sb, (char)r->noarch);
    put_str(sb, r->sha256);
    put_str(sb, r->md5);
    bin_put_u64(sb, r->size);
    put_str(sb, r->license);
    put_str(sb, r->subdir);
    sb_addc(sb, (char)r->is_conda);
}

void conda_repodata_blob_write(const conda_repodata *r, const char *body_sha256,
                               const conda_repodata_options *o, strbuf *out)
{
    char key[65];
    options_key(o, key);
    strbuf p = STRBUF_INIT;
    put_str(&p, r->subdir);
    bin_put_u32(&p, (uint32_t)r->n_records);
    for (size_t i = 0; i < r->n_records; i++)
        put_record(&p, &r->records[i]);
    bin_put_u32(&p, (uint32_t)r->n_excluded);
    for (size_t i = 0; i < r->n_excluded; i++) {
        put_str(&p, r->excluded[i].fn);
        put_str(&p, r->excluded[i].reason);
        put_str(&p, r->excluded[i].detail);
    }
    bin_frame_write(out, MAGIC, BLOB_FORMAT, body_sha256, key, &p);
    sb_release(&p);
}

/* ---- reading ---- */

typedef struct rd {
    bin_reader b;
    arena *a;
} rd;

/* A string: bounded by what is left, no NUL inside (a C string could not
 * have been written with one). */
static const char *get_str(rd *r, bool nullable)
{
    uint32_t n = bin_u32(&r->b);
    if (r->b.bad || (n == NULL_LEN && !nullable) || (n != NULL_LEN && !bin_need(&r->b, n))) {
        r->b.bad = true;
        return NULL;
    }
    if (n == NULL_LEN)
        return NULL;
    const char *s = (const char *)r->b.p;
    r->b.p += n;
    if (memchr(s, '\0', n)) {
        r->b.bad = true;
        return NULL;
    }
    return arena_strndup(r->a, s, n);
}

static const char *const *get_list(rd *r, size_t *n)
{
    uint32_t k = bin_u32(&r->b);
    /* each entry takes at least its 4-byte length */
    if (r->b.bad || !bin_need(&r->b, (size_t)k * 4)) {
        r->b.bad = true;
        *n = 0;
        return NULL;
    }
    const char **v = arena_alloc(r->a, (k ? k : 1) * sizeof *v);
    for (uint32_t i = 0; i < k && !r->b.bad; i++)
        v[i] = get_str(r, false);
    *n = k;
    return v;
}

static void get_record(rd *r, conda_record *c)
{
    c->fn = get_str(r, false);
    c->name = get_str(r, false);
    c->version = get_str(r, false);
    c->build = get_str(r, false);
    c->build_number = bin_u64(&r->b);
    c->depends = get_list(r, &c->n_depends);
    c->constrains = get_list(r, &c->n_constrains);
    c->track_features = get_list(r, &c->n_track_features);
    c->timestamp_ms = (int64_t)bin_u64(&r->b);
    c->noarch = (conda_noarch)bin_u8(&r->b, CONDA_NOARCH_PYTHON);
    c->sha256 = get_str(r, true);
    c->md5 = get_str(r, true);
    c->size = bin_u64(&r->b);
    c->license = get_str(r, true);
    c->subdir = get_str(r, true);
    c->is_conda = bin_u8(&r->b, 1) != 0;
    if ((c->sha256 && !is_lower_hex(c->sha256, 64)) || (c->md5 && !is_lower_hex(c->md5, 32)))
        r->b.bad = true;
}

static const char *known_reason(const char *s)
{
    for (size_t i = 0; s && reasons[i]; i++)
        if (strcmp(reasons[i], s) == 0)
            return reasons[i];
    return NULL;
}

bool conda_repodata_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                              const conda_repodata_options *o, conda_repodata **out)
{
    char key[65];
    options_key(o, key);
    *out = NULL;
    rd r = {{data, data + len, false}, arena_new()};
    if (!bin_frame_open(&r.b, MAGIC, BLOB_FORMAT, body_sha256, key)) {
        arena_free(r.a);
        return false;
    }
    const char *subdir = get_str(&r, true);
    uint32_t n = bin_u32(&r.b);
    /* a record takes at least 4 bytes per string and list it holds */
    conda_record *recs = !r.b.bad && bin_need(&r.b, (size_t)n * 60) ? xcalloc(n ? n : 1, sizeof *recs) : NULL;
    for (uint32_t i = 0; recs && i < n && !r.b.bad; i++)
        get_record(&r, &recs[i]);
    uint32_t nx = recs ? bin_u32(&r.b) : 0;
    conda_excluded *ex = recs && !r.b.bad && bin_need(&r.b, (size_t)nx * 12) ? xcalloc(nx ? nx : 1, sizeof *ex) : NULL;
    for (uint32_t i = 0; ex && i < nx && !r.b.bad; i++) {
        ex[i].fn = get_str(&r, false);
        ex[i].reason = known_reason(get_str(&r, false));
        ex[i].detail = get_str(&r, false);
        r.b.bad |= !ex[i].reason;
    }
    if (!recs || !ex || r.b.bad || r.b.p != r.b.end) {
        free(recs);
        free(ex);
        arena_free(r.a);
        return false;
    }
    conda_repodata *rp = xcalloc(1, sizeof *rp);
    rp->subdir = subdir;
    rp->records = recs, rp->n_records = n;
    rp->excluded = ex, rp->n_excluded = nx;
    rp->arena_ = r.a;
    *out = rp;
    return true;
}

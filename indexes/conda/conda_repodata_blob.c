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
 * u8 is_conda, u8 has_purls, list pypi_names. str: u32 length then the bytes, 0xffffffff for NULL; list:
 * u32 count then str*. Does no I/O. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "conda_repodata.h"

#define MAGIC "ELCONDA\n"
#define BLOB_FORMAT 2 /* 2: the records' purls */

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

static void put_record(strbuf *sb, const conda_record *r)
{
    bin_put_str(sb, r->fn);
    bin_put_str(sb, r->name);
    bin_put_str(sb, r->version);
    bin_put_str(sb, r->build);
    bin_put_u64(sb, r->build_number);
    bin_put_strs(sb, r->depends, r->n_depends);
    bin_put_strs(sb, r->constrains, r->n_constrains);
    bin_put_strs(sb, r->track_features, r->n_track_features);
    bin_put_u64(sb, (uint64_t)r->timestamp_ms);
    sb_addc(sb, (char)r->noarch);
    bin_put_str(sb, r->sha256);
    bin_put_str(sb, r->md5);
    bin_put_u64(sb, r->size);
    bin_put_str(sb, r->license);
    bin_put_str(sb, r->subdir);
    sb_addc(sb, (char)r->is_conda);
    sb_addc(sb, (char)r->has_purls);
    bin_put_strs(sb, r->pypi_names, r->n_pypi_names);
}

void conda_repodata_blob_write(const conda_repodata *r, const char *body_sha256,
                               const conda_repodata_options *o, strbuf *out)
{
    char key[65];
    options_key(o, key);
    strbuf p = STRBUF_INIT;
    bin_put_str(&p, r->subdir);
    bin_put_u32(&p, (uint32_t)r->n_records);
    for (size_t i = 0; i < r->n_records; i++)
        put_record(&p, &r->records[i]);
    bin_put_u32(&p, (uint32_t)r->n_excluded);
    for (size_t i = 0; i < r->n_excluded; i++) {
        bin_put_str(&p, r->excluded[i].fn);
        bin_put_str(&p, r->excluded[i].reason);
        bin_put_str(&p, r->excluded[i].detail);
    }
    bin_frame_write(out, MAGIC, BLOB_FORMAT, body_sha256, key, &p);
    sb_release(&p);
}

/* ---- reading ---- */

typedef struct rd {
    bin_reader b;
    arena *a;
} rd;

static void get_record(rd *r, conda_record *c)
{
    c->fn = bin_str(&r->b, r->a, false);
    c->name = bin_str(&r->b, r->a, false);
    c->version = bin_str(&r->b, r->a, false);
    c->build = bin_str(&r->b, r->a, false);
    c->build_number = bin_u64(&r->b);
    c->depends = bin_strs(&r->b, r->a, &c->n_depends);
    c->constrains = bin_strs(&r->b, r->a, &c->n_constrains);
    c->track_features = bin_strs(&r->b, r->a, &c->n_track_features);
    c->timestamp_ms = (int64_t)bin_u64(&r->b);
    c->noarch = (conda_noarch)bin_u8(&r->b, CONDA_NOARCH_PYTHON);
    c->sha256 = bin_str(&r->b, r->a, true);
    c->md5 = bin_str(&r->b, r->a, true);
    c->size = bin_u64(&r->b);
    c->license = bin_str(&r->b, r->a, true);
    c->subdir = bin_str(&r->b, r->a, true);
    c->is_conda = bin_u8(&r->b, 1) != 0;
    c->has_purls = bin_u8(&r->b, 1) != 0;
    c->pypi_names = bin_strs(&r->b, r->a, &c->n_pypi_names);
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
    const char *subdir = bin_str(&r.b, r.a, true);
    uint32_t n = bin_u32(&r.b);
    /* a record takes at least 4 bytes per string and list it holds */
    conda_record *recs = !r.b.bad && bin_need(&r.b, (size_t)n * 60) ? xcalloc(n ? n : 1, sizeof *recs) : NULL;
    for (uint32_t i = 0; recs && i < n && !r.b.bad; i++)
        get_record(&r, &recs[i]);
    uint32_t nx = recs ? bin_u32(&r.b) : 0;
    conda_excluded *ex = recs && !r.b.bad && bin_need(&r.b, (size_t)nx * 12) ? xcalloc(nx ? nx : 1, sizeof *ex) : NULL;
    for (uint32_t i = 0; ex && i < nx && !r.b.bad; i++) {
        ex[i].fn = bin_str(&r.b, r.a, false);
        ex[i].reason = known_reason(bin_str(&r.b, r.a, false));
        ex[i].detail = bin_str(&r.b, r.a, false);
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

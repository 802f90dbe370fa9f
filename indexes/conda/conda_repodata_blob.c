/* conda_repodata_blob.c — the parsed form of a repodata.json: a
 * conda_repodata in a compact binary layout, written after a parse and
 * read back instead of parsing when the cache already holds the body (as
 * the npm and apt readers keep theirs). A load read from it indexes the
 * names at once and decodes a name's records only when asked: a resolve
 * reaches a few hundred names of a channel's tens of thousands
 * (bench/conda/README.md). The reader trusts nothing: the data is a cache
 * file that may be torn, stale or damaged; every count and offset is
 * checked and every record walked once before the load is handed out,
 * and any doubt means false and a parse of the body, never a wrong model.
 *
 * Layout (integers little-endian): util's bin_frame (magic "ELCONDA\n",
 * format, the body's sha256, the options key, payload length, CRC-32),
 * then the payload: strz subdir; u32 nexcluded, (strz fn, reason,
 * detail)*; u32 nrecords; u32 nnames, (strz name, u32 count, u64 offset
 * of its first record from the payload's start)* in byte order of names;
 * then the records, name after name, each name's by file name. A record:
 * strz fn version build, u64 build_number, list depends constrains
 * track_features features, u64 timestamp_ms, u8 noarch, strz sha256 md5, u64
 * size, strz license subdir, u8 is_conda has_purls, list pypi_names
 * (its name is its slot's). strz:
 * u32 length, the bytes and a NUL (0xffffffff for NULL); list: u32 count
 * then strz*. Strings point into the form. Does no I/O. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "conda_repodata.h"
#include "conda_repodata_internal.h"

#define MAGIC "ELCONDA\n"
#define BLOB_FORMAT 4 /* 2: the records' purls; 3: indexed by name; 4: features */

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
    bin_put_strz(sb, r->fn);
    bin_put_strz(sb, r->version);
    bin_put_strz(sb, r->build);
    bin_put_u64(sb, r->build_number);
    bin_put_strzs(sb, r->depends, r->n_depends);
    bin_put_strzs(sb, r->constrains, r->n_constrains);
    bin_put_strzs(sb, r->track_features, r->n_track_features);
    bin_put_strzs(sb, r->features, r->n_features);
    bin_put_u64(sb, (uint64_t)r->timestamp_ms);
    sb_addc(sb, (char)r->noarch);
    bin_put_strz(sb, r->sha256);
    bin_put_strz(sb, r->md5);
    bin_put_u64(sb, r->size);
    bin_put_strz(sb, r->license);
    bin_put_strz(sb, r->subdir);
    sb_addc(sb, (char)r->is_conda);
    sb_addc(sb, (char)r->has_purls);
    bin_put_strzs(sb, r->pypi_names, r->n_pypi_names);
}

/* The form of a parsed load (r->records set, names_ its index). */
void conda_repodata_blob_write(const conda_repodata *r, const char *body_sha256,
                               const conda_repodata_options *o, strbuf *out)
{
    char key[65];
    options_key(o, key);
    strbuf p = STRBUF_INIT, recs = STRBUF_INIT;
    bin_put_strz(&p, r->subdir);
    bin_put_u32(&p, (uint32_t)r->n_excluded);
    for (size_t i = 0; i < r->n_excluded; i++) {
        bin_put_strz(&p, r->excluded[i].fn);
        bin_put_strz(&p, r->excluded[i].reason);
        bin_put_strz(&p, r->excluded[i].detail);
    }
    bin_put_u32(&p, (uint32_t)r->n_records);
    bin_put_u32(&p, (uint32_t)r->n_names_);
    size_t base = p.len;
    for (size_t i = 0; i < r->n_names_; i++)
        base += 4 + strlen(r->names_[i].name) + 1 + 4 + 8;
    for (size_t i = 0; i < r->n_names_; i++) {
        const struct conda_name_slot *s = &r->names_[i];
        bin_put_strz(&p, s->name);
        bin_put_u32(&p, (uint32_t)s->n);
        bin_put_u64(&p, (uint64_t)(base + recs.len));
        for (size_t k = 0; k < s->n; k++)
            put_record(&recs, s->recs[k]);
    }
    sb_add(&p, recs.buf, recs.len);
    sb_release(&recs);
    bin_frame_write(out, MAGIC, BLOB_FORMAT, body_sha256, key, &p);
    sb_release(&p);
}

/* ---- reading ---- */

/* One record of name `name` into *c (lists allocated in `a`, or with `a`
 * NULL only walked); r is bad when it is not what was written. */
static void get_record(bin_reader *r, arena *a, const char *name, conda_record *c)
{
    c->fn = bin_need_strz(r);
    c->name = name;
    c->version = bin_need_strz(r);
    c->build = bin_need_strz(r);
    c->build_number = bin_u64(r);
    c->depends = bin_strzs(r, a, &c->n_depends);
    c->constrains = bin_strzs(r, a, &c->n_constrains);
    c->track_features = bin_strzs(r, a, &c->n_track_features);
    c->features = bin_strzs(r, a, &c->n_features);
    c->timestamp_ms = (int64_t)bin_u64(r);
    c->noarch = (conda_noarch)bin_u8(r, CONDA_NOARCH_PYTHON);
    c->sha256 = bin_strz(r);
    c->md5 = bin_strz(r);
    c->size = bin_u64(r);
    c->license = bin_strz(r);
    c->subdir = bin_strz(r);
    c->is_conda = bin_u8(r, 1) != 0;
    c->has_purls = bin_u8(r, 1) != 0;
    c->pypi_names = bin_strzs(r, a, &c->n_pypi_names);
    if ((c->sha256 && !is_lower_hex(c->sha256, 64)) || (c->md5 && !is_lower_hex(c->md5, 32)))
        r->bad = true;
}

static const char *known_reason(const char *s)
{
    for (size_t i = 0; s && reasons[i]; i++)
        if (strcmp(reasons[i], s) == 0)
            return reasons[i];
    return NULL;
}

static bool get_excluded(bin_reader *r, conda_repodata *rp)
{
    rp->n_excluded = bin_count(r, 15);
    conda_excluded *ex = xcalloc(rp->n_excluded + 1, sizeof *ex);
    for (size_t i = 0; i < rp->n_excluded && !r->bad; i++) {
        ex[i].fn = bin_need_strz(r);
        ex[i].reason = known_reason(bin_need_strz(r));
        ex[i].detail = bin_need_strz(r);
        r->bad |= !ex[i].reason;
    }
    rp->excluded = ex;
    return !r->bad;
}
/* The names, each's first record checked to be where the last one's
 * records end; then every record walked. */
static bool get_names(bin_reader *r, conda_repodata *rp, const unsigned char *payload)
{
    rp->n_records = bin_count(r, 3 * 5 + 8 + 3 * 4 + 8 + 1 + 2 * 4 + 8 + 2 * 4 + 2 + 4);
    rp->n_names_ = bin_count(r, 5 + 4 + 8);
    struct conda_name_slot *s = arena_alloc(rp->arena_, (rp->n_names_ + 1) * sizeof *s);
    size_t total = 0;
    for (size_t i = 0; i < rp->n_names_ && !r->bad; i++) {
        s[i].name = bin_need_strz(r);
        s[i].n = bin_u32(r);
        uint64_t off = bin_u64(r);
        s[i].at = off < (uint64_t)(r->end - payload) ? payload + off : NULL;
        s[i].recs = NULL;
        total += s[i].n;
        if (!s[i].at || !s[i].n || (i && strcmp(s[i - 1].name, s[i].name) >= 0))
            r->bad = true; /* the lookup's bsearch needs the written order */
    }
    rp->names_ = s;
    if (r->bad || total != rp->n_records)
        return false;
    for (size_t i = 0; i < rp->n_names_ && !r->bad; i++) {
        if (s[i].at != r->p)
            return false;
        for (size_t k = 0; k < s[i].n && !r->bad; k++) {
            conda_record scratch;
            get_record(r, NULL, s[i].name, &scratch);
        }
    }
    return !r->bad && r->p == r->end;
}

bool conda_repodata_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                              const conda_repodata_options *o, bool checked,
                              conda_repodata **out)
{
    char key[65];
    options_key(o, key);
    *out = NULL;
    bin_reader r = {data, data + len, false};
    bool ok = checked ? bin_frame_open_trusted(&r, MAGIC, BLOB_FORMAT, body_sha256, key)
                      : bin_frame_open(&r, MAGIC, BLOB_FORMAT, body_sha256, key);
    if (!ok)
        return false;
    const unsigned char *payload = r.p;
    conda_repodata *rp = xcalloc(1, sizeof *rp);
    rp->arena_ = arena_new();
    rp->form_end_ = r.end;
    rp->subdir = bin_strz(&r);
    if (!get_excluded(&r, rp) || !get_names(&r, rp, payload)) {
        conda_repodata_free(rp);
        return false;
    }
    *out = rp;
    return true;
}

/* ---- by name ---- */

size_t conda_repodata_n_names(const conda_repodata *r)
{
    return r->n_names_;
}

const char *conda_repodata_name_at(const conda_repodata *r, size_t i)
{
    return i < r->n_names_ ? r->names_[i].name : NULL;
}

const conda_record *const *conda_repodata_records_at(conda_repodata *r, size_t i, size_t *n)
{
    *n = 0;
    if (i >= r->n_names_)
        return NULL;
    struct conda_name_slot *s = &r->names_[i];
    if (!s->recs) {
        /* walked by conda_repodata_blob_read(): reads the same again */
        bin_reader b = {s->at, r->form_end_, false};
        conda_record *recs = arena_alloc(r->arena_, s->n * sizeof *recs);
        const conda_record **ptrs = arena_alloc(r->arena_, s->n * sizeof *ptrs);
        for (size_t k = 0; k < s->n; k++) {
            get_record(&b, r->arena_, s->name, &recs[k]);
            ptrs[k] = &recs[k];
        }
        s->recs = ptrs;
    }
    *n = s->n;
    return s->recs;
}

/* osv_blob.c — the parsed form of an advisory snapshot: an osv_db in a
 * compact binary layout, kept in the cache under the snapshot's key
 * (osv_snapshot_key()), so that a resolve need not inflate and parse tens
 * of thousands of JSON records again (bench/advisories/README.md). The
 * reader trusts nothing: the data is a cache file that may be torn, stale
 * or damaged, and any doubt means NULL and a load of the snapshot itself.
 *
 * Layout: the frame of util's binform (magic "ELOSVDB\n", OSV_BLOB_FORMAT,
 * the key twice), then the payload: strz digest, newest; u64 withdrawn;
 * u32 files, strz each; u32 records, each: strz id, summary, modified,
 * severity, source; u32 aliases, strz each; u32 affected, each: u8 eco,
 * strz name; u32 ranges, each: u8 type; u32 events, each: u8 kind, strz
 * version; u32 versions, strz each. Strings point into the payload, which
 * the db keeps. */
#include <string.h>

#include "osv.h"

#define MAGIC "ELOSVDB\n"

static void put_strzs(strbuf *sb, const char *const *v, size_t n)
{
    bin_put_u32(sb, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        bin_put_strz(sb, v[i]);
}

static void put_affected(strbuf *sb, const osv_affected *af)
{
    sb_addc(sb, (char)af->eco);
    bin_put_strz(sb, af->name);
    bin_put_u32(sb, (uint32_t)af->n_ranges);
    for (size_t i = 0; i < af->n_ranges; i++) {
        const osv_range *rg = &af->ranges[i];
        sb_addc(sb, (char)rg->type);
        bin_put_u32(sb, (uint32_t)rg->n_events);
        for (size_t k = 0; k < rg->n_events; k++) {
            sb_addc(sb, (char)rg->events[k].kind);
            bin_put_strz(sb, rg->events[k].version);
        }
    }
    put_strzs(sb, af->versions, af->n_versions);
}

void osv_db_blob_write(const osv_db *db, const char key[65], strbuf *out)
{
    strbuf pl = STRBUF_INIT;
    bin_put_strz(&pl, db->digest);
    bin_put_strz(&pl, db->newest);
    bin_put_u64(&pl, db->n_withdrawn);
    put_strzs(&pl, db->files, db->n_files);
    bin_put_u32(&pl, (uint32_t)db->n_records);
    for (size_t i = 0; i < db->n_records; i++) {
        const osv_record *r = db->records[i];
        bin_put_strz(&pl, r->id);
        bin_put_strz(&pl, r->summary);
        bin_put_strz(&pl, r->modified);
        bin_put_strz(&pl, r->severity);
        bin_put_strz(&pl, r->source);
        put_strzs(&pl, r->aliases, r->n_aliases);
        bin_put_u32(&pl, (uint32_t)r->n_affected);
        for (size_t k = 0; k < r->n_affected; k++)
            put_affected(&pl, &r->affected[k]);
    }
    bin_frame_write(out, MAGIC, OSV_BLOB_FORMAT, key, key, &pl);
    sb_release(&pl);
}

/* A count of items each at least `min` bytes long: never more than what
 * is left can hold, so a damaged count cannot ask for a huge allocation. */
static size_t get_count(bin_reader *r, size_t min)
{
    uint32_t n = bin_u32(r);
    if (!r->bad && (size_t)(r->end - r->p) / min < n)
        r->bad = true;
    return r->bad ? 0 : n;
}

/* A string that must be there. */
static const char *need_strz(bin_reader *r)
{
    const char *s = bin_strz(r);
    if (!s)
        r->bad = true;
    return s ? s : "";
}

static const char **get_strzs(bin_reader *r, arena *a, size_t *n)
{
    *n = get_count(r, 5);
    const char **v = arena_alloc(a, (*n + 1) * sizeof *v);
    for (size_t i = 0; i < *n && !r->bad; i++)
        v[i] = need_strz(r);
    v[*n] = NULL;
    return v;
}

static void get_range(bin_reader *r, arena *a, osv_range *rg)
{
    rg->type = (osv_range_type)bin_u8(r, OSV_RANGE_SEMVER);
    rg->n_events = get_count(r, 6);
    rg->events = arena_alloc(a, (rg->n_events + 1) * sizeof *rg->events);
    for (size_t i = 0; i < rg->n_events && !r->bad; i++) {
        rg->events[i].kind = (osv_event_kind)bin_u8(r, OSV_LIMIT);
        rg->events[i].version = need_strz(r);
    }
}

static void get_affected(bin_reader *r, arena *a, osv_affected *af)
{
    af->eco = (el_ecosystem)bin_u8(r, EL_ECO_CONDA);
    af->name = need_strz(r);
    af->n_ranges = get_count(r, 5);
    af->ranges = arena_alloc(a, (af->n_ranges + 1) * sizeof *af->ranges);
    for (size_t i = 0; i < af->n_ranges && !r->bad; i++)
        get_range(r, a, &af->ranges[i]);
    af->versions = get_strzs(r, a, &af->n_versions);
}

static osv_record *get_record(bin_reader *r, arena *a)
{
    osv_record *rec = arena_alloc(a, sizeof *rec);
    rec->id = need_strz(r);
    rec->summary = bin_strz(r);
    rec->modified = need_strz(r);
    rec->severity = bin_strz(r);
    rec->source = need_strz(r);
    rec->aliases = get_strzs(r, a, &rec->n_aliases);
    rec->n_affected = get_count(r, 10);
    rec->affected = arena_alloc(a, (rec->n_affected + 1) * sizeof *rec->affected);
    for (size_t i = 0; i < rec->n_affected && !r->bad; i++)
        get_affected(r, a, &rec->affected[i]);
    return rec;
}

osv_db *osv_db_blob_read(unsigned char *data, size_t len, const char key[65])
{
    osv_db *db = xcalloc(1, sizeof *db);
    db->a = arena_new();
    db->form = data; /* not copied: a snapshot's form is megabytes */
    bin_reader r = { data, data + len, false };
    if (bin_frame_open(&r, MAGIC, OSV_BLOB_FORMAT, key, key)) {
        const char *digest = need_strz(&r);
        if (!r.bad && strlen(digest) == 64)
            memcpy(db->digest, digest, 65);
        else
            r.bad = true;
        db->newest = bin_strz(&r);
        db->n_withdrawn = (size_t)bin_u64(&r);
        db->files = get_strzs(&r, db->a, &db->n_files);
        db->n_records = get_count(&r, 30);
        db->records = arena_alloc(db->a, (db->n_records + 1) * sizeof *db->records);
        for (size_t i = 0; i < db->n_records && !r.bad; i++)
            db->records[i] = get_record(&r, db->a);
        if (r.p != r.end)
            r.bad = true; /* trailing bytes: not what was written */
    } else {
        r.bad = true;
    }
    if (r.bad) {
        osv_db_free(db);
        return NULL;
    }
    db->findings = arena_alloc(db->a, sizeof *db->findings);
    return db;
}

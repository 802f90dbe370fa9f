/* osv_blob.c — the parsed form of an advisory snapshot: an osv_db in a
 * compact binary layout, kept in the cache under the snapshot's key
 * (osv_snapshot_key()), so that a resolve need not inflate and parse tens
 * of thousands of JSON records again (bench/advisories/README.md). A db
 * read from it indexes the names at once and reads a record only when a
 * lookup reaches it: a resolve asks about a few dozen names of tens of
 * thousands. The reader trusts nothing: the data is a cache file that may
 * be torn, stale or damaged; every offset and count is checked, and every
 * record is walked once before the db is handed out, so a lookup cannot
 * meet a record it cannot read. Any doubt means NULL and a load of the
 * snapshot itself.
 *
 * Layout: the frame of util's binform (magic "ELOSVDB\n", OSV_BLOB_FORMAT,
 * the key twice), then the payload: strz digest, newest; u64 withdrawn;
 * u32 files, strz each; u32 names, each: u8 eco, strz name, u32 n, u32
 * record index each; u32 records, u64 offset of each (from the payload's
 * start); the records, each: strz id, summary, modified, severity, source;
 * u32 aliases, strz each; u32 affected, each: u8 eco, strz name; u32
 * ranges, each: u8 type; u32 events, each: u8 kind, strz version; u32
 * versions, strz each. Strings point into the payload, which the db keeps. */
#include <string.h>

#include "osv.h"

#define MAGIC "ELOSVDB\n"

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
    bin_put_strzs(sb, af->versions, af->n_versions);
}

static void put_record(strbuf *sb, const osv_record *r)
{
    bin_put_strz(sb, r->id);
    bin_put_strz(sb, r->summary);
    bin_put_strz(sb, r->modified);
    bin_put_strz(sb, r->severity);
    bin_put_strz(sb, r->source);
    bin_put_strzs(sb, r->aliases, r->n_aliases);
    bin_put_u32(sb, (uint32_t)r->n_affected);
    for (size_t k = 0; k < r->n_affected; k++)
        put_affected(sb, &r->affected[k]);
}

void osv_db_blob_write(const osv_db *db, const char key[65], strbuf *out)
{
    strbuf pl = STRBUF_INIT, recs = STRBUF_INIT;
    bin_put_strz(&pl, db->digest);
    bin_put_strz(&pl, db->newest);
    bin_put_u64(&pl, db->n_withdrawn);
    bin_put_strzs(&pl, db->files, db->n_files);
    bin_put_u32(&pl, (uint32_t)db->n_names);
    for (size_t i = 0; i < db->n_names; i++) {
        sb_addc(&pl, (char)db->names[i].eco);
        bin_put_strz(&pl, db->names[i].name);
        bin_put_u32(&pl, (uint32_t)db->names[i].n);
        for (size_t k = 0; k < db->names[i].n; k++)
            bin_put_u32(&pl, db->names[i].records[k]);
    }
    bin_put_u32(&pl, (uint32_t)db->n_records);
    size_t base = pl.len + 8 * db->n_records; /* where the records start */
    for (size_t i = 0; i < db->n_records; i++) {
        bin_put_u64(&pl, base + recs.len);
        put_record(&recs, db->records[i]);
    }
    sb_add(&pl, recs.buf, recs.len);
    bin_frame_write(out, MAGIC, OSV_BLOB_FORMAT, key, key, &pl);
    sb_release(&recs);
    sb_release(&pl);
}

static void get_range(bin_reader *r, arena *a, osv_range *rg)
{
    rg->type = (osv_range_type)bin_u8(r, OSV_RANGE_SEMVER);
    rg->n_events = bin_count(r, 6);
    rg->events = a ? arena_alloc(a, (rg->n_events + 1) * sizeof *rg->events) : NULL;
    for (size_t i = 0; i < rg->n_events && !r->bad; i++) {
        osv_event ev = { (osv_event_kind)bin_u8(r, OSV_LIMIT), bin_need_strz(r) };
        if (a)
            rg->events[i] = ev;
    }
}

static void get_affected(bin_reader *r, arena *a, osv_affected *af)
{
    af->eco = (el_ecosystem)bin_u8(r, EL_ECO_CONDA);
    af->name = bin_need_strz(r);
    af->n_ranges = bin_count(r, 5);
    af->ranges = a ? arena_alloc(a, (af->n_ranges + 1) * sizeof *af->ranges) : NULL;
    for (size_t i = 0; i < af->n_ranges && !r->bad; i++) {
        osv_range scratch;
        get_range(r, a, a ? &af->ranges[i] : &scratch);
    }
    af->versions = bin_strzs(r, a, &af->n_versions);
}

/* Record i into *rec (allocated in `a`), or with `a` NULL only walked;
 * false when it is not exactly what was written. */
static bool get_record(const osv_db *db, size_t i, arena *a, osv_record *rec)
{
    const unsigned char *o = db->rec_off + 8 * i;
    bin_reader at = { o, o + 8, false };
    uint64_t off = bin_u64(&at);
    if (off >= db->form_len)
        return false;
    bin_reader r = { db->form + off, db->form + db->form_len, false };
    rec->id = bin_need_strz(&r);
    rec->summary = bin_strz(&r);
    rec->modified = bin_need_strz(&r);
    rec->severity = bin_strz(&r);
    rec->source = bin_need_strz(&r);
    rec->aliases = bin_strzs(&r, a, &rec->n_aliases);
    rec->n_affected = bin_count(&r, 14);
    rec->affected = a ? arena_alloc(a, (rec->n_affected + 1) * sizeof *rec->affected) : NULL;
    for (size_t k = 0; k < rec->n_affected && !r.bad; k++) {
        osv_affected scratch;
        get_affected(&r, a, a ? &rec->affected[k] : &scratch);
    }
    return !r.bad;
}

const osv_record *osv_db_record(const osv_db *db, size_t i)
{
    if (i >= db->n_records)
        return NULL;
    if (!db->records[i] && db->form) {
        osv_record *rec = arena_alloc(db->a, sizeof *rec);
        if (!get_record(db, i, db->a, rec))
            return NULL;
        db->records[i] = rec; /* the array is the db's cache, not its content */
    }
    return db->records[i];
}

/* The names: eco, name, then its record indices (each below n_records). */
static void get_names(bin_reader *r, osv_db *db, size_t n_records_max)
{
    db->n_names = bin_count(r, 10);
    db->names = arena_alloc(db->a, (db->n_names + 1) * sizeof *db->names);
    for (size_t i = 0; i < db->n_names && !r->bad; i++) {
        osv_name *e = &db->names[i];
        e->eco = (el_ecosystem)bin_u8(r, EL_ECO_CONDA);
        e->name = bin_need_strz(r);
        e->n = bin_count(r, 4);
        e->records = arena_alloc(db->a, (e->n + 1) * sizeof *e->records);
        for (size_t k = 0; k < e->n && !r->bad; k++)
            if ((e->records[k] = bin_u32(r)) >= n_records_max)
                r->bad = true;
        if (i && (db->names[i - 1].eco > e->eco ||
                  (db->names[i - 1].eco == e->eco && strcmp(db->names[i - 1].name, e->name) >= 0)))
            r->bad = true; /* the lookup's bsearch needs the written order */
    }
}

/* Everything but the records, which stay in the form; then a walk of each. */
static bool read_payload(bin_reader *r, osv_db *db)
{
    const char *digest = bin_need_strz(r);
    if (r->bad || strlen(digest) != 64)
        return false;
    memcpy(db->digest, digest, 65);
    db->newest = bin_strz(r);
    db->n_withdrawn = (size_t)bin_u64(r);
    db->files = bin_strzs(r, db->a, &db->n_files);
    get_names(r, db, SIZE_MAX); /* the record count comes after: checked below */
    db->n_records = bin_count(r, 8 + 31);
    db->rec_off = r->p;
    if (r->bad || !bin_need(r, 8 * db->n_records))
        return false;
    for (size_t i = 0; i < db->n_names; i++)
        for (size_t k = 0; k < db->names[i].n; k++)
            if (db->names[i].records[k] >= db->n_records)
                return false;
    db->records = arena_alloc(db->a, (db->n_records + 1) * sizeof *db->records);
    for (size_t i = 0; i < db->n_records; i++) {
        osv_record scratch;
        if (!get_record(db, i, NULL, &scratch))
            return false;
    }
    return true;
}

osv_db *osv_db_blob_read(const unsigned char *data, size_t len, const char key[65],
                         bool checked)
{
    osv_db *db = xcalloc(1, sizeof *db);
    db->a = arena_new();
    bin_reader r = { data, data + len, false };
    bool ok = checked ? bin_frame_open_trusted(&r, MAGIC, OSV_BLOB_FORMAT, key, key)
                      : bin_frame_open(&r, MAGIC, OSV_BLOB_FORMAT, key, key);
    if (ok) {
        db->form = r.p;
        db->form_len = (size_t)(r.end - r.p);
        ok = read_payload(&r, db);
    }
    if (!ok) {
        osv_db_free(db);
        return NULL;
    }
    db->findings = arena_alloc(db->a, sizeof *db->findings);
    return db;
}

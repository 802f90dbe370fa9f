/* osv_load.c — reads an advisory snapshot directory: every *.json file at
 * any depth and every *.zip archive (OSV's per-ecosystem all.zip, read with
 * libarchive), each JSON document handed to osv_parse.c. Owns the
 * snapshot's identity: a sha256 over each file's relative path and bytes in
 * path order, so the same snapshot gives the same digest on every machine
 * whatever order readdir() returns. Nothing is written. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <archive.h>
#include <archive_entry.h>

#include "osv.h"

/* One record file or archive member is at most this large: the largest
 * public OSV records (Debian's, listing every affected version) are a few
 * hundred kilobytes. An archive's total is capped by its entries. */
#define OSV_RECORD_MAX ((size_t)16 << 20)
#define OSV_ARCHIVE_MAX ((size_t)1 << 30)

typedef struct loader {
    el_ctx *ctx;
    osv_db *db;
    const char *root;
    ptrvec files;    /* relative paths (malloc'd), sorted before reading */
    ptrvec records;  /* osv_record * in the arena */
    ptrvec findings; /* osv_finding * in the arena */
    sha256_stream *digest;
} loader;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* qsort() of an empty ptrvec (items NULL) is undefined: skip it. */
static void sort_ptrs(ptrvec *v, int (*cmp)(const void *, const void *))
{
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(void *), cmp);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects the relative paths of *.json and *.zip files under rel. */
static el_code walk(loader *l, const char *rel)
{
    char *dir = *rel ? xasprintf("%s/%s", l->root, rel) : xstrdup(l->root);
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) {
        el_code rc = el_fail_io(l->ctx, errno, "cannot read the advisory directory %s: %s", dir,
                                strerror(errno));
        el_detail_str(l->ctx, "path", dir);
        free(dir);
        return rc;
    }
    el_code rc = EL_OK;
    while (rc == EL_OK && (e = readdir(d))) {
        struct stat st;
        if (e->d_name[0] == '.')
            continue; /* ., .. and hidden files (a .git of a cloned database) */
        char *sub = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
        char *full = xasprintf("%s/%s", l->root, sub);
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
            rc = walk(l, sub);
        else if (ends_with(sub, ".json") || ends_with(sub, ".zip"))
            ptrvec_push(&l->files, xstrdup(sub));
        free(full);
        free(sub);
    }
    closedir(d);
    free(dir);
    return rc;
}

size_t osv_file_max(const char *rel)
{
    return ends_with(rel, ".zip") ? OSV_ARCHIVE_MAX : OSV_RECORD_MAX;
}

static void add_finding(loader *l, const char *source, const char *why)
{
    osv_finding *f = arena_alloc(l->db->a, sizeof *f);
    f->source = arena_strdup(l->db->a, source);
    f->message = arena_strdup(l->db->a, why);
    ptrvec_push(&l->findings, f);
}

static void add_document(loader *l, const char *source, const char *text, size_t len)
{
    osv_record *r = NULL;
    const char *why = NULL;
    int rc = osv_parse_record(l->db->a, text, len, source, &r, &why);
    if (rc < 0)
        add_finding(l, source, why);
    else if (rc == 1)
        ptrvec_push(&l->records, r);
    else if (rc == 2)
        l->db->n_withdrawn++;
}

static void digest_add(loader *l, const char *source, const char *data, size_t len)
{
    char hex[65];
    sha256_hex(data, len, hex);
    sha256_update(l->digest, source, strlen(source) + 1);
    sha256_update(l->digest, hex, 64);
    sha256_update(l->digest, "\n", 1);
}

static el_code read_member(loader *l, struct archive *ar, struct archive_entry *ent,
                           const char *source)
{
    la_int64_t size = archive_entry_size(ent);
    if (size < 0 || (size_t)size > OSV_RECORD_MAX)
        return el_fail(l->ctx, EL_SPEC_INVALID, "%s is over %zu bytes", source, OSV_RECORD_MAX);
    char *buf = xmalloc((size_t)size + 1);
    la_ssize_t got = archive_read_data(ar, buf, (size_t)size);
    if (got != size) {
        free(buf);
        el_fail(l->ctx, EL_SPEC_INVALID, "%s cannot be read from the archive: %s", source,
                archive_error_string(ar) ? archive_error_string(ar) : "short read");
        el_detail_str(l->ctx, "path", source);
        return EL_SPEC_INVALID;
    }
    buf[size] = '\0';
    digest_add(l, source, buf, (size_t)size);
    add_document(l, source, buf, (size_t)size);
    free(buf);
    return EL_OK;
}

/* Archive members are read in the archive's order; all.zip is written in a
 * fixed order, and the digest covers the members by name and bytes. */
static el_code read_zip(loader *l, const char *rel)
{
    char *full = xasprintf("%s/%s", l->root, rel);
    struct archive *ar = archive_read_new();
    struct archive_entry *ent;
    el_code rc = EL_OK;
    int r;
    archive_read_support_format_zip(ar);
    if (archive_read_open_filename(ar, full, 65536) != ARCHIVE_OK) {
        rc = el_fail(l->ctx, EL_SPEC_INVALID, "%s is not a readable zip archive: %s", rel,
                     archive_error_string(ar));
        el_detail_str(l->ctx, "path", full);
    }
    while (rc == EL_OK && (r = archive_read_next_header(ar, &ent)) == ARCHIVE_OK) {
        const char *name = archive_entry_pathname(ent);
        if (!name || !ends_with(name, ".json") || archive_entry_filetype(ent) != AE_IFREG)
            continue;
        char *source = xasprintf("%s!%s", rel, name);
        rc = read_member(l, ar, ent, source);
        free(source);
    }
    if (rc == EL_OK && r != ARCHIVE_EOF) {
        rc = el_fail(l->ctx, EL_SPEC_INVALID, "%s is a corrupt zip archive: %s", rel,
                     archive_error_string(ar));
        el_detail_str(l->ctx, "path", full);
    }
    archive_read_free(ar);
    free(full);
    return rc;
}

static el_code read_json(loader *l, const char *rel)
{
    char *full = xasprintf("%s/%s", l->root, rel);
    size_t len = 0;
    char *text = read_file(full, OSV_RECORD_MAX, &len);
    if (!text) {
        el_code rc = el_fail_io(l->ctx, errno, "cannot read the advisory %s: %s", full,
                                file_strerror(errno));
        el_detail_str(l->ctx, "path", full);
        free(full);
        return rc;
    }
    digest_add(l, rel, text, len);
    add_document(l, rel, text, len);
    free(text);
    free(full);
    return EL_OK;
}

static int record_cmp(const void *a, const void *b)
{
    const osv_record *x = *(osv_record *const *)a, *y = *(osv_record *const *)b;
    int c = strcmp(x->id, y->id);
    return c ? c : strcmp(x->source, y->source);
}

static int finding_cmp(const void *a, const void *b)
{
    const osv_finding *x = *(osv_finding *const *)a, *y = *(osv_finding *const *)b;
    int c = strcmp(x->source, y->source);
    return c ? c : strcmp(x->message, y->message);
}

typedef struct name_ref {
    el_ecosystem eco;
    const char *name;
    uint32_t record;
} name_ref;

static int name_ref_cmp(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    if (x->eco != y->eco)
        return x->eco < y->eco ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->record > y->record) - (x->record < y->record);
}

/* db->names from the records: every (eco, name) with its records. */
static void index_names(osv_db *db)
{
    size_t n = 0;
    for (size_t i = 0; i < db->n_records; i++)
        n += db->records[i]->n_affected;
    name_ref *refs = xmalloc((n ? n : 1) * sizeof *refs);
    n = 0;
    for (size_t i = 0; i < db->n_records; i++)
        for (size_t k = 0; k < db->records[i]->n_affected; k++)
            refs[n++] = (name_ref){ db->records[i]->affected[k].eco,
                                    db->records[i]->affected[k].name, (uint32_t)i };
    if (n > 1)
        qsort(refs, n, sizeof *refs, name_ref_cmp);
    db->names = arena_alloc(db->a, (n + 1) * sizeof *db->names);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && refs[j].eco == refs[i].eco && strcmp(refs[j].name, refs[i].name) == 0)
            j++;
        osv_name *e = &db->names[db->n_names++];
        *e = (osv_name){ refs[i].eco, refs[i].name, arena_alloc(db->a, (j - i) * sizeof(uint32_t)), 0 };
        for (size_t k = i; k < j; k++)
            if (!e->n || e->records[e->n - 1] != refs[k].record) /* a record naming it twice */
                e->records[e->n++] = refs[k].record;
        i = j;
    }
    free(refs);
}

/* Moves the collected pointers into the db's arrays, sorted. */
static void finish(loader *l)
{
    osv_db *db = l->db;
    sort_ptrs(&l->records, record_cmp);
    sort_ptrs(&l->findings, finding_cmp);
    db->n_records = l->records.len;
    db->records = arena_alloc(db->a, (db->n_records + 1) * sizeof *db->records);
    for (size_t i = 0; i < db->n_records; i++) {
        db->records[i] = l->records.items[i];
        /* RFC 3339 times in UTC compare as text when written alike; OSV
         * writes them with Z, so the greatest string is the newest. */
        if (!db->newest || strcmp(db->records[i]->modified, db->newest) > 0)
            db->newest = db->records[i]->modified;
    }
    db->n_findings = l->findings.len;
    db->findings = arena_alloc(db->a, (db->n_findings + 1) * sizeof *db->findings);
    for (size_t i = 0; i < db->n_findings; i++)
        db->findings[i] = *(osv_finding *)l->findings.items[i];
    index_names(db);
}

el_code osv_db_load(el_ctx *ctx, const char *dir, osv_db **out)
{
    loader l = { ctx, xcalloc(1, sizeof(osv_db)), dir, PTRVEC_INIT, PTRVEC_INIT, PTRVEC_INIT,
                 sha256_begin() };
    el_code rc;
    *out = NULL;
    l.db->a = arena_new();
    rc = walk(&l, "");
    sort_ptrs(&l.files, name_cmp);
    for (size_t i = 0; rc == EL_OK && i < l.files.len; i++) {
        const char *rel = l.files.items[i];
        rc = ends_with(rel, ".zip") ? read_zip(&l, rel) : read_json(&l, rel);
    }
    l.db->files = arena_alloc(l.db->a, (l.files.len + 1) * sizeof *l.db->files);
    for (size_t i = 0; i < l.files.len; i++) {
        l.db->files[l.db->n_files++] = arena_strdup(l.db->a, l.files.items[i]);
        free(l.files.items[i]);
    }
    ptrvec_release(&l.files);
    sha256_end(l.digest, l.db->digest);
    if (rc == EL_OK)
        finish(&l);
    ptrvec_release(&l.records);
    ptrvec_release(&l.findings);
    if (rc != EL_OK) {
        osv_db_free(l.db);
        return rc;
    }
    *out = l.db;
    return EL_OK;
}

el_code osv_snapshot_key(el_ctx *ctx, const char *dir, char key[65])
{
    loader l = { ctx, NULL, dir, PTRVEC_INIT, PTRVEC_INIT, PTRVEC_INIT, sha256_begin() };
    el_code rc = walk(&l, "");
    sort_ptrs(&l.files, name_cmp);
    char line[160];
    int n = snprintf(line, sizeof line, "osv-snapshot-key %d\n", OSV_BLOB_FORMAT);
    sha256_update(l.digest, line, (size_t)n);
    for (size_t i = 0; i < l.files.len; i++) {
        const char *rel = l.files.items[i];
        char *full = xasprintf("%s/%s", dir, rel);
        struct stat st;
        if (rc == EL_OK && stat(full, &st) != 0) { /* what is read: a link's target */
            rc = el_fail_io(ctx, errno, "cannot read the advisory %s: %s", full, strerror(errno));
            el_detail_str(ctx, "path", full);
        }
        if (rc == EL_OK) {
            n = snprintf(line, sizeof line, "%llu %llu %llu %o %lld.%09ld %lld.%09ld\n",
                         (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                         (unsigned long long)st.st_size, (unsigned)st.st_mode,
                         (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                         (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
            sha256_update(l.digest, rel, strlen(rel) + 1);
            sha256_update(l.digest, line, (size_t)n);
        }
        free(full);
        free(l.files.items[i]);
    }
    ptrvec_release(&l.files);
    sha256_end(l.digest, key);
    return rc;
}

void osv_db_free(osv_db *db)
{
    if (!db)
        return;
    if (db->map)
        munmap(db->map, db->map_len);
    free(db->owned);
    arena_free(db->a);
    free(db);
}

const osv_name *osv_db_named(const osv_db *db, el_ecosystem eco, const char *key)
{
    size_t lo = 0, hi = db->n_names;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const osv_name *e = &db->names[mid];
        int c = e->eco != eco ? (e->eco < eco ? -1 : 1) : strcmp(e->name, key);
        if (c == 0)
            return e;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Only the records that name the package are read (osv_db_named()), so a
 * snapshot read from its parsed form materializes those alone. A record
 * the form cannot give back is a finding, never "not affected". */
size_t osv_db_match(const osv_db *db, el_ecosystem eco, const char *name, const char *version,
                    ptrvec *out, ptrvec *bad)
{
    char *key = osv_name_key(eco, name);
    const osv_name *e = osv_db_named(db, eco, key);
    size_t n = 0;
    for (size_t i = 0; e && i < e->n; i++) {
        const osv_record *r = osv_db_record(db, e->records[i]);
        if (!r) {
            if (bad) /* osv_db_blob_read() walked every record: not expected */
                ptrvec_push(bad, xasprintf("record %u of the snapshot's parsed form is damaged",
                                           e->records[i]));
            continue;
        }
        for (size_t j = 0; j < r->n_affected; j++) {
            const osv_affected *af = &r->affected[j];
            bool hit = false;
            char *err = NULL;
            if (af->eco != eco || strcmp(af->name, key) != 0)
                continue;
            if (osv_affected_eval(af, version, &hit, &err) != 0) {
                if (bad)
                    ptrvec_push(bad, xasprintf("%s (%s): %s", r->id, r->source, err));
                free(err);
                continue;
            }
            if (hit) {
                ptrvec_push(out, (void *)r);
                n++;
                break;
            }
        }
    }
    free(key);
    return n;
}

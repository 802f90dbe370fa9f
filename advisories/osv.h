/* osv.h — the advisories stage: a directory of OSV records (osv-schema JSON
 * files at any depth, and OSV's per-ecosystem all.zip archives) read into
 * memory, and OSV's own evaluation of whether a package version is affected.
 * Only the ecosystems envlock solves are kept: PyPI, npm and Debian:12
 * (whose records name *source* packages; callers pass the source name and
 * version from the Packages `Source:` field). Records of other ecosystems
 * are ignored, withdrawn records are counted but never match, and a record
 * that cannot be read is a finding naming its file: never a crash, never a
 * silent "not affected". No I/O besides reading the snapshot; no stderr. */
#ifndef EL_OSV_H
#define EL_OSV_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util.h"

typedef enum osv_event_kind {
    OSV_INTRODUCED, OSV_FIXED, OSV_LAST_AFFECTED, OSV_LIMIT
} osv_event_kind;

typedef struct osv_event {
    osv_event_kind kind;
    const char *version; /* "0" for introduced means "before every version" */
} osv_event;

typedef enum osv_range_type { OSV_RANGE_ECOSYSTEM, OSV_RANGE_SEMVER } osv_range_type;

typedef struct osv_range {
    osv_range_type type;
    osv_event *events;
    size_t n_events;
} osv_range;

typedef struct osv_affected {
    el_ecosystem eco;
    const char *name; /* PyPI names PEP 503-normalized; npm and Debian as given */
    osv_range *ranges;
    size_t n_ranges;
    const char **versions; /* the explicit `versions` list */
    size_t n_versions;
} osv_affected;

typedef struct osv_record {
    const char *id, *summary, *modified;
    const char *severity; /* database_specific.severity, else the first
                             severity[].score, else NULL */
    const char **aliases;
    size_t n_aliases;
    osv_affected *affected; /* only the ecosystems above */
    size_t n_affected;
    const char *source; /* the file, relative to the snapshot directory
                           ("PyPI/all.zip!GHSA-x.json" for an archive member) */
} osv_record;

/* The records that name one package: what a lookup by name walks. */
typedef struct osv_name {
    el_ecosystem eco;
    const char *name;  /* as osv_affected.name */
    uint32_t *records; /* indices into osv_db.records, ascending */
    size_t n;
} osv_name;

typedef struct osv_finding {
    const char *source;  /* as osv_record.source */
    const char *message; /* what is wrong, with the record id when known */
} osv_finding;

typedef struct osv_db {
    arena *a;
    osv_record **records; /* sorted by id, withdrawn ones left out; a db
                             read from its parsed form fills them on first
                             use: read them through osv_db_record() */
    size_t n_records;
    osv_name *names;      /* every (ecosystem, name) an affected entry
                             names, sorted by ecosystem then name */
    size_t n_names;
    osv_finding *findings; /* malformed records, sorted by source */
    size_t n_findings;
    size_t n_withdrawn;
    char digest[65];      /* sha256 over every file's path and bytes, in path order */
    const char *newest;   /* the newest `modified` of a kept record, or NULL */
    const char **files;   /* the files read (*.json, *.zip), relative to the
                             snapshot directory, in path order: what the
                             digest covers, for a copy (bundle) */
    size_t n_files;
    const unsigned char *form; /* a parsed form's payload the strings point
                                  into, and its records' offsets, or NULL */
    size_t form_len;
    const unsigned char *rec_off; /* u64 LE per record, into `form` */
    void *map;                    /* the form's mapping (munmap'd), or NULL */
    size_t map_len;
    void *owned;                  /* the form's buffer (freed), or NULL */
} osv_db;

/* osv_db_record() : record i, read from the parsed form on first use. */
const osv_record *osv_db_record(const osv_db *db, size_t i);

/* osv_db_named() : the records' index entry for (eco, key) (key as
 *  osv_name_key() gives it), or NULL when no record names it. */
const osv_name *osv_db_named(const osv_db *db, el_ecosystem eco, const char *key);

/* osv_file_max() : the size cap osv_db_load() applies to the snapshot file
 *  `rel` (a record file, or a whole archive), for a reader of the same
 *  files (a bundle's copy) that must refuse what the loader refuses. */
size_t osv_file_max(const char *rel);

/* osv_db_load() :
 *  Reads every *.json file and every *.zip archive under `dir` (symlinked
 *  directories are not followed). Malformed records become findings, not
 *  failures. Fails with EL_IO (detail.path) when `dir` or a file cannot be
 *  read, EL_SPEC_INVALID when an archive is corrupt or a file is over the
 *  size cap. On success *out is owned by the caller (osv_db_free). */
el_code osv_db_load(el_ctx *ctx, const char *dir, osv_db **out);
void osv_db_free(osv_db *db);

/* ---- the parsed form (osv_blob.c) ---- */

/* Bump when the parsed form's layout or a field's meaning changes. */
#define OSV_BLOB_FORMAT 2 /* 2: names indexed, records read on demand */

/* osv_snapshot_key() :
 *  What a parsed form of the snapshot `dir` is kept under: a sha256 over
 *  the files osv_db_load() would read, each by its relative path and its
 *  identity on disk (device, inode, size, mode, modification and change
 *  times, as git's index keeps them), so no byte is read or hashed: a file
 *  rewritten, replaced or touched gives another key. Fails as
 *  osv_db_load() fails to walk `dir`. */
el_code osv_snapshot_key(el_ctx *ctx, const char *dir, char key[65]);

/* osv_db_blob_write() :
 *  The parsed form of `db` (which must have no findings) under `key`,
 *  appended to `out`. */
void osv_db_blob_write(const osv_db *db, const char key[65], strbuf *out);

/* osv_db_blob_read() :
 *  The db a parsed form written under `key` holds, or NULL when `data` is
 *  not exactly that (another key or format, torn, damaged, inconsistent):
 *  the caller then loads the snapshot itself. Every count, offset and
 *  string is checked; `checked` skips only the frame's CRC-32, for bytes
 *  the cache checked already (cache_blob_open()). The db points into
 *  `data`, which must outlive it: set db->map or db->owned to hand it over. */
osv_db *osv_db_blob_read(const unsigned char *data, size_t len, const char key[65],
                         bool checked);

/* osv_parse_record() :
 *  One osv-schema JSON document `text` into *out (allocated in `a`).
 *  Returns 1 when kept, 0 when it names none of our ecosystems, 2 when it
 *  is withdrawn, -1 when malformed with *why (in `a`) saying what is wrong
 *  (prefixed with the record's id once that was read). */
int osv_parse_record(arena *a, const char *text, size_t len, const char *source,
                     osv_record **out, const char **why);

/* osv_affected_eval() :
 *  OSV's evaluation of `version` against one affected entry: in any range
 *  (events sorted in the range's order, then walked: introduced sets,
 *  fixed at or below and last_affected below the version clear; a limit
 *  caps the range), or listed in `versions`. *hit gets the answer.
 *  Returns 0, or -1 when `version` or an event version does not parse in
 *  the range's order, with *err malloc'd naming it (caller frees). */
int osv_affected_eval(const osv_affected *af, const char *version, bool *hit, char **err);

/* osv_db_match() :
 *  The records affecting `version` of (eco, name) (name normalized as in
 *  osv_affected), in id order, pushed onto `out` (borrowed pointers).
 *  An entry whose versions do not parse is a finding appended to `bad`
 *  (malloc'd strings; may be NULL to drop them). Returns the count pushed. */
size_t osv_db_match(const osv_db *db, el_ecosystem eco, const char *name, const char *version,
                    ptrvec *out, ptrvec *bad);

/* osv_smallest_fix() :
 *  The lowest `fixed` version above `version` among r's entries for
 *  (eco, name) (ECOSYSTEM and SEMVER ranges alike), or NULL when the record
 *  names no fix above it (borrowed from the record). */
const char *osv_smallest_fix(const osv_record *r, el_ecosystem eco, const char *name,
                             const char *version);

/* osv_name_key() : the name as records are keyed (PEP 503 for PyPI),
 *  malloc'd. */
char *osv_name_key(el_ecosystem eco, const char *name);
#endif

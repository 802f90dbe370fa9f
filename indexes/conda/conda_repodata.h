/* conda_repodata.h — the conda channel reader's wire format: one subdir's
 * repodata.json (`info`, `packages` for .tar.bz2 files, `packages.conda`
 * for .conda files) turned into records the resolver can rank.
 *
 * The document is hostile input, read as a stream (conda_repodata_json.c):
 * memory grows with the records kept, not with the document (a 150 MB
 * document of 300000 records: 350 MB peak where a json-c tree took 1.4 GB).
 * The whole load fails (a DL_ENV_* value on the context) only when the
 * document is over its size cap, is not a JSON object (strict RFC 8259:
 * no NaN, comments or trailing commas), nests deeper than JSON records
 * need, gives `packages` or `packages.conda` a non-object type, gives a
 * top-level member or a record's file name twice (where conda's Python
 * would keep the last silently), names another subdir than the one asked
 * for, or holds more records than the cap. A single bad record is
 * excluded with a reason (kept in `excluded`, for explanations) and the rest
 * load: a record whose file name is not `name-version-build` plus its
 * section's extension, whose name is not CEP 26, whose version or a
 * depends/constrains entry does not parse in conda's grammars, whose
 * sha256/md5 are not lower-case hex of the right length, whose size,
 * build_number or timestamp are not non-negative integers, or whose lists
 * are over their caps.
 *
 * Records come out sorted by file name (byte order), so equal documents
 * give equal loads whatever their key order. Internal to envlock; names
 * carry the `conda_` prefix. */
#ifndef EL_CONDA_REPODATA_H
#define EL_CONDA_REPODATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "envlock.h"
#include "util.h"

/* Caps: conda-forge's linux-64 repodata.json is a few hundred MB with
 * about a million records; the defaults leave room above that and refuse
 * what no channel serves. */
#define CONDA_REPODATA_MAX_BYTES (1024ull * 1024u * 1024u)
#define CONDA_REPODATA_MAX_RECORDS 4000000u
#define CONDA_RECORD_MAX_DEPS 4096u

typedef enum conda_noarch {
    CONDA_NOARCH_NONE = 0,
    CONDA_NOARCH_GENERIC, /* "generic", or the legacy `noarch: true` */
    CONDA_NOARCH_PYTHON
} conda_noarch;

typedef struct conda_record {
    const char *fn;        /* "numpy-1.26.4-py311h64a7726_0.conda" */
    const char *name;      /* lower-case, CEP 26 */
    const char *version;   /* as written */
    const char *build;
    uint64_t build_number;
    const char *const *depends;     /* match spec texts, each parses */
    size_t n_depends;
    const char *const *constrains;
    size_t n_constrains;
    const char *const *track_features; /* split on `,` and blanks */
    size_t n_track_features;
    /* the legacy `features` (same split): conda installs such a record only
     * beside a record whose track_features names each of them */
    const char *const *features;
    size_t n_features;
    int64_t timestamp_ms;  /* 0 when absent; seconds read as conda does (x1000) */
    conda_noarch noarch;
    const char *sha256;    /* 64 lower-case hex, or NULL when absent */
    const char *md5;       /* 32 lower-case hex, or NULL */
    uint64_t size;         /* 0 when absent */
    const char *license;   /* NULL when absent */
    const char *subdir;    /* the record's own, else the document's */
    bool is_conda;         /* from `packages.conda` */
    /* The PyPI distributions its `purls` name (`pkg:pypi/NAME[@V][?Q][#S]`,
     * NAME as written; other types ignored), when the record has a `purls`
     * list (has_purls; an empty list says it installs none). Without one,
     * who installs what is decided by name (the resolver's rule). */
    const char *const *pypi_names;
    size_t n_pypi_names;
    bool has_purls;
} conda_record;

typedef struct conda_excluded {
    const char *fn;
    const char *reason; /* stable id: "bad_filename", "bad_name", ... */
    const char *detail; /* English, with the offending value */
} conda_excluded;

struct conda_name_slot;

typedef struct conda_repodata {
    const char *subdir;  /* info.subdir, or the one asked for */
    const conda_record *records; /* by file name; NULL when read from the
                                    parsed form (ask by name: below) */
    size_t n_records;    /* every record, either way */
    const conda_excluded *excluded;
    size_t n_excluded;
    void *arena_;        /* owns every string above */
    struct conda_name_slot *names_; /* the by-name index (private) */
    size_t n_names_;
    const unsigned char *form_end_; /* read from a form: where it ends */
    void *map_;          /* the parsed form mapped, or NULL */
    size_t map_len_;
} conda_repodata;

typedef struct conda_repodata_options {
    const char *channel;  /* for messages: "conda-forge" or a URL */
    const char *subdir;   /* the subdir asked for; NULL: any */
    uint64_t max_bytes;   /* 0: CONDA_REPODATA_MAX_BYTES */
    size_t max_records;   /* 0: CONDA_REPODATA_MAX_RECORDS */
    int64_t cutoff_ms;    /* 0: none; a record whose timestamp is later is
                             excluded ("after_cutoff"); one without a
                             timestamp is kept (nothing says it is newer) */
} conda_repodata_options;

/* conda_repodata_parse() :
 *  Parses `len` bytes of `body`. @return EL_OK with *out set (free with
 *  conda_repodata_free()), or EL_PACKAGE_NOT_FOUND with detail {reason:
 *  "repodata_too_large" | "repodata_invalid" | "repodata_wrong_subdir" |
 *  "repodata_too_many_records", channel, subdir}. */
el_code conda_repodata_parse(el_ctx *ctx, const char *body, size_t len,
                             const conda_repodata_options *o, conda_repodata **out);
void conda_repodata_free(conda_repodata *r);

/* The parsed form (conda_repodata_blob.c), kept in the cache beside the
 * body it was parsed from so that a warm load skips the parse.
 * conda_repodata_blob_name() : the blob's cache name for a body (its hex
 *  sha256) parsed with `o` (what changes the result is in the name).
 * conda_repodata_blob_write() : appends r's parsed form to `out`.
 * conda_repodata_blob_read() : the load a blob holds, or false (a blob of
 *  another body, options or format, or damaged in any way: parse then).
 *  The reasons of excluded records come back as the reader's own static
 *  strings; a reason it does not know makes the blob unreadable. */
char *conda_repodata_blob_name(const char *body_sha256, const conda_repodata_options *o);
void conda_repodata_blob_write(const conda_repodata *r, const char *body_sha256,
                               const conda_repodata_options *o, strbuf *out);
/* conda_repodata_blob_read() :
 *  The load a blob holds, or false, as above. The load points into
 *  data[0..len), which must outlive it (conda_repodata_free() unmaps
 *  map_ when set). Only the names and the excluded records are read at
 *  once; a name's records are decoded when conda_repodata_records_at()
 *  first asks. Every record is walked once before true is returned, so
 *  that no later decode meets bytes it cannot read. `checked`: the bytes
 *  were checked by the cache already (cache_blob_open()), so the form's
 *  own CRC-32 is not computed again. */
bool conda_repodata_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                              const conda_repodata_options *o, bool checked,
                              conda_repodata **out);

/* The records by name, for a load either way (parsed or read from its
 * form): conda_repodata_n_names() names, in byte order;
 * conda_repodata_name_at() the i-th; conda_repodata_records_at() its
 * records (*n of them, by file name), decoded on the first call when the
 * load was read from its parsed form. The pointers live as long as r. */
size_t conda_repodata_n_names(const conda_repodata *r);
const char *conda_repodata_name_at(const conda_repodata *r, size_t i);
const conda_record *const *conda_repodata_records_at(conda_repodata *r, size_t i, size_t *n);

#endif

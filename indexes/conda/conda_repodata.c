/* conda_repodata.c — repodata.json to conda_record lists (the contract and
 * what is refused are in conda_repodata.h). Reading the document is
 * conda_repodata_json.c's (a stream, one record's json-c tree at a time),
 * the version and match-spec grammars are versions/conda's; this file only
 * type-checks fields and never trusts one. No I/O, no fetching. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include <json-c/json.h>

#include "util.h"
#include "condaspec.h"
#include "condaver.h"
#include "conda_repodata.h"
#include "conda_repodata_internal.h"

#define FIELD_MAX 4096 /* any single string field, bytes */

/* Every member name read, with its section: a name given twice in one
 * section is refused (json-c and Python keep the last without a word). */
typedef struct seen_fn {
    const char *fn;
    bool is_conda;
} seen_fn;

typedef struct loader {
    arena *a;
    const conda_repodata_options *o;
    const char *doc_subdir;
    conda_record *recs;
    size_t n, cap;
    conda_excluded *ex;
    size_t nex, excap;
    seen_fn *seen;
    size_t nseen, seencap;
    size_t max_records;
    bool too_many;
} loader;

static const char *str_field(json_object *rec, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(rec, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v);
    return strlen(s) == n && n <= FIELD_MAX ? s : NULL;
}

/* A non-negative integer field: 1 ok, 0 absent or null, -1 wrong. */
static int uint_field(json_object *rec, const char *key, uint64_t *out)
{
    json_object *v;
    *out = 0;
    if (!json_object_object_get_ex(rec, key, &v) || !v)
        return 0;
    if (!json_object_is_type(v, json_type_int))
        return -1;
    int64_t i = json_object_get_int64(v);
    if (i < 0)
        return -1;
    *out = (uint64_t)i;
    return 1;
}

static const char *shown(loader *l, const char *val)
{
    return val ? arena_shown(l->a, val, 256) : "";
}

/* Records fn as excluded for `reason` with an English detail built from a
 * literal format and one value (shown cut and with control bytes escaped). */
#define EXCLUDE(l, fn, reason, fmt, val) \
    exclude((l), (fn), (reason), arena_sprintf((l)->a, fmt, shown((l), (val))))

static bool exclude(loader *l, const char *fn, const char *reason, const char *detail)
{
    if (l->nex == l->excap) {
        l->excap = l->excap ? 2 * l->excap : 64;
        l->ex = xrealloc(l->ex, l->excap * sizeof *l->ex);
    }
    conda_excluded *e = &l->ex[l->nex++];
    e->fn = arena_shown(l->a, fn, 256);
    e->reason = reason;
    e->detail = detail;
    return false;
}

/* A list of match specs (depends, constrains): every entry a string that
 * parses. */
static bool spec_list(loader *l, const char *fn, json_object *rec, const char *key,
                      const char *const **out, size_t *n)
{
    json_object *arr;
    *out = NULL, *n = 0;
    if (!json_object_object_get_ex(rec, key, &arr) || !arr)
        return true;
    if (!json_object_is_type(arr, json_type_array))
        return EXCLUDE(l, fn, "bad_dependency", "`%s` is not a list", key);
    size_t len = json_object_array_length(arr);
    if (len > CONDA_RECORD_MAX_DEPS)
        return EXCLUDE(l, fn, "too_many_dependencies", "`%s` has over 4096 entries", key);
    const char **items = arena_alloc(l->a, (len ? len : 1) * sizeof *items);
    for (size_t i = 0; i < len; i++) {
        json_object *it = json_object_array_get_idx(arr, i);
        const char *s = it && json_object_is_type(it, json_type_string) ? json_object_get_string(it) : NULL;
        if (!s || strlen(s) != (size_t)json_object_get_string_len(it))
            return EXCLUDE(l, fn, "bad_dependency", "an entry of `%s` is not a string", key);
        conda_error e = {0, NULL};
        conda_matchspec *ms = conda_matchspec_parse(s, strlen(s), &e);
        if (!ms)
            return EXCLUDE(l, fn, "bad_dependency", "`%s` is not a match spec", s);
        conda_matchspec_free(ms);
        items[i] = arena_strdup(l->a, s);
    }
    *out = items, *n = len;
    return true;
}

/* A feature list: a string of names separated by `,` or blanks. */
static const char *const *feature_list(loader *l, json_object *rec, const char *key, size_t *n)
{
    const char *s = str_field(rec, key);
    *n = 0;
    if (!s || !*s)
        return NULL;
    const char **items = arena_alloc(l->a, (strlen(s) / 2 + 1) * sizeof *items);
    for (const char *p = s; *p;) {
        p += strspn(p, ", \t");
        size_t k = strcspn(p, ", \t");
        if (k)
            items[(*n)++] = arena_strndup(l->a, p, k);
        p += k;
    }
    return items;
}

/* track_features, and the legacy `features` of old channels. */
static void features(loader *l, json_object *rec, conda_record *r)
{
    r->track_features = feature_list(l, rec, "track_features", &r->n_track_features);
    r->features = feature_list(l, rec, "features", &r->n_features);
}

/* The file name must be exactly name-version-build plus the section's
 * extension, so a record cannot point at another package's file. */
static bool filename_ok(const conda_record *r, bool is_conda)
{
    const char *ext = is_conda ? ".conda" : ".tar.bz2";
    char want[3 * FIELD_MAX + 16];
    snprintf(want, sizeof want, "%s-%s-%s%s", r->name, r->version, r->build, ext);
    return strcmp(want, r->fn) == 0 && !strchr(r->fn, '/') && r->fn[0] != '.';
}

static bool build_ok(const char *b)
{
    if (!b || !*b)
        return false;
    for (const char *p = b; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("_.+", *p)))
            return false;
    return true;
}

/* name, version, build and the file name. */
static bool identity(loader *l, const char *fn, json_object *rec, conda_record *r, bool is_conda)
{
    const char *name = str_field(rec, "name"), *version = str_field(rec, "version");
    const char *build = str_field(rec, "build");
    if (!name || !conda_name_valid(name, strlen(name)))
        return EXCLUDE(l, fn, "bad_name", "`%s` is not a conda package name", name ? name : "");
    conda_version *v = version ? conda_version_parse(version, strlen(version), NULL) : NULL;
    if (!v)
        return EXCLUDE(l, fn, "bad_version", "`%s` is not a conda version", version ? version : "");
    conda_version_free(v);
    if (!build_ok(build))
        return EXCLUDE(l, fn, "bad_build", "`%s` is not a build string", build ? build : "");
    r->fn = arena_strdup(l->a, fn);
    r->name = arena_strdup(l->a, name);
    r->version = arena_strdup(l->a, version);
    r->build = arena_strdup(l->a, build);
    if (!filename_ok(r, is_conda))
        return EXCLUDE(l, fn, "bad_filename", "`%s` is not name-version-build of the record", fn);
    return true;
}

/* Hashes, sizes, numbers, noarch, license, subdir. */
static bool details(loader *l, const char *fn, json_object *rec, conda_record *r)
{
    const char *sha = str_field(rec, "sha256"), *md5 = str_field(rec, "md5");
    json_object *tmp;
    if ((sha && !is_lower_hex(sha, 64)) || (!sha && json_object_object_get_ex(rec, "sha256", &tmp) && tmp))
        return EXCLUDE(l, fn, "bad_hash", "sha256 `%s` is not 64 lower-case hex digits", sha);
    if ((md5 && !is_lower_hex(md5, 32)) || (!md5 && json_object_object_get_ex(rec, "md5", &tmp) && tmp))
        return EXCLUDE(l, fn, "bad_hash", "md5 `%s` is not 32 lower-case hex digits", md5);
    r->sha256 = sha ? arena_strdup(l->a, sha) : NULL;
    r->md5 = md5 ? arena_strdup(l->a, md5) : NULL;
    uint64_t ts;
    if (uint_field(rec, "size", &r->size) < 0 || uint_field(rec, "build_number", &r->build_number) < 0 ||
        uint_field(rec, "timestamp", &ts) < 0 || ts > (uint64_t)INT64_MAX / 1000)
        return EXCLUDE(l, fn, "bad_number", "%ssize, build_number or timestamp is not a non-negative integer", "");
    /* conda reads timestamps below 253402300799 (year 9999 in seconds) as
     * seconds and the rest as milliseconds. */
    r->timestamp_ms = ts > 253402300799ull ? (int64_t)ts : (int64_t)ts * 1000;
    json_object *na = NULL;
    json_object_object_get_ex(rec, "noarch", &na);
    const char *nas = na && json_object_is_type(na, json_type_string) ? json_object_get_string(na) : NULL;
    if (na && json_object_is_type(na, json_type_boolean))
        r->noarch = json_object_get_boolean(na) ? CONDA_NOARCH_GENERIC : CONDA_NOARCH_NONE;
    else if (nas && strcmp(nas, "python") == 0)
        r->noarch = CONDA_NOARCH_PYTHON;
    else if (nas && strcmp(nas, "generic") == 0)
        r->noarch = CONDA_NOARCH_GENERIC;
    else if (na)
        return EXCLUDE(l, fn, "bad_noarch", "noarch `%s` is not python or generic", nas ? nas : "?");
    const char *lic = str_field(rec, "license"), *sub = str_field(rec, "subdir");
    r->license = lic ? arena_strdup(l->a, lic) : NULL;
    r->subdir = sub ? arena_strdup(l->a, sub) : NULL; /* the document's, once known */
    return true;
}

/* `purls`: a list of package URLs (rattler's PackageRecord.purls); the
 * names of its `pkg:pypi/` ones. The field is optional metadata: one that
 * is not a list is read as absent, and an entry that is not a string or
 * names no plain distribution (empty, a namespace, percent-encoded bytes,
 * over 200 bytes) is skipped, rather than the record refused. */
static void purls(loader *l, json_object *rec, conda_record *r)
{
    json_object *arr = NULL;
    r->pypi_names = NULL, r->n_pypi_names = 0, r->has_purls = false;
    if (!json_object_object_get_ex(rec, "purls", &arr) || !arr ||
        !json_object_is_type(arr, json_type_array))
        return;
    size_t len = json_object_array_length(arr);
    if (len > CONDA_RECORD_MAX_DEPS)
        return;
    const char **items = arena_alloc(l->a, (len ? len : 1) * sizeof *items);
    for (size_t i = 0; i < len; i++) {
        json_object *it = json_object_array_get_idx(arr, i);
        const char *s = it && json_object_is_type(it, json_type_string) ? json_object_get_string(it) : NULL;
        if (!s || strlen(s) != (size_t)json_object_get_string_len(it) ||
            strncasecmp(s, "pkg:pypi/", 9) != 0)
            continue;
        size_t n = strcspn(s + 9, "@?#");
        if (n == 0 || n > 200 || memchr(s + 9, '/', n) || memchr(s + 9, '%', n))
            continue;
        items[r->n_pypi_names++] = arena_strndup(l->a, s + 9, n);
    }
    r->pypi_names = items;
    r->has_purls = true;
}

static void read_record(loader *l, const char *fn, json_object *rec, bool is_conda)
{
    conda_record r;
    memset(&r, 0, sizeof r);
    r.is_conda = is_conda;
    if (strlen(fn) > FIELD_MAX) {
        EXCLUDE(l, fn, "bad_filename", "%sthe file name is over 4096 bytes", "");
        return;
    }
    if (!json_object_is_type(rec, json_type_object)) {
        EXCLUDE(l, fn, "bad_record", "%sthe record is not an object", "");
        return;
    }
    if (!identity(l, fn, rec, &r, is_conda) || !details(l, fn, rec, &r) ||
        !spec_list(l, fn, rec, "depends", &r.depends, &r.n_depends) ||
        !spec_list(l, fn, rec, "constrains", &r.constrains, &r.n_constrains))
        return;
    features(l, rec, &r);
    purls(l, rec, &r);
    int64_t cut = l->o ? l->o->cutoff_ms : 0;
    if (cut && r.timestamp_ms > cut) {
        EXCLUDE(l, fn, "after_cutoff", "%spublished after the cutoff (--exclude-newer)", "");
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->recs = xrealloc(l->recs, l->cap * sizeof *l->recs);
    }
    l->recs[l->n++] = r;
}

static int rec_cmp(const void *a, const void *b)
{
    return strcmp(((const conda_record *)a)->fn, ((const conda_record *)b)->fn);
}

static int ex_cmp(const void *a, const void *b)
{
    int c = strcmp(((const conda_excluded *)a)->fn, ((const conda_excluded *)b)->fn);
    return c ? c : strcmp(((const conda_excluded *)a)->reason, ((const conda_excluded *)b)->reason);
}

static el_code refuse(el_ctx *ctx, const conda_repodata_options *o, const char *reason, const char *msg)
{
    const char *ch = o && o->channel ? o->channel : "the channel";
    const char *sd = o && o->subdir ? o->subdir : "?";
    el_fail(ctx, EL_PACKAGE_NOT_FOUND, "`%s/%s/repodata.json`: %s", ch, sd, msg);
    el_detail_str(ctx, "reason", reason);
    el_detail_str(ctx, "channel", ch);
    el_detail_str(ctx, "subdir", sd);
    return EL_PACKAGE_NOT_FOUND;
}

static bool on_record(void *user, const char *fn, json_object *rec, bool is_conda)
{
    loader *l = user;
    if (l->nseen >= l->max_records) {
        l->too_many = true;
        return false;
    }
    if (l->nseen == l->seencap) {
        l->seencap = l->seencap ? 2 * l->seencap : 256;
        l->seen = xrealloc(l->seen, l->seencap * sizeof *l->seen);
    }
    l->seen[l->nseen++] = (seen_fn){arena_strdup(l->a, fn), is_conda};
    read_record(l, fn, rec, is_conda);
    return true;
}

static int seen_cmp(const void *a, const void *b)
{
    const seen_fn *x = a, *y = b;
    int c = strcmp(x->fn, y->fn);
    return c ? c : (int)x->is_conda - (int)y->is_conda;
}

/* The document's subdir (info.subdir), checked against the one asked for;
 * NULL in *subdir when neither says. */
static el_code document_subdir(el_ctx *ctx, const conda_repodata_options *o, json_object *info,
                          const char **subdir)
{
    json_object *sd = NULL;
    *subdir = o && o->subdir ? o->subdir : NULL;
    if (info && json_object_is_type(info, json_type_object) &&
        json_object_object_get_ex(info, "subdir", &sd) && json_object_is_type(sd, json_type_string)) {
        if (*subdir && strcmp(*subdir, json_object_get_string(sd)) != 0)
            return refuse(ctx, o, "repodata_wrong_subdir", "the document is for another subdir");
        *subdir = json_object_get_string(sd);
    }
    return EL_OK;
}

/* After the stream: refusals that need the whole document, then records
 * get the document's subdir and a stable order. */
static el_code finish(el_ctx *ctx, const conda_repodata_options *o, loader *l, json_object *info)
{
    if (l->too_many)
        return refuse(ctx, o, "repodata_too_many_records", "the document holds too many records");
    if (l->nseen)
        qsort(l->seen, l->nseen, sizeof *l->seen, seen_cmp);
    for (size_t i = 1; i < l->nseen; i++)
        if (seen_cmp(&l->seen[i - 1], &l->seen[i]) == 0)
            return refuse(ctx, o, "repodata_invalid", "a record is given twice in one section");
    const char *subdir;
    el_code rc = document_subdir(ctx, o, info, &subdir);
    if (rc != EL_OK)
        return rc;
    l->doc_subdir = subdir ? arena_strdup(l->a, subdir) : NULL;
    for (size_t i = 0; i < l->n; i++)
        if (!l->recs[i].subdir)
            l->recs[i].subdir = l->doc_subdir;
    if (l->n)
        qsort(l->recs, l->n, sizeof *l->recs, rec_cmp);
    if (l->nex)
        qsort(l->ex, l->nex, sizeof *l->ex, ex_cmp);
    return EL_OK;
}

el_code conda_repodata_parse(el_ctx *ctx, const char *body, size_t len,
                             const conda_repodata_options *o, conda_repodata **out)
{
    *out = NULL;
    uint64_t max = o && o->max_bytes ? o->max_bytes : CONDA_REPODATA_MAX_BYTES;
    if (len > max)
        return refuse(ctx, o, "repodata_too_large", "the document is over its size cap");
    loader l = {.a = arena_new(), .o = o};
    l.max_records = o && o->max_records ? o->max_records : CONDA_REPODATA_MAX_RECORDS;
    crj_handler h = {.record = on_record, .user = &l};
    json_object *info = NULL;
    const char *what = NULL;
    el_code rc = EL_OK;
    if (crj_parse(body, len, &h, &info, &what) != 0)
        rc = l.too_many ? refuse(ctx, o, "repodata_too_many_records", "the document holds too many records")
                        : refuse(ctx, o, "repodata_invalid", what);
    else
        rc = finish(ctx, o, &l, info);
    json_object_put(info);
    free(l.seen);
    if (rc != EL_OK) {
        free(l.recs);
        free(l.ex);
        arena_free(l.a);
        return rc;
    }
    conda_repodata *r = xcalloc(1, sizeof *r);
    r->subdir = l.doc_subdir;
    r->records = l.recs, r->n_records = l.n;
    r->excluded = l.ex, r->n_excluded = l.nex;
    r->arena_ = l.a;
    conda_repodata_index(r);
    *out = r;
    return EL_OK;
}

static int by_name_cmp(const void *x, const void *y)
{
    const conda_record *a = *(const conda_record *const *)x, *b = *(const conda_record *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a < b ? -1 : a > b); /* the records are by file name */
}

void conda_repodata_index(conda_repodata *r)
{
    const conda_record **by = arena_alloc(r->arena_, (r->n_records + 1) * sizeof *by);
    for (size_t i = 0; i < r->n_records; i++)
        by[i] = &r->records[i];
    qsort(by, r->n_records, sizeof *by, by_name_cmp);
    size_t n = 0;
    for (size_t i = 0; i < r->n_records; i++)
        n += !i || strcmp(by[i]->name, by[i - 1]->name) != 0;
    struct conda_name_slot *s = arena_alloc(r->arena_, (n + 1) * sizeof *s);
    n = 0;
    for (size_t i = 0; i < r->n_records; i++) {
        if (!i || strcmp(by[i]->name, by[i - 1]->name) != 0)
            s[n++] = (struct conda_name_slot){by[i]->name, 0, NULL, by + i};
        s[n - 1].n++;
    }
    r->names_ = s;
    r->n_names_ = n;
}

void conda_repodata_free(conda_repodata *r)
{
    if (!r)
        return;
    free((void *)r->records);
    free((void *)r->excluded);
    arena_free(r->arena_);
    if (r->map_)
        munmap(r->map_, r->map_len_);
    free(r);
}

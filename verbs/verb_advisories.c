/* verb_advisories.c — the advisory snapshot for the verbs that take one
 * (resolve, check, audit, bundle): loaded through advisories/, refused
 * whole when a record cannot be read, and kept in the cache as a parsed
 * form for the verbs that have one (resolve, check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <json-c/json.h>

#include "cache.h"
#include "osv.h"
#include "verbs_internal.h"

el_code verbs_advisories_load(el_ctx *ctx, const char *dir, osv_db **out)
{
    osv_db *db = NULL;
    el_code rc = osv_db_load(ctx, dir, &db);
    *out = NULL;
    if (rc != EL_OK)
        return rc;
    if (db->n_findings == 0) {
        *out = db;
        return EL_OK;
    }
    el_fail(ctx, EL_SPEC_INVALID, "the advisory snapshot %s has %zu malformed record%s: %s: %s",
            dir, db->n_findings, db->n_findings == 1 ? "" : "s", db->findings[0].source,
            db->findings[0].message);
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < db->n_findings; i++) {
        json_object *f = json_object_new_object();
        json_object_object_add(f, "file", json_object_new_string(db->findings[i].source));
        json_object_object_add(f, "message", json_object_new_string(db->findings[i].message));
        json_object_array_add(arr, f);
    }
    el_detail_take(ctx, "findings", arr);
    el_detail_str(ctx, "path", dir);
    osv_db_free(db);
    return EL_SPEC_INVALID;
}

/* The snapshot's key, or false (the load that follows says why). */
static bool snapshot_key(const char *dir, char key[65])
{
    el_ctx *quiet = el_ctx_new();
    bool ok = osv_snapshot_key(quiet, dir, key) == EL_OK;
    el_ctx_free(quiet);
    return ok;
}

/* Keeps db's parsed form, unless the snapshot changed while it was read
 * (its key before and after differ): a form must hold what its key names. */
static void keep_form(cache *c, const char *name, const char *dir, const char key[65],
                      const osv_db *db)
{
    char after[65];
    if (!snapshot_key(dir, after) || strcmp(after, key) != 0)
        return;
    strbuf sb = STRBUF_INIT;
    osv_db_blob_write(db, key, &sb);
    cache_blob_put_lazy(c, name, sb.buf, sb.len);
    sb_release(&sb);
}

/* The parsed form `name`, or NULL. Mapped, not read: a lookup touches the
 * pages of the records it reaches. cache_blob_open() has checked the
 * bytes (their CRC-32, or the seal of an entry unchanged since), so the
 * form's own CRC is not computed again. */
static osv_db *read_form(cache *c, const char *name, const char key[65])
{
    const unsigned char *data;
    size_t len = 0, map_len = 0;
    void *map;
    if (!cache_blob_map(c, name, &data, &len, &map, &map_len))
        return NULL;
    osv_db *db = osv_db_blob_read(data, len, key, true);
    if (!db) {
        munmap(map, map_len);
        return NULL;
    }
    db->map = map;
    db->map_len = map_len;
    return db;
}

el_code verbs_advisories_load_cached(el_ctx *ctx, const el_cache_options *co, const char *dir,
                                     void (*stats)(void *, const char *), void *stats_user,
                                     osv_db **out)
{
    char key[65];
    cache *c = NULL;
    if (snapshot_key(dir, key)) {
        el_ctx *quiet = el_ctx_new(); /* a cache that cannot open is no parsed form */
        c = cache_open(quiet, co);
        el_ctx_free(quiet);
    }
    char *name = c ? xasprintf("osv-snapshot/%s/f%d", key, OSV_BLOB_FORMAT) : NULL;
    osv_db *db = name ? read_form(c, name, key) : NULL;
    bool hit = db != NULL;
    el_code rc = hit ? EL_OK : verbs_advisories_load(ctx, dir, &db);
    if (rc == EL_OK && !hit && c)
        keep_form(c, name, dir, key, db);
    if (rc == EL_OK && stats)
        stats(stats_user, hit ? "advisories: parsed form read" : "advisories: snapshot parsed");
    cache_close(c);
    free(name);
    *out = rc == EL_OK ? db : NULL;
    return rc;
}

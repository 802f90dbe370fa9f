/* verb_advisories.c — the advisory snapshot for the verbs that take one
 * (audit now): loaded through advisories/ and refused whole when a record
 * cannot be read. */
#include <string.h>
#include <json-c/json.h>

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

/* npm_packument_write.c — packuments written back out (see
 * npm_packument_write.h): json-c reads and writes the document; only the
 * tarball URLs a mirror rewrote are touched. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "npm_packument_write.h"
#include "util.h"

/* Maps versions.V.dist.tarball; true when any changed. */
static bool map_tarballs(json_object *versions, char *(*fn)(void *, const char *), void *user)
{
    bool changed = false;
    json_object_object_foreach(versions, key, v) {
        (void)key;
        json_object *dist, *tb;
        if (!json_object_is_type(v, json_type_object) ||
            !json_object_object_get_ex(v, "dist", &dist) ||
            !json_object_is_type(dist, json_type_object) ||
            !json_object_object_get_ex(dist, "tarball", &tb) ||
            !json_object_is_type(tb, json_type_string))
            continue;
        const char *old = json_object_get_string(tb);
        char *canon = fn(user, old);
        if (canon && strcmp(canon, old) != 0) {
            json_object_object_add(dist, "tarball", json_object_new_string(canon));
            changed = true;
        }
        free(canon);
    }
    return changed;
}

char *npm_packument_canonical_text(const char *body, size_t len,
                                   char *(*canonical_url)(void *user, const char *url),
                                   void *user, size_t *out_len)
{
    json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
    json_object *root = json_tokener_parse_ex(tok, body, (int)len);
    bool ok = root && json_tokener_get_error(tok) == json_tokener_success &&
              json_object_is_type(root, json_type_object);
    json_tokener_free(tok);
    json_object *versions;
    char *out = NULL;
    if (ok && json_object_object_get_ex(root, "versions", &versions) &&
        json_object_is_type(versions, json_type_object) &&
        map_tarballs(versions, canonical_url, user)) {
        size_t n = 0;
        const char *s = json_object_to_json_string_length(
            root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
        out = xstrndup(s, n);
        *out_len = n;
    }
    json_object_put(root);
    return out;
}

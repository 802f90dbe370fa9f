/* spec_access.c — read-only accessors for what other modules and the CLI
 * take from a valid spec (indexes, sources, registry, Python version).
 * Everything comes from the normalized document, so defaults apply; the
 * returned arrays live in the spec's arena. */
#include <string.h>

#include <json-c/json.h>

#include "spec_internal.h"

static json_object *at(const el_spec *s, const char *const *path)
{
    json_object *o = (json_object *)spec_document(s);
    for (; o && *path; path++)
        if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, *path, &o))
            return NULL;
    return o;
}

static const char *const *strings_at(const el_spec *s, const char *const *path, size_t *n)
{
    *n = 0;
    json_object *a = at(s, path);
    if (!a || !json_object_is_type(a, json_type_array))
        return NULL;
    size_t len = json_object_array_length(a);
    const char **out = arena_alloc(spec_arena(s), (len + 1) * sizeof *out);
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (json_object_is_type(e, json_type_string))
            out[(*n)++] = arena_strdup(spec_arena(s), json_object_get_string(e));
    }
    return out;
}

static const char *string_at(const el_spec *s, const char *const *path)
{
    json_object *v = at(s, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

const char *const *el_spec_python_indexes(const el_spec *spec, size_t *n)
{
    static const char *const path[] = { "spec", "packages", "python", "indexes", NULL };
    return strings_at(spec, path, n);
}

const char *const *el_spec_apt_sources(const el_spec *spec, size_t *n)
{
    static const char *const path[] = { "spec", "packages", "system", "sources", NULL };
    return strings_at(spec, path, n);
}

const char *el_spec_npm_registry(const el_spec *spec)
{
    static const char *const path[] = { "spec", "packages", "node", "registry", NULL };
    return string_at(spec, path);
}

const char *el_spec_python_version(const el_spec *spec)
{
    static const char *const path[] = { "spec", "language", "version", NULL };
    return string_at(spec, path);
}

const char *el_spec_base_ref(const el_spec *spec)
{
    static const char *const path[] = { "spec", "base", "ref", NULL };
    return string_at(spec, path);
}

const char *el_spec_base_channel(const el_spec *spec)
{
    static const char *const path[] = { "spec", "base", "channel", NULL };
    return string_at(spec, path);
}

/* catalog_values.c — what the catalog loader (base_target.c) reads from a
 * catalog for one image, printed as JSON, so base_inspect.py can compare
 * the values an entry gives back with the values it put into the image.
 * usage: catalog_values CATALOG REFERENCE */
#include <json-c/json.h>
#include <stdio.h>

#include "base.h"

static json_object *str(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static json_object *strs(const char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v && v[i]; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    el_ctx *ctx = el_ctx_new();
    target_catalog *cat = target_catalog_load(ctx, argv[1]);
    const target_base *b = cat ? target_catalog_find_image(ctx, cat, argv[2]) : NULL;
    if (!b) {
        fprintf(stderr, "%s\n", el_ctx_message(ctx));
        el_ctx_free(ctx);
        target_catalog_free(cat);
        return 1;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "image", str(b->image));
    json_object_object_add(o, "python", str(b->python_version));
    json_object_object_add(o, "arch", str(b->arch));
    json_object_object_add(o, "platform", str(b->platform));
    json_object_object_add(o, "keyring", str(b->apt_keyring));
    json_object_object_add(o, "sources", strs(b->apt_sources));
    json_object_object_add(o, "preinstalled", strs(b->preinstalled));
    puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    target_catalog_free(cat);
    el_ctx_free(ctx);
    return 0;
}

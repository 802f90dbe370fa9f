/* toml_dump.c — reads TOML (stdin) with toml_parse() and prints it as the
 * toml-test suite's tagged JSON ({"type": ..., "value": ...} for scalars),
 * for toml_test.py to compare with the suite's expected JSON and with
 * python3's tomllib. Exit 1 with "line:column: message" on stderr when the
 * text is not TOML. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "spec_toml.h"

static json_object *tagged(const char *type, const char *text, size_t len)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string(type));
    json_object_object_add(o, "value", json_object_new_string_len(text, (int)len));
    return o;
}

static json_object *to_json(const toml_value *v)
{
    char buf[64];
    switch (v->kind) {
    case TOML_STRING:
        return tagged("string", v->s, v->len);
    case TOML_INTEGER:
        snprintf(buf, sizeof buf, "%" PRId64, v->i);
        return tagged("integer", buf, strlen(buf));
    case TOML_FLOAT:
        snprintf(buf, sizeof buf, "%.17g", v->f);
        return tagged("float", buf, strlen(buf));
    case TOML_BOOL:
        return tagged("bool", v->b ? "true" : "false", v->b ? 4 : 5);
    case TOML_DATETIME:
        return tagged("datetime", v->s, v->len);
    case TOML_DATETIME_LOCAL:
        return tagged("datetime-local", v->s, v->len);
    case TOML_DATE_LOCAL:
        return tagged("date-local", v->s, v->len);
    case TOML_TIME_LOCAL:
        return tagged("time-local", v->s, v->len);
    case TOML_ARRAY: {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < v->n; i++)
            json_object_array_add(a, to_json(v->items[i]));
        return a;
    }
    case TOML_TABLE: {
        json_object *o = json_object_new_object();
        for (size_t i = 0; i < v->n; i++) {
            /* json-c keys are C strings: a NUL in a key is written as the
             * six characters \u0000, and toml_test.py expects that */
            strbuf k;
            sb_init(&k);
            for (size_t c = 0; c < v->key_lens[i]; c++)
                if (v->keys[i][c])
                    sb_addc(&k, v->keys[i][c]);
                else
                    sb_adds(&k, "\\u0000");
            json_object_object_add(o, k.buf, to_json(v->items[i]));
            sb_release(&k);
        }
        return o;
    }
    }
    return NULL;
}

int main(void)
{
    strbuf in;
    sb_init(&in);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
        sb_add(&in, buf, n);
    arena *mem = arena_new();
    char *err = NULL;
    unsigned line = 0, col = 0;
    toml_value *root = toml_parse(mem, in.buf, in.len, &err, &line, &col);
    int rc = 0;
    if (!root) {
        fprintf(stderr, "%u:%u: %s\n", line, col, err);
        rc = 1;
    } else {
        json_object *j = to_json(root);
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
        json_object_put(j);
    }
    free(err);
    arena_free(mem);
    sb_release(&in);
    return rc;
}

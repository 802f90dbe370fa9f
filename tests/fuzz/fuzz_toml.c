/* fuzz_toml.c — libFuzzer target for the TOML 1.0 reader (spec_toml.c):
 * any bytes are read or refused without a crash; a refusal has a message
 * and a position inside the text, a reading has well-formed tables. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec_toml.h"

static void walk(const toml_value *v, unsigned depth)
{
    if (depth > 200 || (v->kind == TOML_TABLE && v->n && (!v->keys || !v->key_lens)))
        abort();
    for (size_t i = 0; (v->kind == TOML_TABLE || v->kind == TOML_ARRAY) && i < v->n; i++)
        walk(v->items[i], depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *mem = arena_new();
    char *err = NULL;
    unsigned line = 0, col = 0;
    toml_value *root = toml_parse(mem, (const char *)data, size, &err, &line, &col);
    if (!root) {
        unsigned lines = 1;
        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        if (!err || line < 1 || line > lines || col < 1)
            abort();
    } else {
        walk(root, 0);
    }
    free(err);
    arena_free(mem);
    return 0;
}

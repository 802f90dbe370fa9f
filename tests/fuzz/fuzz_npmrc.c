/* fuzz_npmrc.c — libFuzzer target for the .npmrc reader and the
 * registry-URL matching of credentials. The input is the file; the lookups
 * use a few fixed URLs and the keys the file itself defines. Nothing may
 * crash or leak, and every note names the file and a line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npm_index.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static const char *env(const char *name)
{
    return strcmp(name, "SET") == 0 ? "value" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npm_rc *rc = npm_rc_parse((const char *)data, size, "fuzz.npmrc", env);
    for (size_t i = 0; i < npm_rc_nnotes(rc); i++)
        CHECK(strncmp(npm_rc_note(rc, i), "fuzz.npmrc:", 11) == 0);
    static const char *const urls[] = {
        "https://registry.npmjs.org/", "http://127.0.0.1:4873/npm/", "https://h/a/b/c",
        "https://u:p@h:443/", "file:///x", "https://", "http://h?x", "",
    };
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        char *a = npm_rc_auth(rc, urls[i]);
        CHECK(!a || strncmp(a, "Bearer ", 7) == 0 || strncmp(a, "Basic ", 6) == 0);
        free(a);
        a = npm_auth_for_registry(rc, urls[i], NULL, env);
        free(a);
        a = npm_auth_for_registry(rc, urls[i], "tok", env);
        CHECK(a && strcmp(a, "Bearer tok") == 0);
        npm_rc_scoped(rc, urls[i], "certfile");
        free(a);
    }
    npm_rc_scope_registry(rc, "@s/x");
    npm_rc_get(rc, "registry");
    npm_rc_free(rc);
    return 0;
}

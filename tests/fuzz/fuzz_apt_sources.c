/* fuzz_apt_sources.c — libFuzzer target for sources.list one-line entries.
 * Checks that nothing crashes, that a failure always says why, and that an
 * accepted entry is consistent: URI ends in '/', a flat suite has no
 * components and a non-flat one has at least one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apt_index.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a = arena_new();
    char *line = arena_strndup(a, (const char *)data, size);
    apt_source s;
    char *err = NULL;
    if (deb_source_parse(line, a, &s, &err) == 0) {
        CHECK(err == NULL);
        size_t ul = strlen(s.uri);
        CHECK(ul > 0 && s.uri[ul - 1] == '/');
        CHECK(s.suite && s.suite[0]);
        CHECK(s.flat ? s.n_components == 0 : s.n_components > 0);
        for (size_t i = 0; i < s.n_components; i++)
            CHECK(s.components[i][0] != '\0');
        CHECK(s.check_valid_until >= -1 && s.check_valid_until <= 1);
    } else {
        CHECK(err != NULL && err[0] != '\0');
        free(err);
    }
    arena_free(a);
    return 0;
}

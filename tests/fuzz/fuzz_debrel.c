/* fuzz_debrel.c — libFuzzer target for Debian relationship fields. The first
 * byte picks the field kind, the rest is the field text. A parse must either
 * fail with a column inside the text and a "column N: " message, or succeed
 * and format to text that parses again to the same canonical form. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debver.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    deb_field field = (deb_field)(data[0] % (DEB_FIELD_BUILD_CONFLICTS + 1));
    char *text = malloc(size);
    CHECK(text);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    size_t tlen = strlen(text); /* an embedded NUL ends the field */

    deb_relations *rels = NULL;
    deb_parse_error err;
    if (deb_relations_parse(text, field, &rels, &err) != 0) {
        CHECK(rels == NULL);
        CHECK(err.message != NULL);
        CHECK(err.column >= 1 && err.column <= tlen + 1);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "column %zu: ", err.column);
        CHECK(strncmp(err.message, prefix, strlen(prefix)) == 0);
        free(err.message);
        free(text);
        return 0;
    }
    size_t n;
    const deb_rel_group *g = deb_relations_groups(rels, &n);
    for (size_t i = 0; i < n; i++) {
        CHECK(g[i].n_alts >= 1);
        for (size_t k = 0; k < g[i].n_alts; k++) {
            const deb_rel *r = &g[i].alts[k];
            CHECK(deb_name_valid(r->name, strlen(r->name)));
            CHECK(r->column >= 1 && r->column <= tlen);
            CHECK((r->op == DEB_OP_ANY) == (r->version == NULL));
            if (r->version)
                CHECK(deb_version_valid(r->version));
        }
    }
    char *once = deb_relations_format(rels);
    deb_relations *again = NULL;
    CHECK(deb_relations_parse(once, field, &again, NULL) == 0);
    char *twice = deb_relations_format(again);
    CHECK(strcmp(once, twice) == 0);
    free(once);
    free(twice);
    deb_relations_free(rels);
    deb_relations_free(again);
    free(text);
    return 0;
}

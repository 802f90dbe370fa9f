/* fuzz_debver.c — libFuzzer target for Debian versions. The input is up to
 * three versions separated by newlines. Checks that parsing never crashes,
 * that the order is reflexive, antisymmetric and transitive over every parse
 * dpkg would compare (warned ones included), and that deb_version_cmp_str()
 * and deb_filter() agree with deb_version_cmp() on valid versions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debver.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *part[3];
    size_t len[3];
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= size && n < 3; i++) {
        if (i == size || text[i] == '\n') {
            part[n] = text + start;
            len[n] = i - start;
            n++;
            start = i + 1;
        }
    }
    deb_version v[3];
    deb_verdict r[3];
    for (size_t i = 0; i < n; i++) {
        r[i] = deb_version_parse(part[i], len[i], &v[i], NULL);
        if (r[i] != DEB_REFUSED)
            CHECK(deb_version_cmp(&v[i], &v[i]) == 0);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (r[i] == DEB_REFUSED || r[j] == DEB_REFUSED)
                continue;
            int c = deb_version_cmp(&v[i], &v[j]);
            CHECK(c >= -1 && c <= 1);
            CHECK(c == -deb_version_cmp(&v[j], &v[i]));
        }
    if (n == 3 && r[0] != DEB_REFUSED && r[1] != DEB_REFUSED && r[2] != DEB_REFUSED) {
        for (int k = 0; k < 3; k++) {
            const deb_version *a = &v[k], *b = &v[(k + 1) % 3], *c = &v[(k + 2) % 3];
            int ab = deb_version_cmp(a, b), bc = deb_version_cmp(b, c), ac = deb_version_cmp(a, c);
            if (ab <= 0 && bc <= 0)
                CHECK(ac <= 0);
            if (ab == 0 && bc == 0)
                CHECK(ac == 0);
            if (ab < 0 && bc <= 0)
                CHECK(ac < 0);
        }
    }
    if (n >= 2 && r[0] == DEB_VALID && r[1] == DEB_VALID) {
        char *a = strndup(part[0], len[0]), *b = strndup(part[1], len[1]);
        CHECK(a && b);
        int c = 2;
        CHECK(deb_version_cmp_str(a, b, &c, NULL) == 0);
        CHECK(c == deb_version_cmp(&v[0], &v[1]));
        static const char *const ops[] = { "<<", "<=", "=", ">=", ">>" };
        static const deb_op opv[] = { DEB_OP_LT, DEB_OP_LE, DEB_OP_EQ, DEB_OP_GE, DEB_OP_GT };
        for (int k = 0; k < 5; k++) {
            size_t rn = strlen(b) + 8;
            char *range = malloc(rn);
            CHECK(range);
            snprintf(range, rn, "(%s %s)", ops[k], b);
            const char *list[1] = { a };
            bool keep = false;
            CHECK(deb_filter(range, list, 1, &keep, NULL) == 0);
            CHECK(keep == deb_op_holds(opv[k], c));
            free(range);
        }
        free(a);
        free(b);
    }
    return 0;
}

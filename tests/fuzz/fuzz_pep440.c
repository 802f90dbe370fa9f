/* fuzz_pep440.c — libFuzzer target for the PEP 440 grammar: parse the input
 * as a version and as a specifier set; check that the normalized form
 * re-parses to itself and to an equal version, that comparison is
 * antisymmetric, and exercise contains/filter on what parsed. The input is
 * split at the first newline: specifier set before it, version after. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep440.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    if (strlen(buf) != size) {
        free(buf);
        return 0;
    }
    char *nl = strchr(buf, '\n');
    const char *spec = buf, *ver = buf;
    if (nl) {
        *nl = '\0';
        ver = nl + 1;
    }
    pypi_version *a = pypi_version_parse(buf, NULL);
    pypi_version *b = pypi_version_parse(ver, NULL);
    if (a) {
        pypi_version *r = pypi_version_parse(pypi_version_str(a), NULL);
        if (!r || pypi_version_cmp(a, r) != 0 || strcmp(pypi_version_str(a), pypi_version_str(r)) != 0)
            abort();
        pypi_version_free(r);
        (void)pypi_version_public(a);
        (void)pypi_num_u64(pypi_version_epoch(a));
    }
    if (a && b) {
        int x = pypi_version_cmp(a, b), y = pypi_version_cmp(b, a);
        if ((x < 0) != (y > 0) || (x == 0) != (y == 0))
            abort();
    }
    pypi_specset *s = pypi_specset_parse(spec, NULL);
    if (s) {
        (void)pypi_specset_str(s);
        (void)pypi_specset_prereleases(s);
        if (b) {
            (void)pypi_specset_contains(s, b, PYPI_PRE_DEFAULT);
            (void)pypi_specset_contains(s, b, PYPI_PRE_YES);
            (void)pypi_specset_contains(s, b, PYPI_PRE_NO);
        }
        const pypi_version *vs[2] = {a, b};
        bool keep[2];
        pypi_specset_filter(s, vs, 2, PYPI_PRE_DEFAULT, keep);
        pypi_specset_free(s);
    }
    (void)pypi_spec_match(buf);
    (void)pypi_spec_contains_str(spec, ver);
    pypi_version_free(a);
    pypi_version_free(b);
    free(buf);
    return 0;
}

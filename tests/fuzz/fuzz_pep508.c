/* fuzz_pep508.c — libFuzzer target for the PEP 508 grammar: parse the input
 * as a requirement and as a marker (both modes), print and evaluate what
 * parsed; a printed marker must parse again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep508.h"

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
    static const pypi_env env = {"3.11", "3.11.2", "posix", "linux", "6.1", "Linux", "#1", "x86_64",
                                 "CPython", "cpython", "3.11.2", "test"};
    char *err = NULL;
    pypi_requirement *r = pypi_requirement_parse(buf, &err);
    if (!r && !err)
        abort();
    free(err);
    if (r && r->marker)
        (void)pypi_marker_evaluate(r->marker, &env, NULL);
    pypi_requirement_free(r);
    for (int strict = 0; strict < 2; strict++) {
        pypi_marker *m = pypi_marker_parse(buf, strict, NULL);
        if (!m)
            continue;
        char *e2 = NULL;
        int v = pypi_marker_evaluate(m, &env, &e2);
        if (v < 0 && !e2)
            abort();
        free(e2);
        (void)pypi_marker_evaluate(m, NULL, NULL);
        pypi_marker *again = pypi_marker_parse(pypi_marker_str(m), false, NULL);
        pypi_marker_free(again);
        pypi_marker_free(m);
    }
    char *c = pypi_name_canonical(buf);
    free(c);
    (void)pypi_name_valid(buf);
    free(buf);
    return 0;
}

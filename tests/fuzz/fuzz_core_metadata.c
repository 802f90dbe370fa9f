/* fuzz_core_metadata.c — libFuzzer target for core metadata (METADATA,
 * PKG-INFO, .metadata files): parse; a success must have Name and Version
 * and its Requires-Dist lines go through the PEP 508 parser; a failure must
 * say why. The same bytes are also tried as a wheel and an sdist archive. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    arena *a = arena_new();
    pypi_core_meta m;
    char *err = NULL;
    if (pypi_core_meta_parse(a, (const char *)data, size, &m, &err)) {
        if (!m.name || !*m.name || !m.version || !*m.version)
            abort();
        pypi_core_meta_license(a, &m);
        for (size_t i = 0; i < m.n_requires_dist; i++) {
            char *rerr = NULL;
            pypi_requirement *r = pypi_requirement_parse(m.requires_dist[i], &rerr);
            if (!r && !rerr)
                abort();
            free(rerr);
            pypi_requirement_free(r);
        }
        (void)pypi_core_meta_dynamic(&m, "Requires-Dist");
    } else if (!err) {
        abort();
    }
    free(err);
    arena_free(a);
    for (int sdist = 0; sdist < 2; sdist++) {
        size_t len = 0;
        const char *why = NULL;
        char *md = pypi_archive_metadata(data, size, sdist, &len, &why);
        if (!md && !why)
            abort();
        free(md);
    }
    return 0;
}

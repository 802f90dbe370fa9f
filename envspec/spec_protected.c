/* spec_protected.c — reading a base's protected pins and judging a
 * requirement against them (spec_protected.h). */
#include <stdlib.h>
#include <string.h>

#include "spec_protected.h"
#include "util.h"

spec_pin *spec_pins_read(const char *const *lines, size_t *n)
{
    size_t count = 0;
    while (lines && lines[count])
        count++;
    spec_pin *p = xcalloc(count + 1, sizeof *p);
    for (size_t i = 0; i < count; i++) {
        p[i].text = lines[i];
        pypi_requirement *r = pypi_requirement_parse(lines[i], NULL);
        if (!r)
            continue;
        p[i].canonical = xstrdup(r->canonical_name);
        p[i].supported = xstrdup(pypi_specset_str(r->specset));
        if (pypi_specset_len(r->specset) == 1) {
            const char *op = pypi_specset_op(r->specset, 0);
            if (strcmp(op, "==") == 0 || strcmp(op, "===") == 0)
                p[i].version = pypi_version_parse(pypi_specset_version(r->specset, 0), NULL);
        }
        pypi_requirement_free(r);
    }
    *n = count;
    return p;
}

void spec_pins_free(spec_pin *pins, size_t n)
{
    for (size_t i = 0; pins && i < n; i++) {
        free(pins[i].canonical);
        free(pins[i].supported);
        pypi_version_free(pins[i].version);
    }
    free(pins);
}

const spec_pin *spec_pin_find(const spec_pin *pins, size_t n, const char *canonical)
{
    for (size_t k = 0; k < n; k++)
        if (pins[k].canonical && strcmp(pins[k].canonical, canonical) == 0)
            return &pins[k];
    return NULL;
}

bool spec_pin_permits(const spec_pin *pin, const pypi_requirement *req)
{
    if (!pin->version || pypi_specset_len(req->specset) == 0)
        return true;
    return pypi_specset_contains(req->specset, pin->version, PYPI_PRE_YES);
}

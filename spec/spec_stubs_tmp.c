/* spec_stubs_tmp.c — TEMPORARY weak stand-ins for functions other engineers
 * are writing (the PEP 508 and npm spec checks), so the spec
 * module links and its tests run meanwhile. Delete once they land. */
#include <stdlib.h>

#include "spec_internal.h"

int pypi_requirement_check(const char *text, char **err);
int npm_pkgspec_check(const char *text, char **err);

__attribute__((weak)) int pypi_requirement_check(const char *text, char **err)
{
    (void)text;
    *err = NULL;
    return 0;
}

__attribute__((weak)) int npm_pkgspec_check(const char *text, char **err)
{
    (void)text;
    *err = NULL;
    return 0;
}

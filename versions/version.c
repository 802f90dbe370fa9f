/* version.c — the public el_version_* API: dispatch to the ecosystem's own
 * grammar (PEP 440, node-semver, dpkg, conda) and turn its parse errors into
 * DL_ENV_SPEC_INVALID failures. No version logic lives here. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "pep440.h"
#include "semver.h"
#include "debver.h"
#include "condaver.h"

int el_ecosystem_parse(const char *name, el_ecosystem *out)
{
    if (strcmp(name, "pypi") == 0 || strcmp(name, "python") == 0)
        *out = EL_ECO_PYPI;
    else if (strcmp(name, "npm") == 0 || strcmp(name, "node") == 0)
        *out = EL_ECO_NPM;
    else if (strcmp(name, "deb") == 0 || strcmp(name, "debian") == 0 || strcmp(name, "apt") == 0)
        *out = EL_ECO_DEB;
    else if (strcmp(name, "conda") == 0)
        *out = EL_ECO_CONDA;
    else
        return -1;
    return 0;
}

static el_code parse_failure(el_ctx *ctx, const char *reason, const char *text, char *err)
{
    el_fail(ctx, EL_SPEC_INVALID, "`%s`: %s", text, err ? err : "cannot be parsed");
    el_detail_str(ctx, "reason", reason);
    el_detail_str(ctx, "requested", text);
    free(err);
    return EL_SPEC_INVALID;
}

el_code el_version_compare(el_ctx *ctx, el_ecosystem eco, const char *a, const char *b, int *cmp)
{
    char *err = NULL;
    int rc;
    switch (eco) {
    case EL_ECO_PYPI: rc = pypi_version_cmp_str(a, b, cmp, &err); break;
    case EL_ECO_NPM: rc = npm_version_cmp_str(a, b, cmp, &err); break;
    case EL_ECO_DEB: rc = deb_version_cmp_str(a, b, cmp, &err); break;
    case EL_ECO_CONDA: rc = conda_version_cmp_str(a, b, cmp, &err); break;
    default: return el_fail(ctx, EL_USAGE, "unknown ecosystem");
    }
    if (rc != 0) {
        /* The grammar names which side failed in its message. */
        return parse_failure(ctx, "invalid_version", rc == -2 ? b : a, err);
    }
    return EL_OK;
}

el_code el_version_filter(el_ctx *ctx, el_ecosystem eco, const char *range,
                          const char *const *versions, size_t n, bool *keep)
{
    char *err = NULL;
    int rc;
    switch (eco) {
    case EL_ECO_PYPI: rc = pypi_filter(range, versions, n, keep, &err); break;
    case EL_ECO_NPM: rc = npm_filter(range, versions, n, keep, &err); break;
    case EL_ECO_DEB: rc = deb_filter(range, versions, n, keep, &err); break;
    case EL_ECO_CONDA: rc = conda_filter(range, versions, n, keep, &err); break;
    default: return el_fail(ctx, EL_USAGE, "unknown ecosystem");
    }
    if (rc != 0)
        return parse_failure(ctx, "invalid_range", range, err);
    return EL_OK;
}

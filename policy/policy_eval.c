/* policy_eval.c — the policy's answers (policy.h): URL prefixes at a
 * boundary, and deny rules judged in each ecosystem's own order. */
#include <string.h>

#include "util.h"

#include "debver.h"
#include "semver.h"
#include "pep440.h"
#include "policy.h"

bool policy_url_allowed(const policy_urls *urls, const char *url)
{
    if (!urls->set)
        return true;
    for (size_t i = 0; i < urls->n; i++) {
        const char *pre = urls->prefixes[i];
        size_t n = strlen(pre);
        if (strncmp(url, pre, n) != 0)
            continue;
        if (pre[n - 1] == '/' || url[n] == '\0' || url[n] == '/' || url[n] == '?')
            return true;
    }
    return false;
}

/* Whether `version` lies in the rule's range. Pre-releases count: a deny
 * rule that let 2.0.0-rc.1 through where it stops 2.0.0 would be a hole. */
static bool in_range(const policy_rule *r, const char *version)
{
    if (!r->versions)
        return true;
    if (r->eco == EL_ECO_PYPI) {
        pypi_specset *s = pypi_specset_parse(r->versions, NULL);
        pypi_version *v = pypi_version_parse(version, NULL);
        bool in = s && v && pypi_specset_contains(s, v, PYPI_PRE_YES);
        pypi_version_free(v);
        pypi_specset_free(s);
        return in;
    }
    if (r->eco == EL_ECO_NPM) {
        npm_range *rg = NULL;
        if (npm_range_parse(r->versions, NPM_INCLUDE_PRERELEASE, &rg, NULL) != 0)
            return false;
        bool in = npm_range_test_str(rg, version);
        npm_range_free(rg);
        return in;
    }
    bool keep = false;
    return deb_filter(r->versions, &version, 1, &keep, NULL) == 0 && keep;
}

const policy_rule *policy_denies(const policy *p, el_ecosystem eco, const char *name,
                                 const char *version, const char *src, const char *src_version)
{
    for (size_t i = 0; p && i < p->n_deny; i++) {
        const policy_rule *r = &p->deny[i];
        if (r->eco != eco)
            continue;
        if (strcmp(r->name, name) == 0 && in_range(r, version))
            return r;
        if (eco == EL_ECO_DEB && src && strcmp(src, name) != 0 && strcmp(r->name, src) == 0 &&
            in_range(r, src_version ? src_version : version))
            return r;
    }
    return NULL;
}

static bool exempt_in(const policy_exempt *list, size_t n_list, el_ecosystem eco,
                      const char *name)
{
    for (size_t i = 0; i < n_list; i++) {
        const policy_exempt *x = &list[i];
        size_t n = strlen(x->name);
        if (x->eco == eco && (x->prefix ? strncmp(name, x->name, n) == 0
                                        : strcmp(name, x->name) == 0))
            return true;
    }
    return false;
}

const policy_rule *policy_too_young(const policy *p, el_ecosystem eco, const char *name,
                                    const char *published, int64_t now)
{
    if (!p || eco > EL_ECO_NPM || p->cooldown[eco].min_age_s <= 0 ||
        exempt_in(p->exempt, p->n_exempt, eco, name))
        return NULL;
    const policy_rule *r = &p->cooldown[eco];
    int64_t ms;
    if (!published || !rfc3339_parse(published, RFC3339_NO_SECONDS_OK, &ms))
        return r; /* no age can be proven */
    return ms > (now - r->min_age_s) * 1000 ? r : NULL;
}

const policy_rule *policy_license_denies(const policy *p, el_ecosystem eco, const char *name,
                                         const char *license)
{
    if (!p || !p->licenses.set || eco == EL_ECO_DEB ||
        exempt_in(p->licenses.exempt, p->licenses.n_exempt, eco, name))
        return NULL;
    bool admitted = false;
    if (license && spdx_expr_admits(license, p->licenses.allow, p->licenses.n_allow, &admitted))
        return admitted ? NULL : &p->licenses.rule;
    return p->licenses.unknown_ok ? NULL : &p->licenses.rule;
}

bool policy_licenses_judge(const policy *p, el_ecosystem eco)
{
    return p && p->licenses.set && eco != EL_ECO_DEB;
}

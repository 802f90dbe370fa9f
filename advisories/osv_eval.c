/* osv_eval.c — OSV's "is this version affected" over one affected entry,
 * in the version order of the range: ECOSYSTEM ranges in the ecosystem's
 * own order (PEP 440, node-semver, dpkg), SEMVER ranges in SemVer 2.0
 * precedence (node-semver's). Owns no parsing of records (osv_parse.c) and
 * no file reading (osv_load.c).
 *
 * The osv-schema evaluation sorts a range's events by version and walks
 * them: an introduced at or below the version makes it affected, a fixed at
 * or below it or a last_affected strictly below it makes it unaffected, so
 * the answer is the kind of the greatest event that fires. Events at equal
 * versions fire in the order introduced, fixed, last_affected (a record
 * saying "introduced 1.0, fixed 1.0" affects nothing). A range with limit
 * events only affects versions below some limit ("*" is no limit). */
#include <stdlib.h>
#include <string.h>

#include "osv.h"
#include "pep440.h"
#include "semver.h"
#include "debver.h"

/* The order of one range: SEMVER ranges compare as semver whatever the
 * ecosystem. The grammars return -1 or -2 naming the side that failed. */
static int order_cmp(const osv_range *r, el_ecosystem eco, const char *a, const char *b,
                     int *c, char **err)
{
    if (r->type == OSV_RANGE_SEMVER || eco == EL_ECO_NPM)
        return npm_version_cmp_str(a, b, c, err);
    if (eco == EL_ECO_PYPI)
        return pypi_version_cmp_str(a, b, c, err);
    return deb_version_cmp_str(a, b, c, err);
}

/* "0" as introduced means "from the first version" and is no version of
 * node-semver: it compares below everything. */
static bool is_zero(const osv_event *e)
{
    return e->kind == OSV_INTRODUCED && strcmp(e->version, "0") == 0;
}

static int event_cmp(const osv_range *r, el_ecosystem eco, const osv_event *a,
                     const osv_event *b, int *c, char **err)
{
    if (is_zero(a) || is_zero(b)) {
        *c = is_zero(a) && is_zero(b) ? 0 : is_zero(a) ? -1 : 1;
        return 0;
    }
    return order_cmp(r, eco, a->version, b->version, c, err);
}

/* Whether event `e` fires for `version`; *fires set, 0 or -1 with *err. */
static int fires(const osv_range *r, el_ecosystem eco, const osv_event *e, const char *version,
                 bool *out, char **err)
{
    int c = 0;
    *out = false;
    if (e->kind == OSV_LIMIT)
        return 0;
    if (is_zero(e)) {
        *out = true;
        return 0;
    }
    if (order_cmp(r, eco, e->version, version, &c, err) != 0)
        return -1;
    *out = e->kind == OSV_LAST_AFFECTED ? c < 0 : c <= 0;
    return 0;
}

static int below_limits(const osv_range *r, el_ecosystem eco, const char *version, bool *out,
                        char **err)
{
    bool any = false;
    *out = false;
    for (size_t i = 0; i < r->n_events; i++) {
        const osv_event *e = &r->events[i];
        int c = 0;
        if (e->kind != OSV_LIMIT)
            continue;
        any = true;
        if (strcmp(e->version, "*") == 0) {
            *out = true;
            return 0;
        }
        if (order_cmp(r, eco, version, e->version, &c, err) != 0)
            return -1;
        if (c < 0)
            *out = true;
    }
    if (!any)
        *out = true;
    return 0;
}

static int range_eval(const osv_range *r, el_ecosystem eco, const char *version, bool *hit,
                      char **err)
{
    const osv_event *best = NULL;
    bool ok = false;
    *hit = false;
    for (size_t i = 0; i < r->n_events; i++) {
        const osv_event *e = &r->events[i];
        bool f = false;
        int c = 0;
        if (fires(r, eco, e, version, &f, err) != 0)
            return -1;
        if (!f)
            continue;
        if (best && event_cmp(r, eco, e, best, &c, err) != 0)
            return -1;
        if (!best || c > 0 || (c == 0 && e->kind > best->kind))
            best = e;
    }
    if (!best || best->kind != OSV_INTRODUCED)
        return 0;
    if (below_limits(r, eco, version, &ok, err) != 0)
        return -1;
    *hit = ok;
    return 0;
}

/* The explicit list is matched by the ecosystem's equality (PyPI's 1.0 is
 * 1.0.0); a listed version that does not parse is compared as text, since
 * ecosystems do publish such versions and the list names them exactly. */
static bool listed(const osv_affected *af, const char *version)
{
    osv_range eco_order = { OSV_RANGE_ECOSYSTEM, NULL, 0 };
    for (size_t i = 0; i < af->n_versions; i++) {
        int c = 1;
        char *err = NULL;
        if (strcmp(af->versions[i], version) == 0)
            return true;
        if (order_cmp(&eco_order, af->eco, af->versions[i], version, &c, &err) == 0 && c == 0)
            return true;
        free(err);
    }
    return false;
}

int osv_affected_eval(const osv_affected *af, const char *version, bool *hit, char **err)
{
    *hit = false;
    if (err)
        *err = NULL;
    for (size_t i = 0; i < af->n_ranges; i++) {
        char *e = NULL;
        if (range_eval(&af->ranges[i], af->eco, version, hit, &e) != 0) {
            if (err)
                *err = e;
            else
                free(e);
            return -1;
        }
        if (*hit)
            return 0;
    }
    *hit = listed(af, version);
    return 0;
}

/* Whether `cand` is a fix above `version` and below the best so far. */
static bool better_fix(const osv_range *rg, el_ecosystem eco, const char *cand,
                       const char *version, const char *best)
{
    int c = 0;
    char *err = NULL;
    bool ok = order_cmp(rg, eco, cand, version, &c, &err) == 0 && c > 0;
    free(err);
    err = NULL;
    if (ok && best)
        ok = order_cmp(rg, eco, cand, best, &c, &err) == 0 && c < 0;
    free(err);
    return ok;
}

const char *osv_smallest_fix(const osv_record *r, el_ecosystem eco, const char *name,
                             const char *version)
{
    char *key = osv_name_key(eco, name);
    const char *best = NULL;
    for (size_t i = 0; i < r->n_affected; i++) {
        const osv_affected *af = &r->affected[i];
        if (af->eco != eco || strcmp(af->name, key) != 0)
            continue;
        for (size_t k = 0; k < af->n_ranges; k++)
            for (size_t e = 0; e < af->ranges[k].n_events; e++) {
                const osv_event *ev = &af->ranges[k].events[e];
                if (ev->kind == OSV_FIXED &&
                    better_fix(&af->ranges[k], eco, ev->version, version, best))
                    best = ev->version;
            }
    }
    free(key);
    return best;
}

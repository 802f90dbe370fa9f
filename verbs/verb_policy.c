/* verb_policy.c — the organization policy in `resolve`, `check` and
 * `validate` (docs/policy.md): the file loaded, the request's (or the
 * spec's) sources bounded by its prefixes, its deny, cooldown and license
 * rules handed to the solve as a predicate, and the refusal when the only
 * answer needs a denied version. The rules' meaning
 * is policy/'s; keeping denied versions out is the resolver's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "envlock/resolve.h"
#include "envlock/spec.h"
#include "npm_index.h"
#include "policy.h"
#include "spdx.h"
#include "resolve_request.h"
#include "verbs_internal.h"

/* A denial the solve asked about: Debian rules may name the source
 * package, which the lock does not record, so the judge looks here first. */
typedef struct denial {
    char *key; /* "eco\tname\tversion" */
    const policy_rule *rule;
    char *fact; /* what was judged: a cooldown's release time, a license
                   rule's declared license; NULL when unknown or a deny rule */
} denial;

struct verbs_policy {
    policy *p;
    denial *hits;
    size_t n_hits, cap;
    int64_t now; /* what a cooldown measures from (verbs_policy_attach) */
};

el_code verbs_policy_load(el_ctx *ctx, const char *path, verbs_policy **out)
{
    *out = NULL;
    if (!path)
        return EL_OK;
    policy *p = policy_load(ctx, path);
    if (!p)
        return el_ctx_code(ctx);
    *out = xcalloc(1, sizeof **out);
    (*out)->p = p;
    return EL_OK;
}

void verbs_policy_free(verbs_policy *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_hits; i++) {
        free(v->hits[i].key);
        free(v->hits[i].fact);
    }
    free(v->hits);
    policy_free(v->p);
    free(v);
}

static const denial *recalled(const verbs_policy *v, const char *key)
{
    for (size_t i = 0; i < v->n_hits; i++)
        if (strcmp(v->hits[i].key, key) == 0)
            return &v->hits[i];
    return NULL;
}

static bool has_roots(const resolve_request *rq, const char *eco)
{
    for (size_t i = 0; i < rq->n_roots; i++)
        if (strcmp(rq->roots[i].ecosystem, eco) == 0)
            return true;
    return false;
}

/* The URI of a one-line apt source: "deb [opts] URI suite comps". */
static char *apt_uri(const char *line)
{
    const char *s = line + strcspn(line, " \t");
    s += strspn(s, " \t");
    if (*s == '[') {
        const char *close = strchr(s, ']');
        s = close ? close + 1 : s + strlen(s);
        s += strspn(s, " \t");
    }
    return xstrndup(s, strcspn(s, " \t"));
}

static el_code source_denied(el_ctx *ctx, const policy *p, const policy_urls *u,
                             const char *key, const char *kind, const char *url)
{
    el_fail(ctx, EL_POLICY_DENIED,
            "policy %s:%u:%u: `%s` does not allow the %s %s; ask for it to be added there, or "
            "use an allowed one",
            p->path, u->line, u->column, key, kind, url);
    el_detail_str(ctx, "reason", "source_denied");
    el_detail_str(ctx, "kind", kind);
    el_detail_str(ctx, "url", url);
    el_detail_str(ctx, "rule", key);
    el_detail_str(ctx, "path", p->path);
    el_detail_int(ctx, "line", u->line);
    el_detail_int(ctx, "column", u->column);
    return EL_POLICY_DENIED;
}

el_code verbs_policy_sources(el_ctx *ctx, const verbs_policy *v, const resolve_request *rq)
{
    if (!v)
        return EL_OK;
    const policy *p = v->p;
    if (has_roots(rq, "pypi"))
        for (size_t i = 0; i < rq->n_pypi_indexes; i++)
            if (!policy_url_allowed(&p->indexes, rq->pypi_indexes[i]))
                return source_denied(ctx, p, &p->indexes, "indexes", "PyPI index",
                                     rq->pypi_indexes[i]);
    if (has_roots(rq, "npm") && rq->npm_registry &&
        !policy_url_allowed(&p->registries, rq->npm_registry))
        return source_denied(ctx, p, &p->registries, "registries", "npm registry",
                             rq->npm_registry);
    for (size_t i = 0; has_roots(rq, "deb") && i < rq->n_apt_sources; i++) {
        char *uri = apt_uri(rq->apt_sources[i]);
        el_code rc = policy_url_allowed(&p->apt_sources, uri)
                         ? EL_OK
                         : source_denied(ctx, p, &p->apt_sources, "aptSources", "apt source", uri);
        free(uri);
        if (rc != EL_OK)
            return rc;
    }
    return EL_OK;
}

static bool denied_cb(void *user, const resolve_version *rv)
{
    verbs_policy *v = user;
    el_ecosystem e;
    if (el_ecosystem_parse(rv->eco, &e) != 0)
        return false;
    const policy_rule *r = policy_denies(v->p, e, rv->name, rv->version, rv->src, rv->src_version);
    if (!r)
        r = policy_too_young(v->p, e, rv->name, rv->published, v->now);
    if (!r)
        r = policy_license_denies(v->p, e, rv->name, rv->license);
    if (!r)
        return false;
    const char *fact = r->kind == POLICY_COOLDOWN ? rv->published
                       : r->kind == POLICY_LICENSE ? rv->license
                                                   : NULL;
    char *key = xasprintf("%s\t%s\t%s", rv->eco, rv->name, rv->version);
    if (recalled(v, key)) {
        free(key);
        return true;
    }
    if (v->n_hits == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 8;
        v->hits = xrealloc(v->hits, v->cap * sizeof *v->hits);
    }
    v->hits[v->n_hits++] = (denial){ key, r, fact ? xstrdup(fact) : NULL };
    return true;
}

void verbs_policy_attach(verbs_policy *v, resolve_request *rq)
{
    if (!v)
        return;
    rq->denied = denied_cb;
    rq->denied_user = v;
    /* A cooldown is measured from the resolve's cutoff when it has one (the
     * indexes as they were then, so the same inputs give the same lock),
     * else from now. */
    int64_t ms;
    v->now = rq->exclude_newer && rfc3339_parse(rq->exclude_newer, RFC3339_DATE_OK, &ms)
                 ? ms / 1000
                 : (int64_t)time(NULL);
    /* Full packuments: a cooldown judges their `time`, a licenses rule their
     * `license` (the abbreviated documents registry.npmjs.org serves carry
     * neither, so a license policy would see every version as unknown). */
    rq->publish_times = rq->publish_times || v->p->cooldown[EL_ECO_NPM].min_age_s > 0 ||
                        policy_licenses_judge(v->p, EL_ECO_NPM);
}

/* The rule that denies a locked package: one the solve met, else by the
 * lock's name and version (a deb's recorded source too). */
static const policy_rule *denies_pkg(const verbs_policy *v, const lock_package *k,
                                     const char **fact)
{
    el_ecosystem e;
    *fact = NULL;
    if (k->installed_in_base || el_ecosystem_parse(k->ecosystem, &e) != 0)
        return NULL;
    char *key = xasprintf("%s\t%s\t%s", k->ecosystem, k->name, k->version);
    const denial *d = recalled(v, key);
    free(key);
    if (d)
        *fact = d->fact;
    const char *src, *src_version;
    verbs_lock_query(k, e, &src, &src_version);
    return d ? d->rule : policy_denies(v->p, e, k->name, k->version, src, src_version);
}

/* Why rule r denies k (fact: denial.fact). */
static char *why_denied(const verbs_policy *v, const policy_rule *r, const lock_package *k,
                        const char *fact)
{
    char now[32];
    utc_format(v->now, "Z", now);
    char *pkg = xasprintf("%s:%s@%s", k->ecosystem, k->name, k->version);
    char *rule = xasprintf("the rule `%s` at %s:%u:%u%s%s%s", r->text, v->p->path, r->line,
                           r->column, r->reason ? " (" : "", r->reason ? r->reason : "",
                           r->reason ? ")" : "");
    char *s;
    if (r->kind == POLICY_DENY)
        s = xasprintf("%s is denied by %s", pkg, rule);
    else if (r->kind == POLICY_COOLDOWN && fact)
        s = xasprintf("%s was released %s, less than its cooldown before %s: %s", pkg, fact, now,
                      rule);
    else if (r->kind == POLICY_COOLDOWN)
        s = xasprintf("%s has no release time in its index, so its age cannot be proven: %s",
                      pkg, rule);
    else if (fact)
        s = xasprintf("%s declares the license `%s`, which %s cannot meet with the licenses it "
                      "allows", pkg, fact, rule);
    else
        s = xasprintf("%s declares no license envlock can read, and %s denies unknown ones "
                      "(`unknown: allow`, or exempt it)", pkg, rule);
    free(rule);
    free(pkg);
    return s;
}

static json_object *denial_json(const policy_rule *r, const lock_package *k, const char *chain,
                                const char *fact)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "ecosystem", json_object_new_string(k->ecosystem));
    json_object_object_add(o, "package", json_object_new_string(k->name));
    json_object_object_add(o, "version", json_object_new_string(k->version));
    json_object_object_add(o, "rule", json_object_new_string(r->text));
    json_object_object_add(o, "line", json_object_new_int64(r->line));
    json_object_object_add(o, "column", json_object_new_int64(r->column));
    json_object_object_add(o, "reason", r->reason ? json_object_new_string(r->reason) : NULL);
    if (r->kind != POLICY_DENY)
        json_object_object_add(o, r->kind == POLICY_COOLDOWN ? "published" : "license",
                               fact ? json_object_new_string(fact) : NULL);
    json_object_object_add(o, "chain", json_object_new_string(chain));
    return o;
}

el_code verbs_policy_judge(el_ctx *ctx, const verbs_policy *v, const lock_doc *d)
{
    if (!v)
        return EL_OK;
    json_object *all = json_object_new_array();
    char *first = NULL;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *k = &d->packages[i];
        const char *fact;
        const policy_rule *r = denies_pkg(v, k, &fact);
        if (!r)
            continue;
        char *chain = verbs_lock_chain(d, k);
        json_object_array_add(all, denial_json(r, k, chain, fact));
        if (!first) {
            char *why = why_denied(v, r, k, fact);
            first = xasprintf("%s; chain: %s", why, chain);
            free(why);
        }
        free(chain);
    }
    size_t n = json_object_array_length(all);
    el_code rc = EL_OK;
    if (n) {
        rc = el_fail(ctx, EL_POLICY_DENIED,
                     "the spec cannot be met without a version the policy denies: %s%s", first,
                     n > 1 ? " (and more: see detail.denied)" : "");
        el_detail_str(ctx, "reason", "package_denied");
        el_detail_take(ctx, "denied", json_object_get(all));
    }
    json_object_put(all);
    free(first);
    return rc;
}

/* An allowed license the SPDX License List marks deprecated (`GPL-2.0+`):
 * accepted, with a note, since packages declaring its replacement do not
 * match it. */
static void deprecated_allowed(const policy *p, void (*note)(void *user, const char *text),
                               void *user)
{
    for (size_t i = 0; i < p->licenses.n_allow; i++) {
        char id[128];
        if (!spdx_expr_deprecated(p->licenses.allow[i], id, sizeof id))
            continue;
        char *text = xasprintf("the policy %s allows `%s`, an identifier the SPDX License List "
                               "deprecates: a package declaring its replacement (such as an "
                               "`-only` or `-or-later` form) is not matched by it",
                               p->path, id);
        note(user, text);
        free(text);
    }
}

void verbs_policy_notes(const verbs_policy *v, const lock_doc *d,
                        void (*note)(void *user, const char *text), void *user)
{
    if (!v || !v->p->licenses.set)
        return;
    deprecated_allowed(v->p, note, user);
    size_t n = 0;
    const char *first = NULL;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *k = &d->packages[i];
        if (strcmp(k->ecosystem, "deb") == 0 && !k->installed_in_base && n++ == 0)
            first = k->name;
    }
    if (!n)
        return;
    char *text = xasprintf("the policy's licenses were not checked for %zu Debian package%s "
                           "(%s%s): apt's indexes carry no license, each package's "
                           "debian/copyright holds it",
                           n, n == 1 ? "" : "s", first, n > 1 ? ", ..." : "");
    note(user, text);
    free(text);
}

/* The prefixes that govern a locked package's source, and the source's URL
 * (a deb source is "URI suite component"). */
static const policy_urls *urls_for(const policy *p, const char *eco)
{
    return strcmp(eco, "pypi") == 0  ? &p->indexes
           : strcmp(eco, "npm") == 0 ? &p->registries
           : strcmp(eco, "deb") == 0 ? &p->apt_sources
                                     : NULL;
}

/* The licenses rule against the license a lock records for k (a PyPI or
 * npm package of its own, not one shipped inside another's tarball): a
 * line of the report when the rule denies it. A lock records only SPDX
 * expressions, so a package without one is unknown to the rule, as the
 * resolve judged it (npm's are recorded when its full packuments were
 * read, which a licenses rule makes resolve do). */
static size_t recheck_license(const policy *p, const lock_package *k, lock_report *report)
{
    el_ecosystem e;
    if (k->in_bundle || el_ecosystem_parse(k->ecosystem, &e) != 0)
        return 0;
    const policy_rule *r = policy_license_denies(p, e, k->name, k->license);
    if (!r)
        return 0;
    char *id = xasprintf("%s:%s@%s", k->ecosystem, k->name, k->version);
    if (k->license)
        lock_report_add(report, "policy", id, k->license, NULL, "%s:%s@%s: its license `%s` is not allowed by the policy rule `%s` at "
                        "%s:%u:%u",
                k->ecosystem, k->name, k->version, k->license, r->text, p->path, r->line,
                r->column);
    else
        lock_report_add(report, "policy", id, NULL, NULL, "%s:%s@%s: the lock records no license for it, and the policy rule `%s` "
                        "at %s:%u:%u denies unknown ones (re-resolve with the policy, which "
                        "reads the licenses)",
                k->ecosystem, k->name, k->version, r->text, p->path, r->line, r->column);
    free(id);
    return 1;
}

size_t verbs_policy_recheck(const verbs_policy *v, const lock_doc *d, lock_report *report)
{
    if (!v)
        return 0;
    const policy *p = v->p;
    size_t n = 0;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *k = &d->packages[i];
        if (k->installed_in_base)
            continue;
        const char *fact;
        const policy_rule *r = denies_pkg(v, k, &fact);
        char *id = xasprintf("%s:%s@%s", k->ecosystem, k->name, k->version);
        if (r && ++n)
            lock_report_add(report, "policy", id, NULL, NULL,
                            "%s:%s@%s: denied by the policy rule `%s` at %s:%u:%u", k->ecosystem,
                            k->name, k->version, r->text, p->path, r->line, r->column);
        else
            n += recheck_license(p, k, report);
        const policy_urls *u = urls_for(p, k->ecosystem);
        char *url = k->source ? xstrndup(k->source, strcspn(k->source, " \t")) : NULL;
        if (u && url && !policy_url_allowed(u, url) && ++n)
            lock_report_add(report, "policy", id, url, NULL,
                    "%s:%s@%s: its source %s is outside the policy's %s at %s:%u:%u",
                    k->ecosystem, k->name, k->version, url,
                    u == &p->indexes ? "indexes" : u == &p->registries ? "registries"
                                                                         : "aptSources",
                    p->path, u->line, u->column);
        free(url);
        free(id);
    }
    return n;
}

/* el_policy_check_spec()'s findings so far. */
typedef struct spec_judge {
    const el_spec *spec;
    const policy *p;
    json_object *list;
    char *first; /* the first finding, for the message */
} spec_judge;

static void judge_source(spec_judge *j, const policy_urls *u, const char *rule, const char *kind,
                         const char *field, const char *url)
{
    if (policy_url_allowed(u, url))
        return;
    unsigned line = 0, col = 0;
    el_spec_locate(j->spec, field, &line, &col);
    char *msg = xasprintf("the %s %s is outside the policy's `%s` (%s:%u:%u); use an allowed "
                          "one, or ask for it to be added there",
                          kind, url, rule, j->p->path, u->line, u->column);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "field", json_object_new_string(field));
    json_object_object_add(o, "line", json_object_new_int64(line));
    json_object_object_add(o, "column", json_object_new_int64(col));
    json_object_object_add(o, "message", json_object_new_string(msg));
    json_object_object_add(o, "code", json_object_new_string(el_code_name(EL_POLICY_DENIED)));
    json_object_array_add(j->list, o);
    if (!j->first)
        j->first = xasprintf("%s (spec line %u, column %u): %s", field, line, col, msg);
    free(msg);
}

static bool spec_has(const el_spec *spec, unsigned list)
{
    size_t n = 0;
    el_free(el_spec_entries(spec, list, &n));
    return n > 0;
}

/* The spec's indexes, registry and apt sources, each where it is written
 * (or, defaulted, where its section is). */
static void judge_spec_sources(spec_judge *j)
{
    const el_spec *spec = j->spec;
    const policy *p = j->p;
    size_t n = 0;
    const char *const *idx = el_spec_python_indexes(spec, &n);
    char field[96];
    for (size_t i = 0; spec_has(spec, EL_SPEC_PYTHON_DEPENDENCIES) && i < n; i++) {
        snprintf(field, sizeof field, "spec.packages.python.indexes[%zu]", i);
        judge_source(j, &p->indexes, "indexes", "PyPI index", field, idx[i]);
    }
    const char *reg = el_spec_npm_registry(spec);
    if (spec_has(spec, EL_SPEC_NODE_DEPENDENCIES))
        judge_source(j, &p->registries, "registries", "npm registry",
                     "spec.packages.node.registry", reg ? reg : NPM_DEFAULT_REGISTRY);
    const char *const *src = el_spec_apt_sources(spec, &n);
    for (size_t i = 0; spec_has(spec, EL_SPEC_APT) && i < n; i++) {
        char *uri = apt_uri(src[i]);
        snprintf(field, sizeof field, "spec.packages.system.sources[%zu]", i);
        judge_source(j, &p->apt_sources, "aptSources", "apt source", field, uri);
        free(uri);
    }
}

el_code el_policy_check_spec(el_ctx *ctx, const el_spec *spec, const char *policy_path)
{
    policy *p = policy_load(ctx, policy_path);
    if (!p)
        return el_ctx_code(ctx);
    spec_judge j = { spec, p, json_object_new_array(), NULL };
    judge_spec_sources(&j);
    size_t n = json_object_array_length(j.list);
    el_code rc = EL_OK;
    if (n) {
        rc = el_fail(ctx, EL_POLICY_DENIED, "%s%s", j.first,
                     n > 1 ? " (and more: see detail.findings)" : "");
        el_detail_str(ctx, "reason", "source_denied");
        el_detail_take(ctx, "findings", json_object_get(j.list));
    }
    json_object_put(j.list);
    free(j.first);
    policy_free(p);
    return rc;
}

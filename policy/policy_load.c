/* policy_load.c — the policy file (docs/policy.md) read into a `policy`:
 * one YAML mapping through the spec module's positioned parser, every key
 * known, every value of the right shape, every range parsed in its
 * ecosystem's grammar before anything is judged by it. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "debver.h"
#include "semver.h"
#include "pep440.h"
#include "pep508.h"
#include "policy.h"
#include "spec_internal.h"

/* How a policy names itself in its failures (spec_document_fail()). */
#define POLICY_KIND "policy"
#define POLICY_REASON "invalid_policy"

typedef struct loader {
    el_ctx *ctx;
    policy *p;
    bool failed;
} loader;

static void bad(loader *L, const spec_node *at, const char *field, el_code code,
                const char *fmt, ...) EL_PRINTF(5, 6);
static void bad(loader *L, const spec_node *at, const char *field, el_code code,
                const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    spec_document_fail(L->ctx, code, POLICY_KIND, L->p->path, at ? at->line : 0,
                       at ? at->column : 0, field,
                       code == EL_SPEC_INVALID ? POLICY_REASON : "unsupported", msg);
    free(msg);
}

static const char *str_of(loader *L, const spec_node *n, const char *field)
{
    if (!n || n->kind != SN_STR || strlen(n->text) != n->text_len || !n->text_len) {
        bad(L, n, field, EL_SPEC_INVALID, "must be a non-empty string");
        return NULL;
    }
    return n->text;
}

/* Whether the authority of `u` (after "://", up to the next '/') holds
 * user information. */
static bool has_userinfo(const char *u)
{
    const char *host = strstr(u, "://") + 3;
    size_t n = strcspn(host, "/");
    return memchr(host, '@', n) != NULL;
}

/* A URL prefix: http(s) or file, no credentials (a policy is shared). */
static void read_urls(loader *L, const spec_node *n, const char *key, policy_urls *out)
{
    out->set = true;
    out->line = n->line, out->column = n->column;
    if (n->kind != SN_SEQ) {
        bad(L, n, key, EL_SPEC_INVALID, "must be a list of URL prefixes");
        return;
    }
    out->prefixes = arena_alloc(L->p->mem, (n->n + 1) * sizeof *out->prefixes);
    for (size_t i = 0; i < n->n && !L->failed; i++) {
        const char *field = arena_sprintf(L->p->mem, "%s[%zu]", key, i);
        const char *u = str_of(L, n->items[i], field);
        if (!u)
            return;
        if (strncmp(u, "https://", 8) && strncmp(u, "http://", 7) && strncmp(u, "file://", 7))
            bad(L, n->items[i], field, EL_SPEC_INVALID,
                "`%s` is not an http, https or file URL", u);
        else if (has_userinfo(u))
            bad(L, n->items[i], field, EL_SPEC_INVALID,
                "`%s` carries credentials; a policy names where, not who", u);
        out->prefixes[out->n++] = u;
    }
}

/* The range parses in the rule's ecosystem (policy_eval.c reads it so). */
static char *range_error(el_ecosystem eco, const char *range)
{
    char *err = NULL;
    if (eco == EL_ECO_PYPI) {
        pypi_specset *s = pypi_specset_parse(range, &err);
        pypi_specset_free(s);
    } else if (eco == EL_ECO_NPM) {
        npm_range *r = NULL;
        if (npm_range_parse(range, NPM_INCLUDE_PRERELEASE, &r, &err) == 0)
            npm_range_free(r);
    } else {
        deb_filter(range, NULL, 0, NULL, &err);
    }
    return err;
}

static const char *const rule_keys[] = { "ecosystem", "name", "versions", "reason", NULL };

static bool known_key(const char *const *keys, const char *k)
{
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(keys[i], k) == 0)
            return true;
    return false;
}

static void read_rule(loader *L, const spec_node *n, const char *field, policy_rule *r)
{
    arena *m = L->p->mem;
    r->line = n->line, r->column = n->column;
    if (n->kind != SN_MAP) {
        bad(L, n, field, EL_SPEC_INVALID, "must be a mapping with ecosystem and name");
        return;
    }
    for (size_t i = 0; i < n->n; i++)
        if (!known_key(rule_keys, n->keys[i]->text))
            bad(L, n->keys[i], arena_sprintf(m, "%s.%s", field, n->keys[i]->text),
                EL_SPEC_INVALID, "unknown key; a rule has ecosystem, name, versions, reason");
    const spec_node *e = spec_node_get(n, "ecosystem"), *nm = spec_node_get(n, "name");
    const spec_node *v = spec_node_get(n, "versions"), *why = spec_node_get(n, "reason");
    const char *eco = str_of(L, e, arena_sprintf(m, "%s.ecosystem", field));
    const char *name = str_of(L, nm, arena_sprintf(m, "%s.name", field));
    if (L->failed)
        return;
    if (el_ecosystem_parse(eco, &r->eco) != 0 || r->eco == EL_ECO_CONDA) {
        bad(L, e, arena_sprintf(m, "%s.ecosystem", field), EL_SPEC_INVALID,
            "`%s` is not pypi, npm or deb", eco);
        return;
    }
    char *canon = r->eco == EL_ECO_PYPI ? pypi_name_canonical(name) : xstrdup(name);
    r->name = arena_strdup(m, canon);
    free(canon);
    r->versions = v ? str_of(L, v, arena_sprintf(m, "%s.versions", field)) : NULL;
    r->reason = why ? str_of(L, why, arena_sprintf(m, "%s.reason", field)) : NULL;
    char *err = r->versions ? range_error(r->eco, r->versions) : NULL;
    if (err)
        bad(L, v, arena_sprintf(m, "%s.versions", field), EL_SPEC_INVALID,
            "`%s` is not a %s range: %s", r->versions, eco, err);
    free(err);
    r->text = arena_sprintf(m, "%s %s%s%s", r->eco == EL_ECO_PYPI ? "pypi"
                                           : r->eco == EL_ECO_NPM ? "npm" : "deb",
                            r->name, r->versions ? " " : "", r->versions ? r->versions : "");
}

static void read_deny(loader *L, const spec_node *n)
{
    if (n->kind != SN_SEQ) {
        bad(L, n, "deny", EL_SPEC_INVALID, "must be a list of rules");
        return;
    }
    L->p->deny = arena_alloc(L->p->mem, (n->n + 1) * sizeof *L->p->deny);
    memset(L->p->deny, 0, (n->n + 1) * sizeof *L->p->deny);
    for (size_t i = 0; i < n->n && !L->failed; i++)
        read_rule(L, n->items[i], arena_sprintf(L->p->mem, "deny[%zu]", i),
                  &L->p->deny[L->p->n_deny++]);
}

/* One exempt name: `ecosystem` and `name`, a trailing '*' for a prefix.
 * A cooldown judges pypi and npm; a licenses rule conda too. */
static void read_exempt(loader *L, const spec_node *n, const char *field, bool conda_ok,
                        policy_exempt *x)
{
    arena *m = L->p->mem;
    static const char *const keys[] = { "ecosystem", "name", NULL };
    if (n->kind != SN_MAP) {
        bad(L, n, field, EL_SPEC_INVALID, "must be a mapping with ecosystem and name");
        return;
    }
    for (size_t i = 0; i < n->n; i++)
        if (!known_key(keys, n->keys[i]->text))
            bad(L, n->keys[i], arena_sprintf(m, "%s.%s", field, n->keys[i]->text),
                EL_SPEC_INVALID, "unknown key; an exemption has ecosystem and name");
    const spec_node *e = spec_node_get(n, "ecosystem");
    const char *eco = str_of(L, e, arena_sprintf(m, "%s.ecosystem", field));
    const char *name = str_of(L, spec_node_get(n, "name"), arena_sprintf(m, "%s.name", field));
    if (L->failed)
        return;
    if (el_ecosystem_parse(eco, &x->eco) != 0 || x->eco == EL_ECO_DEB ||
        (x->eco == EL_ECO_CONDA && !conda_ok)) {
        bad(L, e, arena_sprintf(m, "%s.ecosystem", field), EL_SPEC_INVALID,
            conda_ok ? "`%s` is not pypi, npm or conda (the ecosystems a licenses rule judges)"
                     : "`%s` is not pypi or npm (the ecosystems a cooldown applies to)",
            eco);
        return;
    }
    size_t len = strlen(name);
    x->prefix = name[len - 1] == '*';
    char *plain = xstrndup(name, len - x->prefix);
    char *canon = x->eco == EL_ECO_PYPI ? pypi_name_canonical(plain) : NULL;
    x->name = arena_strdup(m, canon ? canon : plain);
    free(canon);
    free(plain);
}

/* `key` (minimumReleaseAge.exempt, licenses.exempt): a list of names. */
static void read_exempts(loader *L, const spec_node *n, const char *key, policy_exempt **out,
                         size_t *n_out)
{
    if (n->kind != SN_SEQ) {
        bad(L, n, key, EL_SPEC_INVALID, "must be a list of names");
        return;
    }
    *out = arena_alloc(L->p->mem, (n->n + 1) * sizeof **out);
    for (size_t i = 0; i < n->n && !L->failed; i++)
        read_exempt(L, n->items[i], arena_sprintf(L->p->mem, "%s[%zu]", key, i),
                    strncmp(key, "licenses", 8) == 0, &(*out)[(*n_out)++]);
}

/* minimumReleaseAge: a span per ecosystem ("7d"), and names exempt. */
static void read_cooldown(loader *L, const spec_node *n)
{
    arena *m = L->p->mem;
    if (n->kind != SN_MAP) {
        bad(L, n, "minimumReleaseAge", EL_SPEC_INVALID,
            "must be a mapping: pypi and npm spans (7d, 12h), and exempt names");
        return;
    }
    for (size_t i = 0; i < n->n && !L->failed; i++) {
        const char *k = n->keys[i]->text;
        const char *field = arena_sprintf(m, "minimumReleaseAge.%s", k);
        el_ecosystem eco;
        if (strcmp(k, "exempt") == 0) {
            read_exempts(L, n->items[i], field, &L->p->exempt, &L->p->n_exempt);
            continue;
        }
        if (strcmp(k, "deb") == 0 || strcmp(k, "debian") == 0 || strcmp(k, "apt") == 0) {
            bad(L, n->keys[i], field, EL_CAPABILITY_UNSUPPORTED,
                "apt's indexes publish no release time per package, so no age can be judged; "
                "bound Debian with a snapshot cutoff (--exclude-newer) instead");
            continue;
        }
        if (el_ecosystem_parse(k, &eco) != 0 || eco > EL_ECO_NPM) {
            bad(L, n->keys[i], field, EL_SPEC_INVALID, "unknown key; use pypi, npm or exempt");
            continue;
        }
        policy_rule *r = &L->p->cooldown[eco];
        const char *span = str_of(L, n->items[i], field);
        if (span && (!span_parse(span, &r->min_age_s) || r->min_age_s <= 0))
            bad(L, n->items[i], field, EL_SPEC_INVALID,
                "`%s` is not a span of time such as 7d, 12h, 1w2d (units s m h d w)", span);
        r->kind = POLICY_COOLDOWN;
        r->eco = eco;
        r->line = n->items[i]->line, r->column = n->items[i]->column;
        r->text = arena_sprintf(m, "%s minimumReleaseAge %s", k, span ? span : "");
    }
}

/* One allowed license: an SPDX id, or "id WITH exception", kept with single
 * spaces; AND, OR and parentheses are for packages, not for the list. */
static const char *read_allowed(loader *L, const spec_node *n, const char *field)
{
    const char *s = str_of(L, n, field);
    if (!s)
        return NULL;
    strbuf sb = STRBUF_INIT;
    for (const char *w = s + strspn(s, " \t"); *w; w += strspn(w, " \t")) {
        size_t len = strcspn(w, " \t");
        sb_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)len, w);
        w += len;
    }
    bool ok_form = spdx_expr_is_license(sb.buf);
    const char *out = ok_form ? arena_strdup(L->p->mem, sb.buf) : NULL;
    char id[128];
    if (!ok_form && spdx_expr_unlisted(sb.buf, id, sizeof id))
        bad(L, n, field, EL_SPEC_INVALID,
            "`%s` is not on the SPDX License List (%s), nor a LicenseRef-: a license no "
            "package can declare",
            id, spdx_list_version);
    else if (!ok_form)
        bad(L, n, field, EL_SPEC_INVALID,
            "`%s` is not an SPDX license identifier (MIT, Apache-2.0) or `id WITH exception`",
            s);
    sb_release(&sb);
    return out;
}

static void read_allow(loader *L, const spec_node *n)
{
    if (n->kind != SN_SEQ) {
        bad(L, n, "licenses.allow", EL_SPEC_INVALID, "must be a list of SPDX identifiers");
        return;
    }
    L->p->licenses.allow = arena_alloc(L->p->mem, (n->n + 1) * sizeof *L->p->licenses.allow);
    for (size_t i = 0; i < n->n && !L->failed; i++)
        L->p->licenses.allow[L->p->licenses.n_allow++] =
            read_allowed(L, n->items[i], arena_sprintf(L->p->mem, "licenses.allow[%zu]", i));
}

/* licenses: the allowed ones, what no readable license means, exempt names. */
static void read_licenses(loader *L, const spec_node *n)
{
    policy *p = L->p;
    if (n->kind != SN_MAP) {
        bad(L, n, "licenses", EL_SPEC_INVALID, "must be a mapping: allow, unknown and exempt");
        return;
    }
    p->licenses.set = true;
    p->licenses.rule = (policy_rule){ .kind = POLICY_LICENSE, .text = "licenses",
                                      .line = n->line, .column = n->column };
    for (size_t i = 0; i < n->n && !L->failed; i++) {
        const char *k = n->keys[i]->text;
        const char *field = arena_sprintf(p->mem, "licenses.%s", k);
        const spec_node *v = n->items[i];
        if (strcmp(k, "allow") == 0) {
            read_allow(L, v);
        } else if (strcmp(k, "exempt") == 0) {
            read_exempts(L, v, field, &p->licenses.exempt, &p->licenses.n_exempt);
        } else if (strcmp(k, "unknown") == 0) {
            const char *u = str_of(L, v, field);
            if (u && strcmp(u, "allow") && strcmp(u, "deny"))
                bad(L, v, field, EL_SPEC_INVALID, "`%s` is neither allow nor deny", u);
            p->licenses.unknown_ok = u && strcmp(u, "allow") == 0;
        } else {
            bad(L, n->keys[i], field, EL_SPEC_INVALID,
                "unknown key; licenses has allow, unknown and exempt");
        }
    }
    if (!L->failed && !spec_node_get(n, "allow"))
        bad(L, n, "licenses.allow", EL_SPEC_INVALID, "is required: the licenses allowed");
}

static void read_policy(loader *L, const spec_node *root)
{
    policy *p = L->p;
    if (root->kind != SN_MAP) {
        bad(L, root, "(document)", EL_SPEC_INVALID, "a policy is a mapping");
        return;
    }
    for (size_t i = 0; i < root->n && !L->failed; i++) {
        const char *k = root->keys[i]->text;
        const spec_node *v = root->items[i];
        if (strcmp(k, "indexes") == 0)
            read_urls(L, v, k, &p->indexes);
        else if (strcmp(k, "registries") == 0)
            read_urls(L, v, k, &p->registries);
        else if (strcmp(k, "aptSources") == 0)
            read_urls(L, v, k, &p->apt_sources);
        else if (strcmp(k, "deny") == 0)
            read_deny(L, v);
        else if (strcmp(k, "minimumReleaseAge") == 0)
            read_cooldown(L, v);
        else if (strcmp(k, "licenses") == 0)
            read_licenses(L, v);
        else
            bad(L, root->keys[i], k, EL_SPEC_INVALID,
                "unknown key; a policy has indexes, registries, aptSources, deny, "
                "minimumReleaseAge and licenses");
    }
}

policy *policy_parse(el_ctx *ctx, const char *path, const char *text, size_t len)
{
    policy *p = xcalloc(1, sizeof *p);
    p->mem = arena_new();
    p->path = arena_strdup(p->mem, path);
    loader L = { ctx, p, false };
    spec_node *root = spec_document_parse(ctx, p->mem, POLICY_KIND, path, POLICY_REASON, text, len);
    if (root)
        read_policy(&L, root);
    if (!root || L.failed) {
        policy_free(p);
        return NULL;
    }
    return p;
}

policy *policy_load(el_ctx *ctx, const char *path)
{
    size_t len = 0;
    char *text = spec_document_read(ctx, POLICY_KIND, path, POLICY_MAX_BYTES, &len);
    if (!text)
        return NULL;
    policy *p = policy_parse(ctx, path, text, len);
    free(text);
    return p;
}

void policy_free(policy *p)
{
    if (!p)
        return;
    arena_free(p->mem);
    free(p);
}

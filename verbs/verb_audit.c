/* verb_audit.c — el_audit(): the lock's packages against an OSV snapshot,
 * offline (advisories/ evaluates). Nothing is written; a snapshot or lock
 * that cannot be read is a failure, so "could not audit" never reads as
 * "clean". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envlock/audit.h"
#include "envlock/spec.h"
#include "lock.h"
#include "npm_spec.h"
#include "osv.h"
#include "pep508.h"
#include "verbs_internal.h"

bool verbs_osv_named(const osv_record *r, const char *const *ids, size_t n)
{
    for (size_t i = 0; ids && i < n && ids[i]; i++) {
        if (strcmp(ids[i], r->id) == 0)
            return true;
        for (size_t k = 0; k < r->n_aliases; k++)
            if (strcmp(ids[i], r->aliases[k]) == 0)
                return true;
    }
    return false;
}

const lock_package *verbs_lock_find(const lock_doc *d, const char *ref)
{
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        char *k = xasprintf("%s:%s@%s", p->ecosystem, p->name, p->version);
        bool same = strcmp(k, ref) == 0;
        free(k);
        if (same)
            return p;
    }
    return NULL;
}

/* The first requestedBy path up to the spec (at most 16 steps). */
char *verbs_lock_chain(const lock_doc *d, const lock_package *p)
{
    ptrvec steps = PTRVEC_INIT;
    strbuf sb = STRBUF_INIT;
    for (int depth = 0; p && depth < 16; depth++) {
        ptrvec_push(&steps, xasprintf("%s:%s@%s", p->ecosystem, p->name, p->version));
        const char *by = p->requested_by ? p->requested_by[0] : NULL;
        if (!by || strcmp(by, "spec") == 0 || strcmp(by, "protected") == 0) {
            ptrvec_push(&steps, xstrdup(by ? by : "?"));
            break;
        }
        p = verbs_lock_find(d, by);
    }
    for (size_t i = steps.len; i-- > 0;) {
        sb_adds(&sb, steps.items[i]);
        if (i)
            sb_adds(&sb, " → ");
        free(steps.items[i]);
    }
    ptrvec_release(&steps);
    return sb_detach(&sb, NULL);
}

const lock_package *verbs_lock_top(const lock_doc *d, const lock_package *p)
{
    for (int depth = 0; p && depth < 16; depth++) {
        const char *by = p->requested_by ? p->requested_by[0] : NULL;
        if (!by || strcmp(by, "spec") == 0 || strcmp(by, "protected") == 0)
            return p;
        p = verbs_lock_find(d, by);
    }
    return p;
}

char *verbs_root_name(const char *ecosystem, const char *text)
{
    if (strcmp(ecosystem, "pypi") == 0) {
        pypi_requirement *q = pypi_requirement_parse(text, NULL);
        char *n = q ? xstrdup(q->canonical_name) : NULL;
        pypi_requirement_free(q);
        return n;
    }
    if (strcmp(ecosystem, "npm") == 0) {
        npm_pkgspec ps;
        char *err = NULL;
        if (npm_pkgspec_parse(text, &ps, &err) != 0) {
            free(err);
            return NULL;
        }
        char *n = xstrdup(ps.name);
        npm_pkgspec_release(&ps);
        return n;
    }
    return xstrndup(text, strcspn(text, "="));
}

static char *aliases_of(const osv_record *r)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->n_aliases; i++)
        sb_addf(&sb, "%s%s", i ? "," : "", r->aliases[i]);
    return sb_detach(&sb, NULL);
}

void verbs_lock_query(const lock_package *p, el_ecosystem eco, const char **name,
                      const char **version)
{
    bool deb = eco == EL_ECO_DEB;
    *name = deb && p->src_name ? p->src_name : p->name;
    *version = deb && p->src_version ? p->src_version : p->version;
}

/* The spec's entries a resolve starts from, with the ecosystem of each. */
typedef struct spec_roots {
    const el_spec *spec;
    el_spec_entry *entries;
    size_t n;
} spec_roots;

static const char *list_ecosystem(el_spec_list list)
{
    if (list == EL_SPEC_NODE_DEPENDENCIES)
        return "npm";
    return list == EL_SPEC_APT ? "deb" : "pypi";
}

/* Where the spec asks for the package that brings `p` in. */
static void place(el_audit_finding *f, const spec_roots *sr, const lock_doc *d,
                  const lock_package *p)
{
    const lock_package *top = verbs_lock_top(d, p);
    for (size_t i = 0; sr && top && i < sr->n && !*f->spec_field; i++) {
        const el_spec_entry *e = &sr->entries[i];
        if (strcmp(list_ecosystem(e->list), top->ecosystem) != 0)
            continue;
        char *n = verbs_root_name(top->ecosystem, e->text);
        if (n && strcmp(n, top->name) == 0) {
            free(f->spec_field);
            f->spec_field = xstrdup(e->field);
            el_spec_locate(sr->spec, e->field, &f->spec_line, &f->spec_column);
        }
        free(n);
    }
}

static void add_finding(ptrvec *out, const lock_doc *d, const lock_package *p, el_ecosystem eco,
                        const osv_record *r, const spec_roots *sr)
{
    el_audit_finding *f = xcalloc(1, sizeof *f);
    const char *qn, *qv;
    verbs_lock_query(p, eco, &qn, &qv);
    const char *fix = osv_smallest_fix(r, eco, qn, qv);
    f->source = qn != p->name || qv != p->version ? xasprintf("%s %s", qn, qv) : xstrdup("");
    f->ecosystem = xstrdup(p->ecosystem);
    f->name = xstrdup(p->name);
    f->version = xstrdup(p->version);
    f->advisory = xstrdup(r->id);
    f->aliases = aliases_of(r);
    f->summary = xstrdup(r->summary ? r->summary : "");
    f->severity = xstrdup(r->severity ? r->severity : "");
    f->fixed = xstrdup(fix ? fix : "");
    f->chain = verbs_lock_chain(d, p);
    f->lock_line = p->line;
    f->spec_field = xstrdup("");
    place(f, sr, d, p);
    ptrvec_push(out, f);
}

static void judge(const lock_doc *d, const osv_db *db, const el_audit_options *o,
                  const spec_roots *sr, ptrvec *out)
{
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        el_ecosystem eco;
        ptrvec hits = PTRVEC_INIT;
        const char *qn, *qv;
        if (el_ecosystem_parse(p->ecosystem, &eco) != 0)
            continue;
        verbs_lock_query(p, eco, &qn, &qv);
        osv_db_match(db, eco, qn, qv, &hits, NULL);
        for (size_t k = 0; k < hits.len; k++)
            if (!verbs_osv_named(hits.items[k], o->ignore, o->n_ignore))
                add_finding(out, d, p, eco, hits.items[k], sr);
        ptrvec_release(&hits);
    }
}

/* --max-age: an old snapshot would report "clean" for what it never knew. */
static el_code check_age(el_ctx *ctx, const osv_db *db, const el_audit_options *o)
{
    int64_t ms = 0;
    if (o->max_age_days == 0)
        return EL_OK;
    if (!db->newest || !rfc3339_parse(db->newest, 0, &ms)) {
        el_fail(ctx, EL_ARTIFACT_MISSING,
                "the advisory snapshot %s has no `modified` time, so its age (--max-age %u) "
                "cannot be told; fetch a current snapshot",
                o->advisories_dir, o->max_age_days);
        el_detail_str(ctx, "reason", "advisories_stale");
        return EL_ARTIFACT_MISSING;
    }
    long long age_days = (o->now - ms / 1000) / 86400;
    if (age_days <= (long long)o->max_age_days)
        return EL_OK;
    el_fail(ctx, EL_ARTIFACT_MISSING,
            "the advisory snapshot %s is %lld days old (newest record modified %s), more "
            "than --max-age %u; fetch a current snapshot",
            o->advisories_dir, age_days, db->newest, o->max_age_days);
    el_detail_str(ctx, "reason", "advisories_stale");
    el_detail_str(ctx, "newest", db->newest);
    return EL_ARTIFACT_MISSING;
}

/* The spec's root entries, from the spec the lock was made from. */
static el_code spec_roots_read(el_ctx *ctx, const el_spec *spec, const lock_doc *d,
                               spec_roots *sr)
{
    char digest[EL_DIGEST_SIZE];
    el_code rc = el_spec_digest(ctx, spec, digest);
    if (rc != EL_OK)
        return rc;
    if (!d->spec_digest || strcmp(digest, d->spec_digest) != 0) {
        el_fail(ctx, EL_USAGE,
                "the spec is not the one the lock was resolved from (its digest is %s, the "
                "lock's specDigest %s): give that spec, or resolve again",
                digest, d->spec_digest ? d->spec_digest : "missing");
        el_detail_str(ctx, "reason", "spec_digest");
        return EL_USAGE;
    }
    sr->entries = el_spec_entries(spec,
                                  EL_SPEC_PYTHON_DEPENDENCIES | EL_SPEC_NODE_DEPENDENCIES |
                                      EL_SPEC_APT,
                                  &sr->n);
    return EL_OK;
}

el_code el_audit(el_ctx *ctx, const char *lock_path, const el_audit_options *o,
                 el_audit_result *res)
{
    memset(res, 0, sizeof *res);
    if (!o || !o->advisories_dir)
        return el_fail(ctx, EL_USAGE, "audit needs an advisory snapshot: --advisories DIR");
    osv_db *db = NULL;
    el_code rc = verbs_advisories_load(ctx, o->advisories_dir, &db);
    if (rc != EL_OK)
        return rc;
    if ((rc = check_age(ctx, db, o)) != EL_OK) {
        osv_db_free(db);
        return rc;
    }
    lock_doc *d = lock_read_file(ctx, lock_path);
    if (!d) {
        osv_db_free(db);
        return el_ctx_code(ctx);
    }
    spec_roots sr = { o->spec, NULL, 0 };
    if (o->spec && (rc = spec_roots_read(ctx, o->spec, d, &sr)) != EL_OK) {
        lock_doc_free(d);
        osv_db_free(db);
        return rc;
    }
    ptrvec out = PTRVEC_INIT;
    judge(d, db, o, o->spec ? &sr : NULL, &out);
    el_free(sr.entries);
    snprintf(res->snapshot, sizeof res->snapshot, "sha256:%s", db->digest);
    res->n_records = db->n_records;
    snprintf(res->newest, sizeof res->newest, "%s", db->newest ? db->newest : "");
    res->n_packages = d->n_packages;
    res->n_findings = out.len;
    res->findings = xcalloc(out.len + 1, sizeof *res->findings);
    for (size_t i = 0; i < out.len; i++) {
        res->findings[i] = *(el_audit_finding *)out.items[i];
        free(out.items[i]);
    }
    ptrvec_release(&out);
    lock_doc_free(d);
    osv_db_free(db);
    return EL_OK;
}

void el_audit_result_clear(el_audit_result *res)
{
    for (size_t i = 0; res && i < res->n_findings; i++) {
        el_audit_finding *f = &res->findings[i];
        free(f->ecosystem), free(f->name), free(f->version), free(f->advisory);
        free(f->aliases), free(f->summary), free(f->severity), free(f->fixed), free(f->chain);
        free(f->source), free(f->spec_field);
    }
    if (res) {
        free(res->findings);
        memset(res, 0, sizeof *res);
    }
}

void verbs_advise_db_free(osv_db *db)
{
    osv_db_free(db);
}

size_t verbs_advise_recheck(const osv_db *db, const lock_doc *d, lock_report *report)
{
    size_t n = 0;
    for (size_t i = 0; db && i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        el_ecosystem eco;
        if (p->installed_in_base || el_ecosystem_parse(p->ecosystem, &eco) != 0)
            continue;
        ptrvec hits = PTRVEC_INIT;
        const char *qn, *qv;
        verbs_lock_query(p, eco, &qn, &qv);
        osv_db_match(db, eco, qn, qv, &hits, NULL);
        for (size_t k = 0; k < hits.len; k++) {
            const osv_record *r = hits.items[k];
            if (verbs_osv_named(r, d->adv_touched, SIZE_MAX) ||
                verbs_osv_named(r, d->adv_ignored, SIZE_MAX))
                continue;
            const char *fix = osv_smallest_fix(r, eco, qn, qv);
            strbuf t = STRBUF_INIT;
            sb_addf(&t, "advisory %s now affects %s:%s@%s", r->id, p->ecosystem, p->name,
                    p->version);
            if (qn != p->name || qv != p->version)
                sb_addf(&t, " (source %s %s)", qn, qv);
            if (fix)
                sb_addf(&t, " (fixed in %s)", fix);
            char *id = xasprintf("%s:%s@%s", p->ecosystem, p->name, p->version);
            lock_report_add(report, "advisory", id, p->version, fix, "%s", t.buf);
            free(id);
            sb_release(&t);
            n++;
        }
        ptrvec_release(&hits);
    }
    return n;
}

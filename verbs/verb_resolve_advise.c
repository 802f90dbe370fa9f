/* verb_resolve_advise.c — advisories for `resolve` (docs/cli.md,
 * "Advisories in the solve"): the snapshot loaded (verb_advisories.c), the
 * predicate the resolver asks per candidate (resolve_request.affected,
 * remembering every hit), and the judgement of the answer: under `avoid`
 * an affected version the lock keeps is a note naming the advisory, under
 * `block` it is DL_ENV_SCAN_BLOCKED with the advisory, the chain from the
 * spec and the smallest fix. Also what the lock records of the snapshot.
 * OSV evaluation is advisories/'s; the solve is resolver/'s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "osv.h"
#include "envlock/resolve.h"
#include "resolve_request.h"
#include "verbs_internal.h"

/* One (ecosystem, name, version) the predicate found affected. */
typedef struct hit {
    char *eco, *name, *version, *src; /* src: deb's source package, else NULL */
    const char *qname, *qversion;     /* what was evaluated: src or name */
    el_ecosystem e;
    ptrvec records;                   /* const osv_record *, id order */
} hit;

struct verbs_advise {
    osv_db *db;
    bool block, allow;
    const char *const *ignore;
    size_t n_ignore;
    ptrvec hits;  /* hit * */
};

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

el_code verbs_advise_open(el_ctx *ctx, const el_cache_options *co, const el_resolve_options *o,
                          verbs_advise **out)
{
    *out = NULL;
    if (!o->advisories_dir) {
        if (o->vulnerable || o->n_ignore)
            return el_fail(ctx, EL_USAGE, "--vulnerable and --ignore need an advisory "
                                          "snapshot: --advisories DIR");
        return EL_OK;
    }
    const char *m = o->vulnerable ? o->vulnerable : "avoid";
    if (strcmp(m, "avoid") != 0 && strcmp(m, "block") != 0 && strcmp(m, "allow") != 0)
        return el_fail(ctx, EL_USAGE, "--vulnerable takes avoid, block or allow, not `%s`", m);
    osv_db *db = NULL;
    el_code rc = verbs_advisories_load_cached(ctx, co, o->advisories_dir, o->stats,
                                              o->stats_user, &db);
    if (rc != EL_OK)
        return rc;
    verbs_advise *v = xcalloc(1, sizeof *v);
    v->db = db;
    v->block = strcmp(m, "block") == 0;
    v->ignore = o->ignore;
    v->n_ignore = o->n_ignore;
    v->allow = strcmp(m, "allow") == 0;
    *out = v;
    return EL_OK;
}

static bool named(const verbs_advise *v, el_ecosystem e, const char *key)
{
    return osv_db_named(v->db, e, key) != NULL;
}

static hit *find_hit(const verbs_advise *v, const char *eco, const char *name, const char *version)
{
    for (size_t i = 0; i < v->hits.len; i++) {
        hit *h = v->hits.items[i];
        if (strcmp(h->eco, eco) == 0 && strcmp(h->name, name) == 0 &&
            strcmp(h->version, version) == 0)
            return h;
    }
    return NULL;
}

/* resolve_request.affected: deb asks about the source package (what
 * Debian's records name); a version whose records do not parse in the
 * ecosystem's order is simply not affected here (audit reports it). */
bool verbs_advise_affected(void *user, const resolve_version *rv)
{
    verbs_advise *v = user;
    const char *eco = rv->eco, *name = rv->name, *version = rv->version;
    const char *src = rv->src, *src_version = rv->src_version;
    el_ecosystem e;
    if (el_ecosystem_parse(eco, &e) != 0)
        return false;
    const char *qn = e == EL_ECO_DEB && src ? src : name;
    const char *qv = e == EL_ECO_DEB && src_version ? src_version : version;
    char *key = osv_name_key(e, qn);
    bool maybe = key && named(v, e, key);
    free(key);
    if (!maybe)
        return false;
    hit *h = find_hit(v, eco, name, version);
    if (h)
        return h->records.len > 0 && !v->allow;
    ptrvec all = PTRVEC_INIT;
    osv_db_match(v->db, e, qn, qv, &all, NULL);
    h = xcalloc(1, sizeof *h);
    h->eco = xstrdup(eco), h->name = xstrdup(name), h->version = xstrdup(version);
    h->src = e == EL_ECO_DEB ? xstrdup(qn) : NULL;
    h->qname = h->src ? h->src : h->name;
    h->qversion = arena_strdup(v->db->a, qv);
    h->e = e;
    for (size_t i = 0; i < all.len; i++)
        if (!verbs_osv_named(all.items[i], v->ignore, v->n_ignore))
            ptrvec_push(&h->records, all.items[i]);
    ptrvec_release(&all);
    ptrvec_push(&v->hits, h);
    return h->records.len > 0 && !v->allow; /* allow: remembered, not steered */
}

void verbs_advise_attach(verbs_advise *v, resolve_request *rq)
{
    if (!v)
        return;
    rq->affected = verbs_advise_affected;
    rq->affected_user = v;
}

static const resolve_root *root_of(const resolve_request *rq, const lock_package *top)
{
    for (size_t i = 0; top && i < rq->n_roots; i++) {
        const resolve_root *rr = &rq->roots[i];
        if (rr->kind != ROOT_REQUIREMENT || strcmp(rr->ecosystem, top->ecosystem) != 0)
            continue;
        char *n = verbs_root_name(rr->ecosystem, rr->text);
        bool same = n && strcmp(n, top->name) == 0;
        free(n);
        if (same)
            return rr;
    }
    return NULL;
}

static char *aliases_of(const osv_record *r)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->n_aliases; i++)
        sb_addf(&sb, "%s%s", i ? ", " : "", r->aliases[i]);
    return sb_detach(&sb, NULL);
}

/* The smallest change that fixes it (docs/cli.md, "Advisories in the solve"). */
static char *fix_text(const hit *h, const osv_record *r, const char *fixed,
                      const lock_package *p, const resolve_root *rr)
{
    char where[64] = "the spec";
    if (rr && rr->line)
        snprintf(where, sizeof where, "spec line %u", rr->line);
    else if (rr && rr->protected_pin)
        snprintf(where, sizeof where, "the base's protected pin");
    if (!fixed)
        return xasprintf("no fixed version is published: drop %s from %s, or accept the risk "
                         "with --ignore %s", p->name, where, r->id);
    if (h->e == EL_ECO_DEB)
        return xasprintf("raise the pin at %s to a version of %s built from %s %s or newer",
                         where, p->name, h->qname, fixed);
    bool root = rr && strcmp(p->requested_by ? p->requested_by[0] : "", "spec") == 0;
    if (root)
        return xasprintf("raise the pin at %s to `>=%s`", where, fixed);
    return xasprintf("allow %s `>=%s`: it comes in through %s (`%s`); raise that pin to a "
                     "version whose dependencies admit %s>=%s, or add the constraint "
                     "`%s%s>=%s`",
                     p->name, fixed, where, rr ? rr->text : "?", p->name, fixed, p->name,
                     h->e == EL_ECO_NPM ? "@" : "", fixed);
}

static json_object *finding_json(const hit *h, const osv_record *r, const lock_package *p,
                                 const char *chain, const char *fixed, const char *fix)
{
    json_object *f = json_object_new_object(), *al = json_object_new_array();
    for (size_t i = 0; i < r->n_aliases; i++)
        json_object_array_add(al, json_object_new_string(r->aliases[i]));
    json_object_object_add(f, "advisory", json_object_new_string(r->id));
    json_object_object_add(f, "aliases", al);
    json_object_object_add(f, "summary", json_object_new_string(r->summary ? r->summary : ""));
    json_object_object_add(f, "severity", r->severity ? json_object_new_string(r->severity) : NULL);
    json_object_object_add(f, "ecosystem", json_object_new_string(p->ecosystem));
    json_object_object_add(f, "package", json_object_new_string(p->name));
    json_object_object_add(f, "version", json_object_new_string(p->version));
    if (h->src)
        json_object_object_add(f, "sourcePackage", json_object_new_string(h->src));
    json_object_object_add(f, "chain", json_object_new_string(chain));
    json_object_object_add(f, "fixed", fixed ? json_object_new_string(fixed) : NULL);
    json_object_object_add(f, "fix", json_object_new_string(fix));
    json_object_object_add(f, "file", json_object_new_string(r->source));
    return f;
}

/* One line about one affected locked version. */
static char *finding_text(const hit *h, const osv_record *r, const lock_package *p,
                          const char *chain, const char *fix)
{
    strbuf sb = STRBUF_INIT;
    char *al = aliases_of(r);
    sb_addf(&sb, "%s:%s@%s", p->ecosystem, p->name, p->version);
    if (h->src)
        sb_addf(&sb, " (source %s %s)", h->src, h->qversion);
    sb_addf(&sb, " is affected by %s", r->id);
    if (al[0])
        sb_addf(&sb, " (%s)", al);
    if (r->severity)
        sb_addf(&sb, ", severity %s", r->severity);
    sb_addf(&sb, ": %s; chain: %s; fix: %s",
            r->summary && r->summary[0] ? r->summary : "(no summary)", chain, fix);
    free(al);
    return sb_detach(&sb, NULL);
}

/* Every affected version the lock keeps: notes (avoid, allow), or
 * DL_ENV_SCAN_BLOCKED naming them all (block). */
el_code verbs_advise_judge(el_ctx *ctx, verbs_advise *v, const resolve_request *rq,
                           const lock_doc *d, void (*note)(void *, const char *), void *user)
{
    if (!v)
        return EL_OK;
    json_object *found = json_object_new_array();
    char *first = NULL;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (p->installed_in_base)
            continue; /* the base's, not the solve's: `envlock audit` reports it */
        const hit *h = find_hit(v, p->ecosystem, p->name, p->version);
        for (size_t k = 0; h && k < h->records.len; k++) {
            const osv_record *r = h->records.items[k];
            const char *fixed = osv_smallest_fix(r, h->e, h->qname, h->qversion);
            char *chain = verbs_lock_chain(d, p);
            char *fix = fix_text(h, r, fixed, p, root_of(rq, verbs_lock_top(d, p)));
            char *text = finding_text(h, r, p, chain, fix);
            json_object_array_add(found, finding_json(h, r, p, chain, fixed, fix));
            if (!v->block) {
                char *n = xasprintf("%s (%s)", text, v->allow ? "--vulnerable allow"
                                    : "the lock keeps it: no unaffected version fits");
                note(user, n);
                free(n);
            }
            if (!first)
                first = xstrdup(text);
            free(text), free(fix), free(chain);
        }
    }
    el_code rc = EL_OK;
    size_t n = json_object_array_length(found);
    if (v->block && n) {
        rc = el_fail(ctx, EL_SCAN_BLOCKED,
                     "--vulnerable block: no version free of advisories satisfies the spec: %s%s",
                     first, n > 1 ? " (and more: see detail.blocked)" : "");
        el_detail_take(ctx, "blocked", json_object_get(found));
    }
    json_object_put(found);
    free(first);
    return rc;
}

void verbs_advise_free(verbs_advise *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->hits.len; i++) {
        hit *h = v->hits.items[i];
        free(h->eco), free(h->name), free(h->version), free(h->src);
        ptrvec_release(&h->records);
        free(h);
    }
    ptrvec_release(&v->hits);
    osv_db_free(v->db);
    free(v);
}

/* Sorted, duplicates dropped, copied into `a`, NULL-terminated. */
static const char **sorted_set(arena *a, ptrvec *v)
{
    if (v->len)
        qsort(v->items, v->len, sizeof *v->items, str_cmp);
    const char **out = arena_alloc(a, (v->len + 1) * sizeof *out);
    size_t n = 0;
    for (size_t i = 0; i < v->len; i++)
        if (n == 0 || strcmp(out[n - 1], v->items[i]) != 0)
            out[n++] = arena_strdup(a, v->items[i]);
    out[n] = NULL;
    return out;
}

static bool name_locked(const lock_doc *d, const hit *h)
{
    for (size_t i = 0; i < d->n_packages; i++)
        if (!d->packages[i].installed_in_base && strcmp(d->packages[i].ecosystem, h->eco) == 0 &&
            strcmp(d->packages[i].name, h->name) == 0)
            return true;
    return false;
}

/* The snapshot as an input (docs/lock-format.md, "advisories"): its
 * digest and newest `modified`, the mode, the advisories that affect some
 * version of a locked package (those that steered or were kept: the ones
 * that touched the answer; ignored ones are not among them), and the
 * --ignore values. */
void verbs_advise_record(verbs_advise *v, lock_doc *d)
{
    if (!v)
        return;
    ptrvec touched = PTRVEC_INIT, ignored = PTRVEC_INIT;
    for (size_t i = 0; i < v->hits.len; i++) {
        const hit *h = v->hits.items[i];
        for (size_t k = 0; k < h->records.len && name_locked(d, h); k++)
            ptrvec_push(&touched, (void *)((const osv_record *)h->records.items[k])->id);
    }
    for (size_t i = 0; i < v->n_ignore; i++)
        ptrvec_push(&ignored, (void *)v->ignore[i]);
    d->adv_snapshot = arena_sprintf(d->mem, "sha256:%s", v->db->digest);
    d->adv_newest = v->db->newest ? arena_strdup(d->mem, v->db->newest) : NULL;
    d->adv_mode = v->block ? "block" : v->allow ? "allow" : "avoid";
    d->adv_touched = sorted_set(d->mem, &touched);
    d->adv_ignored = sorted_set(d->mem, &ignored);
    ptrvec_release(&touched);
    ptrvec_release(&ignored);
}

/* apt_index_show.c — what the loaded apt repositories say about one name:
 * candidate records read back from the libsolv pool (relations formatted the
 * way Debian writes them), and `envlock index show deb:NAME` as text or one
 * JSON object. Fetching and trust are apt_index_load.c's. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solvable.h>
#include <solv/knownid.h>
#include <solv/evr.h>

#include "apt_index.h"
#include "apt_internal.h"
#include "debver.h"

/* dep_text() : one libsolv dependency as Debian writes it. */
static void dep_text(Pool *pool, Id dep, strbuf *sb)
{
    if (!ISRELDEP(dep)) {
        sb_adds(sb, pool_id2str(pool, dep));
        return;
    }
    Reldep *rd = GETRELDEP(pool, dep);
    if (rd->flags == REL_OR) {
        dep_text(pool, rd->name, sb);
        sb_adds(sb, " | ");
        dep_text(pool, rd->evr, sb);
        return;
    }
    if (rd->flags == REL_MULTIARCH) {
        dep_text(pool, rd->name, sb);
        sb_addf(sb, ":%s", rd->evr == ARCH_ANY ? "any" : pool_id2str(pool, rd->evr));
        return;
    }
    static const char *const ops[8] = { NULL, ">>", "=", ">=", "<<", NULL, "<=", NULL };
    if (rd->flags > 0 && rd->flags < 8 && ops[rd->flags]) {
        dep_text(pool, rd->name, sb);
        sb_addf(sb, " (%s %s)", ops[rd->flags], pool_id2str(pool, rd->evr));
        return;
    }
    sb_adds(sb, pool_dep2str(pool, dep));
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* deps_text() : a dependency array as one comma-separated field; `skip` is
 *  left out (the self-provide). The relations come out in byte order: a
 *  .solv blob does not keep the field's order (repo_write sorts), and a cold
 *  and a warm run must print the same. Order within `a | b` is kept. */
static const char *deps_text(arena *a, Solvable *s, Id key, Id marker, Id skip)
{
    Pool *pool = s->repo->pool;
    Queue q;
    queue_init(&q);
    solvable_lookup_deparray(s, key, &q, marker);
    char **items = xcalloc((size_t)q.count + 1, sizeof *items);
    size_t k = 0;
    for (int i = 0; i < q.count; i++) {
        if (q.elements[i] == skip)
            continue;
        strbuf one = STRBUF_INIT;
        dep_text(pool, q.elements[i], &one);
        items[k++] = sb_detach(&one, NULL);
    }
    queue_free(&q);
    qsort(items, k, sizeof *items, cmp_str);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < k; i++) {
        if (i && strcmp(items[i], items[i - 1]) == 0)
            continue;
        if (sb.len)
            sb_adds(&sb, ", ");
        sb_adds(&sb, items[i]);
    }
    for (size_t i = 0; i < k; i++)
        free(items[i]);
    free(items);
    const char *r = arena_strndup(a, sb.buf, sb.len);
    sb_release(&sb);
    return r;
}

static const char *extra_str(arena *a, Solvable *s, const char *key)
{
    Id k = pool_str2id(s->repo->pool, key, 0);
    const char *v = k ? solvable_lookup_str(s, k) : NULL;
    return arena_strdup(a, v ? v : "");
}

static void fill(apt_loader *l, Solvable *s, arena *a, apt_candidate *c)
{
    Pool *pool = s->repo->pool;
    memset(c, 0, sizeof *c);
    const apt_repo_info *ri = s->repo->appdata;
    c->repo = ri;
    c->name = arena_strdup(a, pool_id2str(pool, s->name));
    c->version = arena_strdup(a, pool_id2str(pool, s->evr));
    c->arch = arena_strdup(a, pool_id2str(pool, s->arch));
    c->suite = ri ? ri->suite : "";
    c->component = ri ? ri->component : "";
    c->repo_uri = ri ? ri->uri : "";
    Id self = pool_rel2id(pool, s->name, s->evr, REL_EQ, 0);
    c->depends = deps_text(a, s, SOLVABLE_REQUIRES, -SOLVABLE_PREREQMARKER, 0);
    c->pre_depends = deps_text(a, s, SOLVABLE_REQUIRES, SOLVABLE_PREREQMARKER, 0);
    c->recommends = deps_text(a, s, SOLVABLE_RECOMMENDS, 0, 0);
    c->suggests = deps_text(a, s, SOLVABLE_SUGGESTS, 0, 0);
    c->enhances = deps_text(a, s, SOLVABLE_ENHANCES, 0, 0);
    c->provides = deps_text(a, s, SOLVABLE_PROVIDES, 0, self);
    c->breaks = extra_str(a, s, APT_KEY_BREAKS);
    c->conflicts = extra_str(a, s, APT_KEY_CONFLICTS);
    c->replaces = extra_str(a, s, APT_KEY_REPLACES);
    const char *ma = solvable_lookup_str(s, SOLVABLE_MULTIARCH);
    c->multi_arch = ma ? arena_strdup(a, ma) : NULL;
    Id pk = pool_str2id(pool, APT_KEY_PRIORITY, 0);
    const char *pr = pk ? solvable_lookup_str(s, pk) : NULL;
    c->priority = pr ? arena_strdup(a, pr) : NULL;
    Id ek = pool_str2id(pool, APT_KEY_ESSENTIAL, 0);
    c->essential = ek && solvable_lookup_void(s, ek);
    c->size = apt_solvable_size(pool, (Id)(s - pool->solvables));
    const char *src = solvable_lookup_sourcepkg(s);
    c->source = src ? arena_strdup(a, src) : NULL;
    unsigned int medianr;
    const char *loc = solvable_get_location(s, &medianr);
    c->filename = loc ? arena_strdup(a, loc) : NULL;
    if (loc && ri)
        c->url = apt_repo_file_url(ri, loc, a);
    Id type = 0;
    const char *chk = solvable_lookup_checksum(s, SOLVABLE_CHECKSUM, &type);
    c->sha256 = chk && type == REPOKEY_TYPE_SHA256 ? arena_strdup(a, chk) : NULL;
    (void)l;
}

typedef struct sort_item {
    Pool *pool;
    Id p;
} sort_item;

static int newest_first(const void *x, const void *y)
{
    const sort_item *a = x, *b = y;
    Solvable *sa = a->pool->solvables + a->p, *sb = a->pool->solvables + b->p;
    int c = pool_evrcmp(a->pool, sb->evr, sa->evr, EVRCMP_COMPARE);
    if (c)
        return c;
    return a->p < b->p ? -1 : a->p > b->p;
}

void apt_loader_candidates(apt_loader *l, const char *name, arena *a, apt_candidate **out, size_t *n)
{
    Pool *pool = apt_loader_pool_(l);
    *out = NULL;
    *n = 0;
    if (!pool)
        return;
    if (!pool->whatprovides)
        pool_createwhatprovides(pool);
    Id nid = pool_str2id(pool, name, 0);
    if (!nid)
        return;
    sort_item *items = xcalloc(1, sizeof *items);
    size_t cnt = 0, cap = 1;
    bool virtual_only = true;
    for (int pass = 0; pass < 2 && cnt == 0; pass++) {
        Id p, pp;
        FOR_PROVIDES(p, pp, nid) {
            Solvable *s = pool->solvables + p;
            if (s->repo == pool->installed)
                continue;
            if ((pass == 0) != (s->name == nid))
                continue;
            if (cnt == cap)
                items = xrealloc(items, (cap *= 2) * sizeof *items);
            items[cnt].pool = pool;
            items[cnt++].p = p;
        }
        if (pass == 0 && cnt)
            virtual_only = false;
    }
    qsort(items, cnt, sizeof *items, newest_first);
    apt_candidate *c = arena_alloc(a, (cnt ? cnt : 1) * sizeof *c);
    for (size_t i = 0; i < cnt; i++) {
        Solvable *s = pool->solvables + items[i].p;
        fill(l, s, a, &c[i]);
        if (virtual_only) {
            /* the Provides entry that matched */
            Queue q;
            queue_init(&q);
            solvable_lookup_deparray(s, SOLVABLE_PROVIDES, &q, 0);
            for (int k = 0; k < q.count; k++) {
                Id d = q.elements[k];
                Id dn = d;
                while (ISRELDEP(dn))
                    dn = GETRELDEP(pool, dn)->name;
                if (dn == nid) {
                    strbuf sb = STRBUF_INIT;
                    dep_text(pool, d, &sb);
                    c[i].provided_as = arena_strndup(a, sb.buf, sb.len);
                    sb_release(&sb);
                    break;
                }
            }
            queue_free(&q);
            if (!c[i].provided_as)
                c[i].provided_as = arena_strdup(a, name);
        }
    }
    free(items);
    *out = c;
    *n = cnt;
}

/* ---- index show ---- */

/* Every string shown goes through cache_url_redact(): a source's URI may
 * carry user:password, and so may what is derived from it. */
static void json_str(json_object *o, const char *k, const char *v)
{
    if (v && *v) {
        char *r = cache_url_redact(v);
        json_object_object_add(o, k, json_object_new_string(r));
        free(r);
    }
}

static json_object *repo_json(const apt_repo_info *r)
{
    json_object *o = json_object_new_object();
    json_str(o, "uri", r->uri);
    json_str(o, "suite", r->suite);
    json_str(o, "component", r->component);
    json_str(o, "architecture", r->arch);
    json_str(o, "release_url", r->release_url);
    json_str(o, "release_sha256", r->release_sha256);
    json_str(o, "release_date", r->release_date);
    json_str(o, "origin", r->origin);
    json_str(o, "codename", r->codename);
    json_str(o, "packages_url", r->packages_url);
    json_str(o, "packages_sha256", r->packages_sha256);
    json_object_object_add(o, "signature_checked", json_object_new_boolean(r->signature_checked));
    json_object_object_add(o, "packages", json_object_new_int64(r->n_packages));
    return o;
}

static json_object *cand_json(const apt_candidate *c)
{
    json_object *o = json_object_new_object();
    json_str(o, "name", c->name);
    json_str(o, "version", c->version);
    json_str(o, "architecture", c->arch);
    json_str(o, "suite", c->suite);
    json_str(o, "component", c->component);
    json_str(o, "provided_as", c->provided_as);
    static const char *const keys[] = { "depends", "pre_depends", "recommends", "suggests", "enhances",
                                        "conflicts", "breaks", "provides", "replaces" };
    const char *vals[] = { c->depends, c->pre_depends, c->recommends, c->suggests, c->enhances,
                           c->conflicts, c->breaks, c->provides, c->replaces };
    for (size_t i = 0; i < 9; i++)
        json_str(o, keys[i], vals[i]);
    json_str(o, "multi_arch", c->multi_arch);
    json_str(o, "priority", c->priority);
    json_str(o, "source", c->source);
    json_object_object_add(o, "essential", json_object_new_boolean(c->essential));
    json_object *art = json_object_new_object();
    json_str(art, "filename", c->filename);
    json_str(art, "url", c->url);
    json_str(art, "sha256", c->sha256);
    if (c->size)
        json_object_object_add(art, "size", json_object_new_int64((int64_t)c->size));
    json_object_object_add(o, "artifact", art);
    return o;
}

static void cand_text(const apt_candidate *c, strbuf *out)
{
    sb_addf(out, "  %s %s [%s] %s/%s", c->name, c->version, c->arch, c->suite, c->component);
    if (c->provided_as)
        sb_addf(out, " (provides %s)", c->provided_as);
    sb_addc(out, '\n');
    static const char *const labels[] = { "Pre-Depends", "Depends", "Recommends", "Suggests",
                                          "Enhances", "Conflicts", "Breaks", "Provides", "Replaces" };
    const char *vals[] = { c->pre_depends, c->depends, c->recommends, c->suggests, c->enhances,
                           c->conflicts, c->breaks, c->provides, c->replaces };
    for (size_t i = 0; i < 9; i++)
        if (vals[i] && *vals[i])
            sb_addf(out, "    %s: %s\n", labels[i], vals[i]);
    if (c->multi_arch)
        sb_addf(out, "    Multi-Arch: %s\n", c->multi_arch);
    if (c->essential)
        sb_adds(out, "    Essential: yes\n");
    if (c->priority)
        sb_addf(out, "    Priority: %s\n", c->priority);
    if (c->url) {
        char *u = cache_url_redact(c->url);
        sb_addf(out, "    url: %s\n", u);
        free(u);
    }
    if (c->sha256)
        sb_addf(out, "    sha256: %s\n", c->sha256);
    if (c->size)
        sb_addf(out, "    size: %llu\n", (unsigned long long)c->size);
}

/* The entries of `name` the loader refused (apt_refused), as index show
 * lists them: JSON objects into `arr`, or text lines into `out`. */
static void refused_show(const apt_loader *l, const char *name, json_object *arr, strbuf *out)
{
    size_t nr;
    const apt_refused *r = apt_loader_refused(l, &nr);
    for (size_t i = 0; i < nr; i++) {
        if (strcmp(r[i].name, name) != 0)
            continue;
        if (arr) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "version", json_object_new_string(r[i].version));
            json_object_object_add(o, "reason", json_object_new_string(r[i].reason));
            json_object_object_add(o, "why", json_object_new_string(r[i].why));
            json_object_array_add(arr, o);
        } else {
            sb_addf(out, "  excluded %s (%s): %s\n", r[i].version, r[i].reason, r[i].why);
        }
    }
}

/* The first refusal of `name`, or NULL. */
static const apt_refused *refused_first(const apt_loader *l, const char *name)
{
    size_t nr;
    const apt_refused *r = apt_loader_refused(l, &nr);
    for (size_t i = 0; i < nr; i++)
        if (strcmp(r[i].name, name) == 0)
            return &r[i];
    return NULL;
}

el_code apt_index_show(el_ctx *ctx, cache *c, const el_index_query *q, bool json, strbuf *out)
{
    const char *name = strchr(q->package, ':') + 1;
    if (!deb_name_valid(name, strlen(name))) {
        el_fail(ctx, EL_SPEC_INVALID, "`%s` is not a Debian package name", name);
        el_detail_str(ctx, "reason", "invalid_query");
        el_detail_str(ctx, "package", name);
        return EL_SPEC_INVALID;
    }
    apt_load_options o = { 0 };
    o.sources = q->apt_sources;
    o.n_sources = q->n_apt_sources;
    o.keyring = q->apt_keyring;
    o.arch = q->apt_arch;
    o.ignore_valid_until = q->ignore_valid_until;
    apt_loader *l = apt_loader_read(ctx, c, &o);
    if (!l)
        return el_ctx_code(ctx);
    el_code rc = EL_OK;
    arena *a = arena_new();
    apt_candidate *cands = NULL;
    size_t n = 0;
    if (rc == EL_OK) {
        apt_loader_candidates(l, name, a, &cands, &n);
        if (n == 0) {
            size_t nr;
            apt_loader_repos(l, &nr);
            const apt_refused *rf = refused_first(l, name);
            rc = el_fail(ctx, EL_PACKAGE_NOT_FOUND,
                         "no package or virtual package `%s` in the %zu apt index%s read%s%s", name,
                         nr, nr == 1 ? "" : "es", rf ? "; " : "", rf ? rf->why : "");
            el_detail_str(ctx, "reason", "unknown_package");
            el_detail_str(ctx, "package", name);
        }
    }
    if (rc == EL_OK) {
        size_t nr;
        const apt_repo_info *repos = apt_loader_repos(l, &nr);
        bool virtual_only = cands[0].provided_as != NULL;
        if (json) {
            json_object *root = json_object_new_object();
            json_object_object_add(root, "ecosystem", json_object_new_string("deb"));
            json_object_object_add(root, "name", json_object_new_string(name));
            json_object_object_add(root, "virtual", json_object_new_boolean(virtual_only));
            json_object_object_add(root, "architecture", json_object_new_string(apt_loader_arch_(l)));
            json_object *arr = json_object_new_array();
            for (size_t i = 0; i < n; i++)
                json_object_array_add(arr, cand_json(&cands[i]));
            json_object_object_add(root, "candidates", arr);
            json_object *ex = json_object_new_array();
            refused_show(l, name, ex, NULL);
            json_object_object_add(root, "excluded", ex);
            json_object *ra = json_object_new_array();
            for (size_t i = 0; i < nr; i++)
                json_object_array_add(ra, repo_json(&repos[i]));
            json_object_object_add(root, "repositories", ra);
            sb_adds(out, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                                  JSON_C_TO_STRING_NOSLASHESCAPE));
            json_object_put(root);
        } else {
            sb_addf(out, "deb:%s (%s)%s: %zu candidate%s, newest first\n", name, apt_loader_arch_(l),
                    virtual_only ? ", a virtual package" : "", n, n == 1 ? "" : "s");
            for (size_t i = 0; i < n; i++)
                cand_text(&cands[i], out);
            refused_show(l, name, NULL, out);
            sb_adds(out, "repositories:\n");
            for (size_t i = 0; i < nr; i++) {
                char *rn = cache_url_redact(repos[i].repo_name);
                sb_addf(out, "  %s  Release sha256 %s  Date %s%s\n", rn, repos[i].release_sha256,
                        repos[i].release_date ? repos[i].release_date : "?",
                        repos[i].signature_checked ? "" : "  (unsigned, trusted=yes)");
                free(rn);
            }
        }
    }
    arena_free(a);
    apt_loader_free(l);
    return rc;
}

/* resolver_apt.c — apt in the pool: the cutoff applied to the sources
 * (snapshots moved back to it, apt_source_at_cutoff; other sources checked), the
 * verified repositories and the base's dpkg status that
 * apt_loader_load_into() puts into our pool (native Debian names,
 * relations, Provides, Breaks/Conflicts, Pre-Depends), the root jobs
 * (`name`, `name=version`), and apt's choice for every dependency reachable
 * from the roots (the first alternative of `a | b`, the package of the
 * dependency's own name before its providers, then Essential and Priority
 * among providers) given to libsolv as favor jobs and Recommends, so
 * libsolv's choice is apt's when it searches every version (the fallback
 * of resolver_apt_mark.c, which gives apt's own answer first). Never
 * parses a Packages file itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <solv/bitmap.h>
#include <solv/evr.h>
#include <solv/knownid.h>
#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/repo.h>
#include <solv/solvable.h>
#include <solv/util.h>

#include "resolver_internal.h"

el_code resolver_apt_prepare(rsv *r)
{
    if (!r->has_deb)
        return EL_OK;
    apt_load_options o = { 0 };
    /* a snapshot after the cutoff means the snapshot at it: that URI is the
     * canonical one from here on (fetches, mirrors, the lock's sources and
     * inputs; check derives the same, verb_check_inputs.c) */
    const char **src = arena_alloc(r->mem, (r->rq->n_apt_sources + 1) * sizeof *src);
    for (size_t i = 0; i < r->rq->n_apt_sources; i++)
        src[i] = apt_source_at_cutoff(r->rq->apt_sources[i], r->rq->exclude_newer, r->mem);
    o.sources = src;
    o.n_sources = r->rq->n_apt_sources;
    o.keyring = r->rq->apt_keyring;
    o.arch = r->rq->base ? r->rq->base->arch : NULL;
    o.status_file = r->rq->base ? r->rq->base->dpkg_status : NULL;
    o.ignore_valid_until = true; /* snapshots are old by design */
    o.note = r->rq->note; /* Packages entries outside Debian's grammar */
    o.note_user = r->rq->note_user;
    r->al = apt_loader_new(r->ctx, r->c, &o);
    if (!r->al)
        return el_ctx_code(r->ctx);
    apt_loader_submit(r->al);
    return EL_OK;
}

Id resolver_apt_dep_name(Pool *pool, Id dep)
{
    while (ISRELDEP(dep))
        dep = GETRELDEP(pool, dep)->name;
    return dep;
}

/* Whether the raw Conflicts text names package `name` (any relation). */
static bool conflicts_text_names(const char *text, const char *name)
{
    size_t nl = strlen(name);
    const char *s = text;
    while (s && *s) {
        while (*s == ' ' || *s == ',' || *s == '|' || *s == '\n' || *s == '\t')
            s++;
        size_t n = strcspn(s, " ,|(:\n\t");
        if (n == nl && strncmp(s, name, n) == 0)
            return true;
        s += strcspn(s, ",|");
    }
    return false;
}

/* libsolv turns Replaces together with Conflicts or Breaks into Obsoletes;
 * for apt only Replaces with Conflicts replaces a package (Debian policy
 * 7.6.2). Replaces with Breaks is the file-move transition: the broken
 * package is upgraded, not removed, so those obsoletes are dropped. */
static void deb_breaks_not_obsoletes(rsv *r)
{
    Pool *pool = r->pool;
    Id ck = pool_str2id(pool, "envlock:deb:conflicts", 0);
    Id p;
    Solvable *s;
    FOR_POOL_SOLVABLES(p) {
        s = pool->solvables + p;
        if (!s->repo || !s->obsoletes)
            continue;
        const char *conf = ck ? solvable_lookup_str(s, ck) : NULL;
        Offset keep = 0;
        bool dropped = false;
        Queue q;
        queue_init(&q);
        for (Id *dp = s->repo->idarraydata + s->obsoletes; *dp; dp++)
            queue_push(&q, *dp);
        for (int i = 0; i < q.count; i++) {
            const char *nm = pool_id2str(pool, resolver_apt_dep_name(pool, q.elements[i]));
            if (conf && conflicts_text_names(conf, nm))
                keep = repo_addid_dep(s->repo, keep, q.elements[i], 0);
            else
                dropped = true;
        }
        queue_free(&q);
        if (dropped)
            pool->solvables[p].obsoletes = keep;
    }
}

/* A snapshot source read through a --mirror of a plain archive: the
 * Release it served is dated after the snapshot, so the lock reflects the
 * archive on that date (its input's `modified`), not the snapshot it names
 * (docs/troubleshooting.md, "The base's snapshot archive cannot be
 * reached"). Said in a note rather than refused: the mirror is how a
 * network without the snapshot archive resolves at all. */
static void note_snapshot_mirrored(rsv *r)
{
    size_t n = 0;
    const apt_repo_info *ri = apt_loader_repos(r->al, &n);
    for (size_t i = 0; r->rq->note && i < n; i++) {
        long at = apt_snapshot_stamp_at(ri[i].uri, strlen(ri[i].uri));
        time_t t = (time_t)ri[i].release_epoch;
        struct tm tm;
        char stamp[32];
        if (at < 0 || !ri[i].release_date || !gmtime_r(&t, &tm) ||
            strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm) != 16 ||
            memcmp(stamp, ri[i].uri + at, 16) <= 0)
            continue;
        size_t n_uri = strlen(ri[i].uri);
        while (n_uri && ri[i].uri[n_uri - 1] == '/')
            n_uri--;
        char *text = xasprintf("apt: %.*s %s was read through a mirror whose Release is dated %s, "
                               "after the snapshot: the lock reflects the archive on that date "
                               "(its input's `modified`), not the snapshot it names; mirror the "
                               "snapshot itself where the exact archive state matters",
                               (int)n_uri, ri[i].uri, ri[i].suite, ri[i].release_date);
        r->rq->note(r->rq->note_user, text);
        free(text);
    }
}

el_code resolver_apt_load(rsv *r)
{
    if (!r->al)
        return EL_OK;
    el_code rc = apt_loader_load_into(r->al, r->pool);
    if (rc == EL_OK) {
        deb_breaks_not_obsoletes(r);
        note_snapshot_mirrored(r);
    }
    if (rc != EL_OK || !r->rq->exclude_newer || r->pt.cutoff_s == INT64_MAX)
        return rc;
    /* A source that is not a dated snapshot cannot be seen as it was at the
     * cutoff: one whose Release is newer than the cutoff is refused rather
     * than silently resolved from today's archive. */
    size_t n = 0;
    const apt_repo_info *ri = apt_loader_repos(r->al, &n);
    for (size_t i = 0; i < n; i++) {
        if (apt_snapshot_stamp_at(ri[i].uri, strlen(ri[i].uri)) >= 0 || ri[i].release_epoch <= r->pt.cutoff_s)
            continue;
        el_fail(r->ctx, EL_CAPABILITY_UNSUPPORTED,
                "--exclude-newer %s cannot apply to the apt source %s %s: it is not a dated "
                "snapshot and its Release (Date: %s) is newer than the cutoff; use a "
                "snapshot.debian.org source, or resolve without the cutoff",
                r->rq->exclude_newer, ri[i].uri, ri[i].suite,
                ri[i].release_date ? ri[i].release_date : "unknown");
        el_detail_str(r->ctx, "reason", "apt_source_not_snapshot");
        el_detail_str(r->ctx, "source", ri[i].uri);
        el_detail_str(r->ctx, "releaseDate", ri[i].release_date ? ri[i].release_date : "");
        el_detail_str(r->ctx, "excludeNewer", r->rq->exclude_newer);
        return EL_CAPABILITY_UNSUPPORTED;
    }
    return EL_OK;
}

/* apt's Priority order (higher first); 0 for none or unknown. The apt
 * reader keeps the field as an extra attribute under this key. */
#define RSV_APT_KEY_PRIORITY "envlock:deb:priority"
#define RSV_APT_KEY_ESSENTIAL "envlock:deb:essential"

static int deb_priority_rank(Pool *pool, Id p)
{
    Id key = pool_str2id(pool, RSV_APT_KEY_PRIORITY, 0);
    const char *v = key ? solvable_lookup_str(pool->solvables + p, key) : NULL;
    static const char *const order[] = { "extra", "optional", "standard", "important", "required" };
    for (int i = 0; v && i < 5; i++)
        if (strcmp(v, order[i]) == 0)
            return i + 1;
    return 0;
}

int resolver_apt_provider_rank(Pool *pool, Id p)
{
    Id ek = pool_str2id(pool, RSV_APT_KEY_ESSENTIAL, 0);
    bool essential = ek && solvable_lookup_void(pool->solvables + p, ek);
    return (essential ? 16 : 0) + deb_priority_rank(pool, p);
}

/* Whether no solvable of dep's own name provides it (a purely virtual
 * dependency), with at least two providers (*n says how many). */
static bool purely_virtual(Pool *pool, Id dep, int *n)
{
    Id name = resolver_apt_dep_name(pool, dep), p, pp;
    *n = 0;
    FOR_PROVIDES(p, pp, dep) {
        if (pool->solvables[p].name == name)
            return false;
        (*n)++;
    }
    return *n >= 2;
}

/* What apt_choice() found: no choice to steer, the first alternative of an
 * OR group (all of its providers), a provider's rank, the dependency's own
 * package; in this order of strength. */
enum { PICK_NONE, PICK_ALT, PICK_RANKED, PICK_REAL, PICK_KINDS };

/* apt's first choice for one (non-OR) dependency, as pkgDepCache orders the
 * candidates that satisfy it (apt 2.6, CompareProviders): a package of the
 * base first (libsolv keeps those on its own), then the package of the
 * dependency's own name when a version of it satisfies the dependency (so
 * `libavcodec59 (>= 7:5.0)` is libavcodec59, not libavcodec-extra59 which
 * Provides it), then Essential, then the higher Priority. apt's last
 * tie-break, the package's position in its binary cache, has no meaning
 * outside one machine's cache and is left to libsolv (name order).
 * Appends the chosen solvables (every satisfying version of the chosen
 * package) to `pick` and says which rule chose them; PICK_NONE (nothing
 * appended) when nothing separates the candidates. */
static int apt_choice(Pool *pool, Id dep, Queue *pick)
{
    Id name = resolver_apt_dep_name(pool, dep), p, pp;
    bool have_real = false, have_other = false;
    int best = -1, worst = 1000;
    FOR_PROVIDES(p, pp, dep) {
        if (pool->solvables[p].name == name) {
            have_real = true;
            continue;
        }
        have_other = true;
        int k = resolver_apt_provider_rank(pool, p);
        best = k > best ? k : best;
        worst = k < worst ? k : worst;
    }
    if (have_real) {
        if (!have_other)
            return PICK_NONE;
        FOR_PROVIDES(p, pp, dep)
            if (pool->solvables[p].name == name)
                queue_push(pick, p);
        return PICK_REAL;
    }
    if (best == worst)
        return PICK_NONE;
    FOR_PROVIDES(p, pp, dep)
        if (resolver_apt_provider_rank(pool, p) == best)
            queue_push(pick, p);
    return PICK_RANKED;
}

/* The alternatives of an OR group in the order written, whichever way
 * the relation nests. */
static void or_alternatives(Pool *pool, Id dep, Queue *out)
{
    if (ISRELDEP(dep) && GETRELDEP(pool, dep)->flags == REL_OR) {
        Reldep *rd = GETRELDEP(pool, dep);
        or_alternatives(pool, rd->name, out);
        or_alternatives(pool, rd->evr, out);
        return;
    }
    queue_push(out, dep);
}

/* apt's choice for an OR group `a | b | ...`: the first alternative that
 * anything satisfies, and within it what apt_choice() picks (all of its
 * providers when nothing separates them: PICK_ALT). */
static int apt_or_choice(Pool *pool, Id dep, Queue *pick)
{
    Queue q;
    queue_init(&q);
    or_alternatives(pool, dep, &q);
    int kind = PICK_NONE;
    for (int i = 0; i < q.count && kind == PICK_NONE; i++) {
        Id alt = q.elements[i], p, pp;
        bool any = false;
        FOR_PROVIDES(p, pp, alt)
            any = true;
        if (!any)
            continue;
        kind = apt_choice(pool, alt, pick);
        if (kind == PICK_NONE) {
            FOR_PROVIDES(p, pp, alt)
                queue_push(pick, p);
            kind = PICK_ALT;
        }
    }
    queue_free(&q);
    return kind;
}

static int cmp_id(const void *a, const void *b, void *data)
{
    Id x = *(const Id *)a, y = *(const Id *)b;
    (void)data;
    return x < y ? -1 : x > y;
}

/* One favor job for all of `q`'s solvables: libsolv ranks favored
 * candidates by their job (the later wins) and lets its own policy
 * (the Recommends of set_recommends() among it) choose within one job's
 * set; one job per kind of pick leaves no order between two picks of the
 * same kind, and none that depends on the order of index entries. */
static void push_favors(rsv *r, Queue *q)
{
    if (!q->count)
        return;
    solv_sort(q->elements, (size_t)q->count, sizeof(Id), cmp_id, NULL);
    int n = 0;
    for (int i = 0; i < q->count; i++)
        if (i == 0 || q->elements[i] != q->elements[n - 1])
            q->elements[n++] = q->elements[i];
    queue_truncate(q, n);
    queue_push2(&r->job, SOLVER_FAVOR | SOLVER_SOLVABLE_ONE_OF, pool_queuetowhatprovides(r->pool, q));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

el_code resolver_apt_check_roots(rsv *r)
{
    Pool *pool = r->pool;
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_DEB || rt->dversion)
            continue;
        Id name = pool_str2id(pool, rt->name, 1);
        int n = 0;
        if (!purely_virtual(pool, name, &n))
            continue;
        /* the distinct provider names, sorted */
        const char **names = xcalloc((size_t)n + 1, sizeof *names);
        size_t nn = 0;
        Id p, pp;
        bool have = false; /* a provider in the base already does (apt keeps it) */
        FOR_PROVIDES(p, pp, name) {
            if (pool->installed && pool->solvables[p].repo == pool->installed)
                have = true;
            const char *pn = pool_id2str(pool, pool->solvables[p].name);
            bool dup = false;
            for (size_t k = 0; k < nn && !dup; k++)
                dup = strcmp(names[k], pn) == 0;
            if (!dup)
                names[nn++] = pn;
        }
        if (nn < 2 || have) {
            free(names);
            continue;
        }
        qsort(names, nn, sizeof *names, cmp_str);
        strbuf sb = STRBUF_INIT;
        for (size_t k = 0; k < nn; k++)
            sb_addf(&sb, "%s%s", k == 0 ? "" : k + 1 == nn ? " and " : ", ", names[k]);
        char *label = resolver_root_label(r, (int)i);
        el_fail(r->ctx, EL_PACKAGE_NOT_FOUND,
                "`%s` is a virtual package provided by %s: name one of them in the spec (%s)", rt->name,
                sb.buf, label);
        el_detail_str(r->ctx, "package", rt->name);
        el_detail_str(r->ctx, "reason", "virtual_several_providers");
        el_set_retryable(r->ctx, false);
        free(label);
        sb_release(&sb);
        free(names);
        return EL_PACKAGE_NOT_FOUND;
    }
    return EL_OK;
}

void resolver_apt_multiarch_any(rsv *r)
{
    Pool *pool = r->pool;
    Id allowed = pool_str2id(pool, "allowed", 0);
    Queue q;
    queue_init(&q);
    for (Id i = 1; i < pool->nrels; i++) {
        Reldep *rd = pool->rels + i;
        if (rd->flags != REL_MULTIARCH || rd->evr != ARCH_ANY)
            continue;
        queue_empty(&q);
        Id p, pp;
        FOR_PROVIDES(p, pp, MAKERELDEP(i)) {
            const char *ma = solvable_lookup_str(pool->solvables + p, SOLVABLE_MULTIARCH);
            if (allowed && ma && strcmp(ma, "allowed") == 0)
                queue_push(&q, p);
        }
        pool->whatprovides_rel[i] = pool_queuetowhatprovides(pool, &q);
    }
    queue_free(&q);
}

static int cmp_pair(const void *a, const void *b, void *data)
{
    const Id *x = a, *y = b;
    (void)data;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

/* The Recommends of every Debian solvable replaced for this solve: apt-get
 * --no-install-recommends never lets a Recommends steer a choice, but
 * libsolv narrows choices to recommended candidates even when it installs
 * none, so the packages' own Recommends go and `pairs` (owner, chosen
 * solvable) become `name = version` recommends of their owners. */
static void set_recommends(rsv *r, Queue *pairs)
{
    Pool *pool = r->pool;
    Id p;
    FOR_POOL_SOLVABLES(p)
        if (!((size_t)p < r->nsolv && r->solv[p].ours))
            pool->solvables[p].recommends = 0;
    solv_sort(pairs->elements, (size_t)pairs->count / 2, 2 * sizeof(Id), cmp_pair, NULL);
    for (int i = 0; i < pairs->count; i += 2) {
        if (i && pairs->elements[i] == pairs->elements[i - 2] && pairs->elements[i + 1] == pairs->elements[i - 1])
            continue;
        Solvable *owner = pool->solvables + pairs->elements[i];
        const Solvable *c = pool->solvables + pairs->elements[i + 1];
        Id dep = pool_rel2id(pool, c->name, c->evr, REL_EQ, 1);
        owner->recommends = repo_addid_dep(owner->repo, owner->recommends, dep, 0);
    }
}

/* The install job of each deb root, and into `todo` the packages that may
 * answer it: the real package of that name when there is one, else its
 * providers (apt considers providers only for a purely virtual name). */
static void root_jobs(rsv *r, Queue *todo)
{
    Pool *pool = r->pool;
    for (size_t i = 0; i < r->nroots; i++) {
        rsv_root *rt = &r->roots[i];
        if (rt->eco != RSV_DEB)
            continue;
        Id name = pool_str2id(pool, rt->name, 1);
        Id d = rt->dversion ? pool_rel2id(pool, name, pool_str2id(pool, rt->dversion, 1), REL_EQ, 1)
                            : name;
        rt->dep = d;
        resolver_add_dep(r, 0, (int)i, d, RSV_DEB, rt->name, rt->r->text, NULL, "depends");
        /* apt installs the real package of that name when there is one and
         * considers providers only for a purely virtual name */
        bool real = false;
        Id p, pp;
        FOR_PROVIDES(p, pp, d)
            if (pool->solvables[p].name == name)
                real = true;
        queue_push2(&r->job, SOLVER_INSTALL | (real ? SOLVER_SOLVABLE_NAME : SOLVER_SOLVABLE_PROVIDES), d);
        FOR_PROVIDES(p, pp, d)
            if (!real || pool->solvables[p].name == name)
                queue_push(todo, p);
    }
}

/* apt's choices for every dependency reachable from `todo`, given to
 * libsolv as favors and Recommends. */
static void apt_choices(rsv *r, Queue *todo)
{
    Pool *pool = r->pool;
    /* apt's choice for every dependency reachable from the roots. libsolv,
     * left alone, takes the name first in byte order (libavcodec-extra59
     * before libavcodec59, libelogind0 before libsystemd0) and, once the
     * solve is complete, trades a chosen package for another candidate
     * that got installed anyway (lsb-base for sysvinit-utils, which Provides
     * it and which lsb-base itself pulls in), which apt never does. So the
     * choice is given to libsolv twice: as favor jobs (the order of the
     * candidates) and as Recommends of the depending package on the chosen
     * version (`name = version`): libsolv, with recommended packages not
     * installed, still narrows a choice to the recommended candidates, so
     * the others never enter a branch it could revisit. */
    Map seen;
    map_init(&seen, pool->nsolvables);
    Queue picks[PICK_KINDS], pick, recs;
    for (int k = 0; k < PICK_KINDS; k++)
        queue_init(&picks[k]);
    queue_init(&pick);
    queue_init(&recs);
    for (int qi = 0; qi < todo->count; qi++) {
        Id p = todo->elements[qi];
        if (MAPTST(&seen, p))
            continue;
        MAPSET(&seen, p);
        Solvable *s = pool->solvables + p;
        if (!s->repo || !s->requires)
            continue;
        if ((size_t)p < r->nsolv && r->solv[p].ours)
            continue;
        for (Id *dp = s->repo->idarraydata + s->requires; *dp; dp++) {
            if (*dp == SOLVABLE_PREREQMARKER)
                continue;
            queue_empty(&pick);
            int kind = ISRELDEP(*dp) && GETRELDEP(pool, *dp)->flags == REL_OR
                           ? apt_or_choice(pool, *dp, &pick)
                           : apt_choice(pool, *dp, &pick);
            for (int i = 0; i < pick.count; i++) {
                queue_push(&picks[kind], pick.elements[i]);
                queue_push2(&recs, p, pick.elements[i]);
            }
            Id q, qq;
            FOR_PROVIDES(q, qq, *dp)
                if (!MAPTST(&seen, q))
                    queue_push(todo, q);
        }
    }
    set_recommends(r, &recs);
    for (int k = PICK_ALT; k < PICK_KINDS; k++)
        push_favors(r, &picks[k]);
    for (int k = 0; k < PICK_KINDS; k++)
        queue_free(&picks[k]);
    queue_free(&pick);
    queue_free(&recs);
    map_free(&seen);
}

void resolver_apt_jobs(rsv *r)
{
    Queue todo;
    queue_init(&todo);
    root_jobs(r, &todo);
    apt_choices(r, &todo);
    queue_free(&todo);
    resolver_apt_mark_jobs(r);
}

void resolver_apt_note(rsv *r)
{
    if (!r->apt_all_versions || !r->rq->note)
        return;
    char *t = r->apt_fallback_why
                  ? xasprintf("apt: apt-get install would not install this spec: %s's candidate (its "
                              "version of highest pin priority, then highest version) cannot be "
                              "installed with the others; envlock searched every version instead "
                              "(rule apt-candidate-only), and the lock names the versions that fit",
                              r->apt_fallback_why)
                  : xasprintf("apt: apt-get install would not install this spec: the packages' "
                              "candidates (each one's version of highest pin priority, then highest "
                              "version) cannot be installed together; envlock searched every version "
                              "instead (rule apt-candidate-only), and the lock names the versions that "
                              "fit");
    r->rq->note(r->rq->note_user, t);
    free(t);
}

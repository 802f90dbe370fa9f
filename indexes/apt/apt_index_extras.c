/* apt_index_extras.c — the control fields libsolv's Debian parser drops or
 * merges (Priority, Essential, Size; Breaks and Conflicts, which it merges
 * into one list; Replaces, which it filters; the order of the Pre-Depends
 * and Depends groups, which a .solv blob sorts; the version of `Source:`,
 * which it ignores and which a rebuilt binary's advisories and apt's
 * upgrade by source package need: SOLVABLE_SOURCEEVR), kept as extra solvable
 * attributes so `index show` can print them and they survive in .solv
 * blobs. Reads a Packages text one stanza at a time; knows nothing about
 * fetching. */
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repodata.h>

#include "apt_index.h"
#include "apt_internal.h"
#include "debver.h"

typedef struct stanza_fields {
    const char *v[12];
    size_t n[12];
} stanza_fields;

enum { F_PACKAGE, F_VERSION, F_ARCH, F_PRIORITY, F_ESSENTIAL, F_SIZE, F_BREAKS, F_CONFLICTS, F_REPLACES,
       F_PREDEPENDS, F_DEPENDS, F_SOURCE, F_COUNT };
static const char *const field_names[] = { "Package", "Version", "Architecture", "Priority", "Essential",
                                            "Size", "Breaks", "Conflicts", "Replaces", "Pre-Depends",
                                            "Depends", "Source" };

/* value() : a field value with folding turned into single spaces, trimmed. */
static char *value(const char *v, size_t n)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (c == '\n' || c == '\t' || c == '\r')
            c = ' ';
        if (c == ' ' && (sb.len == 0 || sb.buf[sb.len - 1] == ' '))
            continue;
        sb_addc(&sb, c);
    }
    while (sb.len && sb.buf[sb.len - 1] == ' ')
        sb_setlen(&sb, sb.len - 1);
    return sb_detach(&sb, NULL);
}

/* The first package name of every group of a relation field ("a (>= 1) |
 * b, c" gives "a c"), appended to `sb` with a space before each. */
static void first_names(strbuf *sb, const char *v)
{
    while (*v) {
        while (*v == ' ' || *v == ',')
            v++;
        size_t n = strcspn(v, " ,|(:[<");
        if (n)
            sb_addf(sb, " %.*s", (int)n, v);
        v += strcspn(v, ",");
    }
}

/* APT_KEY_DEPORDER: the groups' first names, Pre-Depends then Depends, in
 * the order written: apt walks a version's dependencies in that order
 * (resolver_apt_mark.c), and a .solv blob keeps only a sorted list. */
static void store_deporder(Repodata *data, Id p, const stanza_fields *f)
{
    strbuf sb = STRBUF_INIT;
    for (int i = F_PREDEPENDS; i <= F_DEPENDS; i++)
        if (f->v[i]) {
            char *v = value(f->v[i], f->n[i]);
            first_names(&sb, v);
            free(v);
        }
    if (sb.len)
        repodata_set_str(data, p, pool_str2id(data->repo->pool, APT_KEY_DEPORDER, 1), sb.buf + 1);
    sb_release(&sb);
}

/* `Source: glibc (2.36-9)`: the version in parentheses, when it is a
 * Debian version, set as SOLVABLE_SOURCEEVR (a `Source:` without one means
 * the binary's own version, which is what an unset SOURCEEVR says). */
static void store_source_version(Repodata *data, Id p, const stanza_fields *f)
{
    if (!f->v[F_SOURCE])
        return;
    char *v = value(f->v[F_SOURCE], f->n[F_SOURCE]);
    char *open = strchr(v, '('), *close = open ? strchr(open, ')') : NULL;
    if (open && close && close[1] == '\0') {
        *close = '\0';
        const char *ver = open + 1;
        while (*ver == ' ')
            ver++;
        size_t n = strlen(ver);
        while (n && ver[n - 1] == ' ')
            n--;
        char *text = xstrndup(ver, n);
        if (deb_version_valid(text))
            repodata_set_id(data, p, SOLVABLE_SOURCEEVR, pool_str2id(data->repo->pool, text, 1));
        free(text);
    }
    free(v);
}

static Id find_solvable(Repo *repo, Id *cursor, Id name, Id evr, Id arch)
{
    Pool *pool = repo->pool;
    for (Id p = *cursor; p < repo->end; p++) {
        Solvable *s = pool->solvables + p;
        if (s->repo != repo)
            continue;
        if (s->name == name && s->evr == evr && s->arch == arch) {
            *cursor = p + 1;
            return p;
        }
        break; /* out of step: search the whole repo */
    }
    Solvable *s;
    Id p;
    FOR_REPO_SOLVABLES(repo, p, s)
        if (s->name == name && s->evr == evr && s->arch == arch)
            return p;
    return 0;
}

static void store(Repo *repo, Repodata *data, Id *cursor, const stanza_fields *f)
{
    if (!f->v[F_PACKAGE])
        return;
    Pool *pool = repo->pool;
    char *name = value(f->v[F_PACKAGE], f->n[F_PACKAGE]);
    char *ver = f->v[F_VERSION] ? value(f->v[F_VERSION], f->n[F_VERSION]) : xstrdup("");
    char *arch = f->v[F_ARCH] ? value(f->v[F_ARCH], f->n[F_ARCH]) : xstrdup("all");
    Id nid = pool_str2id(pool, name, 0), eid = *ver ? pool_str2id(pool, ver, 0) : ID_EMPTY,
       aid = pool_str2id(pool, arch, 0);
    free(name);
    free(ver);
    free(arch);
    if (!nid || !eid || !aid)
        return;
    Id p = find_solvable(repo, cursor, nid, eid, aid);
    if (!p)
        return;
    if (f->v[F_PRIORITY]) {
        char *v = value(f->v[F_PRIORITY], f->n[F_PRIORITY]);
        repodata_set_poolstr(data, p, pool_str2id(pool, APT_KEY_PRIORITY, 1), v);
        free(v);
    }
    if (f->v[F_ESSENTIAL]) {
        char *v = value(f->v[F_ESSENTIAL], f->n[F_ESSENTIAL]);
        if (strcmp(v, "yes") == 0)
            repodata_set_void(data, p, pool_str2id(pool, APT_KEY_ESSENTIAL, 1));
        free(v);
    }
    if (f->v[F_SIZE]) {
        char *v = value(f->v[F_SIZE], f->n[F_SIZE]);
        char *e;
        unsigned long long sz = strtoull(v, &e, 10);
        if (*v && !*e)
            repodata_set_num(data, p, pool_str2id(pool, APT_KEY_SIZE, 1), sz);
        free(v);
    }
    static const struct { int f; const char *key; } strs[] = {
        { F_BREAKS, APT_KEY_BREAKS }, { F_CONFLICTS, APT_KEY_CONFLICTS }, { F_REPLACES, APT_KEY_REPLACES }
    };
    for (size_t i = 0; i < 3; i++)
        if (f->v[strs[i].f]) {
            char *v = value(f->v[strs[i].f], f->n[strs[i].f]);
            repodata_set_str(data, p, pool_str2id(pool, strs[i].key, 1), v);
            free(v);
        }
    store_deporder(data, p, f);
    store_source_version(data, p, f);
}

void apt_extras_add(struct s_Repo *repo, struct s_Repodata *data, const char *text, size_t len)
{
    stanza_fields f;
    memset(&f, 0, sizeof f);
    Id cursor = repo->start;
    const char *p = text, *end = text + len;
    int last = -1; /* the field continuation lines extend */
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t ll = (size_t)(le - p);
        if (ll == 0) {
            store(repo, data, &cursor, &f);
            memset(&f, 0, sizeof f);
            last = -1;
        } else if (p[0] == ' ' || p[0] == '\t') {
            if (last >= 0)
                f.n[last] = (size_t)(le - f.v[last]);
        } else {
            last = -1;
            const char *colon = memchr(p, ':', ll);
            if (colon) {
                size_t fl = (size_t)(colon - p);
                for (int i = 0; i < F_COUNT; i++)
                    if (strlen(field_names[i]) == fl && strncasecmp(p, field_names[i], fl) == 0) {
                        f.v[i] = colon + 1;
                        f.n[i] = (size_t)(le - colon - 1);
                        last = i;
                        break;
                    }
            }
        }
        p = nl ? nl + 1 : end;
    }
    store(repo, data, &cursor, &f);
}

uint64_t apt_solvable_size(struct s_Pool *pool, int p)
{
    Id key = pool_str2id(pool, APT_KEY_SIZE, 0);
    return key ? solvable_lookup_num(pool->solvables + p, key, 0) : 0;
}

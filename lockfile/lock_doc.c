/* lock_doc.c — the lock_doc container: creation in its arena, the builder
 * helpers that append to its arrays, canonical order (lock_doc_sort) and
 * lookup. Owns the definition of "canonical order": every comparison is a
 * byte comparison (strcmp), never the locale's, and every comparator is
 * total over what the writer prints, so any permutation of the same content
 * sorts to the same sequence and therefore the same bytes. Knows nothing
 * about YAML. */
#include <stdlib.h>
#include <string.h>

#include "lock_internal.h"

lock_doc *lock_doc_new(void)
{
    arena *a = arena_new();
    lock_doc *d = arena_alloc(a, sizeof *d);
    d->mem = a;
    d->format_version = LOCK_FORMAT_VERSION;
    return d;
}

void lock_doc_free(lock_doc *d)
{
    if (d)
        arena_free(d->mem); /* the doc itself lives in its arena */
}

const char *lock_strdup(lock_doc *d, const char *s)
{
    return s ? arena_strdup(d->mem, s) : NULL;
}

/* Capacity is implicit: arrays grown here always hold a power of two (at
 * least 4) elements, so growing is due exactly when the count reaches one.
 * The arena never frees, which costs at most the sum of the old copies. */
static void *grow(lock_doc *d, void *items, size_t n, size_t size)
{
    if (n != 0 && !(n >= 4 && (n & (n - 1)) == 0))
        return items;
    size_t cap = n == 0 ? 4 : n * 2;
    void *fresh = arena_alloc(d->mem, cap * size);
    if (n)
        memcpy(fresh, items, n * size);
    return fresh;
}

lock_package *lock_doc_add_package(lock_doc *d)
{
    d->packages = grow(d, d->packages, d->n_packages, sizeof *d->packages);
    lock_package *p = &d->packages[d->n_packages++];
    memset(p, 0, sizeof *p);
    return p;
}

lock_input *lock_doc_add_input(lock_doc *d)
{
    d->inputs = grow(d, d->inputs, d->n_inputs, sizeof *d->inputs);
    lock_input *in = &d->inputs[d->n_inputs++];
    memset(in, 0, sizeof *in);
    return in;
}

lock_edge *lock_package_add_dep(lock_doc *d, lock_package *p)
{
    p->deps = grow(d, p->deps, p->n_deps, sizeof *p->deps);
    lock_edge *e = &p->deps[p->n_deps++];
    memset(e, 0, sizeof *e);
    return e;
}

lock_artifact *lock_package_add_artifact(lock_doc *d, lock_package *p)
{
    p->artifacts = grow(d, p->artifacts, p->n_artifacts, sizeof *p->artifacts);
    lock_artifact *a = &p->artifacts[p->n_artifacts++];
    memset(a, 0, sizeof *a);
    return a;
}

static size_t strv_len(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

void lock_strv_add(lock_doc *d, const char ***v, const char *s)
{
    size_t n = strv_len(*v);
    /* n + 1 slots in use (with the NULL); grow when that reaches a power of two */
    const char **items = (const char **)*v;
    size_t used = n + 1;
    if (!items || (used >= 4 && (used & (used - 1)) == 0)) {
        size_t cap = used < 4 ? 4 : used * 2;
        const char **fresh = arena_alloc(d->mem, cap * sizeof *fresh);
        if (n)
            memcpy(fresh, items, n * sizeof *fresh);
        items = fresh;
    }
    items[n] = arena_strdup(d->mem, s);
    items[n + 1] = NULL;
    *v = items;
}

/* ---- canonical order ---- */

int lock_strcmp(const char *a, const char *b)
{
    if (!a || !b)
        return a ? 1 : b ? -1 : 0;
    return strcmp(a, b);
}

static int strv_cmp(const char *const *a, const char *const *b)
{
    size_t i = 0;
    for (;; i++) {
        const char *x = a ? a[i] : NULL, *y = b ? b[i] : NULL;
        if (!x || !y)
            return x ? 1 : y ? -1 : 0;
        int c = strcmp(x, y);
        if (c)
            return c;
    }
}

static int u64_cmp(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int edge_cmp(const void *pa, const void *pb)
{
    const lock_edge *a = pa, *b = pb;
    int c;
    if ((c = lock_strcmp(a->ecosystem, b->ecosystem)) || (c = lock_strcmp(a->name, b->name)) ||
        (c = lock_strcmp(a->version, b->version)) || (c = lock_strcmp(a->kind, b->kind)))
        return c;
    if ((c = lock_strcmp(a->spec, b->spec)))
        return c;
    return lock_strcmp(a->alias, b->alias);
}

static int artifact_cmp(const void *pa, const void *pb)
{
    const lock_artifact *a = pa, *b = pb;
    int c;
    if ((c = lock_strcmp(a->file, b->file)) || (c = lock_strcmp(a->url, b->url)) ||
        (c = lock_strcmp(a->hash, b->hash)) || (c = lock_strcmp(a->md5, b->md5)))
        return c;
    return u64_cmp(a->size, b->size);
}

static int input_cmp(const void *pa, const void *pb)
{
    const lock_input *a = pa, *b = pb;
    int c;
    if ((c = lock_strcmp(a->ecosystem, b->ecosystem)) || (c = lock_strcmp(a->url, b->url)) ||
        (c = lock_strcmp(a->identity, b->identity)))
        return c;
    return lock_strcmp(a->modified, b->modified);
}

/* Packages: ecosystem, name, version, path, arch, then everything else the
 * writer prints (elements of each package are already sorted). */
static int package_cmp(const void *pa, const void *pb)
{
    const lock_package *a = pa, *b = pb;
    int c;
    if ((c = lock_strcmp(a->ecosystem, b->ecosystem)) || (c = lock_strcmp(a->name, b->name)) ||
        (c = lock_strcmp(a->version, b->version)) || (c = lock_strcmp(a->path, b->path)) ||
        (c = lock_strcmp(a->arch, b->arch)) || (c = lock_strcmp(a->src_name, b->src_name)) ||
        (c = lock_strcmp(a->src_version, b->src_version)) || (c = lock_strcmp(a->build, b->build)) ||
        (c = lock_strcmp(a->subdir, b->subdir)) || (c = u64_cmp(a->build_number, b->build_number)) ||
        (c = lock_strcmp(a->source, b->source)) || (c = lock_strcmp(a->license, b->license)) ||
        (c = strv_cmp(a->extras, b->extras)) || (c = strv_cmp(a->requested_by, b->requested_by)))
        return c;
    if (a->installed_in_base != b->installed_in_base)
        return a->installed_in_base ? 1 : -1;
    if (a->in_bundle != b->in_bundle)
        return a->in_bundle ? 1 : -1;
    for (size_t i = 0; i < a->n_deps && i < b->n_deps; i++)
        if ((c = edge_cmp(&a->deps[i], &b->deps[i])))
            return c;
    if (a->n_deps != b->n_deps)
        return u64_cmp(a->n_deps, b->n_deps);
    for (size_t i = 0; i < a->n_artifacts && i < b->n_artifacts; i++)
        if ((c = artifact_cmp(&a->artifacts[i], &b->artifacts[i])))
            return c;
    return u64_cmp(a->n_artifacts, b->n_artifacts);
}

static int str_cmp(const void *pa, const void *pb)
{
    return lock_strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* A stable merge sort (qsort is not stable, and its order for equal keys
 * differs between C libraries). Elements are moved with memcpy. */
static void msort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    char *a = base;
    /* insertion sort for short runs keeps it quick on the usual small arrays */
    if (n <= 8) {
        char tmp[256];
        char *t = size <= sizeof tmp ? tmp : xmalloc(size);
        for (size_t i = 1; i < n; i++) {
            size_t j = i;
            memcpy(t, a + i * size, size);
            while (j > 0 && cmp(a + (j - 1) * size, t) > 0) {
                memcpy(a + j * size, a + (j - 1) * size, size);
                j--;
            }
            memcpy(a + j * size, t, size);
        }
        if (t != tmp)
            free(t);
        return;
    }
    size_t h = n / 2;
    msort(a, h, size, cmp);
    msort(a + h * size, n - h, size, cmp);
    char *out = xmalloc(n * size);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (cmp(a + j * size, a + i * size) < 0)
            memcpy(out + k++ * size, a + j++ * size, size);
        else
            memcpy(out + k++ * size, a + i++ * size, size);
    }
    while (i < h)
        memcpy(out + k++ * size, a + i++ * size, size);
    while (j < n)
        memcpy(out + k++ * size, a + j++ * size, size);
    memcpy(a, out, n * size);
    free(out);
}

/* Sorts a NULL-terminated string array in place and drops exact duplicates. */
static void strv_sort_unique(const char **v)
{
    if (!v)
        return;
    size_t n = strv_len(v);
    msort(v, n, sizeof *v, str_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || strcmp(v[k - 1], v[i]) != 0)
            v[k++] = v[i];
    v[k] = NULL;
}

typedef struct variant_pair {
    const char *variant;
    const char *digest;
    unsigned line;
} variant_pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const variant_pair *a = pa, *b = pb;
    int c = lock_strcmp(a->variant, b->variant);
    return c ? c : lock_strcmp(a->digest, b->digest);
}

void lock_doc_sort(lock_doc *d)
{
    if (d->variants) {
        size_t n = strv_len(d->variants);
        variant_pair *p = xcalloc(n ? n : 1, sizeof *p);
        for (size_t i = 0; i < n; i++)
            p[i] = (variant_pair){ d->variants[i], d->base_digests ? d->base_digests[i] : NULL,
                                   d->base_digest_lines ? d->base_digest_lines[i] : 0 };
        msort(p, n, sizeof *p, pair_cmp);
        if (!d->base_digests && n) {
            d->base_digests = arena_alloc(d->mem, (n + 1) * sizeof *d->base_digests);
        }
        for (size_t i = 0; i < n; i++) {
            d->variants[i] = p[i].variant;
            d->base_digests[i] = p[i].digest;
            if (d->base_digest_lines)
                ((unsigned *)d->base_digest_lines)[i] = p[i].line;
        }
        free(p);
    }
    strv_sort_unique(d->upgrade);
    msort(d->inputs, d->n_inputs, sizeof *d->inputs, input_cmp);
    for (size_t i = 0; i < d->n_packages; i++) {
        lock_package *p = &d->packages[i];
        for (size_t j = 0; j < p->n_deps; j++)
            if (!p->deps[j].ecosystem)
                p->deps[j].ecosystem = p->ecosystem;
        strv_sort_unique(p->extras);
        strv_sort_unique(p->requested_by);
        msort(p->deps, p->n_deps, sizeof *p->deps, edge_cmp);
        msort(p->artifacts, p->n_artifacts, sizeof *p->artifacts, artifact_cmp);
    }
    msort(d->packages, d->n_packages, sizeof *d->packages, package_cmp);
}

const lock_package *lock_find(const lock_doc *d, const char *ecosystem, const char *name,
                              const char *version)
{
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (lock_strcmp(p->ecosystem, ecosystem) == 0 && lock_strcmp(p->name, name) == 0 &&
            (!version || lock_strcmp(p->version, version) == 0))
            return p;
    }
    return NULL;
}

/* Whether `url` is the index document of `p`'s source: a PyPI page
 * SOURCE/NAME/, an npm packument SOURCE/NAME ("%2f" for a scope's '/'), a
 * conda channel's SOURCE/SUBDIR/repodata.json, or
 * for a deb "URI SUITE/COMP" source URI dists/SUITE/(In)Release (flat
 * "URI SUITE": URI SUITE(In)Release). */
static bool input_serves(const lock_package *p, const char *url)
{
    const char *src = p->source;
    size_t n = strlen(src);
    if (strcmp(p->ecosystem, "deb") == 0) {
        const char *sp = strchr(src, ' ');
        if (!sp)
            return false;
        const char *suite = sp + 1, *slash = strchr(suite, '/');
        char *dist = slash ? xasprintf("%.*sdists/%.*s/", (int)(sp - src), src,
                                       (int)(slash - suite), suite)
                           : xasprintf("%.*s%s", (int)(sp - src), src, suite);
        size_t dn = strlen(dist);
        bool ok = strncmp(url, dist, dn) == 0 &&
                  (strcmp(url + dn, "InRelease") == 0 || strcmp(url + dn, "Release") == 0);
        free(dist);
        return ok;
    }
    while (n && src[n - 1] == '/')
        n--;
    if (strncmp(url, src, n) != 0 || url[n] != '/')
        return false;
    if (strcmp(p->ecosystem, "conda") == 0) /* CHANNEL/SUBDIR/repodata.json */
        return p->subdir && strncmp(url + n + 1, p->subdir, strlen(p->subdir)) == 0 &&
               strcmp(url + n + 1 + strlen(p->subdir), "/repodata.json") == 0;
    const char *u = url + n + 1, *name = p->name;
    for (; *name; name++, u++) {
        if (*name == '/' && strcmp(p->ecosystem, "npm") == 0 && u[0] == '%' && u[1] == '2' &&
            (u[2] == 'f' || u[2] == 'F'))
            u += 2;
        else if (*u != *name)
            return false;
    }
    return strcmp(p->ecosystem, "pypi") == 0 ? strcmp(u, "/") == 0 : *u == '\0';
}

/* A Python package read from the uv.lock the lock records
 * (dependencyFile): uv.lock is what it was resolved from, and each of its
 * files carries the URL uv.lock gives. */
static bool from_uv_lock(const lock_doc *d, const lock_package *p)
{
    if (!d->dep_lock || !p->ecosystem || strcmp(p->ecosystem, "pypi") != 0 || !p->n_artifacts)
        return false;
    for (size_t i = 0; i < p->n_artifacts; i++)
        if (!p->artifacts[i].url)
            return false;
    return true;
}

bool lock_package_indexed(const lock_doc *d, const lock_package *p)
{
    /* in_bundle: in its bundler's tarball */
    if (p->installed_in_base || p->in_bundle || from_uv_lock(d, p))
        return true;
    for (size_t k = 0; k < d->n_inputs; k++)
        if (p->source && d->inputs[k].url && p->ecosystem && d->inputs[k].ecosystem &&
            strcmp(d->inputs[k].ecosystem, p->ecosystem) == 0 &&
            input_serves(p, d->inputs[k].url))
            return true;
    return false;
}

const lock_package *lock_unindexed(const lock_doc *d)
{
    for (size_t i = 0; i < d->n_packages; i++)
        if (!lock_package_indexed(d, &d->packages[i]))
            return &d->packages[i];
    return NULL;
}

/* bench_versions.c — envlock's version grammars on a list of versions: parse
 * every version once, sort them with the ecosystem's order, then filter the
 * list through each range. Also libsolv's own Debian comparison as a peer.
 * Prints one line per measurement: "<ecosystem> <impl> <ms> <count>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <solv/pool.h>
#include <solv/evr.h>

#include "pep440.h"
#include "semver.h"
#include "debver.h"
#include "util.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char **read_lines(const char *path, size_t *n)
{
    size_t len;
    char *text = read_file(path, 64u << 20, &len);
    if (!text) {
        perror(path);
        exit(1);
    }
    ptrvec v = PTRVEC_INIT;
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        ptrvec_push(&v, p);
    }
    *n = v.len;
    return (char **)v.items; /* text is kept alive for the run */
}

static int cmp_pypi(const void *a, const void *b)
{
    return pypi_version_cmp(*(pypi_version *const *)a, *(pypi_version *const *)b);
}
static int cmp_npm(const void *a, const void *b)
{
    return npm_semver_compare(*(npm_semver *const *)a, *(npm_semver *const *)b);
}
static int cmp_deb(const void *a, const void *b)
{
    return deb_version_cmp(*(deb_version *const *)a, *(deb_version *const *)b);
}
static Pool *solv_pool;
static int cmp_solv(const void *a, const void *b)
{
    return pool_evrcmp_str(solv_pool, *(char *const *)a, *(char *const *)b, EVRCMP_COMPARE);
}

/* One ecosystem's lists: DIR/<eco>.txt (versions) and DIR/ranges-<eco>.txt. */
typedef struct lists {
    char **vs, **rs;
    size_t n, nr;
} lists;

static lists load(const char *dir, const char *eco)
{
    char path[4096];
    lists l;
    snprintf(path, sizeof path, "%s/%s.txt", dir, eco);
    l.vs = read_lines(path, &l.n);
    snprintf(path, sizeof path, "%s/ranges-%s.txt", dir, eco);
    l.rs = read_lines(path, &l.nr);
    return l;
}

typedef int filter_fn(const char *range, const char *const *versions, size_t n, bool *keep,
                       char **err);

/* How many versions each range keeps, summed over the ranges. */
static size_t filter_all(const lists *l, filter_fn *filter)
{
    bool *keep = xcalloc(l->n, sizeof(bool));
    size_t kept = 0;
    for (size_t r = 0; r < l->nr; r++) {
        filter(l->rs[r], (const char *const *)l->vs, l->n, keep, NULL);
        for (size_t i = 0; i < l->n; i++)
            kept += keep[i];
    }
    free(keep);
    return kept;
}

static void bench_pypi(const char *dir)
{
    lists l = load(dir, "pypi");
    double t0 = now_ms();
    pypi_version **pv = xcalloc(l.n, sizeof *pv);
    for (size_t i = 0; i < l.n; i++)
        pv[i] = pypi_version_parse(l.vs[i], NULL);
    qsort(pv, l.n, sizeof *pv, cmp_pypi);
    size_t kept = filter_all(&l, pypi_filter);
    printf("pypi envlock %.1f %zu\n", now_ms() - t0, kept);
    for (size_t i = 0; i < l.n; i++)
        pypi_version_free(pv[i]);
    free(pv);
}

static void bench_npm(const char *dir)
{
    lists l = load(dir, "npm");
    double t0 = now_ms();
    npm_semver *nv = xcalloc(l.n, sizeof *nv);
    npm_semver **np = xcalloc(l.n, sizeof *np);
    for (size_t i = 0; i < l.n; i++) {
        npm_semver_parse(&nv[i], l.vs[i], 0, NULL);
        np[i] = &nv[i];
    }
    qsort(np, l.n, sizeof *np, cmp_npm);
    size_t kept = filter_all(&l, npm_filter);
    printf("npm envlock %.1f %zu\n", now_ms() - t0, kept);
    for (size_t i = 0; i < l.n; i++)
        npm_semver_release(&nv[i]);
    free(nv);
    free(np);
}

/* Parses and sorts the Debian versions in `vs` (timed by the caller). */
static void deb_parse_sort(char **vs, size_t n)
{
    deb_version *dv = xcalloc(n, sizeof *dv);
    deb_version **dp = xcalloc(n, sizeof *dp);
    for (size_t i = 0; i < n; i++) {
        const char *why;
        deb_version_parse(vs[i], strlen(vs[i]), &dv[i], &why);
        dp[i] = &dv[i];
    }
    qsort(dp, n, sizeof *dp, cmp_deb);
    free(dv);
    free(dp);
}

/* Debian; then libsolv's Debian order on the same list: sort only (it has
 * no relation filter over strings), so it is compared against envlock's
 * sort. */
static void bench_deb(const char *dir)
{
    lists l = load(dir, "deb");
    double t0 = now_ms();
    deb_parse_sort(l.vs, l.n);
    size_t kept = filter_all(&l, deb_filter);
    printf("deb envlock %.1f %zu\n", now_ms() - t0, kept);

    solv_pool = pool_create();
    pool_setdisttype(solv_pool, DISTTYPE_DEB);
    char **copy = xcalloc(l.n, sizeof *copy);
    memcpy(copy, l.vs, l.n * sizeof *copy);
    t0 = now_ms();
    qsort(copy, l.n, sizeof *copy, cmp_solv);
    printf("deb-sort libsolv %.1f %zu\n", now_ms() - t0, l.n);
    t0 = now_ms();
    deb_parse_sort(l.vs, l.n);
    printf("deb-sort envlock %.1f %zu\n", now_ms() - t0, l.n);
    pool_free(solv_pool);
    free(copy);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_versions DIR\n");
        return 2;
    }
    bench_pypi(argv[1]);
    bench_npm(argv[1]);
    bench_deb(argv[1]);
    return 0;
}

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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_versions DIR\n");
        return 2;
    }
    char path[4096];
    size_t n, nr;
    char **vs, **rs;
    bool *keep;
    double t0;
    size_t kept;

    /* PyPI */
    snprintf(path, sizeof path, "%s/pypi.txt", argv[1]);
    vs = read_lines(path, &n);
    snprintf(path, sizeof path, "%s/ranges-pypi.txt", argv[1]);
    rs = read_lines(path, &nr);
    keep = xcalloc(n, sizeof(bool));
    t0 = now_ms();
    pypi_version **pv = xcalloc(n, sizeof *pv);
    for (size_t i = 0; i < n; i++)
        pv[i] = pypi_version_parse(vs[i], NULL);
    qsort(pv, n, sizeof *pv, cmp_pypi);
    kept = 0;
    for (size_t r = 0; r < nr; r++) {
        pypi_filter(rs[r], (const char *const *)vs, n, keep, NULL);
        for (size_t i = 0; i < n; i++)
            kept += keep[i];
    }
    printf("pypi envlock %.1f %zu\n", now_ms() - t0, kept);
    for (size_t i = 0; i < n; i++)
        pypi_version_free(pv[i]);
    free(pv);
    free(keep);

    /* npm */
    snprintf(path, sizeof path, "%s/npm.txt", argv[1]);
    vs = read_lines(path, &n);
    snprintf(path, sizeof path, "%s/ranges-npm.txt", argv[1]);
    rs = read_lines(path, &nr);
    keep = xcalloc(n, sizeof(bool));
    t0 = now_ms();
    npm_semver *nv = xcalloc(n, sizeof *nv);
    npm_semver **np = xcalloc(n, sizeof *np);
    for (size_t i = 0; i < n; i++) {
        npm_semver_parse(&nv[i], vs[i], 0, NULL);
        np[i] = &nv[i];
    }
    qsort(np, n, sizeof *np, cmp_npm);
    kept = 0;
    for (size_t r = 0; r < nr; r++) {
        npm_filter(rs[r], (const char *const *)vs, n, keep, NULL);
        for (size_t i = 0; i < n; i++)
            kept += keep[i];
    }
    printf("npm envlock %.1f %zu\n", now_ms() - t0, kept);
    for (size_t i = 0; i < n; i++)
        npm_semver_release(&nv[i]);
    free(nv);
    free(np);
    free(keep);

    /* Debian */
    snprintf(path, sizeof path, "%s/deb.txt", argv[1]);
    vs = read_lines(path, &n);
    snprintf(path, sizeof path, "%s/ranges-deb.txt", argv[1]);
    rs = read_lines(path, &nr);
    keep = xcalloc(n, sizeof(bool));
    t0 = now_ms();
    deb_version *dv = xcalloc(n, sizeof *dv);
    deb_version **dp = xcalloc(n, sizeof *dp);
    for (size_t i = 0; i < n; i++) {
        const char *why;
        deb_version_parse(vs[i], strlen(vs[i]), &dv[i], &why);
        dp[i] = &dv[i];
    }
    qsort(dp, n, sizeof *dp, cmp_deb);
    kept = 0;
    for (size_t r = 0; r < nr; r++) {
        deb_filter(rs[r], (const char *const *)vs, n, keep, NULL);
        for (size_t i = 0; i < n; i++)
            kept += keep[i];
    }
    printf("deb envlock %.1f %zu\n", now_ms() - t0, kept);
    free(dv);
    free(dp);
    free(keep);

    /* libsolv's Debian order on the same list: sort only (it has no relation
     * filter over strings), so it is compared against envlock's sort below. */
    solv_pool = pool_create();
    pool_setdisttype(solv_pool, DISTTYPE_DEB);
    char **copy = xcalloc(n, sizeof *copy);
    memcpy(copy, vs, n * sizeof *copy);
    t0 = now_ms();
    qsort(copy, n, sizeof *copy, cmp_solv);
    printf("deb-sort libsolv %.1f %zu\n", now_ms() - t0, n);
    memcpy(copy, vs, n * sizeof *copy);
    t0 = now_ms();
    dv = xcalloc(n, sizeof *dv);
    dp = xcalloc(n, sizeof *dp);
    for (size_t i = 0; i < n; i++) {
        const char *why;
        deb_version_parse(vs[i], strlen(vs[i]), &dv[i], &why);
        dp[i] = &dv[i];
    }
    qsort(dp, n, sizeof *dp, cmp_deb);
    printf("deb-sort envlock %.1f %zu\n", now_ms() - t0, n);
    pool_free(solv_pool);
    free(copy);
    free(dv);
    free(dp);
    return 0;
}

/* solv_load.c — the baseline for bench/apt_fetch: libsolv's own
 * repo_add_solv() of a .solv file, timed over several runs (best and
 * median), as a peer for envlock's warm load from its cache. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repo_solv.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: solv_load FILE.solv [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    if (runs < 1 || runs > 100)
        runs = 7;
    double t[100];
    int n = 0;
    for (int i = 0; i < runs; i++) {
        Pool *pool = pool_create();
        Repo *repo = repo_create(pool, "x");
        double t0 = now_ms();
        FILE *f = fopen(argv[1], "r");
        if (!f || repo_add_solv(repo, f, 0) != 0) {
            fprintf(stderr, "cannot load %s\n", argv[1]);
            return 1;
        }
        fclose(f);
        t[i] = now_ms() - t0;
        n = repo->nsolvables;
        pool_free(pool);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    printf("{\"solvables\":%d,\"best_ms\":%.2f,\"median_ms\":%.2f}\n", n, t[0], t[runs / 2]);
    return 0;
}

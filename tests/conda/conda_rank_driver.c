/* conda_rank_driver.c — replays conda's recorded candidate order
 * (conda_rank_cases.txt, from conda's own Resolve.version_key via
 * conda_rank_answers.py) against indexes/conda's conda_records_rank().
 * Each group is ranked twice, as recorded and reversed, so the answer
 * cannot come from the input order. Lines (tab-separated):
 *   G  name
 *   r  version  build  build_number  subdir  timestamp_ms  rank
 * Prints "conda_rank: N passed, M failed" (one per record and order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "conda_index.h"

#define MAXG 256

static size_t passed, failed;

typedef struct group {
    char name[256];
    conda_record recs[MAXG];
    size_t want[MAXG];
    size_t n;
    size_t line;
} group;

static void check_order(group *g, bool reversed)
{
    const conda_record *p[MAXG];
    size_t rank[MAXG];
    for (size_t i = 0; i < g->n; i++)
        p[i] = &g->recs[reversed ? g->n - 1 - i : i];
    conda_records_rank(p, g->n, rank);
    for (size_t i = 0; i < g->n; i++) {
        size_t k = reversed ? g->n - 1 - i : i;
        if (rank[i] == g->want[k]) {
            passed++;
        } else if (++failed <= 30) {
            fprintf(stderr, "group %s (line %zu)%s: %s %s bn=%llu %s ts=%lld: want rank %zu got %zu\n",
                    g->name, g->line, reversed ? " reversed" : "", g->recs[k].version,
                    g->recs[k].build, (unsigned long long)g->recs[k].build_number,
                    g->recs[k].subdir, (long long)g->recs[k].timestamp_ms, g->want[k], rank[i]);
        }
    }
}

static void finish(group *g)
{
    if (g->n) {
        check_order(g, false);
        check_order(g, true);
    }
    for (size_t i = 0; i < g->n; i++) {
        free((char *)g->recs[i].version);
        free((char *)g->recs[i].build);
        free((char *)g->recs[i].subdir);
    }
    g->n = 0;
}

static void add(group *g, char *line)
{
    char *f[7];
    size_t nf = 0;
    for (char *tok = strtok(line, "\t"); tok && nf < 7; tok = strtok(NULL, "\t"))
        f[nf++] = tok;
    if (nf != 7 || g->n == MAXG) {
        failed++;
        fprintf(stderr, "line %zu: malformed record\n", g->line);
        return;
    }
    conda_record *r = &g->recs[g->n];
    memset(r, 0, sizeof *r);
    r->version = xstrdup(f[1]);
    r->build = xstrdup(f[2]);
    r->build_number = strtoull(f[3], NULL, 10);
    r->subdir = xstrdup(f[4]);
    r->timestamp_ms = strtoll(f[5], NULL, 10);
    g->want[g->n++] = strtoul(f[6], NULL, 10);
}

int main(int argc, char **argv)
{
    FILE *in = argc == 2 ? fopen(argv[1], "r") : NULL;
    if (!in) {
        fprintf(stderr, "usage: conda_rank_driver CASES\n");
        return 2;
    }
    static group g;
    char *buf = NULL;
    size_t cap = 0, line = 0;
    ssize_t n;
    while ((n = getline(&buf, &cap, in)) >= 0) {
        line++;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        if (n == 0 || buf[0] == '#')
            continue;
        if (buf[0] == 'G' && buf[1] == '\t') {
            finish(&g);
            snprintf(g.name, sizeof g.name, "%s", buf + 2);
            g.line = line;
        } else {
            add(&g, buf);
        }
    }
    finish(&g);
    free(buf);
    fclose(in);
    printf("conda_rank: %zu passed, %zu failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}

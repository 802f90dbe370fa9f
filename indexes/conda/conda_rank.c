/* conda_rank.c — the order in which conda prefers one package's records
 * within one channel (conda_index.h): what the resolver turns into ranks.
 * Channel priority and track_features are the solve's, not this order's. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "condaver.h"
#include "conda_index.h"

typedef struct keyed {
    const conda_record *r;
    conda_version *v; /* NULL only for a version the reader would refuse */
    size_t i;
} keyed;

/* conda's Resolve.version_key within one channel: version, build_number,
 * a platform build over a noarch one, timestamp, then the build string. */
static int key_cmp(const keyed *a, const keyed *b)
{
    int c = a->v && b->v ? conda_version_cmp(a->v, b->v) : (a->v != NULL) - (b->v != NULL);
    if (c)
        return c;
    if (a->r->build_number != b->r->build_number)
        return a->r->build_number < b->r->build_number ? -1 : 1;
    bool an = a->r->subdir && !strcmp(a->r->subdir, "noarch"); /* conda asks the subdir only */
    bool bn = b->r->subdir && !strcmp(b->r->subdir, "noarch");
    if (an != bn)
        return an ? -1 : 1;
    if (a->r->timestamp_ms != b->r->timestamp_ms)
        return a->r->timestamp_ms < b->r->timestamp_ms ? -1 : 1;
    return strcmp(a->r->build, b->r->build);
}

static int sort_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    int c = key_cmp(a, b);
    /* equal keys keep their input order, so the sort is deterministic */
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

size_t conda_records_rank(const conda_record *const *recs, size_t n, size_t *rank)
{
    keyed *k = xcalloc(n ? n : 1, sizeof *k);
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed){recs[i], conda_version_parse(recs[i]->version, strlen(recs[i]->version), NULL), i};
    qsort(k, n, sizeof *k, sort_cmp);
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && key_cmp(&k[i - 1], &k[i]) != 0)
            r++;
        rank[k[i].i] = r;
    }
    for (size_t i = 0; i < n; i++)
        conda_version_free(k[i].v);
    free(k);
    return n ? r + 1 : 0;
}

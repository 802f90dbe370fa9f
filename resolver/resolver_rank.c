/* resolver_rank.c — the one idea that lets libsolv solve PyPI and npm with
 * their own version semantics: a name's versions become ranks (zero-padded
 * EVRs that Debian ordering sorts correctly), and a specifier becomes the
 * rank intervals of the versions it admits, evaluated natively (PEP 440 via
 * pep440.h, node-semver via semver.h). Also the side tables of solvables and
 * dependencies. Knows nothing about fetching or locks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/poolid.h>

#include "resolver_internal.h"

size_t resolver_intervals(const bool *keep, const bool *present, size_t n, rsv_interval *out)
{
    size_t nout = 0;
    bool open = false;
    size_t lo = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        bool here = present == NULL || present[i];
        if (!here)
            continue; /* don't care: neither starts, ends nor breaks a run */
        if (keep[i]) {
            if (!open) {
                open = true;
                lo = i;
            }
            last = i;
        } else if (open) {
            out[nout].lo = lo;
            out[nout].hi = last;
            nout++;
            open = false;
        }
    }
    if (open) {
        out[nout].lo = lo;
        out[nout].hi = last;
        nout++;
    }
    return nout;
}

void resolver_rank_evr(size_t rank, char buf[16])
{
    snprintf(buf, 16, "%08zu", rank);
}

void resolver_pypi_match(const pypi_specset *s, const pypi_version *const *v, size_t n, bool *keep)
{
    pypi_specset_filter(s, v, n, PYPI_PRE_DEFAULT, keep);
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            return;
    /* PEP 440: when no final release satisfies the specifier, the
     * pre-releases that do are acceptable (packaging 23's filter drops them
     * for a non-empty set that names no pre-release; pip follows it, the
     * standard does not). */
    pypi_specset_filter(s, v, n, PYPI_PRE_YES, keep);
}

void resolver_npm_match(const npm_range *r, const npm_semver *const *v, size_t n, bool *keep)
{
    for (size_t i = 0; i < n; i++)
        keep[i] = v[i] != NULL && npm_range_test(r, v[i]);
}

Id resolver_interval_dep(Pool *pool, const char *name, const size_t *ranks, size_t nranks,
                         const rsv_interval *iv, size_t niv)
{
    Id nid = pool_str2id(pool, name, 1);
    if (niv == 0)
        return pool_rel2id(pool, nid, pool_str2id(pool, "nomatch", 1), REL_EQ, 1);
    if (niv == 1 && iv[0].lo == 0 && iv[0].hi == nranks - 1)
        return nid;
    Id all = 0;
    char buf[16];
    for (size_t i = 0; i < niv; i++) {
        Id d;
        if (iv[i].lo == iv[i].hi) {
            resolver_rank_evr(ranks[iv[i].lo], buf);
            d = pool_rel2id(pool, nid, pool_str2id(pool, buf, 1), REL_EQ, 1);
        } else {
            Id lo = 0, hi = 0;
            if (iv[i].lo > 0) {
                resolver_rank_evr(ranks[iv[i].lo], buf);
                lo = pool_rel2id(pool, nid, pool_str2id(pool, buf, 1), REL_GT | REL_EQ, 1);
            }
            if (iv[i].hi < nranks - 1) {
                resolver_rank_evr(ranks[iv[i].hi], buf);
                hi = pool_rel2id(pool, nid, pool_str2id(pool, buf, 1), REL_LT | REL_EQ, 1);
            }
            if (lo && hi)
                d = pool_rel2id(pool, lo, hi, REL_WITH, 1);
            else
                d = lo ? lo : hi;
        }
        all = all ? pool_rel2id(pool, all, d, REL_OR, 1) : d;
    }
    return all;
}

/* The table is indexed by solvable Id, but only PyPI and npm solvables use
 * it, and they come after every apt one (~64k of them for Debian main): the
 * first entry alone would make a table of ~4.6 MB, all of it written by the
 * memset of a realloc'd block. So the table grows by calloc (large blocks are
 * fresh zero pages the kernel maps only when written; reading an untouched
 * one maps the shared zero page) and copies only the entries from the lowest
 * one ever handed out: the apt part below it is never written and costs
 * address space, not memory. Geometric growth keeps the copies linear. */
rsv_solv *resolver_solv(rsv *r, Id p)
{
    size_t i = (size_t)p;
    if (i >= r->nsolv) {
        size_t n = r->nsolv + r->nsolv / 2;
        if (n < i + 64)
            n = i + 64;
        rsv_solv *t = xcalloc(n, sizeof *t);
        if (r->solv && r->solv_lo < r->nsolv)
            memcpy(t + r->solv_lo, r->solv + r->solv_lo, (r->nsolv - r->solv_lo) * sizeof *t);
        if (!r->solv)
            r->solv_lo = i;
        free(r->solv);
        r->solv = t;
        r->nsolv = n;
    }
    if (i < r->solv_lo)
        r->solv_lo = i;
    return &r->solv[i];
}

rsv_dep *resolver_add_dep(rsv *r, Id from, int root, Id dep, int eco, const char *name,
                          const char *text, const char *short_text, const char *kind)
{
    if (r->ndeps == r->adeps) {
        r->adeps = r->adeps ? 2 * r->adeps : 256;
        r->deps = xrealloc(r->deps, r->adeps * sizeof *r->deps);
    }
    rsv_dep *d = &r->deps[r->ndeps++];
    memset(d, 0, sizeof *d);
    d->from = from;
    d->root = root;
    d->dep = dep;
    d->eco = eco;
    d->name = name;
    d->text = text;
    d->short_text = short_text ? short_text : text;
    d->kind = kind;
    return d;
}

const rsv_dep *resolver_find_dep(const rsv *r, Id from, Id dep)
{
    for (size_t i = 0; i < r->ndeps; i++)
        if (r->deps[i].from == from && r->deps[i].dep == dep)
            return &r->deps[i];
    return NULL;
}

/* Appends dep in Debian's notation. */
static void deb_dep(const Pool *pool, Id dep, strbuf *sb)
{
    if (!ISRELDEP(dep)) {
        sb_adds(sb, pool_id2str(pool, dep));
        return;
    }
    Reldep *rd = GETRELDEP(pool, dep);
    if (rd->flags == REL_OR) {
        deb_dep(pool, rd->name, sb);
        sb_adds(sb, " | ");
        deb_dep(pool, rd->evr, sb);
        return;
    }
    const char *op = NULL;
    switch (rd->flags) {
    case REL_EQ: op = "="; break;
    case REL_GT | REL_EQ: op = ">="; break;
    case REL_LT | REL_EQ: op = "<="; break;
    case REL_GT: op = ">>"; break;
    case REL_LT: op = "<<"; break;
    default: break;
    }
    if (!op) {
        sb_adds(sb, pool_dep2str((Pool *)pool, dep));
        return;
    }
    deb_dep(pool, rd->name, sb);
    sb_addf(sb, " (%s %s)", op, pool_id2str(pool, rd->evr));
}

char *resolver_deb_dep_text(const Pool *pool, Id dep)
{
    strbuf sb = STRBUF_INIT;
    deb_dep(pool, dep, &sb);
    return sb_detach(&sb, NULL);
}

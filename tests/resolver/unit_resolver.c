/* unit_resolver.c — the rank/interval mapping on its own: PEP 440 and
 * node-semver specifiers evaluated over sorted versions become the right
 * rank intervals (pre-releases, `!=`, `~=`, local versions, `^0.x`), and
 * the interval dependencies select exactly those solvables in a pool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/repo.h>

#include "resolver_internal.h"

/* Matches of `spec` over `versions` (ascending), as a string of 0/1. */
static char *pypi_bits(const char *spec, const char *const *versions, size_t n)
{
    pypi_specset *s = pypi_specset_parse(spec, NULL);
    assert_non_null(s);
    const pypi_version **v = calloc(n, sizeof *v);
    bool keep[32];
    for (size_t i = 0; i < n; i++)
        v[i] = pypi_version_parse(versions[i], NULL);
    resolver_pypi_match(s, v, n, keep);
    char *out = calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        out[i] = keep[i] ? '1' : '0';
        pypi_version_free((pypi_version *)v[i]);
    }
    free(v);
    pypi_specset_free(s);
    return out;
}

static void check_pypi(const char *spec, const char *const *versions, size_t n, const char *want)
{
    char *got = pypi_bits(spec, versions, n);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got %s, want %s", spec, got, want);
    free(got);
}

static void test_pep440(void **state)
{
    (void)state;
    static const char *const v[] = { "1.0", "1.4.9", "1.5.0", "1.5.0+cpu", "1.5.0.post1",
                                     "2.0.0rc1", "2.0.0", "2.1.0.dev1" };
    size_t n = sizeof v / sizeof *v;
    check_pypi(">=1.5", v, n, "00111010");        /* no pre-releases: finals exist */
    check_pypi("==1.5.0", v, n, "00110000");      /* a local version matches its public one */
    check_pypi("==1.5.0+cpu", v, n, "00010000");
    check_pypi("!=1.5.0", v, n, "11001010");      /* != excludes the local too */
    check_pypi("~=1.4", v, n, "01111000");        /* >=1.4, ==1.* */
    check_pypi(">=2.0.0rc1", v, n, "00000111");   /* naming a pre-release admits them */
    check_pypi("", v, n, "11111010");
    check_pypi("<1.5", v, n, "11000000");         /* <1.5 excludes 1.5 pre/post/local */
    check_pypi(">1.5.0", v, n, "00000010");       /* > excludes post releases of 1.5.0 */
    static const char *const pre[] = { "0.1.0a1", "0.1.0b2" };
    check_pypi("", pre, 2, "11");                  /* nothing final: pre-releases are it */
    check_pypi(">=0.1.0b1", pre, 2, "01");
    static const char *const ep[] = { "2024.1", "1!0.5" };
    check_pypi(">=2000", ep, 2, "11");             /* the epoch wins */
}

static char *npm_bits(const char *range, const char *const *versions, size_t n)
{
    npm_range *r = NULL;
    assert_int_equal(npm_range_parse(range, NPM_LOOSE, &r, NULL), 0);
    npm_semver sv[32];
    const npm_semver *pv[32];
    bool keep[32];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(npm_semver_parse(&sv[i], versions[i], NPM_LOOSE, NULL), 0);
        pv[i] = &sv[i];
    }
    resolver_npm_match(r, pv, n, keep);
    char *out = calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        out[i] = keep[i] ? '1' : '0';
        npm_semver_release(&sv[i]);
    }
    npm_range_free(r);
    return out;
}

static void check_npm(const char *range, const char *const *versions, size_t n, const char *want)
{
    char *got = npm_bits(range, versions, n);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got %s, want %s", range, got, want);
    free(got);
}

static void test_semver(void **state)
{
    (void)state;
    static const char *const v[] = { "0.1.0", "0.1.5", "0.2.0", "1.0.0-rc.1", "1.0.0", "1.2.0",
                                     "2.0.0-beta.1", "2.0.0" };
    size_t n = sizeof v / sizeof *v;
    check_npm("^0.1.0", v, n, "11000000");        /* ^0.x pins the minor */
    check_npm("^0.0.1", v, n, "00000000");
    check_npm("^1", v, n, "00001100");            /* no pre-release of another tuple */
    check_npm("^1.0.0-rc.1", v, n, "00011100");   /* ... unless the range names one */
    check_npm("*", v, n, "11101101");
    check_npm(">=1.0.0 <2.0.0 || 0.2.0", v, n, "00101100");
    check_npm("~1.2", v, n, "00000100");
}

static void test_intervals(void **state)
{
    (void)state;
    rsv_interval iv[8];
    bool keep[] = { 0, 1, 1, 0, 1, 0, 1, 1 };
    assert_int_equal(resolver_intervals(keep, NULL, 8, iv), 3);
    assert_int_equal(iv[0].lo, 1);
    assert_int_equal(iv[0].hi, 2);
    assert_int_equal(iv[1].lo, 4);
    assert_int_equal(iv[1].hi, 4);
    assert_int_equal(iv[2].lo, 6);
    assert_int_equal(iv[2].hi, 7);
    /* entries without a solvable neither break nor end a run */
    bool present[] = { 1, 1, 1, 0, 1, 1, 1, 1 };
    bool keep2[] = { 0, 1, 1, 0, 1, 0, 0, 0 };
    assert_int_equal(resolver_intervals(keep2, present, 8, iv), 1);
    assert_int_equal(iv[0].lo, 1);
    assert_int_equal(iv[0].hi, 4);
    bool none[] = { 0, 0 };
    assert_int_equal(resolver_intervals(none, NULL, 2, iv), 0);
    char buf[16];
    resolver_rank_evr(42, buf);
    assert_string_equal(buf, "00000042");
}

/* The interval dependency selects exactly the solvables of its ranks. */
static void test_interval_dep(void **state)
{
    (void)state;
    Pool *pool = pool_create();
    pool_setdisttype(pool, DISTTYPE_DEB);
    pool_setarch(pool, "amd64");
    Repo *repo = repo_create(pool, "t");
    size_t ranks[12];
    Id ids[12];
    for (size_t i = 0; i < 12; i++) {
        ranks[i] = i + 1;
        char evr[16];
        resolver_rank_evr(ranks[i], evr);
        Id p = repo_add_solvable(repo);
        Solvable *s = pool->solvables + p;
        s->name = pool_str2id(pool, "pypi:x", 1);
        s->evr = pool_str2id(pool, evr, 1);
        s->arch = ARCH_ALL;
        s->provides = repo_addid_dep(repo, s->provides, pool_rel2id(pool, s->name, s->evr, REL_EQ, 1), 0);
        ids[i] = p;
    }
    pool_createwhatprovides(pool);
    bool keep[12] = { 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1 };
    rsv_interval iv[12];
    size_t niv = resolver_intervals(keep, NULL, 12, iv);
    Id d = resolver_interval_dep(pool, "pypi:x", ranks, 12, iv, niv);
    bool got[12] = { 0 };
    Id p, pp;
    FOR_PROVIDES(p, pp, d)
        for (size_t i = 0; i < 12; i++)
            if (ids[i] == p)
                got[i] = true;
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(got[i], keep[i]);
    /* ranks 9 and 10 (index 8, 9) straddle a digit boundary: 00000009 < 00000010 */
    bool k2[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0 };
    niv = resolver_intervals(k2, NULL, 12, iv);
    d = resolver_interval_dep(pool, "pypi:x", ranks, 12, iv, niv);
    memset(got, 0, sizeof got);
    FOR_PROVIDES(p, pp, d)
        for (size_t i = 0; i < 12; i++)
            if (ids[i] == p)
                got[i] = true;
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(got[i], k2[i]);
    /* nothing: a dependency nobody provides */
    d = resolver_interval_dep(pool, "pypi:x", ranks, 12, iv, 0);
    int count = 0;
    FOR_PROVIDES(p, pp, d)
        count++;
    assert_int_equal(count, 0);
    pool_free(pool);
}

/* ---- Node's resolution of an npm tree (resolver_npm_misload) ---- */

/* An edge with the versions that satisfy it, as solvable ids lo..hi (the
 * tests number a copy by its version: ms 2.1.3 is 213). */
typedef struct want {
    rsv_dep d; /* first: the callback gets &want.d */
    Id lo, hi;
} want;

static bool want_in_range(void *user, const rsv_dep *d, const rsv_npm_node *got)
{
    (void)user;
    const want *w = (const want *)d;
    return got->p >= w->lo && got->p <= w->hi;
}

static rsv_npm_node *tnode(ptrvec *all, rsv_npm_node *parent, const char *name, Id p)
{
    rsv_npm_node *n = calloc(1, sizeof *n);
    n->p = p;
    n->name = name;
    n->parent = parent;
    if (parent) {
        size_t len = strlen(parent->path) + strlen(name) + 16;
        n->path = malloc(len);
        snprintf(n->path, len, "%s%snode_modules/%s", parent->path, parent->path[0] ? "/" : "",
                 name);
        ptrvec_push(&parent->children, n);
    } else {
        n->path = strdup("");
    }
    ptrvec_push(all, n);
    return n;
}

static void tedge(rsv_npm_node *from, want *w, rsv_npm_node *to)
{
    rsv_npm_edge e = { &w->d, to };
    rsv_npm_edges_push(&from->edges, e);
}

/* express's shape (send needs ms 2.1.3, debug ms 2.0.0): with 2.0.0
 * placed in express's node_modules, send (below express) would load it
 * although its edge is bound to the top 2.1.3; nested under send instead,
 * every edge loads its own copy. */
static void test_misload_send_ms(void **state)
{
    (void)state;
    want ms213 = { .d = { .name = "ms", .text = "ms@2.1.3" }, 213, 213 };
    want ms200 = { .d = { .name = "ms", .text = "ms@2.0.0" }, 200, 200 };
    const rsv_npm_node *at, *got;

    ptrvec bad = PTRVEC_INIT;
    rsv_npm_node *top = tnode(&bad, NULL, "", 0);
    rsv_npm_node *express = tnode(&bad, top, "express", 1);
    rsv_npm_node *send = tnode(&bad, express, "send", 2);
    rsv_npm_node *debug = tnode(&bad, express, "debug", 3);
    rsv_npm_node *ms_top = tnode(&bad, top, "ms", 213);
    rsv_npm_node *ms_hid = tnode(&bad, express, "ms", 200);
    tedge(send, &ms213, ms_top);
    tedge(debug, &ms200, ms_hid);
    const rsv_npm_edge *e = resolver_npm_misload(&bad, want_in_range, NULL, &at, &got);
    assert_non_null(e);
    assert_ptr_equal(e->dep, &ms213.d);
    assert_ptr_equal(at, send);
    assert_string_equal(got->path, "node_modules/express/node_modules/ms");
    resolver_npm_layout_free(&bad);

    ptrvec good = PTRVEC_INIT;
    top = tnode(&good, NULL, "", 0);
    express = tnode(&good, top, "express", 1);
    send = tnode(&good, top, "send", 2);
    debug = tnode(&good, top, "debug", 3);
    rsv_npm_node *ms_old = tnode(&good, top, "ms", 200);
    rsv_npm_node *ms_new = tnode(&good, send, "ms", 213);
    tedge(send, &ms213, ms_new);
    tedge(debug, &ms200, ms_old);
    assert_null(resolver_npm_misload(&good, want_in_range, NULL, &at, &got));
    resolver_npm_layout_free(&good);
}

/* koa's shape (koa needs depd ^2, a sibling depd ^1): an edge bound to a
 * copy out of its range, and one bound to a copy its dependent cannot
 * reach (in a sibling's node_modules), are both caught. */
static void test_misload_koa_depd(void **state)
{
    (void)state;
    want depd2 = { .d = { .name = "depd", .text = "depd@^2.0.0" }, 200, 299 };
    const rsv_npm_node *at, *got;

    ptrvec all = PTRVEC_INIT;
    rsv_npm_node *top = tnode(&all, NULL, "", 0);
    rsv_npm_node *koa = tnode(&all, top, "koa", 1);
    rsv_npm_node *depd1 = tnode(&all, top, "depd", 112);
    tedge(koa, &depd2, depd1);
    const rsv_npm_edge *e = resolver_npm_misload(&all, want_in_range, NULL, &at, &got);
    assert_non_null(e);
    assert_ptr_equal(at, koa);
    assert_ptr_equal(got, depd1);
    resolver_npm_layout_free(&all);

    ptrvec far = PTRVEC_INIT;
    top = tnode(&far, NULL, "", 0);
    koa = tnode(&far, top, "koa", 1);
    rsv_npm_node *other = tnode(&far, top, "http-errors", 4);
    rsv_npm_node *depd200 = tnode(&far, other, "depd", 200);
    tedge(koa, &depd2, depd200);
    e = resolver_npm_misload(&far, want_in_range, NULL, &at, &got);
    assert_non_null(e);
    assert_null(got);
    resolver_npm_layout_free(&far);

    ptrvec ok = PTRVEC_INIT;
    top = tnode(&ok, NULL, "", 0);
    koa = tnode(&ok, top, "koa", 1);
    tnode(&ok, top, "depd", 112);
    depd200 = tnode(&ok, koa, "depd", 200);
    tedge(koa, &depd2, depd200);
    assert_null(resolver_npm_misload(&ok, want_in_range, NULL, &at, &got));
    resolver_npm_layout_free(&ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pep440),
        cmocka_unit_test(test_semver),
        cmocka_unit_test(test_intervals),
        cmocka_unit_test(test_interval_dep),
        cmocka_unit_test(test_misload_send_ms),
        cmocka_unit_test(test_misload_koa_depd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

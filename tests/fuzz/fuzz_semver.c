/* fuzz_semver.c — libFuzzer target for npm versions, ranges and package
 * specs. The input is split on newlines into up to three versions and a
 * range. For strict and loose parsing it checks that nothing crashes, that
 * compare() is reflexive and antisymmetric (compareBuild too), that a
 * normalized version parses back to an equal one, and that satisfies(),
 * the parsed range's test and maxSatisfying agree with each other. The
 * whole input also goes through npm_pkgspec_check(). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npm_spec.h"
#include "semver.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void check_versions(char *const *text, size_t n, unsigned opts)
{
    npm_semver v[3];
    bool ok[3];
    for (size_t i = 0; i < n; i++) {
        ok[i] = npm_semver_parse(&v[i], text[i], opts, NULL) == 0;
        if (!ok[i])
            continue;
        CHECK(npm_semver_compare(&v[i], &v[i]) == 0);
        CHECK(npm_semver_compare_build(&v[i], &v[i]) == 0);
        /* the normalized form reads back (when still short enough) */
        if (strlen(v[i].version) <= NPM_SEMVER_MAX_LENGTH) {
            npm_semver back;
            CHECK(npm_semver_parse(&back, v[i].version, opts, NULL) == 0);
            CHECK(npm_semver_compare(&back, &v[i]) == 0);
            CHECK(strcmp(back.version, v[i].version) == 0);
            npm_semver_release(&back);
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (!ok[i] || !ok[j])
                continue;
            int a = npm_semver_compare(&v[i], &v[j]), b = npm_semver_compare(&v[j], &v[i]);
            CHECK(a >= -1 && a <= 1 && a == -b);
            CHECK(npm_semver_rcompare(&v[i], &v[j]) == b);
            CHECK(npm_semver_compare_build(&v[i], &v[j]) ==
                  -npm_semver_compare_build(&v[j], &v[i]));
        }
    }
    for (size_t i = 0; i < n; i++)
        if (ok[i])
            npm_semver_release(&v[i]);
}

static void check_range(const char *range, char *const *text, size_t n, unsigned opts)
{
    npm_range *r;
    char *err = NULL;
    char *valid = npm_valid_range(range, opts);
    if (npm_range_parse(range, opts, &r, &err) != 0) {
        CHECK(err != NULL);
        CHECK(valid == NULL);
        free(err);
        for (size_t i = 0; i < n; i++)
            CHECK(!npm_satisfies(text[i], range, opts));
        return;
    }
    CHECK(valid != NULL);
    CHECK(strcmp(valid, npm_range_format(r)[0] ? npm_range_format(r) : "*") == 0);
    free(valid);
    for (size_t s = 0; s < npm_range_nsets(r); s++) {
        CHECK(npm_range_set_size(r, s) > 0);
        for (size_t j = 0; j < npm_range_set_size(r, s); j++) {
            npm_comparator c = npm_range_comparator(r, s, j);
            CHECK((c.op == NPM_OP_ANY) == (c.semver == NULL));
        }
    }
    bool sat[3] = { false, false, false };
    for (size_t i = 0; i < n; i++) {
        sat[i] = npm_range_test_str(r, text[i]);
        CHECK(sat[i] == npm_satisfies(text[i], range, opts));
    }
    long best = npm_max_satisfying((const char *const *)text, n, range, opts);
    long least = npm_min_satisfying((const char *const *)text, n, range, opts);
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any = any || sat[i];
    CHECK((best >= 0) == any && (least >= 0) == any);
    if (any) {
        CHECK(sat[best] && sat[least]);
        npm_semver b, l, x;
        CHECK(npm_semver_parse(&b, text[best], opts, NULL) == 0);
        CHECK(npm_semver_parse(&l, text[least], opts, NULL) == 0);
        for (size_t i = 0; i < n; i++) {
            if (!sat[i])
                continue;
            CHECK(npm_semver_parse(&x, text[i], opts, NULL) == 0);
            CHECK(npm_semver_compare(&b, &x) >= 0);
            CHECK(npm_semver_compare(&l, &x) <= 0);
            npm_semver_release(&x);
        }
        npm_semver_release(&b);
        npm_semver_release(&l);
    }
    npm_range_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *all = malloc(size + 1);
    memcpy(all, data, size);
    all[size] = '\0';
    if (strlen(all) != size) { /* C strings: no NUL inside */
        free(all);
        return 0;
    }
    char *part[4] = { NULL, NULL, NULL, NULL };
    size_t n = 0;
    char *p = all;
    while (n < 4) {
        part[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    /* parts: version, version, version, range; fewer parts means the last
     * one is also the range */
    const char *range = part[n - 1];
    size_t nv = n < 4 ? n : 3;
    for (unsigned opts = 0; opts < 4; opts++) {
        if (opts < 2)
            check_versions(part, nv, opts);
        check_range(range, part, nv, opts);
    }
    char *err = NULL;
    if (npm_pkgspec_check(range, &err) != 0)
        free(err);
    free(all);
    return 0;
}

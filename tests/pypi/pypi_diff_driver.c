/* pypi_diff_driver.c — replays the differential cases written by
 * gen_cases.py (answers from Python's packaging) against indexes/pypi and
 * reports every disagreement. One process for the whole file: cases come
 * on stdin (or from the file named by argv[1]), one per line, fields
 * tab-separated and escaped; see gen_cases.py for the format.
 * Prints "pypi_diff: N passed, M failed" and exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_fields.h"
#include "pep440.h"
#include "pep508.h"
#include "util.h"

#define MAXF 64

static size_t passed, failed, skipped;
static pypi_env envs[8];
static char *env_store[8][12];

static void mismatch(size_t line, const char *kind, const char *input, const char *want, const char *got)
{
    failed++;
    if (failed <= 40)
        fprintf(stderr, "line %zu: %s `%s`: want [%s] got [%s]\n", line, kind, input, want, got);
}

static void check(size_t line, const char *kind, const char *input, const char *want, const char *got)
{
    if (strcmp(want, got) == 0)
        passed++;
    else
        mismatch(line, kind, input, want, got);
}

static pypi_prerelease pre_code(const char *c)
{
    return c[0] == 'T' ? PYPI_PRE_YES : c[0] == 'F' ? PYPI_PRE_NO : PYPI_PRE_DEFAULT;
}

static void join_fields(strbuf *sb, char **f, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (i > from)
            sb_addc(sb, '|');
        sb_adds(sb, f[i]);
    }
}

static void case_V(size_t line, char **f, size_t nf)
{
    pypi_version *v = pypi_version_parse(f[1], NULL);
    strbuf want = STRBUF_INIT, got = STRBUF_INIT;
    join_fields(&want, f, 2, nf);
    if (!v) {
        sb_adds(&got, "bad");
    } else {
        sb_addf(&got, "ok|%s|%s|%s|%s|%s|", pypi_version_str(v), pypi_version_public(v), pypi_version_base(v),
                pypi_version_local(v) ? pypi_version_local(v) : "-", pypi_version_epoch(v));
        for (size_t i = 0; i < pypi_version_release_len(v); i++)
            sb_addf(&got, "%s%s", i ? "." : "", pypi_version_release_at(v, i));
        const char *pn;
        pypi_pre_kind k = pypi_version_pre(v, &pn);
        if (k)
            sb_addf(&got, "|%s%s", k == PYPI_PRE_A ? "a" : k == PYPI_PRE_B ? "b" : "rc", pn);
        else
            sb_adds(&got, "|-");
        sb_addf(&got, "|%s|%s|%d%d%d", pypi_version_dev(v) ? pypi_version_dev(v) : "-",
                pypi_version_post(v) ? pypi_version_post(v) : "-", pypi_version_is_prerelease(v),
                pypi_version_is_devrelease(v), pypi_version_is_postrelease(v));
        /* Round trip: the normalized form parses to an equal version. */
        pypi_version *w = pypi_version_parse(pypi_version_str(v), NULL);
        if (!w || pypi_version_cmp(v, w) != 0 || strcmp(pypi_version_str(w), pypi_version_str(v)) != 0)
            sb_adds(&got, "|ROUNDTRIP");
        pypi_version_free(w);
    }
    check(line, "version", f[1], want.buf, got.buf);
    sb_release(&want);
    sb_release(&got);
    pypi_version_free(v);
}

static void case_C(size_t line, char **f)
{
    int c = 99;
    char *err = NULL;
    char got[32];
    if (pypi_version_cmp_str(f[1], f[2], &c, &err) != 0) {
        snprintf(got, sizeof got, "error");
        free(err);
    } else {
        snprintf(got, sizeof got, "%d", c < 0 ? -1 : c > 0);
    }
    check(line, "compare", f[1], f[3], got);
    int c2 = 99;
    if (pypi_version_cmp_str(f[2], f[1], &c2, NULL) == 0 && (c2 < 0 ? -1 : c2 > 0) != -(c < 0 ? -1 : c > 0))
        mismatch(line, "antisymmetry", f[1], "", f[2]);
}

static void case_P(size_t line, char **f, size_t nf)
{
    pypi_specset *s = pypi_specset_parse(f[1], NULL);
    strbuf want = STRBUF_INIT, got = STRBUF_INIT;
    join_fields(&want, f, 2, nf);
    if (!s) {
        sb_adds(&got, "bad");
    } else {
        sb_addf(&got, "ok|%s|", pypi_specset_str(s));
        if (nf > 4 && strcmp(f[4], "?") == 0)
            sb_adds(&got, "?"); /* packaging raises here: see gen_cases.py */
        else
            sb_addf(&got, "%d", pypi_specset_prereleases(s));
    }
    check(line, "specset", f[1], want.buf, got.buf);
    sb_release(&want);
    sb_release(&got);
    pypi_specset_free(s);
}

static void case_S(size_t line, char **f)
{
    if (strcmp(f[4], "X") == 0) {
        skipped++;
        return;
    }
    pypi_specset *s = pypi_specset_parse(f[1], NULL);
    const char *got;
    if (!s) {
        got = "E";
    } else {
        pypi_version *v = pypi_version_parse(f[2], NULL);
        got = v && pypi_specset_contains(s, v, pre_code(f[3])) ? "1" : "0";
        pypi_version_free(v);
    }
    char in[4096];
    snprintf(in, sizeof in, "%s` contains `%s` pre=%s", f[1], f[2], f[3]);
    check(line, "contains", in, f[4], got);
    pypi_specset_free(s);
}

static void case_F(size_t line, char **f, size_t nf)
{
    if (strcmp(f[3], "X") == 0) {
        skipped++;
        return;
    }
    size_t n = nf - 4;
    pypi_specset *s = pypi_specset_parse(f[1], NULL);
    strbuf got = STRBUF_INIT;
    if (!s) {
        sb_adds(&got, "E");
    } else {
        pypi_version **vs = xcalloc(n + 1, sizeof *vs);
        bool *keep = xcalloc(n + 1, sizeof *keep);
        for (size_t i = 0; i < n; i++)
            vs[i] = pypi_version_parse(f[4 + i], NULL);
        pypi_specset_filter(s, (const pypi_version *const *)vs, n, pre_code(f[2]), keep);
        for (size_t i = 0; i < n; i++)
            sb_addc(&got, keep[i] ? '1' : '0');
        if (n == 0)
            sb_addc(&got, '-');
        /* pypi_filter (prereleases=None) must agree with the object API. */
        if (f[2][0] == 'N') {
            bool *keep2 = xcalloc(n + 1, sizeof *keep2);
            if (pypi_filter(f[1], (const char *const *)(f + 4), n, keep2, NULL) != 0 ||
                memcmp(keep, keep2, n * sizeof *keep) != 0)
                mismatch(line, "pypi_filter", f[1], "", "disagrees with pypi_specset_filter");
            free(keep2);
        }
        for (size_t i = 0; i < n; i++)
            pypi_version_free(vs[i]);
        free(vs);
        free(keep);
    }
    check(line, "filter", f[1], f[3], got.buf);
    sb_release(&got);
    pypi_specset_free(s);
}

static void case_M(size_t line, char **f, size_t nf)
{
    pypi_marker *m = pypi_marker_parse(f[1], false, NULL);
    strbuf want = STRBUF_INIT, got = STRBUF_INIT;
    join_fields(&want, f, 3, nf);
    if (!m) {
        sb_adds(&got, "!");
    } else {
        char *err = NULL;
        int r = pypi_marker_evaluate(m, &envs[atoi(f[2]) & 7], &err);
        free(err);
        sb_addf(&got, "%s|%s", r < 0 ? "E" : r ? "1" : "0", pypi_marker_str(m));
    }
    check(line, "marker", f[1], want.buf, got.buf);
    sb_release(&want);
    sb_release(&got);
    pypi_marker_free(m);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void case_R(size_t line, char **f, size_t nf)
{
    char *err = NULL;
    pypi_requirement *r = pypi_requirement_parse(f[1], &err);
    strbuf want = STRBUF_INIT, got = STRBUF_INIT;
    join_fields(&want, f, 2, nf);
    if (!r) {
        sb_adds(&got, "bad");
        if (!err || !*err)
            sb_adds(&got, "|NO-MESSAGE");
    } else {
        sb_addf(&got, "ok|%s|%s|", r->name, r->canonical_name);
        char **ex = xmalloc((r->nextras + 1) * sizeof *ex);
        if (r->nextras)
            memcpy(ex, r->extras, r->nextras * sizeof *ex);
        qsort(ex, r->nextras, sizeof *ex, cmp_str);
        for (size_t i = 0; i < r->nextras; i++)
            sb_addf(&got, "%s%s", i ? "," : "", ex[i]);
        free(ex);
        sb_addf(&got, "|%s|%s|%s", pypi_specset_str(r->specset), r->url ? r->url : "",
                r->marker ? pypi_marker_str(r->marker) : "");
        if (pypi_requirement_check(f[1], NULL) != 0)
            sb_adds(&got, "|CHECK-DISAGREES");
    }
    free(err);
    check(line, "requirement", f[1], want.buf, got.buf);
    sb_release(&want);
    sb_release(&got);
    pypi_requirement_free(r);
}

static void case_E(char **f, size_t nf)
{
    int i = atoi(f[1]) & 7;
    for (size_t k = 0; k < 12 && 2 + k < nf; k++)
        env_store[i][k] = xstrdup(f[2 + k]);
    pypi_env *e = &envs[i];
    const char **slots[12] = {&e->python_version, &e->python_full_version, &e->os_name, &e->sys_platform,
                              &e->platform_release, &e->platform_system, &e->platform_version,
                              &e->platform_machine, &e->platform_python_implementation,
                              &e->implementation_name, &e->implementation_version, &e->extra};
    for (size_t k = 0; k < 12; k++)
        *slots[k] = env_store[i][k];
}

int main(int argc, char **argv)
{
    FILE *in = stdin;
    if (argc > 1 && !(in = fopen(argv[1], "rb"))) {
        perror(argv[1]);
        return 2;
    }
    char *buf = NULL;
    size_t cap = 0, line = 0;
    ssize_t len;
    while ((len = getline(&buf, &cap, in)) >= 0) {
        line++;
        if (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
        if (len == 0)
            continue;
        char *f[MAXF];
        size_t nf = case_split(buf, f, MAXF);
        switch (f[0][0]) {
        case 'E': case_E(f, nf); break;
        case 'V': case_V(line, f, nf); break;
        case 'C': case_C(line, f); break;
        case 'P': case_P(line, f, nf); break;
        case 'S': case_S(line, f); break;
        case 'F': case_F(line, f, nf); break;
        case 'M': case_M(line, f, nf); break;
        case 'R': case_R(line, f, nf); break;
        default: fprintf(stderr, "line %zu: unknown case kind\n", line); failed++;
        }
        for (size_t i = 0; i < nf; i++)
            free(f[i]);
    }
    free(buf);
    if (in != stdin)
        fclose(in);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 12; k++)
            free(env_store[i][k]);
    printf("pypi_diff: %zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}

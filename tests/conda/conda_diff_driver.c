/* conda_diff_driver.c — replays recorded differential cases against
 * versions/conda and reports every disagreement. Cases come from the file
 * named by argv[1], one per line, tab-separated fields with `\t`, `\n`,
 * `\\` and `\xHH` escapes; `#` lines are comments. Kinds:
 *   V  text  repr        conda's VersionOrder(text).version, as Python prints it
 *   I  text              text is not a conda version
 *   C  a  b  <|=|>       how a compares with b
 *   S  v  prefix  0|1    whether v starts with prefix (VersionOrder.startswith)
 *   M  spec  v  0|1      whether v satisfies the version spec
 *   B  spec              spec is not a version spec
 * With a second file (conda's own answers, conda_cases.txt), a case whose
 * recorded answer differs from envlock's still passes when conda's answer
 * for the same input is a different one and is what envlock gives: that is
 * how rattler's answers are replayed, since envlock follows conda where
 * rattler departs from it. Such cases are counted and the first few shown.
 * Prints "conda_diff: N passed, M failed" and exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_fields.h"
#include "condaver.h"
#include "util.h"

#define MAXF 8

static size_t passed, failed, deviations;

/* conda's own answers, keyed "C\ta\tb", "S\tv\tp" or "valid\ttext". */
static char **ref_keys, **ref_answers;
static size_t n_ref;

static const char *ref_answer(const char *key)
{
    for (size_t i = 0; i < n_ref; i++)
        if (strcmp(ref_keys[i], key) == 0)
            return ref_answers[i];
    return NULL;
}

/* Whether conda's answer explains a disagreement with the recorded one:
 * conda answers differently from the record, and as envlock does. */
static bool conda_explains(const char *kind, char **f, const char *want, const char *got)
{
    if (!n_ref)
        return false;
    if (strncmp(got, "unparsed ", 9) == 0 || strcmp(got, "unparsed") == 0) {
        const char *bad = got[8] ? got + 9 : f[1];
        char *k = xasprintf("valid\t%s", bad);
        const char *a = ref_answer(k);
        free(k);
        return a && strcmp(a, "0") == 0;
    }
    if (strncmp(got, "badspec ", 8) == 0 || strcmp(kind, "badspec") == 0) {
        char *k = xasprintf("spec\t%s", f[1]);
        const char *a = ref_answer(k);
        free(k);
        return a && strcmp(a, strcmp(kind, "badspec") == 0 ? "1" : "0") == 0;
    }
    if (strcmp(kind, "invalid") == 0) {
        char *k = xasprintf("valid\t%s", f[1]);
        const char *a = ref_answer(k);
        free(k);
        return a && strcmp(a, "1") == 0;
    }
    char *k = xasprintf("%s\t%s\t%s", f[0], f[1], f[2]);
    const char *a = ref_answer(k);
    free(k);
    return a && strcmp(a, want) != 0 && strcmp(a, got) == 0;
}

static char **cur; /* the fields of the case being checked */

static void check(size_t line, const char *kind, const char *input, const char *want, const char *got)
{
    if (strcmp(want, got) == 0) {
        passed++;
        return;
    }
    if (conda_explains(kind, cur, want, got)) {
        passed++;
        if (++deviations <= 10)
            printf("line %zu: %s `%s`: recorded [%s], conda's own answer [%s]\n", line, kind,
                   input, want, got);
        return;
    }
    failed++;
    if (failed <= 40)
        fprintf(stderr, "line %zu: %s `%s`: want [%s] got [%s]\n", line, kind, input, want, got);
}

static conda_version *parse(const char *s)
{
    return conda_version_parse(s, strlen(s), NULL);
}

static void case_V(size_t line, char **f)
{
    conda_version *v = parse(f[1]);
    char *got = v ? conda_version_repr(v, false) : xstrdup("invalid");
    check(line, "version", f[1], f[2], got);
    free(got);
    conda_version_free(v);
}

static void case_I(size_t line, char **f)
{
    conda_version *v = parse(f[1]);
    check(line, "invalid", f[1], "invalid", v ? conda_version_norm(v) : "invalid");
    conda_version_free(v);
}

static void case_C(size_t line, char **f)
{
    conda_version *a = parse(f[1]), *b = parse(f[2]);
    char got[64];
    if (!a || !b)
        snprintf(got, sizeof got, "unparsed %s", a ? f[2] : f[1]);
    else {
        int c = conda_version_cmp(a, b);
        snprintf(got, sizeof got, "%s", c < 0 ? "<" : c > 0 ? ">" : "=");
    }
    char *in = xasprintf("%s vs %s", f[1], f[2]);
    check(line, "compare", in, f[3], got);
    free(in);
    conda_version_free(a);
    conda_version_free(b);
}

static void case_S(size_t line, char **f)
{
    conda_version *a = parse(f[1]), *b = parse(f[2]);
    char got[64];
    if (!a || !b)
        snprintf(got, sizeof got, "unparsed %s", a ? f[2] : f[1]);
    else
        snprintf(got, sizeof got, "%s", conda_version_startswith(a, b) ? "1" : "0");
    char *in = xasprintf("%s startswith %s", f[1], f[2]);
    check(line, "startswith", in, f[3], got);
    free(in);
    conda_version_free(a);
    conda_version_free(b);
}

static void add_ref(char *buf)
{
    char *f[MAXF];
    size_t nf = case_split(buf, f, MAXF);
    char *key = NULL, *ans = NULL;
    if ((f[0][0] == 'V' || f[0][0] == 'I') && nf >= 2) {
        key = xasprintf("valid\t%s", f[1]);
        ans = xstrdup(f[0][0] == 'V' ? "1" : "0");
    } else if (f[0][0] == 'B' && nf == 2) {
        key = xasprintf("spec\t%s", f[1]);
        ans = xstrdup("0");
    } else if (f[0][0] == 'M' && nf == 4) {
        /* A spec conda answers a match for is one conda parses. */
        key = xasprintf("spec\t%s", f[1]);
        ans = xstrdup("1");
        ref_keys = xrealloc(ref_keys, (n_ref + 1) * sizeof *ref_keys);
        ref_answers = xrealloc(ref_answers, (n_ref + 1) * sizeof *ref_answers);
        ref_keys[n_ref] = key;
        ref_answers[n_ref++] = ans;
        key = xasprintf("%s\t%s\t%s", f[0], f[1], f[2]);
        ans = xstrdup(f[3]);
    } else if ((f[0][0] == 'C' || f[0][0] == 'S') && nf == 4) {
        key = xasprintf("%s\t%s\t%s", f[0], f[1], f[2]);
        ans = xstrdup(f[3]);
    }
    if (key) {
        ref_keys = xrealloc(ref_keys, (n_ref + 1) * sizeof *ref_keys);
        ref_answers = xrealloc(ref_answers, (n_ref + 1) * sizeof *ref_answers);
        ref_keys[n_ref] = key;
        ref_answers[n_ref++] = ans;
    }
    for (size_t i = 0; i < nf; i++)
        free(f[i]);
}

static void case_M(size_t line, char **f)
{
    conda_vspec *sp = conda_vspec_parse(f[1], strlen(f[1]), NULL);
    conda_version *v = parse(f[2]);
    char got[64];
    if (!sp)
        snprintf(got, sizeof got, "badspec %s", f[1]);
    else if (!v)
        snprintf(got, sizeof got, "unparsed %s", f[2]);
    else
        snprintf(got, sizeof got, "%s", conda_vspec_match(sp, v, f[2]) ? "1" : "0");
    char *in = xasprintf("%s matches %s", f[2], f[1]);
    check(line, "match", in, f[3], got);
    free(in);
    conda_vspec_free(sp);
    conda_version_free(v);
}

static void case_B(size_t line, char **f)
{
    conda_vspec *sp = conda_vspec_parse(f[1], strlen(f[1]), NULL);
    check(line, "badspec", f[1], "badspec", sp ? "parsed" : "badspec");
    conda_vspec_free(sp);
}

static void run_line(size_t line, char *buf)
{
    char *f[MAXF];
    size_t nf = case_split(buf, f, MAXF);
    static const struct { const char *kind; size_t nf; void (*fn)(size_t, char **); } kinds[] = {
        {"V", 3, case_V}, {"I", 2, case_I}, {"C", 4, case_C}, {"S", 4, case_S},
        {"M", 4, case_M}, {"B", 2, case_B},
    };
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].kind, f[0]) != 0)
        k++;
    if (k == sizeof kinds / sizeof kinds[0] || nf != kinds[k].nf) {
        fprintf(stderr, "line %zu: malformed case\n", line);
        failed++;
    } else {
        cur = f;
        kinds[k].fn(line, f);
    }
    for (size_t i = 0; i < nf; i++)
        free(f[i]);
}

static int each_line(const char *path, void (*fn)(size_t, char *))
{
    FILE *in = fopen(path, "r");
    if (!in) {
        perror(path);
        return -1;
    }
    char *buf = NULL;
    size_t cap = 0, line = 0;
    ssize_t n;
    while ((n = getline(&buf, &cap, in)) >= 0) {
        line++;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        if (n == 0 || buf[0] == '#')
            continue;
        fn(line, buf);
    }
    free(buf);
    fclose(in);
    return 0;
}

static void add_ref_line(size_t line, char *buf)
{
    (void)line;
    add_ref(buf);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: conda_diff_driver CASES [CONDA_ANSWERS]\n");
        return 2;
    }
    if (argc == 3 && each_line(argv[2], add_ref_line) != 0)
        return 2;
    if (each_line(argv[1], run_line) != 0)
        return 2;
    for (size_t i = 0; i < n_ref; i++) {
        free(ref_keys[i]);
        free(ref_answers[i]);
    }
    free(ref_keys);
    free(ref_answers);
    if (deviations)
        printf("conda_diff: %zu recorded answers differ from conda's own, which envlock gives\n",
               deviations);
    printf("conda_diff: %zu passed, %zu failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}

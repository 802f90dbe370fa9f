/* conda_match_driver.c — replays conda's recorded match-spec answers
 * (conda_match_cases.txt, made by conda_match_answers.py from conda's own
 * MatchSpec) against versions/conda's parser and reports every
 * disagreement. One case per line, tab-separated fields with `\t`, `\n`,
 * `\\` and `\xHH` escapes; `#` lines are comments. Kinds:
 *   P  spec  name  channel  subdir  build  build_number
 *        conda parses spec to these fields (`-` for absent); the channel as
 *        conda's base URL: envlock's channel name N reads as
 *        https://conda.anaconda.org/N (REFERENCE: canonical channel URLs)
 *   R  spec  name  version  build  build_number  0|1
 *        whether conda's spec matches that record on those four fields
 *   X  spec  conda refuses the spec
 *   D  spec  conda accepts the spec and envlock refuses it by design
 *        (condaspec.h: the parts conda drops silently or reads otherwise)
 * Prints "conda_match: N passed, M failed" and exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_fields.h"
#include "condaspec.h"
#include "util.h"

#define MAXF 8

static size_t passed, failed;

static void check(size_t line, const char *kind, const char *spec, const char *want, const char *got)
{
    if (strcmp(want, got) == 0) {
        passed++;
        return;
    }
    failed++;
    if (failed <= 40)
        fprintf(stderr, "line %zu: %s `%s`: conda [%s] envlock [%s]\n", line, kind, spec, want, got);
}

static conda_matchspec *parse(const char *spec, char *why, size_t whylen)
{
    conda_error e = {0, NULL};
    conda_matchspec *ms = conda_matchspec_parse(spec, strlen(spec), &e);
    if (!ms)
        snprintf(why, whylen, "refused at %zu: %s", e.column, e.message ? e.message : "?");
    return ms;
}

static const char *or_dash(const char *s) { return s ? s : "-"; }

/* The channel as conda's base URL: a bare name lives under the default
 * channel alias, a URL is kept as given. */
static char *channel_url(const char *c)
{
    if (!c)
        return xstrdup("-");
    if (strstr(c, "://"))
        return xstrdup(c);
    return xasprintf("https://conda.anaconda.org/%s", c);
}

static void case_P(size_t line, char **f)
{
    char why[256];
    conda_matchspec *ms = parse(f[1], why, sizeof why);
    char *want = xasprintf("%s|%s|%s|%s|%s", f[2], f[3], f[4], f[5], f[6]);
    char *got;
    if (!ms) {
        got = xstrdup(why);
    } else {
        char *ch = channel_url(ms->channel);
        got = xasprintf("%s|%s|%s|%s|%s", or_dash(ms->name), ch, or_dash(ms->subdir),
                        or_dash(ms->build), or_dash(ms->build_number));
        free(ch);
    }
    check(line, "parse", f[1], want, got);
    free(want);
    free(got);
    conda_matchspec_free(ms);
}

static void case_R(size_t line, char **f)
{
    char why[256];
    conda_matchspec *ms = parse(f[1], why, sizeof why);
    const char *got = why;
    if (ms)
        got = conda_matchspec_match(ms, f[2], f[3], f[4], strtoull(f[5], NULL, 10)) ? "1" : "0";
    char *in = xasprintf("%s vs %s %s %s %s", f[1], f[2], f[3], f[4], f[5]);
    check(line, "match", in, f[6], got);
    free(in);
    conda_matchspec_free(ms);
}

static void case_refused(size_t line, char **f)
{
    char why[256];
    conda_matchspec *ms = parse(f[1], why, sizeof why);
    check(line, f[0][0] == 'X' ? "invalid" : "deliberate", f[1], "refused",
          ms ? "parsed" : "refused");
    conda_matchspec_free(ms);
}

static void run_line(size_t line, char *buf)
{
    char *f[MAXF];
    size_t nf = case_split(buf, f, MAXF);
    static const struct { const char *kind; size_t nf; void (*fn)(size_t, char **); } kinds[] = {
        {"P", 7, case_P}, {"R", 7, case_R}, {"X", 2, case_refused}, {"D", 2, case_refused},
    };
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].kind, f[0]) != 0)
        k++;
    if (k == sizeof kinds / sizeof kinds[0] || nf != kinds[k].nf) {
        fprintf(stderr, "line %zu: malformed case\n", line);
        failed++;
    } else {
        kinds[k].fn(line, f);
    }
    for (size_t i = 0; i < nf; i++)
        free(f[i]);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: conda_match_driver CASES\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    char *buf = NULL;
    size_t cap = 0, line = 0;
    ssize_t n;
    while ((n = getline(&buf, &cap, in)) >= 0) {
        line++;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0';
        if (n > 0 && buf[0] != '#')
            run_line(line, buf);
    }
    free(buf);
    fclose(in);
    printf("conda_match: %zu passed, %zu failed\n", passed, failed);
    return failed || !passed ? 1 : 0;
}

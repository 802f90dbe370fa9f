/* conda_virtual_driver.c — replays conda_virtual_cases.txt (conda's own
 * virtual-package plugins' answers, conda_virtual_answers.py) against
 * conda_virtual_packages(): for each target, the sorted
 * `name=version=build` list must be the same. Prints one line per
 * disagreement and a total; exit 1 on any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conda_index.h"

static const char *field(char *s)
{
    if (strcmp(s, "-") == 0)
        return NULL;
    if (strcmp(s, "''") == 0)
        return "";
    return s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The answer for one target, written as the case file writes conda's. */
static void ours(const conda_virtual_target *t, strbuf *out)
{
    arena *mem = arena_new();
    conda_virtual v[CONDA_VIRTUAL_MAX];
    const char *why = NULL;
    int n = conda_virtual_packages(t, mem, v, &why);
    if (n < 0) {
        sb_addf(out, "refused: %s", why);
        arena_free(mem);
        return;
    }
    char *items[CONDA_VIRTUAL_MAX];
    for (int i = 0; i < n; i++)
        items[i] = arena_sprintf(mem, "%s=%s=%s", v[i].name, v[i].version, v[i].build);
    qsort(items, (size_t)n, sizeof items[0], cmp_str);
    for (int i = 0; i < n; i++)
        sb_addf(out, "%s%s", i ? " " : "", items[i]);
    arena_free(mem);
}

int main(int argc, char **argv)
{
    FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        fprintf(stderr, "usage: conda_virtual_driver CASES\n");
        return 2;
    }
    char line[4096];
    size_t total = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        char *col[5], *save = NULL, *s = line;
        int k = 0;
        for (char *tok; k < 5 && (tok = strtok_r(s, "\t", &save)); s = NULL)
            col[k++] = tok;
        if (k != 5) {
            fprintf(stderr, "malformed case: %s\n", line);
            return 2;
        }
        conda_virtual_target t = {field(col[0]), field(col[1]), field(col[2]), field(col[3])};
        strbuf got = STRBUF_INIT;
        ours(&t, &got);
        total++;
        if (strcmp(got.buf, col[4]) != 0) {
            bad++;
            printf("%s|%s|%s|%s: conda %s, envlock %s\n", col[0], col[1], col[2], col[3], col[4],
                   got.buf);
        }
        sb_release(&got);
    }
    fclose(f);
    printf("%zu/%zu targets agree with conda's virtual packages\n", total - bad, total);
    return bad ? 1 : 0;
}

/* deb_batch.c — the C side of the differential tests: reads lines
 * "A<TAB>B" from stdin and prints, per line, "VA VB OURS SOLV": the verdicts
 * of deb_version_parse() for A and B (0 valid, 1 dpkg warns, 2 refused), our
 * comparison (-1/0/1, or "x" when either side is refused) and libsolv's
 * pool_evrcmp_str() on a Debian pool (-1/0/1). libsolv is linked here only;
 * the grammar library never uses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <solv/evr.h>
#include <solv/pool.h>

#include "debver.h"

static int sign(int x) { return (x > 0) - (x < 0); }

static char *trimmed(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return strndup(s, n);
}

int main(void)
{
    Pool *pool = pool_create();
    if (pool_setdisttype(pool, DISTTYPE_DEB) < 0) {
        fprintf(stderr, "libsolv was built without Debian support\n");
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab) {
            fprintf(stderr, "malformed line: %s\n", line);
            return 2;
        }
        *tab = '\0';
        const char *a = line, *b = tab + 1;
        deb_version va, vb;
        deb_verdict ra = deb_version_parse(a, strlen(a), &va, NULL);
        deb_verdict rb = deb_version_parse(b, strlen(b), &vb, NULL);
        /* libsolv takes versions as an index gives them: without the
         * surrounding blanks that dpkg (and deb_version_parse) trim. */
        char *ta = trimmed(a), *tb = trimmed(b);
        int solv = sign(pool_evrcmp_str(pool, ta, tb, EVRCMP_COMPARE));
        free(ta);
        free(tb);
        if (ra == DEB_REFUSED || rb == DEB_REFUSED)
            printf("%d %d x %d\n", ra, rb, solv);
        else
            printf("%d %d %d %d\n", ra, rb, deb_version_cmp(&va, &vb), solv);
    }
    free(line);
    pool_free(pool);
    return 0;
}

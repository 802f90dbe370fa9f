/* case_fields.h — the lines of the recorded case files the differential
 * drivers replay (tests/pypi, tests/conda): tab-separated fields, each
 * escaped as tests/pypi/gen_cases.py writes them (backslash, \t, \n, \r,
 * \xHH for other control bytes; UTF-8 passes through). */
#ifndef ENVLOCK_CASE_FIELDS_H
#define ENVLOCK_CASE_FIELDS_H

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* case_unescape() : s[0..n) with its escapes undone; caller frees. */
static inline char *case_unescape(const char *s, size_t n)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 >= n) {
            sb_addc(&sb, s[i]);
            continue;
        }
        char e = s[++i];
        if (e == 't')
            sb_addc(&sb, '\t');
        else if (e == 'n')
            sb_addc(&sb, '\n');
        else if (e == 'r')
            sb_addc(&sb, '\r');
        else if (e == 'x' && i + 2 < n) {
            char h[3] = { s[i + 1], s[i + 2], 0 };
            sb_addc(&sb, (char)strtol(h, NULL, 16));
            i += 2;
        } else
            sb_addc(&sb, e);
    }
    return sb_detach(&sb, NULL);
}

/* case_split() : the first `max` fields of the line `buf` (no newline),
 *  unescaped into f; returns their count. The caller frees each. */
static inline size_t case_split(const char *buf, char **f, size_t max)
{
    size_t nf = 0;
    for (const char *p = buf; nf < max;) {
        const char *tab = strchr(p, '\t');
        size_t n = tab ? (size_t)(tab - p) : strlen(p);
        f[nf++] = case_unescape(p, n);
        if (!tab)
            break;
        p = tab + 1;
    }
    return nf;
}

#endif

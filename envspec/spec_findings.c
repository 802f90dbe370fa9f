/* spec_findings.c — the list of findings a spec load collects: adding one
 * (strings copied into the load's arena), and ordering them by position for
 * reporting. Knows nothing about which rule produced a finding. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

void spec_findings_init(spec_findings *fs, arena *mem)
{
    fs->mem = mem;
    fs->items = NULL;
    fs->len = fs->alloc = 0;
}

void spec_findings_release(spec_findings *fs)
{
    free(fs->items);
    fs->items = NULL;
    fs->len = fs->alloc = 0;
}

static void add_v(spec_findings *fs, unsigned line, unsigned column, const char *field,
                  el_code code, const char *fmt, va_list ap)
{
    if (fs->len == fs->alloc) {
        fs->alloc = fs->alloc ? 2 * fs->alloc : 8;
        fs->items = xrealloc(fs->items, fs->alloc * sizeof *fs->items);
    }
    char *msg = xvasprintf(fmt, ap);
    fs->items[fs->len++] = (el_finding){
        .field = arena_strdup(fs->mem, field ? field : "(document)"),
        .line = line,
        .column = column,
        .code = code,
        .message = arena_strdup(fs->mem, msg),
    };
    free(msg);
}

void spec_finding_add(spec_findings *fs, const spec_node *at, const char *field, el_code code,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_v(fs, at ? at->line : 0, at ? at->column : 0, field, code, fmt, ap);
    va_end(ap);
}

void spec_finding_add_pos(spec_findings *fs, unsigned line, unsigned column, const char *field,
                          el_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_v(fs, line, column, field, code, fmt, ap);
    va_end(ap);
}

/* Position order: line, then column; findings without a position (line 0)
 * come after all positioned ones. Ties keep their order (the sort is
 * stable), so rule order survives among findings at one node. */
static bool before(const el_finding *a, const el_finding *b)
{
    if (a->line == 0 || b->line == 0)
        return a->line != 0 && b->line == 0;
    if (a->line != b->line)
        return a->line < b->line;
    return a->column < b->column;
}

void spec_findings_sort(spec_findings *fs)
{
    if (fs->len < 2)
        return;
    /* bottom-up merge sort for stability without quadratic worst cases */
    el_finding *tmp = xmalloc(fs->len * sizeof *tmp);
    el_finding *src = fs->items, *dst = tmp;
    for (size_t width = 1; width < fs->len; width *= 2) {
        for (size_t lo = 0; lo < fs->len; lo += 2 * width) {
            size_t mid = lo + width < fs->len ? lo + width : fs->len;
            size_t hi = lo + 2 * width < fs->len ? lo + 2 * width : fs->len;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        el_finding *t = src;
        src = dst;
        dst = t;
    }
    if (src != fs->items)
        memcpy(fs->items, src, fs->len * sizeof *tmp);
    free(tmp);
}

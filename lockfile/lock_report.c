/* lock_report.c — the changes `check` reports (lock.h, lock_report): the
 * text a person reads and the fields a tool reads, kept together so the
 * two cannot disagree. */
#include <stdarg.h>
#include <stdlib.h>

#include "lock.h"

/* The lock's strings are the lock author's: a control byte among them (a
 * newline would forge a line of its own) is written as \xNN. */
static char *escaped(const char *text)
{
    strbuf sb = STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            sb_addf(&sb, "\\x%02x", *p);
        else
            sb_addc(&sb, (char)*p);
    }
    return sb_detach(&sb, NULL);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void lock_report_add(lock_report *r, const char *kind, const char *path, const char *before,
                     const char *after, const char *fmt, ...)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        r->v = xrealloc(r->v, r->cap * sizeof *r->v);
    }
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    r->v[r->n++] = (lock_change){ .kind = xstrdup(kind), .path = dup_or_null(path),
                                  .before = dup_or_null(before), .after = dup_or_null(after),
                                  .text = escaped(text) };
    free(text);
}

char *lock_report_text(const lock_report *r)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->n; i++)
        sb_addf(&sb, "%s\n", r->v[i].text);
    return sb_detach(&sb, NULL);
}

void lock_report_release(lock_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].kind);
        free(r->v[i].path);
        free(r->v[i].before);
        free(r->v[i].after);
        free(r->v[i].text);
    }
    free(r->v);
    *r = (lock_report){ 0 };
}

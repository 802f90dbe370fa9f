/* alloc.c — allocation that aborts on exhaustion, strbuf, arena and ptrvec.
 * Out of memory is not an error envlock reports: like libsolv, it aborts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char sb_empty_[1] = "";

void xoom(size_t n)
{
    fprintf(stderr, "envlock: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        xoom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        xoom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        xoom(n);
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    strbuf sb = STRBUF_INIT;
    sb_vaddf(&sb, fmt, ap);
    return sb_detach(&sb, NULL);
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

/* ---- strbuf ---- */

void sb_init(strbuf *sb)
{
    sb->buf = (char *)sb_empty_;
    sb->len = 0;
    sb->alloc = 0;
}

void sb_grow(strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->alloc)
        return;
    size_t want = sb->alloc ? sb->alloc : 64;
    while (want < sb->len + extra + 1)
        want *= 2;
    if (sb->alloc == 0) {
        sb->buf = xmalloc(want);
        sb->buf[0] = '\0';
    } else {
        sb->buf = xrealloc(sb->buf, want);
    }
    sb->alloc = want;
}

void sb_add(strbuf *sb, const void *data, size_t n)
{
    if (n == 0)
        return;
    sb_grow(sb, n);
    memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_adds(strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_addc(strbuf *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_vaddf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n <= 0)
        return;
    sb_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_addf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_setlen(strbuf *sb, size_t len)
{
    if (sb->alloc == 0)
        return; /* still the shared empty string */
    if (len > sb->len)
        len = sb->len;
    sb->len = len;
    sb->buf[len] = '\0';
}

void sb_reset(strbuf *sb)
{
    sb_setlen(sb, 0);
}

char *sb_detach(strbuf *sb, size_t *len)
{
    char *r = sb->alloc ? sb->buf : xstrdup("");
    if (len)
        *len = sb->len;
    sb_init(sb);
    return r;
}

void sb_release(strbuf *sb)
{
    if (sb->alloc)
        free(sb->buf);
    sb_init(sb);
}

/* ---- arena ---- */

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

struct arena {
    struct arena_block *head;
};

arena *arena_new(void)
{
    return xcalloc(1, sizeof(arena));
}

void arena_free(arena *a)
{
    if (!a)
        return;
    struct arena_block *b = a->head;
    while (b) {
        struct arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(a);
}

void *arena_alloc(arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        /* blocks double from 4 KiB to 64 KiB: most arenas (a small
         * packument's, a request's) hold a few KiB, and a crawl keeps a
         * thousand of them */
        size_t size = !b ? 4096 : b->size < 65536 ? 2 * b->size : 65536;
        if (size < n)
            size = n;
        b = xmalloc(sizeof(*b) + size);
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_shown(arena *a, const char *s, size_t max)
{
    char *t = arena_strndup(a, s, strnlen(s, max));
    for (char *p = t; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            *p = '?';
    return t;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_trimmed(arena *a, const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return arena_strndup(a, s, n);
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_sprintf(arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *tmp = xvasprintf(fmt, ap);
    va_end(ap);
    char *r = arena_strdup(a, tmp);
    free(tmp);
    return r;
}

/* ---- ptrvec ---- */

void ptrvec_push(ptrvec *v, void *p)
{
    if (v->len == v->alloc) {
        v->alloc = v->alloc ? v->alloc * 2 : 16;
        v->items = xrealloc(v->items, v->alloc * sizeof(void *));
    }
    v->items[v->len++] = p;
}

void ptrvec_release(ptrvec *v)
{
    free(v->items);
    v->items = NULL;
    v->len = v->alloc = 0;
}

bool ptrvec_has_str(const ptrvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return true;
    return false;
}

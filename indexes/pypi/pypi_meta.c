/* pypi_meta.c — core metadata (the METADATA of a wheel, an sdist's PKG-INFO,
 * a PEP 658 `.metadata` file): RFC 822-style header fields.
 *
 * Follows what Python's email parser (which pip and packaging use) accepts:
 * headers up to the first empty line, continuation lines folded into the
 * previous field, and a line that is neither a header nor a continuation
 * ending the headers (the rest is body). Stricter in one way: the header
 * section must be UTF-8 without NULs, since a requirement read through a
 * wrong encoding is worse than a refused version. Knows no network. */
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

typedef struct field {
    const char *name;
    size_t name_len;
    strbuf value;
} field;

static bool name_char(unsigned char c)
{
    /* RFC 5322 ftext: printable ASCII except the colon. */
    return c >= 0x21 && c <= 0x7e && c != ':';
}

static char *trimmed(arena *a, const char *s, size_t n)
{
    while (n && (s[0] == ' ' || s[0] == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    return arena_strndup(a, s, n);
}

static void push(arena *a, const char ***vec, size_t *n, size_t *cap, const char *s)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        const char **nv = arena_alloc(a, ncap * sizeof *nv);
        if (*n)
            memcpy(nv, *vec, *n * sizeof *nv);
        *vec = nv;
        *cap = ncap;
    }
    (*vec)[(*n)++] = s;
}

static bool is(const field *f, const char *name)
{
    return strlen(name) == f->name_len && strncasecmp(f->name, name, f->name_len) == 0;
}

/* The header fields read so far. */
typedef struct fields {
    field *fs;
    size_t n, cap;
} fields;

/* One header line (no line end) into `fl`: a field, a continuation of the
 * last one, or the start of the body (*body). NULL, or why the line breaks
 * the format. */
static const char *header_line(fields *fl, const char *p, size_t ll, bool *body)
{
    if (memchr(p, '\0', ll))
        return "a NUL byte in the headers";
    if (!utf8_valid(p, ll))
        return "headers that are not UTF-8";
    if (ll == 0) {
        *body = true;
        return NULL;
    }
    if (p[0] == ' ' || p[0] == '\t') {
        if (fl->n == 0)
            return "a continuation line before any field";
        sb_add(&fl->fs[fl->n - 1].value, p, ll);
        return NULL;
    }
    size_t k = 0;
    while (k < ll && name_char((unsigned char)p[k]))
        k++;
    if (k == 0 || k == ll || p[k] != ':') {
        *body = true; /* not a header: the body starts here */
        return NULL;
    }
    if (fl->n == fl->cap) {
        fl->cap = fl->cap ? fl->cap * 2 : 16;
        fl->fs = xrealloc(fl->fs, fl->cap * sizeof *fl->fs);
    }
    field *f = &fl->fs[fl->n++];
    f->name = p;
    f->name_len = k;
    sb_init(&f->value);
    sb_add(&f->value, p + k + 1, ll - k - 1);
    return NULL;
}

/* The header section: up to an empty line or a line that is not a header.
 * NULL, or why not (*bad_line: where). */
static const char *read_headers(fields *fl, const char *p, const char *end, size_t *bad_line)
{
    size_t lineno = 0;
    bool body = false;
    while (p < end && !body) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t ll = (size_t)(le - p);
        if (ll && p[ll - 1] == '\r')
            ll--;
        lineno++;
        const char *why = header_line(fl, p, ll, &body);
        if (why) {
            *bad_line = lineno;
            return why;
        }
        p = nl ? nl + 1 : end;
    }
    return NULL;
}

/* The fields envlock uses into `out`; the others are ignored. */
static void apply_fields(arena *a, const fields *fl, pypi_core_meta *out)
{
    size_t cap_rd = 0, cap_pe = 0, cap_dy = 0, cap_lc = 0;
    for (size_t i = 0; i < fl->n; i++) {
        const field *f = &fl->fs[i];
        char *v = trimmed(a, f->value.buf, f->value.len);
        if (is(f, "Metadata-Version")) {
            out->metadata_version = v;
            char *e1;
            unsigned long mj = strtoul(v, &e1, 10);
            unsigned long mn = 0;
            if (*e1 == '.')
                mn = strtoul(e1 + 1, NULL, 10);
            out->mv_major = mj > 99 ? 99 : (unsigned)mj;
            out->mv_minor = mn > 99 ? 99 : (unsigned)mn;
        } else if (is(f, "Name")) {
            out->name = v;
        } else if (is(f, "Version")) {
            out->version = v;
        } else if (is(f, "Requires-Python")) {
            out->requires_python = v;
        } else if (is(f, "Summary")) {
            out->summary = v;
        } else if (is(f, "License-Expression") && *v) {
            out->license_expression = v;
        } else if (is(f, "License") && *v) {
            out->license = v;
        } else if (is(f, "Classifier") && strncmp(v, "License :: ", 11) == 0) {
            push(a, &out->license_classifiers, &out->n_license_classifiers, &cap_lc, v);
        } else if (is(f, "Requires-Dist") && *v) {
            push(a, &out->requires_dist, &out->n_requires_dist, &cap_rd, v);
        } else if (is(f, "Provides-Extra") && *v) {
            char *c = pypi_name_canonical(v);
            push(a, &out->provides_extra, &out->n_provides_extra, &cap_pe, arena_strdup(a, c));
            free(c);
        } else if (is(f, "Dynamic") && *v) {
            push(a, &out->dynamic, &out->n_dynamic, &cap_dy, v);
        }
    }
}

bool pypi_core_meta_parse(arena *a, const char *text, size_t len, pypi_core_meta *out, char **err)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    fields fl = { 0 };
    size_t bad_line = 0;
    const char *why = read_headers(&fl, p, end, &bad_line);
    if (!why) {
        apply_fields(a, &fl, out);
        if (!out->name || !out->name[0])
            why = "no Name field";
        else if (!out->version || !out->version[0])
            why = "no Version field";
    }
    for (size_t i = 0; i < fl.n; i++)
        sb_release(&fl.fs[i].value);
    free(fl.fs);
    if (why && err) {
        if (bad_line)
            *err = xasprintf("core metadata has %s (line %zu)", why, bad_line);
        else
            *err = xasprintf("core metadata has %s", why);
    }
    return !why;
}

bool pypi_core_meta_dynamic(const pypi_core_meta *m, const char *field_name)
{
    for (size_t i = 0; i < m->n_dynamic; i++)
        if (strcasecmp(m->dynamic[i], field_name) == 0)
            return true;
    return false;
}

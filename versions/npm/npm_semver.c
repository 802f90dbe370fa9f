/* npm_semver.c — npm versions: parsing (node-semver's SemVer constructor,
 * strict and loose), normalization, and the comparison functions
 * (compare, compareBuild, rcompare), plus the string-level cmp entry point
 * used by the public el_version_* API. Ranges live in npm_range.c.
 *
 * Values follow JavaScript where node-semver relies on it: version lengths
 * are counted in UTF-16 units, trimming removes Unicode whitespace, and
 * all-digit identifiers too large to be safe integers compare as doubles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "semver.h"
#include "semver_internal.h"

static void set_err(char **err, char *msg)
{
    if (err)
        *err = msg;
    else
        free(msg);
}

/* Value of a digit string, or false if it exceeds MAX_SAFE_INTEGER. */
static bool safe_value(const char *d, size_t len, uint64_t *out)
{
    while (len > 1 && *d == '0') {
        d++;
        len--;
    }
    if (len > 16)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++)
        v = v * 10 + (uint64_t)(d[i] - '0');
    if (v > NPM_MAX_SAFE_INTEGER)
        return false;
    *out = v;
    return true;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!npm_is_digit(*s))
            return false;
    return true;
}

void npm_semver_release(npm_semver *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->npre; i++)
        free((char *)v->pre[i].str);
    free(v->pre);
    for (size_t i = 0; i < v->nbuild; i++)
        free(v->build[i]);
    free(v->build);
    free(v->version);
    memset(v, 0, sizeof *v);
}

/* Split s[off, off+len) on '.' into malloc'd strings. */
static char **split_dots(const char *s, size_t off, size_t len, size_t *count)
{
    size_t k = 1;
    for (size_t i = 0; i < len; i++)
        if (s[off + i] == '.')
            k++;
    char **v = xcalloc(k, sizeof *v);
    size_t j = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[off + i] == '.') {
            v[j++] = xstrndup(s + off + start, i - start);
            start = i + 1;
        }
    }
    *count = k;
    return v;
}

int npm_semver_parse(npm_semver *out, const char *text, unsigned opts, char **err)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(text);
    if (npm_utf16_len(text, n) > NPM_SEMVER_MAX_LENGTH) {
        set_err(err, xasprintf("version is longer than %d characters", NPM_SEMVER_MAX_LENGTH));
        return -1;
    }
    size_t b, e;
    npm_trim(text, n, &b, &e);
    const char *s = text + b;
    size_t len = e - b;
    npm_plain_caps c;
    if (!npm_match_plain(s, len, 0, (opts & NPM_LOOSE) != 0, &c)) {
        set_err(err, xasprintf("Invalid Version: %s", text));
        return -1;
    }
    if (!safe_value(s + c.major.off, c.major.len, &out->major)) {
        set_err(err, xstrdup("Invalid major version"));
        return -1;
    }
    if (!safe_value(s + c.minor.off, c.minor.len, &out->minor)) {
        set_err(err, xstrdup("Invalid minor version"));
        return -1;
    }
    if (!safe_value(s + c.patch.off, c.patch.len, &out->patch)) {
        set_err(err, xstrdup("Invalid patch version"));
        return -1;
    }
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%llu.%llu.%llu", (unsigned long long)out->major, (unsigned long long)out->minor,
            (unsigned long long)out->patch);
    if (c.pre.set) {
        size_t k;
        char **ids = split_dots(s, c.pre.off, c.pre.len, &k);
        out->pre = xcalloc(k, sizeof *out->pre);
        out->npre = k;
        for (size_t i = 0; i < k; i++) {
            npm_ident *id = &out->pre[i];
            uint64_t v;
            id->digits = all_digits(ids[i]);
            if (id->digits && safe_value(ids[i], strlen(ids[i]), &v) && v < NPM_MAX_SAFE_INTEGER) {
                id->numeric = true;
                id->num = v;
                id->dval = (double)v;
                id->str = xasprintf("%llu", (unsigned long long)v);
                free(ids[i]);
            } else {
                id->dval = id->digits ? strtod(ids[i], NULL) : 0.0;
                id->str = ids[i];
            }
            sb_addc(&sb, i == 0 ? '-' : '.');
            sb_adds(&sb, id->str);
        }
        free(ids);
    }
    if (c.build.set)
        out->build = split_dots(s, c.build.off, c.build.len, &out->nbuild);
    out->version = sb_detach(&sb, NULL);
    return 0;
}

/* Strict equality of two identifiers as JavaScript values (`===`). */
static bool ident_same(const npm_ident *a, const npm_ident *b)
{
    if (a->numeric != b->numeric)
        return false;
    return a->numeric ? a->num == b->num : strcmp(a->str, b->str) == 0;
}

/* node-semver's compareIdentifiers: numbers below strings, all-digit
 * values numerically (as doubles), other strings by code unit. */
static int ident_cmp(const npm_ident *a, const npm_ident *b)
{
    if (a->numeric && b->numeric)
        return a->num < b->num ? -1 : a->num > b->num ? 1 : 0;
    if (a->digits && b->digits) {
        double x = a->dval, y = b->dval;
        return x == y ? 0 : x < y ? -1 : 1;
    }
    if (!a->numeric && !b->numeric && strcmp(a->str, b->str) == 0)
        return 0;
    if (a->digits && !b->digits)
        return -1;
    if (b->digits && !a->digits)
        return 1;
    return strcmp(a->str, b->str) < 0 ? -1 : 1;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b ? 1 : 0;
}

int npm_semver_compare(const npm_semver *a, const npm_semver *b)
{
    if (strcmp(a->version, b->version) == 0)
        return 0;
    int r = cmp_u64(a->major, b->major);
    if (!r)
        r = cmp_u64(a->minor, b->minor);
    if (!r)
        r = cmp_u64(a->patch, b->patch);
    if (r)
        return r;
    if (a->npre && !b->npre)
        return -1;
    if (!a->npre && b->npre)
        return 1;
    for (size_t i = 0;; i++) {
        if (i >= a->npre && i >= b->npre)
            return 0;
        if (i >= b->npre)
            return 1;
        if (i >= a->npre)
            return -1;
        if (ident_same(&a->pre[i], &b->pre[i]))
            continue;
        return ident_cmp(&a->pre[i], &b->pre[i]);
    }
}

static npm_ident build_ident(const char *s)
{
    npm_ident id = { s, false, all_digits(s), 0, 0.0 };
    if (id.digits)
        id.dval = strtod(s, NULL);
    return id;
}

int npm_semver_compare_build(const npm_semver *a, const npm_semver *b)
{
    int r = npm_semver_compare(a, b);
    if (r)
        return r;
    for (size_t i = 0;; i++) {
        if (i >= a->nbuild && i >= b->nbuild)
            return 0;
        if (i >= b->nbuild)
            return 1;
        if (i >= a->nbuild)
            return -1;
        if (strcmp(a->build[i], b->build[i]) == 0)
            continue;
        npm_ident x = build_ident(a->build[i]), y = build_ident(b->build[i]);
        return ident_cmp(&x, &y);
    }
}

int npm_semver_rcompare(const npm_semver *a, const npm_semver *b)
{
    return npm_semver_compare(b, a);
}

char *npm_valid(const char *text, unsigned opts)
{
    npm_semver v;
    if (npm_semver_parse(&v, text, opts, NULL) != 0)
        return NULL;
    char *r = v.version;
    v.version = NULL;
    npm_semver_release(&v);
    return r;
}

char *npm_clean(const char *text, unsigned opts)
{
    size_t b, e;
    npm_trim(text, strlen(text), &b, &e);
    while (b < e && (text[b] == '=' || text[b] == 'v'))
        b++;
    char *t = xstrndup(text + b, e - b);
    char *r = npm_valid(t, opts);
    free(t);
    return r;
}

int npm_version_cmp_str(const char *a, const char *b, int *cmp, char **err)
{
    npm_semver va, vb;
    char *msg = NULL;
    if (npm_semver_parse(&va, a, NPM_LOOSE, &msg) != 0) {
        set_err(err, xasprintf("not a valid npm version: %s", msg));
        free(msg);
        return -1;
    }
    if (npm_semver_parse(&vb, b, NPM_LOOSE, &msg) != 0) {
        npm_semver_release(&va);
        set_err(err, xasprintf("not a valid npm version: %s", msg));
        free(msg);
        return -2;
    }
    *cmp = npm_semver_compare(&va, &vb);
    npm_semver_release(&va);
    npm_semver_release(&vb);
    return 0;
}

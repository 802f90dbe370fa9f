/* deb_version.c — Debian version strings: parsing with dpkg's verdicts
 * (valid / warned / refused), dpkg's ordering, and single relations
 * ("OP VERSION") for deb_filter(). Knows nothing of relationship fields
 * (deb_relation.c) or of package indexes. Parsing never allocates: a
 * deb_version is a set of views into the caller's text. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "debver.h"

static bool is_blank(char c) { return c == ' ' || c == '\t'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }

static deb_verdict refuse(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return DEB_REFUSED;
}

static deb_verdict warn(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return DEB_WARNED;
}

deb_verdict deb_version_parse(const char *text, size_t len, deb_version *out, const char **why)
{
    if (memchr(text, '\0', len))
        return refuse(why, "version string contains a NUL byte");
    const char *p = text, *stop = text + len;
    while (p < stop && is_blank(*p))
        p++;
    if (p == stop)
        return refuse(why, "version string is empty");
    const char *end = p;
    while (end < stop && !is_blank(*end))
        end++;
    for (const char *q = end; q < stop; q++)
        if (!is_blank(*q))
            return refuse(why, "version string has embedded spaces");

    /* The first colon ends the epoch; later ones belong to the upstream part. */
    const char *colon = memchr(p, ':', (size_t)(end - p));
    out->epoch = 0;
    out->has_epoch = colon != NULL;
    if (colon) {
        /* dpkg words a non-digit start as "empty", a later one as "not number". */
        if (!is_digit(*p))
            return refuse(why, "epoch in version is empty");
        unsigned long epoch = 0;
        for (const char *q = p; q < colon; q++) {
            if (!is_digit(*q))
                return refuse(why, "epoch in version is not number");
            epoch = epoch * 10 + (unsigned long)(*q - '0');
            if (epoch > INT_MAX)
                return refuse(why, "epoch in version is too big");
        }
        /* dpkg words "1:" (nothing at all follows) differently from "1: "
         * (blanks follow, so the upstream part is empty); both are refused. */
        if (colon + 1 == stop)
            return refuse(why, "nothing after colon in version number");
        out->epoch = epoch;
        p = colon + 1;
    }

    /* The last hyphen separates the revision; earlier ones are upstream's. */
    const char *hyphen = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '-')
            hyphen = q;
    out->upstream = p;
    if (hyphen) {
        if (hyphen + 1 == end)
            return refuse(why, "revision number is empty");
        out->upstream_len = (size_t)(hyphen - p);
        out->revision = hyphen + 1;
        out->revision_len = (size_t)(end - hyphen - 1);
    } else {
        out->upstream_len = (size_t)(end - p);
        out->revision = end;
        out->revision_len = 0;
    }

    if (out->upstream_len == 0)
        return refuse(why, "version number is empty");
    if (!is_digit(out->upstream[0]))
        return warn(why, "version number does not start with digit");
    for (size_t i = 1; i < out->upstream_len; i++) {
        char c = out->upstream[i];
        if (!is_alnum(c) && !strchr(".-+~:", c))
            return warn(why, "invalid character in version number");
    }
    for (size_t i = 0; i < out->revision_len; i++) {
        char c = out->revision[i];
        if (!is_alnum(c) && !strchr(".+~", c))
            return warn(why, "invalid character in revision number");
    }
    return DEB_VALID;
}

bool deb_version_valid(const char *s)
{
    deb_version v;
    return deb_version_parse(s, strlen(s), &v, NULL) == DEB_VALID;
}

/* The sort weight of one character of a non-digit run; `at_end` stands for
 * the end of the part, which weighs like a digit (0) so that "1.0" < "1.0a"
 * but "1.0~rc" < "1.0". Bytes above 0x7f only occur in warned versions; they
 * weigh as dpkg's signed char does, so even those compare like dpkg. */
static int weight(const char *s, size_t i, size_t n)
{
    if (i >= n)
        return 0;
    char c = s[i];
    if (is_digit(c))
        return 0;
    if (is_alpha(c))
        return (unsigned char)c;
    if (c == '~')
        return -1;
    return (int)(signed char)c + 256;
}

static int sign(int x) { return (x > 0) - (x < 0); }

/* Compares one part (upstream or revision) of two versions. */
static int part_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    while (i < an || j < bn) {
        /* Non-digit run: character by character until both sides reach a
         * digit (or the end). Equal weights mean equal characters here. */
        while ((i < an && !is_digit(a[i])) || (j < bn && !is_digit(b[j]))) {
            int wa = weight(a, i, an), wb = weight(b, j, bn);
            if (wa != wb)
                return sign(wa - wb);
            i++;
            j++;
        }
        /* Digit run: numeric value, so drop leading zeros, then the longer
         * run is larger and equal lengths compare digit by digit. A missing
         * run counts as 0. */
        while (i < an && a[i] == '0')
            i++;
        while (j < bn && b[j] == '0')
            j++;
        size_t la = 0, lb = 0;
        while (i + la < an && is_digit(a[i + la]))
            la++;
        while (j + lb < bn && is_digit(b[j + lb]))
            lb++;
        if (la != lb)
            return la < lb ? -1 : 1;
        int c = memcmp(a + i, b + j, la);
        if (c)
            return sign(c);
        i += la;
        j += lb;
    }
    return 0;
}

int deb_version_cmp(const deb_version *a, const deb_version *b)
{
    if (a->epoch != b->epoch)
        return a->epoch < b->epoch ? -1 : 1;
    int c = part_cmp(a->upstream, a->upstream_len, b->upstream, b->upstream_len);
    if (c)
        return c;
    return part_cmp(a->revision, a->revision_len, b->revision, b->revision_len);
}

int deb_version_cmp_str(const char *a, const char *b, int *cmp, char **err)
{
    deb_version va, vb;
    const char *why = NULL;
    if (deb_version_parse(a, strlen(a), &va, &why) != DEB_VALID) {
        if (err)
            *err = xasprintf("not a Debian version: %s", why);
        return -1;
    }
    if (deb_version_parse(b, strlen(b), &vb, &why) != DEB_VALID) {
        if (err)
            *err = xasprintf("not a Debian version: %s", why);
        return -2;
    }
    *cmp = deb_version_cmp(&va, &vb);
    return 0;
}

const char *deb_op_name(deb_op op)
{
    switch (op) {
    case DEB_OP_LT: return "<<";
    case DEB_OP_LE: return "<=";
    case DEB_OP_EQ: return "=";
    case DEB_OP_GE: return ">=";
    case DEB_OP_GT: return ">>";
    case DEB_OP_ANY: break;
    }
    return "";
}

bool deb_op_holds(deb_op op, int cmp)
{
    switch (op) {
    case DEB_OP_LT: return cmp < 0;
    case DEB_OP_LE: return cmp <= 0;
    case DEB_OP_EQ: return cmp == 0;
    case DEB_OP_GE: return cmp >= 0;
    case DEB_OP_GT: return cmp > 0;
    case DEB_OP_ANY: break;
    }
    return true;
}

/* Reads an operator at *p (advancing past it). Returns false if none. */
static bool read_op(const char **p, deb_op *op, bool *deprecated)
{
    const char *s = *p;
    *deprecated = false;
    if (s[0] == '<' && s[1] == '<')
        *op = DEB_OP_LT, s += 2;
    else if (s[0] == '<' && s[1] == '=')
        *op = DEB_OP_LE, s += 2;
    else if (s[0] == '>' && s[1] == '>')
        *op = DEB_OP_GT, s += 2;
    else if (s[0] == '>' && s[1] == '=')
        *op = DEB_OP_GE, s += 2;
    else if (s[0] == '=')
        *op = DEB_OP_EQ, s += 1;
    else if (s[0] == '<')
        *op = DEB_OP_LE, *deprecated = true, s += 1;
    else if (s[0] == '>')
        *op = DEB_OP_GE, *deprecated = true, s += 1;
    else
        return false;
    *p = s;
    return true;
}

static int range_error(char **err, char *msg)
{
    if (err)
        *err = msg;
    else
        free(msg);
    return -1;
}

int deb_filter(const char *range, const char *const *versions, size_t n, bool *keep, char **err)
{
    const char *p = range, *e = range + strlen(range);
    while (p < e && is_blank(*p))
        p++;
    while (e > p && is_blank(e[-1]))
        e--;
    deb_op op = DEB_OP_ANY;
    deb_version want = {0};
    if (p < e) {
        if (*p == '(') {
            if (e[-1] != ')')
                return range_error(err, xstrdup("an opening `(` needs a closing `)`"));
            p++;
            e--;
            while (p < e && is_blank(*p))
                p++;
            while (e > p && is_blank(e[-1]))
                e--;
        } else if (e[-1] == ')') {
            return range_error(err, xstrdup("a closing `)` without an opening `(`"));
        }
        bool deprecated;
        /* read_op looks at most two bytes ahead; the text is NUL-terminated. */
        if (!read_op(&p, &op, &deprecated) || p > e)
            return range_error(err, xstrdup("expected an operator: <<, <=, =, >= or >>"));
        while (p < e && is_blank(*p))
            p++;
        if (p == e)
            return range_error(err, xasprintf("a version must follow `%s`",
                                                deprecated ? (op == DEB_OP_LE ? "<" : ">")
                                                           : deb_op_name(op)));
        const char *why = NULL;
        if (deb_version_parse(p, (size_t)(e - p), &want, &why) != DEB_VALID)
            return range_error(err, xasprintf("`%.*s` is not a Debian version: %s",
                                              (int)(e - p), p, why));
    }
    for (size_t i = 0; i < n; i++) {
        deb_version v;
        keep[i] = versions[i] &&
                  deb_version_parse(versions[i], strlen(versions[i]), &v, NULL) == DEB_VALID &&
                  deb_op_holds(op, op == DEB_OP_ANY ? 0 : deb_version_cmp(&v, &want));
    }
    return 0;
}

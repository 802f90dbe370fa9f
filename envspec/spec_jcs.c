/* spec_jcs.c — RFC 8785 JSON Canonicalization Scheme over json-c values:
 * the exact bytes the spec digest hashes. Owns ECMAScript number
 * formatting (Number.prototype.toString for doubles), the minimal string
 * escapes, and ordering object members by UTF-16 code units. It knows
 * nothing about the Environment schema; the model hands it a finished
 * normalized object. Refuses what JCS cannot express: NaN, infinities,
 * integers beyond 2^53 and strings that are not valid UTF-8. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "spec_internal.h"

/* The largest integer a double holds exactly; JCS (I-JSON) numbers beyond it
 * would not survive a round trip through an ECMAScript reader. */
#define JCS_MAX_SAFE 9007199254740992LL /* 2^53 */

/* ---- numbers ---- */

/* Writes the `prec`-significant-digit scientific form of d (d > 0) into
 * digits/exp: digits gets the bare digits (no point), exp the decimal
 * exponent of the first digit. */
static void sci_digits(double d, int prec, char digits[24], int *exp)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    size_t k = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[k++] = *p;
    digits[k] = '\0';
    *exp = (*p == 'e') ? atoi(p + 1) : 0;
}

static double digits_value(const char *digits, int exp)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%c.%se%d", digits[0], digits + 1, exp);
    return strtod(buf, NULL);
}

/* Moves a k-digit significand one unit in its last place up (delta +1) or
 * down (-1), keeping k digits: 9.99e4 + 1 unit is 1.00e5 and 1.00e5 - 1
 * unit is taken as the nearest k-digit value below, 9.99e4. */
static void digits_step(char *digits, int *exp, int delta)
{
    size_t k = strlen(digits);
    size_t i = k;
    while (i > 0) {
        i--;
        int v = digits[i] - '0' + delta;
        if (v >= 0 && v <= 9) {
            digits[i] = (char)('0' + v);
            break;
        }
        digits[i] = delta > 0 ? '0' : '9';
        if (i == 0 && delta > 0) { /* carried out of the top: 10..0, one place up */
            digits[0] = '1';
            (*exp)++;
            return;
        }
    }
    if (digits[0] == '0') { /* 10..0 - 1 unit: all nines, one place down */
        memset(digits, '9', k);
        (*exp)--;
    }
}

/* shortest() : the fewest significant digits (1..17) that read back as d
 * (d finite, > 0), choosing among equally short candidates the one nearest
 * d, as ECMAScript's Number::toString requires. snprintf gives the
 * correctly rounded k-digit value, which is the nearest; it can fail to
 * round-trip where its neighbour on the other side of d succeeds (at a
 * power of two the spacing of doubles below d is half the spacing above),
 * so that neighbour is tried too. The neighbour beyond the correctly
 * rounded value cannot succeed when it did not. Trailing zeros dropped. */
static void shortest(double d, char digits[24], int *exp)
{
    for (int prec = 1; prec <= 17; prec++) {
        int e;
        sci_digits(d, prec, digits, &e);
        double c = digits_value(digits, e);
        if (c == d) {
            *exp = e;
            goto trim;
        }
        char alt[24];
        int ae = e;
        memcpy(alt, digits, sizeof alt);
        digits_step(alt, &ae, c > d ? -1 : 1);
        if (digits_value(alt, ae) == d) {
            memcpy(digits, alt, sizeof alt);
            *exp = ae;
            goto trim;
        }
    }
    /* 17 digits always round-trip; not reached. */
    sci_digits(d, 17, digits, exp);
trim:;
    size_t k = strlen(digits);
    while (k > 1 && digits[k - 1] == '0')
        digits[--k] = '\0';
}

bool spec_jcs_number(double d, char out[32])
{
    if (isnan(d) || isinf(d))
        return false;
    if (d == 0) { /* both zeros print as 0 */
        snprintf(out, 32, "0");
        return true;
    }
    size_t o = 0;
    if (d < 0) {
        out[o++] = '-';
        d = -d;
    }
    char digits[24];
    int e;
    shortest(d, digits, &e);
    int k = (int)strlen(digits);
    int n = e + 1; /* the decimal point sits after n digits */
    if (k <= n && n <= 21) {
        /* an integer: the digits then n-k zeros */
        memcpy(out + o, digits, (size_t)k);
        o += (size_t)k;
        for (int i = 0; i < n - k; i++)
            out[o++] = '0';
    } else if (0 < n && n <= 21) {
        memcpy(out + o, digits, (size_t)n);
        o += (size_t)n;
        out[o++] = '.';
        memcpy(out + o, digits + n, (size_t)(k - n));
        o += (size_t)(k - n);
    } else if (-6 < n && n <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -n; i++)
            out[o++] = '0';
        memcpy(out + o, digits, (size_t)k);
        o += (size_t)k;
    } else {
        out[o++] = digits[0];
        if (k > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, (size_t)(k - 1));
            o += (size_t)(k - 1);
        }
        o += (size_t)snprintf(out + o, 32 - o, "e%c%d", e < 0 ? '-' : '+', e < 0 ? -e : e);
        return true;
    }
    out[o] = '\0';
    return true;
}

/* ---- strings ---- */

/* Appends s as a JCS string literal; false if s is not valid UTF-8. */
static bool put_string(strbuf *sb, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    sb_addc(sb, '"');
    size_t i = 0;
    while (i < n) {
        size_t start = i;
        unsigned cp;
        if (!utf8_next(u, n, &i, &cp))
            return false;
        switch (cp) {
        case '"': sb_adds(sb, "\\\""); break;
        case '\\': sb_adds(sb, "\\\\"); break;
        case '\b': sb_adds(sb, "\\b"); break;
        case '\f': sb_adds(sb, "\\f"); break;
        case '\n': sb_adds(sb, "\\n"); break;
        case '\r': sb_adds(sb, "\\r"); break;
        case '\t': sb_adds(sb, "\\t"); break;
        default:
            if (cp < 0x20)
                sb_addf(sb, "\\u%04x", cp);
            else
                sb_add(sb, s + start, i - start);
        }
    }
    sb_addc(sb, '"');
    return true;
}

/* ---- object member order ---- */

typedef struct member {
    const char *key;
    size_t key_len;
    struct json_object *value;
    uint16_t *u16; /* the key in UTF-16 code units */
    size_t u16_len;
} member;

/* Converts a UTF-8 key to UTF-16 code units (malloc'd); false if invalid. */
static bool to_utf16(const char *s, size_t n, uint16_t **out, size_t *out_len)
{
    uint16_t *u = xmalloc((n + 1) * sizeof *u); /* never more units than bytes */
    size_t len = 0, i = 0;
    while (i < n) {
        unsigned cp;
        if (!utf8_next((const unsigned char *)s, n, &i, &cp)) {
            free(u);
            return false;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            u[len++] = (uint16_t)(0xD800 | (cp >> 10));
            u[len++] = (uint16_t)(0xDC00 | (cp & 0x3FF));
        } else {
            u[len++] = (uint16_t)cp;
        }
    }
    *out = u;
    *out_len = len;
    return true;
}

static int member_cmp(const void *pa, const void *pb)
{
    const member *a = pa, *b = pb;
    size_t n = a->u16_len < b->u16_len ? a->u16_len : b->u16_len;
    for (size_t i = 0; i < n; i++)
        if (a->u16[i] != b->u16[i])
            return a->u16[i] < b->u16[i] ? -1 : 1;
    return (a->u16_len > b->u16_len) - (a->u16_len < b->u16_len);
}

/* ---- the walk ---- */

static bool put_value(strbuf *sb, const struct json_object *v, char **err, int depth);

static bool put_object(strbuf *sb, const struct json_object *v, char **err, int depth)
{
    struct json_object *obj = (struct json_object *)v; /* json-c's iteration is not const */
    size_t n = (size_t)json_object_object_length(obj);
    member *m = xcalloc(n ? n : 1, sizeof *m);
    size_t k = 0;
    bool ok = true;
    json_object_object_foreach(obj, key, val)
    {
        m[k].key = key;
        m[k].key_len = strlen(key);
        m[k].value = val;
        if (!to_utf16(key, m[k].key_len, &m[k].u16, &m[k].u16_len)) {
            *err = xasprintf("object key is not valid UTF-8");
            ok = false;
            break;
        }
        k++;
    }
    if (ok) {
        qsort(m, k, sizeof *m, member_cmp);
        sb_addc(sb, '{');
        for (size_t i = 0; i < k && ok; i++) {
            if (i)
                sb_addc(sb, ',');
            put_string(sb, m[i].key, m[i].key_len); /* validated above */
            sb_addc(sb, ':');
            ok = put_value(sb, m[i].value, err, depth + 1);
        }
        sb_addc(sb, '}');
    }
    for (size_t i = 0; i < k; i++)
        free(m[i].u16);
    free(m);
    return ok;
}

static bool put_value(strbuf *sb, const struct json_object *v, char **err, int depth)
{
    if (depth > 1000) { /* json-c's own parser stops far earlier */
        *err = xasprintf("value nested too deeply");
        return false;
    }
    switch (json_object_get_type(v)) {
    case json_type_null:
        sb_adds(sb, "null");
        return true;
    case json_type_boolean:
        sb_adds(sb, json_object_get_boolean(v) ? "true" : "false");
        return true;
    case json_type_int: {
        /* json-c keeps integers as int64 or, above INT64_MAX, uint64 */
        if (json_object_get_int64(v) == INT64_MAX) {
            uint64_t u = json_object_get_uint64(v);
            if (u > (uint64_t)JCS_MAX_SAFE) {
                *err = xasprintf("integer %llu is beyond 2^53", (unsigned long long)u);
                return false;
            }
        }
        int64_t i = json_object_get_int64(v);
        if (i > JCS_MAX_SAFE || i < -JCS_MAX_SAFE) {
            *err = xasprintf("integer %lld is beyond 2^53", (long long)i);
            return false;
        }
        sb_addf(sb, "%lld", (long long)i);
        return true;
    }
    case json_type_double: {
        char num[32];
        double d = json_object_get_double(v);
        if (!spec_jcs_number(d, num)) {
            *err = xasprintf("%s is not a JSON number", isnan(d) ? "NaN" : "Infinity");
            return false;
        }
        sb_adds(sb, num);
        return true;
    }
    case json_type_string: {
        const char *s = json_object_get_string((struct json_object *)v);
        size_t n = (size_t)json_object_get_string_len(v);
        if (!put_string(sb, s, n)) {
            *err = xasprintf("string is not valid UTF-8");
            return false;
        }
        return true;
    }
    case json_type_array: {
        size_t n = json_object_array_length(v);
        sb_addc(sb, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_addc(sb, ',');
            if (!put_value(sb, json_object_array_get_idx(v, i), err, depth + 1))
                return false;
        }
        sb_addc(sb, ']');
        return true;
    }
    case json_type_object:
        return put_object(sb, v, err, depth);
    }
    *err = xasprintf("unknown JSON value type");
    return false;
}

char *spec_jcs_serialize(const struct json_object *value, char **err)
{
    strbuf sb = STRBUF_INIT;
    char *e = NULL;
    if (!put_value(&sb, value, &e, 0)) {
        sb_release(&sb);
        if (err)
            *err = e;
        else
            free(e);
        return NULL;
    }
    if (err)
        *err = NULL;
    return sb_detach(&sb, NULL);
}

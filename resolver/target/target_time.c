/* target_time.c — the --exclude-newer cutoff: an RFC 3339 instant, a date,
 * or a span back from now, normalized to one absolute UTC instant in whole
 * seconds. This file owns only the parsing and the calendar arithmetic (no
 * timegm(): it is not C11 and depends on the C library's leap handling). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "target.h"

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static bool leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * civil-from-days inverse, valid for every year we accept). */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* RFC 3339 date-time or full-date; true with *t in seconds since the epoch. */
static bool parse_instant(const char *s, int64_t *t)
{
    int y, mo, d, h = 0, mi = 0, se = 0;
    size_t n = strlen(s);
    if (n < 10 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d))
        return false;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
        return false;
    const char *p = s + 10;
    int64_t off = 0;
    if (*p) {
        if (!(*p == 'T' || *p == 't' || *p == ' ') || strlen(p) < 9 || !digits(p + 1, 2, &h) ||
            p[3] != ':' || !digits(p + 4, 2, &mi) || p[6] != ':' || !digits(p + 7, 2, &se))
            return false;
        /* A leap second (:60) is refused: no index publishes one. */
        if (h > 23 || mi > 59 || se > 59)
            return false;
        p += 9;
        if (*p == '.') {
            p++;
            if (!isdigit((unsigned char)*p))
                return false;
            while (isdigit((unsigned char)*p))
                p++;
        }
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int oh, om;
            if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 ||
                om > 59)
                return false;
            off = (int64_t)(oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
            p += 6;
        } else {
            return false;
        }
        if (*p)
            return false;
    }
    *t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    return true;
}

/* "7d", "12h", "1w2d", "90m", "30s": true with *secs. */
static bool parse_span(const char *s, int64_t *secs)
{
    int64_t total = 0;
    if (!*s)
        return false;
    while (*s) {
        if (!isdigit((unsigned char)*s))
            return false;
        int64_t v = 0;
        while (isdigit((unsigned char)*s)) {
            v = v * 10 + (*s++ - '0');
            if (v > 100000000) /* three thousand years of seconds is plenty */
                return false;
        }
        int64_t unit;
        switch (*s++) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        case 'w': unit = 7 * 86400; break;
        default: return false;
        }
        total += v * unit;
    }
    *secs = total;
    return true;
}

el_code target_time_normalize(el_ctx *ctx, const char *text, int64_t now, char out[32])
{
    int64_t t, span;
    out[0] = '\0';
    if (text && parse_instant(text, &t)) {
        /* t as given */
    } else if (text && parse_span(text, &span) && now - span >= 0) {
        t = now - span;
    } else {
        el_fail(ctx, EL_USAGE,
                "--exclude-newer `%s` is neither an RFC 3339 date-time (2026-09-14T15:00:00Z), "
                "a date (2026-09-14) nor a span back from now (7d, 12h, 1w2d)",
                text ? text : "");
        el_detail_str(ctx, "option", "--exclude-newer");
        el_detail_str(ctx, "value", text ? text : "");
        return EL_USAGE;
    }
    if (t < 0) {
        el_fail(ctx, EL_USAGE, "--exclude-newer `%s` is before 1970", text);
        el_detail_str(ctx, "option", "--exclude-newer");
        el_detail_str(ctx, "value", text);
        return EL_USAGE;
    }
    int64_t days = t / 86400, rem = t % 86400;
    int y, m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, (int)(rem / 3600),
             (int)(rem / 60 % 60), (int)(rem % 60));
    return EL_OK;
}

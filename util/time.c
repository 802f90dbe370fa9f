/* time.c — RFC 3339 instants and proleptic Gregorian day arithmetic, shared
 * by every reader of a timestamp (PyPI upload-time, npm `time`, the
 * --exclude-newer cutoff). No timegm(): it is not C11, and its leap handling
 * belongs to the C library. */
#include <stdio.h>
#include <ctype.h>
#include <string.h>

#include "util.h"

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

static bool leap_year(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (m < 1 || m > 12)
        return 0;
    return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* Howard Hinnant's days-from-civil, valid for every year a 4-digit field holds. */
int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int *y, int *m, int *d)
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

bool rfc3339_parse(const char *s, unsigned flags, int64_t *ms)
{
    int y, mo, d, h = 0, mi = 0, se = 0;
    if (!s || strlen(s) < 10 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) ||
        s[7] != '-' || !digits(s + 8, 2, &d))
        return false;
    if (d < 1 || d > days_in_month(y, mo))
        return false;
    const char *p = s + 10;
    int64_t frac_ms = 0, off = 0;
    if (*p == '\0') {
        if (!(flags & RFC3339_DATE_OK))
            return false;
    } else {
        if (!(*p == 'T' || *p == 't' || *p == ' ') || !digits(p + 1, 2, &h) || p[3] != ':' ||
            !digits(p + 4, 2, &mi))
            return false;
        p += 6;
        if (*p == ':') {
            if (!digits(p + 1, 2, &se))
                return false;
            p += 3;
        } else if (!(flags & RFC3339_NO_SECONDS_OK)) {
            return false;
        }
        if (h > 23 || mi > 59 || se > ((flags & RFC3339_LEAP_SECOND_OK) ? 60 : 59))
            return false;
        if (*p == '.') {
            p++;
            int n = 0;
            for (; isdigit((unsigned char)*p); p++, n++)
                if (n < 3)
                    frac_ms = frac_ms * 10 + (*p - '0');
            if (n == 0)
                return false;
            for (; n < 3; n++)
                frac_ms *= 10;
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
            return false; /* a local time names no instant */
        }
        if (*p)
            return false;
    }
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    *ms = secs * 1000 + frac_ms;
    return true;
}

void utc_format(int64_t s, const char *zone, char out[32])
{
    int64_t days = s / 86400 - (s % 86400 < 0);
    int64_t sod = s - days * 86400;
    int y, m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02d%s", y, m, d, (int)(sod / 3600),
             (int)(sod / 60 % 60), (int)(sod % 60), zone);
}

bool span_parse(const char *s, int64_t *secs)
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

/* base_time.c — the --exclude-newer cutoff: an RFC 3339 instant, a date,
 * or a span back from now, normalized to one absolute UTC instant in whole
 * seconds. This file owns the cutoff's forms; RFC 3339, spans and the
 * calendar arithmetic are util's (time.c). */
#include <stdio.h>
#include <string.h>

#include "base.h"

/* RFC 3339 date-time or full-date; true with *t in seconds since the epoch. */
static bool parse_instant(const char *s, int64_t *t)
{
    int64_t ms;
    /* A leap second (:60) is refused: no index publishes one; nor a year
     * before 1970, which no index has. */
    if (!rfc3339_parse(s, RFC3339_DATE_OK, &ms) || strncmp(s, "1970", 4) < 0)
        return false;
    /* floor, not truncation: an instant before the epoch stays before it */
    *t = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    return true;
}

el_code target_time_normalize(el_ctx *ctx, const char *text, int64_t now, char out[32])
{
    int64_t t, span;
    out[0] = '\0';
    if (text && parse_instant(text, &t)) {
        /* t as given */
    } else if (text && span_parse(text, &span) && now - span >= 0) {
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
    utc_format(t, "Z", out);
    return EL_OK;
}

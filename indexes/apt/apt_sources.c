/* apt_sources.c — what a source means to the apt reader beyond its syntax
 * (whose one owner is versions/deb/deb_sources.c): snapshot.debian.org
 * URIs and --exclude-newer. */
#include <string.h>

#include "apt_index.h"

/* ---- snapshot.debian.org and --exclude-newer ---- */

long apt_snapshot_stamp_at(const char *uri, size_t len)
{
    const char *p = NULL;
    if (len > 8 && strncmp(uri, "https://", 8) == 0)
        p = uri + 8;
    else if (len > 7 && strncmp(uri, "http://", 7) == 0)
        p = uri + 7;
    const char *end = uri + len;
    static const char host[] = "snapshot.debian.org/archive/";
    if (!p || (size_t)(end - p) < sizeof host - 1 || strncmp(p, host, sizeof host - 1) != 0)
        return -1;
    p += sizeof host - 1;
    while (p < end && *p != '/')
        p++; /* the archive name */
    if (p == end || p + 17 > end)
        return -1;
    p++;
    for (int i = 0; i < 16; i++) {
        bool want_digit = i != 8 && i != 15;
        char c = p[i];
        if (want_digit ? !(c >= '0' && c <= '9') : c != (i == 8 ? 'T' : 'Z'))
            return -1;
    }
    if (p + 16 < end && p[16] != '/')
        return -1;
    return (long)(p - uri);
}

const char *apt_source_at_cutoff(const char *line, const char *cutoff, arena *a)
{
    /* "2024-03-15T00:00:00Z" -> "20240315T000000Z" */
    char stamp[32];
    size_t k = 0;
    for (const char *c = cutoff; c && *c && k + 1 < sizeof stamp; c++)
        if (*c != '-' && *c != ':')
            stamp[k++] = *c;
    stamp[k] = '\0';
    size_t off, len;
    if (k != 16 || !deb_source_uri_span(line, &off, &len))
        return line;
    long at = apt_snapshot_stamp_at(line + off, len);
    if (at < 0 || memcmp(line + off + at, stamp, 16) <= 0)
        return line; /* not a snapshot, or already at or before the cutoff */
    char *out = arena_strdup(a, line);
    memcpy(out + off + at, stamp, 16);
    return out;
}

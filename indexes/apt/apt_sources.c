/* apt_sources.c — one-line sources.list entries ("deb [opts] URI SUITE
 * COMPONENT...") as sources.list(5) defines them. Owns only the syntax: what
 * a source means (fetching, trust) is apt_index_load.c's. */
#include <stdarg.h>
#include <string.h>

#include "apt_index.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* next_word() : the next blank-separated word of *p, advancing *p; NULL at
 *  the end. */
static char *next_word(arena *a, const char **p)
{
    const char *s = *p;
    while (is_blank(*s))
        s++;
    if (!*s) {
        *p = s;
        return NULL;
    }
    const char *e = s;
    while (*e && !is_blank(*e))
        e++;
    *p = e;
    return arena_strndup(a, s, (size_t)(e - s));
}

static bool word_ok(const char *w)
{
    for (const char *s = w; *s; s++)
        if ((unsigned char)*s < 0x21 || (unsigned char)*s == 0x7f)
            return false;
    return true;
}

static int bad(char **err, const char *fmt, ...) EL_PRINTF(2, 3);
static int bad(char **err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        *err = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* split_list() : "a,b,c" into a NULL-free array in `a`; empty items refused. */
static int split_list(arena *a, const char *v, const char *const **out, size_t *n)
{
    size_t count = 1;
    for (const char *s = v; *s; s++)
        count += *s == ',';
    const char **items = arena_alloc(a, count * sizeof *items);
    size_t k = 0;
    const char *s = v;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 0)
            return -1;
        items[k++] = arena_strndup(a, s, len);
        if (!e)
            break;
        s = e + 1;
    }
    *out = items;
    *n = k;
    return 0;
}

static int yes_no(const char *v, bool *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) {
        *out = false;
        return 0;
    }
    return -1;
}

/* parse_option() : one "key=value" (also "key+=value"/"key-=value", which
 *  apt allows for lists; we take them as "=") of the bracketed list. */
static int parse_option(arena *a, const char *opt, apt_source *out, char **err)
{
    const char *eq = strchr(opt, '=');
    if (!eq || eq == opt)
        return bad(err, "option `%s` is not key=value", opt);
    size_t klen = (size_t)(eq - opt);
    if (opt[klen - 1] == '+' || opt[klen - 1] == '-')
        klen--;
    if (klen == 0)
        return bad(err, "option `%s` is not key=value", opt);
    char *key = arena_strndup(a, opt, klen);
    const char *val = eq + 1;
    if (!*val)
        return bad(err, "option `%s` has an empty value", key);
    if (!strcmp(key, "arch")) {
        if (split_list(a, val, &out->arches, &out->n_arches) < 0)
            return bad(err, "arch=%s has an empty architecture", val);
    } else if (!strcmp(key, "signed-by")) {
        if (strncmp(val, "-----BEGIN", 10) == 0)
            return bad(err, "%s", "signed-by with an inline key is not supported; name a keyring file");
        if (strchr(val, ','))
            return bad(err, "signed-by=%s: fingerprints are not supported; name one keyring file", val);
        out->signed_by = arena_strdup(a, val);
    } else if (!strcmp(key, "trusted")) {
        if (yes_no(val, &out->trusted) < 0)
            return bad(err, "trusted=%s is neither yes nor no", val);
    } else if (!strcmp(key, "check-valid-until")) {
        bool b;
        if (yes_no(val, &b) < 0)
            return bad(err, "check-valid-until=%s is neither yes nor no", val);
        out->check_valid_until = b;
    } else if (!strcmp(key, "lang") || !strcmp(key, "target") || !strcmp(key, "pdiffs") ||
               !strcmp(key, "by-hash") || !strcmp(key, "allow-insecure") ||
               !strcmp(key, "allow-weak") || !strcmp(key, "allow-downgrade-to-insecure") ||
               !strcmp(key, "check-date") || !strcmp(key, "date-max-future") ||
               !strcmp(key, "inrelease-path") || !strcmp(key, "snapshot")) {
        /* apt's other options: nothing envlock does depends on them */
    } else {
        return bad(err, "unknown option `%s`", key);
    }
    return 0;
}

int apt_source_parse(const char *line, arena *a, apt_source *out, char **err)
{
    memset(out, 0, sizeof *out);
    out->check_valid_until = -1;
    if (err)
        *err = NULL;
    if (!line)
        return bad(err, "%s", "empty entry");
    const char *p = line;
    while (is_blank(*p))
        p++;
    size_t n = strlen(p);
    while (n && (is_blank(p[n - 1]) || p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    char *trimmed = arena_strndup(a, p, n);
    out->line = trimmed;
    if (strchr(trimmed, '\n') || strchr(trimmed, '\r'))
        return bad(err, "%s", "an entry is one line");
    if (!utf8_valid(trimmed, n))
        return bad(err, "%s", "not UTF-8");
    p = trimmed;
    char *type = next_word(a, &p);
    if (!type)
        return bad(err, "%s", "empty entry");
    if (!strcmp(type, "deb-src"))
        return bad(err, "%s", "deb-src entries name source packages; envlock reads binary (deb) entries");
    if (strcmp(type, "deb") != 0)
        return bad(err, "entry starts with `%s`, not `deb`", type);
    while (is_blank(*p))
        p++;
    if (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close)
            return bad(err, "%s", "option list `[` is not closed by `]`");
        char *opts = arena_strndup(a, p + 1, (size_t)(close - p - 1));
        p = close + 1;
        if (*p && !is_blank(*p))
            return bad(err, "%s", "no blank after the option list's `]`");
        const char *q = opts;
        char *opt;
        while ((opt = next_word(a, &q)) != NULL)
            if (parse_option(a, opt, out, err) < 0)
                return -1;
    }
    char *uri = next_word(a, &p);
    if (!uri)
        return bad(err, "%s", "no URI");
    if (!word_ok(uri))
        return bad(err, "URI `%s` has a control character", uri);
    if (strncmp(uri, "http://", 7) != 0 && strncmp(uri, "https://", 8) != 0 &&
        strncmp(uri, "file:/", 6) != 0)
        return bad(err, "URI `%s` is not http://, https:// or file:", uri);
    const char *host = strstr(uri, "://");
    if (strncmp(uri, "file:", 5) != 0 && (!host || !host[3] || host[3] == '/'))
        return bad(err, "URI `%s` has no host", uri);
    size_t ul = strlen(uri);
    out->uri = uri[ul - 1] == '/' ? uri : arena_sprintf(a, "%s/", uri);
    char *suite = next_word(a, &p);
    if (!suite)
        return bad(err, "%s", "no suite (e.g. `bookworm`, or `./` for a flat repository)");
    if (!word_ok(suite) || strstr(suite, "..") || suite[0] == '/')
        return bad(err, "suite `%s` is not a plain name or relative directory", suite);
    out->suite = suite;
    ptrvec comps = PTRVEC_INIT;
    char *w;
    while ((w = next_word(a, &p)) != NULL) {
        if (!word_ok(w) || strchr(w, '.') == w || strstr(w, ".."))
            goto bad_comp;
        ptrvec_push(&comps, w);
    }
    size_t sl = strlen(suite);
    if (suite[sl - 1] == '/') {
        if (comps.len) {
            ptrvec_release(&comps);
            return bad(err, "flat repository `%s` takes no components", suite);
        }
        out->flat = true;
        return 0;
    }
    if (comps.len == 0) {
        ptrvec_release(&comps);
        return bad(err, "suite `%s` needs at least one component (e.g. `main`)", suite);
    }
    const char **c = arena_alloc(a, comps.len * sizeof *c);
    memcpy(c, comps.items, comps.len * sizeof *c);
    out->components = c;
    out->n_components = comps.len;
    ptrvec_release(&comps);
    return 0;
bad_comp:
    ptrvec_release(&comps);
    return bad(err, "component `%s` is not a plain name", w);
}

/* ---- snapshot.debian.org and --exclude-newer ---- */

/* The URI of a one-line source ("deb [opts] URI SUITE COMP..."): its
 * offset and length in `line`, or false. */
static bool source_uri(const char *line, size_t *off, size_t *len)
{
    const char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "deb", 3) != 0 || (s[3] != ' ' && s[3] != '\t'))
        return false;
    s += 3;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '[') {
        const char *close = strchr(s, ']');
        if (!close)
            return false;
        s = close + 1;
        while (*s == ' ' || *s == '\t')
            s++;
    }
    size_t n = strcspn(s, " \t");
    if (!n)
        return false;
    *off = (size_t)(s - line);
    *len = n;
    return true;
}

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
    if (k != 16 || !source_uri(line, &off, &len))
        return line;
    long at = apt_snapshot_stamp_at(line + off, len);
    if (at < 0 || memcmp(line + off + at, stamp, 16) <= 0)
        return line; /* not a snapshot, or already at or before the cutoff */
    char *out = arena_strdup(a, line);
    memcpy(out + off + at, stamp, 16);
    return out;
}

/* cache_mirror.c — the canonical-prefix → mirror table (from options, the
 * ENVLOCK_MIRRORS variable and the mirrors file; precedence documented in
 * include/envlock/cache.h), URL rewriting both ways, credential redaction
 * RFC 3986 reference resolution (cache_url_join) and the choice of the cache
 * directory. Pure string work: no I/O except reading the mirrors file. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache.h"

typedef struct mirror {
    char *canonical; /* without trailing '/' */
    char *target;    /* without trailing '/' */
} mirror;

struct cache_mirrors {
    mirror *items;
    size_t len;
};

static bool scheme_ok(const char *u)
{
    return strncmp(u, "https://", 8) == 0 || strncmp(u, "http://", 7) == 0 ||
           strncmp(u, "file://", 7) == 0;
}

static char *strip_slash(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] == '/')
        n--;
    return xstrndup(s, n);
}

/* Adds one "CANONICAL=URL" pair unless CANONICAL is already present (earlier
 * sources take precedence). false if malformed. */
static bool add_pair(cache_mirrors *m, const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n);
    if (!eq)
        return false;
    const char *t = eq + 1, *end = s + n, *ce = eq;
    while (s < ce && isspace((unsigned char)*s))
        s++;
    while (ce > s && isspace((unsigned char)ce[-1]))
        ce--;
    while (t < end && isspace((unsigned char)*t))
        t++;
    while (end > t && isspace((unsigned char)end[-1]))
        end--;
    char *canon = strip_slash(s, (size_t)(ce - s));
    char *target = strip_slash(t, (size_t)(end - t));
    bool ok = scheme_ok(canon) && scheme_ok(target) && strlen(canon) > 8 && strlen(target) > 7;
    if (ok) {
        for (size_t i = 0; i < m->len; i++) {
            if (strcmp(m->items[i].canonical, canon) == 0) {
                free(canon);
                free(target);
                return true;
            }
        }
        m->items = xrealloc(m->items, (m->len + 1) * sizeof *m->items);
        m->items[m->len++] = (mirror){ canon, target };
        return true;
    }
    free(canon);
    free(target);
    return false;
}

static bool bad_pair(el_ctx *ctx, const char *source, const char *s, size_t n)
{
    char *p = xstrndup(s, n);
    el_fail(ctx, EL_USAGE,
            "malformed mirror `%s` in %s: expected CANONICAL=URL with http://, https:// or "
            "file:// on both sides",
            p, source);
    el_detail_str(ctx, "mirror", p);
    el_detail_str(ctx, "source", source);
    free(p);
    return false;
}

static bool add_list(cache_mirrors *m, el_ctx *ctx, const char *source, const char *s,
                     bool lines)
{
    const char *p = s;
    while (*p) {
        if (lines) {
            size_t n = strcspn(p, "\n");
            const char *line = p;
            p += n + (p[n] == '\n');
            const char *hash = memchr(line, '#', n);
            if (hash)
                n = (size_t)(hash - line);
            while (n && isspace((unsigned char)*line))
                line++, n--;
            while (n && isspace((unsigned char)line[n - 1]))
                n--;
            if (n && !add_pair(m, line, n))
                return bad_pair(ctx, source, line, n);
        } else {
            p += strspn(p, " ,\t\n");
            size_t n = strcspn(p, " ,\t\n");
            if (n && !add_pair(m, p, n))
                return bad_pair(ctx, source, p, n);
            p += n;
        }
    }
    return true;
}

static char *config_file(void)
{
    const char *c = getenv("ENVLOCK_CONFIG");
    if (c && *c)
        return xasprintf("%s/mirrors", c);
    const char *x = getenv("XDG_CONFIG_HOME");
    if (x && *x == '/')
        return xasprintf("%s/envlock/mirrors", x);
    const char *h = getenv("HOME");
    if (h && *h)
        return xasprintf("%s/.config/envlock/mirrors", h);
    return NULL;
}

cache_mirrors *cache_mirrors_load(el_ctx *ctx, const el_cache_options *o)
{
    cache_mirrors *m = xcalloc(1, sizeof *m);
    for (size_t i = 0; i < o->n_mirrors; i++) {
        if (!add_pair(m, o->mirrors[i], strlen(o->mirrors[i]))) {
            bad_pair(ctx, "--mirror", o->mirrors[i], strlen(o->mirrors[i]));
            cache_mirrors_free(m);
            return NULL;
        }
    }
    if (o->no_mirror_config)
        return m;
    const char *env = getenv("ENVLOCK_MIRRORS");
    if (env && !add_list(m, ctx, "ENVLOCK_MIRRORS", env, false)) {
        cache_mirrors_free(m);
        return NULL;
    }
    char *path = config_file();
    if (path) {
        size_t n;
        char *text = read_file(path, 1 << 20, &n);
        bool ok = !text || add_list(m, ctx, path, text, true);
        free(text);
        free(path);
        if (!ok) {
            cache_mirrors_free(m);
            return NULL;
        }
    }
    return m;
}

void cache_mirrors_free(cache_mirrors *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->len; i++) {
        free(m->items[i].canonical);
        free(m->items[i].target);
    }
    free(m->items);
    free(m);
}

/* Length of `prefix` if it is a path-boundary prefix of url, else 0. */
static size_t boundary_prefix(const char *url, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(url, prefix, n) != 0)
        return 0;
    char c = url[n];
    return c == '\0' || c == '/' || c == '?' || c == '#' ? n : 0;
}

static char *map(const cache_mirrors *m, const char *url, bool forward)
{
    size_t best = 0;
    const mirror *hit = NULL;
    for (size_t i = 0; m && i < m->len; i++) {
        const char *from = forward ? m->items[i].canonical : m->items[i].target;
        size_t n = boundary_prefix(url, from);
        if (!n && !forward) {
            /* A document served by a mirror with credentials in its URL
             * names its own links without them. */
            char *bare = cache_url_redact(from);
            if (strcmp(bare, from) != 0)
                n = boundary_prefix(url, bare);
            free(bare);
        }
        if (n > best) {
            best = n;
            hit = &m->items[i];
        }
    }
    if (!hit)
        return xstrdup(url);
    return xasprintf("%s%s", forward ? hit->target : hit->canonical, url + best);
}

char *cache_mirrors_rewrite(const cache_mirrors *m, const char *url) { return map(m, url, true); }
char *cache_mirrors_unrewrite(const cache_mirrors *m, const char *url) { return map(m, url, false); }

char *cache_url_redact(const char *url)
{
    const char *s = strstr(url, "://");
    if (!s)
        return xstrdup(url);
    s += 3;
    size_t auth = strcspn(s, "/?#");
    const char *at = NULL;
    for (const char *p = s; p < s + auth; p++)
        if (*p == '@')
            at = p;
    if (!at)
        return xstrdup(url);
    return xasprintf("%.*s%s", (int)(s - url), url, at + 1);
}

char *cache_default_dir(const el_cache_options *o)
{
    if (o && o->dir && *o->dir)
        return xstrdup(o->dir);
    const char *e = getenv("ENVLOCK_CACHE_DIR");
    if (e && *e)
        return xstrdup(e);
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && *x == '/')
        return xasprintf("%s/envlock", x);
    const char *h = getenv("HOME");
    if (h && *h)
        return xasprintf("%s/.cache/envlock", h);
    return NULL;
}

/* A URI reference split as RFC 3986 appendix B splits it; each part is a
 * (pointer, length) into the string, NULL when the part is absent (which
 * differs from present and empty for the authority, query and fragment). */
typedef struct url_parts {
    const char *scheme, *auth, *path, *query, *frag;
    size_t scheme_n, auth_n, path_n, query_n, frag_n;
} url_parts;

static void url_split(const char *s, url_parts *u)
{
    memset(u, 0, sizeof *u);
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ':' */
    if (isalpha((unsigned char)*s)) {
        size_t n = 1;
        while (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '-' || s[n] == '.')
            n++;
        if (s[n] == ':') {
            u->scheme = s;
            u->scheme_n = n;
            s += n + 1;
        }
    }
    if (s[0] == '/' && s[1] == '/') {
        s += 2;
        u->auth = s;
        u->auth_n = strcspn(s, "/?#");
        s += u->auth_n;
    }
    u->path = s;
    u->path_n = strcspn(s, "?#");
    s += u->path_n;
    if (*s == '?') {
        u->query = ++s;
        u->query_n = strcspn(s, "#");
        s += u->query_n;
    }
    if (*s == '#') {
        u->frag = ++s;
        u->frag_n = strlen(s);
    }
}

/* RFC 3986 5.2.4 remove_dot_segments, of `in` (n bytes), appended to out. */
static void remove_dots(const char *in, size_t n, strbuf *out)
{
    size_t start = out->len;
    const char *p = in, *end = in + n;
    while (p < end) {
        size_t left = (size_t)(end - p);
        if (left >= 3 && memcmp(p, "../", 3) == 0) {
            p += 3; /* A */
        } else if (left >= 2 && memcmp(p, "./", 2) == 0) {
            p += 2; /* A */
        } else if (left >= 3 && memcmp(p, "/./", 3) == 0) {
            p += 2; /* B: "/./" -> "/" */
        } else if (left == 2 && memcmp(p, "/.", 2) == 0) {
            p += 1; /* B: a final "/." -> "/" */
            sb_add(out, "/", 1);
            p++;
        } else if ((left >= 4 && memcmp(p, "/../", 4) == 0) || (left == 3 && memcmp(p, "/..", 3) == 0)) {
            /* C: drop the last segment written (and its '/') */
            while (out->len > start && out->buf[out->len - 1] != '/')
                out->len--;
            if (out->len > start)
                out->len--;
            out->buf[out->len] = '\0';
            if (left == 3) {
                sb_add(out, "/", 1);
                p += 3;
            } else {
                p += 3; /* leaves the "/" of "/../" as the next input */
            }
        } else if ((left == 1 && *p == '.') || (left == 2 && memcmp(p, "..", 2) == 0)) {
            p = end; /* D */
        } else {
            /* E: the first segment, with its leading '/' if any */
            const char *q = p + (*p == '/');
            while (q < end && *q != '/')
                q++;
            sb_add(out, p, (size_t)(q - p));
            p = q;
        }
    }
}

/* Whether every byte may appear in a URL as libcurl accepts one: no
 * control characters, and no spaces unless `spaces`. */
static bool url_chars_ok(const char *s, bool spaces)
{
    for (; *s; s++)
        if ((unsigned char)*s < ' ' || *s == 0x7f || (*s == ' ' && !spaces))
            return false;
    return true;
}

/* `s` with each space written "%20". malloc'd. */
static char *encode_spaces(const char *s)
{
    strbuf b;
    sb_init(&b);
    for (; *s; s++) {
        if (*s == ' ')
            sb_add(&b, "%20", 3);
        else
            sb_addc(&b, *s);
    }
    return sb_detach(&b, NULL);
}

/* RFC 3986 section 5.2 (strict: a reference with a scheme is absolute), on
 * the bytes as written: nothing is percent-decoded or re-encoded, so
 * "%2B" stays "%2B". Two normalizations make the result the one libcurl's
 * URL API gave for the same input (this replaced it): the scheme is
 * lowercased, and an empty path under an authority becomes "/" (RFC 3986
 * 6.2.3 for http and https). Where libcurl departs from 5.2 — it resolved
 * "" and "#f" against the base's directory instead of the base document
 * (5.4.1: "" is the base itself, "#s" the base with that fragment) — this
 * follows the RFC, as it does for an empty query or fragment ("x?" and "x#"
 * keep theirs; libcurl dropped them). A relative reference may contain
 * spaces (HTML pages have them): each is written "%20" (libcurl wrote "+" in
 * the query and fragment); an absolute one, or a base, with a space or any
 * control character is no URL: NULL, as it was. So is an http, https or
 * file URL without an authority ("http:x"). */
static char *url_resolve(const char *base, const char *ref);

char *cache_url_join(const char *base, const char *ref)
{
    if (!base || !ref || !url_chars_ok(base, false) || !url_chars_ok(ref, true))
        return NULL;
    if (!strchr(ref, ' '))
        return url_resolve(base, ref);
    url_parts r;
    url_split(ref, &r);
    if (r.scheme)
        return NULL; /* an absolute URL with a space is malformed */
    char *enc = encode_spaces(ref);
    char *out = url_resolve(base, enc);
    free(enc);
    return out;
}

static char *url_resolve(const char *base, const char *ref)
{
    url_parts b, r;
    url_split(base, &b);
    url_split(ref, &r);
    if (!b.scheme)
        return NULL;
    const url_parts *sch = r.scheme ? &r : &b;
    /* http(s) and file URLs are hierarchical: "http:x" names nothing. */
    if (r.scheme && !r.auth &&
        ((sch->scheme_n == 4 && strncasecmp(sch->scheme, "http", 4) == 0) ||
         (sch->scheme_n == 5 && strncasecmp(sch->scheme, "https", 5) == 0) ||
         (sch->scheme_n == 4 && strncasecmp(sch->scheme, "file", 4) == 0)))
        return NULL;
    strbuf out;
    sb_init(&out);
    for (size_t i = 0; i < sch->scheme_n; i++)
        sb_addc(&out, (char)tolower((unsigned char)sch->scheme[i]));
    sb_add(&out, ":", 1);
    const char *auth;
    size_t auth_n;
    const char *query;
    size_t query_n;
    if (r.scheme || r.auth) {
        auth = r.auth, auth_n = r.auth_n;
        query = r.query, query_n = r.query_n;
    } else {
        auth = b.auth, auth_n = b.auth_n;
        query = r.query || r.path_n ? r.query : b.query;
        query_n = r.query || r.path_n ? r.query_n : b.query_n;
    }
    if (auth) {
        sb_add(&out, "//", 2);
        sb_add(&out, auth, auth_n);
    }
    size_t path_at = out.len;
    if (r.scheme || r.auth || (r.path_n && r.path[0] == '/')) {
        remove_dots(r.path, r.path_n, &out);
    } else if (!r.path_n) {
        sb_add(&out, b.path, b.path_n);
    } else {
        /* 5.2.3 merge: the base path up to its last '/', then the reference
         * ("/" first when the base has an authority and an empty path). */
        strbuf merged;
        sb_init(&merged);
        const char *slash = NULL;
        for (size_t i = 0; i < b.path_n; i++)
            if (b.path[i] == '/')
                slash = b.path + i;
        if (b.auth && !b.path_n)
            sb_add(&merged, "/", 1);
        else if (slash)
            sb_add(&merged, b.path, (size_t)(slash - b.path) + 1);
        sb_add(&merged, r.path, r.path_n);
        remove_dots(merged.buf, merged.len, &out);
        sb_release(&merged);
    }
    if (auth && out.len == path_at)
        sb_add(&out, "/", 1);
    if (query) {
        sb_add(&out, "?", 1);
        sb_add(&out, query, query_n);
    }
    if (r.frag) {
        sb_add(&out, "#", 1);
        sb_add(&out, r.frag, r.frag_n);
    }
    return sb_detach(&out, NULL);
}

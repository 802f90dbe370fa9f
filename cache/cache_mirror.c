/* cache_mirror.c — the canonical-prefix → mirror table (from options, the
 * ENVLOCK_MIRRORS variable and the mirrors file; precedence documented in
 * include/envlock/cache.h), URL rewriting both ways, credential redaction
 * (cache_url_redact: the one place userinfo is removed from what is shown
 * or stored), the host of a URL (the redirect and netrc rules compare it),
 * RFC 3986 reference resolution (cache_url_join) and the choice of the cache
 * directory. Pure string work: no I/O except reading the mirrors file. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <uriparser/Uri.h>

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

/* A file:// URL whose authority is neither empty nor `localhost`: what a
 * relative path written after "file://" becomes (RFC 8089: the first
 * segment is read as a host), so `file://corpus/x` would name host
 * `corpus`. Refused as written, never resolved against a directory. */
static bool relative_file(const char *u)
{
    if (strncmp(u, "file://", 7) != 0)
        return false;
    const char *a = u + 7;
    size_t n = strcspn(a, "/?#");
    return n && !(n == 9 && strncasecmp(a, "localhost", 9) == 0);
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
    bool ok = scheme_ok(canon) && scheme_ok(target) && strlen(canon) > 8 && strlen(target) > 7 &&
              !relative_file(canon) && !relative_file(target);
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
    const char *eq = strchr(p, '=');
    const char *t = eq ? eq + 1 + strspn(eq + 1, " \t") : NULL;
    if (t && (relative_file(t) || relative_file(p))) {
        const char *u = relative_file(t) ? t : p;
        el_fail(ctx, EL_USAGE,
                "malformed mirror `%s` in %s: `%.*s` names host `%.*s`, not a directory; a "
                "file:// mirror is an absolute path, file:///ABSOLUTE/PATH (three slashes)",
                p, source, (int)strcspn(u, " \t="), u, (int)strcspn(u + 7, "/?#"), u + 7);
        el_detail_str(ctx, "reason", "relative_file_url");
    } else {
        el_fail(ctx, EL_USAGE,
                "malformed mirror `%s` in %s: expected CANONICAL=URL with http://, https:// or "
                "file:// on both sides",
                p, source);
    }
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

static char *config_file(const el_cache_options *o)
{
    const char *c = o->config_dir;
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
    const char *list = o->mirror_list;
    const char *name = o->mirror_list_name ? o->mirror_list_name : "the mirror list";
    if (list && !add_list(m, ctx, name, list, false)) {
        cache_mirrors_free(m);
        return NULL;
    }
    char *path = config_file(o);
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

size_t cache_mirrors_count(const cache_mirrors *m)
{
    return m ? m->len : 0;
}

const char *cache_mirrors_canonical(const cache_mirrors *m, size_t i)
{
    return m->items[i].canonical;
}

const char *cache_mirrors_target(const cache_mirrors *m, size_t i)
{
    return m->items[i].target;
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

char *cache_url_host(const char *url)
{
    const char *s = url ? strstr(url, "://") : NULL;
    if (!s)
        return NULL;
    s += 3;
    size_t auth = strcspn(s, "/?#");
    for (size_t i = auth; i > 0; i--) {
        if (s[i - 1] == '@') {
            auth -= i;
            s += i;
            break;
        }
    }
    size_t n;
    if (auth && s[0] == '[') {
        const char *rb = memchr(s, ']', auth);
        n = rb ? (size_t)(rb - s) + 1 : auth;
    } else {
        const char *colon = memchr(s, ':', auth);
        n = colon ? (size_t)(colon - s) : auth;
    }
    char *h = xstrndup(s, n);
    for (char *p = h; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return h;
}

char *cache_default_dir(const el_cache_options *o)
{
    if (o && o->dir && *o->dir)
        return xstrdup(o->dir);
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && *x == '/')
        return xasprintf("%s/envlock", x);
    const char *h = getenv("HOME");
    if (h && *h)
        return xasprintf("%s/.cache/envlock", h);
    return NULL;
}

bool cache_url_fetchable(const char *url)
{
    char *u = url ? cache_url_join(url, "x") : NULL;
    bool ok = u && (strncmp(u, "https://", 8) == 0 || strncmp(u, "http://", 7) == 0 ||
                    strncmp(u, "file://", 7) == 0);
    free(u);
    return ok;
}

bool cache_link_allowed(const char *doc_read_url, const char *link)
{
    if (!doc_read_url || !link)
        return false;
    if (strncasecmp(link, "http://", 7) == 0 || strncasecmp(link, "https://", 8) == 0)
        return true;
    return strncasecmp(doc_read_url, "file://", 7) == 0;
}

el_code cache_fail_no_dir(el_ctx *ctx)
{
    el_fail(ctx, EL_USAGE,
            "no cache directory: HOME is unset or empty, and so are ENVLOCK_CACHE_DIR and "
            "XDG_CACHE_HOME (or it is not absolute); pass --cache-dir DIR or set "
            "ENVLOCK_CACHE_DIR");
    el_detail_str(ctx, "reason", "no_cache_dir");
    return EL_USAGE;
}

/* Whether every byte may appear in a URL: no control characters, and no
 * spaces unless `spaces`. */
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

static bool scheme_is(const UriUriA *u, const char *name)
{
    size_t n = (size_t)(u->scheme.afterLast - u->scheme.first);
    return u->scheme.first && n == strlen(name) && strncasecmp(u->scheme.first, name, n) == 0;
}

/* RFC 3986 section 5.2 reference resolution by uriparser (strict: a
 * reference with a scheme is absolute), on the bytes as written: nothing
 * is percent-decoded or re-encoded, so "%2B" stays "%2B" (libxml2's
 * xmlBuildURI rewrites such escapes, which would change artifact URLs).
 * Two normalizations keep the URLs libcurl's URL API gave before (locks
 * record them): the scheme is lowercased, and an empty path under an
 * authority becomes "/" (RFC 3986 6.2.3 for http and https); an IPv6
 * literal stays as written. A relative
 * reference may contain spaces (HTML pages have them): each is written
 * "%20" first; an absolute one, or a base, with a space or any control
 * character is no URL: NULL. So is an http, https or file URL without an
 * authority ("http:x"), and anything RFC 3986 does not admit (a second '#'). */
char *cache_url_join(const char *base, const char *ref)
{
    if (!base || !ref || !url_chars_ok(base, false) || !url_chars_ok(ref, true))
        return NULL;
    char *enc = strchr(ref, ' ') ? encode_spaces(ref) : NULL;
    UriUriA b, r, t;
    memset(&t, 0, sizeof t);
    const char *err = NULL;
    char *out = NULL;
    bool ok_b = uriParseSingleUriA(&b, base, &err) == URI_SUCCESS;
    bool ok_r = uriParseSingleUriA(&r, enc ? enc : ref, &err) == URI_SUCCESS;
    if (ok_b && ok_r && b.scheme.first && !(enc && r.scheme.first) &&
        uriAddBaseUriExA(&t, &r, &b, URI_RESOLVE_STRICTLY) == URI_SUCCESS) {
        bool hier = scheme_is(&t, "http") || scheme_is(&t, "https") || scheme_is(&t, "file");
        int len = 0;
        if (!(hier && !t.hostText.first && !t.hostData.ip4 && !t.hostData.ip6 &&
              !t.hostData.ipFuture.first) &&
            uriNormalizeSyntaxExA(&t, URI_NORMALIZE_SCHEME) == URI_SUCCESS &&
            uriToStringCharsRequiredA(&t, &len) == URI_SUCCESS) {
            out = xmalloc((size_t)len + 2);
            if (uriToStringA(out, &t, len + 1, NULL) != URI_SUCCESS) {
                free(out);
                out = NULL;
            }
        }
    }
    if (out && t.hostData.ip6 && t.hostText.first) {
        /* uriparser writes an IPv6 literal in full ([0000:...:0001]); keep it
         * as written ([::1]), or a mirror's prefix would no longer match. */
        char *lb = strchr(out, '['), *rb = lb ? strchr(lb, ']') : NULL;
        if (rb) {
            char *fixed = xasprintf("%.*s%.*s%s", (int)(lb + 1 - out), out,
                                    (int)(t.hostText.afterLast - t.hostText.first), t.hostText.first, rb);
            free(out);
            out = xrealloc(fixed, strlen(fixed) + 2);
        }
    }
    if (out) {
        /* "scheme://authority" with nothing after it, or only ?/#: add "/". */
        char *a = strstr(out, "//");
        if (a && t.hostText.first) {
            char *q = a + 2 + strcspn(a + 2, "/?#");
            if (*q != '/') {
                memmove(q + 1, q, strlen(q) + 1);
                *q = '/';
            }
        }
    }
    uriFreeUriMembersA(&t);
    if (ok_b)
        uriFreeUriMembersA(&b);
    if (ok_r)
        uriFreeUriMembersA(&r);
    free(enc);
    return out;
}

unsigned cache_url_port(const char *url)
{
    UriUriA u;
    const char *err = NULL;
    if (!url || uriParseSingleUriA(&u, url, &err) != URI_SUCCESS)
        return 0;
    unsigned port = 0;
    if (u.portText.first && u.portText.afterLast > u.portText.first) {
        for (const char *p = u.portText.first; p < u.portText.afterLast && port <= 65535; p++)
            port = isdigit((unsigned char)*p) ? port * 10 + (unsigned)(*p - '0') : 65536;
        if (port > 65535)
            port = 0;
    } else if (scheme_is(&u, "https")) {
        port = 443;
    } else if (scheme_is(&u, "http")) {
        port = 80;
    }
    uriFreeUriMembersA(&u);
    return port;
}

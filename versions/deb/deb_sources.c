/* deb_sources.c — apt's sources files as sources.list(5) defines them:
 * one-line entries parsed into their parts (deb_source_parse), and whole
 * files, one-line or deb822, turned into one-line entries. The one owner
 * of this syntax: the apt reader (indexes/apt) and the image inspector
 * (base/) both read sources here. Pure text: what a source means
 * (fetching, trust, snapshots) is the apt reader's. */
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "debsources.h"

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
static int parse_option(arena *a, const char *opt, deb_source *out, char **err)
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

/* The option list `[ key=value ... ]` at *pp, if there is one. */
static int parse_option_list(arena *a, const char **pp, deb_source *out, char **err)
{
    const char *p = *pp;
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
    *pp = p;
    return 0;
}

/* The repository URI (http, https with a host, or file:), kept with a
 * trailing slash. */
static int parse_uri(arena *a, const char **pp, deb_source *out, char **err)
{
    char *uri = next_word(a, pp);
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
    return 0;
}

/* The components after `suite` (none for a flat repository, `dir/`). */
static int parse_components(arena *a, const char *p, const char *suite, deb_source *out,
                            char **err)
{
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

int deb_source_parse(const char *line, arena *a, deb_source *out, char **err)
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
    if (parse_option_list(a, &p, out, err) < 0 || parse_uri(a, &p, out, err) < 0)
        return -1;
    char *suite = next_word(a, &p);
    if (!suite)
        return bad(err, "%s", "no suite (e.g. `bookworm`, or `./` for a flat repository)");
    if (!word_ok(suite) || strstr(suite, "..") || suite[0] == '/')
        return bad(err, "suite `%s` is not a plain name or relative directory", suite);
    out->suite = suite;
    return parse_components(a, p, suite, out, err);
}


/* ---- whole files ---- */

/* One-line files: each line up to a `#`, blanks trimmed, `deb` ones kept. */
static void one_line_entries(const char *text, size_t len, arena *a, ptrvec *out)
{
    for (size_t i = 0; i < len;) {
        const char *l = text + i;
        const char *nl = memchr(l, '\n', len - i);
        size_t n = nl ? (size_t)(nl - l) : len - i;
        i += n + 1;
        const char *hash = memchr(l, '#', n);
        if (hash)
            n = (size_t)(hash - l);
        while (n && (is_blank(*l) || *l == '\r'))
            l++, n--;
        while (n && (is_blank(l[n - 1]) || l[n - 1] == '\r'))
            n--;
        if (n > 3 && !strncmp(l, "deb", 3) && is_blank(l[3]))
            ptrvec_push(out, arena_strndup(a, l, n));
    }
}

/* A deb822 stanza's fields (name, value; a continued value keeps its
 * line breaks), read from [s, e). */
typedef struct stanza {
    const char *types, *uris, *suites, *components, *signed_by, *arches, *trusted, *valid,
        *enabled;
} stanza;

static const char **stanza_slot(stanza *st, const char *name, size_t n)
{
    static const char *const names[] = { "Types", "URIs", "Suites", "Components", "Signed-By",
                                         "Architectures", "Trusted", "Check-Valid-Until",
                                         "Enabled" };
    const char **slots[] = { &st->types, &st->uris, &st->suites, &st->components,
                             &st->signed_by, &st->arches, &st->trusted, &st->valid,
                             &st->enabled };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (strlen(names[k]) == n && !strncasecmp(names[k], name, n))
            return slots[k];
    return NULL;
}

/* The stanza starting at text[*i]; false at the end of the text. */
static bool next_stanza(const char *text, size_t len, size_t *i, arena *a, stanza *st)
{
    memset(st, 0, sizeof *st);
    const char **slot = NULL;
    bool any = false;
    while (*i < len) {
        const char *l = text + *i;
        const char *nl = memchr(l, '\n', len - *i);
        size_t n = nl ? (size_t)(nl - l) : len - *i;
        *i += n + 1;
        size_t blank = 0;
        while (blank < n && (is_blank(l[blank]) || l[blank] == '\r'))
            blank++;
        if (blank == n) {
            if (any)
                return true;
            continue;
        }
        if (l[0] == '#')
            continue;
        any = true;
        const char *colon = memchr(l, ':', n);
        if (blank && slot && *slot) { /* a continuation line */
            *slot = arena_sprintf(a, "%s\n%.*s", *slot, (int)(n - blank), l + blank);
        } else if (!blank && colon) {
            slot = stanza_slot(st, l, (size_t)(colon - l));
            const char *v = colon + 1;
            while (v < l + n && is_blank(*v))
                v++;
            size_t vn = (size_t)(l + n - v);
            while (vn && (is_blank(v[vn - 1]) || v[vn - 1] == '\r'))
                vn--;
            if (slot)
                *slot = arena_strndup(a, v, vn);
        }
    }
    return any;
}

/* The whitespace-separated words of `s` (NULL: none). */
static void split_words(const char *s, arena *a, ptrvec *out)
{
    for (const char *p = s; p && *p;) {
        p += strspn(p, " \t\n");
        size_t n = strcspn(p, " \t\n");
        if (n)
            ptrvec_push(out, arena_strndup(a, p, n));
        p += n;
    }
}

/* "a b" -> "a,b": a deb822 list as a one-line option's value. */
static const char *commas(arena *a, const char *v)
{
    ptrvec w = PTRVEC_INIT;
    split_words(v, a, &w);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < w.len; i++)
        sb_addf(&sb, "%s%s", i ? "," : "", (const char *)w.items[i]);
    const char *out = arena_strdup(a, sb.buf);
    sb_release(&sb);
    ptrvec_release(&w);
    return out;
}

static void stanza_entries(const stanza *st, arena *a, ptrvec *out)
{
    ptrvec types = PTRVEC_INIT, uris = PTRVEC_INIT, suites = PTRVEC_INIT;
    split_words(st->types, a, &types);
    bool deb = false;
    for (size_t i = 0; i < types.len; i++)
        deb |= !strcmp(types.items[i], "deb");
    if (deb && !(st->enabled && !strcasecmp(st->enabled, "no"))) {
        strbuf opts = STRBUF_INIT;
        if (st->signed_by)
            sb_addf(&opts, " signed-by=%s", strpbrk(st->signed_by, "\n") ? st->signed_by
                                                : commas(a, st->signed_by));
        if (st->arches)
            sb_addf(&opts, " arch=%s", commas(a, st->arches));
        if (st->trusted)
            sb_addf(&opts, " trusted=%s", st->trusted);
        if (st->valid)
            sb_addf(&opts, " check-valid-until=%s", st->valid);
        split_words(st->uris, a, &uris);
        split_words(st->suites, a, &suites);
        for (size_t u = 0; u < uris.len; u++)
            for (size_t k = 0; k < suites.len; k++)
                ptrvec_push(out, arena_sprintf(a, "deb%s%s%s %s %s%s%s", opts.len ? " [" : "",
                                               opts.len ? opts.buf + 1 : "", opts.len ? "]" : "",
                                               (const char *)uris.items[u],
                                               (const char *)suites.items[k],
                                               st->components ? " " : "",
                                               st->components ? st->components : ""));
        sb_release(&opts);
    }
    ptrvec_release(&types);
    ptrvec_release(&uris);
    ptrvec_release(&suites);
}

void deb_sources_entries(const char *text, size_t len, bool deb822, arena *a, ptrvec *out)
{
    if (!deb822) {
        one_line_entries(text, len, a, out);
        return;
    }
    stanza st;
    for (size_t i = 0; next_stanza(text, len, &i, a, &st);)
        stanza_entries(&st, a, out);
}

/* ---- one entry's URI ---- */

/* The URI of a one-line source ("deb [opts] URI SUITE COMP..."): its
 * offset and length in `line`, or false. */
bool deb_source_uri_span(const char *line, size_t *off, size_t *len)
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


/* conda_match.c — conda match specs (condaspec.h): comment, brackets,
 * channel, name, version and build, in the order conda's MatchSpec parser
 * takes them apart, and matching a record's name/version/build against the
 * result. The version language is conda_vspec.c's. */
#define _GNU_SOURCE /* memrchr */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "condaspec.h"

typedef struct mparse {
    const char *s; /* the whole spec text (columns count from here) */
    conda_matchspec *ms;
    conda_error err;
    char *version;    /* from outside the brackets */
    char *bversion;   /* version= in the brackets */
    size_t bversion_col;
    char *bchannel; /* channel= in the brackets */
    size_t bchannel_col;
    char *bsubdir;      /* subdir= in the brackets */
    bool outside_build; /* a build was given outside the brackets */
} mparse;

static bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
/* Only ' ': conda takes a tab inside a spec for part of the name, so the
 * parser refuses control characters before looking for blanks. */
static bool is_blank(char c) { return c == ' '; }

static bool merr(mparse *p, size_t off, const char *msg)
{
    if (!p->err.message) {
        p->err.column = off + 1;
        p->err.message = msg;
    }
    return false;
}

void conda_matchspec_free(conda_matchspec *ms)
{
    if (!ms)
        return;
    char **f[] = {&ms->name, &ms->channel, &ms->subdir, &ms->version, &ms->build,
                  &ms->build_number, &ms->md5, &ms->sha256, &ms->fn, &ms->url, &ms->license,
                  &ms->license_family, &ms->track_features, &ms->features};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        free(*f[i]);
    conda_vspec_free(ms->vspec);
    free(ms);
}

bool conda_name_valid(const char *s, size_t n)
{
    size_t i = 0;
    if (n >= 2 && s[0] == '_' && s[1] == '_') {
        if (n < 3 || !is_alnum(s[2]))
            return false;
        i = 3;
    } else if (n >= 1 && is_alnum(s[0])) {
        i = 1;
    } else if (n >= 1 && s[0] == '_' && (n == 1 || s[1] != '_')) {
        i = 1;
    } else {
        return false;
    }
    if (i < n && strchr("._-", s[i]))
        i++;
    while (i < n) {
        if (!is_alnum(s[i]))
            return false;
        while (i < n && is_alnum(s[i]))
            i++;
        if (i < n) {
            if (!strchr("._-", s[i]))
                return false;
            i++;
        }
    }
    return true;
}

/* The bracket keys and where each lands. */
static char **bracket_field(conda_matchspec *ms, const char *key, size_t klen)
{
    static const char *const keys[] = {"build", "build_number", "md5",
                                       "sha256", "fn", "url", "license", "license_family",
                                       "track_features", "features"};
    char **fields[] = {&ms->build, &ms->build_number, &ms->md5,
                       &ms->sha256, &ms->fn, &ms->url, &ms->license, &ms->license_family,
                       &ms->track_features, &ms->features};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i]) == klen && memcmp(keys[i], key, klen) == 0)
            return fields[i];
    return NULL;
}

/* One `key=value` at s[*i] (blanks around `=`; value quoted with ' or ",
 * or running to the next `,` or blank). */
static bool bracket_pair(mparse *p, size_t *i, size_t end)
{
    const char *s = p->s;
    size_t k = *i;
    while (k < end && (is_alnum(s[k]) || s[k] == '_' || s[k] == '-' || (s[k] >= 'A' && s[k] <= 'Z')))
        k++;
    if (k == *i)
        return merr(p, *i, "key-value mismatch in brackets; a key is missing");
    size_t kb = *i, klen = k - kb, e = k;
    /* conda reads a pair only as `key=value`: with blanks around `=` it
     * skips the pair without a word, so such a constraint would vanish. */
    if (e < end && s[e] == ' ')
        return merr(p, e, "blank before `=` in brackets (conda would ignore this key); write key=value");
    if (e >= end || s[e] != '=')
        return merr(p, e, "key-value mismatch in brackets; expected `=`");
    e++;
    if (e < end && s[e] == ' ')
        return merr(p, e, "blank after `=` in brackets (conda would ignore this key); write key=value");
    size_t vb = e, ve;
    if (e < end && (s[e] == '\'' || s[e] == '"')) {
        const char *q = memchr(s + e + 1, s[e], end - e - 1);
        if (!q)
            return merr(p, e, "unterminated quote in brackets");
        vb = e + 1, ve = (size_t)(q - s), e = ve + 1;
    } else {
        while (e < end && s[e] != ',' && s[e] != ' ')
            e++;
        ve = e;
    }
    if (ve == vb)
        return merr(p, vb, "key-value mismatch in brackets; a value is missing");
    /* conda takes the last `[` of the spec as the start of the brackets, so
     * a `[` inside a value (a regex class) cuts the spec apart there. */
    const char *nested = memchr(s + vb, '[', ve - vb);
    if (nested)
        return merr(p, (size_t)(nested - s), "`[` inside brackets (conda cannot read it); "
                                            "write the build regex without a [...] class");
    char **slot = NULL;
    if (klen == 7 && memcmp(s + kb, "version", 7) == 0) {
        slot = &p->bversion;
        p->bversion_col = vb + 1;
    } else if (klen == 7 && memcmp(s + kb, "channel", 7) == 0) {
        slot = &p->bchannel;
        p->bchannel_col = vb;
    } else if (klen == 6 && memcmp(s + kb, "subdir", 6) == 0) {
        slot = &p->bsubdir;
    } else if (!(klen == 4 && memcmp(s + kb, "name", 4) == 0)) {
        slot = bracket_field(p->ms, s + kb, klen);
        if (!slot)
            return merr(p, kb, "unknown key in brackets");
    }
    /* `name=` inside brackets never overrides the name outside (conda warns
     * and drops it): read and ignored. */
    if (slot && *slot)
        return merr(p, kb, "each key can only be specified once");
    if (slot) {
        *slot = xstrndup(s + vb, ve - vb);
        if (slot == &p->ms->build)
            p->ms->build_column = vb + 1;
    }
    *i = e;
    return true;
}

/* The `[...]` part s[open..close]: pairs separated by `,` and blanks. */
static bool brackets(mparse *p, size_t open, size_t close)
{
    size_t i = open + 1;
    bool any = false;
    while (true) {
        while (i < close && (p->s[i] == ',' || p->s[i] == ' '))
            i++;
        if (i >= close)
            break;
        if (!bracket_pair(p, &i, close))
            return false;
        any = true;
    }
    if (!any)
        return merr(p, open, "no key-value pairs found in square brackets");
    return true;
}

/* Splits "version build" as conda's version+build rule: the shortest
 * version such that the rest is empty or a blank/`=` (not after an
 * operator) and a build without any of `-=,|<>~`. */
static void version_build(const char *s, size_t b, size_t e, size_t *vend, size_t *bb)
{
    for (size_t i = b + 1; i < e; i++) {
        if ((s[i] != ' ' && s[i] != '=') || strchr("=!|,<>~", s[i - 1]) || i + 1 >= e)
            continue;
        size_t j = i + 1;
        while (j < e && !strchr("-=,|<>~", s[j]))
            j++;
        if (j == e) {
            *vend = i, *bb = i + 1;
            return;
        }
    }
    *vend = e, *bb = e;
}

/* conda's version sanitizing: "=1.2" means "1.2*" when no build is given
 * and no `,` `|` `=` follow; "==1.2" without a build means "1.2". */
static char *sanitize_version(const char *v, bool has_build)
{
    if (strcmp(v, "=") == 0 || strcmp(v, "==") == 0 || v[0] != '=')
        return xstrdup(v);
    const char *bare = v;
    while (*bare == '=')
        bare++;
    if (v[1] == '=' && !has_build)
        return xstrdup(bare);
    if (!strpbrk(bare, "=,|")) {
        size_t n = strlen(bare);
        if (!has_build && (n == 0 || bare[n - 1] != '*'))
            return xasprintf("%s*", bare);
        return xstrdup(bare);
    }
    return xstrdup(v);
}

/* Subdirs a channel may end with ("conda-forge/linux-64::numpy"). */
static bool known_subdir(const char *s, size_t n)
{
    static const char *const subdirs[] = {
        "noarch", "linux-32", "linux-64", "linux-aarch64", "linux-armv6l", "linux-armv7l",
        "linux-ppc64", "linux-ppc64le", "linux-riscv64", "linux-s390x", "osx-64", "osx-arm64",
        "win-32", "win-64", "win-arm64", "emscripten-wasm32", "wasi-wasm32", "zos-z"};
    for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
        if (strlen(subdirs[i]) == n && memcmp(subdirs[i], s, n) == 0)
            return true;
    return false;
}

/* A channel name or URL c[0..n) (`col`: its offset in the spec, for
 * errors): credentials refused (in the userinfo or as an anaconda.org
 * `/t/<token>/` segment), a known trailing subdir split off, trailing `/`
 * dropped. */
static bool channel(mparse *p, const char *c, size_t n, size_t col)
{
    while (n > 0 && c[n - 1] == '/')
        n--;
    if (n == 0)
        return merr(p, col, "empty channel");
    char *t = xstrndup(c, n);
    const char *scheme = strstr(t, "://");
    const char *host = scheme ? scheme + 3 : t;
    const char *slash = strchr(host, '/');
    const char *at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
    bool token = strstr(t, "/t/") != NULL;
    free(t);
    if (at || token)
        return merr(p, col, "carries a credential in its URL; reference the credential in `buildSecrets`");
    const char *last = memrchr(c, '/', n);
    if (last && known_subdir(last + 1, (size_t)(c + n - last - 1))) {
        free(p->ms->subdir);
        p->ms->subdir = xstrndup(last + 1, (size_t)(c + n - last - 1));
        n = (size_t)(last - c);
    }
    free(p->ms->channel);
    p->ms->channel = xstrndup(c, n);
    return true;
}

/* The part before the brackets, s[b..e): [channel::]name [version [build]]. */
static bool outside(mparse *p, size_t b, size_t e)
{
    const char *s = p->s;
    const char *c2 = memrchr(s + b, ':', e - b);
    if (c2) {
        const char *c1 = memrchr(s + b, ':', (size_t)(c2 - s) - b);
        /* Read even when the brackets name a channel: its subdir stays
         * unless the brackets' channel or subdir= names another. */
        if (c1 && !channel(p, s + b, (size_t)(c1 - s) - b, b))
            return false;
        b = (size_t)(c2 - s) + 1; /* a namespace before a lone `:` is ignored, as conda */
    }
    while (b < e && is_blank(s[b]))
        b++;
    size_t ne = b;
    while (ne < e && !strchr(" \t=<>!~", s[ne]))
        ne++;
    if (ne == b)
        return merr(p, b, "no package name found");
    char *name = xstrndup(s + b, ne - b);
    for (char *q = name; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    p->ms->name = name;
    p->ms->name_column = b + 1;
    if (!strchr(name, '*') && !conda_name_valid(name, strlen(name)))
        return merr(p, b, "invalid package name (CEP 26)");
    size_t vb = ne;
    while (vb < e && is_blank(s[vb]))
        vb++;
    while (e > vb && is_blank(s[e - 1]))
        e--;
    if (vb == e)
        return true;
    size_t vend, bb;
    version_build(s, vb, e, &vend, &bb);
    strbuf v = STRBUF_INIT;
    for (size_t i = vb; i < vend; i++)
        if (s[i] != ' ')
            sb_addc(&v, s[i]);
    p->version = sb_detach(&v, NULL);
    p->ms->version_column = vb + 1;
    while (bb < e && is_blank(s[bb]))
        bb++;
    p->outside_build = bb < e;
    if (bb < e && !p->ms->build) {
        p->ms->build = xstrndup(s + bb, e - bb);
        p->ms->build_column = bb + 1;
    }
    return true;
}

/* Refusals that need the whole text: where conda would drop part of the
 * spec or read it as something other than a match spec. */
static bool refuse_shapes(mparse *p, size_t b, size_t e)
{
    const char *s = p->s;
    if (s[e - 1] == '@')
        return merr(p, e - 1, "`feature@` specs are not supported");
    for (size_t i = b; i + 4 <= e; i++)
        if (memcmp(s + i, " if ", 4) == 0)
            return merr(p, i + 1, "conditional (` if `) specs are not supported");
    if ((e - b > 8 && memcmp(s + e - 8, ".tar.bz2", 8) == 0) ||
        (e - b > 6 && memcmp(s + e - 6, ".conda", 6) == 0))
        return merr(p, b, "a package file is not a match spec");
    return true;
}

static bool split_brackets(mparse *p, size_t b, size_t *e)
{
    const char *s = p->s;
    const char *open = memchr(s + b, '[', *e - b);
    const char *close = memrchr(s + b, ']', *e - b);
    if (!open && close)
        return merr(p, (size_t)(close - s), "unbalanced `]`");
    if (!open)
        return true;
    if (!close || close < open)
        return merr(p, (size_t)(open - s), "unbalanced `[`");
    for (const char *q = close + 1; q < s + *e; q++)
        if (!is_blank(*q))
            return merr(p, (size_t)(q - s), "text after the brackets");
    if (!brackets(p, (size_t)(open - s), (size_t)(close - s)))
        return false;
    *e = (size_t)(open - s);
    return true;
}

static bool check_build_number(mparse *p, const char *t)
{
    const char *d = t;
    if (strchr("<>=!", *d)) {
        /* conda reads a lone `=` as `==` */
        static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">", "="};
        size_t k = 0;
        while (k < 7 && strncmp(d, ops[k], strlen(ops[k])) != 0)
            k++;
        if (k == 7)
            return merr(p, 0, "invalid build_number operator");
        d += strlen(ops[k]);
    }
    if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 18)
        return merr(p, 0, "build_number is not an integer");
    return true;
}

/* The version (brackets' over the outside's), sanitized and parsed. */
static bool finish_version(mparse *p)
{
    conda_matchspec *ms = p->ms;
    const char *raw = p->bversion ? p->bversion : p->version;
    size_t col = p->bversion ? p->bversion_col : ms->version_column;
    if (!raw)
        return true;
    /* conda sanitizes a bracket version as if no build were given, and an
     * outside one with the outside build only. */
    ms->version = sanitize_version(raw, !p->bversion && p->outside_build);
    ms->version_column = col;
    conda_error e = {0, NULL};
    ms->vspec = conda_vspec_parse(ms->version, strlen(ms->version), &e);
    if (!ms->vspec)
        return merr(p, col - 1 + (e.column ? e.column - 1 : 0), e.message);
    return true;
}

conda_matchspec *conda_matchspec_parse(const char *text, size_t len, conda_error *err)
{
    mparse p = {.s = text, .ms = xcalloc(1, sizeof(conda_matchspec))};
    size_t b = 0, e = len;
    const char *nul = memchr(text, '\0', len);
    const char *hash = memchr(text, '#', len);
    bool ok = true;
    if (nul)
        ok = merr(&p, (size_t)(nul - text), "invalid character(s)");
    else if (len > CONDA_MATCHSPEC_MAX)
        ok = merr(&p, 0, "match spec is longer than 4096 bytes");
    if (ok && hash)
        e = (size_t)(hash - text);
    /* conda strips trailing whitespace, finds no name after a leading
     * blank and reads other control characters as part of the name. */
    size_t nb = b;
    while (nb < e && is_blank(text[nb]))
        nb++;
    while (ok && e > nb && (is_blank(text[e - 1]) || text[e - 1] == '\t' || text[e - 1] == '\r' ||
                            text[e - 1] == '\n'))
        e--;
    for (size_t i = 0; ok && i < e; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            ok = merr(&p, i, "control character in a match spec");
    if (ok && nb == e)
        ok = merr(&p, nb, "empty match spec");
    else if (ok && nb > b)
        ok = merr(&p, b, "blank before the package name");
    ok = ok && refuse_shapes(&p, b, e) && split_brackets(&p, b, &e);
    if (ok && memchr(text + b, '(', e - b))
        ok = merr(&p, (size_t)((const char *)memchr(text + b, '(', e - b) - text),
                  "parentheses outside brackets are not supported; write [version='(...)']");
    ok = ok && outside(&p, b, e);
    if (ok && p.bchannel)
        ok = channel(&p, p.bchannel, strlen(p.bchannel), p.bchannel_col);
    if (ok && p.bsubdir) {
        free(p.ms->subdir);
        p.ms->subdir = p.bsubdir;
        p.bsubdir = NULL;
    }
    ok = ok && finish_version(&p);
    if (ok && p.ms->build_number && !check_build_number(&p, p.ms->build_number))
        ok = merr(&p, 0, "bad build_number");
    if (ok && p.ms->build && p.ms->build[0] == '^') {
        regex_t re;
        if (!conda_regex_compile(&re, p.ms->build))
            ok = merr(&p, p.ms->build_column - 1, "invalid or unsupported build regular expression");
        else
            regfree(&re);
    }
    free(p.version);
    free(p.bversion);
    free(p.bchannel);
    free(p.bsubdir);
    if (!ok) {
        if (err)
            *err = p.err;
        conda_matchspec_free(p.ms);
        return NULL;
    }
    return p.ms;
}

/* `*` as any text, everything else literal (conda's glob fields). */
static bool glob_match(const char *g, const char *s)
{
    const char *star = NULL, *back = NULL;
    while (*s) {
        if (*g == '*') {
            star = ++g;
            back = s;
        } else if (*g == *s) {
            g++, s++;
        } else if (star) {
            g = star;
            s = ++back;
        } else {
            return false;
        }
    }
    while (*g == '*')
        g++;
    return *g == '\0';
}

static bool str_match(const char *pattern, const char *s)
{
    size_t n = strlen(pattern);
    if (n >= 2 && pattern[0] == '^' && pattern[n - 1] == '$') {
        regex_t re;
        if (!conda_regex_compile(&re, pattern))
            return false;
        bool m = regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
        return m;
    }
    return glob_match(pattern, s);
}

static bool build_number_match(const char *spec, uint64_t bn)
{
    const char *d = spec + strspn(spec, "<>=!");
    uint64_t want = strtoull(d, NULL, 10);
    size_t ol = (size_t)(d - spec);
    if (ol == 0 || spec[0] == '=')
        return bn == want;
    if (spec[0] == '!')
        return bn != want;
    if (spec[0] == '<')
        return ol == 2 ? bn <= want : bn < want;
    return ol == 2 ? bn >= want : bn > want;
}

bool conda_matchspec_match_parsed(const conda_matchspec *ms, const char *name,
                                  const conda_version *v, const char *version, const char *build,
                                  uint64_t build_number)
{
    char *lower = xstrdup(name);
    for (char *q = lower; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    bool ok = str_match(ms->name, lower);
    free(lower);
    if (ok && ms->vspec)
        ok = v && conda_vspec_match(ms->vspec, v, version);
    if (ok && ms->build)
        ok = str_match(ms->build, build);
    if (ok && ms->build_number)
        ok = build_number_match(ms->build_number, build_number);
    return ok;
}

bool conda_matchspec_match(const conda_matchspec *ms, const char *name, const char *version,
                           const char *build, uint64_t build_number)
{
    conda_version *v = ms->vspec ? conda_version_parse(version, strlen(version), NULL) : NULL;
    bool ok = conda_matchspec_match_parsed(ms, name, v, version, build, build_number);
    conda_version_free(v);
    return ok;
}

/* apt_release.c — the text of Release files (one deb822 paragraph with folded
 * values and hash lists), apt's date format, and the framing of OpenPGP
 * clearsigned messages. Pure parsing: no I/O, no signature checking (that is
 * apt_verify.c's), no policy (Valid-Until against the clock is decided by
 * the loader). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apt_index.h"

/* The largest Release text we read: Debian's main suites are ~150 KiB with
 * every component, architecture and translation listed. */
#define APT_RELEASE_MAX (64u << 20)

static int failf(char **err, const char *fmt, ...) EL_PRINTF(2, 3);
static int failf(char **err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        *err = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- dates ---- */

static int digits(const char **p, int min, int max, int *out)
{
    int v = 0, n = 0;
    while (isdigit((unsigned char)**p) && n < max) {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    if (n < min)
        return -1;
    *out = v;
    return 0;
}

int apt_date_parse(const char *s, int64_t *out)
{
    static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    static const char *const wdays[] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (isalpha((unsigned char)*p)) {
        bool found = false;
        for (size_t i = 0; i < 7; i++)
            if (strncmp(p, wdays[i], 3) == 0) {
                found = true;
                break;
            }
        if (!found || p[3] != ',')
            return -1;
        p += 4;
        while (*p == ' ')
            p++;
    }
    int day, year, hh, mm, ss;
    if (digits(&p, 1, 2, &day) < 0 || *p++ != ' ')
        return -1;
    int mon = -1;
    for (int i = 0; i < 12; i++)
        if (strncmp(p, months[i], 3) == 0) {
            mon = i + 1;
            break;
        }
    if (mon < 0 || p[3] != ' ')
        return -1;
    p += 4;
    if (digits(&p, 4, 4, &year) < 0 || *p++ != ' ')
        return -1;
    if (digits(&p, 2, 2, &hh) < 0 || *p++ != ':' || digits(&p, 2, 2, &mm) < 0 || *p++ != ':' ||
        digits(&p, 2, 2, &ss) < 0)
        return -1;
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day < 1 || day > mdays[mon - 1] || (mon == 2 && day == 29 && !leap) || hh > 23 ||
        mm > 59 || ss > 60)
        return -1;
    int64_t offset = 0;
    if (*p == ' ') {
        p++;
        if (!strcmp(p, "UTC") || !strcmp(p, "GMT") || !strcmp(p, "Z") || !strcmp(p, "UT")) {
            p += strlen(p);
        } else if (*p == '+' || *p == '-') {
            int sign = *p == '-' ? -1 : 1;
            p++;
            int oh, om;
            if (digits(&p, 2, 2, &oh) < 0 || digits(&p, 2, 2, &om) < 0 || oh > 23 || om > 59)
                return -1;
            offset = sign * (oh * 3600 + om * 60);
        } else {
            return -1;
        }
    }
    if (*p)
        return -1;
    *out = days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 +
           (ss > 59 ? 59 : ss) - offset;
    return 0;
}

/* ---- deb822 fields ---- */

/* split_words() : a blank-separated list into an array in `a`. */
static void split_words(arena *a, const char *v, const char *const **out, size_t *n)
{
    size_t count = 0;
    for (const char *s = v; *s;) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        count++;
        while (*s && !isspace((unsigned char)*s))
            s++;
    }
    const char **items = arena_alloc(a, (count ? count : 1) * sizeof *items);
    size_t k = 0;
    for (const char *s = v; *s;) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && !isspace((unsigned char)*e))
            e++;
        items[k++] = arena_strndup(a, s, (size_t)(e - s));
        s = e;
    }
    *out = items;
    *n = k;
}

static bool is_hex64(const char *s, size_t n)
{
    if (n != 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (hex_digit(s[i]) < 0)
            return false;
    return true;
}

/* parse_sha256_list() : the continuation lines of a SHA256 field, one
 *  "hex size path" each. */
static int parse_sha256_list(arena *a, const char *v, apt_release *out, char **err)
{
    size_t cap = 1;
    for (const char *s = v; *s; s++)
        cap += *s == '\n';
    apt_release_file *files = arena_alloc(a, cap * sizeof *files);
    size_t k = 0;
    const char *line = v;
    size_t lineno = 0;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        lineno++;
        const char *s = line, *end = line + len;
        while (s < end && isspace((unsigned char)*s))
            s++;
        if (s < end) {
            const char *h = s;
            while (s < end && !isspace((unsigned char)*s))
                s++;
            size_t hl = (size_t)(s - h);
            while (s < end && isspace((unsigned char)*s))
                s++;
            const char *sz = s;
            while (s < end && isdigit((unsigned char)*s))
                s++;
            const char *sz_end = s;
            if (s < end && !isspace((unsigned char)*s))
                sz_end = sz; /* digits followed by junk */
            while (s < end && isspace((unsigned char)*s))
                s++;
            const char *path = s;
            const char *pe = end;
            while (pe > path && isspace((unsigned char)pe[-1]))
                pe--;
            if (!is_hex64(h, hl) || sz_end == sz || path == pe || memchr(path, ' ', (size_t)(pe - path)) ||
                memchr(path, '\t', (size_t)(pe - path)))
                return failf(err, "SHA256 line %zu is not `<64 hex digits> <size> <path>`: %.*s", lineno,
                             (int)(len > 120 ? 120 : len), line);
            errno = 0;
            char *ep;
            unsigned long long size = strtoull(sz, &ep, 10);
            if (errno || ep != sz_end)
                return failf(err, "SHA256 line %zu: size out of range", lineno);
            apt_release_file *f = &files[k++];
            f->path = arena_strndup(a, path, (size_t)(pe - path));
            f->size = size;
            for (size_t i = 0; i < 64; i++)
                f->sha256[i] = (char)tolower((unsigned char)h[i]);
            f->sha256[64] = '\0';
        }
        if (!nl)
            break;
        line = nl + 1;
    }
    out->files = files;
    out->n_files = k;
    return 0;
}

/* The value of the field whose line is [ls, ls+ll) after `colon`: the rest
 * of the line plus the continuation lines from *p on (*p, *lineno moved
 * past them); a single-line value without its trailing blanks. */
static char *field_value(arena *a, const char *ls, size_t ll, const char *colon, const char **p,
                         const char *end, size_t *lineno)
{
    strbuf v = STRBUF_INIT;
    const char *vs = colon + 1;
    while (vs < ls + ll && (*vs == ' ' || *vs == '\t'))
        vs++;
    sb_add(&v, vs, (size_t)(ls + ll - vs));
    while (*p < end && (**p == ' ' || **p == '\t')) {
        const char *n2 = memchr(*p, '\n', (size_t)(end - *p));
        const char *e2 = n2 ? n2 : end;
        size_t l2 = (size_t)(e2 - *p);
        if (l2 && (*p)[l2 - 1] == '\r')
            l2--;
        sb_addc(&v, '\n');
        sb_add(&v, *p, l2);
        (*lineno)++;
        *p = n2 ? n2 + 1 : end;
    }
    char *val = arena_strndup(a, v.buf, v.len);
    sb_release(&v);
    if (!strchr(val, '\n')) {
        size_t n = strlen(val);
        while (n && (val[n - 1] == ' ' || val[n - 1] == '\t'))
            val[--n] = '\0';
    }
    return val;
}

/* One field into `out`; unknown fields are ignored. 0, or -1 with *err. */
static int release_field(arena *a, const char *name, size_t fl, char *val, apt_release *out,
                         bool *have_sha, char **err)
{
#define FIELD(f) (fl == sizeof(f) - 1 && strncasecmp(name, f, fl) == 0)
    if (FIELD("Origin"))
        out->origin = val;
    else if (FIELD("Label"))
        out->label = val;
    else if (FIELD("Suite"))
        out->suite = val;
    else if (FIELD("Codename"))
        out->codename = val;
    else if (FIELD("Version"))
        out->version = val;
    else if (FIELD("Date")) {
        if (apt_date_parse(val, &out->date) < 0)
            return failf(err, "Date `%.80s` is not a date like `Sat, 10 Jun 2023 08:49:33 UTC`", val);
        out->date_text = val;
    } else if (FIELD("Valid-Until")) {
        if (apt_date_parse(val, &out->valid_until) < 0)
            return failf(err, "Valid-Until `%.80s` is not a date like `Sat, 10 Jun 2023 08:49:33 UTC`",
                         val);
        out->valid_until_text = val;
    } else if (FIELD("Architectures"))
        split_words(a, val, &out->architectures, &out->n_architectures);
    else if (FIELD("Components"))
        split_words(a, val, &out->components, &out->n_components);
    else if (FIELD("Acquire-By-Hash"))
        out->by_hash = strcasecmp(val, "yes") == 0;
    else if (FIELD("NotAutomatic"))
        out->not_automatic = strcasecmp(val, "yes") == 0;
    else if (FIELD("ButAutomaticUpgrades"))
        out->but_automatic_upgrades = strcasecmp(val, "yes") == 0;
    else if (FIELD("No-Support-for-Architecture-all"))
        out->no_arch_all_packages = strcmp(val, "Packages") == 0;
    else if (FIELD("SHA256")) {
        if (*have_sha)
            return failf(err, "%s", "two SHA256 fields");
        *have_sha = true;
        return parse_sha256_list(a, val, out, err) < 0 ? -1 : 0;
    }
#undef FIELD
    return 0;
}

int apt_release_parse(const char *text, size_t len, arena *a, apt_release *out, char **err)
{
    memset(out, 0, sizeof *out);
    if (err)
        *err = NULL;
    if (len > APT_RELEASE_MAX)
        return failf(err, "Release text of %zu bytes is larger than %u", len, APT_RELEASE_MAX);
    if (memchr(text, '\0', len))
        return failf(err, "%s", "Release text contains a NUL byte");
    bool have_sha = false;
    const char *p = text, *end = text + len;
    size_t lineno = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        lineno++;
        const char *ls = p;
        p = nl ? nl + 1 : end;
        size_t ll = (size_t)(le - ls);
        if (ll && ls[ll - 1] == '\r')
            ll--;
        if (ll == 0 || (ls[0] == '#'))
            continue; /* blank lines end a paragraph; a Release has one, so we read on */
        if (ls[0] == ' ' || ls[0] == '\t')
            return failf(err, "line %zu: a continuation line without a field", lineno);
        const char *colon = memchr(ls, ':', ll);
        if (!colon || colon == ls)
            return failf(err, "line %zu is not `Field: value`", lineno);
        for (const char *c = ls; c < colon; c++)
            if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
                return failf(err, "line %zu: field name has an invalid character", lineno);
        char *val = field_value(a, ls, ll, colon, &p, end, &lineno);
        if (release_field(a, ls, (size_t)(colon - ls), val, out, &have_sha, err) < 0)
            return -1;
    }
    if (!out->date_text)
        return failf(err, "%s", "no Date field");
    if (!have_sha)
        return failf(err, "%s", "no SHA256 file list (MD5Sum and SHA1 are not trusted)");
    return 0;
}

const apt_release_file *apt_release_find(const apt_release *r, const char *path)
{
    for (size_t i = 0; i < r->n_files; i++)
        if (strcmp(r->files[i].path, path) == 0)
            return &r->files[i];
    return NULL;
}

/* ---- clearsigned framing (RFC 4880 §7) ---- */

/* line_at() : the line starting at *p (without its "\n" or "\r\n"), advancing. */
static bool line_at(const char **p, const char *end, const char **ls, size_t *ll)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    *ls = *p;
    *ll = (size_t)((nl ? nl : end) - *p);
    *p = nl ? nl + 1 : end;
    if (*ll && (*ls)[*ll - 1] == '\r')
        (*ll)--;
    return true;
}

static bool line_is(const char *ls, size_t ll, const char *want)
{
    size_t n = strlen(want);
    /* trailing blanks after an armor line are tolerated */
    if (ll < n || memcmp(ls, want, n) != 0)
        return false;
    for (size_t i = n; i < ll; i++)
        if (ls[i] != ' ' && ls[i] != '\t')
            return false;
    return true;
}

int apt_clearsigned_split(const char *msg, size_t n, char **text, size_t *len)
{
    const char *p = msg, *end = msg + n;
    const char *ls;
    size_t ll;
    *text = NULL;
    *len = 0;
    if (!line_at(&p, end, &ls, &ll) || !line_is(ls, ll, "-----BEGIN PGP SIGNED MESSAGE-----"))
        return -1;
    /* armor headers ("Hash: SHA256") up to an empty line */
    for (;;) {
        if (!line_at(&p, end, &ls, &ll))
            return -1;
        if (ll == 0)
            break;
        if (!memchr(ls, ':', ll))
            return -1;
    }
    strbuf sb = STRBUF_INIT;
    bool ok = false;
    while (line_at(&p, end, &ls, &ll)) {
        if (line_is(ls, ll, "-----BEGIN PGP SIGNATURE-----")) {
            ok = true;
            break;
        }
        if (ll >= 2 && ls[0] == '-' && ls[1] == ' ') {
            ls += 2;
            ll -= 2;
        } else if (ll && ls[0] == '-') {
            break; /* an unescaped dash line inside the text */
        }
        sb_add(&sb, ls, ll);
        sb_addc(&sb, '\n');
    }
    if (!ok) {
        sb_release(&sb);
        return -1;
    }
    /* the signature block, then nothing but blank lines */
    bool ended = false;
    while (line_at(&p, end, &ls, &ll)) {
        if (ended) {
            for (size_t i = 0; i < ll; i++)
                if (!isspace((unsigned char)ls[i]))
                    goto refuse;
            continue;
        }
        if (line_is(ls, ll, "-----END PGP SIGNATURE-----"))
            ended = true;
        else if (ll >= 5 && memcmp(ls, "-----", 5) == 0)
            goto refuse;
    }
    if (!ended)
        goto refuse;
    *len = sb.len;
    *text = sb_detach(&sb, NULL);
    return 0;
refuse:
    sb_release(&sb);
    return -1;
}

/* pypi_tags.c — wheel filenames and the tags a target accepts.
 *
 * Owns the wheel filename grammar (NAME-VER(-BUILD)?-PY-ABI-PLAT.whl with
 * compressed tag sets) and the target's supported tag list in the order of
 * packaging's sys_tags() for CPython on Linux: cpXY-cpXY, cpXY-abi3,
 * cpXY-none, cpXY-abi3 for each older minor down to cp32, then pyXY/py3/
 * py3N-none for each platform, then cpXY-none-any, pyXY/py3/py3N-none-any.
 * Knows nothing about indexes or the network. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pypi_index.h"

struct sorted_tag {
    const char *s;
    size_t rank;
};

struct pypi_tags {
    char **list;     /* in preference order */
    size_t n;
    struct sorted_tag *sorted; /* the list sorted by string, for lookups */
    char *interp;    /* "cp313" */
    char *python;    /* "3.13" */
    char *python_full;
    char *arch;
    char *platform;  /* normalized most specific platform */
    bool musl;
};

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* ---- wheel filenames ---- */

static size_t split_dots(arena *a, const char *s, char ***out)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == '.';
    char **v = arena_alloc(a, n * sizeof *v);
    size_t i = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '.' || *p == '\0') {
            v[i] = arena_strndup(a, start, (size_t)(p - start));
            lower(v[i]);
            i++;
            if (*p == '\0')
                break;
            start = p + 1;
        }
    }
    *out = v;
    return n;
}

/* The characters of a wheel filename's name, build tag and tags (the binary
 * distribution format: each is escaped to [A-Za-z0-9_.]); the version is
 * left to PEP 440. Nothing else may reach a lock, a requirements file or a
 * bundle's path through a file name. */
static bool wheel_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
}

/* false, with `msg` (malloc'd) in *err when the caller wants it. */
static bool wheel_fail(char **err, char *msg)
{
    if (err)
        *err = msg;
    else
        free(msg);
    return false;
}

static bool wheel_chars(const char *s)
{
    for (; *s; s++)
        if (!wheel_char(*s))
            return false;
    return true;
}

/* stem's dash-separated parts (cut in place): 5 or 6, none empty. */
static bool wheel_parts(const char *filename, char *stem, char *parts[6], size_t *np, char **err)
{
    size_t n = 0;
    char *p = stem;
    for (;;) {
        char *dash = strchr(p, '-');
        if (n == 6) {
            n = 7;
            break;
        }
        parts[n++] = p;
        if (!dash)
            break;
        *dash = '\0';
        p = dash + 1;
    }
    if (n != 5 && n != 6)
        return wheel_fail(err, xasprintf("`%s` is not a wheel filename (%s dash-separated "
                                         "parts; 5 or 6 expected)",
                                         filename, n > 6 ? "too many" : "too few"));
    for (size_t i = 0; i < n; i++)
        if (parts[i][0] == '\0')
            return wheel_fail(err, xasprintf("`%s` is not a wheel filename (an empty part)",
                                             filename));
    *np = n;
    return true;
}

/* The build tag: a digit run (its number), then wheel characters. */
static bool wheel_build(arena *a, const char *filename, const char *b, pypi_wheel_name *out,
                        char **err)
{
    size_t digits = 0;
    while (isdigit((unsigned char)b[digits]))
        digits++;
    if (digits == 0)
        return wheel_fail(err, xasprintf("`%s` is not a wheel filename (build tag `%s` does not "
                                         "start with a digit)", filename, b));
    if (!wheel_chars(b + digits))
        return wheel_fail(err, xasprintf("`%s` is not a wheel filename (build tag `%s` is not a "
                                         "digit then letters, digits, `_` and `.`)", filename, b));
    out->build = b;
    out->build_num = pypi_num_u64(arena_strndup(a, b, digits));
    out->build_rest = b + digits;
    return true;
}

/* The compressed tag set py-abi-plat, each dot-separated, expanded. */
static bool wheel_tags(arena *a, const char *filename, char *const tags[3], pypi_wheel_name *out,
                       char **err)
{
    for (size_t i = 0; i < 3; i++)
        if (!wheel_chars(tags[i]))
            return wheel_fail(err, xasprintf("`%s` is not a wheel filename (tag `%s` is not "
                                             "letters, digits, `_` and `.`)", filename, tags[i]));
    char **py, **abi, **plat;
    size_t npy = split_dots(a, tags[0], &py);
    size_t nabi = split_dots(a, tags[1], &abi);
    size_t nplat = split_dots(a, tags[2], &plat);
    for (size_t i = 0; i < npy; i++)
        for (size_t j = 0; j < nabi; j++)
            for (size_t k = 0; k < nplat; k++)
                if (!py[i][0] || !abi[j][0] || !plat[k][0])
                    return wheel_fail(err, xasprintf("`%s` is not a wheel filename (an empty "
                                                     "tag)", filename));
    out->ntags = npy * nabi * nplat;
    out->tags = arena_alloc(a, out->ntags * sizeof *out->tags);
    size_t m = 0;
    for (size_t i = 0; i < npy; i++)
        for (size_t j = 0; j < nabi; j++)
            for (size_t k = 0; k < nplat; k++)
                out->tags[m++] = (pypi_tag){ py[i], abi[j], plat[k] };
    return true;
}

bool pypi_wheel_name_parse(arena *a, const char *filename, pypi_wheel_name *out, char **err)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(filename), n;
    if (len < 5 || strcmp(filename + len - 4, ".whl") != 0)
        return wheel_fail(err, xasprintf("`%s` is not a wheel filename (no .whl)", filename));
    char *parts[6];
    if (!wheel_parts(filename, arena_strndup(a, filename, len - 4), parts, &n, err))
        return false;
    if (!wheel_chars(parts[0]))
        return wheel_fail(err, xasprintf("`%s` is not a wheel filename (invalid project name "
                                         "`%s`)", filename, parts[0]));
    out->name = parts[0];
    out->version = parts[1];
    if (n == 6 && !wheel_build(a, filename, parts[2], out, err))
        return false;
    return wheel_tags(a, filename, parts + n - 3, out, err);
}

/* ---- the target's tag list ---- */

typedef struct tagbuild {
    ptrvec v;
} tagbuild;

static void add_tag(tagbuild *b, const char *interp, const char *abi, const char *plat)
{
    ptrvec_push(&b->v, xasprintf("%s-%s-%s", interp, abi, plat));
}

static int cmp_sorted(const void *a, const void *b)
{
    return strcmp(((const struct sorted_tag *)a)->s, ((const struct sorted_tag *)b)->s);
}

/* Parses "manylinux_2_N_ARCH", "manylinux1|2010|2014_ARCH",
 * "musllinux_1_N_ARCH" into libc, major, minor and arch. */
static bool parse_platform(const char *p, bool *musl, unsigned *maj, unsigned *min, char **arch)
{
    static const struct { const char *name; unsigned maj, min; } legacy[] = {
        { "manylinux1_", 2, 5 }, { "manylinux2010_", 2, 12 }, { "manylinux2014_", 2, 17 } };
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++) {
        size_t ln = strlen(legacy[i].name);
        if (strncmp(p, legacy[i].name, ln) == 0 && p[ln]) {
            *musl = false;
            *maj = legacy[i].maj;
            *min = legacy[i].min;
            *arch = xstrdup(p + ln);
            return true;
        }
    }
    const char *rest;
    if (strncmp(p, "manylinux_", 10) == 0) {
        *musl = false;
        rest = p + 10;
    } else if (strncmp(p, "musllinux_", 10) == 0) {
        *musl = true;
        rest = p + 10;
    } else {
        return false;
    }
    const char *u1 = strchr(rest, '_');
    if (!u1 || !all_digits(rest, (size_t)(u1 - rest)) || u1 - rest > 3)
        return false;
    const char *u2 = strchr(u1 + 1, '_');
    if (!u2 || !all_digits(u1 + 1, (size_t)(u2 - u1 - 1)) || u2 - u1 - 1 > 3 || !u2[1])
        return false;
    *maj = (unsigned)atoi(rest);
    *min = (unsigned)atoi(u1 + 1);
    for (const char *q = u2 + 1; *q; q++)
        if (!(islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_'))
            return false;
    *arch = xstrdup(u2 + 1);
    return true;
}

/* X.Y or X.Y.Z, CPython 3 only, into parts; how many parts, 0 if invalid. */
static size_t cpython_version(const char *s, unsigned parts[3])
{
    size_t np = 0;
    while (np < 3) {
        size_t d = 0;
        while (isdigit((unsigned char)s[d]))
            d++;
        if (d == 0 || d > 3)
            return 0; /* empty or oversized component (also after a dot) */
        parts[np++] = (unsigned)atoi(s);
        s += d;
        if (*s != '.')
            break;
        s++;
    }
    return *s != '\0' || np < 2 || parts[0] != 3 ? 0 : np;
}

/* The platform tags a target accepts, best first (packaging's order). */
static void platform_tags(bool musl, unsigned min, const char *arch, ptrvec *plats)
{
    if (musl) {
        for (long m = (long)min; m >= 0; m--)
            ptrvec_push(plats, xasprintf("musllinux_1_%ld_%s", m, arch));
        return;
    }
    bool x86 = strcmp(arch, "x86_64") == 0 || strcmp(arch, "i686") == 0;
    long lowest = x86 ? 5 : 17;
    for (long m = (long)min; m >= lowest; m--) {
        ptrvec_push(plats, xasprintf("manylinux_2_%ld_%s", m, arch));
        if (m == 17)
            ptrvec_push(plats, xasprintf("manylinux2014_%s", arch));
        else if (m == 12)
            ptrvec_push(plats, xasprintf("manylinux2010_%s", arch));
        else if (m == 5)
            ptrvec_push(plats, xasprintf("manylinux1_%s", arch));
    }
}

/* sys_tags() for CPython 3.`minor` on `plats`: cpXY, abi3, none, older
 * abi3, then pyXY/py3/py3N on the platforms, then the `any` ones. */
static void cpython_tags(tagbuild *b, const char *cp, unsigned minor, const ptrvec *plats)
{
    for (size_t i = 0; i < plats->len; i++)
        add_tag(b, cp, cp, plats->items[i]);
    bool abi3 = minor >= 2; /* abi3 exists from 3.2 */
    if (abi3)
        for (size_t i = 0; i < plats->len; i++)
            add_tag(b, cp, "abi3", plats->items[i]);
    for (size_t i = 0; i < plats->len; i++)
        add_tag(b, cp, "none", plats->items[i]);
    for (long m = (long)minor - 1; abi3 && m >= 2; m--) {
        char older[16];
        snprintf(older, sizeof older, "cp3%ld", m);
        for (size_t i = 0; i < plats->len; i++)
            add_tag(b, older, "abi3", plats->items[i]);
    }
    /* pyXY, py3, py3(Y-1) ... py30 */
    ptrvec pys = PTRVEC_INIT;
    ptrvec_push(&pys, xasprintf("py3%u", minor));
    ptrvec_push(&pys, xstrdup("py3"));
    for (long m = (long)minor - 1; m >= 0; m--)
        ptrvec_push(&pys, xasprintf("py3%ld", m));
    for (size_t j = 0; j < pys.len; j++)
        for (size_t i = 0; i < plats->len; i++)
            add_tag(b, pys.items[j], "none", plats->items[i]);
    add_tag(b, cp, "none", "any");
    for (size_t j = 0; j < pys.len; j++)
        add_tag(b, pys.items[j], "none", "any");
    for (size_t j = 0; j < pys.len; j++)
        free(pys.items[j]);
    ptrvec_release(&pys);
}

pypi_tags *pypi_tags_new(const char *python_version, const char *platform, char **err)
{
    if (!python_version || !platform) { /* the target's: the catalog owns them */
        if (err)
            *err = xasprintf("no target %s was given", python_version ? "platform" : "Python");
        return NULL;
    }
    unsigned parts[3] = { 0, 0, 0 };
    size_t np = cpython_version(python_version, parts);
    if (!np) {
        if (err)
            *err = xasprintf("`%s` is not a CPython 3 version (3.X or 3.X.Y)", python_version);
        return NULL;
    }
    bool musl;
    unsigned maj, min;
    char *arch = NULL;
    if (!parse_platform(platform, &musl, &maj, &min, &arch) || (!musl && maj != 2) ||
        (musl && maj != 1)) {
        free(arch);
        if (err)
            *err = xasprintf("`%s` is not a platform tag envlock targets (manylinux_2_N_ARCH, "
                             "manylinux1/2010/2014_ARCH or musllinux_1_N_ARCH)", platform);
        return NULL;
    }
    pypi_tags *t = xcalloc(1, sizeof *t);
    t->arch = arch;
    t->musl = musl;
    t->platform = xasprintf("%s_%u_%u_%s", musl ? "musllinux" : "manylinux", maj, min, arch);
    t->python = xasprintf("%u.%u", parts[0], parts[1]);
    t->python_full = np == 3 ? xasprintf("%u.%u.%u", parts[0], parts[1], parts[2])
                             : xasprintf("%u.%u.0", parts[0], parts[1]);
    t->interp = xasprintf("cp%u%u", parts[0], parts[1]);
    ptrvec plats = PTRVEC_INIT;
    platform_tags(musl, min, arch, &plats);
    tagbuild b = { PTRVEC_INIT };
    cpython_tags(&b, t->interp, parts[1], &plats);
    for (size_t i = 0; i < plats.len; i++)
        free(plats.items[i]);
    ptrvec_release(&plats);
    t->list = (char **)b.v.items;
    t->n = b.v.len;
    t->sorted = xmalloc((t->n ? t->n : 1) * sizeof *t->sorted);
    for (size_t i = 0; i < t->n; i++)
        t->sorted[i] = (struct sorted_tag){ t->list[i], i };
    qsort(t->sorted, t->n, sizeof *t->sorted, cmp_sorted);
    return t;
}

void pypi_tags_free(pypi_tags *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->list[i]);
    free(t->list);
    free(t->sorted);
    free(t->interp);
    free(t->python);
    free(t->python_full);
    free(t->arch);
    free(t->platform);
    free(t);
}

size_t pypi_tags_len(const pypi_tags *t) { return t->n; }
const char *pypi_tags_at(const pypi_tags *t, size_t i) { return i < t->n ? t->list[i] : NULL; }
const char *pypi_tags_interp(const pypi_tags *t) { return t->interp; }
const char *pypi_tags_python(const pypi_tags *t) { return t->python; }
const char *pypi_tags_python_full(const pypi_tags *t) { return t->python_full; }
const char *pypi_tags_arch(const pypi_tags *t) { return t->arch; }
const char *pypi_tags_platform(const pypi_tags *t) { return t->platform; }
bool pypi_tags_musl(const pypi_tags *t) { return t->musl; }

long pypi_tags_rank(const pypi_tags *t, const pypi_tag *tag)
{
    char key[256];
    int k = snprintf(key, sizeof key, "%s-%s-%s", tag->interp, tag->abi, tag->plat);
    if (k < 0 || (size_t)k >= sizeof key)
        return -1;
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->sorted[mid].s, key);
        if (c == 0)
            return (long)t->sorted[mid].rank;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

long pypi_wheel_rank(const pypi_tags *t, const pypi_wheel_name *w)
{
    long best = -1;
    for (size_t i = 0; i < w->ntags; i++) {
        long r = pypi_tags_rank(t, &w->tags[i]);
        if (r >= 0 && (best < 0 || r < best))
            best = r;
    }
    return best;
}

/* conda_version.c — conda versions: parsing into components and runs, and
 * conda's VersionOrder comparison (condaver.h states the order). Owns no
 * spec syntax (conda_vspec.c) and nothing of match specs or repodata.
 *
 * A parsed version keeps one normalized copy of the text and, for the
 * version part (epoch first) and the local part, a list of components, each
 * a list of runs that point into that copy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "condaver.h"

typedef enum run_kind {
    RUN_STR = 0, /* letters, `_`, or the `*` wildcard run; compared by bytes */
    RUN_NUM,     /* digits, compared as a number */
    RUN_POST     /* the run "post": above every number */
} run_kind;

typedef struct run {
    run_kind kind;
    const char *s; /* into norm, or the static "0" / "DEV" */
    size_t len;
} run;

typedef struct comp {
    size_t first; /* index into runs */
    size_t n;
} comp;

struct conda_version {
    char *norm;
    run *runs;
    size_t n_runs;
    comp *comps;       /* version components (the epoch is the first) */
    size_t n_ver;      /* then local components */
    size_t n_local;
    bool has_local;
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool allowed(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || c == '*' || c == '.' || c == '+' || c == '!' || c == '_';
}

static conda_version *fail(conda_error *err, size_t column, const char *message, conda_version *v)
{
    if (err) {
        err->column = column;
        err->message = message;
    }
    conda_version_free(v);
    return NULL;
}

void conda_version_free(conda_version *v)
{
    if (!v)
        return;
    free(v->norm);
    free(v->runs);
    free(v->comps);
    free(v);
}

/* Cuts one component (no separators inside) into runs of digits, of `*` and
 * of anything else. "dev" reads as "DEV" (upper case sorts below every lower
 * case run and `_`, above `*`), "post" as RUN_POST; a component that starts
 * with a non-digit gets a leading 0 so numbers and strings stay in phase. */
static void add_component(conda_version *v, const char *s, size_t len)
{
    static const char zero[] = "0", dev[] = "DEV";
    comp *c = &v->comps[v->n_ver + v->n_local];
    c->first = v->n_runs;
    if (!is_digit(s[0]))
        v->runs[v->n_runs++] = (run){RUN_NUM, zero, 1};
    for (size_t i = 0; i < len;) {
        size_t j = i + 1;
        int cls = is_digit(s[i]) ? 0 : s[i] == '*' ? 1 : 2;
        while (j < len && (is_digit(s[j]) ? 0 : s[j] == '*' ? 1 : 2) == cls)
            j++;
        run r = {cls == 0 ? RUN_NUM : RUN_STR, s + i, j - i};
        if (cls == 2 && j - i == 4 && memcmp(s + i, "post", 4) == 0)
            r.kind = RUN_POST;
        else if (cls == 2 && j - i == 3 && memcmp(s + i, "dev", 3) == 0)
            r.s = dev;
        v->runs[v->n_runs++] = r;
        i = j;
    }
    c->n = v->n_runs - c->first;
}

/* Splits `s[0..len)` at `.` and `_` into components; `col0` is the column of
 * s[0] in the caller's text, for errors. A trailing `_` of the version part
 * (keep_trailing) stays in its component. Returns NULL or an error message. */
static const char *split_part(conda_version *v, const char *s, size_t len, bool keep_trailing,
                              bool local, size_t col0, size_t *bad_col)
{
    size_t end = len;
    if (keep_trailing && len > 0 && s[len - 1] == '_')
        end = len - 1;
    size_t start = 0;
    for (size_t i = 0; i <= end; i++) {
        if (i < end && s[i] != '.' && s[i] != '_')
            continue;
        size_t clen = i - start;
        if (i == end && end < len)
            clen++; /* the kept trailing `_` */
        if (clen == 0) {
            *bad_col = col0 + start;
            return "empty version component";
        }
        add_component(v, s + start, clen);
        if (local)
            v->n_local++;
        else
            v->n_ver++;
        start = i + 1;
    }
    return NULL;
}

/* Trims, lower-cases and checks the characters (reading `-` as `_` when the
 * text has no `_`). Returns the normalized copy or NULL with *err. */
static char *normalize(const char *text, size_t len, size_t *lead, conda_error *err)
{
    size_t b = 0, e = len;
    while (b < e && is_space(text[b]))
        b++;
    while (e > b && is_space(text[e - 1]))
        e--;
    *lead = b;
    if (b == e) {
        fail(err, b + 1, "empty version string", NULL);
        return NULL;
    }
    if (e - b > CONDA_VERSION_MAX) {
        fail(err, b + 1, "version is longer than 1024 bytes", NULL);
        return NULL;
    }
    char *norm = xstrndup(text + b, e - b);
    bool dash = false, underscore = false;
    for (size_t i = 0; norm[i]; i++) {
        if (norm[i] >= 'A' && norm[i] <= 'Z')
            norm[i] = (char)(norm[i] - 'A' + 'a');
        dash |= norm[i] == '-';
        underscore |= norm[i] == '_';
    }
    for (size_t i = 0; norm[i]; i++) {
        if (norm[i] == '-' && dash && !underscore)
            norm[i] = '_';
        if (!allowed(norm[i])) {
            fail(err, b + i + 1, "invalid character(s)", NULL);
            free(norm);
            return NULL;
        }
    }
    return norm;
}

/* Separates epoch, version and local parts of `n` (normalized) and builds
 * the components. Returns NULL or the error message with *col. */
static const char *build(conda_version *v, const char *n, size_t lead, size_t *col)
{
    size_t len = strlen(n);
    const char *bang = strchr(n, '!'), *rest = n;
    if (bang && strchr(bang + 1, '!')) {
        *col = lead + (size_t)(strchr(bang + 1, '!') - n) + 1;
        return "duplicated epoch separator '!'";
    }
    if (bang) {
        if (bang == n) {
            *col = lead + 1;
            return "epoch must be an integer";
        }
        for (const char *p = n; p < bang; p++)
            if (!is_digit(*p)) {
                *col = lead + (size_t)(p - n) + 1;
                return "epoch must be an integer";
            }
        add_component(v, n, (size_t)(bang - n));
        v->n_ver++;
        rest = bang + 1;
    } else {
        add_component(v, "0", 1);
        v->n_ver++;
    }
    const char *plus = strchr(rest, '+');
    if (plus && strchr(plus + 1, '+')) {
        *col = lead + (size_t)(strchr(plus + 1, '+') - n) + 1;
        return "duplicated local version separator '+'";
    }
    size_t vlen = plus ? (size_t)(plus - rest) : (size_t)(n + len - rest);
    if (vlen == 0) {
        *col = lead + (size_t)(rest - n) + 1;
        return "missing version before the local version separator '+'";
    }
    const char *msg = split_part(v, rest, vlen, true, false, lead + (size_t)(rest - n) + 1, col);
    if (msg || !plus)
        return msg;
    v->has_local = true;
    return split_part(v, plus + 1, strlen(plus + 1), false, true, lead + (size_t)(plus - n) + 2, col);
}

conda_version *conda_version_parse(const char *text, size_t len, conda_error *err)
{
    if (memchr(text, '\0', len))
        return fail(err, (size_t)((const char *)memchr(text, '\0', len) - text) + 1,
                    "invalid character(s)", NULL);
    size_t lead = 0;
    char *norm = normalize(text, len, &lead, err);
    if (!norm)
        return NULL;
    conda_version *v = xcalloc(1, sizeof *v);
    v->norm = norm;
    size_t n = strlen(norm);
    /* Every byte starts at most one run, plus one implicit 0 per component
     * and the implicit epoch: 2n + 2 runs and n + 2 components suffice. */
    v->runs = xcalloc(2 * n + 2, sizeof *v->runs);
    v->comps = xcalloc(n + 2, sizeof *v->comps);
    size_t col = 0;
    const char *msg = build(v, norm, lead, &col);
    if (msg)
        return fail(err, col, msg, v);
    return v;
}

const char *conda_version_norm(const conda_version *v) { return v->norm; }
bool conda_version_has_local(const conda_version *v) { return v->has_local; }

/* Digit runs as numbers of any length: leading zeros skipped, then the
 * longer is larger, then bytes. */
static int num_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    while (al > 1 && *a == '0')
        a++, al--;
    while (bl > 1 && *b == '0')
        b++, bl--;
    if (al != bl)
        return al < bl ? -1 : 1;
    int c = memcmp(a, b, al);
    return c < 0 ? -1 : c > 0;
}

/* One run against another: strings below numbers, `post` above numbers,
 * strings among themselves by bytes (Python's str order), as conda. */
static int run_cmp(const run *a, const run *b)
{
    if (a->kind == RUN_STR && b->kind == RUN_STR) {
        size_t m = a->len < b->len ? a->len : b->len;
        int c = memcmp(a->s, b->s, m);
        if (c)
            return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    if (a->kind == RUN_STR)
        return -1;
    if (b->kind == RUN_STR)
        return 1;
    if (a->kind == RUN_POST || b->kind == RUN_POST)
        return a->kind == b->kind ? 0 : a->kind == RUN_POST ? 1 : -1;
    return num_cmp(a->s, a->len, b->s, b->len);
}

static const run fill = {RUN_NUM, "0", 1};

static const run *run_at(const conda_version *v, const comp *c, size_t i)
{
    return c && i < c->n ? &v->runs[c->first + i] : &fill;
}

/* Components [0, na) of a against [0, nb) of b, missing ones empty and
 * missing runs 0. */
static int comps_cmp(const conda_version *a, const comp *ca, size_t na,
                     const conda_version *b, const comp *cb, size_t nb)
{
    size_t n = na > nb ? na : nb;
    for (size_t i = 0; i < n; i++) {
        const comp *x = i < na ? &ca[i] : NULL, *y = i < nb ? &cb[i] : NULL;
        size_t xn = x ? x->n : 0, yn = y ? y->n : 0;
        size_t m = xn > yn ? xn : yn;
        for (size_t j = 0; j < m; j++) {
            int c = run_cmp(run_at(a, x, j), run_at(b, y, j));
            if (c)
                return c;
        }
    }
    return 0;
}

int conda_version_cmp(const conda_version *a, const conda_version *b)
{
    int c = comps_cmp(a, a->comps, a->n_ver, b, b->comps, b->n_ver);
    if (c)
        return c;
    return comps_cmp(a, a->comps + a->n_ver, a->n_local, b, b->comps + b->n_ver, b->n_local);
}

/* Whether component x of v starts with component y of p: every run but
 * the last equal, the last equal too, or when it is a string, a byte prefix
 * of v's run at that place (which must be a string as well). */
static bool comp_startswith(const conda_version *v, const comp *x, const conda_version *p,
                            const comp *y)
{
    for (size_t j = 0; j + 1 < y->n; j++)
        if (run_cmp(run_at(v, x, j), run_at(p, y, j)) != 0)
            return false;
    const run *last = run_at(p, y, y->n - 1), *mine = run_at(v, x, y->n - 1);
    if (last->kind != RUN_STR)
        return run_cmp(mine, last) == 0;
    return mine->kind == RUN_STR && mine->len >= last->len && memcmp(mine->s, last->s, last->len) == 0;
}

bool conda_version_startswith(const conda_version *v, const conda_version *prefix)
{
    const comp *tv = v->comps, *tp = prefix->comps;
    size_t nv = v->n_ver, np = prefix->n_ver;
    if (prefix->has_local) {
        if (comps_cmp(v, v->comps, v->n_ver, prefix, prefix->comps, prefix->n_ver) != 0)
            return false;
        tv = v->comps + v->n_ver, nv = v->n_local;
        tp = prefix->comps + prefix->n_ver, np = prefix->n_local;
    }
    if (comps_cmp(v, tv, nv < np - 1 ? nv : np - 1, prefix, tp, np - 1) != 0)
        return false;
    return comp_startswith(v, np - 1 < nv ? &tv[np - 1] : NULL, prefix, &tp[np - 1]);
}

char *conda_version_repr(const conda_version *v, bool local)
{
    strbuf sb = STRBUF_INIT;
    const comp *c = local ? v->comps + v->n_ver : v->comps;
    size_t n = local ? v->n_local : v->n_ver;
    sb_addc(&sb, '[');
    for (size_t i = 0; i < n; i++) {
        sb_adds(&sb, i ? ", [" : "[");
        for (size_t j = 0; j < c[i].n; j++) {
            const run *r = &v->runs[c[i].first + j];
            const char *s = r->s;
            size_t len = r->len;
            if (j)
                sb_adds(&sb, ", ");
            while (r->kind == RUN_NUM && len > 1 && *s == '0')
                s++, len--;
            if (r->kind == RUN_POST)
                sb_adds(&sb, "inf");
            else if (r->kind == RUN_NUM)
                sb_add(&sb, s, len);
            else {
                sb_addc(&sb, '\'');
                sb_add(&sb, s, len);
                sb_addc(&sb, '\'');
            }
        }
        sb_addc(&sb, ']');
    }
    sb_addc(&sb, ']');
    return sb_detach(&sb, NULL);
}

int conda_version_cmp_str(const char *a, const char *b, int *cmp, char **msg)
{
    conda_error e = {0, NULL};
    conda_version *va = conda_version_parse(a, strlen(a), &e);
    if (!va) {
        if (msg)
            *msg = xasprintf("not a conda version: column %zu: %s", e.column, e.message);
        return -1;
    }
    conda_version *vb = conda_version_parse(b, strlen(b), &e);
    if (!vb) {
        conda_version_free(va);
        if (msg)
            *msg = xasprintf("not a conda version: column %zu: %s", e.column, e.message);
        return -2;
    }
    *cmp = conda_version_cmp(va, vb);
    conda_version_free(va);
    conda_version_free(vb);
    return 0;
}

/* pep440_version.c — PEP 440 version parsing, normalization and ordering,
 * matching packaging 23.0's Version exactly (its VERSION_PATTERN, matched
 * case-insensitively between optional outer whitespace). It also owns the
 * two text helpers the specifier and requirement grammars share: Python's
 * whitespace set and digit-string arithmetic. Specifiers live in
 * pep440_specifier.c; nothing here knows about them.
 *
 * Numbers are digit strings with leading zeros removed, compared by length
 * then bytes, so arbitrarily long components order correctly. (packaging
 * itself refuses components over 4300 digits because of CPython's int
 * conversion limit; we accept them — a deliberate deviation.) */
#include <stdlib.h>
#include <string.h>

#include "pep440.h"
#include "util.h"

struct pypi_local_seg {
    bool num;
    const char *s;
};

struct pypi_version {
    const char *str, *public_, *base, *local;
    const char *epoch;
    size_t nrel;
    const char **rel;
    pypi_pre_kind pre;
    const char *pre_num;
    const char *post, *dev;
    size_t nloc;
    struct pypi_local_seg *loc;
    /* All strings above point into pool. */
    char *pool;
    size_t pool_used, pool_size;
};

/* ---- Python whitespace ---- */

size_t pypi_space_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (p[0] == ' ' || (p[0] >= 0x09 && p[0] <= 0x0d) || (p[0] >= 0x1c && p[0] <= 0x1f))
        return 1;
    if (p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
        return 2;
    if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80) /* U+1680 */
        return 3;
    if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) /* U+2000..200A */
                                         || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
        return 3;
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f) /* U+205F */
        return 3;
    if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80) /* U+3000 */
        return 3;
    return 0;
}

/* Length of the whitespace character ending just before `end` (>= start). */
static size_t space_len_before(const char *start, const char *end)
{
    for (size_t k = 1; k <= 3 && (size_t)(end - start) >= k; k++) {
        size_t n = pypi_space_len(end - k);
        if (n == k)
            return k;
    }
    return 0;
}

void pypi_strip(const char **start, const char **end)
{
    const char *p = *start, *e = *end;
    size_t k;
    while (p < e && (k = pypi_space_len(p)) > 0)
        p += k;
    while (e > p && (k = space_len_before(p, e)) > 0)
        e -= k;
    *start = p;
    *end = e;
}

uint64_t pypi_num_u64(const char *digits)
{
    uint64_t v = 0;
    for (const char *p = digits; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return UINT64_MAX;
        v = v * 10 + d;
    }
    return v;
}

/* Compare two normalized digit strings numerically. */
static int num_cmp(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb)
        return la < lb ? -1 : 1;
    int c = memcmp(a, b, la);
    return c < 0 ? -1 : c > 0;
}

/* ---- the parser ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_sep(char c) { return c == '-' || c == '_' || c == '.'; }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
static bool is_alnum_ci(char c) { return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z'); }

/* A (pointer, length) view into the input. */
typedef struct {
    const char *p;
    size_t n;
} view;

static size_t span_digits(const char *p, const char *e)
{
    size_t n = 0;
    while (p + n < e && is_digit(p[n]))
        n++;
    return n;
}

/* Case-insensitive match of one of `words` (longest first) at p; returns the
 * index matched or -1, and its length in *len. */
static int match_word(const char *p, const char *e, const char *const *words, size_t nwords, size_t *len)
{
    int best = -1;
    size_t bestlen = 0;
    for (size_t i = 0; i < nwords; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(e - p) < n || n <= bestlen)
            continue;
        size_t k = 0;
        while (k < n && lower(p[k]) == words[i][k])
            k++;
        if (k == n) {
            best = (int)i;
            bestlen = n;
        }
    }
    *len = bestlen;
    return best;
}

static const char *const pre_words[] = {"a", "b", "c", "rc", "alpha", "beta", "pre", "preview"};
static const pypi_pre_kind pre_kinds[] = {PYPI_PRE_A, PYPI_PRE_B, PYPI_PRE_RC, PYPI_PRE_RC,
                                          PYPI_PRE_A, PYPI_PRE_B, PYPI_PRE_RC, PYPI_PRE_RC};
static const char *const post_words[] = {"post", "rev", "r"};
static const char *const dev_words[] = {"dev"};

typedef struct {
    view epoch;          /* n == 0: absent */
    view rel[64];        /* first 64 inline */
    view *relv;          /* all of them */
    size_t nrel;
    pypi_pre_kind pre;
    view pre_num;        /* n == 0: implicit 0 */
    bool has_post, has_dev;
    view post_num, dev_num;
    view local;          /* n == 0: absent */
} raw_version;

/* Each part of the grammar below matches at p and returns where the
 * version goes on (p itself when the optional part is absent), or NULL
 * when the text cannot be a version. */

/* release: N(.N)*, into r->relv (grown past r->rel on the heap) */
static const char *match_release(const char *p, const char *e, raw_version *r)
{
    size_t relalloc = 64;
    size_t n = span_digits(p, e);
    if (n == 0)
        return NULL;
    for (;;) {
        if (r->nrel == relalloc) {
            relalloc *= 2;
            if (r->relv == r->rel) {
                r->relv = xmalloc(relalloc * sizeof(view));
                memcpy(r->relv, r->rel, sizeof r->rel);
            } else {
                r->relv = xrealloc(r->relv, relalloc * sizeof(view));
            }
        }
        r->relv[r->nrel++] = (view){p, n};
        p += n;
        if (p + 1 < e && *p == '.' && is_digit(p[1])) {
            p++;
            n = span_digits(p, e);
            continue;
        }
        return p;
    }
}

/* [sep] WORD [sep] N? for one of `words`; the number into *num, and the
 * word's index (or -1: p unchanged). */
static int match_tagged(const char **p, const char *e, const char *const *words, size_t nwords,
                        view *num)
{
    const char *q = *p;
    if (q < e && is_sep(*q))
        q++;
    size_t wl;
    int w = match_word(q, e, words, nwords, &wl);
    if (w < 0)
        return -1;
    q += wl;
    if (q < e && is_sep(*q))
        q++;
    size_t n = span_digits(q, e);
    *num = (view){q, n};
    *p = q + n;
    return w;
}

static const char *match_post(const char *p, const char *e, raw_version *r)
{
    if (p + 1 < e && *p == '-' && is_digit(p[1])) {
        size_t n = span_digits(p + 1, e);
        r->has_post = true;
        r->post_num = (view){p + 1, n};
        return p + 1 + n;
    }
    if (match_tagged(&p, e, post_words, 3, &r->post_num) >= 0)
        r->has_post = true;
    return p;
}

/* local: + alnum segments separated by . - _ */
static const char *match_local(const char *p, const char *e, raw_version *r)
{
    if (p >= e || *p != '+')
        return p;
    const char *q = p + 1;
    const char *start = q;
    for (;;) {
        size_t k = 0;
        while (q + k < e && is_alnum_ci(q[k]))
            k++;
        if (k == 0)
            return NULL;
        q += k;
        if (q + 1 < e && is_sep(*q) && is_alnum_ci(q[1])) {
            q++;
            continue;
        }
        break;
    }
    r->local = (view){start, (size_t)(q - start)};
    return q;
}

/* Match the version grammar on [p, e); true if it covers all of it. On
 * success r->relv points at r->rel or a malloc'd array (caller frees when
 * != r->rel). */
static bool match_version(const char *p, const char *e, raw_version *r)
{
    memset(r, 0, sizeof *r);
    r->relv = r->rel;
    if (p < e && lower(*p) == 'v')
        p++;
    size_t n = span_digits(p, e);
    if (n > 0 && p + n < e && p[n] == '!') {
        r->epoch = (view){p, n};
        p += n + 1;
    }
    p = match_release(p, e, r);
    if (p) {
        int w = match_tagged(&p, e, pre_words, 8, &r->pre_num);
        if (w >= 0)
            r->pre = pre_kinds[w];
        p = match_post(p, e, r);
        if (match_tagged(&p, e, dev_words, 1, &r->dev_num) >= 0)
            r->has_dev = true;
        p = match_local(p, e, r);
    }
    if (p == e)
        return true;
    if (r->relv != r->rel)
        free(r->relv);
    r->relv = r->rel;
    return false;
}

/* ---- building the object ---- */

static char *pool_take(pypi_version *v, size_t n)
{
    if (v->pool_used + n + 1 > v->pool_size)
        abort(); /* the size bound in build() is wrong: a bug, not input */
    char *p = v->pool + v->pool_used;
    v->pool_used += n + 1;
    return p;
}

/* Copy a digit view without leading zeros ("0" if empty or all zeros). */
static const char *pool_num(pypi_version *v, view d)
{
    while (d.n > 1 && d.p[0] == '0') {
        d.p++;
        d.n--;
    }
    if (d.n == 0 || (d.n == 1 && d.p[0] == '0'))
        d = (view){"0", 1};
    char *s = pool_take(v, d.n);
    memcpy(s, d.p, d.n);
    s[d.n] = '\0';
    return s;
}

static const char *pool_str(pypi_version *v, const char *s, size_t n)
{
    char *p = pool_take(v, n);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static const char *pre_letters(pypi_pre_kind k)
{
    return k == PYPI_PRE_A ? "a" : k == PYPI_PRE_B ? "b" : "rc";
}

static pypi_version *build(const char *text, size_t len, const raw_version *r)
{
    pypi_version *v = xcalloc(1, sizeof *v);
    /* Every stored string is at most the input length plus a few added
     * characters (implicit numbers, ".post", ".dev"), and there are fewer
     * than 8 copies of each part. */
    v->pool_size = 8 * len + 64 * 8 + 8 * r->nrel + 16;
    v->pool = xmalloc(v->pool_size);
    v->epoch = r->epoch.n ? pool_num(v, r->epoch) : pool_str(v, "0", 1);
    v->nrel = r->nrel;
    v->rel = xmalloc(r->nrel * sizeof(char *));
    for (size_t i = 0; i < r->nrel; i++)
        v->rel[i] = pool_num(v, r->relv[i]);
    v->pre = r->pre;
    v->pre_num = r->pre ? pool_num(v, r->pre_num) : NULL;
    v->post = r->has_post ? pool_num(v, r->post_num) : NULL;
    v->dev = r->has_dev ? pool_num(v, r->dev_num) : NULL;
    if (r->local.n) {
        size_t nseg = 1;
        for (size_t i = 0; i < r->local.n; i++)
            nseg += is_sep(r->local.p[i]);
        v->loc = xmalloc(nseg * sizeof *v->loc);
        strbuf lb = STRBUF_INIT;
        const char *p = r->local.p, *e = r->local.p + r->local.n;
        while (p < e) {
            const char *q = p;
            while (q < e && !is_sep(*q))
                q++;
            view seg = {p, (size_t)(q - p)};
            bool num = span_digits(p, q) == seg.n;
            const char *s;
            if (num) {
                s = pool_num(v, seg);
            } else {
                char *t = pool_take(v, seg.n);
                for (size_t i = 0; i < seg.n; i++)
                    t[i] = lower(seg.p[i]);
                t[seg.n] = '\0';
                s = t;
            }
            v->loc[v->nloc++] = (struct pypi_local_seg){num, s};
            if (lb.len)
                sb_addc(&lb, '.');
            sb_adds(&lb, s);
            p = q < e ? q + 1 : q;
        }
        v->local = pool_str(v, lb.buf, lb.len);
        sb_release(&lb);
    }
    strbuf sb = STRBUF_INIT;
    if (strcmp(v->epoch, "0") != 0)
        sb_addf(&sb, "%s!", v->epoch);
    for (size_t i = 0; i < v->nrel; i++) {
        if (i)
            sb_addc(&sb, '.');
        sb_adds(&sb, v->rel[i]);
    }
    v->base = pool_str(v, sb.buf, sb.len);
    if (v->pre)
        sb_addf(&sb, "%s%s", pre_letters(v->pre), v->pre_num);
    if (v->post)
        sb_addf(&sb, ".post%s", v->post);
    if (v->dev)
        sb_addf(&sb, ".dev%s", v->dev);
    v->public_ = pool_str(v, sb.buf, sb.len);
    if (v->local)
        sb_addf(&sb, "+%s", v->local);
    v->str = pool_str(v, sb.buf, sb.len);
    sb_release(&sb);
    (void)text;
    return v;
}

pypi_version *pypi_version_parse(const char *text, char **err)
{
    const char *p = text, *e = text + strlen(text);
    pypi_strip(&p, &e);
    raw_version r;
    if (!match_version(p, e, &r)) {
        if (err)
            *err = xstrdup("not a valid PEP 440 version");
        return NULL;
    }
    pypi_version *v = build(text, (size_t)(e - p), &r);
    if (r.relv != r.rel)
        free(r.relv);
    return v;
}

void pypi_version_free(pypi_version *v)
{
    if (!v)
        return;
    free(v->rel);
    free(v->loc);
    free(v->pool);
    free(v);
}

pypi_version *pypi_version_dup(const pypi_version *v)
{
    return pypi_version_parse(v->str, NULL);
}

/* ---- ordering ---- */

/* Release tuples compare as if zero-padded (packaging strips trailing zeros
 * and compares tuples, which is the same order). */
static int rel_cmp(const pypi_version *a, const pypi_version *b)
{
    size_t n = a->nrel > b->nrel ? a->nrel : b->nrel;
    for (size_t i = 0; i < n; i++) {
        const char *x = i < a->nrel ? a->rel[i] : "0";
        const char *y = i < b->nrel ? b->rel[i] : "0";
        int c = num_cmp(x, y);
        if (c)
            return c;
    }
    return 0;
}

/* Rank of the pre-release slot: 0 = dev-only (sorts first), 1..3 = a, b,
 * rc, 4 = none (final). */
static int pre_rank(const pypi_version *v)
{
    if (!v->pre && !v->post && v->dev)
        return 0;
    if (!v->pre)
        return 4;
    return (int)v->pre;
}

static int local_cmp(const pypi_version *a, const pypi_version *b)
{
    if (!a->local || !b->local)
        return (a->local != NULL) - (b->local != NULL);
    size_t n = a->nloc < b->nloc ? a->nloc : b->nloc;
    for (size_t i = 0; i < n; i++) {
        const struct pypi_local_seg *x = &a->loc[i], *y = &b->loc[i];
        int c;
        if (x->num != y->num)
            return x->num ? 1 : -1; /* alphanumeric < numeric */
        c = x->num ? num_cmp(x->s, y->s) : strcmp(x->s, y->s);
        if (c)
            return c < 0 ? -1 : 1;
    }
    return (a->nloc > n) - (b->nloc > n);
}

static int cmp_nolocal(const pypi_version *a, const pypi_version *b)
{
    int c = num_cmp(a->epoch, b->epoch);
    if (c)
        return c;
    if ((c = rel_cmp(a, b)))
        return c;
    int ra = pre_rank(a), rb = pre_rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra >= 1 && ra <= 3 && (c = num_cmp(a->pre_num, b->pre_num)))
        return c;
    /* post: absent sorts first */
    if (!a->post != !b->post)
        return a->post ? 1 : -1;
    if (a->post && (c = num_cmp(a->post, b->post)))
        return c;
    /* dev: absent sorts last */
    if (!a->dev != !b->dev)
        return a->dev ? -1 : 1;
    if (a->dev && (c = num_cmp(a->dev, b->dev)))
        return c;
    return 0;
}

int pypi_version_cmp(const pypi_version *a, const pypi_version *b)
{
    int c = cmp_nolocal(a, b);
    return c ? c : local_cmp(a, b);
}

int pypi_version_cmp_public(const pypi_version *a, const pypi_version *b)
{
    return cmp_nolocal(a, b);
}

/* ---- accessors ---- */

const char *pypi_version_str(const pypi_version *v) { return v->str; }
const char *pypi_version_public(const pypi_version *v) { return v->public_; }
const char *pypi_version_base(const pypi_version *v) { return v->base; }
const char *pypi_version_local(const pypi_version *v) { return v->local; }
bool pypi_version_is_prerelease(const pypi_version *v) { return v->pre || v->dev; }
bool pypi_version_is_devrelease(const pypi_version *v) { return v->dev != NULL; }
bool pypi_version_is_postrelease(const pypi_version *v) { return v->post != NULL; }
const char *pypi_version_epoch(const pypi_version *v) { return v->epoch; }
size_t pypi_version_release_len(const pypi_version *v) { return v->nrel; }
const char *pypi_version_release_at(const pypi_version *v, size_t i) { return i < v->nrel ? v->rel[i] : NULL; }
const char *pypi_version_post(const pypi_version *v) { return v->post; }
const char *pypi_version_dev(const pypi_version *v) { return v->dev; }

pypi_pre_kind pypi_version_pre(const pypi_version *v, const char **num)
{
    if (num)
        *num = v->pre_num;
    return v->pre;
}

int pypi_version_cmp_str(const char *a, const char *b, int *cmp, char **err)
{
    pypi_version *va = pypi_version_parse(a, NULL);
    if (!va) {
        if (err)
            *err = xasprintf("`%s` is not a valid PEP 440 version", a);
        return -1;
    }
    pypi_version *vb = pypi_version_parse(b, NULL);
    if (!vb) {
        pypi_version_free(va);
        if (err)
            *err = xasprintf("`%s` is not a valid PEP 440 version", b);
        return -2;
    }
    *cmp = pypi_version_cmp(va, vb);
    pypi_version_free(va);
    pypi_version_free(vb);
    return 0;
}

/* pep440_specifier.c — PEP 440 version specifiers and specifier sets with
 * packaging 23.0's exact behaviour: its per-operator grammar (the Specifier
 * regex, re-implemented as a matcher that reproduces the regex's first-match
 * results), contains() with the pre-release, post-release and local-label
 * special cases of `<`, `>` and `==`, the string-based prefix matching of
 * `==X.*` and `~=`, and SpecifierSet.filter()'s pre-release fallback.
 * Version parsing and ordering live in pep440_version.c.
 *
 * Deliberate deviations from packaging (both are exceptions there):
 *  - An `===` item whose text is not a valid version (`===foo`) makes
 *    packaging raise InvalidVersion when it has to decide whether the set
 *    admits pre-releases by default; here such an item simply does not
 *    admit them.
 *  - `===` compares case-insensitively in ASCII only (Python lowercases all
 *    of Unicode, so `===1.0+\u212a` would match `1.0+k` there). */
#include <stdlib.h>
#include <string.h>

#include "pep440.h"
#include "util.h"

enum spec_op { OP_COMPAT, OP_EQ, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT, OP_ARB };

static const char *const op_text[] = {"~=", "==", "!=", "<=", ">=", "<", ">", "==="};

typedef struct pypi_spec {
    enum spec_op op;
    char *ver;          /* version text as written (trimmed) */
    bool wildcard;      /* ==X.* / !=X.* */
    pypi_version *v;    /* parsed version (without ".*"); NULL only for === */
    char *canon;        /* canonicalize_version(ver, strip_trailing_zero=op != ~=) */
    char *text;         /* op + ver */
    bool prereleases;   /* Specifier.prereleases with no override */
} pypi_spec;

struct pypi_specset {
    size_t n;
    pypi_spec *items;
    char *str;
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_sep(char c) { return c == '-' || c == '_' || c == '.'; }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
static bool is_alnum_ci(char c) { return is_digit(c) || (lower(c) >= 'a' && lower(c) <= 'z'); }

static size_t digits(const char *p)
{
    size_t n = 0;
    while (is_digit(p[n]))
        n++;
    return n;
}

/* Case-insensitive longest match of one of `words` at p. */
static size_t word(const char *p, const char *const *words, size_t nwords)
{
    size_t best = 0;
    for (size_t i = 0; i < nwords; i++) {
        size_t n = strlen(words[i]), k = 0;
        while (k < n && p[k] && lower(p[k]) == words[i][k])
            k++;
        if (k == n && n > best)
            best = n;
    }
    return best;
}

static const char *const pre_words[] = {"alpha", "beta", "preview", "pre", "a", "b", "c", "rc"};
static const char *const post_words[] = {"post", "rev", "r"};

static size_t skip_space(const char *p)
{
    size_t n = 0, k;
    while ((k = pypi_space_len(p + n)) > 0)
        n += k;
    return n;
}

/* Match the version part for operator `op` at p (after the operator). Sets
 * *vstart to the start of the version text (after whitespace) and returns
 * the end, or NULL when the operator's version grammar does not match. This
 * follows the regex's first successful path; every optional group either
 * matches greedily or is skipped whole, which is what the regex does since
 * no later group can start with what an earlier one gave back. */
static const char *match_spec_version(enum spec_op op, const char *p, const char **vstart)
{
    p += skip_space(p);
    *vstart = p;
    if (op == OP_ARB) {
        while (*p && *p != ';' && *p != ')' && pypi_space_len(p) == 0)
            p++;
        return p;
    }
    if (lower(*p) == 'v')
        p++;
    size_t n = digits(p);
    if (n && p[n] == '!')
        p += n + 1;
    n = digits(p);
    if (!n)
        return NULL;
    p += n;
    size_t nrel = 1;
    while (p[0] == '.' && is_digit(p[1])) {
        p += 1 + digits(p + 1);
        nrel++;
    }
    if (op == OP_COMPAT && nrel < 2)
        return NULL;
    if ((op == OP_EQ || op == OP_NE) && p[0] == '.' && p[1] == '*')
        return p + 2;
    /* pre */
    {
        const char *q = p + is_sep(*p);
        size_t w = word(q, pre_words, 8);
        if (w) {
            q += w;
            q += is_sep(*q);
            p = q + digits(q);
        }
    }
    /* post */
    if (p[0] == '-' && is_digit(p[1])) {
        p += 1 + digits(p + 1);
    } else {
        const char *q = p + is_sep(*p);
        size_t w = word(q, post_words, 3);
        if (w) {
            q += w;
            q += is_sep(*q);
            p = q + digits(q);
        }
    }
    /* dev */
    {
        const char *q = p + is_sep(*p);
        static const char *const dev_words[] = {"dev"};
        size_t w = word(q, dev_words, 1);
        if (w) {
            q += w;
            q += is_sep(*q);
            p = q + digits(q);
        }
    }
    /* local, only for == and != */
    if ((op == OP_EQ || op == OP_NE) && p[0] == '+' && is_alnum_ci(p[1])) {
        p++;
        for (;;) {
            while (is_alnum_ci(*p))
                p++;
            if (is_sep(p[0]) && is_alnum_ci(p[1])) {
                p++;
                continue;
            }
            break;
        }
    }
    return p;
}

/* Operator at p: longest first, so "===" beats "==" only when "==" cannot
 * be followed by a valid version (which is always, as versions never start
 * with "="). Returns the operator length, 0 if none. */
static size_t match_op(const char *p, enum spec_op *op)
{
    if (p[0] == '=' && p[1] == '=' && p[2] == '=') {
        *op = OP_ARB;
        return 3;
    }
    static const struct { const char *t; enum spec_op op; } two[] = {
        {"~=", OP_COMPAT}, {"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE},
    };
    for (size_t i = 0; i < 5; i++)
        if (p[0] == two[i].t[0] && p[1] == two[i].t[1]) {
            *op = two[i].op;
            return 2;
        }
    if (p[0] == '<') {
        *op = OP_LT;
        return 1;
    }
    if (p[0] == '>') {
        *op = OP_GT;
        return 1;
    }
    return 0;
}

/* One specifier at s (no leading whitespace): end of the match or NULL. */
static const char *match_spec(const char *s, enum spec_op *op, const char **vstart)
{
    size_t n = match_op(s, op);
    if (!n)
        return NULL;
    const char *e = match_spec_version(*op, s + n, vstart);
    if (!e && (*op == OP_LE || *op == OP_GE)) {
        /* "<=" failed: the regex would retry "<" with a version starting at
         * "=", which cannot match either. */
        return NULL;
    }
    return e;
}

size_t pypi_spec_match(const char *s)
{
    enum spec_op op;
    const char *vs;
    const char *e = match_spec(s, &op, &vs);
    return e ? (size_t)(e - s) : 0;
}

/* canonicalize_version(): normalized text with trailing ".0" release parts
 * dropped when `strip`; input that is not a version comes back unchanged. */
static char *canonical_version(const char *text, bool strip)
{
    pypi_version *v = pypi_version_parse(text, NULL);
    if (!v)
        return xstrdup(text);
    strbuf sb = STRBUF_INIT;
    const char *epoch = pypi_version_epoch(v);
    if (strcmp(epoch, "0") != 0)
        sb_addf(&sb, "%s!", epoch);
    size_t nrel = pypi_version_release_len(v);
    if (strip)
        while (nrel > 1 && strcmp(pypi_version_release_at(v, nrel - 1), "0") == 0)
            nrel--;
    for (size_t i = 0; i < nrel; i++) {
        if (i)
            sb_addc(&sb, '.');
        sb_adds(&sb, pypi_version_release_at(v, i));
    }
    /* The rest of the public version and the local label, verbatim. */
    const char *pub = pypi_version_str(v) + strlen(pypi_version_base(v));
    sb_adds(&sb, pub);
    pypi_version_free(v);
    return sb_detach(&sb, NULL);
}

/* ---- parsing ---- */

static void spec_release(pypi_spec *sp)
{
    free(sp->ver);
    pypi_version_free(sp->v);
    free(sp->canon);
    free(sp->text);
}

/* Parse one specifier item (already without surrounding whitespace). */
static bool spec_parse(const char *s, size_t len, pypi_spec *out, char **err)
{
    char *item = xstrndup(s, len);
    enum spec_op op = OP_EQ; /* set by match_spec() whenever it is read */
    const char *vs = NULL;
    const char *e = match_spec(item, &op, &vs);
    if (!e || *e) {
        if (err) {
            enum spec_op op2;
            if (!match_op(item, &op2))
                *err = xasprintf("`%s` does not start with a comparison operator"
                                 " (~=, ==, !=, <=, >=, <, >, ===)", item);
            else if (!e)
                *err = xasprintf("`%s` needs a valid version after `%s`%s", item, op_text[op],
                                 op == OP_COMPAT ? " (with at least two release numbers)" : "");
            else
                *err = xasprintf("unexpected `%s` in `%s`%s", e, item,
                                 (op != OP_EQ && op != OP_NE && (*e == '*' || *e == '+' || e[1] == '*'))
                                     ? " (wildcards and local versions only go with == and !=)"
                                     : "");
        }
        free(item);
        return false;
    }
    memset(out, 0, sizeof *out);
    out->op = op;
    out->ver = xstrndup(vs, (size_t)(e - vs));
    out->text = xasprintf("%s%s", op_text[op], out->ver);
    size_t vl = strlen(out->ver);
    out->wildcard = (op == OP_EQ || op == OP_NE) && vl >= 2 && strcmp(out->ver + vl - 2, ".*") == 0;
    if (out->wildcard) {
        char *t = xstrndup(out->ver, vl - 2);
        out->v = pypi_version_parse(t, NULL);
        free(t);
    } else {
        out->v = pypi_version_parse(out->ver, NULL);
    }
    out->canon = canonical_version(out->ver, op != OP_COMPAT);
    if (op == OP_EQ || op == OP_GE || op == OP_LE || op == OP_COMPAT || op == OP_ARB)
        out->prereleases = out->v && pypi_version_is_prerelease(out->v);
    free(item);
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

pypi_specset *pypi_specset_parse(const char *text, char **err)
{
    pypi_specset *set = xcalloc(1, sizeof *set);
    size_t alloc = 0;
    const char *p = text;
    for (;;) {
        const char *c = strchr(p, ',');
        const char *e = c ? c : p + strlen(p);
        /* strip Python whitespace on both sides */
        const char *a = p, *b = e;
        pypi_strip(&a, &b);
        if (b > a) {
            pypi_spec sp;
            if (!spec_parse(a, (size_t)(b - a), &sp, err)) {
                pypi_specset_free(set);
                return NULL;
            }
            bool dup = false;
            for (size_t i = 0; i < set->n && !dup; i++)
                dup = set->items[i].op == sp.op && strcmp(set->items[i].canon, sp.canon) == 0;
            if (dup) {
                spec_release(&sp);
            } else {
                if (set->n == alloc) {
                    alloc = alloc ? 2 * alloc : 4;
                    set->items = xrealloc(set->items, alloc * sizeof *set->items);
                }
                set->items[set->n++] = sp;
            }
        }
        if (!c)
            break;
        p = c + 1;
    }
    const char **texts = xmalloc((set->n + 1) * sizeof(char *));
    for (size_t i = 0; i < set->n; i++)
        texts[i] = set->items[i].text;
    qsort(texts, set->n, sizeof(char *), cmp_str);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < set->n; i++) {
        if (i)
            sb_addc(&sb, ',');
        sb_adds(&sb, texts[i]);
    }
    free(texts);
    set->str = sb_detach(&sb, NULL);
    return set;
}

void pypi_specset_free(pypi_specset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        spec_release(&s->items[i]);
    free(s->items);
    free(s->str);
    free(s);
}

size_t pypi_specset_len(const pypi_specset *s) { return s->n; }
const char *pypi_specset_op(const pypi_specset *s, size_t i) { return op_text[s->items[i].op]; }
const char *pypi_specset_version(const pypi_specset *s, size_t i) { return s->items[i].ver; }
const char *pypi_specset_str(const pypi_specset *s) { return s->str; }

int pypi_specset_prereleases(const pypi_specset *s)
{
    if (s->n == 0)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].prereleases)
            return 1;
    return 0;
}

/* ---- matching ---- */

/* Version(a.public) vs b, for spec versions b that have no local label. */
static int cmp_public(const pypi_version *a, const pypi_version *b)
{
    return pypi_version_cmp_public(a, b);
}

/* Version(a.base_version) == Version(b.base_version) */
static bool base_eq(const pypi_version *a, const pypi_version *b)
{
    if (strcmp(pypi_version_epoch(a), pypi_version_epoch(b)) != 0)
        return false;
    size_t na = pypi_version_release_len(a), nb = pypi_version_release_len(b);
    size_t n = na > nb ? na : nb;
    for (size_t i = 0; i < n; i++) {
        const char *x = i < na ? pypi_version_release_at(a, i) : "0";
        const char *y = i < nb ? pypi_version_release_at(b, i) : "0";
        if (strcmp(x, y) != 0)
            return false;
    }
    return true;
}

/* packaging's _version_split(): split on ".", and split "1rc2"-shaped items
 * (digits then a|b|c|rc then digits) in two. Pushes malloc'd strings. */
static void version_split(const char *s, ptrvec *out)
{
    const char *p = s;
    for (;;) {
        const char *e = strchr(p, '.');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t d = 0;
        while (d < n && is_digit(p[d]))
            d++;
        size_t split = 0;
        if (d > 0 && d < n) {
            size_t l = 0;
            if (p[d] == 'a' || p[d] == 'b' || p[d] == 'c')
                l = 1;
            else if (p[d] == 'r' && d + 1 < n && p[d + 1] == 'c')
                l = 2;
            size_t k = d + l;
            if (l && k < n) {
                size_t m = k;
                while (m < n && is_digit(p[m]))
                    m++;
                if (m == n)
                    split = d;
            }
        }
        if (split) {
            ptrvec_push(out, xstrndup(p, split));
            ptrvec_push(out, xstrndup(p + split, n - split));
        } else {
            ptrvec_push(out, xstrndup(p, n));
        }
        if (!e)
            break;
        p = e + 1;
    }
}

static void free_strings(ptrvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    ptrvec_release(v);
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!is_digit(*s))
            return false;
    return true;
}

/* _compare_equal() with a prefix ("X.*") spec; `prefix` is X. */
static bool prefix_match(const pypi_version *v, const char *prefix)
{
    char *pros = canonical_version(pypi_version_public(v), true);
    char *spec = canonical_version(prefix, false);
    ptrvec sp = PTRVEC_INIT, pv = PTRVEC_INIT;
    version_split(spec, &sp);
    version_split(pros, &pv);
    size_t sp_rel = 0, pv_rel = 0;
    while (sp_rel < sp.len && all_digits(sp.items[sp_rel]))
        sp_rel++;
    while (pv_rel < pv.len && all_digits(pv.items[pv_rel]))
        pv_rel++;
    size_t pad = sp_rel > pv_rel ? sp_rel - pv_rel : 0;
    /* padded prospective: pv[0..pv_rel) + "0"*pad + pv[pv_rel..) */
    bool ok = pv.len + pad >= sp.len;
    for (size_t i = 0; ok && i < sp.len; i++) {
        const char *item;
        if (i < pv_rel)
            item = pv.items[i];
        else if (i < pv_rel + pad)
            item = "0";
        else
            item = pv.items[i - pad];
        ok = strcmp(item, sp.items[i]) == 0;
    }
    free_strings(&sp);
    free_strings(&pv);
    free(pros);
    free(spec);
    return ok;
}

static bool is_suffix(const char *s)
{
    static const char *const pfx[] = {"dev", "a", "b", "rc", "post"};
    for (size_t i = 0; i < 5; i++)
        if (strncmp(s, pfx[i], strlen(pfx[i])) == 0)
            return true;
    return false;
}

static bool compare_equal(const pypi_spec *sp, const pypi_version *v)
{
    if (sp->wildcard) {
        char *t = xstrndup(sp->ver, strlen(sp->ver) - 2);
        bool r = prefix_match(v, t);
        free(t);
        return r;
    }
    if (pypi_version_local(sp->v))
        return pypi_version_cmp(v, sp->v) == 0;
    return cmp_public(v, sp->v) == 0;
}

static bool compare_compatible(const pypi_spec *sp, const pypi_version *v)
{
    if (cmp_public(v, sp->v) < 0)
        return false;
    ptrvec parts = PTRVEC_INIT;
    version_split(sp->ver, &parts);
    size_t keep = 0;
    while (keep < parts.len && !is_suffix(parts.items[keep]))
        keep++;
    strbuf prefix = STRBUF_INIT;
    for (size_t i = 0; i + 1 < keep; i++) {
        if (i)
            sb_addc(&prefix, '.');
        sb_adds(&prefix, parts.items[i]);
    }
    free_strings(&parts);
    bool r = prefix_match(v, prefix.buf);
    sb_release(&prefix);
    return r;
}

static bool spec_contains(const pypi_spec *sp, const pypi_version *v, bool prereleases)
{
    if (pypi_version_is_prerelease(v) && !prereleases)
        return false;
    switch (sp->op) {
    case OP_COMPAT:
        return compare_compatible(sp, v);
    case OP_EQ:
        return compare_equal(sp, v);
    case OP_NE:
        return !compare_equal(sp, v);
    case OP_LE:
        return cmp_public(v, sp->v) <= 0;
    case OP_GE:
        return cmp_public(v, sp->v) >= 0;
    case OP_LT:
        if (pypi_version_cmp(v, sp->v) >= 0)
            return false;
        if (!pypi_version_is_prerelease(sp->v) && pypi_version_is_prerelease(v) && base_eq(v, sp->v))
            return false;
        return true;
    case OP_GT:
        if (pypi_version_cmp(v, sp->v) <= 0)
            return false;
        if (!pypi_version_is_postrelease(sp->v) && pypi_version_is_postrelease(v) && base_eq(v, sp->v))
            return false;
        if (pypi_version_local(v) && base_eq(v, sp->v))
            return false;
        return true;
    case OP_ARB: {
        const char *a = pypi_version_str(v), *b = sp->ver;
        for (; *a && *b; a++, b++)
            if (lower(*a) != lower(*b))
                return false;
        return *a == *b;
    }
    }
    return false;
}

bool pypi_specset_contains(const pypi_specset *s, const pypi_version *v, pypi_prerelease pre)
{
    int allow = pre == PYPI_PRE_YES ? 1 : pre == PYPI_PRE_NO ? 0 : pypi_specset_prereleases(s);
    if (allow != 1 && pypi_version_is_prerelease(v))
        return false;
    for (size_t i = 0; i < s->n; i++)
        if (!spec_contains(&s->items[i], v, allow == 1))
            return false;
    return true;
}

void pypi_specset_filter(const pypi_specset *s, const pypi_version *const *versions, size_t n,
                         pypi_prerelease pre, bool *keep)
{
    int allow = pre == PYPI_PRE_YES ? 1 : pre == PYPI_PRE_NO ? 0 : pypi_specset_prereleases(s);
    if (s->n > 0) {
        for (size_t i = 0; i < n; i++)
            keep[i] = versions[i] && pypi_specset_contains(s, versions[i], allow == 1 ? PYPI_PRE_YES : PYPI_PRE_NO);
        return;
    }
    /* The empty set keeps final releases, and pre-releases only when they
     * are allowed or (with no override) when there is nothing else. */
    bool any_final = false, any_pre = false;
    for (size_t i = 0; i < n; i++) {
        keep[i] = false;
        if (!versions[i])
            continue;
        if (pypi_version_is_prerelease(versions[i]) && allow != 1) {
            any_pre = true;
        } else {
            keep[i] = true;
            any_final = true;
        }
    }
    if (!any_final && any_pre && allow == -1)
        for (size_t i = 0; i < n; i++)
            keep[i] = versions[i] != NULL;
}

int pypi_filter(const char *specset, const char *const *versions, size_t n, bool *keep, char **err)
{
    pypi_specset *s = pypi_specset_parse(specset, err);
    if (!s)
        return -1;
    pypi_version **vs = xcalloc(n ? n : 1, sizeof *vs);
    for (size_t i = 0; i < n; i++)
        vs[i] = pypi_version_parse(versions[i], NULL);
    pypi_specset_filter(s, (const pypi_version *const *)vs, n, PYPI_PRE_DEFAULT, keep);
    for (size_t i = 0; i < n; i++)
        pypi_version_free(vs[i]);
    free(vs);
    pypi_specset_free(s);
    return 0;
}

int pypi_spec_contains_str(const char *spec, const char *version)
{
    const char *a = spec, *b = spec + strlen(spec);
    pypi_strip(&a, &b);
    pypi_spec sp;
    if (b == a || !spec_parse(a, (size_t)(b - a), &sp, NULL))
        return -1;
    pypi_version *v = pypi_version_parse(version, NULL);
    int r = v ? spec_contains(&sp, v, true) : -2;
    pypi_version_free(v);
    spec_release(&sp);
    return r;
}

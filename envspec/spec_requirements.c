/* spec_requirements.c — reads a requirements file's text the way pip's
 * requirements-file format is documented (pip's "Requirements File Format"
 * page): physical lines, `\` continuations joined onto the first line's
 * number (a comment line ends a continuation), comments (`#` at the start
 * or after whitespace), blank lines, then per logical line the requirement
 * (the space-separated words before the first word starting with `-`) and
 * the options after it, split as a POSIX shell splits words and read as
 * pip's option parser reads them (long options by unique prefix, `--x=v`
 * or `--x v`, short options with the value attached or following).
 * It owns no policy beyond the file: which indexes the spec allows is the
 * spec rules' call (spec_rules_build.c). */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "spec_requirements.h"

/* ---- the text: physical lines joined into logical ones ---- */

/* A logical line: its characters and, per character, the byte offset in
 * the content it came from (so a problem can name line and column). */
typedef struct lline {
    strbuf s;
    size_t *off;
    size_t n, alloc;
    unsigned number; /* the first physical line's */
} lline;

typedef struct rd {
    arena *mem;
    const char *content;
    spec_reqfile *out;
    ptrvec problems, reqs, indexes, only, no;
    unsigned req_index;
} rd;

static void ll_add(lline *l, char c, size_t off)
{
    if (l->n == l->alloc) {
        l->alloc = l->alloc ? 2 * l->alloc : 64;
        l->off = xrealloc(l->off, l->alloc * sizeof *l->off);
    }
    sb_addc(&l->s, c);
    l->off[l->n++] = off;
}

static void ll_reset(lline *l)
{
    sb_setlen(&l->s, 0);
    l->n = 0;
}

/* Line and column (1-based) of content byte `off`. */
static void position(const rd *r, size_t off, unsigned *line, unsigned *col)
{
    unsigned ln = 1;
    size_t start = 0;
    for (size_t i = 0; i < off && r->content[i]; i++)
        if (r->content[i] == '\n' || (r->content[i] == '\r' && r->content[i + 1] != '\n')) {
            ln++;
            start = i + 1;
        }
    *line = ln;
    *col = (unsigned)(off - start) + 1;
}

static void problem(rd *r, size_t off, long index, el_code code, const char *fmt, ...)
    EL_PRINTF(5, 6);
static void problem(rd *r, size_t off, long index, el_code code, const char *fmt, ...)
{
    spec_req_problem *p = arena_alloc(r->mem, sizeof *p);
    position(r, off, &p->line, &p->column);
    p->index = index;
    p->code = code;
    va_list ap;
    va_start(ap, fmt);
    char *m = xvasprintf(fmt, ap);
    va_end(ap);
    p->message = arena_strdup(r->mem, m);
    free(m);
    ptrvec_push(&r->problems, p);
}

/* pip's comment pattern anchored at the start: `#` first, or after a run of
 * whitespace from the start. */
static bool starts_comment(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    return i < n && s[i] == '#';
}

/* ---- options ---- */

enum opt_id {
    O_INDEX_URL, O_EXTRA_INDEX_URL, O_NO_INDEX, O_CONSTRAINT, O_REQUIREMENT, O_EDITABLE,
    O_FIND_LINKS, O_NO_BINARY, O_ONLY_BINARY, O_PREFER_BINARY, O_REQUIRE_HASHES, O_PRE,
    O_TRUSTED_HOST, O_USE_FEATURE, O_GLOBAL_OPTION, O_HASH, O_CONFIG_SETTINGS
};

typedef struct opt_def {
    enum opt_id id;
    const char *lng;  /* without the leading "--" */
    char shrt;        /* 0: none */
    bool takes_value;
} opt_def;

/* The options pip accepts in a requirements file (global ones, then the
 * per-requirement ones: --global-option, --hash, --config-settings). */
static const opt_def opts[] = {
    { O_INDEX_URL, "index-url", 'i', true },      { O_EXTRA_INDEX_URL, "extra-index-url", 0, true },
    { O_NO_INDEX, "no-index", 0, false },         { O_CONSTRAINT, "constraint", 'c', true },
    { O_REQUIREMENT, "requirement", 'r', true },  { O_EDITABLE, "editable", 'e', true },
    { O_FIND_LINKS, "find-links", 'f', true },    { O_NO_BINARY, "no-binary", 0, true },
    { O_ONLY_BINARY, "only-binary", 0, true },    { O_PREFER_BINARY, "prefer-binary", 0, false },
    { O_REQUIRE_HASHES, "require-hashes", 0, false }, { O_PRE, "pre", 0, false },
    { O_TRUSTED_HOST, "trusted-host", 0, true },  { O_USE_FEATURE, "use-feature", 0, true },
    { O_GLOBAL_OPTION, "global-option", 0, true }, { O_HASH, "hash", 0, true },
    { O_CONFIG_SETTINGS, "config-settings", 'C', true },
};
#define N_OPTS (sizeof opts / sizeof opts[0])

typedef struct word {
    char *text;
    size_t off; /* content offset of its first character */
} word;

/* Splits s[0..n) (offsets in `map`) into words as a POSIX shell does:
 * blanks separate, '...' is literal, "..." keeps \\ \" \$ \` escapes, a
 * backslash outside quotes takes the next character. false on an
 * unclosed quote or a trailing backslash. */
static bool split_words(rd *r, const char *s, const size_t *map, size_t n, ptrvec *out)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i == n)
            break;
        strbuf w;
        sb_init(&w);
        size_t start = map[i];
        while (i < n && !isspace((unsigned char)s[i])) {
            char c = s[i++];
            if (c == '\'') {
                while (i < n && s[i] != '\'')
                    sb_addc(&w, s[i++]);
                if (i++ == n)
                    goto bad;
            } else if (c == '"') {
                while (i < n && s[i] != '"') {
                    if (s[i] == '\\' && i + 1 < n && strchr("\\\"$`", s[i + 1]))
                        i++;
                    sb_addc(&w, s[i++]);
                }
                if (i++ == n)
                    goto bad;
            } else if (c == '\\') {
                if (i == n)
                    goto bad;
                sb_addc(&w, s[i++]);
            } else {
                sb_addc(&w, c);
            }
        }
        word *wd = arena_alloc(r->mem, sizeof *wd);
        wd->text = arena_strdup(r->mem, w.buf);
        wd->off = start;
        sb_release(&w);
        ptrvec_push(out, wd);
        continue;
    bad:
        sb_release(&w);
        return false;
    }
    return true;
}

/* The long option `name` names: exact, else the one it is a prefix of. */
static const opt_def *find_long(const char *name, size_t n, bool *ambiguous)
{
    const opt_def *hit = NULL;
    *ambiguous = false;
    for (size_t k = 0; k < N_OPTS; k++) {
        if (strlen(opts[k].lng) == n && strncmp(opts[k].lng, name, n) == 0)
            return &opts[k];
        if (strncmp(opts[k].lng, name, n) == 0) {
            *ambiguous = hit != NULL;
            hit = &opts[k];
        }
    }
    return *ambiguous ? NULL : hit;
}

static const opt_def *find_short(char c)
{
    for (size_t k = 0; k < N_OPTS; k++)
        if (opts[k].shrt == c)
            return &opts[k];
    return NULL;
}

static void set_del(ptrvec *v, const char *s)
{
    size_t k = 0;
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) != 0)
            v->items[k++] = v->items[i];
    v->len = k;
}

/* pip's --only-binary/--no-binary rule: names (comma-separated) join this
 * set and leave the other; `:all:` empties both and stands alone in this
 * one, and what follows it counts only when a `:none:` follows too;
 * `:none:` empties this set. */
static void format_control(rd *r, const char *value, size_t off, ptrvec *target, ptrvec *other)
{
    char *copy = arena_strdup(r->mem, value);
    ptrvec names = PTRVEC_INIT;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        ptrvec_push(&names, t);
    size_t from = 0;
    for (size_t i = 0; i < names.len; i++)
        if (strcmp(names.items[i], ":all:") == 0) {
            other->len = target->len = 0;
            ptrvec_push(target, ":all:");
            from = i + 1;
        }
    bool none_after = false;
    for (size_t i = from; i < names.len; i++)
        none_after |= strcmp(names.items[i], ":none:") == 0;
    for (size_t i = from; i < names.len && (from == 0 || none_after); i++) {
        const char *n = names.items[i];
        if (strcmp(n, ":none:") == 0) {
            target->len = 0;
            continue;
        }
        if (!pypi_name_valid(n)) {
            problem(r, off, -1, EL_SPEC_INVALID, "`%s` is not a project name", n);
            continue;
        }
        char *c = pypi_name_canonical(n);
        char *name = arena_strdup(r->mem, c);
        free(c);
        set_del(other, name);
        if (!ptrvec_has_str(target, name))
            ptrvec_push(target, name);
    }
    ptrvec_release(&names);
}

/* ---- one logical line ---- */

typedef struct line_opts {
    ptrvec hashes;
    bool global_seen;
    const char *global_name;
    size_t global_off;
} line_opts;

static void add_hash(rd *r, line_opts *lo, const char *value, size_t off, bool on_req)
{
    if (!on_req) {
        problem(r, off, -1, EL_SPEC_INVALID,
                "`--hash=%s` is on a line without a requirement; pip ignores it, so put it on "
                "the requirement's line", value);
        return;
    }
    const char *colon = strchr(value, ':');
    if (!colon) {
        problem(r, off, (long)r->req_index, EL_SPEC_INVALID,
                "`--hash=%s`: a hash is an algorithm and a value, like --hash=sha256:<hex>",
                value);
        return;
    }
    size_t an = (size_t)(colon - value);
    if (an != 6 || strncmp(value, "sha256", 6) != 0) {
        bool strong = (an == 6 && (!strncmp(value, "sha384", 6) || !strncmp(value, "sha512", 6)));
        problem(r, off, (long)r->req_index, strong ? EL_CAPABILITY_UNSUPPORTED : EL_SPEC_INVALID,
                strong ? "`--hash=%s`: only sha256 hashes can be checked: a lock records each "
                         "artifact's sha256"
                       : "`--hash=%s`: the hash algorithms pip allows are sha256, sha384, sha512",
                value);
        return;
    }
    const char *hex = colon + 1;
    size_t hn = strlen(hex);
    bool ok = hn == 64;
    for (size_t k = 0; ok && k < hn; k++)
        ok = isxdigit((unsigned char)hex[k]);
    if (!ok) {
        problem(r, off, (long)r->req_index, EL_SPEC_INVALID,
                "`--hash=%s`: a sha256 is 64 hexadecimal digits", value);
        return;
    }
    char *h = arena_sprintf(r->mem, "sha256:%s", hex);
    for (char *p = h; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    ptrvec_push(&lo->hashes, h);
}

static const char *unsupported_why(enum opt_id id)
{
    switch (id) {
    case O_REQUIREMENT:
    case O_CONSTRAINT:
        return "names another file, and the content is one file with nothing beside it";
    case O_EDITABLE:
        return "is an editable install of a local or VCS project, which a hash-pinned lock "
               "cannot hold";
    case O_FIND_LINKS:
        return "adds a place to look for files; the spec's indexes are where envlock reads";
    case O_NO_INDEX:
        return "turns the indexes off; the spec's indexes are where envlock reads";
    case O_TRUSTED_HOST:
        return "trusts a host without TLS; the spec's indexes are https";
    case O_USE_FEATURE:
        return "turns on a pip feature, which is no input of a lock";
    case O_GLOBAL_OPTION:
    case O_CONFIG_SETTINGS:
        return "passes options to a build, and envlock builds nothing";
    default:
        return NULL;
    }
}

/* One option with its value (NULL for a flag). */
static void apply_option(rd *r, const opt_def *d, const char *spelled, const char *value,
                         size_t off, bool on_req, line_opts *lo)
{
    long idx = on_req ? (long)r->req_index : -1;
    const char *why = unsupported_why(d->id);
    if (why) {
        problem(r, off, idx, EL_CAPABILITY_UNSUPPORTED, "`%s%s%s` %s", spelled,
                value ? " " : "", value ? value : "", why);
        return;
    }
    if (d->id == O_HASH) {
        add_hash(r, lo, value, off, on_req);
        return;
    }
    if (on_req) { /* pip reads only per-requirement options on a requirement line */
        if (!lo->global_seen) {
            lo->global_seen = true;
            lo->global_name = arena_strdup(r->mem, spelled);
            lo->global_off = off;
        }
        return;
    }
    switch (d->id) {
    case O_INDEX_URL:
    case O_EXTRA_INDEX_URL: {
        spec_req_index *ix = arena_alloc(r->mem, sizeof *ix);
        ix->url = arena_strdup(r->mem, value);
        ix->extra = d->id == O_EXTRA_INDEX_URL;
        position(r, off, &ix->line, &ix->column);
        ptrvec_push(&r->indexes, ix);
        break;
    }
    case O_NO_BINARY:
        format_control(r, value, off, &r->no, &r->only);
        break;
    case O_ONLY_BINARY:
        format_control(r, value, off, &r->only, &r->no);
        break;
    case O_REQUIRE_HASHES:
        r->out->require_hashes = true;
        break;
    case O_PRE:
        r->out->pre = true;
        break;
    case O_PREFER_BINARY:
        r->out->prefer_binary = true;
        break;
    default:
        break;
    }
}

/* Reads the option words of one line. */
static void read_options(rd *r, ptrvec *words, bool on_req, line_opts *lo)
{
    for (size_t i = 0; i < words->len; i++) {
        word *w = words->items[i];
        const char *t = w->text;
        const opt_def *d = NULL;
        const char *value = NULL;
        if (strcmp(t, "--") == 0)
            break; /* what follows is no option; pip ignores such words */
        if (t[0] != '-' || t[1] == '\0')
            continue; /* a stray word: pip's option parser ignores it too */
        if (t[1] == '-') {
            const char *eq = strchr(t + 2, '=');
            size_t n = eq ? (size_t)(eq - t - 2) : strlen(t + 2);
            bool amb = false;
            d = find_long(t + 2, n, &amb);
            if (!d) {
                problem(r, w->off, on_req ? (long)r->req_index : -1, EL_SPEC_INVALID,
                        "`%.*s` is %s", (int)(n + 2), t,
                        amb ? "an ambiguous option" : "not an option of a requirements file");
                return;
            }
            if (eq && !d->takes_value) {
                problem(r, w->off, on_req ? (long)r->req_index : -1, EL_SPEC_INVALID,
                        "`--%s` takes no value", d->lng);
                return;
            }
            value = eq ? eq + 1 : NULL;
        } else {
            d = find_short(t[1]);
            if (!d) {
                problem(r, w->off, on_req ? (long)r->req_index : -1, EL_SPEC_INVALID,
                        "`-%c` is not an option of a requirements file", t[1]);
                return;
            }
            value = t[2] ? t + 2 : NULL;
        }
        if (d->takes_value && !value) {
            if (i + 1 == words->len) {
                problem(r, w->off, on_req ? (long)r->req_index : -1, EL_SPEC_INVALID,
                        "`%s` needs a value", t);
                return;
            }
            value = ((word *)words->items[++i])->text;
        }
        char sh[3] = { '-', d->shrt, '\0' };
        const char *spelled = t[1] != '-' ? sh : arena_sprintf(r->mem, "--%s", d->lng);
        apply_option(r, d, spelled, value, w->off, on_req, lo);
    }
}

/* ---- the requirement of a line ---- */

static bool has_suffix(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && strncmp(s + n - k, suf, k) == 0;
}

/* What pip would take as a path, an archive, a URL or a VCS checkout rather
 * than a name from an index: NULL if none, else what it is. */
static const char *not_from_index(const char *text, const pypi_requirement *q)
{
    static const char *const vcs[] = { "git+", "hg+", "svn+", "bzr+", NULL };
    for (const char *const *v = vcs; *v; v++)
        if (strncmp(text, *v, strlen(*v)) == 0)
            return "is a VCS requirement";
    if (strstr(text, "://") || (q && q->url))
        return "is a direct URL requirement";
    size_t n = strcspn(text, " \t;[<>=!~(@,");
    if (text[0] == '.' || text[0] == '~' || memchr(text, '/', n) || memchr(text, '\\', n))
        return "is a path";
    static const char *const archives[] = { ".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2",
                                            ".tar", ".tar.xz", NULL };
    for (const char *const *a = archives; *a; a++)
        if (has_suffix(text, n, *a))
            return "is a path to an archive";
    return NULL;
}

static void read_requirement(rd *r, const char *text, size_t off, line_opts *lo)
{
    long idx = (long)r->req_index;
    char *err = NULL;
    pypi_requirement *q = pypi_requirement_parse(text, &err);
    const char *what = not_from_index(text, q);
    if (what) {
        problem(r, off, idx, EL_CAPABILITY_UNSUPPORTED,
                "`%s` %s: a requirements source resolves names from the spec's indexes, and the "
                "content is one file with nothing beside it", text, what);
    } else if (!q) {
        problem(r, off, idx, EL_SPEC_INVALID, "`%s`: %s", text,
                err ? err : "is not a PEP 508 requirement");
    } else if (lo->global_seen) {
        problem(r, lo->global_off, idx, EL_SPEC_INVALID,
                "`%s` is a file-wide option, and pip ignores it on a requirement's line: put it "
                "on a line of its own", lo->global_name);
    } else {
        spec_req *sr = arena_alloc(r->mem, sizeof *sr);
        sr->text = arena_strdup(r->mem, text);
        sr->index = r->req_index;
        position(r, off, &sr->line, &sr->column);
        sr->n_hashes = lo->hashes.len;
        if (lo->hashes.len) {
            sr->hashes = arena_alloc(r->mem, (lo->hashes.len + 1) * sizeof *sr->hashes);
            for (size_t i = 0; i < lo->hashes.len; i++)
                sr->hashes[i] = lo->hashes.items[i];
        }
        ptrvec_push(&r->reqs, sr);
    }
    free(err);
    pypi_requirement_free(q);
}

/* `${NAME}` (upper-case letters, digits, `_`) is what pip expands from the
 * environment; the offset of the first, or -1. */
static long env_var_at(const char *s)
{
    for (const char *p = s; (p = strstr(p, "${")); p++) {
        const char *e = p + 2;
        while ((*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_')
            e++;
        if (e > p + 2 && *e == '}')
            return (long)(p - s);
    }
    return -1;
}

static void read_line(rd *r, lline *l)
{
    const char *s = l->s.buf;
    size_t n = l->n;
    /* cut the comment: the first `#` at the start or after whitespace,
     * with the whitespace before it; then strip */
    for (size_t i = 0; i < n; i++)
        if (s[i] == '#' && (i == 0 || isspace((unsigned char)s[i - 1]))) {
            while (i > 0 && isspace((unsigned char)s[i - 1]))
                i--;
            n = i;
            break;
        }
    size_t b = 0;
    while (b < n && isspace((unsigned char)s[b]))
        b++;
    while (n > b && isspace((unsigned char)s[n - 1]))
        n--;
    if (b == n)
        return;
    char *text = arena_strndup(r->mem, s + b, n - b);
    const size_t *map = l->off + b;
    bool is_req = text[0] != '-';
    long ev = env_var_at(text);
    if (ev >= 0) {
        size_t e = (size_t)ev;
        problem(r, map[e], is_req ? (long)r->req_index : -1, EL_SPEC_INVALID,
                "`%.*s` is an environment variable, which pip would expand: a lock must not "
                "depend on the environment that made it, so write the value",
                (int)(strchr(text + e, '}') - (text + e) + 1), text + e);
        r->req_index += is_req;
        return;
    }
    /* the requirement: the words before the first one starting with `-`
     * (words split at single spaces, as pip splits them) */
    size_t args_end = 0, k = 0;
    while (k <= strlen(text)) {
        size_t w = strcspn(text + k, " ");
        if (text[k] == '-')
            break;
        args_end = k + w;
        k += w + 1;
    }
    ptrvec words = PTRVEC_INIT;
    line_opts lo = { PTRVEC_INIT, false, NULL, 0 };
    size_t opt_from = is_req ? (k <= strlen(text) ? k : strlen(text)) : 0;
    if (!split_words(r, text + opt_from, map + opt_from, strlen(text) - opt_from, &words))
        problem(r, map[opt_from], is_req ? (long)r->req_index : -1, EL_SPEC_INVALID,
                "`%s`: its options cannot be split into words (a quote is not closed)",
                text + opt_from);
    else
        read_options(r, &words, is_req, &lo);
    if (is_req) {
        while (args_end > 0 && text[args_end - 1] == ' ')
            args_end--; /* the empty words of a run of spaces */
        text[args_end] = '\0';
        read_requirement(r, text, map[0], &lo);
        r->req_index++;
    }
    ptrvec_release(&words);
    ptrvec_release(&lo.hashes);
}

/* ---- the whole text ---- */

/* pip's hash-checking mode: with any hash, or --require-hashes, every
 * requirement needs a hash and a single `==`/`===` version. */
static void hash_mode(rd *r)
{
    bool any = r->out->require_hashes;
    for (size_t i = 0; i < r->reqs.len && !any; i++)
        any = ((spec_req *)r->reqs.items[i])->n_hashes > 0;
    r->out->require_hashes = any;
    for (size_t i = 0; any && i < r->reqs.len; i++) {
        spec_req *q = r->reqs.items[i];
        pypi_requirement *p = pypi_requirement_parse(q->text, NULL);
        const char *op = p && pypi_specset_len(p->specset) == 1 ? pypi_specset_op(p->specset, 0)
                                                                  : "";
        bool pinned = strcmp(op, "==") == 0 || strcmp(op, "===") == 0;
        const char *ver = pinned ? pypi_specset_version(p->specset, 0) : "";
        pinned = pinned && !strchr(ver, '*');
        pypi_requirement_free(p);
        spec_req_problem *pr = arena_alloc(r->mem, sizeof *pr);
        pr->line = q->line;
        pr->column = q->column;
        pr->index = q->index;
        pr->code = EL_SPEC_INVALID;
        if (!q->n_hashes)
            pr->message = arena_sprintf(r->mem,
                                        "`%s` has no --hash: in hash-checking mode (a requirement "
                                        "carries --hash, or --require-hashes) every requirement "
                                        "needs one", q->text);
        else if (!pinned)
            pr->message = arena_sprintf(r->mem,
                                        "`%s` is not pinned with `==`: in hash-checking mode "
                                        "every requirement names one version", q->text);
        else
            continue;
        ptrvec_push(&r->problems, pr);
    }
}

static void *to_array(arena *mem, ptrvec *v, size_t size, size_t *n)
{
    char *a = arena_alloc(mem, (v->len + 1) * size);
    for (size_t i = 0; i < v->len; i++)
        memcpy(a + i * size, v->items[i], size);
    *n = v->len;
    return a;
}

static const char **to_strv(arena *mem, ptrvec *v, size_t *n)
{
    const char **a = arena_alloc(mem, (v->len + 1) * sizeof *a);
    for (size_t i = 0; i < v->len; i++)
        a[i] = v->items[i];
    *n = v->len;
    return a;
}

spec_reqfile *spec_reqfile_parse(arena *mem, const char *content)
{
    rd r = { .mem = mem, .content = content };
    r.out = arena_alloc(mem, sizeof *r.out);
    lline l = { 0 };
    sb_init(&l.s);
    bool pending = false;
    unsigned number = 0;
    for (size_t p = 0; content[p] || p == 0;) {
        if (!content[p])
            break;
        size_t e = strcspn(content + p, "\r\n");
        number++;
        bool comment = starts_comment(content + p, e);
        bool cont = e > 0 && content[p + e - 1] == '\\' && !comment;
        if (!pending) {
            ll_reset(&l);
            l.number = number;
        }
        if (cont) {
            /* the line with its backslashes at either end taken off */
            size_t a = 0, z = e;
            while (a < z && content[p + a] == '\\')
                a++;
            while (z > a && content[p + z - 1] == '\\')
                z--;
            for (size_t i = a; i < z; i++)
                ll_add(&l, content[p + i], p + i);
            pending = true;
        } else {
            if (comment) /* a comment ends a continuation and is cut whole */
                ll_add(&l, ' ', p);
            for (size_t i = 0; i < e; i++)
                ll_add(&l, content[p + i], p + i);
            read_line(&r, &l);
            pending = false;
        }
        p += e;
        if (content[p] == '\r' && content[p + 1] == '\n')
            p += 2;
        else if (content[p])
            p++;
    }
    if (pending)
        read_line(&r, &l);
    sb_release(&l.s);
    free(l.off);
    hash_mode(&r);
    spec_reqfile *o = r.out;
    o->reqs = to_array(mem, &r.reqs, sizeof *o->reqs, &o->n_reqs);
    o->indexes = to_array(mem, &r.indexes, sizeof *o->indexes, &o->n_indexes);
    o->problems = to_array(mem, &r.problems, sizeof *o->problems, &o->n_problems);
    o->only_binary = to_strv(mem, &r.only, &o->n_only_binary);
    o->no_binary = to_strv(mem, &r.no, &o->n_no_binary);
    ptrvec_release(&r.reqs);
    ptrvec_release(&r.indexes);
    ptrvec_release(&r.problems);
    ptrvec_release(&r.only);
    ptrvec_release(&r.no);
    return o;
}

void spec_reqfile_file_position(unsigned node_line, unsigned node_column, unsigned body_line,
                                unsigned body_column, unsigned line, unsigned column,
                                unsigned *file_line, unsigned *file_column)
{
    if (!body_line) {
        *file_line = node_line;
        *file_column = node_column;
        return;
    }
    *file_line = body_line + line - 1;
    *file_column = body_column + column - 1;
}

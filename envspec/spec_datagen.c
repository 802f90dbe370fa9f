/* spec_datagen.c — the DataGen Sandbox Environment recipe: recognizing one,
 * its four built-in templates, and rewriting a recipe into an
 * Environment-shaped tree that the model then checks like any document.
 *
 * Owns the recipe's own grammar — field names and their spellings, package
 * lists split at spaces/commas/new lines, http(s) registry URLs, the offered
 * resource sizes — and reports problems with them under the recipe's field
 * names (`packages.pip[3]`, `registries.npmRegistryUrl`, `resources.cpu`).
 * An entry it refuses is left out of the tree, so the model and the rules do
 * not report it a second time under Environment names; for that, Python
 * and npm entries are also run through the ecosystems' grammars here
 * (spec_check_pep508/_npm). It leaves to the model and rules what they
 * judge on the Environment (image reference syntax, credentials in index
 * URLs, reserved name prefixes). Every node it builds carries the
 * line and column of the recipe node it came from; nodes made from the
 * `template_name` option alone have no position (0:0). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spec_internal.h"
#include "spec_rules_internal.h"

/* ---- templates (the seed's table, in its order) ---- */

typedef struct dg_template {
    const char *name;
    const char *const *pip;
} dg_template;

static const char *const tpl_data_science[] = {
    "pandas", "numpy", "scipy", "scikit-learn", "matplotlib", "seaborn", "polars", "pyarrow",
    "openpyxl", "statsmodels", NULL,
};
static const char *const tpl_data_engineering[] = {
    "duckdb", "polars", "pyarrow", "sqlalchemy", "psycopg2-binary", "pandas", NULL,
};
static const char *const tpl_web_scraping[] = {
    "requests", "httpx", "beautifulsoup4", "lxml", NULL,
};
static const char *const tpl_documents[] = {
    "openpyxl", "python-docx", "pypdf", "pillow", "markdown", "pandas", NULL,
};

static const dg_template templates[] = {
    { "Data Science", tpl_data_science },
    { "Data Engineering", tpl_data_engineering },
    { "Web Scraping & HTTP", tpl_web_scraping },
    { "Documents & Files", tpl_documents },
};
#define N_TEMPLATES (sizeof templates / sizeof templates[0])

const char *const *spec_datagen_template_names(size_t *n)
{
    static const char *const names[] = {
        "Data Science", "Data Engineering", "Web Scraping & HTTP", "Documents & Files", NULL,
    };
    if (n)
        *n = N_TEMPLATES;
    return names;
}

/* ---- field names ---- */

/* A recipe field, by its canonical (camelCase) path. */
typedef enum dg_field {
    F_NAME, F_DESCRIPTION, F_TEMPLATE, F_BASE_IMAGE, F_PACKAGES, F_REGISTRIES, F_RESOURCES,
    F_WORKSPACE_DEFAULT,
    F_APT, F_PIP, F_UV, F_NPM,
    F_PIP_INDEX, F_UV_INDEX, F_NPM_REGISTRY, F_APT_SOURCES,
    F_CPU, F_MEMORY, F_DISK,
    F_COUNT
} dg_field;

static const char *const field_path[F_COUNT] = {
    "name", "description", "template", "baseImage", "packages", "registries", "resources",
    "workspaceDefault",
    "packages.apt", "packages.pip", "packages.uv", "packages.npm",
    "registries.pipIndexUrl", "registries.uvIndexUrl", "registries.npmRegistryUrl",
    "registries.aptSources",
    "resources.cpu", "resources.memory", "resources.disk",
};

enum { G_TOP, G_PACKAGES, G_REGISTRIES, G_RESOURCES };

/* Spellings, compared after key_norm() (lowercase, no spaces, `_`, `-`, `.`
 * or parenthesized remarks), so "baseImage", "base_image", "Base image
 * (optional)" and "base-image" are one field. `primary` marks the spelling
 * that did-you-mean suggests. */
static const struct {
    int group;
    dg_field field;
    const char *norm;
    bool primary;
} spellings[] = {
    { G_TOP, F_NAME, "name", true },
    { G_TOP, F_DESCRIPTION, "description", true },
    { G_TOP, F_TEMPLATE, "template", true },
    { G_TOP, F_TEMPLATE, "startfromtemplate", false },
    { G_TOP, F_BASE_IMAGE, "baseimage", true },
    { G_TOP, F_PACKAGES, "packages", true },
    { G_TOP, F_REGISTRIES, "registries", true },
    { G_TOP, F_REGISTRIES, "internalregistries", false },
    { G_TOP, F_RESOURCES, "resources", true },
    { G_TOP, F_WORKSPACE_DEFAULT, "workspacedefault", true },
    { G_TOP, F_APT, "aptpackages", false },
    { G_TOP, F_PIP, "pippackages", false },
    { G_TOP, F_UV, "uvpackages", false },
    { G_TOP, F_NPM, "npmpackages", false },
    { G_PACKAGES, F_APT, "apt", true },
    { G_PACKAGES, F_PIP, "pip", true },
    { G_PACKAGES, F_UV, "uv", true },
    { G_PACKAGES, F_NPM, "npm", true },
    { G_PACKAGES, F_APT, "aptpackages", false },
    { G_PACKAGES, F_PIP, "pippackages", false },
    { G_PACKAGES, F_UV, "uvpackages", false },
    { G_PACKAGES, F_NPM, "npmpackages", false },
    { G_REGISTRIES, F_PIP_INDEX, "pipindexurl", true },
    { G_REGISTRIES, F_UV_INDEX, "uvindexurl", true },
    { G_REGISTRIES, F_NPM_REGISTRY, "npmregistryurl", true },
    { G_REGISTRIES, F_APT_SOURCES, "aptsources", true },
    { G_REGISTRIES, F_APT_SOURCES, "aptsourceslist", false },
    { G_RESOURCES, F_CPU, "cpu", true },
    { G_RESOURCES, F_CPU, "cpucores", false },
    { G_RESOURCES, F_MEMORY, "memory", true },
    { G_RESOURCES, F_DISK, "disk", true },
};
#define N_SPELLINGS (sizeof spellings / sizeof spellings[0])

static const char *const group_name[] = { "recipe", "`packages`", "`registries`", "`resources`" };
static const char *const group_prefix[] = { "", "packages.", "registries.", "resources." };

/* key_norm() : the comparison form of a key; writes at most cap-1 bytes. */
static void key_norm(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    int paren = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '(') {
            paren++;
            continue;
        }
        if (c == ')' && paren > 0) {
            paren--;
            continue;
        }
        if (paren || c == ' ' || c == '\t' || c == '_' || c == '-' || c == '.')
            continue;
        out[o++] = (char)tolower(c);
    }
    out[o] = '\0';
}

/* ---- the import state ---- */

typedef struct dg {
    arena *mem;
    spec_findings *fs;
    const spec_node *root;
    const spec_node *slot[F_COUNT];     /* the recipe's value for each field */
    const spec_node *slot_key[F_COUNT]; /* ... and the key that named it */
    const el_spec_base *base;           /* the base a recipe is placed on, or NULL */
} dg;

static void finding(dg *d, const spec_node *at, const char *field, const char *fmt, ...)
    EL_PRINTF(4, 5);
static void finding(dg *d, const spec_node *at, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    spec_finding_add(d->fs, at, field, EL_SPEC_INVALID, "%s", msg);
    free(msg);
}

static void finding_pos(dg *d, unsigned line, unsigned col, const char *field, const char *fmt,
                        ...) EL_PRINTF(5, 6);
static void finding_pos(dg *d, unsigned line, unsigned col, const char *field, const char *fmt,
                        ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    spec_finding_add_pos(d->fs, line, col, field, EL_SPEC_INVALID, "%s", msg);
    free(msg);
}

/* Sorts the pairs of one recipe mapping into d->slot[], reporting unknown
 * keys (with a did-you-mean), non-string keys, and a field given twice under
 * two spellings. */
static void collect(dg *d, const spec_node *map, int group)
{
    for (size_t k = 0; k < map->n; k++) {
        const spec_node *key = map->keys[k];
        const char *ktext = key->text ? key->text : "";
        char norm[128];
        key_norm(ktext, key->text_len, norm, sizeof norm);
        int hit = -1;
        for (size_t s = 0; s < N_SPELLINGS; s++)
            if (spellings[s].group == group && strcmp(spellings[s].norm, norm) == 0) {
                hit = (int)s;
                break;
            }
        if (hit < 0) {
            char *path = xasprintf("%s%s", group_prefix[group], ktext);
            size_t best_d = (size_t)-1;
            const char *best = NULL;
            for (size_t s = 0; s < N_SPELLINGS; s++) {
                if (spellings[s].group != group)
                    continue;
                size_t dist = edit_distance(norm, spellings[s].norm);
                if (dist < best_d) {
                    best_d = dist;
                    best = field_path[spellings[s].field] + strlen(group_prefix[group]);
                }
            }
            size_t len = strlen(norm);
            size_t limit = len >= 9 ? 3 : len >= 5 ? 2 : 1;
            if (best && best_d <= limit) {
                finding(d, key, path, "`%s` is not a %s field; did you mean `%s`?", ktext,
                        group_name[group], best);
            } else {
                strbuf all = STRBUF_INIT;
                for (size_t s = 0; s < N_SPELLINGS; s++)
                    if (spellings[s].group == group && spellings[s].primary) {
                        if (all.len)
                            sb_adds(&all, ", ");
                        sb_adds(&all, field_path[spellings[s].field] + strlen(group_prefix[group]));
                    }
                finding(d, key, path, "`%s` is not a %s field; the fields are %s", ktext,
                        group_name[group], all.buf);
                sb_release(&all);
            }
            free(path);
            continue;
        }
        dg_field f = spellings[hit].field;
        if (d->slot_key[f]) {
            finding(d, key, field_path[f], "`%s` and `%s` (line %u) are the same field; give it once",
                    ktext, d->slot_key[f]->text ? d->slot_key[f]->text : "",
                    d->slot_key[f]->line);
            continue;
        }
        d->slot[f] = map->items[k];
        d->slot_key[f] = key;
    }
}

/* ---- building the Environment tree ---- */

static spec_node *node_at(dg *d, spec_node_kind kind, const spec_node *at)
{
    spec_node *n = arena_alloc(d->mem, sizeof *n);
    n->kind = kind;
    if (at) {
        n->line = at->line;
        n->column = at->column;
    }
    return n;
}

static spec_node *str_at(dg *d, const spec_node *at, const char *s)
{
    spec_node *n = node_at(d, SN_STR, at);
    n->text = arena_strdup(d->mem, s);
    n->text_len = strlen(s);
    n->quoted = true; /* a string whatever it looks like ("3.13", "true") */
    return n;
}

static spec_node *str_pos(dg *d, unsigned line, unsigned col, const char *s)
{
    spec_node *n = str_at(d, NULL, s);
    n->line = line;
    n->column = col;
    return n;
}

static spec_node *int_at(dg *d, const spec_node *at, int64_t v)
{
    spec_node *n = node_at(d, SN_INT, at);
    n->i = v;
    n->text = arena_sprintf(d->mem, "%lld", (long long)v);
    n->text_len = strlen(n->text);
    return n;
}

/* A mapping under construction: pairs pushed in order, then frozen. */
typedef struct mapb {
    ptrvec keys, vals;
} mapb;

static void put(dg *d, mapb *m, const spec_node *key_at, const char *key, spec_node *val)
{
    ptrvec_push(&m->keys, str_at(d, key_at, key));
    ptrvec_push(&m->vals, val);
}

static spec_node *map_done(dg *d, mapb *m, const spec_node *at)
{
    spec_node *n = node_at(d, SN_MAP, at);
    n->n = m->keys.len;
    n->keys = arena_alloc(d->mem, (n->n ? n->n : 1) * sizeof *n->keys);
    n->items = arena_alloc(d->mem, (n->n ? n->n : 1) * sizeof *n->items);
    for (size_t i = 0; i < n->n; i++) {
        n->keys[i] = m->keys.items[i];
        n->items[i] = m->vals.items[i];
    }
    ptrvec_release(&m->keys);
    ptrvec_release(&m->vals);
    return n;
}

static spec_node *seq_done(dg *d, ptrvec *items, const spec_node *at)
{
    spec_node *n = node_at(d, SN_SEQ, at);
    n->n = items->len;
    n->items = arena_alloc(d->mem, (n->n ? n->n : 1) * sizeof *n->items);
    for (size_t i = 0; i < n->n; i++)
        n->items[i] = items->items[i];
    ptrvec_release(items);
    return n;
}

/* ---- scalars ---- */

/* The text of a string field, or NULL (null value, or a finding for another
 * type). Blank strings come back as "" for the caller to judge. */
static const char *want_string(dg *d, dg_field f)
{
    const spec_node *v = d->slot[f];
    if (!v || v->kind == SN_NULL)
        return NULL;
    if (v->kind != SN_STR) {
        finding(d, v, field_path[f], "must be a string%s",
                v->kind == SN_SEQ || v->kind == SN_MAP ? "" : "; quote it");
        return NULL;
    }
    if (memchr(v->text, '\0', v->text_len)) {
        finding(d, v, field_path[f], "carries a NUL character");
        return NULL;
    }
    return v->text;
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

/* ASCII for the letters U+00C0..U+00FF (Latin-1), "" for the two signs. */
static const char *const latin1_fold[64] = {
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
    "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "ss",
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
    "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
};

/* DNS-1123 label from a display name: ASCII letters (lowercased) and digits
 * kept, Latin-1 letters folded to ASCII ("Ünïcode" -> "unicode"), every
 * other run (spaces, punctuation, other scripts) one `-`, trimmed, at most
 * 63 characters. "" if nothing is left. */
static char *slugify(dg *d, const char *name)
{
    char *out = arena_alloc(d->mem, 2 * strlen(name) + 1); /* ample: folds never grow */
    size_t o = 0;
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        unsigned char c = *p;
        const char *fold = NULL;
        char one[2] = { 0, 0 };
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) {
            one[0] = (char)tolower(c);
            fold = one;
        } else if (c == 0xC3 && p[1] >= 0x80 && p[1] <= 0xBF) {
            fold = latin1_fold[p[1] - 0x80];
            p++;
            if (!*fold)
                fold = NULL;
        }
        if (fold) {
            if (dash && o > 0)
                out[o++] = '-';
            dash = false;
            for (; *fold; fold++)
                out[o++] = *fold;
        } else {
            dash = true;
        }
    }
    if (o > 63)
        o = 63;
    while (o > 0 && out[o - 1] == '-')
        o--;
    out[o] = '\0';
    return out;
}

/* ---- package lists ---- */

typedef struct token {
    const char *text;
    unsigned line, column;
    bool glued; /* follows the previous token after a lone comma: "a>=2,<3" */
} token;

static bool is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',';
}

/* Splits one scalar into tokens. Positions point at the token itself for a
 * plain one-line scalar, else at the scalar. */
static void split_scalar(dg *d, const spec_node *s, ptrvec *out)
{
    const char *t = s->text;
    size_t n = s->text_len;
    bool exact = !s->quoted && !memchr(t, '\n', n);
    size_t i = 0;
    while (i < n) {
        while (i < n && is_sep(t[i]))
            i++;
        size_t start = i;
        while (i < n && !is_sep(t[i]))
            i++;
        if (i == start)
            break;
        token *tk = arena_alloc(d->mem, sizeof *tk);
        tk->text = arena_strndup(d->mem, t + start, i - start);
        tk->glued = start >= 2 && t[start - 1] == ',' && !is_sep(t[start - 2]);
        tk->line = s->line;
        tk->column = s->column;
        if (exact) { /* columns count characters, not bytes */
            unsigned chars = 0;
            for (size_t b = 0; b < start; b++)
                if (((unsigned char)t[b] & 0xC0) != 0x80)
                    chars++;
            tk->column = s->column + chars;
        }
        ptrvec_push(out, tk);
    }
}

/* The tokens of a package field: a string, or a list of strings, each split
 * at spaces, commas and new lines. False (with a finding) on another type. */
static bool tokens_of(dg *d, dg_field f, ptrvec *out)
{
    const spec_node *v = d->slot[f];
    if (!v || v->kind == SN_NULL)
        return true;
    if (v->kind == SN_STR) {
        split_scalar(d, v, out);
        return true;
    }
    if (v->kind == SN_SEQ) {
        bool ok = true;
        for (size_t i = 0; i < v->n; i++) {
            const spec_node *it = v->items[i];
            if (it->kind == SN_STR)
                split_scalar(d, it, out);
            else if (it->kind != SN_NULL) {
                finding(d, it, field_path[f], "item %zu is not a string; quote it", i + 1);
                ok = false;
            }
        }
        return ok;
    }
    finding(d, v, field_path[f],
            "must be a string or a list of strings (spaces, commas or new lines separate packages)");
    return false;
}

static bool ascii_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_op(char c)
{
    return c == '=' || c == '<' || c == '>' || c == '!' || c == '~';
}

/* PEP 503 canonical name of the requirement's leading name. */
static char *pypi_key(dg *d, const char *req)
{
    size_t n = 0;
    while (ascii_alnum(req[n]) || req[n] == '.' || req[n] == '_' || req[n] == '-')
        n++;
    char *out = arena_alloc(d->mem, n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = req[i];
        if (c == '.' || c == '_' || c == '-') {
            if (o == 0 || out[o - 1] != '-')
                out[o++] = '-';
        } else {
            out[o++] = (char)tolower((unsigned char)c);
        }
    }
    out[o] = '\0';
    return out;
}

/* A Python package entry: its PEP 508 name must lead; the rest is for the
 * rules. A separator inside a pin ("pandas == 2.2", "pandas==, 2.2") shows
 * up as a token that starts or ends with a comparison operator. Returns a
 * message, or NULL if the entry is usable. */
static char *python_problem(const char *t)
{
    size_t n = strlen(t);
    if (is_op(t[0]) || is_op(t[n - 1]) || t[0] == ';' || t[n - 1] == ';')
        return xasprintf("`%s` is a piece of a version pin: pin versions without spaces, "
                         "e.g. `pandas==2.2.2`", t);
    if (!ascii_alnum(t[0]))
        return xasprintf("`%s` is not a Python package: a name starts with a letter or digit", t);
    size_t k = 0;
    while (ascii_alnum(t[k]) || t[k] == '.' || t[k] == '_' || t[k] == '-')
        k++;
    if (!ascii_alnum(t[k - 1]))
        return xasprintf("`%s` is not a Python package: a name ends with a letter or digit", t);
    return NULL;
}

static bool npm_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

/* npm: `name`, `name@spec`, `@scope/name`, `@scope/name@spec`; names in
 * lowercase letters, digits and `-._~`, not starting with `.` or `_`. */
static char *npm_problem(const char *t, size_t *name_len)
{
    size_t i = 0;
    if (t[0] == '@') {
        i = 1;
        size_t s = i;
        while (npm_name_char(t[i]))
            i++;
        if (i == s || t[i] != '/')
            goto bad;
        i++;
    }
    size_t s = i;
    while (npm_name_char(t[i]))
        i++;
    if (i == s || t[s] == '.' || t[s] == '_')
        goto bad;
    *name_len = i;
    if (t[i] == '\0')
        return NULL;
    if (t[i] == '@' && t[i + 1] != '\0')
        return NULL;
bad:
    if ((t[0] == '@' && strchr(t, '/') == NULL && t[1] != '\0' && isdigit((unsigned char)t[1])) ||
        t[strlen(t) - 1] == '@')
        return xasprintf("`%s` is a piece of a version pin: pin versions without spaces, "
                         "e.g. `@scope/tool@1.4.0`", t);
    return xasprintf("`%s` is not an npm package: `name` or `@scope/name`, optionally "
                     "`@version` (lowercase letters, digits, `-._~`)", t);
}

/* apt, as the Environment rules check it: `^[a-z0-9][a-z0-9+.-]+(=[A-Za-z0-9.+~:-]+)?$`. */
static char *apt_problem(const char *t, size_t *name_len)
{
    size_t i = 0;
    bool ok = (t[0] >= 'a' && t[0] <= 'z') || (t[0] >= '0' && t[0] <= '9');
    if (ok) {
        i = 1;
        while ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= '0' && t[i] <= '9') || t[i] == '+' ||
               t[i] == '.' || t[i] == '-')
            i++;
        ok = i >= 2;
    }
    *name_len = i;
    if (ok && t[i] == '=') {
        size_t v = i + 1;
        size_t j = v;
        while (ascii_alnum(t[j]) || t[j] == '.' || t[j] == '+' || t[j] == '~' || t[j] == ':' ||
               t[j] == '-')
            j++;
        ok = j > v && t[j] == '\0';
    } else if (ok) {
        ok = t[i] == '\0';
    }
    if (ok)
        return NULL;
    if (t[0] == '=' || t[strlen(t) - 1] == '=')
        return xasprintf("`%s` is a piece of a version pin: pin versions without spaces, "
                         "e.g. `ffmpeg=7:5.1.6-0+deb12u1`", t);
    return xasprintf("`%s` is not an apt package name, optionally `=version`", t);
}

/* One accepted package entry. `from` is the recipe field it came from
 * (F_COUNT for the template). */
typedef struct entry {
    const char *text;
    const char *key;
    unsigned line, column;
    dg_field from;
    size_t index; /* in its recipe field */
} entry;

static entry *entry_new(dg *d, const token *tk, const char *key, dg_field from, size_t index)
{
    entry *e = arena_alloc(d->mem, sizeof *e);
    e->text = tk->text;
    e->key = key;
    e->line = tk->line;
    e->column = tk->column;
    e->from = from;
    e->index = index;
    return e;
}

static entry *entry_find(ptrvec *list, const char *key, size_t *at)
{
    for (size_t i = 0; i < list->len; i++) {
        entry *e = list->items[i];
        if (strcmp(e->key, key) == 0) {
            if (at)
                *at = i;
            return e;
        }
    }
    return NULL;
}

/* A comma inside a specifier set does not separate: "pandas>=2,<3" is one
 * requirement. Only a lone comma between a token and one that starts with
 * an operator joins them; "scipy ,<2" stays two. */
static void join_specifier_sets(dg *d, ptrvec *toks)
{
    size_t o = 0;
    for (size_t i = 0; i < toks->len; i++) {
        token *tk = toks->items[i];
        if (o > 0 && tk->glued && is_op(tk->text[0])) {
            token *prev = toks->items[o - 1];
            prev->text = arena_sprintf(d->mem, "%s,%s", prev->text, tk->text);
            continue;
        }
        toks->items[o++] = tk;
    }
    toks->len = o;
}

/* What is wrong with one entry of field `f` under its ecosystem's grammar
 * (a message to free), or NULL with *key set to the package it names. */
static char *entry_problem(dg *d, dg_field f, const token *tk, const char **key)
{
    char *problem = NULL, *err = NULL;
    size_t name_len = 0;
    if (f == F_PIP || f == F_UV) {
        problem = python_problem(tk->text);
        if (!problem && !spec_check_pep508(tk->text, &err))
            problem = xasprintf("`%s`: %s", tk->text, err);
        if (!problem)
            *key = pypi_key(d, tk->text);
    } else if (f == F_NPM) {
        problem = npm_problem(tk->text, &name_len);
        if (!problem && !spec_check_npm(tk->text, &err))
            problem = xstrdup(err); /* it quotes the entry itself */
        if (!problem)
            *key = arena_strndup(d->mem, tk->text, name_len);
    } else {
        problem = apt_problem(tk->text, &name_len);
        if (!problem)
            *key = arena_strndup(d->mem, tk->text, name_len);
    }
    free(err);
    return problem;
}

/* Adds an accepted entry of field `f` to `out` (and to `mine`, the field's
 * own), unless the field already named its package: a repeat with other
 * text is a finding, an identical one is dropped. The template's entry for
 * the package is replaced in place; pip and uv naming it differently is a
 * finding. */
static void add_entry(dg *d, dg_field f, const token *tk, const char *key, size_t i,
                      const char *field, ptrvec *mine, ptrvec *out)
{
    entry *prev = entry_find(mine, key, NULL);
    if (prev) {
        if (strcmp(prev->text, tk->text) != 0)
            finding_pos(d, tk->line, tk->column, field,
                        "`%s` names the package of %s[%zu] (`%s`) again; list it once",
                        tk->text, field_path[f], prev->index, prev->text);
        return;
    }
    entry *e = entry_new(d, tk, key, f, i);
    ptrvec_push(mine, e);
    size_t at;
    entry *old = entry_find(out, key, &at);
    if (!old)
        ptrvec_push(out, e);
    else if (old->from == F_COUNT)
        out->items[at] = e; /* the recipe's entry replaces the template's */
    else if (strcmp(old->text, e->text) != 0) /* pip and uv disagree */
        finding_pos(d, e->line, e->column, field,
                    "`%s` names the package of %s[%zu] (`%s`); list it in one of them",
                    e->text, field_path[old->from], old->index, old->text);
}

/* Reads one package field into `out`, checking each entry with the
 * ecosystem's name grammar and reporting the same package listed twice
 * with different text (an identical repeat is dropped silently). The
 * template's entries for a package the field names are replaced in place.
 * Returns how many of the field's entries were valid. */
static size_t read_packages(dg *d, dg_field f, ptrvec *out)
{
    size_t valid = 0;
    ptrvec toks = PTRVEC_INIT;
    tokens_of(d, f, &toks);
    if (f == F_PIP || f == F_UV)
        join_specifier_sets(d, &toks);
    ptrvec mine = PTRVEC_INIT; /* this field's accepted entries */
    bool dangling = false;     /* the previous token ended in an operator */
    for (size_t i = 0; i < toks.len; i++) {
        const token *tk = toks.items[i];
        size_t tlen = strlen(tk->text);
        bool was_dangling = dangling;
        dangling = is_op(tk->text[tlen - 1]) || (f == F_APT && tk->text[tlen - 1] == '=') ||
                   (f == F_NPM && tk->text[tlen - 1] == '@');
        if (was_dangling && (isdigit((unsigned char)tk->text[0]) || strchr("^~<>=*", tk->text[0])))
            continue; /* the version of a pin cut by a separator: reported with its operator */
        const char *key = NULL;
        char *problem = entry_problem(d, f, tk, &key);
        char *field = xasprintf("%s[%zu]", field_path[f], i);
        if (problem)
            finding_pos(d, tk->line, tk->column, field, "%s", problem);
        else {
            valid++;
            add_entry(d, f, tk, key, i, field, &mine, out);
        }
        free(problem);
        free(field);
    }
    ptrvec_release(&mine);
    ptrvec_release(&toks);
    return valid;
}

/* ---- registries ---- */

/* http:// or https:// (scheme in any case), a host, no spaces or control
 * characters. Returns a message or NULL. */
static char *url_problem(const char *u)
{
    size_t skip = 0;
    if (strncasecmp(u, "http://", 7) == 0)
        skip = 7;
    else if (strncasecmp(u, "https://", 8) == 0)
        skip = 8;
    else
        return xasprintf("`%s` is not an http:// or https:// URL", u);
    if (u[skip] == '\0' || u[skip] == '/' || u[skip] == '?' || u[skip] == '#')
        return xasprintf("`%s` has no host", u);
    for (const unsigned char *p = (const unsigned char *)u; *p; p++)
        if (*p <= 0x20 || *p == 0x7f)
            return xasprintf("`%s` is not a URL: it has a space or control character", u);
    return NULL;
}

/* A registry URL field: trimmed, blank is unset; a bad URL is a finding and
 * unset. */
static const char *read_url(dg *d, dg_field f)
{
    const char *s = want_string(d, f);
    if (!s || blank(s))
        return NULL;
    char *u = arena_trimmed(d->mem, s);
    char *problem = url_problem(u);
    if (problem) {
        finding(d, d->slot[f], field_path[f], "%s", problem);
        free(problem);
        return NULL;
    }
    return u;
}

/* aptSources: sources.list text (a string, or a list of lines). Keeps the
 * one-line entries `deb|deb-src [options] URI suite [component...]` with an
 * http(s) URI; blank lines and `#` comments are dropped. */
static void read_apt_sources(dg *d, ptrvec *out)
{
    const spec_node *v = d->slot[F_APT_SOURCES];
    if (!v || v->kind == SN_NULL)
        return;
    strbuf text = STRBUF_INIT;
    if (v->kind == SN_STR) {
        sb_add(&text, v->text, v->text_len);
    } else if (v->kind == SN_SEQ) {
        for (size_t i = 0; i < v->n; i++) {
            if (v->items[i]->kind != SN_STR) {
                finding(d, v->items[i], field_path[F_APT_SOURCES], "item %zu is not a string", i + 1);
                continue;
            }
            sb_add(&text, v->items[i]->text, v->items[i]->text_len);
            sb_addc(&text, '\n');
        }
    } else {
        finding(d, v, field_path[F_APT_SOURCES], "must be sources.list text (a string)");
        return;
    }
    unsigned lineno = 0;
    char *p = text.len ? text.buf : NULL; /* an empty strbuf's buffer is shared */
    while (p && *p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *line = arena_trimmed(d->mem, p);
        p = nl ? nl + 1 : NULL;
        if (!*line || line[0] == '#')
            continue;
        /* word split on a scratch copy */
        char *scratch = xstrdup(line);
        char *save = NULL;
        char *words[64] = { 0 };
        size_t nw = 0;
        for (char *w = strtok_r(scratch, " \t", &save); w && nw < 64; w = strtok_r(NULL, " \t", &save))
            words[nw++] = w;
        size_t k = 1;
        const char *problem_fmt = NULL;
        char *problem = NULL;
        if (nw == 0 || (strcmp(words[0], "deb") != 0 && strcmp(words[0], "deb-src") != 0)) {
            problem_fmt = "does not start with `deb` or `deb-src`";
        } else {
            if (k < nw && words[k][0] == '[') {
                while (k < nw && words[k][strlen(words[k]) - 1] != ']')
                    k++;
                k++;
            }
            if (k >= nw)
                problem_fmt = "names no repository URL";
            else if ((problem = url_problem(words[k])) == NULL && k + 1 >= nw)
                problem_fmt = "names no suite after its URL";
        }
        if (problem || problem_fmt) {
            finding(d, v, field_path[F_APT_SOURCES],
                    "line %u: %s; an entry is `deb [options] http(s)://URL suite [components]`",
                    lineno, problem ? problem : problem_fmt);
        } else {
            ptrvec_push(out, line);
        }
        free(problem);
        free(scratch);
    }
    sb_release(&text);
}

/* ---- resources ---- */

/* Reads a resource size: a number, or a string "N", "N unit" or "Nunit"
 * with a unit from `units` (case-insensitive). Returns 1 with *out, 0 for
 * null or "default" (the deployment default), -1 for anything else. */
static int size_value(const spec_node *v, const char *const *units, double *out)
{
    if (!v || v->kind == SN_NULL)
        return 0;
    if (v->kind == SN_INT) {
        *out = (double)v->i;
        return 1;
    }
    if (v->kind == SN_FLOAT) {
        *out = v->f;
        return 1;
    }
    if (v->kind != SN_STR)
        return -1;
    const char *s = v->text;
    while (isspace((unsigned char)*s))
        s++;
    if (strncasecmp(s, "default", 7) == 0 && !s[7 + strspn(s + 7, " \t")])
        return 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    char *end;
    double x = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    size_t ul = strlen(end);
    while (ul > 0 && isspace((unsigned char)end[ul - 1]))
        ul--;
    if (ul == 0) {
        *out = x;
        return 1;
    }
    for (const char *const *u = units; *u; u++)
        if (strlen(*u) == ul && strncasecmp(end, *u, ul) == 0) {
            *out = x;
            return 1;
        }
    return -1;
}

static const char *node_display(dg *d, const spec_node *v)
{
    return v->text ? v->text : arena_sprintf(d->mem, "%g", v->kind == SN_FLOAT ? v->f : (double)v->i);
}

/* One resource field against its offered values; sets *out (0 = unset). */
static void read_resource(dg *d, dg_field f, const char *const *units, int a, int b,
                          const char *offered, int *out)
{
    *out = 0;
    const spec_node *v = d->slot[f];
    double x = 0;
    int r = size_value(v, units, &x);
    if (r == 0)
        return;
    if (r == 1 && (x == a || x == b)) {
        *out = (int)x;
        return;
    }
    if (v->kind == SN_SEQ || v->kind == SN_MAP || v->kind == SN_BOOL)
        finding(d, v, field_path[f], "must be a number or a size such as `2 GB`; %s", offered);
    else
        finding(d, v, field_path[f], "`%s` is not offered: %s", node_display(d, v), offered);
}

/* ---- templates and the base image ---- */

static const dg_template *find_template(dg *d, const char *given, const char **suggest)
{
    *suggest = NULL;
    char *want = slugify(d, given);
    size_t best = (size_t)-1;
    for (size_t i = 0; i < N_TEMPLATES; i++) {
        if (strcmp(given, templates[i].name) == 0 || strcasecmp(given, templates[i].name) == 0)
            return &templates[i];
        char *slug = slugify(d, templates[i].name);
        if (*want && strcmp(want, slug) == 0)
            return &templates[i];
        size_t dist = edit_distance(want, slug);
        if (dist < best) {
            best = dist;
            *suggest = templates[i].name;
        }
    }
    if (best > 3)
        *suggest = NULL;
    return NULL;
}

static void unknown_template(dg *d, const spec_node *at, const char *given)
{
    const char *suggest;
    find_template(d, given, &suggest);
    strbuf all = STRBUF_INIT;
    for (size_t i = 0; i < N_TEMPLATES; i++) {
        if (i)
            sb_adds(&all, ", ");
        sb_adds(&all, templates[i].name);
    }
    if (suggest)
        finding(d, at, "template", "`%s` is not a built-in template; did you mean `%s`?", given,
                suggest);
    else
        finding(d, at, "template", "`%s` is not a built-in template; the templates are %s", given,
                all.buf);
    sb_release(&all);
}

/* X.Y from an official `python:X.Y...` image tag (any registry prefix,
 * `library/` or not), else NULL. */
static const char *python_from_image(dg *d, const char *ref)
{
    size_t n = strcspn(ref, "@"); /* drop a digest */
    const char *last = ref;
    for (size_t i = 0; i < n; i++)
        if (ref[i] == '/')
            last = ref + i + 1;
    if (strncmp(last, "python:", 7) != 0)
        return NULL;
    const char *t = last + 7;
    size_t a = strspn(t, "0123456789");
    if (a == 0 || t[a] != '.')
        return NULL;
    size_t b = strspn(t + a + 1, "0123456789");
    if (b == 0)
        return NULL;
    return arena_strndup(d->mem, t, a + 1 + b);
}

/* ---- the whole recipe ---- */

static bool is_environment_key(const char *norm)
{
    return !strcmp(norm, "apiversion") || !strcmp(norm, "kind") || !strcmp(norm, "spec") ||
           !strcmp(norm, "metadata");
}

bool spec_datagen_looks_like(const spec_node *root)
{
    if (!root || root->kind != SN_MAP)
        return false;
    bool datagen = false;
    for (size_t k = 0; k < root->n; k++) {
        const spec_node *key = root->keys[k];
        if (!key->text)
            continue;
        char norm[128];
        key_norm(key->text, key->text_len, norm, sizeof norm);
        if (is_environment_key(norm))
            return false;
        for (size_t s = 0; s < N_SPELLINGS; s++)
            if (spellings[s].group == G_TOP && strcmp(spellings[s].norm, norm) == 0)
                datagen = true;
    }
    return datagen;
}

/* Collects a nested recipe mapping (packages, registries, resources). */
static void collect_group(dg *d, dg_field f, int group, const char *what)
{
    const spec_node *v = d->slot[f];
    if (!v || v->kind == SN_NULL)
        return;
    if (v->kind != SN_MAP) {
        finding(d, v, field_path[f], "must be a mapping of %s", what);
        return;
    }
    collect(d, v, group);
}

static spec_node *seq_of_entries(dg *d, ptrvec *list, const spec_node *at)
{
    ptrvec items = PTRVEC_INIT;
    for (size_t i = 0; i < list->len; i++) {
        const entry *e = list->items[i];
        ptrvec_push(&items, str_pos(d, e->line, e->column, e->text));
    }
    return seq_done(d, &items, at);
}

/* What a recipe says, read and judged field by field before the tree is
 * built from it. */
typedef struct recipe {
    const dg_template *tpl;
    const spec_node *tpl_at;
    const char *title;
    const spec_node *name_at;
    char *slug;
    const char *description;
    const spec_node *desc_at;
    bool workspace_default;
    const char *base_image;
    ptrvec py, npm, apt, sources;
    bool uv;
    const char *index;
    const spec_node *index_at;
    const char *npm_registry;
    int cpu, memory, disk;
} recipe;

/* template: the option wins over the recipe's field */
static void read_template(dg *d, const char *template_name, recipe *r)
{
    const char *suggest;
    if (template_name) {
        r->tpl = find_template(d, template_name, &suggest);
        if (!r->tpl)
            unknown_template(d, NULL, template_name);
        return;
    }
    const char *t = want_string(d, F_TEMPLATE);
    if (t && !blank(t)) {
        char *tt = arena_trimmed(d->mem, t);
        r->tpl = find_template(d, tt, &suggest);
        r->tpl_at = d->slot[F_TEMPLATE];
        if (!r->tpl)
            unknown_template(d, r->tpl_at, tt);
    }
}

/* name -> metadata.name (slug) and metadata.title */
static void read_name(dg *d, recipe *r)
{
    r->name_at = d->root;
    if (!d->root) {
        r->title = r->tpl->name;
    } else if (!d->slot[F_NAME]) {
        finding(d, d->root, "name", "is required; it is shown in every environment picker");
    } else {
        r->name_at = d->slot[F_NAME];
        const char *s = want_string(d, F_NAME);
        if (s && blank(s))
            finding(d, r->name_at, "name", "is empty; it is shown in every environment picker");
        else if (s)
            r->title = arena_trimmed(d->mem, s);
    }
    r->slug = r->title ? slugify(d, r->title) : NULL;
    if (r->title && !*r->slug)
        finding(d, r->name_at, "name",
                "`%s` has no letter or digit (a-z, 0-9) to make `metadata.name` from", r->title);
    if (!r->slug || !*r->slug)
        r->slug = "recipe"; /* placeholder: the finding above already blocks the spec */
}

/* description, or a template's package list when the recipe gives none */
static void read_description(dg *d, recipe *r)
{
    r->desc_at = r->tpl_at;
    const char *s = want_string(d, F_DESCRIPTION);
    if (s) {
        r->description = s;
        r->desc_at = d->slot[F_DESCRIPTION];
    } else if (r->tpl && !d->slot[F_DESCRIPTION]) {
        strbuf sb = STRBUF_INIT;
        for (const char *const *p = r->tpl->pip; *p; p++) {
            if (sb.len)
                sb_adds(&sb, ", ");
            sb_adds(&sb, *p);
        }
        r->description = arena_strdup(d->mem, sb.buf);
        sb_release(&sb);
    }
}

static void read_workspace_default(dg *d, recipe *r)
{
    const spec_node *v = d->slot[F_WORKSPACE_DEFAULT];
    if (!v)
        return;
    if (v->kind == SN_BOOL)
        r->workspace_default = v->b;
    else if (v->kind != SN_NULL)
        finding(d, v, "workspaceDefault", "must be true or false");
}

static void read_base_image(dg *d, recipe *r)
{
    const char *s = want_string(d, F_BASE_IMAGE);
    if (!s || blank(s))
        return;
    char *t = arena_trimmed(d->mem, s);
    if (strpbrk(t, " \t\r\n"))
        finding(d, d->slot[F_BASE_IMAGE], "baseImage",
                "`%s` is not an image reference: it has a space", t);
    else
        r->base_image = t;
}

/* packages: a template's list first, then the recipe's own */
static void read_package_lists(dg *d, recipe *r)
{
    if (r->tpl) {
        size_t j = 0;
        const spec_node *at = r->tpl_at;
        for (const char *const *p = r->tpl->pip; *p; p++, j++) {
            token tk = { *p, at ? at->line : 0, at ? at->column : 0, false };
            ptrvec_push(&r->py, entry_new(d, &tk, pypi_key(d, *p), F_COUNT, j));
        }
    }
    read_packages(d, F_PIP, &r->py);
    /* uv manages the environment when the uv list names anything, even if
     * each of its entries repeats a pip one */
    r->uv = read_packages(d, F_UV, &r->py) > 0;
    read_packages(d, F_NPM, &r->npm);
    read_packages(d, F_APT, &r->apt);
}

static void read_registries(dg *d, recipe *r)
{
    const char *pip_index = read_url(d, F_PIP_INDEX);
    const char *uv_index = read_url(d, F_UV_INDEX);
    r->index = pip_index ? pip_index : uv_index;
    r->index_at = pip_index ? d->slot[F_PIP_INDEX] : d->slot[F_UV_INDEX];
    if (pip_index && uv_index && strcmp(pip_index, uv_index) != 0)
        finding(d, d->slot[F_UV_INDEX], "registries.uvIndexUrl",
                "`%s` differs from registries.pipIndexUrl (`%s`): pip and uv packages install "
                "into one environment from one index; give one URL",
                uv_index, pip_index);
    r->npm_registry = read_url(d, F_NPM_REGISTRY);
    read_apt_sources(d, &r->sources);
}

static void read_resources(dg *d, recipe *r)
{
    static const char *const cpu_units[] = { "core", "cores", "cpu", "cpus", "vcpu", "vcpus", NULL };
    static const char *const size_units[] = { "GB", "G", "GiB", "Gi", NULL };
    read_resource(d, F_CPU, cpu_units, 1, 2, "CPU is 1 or 2 cores", &r->cpu);
    read_resource(d, F_MEMORY, size_units, 1, 2, "memory is 1 GB or 2 GB", &r->memory);
    read_resource(d, F_DISK, size_units, 2, 5, "disk is 2 GB or 5 GB", &r->disk);
}

/* ---- the Environment tree, one part a function ---- */

static spec_node *metadata_of(dg *d, const recipe *r)
{
    const spec_node *name_at = r->name_at;
    mapb meta = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &meta, name_at, "name", str_at(d, name_at, r->slug));
    if (r->title)
        put(d, &meta, name_at, "title", str_at(d, name_at, r->title));
    if (r->description)
        put(d, &meta, r->desc_at, "description", str_at(d, r->desc_at, r->description));
    if (r->workspace_default) {
        mapb labels = { PTRVEC_INIT, PTRVEC_INIT };
        const spec_node *wat = d->slot[F_WORKSPACE_DEFAULT];
        put(d, &labels, wat, "envlock.io/workspace-default", str_at(d, wat, "true"));
        put(d, &meta, wat, "labels", map_done(d, &labels, wat));
    }
    return map_done(d, &meta, name_at);
}

/* A recipe names no base: it goes on the first approved base at that base's
 * newest channel, with the base's Python unless its baseImage names one. */
static void put_language_and_base(dg *d, mapb *spec, const recipe *r)
{
    const spec_node *at = d->root;
    const spec_node *lat = r->base_image ? d->slot[F_BASE_IMAGE] : at;
    const char *v = r->base_image ? python_from_image(d, r->base_image) : NULL;
    if (!v && d->base)
        v = d->base->python;
    mapb lang = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &lang, lat, "name", str_at(d, lat, "python"));
    if (v)
        put(d, &lang, lat, "version", str_at(d, lat, v));
    put(d, spec, lat, "language", map_done(d, &lang, lat));

    if (!d->base || !d->base->channel) {
        finding(d, at, "(document)",
                "cannot be placed on a base: no approved bases were given (no bases catalog)");
        return;
    }
    mapb base = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &base, at, "ref", str_at(d, at, d->base->ref));
    put(d, &base, at, "channel", str_at(d, at, d->base->channel));
    put(d, spec, at, "base", map_done(d, &base, at));
}

static spec_node *python_of(dg *d, recipe *r, const spec_node *pat)
{
    mapb python = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &python, pat, "manager", str_at(d, pat, r->uv ? "uv" : "pip"));
    put(d, &python, pat, "dependencies", seq_of_entries(d, &r->py, pat));
    if (r->index) {
        ptrvec idx = PTRVEC_INIT;
        ptrvec_push(&idx, str_at(d, r->index_at, r->index));
        put(d, &python, r->index_at, "indexes", seq_done(d, &idx, r->index_at));
    }
    return map_done(d, &python, pat);
}

static spec_node *system_of(dg *d, recipe *r, const spec_node *pat)
{
    mapb system = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &system, pat, "apt", seq_of_entries(d, &r->apt, pat));
    if (r->sources.len) {
        const spec_node *sat = d->slot[F_APT_SOURCES];
        ptrvec lines = PTRVEC_INIT;
        for (size_t i = 0; i < r->sources.len; i++)
            ptrvec_push(&lines, str_at(d, sat, r->sources.items[i]));
        put(d, &system, sat, "sources", seq_done(d, &lines, sat));
    }
    return map_done(d, &system, pat);
}

static spec_node *node_of(dg *d, recipe *r, const spec_node *pat)
{
    mapb node = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &node, pat, "dependencies", seq_of_entries(d, &r->npm, pat));
    if (r->npm_registry) {
        const spec_node *rat = d->slot[F_NPM_REGISTRY];
        put(d, &node, rat, "registry", str_at(d, rat, r->npm_registry));
    }
    return map_done(d, &node, pat);
}

static void put_packages(dg *d, mapb *spec, recipe *r)
{
    const spec_node *pat = d->slot[F_PACKAGES] ? d->slot[F_PACKAGES] : d->root;
    mapb pkgs = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &pkgs, pat, "python", python_of(d, r, pat));
    if (r->apt.len || r->sources.len)
        put(d, &pkgs, pat, "system", system_of(d, r, pat));
    if (r->npm.len || r->npm_registry)
        put(d, &pkgs, pat, "node", node_of(d, r, pat));
    put(d, spec, pat, "packages", map_done(d, &pkgs, pat));
}

static void put_resources(dg *d, mapb *spec, const recipe *r)
{
    if (!r->cpu && !r->memory && !r->disk)
        return;
    const spec_node *rat = d->slot[F_RESOURCES];
    mapb hints = { PTRVEC_INIT, PTRVEC_INIT };
    if (r->cpu)
        put(d, &hints, d->slot[F_CPU], "cpu", int_at(d, d->slot[F_CPU], r->cpu));
    if (r->memory)
        put(d, &hints, d->slot[F_MEMORY], "memoryGi", int_at(d, d->slot[F_MEMORY], r->memory));
    if (r->disk)
        put(d, &hints, d->slot[F_DISK], "diskGi", int_at(d, d->slot[F_DISK], r->disk));
    mapb res = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &res, rat, "hints", map_done(d, &hints, rat));
    put(d, spec, rat, "resources", map_done(d, &res, rat));
}

static void put_build_image(dg *d, mapb *spec, const recipe *r)
{
    if (!r->base_image)
        return;
    const spec_node *bat = d->slot[F_BASE_IMAGE];
    mapb build = { PTRVEC_INIT, PTRVEC_INIT };
    mapb image = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &image, bat, "reference", str_at(d, bat, r->base_image));
    put(d, &build, bat, "source", str_at(d, bat, "image"));
    put(d, &build, bat, "image", map_done(d, &image, bat));
    put(d, spec, bat, "build", map_done(d, &build, bat));
    /* The seed: the base image applies on Daytona only; Modal uses its
     * built-in Debian base. So the recipe builds for both, each on its
     * own target, from one lock (base_request.c). */
    mapb compat = { PTRVEC_INIT, PTRVEC_INIT }, vars = { PTRVEC_INIT, PTRVEC_INIT };
    ptrvec req = PTRVEC_INIT;
    ptrvec_push(&req, str_at(d, bat, "daytona"));
    ptrvec_push(&req, str_at(d, bat, "modal"));
    put(d, &vars, bat, "required", seq_done(d, &req, bat));
    put(d, &compat, bat, "variants", map_done(d, &vars, bat));
    put(d, spec, bat, "compatibility", map_done(d, &compat, bat));
}

/* The Environment subtrees the importer builds from one recipe field
 * each (environment_of()); the fields a message about them names. */
static const struct {
    const char *env;
    dg_field from;
} env_origin[] = {
    { "spec.build", F_BASE_IMAGE },
    { "spec.compatibility.variants", F_BASE_IMAGE },
    { "spec.resources.hints", F_RESOURCES },
    { "spec.packages.node", F_NPM },
    { "spec.packages.system.apt", F_APT },
    { "spec.packages.system.sources", F_APT_SOURCES },
    { "metadata.title", F_NAME },
};

const char *spec_datagen_field(const spec_node *root, const char *field)
{
    for (size_t i = 0; i < sizeof env_origin / sizeof env_origin[0]; i++) {
        size_t n = strlen(env_origin[i].env);
        if (strncmp(field, env_origin[i].env, n) == 0 && strchr(".[", field[n]) &&
            spec_node_at_path(root, env_origin[i].env))
            return field_path[env_origin[i].from];
    }
    return NULL;
}

static spec_node *environment_of(dg *d, recipe *r)
{
    const spec_node *at = d->root;
    mapb spec = { PTRVEC_INIT, PTRVEC_INIT };
    put_language_and_base(d, &spec, r);
    put_packages(d, &spec, r);
    put_resources(d, &spec, r);
    put_build_image(d, &spec, r);

    mapb top = { PTRVEC_INIT, PTRVEC_INIT };
    put(d, &top, at, "apiVersion", str_at(d, at, "environments.datalayer.io/v1alpha1"));
    put(d, &top, at, "kind", str_at(d, at, "Environment"));
    put(d, &top, r->name_at, "metadata", metadata_of(d, r));
    put(d, &top, at, "spec", map_done(d, &spec, at));
    return map_done(d, &top, at);
}

/* False (with a finding) when there is no recipe to read: not a mapping,
 * or neither a document nor a template. */
static bool recipe_present(dg *d, const spec_node *root, const char *template_name)
{
    if (root && root->kind != SN_MAP) {
        finding(d, root, "(document)",
                "a DataGen recipe is a mapping of fields: name, description, template, baseImage, "
                "packages, registries, resources, workspaceDefault");
        return false;
    }
    if (!root && !template_name) {
        finding(d, NULL, "(document)", "is empty: a DataGen recipe needs at least a `name`");
        return false;
    }
    return true;
}

spec_node *spec_datagen_import(arena *mem, const spec_node *root, const char *template_name,
                               const el_spec_base *base, spec_findings *fs)
{
    dg d;
    memset(&d, 0, sizeof d);
    d.mem = mem;
    d.fs = fs;
    d.base = base;
    if (root && root->kind == SN_NULL && template_name)
        root = NULL; /* an empty file with --template: the template alone */
    d.root = root;
    if (!recipe_present(&d, root, template_name))
        return NULL;
    if (root) {
        collect(&d, root, G_TOP);
        collect_group(&d, F_PACKAGES, G_PACKAGES, "apt, pip, uv, npm");
        collect_group(&d, F_REGISTRIES, G_REGISTRIES,
                      "pipIndexUrl, uvIndexUrl, npmRegistryUrl, aptSources");
        collect_group(&d, F_RESOURCES, G_RESOURCES, "cpu, memory, disk");
    }
    recipe r;
    memset(&r, 0, sizeof r);
    read_template(&d, template_name, &r);
    if (!root && !r.tpl)
        return NULL;
    read_name(&d, &r);
    read_description(&d, &r);
    read_workspace_default(&d, &r);
    read_base_image(&d, &r);
    read_package_lists(&d, &r);
    read_registries(&d, &r);
    read_resources(&d, &r);

    spec_node *env = environment_of(&d, &r);
    ptrvec_release(&r.py);
    ptrvec_release(&r.npm);
    ptrvec_release(&r.apt);
    ptrvec_release(&r.sources);
    return env;
}

/* pep508_marker.c — what a parsed environment marker means and how it
 * prints: packaging 23.0's Marker.evaluate() and str(Marker), and PEP 503
 * name canonicalization. Parsing is pep508_parse.c's job.
 *
 * Evaluation reproduces packaging's rules, quirks included: the left side
 * decides which side is looked up in the environment (when the left side is
 * a variable, the right side is taken literally, even if it is a variable
 * too); every comparison is evaluated (no short-circuit), so an error in any
 * of them is an error; `extra` values are compared canonicalized; and only
 * the first comparison of the whole marker gets its `extra` value
 * canonicalized in the printed form.
 * Deviation: canonicalization lowercases ASCII only (Python lowercases all
 * of Unicode). */
#include <stdlib.h>
#include <string.h>

#include "pep508_tree.h"
#include "util.h"

char *pypi_name_canonical(const char *name)
{
    strbuf sb = STRBUF_INIT;
    for (const char *p = name; *p;) {
        if (*p == '-' || *p == '_' || *p == '.') {
            while (*p == '-' || *p == '_' || *p == '.')
                p++;
            sb_addc(&sb, '-');
            continue;
        }
        char c = *p++;
        sb_addc(&sb, (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c);
    }
    return sb_detach(&sb, NULL);
}

static bool name_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool pypi_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || !name_alnum(name[0]) || !name_alnum(name[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_alnum(name[i]) && name[i] != '-' && name[i] != '_' && name[i] != '.')
            return false;
    return true;
}

void pypi_mnode_free(pypi_mnode *n)
{
    if (!n)
        return;
    free(n->lhs.s);
    free(n->rhs.s);
    free(n->op);
    for (size_t i = 0; i < n->n; i++)
        pypi_mnode_free(n->kids[i]);
    free(n->kids);
    free(n->is_or);
    free(n);
}

/* _format_marker(): a one-atom list prints as its atom (recursively, and
 * then as a top-level list again: packaging drops those parentheses even
 * where they mattered); other nested lists get parentheses. */
static void format(const pypi_mnode *n, bool first, strbuf *sb)
{
    if (n->is_list && n->n == 1) {
        format(n->kids[0], true, sb);
        return;
    }
    if (n->is_list) {
        if (!first)
            sb_addc(sb, '(');
        for (size_t i = 0; i < n->n; i++) {
            if (i)
                sb_adds(sb, n->is_or[i - 1] ? " or " : " and ");
            format(n->kids[i], false, sb);
        }
        if (!first)
            sb_addc(sb, ')');
        return;
    }
    const pypi_mterm *t[2] = {&n->lhs, &n->rhs};
    for (int i = 0; i < 2; i++) {
        if (i)
            sb_addf(sb, " %s ", n->op);
        if (t[i]->is_var)
            sb_adds(sb, t[i]->s);
        else
            sb_addf(sb, "\"%s\"", t[i]->s);
    }
}

/* _normalize_extra_values(): only the first atom, only if a comparison. */
static void normalize_first_extra(pypi_mnode *root)
{
    if (root->n == 0 || root->kids[0]->is_list)
        return;
    pypi_mnode *c = root->kids[0];
    pypi_mterm *other = NULL;
    if (c->lhs.is_var && strcmp(c->lhs.s, "extra") == 0)
        other = &c->rhs;
    else if (c->rhs.is_var && strcmp(c->rhs.s, "extra") == 0)
        other = &c->lhs;
    if (!other)
        return;
    char *canon = pypi_name_canonical(other->s);
    free(other->s);
    other->s = canon;
    other->is_var = false;
}

pypi_marker *pypi_marker_from_tree(pypi_mnode *root)
{
    pypi_marker *m = xcalloc(1, sizeof *m);
    normalize_first_extra(root);
    m->root = root;
    strbuf sb = STRBUF_INIT;
    format(root, true, &sb);
    m->str = sb_detach(&sb, NULL);
    return m;
}

void pypi_marker_free(pypi_marker *m)
{
    if (!m)
        return;
    pypi_mnode_free(m->root);
    free(m->str);
    free(m);
}

const char *pypi_marker_str(const pypi_marker *m) { return m->str; }

/* The environment value for `key`, or NULL if `key` names no variable. */
static const char *env_get(const pypi_env *env, const char *key, bool *found)
{
    static const struct { const char *k; size_t off; } keys[] = {
        {"python_version", offsetof(pypi_env, python_version)},
        {"python_full_version", offsetof(pypi_env, python_full_version)},
        {"os_name", offsetof(pypi_env, os_name)},
        {"sys_platform", offsetof(pypi_env, sys_platform)},
        {"platform_release", offsetof(pypi_env, platform_release)},
        {"platform_system", offsetof(pypi_env, platform_system)},
        {"platform_version", offsetof(pypi_env, platform_version)},
        {"platform_machine", offsetof(pypi_env, platform_machine)},
        {"platform_python_implementation", offsetof(pypi_env, platform_python_implementation)},
        {"implementation_name", offsetof(pypi_env, implementation_name)},
        {"implementation_version", offsetof(pypi_env, implementation_version)},
        {"extra", offsetof(pypi_env, extra)},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].k, key) == 0) {
            const char *v = *(const char *const *)((const char *)env + keys[i].off);
            *found = true;
            return v ? v : "";
        }
    *found = false;
    return NULL;
}

static int eval_op(const char *lhs, const char *op, const char *rhs, char **err)
{
    if (strcmp(op, "in") != 0 && strcmp(op, "not in") != 0) {
        char *spec = xasprintf("%s%s", op, rhs);
        int r = pypi_spec_contains_str(spec, lhs);
        free(spec);
        if (r == -2) {
            if (err)
                *err = xasprintf("`%s` is not a valid version to compare with `%s %s`", lhs, op, rhs);
            return -1;
        }
        if (r >= 0)
            return r;
    }
    int c = strcmp(lhs, rhs);
    if (strcmp(op, "in") == 0)
        return strstr(rhs, lhs) != NULL;
    if (strcmp(op, "not in") == 0)
        return strstr(rhs, lhs) == NULL;
    if (strcmp(op, "==") == 0)
        return c == 0;
    if (strcmp(op, "!=") == 0)
        return c != 0;
    if (strcmp(op, "<") == 0)
        return c < 0;
    if (strcmp(op, "<=") == 0)
        return c <= 0;
    if (strcmp(op, ">") == 0)
        return c > 0;
    if (strcmp(op, ">=") == 0)
        return c >= 0;
    if (err)
        *err = xasprintf("`%s` is undefined between `%s` and `%s` (neither side is a version)", op, lhs, rhs);
    return -1;
}

static int eval_item(const pypi_mnode *n, const pypi_env *env, char **err)
{
    const char *key, *lv, *rv;
    bool found;
    if (n->lhs.is_var) {
        key = n->lhs.s;
        lv = env_get(env, key, &found);
        rv = n->rhs.s;
    } else {
        key = n->rhs.s;
        lv = n->lhs.s;
        rv = env_get(env, key, &found);
        if (!found) {
            if (err)
                *err = xasprintf("`%s` is not an environment marker variable", key);
            return -1;
        }
    }
    if (strcmp(key, "extra") == 0) {
        char *a = pypi_name_canonical(lv), *b = pypi_name_canonical(rv);
        int r = eval_op(a, n->op, b, err);
        free(a);
        free(b);
        return r;
    }
    return eval_op(lv, n->op, rv, err);
}

static int eval_node(const pypi_mnode *n, const pypi_env *env, char **err)
{
    if (!n->is_list)
        return eval_item(n, env, err);
    bool result = false, group = true;
    for (size_t i = 0; i < n->n; i++) {
        int v = eval_node(n->kids[i], env, err);
        if (v < 0)
            return -1;
        group = group && v;
        if (i + 1 == n->n || n->is_or[i]) {
            result = result || group;
            group = true;
        }
    }
    return result;
}

int pypi_marker_evaluate(const pypi_marker *m, const pypi_env *env, char **err)
{
    static const pypi_env empty;
    return eval_node(m->root, env ? env : &empty, err);
}

/* spec_rules_build.c — rule 5 of the reference's `spec_findings`: what each
 * build source needs. Owns reading the embedded texts a spec carries —
 * requirements.txt lines (parse_requirements_txt), an environment.yml's shape
 * (parsed with the module's own YAML reader), an image reference (docker's
 * grammar and the registry allowlist) and a Dockerfile's contract refusals —
 * and the bridge to the ecosystems' requirement grammars. It does not
 * resolve anything: a valid text here can still fail to resolve. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "npm_spec.h"
#include "condaspec.h"
#include "pep508.h"

#include "spec_envyml.h"
#include "spec_requirements.h"
#include "spec_toml.h"
#include "spec_uvlock.h"
#include "spec_rules_internal.h"


/* ---- the ecosystems' grammars ---- */

bool spec_check_pep508(const char *text, char **err)
{
    *err = NULL;
    int rc = pypi_requirement_check(text, err);
    if (rc == 0 && !*err)
        return true;
    if (!*err)
        *err = xstrdup("is not a PEP 508 requirement");
    return false;
}

bool spec_check_npm(const char *text, char **err)
{
    *err = NULL;
    int rc = npm_pkgspec_check(text, err);
    if (rc == 0 && !*err)
        return true;
    if (!*err)
        *err = xstrdup("is not an npm package spec");
    return false;
}

char *spec_npm_name(const char *text)
{
    npm_pkgspec ps;
    char *err = NULL;
    if (npm_pkgspec_parse(text, &ps, &err) != 0) {
        free(err);
        return NULL;
    }
    char *name = ps.name;
    ps.name = NULL;
    npm_pkgspec_release(&ps);
    return name;
}

char *spec_python_name(const char *text)
{
    char *err = NULL;
    pypi_requirement *req = pypi_requirement_parse(text, &err);
    free(err);
    char *name = NULL;
    if (req && !req->marker)
        name = xstrdup(req->canonical_name);
    pypi_requirement_free(req);
    return name;
}

/* ---- requirements.txt ---- */

/* Each problem at its position in the content and, through the content
 * node, in the spec file; the field is `content[i]` for a requirement's
 * line (i among requirement lines, as the reference counts them). */
static void req_finding(rules_ctx *r, const spec_node *at, long index, unsigned line,
                        unsigned column, el_code code, const char *message)
{
    const char *base = "spec.build.dependencyFile.content";
    char *field = index >= 0 ? xasprintf("%s[%ld]", base, index) : xstrdup(base);
    unsigned fl = 0, fc = 0;
    if (at)
        spec_reqfile_file_position(at->line, at->column, at->body_line, at->body_column, line,
                                   column, &fl, &fc);
    spec_finding_add_pos(r->fs, fl, fc, field, code, "line %u, column %u of the requirements: %s",
                         line, column, message);
    free(field);
}

static void check_requirements(rules_ctx *r, json_object *spec, const char *content)
{
    const spec_node *at = spec_node_at_path(r->root, "spec.build.dependencyFile.content");
    if (at && at->kind != SN_STR)
        at = NULL;
    arena *mem = arena_new();
    spec_reqfile *f = spec_reqfile_parse(mem, content);
    for (size_t i = 0; i < f->n_problems; i++) {
        const spec_req_problem *p = &f->problems[i];
        req_finding(r, at, p->index, p->line, p->column, p->code, p->message);
    }
    for (size_t i = 0; i < f->n_reqs; i++) {
        const spec_req *q = &f->reqs[i];
        char *m = rules_pin_excluded(r, q->text);
        if (m)
            req_finding(r, at, q->index, q->line, q->column, EL_PROTECTED_PACKAGE, m);
        free(m);
    }
    /* an index is the spec's policy, not a pasted file's */
    json_object *indexes = jget(jget(jget(spec, "packages"), "python"), "indexes");
    for (size_t i = 0; i < f->n_indexes; i++) {
        const spec_req_index *ix = &f->indexes[i];
        bool named = false;
        for (size_t k = 0; k < jlen(indexes) && !named; k++)
            named = jat(indexes, k) && spec_index_same(jat(indexes, k), ix->url);
        if (named)
            continue;
        char *m = xasprintf("`%s %s` names an index the spec does not: the indexes are the "
                            "spec's choice, so add it to `spec.packages.python.indexes` or "
                            "remove the line",
                            ix->extra ? "--extra-index-url" : "--index-url", ix->url);
        req_finding(r, at, -1, ix->line, ix->column, EL_SPEC_INVALID, m);
        free(m);
    }
    arena_free(mem);
}

/* ---- pyproject.toml + uv.lock ---- */

/* `text` read as TOML: a refusal is a finding at `field` with its line and
 * column inside the text and, through the text's node, in the spec file.
 * NULL then; else the root table (in `mem`). */
static void text_finding_at(rules_ctx *r, const char *field, const char *text_field,
                            const char *what, unsigned line, unsigned col, el_code code,
                            const char *message)
{
    const spec_node *at = spec_node_at_path(r->root, text_field);
    unsigned fl = 0, fc = 0;
    if (at && at->kind == SN_STR)
        spec_reqfile_file_position(at->line, at->column, at->body_line, at->body_column, line,
                                   col, &fl, &fc);
    spec_finding_add_pos(r->fs, fl, fc, field, code, "line %u, column %u of the %s: %s", line,
                         col, what, message);
}

static void text_finding(rules_ctx *r, const char *field, const char *what, unsigned line,
                         unsigned col, el_code code, const char *message)
{
    text_finding_at(r, field, field, what, line, col, code, message);
}

static toml_value *check_toml(rules_ctx *r, arena *mem, const char *field, const char *what,
                              const char *text)
{
    char *err = NULL;
    unsigned line = 0, col = 0;
    toml_value *root = toml_parse(mem, text, strlen(text), &err, &line, &col);
    if (!root)
        text_finding(r, field, what, line, col, EL_SPEC_INVALID, err);
    free(err);
    return root;
}

/* uv.lock's `version`: 1 is the format uv writes (its `revision` counts
 * compatible additions, so any revision of version 1 is read). */
static void check_uv_lock_version(rules_ctx *r, const toml_value *lock)
{
    const toml_value *v = toml_get(lock, "version");
    const char *field = "spec.build.dependencyFile.lockContent";
    if (!v)
        rules_add(r, field, EL_SPEC_INVALID,
                  "has no `version`: it is not a uv.lock (uv writes `version = 1`)");
    else if (v->kind != TOML_INTEGER || v->i != 1) {
        char *m = xasprintf("`version = %s`: envlock reads uv.lock version 1",
                            v->kind == TOML_INTEGER ? v->s : "(not an integer)");
        text_finding(r, field, "uv.lock", v->line, v->column, EL_CAPABILITY_UNSUPPORTED, m);
        free(m);
    }
}

/* What every target's resolve would refuse, seen without one: the edges
 * uv.lock takes everywhere (spec_uvlock.h, `env` NULL), their sources and
 * registries, and drift against pyproject.toml; each at its line. */
static void check_uv_selection(rules_ctx *r, arena *mem, json_object *spec, const char *content,
                               const char *lock)
{
    json_object *ix = jget(jget(jget(spec, "packages"), "python"), "indexes");
    const char **indexes = arena_alloc(mem, (jlen(ix) + 1) * sizeof *indexes);
    size_t n = 0;
    for (size_t k = 0; k < jlen(ix); k++)
        if (jat(ix, k))
            indexes[n++] = jat(ix, k);
    spec_uvlock *u = spec_uvlock_select(mem, content, lock, NULL, indexes, n);
    for (size_t i = 0; i < u->n_problems; i++) {
        const spec_uvproblem *p = &u->problems[i];
        const char *at = p->at ? p->at : p->field;
        if (!p->line) {
            rules_add(r, p->field, p->code, "%s", p->message);
            continue;
        }
        text_finding_at(r, p->field, at, strstr(at, "lockContent") ? "uv.lock" : "pyproject.toml",
                        p->line, p->column, p->code, p->message);
    }
}

static void check_pyproject(rules_ctx *r, json_object *spec, const char *content,
                            const char *lock)
{
    arena *mem = arena_new();
    size_t before = r->fs->len;
    toml_value *c = content && !is_blank(content)
                        ? check_toml(r, mem, "spec.build.dependencyFile.content",
                                     "pyproject.toml", content)
                        : NULL;
    toml_value *l = lock && !is_blank(lock) && strlen(lock) <= SPEC_MAX_TEXT_BYTES
                        ? check_toml(r, mem, "spec.build.dependencyFile.lockContent", "uv.lock",
                                     lock)
                        : NULL;
    if (l)
        check_uv_lock_version(r, l);
    if (l && c && r->fs->len == before)
        check_uv_selection(r, mem, spec, content, lock);
    arena_free(mem);
}

/* ---- environment.yml ---- */

/* A `pip:` section's shape: a list of strings (what the strings say is
 * check_pip_layer()'s). */
static void check_conda_pip(rules_ctx *r, const char *f, const spec_node *pip)
{
    if (pip->kind != SN_SEQ) {
        rules_add(r, f, EL_SPEC_INVALID, "`pip` should be a list of requirements");
        return;
    }
    for (size_t j = 0; j < pip->n; j++)
        if (pip->items[j]->kind != SN_STR) {
            char *pf = xasprintf("%s.pip[%zu]", f, j);
            rules_add(r, pf, EL_SPEC_INVALID, "should be a requirement string");
            free(pf);
        }
}

/* One finding at entry j of the pip list, `column` within the entry, placed
 * in the environment.yml and, through the content node, in the spec file. */
static void pip_finding(rules_ctx *r, const spec_envyml *e, size_t j, unsigned column,
                        el_code code, const char *message)
{
    const spec_node *at = spec_node_at_path(r->root, "spec.build.dependencyFile.content");
    const spec_envyml_dep *d = &e->pip[j];
    unsigned line = d->line, col = d->column + (column ? column - 1 : 0), fl = 0, fc = 0;
    if (at && at->kind == SN_STR)
        spec_reqfile_file_position(at->line, at->column, at->body_line, at->body_column, line,
                                   col, &fl, &fc);
    char *field = xasprintf("spec.build.dependencyFile.content.dependencies[%ld].pip[%zu]",
                            e->pip_index, j);
    spec_finding_add_pos(r->fs, fl, fc, field, code, "line %u, column %u of the "
                         "environment.yml: %s", line, col, message);
    free(field);
}

/* The pip layer's lines as a requirements file's (spec_envyml_pip_layer()):
 * PEP 508 requirements, the options a requirements file may carry, and
 * only indexes the spec already names. */
static void check_pip_layer(rules_ctx *r, json_object *spec, arena *mem, const char *content)
{
    const spec_envyml *e = spec_envyml_read(mem, content);
    const spec_reqfile *f = spec_envyml_pip_layer(mem, e);
    for (size_t i = 0; f && i < f->n_problems; i++) {
        const spec_req_problem *p = &f->problems[i];
        if (p->index >= 0 && (size_t)p->index < e->n_pip && e->pip[p->index].text)
            pip_finding(r, e, (size_t)p->index, p->column, p->code, p->message);
    }
    json_object *indexes = jget(jget(jget(spec, "packages"), "python"), "indexes");
    for (size_t i = 0; f && i < f->n_indexes; i++) {
        const spec_req_index *ix = &f->indexes[i];
        bool named = false;
        for (size_t k = 0; k < jlen(indexes) && !named; k++)
            named = jat(indexes, k) && spec_index_same(jat(indexes, k), ix->url);
        if (named || ix->line < 1 || ix->line > e->n_pip)
            continue;
        char *m = xasprintf("`%s %s` names an index the spec does not: the indexes are the "
                            "spec's choice, so add it to `spec.packages.python.indexes` or "
                            "remove the line",
                            ix->extra ? "--extra-index-url" : "--index-url", ix->url);
        pip_finding(r, e, ix->line - 1, ix->column, EL_SPEC_INVALID, m);
        free(m);
    }
}

/* A conda dependency: a match spec conda's MatchSpec reads (condaspec.h). */
static void check_conda_spec(rules_ctx *r, const char *f, const char *text)
{
    if (is_blank(text)) {
        rules_add(r, f, EL_SPEC_INVALID, "is empty");
        return;
    }
    conda_error err = {0, NULL};
    conda_matchspec *ms = conda_matchspec_parse(text, strlen(text), &err);
    if (!ms)
        rules_add(r, f, EL_SPEC_INVALID, "`%s` is not a conda match spec: column %zu: %s", text,
                  err.column, err.message ? err.message : "not readable");
    conda_matchspec_free(ms);
}

/* The `dependencies` list: conda match specs and at most one `pip:`. */
static void check_conda_deps(rules_ctx *r, const char *base, const spec_node *deps)
{
    bool pip_seen = false;
    for (size_t i = 0; i < deps->n; i++) {
        const spec_node *d = deps->items[i];
        char *f = xasprintf("%s.dependencies[%zu]", base, i);
        if (d->kind == SN_STR) {
            check_conda_spec(r, f, d->text);
        } else if (d->kind == SN_MAP && d->n == 1 && d->keys[0]->text &&
                   strcmp(d->keys[0]->text, "pip") == 0) {
            if (pip_seen)
                rules_add(r, f, EL_SPEC_INVALID,
                          "is a second `pip` section; list every pip requirement in one");
            else
                check_conda_pip(r, f, d->items[0]);
            pip_seen = true;
        } else if (d->kind == SN_MAP) {
            rules_add(r, f, EL_SPEC_INVALID, "is not a conda package or a `pip:` section");
        } else {
            rules_add(r, f, EL_SPEC_INVALID,
                      "should be a conda package spec (a string) or a `pip:` section");
        }
        free(f);
    }
}

static void check_conda(rules_ctx *r, json_object *spec, const char *content)
{
    static const char *const base = "spec.build.dependencyFile.content";
    arena *mem = arena_new();
    spec_findings inner;
    spec_findings_init(&inner, mem);
    spec_node *root = spec_yaml_parse(mem, content, strlen(content), &inner);
    if (!root) {
        for (size_t k = 0; k < inner.len; k++)
            rules_add(r, base, EL_SPEC_INVALID, "line %u of the environment.yml: %s",
                      inner.items[k].line, inner.items[k].message);
        goto out;
    }
    for (size_t k = 0; k < inner.len; k++) /* duplicate keys */
        rules_add(r, base, EL_SPEC_INVALID, "line %u of the environment.yml: `%s` %s",
                  inner.items[k].line, inner.items[k].field, inner.items[k].message);
    if (root->kind != SN_MAP) {
        rules_add(r, base, EL_SPEC_INVALID,
                  "is not an environment.yml: it should be a mapping with `dependencies`");
        goto out;
    }
    const spec_node *deps = spec_node_get(root, "dependencies");
    if (!deps)
        rules_add(r, "spec.build.dependencyFile.content.dependencies", EL_SPEC_INVALID,
                  "is required: the list of conda packages");
    else if (deps->kind != SN_SEQ)
        rules_add(r, "spec.build.dependencyFile.content.dependencies", EL_SPEC_INVALID,
                  "should be a list of conda packages");
    else
        check_conda_deps(r, base, deps);
    if (deps && deps->kind == SN_SEQ)
        check_pip_layer(r, spec, mem, content);
    const spec_node *channels = spec_node_get(root, "channels");
    if (channels && channels->kind != SN_SEQ) {
        rules_add(r, "spec.build.dependencyFile.content.channels", EL_SPEC_INVALID,
                  "should be a list of channel names or URLs");
    } else if (channels) {
        for (size_t i = 0; i < channels->n; i++) {
            const spec_node *c = channels->items[i];
            char *f = xasprintf("%s.channels[%zu]", base, i);
            if (c->kind != SN_STR)
                rules_add(r, f, EL_SPEC_INVALID, "should be a channel name or URL");
            else if (url_has_credential(c->text))
                rules_add_secret(r, f, CREDENTIAL_IN_URL);
            free(f);
        }
    }
out:
    spec_findings_release(&inner);
    arena_free(mem);
}

static void rule_dependency_file(rules_ctx *r, json_object *spec, json_object *build)
{
    if (jfailed(build, "dependencyFile"))
        return; /* it failed its type check; that finding says enough */
    json_object *df = jget(build, "dependencyFile");
    if (!df) {
        rules_add(r, "spec.build.dependencyFile", EL_SPEC_INVALID,
                  "is required when `spec.build.source` is `dependencyFile`");
        return;
    }
    /* NULL when it failed its type check: what depends on it is skipped */
    const char *format = jstr(df, "sourceFormat");
    const char *content = jstr(df, "content");
    const char *lock = jstr(df, "lockContent");
    if (!format)
        return;
    const char *what = strcmp(format, "pyproject") == 0 ? "pyproject.toml"
                       : strcmp(format, "conda") == 0   ? "environment.yml"
                                                        : "requirements.txt";
    if (content) {
        if (is_blank(content))
            rules_add(r, "spec.build.dependencyFile.content", EL_SPEC_INVALID,
                      "is empty; it is the %s text", what);
        else if (strlen(content) > SPEC_MAX_TEXT_BYTES)
            rules_add(r, "spec.build.dependencyFile.content", EL_SPEC_INVALID,
                      "is over " SPEC_STR(SPEC_MAX_TEXT_BYTES) " bytes");
        else if (strcmp(format, "requirements") == 0)
            check_requirements(r, spec, content);
        else if (strcmp(format, "conda") == 0)
            check_conda(r, spec, content);
    }
    if (strcmp(format, "pyproject") == 0)
        check_pyproject(r, spec,
                        content && strlen(content) <= SPEC_MAX_TEXT_BYTES ? content : NULL, lock);
    if (!lock)
        return;
    if (strcmp(format, "pyproject") == 0) {
        if (is_blank(lock))
            rules_add(r, "spec.build.dependencyFile.lockContent", EL_SPEC_INVALID,
                      "is empty; a pyproject source brings its own uv.lock");
        else if (strlen(lock) > SPEC_MAX_TEXT_BYTES)
            rules_add(r, "spec.build.dependencyFile.lockContent", EL_SPEC_INVALID,
                      "is over " SPEC_STR(SPEC_MAX_TEXT_BYTES) " bytes");
    } else if (!is_blank(lock)) {
        rules_add(r, "spec.build.dependencyFile.lockContent", EL_SPEC_INVALID,
                  "is only read for a `pyproject` source; a `requirements` or `conda` source "
                  "resolves fresh");
    }
}

/* ---- image references ---- */

static bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/* path-component := [a-z0-9]+ (separator [a-z0-9]+)*, separator := [_.] | __ | [-]+ */
static bool path_component_ok(const char *s, size_t n)
{
    size_t k = 0;
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    while (k < n) {
        if (lower_alnum(s[k])) {
            k++;
            continue;
        }
        size_t start = k;
        if (s[k] == '.') {
            k++;
        } else if (s[k] == '_') {
            k++;
            if (k < n && s[k] == '_')
                k++;
        } else if (s[k] == '-') {
            while (k < n && s[k] == '-')
                k++;
        } else {
            return false;
        }
        if (k == start || k >= n || !lower_alnum(s[k]))
            return false;
    }
    return true;
}

static bool host_ok(const char *s, size_t n)
{
    /* host[:port], host components of letters, digits and inner dashes */
    const char *colon = memchr(s, ':', n);
    size_t hn = colon ? (size_t)(colon - s) : n;
    if (hn == 0)
        return false;
    size_t k = 0;
    while (k < hn) {
        size_t start = k;
        while (k < hn && s[k] != '.')
            k++;
        size_t cl = k - start;
        if (cl == 0 || !isalnum((unsigned char)s[start]) || !isalnum((unsigned char)s[k - 1]))
            return false;
        for (size_t q = start; q < k; q++)
            if (!isalnum((unsigned char)s[q]) && s[q] != '-')
                return false;
        if (k < hn)
            k++;
        if (k == hn && s[hn - 1] == '.')
            return false;
    }
    if (colon) {
        if (colon + 1 == s + n)
            return false;
        for (const char *q = colon + 1; q < s + n; q++)
            if (!isdigit((unsigned char)*q))
                return false;
    }
    return true;
}

/* digest := algorithm ":" hex{32,} */
static bool digest_ok(const char *d)
{
    const char *colon = strchr(d, ':');
    bool ok = colon && colon > d && isalpha((unsigned char)d[0]);
    for (const char *q = d; ok && q < colon; q++)
        ok = isalnum((unsigned char)*q) || strchr("+.-_", *q);
    if (!ok)
        return false;
    size_t hex = 0;
    for (const char *q = colon + 1; *q; q++, hex++)
        if (!isxdigit((unsigned char)*q))
            return false;
    return hex >= 32;
}

/* tag := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127} */
static bool tag_ok(const char *tag)
{
    bool ok = *tag && (isalnum((unsigned char)*tag) || *tag == '_') && strlen(tag) <= 128;
    for (const char *q = tag; ok && *q; q++)
        ok = isalnum((unsigned char)*q) || strchr("_.-", *q);
    return ok;
}

/* The registry host `nt` starts with, or NULL for Docker Hub: a first
 * component with `.` or `:`, `localhost`, or uppercase is a host. *path:
 * the repository path after it. false with *err on a bad host. */
static bool registry_host(const char *ref, char *nt, char **registry, char **path, char **err)
{
    *path = nt;
    char *first_slash = strchr(nt, '/');
    if (!first_slash)
        return true;
    size_t fl = (size_t)(first_slash - nt);
    bool upper = false;
    for (size_t q = 0; q < fl; q++)
        if (isupper((unsigned char)nt[q]))
            upper = true;
    if (!(memchr(nt, '.', fl) || memchr(nt, ':', fl) ||
          (fl == 9 && strncmp(nt, "localhost", 9) == 0) || upper))
        return true;
    if (!host_ok(nt, fl)) {
        *err = xasprintf("`%s` is not an image reference: `%.*s` is not a registry host", ref,
                         (int)fl, nt);
        return false;
    }
    *registry = xstrndup(nt, fl);
    *path = first_slash + 1;
    return true;
}

/* Every `/`-separated component of the repository path. */
static bool repo_path_ok(const char *ref, const char *path, char **err)
{
    for (const char *c = path;;) {
        const char *e = strchr(c, '/');
        size_t cl = e ? (size_t)(e - c) : strlen(c);
        if (!path_component_ok(c, cl)) {
            *err = xasprintf("`%s` is not an image reference: `%.*s` is not a repository name "
                             "(lowercase letters, digits and separators)",
                             ref, (int)cl, c);
            return false;
        }
        if (!e)
            return true;
        c = e + 1;
    }
}

/* The checks of NAME[:TAG] (cut into `nt`), the registry out. */
static bool name_tag_ok(const char *ref, char *nt, char **registry, char **err)
{
    /* the tag follows the last `:` after the last `/` */
    char *slash = strrchr(nt, '/');
    char *tag = strrchr(slash ? slash : nt, ':');
    if (tag) {
        *tag++ = '\0';
        if (!tag_ok(tag)) {
            *err = xasprintf("`%s` is not an image reference: `%s` is not a tag (letters, "
                             "digits, `_`, `.`, `-`, at most 128)",
                             ref, tag);
            return false;
        }
    }
    if (!*nt) {
        *err = xasprintf("`%s` is not an image reference: it names no repository", ref);
        return false;
    }
    if (strlen(nt) > 255) {
        *err = xasprintf("`%s` is not an image reference: the name is over 255 characters", ref);
        return false;
    }
    char *path;
    return registry_host(ref, nt, registry, &path, err) && repo_path_ok(ref, path, err);
}

bool spec_image_ref_parse(const char *ref, char **registry, char **err)
{
    *registry = NULL;
    *err = NULL;
    const char *at = strchr(ref, '@');
    if (at && !digest_ok(at + 1)) {
        *err = xasprintf("`%s` is not an image reference: `%s` is not a digest such as "
                         "sha256:<64 hex digits>",
                         ref, at + 1);
        return false;
    }
    char *nt = xstrndup(ref, at ? (size_t)(at - ref) : strlen(ref));
    bool ok = name_tag_ok(ref, nt, registry, err);
    free(nt);
    if (!ok) {
        free(*registry);
        *registry = NULL;
        return false;
    }
    if (!*registry || strcmp(*registry, "index.docker.io") == 0 ||
        strcmp(*registry, "registry-1.docker.io") == 0) {
        free(*registry);
        *registry = xstrdup("docker.io");
    }
    return true;
}

static void rule_image(rules_ctx *r, json_object *build)
{
    static const char *const allowed[] = { "docker.io", "ghcr.io", "quay.io", "gcr.io",
                                           "registry.k8s.io", "public.ecr.aws", NULL };
    if (jfailed(build, "image"))
        return; /* it failed its type check */
    json_object *img = jget(build, "image");
    if (!img) {
        rules_add(r, "spec.build.image", EL_SPEC_INVALID,
                  "is required when `spec.build.source` is `image`");
        return;
    }
    const char *ref = jstr(img, "reference");
    if (!ref)
        return;
    if (is_blank(ref)) {
        rules_add(r, "spec.build.image.reference", EL_SPEC_INVALID,
                  "is empty; it names the image to import");
        return;
    }
    char *registry = NULL, *err = NULL;
    if (!spec_image_ref_parse(ref, &registry, &err)) {
        rules_add(r, "spec.build.image.reference", EL_SPEC_INVALID, "%s", err);
        free(err);
        return;
    }
    /* a credential id that failed its check may have been meant for it */
    bool ok = jfailed(img, "credentialSecretId");
    for (size_t k = 0; allowed[k]; k++)
        if (strcmp(registry, allowed[k]) == 0)
            ok = true;
    if (!ok && !jstr(img, "credentialSecretId"))
        rules_add(r, "spec.build.image.reference", EL_POLICY_DENIED,
                  "`%s` is not an allowed registry; allowed: docker.io, ghcr.io, quay.io, gcr.io, "
                  "registry.k8s.io, public.ecr.aws, or reference a credential for a private one",
                  registry);
    free(registry);
}

/* ---- Dockerfiles (contract.py's refusals) ---- */

typedef struct dline {
    unsigned line; /* 1-based line of the instruction's first line */
    char *msg;
} dline;

static void dl_add(ptrvec *out, unsigned line, char *msg)
{
    dline *d = xmalloc(sizeof *d);
    d->line = line;
    d->msg = msg;
    ptrvec_push(out, d);
}

/* Whether `s` (a repository path) is `repo`, or ends in "/" + `repo`. */
static bool names_repo(const char *s, const char *repo)
{
    if (!repo)
        return false;
    size_t n = strlen(s), rl = strlen(repo);
    return (n == rl && strcmp(s, repo) == 0) ||
           (n > rl && s[n - rl - 1] == '/' && strcmp(s + n - rl, repo) == 0);
}

/* Whether a FROM image names an approved base: its ref
 * (`datalayer/python-cpu`) or its repository
 * (`environments/base/python-cpu`), from any registry, with any tag or
 * digest. */
static bool approved_from(const rules_ctx *r, const char *image)
{
    char *s = xstrdup(image);
    char *at = strchr(s, '@');
    if (at)
        *at = '\0';
    char *slash = strrchr(s, '/');
    char *colon = strrchr(slash ? slash : s, ':');
    if (colon)
        *colon = '\0';
    bool ok = false;
    for (size_t k = 0; k < r->n_bases && !ok; k++)
        ok = names_repo(s, r->bases[k].ref) || names_repo(s, r->bases[k].repository);
    free(s);
    return ok;
}

static void check_instruction(const rules_ctx *r, ptrvec *out, ptrvec *stages, unsigned line,
                              char *text)
{
    char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    char *word = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    size_t wl = (size_t)(p - word);
    char kw[16] = { 0 };
    for (size_t k = 0; k < wl && k < sizeof kw - 1; k++)
        kw[k] = (char)toupper((unsigned char)word[k]);
    if (strcmp(kw, "VOLUME") == 0 || strcmp(kw, "ONBUILD") == 0 || strcmp(kw, "STOPSIGNAL") == 0)
        dl_add(out, line, xasprintf("line %u: `%s` is not allowed by the sandbox contract", line, kw));
    if (strstr(text, "docker.sock"))
        dl_add(out, line, xasprintf("line %u: `docker.sock` must not be reached from a build", line));
    if (strstr(text, "--privileged"))
        dl_add(out, line, xasprintf("line %u: `--privileged` is not allowed", line));
    /* tokens after the keyword */
    ptrvec toks = PTRVEC_INIT;
    for (char *save = NULL, *t = strtok_r(p, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save))
        ptrvec_push(&toks, t);
    if (strcmp(kw, "FROM") == 0) {
        size_t k = 0;
        for (; k < toks.len && strncmp(toks.items[k], "--", 2) == 0; k++) {
            const char *flag = toks.items[k];
            if (strncmp(flag, "--platform=", 11) == 0 && strcmp(flag + 11, "linux/amd64") != 0)
                dl_add(out, line, xasprintf("line %u: `%s` is not linux/amd64", line, flag));
        }
        const char *image = k < toks.len ? toks.items[k] : "";
        bool stage = false;
        for (size_t s = 0; s < stages->len; s++)
            if (strcasecmp(stages->items[s], image) == 0)
                stage = true;
        if (strchr(image, '$'))
            dl_add(out, line,
                   xasprintf("line %u: `FROM %s` takes its base from a build argument; name an "
                             "approved base",
                             line, image));
        else if (!stage && !approved_from(r, image)) {
            char *approved = spec_bases_list(r);
            dl_add(out, line,
                   xasprintf("line %u: `FROM %s` is not an approved base; approved: %s", line,
                             image, approved));
            free(approved);
        }
        if (k + 2 < toks.len && strcasecmp(toks.items[k + 1], "AS") == 0)
            ptrvec_push(stages, toks.items[k + 2]);
    } else if (strcmp(kw, "RUN") == 0) {
        for (size_t k = 0; k < toks.len && strncmp(toks.items[k], "--", 2) == 0; k++) {
            const char *flag = toks.items[k];
            if (strcmp(flag, "--security=insecure") == 0)
                dl_add(out, line, xasprintf("line %u: `RUN --security=insecure` is not allowed", line));
            else if (strcmp(flag, "--network=host") == 0)
                dl_add(out, line, xasprintf("line %u: `RUN --network=host` is not allowed", line));
            else if (strncmp(flag, "--mount=", 8) == 0 && strstr(flag, "type=bind") &&
                     !strstr(flag, "from=")) {
                const char *src = strstr(flag, "source=/");
                if (!src)
                    src = strstr(flag, "src=/");
                if (src)
                    dl_add(out, line,
                           xasprintf("line %u: `%s` binds a host path; only the build context "
                                     "and earlier stages may be mounted",
                                     line, flag));
            }
        }
    }
    ptrvec_release(&toks);
}

static int dline_cmp(const void *a, const void *b)
{
    const dline *x = *(const dline *const *)a, *y = *(const dline *const *)b;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void check_dockerfile(rules_ctx *r, const char *content)
{
    ptrvec out = PTRVEC_INIT, stages = PTRVEC_INIT, held = PTRVEC_INIT;
    strbuf ins = STRBUF_INIT;
    unsigned line = 0, start = 0;
    const char *p = content;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        line++;
        char *l = xstrndup(p, n);
        p += n + (eol ? 1 : 0);
        size_t len = strlen(l);
        if (len && l[len - 1] == '\r')
            l[--len] = '\0';
        const char *t = l;
        while (isspace((unsigned char)*t))
            t++;
        if (*t == '#' || (!*t && ins.len == 0)) {
            free(l);
            continue;
        }
        if (ins.len == 0)
            start = line;
        bool cont = len && l[len - 1] == '\\';
        if (cont)
            l[len - 1] = ' ';
        sb_adds(&ins, l);
        sb_addc(&ins, ' ');
        free(l);
        if (!cont) {
            char *text = sb_detach(&ins, NULL);
            check_instruction(r, &out, &stages, start, text);
            ptrvec_push(&held, text); /* stage names point into it */
        }
    }
    if (ins.len) {
        char *text = sb_detach(&ins, NULL);
        check_instruction(r, &out, &stages, start, text);
        ptrvec_push(&held, text);
    }
    if (out.len)
        qsort(out.items, out.len, sizeof *out.items, dline_cmp);
    for (size_t k = 0; k < out.len; k++) {
        dline *d = out.items[k];
        rules_add(r, "spec.build.dockerfile.content", EL_SPEC_INVALID, "%s", d->msg);
        free(d->msg);
        free(d);
    }
    for (size_t k = 0; k < held.len; k++)
        free(held.items[k]);
    ptrvec_release(&held);
    ptrvec_release(&out);
    ptrvec_release(&stages);
    sb_release(&ins);
}

static void rule_dockerfile(rules_ctx *r, json_object *build)
{
    if (jfailed(build, "dockerfile"))
        return; /* it failed its type check */
    json_object *df = jget(build, "dockerfile");
    if (!df) {
        rules_add(r, "spec.build.dockerfile", EL_SPEC_INVALID,
                  "is required when `spec.build.source` is `dockerfile`");
        return;
    }
    const char *content = jstr(df, "content");
    if (!content)
        return;
    if (is_blank(content))
        rules_add(r, "spec.build.dockerfile.content", EL_SPEC_INVALID,
                  "is empty; it is the Dockerfile text");
    else
        check_dockerfile(r, content);
}

void spec_rules_build(rules_ctx *r, json_object *spec)
{
    json_object *build = jget(spec, "build");
    const char *source = jstr(build, "source");
    if (!source)
        return;
    if (strcmp(source, "dependencyFile") == 0)
        rule_dependency_file(r, spec, build);
    else if (strcmp(source, "image") == 0)
        rule_image(r, build);
    else if (strcmp(source, "dockerfile") == 0)
        rule_dockerfile(r, build);
}

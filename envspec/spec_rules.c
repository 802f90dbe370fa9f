/* spec_rules.c — the rules beyond the types (the reference's
 * `spec_findings`), applied in its order to a normalized document whose
 * types are already right: names, contract, approved bases, build sources,
 * managers, requirements, index URLs, apt names, baked files, env, commands,
 * build secrets, resources, variants and regions; plus envlock's extensions
 * (packages.node, packages.system.sources). Every message and code here is
 * part of the user-visible contract; tests/spec/cases pins them. Finding
 * positions come from the positioned tree via spec_node_at_path(), so a
 * defaulted field is reported at its nearest written ancestor. The
 * source-specific checks of rule 5 (requirements text, environment.yml, image
 * references, Dockerfiles) live in spec_rules_build.c. */
#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "pep508.h"
#include "spec_protected.h"
#include "spec_rules_internal.h"

/* ---- the approved bases ---- */

/* The approved bases are the catalog's (corpus/bases/bases.yaml, or the
 * site's own); the caller hands its view in through el_spec_options, so the
 * spec module holds no copy of them. */

const el_spec_base *spec_base_find(const rules_ctx *r, const char *ref)
{
    for (size_t k = 0; k < r->n_bases; k++)
        if (strcmp(r->bases[k].ref, ref) == 0)
            return &r->bases[k];
    return NULL;
}

char *spec_bases_list(const rules_ctx *r)
{
    if (r->n_bases == 0)
        return xstrdup("none (no bases catalog was given)");
    strbuf sb = STRBUF_INIT;
    for (size_t k = 0; k < r->n_bases; k++)
        sb_addf(&sb, "%s%s", k ? ", " : "", r->bases[k].ref);
    return sb_detach(&sb, NULL);
}

/* ---- helpers ---- */

void rules_add(rules_ctx *r, const char *field, el_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    const spec_node *at = spec_node_at_path(r->root, field);
    spec_finding_add(r->fs, at, field, code, "%s", msg);
    free(msg);
}

void rules_add_secret(rules_ctx *r, const char *field, const char *message)
{
    rules_add(r, field, EL_SPEC_INVALID, "%s", message);
    r->fs->items[r->fs->len - 1].secret = true;
}

json_object *jget(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object))
        json_object_object_get_ex(o, key, &v);
    return v;
}

const char *jstr(json_object *o, const char *key)
{
    json_object *v = jget(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

size_t jlen(json_object *arr)
{
    return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

const char *jat(json_object *arr, size_t i)
{
    if (i >= jlen(arr))
        return NULL;
    json_object *v = json_object_array_get_idx(arr, i);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

bool jfailed(json_object *o, const char *key)
{
    return !o || !json_object_is_type(o, json_type_object) ||
           !json_object_object_get_ex(o, key, NULL);
}

bool jall_str(json_object *arr)
{
    if (!arr || !json_object_is_type(arr, json_type_array))
        return false;
    for (size_t i = 0; i < jlen(arr); i++)
        if (!jat(arr, i))
            return false;
    return true;
}

bool is_blank(const char *s)
{
    for (; s && *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static void join(strbuf *sb, const char *const *list)
{
    for (size_t k = 0; list[k]; k++) {
        if (k)
            sb_adds(sb, ", ");
        sb_adds(sb, list[k]);
    }
}

/* `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` */
bool is_dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return false;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && k > 0 && k + 1 < n))
            return false;
    }
    return true;
}

/* `^[a-z][a-z0-9+.-]*://[^/@\s]+:[^/@\s]*@`, case-insensitive: a URL whose
 * authority carries user:password. */
bool url_has_credential(const char *s)
{
    if (!isalpha((unsigned char)s[0]))
        return false;
    size_t k = 1;
    while (isalnum((unsigned char)s[k]) || s[k] == '+' || s[k] == '.' || s[k] == '-')
        k++;
    if (strncmp(s + k, "://", 3) != 0)
        return false;
    k += 3;
    size_t start = k;
    bool colon = false;
    while (s[k] && s[k] != '/' && s[k] != '@' && !isspace((unsigned char)s[k])) {
        if (s[k] == ':' && k > start)
            colon = true;
        k++;
    }
    return s[k] == '@' && colon;
}

bool has_control(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c < 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

/* Rule 8's check of one URL, shared by the Python indexes, the npm registry
 * and apt source URIs. Only one finding per URL; the credential comes first. */
void check_url(rules_ctx *r, const char *field, const char *url, bool allow_http)
{
    if (url_has_credential(url))
        rules_add_secret(r, field, CREDENTIAL_IN_URL);
    else if (strncmp(url, "https://", 8) != 0 && !(allow_http && strncmp(url, "http://", 7) == 0))
        rules_add(r, field, EL_SPEC_INVALID, "`%s` is not an https URL", url);
}

/* ---- rules 1-4 ---- */

static void rule_name(rules_ctx *r, json_object *doc)
{
    const char *name = jstr(jget(doc, "metadata"), "name");
    if (!name)
        return;
    if (!is_dns_label(name) || strlen(name) > 63)
        rules_add(r, "metadata.name", EL_SPEC_INVALID,
                  "`%s` is not a DNS-1123 label: lowercase letters, digits and `-`, at most 63 "
                  "characters",
                  name);
    static const char *const reserved[] = { "datalayer-", "dl-", "kube-", "system-", NULL };
    for (size_t k = 0; reserved[k]; k++)
        if (strncmp(name, reserved[k], strlen(reserved[k])) == 0)
            rules_add(r, "metadata.name", EL_SPEC_INVALID, "the `%s` prefix is reserved",
                      reserved[k]);
}

static void rule_contract(rules_ctx *r, json_object *spec)
{
    const char *c = jstr(spec, "contract");
    if (c && strcmp(c, "sandbox-contract/v1") != 0)
        rules_add(r, "spec.contract", EL_CAPABILITY_UNSUPPORTED,
                  "`%s` is not a supported contract; supported: sandbox-contract/v1", c);
}

/* The channel must be one the catalog has for the base: resolve would
 * refuse it with the same message (base/base_target.c), so validate says it
 * first, at the line. */
static void rule_channel(rules_ctx *r, json_object *spec, const el_spec_base *b)
{
    const char *channel = jstr(jget(spec, "base"), "channel");
    if (!channel || b->n_channels == 0 || !(r->flags & SPEC_RULES_RESOLVE))
        return;
    strbuf names = STRBUF_INIT;
    for (size_t k = 0; k < b->n_channels && !r->channel; k++) {
        if (strcmp(b->channels[k].name, channel) == 0)
            r->channel = &b->channels[k];
        sb_addf(&names, "%s%s", k ? ", " : "", b->channels[k].name);
    }
    if (!r->channel)
        rules_add(r, "spec.base.channel", EL_SPEC_INVALID, "`%s` has no channel `%s`; channels: %s",
                  b->ref, channel, names.buf);
    else if (r->channel->protected_pins)
        r->pins = spec_pins_read(r->channel->protected_pins, &r->n_pins);
    sb_release(&names);
}

static void rule_base(rules_ctx *r, json_object *spec)
{
    json_object *build = jget(spec, "build");
    if (jfailed(spec, "build") || jfailed(build, "source"))
        return; /* whether the rule applies depends on the source, unknown here */
    const char *source = jstr(build, "source");
    if (source && (strcmp(source, "image") == 0 || strcmp(source, "dockerfile") == 0))
        return;
    const char *ref = jstr(jget(spec, "base"), "ref");
    const char *version = jstr(jget(spec, "language"), "version");
    if (!ref)
        return;
    const el_spec_base *b = spec_base_find(r, ref);
    if (!b && r->n_bases == 0) {
        rules_add(r, "spec.base.ref", EL_SPEC_INVALID,
                  "`%s` cannot be checked: no approved bases were given (no bases catalog)", ref);
        return;
    }
    if (!b) {
        char *approved = spec_bases_list(r);
        rules_add(r, "spec.base.ref", EL_SPEC_INVALID, "`%s` is not an approved base; approved: %s",
                  ref, approved);
        free(approved);
        return;
    }
    r->base = b;
    if (version && b->python && strcmp(version, b->python) != 0)
        rules_add(r, "spec.language.version", EL_SPEC_INVALID,
                  "Python %s is not what `%s` provides (%s); it is validated against the base, "
                  "not replaced",
                  version, ref, b->python);
    rule_channel(r, spec, b);
}

static const char *const buildable[] = { "packages", "dependencyFile", "image", "dockerfile",
                                          NULL };

static void rule_source(rules_ctx *r, json_object *spec)
{
    const char *source = jstr(jget(spec, "build"), "source");
    if (source && !in_list(source, buildable)) {
        strbuf sb = STRBUF_INIT;
        join(&sb, buildable);
        rules_add(r, "spec.build.source", EL_CAPABILITY_UNSUPPORTED,
                  "`%s` is not buildable yet; supported: %s", source, sb.buf);
        sb_release(&sb);
    }
}

static bool is_apt_entry(const char *s);

/* A list naming one package twice: the later entry is refused with both
 * entries' lines. `name_of` gives an entry's name in the ecosystem's
 * normal form (malloc'd), or NULL for an entry that cannot clash (invalid,
 * or one python entry selected by a marker: `x; sys_platform == "linux"`
 * beside `x; sys_platform == "win32"` is how one name is asked per
 * platform). The message ends with `why_pre`, the name, `why_post`. */
static void rule_twice(rules_ctx *r, json_object *arr, const char *list,
                       char *(*name_of)(const char *), const char *why_pre,
                       const char *why_post)
{
    size_t n = jlen(arr);
    char **names = xcalloc(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        const char *text = jat(arr, i);
        names[i] = text ? name_of(text) : NULL;
        for (size_t k = 0; names[i] && k < i; k++) {
            if (!names[k] || strcmp(names[k], names[i]) != 0)
                continue;
            char *first = xasprintf("%s[%zu]", list, k);
            char *field = xasprintf("%s[%zu]", list, i);
            const spec_node *a = spec_node_at_path(r->root, first);
            const spec_node *b = spec_node_at_path(r->root, field);
            rules_add(r, field, EL_SPEC_INVALID,
                      "`%s` (line %u:%u) names `%s` again after `%s` (line %u:%u): %s`%s`%s",
                      text,
                      b ? b->line : 0, b ? b->column : 0, names[i], jat(arr, k),
                      a ? a->line : 0, a ? a->column : 0, why_pre, names[i], why_post);
            free(first);
            free(field);
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The apt name of `name[=version]` (names are lower case by is_apt_entry). */
static char *apt_name(const char *text)
{
    if (!is_apt_entry(text))
        return NULL;
    return xstrndup(text, strcspn(text, "="));
}

/* ---- rules 6-9 and the package extensions ---- */

static void rule_manager(rules_ctx *r, json_object *python)
{
    const char *m = jstr(python, "manager");
    if (m && strcmp(m, "uv") != 0 && strcmp(m, "pip") != 0)
        rules_add(r, "spec.packages.python.manager", EL_CAPABILITY_UNSUPPORTED,
                  "`%s` is not supported yet; supported: uv, pip", m);
}

/* A requirement the base's contract pins elsewhere: resolve refuses it
 * (base/base_request.c), validate says so first, with the same judgement
 * and message (spec_protected.h). */
char *rules_pin_excluded(const rules_ctx *r, const char *text)
{
    if (!r->pins)
        return NULL;
    arena *mem = arena_new();
    const char *line = arena_trimmed(mem, text); /* as resolve quotes it */
    pypi_requirement *req = pypi_requirement_parse(line, NULL);
    const spec_pin *p = req ? spec_pin_find(r->pins, r->n_pins, req->canonical_name) : NULL;
    char *msg = p && !spec_pin_permits(p, req)
                    ? xasprintf(SPEC_PIN_EXCLUDED, req->name, p->supported, line)
                    : NULL;
    pypi_requirement_free(req);
    arena_free(mem);
    return msg;
}

static void rule_requirements(rules_ctx *r, json_object *python)
{
    static const char *const groups[] = { "dependencies", "constraints", NULL };
    for (size_t g = 0; groups[g]; g++) {
        json_object *arr = jget(python, groups[g]);
        for (size_t i = 0; i < jlen(arr); i++) {
            const char *text = jat(arr, i);
            char *err = NULL, *msg = NULL;
            char *field = xasprintf("spec.packages.python.%s[%zu]", groups[g], i);
            if (text && !spec_check_pep508(text, &err))
                rules_add(r, field, EL_SPEC_INVALID, "`%s`: %s", text, err);
            else if (text && (msg = rules_pin_excluded(r, text)))
                rules_add(r, field, EL_PROTECTED_PACKAGE, "%s", msg);
            free(msg);
            msg = NULL;
            free(field);
            free(err);
        }
    }
    /* a second entry would silently intersect with the first */
    rule_twice(r, jget(python, "dependencies"), "spec.packages.python.dependencies",
               spec_python_name, "list ", " once with one specifier");
}

static void rule_indexes(rules_ctx *r, json_object *python)
{
    json_object *arr = jget(python, "indexes");
    for (size_t i = 0; i < jlen(arr); i++) {
        const char *url = jat(arr, i);
        if (!url)
            continue;
        char *field = xasprintf("spec.packages.python.indexes[%zu]", i);
        check_url(r, field, url, r->flags & SPEC_RULES_DATAGEN);
        free(field);
    }
}

/* `^[a-z0-9][a-z0-9+.-]+(=[A-Za-z0-9.+~:-]+)?$` */
static bool is_apt_entry(const char *s)
{
    size_t k = 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
        return false;
    k = 1;
    size_t start = k;
    while ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '+' ||
           s[k] == '.' || s[k] == '-')
        k++;
    if (k == start)
        return false;
    if (s[k] == '\0')
        return true;
    if (s[k] != '=')
        return false;
    k++;
    start = k;
    while (isalnum((unsigned char)s[k]) || (s[k] && strchr(".+~:-", s[k])))
        k++;
    return k > start && s[k] == '\0';
}

/* An apt sources.list one-line entry: `deb [options] URI suite [components...]`. */
static void check_source_line(rules_ctx *r, const char *field, const char *line)
{
    char *copy = xstrdup(line);
    char *tok[64];
    size_t n = 0;
    bool bad = false;
    char *p = copy;
    while (*p && n < 64) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *start = p;
        if (*p == '[') {
            char *close = strchr(p, ']');
            if (!close) {
                bad = true;
                break;
            }
            p = close + 1;
        } else {
            while (*p && !isspace((unsigned char)*p))
                p++;
        }
        if (*p)
            *p++ = '\0';
        tok[n++] = start;
    }
    size_t k = 0;
    if (!bad && n > 0 && (strcmp(tok[0], "deb") == 0 || strcmp(tok[0], "deb-src") == 0))
        k = 1;
    else
        bad = true;
    if (!bad && k < n && tok[k][0] == '[')
        k++;
    if (!bad && n < k + 2)
        bad = true;
    if (bad) {
        rules_add(r, field, EL_SPEC_INVALID,
                  "`%s` is not an apt source line: `deb [options] URI suite [components...]`",
                  line);
    } else {
        const char *uri = tok[k];
        if (url_has_credential(uri))
            rules_add_secret(r, field, CREDENTIAL_IN_URL);
        else if (strncmp(uri, "https://", 8) != 0 && strncmp(uri, "http://", 7) != 0 &&
                 strncmp(uri, "file:", 5) != 0)
            rules_add(r, field, EL_SPEC_INVALID, "`%s` is not an https, http or file URI", uri);
    }
    free(copy);
}

static void rule_apt(rules_ctx *r, json_object *system)
{
    json_object *arr = jget(system, "apt");
    for (size_t i = 0; i < jlen(arr); i++) {
        const char *p = jat(arr, i);
        if (p && !is_apt_entry(p)) {
            char *field = xasprintf("spec.packages.system.apt[%zu]", i);
            rules_add(r, field, EL_SPEC_INVALID,
                      "`%s` is not an apt package name, optionally `=version`", p);
            free(field);
        }
    }
    /* dpkg installs one version of a name per architecture */
    rule_twice(r, arr, "spec.packages.system.apt", apt_name,
               "dpkg installs one ", ", so list it once");
    json_object *sources = jget(system, "sources");
    for (size_t i = 0; i < jlen(sources); i++) {
        const char *line = jat(sources, i);
        if (!line)
            continue;
        char *field = xasprintf("spec.packages.system.sources[%zu]", i);
        check_source_line(r, field, line);
        free(field);
    }
}

static void rule_node(rules_ctx *r, json_object *node)
{
    if (!node)
        return;
    json_object *deps = jget(node, "dependencies");
    for (size_t i = 0; i < jlen(deps); i++) {
        const char *text = jat(deps, i);
        char *err = NULL;
        if (text && !spec_check_npm(text, &err)) {
            char *field = xasprintf("spec.packages.node.dependencies[%zu]", i);
            /* npm's messages quote the entry themselves, mostly */
            char *quoted = xasprintf("`%s`", text);
            if (strncmp(err, quoted, strlen(quoted)) == 0)
                rules_add(r, field, EL_SPEC_INVALID, "%s", err);
            else
                rules_add(r, field, EL_SPEC_INVALID, "%s: %s", quoted, err);
            free(quoted);
            free(field);
        }
        free(err);
    }
    /* one node_modules directory holds one copy of a name */
    rule_twice(r, deps, "spec.packages.node.dependencies", spec_npm_name,
               "node_modules holds one ", ", so list it once with one range");
    const char *registry = jstr(node, "registry");
    if (registry)
        check_url(r, "spec.packages.node.registry", registry, r->flags & SPEC_RULES_DATAGEN);
}

/* ---- rule 10: files ---- */

/* posixpath.normpath(), for the absolute-path check. */
static char *normpath(const char *path)
{
    if (!*path)
        return xstrdup(".");
    int initial = path[0] == '/' ? 1 : 0;
    if (initial && path[1] == '/' && path[2] != '/')
        initial = 2; /* POSIX leaves exactly two leading slashes alone */
    ptrvec parts = PTRVEC_INIT;
    char *copy = xstrdup(path);
    for (char *save = NULL, *tok = strtok_r(copy, "/", &save); tok;
         tok = strtok_r(NULL, "/", &save)) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") != 0 || (!initial && parts.len == 0) ||
            (parts.len && strcmp(parts.items[parts.len - 1], "..") == 0))
            ptrvec_push(&parts, tok);
        else if (parts.len)
            parts.len--;
    }
    strbuf sb = STRBUF_INIT;
    for (int k = 0; k < initial; k++)
        sb_addc(&sb, '/');
    for (size_t k = 0; k < parts.len; k++) {
        if (k)
            sb_addc(&sb, '/');
        sb_adds(&sb, parts.items[k]);
    }
    if (sb.len == 0)
        sb_addc(&sb, '.');
    ptrvec_release(&parts);
    free(copy);
    return sb_detach(&sb, NULL);
}

static bool has_dotdot(const char *p)
{
    for (const char *s = p; (s = strstr(s, "..")) != NULL; s += 2)
        if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
            return true;
    return false;
}

static void rule_files(rules_ctx *r, json_object *spec)
{
    json_object *files = jget(spec, "files");
    size_t n = jlen(files);
    if (n > SPEC_MAX_FILES)
        rules_add(r, "spec.files", EL_SPEC_INVALID,
                  "at most " SPEC_STR(SPEC_MAX_FILES) " files are baked in");
    ptrvec seen = PTRVEC_INIT;
    long long total = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(files, i);
        if (!f || !json_object_is_type(f, json_type_object))
            continue; /* the entry failed its type check */
        const char *path = jstr(f, "path");
        const char *ref = jstr(f, "contentRef");
        char *field;
        if (path) {
            field = xasprintf("spec.files[%zu].path", i);
            char *stripped = xstrdup(path);
            size_t sl = strlen(stripped);
            while (sl > 0 && stripped[sl - 1] == '/')
                stripped[--sl] = '\0';
            char *norm = normpath(stripped);
            if (path[0] != '/' || strcmp(norm, stripped) != 0 || has_dotdot(path))
                rules_add(r, field, EL_SPEC_INVALID, "`%s` is not an absolute, normalized path",
                          path);
            else if (strcmp(norm, "/opt/datalayer") == 0 ||
                     strncmp(norm, "/opt/datalayer/", 15) == 0)
                rules_add(r, field, EL_SPEC_INVALID, "`/opt/datalayer` is reserved for Datalayer");
            bool dup = false;
            for (size_t k = 0; k < seen.len; k++)
                if (strcmp(seen.items[k], norm) == 0)
                    dup = true;
            if (dup) {
                rules_add(r, field, EL_SPEC_INVALID, "`%s` is listed twice", path);
                free(norm);
            } else {
                ptrvec_push(&seen, norm);
            }
            free(stripped);
            free(field);
        }

        const char *sep = ref ? strstr(ref, "://") : NULL;
        size_t slen = sep ? (size_t)(sep - ref) : 0;
        if (ref && !(slen == 4 && strncmp(ref, "blob", 4) == 0) &&
            !(slen == 5 && strncmp(ref, "https", 5) == 0) &&
            !(slen == 2 && strncmp(ref, "s3", 2) == 0)) {
            field = xasprintf("spec.files[%zu].contentRef", i);
            rules_add(r, field, EL_SPEC_INVALID,
                      "must be a `blob://`, `https://`, `s3://` reference");
            free(field);
        }
        json_object *size = jget(f, "sizeBytes");
        if (size && json_object_is_type(size, json_type_int)) {
            long long v = (long long)json_object_get_int64(size);
            if (v > SPEC_MAX_FILE_BYTES) {
                field = xasprintf("spec.files[%zu].sizeBytes", i);
                rules_add(r, field, EL_SPEC_INVALID,
                          "a baked file is at most " SPEC_STR(SPEC_MAX_FILE_BYTES) " bytes");
                free(field);
            }
            /* saturate: only "over 8 MiB" matters, and huge sizes must not
             * overflow the sum */
            if (total <= SPEC_MAX_FILES_BYTES)
                total += v > SPEC_MAX_FILES_BYTES ? SPEC_MAX_FILES_BYTES + 1 : v;
        }
    }
    if (total > SPEC_MAX_FILES_BYTES)
        rules_add(r, "spec.files", EL_SPEC_INVALID,
                  "baked files total at most " SPEC_STR(SPEC_MAX_FILES_BYTES) " bytes");
    for (size_t k = 0; k < seen.len; k++)
        free(seen.items[k]);
    ptrvec_release(&seen);
}

/* ---- rule 11: env ---- */

static bool is_env_name(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* `(^|_)(token|secret|...)($|_)`, case-insensitive search */
static bool key_is_secretish(const char *key)
{
    static const char *const words[] = {
        "token",     "secret",     "password",   "passwd",      "pwd",        "apikey",
        "api_key",   "accesskey",  "access_key", "privatekey",  "private_key", "credential",
        "credentials", NULL
    };
    for (size_t p = 0; key[p]; p++) {
        if (p > 0 && key[p - 1] != '_')
            continue;
        for (size_t w = 0; words[w]; w++) {
            size_t n = strlen(words[w]);
            if (strncasecmp(key + p, words[w], n) == 0 && (key[p + n] == '\0' || key[p + n] == '_'))
                return true;
        }
    }
    return false;
}

static const char *const secret_value_patterns[] = {
    "AKIA[0-9A-Z]{16}",
    "ASIA[0-9A-Z]{16}",
    "gh[pousr]_[A-Za-z0-9]{36,}",
    "github_pat_[A-Za-z0-9_]{22,}",
    "sk-[A-Za-z0-9_-]{20,}",
    "xox[abpr]-[A-Za-z0-9-]{10,}",
    "-----BEGIN [A-Z ]*PRIVATE KEY-----",
    "eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]+",
    "dlsec_[0-9A-Za-z]+",
    NULL
};

bool value_is_secretish(const char *value)
{
    bool hit = false;
    for (size_t k = 0; secret_value_patterns[k] && !hit; k++) {
        regex_t re;
        if (regcomp(&re, secret_value_patterns[k], REG_EXTENDED | REG_NOSUB) != 0)
            abort(); /* the patterns are constants */
        hit = regexec(&re, value, 0, NULL, 0) == 0;
        regfree(&re);
    }
    return hit || url_has_credential(value);
}

bool spec_text_is_secretish(const char *s)
{
    if (value_is_secretish(s))
        return true;
    for (const char *p = s; *p; p++)
        if ((p == s || !isalnum((unsigned char)p[-1])) && url_has_credential(p))
            return true;
    return false;
}

static void rule_env(rules_ctx *r, json_object *spec)
{
    json_object *env = jget(spec, "env");
    if (!env || !json_object_is_type(env, json_type_object))
        return;
    json_object_object_foreach(env, key, val)
    {
        if (!val || !json_object_is_type(val, json_type_string))
            continue; /* never so in a model-built document */
        char *field = xasprintf("spec.env.%s", key);
        const char *v = json_object_get_string(val);
        size_t vlen = (size_t)json_object_get_string_len(val);
        if (!is_env_name(key))
            rules_add(r, field, EL_SPEC_INVALID, "`%s` is not an environment variable name", key);
        if (has_control(v, vlen))
            rules_add(r, field, EL_SPEC_INVALID,
                      "carries a control character, which a Dockerfile line cannot");
        if (key_is_secretish(key) || value_is_secretish(v))
            rules_add_secret(r, field,
                             "looks like a credential; `env` is not secret, so reference it in "
                             "`buildSecrets`");
        free(field);
    }
}

/* ---- rules 12-13 ---- */

static void rule_post_install(rules_ctx *r, json_object *spec)
{
    json_object *cmds = jget(jget(spec, "commands"), "postInstall");
    size_t n = jlen(cmds);
    if (n > SPEC_MAX_COMMANDS)
        rules_add(r, "spec.commands.postInstall", EL_SPEC_INVALID,
                  "at most " SPEC_STR(SPEC_MAX_COMMANDS) " commands");
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(cmds, i);
        if (!c || !json_object_is_type(c, json_type_string))
            continue; /* the command failed its type check */
        const char *text = json_object_get_string(c);
        char *field = xasprintf("spec.commands.postInstall[%zu]", i);
        if (is_blank(text))
            rules_add(r, field, EL_SPEC_INVALID, "is empty");
        else if (has_control(text, (size_t)json_object_get_string_len(c)))
            rules_add(r, field, EL_SPEC_INVALID,
                      "carries a control character, which a Dockerfile line cannot");
        free(field);
    }
}

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* `name` appears in `cmd` not preceded or followed by [A-Za-z0-9_.-]. */
static bool names_word(const char *cmd, const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return false;
    for (const char *s = cmd; (s = strstr(s, name)) != NULL; s++)
        if ((s == cmd || !name_char(s[-1])) && !name_char(s[n]))
            return true;
    return false;
}

static void rule_secrets(rules_ctx *r, json_object *spec)
{
    json_object *secrets = jget(spec, "buildSecrets");
    size_t n = jlen(secrets);
    bool dup_id = false, dup_name = false;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            json_object *a = json_object_array_get_idx(secrets, i);
            json_object *b = json_object_array_get_idx(secrets, j);
            const char *ia = jstr(a, "id"), *ib = jstr(b, "id");
            const char *na = jstr(a, "name"), *nb = jstr(b, "name");
            if (ia && ib && strcmp(ia, ib) == 0)
                dup_id = true;
            if (na && nb && strcmp(na, nb) == 0)
                dup_name = true;
        }
    if (dup_id)
        rules_add(r, "spec.buildSecrets", EL_SPEC_INVALID, "a secret id is listed twice");
    if (dup_name)
        rules_add(r, "spec.buildSecrets", EL_SPEC_INVALID, "a secret name is listed twice");
    /* Which secrets the commands name is known only if every command is. */
    json_object *commands = jget(spec, "commands");
    json_object *cmds = jget(commands, "postInstall");
    if (jfailed(spec, "commands") || jfailed(commands, "postInstall") || !jall_str(cmds))
        return;
    for (size_t i = 0; i < n; i++) {
        const char *name = jstr(json_object_array_get_idx(secrets, i), "name");
        if (!name)
            continue;
        bool named = false;
        for (size_t c = 0; c < jlen(cmds) && !named; c++)
            named = jat(cmds, c) && names_word(jat(cmds, c), name);
        if (!named) {
            char *field = xasprintf("spec.buildSecrets[%zu]", i);
            rules_add(r, field, EL_SPEC_INVALID,
                      "`%s` is named by no `postInstall` command, and a secret is mounted only on "
                      "the commands that name it",
                      name);
            free(field);
        }
    }
}

/* ---- rule 14: resources ---- */

/* `want` matches `have` on its dotted parts: "12" matches "12.8". */
static bool cuda_matches(const char *want, const char *have)
{
    size_t n = strlen(want);
    return strncmp(want, have, n) == 0 && (have[n] == '\0' || have[n] == '.');
}

static void rule_resources(rules_ctx *r, json_object *spec)
{
    static const char *const classes[] = { "small", "medium", "large", "gpu-small", "gpu-large",
                                            NULL };
    json_object *res = jget(spec, "resources");
    const char *cls = jstr(res, "sizeClass"); /* NULL: it failed its type check */
    json_object *accel = jget(res, "accelerator");
    bool accel_known = !jfailed(res, "accelerator");
    bool has_accel = accel && json_object_is_type(accel, json_type_object);
    bool gpu = cls && (strcmp(cls, "gpu-small") == 0 || strcmp(cls, "gpu-large") == 0);
    if (cls && !in_list(cls, classes))
        rules_add(r, "spec.resources.sizeClass", EL_SPEC_INVALID,
                  "`%s` is not a size class; the classes are small, medium, large, gpu-small, "
                  "gpu-large",
                  cls);
    if (gpu && accel_known && !has_accel)
        rules_add(r, "spec.resources.accelerator", EL_SPEC_INVALID, "`%s` needs an accelerator",
                  cls);
    if (has_accel && cls && !gpu)
        rules_add(r, "spec.resources.sizeClass", EL_SPEC_INVALID,
                  "an accelerator needs a GPU size class: gpu-small, gpu-large");
    if (gpu && r->base && !r->base->cuda)
        rules_add(r, "spec.base.ref", EL_SPEC_INVALID,
                  "`%s` has no CUDA; a GPU size class needs a CUDA base", r->base->ref);
    const char *cuda = has_accel ? jstr(accel, "cuda") : NULL;
    const char *have = r->base ? r->base->cuda_version : NULL;
    if (cuda && r->base && r->base->cuda && have && !cuda_matches(cuda, have))
        rules_add(r, "spec.resources.accelerator.cuda", EL_SPEC_INVALID,
                  "CUDA `%s` is not what `%s` provides (%s)", cuda, r->base->ref, have);
    else if (cuda && r->base && !r->base->cuda && cls && !gpu)
        rules_add(r, "spec.resources.accelerator.cuda", EL_SPEC_INVALID,
                  "CUDA `%s` is not what `%s` provides (it has no CUDA)", cuda, r->base->ref);
}

/* ---- rules 15-16 ---- */

static void rule_variants(rules_ctx *r, json_object *spec)
{
    static const char *const variants[] = { "datalayer", "e2b", "daytona", "modal", NULL };
    json_object *v = jget(jget(spec, "compatibility"), "variants");
    json_object *req = jget(v, "required"), *opt = jget(v, "optional");
    if (!jfailed(v, "required") && jlen(req) == 0)
        rules_add(r, "spec.compatibility.variants.required", EL_SPEC_INVALID,
                  "at least one variant is required");
    static const char *const groups[] = { "required", "optional", NULL };
    for (size_t g = 0; groups[g]; g++) {
        json_object *arr = jget(v, groups[g]);
        char *field = xasprintf("spec.compatibility.variants.%s", groups[g]);
        bool dup = false;
        for (size_t i = 0; i < jlen(arr); i++) {
            const char *x = jat(arr, i);
            if (!x)
                continue;
            if (!in_list(x, variants))
                rules_add(r, field, EL_SPEC_INVALID,
                          "`%s` is not a variant; the variants are datalayer, e2b, daytona, modal",
                          x);
            for (size_t j = 0; j < i; j++)
                if (jat(arr, j) && strcmp(jat(arr, j), x) == 0)
                    dup = true;
        }
        if (dup)
            rules_add(r, field, EL_SPEC_INVALID, "a variant is listed twice");
        free(field);
    }
    ptrvec both = PTRVEC_INIT;
    for (size_t i = 0; i < jlen(req); i++)
        for (size_t j = 0; j < jlen(opt); j++)
            if (jat(req, i) && jat(opt, j) && strcmp(jat(req, i), jat(opt, j)) == 0) {
                bool seen = false;
                for (size_t k = 0; k < both.len; k++)
                    if (strcmp(both.items[k], jat(req, i)) == 0)
                        seen = true;
                if (!seen)
                    ptrvec_push(&both, (void *)jat(req, i));
            }
    if (both.len) {
        /* sorted, as the reference's sorted(set) */
        for (size_t a = 1; a < both.len; a++)
            for (size_t b = a; b > 0 && strcmp(both.items[b - 1], both.items[b]) > 0; b--) {
                void *t = both.items[b];
                both.items[b] = both.items[b - 1];
                both.items[b - 1] = t;
            }
        strbuf sb = STRBUF_INIT;
        for (size_t k = 0; k < both.len; k++)
            sb_addf(&sb, "%s%s", k ? ", " : "", (const char *)both.items[k]);
        rules_add(r, "spec.compatibility.variants", EL_SPEC_INVALID,
                  "a variant is either required or optional, not both: %s", sb.buf);
        sb_release(&sb);
    }
    ptrvec_release(&both);
}

static void rule_regions(rules_ctx *r, json_object *spec)
{
    json_object *regions = jget(jget(spec, "compatibility"), "regions");
    for (size_t i = 0; i < jlen(regions); i++) {
        const char *x = jat(regions, i);
        if (x && !is_dns_label(x)) {
            char *field = xasprintf("spec.compatibility.regions[%zu]", i);
            rules_add(r, field, EL_SPEC_INVALID, "`%s` is not a region name", x);
            free(field);
        }
    }
}

void spec_rules_check(const json_object *cdoc, const spec_node *root, unsigned flags,
                      const el_spec_base *bases, size_t n_bases, spec_findings *fs)
{
    json_object *doc = (json_object *)cdoc; /* json-c getters take non-const */
    rules_ctx r = { .root = root, .fs = fs, .flags = flags, .bases = bases,
                    .n_bases = bases ? n_bases : 0 };
    json_object *spec = jget(doc, "spec");
    json_object *packages = jget(spec, "packages");
    json_object *python = jget(packages, "python");

    rule_name(&r, doc);                                        /* 1 */
    rule_contract(&r, spec);                                   /* 2 */
    rule_base(&r, spec);                                       /* 3 */
    rule_source(&r, spec);                                     /* 4 */
    spec_rules_build(&r, spec);                                /* 5 */
    rule_manager(&r, python);                                  /* 6 */
    rule_requirements(&r, python);                             /* 7 */
    rule_indexes(&r, python);                                  /* 8 */
    rule_apt(&r, jget(packages, "system"));                    /* 9 (+ sources) */
    rule_node(&r, jget(packages, "node"));                     /* extension */
    rule_files(&r, spec);                                      /* 10 */
    rule_env(&r, spec);                                        /* 11 */
    rule_post_install(&r, spec);                               /* 12 */
    rule_secrets(&r, spec);                                    /* 13 */
    rule_resources(&r, spec);                                  /* 14 */
    rule_variants(&r, spec);                                   /* 15 */
    rule_regions(&r, spec);                                    /* 16 */
    /* 17, organization policy: none is configured, so nothing is denied. */
    spec_pins_free(r.pins, r.n_pins);
}

/* spec_model.c — the v1alpha1 Environment schema and the walk that checks a
 * positioned tree against it, writing the normalized document.
 *
 * Owns the schema: every field, its camelCase name (snake_case accepted on
 * input, as pydantic's populate_by_name does), type, default, literal and
 * pattern, in declared order, plus envlock's extensions (packages.node,
 * packages.system.sources, metadata.description), which are written only when
 * the input has them so the digest of a reference document is unchanged.
 * Type problems become findings at the offending node: unknown keys (with a
 * did-you-mean when one field is close), missing required keys (at the
 * parent), wrong types (naming what was expected, and saying how to quote a
 * YAML number or boolean that was meant as a string). Coercions follow
 * pydantic's lax mode: int to float, whole floats to int, numeric strings to
 * numbers, booleans to numbers — never numbers or booleans to strings.
 * The document is built as far as the input allows: a field whose value
 * fails its type check (or a required field that is missing) is left out of
 * its object, and a list item that fails becomes null, while every other
 * field is normalized with its defaults — so the rules in spec_rules.c can
 * still judge everything that is right and skip what is not. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "spec_internal.h"
#include "spec_schema.h"

/* ---- patterns ---- */

static bool is_hex64(const char *s)
{
    return is_lower_hex(s, 64);
}

static bool is_python_version(const char *s)
{
    if (s[0] != '3' || s[1] != '.' || !s[2])
        return false;
    for (s += 2; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool is_secret_id(const char *s)
{
    if (strncmp(s, "dlsec_", 6) != 0 || !s[6])
        return false;
    for (s += 6; *s; s++)
        if (!isalnum((unsigned char)*s))
            return false;
    return true;
}

static bool is_secret_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
            return false;
    return true;
}

/* ---- the schema ---- */

static const tdesc t_str = { .t = T_STR };
static const tdesc t_str_null = { .t = T_STR, .nullable = true };
static const tdesc t_str_list = { .t = T_LIST, .item = &t_str };
static const tdesc t_smap = { .t = T_SMAP };
static const tdesc t_size = { .t = T_INT, .nullable = true, .has_min = true, .min = 0 };
static const tdesc t_sha = { .t = T_STR, .valid = is_hex64,
                             .invalid_msg = "is not a sha256 digest: 64 lowercase hex digits" };
static const tdesc t_sha_null = { .t = T_STR, .nullable = true, .valid = is_hex64,
                                  .invalid_msg = "is not a sha256 digest: 64 lowercase hex digits" };
static const tdesc t_hint = { .t = T_FLOAT, .nullable = true, .has_min = true, .min = 0 };
static const tdesc t_count = { .t = T_INT, .has_min = true, .min = 1 };
static const tdesc t_secret_id = {
    .t = T_STR, .valid = is_secret_id,
    .invalid_msg = "is not a build secret id: `dlsec_` followed by letters and digits"
};
static const tdesc t_secret_id_null = {
    .t = T_STR, .nullable = true, .valid = is_secret_id,
    .invalid_msg = "is not a build secret id: `dlsec_` followed by letters and digits"
};

static const char *const api_versions[] = { "environments.datalayer.io/v1alpha1", NULL };
static const char *const kinds[] = { "Environment", NULL };
static const char *const lang_names[] = { "python", NULL };
static const char *const archs[] = { "linux/amd64", NULL };
static const char *const managers[] = { "uv", "pip", "conda", NULL };
static const char *const node_managers[] = { "npm", NULL };
static const char *const mount_as[] = { "env", "file", NULL };
static const char *const sources[] = { "packages", "dependencyFile", "dockerfile", "image", NULL };
static const char *const formats[] = { "requirements", "pyproject", "conda", NULL };

static const char *const default_indexes[] = { "https://pypi.org/simple", NULL };
static const char *const default_required[] = { "datalayer", NULL };

#define LIT(set) { .t = T_STR, .choices = set }
static const tdesc t_api = LIT(api_versions), t_kind = LIT(kinds), t_lang = LIT(lang_names),
                   t_arch = LIT(archs), t_manager = LIT(managers), t_node_manager = LIT(node_managers),
                   t_mount = LIT(mount_as), t_source = LIT(sources), t_format = LIT(formats);
#undef LIT
static const tdesc t_pyver = {
    .t = T_STR, .valid = is_python_version,
    .invalid_msg = "is not a Python version of the form 3.N, such as \"3.13\""
};

#define END { NULL, NULL, D_REQUIRED, NULL, 0, NULL, NULL }

static const field f_metadata[] = {
    { "name", &t_str, D_REQUIRED, NULL, 0, NULL,
      "a DNS-1123 label: lowercase letters, digits and `-`, at most 63 characters; "
      "the prefixes `datalayer-`, `dl-`, `kube-` and `system-` are reserved" },
    { "title", &t_str_null, D_NULL, NULL, 0, NULL, NULL },
    { "labels", &t_smap, D_MAP, NULL, 0, NULL, NULL },
    { "description", &t_str_null, D_ABSENT, NULL, 0, NULL,
      "envlock extension, carried over from a DataGen recipe" }, /* extension (DataGen) */
    END
};
static const field f_language[] = {
    { "name", &t_lang, D_STR, "python", 0, NULL, NULL },
    { "version", &t_pyver, D_REQUIRED, NULL, 0, NULL,
      "the Python of the base (`validate` checks it against the catalog; it is not "
      "replaced)" },
    END
};
static const field f_base[] = {
    { "ref", &t_str, D_REQUIRED, NULL, 0, NULL,
      "an approved base of the catalog (not checked when `build.source` is `image` or "
      "`dockerfile`)" },
    { "channel", &t_str, D_REQUIRED, NULL, 0, NULL,
      "a channel the catalog has for that base (checked by `validate` and `resolve`, "
      "not by `digest`)" },
    END
};
static const field f_platform[] = {
    { "architecture", &t_arch, D_STR, "linux/amd64", 0, NULL, NULL },
    END
};
static const field f_python[] = {
    { "manager", &t_manager, D_STR, "uv", 0, NULL,
      "`conda` is refused (DL_ENV_CAPABILITY_UNSUPPORTED): an environment.yml goes in "
      "`build.dependencyFile`" },
    { "dependencies", &t_str_list, D_LIST, NULL, 0, NULL,
      "PEP 508 requirements; one name at most once unless markers tell the entries "
      "apart; a requirement the base's protected pins exclude is "
      "DL_ENV_PROTECTED_PACKAGE" },
    { "constraints", &t_str_list, D_LIST, NULL, 0, NULL,
      "PEP 508 requirements, limiting versions without asking for the package" },
    { "indexes", &t_str_list, D_LIST, NULL, 0, default_indexes,
      "`https://` URLs with no credentials in them (reference a credential in "
      "`buildSecrets`)" },
    END
};
static const field f_system[] = {
    { "apt", &t_str_list, D_LIST, NULL, 0, NULL,
      "`name` or `name=version` (`^[a-z0-9][a-z0-9+.-]+(=[A-Za-z0-9.+~:-]+)?$`); one "
      "name at most once" },
    { "sources", &t_str_list, D_ABSENT, NULL, 0, NULL,
      "envlock extension: one-line apt sources (`deb [signed-by=...] URI SUITE "
      "COMPONENT...`) for internal mirrors" }, /* extension */
    END
};
static const field f_node[] = {
    { "manager", &t_node_manager, D_STR, "npm", 0, NULL, NULL },
    { "dependencies", &t_str_list, D_LIST, NULL, 0, NULL,
      "npm package specs (`name@range`, `@scope/name@tag`); one name at most once" },
    { "registry", &t_str, D_STR, "https://registry.npmjs.org", 0, NULL,
      "an `https://` URL with no credentials in it" },
    END
};
static const tdesc t_python = { .t = T_OBJ, .fields = f_python };
static const tdesc t_system = { .t = T_OBJ, .fields = f_system };
static const tdesc t_node = { .t = T_OBJ, .fields = f_node };
static const field f_packages[] = {
    { "python", &t_python, D_OBJ, NULL, 0, NULL, NULL },
    { "system", &t_system, D_OBJ, NULL, 0, NULL, NULL },
    { "node", &t_node, D_ABSENT, NULL, 0, NULL,
      "envlock extension: npm packages, which v1alpha1 has no place for" }, /* extension */
    END
};
static const field f_file[] = {
    { "path", &t_str, D_REQUIRED, NULL, 0, NULL,
      "absolute and normalized (no `..`), not under `/opt/datalayer`, listed once" },
    { "contentRef", &t_str, D_REQUIRED, NULL, 0, NULL,
      "a `blob://`, `https://` or `s3://` reference" },
    { "sizeBytes", &t_size, D_NULL, NULL, 0, NULL,
      "at most " SPEC_STR(SPEC_MAX_FILE_BYTES) " bytes a file, " SPEC_STR(SPEC_MAX_FILES_BYTES)
      " bytes for all files" },
    { "sha256", &t_sha_null, D_NULL, NULL, 0, NULL, NULL },
    END
};
static const field f_contents[] = {
    { "source", &t_str, D_REQUIRED, NULL, 0, NULL, NULL },
    { "path", &t_str, D_REQUIRED, NULL, 0, NULL, NULL },
    { "sha256", &t_sha, D_REQUIRED, NULL, 0, NULL, NULL },
    { "sizeBytes", &t_size, D_NULL, NULL, 0, NULL, NULL },
    END
};
static const field f_commands[] = {
    { "postInstall", &t_str_list, D_LIST, NULL, 0, NULL,
      "at most " SPEC_STR(SPEC_MAX_COMMANDS) " commands, none empty, no control characters; each runs after the "
      "files, before the doctor (docs/plans.md)" },
    END
};
static const field f_secret[] = {
    { "id", &t_secret_id, D_REQUIRED, NULL, 0, NULL,
      "listed once" },
    { "mountAs", &t_mount, D_STR, "env", 0, NULL, NULL },
    { "name", &(const tdesc){ .t = T_STR, .valid = is_secret_name,
                              .invalid_msg = "is not a secret name: letters, digits, `_`, `.` and `-`" },
      D_REQUIRED, NULL, 0, NULL,
      "named by a `postInstall` command as a whole word; listed once" },
    END
};
static const field f_accel[] = {
    { "type", &t_str, D_REQUIRED, NULL, 0, NULL, NULL },
    { "count", &t_count, D_INT, NULL, 1, NULL, NULL },
    { "cuda", &t_str_null, D_NULL, NULL, 0, NULL,
      "matches the base's CUDA version by its dotted prefix (`12` matches `12.8`)" },
    END
};
static const field f_hints[] = {
    { "cpu", &t_hint, D_NULL, NULL, 0, NULL, NULL },
    { "memoryGi", &t_hint, D_NULL, NULL, 0, NULL, NULL },
    { "diskGi", &t_hint, D_NULL, NULL, 0, NULL, NULL },
    END
};
static const tdesc t_accel = { .t = T_ACCEL, .fields = f_accel };
static const tdesc t_hints = { .t = T_OBJ, .fields = f_hints };
static const field f_resources[] = {
    { "sizeClass", &t_str, D_STR, "small", 0, NULL,
      "one of `small`, `medium`, `large`, `gpu-small`, `gpu-large`; a GPU class needs "
      "an accelerator and a CUDA base" },
    { "accelerator", &t_accel, D_ACCEL, NULL, 0, NULL,
      "only with a GPU size class" },
    { "hints", &t_hints, D_OBJ, NULL, 0, NULL, NULL },
    END
};
static const field f_variants[] = {
    { "required", &t_str_list, D_LIST, NULL, 0, default_required,
      "at least one of `datalayer`, `e2b`, `daytona`, `modal`; each listed once" },
    { "optional", &t_str_list, D_LIST, NULL, 0, NULL,
      "variants of the same set; none also required" },
    END
};
static const tdesc t_variants = { .t = T_OBJ, .fields = f_variants };
static const field f_compat[] = {
    { "variants", &t_variants, D_OBJ, NULL, 0, NULL, NULL },
    { "regions", &t_str_list, D_LIST, NULL, 0, NULL,
      "DNS-1123 labels" },
    END
};
static const field f_depfile[] = {
    { "sourceFormat", &t_format, D_STR, "requirements", 0, NULL,
      "`requirements`: a requirements.txt; `pyproject`: pyproject.toml with its "
      "uv.lock; `conda`: an environment.yml (docs/specs.md)" },
    { "content", &t_str, D_STR, "", 0, NULL,
      "the file's text: not empty, at most " SPEC_STR(SPEC_MAX_TEXT_BYTES) " bytes" },
    { "lockContent", &t_str, D_STR, "", 0, NULL,
      "the uv.lock text: required for `pyproject`, refused for the other formats; at "
      "most " SPEC_STR(SPEC_MAX_TEXT_BYTES) " bytes" },
    END
};
static const field f_dockerfile[] = {
    { "content", &t_str, D_STR, "", 0, NULL,
      "the Dockerfile: `FROM` an approved base; no VOLUME, ONBUILD, STOPSIGNAL, "
      "privileged or host-network steps" },
    END
};
static const field f_image[] = {
    { "reference", &t_str, D_STR, "", 0, NULL,
      "the image to import, not empty; a registry other than docker.io, ghcr.io, "
      "quay.io, gcr.io, registry.k8s.io or public.ecr.aws needs `credentialSecretId` "
      "(else DL_ENV_POLICY_DENIED)" },
    { "credentialSecretId", &t_secret_id_null, D_NULL, NULL, 0, NULL, NULL },
    END
};
static const field f_build[] = {
    { "source", &t_source, D_STR, "packages", 0, NULL,
      "`dockerfile` is checked but not resolved (DL_ENV_CAPABILITY_UNSUPPORTED at "
      "resolve)" },
    { "dependencyFile", &(const tdesc){ .t = T_OBJ, .nullable = true, .fields = f_depfile },
      D_NULL, NULL, 0, NULL,
      "required when `source` is `dependencyFile`" },
    { "dockerfile", &(const tdesc){ .t = T_OBJ, .nullable = true, .fields = f_dockerfile },
      D_NULL, NULL, 0, NULL,
      "required when `source` is `dockerfile`" },
    { "image", &(const tdesc){ .t = T_OBJ, .nullable = true, .fields = f_image }, D_NULL, NULL,
      0, NULL,
      "required when `source` is `image`" },
    END
};
static const field f_spec[] = {
    { "contract", &t_str, D_STR, "sandbox-contract/v1", 0, NULL,
      "only `sandbox-contract/v1` (else DL_ENV_CAPABILITY_UNSUPPORTED)" },
    { "language", &(const tdesc){ .t = T_OBJ, .fields = f_language }, D_REQUIRED, NULL, 0, NULL, NULL },
    { "base", &(const tdesc){ .t = T_OBJ, .fields = f_base }, D_REQUIRED, NULL, 0, NULL, NULL },
    { "platform", &(const tdesc){ .t = T_OBJ, .fields = f_platform }, D_OBJ, NULL, 0, NULL, NULL },
    { "packages", &(const tdesc){ .t = T_OBJ, .fields = f_packages }, D_OBJ, NULL, 0, NULL, NULL },
    { "files", &(const tdesc){ .t = T_LIST, .item = &(const tdesc){ .t = T_OBJ, .fields = f_file } },
      D_LIST, NULL, 0, NULL,
      "at most " SPEC_STR(SPEC_MAX_FILES) " files" },
    { "contentsBuild",
      &(const tdesc){ .t = T_LIST, .item = &(const tdesc){ .t = T_OBJ, .fields = f_contents } },
      D_LIST, NULL, 0, NULL, NULL },
    { "env", &t_smap, D_MAP, NULL, 0, NULL,
      "keys are environment variable names; values carry no control character; a key "
      "or value that looks like a credential is refused (reference it in "
      "`buildSecrets`)" },
    { "commands", &(const tdesc){ .t = T_OBJ, .fields = f_commands }, D_OBJ, NULL, 0, NULL, NULL },
    { "buildSecrets",
      &(const tdesc){ .t = T_LIST, .item = &(const tdesc){ .t = T_OBJ, .fields = f_secret } },
      D_LIST, NULL, 0, NULL,
      "ids and names each listed once" },
    { "resources", &(const tdesc){ .t = T_OBJ, .fields = f_resources }, D_OBJ, NULL, 0, NULL, NULL },
    { "compatibility", &(const tdesc){ .t = T_OBJ, .fields = f_compat }, D_OBJ, NULL, 0, NULL, NULL },
    { "build", &(const tdesc){ .t = T_OBJ, .fields = f_build }, D_OBJ, NULL, 0, NULL, NULL },
    END
};
static const field f_document[] = {
    { "apiVersion", &t_api, D_STR, "environments.datalayer.io/v1alpha1", 0, NULL, NULL },
    { "kind", &t_kind, D_REQUIRED, NULL, 0, NULL, NULL },
    { "metadata", &(const tdesc){ .t = T_OBJ, .fields = f_metadata }, D_REQUIRED, NULL, 0, NULL, NULL },
    { "spec", &(const tdesc){ .t = T_OBJ, .fields = f_spec }, D_REQUIRED, NULL, 0, NULL, NULL },
    END
};

const field *spec_schema_document(void)
{
    return f_document;
}

/* ---- the walk ---- */

typedef struct walker {
    spec_findings *fs;
    strbuf path;
    const field *outer; /* the fields of the mapping holding this one, or NULL */
} walker;

static const char *path_or_doc(const walker *w)
{
    return w->path.len ? w->path.buf : "(document)";
}

static size_t push_name(walker *w, const char *name, size_t n)
{
    size_t old = w->path.len;
    if (old)
        sb_addc(&w->path, '.');
    sb_add(&w->path, name, n);
    return old;
}

static size_t push_index(walker *w, size_t i)
{
    size_t old = w->path.len;
    sb_addf(&w->path, "[%zu]", i);
    return old;
}

static void pop(walker *w, size_t old) { sb_setlen(&w->path, old); }

static void finding(walker *w, const spec_node *at, const char *fmt, ...) EL_PRINTF(3, 4);
static void finding(walker *w, const spec_node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    spec_finding_add(w->fs, at, path_or_doc(w), EL_SPEC_INVALID, "%s", msg);
    free(msg);
}

static const char *kind_noun(const spec_node *n)
{
    switch (n->kind) {
    case SN_NULL: return "null";
    case SN_BOOL: return "a boolean";
    case SN_INT:
    case SN_FLOAT: return "a number";
    case SN_STR: return n->date ? "a date" : "a string";
    case SN_SEQ: return "a list";
    case SN_MAP: return "a mapping";
    }
    return "a value";
}

static const char *text_of(const spec_node *n) { return n->text ? n->text : ""; }

/* A str field given a YAML value of another type. A plain scalar that YAML
 * read as a number, boolean or date is almost always a string the user did
 * not quote, so say how to quote it. */
static void want_string(walker *w, const spec_node *n)
{
    if (n->text && (n->kind == SN_INT || n->kind == SN_FLOAT || n->kind == SN_BOOL || n->date))
        finding(w, n, "`%s` is %s here; quote it: \"%s\"", n->text, kind_noun(n), n->text);
    else
        finding(w, n, "should be a string, not %s", kind_noun(n));
}

static void join_choices(strbuf *sb, const char *const *choices)
{
    for (size_t k = 0; choices[k]; k++) {
        if (k)
            sb_adds(sb, ", ");
        sb_adds(sb, choices[k]);
    }
}

static json_object *build(walker *w, const tdesc *t, const spec_node *n);

static json_object *build_str(walker *w, const tdesc *t, const spec_node *n)
{
    if (n->kind != SN_STR || n->date) {
        if (t->choices && n->text && n->kind != SN_SEQ && n->kind != SN_MAP &&
            n->kind != SN_NULL) {
            strbuf sb = STRBUF_INIT;
            join_choices(&sb, t->choices);
            finding(w, n, "`%s` is not one of: %s", n->text, sb.buf);
            sb_release(&sb);
            return NULL;
        }
        want_string(w, n);
        return NULL;
    }
    if (t->choices) {
        for (size_t k = 0; t->choices[k]; k++)
            if (strlen(t->choices[k]) == n->text_len && strcmp(t->choices[k], n->text) == 0)
                return json_object_new_string(n->text);
        strbuf sb = STRBUF_INIT;
        join_choices(&sb, t->choices);
        finding(w, n, "`%s` is not one of: %s", n->text, sb.buf);
        sb_release(&sb);
        return NULL;
    }
    if (t->valid && (strlen(n->text) != n->text_len || !t->valid(n->text))) {
        finding(w, n, "`%s` %s", n->text, t->invalid_msg);
        return NULL;
    }
    return json_object_new_string_len(n->text, (int)n->text_len);
}

/* Python int() of a string, as pydantic's lax mode reads it: optional
 * surrounding whitespace and sign, decimal digits, `_` between digits. */
static bool parse_int_text(const char *s, int64_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s == '_' && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[-1]))
            continue;
        if (!isdigit((unsigned char)*s))
            break;
        if (v > (INT64_MAX - (*s - '0')) / 10)
            return false;
        v = v * 10 + (*s - '0');
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s)
        return false;
    *out = neg ? -v : v;
    return true;
}

static bool parse_float_text(const char *s, double *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return false;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *out = d;
    return true;
}

static json_object *build_int(walker *w, const tdesc *t, const spec_node *n)
{
    int64_t v;
    switch (n->kind) {
    case SN_INT: v = n->i; break;
    case SN_BOOL: v = n->b; break;
    case SN_FLOAT:
        if (!isfinite(n->f) || n->f > 9.0e15 || n->f < -9.0e15 || n->f != (double)(int64_t)n->f) {
            finding(w, n, "`%s` is not a whole number", text_of(n));
            return NULL;
        }
        v = (int64_t)n->f;
        break;
    case SN_STR:
        if (!n->date && parse_int_text(n->text, &v))
            break;
        finding(w, n, "`%s` is not an integer", n->text);
        return NULL;
    default:
        finding(w, n, "should be an integer, not %s", kind_noun(n));
        return NULL;
    }
    if (t->has_min && v < t->min) {
        finding(w, n, "must be at least %lld, not %lld", (long long)t->min, (long long)v);
        return NULL;
    }
    return json_object_new_int64(v);
}

static int print_number(json_object *o, struct printbuf *pb, int level, int flags)
{
    (void)level;
    (void)flags;
    char buf[32];
    if (!spec_jcs_number(json_object_get_double(o), buf))
        snprintf(buf, sizeof buf, "null");
    return printbuf_memappend(pb, buf, (int)strlen(buf));
}

static json_object *build_float(walker *w, const tdesc *t, const spec_node *n)
{
    double v;
    switch (n->kind) {
    case SN_INT: v = (double)n->i; break;
    case SN_FLOAT: v = n->f; break;
    case SN_BOOL: v = n->b; break;
    case SN_STR:
        if (!n->date && parse_float_text(n->text, &v))
            break;
        finding(w, n, "`%s` is not a number", n->text);
        return NULL;
    default:
        finding(w, n, "should be a number, not %s", kind_noun(n));
        return NULL;
    }
    if (!isfinite(v)) {
        finding(w, n, "`%s` is not a finite number", text_of(n));
        return NULL;
    }
    if (t->has_min && !(v > (double)t->min)) {
        finding(w, n, "must be greater than %lld", (long long)t->min);
        return NULL;
    }
    /* Keep the double so the digest sees the number pydantic's float field
     * holds; print it the ECMAScript way (2.0 as 2) in the normalized JSON
     * too, so both forms agree. */
    json_object *d = json_object_new_double(v);
    json_object_set_serializer(d, print_number, NULL, NULL);
    return d;
}

static json_object *build_list(walker *w, const tdesc *t, const spec_node *n)
{
    if (n->kind != SN_SEQ) {
        if (n->kind == SN_STR)
            finding(w, n, "should be a list, not a string; write it as [\"%s\"] or as a `- ` item",
                    n->text);
        else
            finding(w, n, "should be a list, not %s", kind_noun(n));
        return NULL;
    }
    json_object *arr = json_object_new_array_ext((int)n->n);
    for (size_t k = 0; k < n->n; k++) {
        size_t old = push_index(w, k);
        json_object *v = build(w, t->item, n->items[k]);
        pop(w, old);
        json_object_array_add(arr, v); /* NULL (json null): the item failed */
    }
    return arr;
}

static json_object *build_smap(walker *w, const spec_node *n)
{
    if (n->kind != SN_MAP) {
        finding(w, n, "should be a mapping of names to strings, not %s", kind_noun(n));
        return NULL;
    }
    json_object *obj = json_object_new_object();
    for (size_t k = 0; k < n->n; k++) {
        const spec_node *key = n->keys[k], *val = n->items[k];
        size_t old = push_name(w, text_of(key), strlen(text_of(key)));
        if (key->kind != SN_STR || key->date) {
            want_string(w, key);
        } else if (val->kind != SN_STR || val->date) {
            want_string(w, val);
        } else if (!json_object_object_get_ex(obj, key->text, NULL)) {
            json_object_object_add(obj, key->text,
                                   json_object_new_string_len(val->text, (int)val->text_len));
        }
        pop(w, old);
    }
    return obj;
}

/* snake_case spelling of a camelCase field name ("sizeClass" -> "size_class"). */
static void snake_of(const char *camel, strbuf *out)
{
    sb_reset(out);
    for (const char *p = camel; *p; p++) {
        if (*p >= 'A' && *p <= 'Z') {
            sb_addc(out, '_');
            sb_addc(out, (char)(*p - 'A' + 'a'));
        } else {
            sb_addc(out, *p);
        }
    }
}

/* Index of the field that key `k` names (camelCase or snake_case), or -1. */
static int field_index(const field *fields, const char *k, strbuf *tmp)
{
    for (int i = 0; fields[i].name; i++) {
        if (strcmp(fields[i].name, k) == 0)
            return i;
        snake_of(fields[i].name, tmp);
        if (strcmp(tmp->buf, k) == 0)
            return i;
    }
    return -1;
}

/* The field a misspelled key most likely meant, if one is close enough that
 * suggesting it helps more than it confuses. */
static const char *closest_field(const field *fields, const char *k)
{
    size_t klen = strlen(k);
    size_t limit = klen / 3;
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    const char *best = NULL;
    size_t best_d = limit + 1;
    strbuf tmp = STRBUF_INIT;
    for (int i = 0; fields[i].name; i++) {
        size_t d = edit_distance(k, fields[i].name);
        snake_of(fields[i].name, &tmp);
        size_t d2 = edit_distance(k, tmp.buf);
        if (d2 < d)
            d = d2;
        if (d < best_d) {
            best_d = d;
            best = fields[i].name;
        }
    }
    sb_release(&tmp);
    return best;
}

static json_object *default_of(walker *w, const field *f, const spec_node *parent);

/* Names other tools give a spec section, and envlock's name for it: an npm
 * user writes `packages.npm`, an apt user `packages.apt` (that one is a
 * field of `system`, found below). */
static const char *const field_aliases[][2] = {
    { "npm", "node" },     { "nodejs", "node" }, { "javascript", "node" },
    { "pip", "python" },   { "pypi", "python" }, { "uv", "python" },
    { "debian", "system" }, { "deb", "system" }, { NULL, NULL },
};

/* The fields in `fields` (objects only) that have a field named `k`, as
 * "`OWNER.F`" or "`OWNER.F` or `OWNER.G`", appended to `out`. */
static size_t children_with(const field *fields, const char *owner, const char *k, strbuf *out,
                            const char **child)
{
    strbuf tmp = STRBUF_INIT;
    size_t n = 0;
    for (int i = 0; fields[i].name; i++) {
        const tdesc *t = fields[i].type;
        if (t->t != T_OBJ || !t->fields || field_index(t->fields, k, &tmp) < 0)
            continue;
        sb_addf(out, "%s`%s%s%s`", n++ ? " or " : "", owner, *owner ? "." : "", fields[i].name);
        *child = fields[i].name;
    }
    sb_release(&tmp);
    return n;
}

/* What an unknown key `k` of the mapping at w->path[0..owner_len] most
 * likely meant, as a "; ..." clause appended to `out` (nothing if no
 * guess helps): a field one level down (mis-indented to the left), one
 * level up (indented too far), another tool's name for a section, or a
 * near spelling. */
static void unknown_field_hint(const walker *w, const field *fields, size_t owner_len,
                               const char *k, strbuf *out)
{
    strbuf tmp = STRBUF_INIT, owner = STRBUF_INIT;
    sb_add(&owner, w->path.buf, owner_len);
    sb_adds(&tmp, "; it is a field of ");
    const char *child = NULL;
    size_t n_children = children_with(fields, owner.buf, k, &tmp, &child);
    if (n_children == 1) {
        sb_addf(out, "%s: move it under `%s`", tmp.buf, child);
    } else if (n_children) {
        sb_addf(out, "%s: move it under one of them", tmp.buf);
    } else if (w->outer && field_index(w->outer, k, &tmp) >= 0) {
        const char *dot = strrchr(owner.buf, '.');
        size_t plen = dot ? (size_t)(dot - owner.buf) : 0;
        if (plen)
            sb_addf(out, "; it is a field of `%.*s`: indent it one level less", (int)plen,
                    owner.buf);
        else
            sb_adds(out, "; it is a top-level field: indent it one level less");
    } else {
        const char *near = NULL;
        for (size_t i = 0; field_aliases[i][0] && !near; i++)
            if (strcmp(k, field_aliases[i][0]) == 0 &&
                field_index(fields, field_aliases[i][1], &tmp) >= 0)
                near = field_aliases[i][1];
        if (!near)
            near = closest_field(fields, k);
        if (near)
            sb_addf(out, "; did you mean `%s`?", near);
    }
    sb_release(&tmp);
    sb_release(&owner);
}

static json_object *build_obj_from(walker *w, const field *fields, const spec_node *n)
{
    /* n may be NULL: a defaulted object, built from an empty mapping */
    size_t nfields = 0;
    while (fields[nfields].name)
        nfields++;
    const spec_node **given = xcalloc(nfields + 1, sizeof *given);
    const spec_node **given_key = xcalloc(nfields + 1, sizeof *given_key);
    strbuf tmp = STRBUF_INIT;
    if (n) {
        for (size_t k = 0; k < n->n; k++) {
            const spec_node *key = n->keys[k];
            const char *kt = text_of(key);
            int idx = key->kind == SN_STR ? field_index(fields, kt, &tmp) : -1;
            if (idx < 0) {
                size_t old = push_name(w, kt, strlen(kt));
                strbuf owner = STRBUF_INIT, hint = STRBUF_INIT;
                if (old)
                    sb_addf(&owner, "`%.*s`", (int)old, w->path.buf);
                else
                    sb_adds(&owner, "the document");
                unknown_field_hint(w, fields, old, kt, &hint);
                finding(w, key, "`%s` is not a field of %s%s", kt, owner.buf,
                        hint.len ? hint.buf : "");
                sb_release(&owner);
                sb_release(&hint);
                pop(w, old);
                continue;
            }
            if (given[idx]) {
                /* duplicate spellings of one key are caught by the parser;
                 * this is `sizeClass` next to `size_class` */
                size_t old = push_name(w, fields[idx].name, strlen(fields[idx].name));
                if (strcmp(text_of(given_key[idx]), kt) != 0)
                    finding(w, key, "is given twice, as `%s` and as `%s`; keep one",
                            text_of(given_key[idx]), kt);
                pop(w, old);
                continue;
            }
            given[idx] = n->items[k];
            given_key[idx] = key;
        }
    }
    sb_release(&tmp);
    json_object *obj = json_object_new_object();
    for (size_t i = 0; i < nfields; i++) {
        const field *f = &fields[i];
        size_t old = push_name(w, f->name, strlen(f->name));
        json_object *v = NULL;
        bool add = true;
        size_t before = w->fs->len;
        if (given[i]) {
            /* a mapping field's keys may belong here (indented too far) */
            const field *saved = w->outer;
            w->outer = f->type->t == T_OBJ ? fields : NULL;
            v = build(w, f->type, given[i]);
            w->outer = saved;
        } else if (f->def == D_ABSENT)
            add = false;
        else
            v = default_of(w, f, n);
        /* A NULL with a new finding is a failed (or missing required)
         * field: leave it out, so that it is never mistaken for a null the
         * user wrote or a default. */
        if (!v && w->fs->len > before)
            add = false;
        pop(w, old);
        if (add)
            json_object_object_add(obj, f->name, v);
    }
    free(given);
    free(given_key);
    return obj;
}

static json_object *default_of(walker *w, const field *f, const spec_node *parent)
{
    switch (f->def) {
    case D_REQUIRED:
        finding(w, parent, "is required");
        return NULL;
    case D_NULL: return NULL;
    case D_STR: return json_object_new_string(f->def_str);
    case D_INT: return json_object_new_int64(f->def_int);
    case D_LIST: {
        json_object *arr = json_object_new_array();
        for (size_t k = 0; f->def_list && f->def_list[k]; k++)
            json_object_array_add(arr, json_object_new_string(f->def_list[k]));
        return arr;
    }
    case D_MAP: return json_object_new_object();
    case D_OBJ: return build_obj_from(w, f->type->fields, NULL);
    case D_ACCEL: return json_object_new_string("none");
    case D_ABSENT: return NULL;
    }
    return NULL;
}

static json_object *build(walker *w, const tdesc *t, const spec_node *n)
{
    if (n->kind == SN_NULL && t->nullable)
        return NULL;
    switch (t->t) {
    case T_STR: return build_str(w, t, n);
    case T_INT: return build_int(w, t, n);
    case T_FLOAT: return build_float(w, t, n);
    case T_LIST: return build_list(w, t, n);
    case T_SMAP: return build_smap(w, n);
    case T_OBJ:
        if (n->kind != SN_MAP) {
            if (n->kind == SN_NULL)
                finding(w, n, "is empty (null); it should be a mapping, or left out");
            else
                finding(w, n, "should be a mapping, not %s", kind_noun(n));
            return NULL;
        }
        return build_obj_from(w, t->fields, n);
    case T_ACCEL:
        if (n->kind == SN_STR && !n->date && strcmp(n->text, "none") == 0)
            return json_object_new_string("none");
        if (n->kind == SN_MAP)
            return build_obj_from(w, t->fields, n);
        if (n->kind == SN_STR)
            finding(w, n,
                    "`%s` is not an accelerator: write \"none\", or a mapping with `type` (and "
                    "`count`, `cuda`)",
                    n->text);
        else
            finding(w, n,
                    "should be \"none\" or a mapping with `type` (and `count`, `cuda`), not %s",
                    kind_noun(n));
        return NULL;
    }
    return NULL;
}

json_object *spec_model_build(const spec_node *root, spec_findings *fs)
{
    if (!root)
        return NULL;
    if (root->kind != SN_MAP) {
        spec_finding_add(fs, root, "(document)", EL_SPEC_INVALID,
                         "should be a mapping with apiVersion, kind, metadata and spec, not %s",
                         kind_noun(root));
        return NULL;
    }
    walker w = { .fs = fs };
    sb_init(&w.path);
    json_object *doc = build_obj_from(&w, f_document, root);
    sb_release(&w.path);
    return doc;
}

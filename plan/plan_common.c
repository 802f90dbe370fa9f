/* plan_common.c — what every variant's plan shares (plan/README.md): the
 * entry points of plan.h's "plans" part and their dispatch to the variant
 * files, the facts gathered from a plan_input, the quoting every generated
 * text relies on, the install steps' commands, the Dockerfile steps of
 * datalayer, daytona and e2b, the context files and the refusals several
 * variants make (REFERENCE §7).
 *
 * It writes no variant's main file itself (plan_<variant>.c do), and it
 * never formats a lock export: lock.txt, requirements.txt, apt-packages.txt,
 * apt-sources.list, package.json and package-lock.json come from
 * plan_export.c. The site's mirrors (plan_input.map_url) reach only the
 * install steps' URLs: the index URLs and registry of the commands here,
 * and the deb URIs of apt-sources.list and the package-lock's `resolved`,
 * which plan_export.c maps. No I/O, no state between calls. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "plan_internal.h"

/* ---- plan_files, refusals ---- */

void plan_files_add(plan_files *f, const char *name, char *data, size_t len)
{
    if (!data) /* an export that does not apply: no file */
        return;
    f->v = xrealloc(f->v, (f->n + 1) * sizeof *f->v);
    f->v[f->n].name = xstrdup(name);
    f->v[f->n].data = data;
    f->v[f->n].len = len;
    f->n++;
}

void plan_files_release(plan_files *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].name);
        free(f->v[i].data);
    }
    free(f->v);
    f->v = NULL;
    f->n = 0;
}

void plan_refusal_clear(plan_refusal *r)
{
    if (!r)
        return;
    free(r->message);
    r->message = NULL;
    r->at = (plan_pos){ NULL, 0, 0 };
}

bool plan_refusal_set(plan_refusal *r, plan_pos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(r->message);
    r->message = xvasprintf(fmt, ap);
    va_end(ap);
    r->at = at;
    return true;
}

/* ---- dispatch ---- */

typedef struct variant_ops {
    const char *name;
    bool (*refuse)(const plan_facts *, plan_refusal *);
    void (*files)(const plan_facts *, plan_files *);
} variant_ops;

static const variant_ops VARIANTS[] = {
    { "datalayer", plan_datalayer_refuse, plan_datalayer_files },
    { "e2b", plan_e2b_refuse, plan_e2b_files },
    { "daytona", plan_daytona_refuse, plan_daytona_files },
    { "modal", plan_modal_refuse, plan_modal_files },
};

static const variant_ops *variant_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof VARIANTS / sizeof VARIANTS[0]; i++)
        if (strcmp(VARIANTS[i].name, name) == 0)
            return &VARIANTS[i];
    return NULL;
}

const char *plan_variant_image(const lock_doc *d, const char *variant)
{
    for (size_t i = 0; d && i < d->n_targets; i++)
        for (const char **v = d->targets[i].variants; v && *v; v++)
            if (strcmp(*v, variant) == 0)
                return d->targets[i].image;
    /* one target: every variant the lock was resolved for is on it */
    for (size_t i = 0; d && d->image && d->variants && d->variants[i]; i++)
        if (strcmp(d->variants[i], variant) == 0)
            return d->image;
    return NULL;
}

bool plan_variant_known(const char *variant)
{
    return variant_find(variant) != NULL;
}

bool plan_refuse(const plan_input *in, const char *variant, plan_refusal *r)
{
    r->message = NULL;
    r->at = (plan_pos){ NULL, 0, 0 };
    const variant_ops *ops = variant_find(variant);
    if (!ops)
        return plan_refusal_set(r, (plan_pos){ "spec.compatibility.variants", 0, 0 },
                                "`%s` is not a variant; the variants are datalayer, e2b, "
                                "daytona, modal", variant ? variant : "");
    plan_facts f;
    plan_facts_init(&f, in);
    bool refused = ops->refuse(&f, r) || plan_export_refusal(&f, r);
    plan_facts_release(&f);
    return refused;
}

void plan_variant(const plan_input *in, const char *variant, plan_files *out)
{
    const variant_ops *ops = variant_find(variant);
    if (!ops)
        return;
    plan_facts f;
    plan_facts_init(&f, in);
    ops->files(&f, out);
    plan_context_files(&f, out);
    plan_facts_release(&f);
    /* the variant's bill of materials, from export's one generator: what
     * this variant installs, its base image as the root (docs/plans.md) */
    size_t len = 0;
    char *sbom = plan_sbom_text(in, PLAN_CYCLONEDX, variant, &len);
    plan_files_add(out, "sbom.cdx.json", sbom, len);
}

char *plan_note(const plan_input *in, const char *variant)
{
    if (variant && strcmp(variant, "daytona") == 0)
        return plan_daytona_note(in);
    return variant && strcmp(variant, "e2b") == 0 ? plan_e2b_note(in) : NULL;
}

/* ---- facts ---- */

static const plan_spec EMPTY_SPEC;

static int env_cmp(const void *a, const void *b)
{
    const plan_env *x = *(const plan_env *const *)a, *y = *(const plan_env *const *)b;
    return strcmp(x->key, y->key);
}

static int pkg_name_cmp(const void *a, const void *b)
{
    const lock_package *x = *(const lock_package *const *)a;
    const lock_package *y = *(const lock_package *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->version, y->version);
}

/* qsort() of a ptrvec; an empty one has no array to pass. */
static void sort_ptrs(ptrvec *v, int (*cmp)(const void *, const void *))
{
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(void *), cmp);
}

static void add_index(ptrvec *v, const char *url)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], url) == 0)
            return;
    ptrvec_push(v, (void *)url);
}

static void facts_package(plan_facts *f, const lock_package *p)
{
    if (strcmp(p->ecosystem, "deb") == 0 && !p->installed_in_base) {
        ptrvec_push(&f->debs, (void *)p);
    } else if (strcmp(p->ecosystem, "pypi") == 0) {
        ptrvec_push(&f->pypi, (void *)p);
        if (!p->installed_in_base) {
            f->n_pypi_installs++;
            add_index(&f->indexes, p->source ? p->source : "https://pypi.org/simple");
        }
    } else if (strcmp(p->ecosystem, "npm") == 0 && !f->npm_registry) {
        f->npm_registry = p->source ? p->source : "https://registry.npmjs.org/";
    } else if (strcmp(p->ecosystem, "conda") == 0) {
        f->n_conda++;
    }
}

void plan_facts_init(plan_facts *f, const plan_input *in)
{
    memset(f, 0, sizeof *f);
    f->in = in;
    f->spec = in->spec ? in->spec : &EMPTY_SPEC;
    f->name = f->spec->name ? f->spec->name : "";
    f->size_class = f->spec->size_class ? f->spec->size_class : "small";
    f->contract = f->spec->contract ? f->spec->contract : "sandbox-contract/v1";
    f->pip = f->spec->manager && strcmp(f->spec->manager, "pip") == 0;
    for (size_t i = 0; in->lock && i < in->lock->n_packages; i++)
        facts_package(f, &in->lock->packages[i]);
    sort_ptrs(&f->debs, pkg_name_cmp);
    sort_ptrs(&f->pypi, pkg_name_cmp);
    for (size_t i = 0; i < f->spec->n_env; i++)
        ptrvec_push(&f->env, &f->spec->env[i]);
    sort_ptrs(&f->env, env_cmp);
}

void plan_facts_release(plan_facts *f)
{
    ptrvec_release(&f->debs);
    ptrvec_release(&f->pypi);
    ptrvec_release(&f->indexes);
    ptrvec_release(&f->env);
}

const char *plan_base_digest(const plan_input *in, const char *variant)
{
    const lock_doc *d = in->lock;
    for (size_t i = 0; d && d->variants && d->variants[i]; i++)
        if (strcmp(d->variants[i], variant) == 0)
            return d->base_digests ? d->base_digests[i] : NULL;
    return NULL;
}

const char *plan_base_repository(const plan_input *in, strbuf *scratch)
{
    if (in->base_repository)
        return in->base_repository;
    const char *ref = in->lock && in->lock->base_ref ? in->lock->base_ref : "";
    const char *slash = strrchr(ref, '/');
    sb_addf(scratch, "environments/base/%s", slash ? slash + 1 : ref);
    return scratch->buf;
}

bool plan_base_image(strbuf *sb, const plan_facts *f, const char *variant, bool with_registry)
{
    plan_image im;  /* plan_from.c's choice, which the SBOM's root also names */
    plan_variant_from(f->in, variant, &im);
    bool pinned = im.digest != NULL;
    const char *registry = with_registry && im.kind == PLAN_FROM_BASE ? f->in->base_registry : NULL;
    if (pinned && registry && *registry)
        sb_addf(sb, "%s/", registry);
    if (pinned)
        sb_adds(sb, im.from);
    plan_image_release(&im);
    return pinned;
}

/* ---- text ---- */

static bool sh_safe(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c && strchr("@%+=:,./_-", c));
}

void plan_sh_quote(strbuf *sb, const char *s)
{
    bool plain = *s != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = sh_safe((unsigned char)*p);
    if (plain) {
        sb_adds(sb, s);
        return;
    }
    sb_addc(sb, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            sb_adds(sb, "'\"'\"'");
        else
            sb_addc(sb, *p);
    }
    sb_addc(sb, '\'');
}

void plan_json_str(strbuf *sb, const char *s)
{
    sb_addc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_addf(sb, "\\%c", *p);
        else if (*p == '\n')
            sb_adds(sb, "\\n");
        else if (*p == '\t')
            sb_adds(sb, "\\t");
        else if (*p < 0x20 || *p == 0x7f || *p == '<')
            sb_addf(sb, "\\u%04x", *p);
        else
            sb_addc(sb, (char)*p);
    }
    sb_addc(sb, '"');
}

static void py_byte(strbuf *sb, unsigned char c)
{
    if (c == '\\' || c == '"')
        sb_addf(sb, "\\%c", c);
    else if (c == '\n')
        sb_adds(sb, "\\n");
    else if (c == '\r')
        sb_adds(sb, "\\r");
    else if (c == '\t')
        sb_adds(sb, "\\t");
    else if (c < 0x20 || c == 0x7f)
        sb_addf(sb, "\\x%02x", c);
    else
        sb_addc(sb, (char)c);
}

void plan_py_str(strbuf *sb, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    sb_addc(sb, '"');
    while (i < n) {
        if (u[i] < 0x80) {
            py_byte(sb, u[i++]);
            continue;
        }
        size_t at = i;
        unsigned cp;
        if (utf8_next(u, n, &i, &cp) && i > at)
            sb_addf(sb, cp <= 0xffff ? "\\u%04x" : "\\U%08x", cp);
        else {
            sb_addf(sb, "\\udc%02x", u[at]);
            i = at + 1;
        }
    }
    sb_addc(sb, '"');
}

void plan_comment_text(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        sb_addc(sb, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
}

char *plan_json_text(struct json_object *o, size_t *len)
{
    const char *t = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, t);
    sb_addc(&sb, '\n');
    return sb_detach(&sb, len);
}

/* ---- commands ---- */

/* The Python step installs requirements.txt (only what the base lacks, each
 * file by hash, --no-deps: the lock already is the closure) with `uv pip
 * install`, never `uv pip sync`: sync makes the environment equal to the
 * file, so it would uninstall everything the base carries outside the lock
 * (the doctor, the kernel, the protected pins the lock marks as already in
 * the base and leaves out of requirements.txt). A conda environment's pip
 * layer goes into the conda prefix's python, named (pip's --python, 22.3
 * and later, runs from any interpreter; the prefix need not carry pip). */
void plan_python_cmd(strbuf *sb, const plan_facts *f, bool pip, bool no_cache)
{
    const char *target = f->n_conda ? " --python " PLAN_CONDA_PYTHON : "";
    if (pip)
        sb_addf(sb, "python3 -m pip%s install --no-deps --require-hashes --no-cache-dir", target);
    else
        sb_addf(sb, "uv pip install%s --no-deps --require-hashes%s",
                f->n_conda ? target : " --system", no_cache ? " --no-cache" : "");
    for (size_t i = 0; i < f->indexes.len; i++) {
        char *url = plan_mirror_url(f->in, f->indexes.items[i]);
        sb_adds(sb, i == 0 ? " --index-url " : " --extra-index-url ");
        plan_sh_quote(sb, url);
        free(url);
    }
    sb_adds(sb, " -r " PLAN_OPT "/requirements.txt");
}

/* npm ci links a package's executables only from the `bin` of its
 * package-lock entry, which the lock does not record (docs/lock-format.md).
 * Once the hidden lockfile npm ci leaves is gone, `npm rebuild` reads the
 * installed package.json files instead and links their bins; with
 * --ignore-scripts it runs nothing and installs nothing. */
void plan_npm_cmd(strbuf *sb, const plan_facts *f)
{
    char *url = plan_mirror_url(f->in, f->npm_registry);
    sb_adds(sb, "cd " PLAN_OPT "/node && npm ci --ignore-scripts --no-audit --no-fund --registry ");
    plan_sh_quote(sb, url);
    free(url);
    sb_adds(sb, " && rm -f node_modules/.package-lock.json && npm rebuild --ignore-scripts");
}

static bool word_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

bool plan_names_secret(const char *cmd, const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return false;
    for (const char *p = strstr(cmd, name); p; p = strstr(p + 1, name))
        if (!(p > cmd && word_char(p[-1])) && !word_char(p[n]))
            return true;
    return false;
}

void plan_first_word_upper(const char *cmd, char *out, size_t cap)
{
    size_t k = 0;
    while (*cmd == ' ' || *cmd == '\t')
        cmd++;
    for (; *cmd && *cmd != ' ' && *cmd != '\t' && k + 1 < cap; cmd++)
        out[k++] = (*cmd >= 'a' && *cmd <= 'z') ? (char)(*cmd - 'a' + 'A') : *cmd;
    out[k] = '\0';
}

/* ---- mirrors ---- */

char *plan_mirror_url(const plan_input *in, const char *url)
{
    char *m = in->map_url ? in->map_url(in->map_url_user, url) : NULL;
    return m ? m : xstrdup(url);
}

/* ---- context files ---- */

static char *export_text(const plan_input *in, plan_format fmt, size_t *len, char **why)
{
    el_ctx *ctx = el_ctx_new();
    char *t = plan_export(ctx, in, fmt, len);
    if (!t && why)
        *why = xstrdup(el_ctx_message(ctx) ? el_ctx_message(ctx) : "no reason given");
    el_ctx_free(ctx);
    return t;
}

static void add_export(const plan_facts *f, plan_format fmt, const char *name, plan_files *out)
{
    size_t len = 0;
    char *t = export_text(f->in, fmt, &len, NULL);
    plan_files_add(out, name, t, len);
}

void plan_context_files(const plan_facts *f, plan_files *out)
{
    size_t len = 0;
    char *t;
    /* a conda environment's lock text is the reference's conda lock: the
     * explicit file with its pip layer as `# datalayer-pip:` lines */
    add_export(f, f->n_conda ? PLAN_CONDA_EXPLICIT : PLAN_UV_PIP_COMPILE, "lock.txt", out);
    if (f->n_conda) {
        t = plan_conda_install_text(f->in, &len);
        plan_files_add(out, "conda-explicit.txt", t, len);
    }
    if (f->n_pypi_installs) {
        t = plan_requirements_text(f->in, true, &len);
        plan_files_add(out, "requirements.txt", t, len);
    }
    if (f->debs.len) {
        add_export(f, PLAN_APT, "apt-packages.txt", out);
        t = plan_apt_sources_text(f->in, &len);
        plan_files_add(out, "apt-sources.list", t, len);
    }
    if (f->npm_registry) {
        t = plan_package_json_text(f->in, &len);
        plan_files_add(out, "package.json", t, len);
        add_export(f, PLAN_PACKAGE_LOCK, "package-lock.json", out);
    }
    t = plan_expected_packages(f->in, &len);
    plan_files_add(out, "expected-packages.json", t, len);
}

bool plan_export_refusal(const plan_facts *f, plan_refusal *r)
{
    static const struct { plan_format fmt; const char *name; } NEEDED[] = {
        { PLAN_UV_PIP_COMPILE, "uv-pip-compile" },
        { PLAN_CONDA_EXPLICIT, "conda-explicit" },
        { PLAN_APT, "apt" },
        { PLAN_PACKAGE_LOCK, "package-lock" },
    };
    for (size_t i = 0; i < sizeof NEEDED / sizeof NEEDED[0]; i++) {
        if ((NEEDED[i].fmt == PLAN_UV_PIP_COMPILE && f->n_conda) ||
            (NEEDED[i].fmt == PLAN_CONDA_EXPLICIT && !f->n_conda) ||
            (NEEDED[i].fmt == PLAN_APT && !f->debs.len) ||
            (NEEDED[i].fmt == PLAN_PACKAGE_LOCK && !f->npm_registry))
            continue;
        size_t len = 0;
        char *why = NULL, *t = export_text(f->in, NEEDED[i].fmt, &len, &why);
        free(t);
        if (!t) {
            plan_refusal_set(r, (plan_pos){ "spec", 0, 0 },
                             "the lock cannot be exported as %s, which the plan installs "
                             "from: %s", NEEDED[i].name, why);
            free(why);
            return true;
        }
    }
    return false;
}

char *plan_expected_packages(const plan_input *in, size_t *len)
{
    plan_facts f;
    plan_facts_init(&f, in);
    json_object *o = json_object_new_object(), *pk = json_object_new_object();
    for (size_t i = 0; i < f.pypi.len; i++) {
        const lock_package *p = f.pypi.items[i];
        json_object_object_add(pk, p->name, json_object_new_string(p->version));
    }
    json_object_object_add(o, "expected_packages", pk);
    json_object_object_add(o, "lock", json_object_new_string(in->lock_digest ? in->lock_digest : ""));
    json_object_object_add(o, "python", json_object_new_string(in->python_minor ? in->python_minor : ""));
    char *t = plan_json_text(o, len);
    json_object_put(o);
    plan_facts_release(&f);
    return t;
}

/* ---- refusals several variants make ---- */

static bool is_gpu_class(const char *c)
{
    return strcmp(c, "gpu-small") == 0 || strcmp(c, "gpu-large") == 0;
}

static bool is_size_class(const char *c)
{
    static const char *const CLASSES[] = { "small", "medium", "large", "gpu-small", "gpu-large" };
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
        if (strcmp(CLASSES[i], c) == 0)
            return true;
    return false;
}

bool plan_refuse_common(const plan_facts *f, const char *builder, plan_refusal *r)
{
    const plan_spec *s = f->spec;
    /* a requirements file, or a pyproject.toml's uv.lock, resolves to the
     * lock a packages spec gives, and an environment.yml to a conda
     * environment every variant installs with micromamba (the reference's
     * builders all list `conda`); the plan installs the lock, never the
     * file. An image source is the variant's to accept or refuse
     * (plan_refuse_image_source()). */
    bool from_file = s->build_source && strcmp(s->build_source, "dependencyFile") == 0 &&
                     s->build_format && (strcmp(s->build_format, "requirements") == 0 ||
                                         strcmp(s->build_format, "pyproject") == 0 ||
                                         strcmp(s->build_format, "conda") == 0);
    if (s->build_source && strcmp(s->build_source, "packages") != 0 &&
        strcmp(s->build_source, "image") != 0 && !from_file)
        return plan_refusal_set(r, s->build_source_at,
                                "`%s` is not buildable from a lock yet: envlock plans only "
                                "`packages` and `image` sources, requirements files, uv.lock "
                                "files and environment.yml files. Set `spec.build.source` to "
                                "`packages`",
                                s->build_source);
    if (s->manager && strcmp(s->manager, "uv") != 0 && strcmp(s->manager, "pip") != 0)
        return plan_refusal_set(r, s->manager_at,
                                "`%s` is not supported by %s; supported: uv, pip. Set "
                                "`spec.packages.python.manager` to `uv` or `pip`",
                                s->manager, builder);
    if (s->architecture && strcmp(s->architecture, "linux/amd64") != 0)
        return plan_refusal_set(r, s->architecture_at,
                                "`%s` is not buildable: %s builds linux/amd64 only. Set "
                                "`spec.platform.architecture` to `linux/amd64`",
                                s->architecture, builder);
    const char *arch = f->in->lock ? f->in->lock->arch : NULL;
    if (arch && strcmp(arch, "amd64") != 0)
        return plan_refusal_set(r, s->channel_at.field ? s->channel_at :
                                (plan_pos){ "spec.base.channel", 0, 0 },
                                "the lock was resolved for %s (the base channel's target), and "
                                "%s builds linux/amd64 only. Choose an amd64 channel of the base "
                                "and resolve again",
                                arch, builder);
    if (!is_size_class(f->size_class))
        return plan_refusal_set(r, s->size_class_at,
                                "`%s` is not a size class; the classes are small, medium, large, "
                                "gpu-small, gpu-large. Set `spec.resources.sizeClass` to one of them",
                                f->size_class);
    return false;
}

bool plan_refuse_gpu(const plan_facts *f, const char *why, const char *tail, plan_refusal *r)
{
    const plan_spec *s = f->spec;
    if (is_gpu_class(f->size_class))
        return plan_refusal_set(r, s->size_class_at,
                                "`%s` needs a GPU, %s. Choose small, medium or large, %s",
                                f->size_class, why, tail);
    if (s->accelerator)
        return plan_refusal_set(r, s->accelerator_at,
                                "an accelerator needs a GPU, %s. Set `spec.resources.accelerator` "
                                "to `none`, %s", why, tail);
    return false;
}

bool plan_refuse_gpu_without_cuda(const plan_facts *f, const char *why, const char *tail,
                                  plan_refusal *r)
{
    return !f->in->base_cuda && plan_refuse_gpu(f, why, tail, r);
}

bool plan_refuse_secrets(const plan_facts *f, const char *message, plan_refusal *r)
{
    if (f->spec->n_secrets == 0)
        return false;
    return plan_refusal_set(r, f->spec->secrets_at, "%s", message);
}

bool plan_refuse_regions(const plan_facts *f, const char *message, plan_refusal *r)
{
    if (!f->spec->regions || !f->spec->regions[0])
        return false;
    return plan_refusal_set(r, f->spec->regions_at, "%s", message);
}

bool plan_refuse_copy_paths(const plan_facts *f, const char *builder, plan_refusal *r)
{
    for (size_t i = 0; i < f->spec->n_files; i++) {
        const plan_file *pf = &f->spec->files[i];
        if (pf->path && strchr(pf->path, '$'))
            return plan_refusal_set(r, pf->at,
                                    "`%s` holds `$`, which a Dockerfile's COPY expands as a "
                                    "variable, so %s would put the file elsewhere. Rename the "
                                    "path without `$`", pf->path, builder);
    }
    return false;
}

bool plan_refuse_image_source(const plan_facts *f, const char *variant, const char *why,
                              plan_refusal *r)
{
    const plan_spec *s = f->spec;
    const char *image = s->build_image ? s->build_image : "";
    if (!s->build_source || strcmp(s->build_source, "image") != 0)
        return false;
    /* a recipe's refusal names its own field (verb_plan.c maps it) */
    bool recipe = s->build_source_at.field && strcmp(s->build_source_at.field, "baseImage") == 0;
    if (recipe)
        return plan_refusal_set(r, s->build_source_at,
                                "`%s` cannot build on the image `%s`: %s. A DataGen recipe's "
                                "`baseImage` is built by daytona, and modal builds on the "
                                "approved base; remove `baseImage` to build %s on the approved "
                                "base", variant, image, why, variant);
    return plan_refusal_set(r, s->build_source_at,
                            "`%s` cannot build on the image `%s`: %s. Set `spec.build.source` "
                            "to `packages` to build it on the approved base, or drop `%s` from "
                            "the variants", variant, image, why, variant);
}

bool plan_refuse_no_base(const plan_facts *f, const char *variant, plan_refusal *r)
{
    if (plan_base_digest(f->in, variant))
        return false;
    plan_pos at = { "spec.compatibility.variants", 0, 0 };
    if (f->in->spec && f->in->spec->variants_at.field)
        at = f->in->spec->variants_at;
    return plan_refusal_set(r, at,
                            "the lock holds no base digest for the %s variant: resolve the lock "
                            "again with `%s` among the variants", variant, variant);
}

/* ---- Dockerfile steps (datalayer, daytona, e2b) ----
 * One instruction per line; a list a parser must see (the apt pins) one
 * item per continuation line. */

void plan_df_header(strbuf *sb, const plan_facts *f, const char *variant)
{
    sb_adds(sb, "# Environment: ");
    plan_comment_text(sb, f->name);
    sb_addf(sb, " (%s variant)\n", variant);
    sb_addf(sb, "# Lock: %s\n", f->in->lock_digest ? f->in->lock_digest : "");
    sb_adds(sb, "# Generated by envlock from the lock above; do not edit: a new lock makes a "
                "new plan.\n");
}

void plan_df_labels(strbuf *sb, const plan_facts *f)
{
    sb_adds(sb, "ARG DL_ENVIRONMENT_UID DL_VERSION DL_BUILD_UID\n");
    sb_adds(sb, "LABEL io.datalayer.environment=");
    plan_sh_quote(sb, f->name);
    sb_adds(sb, " \\\n      io.datalayer.uid=${DL_ENVIRONMENT_UID} \\\n"
                "      io.datalayer.version=${DL_VERSION} \\\n"
                "      io.datalayer.build=${DL_BUILD_UID} \\\n"
                "      io.datalayer.lock=");
    plan_sh_quote(sb, f->in->lock_digest ? f->in->lock_digest : "");
    sb_adds(sb, " \\\n      io.datalayer.contract=");
    plan_sh_quote(sb, f->contract);
    sb_adds(sb, " \\\n      io.datalayer.size-class=");
    plan_sh_quote(sb, f->size_class);
    sb_addc(sb, '\n');
}

static bool spec_sets(const plan_facts *f, const char *key)
{
    for (size_t i = 0; i < f->env.len; i++)
        if (strcmp(((const plan_env *)f->env.items[i])->key, key) == 0)
            return true;
    return false;
}

/* The spec's variables and the variant's own (those the spec does not set),
 * one ENV each, by key. */
void plan_df_env(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    ptrvec all = PTRVEC_INIT;
    for (size_t i = 0; i < f->env.len; i++)
        ptrvec_push(&all, f->env.items[i]);
    for (size_t i = 0; i < st->n_extra_env; i++)
        if (!spec_sets(f, st->extra_env[i].key))
            ptrvec_push(&all, (void *)&st->extra_env[i]);
    sort_ptrs(&all, env_cmp);
    for (size_t i = 0; i < all.len; i++) {
        const plan_env *e = all.items[i];
        sb_addf(sb, "ENV %s=", e->key);
        plan_sh_quote(sb, e->value);
        sb_addc(sb, '\n');
    }
    ptrvec_release(&all);
}

#define APT_OPTS "-o Dir::Etc::SourceList=" PLAN_OPT "/apt-sources.list -o Dir::Etc::SourceParts=-"

void plan_apt_pins(strbuf *sb, const plan_facts *f, const char *indent,
                   void (*quote)(strbuf *sb, const char *s), const char *end)
{
    for (size_t i = 0; i < f->debs.len; i++) {
        const lock_package *p = f->debs.items[i];
        strbuf pin = STRBUF_INIT;
        sb_addf(&pin, "%s=%s", p->name, p->version);
        sb_adds(sb, indent);
        quote(sb, pin.buf);
        sb_adds(sb, end);
        sb_release(&pin);
    }
}

static void df_apt(strbuf *sb, const plan_facts *f)
{
    if (!f->debs.len)
        return;
    sb_adds(sb, "COPY apt-sources.list apt-packages.txt " PLAN_OPT "/\n"
                "RUN apt-get update " APT_OPTS " \\\n"
                " && apt-get install -y --no-install-recommends " APT_OPTS " \\\n");
    plan_apt_pins(sb, f, "      ", plan_sh_quote, " \\\n");
    sb_adds(sb, " && rm -rf /var/lib/apt/lists/*\n");
}

/* The base's protected stack on an image that is not the base (chosen by
 * plan_from_wheelhouse(), as the SBOM's components are): from the
 * wheelhouse only (no index; they have no hash in the lock), at the lock's
 * versions, without dependencies (the lock is the closure). */
static void df_wheelhouse(strbuf *sb, const plan_facts *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->pypi.len; i++)
        n += plan_from_wheelhouse(f->pypi.items[i]);
    if (!n)
        return;
    sb_adds(sb, "COPY " PLAN_WHEELHOUSE_CONTEXT " " PLAN_WHEELHOUSE "\n"
                "RUN python3 -m pip install --no-index --no-deps --no-cache-dir --find-links "
                PLAN_WHEELHOUSE " \\\n");
    for (size_t i = 0, k = 0; i < f->pypi.len; i++) {
        const lock_package *p = f->pypi.items[i];
        if (!plan_from_wheelhouse(p))
            continue;
        strbuf pin = STRBUF_INIT;
        sb_addf(&pin, "%s==%s", p->name, p->version);
        sb_adds(sb, "      ");
        plan_sh_quote(sb, pin.buf);
        sb_adds(sb, ++k < n ? " \\\n" : "\n");
        sb_release(&pin);
    }
}

static void df_python(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    sb_adds(sb, "COPY lock.txt " PLAN_OPT "/lock.txt\n"
                "COPY expected-packages.json " PLAN_OPT "/expected-packages.json\n");
    plan_df_conda(sb, f, st);
    if (st->wheelhouse)
        df_wheelhouse(sb, f);
    if (f->n_pypi_installs) {
        sb_adds(sb, "COPY requirements.txt " PLAN_OPT "/requirements.txt\nRUN ");
        bool uv_cache = st->buildkit && !st->pip;
        if (uv_cache)
            sb_adds(sb, "--mount=type=cache,target=/root/.cache/uv ");
        plan_python_cmd(sb, f, st->pip, !uv_cache);
        sb_addc(sb, '\n');
    }
    /* the environment made here is the sandbox's python from now on */
    if (f->n_conda && st->conda_create)
        sb_adds(sb, "ENV PATH=" PLAN_CONDA_PREFIX "/bin:$PATH\n");
}

static void df_npm(strbuf *sb, const plan_facts *f)
{
    if (!f->npm_registry)
        return;
    sb_adds(sb, "COPY package.json package-lock.json " PLAN_OPT "/node/\nRUN ");
    plan_npm_cmd(sb, f);
    sb_adds(sb, "\nENV NODE_PATH=" PLAN_OPT "/node/node_modules\n");
}

/* Installs run as root: env, apt, the locked Python, npm. */
void plan_df_installs(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    plan_df_env(sb, f, st);
    sb_adds(sb, "USER root\n");
    df_apt(sb, f);
    df_python(sb, f, st);
    df_npm(sb, f);
}

/* A COPY path in the plain form when nothing in it needs quoting, else the
 * JSON form (a space or quote in a path). */
static bool df_plain_path(const char *p)
{
    for (; *p; p++)
        if (!sh_safe((unsigned char)*p))
            return false;
    return true;
}

/* The switch to the sandbox user and its content directory, then the baked
 * files: the build service puts each spec.files[i] (fetched from its
 * contentRef and checked against its sha256) at files/<i> in the build
 * context; the COPY lines name only those context paths. */
void plan_df_files(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    const plan_spec *s = f->spec;
    sb_addf(sb, "USER %s\nWORKDIR " PLAN_CONTENT_DIR "\n", st->user);
    if (s->n_files)
        sb_adds(sb, "# Context files supplied by the build service from each contentRef:\n");
    for (size_t i = 0; i < s->n_files; i++) {
        const plan_file *pf = &s->files[i];
        sb_addf(sb, "#   files/%zu <- ", i);
        plan_comment_text(sb, pf->content_ref ? pf->content_ref : "");
        if (pf->sha256)
            sb_addf(sb, " (sha256 %s)", pf->sha256);
        sb_addc(sb, '\n');
    }
    for (size_t i = 0; i < s->n_files; i++) {
        const char *path = s->files[i].path ? s->files[i].path : "";
        if (df_plain_path(path)) {
            sb_addf(sb, "COPY --chown=" PLAN_USER_IDS " files/%zu %s\n", i, path);
            continue;
        }
        sb_addf(sb, "COPY --chown=" PLAN_USER_IDS " [\"files/%zu\", ", i);
        plan_json_str(sb, path);
        sb_adds(sb, "]\n");
    }
}

/* Whether a command must be written in the exec (JSON) form: the shell
 * form would be misread by the Dockerfile parser when the text starts like
 * a flag or a JSON array, holds a heredoc marker, ends in a line
 * continuation (a backslash followed by optional spaces and tabs, Docker's
 * rule, which would join the next instruction to this one), or holds a
 * control byte. */
static bool df_needs_exec_form(const char *cmd)
{
    const char *p = cmd;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strlen(cmd);
    while (n && (cmd[n - 1] == ' ' || cmd[n - 1] == '\t'))
        n--; /* Docker continues a line ending in `\` and optional blanks */
    if (*p == '-' || *p == '[' || *p == '\0' || strstr(cmd, "<<") || (n && cmd[n - 1] == '\\'))
        return true;
    for (p = cmd; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return true;
    return false;
}

void plan_secret_env_name(strbuf *sb, const char *name)
{
    if (*name >= '0' && *name <= '9')
        sb_addc(sb, '_');
    for (const char *p = name; *p; p++)
        sb_addc(sb, (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                        (*p >= '0' && *p <= '9') ? *p : '_');
}

bool plan_refuse_secret_env_names(const plan_facts *f, plan_refusal *r)
{
    const plan_spec *s = f->spec;
    bool refused = false;
    for (size_t i = 0; i < s->n_secrets && !refused; i++) {
        if (s->secrets[i].mount_as && strcmp(s->secrets[i].mount_as, "env") != 0)
            continue;
        strbuf a = STRBUF_INIT;
        plan_secret_env_name(&a, s->secrets[i].name ? s->secrets[i].name : "");
        for (size_t j = 0; j < i && !refused; j++) {
            if (s->secrets[j].mount_as && strcmp(s->secrets[j].mount_as, "env") != 0)
                continue;
            strbuf b = STRBUF_INIT;
            plan_secret_env_name(&b, s->secrets[j].name ? s->secrets[j].name : "");
            if (strcmp(a.buf, b.buf) == 0)
                refused = plan_refusal_set(r, s->secrets[i].at,
                                           "`%s` and `%s` are both exported as the shell variable "
                                           "`%s`. Rename one, or set `mountAs: file`",
                                           s->secrets[j].name, s->secrets[i].name, a.buf);
            sb_release(&b);
        }
        sb_release(&a);
    }
    return refused;
}

static void df_secret_mounts(strbuf *sb, const plan_facts *f, const char *cmd, strbuf *body)
{
    for (size_t i = 0; i < f->spec->n_secrets; i++) {
        const plan_secret *s = &f->spec->secrets[i];
        if (!plan_names_secret(cmd, s->name))
            continue;
        bool file = s->mount_as && strcmp(s->mount_as, "file") == 0;
        sb_addf(sb, " --mount=type=secret,id=%s,uid=1000,gid=100,required=true", s->id);
        if (file)
            sb_addf(sb, ",target=/run/secrets/%s", s->name);
        else {
            sb_adds(body, "export ");
            plan_secret_env_name(body, s->name);
            sb_addf(body, "=\"$(cat /run/secrets/%s)\" && ", s->id);
        }
    }
}

void plan_df_post_install(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    for (size_t i = 0; i < f->spec->n_post_install; i++) {
        const char *cmd = f->spec->post_install[i].text ? f->spec->post_install[i].text : "";
        strbuf body = STRBUF_INIT;
        sb_adds(sb, "RUN");
        if (st->buildkit) {
            sb_adds(sb, " --network=none");
            df_secret_mounts(sb, f, cmd, &body);
        }
        sb_adds(&body, cmd);
        sb_addc(sb, ' ');
        if (df_needs_exec_form(body.buf)) {
            sb_adds(sb, "[\"/bin/sh\", \"-c\", ");
            plan_json_str(sb, body.buf);
            sb_addc(sb, ']');
        } else {
            sb_adds(sb, body.buf);
        }
        sb_addc(sb, '\n');
        sb_release(&body);
    }
}

void plan_df_foreign_tail(strbuf *sb, const plan_facts *f, const plan_df_style *st)
{
    sb_adds(sb, "COPY " PLAN_DOCTOR_CONTEXT " " PLAN_DOCTOR_PATH "\n");
    sb_adds(sb, PLAN_USER_STEP);
    plan_df_files(sb, f, st);
    plan_df_post_install(sb, f, st);
    sb_adds(sb, "RUN " PLAN_DOCTOR "\n");
}

/* env -> apt -> locked Python -> npm -> files -> postInstall -> doctor. */
void plan_df_base_build(const plan_facts *f, const char *variant, const plan_df_style *st,
                        plan_files *out)
{
    strbuf sb = STRBUF_INIT;
    if (st->buildkit)
        sb_adds(&sb, "# syntax=docker/dockerfile:1.7\n");
    plan_df_header(&sb, f, variant);
    sb_adds(&sb, "FROM ");
    plan_base_image(&sb, f, variant, true);
    sb_addc(&sb, '\n');
    plan_df_labels(&sb, f);
    plan_df_installs(&sb, f, st);
    plan_df_files(&sb, f, st);
    plan_df_post_install(&sb, f, st);
    sb_adds(&sb, "RUN " PLAN_DOCTOR "\n");
    size_t len;
    char *t = sb_detach(&sb, &len);
    plan_files_add(out, "Dockerfile", t, len);
}

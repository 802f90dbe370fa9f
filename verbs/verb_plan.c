/* verb_plan.c — the public el_plan(): from a spec and its lock to the plan
 * directory of every wanted variant. It checks that the lock answers this
 * spec, takes what the plans need from the spec (plan_spec) and the bases
 * catalog, asks plan/ whether each variant can honour the spec and for its
 * files, and writes them. Nothing is written unless every required variant
 * can be built. The plans' contents are plan/'s; the spec's fields are read
 * here only to hand them over, and so is the site's mirror table (the
 * cache's, loaded from the fetch options) that maps the install steps' URLs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cache.h"
#include "envlock/plan.h"
#include "plan.h"
#include "spec_internal.h"
#include "base.h"
#include "verbs_internal.h"

static const char *const ALL_VARIANTS[] = { "datalayer", "e2b", "daytona", "modal", NULL };

/* Every name a plan directory can hold (plan/README.md): only these, and
 * only as the last plan's manifest lists them, are removed when a new plan
 * leaves them out. */
static const char *const PLAN_FILE_NAMES[] = {
    "Dockerfile", "e2b.Dockerfile", "template.json", "modal_image.py", "lock.txt",
    "requirements.txt", "apt-packages.txt", "apt-sources.list", "package.json",
    "package-lock.json", "expected-packages.json", "sbom.cdx.json", "conda-explicit.txt", NULL
};

void el_plan_result_clear(el_plan_result *res)
{
    if (!res)
        return;
    free(res->out_dir);
    for (size_t i = 0; i < res->n_variants; i++)
        free(res->variants[i]);
    free(res->variants);
    for (size_t i = 0; i < res->n_dropped; i++) {
        free(res->dropped[i].variant);
        free(res->dropped[i].reason);
        free(res->dropped[i].field);
    }
    free(res->dropped);
    for (size_t i = 0; i < res->n_files; i++) {
        free(res->files[i].variant);
        free(res->files[i].path);
    }
    free(res->files);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

/* ---- the spec's facts, for plan/ ---- */

static json_object *jat(json_object *o, const char *dotted)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", dotted);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
        if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &o))
            return NULL;
    return o;
}

static const char *jstr(json_object *o, const char *dotted)
{
    json_object *v = jat(o, dotted);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Where `field` was written; a recipe's refusal names the recipe's own
 * field (`baseImage`), never an Environment one the user did not write. */
static plan_pos pos_of(arena *mem, const el_spec *spec, const char *field)
{
    const char *written = el_spec_recipe_field(spec, field);
    plan_pos p = { arena_strdup(mem, written ? written : field), 0, 0 };
    el_spec_locate(spec, field, &p.line, &p.column);
    return p;
}

static plan_pos pos_fmt(arena *mem, const el_spec *spec, const char *list, size_t i)
{
    char field[160];
    snprintf(field, sizeof field, "%s[%zu]", list, i);
    return pos_of(mem, spec, field);
}

static const char *const *strings(arena *mem, json_object *a)
{
    size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    const char **v = arena_alloc(mem, (n + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        if (json_object_is_type(e, json_type_string))
            v[k++] = arena_strdup(mem, json_object_get_string(e));
    }
    v[k] = NULL;
    return v;
}

static void take_env(arena *mem, const el_spec *spec, json_object *doc, plan_spec *ps)
{
    json_object *env = jat(doc, "spec.env");
    if (!env || !json_object_is_type(env, json_type_object))
        return;
    ps->env = arena_alloc(mem, (json_object_object_length(env) + 1) * sizeof *ps->env);
    json_object_object_foreach(env, key, val)
    {
        char field[300];
        snprintf(field, sizeof field, "spec.env.%s", key);
        ps->env[ps->n_env++] = (plan_env){ arena_strdup(mem, key),
                                           arena_strdup(mem, json_object_get_string(val)),
                                           pos_of(mem, spec, field) };
    }
}

static void take_files(arena *mem, const el_spec *spec, json_object *doc, plan_spec *ps)
{
    json_object *a = jat(doc, "spec.files");
    size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    ps->files = arena_alloc(mem, (n + 1) * sizeof *ps->files);
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(a, i), *size = jat(f, "sizeBytes");
        const char *sha = jstr(f, "sha256");
        ps->files[ps->n_files++] = (plan_file){
            arena_strdup(mem, jstr(f, "path")), arena_strdup(mem, jstr(f, "contentRef")),
            sha ? arena_strdup(mem, sha) : NULL,
            size && json_object_is_type(size, json_type_int) ? json_object_get_int64(size) : -1,
            pos_fmt(mem, spec, "spec.files", i)
        };
    }
}

static void take_commands(arena *mem, const el_spec *spec, json_object *doc, plan_spec *ps)
{
    json_object *a = jat(doc, "spec.commands.postInstall");
    size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    ps->post_install = arena_alloc(mem, (n + 1) * sizeof *ps->post_install);
    for (size_t i = 0; i < n; i++)
        ps->post_install[ps->n_post_install++] = (plan_command){
            arena_strdup(mem, json_object_get_string(json_object_array_get_idx(a, i))),
            pos_fmt(mem, spec, "spec.commands.postInstall", i)
        };
}

static void take_secrets(arena *mem, const el_spec *spec, json_object *doc, plan_spec *ps)
{
    json_object *a = jat(doc, "spec.buildSecrets");
    size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    ps->secrets = arena_alloc(mem, (n + 1) * sizeof *ps->secrets);
    ps->secrets_at = pos_of(mem, spec, n ? "spec.buildSecrets[0]" : "spec.buildSecrets");
    ps->secrets_at.field = "spec.buildSecrets";
    for (size_t i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx(a, i);
        ps->secrets[ps->n_secrets++] = (plan_secret){
            arena_strdup(mem, jstr(s, "id")), arena_strdup(mem, jstr(s, "mountAs")),
            arena_strdup(mem, jstr(s, "name")), pos_fmt(mem, spec, "spec.buildSecrets", i)
        };
    }
}

/* The plan_spec of a valid spec, in `mem`. */
static plan_spec *take_spec(arena *mem, const el_spec *spec)
{
    json_object *doc = (json_object *)spec_document(spec);
    plan_spec *ps = arena_alloc(mem, sizeof *ps);
    memset(ps, 0, sizeof *ps);
    ps->name = el_spec_name(spec);
    ps->contract = jstr(doc, "spec.contract");
    ps->manager = jstr(doc, "spec.packages.python.manager");
    ps->manager_at = pos_of(mem, spec, "spec.packages.python.manager");
    ps->build_source = jstr(doc, "spec.build.source");
    ps->build_format = jstr(doc, "spec.build.dependencyFile.sourceFormat");
    ps->build_image = jstr(doc, "spec.build.image.reference");
    ps->build_source_at = pos_of(mem, spec, "spec.build.source");
    ps->architecture = jstr(doc, "spec.platform.architecture");
    ps->architecture_at = pos_of(mem, spec, "spec.platform.architecture");
    ps->size_class = jstr(doc, "spec.resources.sizeClass");
    ps->size_class_at = pos_of(mem, spec, "spec.resources.sizeClass");
    json_object *acc = jat(doc, "spec.resources.accelerator");
    ps->accelerator = acc && !(json_object_is_type(acc, json_type_string) &&
                               strcmp(json_object_get_string(acc), "none") == 0);
    ps->accelerator_at = pos_of(mem, spec, "spec.resources.accelerator");
    ps->variants_at = pos_of(mem, spec, "spec.compatibility.variants");
    ps->channel_at = pos_of(mem, spec, "spec.base.channel");
    json_object *regions = jat(doc, "spec.compatibility.regions");
    ps->regions = strings(mem, regions);
    ps->regions_at = pos_of(mem, spec, "spec.compatibility.regions");
    ps->python_constraints = strings(mem, jat(doc, "spec.packages.python.constraints"));
    take_env(mem, spec, doc, ps);
    take_files(mem, spec, doc, ps);
    take_commands(mem, spec, doc, ps);
    take_secrets(mem, spec, doc, ps);
    return ps;
}

/* ---- which variants, and which of them may be dropped ---- */

typedef struct wanted {
    const char *name;
    bool required;   /* a refusal fails the plan rather than dropping the variant */
} wanted;

static bool in_list(const char *const *v, const char *s)
{
    for (; v && *v; v++)
        if (strcmp(*v, s) == 0)
            return true;
    return false;
}

static void want_add(wanted *w, size_t *n, const char *name, bool required)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(w[i].name, name) == 0) {
            w[i].required |= required;
            return;
        }
    w[(*n)++] = (wanted){ name, required };
}

/* The variants asked for: by name (each required: a build stage that asks
 * for a variant wants it built or a failure, whatever the spec says of it),
 * "all" (each as the spec classes it; one the spec does not list is
 * optional), or the spec's required and optional lists. EL_USAGE for an
 * unknown name. */
static el_code wanted_variants(el_ctx *ctx, arena *mem, const el_spec *spec,
                               const el_plan_options *o, wanted *w, size_t *n)
{
    json_object *doc = (json_object *)spec_document(spec);
    const char *const *req = strings(mem, jat(doc, "spec.compatibility.variants.required"));
    *n = 0;
    if (!o->n_variants) {
        const char *const *opt = strings(mem, jat(doc, "spec.compatibility.variants.optional"));
        for (size_t i = 0; req[i]; i++)
            want_add(w, n, req[i], true);
        for (size_t i = 0; opt[i]; i++)
            want_add(w, n, opt[i], false);
        return EL_OK;
    }
    for (size_t i = 0; i < o->n_variants; i++) {
        const char *v = o->variants[i];
        if (strcmp(v, "all") == 0) {
            for (size_t k = 0; ALL_VARIANTS[k]; k++)
                want_add(w, n, ALL_VARIANTS[k], in_list(req, ALL_VARIANTS[k]));
        } else if (plan_variant_known(v)) {
            want_add(w, n, v, true);
        } else {
            el_code rc = el_fail(ctx, EL_USAGE, "`%s` is not a variant; the variants are "
                                                "datalayer, e2b, daytona, modal, all", v);
            el_detail_str(ctx, "option", "--variant");
            return rc;
        }
    }
    return EL_OK;
}

/* ---- the run ---- */

typedef struct plan_run {
    arena *mem;
    lock_doc *lock;
    char lock_digest[EL_DIGEST_SIZE];
    const target_catalog *cat; /* own, or the caller's */
    target_catalog *own_cat;
    const target_base *base;
    cache_mirrors *mirrors;    /* NULL: no fetch options given */
    plan_input in;
} plan_run;

static el_code lock_answers_spec(el_ctx *ctx, const plan_run *r, const char *lock_path,
                                 const char *spec_digest)
{
    if (r->lock->spec_digest && strcmp(r->lock->spec_digest, spec_digest) == 0)
        return EL_OK;
    el_code rc = el_fail(ctx, EL_SPEC_INVALID,
                         "the lock %s was resolved from another spec (its specDigest is %s, the "
                         "spec's digest is %s): run `envlock resolve` again before planning",
                         lock_path, r->lock->spec_digest ? r->lock->spec_digest : "(none)",
                         spec_digest);
    el_detail_str(ctx, "reason", "lock_stale");
    el_detail_str(ctx, "path", lock_path);
    el_detail_str(ctx, "lockSpecDigest", r->lock->spec_digest ? r->lock->spec_digest : "");
    el_detail_str(ctx, "specDigest", spec_digest);
    return rc;
}

/* What the catalog adds to the lock: the base's repository, minor Python,
 * apt snapshot and protected pins, and the digest its `images:` entry for
 * E2B's image gives (the e2b plan's FROM; none is no error). */
static el_code take_base(el_ctx *ctx, plan_run *r, const el_plan_options *o)
{
    if (!(r->cat = verbs_catalog(ctx, o->bases, o->bases_path, &r->own_cat)))
        return el_ctx_code(ctx);
    const target_base *b = target_catalog_find(ctx, r->cat, r->lock->base_ref,
                                               r->lock->base_channel);
    if (!b)
        return el_ctx_code(ctx);
    r->base = b;
    r->in.python_minor = b->python_minor;
    r->in.base_repository = b->repository;
    r->in.apt_snapshot = b->apt_snapshot;
    r->in.base_cuda = b->cuda;
    r->in.protected_pins = b->protected_pins;
    /* E2B's image, not the base: only its own entry's digest pins it */
    const target_base *e2b = target_catalog_image(r->cat, PLAN_E2B_IMAGE);
    r->in.e2b_image_digest = e2b ? e2b->image_digest : NULL;
    return EL_OK;
}

/* plan/ fetches nothing and knows no cache: it gets the mirror mapping as a
 * function of the cache's table. A mirror's credentials (`user:password@`)
 * never reach a plan: every file of it is build context or image layer,
 * readable by whoever gets the image. The installers take them from netrc
 * (pip, apt's auth.conf) or .npmrc, given to the build as a secret
 * (docs/plans.md). */
static char *map_url(const void *user, const char *url)
{
    char *m = cache_mirrors_rewrite(user, url);
    if (!m)
        return NULL;
    char *bare = cache_url_redact(m);
    free(m);
    return bare;
}

/* A plan's install steps run in the builder, which cannot read a path of
 * the machine that planned: a file:// mirror (good for resolving from a
 * local copy) would name one there. Refused before anything is written. */
static el_code mirrors_builder_reachable(el_ctx *ctx, const cache_mirrors *m)
{
    for (size_t i = 0; i < cache_mirrors_count(m); i++) {
        const char *t = cache_mirrors_target(m, i);
        if (strncasecmp(t, "file:", 5) != 0)
            continue;
        el_code rc = el_fail(ctx, EL_USAGE,
                             "plan --mirror `%s=%s`: a plan's install steps run in the "
                             "builder, which cannot read this machine's file:// paths; give "
                             "the http:// or https:// URL the builder reaches that copy at",
                             cache_mirrors_canonical(m, i), t);
        el_detail_str(ctx, "reason", "plan_mirror_file");
        el_detail_str(ctx, "mirror", t);
        return rc;
    }
    return EL_OK;
}

static el_code plan_prepare(el_ctx *ctx, plan_run *r, const el_spec *spec, const char *lock_path,
                            const el_plan_options *o, el_plan_result *res)
{
    el_code rc = el_spec_digest(ctx, spec, res->spec_digest);
    if (rc != EL_OK)
        return rc;
    if (o->cache && !(r->mirrors = cache_mirrors_load(ctx, o->cache)))
        return el_ctx_code(ctx);
    if ((rc = mirrors_builder_reachable(ctx, r->mirrors)) != EL_OK)
        return rc;
    if (!(r->lock = verbs_lock_read(ctx, lock_path, r->lock_digest)))
        return el_ctx_code(ctx);
    if ((rc = lock_validate(ctx, r->lock)) != EL_OK)
        return rc;
    snprintf(res->lock_digest, sizeof res->lock_digest, "%s", r->lock_digest);
    if ((rc = lock_answers_spec(ctx, r, lock_path, res->spec_digest)) != EL_OK)
        return rc;
    if ((rc = take_base(ctx, r, o)) != EL_OK)
        return rc;
    r->in.lock = r->lock;
    r->in.lock_digest = r->lock_digest;
    r->in.spec = take_spec(r->mem, spec);
    r->in.base_registry = o->base_registry;
    if (r->mirrors) {
        r->in.map_url = map_url;
        r->in.map_url_user = r->mirrors;
    }
    return EL_OK;
}

static const char *lock_digest_for(const lock_doc *lock, const char *variant)
{
    for (size_t i = 0; lock->variants && lock->variants[i]; i++)
        if (strcmp(lock->variants[i], variant) == 0)
            return lock->base_digests ? lock->base_digests[i] : NULL;
    return NULL;
}

static bool catalog_publishes(const target_base *b, const char *variant)
{
    for (size_t i = 0; i < b->n_variants; i++)
        if (strcmp(b->variants[i], variant) == 0)
            return b->digests[i] != NULL;
    return false;
}

/* The lock holds no base image for `variant`: either the spec does not
 * list it (the lock was not resolved for it), or the channel has no image
 * for it yet. */
static void no_image(const plan_run *r, const char *variant, plan_refusal *why, el_code *code)
{
    if (catalog_publishes(r->base, variant)) {
        why->message = xasprintf("`%s` is not one of the spec's variants, so the lock was not "
                                 "resolved for it: add it to the required or optional variants "
                                 "and resolve again",
                                 variant);
        why->at = r->in.spec->variants_at;
        *code = EL_SPEC_INVALID;
        return;
    }
    why->message = xasprintf("`%s:%s` has no published base image for the %s variant; it can "
                             "be planned once the channel is pushed and the spec resolved again",
                             r->base->ref, r->base->channel, variant);
    why->at = (plan_pos){ "spec.base.channel", 0, 0 };
    *code = EL_ARTIFACT_MISSING;
}

static bool lock_has_variant(const lock_doc *lock, const char *variant)
{
    for (size_t i = 0; lock->variants && lock->variants[i]; i++)
        if (strcmp(lock->variants[i], variant) == 0)
            return true;
    return false;
}

/* Why `variant` cannot be built from this lock and spec: plan/ refuses the
 * spec (first when the variant builds on an image, which has no base image
 * in the lock, or the spec is on an image and the lock was not resolved
 * for the variant: the image is the reason, not the missing base), the
 * lock has no base image for it. false if it can. */
static bool cannot_build(const plan_run *r, const char *variant, plan_refusal *why, el_code *code)
{
    memset(why, 0, sizeof *why);
    bool on_image = plan_variant_image(r->lock, variant) != NULL;
    const char *source = r->in.spec->build_source;
    bool spec_on_image = source && strcmp(source, "image") == 0;
    if (on_image || (spec_on_image && !lock_has_variant(r->lock, variant))) {
        *code = EL_CAPABILITY_UNSUPPORTED;
        if (plan_refuse(&r->in, variant, why))
            return true;
    }
    if (!on_image && !lock_digest_for(r->lock, variant)) {
        no_image(r, variant, why, code);
        return true;
    }
    *code = EL_CAPABILITY_UNSUPPORTED;
    return plan_refuse(&r->in, variant, why);
}

static el_code refuse_required(el_ctx *ctx, const char *variant, const plan_refusal *why,
                               el_code code)
{
    el_code rc = el_fail(ctx, code, "%s: %s", why->at.field ? why->at.field : variant,
                         why->message);
    el_detail_str(ctx, "variant", variant);
    if (why->at.field)
        el_detail_str(ctx, "field", why->at.field);
    if (why->at.line) {
        el_detail_int(ctx, "line", why->at.line);
        el_detail_int(ctx, "column", why->at.column);
    }
    if (code == EL_ARTIFACT_MISSING)
        el_detail_str(ctx, "reason", "base_channel_unpublished");
    return rc;
}

static void add_dropped(el_plan_result *res, const char *variant, const plan_refusal *why)
{
    res->dropped = xrealloc(res->dropped, (res->n_dropped + 1) * sizeof *res->dropped);
    res->dropped[res->n_dropped++] = (el_plan_dropped){
        xstrdup(variant), xstrdup(why->message), xstrdup(why->at.field ? why->at.field : ""),
        why->at.line, why->at.column
    };
}

/* Sorts the wanted variants into those to build (`build`, in order) and
 * dropped ones (res->dropped); a required one that cannot be built is the
 * error, before anything is written. */
static el_code choose(el_ctx *ctx, const plan_run *r, const wanted *w, size_t n,
                      const char **build, size_t *n_build, el_plan_result *res)
{
    *n_build = 0;
    for (size_t i = 0; i < n; i++) {
        plan_refusal why;
        el_code code;
        if (!cannot_build(r, w[i].name, &why, &code)) {
            build[(*n_build)++] = w[i].name;
            continue;
        }
        el_code rc = EL_OK;
        if (w[i].required)
            rc = refuse_required(ctx, w[i].name, &why, code);
        else
            add_dropped(res, w[i].name, &why);
        plan_refusal_clear(&why);
        if (rc != EL_OK)
            return rc;
    }
    return EL_OK;
}

/* ---- writing ---- */

static el_code io_fail(el_ctx *ctx, const char *what, const char *path, int err)
{
    el_code rc = el_fail_io(ctx, err, "cannot write the plan `%s`: %s: %s", path, what,
                            strerror(err));
    el_detail_str(ctx, "reason", "plan_write_failed");
    el_detail_str(ctx, "path", path);
    return rc;
}

static el_code make_dir(el_ctx *ctx, const char *path)
{
    int err = file_mkdirs(path);
    return err ? io_fail(ctx, "creating the directory", path, err) : EL_OK;
}

static bool written(const plan_files *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].name, name) == 0)
            return true;
    return false;
}

/* The manifest of what the last plan wrote in a variant's directory: one
 * "<sha256 hex>  <name>" line per file (sha256sum's format). A later plan
 * removes a file only when that manifest lists it and the file still holds
 * those bytes (after a first comment line naming the lock): a file of the user's that only shares a plan file's name
 * (their own package.json) is never touched, nor one they edited. */
#define PLAN_MANIFEST ".envlock-plan"

static el_code write_one(el_ctx *ctx, const char *variant, const char *dir,
                         const plan_out_file *f, el_plan_result *res);

static bool plan_name(const char *name)
{
    for (size_t i = 0; PLAN_FILE_NAMES[i]; i++)
        if (strcmp(PLAN_FILE_NAMES[i], name) == 0)
            return true;
    return false;
}

/* A plan file of an earlier plan that this one no longer has (the lock
 * lost its npm packages, say) would mislead a builder: remove it, when the
 * earlier plan's manifest lists it with the bytes it still holds. */
static el_code remove_stale(el_ctx *ctx, const char *dir, const plan_files *f)
{
    char *mpath = xasprintf("%s/" PLAN_MANIFEST, dir);
    size_t len = 0;
    char *text = read_file(mpath, 64 * 1024, &len);
    free(mpath);
    el_code rc = EL_OK;
    for (char *save = NULL, *ln = text ? strtok_r(text, "\n", &save) : NULL; ln && rc == EL_OK;
         ln = strtok_r(NULL, "\n", &save)) {
        const char *name = strlen(ln) > 66 && ln[64] == ' ' && ln[65] == ' ' ? ln + 66 : "";
        if (!plan_name(name) || written(f, name))
            continue;
        ln[64] = '\0';
        char *path = xasprintf("%s/%s", dir, name), hex[65];
        uint64_t size;
        if (file_sha256(path, hex, &size) == 0 && strcmp(hex, ln) == 0 && unlink(path) != 0 &&
            errno != ENOENT)
            rc = io_fail(ctx, "removing a stale plan file", path, errno);
        free(path);
    }
    free(text);
    return rc;
}

static el_code write_manifest(el_ctx *ctx, const char *variant, const char *dir,
                              const plan_files *f, const char *lock_digest, el_plan_result *res)
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "# The files envlock wrote here from lock %s\n", lock_digest);
    for (size_t i = 0; i < f->n; i++) {
        char hex[65];
        sha256_hex(f->v[i].data, f->v[i].len, hex);
        sb_addf(&sb, "%s  %s\n", hex, f->v[i].name);
    }
    char name[] = PLAN_MANIFEST;
    plan_out_file m = { name, sb.buf, sb.len };
    el_code rc = write_one(ctx, variant, dir, &m, res);
    sb_release(&sb);
    return rc;
}

/* The variant's directory, made if missing; a symbolic link there is
 * refused, since writing and removing through it would reach files of
 * whatever directory it points to. */
static el_code variant_dir(el_ctx *ctx, const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        el_code rc = el_fail(ctx, EL_IO, "cannot write the plan `%s`: it is a symbolic link; "
                             "a plan writes only into a directory of its own", dir);
        el_detail_str(ctx, "reason", "plan_write_failed");
        el_detail_str(ctx, "path", dir);
        return rc;
    }
    return make_dir(ctx, dir);
}

static el_code write_one(el_ctx *ctx, const char *variant, const char *dir,
                         const plan_out_file *f, el_plan_result *res)
{
    char *path = xasprintf("%s/%s", dir, f->name);
    const char *step = NULL;
    int err = file_holds(path, f->data, f->len) ? 0 : file_write_atomic(path, f->data, f->len, &step);
    if (err) {
        el_code rc = io_fail(ctx, step, path, err);
        free(path);
        return rc;
    }
    res->files = xrealloc(res->files, (res->n_files + 1) * sizeof *res->files);
    el_plan_file *pf = &res->files[res->n_files++];
    memset(pf, 0, sizeof *pf);
    pf->variant = xstrdup(variant);
    pf->path = path;
    pf->size = f->len;
    char hex[65];
    sha256_hex(f->data, f->len, hex);
    snprintf(pf->sha256, sizeof pf->sha256, "sha256:%s", hex);
    return EL_OK;
}

static el_code write_variant(el_ctx *ctx, const plan_run *r, const char *variant,
                             el_plan_result *res)
{
    plan_files f = { 0 };
    plan_variant(&r->in, variant, &f);
    char *dir = xasprintf("%s/%s", res->out_dir, variant);
    el_code rc = variant_dir(ctx, dir);
    for (size_t i = 0; rc == EL_OK && i < f.n; i++)
        rc = write_one(ctx, variant, dir, &f.v[i], res);
    if (rc == EL_OK)
        rc = remove_stale(ctx, dir, &f);
    if (rc == EL_OK)
        rc = write_manifest(ctx, variant, dir, &f, r->lock_digest, res);
    if (rc == EL_OK) {
        res->variants = xrealloc(res->variants, (res->n_variants + 1) * sizeof *res->variants);
        res->variants[res->n_variants++] = xstrdup(variant);
        char *note = plan_note(&r->in, variant);
        if (note) {
            res->notes = xrealloc(res->notes, (res->n_notes + 1) * sizeof *res->notes);
            res->notes[res->n_notes++] = note;
        }
    }
    free(dir);
    plan_files_release(&f);
    return rc;
}

el_code el_plan(el_ctx *ctx, const el_spec *spec, const char *lock_path,
                const el_plan_options *o, el_plan_result *res)
{
    static const el_plan_options none = { 0 };
    if (!o)
        o = &none;
    memset(res, 0, sizeof *res);
    el_code rc = el_spec_validate(ctx, spec);
    if (rc != EL_OK)
        return rc;
    if (o->out_dir && !*o->out_dir) {
        rc = el_fail(ctx, EL_USAGE, "-o needs a directory name, not an empty string");
        el_detail_str(ctx, "option", "-o");
        return rc;
    }
    plan_run r = { .mem = arena_new() };
    wanted w[8];
    size_t n_w = 0, n_build = 0;
    const char *build[8];
    if ((rc = wanted_variants(ctx, r.mem, spec, o, w, &n_w)) == EL_OK &&
        (rc = plan_prepare(ctx, &r, spec, lock_path, o, res)) == EL_OK &&
        (rc = choose(ctx, &r, w, n_w, build, &n_build, res)) == EL_OK) {
        res->out_dir = o->out_dir ? xstrdup(o->out_dir) : verbs_beside(lock_path, "plan");
        rc = make_dir(ctx, res->out_dir);
        for (size_t i = 0; rc == EL_OK && i < n_build; i++)
            rc = write_variant(ctx, &r, build[i], res);
    }
    lock_doc_free(r.lock);
    cache_mirrors_free(r.mirrors);
    target_catalog_free(r.own_cat);
    arena_free(r.mem);
    return rc;
}

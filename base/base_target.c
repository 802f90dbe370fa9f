/* base_target.c — the approved bases catalog: reads corpus/bases/bases.yaml (or
 * --bases FILE / $ENVLOCK_BASES) with the spec module's positioned YAML
 * reader, checks every field, and answers "which base is R:C, and what is
 * its digest for variant V" with the reference's codes and messages. It owns
 * nothing about solving: the resolver gets a finished target_base.
 *
 * Catalog format (documented in corpus/bases/README.md):
 *   format: envlock-bases/1
 *   variants: [datalayer, e2b, daytona, modal]
 *   bases:
 *     <ref>:
 *       cuda: false
 *       cudaVersion: "12.8"          (optional, with cuda: true: what an accelerator's cuda matches)
 *       python: "3.13"               (what specs must name as language.version)
 *       repository: environments/base/<name>   (optional; that is the default)
 *       channels:
 *         "<channel>":
 *           python: 3.13.7  arch: amd64  libc: glibc 2.36
 *           platform: manylinux_2_36_x86_64
 *           digests: { <variant>: sha256:<64 hex>, ... }   (absent = unpublished)
 *           apt: { snapshot, keyring, sources: [one-line sources] }
 *           dpkgStatus: <file>  preinstalled: [name==version]  protected: [requirement]
 *           node: 20.19.0   (optional: the image's node, for npm's engines.node preference)
 *   images:                        (optional; the images a build.source `image` names)
 *     "<reference>":               (normalized: python:3.11-slim)
 *       python: 3.11.14  arch: amd64  libc: glibc 2.36  platform: manylinux_2_36_x86_64
 *       digest: sha256:<64 hex>    (optional)
 *       apt: {...}  dpkgStatus: <file>  preinstalled: [name==version]
 * Relative file names are relative to the catalog's directory. */
#define _GNU_SOURCE /* dladdr(): where this library was loaded from */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec_internal.h"
#include "pep508.h"
#include "base.h"

/* Where the catalog is installed, relative to the directory holding the
 * library: lib/libenvlock.so and share/envlock/bases/bases.yaml under one
 * prefix (CMakeLists.txt installs it so, and the build tree is laid out the
 * same way). */
#define CATALOG_FROM_LIBDIR "../share/envlock/bases/bases.yaml"

#define CATALOG_FORMAT "envlock-bases/1"
#define CATALOG_MAX_BYTES (1024 * 1024)
/* How the catalog names itself in its failures (spec_document_fail()). */
#define CATALOG_KIND "bases catalog"
#define CATALOG_REASON "invalid_catalog"

struct target_catalog {
    arena *mem;
    const char *path;
    const char *dir;          /* directory of path, for relative names */
    target_base *bases;       /* one per (ref, channel), in catalog order */
    size_t n_bases;
    const char **refs;        /* distinct refs, catalog order */
    size_t n_refs;
    const char **variants;    /* the catalog's variant names */
    size_t n_variants;
    target_base *images;      /* the `images:` entries, catalog order */
    size_t n_images;
};

/* ---- reporting ---- */

typedef struct loader {
    el_ctx *ctx;
    target_catalog *cat;
    bool failed;
} loader;

/* Records the first problem only: one bad field is enough to refuse the
 * catalog, and the first is the one to fix. */
static void bad(loader *L, const spec_node *at, const char *field, const char *fmt, ...)
    EL_PRINTF(4, 5);
static void bad(loader *L, const spec_node *at, const char *field, const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    spec_document_fail(L->ctx, EL_SPEC_INVALID, CATALOG_KIND, L->cat->path, at ? at->line : 0,
                       at ? at->column : 0, field, CATALOG_REASON, msg);
    free(msg);
}

static const char *field_of(loader *L, const char *parent, const char *key)
{
    return arena_sprintf(L->cat->mem, "%s.%s", parent, key);
}

/* ---- typed reads ---- */

static const char *str_of(loader *L, const spec_node *n, const char *field)
{
    if (!n || n->kind == SN_SEQ || n->kind == SN_MAP || n->kind == SN_NULL) {
        bad(L, n, field, "should be a string");
        return NULL;
    }
    if (strlen(n->text) != n->text_len || n->text_len == 0) {
        bad(L, n, field, "should be a non-empty string without NUL characters");
        return NULL;
    }
    return arena_strdup(L->cat->mem, n->text);
}

/* A NULL-terminated array of the strings of a sequence (an empty sequence
 * gives an array holding only NULL). */
static const char **strs_of(loader *L, const spec_node *n, const char *field, size_t *count)
{
    if (count)
        *count = 0;
    if (!n || n->kind != SN_SEQ) {
        bad(L, n, field, "should be a list of strings");
        return NULL;
    }
    const char **out = arena_alloc(L->cat->mem, (n->n + 1) * sizeof *out);
    for (size_t i = 0; i < n->n; i++) {
        char *f = arena_sprintf(L->cat->mem, "%s[%zu]", field, i);
        if (!(out[i] = str_of(L, n->items[i], f)))
            return NULL;
    }
    if (count)
        *count = n->n;
    return out;
}

/* Every key of `map` must be one of `allowed` (NULL-terminated). */
static bool keys_known(loader *L, const spec_node *map, const char *field,
                       const char *const *allowed)
{
    for (size_t k = 0; k < map->n; k++) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(map->keys[k]->text, *a) == 0;
        if (!ok) {
            strbuf sb = STRBUF_INIT;
            for (const char *const *a = allowed; *a; a++)
                sb_addf(&sb, "%s%s", a == allowed ? "" : ", ", *a);
            bad(L, map->keys[k], field_of(L, field, map->keys[k]->text),
                "is not a catalog key here; known: %s", sb.buf);
            sb_release(&sb);
            return false;
        }
    }
    return true;
}

static const spec_node *need(loader *L, const spec_node *map, const char *key, const char *field)
{
    const spec_node *n = spec_node_get(map, key);
    if (!n)
        bad(L, map, field_of(L, field, key), "is required");
    return n;
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "X.Y.Z" with decimal numbers and nothing else. */
static bool full_python(const char *s)
{
    int dots = 0;
    size_t run = 0;
    for (const char *p = s;; p++) {
        if (isdigit((unsigned char)*p)) {
            run++;
        } else if (*p == '.' || *p == '\0') {
            if (run == 0)
                return false;
            run = 0;
            if (*p == '\0')
                break;
            dots++;
        } else {
            return false;
        }
    }
    return dots == 2;
}

static bool is_digest(const char *s)
{
    if (strncmp(s, "sha256:", 7) != 0 || strlen(s) != 71)
        return false;
    for (const char *p = s + 7; *p; p++)
        if (!(isdigit((unsigned char)*p) || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

static bool is_snapshot(const char *s)
{
    return strlen(s) == 16 && all_digits(s, 8) && s[8] == 'T' && all_digits(s + 9, 6) &&
           s[15] == 'Z';
}

static const char *path_in(loader *L, const char *name)
{
    if (name[0] == '/')
        return name;
    return arena_sprintf(L->cat->mem, "%s/%s", L->cat->dir, name);
}

static const char *readable_file(loader *L, const spec_node *n, const char *field)
{
    const char *s = str_of(L, n, field);
    if (!s)
        return NULL;
    const char *p = path_in(L, s);
    if (access(p, R_OK) != 0) {
        bad(L, n, field, "`%s` cannot be read: %s", p, strerror(errno));
        return NULL;
    }
    return p;
}

/* ---- one channel ---- */

static void read_apt(loader *L, const spec_node *apt, const char *field, target_base *b)
{
    static const char *const keys[] = { "snapshot", "keyring", "sources", NULL };
    if (apt->kind != SN_MAP) {
        bad(L, apt, field, "should be a mapping");
        return;
    }
    if (!keys_known(L, apt, field, keys))
        return;
    const spec_node *n;
    if ((n = spec_node_get(apt, "snapshot"))) {
        const char *f = field_of(L, field, "snapshot");
        if ((b->apt_snapshot = str_of(L, n, f)) && !is_snapshot(b->apt_snapshot))
            bad(L, n, f, "`%s` is not a snapshot id (YYYYMMDDTHHMMSSZ)", b->apt_snapshot);
    }
    if ((n = spec_node_get(apt, "keyring")))
        b->apt_keyring = readable_file(L, n, field_of(L, field, "keyring"));
    if ((n = need(L, apt, "sources", field))) {
        const char *f = field_of(L, field, "sources");
        size_t count = 0;
        b->apt_sources = strs_of(L, n, f, &count);
        for (size_t i = 0; b->apt_sources && i < count; i++)
            if (strncmp(b->apt_sources[i], "deb ", 4) != 0)
                bad(L, n->items[i], arena_sprintf(L->cat->mem, "%s[%zu]", f, i),
                    "`%s` is not a one-line `deb URI SUITE COMPONENT...` source",
                    b->apt_sources[i]);
    }
}

/* A list of requirement lines; with `exact`, each must be `name==version`. */
static const char *const *read_requirements(loader *L, const spec_node *n, const char *field,
                                            bool exact)
{
    size_t count = 0;
    const char **lines = strs_of(L, n, field, &count);
    for (size_t i = 0; lines && i < count && !L->failed; i++) {
        const char *f = arena_sprintf(L->cat->mem, "%s[%zu]", field, i);
        char *err = NULL;
        pypi_requirement *r = pypi_requirement_parse(lines[i], &err);
        if (!r) {
            bad(L, n->items[i], f, "`%s` is not a requirement: %s", lines[i], err ? err : "");
        } else if (exact && (pypi_specset_len(r->specset) != 1 ||
                             strcmp(pypi_specset_op(r->specset, 0), "==") != 0 || r->url ||
                             r->marker || r->nextras)) {
            bad(L, n->items[i], f, "`%s` should be `name==version`", lines[i]);
        }
        free(err);
        pypi_requirement_free(r);
    }
    return L->failed ? NULL : lines;
}

/* A channel's target: its full Python (of the base's minor), Debian
 * architecture, libc and wheel platform tag. */
static void read_target_fields(loader *L, const spec_node *ch, const char *field, target_base *b)
{
    const spec_node *n;
    if ((n = need(L, ch, "python", field))) {
        const char *f = field_of(L, field, "python");
        if ((b->python_version = str_of(L, n, f)) && !full_python(b->python_version))
            bad(L, n, f, "`%s` is not a full Python version (X.Y.Z)", b->python_version);
        else if (b->python_version &&
                 (strncmp(b->python_version, b->python_minor, strlen(b->python_minor)) != 0 ||
                  b->python_version[strlen(b->python_minor)] != '.'))
            bad(L, n, f, "`%s` is not a %s release, which the base provides", b->python_version,
                b->python_minor);
    }
    if ((n = need(L, ch, "arch", field))) {
        const char *f = field_of(L, field, "arch");
        if ((b->arch = str_of(L, n, f)) && strcmp(b->arch, "amd64") != 0 &&
            strcmp(b->arch, "arm64") != 0)
            bad(L, n, f, "`%s` is not a Debian architecture envlock targets (amd64, arm64)",
                b->arch);
    }
    if ((n = need(L, ch, "libc", field)))
        b->libc = str_of(L, n, field_of(L, field, "libc"));
    if ((n = need(L, ch, "platform", field))) {
        const char *f = field_of(L, field, "platform");
        if ((b->platform = str_of(L, n, f)) && strncmp(b->platform, "manylinux_", 10) != 0 &&
            strncmp(b->platform, "musllinux_", 10) != 0)
            bad(L, n, f, "`%s` is not a manylinux_X_Y_ARCH or musllinux_X_Y_ARCH tag",
                b->platform);
    }
}

/* The channel's digest of each catalog variant; false when `digests` is
 * no mapping or names a variant the catalog lacks. */
static bool read_digests(loader *L, const spec_node *ch, const char *field, target_base *b)
{
    const spec_node *n;
    /* Every catalog variant gets a slot; a missing digest is an unpublished one. */
    const char **digests = arena_alloc(L->cat->mem, (L->cat->n_variants + 1) * sizeof *digests);
    b->variants = L->cat->variants;
    b->n_variants = L->cat->n_variants;
    b->digests = digests;
    if ((n = spec_node_get(ch, "digests"))) {
        const char *f = field_of(L, field, "digests");
        if (n->kind != SN_MAP) {
            bad(L, n, f, "should be a mapping from variant to digest");
            return false;
        }
        for (size_t k = 0; k < n->n && !L->failed; k++) {
            const char *v = n->keys[k]->text, *fv = field_of(L, f, v);
            size_t i = 0;
            while (i < L->cat->n_variants && strcmp(L->cat->variants[i], v) != 0)
                i++;
            if (i == L->cat->n_variants) {
                bad(L, n->keys[k], fv, "`%s` is not one of the catalog's variants", v);
                return false;
            }
            if ((digests[i] = str_of(L, n->items[k], fv)) && !is_digest(digests[i]))
                bad(L, n->items[k], fv, "`%s` is not a digest (sha256:<64 lowercase hex>)",
                    digests[i]);
        }
    }
    return true;
}

static void read_channel(loader *L, const char *ref, const spec_node *key, const spec_node *ch,
                         const char *field, target_base *b)
{
    static const char *const keys[] = { "python", "arch", "libc", "platform", "digests", "apt",
                                         "dpkgStatus", "preinstalled", "protected", "node",
                                         NULL };
    b->ref = ref;
    b->channel = arena_strdup(L->cat->mem, key->text);
    if (ch->kind != SN_MAP) {
        bad(L, ch, field, "should be a mapping");
        return;
    }
    if (!keys_known(L, ch, field, keys))
        return;
    read_target_fields(L, ch, field, b);
    if (!read_digests(L, ch, field, b))
        return;
    const spec_node *n;
    if ((n = spec_node_get(ch, "apt")))
        read_apt(L, n, field_of(L, field, "apt"), b);
    if ((n = spec_node_get(ch, "dpkgStatus")))
        b->dpkg_status = readable_file(L, n, field_of(L, field, "dpkgStatus"));
    static const char *const none[] = { NULL };
    b->preinstalled = none;
    b->protected_pins = none;
    if ((n = spec_node_get(ch, "preinstalled")))
        b->preinstalled = read_requirements(L, n, field_of(L, field, "preinstalled"), true);
    if ((n = spec_node_get(ch, "protected")))
        b->protected_pins = read_requirements(L, n, field_of(L, field, "protected"), false);
    /* the node npm runs with decides which versions it prefers (engines.node) */
    if ((n = spec_node_get(ch, "node"))) {
        const char *f = field_of(L, field, "node");
        if ((b->node_version = str_of(L, n, f)) && !full_python(b->node_version))
            bad(L, n, f, "`%s` is not a full node version (X.Y.Z)", b->node_version);
    }
}

/* One entry of `images:`: what a channel says of its image, for an image
 * named by reference. No protected pins (nothing of Datalayer's is in it),
 * no per-variant digests (the reference names one image for every variant
 * it applies to). */
static void read_image(loader *L, const spec_node *key, const spec_node *im, target_base *b)
{
    static const char *const keys[] = { "python", "arch", "libc", "platform", "digest", "apt",
                                        "dpkgStatus", "preinstalled", NULL };
    static const char *const none[] = { NULL };
    const char *field = arena_sprintf(L->cat->mem, "images.%s", key->text);
    b->preinstalled = none;
    b->protected_pins = none;
    b->variants = none;
    b->digests = none;
    const char *digest = NULL;
    b->image = target_image_normalize(L->cat->mem, key->text, &digest);
    if (digest || strcmp(b->image, key->text) != 0) {
        bad(L, key, field, "`%s` is not a normalized image reference: write `%s` and give a "
            "digest as `digest:`", key->text, b->image);
        return;
    }
    if (im->kind != SN_MAP) {
        bad(L, im, field, "should be a mapping");
        return;
    }
    if (!keys_known(L, im, field, keys))
        return;
    const spec_node *n;
    if ((n = need(L, im, "python", field))) {
        const char *f = field_of(L, field, "python");
        if ((b->python_version = str_of(L, n, f)) && !full_python(b->python_version))
            bad(L, n, f, "`%s` is not a full Python version (X.Y.Z)", b->python_version);
        else if (b->python_version)
            b->python_minor = arena_strndup(L->cat->mem, b->python_version,
                                            strrchr(b->python_version, '.') - b->python_version);
    }
    if ((n = need(L, im, "arch", field))) {
        const char *f = field_of(L, field, "arch");
        if ((b->arch = str_of(L, n, f)) && strcmp(b->arch, "amd64") != 0 &&
            strcmp(b->arch, "arm64") != 0)
            bad(L, n, f, "`%s` is not a Debian architecture envlock targets (amd64, arm64)",
                b->arch);
    }
    if ((n = need(L, im, "libc", field)))
        b->libc = str_of(L, n, field_of(L, field, "libc"));
    if ((n = need(L, im, "platform", field))) {
        const char *f = field_of(L, field, "platform");
        if ((b->platform = str_of(L, n, f)) && strncmp(b->platform, "manylinux_", 10) != 0 &&
            strncmp(b->platform, "musllinux_", 10) != 0)
            bad(L, n, f, "`%s` is not a manylinux_X_Y_ARCH or musllinux_X_Y_ARCH tag",
                b->platform);
    }
    if ((n = spec_node_get(im, "digest"))) {
        const char *f = field_of(L, field, "digest");
        if ((b->image_digest = str_of(L, n, f)) && !is_digest(b->image_digest))
            bad(L, n, f, "`%s` is not a digest (sha256:<64 lowercase hex>)", b->image_digest);
    }
    if ((n = spec_node_get(im, "apt")))
        read_apt(L, n, field_of(L, field, "apt"), b);
    if ((n = spec_node_get(im, "dpkgStatus")))
        b->dpkg_status = readable_file(L, n, field_of(L, field, "dpkgStatus"));
    if ((n = spec_node_get(im, "preinstalled")))
        b->preinstalled = read_requirements(L, n, field_of(L, field, "preinstalled"), true);
}

static void read_images(loader *L, const spec_node *images)
{
    target_catalog *cat = L->cat;
    if (images->kind != SN_MAP) {
        bad(L, images, "images", "should be a mapping from image reference to what it holds");
        return;
    }
    cat->images = arena_alloc(cat->mem, (images->n + 1) * sizeof *cat->images);
    for (size_t k = 0; k < images->n && !L->failed; k++) {
        read_image(L, images->keys[k], images->items[k], &cat->images[k]);
        for (size_t j = 0; j < k && !L->failed; j++)
            if (strcmp(cat->images[j].image, cat->images[k].image) == 0)
                bad(L, images->keys[k], arena_sprintf(cat->mem, "images.%s", images->keys[k]->text),
                    "is listed twice");
        cat->n_images = k + 1;
    }
}

static void read_base(loader *L, const spec_node *key, const spec_node *base, ptrvec *out)
{
    static const char *const keys[] = { "cuda", "cudaVersion", "python", "repository",
                                        "channels", NULL };
    target_catalog *cat = L->cat;
    const char *ref = arena_strdup(cat->mem, key->text);
    const char *field = arena_sprintf(cat->mem, "bases.%s", ref);
    if (base->kind != SN_MAP) {
        bad(L, base, field, "should be a mapping");
        return;
    }
    if (!keys_known(L, base, field, keys))
        return;
    const char *slash = strrchr(ref, '/');
    if (!slash || slash == ref || !slash[1]) {
        bad(L, key, field, "`%s` is not a base reference (owner/name)", ref);
        return;
    }
    bool cuda = false;
    const spec_node *n;
    if ((n = spec_node_get(base, "cuda"))) {
        if (n->kind != SN_BOOL) {
            bad(L, n, field_of(L, field, "cuda"), "should be true or false");
            return;
        }
        cuda = n->b;
    }
    const char *cuda_version = NULL;
    if ((n = spec_node_get(base, "cudaVersion"))) {
        const char *f = field_of(L, field, "cudaVersion");
        if (!(cuda_version = str_of(L, n, f)))
            return;
        const char *dot = strchr(cuda_version, '.');
        if (!dot || dot == cuda_version || !dot[1] ||
            !all_digits(cuda_version, (size_t)(dot - cuda_version)) ||
            !all_digits(dot + 1, strlen(dot + 1))) {
            bad(L, n, f, "`%s` is not a CUDA version (X.Y)", cuda_version);
            return;
        }
        if (!cuda) {
            bad(L, n, f, "is given for a base without CUDA (cuda: false)");
            return;
        }
    }
    const char *minor = NULL, *repository;
    if ((n = need(L, base, "python", field))) {
        const char *f = field_of(L, field, "python");
        if ((minor = str_of(L, n, f))) {
            const char *dot = strchr(minor, '.');
            if (!dot || dot == minor || !dot[1] || !all_digits(minor, (size_t)(dot - minor)) ||
                !all_digits(dot + 1, strlen(dot + 1)))
                bad(L, n, f, "`%s` is not a Python minor version (X.Y)", minor);
        }
    }
    if ((n = spec_node_get(base, "repository")))
        repository = str_of(L, n, field_of(L, field, "repository"));
    else
        repository = arena_sprintf(cat->mem, "environments/base/%s", slash + 1);
    const spec_node *chs = need(L, base, "channels", field);
    if (L->failed)
        return;
    const char *fch = field_of(L, field, "channels");
    if (chs->kind != SN_MAP) {
        bad(L, chs, fch, "should be a mapping from channel to its images");
        return;
    }
    for (size_t k = 0; k < chs->n && !L->failed; k++) {
        target_base *b = arena_alloc(cat->mem, sizeof *b);
        b->cuda = cuda;
        b->cuda_version = cuda_version;
        b->python_minor = minor;
        b->repository = repository;
        read_channel(L, ref, chs->keys[k], chs->items[k], field_of(L, fch, chs->keys[k]->text), b);
        ptrvec_push(out, b);
    }
    cat->refs[cat->n_refs++] = ref;
}

static void read_catalog(loader *L, const spec_node *root)
{
    static const char *const keys[] = { "format", "variants", "bases", "images", NULL };
    target_catalog *cat = L->cat;
    if (root->kind != SN_MAP) {
        bad(L, root, "(document)", "should be a mapping with format, variants and bases");
        return;
    }
    if (!keys_known(L, root, "(document)", keys))
        return;
    const spec_node *n = need(L, root, "format", "(document)");
    const char *fmt = n ? str_of(L, n, "format") : NULL;
    if (fmt && strcmp(fmt, CATALOG_FORMAT) != 0)
        bad(L, n, "format", "`%s` is not a catalog format this envlock reads (%s)", fmt,
            CATALOG_FORMAT);
    if ((n = need(L, root, "variants", "(document)")))
        cat->variants = strs_of(L, n, "variants", &cat->n_variants);
    if (!L->failed && cat->n_variants == 0)
        bad(L, n, "variants", "should name at least one variant");
    for (size_t i = 0; !L->failed && i < cat->n_variants; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(cat->variants[i], cat->variants[j]) == 0)
                bad(L, n->items[i], arena_sprintf(cat->mem, "variants[%zu]", i),
                    "`%s` is listed twice", cat->variants[i]);
    const spec_node *bases = need(L, root, "bases", "(document)");
    if (L->failed)
        return;
    if (bases->kind != SN_MAP) {
        bad(L, bases, "bases", "should be a mapping from base reference to its channels");
        return;
    }
    cat->refs = arena_alloc(cat->mem, (bases->n + 1) * sizeof *cat->refs);
    ptrvec all = PTRVEC_INIT;
    for (size_t k = 0; k < bases->n && !L->failed; k++)
        read_base(L, bases->keys[k], bases->items[k], &all);
    cat->bases = arena_alloc(cat->mem, (all.len + 1) * sizeof *cat->bases);
    for (size_t i = 0; i < all.len; i++)
        cat->bases[i] = *(target_base *)all.items[i];
    cat->n_bases = all.len;
    ptrvec_release(&all);
    if (!L->failed && (n = spec_node_get(root, "images")))
        read_images(L, n);
}

/* ---- API ---- */

static target_catalog *catalog_load_path(el_ctx *ctx, const char *path);

char *target_catalog_default_path(void)
{
    Dl_info info;
    if (!dladdr((void *)target_catalog_default_path, &info) || !info.dli_fname)
        return xstrdup(CATALOG_FROM_LIBDIR);
    /* the library's own directory, links resolved, so that messages name
     * a plain path ("bin/../lib/.." when loaded through an $ORIGIN rpath) */
    char *self = realpath(info.dli_fname, NULL);
    if (!self)
        self = xstrdup(info.dli_fname);
    char *dir = xstrdup(dirname(self));
    free(self);
    char *path = xasprintf("%s/%s", dir, CATALOG_FROM_LIBDIR);
    char *parent = strrchr(dir, '/');
    if (parent && parent != dir) { /* "<prefix>/lib/../share" -> "<prefix>/share" */
        *parent = '\0';
        free(path);
        path = xasprintf("%s/%s", dir, CATALOG_FROM_LIBDIR + 3);
    }
    free(dir);
    return path;
}

target_catalog *target_catalog_load(el_ctx *ctx, const char *path)
{
    char *dflt = path ? NULL : target_catalog_default_path();
    target_catalog *cat = catalog_load_path(ctx, path ? path : dflt);
    free(dflt);
    return cat;
}

static target_catalog *catalog_load_path(el_ctx *ctx, const char *path)
{
    target_catalog *cat = xcalloc(1, sizeof *cat);
    cat->mem = arena_new();
    cat->path = arena_strdup(cat->mem, path);
    const char *slash = strrchr(path, '/');
    cat->dir = slash ? arena_strndup(cat->mem, path, slash == path ? 1 : (size_t)(slash - path))
                     : ".";
    loader L = { ctx, cat, false };

    size_t len = 0;
    char *text = spec_document_read(ctx, CATALOG_KIND, path, CATALOG_MAX_BYTES, &len);
    spec_node *root =
        text ? spec_document_parse(ctx, cat->mem, CATALOG_KIND, path, CATALOG_REASON, text, len)
             : NULL;
    free(text);
    if (root)
        read_catalog(&L, root);
    if (!root || L.failed) {
        target_catalog_free(cat);
        return NULL;
    }
    return cat;
}

void target_catalog_free(target_catalog *cat)
{
    if (!cat)
        return;
    arena_free(cat->mem);
    free(cat);
}

const char *target_catalog_path(const target_catalog *cat)
{
    return cat->path;
}

/* The channels of `ref` in catalog order, with each one's protected pins. */
static el_spec_channel *spec_channels(const target_catalog *cat, const char *ref, size_t *n)
{
    el_spec_channel *ch = xcalloc(cat->n_bases + 1, sizeof *ch);
    *n = 0;
    for (size_t i = 0; i < cat->n_bases; i++) {
        const target_base *b = &cat->bases[i];
        if (strcmp(b->ref, ref) != 0)
            continue;
        ch[*n].name = b->channel;
        ch[*n].protected_pins = b->protected_pins;
        (*n)++;
    }
    return ch;
}

el_spec_base *target_catalog_spec_bases(const target_catalog *cat, size_t *n)
{
    el_spec_base *out = xcalloc(cat->n_refs + 1, sizeof *out);
    for (size_t k = 0; k < cat->n_refs; k++) {
        out[k].ref = cat->refs[k];
        /* every channel of a ref carries the ref's own fields: take the
         * first; the channels are calendar names ("2026.09"), so the
         * newest is the greatest */
        for (size_t i = 0; i < cat->n_bases; i++) {
            const target_base *b = &cat->bases[i];
            if (strcmp(b->ref, cat->refs[k]) != 0)
                continue;
            if (!out[k].channel) {
                out[k].repository = b->repository;
                out[k].python = b->python_minor;
                out[k].cuda = b->cuda;
                out[k].cuda_version = b->cuda_version;
            }
            if (!out[k].channel || strcmp(b->channel, out[k].channel) > 0)
                out[k].channel = b->channel;
        }
        out[k].channels = spec_channels(cat, cat->refs[k], &out[k].n_channels);
    }
    *n = cat->n_refs;
    return out;
}

void target_catalog_spec_bases_free(el_spec_base *view, size_t n)
{
    for (size_t k = 0; view && k < n; k++)
        free((el_spec_channel *)view[k].channels);
    free(view);
}

static char *joined(const char *const *items, size_t n)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        sb_addf(&sb, "%s%s", i ? ", " : "", items[i]);
    return sb_detach(&sb, NULL);
}

const target_base *target_catalog_find(el_ctx *ctx, const target_catalog *cat, const char *ref,
                                       const char *channel)
{
    bool ref_known = false;
    const char **channels = xcalloc(cat->n_bases + 1, sizeof *channels);
    size_t nch = 0;
    for (size_t i = 0; i < cat->n_bases; i++) {
        if (strcmp(cat->bases[i].ref, ref) != 0)
            continue;
        ref_known = true;
        if (strcmp(cat->bases[i].channel, channel) == 0) {
            free(channels);
            return &cat->bases[i];
        }
        channels[nch++] = cat->bases[i].channel;
    }
    if (!ref_known) {
        char *list = joined(cat->refs, cat->n_refs);
        el_fail(ctx, EL_SPEC_INVALID, "`%s` is not an approved base; approved: %s", ref, list);
        el_detail_str(ctx, "field", "spec.base.ref");
        free(list);
    } else {
        char *list = joined(channels, nch);
        el_fail(ctx, EL_SPEC_INVALID, "`%s` has no channel `%s`; channels: %s", ref, channel,
                list);
        el_detail_str(ctx, "field", "spec.base.channel");
        free(list);
    }
    free(channels);
    return NULL;
}

const char *target_image_normalize(arena *mem, const char *reference, const char **digest)
{
    size_t n = strcspn(reference, "@");
    *digest = reference[n] ? arena_strdup(mem, reference + n + 1) : NULL;
    const char *s = reference;
    static const char *const hub[] = { "docker.io/", "index.docker.io/", "registry-1.docker.io/",
                                       NULL };
    for (const char *const *h = hub; *h; h++)
        if (strncmp(s, *h, strlen(*h)) == 0 && (size_t)(s - reference) + strlen(*h) < n) {
            s += strlen(*h);
            break;
        }
    if (strncmp(s, "library/", 8) == 0 && strchr(s + 8, '/') == NULL)
        s += 8;
    size_t len = n - (size_t)(s - reference);
    const char *name = s;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '/')
            name = s + i + 1;
    bool tagged = memchr(name, ':', len - (size_t)(name - s)) != NULL;
    return tagged ? arena_strndup(mem, s, len) : arena_sprintf(mem, "%.*s:latest", (int)len, s);
}

const target_base *target_catalog_image(const target_catalog *cat, const char *key)
{
    for (size_t i = 0; i < cat->n_images; i++)
        if (strcmp(cat->images[i].image, key) == 0)
            return &cat->images[i];
    return NULL;
}

const target_base *target_catalog_find_image(el_ctx *ctx, const target_catalog *cat,
                                             const char *reference)
{
    arena *tmp = arena_new();
    const char *digest = NULL;
    const char *key = target_image_normalize(tmp, reference, &digest);
    const target_base *found = target_catalog_image(cat, key);
    if (!found) {
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED,
                "the image `%s` is not in the bases catalog %s, so envlock cannot tell its "
                "Python, platform and installed packages: add its entry (`envlock base inspect "
                "IMAGE.tar` writes one from the image) and pass the catalog with --bases",
                reference, cat->path);
        el_detail_str(ctx, "reason", "image_not_in_catalog");
    } else if (digest && (!found->image_digest || strcmp(found->image_digest, digest) != 0)) {
        el_fail(ctx, EL_CAPABILITY_UNSUPPORTED,
                "the image `%s` is pinned to %s, but the bases catalog %s describes `%s` %s%s: "
                "the entry may not be that image",
                reference, digest, cat->path, key, found->image_digest ? "at " : "by its tag only",
                found->image_digest ? found->image_digest : "");
        el_detail_str(ctx, "reason", "image_digest_differs");
        found = NULL;
    }
    if (!found) {
        el_detail_str(ctx, "field", "spec.build.image.reference");
        el_detail_str(ctx, "image", reference);
    }
    arena_free(tmp);
    return found;
}

const char *target_base_digest(el_ctx *ctx, const target_base *b, const char *variant)
{
    for (size_t i = 0; i < b->n_variants; i++)
        if (strcmp(b->variants[i], variant) == 0 && b->digests[i])
            return b->digests[i];
    el_fail(ctx, EL_ARTIFACT_MISSING,
            "`%s:%s` has no published digest for the %s variant; it resolves once the channel "
            "is pushed to `%s`",
            b->ref, b->channel, variant, b->repository);
    el_detail_str(ctx, "reason", "base_channel_unpublished");
    el_detail_str(ctx, "field", "spec.base.channel");
    el_detail_str(ctx, "variant", variant);
    el_set_retryable(ctx, true);
    return NULL;
}

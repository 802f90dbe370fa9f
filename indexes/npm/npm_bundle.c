/* npm_bundle.c — the packages a tarball ships in its own node_modules
 * (bundleDependencies). The packument lists only the bundled names; npm
 * (arborist's buildIdealTree for --package-lock-only) opens the tarball and
 * reads every package.json file under node_modules in it, which is the tree its
 * lock records with `inBundle: true`. This file reads that tree from the
 * tarball (libarchive, never written to disk) and keeps what it read as a
 * cache blob named by the tarball's integrity, so the tarball is fetched
 * once per version. Tarballs are hostile input: bounded size and counts,
 * only paths of the node_modules/NAME[/node_modules/NAME...]/package.json
 * shape, each name an npm package name (no "..", no absolute paths). */
#include <archive.h>
#include <archive_entry.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npm_index.h"
#include "npm_spec.h"

/* Limits on what a tarball may make envlock do. aws-cdk-lib, the largest
 * real bundler in tests/agreement/npm_apps, is 35 MB with 18 bundled
 * packages. */
#define BUNDLE_MAX_ENTRIES 400000u          /* tar entries looked at */
#define BUNDLE_MAX_PACKAGES 5000u           /* bundled package.json files */
#define BUNDLE_MAX_DEPTH 24                 /* node_modules levels */
#define BUNDLE_MAX_MANIFEST (1024u * 1024u) /* one package.json */
#define BUNDLE_BLOB_FORMAT 1

static int cmp_bundled(const void *a, const void *b)
{
    return strcmp(((const npm_bundled *)a)->path, ((const npm_bundled *)b)->path);
}

/* The path below the tarball's top folder when it names a bundled
 * package.json ("node_modules/a/node_modules/@s/b"), else NULL (arena). */
static const char *bundled_dir(arena *a, const char *entry)
{
    const char *s = strchr(entry, '/');
    if (!s || entry[0] == '/')
        return NULL;
    s++;
    size_t n = strlen(s);
    if (n < 13 + 13 || strcmp(s + n - 13, "/package.json") != 0)
        return NULL;
    char *dir = arena_strndup(a, s, n - 13);
    int depth = 0;
    for (char *p = dir; *p;) {
        if (strncmp(p, "node_modules/", 13) != 0 || ++depth > BUNDLE_MAX_DEPTH)
            return NULL;
        p += 13;
        char *end = strchr(p, '/');
        if (*p == '@' && end)
            end = strchr(end + 1, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *name = strndup(p, len);
        char *err = NULL;
        bool ok = name && npm_name_check(name, NPM_NAME_LEGACY, &err) == 0 && name[0] != '.';
        free(err);
        free(name);
        if (!ok)
            return NULL;
        p += len + (end ? 1 : 0);
        if (end && !*p)
            return NULL;
    }
    return dir;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static bool in_object(json_object *o, const char *key, const char *name)
{
    json_object *m, *v;
    return json_object_object_get_ex(o, key, &m) && json_object_is_type(m, json_type_object) &&
           json_object_object_get_ex(m, name, &v);
}

static bool peer_optional(json_object *man, const char *name)
{
    json_object *meta, *one, *opt;
    return json_object_object_get_ex(man, "peerDependenciesMeta", &meta) &&
           json_object_object_get_ex(meta, name, &one) &&
           json_object_object_get_ex(one, "optional", &opt) && json_object_get_boolean(opt);
}

/* The dependencies of a package.json as npm's edges read them:
 * optionalDependencies win over dependencies of the same name. */
static void read_deps(arena *a, json_object *man, npm_bundled *b)
{
    static const char *const keys[] = { "dependencies", "optionalDependencies", "peerDependencies" };
    size_t cap = 0;
    for (int k = 0; k < 3; k++) {
        json_object *m;
        if (json_object_object_get_ex(man, keys[k], &m) && json_object_is_type(m, json_type_object))
            cap += (size_t)json_object_object_length(m);
    }
    b->deps = arena_alloc(a, (cap ? cap : 1) * sizeof *b->deps);
    for (int k = 0; k < 3; k++) {
        json_object *m;
        if (!json_object_object_get_ex(man, keys[k], &m) || !json_object_is_type(m, json_type_object))
            continue;
        json_object_object_foreach(m, name, spec)
        {
            if (!json_object_is_type(spec, json_type_string) ||
                (k == 0 && in_object(man, "optionalDependencies", name)))
                continue;
            npm_bundled_dep *d = &b->deps[b->ndeps++];
            d->name = arena_strdup(a, name);
            d->spec = arena_strdup(a, json_object_get_string(spec));
            d->kind = k == 0 ? NPM_DEP_PROD
                      : k == 1 ? NPM_DEP_OPTIONAL
                      : peer_optional(man, name) ? NPM_DEP_PEER_OPTIONAL
                                                 : NPM_DEP_PEER;
        }
    }
}

/* One bundled package.json into *b; false when it is not a manifest with
 * a name and a version (npm would not load it as a package either). */
static bool read_manifest(arena *a, const char *dir, const char *text, size_t len, npm_bundled *b)
{
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *man = json_tokener_parse_ex(tok, text, (int)len);
    bool ok = man && json_tokener_get_error(tok) == json_tokener_success &&
              json_object_is_type(man, json_type_object) && jstr(man, "version");
    json_tokener_free(tok);
    if (ok) {
        /* the folder: what follows the last node_modules/ */
        const char *fname = dir;
        for (const char *nm = strstr(dir, "node_modules/"); nm; nm = strstr(nm + 1, "node_modules/"))
            fname = nm + 13;
        const char *name = jstr(man, "name");
        b->path = arena_strdup(a, dir);
        b->name = arena_strdup(a, name && *name ? name : fname);
        b->version = arena_strdup(a, jstr(man, "version"));
        read_deps(a, man, b);
    }
    json_object_put(man);
    return ok;
}

/* The next entry's data, when it is a regular file within the cap. */
static char *entry_text(struct archive *ar, struct archive_entry *e, size_t *len)
{
    if (archive_entry_filetype(e) != AE_IFREG || !archive_entry_size_is_set(e) ||
        archive_entry_size(e) < 0 || archive_entry_size(e) > BUNDLE_MAX_MANIFEST)
        return NULL;
    size_t n = (size_t)archive_entry_size(e);
    char *buf = xmalloc(n + 1);
    la_ssize_t got = archive_read_data(ar, buf, n);
    if (got < 0 || (size_t)got != n) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static npm_bundle *bundle_new(void)
{
    npm_bundle *b = xcalloc(1, sizeof *b);
    b->arena_ = arena_new();
    return b;
}

/* Adds one package, a later entry of the same path replacing an earlier
 * (as extracting the tarball would). */
static void bundle_add(npm_bundle *b, size_t *cap, const npm_bundled *one)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->pkgs[i].path, one->path) == 0) {
            b->pkgs[i] = *one;
            return;
        }
    if (b->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        npm_bundled *v = arena_alloc(b->arena_, *cap * sizeof *v);
        if (b->n)
            memcpy(v, b->pkgs, b->n * sizeof *v);
        b->pkgs = v;
    }
    b->pkgs[b->n++] = *one;
}

int npm_bundle_parse(const unsigned char *tgz, size_t len, npm_bundle **out, char **err)
{
    *out = NULL;
    *err = NULL;
    struct archive *ar = archive_read_new();
    archive_read_support_filter_gzip(ar);
    archive_read_support_format_tar(ar);
    if (archive_read_open_memory(ar, tgz, len) != ARCHIVE_OK) {
        archive_read_free(ar);
        *err = xstrdup("the tarball is not a gzip'd tar archive");
        return -1;
    }
    npm_bundle *b = bundle_new();
    size_t cap = 0, entries = 0;
    struct archive_entry *e;
    int rc;
    while ((rc = archive_read_next_header(ar, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
        if (++entries > BUNDLE_MAX_ENTRIES) {
            *err = xasprintf("the tarball has more than %u entries", BUNDLE_MAX_ENTRIES);
            break;
        }
        const char *path = archive_entry_pathname(e);
        const char *dir = path ? bundled_dir(b->arena_, path) : NULL;
        size_t n = 0;
        char *text = dir ? entry_text(ar, e, &n) : NULL;
        npm_bundled one = { 0 };
        if (text && read_manifest(b->arena_, dir, text, n, &one)) {
            if (b->n >= BUNDLE_MAX_PACKAGES) {
                free(text);
                *err = xasprintf("the tarball bundles more than %u packages", BUNDLE_MAX_PACKAGES);
                break;
            }
            bundle_add(b, &cap, &one);
        }
        free(text);
    }
    if (!*err && rc != ARCHIVE_EOF)
        *err = xasprintf("the tarball is damaged: %s",
                         archive_error_string(ar) ? archive_error_string(ar) : "unreadable entry");
    archive_read_free(ar);
    if (*err) {
        npm_bundle_free(b);
        return -1;
    }
    if (b->n > 1)
        qsort(b->pkgs, b->n, sizeof *b->pkgs, cmp_bundled);
    *out = b;
    return 0;
}

void npm_bundle_free(npm_bundle *b)
{
    if (!b)
        return;
    arena_free(b->arena_);
    free(b);
}

/* ---- the parsed form: a cache blob named by the tarball's integrity ---- */

char *npm_bundle_blob_name(const char *integrity)
{
    char h[65];
    sha256_hex(integrity, strlen(integrity), h);
    return xasprintf("npm-bundle-%d-%s", BUNDLE_BLOB_FORMAT, h);
}

void npm_bundle_blob_write(const npm_bundle *b, const char *integrity, strbuf *out)
{
    json_object *o = json_object_new_object(), *v = json_object_new_array();
    json_object_object_add(o, "format", json_object_new_int(BUNDLE_BLOB_FORMAT));
    json_object_object_add(o, "integrity", json_object_new_string(integrity));
    for (size_t i = 0; i < b->n; i++) {
        const npm_bundled *p = &b->pkgs[i];
        json_object *e = json_object_new_array(), *d = json_object_new_array();
        json_object_array_add(e, json_object_new_string(p->path));
        json_object_array_add(e, json_object_new_string(p->name));
        json_object_array_add(e, json_object_new_string(p->version));
        for (size_t k = 0; k < p->ndeps; k++) {
            json_object *x = json_object_new_array();
            json_object_array_add(x, json_object_new_int((int)p->deps[k].kind));
            json_object_array_add(x, json_object_new_string(p->deps[k].name));
            json_object_array_add(x, json_object_new_string(p->deps[k].spec));
            json_object_array_add(d, x);
        }
        json_object_array_add(e, d);
        json_object_array_add(v, e);
    }
    json_object_object_add(o, "packages", v);
    sb_adds(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

static const char *at_str(json_object *a, size_t i)
{
    json_object *v = json_object_array_get_idx(a, i);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* One [kind, name, spec] of a blob's package; false when malformed. */
static bool blob_dep(json_object *x, npm_bundled_dep *d, arena *a)
{
    json_object *k = json_object_is_type(x, json_type_array) && json_object_array_length(x) == 3
                         ? json_object_array_get_idx(x, 0)
                         : NULL;
    if (!k || !json_object_is_type(k, json_type_int) || !at_str(x, 1) || !at_str(x, 2))
        return false;
    int kind = json_object_get_int(k);
    if (kind < NPM_DEP_PROD || kind > NPM_DEP_PEER_OPTIONAL)
        return false;
    d->kind = (npm_dep_kind)kind;
    d->name = arena_strdup(a, at_str(x, 1));
    d->spec = arena_strdup(a, at_str(x, 2));
    return true;
}

static bool blob_pkg(json_object *e, npm_bundled *p, arena *a)
{
    json_object *d = json_object_is_type(e, json_type_array) && json_object_array_length(e) == 4
                         ? json_object_array_get_idx(e, 3)
                         : NULL;
    if (!d || !json_object_is_type(d, json_type_array) || !at_str(e, 0) || !at_str(e, 1) ||
        !at_str(e, 2) || !bundled_dir(a, arena_sprintf(a, "package/%s/package.json", at_str(e, 0))))
        return false;
    p->path = arena_strdup(a, at_str(e, 0));
    p->name = arena_strdup(a, at_str(e, 1));
    p->version = arena_strdup(a, at_str(e, 2));
    size_t n = json_object_array_length(d);
    p->deps = arena_alloc(a, (n ? n : 1) * sizeof *p->deps);
    for (p->ndeps = 0; p->ndeps < n; p->ndeps++)
        if (!blob_dep(json_object_array_get_idx(d, p->ndeps), &p->deps[p->ndeps], a))
            return false;
    return true;
}

int npm_bundle_blob_read(const unsigned char *data, size_t len, const char *integrity,
                         npm_bundle **out)
{
    *out = NULL;
    json_tokener *tok = json_tokener_new_ex(16);
    json_object *o = json_tokener_parse_ex(tok, (const char *)data, (int)len);
    bool ok = o && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    json_object *f, *v;
    ok = ok && json_object_object_get_ex(o, "format", &f) &&
         json_object_get_int(f) == BUNDLE_BLOB_FORMAT && jstr(o, "integrity") &&
         strcmp(jstr(o, "integrity"), integrity) == 0 &&
         json_object_object_get_ex(o, "packages", &v) && json_object_is_type(v, json_type_array) &&
         json_object_array_length(v) <= BUNDLE_MAX_PACKAGES;
    npm_bundle *b = ok ? bundle_new() : NULL;
    size_t n = ok ? json_object_array_length(v) : 0;
    if (b)
        b->pkgs = arena_alloc(b->arena_, (n ? n : 1) * sizeof *b->pkgs);
    for (size_t i = 0; ok && i < n; i++, b->n++)
        ok = blob_pkg(json_object_array_get_idx(v, i), &b->pkgs[i], b->arena_) &&
             (!i || strcmp(b->pkgs[i - 1].path, b->pkgs[i].path) < 0);
    json_object_put(o);
    if (!ok) {
        npm_bundle_free(b);
        return -1;
    }
    *out = b;
    return 0;
}

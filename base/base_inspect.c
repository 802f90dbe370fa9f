/* base_inspect.c — reads an image archive into the few files of its final
 * file system that a catalog entry is worked out from (base_inspect.h).
 * Two passes over the archive with libarchive: the first keeps the small
 * members (manifest.json, index.json, configs and manifests under blobs/)
 * and the names of all; the second reads each layer the manifest names as
 * a nested archive, streaming, and keeps only the interesting files. The
 * layers are then applied in the manifest's order, whiteouts first. Nothing
 * is extracted to disk, so a hostile name can do no harm; it is refused
 * anyway (path_traversal), since such an archive was not written by an
 * image tool. Owns no catalog format: base_inspect_entry.c does. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_inspect.h"

/* Manifests and configs are a few KiB; a member above this is a layer. */
#define SMALL_MEMBER_MAX (4u << 20)
/* An interesting file of a layer (a dpkg status is about 100 KiB per 100
 * packages): above this it is kept by name only. */
#define KEEP_FILE_MAX (32u << 20)

typedef struct member {
    const char *name;
    const char *data; /* NULL when not kept */
    size_t len;
} member;

typedef enum change_kind { CH_FILE, CH_WHITEOUT, CH_OPAQUE } change_kind;

typedef struct change {
    change_kind kind;
    inspect_file f; /* CH_WHITEOUT: the path removed; CH_OPAQUE: its directory */
} change;

typedef struct layer {
    const char *name; /* member of the archive */
    bool seen;
    ptrvec changes;
} layer;

typedef struct reader {
    el_ctx *ctx;
    const char *path;
    arena *mem;
    ptrvec members;
    layer *layers;
    size_t n_layers;
} reader;

static el_code bad(reader *R, const char *reason, const char *file, const char *fmt, ...)
    EL_PRINTF(4, 5);
static el_code bad(reader *R, const char *reason, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    el_fail(R->ctx, EL_SPEC_INVALID, "%s: %s", R->path, msg);
    el_detail_str(R->ctx, "reason", reason);
    el_detail_str(R->ctx, "path", R->path);
    if (file)
        el_detail_str(R->ctx, "file", file);
    free(msg);
    return EL_SPEC_INVALID;
}

/* "./a//b/" -> "a/b"; NULL for an absolute name or a `..` component. */
static const char *clean_name(arena *mem, const char *name)
{
    if (name[0] == '/')
        return NULL;
    strbuf sb = STRBUF_INIT;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            sb_release(&sb);
            return NULL;
        }
        if (n && !(n == 1 && p[0] == '.')) {
            if (sb.len)
                sb_addc(&sb, '/');
            sb_add(&sb, p, n);
        }
        p += n;
        while (*p == '/')
            p++;
    }
    char *out = arena_strdup(mem, sb.buf ? sb.buf : "");
    sb_release(&sb);
    return out;
}

static struct archive *open_outer(reader *R, int fd)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        bad(R, "not_an_image_archive", NULL, "is not an image archive (a tar): %s",
            archive_error_string(a) ? archive_error_string(a) : "unreadable");
        archive_read_free(a);
        return NULL;
    }
    return a;
}

static char *read_all(struct archive *a, size_t max, size_t *len)
{
    strbuf sb = STRBUF_INIT;
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
        if (sb.len + (size_t)n > max) {
            sb_release(&sb);
            return NULL;
        }
        sb_add(&sb, buf, (size_t)n);
    }
    if (n < 0) {
        sb_release(&sb);
        return NULL;
    }
    return sb_detach(&sb, len);
}

/* Pass 1: every member's name, and the bytes of the small ones. */
static el_code read_members(reader *R, int fd)
{
    struct archive *a = open_outer(R, fd);
    if (!a)
        return EL_SPEC_INVALID;
    struct archive_entry *e;
    int r;
    el_code rc = EL_OK;
    while (rc == EL_OK && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *raw = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
        const char *name = clean_name(R->mem, raw);
        if (!name) {
            rc = bad(R, "path_traversal", raw, "the member `%s` names a path outside the archive",
                     raw);
            break;
        }
        member *m = arena_alloc(R->mem, sizeof *m);
        m->name = name;
        if (archive_entry_filetype(e) == AE_IFREG && archive_entry_size(e) <= SMALL_MEMBER_MAX) {
            size_t len = 0;
            char *data = read_all(a, SMALL_MEMBER_MAX, &len);
            if (data) {
                m->data = arena_strndup(R->mem, data, len);
                m->len = len;
                free(data);
            }
        }
        ptrvec_push(&R->members, m);
    }
    if (rc == EL_OK && r != ARCHIVE_EOF)
        rc = bad(R, R->members.len ? "unreadable" : "not_an_image_archive", NULL,
                 "is not an image archive (a tar): %s",
                 archive_error_string(a) ? archive_error_string(a) : "unreadable");
    archive_read_free(a);
    return rc;
}

static const member *find_member(const reader *R, const char *name)
{
    for (size_t i = 0; i < R->members.len; i++) {
        const member *m = R->members.items[i];
        if (strcmp(m->name, name) == 0)
            return m;
    }
    return NULL;
}

/* A JSON member: parsed, owned by the caller; NULL after a
 * missing_manifest failure naming it. */
static json_object *member_json(reader *R, const char *name, const char *what)
{
    const char *clean = clean_name(R->mem, name);
    if (!clean) {
        bad(R, "path_traversal", name, "the %s `%s` names a path outside the archive", what,
            name);
        return NULL;
    }
    const member *m = find_member(R, clean);
    json_object *j = m && m->data ? json_tokener_parse(m->data) : NULL;
    if (!j)
        bad(R, "missing_manifest", clean, "the %s `%s` is %s", what, clean,
            m ? "not JSON" : "not in the archive");
    return j;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static json_object *jget(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (json_object_is_type(o, json_type_object))
        json_object_object_get_ex(o, key, &v);
    return v;
}

/* "sha256:<hex>" -> "blobs/sha256/<hex>" (OCI image layout). */
static const char *blob_path(reader *R, const char *digest)
{
    const char *colon = digest ? strchr(digest, ':') : NULL;
    if (!colon)
        return NULL;
    return arena_sprintf(R->mem, "blobs/%.*s/%s", (int)(colon - digest), digest, colon + 1);
}

static void set_layers(reader *R, size_t n)
{
    R->layers = arena_alloc(R->mem, (n + 1) * sizeof *R->layers);
    memset(R->layers, 0, (n + 1) * sizeof *R->layers);
    R->n_layers = n;
}

/* The config: architecture and the Env's PYTHON_VERSION (the official
 * python images set it), both only hints for what the files say. */
static void read_config(reader *R, json_object *cfg, inspect_image *out)
{
    const char *arch = jstr(cfg, "architecture");
    if (arch)
        out->arch = arena_strdup(R->mem, arch);
    json_object *env = jget(jget(cfg, "config"), "Env");
    for (size_t i = 0; json_object_is_type(env, json_type_array) &&
                       i < json_object_array_length(env); i++) {
        const char *kv = json_object_get_string(json_object_array_get_idx(env, i));
        if (kv && strncmp(kv, "PYTHON_VERSION=", 15) == 0)
            out->python_env = arena_strdup(R->mem, kv + 15);
    }
}

/* docker save: manifest.json is [{Config, RepoTags, Layers}], one per
 * image; the first is the one inspected. */
static el_code docker_manifest(reader *R, json_object *root, inspect_image *out)
{
    json_object *img = json_object_is_type(root, json_type_array) &&
                               json_object_array_length(root)
                           ? json_object_array_get_idx(root, 0)
                           : NULL;
    json_object *layers = jget(img, "Layers");
    if (!json_object_is_type(layers, json_type_array))
        return bad(R, "missing_manifest", "manifest.json",
                   "manifest.json names no image with Layers");
    json_object *tags = jget(img, "RepoTags");
    if (json_object_is_type(tags, json_type_array) && json_object_array_length(tags))
        out->reference = arena_strdup(
            R->mem, json_object_get_string(json_object_array_get_idx(tags, 0)));
    const char *config = jstr(img, "Config");
    if (config) {
        json_object *cfg = member_json(R, config, "config");
        if (!cfg)
            return EL_SPEC_INVALID;
        read_config(R, cfg, out);
        json_object_put(cfg);
    }
    set_layers(R, json_object_array_length(layers));
    for (size_t i = 0; i < R->n_layers; i++) {
        const char *l = json_object_get_string(json_object_array_get_idx(layers, i));
        if (!l || !(R->layers[i].name = clean_name(R->mem, l)))
            return bad(R, "path_traversal", l ? l : "(null)",
                       "the layer `%s` names a path outside the archive", l ? l : "(null)");
    }
    return EL_OK;
}

/* Among an OCI index's manifests: the linux/amd64 one, else the first. */
static json_object *pick_manifest(json_object *index)
{
    json_object *ms = jget(index, "manifests");
    if (!json_object_is_type(ms, json_type_array) || !json_object_array_length(ms))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(ms); i++) {
        json_object *m = json_object_array_get_idx(ms, i), *pl = jget(m, "platform");
        const char *os = jstr(pl, "os"), *arch = jstr(pl, "architecture");
        if (os && arch && !strcmp(os, "linux") && !strcmp(arch, "amd64"))
            return m;
    }
    return json_object_array_get_idx(ms, 0);
}

static void oci_reference(reader *R, json_object *desc, inspect_image *out)
{
    json_object *ann = jget(desc, "annotations");
    const char *name = jstr(ann, "io.containerd.image.name");
    if (!name)
        name = jstr(ann, "org.opencontainers.image.ref.name");
    if (name && !out->reference)
        out->reference = arena_strdup(R->mem, name);
}

/* OCI image layout: index.json -> (nested indexes) -> manifest -> config
 * and layers, every one a blob named by its digest. */
static el_code oci_manifest(reader *R, json_object *index, inspect_image *out)
{
    json_object *owned = NULL, *man = NULL;
    el_code rc = EL_OK;
    for (int depth = 0; depth < 4 && !man; depth++) {
        json_object *desc = pick_manifest(index);
        const char *file = blob_path(R, jstr(desc, "digest"));
        if (!file) {
            rc = bad(R, "missing_manifest", depth ? "(nested index)" : "index.json",
                     "%s names no manifest", depth ? "a nested index" : "index.json");
            break;
        }
        oci_reference(R, desc, out);
        json_object *next = member_json(R, file, "manifest");
        if (!next) {
            rc = EL_SPEC_INVALID;
            break;
        }
        json_object_put(owned);
        owned = index = next;
        if (json_object_is_type(jget(next, "layers"), json_type_array))
            man = next;
    }
    if (rc == EL_OK && !man)
        rc = bad(R, "missing_manifest", "index.json", "index.json leads to no image manifest");
    if (rc == EL_OK) {
        const char *cfg_file = blob_path(R, jstr(jget(man, "config"), "digest"));
        json_object *cfg = cfg_file ? member_json(R, cfg_file, "config") : NULL;
        if (cfg)
            read_config(R, cfg, out);
        json_object_put(cfg);
        if (cfg_file && !cfg)
            rc = EL_SPEC_INVALID;
    }
    json_object *layers = man ? jget(man, "layers") : NULL;
    if (rc == EL_OK) {
        set_layers(R, json_object_array_length(layers));
        for (size_t i = 0; i < R->n_layers && rc == EL_OK; i++) {
            const char *digest = jstr(json_object_array_get_idx(layers, i), "digest");
            const char *file = blob_path(R, digest);
            if (!file || !(R->layers[i].name = clean_name(R->mem, file)))
                rc = bad(R, "path_traversal", digest ? digest : "(null)",
                         "the layer `%s` names a path outside the archive",
                         digest ? digest : "(null)");
        }
    }
    json_object_put(owned);
    return rc;
}

/* ---- pass 2: the layers ---- */

/* The files an entry is worked out from; with `*keep_data` false the file
 * is only known to exist. */
static bool interesting(const char *p, bool *keep_data)
{
    *keep_data = true;
    if (!strcmp(p, "var/lib/dpkg/status") || !strcmp(p, "etc/apt/sources.list"))
        return true;
    if (!strncmp(p, "etc/apt/sources.list.d/", 23) && !strchr(p + 23, '/'))
        return true;
    const char *b = strrchr(p, '/');
    b = b ? b + 1 : p;
    if (!strcmp(b, "patchlevel.h") && strstr(p, "include/python3."))
        return true;
    if (!strcmp(b, "METADATA") && strstr(p, ".dist-info/METADATA") &&
        (strstr(p, "/site-packages/") || strstr(p, "/dist-packages/")))
        return true;
    *keep_data = false;
    return (!strncmp(p, "usr/local/bin/python3.", 22) && !strchr(p + 14, '/')) ||
           (!strncmp(p, "usr/bin/python3.", 16) && !strchr(p + 8, '/'));
}

static void add_change(reader *R, layer *L, change_kind kind, const char *path,
                       struct archive *a, bool keep)
{
    change *c = arena_alloc(R->mem, sizeof *c);
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->f.path = path;
    if (keep) {
        size_t len = 0;
        char *data = read_all(a, KEEP_FILE_MAX, &len);
        if (data) {
            c->f.data = arena_strndup(R->mem, data, len);
            c->f.len = len;
            free(data);
        }
    }
    ptrvec_push(&L->changes, c);
}

typedef struct nested {
    struct archive *outer;
    char buf[65536];
} nested;

static la_ssize_t nested_read(struct archive *a, void *data, const void **out)
{
    (void)a;
    nested *n = data;
    *out = n->buf;
    return archive_read_data(n->outer, n->buf, sizeof n->buf);
}

/* One entry of a layer: a whiteout, an opaque marker or a file. */
static el_code layer_entry(reader *R, layer *L, struct archive *in, struct archive_entry *e)
{
    const char *raw = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    const char *p = clean_name(R->mem, raw);
    const char *link = archive_entry_hardlink(e);
    if (!p || (link && !clean_name(R->mem, link)))
        return bad(R, "path_traversal", L->name,
                   "the layer `%s` has the entry `%s`, a path outside the image", L->name,
                   p ? link : raw);
    const char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    size_t dirlen = slash ? (size_t)(slash - p) : 0;
    if (!strcmp(base, ".wh..wh..opq")) {
        add_change(R, L, CH_OPAQUE, arena_strndup(R->mem, p, dirlen), in, false);
    } else if (!strncmp(base, ".wh.", 4)) {
        const char *gone = slash ? arena_sprintf(R->mem, "%.*s/%s", (int)dirlen, p, base + 4)
                                 : arena_strdup(R->mem, base + 4);
        add_change(R, L, CH_WHITEOUT, gone, in, false);
    } else {
        bool keep = false;
        mode_t t = archive_entry_filetype(e);
        /* a directory entry leaves the lower layers' contents in place, and a
         * file that is not interesting can only shadow one that was not either */
        if (t != AE_IFDIR && interesting(p, &keep))
            add_change(R, L, CH_FILE, p, in, keep && t == AE_IFREG);
    }
    return EL_OK;
}

static el_code read_layer(reader *R, layer *L, struct archive *outer)
{
    nested n = { .outer = outer };
    struct archive *in = archive_read_new();
    archive_read_support_filter_all(in);
    archive_read_support_format_tar(in);
    el_code rc = EL_OK;
    if (archive_read_open(in, &n, NULL, nested_read, NULL) != ARCHIVE_OK) {
        rc = bad(R, "unreadable", L->name, "the layer `%s` is not a tar: %s", L->name,
                 archive_error_string(in) ? archive_error_string(in) : "unreadable");
    } else {
        struct archive_entry *e;
        int r;
        while (rc == EL_OK && (r = archive_read_next_header(in, &e)) == ARCHIVE_OK)
            rc = layer_entry(R, L, in, e);
        if (rc == EL_OK && r != ARCHIVE_EOF)
            rc = bad(R, "unreadable", L->name, "the layer `%s` cannot be read: %s", L->name,
                     archive_error_string(in) ? archive_error_string(in) : "unreadable");
    }
    archive_read_free(in);
    L->seen = true;
    return rc;
}

static el_code read_layers(reader *R, int fd)
{
    if (lseek(fd, 0, SEEK_SET) != 0)
        return bad(R, "unreadable", NULL, "cannot be read twice: %s", strerror(errno));
    struct archive *a = open_outer(R, fd);
    if (!a)
        return EL_SPEC_INVALID;
    struct archive_entry *e;
    el_code rc = EL_OK;
    while (rc == EL_OK && archive_read_next_header(a, &e) == ARCHIVE_OK) {
        const char *name = clean_name(R->mem, archive_entry_pathname(e));
        for (size_t i = 0; name && i < R->n_layers && rc == EL_OK; i++)
            if (!R->layers[i].seen && !strcmp(R->layers[i].name, name)) {
                rc = read_layer(R, &R->layers[i], a);
                /* the same blob named twice is one member: share its changes */
                for (size_t j = i + 1; j < R->n_layers; j++)
                    if (!strcmp(R->layers[j].name, name)) {
                        R->layers[j].changes = R->layers[i].changes;
                        R->layers[j].seen = true;
                    }
                break;
            }
    }
    archive_read_free(a);
    for (size_t i = 0; rc == EL_OK && i < R->n_layers; i++)
        if (!R->layers[i].seen)
            rc = bad(R, "missing_layer", R->layers[i].name,
                     "the layer `%s` (%zu of %zu) is not in the archive", R->layers[i].name,
                     i + 1, R->n_layers);
    return rc;
}

/* ---- applying the layers ---- */

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 0)
        return true;
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* Removes from `fs` the files at or under `dir` (with `self_too`) or only
 * under it: a whiteout, an opaque directory, a file replacing lower ones. */
static void remove_matching(ptrvec *fs, const char *dir, bool self_too)
{
    size_t k = 0;
    for (size_t i = 0; i < fs->len; i++) {
        const inspect_file *f = fs->items[i];
        bool gone = under(f->path, dir) && (self_too || strcmp(f->path, dir) != 0);
        if (!gone)
            fs->items[k++] = fs->items[i];
    }
    fs->len = k;
}

static void apply_layer(const layer *L, ptrvec *fs)
{
    for (size_t i = 0; i < L->changes.len; i++) {
        const change *c = L->changes.items[i];
        if (c->kind == CH_OPAQUE)
            remove_matching(fs, c->f.path, false);
        else if (c->kind == CH_WHITEOUT)
            remove_matching(fs, c->f.path, true);
    }
    for (size_t i = 0; i < L->changes.len; i++) {
        const change *c = L->changes.items[i];
        if (c->kind != CH_FILE)
            continue;
        remove_matching(fs, c->f.path, true);
        ptrvec_push(fs, (void *)&c->f);
    }
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp((*(const inspect_file *const *)a)->path, (*(const inspect_file *const *)b)->path);
}

/* The final file system (only interesting files were kept). */
static void flatten(reader *R, inspect_image *out)
{
    ptrvec fs = PTRVEC_INIT;
    for (size_t i = 0; i < R->n_layers; i++)
        apply_layer(&R->layers[i], &fs);
    out->files = arena_alloc(R->mem, (fs.len + 1) * sizeof *out->files);
    size_t n = 0;
    if (fs.len)
        qsort(fs.items, fs.len, sizeof *fs.items, cmp_file);
    for (size_t i = 0; i < fs.len; i++)
        out->files[n++] = *(const inspect_file *)fs.items[i];
    out->n_files = n;
    out->n_layers = R->n_layers;
    ptrvec_release(&fs);
}

el_code inspect_image_read(el_ctx *ctx, const char *path, inspect_image *out)
{
    memset(out, 0, sizeof *out);
    out->mem = arena_new();
    reader R = { .ctx = ctx, .path = path, .mem = out->mem, .members = PTRVEC_INIT };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        el_fail(ctx, EL_SPEC_INVALID, "%s cannot be read: %s", path, strerror(errno));
        el_detail_str(ctx, "reason", "unreadable");
        el_detail_str(ctx, "path", path);
        return EL_SPEC_INVALID;
    }
    el_code rc = read_members(&R, fd);
    if (rc == EL_OK) {
        const member *dm = find_member(&R, "manifest.json");
        const member *om = dm ? NULL : find_member(&R, "index.json");
        const char *which = dm ? "manifest.json" : "index.json";
        json_object *root = dm || om ? member_json(&R, which, "manifest") : NULL;
        if (!dm && !om)
            rc = bad(&R, "not_an_image_archive", NULL,
                     "is not an image archive: it has neither manifest.json (docker save) nor "
                     "index.json (OCI image layout)");
        else if (!root)
            rc = EL_SPEC_INVALID;
        else
            rc = dm ? docker_manifest(&R, root, out) : oci_manifest(&R, root, out);
        json_object_put(root);
    }
    if (rc == EL_OK)
        rc = read_layers(&R, fd);
    if (rc == EL_OK)
        flatten(&R, out);
    close(fd);
    ptrvec_release(&R.members);
    for (size_t i = 0; i < R.n_layers; i++) {
        bool shared = false;
        for (size_t j = 0; j < i && !shared; j++)
            shared = R.layers[j].changes.items == R.layers[i].changes.items;
        if (!shared)
            ptrvec_release(&R.layers[i].changes);
    }
    return rc;
}

void inspect_image_clear(inspect_image *im)
{
    if (im && im->mem)
        arena_free(im->mem);
    if (im)
        memset(im, 0, sizeof *im);
}

const inspect_file *inspect_find(const inspect_image *im, const char *path)
{
    for (size_t i = 0; i < im->n_files; i++)
        if (!strcmp(im->files[i].path, path))
            return &im->files[i];
    return NULL;
}

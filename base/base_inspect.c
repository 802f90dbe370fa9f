/* base_inspect.c — reads an image archive into the few files of its final
 * file system that a catalog entry is worked out from (base_inspect.h).
 * Two passes over the archive with libarchive: the first (here) keeps the
 * names of all members and the bytes of the JSON ones (manifest.json,
 * index.json, configs and manifests under blobs/), and works out the
 * layers the manifest names; the second (base_inspect_layers.c) reads each
 * layer as a nested archive, streaming, and applies them. Nothing is
 * extracted to disk, so a hostile name can do no harm; it is refused
 * anyway (path_traversal), since such an archive was not written by an
 * image tool. Every count and size is bounded (INSPECT_*_MAX), and members
 * are found by binary search, never by scanning. Owns no catalog format:
 * base_inspect_entry.c does. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_inspect.h"

typedef struct member {
    const char *name;
    size_t seq;       /* order in the archive: of two equal names the later wins */
    const char *data; /* NULL when not kept */
    size_t len;
} member;

typedef struct reader {
    inspect_reader r;
    member *members;  /* sorted by name, then seq, once pass 1 is done */
    size_t n_members, alloc;
    const char **layers; /* cleaned member names, manifest order */
    size_t n_layers;
} reader;

el_code inspect_vbad(el_ctx *ctx, const char *path, const char *reason, const char *file,
                     const char *fmt, va_list ap)
{
    char *msg = xvasprintf(fmt, ap);
    el_fail(ctx, EL_SPEC_INVALID, "%s: %s", path, msg);
    el_detail_str(ctx, "reason", reason);
    el_detail_str(ctx, "path", path);
    if (file)
        el_detail_str(ctx, "file", file);
    free(msg);
    return EL_SPEC_INVALID;
}

el_code inspect_bad(inspect_reader *R, const char *reason, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    el_code rc = inspect_vbad(R->ctx, R->path, reason, file, fmt, ap);
    va_end(ap);
    return rc;
}

el_code inspect_charge(inspect_reader *R, uint64_t n, const char *file, const char *entry)
{
    R->kept += n;
    if (R->kept <= INSPECT_KEPT_MAX)
        return EL_OK;
    el_code rc = inspect_bad(
        R, "too_large", file,
        "holds more than the %u MiB of names, manifests and files that envlock keeps of an "
        "image (passed at `%s`%s%s%s): this is no image a registry serves",
        INSPECT_KEPT_MAX >> 20, file, entry ? ", at its entry `" : "", entry ? entry : "",
        entry ? "`" : "");
    el_detail_int(R->ctx, "limit", INSPECT_KEPT_MAX);
    if (entry)
        el_detail_str(R->ctx, "entry", entry);
    return rc;
}

bool inspect_clean_name(const char *name, strbuf *sb)
{
    sb_reset(sb);
    if (name[0] == '/')
        return false;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        if (n && !(n == 1 && p[0] == '.')) {
            if (sb->len)
                sb_addc(sb, '/');
            sb_add(sb, p, n);
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return true;
}

/* The cleaned name in the image's arena, or NULL (path_traversal). */
static const char *clean_name(reader *R, const char *name)
{
    strbuf sb = STRBUF_INIT;
    const char *out = inspect_clean_name(name, &sb) ? arena_strdup(R->r.mem, sb.buf) : NULL;
    sb_release(&sb);
    return out;
}

struct archive *inspect_tar_new(void)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    return a;
}

static struct archive *open_outer(reader *R, int fd)
{
    struct archive *a = inspect_tar_new();
    if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        inspect_bad(&R->r, "not_an_image_archive", NULL, "is not an image archive (a tar): %s",
                    archive_error_string(a) ? archive_error_string(a) : "unreadable");
        archive_read_free(a);
        return NULL;
    }
    return a;
}

/* A JSON member's bytes, or NULL when the member is none: JSON opens with
 * `{` or `[` (after blanks), which no tar or compressed layer does, so
 * only the first block of a layer is ever read here. */
static char *read_json_member(struct archive *a, size_t *len)
{
    strbuf sb = STRBUF_INIT;
    char buf[16384];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
        if (!sb.len) {
            size_t k = 0;
            while (k < (size_t)n && memchr(" \t\r\n", buf[k], 4))
                k++;
            if (k < (size_t)n && buf[k] != '{' && buf[k] != '[')
                break;
        }
        if (sb.len + (size_t)n > INSPECT_JSON_MAX)
            break;
        sb_add(&sb, buf, (size_t)n);
    }
    if (n != 0 || !sb.len) {
        sb_release(&sb);
        return NULL;
    }
    return sb_detach(&sb, len);
}

/* One member of pass 1: its name, and its bytes if it is JSON. */
static el_code add_member(reader *R, struct archive *a, struct archive_entry *e)
{
    const char *raw = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    if (R->n_members >= INSPECT_MEMBERS_MAX) {
        el_code rc = inspect_bad(&R->r, "too_large", raw,
                                 "has more than %u members (the last read is `%s`): an image "
                                 "has a few per layer",
                                 INSPECT_MEMBERS_MAX, raw);
        el_detail_int(R->r.ctx, "limit", INSPECT_MEMBERS_MAX);
        return rc;
    }
    const char *name = clean_name(R, raw);
    if (!name)
        return inspect_bad(&R->r, "path_traversal", raw,
                           "the member `%s` names a path outside the archive", raw);
    if (inspect_charge(&R->r, strlen(name) + sizeof(member), raw, NULL) != EL_OK)
        return EL_SPEC_INVALID;
    if (R->n_members == R->alloc) {
        R->alloc = R->alloc ? 2 * R->alloc : 64;
        R->members = xrealloc(R->members, R->alloc * sizeof *R->members);
    }
    member *m = &R->members[R->n_members];
    *m = (member){ .name = name, .seq = R->n_members };
    R->n_members++;
    if (archive_entry_filetype(e) != AE_IFREG || archive_entry_size(e) > INSPECT_JSON_MAX)
        return EL_OK;
    size_t len = 0;
    char *data = read_json_member(a, &len);
    el_code rc = data ? inspect_charge(&R->r, len, raw, NULL) : EL_OK;
    if (data && rc == EL_OK) {
        m->data = arena_strndup(R->r.mem, data, len);
        m->len = len;
    }
    free(data);
    return rc;
}

static int cmp_member(const void *a, const void *b)
{
    const member *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->seq < y->seq ? -1 : x->seq > y->seq);
}

/* Pass 1: every member's name, and the bytes of the JSON ones. */
static el_code read_members(reader *R, int fd)
{
    struct archive *a = open_outer(R, fd);
    if (!a)
        return EL_SPEC_INVALID;
    struct archive_entry *e;
    int r;
    el_code rc = EL_OK;
    while (rc == EL_OK && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK)
        rc = add_member(R, a, e);
    if (rc == EL_OK && r != ARCHIVE_EOF)
        rc = inspect_bad(&R->r, R->n_members ? "unreadable" : "not_an_image_archive", NULL,
                         "is not an image archive (a tar): %s",
                         archive_error_string(a) ? archive_error_string(a) : "unreadable");
    archive_read_free(a);
    if (R->n_members)
        qsort(R->members, R->n_members, sizeof *R->members, cmp_member);
    return rc;
}

/* The member named `name` (the last of that name), by binary search. */
static const member *find_member(const reader *R, const char *name)
{
    size_t lo = 0, hi = R->n_members;
    while (lo < hi) { /* the first member whose name is above `name` */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(R->members[mid].name, name) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && !strcmp(R->members[lo - 1].name, name) ? &R->members[lo - 1] : NULL;
}

/* A JSON member: parsed, owned by the caller; NULL after a
 * missing_manifest failure naming it. */
static json_object *member_json(reader *R, const char *name, const char *what)
{
    const char *clean = clean_name(R, name);
    if (!clean) {
        inspect_bad(&R->r, "path_traversal", name, "the %s `%s` names a path outside the archive",
                    what, name);
        return NULL;
    }
    const member *m = find_member(R, clean);
    json_object *j = m && m->data ? json_tokener_parse(m->data) : NULL;
    if (!j)
        inspect_bad(&R->r, "missing_manifest", clean, "the %s `%s` is %s", what, clean,
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
    return arena_sprintf(R->r.mem, "blobs/%.*s/%s", (int)(colon - digest), digest, colon + 1);
}

/* Room for the `n` layers a manifest names; too_large past
 * INSPECT_LAYERS_MAX (docker itself stops at 127). */
static el_code set_layers(reader *R, size_t n, const char *manifest)
{
    if (n > INSPECT_LAYERS_MAX) {
        el_code rc = inspect_bad(&R->r, "too_large", manifest,
                                 "%s names %zu layers, more than the %u envlock reads", manifest,
                                 n, INSPECT_LAYERS_MAX);
        el_detail_int(R->r.ctx, "limit", INSPECT_LAYERS_MAX);
        return rc;
    }
    R->layers = arena_alloc(R->r.mem, (n + 1) * sizeof *R->layers);
    memset(R->layers, 0, (n + 1) * sizeof *R->layers);
    R->n_layers = n;
    return EL_OK;
}

/* The config: architecture and the Env's PYTHON_VERSION (the official
 * python images set it), both only hints for what the files say. */
static void read_config(reader *R, json_object *cfg, inspect_image *out)
{
    const char *arch = jstr(cfg, "architecture");
    if (arch)
        out->arch = arena_strdup(R->r.mem, arch);
    json_object *env = jget(jget(cfg, "config"), "Env");
    for (size_t i = 0; json_object_is_type(env, json_type_array) &&
                       i < json_object_array_length(env); i++) {
        const char *kv = json_object_get_string(json_object_array_get_idx(env, i));
        if (kv && strncmp(kv, "PYTHON_VERSION=", 15) == 0)
            out->python_env = arena_strdup(R->r.mem, kv + 15);
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
        return inspect_bad(&R->r, "missing_manifest", "manifest.json",
                           "manifest.json names no image with Layers");
    json_object *tags = jget(img, "RepoTags");
    if (json_object_is_type(tags, json_type_array) && json_object_array_length(tags))
        out->reference = arena_strdup(
            R->r.mem, json_object_get_string(json_object_array_get_idx(tags, 0)));
    const char *config = jstr(img, "Config");
    if (config) {
        json_object *cfg = member_json(R, config, "config");
        if (!cfg)
            return EL_SPEC_INVALID;
        read_config(R, cfg, out);
        json_object_put(cfg);
    }
    if (set_layers(R, json_object_array_length(layers), "manifest.json") != EL_OK)
        return EL_SPEC_INVALID;
    for (size_t i = 0; i < R->n_layers; i++) {
        const char *l = json_object_get_string(json_object_array_get_idx(layers, i));
        if (!l || !(R->layers[i] = clean_name(R, l)))
            return inspect_bad(&R->r, "path_traversal", l ? l : "(null)",
                               "the layer `%s` names a path outside the archive",
                               l ? l : "(null)");
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
        out->reference = arena_strdup(R->r.mem, name);
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
            rc = inspect_bad(&R->r, "missing_manifest", depth ? "(nested index)" : "index.json",
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
        rc = inspect_bad(&R->r, "missing_manifest", "index.json",
                         "index.json leads to no image manifest");
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
    if (rc == EL_OK)
        rc = set_layers(R, json_object_array_length(layers), "the image manifest");
    for (size_t i = 0; i < R->n_layers && rc == EL_OK; i++) {
        const char *digest = jstr(json_object_array_get_idx(layers, i), "digest");
        const char *file = blob_path(R, digest);
        if (!file || !(R->layers[i] = clean_name(R, file)))
            rc = inspect_bad(&R->r, "path_traversal", digest ? digest : "(null)",
                             "the layer `%s` names a path outside the archive",
                             digest ? digest : "(null)");
    }
    json_object_put(owned);
    return rc;
}

/* The manifest (docker's or OCI's) into R->layers and out's hints. */
static el_code read_manifest(reader *R, inspect_image *out)
{
    const member *dm = find_member(R, "manifest.json");
    const member *om = dm ? NULL : find_member(R, "index.json");
    if (!dm && !om)
        return inspect_bad(&R->r, "not_an_image_archive", NULL,
                           "is not an image archive: it has neither manifest.json (docker "
                           "save) nor index.json (OCI image layout)");
    json_object *root = member_json(R, dm ? "manifest.json" : "index.json", "manifest");
    if (!root)
        return EL_SPEC_INVALID;
    el_code rc = dm ? docker_manifest(R, root, out) : oci_manifest(R, root, out);
    json_object_put(root);
    return rc;
}

el_code inspect_image_read(el_ctx *ctx, const char *path, inspect_image *out)
{
    memset(out, 0, sizeof *out);
    out->mem = arena_new();
    reader R = { .r = { .ctx = ctx, .path = path, .mem = out->mem } };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        el_fail(ctx, EL_SPEC_INVALID, "%s cannot be read: %s", path, strerror(errno));
        el_detail_str(ctx, "reason", "unreadable");
        el_detail_str(ctx, "path", path);
        return EL_SPEC_INVALID;
    }
    el_code rc = read_members(&R, fd);
    if (rc == EL_OK)
        rc = read_manifest(&R, out);
    free(R.members); /* the JSON they hold is read by now */
    if (rc == EL_OK)
        rc = inspect_layers_read(&R.r, fd, R.layers, R.n_layers, out);
    close(fd);
    return rc;
}

void inspect_image_clear(inspect_image *im)
{
    if (im && im->mem)
        arena_free(im->mem);
    if (im)
        memset(im, 0, sizeof *im);
}

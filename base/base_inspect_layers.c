/* base_inspect_layers.c — the second pass of base inspect (base_inspect.h):
 * each layer the manifest names, read as a nested archive while streaming
 * through the outer one, keeping only the changes that matter to a catalog
 * entry (the interesting files, whiteouts and opaque markers), then all
 * layers applied at once. A layer the manifest names twice is one blob,
 * read once and freed once. Applying is a sort and one sweep, O(n log n)
 * in the changes kept, not a scan of the file system per change. Knows
 * nothing of manifests (base_inspect.c) or of the catalog entry
 * (base_inspect_entry.c). */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_inspect.h"

typedef enum change_kind { CH_WHITEOUT, CH_OPAQUE, CH_FILE } change_kind;

/* One change a layer makes, as the sweep reads it. */
typedef struct change {
    const char *path; /* CH_WHITEOUT: the path removed; CH_OPAQUE: its directory */
    change_kind kind;
    size_t level;     /* 1 + the highest manifest position of its layer */
    size_t seq;       /* order within the layer: of two equal paths the later wins */
    const char *data; /* CH_FILE: the bytes kept, or NULL (known by name only) */
    size_t len;
} change;

/* A layer member of the archive; several manifest positions may name it. */
typedef struct blob {
    const char *name;
    size_t level;     /* 1 + the last position naming it: that application shows */
    size_t first;     /* the first position naming it, for messages */
    bool seen;
} blob;

typedef struct layers {
    inspect_reader *R;
    blob *blobs;      /* unique, sorted by name */
    size_t n_blobs, n_named;
    change *changes;  /* of every blob, each read once */
    size_t n_changes, alloc;
    strbuf name;      /* scratch: an entry's cleaned name */
} layers;

static int cmp_blob(const void *a, const void *b)
{
    const blob *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->first < y->first ? -1 : x->first > y->first);
}

/* The manifest's layer names as unique blobs; a repeated one keeps its
 * first position (messages) and last (the application that shows). */
static void make_blobs(layers *L, const char *const *names, size_t n)
{
    L->blobs = xcalloc(n + 1, sizeof *L->blobs);
    for (size_t i = 0; i < n; i++)
        L->blobs[i] = (blob){ .name = names[i], .level = i + 1, .first = i };
    if (n)
        qsort(L->blobs, n, sizeof *L->blobs, cmp_blob);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && !strcmp(L->blobs[k - 1].name, L->blobs[i].name))
            L->blobs[k - 1].level = L->blobs[i].level;
        else
            L->blobs[k++] = L->blobs[i];
    }
    L->n_blobs = k;
    L->n_named = n;
}

static blob *find_blob(layers *L, const char *name)
{
    blob key = { .name = name };
    size_t lo = 0, hi = L->n_blobs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(L->blobs[mid].name, key.name);
        if (c == 0)
            return &L->blobs[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

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

static el_code too_large_file(layers *L, const blob *b, const char *path, uint64_t size)
{
    inspect_reader *R = L->R;
    el_code rc = inspect_bad(R, "too_large", b->name,
                             "the layer `%s` holds `%s` of %s%llu bytes, over the %u MiB "
                             "envlock reads of one file",
                             b->name, path, size ? "" : "more than ",
                             (unsigned long long)(size ? size : INSPECT_FILE_MAX),
                             INSPECT_FILE_MAX >> 20);
    el_detail_str(R->ctx, "entry", path);
    el_detail_int(R->ctx, "limit", INSPECT_FILE_MAX);
    return rc;
}

/* A file's bytes, at most INSPECT_FILE_MAX (too_large past it, whatever
 * the header declared). */
static el_code read_file_data(layers *L, const blob *b, struct archive *in, change *c)
{
    strbuf sb = STRBUF_INIT;
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(in, buf, sizeof buf)) > 0 &&
           sb.len + (size_t)n <= INSPECT_FILE_MAX)
        sb_add(&sb, buf, (size_t)n);
    el_code rc = EL_OK;
    if (n > 0)
        rc = too_large_file(L, b, c->path, 0);
    else if (n < 0)
        rc = inspect_bad(L->R, "unreadable", b->name, "the layer `%s` cannot be read at `%s`: %s",
                         b->name, c->path,
                         archive_error_string(in) ? archive_error_string(in) : "unreadable");
    else
        rc = inspect_charge(L->R, sb.len, b->name, c->path);
    if (rc == EL_OK) {
        c->data = arena_strndup(L->R->mem, sb.buf, sb.len);
        c->len = sb.len;
    }
    sb_release(&sb);
    return rc;
}

static el_code add_change(layers *L, const blob *b, change_kind kind, const char *path)
{
    if (inspect_charge(L->R, strlen(path) + sizeof(change), b->name, path) != EL_OK)
        return EL_SPEC_INVALID;
    if (L->n_changes == L->alloc) {
        L->alloc = L->alloc ? 2 * L->alloc : 256;
        L->changes = xrealloc(L->changes, L->alloc * sizeof *L->changes);
    }
    size_t k = L->n_changes++;
    L->changes[k] = (change){ .path = arena_strdup(L->R->mem, path), .kind = kind,
                              .level = b->level, .seq = k };
    return EL_OK;
}

/* One entry of a layer: a whiteout, an opaque marker or a file. */
static el_code layer_entry(layers *L, const blob *b, struct archive *in, struct archive_entry *e)
{
    const char *raw = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    const char *link = archive_entry_hardlink(e);
    bool ok = !link || inspect_clean_name(link, &L->name);
    if (!ok || !inspect_clean_name(raw, &L->name))
        return inspect_bad(L->R, "path_traversal", b->name,
                           "the layer `%s` has the entry `%s`, a path outside the image",
                           b->name, ok ? raw : link);
    const char *p = L->name.buf;
    const char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    size_t dirlen = slash ? (size_t)(slash - p) : 0;
    if (!strcmp(base, ".wh..wh..opq")) {
        sb_setlen(&L->name, dirlen);
        return add_change(L, b, CH_OPAQUE, L->name.buf);
    }
    if (!strncmp(base, ".wh.", 4)) {
        memmove((char *)base, base + 4, strlen(base + 4) + 1);
        sb_setlen(&L->name, L->name.len - 4);
        return add_change(L, b, CH_WHITEOUT, L->name.buf);
    }
    bool keep = false;
    mode_t t = archive_entry_filetype(e);
    /* a directory entry leaves the lower layers' contents in place, and a
     * file that is not interesting can only shadow one that was not either */
    if (t == AE_IFDIR || !interesting(p, &keep))
        return EL_OK;
    if (keep && t == AE_IFREG && archive_entry_size_is_set(e) &&
        archive_entry_size(e) > (la_int64_t)INSPECT_FILE_MAX)
        return too_large_file(L, b, p, (uint64_t)archive_entry_size(e));
    if (add_change(L, b, CH_FILE, p) != EL_OK)
        return EL_SPEC_INVALID;
    return keep && t == AE_IFREG ? read_file_data(L, b, in, &L->changes[L->n_changes - 1])
                                 : EL_OK;
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

static el_code read_layer(layers *L, blob *b, struct archive *outer)
{
    nested *n = xmalloc(sizeof *n);
    n->outer = outer;
    struct archive *in = inspect_tar_new();
    el_code rc = EL_OK;
    b->seen = true;
    if (archive_read_open(in, n, NULL, nested_read, NULL) != ARCHIVE_OK) {
        rc = inspect_bad(L->R, "unreadable", b->name, "the layer `%s` is not a tar: %s", b->name,
                         archive_error_string(in) ? archive_error_string(in) : "unreadable");
    } else {
        struct archive_entry *e;
        int r;
        while (rc == EL_OK && (r = archive_read_next_header(in, &e)) == ARCHIVE_OK)
            rc = layer_entry(L, b, in, e);
        if (rc == EL_OK && r != ARCHIVE_EOF)
            rc = inspect_bad(L->R, "unreadable", b->name, "the layer `%s` cannot be read: %s",
                             b->name,
                             archive_error_string(in) ? archive_error_string(in) : "unreadable");
    }
    archive_read_free(in);
    free(n);
    return rc;
}

static el_code read_blobs(layers *L, int fd)
{
    inspect_reader *R = L->R;
    if (lseek(fd, 0, SEEK_SET) != 0)
        return inspect_bad(R, "unreadable", NULL, "cannot be read twice: %s", strerror(errno));
    struct archive *a = inspect_tar_new();
    if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        archive_read_free(a);
        return inspect_bad(R, "unreadable", NULL, "cannot be read twice");
    }
    struct archive_entry *e;
    el_code rc = EL_OK;
    while (rc == EL_OK && archive_read_next_header(a, &e) == ARCHIVE_OK) {
        const char *raw = archive_entry_pathname(e);
        blob *b = raw && inspect_clean_name(raw, &L->name) ? find_blob(L, L->name.buf) : NULL;
        if (b && !b->seen)
            rc = read_layer(L, b, a);
    }
    archive_read_free(a);
    for (size_t i = 0; rc == EL_OK && i < L->n_blobs; i++)
        if (!L->blobs[i].seen)
            rc = inspect_bad(R, "missing_layer", L->blobs[i].name,
                             "the layer `%s` (%zu of %zu) is not in the archive",
                             L->blobs[i].name, L->blobs[i].first + 1, L->n_named);
    return rc;
}

/* ---- applying the layers ---- */

/* Path order with `/` below every other byte, so that a directory's
 * subtree follows it without a gap: "a", "a/b", "a/c", "a-x". */
static int path_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = *a == '/' ? 1u : *a ? (unsigned char)*a + 1u : 0u;
        unsigned cb = *b == '/' ? 1u : *b ? (unsigned char)*b + 1u : 0u;
        if (ca != cb || !ca)
            return ca < cb ? -1 : ca > cb;
    }
}

static int cmp_change(const void *a, const void *b)
{
    const change *x = a, *y = b;
    int c = path_cmp(x->path, y->path);
    if (c)
        return c;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether `dir` is a strict ancestor of `path` ("" is everyone's). */
static bool ancestor(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    return n == 0 ? path[0] != '\0' : !strncmp(path, dir, n) && path[n] == '/';
}

typedef struct frame {
    const char *path;
    size_t hides; /* entries below it from levels under this are gone */
} frame;

/* The changes of one path [c, end): the file that shows, if any, and what
 * the path hides below itself. `above` is what its ancestors hide. */
static const change *settle(const change *c, const change *end, size_t above, size_t *hides)
{
    const change *file = NULL;
    size_t gone = above, below = above;
    for (; c < end; c++) {
        if (c->kind == CH_FILE)
            file = c; /* sorted: the last is the highest level, the latest */
        else if (c->kind == CH_WHITEOUT && c->level > gone)
            gone = c->level;
        if (c->level > below)
            below = c->level;
    }
    *hides = below;
    /* a layer's whiteouts come before its own files, so a file shows
     * unless a higher layer removed it or its directory */
    return file && file->level >= gone ? file : NULL;
}

/* All layers applied: the sweep over the sorted changes keeps, as a stack,
 * the ancestors of the current path and the level below which each hides. */
static void flatten(layers *L, inspect_image *out)
{
    if (L->n_changes)
        qsort(L->changes, L->n_changes, sizeof *L->changes, cmp_change);
    out->files = arena_alloc(L->R->mem, (L->n_changes + 1) * sizeof *out->files);
    frame *stack = xmalloc((L->n_changes + 1) * sizeof *stack);
    size_t depth = 0, n = 0;
    for (size_t i = 0, j; i < L->n_changes; i = j) {
        const char *p = L->changes[i].path;
        for (j = i + 1; j < L->n_changes && !strcmp(L->changes[j].path, p); j++)
            ;
        while (depth && !ancestor(stack[depth - 1].path, p))
            depth--;
        size_t hides = 0;
        const change *f = settle(&L->changes[i], &L->changes[j],
                                 depth ? stack[depth - 1].hides : 0, &hides);
        if (f)
            out->files[n++] = (inspect_file){ .path = f->path, .data = f->data, .len = f->len };
        stack[depth++] = (frame){ .path = p, .hides = hides };
    }
    free(stack);
    out->n_files = n;
}

el_code inspect_layers_read(inspect_reader *R, int fd, const char *const *names, size_t n,
                            inspect_image *out)
{
    layers L = { .R = R, .name = STRBUF_INIT };
    make_blobs(&L, names, n);
    el_code rc = read_blobs(&L, fd);
    if (rc == EL_OK) {
        flatten(&L, out);
        out->n_layers = n;
    }
    free(L.blobs);
    free(L.changes);
    sb_release(&L.name);
    return rc;
}

const inspect_file *inspect_find(const inspect_image *im, const char *path)
{
    size_t lo = 0, hi = im->n_files;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = path_cmp(im->files[mid].path, path);
        if (c == 0)
            return &im->files[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

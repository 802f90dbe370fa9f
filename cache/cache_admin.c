/* cache_admin.c — the public cache maintenance API (include/envlock/cache.h):
 * info, prune, and export/import as one tar+zstd archive (libarchive) with a
 * sha256 manifest, optionally signed (Ed25519, through util/crypto.h; no
 * OpenSSL here). Import is all or nothing and bounded: sizes are checked
 * against hard limits and the manifest before anything is written, members
 * land in a locked staging directory inside the cache, are verified
 * against the manifest and as entries, and only then renamed into place;
 * staging left by a killed import is found and removed. Never touches the
 * network.
 * Seals (<key>.seal beside a raw entry, see cache_store.c) are not entries:
 * info does not count them, prune removes one together with its entry (and
 * any whose entry is gone), and export/import skip them (an imported raw
 * entry is sealed by its first full check). File entries (<key>.file,
 * cache.h) are likewise no entries here: only prune --all removes them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <json-c/json.h>

#include "cache.h"
#include "crypto.h"

#define MANIFEST "manifest.json"
#define MANIFEST_FORMAT "envlock-cache-export"
#define MANIFEST_MAX (64u << 20)
#define SIGNATURE "manifest.sig"
#define SIGNATURE_FORMAT "envlock-cache-signature"
#define SIGNATURE_MAX (4u << 10)
/* Import bounds (see "import" below). A member is one entry file, and the
 * store reads none larger than 4 GiB. An archive's members are entry files,
 * mostly zstd frames already, so they barely shrink again (raw .solv blobs
 * and tar padding do, a few times); 64x plus 64 MiB leaves legitimate
 * archives far inside and stops a bomb at its first header. */
#define MEMBER_MAX ((uint64_t)4 << 30)
#define EXPAND_RATIO 64u
#define EXPAND_SLACK ((uint64_t)64 << 20)
#define TEMP_MAX_AGE_S 3600
#define STAGING_PREFIX ".import-"
#define STAGING_LOCK ".lock"
/* An unlocked staging directory unchanged this long is a dead import's. */
#define STAGING_MAX_AGE_S 600
/* A local file or directory that cannot be read or written. */
#define CACHE_IO EL_IO

static bool is_key(const char *s)
{
    return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

el_code el_cache_dir(el_ctx *ctx, const el_cache_options *o, char **dir)
{
    *dir = cache_default_dir(o);
    if (!*dir)
        return cache_fail_no_dir(ctx);
    return EL_OK;
}

typedef struct walk_state {
    el_cache_stats *st;
    bool prune;
    bool all;
    int64_t cutoff_ms;
    time_t now;
    /* prune: what should have gone and could not */
    uint64_t failed;
    char *fail_path;
    int fail_errno;
} walk_state;

static void count_entry(el_cache_stats *st, const cache_meta *m, const struct stat *sb)
{
    st->entries++;
    if (m->immutable)
        st->immutable++;
    else
        st->revalidated++;
    st->bytes += (uint64_t)sb->st_size;
    st->body_bytes += m->size;
}

/* remove_path() : unlink (or, `dir`, rmdir) for prune; a failure other
 *  than "already gone" is recorded on w (the first one's path and errno
 *  are what the prune reports). True when `path` is gone. */
static bool remove_path(walk_state *w, const char *path, bool dir)
{
    if ((dir ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT)
        return true;
    if (w) {
        if (!w->failed) {
            w->fail_path = xstrdup(path);
            w->fail_errno = errno;
        }
        w->failed++;
    }
    return false;
}

/* unlink_entry() : removes the entry file at `path` and its seal, if any
 *  (a seal describes one inode; without its entry it is only litter). True
 *  when the entry itself was removed. */
static bool unlink_entry(walk_state *w, const char *path)
{
    if (!remove_path(w, path, false))
        return false;
    char *seal = xasprintf("%s.seal", path);
    remove_path(w, seal, false);
    free(seal);
    return true;
}

/* A lock, file entry or seal beside the entries (named <key><suffix>):
 * what prune does to it; false when `name` is none of these. */
static bool visit_side_file(walk_state *w, const char *path, const char *name)
{
    size_t n = strlen(name);
    if (n == 64 + 5 && strcmp(name + 64, ".lock") == 0) {
        if (w->prune && w->all) {
            /* Only a lock nobody holds; a waiter on the old inode at worst
             * fetches once more. */
            int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
            if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
                remove_path(w, path, false);
            if (fd >= 0)
                close(fd);
        }
        return true;
    }
    if (n == 64 + 5 && strcmp(name + 64, CACHE_FILE_SUFFIX) == 0) {
        /* A file entry (a streamed artifact, cache.h): immutable, so only
         * prune --all removes it; not exported (a hard link to a file the
         * caller holds, carried with it). */
        if (w->prune && w->all)
            remove_path(w, path, false);
        return true;
    }
    if (n == 64 + 5 && strcmp(name + 64, ".seal") == 0) {
        /* Not an entry. Prune removes a seal whose entry is gone (removed
         * by a reader that found it corrupt, or by an older envlock). A
         * seal written after its entry vanished is removed next time. */
        if (w->prune) {
            char *entry = xasprintf("%.*s", (int)(strlen(path) - 5), path);
            struct stat es;
            if (lstat(entry, &es) != 0 && errno == ENOENT)
                remove_path(w, path, false);
            free(entry);
        }
        return true;
    }
    return false;
}

/* An entry <key>: counted, or removed by prune when it is corrupt, past
 * the cutoff or under --all. */
static void visit_entry(walk_state *w, const char *path, const char *name,
                        const struct stat *sb)
{
    if (!is_key(name))
        return;
    cache_meta m;
    cache_meta_init(&m);
    if (!cache_entry_read_meta(path, &m)) {
        if (w->prune) {
            if (unlink_entry(w, path))
                w->st->corrupt++;
        } else {
            w->st->corrupt++;
        }
        return;
    }
    if (!w->prune) {
        count_entry(w->st, &m, sb);
    } else if (w->all || (!m.immutable && m.fetched_ms < w->cutoff_ms)) {
        if (unlink_entry(w, path))
            count_entry(w->st, &m, sb);
    }
    cache_meta_clear(&m);
}

static void visit(const char *path, const char *name, void *u)
{
    walk_state *w = u;
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (!S_ISREG(sb.st_mode)) {
        /* A FIFO, socket, symlink or directory where an entry belongs is
         * corrupt: never read (the store refuses it too), removed by prune
         * when it can be (a directory is only counted). */
        if (is_key(name)) {
            if (!w->prune)
                w->st->corrupt++;
            else if (!S_ISDIR(sb.st_mode) && remove_path(w, path, false))
                w->st->corrupt++;
        }
        return;
    }
    if (strncmp(name, ".tmp-", 5) == 0) {
        /* An interrupted write (or one in flight: leave young ones alone). */
        if (w->prune && w->now - sb.st_mtime > (w->all ? 60 : TEMP_MAX_AGE_S)) {
            if (remove_path(w, path, false))
                w->st->temp_files++;
        } else if (!w->prune) {
            w->st->temp_files++;
        }
        return;
    }
    if (!visit_side_file(w, path, name))
        visit_entry(w, path, name, &sb);
}

/* ---- import staging ----
 *
 * An import stages its members in <dir>/v1/.import-XXXXXX and holds an
 * exclusive flock on the file .lock inside it for its whole life. A killed
 * import leaves the directory behind (with gigabytes in it, possibly);
 * info counts such directories and prune and every import remove them.
 * One is stale when its lock can be taken (no live process holds it: flock
 * dies with its holder) and it has not changed for a while — the age
 * covers the instant between mkdtemp() and the flock of a starting import,
 * and staging directories of envlocks that took no lock. A live import in
 * another process is never removed, however old. */

/* The bytes of the files directly in staging directory `path` (members are
 * flat: named by their key). */
static uint64_t staging_bytes(const char *path)
{
    uint64_t total = 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode))
            total += (uint64_t)sb.st_size;
    }
    closedir(d);
    return total;
}

/* remove_tree() : empties the staging directory `path` (its entries are
 *  files) and removes it. Failures go to `w` (may be NULL). */
static bool remove_tree(walk_state *w, const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = xasprintf("%s/%s", path, e->d_name);
            remove_path(w, p, false);
            free(p);
        }
        closedir(d);
    }
    return remove_path(w, path, true);
}

/* staging_sweep() :
 *  Visits every <dir>/v1/.import-* directory: counts all of them into *st
 *  unless `remove` (info); otherwise removes the stale ones (see above:
 *  unlocked and unchanged for `min_age` seconds), counting those into *st,
 *  failures into `w` (may be NULL). */
static void staging_sweep(const char *dir, bool remove, walk_state *w, el_cache_stats *st,
                          time_t min_age)
{
    char *v1 = xasprintf("%s/v1", dir);
    DIR *d = opendir(v1);
    if (!d) {
        free(v1);
        return;
    }
    ptrvec names = PTRVEC_INIT;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, STAGING_PREFIX, strlen(STAGING_PREFIX)) == 0)
            ptrvec_push(&names, xstrdup(e->d_name));
    closedir(d);
    time_t now = time(NULL);
    for (size_t i = 0; i < names.len; i++) {
        char *path = xasprintf("%s/%s", v1, (char *)names.items[i]);
        struct stat sb;
        if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            free(path);
            continue;
        }
        uint64_t bytes = staging_bytes(path);
        if (!remove) {
            st->staging++;
            st->staging_bytes += bytes;
            free(path);
            continue;
        }
        char *lock = xasprintf("%s/" STAGING_LOCK, path);
        int fd = open(lock, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
        struct stat ls;
        bool held = false;
        time_t changed = sb.st_mtime;
        if (fd >= 0) {
            held = fstat(fd, &ls) != 0 || !S_ISREG(ls.st_mode) ||
                   flock(fd, LOCK_EX | LOCK_NB) != 0;
            if (!held && ls.st_mtime > changed)
                changed = ls.st_mtime;
        }
        /* The lock stays held (fd open) while the directory goes. */
        if (!held && now - changed >= min_age && remove_tree(w, path)) {
            st->staging++;
            st->staging_bytes += bytes;
        }
        if (fd >= 0)
            close(fd);
        free(lock);
        free(path);
    }
    for (size_t i = 0; i < names.len; i++)
        free(names.items[i]);
    ptrvec_release(&names);
    free(v1);
}

el_code el_cache_info(el_ctx *ctx, const el_cache_options *o, el_cache_stats *st)
{
    char *dir;
    memset(st, 0, sizeof *st);
    if (el_cache_dir(ctx, o, &dir) != EL_OK)
        return el_ctx_code(ctx);
    walk_state w = { st, false, false, 0, time(NULL), 0, NULL, 0 };
    cache_store_walk(dir, visit, &w);
    staging_sweep(dir, false, NULL, st, 0);
    free(dir);
    return EL_OK;
}

el_code el_cache_prune(el_ctx *ctx, const el_cache_options *o, unsigned days, bool all,
                       el_cache_stats *removed)
{
    el_cache_stats local;
    el_cache_stats *st = removed ? removed : &local;
    memset(st, 0, sizeof *st);
    char *dir;
    if (el_cache_dir(ctx, o, &dir) != EL_OK)
        return el_ctx_code(ctx);
    walk_state w = { st, true, all, cache_now_ms() - (int64_t)days * 86400 * 1000, time(NULL),
                     0, NULL, 0 };
    /* A cache that cannot even be listed is a failure, not an empty cache
     * (a missing one is empty). */
    char *v1 = xasprintf("%s/v1", dir);
    DIR *d = opendir(v1);
    if (d)
        closedir(d);
    else if (errno != ENOENT) {
        w.fail_path = xstrdup(v1);
        w.fail_errno = errno;
        w.failed++;
    }
    free(v1);
    cache_store_walk(dir, visit, &w);
    staging_sweep(dir, true, &w, st, all ? 60 : STAGING_MAX_AGE_S);
    el_code rc = EL_OK;
    if (w.failed) {
        rc = el_fail(ctx, CACHE_IO, "cannot prune the cache %s: %s: %s (%llu %s could not be removed; "
                     "%llu entries were)",
                     dir, w.fail_path, strerror(w.fail_errno), (unsigned long long)w.failed,
                     w.failed == 1 ? "file" : "files", (unsigned long long)st->entries);
        el_detail_str(ctx, "path", w.fail_path);
        el_detail_int(ctx, "errno", w.fail_errno);
        el_detail_str(ctx, "error", strerror(w.fail_errno));
        el_detail_int(ctx, "failed", (int64_t)w.failed);
    }
    free(w.fail_path);
    free(dir);
    return rc;
}

/* ---- signatures ----
 *
 * A signed archive carries, after the manifest, the member manifest.sig:
 *   {"format":"envlock-cache-signature","version":1,"algorithm":"ed25519",
 *    "publicKey":"<64 hex>","signature":"<128 hex>"}
 * The signature is over the manifest's list, one line per member in the
 * manifest's order, under a fixed first line (so that no other envlock
 * signature can be passed off as this one):
 *   "envlock-cache-export signature 1\n" then "<sha256> <size> <path>\n"...
 * That list is everything import trusts the manifest for, and each member
 * is checked against it, so a signature that verifies vouches for every
 * byte imported. publicKey names the signer for a person reading the
 * archive; import trusts only the key it is given. */

typedef struct listed {
    char path[71]; /* v1/ab/<key> */
    char key[65];
    char sha256[65];
    uint64_t size;
    bool seen;
} listed;

static void signed_message(const listed *ls, size_t n, strbuf *out)
{
    sb_adds(out, "envlock-cache-export signature 1\n");
    for (size_t i = 0; i < n; i++)
        sb_addf(out, "%s %llu %s\n", ls[i].sha256, (unsigned long long)ls[i].size, ls[i].path);
}

static el_code key_failure(el_ctx *ctx, const char *key, const char *what, const char *why, int err)
{
    if (err)
        el_fail(ctx, EL_USAGE, "cannot use %s %s: %s: %s", what, key, why, strerror(err));
    else
        el_fail(ctx, EL_USAGE, "cannot use %s %s: %s", what, key, why);
    el_detail_str(ctx, "key", key);
    return EL_USAGE;
}

/* ---- export ---- */

static bool add_member(struct archive *a, const char *name, const void *data, size_t n)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    archive_entry_set_size(e, (la_int64_t)n);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, 0, 0); /* same cache, same archive bytes */
    bool ok = archive_write_header(a, e) == ARCHIVE_OK &&
              (n == 0 || archive_write_data(a, data, n) == (la_ssize_t)n);
    archive_entry_free(e);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries only: locks, temp files and seals stay behind (a seal describes
 * the inode of this cache's file, meaningless in another cache). */
static void collect(const char *path, const char *name, void *u)
{
    if (is_key(name))
        ptrvec_push(u, xstrdup(path));
}

static el_code write_failure(el_ctx *ctx, const char *file, const char *why)
{
    el_fail(ctx, CACHE_IO, "cannot write %s: %s", file, why);
    el_detail_str(ctx, "path", file);
    return CACHE_IO;
}

/* load_key() : the signing (private) or verification key at `path`, or
 * NULL in *out when no path is given. */
static el_code load_key(el_ctx *ctx, const char *path, bool private, ed25519_key **out)
{
    *out = NULL;
    if (!path)
        return EL_OK;
    const char *why;
    int err;
    *out = ed25519_key_load(path, private, &why, &err);
    if (!*out)
        return key_failure(ctx, path, private ? "the signing key" : "the verification key", why,
                           err);
    return EL_OK;
}

/* The files an export lists, as the manifest and the signature see them. */
typedef struct exported {
    json_object *files;
    listed *ls;
    size_t nls;
} exported;

/* Adds each valid entry under `dir` (sorted `paths`) to the archive and
 * to `ex`; a corrupt or vanished entry is left out. */
static el_code add_entries(el_ctx *ctx, struct archive *a, const char *file, const char *dir,
                           const ptrvec *paths, exported *ex, el_cache_stats *st)
{
    size_t dirlen = strlen(dir);
    el_code rc = EL_OK;
    for (size_t i = 0; rc == EL_OK && i < paths->len; i++) {
        const char *p = paths->items[i];
        size_t n;
        unsigned char *data = (unsigned char *)read_file(p, (size_t)4 << 30, &n);
        if (!data)
            continue; /* pruned meanwhile */
        const char *name = strrchr(p, '/') + 1;
        cache_meta m;
        cache_meta_init(&m);
        if (cache_entry_check(data, n, name, &m, NULL, NULL)) {
            free(data); /* corrupt: not worth carrying */
            continue;
        }
        const char *member = p + dirlen + 1; /* v1/ab/<key> */
        if (!add_member(a, member, data, n)) {
            rc = write_failure(ctx, file, archive_error_string(a));
        } else {
            ex->ls = xrealloc(ex->ls, (ex->nls + 1) * sizeof *ex->ls);
            listed *l = &ex->ls[ex->nls++];
            memset(l, 0, sizeof *l);
            snprintf(l->path, sizeof l->path, "%s", member);
            sha256_hex(data, n, l->sha256);
            l->size = n;
            json_object *f = json_object_new_object();
            json_object_object_add(f, "path", json_object_new_string(member));
            json_object_object_add(f, "sha256", json_object_new_string(l->sha256));
            json_object_object_add(f, "size", json_object_new_int64((int64_t)n));
            json_object_array_add(ex->files, f);
            struct stat sb = { 0 };
            sb.st_size = (off_t)n;
            count_entry(st, &m, &sb);
        }
        cache_meta_clear(&m);
        free(data);
    }
    return rc;
}

static el_code add_manifest(el_ctx *ctx, struct archive *a, const char *file,
                            const exported *ex)
{
    el_code rc = EL_OK;
    json_object *man = json_object_new_object();
    json_object_object_add(man, "format", json_object_new_string(MANIFEST_FORMAT));
    json_object_object_add(man, "version", json_object_new_int(1));
    json_object_object_add(man, "files", json_object_get(ex->files));
    const char *text = json_object_to_json_string_ext(
        man, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!add_member(a, MANIFEST, text, strlen(text)))
        rc = write_failure(ctx, file, archive_error_string(a));
    json_object_put(man);
    return rc;
}

static el_code add_signature(el_ctx *ctx, struct archive *a, const char *file,
                             ed25519_key *key, const exported *ex)
{
    el_code rc = EL_OK;
    strbuf msg = STRBUF_INIT;
    signed_message(ex->ls, ex->nls, &msg);
    unsigned char sig[ED25519_SIG_LEN], pub[ED25519_PUBLIC_LEN];
    char sig_hex[2 * ED25519_SIG_LEN + 1], pub_hex[2 * ED25519_PUBLIC_LEN + 1];
    if (!ed25519_sign(key, msg.buf, msg.len, sig)) {
        rc = el_fail(ctx, EL_INTERNAL, "cannot sign %s: libcrypto refused", file);
    } else {
        ed25519_key_public(key, pub);
        hex_encode(sig, sizeof sig, sig_hex);
        hex_encode(pub, sizeof pub, pub_hex);
        json_object *so = json_object_new_object();
        json_object_object_add(so, "format", json_object_new_string(SIGNATURE_FORMAT));
        json_object_object_add(so, "version", json_object_new_int(1));
        json_object_object_add(so, "algorithm", json_object_new_string("ed25519"));
        json_object_object_add(so, "publicKey", json_object_new_string(pub_hex));
        json_object_object_add(so, "signature", json_object_new_string(sig_hex));
        const char *text = json_object_to_json_string_ext(so, JSON_C_TO_STRING_PRETTY);
        if (!add_member(a, SIGNATURE, text, strlen(text)))
            rc = write_failure(ctx, file, archive_error_string(a));
        json_object_put(so);
    }
    sb_release(&msg);
    return rc;
}

el_code el_cache_export_signed(el_ctx *ctx, const el_cache_options *o, const char *file,
                               const char *key_path, el_cache_stats *st_out)
{
    el_cache_stats local;
    el_cache_stats *st = st_out ? st_out : &local;
    memset(st, 0, sizeof *st);
    ed25519_key *key;
    el_code krc = load_key(ctx, key_path, true, &key);
    if (krc != EL_OK)
        return krc;
    char *dir;
    if (el_cache_dir(ctx, o, &dir) != EL_OK) {
        ed25519_key_free(key);
        return el_ctx_code(ctx);
    }
    ptrvec paths = PTRVEC_INIT;
    cache_store_walk(dir, collect, &paths);
    if (paths.len)
        qsort(paths.items, paths.len, sizeof *paths.items, cmp_str);
    char *tmp = xasprintf("%s.tmp", file);
    struct archive *a = archive_write_new();
    archive_write_add_filter_zstd(a);
    archive_write_set_format_pax_restricted(a);
    el_code rc = EL_OK;
    if (archive_write_open_filename(a, tmp) != ARCHIVE_OK)
        rc = write_failure(ctx, file, archive_error_string(a));
    exported ex = { json_object_new_array(), NULL, 0 };
    if (rc == EL_OK)
        rc = add_entries(ctx, a, file, dir, &paths, &ex, st);
    if (rc == EL_OK)
        rc = add_manifest(ctx, a, file, &ex);
    if (rc == EL_OK && key)
        rc = add_signature(ctx, a, file, key, &ex);
    if (rc == EL_OK && archive_write_close(a) != ARCHIVE_OK)
        rc = write_failure(ctx, file, archive_error_string(a));
    json_object_put(ex.files);
    archive_write_free(a);
    if (rc == EL_OK && rename(tmp, file) != 0)
        rc = write_failure(ctx, file, strerror(errno));
    if (rc != EL_OK)
        unlink(tmp);
    free(tmp);
    for (size_t i = 0; i < paths.len; i++)
        free(paths.items[i]);
    ptrvec_release(&paths);
    free(ex.ls);
    free(dir);
    ed25519_key_free(key);
    if (rc != EL_OK && st_out)
        memset(st_out, 0, sizeof *st_out);
    return rc;
}

el_code el_cache_export(el_ctx *ctx, const el_cache_options *o, const char *file,
                        el_cache_stats *st)
{
    return el_cache_export_signed(ctx, o, file, NULL, st);
}

/* ---- import ----
 *
 * Two passes over the one open archive file. The first decompresses
 * nothing to disk: it reads the tar headers (each member's declared size
 * is bounded as it is read: one member by MEMBER_MAX, all of them by
 * EXPAND_RATIO times the archive plus EXPAND_SLACK — a 109 KB zstd bomb
 * declaring 3 GiB is refused at its header, before its data is touched),
 * the manifest and the signature, checks every member against the
 * manifest, the free space, and the signature when a key is given. Only
 * then does the second pass write members into the staging directory,
 * each stopped as soon as it gives more bytes than the manifest lists, and
 * hashed as it goes. Then every member is checked as an entry (streamed:
 * never allocated at the size its frame claims) and renamed into place. */

typedef struct member {
    char key[65];
    uint64_t size; /* as its tar header declares */
} member;

static el_code refuse(el_ctx *ctx, const char *file, const char *member_name, const char *reason,
                      const char *why)
{
    el_fail(ctx, EL_POLICY_DENIED, "refusing cache archive %s: %s%s%s; nothing was imported",
            file, why, member_name ? ": " : "", member_name ? member_name : "");
    el_detail_str(ctx, "reason", reason);
    el_detail_str(ctx, "path", file);
    if (member_name)
        el_detail_str(ctx, "member", member_name);
    return EL_POLICY_DENIED;
}

static el_code tampered(el_ctx *ctx, const char *file, const char *member_name, const char *why)
{
    return refuse(ctx, file, member_name, "tampered", why);
}

/* A read of the archive that failed: an error of this machine reading the
 * file (EIO and the like: libarchive passes read()'s errno on) is
 * IO_ERROR; a format, decompression or truncation error is the archive's
 * fault (libarchive reports those as EINVAL, EILSEQ or its own -1). */
static el_code read_failed(el_ctx *ctx, const char *file, const char *member_name,
                           struct archive *a, const char *why)
{
    int e = archive_errno(a);
    if (e <= 0 || e == EINVAL || e == EILSEQ || e == ENOENT || e == EFBIG)
        return tampered(ctx, file, member_name, why);
    el_fail_io(ctx, e, "cannot read cache archive %s: %s; nothing was imported", file,
               strerror(e));
    el_detail_str(ctx, "path", file);
    return el_ctx_code(ctx);
}

/* "v1/ab/<key>" with ab the key's first two digits; writes the key. */
static bool member_key(const char *path, char key[65])
{
    if (strlen(path) != 3 + 3 + 64 || strncmp(path, "v1/", 3) != 0 || path[5] != '/')
        return false;
    if (!is_key(path + 6) || strncmp(path + 3, path + 6, 2) != 0)
        return false;
    memcpy(key, path + 6, 65);
    return true;
}

/* Reads the current member (at most `max` bytes) into sb; false if it is
 * unreadable or longer. */
static bool read_small_member(struct archive *a, strbuf *sb, size_t max)
{
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
        if (sb->len + (size_t)n > max)
            return false;
        sb_add(sb, buf, (size_t)n);
    }
    return n == 0;
}

/* extract() :
 *  Copies the current member to `path`, hashing it, and stops as soon as
 *  it has given more than `max` bytes (*over is then set). false on any
 *  error; *err is the errno of a failed write (0 for a bad archive). */
static bool extract(struct archive *a, const char *path, uint64_t max, char sha[65], uint64_t *size,
                    bool *over, int *err)
{
    *over = false;
    *err = 0;
    *size = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        *err = errno;
        return false;
    }
    sha256_stream *h = sha256_begin();
    char buf[65536];
    bool ok = true;
    for (;;) {
        la_ssize_t r = archive_read_data(a, buf, sizeof buf);
        if (r < 0) {
            ok = false;
            break;
        }
        if (r == 0)
            break;
        if (*size + (uint64_t)r > max) {
            *over = true;
            ok = false;
            break;
        }
        sha256_update(h, buf, (size_t)r);
        *size += (uint64_t)r;
        if (file_write_all(fd, buf, (size_t)r) != 0) {
            *err = errno;
            ok = false;
            break;
        }
    }
    sha256_end(h, sha);
    if (ok && fsync(fd) != 0) {
        *err = errno;
        ok = false;
    }
    close(fd);
    return ok;
}

/* Parses the manifest into *out (its order). A tampered failure if it is
 * malformed or lists a path twice. */
static el_code parse_manifest(el_ctx *ctx, const char *file, const strbuf *text, listed **out,
                              size_t *nout)
{
    *out = NULL;
    *nout = 0;
    json_tokener *tok = json_tokener_new();
    json_object *man = json_tokener_parse_ex(tok, text->buf, (int)text->len);
    bool ok = man && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    json_object *v, *files = NULL;
    ok = ok && json_object_is_type(man, json_type_object) &&
         json_object_object_get_ex(man, "format", &v) && json_object_is_type(v, json_type_string) &&
         strcmp(json_object_get_string(v), MANIFEST_FORMAT) == 0 &&
         json_object_object_get_ex(man, "files", &files) &&
         json_object_is_type(files, json_type_array);
    if (!ok) {
        json_object_put(man);
        return tampered(ctx, file, MANIFEST, "unreadable manifest");
    }
    size_t nf = json_object_array_length(files);
    listed *ls = nf ? xcalloc(nf, sizeof *ls) : NULL;
    el_code rc = EL_OK;
    for (size_t i = 0; rc == EL_OK && i < nf; i++) {
        json_object *f = json_object_array_get_idx(files, i), *p, *s, *z;
        listed *l = &ls[i];
        if (!json_object_is_type(f, json_type_object) || !json_object_object_get_ex(f, "path", &p) ||
            !json_object_object_get_ex(f, "sha256", &s) || !json_object_object_get_ex(f, "size", &z) ||
            !json_object_is_type(p, json_type_string) || !json_object_is_type(s, json_type_string) ||
            !json_object_is_type(z, json_type_int) || json_object_get_int64(z) < 0 ||
            !member_key(json_object_get_string(p), l->key) || !is_key(json_object_get_string(s))) {
            rc = tampered(ctx, file, MANIFEST, "malformed manifest entry");
            break;
        }
        memcpy(l->path, json_object_get_string(p), sizeof l->path);
        memcpy(l->sha256, json_object_get_string(s), 65);
        l->size = (uint64_t)json_object_get_int64(z);
        for (size_t j = 0; j < i; j++)
            if (strcmp(ls[j].key, l->key) == 0)
                rc = tampered(ctx, file, l->path, "listed twice");
    }
    json_object_put(man);
    if (rc != EL_OK) {
        free(ls);
        return rc;
    }
    *out = ls;
    *nout = nf;
    return EL_OK;
}

static listed *find_listed(listed *ls, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ls[i].key, key) == 0)
            return &ls[i];
    return NULL;
}

/* The manifest and the tar headers must agree: every member listed, with
 * the size its header declares, and every listed path present. */
static el_code match_manifest(el_ctx *ctx, const char *file, listed *ls, size_t nls,
                              const member *ms, size_t nm)
{
    for (size_t j = 0; j < nm; j++) {
        listed *l = find_listed(ls, nls, ms[j].key);
        char *name = xasprintf("v1/%.2s/%s", ms[j].key, ms[j].key);
        el_code rc = EL_OK;
        if (!l)
            rc = tampered(ctx, file, name, "not listed in the manifest");
        else if (l->size != ms[j].size)
            rc = tampered(ctx, file, name, "its size differs from the manifest");
        free(name);
        if (rc != EL_OK)
            return rc;
        l->seen = true;
    }
    for (size_t i = 0; i < nls; i++)
        if (!ls[i].seen)
            return tampered(ctx, file, ls[i].path, "listed in the manifest but missing");
    return EL_OK;
}

static el_code check_signature(el_ctx *ctx, const char *file, const char *key_path,
                               const ed25519_key *key, const strbuf *sigtext, bool have_sig,
                               const listed *ls, size_t nls)
{
    if (!have_sig) {
        el_fail(ctx, EL_POLICY_DENIED,
                "refusing cache archive %s: it is not signed, and --verify %s asks for a "
                "signature; nothing was imported",
                file, key_path);
        el_detail_str(ctx, "reason", "unsigned");
        el_detail_str(ctx, "path", file);
        el_detail_str(ctx, "key", key_path);
        return EL_POLICY_DENIED;
    }
    json_tokener *tok = json_tokener_new();
    json_object *so = json_tokener_parse_ex(tok, sigtext->buf, (int)sigtext->len);
    bool parsed = so && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    json_object *v;
    unsigned char sig[ED25519_SIG_LEN];
    const char *why = NULL;
    if (!parsed || !json_object_is_type(so, json_type_object) ||
        !json_object_object_get_ex(so, "format", &v) || !json_object_is_type(v, json_type_string) ||
        strcmp(json_object_get_string(v), SIGNATURE_FORMAT) != 0 ||
        !json_object_object_get_ex(so, "algorithm", &v) || !json_object_is_type(v, json_type_string) ||
        strcmp(json_object_get_string(v), "ed25519") != 0 ||
        !json_object_object_get_ex(so, "signature", &v) || !json_object_is_type(v, json_type_string) ||
        !hex_decode(json_object_get_string(v), sig, sizeof sig)) {
        why = "its signature is unreadable";
    } else {
        strbuf msg = STRBUF_INIT;
        signed_message(ls, nls, &msg);
        if (!ed25519_verify(key, msg.buf, msg.len, sig)) {
            unsigned char pub[ED25519_PUBLIC_LEN], named[ED25519_PUBLIC_LEN];
            ed25519_key_public(key, pub);
            bool other = json_object_object_get_ex(so, "publicKey", &v) &&
                         json_object_is_type(v, json_type_string) &&
                         hex_decode(json_object_get_string(v), named, sizeof named) &&
                         memcmp(named, pub, sizeof pub) != 0;
            why = other ? "it is signed by another key" : "its signature does not verify";
        }
        sb_release(&msg);
    }
    json_object_put(so);
    if (!why)
        return EL_OK;
    el_fail(ctx, EL_POLICY_DENIED,
            "refusing cache archive %s: %s (--verify %s); nothing was imported", file, why,
            key_path);
    el_detail_str(ctx, "reason", "bad_signature");
    el_detail_str(ctx, "path", file);
    el_detail_str(ctx, "member", SIGNATURE);
    el_detail_str(ctx, "key", key_path);
    return EL_POLICY_DENIED;
}

/* The archive file from its start. An open that fails shows as a failed
 * archive_read_next_header(), which the caller reports. */
static struct archive *open_archive(int fd)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    if (lseek(fd, 0, SEEK_SET) == 0)
        archive_read_open_fd(a, fd, 65536);
    return a;
}

/* A member of `size` bytes within the limits: at most MEMBER_MAX, and all
 * declared so far (*declared, which it adds to) within `cap`. */
static el_code size_ok(el_ctx *ctx, const char *file, const char *name, uint64_t size,
                       uint64_t archive_bytes, uint64_t cap, uint64_t *declared)
{
    if (size > MEMBER_MAX) {
        char *why = xasprintf("a member of %llu bytes (a cache entry is at most %llu)",
                              (unsigned long long)size, (unsigned long long)MEMBER_MAX);
        el_code rc = refuse(ctx, file, name, "too_large", why);
        el_detail_int(ctx, "declared", (int64_t)size);
        free(why);
        return rc;
    }
    *declared += size;
    if (*declared > cap) {
        char *why = xasprintf("its members declare %llu bytes or more, over the %llu "
                              "that %u times the archive's %llu bytes allow",
                              (unsigned long long)*declared, (unsigned long long)cap,
                              EXPAND_RATIO, (unsigned long long)archive_bytes);
        el_code rc = refuse(ctx, file, name, "too_large", why);
        el_detail_int(ctx, "declared", (int64_t)*declared);
        el_detail_int(ctx, "limit", (int64_t)cap);
        free(why);
        return rc;
    }
    return EL_OK;
}

/* A cache entry member, named by its key and seen once, appended to
 * (*msp, *nmp). */
static el_code note_member(el_ctx *ctx, const char *file, const char *name, uint64_t size,
                          member **msp, size_t *nmp)
{
    char key[65];
    if (!member_key(name, key))
        return tampered(ctx, file, name, "not a cache entry name");
    for (size_t j = 0; j < *nmp; j++)
        if (strcmp((*msp)[j].key, key) == 0)
            return tampered(ctx, file, name, "duplicate member");
    *msp = xrealloc(*msp, (*nmp + 1) * sizeof **msp);
    memcpy((*msp)[*nmp].key, key, 65);
    (*msp)[*nmp].size = size;
    (*nmp)++;
    return EL_OK;
}

/* Pass one: headers, the manifest and the signature; no member data is
 * kept or written. */
static el_code survey(el_ctx *ctx, const char *file, int fd, uint64_t archive_bytes, member **msp,
                      size_t *nmp, strbuf *manifest, strbuf *sigtext, bool *have_sig,
                      uint64_t *declared)
{
    struct archive *a = open_archive(fd);
    member *ms = NULL;
    size_t nm = 0;
    bool have_manifest = false;
    *have_sig = false;
    *declared = 0;
    uint64_t cap = archive_bytes > (UINT64_MAX - EXPAND_SLACK) / EXPAND_RATIO
                       ? UINT64_MAX
                       : archive_bytes * EXPAND_RATIO + EXPAND_SLACK;
    el_code rc = EL_OK;
    struct archive_entry *e;
    while (rc == EL_OK) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) {
            rc = read_failed(ctx, file, NULL, a, archive_error_string(a) ? archive_error_string(a)
                                                                   : "not a cache archive");
            break;
        }
        const char *name = archive_entry_pathname(e);
        if (!name || archive_entry_filetype(e) != AE_IFREG) {
            rc = tampered(ctx, file, name, "not a regular file");
            break;
        }
        if (*have_sig || (have_manifest && strcmp(name, SIGNATURE) != 0)) {
            rc = tampered(ctx, file, name, "member after the manifest");
            break;
        }
        if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0) {
            rc = tampered(ctx, file, name, "member without a size");
            break;
        }
        uint64_t size = (uint64_t)archive_entry_size(e);
        if ((rc = size_ok(ctx, file, name, size, archive_bytes, cap, declared)) != EL_OK)
            break;
        if (strcmp(name, MANIFEST) == 0) {
            have_manifest = true;
            if (!read_small_member(a, manifest, MANIFEST_MAX))
                rc = read_failed(ctx, file, name, a, "unreadable manifest");
            continue;
        }
        if (strcmp(name, SIGNATURE) == 0) {
            if (!have_manifest) {
                rc = tampered(ctx, file, name, "signature before the manifest");
                break;
            }
            *have_sig = true;
            if (!read_small_member(a, sigtext, SIGNATURE_MAX))
                rc = read_failed(ctx, file, name, a, "unreadable signature");
            continue;
        }
        if ((rc = note_member(ctx, file, name, size, &ms, &nm)) != EL_OK)
            break;
        if (archive_read_data_skip(a) != ARCHIVE_OK)
            rc = read_failed(ctx, file, name, a, "unreadable member");
    }
    archive_read_free(a);
    if (rc == EL_OK && !have_manifest)
        rc = tampered(ctx, file, NULL, "no manifest");
    *msp = ms;
    *nmp = nm;
    return rc;
}

/* Pass two: the members into `stage`, each checked against its manifest
 * line as it streams. */
static el_code stage_members(el_ctx *ctx, const char *file, int fd, const char *stage, listed *ls,
                             size_t nls)
{
    struct archive *a = open_archive(fd);
    el_code rc = EL_OK;
    struct archive_entry *e;
    for (size_t i = 0; i < nls; i++)
        ls[i].seen = false;
    while (rc == EL_OK) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        const char *name = r == ARCHIVE_OK ? archive_entry_pathname(e) : NULL;
        if (r != ARCHIVE_OK || !name) {
            rc = read_failed(ctx, file, NULL, a, "the archive changed while it was read");
            break;
        }
        if (strcmp(name, MANIFEST) == 0 || strcmp(name, SIGNATURE) == 0)
            break; /* the last members; already read */
        char key[65];
        listed *l = member_key(name, key) ? find_listed(ls, nls, key) : NULL;
        if (!l || l->seen) {
            rc = tampered(ctx, file, name, "the archive changed while it was read");
            break;
        }
        l->seen = true;
        char *p = xasprintf("%s/%s", stage, key);
        char sha[65];
        uint64_t size;
        bool over;
        int err;
        if (!extract(a, p, l->size, sha, &size, &over, &err)) {
            if (err) {
                /* no space left, a quota, a read-only disk: this machine,
                 * not the archive (detail.errno "ENOSPC", retryable) */
                rc = el_fail_io(ctx, err, "cannot import %s: writing %s: %s", file, p,
                                strerror(err));
                el_detail_str(ctx, "path", p);
            } else {
                rc = over ? tampered(ctx, file, name,
                                     "it holds more bytes than the manifest lists")
                          : read_failed(ctx, file, name, a, "unreadable member");
            }
        } else if (size != l->size || strcmp(sha, l->sha256) != 0) {
            rc = tampered(ctx, file, name, "sha256 or size differs from the manifest");
        }
        free(p);
    }
    archive_read_free(a);
    for (size_t i = 0; rc == EL_OK && i < nls; i++)
        if (!ls[i].seen)
            rc = tampered(ctx, file, ls[i].path, "the archive changed while it was read");
    return rc;
}

/* open_import() : `file` opened for reading, refused unless a regular
 * file (O_NONBLOCK: a FIFO named as the archive must not hang the open). */
static el_code open_import(el_ctx *ctx, const char *file, int *fd_out, uint64_t *size)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat as;
    if (fd < 0 || fstat(fd, &as) != 0 || !S_ISREG(as.st_mode)) {
        int err = fd < 0 ? errno : 0;
        el_fail(ctx, EL_USAGE, "cannot read %s: %s", file, err ? strerror(err) : "not a regular file");
        el_detail_str(ctx, "path", file);
        if (fd >= 0)
            close(fd);
        return EL_USAGE;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *fd_out = fd;
    *size = (uint64_t)as.st_size;
    return EL_OK;
}

/* check_room() : the cache's disk has room for `declared` bytes. Dead
 * imports' leftovers go first: they may be what fills the disk. */
static el_code check_room(el_ctx *ctx, const char *file, const char *dir, uint64_t declared)
{
    el_code rc = EL_OK;
    staging_sweep(dir, true, NULL, &(el_cache_stats){ 0 }, STAGING_MAX_AGE_S);
    struct statvfs vfs;
    char *v1 = xasprintf("%s/v1", dir);
    if (statvfs(v1, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < declared) {
        rc = el_fail_io(ctx, ENOSPC,
                        "cannot import %s: it holds %llu bytes and %s has %llu bytes free",
                        file, (unsigned long long)declared, v1,
                        (unsigned long long)vfs.f_bavail * vfs.f_frsize);
        el_detail_str(ctx, "path", v1);
    }
    free(v1);
    return rc;
}

/* make_stage() : a new staging directory under v1/, and its lock, held
 * until the directory is gone so that no other envlock takes it for a dead
 * import's. */
static el_code make_stage(el_ctx *ctx, const char *dir, char **stage_out, int *lock_fd)
{
    char *stage = xasprintf("%s/v1/" STAGING_PREFIX "XXXXXX", dir);
    if (!mkdtemp(stage)) {
        int err = errno;
        el_code rc = el_fail(ctx, CACHE_IO, "cannot create a directory in %s/v1: %s", dir,
                             strerror(err));
        el_detail_str(ctx, "path", dir);
        el_detail_int(ctx, "errno", err);
        free(stage);
        return rc;
    }
    *stage_out = stage;
    el_code rc = EL_OK;
    char *lock = xasprintf("%s/" STAGING_LOCK, stage);
    *lock_fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (*lock_fd < 0 || flock(*lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        rc = el_fail(ctx, CACHE_IO, "cannot lock %s: %s", lock, strerror(err));
        el_detail_str(ctx, "path", lock);
        el_detail_int(ctx, "errno", err);
    }
    free(lock);
    return rc;
}

/* check_staged() : each staged member must also be a whole, valid entry
 * for its name. */
static el_code check_staged(el_ctx *ctx, const char *file, const char *stage, const listed *ls,
                            size_t nls, el_cache_stats *st)
{
    el_code rc = EL_OK;
    for (size_t j = 0; rc == EL_OK && j < nls; j++) {
        char *p = xasprintf("%s/%s", stage, ls[j].key);
        size_t n;
        unsigned char *data = (unsigned char *)read_file(p, (size_t)MEMBER_MAX, &n);
        int err = data ? 0 : errno;
        cache_meta m;
        cache_meta_init(&m);
        const char *why = data ? cache_entry_check(data, n, ls[j].key, &m, NULL, NULL)
                               : "unreadable member";
        if (!data && err) {
            /* what was just written cannot be read back: this machine's
             * disk, not the archive */
            rc = el_fail_io(ctx, err, "cannot import %s: reading back %s: %s", file, p,
                            strerror(err));
            el_detail_str(ctx, "path", p);
        } else if (why) {
            rc = tampered(ctx, file, ls[j].path, why);
        } else {
            struct stat sb = { 0 };
            sb.st_size = (off_t)n;
            count_entry(st, &m, &sb);
        }
        cache_meta_clear(&m);
        free(data);
        free(p);
    }
    return rc;
}

/* move_in() : all verified: move them in. Each rename is atomic for
 * readers. */
static el_code move_in(el_ctx *ctx, const char *dir, const char *stage, const listed *ls,
                       size_t nls)
{
    el_code rc = EL_OK;
    for (size_t j = 0; rc == EL_OK && j < nls; j++) {
        char *sub = xasprintf("%s/v1/%.2s", dir, ls[j].key);
        mkdir(sub, 0777);
        char *from = xasprintf("%s/%s", stage, ls[j].key);
        char *to = cache_entry_path(dir, ls[j].key, NULL);
        /* the seal of an entry being replaced describes the old inode */
        char *seal = cache_entry_path(dir, ls[j].key, ".seal");
        unlink(seal);
        free(seal);
        if (rename(from, to) != 0) {
            int err = errno;
            rc = el_fail(ctx, CACHE_IO, "cannot move %s into the cache: %s", to, strerror(err));
            el_detail_str(ctx, "path", to);
            el_detail_int(ctx, "errno", err);
        }
        free(from);
        free(to);
        free(sub);
    }
    return rc;
}

el_code el_cache_import_verified(el_ctx *ctx, const el_cache_options *o, const char *file,
                                 const char *key_path, el_cache_stats *st_out)
{
    el_cache_stats local;
    el_cache_stats *st = st_out ? st_out : &local;
    memset(st, 0, sizeof *st);
    ed25519_key *key;
    int fd = -1;
    uint64_t archive_size = 0;
    el_code rc = load_key(ctx, key_path, false, &key);
    if (rc == EL_OK)
        rc = open_import(ctx, file, &fd, &archive_size);
    if (rc != EL_OK) {
        ed25519_key_free(key);
        return rc;
    }
    char *dir = NULL;
    char *stage = NULL;
    int lock_fd = -1;
    member *ms = NULL;
    size_t nm = 0;
    listed *ls = NULL;
    size_t nls = 0;
    strbuf manifest = STRBUF_INIT, sigtext = STRBUF_INIT;
    bool have_sig = false;
    uint64_t declared = 0;
    rc = el_cache_dir(ctx, o, &dir);
    if (rc == EL_OK)
        rc = survey(ctx, file, fd, archive_size, &ms, &nm, &manifest, &sigtext, &have_sig,
                    &declared);
    if (rc == EL_OK)
        rc = parse_manifest(ctx, file, &manifest, &ls, &nls);
    if (rc == EL_OK)
        rc = match_manifest(ctx, file, ls, nls, ms, nm);
    if (rc == EL_OK && key)
        rc = check_signature(ctx, file, key_path, key, &sigtext, have_sig, ls, nls);
    if (rc == EL_OK) {
        cache_store *store = cache_store_open(ctx, dir);
        if (!store)
            rc = el_ctx_code(ctx);
        cache_store_close(store);
    }
    if (rc == EL_OK)
        rc = check_room(ctx, file, dir, declared);
    if (rc == EL_OK)
        rc = make_stage(ctx, dir, &stage, &lock_fd);
    if (rc == EL_OK)
        rc = stage_members(ctx, file, fd, stage, ls, nls);
    if (rc == EL_OK)
        rc = check_staged(ctx, file, stage, ls, nls, st);
    if (rc == EL_OK)
        rc = move_in(ctx, dir, stage, ls, nls);
    if (stage)
        remove_tree(NULL, stage);
    if (lock_fd >= 0)
        close(lock_fd);
    close(fd);
    sb_release(&manifest);
    sb_release(&sigtext);
    free(ms);
    free(ls);
    free(stage);
    free(dir);
    ed25519_key_free(key);
    if (rc != EL_OK && st_out)
        memset(st_out, 0, sizeof *st_out);
    return rc;
}

el_code el_cache_import(el_ctx *ctx, const el_cache_options *o, const char *file,
                        el_cache_stats *st)
{
    return el_cache_import_verified(ctx, o, file, NULL, st);
}

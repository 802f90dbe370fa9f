/* cache_admin.c — the public cache maintenance API (include/envlock/cache.h):
 * info, prune, and export/import as one tar+zstd archive (libarchive) with a
 * sha256 manifest. Import is all or nothing: members land in a temporary
 * directory inside the cache, are verified against the manifest and as
 * entries, and only then renamed into place. Never touches the network.
 * Seals (<key>.seal beside a raw entry, see cache_store.c) are not entries:
 * info does not count them, prune removes one together with its entry (and
 * any whose entry is gone), and export/import skip them (an imported raw
 * entry is sealed by its first full check). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <json-c/json.h>

#include "cache.h"

#define MANIFEST "manifest.json"
#define MANIFEST_FORMAT "envlock-cache-export"
#define MANIFEST_MAX (64u << 20)
#define TEMP_MAX_AGE_S 3600

static bool is_key(const char *s)
{
    return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

el_code el_cache_dir(el_ctx *ctx, const el_cache_options *o, char **dir)
{
    *dir = cache_default_dir(o);
    if (!*dir)
        return el_fail(ctx, EL_INTERNAL, "no cache directory: set ENVLOCK_CACHE_DIR or HOME");
    return EL_OK;
}

typedef struct walk_state {
    el_cache_stats *st;
    bool prune;
    bool all;
    int64_t cutoff_ms;
    time_t now;
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

/* unlink_entry() : removes the entry file at `path` and its seal, if any
 *  (a seal describes one inode; without its entry it is only litter). True
 *  when the entry itself was removed. */
static bool unlink_entry(const char *path)
{
    if (unlink(path) != 0)
        return false;
    char *seal = xasprintf("%s.seal", path);
    unlink(seal);
    free(seal);
    return true;
}

static void visit(const char *path, const char *name, void *u)
{
    walk_state *w = u;
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    if (strncmp(name, ".tmp-", 5) == 0) {
        /* An interrupted write (or one in flight: leave young ones alone). */
        if (w->prune && w->now - sb.st_mtime > (w->all ? 60 : TEMP_MAX_AGE_S)) {
            if (unlink(path) == 0)
                w->st->temp_files++;
        } else if (!w->prune) {
            w->st->temp_files++;
        }
        return;
    }
    size_t n = strlen(name);
    if (n == 64 + 5 && strcmp(name + 64, ".lock") == 0) {
        if (w->prune && w->all) {
            /* Only a lock nobody holds; a waiter on the old inode at worst
             * fetches once more. */
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
                unlink(path);
            if (fd >= 0)
                close(fd);
        }
        return;
    }
    if (n == 64 + 5 && strcmp(name + 64, ".seal") == 0) {
        /* Not an entry. Prune removes a seal whose entry is gone (removed
         * by a reader that found it corrupt, or by an older envlock). A
         * seal written after its entry vanished is removed next time. */
        if (w->prune) {
            char *entry = xasprintf("%.*s", (int)(strlen(path) - 5), path);
            struct stat es;
            if (lstat(entry, &es) != 0 && errno == ENOENT)
                unlink(path);
            free(entry);
        }
        return;
    }
    if (!is_key(name))
        return;
    cache_meta m;
    cache_meta_init(&m);
    if (!cache_entry_read_meta(path, &m)) {
        if (w->prune) {
            if (unlink_entry(path))
                w->st->corrupt++;
        } else {
            w->st->corrupt++;
        }
        return;
    }
    if (!w->prune) {
        count_entry(w->st, &m, &sb);
    } else if (w->all || (!m.immutable && m.fetched_ms < w->cutoff_ms)) {
        if (unlink_entry(path))
            count_entry(w->st, &m, &sb);
    }
    cache_meta_clear(&m);
}

el_code el_cache_info(el_ctx *ctx, const el_cache_options *o, el_cache_stats *st)
{
    char *dir;
    memset(st, 0, sizeof *st);
    if (el_cache_dir(ctx, o, &dir) != EL_OK)
        return el_ctx_code(ctx);
    walk_state w = { st, false, false, 0, time(NULL) };
    cache_store_walk(dir, visit, &w);
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
    walk_state w = { st, true, all, cache_now_ms() - (int64_t)days * 86400 * 1000, time(NULL) };
    cache_store_walk(dir, visit, &w);
    free(dir);
    return EL_OK;
}

/* ---- export ---- */

typedef struct export_state {
    struct archive *a;
    json_object *files;
    el_cache_stats *st;
    bool failed;
} export_state;

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

el_code el_cache_export(el_ctx *ctx, const el_cache_options *o, const char *file,
                        el_cache_stats *st_out)
{
    el_cache_stats local;
    el_cache_stats *st = st_out ? st_out : &local;
    memset(st, 0, sizeof *st);
    char *dir;
    if (el_cache_dir(ctx, o, &dir) != EL_OK)
        return el_ctx_code(ctx);
    ptrvec paths = PTRVEC_INIT;
    cache_store_walk(dir, collect, &paths);
    if (paths.len)
        qsort(paths.items, paths.len, sizeof *paths.items, cmp_str);
    char *tmp = xasprintf("%s.tmp", file);
    struct archive *a = archive_write_new();
    archive_write_add_filter_zstd(a);
    archive_write_set_format_pax_restricted(a);
    el_code rc = EL_OK;
    if (archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
        rc = el_fail(ctx, EL_USAGE, "cannot write %s: %s", file, archive_error_string(a));
        el_detail_str(ctx, "path", file);
    }
    json_object *files = json_object_new_array();
    size_t dirlen = strlen(dir);
    for (size_t i = 0; rc == EL_OK && i < paths.len; i++) {
        const char *p = paths.items[i];
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
            rc = el_fail(ctx, EL_USAGE, "cannot write %s: %s", file, archive_error_string(a));
            el_detail_str(ctx, "path", file);
        } else {
            char sha[65];
            sha256_hex(data, n, sha);
            json_object *f = json_object_new_object();
            json_object_object_add(f, "path", json_object_new_string(member));
            json_object_object_add(f, "sha256", json_object_new_string(sha));
            json_object_object_add(f, "size", json_object_new_int64((int64_t)n));
            json_object_array_add(files, f);
            struct stat sb = { 0 };
            sb.st_size = (off_t)n;
            count_entry(st, &m, &sb);
        }
        cache_meta_clear(&m);
        free(data);
    }
    if (rc == EL_OK) {
        json_object *man = json_object_new_object();
        json_object_object_add(man, "format", json_object_new_string(MANIFEST_FORMAT));
        json_object_object_add(man, "version", json_object_new_int(1));
        json_object_object_add(man, "files", json_object_get(files));
        const char *text = json_object_to_json_string_ext(
            man, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!add_member(a, MANIFEST, text, strlen(text)) || archive_write_close(a) != ARCHIVE_OK) {
            rc = el_fail(ctx, EL_USAGE, "cannot write %s: %s", file, archive_error_string(a));
            el_detail_str(ctx, "path", file);
        }
        json_object_put(man);
    }
    json_object_put(files);
    archive_write_free(a);
    if (rc == EL_OK && rename(tmp, file) != 0) {
        rc = el_fail(ctx, EL_USAGE, "cannot write %s: %s", file, strerror(errno));
        el_detail_str(ctx, "path", file);
    }
    if (rc != EL_OK)
        unlink(tmp);
    free(tmp);
    for (size_t i = 0; i < paths.len; i++)
        free(paths.items[i]);
    ptrvec_release(&paths);
    free(dir);
    return rc;
}

/* ---- import ---- */

typedef struct member {
    char key[65];
    char sha256[65];
    uint64_t size;
    bool listed;
} member;

static el_code tampered(el_ctx *ctx, const char *file, const char *member_name, const char *why)
{
    el_fail(ctx, EL_POLICY_DENIED, "refusing cache archive %s: %s%s%s; nothing was imported",
            file, why, member_name ? ": " : "", member_name ? member_name : "");
    el_detail_str(ctx, "reason", "tampered");
    el_detail_str(ctx, "path", file);
    if (member_name)
        el_detail_str(ctx, "member", member_name);
    return EL_POLICY_DENIED;
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

static void remove_tree(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = xasprintf("%s/%s", tmpdir, e->d_name);
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(tmpdir);
}

/* Copies the current member to `path`, hashing it. false on any error. */
static bool extract(struct archive *a, const char *path, char sha[65], uint64_t *size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    sha256_stream *h = sha256_begin();
    char buf[65536];
    bool ok = true;
    *size = 0;
    for (;;) {
        la_ssize_t r = archive_read_data(a, buf, sizeof buf);
        if (r < 0) {
            ok = false;
            break;
        }
        if (r == 0)
            break;
        sha256_update(h, buf, (size_t)r);
        *size += (uint64_t)r;
        if (write(fd, buf, (size_t)r) != r) {
            ok = false;
            break;
        }
    }
    sha256_end(h, sha);
    if (fsync(fd) != 0)
        ok = false;
    close(fd);
    return ok;
}

static el_code check_manifest(el_ctx *ctx, const char *file, const char *text, size_t n,
                              member *ms, size_t nm)
{
    json_tokener *tok = json_tokener_new();
    json_object *man = json_tokener_parse_ex(tok, text, (int)n);
    bool ok = man && json_tokener_get_error(tok) == json_tokener_success;
    json_tokener_free(tok);
    json_object *v, *files = NULL;
    ok = ok && json_object_object_get_ex(man, "format", &v) &&
         strcmp(json_object_get_string(v), MANIFEST_FORMAT) == 0 &&
         json_object_object_get_ex(man, "files", &files) &&
         json_object_is_type(files, json_type_array);
    if (!ok) {
        json_object_put(man);
        return tampered(ctx, file, MANIFEST, "unreadable manifest");
    }
    size_t nf = json_object_array_length(files);
    for (size_t i = 0; i < nf; i++) {
        json_object *f = json_object_array_get_idx(files, i), *p, *s, *z;
        char key[65];
        if (!json_object_object_get_ex(f, "path", &p) || !json_object_object_get_ex(f, "sha256", &s) ||
            !json_object_object_get_ex(f, "size", &z) || !member_key(json_object_get_string(p), key)) {
            json_object_put(man);
            return tampered(ctx, file, MANIFEST, "malformed manifest entry");
        }
        member *hit = NULL;
        for (size_t j = 0; j < nm; j++)
            if (strcmp(ms[j].key, key) == 0)
                hit = &ms[j];
        el_code rc = EL_OK;
        if (!hit)
            rc = tampered(ctx, file, json_object_get_string(p), "listed in the manifest but missing");
        else if (strcmp(hit->sha256, json_object_get_string(s)) != 0 ||
                 hit->size != (uint64_t)json_object_get_int64(z))
            rc = tampered(ctx, file, json_object_get_string(p), "sha256 or size differs from the manifest");
        else if (hit->listed)
            rc = tampered(ctx, file, json_object_get_string(p), "listed twice");
        if (rc != EL_OK) {
            json_object_put(man);
            return rc;
        }
        hit->listed = true;
    }
    json_object_put(man);
    for (size_t j = 0; j < nm; j++) {
        if (!ms[j].listed) {
            char *name = xasprintf("v1/%.2s/%s", ms[j].key, ms[j].key);
            tampered(ctx, file, name, "not listed in the manifest");
            free(name);
            return EL_POLICY_DENIED;
        }
    }
    return EL_OK;
}

el_code el_cache_import(el_ctx *ctx, const el_cache_options *o, const char *file,
                        el_cache_stats *st_out)
{
    el_cache_stats local;
    el_cache_stats *st = st_out ? st_out : &local;
    memset(st, 0, sizeof *st);
    char *dir;
    if (el_cache_dir(ctx, o, &dir) != EL_OK)
        return el_ctx_code(ctx);
    cache_store *store = cache_store_open(ctx, dir);
    if (!store) {
        free(dir);
        return el_ctx_code(ctx);
    }
    cache_store_close(store);
    char *tmpdir = xasprintf("%s/v1/.import-XXXXXX", dir);
    if (!mkdtemp(tmpdir)) {
        el_fail(ctx, EL_INTERNAL, "cannot create a directory in %s: %s", dir, strerror(errno));
        el_detail_str(ctx, "path", dir);
        free(tmpdir);
        free(dir);
        return EL_INTERNAL;
    }
    struct archive *a = archive_read_new();
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    el_code rc = EL_OK;
    member *ms = NULL;
    size_t nm = 0;
    strbuf manifest = STRBUF_INIT;
    bool have_manifest = false;
    if (archive_read_open_filename(a, file, 65536) != ARCHIVE_OK) {
        if (access(file, R_OK) != 0) {
            rc = el_fail(ctx, EL_USAGE, "cannot read %s: %s", file, strerror(errno));
            el_detail_str(ctx, "path", file);
        } else {
            rc = tampered(ctx, file, NULL, archive_error_string(a));
        }
    }
    struct archive_entry *e;
    while (rc == EL_OK) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) {
            rc = tampered(ctx, file, NULL, archive_error_string(a));
            break;
        }
        const char *name = archive_entry_pathname(e);
        if (!name || archive_entry_filetype(e) != AE_IFREG) {
            rc = tampered(ctx, file, name, "not a regular file");
            break;
        }
        if (have_manifest) {
            rc = tampered(ctx, file, name, "member after the manifest");
            break;
        }
        if (strcmp(name, MANIFEST) == 0) {
            have_manifest = true;
            char buf[65536];
            la_ssize_t n;
            while ((n = archive_read_data(a, buf, sizeof buf)) > 0 && manifest.len < MANIFEST_MAX)
                sb_add(&manifest, buf, (size_t)n);
            if (n < 0 || manifest.len >= MANIFEST_MAX)
                rc = tampered(ctx, file, name, "unreadable manifest");
            continue;
        }
        char key[65];
        if (!member_key(name, key)) {
            rc = tampered(ctx, file, name, "not a cache entry name");
            break;
        }
        for (size_t j = 0; j < nm; j++)
            if (strcmp(ms[j].key, key) == 0)
                rc = tampered(ctx, file, name, "duplicate member");
        if (rc != EL_OK)
            break;
        ms = xrealloc(ms, (nm + 1) * sizeof *ms);
        member *m = &ms[nm++];
        memset(m, 0, sizeof *m);
        memcpy(m->key, key, 65);
        char *p = xasprintf("%s/%s", tmpdir, key);
        if (!extract(a, p, m->sha256, &m->size))
            rc = tampered(ctx, file, name, "unreadable member");
        free(p);
    }
    archive_read_free(a);
    if (rc == EL_OK && !have_manifest)
        rc = tampered(ctx, file, NULL, "no manifest");
    if (rc == EL_OK)
        rc = check_manifest(ctx, file, manifest.buf, manifest.len, ms, nm);
    /* Each member must also be a whole, valid entry for its name. */
    for (size_t j = 0; rc == EL_OK && j < nm; j++) {
        char *p = xasprintf("%s/%s", tmpdir, ms[j].key);
        size_t n;
        unsigned char *data = (unsigned char *)read_file(p, (size_t)4 << 30, &n);
        cache_meta m;
        cache_meta_init(&m);
        const char *why = data ? cache_entry_check(data, n, ms[j].key, &m, NULL, NULL)
                               : "unreadable member";
        if (why) {
            char *name = xasprintf("v1/%.2s/%s", ms[j].key, ms[j].key);
            tampered(ctx, file, name, why);
            free(name);
            rc = EL_POLICY_DENIED;
        } else {
            struct stat sb = { 0 };
            sb.st_size = (off_t)n;
            count_entry(st, &m, &sb);
        }
        cache_meta_clear(&m);
        free(data);
        free(p);
    }
    /* All verified: move them in. Each rename is atomic for readers. */
    for (size_t j = 0; rc == EL_OK && j < nm; j++) {
        char *sub = xasprintf("%s/v1/%.2s", dir, ms[j].key);
        mkdir(sub, 0777);
        char *from = xasprintf("%s/%s", tmpdir, ms[j].key);
        char *to = cache_entry_path(dir, ms[j].key, NULL);
        /* the seal of an entry being replaced describes the old inode */
        char *seal = cache_entry_path(dir, ms[j].key, ".seal");
        unlink(seal);
        free(seal);
        if (rename(from, to) != 0) {
            rc = el_fail(ctx, EL_INTERNAL, "cannot move %s into the cache: %s", to, strerror(errno));
            el_detail_str(ctx, "path", to);
        }
        free(from);
        free(to);
        free(sub);
    }
    remove_tree(tmpdir);
    sb_release(&manifest);
    free(ms);
    free(tmpdir);
    free(dir);
    if (rc != EL_OK && st_out)
        memset(st_out, 0, sizeof *st_out);
    return rc;
}

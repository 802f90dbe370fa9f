/* bundle_sign.c — a bundle's signed file list (docs/bundle.md, "Signing a
 * bundle"): DIR/SHA256SUMS lists every other file of DIR as sha256sum(1)
 * writes it ("HEX  PATH", paths in byte order), and DIR/SHA256SUMS.sig is
 * the raw Ed25519 signature of SHA256SUMS's bytes, so a site can check a
 * bundle with envlock or with stock tools (openssl pkeyutl -verify -rawin,
 * then sha256sum -c). The same keys as `cache export --sign` (util/crypto.h);
 * owns the list's form only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle.h"
#include "crypto.h"

#define SUMS "SHA256SUMS"
#define SUMS_SIG "SHA256SUMS.sig"
#define SUMS_MAX ((size_t)64 << 20)

/* Every entry under dir/rel into paths (relative, malloc'd; an entry that is
 * neither a regular file nor a directory marked with a leading \x01), but
 * the two list files at the top. 0 or the errno. */
static int walk(const char *dir, const char *rel, ptrvec *paths)
{
    char *here = *rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
    DIR *d = opendir(here);
    int err = d ? 0 : errno;
    for (struct dirent *e; d && !err && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (!*rel && (strcmp(e->d_name, SUMS) == 0 || strcmp(e->d_name, SUMS_SIG) == 0))
            continue;
        char *r = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            err = errno;
        else if (S_ISDIR(st.st_mode))
            err = walk(dir, r, paths);
        else
            ptrvec_push(paths, S_ISREG(st.st_mode) ? xstrdup(r) : xasprintf("\x01%s", r));
        free(r);
    }
    if (d)
        closedir(d);
    free(here);
    return err;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every path under dir but the two list files, sorted; *odd names the first
 * entry that is neither a regular file nor a directory (a link, a FIFO). */
static int list_files(const char *dir, ptrvec *paths, char **odd)
{
    int err = walk(dir, "", paths);
    qsort(paths->items, paths->len, sizeof *paths->items, cmp_str);
    *odd = NULL;
    for (size_t i = 0; i < paths->len && !*odd; i++)
        if (((char *)paths->items[i])[0] == '\x01')
            *odd = xstrdup((char *)paths->items[i] + 1);
    return err;
}

static void paths_free(ptrvec *paths)
{
    for (size_t i = 0; i < paths->len; i++)
        free(paths->items[i]);
    ptrvec_release(paths);
}

/* A bundle that is not what was signed: POLICY_DENIED, the message built
 * from fmt and its arguments. */
static el_code refuse(el_ctx *ctx, const char *dir, const char *reason, const char *file,
                      const char *fmt, ...) EL_PRINTF(5, 6);

static el_code refuse(el_ctx *ctx, const char *dir, const char *reason, const char *file,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    el_failv(ctx, EL_POLICY_DENIED, fmt, ap);
    va_end(ap);
    el_detail_str(ctx, "reason", reason);
    el_detail_str(ctx, "path", dir);
    if (file)
        el_detail_str(ctx, "file", file);
    return EL_POLICY_DENIED;
}

static el_code io_failed(el_ctx *ctx, int err, const char *path, const char *doing)
{
    el_fail_io(ctx, err, "cannot %s %s: %s", doing, path, strerror(err));
    el_detail_str(ctx, "path", path);
    return EL_IO;
}

static ed25519_key *load_key(el_ctx *ctx, const char *key_path, bool need_private)
{
    const char *why = NULL;
    int err = 0;
    ed25519_key *k = ed25519_key_load(key_path, need_private, &why, &err);
    if (k)
        return k;
    if (err)
        io_failed(ctx, err, key_path, "read the key");
    else {
        el_fail(ctx, EL_USAGE, "%s is no usable Ed25519 key: %s", key_path, why);
        el_detail_str(ctx, "key", key_path);
    }
    return NULL;
}

/* The first of `paths` (sorted) that `only` lacks, or NULL. Sorts only. */
static const char *first_unlisted(const ptrvec *paths, ptrvec *only)
{
    qsort(only->items, only->len, sizeof *only->items, cmp_str);
    for (size_t i = 0; i < paths->len; i++)
        if (!bsearch(&paths->items[i], only->items, only->len, sizeof *only->items, cmp_str))
            return paths->items[i];
    return NULL;
}

/* SHA256SUMS's text for the files under dir. */
static el_code sums_text(el_ctx *ctx, const char *dir, ptrvec *only, strbuf *out,
                         size_t *n_files)
{
    ptrvec paths = PTRVEC_INIT;
    char *odd = NULL;
    int err = list_files(dir, &paths, &odd);
    el_code rc = EL_OK;
    const char *extra = NULL;
    if (err)
        rc = io_failed(ctx, err, dir, "list");
    else if (odd)
        rc = refuse(ctx, dir, "not_a_file", odd, "refusing to sign the bundle %s: `%s` is not a "
                    "regular file (a link or a device could point anywhere)", dir, odd);
    else if (only && (extra = first_unlisted(&paths, only)) != NULL)
        rc = refuse(ctx, dir, "not_written", extra, "refusing to sign the bundle %s: `%s` is "
                    "not a file of this lock's bundle (planted, or left from another lock); "
                    "remove it, or bundle into an empty directory", dir, extra);
    for (size_t i = 0; rc == EL_OK && i < paths.len; i++) {
        char *p = xasprintf("%s/%s", dir, (char *)paths.items[i]), hex[65];
        uint64_t size;
        if ((err = file_sha256(p, hex, &size)) != 0)
            rc = io_failed(ctx, err, p, "read");
        else
            sb_addf(out, "%s  %s\n", hex, (char *)paths.items[i]);
        free(p);
    }
    *n_files = paths.len;
    free(odd);
    paths_free(&paths);
    return rc;
}

el_code bundle_sign(el_ctx *ctx, const char *dir, const char *key_path, ptrvec *only,
                    size_t *n_files)
{
    *n_files = 0;
    ed25519_key *key = load_key(ctx, key_path, true);
    if (!key)
        return el_ctx_code(ctx);
    strbuf sums = STRBUF_INIT;
    el_code rc = sums_text(ctx, dir, only, &sums, n_files);
    unsigned char sig[ED25519_SIG_LEN];
    if (rc == EL_OK && !ed25519_sign(key, sums.buf ? sums.buf : "", sums.len, sig))
        rc = el_fail(ctx, EL_INTERNAL, "cannot sign %s/%s: libcrypto refused", dir, SUMS);
    const char *step = NULL;
    for (int k = 0; rc == EL_OK && k < 2; k++) {
        char *p = xasprintf("%s/%s", dir, k ? SUMS_SIG : SUMS);
        int err = k ? file_write_atomic(p, sig, sizeof sig, &step)
                    : file_write_atomic(p, sums.buf ? sums.buf : "", sums.len, &step);
        if (err)
            rc = io_failed(ctx, err, p, step ? step : "write");
        free(p);
    }
    sb_release(&sums);
    ed25519_key_free(key);
    return rc;
}

/* One "HEX  PATH" line of SHA256SUMS: false unless the form is exact and
 * PATH is a plain relative path (no `..`, `.`, empty or absolute parts). */
static bool parse_line(char *line, char **hex, char **path)
{
    if (strlen(line) < 67 || line[64] != ' ' || line[65] != ' ')
        return false;
    for (int i = 0; i < 64; i++)
        if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f')))
            return false;
    line[64] = '\0';
    *hex = line;
    *path = line + 66;
    for (const char *seg = *path; seg;) {
        const char *slash = strchr(seg, '/');
        size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        seg = slash ? slash + 1 : NULL;
    }
    return true;
}

/* Every listed file holds its hash, and the list names every file there. */
static el_code check_sums(el_ctx *ctx, const char *dir, char *sums, size_t *n_files)
{
    ptrvec paths = PTRVEC_INIT;
    char *odd = NULL;
    int err = list_files(dir, &paths, &odd);
    el_code rc = err ? io_failed(ctx, err, dir, "list") : EL_OK;
    if (rc == EL_OK && odd)
        rc = refuse(ctx, dir, "tampered", odd,
                    "the bundle %s does not verify: `%s` is not a regular file", dir, odd);
    bool *seen = xcalloc(paths.len + 1, sizeof *seen);
    size_t listed = 0;
    for (char *line = sums, *next; rc == EL_OK && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *hex, *path, have[65];
        uint64_t size;
        if (!parse_line(line, &hex, &path)) {
            rc = refuse(ctx, dir, "tampered", SUMS,
                        "the bundle %s does not verify: " SUMS " has a malformed line `%s`", dir,
                        line);
            break;
        }
        char **at = bsearch(&path, paths.items, paths.len, sizeof *paths.items, cmp_str);
        if (!at) {
            rc = refuse(ctx, dir, "tampered", path,
                        "the bundle %s does not verify: `%s` is listed but missing", dir, path);
            break;
        }
        seen[at - (char **)paths.items] = true;
        char *p = xasprintf("%s/%s", dir, path);
        err = file_sha256(p, have, &size);
        if (err)
            rc = io_failed(ctx, err, p, "read");
        else if (strcmp(have, hex) != 0)
            rc = refuse(ctx, dir, "tampered", path,
                        "the bundle %s does not verify: `%s` differs from its listed sha256", dir,
                        path);
        free(p);
        listed++;
    }
    for (size_t i = 0; rc == EL_OK && i < paths.len; i++)
        if (!seen[i])
            rc = refuse(ctx, dir, "tampered", paths.items[i],
                        "the bundle %s does not verify: `%s` is not in " SUMS " (added since "
                        "it was signed)", dir, (char *)paths.items[i]);
    free(seen);
    *n_files = listed;
    free(odd);
    paths_free(&paths);
    return rc;
}

/* DIR/name, one of the two list files, into *out: a hostile bundle may
 * put a FIFO, a directory, a link or a huge file there, which is refused
 * (POLICY_DENIED, reason not_a_file or too_large), not read: lstat() says
 * what the name is, read_file() opens without blocking and bounds the
 * size. A missing one: reason unsigned. */
static el_code read_list(el_ctx *ctx, const char *dir, const char *name, size_t max, char **out,
                         size_t *len)
{
    char *p = xasprintf("%s/%s", dir, name);
    struct stat st;
    int err = lstat(p, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
    if (!err && !(*out = read_file(p, max, len)))
        err = errno ? errno : EIO;
    el_code rc = EL_OK;
    if (err == ENOENT)
        rc = refuse(ctx, dir, "unsigned", name, "the bundle %s is not signed: it has no `%s`",
                    dir, name);
    else if (err == EINVAL || err == EISDIR)
        rc = refuse(ctx, dir, "not_a_file", name,
                    "the bundle %s does not verify: `%s` is not a regular file", dir, name);
    else if (err == EFBIG)
        rc = refuse(ctx, dir, "too_large", name,
                    "the bundle %s does not verify: `%s` is larger than any it signs (%zu bytes)",
                    dir, name, max);
    else if (err)
        rc = io_failed(ctx, err, p, "read");
    free(p);
    return rc;
}

el_code bundle_verify(el_ctx *ctx, const char *dir, const char *key_path, size_t *n_files)
{
    *n_files = 0;
    ed25519_key *key = load_key(ctx, key_path, false);
    if (!key)
        return el_ctx_code(ctx);
    size_t sn = 0, gn = 0;
    char *sums = NULL, *sig = NULL;
    el_code rc = read_list(ctx, dir, SUMS, SUMS_MAX, &sums, &sn);
    if (rc == EL_OK)
        rc = read_list(ctx, dir, SUMS_SIG, ED25519_SIG_LEN + 1, &sig, &gn);
    if (rc == EL_OK && (gn != ED25519_SIG_LEN || strlen(sums) != sn ||
             !ed25519_verify(key, sums, sn, (const unsigned char *)sig)))
        rc = refuse(ctx, dir, "bad_signature", SUMS_SIG,
                    "the bundle %s does not verify: `%s` is no signature of SHA256SUMS by this "
                    "key", dir, SUMS_SIG);
    else if (rc == EL_OK)
        rc = check_sums(ctx, dir, sums, n_files);
    if (rc != EL_OK && key_path)
        el_detail_str(ctx, "key", key_path);
    free(sums);
    free(sig);
    ed25519_key_free(key);
    return rc;
}

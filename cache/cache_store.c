/* cache_store.c — the on-disk cache: content-addressed entry files, their
 * encoding (a one-line JSON header and one zstd frame), full verification on
 * every read, atomic writes and per-entry locks. It knows nothing about HTTP;
 * cache_http.c decides what to store and when an entry is fresh. Several
 * envlock processes may share one directory: readers only ever see whole
 * files (rename is atomic), and a corrupt file is removed, never served.
 * Raw entries (big blobs read in place) carry a seal beside them so that a
 * warm open need not CRC the whole body again (see "seals" below). */
#define _GNU_SOURCE /* F_OFD_SETLK (fcntl.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "cache.h"

#define MAGIC "envlock-cache 1\n"
#define MAGIC_LEN (sizeof MAGIC - 1)
/* An entry header is one JSON line; URLs are bounded, so is it. */
#define META_MAX (1u << 20)
/* Largest entry file read back; bodies are capped well below this. */
#define ENTRY_MAX ((size_t)4 << 30)
/* Largest body an entry may record, compressed or raw: what the store can
 * read back at all. A response is capped far lower (max_bytes, 512 MiB by
 * default); this bounds what a hand-made entry can ask for. */
#define ENTRY_BODY_MAX ((uint64_t)ENTRY_MAX)
/* A compressed body up to PLAUSIBLE_MIN bytes, or up to PLAUSIBLE_RATIO
 * times its frame, is decompressed straight into a buffer of its size:
 * envlock's own entries (level 1; JSON and HTML pages shrink 5-30
 * times, a run of one byte far more but is then small). A bigger claim is
 * proven by streaming first (frame_check). */
#define PLAUSIBLE_MIN ((uint64_t)64 << 20)
#define PLAUSIBLE_RATIO 256
/* The streaming check's buffer, and the largest window a frame may ask of
 * the decoder (16 MiB; envlock writes frames of at most 2 MiB windows). */
#define STREAM_CHUNK ((size_t)128 << 10)
#define FRAME_WINDOW_LOG_MAX 24

struct cache_store {
    char *dir;
};

struct cache_writer {
    char *tmp;
    char *final;
    char *subdir;
    int fd;
    struct stat st;  /* of the committed file, after the rename */
    bool have_st;
    bool lazy;       /* no fsyncs: see cache_store_refresh() */
};

/* Counts `n` bytes written directly past sb->len (within sb_grow's room);
 * sb_setlen() only shortens. */
static void sb_extend(strbuf *sb, size_t n)
{
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

int64_t cache_now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

void cache_key(const char *url, const char *accept, char out[65])
{
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "GET %s\n%s", url, accept ? accept : "");
    sha256_hex(sb.buf, sb.len, out);
    sb_release(&sb);
}

char *cache_entry_path(const char *dir, const char *key, const char *suffix)
{
    return xasprintf("%s/v1/%.2s/%s%s", dir, key, key, suffix ? suffix : "");
}

static int mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int r = mkdir(p, 0777);
    free(p);
    return r != 0 && errno != EEXIST ? -1 : 0;
}

cache_store *cache_store_open(el_ctx *ctx, const char *dir)
{
    char *v1 = xasprintf("%s/v1", dir);
    if (mkdir_p(v1) != 0) {
        el_fail_io(ctx, errno, "cannot create the cache directory %s: %s", v1, strerror(errno));
        el_detail_str(ctx, "path", v1);
        free(v1);
        return NULL;
    }
    free(v1);
    cache_store *s = xcalloc(1, sizeof *s);
    s->dir = xstrdup(dir);
    return s;
}

void cache_store_close(cache_store *s)
{
    if (!s)
        return;
    free(s->dir);
    free(s);
}

const char *cache_store_dir(const cache_store *s) { return s->dir; }

void cache_meta_init(cache_meta *m)
{
    memset(m, 0, sizeof *m);
    m->max_age = -1;
}

void cache_meta_clear(cache_meta *m)
{
    free(m->url);
    free(m->accept);
    free(m->etag);
    free(m->last_modified);
    free(m->content_type);
    memset(m, 0, sizeof *m);
    m->max_age = -1;
}

static void add_opt_str(json_object *o, const char *k, const char *v)
{
    if (v)
        json_object_object_add(o, k, json_object_new_string(v));
}

/* The magic line and the one-line JSON header of an entry whose body m
 * describes (m->size, m->sha256 and, for raw entries, m->crc32 already set). */
static void encode_header(const cache_meta *m, strbuf *out)
{
    size_t len = (size_t)m->size;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "url", json_object_new_string(m->url ? m->url : ""));
    add_opt_str(o, "accept", m->accept);
    add_opt_str(o, "etag", m->etag);
    add_opt_str(o, "last_modified", m->last_modified);
    add_opt_str(o, "content_type", m->content_type);
    json_object_object_add(o, "max_age", json_object_new_int64(m->max_age));
    json_object_object_add(o, "fetched_ms", json_object_new_int64(m->fetched_ms));
    json_object_object_add(o, "immutable", json_object_new_boolean(m->immutable));
    if (m->status && m->status != 200)
        json_object_object_add(o, "status", json_object_new_int64(m->status));
    json_object_object_add(o, "size", json_object_new_int64((int64_t)len));
    json_object_object_add(o, "sha256", json_object_new_string(m->sha256));
    if (m->raw) {
        json_object_object_add(o, "encoding", json_object_new_string("raw"));
        json_object_object_add(o, "crc32", json_object_new_int64(m->crc32));
    }
    sb_adds(out, MAGIC);
    /* Plain output escapes newlines, so the header stays one line. */
    sb_adds(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
    sb_addc(out, '\n');
    json_object_put(o);
}

/* The entry file's bytes; m->sha256 and m->size are the caller's when
 * `hashed` (the body's hash is then not computed a second time). */
static void encode_entry(cache_meta *m, const void *body, size_t len, bool hashed, strbuf *out)
{
    if (!hashed)
        sha256_hex(body, len, m->sha256);
    m->size = len;
    if (m->raw)
        m->crc32 = (uint32_t)crc32_z(0, body, len);
    encode_header(m, out);
    if (m->raw) {
        sb_add(out, body, len);
        return;
    }
    /* Level 1: JSON pages shrink as much as at level 3 (react's packument
     * 10.1x at both) at twice the speed (1,235 against 641 MB/s, `zstd -b1
     * -e3`), and already-compressed artifacts gain nothing from effort. */
    int level = 1;
    size_t bound = ZSTD_compressBound(len);
    sb_grow(out, bound);
    size_t z = ZSTD_compress(out->buf + out->len, bound, body, len, level);
    if (ZSTD_isError(z))
        abort(); /* only out of memory or a bad bound can get here */
    sb_extend(out, z);
}

void cache_entry_encode(cache_meta *m, const void *body, size_t len, strbuf *out)
{
    encode_entry(m, body, len, false, out);
}

static char *jstr(json_object *o, const char *k)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return xstrdup(json_object_get_string(v));
}

static bool parse_meta(const char *line, size_t n, cache_meta *m)
{
    json_tokener *tok = json_tokener_new();
    json_object *o = json_tokener_parse_ex(tok, line, (int)n);
    bool ok = o && json_tokener_get_error(tok) == json_tokener_success &&
              json_object_is_type(o, json_type_object);
    json_tokener_free(tok);
    cache_meta_clear(m);
    json_object *v;
    if (ok) {
        m->url = jstr(o, "url");
        m->accept = jstr(o, "accept");
        m->etag = jstr(o, "etag");
        m->last_modified = jstr(o, "last_modified");
        m->content_type = jstr(o, "content_type");
        if (json_object_object_get_ex(o, "max_age", &v))
            m->max_age = json_object_get_int64(v);
        m->status = json_object_object_get_ex(o, "status", &v) ? (long)json_object_get_int64(v) : 200;
        ok = m->url && json_object_object_get_ex(o, "fetched_ms", &v);
        if (ok)
            m->fetched_ms = json_object_get_int64(v);
        ok = ok && json_object_object_get_ex(o, "immutable", &v);
        if (ok)
            m->immutable = json_object_get_boolean(v);
        ok = ok && json_object_object_get_ex(o, "size", &v) && json_object_get_int64(v) >= 0;
        if (ok)
            m->size = (uint64_t)json_object_get_int64(v);
        char *sha = ok ? jstr(o, "sha256") : NULL;
        ok = sha && strlen(sha) == 64;
        if (ok)
            memcpy(m->sha256, sha, 65);
        free(sha);
        char *enc = ok ? jstr(o, "encoding") : NULL;
        if (enc) {
            /* The only other encoding is raw, which must carry its CRC. */
            m->raw = strcmp(enc, "raw") == 0;
            ok = m->raw && json_object_object_get_ex(o, "crc32", &v) &&
                 json_object_get_int64(v) >= 0 && json_object_get_int64(v) <= 0xffffffffLL;
            if (ok)
                m->crc32 = (uint32_t)json_object_get_int64(v);
            free(enc);
        }
    }
    json_object_put(o);
    if (!ok)
        cache_meta_clear(m);
    return ok;
}

/* Streams the frame z[0..zn) through a small window, counting and hashing
 * what it gives, and stops as soon as it gives more than m->size. Nothing
 * is allocated for the body, so a frame that lies about its size costs
 * STREAM_CHUNK bytes, not what it declares. NULL if the frame holds exactly
 * m->size bytes hashing to m->sha256. */
static const char *frame_stream_check(const unsigned char *z, size_t zn, const cache_meta *m)
{
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d)
        abort();
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, FRAME_WINDOW_LOG_MAX);
    unsigned char *chunk = xmalloc(STREAM_CHUNK);
    sha256_stream *h = sha256_begin();
    ZSTD_inBuffer in = { z, zn, 0 };
    uint64_t got = 0;
    const char *why = NULL;
    size_t r = 1;
    while (!why && r != 0) {
        ZSTD_outBuffer out = { chunk, STREAM_CHUNK, 0 };
        r = ZSTD_decompressStream(d, &out, &in);
        if (ZSTD_isError(r)) {
            why = "bad zstd frame";
            break;
        }
        got += out.pos;
        if (got > m->size)
            why = "size mismatch";
        else
            sha256_update(h, chunk, out.pos);
        if (r != 0 && in.pos == in.size && out.pos < out.size)
            why = "truncated zstd frame"; /* wants input there is not */
    }
    char sha[65];
    sha256_end(h, sha);
    if (!why && got != m->size)
        why = "size mismatch";
    if (!why && strcmp(sha, m->sha256) != 0)
        why = "body sha256 mismatch";
    free(chunk);
    ZSTD_freeDCtx(d);
    return why;
}

/* frame_check() :
 *  Verifies the zstd frame z[0..zn) of a compressed entry against its
 *  metadata, and with `out` also decompresses it into *out (malloc'd,
 *  m->size + 1 bytes, NUL-terminated). Bounds what a hostile entry can
 *  cost: the frame's declared size must be the recorded one (a frame with
 *  no declared size is bounded by the recorded size instead), neither may
 *  pass ENTRY_BODY_MAX, and a body is allocated at its full size up front
 *  only when that size is plausible for the frame's length (under
 *  PLAUSIBLE_MIN, or PLAUSIBLE_RATIO times the frame). Otherwise — a 16 KB
 *  frame claiming 3 GiB — the frame is first streamed and hashed through a
 *  small buffer, and the body allocated only once it proved to be exactly
 *  what the metadata says. Without `out` (prune, export, import) nothing is
 *  ever allocated at the body's size. */
static const char *frame_check(const unsigned char *z, size_t zn, const cache_meta *m,
                               unsigned char **out)
{
    unsigned long long csize = ZSTD_getFrameContentSize(z, zn);
    if (csize == ZSTD_CONTENTSIZE_ERROR)
        return "bad zstd frame";
    if (csize != ZSTD_CONTENTSIZE_UNKNOWN && csize != m->size)
        return "size mismatch";
    if (m->size > ENTRY_BODY_MAX)
        return "body larger than the cache holds";
    size_t frame = ZSTD_findFrameCompressedSize(z, zn);
    if (ZSTD_isError(frame) || frame != zn)
        return "truncated or trailing data after the zstd frame";
    bool plausible = m->size <= PLAUSIBLE_MIN || m->size / PLAUSIBLE_RATIO <= zn;
    if (!out || !plausible) {
        const char *why = frame_stream_check(z, zn, m);
        if (why || !out)
            return why;
    }
    size_t size = (size_t)m->size;
    unsigned char *buf = xmalloc(size + 1);
    /* One-shot into exactly `size` bytes: a frame holding more fails with
     * dstSize_tooSmall instead of writing past the buffer. */
    size_t d = ZSTD_decompress(buf, size, z, zn);
    if (ZSTD_isError(d) || d != size) {
        free(buf);
        return ZSTD_isError(d) && ZSTD_getErrorCode(d) == ZSTD_error_dstSize_tooSmall
                   ? "size mismatch"
                   : "bad zstd frame";
    }
    buf[size] = '\0';
    if (plausible) {
        char sha[65];
        sha256_hex(buf, size, sha);
        if (strcmp(sha, m->sha256) != 0) {
            free(buf);
            return "body sha256 mismatch";
        }
    }
    *out = buf;
    return NULL;
}

/* Whether the metadata names the entry `key` (the key of its URL and
 * Accept). */
static bool meta_names(const cache_meta *m, const char *key)
{
    char k[65];
    cache_key(m->url, m->accept, k);
    return strcmp(k, key) == 0;
}

const char *cache_entry_check(const unsigned char *data, size_t n, const char *key,
                              cache_meta *mout, unsigned char **body, size_t *len)
{
    cache_meta m;
    cache_meta_init(&m);
    m.max_age = -1;
    if (n < MAGIC_LEN || memcmp(data, MAGIC, MAGIC_LEN) != 0)
        return "bad magic";
    const unsigned char *hdr = data + MAGIC_LEN;
    const unsigned char *nl = memchr(hdr, '\n', n - MAGIC_LEN);
    if (!nl || (size_t)(nl - hdr) > META_MAX)
        return "truncated metadata";
    if (!parse_meta((const char *)hdr, (size_t)(nl - hdr), &m))
        return "unreadable metadata";
    const char *why = NULL;
    if (key && !meta_names(&m, key))
        why = "metadata does not match the entry name";
    const unsigned char *z = nl + 1;
    size_t zn = n - (size_t)(z - data);
    if (!why && m.raw) {
        unsigned char *out = NULL;
        if (zn != m.size)
            why = zn < m.size ? "truncated raw body" : "trailing data after the raw body";
        else if ((uint32_t)crc32_z(0, z, zn) != m.crc32)
            why = "body crc32 mismatch";
        if (!why) {
            char sha[65];
            sha256_hex(z, zn, sha);
            if (strcmp(sha, m.sha256) != 0)
                why = "body sha256 mismatch";
        }
        if (why) {
            cache_meta_clear(&m);
            return why;
        }
        if (body) {
            out = xmalloc(zn + 1);
            memcpy(out, z, zn);
            out[zn] = '\0';
            *body = out;
            *len = zn;
        }
        if (mout)
            *mout = m;
        else
            cache_meta_clear(&m);
        return NULL;
    }
    unsigned char *out = NULL;
    if (!why)
        why = frame_check(z, zn, &m, body ? &out : NULL);
    if (why) {
        free(out);
        cache_meta_clear(&m);
        return why;
    }
    if (body) {
        *body = out;
        *len = (size_t)m.size;
    } else {
        free(out);
    }
    if (mout)
        *mout = m;
    else
        cache_meta_clear(&m);
    return NULL;
}

/* open_entry() :
 *  Opens an entry (or seal) file for reading without ever blocking: a FIFO
 *  put where an entry belongs would otherwise hang the open until some
 *  writer came. O_NONBLOCK changes nothing for a regular file's reads; the
 *  caller's fstat() must still refuse anything that is not S_ISREG (the
 *  entry is then corrupt: removed and refetched, never read). -1 with errno
 *  on failure. */
static int open_entry(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

/* Removes `path` only if it is still the inode we read (a concurrent writer
 * may have renamed a fresh, valid entry over it meanwhile). */
static void unlink_if_same(const char *path, const struct stat *was)
{
    struct stat now;
    if (stat(path, &now) == 0 && now.st_ino == was->st_ino && now.st_dev == was->st_dev)
        unlink(path);
}

/* Opens the entry file of `key` and stats it into *st: the fd, its path in
 * *path (the caller frees), or -1 when there is none. Sets *bad when the
 * file is there but cannot be stat'ed or is no regular file. */
static int open_stat(const cache_store *s, const char *key, char **path, struct stat *st,
                     const char **bad)
{
    memset(st, 0, sizeof *st);
    *path = cache_entry_path(s->dir, key, NULL);
    int fd = open_entry(*path);
    if (fd < 0) {
        free(*path);
        *path = NULL;
        return -1;
    }
    if (fstat(fd, st) != 0)
        *bad = "unreadable entry";
    else if (!S_ISREG(st->st_mode))
        *bad = "not a regular file";
    return fd;
}

/* An entry found `bad`: removed (unless replaced meanwhile), its path freed,
 * *why set. */
static cache_entry_state corrupt(char *path, const struct stat *st, const char *bad,
                                 const char **why)
{
    unlink_if_same(path, st);
    free(path);
    if (why)
        *why = bad;
    return CACHE_ENTRY_CORRUPT;
}

cache_entry_state cache_store_get(cache_store *s, const char *key, cache_meta *m,
                                  unsigned char **body, size_t *len, const char **why)
{
    char *path;
    struct stat st;
    const char *bad = NULL;
    int fd = open_stat(s, key, &path, &st, &bad);
    if (fd < 0)
        return CACHE_ENTRY_MISSING;
    strbuf sb = STRBUF_INIT;
    if (bad) {
        /* reported below */
    } else if ((uint64_t)st.st_size > ENTRY_MAX) {
        bad = "unreadable entry";
    } else {
        sb_grow(&sb, (size_t)st.st_size + 1);
        for (;;) {
            ssize_t r = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                bad = "unreadable entry";
                break;
            }
            if (r == 0)
                break;
            sb_extend(&sb, (size_t)r);
            if (sb.alloc - sb.len < 2)
                sb_grow(&sb, 65536);
        }
    }
    close(fd);
    if (!bad)
        bad = cache_entry_check((const unsigned char *)sb.buf, sb.len, key, m, body, len);
    sb_release(&sb);
    if (bad)
        return corrupt(path, &st, bad, why);
    free(path);
    return CACHE_ENTRY_OK;
}

cache_entry_state cache_store_get_meta(cache_store *s, const char *key, cache_meta *m,
                                       const char **why)
{
    char *path = cache_entry_path(s->dir, key, NULL);
    struct stat st;
    if (lstat(path, &st) != 0) {
        free(path);
        return CACHE_ENTRY_MISSING;
    }
    const char *bad = NULL;
    if (!S_ISREG(st.st_mode) || !cache_entry_read_meta(path, m)) {
        bad = !S_ISREG(st.st_mode) ? "not a regular file" : "unreadable metadata";
    } else if (m->raw) {
        bad = "a raw entry where a fetched body belongs";
    } else if (!meta_names(m, key)) {
        bad = "metadata does not match the entry name";
    }
    if (bad) {
        cache_meta_clear(m);
        return corrupt(path, &st, bad, why);
    }
    free(path);
    return CACHE_ENTRY_OK;
}

/* ---- seals of raw entries ----
 *
 * A raw entry is read in place on every warm run (a Debian main .solv is
 * ~18 MB), and a CRC-32 of all of it was ~9% of a warm apt resolve. So
 * beside <key> sits <key>.seal, one line describing the file as it was when
 * its bytes were known good:
 *   "envlock-seal 1 SIZE MTIME_S MTIME_NS CTIME_S CTIME_NS DEV INO HEAD TAIL\n"
 * where HEAD and TAIL are the CRC-32 of the file's first and last SEAL_EDGE
 * bytes. The writer seals an entry right after renaming it into place (it
 * wrote those bytes); a reader seals one after a full check passed. An open
 * whose fstat() and edge CRCs agree with the seal skips the full CRC;
 * anything else (no seal, an unreadable one, any field different) takes the
 * full check, which re-seals the entry when it passes.
 *
 * Why skipping is safe: an entry is never written in place, only whole into
 * a temp file renamed over the name, so a rewritten entry is another inode
 * with another ctime and matches no earlier seal. Changing a file in place
 * (write, truncate, chmod, or `touch -d` putting its mtime back) sets its
 * ctime to the present, which no unprivileged call can undo, so that takes
 * the full check too (the edge CRCs also catch what a coarse clock tick
 * could hide at the two ends). What a seal cannot see is damage below the
 * kernel, bits rotting in the middle of the body on the medium: apt trusts
 * its own binary cache (pkgcache.bin) on size and mtime alone for the same
 * reason, and the one consumer of big blobs, the apt loader, drops and
 * refetches a blob libsolv refuses. The sha256 in the metadata is still
 * checked by cache_blob_get(), prune and import. A seal is an optimisation
 * only: a lost or stale one costs one full CRC. `cache prune` removes a
 * seal with its entry (and one whose entry is gone). */
#define SEAL_MAGIC "envlock-seal 1"
#define SEAL_EDGE ((size_t)64 << 10)
#define SEAL_MAX 256

typedef struct seal {
    unsigned long long size, mtime_s, mtime_ns, ctime_s, ctime_ns, dev, ino, head, tail;
} seal;

/* The seal of entry file bytes data[0..n) whose fstat() is `st`. */
static void seal_of(const struct stat *st, const unsigned char *data, size_t n, seal *out)
{
    size_t e = n < SEAL_EDGE ? n : SEAL_EDGE;
    out->size = (unsigned long long)st->st_size;
    out->mtime_s = (unsigned long long)st->st_mtim.tv_sec;
    out->mtime_ns = (unsigned long long)st->st_mtim.tv_nsec;
    out->ctime_s = (unsigned long long)st->st_ctim.tv_sec;
    out->ctime_ns = (unsigned long long)st->st_ctim.tv_nsec;
    out->dev = (unsigned long long)st->st_dev;
    out->ino = (unsigned long long)st->st_ino;
    out->head = (unsigned long long)crc32_z(0, data, e);
    out->tail = (unsigned long long)crc32_z(0, data + n - e, e);
}

static bool seal_equal(const seal *a, const seal *b)
{
    return a->size == b->size && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
           a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns && a->dev == b->dev &&
           a->ino == b->ino && a->head == b->head && a->tail == b->tail;
}

/* Reads the seal at `path`; false if there is none or it does not parse. */
static bool seal_read(const char *path, seal *out)
{
    int fd = open_entry(path);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    char buf[SEAL_MAX];
    ssize_t n;
    do
        n = read(fd, buf, sizeof buf - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    size_t ml = sizeof SEAL_MAGIC - 1;
    if (strncmp(buf, SEAL_MAGIC " ", ml + 1) != 0 || buf[n - 1] != '\n')
        return false;
    unsigned long long *f[] = { &out->size, &out->mtime_s, &out->mtime_ns, &out->ctime_s,
                                &out->ctime_ns, &out->dev, &out->ino, &out->head, &out->tail };
    const char *p = buf + ml;
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        if (*p != ' ' || p[1] < '0' || p[1] > '9')
            return false;
        char *end;
        errno = 0;
        *f[i] = strtoull(p + 1, &end, 10);
        if (errno)
            return false;
        p = end;
    }
    return *p == '\n' && p[1] == '\0';
}

/* Writes the seal of entry `key` (best effort: temp file and rename, no
 * fsync; a seal lost in a crash only costs a full check). */
static void seal_write(const char *dir, const char *key, const seal *sl)
{
    char *path = cache_entry_path(dir, key, ".seal");
    char line[SEAL_MAX];
    int n = snprintf(line, sizeof line, SEAL_MAGIC " %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
                     sl->size, sl->mtime_s, sl->mtime_ns, sl->ctime_s, sl->ctime_ns, sl->dev,
                     sl->ino, sl->head, sl->tail);
    const char *step;
    if (n > 0 && (size_t)n < sizeof line)
        (void)file_write_atomic_flags(path, line, (size_t)n, FILE_LAZY, &step);
    free(path);
}

/* Whether the sealed state of the open entry file (fstat `st`, bytes
 * map[0..n)) is the one its seal records. */
static bool seal_matches(const char *dir, const char *key, const struct stat *st,
                         const unsigned char *map, size_t n)
{
    seal want, got;
    char *path = cache_entry_path(dir, key, ".seal");
    bool ok = seal_read(path, &want);
    free(path);
    if (!ok)
        return false;
    seal_of(st, map, n, &got);
    return seal_equal(&want, &got);
}

/* Why the header of the entry mapped at map[0..n) (magic, metadata naming
 * `key`) is unusable, or NULL with *m its metadata and *off where its body
 * starts. */
static const char *header_bad(const unsigned char *map, size_t n, const char *key,
                              cache_meta *m, size_t *off)
{
    const unsigned char *nl = memchr(map + MAGIC_LEN, '\n', n - MAGIC_LEN);
    if (memcmp(map, MAGIC, MAGIC_LEN) != 0)
        return "bad magic";
    if (!nl || (size_t)(nl - map) > META_MAX)
        return "truncated metadata";
    if (!parse_meta((const char *)map + MAGIC_LEN, (size_t)(nl - map) - MAGIC_LEN, m))
        return "unreadable metadata";
    if (!meta_names(m, key))
        return "metadata does not match the entry name";
    *off = (size_t)(nl + 1 - map);
    return NULL;
}

/* Why a raw entry's body (from `off` to the end of the file `st`, mapped
 * at `map`) is unusable: its length or CRC-32 against the metadata; a
 * matching seal spares the CRC pass, and a body that passes it is sealed. */
static const char *raw_body_bad(cache_store *s, const char *key, int fd, const struct stat *st,
                                const unsigned char *map, size_t off, const cache_meta *m)
{
    size_t n = (size_t)st->st_size;
    if (n - off != m->size)
        return n - off < m->size ? "truncated raw body" : "trailing data after the raw body";
    if (seal_matches(s->dir, key, st, map, n))
        return NULL;
    if ((uint32_t)crc32_z(0, map + off, n - off) != m->crc32)
        return "body crc32 mismatch";
    /* Seal what was checked, unless the file changed under the check (then
     * the next open checks again). */
    struct stat now;
    seal sl;
    if (fstat(fd, &now) == 0 && now.st_ctim.tv_sec == st->st_ctim.tv_sec &&
        now.st_ctim.tv_nsec == st->st_ctim.tv_nsec && now.st_size == st->st_size) {
        seal_of(&now, map, n, &sl);
        seal_write(s->dir, key, &sl);
    }
    return NULL;
}

FILE *cache_store_open_raw(cache_store *s, const char *key, size_t *len,
                           cache_entry_state *state, const char **why)
{
    *state = CACHE_ENTRY_MISSING;
    char *path;
    struct stat st;
    const char *bad = NULL;
    int fd = open_stat(s, key, &path, &st, &bad);
    if (fd < 0)
        return NULL;
    cache_meta m;
    cache_meta_init(&m);
    size_t off = 0;
    unsigned char *map = NULL;
    if (bad) {
        /* reported below */
    } else if (st.st_size < (off_t)MAGIC_LEN || (uint64_t)st.st_size > ENTRY_MAX) {
        bad = "unreadable entry";
    } else {
        /* One mapping serves the header and the CRC pass; libsolv (or any
         * caller) then reads the same open file through stdio. */
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            map = NULL;
            bad = "unreadable entry";
        }
    }
    if (!bad)
        bad = header_bad(map, (size_t)st.st_size, key, &m, &off);
    if (!bad && m.raw)
        bad = raw_body_bad(s, key, fd, &st, map, off, &m);
    if (map)
        munmap(map, (size_t)st.st_size);
    if (bad) {
        close(fd);
        cache_meta_clear(&m);
        *state = corrupt(path, &st, bad, why);
        return NULL;
    }
    free(path);
    *state = CACHE_ENTRY_OK;
    bool raw = m.raw;
    *len = (size_t)m.size;
    cache_meta_clear(&m);
    FILE *f = raw ? fdopen(fd, "rb") : NULL;
    if (!f) {
        close(fd);
        return NULL;
    }
    if (fseeko(f, (off_t)off, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    return f;
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    close(fd);
    return r;
}

/* Makes the shard directory of `key` (<dir>/v1/<k0k1>, in *sub, malloc'd):
 * it exists only once some entry of it is written (the entry locks live in
 * v1/.locks). 0, or the errno. */
static int make_shard(const cache_store *s, const char *key, char **sub)
{
    *sub = xasprintf("%s/v1/%.2s", s->dir, key);
    return mkdir(*sub, 0777) != 0 && errno != EEXIST ? errno : 0;
}

cache_writer *cache_writer_begin(cache_store *s, el_ctx *ctx, const char *key)
{
    char *sub;
    int err = make_shard(s, key, &sub);
    if (err) {
        el_fail_io(ctx, err, "cannot create %s: %s", sub, strerror(err));
        el_detail_str(ctx, "path", sub);
        free(sub);
        return NULL;
    }
    cache_writer *w = xcalloc(1, sizeof *w);
    w->subdir = sub;
    w->final = cache_entry_path(s->dir, key, NULL);
    /* the pid tells processes apart and O_EXCL the writers within one (no
     * counter: the library keeps no static state) */
    w->fd = -1;
    for (unsigned attempt = 0; attempt < 100 && w->fd < 0; attempt++) {
        free(w->tmp);
        w->tmp = xasprintf("%s/.tmp-%s-%ld-%u", sub, key, (long)getpid(), attempt);
        w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (w->fd < 0 && errno != EEXIST)
            break;
    }
    if (w->fd < 0) {
        el_fail_io(ctx, errno, "cannot create %s: %s", w->tmp, strerror(errno));
        el_detail_str(ctx, "path", w->tmp);
        free(w->tmp);
        w->tmp = NULL;
        cache_writer_abort(w);
        return NULL;
    }
    return w;
}

bool cache_writer_write(cache_writer *w, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t r = write(w->fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

void cache_writer_abort(cache_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp)
        unlink(w->tmp);
    free(w->tmp);
    free(w->final);
    free(w->subdir);
    free(w);
}

/* The file stays open across the rename so that its fstat() afterwards
 * (rename may touch the ctime) describes the very inode that was written,
 * whatever another writer renames over the name meanwhile. */
static el_code writer_commit(cache_writer *w, el_ctx *ctx)
{
    if (!w->lazy && fsync(w->fd) != 0) {
        el_fail_io(ctx, errno, "cannot write %s: %s", w->tmp, strerror(errno));
        el_detail_str(ctx, "path", w->tmp);
        return EL_IO;
    }
    if (rename(w->tmp, w->final) != 0) {
        el_fail_io(ctx, errno, "cannot rename %s into place: %s", w->tmp, strerror(errno));
        el_detail_str(ctx, "path", w->final);
        return EL_IO;
    }
    free(w->tmp);
    w->tmp = NULL;
    w->have_st = fstat(w->fd, &w->st) == 0;
    close(w->fd); /* after fsync, a close error loses nothing */
    w->fd = -1;
    if (!w->lazy)
        fsync_dir(w->subdir); /* durability only; the rename already happened */
    return EL_OK;
}

el_code cache_writer_commit(cache_writer *w, el_ctx *ctx)
{
    el_code rc = writer_commit(w, ctx);
    cache_writer_abort(w);
    return rc;
}

/* Writes the encoded entry `bytes` under `key` (temp file, rename; fsyncs
 * unless `lazy`) and seals it when it is raw. */
static el_code write_entry(cache_store *s, el_ctx *ctx, const char *key, const strbuf *bytes,
                           bool raw, bool lazy)
{
    cache_writer *w = cache_writer_begin(s, ctx, key);
    if (!w)
        return el_ctx_code(ctx);
    w->lazy = lazy;
    if (!cache_writer_write(w, bytes->buf, bytes->len)) {
        el_fail_io(ctx, errno, "cannot write %s: %s", w->tmp, strerror(errno));
        el_detail_str(ctx, "path", w->tmp);
        cache_writer_abort(w);
        return EL_IO;
    }
    el_code rc = writer_commit(w, ctx);
    if (rc == EL_OK && raw && w->have_st) {
        seal sl;
        seal_of(&w->st, (const unsigned char *)bytes->buf, bytes->len, &sl);
        seal_write(s->dir, key, &sl);
    }
    cache_writer_abort(w);
    return rc;
}

static el_code store_put(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                         const void *body, size_t len, bool lazy, bool hashed)
{
    strbuf sb = STRBUF_INIT;
    encode_entry(m, body, len, hashed, &sb);
    el_code rc = write_entry(s, ctx, key, &sb, m->raw, lazy);
    sb_release(&sb);
    return rc;
}

el_code cache_store_put(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                        const void *body, size_t len)
{
    return store_put(s, ctx, key, m, body, len, false, false);
}

el_code cache_store_put_lazy(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                             const void *body, size_t len)
{
    return store_put(s, ctx, key, m, body, len, true, false);
}

el_code cache_store_put_hashed(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                               const void *body, size_t len)
{
    return store_put(s, ctx, key, m, body, len, true, true);
}

int cache_store_place_file(cache_store *s, const char *key, const char *src)
{
    char *sub;
    int err = make_shard(s, key, &sub);
    free(sub);
    if (err)
        return err;
    char *entry = cache_entry_path(s->dir, key, CACHE_FILE_SUFFIX);
    const char *step;
    err = file_link_atomic(src, entry, false, &step);
    free(entry);
    return err;
}

/* A refresh rewrites an entry whose body is the one already stored (a 304:
 * new fetch time, maybe new freshness headers) without fsyncs: the rename
 * is still atomic for readers, and if a crash loses the new bytes the old
 * entry or a torn one is what remains — the old one is merely stale, a
 * torn one fails its checks and is refetched. A revalidating run does one
 * refresh per page, so two fsyncs each were most of its time. */
el_code cache_store_refresh(cache_store *s, el_ctx *ctx, const char *key, cache_meta *m,
                            const void *body, size_t len)
{
    /* The file on disk still holding this very body (same size and sha256
     * in its header: no other writer replaced it) keeps its encoded body;
     * only the header line is new. Saves compressing and hashing the body
     * again, most of a refresh for a big packument. */
    char *path = cache_entry_path(s->dir, key, NULL);
    size_t n = 0;
    char *old = m->raw ? NULL : read_file(path, (size_t)1 << 30, &n);
    free(path);
    const char *nl = old && n > MAGIC_LEN && memcmp(old, MAGIC, MAGIC_LEN) == 0
                         ? memchr(old + MAGIC_LEN, '\n', n - MAGIC_LEN)
                         : NULL;
    if (nl) {
        cache_meta om;
        cache_meta_init(&om);
        bool same = parse_meta(old + MAGIC_LEN, (size_t)(nl - old - MAGIC_LEN), &om) && !om.raw &&
                    om.size == (uint64_t)len && strcmp(om.sha256, m->sha256) == 0 &&
                    m->size == (uint64_t)len;
        cache_meta_clear(&om);
        if (same) {
            strbuf sb = STRBUF_INIT;
            encode_header(m, &sb);
            sb_add(&sb, nl + 1, (size_t)(old + n - (nl + 1)));
            free(old);
            el_code rc = write_entry(s, ctx, key, &sb, false, true);
            sb_release(&sb);
            return rc;
        }
    }
    free(old);
    /* Without the body (a response delivered from metadata alone) there is
     * nothing to write when another writer replaced the entry meanwhile:
     * its entry stands, and this run's freshness is only lost. */
    return body ? store_put(s, ctx, key, m, body, len, true, false) : EL_OK;
}

#ifdef F_OFD_SETLK
/* The per-entry locks are byte-range locks of open file descriptions
 * (Linux's OFD locks: two opens conflict, in one process too) on one file,
 * <dir>/v1/.locks, at an offset taken from the key: creating a lock file
 * per entry was an inode per packument on a cold crawl's critical path
 * (ext4 inode allocation was a tenth of its main thread). 60 bits of the
 * key: two keys share a lock only by a collision of those. A lock dies with
 * its descriptor, so a killed holder leaves none behind. */
static bool range_lock(int fd, const char *key, short type)
{
    char hex[16];
    memcpy(hex, key, 15);
    hex[15] = '\0';
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)strtoull(hex, NULL, 16);
    fl.l_len = 1;
    return fcntl(fd, F_OFD_SETLK, &fl) == 0;
}

int cache_store_lock(cache_store *s, const char *key, bool *busy)
{
    *busy = false;
    char *path = xasprintf("%s/v1/.locks", s->dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    free(path);
    if (fd < 0)
        return -1;
    if (!range_lock(fd, key, F_WRLCK)) {
        *busy = errno == EAGAIN || errno == EACCES;
        close(fd);
        return -1;
    }
    return fd;
}

void cache_store_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the descriptor's locks */
}
#else
int cache_store_lock(cache_store *s, const char *key, bool *busy)
{
    *busy = false;
    char *sub = xasprintf("%s/v1/%.2s", s->dir, key);
    if (mkdir(sub, 0777) != 0 && errno != EEXIST) {
        free(sub);
        return -1;
    }
    free(sub);
    char *path = cache_entry_path(s->dir, key, ".lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(path);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        *busy = errno == EWOULDBLOCK;
        close(fd);
        return -1;
    }
    return fd;
}

void cache_store_unlock(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}
#endif

static bool hex2(const char *s)
{
    return strlen(s) == 2 && strspn(s, "0123456789abcdef") == 2;
}

void cache_store_walk(const char *dir, void (*fn)(const char *path, const char *name, void *u),
                      void *u)
{
    char *v1 = xasprintf("%s/v1", dir);
    DIR *d = opendir(v1);
    if (!d) {
        free(v1);
        return;
    }
    /* Collect first: fn may unlink. */
    ptrvec subs = PTRVEC_INIT;
    struct dirent *e;
    while ((e = readdir(d)))
        if (hex2(e->d_name))
            ptrvec_push(&subs, xasprintf("%s/%s", v1, e->d_name));
    closedir(d);
    for (size_t i = 0; i < subs.len; i++) {
        DIR *sd = opendir(subs.items[i]);
        if (!sd)
            continue;
        ptrvec names = PTRVEC_INIT;
        while ((e = readdir(sd)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                ptrvec_push(&names, xstrdup(e->d_name));
        closedir(sd);
        for (size_t j = 0; j < names.len; j++) {
            char *p = xasprintf("%s/%s", (char *)subs.items[i], (char *)names.items[j]);
            fn(p, names.items[j], u);
            free(p);
            free(names.items[j]);
        }
        ptrvec_release(&names);
        free(subs.items[i]);
    }
    ptrvec_release(&subs);
    free(v1);
}

bool cache_entry_read_meta(const char *path, cache_meta *m)
{
    int fd = open_entry(path);
    if (fd < 0)
        return false;
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (!f) {
        close(fd);
        return false;
    }
    char magic[MAGIC_LEN];
    bool ok = fread(magic, 1, MAGIC_LEN, f) == MAGIC_LEN && memcmp(magic, MAGIC, MAGIC_LEN) == 0;
    strbuf sb = STRBUF_INIT;
    int c = 0;
    while (ok && (c = getc(f)) != EOF && c != '\n' && sb.len < META_MAX)
        sb_addc(&sb, (char)c);
    fclose(f);
    ok = ok && c == '\n' && parse_meta(sb.buf, sb.len, m);
    sb_release(&sb);
    return ok;
}

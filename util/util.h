/* util.h — the few containers and helpers every module uses, and the
 * internal side of the error model (recording a failure on an el_ctx).
 * Not part of the public API. Nothing here knows about any ecosystem. */
#ifndef EL_UTIL_H
#define EL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "envlock.h"

struct json_object;

/* ---- allocation: out of memory aborts (as libsolv does) ---- */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) EL_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);
/* What the x* functions do when `n` bytes cannot be had, for a library's
 * allocation that failed (a json-c table): one line on stderr, abort(). */
_Noreturn void xoom(size_t n);

/* ---- strbuf: a growable string ----
 * Invariants: `buf` is never NULL and always NUL-terminated, also when empty
 * (it then points at a shared empty string until the first append); `len`
 * excludes the NUL. sb_detach() is the one way to take ownership of the bytes;
 * it leaves the strbuf empty and reusable. sb_release() frees and resets. */
typedef struct strbuf {
    char *buf;
    size_t len;
    size_t alloc;
} strbuf;

#define STRBUF_INIT { (char *)sb_empty_, 0, 0 }
extern const char sb_empty_[1];

void sb_init(strbuf *sb);
void sb_grow(strbuf *sb, size_t extra);
void sb_add(strbuf *sb, const void *data, size_t n);
void sb_adds(strbuf *sb, const char *s);
void sb_addc(strbuf *sb, char c);
void sb_addf(strbuf *sb, const char *fmt, ...) EL_PRINTF(2, 3);
void sb_vaddf(strbuf *sb, const char *fmt, va_list ap);
void sb_setlen(strbuf *sb, size_t len);
void sb_reset(strbuf *sb);
char *sb_detach(strbuf *sb, size_t *len);
void sb_release(strbuf *sb);

/* ---- arena: bump allocation, freed all at once ----
 * For parse results whose pieces all live and die together (one index load,
 * one spec). Allocations are 16-byte aligned and zeroed. */
typedef struct arena arena;
arena *arena_new(void);
void arena_free(arena *a);
void *arena_alloc(arena *a, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_sprintf(arena *a, const char *fmt, ...) EL_PRINTF(2, 3);
/* arena_shown() : `s` cut at `max` bytes with control bytes (and DEL) as
 *  '?': a string from a hostile document, fit for a note or a message. */
char *arena_shown(arena *a, const char *s, size_t max);
/* arena_trimmed() : `s` without its leading and trailing blanks. */
char *arena_trimmed(arena *a, const char *s);

/* ---- ptrvec: a growable array of pointers (does not own the pointees) ---- */
typedef struct ptrvec {
    void **items;
    size_t len;
    size_t alloc;
} ptrvec;
#define PTRVEC_INIT { NULL, 0, 0 }
void ptrvec_push(ptrvec *v, void *p);
void ptrvec_release(ptrvec *v);
/* ptrvec_has_str() : whether one of v's items, all strings, equals `s`. */
bool ptrvec_has_str(const ptrvec *v, const char *s);

/* ---- files ---- */
/* read_file() : whole file into a NUL-terminated malloc'd buffer, at most
 * `max` bytes (more is an error: errno EFBIG, found from the size before
 * anything is read). NULL with errno on failure. Only a regular file is
 * read: the path is opened non-blocking and a directory is EISDIR, a FIFO,
 * device or socket EINVAL (file_strerror() words it), so a FIFO where a
 * file belongs can neither block the open nor feed bytes forever. */
char *read_file(const char *path, size_t max, size_t *len);

/* file_strerror() : strerror(err), except EINVAL from read_file():
 *  "not a regular file". Static storage. */
const char *file_strerror(int err);

/* file_write_atomic() : makes `path` hold exactly data[0..len): a unique
 * temp file in the same directory (O_EXCL), fsync, rename over path, fsync
 * of the directory. On failure the old file is untouched and the temp file
 * removed. Returns 0, or the errno with *step naming what failed
 * ("creating a temporary file", "writing", "syncing", "closing",
 * "renaming the temporary file into place"). */
int file_write_atomic(const char *path, const void *data, size_t len, const char **step);

/* file_stream : file_write_atomic() for bytes that arrive piece by piece
 * (a download larger than memory should hold). begin creates the unique
 * temp file beside `path` (NULL with *err its errno); write appends,
 * returning 0 or the errno of the first failure (later writes are
 * no-ops returning it); commit syncs, renames over `path`, syncs the
 * directory and frees the stream (0, or the errno with *step as for
 * file_write_atomic); abort removes the temp file and frees (NULL: no-op).
 * Until commit, `path` is untouched. */
typedef struct file_stream file_stream;
file_stream *file_stream_begin(const char *path, int *err);

/* FILE_LAZY (file_stream_begin_flags(), file_write_atomic_flags()): no
 * fsync of the file or its directory. The rename still means no reader
 * ever sees a partial file, but a crash may leave the old file, or the new
 * one empty or torn: only for files whose content is checked before use
 * (by hash) and whose tree is made durable in one go (file_sync_fs()) before
 * anything counts on it. An fsync costs ~2 ms here, most of writing a small
 * file. */
#define FILE_LAZY 1u
file_stream *file_stream_begin_flags(const char *path, unsigned flags, int *err);
int file_write_atomic_flags(const char *path, const void *data, size_t len, unsigned flags,
                            const char **step);
/* file_sync_fs() : everything written to the filesystem holding the
 * directory `dir` made durable at once (syncfs(2)). 0 or the errno. */
int file_sync_fs(const char *dir);
int file_stream_write(file_stream *s, const void *data, size_t n);
uint64_t file_stream_size(const file_stream *s);
int file_stream_commit(file_stream *s, const char **step);
void file_stream_abort(file_stream *s);

/* file_link_atomic() : makes `dst` a hard link of `src` (linked under a
 * unique temp name, renamed over dst, so dst is never missing or partial).
 * When no link can be made (another filesystem: EXDEV) and copy_fallback,
 * copies src through a file_stream instead. 0, or the errno with *step. */
int file_link_atomic(const char *src, const char *dst, bool copy_fallback, const char **step);

/* file_sha256() : the hex sha256 of the regular file `path` (not followed
 * if a symlink; a FIFO is EINVAL, never read) read in pieces, and its size.
 * 0 or the errno. */
int file_sha256(const char *path, char out[65], uint64_t *size);

/* file_mkdirs() : makes the directory `path` and any missing parents (as
 * `mkdir -p`). Returns 0, or the errno of the first component that could
 * not be made (ENOTDIR when one exists and is not a directory). */
int file_mkdirs(const char *path);

/* file_write_all() : all n bytes of data to `fd`, writing again after a
 * short write or EINTR. 0, or -1 with errno set (EIO if write() wrote
 * nothing). */
int file_write_all(int fd, const void *data, size_t n);

/* file_holds() : whether `path` is a regular file (not followed if a
 * symlink, never blocking on a FIFO) holding exactly data[0..len). */
bool file_holds(const char *path, const void *data, size_t len);

/* ---- hashing (OpenSSL lives behind these two) ---- */
/* The little-endian integers of the binary parsed forms (binform.c):
 * bin_put_*() append to a strbuf; a bin_reader reads from p to end, and
 * the first read past the end (or, for bin_u8, a value over `max`) sets
 * `bad`, after which every read gives 0. */
typedef struct bin_reader {
    const unsigned char *p, *end;
    bool bad;
} bin_reader;
void bin_put_u32(strbuf *sb, uint32_t v);
void bin_put_u64(strbuf *sb, uint64_t v);
bool bin_need(bin_reader *r, size_t n);
/* bin_put_str() : u32 length then the bytes, or length 0xffffffff for
 *  NULL. bin_put_strs() : u32 count then n such strings.
 * bin_str() : one string written by bin_put_str(), copied into `a`; NULL
 *  for a written NULL when `nullable`. A written NULL otherwise, a length
 *  past the end or a NUL inside makes r bad; a bad read gives NULL, or ""
 *  when not `nullable`, so callers need no check before r->bad is looked at.
 * bin_strs() : a bin_put_strs() list, its count bounded by what is left so
 *  that a damaged count cannot ask for a huge allocation. */
void bin_put_str(strbuf *sb, const char *s);
void bin_put_strs(strbuf *sb, const char *const *v, size_t n);
const char *bin_str(bin_reader *r, arena *a, bool nullable);
const char **bin_strs(bin_reader *r, arena *a, size_t *n);
/* bin_put_strz() : as bin_put_str(), with a NUL after the bytes, so that a
 *  reader can point into its one copy of the payload.
 * bin_strz() : one string written by bin_put_strz(), in place in r's
 *  buffer; NULL for a written NULL. A length past the end, a NUL inside or
 *  none where the length says makes r bad and gives NULL. */
void bin_put_strz(strbuf *sb, const char *s);
const char *bin_strz(bin_reader *r);
/* bin_put_strzs() : u32 count then n bin_put_strz() strings.
 * bin_count() : a u32 count of items at least `min` bytes each; more than
 *  what is left makes r bad and gives 0.
 * bin_need_strz() : bin_strz() of a string that must be there: a written
 *  NULL makes r bad too; "" when bad.
 * bin_strzs() : a bin_put_strzs() list, each in place, its array in `a`;
 *  with `a` NULL only walked (NULL returned), to check a form before use. */
void bin_put_strzs(strbuf *sb, const char *const *v, size_t n);
size_t bin_count(bin_reader *r, size_t min);
const char *bin_need_strz(bin_reader *r);
const char **bin_strzs(bin_reader *r, arena *a, size_t *n);
uint32_t bin_u32(bin_reader *r);
uint64_t bin_u64(bin_reader *r);
unsigned bin_u8(bin_reader *r, unsigned max);
/* A parsed form's frame: the 8-byte magic, u32 format, the body's hex
 * sha256 and the options key (64 hex each), u64 payload length, u32 CRC-32
 * (zlib's) of the payload, the payload. bin_frame_open() checks all of it
 * against what the caller expects and leaves r at the payload, which runs
 * to r->end; false on any difference. */
void bin_frame_write(strbuf *out, const char magic[8], uint32_t format, const char *body_sha256,
                     const char key[65], const strbuf *payload);
bool bin_frame_open(bin_reader *r, const char magic[8], uint32_t format, const char *body_sha256,
                    const char key[65]);
/* bin_frame_open_trusted() : the same without the CRC-32, for a form whose
 *  bytes the cache checked already (cache_blob_open(): its CRC or seal). */
bool bin_frame_open_trusted(bin_reader *r, const char magic[8], uint32_t format,
                            const char *body_sha256, const char key[65]);
/* bin_key_field() : one field of the text a parsed form's options key
 *  hashes: `s` and a newline, or "\x01\n" for NULL, so that a NULL field
 *  and "" give different keys. */
void bin_key_field(strbuf *sb, const char *s);

/* hex_encode() : the 2n lowercase hex digits of `data` + NUL into out.
 * hex_decode() : the n bytes that exactly 2n lowercase hex digits `s`
 *  spell into out; false (out undefined) for anything else. */
void hex_encode(const void *data, size_t n, char *out);
bool hex_decode(const char *s, unsigned char *out, size_t n);
/* hex_digit() : the value of hex digit `c` in either case, or -1. */
int hex_digit(char c);
/* is_lower_hex() : whether `s` is exactly n lowercase hex digits. */
bool is_lower_hex(const char *s, size_t n);

/* sha256_hex() : writes 64 lowercase hex digits + NUL into out[65]. */
void sha256_hex(const void *data, size_t n, char out[65]);
/* base64_decode() : the bytes standard base64 (RFC 4648 §4, padded) text
 *  `s` spells into out (room for cap bytes), *n their count; false for
 *  anything else, or when they do not fit. */
bool base64_decode(const char *s, unsigned char *out, size_t cap, size_t *n);
/* uuid_v5() : the name-based UUID (RFC 9562 §5.5: SHA-1 of the namespace's
 *  16 bytes then the name, version 5, RFC variant) of `name` in namespace
 *  `ns` (36-character text form, e.g. the URL namespace
 *  "6ba7b811-9dad-11d1-80b4-00c04fd430c8"), written lowercase into out[37].
 *  For identifiers that must be the same for the same input (an SBOM's
 *  serial number), not for security. false if `ns` is not a UUID. */
bool uuid_v5(const char *ns, const char *name, char out[37]);
/* sha256_stream : the same digest over data given piece by piece (files too
 * large to hold at once). begin/update/end; end frees the stream. */
typedef struct sha256_stream sha256_stream;
sha256_stream *sha256_begin(void);
void sha256_update(sha256_stream *s, const void *data, size_t n);
void sha256_end(sha256_stream *s, char out[65]);

/* sri_matches() : whether data[0..n) has the Subresource Integrity value
 *  `integrity` (npm's dist.integrity: "sha512-<base64>"; sha384, sha256
 *  and sha1 too; several space-separated values: any one matching, as npm
 *  reads them). An unknown algorithm never matches. */
bool sri_matches(const char *integrity, const void *data, size_t n);

/* ---- text ---- */
bool utf8_valid(const char *s, size_t n);
/* utf8_next() : decodes the strict UTF-8 sequence at s[*i] (s holds n bytes)
 * into *cp and advances *i; false on overlongs, surrogates, values past
 * U+10FFFF, truncation and stray continuation bytes. */
bool utf8_next(const unsigned char *s, size_t n, size_t *i, unsigned *cp);
/* edit_distance() : Damerau-Levenshtein (optimal string alignment) distance. */
size_t edit_distance(const char *a, const char *b);

/* ---- time ---- */
#define RFC3339_DATE_OK 1u        /* a bare full-date means its midnight UTC */
#define RFC3339_NO_SECONDS_OK 2u  /* HH:MM without :SS (npm's registry writes some) */
#define RFC3339_LEAP_SECOND_OK 4u /* :60 accepted (and counted as the next second) */
/* rfc3339_parse() : an RFC 3339 date-time (`T`, `t` or space; optional
 * fraction, kept to milliseconds; `Z` or a numeric offset — a local time names
 * no instant) as milliseconds since 1970-01-01T00:00:00Z. Days are checked
 * against the month (leap years included). */
bool rfc3339_parse(const char *s, unsigned flags, int64_t *ms);
int days_in_month(int y, int m); /* 0 for a month outside 1..12 */
int64_t days_from_civil(int64_t y, int m, int d);
/* utc_format() : seconds since the epoch as "YYYY-MM-DDTHH:MM:SS" + zone
 * ("Z" or "+00:00"), UTC, whole seconds (floored before 1970 too). */
void utc_format(int64_t seconds, const char *zone, char out[32]);
void civil_from_days(int64_t days, int *y, int *m, int *d);
/* span_parse() : a span of time such as "7d", "12h", "1w2d", "90m", "30s"
 * (units s m h d w, each after its count): true with *secs. */
bool span_parse(const char *s, int64_t *secs);

/* ---- recording failures on a context ----
 * el_fail() stores code + message on ctx (replacing any previous failure,
 * with a fresh empty detail object) and returns the code, so call sites read
 * `return el_fail(ctx, EL_SPEC_INVALID, "...", ...);`. The detail setters add
 * keys to the current failure's detail. */
el_code el_fail(el_ctx *ctx, el_code code, const char *fmt, ...) EL_PRINTF(3, 4);
/* el_failv() : el_fail() with the arguments as a va_list, for the helpers
 *  that take a format of their own and add details after it. */
el_code el_failv(el_ctx *ctx, el_code code, const char *fmt, va_list ap) EL_PRINTF(3, 0);
void el_detail_str(el_ctx *ctx, const char *key, const char *value);
void el_detail_int(el_ctx *ctx, const char *key, int64_t value);
/* Takes ownership of `value` (a json_object). */
void el_detail_take(el_ctx *ctx, const char *key, struct json_object *value);
/* Per-occurrence retryability (for EL_RETRY_SOMETIMES codes). */
void el_set_retryable(el_ctx *ctx, bool retryable);
/* el_set_text() : the failure's form for a terminal (el_ctx_text()) where
 *  it is not the one-line message: several causes, one a line. Copied;
 *  the next el_fail() drops it. */
void el_set_text(el_ctx *ctx, const char *text);
/* el_fail_io() : el_fail(ctx, EL_IO, ...) for a failed read or write of a
 * local file whose errno is `err`: detail.errno is its name ("ENOSPC"), and
 * the failure is retryable when the condition can clear by itself or once
 * space is freed (ENOSPC, EDQUOT, EIO, EAGAIN, EINTR, EMFILE, ENFILE,
 * ENOMEM), not when the path or its permissions are wrong (EACCES, EROFS,
 * ENOENT, ENOTDIR, ...), which the same run would meet again. */
el_code el_fail_io(el_ctx *ctx, int err, const char *fmt, ...) EL_PRINTF(3, 4);
/* Borrowed detail object of the current failure (NULL if none). */
struct json_object *el_ctx_detail(const el_ctx *ctx);

#endif

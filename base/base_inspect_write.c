/* base_inspect_write.c — the catalog entry base inspect works out
 * (base_inspect_entry.c), as YAML text and as files. The document is made
 * by libyaml's emitter (lockfile/lock_emit.c) with every value
 * double-quoted, so whatever bytes an image holds (a carriage return, NEL,
 * LS, PS, any C0 or C1 control) come back escaped and the catalog loader
 * reads exactly the value written; the header comments, which no emitter
 * writes, quote what they name with the same emitter. Files are written
 * with the project's atomic writer (util/file.c: an exclusive temp file
 * renamed into place). Reads no image and decides nothing about what goes
 * in the entry. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base_inspect.h"
#include "lock.h"

typedef lock_emit emit;

/* A key (one of ours: plain) or a value (double-quoted, whatever it is). */
static void scalar(emit *e, const char *s, bool value) { lock_emit_scalar(e, s, value); }

static void kv(emit *e, const char *key, const char *value)
{
    scalar(e, key, false);
    scalar(e, value, true);
}

static void collection(emit *e, bool map, bool flow) { lock_emit_open(e, map, flow); }

static void end(emit *e, bool map) { lock_emit_close(e, map); }

static void list(emit *e, const char *key, const char *const *items, size_t n, bool flow)
{
    scalar(e, key, false);
    collection(e, false, flow);
    for (size_t i = 0; i < n; i++)
        scalar(e, items[i], true);
    end(e, false);
}

/* `s` with each byte that is not strict UTF-8 replaced by U+FFFD: for
 * comments only (a value that is not UTF-8 never reaches the writer). */
static char *utf8_or_replaced(const char *s)
{
    strbuf sb = STRBUF_INIT;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t at = i;
        unsigned cp;
        if (utf8_next((const unsigned char *)s, n, &i, &cp)) {
            sb_add(&sb, s + at, i - at);
        } else {
            sb_adds(&sb, "\xef\xbf\xbd");
            i = at + 1;
        }
    }
    return sb_detach(&sb, NULL);
}

void inspect_yaml_quote(strbuf *sb, const char *s)
{
    char *clean = utf8_or_replaced(s);
    strbuf out = STRBUF_INIT;
    emit *e = lock_emit_begin(&out);
    scalar(e, clean, true);
    if (lock_emit_end(e)) {
        while (out.len && out.buf[out.len - 1] == '\n')
            out.len--;
        sb_add(sb, out.buf, out.len);
    } else {
        sb_adds(sb, "\"?\"");
    }
    sb_release(&out);
    free(clean);
}

/* The header: what wrote the file and what to do with it, and the notes. */
static void header(strbuf *sb, const inspect_entry *x)
{
    sb_adds(sb, "# Written by `envlock base inspect` from the image archive ");
    inspect_yaml_quote(sb, x->archive);
    sb_addf(sb, " (%zu layer(s)):\n"
                "# the catalog entry of the image (format: corpus/bases/README.md). Pass this\n"
                "# file to --bases, or copy the entry under `images:` into a site's catalog.\n",
            x->n_layers);
    for (size_t i = 0; i < x->n_notes; i++)
        sb_addf(sb, "# %s\n", x->notes[i]);
}

static void image(emit *e, const inspect_entry *x)
{
    kv(e, "python", x->python);
    kv(e, "arch", x->arch);
    kv(e, "libc", x->libc);
    if (x->digest)
        kv(e, "digest", x->digest);
    kv(e, "platform", x->platform);
    if (x->n_sources) {
        scalar(e, "apt", false);
        collection(e, true, false);
        if (x->keyring && x->keyring_here)
            kv(e, "keyring", x->keyring);
        list(e, "sources", x->sources, x->n_sources, false);
        end(e, true);
    }
    if (x->status_name)
        kv(e, "dpkgStatus", x->status_name);
    if (x->n_dists)
        list(e, "preinstalled", x->dists, x->n_dists, false);
}

char *inspect_entry_yaml(const inspect_entry *x)
{
    static const char *const variants[] = { "datalayer", "e2b", "daytona", "modal" };
    strbuf sb = STRBUF_INIT;
    header(&sb, x);
    emit *e = lock_emit_begin(&sb);
    collection(e, true, false);
    kv(e, "format", "envlock-bases/1");
    list(e, "variants", variants, 4, true);
    scalar(e, "bases", false);
    collection(e, true, true);
    end(e, true);
    scalar(e, "images", false);
    collection(e, true, false);
    scalar(e, x->ref, true);
    collection(e, true, false);
    image(e, x);
    end(e, true);
    end(e, true);
    end(e, true);
    if (!lock_emit_end(e)) {
        sb_release(&sb);
        return NULL;
    }
    return sb_detach(&sb, NULL);
}

/* A path a file may be written to: absent, or a regular file (a symlink
 * to one is replaced, never written through). 0 or the errno. */
static int writable_target(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? 0 : errno;
    return S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? 0 : EINVAL;
}

static el_code io_fail(el_ctx *ctx, int err, const char *path, const char *step)
{
    return el_fail_io(ctx, err, "%s cannot be written%s%s%s: %s", path, step ? " (" : "",
                      step ? step : "", step ? ")" : "",
                      err == EINVAL ? "not a regular file" : strerror(err));
}

el_code inspect_write_pair(el_ctx *ctx, const char *entry_path, const char *text,
                           const char *status_path, const char *status, size_t status_len)
{
    const char *paths[2] = { status_path, entry_path };
    const void *data[2] = { status, text };
    size_t len[2] = { status_len, text ? strlen(text) : 0 };
    file_stream *s[2] = { NULL, NULL };
    int err = 0;
    size_t i;
    for (i = 0; i < 2 && !err; i++) {
        if (paths[i] && !(err = writable_target(paths[i])))
            s[i] = file_stream_begin(paths[i], &err);
    }
    if (err) { /* nothing was written: paths[i - 1] cannot be */
        file_stream_abort(s[0]);
        file_stream_abort(s[1]);
        return io_fail(ctx, err, paths[i - 1], NULL);
    }
    bool status_new = status_path && access(status_path, F_OK) != 0;
    for (i = 0; i < 2; i++)
        if (s[i])
            file_stream_write(s[i], data[i], len[i]);
    const char *step = NULL;
    for (i = 0; i < 2 && !err; i++) { /* the status first: the entry names it */
        err = s[i] ? file_stream_commit(s[i], &step) : 0;
        s[i] = NULL;
    }
    if (!err)
        return EL_OK;
    file_stream_abort(s[1]); /* the status failed: the entry is not committed */
    if (i == 2 && status_new)
        unlink(status_path); /* the entry failed: no status without its entry */
    return io_fail(ctx, err, paths[i - 1], step);
}

/* bundle_advisories.c — DIR/advisories: the advisory snapshot the lock was
 * resolved with, copied byte for byte, so an air-gapped site audits with
 * exactly it (docs/bundle.md, "Advisories"). The snapshot directory is
 * untrusted: each file is opened beneath it one component at a time without
 * following a link, must be a regular file within the loader's cap, and is
 * read from that one open file. Knows nothing of OSV: the caller lists the
 * files and checks the copy (bundle.h, bundle_snapshot). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle_internal.h"

/* src/rel opened for reading, every component with O_NOFOLLOW (a link
 * anywhere below src is ELOOP) and the file without waiting on a FIFO.
 * The fd, or -1 with errno. src itself is the user's choice, as DIR is. */
static int open_beneath(const char *src, const char *rel)
{
    int fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *copy = xstrdup(rel), *save = NULL;
    char *part = fd < 0 ? NULL : strtok_r(copy, "/", &save);
    while (part) {
        char *next = strtok_r(NULL, "/", &save);
        int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (next ? O_DIRECTORY : O_NONBLOCK);
        int sub = openat(fd, part, flags), err = errno;
        close(fd);
        errno = err;
        fd = sub;
        part = sub < 0 ? NULL : next;
    }
    free(copy);
    return fd;
}

static bool refuse(bundle *b, const char *reason, const char *rel, const char *why)
{
    if (bundle_claim(b)) {
        el_fail(b->ctx, EL_POLICY_DENIED,
                "the advisory snapshot's %s is %s: refusing to carry it in the bundle "
                "(a snapshot is record files, as `envlock audit` reads them)", rel, why);
        el_detail_str(b->ctx, "reason", reason);
        el_detail_str(b->ctx, "file", rel);
    }
    return false;
}

static bool read_fail(bundle *b, int err, const char *src, const char *rel)
{
    if (bundle_claim(b)) {
        el_fail_io(b->ctx, err, "cannot read the advisory snapshot's %s/%s: %s", src, rel,
                   strerror(err));
        el_detail_str(b->ctx, "path", src);
        el_detail_str(b->ctx, "file", rel);
    }
    return false;
}

/* The bytes of src/rel, at most `max`; NULL after recording why not. */
static char *read_record(bundle *b, const bundle_snapshot *s, const char *rel, size_t *len)
{
    size_t max = s->max_bytes(rel);
    int fd = open_beneath(s->src, rel);
    struct stat st = { 0 };
    if (fd < 0) {
        int err = errno;
        if (err == ELOOP || err == ENOTDIR)
            refuse(b, "not_a_file", rel, "a symbolic link, or lies beneath one");
        else
            read_fail(b, err, s->src, rel);
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        int err = errno;
        close(fd);
        if (st.st_mode && !S_ISREG(st.st_mode))
            refuse(b, "not_a_file", rel, "not a regular file");
        else if (st.st_mode)
            refuse(b, "too_large", rel, "larger than an advisory snapshot file may be");
        else
            read_fail(b, err, s->src, rel);
        return NULL;
    }
    char *buf = xmalloc((size_t)st.st_size + 1);
    size_t n = 0;
    ssize_t got = 1;
    /* one byte more than fstat said: a file growing under us is refused */
    while (got > 0 && n <= (size_t)st.st_size) {
        got = read(fd, buf + n, (size_t)st.st_size + 1 - n);
        if (got < 0 && errno == EINTR)
            got = 1;
        else if (got > 0)
            n += (size_t)got;
    }
    int err = errno;
    close(fd);
    if (got < 0 || n != (size_t)st.st_size) {
        free(buf);
        if (got < 0)
            read_fail(b, err, s->src, rel);
        else
            refuse(b, "not_a_file", rel, "changing while it is read");
        return NULL;
    }
    *len = n;
    return buf;
}

bool bundle_advisories(bundle *b, const bundle_snapshot *s)
{
    if (!s)
        return true;
    /* the folder even for an empty snapshot: audit reads it as a directory */
    if (!bundle_parents(b, BUNDLE_ADVISORIES "/."))
        return false;
    for (size_t i = 0; i < s->n_files; i++) {
        size_t len = 0;
        char *data = read_record(b, s, s->files[i], &len);
        if (!data)
            return false;
        char *rel = xasprintf("%s/%s", BUNDLE_ADVISORIES, s->files[i]);
        bool ok = bundle_put(b, rel, data, len);
        free(rel);
        free(data);
        if (!ok)
            return false;
        b->st->advisories++;
    }
    char *copy = xasprintf("%s/%s", b->dir, BUNDLE_ADVISORIES);
    bool ok = s->verify(b->ctx, copy, s->user);
    free(copy);
    if (!ok)
        b->failed = true; /* the verifier's failure is on ctx */
    return ok;
}

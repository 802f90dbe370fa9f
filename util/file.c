/* file.c — the one atomic file write (temp file + rename: file_write_atomic
 * for a buffer, file_stream_* for bytes that arrive piece by piece,
 * file_link_atomic for a hard link) and the same-bytes test that lets a
 * writer skip rewriting an unchanged file. The lock, plans, exports and
 * streamed downloads are all written through it; the bytes go to an
 * unnamed file (O_TMPFILE) where the kernel has them, so an interrupted run
 * leaves no temp file behind. Owns no policy about
 * what a failure means: callers word their own errors. */
/* syncfs(2) is a GNU extension */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int file_write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The directory part of `path` ("." when it has none). Caller frees. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

bool file_holds(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len;
    char buf[16384];
    for (size_t off = 0; same && off < len;) {
        size_t want = len - off < sizeof buf ? len - off : sizeof buf;
        ssize_t n = read(fd, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        same = n > 0 && memcmp(buf, (const char *)data + off, (size_t)n) == 0;
        off += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    return same;
}

/* A temp name no other writer uses: the pid tells processes apart and
 * O_EXCL the attempts within one, so several envlock processes may write
 * into one directory at once; a stale temp from a crash is harmless. */
static int open_temp(const char *path, char **tmp)
{
    int fd = -1;
    for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
        free(*tmp);
        *tmp = xasprintf("%s.tmp-%ld-%u", path, (long)getpid(), attempt);
        fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

/* An unnamed file in the directory of `path` (O_TMPFILE), or -1 where the
 * filesystem or kernel has none. A run killed or interrupted while writing
 * leaves nothing behind: the file gets a name only at commit, for the
 * instant between link_temp() and the rename. Naming it needs /proc
 * (linkat through /proc/self/fd works without privileges). */
static int open_unnamed(const char *path)
{
    if (access("/proc/self/fd", X_OK) != 0)
        return -1;
    char *dir = dir_of(path);
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    free(dir);
    return fd;
}

/* Gives the unnamed file `fd` a unique temp name beside `path` (*tmp). */
static int link_temp(int fd, const char *path, char **tmp)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int err = EEXIST;
    for (unsigned attempt = 0; attempt < 100 && err == EEXIST; attempt++) {
        free(*tmp);
        *tmp = xasprintf("%s.tmp-%ld-%u", path, (long)getpid(), attempt);
        err = linkat(AT_FDCWD, proc, AT_FDCWD, *tmp, AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
    }
    return err;
}

/* The directory holding `path` made durable: a rename is durable once its
 * directory is. Best effort (some filesystems refuse fsync on a directory). */
static void sync_dir_of(const char *path)
{
    char *dir = dir_of(path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
}

struct file_stream {
    int fd;
    char *path;
    char *tmp;        /* NULL while the file is unnamed */
    unsigned flags;   /* FILE_LAZY */
    int err;          /* the first failure, 0 if none */
    const char *step; /* ... and what it was doing */
    uint64_t written;
};

file_stream *file_stream_begin(const char *path, int *err)
{
    return file_stream_begin_flags(path, 0, err);
}

file_stream *file_stream_begin_flags(const char *path, unsigned flags, int *err)
{
    char *tmp = NULL;
    int fd = open_unnamed(path);
    if (fd < 0)
        fd = open_temp(path, &tmp);
    if (fd < 0) {
        *err = errno;
        free(tmp);
        return NULL;
    }
    file_stream *s = xcalloc(1, sizeof *s);
    s->flags = flags;
    s->fd = fd;
    s->path = xstrdup(path);
    s->tmp = tmp;
    *err = 0;
    return s;
}

int file_stream_write(file_stream *s, const void *data, size_t n)
{
    if (!s->err && file_write_all(s->fd, data, n) != 0)
        s->err = errno, s->step = "writing";
    if (!s->err)
        s->written += n;
    return s->err;
}

uint64_t file_stream_size(const file_stream *s) { return s->written; }

static void stream_free(file_stream *s)
{
    free(s->path);
    free(s->tmp);
    free(s);
}

int file_stream_commit(file_stream *s, const char **step)
{
    int err = s->err;
    *step = s->step;
    bool lazy = s->flags & FILE_LAZY;
    if (!err && !lazy && fsync(s->fd) != 0)
        err = errno, *step = "syncing";
    /* An unnamed file is named only from link_temp() to the rename: the
     * signals that stop a run wait (this thread, restored after) until the
     * name is gone again, so an interrupted run leaves no temp file. */
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    bool unnamed = !s->tmp;
    if (unnamed)
        pthread_sigmask(SIG_BLOCK, &stop, &old);
    if (!err && !s->tmp && (err = link_temp(s->fd, s->path, &s->tmp)) != 0)
        *step = "naming the temporary file";
    if (close(s->fd) != 0 && !err)
        err = errno, *step = "closing";
    if (!err && rename(s->tmp, s->path) != 0)
        err = errno, *step = "renaming the temporary file into place";
    if (err && s->tmp)
        unlink(s->tmp);
    if (unnamed)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!err && !lazy) {
        sync_dir_of(s->path);
    }
    stream_free(s);
    return err;
}

void file_stream_abort(file_stream *s)
{
    if (!s)
        return;
    close(s->fd);
    if (s->tmp)
        unlink(s->tmp);
    stream_free(s);
}

int file_write_atomic(const char *path, const void *data, size_t len, const char **step)
{
    return file_write_atomic_flags(path, data, len, 0, step);
}

int file_write_atomic_flags(const char *path, const void *data, size_t len, unsigned flags,
                            const char **step)
{
    int err = 0;
    file_stream *s = file_stream_begin_flags(path, flags, &err);
    if (!s) {
        *step = "creating a temporary file";
        return err;
    }
    file_stream_write(s, data, len);
    return file_stream_commit(s, step);
}

int file_link_atomic(const char *src, const char *dst, bool copy_fallback, const char **step)
{
    char *tmp = NULL;
    int err = 0;
    *step = NULL;
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        free(tmp);
        tmp = xasprintf("%s.tmp-%ld-%u", dst, (long)getpid(), attempt);
        err = link(src, tmp) == 0 ? 0 : errno;
        if (err != EEXIST)
            break;
    }
    if (!err) {
        if (rename(tmp, dst) != 0) {
            err = errno, *step = "renaming the temporary link into place";
            unlink(tmp);
        } else {
            sync_dir_of(dst);
        }
        free(tmp);
        return err;
    }
    free(tmp);
    if (!copy_fallback) {
        *step = "linking";
        return err;
    }
    /* Another filesystem (EXDEV) or no hard links there: copy. */
    int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (in < 0) {
        *step = "reading the source";
        return errno;
    }
    file_stream *s = file_stream_begin(dst, &err);
    if (!s) {
        close(in);
        *step = "creating a temporary file";
        return err;
    }
    char buf[65536];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = errno;
            break;
        }
        if (n == 0 || file_stream_write(s, buf, (size_t)n) != 0)
            break;
    }
    close(in);
    if (err) {
        file_stream_abort(s);
        *step = "reading the source";
        return err;
    }
    return file_stream_commit(s, step);
}

int file_sync_fs(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int err = syncfs(fd) == 0 ? 0 : errno;
    close(fd);
    return err;
}

int file_sha256(const char *path, char out[65], uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return errno;
    struct stat st;
    int serr = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (serr) {
        close(fd);
        return serr;
    }
    sha256_stream *h = sha256_begin();
    char buf[65536];
    uint64_t total = 0;
    int err = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : 0;
            break;
        }
        sha256_update(h, buf, (size_t)n);
        total += (uint64_t)n;
    }
    close(fd);
    sha256_end(h, out);
    if (size)
        *size = total;
    return err;
}

int file_mkdirs(const char *path)
{
    char *p = xstrdup(path);
    int err = 0;
    for (char *slash = p + 1; !err; slash++) {
        bool end = *slash == '\0';
        if (*slash != '/' && !end)
            continue;
        *slash = '\0';
        struct stat st;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            err = errno;
        else if (stat(p, &st) != 0)
            err = errno;
        else if (!S_ISDIR(st.st_mode))
            err = ENOTDIR;
        if (end)
            break;
        *slash = '/';
    }
    free(p);
    return err;
}

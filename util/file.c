/* file.c — the one atomic file write (file_write_atomic) and the
 * same-bytes test that lets a writer skip rewriting an unchanged file. The
 * lock, plans and exports are all written through it. Owns no policy about
 * what a failure means: callers word their own errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
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

int file_write_atomic(const char *path, const void *data, size_t len, const char **step)
{
    char *tmp = NULL;
    int fd = open_temp(path, &tmp), err = 0;
    *step = NULL;
    if (fd < 0) {
        err = errno;
        *step = "creating a temporary file";
        free(tmp);
        return err;
    }
    if (write_all(fd, data, len) != 0)
        err = errno, *step = "writing";
    else if (fsync(fd) != 0)
        err = errno, *step = "syncing";
    if (close(fd) != 0 && !*step)
        err = errno, *step = "closing";
    if (!*step && rename(tmp, path) != 0)
        err = errno, *step = "renaming the temporary file into place";
    if (*step) {
        unlink(tmp);
    } else {
        char *dir = dir_of(path);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) { /* the rename is durable once its directory is */
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    free(tmp);
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

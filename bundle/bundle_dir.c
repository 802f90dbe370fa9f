/* bundle_dir.c — DIR as a whole: one run at a time (an exclusive flock on
 * DIR itself, so no lock file lands in the bundle), and the temp files a
 * killed run left (NAME.tmp-PID-N, util/file.c's temp names) removed before
 * a resume writes anything. Owns no file of the bundle's layout. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle_internal.h"

int bundle_dir_lock(el_ctx *ctx, const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        int err = errno;
        el_fail_io(ctx, err, "cannot open the bundle directory %s: %s", dir, strerror(err));
        el_detail_str(ctx, "path", dir);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
        el_fail(ctx, EL_QUOTA_EXCEEDED,
                "another `envlock bundle` is writing %s: run again once it has finished (two "
                "runs into one directory would mix their files and signatures)", dir);
        el_detail_str(ctx, "reason", "bundle_busy");
    } else {
        el_fail_io(ctx, err, "cannot lock the bundle directory %s: %s", dir, strerror(err));
    }
    el_detail_str(ctx, "path", dir);
    return -1;
}

/* The PID of a temp name "NAME.tmp-PID-N", or 0 when `name` is none. */
static long temp_pid(const char *name)
{
    const char *t = NULL;
    for (const char *p = strstr(name, ".tmp-"); p; p = strstr(p + 1, ".tmp-"))
        t = p;
    if (!t || t == name)
        return 0;
    char *end = NULL;
    long pid = strtol(t + 5, &end, 10);
    if (pid <= 0 || !end || *end != '-' || !end[1])
        return 0;
    for (const char *d = end + 1; *d; d++)
        if (*d < '0' || *d > '9')
            return 0;
    return pid;
}

/* Whether a temp of `pid` belongs to no live writer: not this process
 * (whose writers are done when the sweep runs) and no process at all. */
static bool dead_writer(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the dead writers' temps under the open directory `fd` (closed
 * here); links are neither followed nor removed. 0 or the first errno. */
static int sweep(int fd)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        int err = errno;
        close(fd);
        return err;
    }
    int err = 0;
    for (struct dirent *e; !err && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            err = errno;
        else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name,
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            err = sub < 0 ? errno : sweep(sub);
        } else if (S_ISREG(st.st_mode)) {
            long pid = temp_pid(e->d_name);
            if (pid && dead_writer(pid) && unlinkat(dirfd(d), e->d_name, 0) != 0 &&
                errno != ENOENT)
                err = errno;
        }
    }
    closedir(d);
    return err;
}

bool bundle_dir_sweep(bundle *b)
{
    int fd = openat(b->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = fd < 0 ? errno : sweep(fd);
    if (err && bundle_claim(b)) {
        el_fail_io(b->ctx, err, "cannot clear the temp files a stopped run left in %s: %s",
                   b->dir, strerror(err));
        el_detail_str(b->ctx, "path", b->dir);
    }
    return !err;
}

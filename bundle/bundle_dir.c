/* bundle_dir.c — DIR as a whole: one run at a time (an exclusive flock on
 * DIR itself, so no lock file lands in the bundle), the temp files a killed
 * run left (NAME.tmp-PID-N, util/file.c's temp names) removed before a
 * resume writes anything, and the directories beneath DIR opened without
 * following links. Owns no file of the bundle's layout. */
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
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* DIR is the user's choice */
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

/* Opens (making when missing) each directory of `rel`'s parent beneath
 * DIR, one component at a time with O_NOFOLLOW from the locked DIR fd, so
 * a link planted in DIR (DIR/npm -> /etc) stops the run instead of being
 * written through. 0, or the errno (ELOOP/ENOTDIR for a link). */
static int open_parents(int dir_fd, const char *rel)
{
    char *copy = xstrdup(rel);
    char *slash = strrchr(copy, '/');
    int fd = dup(dir_fd), err = fd < 0 ? errno : 0;
    char *save = NULL;
    if (slash)
        *slash = '\0';
    for (char *part = slash ? strtok_r(copy, "/", &save) : NULL; part && !err;
         part = strtok_r(NULL, "/", &save)) {
        if (mkdirat(fd, part, 0777) != 0 && errno != EEXIST)
            err = errno;
        int sub = err ? -1 : openat(fd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (!err && sub < 0)
            err = errno;
        close(fd);
        fd = sub;
    }
    if (fd >= 0)
        close(fd);
    free(copy);
    return err;
}

bool bundle_parents(bundle *b, const char *rel)
{
    int err = open_parents(b->dir_fd, rel);
    if (!err)
        return true;
    if (bundle_claim(b)) {
        if (err == ELOOP || err == ENOTDIR) {
            el_fail(b->ctx, EL_POLICY_DENIED,
                    "the bundle directory %s holds a link or a file where `%s` needs a "
                    "directory: refusing to write through it (remove it and run again)",
                    b->dir, rel);
            el_detail_str(b->ctx, "reason", "not_a_directory");
            el_detail_str(b->ctx, "file", rel);
        } else {
            el_fail_io(b->ctx, err, "cannot make the directories of %s/%s: %s", b->dir, rel,
                       strerror(err));
        }
        el_detail_str(b->ctx, "path", b->dir);
    }
    return false;
}

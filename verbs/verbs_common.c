/* verbs_common.c — the path and reading rules every verb shares
 * (verbs_internal.h). Owns nothing else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "verbs_internal.h"

#define SPEC_TEXT_MAX (1024 * 1024)

static bool no_file(const char *path)
{
    return !path || strcmp(path, "-") == 0 || strncmp(path, "/dev/", 5) == 0;
}

char *verbs_beside(const char *path, const char *name)
{
    const char *slash = no_file(path) ? NULL : strrchr(path, '/');
    if (!slash)
        return xstrdup(name);
    return xasprintf("%.*s/%s", (int)(slash - path), path, name);
}

char *el_default_lock_path(const char *spec_path)
{
    if (no_file(spec_path))
        return xstrdup("envlock.lock");
    const char *slash = strrchr(spec_path, '/');
    const char *name = slash ? slash + 1 : spec_path;
    const char *dot = strrchr(name, '.');
    size_t stem = dot && dot > name ? (size_t)(dot - spec_path) : strlen(spec_path);
    if (*name == '\0')
        return xasprintf("%senvlock.lock", spec_path); /* a directory: "dir/" */
    return xasprintf("%.*s.lock", (int)stem, spec_path);
}

char *verbs_spec_text(const char *path, size_t *len)
{
    *len = 0;
    if (no_file(path))
        return NULL;
    return read_file(path, SPEC_TEXT_MAX, len);
}

lock_doc *verbs_lock_read(el_ctx *ctx, const char *path, char digest_out[EL_DIGEST_SIZE])
{
    size_t len = 0;
    char *bytes = lock_read_bytes(ctx, path, &len);
    if (!bytes)
        return NULL;
    lock_doc *lock = lock_read_text(ctx, bytes, len);
    if (lock) {
        char hex[65];
        sha256_hex(bytes, len, hex);
        snprintf(digest_out, EL_DIGEST_SIZE, "sha256:%s", hex);
    }
    free(bytes);
    return lock;
}

el_code verbs_no_conda(el_ctx *ctx, const lock_doc *lock, const char *verb)
{
    for (size_t i = 0; i < lock->n_packages; i++) {
        const lock_package *p = &lock->packages[i];
        if (!p->ecosystem || strcmp(p->ecosystem, "conda") != 0)
            continue;
        el_code rc = el_fail(ctx, EL_CAPABILITY_UNSUPPORTED,
                             "`%s` does not handle conda packages yet, and this lock has some "
                             "(conda:%s@%s): it would leave the conda environment out",
                             verb, p->name ? p->name : "", p->version ? p->version : "");
        char *field = xasprintf("packages[%zu]", i);
        el_detail_str(ctx, "field", field);
        free(field);
        return rc;
    }
    return EL_OK;
}

static el_code out_usage(el_ctx *ctx, const char *option, const char *path, const char *why)
{
    el_code rc = el_fail(ctx, EL_USAGE, "%s `%s`: %s", option, path, why);
    el_detail_str(ctx, "option", option);
    el_detail_str(ctx, "path", path);
    return rc;
}

el_code verbs_out_file_check(el_ctx *ctx, const char *option, const char *path)
{
    if (!*path) {
        el_code rc = el_fail(ctx, EL_USAGE, "%s needs a file name, not an empty string", option);
        el_detail_str(ctx, "option", option);
        return rc;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return out_usage(ctx, option, path, "is a directory; name the file to write");
        if (!S_ISREG(st.st_mode))
            return out_usage(ctx, option, path,
                             "is not a regular file (a FIFO, device or socket); name a file "
                             "to write");
        return EL_OK;
    }
    const char *slash = strrchr(path, '/');
    if (!slash) /* in the current directory */
        return EL_OK;
    char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
    int err = stat(dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    el_code rc = EL_OK;
    if (err) {
        char *why = err == ENOENT    ? xasprintf("its directory %s does not exist", dir)
                    : err == ENOTDIR ? xasprintf("its directory %s is not a directory", dir)
                                     : xasprintf("its directory %s cannot be used: %s", dir,
                                                 strerror(err));
        rc = out_usage(ctx, option, path, why);
        free(why);
    }
    free(dir);
    return rc;
}

const target_catalog *verbs_catalog(el_ctx *ctx, const struct el_bases *given, const char *path,
                                    target_catalog **own)
{
    *own = NULL;
    if (given)
        return target_catalog_of(given);
    *own = target_catalog_load(ctx, path);
    return *own;
}

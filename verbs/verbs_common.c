/* verbs_common.c — the path and reading rules every verb shares
 * (verbs_internal.h). Owns nothing else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char *bytes = read_file(path, VERBS_LOCK_MAX, &len);
    if (!bytes) {
        el_fail(ctx, EL_SPEC_INVALID, "the lock %s cannot be read: %s", path, strerror(errno));
        el_detail_str(ctx, "reason", "unreadable");
        el_detail_str(ctx, "path", path);
        return NULL;
    }
    lock_doc *lock = lock_read_text(ctx, bytes, len);
    if (lock) {
        char hex[65];
        sha256_hex(bytes, len, hex);
        snprintf(digest_out, EL_DIGEST_SIZE, "sha256:%s", hex);
    }
    free(bytes);
    return lock;
}

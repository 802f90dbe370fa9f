/* verbs_internal.h — what the verbs (verb_resolve.c, verb_check.c,
 * verb_plan.c, verb_export.c) share: the paths of a spec and its lock, the
 * spec's text for positions, and reading a lock with the digest of its
 * bytes. Internal to el_verbs. */
#ifndef EL_VERBS_INTERNAL_H
#define EL_VERBS_INTERNAL_H

#include <stddef.h>

#include "envlock/spec.h"
#include "lock.h"
#include "util.h"

/* The largest lock a verb reads (docs/lock-format.md says 256 MiB; the
 * verbs take less: a real lock is a few MB). */
#define VERBS_LOCK_MAX (64u * 1024 * 1024)

/* verbs_beside() : `name` in the directory of `path` (just `name` for a
 *  path without a directory, stdin or none): the default lock beside its
 *  spec, the default plan directory beside its lock. Caller frees. */
char *verbs_beside(const char *path, const char *name);

/* verbs_spec_text() : the spec's text again, for positions; NULL (and *len
 *  0) when it cannot be read again, which is not an error. Caller frees. */
char *verbs_spec_text(const char *path, size_t *len);

/* verbs_lock_read() :
 *  The lock at `path` and "sha256:<hex>" of its bytes in digest_out. NULL
 *  with ctx set: DL_ENV_SPEC_INVALID, reason "unreadable" (and the path)
 *  when the file cannot be read, the reader's error when it is malformed. */
lock_doc *verbs_lock_read(el_ctx *ctx, const char *path, char digest_out[EL_DIGEST_SIZE]);

#endif

/* envlock/plan.h — from one lock, what each variant's builder consumes
 * (`envlock plan`), and the lock in other tools' formats (`envlock
 * export`). Part of envlock.h; include that instead.
 *
 * Both read only the lock, the spec (plans) and the bases catalog (and,
 * for plans, the mirrors configuration): nothing is fetched, and the same
 * inputs give the same bytes. */
#ifndef ENVLOCK_PLAN_H
#define ENVLOCK_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cache.h"
#include "error.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct el_plan_options {
    const char *spec_path;   /* for positions in refusals; may be NULL */
    const el_spec_options *spec_opts;
    const char *bases_path;  /* the bases catalog; NULL: the one installed with the library */
    const struct el_bases *bases; /* the catalog already loaded (el_bases_load(),
                                     borrowed) that the spec was validated
                                     against; NULL: read bases_path */
    const char *const *variants; /* names, or "all"; NULL/0: the spec's required + optional */
    size_t n_variants;
    const char *out_dir;     /* where DIR/<variant>/ go; NULL: "plan" beside the lock */
    const char *base_registry; /* "host[:port]" prefixed to the base repository, or NULL */
    /* The mirrors of these fetch options (their `mirrors`, then, unless
     * no_mirror_config, ENVLOCK_MIRRORS and the mirrors file: envlock/cache.h)
     * map the URLs the plans' install steps fetch from: the pip/uv index
     * URLs, the npm registry, the apt sources (apt-sources.list). The lock,
     * its digest and the rest of every plan are unchanged; with no mapping
     * (or NULL here) the plans are what they are without mirrors. Nothing
     * else of these options is used: plans fetch nothing. */
    const el_cache_options *cache;
} el_plan_options;

typedef struct el_plan_file {
    char *variant;           /* "datalayer" */
    char *path;              /* as written: out_dir/variant/name */
    char sha256[EL_DIGEST_SIZE]; /* "sha256:<hex>" of its bytes */
    size_t size;
} el_plan_file;

typedef struct el_plan_dropped {
    char *variant;           /* an optional variant that cannot honour the spec */
    char *reason;            /* the refusal's message */
    char *field;             /* the spec field that asks for it */
    unsigned line, column;   /* its position, 0 when unknown */
} el_plan_dropped;

typedef struct el_plan_result {
    char lock_digest[EL_DIGEST_SIZE];
    char spec_digest[EL_DIGEST_SIZE];
    char *out_dir;           /* el_free() via el_plan_result_clear() */
    char **variants;         /* produced, in the order asked */
    size_t n_variants;
    el_plan_dropped *dropped;
    size_t n_dropped;
    el_plan_file *files;     /* every file written, variant by variant */
    size_t n_files;
    char **notes;            /* what the user should know of a plan written (the
                                e2b FROM left on a floating tag, and what pins
                                it), each naming its variant; n_notes of them */
    size_t n_notes;
} el_plan_result;

/* el_plan() :
 *  Writes the plan of every wanted variant from the lock at `lock_path`.
 *  The lock's specDigest must equal the spec's digest (else
 *  DL_ENV_SPEC_INVALID, detail.reason lock_stale: re-resolve). A variant
 *  that cannot honour the spec (REFERENCE §7) is, when required by the
 *  spec (or asked for by name), DL_ENV_CAPABILITY_UNSUPPORTED naming the
 *  spec field and its line, and nothing is written; when optional, it is
 *  dropped and listed in res->dropped. The e2b plan's FROM is pinned by
 *  the digest the catalog's `images:` entry `e2bdev/code-interpreter:latest`
 *  records; without one it keeps that tag and res->notes says why and what
 *  to add. Each file is written atomically; a
 *  variant's directory holds exactly its plan's files afterwards (stale
 *  files of an earlier plan are removed); missing parents of out_dir are
 *  made. An empty out_dir, or a malformed mirror (detail.mirror,
 *  detail.source), is EL_USAGE; a directory or file that cannot be
 *  made or written is EL_IO (detail.reason plan_write_failed, detail.path,
 *  detail.errno). Release with el_plan_result_clear(). */
EL_API el_code el_plan(el_ctx *ctx, const el_spec *spec, const char *lock_path,
                       const el_plan_options *o, el_plan_result *res);
EL_API void el_plan_result_clear(el_plan_result *res);

typedef struct el_export_options {
    const char *format;      /* uv-pip-compile | requirements | pylock | package-lock | apt */
    const char *bases_path;  /* as el_plan_options.bases_path */
    const char *resolved_at; /* uv-pip-compile's `# resolved-at:` (RFC 3339); NULL: derived from the lock */
    const char *out_path;    /* also write the text here, atomically; NULL: only return it */
    const el_cache_options *cache; /* pylock of a format-2 lock: the PyPI
                                  pages that give the download URLs are read
                                  through this cache (mirrors, --offline);
                                  NULL: the defaults */
} el_export_options;

/* el_export() :
 *  The lock at `lock_path` in another tool's format. *text is the caller's
 *  (el_free()), *len its length; with out_path the same bytes are written
 *  there atomically (on failure the old file is untouched; EL_IO). EL_USAGE
 *  for an unknown format or --resolved-at value, and, before the lock is
 *  read, for an out_path that is empty, a directory, not a regular file or
 *  in a missing directory. */
EL_API el_code el_export(el_ctx *ctx, const char *lock_path, const el_export_options *o,
                         char **text, size_t *len);

#ifdef __cplusplus
}
#endif
#endif

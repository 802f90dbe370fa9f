/* envlock/index.h — what an index says about one package: `envlock index show`.
 * Part of envlock.h; include that instead.
 *
 * A query names one package with its ecosystem ("pypi:requests",
 * "npm:@scope/tool", "deb:gdal-bin") and the target and sources to read it
 * from. The answer lists the candidates the target can use, newest first,
 * with their dependencies, artifacts and hashes, and every excluded
 * candidate with its reason. All fetching goes through the cache (mirrors,
 * --offline) with the given cache options. */
#ifndef ENVLOCK_INDEX_H
#define ENVLOCK_INDEX_H

#include "error.h"
#include "cache.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct el_index_query {
    const char *package;          /* "ECOSYSTEM:NAME" */

    /* PyPI: the spec's indexes in order (the first that serves a name serves
     * all of it); NULL/0 means https://pypi.org/simple. */
    const char *const *pypi_indexes;
    size_t n_pypi_indexes;
    const char *python_version;   /* "3.13" or "3.13.5"; required for pypi: (the
                                     CLI takes it from the bases catalog) */
    const char *platform;         /* the target's most specific platform tag,
                                     e.g. "manylinux_2_36_x86_64" (glibc) or
                                     "musllinux_1_2_x86_64"; required for pypi: */

    /* npm: the registry; NULL: https://registry.npmjs.org */
    const char *npm_registry;

    /* apt: sources.list one-line entries ("deb [signed-by=...] URI SUITE
     * COMPONENT..."); at least one for deb: (the CLI takes the base's from
     * the bases catalog). */
    const char *const *apt_sources;
    size_t n_apt_sources;
    const char *apt_keyring;      /* keyring for Release signatures when a
                                     source names no signed-by; NULL: the
                                     system's /usr/share/keyrings/debian-archive-keyring.gpg */
    const char *apt_arch;         /* "amd64"; required for deb: */
    bool ignore_valid_until;      /* for snapshot archives */

    /* All ecosystems: candidates published after this instant are excluded
     * (RFC 3339, e.g. "2026-09-14T15:00:00Z"); NULL: no cutoff. */
    const char *exclude_newer;

    /* PyPI build options, as `envlock resolve` takes them (each value a
     * name, ":all:", or a comma-separated list): the versions they leave
     * without a usable file are listed with the reason (no_binary, or
     * no_compatible_wheel naming the option). */
    bool no_build;
    const char *const *only_binary;
    size_t n_only_binary;
    const char *const *no_binary;
    size_t n_no_binary;
} el_index_query;

/* el_index_show() :
 *  Reads what the index says about q->package and writes it to *out (caller
 *  frees with el_free()): a human-readable listing, or one JSON object when
 *  `json`. Fails with DL_ENV_PACKAGE_NOT_FOUND (unknown name, unreachable
 *  index, offline cache miss: detail.reason says which), DL_ENV_SPEC_INVALID
 *  for a malformed query, or what the cache reports. */
EL_API el_code el_index_show(el_ctx *ctx, const el_cache_options *co, const el_index_query *q,
                             bool json, char **out);

#ifdef __cplusplus
}
#endif
#endif

/* conda_index.h — the conda channel reader: channel names to canonical
 * URLs, the subdirs a target reads, and each channel's repodata.json for
 * those subdirs fetched through cache/ (conditional GETs, --mirror and
 * --offline are the cache's), parsed by conda_repodata.c and cut at a
 * publication cutoff (--exclude-newer, by each record's `timestamp`).
 *
 * Two layers, each usable alone:
 *   conda_channel_url(), conda_target_subdir()  text -> URLs (no I/O)
 *   conda_channels_load()                       one cache run for them all
 * Internal to envlock; names carry the `conda_` prefix. */
#ifndef EL_CONDA_INDEX_H
#define EL_CONDA_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "envlock.h"
#include "cache.h"
#include "conda_repodata.h"

/* Where a bare channel name lives (conda's default channel_alias). */
#define CONDA_CHANNEL_ALIAS "https://conda.anaconda.org"
/* Channels an environment.yml without `channels:` reads (REFERENCE §3). */
#define CONDA_DEFAULT_CHANNEL "conda-forge"
#define CONDA_MAX_CHANNELS 64

/* conda_channel_url() :
 *  The canonical URL of a channel as an environment.yml or a match spec
 *  names it: a name ("conda-forge", "bioconda", "conda-forge/label/dev")
 *  under CONDA_CHANNEL_ALIAS; an http(s) or file URL as given, without
 *  trailing `/`. `defaults` is not one channel (conda expands it to
 *  several Anaconda ones): refused, as are credentials in the URL (a
 *  userinfo or an anaconda.org `/t/<token>/` segment; REFERENCE §3), other
 *  schemes, and names with characters outside [A-Za-z0-9._-] or empty
 *  segments. @return a malloc'd URL, or NULL with *why (static). */
char *conda_channel_url(const char *channel, const char **why);

/* conda_target_subdir() :
 *  The platform subdir of a Linux target by its Debian architecture
 *  (NULL or "amd64": "linux-64"; "arm64": "linux-aarch64"; "ppc64el":
 *  "linux-ppc64le"; "s390x": "linux-s390x"), or NULL for another. Every
 *  target also reads "noarch". */
const char *conda_target_subdir(const char *deb_arch);

/* conda_records_rank() :
 *  Ranks records of one package from one channel in conda's preference
 *  (its Resolve.version_key without channel priority): VersionOrder, then
 *  build_number, then a platform record over one from the noarch subdir
 *  (conda asks the subdir, not the `noarch` field), then timestamp, then
 *  the build string by bytes. rank[i] is
 *  recs[i]'s rank, 0 the least preferred; records equal on every key
 *  (the same build as .conda and .tar.bz2) share a rank.
 *  @return the number of distinct ranks. */
size_t conda_records_rank(const conda_record *const *recs, size_t n, size_t *rank);

/* One channel's subdir as loaded. */
typedef struct conda_subdir_load {
    const char *channel;        /* canonical channel URL */
    const char *subdir;         /* "linux-64", "noarch" */
    const char *url;            /* <channel>/<subdir>/repodata.json */
    conda_repodata *repodata;   /* NULL when absent or failed */
    bool absent;                /* a platform subdir the channel does not
                                   have (404): read as empty, as conda does */
    bool from_cache;            /* no body came over the network this run */
    bool from_parsed_form;      /* read from the parsed form the cache kept
                                   for this body (conda_repodata_blob_*) */
    const char *etag;           /* of the response, or NULL */
    const char *body_sha256;    /* hex sha256 of the document's bytes, or NULL */
} conda_subdir_load;

typedef struct conda_channel_set {
    /* Channel order (the priority an environment.yml gives), and within a
     * channel the platform subdir before noarch. */
    conda_subdir_load *subdirs;
    size_t n_subdirs;
    void *arena_;
} conda_channel_set;

typedef struct conda_load_options {
    const char *const *channels; /* as written; none: CONDA_DEFAULT_CHANNEL */
    size_t n_channels;
    const char *deb_arch;        /* the target's; NULL: amd64 */
    int64_t cutoff_ms;           /* 0: none; else records whose timestamp is
                                    later are excluded (after_cutoff) */
    uint64_t max_bytes;          /* per document; 0: CONDA_REPODATA_MAX_BYTES */
} conda_load_options;

/* conda_channels_load() :
 *  Fetches every channel's platform and noarch repodata.json in one cache
 *  run (CACHE_REVALIDATE) and parses each, or reads the parsed form the
 *  cache keeps for an unchanged body (written after each parse). A channel or the target is
 *  refused before anything is fetched (EL_SPEC_INVALID, detail.reason
 *  "bad_channel" / "unsupported_arch", detail.channel). A 404 of a
 *  platform subdir reads as an empty subdir; any other failure, a 404 of
 *  `noarch` included (the channel does not exist), fails the whole load
 *  with the first failing document in channel order: the cache's failure
 *  (its code and reason: not_found, offline_cache_miss, ...) or the
 *  parser's. @return EL_OK with *out (conda_channel_set_free()), or the
 *  recorded error and *out NULL. */
el_code conda_channels_load(el_ctx *ctx, cache *c, const conda_load_options *o,
                            conda_channel_set **out);
void conda_channel_set_free(conda_channel_set *s);

/* A virtual package a solve takes as installed: "__glibc" 2.36 build "0". */
typedef struct conda_virtual {
    const char *name, *version, *build;
} conda_virtual;
#define CONDA_VIRTUAL_MAX 5

/* The target as conda's virtual packages see it (the catalog's fields). */
typedef struct conda_virtual_target {
    const char *deb_arch;      /* NULL: amd64 */
    const char *libc;          /* "glibc 2.36" (catalog `libc`), or NULL: unknown */
    const char *cuda_version;  /* "12.8" (catalog `cudaVersion`), or NULL/"": no CUDA */
    const char *linux_version; /* the kernel release, or NULL: unknown */
} conda_virtual_target;

/* conda_virtual_packages() :
 *  The virtual packages conda exposes running in the target, in the order
 *  __archspec, __cuda, the libc's, __linux, __unix (conda_virtual.c):
 *  `__archspec` 1 with the subdir's generic machine name as build
 *  ("x86_64", "aarch64", ...: conda's answer for a subdir it does not run
 *  on, since the target's CPU model is unknown); `__cuda` only with a CUDA
 *  version; `__<family>` at the libc's version (`__glibc` at 0 when the libc
 *  is unknown, as conda defaults); `__linux` at the kernel release's leading
 *  dotted numbers (0 when unknown: the kernel is the sandbox host's, which
 *  no catalog records); `__unix` 0. Builds are "0" except __archspec's.
 *  conda's own `__conda` is not one: envlock is not conda.
 *  Strings come from `mem` or are static. @return the number written, or
 *  -1 with *why (static) for an architecture without a conda subdir, a
 *  libc not written `<family> <version>`, or a version conda cannot read. */
int conda_virtual_packages(const conda_virtual_target *t, arena *mem,
                           conda_virtual out[CONDA_VIRTUAL_MAX], const char **why);

#endif

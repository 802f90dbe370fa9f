/* npm_packument_cold.c — a packument whose versions hold only what picking
 * among them reads, their details kept compressed until a caller asks.
 *
 * A crawl reads every version of every packument it reaches and uses the
 * dependencies, integrity and tarball of a few: the versions the tree
 * builder picks. npm_packument_cool() keeps, per version, the fields the
 * pick, the rank, the cutoff and the advisory gates read (the "head":
 * version, semver, deprecated, license, time, flags, exclusion) and moves
 * the rest (the "details": dependencies, bundled names, os/cpu/libc,
 * engines, integrity, shasum, tarball URLs) into zstd frames of
 * CHUNK versions each; npm_version_warm() decodes one version's details
 * back into the model, in place, so pointers into the model stay valid.
 *
 * Owns nothing but that form; the details' encoding is its own (it never
 * leaves the process, so it is trusted: a frame that does not decode is a
 * bug and aborts). Does no I/O. */
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "npm_index.h"

/* Versions per frame: a warm decodes one frame, so small frames keep a
 * warm cheap; versions of one name repeat their dependency names and
 * specs, so a frame of 16 still compresses several-fold. */
#define CHUNK 16

struct npm_cold {
    size_t nchunks;
    const unsigned char *data; /* the frames, back to back */
    size_t *at, *clen, *rlen;  /* per frame: offset in data, compressed and raw length */
    uint32_t *off;             /* per version: offset in its frame's raw bytes */
    unsigned char *warm;       /* per version: details present */
};

static void put_u8(strbuf *sb, unsigned v) { sb_addc(sb, (char)(unsigned char)v); }

static void put_details(strbuf *sb, const npm_version *v)
{
    bin_put_u32(sb, (uint32_t)v->ndeps);
    for (size_t i = 0; i < v->ndeps; i++)
        npm_dep_put(sb, &v->deps[i]);
    put_u8(sb, v->bundle_all);
    bin_put_strs(sb, v->bundled, v->nbundled);
    bin_put_strs(sb, v->os, v->nos);
    bin_put_strs(sb, v->cpu, v->ncpu);
    bin_put_strs(sb, v->libc, v->nlibc);
    bin_put_u32(sb, (uint32_t)v->nengines);
    for (size_t i = 0; i < v->nengines; i++) {
        bin_put_str(sb, v->engines[i].name);
        bin_put_str(sb, v->engines[i].range);
    }
    bin_put_str(sb, v->integrity);
    bin_put_str(sb, v->shasum);
    bin_put_str(sb, v->tarball);
    bin_put_str(sb, v->tarball_served);
}

static void get_details(bin_reader *b, arena *a, npm_version *v)
{
    v->ndeps = bin_u32(b);
    v->deps = v->ndeps ? arena_alloc(a, v->ndeps * sizeof *v->deps) : NULL;
    for (size_t i = 0; i < v->ndeps; i++) {
        npm_dep *d = &v->deps[i];
        d->name = bin_str(b, a, false);
        d->spec = bin_str(b, a, false);
        d->kind = (npm_dep_kind)bin_u8(b, NPM_DEP_PEER_OPTIONAL);
        d->spec_kind = (npm_dep_spec)bin_u8(b, NPM_SPEC_IS_OTHER);
        d->alias_name = bin_str(b, a, true);
        d->range_text = bin_str(b, a, true);
    }
    v->bundle_all = bin_u8(b, 1);
    v->bundled = bin_strs(b, a, &v->nbundled);
    v->os = bin_strs(b, a, &v->nos);
    v->cpu = bin_strs(b, a, &v->ncpu);
    v->libc = bin_strs(b, a, &v->nlibc);
    v->nengines = bin_u32(b);
    v->engines = v->nengines ? arena_alloc(a, v->nengines * sizeof *v->engines) : NULL;
    for (size_t i = 0; i < v->nengines; i++) {
        v->engines[i].name = bin_str(b, a, false);
        v->engines[i].range = bin_str(b, a, true);
    }
    v->integrity = bin_str(b, a, true);
    v->shasum = bin_str(b, a, true);
    v->tarball = bin_str(b, a, true);
    v->tarball_served = bin_str(b, a, true);
}

/* The details of v dropped (its parsed ranges freed): what a cold version
 * looks like until npm_version_warm(). */
static void drop_details(npm_version *v)
{
    for (size_t d = 0; d < v->ndeps; d++)
        npm_range_free(v->deps[d].range_);
    v->deps = NULL;
    v->ndeps = 0;
    v->bundle_all = false;
    v->bundled = v->os = v->cpu = v->libc = NULL;
    v->nbundled = v->nos = v->ncpu = v->nlibc = 0;
    v->engines = NULL;
    v->nengines = 0;
    v->integrity = v->shasum = v->tarball = v->tarball_served = NULL;
}

static const char *dup_opt(arena *a, const char *s) { return s ? arena_strdup(a, s) : NULL; }

/* A head string copied into `a`, once per run of equal pointers: a
 * packument's versions share their deprecation message and license. */
static const char *dup_shared(arena *a, const char *s, const char **last_old, const char **last_new)
{
    if (s && s == *last_old)
        return *last_new;
    *last_old = s;
    return *last_new = dup_opt(a, s);
}

/* The packument's own strings and every version's head, into `a`. */
static void move_heads(npm_packument *p, arena *a)
{
    p->name = dup_opt(a, p->name);
    p->registry = dup_opt(a, p->registry);
    p->url = dup_opt(a, p->url);
    p->modified = dup_opt(a, p->modified);
    p->identity = dup_opt(a, p->identity);
    p->etag = dup_opt(a, p->etag);
    p->last_modified = dup_opt(a, p->last_modified);
    npm_dist_tag *tags = arena_alloc(a, (p->ntags ? p->ntags : 1) * sizeof *tags);
    for (size_t i = 0; i < p->ntags; i++)
        tags[i] = (npm_dist_tag){ arena_strdup(a, p->tags[i].tag),
                                  arena_strdup(a, p->tags[i].version) };
    p->tags = tags;
    const char *dep_old = NULL, *dep_new = NULL, *lic_old = NULL, *lic_new = NULL;
    for (size_t i = 0; i < p->nversions; i++) {
        npm_version *v = &p->versions[i];
        v->version = arena_strdup(a, v->version);
        v->deprecated = dup_shared(a, v->deprecated, &dep_old, &dep_new);
        v->license = dup_shared(a, v->license, &lic_old, &lic_new);
        v->time = dup_opt(a, v->time);
        v->why = dup_opt(a, v->why);
    }
}

/* Every version's details, CHUNK versions per zstd frame, into `a`. */
static struct npm_cold *pack(const npm_packument *p, arena *a)
{
    struct npm_cold *c = arena_alloc(a, sizeof *c);
    size_t n = p->nversions;
    c->nchunks = (n + CHUNK - 1) / CHUNK;
    c->at = arena_alloc(a, c->nchunks * sizeof *c->at);
    c->clen = arena_alloc(a, c->nchunks * sizeof *c->clen);
    c->rlen = arena_alloc(a, c->nchunks * sizeof *c->rlen);
    c->off = arena_alloc(a, n * sizeof *c->off);
    c->warm = arena_alloc(a, n);
    strbuf all = STRBUF_INIT, raw = STRBUF_INIT;
    for (size_t ch = 0; ch < c->nchunks; ch++) {
        sb_reset(&raw);
        for (size_t k = ch * CHUNK; k < n && k < (ch + 1) * CHUNK; k++) {
            c->off[k] = (uint32_t)raw.len;
            put_details(&raw, &p->versions[k]);
        }
        size_t bound = ZSTD_compressBound(raw.len);
        char *frame = xmalloc(bound);
        size_t z = ZSTD_compress(frame, bound, raw.buf, raw.len, 1);
        if (ZSTD_isError(z))
            abort(); /* only allocation can fail here */
        c->at[ch] = all.len;
        c->clen[ch] = z;
        c->rlen[ch] = raw.len;
        sb_add(&all, frame, z);
        free(frame);
    }
    unsigned char *data = arena_alloc(a, all.len ? all.len : 1);
    memcpy(data, all.buf, all.len);
    c->data = data;
    sb_release(&all);
    sb_release(&raw);
    return c;
}

void npm_packument_cool(npm_packument *p)
{
    if (!p || p->code != EL_OK || p->cold_ || !p->nversions)
        return;
    arena *a = arena_new();
    struct npm_cold *c = pack(p, a);
    move_heads(p, a);
    for (size_t i = 0; i < p->nversions; i++)
        drop_details(&p->versions[i]);
    arena_free(p->arena_);
    p->arena_ = a;
    p->cold_ = c;
}

const npm_version *npm_version_warm(const npm_packument *cp, const npm_version *v)
{
    npm_packument *p = (npm_packument *)cp; /* a model belongs to one thread */
    struct npm_cold *c = p ? p->cold_ : NULL;
    if (!c || !v || v < p->versions || v >= p->versions + p->nversions)
        return v;
    size_t k = (size_t)(v - p->versions), ch = k / CHUNK;
    if (c->warm[k])
        return v;
    unsigned char *raw = xmalloc(c->rlen[ch] ? c->rlen[ch] : 1);
    size_t got = ZSTD_decompress(raw, c->rlen[ch], c->data + c->at[ch], c->clen[ch]);
    if (ZSTD_isError(got) || got != c->rlen[ch])
        abort(); /* our own bytes: a bug, never input */
    bin_reader b = { .p = raw + c->off[k], .end = raw + c->rlen[ch] };
    get_details(&b, p->arena_, &p->versions[k]);
    if (b.bad)
        abort();
    free(raw);
    c->warm[k] = 1;
    return v;
}

bool npm_version_is_cold(const npm_packument *p, const npm_version *v)
{
    const struct npm_cold *c = p ? p->cold_ : NULL;
    return c && v >= p->versions && v < p->versions + p->nversions &&
           !c->warm[v - p->versions];
}

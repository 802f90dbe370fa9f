/* npm_packument_blob.c — the parsed form of a packument: npm_packument in a
 * compact binary layout, written after a parse and read back instead of
 * parsing when the cache already holds the body (as the apt loader keeps a
 * .solv per Packages file). The reader trusts nothing: the data is a cache
 * file that may be torn, stale or damaged, and any doubt means -1 and a
 * parse of the body, never a wrong model.
 *
 * Layout (integers little-endian):
 *   "ELNPMPK\n" u32 format, then the body's hex sha256 and the options key
 *   (64 hex each), u64 payload length, u32 CRC-32 of the payload (zlib's,
 *   as the cache uses: the cache's own check does not cover a blob handed to
 *   this reader from elsewhere, e.g. the fuzzer), payload.
 *   payload: str name, registry, url, modified, identity; u8 full;
 *   u32 ntags, (str tag, str version)*; u32 nversions, u32 ncandidates,
 *   version* (see put_version()).
 *   str: u32 length then the bytes; 0xffffffff is NULL.
 * Semvers and ranges are stored as the text they were parsed from and
 * parsed again (their structures hold pointers); tarball URLs as the
 * document wrote them, mapped again (npm_tarball_assign()) so that this
 * run's mirror table applies. Does no I/O. */
#include <stdlib.h>
#include <string.h>

#include "npm_index.h"
#include "npm_spec.h"

#define MAGIC "ELNPMPK\n"

/* ---- the key ---- */

/* Hex sha256 of everything in `o` that changes the model. */
static void options_key(const npm_parse_options *o, char out[65])
{
    const npm_target *t = o->target;
    char *reg = npm_registry_normalize(o->registry);
    char *served = o->served_base ? npm_registry_normalize(o->served_base) : NULL;
    strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "npm-packument-blob %d\n", NPM_BLOB_FORMAT);
    bin_key_field(&sb, o->name);
    bin_key_field(&sb, reg);
    bin_key_field(&sb, served);
    bin_key_field(&sb, t && t->os ? t->os : "linux");
    bin_key_field(&sb, t && t->cpu ? t->cpu : "x64");
    bin_key_field(&sb, t && t->libc ? t->libc : "glibc");
    bin_key_field(&sb, t ? t->node_version : NULL);
    bin_key_field(&sb, t ? t->cutoff : NULL);
    sha256_hex(sb.buf, sb.len, out);
    sb_release(&sb);
    free(reg);
    free(served);
}

char *npm_packument_blob_name(const char *body_sha256, const npm_parse_options *o)
{
    char key[65];
    options_key(o, key);
    return xasprintf("npm-packument/%s/%.16s/f%d", body_sha256, key, NPM_BLOB_FORMAT);
}

/* ---- writing ---- */

static void put_u8(strbuf *sb, unsigned v) { sb_addc(sb, (char)(unsigned char)v); }

void npm_dep_put(strbuf *sb, const npm_dep *d)
{
    bin_put_str(sb, d->name);
    bin_put_str(sb, d->spec);
    put_u8(sb, d->kind);
    put_u8(sb, d->spec_kind);
    bin_put_str(sb, d->alias_name);
    bin_put_str(sb, d->range_text);
}

static void put_version(strbuf *sb, const npm_version *v)
{
    bin_put_str(sb, v->version);
    put_u8(sb, v->semver.version != NULL);
    bin_put_u32(sb, (uint32_t)v->ndeps);
    for (size_t i = 0; i < v->ndeps; i++)
        npm_dep_put(sb, &v->deps[i]);
    put_u8(sb, v->bundle_all);
    bin_put_strs(sb, v->bundled, v->nbundled);
    bin_put_str(sb, v->deprecated);
    bin_put_str(sb, v->license);
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
    bin_put_str(sb, v->tarball_served ? v->tarball_served : v->tarball);
    bin_put_str(sb, v->time);
    bin_put_u64(sb, (uint64_t)v->time_ms);
    bin_put_u32(sb, v->flags & ~NPM_FLAG_TARBALL_REBASED);
    put_u8(sb, v->excluded);
    bin_put_str(sb, v->why);
}

void npm_packument_blob_write(const npm_packument *p, const char *body_sha256,
                              const npm_parse_options *o, strbuf *out)
{
    strbuf pl = STRBUF_INIT;
    bin_put_str(&pl, p->name);
    bin_put_str(&pl, p->registry);
    bin_put_str(&pl, p->url);
    bin_put_str(&pl, p->modified);
    bin_put_str(&pl, p->identity);
    put_u8(&pl, p->full);
    bin_put_u32(&pl, (uint32_t)p->ntags);
    for (size_t i = 0; i < p->ntags; i++) {
        bin_put_str(&pl, p->tags[i].tag);
        bin_put_str(&pl, p->tags[i].version);
    }
    bin_put_u32(&pl, (uint32_t)p->nversions);
    bin_put_u32(&pl, (uint32_t)p->ncandidates);
    for (size_t i = 0; i < p->nversions; i++)
        put_version(&pl, &p->versions[i]);

    char key[65];
    options_key(o, key);
    bin_frame_write(out, MAGIC, NPM_BLOB_FORMAT, body_sha256, key, &pl);
    sb_release(&pl);
}

/* ---- reading ---- */

typedef struct rd {
    bin_reader b;
    arena *a;
} rd;

static const char *get_str(rd *r) { return bin_str(&r->b, r->a, true); }

/* A string that may not be NULL. */
static const char *get_str_nn(rd *r) { return bin_str(&r->b, r->a, false); }

/* A count of items each at least `min` bytes long: bounded by what is left,
 * so that a damaged count cannot ask for a huge allocation. */
static size_t get_count(rd *r, size_t min)
{
    uint32_t n = bin_u32(&r->b);
    if (!r->b.bad && (size_t)(r->b.end - r->b.p) / min < n)
        r->b.bad = true;
    return r->b.bad ? 0 : n;
}

static void get_dep(rd *r, npm_dep *d)
{
    d->name = get_str_nn(r);
    d->spec = get_str_nn(r);
    d->kind = (npm_dep_kind)bin_u8(&r->b, NPM_DEP_PEER_OPTIONAL);
    d->spec_kind = (npm_dep_spec)bin_u8(&r->b, NPM_SPEC_IS_OTHER);
    d->alias_name = get_str(r);
    const char *rt = get_str(r);
    if (rt && !r->b.bad) {
        npm_range *range = NULL;
        if (npm_range_parse(rt, NPM_LOOSE, &range, NULL) != 0) {
            r->b.bad = true;
            return;
        }
        npm_range_free(range); /* checked; npm_dep_range() parses when asked */
        d->range_text = rt;
    }
}

static void get_version(rd *r, npm_packument *p, const char *served_base,
                        const npm_parse_options *o, npm_version *v)
{
    v->version = get_str_nn(r);
    bool valid = bin_u8(&r->b, 1);
    if (valid && !r->b.bad && npm_semver_parse(&v->semver, v->version, NPM_LOOSE, NULL) != 0)
        r->b.bad = true;
    v->ndeps = get_count(r, 18);
    v->deps = arena_alloc(r->a, (v->ndeps ? v->ndeps : 1) * sizeof *v->deps);
    for (size_t i = 0; i < v->ndeps && !r->b.bad; i++)
        get_dep(r, &v->deps[i]);
    v->bundle_all = bin_u8(&r->b, 1);
    v->bundled = bin_strs(&r->b, r->a, &v->nbundled);
    v->deprecated = get_str(r);
    v->license = get_str(r);
    v->os = bin_strs(&r->b, r->a, &v->nos);
    v->cpu = bin_strs(&r->b, r->a, &v->ncpu);
    v->libc = bin_strs(&r->b, r->a, &v->nlibc);
    v->nengines = get_count(r, 8);
    v->engines = arena_alloc(r->a, (v->nengines ? v->nengines : 1) * sizeof *v->engines);
    for (size_t i = 0; i < v->nengines && !r->b.bad; i++) {
        v->engines[i].name = get_str_nn(r);
        v->engines[i].range = get_str(r);
    }
    v->integrity = get_str(r);
    v->shasum = get_str(r);
    const char *tarball = get_str(r);
    v->time = get_str(r);
    v->time_ms = (int64_t)bin_u64(&r->b);
    uint32_t flags = bin_u32(&r->b);
    if (flags >> NPM_FLAG_COUNT || (flags & NPM_FLAG_TARBALL_REBASED))
        r->b.bad = true;
    v->flags = flags;
    v->excluded = (npm_exclusion)bin_u8(&r->b, NPM_EX_LAST);
    v->why = get_str(r);
    if (tarball && !r->b.bad)
        npm_tarball_assign(r->a, p->registry, p->name, served_base, o, v, tarball);
}

static bool read_header(rd *r, const char *body_sha256, const npm_parse_options *o)
{
    char key[65];
    options_key(o, key);
    return bin_frame_open(&r->b, MAGIC, NPM_BLOB_FORMAT, body_sha256, key);
}

static void read_payload(rd *r, npm_packument *p, const npm_parse_options *o)
{
    p->name = get_str_nn(r);
    p->registry = get_str_nn(r);
    p->url = get_str_nn(r);
    p->modified = get_str(r);
    p->identity = get_str_nn(r);
    p->full = bin_u8(&r->b, 1);
    p->ntags = get_count(r, 8);
    p->tags = arena_alloc(r->a, (p->ntags ? p->ntags : 1) * sizeof *p->tags);
    for (size_t i = 0; i < p->ntags && !r->b.bad; i++) {
        p->tags[i].tag = get_str_nn(r);
        p->tags[i].version = get_str_nn(r);
    }
    size_t n = get_count(r, 4);
    size_t nc = bin_u32(&r->b);
    if (nc > n)
        r->b.bad = true;
    if (r->b.bad)
        return;
    p->ncandidates = nc;
    p->versions = xcalloc(n ? n : 1, sizeof *p->versions);
    char *served = o->served_base ? npm_registry_normalize(o->served_base) : NULL;
    for (size_t i = 0; i < n && !r->b.bad; i++) {
        get_version(r, p, served, o, &p->versions[i]);
        p->nversions = i + 1; /* so that free releases what was parsed */
    }
    free(served);
}

int npm_packument_blob_read(const unsigned char *data, size_t len, const char *body_sha256,
                            const npm_parse_options *o, npm_packument **out)
{
    *out = NULL;
    rd r = { .b = { .p = data, .end = data + len } };
    if (!read_header(&r, body_sha256, o))
        return -1;
    npm_packument *p = xcalloc(1, sizeof *p);
    p->arena_ = arena_new();
    r.a = p->arena_;
    read_payload(&r, p, o);
    if (r.b.bad || r.b.p != r.b.end) {
        npm_packument_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

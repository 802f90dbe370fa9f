/* lock_gen.h — random but reproducible lock_docs for the lockfile tests and
 * lock_tool: a seeded xorshift generator, strings drawn from a pool that
 * mixes ordinary names and versions with every scalar YAML could misread,
 * and a shuffler that permutes every array a doc holds (the canonical order
 * must undo it). Header-only so each test binary stays one file. */
#ifndef EL_TEST_LOCK_GEN_H
#define EL_TEST_LOCK_GEN_H

#include <stdint.h>
#include <string.h>

#include "lock.h"
#include "lock_internal.h"

typedef struct gen {
    uint64_t s;
} gen;

static inline uint64_t gen_next(gen *g)
{
    uint64_t x = g->s ? g->s : 0x9E3779B97F4A7C15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    g->s = x;
    return x;
}

static inline size_t gen_below(gen *g, size_t n) { return n ? (size_t)(gen_next(g) % n) : 0; }

/* Scalars a YAML reader could turn into something else, or that need
 * escapes: each must come back as the same string. */
static const char *const gen_tricky[] = {
    "1.10", "1.0", "10", "007", "0", "-1", "+1", ".5", "1e3", "1_000", "0o7", "0x1F", "0b101",
    ".inf", "-.inf", ".nan", "NaN", "yes", "Yes", "YES", "no", "No", "on", "Off", "y", "n", "Y",
    "N", "true", "False", "null", "Null", "NULL", "~", "", " ", "a: b", "a:b", "key:", "a #b",
    "#c", "a#b", "@types/node", "- x", "-", "[x]", "{x}", "a,b", "*alias", "&anchor", "!tag",
    "%dir", "`tick", "'single'", "\"double\"", "a\nb", "tab\there", " lead", "trail ", "ü",
    "日本語", "\xe2\x80\xa8", "\xef\xbb\xbf", "\x01ctrl", "back\\slash", "=", "<<", "|", ">", "?",
    "2001-01-01", "2001-01-01T00:00:00Z", "12:30", "190:20:30", "1:2.3-4", "sha256:abc",
    "https://pypi.org/simple/numpy/", "W/\"etag\"", "a b", "a  b", "---", "...", "foo...",
    "--- x", "\r", "a\r\nb", "\x7f", "\xc2\x85", "numpy>=1.22; python_version < \"3.12\"",
    "^0.2.3", "~=1.4.2", ">> 2.0", "1:2.0-1", "pandas", "node_modules/a/node_modules/b",
    NULL,
};

static const char *const gen_words[] = {
    "numpy", "pandas", "requests", "zod", "lodash", "libc6", "gdal-bin", "Flask", "a.b_c",
    "spec", "protected", "requires", "depends", "peer", "amd64", "all", "x", NULL,
};

static inline const char *gen_pick(gen *g, const char *const *list)
{
    size_t n = 0;
    while (list[n])
        n++;
    return list[gen_below(g, n)];
}

/* Mostly ordinary strings, sometimes tricky ones, sometimes random bytes
 * of valid UTF-8 (ASCII printable and a few multibyte characters). */
static inline const char *gen_str(gen *g, lock_doc *d)
{
    switch (gen_below(g, 6)) {
    case 0:
        return lock_strdup(d, gen_pick(g, gen_tricky));
    case 1: {
        char buf[64];
        size_t n = 1 + gen_below(g, 20), k = 0;
        for (size_t i = 0; i < n && k + 4 < sizeof buf; i++) {
            size_t r = gen_below(g, 40);
            if (r == 0) {
                memcpy(buf + k, "\xc3\xa9", 2); /* é */
                k += 2;
            } else {
                buf[k++] = (char)(0x20 + gen_below(g, 0x5f));
            }
        }
        buf[k] = '\0';
        return lock_strdup(d, buf);
    }
    default: {
        char buf[64];
        snprintf(buf, sizeof buf, "%s%zu", gen_pick(g, gen_words), gen_below(g, 50));
        return lock_strdup(d, buf);
    }
    }
}

static inline const char *gen_opt(gen *g, lock_doc *d)
{
    return gen_below(g, 3) == 0 ? NULL : gen_str(g, d);
}

static inline lock_doc *gen_doc(uint64_t seed, size_t max_packages)
{
    gen g = { seed * 0x2545F4914F6CDD1Dull + 1 };
    static const char *const ecos[] = { "deb", "npm", "pypi", NULL };
    static const char *const lics[] = { "MIT", "(MIT OR Apache-2.0)", "GPL-2.0+",
                                        "GPL-2.0-only WITH Classpath-exception-2.0", NULL };
    lock_doc *d = lock_doc_new();
    d->spec_digest = gen_str(&g, d);
    d->python_version = gen_opt(&g, d);
    d->platform = gen_opt(&g, d);
    d->arch = gen_opt(&g, d);
    d->base_ref = gen_opt(&g, d);
    d->base_channel = gen_opt(&g, d);
    size_t nv = gen_below(&g, 4);
    if (nv) {
        d->variants = arena_alloc(d->mem, (nv + 1) * sizeof *d->variants);
        d->base_digests = arena_alloc(d->mem, (nv + 1) * sizeof *d->base_digests);
        for (size_t i = 0; i < nv; i++) {
            /* variant names are mapping keys: keep them distinct */
            d->variants[i] = arena_sprintf(d->mem, "%s-%zu", gen_str(&g, d), i);
            d->base_digests[i] = gen_opt(&g, d);
        }
    }
    d->exclude_newer = gen_opt(&g, d);
    d->prereleases = gen_opt(&g, d);
    d->upgrade_all = gen_below(&g, 2);
    for (size_t i = gen_below(&g, 3); i > 0; i--)
        lock_strv_add(d, &d->upgrade, gen_str(&g, d));
    for (size_t i = gen_below(&g, 6); i > 0; i--) {
        lock_input *in = lock_doc_add_input(d);
        in->ecosystem = gen_pick(&g, ecos);
        in->url = gen_str(&g, d);
        in->identity = gen_str(&g, d);
        in->modified = gen_opt(&g, d);
    }
    for (size_t i = gen_below(&g, max_packages + 1); i > 0; i--) {
        lock_package *p = lock_doc_add_package(d);
        p->ecosystem = gen_pick(&g, ecos);
        p->name = gen_str(&g, d);
        p->version = gen_str(&g, d);
        p->arch = gen_opt(&g, d);
        p->path = gen_opt(&g, d);
        if (p->path && strcmp(p->ecosystem, "npm") == 0 && lock_path_segment_problem(p->path))
            p->path = lock_strdup(d, "node_modules/x"); /* the reader refuses the rest */
        p->source = gen_opt(&g, d);
        p->license = gen_below(&g, 3) == 0 ? lock_strdup(d, gen_pick(&g, lics)) : NULL;
        p->installed_in_base = gen_below(&g, 4) == 0;
        for (size_t k = gen_below(&g, 3); k > 0; k--)
            lock_strv_add(d, &p->extras, gen_str(&g, d));
        for (size_t k = gen_below(&g, 4); k > 0; k--)
            lock_strv_add(d, &p->requested_by, gen_str(&g, d));
        for (size_t k = gen_below(&g, 6); k > 0; k--) {
            lock_edge *e = lock_package_add_dep(d, p);
            e->ecosystem = gen_below(&g, 4) == 0 ? gen_pick(&g, ecos) : p->ecosystem;
            e->name = gen_str(&g, d);
            e->version = gen_str(&g, d);
            e->kind = gen_opt(&g, d);
            e->spec = gen_opt(&g, d);
            e->alias = gen_opt(&g, d);
        }
        for (size_t k = gen_below(&g, 4); k > 0; k--) {
            lock_artifact *a = lock_package_add_artifact(d, p);
            a->file = gen_str(&g, d);
            a->url = gen_str(&g, d);
            a->hash = gen_str(&g, d);
            a->size = gen_below(&g, 3) ? gen_next(&g) >> gen_below(&g, 64) : 0;
        }
    }
    return d;
}

#define GEN_SHUFFLE(g, arr, n, T)                                                                  \
    do {                                                                                           \
        for (size_t i_ = (n); i_ > 1; i_--) {                                                      \
            size_t j_ = gen_below((g), i_);                                                        \
            T t_ = (arr)[i_ - 1];                                                                  \
            (arr)[i_ - 1] = (arr)[j_];                                                             \
            (arr)[j_] = t_;                                                                        \
        }                                                                                          \
    } while (0)

static inline size_t gen_strv_len(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

/* Permutes every array in `d` (variants together with their digests). */
static inline void gen_shuffle(gen *g, lock_doc *d)
{
    size_t nv = gen_strv_len(d->variants);
    for (size_t i = nv; i > 1; i--) {
        size_t j = gen_below(g, i);
        const char *t = d->variants[i - 1];
        d->variants[i - 1] = d->variants[j];
        d->variants[j] = t;
        if (d->base_digests) {
            t = d->base_digests[i - 1];
            d->base_digests[i - 1] = d->base_digests[j];
            d->base_digests[j] = t;
        }
    }
    GEN_SHUFFLE(g, d->upgrade, gen_strv_len(d->upgrade), const char *);
    GEN_SHUFFLE(g, d->inputs, d->n_inputs, lock_input);
    GEN_SHUFFLE(g, d->packages, d->n_packages, lock_package);
    for (size_t i = 0; i < d->n_packages; i++) {
        lock_package *p = &d->packages[i];
        GEN_SHUFFLE(g, p->extras, gen_strv_len(p->extras), const char *);
        GEN_SHUFFLE(g, p->requested_by, gen_strv_len(p->requested_by), const char *);
        GEN_SHUFFLE(g, p->deps, p->n_deps, lock_edge);
        GEN_SHUFFLE(g, p->artifacts, p->n_artifacts, lock_artifact);
    }
}

#endif

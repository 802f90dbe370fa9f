/* apt_index_load.c — the apt loader: from sources to verified libsolv repos.
 * Fetches InRelease (or Release + Release.gpg) through the cache, verifies
 * the signature (once per exact bytes and keyring: a good verdict is
 * recorded in the cache, see apt_verify.c) and the Release's promises (suite, Valid-Until, components,
 * architectures), fetches each Packages index by-hash when offered and checks
 * its sha256 and size, parses it with repo_add_debpackages and caches the
 * parsed repo as a .solv blob keyed by the index's sha256, so a warm run
 * never parses. Also keeps the few control fields libsolv drops (Priority,
 * Essential, Size, and Breaks/Conflicts/Replaces as written) as extra
 * solvable attributes. Owns no presentation (apt_index_show.c). */
#define _GNU_SOURCE 1 /* memfd_create */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repo_deb.h>
#include <solv/repo_solv.h>
#include <solv/repo_write.h>
#include <solv/solv_xfopen.h>
#include <solv/solvversion.h>

#include "apt_index.h"
#include "apt_internal.h"
#include "debver.h"

/* Bump when the blob's content changes (extra keys, repo layout). */
#define APT_SOLV_FORMAT 3
#define APT_RELEASE_CAP (64u << 20)
#define APT_PACKAGES_CAP (512u << 20)      /* compressed */
#define APT_PACKAGES_TEXT_CAP (2048u << 20) /* uncompressed */

typedef struct apt_suite_job apt_suite_job;

typedef struct apt_index_job {
    apt_suite_job *sj;
    const char *component;
    const char *arch;
    const apt_release_file *file;   /* the file fetched */
    bool have_plain;                /* the Release lists the uncompressed file */
    char plain_sha256[65];
    char *url_by_hash;              /* or NULL */
    char *url_path;                 /* canonical path URL of `file` */
    unsigned char *body;            /* fetched bytes (owned) */
    size_t len;
    FILE *blob_f;                   /* cached .solv, read in place (owned) */
    unsigned char *blob;            /* or, stored compressed by an older
                                       envlock, in memory (owned) */
    size_t blob_len;
    bool fetch_submitted;
    apt_repo_info info;
} apt_index_job;

struct apt_suite_job {
    apt_loader *l;
    int source_index;
    const apt_source *src;
    char *dist_url;                 /* ".../dists/SUITE/" or the flat directory */
    const char *keyring;
    /* Release + Release.gpg pair */
    unsigned char *rel, *gpg;
    size_t rel_n, gpg_n;
    int pair_pending;
    bool rel_failed, gpg_missing;
    cache_response *rel_fail_copy;  /* unused placeholder */
    char *release_url;
    apt_release release;
    char release_sha256[65];
    bool signature_checked;
};

struct apt_loader {
    el_ctx *ctx;
    cache *c;
    arena *a;
    apt_load_options o;
    const char *arch;
    apt_source *sources;
    size_t n_sources;
    ptrvec suites;                  /* apt_suite_job* */
    ptrvec indexes;                 /* apt_index_job* */
    bool failed;
    apt_repo_info *infos;           /* after load_into */
    size_t n_infos;
    apt_load_stats st;
    struct s_Pool *pool;
    bool own_pool;                  /* apt_loader_load_own(): freed here */
    apt_refused *refused;           /* grown with xrealloc */
    size_t n_refused, cap_refused;
};

/* ---- failures: the first one wins ---- */

static bool fail_first(apt_loader *l)
{
    if (l->failed)
        return false;
    l->failed = true;
    return true;
}

static void fail_response(apt_loader *l, const cache_response *r)
{
    if (fail_first(l))
        cache_response_fail(l->ctx, r);
}

static void fail_repo(apt_loader *l, const char *url, const char *reason, const char *fmt, ...)
    EL_PRINTF(4, 5);
static void fail_repo(apt_loader *l, const char *url, const char *reason, const char *fmt, ...)
{
    if (!fail_first(l))
        return;
    va_list ap;
    va_start(ap, fmt);
    el_failv(l->ctx, EL_PACKAGE_NOT_FOUND, fmt, ap);
    va_end(ap);
    el_detail_str(l->ctx, "reason", reason);
    if (url)
        el_detail_str(l->ctx, "url", url);
    el_set_retryable(l->ctx, false);
}

/* ---- setup ---- */

apt_loader *apt_loader_new(el_ctx *ctx, cache *c, const apt_load_options *o)
{
    if (!o || !o->n_sources || !o->arch) { /* the target's: the catalog owns them */
        el_fail(ctx, EL_SPEC_INVALID, "no apt %s was given for the target: the base names "
                "none in the bases catalog, and the spec none in packages.system.sources",
                o && o->n_sources ? "architecture" : "sources");
        el_detail_str(ctx, "reason", o && o->n_sources ? "no_apt_arch" : "no_apt_sources");
        return NULL;
    }
    apt_loader *l = xcalloc(1, sizeof *l);
    l->ctx = ctx;
    l->c = c;
    l->a = arena_new();
    if (o)
        l->o = *o;
    l->arch = arena_strdup(l->a, l->o.arch);
    l->o.keyring = arena_strdup(l->a, l->o.keyring ? l->o.keyring : APT_DEFAULT_KEYRING);
    if (l->o.status_file)
        l->o.status_file = arena_strdup(l->a, l->o.status_file);
    const char *const *lines = l->o.sources;
    size_t n = l->o.n_sources;
    l->o.sources = NULL;
    l->sources = arena_alloc(l->a, n * sizeof *l->sources);
    l->n_sources = n;
    for (size_t i = 0; i < n; i++) {
        char *err = NULL;
        if (deb_source_parse(lines[i], l->a, &l->sources[i], &err) < 0) {
            el_fail(ctx, EL_SPEC_INVALID, "apt source %zu (`%s`): %s", i + 1,
                    lines[i] ? lines[i] : "", err);
            char *field = xasprintf("packages.system.sources[%zu]", i);
            el_detail_str(ctx, "field", field);
            el_detail_str(ctx, "source", lines[i] ? lines[i] : "");
            el_detail_str(ctx, "reason", "invalid_source");
            free(field);
            free(err);
            apt_loader_free(l);
            return NULL;
        }
    }
    return l;
}

void apt_loader_free(apt_loader *l)
{
    if (!l)
        return;
    free(l->refused);
    for (size_t i = 0; i < l->suites.len; i++) {
        apt_suite_job *sj = l->suites.items[i];
        free(sj->rel);
        free(sj->gpg);
        free(sj->dist_url);
        free(sj->release_url);
        free(sj);
    }
    for (size_t i = 0; i < l->indexes.len; i++) {
        apt_index_job *ij = l->indexes.items[i];
        free(ij->body);
        free(ij->blob);
        if (ij->blob_f)
            fclose(ij->blob_f);
        free(ij->url_by_hash);
        free(ij->url_path);
        free(ij);
    }
    ptrvec_release(&l->suites);
    ptrvec_release(&l->indexes);
    if (l->own_pool)
        pool_free(l->pool);
    arena_free(l->a);
    free(l);
}

char *apt_solv_blob_name(const char *packages_sha256)
{
    return xasprintf("apt-solv/%s/libsolv-%s/f%d", packages_sha256, solv_version, APT_SOLV_FORMAT);
}

/* ---- Packages fetches ---- */

static void on_packages(cache *c, cache_response *r, void *user);

static void submit_packages(apt_index_job *ij, bool by_hash)
{
    cache_request rq = { 0 };
    rq.url = by_hash ? ij->url_by_hash : ij->url_path;
    rq.policy = by_hash ? CACHE_IMMUTABLE : CACHE_REVALIDATE;
    rq.max_bytes = APT_PACKAGES_CAP;
    rq.sha256 = ij->file->sha256;
    rq.done = on_packages;
    rq.user = ij;
    ij->fetch_submitted = true;
    cache_submit(ij->sj->l->c, &rq);
}

static void on_packages(cache *c, cache_response *r, void *user)
{
    apt_index_job *ij = user;
    apt_loader *l = ij->sj->l;
    if (r->code != EL_OK) {
        if (ij->url_by_hash && strcmp(r->url, ij->url_by_hash) == 0 && r->reason &&
            strcmp(r->reason, "not_found") == 0) {
            submit_packages(ij, false); /* a mirror without by-hash directories */
            return;
        }
        if (r->reason && strcmp(r->reason, "hash_mismatch") == 0) {
            fail_repo(l, ij->url_path, "hash_mismatch",
                      "%s does not match the sha256 %s its signed Release lists", ij->url_path,
                      ij->file->sha256);
            return;
        }
        fail_response(l, r);
        return;
    }
    if (r->len != ij->file->size) {
        fail_repo(l, ij->url_path, "hash_mismatch",
                  "%s has %zu bytes; its signed Release says %llu", ij->url_path, r->len,
                  (unsigned long long)ij->file->size);
        return;
    }
    free(ij->body);
    ij->body = cache_response_take_body(r, &ij->len);
}

/* Monotonic milliseconds, for apt_load_stats.solv_ms. */
static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* plan_index() : one Packages index of a verified Release: choose the file,
 *  look for its parsed repo in the cache, else fetch it. */
static void plan_index(apt_suite_job *sj, const char *component, const char *arch)
{
    apt_loader *l = sj->l;
    const apt_release *rel = &sj->release;
    char *base = component ? xasprintf("%s/binary-%s/Packages", component, arch) : xstrdup("Packages");
    static const char *const exts[] = { ".xz", ".gz", "" };
    const apt_release_file *f = NULL;
    for (size_t i = 0; i < 3 && !f; i++) {
        char *p = xasprintf("%s%s", base, exts[i]);
        f = apt_release_find(rel, p);
        free(p);
    }
    if (!f) {
        fail_repo(l, sj->release_url, "bad_release", "%s lists no %s(.xz|.gz)", sj->release_url, base);
        free(base);
        return;
    }
    apt_index_job *ij = xcalloc(1, sizeof *ij);
    ij->sj = sj;
    ij->component = component ? component : "";
    ij->arch = arch;
    ij->file = f;
    const apt_release_file *plain = apt_release_find(rel, base);
    if (plain) {
        ij->have_plain = true;
        memcpy(ij->plain_sha256, plain->sha256, sizeof ij->plain_sha256);
    }
    ij->url_path = xasprintf("%s%s", sj->dist_url, f->path);
    if (rel->by_hash) {
        const char *slash = strrchr(f->path, '/');
        size_t dl = slash ? (size_t)(slash - f->path) + 1 : 0;
        ij->url_by_hash = xasprintf("%s%.*sby-hash/SHA256/%s", sj->dist_url, (int)dl, f->path, f->sha256);
    }
    apt_repo_info *in = &ij->info;
    in->uri = sj->src->uri;
    in->suite = sj->src->suite;
    in->component = ij->component;
    in->arch = arch;
    in->repo_name = component ? arena_sprintf(l->a, "%s %s/%s/binary-%s", sj->src->uri, sj->src->suite,
                                              component, arch)
                              : arena_sprintf(l->a, "%s %s", sj->src->uri, sj->src->suite);
    in->release_url = sj->release_url;
    memcpy(in->release_sha256, sj->release_sha256, 65);
    in->release_date = rel->date_text;
    in->release_epoch = rel->date;
    in->origin = rel->origin;
    in->label = rel->label;
    in->codename = rel->codename;
    in->pin_priority = !rel->not_automatic ? 500 : rel->but_automatic_upgrades ? 100 : 1;
    in->packages_url = arena_sprintf(l->a, "%s%s", sj->dist_url, plain ? plain->path : f->path);
    memcpy(in->packages_sha256, plain ? plain->sha256 : f->sha256, 65);
    in->packages_size = plain ? plain->size : f->size;
    in->signature_checked = sj->signature_checked;
    in->source_index = sj->source_index;
    ptrvec_push(&l->indexes, ij);
    free(base);
    char *bn = apt_solv_blob_name(in->packages_sha256);
    /* Opening the blob checks it (size, CRC-32) without reading it into
     * memory; libsolv reads it at load time. An older compressed blob is
     * read whole, and stored again uncompressed once it has loaded. */
    double t0 = mono_ms();
    ij->blob_f = cache_blob_open(l->c, bn, &ij->blob_len);
    bool hit = ij->blob_f || cache_blob_get(l->c, bn, &ij->blob, &ij->blob_len);
    l->st.solv_ms += mono_ms() - t0;
    free(bn);
    if (!hit)
        submit_packages(ij, ij->url_by_hash != NULL);
}

/* ---- Release checks ---- */


static bool listed(const char *const *v, size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], w) == 0)
            return true;
    return false;
}

/* Whether the Release offers component `comp`, as apt reads the
 * Components line: by its name, or with the path prefix the security
 * archive writes (`Components: updates/main` for indexes under main/), or a
 * source line's `updates/main` for a Release that lists `main`. */
static bool component_listed(const apt_release *rel, const char *comp)
{
    if (listed(rel->components, rel->n_components, comp))
        return true;
    const char *tail = strrchr(comp, '/');
    if (tail && listed(rel->components, rel->n_components, tail + 1))
        return true;
    size_t n = strlen(comp);
    for (size_t i = 0; i < rel->n_components; i++) {
        const char *c = rel->components[i];
        size_t m = strlen(c);
        if (m > n + 1 && c[m - n - 1] == '/' && strcmp(c + m - n, comp) == 0)
            return true;
    }
    return false;
}

static bool source_wants_arch(const apt_source *s, const char *arch)
{
    return s->n_arches == 0 || listed(s->arches, s->n_arches, arch);
}

/* accept_release() : the signed Release text of one suite: parse, check,
 *  and plan its indexes. Takes `text`. */
static void accept_release(apt_suite_job *sj, char *text, size_t len, bool checked)
{
    apt_loader *l = sj->l;
    const apt_source *src = sj->src;
    sha256_hex(text, len, sj->release_sha256);
    sj->signature_checked = checked;
    char *err = NULL;
    int rc = apt_release_parse(text, len, l->a, &sj->release, &err);
    free(text);
    if (rc < 0) {
        fail_repo(l, sj->release_url, "bad_release", "%s: %s", sj->release_url, err);
        free(err);
        return;
    }
    const apt_release *rel = &sj->release;
    if (!src->flat) {
        bool match = (rel->suite && strcmp(rel->suite, src->suite) == 0) ||
                     (rel->codename && strcmp(rel->codename, src->suite) == 0);
        if (!match && (rel->suite || rel->codename)) {
            fail_repo(l, sj->release_url, "bad_release",
                      "%s is for suite `%s` (codename `%s`), not `%s`", sj->release_url,
                      rel->suite ? rel->suite : "", rel->codename ? rel->codename : "", src->suite);
            return;
        }
    }
    bool check_vu = !l->o.ignore_valid_until && src->check_valid_until != 0;
    if (check_vu && rel->valid_until_text) {
        int64_t now = l->o.now ? l->o.now : (int64_t)time(NULL);
        if (rel->valid_until < now) {
            if (fail_first(l)) {
                el_fail(l->ctx, EL_PACKAGE_NOT_FOUND,
                        "%s expired at %s (Valid-Until); use a current mirror, or for a snapshot "
                        "archive check-valid-until=no",
                        sj->release_url, rel->valid_until_text);
                el_detail_str(l->ctx, "reason", "expired_release");
                el_detail_str(l->ctx, "url", sj->release_url);
                el_detail_str(l->ctx, "valid_until", rel->valid_until_text);
                el_set_retryable(l->ctx, false);
            }
            return;
        }
    }
    if (src->flat) {
        plan_index(sj, NULL, l->arch);
        return;
    }
    if (rel->n_architectures && !listed(rel->architectures, rel->n_architectures, l->arch)) {
        fail_repo(l, sj->release_url, "bad_release", "%s has no architecture %s (it lists %zu others)",
                  sj->release_url, l->arch, rel->n_architectures);
        return;
    }
    bool arch_all = rel->n_architectures && listed(rel->architectures, rel->n_architectures, "all") &&
                    !rel->no_arch_all_packages;
    for (size_t i = 0; i < src->n_components; i++) {
        const char *comp = src->components[i];
        if (rel->n_components && !component_listed(rel, comp)) {
            fail_repo(l, sj->release_url, "bad_release", "%s has no component %s", sj->release_url,
                      comp);
            return;
        }
        plan_index(sj, comp, l->arch);
        if (arch_all) {
            char *p = xasprintf("%s/binary-all/Packages", comp);
            bool any = false;
            for (size_t k = 0; k < rel->n_files && !any; k++)
                any = strncmp(rel->files[k].path, p, strlen(p)) == 0;
            free(p);
            if (any)
                plan_index(sj, comp, "all");
        }
    }
}

/* ---- Release fetches ---- */

static void on_pair(cache *c, cache_response *r, void *user);
static void on_inrelease(cache *c, cache_response *r, void *user);

/* Fetches one of the suite's Release files (always revalidated: a Release
 * names the current indexes) for `done`. */
static void submit_release(apt_suite_job *sj, const char *url, uint64_t max_bytes,
                           cache_done_fn done)
{
    cache_request rq = { 0 };
    rq.url = url;
    rq.policy = CACHE_REVALIDATE;
    rq.max_bytes = max_bytes;
    rq.done = done;
    rq.user = sj;
    cache_submit(sj->l->c, &rq);
}

static void submit_pair(apt_suite_job *sj)
{
    free(sj->release_url);
    sj->release_url = xasprintf("%sRelease", sj->dist_url);
    char *gpg_url = xasprintf("%sRelease.gpg", sj->dist_url);
    sj->pair_pending = 2;
    submit_release(sj, sj->release_url, APT_RELEASE_CAP, on_pair);
    submit_release(sj, gpg_url, 1u << 20, on_pair);
    free(gpg_url);
}

static void verify_pair(apt_suite_job *sj)
{
    apt_loader *l = sj->l;
    if (sj->rel_failed)
        return; /* already recorded */
    if (sj->gpg_missing) {
        if (sj->src->trusted) {
            char *t = (char *)sj->rel;
            sj->rel = NULL;
            accept_release(sj, t, sj->rel_n, false);
            return;
        }
        fail_repo(l, sj->release_url, "unsigned",
                  "%s is not signed (no InRelease, no Release.gpg); an unsigned repository is "
                  "not used unless its source says [trusted=yes]",
                  sj->release_url);
        return;
    }
    char *why = NULL;
    /* the cached check: a Release + Release.gpg verified before (same
     * bytes, same keyring) is not verified again (apt_verify.c) */
    apt_sig_result res = sj->src->trusted
                             ? APT_SIG_GOOD
                             : apt_verify_detached_cached(l->c, sj->keyring, sj->rel, sj->rel_n,
                                                          sj->gpg, sj->gpg_n, &why);
    if (res == APT_SIG_GOOD) {
        if (!sj->src->trusted)
            l->st.verified_detached++;
        char *t = (char *)sj->rel;
        sj->rel = NULL;
        accept_release(sj, t, sj->rel_n, !sj->src->trusted);
    } else if (res == APT_SIG_NO_KEYRING) {
        fail_repo(l, sj->release_url, "keyring_missing", "cannot verify %s: %s", sj->release_url, why);
        if (!l->failed || el_ctx_code(l->ctx) == EL_PACKAGE_NOT_FOUND)
            el_detail_str(l->ctx, "path", sj->keyring);
    } else {
        fail_repo(l, sj->release_url, "bad_signature", "%s: bad signature: %s", sj->release_url,
                  why ? why : "does not verify");
    }
    free(why);
}

static void on_pair(cache *c, cache_response *r, void *user)
{
    apt_suite_job *sj = user;
    bool is_gpg = strlen(r->url) > 4 && strcmp(r->url + strlen(r->url) - 4, ".gpg") == 0;
    if (r->code != EL_OK) {
        bool nf = r->reason && strcmp(r->reason, "not_found") == 0;
        if (is_gpg && nf)
            sj->gpg_missing = true;
        else {
            if (!is_gpg)
                sj->rel_failed = true;
            fail_response(sj->l, r);
            if (is_gpg)
                sj->rel_failed = true;
        }
    } else if (is_gpg) {
        sj->gpg = cache_response_take_body(r, &sj->gpg_n);
    } else {
        sj->rel = cache_response_take_body(r, &sj->rel_n);
    }
    if (--sj->pair_pending == 0)
        verify_pair(sj);
}

static void on_inrelease(cache *c, cache_response *r, void *user)
{
    apt_suite_job *sj = user;
    apt_loader *l = sj->l;
    if (r->code != EL_OK) {
        if (r->reason && strcmp(r->reason, "not_found") == 0)
            submit_pair(sj);
        else
            fail_response(l, r);
        return;
    }
    char *text = NULL, *why = NULL;
    size_t len = 0;
    if (sj->src->trusted) {
        if (apt_clearsigned_split((const char *)r->body, r->len, &text, &len) < 0) {
            fail_repo(l, r->url, "bad_release", "%s is not a clearsigned message", r->url);
            return;
        }
        accept_release(sj, text, len, false);
        return;
    }
    /* gpgv runs only for bytes (or a keyring, or a gpgv) not verified
     * before; Valid-Until is checked by accept_release() every time */
    apt_sig_result res =
        apt_verify_clearsigned_cached(l->c, sj->keyring, r->body, r->len, &text, &len, &why);
    if (res == APT_SIG_GOOD) {
        l->st.verified_inrelease++;
        accept_release(sj, text, len, true);
    } else if (res == APT_SIG_NO_TOOL) {
        submit_pair(sj); /* no gpgv: the detached signature is verified in-process */
    } else if (res == APT_SIG_NO_KEYRING) {
        fail_repo(l, r->url, "keyring_missing", "cannot verify %s: %s", r->url, why);
        el_detail_str(l->ctx, "path", sj->keyring);
    } else {
        fail_repo(l, r->url, "bad_signature", "%s: bad signature: %s", r->url, why ? why : "");
    }
    free(why);
}

void apt_loader_submit(apt_loader *l)
{
    for (size_t i = 0; i < l->n_sources; i++) {
        const apt_source *s = &l->sources[i];
        if (!source_wants_arch(s, l->arch))
            continue;
        apt_suite_job *sj = xcalloc(1, sizeof *sj);
        sj->l = l;
        sj->source_index = (int)i;
        sj->src = s;
        sj->keyring = s->signed_by ? s->signed_by : l->o.keyring;
        if (s->flat) {
            const char *d = s->suite;
            if (strcmp(d, "./") == 0)
                d = "";
            sj->dist_url = xasprintf("%s%s", s->uri, d);
        } else {
            sj->dist_url = xasprintf("%sdists/%s/", s->uri, s->suite);
        }
        sj->release_url = xasprintf("%sInRelease", sj->dist_url);
        ptrvec_push(&l->suites, sj);
        submit_release(sj, sj->release_url, APT_RELEASE_CAP, on_inrelease);
    }
}

/* ---- parsing into the pool ---- */

/* open_decompressed() : a FILE reading the decompressed bytes of `body`,
 *  compressed as `name`'s suffix says (libsolvext's own gzip/xz readers). */
static FILE *open_decompressed(const char *name, const unsigned char *body, size_t len)
{
    int fd = memfd_create("envlock-apt", MFD_CLOEXEC);
    if (fd < 0) {
        FILE *t = tmpfile();
        if (!t)
            return NULL;
        fd = dup(fileno(t));
        fclose(t);
        if (fd < 0)
            return NULL;
    }
    if (file_write_all(fd, body, len) != 0 || lseek(fd, 0, SEEK_SET) < 0) {
        close(fd);
        return NULL;
    }
    FILE *f = solv_xfopen_fd(name, fd, "r");
    if (!f)
        close(fd);
    return f;
}

/* parse_index() : repo_add_debpackages on the fetched file, after checking
 *  the decompressed text against the Release's uncompressed hash. */
static el_code parse_index(apt_loader *l, apt_index_job *ij, Repo *repo)
{
    const char *name = ij->file->path;
    FILE *f = open_decompressed(name, ij->body, ij->len);
    if (!f) {
        fail_repo(l, ij->url_path, "bad_index", "%s cannot be opened for decompression", ij->url_path);
        return el_ctx_code(l->ctx);
    }
    strbuf text = STRBUF_INIT;
    char buf[65536];
    size_t r;
    bool too_big = false;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) {
        if (text.len + r > APT_PACKAGES_TEXT_CAP) {
            too_big = true;
            break;
        }
        sb_add(&text, buf, r);
    }
    bool err = ferror(f) != 0;
    fclose(f);
    if (too_big || err || (text.len == 0 && ij->len > 0 && strcmp(name + strlen(name) - 8, "Packages") != 0)) {
        sb_release(&text);
        fail_repo(l, ij->url_path, "bad_index", "%s %s", ij->url_path,
                  too_big ? "decompresses to more than 2 GiB" : "does not decompress");
        return el_ctx_code(l->ctx);
    }
    if (ij->have_plain) {
        char h[65];
        sha256_hex(text.buf, text.len, h);
        if (strcmp(h, ij->plain_sha256) != 0) {
            sb_release(&text);
            fail_repo(l, ij->url_path, "hash_mismatch",
                      "%s decompresses to text with sha256 %s; its signed Release says %s", ij->url_path,
                      h, ij->plain_sha256);
            return el_ctx_code(l->ctx);
        }
    }
    FILE *mf = solv_fmemopen(text.buf, text.len, "r");
    if (!mf || repo_add_debpackages(repo, mf, REPO_NO_INTERNALIZE) != 0) {
        if (mf)
            fclose(mf);
        sb_release(&text);
        fail_repo(l, ij->url_path, "bad_index", "%s: %s", ij->url_path, pool_errstr(repo->pool));
        return el_ctx_code(l->ctx);
    }
    fclose(mf);
    apt_extras_add(repo, repo_last_repodata(repo), text.buf, text.len);
    repo_internalize(repo);
    sb_release(&text);
    l->st.parsed++;
    return EL_OK;
}

/* write_blob() : the repo as a .solv file into the cache (best effort). */
static void write_blob(apt_loader *l, apt_index_job *ij, Repo *repo)
{
    char *data = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&data, &len);
    if (!f)
        return;
    int rc = repo_write(repo, f);
    if (fclose(f) == 0 && rc == 0) {
        char *bn = apt_solv_blob_name(ij->info.packages_sha256);
        cache_blob_put(l->c, bn, data, len);
        free(bn);
    }
    free(data);
}

/* load_blob() : repo_add_solv on the cached blob; false if libsolv refuses
 *  it. The blob file is read through stdio straight from the cache entry
 *  (an fmemopen'd copy costs a third more than libsolv's own load). */
static bool load_blob(apt_loader *l, apt_index_job *ij, Repo *repo)
{
    if (ij->blob_f) {
        double t0 = mono_ms();
        int rc = repo_add_solv(repo, ij->blob_f, 0);
        fclose(ij->blob_f);
        ij->blob_f = NULL;
        l->st.solv_ms += mono_ms() - t0;
        return rc == 0;
    }
    FILE *f = solv_fmemopen((const char *)ij->blob, ij->blob_len, "r");
    if (!f)
        return false;
    int rc = repo_add_solv(repo, f, 0);
    fclose(f);
    if (rc == 0) {
        char *bn = apt_solv_blob_name(ij->info.packages_sha256);
        cache_blob_put(l->c, bn, ij->blob, ij->blob_len);
        free(bn);
    }
    free(ij->blob);
    ij->blob = NULL;
    return rc == 0;
}

/* ---- entries outside Debian's grammar ---- */

/* `s` for a message or a note: control bytes as '?', at most 120 bytes. */
static const char *shown(arena *a, const char *s)
{
    return arena_shown(a, s, 120);
}

/* Whether a Packages Filename is a relative path of Debian file name
 * characters (no `..` segment), as every archive writes them. */
static bool filename_ok(const char *f)
{
    if (!*f || *f == '/')
        return false;
    for (const char *p = f; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("._+~%/-", *p)))
            return false;
    for (const char *p = f; p; p = strchr(p, '/'), p = p ? p + 1 : NULL)
        if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
            return false;
    return true;
}

/* Why solvable s may not be a candidate (its reason id; *what the field),
 * or NULL. */
static const char *entry_refusal(Pool *pool, Solvable *s, const char **what)
{
    const char *name = pool_id2str(pool, s->name);
    const char *evr = pool_id2str(pool, s->evr);
    deb_version v;
    unsigned medianr = 0;
    const char *loc = solvable_lookup_location(s, &medianr);
    if (!deb_name_valid(name, strlen(name)))
        return *what = "its Package name is outside Debian's grammar", "invalid_name";
    if (deb_version_parse(evr, strlen(evr), &v, NULL) != DEB_VALID)
        return *what = "its Version is outside Debian's grammar", "invalid_version";
    if (loc && !filename_ok(loc))
        return *what = "its Filename is outside the characters of Debian file names",
               "invalid_filename";
    return NULL;
}

static void refuse(apt_loader *l, Repo *repo, Id p, const char *reason, const char *what,
                   const apt_repo_info *ri)
{
    Pool *pool = repo->pool;
    Solvable *s = pool->solvables + p;
    if (l->n_refused == l->cap_refused) {
        l->cap_refused = l->cap_refused ? l->cap_refused * 2 : 8;
        l->refused = xrealloc(l->refused, l->cap_refused * sizeof *l->refused);
    }
    apt_refused *r = &l->refused[l->n_refused++];
    r->name = shown(l->a, pool_id2str(pool, s->name));
    r->version = shown(l->a, pool_id2str(pool, s->evr));
    r->reason = reason;
    char *url = cache_url_redact(ri->packages_url ? ri->packages_url : ri->repo_name);
    r->why = arena_sprintf(l->a, "apt: %s lists `%s` version `%s`, not used: %s", url, r->name,
                           r->version, what);
    free(url);
    if (l->o.note)
        l->o.note(l->o.note_user, r->why);
    repo_free_solvable(repo, p, 1);
}

/* Removes from `repo` every entry outside Debian's grammar (apt_refused),
 * before anything reads the pool. */
static void refuse_outside_grammar(apt_loader *l, Repo *repo, const apt_repo_info *ri)
{
    Pool *pool = repo->pool;
    Solvable *s;
    Id p;
    FOR_REPO_SOLVABLES(repo, p, s)
    {
        const char *what = NULL;
        const char *reason = entry_refusal(pool, s, &what);
        if (reason)
            refuse(l, repo, p, reason, what, ri);
    }
}

const apt_refused *apt_loader_refused(const apt_loader *l, size_t *n)
{
    *n = l->n_refused;
    return l->refused;
}

/* A second pool (the resolver rebuilds its pool after a widening, pip's
 * pre-release recheck or a policy's last solve): the first load consumed
 * the body and the blob, so the blob it wrote is opened again, and the
 * Packages file is fetched again if there is none. */
static bool reopen(apt_loader *l, apt_index_job *ij)
{
    if (ij->body || ij->blob || ij->blob_f)
        return false;
    char *bn = apt_solv_blob_name(ij->info.packages_sha256);
    ij->blob_f = cache_blob_open(l->c, bn, &ij->blob_len);
    bool hit = ij->blob_f || cache_blob_get(l->c, bn, &ij->blob, &ij->blob_len);
    free(bn);
    if (!hit)
        submit_packages(ij, ij->url_by_hash != NULL);
    return !hit;
}

/* Each index's parsed form from the cache into repos[i]; one libsolv
 * refuses is dropped and its Packages fetched instead. True when there is
 * such a fetch to run. */
static bool load_blobs(apt_loader *l, struct s_Pool *pool, Repo **repos)
{
    bool refetch = false;
    for (size_t i = 0; i < l->indexes.len; i++) {
        apt_index_job *ij = l->indexes.items[i];
        if (!ij->blob && !ij->blob_f)
            continue;
        Repo *repo = repo_create(pool, ij->info.repo_name);
        if (load_blob(l, ij, repo)) {
            repos[i] = repo;
            ij->info.from_solv_cache = true;
            l->st.solv_hits++;
        } else {
            repo_free(repo, 1);
            l->st.solv_rebuilt++;
            if (!ij->body && !ij->fetch_submitted) {
                submit_packages(ij, ij->url_by_hash != NULL);
                refetch = true;
            }
        }
    }
    return refetch;
}

/* The indexes without a parsed form: their fetched Packages parsed into
 * repos[i], and the parsed form written for the next run. */
static el_code parse_fetched(apt_loader *l, struct s_Pool *pool, Repo **repos)
{
    for (size_t i = 0; i < l->indexes.len; i++) {
        apt_index_job *ij = l->indexes.items[i];
        if (repos[i])
            continue;
        if (!ij->body) {
            fail_repo(l, ij->url_path, "not_found", "%s was not fetched", ij->url_path);
            return el_ctx_code(l->ctx);
        }
        Repo *repo = repo_create(pool, ij->info.repo_name);
        if (parse_index(l, ij, repo) != EL_OK)
            return el_ctx_code(l->ctx);
        write_blob(l, ij, repo);
        repos[i] = repo;
        free(ij->body);
        ij->body = NULL;
    }
    return EL_OK;
}

/* The dpkg status file, when given, as the pool's installed repository. */
static el_code load_status(apt_loader *l, struct s_Pool *pool)
{
    if (!l->o.status_file)
        return EL_OK;
    FILE *f = fopen(l->o.status_file, "r");
    if (!f) {
        el_fail(l->ctx, EL_PACKAGE_NOT_FOUND, "cannot read the dpkg status file %s: %s",
                l->o.status_file, strerror(errno));
        el_detail_str(l->ctx, "reason", "status_file");
        el_detail_str(l->ctx, "path", l->o.status_file);
        return EL_PACKAGE_NOT_FOUND;
    }
    Repo *inst = repo_create(pool, "@System");
    repo_add_debpackages(inst, f, REPO_NO_INTERNALIZE);
    fclose(f);
    repo_internalize(inst);
    pool_set_installed(pool, inst);
    return EL_OK;
}

static el_code load_into(apt_loader *l, struct s_Pool *pool)
{
    l->pool = pool;
    bool refetch = false;
    for (size_t i = 0; i < l->indexes.len; i++)
        refetch |= reopen(l, l->indexes.items[i]);
    Repo **repos = xcalloc(l->indexes.len ? l->indexes.len : 1, sizeof *repos);
    refetch |= load_blobs(l, pool, repos);
    el_code rc = EL_OK;
    if (refetch && (rc = cache_run(l->c, l->ctx)) != EL_OK && !l->failed) {
        free(repos);
        return rc;
    }
    if (l->failed || parse_fetched(l, pool, repos) != EL_OK) {
        free(repos);
        return el_ctx_code(l->ctx);
    }
    l->n_infos = l->indexes.len;
    l->infos = arena_alloc(l->a, (l->n_infos ? l->n_infos : 1) * sizeof *l->infos);
    for (size_t i = 0; i < l->indexes.len; i++) {
        apt_index_job *ij = l->indexes.items[i];
        refuse_outside_grammar(l, repos[i], &ij->info);
        ij->info.n_packages = (unsigned)repos[i]->nsolvables;
        repos[i]->appdata = &l->infos[i];
        l->infos[i] = ij->info;
    }
    free(repos);
    return load_status(l, pool);
}

el_code apt_loader_load_into(apt_loader *l, struct s_Pool *pool)
{
    if (l->failed)
        return el_ctx_code(l->ctx);
    cache_phase(l->c, "read apt indexes"); /* parsing Packages takes seconds */
    el_code rc = load_into(l, pool);
    cache_phase(l->c, NULL);
    return rc;
}

apt_loader *apt_loader_read(el_ctx *ctx, cache *c, const apt_load_options *o)
{
    apt_loader *l = apt_loader_new(ctx, c, o);
    if (!l)
        return NULL;
    apt_loader_submit(l);
    Pool *pool = pool_create();
    pool_setdisttype(pool, DISTTYPE_DEB);
    pool_setarch(pool, l->arch);
    l->pool = pool;
    l->own_pool = true;
    if (cache_run(c, ctx) != EL_OK || apt_loader_load_into(l, pool) != EL_OK) {
        apt_loader_free(l);
        return NULL;
    }
    return l;
}

const char *apt_repo_file_url(const apt_repo_info *ri, const char *filename, arena *a)
{
    /* apt fetches URI + Filename for a flat repository too: its Filename
     * fields name the directory ("sub/x.deb") when the files are in one */
    return arena_sprintf(a, "%s%s", ri->uri, filename);
}

const apt_repo_info *apt_loader_repos(const apt_loader *l, size_t *n)
{
    *n = l->n_infos;
    return l->infos;
}

void apt_loader_stats(const apt_loader *l, apt_load_stats *st)
{
    *st = l->st;
}

struct s_Pool *apt_loader_pool_(const apt_loader *l)
{
    return l->pool;
}

const char *apt_loader_arch_(const apt_loader *l)
{
    return l->arch;
}

/* verb_check_inputs.c — what the inputs a lock records look like now, for the
 * online (and --offline) part of `envlock check`.
 *
 * Owns one cache run over every `inputs:` entry of a lock: PyPI project
 * pages and apt Release files are requested here, npm packuments through
 * the npm loader (one per registry), so that each request is the one the
 * resolver made — same URL, same Accept (and so the same cache entry and
 * the same negotiated document, whose ETag is what the lock holds), same
 * registry credentials — and each identity is derived exactly as
 * resolver_lock.c derived it. It compares nothing (lock_check.c does) and
 * never parses more of a document than the identity needs. */
#include <stdlib.h>
#include <string.h>

#include "apt_index.h"
#include "cache.h"
#include "npm_index.h"
#include "pypi_index.h"
#include "verb_check_inputs.h"

#define TI_APT_RELEASE_MAX ((uint64_t)64 << 20)

typedef enum ti_state {
    TI_PENDING,
    TI_OK,     /* identity/modified read */
    TI_GONE,   /* the index answers not found (HTTP 404/410, no such file) */
    TI_MISS,   /* offline, not in the cache */
    TI_SKIP,   /* cannot be asked for (an npm URL that names no package) */
    TI_FAILED  /* any other failure: the check's error */
} ti_state;

typedef struct ti_slot {
    const lock_input *was;
    ti_state state;
    char *identity;
    char *modified;
    char *why;           /* GONE / MISS / SKIP: a short reason */
    /* TI_FAILED, for el_fail() once the run is over */
    el_code code;
    char *reason;
    char *message;
    char *url;
    long status;
    bool retryable;
    /* npm: the loader that fetched it and the package name */
    npm_loader *nl;
    char *npm_name;
} ti_slot;

static void slot_fail(ti_slot *s, el_code code, const char *reason, const char *message,
                      const char *url, long status, bool retryable)
{
    s->state = TI_FAILED;
    s->code = code != EL_OK ? code : EL_INTERNAL;
    s->reason = xstrdup(reason ? reason : "fetch_failed");
    s->message = xstrdup(message ? message : "fetch failed");
    s->url = url ? cache_url_redact(url) : NULL;
    s->status = status;
    s->retryable = retryable;
}

/* A failed fetch: gone (404), missing from the cache offline, or an error. */
static void slot_failed(ti_slot *s, el_code code, const char *reason, const char *message,
                        const char *url, long status, bool retryable)
{
    if (reason && strcmp(reason, "not_found") == 0) {
        s->state = TI_GONE;
        s->why = xstrdup("not found");
    } else if (reason && strcmp(reason, "offline_cache_miss") == 0) {
        s->state = TI_MISS;
        s->why = xstrdup("offline and not in the cache");
    } else {
        slot_fail(s, code, reason, message, url, status, retryable);
    }
}

/* The common outcomes of a cache response; false when the caller should
 * read the body. */
static bool response_settled(ti_slot *s, const cache_response *r)
{
    if (r->code == EL_OK)
        return false;
    slot_failed(s, r->code, r->reason, r->message, r->url, r->status, r->retryable);
    return true;
}

static void pypi_done(cache *c, cache_response *r, void *user)
{
    (void)c;
    ti_slot *s = user;
    if (response_settled(s, r))
        return;
    s->state = TI_OK;
    s->identity = xstrdup(r->etag ? r->etag : "");
    s->modified = r->last_modified ? xstrdup(r->last_modified) : NULL;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The identity of an apt suite is the sha256 of its Release text: the
 * signed part of an InRelease (the signature is not checked here — only
 * whether the text changed matters), or a Release file whole. */
static void apt_done(cache *c, cache_response *r, void *user)
{
    (void)c;
    ti_slot *s = user;
    if (response_settled(s, r))
        return;
    char *text = NULL;
    size_t len = 0;
    if (ends_with(s->was->url, "/InRelease")) {
        if (apt_clearsigned_split((const char *)r->body, r->len, &text, &len) < 0) {
            char *msg = xasprintf("%s is not a clearsigned message", s->was->url);
            slot_fail(s, EL_PACKAGE_NOT_FOUND, "bad_release", msg, s->was->url, 0, false);
            free(msg);
            return;
        }
    } else {
        text = (char *)cache_response_take_body(r, &len);
    }
    char hex[65];
    sha256_hex(text, len, hex);
    s->state = TI_OK;
    s->identity = xasprintf("sha256:%s", hex);
    arena *a = arena_new();
    apt_release rel;
    char *err = NULL;
    if (apt_release_parse(text, len, a, &rel, &err) == 0 && rel.date_text)
        s->modified = xstrdup(rel.date_text);
    free(err);
    arena_free(a);
    free(text);
}

/* An npm packument URL split back into its registry (ending in '/') and
 * package name ("%2f" of a scope undone); false when the URL is not one
 * npm_packument_url() makes. */
static bool npm_split(const char *url, char **registry, char **name)
{
    const char *slash = strrchr(url, '/');
    if (!slash || !slash[1] || !strstr(url, "://"))
        return false;
    *registry = xstrndup(url, (size_t)(slash + 1 - url));
    strbuf sb = STRBUF_INIT;
    for (const char *p = slash + 1; *p; p++) {
        if (p[0] == '%' && p[1] == '2' && (p[2] == 'f' || p[2] == 'F')) {
            sb_addc(&sb, '/');
            p += 2;
        } else {
            sb_addc(&sb, *p);
        }
    }
    *name = sb_detach(&sb, NULL);
    char *again = npm_packument_url(*registry, *name);
    bool ok = strcmp(again, url) == 0;
    free(again);
    if (!ok) {
        free(*registry);
        free(*name);
        *registry = *name = NULL;
    }
    return ok;
}

static void npm_settle(ti_slot *s)
{
    const npm_packument *p = npm_loader_get(s->nl, s->npm_name);
    if (!p) {
        slot_fail(s, EL_INTERNAL, "fetch_failed", "the npm load did not finish", s->was->url, 0,
                  false);
        return;
    }
    if (p->code != EL_OK) {
        slot_failed(s, p->code, p->reason, p->message, p->url, p->status, p->retryable);
        return;
    }
    s->state = TI_OK;
    s->identity = xstrdup(p->etag ? p->etag : "");
    const char *mod = p->modified ? p->modified : p->last_modified;
    s->modified = mod ? xstrdup(mod) : NULL;
}

static void slot_clear(ti_slot *s)
{
    free(s->identity);
    free(s->modified);
    free(s->why);
    free(s->reason);
    free(s->message);
    free(s->url);
    free(s->npm_name);
}

void verb_inputs_free(verb_inputs *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_notes; i++)
        free(t->notes[i]);
    free(t->notes);
    arena_free(t->mem);
    free(t);
}

el_code verb_inputs_fetch(el_ctx *ctx, const el_cache_options *co, const lock_doc *lock,
                            verb_inputs **out)
{
    *out = NULL;
    verb_inputs *t = xcalloc(1, sizeof *t);
    t->mem = arena_new();
    size_t n = lock->n_inputs;
    if (n == 0) {
        *out = t;
        return EL_OK;
    }
    cache *c = cache_open(ctx, co);
    if (!c) {
        verb_inputs_free(t);
        return el_ctx_code(ctx);
    }
    ti_slot *slots = xcalloc(n, sizeof *slots);
    /* One npm loader per registry; the lock's own cutoff chose the full or
     * the abbreviated packument, so it chooses again. */
    npm_target nt;
    npm_target_for(&nt, lock->arch, lock->platform, lock->exclude_newer);
    ptrvec loaders = PTRVEC_INIT, registries = PTRVEC_INIT;
    for (size_t i = 0; i < n; i++) {
        ti_slot *s = &slots[i];
        const lock_input *in = &lock->inputs[i];
        s->was = in;
        const char *eco = in->ecosystem ? in->ecosystem : "";
        if (!in->url || !*in->url) {
            s->state = TI_SKIP;
            s->why = xstrdup("the lock names no URL");
        } else if (strcmp(eco, "pypi") == 0 || strcmp(eco, "deb") == 0) {
            bool py = eco[0] == 'p';
            cache_request rq = { 0 };
            rq.url = in->url;
            rq.accept = py ? PYPI_PAGE_ACCEPT : NULL;
            rq.policy = CACHE_REVALIDATE;
            rq.max_bytes = py ? PYPI_PAGE_MAX : TI_APT_RELEASE_MAX;
            rq.done = py ? pypi_done : apt_done;
            rq.user = s;
            cache_submit(c, &rq);
        } else if (strcmp(eco, "npm") == 0) {
            char *reg = NULL;
            if (!npm_split(in->url, &reg, &s->npm_name)) {
                s->state = TI_SKIP;
                s->why = xstrdup("not an npm packument URL");
                continue;
            }
            for (size_t k = 0; k < registries.len && !s->nl; k++)
                if (strcmp(registries.items[k], reg) == 0)
                    s->nl = loaders.items[k];
            if (!s->nl) {
                npm_loader_options no = { 0 };
                no.registry = reg;
                no.target = &nt;
                s->nl = npm_loader_new(c, &no);
                ptrvec_push(&loaders, s->nl);
                ptrvec_push(&registries, xstrdup(reg));
            }
            free(reg);
            npm_loader_submit(s->nl, s->npm_name);
        } else {
            s->state = TI_SKIP;
            s->why = xasprintf("unknown ecosystem `%s`", eco);
        }
    }
    el_code rc = cache_run(c, ctx);
    for (size_t i = 0; rc == EL_OK && i < n; i++)
        if (slots[i].nl && slots[i].state == TI_PENDING)
            npm_settle(&slots[i]);
    if (rc == EL_OK) {
        for (size_t i = 0; i < n; i++) {
            const ti_slot *s = &slots[i];
            if (s->state == TI_FAILED) {
                rc = el_fail(ctx, s->code, "%s", s->message);
                el_detail_str(ctx, "reason", s->reason);
                if (s->url)
                    el_detail_str(ctx, "url", s->url);
                if (s->status)
                    el_detail_int(ctx, "status", s->status);
                el_set_retryable(ctx, s->retryable);
                break;
            }
        }
    }
    if (rc == EL_OK) {
        t->fresh = arena_alloc(t->mem, (n + 1) * sizeof *t->fresh);
        t->gone = arena_alloc(t->mem, (n + 1) * sizeof *t->gone);
        ptrvec notes = PTRVEC_INIT;
        for (size_t i = 0; i < n; i++) {
            const ti_slot *s = &slots[i];
            const lock_input *was = s->was;
            lock_input now = { arena_strdup(t->mem, was->ecosystem ? was->ecosystem : ""),
                               arena_strdup(t->mem, was->url ? was->url : ""), NULL, NULL };
            if (s->state == TI_OK) {
                now.identity = arena_strdup(t->mem, s->identity);
                now.modified = s->modified ? arena_strdup(t->mem, s->modified) : NULL;
                t->fresh[t->n_fresh++] = now;
            } else if (s->state == TI_GONE) {
                now.identity = arena_strdup(t->mem, s->why);
                t->gone[t->n_gone++] = now;
            } else {
                ptrvec_push(&notes, xasprintf("input not compared: %s %s (%s)", now.ecosystem,
                                              now.url, s->why ? s->why : "not read"));
            }
        }
        t->n_notes = notes.len;
        t->notes = (char **)notes.items; /* taken: not released */
    }
    for (size_t i = 0; i < n; i++)
        slot_clear(&slots[i]);
    free(slots);
    for (size_t k = 0; k < loaders.len; k++) {
        npm_loader_free(loaders.items[k]);
        free(registries.items[k]);
    }
    ptrvec_release(&loaders);
    ptrvec_release(&registries);
    cache_close(c);
    if (rc != EL_OK) {
        verb_inputs_free(t);
        return rc;
    }
    *out = t;
    return EL_OK;
}


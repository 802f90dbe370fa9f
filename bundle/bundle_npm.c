/* bundle_npm.c — the npm part of a bundle: every packument the lock was
 * resolved from, as the registry sent it (asked for the way the resolver
 * asks: abbreviated, or full when the lock has a cutoff; tarball URLs a
 * mirror rewrote written canonical again, by indexes/npm), at
 * TREE/NAME/index.json (scoped: TREE/@scope/name/index.json), and each
 * locked tarball at TREE/NAME/-/FILE, found in the packument read now
 * (indexes/npm parses it), never from the lock's URL. */
#include <stdlib.h>
#include <string.h>

#include "bundle_internal.h"
#include "npm_index.h"
#include "npm_packument_write.h"

typedef struct doc_job {
    bundle_tree *t;
    const char *name;      /* "zod", "@types/node" */
    const char *url;       /* canonical packument URL */
} doc_job;

static char *canonical(void *user, const char *url)
{
    return cache_canonical_url(user, url);
}

static void submit_tarballs(bundle *b, const doc_job *j, const npm_packument *pk)
{
    const lock_doc *d = b->lock;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, "npm") != 0 || p->installed_in_base ||
            strcmp(p->name, j->name) != 0)
            continue;
        const npm_version *v = npm_packument_find(pk, p->version);
        for (size_t k = 0; k < p->n_artifacts; k++) {
            const lock_artifact *a = &p->artifacts[k];
            char *what = xasprintf("npm %s %s %s", p->name, p->version, a->file);
            if (!bundle_safe_name(a->file)) {
                bundle_unsafe(b, what, a->file);
            } else if (!v || !v->tarball) {
                if (bundle_claim(b)) {
                    el_fail(b->ctx, EL_ARTIFACT_MISSING, "%s: the packument %s no longer lists "
                            "version %s; re-resolve", what, j->url, p->version);
                    el_detail_str(b->ctx, "reason", "not_listed");
                    el_detail_str(b->ctx, "artifact", what);
                    el_detail_str(b->ctx, "source", j->url);
                }
            } else {
                char *rel = xasprintf("%s/%s/-/%s", j->t->dir, j->name, a->file);
                bundle_fetch bf = { .rel = rel, .url = v->tarball, .hash = a->hash,
                                    .what = what, .source = j->url, .artifact = true };
                bundle_submit(b, &bf);
                free(rel);
            }
            free(what);
        }
    }
}

static void doc_done(bundle *b, const cache_response *r, void *user)
{
    doc_job *j = user;
    char *rel = xasprintf("%s/%s/index.json", j->t->dir, j->name);
    size_t clen = 0;
    char *ctext = npm_packument_canonical_text((const char *)r->body, r->len, canonical, b->c,
                                               &clen);
    bool ok = ctext ? bundle_put(b, rel, ctext, clen) : bundle_put(b, rel, r->body, r->len);
    free(ctext);
    free(rel);
    if (!ok)
        return;
    b->st->documents++;
    char *registry = xasprintf("%s/", j->t->canonical);
    char *served = cache_served_url(b->c, registry);
    npm_parse_options po = { .name = j->name, .registry = registry,
                             .served_base = strcmp(served, registry) != 0 ? served : NULL,
                             .canonical_url = canonical, .canonical_user = b->c };
    npm_packument *pk = NULL;
    const char *reason = NULL;
    char *err = NULL;
    if (npm_packument_parse((const char *)r->body, r->len, &po, &pk, &reason, &err) != 0) {
        if (bundle_claim(b)) {
            el_fail(b->ctx, EL_PACKAGE_NOT_FOUND, "%s (%s)", err, j->url);
            el_detail_str(b->ctx, "reason", reason);
            el_detail_str(b->ctx, "url", j->url);
        }
    } else {
        submit_tarballs(b, j, pk);
    }
    npm_packument_free(pk);
    free(err);
    free(served);
    free(registry);
}

/* "<registry>/<name>" with a scope's '/' written %2f: the registry and the
 * name, or false. */
static bool split_url(arena *a, const char *url, const char **registry, const char **name)
{
    const char *slash = strrchr(url, '/');
    if (!slash || !slash[1])
        return false;
    const char *last = slash + 1;
    *registry = arena_strndup(a, url, (size_t)(slash - url));
    if (last[0] == '@') {
        const char *enc = strstr(last, "%2f");
        if (!enc)
            enc = strstr(last, "%2F");
        if (!enc)
            return false;
        char *n = arena_sprintf(a, "%.*s/%s", (int)(enc - last), last, enc + 3);
        *name = n;
        return bundle_safe_name(arena_strndup(a, n, (size_t)(enc - last))) &&
               bundle_safe_name(enc + 3);
    }
    *name = arena_strdup(a, last);
    return bundle_safe_name(last);
}

void bundle_npm_submit(bundle *b)
{
    const lock_doc *d = b->lock;
    const char *accept = d->exclude_newer ? NPM_ACCEPT_FULL : NPM_ACCEPT_ABBREVIATED;
    for (size_t i = 0; i < d->n_inputs; i++) {
        const lock_input *in = &d->inputs[i];
        if (strcmp(in->ecosystem, "npm") != 0)
            continue;
        const char *registry, *name;
        if (!split_url(b->a, in->url, &registry, &name)) {
            bundle_unsafe(b, "an npm input", in->url);
            continue;
        }
        doc_job *j = arena_alloc(b->a, sizeof *j);
        j->t = bundle_tree_for(b, "npm", registry);
        j->name = name;
        j->url = arena_strdup(b->a, in->url);
        char *what = xasprintf("the npm packument of %s", name);
        bundle_submit_doc(b, in->url, accept, NPM_PACKUMENT_MAX_BYTES, what, false, doc_done, j);
        free(what);
    }
}

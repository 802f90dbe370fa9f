/* bundle_pypi.c — the PyPI part of a bundle: for every project page the
 * lock was resolved from, the page again (PEP 691 JSON and PEP 503 HTML,
 * written by indexes/pypi from the records it read, every file the page
 * offered, linked relatively), the locked files and every `.metadata` file
 * the page offers, under TREE/files/NAME/. Download URLs come from the page
 * read now, never from the lock (a format-2 lock has none) — except for
 * the packages of a lock read from a uv.lock, fetched by the URLs uv.lock
 * records, with a page listing only them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle_internal.h"
#include "pypi_page_write.h"

typedef struct page_job {
    bundle_tree *t;
    const char *name;      /* PEP 503 normalized, as in the input URL */
    const char *page_url;  /* canonical */
} page_job;

/* A file name as one URL path segment (RFC 3986 unreserved kept, and the
 * `+` and `!` wheel and sdist names carry; everything else %XX). */
static char *url_segment(const char *s)
{
    strbuf sb = STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~+!", *p))
            sb_addc(&sb, (char)*p);
        else
            sb_addf(&sb, "%%%02X", *p);
    }
    return sb_detach(&sb, NULL);
}

static const pypi_file *page_find(const pypi_page *pg, const char *filename)
{
    for (size_t i = 0; i < pg->nfiles; i++)
        if (strcmp(pg->files[i].filename, filename) == 0)
            return &pg->files[i];
    return NULL;
}

static bool same_index(const char *source, const char *canonical)
{
    size_t n = strlen(source);
    while (n && source[n - 1] == '/')
        n--;
    return strlen(canonical) == n && strncmp(source, canonical, n) == 0;
}

static void listing_fail(bundle *b, const char *reason, const char *what, const char *page,
                         const char *fmt_detail)
{
    if (!bundle_claim(b))
        return;
    el_fail(b->ctx, EL_ARTIFACT_MISSING, "%s: %s %s; re-resolve, or bundle the lock that was "
            "made from this page", what, page, fmt_detail);
    el_detail_str(b->ctx, "reason", reason);
    el_detail_str(b->ctx, "artifact", what);
    el_detail_str(b->ctx, "source", page);
}

/* The locked files of every package this page serves. */
static void submit_locked(bundle *b, const page_job *j, const pypi_page *pg)
{
    const lock_doc *d = b->lock;
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, "pypi") != 0 || p->installed_in_base ||
            strcmp(p->name, j->name) != 0 || !p->source || !same_index(p->source, j->t->canonical))
            continue;
        for (size_t k = 0; k < p->n_artifacts; k++) {
            const lock_artifact *a = &p->artifacts[k];
            char *what = xasprintf("pypi %s %s %s", p->name, p->version, a->file);
            const pypi_file *f = page_find(pg, a->file);
            if (!bundle_safe_name(a->file)) {
                bundle_unsafe(b, what, a->file);
            } else if (!f || f->bad_url) {
                listing_fail(b, "not_listed", what, j->page_url, "no longer lists it");
            } else if (f->sha256 && (strncmp(a->hash, "sha256:", 7) != 0 ||
                                     strcmp(f->sha256, a->hash + 7) != 0)) {
                char *why = xasprintf("lists it with sha256:%s, the lock has %s", f->sha256,
                                      a->hash);
                listing_fail(b, "index_changed", what, j->page_url, why);
                free(why);
            } else {
                char *rel = xasprintf("%s/files/%s/%s", j->t->dir, j->name, a->file);
                bundle_fetch bf = { .rel = rel, .url = f->read_url ? f->read_url : f->url,
                                    .hash = a->hash, .what = what, .source = j->page_url,
                                    .artifact = true };
                bundle_submit(b, &bf);
                free(rel);
            }
            free(what);
        }
    }
}

/* Every .metadata the page offers: a re-resolution reads them for
 * versions the lock did not choose too. A 404 is what the original saw. */
static void submit_metadata(bundle *b, const page_job *j, const pypi_page *pg)
{
    for (size_t i = 0; i < pg->nfiles; i++) {
        const pypi_file *f = &pg->files[i];
        if (!f->core_metadata || f->bad_url || !bundle_safe_name(f->filename))
            continue;
        char *rel = xasprintf("%s/files/%s/%s.metadata", j->t->dir, j->name, f->filename);
        char *url = xasprintf("%s.metadata", f->read_url ? f->read_url : f->url);
        char *hash = f->core_metadata_sha256 ? xasprintf("sha256:%s", f->core_metadata_sha256)
                                             : NULL;
        char *what = xasprintf("pypi %s %s.metadata", j->name, f->filename);
        bundle_fetch bf = { .rel = rel, .url = url, .hash = hash, .what = what,
                            .source = j->page_url, .optional = true, .metadata = true };
        bundle_submit(b, &bf);
        free(what);
        free(hash);
        free(url);
        free(rel);
    }
}

/* DIR_REL/index.json and DIR_REL/index.html, the two forms of one page;
 * the buffers are released. */
static void put_page(bundle *b, const char *dir_rel, strbuf *js, strbuf *html)
{
    char *rj = xasprintf("%s/index.json", dir_rel);
    char *rh = xasprintf("%s/index.html", dir_rel);
    if (bundle_put(b, rj, js->buf, js->len) && bundle_put(b, rh, html->buf, html->len))
        b->st->documents++;
    free(rj);
    free(rh);
    sb_release(js);
    sb_release(html);
}

static void write_page(bundle *b, const page_job *j, const pypi_page *pg)
{
    char **hrefs = xcalloc(pg->nfiles + 1, sizeof *hrefs);
    for (size_t i = 0; i < pg->nfiles; i++) {
        const pypi_file *f = &pg->files[i];
        if (f->bad_url || !bundle_safe_name(f->filename)) {
            hrefs[i] = xstrdup(f->url); /* not carried: the link as read */
        } else {
            char *seg = url_segment(f->filename);
            hrefs[i] = xasprintf("../../files/%s/%s", j->name, seg);
            free(seg);
        }
    }
    strbuf js = STRBUF_INIT, html = STRBUF_INIT;
    pypi_page_write_json(j->name, pg->files, pg->nfiles, (const char *const *)hrefs, &js);
    pypi_page_write_html(j->name, pg->files, pg->nfiles, (const char *const *)hrefs, &html);
    char *dir = xasprintf("%s/simple/%s", j->t->dir, j->name);
    put_page(b, dir, &js, &html);
    free(dir);
    for (size_t i = 0; i < pg->nfiles; i++)
        free(hrefs[i]);
    free(hrefs);
}

static void page_done(bundle *b, const cache_response *r, void *user)
{
    page_job *j = user;
    pypi_page pg;
    el_ctx *pctx = el_ctx_new();
    if (pypi_page_read(pctx, b->c, r, b->a, &pg) != EL_OK) {
        if (bundle_claim(b)) {
            el_fail(b->ctx, el_ctx_code(pctx), "%s", el_ctx_message(pctx));
            el_detail_str(b->ctx, "reason", "invalid_page");
            el_detail_str(b->ctx, "url", j->page_url);
        }
        el_ctx_free(pctx);
        return;
    }
    el_ctx_free(pctx);
    write_page(b, j, &pg);
    ptrvec_push(&j->t->names, (void *)j->name);
    submit_locked(b, j, &pg);
    submit_metadata(b, j, &pg);
}

/* Splits a page URL "<index>/<name>/" into its parts (in the arena). */
static bool split_page_url(arena *a, const char *url, const char **index, const char **name)
{
    size_t n = strlen(url);
    if (n < 3 || url[n - 1] != '/')
        return false;
    const char *end = url + n - 1, *start = end;
    while (start > url && start[-1] != '/')
        start--;
    if (start == end || start == url)
        return false;
    *name = arena_strndup(a, start, (size_t)(end - start));
    *index = arena_strndup(a, url, (size_t)(start - url - 1));
    return bundle_safe_name(*name);
}

static void submit_page(bundle *b, const char *index, const char *name)
{
    bundle_tree *t = bundle_tree_for(b, "pypi", index);
    page_job *j = arena_alloc(b->a, sizeof *j);
    j->t = t;
    j->name = arena_strdup(b->a, name);
    j->page_url = arena_sprintf(b->a, "%s/%s/", t->canonical, name);
    char *what = xasprintf("the PyPI page of %s", name);
    bundle_submit_doc(b, j->page_url, PYPI_PAGE_ACCEPT, PYPI_PAGE_MAX, what, false, page_done, j);
    free(what);
}

/* A package read from the uv.lock the lock records (dependencyFile): its
 * files are fetched by the URLs uv.lock gives (through --mirror), and its
 * page lists exactly them. No index page is read: the site that resolved
 * it asked none (docs/bundle.md). */
static bool from_uv_lock(const lock_doc *d, const lock_package *p)
{
    if (!d->dep_lock || !p->n_artifacts)
        return false;
    for (size_t k = 0; k < p->n_artifacts; k++)
        if (!p->artifacts[k].url)
            return false;
    return true;
}

static void submit_uv_locked(bundle *b, const lock_package *p)
{
    bundle_tree *t = bundle_tree_for(b, "pypi", p->source);
    pypi_file *files = arena_alloc(b->a, (p->n_artifacts + 1) * sizeof *files);
    char **hrefs = xcalloc(p->n_artifacts + 1, sizeof *hrefs);
    for (size_t k = 0; k < p->n_artifacts; k++) {
        const lock_artifact *a = &p->artifacts[k];
        char *what = xasprintf("pypi %s %s %s", p->name, p->version, a->file);
        bool sha = strncmp(a->hash, "sha256:", 7) == 0;
        files[k] = (pypi_file){ .filename = a->file, .url = a->url,
                                .sha256 = sha ? a->hash + 7 : NULL,
                                .size = a->size ? (int64_t)a->size : -1,
                                .upload_s = INT64_MIN };
        char *seg = url_segment(a->file);
        hrefs[k] = xasprintf("../../files/%s/%s", p->name, seg);
        free(seg);
        if (!bundle_safe_name(a->file) || !bundle_safe_name(p->name)) {
            bundle_unsafe(b, what, a->file);
        } else {
            char *rel = xasprintf("%s/files/%s/%s", t->dir, p->name, a->file);
            bundle_fetch bf = { .rel = rel, .url = a->url, .hash = a->hash, .what = what,
                                .source = "uv.lock", .artifact = true };
            bundle_submit(b, &bf);
            free(rel);
        }
        free(what);
    }
    strbuf js = STRBUF_INIT, html = STRBUF_INIT;
    pypi_page_write_json(p->name, files, p->n_artifacts, (const char *const *)hrefs, &js);
    pypi_page_write_html(p->name, files, p->n_artifacts, (const char *const *)hrefs, &html);
    char *dir = xasprintf("%s/simple/%s", t->dir, p->name);
    put_page(b, dir, &js, &html);
    free(dir);
    for (size_t k = 0; k < p->n_artifacts; k++)
        free(hrefs[k]);
    free(hrefs);
    ptrvec_push(&t->names, (void *)arena_strdup(b->a, p->name));
}

void bundle_pypi_submit(bundle *b)
{
    const lock_doc *d = b->lock;
    ptrvec seen = PTRVEC_INIT; /* page URLs submitted */
    for (size_t i = 0; i < d->n_inputs; i++) {
        const lock_input *in = &d->inputs[i];
        const char *index, *name;
        if (strcmp(in->ecosystem, "pypi") != 0)
            continue;
        if (!split_page_url(b->a, in->url, &index, &name)) {
            bundle_unsafe(b, "a PyPI input", in->url);
            continue;
        }
        ptrvec_push(&seen, (void *)in->url);
        submit_page(b, index, name); /* inputs are unique */
    }
    /* A package whose page is not among the inputs (an older lock). */
    for (size_t i = 0; i < d->n_packages; i++) {
        const lock_package *p = &d->packages[i];
        if (strcmp(p->ecosystem, "pypi") != 0 || p->installed_in_base || !p->source)
            continue;
        if (from_uv_lock(d, p)) {
            submit_uv_locked(b, p);
            continue;
        }
        char *url = pypi_page_url(p->source, p->name);
        bool have = false;
        for (size_t k = 0; k < seen.len && !have; k++)
            have = strcmp(seen.items[k], url) == 0;
        const char *index, *name;
        if (!have && split_page_url(b->a, url, &index, &name))
            submit_page(b, index, name);
        free(url);
    }
    ptrvec_release(&seen);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void bundle_pypi_finish(bundle *b)
{
    for (size_t i = 0; i < b->trees.len; i++) {
        bundle_tree *t = b->trees.items[i];
        if (strcmp(t->ecosystem, "pypi") != 0)
            continue;
        qsort(t->names.items, t->names.len, sizeof *t->names.items, cmp_str);
        strbuf js = STRBUF_INIT, html = STRBUF_INIT;
        pypi_index_write_json((const char *const *)t->names.items, t->names.len, &js);
        pypi_index_write_html((const char *const *)t->names.items, t->names.len, &html);
        char *dir = xasprintf("%s/simple", t->dir);
        put_page(b, dir, &js, &html);
        free(dir);
    }
}

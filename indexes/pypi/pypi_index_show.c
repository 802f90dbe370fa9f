/* pypi_index_show.c — `envlock index show pypi:NAME`: loads one project
 * through the loader (dependency metadata for the newest PYPI_SHOW_WINDOW
 * usable versions; older usable versions are listed without it) and renders
 * the candidates, newest first, then the excluded versions with reasons, as
 * text or as one JSON object of the same structure. Owns presentation only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "pypi_index.h"

static const char *kind_name(pypi_kind k)
{
    return k == PYPI_WHEEL ? "wheel" : k == PYPI_SDIST ? "sdist" : "other";
}

static json_object *jstr_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

/* A URL as shown: without userinfo (cache_url_redact), or NULL. */
static json_object *jurl(const char *u)
{
    if (!u)
        return NULL;
    char *r = cache_url_redact(u);
    json_object *o = json_object_new_string(r);
    free(r);
    return o;
}

/* "        URL\n", the URL without userinfo. */
static void add_url_line(strbuf *out, const char *u)
{
    char *r = cache_url_redact(u);
    sb_addf(out, "        %s\n", r);
    free(r);
}

static json_object *artifacts_json(const pypi_candidate *c)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < c->nartifacts; i++) {
        const pypi_artifact *a = &c->artifacts[i];
        const pypi_file *f = a->file;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "filename", json_object_new_string(f->filename));
        json_object_object_add(o, "url", jurl(f->url));
        json_object_object_add(o, "sha256", jstr_or_null(f->sha256));
        json_object_object_add(o, "size", f->size >= 0 ? json_object_new_int64(f->size) : NULL);
        json_object_object_add(o, "upload_time", jstr_or_null(f->upload_time));
        json_object_object_add(o, "kind", json_object_new_string(kind_name(a->kind)));
        json_object_object_add(o, "chosen", json_object_new_boolean((long)i == c->chosen));
        json_object_object_add(o, "unusable", jstr_or_null(a->dropped));
        if (f->yanked)
            json_object_object_add(o, "yanked", f->yanked_reason
                                                    ? json_object_new_string(f->yanked_reason)
                                                    : json_object_new_boolean(true));
        json_object_array_add(arr, o);
    }
    return arr;
}

static void render_json(const pypi_project *p, const pypi_target *t, strbuf *out)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "ecosystem", json_object_new_string("pypi"));
    json_object_object_add(root, "name", json_object_new_string(p->name));
    json_object_object_add(root, "index", jurl(p->index));
    json_object_object_add(root, "page_url", jurl(p->page_url));
    json_object_object_add(root, "format",
                           json_object_new_string(p->format == PYPI_PAGE_JSON ? "json" : "html"));
    json_object_object_add(root, "from_cache", json_object_new_boolean(p->from_cache));
    json_object *tg = json_object_new_object();
    json_object_object_add(tg, "python", json_object_new_string(t->owned_[0]));
    json_object_object_add(tg, "platform", json_object_new_string(pypi_tags_platform(t->tags)));
    json_object_object_add(tg, "exclude_newer", jstr_or_null(t->exclude_newer));
    json_object_object_add(root, "target", tg);
    json_object *cands = json_object_new_array(), *excl = json_object_new_array();
    for (size_t i = 0; i < p->ncands; i++) {
        const pypi_candidate *c = &p->cands[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "version", json_object_new_string(c->version));
        if (c->excluded) {
            json_object_object_add(o, "reason", json_object_new_string(c->excluded));
            json_object_object_add(o, "message", json_object_new_string(c->why));
        }
        json_object_object_add(o, "upload_time", jstr_or_null(c->upload_time));
        json_object_object_add(o, "requires_python", jstr_or_null(c->requires_python));
        json_object_object_add(o, "yanked", c->yanked && c->yanked_reason
                                                 ? json_object_new_string(c->yanked_reason)
                                                 : json_object_new_boolean(c->yanked));
        if (!c->excluded) {
            json_object_object_add(o, "metadata", jstr_or_null(c->meta_source));
            json_object *deps = NULL, *extras = NULL;
            if (c->meta == PYPI_META_LOADED) {
                deps = json_object_new_array();
                for (size_t k = 0; k < c->ndeps; k++)
                    json_object_array_add(deps, json_object_new_string(c->deps[k].text));
                extras = json_object_new_array();
                for (size_t k = 0; k < c->nextras; k++)
                    json_object_array_add(extras, json_object_new_string(c->extras[k]));
            }
            json_object_object_add(o, "requires_dist", deps);
            json_object_object_add(o, "extras", extras);
            json_object_object_add(o, "chosen", c->chosen >= 0
                                                    ? json_object_new_string(
                                                          c->artifacts[c->chosen].file->filename)
                                                    : NULL);
        }
        json_object_object_add(o, "artifacts", artifacts_json(c));
        json_object_array_add(c->excluded ? excl : cands, o);
    }
    json_object_object_add(root, "candidates", cands);
    json_object_object_add(root, "excluded", excl);
    sb_adds(out, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

/* One usable version: upload time, Requires-Python, its dependencies and
 * extras (or why they were not read), and its files, the chosen one
 * marked. */
static void render_usable(const pypi_candidate *c, strbuf *out)
{
    sb_addf(out, "  %s", c->version);
    if (c->upload_time)
        sb_addf(out, "  uploaded %s", c->upload_time);
    if (c->requires_python)
        sb_addf(out, "  requires-python %s", c->requires_python);
    sb_adds(out, "\n");
    if (c->meta == PYPI_META_LOADED) {
        sb_addf(out, "    dependencies (from the %s):%s\n",
                strcmp(c->meta_source, "metadata-file") == 0 ? ".metadata file"
                : strcmp(c->meta_source, "wheel") == 0       ? "wheel's METADATA"
                                                             : "sdist's PKG-INFO",
                c->ndeps ? "" : " none");
        for (size_t k = 0; k < c->ndeps; k++)
            sb_addf(out, "      %s\n", c->deps[k].text);
        if (c->nextras) {
            sb_adds(out, "    extras:");
            for (size_t k = 0; k < c->nextras; k++)
                sb_addf(out, "%s %s", k ? "," : "", c->extras[k]);
            sb_adds(out, "\n");
        }
    } else {
        sb_addf(out, "    dependencies: not read (only the newest %d usable versions' are)\n",
                PYPI_SHOW_WINDOW);
    }
    for (size_t k = 0; k < c->nartifacts; k++) {
        const pypi_artifact *a = &c->artifacts[k];
        bool chosen = (long)k == c->chosen;
        sb_addf(out, "    %s %s", chosen ? "*" : "-", a->file->filename);
        if (chosen && c->wheels_missed)
            sb_addf(out, "  (chosen: %s)", c->wheels_missed); /* the sdist fallback */
        else if (chosen)
            sb_adds(out, "  (chosen)");
        else if (a->dropped)
            sb_addf(out, "  (unusable: %s)", a->dropped);
        sb_adds(out, "\n");
        add_url_line(out, a->file->url);
        sb_addf(out, "        sha256:%s", a->file->sha256 ? a->file->sha256 : "(none given)");
        if (a->file->size >= 0)
            sb_addf(out, "  %lld bytes", (long long)a->file->size);
        sb_adds(out, "\n");
    }
}

static void render_text(const pypi_project *p, const pypi_target *t, strbuf *out)
{
    char *index = cache_url_redact(p->index ? p->index : "?");
    sb_addf(out, "pypi:%s from %s (%s page)\n", p->name, index,
            p->format == PYPI_PAGE_JSON ? "PEP 691 JSON" : "PEP 503 HTML");
    free(index);
    sb_addf(out, "target: CPython %s on %s", t->owned_[0], pypi_tags_platform(t->tags));
    if (t->exclude_newer)
        sb_addf(out, ", files uploaded after %s or without an upload time excluded",
                t->exclude_newer);
    sb_adds(out, "\n");
    size_t nusable = 0, nexcl = 0;
    for (size_t i = 0; i < p->ncands; i++)
        *(p->cands[i].excluded ? &nexcl : &nusable) += 1;
    sb_addf(out, "\nusable versions (%zu, newest first):\n", nusable);
    if (!nusable)
        sb_adds(out, "  (none)\n");
    for (size_t i = 0; i < p->ncands; i++)
        if (!p->cands[i].excluded)
            render_usable(&p->cands[i], out);
    sb_addf(out, "\nexcluded versions (%zu):\n", nexcl);
    if (!nexcl)
        sb_adds(out, "  (none)\n");
    for (size_t i = 0; i < p->ncands; i++) {
        const pypi_candidate *c = &p->cands[i];
        if (!c->excluded)
            continue;
        /* Sentences that already open with their id ("yanked: broken ABI",
         * "yanked (no reason given)") are printed alone, not "yanked: yanked: ...". */
        size_t idl = strlen(c->excluded);
        bool leads = c->why && strncmp(c->why, c->excluded, idl) == 0 &&
                     (c->why[idl] == ':' || c->why[idl] == ' ');
        if (leads)
            sb_addf(out, "  %s  %s\n", c->version, c->why);
        else
            sb_addf(out, "  %s  %s: %s\n", c->version, c->excluded, c->why ? c->why : "");
    }
}

el_code pypi_index_show(el_ctx *ctx, cache *c, const el_index_query *q, bool json, strbuf *out)
{
    const char *colon = strchr(q->package, ':');
    const char *name = colon ? colon + 1 : q->package;
    if (!pypi_name_valid(name)) {
        el_fail(ctx, EL_SPEC_INVALID,
                "`%s` is not a PyPI project name (letters, digits, and `-_.` inside)", name);
        el_detail_str(ctx, "reason", "invalid_query");
        el_detail_str(ctx, "package", q->package);
        return EL_SPEC_INVALID;
    }
    pypi_target t;
    el_code rc = pypi_target_init(ctx, &t, q->python_version, q->platform, q->exclude_newer);
    if (rc != EL_OK)
        return rc;
    t.build = (pypi_build_opts){ q->no_build, q->only_binary, q->n_only_binary, q->no_binary,
                                 q->n_no_binary };
    pypi_loader *l = pypi_loader_new(c, &t, q->pypi_indexes, q->n_pypi_indexes);
    pypi_loader_submit(l, name, PYPI_SHOW_WINDOW);
    rc = cache_run(c, ctx);
    if (rc == EL_OK) {
        const pypi_project *p = pypi_loader_get(l, name);
        if (p->code != EL_OK) {
            rc = pypi_project_fail(ctx, p);
        } else if (json) {
            render_json(p, &t, out);
        } else {
            render_text(p, &t, out);
        }
    }
    pypi_loader_free(l);
    pypi_target_clear(&t);
    return rc;
}

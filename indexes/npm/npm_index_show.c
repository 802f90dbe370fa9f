/* npm_index_show.c — `envlock index show npm:NAME`: one packument loaded
 * through the loader and written out for a person (dist-tags, candidates
 * newest first with everything the resolver will use, excluded versions
 * with their reasons) or as one JSON object for a program. Owns only the
 * rendering; what a field means is decided in npm_packument.c. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "npm_index.h"
#include "npm_spec.h"

static json_object *jstr_or_null(const char *s) { return s ? json_object_new_string(s) : NULL; }

static json_object *jlist(const char *const *l, size_t n)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_string(l[i]));
    return a;
}

static const char *spec_kind_name(npm_dep_spec k)
{
    switch (k) {
    case NPM_SPEC_IS_RANGE: return "range";
    case NPM_SPEC_IS_TAG: return "tag";
    case NPM_SPEC_IS_ALIAS: return "alias";
    case NPM_SPEC_IS_OTHER: return "other";
    }
    return "other";
}

static json_object *version_json(const npm_packument *p, const npm_version *v)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "version", json_object_new_string(v->version));
    json_object_object_add(o, "time", jstr_or_null(v->time));
    json_object *tags = json_object_new_array();
    for (size_t i = 0; i < p->ntags; i++)
        if (strcmp(p->tags[i].version, v->version) == 0)
            json_object_array_add(tags, json_object_new_string(p->tags[i].tag));
    json_object_object_add(o, "dist-tags", tags);
    static const char *const keys[] = { "dependencies", "optionalDependencies", "peerDependencies",
                                        "peerDependencies" };
    json_object *maps[3] = { json_object_new_object(), json_object_new_object(),
                             json_object_new_object() };
    json_object *peer_opt = json_object_new_array();
    json_object *parsed = json_object_new_array();
    for (size_t i = 0; i < v->ndeps; i++) {
        const npm_dep *d = &v->deps[i];
        int k = d->kind == NPM_DEP_PEER_OPTIONAL ? 2 : (int)d->kind;
        json_object_object_add(maps[k], d->name, json_object_new_string(d->spec));
        if (d->kind == NPM_DEP_PEER_OPTIONAL)
            json_object_array_add(peer_opt, json_object_new_string(d->name));
        json_object *pd = json_object_new_object();
        json_object_object_add(pd, "name", json_object_new_string(d->name));
        json_object_object_add(pd, "kind", json_object_new_string(keys[d->kind]));
        if (d->kind == NPM_DEP_PEER_OPTIONAL)
            json_object_object_add(pd, "optional", json_object_new_boolean(1));
        json_object_object_add(pd, "spec", json_object_new_string(d->spec));
        json_object_object_add(pd, "type", json_object_new_string(spec_kind_name(d->spec_kind)));
        const npm_range *range = npm_dep_range(d);
        if (range)
            json_object_object_add(pd, "range", json_object_new_string(
                                                    npm_range_format(range)[0]
                                                        ? npm_range_format(range)
                                                        : "*"));
        if (d->alias_name)
            json_object_object_add(pd, "alias", json_object_new_string(d->alias_name));
        json_object_array_add(parsed, pd);
    }
    for (int k = 0; k < 3; k++)
        json_object_object_add(o, keys[k], maps[k]);
    json_object_object_add(o, "peerOptional", peer_opt);
    json_object_object_add(o, "parsedDependencies", parsed);
    if (v->bundle_all)
        json_object_object_add(o, "bundleDependencies", json_object_new_boolean(1));
    else
        json_object_object_add(o, "bundleDependencies", jlist(v->bundled, v->nbundled));
    json_object_object_add(o, "deprecated", jstr_or_null(v->deprecated));
    json_object_object_add(o, "os", jlist(v->os, v->nos));
    json_object_object_add(o, "cpu", jlist(v->cpu, v->ncpu));
    if (v->nlibc)
        json_object_object_add(o, "libc", jlist(v->libc, v->nlibc));
    json_object *eng = json_object_new_object();
    for (size_t i = 0; i < v->nengines; i++)
        json_object_object_add(eng, v->engines[i].name, json_object_new_string(v->engines[i].range));
    json_object_object_add(o, "engines", eng);
    json_object_object_add(o, "integrity", jstr_or_null(v->integrity));
    json_object_object_add(o, "shasum", jstr_or_null(v->shasum));
    /* Only the canonical URL: the JSON is what tools (and locks) read, and
     * must not depend on which mirror served it. The served URL is in the
     * text listing, for people. */
    json_object_object_add(o, "tarball", jstr_or_null(v->tarball));
    json_object_object_add(o, "hasInstallScript",
                           json_object_new_boolean(!!(v->flags & NPM_FLAG_INSTALL_SCRIPT)));
    json_object *flags = json_object_new_array();
    for (unsigned i = 0; i < NPM_FLAG_COUNT; i++)
        if (v->flags & (1u << i))
            json_object_array_add(flags, json_object_new_string(npm_flag_name(i)));
    json_object_object_add(o, "flags", flags);
    return o;
}

static void render_json(const npm_packument *p, const npm_target *t, strbuf *out)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "ecosystem", json_object_new_string("npm"));
    json_object_object_add(o, "name", json_object_new_string(p->name));
    /* Shown without userinfo (a registry URL may carry user:password). */
    char *registry = cache_url_redact(p->registry), *url = cache_url_redact(p->url);
    json_object_object_add(o, "registry", json_object_new_string(registry));
    json_object_object_add(o, "url", json_object_new_string(url));
    free(registry);
    free(url);
    json_object_object_add(o, "document", json_object_new_string(t->cutoff ? "full" : "abbreviated"));
    json_object_object_add(o, "publishTimes", json_object_new_boolean(p->full));
    json_object_object_add(o, "etag", jstr_or_null(p->etag));
    json_object_object_add(o, "lastModified", jstr_or_null(p->last_modified));
    json_object_object_add(o, "modified", jstr_or_null(p->modified));
    json_object *tj = json_object_new_object();
    json_object_object_add(tj, "os", json_object_new_string(t->os));
    json_object_object_add(tj, "cpu", json_object_new_string(t->cpu));
    json_object_object_add(tj, "libc", json_object_new_string(t->libc));
    json_object_object_add(tj, "node", jstr_or_null(t->node_version));
    json_object_object_add(tj, "excludeNewer", jstr_or_null(t->cutoff));
    json_object_object_add(o, "target", tj);
    json_object *tags = json_object_new_object();
    for (size_t i = 0; i < p->ntags; i++)
        json_object_object_add(tags, p->tags[i].tag, json_object_new_string(p->tags[i].version));
    json_object_object_add(o, "dist-tags", tags);
    json_object *cand = json_object_new_array();
    for (size_t i = 0; i < p->ncandidates; i++)
        json_object_array_add(cand, version_json(p, &p->versions[i]));
    json_object_object_add(o, "candidates", cand);
    json_object *ex = json_object_new_array();
    for (size_t i = p->ncandidates; i < p->nversions; i++) {
        const npm_version *v = &p->versions[i];
        json_object *e = json_object_new_object();
        json_object_object_add(e, "version", json_object_new_string(v->version));
        json_object_object_add(e, "reason", json_object_new_string(npm_exclusion_id(v->excluded)));
        json_object_object_add(e, "message", json_object_new_string(v->why ? v->why : ""));
        json_object_object_add(e, "time", jstr_or_null(v->time));
        json_object_array_add(ex, e);
    }
    json_object_object_add(o, "excluded", ex);
    sb_adds(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

static void list_line(strbuf *out, const char *label, const char *const *l, size_t n)
{
    if (!n)
        return;
    sb_addf(out, "  %s:", label);
    for (size_t i = 0; i < n; i++)
        sb_addf(out, " %s", l[i]);
    sb_addc(out, '\n');
}

/* One candidate version: its tags, dependencies by kind, bundled ones,
 * engines, platform lists, integrity, tarball, deprecation and flags. */
static void render_candidate(const npm_packument *p, const npm_version *v, strbuf *out)
{
    sb_addf(out, "%s", v->version);
    for (size_t k = 0; k < p->ntags; k++)
        if (strcmp(p->tags[k].version, v->version) == 0)
            sb_addf(out, " [%s]", p->tags[k].tag);
    if (v->time)
        sb_addf(out, "  published %s", v->time);
    sb_addc(out, '\n');
    for (int kind = NPM_DEP_PROD; kind <= NPM_DEP_PEER_OPTIONAL; kind++) {
        size_t n = 0;
        for (size_t d = 0; d < v->ndeps; d++) {
            if ((int)v->deps[d].kind != kind)
                continue;
            if (n++ == 0)
                sb_addf(out, "  %s:", npm_dep_kind_name((npm_dep_kind)kind));
            else
                sb_addc(out, ',');
            sb_addf(out, " %s %s", v->deps[d].name, v->deps[d].spec);
        }
        if (n)
            sb_addc(out, '\n');
    }
    if (v->bundle_all)
        sb_adds(out, "  bundleDependencies: all dependencies\n");
    list_line(out, "bundleDependencies", v->bundled, v->nbundled);
    if (v->nengines) {
        sb_adds(out, "  engines:");
        for (size_t e = 0; e < v->nengines; e++)
            sb_addf(out, "%s %s %s", e ? "," : "", v->engines[e].name, v->engines[e].range);
        sb_addc(out, '\n');
    }
    list_line(out, "os", v->os, v->nos);
    list_line(out, "cpu", v->cpu, v->ncpu);
    list_line(out, "libc", v->libc, v->nlibc);
    sb_addf(out, "  integrity: %s%s\n", v->integrity ? v->integrity : "none",
            (v->flags & NPM_FLAG_INTEGRITY_SHA1) ? " (from dist.shasum: sha1 only)" : "");
    sb_addf(out, "  tarball: %s\n", v->tarball);
    if (v->tarball_served)
        sb_addf(out, "  tarball as served: %s\n", v->tarball_served);
    if (v->deprecated)
        sb_addf(out, "  deprecated: %s\n", v->deprecated[0] ? v->deprecated : "(no message)");
    bool any = false;
    for (unsigned f = 0; f < NPM_FLAG_COUNT; f++)
        if (v->flags & (1u << f)) {
            sb_addf(out, "%s %s", any ? "," : "  flags:", npm_flag_name(f));
            any = true;
        }
    if (any)
        sb_addc(out, '\n');
}

static void render_text(const npm_packument *p, const npm_target *t, strbuf *out)
{
    char *url = cache_url_redact(p->url);
    sb_addf(out, "npm:%s from %s (%s packument%s", p->name, url,
            t->cutoff ? "full" : "abbreviated", p->full ? " with publish times" : "");
    free(url);
    if (p->etag)
        sb_addf(out, ", etag %s", p->etag);
    if (p->modified)
        sb_addf(out, ", modified %s", p->modified);
    sb_adds(out, ")\n");
    sb_addf(out, "target: %s %s %s, node %s", t->os, t->cpu, t->libc,
            t->node_version ? t->node_version : "unknown (engines recorded, not checked)");
    if (t->cutoff)
        sb_addf(out, ", published no later than %s", t->cutoff);
    sb_adds(out, "\ndist-tags:");
    for (size_t i = 0; i < p->ntags; i++)
        sb_addf(out, "%s %s %s", i ? "," : "", p->tags[i].tag, p->tags[i].version);
    if (!p->ntags)
        sb_adds(out, " none");
    sb_addf(out, "\n\n%zu candidate%s, newest first:\n", p->ncandidates,
            p->ncandidates == 1 ? "" : "s");
    for (size_t i = 0; i < p->ncandidates; i++)
        render_candidate(p, &p->versions[i], out);
    size_t nex = p->nversions - p->ncandidates;
    if (nex) {
        sb_addf(out, "\n%zu excluded:\n", nex);
        for (size_t i = p->ncandidates; i < p->nversions; i++) {
            const npm_version *v = &p->versions[i];
            sb_addf(out, "%s  %s: %s\n", v->version, npm_exclusion_id(v->excluded),
                    v->why ? v->why : "");
        }
    }
}

el_code npm_index_show(el_ctx *ctx, struct cache *c, const el_index_query *q, bool json,
                       strbuf *out)
{
    const char *name = strchr(q->package, ':') + 1;
    char *err = NULL;
    if (npm_name_check(name, NPM_NAME_LEGACY, &err) != 0) {
        el_fail(ctx, EL_SPEC_INVALID, "`%s` is not an npm package name: %s", name, err);
        el_detail_str(ctx, "reason", "invalid_name");
        el_detail_str(ctx, "package", q->package);
        free(err);
        return EL_SPEC_INVALID;
    }
    npm_target t;
    npm_target_from_query(q, &t);
    int64_t ms;
    if (t.cutoff && !npm_time_parse(t.cutoff, &ms)) {
        el_fail(ctx, EL_SPEC_INVALID, "the cutoff `%s` is not an RFC 3339 time", t.cutoff);
        el_detail_str(ctx, "reason", "invalid_cutoff");
        return EL_SPEC_INVALID;
    }
    npm_loader_options lo = { .registry = q->npm_registry, .target = &t };
    npm_loader *l = npm_loader_new(c, &lo);
    npm_loader_submit(l, name);
    el_code rc = npm_loader_run(l, ctx);
    const npm_packument *p = npm_loader_get(l, name);
    if (rc == EL_OK && (!p || p->code != EL_OK))
        rc = p ? npm_load_fail(ctx, p) : el_fail(ctx, EL_INTERNAL, "npm load of %s never finished", name);
    if (rc == EL_OK) {
        if (json)
            render_json(p, &t, out);
        else
            render_text(p, &t, out);
    }
    npm_loader_free(l);
    return rc;
}

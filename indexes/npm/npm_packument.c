/* npm_packument.c — turning a packument (the registry's JSON document for
 * one package name, abbreviated or full) into npm_version records, and
 * judging each version against the target: semver validity, publish cutoff,
 * os/cpu/libc, engines, deprecation, integrity and tarball URL.
 *
 * This file does no I/O and never trusts the document: every field is
 * type-checked, a bad version is excluded with a reason instead of failing
 * the load, and only a document that is not a JSON object (or whose
 * `versions`/`dist-tags` have the wrong type, or that names another
 * package, or is over the size cap) fails as a whole. JSON is json-c's job;
 * the version grammar is semver.h's. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "npm_index.h"
#include "npm_json_prune.h"
#include "npm_spec.h"

/* ---- small tables ---- */

static const char *const exclusion_ids[] = {
    "", "invalid_version", "invalid_manifest", "missing_dist", "after_cutoff",
    "no_publish_time", "os_mismatch", "cpu_mismatch", "libc_mismatch", "bad_tarball",
};

const char *npm_exclusion_id(npm_exclusion e)
{
    if ((size_t)e >= sizeof exclusion_ids / sizeof exclusion_ids[0])
        return "";
    return exclusion_ids[e];
}

static const char *const flag_names[NPM_FLAG_COUNT] = {
    "deprecated", "engines_unchecked", "engines_mismatch", "install_script",
    "integrity_from_shasum", "no_integrity", "tarball_rebased",
};

const char *npm_flag_name(unsigned i) { return i < NPM_FLAG_COUNT ? flag_names[i] : ""; }

const char *npm_dep_kind_name(npm_dep_kind k)
{
    switch (k) {
    case NPM_DEP_PROD: return "dependencies";
    case NPM_DEP_OPTIONAL: return "optionalDependencies";
    case NPM_DEP_PEER: return "peerDependencies";
    case NPM_DEP_PEER_OPTIONAL: return "peerDependencies (optional)";
    }
    return "";
}

/* ---- time ---- */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
bool npm_time_parse(const char *s, int64_t *ms)
{
    return rfc3339_parse(s, RFC3339_DATE_OK | RFC3339_NO_SECONDS_OK | RFC3339_LEAP_SECOND_OK, ms);
}

/* ---- the target ---- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void npm_target_for(npm_target *t, const char *arch, const char *platform, const char *cutoff)
{
    memset(t, 0, sizeof *t);
    t->os = "linux";
    t->cpu = "x64";
    t->libc = "glibc";
    if ((platform && ends_with(platform, "aarch64")) || (arch && strcmp(arch, "arm64") == 0))
        t->cpu = "arm64";
    if (platform && strncmp(platform, "musllinux", 9) == 0)
        t->libc = "musl";
    t->cutoff = cutoff;
}

void npm_target_from_query(const el_index_query *q, npm_target *t)
{
    npm_target_for(t, q->apt_arch, q->platform, q->exclude_newer);
}

/* npm-install-checks' list rule: a single "any" allows everything; a
 * negated entry naming the value refuses it; otherwise the value must be
 * listed, unless every entry is a negation. */
static bool list_allows(const char *value, const char *const *list, size_t n)
{
    if (n == 0 || (n == 1 && strcmp(list[0], "any") == 0))
        return true;
    size_t negated = 0;
    bool match = false;
    for (size_t i = 0; i < n; i++) {
        if (list[i][0] == '!') {
            negated++;
            if (strcmp(list[i] + 1, value) == 0)
                return false;
        } else if (strcmp(list[i], value) == 0) {
            match = true;
        }
    }
    return match || negated == n;
}

/* ---- URLs ---- */

char *npm_registry_normalize(const char *registry)
{
    if (!registry || !*registry)
        registry = NPM_DEFAULT_REGISTRY;
    size_t n = strlen(registry);
    while (n > 0 && registry[n - 1] == '/')
        n--;
    return xasprintf("%.*s/", (int)n, registry);
}

char *npm_packument_url(const char *registry, const char *name)
{
    char *reg = npm_registry_normalize(registry);
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, reg);
    free(reg);
    const char *slash = name[0] == '@' ? strchr(name, '/') : NULL;
    if (slash) {
        sb_add(&sb, name, (size_t)(slash - name));
        sb_adds(&sb, "%2f");
        sb_adds(&sb, slash + 1);
    } else {
        sb_adds(&sb, name);
    }
    return sb_detach(&sb, NULL);
}

/* "scheme://host[:port]" length of `url`, or 0 if it has no authority. */
static size_t origin_len(const char *url)
{
    const char *p = strstr(url, "://");
    if (!p)
        return 0;
    p += 3;
    size_t n = strcspn(p, "/?#");
    return (size_t)(p - url) + n;
}

/* ---- parsing ---- */

typedef struct pctx {
    npm_packument *p;
    arena *a;
    const npm_parse_options *o;
    const npm_target *t;
    int64_t cutoff_ms;
    bool have_cutoff;
    json_object *time; /* the `time` object of a full document, or NULL */
    const char *served_base;
    /* json-c hash tables (a large packument has ~80,000 dependencies over
     * a few thousand distinct strings): */
    struct lh_table *strings; /* dependency names kept (intern()) */
    struct lh_table *specs;   /* dependency specs: text -> spec_class (spec_of()) */
} pctx;

/* A table of the parse keyed by text: *t (made on first use) and the value
 * stored for `s`, or NULL with *h its hash for table_add(). */
static void *table_find(struct lh_table **t, const char *s, unsigned long *h)
{
    if (!*t && !(*t = lh_kchar_table_new(1024, NULL)))
        xoom(0);
    *h = lh_get_hash(*t, s);
    struct lh_entry *e = lh_table_lookup_entry_w_hash(*t, s, *h);
    return e ? lh_entry_v(e) : NULL;
}

static void table_add(struct lh_table *t, const char *key, const void *value, unsigned long h)
{
    if (lh_table_insert_w_hash(t, key, value, h, 0) != 0)
        xoom(0);
}

/* One copy per packument of a dependency's name: the versions of a
 * package repeat most of their dependencies, and a crawl holds every
 * version of every packument it reads. */
static const char *intern(pctx *x, const char *s)
{
    unsigned long h;
    const char *c = table_find(&x->strings, s, &h);
    if (!c) {
        c = arena_strdup(x->a, s);
        table_add(x->strings, c, c, h);
    }
    return c;
}

static const char *type_name(json_object *j)
{
    switch (json_object_get_type(j)) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_double:
    case json_type_int: return "number";
    case json_type_object: return "object";
    case json_type_array: return "array";
    case json_type_string: return "string";
    }
    return "value";
}

static const char *astr(pctx *x, json_object *j)
{
    return arena_strdup(x->a, json_object_get_string(j));
}

static void exclude(pctx *x, npm_version *v, npm_exclusion e, const char *fmt, ...)
    EL_PRINTF(4, 5);
static void exclude(pctx *x, npm_version *v, npm_exclusion e, const char *fmt, ...)
{
    if (v->excluded != NPM_EX_NONE)
        return; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    v->excluded = e;
    v->why = arena_strdup(x->a, s);
    free(s);
}

/* A string list field: an array of strings, or one string. Other types
 * (old documents hold odd things here) read as an empty list. */
static const char **string_list(pctx *x, json_object *j, size_t *n)
{
    *n = 0;
    if (!j)
        return NULL;
    if (json_object_is_type(j, json_type_string)) {
        const char **out = arena_alloc(x->a, sizeof *out);
        out[0] = astr(x, j);
        *n = 1;
        return out;
    }
    if (!json_object_is_type(j, json_type_array))
        return NULL;
    size_t len = json_object_array_length(j);
    const char **out = arena_alloc(x->a, (len ? len : 1) * sizeof *out);
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx(j, i);
        if (json_object_is_type(e, json_type_string))
            out[(*n)++] = astr(x, e);
    }
    return out;
}

static bool url_word(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("-_.!~*'()", *s)))
            return false;
    return true;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* `text` when it parses as a loose range, else NULL. The parse is not
 * kept: npm_dep_range() parses again the few ranges a resolve uses. */
static const char *range_text(const char *text)
{
    npm_range *r = NULL;
    bool ok = npm_range_parse(text, NPM_LOOSE, &r, NULL) == 0;
    npm_range_free(r);
    return ok ? text : NULL;
}

const npm_range *npm_dep_range(const npm_dep *d)
{
    if (!d->range_text)
        return NULL;
    if (!d->range_) {
        npm_dep *m = (npm_dep *)d; /* a memo: deps live in the packument's arena */
        if (npm_range_parse(d->range_text, NPM_LOOSE, &m->range_, NULL) != 0)
            m->range_ = NULL; /* range_text parsed when it was set: not reached */
    }
    return d->range_;
}

/* What a spec's text says, worked out once per distinct text: the versions
 * of a package repeat their specs (next: 79,000 dependencies, 2,900
 * distinct specs), and classifying one (a range parse) was most of what
 * reading a dependency cost. */
typedef struct spec_class {
    const char *spec; /* the packument's one copy of the text */
    npm_dep_spec kind;
    const char *range_text, *alias_name;
} spec_class;

/* Classifies a dependency spec the way npm-package-arg reads one from a
 * registry manifest: aliases, then the non-registry forms (URLs, paths,
 * git hosts), then a loose range, then a tag. */
static void classify(pctx *x, spec_class *c)
{
    const char *s = c->spec;
    while (*s == ' ' || *s == '\t')
        s++;
    static const char *const other_prefixes[] = {
        "git+", "git:", "github:", "gitlab:", "bitbucket:", "gist:", "file:", "link:",
        "workspace:", "http:", "https:", "./", "../", "/", "~/", "~\\",
    };
    const char *an, *ar;
    size_t anl;
    if (npm_alias_split(s, &an, &anl, &ar)) {
        c->kind = NPM_SPEC_IS_ALIAS;
        c->alias_name = arena_strndup(x->a, an, anl);
        if (ar)
            c->range_text = range_text(ar);
        return;
    }
    for (size_t i = 0; i < sizeof other_prefixes / sizeof other_prefixes[0]; i++)
        if (starts_with(s, other_prefixes[i])) {
            c->kind = NPM_SPEC_IS_OTHER;
            return;
        }
    if (strstr(s, "://") || (s[0] != '@' && strchr(s, '/'))) {
        c->kind = NPM_SPEC_IS_OTHER; /* a URL or user/repo shorthand */
        return;
    }
    if ((c->range_text = range_text(s)) != NULL) {
        c->kind = NPM_SPEC_IS_RANGE;
        return;
    }
    c->kind = url_word(s) ? NPM_SPEC_IS_TAG : NPM_SPEC_IS_OTHER;
}

/* The packument's classification of spec text `s` (one per distinct text). */
static const spec_class *spec_of(pctx *x, const char *s)
{
    unsigned long h;
    spec_class *c = table_find(&x->specs, s, &h);
    if (!c) {
        c = arena_alloc(x->a, sizeof *c);
        *c = (spec_class){ .spec = arena_strdup(x->a, s) };
        classify(x, c);
        table_add(x->specs, c->spec, c, h);
    }
    return c;
}

const char *npm_dep_spec_what(const char *spec)
{
    static const struct { const char *prefix, *what; } kinds[] = {
        { "git", "a git URL" },       { "github:", "a GitHub reference" },
        { "gitlab:", "a git URL" },   { "bitbucket:", "a git URL" },
        { "http:", "a tarball URL" }, { "https:", "a tarball URL" },
        { "file:", "a local path" },  { "link:", "a link" },
        { "workspace:", "a workspace reference" }, { "npm:", "an alias" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strncmp(spec, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
            return kinds[i].what;
    if (spec[0] == '.' || spec[0] == '/' || spec[0] == '~')
        return "a local path";
    return strchr(spec, '/') ? "a GitHub reference" : "not a registry version";
}

static int dep_cmp(const void *pa, const void *pb)
{
    const npm_dep *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* True for a map value npm reads as no dependencies at all: arborist takes a
 * version's edges from Object.entries() of the field, and pacote does not
 * normalize registry manifests, so null, a boolean, a number, `[]` and ""
 * give no edge (`pagination` 0.4.x writes `"dependencies": []`). A non-empty
 * array or string would give edges named `0`, `1`, ... and is refused. */
static bool no_entries(json_object *m)
{
    switch (json_object_get_type(m)) {
    case json_type_null:
    case json_type_boolean:
    case json_type_int:
    case json_type_double: return true;
    case json_type_array: return json_object_array_length(m) == 0;
    case json_type_string: return json_object_get_string_len(m) == 0;
    default: return false;
    }
}

/* Reads one dependency map. false (with the version excluded) when the map
 * or one of its values has a type npm cannot read either. */
static bool read_deps(pctx *x, npm_version *v, json_object *man, const char *field,
                      npm_dep_kind kind, json_object *skip, json_object *meta, ptrvec *acc)
{
    json_object *m;
    if (!json_object_object_get_ex(man, field, &m) || no_entries(m))
        return true;
    if (!json_object_is_type(m, json_type_object)) {
        exclude(x, v, NPM_EX_INVALID_MANIFEST, "its %s is %s %s, not an object", field,
                json_object_is_type(m, json_type_array) ? "an" : "a", type_name(m));
        return false;
    }
    json_object_object_foreach(m, key, val)
    {
        if (!json_object_is_type(val, json_type_string)) {
            exclude(x, v, NPM_EX_INVALID_MANIFEST, "its %s entry `%s` is %s %s, not a string",
                    field, key, json_object_is_type(val, json_type_array) ? "an" : "a",
                    type_name(val));
            return false;
        }
        if (skip && json_object_object_get_ex(skip, key, NULL))
            continue; /* listed again under optionalDependencies: optional wins */
        npm_dep *d = xcalloc(1, sizeof *d); /* copied into v->deps, then freed */
        const spec_class *c = spec_of(x, json_object_get_string(val));
        d->name = intern(x, key);
        d->spec = c->spec;
        d->spec_kind = c->kind;
        d->range_text = c->range_text;
        d->alias_name = c->alias_name;
        d->kind = kind;
        json_object *pm, *opt;
        if (kind == NPM_DEP_PEER && meta && json_object_object_get_ex(meta, key, &pm) &&
            json_object_object_get_ex(pm, "optional", &opt) && json_object_get_boolean(opt) &&
            json_object_is_type(opt, json_type_boolean))
            d->kind = NPM_DEP_PEER_OPTIONAL;
        ptrvec_push(acc, d);
    }
    return true;
}

static char *b64(const unsigned char *in, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        sb_addc(&sb, tab[(v >> 18) & 63]);
        sb_addc(&sb, tab[(v >> 12) & 63]);
        sb_addc(&sb, i + 1 < n ? tab[(v >> 6) & 63] : '=');
        sb_addc(&sb, i + 2 < n ? tab[v & 63] : '=');
    }
    return sb_detach(&sb, NULL);
}

/* "sha1-<base64>" from a 40-hex shasum, or NULL if it is not one. */
static const char *sri_from_shasum(pctx *x, const char *hex)
{
    if (strlen(hex) != 40)
        return NULL;
    char lower[41];
    for (int i = 0; i <= 40; i++)
        lower[i] = (char)tolower((unsigned char)hex[i]);
    unsigned char raw[20];
    if (!hex_decode(lower, raw, sizeof raw))
        return NULL;
    char *b = b64(raw, sizeof raw);
    const char *out = arena_sprintf(x->a, "sha1-%s", b);
    free(b);
    return out;
}

/* The canonical tarball URL for what the document names (see the contract
 * of npm_packument_parse()). In order: a URL under the canonical registry is
 * kept; the caller's canonical_url mapping (the cache's mirror table) maps a
 * mirror's URL back; a URL under served_base is rebased exactly; and, as a
 * fallback for a mirror that writes tarball URLs on its own origin but
 * outside the base it is configured under, a URL on served_base's origin in
 * the registry layout (.../NAME/-/FILE.tgz) is rebased too. A tarball on any
 * other host is what the registry really names (a CDN) and is kept. */
void npm_tarball_assign(arena *a, const char *reg, const char *name, const char *served_base,
                        const npm_parse_options *o, npm_version *v, const char *url)
{
    v->tarball = arena_strdup(a, url);
    v->tarball_served = NULL;
    v->flags &= ~NPM_FLAG_TARBALL_REBASED;
    if (starts_with(url, reg))
        return;
    const char *canon = NULL;
    if (o->canonical_url) {
        char *m = o->canonical_url(o->canonical_user, url);
        if (m && strcmp(m, url) != 0)
            canon = arena_strdup(a, m);
        free(m);
    }
    if (!canon && served_base && starts_with(url, served_base))
        canon = arena_sprintf(a, "%s%s", reg, url + strlen(served_base));
    if (!canon && served_base) {
        size_t ol = origin_len(url), sl = origin_len(served_base);
        if (ol && ol == sl && strncmp(url, served_base, ol) == 0) {
            char *needle = xasprintf("/%s/-/", name);
            const char *hit = strstr(url + ol, needle);
            if (hit && ends_with(url, ".tgz") && !strchr(hit + strlen(needle), '/'))
                canon = arena_sprintf(a, "%s%s", reg, hit + 1);
            free(needle);
        }
    }
    if (canon) {
        v->tarball_served = v->tarball;
        v->tarball = canon;
        v->flags |= NPM_FLAG_TARBALL_REBASED;
    }
}

/* Why the tarball URL `url` of a packument read from `doc` (the registry
 * URL actually read) is not to be fetched or locked, or NULL: a scheme
 * cache_link_allowed() refuses (a remote registry never makes envlock read
 * a local file), or a file name, the last path segment that a lock and
 * `export` write as the artifact's name, outside the grammar of npm's
 * tarball names (`NAME-VERSION.tgz`: unreserved URL characters and `+`),
 * so that no hostile string ever reaches a lock or a shell. */
static const char *tarball_refusal(const char *doc, const char *url)
{
    if (!cache_link_allowed(doc, url))
        return "is not an http or https URL, and the packument was read over the network";
    if (url[strcspn(url, "?#")])
        return "has a query or fragment";
    const char *file = strrchr(url, '/');
    file = file ? file + 1 : url;
    if (!*file || strcmp(file, ".") == 0 || strcmp(file, "..") == 0)
        return "names no file";
    for (const char *p = file; *p; p++)
        if (!isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80)
            if (!strchr("._~+-", *p))
                return "has a file name outside [A-Za-z0-9._~+-]";
    return NULL;
}

static void set_tarball(pctx *x, npm_version *v, const char *url)
{
    const char *doc = x->served_base ? x->served_base : x->p->registry;
    const char *why = tarball_refusal(doc, url);
    if (!why) {
        npm_tarball_assign(x->a, x->p->registry, x->p->name, x->served_base, x->o, v, url);
        return;
    }
    char *shown = xstrndup(url, strnlen(url, 200));
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            *p = '?';
    exclude(x, v, NPM_EX_BAD_TARBALL, "its dist.tarball `%s` %s", shown, why);
    free(shown);
}

static void join(strbuf *sb, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addc(sb, ' ');
        sb_adds(sb, list[i]);
    }
}

/* Dependencies of every kind, sorted. */
static void read_all_deps(pctx *x, npm_version *v, json_object *man)
{
    ptrvec acc = PTRVEC_INIT;
    json_object *opt = NULL, *meta = NULL;
    if (json_object_object_get_ex(man, "optionalDependencies", &opt) &&
        !json_object_is_type(opt, json_type_object))
        opt = NULL;
    if (json_object_object_get_ex(man, "peerDependenciesMeta", &meta) &&
        !json_object_is_type(meta, json_type_object))
        meta = NULL;
    if (read_deps(x, v, man, "dependencies", NPM_DEP_PROD, opt, NULL, &acc) &&
        read_deps(x, v, man, "optionalDependencies", NPM_DEP_OPTIONAL, NULL, NULL, &acc))
        read_deps(x, v, man, "peerDependencies", NPM_DEP_PEER, NULL, meta, &acc);
    v->deps = arena_alloc(x->a, (acc.len ? acc.len : 1) * sizeof *v->deps);
    for (size_t i = 0; i < acc.len; i++) {
        v->deps[i] = *(npm_dep *)acc.items[i];
        free(acc.items[i]);
    }
    v->ndeps = acc.len;
    ptrvec_release(&acc);
    qsort(v->deps, v->ndeps, sizeof *v->deps, dep_cmp);
}

/* bundleDependencies (or bundledDependencies): true, or a list of names. */
static void read_bundled(pctx *x, npm_version *v, json_object *man)
{
    json_object *b = NULL;
    if (!json_object_object_get_ex(man, "bundleDependencies", &b))
        json_object_object_get_ex(man, "bundledDependencies", &b);
    if (b && json_object_is_type(b, json_type_boolean))
        v->bundle_all = json_object_get_boolean(b);
    else if (b && json_object_is_type(b, json_type_array))
        v->bundled = string_list(x, b, &v->nbundled);
}

/* deprecated: a message; "" or false means it was un-deprecated */
static void read_deprecated(pctx *x, npm_version *v, json_object *man)
{
    json_object *dep;
    if (json_object_object_get_ex(man, "deprecated", &dep)) {
        if (json_object_is_type(dep, json_type_string) && json_object_get_string_len(dep) > 0)
            v->deprecated = astr(x, dep);
        else if (json_object_is_type(dep, json_type_boolean) && json_object_get_boolean(dep))
            v->deprecated = "";
        if (v->deprecated)
            v->flags |= NPM_FLAG_DEPRECATED;
    }
}

/* The `type` of an old-style license object, or NULL. */
static const char *license_type(json_object *o)
{
    json_object *t;
    if (json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, "type", &t) &&
        json_object_is_type(t, json_type_string) && json_object_get_string_len(t) > 0)
        return json_object_get_string(t);
    return NULL;
}

/* license: the SPDX expression npm documents; the forms npm documented
 * before it ({"type": "MIT"}, and `licenses`, a list read as a choice
 * among them) are turned into one. */
static void read_license(pctx *x, npm_version *v, json_object *man)
{
    json_object *l;
    if (json_object_object_get_ex(man, "license", &l)) {
        if (json_object_is_type(l, json_type_string) && json_object_get_string_len(l) > 0)
            v->license = astr(x, l);
        else if (license_type(l))
            v->license = arena_strdup(x->a, license_type(l));
        return;
    }
    if (!json_object_object_get_ex(man, "licenses", &l) || !json_object_is_type(l, json_type_array))
        return;
    strbuf sb = STRBUF_INIT;
    size_t n = json_object_array_length(l), used = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = license_type(json_object_array_get_idx(l, i));
        if (t)
            sb_addf(&sb, "%s%s", used++ ? " OR " : "", t);
    }
    if (used)
        v->license = used > 1 ? arena_sprintf(x->a, "(%s)", sb.buf) : arena_strdup(x->a, sb.buf);
    sb_release(&sb);
}

/* engines: an object of ranges (old documents hold arrays: ignored), the
 * node one checked against the target. */
static void read_engines(pctx *x, npm_version *v, json_object *man)
{
    json_object *j;
    if (json_object_object_get_ex(man, "engines", &j) && json_object_is_type(j, json_type_object)) {
        v->engines = arena_alloc(x->a, (size_t)(json_object_object_length(j) + 1) * sizeof *v->engines);
        json_object_object_foreach(j, ek, ev)
        {
            if (!json_object_is_type(ev, json_type_string))
                continue;
            npm_engine *e = &v->engines[v->nengines++];
            e->name = arena_strdup(x->a, ek);
            e->range = astr(x, ev);
            if (strcmp(ek, "node") == 0) {
                if (!x->t->node_version)
                    v->flags |= NPM_FLAG_ENGINES_UNCHECKED;
                else if (!npm_satisfies(x->t->node_version, e->range, NPM_INCLUDE_PRERELEASE))
                    v->flags |= NPM_FLAG_ENGINES_MISMATCH;
            }
        }
    }
}

/* Install scripts: the abbreviated document's flag, or the full one's scripts. */
static void read_install_scripts(pctx *x, npm_version *v, json_object *man)
{
    json_object *j;
    if (json_object_object_get_ex(man, "hasInstallScript", &j) &&
        json_object_is_type(j, json_type_boolean) && json_object_get_boolean(j))
        v->flags |= NPM_FLAG_INSTALL_SCRIPT;
    if (json_object_object_get_ex(man, "scripts", &j) && json_object_is_type(j, json_type_object))
        for (const char *const *s = (const char *const[]){ "preinstall", "install", "postinstall", NULL };
             *s; s++)
            if (json_object_object_get_ex(j, *s, NULL))
                v->flags |= NPM_FLAG_INSTALL_SCRIPT;
}

/* dist: the tarball, its shasum and its integrity. */
static void read_dist(pctx *x, npm_version *v, json_object *man)
{
    json_object *dist = NULL, *tb = NULL, *integ = NULL, *sha = NULL;
    if (!json_object_object_get_ex(man, "dist", &dist) || !json_object_is_type(dist, json_type_object) ||
        !json_object_object_get_ex(dist, "tarball", &tb) || !json_object_is_type(tb, json_type_string) ||
        json_object_get_string_len(tb) == 0) {
        exclude(x, v, NPM_EX_MISSING_DIST, "the registry gives no dist.tarball for it");
    } else {
        set_tarball(x, v, json_object_get_string(tb));
        if (json_object_object_get_ex(dist, "shasum", &sha) && json_object_is_type(sha, json_type_string))
            v->shasum = astr(x, sha);
        if (json_object_object_get_ex(dist, "integrity", &integ) &&
            json_object_is_type(integ, json_type_string) && json_object_get_string_len(integ) > 0) {
            v->integrity = astr(x, integ);
        } else if (v->shasum && (v->integrity = sri_from_shasum(x, v->shasum)) != NULL) {
            v->flags |= NPM_FLAG_INTEGRITY_SHA1;
        } else {
            v->flags |= NPM_FLAG_NO_INTEGRITY;
        }
    }
}

/* The publish time, and the cutoff. */
static void read_time(pctx *x, npm_version *v, json_object *man)
{
    json_object *j;
    v->time_ms = INT64_MIN;
    if (x->time && json_object_object_get_ex(x->time, v->version, &j) &&
        json_object_is_type(j, json_type_string)) {
        v->time = astr(x, j);
        if (!npm_time_parse(v->time, &v->time_ms))
            v->time_ms = INT64_MIN;
    }
    /* npm's rule for --before (npm-pick-manifest): a version is kept unless
     * its `time` entry shows it was published after the cutoff. A version
     * with no entry, or a document with no `time` object at all, is kept:
     * nothing says it is newer. An entry that is not a date compares false
     * there and so drops the version; here that is "no_publish_time".
     * (PyPI differs on purpose: an undated file is out, as uv has it.) */
    if (x->have_cutoff && v->time) {
        if (v->time_ms == INT64_MIN)
            exclude(x, v, NPM_EX_NO_PUBLISH_TIME,
                    "its publish time `%s` is not a date to compare with the cutoff %s", v->time,
                    x->t->cutoff);
        else if (v->time_ms > x->cutoff_ms)
            exclude(x, v, NPM_EX_AFTER_CUTOFF, "published %s, after the cutoff %s", v->time,
                    x->t->cutoff);
    }
}

/* The target's platform against the version's os, cpu and libc lists. */
static void check_platform(pctx *x, npm_version *v)
{
    strbuf sb = STRBUF_INIT;
    if (!list_allows(x->t->os, v->os, v->nos)) {
        join(&sb, v->os, v->nos);
        exclude(x, v, NPM_EX_OS_MISMATCH, "it supports os [%s]; the target is %s", sb.buf, x->t->os);
    } else if (!list_allows(x->t->cpu, v->cpu, v->ncpu)) {
        join(&sb, v->cpu, v->ncpu);
        exclude(x, v, NPM_EX_CPU_MISMATCH, "it supports cpu [%s]; the target is %s", sb.buf,
                x->t->cpu);
    } else if (strcmp(x->t->os, "linux") == 0 && !list_allows(x->t->libc, v->libc, v->nlibc)) {
        join(&sb, v->libc, v->nlibc);
        exclude(x, v, NPM_EX_LIBC_MISMATCH, "it supports libc [%s]; the target is %s", sb.buf,
                x->t->libc);
    }
    sb_release(&sb);
}

static void read_version(pctx *x, npm_version *v, json_object *man)
{
    char *err = NULL;
    if (npm_semver_parse(&v->semver, v->version, NPM_LOOSE, &err) != 0) {
        exclude(x, v, NPM_EX_INVALID_VERSION, "`%s` is not a semver version: %s", v->version,
                err ? err : "invalid");
        free(err);
    }
    if (!json_object_is_type(man, json_type_object)) {
        exclude(x, v, NPM_EX_INVALID_MANIFEST, "its manifest is %s %s, not an object",
                json_object_is_type(man, json_type_array) ? "an" : "a", type_name(man));
        return;
    }
    read_all_deps(x, v, man);
    read_bundled(x, v, man);
    read_deprecated(x, v, man);
    read_license(x, v, man);
    json_object *j;
    v->os = string_list(x, json_object_object_get_ex(man, "os", &j) ? j : NULL, &v->nos);
    v->cpu = string_list(x, json_object_object_get_ex(man, "cpu", &j) ? j : NULL, &v->ncpu);
    v->libc = string_list(x, json_object_object_get_ex(man, "libc", &j) ? j : NULL, &v->nlibc);
    read_engines(x, v, man);
    read_install_scripts(x, v, man);
    read_dist(x, v, man);
    read_time(x, v, man);
    check_platform(x, v);
}

static int version_cmp(const void *pa, const void *pb)
{
    const npm_version *a = pa, *b = pb;
    bool ca = a->excluded == NPM_EX_NONE, cb = b->excluded == NPM_EX_NONE;
    if (ca != cb)
        return ca ? -1 : 1;
    bool va = a->semver.version != NULL, vb = b->semver.version != NULL;
    if (va != vb)
        return va ? -1 : 1;
    if (va) {
        int c = npm_semver_compare_build(&b->semver, &a->semver);
        if (c)
            return c;
    }
    return strcmp(a->version, b->version);
}

static int tag_cmp(const void *pa, const void *pb)
{
    return strcmp(((const npm_dist_tag *)pa)->tag, ((const npm_dist_tag *)pb)->tag);
}

/* ---- the identity (npm_packument_identity) ----
 * The canonical text is what json-c writes for the nested arrays below
 * (JTEXT_FLAGS), written here piece by piece into the hash: as a json-c
 * tree, the arrays of a large packument's every version were the peak of
 * a crawl's memory. */

/* The identity's text under construction, and one json-c string reused to
 * write each string as json-c writes it (the escaping is json-c's). */
typedef struct jtext {
    strbuf sb;
    json_object *str;
} jtext;

#define JTEXT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* A string as json-c writes it; NULL is `null`. A string json-c would
 * not escape, the empty one included, is written here as it is; only the
 * rest go through json-c's writer. The empty one must not reach it:
 * json-c 0.16 loses a string's heap buffer when json_object_set_string()
 * sets "" after a longer string (LeakSanitizer, agree_npm_apps under
 * ASan). */
static void jtext_str(jtext *t, const char *s)
{
    if (!s) {
        sb_adds(&t->sb, "null");
        return;
    }
    size_t plain = 0; /* json-c writes a string without '"', '\\' or a
                         control character (below 0x20) as its bytes */
    while ((unsigned char)s[plain] >= 0x20 && s[plain] != '"' && s[plain] != '\\')
        plain++;
    if (!s[plain]) {
        sb_addc(&t->sb, '"');
        sb_add(&t->sb, s, plain);
        sb_addc(&t->sb, '"');
        return;
    }
    size_t n = 0;
    json_object_set_string(t->str, s);
    const char *out = json_object_to_json_string_length(t->str, JTEXT_FLAGS, &n);
    sb_add(&t->sb, out, n);
}

static void jtext_list(jtext *t, const char *const *v, size_t n)
{
    sb_addc(&t->sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addc(&t->sb, ',');
        jtext_str(t, v[i]);
    }
    sb_addc(&t->sb, ']');
}

/* ,[version,[[kind,name,spec]...],bundled|true,deprecated,os,cpu,libc,
 * [engine,range...],integrity,tarball file,install script,time] */
static void version_entry(jtext *t, const npm_version *v, bool with_time)
{
    sb_adds(&t->sb, ",[");
    jtext_str(t, v->version);
    sb_adds(&t->sb, ",[");
    for (size_t i = 0; i < v->ndeps; i++) {
        if (i)
            sb_addc(&t->sb, ',');
        sb_addc(&t->sb, '[');
        sb_addc(&t->sb, (char)('0' + v->deps[i].kind)); /* 0 to 3 */
        sb_addc(&t->sb, ',');
        jtext_str(t, v->deps[i].name);
        sb_addc(&t->sb, ',');
        jtext_str(t, v->deps[i].spec);
        sb_addc(&t->sb, ']');
    }
    sb_adds(&t->sb, "],");
    if (v->bundle_all)
        sb_adds(&t->sb, "true");
    else
        jtext_list(t, v->bundled, v->nbundled);
    sb_addc(&t->sb, ',');
    jtext_str(t, v->deprecated);
    sb_addc(&t->sb, ',');
    jtext_list(t, v->os, v->nos);
    sb_addc(&t->sb, ',');
    jtext_list(t, v->cpu, v->ncpu);
    sb_addc(&t->sb, ',');
    jtext_list(t, v->libc, v->nlibc);
    sb_adds(&t->sb, ",[");
    for (size_t i = 0; i < v->nengines; i++) {
        if (i)
            sb_addc(&t->sb, ',');
        jtext_str(t, v->engines[i].name);
        sb_addc(&t->sb, ',');
        jtext_str(t, v->engines[i].range);
    }
    sb_adds(&t->sb, "],");
    jtext_str(t, v->integrity);
    sb_addc(&t->sb, ',');
    const char *slash = v->tarball ? strrchr(v->tarball, '/') : NULL;
    jtext_str(t, slash ? slash + 1 : v->tarball);
    sb_adds(&t->sb, (v->flags & NPM_FLAG_INSTALL_SCRIPT) ? ",true," : ",false,");
    jtext_str(t, with_time ? v->time : NULL);
    sb_addc(&t->sb, ']');
}

/* Versions are sorted by key bytes (the record order is semver order with
 * excluded versions last, which depends on the target). */
static int vkey_cmp(const void *a, const void *b)
{
    return strcmp((*(const npm_version *const *)a)->version,
                  (*(const npm_version *const *)b)->version);
}

/* "sha256:" and the hash of [[tag,version...],entry...]. */
static const char *identity_of(arena *a, const npm_packument *p, bool with_times)
{
    sha256_stream *h = sha256_begin();
    jtext t = { STRBUF_INIT, json_object_new_string("") };
    strbuf *sb = &t.sb;
    sb_adds(sb, "[[");
    for (size_t i = 0; i < p->ntags; i++) {
        if (i)
            sb_addc(sb, ',');
        jtext_str(&t, p->tags[i].tag);
        sb_addc(sb, ',');
        jtext_str(&t, p->tags[i].version);
    }
    sb_addc(sb, ']');
    const npm_version **vs = xcalloc(p->nversions + 1, sizeof *vs);
    for (size_t i = 0; i < p->nversions; i++)
        vs[i] = &p->versions[i];
    qsort(vs, p->nversions, sizeof *vs, vkey_cmp);
    for (size_t i = 0; i < p->nversions; i++) {
        version_entry(&t, vs[i], with_times);
        sha256_update(h, sb->buf, sb->len);
        sb_reset(sb);
    }
    free(vs);
    sb_addc(sb, ']');
    sha256_update(h, sb->buf, sb->len);
    sb_release(sb);
    json_object_put(t.str);
    char hex[65];
    sha256_end(h, hex);
    return arena_sprintf(a, "sha256:%s", hex);
}

/* ---- what of a document is read ---- */

/* The members read_version() and parse() read, and so the only ones the
 * document's tree is built with (npm_json_prune.h): a full packument is
 * mostly readmes, maintainers and descriptions nobody here reads. A field
 * read_version() starts reading must be added here; npm_index_unit_prune
 * compares models from this tree and from the whole one over every fixture. */
static const npm_json_keep keep_dist[] = {
    { .name = "tarball" }, { .name = "shasum" }, { .name = "integrity" }, { 0 },
};
static const npm_json_keep keep_scripts[] = { /* only whether they exist is read */
    { .name = "preinstall" }, { .name = "install" }, { .name = "postinstall" }, { 0 },
};
static const npm_json_keep keep_manifest[] = {
    { .name = "dependencies" }, { .name = "optionalDependencies" },
    { .name = "peerDependencies" }, { .name = "peerDependenciesMeta" },
    { .name = "bundleDependencies" }, { .name = "bundledDependencies" },
    { .name = "deprecated" }, { .name = "license" }, { .name = "licenses" }, { .name = "os" }, { .name = "cpu" }, { .name = "libc" },
    { .name = "engines" }, { .name = "hasInstallScript" },
    { .name = "scripts", .only = keep_scripts }, { .name = "dist", .only = keep_dist },
    { 0 },
};
static const npm_json_keep keep_versions[] = { { .any = true, .only = keep_manifest }, { 0 } };
static const npm_json_keep keep_document[] = {
    { .name = "name" }, { .name = "error" }, { .name = "modified" }, { .name = "dist-tags" },
    { .name = "time" }, { .name = "versions", .only = keep_versions }, { 0 },
};

static int fail_parse(const char **reason, char **err, const char *why, char *msg)
{
    *reason = why;
    *err = msg;
    return -1;
}

/* parse_document() : the packument's JSON, judged as a whole: valid, an
 * object, not an error document, naming the package asked for, with
 * `versions` and `dist-tags` objects when present. */
static int parse_document(const char *body, size_t len, const npm_parse_options *o,
                          bool full_tree, const char *name, json_object **doc_out,
                          json_object **versions, json_object **tags, const char **reason,
                          char **err)
{
    json_object *doc = NULL;
    char *what = NULL;
    int rc = len == 0 ? -1
             : full_tree ? npm_json_parse_full(body, len, &doc, &what)
                         : npm_json_prune_parse(body, len, keep_document, &doc, &what);
    if (rc != 0 || !doc) {
        char *m = xasprintf("the packument of %s is not valid JSON: %s", name,
                            len == 0 ? "the body is empty"
                            : what   ? what
                                     : "it has data after the JSON value");
        free(what);
        return fail_parse(reason, err, "invalid_packument", m);
    }
    if (!json_object_is_type(doc, json_type_object)) {
        char *m = xasprintf("the packument of %s is a JSON %s, not an object", name, type_name(doc));
        json_object_put(doc);
        return fail_parse(reason, err, "invalid_packument", m);
    }
    json_object *j;
    char *problem = NULL;
    if (json_object_object_get_ex(doc, "error", &j) && !json_object_object_get_ex(doc, "versions", NULL))
        problem = xasprintf("the registry answered for %s with an error document: %s", name,
                            json_object_is_type(j, json_type_string) ? json_object_get_string(j)
                                                                    : type_name(j));
    else if (json_object_object_get_ex(doc, "name", &j) &&
             (!json_object_is_type(j, json_type_string) ||
              (o->name && strcmp(json_object_get_string(j), o->name) != 0)))
        problem = xasprintf("the packument asked for as %s names the package `%s`", name,
                            json_object_get_string(j));
    else if (json_object_object_get_ex(doc, "versions", versions) &&
             !json_object_is_type(*versions, json_type_object))
        problem = xasprintf("the packument of %s has `versions` of type %s, not an object", name,
                            type_name(*versions));
    else if (json_object_object_get_ex(doc, "dist-tags", tags) &&
             !json_object_is_type(*tags, json_type_object))
        problem = xasprintf("the packument of %s has `dist-tags` of type %s, not an object", name,
                            type_name(*tags));
    if (problem) {
        json_object_put(doc);
        return fail_parse(reason, err, "invalid_packument", problem);
    }
    *doc_out = doc;
    return 0;
}

/* Registry, name, URL and modification time of a parsed document. */
static void read_header(pctx *x, json_object *doc)
{
    npm_packument *p = x->p;
    const npm_parse_options *o = x->o;
    json_object *j;
    char *reg = npm_registry_normalize(o->registry);
    p->registry = arena_strdup(x->a, reg);
    free(reg);
    if (o->served_base) {
        char *sb = npm_registry_normalize(o->served_base);
        x->served_base = arena_strdup(x->a, sb);
        free(sb);
    }
    p->name = arena_strdup(x->a, o->name ? o->name
                                         : json_object_object_get_ex(doc, "name", &j)
                                               ? json_object_get_string(j)
                                               : "");
    char *url = npm_packument_url(p->registry, p->name);
    p->url = arena_strdup(x->a, url);
    free(url);

    if (json_object_object_get_ex(doc, "time", &j) && json_object_is_type(j, json_type_object)) {
        x->time = j;
        p->full = true;
        json_object *m;
        if (json_object_object_get_ex(j, "modified", &m) && json_object_is_type(m, json_type_string))
            p->modified = astr(x, m);
    }
    if (json_object_object_get_ex(doc, "modified", &j) && json_object_is_type(j, json_type_string))
        p->modified = astr(x, j);
}

static void read_tags(pctx *x, json_object *tags)
{
    npm_packument *p = x->p;
    p->tags = arena_alloc(x->a, (size_t)(json_object_object_length(tags) + 1) * sizeof *p->tags);
    json_object_object_foreach(tags, tk, tv)
    {
        if (!json_object_is_type(tv, json_type_string))
            continue;
        p->tags[p->ntags].tag = arena_strdup(x->a, tk);
        p->tags[p->ntags].version = astr(x, tv);
        p->ntags++;
    }
    qsort(p->tags, p->ntags, sizeof *p->tags, tag_cmp);
}

static void read_versions(pctx *x, json_object *versions)
{
    npm_packument *p = x->p;
    size_t n = (size_t)json_object_object_length(versions);
    p->versions = xcalloc(n ? n : 1, sizeof *p->versions);
    json_object_object_foreach(versions, vk, vv)
    {
        npm_version *v = &p->versions[p->nversions++];
        v->version = arena_strdup(x->a, vk);
        read_version(x, v, vv);
    }
    qsort(p->versions, p->nversions, sizeof *p->versions, version_cmp);
    while (p->ncandidates < p->nversions && p->versions[p->ncandidates].excluded == NPM_EX_NONE)
        p->ncandidates++;
}

static int parse(const char *body, size_t len, const npm_parse_options *o, bool full_tree,
                 npm_packument **out, const char **reason, char **err)
{
    *out = NULL;
    *reason = NULL;
    *err = NULL;
    npm_target deftarget = { "linux", "x64", "glibc", NULL, NULL, false };
    npm_target t = o->target ? *o->target : deftarget;
    if (!t.os)
        t.os = "linux";
    if (!t.cpu)
        t.cpu = "x64";
    if (!t.libc)
        t.libc = "glibc";
    const char *name = o->name ? o->name : "";
    size_t cap = o->max_bytes ? o->max_bytes : NPM_PACKUMENT_MAX_BYTES;
    if (len > cap || len > INT_MAX)
        return fail_parse(reason, err, "too_large",
                          xasprintf("the packument of %s is %zu bytes, over the %zu-byte cap", name,
                                    len, cap));
    int64_t cutoff_ms = 0;
    if (t.cutoff && !npm_time_parse(t.cutoff, &cutoff_ms))
        return fail_parse(reason, err, "invalid_cutoff",
                          xasprintf("the cutoff `%s` is not an RFC 3339 time", t.cutoff));

    json_object *doc = NULL, *versions = NULL, *tags = NULL;
    if (parse_document(body, len, o, full_tree, name, &doc, &versions, &tags, reason, err) != 0)
        return -1;

    npm_packument *p = xcalloc(1, sizeof *p);
    p->arena_ = arena_new();
    pctx x = { .p = p, .a = p->arena_, .o = o, .t = &t, .cutoff_ms = cutoff_ms,
               .have_cutoff = t.cutoff != NULL };
    read_header(&x, doc);
    if (tags)
        read_tags(&x, tags);
    if (versions)
        read_versions(&x, versions);
    if (x.strings)
        lh_table_free(x.strings);
    if (x.specs)
        lh_table_free(x.specs);
    json_object_put(doc);
    p->identity = identity_of(x.a, p, x.have_cutoff);
    *out = p;
    return 0;
}

int npm_packument_parse(const char *body, size_t len, const npm_parse_options *o,
                        npm_packument **out, const char **reason, char **err)
{
    return parse(body, len, o, false, out, reason, err);
}

int npm_packument_parse_full_tree(const char *body, size_t len, const npm_parse_options *o,
                                  npm_packument **out, const char **reason, char **err)
{
    return parse(body, len, o, true, out, reason, err);
}

void npm_packument_free(npm_packument *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nversions; i++) {
        const npm_version *v = &p->versions[i];
        npm_semver_release(&p->versions[i].semver);
        for (size_t d = 0; d < v->ndeps; d++)
            npm_range_free(v->deps[d].range_);
    }
    free(p->versions);
    arena_free(p->arena_);
    free(p);
}

const char *npm_packument_find_tag(const npm_packument *p, const char *tag)
{
    for (size_t i = 0; i < p->ntags; i++)
        if (strcmp(p->tags[i].tag, tag) == 0)
            return p->tags[i].version;
    return NULL;
}

const npm_version *npm_packument_find(const npm_packument *p, const char *version)
{
    for (size_t i = 0; i < p->nversions; i++)
        if (strcmp(p->versions[i].version, version) == 0)
            return &p->versions[i];
    return NULL;
}

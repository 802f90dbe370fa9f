/* osv_parse.c — one osv-schema JSON document into an osv_record (json-c
 * parses; this file only checks the shape the evaluation relies on). Keeps
 * the affected entries of PyPI, npm and Debian:12 and drops the rest; GIT
 * ranges are ignored (they name commits, not versions). Every shape error
 * is reported with what is wrong, never skipped, because a skipped record
 * reads as "not affected". */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "osv.h"

typedef struct parse {
    arena *a;
    const char *id;
    const char *why;
} parse;

/* Records why the document is malformed, prefixed with its id once known. */
static int bad(parse *p, const char *fmt, ...) EL_PRINTF(2, 3);
static int bad(parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    p->why = p->id ? arena_sprintf(p->a, "%s: %s", p->id, msg) : arena_strdup(p->a, msg);
    free(msg);
    return -1;
}

static const char *str_field(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static json_object *array_field(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
        return NULL;
    return v;
}

static bool has(json_object *o, const char *key)
{
    return json_object_object_get_ex(o, key, NULL);
}

char *osv_name_key(el_ecosystem eco, const char *name)
{
    strbuf sb = STRBUF_INIT;
    if (eco != EL_ECO_PYPI)
        return xstrdup(name);
    /* PEP 503: lowercase, runs of -, _ and . become one -. */
    for (const char *s = name; *s; s++) {
        if (*s == '-' || *s == '_' || *s == '.') {
            if (sb.len == 0 || sb.buf[sb.len - 1] != '-')
                sb_addc(&sb, '-');
        } else {
            sb_addc(&sb, (char)tolower((unsigned char)*s));
        }
    }
    return sb_detach(&sb, NULL);
}

/* 1 ours, 0 another ecosystem (ignored), with *eco set. */
static int our_ecosystem(const char *name, el_ecosystem *eco)
{
    if (strcmp(name, "PyPI") == 0)
        *eco = EL_ECO_PYPI;
    else if (strcmp(name, "npm") == 0)
        *eco = EL_ECO_NPM;
    else if (strcmp(name, "Debian:12") == 0)
        *eco = EL_ECO_DEB;
    else
        return 0;
    return 1;
}

static const char *const event_keys[] = { "introduced", "fixed", "last_affected", "limit" };

static int parse_event(parse *p, json_object *o, osv_event *out)
{
    int found = 0;
    if (!json_object_is_type(o, json_type_object))
        return bad(p, "%s is not an object", "a range event");
    for (int k = 0; k < 4; k++) {
        if (!has(o, event_keys[k]))
            continue;
        const char *v = str_field(o, event_keys[k]);
        if (!v || !*v)
            return bad(p, "the %s event is not a version string", event_keys[k]);
        out->kind = (osv_event_kind)k;
        out->version = arena_strdup(p->a, v);
        found++;
    }
    if (found != 1)
        return bad(p, "%s has not exactly one of introduced, fixed, last_affected, limit",
                   "a range event");
    return 0;
}

/* 1 kept, 0 a GIT range (skipped), -1 malformed. */
static int parse_range(parse *p, json_object *o, osv_range *out)
{
    const char *type = str_field(o, "type");
    json_object *events = array_field(o, "events");
    bool introduced = false;
    if (!type || !events)
        return bad(p, "%s has no type or no events array", "a range");
    if (strcmp(type, "GIT") == 0)
        return 0;
    if (strcmp(type, "ECOSYSTEM") != 0 && strcmp(type, "SEMVER") != 0)
        return bad(p, "range type `%s` is not ECOSYSTEM, SEMVER or GIT", type);
    out->type = strcmp(type, "SEMVER") == 0 ? OSV_RANGE_SEMVER : OSV_RANGE_ECOSYSTEM;
    out->n_events = json_object_array_length(events);
    out->events = arena_alloc(p->a, (out->n_events + 1) * sizeof *out->events);
    for (size_t i = 0; i < out->n_events; i++) {
        if (parse_event(p, json_object_array_get_idx(events, i), &out->events[i]) != 0)
            return -1;
        introduced |= out->events[i].kind == OSV_INTRODUCED;
    }
    if (!introduced)
        return bad(p, "%s has no introduced event", "a range");
    return 1;
}

static int parse_versions(parse *p, json_object *o, osv_affected *af)
{
    json_object *vs = NULL;
    if (!json_object_object_get_ex(o, "versions", &vs))
        return 0;
    if (!json_object_is_type(vs, json_type_array))
        return bad(p, "%s is not an array", "versions");
    af->n_versions = json_object_array_length(vs);
    af->versions = arena_alloc(p->a, (af->n_versions + 1) * sizeof *af->versions);
    for (size_t i = 0; i < af->n_versions; i++) {
        json_object *v = json_object_array_get_idx(vs, i);
        if (!json_object_is_type(v, json_type_string))
            return bad(p, "%s has an entry that is not a string", "versions");
        af->versions[i] = arena_strdup(p->a, json_object_get_string(v));
    }
    return 0;
}

static int parse_ranges(parse *p, json_object *o, osv_affected *af)
{
    json_object *rs = NULL;
    if (!json_object_object_get_ex(o, "ranges", &rs))
        return 0;
    if (!json_object_is_type(rs, json_type_array))
        return bad(p, "%s is not an array", "ranges");
    size_t n = json_object_array_length(rs);
    af->ranges = arena_alloc(p->a, (n + 1) * sizeof *af->ranges);
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rs, i);
        if (!json_object_is_type(r, json_type_object))
            return bad(p, "%s is not an object", "a range");
        int rc = parse_range(p, r, &af->ranges[af->n_ranges]);
        if (rc < 0)
            return -1;
        af->n_ranges += (size_t)rc;
    }
    return 0;
}

/* 1 kept, 0 another ecosystem, -1 malformed. */
static int parse_affected(parse *p, json_object *o, osv_affected *af)
{
    json_object *pkg = NULL;
    const char *eco, *name;
    if (!json_object_is_type(o, json_type_object) ||
        !json_object_object_get_ex(o, "package", &pkg))
        return 0; /* an affected entry without a package names no package of ours */
    eco = str_field(pkg, "ecosystem");
    name = str_field(pkg, "name");
    if (!eco || !name || !*name)
        return bad(p, "%s has no ecosystem or name", "an affected package");
    if (!our_ecosystem(eco, &af->eco))
        return 0;
    char *key = osv_name_key(af->eco, name);
    af->name = arena_strdup(p->a, key);
    free(key);
    if (parse_ranges(p, o, af) != 0 || parse_versions(p, o, af) != 0)
        return -1;
    if (af->n_ranges == 0 && af->n_versions == 0)
        return bad(p, "the entry for `%s` names no affected versions", name);
    return 1;
}

static void parse_meta(parse *p, json_object *doc, osv_record *r)
{
    json_object *ds = NULL, *sev = NULL, *al = array_field(doc, "aliases");
    const char *s;
    r->summary = (s = str_field(doc, "summary")) ? arena_strdup(p->a, s) : NULL;
    if (json_object_object_get_ex(doc, "database_specific", &ds) &&
        json_object_is_type(ds, json_type_object) && (s = str_field(ds, "severity")))
        r->severity = arena_strdup(p->a, s);
    else if ((sev = array_field(doc, "severity")) && json_object_array_length(sev) > 0 &&
             (s = str_field(json_object_array_get_idx(sev, 0), "score")))
        r->severity = arena_strdup(p->a, s);
    r->n_aliases = al ? json_object_array_length(al) : 0;
    r->aliases = arena_alloc(p->a, (r->n_aliases + 1) * sizeof *r->aliases);
    size_t k = 0;
    for (size_t i = 0; i < r->n_aliases; i++) {
        json_object *v = json_object_array_get_idx(al, i);
        if (json_object_is_type(v, json_type_string))
            r->aliases[k++] = arena_strdup(p->a, json_object_get_string(v));
    }
    r->n_aliases = k;
}

static int parse_doc(parse *p, json_object *doc, osv_record **out)
{
    json_object *aff = NULL;
    osv_record *r;
    const char *id = str_field(doc, "id"), *mod = str_field(doc, "modified");
    if (!id || !*id)
        return bad(p, "%s has no id", "the record");
    p->id = arena_strdup(p->a, id);
    if (!mod)
        return bad(p, "%s has no modified time", "the record");
    if (has(doc, "withdrawn"))
        return 2;
    if (has(doc, "affected") && !(aff = array_field(doc, "affected")))
        return bad(p, "%s is not an array", "affected");
    r = arena_alloc(p->a, sizeof *r);
    r->id = p->id;
    r->modified = arena_strdup(p->a, mod);
    size_t n = aff ? json_object_array_length(aff) : 0;
    r->affected = arena_alloc(p->a, (n + 1) * sizeof *r->affected);
    for (size_t i = 0; i < n; i++) {
        int rc = parse_affected(p, json_object_array_get_idx(aff, i), &r->affected[r->n_affected]);
        if (rc < 0)
            return -1;
        r->n_affected += (size_t)rc;
    }
    if (r->n_affected == 0)
        return 0;
    parse_meta(p, doc, r);
    *out = r;
    return 1;
}

int osv_parse_record(arena *a, const char *text, size_t len, const char *source,
                     osv_record **out, const char **why)
{
    parse p = { a, NULL, NULL };
    json_tokener *tok = json_tokener_new();
    json_object *doc = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    int rc;
    *out = NULL;
    size_t end = doc ? (size_t)tok->char_offset : 0;
    while (end < len && isspace((unsigned char)text[end]))
        end++;
    if (!doc || jerr != json_tokener_success || end < len) {
        rc = bad(&p, "is not JSON: %s",
                 doc ? "text follows the document" : json_tokener_error_desc(jerr));
    } else if (!json_object_is_type(doc, json_type_object)) {
        rc = bad(&p, "is not an OSV record (%s)", "not a JSON object");
    } else {
        rc = parse_doc(&p, doc, out);
        if (rc == 1)
            (*out)->source = arena_strdup(a, source);
    }
    json_object_put(doc);
    json_tokener_free(tok);
    *why = p.why;
    return rc;
}

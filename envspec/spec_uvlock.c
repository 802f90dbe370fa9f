/* spec_uvlock.c — pyproject.toml + uv.lock as a spec source
 * (spec_uvlock.h). The lock format is the one uv documents for its
 * lockfile (docs/concepts/projects/layout.md, "The lockfile"): `[[package]]`
 * tables with `name`, `version`, `source`, `dependencies` (edges: `name`,
 * optional `version`/`source` where several copies exist, `marker`,
 * `extra`), `optional-dependencies`, `dev-dependencies`, `sdist`, `wheels`,
 * `resolution-markers`, and the project's `[package.metadata]`
 * (`requires-dist`, `requires-dev`) that `uv lock --check` compares with
 * pyproject.toml, and a workspace's `[manifest] members` (uv's
 * docs/concepts/projects/workspaces.md: members share the lock, and
 * depend on each other from their own directories). It owns the selection and the checks; what the spec
 * allows beyond its indexes is the base stage's call, and the positions in
 * the spec file are the caller's (spec_entries.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "pep508.h"
#include "spec_toml.h"
#include "spec_uvlock.h"

#define F_CONTENT "spec.build.dependencyFile.content"
#define F_LOCK "spec.build.dependencyFile.lockContent"
#define RUN_UV_LOCK "run `uv lock` and bring the updated uv.lock"

/* A name and where it is, for sorted lookups (hostile locks are 1 MiB of
 * packages and edges: every lookup is a binary search, never a scan). */
typedef struct named {
    const char *name;
    size_t idx;
    const void *ptr;
} named;

/* One step of the walk: a package, with `extra` its optional dependencies
 * of that name. */
typedef struct step {
    long pkg;
    const char *extra;
} step;

typedef struct sel {
    arena *mem;
    const toml_value *pyproject, *lock;
    const toml_value *const *pkgs; /* uv.lock's [[package]] tables */
    size_t n;
    const char **names;            /* canonical name of each package */
    named *by_name;                /* the packages sorted by (name, index) */
    const pypi_env *env;
    bool *chosen;
    char **seen;                   /* open-addressing set of "<index>\n<extra>" followed */
    size_t seen_cap, seen_len;
    ptrvec todo;                   /* steps still to take (the walk is iterative: a
                                      chain of 20,000 packages is no recursion) */
    ptrvec edges;                  /* spec_uvedge: each edge followed, by uv.lock index */
    ptrvec extras;                 /* step: each (package, extra) followed */
    ptrvec problems;
    long root;
    named *members;                /* uv.lock's `[manifest] members`, canonical, sorted */
    size_t n_members;
} sel;

bool spec_index_same(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    while (na && a[na - 1] == '/')
        na--;
    while (nb && b[nb - 1] == '/')
        nb--;
    if (na != nb)
        return false;
    const char *sep = strstr(a, "://");
    size_t host_end = sep ? (size_t)(sep - a) + 3 + strcspn(sep + 3, "/") : 0;
    if (host_end > na)
        host_end = na;
    return strncasecmp(a, b, host_end) == 0 && memcmp(a + host_end, b + host_end, na - host_end) == 0;
}

static const char *str_at(const toml_value *t, const char *key)
{
    const toml_value *v = t && t->kind == TOML_TABLE ? toml_get(t, key) : NULL;
    return v && v->kind == TOML_STRING ? v->s : NULL;
}

static const toml_value *kind_at(const toml_value *t, const char *key, toml_kind kind)
{
    const toml_value *v = t && t->kind == TOML_TABLE ? toml_get(t, key) : NULL;
    return v && v->kind == kind ? v : NULL;
}

static void problem(sel *s, el_code code, const char *field, const char *package,
                    const toml_value *at, const char *fmt, ...) EL_PRINTF(6, 7);

static void problem(sel *s, el_code code, const char *field, const char *package,
                    const toml_value *at, const char *fmt, ...)
{
    spec_uvproblem *p = arena_alloc(s->mem, sizeof *p);
    va_list ap;
    va_start(ap, fmt);
    char *m = xvasprintf(fmt, ap);
    va_end(ap);
    p->code = code;
    p->field = field;
    p->at = field;
    p->package = package ? arena_strdup(s->mem, package) : NULL;
    p->line = at ? at->line : 0;
    p->column = at ? at->column : 0;
    p->message = arena_strdup(s->mem, m);
    free(m);
    ptrvec_push(&s->problems, p);
}

static char *canonical(sel *s, const char *name)
{
    char *c = pypi_name_canonical(name ? name : "");
    char *out = arena_strdup(s->mem, c);
    free(c);
    return out;
}

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The first of `v` (n, sorted) named `name`, or n. */
static size_t first_named(const named *v, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(v[lo].name, name) == 0 ? lo : n;
}

static uint64_t fnv1a(const char *t)
{
    uint64_t h = 1469598103934665603u;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211u;
    return h;
}

/* Adds `key` to the set of followed extras; false if it was there. */
static bool seen_add(sel *s, char *key)
{
    if (2 * (s->seen_len + 1) > s->seen_cap) {
        size_t cap = s->seen_cap ? 2 * s->seen_cap : 64;
        char **t = arena_alloc(s->mem, cap * sizeof *t);
        for (size_t i = 0; i < s->seen_cap; i++)
            if (s->seen[i]) {
                size_t j = fnv1a(s->seen[i]) & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = s->seen[i];
            }
        s->seen = t;
        s->seen_cap = cap;
    }
    size_t j = fnv1a(key) & (s->seen_cap - 1);
    for (; s->seen[j]; j = (j + 1) & (s->seen_cap - 1))
        if (strcmp(s->seen[j], key) == 0)
            return false;
    s->seen[j] = key;
    s->seen_len++;
    return true;
}

/* A marker uv wrote, evaluated where the environment is built: one that
 * does not parse or evaluate is a problem, and false. Without a target
 * (validate) only an edge with no marker holds: it is taken on every one. */
static bool holds(sel *s, const toml_value *at, const char *marker)
{
    if (!marker)
        return true;
    char *err = NULL;
    pypi_marker *m = pypi_marker_parse(marker, true, &err);
    int r = m ? (s->env ? pypi_marker_evaluate(m, s->env, &err) : 0) : -1;
    pypi_marker_free(m);
    if (r < 0)
        problem(s, EL_SPEC_INVALID, F_LOCK, NULL, at, "`%s`: %s", marker, err ? err : "");
    free(err);
    return r == 1;
}

/* A fork's copy applies where one of its resolution-markers holds; a
 * package without them applies everywhere. */
static bool applies(sel *s, const toml_value *pkg)
{
    const toml_value *rm = kind_at(pkg, "resolution-markers", TOML_ARRAY);
    if (!rm || rm->n == 0)
        return true;
    for (size_t i = 0; i < rm->n; i++)
        if (rm->items[i]->kind == TOML_STRING && holds(s, rm->items[i], rm->items[i]->s))
            return true;
    return false;
}

static bool same_source(const toml_value *a, const toml_value *b)
{
    const char *ra = str_at(a, "registry"), *rb = str_at(b, "registry");
    return !ra || !rb || strcmp(ra, rb) == 0;
}

/* The package an edge names: by name, then the edge's version and source
 * where it gives them, then the copy whose resolution-markers hold; -1
 * for none, -2 for a fork none of whose copies applies. */
static long target_of(sel *s, const toml_value *edge)
{
    const char *want = canonical(s, str_at(edge, "name"));
    const char *version = str_at(edge, "version");
    const toml_value *source = kind_at(edge, "source", TOML_TABLE);
    long found = -1, applying = -1;
    size_t n_found = 0;
    for (size_t k = first_named(s->by_name, s->n, want);
         k < s->n && strcmp(s->by_name[k].name, want) == 0; k++) {
        size_t i = s->by_name[k].idx;
        const toml_value *p = s->pkgs[i];
        if ((version && (!str_at(p, "version") || strcmp(str_at(p, "version"), version) != 0)) ||
            (source && !same_source(source, kind_at(p, "source", TOML_TABLE))))
            continue;
        n_found++;
        found = (long)i;
        if (applying < 0 && applies(s, p))
            applying = (long)i;
    }
    return n_found > 1 ? (applying >= 0 ? applying : -2) : found;
}

static void push(sel *s, long pkg, const char *extra)
{
    step *t = arena_alloc(s->mem, sizeof *t);
    t->pkg = pkg;
    t->extra = extra;
    ptrvec_push(&s->todo, t);
}

/* An edge the walk followed. Every edge uv.lock records between two
 * packages is kept (the same name listed twice, with other markers or
 * extras, is two edges); only the very same record reached twice is one
 * (the key cannot be an extra's: those hold a newline). */
static void followed(sel *s, long from, long to, const toml_value *edge)
{
    strbuf sb = STRBUF_INIT;
    const char *name = str_at(edge, "name");
    sb_addf(&sb, "%s", name ? name : "");
    const toml_value *ex = kind_at(edge, "extra", TOML_ARRAY);
    size_t n = 0;
    for (size_t x = 0; ex && x < ex->n; x++)
        if (ex->items[x]->kind == TOML_STRING)
            sb_addf(&sb, "%s%s", n++ ? "," : "[", ex->items[x]->s);
    if (n)
        sb_addc(&sb, ']');
    if (str_at(edge, "marker"))
        sb_addf(&sb, "; %s", str_at(edge, "marker"));
    if (!seen_add(s, arena_sprintf(s->mem, "%ld>%ld>%s", from, to, sb.buf))) {
        sb_release(&sb);
        return;
    }
    spec_uvedge *e = arena_alloc(s->mem, sizeof *e);
    *e = (spec_uvedge){from, to, arena_strdup(s->mem, sb.buf)};
    sb_release(&sb);
    ptrvec_push(&s->edges, e);
}

/* Each edge of `edges` (an array of inline tables) whose marker holds. */
static void walk(sel *s, long from, const toml_value *edges)
{
    for (size_t k = 0; edges && k < edges->n; k++) {
        const toml_value *e = edges->items[k];
        const char *name = str_at(e, "name");
        if (e->kind != TOML_TABLE || !name) {
            problem(s, EL_SPEC_INVALID, F_LOCK, NULL, e,
                    "a dependency of `%s` is not a table with a `name`",
                    str_at(s->pkgs[from], "name"));
            continue;
        }
        if (!holds(s, e, str_at(e, "marker")))
            continue;
        long to = target_of(s, e);
        if (to == -2 && !s->env)
            continue; /* which copy is the target's: only a target says */
        if (to < 0) {
            problem(s, EL_SPEC_INVALID, F_LOCK, canonical(s, name), e,
                    "`%s` depends on `%s`, and uv.lock has no package for it here: " RUN_UV_LOCK,
                    str_at(s->pkgs[from], "name"), name);
            continue;
        }
        followed(s, from, to, e);
        push(s, to, NULL);
        const toml_value *ex = kind_at(e, "extra", TOML_ARRAY);
        for (size_t x = 0; ex && x < ex->n; x++)
            if (ex->items[x]->kind == TOML_STRING)
                push(s, to, ex->items[x]->s);
    }
}

/* One step: package `i`, and with `extra` its optional dependencies of
 * that name (uv writes the keys canonical); each taken once. */
static void take(sel *s, long i, const char *extra)
{
    if (!extra) {
        if (s->chosen[i])
            return;
        s->chosen[i] = true;
        walk(s, i, kind_at(s->pkgs[i], "dependencies", TOML_ARRAY));
        return;
    }
    const char *want = canonical(s, extra);
    if (!seen_add(s, arena_sprintf(s->mem, "%ld\n%s", i, want)))
        return;
    step *x = arena_alloc(s->mem, sizeof *x);
    *x = (step){i, want};
    ptrvec_push(&s->extras, x);
    const toml_value *opt = kind_at(s->pkgs[i], "optional-dependencies", TOML_TABLE);
    for (size_t k = 0; opt && k < opt->n; k++)
        if (strcmp(opt->keys[k], want) == 0 && opt->items[k]->kind == TOML_ARRAY)
            walk(s, i, opt->items[k]);
}

/* Every step pushed, last first, until none is left. */
static void take_all(sel *s)
{
    while (s->todo.len) {
        step *t = s->todo.items[--s->todo.len];
        take(s, t->pkg, t->extra);
    }
}

/* The groups `uv sync` installs by default: pyproject's
 * `[tool.uv] default-groups` (a list, or "all"), else `dev`. */
static bool default_group(sel *s, const char *group)
{
    const toml_value *uv = kind_at(kind_at(s->pyproject, "tool", TOML_TABLE), "uv", TOML_TABLE);
    const toml_value *dg = uv ? toml_get(uv, "default-groups") : NULL;
    if (!dg)
        return strcmp(canonical(s, group), "dev") == 0;
    if (dg->kind == TOML_STRING)
        return strcmp(dg->s, "all") == 0;
    for (size_t i = 0; dg->kind == TOML_ARRAY && i < dg->n; i++)
        if (dg->items[i]->kind == TOML_STRING &&
            strcmp(canonical(s, dg->items[i]->s), canonical(s, group)) == 0)
            return true;
    return false;
}

static bool is_project_source(const toml_value *pkg)
{
    const toml_value *src = kind_at(pkg, "source", TOML_TABLE);
    const char *e = str_at(src, "editable"), *v = str_at(src, "virtual");
    return (e && strcmp(e, ".") == 0) || (v && strcmp(v, ".") == 0);
}

/* uv.lock's `[manifest] members`: the workspace's packages (uv writes
 * the manifest only for a workspace; the project is one of them). */
static void read_members(sel *s)
{
    const toml_value *m = kind_at(kind_at(s->lock, "manifest", TOML_TABLE), "members", TOML_ARRAY);
    s->members = arena_alloc(s->mem, ((m ? m->n : 0) + 1) * sizeof *s->members);
    for (size_t i = 0; m && i < m->n; i++)
        if (m->items[i]->kind == TOML_STRING)
            s->members[s->n_members++] = (named){canonical(s, m->items[i]->s), i, m->items[i]};
    qsort(s->members, s->n_members, sizeof *s->members, cmp_named);
}

/* Package `i` is a workspace member: named in the manifest, and its source
 * the member's own directory (`editable` or `virtual`), as uv writes one.
 * A member is source, not an artifact: its dependencies are followed as
 * the project's are, and it is left out of what the lock installs. */
static bool is_member(const sel *s, size_t i)
{
    const toml_value *src = kind_at(s->pkgs[i], "source", TOML_TABLE);
    return (str_at(src, "editable") || str_at(src, "virtual")) &&
           first_named(s->members, s->n_members, s->names[i]) < s->n_members;
}

static void index_names(sel *s)
{
    s->names = arena_alloc(s->mem, (s->n + 1) * sizeof *s->names);
    s->by_name = arena_alloc(s->mem, (s->n + 1) * sizeof *s->by_name);
    for (size_t i = 0; i < s->n; i++) {
        s->names[i] = canonical(s, str_at(s->pkgs[i], "name"));
        s->by_name[i] = (named){s->names[i], i, s->pkgs[i]};
    }
    qsort(s->by_name, s->n, sizeof *s->by_name, cmp_named);
}

static void select_from_root(sel *s)
{
    index_names(s);
    read_members(s);
    for (size_t i = 0; i < s->n && s->root < 0; i++)
        if (is_project_source(s->pkgs[i]))
            s->root = (long)i;
    if (s->root < 0) {
        problem(s, EL_SPEC_INVALID, F_LOCK, NULL, NULL,
                "has no package for the project itself (`source = { editable = \".\" }` or "
                "`{ virtual = \".\" }`): it is not the uv.lock of this pyproject.toml");
        return;
    }
    s->chosen[s->root] = true;
    const toml_value *root = s->pkgs[s->root];
    walk(s, s->root, kind_at(root, "dependencies", TOML_ARRAY));
    const toml_value *groups = kind_at(root, "dev-dependencies", TOML_TABLE);
    for (size_t g = 0; groups && g < groups->n; g++)
        if (groups->items[g]->kind == TOML_ARRAY && default_group(s, groups->keys[g]))
            walk(s, s->root, groups->items[g]);
    take_all(s);
}

/* ---- what each selected package is, and whether envlock can lock it ---- */

/* A wheel or sdist table as uv.lock writes it: its hash (for the hash
 * list) and the file itself. */
static void add_file(sel *s, ptrvec *hashes, ptrvec *files, const toml_value *file, bool wheel)
{
    const char *h = str_at(file, "hash");
    if (!file || file->kind != TOML_TABLE)
        return;
    if (h)
        ptrvec_push(hashes, (void *)h);
    const toml_value *size = kind_at(file, "size", TOML_INTEGER);
    spec_uvfile *f = arena_alloc(s->mem, sizeof *f);
    *f = (spec_uvfile){
        .url = str_at(file, "url"),
        .hash = h,
        .size = size && size->i > 0 ? (uint64_t)size->i : 0,
        .wheel = wheel,
    };
    ptrvec_push(files, f);
}

/* A registry the spec names, else the problem with the source's kind. */
static bool lockable(sel *s, const toml_value *pkg, const char *name, const char *const *indexes,
                     size_t n_indexes)
{
    const toml_value *src = kind_at(pkg, "source", TOML_TABLE);
    const char *reg = str_at(src, "registry");
    if (reg) {
        for (size_t k = 0; k < n_indexes; k++)
            if (spec_index_same(indexes[k], reg))
                return true;
        problem(s, EL_SPEC_INVALID, F_LOCK, name, pkg,
                "`%s` comes from `%s` in uv.lock, an index the spec does not name: the indexes "
                "are the spec's choice, so add it to `spec.packages.python.indexes`",
                name, reg);
        return false;
    }
    static const char *const kinds[] = {"git", "path", "directory", "editable", "virtual", "url"};
    const char *kind = "(no source)", *where = "";
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (str_at(src, kinds[k])) {
            kind = kinds[k];
            where = str_at(src, kinds[k]);
            break;
        }
    problem(s, EL_CAPABILITY_UNSUPPORTED, F_LOCK, name, pkg,
            "`%s` comes from %s `%s` in uv.lock: a lock installs only files an index serves by "
            "hash, so publish it to one of the spec's indexes and lock it from there",
            name, kind, where);
    return false;
}

/* Its wheels, then its sdist, with their hashes. */
static void files_of(sel *s, spec_uvpkg *u, const toml_value *p)
{
    ptrvec hashes = PTRVEC_INIT, files = PTRVEC_INIT;
    const toml_value *wheels = kind_at(p, "wheels", TOML_ARRAY);
    for (size_t w = 0; wheels && w < wheels->n; w++)
        add_file(s, &hashes, &files, wheels->items[w], true);
    add_file(s, &hashes, &files, kind_at(p, "sdist", TOML_TABLE), false);
    u->hashes = arena_alloc(s->mem, (hashes.len + 1) * sizeof *u->hashes);
    for (size_t h = 0; h < hashes.len; h++)
        u->hashes[h] = hashes.items[h];
    u->n_hashes = hashes.len;
    u->files = arena_alloc(s->mem, (files.len + 1) * sizeof *u->files);
    for (size_t f = 0; f < files.len; f++)
        u->files[f] = *(spec_uvfile *)files.items[f];
    u->n_files = files.len;
    ptrvec_release(&hashes);
    ptrvec_release(&files);
}

/* An extra followed, with its place in the walk (the tie-break). */
typedef struct taken {
    long pkg;
    size_t order;
    const char *extra;
} taken;

static int cmp_taken(const void *a, const void *b)
{
    const taken *x = a, *y = b;
    if (x->pkg != y->pkg)
        return (x->pkg > y->pkg) - (x->pkg < y->pkg);
    return (x->order > y->order) - (x->order < y->order);
}

/* The extras followed, onto each selected package (`at`: uv.lock index ->
 * index in out->pkgs, or -1), in one pass over them sorted by package. */
static void extras_onto(sel *s, spec_uvlock *out, const long *at)
{
    size_t n = s->extras.len;
    taken *v = arena_alloc(s->mem, (n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const step *t = s->extras.items[i];
        v[i] = (taken){t->pkg, i, t->extra};
    }
    qsort(v, n, sizeof *v, cmp_taken);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].pkg == v[i].pkg)
            j++;
        long k = at[v[i].pkg];
        if (k >= 0) {
            const char **x = arena_alloc(s->mem, (j - i + 1) * sizeof *x);
            for (size_t m = i; m < j; m++)
                x[m - i] = v[m].extra;
            out->pkgs[k].extras = x;
        }
        i = j;
    }
}

static void collect(sel *s, spec_uvlock *out, const char *const *indexes, size_t n_indexes)
{
    ptrvec members = PTRVEC_INIT;
    out->pkgs = arena_alloc(s->mem, (s->n + 1) * sizeof *out->pkgs);
    long *at = arena_alloc(s->mem, (s->n + 1) * sizeof *at);
    for (size_t i = 0; i < s->n; i++) {
        at[i] = -1;
        if (!s->chosen[i] || (long)i == s->root)
            continue;
        const toml_value *p = s->pkgs[i];
        const char *name = s->names[i];
        if (is_member(s, i)) {
            ptrvec_push(&members, (void *)name);
            continue;
        }
        if (!lockable(s, p, name, indexes, n_indexes))
            continue;
        at[i] = (long)out->n_pkgs;
        spec_uvpkg *u = &out->pkgs[out->n_pkgs++];
        u->name = name;
        u->version = str_at(p, "version") ? str_at(p, "version") : "";
        u->registry = str_at(kind_at(p, "source", TOML_TABLE), "registry");
        u->line = p->line;
        u->column = p->column;
        files_of(s, u, p);
        if (!u->n_hashes)
            problem(s, EL_CAPABILITY_UNSUPPORTED, F_LOCK, name, p,
                    "`%s` %s has no file with a hash in uv.lock, and a lock installs only "
                    "files it can check", name, u->version);
    }
    out->members = arena_alloc(s->mem, (members.len + 1) * sizeof *out->members);
    for (size_t i = 0; i < members.len; i++)
        out->members[i] = members.items[i];
    out->n_members = members.len;
    ptrvec_release(&members);
    extras_onto(s, out, at);
    out->edges = arena_alloc(s->mem, (s->edges.len + 1) * sizeof *out->edges);
    for (size_t i = 0; i < s->edges.len; i++) {
        const spec_uvedge *e = s->edges.items[i];
        bool project = e->from == s->root || is_member(s, (size_t)e->from);
        long from = project ? -1 : at[e->from], to = at[e->to];
        if (to >= 0 && (from >= 0 || project))
            out->edges[out->n_edges++] = (spec_uvedge){from, to, e->spec};
    }
}

/* ---- drift: does uv.lock still answer pyproject.toml? ---- */

/* A specifier set as a canonical text: its clauses with normalized
 * versions, sorted, so `>=2.31, <3` and `<3,>=2.31.0` compare equal. */
static char *spec_key(sel *s, const char *text)
{
    pypi_specset *set = pypi_specset_parse(text ? text : "", NULL);
    if (!set)
        return arena_strdup(s->mem, text ? text : "");
    size_t n = pypi_specset_len(set);
    char **clauses = xcalloc(n + 1, sizeof *clauses);
    for (size_t i = 0; i < n; i++) {
        pypi_version *v = pypi_version_parse(pypi_specset_version(set, i), NULL);
        clauses[i] = xasprintf("%s%s", pypi_specset_op(set, i),
                               v ? pypi_version_str(v) : pypi_specset_version(set, i));
        pypi_version_free(v);
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(clauses[j - 1], clauses[j]) > 0; j--) {
            char *t = clauses[j];
            clauses[j] = clauses[j - 1];
            clauses[j - 1] = t;
        }
    strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < n; i++) {
        sb_addf(&sb, "%s%s", i ? "," : "", clauses[i]);
        free(clauses[i]);
    }
    free(clauses);
    pypi_specset_free(set);
    char *out = arena_strdup(s->mem, sb.buf);
    sb_release(&sb);
    return out;
}

/* The version uv.lock selected for `name` here, or NULL. */
static const char *selected_version(const sel *s, const char *name)
{
    for (size_t k = first_named(s->by_name, s->n, name);
         k < s->n && strcmp(s->by_name[k].name, name) == 0; k++)
        if (s->chosen[s->by_name[k].idx] && (long)s->by_name[k].idx != s->root)
            return str_at(s->pkgs[s->by_name[k].idx], "version");
    return NULL;
}

/* Whether a requires-dist `marker` is for `extra` (uv writes
 * `extra == 'name'`, joined to the requirement's own marker by `and`);
 * with `extra` NULL, whether it is for no extra. */
static bool for_extra(sel *s, const char *marker, const char *extra)
{
    if (!extra)
        return !(marker && strstr(marker, "extra =="));
    return marker && (strstr(marker, arena_sprintf(s->mem, "extra == '%s'", extra)) ||
                      strstr(marker, arena_sprintf(s->mem, "extra == \"%s\"", extra)));
}

/* The entries of a lock list (`requires-dist`, a `requires-dev` group)
 * for `extra` (NULL: for none, the project's own dependencies) by
 * canonical name, in the list's order. */
static named *lock_names(sel *s, const toml_value *list, const char *extra, size_t *n)
{
    named *v = arena_alloc(s->mem, ((list ? list->n : 0) + 1) * sizeof *v);
    *n = 0;
    for (size_t k = 0; list && k < list->n; k++) {
        const toml_value *e = list->items[k];
        if (for_extra(s, str_at(e, "marker"), extra))
            v[(*n)++] = (named){canonical(s, str_at(e, "name")), k, e};
    }
    return v;
}

/* One requirement of pyproject.toml (`r`, written as `req`) against the
 * lock's record of it (`e`, or NULL). */
static void drift_one(sel *s, const toml_value *req, const pypi_requirement *r,
                      const toml_value *e)
{
    const char *v = selected_version(s, r->canonical_name);
    pypi_version *pv = v ? pypi_version_parse(v, NULL) : NULL;
    size_t before = s->problems.len;
    if (!e)
        problem(s, EL_RESOLVE_CONFLICT, F_LOCK, r->canonical_name, req,
                "`%s` is not in uv.lock, and pyproject.toml asks for `%s`: " RUN_UV_LOCK,
                r->canonical_name, req->s);
    else if (pv && !pypi_specset_contains(r->specset, pv, PYPI_PRE_YES))
        problem(s, EL_RESOLVE_CONFLICT, F_LOCK, r->canonical_name, req,
                "`%s` is %s in uv.lock, and pyproject.toml asks for %s: " RUN_UV_LOCK,
                r->canonical_name, v, r->specifier);
    else if (strcmp(spec_key(s, r->specifier), spec_key(s, str_at(e, "specifier"))) != 0)
        problem(s, EL_RESOLVE_CONFLICT, F_LOCK, r->canonical_name, req,
                "`%s` is locked for `%s` in uv.lock, and pyproject.toml asks for `%s`: " RUN_UV_LOCK,
                r->canonical_name, str_at(e, "specifier") ? str_at(e, "specifier") : "any version",
                r->specifier[0] ? r->specifier : "any version");
    if (s->problems.len > before) /* the position is the requirement's, in pyproject.toml */
        ((spec_uvproblem *)s->problems.items[before])->at = F_CONTENT;
    pypi_version_free(pv);
}

/* pyproject's list `reqs` (strings, `where` in it) against the lock's
 * `list`, both ways. */
static void drift_list(sel *s, const toml_value *reqs, const toml_value *list, const char *where,
                       const char *extra)
{
    size_t n_lock = 0, n_req = 0, n = reqs ? reqs->n : 0;
    named *locked = lock_names(s, list, extra, &n_lock);
    qsort(locked, n_lock, sizeof *locked, cmp_named);
    named *asked = arena_alloc(s->mem, (n + 1) * sizeof *asked);
    for (size_t k = 0; k < n; k++) {
        const toml_value *q = reqs->items[k];
        char *err = NULL;
        pypi_requirement *r = q->kind == TOML_STRING ? pypi_requirement_parse(q->s, &err) : NULL;
        if (!r && q->kind == TOML_STRING)
            problem(s, EL_SPEC_INVALID, F_CONTENT, NULL, q, "`%s` in %s: %s", q->s, where,
                    err ? err : "");
        free(err);
        if (!r)
            continue;
        size_t at = first_named(locked, n_lock, r->canonical_name);
        drift_one(s, q, r, at < n_lock ? locked[at].ptr : NULL);
        asked[n_req++] = (named){canonical(s, r->canonical_name), k, q};
        pypi_requirement_free(r);
    }
    qsort(asked, n_req, sizeof *asked, cmp_named);
    named *in_order = lock_names(s, list, extra, &n_lock);
    for (size_t k = 0; k < n_lock; k++)
        if (first_named(asked, n_req, in_order[k].name) == n_req)
            problem(s, EL_RESOLVE_CONFLICT, F_LOCK, in_order[k].name, in_order[k].ptr,
                    "`%s` is in uv.lock, and pyproject.toml %s no longer asks for it: " RUN_UV_LOCK,
                    in_order[k].name, where);
}

/* `[project.optional-dependencies]` against requires-dist's entries for
 * each extra, and the extras uv.lock records (`provides-extras`) that
 * pyproject.toml no longer has. */
static void drift_extras(sel *s, const toml_value *opt, const toml_value *rd,
                         const toml_value *provides)
{
    for (size_t g = 0; opt && g < opt->n; g++)
        drift_list(s, opt->items[g]->kind == TOML_ARRAY ? opt->items[g] : NULL, rd,
                   arena_sprintf(s->mem, "`[project.optional-dependencies] %s`", opt->keys[g]),
                   canonical(s, opt->keys[g]));
    for (size_t x = 0; provides && x < provides->n; x++) {
        const toml_value *v = provides->items[x];
        bool kept = false;
        for (size_t g = 0; opt && g < opt->n && !kept && v->kind == TOML_STRING; g++)
            kept = strcmp(canonical(s, opt->keys[g]), canonical(s, v->s)) == 0;
        if (!kept && v->kind == TOML_STRING)
            drift_list(s, NULL, rd,
                       arena_sprintf(s->mem, "`[project.optional-dependencies] %s`", v->s),
                       canonical(s, v->s));
    }
}

/* The group named `want` of pyproject's `[dependency-groups]` (names
 * compared PEP 503 normalized), or NULL. */
static const toml_value *group_named(sel *s, const toml_value *groups, const char *want)
{
    for (size_t g = 0; groups && g < groups->n; g++)
        if (strcmp(canonical(s, groups->keys[g]), canonical(s, want)) == 0)
            return groups->items[g];
    return NULL;
}

/* Group `g`'s requirement strings onto `out`, each `{ include-group = "x" }`
 * replaced by x's (PEP 735), as uv records the group in uv.lock; `depth`
 * stops a cycle, which PEP 735 forbids and uv refuses. */
static void group_flat(sel *s, const toml_value *groups, const toml_value *g, size_t depth,
                       ptrvec *out)
{
    for (size_t k = 0; g && g->kind == TOML_ARRAY && depth <= groups->n && k < g->n; k++) {
        const toml_value *e = g->items[k];
        const char *inc = str_at(e, "include-group");
        if (e->kind == TOML_STRING)
            ptrvec_push(out, (void *)e);
        else if (inc)
            group_flat(s, groups, group_named(s, groups, inc), depth + 1, out);
    }
}

/* `[dependency-groups] g` with its includes expanded, as an array. */
static const toml_value *group_reqs(sel *s, const toml_value *groups, const toml_value *g)
{
    if (!g || g->kind != TOML_ARRAY)
        return NULL;
    ptrvec flat = PTRVEC_INIT;
    group_flat(s, groups, g, 0, &flat);
    toml_value *a = arena_alloc(s->mem, sizeof *a);
    *a = *g;
    a->n = flat.len;
    a->items = arena_alloc(s->mem, (flat.len + 1) * sizeof *a->items);
    for (size_t k = 0; k < flat.len; k++)
        a->items[k] = flat.items[k];
    ptrvec_release(&flat);
    return a;
}

static void drift(sel *s)
{
    const toml_value *root = s->pkgs[s->root];
    const toml_value *project = kind_at(s->pyproject, "project", TOML_TABLE);
    const char *name = str_at(project, "name");
    if (name && strcmp(canonical(s, name), canonical(s, str_at(root, "name"))) != 0)
        problem(s, EL_RESOLVE_CONFLICT, F_LOCK, NULL, root,
                "uv.lock locks the project `%s`, and pyproject.toml names it `%s`: " RUN_UV_LOCK,
                str_at(root, "name"), name);
    const toml_value *meta = kind_at(root, "metadata", TOML_TABLE);
    const toml_value *rd = kind_at(meta, "requires-dist", TOML_ARRAY);
    drift_list(s, kind_at(project, "dependencies", TOML_ARRAY), rd, "`[project] dependencies`",
               NULL);
    drift_extras(s, kind_at(project, "optional-dependencies", TOML_TABLE), rd,
                 kind_at(meta, "provides-extras", TOML_ARRAY));
    const toml_value *groups = kind_at(s->pyproject, "dependency-groups", TOML_TABLE);
    const toml_value *dev = kind_at(meta, "requires-dev", TOML_TABLE);
    for (size_t g = 0; groups && g < groups->n; g++) {
        char *where = arena_sprintf(s->mem, "`[dependency-groups] %s`", groups->keys[g]);
        drift_list(s, group_reqs(s, groups, groups->items[g]),
                   kind_at(dev, groups->keys[g], TOML_ARRAY), where, NULL);
    }
    for (size_t g = 0; dev && g < dev->n; g++)
        if (!kind_at(groups, dev->keys[g], TOML_ARRAY))
            drift_list(s, NULL, dev->items[g]->kind == TOML_ARRAY ? dev->items[g] : NULL,
                       arena_sprintf(s->mem, "`[dependency-groups] %s`", dev->keys[g]), NULL);
}

/* ---- the whole ---- */

/* uv.lock's `requires-python` is the project's: a target outside it is
 * one uv would not install the project on (PEP 440, pre-releases
 * admitted as the reference's pins are). */
static void python_fits(sel *s)
{
    if (!s->env)
        return;
    const toml_value *rp = kind_at(s->lock, "requires-python", TOML_STRING);
    pypi_specset *set = rp ? pypi_specset_parse(rp->s, NULL) : NULL;
    pypi_version *v = set ? pypi_version_parse(s->env->python_full_version, NULL) : NULL;
    if (v && !pypi_specset_contains(set, v, PYPI_PRE_YES))
        problem(s, EL_RESOLVE_CONFLICT, F_LOCK, NULL, rp,
                "uv.lock is for Python %s (`requires-python`), and the target's is %s: "
                "choose a base with such a Python, or widen `requires-python` and run `uv lock`",
                rp->s, s->env->python_full_version);
    pypi_version_free(v);
    pypi_specset_free(set);
}

static const toml_value *parse(sel *s, const char *text, const char *field, const char *what)
{
    char *err = NULL;
    unsigned line = 0, col = 0;
    const toml_value *v = toml_parse(s->mem, text ? text : "", text ? strlen(text) : 0, &err,
                                     &line, &col);
    if (!v) {
        toml_value at = {.line = line, .column = col};
        problem(s, EL_SPEC_INVALID, field, NULL, &at, "the %s is not TOML: %s", what,
                err ? err : "");
    }
    free(err);
    return v;
}

spec_uvlock *spec_uvlock_select(arena *mem, const char *pyproject, const char *lock,
                                const pypi_env *env, const char *const *indexes,
                                size_t n_indexes)
{
    spec_uvlock *out = arena_alloc(mem, sizeof *out);
    sel s = {.mem = mem, .env = env, .root = -1};
    s.pyproject = parse(&s, pyproject, F_CONTENT, "pyproject.toml");
    s.lock = parse(&s, lock, F_LOCK, "uv.lock");
    const toml_value *pkgs = kind_at(s.lock, "package", TOML_ARRAY);
    if (s.pyproject && s.lock) {
        s.pkgs = pkgs ? (const toml_value *const *)pkgs->items : NULL;
        s.n = pkgs ? pkgs->n : 0;
        s.chosen = arena_alloc(mem, (s.n + 1) * sizeof *s.chosen);
        select_from_root(&s);
    }
    if (s.root >= 0) {
        python_fits(&s);
        drift(&s);
        collect(&s, out, indexes, n_indexes);
    }
    out->problems = arena_alloc(mem, (s.problems.len + 1) * sizeof *out->problems);
    for (size_t i = 0; i < s.problems.len; i++)
        out->problems[i] = *(spec_uvproblem *)s.problems.items[i];
    out->n_problems = s.problems.len;
    ptrvec_release(&s.problems);
    ptrvec_release(&s.todo);
    ptrvec_release(&s.edges);
    ptrvec_release(&s.extras);
    return out;
}

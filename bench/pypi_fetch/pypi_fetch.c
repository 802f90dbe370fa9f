/* pypi_fetch.c — the envlock side of bench/pypi_fetch: fetch what a resolver
 * needs for some PyPI projects and everything they depend on, through one
 * cache and one loader, the way the resolver will (submit many names, run
 * the cache, read records). Each round submits every newly named project
 * (its page plus the dependency metadata of its newest usable version) and
 * runs the cache once: the rounds are the depth of the dependency graph,
 * each fetched in parallel. Prints one JSON line: the projects, the version
 * whose dependencies were followed, and the cache's counters.
 *
 * usage: pypi_fetch --cache-dir DIR [--mirror CANONICAL=URL]... [--offline]
 *                   [--index URL] [--python X.Y] [--platform TAG] NAME... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "pypi_index.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct args {
    el_cache_options co;
    const char *mirrors[16];
    const char *index, *python, *platform;
    ptrvec names; /* canonical, each once */
} args;

/* false on a usage error */
static bool parse_args(int argc, char **argv, args *o)
{
    o->python = "3.13";
    o->platform = "manylinux_2_36_x86_64";
    o->co.quiet = true;
    o->co.no_mirror_config = true;
    o->co.mirrors = o->mirrors;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--cache-dir") && i + 1 < argc)
            o->co.dir = argv[++i];
        else if (!strcmp(a, "--mirror") && i + 1 < argc && o->co.n_mirrors < 16)
            o->mirrors[o->co.n_mirrors++] = argv[++i];
        else if (!strcmp(a, "--offline"))
            o->co.offline = true;
        else if (!strcmp(a, "--index") && i + 1 < argc)
            o->index = argv[++i];
        else if (!strcmp(a, "--python") && i + 1 < argc)
            o->python = argv[++i];
        else if (!strcmp(a, "--platform") && i + 1 < argc)
            o->platform = argv[++i];
        else if (a[0] == '-') {
            fprintf(stderr, "usage: pypi_fetch --cache-dir DIR [--mirror C=U]... [--offline] "
                            "[--index URL] [--python X.Y] [--platform TAG] NAME...\n");
            return false;
        } else {
            char *c = pypi_name_canonical(a);
            if (!ptrvec_has_str(&o->names, c))
                ptrvec_push(&o->names, c);
            else
                free(c);
        }
    }
    return true;
}

/* Queues the dependencies (markers true on `t`) of the newest usable
 * version of each project in names[from, upto). */
static void add_dependencies(pypi_loader *l, const pypi_target *t, ptrvec *names, size_t from,
                             size_t upto)
{
    for (size_t i = from; i < upto; i++) {
        const pypi_project *p = pypi_loader_get(l, names->items[i]);
        if (!p || p->code != EL_OK)
            continue;
        for (size_t k = 0; k < p->ncands; k++) {
            const pypi_candidate *cd = &p->cands[k];
            if (cd->excluded)
                continue;
            for (size_t d = 0; cd->meta == PYPI_META_LOADED && d < cd->ndeps; d++) {
                const pypi_requirement *r = cd->deps[d].req;
                if (!r)
                    continue;
                char *err = NULL;
                if (r->marker && pypi_marker_evaluate(r->marker, &t->env, &err) != 1) {
                    free(err);
                    continue;
                }
                if (!ptrvec_has_str(names, r->canonical_name))
                    ptrvec_push(names, xstrdup(r->canonical_name));
            }
            break; /* the newest usable version only */
        }
    }
}

/* Prints the JSON report; returns how many projects have no version. */
static size_t report(pypi_loader *l, cache *c, const ptrvec *names, size_t rounds, double ms)
{
    json_object *root = json_object_new_object();
    json_object *projects = json_object_new_object();
    size_t failed = 0;
    for (size_t i = 0; i < names->len; i++) {
        const pypi_project *p = pypi_loader_get(l, names->items[i]);
        const char *v = NULL;
        for (size_t k = 0; p && p->code == EL_OK && k < p->ncands && !v; k++)
            if (!p->cands[k].excluded)
                v = p->cands[k].version;
        if (!v)
            failed++;
        json_object_object_add(projects, names->items[i],
                               v ? json_object_new_string(v)
                                 : json_object_new_string(p && p->reason ? p->reason : "none"));
    }
    cache_run_stats st;
    cache_get_stats(c, &st);
    json_object_object_add(root, "projects", projects);
    json_object_object_add(root, "n_projects", json_object_new_int64((int64_t)names->len));
    json_object_object_add(root, "failed", json_object_new_int64((int64_t)failed));
    json_object_object_add(root, "rounds", json_object_new_int64((int64_t)rounds));
    json_object *s = json_object_new_object();
    json_object_object_add(s, "requests", json_object_new_int64((int64_t)st.requests));
    json_object_object_add(s, "network", json_object_new_int64((int64_t)st.network));
    json_object_object_add(s, "hits", json_object_new_int64((int64_t)st.hits));
    json_object_object_add(s, "revalidated", json_object_new_int64((int64_t)st.revalidated));
    json_object_object_add(s, "bytes", json_object_new_int64((int64_t)st.bytes));
    json_object_object_add(root, "stats", s);
    json_object_object_add(root, "wall_ms", json_object_new_double(ms));
    printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
    return failed;
}

int main(int argc, char **argv)
{
    args o;
    memset(&o, 0, sizeof o);
    if (!parse_args(argc, argv, &o))
        return 2;
    ptrvec names = o.names;
    el_ctx *ctx = el_ctx_new();
    double t0 = now_ms();
    cache *c = cache_open(ctx, &o.co);
    pypi_target t;
    if (!c || pypi_target_init(ctx, &t, o.python, o.platform, NULL) != EL_OK) {
        fprintf(stderr, "pypi_fetch: %s\n", el_ctx_message(ctx));
        return 1;
    }
    const char *const idx[1] = { o.index };
    pypi_loader *l = pypi_loader_new(c, &t, o.index ? idx : NULL, o.index ? 1 : 0);
    size_t done = 0, rounds = 0;
    int ret = 0;
    while (done < names.len) {
        size_t upto = names.len;
        for (size_t i = done; i < upto; i++)
            pypi_loader_submit(l, names.items[i], 1);
        rounds++;
        if (cache_run(c, ctx) != EL_OK) {
            fprintf(stderr, "pypi_fetch: %s\n", el_ctx_message(ctx));
            ret = 1;
            break;
        }
        add_dependencies(l, &t, &names, done, upto);
        done = upto;
    }
    size_t failed = report(l, c, &names, rounds, now_ms() - t0);
    pypi_loader_free(l);
    pypi_target_clear(&t);
    cache_close(c);
    el_ctx_free(ctx);
    for (size_t i = 0; i < names.len; i++)
        free(names.items[i]);
    ptrvec_release(&names);
    return ret ? ret : failed ? 1 : 0;
}

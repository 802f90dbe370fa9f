/* verb_resolve.c — the public el_resolve(): the catalog, the request
 * (base_request.c), the previous lock as a preference, the solve
 * (resolver_resolve) and the lock (lockfile/). It only sequences those
 * steps; it solves nothing, fetches nothing and writes no format itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "envlock/resolve.h"
#include "cache.h"
#include "pep508.h"
#include "resolver.h"
#include "base.h"
#include "base_request.h"
#include "verbs_internal.h"

el_code el_exclude_newer_normalize(el_ctx *ctx, const char *value, char out[32])
{
    return target_time_normalize(ctx, value, (int64_t)time(NULL), out);
}

static void add_note(el_resolve_result *res, const char *note)
{
    res->notes = xrealloc(res->notes, (res->n_notes + 1) * sizeof *res->notes);
    res->notes[res->n_notes++] = xstrdup(note);
}

void el_resolve_result_clear(el_resolve_result *res)
{
    if (!res)
        return;
    free(res->lock_path);
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

/* Whether the lock's path names the spec's own file (the same inode, so
 * also through a symlink or hard link; stdin when the spec is read from it).
 * Such a lock would replace the spec, with or without --upgrade. */
static bool is_the_spec(const char *spec_path, const char *lock_path)
{
    struct stat ss, ls;
    if (!spec_path || stat(lock_path, &ls) != 0)
        return false;
    int r = strcmp(spec_path, "-") == 0 ? fstat(STDIN_FILENO, &ss) : stat(spec_path, &ss);
    return r == 0 && S_ISREG(ss.st_mode) && ss.st_dev == ls.st_dev && ss.st_ino == ls.st_ino;
}

/* The output path is refused before any work: not a file one can write
 * (verbs_out_file_check) or the spec itself. */
static el_code check_out(el_ctx *ctx, const el_resolve_options *o, const char *lock_path)
{
    const char *option = o->lock_path ? "-o" : "the lock path";
    el_code rc = verbs_out_file_check(ctx, option, lock_path);
    if (rc != EL_OK || !is_the_spec(o->spec_path, lock_path))
        return rc;
    rc = el_fail(ctx, EL_USAGE,
                 "%s `%s` is the spec `%s` itself: the lock would replace it; write the lock "
                 "to another file (by default the spec's name with `.lock`, beside it)",
                 option, lock_path, strcmp(o->spec_path, "-") == 0 ? "(stdin)" : o->spec_path);
    el_detail_str(ctx, "option", option);
    el_detail_str(ctx, "path", lock_path);
    el_detail_str(ctx, "spec", o->spec_path);
    return rc;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The lock already at the output path. Without --upgrade it is the
 * preference, and one that cannot be read is an error; with --upgrade it
 * is only a list of names to prefetch, and one that cannot be read means
 * no prefetch. *out stays NULL when there is no lock. */
static el_code previous_lock(el_ctx *ctx, const char *path, bool upgrade_all, lock_doc **out)
{
    *out = NULL;
    if (!file_exists(path))
        return EL_OK;
    *out = lock_read_file(ctx, path);
    if (*out || upgrade_all) {
        if (!*out)
            el_ctx_clear(ctx);
        return EL_OK;
    }
    char *why = xstrdup(el_ctx_message(ctx));
    el_code rc = el_fail(ctx, EL_SPEC_INVALID,
                         "the existing lock %s cannot be read as a preference (%s): fix or "
                         "remove it, or pass --upgrade to resolve from scratch",
                         path, why);
    el_detail_str(ctx, "reason", "invalid_lock");
    el_detail_str(ctx, "path", path);
    free(why);
    return rc;
}

static bool requested(const lock_package *p, const char *by)
{
    for (size_t i = 0; p->requested_by && p->requested_by[i]; i++)
        if (strcmp(p->requested_by[i], by) == 0)
            return true;
    return false;
}

static void count_packages(const lock_doc *doc, el_resolve_result *res)
{
    for (size_t i = 0; i < doc->n_packages; i++) {
        const lock_package *p = &doc->packages[i];
        if (strcmp(p->ecosystem, "pypi") == 0)
            res->n_pypi++;
        else if (strcmp(p->ecosystem, "npm") == 0)
            res->n_npm++;
        else if (strcmp(p->ecosystem, "deb") == 0)
            res->n_deb++;
        else if (strcmp(p->ecosystem, "conda") == 0)
            res->n_conda++;
        if (p->installed_in_base)
            res->n_installed_in_base++;
        if (requested(p, "spec"))
            res->n_spec++;
        else if (requested(p, "protected"))
            res->n_protected++;
        else
            res->n_dependencies++;
    }
}

static void note_cb(void *user, const char *text)
{
    add_note(user, text);
}

/* The gates a resolve passes (docs/policy.md, docs/cli.md "Advisories"):
 * the organization policy and the advisory snapshot. */
typedef struct gates {
    verbs_advise *adv;
    verbs_policy *pol;
} gates;

static el_code gates_open(el_ctx *ctx, const el_cache_options *co, const el_resolve_options *o,
                          gates *g)
{
    el_code rc = verbs_advise_open(ctx, co, o, &g->adv);
    if (rc == EL_OK)
        rc = verbs_policy_load(ctx, o->policy_path, &g->pol);
    return rc;
}

/* The policy bounds the request's sources, then both gates steer its
 * solves (every target's, for a multi-target resolve). */
static el_code gates_attach(el_ctx *ctx, gates *g, target_request *tr)
{
    el_code rc = verbs_policy_sources(ctx, g->pol, &tr->rq);
    for (size_t i = 0; rc == EL_OK && i < tr->n_parts; i++)
        rc = verbs_policy_sources(ctx, g->pol, &tr->parts[i].rq);
    if (rc != EL_OK)
        return rc;
    verbs_advise_attach(g->adv, &tr->rq);
    verbs_policy_attach(g->pol, &tr->rq);
    for (size_t i = 0; i < tr->n_parts; i++) {
        verbs_advise_attach(g->adv, &tr->parts[i].rq);
        verbs_policy_attach(g->pol, &tr->parts[i].rq);
    }
    return EL_OK;
}

static void gates_free(gates *g)
{
    verbs_advise_free(g->adv);
    verbs_policy_free(g->pol);
}

/* One solve of the request and the lock written from it. */
static el_code solve_and_write(el_ctx *ctx, const el_cache_options *co, const target_request *tr,
                               const el_spec *spec, const gates *g, el_resolve_result *res)
{
    verbs_advise *adv = g->adv;
    cache *c = cache_open(ctx, co);
    if (!c)
        return el_ctx_code(ctx);
    lock_doc *doc = NULL;
    resolve_request rq = tr->rq;
    rq.note = note_cb;
    rq.note_user = res;
    el_code rc = tr->n_parts > 1 ? verbs_resolve_targets(ctx, c, tr, &doc)
                                 : resolver_resolve(ctx, c, &rq, &doc);
    cache_close(c);
    if (rc == EL_OK)
        rc = verbs_reqfile_hashes(ctx, tr, doc);
    if (rc == EL_OK && tr->uvlock)
        rc = verbs_uvlock_packages(ctx, tr, spec, doc, note_cb, res);
    if (rc == EL_OK)
        rc = verbs_policy_judge(ctx, g->pol, doc);
    if (rc == EL_OK)
        verbs_policy_notes(g->pol, doc, note_cb, res);
    if (rc == EL_OK)
        rc = verbs_advise_judge(ctx, adv, &tr->rq, doc, note_cb, res);
    if (rc == EL_OK)
        verbs_advise_record(adv, doc);
    if (rc == EL_OK)
        rc = lock_write_file(ctx, doc, res->lock_path, res->lock_digest);
    if (rc == EL_OK)
        count_packages(doc, res);
    lock_doc_free(doc);
    return rc;
}

/* A name (PEP 503 normalized) or ":all:" in both --only-binary and
 * --no-binary asks for a project with no file at all: EL_USAGE. */
static el_code build_options_check(el_ctx *ctx, const el_resolve_options *o)
{
    for (size_t i = 0; i < o->n_only_binary; i++)
        for (size_t j = 0; j < o->n_no_binary; j++) {
            char *a = pypi_name_canonical(o->only_binary[i]), *b = pypi_name_canonical(o->no_binary[j]);
            bool same = strcmp(o->only_binary[i], ":all:") == 0 || strcmp(o->no_binary[j], ":all:") == 0
                            ? strcmp(o->only_binary[i], o->no_binary[j]) == 0
                            : strcmp(a, b) == 0;
            free(a);
            free(b);
            if (same)
                return el_fail(ctx, EL_USAGE,
                               "`%s` is given to both --only-binary and --no-binary: it could "
                               "be installed from no file",
                               o->only_binary[i]);
        }
    return EL_OK;
}

/* The pre-release mode the resolve uses: the one asked for, else the spec's
 * manager's default (docs/cli.md, "Pre-releases"). */
const char *verbs_prerelease_mode(const el_spec *spec, const char *asked)
{
    if (asked)
        return asked;
    const char *m = el_spec_text(spec, "spec.packages.python.manager");
    return m && strcmp(m, "pip") == 0 ? "pip" : "if-necessary-or-explicit";
}

/* The build options (--prerelease or the spec's manager, --no-build,
 * --only-binary, --no-binary, and a requirements file's own) on the request
 * and on every target's: tr->rq is a copy of parts[0].rq, and a resolve of
 * several targets solves each part's own request. */
static void build_options(target_request *tr, const el_spec *spec, const el_resolve_options *o)
{
    tr->rq.prereleases = verbs_prerelease_mode(spec, o->prerelease);
    tr->rq.no_build = o->no_build;
    tr->rq.only_binary = o->only_binary;
    tr->rq.n_only_binary = o->n_only_binary;
    tr->rq.no_binary = o->no_binary;
    tr->rq.n_no_binary = o->n_no_binary;
    verbs_reqfile_options(tr, o->prerelease, o);
    for (size_t i = 0; i < tr->n_parts; i++) {
        resolve_request *p = &tr->parts[i].rq;
        p->prereleases = tr->rq.prereleases;
        p->no_build = tr->rq.no_build;
        p->only_binary = tr->rq.only_binary;
        p->n_only_binary = tr->rq.n_only_binary;
        p->no_binary = tr->rq.no_binary;
        p->n_no_binary = tr->rq.n_no_binary;
        p->prefer_binary = tr->rq.prefer_binary;
    }
}

/* A refusal of the catalog (an unknown channel: the reference checks it
 * at resolve, not in validation) names its spec field (detail.field); it
 * keeps the field's place in the spec too: detail.line and column, and
 * "(spec line L:C)" after the terminal's form of the message (the message
 * itself stays the reference's). */
static el_code with_spec_line(el_ctx *ctx, const el_spec *spec)
{
    json_object *detail = el_ctx_detail(ctx), *field = NULL, *line = NULL, *col = NULL;
    unsigned l = 0, c = 0;
    if (!json_object_object_get_ex(detail, "field", &field) ||
        strstr(el_ctx_text(ctx), "(spec line "))
        return el_ctx_code(ctx);
    if (json_object_object_get_ex(detail, "line", &line)) { /* placed already (a pin) */
        l = (unsigned)json_object_get_int(line);
        c = json_object_object_get_ex(detail, "column", &col) ? (unsigned)json_object_get_int(col)
                                                               : 0;
    } else if (el_spec_locate(spec, json_object_get_string(field), &l, &c)) {
        el_detail_int(ctx, "line", l);
        el_detail_int(ctx, "column", c);
    }
    if (l) {
        char *text = xasprintf("%s (spec line %u:%u)", el_ctx_text(ctx), l, c);
        el_set_text(ctx, text);
        free(text);
    }
    return el_ctx_code(ctx);
}

el_code el_resolve(el_ctx *ctx, const el_cache_options *co, const el_spec *spec,
                   const el_resolve_options *o, el_resolve_result *res)
{
    static const el_resolve_options none = { 0 };
    if (!o)
        o = &none;
    memset(res, 0, sizeof *res);
    el_code rc = el_spec_validate(ctx, spec);
    if (rc != EL_OK)
        return rc;
    res->lock_path = o->lock_path ? xstrdup(o->lock_path) : el_default_lock_path(o->spec_path);
    if ((rc = check_out(ctx, o, res->lock_path)) != EL_OK)
        return rc;
    if (o->exclude_newer &&
        (rc = el_exclude_newer_normalize(ctx, o->exclude_newer, res->exclude_newer)) != EL_OK)
        return rc;
    if (o->prerelease && (resolver_prerelease_mode(o->prerelease) < 0 ||
                          strcmp(o->prerelease, "pip") == 0))
        return el_fail(ctx, EL_USAGE,
                       "--prerelease takes disallow, allow, if-necessary, explicit or "
                       "if-necessary-or-explicit, not `%s`",
                       o->prerelease);
    if ((rc = build_options_check(ctx, o)) != EL_OK)
        return rc;
    gates g = { 0 };
    if ((rc = gates_open(ctx, co, o, &g)) != EL_OK) {
        gates_free(&g);
        return rc;
    }
    target_catalog *own = NULL;
    const target_catalog *cat = verbs_catalog(ctx, o->bases, o->bases_path, &own);
    if (!cat) {
        gates_free(&g);
        return el_ctx_code(ctx);
    }
    lock_doc *previous = NULL;
    size_t text_len = 0;
    char *text = NULL;
    target_request *tr = NULL;
    if ((rc = previous_lock(ctx, res->lock_path, o->upgrade_all, &previous)) != EL_OK)
        goto out;
    res->kept_previous = previous && !o->upgrade_all;
    text = verbs_spec_text(o->spec_path, &text_len);
    target_request_options to = {
        .spec_text = text,
        .spec_len = text_len,
        .spec_opts = o->spec_opts,
        .exclude_newer = res->exclude_newer[0] ? res->exclude_newer : NULL,
        .previous = o->upgrade_all ? NULL : previous,
        .prefetch = o->upgrade_all ? previous : NULL,
        .upgrade_all = o->upgrade_all,
        .upgrade = o->upgrade,
        .n_upgrade = o->n_upgrade,
        .debug_solver_dir = o->debug_solver_dir,
        .explain_full = o->explain_full,
        .stats = o->stats,
        .stats_user = o->stats_user,
    };
    if ((rc = target_request_build(ctx, cat, spec, &to, &tr)) != EL_OK) {
        rc = with_spec_line(ctx, spec);
        goto out;
    }
    build_options(tr, spec, o);
    snprintf(res->spec_digest, sizeof res->spec_digest, "%s", tr->spec_digest);
    for (size_t i = 0; i < tr->n_notes; i++)
        add_note(res, tr->notes[i]);
    if ((rc = gates_attach(ctx, &g, tr)) == EL_OK)
        rc = solve_and_write(ctx, co, tr, spec, &g, res);
out:
    gates_free(&g);
    target_request_free(tr);
    lock_doc_free(previous);
    free(text);
    target_catalog_free(own);
    return rc;
}

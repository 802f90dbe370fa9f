/* pypi_index_load.c — the loader: project pages through the cache from
 * several indexes, candidate records with their exclusion reasons, and the
 * dependency metadata of a window of usable versions (a PEP 658 `.metadata`
 * file, else the wheel's METADATA read with libarchive, else an sdist's
 * PKG-INFO when it can be trusted without a build).
 *
 * Everything is asynchronous on one cache run: pypi_loader_submit() queues
 * page requests, their callbacks queue metadata requests, and cache_run()
 * drives it all. Records live in the loader's arena. This file does not
 * know page formats (pypi_page.c) or tag rules (pypi_tags.c). */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pypi_index.h"

#define META_MAX ((uint64_t)16 << 20)   /* a METADATA/PKG-INFO bigger than this is refused */

/* ---- the target ---- */

el_code pypi_target_init(el_ctx *ctx, pypi_target *t, const char *python_version,
                         const char *platform, const char *exclude_newer)
{
    memset(t, 0, sizeof *t);
    t->cutoff_s = INT64_MAX;
    char *err = NULL;
    t->tags = pypi_tags_new(python_version, platform, &err);
    if (!t->tags) {
        el_fail(ctx, EL_SPEC_INVALID, "%s", err);
        el_detail_str(ctx, "reason", "invalid_target");
        el_detail_str(ctx, "field", strstr(err, "platform") ? "platform" : "python_version");
        free(err);
        return EL_SPEC_INVALID;
    }
    if (exclude_newer) {
        if (!pypi_time_parse(exclude_newer, &t->cutoff_s)) {
            pypi_tags_free(t->tags);
            t->tags = NULL;
            el_fail(ctx, EL_SPEC_INVALID,
                    "exclude-newer `%s` is not an RFC 3339 date-time (2026-02-15T00:00:00Z)",
                    exclude_newer);
            el_detail_str(ctx, "reason", "invalid_target");
            el_detail_str(ctx, "field", "exclude_newer");
            return EL_SPEC_INVALID;
        }
        t->owned_[2] = xstrdup(exclude_newer);
        t->exclude_newer = t->owned_[2];
    }
    const char *full = pypi_tags_python_full(t->tags);
    t->python = pypi_version_parse(full, NULL);
    /* The version as the user gave it, for sentences ("the target is 3.13"). */
    t->owned_[0] = xstrdup(python_version ? python_version : pypi_tags_python(t->tags));
    t->owned_[1] = xstrdup(pypi_tags_python(t->tags));
    pypi_env *e = &t->env;
    e->python_version = t->owned_[1];
    e->python_full_version = full;
    e->implementation_version = full;
    e->os_name = "posix";
    e->sys_platform = "linux";
    e->platform_system = "Linux";
    e->platform_machine = pypi_tags_arch(t->tags);
    e->platform_python_implementation = "CPython";
    e->implementation_name = "cpython";
    e->platform_release = "";
    e->platform_version = "";
    e->extra = "";
    return EL_OK;
}

void pypi_target_clear(pypi_target *t)
{
    pypi_tags_free(t->tags);
    pypi_version_free(t->python);
    for (size_t i = 0; i < sizeof t->owned_ / sizeof t->owned_[0]; i++)
        free(t->owned_[i]);
    memset(t, 0, sizeof *t);
}

/* ---- loader state ---- */

typedef struct proj {
    pypi_project pub;
    pypi_loader *l;
    size_t index_i;
    size_t window;      /* SIZE_MAX: all */
    bool page_done;
    bool eager;         /* the page is asked for with its body (not on demand) */
} proj;

typedef enum meta_stage { STAGE_METAFILE, STAGE_WHEEL, STAGE_SDIST } meta_stage;

typedef struct meta_req {
    proj *p;
    size_t ci;
    meta_stage stage;
} meta_req;

/* Parsed forms read and written: a loader's counters. */
typedef struct blob_count {
    size_t read, written;
} blob_count;

struct pypi_loader {
    cache *c;
    const pypi_target *t;
    char **indexes;
    size_t nindexes;
    arena *a;
    ptrvec projects;
    ptrvec reqs;      /* pypi_requirement * */
    ptrvec versions;  /* pypi_version * */
    blob_count blobs; /* pages read from their parsed form / stored as one */
    pypi_meta_fn on_meta;
    void *on_meta_user;
};

pypi_loader *pypi_loader_new(cache *c, const pypi_target *t, const char *const *indexes,
                             size_t nindexes)
{
    pypi_loader *l = xcalloc(1, sizeof *l);
    l->c = c;
    l->t = t;
    l->a = arena_new();
    if (!indexes || nindexes == 0) {
        static const char *const def[] = { "https://pypi.org/simple" };
        indexes = def;
        nindexes = 1;
    }
    l->indexes = xcalloc(nindexes, sizeof *l->indexes);
    l->nindexes = nindexes;
    for (size_t i = 0; i < nindexes; i++) {
        size_t n = strlen(indexes[i]);
        while (n && indexes[i][n - 1] == '/')
            n--;
        l->indexes[i] = xstrndup(indexes[i], n);
    }
    return l;
}

void pypi_loader_free(pypi_loader *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->projects.len; i++)
        free(l->projects.items[i]);
    ptrvec_release(&l->projects);
    for (size_t i = 0; i < l->reqs.len; i++)
        pypi_requirement_free(l->reqs.items[i]);
    ptrvec_release(&l->reqs);
    for (size_t i = 0; i < l->versions.len; i++)
        pypi_version_free(l->versions.items[i]);
    ptrvec_release(&l->versions);
    for (size_t i = 0; i < l->nindexes; i++)
        free(l->indexes[i]);
    free(l->indexes);
    arena_free(l->a);
    free(l);
}

static proj *find(const pypi_loader *l, const char *canonical)
{
    for (size_t i = 0; i < l->projects.len; i++) {
        proj *p = l->projects.items[i];
        if (strcmp(p->pub.name, canonical) == 0)
            return p;
    }
    return NULL;
}

const pypi_project *pypi_loader_get(const pypi_loader *l, const char *name)
{
    char *c = pypi_name_canonical(name);
    proj *p = find(l, c);
    free(c);
    return p ? &p->pub : NULL;
}

static void project_fail(proj *p, el_code code, const char *reason, const char *message,
                         const char *url, long status, bool retryable)
{
    if (p->pub.code != EL_OK)
        return; /* the first failure stands */
    arena *a = p->l->a;
    p->pub.code = code;
    p->pub.reason = reason ? arena_strdup(a, reason) : NULL;
    p->pub.message = arena_strdup(a, message ? message : "");
    p->pub.fail_url = url ? arena_strdup(a, url) : NULL;
    p->pub.fail_status = status;
    p->pub.retryable = retryable;
}

static void fail_response(proj *p, const cache_response *r)
{
    if (p->pub.code != EL_OK)
        return;
    project_fail(p, r->code, r->reason, r->message, r->url, r->status, r->retryable);
    cache_failure f = cache_failure_of(r);
    p->pub.fetch = cache_failure_copy(&f, p->l->a);
}

el_code pypi_project_fail(el_ctx *ctx, const pypi_project *p)
{
    if (p->fetch.code != EL_OK) {
        cache_failure_report(ctx, &p->fetch); /* every detail the cache gave */
    } else {
        el_fail(ctx, p->code, "%s", p->message ? p->message : "");
        if (p->reason)
            el_detail_str(ctx, "reason", p->reason);
        if (p->fail_url) {
            char *u = cache_url_redact(p->fail_url);
            el_detail_str(ctx, "url", u);
            free(u);
        }
        if (p->fail_status)
            el_detail_int(ctx, "status", p->fail_status);
    }
    el_detail_str(ctx, "package", p->name);
    if (p->index) {
        char *shown = cache_url_redact(p->index);
        el_detail_str(ctx, "index", shown);
        free(shown);
    }
    el_set_retryable(ctx, p->retryable);
    return p->code;
}

/* ---- pages ---- */

static void page_done(cache *c, cache_response *r, void *user);

char *pypi_page_url(const char *index, const char *name)
{
    return xasprintf("%s/%s/", index, name);
}

static void submit_page(proj *p)
{
    pypi_loader *l = p->l;
    const char *index = l->indexes[p->index_i];
    char *url = pypi_page_url(index, p->pub.name);
    p->pub.index = index;
    p->pub.page_url = arena_strdup(l->a, url);
    cache_request rq = { 0 };
    rq.url = url;
    rq.accept = PYPI_PAGE_ACCEPT;
    rq.policy = CACHE_REVALIDATE;
    rq.max_bytes = PYPI_PAGE_MAX;
    rq.body_on_demand = !p->eager; /* read only when its parsed form misses */
    rq.done = page_done;
    rq.user = p;
    cache_submit(l->c, &rq);
    free(url);
}

/* What a file on the page is, from its name. */
typedef struct fileinfo {
    pypi_kind kind;
    const char *version; /* as written */
    pypi_wheel_name wheel;
} fileinfo;

/* 1: an sdist of `project` (*ver set); 0: not one; -1: an sdist file name
 * outside the grammar, refused. */
static int sdist_split(arena *a, const char *filename, const char *project, const char **ver)
{
    static const char *const exts[] = { ".tar.gz", ".zip", ".tar.bz2", ".tgz" };
    size_t n = strlen(filename), stem = 0;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcasecmp(filename + n - e, exts[i]) == 0) {
            stem = n - e;
            break;
        }
    }
    if (!stem)
        return 0;
    /* an sdist's name is NAME-VERSION.EXT: name characters, PEP 440's and
     * `-`; anything else (a shell or path character) never reaches a lock */
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)filename[i]) || (unsigned char)filename[i] >= 0x80)
            if (!strchr("._+!-", filename[i]))
                return -1;
    /* NAME-VERSION where NAME may itself contain dashes (legacy sdists):
     * the split whose left side normalizes to the project name. */
    for (size_t i = 1; i < stem; i++) {
        if (filename[i] != '-')
            continue;
        char *left = xstrndup(filename, i);
        char *canon = pypi_name_canonical(left);
        bool match = strcmp(canon, project) == 0;
        free(left);
        free(canon);
        if (match && i + 1 < stem) {
            *ver = arena_strndup(a, filename + i + 1, stem - i - 1);
            return 1;
        }
    }
    return 0;
}

/* 1: a candidate file of `project` (fi filled); 0: some other file (another
 * project's, an egg, an installer), skipped as pip skips it; -1: a wheel or
 * sdist whose name leaves its grammar, refused with a note. */
static int classify(arena *a, const pypi_file *f, const char *project, fileinfo *fi)
{
    memset(fi, 0, sizeof *fi);
    size_t n = strlen(f->filename);
    if (n > 4 && strcasecmp(f->filename + n - 4, ".whl") == 0) {
        if (!pypi_wheel_name_parse(a, f->filename, &fi->wheel, NULL))
            return -1;
        char *canon = pypi_name_canonical(fi->wheel.name);
        bool ok = strcmp(canon, project) == 0;
        free(canon);
        if (!ok)
            return 0;
        fi->kind = PYPI_WHEEL;
        fi->version = fi->wheel.version;
        return 1;
    }
    int s = sdist_split(a, f->filename, project, &fi->version);
    if (s > 0)
        fi->kind = PYPI_SDIST;
    return s;
}

typedef struct group {
    pypi_version *v;     /* NULL: invalid */
    const char *raw;
    ptrvec files;        /* const pypi_file * */
    ptrvec infos;        /* fileinfo * */
} group;

static int cmp_groups(const void *x, const void *y)
{
    const group *a = *(group *const *)x, *b = *(group *const *)y;
    if (a->v && b->v)
        return -pypi_version_cmp(a->v, b->v);
    if (a->v != b->v)
        return a->v ? -1 : 1;
    return strcmp(a->raw, b->raw);
}

static const char *target_python(const pypi_loader *l) { return l->t->owned_[0]; }

/* Whether list (of n values, each a name, ":all:", or several of them
 * comma-separated as pip writes them) names `project` exactly (1), through
 * ":all:" (2), or not (0). */
static int lists(const char *const *list, size_t n, const char *project)
{
    int how = 0;
    for (size_t i = 0; i < n; i++) {
        char *copy = xstrdup(list[i]), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (strcmp(tok, ":all:") == 0) {
                if (!how)
                    how = 2;
                continue;
            }
            char *c = pypi_name_canonical(tok);
            if (strcmp(c, project) == 0)
                how = 1;
            free(c);
        }
        free(copy);
        if (how == 1)
            return 1;
    }
    return how;
}

void pypi_build_refuses(const pypi_build_opts *b, const char *project, const char **wheels,
                        const char **sdists)
{
    int nb = lists(b->no_binary, b->n_no_binary, project);
    int ob = lists(b->only_binary, b->n_only_binary, project);
    /* a name beats ":all:" of the other list (pip's FormatControl) */
    if (nb == 2 && ob == 1)
        nb = 0;
    if (ob == 2 && nb == 1)
        ob = 0;
    *wheels = nb == 1 ? "--no-binary" : nb == 2 ? "--no-binary :all:" : NULL;
    *sdists = b->no_build ? "--no-build" : ob == 1 ? "--only-binary" : ob == 2 ? "--only-binary :all:" : NULL;
}

/* "no wheel for cp313 manylinux_2_36_x86_64; wheels exist for TAGS": the
 * wheels' tags in file-name order (the sentence must not depend on the
 * order the page lists files in), at most eight. */
static const char *wheels_missed(arena *a, const pypi_target *t, group *g, const pypi_candidate *c)
{
    size_t *order = xcalloc(c->nartifacts + 1, sizeof *order);
    for (size_t i = 0; i < c->nartifacts; i++) {
        size_t k = i;
        while (k > 0 && strcmp(c->artifacts[order[k - 1]].file->filename, c->artifacts[i].file->filename) > 0) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    strbuf sb = STRBUF_INIT;
    size_t listed = 0, more = 0;
    for (size_t oi = 0; oi < c->nartifacts; oi++) {
        fileinfo *fi = g->infos.items[order[oi]];
        if (fi->kind != PYPI_WHEEL)
            continue;
        for (size_t k = 0; k < fi->wheel.ntags; k++) {
            const pypi_tag *tg = &fi->wheel.tags[k];
            char tag[200];
            snprintf(tag, sizeof tag, "%s-%s-%s", tg->interp, tg->abi, tg->plat);
            if (strstr(sb.buf, tag))
                continue;
            if (listed == 8) {
                more++;
                continue;
            }
            if (listed)
                sb_adds(&sb, ", ");
            sb_adds(&sb, tag);
            listed++;
        }
    }
    free(order);
    if (more)
        sb_addf(&sb, " and %zu more", more);
    const char *why = arena_sprintf(a, "no wheel for %s %s; wheels exist for %s",
                                    pypi_tags_interp(t->tags), pypi_tags_platform(t->tags),
                                    listed ? sb.buf : "none");
    sb_release(&sb);
    return why;
}

/* "--only-binary" refuses by name: "--only-binary NAME" in a reason. */
static const char *with_name(arena *a, const char *flag, const char *project)
{
    if (strcmp(flag, "--only-binary") == 0 || strcmp(flag, "--no-binary") == 0)
        return arena_sprintf(a, "%s %s", flag, project);
    return flag;
}

/* Decides a candidate's artifacts, chosen file and static exclusion. */
/* A lock pins every file by its sha256 (docs/lock-format.md): a file the
 * page gives none for (an md5 alone, or no hash) is dropped, `no_hash`.
 * True when that leaves the version nothing (it is then excluded). */
static bool drop_unhashed(arena *a, pypi_candidate *c, size_t *left)
{
    const char *unhashed = NULL;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (!ar->dropped && (!ar->file->sha256 || !*ar->file->sha256)) {
            ar->dropped = "no_hash";
            if (!unhashed || strcmp(ar->file->filename, unhashed) < 0)
                unhashed = ar->file->filename;
            (*left)--;
        }
    }
    if (*left)
        return false;
    c->excluded = "no_hash";
    c->why = arena_sprintf(a, "the index gives no sha256 for `%s`%s, and a lock pins every file "
                              "by hash",
                           unhashed, c->nartifacts > 1 ? " or its other files" : "");
    return true;
}

/* One candidate being judged: the stages below drop files one reason at a
 * time; the version is excluded for the stage that dropped its last file. */
typedef struct judging {
    pypi_loader *l;
    const char *project;
    group *g;
    pypi_candidate *c;
    size_t left;                  /* files not dropped yet */
    const char *wflag, *sflag;    /* the build options refusing wheels / sdists */
    const char *wdrop, *sdrop;    /* set when they dropped one */
} judging;

/* The candidate's artifacts, its yanked state and its earliest upload. */
static void judge_artifacts(judging *j)
{
    pypi_candidate *c = j->c;
    c->chosen = -1;
    c->upload_s = INT64_MIN;
    c->nartifacts = j->g->files.len;
    c->artifacts = arena_alloc(j->l->a, (c->nartifacts ? c->nartifacts : 1) * sizeof *c->artifacts);
    size_t nyanked = 0;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        fileinfo *fi = j->g->infos.items[i];
        ar->file = j->g->files.items[i];
        ar->kind = fi->kind;
        ar->rank = fi->kind == PYPI_WHEEL ? pypi_wheel_rank(j->l->t->tags, &fi->wheel) : -1;
        if (ar->file->yanked) {
            nyanked++;
            if (!c->yanked_reason && ar->file->yanked_reason)
                c->yanked_reason = ar->file->yanked_reason;
        }
        if (ar->file->upload_s != INT64_MIN &&
            (c->upload_s == INT64_MIN || ar->file->upload_s < c->upload_s)) {
            c->upload_s = ar->file->upload_s;
            c->upload_time = ar->file->upload_time;
        }
    }
    c->yanked = c->nartifacts && nyanked == c->nartifacts;
    j->left = c->nartifacts;
}

static bool stage_version(judging *j)
{
    if (j->c->parsed)
        return false;
    j->c->excluded = "invalid_version";
    j->c->why = arena_sprintf(j->l->a, "`%s` is not a valid PEP 440 version", j->c->version);
    return true;
}

static bool stage_link(judging *j)
{
    pypi_candidate *c = j->c;
    const pypi_file *bad = NULL;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (ar->file->bad_url) {
            ar->dropped = ar->file->bad_url;
            if (!bad || strcmp(ar->file->url, bad->url) < 0)
                bad = ar->file;
            j->left--;
        }
    }
    if (j->left || !bad)
        return false;
    c->excluded = bad->bad_url;
    c->why = strcmp(bad->bad_url, "local_link") == 0
                 ? arena_sprintf(j->l->a, "no file has a link envlock may fetch: `%s` is a local "
                                          "file named by a page read over the network", bad->url)
                 : arena_sprintf(j->l->a, "no file has a link envlock can fetch: `%s` is no "
                                          "http, https or file URL with a host", bad->url);
    return true;
}

static bool stage_hash(judging *j)
{
    return drop_unhashed(j->l->a, j->c, &j->left);
}

/* uv's rule: with a cutoff, a file the page gives no upload time for
 * (every PEP 503 HTML page; JSON without PEP 700 upload-time, or with one
 * that is not RFC 3339) cannot be shown to predate it, so it is out;
 * admitting it would let anything published since in. */
static bool stage_upload_time(judging *j)
{
    const pypi_target *t = j->l->t;
    pypi_candidate *c = j->c;
    if (t->cutoff_s == INT64_MAX)
        return false;
    const char *bad_time = NULL;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (!ar->dropped && ar->file->upload_s == INT64_MIN) {
            ar->dropped = "no_upload_time";
            if (ar->file->upload_time && (!bad_time || strcmp(ar->file->upload_time, bad_time) < 0))
                bad_time = ar->file->upload_time;
            j->left--;
        }
    }
    if (j->left)
        return false;
    c->excluded = "no_upload_time";
    c->why = bad_time ? arena_sprintf(j->l->a, "upload time `%s` is not an RFC 3339 time to "
                                               "compare with the cutoff %s",
                                      bad_time, t->exclude_newer)
                      : arena_sprintf(j->l->a, "no upload time to compare with the cutoff %s",
                                      t->exclude_newer);
    return true;
}

static bool stage_cutoff(judging *j)
{
    const pypi_target *t = j->l->t;
    pypi_candidate *c = j->c;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (!ar->dropped && ar->file->upload_s > t->cutoff_s) {
            ar->dropped = "after_cutoff";
            j->left--;
        }
    }
    if (j->left)
        return false;
    c->excluded = "after_cutoff";
    c->why = arena_sprintf(j->l->a, "uploaded %s, after the cutoff %s",
                           c->upload_time ? c->upload_time : "?", t->exclude_newer);
    return true;
}

static bool stage_yanked(judging *j)
{
    pypi_candidate *c = j->c;
    size_t left_yanked = 0;
    for (size_t i = 0; i < c->nartifacts; i++)
        if (!c->artifacts[i].dropped && c->artifacts[i].file->yanked)
            left_yanked++;
    if (j->l->t->keep_yanked && left_yanked == j->left) {
        /* Only yanked files remain: usable, flagged, for an exact pin. */
        c->yanked = true;
        left_yanked = 0;
    }
    for (size_t i = 0; i < c->nartifacts && left_yanked; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (!ar->dropped && ar->file->yanked) {
            ar->dropped = "yanked";
            j->left--;
        }
    }
    if (j->left)
        return false;
    c->excluded = "yanked";
    c->why = c->yanked_reason ? arena_sprintf(j->l->a, "yanked: %s", c->yanked_reason)
                              : arena_strdup(j->l->a, "yanked (no reason given)");
    return true;
}

static bool stage_requires_python(judging *j)
{
    pypi_candidate *c = j->c;
    const char *last_rp = NULL;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (ar->dropped || !ar->file->requires_python)
            continue;
        pypi_specset *s = pypi_specset_parse(ar->file->requires_python, NULL);
        /* An invalid Requires-Python is ignored, as pip does. */
        if (s && !pypi_specset_contains(s, j->l->t->python, PYPI_PRE_YES)) {
            ar->dropped = "requires_python";
            last_rp = ar->file->requires_python;
            j->left--;
        }
        pypi_specset_free(s);
    }
    if (j->left)
        return false;
    c->excluded = "requires_python";
    c->requires_python = last_rp;
    c->why = arena_sprintf(j->l->a, "needs Python %s; the target is %s", last_rp,
                           target_python(j->l));
    return true;
}

/* --no-binary / --only-binary / --no-build: never excludes by itself; the
 * choice below says why when nothing is left. */
static bool stage_build_options(judging *j)
{
    pypi_candidate *c = j->c;
    pypi_build_refuses(&j->l->t->build, j->project, &j->wflag, &j->sflag);
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (ar->dropped)
            continue;
        if (ar->kind == PYPI_WHEEL && j->wflag)
            ar->dropped = j->wdrop = "no_binary";
        else if (ar->kind == PYPI_SDIST && j->sflag)
            ar->dropped = j->sdrop = "only_binary";
    }
    return false;
}

/* The best wheel by tag rank (then build number), else the sdist (.tar.gz
 * first); *nwheels counts the wheels still in. -1 when none. */
static long best_file(judging *j, long *sdist, size_t *nwheels)
{
    pypi_candidate *c = j->c;
    long best = -1;
    *sdist = -1;
    *nwheels = 0;
    for (size_t i = 0; i < c->nartifacts; i++) {
        pypi_artifact *ar = &c->artifacts[i];
        if (ar->dropped)
            continue;
        fileinfo *fi = j->g->infos.items[i];
        if (ar->kind == PYPI_WHEEL) {
            (*nwheels)++;
            if (ar->rank < 0) {
                ar->dropped = "no_compatible_wheel";
                continue;
            }
            if (best < 0 || ar->rank < c->artifacts[best].rank)
                best = (long)i;
            else if (ar->rank == c->artifacts[best].rank) {
                /* Same tag: the higher build number wins. */
                fileinfo *bi = j->g->infos.items[best];
                if (fi->wheel.build_num > bi->wheel.build_num)
                    best = (long)i;
            }
        } else if (ar->kind == PYPI_SDIST) {
            size_t fl = strlen(ar->file->filename);
            bool targz = fl > 7 && strcasecmp(ar->file->filename + fl - 7, ".tar.gz") == 0;
            if (*sdist < 0 || targz)
                *sdist = (long)i;
        }
    }
    return best;
}

/* A version whose wheels all miss the target falls back to its sdist, as
 * pip and uv do; envlock can use it only without a build, which the
 * metadata stage decides (PKG-INFO 2.2+ with static Requires-Dist). */
static void choose(judging *j)
{
    arena *a = j->l->a;
    pypi_candidate *c = j->c;
    long sdist;
    size_t nwheels;
    long best = best_file(j, &sdist, &nwheels);
    c->chosen = best >= 0 ? best : sdist;
    if (c->chosen >= 0) {
        c->requires_python = c->artifacts[c->chosen].file->requires_python;
        if (best < 0 && nwheels)
            c->wheels_missed = wheels_missed(a, j->l->t, j->g, c);
        else if (best < 0 && j->wdrop)
            c->wheels_missed = arena_sprintf(a, "its wheels are not used (%s)",
                                             with_name(a, j->wflag, j->project));
        return;
    }
    if (j->wdrop) {
        c->excluded = "no_binary";
        c->why = j->sdrop ? arena_sprintf(a, "its wheels are not used (%s) and its sdist is not "
                                             "used (%s)", with_name(a, j->wflag, j->project),
                                          with_name(a, j->sflag, j->project))
                          : arena_sprintf(a, "its wheels are not used (%s) and it has no sdist",
                                          with_name(a, j->wflag, j->project));
        return;
    }
    c->excluded = "no_compatible_wheel";
    c->why = wheels_missed(a, j->l->t, j->g, c);
    if (j->sdrop)
        c->why = arena_sprintf(a, "%s; its sdist is not used (%s)", c->why,
                               with_name(a, j->sflag, j->project));
}

/* Per file, in this order: a valid version, a link that can be fetched, a
 * sha256, an upload time (under a cutoff), the cutoff, yanked,
 * requires-python, the build options, then tags. A version is excluded for
 * the stage that removed its last file, so one with an undated file and a
 * file after the cutoff reads "after_cutoff" whatever order the page lists
 * them in. */
static bool (*const judge_stages[])(judging *) = {
    stage_version, stage_link, stage_hash, stage_upload_time, stage_cutoff,
    stage_yanked, stage_requires_python, stage_build_options,
};

static void judge(pypi_loader *l, const char *project, group *g, pypi_candidate *c)
{
    judging j = { .l = l, .project = project, .g = g, .c = c };
    judge_artifacts(&j);
    for (size_t i = 0; i < sizeof judge_stages / sizeof judge_stages[0]; i++)
        if (judge_stages[i](&j))
            return;
    choose(&j);
}

static void fill_window(proj *p);

static void build(proj *p, const pypi_page *page)
{
    pypi_loader *l = p->l;
    arena *a = l->a;
    ptrvec groups = PTRVEC_INIT;
    p->pub.nrefused = 0;
    p->pub.refused = NULL;
    for (size_t i = 0; i < page->nfiles; i++) {
        const pypi_file *f = &page->files[i];
        fileinfo *fi = arena_alloc(a, sizeof *fi);
        int kind = classify(a, f, p->pub.name, fi);
        if (kind < 0 && p->pub.nrefused++ == 0)
            p->pub.refused = arena_shown(a, f->filename, 120);
        if (kind <= 0)
            continue;
        pypi_version *v = pypi_version_parse(fi->version, NULL);
        group *g = NULL;
        for (size_t k = 0; k < groups.len && !g; k++) {
            group *h = groups.items[k];
            if (v && h->v ? pypi_version_cmp(v, h->v) == 0 : (!v && !h->v && strcmp(h->raw, fi->version) == 0))
                g = h;
        }
        if (!g) {
            g = xcalloc(1, sizeof *g);
            g->v = v;
            g->raw = fi->version;
            if (v)
                ptrvec_push(&l->versions, v);
            ptrvec_push(&groups, g);
        } else {
            pypi_version_free(v);
        }
        ptrvec_push(&g->files, (void *)f);
        ptrvec_push(&g->infos, fi);
    }
    if (groups.len > 1)
        qsort(groups.items, groups.len, sizeof *groups.items, cmp_groups);
    p->pub.ncands = groups.len;
    p->pub.cands = arena_alloc(a, (groups.len ? groups.len : 1) * sizeof *p->pub.cands);
    for (size_t k = 0; k < groups.len; k++) {
        group *g = groups.items[k];
        pypi_candidate *c = &p->pub.cands[k];
        c->parsed = g->v;
        c->version = g->v ? arena_strdup(a, pypi_version_str(g->v)) : g->raw;
        judge(l, p->pub.name, g, c);
        ptrvec_release(&g->files);
        ptrvec_release(&g->infos);
        free(g);
    }
    ptrvec_release(&groups);
}

/* read_blob() : true and *out when the parsed form `name` of r's body
 *  verifies. Also for a body just fetched: an index that sends no
 *  validators answers every run with a full 200, most often of the same
 *  bytes, whose parsed form the last run stored (as the npm loader does). */
static bool read_blob(cache *c, const cache_response *r, const char *name,
                      const pypi_page_src *src, arena *a, pypi_page *out)
{
    size_t len = 0;
    FILE *f = cache_blob_open(c, name, &len);
    if (!f)
        return false;
    unsigned char *data = xmalloc(len ? len : 1);
    bool ok = fread(data, 1, len, f) == len &&
              pypi_page_blob_read(data, len, r->sha256, src, a, out) == 0;
    fclose(f);
    free(data);
    return ok;
}

/* parse_or_read() : pypi_page_parse_read() of r's body from `src`, or its
 *  parsed form when that verifies (the body is then never read when
 *  `lazy`, r itself, was asked for on demand); a fresh parse is stored as
 *  a blob (best effort, without fsyncs: a blob lost in a crash costs one
 *  parse). A deferred body that can no longer be read (damaged and
 *  removed, or replaced by another run since its metadata was read) is
 *  EL_IO, retryable, with *gone set. */
static el_code parse_or_read(el_ctx *ctx, cache *c, const cache_response *r,
                             cache_response *lazy, const pypi_page_src *src, arena *a,
                             pypi_page *out, blob_count *n, bool *gone)
{
    char *name = r->sha256 ? pypi_page_blob_name(r->sha256, src) : NULL;
    if (name && read_blob(c, r, name, src, a, out)) {
        if (n)
            n->read++;
        free(name);
        return EL_OK;
    }
    const unsigned char *body = lazy ? cache_response_body(c, lazy) : r->body;
    if (!body) {
        free(name);
        *gone = true;
        el_fail(ctx, EL_IO, "the cached project page %s changed or was damaged while it was "
                            "being read; run again", src->page_url);
        el_detail_str(ctx, "reason", "cache_changed");
        el_set_retryable(ctx, true);
        return EL_IO;
    }
    el_code rc = pypi_page_parse_read(ctx, a, (const char *)body, r->len, src->page_url,
                                      src->read_url, src->content_type, out);
    if (rc == EL_OK && name) {
        strbuf sb = STRBUF_INIT;
        pypi_page_blob_write(out, r->sha256, src, &sb);
        if (cache_blob_put_lazy(c, name, sb.buf, sb.len) && n)
            n->written++;
        sb_release(&sb);
    }
    free(name);
    return rc;
}

/* Relative links resolved against the (canonical) page URL; absolute ones
 * written by a mirror name the mirror: map those back, so records never
 * carry a mirror URL. Fetches go back through the mirror anyway
 * (cache_submit rewrites), except for a relative link that leaves the
 * mirrored prefix (a mirror of the simple index whose pages link
 * `../../packages/...` on its own host): that file is read where the page
 * as read points. Done after a blob read as after a parse: the mirror
 * table is this run's. */
static void map_back(cache *c, arena *a, pypi_page *pg)
{
    for (size_t i = 0; i < pg->nfiles; i++) {
        pypi_file *f = &pg->files[i];
        if (f->bad_url)
            continue; /* the link as written: nothing to map */
        char *canon = cache_canonical_url(c, f->url);
        if (strcmp(canon, f->url) != 0)
            f->url = arena_strdup(a, canon);
        free(canon);
        if (f->read_url) {
            char *back = cache_canonical_url(c, f->read_url); /* credentials dropped */
            f->read_url = strcmp(back, f->url) == 0 ? NULL : arena_strdup(a, back);
            free(back);
        }
    }
}

/* page_read() : pypi_page_read(), counting parsed forms in `n` (NULL:
 *  none); `lazy` is r itself when its body may be deferred (the loader's
 *  on-demand requests), else NULL. */
static el_code page_read(el_ctx *ctx, cache *c, const cache_response *r, cache_response *lazy,
                         arena *a, pypi_page *out, blob_count *n, bool *gone)
{
    const char *page_url = r->final_url ? r->final_url : r->url;
    char *read_url = cache_served_url(c, page_url);
    pypi_page_src src = { page_url, strcmp(read_url, page_url) != 0 ? read_url : NULL,
                          r->content_type };
    *gone = false;
    el_code rc = parse_or_read(ctx, c, r, lazy, &src, a, out, n, gone);
    free(read_url);
    if (rc == EL_OK)
        map_back(c, a, out);
    return rc;
}

el_code pypi_page_read(el_ctx *ctx, cache *c, const cache_response *r, arena *a, pypi_page *out)
{
    bool gone;
    return page_read(ctx, c, r, NULL, a, out, NULL, &gone);
}

void pypi_loader_blob_stats(const pypi_loader *l, size_t *read, size_t *written)
{
    *read = l ? l->blobs.read : 0;
    *written = l ? l->blobs.written : 0;
}

static void page_done(cache *c, cache_response *r, void *user)
{
    proj *p = user;
    pypi_loader *l = p->l;
    if (r->code != EL_OK) {
        if (r->reason && strcmp(r->reason, "not_found") == 0) {
            if (p->index_i + 1 < l->nindexes) {
                p->index_i++;
                submit_page(p);
                return;
            }
            strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < l->nindexes; i++) {
                char *shown = cache_url_redact(l->indexes[i]); /* no user:password */
                sb_addf(&sb, "%s%s", i ? ", " : "", shown);
                free(shown);
            }
            char *msg = xasprintf("no index serves `%s` (%s %s)", p->pub.name,
                                  l->nindexes > 1 ? "tried" : "index", sb.buf);
            sb_release(&sb);
            p->pub.index = l->nindexes == 1 ? l->indexes[0] : NULL;
            project_fail(p, EL_PACKAGE_NOT_FOUND, "not_found", msg, r->url, r->status, false);
            free(msg);
        } else {
            fail_response(p, r);
        }
        p->page_done = true;
        return;
    }
    p->pub.from_cache = r->from_cache;
    p->pub.etag = r->etag ? arena_strdup(l->a, r->etag) : NULL;
    p->pub.last_modified = r->last_modified ? arena_strdup(l->a, r->last_modified) : NULL;
    pypi_page page;
    el_ctx *ctx = el_ctx_new();
    bool gone = false;
    if (page_read(ctx, c, r, r, l->a, &page, &l->blobs, &gone) != EL_OK) {
        if (gone && !p->eager) {
            /* The stored body was damaged (and removed) or replaced since
             * its metadata was read: ask again for the body itself. */
            el_ctx_free(ctx);
            p->eager = true;
            submit_page(p);
            return;
        }
        project_fail(p, el_ctx_code(ctx), gone ? "cache_changed" : "invalid_page",
                     el_ctx_message(ctx), r->url, 0, gone);
        el_ctx_free(ctx);
        p->page_done = true;
        return;
    }
    el_ctx_free(ctx);
    char id[PYPI_IDENTITY_LEN];
    pypi_page_identity(&page, id);
    p->pub.identity = arena_strdup(l->a, id);
    p->pub.format = page.format;
    build(p, &page);
    p->page_done = true;
    fill_window(p);
}

/* ---- metadata ---- */

static void meta_done(cache *c, cache_response *r, void *user);

static void submit_meta(proj *p, size_t ci, meta_stage stage)
{
    pypi_loader *l = p->l;
    pypi_candidate *c = &p->pub.cands[ci];
    const pypi_file *f = c->artifacts[c->chosen].file;
    meta_req *m = arena_alloc(l->a, sizeof *m);
    m->p = p;
    m->ci = ci;
    m->stage = stage;
    cache_request rq = { 0 };
    char *url = NULL;
    if (stage == STAGE_METAFILE) {
        url = xasprintf("%s.metadata", f->read_url ? f->read_url : f->url);
        rq.sha256 = f->core_metadata_sha256;
        rq.max_bytes = META_MAX;
    } else {
        url = xstrdup(f->read_url ? f->read_url : f->url);
        rq.sha256 = f->sha256;
    }
    rq.url = url;
    rq.policy = CACHE_IMMUTABLE;
    rq.done = meta_done;
    rq.user = m;
    c->meta = PYPI_META_PENDING;
    cache_submit(l->c, &rq);
    free(url);
}

static void fill_window(proj *p)
{
    if (!p->page_done || p->pub.code != EL_OK)
        return;
    size_t have = 0;
    for (size_t i = 0; i < p->pub.ncands && have < p->window; i++) {
        pypi_candidate *c = &p->pub.cands[i];
        if (c->excluded)
            continue;
        if (c->meta == PYPI_META_NONE) {
            const pypi_artifact *ar = &c->artifacts[c->chosen];
            submit_meta(p, i, ar->kind == PYPI_SDIST ? STAGE_SDIST
                              : ar->file->core_metadata ? STAGE_METAFILE
                                                        : STAGE_WHEEL);
        }
        have++;
    }
}

char *pypi_archive_metadata(const unsigned char *data, size_t len, bool sdist, size_t *out_len,
                            const char **err)
{
    struct archive *ar = archive_read_new();
    if (sdist) {
        archive_read_support_filter_gzip(ar);
        archive_read_support_filter_bzip2(ar);
        archive_read_support_format_tar(ar);
        archive_read_support_format_zip(ar);
    } else {
        archive_read_support_format_zip(ar);
    }
    char *out = NULL;
    *err = sdist ? "the sdist has no PKG-INFO" : "the wheel has no *.dist-info/METADATA";
    if (archive_read_open_memory(ar, data, len) != ARCHIVE_OK) {
        *err = sdist ? "the sdist is not a readable archive" : "the wheel is not a readable zip";
        archive_read_free(ar);
        return NULL;
    }
    struct archive_entry *e;
    int rc;
    while ((rc = archive_read_next_header(ar, &e)) == ARCHIVE_OK ||
           rc == ARCHIVE_WARN) {
        const char *path = archive_entry_pathname(e);
        if (!path)
            continue;
        if (path[0] == '.' && path[1] == '/')
            path += 2;
        const char *slash = strchr(path, '/');
        if (!slash || slash == path || strchr(slash + 1, '/'))
            continue;
        bool hit;
        if (sdist) {
            hit = strcmp(slash + 1, "PKG-INFO") == 0;
        } else {
            size_t dl = (size_t)(slash - path);
            hit = strcmp(slash + 1, "METADATA") == 0 && dl > 10 &&
                  strncmp(slash - 10, ".dist-info", 10) == 0;
        }
        if (!hit)
            continue;
        la_int64_t sz = archive_entry_size_is_set(e) ? archive_entry_size(e) : -1;
        if (sz > (la_int64_t)META_MAX) {
            *err = "the metadata member is too large";
            break;
        }
        strbuf sb = STRBUF_INIT;
        char buf[16384];
        la_ssize_t n;
        bool bad = false;
        while ((n = archive_read_data(ar, buf, sizeof buf)) > 0) {
            sb_add(&sb, buf, (size_t)n);
            if (sb.len > META_MAX) {
                bad = true;
                break;
            }
        }
        if (n < 0 || bad) {
            *err = bad ? "the metadata member is too large" : "the metadata member is corrupt";
            sb_release(&sb);
            break;
        }
        out = sb_detach(&sb, out_len);
        break;
    }
    if (!out && rc != ARCHIVE_OK && rc != ARCHIVE_WARN && rc != ARCHIVE_EOF)
        *err = sdist ? "the sdist is not a readable archive" : "the wheel is not a readable zip";
    archive_read_free(ar);
    return out;
}

static void exclude(proj *p, pypi_candidate *c, const char *reason, char *why_owned)
{
    c->excluded = reason;
    c->why = arena_strdup(p->l->a, why_owned);
    free(why_owned);
    c->meta = PYPI_META_NONE;
}

/* Excludes a version whose chosen file is an sdist envlock cannot use
 * without a build; `what` continues "only an sdist, ..." (no wheels) or,
 * for a version whose wheels all miss the target, "...; its sdist, ...". */
static void sdist_exclude(proj *p, pypi_candidate *c, char *what)
{
    if (c->wheels_missed)
        exclude(p, c, "sdist_needs_build", xasprintf("%s; its sdist, %s", c->wheels_missed, what));
    else
        exclude(p, c, "sdist_needs_build", xasprintf("only an sdist, %s", what));
    free(what);
}

/* Applies parsed metadata to candidate c (or excludes it). */
static void apply_meta(proj *p, pypi_candidate *c, const char *text, size_t len,
                       meta_stage stage)
{
    pypi_loader *l = p->l;
    arena *a = l->a;
    pypi_core_meta m;
    char *err = NULL;
    if (!pypi_core_meta_parse(a, text, len, &m, &err)) {
        exclude(p, c, "invalid_metadata", err);
        return;
    }
    char *canon = pypi_name_canonical(m.name);
    pypi_version *mv = pypi_version_parse(m.version, NULL);
    bool same = strcmp(canon, p->pub.name) == 0 && mv && pypi_version_cmp(mv, c->parsed) == 0;
    free(canon);
    pypi_version_free(mv);
    if (!same) {
        exclude(p, c, "metadata_mismatch",
                xasprintf("the metadata names %s %s, not %s %s", m.name, m.version, p->pub.name,
                          c->version));
        return;
    }
    if (stage == STAGE_SDIST) {
        if (m.mv_major < 2 || (m.mv_major == 2 && m.mv_minor < 2)) {
            sdist_exclude(p, c, xasprintf("whose PKG-INFO is Metadata-Version %s; its dependencies "
                                          "are known only after a build (2.2 or later is needed)",
                                          m.metadata_version ? m.metadata_version : "(none)"));
            return;
        }
        if (pypi_core_meta_dynamic(&m, "Requires-Dist")) {
            sdist_exclude(p, c, xstrdup("whose PKG-INFO marks Requires-Dist as dynamic; its "
                                        "dependencies are known only after a build"));
            return;
        }
    }
    if (m.requires_python) {
        pypi_specset *s = pypi_specset_parse(m.requires_python, NULL);
        bool ok = !s || pypi_specset_contains(s, l->t->python, PYPI_PRE_YES);
        pypi_specset_free(s);
        if (!c->requires_python)
            c->requires_python = m.requires_python;
        if (!ok) {
            exclude(p, c, "requires_python",
                    xasprintf("needs Python %s; the target is %s", m.requires_python,
                              target_python(l)));
            return;
        }
    }
    pypi_dep *deps = arena_alloc(a, (m.n_requires_dist ? m.n_requires_dist : 1) * sizeof *deps);
    for (size_t i = 0; i < m.n_requires_dist; i++) {
        char *rerr = NULL;
        pypi_requirement *r = pypi_requirement_parse(m.requires_dist[i], &rerr);
        if (!r) {
            exclude(p, c, "invalid_metadata",
                    xasprintf("Requires-Dist `%s` is not a PEP 508 requirement: %s",
                              m.requires_dist[i], rerr ? rerr : "?"));
            free(rerr);
            return;
        }
        ptrvec_push(&l->reqs, r);
        deps[i].text = m.requires_dist[i];
        deps[i].req = r;
    }
    c->deps = deps;
    c->ndeps = m.n_requires_dist;
    c->license = pypi_core_meta_license(a, &m);
    c->extras = m.provides_extra;
    c->nextras = m.n_provides_extra;
    c->meta = PYPI_META_LOADED;
    c->meta_source = stage == STAGE_METAFILE ? "metadata-file"
                     : stage == STAGE_WHEEL  ? "wheel"
                                             : "pkg-info";
}

static void meta_done(cache *c, cache_response *r, void *user)
{
    meta_req *m = user;
    proj *p = m->p;
    pypi_candidate *cand = &p->pub.cands[m->ci];
    if (r->code != EL_OK) {
        if (m->stage == STAGE_METAFILE && r->reason && strcmp(r->reason, "not_found") == 0) {
            /* The index promised a .metadata it does not have: read the wheel. */
            submit_meta(p, m->ci, STAGE_WHEEL);
            return;
        }
        if (r->reason && strcmp(r->reason, "not_found") == 0) {
            /* A dead link costs that version, not the whole name. */
            exclude(p, cand, "missing_file",
                    xasprintf("the index links %s, which does not exist", r->url));
            fill_window(p);
            return;
        }
        cand->meta = PYPI_META_NONE;
        fail_response(p, r);
        return;
    }
    if (m->stage == STAGE_METAFILE) {
        apply_meta(p, cand, (const char *)r->body, r->len, m->stage);
    } else {
        size_t len = 0;
        const char *why = NULL;
        char *text = pypi_archive_metadata(r->body, r->len, m->stage == STAGE_SDIST, &len, &why);
        if (!text) {
            if (m->stage == STAGE_SDIST && cand->wheels_missed)
                exclude(p, cand, "sdist_needs_build", xasprintf("%s; %s", cand->wheels_missed, why));
            else
                exclude(p, cand, m->stage == STAGE_SDIST ? "sdist_needs_build" : "invalid_metadata",
                        xasprintf("%s", why));
        } else {
            apply_meta(p, cand, text, len, m->stage);
            free(text);
        }
    }
    fill_window(p);
    if (cand->meta == PYPI_META_LOADED && p->l->on_meta)
        p->l->on_meta(p->l, &p->pub, m->ci, p->l->on_meta_user);
    (void)c;
}

void pypi_loader_on_meta(pypi_loader *l, pypi_meta_fn fn, void *user)
{
    l->on_meta = fn;
    l->on_meta_user = user;
}

/* ---- submitting ---- */

void pypi_loader_submit(pypi_loader *l, const char *name, size_t window)
{
    char *canon = pypi_name_canonical(name);
    size_t w = window ? window : SIZE_MAX;
    proj *p = find(l, canon);
    if (p) {
        free(canon);
        if (w > p->window) {
            p->window = w;
            fill_window(p);
        }
        return;
    }
    p = xcalloc(1, sizeof *p);
    p->l = l;
    p->window = w;
    p->pub.name = arena_strdup(l->a, canon);
    p->pub.code = EL_OK;
    free(canon);
    ptrvec_push(&l->projects, p);
    submit_page(p);
}

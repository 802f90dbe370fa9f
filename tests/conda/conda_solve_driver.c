/* conda_solve_driver.c — the resolver's conda solve (resolver_conda_solve())
 * on recorded repodata, against rattler's answers on the same repodata
 * (solve/rattler_answers.txt, made by solve/rattler_solve.js).
 *
 * usage: conda_solve_driver CASES ANSWERS [KNOWN_DIFFERENCES]
 * Every answer of envlock's is also checked on its own (check_answer()).
 * A case listed in KNOWN_DIFFERENCES ("NAME reason" lines) must solve to a
 * valid answer that is not rattler's: both solvers' greedy choices differ
 * where no rule of conda's ranks the two solutions.
 * A case agrees when both solve to the same records (name, version, build,
 * channel/subdir/file), or when both find no solution and envlock's
 * explanation names the packages at the heart of rattler's (key_names():
 * the specs it names, and the package each of its chains ends on). Both
 * explanations may take different chains to the same conflict; the names
 * at its two ends are what a user acts on. Prints a line per
 * disagreement and the total; exit 1 on any. */
#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envlock.h"
#include "util.h"
#include "conda_index.h"
#include "condaspec.h"
#include "resolver.h"

#define MAXC 16
#define MAXS 64

typedef struct chan {
    char *name;
    char *subdir[4], *file[4];
    size_t n;
} chan;

typedef struct kase {
    char name[128], subdir[64];
    char *use[MAXC];
    size_t nuse;
    conda_virtual virt[MAXS];
    size_t nvirt;
    char *specs[MAXS];
    size_t nspecs;
} kase;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf sb = STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_detach(&sb, len);
}

static const chan *find_chan(const chan *cs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(cs[i].name, name) == 0)
            return &cs[i];
    return NULL;
}

/* The case's channels as loaded: per `use` channel its platform subdir,
 * then noarch. Returns false when a file is missing or refused. */
static bool load_set(el_ctx *ctx, const char *dir, const chan *cs, size_t ncs, const kase *k,
                     conda_channel_set *set)
{
    set->subdirs = xcalloc(2 * k->nuse + 1, sizeof *set->subdirs);
    for (size_t u = 0; u < k->nuse; u++) {
        const chan *c = find_chan(cs, ncs, k->use[u]);
        const char *want[2] = {k->subdir, "noarch"};
        for (size_t w = 0; c && w < 2; w++)
            for (size_t i = 0; i < c->n; i++) {
                if (strcmp(c->subdir[i], want[w]) != 0)
                    continue;
                char *path = xasprintf("%s/%s", dir, c->file[i]);
                size_t len = 0;
                char *body = slurp(path, &len);
                free(path);
                conda_subdir_load *sl = &set->subdirs[set->n_subdirs++];
                sl->channel = c->name;
                sl->subdir = c->subdir[i];
                conda_repodata_options o = {.channel = c->name, .subdir = c->subdir[i]};
                if (!body || conda_repodata_parse(ctx, body, len, &o, &sl->repodata) != EL_OK) {
                    free(body);
                    return false;
                }
                free(body);
            }
    }
    return true;
}

static void free_set(conda_channel_set *set)
{
    for (size_t i = 0; i < set->n_subdirs; i++)
        conda_repodata_free(set->subdirs[i].repodata);
    free(set->subdirs);
}

/* Whether `word` occurs in `text` delimited by characters no package name has. */
static bool names(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool before = p == text || !(isalnum((unsigned char)p[-1]) || strchr("_.-", p[-1]));
        bool after = !(isalnum((unsigned char)p[n]) || (p[n] && strchr("_-", p[n])));
        if (before && after)
            return true;
    }
    return false;
}

/* The token at p (a package name), into out. */
static void add_token(const char *p, strbuf *out)
{
    size_t n = 0;
    while (p[n] && (isalnum((unsigned char)p[n]) || strchr("_.-", p[n])))
        n++;
    if (n)
        sb_addf(out, " %.*s", (int)n, p);
}

/* The packages rattler's explanation puts at the heart of the conflict:
 * the case's specs it names and, on each line that ends a chain ("no
 * candidates were found", "conflicts with"), the package that line is
 * about. Lines are separated by a written "\\n". */
static void key_names(const char *msg, const kase *k, strbuf *out)
{
    for (size_t i = 0; i < k->nspecs; i++) {
        char *nm = xstrndup(k->specs[i], strcspn(k->specs[i], " =<>!~"));
        if (names(msg, nm))
            sb_addf(out, " %s", nm);
        free(nm);
    }
    for (const char *line = msg; line && *line;) {
        const char *end = strstr(line, "\\n");
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = xstrndup(line, len);
        if (strstr(l, "no candidates were found") || strstr(l, "conflicts with")) {
            const char *t = strstr(l, "\u2500 "); /* the tree's "─ " */
            const char *f = strstr(l, "found for ");
            if (t)
                add_token(t + strlen("\u2500 "), out);
            else if (f)
                add_token(f + strlen("found for "), out);
        }
        free(l);
        line = end ? end + 2 : NULL;
    }
}

/* Every key name (key_names()) envlock's explanation does not name,
 * appended to `missing`. */
static void compare_names(const kase *k, const char *theirs, const char *ours, strbuf *missing)
{
    strbuf key = STRBUF_INIT;
    key_names(theirs, k, &key);
    char *save = NULL;
    for (char *t = strtok_r(key.buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (!names(ours, t) && !names(missing->buf, t))
            sb_addf(missing, " %s", t);
    sb_release(&key);
}

/* The record an answer line names ("name version build chan/subdir/fn"). */
static const conda_record *answer_record(const conda_channel_set *set, const char *line)
{
    const char *loc = strrchr(line, ' ');
    for (size_t i = 0; loc && i < set->n_subdirs; i++) {
        const conda_subdir_load *sl = &set->subdirs[i];
        for (size_t j = 0; sl->repodata && j < sl->repodata->n_records; j++) {
            const conda_record *r = &sl->repodata->records[j];
            char *at = xasprintf("%s/%s/%s", sl->channel, r->subdir, r->fn);
            bool hit = strcmp(at, loc + 1) == 0;
            free(at);
            if (hit)
                return r;
        }
    }
    return NULL;
}

/* Whether `spec` holds over the installed records and virtual packages:
 * a requirement needs one that matches; a constraint (`constrain`) only
 * that any installed record of its name matches. */
static bool spec_holds(const char *spec, const conda_record *const *inst, size_t n, const kase *k,
                       bool constrain)
{
    conda_matchspec *ms = conda_matchspec_parse(spec, strlen(spec), NULL);
    if (!ms)
        return false;
    bool found = false, ok = true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(inst[i]->name, ms->name) == 0) {
            found = true;
            ok = conda_matchspec_match(ms, inst[i]->name, inst[i]->version, inst[i]->build,
                                       inst[i]->build_number);
        }
    for (size_t i = 0; i < k->nvirt; i++)
        if (strcmp(k->virt[i].name, ms->name) == 0) {
            found = true;
            ok = conda_matchspec_match(ms, k->virt[i].name, k->virt[i].version, k->virt[i].build, 0);
        }
    conda_matchspec_free(ms);
    return constrain ? ok : found && ok;
}

/* Checks envlock's answer on its own: one record per name, every spec,
 * depends and constrains of the installed records holding. Appends what
 * fails to `why`. */
static void check_answer(const conda_channel_set *set, const kase *k, const char *answer,
                         strbuf *why)
{
    ptrvec inst = {0};
    char *text = xstrdup(answer), *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        const conda_record *r = answer_record(set, l);
        if (!r)
            sb_addf(why, " unknown record `%s`;", l);
        for (size_t i = 0; r && i < inst.len; i++)
            if (strcmp(((const conda_record *)inst.items[i])->name, r->name) == 0)
                sb_addf(why, " %s twice;", r->name);
        if (r)
            ptrvec_push(&inst, (void *)r);
    }
    const conda_record *const *in = (const conda_record *const *)inst.items;
    for (size_t i = 0; i < k->nspecs; i++)
        if (!spec_holds(k->specs[i], in, inst.len, k, false))
            sb_addf(why, " spec `%s` does not hold;", k->specs[i]);
    for (size_t i = 0; i < inst.len; i++) {
        for (size_t d = 0; d < in[i]->n_depends; d++)
            if (!spec_holds(in[i]->depends[d], in, inst.len, k, false))
                sb_addf(why, " %s: `%s` does not hold;", in[i]->fn, in[i]->depends[d]);
        for (size_t d = 0; d < in[i]->n_constrains; d++)
            if (!spec_holds(in[i]->constrains[d], in, inst.len, k, true))
                sb_addf(why, " %s: constraint `%s` does not hold;", in[i]->fn, in[i]->constrains[d]);
    }
    ptrvec_release(&inst);
    free(text);
}

/* rattler's answer for case `name`: "ok\n<lines>" or "unsat\n<message>". */
static char *expected(const char *answers, const char *name)
{
    char *head = xasprintf("\ncase %s\n", name);
    const char *p = strstr(answers, head);
    char *out = NULL;
    if (p) {
        p += strlen(head);
        const char *e = strstr(p, "\nend\n");
        out = e ? xstrndup(p, (size_t)(e - p) + 1) : NULL;
    }
    free(head);
    return out;
}

enum { AGREE, KNOWN, DIFFER };

/* rattler found a solution (`want`, its lines): envlock's must be a
 * solution (check_answer()) and the same, unless the case is a known
 * difference (`known`: its reason), which must still differ. */
static int judge_ok(const conda_channel_set *set, const kase *k, el_ctx *ctx, el_code rc,
                    const char *got, const char *want, const char *known)
{
    strbuf invalid = STRBUF_INIT;
    if (rc == EL_OK)
        check_answer(set, k, got, &invalid);
    bool same = rc == EL_OK && strcmp(got, want) == 0;
    int res = DIFFER;
    if (invalid.len)
        printf("%s: envlock's answer is not a solution:%s\n", k->name, invalid.buf);
    else if (same && known)
        printf("%s: agrees with rattler now: drop it from the known differences\n", k->name);
    else if (same)
        res = AGREE;
    else if (known && rc == EL_OK)
        res = KNOWN;
    else
        printf("%s: rattler\n%senvlock (%s)\n%s%s\n", k->name, want, el_code_name(rc), got,
               rc == EL_OK ? "" : el_ctx_message(ctx));
    if (res == KNOWN)
        printf("%s: a solution, not rattler's (known: %s)\n", k->name, known);
    sb_release(&invalid);
    return res;
}

/* rattler found none: neither must envlock, naming the key packages. */
static int judge_unsat(const kase *k, el_ctx *ctx, el_code rc, const char *got, const char *want)
{
    strbuf missing = STRBUF_INIT;
    const char *msg = strstr(want, "message ");
    if (rc == EL_RESOLVE_CONFLICT && msg)
        compare_names(k, msg, el_ctx_message(ctx), &missing);
    bool ok = rc == EL_RESOLVE_CONFLICT && msg && missing.len == 0;
    if (ok)
        printf("%s: no solution, as rattler: %s\n", k->name, el_ctx_message(ctx));
    else
        printf("%s: rattler finds no solution (%s); envlock: %s %s%s; not named:%s\n", k->name,
               msg ? msg : "?", el_code_name(rc), got, rc == EL_OK ? "" : el_ctx_message(ctx),
               missing.buf);
    sb_release(&missing);
    return ok ? AGREE : DIFFER;
}

static int run_case(const char *dir, const chan *cs, size_t ncs, const kase *k,
                    const char *answers, const char *known)
{
    el_ctx *ctx = el_ctx_new();
    conda_channel_set set = {0};
    char *want = expected(answers, k->name);
    int res = DIFFER;
    strbuf got = STRBUF_INIT;
    if (!want) {
        printf("%s: no rattler answer\n", k->name);
    } else if (!load_set(ctx, dir, cs, ncs, k, &set)) {
        printf("%s: channel files do not load: %s\n", k->name, el_ctx_message(ctx));
    } else {
        el_code rc = resolver_conda_solve(ctx, &set, k->virt, k->nvirt,
                                          (const char *const *)k->specs, k->nspecs, &got);
        if (strncmp(want, "ok\n", 3) == 0)
            res = judge_ok(&set, k, ctx, rc, got.buf, want + 3, known);
        else
            res = judge_unsat(k, ctx, rc, got.buf, want);
    }
    sb_release(&got);
    free(want);
    free_set(&set);
    el_ctx_free(ctx);
    return res;
}

/* The reason a case is listed in the known differences ("NAME reason"
 * lines), or NULL. */
static const char *known_reason(const char *known, const char *name, strbuf *buf)
{
    sb_reset(buf);
    for (const char *l = known; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l), n = strlen(name);
        if (*l != '#' && len > n && strncmp(l, name, n) == 0 && l[n] == ' ') {
            sb_add(buf, l + n + 1, len - n - 1);
            return buf->buf;
        }
        l = e ? e + 1 : NULL;
    }
    return NULL;
}

/* Reads one line of the case file into the channels or the case. Returns
 * true when it ends a case. */
static bool read_line(char *line, chan *cs, size_t *ncs, kase *k)
{
    char *arg = strchr(line, ' ');
    arg = arg ? arg + 1 : line + strlen(line);
    if (strncmp(line, "channel ", 8) == 0 && *ncs < MAXC) {
        chan *c = &cs[(*ncs)++];
        memset(c, 0, sizeof *c);
        char *save = NULL;
        c->name = xstrdup(strtok_r(arg, " ", &save));
        for (char *t; c->n < 4 && (t = strtok_r(NULL, " ", &save));) {
            char *eq = strchr(t, '=');
            c->subdir[c->n] = xstrndup(t, (size_t)(eq - t));
            c->file[c->n++] = xstrdup(eq + 1);
        }
    } else if (strncmp(line, "case ", 5) == 0) {
        memset(k, 0, sizeof *k);
        snprintf(k->name, sizeof k->name, "%s", arg);
        snprintf(k->subdir, sizeof k->subdir, "linux-64");
    } else if (strncmp(line, "subdir ", 7) == 0) {
        snprintf(k->subdir, sizeof k->subdir, "%s", arg);
    } else if (strncmp(line, "use ", 4) == 0) {
        char *save = NULL;
        for (char *t = strtok_r(arg, " ", &save); t && k->nuse < MAXC; t = strtok_r(NULL, " ", &save))
            k->use[k->nuse++] = xstrdup(t);
    } else if (strncmp(line, "virtual ", 8) == 0 && k->nvirt < MAXS) {
        char *save = NULL;
        conda_virtual *v = &k->virt[k->nvirt++];
        v->name = xstrdup(strtok_r(arg, " ", &save));
        v->version = xstrdup(strtok_r(NULL, " ", &save));
        v->build = xstrdup(strtok_r(NULL, " ", &save));
    } else if (strncmp(line, "spec ", 5) == 0 && k->nspecs < MAXS) {
        k->specs[k->nspecs++] = xstrdup(arg);
    } else if (strcmp(line, "end") == 0) {
        return true;
    }
    return false;
}

static void free_case(kase *k)
{
    for (size_t i = 0; i < k->nuse; i++)
        free(k->use[i]);
    for (size_t i = 0; i < k->nvirt; i++) {
        free((char *)k->virt[i].name);
        free((char *)k->virt[i].version);
        free((char *)k->virt[i].build);
    }
    for (size_t i = 0; i < k->nspecs; i++)
        free(k->specs[i]);
}

int main(int argc, char **argv)
{
    size_t alen = 0;
    char *answers = argc >= 3 ? slurp(argv[2], &alen) : NULL;
    char *known = argc == 4 ? slurp(argv[3], &alen) : NULL;
    FILE *f = argc >= 3 && argc <= 4 ? fopen(argv[1], "r") : NULL;
    if (!f || !answers || (argc == 4 && !known)) {
        fprintf(stderr, "usage: conda_solve_driver CASES ANSWERS [KNOWN_DIFFERENCES]\n");
        return 2;
    }
    strbuf reason = STRBUF_INIT;
    char *dpath = xstrdup(argv[1]);
    const char *dir = dirname(dpath);
    chan cs[MAXC];
    size_t ncs = 0, total = 0, agree = 0, differ = 0;
    kase k;
    memset(&k, 0, sizeof k);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        if (read_line(line, cs, &ncs, &k)) {
            total++;
            int res = run_case(dir, cs, ncs, &k, answers, known_reason(known, k.name, &reason));
            agree += res == AGREE;
            differ += res == DIFFER;
            free_case(&k);
        }
    }
    fclose(f);
    printf("%zu/%zu conda cases agree with rattler, %zu known differences (each a valid solution)\n",
           agree, total, total - agree - differ);
    for (size_t i = 0; i < ncs; i++) {
        free(cs[i].name);
        for (size_t j = 0; j < cs[i].n; j++) {
            free(cs[i].subdir[j]);
            free(cs[i].file[j]);
        }
    }
    free(dpath);
    free(answers);
    free(known);
    sb_release(&reason);
    return differ == 0 ? 0 : 1;
}

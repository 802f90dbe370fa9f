/* conda_solve_driver.c — the resolver's conda solve (resolver_conda_solve())
 * on recorded repodata, against rattler's answers on the same repodata
 * (solve/rattler_answers.txt, made by solve/rattler_solve.js).
 *
 * usage: conda_solve_driver CASES ANSWERS
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

static bool run_case(const char *dir, const chan *cs, size_t ncs, const kase *k, const char *answers)
{
    el_ctx *ctx = el_ctx_new();
    conda_channel_set set = {0};
    char *want = expected(answers, k->name);
    bool ok = false;
    strbuf got = STRBUF_INIT, missing = STRBUF_INIT;
    if (!want) {
        printf("%s: no rattler answer\n", k->name);
    } else if (!load_set(ctx, dir, cs, ncs, k, &set)) {
        printf("%s: channel files do not load: %s\n", k->name, el_ctx_message(ctx));
    } else {
        el_code rc = resolver_conda_solve(ctx, &set, k->virt, k->nvirt,
                                          (const char *const *)k->specs, k->nspecs, &got);
        if (strncmp(want, "ok\n", 3) == 0) {
            ok = rc == EL_OK && strcmp(got.buf, want + 3) == 0;
            if (!ok)
                printf("%s: rattler\n%senvlock (%s)\n%s%s\n", k->name, want + 3, el_code_name(rc),
                       got.buf, rc == EL_OK ? "" : el_ctx_message(ctx));
        } else {
            const char *msg = strstr(want, "message ");
            if (rc == EL_RESOLVE_CONFLICT && msg)
                compare_names(k, msg, el_ctx_message(ctx), &missing);
            ok = rc == EL_RESOLVE_CONFLICT && msg && missing.len == 0;
            if (ok)
                printf("%s: no solution, as rattler: %s\n", k->name, el_ctx_message(ctx));
            else
                printf("%s: rattler finds no solution (%s); envlock: %s %s%s; not named:%s\n",
                       k->name, msg ? msg : "?", el_code_name(rc), got.buf,
                       rc == EL_OK ? "" : el_ctx_message(ctx), missing.buf);
        }
    }
    sb_release(&got);
    sb_release(&missing);
    free(want);
    free_set(&set);
    el_ctx_free(ctx);
    return ok;
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
    char *answers = argc == 3 ? slurp(argv[2], &alen) : NULL;
    FILE *f = argc == 3 ? fopen(argv[1], "r") : NULL;
    if (!f || !answers) {
        fprintf(stderr, "usage: conda_solve_driver CASES ANSWERS\n");
        return 2;
    }
    char *dpath = xstrdup(argv[1]);
    const char *dir = dirname(dpath);
    chan cs[MAXC];
    size_t ncs = 0, total = 0, agree = 0;
    kase k;
    memset(&k, 0, sizeof k);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#' || !line[0])
            continue;
        if (read_line(line, cs, &ncs, &k)) {
            total++;
            agree += run_case(dir, cs, ncs, &k, answers);
            free_case(&k);
        }
    }
    fclose(f);
    printf("%zu/%zu conda cases agree with rattler\n", agree, total);
    for (size_t i = 0; i < ncs; i++) {
        free(cs[i].name);
        for (size_t j = 0; j < cs[i].n; j++) {
            free(cs[i].subdir[j]);
            free(cs[i].file[j]);
        }
    }
    free(dpath);
    free(answers);
    return agree == total ? 0 : 1;
}

/* cache.c — `envlock cache info|prune|export FILE [--sign KEY]|import FILE
 * [--verify KEY]`: look after the download cache (counts, pruning, carrying
 * it into an air-gapped site, signed with an Ed25519 key if asked).
 * Also turns the global --cache-dir/--offline/--mirror options into
 * el_cache_options for every command that fetches, and draws their
 * progress line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The progress line on stderr: one line redrawn in place, cleared at the
 * end of each run. Only on a TTY that can redraw, and not with --quiet or
 * --json (see cli_cache_options). */
static void draw_progress(const el_progress *p, void *user)
{
    (void)user;
    if (p->final) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        return;
    }
    char line[200];
    int n = p->phase ? snprintf(line, sizeof line, "%s  (fetched %llu, %.1f MB)", p->phase,
                                p->done, (double)p->bytes / 1e6)
                     : snprintf(line, sizeof line, "fetch %llu/%llu  %.1f MB", p->done, p->total,
                                (double)p->bytes / 1e6);
    if (p->slowest && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  slowest %.1fs %s", p->slowest_s,
                 p->slowest);
    fprintf(stderr, "\r\033[K%.*s", 100, line);
    fflush(stderr);
}

/* A terminal that TERM says cannot move the cursor or clear a line (dumb,
 * or none named: an editor's shell, a CI log) gets no progress line rather
 * than escape sequences it would print as text. */
bool cli_terminal_redraws(void)
{
    const char *term = getenv("TERM");
    return term && *term && strcmp(term, "dumb") != 0;
}

void cli_cache_options(const cli_opts *o, el_cache_options *co)
{
    *co = o->env;
    co->redirect_hosts = o->env_redirect;
    if (o->cache_dir)
        co->dir = o->cache_dir;
    co->offline = o->offline;
    co->quiet = o->quiet || o->json;
    if (!co->quiet && isatty(2) && cli_terminal_redraws())
        co->progress = draw_progress;
    co->mirrors = o->mirrors;
    co->n_mirrors = o->n_mirrors;
}

void cli_print_stat(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "envlock-stats: %s\n", line);
}

bool cli_debug_stats(void)
{
    const char *v = getenv("ENVLOCK_DEBUG_STATS");
    return v && *v && strcmp(v, "0") != 0;
}

static void print_stats(const cli_opts *o, const char *verb, const char *dir,
                        const el_cache_stats *st)
{
    if (o->json) {
        printf("{\"dir\":");
        cli_json_string(stdout, dir);
        printf(",\"entries\":%llu,\"immutable\":%llu,\"revalidated\":%llu,\"bytes\":%llu,"
               "\"bodyBytes\":%llu,\"corrupt\":%llu,\"tempFiles\":%llu,\"staging\":%llu,"
               "\"stagingBytes\":%llu}\n",
               (unsigned long long)st->entries, (unsigned long long)st->immutable,
               (unsigned long long)st->revalidated, (unsigned long long)st->bytes,
               (unsigned long long)st->body_bytes, (unsigned long long)st->corrupt,
               (unsigned long long)st->temp_files, (unsigned long long)st->staging,
               (unsigned long long)st->staging_bytes);
        return;
    }
    printf("cache: %s\n", dir);
    printf("%s %llu entries (%llu immutable, %llu revalidated), %llu bytes on disk, "
           "%llu bytes uncompressed\n",
           verb, (unsigned long long)st->entries, (unsigned long long)st->immutable,
           (unsigned long long)st->revalidated, (unsigned long long)st->bytes,
           (unsigned long long)st->body_bytes);
    if (st->corrupt)
        printf("unreadable entries: %llu\n", (unsigned long long)st->corrupt);
    if (st->temp_files)
        printf("interrupted writes: %llu\n", (unsigned long long)st->temp_files);
    if (st->staging)
        printf("interrupted imports: %llu (%llu bytes)\n", (unsigned long long)st->staging,
               (unsigned long long)st->staging_bytes);
}

int cli_cache(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    if (argc < 1)
        return cli_usage_error(ctx, o, "cache needs info, prune, export FILE [--sign KEY] or import FILE [--verify KEY]");
    el_cache_options co;
    cli_cache_options(o, &co);
    const char *sub = argv[0];
    el_cache_stats st;
    el_code rc;
    const char *verb;
    if (strcmp(sub, "info") == 0) {
        if (argc != 1)
            return cli_usage_error(ctx, o, "cache info takes no arguments");
        rc = el_cache_info(ctx, &co, &st);
        verb = "holds";
    } else if (strcmp(sub, "prune") == 0) {
        unsigned days = 30;
        bool all = false;
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--all") == 0) {
                all = true;
            } else if (strcmp(argv[i], "--days") == 0 && i + 1 < argc) {
                char *end;
                long d = strtol(argv[++i], &end, 10);
                if (*end || d < 0 || d > 100000)
                    return cli_usage_error(ctx, o, "--days takes a number of days, not `%s`",
                                           argv[i]);
                days = (unsigned)d;
            } else {
                return cli_usage_error(ctx, o, "cache prune takes [--days N] [--all], not `%s`",
                                       argv[i]);
            }
        }
        rc = el_cache_prune(ctx, &co, days, all, &st);
        verb = "removed";
    } else if (strcmp(sub, "export") == 0 || strcmp(sub, "import") == 0) {
        bool exp = strcmp(sub, "export") == 0;
        const char *flag = exp ? "--sign" : "--verify";
        const char *file = NULL, *key = NULL;
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], flag) == 0 && i + 1 < argc && !key)
                key = argv[++i];
            else if (strncmp(argv[i], flag, strlen(flag)) == 0 && argv[i][strlen(flag)] == '=' &&
                     !key)
                key = argv[i] + strlen(flag) + 1;
            else if (argv[i][0] != '-' && !file)
                file = argv[i];
            else
                return cli_usage_error(ctx, o, "cache %s takes FILE [%s KEY], not `%s`", sub, flag,
                                       argv[i]);
        }
        if (!file || (key && !*key))
            return cli_usage_error(ctx, o, "cache %s takes FILE [%s KEY]", sub, flag);
        rc = exp ? el_cache_export_signed(ctx, &co, file, key, &st)
                 : el_cache_import_verified(ctx, &co, file, key, &st);
        verb = exp ? "exported" : "imported";
    } else {
        return cli_usage_error(ctx, o, "unknown cache command `%s` (info, prune, export, import)",
                               sub);
    }
    if (rc != EL_OK)
        return cli_report_failure(ctx, o);
    char *dir = NULL;
    if (el_cache_dir(ctx, &co, &dir) != EL_OK)
        return cli_report_failure(ctx, o);
    print_stats(o, verb, dir, &st);
    el_free(dir);
    return 0;
}

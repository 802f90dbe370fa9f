/* audit.c — `envlock audit LOCK --advisories DIR`: every locked package an
 * advisory of the offline OSV snapshot affects, as text, JSON or SARIF
 * 2.1.0. Exit 0 when none, 1 when some; a snapshot or lock that cannot be
 * read, or one older than --max-age, exits with its DL_ENV code's status,
 * so "could not audit" never reads as "clean" or as "findings". */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char audit_usage[] =
    "usage: envlock audit LOCK --advisories DIR [--format text|json|sarif] [--ignore ID]...\n"
    "                     [--max-age DAYS] [--spec SPEC [--bases FILE]]";

typedef struct audit_args {
    const char *lock_path, *format;
    const char *spec_path, *bases_path; /* --spec: place findings at its lines */
    el_audit_options ao;
    const char **ignore;
} audit_args;

static int parse_value(el_ctx *ctx, const cli_opts *o, audit_args *a, const char *opt,
                       const char *v)
{
    if (strcmp(opt, "--advisories") == 0) {
        a->ao.advisories_dir = v;
    } else if (strcmp(opt, "--format") == 0) {
        if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "sarif"))
            return cli_usage_error(ctx, o, "--format takes text, json or sarif, not `%s`", v);
        a->format = v;
    } else if (strcmp(opt, "--ignore") == 0) {
        a->ignore[a->ao.n_ignore++] = v;
    } else if (strcmp(opt, "--spec") == 0) {
        a->spec_path = v;
    } else if (strcmp(opt, "--bases") == 0) {
        a->bases_path = v;
    } else {
        char *end = NULL;
        unsigned long d = strtoul(v, &end, 10);
        if (!*v || *end || d == 0 || d > 100000)
            return cli_usage_error(ctx, o, "--max-age takes a number of days (1 or more), "
                                   "not `%s`", v);
        a->ao.max_age_days = (unsigned)d;
    }
    return 0;
}

static int parse(el_ctx *ctx, const cli_opts *o, int argc, char **argv, audit_args *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--advisories") || !strcmp(s, "--format") || !strcmp(s, "--ignore") ||
            !strcmp(s, "--max-age") || !strcmp(s, "--spec") || !strcmp(s, "--bases")) {
            if (i + 1 >= argc)
                return cli_usage_error(ctx, o, "%s needs a value\n%s", s, audit_usage);
            int st = parse_value(ctx, o, a, s, argv[++i]);
            if (st)
                return st;
        } else if (s[0] == '-' && s[1] != '\0') {
            return cli_unknown_option(ctx, o, s, audit_usage, NULL);
        } else if (!a->lock_path) {
            a->lock_path = s;
        } else {
            return cli_usage_error(ctx, o, "one lock (got also `%s`)\n%s", s, audit_usage);
        }
    }
    if (!a->lock_path)
        return cli_usage_error(ctx, o, "audit needs a LOCK\n%s", audit_usage);
    if (a->bases_path && !a->spec_path)
        return cli_usage_error(ctx, o, "--bases is the catalog of --spec: give --spec SPEC\n%s",
                               audit_usage);
    a->ao.advisories_dir = cli_path_or_env(a->ao.advisories_dir, "ENVLOCK_ADVISORIES");
    if (!a->ao.advisories_dir)
        return cli_usage_error(ctx, o, "audit needs an advisory snapshot: --advisories DIR\n%s",
                               audit_usage);
    return 0;
}

static void print_text(const audit_args *a, const el_audit_result *r)
{
    for (size_t i = 0; i < r->n_findings; i++) {
        const el_audit_finding *f = &r->findings[i];
        char *head = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&head, &n);
        fprintf(m, "%s %s %s: %s%s%s%s", f->ecosystem, f->name, f->version, f->advisory,
                *f->aliases ? " (" : "", f->aliases, *f->aliases ? ")" : "");
        if (*f->severity)
            fprintf(m, " [%s]", f->severity);
        if (*f->source)
            fprintf(m, "\n  source package: %s", f->source);
        fprintf(m, "\n  %s\n  fixed in: %s\n  path: %s\n  lock: %s:%u\n", f->summary,
                *f->fixed ? f->fixed : "no fixed version", f->chain, a->lock_path, f->lock_line);
        if (f->spec_line)
            fprintf(m, "  spec: %s:%u:%u (%s)\n", a->spec_path, f->spec_line, f->spec_column,
                    f->spec_field);
        fclose(m);
        cli_text(stdout, head, n);
        free(head);
    }
    printf("%zu finding%s in %zu packages of %s (snapshot %s, %zu records, newest %s)\n",
           r->n_findings, r->n_findings == 1 ? "" : "s", r->n_packages, a->lock_path,
           r->snapshot, r->n_records, *r->newest ? r->newest : "unknown");
}

static void json_field(const char *key, const char *v, bool comma)
{
    printf("%s\"%s\":", comma ? "," : "", key);
    cli_json_string(stdout, v);
}

static void print_json(const audit_args *a, const el_audit_result *r)
{
    printf("{\"lock\":");
    cli_json_string(stdout, a->lock_path);
    json_field("snapshot", r->snapshot, true);
    json_field("newest", r->newest, true);
    printf(",\"records\":%zu,\"packages\":%zu,\"findings\":[", r->n_records, r->n_packages);
    for (size_t i = 0; i < r->n_findings; i++) {
        const el_audit_finding *f = &r->findings[i];
        printf("%s{", i ? "," : "");
        json_field("ecosystem", f->ecosystem, false);
        json_field("name", f->name, true);
        json_field("version", f->version, true);
        json_field("advisory", f->advisory, true);
        json_field("aliases", f->aliases, true);
        json_field("summary", f->summary, true);
        json_field("severity", f->severity, true);
        json_field("fixed", f->fixed, true);
        if (*f->source) /* deb: the source package the advisory named */
            json_field("source", f->source, true);
        json_field("path", f->chain, true);
        printf(",\"lockLine\":%u", f->lock_line);
        if (f->spec_line) {
            json_field("specField", f->spec_field, true);
            printf(",\"specLine\":%u,\"specColumn\":%u", f->spec_line, f->spec_column);
        }
        printf("}");
    }
    printf("]}\n");
}

/* One SARIF physicalLocation. */
static void sarif_location(const char *uri, unsigned line, unsigned column)
{
    printf("{\"physicalLocation\":{\"artifactLocation\":{");
    json_field("uri", uri, false);
    printf("},\"region\":{\"startLine\":%u", line ? line : 1);
    if (column)
        printf(",\"startColumn\":%u", column);
    printf("}}}");
}

/* SARIF 2.1.0: one rule per advisory (in first-seen order, the findings'
 * order), one result per finding, at the spec entry that brings the
 * package in when --spec places it (the lock's line then a related
 * location), else at the package's line in the lock. */
static void print_sarif(const audit_args *a, const el_audit_result *r)
{
    printf("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
           "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"envlock\",\"rules\":[");
    bool first = true;
    for (size_t i = 0; i < r->n_findings; i++) {
        size_t k = 0;
        while (k < i && strcmp(r->findings[k].advisory, r->findings[i].advisory) != 0)
            k++;
        if (k < i)
            continue;
        printf("%s{", first ? "" : ",");
        first = false;
        json_field("id", r->findings[i].advisory, false);
        printf(",\"shortDescription\":{");
        json_field("text", *r->findings[i].summary ? r->findings[i].summary
                                                   : r->findings[i].advisory, false);
        printf("}}");
    }
    printf("]}},\"results\":[");
    for (size_t i = 0; i < r->n_findings; i++) {
        const el_audit_finding *f = &r->findings[i];
        char *msg = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&msg, &n);
        fprintf(m, "%s affects %s %s %s (fixed in: %s); path: %s", f->advisory, f->ecosystem,
                f->name, f->version, *f->fixed ? f->fixed : "no fixed version", f->chain);
        fclose(m);
        printf("%s{", i ? "," : "");
        json_field("ruleId", f->advisory, false);
        printf(",\"level\":\"error\",\"message\":{");
        json_field("text", msg, false);
        printf("},\"locations\":[");
        if (f->spec_line) {
            sarif_location(a->spec_path, f->spec_line, f->spec_column);
            printf("],\"relatedLocations\":[");
            printf("{\"id\":0,");
            printf("\"message\":{\"text\":\"the locked package\"},");
            printf("\"physicalLocation\":{\"artifactLocation\":{");
            json_field("uri", a->lock_path, false);
            printf("},\"region\":{\"startLine\":%u}}}", f->lock_line ? f->lock_line : 1);
        } else {
            sarif_location(a->lock_path, f->lock_line, 0);
        }
        printf("]}");
        free(msg);
    }
    printf("]}]}\n");
}

/* --spec [--bases]: loaded and validated as `check` loads its spec. */
static el_spec *load_spec(el_ctx *ctx, const cli_opts *o, const audit_args *a, int *status)
{
    char *argv[3] = { (char *)a->spec_path, "--bases", (char *)a->bases_path };
    const char *path = NULL;
    return cli_load_valid_spec(ctx, o, a->bases_path ? 3 : 1, argv, &path, status);
}

int cli_audit(el_ctx *ctx, const cli_opts *o, int argc, char **argv)
{
    audit_args a = { .format = o->json ? "json" : "text" };
    a.ignore = calloc((size_t)argc + 1, sizeof *a.ignore);
    int status = parse(ctx, o, argc, argv, &a);
    if (status != 0) {
        free(a.ignore);
        return status;
    }
    a.ao.ignore = a.ignore;
    a.ao.now = (long long)time(NULL);
    el_spec *spec = NULL;
    if (a.spec_path && !(spec = load_spec(ctx, o, &a, &status))) {
        free(a.ignore);
        return status;
    }
    a.ao.spec = spec;
    el_audit_result r;
    if (el_audit(ctx, a.lock_path, &a.ao, &r) != EL_OK) {
        status = cli_report_failure(ctx, o);
    } else {
        if (strcmp(a.format, "sarif") == 0)
            print_sarif(&a, &r);
        else if (strcmp(a.format, "json") == 0)
            print_json(&a, &r);
        else
            print_text(&a, &r);
        status = r.n_findings ? 1 : 0;
    }
    el_audit_result_clear(&r);
    el_spec_free(spec);
    free(a.ignore);
    return status;
}

/* common.c — what the subcommands share: reading a spec from the command
 * line, printing findings compiler-style, and reporting a failure as text on
 * stderr or as one JSON object on stdout. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The length of the UTF-8 sequence at s[0..n) and its code point, or 0
 * when the bytes are not UTF-8 (overlong forms and surrogates included). */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp)
{
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
               : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
    if (!len || len > n)
        return 0;
    *cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3f);
    }
    static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (*cp < least[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp < 0xe000))
        return 0;
    return len;
}

/* What a terminal would act on rather than show: C0 and C1 controls (ESC,
 * CR, NEL...), DEL, the line and paragraph separators. */
static bool steers_terminal(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
}

void cli_text(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned cp = 0;
        size_t len = utf8_seq(u + i, n - i, &cp);
        if (!len)
            fprintf(f, "\\x%02x", u[i++]);
        else if (steers_terminal(cp) && cp != '\n' && cp != '\t')
            fprintf(f, cp < 0x80 ? "\\x%02x" : "\\u%04x", cp), i += len;
        else
            fwrite(u + i, 1, len, f), i += len;
    }
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0, n = strlen(s); i < n;) {
        unsigned cp = 0;
        size_t len = utf8_seq(u + i, n - i, &cp);
        if (!len) {
            fputs("\\ufffd", f); /* not UTF-8: JSON cannot carry the byte */
            i++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (steers_terminal(cp))
                fprintf(f, "\\u%04x", cp);
            else
                fwrite(u + i, 1, len, f);
        }
        i += len;
    }
    fputc('"', f);
}

/* cli_line() : one line of text through cli_text(), then a newline. */
static void cli_line(FILE *f, const char *prefix, const char *s)
{
    fputs(prefix, f);
    cli_text(f, s, strlen(s));
    fputc('\n', f);
}

const char *cli_path_or_env(const char *given, const char *var)
{
    if (given)
        return given;
    const char *env = getenv(var);
    return env && *env ? env : NULL;
}

const char *cli_bases_path(const char *given)
{
    return cli_path_or_env(given, "ENVLOCK_BASES");
}

int cli_report_failure(el_ctx *ctx, const cli_opts *o)
{
    el_code code = el_ctx_code(ctx);
    if (o->json) {
        char *body = el_ctx_error_json(ctx, false);
        printf("%s\n", body);
        el_free(body);
    } else {
        fprintf(stderr, "envlock: %s: ", el_code_name(code));
        const char *msg = el_ctx_text(ctx);
        cli_line(stderr, "", msg ? msg : "");
        if (code != EL_USAGE && code != EL_INTERNAL)
            fprintf(stderr, "  what to do: %s%s\n", el_ctx_user_action(ctx),
                    el_ctx_retryable(ctx) ? " (retryable)" : "");
    }
    return el_ctx_exit_status(ctx);
}

int cli_usage_error(el_ctx *ctx, const cli_opts *o, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    el_usage_error(ctx, msg);
    int st = cli_report_failure(ctx, o);
    if (!o->json)
        fputs("run `envlock --help` for the commands\n", stderr);
    return st;
}

/* The global options, accepted before or after any command (main.c). */
static const char global_options[] = "--json --quiet --offline --cache-dir --mirror --cert --help";

/* Appends to names[] (room for `max`) each `--option` (or `-o`) that
 * `text` names, as pointers into `buf`, a copy of text. */
static size_t option_names(const char *text, char *buf, const char **names, size_t n, size_t max)
{
    strcpy(buf, text);
    for (char *p = buf; (p = strchr(p, '-')) && n < max;) {
        bool start = p == buf || strchr(" [|\n", p[-1]);
        char *e = p + 1 + (p[1] == '-');
        while (*e && (islower((unsigned char)*e) || isdigit((unsigned char)*e) || *e == '-'))
            e++;
        bool ok = start && e > p + 1 + (p[1] == '-');
        char c = *e;
        *e = '\0';
        if (ok)
            names[n++] = p;
        p = c ? e + 1 : e;
    }
    return n;
}

int cli_unknown_option(el_ctx *ctx, const cli_opts *o, const char *arg, const char *usage,
                       const char *more)
{
    const char *texts[] = { global_options, usage, more };
    size_t len = 0, n = 0;
    for (size_t i = 0; i < 3; i++)
        len += texts[i] ? strlen(texts[i]) + 1 : 0;
    char *buf = malloc(len), *at = buf;
    const char **names = calloc(len, sizeof *names);
    for (size_t i = 0; i < 3; i++) {
        if (!texts[i])
            continue;
        n = option_names(texts[i], at, names, n, len);
        at += strlen(texts[i]) + 1;
    }
    char *word = strdup(arg);
    word[strcspn(word, "=")] = '\0';
    const char *near = el_closest_name(word, names, n);
    char hint[128] = "";
    if (near)
        snprintf(hint, sizeof hint, "; did you mean `%s`?", near);
    int st = usage ? cli_usage_error(ctx, o, "unknown option `%s`%s\n%s", arg, hint, usage)
                   : cli_usage_error(ctx, o, "unknown option `%s`%s", arg, hint);
    free(word);
    free(names);
    free(buf);
    return st;
}

int cli_spec_option(el_ctx *ctx, const cli_opts *o, int argc, char **argv, int *i,
                    el_spec_options *so)
{
    const char *a = argv[*i];
    if (strcmp(a, "--format") == 0 || strcmp(a, "--template") == 0) {
        if (*i + 1 >= argc) {
            cli_usage_error(ctx, o, "%s needs a value", a);
            return -1;
        }
        const char *v = argv[++*i];
        if (strcmp(a, "--template") == 0) {
            so->template_name = v;
        } else if (strcmp(v, "auto") == 0) {
            so->format = EL_SPEC_FORMAT_AUTO;
        } else if (strcmp(v, "environment") == 0) {
            so->format = EL_SPEC_FORMAT_ENVIRONMENT;
        } else if (strcmp(v, "datagen") == 0) {
            so->format = EL_SPEC_FORMAT_DATAGEN;
        } else {
            cli_usage_error(ctx, o, "--format is environment, datagen or auto, not `%s`", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* cli_load_spec() with the catalog `bases` when the caller holds one
 * (borrowed), else the one --bases names. */
static el_spec *load_spec(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                          const el_bases *bases, const char **path_out, int *status)
{
    el_spec_options so = { .format = EL_SPEC_FORMAT_AUTO };
    const char *path = NULL, *bases_path = NULL;
    for (int i = 0; i < argc; i++) {
        int r = cli_spec_option(ctx, o, argc, argv, &i, &so);
        if (r < 0) {
            *status = 2;
            return NULL;
        }
        if (r > 0)
            continue;
        if (strncmp(argv[i], "--bases=", 8) == 0) {
            bases_path = argv[i] + 8;
            continue;
        }
        if (strcmp(argv[i], "--bases") == 0) {
            if (i + 1 >= argc) {
                *status = cli_usage_error(ctx, o, "--bases needs a value");
                return NULL;
            }
            bases_path = argv[++i];
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            *status = cli_unknown_option(ctx, o, argv[i], NULL, "--bases --template --format");
            return NULL;
        }
        if (path) {
            *status = cli_usage_error(ctx, o, "one spec file at a time (got `%s` and `%s`)", path,
                                      argv[i]);
            return NULL;
        }
        path = argv[i];
    }
    if (!path && !so.template_name) {
        *status = cli_usage_error(ctx, o, "which spec? give a FILE (or - for stdin)");
        return NULL;
    }
    /* The approved bases are the catalog's: the one named, else
     * $ENVLOCK_BASES, else the installed one (NULL path). */
    el_bases *own = bases ? NULL : el_bases_load(ctx, cli_bases_path(bases_path));
    if (!bases && !(bases = own)) {
        *status = cli_report_failure(ctx, o);
        return NULL;
    }
    so.bases = el_bases_spec_view(bases, &so.n_bases);
    so.resolve_checks = o->resolve_checks;
    el_spec *spec;
    if (!path && so.template_name) {
        path = "(template)";
        spec = el_spec_load_text(ctx, "", 0, path, &so);
    } else if (strcmp(path, "-") == 0) {
        spec = el_spec_load_file(ctx, "/dev/stdin", &so);
    } else {
        spec = el_spec_load_file(ctx, path, &so);
    }
    el_bases_free(own); /* the spec keeps findings, not the view */
    *path_out = path;
    if (!spec)
        *status = cli_report_failure(ctx, o);
    return spec;
}

el_spec *cli_load_spec(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                       const char **path_out, int *status)
{
    return load_spec(ctx, o, argc, argv, NULL, path_out, status);
}

el_spec *cli_load_spec_in(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                          const el_bases *bases, const char **path_out, int *status)
{
    return load_spec(ctx, o, argc, argv, bases, path_out, status);
}

/* The byte offset of code point `col` (1-based) in s[0..n), n if the line
 * is shorter. */
static size_t cp_offset(const char *s, size_t n, unsigned col)
{
    size_t off = 0;
    for (unsigned k = 1; k < col && off < n; k++) {
        off++;
        while (off < n && ((unsigned char)s[off] & 0xC0) == 0x80)
            off++;
    }
    return off;
}

static size_t cp_start(const char *s, size_t n, size_t off)
{
    while (off > 0 && off < n && ((unsigned char)s[off] & 0xC0) == 0x80)
        off--;
    return off;
}

/* Blanks as wide as s[0..n) is on a terminal once cli_text() has escaped
 * it, tabs kept, so that a caret after them sits under column n. */
static void pad_like(FILE *f, const char *s, size_t n)
{
    char *shown = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&shown, &len);
    if (!m)
        return;
    cli_text(m, s, n);
    fclose(m);
    for (size_t k = 0; k < len; k++)
        if (((unsigned char)shown[k] & 0xC0) != 0x80)
            fputc(shown[k] == '\t' ? '\t' : ' ', f);
    free(shown);
}

enum { SOURCE_WINDOW = 120 };

/* The finding's source line, cut to a window around its column on a long
 * line, with a caret under the column; nothing for a finding about a
 * credential, or one without a position. */
static void show_source(const el_spec *spec, const el_finding *f)
{
    size_t n = 0;
    const char *line = f->secret || !f->column ? NULL : el_spec_source_line(spec, f->line, &n);
    if (!line)
        return;
    size_t off = cp_offset(line, n, f->column), start = 0, end = n;
    if (n > SOURCE_WINDOW) {
        start = cp_start(line, n, off > SOURCE_WINDOW / 2 ? off - SOURCE_WINDOW / 2 : 0);
        end = cp_start(line, n, start + SOURCE_WINDOW < n ? start + SOURCE_WINDOW : n);
    }
    const char *more = start > 0 ? "..." : "";
    fprintf(stderr, "%5u | %s", f->line, more);
    cli_text(stderr, line + start, end - start);
    fprintf(stderr, "%s\n      | %s", end < n ? "..." : "", start > 0 ? "   " : "");
    pad_like(stderr, line + start, off - start);
    fputs("^\n", stderr);
}

int cli_report_findings(el_ctx *ctx, const cli_opts *o, const el_spec *spec, const char *path)
{
    el_code code = el_spec_validate(ctx, spec);
    if (code == EL_OK)
        return 0;
    if (o->json)
        return cli_report_failure(ctx, o);
    size_t n = el_spec_finding_count(spec);
    for (size_t i = 0; i < n; i++) {
        const el_finding *f = el_spec_finding(spec, i);
        /* the message may quote the spec's own text, control bytes and all */
        cli_text(stderr, path, strlen(path));
        if (f->line)
            fprintf(stderr, ":%u:%u", f->line, f->column);
        fputs(": ", stderr);
        cli_text(stderr, f->field, strlen(f->field));
        fputs(": ", stderr);
        cli_text(stderr, f->message, strlen(f->message));
        fprintf(stderr, " [%s]\n", el_code_name(f->code));
        show_source(spec, f);
    }
    /* Each finding was printed once above; the summary counts them. */
    fprintf(stderr, "envlock: %s: %zu finding%s in ", el_code_name(code), n, n == 1 ? "" : "s");
    cli_line(stderr, "", path);
    fprintf(stderr, "  what to do: %s\n", el_ctx_user_action(ctx));
    return el_ctx_exit_status(ctx);
}

el_spec *cli_load_valid_spec_in(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                                const el_bases *bases, const char **path_out, int *status)
{
    el_spec *spec = load_spec(ctx, o, argc, argv, bases, path_out, status);
    if (spec && (*status = cli_report_findings(ctx, o, spec, *path_out)) != 0) {
        el_spec_free(spec);
        return NULL;
    }
    return spec;
}

el_spec *cli_load_valid_spec(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                             const char **path_out, int *status)
{
    return cli_load_valid_spec_in(ctx, o, argc, argv, NULL, path_out, status);
}

int cli_spec_digest_run(el_ctx *ctx, const cli_opts *o, int argc, char **argv,
                        const char *policy,
                        void (*print)(const cli_opts *o, const char *path, const el_spec *spec,
                                      const char *digest))
{
    const char *path = NULL;
    int status = 0;
    el_spec *spec = cli_load_valid_spec(ctx, o, argc, argv, &path, &status);
    if (!spec)
        return status;
    char digest[EL_DIGEST_SIZE];
    if ((policy && el_policy_check_spec(ctx, spec, policy) != EL_OK) ||
        el_spec_digest(ctx, spec, digest) != EL_OK)
        status = cli_report_failure(ctx, o);
    else
        print(o, path, spec, digest);
    el_spec_free(spec);
    return status;
}


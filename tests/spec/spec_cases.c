/* spec_cases.c — the data-driven spec suite. For every cases/NAME.yaml
 * (.yml, .json) it loads the file through the public API and compares
 *   - the findings, one per line as `line:col field CODE message`, or the
 *     single line `valid`, with NAME.expected;
 *   - if NAME.normalized exists, the pretty normalized document with it;
 *   - if NAME.digest exists, the spec digest with it;
 *   (for a spec with findings, both hold the message that refuses them).
 * Some inputs are generated here instead of stored (over 1 MiB, NUL bytes,
 * alias bombs, deep nesting, huge scalars); their expectations are inline.
 * With SPEC_CASES_UPDATE=1 it rewrites the .expected files from the actual
 * output — for drafting only; every expectation is reviewed by hand. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envlock.h"
#include "util.h"
#include "test_bases.h"

static int failures, total;

/* The findings, then `=> CODE message` as el_spec_validate() reports the
 * whole (invalid outranks unsupported and denied). */
static char *render(el_spec *spec, bool verdict)
{
    strbuf sb = STRBUF_INIT;
    size_t n = el_spec_finding_count(spec);
    if (n == 0)
        sb_adds(&sb, "valid\n");
    for (size_t i = 0; i < n; i++) {
        const el_finding *f = el_spec_finding(spec, i);
        sb_addf(&sb, "%u:%u %s %s %s\n", f->line, f->column, f->field, el_code_name(f->code),
                f->message);
    }
    if (n && verdict) {
        el_ctx *ctx = el_ctx_new();
        el_code code = el_spec_validate(ctx, spec);
        sb_addf(&sb, "=> %s %s\n", el_code_name(code), el_ctx_message(ctx));
        el_ctx_free(ctx);
    }
    return sb_detach(&sb, NULL);
}

static void report(const char *name, const char *what, const char *want, const char *got)
{
    failures++;
    fprintf(stderr, "FAIL %s (%s)\n--- expected\n%s--- actual\n%s---\n", name, what, want, got);
}

static void check_text(const char *name, const char *text, size_t len, const char *want)
{
    total++;
    el_ctx *ctx = el_ctx_new();
    el_spec *spec = el_spec_load_text(ctx, text, len, name, test_spec_opts());
    char *got = render(spec, false);
    if (strcmp(got, want) != 0)
        report(name, "generated", want, got);
    free(got);
    el_spec_free(spec);
    el_ctx_free(ctx);
}

static void run_file(const char *dir, const char *file)
{
    char *path = xasprintf("%s/%s", dir, file);
    const char *dot = strrchr(file, '.');
    char *stem = xasprintf("%s/%.*s", dir, (int)(dot - file), file);
    char *exp_path = xasprintf("%s.expected", stem);
    char *norm_path = xasprintf("%s.normalized", stem);
    total++;
    el_ctx *ctx = el_ctx_new();
    el_spec *spec = el_spec_load_file(ctx, path, test_spec_opts());
    if (!spec) {
        report(file, "load", "a spec", el_ctx_message(ctx));
        goto out;
    }
    char *got = render(spec, true);
    size_t len;
    char *want = read_file(exp_path, 1 << 20, &len);
    if (getenv("SPEC_CASES_UPDATE")) {
        FILE *f = fopen(exp_path, "w");
        if (f) {
            fputs(got, f);
            fclose(f);
        }
    } else if (!want) {
        report(file, "no .expected file", "", got);
    } else if (strcmp(want, got) != 0) {
        report(file, "findings", want, got);
    }
    free(want);
    free(got);
    char *norm_want = read_file(norm_path, 1 << 20, &len);
    if (norm_want) {
        char *norm = el_spec_normalized_json(ctx, spec, true);
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, norm ? norm : el_ctx_message(ctx));
        sb_addc(&sb, '\n');
        if (getenv("SPEC_CASES_UPDATE")) {
            FILE *f = fopen(norm_path, "w");
            if (f) {
                fputs(sb.buf, f);
                fclose(f);
            }
        } else if (strcmp(norm_want, sb.buf) != 0) {
            report(file, "normalized", norm_want, sb.buf);
        }
        sb_release(&sb);
        el_free(norm);
        free(norm_want);
    }
    /* NAME.digest: the spec digest */
    char *dig_path = xasprintf("%s.digest", stem);
    char *dig_want = read_file(dig_path, 4096, &len);
    if (dig_want) {
        /* NAME.digest holds the digest, or the message that refuses one */
        char digest[EL_DIGEST_SIZE];
        char *line = el_spec_digest(ctx, spec, digest) == EL_OK
                         ? xasprintf("%s\n", digest)
                         : xasprintf("%s\n", el_ctx_message(ctx));
        if (strcmp(line, dig_want) != 0)
            report(file, "digest", dig_want, line);
        free(line);
        free(dig_want);
    }
    free(dig_path);
    /* el_spec_validate agrees with the findings */
    el_code code = el_spec_validate(ctx, spec);
    if ((code == EL_OK) != (el_spec_finding_count(spec) == 0))
        report(file, "validate", "agreement", el_ctx_message(ctx));
    el_spec_free(spec);
out:
    el_ctx_free(ctx);
    free(path);
    free(stem);
    free(exp_path);
    free(norm_path);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char head[] = "apiVersion: environments.datalayer.io/v1alpha1\n"
                           "kind: Environment\n"
                           "metadata:\n"
                           "  name: gen\n"
                           "spec:\n"
                           "  language: {version: \"3.13\"}\n"
                           "  base: {ref: datalayer/python-cpu, channel: \"2026.09\"}\n";

static void generated(void)
{
    /* over 1 MiB: refused before parsing */
    {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, head);
        sb_adds(&sb, "  env:\n    PAD: \"");
        while (sb.len < 1100000)
            sb_adds(&sb, "0123456789abcdef");
        sb_adds(&sb, "\"\n");
        char *want = xasprintf("0:0 (document) DL_ENV_SPEC_INVALID is %zu bytes; a spec is at "
                               "most 1048576 bytes\n",
                               sb.len);
        check_text("gen_too_big", sb.buf, sb.len, want);
        free(want);
        sb_release(&sb);
    }
    /* a huge but allowed scalar (1000000 bytes) in a valid spec */
    {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, head);
        sb_adds(&sb, "  env:\n    PAD: \"");
        for (int k = 0; k < 1000000 / 16; k++)
            sb_adds(&sb, "0123456789abcdef");
        sb_adds(&sb, "\"\n");
        check_text("gen_huge_scalar", sb.buf, sb.len, "valid\n");
        sb_release(&sb);
    }
    /* a NUL byte in the middle of line 3 */
    {
        static const char text[] = "apiVersion: x\nkind: Environment\nmeta\0data: {}\n";
        check_text("gen_nul", text, sizeof text - 1,
                   "3:5 (document) DL_ENV_SPEC_INVALID holds a NUL byte, which YAML text cannot\n");
    }
    /* billion laughs: 9 levels of 10 aliases */
    {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int lvl = 1; lvl < 9; lvl++) {
            sb_addf(&sb, "a%d: &a%d [", lvl, lvl);
            for (int k = 0; k < 10; k++)
                sb_addf(&sb, "%s*a%d", k ? ", " : "", lvl - 1);
            sb_adds(&sb, "]\n");
        }
        /* the first `*a4` on line 6 takes the expansion past 200000 nodes */
        check_text("gen_alias_bomb", sb.buf, sb.len,
                   "6:10 (document) DL_ENV_SPEC_INVALID expands to more than 200000 values "
                   "through its aliases; a spec is far smaller, so this looks like an alias "
                   "bomb\n");
        sb_release(&sb);
    }
    /* nesting 100 flow lists deep */
    {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, "x: ");
        for (int k = 0; k < 100; k++)
            sb_addc(&sb, '[');
        for (int k = 0; k < 100; k++)
            sb_addc(&sb, ']');
        sb_addc(&sb, '\n');
        check_text("gen_deep", sb.buf, sb.len,
                   "1:67 (document) DL_ENV_SPEC_INVALID nests deeper than 64 levels\n");
        sb_release(&sb);
    }
    /* 60000 copies of one env key: every copy after the first is reported,
     * in time linear-logarithmic in the copies (once quadratic) */
    {
        strbuf sb = STRBUF_INIT;
        sb_adds(&sb, head);
        sb_adds(&sb, "  env:\n");
        for (int k = 0; k < 60000; k++)
            sb_adds(&sb, "    K: \"1\"\n");
        total++;
        el_ctx *ctx = el_ctx_new();
        el_spec *spec = el_spec_load_text(ctx, sb.buf, sb.len, "gen_many_duplicates",
                                          test_spec_opts());
        size_t n = el_spec_finding_count(spec);
        const el_finding *last = n ? el_spec_finding(spec, n - 1) : NULL;
        if (n != 59999 || strcmp(last->field, "spec.env.K") != 0 || last->line != 60008 ||
            strcmp(last->message, "is listed twice; the first is at line 9") != 0) {
            char *got = xasprintf("%zu findings, the last: %u %s %s\n", n, last ? last->line : 0,
                                  last ? last->field : "", last ? last->message : "");
            report("gen_many_duplicates", "generated",
                   "59999 findings, the last: 60008 spec.env.K is listed twice; the first is at "
                   "line 9\n",
                   got);
            free(got);
        }
        el_spec_free(spec);
        el_ctx_free(ctx);
        sb_release(&sb);
    }
    /* many documents */
    {
        static const char text[] = "a: 1\n---\nb: 2\n";
        check_text("gen_two_docs", text, sizeof text - 1,
                   "2:1 (document) DL_ENV_SPEC_INVALID holds more than one YAML document; the "
                   "second starts at line 2\n");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASES_DIR\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 2;
    }
    ptrvec names = PTRVEC_INIT;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *dot = strrchr(e->d_name, '.');
        if (dot && (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0 ||
                    strcmp(dot, ".json") == 0))
            ptrvec_push(&names, xstrdup(e->d_name));
    }
    closedir(d);
    qsort(names.items, names.len, sizeof *names.items, by_name);
    for (size_t k = 0; k < names.len; k++) {
        run_file(argv[1], names.items[k]);
        free(names.items[k]);
    }
    ptrvec_release(&names);
    generated();
    printf("spec cases: %d run, %d failed\n", total, failures);
    return failures ? 1 : 0;
}

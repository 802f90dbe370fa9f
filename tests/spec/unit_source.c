/* unit_source.c — el_spec_source_line() (the line a finding points into,
 * as the CLI shows it) and the `secret` mark that keeps a credential's line
 * from being shown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "envlock/error.h"
#include "envlock/spec.h"

static el_spec *load(const char *text)
{
    el_ctx *ctx = el_ctx_new();
    el_spec *s = el_spec_load_text(ctx, text, strlen(text), "t.yaml", NULL);
    el_ctx_free(ctx);
    assert_non_null(s);
    return s;
}

static void expect_line(const el_spec *s, unsigned line, const char *want)
{
    size_t n = 99;
    const char *got = el_spec_source_line(s, line, &n);
    if (!want) {
        assert_null(got);
        assert_int_equal(n, 0);
        return;
    }
    assert_non_null(got);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(got, want, n);
}

static void test_lines(void **state)
{
    (void)state;
    /* CRLF line ends, an empty line, a last line without a line break */
    el_spec *s = load("kind: Environment\r\n\r\nmetadata: {name: x}\r\nspec: 1");
    expect_line(s, 0, NULL);
    expect_line(s, 1, "kind: Environment");
    expect_line(s, 2, "");
    expect_line(s, 3, "metadata: {name: x}");
    expect_line(s, 4, "spec: 1");
    expect_line(s, 5, NULL);
    expect_line(s, 4000000000u, NULL);
    el_spec_free(s);
    /* a final line break ends the last line; it does not start another */
    s = load("a: 1\n");
    expect_line(s, 1, "a: 1");
    expect_line(s, 2, NULL);
    el_spec_free(s);
}

/* The finding at `line`, which the test expects to exist. */
static const el_finding *finding_on(const el_spec *s, unsigned line)
{
    for (size_t i = 0; i < el_spec_finding_count(s); i++)
        if (el_spec_finding(s, i)->line == line)
            return el_spec_finding(s, i);
    fail_msg("no finding on line %u", line);
    return NULL;
}

static void test_secret(void **state)
{
    (void)state;
    el_spec *s = load("apiVersion: environments.datalayer.io/v1alpha1\n"
                      "kind: Environment\n"
                      "metadata:\n"
                      "  name: Bad_Name\n"
                      "spec:\n"
                      "  packages:\n"
                      "    python:\n"
                      "      indexes: [\"https://ci:hunter2@pkgs.example.com/simple\"]\n"
                      "  env:\n"
                      "    DB_PASSWORD: plain\n"
                      "    NOTE: \"see https://bot:s3cret@git.example.com/x\\x01\"\n"
                      "    ok: 1\n");
    assert_false(finding_on(s, 4)->secret); /* the name's finding */
    assert_true(finding_on(s, 8)->secret);  /* a credential in an index URL */
    assert_true(finding_on(s, 10)->secret); /* a credential-named variable */
    /* a control character, on a line with a password in a URL */
    assert_true(finding_on(s, 11)->secret);
    el_spec_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_secret),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

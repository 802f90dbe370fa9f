/* fuzz_condaspec.c — libFuzzer target for conda's grammars: the input's
 * first line is parsed as a match spec and as a version spec, the next
 * lines (up to three) as versions. Checks that nothing crashes, that a
 * refusal always carries a column inside the text and a message, that
 * compare() is reflexive and antisymmetric, that a normalized version parses
 * back to an equal one, and that matching a parsed spec against the parsed
 * versions (and against text that is no version) is total. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "condaspec.h"
#include "condaver.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void check_error(const conda_error *e, size_t len)
{
    CHECK(e->message != NULL);
    CHECK(e->column >= 1 && e->column <= len + 1);
}

static conda_version *version(const char *s, size_t len)
{
    conda_error e = {0, NULL};
    conda_version *v = conda_version_parse(s, len, &e);
    if (!v) {
        check_error(&e, len);
        return NULL;
    }
    CHECK(conda_version_cmp(v, v) == 0);
    const char *norm = conda_version_norm(v);
    conda_version *back = conda_version_parse(norm, strlen(norm), NULL);
    CHECK(back && conda_version_cmp(back, v) == 0);
    CHECK(strcmp(conda_version_norm(back), norm) == 0);
    conda_version_free(back);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *line[4] = {text, NULL, NULL, NULL};
    size_t n = 1;
    for (char *p = text; n < 4 && (p = memchr(p, '\n', (size_t)(text + size - p))); n++) {
        *p++ = '\0';
        line[n] = p;
    }
    size_t len0 = n > 1 ? strlen(line[0]) : size;
    conda_error e = {0, NULL};
    conda_matchspec *ms = conda_matchspec_parse(line[0], len0, &e);
    if (!ms)
        check_error(&e, len0);
    conda_vspec *vs = conda_vspec_parse(line[0], len0, &e);
    if (!vs)
        check_error(&e, len0);
    conda_version *v[3] = {NULL, NULL, NULL};
    for (size_t i = 1; i < n; i++) {
        size_t len = i + 1 < n ? strlen(line[i]) : (size_t)(text + size - line[i]);
        v[i - 1] = version(line[i], len);
        if (vs)
            (void)conda_vspec_match(vs, v[i - 1], line[i]);
        if (ms)
            (void)conda_matchspec_match(ms, line[i], line[i], line[i], i);
    }
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            if (v[i] && v[j])
                CHECK(conda_version_cmp(v[i], v[j]) == -conda_version_cmp(v[j], v[i]));
    for (size_t i = 0; i < 3; i++)
        conda_version_free(v[i]);
    conda_vspec_free(vs);
    conda_matchspec_free(ms);
    free(text);
    return 0;
}

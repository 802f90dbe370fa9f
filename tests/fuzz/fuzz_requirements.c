/* fuzz_requirements.c — libFuzzer target for the requirements-file reader
 * (spec_requirements.c): any text is read without a crash, every
 * requirement it keeps parses as PEP 508, and every position it reports
 * lies inside the text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "spec_requirements.h"

static void in_text(const char *buf, unsigned line, unsigned column)
{
    unsigned lines = 1;
    for (const char *p = buf; *p; p++)
        lines += *p == '\n' || (*p == '\r' && p[1] != '\n');
    if (line < 1 || line > lines || column < 1)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    arena *mem = arena_new();
    spec_reqfile *f = spec_reqfile_parse(mem, buf);
    for (size_t i = 0; i < f->n_reqs; i++) {
        if (pypi_requirement_check(f->reqs[i].text, NULL) != 0)
            abort();
        in_text(buf, f->reqs[i].line, f->reqs[i].column);
    }
    for (size_t i = 0; i < f->n_problems; i++)
        in_text(buf, f->problems[i].line, f->problems[i].column);
    arena_free(mem);
    free(buf);
    return 0;
}

/* fuzz_uvlock.c — libFuzzer target for the uv.lock selection
 * (spec_uvlock.c): any text as a uv.lock, beside a pyproject.toml asking
 * for the names it may hold, is read without a crash; every package
 * selected has a name and a version, every workspace member a name, every
 * edge ends at selected packages, and every problem a message and, when
 * it names a line in the uv.lock, a line inside the text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "spec_uvlock.h"

static const char PYPROJECT[] =
    "[project]\nname = \"demo\"\ndependencies = [\"requests>=2\", \"a\", \"b[x]\"]\n"
    "[dependency-groups]\ndev = [\"c\"]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    unsigned lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += buf[i] == '\n';
    pypi_env env = {.python_version = "3.13", .python_full_version = "3.13.7",
                    .os_name = "posix", .sys_platform = "linux", .platform_system = "Linux",
                    .platform_machine = "x86_64", .platform_python_implementation = "CPython",
                    .implementation_name = "cpython", .implementation_version = "3.13.7",
                    .extra = ""};
    const char *indexes[] = {"https://pypi.org/simple"};
    arena *mem = arena_new();
    spec_uvlock *u = spec_uvlock_select(mem, PYPROJECT, buf, &env, indexes, 1);
    for (size_t i = 0; i < u->n_pkgs; i++)
        if (!u->pkgs[i].name || !u->pkgs[i].version)
            abort();
    for (size_t i = 0; i < u->n_members; i++)
        if (!u->members[i])
            abort();
    for (size_t i = 0; i < u->n_edges; i++)
        if (u->edges[i].to < 0 || (size_t)u->edges[i].to >= u->n_pkgs ||
            u->edges[i].from >= (long)u->n_pkgs || !u->edges[i].spec)
            abort();
    for (size_t i = 0; i < u->n_problems; i++) {
        const spec_uvproblem *p = &u->problems[i];
        if (!p->message || !p->field)
            abort();
        if (strstr(p->field, "lockContent") && p->line > lines)
            abort();
    }
    arena_free(mem);
    free(buf);
    return 0;
}

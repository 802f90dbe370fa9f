/* uvlock_dump.c — prints what spec_uvlock_select() selects from a
 * pyproject.toml and uv.lock for one environment, for uvlock_select.py to
 * compare with an independent reading:
 *   uvlock_dump PYPROJECT UVLOCK PYTHON_FULL_VERSION SYS_PLATFORM [INDEX...]
 *   pkg NAME VERSION N_HASHES
 *   member NAME                (a workspace member reached: left out)
 *   edge FROM TO SPEC          (FROM `-` for the project)
 *   problem CODE FIELD LINE COLUMN PACKAGE MESSAGE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envlock/error.h"
#include "pep508.h"
#include "spec_uvlock.h"

static char *slurp(const char *path)
{
    size_t len = 0;
    char *t = read_file(path, 16u << 20, &len);
    if (!t) {
        fprintf(stderr, "uvlock_dump: cannot read %s\n", path);
        exit(2);
    }
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: uvlock_dump PYPROJECT UVLOCK PYTHON SYS_PLATFORM [INDEX...]\n");
        return 2;
    }
    char *py = slurp(argv[1]), *lock = slurp(argv[2]);
    char minor[16];
    const char *dot = strchr(argv[3], '.');
    const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    snprintf(minor, sizeof minor, "%.*s", dot2 ? (int)(dot2 - argv[3]) : (int)strlen(argv[3]),
             argv[3]);
    bool win = strcmp(argv[4], "win32") == 0;
    pypi_env env = {
        .python_version = minor, .python_full_version = argv[3], .os_name = win ? "nt" : "posix",
        .sys_platform = argv[4], .platform_system = win ? "Windows" : "Linux",
        .platform_machine = win ? "AMD64" : "x86_64", .platform_python_implementation = "CPython",
        .implementation_name = "cpython", .implementation_version = argv[3], .extra = "",
    };
    arena *mem = arena_new();
    spec_uvlock *u = spec_uvlock_select(mem, py, lock, &env, (const char *const *)argv + 5,
                                        (size_t)(argc - 5));
    for (size_t i = 0; i < u->n_pkgs; i++)
        printf("pkg %s %s %zu\n", u->pkgs[i].name, u->pkgs[i].version, u->pkgs[i].n_hashes);
    for (size_t i = 0; i < u->n_members; i++)
        printf("member %s\n", u->members[i]);
    for (size_t i = 0; i < u->n_edges; i++) {
        const spec_uvedge *e = &u->edges[i];
        printf("edge %s %s %s\n", e->from < 0 ? "-" : u->pkgs[e->from].name,
               u->pkgs[e->to].name, e->spec);
    }
    for (size_t i = 0; i < u->n_problems; i++) {
        const spec_uvproblem *p = &u->problems[i];
        printf("problem %s %s %u %u %s %s\n", el_code_name(p->code), p->field, p->line,
               p->column, p->package ? p->package : "-", p->message);
    }
    arena_free(mem);
    free(py);
    free(lock);
    return 0;
}

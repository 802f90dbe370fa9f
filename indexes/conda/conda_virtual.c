/* conda_virtual.c — the virtual packages a conda solve for a Linux target
 * takes as installed (`__unix`, `__linux`, `__glibc`, `__archspec`,
 * `__cuda`), derived from the target as the catalog describes it, as conda
 * would expose them running in that image. No I/O: the host envlock runs
 * on says nothing about the target. Checked against conda's own plugins'
 * outputs (tests/conda/conda_virtual_cases.txt). */
#include <ctype.h>
#include <string.h>

#include "conda_index.h"
#include "condaver.h"

/* The kernel release as conda reads it: the longest leading
 * `\d+\.\d+(\.\d+)?(\.\d+)?`, or NULL when the release does not start so
 * (conda then exports `__linux` at version 0). */
static const char *kernel_version(arena *mem, const char *release)
{
    if (!release)
        return NULL;
    const char *p = release, *end = NULL;
    for (int part = 0; part < 4; part++) {
        const char *q = p;
        if (part > 0) {
            if (*q != '.')
                break;
            q++;
        }
        if (!isdigit((unsigned char)*q))
            break;
        while (isdigit((unsigned char)*q))
            q++;
        p = q;
        if (part >= 1)
            end = p;
    }
    return end ? arena_strndup(mem, release, (size_t)(end - release)) : NULL;
}

/* The architecture name conda gives `__archspec` for a subdir that is not
 * the machine it runs on (the generic machine name: the target's CPU model
 * is unknown), or NULL. */
static const char *archspec_name(const char *subdir)
{
    static const char *const map[][2] = {
        {"linux-64", "x86_64"},           {"linux-aarch64", "aarch64"},
        {"linux-ppc64le", "ppc64le"},     {"linux-s390x", "s390x"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], subdir) == 0)
            return map[i][1];
    return NULL;
}

static bool valid_version(const char *v)
{
    conda_version *cv = conda_version_parse(v, strlen(v), NULL);
    conda_version_free(cv);
    return cv != NULL;
}

static void put(conda_virtual *out, size_t *n, const char *name, const char *version,
                const char *build)
{
    out[*n].name = name;
    out[*n].version = version && *version ? version : "0";
    out[*n].build = build && *build ? build : "0";
    (*n)++;
}

/* Splits "glibc 2.36" into family and version (both from `mem`). */
static bool libc_split(arena *mem, const char *libc, const char **family, const char **version)
{
    const char *sp = strchr(libc, ' ');
    if (!sp || sp == libc || !sp[1] || strchr(sp + 1, ' '))
        return false;
    for (const char *c = libc; c < sp; c++)
        if (!islower((unsigned char)*c))
            return false;
    *family = arena_sprintf(mem, "__%.*s", (int)(sp - libc), libc);
    *version = arena_strdup(mem, sp + 1);
    return valid_version(*version);
}

int conda_virtual_packages(const conda_virtual_target *t, arena *mem,
                           conda_virtual out[CONDA_VIRTUAL_MAX], const char **why)
{
    const char *subdir = conda_target_subdir(t->deb_arch);
    if (!subdir) {
        *why = "the target's architecture has no conda subdir";
        return -1;
    }
    const char *family = NULL, *libc_version = NULL;
    if (t->libc && !libc_split(mem, t->libc, &family, &libc_version)) {
        *why = "the target's libc is not `<family> <version>` with a conda version";
        return -1;
    }
    if (t->cuda_version && *t->cuda_version && !valid_version(t->cuda_version)) {
        *why = "the target's CUDA version is not a conda version";
        return -1;
    }
    size_t n = 0;
    put(out, &n, "__archspec", "1", archspec_name(subdir));
    if (t->cuda_version && *t->cuda_version)
        put(out, &n, "__cuda", arena_strdup(mem, t->cuda_version), NULL);
    /* conda names the libc package after its family and defaults to glibc
     * when it cannot tell (a version of 0 then) */
    put(out, &n, family ? family : "__glibc", libc_version, NULL);
    put(out, &n, "__linux", kernel_version(mem, t->linux_version), NULL);
    put(out, &n, "__unix", NULL, NULL);
    return (int)n;
}

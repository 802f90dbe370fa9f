/* base_pyproject.c — a `pyproject` dependency file in the resolve request.
 * uv.lock is the answer (REFERENCE §3, never re-solved): what it selects for
 * the target (spec_uvlock.h) is kept on the request, and the lock's Python
 * packages are read from it (verb_resolve_uvlock.c) without asking any
 * index, while npm and apt resolve beside it into the one lock. Protected
 * pins are checked, not forced: each must be locked by uv.lock inside its
 * range (REFERENCE §3). */
#include <stdlib.h>
#include <string.h>

#include "pep508.h"
#include "spec_requirements.h"
#include "spec_uvlock.h"
#include "base_request.h"

#define F_LOCK "spec.build.dependencyFile.lockContent"

/* The target's marker environment, as the PyPI reader builds it from the
 * base (indexes/pypi: Linux, CPython, the base's Python and machine). */
static pypi_env target_env(arena *mem, const target_base *tb)
{
    const char *full = tb->python_version ? tb->python_version : "";
    const char *dot = strchr(full, '.');
    const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    const char *arch = tb->arch ? tb->arch : "amd64";
    return (pypi_env){
        .python_version = dot2 ? arena_strndup(mem, full, (size_t)(dot2 - full)) : full,
        .python_full_version = full,
        .os_name = "posix",
        .sys_platform = "linux",
        .platform_system = "Linux",
        .platform_machine = strcmp(arch, "amd64") == 0   ? "x86_64"
                            : strcmp(arch, "arm64") == 0 ? "aarch64"
                                                         : arch,
        .platform_python_implementation = "CPython",
        .implementation_name = "cpython",
        .implementation_version = full,
        .extra = "",
    };
}

/* Where content line/column of `field` is in the spec text. */
static void locate(const target_request_options *o, const char *field, unsigned line,
                   unsigned column, unsigned *fl, unsigned *fc)
{
    spec_req one = {.line = line, .column = column};
    spec_reqfile_locate(o ? o->spec_text : NULL, o ? o->spec_len : 0, o ? o->spec_opts : NULL,
                        field, &one, 1);
    *fl = one.file_line;
    *fc = one.file_column;
}

static el_code fail_problem(el_ctx *ctx, const spec_uvproblem *p,
                            const target_request_options *o)
{
    const char *at = p->at ? p->at : p->field;
    const char *what = strstr(at, "lockContent") ? "uv.lock" : "pyproject.toml";
    el_code rc = p->line ? el_fail(ctx, p->code, "line %u of the %s: %s", p->line, what,
                                   p->message)
                         : el_fail(ctx, p->code, "the %s %s", what, p->message);
    el_detail_str(ctx, "field", p->field);
    if (p->package)
        el_detail_str(ctx, "package", p->package);
    unsigned fl = 0, fc = 0;
    if (p->line)
        locate(o, at, p->line, p->column, &fl, &fc);
    if (fl) {
        el_detail_int(ctx, "line", fl);
        el_detail_int(ctx, "column", fc);
    }
    if (p->line) {
        el_detail_int(ctx, "contentLine", p->line);
        el_detail_int(ctx, "contentColumn", p->column);
    }
    return rc;
}

static const spec_uvpkg *selected(const spec_uvlock *u, const char *canonical)
{
    for (size_t i = 0; i < u->n_pkgs; i++)
        if (strcmp(u->pkgs[i].name, canonical) == 0)
            return &u->pkgs[i];
    return NULL;
}

/* Every protected pin locked by uv.lock inside its range (the reference's
 * two messages: outside the range, not locked at all). */
static el_code check_pins(el_ctx *ctx, const target_base *tb, const spec_uvlock *u)
{
    for (size_t i = 0; tb->protected_pins && tb->protected_pins[i]; i++) {
        pypi_requirement *pin = pypi_requirement_parse(tb->protected_pins[i], NULL);
        if (!pin)
            continue;
        const spec_uvpkg *p = selected(u, pin->canonical_name);
        pypi_version *v = p ? pypi_version_parse(p->version, NULL) : NULL;
        el_code rc = EL_OK;
        if (!p)
            rc = el_fail(ctx, EL_PROTECTED_PACKAGE,
                         "`%s` is pinned by Datalayer to `%s`, and this uv.lock does not lock "
                         "it at all: add `%s` to pyproject.toml and run `uv lock`",
                         pin->name, pin->specifier, tb->protected_pins[i]);
        else if (!v || !pypi_specset_contains(pin->specset, v, PYPI_PRE_YES))
            rc = el_fail(ctx, EL_PROTECTED_PACKAGE,
                         "`%s` is pinned by Datalayer to `%s`, and this uv.lock locks it to "
                         "`%s`, which is outside that range: ask for a version inside it and "
                         "run `uv lock`",
                         pin->name, pin->specifier, p->version);
        if (rc != EL_OK) {
            el_detail_str(ctx, "field", F_LOCK);
            el_detail_str(ctx, "package", pin->canonical_name);
            el_detail_str(ctx, "requested", p ? p->version : "any");
            el_detail_str(ctx, "supported", pin->specifier);
        }
        pypi_version_free(v);
        pypi_requirement_free(pin);
        if (rc != EL_OK)
            return rc;
    }
    return EL_OK;
}

el_code target_pyproject(el_ctx *ctx, target_request *r, const el_spec *spec,
                         const target_base *tb, const target_request_options *o,
                         el_spec_entry **all, size_t *n_all)
{
    size_t n_indexes = 0;
    const char *const *indexes = el_spec_python_indexes(spec, &n_indexes);
    pypi_env env = target_env(r->mem, tb);
    spec_uvlock *u = spec_uvlock_select(r->mem,
                                        el_spec_text(spec, "spec.build.dependencyFile.content"),
                                        el_spec_text(spec, F_LOCK), &env, indexes, n_indexes);
    if (u->n_problems)
        return fail_problem(ctx, &u->problems[0], o);
    el_code rc = check_pins(ctx, tb, u);
    if (rc != EL_OK)
        return rc;
    r->uvlock = u;
    el_spec_entry *out = xcalloc(*n_all + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < *n_all; i++)
        if ((*all)[i].list != EL_SPEC_PYTHON_DEPENDENCIES &&
            (*all)[i].list != EL_SPEC_PYTHON_CONSTRAINTS)
            out[k++] = (*all)[i];
    free(*all);
    *all = out;
    *n_all = k;
    return EL_OK;
}

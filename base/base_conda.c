/* base_conda.c — an environment.yml (`sourceFormat: conda`) as resolve
 * roots (REFERENCE §3, conda): `python=<X.Y>` from spec.language.version
 * first, the file's match specs after it (a `python` spec of the file is
 * dropped, with a note, since the environment's Python is the spec's), and
 * the file's channels (none: conda-forge, which the reader defaults). The
 * `pip:` list is the environment's pip layer: its requirements stand where a
 * requirements file's do (target_pip_layer()), so they are PyPI roots of the
 * same solve, merged with the protected pins as the reference merges them.
 * Fetches nothing. */
#include <stdlib.h>
#include <string.h>

#include "condaspec.h"
#include "spec_envyml.h"
#include "spec_requirements.h"
#include "base_request.h"

static bool names_python(const char *text)
{
    conda_matchspec *ms = conda_matchspec_parse(text, strlen(text), NULL);
    bool py = ms && ms->name && strcmp(ms->name, "python") == 0;
    conda_matchspec_free(ms);
    return py;
}

static void add_note(target_request *r, const char *note)
{
    const char **notes = arena_alloc(r->mem, (r->n_notes + 2) * sizeof *notes);
    for (size_t i = 0; i < r->n_notes; i++)
        notes[i] = r->notes[i];
    notes[r->n_notes++] = note;
    r->notes = notes;
}

/* The file's match specs with their positions in the spec text. */
static spec_req *located(target_request *r, const spec_envyml *e, const target_request_options *o)
{
    spec_req *q = arena_alloc(r->mem, (e->n_deps + 1) * sizeof *q);
    memset(q, 0, (e->n_deps + 1) * sizeof *q);
    for (size_t i = 0; i < e->n_deps; i++) {
        q[i].text = e->deps[i].text;
        q[i].index = e->deps[i].index;
        q[i].line = e->deps[i].line;
        q[i].column = e->deps[i].column;
    }
    spec_reqfile_locate(o ? o->spec_text : NULL, o ? o->spec_len : 0, o ? o->spec_opts : NULL,
                        NULL, q, e->n_deps);
    return q;
}

el_code target_conda(el_ctx *ctx, target_request *r, const el_spec *spec,
                     const target_request_options *o)
{
    const char *content = el_spec_text(spec, "spec.build.dependencyFile.content");
    const spec_envyml *e = spec_envyml_read(r->mem, content ? content : "");
    const spec_req *q = located(r, e, o);
    const char *python = el_spec_python_version(spec);
    for (size_t k = 0; k < r->n_parts; k++) {
        resolve_request *rq = &r->parts[k].rq;
        resolve_root *roots = arena_alloc(r->mem, (rq->n_roots + e->n_deps + 2) * sizeof *roots);
        size_t n = 0;
        roots[n++] = (resolve_root){ "conda", arena_sprintf(r->mem, "python=%s", python),
                                     ROOT_REQUIREMENT, false, "spec.language.version", 0, 0,
                                     false };
        for (size_t i = 0; i < e->n_deps; i++) {
            const char *field = arena_sprintf(r->mem, "spec.build.dependencyFile.content."
                                                      "dependencies[%u]", q[i].index);
            if (names_python(q[i].text)) {
                if (k == 0)
                    add_note(r, arena_sprintf(r->mem,
                                              "`%s` (%s) is dropped: the environment's Python "
                                              "is `python=%s`, from spec.language.version",
                                              q[i].text, field, python));
                continue;
            }
            roots[n++] = (resolve_root){ "conda", q[i].text, ROOT_REQUIREMENT, false, field,
                                         q[i].file_line, q[i].file_column, false };
        }
        for (size_t i = 0; i < rq->n_roots; i++)
            roots[n++] = rq->roots[i];
        rq->roots = roots;
        rq->n_roots = n;
        rq->conda_channels = e->channels;
        rq->n_conda_channels = e->n_channels;
    }
    r->rq = r->parts[0].rq;
    return EL_OK;
}

el_spec_entry *target_pip_layer(target_request *r, const el_spec *spec,
                                const target_request_options *o, el_spec_entry *all,
                                size_t *n_all)
{
    const char *content = el_spec_text(spec, "spec.build.dependencyFile.content");
    const spec_envyml *e = spec_envyml_read(r->mem, content ? content : "");
    spec_reqfile *f = spec_envyml_pip_layer(r->mem, e);
    if (!f)
        return all;
    /* positions: entry j's place in the environment.yml, then in the spec */
    for (size_t k = 0; k < f->n_reqs; k++) {
        spec_req *q = &f->reqs[k];
        unsigned col = q->column;
        q->line = e->pip[q->index].line;
        q->column = e->pip[q->index].column + (col ? col - 1 : 0);
    }
    return target_reqfile_entries(r, f, o, all, n_all);
}

/* spec_envyml.c — spec_envyml_read(): an environment.yml's match specs,
 * channels and `pip:` entry, from the same positioned YAML tree the spec
 * rules read (spec_yaml.c), so both see one document. */
#include <string.h>

#include "spec_envyml.h"
#include "spec_internal.h"
#include "spec_requirements.h"

/* The `pip:` entries: each string with its j and position; others are
 * left out (the spec rules name them). */
static void read_pip(arena *mem, spec_envyml *e, const spec_node *list)
{
    if (list->kind != SN_SEQ)
        return;
    e->n_pip = list->n;
    e->pip = arena_alloc(mem, (list->n + 1) * sizeof *e->pip);
    memset(e->pip, 0, (list->n + 1) * sizeof *e->pip);
    for (size_t j = 0; j < list->n; j++) {
        const spec_node *q = list->items[j];
        if (q->kind == SN_STR)
            e->pip[j] = (spec_envyml_dep){ arena_strdup(mem, q->text), (unsigned)j, q->line,
                                           q->column };
    }
}

spec_envyml *spec_envyml_read(arena *mem, const char *content)
{
    spec_envyml *e = arena_alloc(mem, sizeof *e);
    memset(e, 0, sizeof *e);
    e->pip_index = -1;
    spec_findings fs;
    spec_findings_init(&fs, mem);
    spec_node *root = content ? spec_yaml_parse(mem, content, strlen(content), &fs) : NULL;
    spec_findings_release(&fs);
    if (!root || root->kind != SN_MAP)
        return e;
    const spec_node *deps = spec_node_get(root, "dependencies");
    if (deps && deps->kind == SN_SEQ) {
        e->deps = arena_alloc(mem, (deps->n + 1) * sizeof *e->deps);
        for (size_t i = 0; i < deps->n; i++) {
            const spec_node *d = deps->items[i];
            if (d->kind == SN_STR) {
                e->deps[e->n_deps++] = (spec_envyml_dep){ arena_strdup(mem, d->text),
                                                          (unsigned)i, d->line, d->column };
            } else if (d->kind == SN_MAP && d->n == 1 && d->keys[0]->text &&
                       strcmp(d->keys[0]->text, "pip") == 0 && e->pip_index < 0) {
                e->pip_index = (long)i;
                read_pip(mem, e, d->items[0]);
            }
        }
    }
    const spec_node *ch = spec_node_get(root, "channels");
    if (ch && ch->kind == SN_SEQ) {
        e->channels = arena_alloc(mem, (ch->n + 1) * sizeof *e->channels);
        for (size_t i = 0; i < ch->n; i++)
            if (ch->items[i]->kind == SN_STR)
                e->channels[e->n_channels++] = arena_strdup(mem, ch->items[i]->text);
    }
    return e;
}

struct spec_reqfile *spec_envyml_pip_layer(arena *mem, const spec_envyml *e)
{
    if (e->pip_index < 0)
        return NULL;
    /* line j + 1 is entry j; an entry that is no string, or spans lines
     * (a folded scalar), is one blank or one joined line, so lines and
     * entries stay aligned */
    strbuf sb = STRBUF_INIT;
    for (size_t j = 0; j < e->n_pip; j++) {
        for (const char *c = e->pip[j].text ? e->pip[j].text : ""; *c; c++)
            sb_addc(&sb, *c == '\n' || *c == '\r' ? ' ' : *c);
        sb_addc(&sb, '\n');
    }
    spec_reqfile *f = spec_reqfile_parse(mem, sb.buf);
    sb_release(&sb);
    for (size_t k = 0; k < f->n_reqs; k++) {
        spec_req *q = &f->reqs[k];
        q->index = q->line - 1;
        q->field = arena_sprintf(mem, "spec.build.dependencyFile.content.dependencies[%ld].pip[%u]",
                                 e->pip_index, q->index);
    }
    for (size_t k = 0; k < f->n_problems; k++)
        f->problems[k].index = (long)f->problems[k].line - 1;
    return f;
}

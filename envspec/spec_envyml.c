/* spec_envyml.c — spec_envyml_read(): an environment.yml's match specs,
 * channels and `pip:` entry, from the same positioned YAML tree the spec
 * rules read (spec_yaml.c), so both see one document. */
#include <string.h>

#include "spec_envyml.h"
#include "spec_internal.h"

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
                e->n_pip = d->items[0]->kind == SN_SEQ ? d->items[0]->n : 0;
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

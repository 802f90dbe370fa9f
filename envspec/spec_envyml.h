/* spec_envyml.h — an environment.yml (`build.dependencyFile` with
 * `sourceFormat: conda`) read for the resolve request: its conda match
 * specs, its channels and where its `pip:` list is. The spec rules
 * (spec_rules_build.c) report what is malformed; this reader assumes a
 * file that passed them and only lists what is there. Shared by the
 * envspec and base stages; not part of the public API. */
#ifndef EL_SPEC_ENVYML_H
#define EL_SPEC_ENVYML_H

#include <stddef.h>

#include "util.h"

typedef struct spec_envyml_dep {
    const char *text;    /* the match spec as written */
    unsigned index;      /* i of `content.dependencies[i]` */
    unsigned line, column; /* in the environment.yml text (1-based) */
} spec_envyml_dep;

typedef struct spec_envyml {
    spec_envyml_dep *deps;     /* the string entries of `dependencies`, in order */
    size_t n_deps;
    const char **channels;     /* `channels` as written, in order */
    size_t n_channels;
    long pip_index;            /* i of the `pip:` entry, or -1 */
    spec_envyml_dep *pip;      /* the `pip:` list's string entries, index = j of
                                  `dependencies[i].pip[j]` */
    size_t n_pip;              /* its entries (strings or not) */
} spec_envyml;

/* spec_envyml_read() :
 *  The parts of `content` (the environment.yml text), every string in
 *  `mem`. A text that is not a mapping, or has no `dependencies` list,
 *  reads as empty. Never NULL. */
spec_envyml *spec_envyml_read(arena *mem, const char *content);

struct spec_reqfile;

/* spec_envyml_pip_layer() :
 *  The `pip:` list read as a requirements file (spec_requirements.h), one
 *  line per string entry, so its option lines (`--index-url`, `--pre`,
 *  `--only-binary`, ...) and its requirements follow the rules of a
 *  `requirements` source. In the result a line number is `j + 1` for entry
 *  `pip[j]` (a column is within the entry); each requirement's `index` is
 *  its j and its `field` `spec.build.dependencyFile.content.dependencies[i]
 *  .pip[j]`; a problem's `index` is its entry's j too. Callers map lines to
 *  the environment.yml with `e->pip[j]`. NULL when `e` has no `pip:` list. */
struct spec_reqfile *spec_envyml_pip_layer(arena *mem, const spec_envyml *e);

#endif

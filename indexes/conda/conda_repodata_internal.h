/* conda_repodata_internal.h — between conda_repodata.c (what a record
 * means) and conda_repodata_json.c (the document read as a stream). */
#ifndef EL_CONDA_REPODATA_INTERNAL_H
#define EL_CONDA_REPODATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "conda_repodata.h"

/* JSON nesting: repodata is four levels deep; 32 leaves room and refuses a
 * hostile `[[[[...` early. */
#define CRJ_MAX_DEPTH 32

typedef struct crj_handler {
    /* One member of `packages` (is_conda false) or `packages.conda`, in
     * document order: its name and its value as a json-c tree (borrowed for
     * the call). false stops the parse (the document is then refused). */
    bool (*record)(void *user, const char *fn, json_object *rec, bool is_conda);
    void *user;
} crj_handler;

/* crj_parse() :
 *  Streams body[0, len) (strict RFC 8259 JSON, yajl's checks: UTF-8,
 *  no comments, nothing but blanks after the value): the top level must be
 *  an object whose `packages` and `packages.conda`, when present and not
 *  null, are objects; `info` is kept whole, other members skipped. A
 *  top-level member given twice is refused (json-c and Python would keep
 *  the last silently). @return 0 with *info (json_object_put(); NULL when
 *  absent), or -1 with *what (static English). */
int crj_parse(const char *body, size_t len, const crj_handler *h, json_object **info,
              const char **what);

/* One name of a load (conda_repodata.names_, in byte order of names). */
struct conda_name_slot {
    const char *name;
    size_t n;                        /* its records */
    const unsigned char *at;         /* parsed form: where the first is */
    const conda_record *const *recs; /* its records, once decoded (a parse:
                                        at once), by file name */
};

/* conda_repodata_index() : r's by-name index from its records (after a
 *  parse). */
void conda_repodata_index(conda_repodata *r);

#endif

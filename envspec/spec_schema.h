/* spec_schema.h — the shape of the v1alpha1 schema tables: what
 * spec_model.c checks a document against and spec_reference.c writes the
 * field reference from, so the reference cannot drift from the checks.
 * Private to the spec module. */
#ifndef EL_SPEC_SCHEMA_H
#define EL_SPEC_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

typedef enum ftype {
    T_STR,   /* str (optionally a literal set or a pattern) */
    T_INT,   /* int with an optional lower bound */
    T_FLOAT, /* float with an optional exclusive lower bound */
    T_LIST,  /* list of `item` */
    T_SMAP,  /* map str -> str */
    T_OBJ,   /* a model with `fields` */
    T_ACCEL  /* Literal["none"] | Accelerator */
} ftype;

typedef struct field field;

typedef struct tdesc {
    ftype t;
    bool nullable;
    const char *const *choices;        /* T_STR literal set, NULL-terminated */
    bool (*valid)(const char *s);      /* T_STR pattern */
    const char *invalid_msg;           /* "`%s` is not ..." for a failed pattern */
    bool has_min;
    int64_t min;                       /* T_INT: >= min; T_FLOAT: > min */
    const struct tdesc *item;          /* T_LIST */
    const field *fields;               /* T_OBJ, T_ACCEL object form */
} tdesc;

typedef enum defkind {
    D_REQUIRED,
    D_NULL,
    D_STR,
    D_INT,
    D_LIST,      /* def_list (NULL: empty list) */
    D_MAP,       /* {} */
    D_OBJ,       /* the object built from an empty mapping */
    D_ACCEL,     /* "none" */
    D_ABSENT     /* extension: left out of the document unless given */
} defkind;

struct field {
    const char *name; /* camelCase; NULL ends a table */
    const tdesc *type;
    defkind def;
    const char *def_str;
    int64_t def_int;
    const char *const *def_list;
    const char *rule; /* the rules beyond the type, in words, for the field
                       * reference (spec_reference.c); NULL: none */
};

/* The document's top-level fields (apiVersion, kind, metadata, spec). */
const field *spec_schema_document(void);

#endif

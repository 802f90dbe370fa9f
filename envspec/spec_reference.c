/* spec_reference.c — the Environment field reference (`envlock help spec`,
 * docs/spec-fields.md): every field of the schema tables spec_model.c
 * checks documents against, with its type, default and rules, as one
 * Markdown table. Written from those tables, so it cannot drift from
 * what `validate` does. */
#include <stdlib.h>
#include <string.h>

#include "envlock/spec.h"
#include "spec_internal.h"
#include "spec_schema.h"

static void choices(strbuf *sb, const char *const *c)
{
    sb_adds(sb, "one of ");
    for (size_t k = 0; c[k]; k++)
        sb_addf(sb, "%s`%s`", k ? ", " : "", c[k]);
}

/* A failed pattern's message says what the value should have been:
 * "is not a sha256 digest: 64 lowercase hex digits". */
static void pattern(strbuf *sb, const char *invalid_msg)
{
    const char *what = invalid_msg;
    if (strncmp(what, "is not ", 7) == 0)
        what += 7;
    sb_addf(sb, "string: %s", what);
}

static void type_text(strbuf *sb, const tdesc *t)
{
    switch (t->t) {
    case T_STR:
        if (t->choices)
            choices(sb, t->choices);
        else if (t->invalid_msg)
            pattern(sb, t->invalid_msg);
        else
            sb_adds(sb, "string");
        break;
    case T_INT:
        sb_adds(sb, "integer");
        if (t->has_min)
            sb_addf(sb, " >= %lld", (long long)t->min);
        break;
    case T_FLOAT:
        sb_adds(sb, "number");
        if (t->has_min)
            sb_addf(sb, " > %lld", (long long)t->min);
        break;
    case T_LIST:
        sb_adds(sb, "list of ");
        if (t->item->t == T_OBJ)
            sb_adds(sb, "mappings (fields below)");
        else
            type_text(sb, t->item);
        break;
    case T_SMAP: sb_adds(sb, "mapping of string to string"); break;
    case T_OBJ: sb_adds(sb, "mapping (fields below)"); break;
    case T_ACCEL: sb_adds(sb, "`\"none\"`, or a mapping (fields below)"); break;
    }
    if (t->nullable)
        sb_adds(sb, ", or null");
}

static void default_text(strbuf *sb, const field *f)
{
    switch (f->def) {
    case D_REQUIRED: sb_adds(sb, "required"); break;
    case D_NULL: sb_adds(sb, "`null`"); break;
    case D_STR: sb_addf(sb, "`\"%s\"`", f->def_str); break;
    case D_INT: sb_addf(sb, "`%lld`", (long long)f->def_int); break;
    case D_LIST:
        sb_adds(sb, "`[");
        for (size_t k = 0; f->def_list && f->def_list[k]; k++)
            sb_addf(sb, "%s\"%s\"", k ? ", " : "", f->def_list[k]);
        sb_adds(sb, "]`");
        break;
    case D_MAP: sb_adds(sb, "`{}`"); break;
    case D_OBJ: sb_adds(sb, "its fields' defaults"); break;
    case D_ACCEL: sb_adds(sb, "`\"none\"`"); break;
    case D_ABSENT: sb_adds(sb, "absent"); break;
    }
}

/* One row per field, then the rows of the fields inside it, depth first
 * in declared order (the order of the normalized document). */
static void rows(strbuf *sb, const field *fields, const char *prefix)
{
    for (const field *f = fields; f->name; f++) {
        char *path = *prefix ? xasprintf("%s.%s", prefix, f->name) : xstrdup(f->name);
        sb_addf(sb, "| `%s` | ", path);
        type_text(sb, f->type);
        sb_adds(sb, " | ");
        default_text(sb, f);
        sb_addf(sb, " | %s |\n", f->rule ? f->rule : "");
        const tdesc *t = f->type;
        if (t->t == T_LIST && t->item->t == T_OBJ) {
            char *items = xasprintf("%s[]", path);
            rows(sb, t->item->fields, items);
            free(items);
        } else if (t->fields) {
            rows(sb, t->fields, path);
        }
        free(path);
    }
}

char *el_spec_field_reference(void)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb,
            "# Environment spec fields\n\n"
            "Every field of the `environments.datalayer.io/v1alpha1` Environment document,\n"
            "with its type, its default and the rules `validate` applies beyond the type.\n"
            "`envlock help spec` prints this page from the validator's own tables, so it\n"
            "says what envlock checks. Keys are camelCase (snake_case is read too); a\n"
            "key not listed here is a finding. `name[]` is each item of the list `name`.\n"
            "docs/specs.md says how findings are reported and what the digest covers.\n\n"
            "| field | type | default | rules |\n"
            "|---|---|---|---|\n");
    rows(&sb, spec_schema_document(), "");
    return sb_detach(&sb, NULL);
}

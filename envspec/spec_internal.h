/* spec_internal.h — the spec module's internal interfaces, shared by its
 * files and by its tests; not part of the public API.
 *
 * Flow: spec_yaml_parse() turns YAML/JSON text into a tree of spec_node with
 * the line and column of every node (or findings for text that is not a
 * single well-formed document). A DataGen recipe is first rewritten into an
 * Environment-shaped tree by spec_datagen_import(). spec_model_build() walks
 * the tree against the v1alpha1 schema (types, unknown keys, required keys,
 * defaults) producing the normalized document as a json-c object — a partial
 * one if some fields fail their types; then spec_rules_check() applies the
 * rules beyond the types to whatever is right. Only a text with no document
 * at all stops before the model. spec_jcs_serialize()
 * writes RFC 8785 canonical JSON for the digest. */
#ifndef EL_SPEC_INTERNAL_H
#define EL_SPEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct json_object;

/* Limits on input, documented in docs/specs.md. */
#define SPEC_MAX_BYTES (1024 * 1024)      /* a spec document is at most 1 MiB */
#define SPEC_MAX_DEPTH 64                 /* nesting deeper than this is refused */
#define SPEC_MAX_NODES 200000             /* after alias expansion; stops "billion laughs" */

/* Limits of the Environment specification (REFERENCE §1 constants), in the
 * rules' messages and the field reference alike; SPEC_STR() spells one. */
#define SPEC_MAX_FILES 32             /* spec.files entries */
#define SPEC_MAX_FILE_BYTES 1048576   /* one baked file */
#define SPEC_MAX_FILES_BYTES 8388608  /* all baked files */
#define SPEC_MAX_COMMANDS 32          /* spec.commands.postInstall entries */
#define SPEC_MAX_TEXT_BYTES 1048576   /* a dependency file's content or lockContent */
#define SPEC_STR_(x) #x
#define SPEC_STR(x) SPEC_STR_(x)

/* ---- the positioned tree ---- */

typedef enum spec_node_kind {
    SN_NULL,  /* ~, null, Null, NULL, or empty plain scalar */
    SN_BOOL,  /* YAML 1.1 booleans as PyYAML's safe_load reads them */
    SN_INT,   /* YAML 1.1 ints (decimal, 0x, 0o/0 octal, 0b, with _ separators) */
    SN_FLOAT, /* YAML 1.1 floats (incl. .inf, .nan) */
    SN_STR,   /* everything else, and every quoted or block scalar */
    SN_SEQ,
    SN_MAP
} spec_node_kind;

typedef struct spec_node spec_node;
struct spec_node {
    spec_node_kind kind;
    unsigned line, column;  /* 1-based, where the node starts in the input */
    const char *text;       /* scalar: the value text (decoded); NUL-terminated */
    size_t text_len;        /* may contain NULs from escapes: use text_len */
    bool quoted;            /* scalar was quoted or a block scalar */
    unsigned body_line;     /* a literal block scalar (`|`): where its first
                             * content line starts (line, and column of its
                             * indentation), so a position inside the text
                             * maps to the file; 0 for any other node */
    unsigned body_column;
    bool date;              /* SN_STR that PyYAML's safe_load would read as a
                             * timestamp (2026-09-12): not a string to pydantic */
    bool b;                 /* SN_BOOL */
    int64_t i;              /* SN_INT */
    double f;               /* SN_FLOAT */
    size_t n;               /* SEQ: items; MAP: pairs */
    spec_node **items;      /* SEQ items, or MAP values */
    spec_node **keys;       /* MAP keys (scalar nodes), parallel to items */
};

/* ---- findings ---- */

typedef struct spec_findings {
    arena *mem;        /* owns every string of every finding */
    el_finding *items;
    size_t len, alloc;
} spec_findings;

void spec_findings_init(spec_findings *fs, arena *mem);
void spec_findings_release(spec_findings *fs); /* frees items, not the arena */
/* Adds a finding; `field` and the formatted message are copied into the arena.
 * A NULL `at` node gives line/column 0. */
void spec_finding_add(spec_findings *fs, const spec_node *at, const char *field, el_code code,
                      const char *fmt, ...) EL_PRINTF(5, 6);
void spec_finding_add_pos(spec_findings *fs, unsigned line, unsigned column, const char *field,
                          el_code code, const char *fmt, ...) EL_PRINTF(6, 7);
/* Stable sort by (line, column), keeping rule order among equal positions;
 * position-less findings (line 0) go last in their original order. */
void spec_findings_sort(spec_findings *fs);
/* spec_text_is_secretish() : true if s holds what looks like a credential
 * (a user:password URL anywhere, a known token shape); a finding on such a
 * line is marked secret whatever its rule. */
bool spec_text_is_secretish(const char *s);

/* ---- stages ---- */

/* spec_yaml_parse() :
 *  Parses exactly one YAML (or JSON) document. Returns its root in `mem`, or
 *  NULL after adding findings (field "(document)") for: syntax errors with
 *  libyaml's position, non-UTF-8 text, more than SPEC_MAX_BYTES, several
 *  documents, an empty document, duplicate keys (field = the key's path),
 *  anchors/aliases expanding past SPEC_MAX_NODES, nesting past SPEC_MAX_DEPTH,
 *  non-scalar mapping keys. A non-mapping root is returned; the model refuses it. */
spec_node *spec_yaml_parse(arena *mem, const char *text, size_t len, spec_findings *fs);

/* A file that is one YAML document of its own (the bases catalog, a
 * policy) is read and refused through these three, so that each of its
 * failures reads "<kind> PATH..." with the same details. */

/* spec_document_read() :
 *  The file at `path` (at most `max` bytes, NUL-terminated, *len its
 *  length), or NULL after el_fail(EL_SPEC_INVALID, "<kind> PATH cannot be
 *  read: WHY") with the details reason "unreadable" and path. */
char *spec_document_read(el_ctx *ctx, const char *kind, const char *path, size_t max,
                         size_t *len);

/* spec_document_parse() :
 *  spec_yaml_parse() for such a file: its root in `mem`, or NULL after
 *  spec_document_fail(EL_SPEC_INVALID, ..., `reason`) at the first
 *  finding's position (field "(document)" and "holds no document" for an
 *  empty one). */
spec_node *spec_document_parse(el_ctx *ctx, arena *mem, const char *kind, const char *path,
                               const char *reason, const char *text, size_t len);

/* spec_document_fail() :
 *  The failure for a problem at line:column (0:0 when it has none) in such
 *  a document: el_fail(ctx, code, "<kind> PATH:LINE:COL: FIELD: MSG") with
 *  the details reason, path, field, line and column. Callers keep "first
 *  problem wins". */
void spec_document_fail(el_ctx *ctx, el_code code, const char *kind, const char *path,
                        unsigned line, unsigned column, const char *field, const char *reason,
                        const char *msg);

/* spec_yaml_resolve_plain() :
 *  How PyYAML's safe_load (YAML 1.1 resolver) reads the plain (unquoted,
 *  untagged) scalar s[0..n): sets out->kind and out->b/i/f/date. Integers
 *  beyond int64 come back as SN_FLOAT. Does not touch out->text. */
spec_node_kind spec_yaml_resolve_plain(const char *s, size_t n, spec_node *out);

/* spec_node_get() : the value for `key` in a MAP node, or NULL. */
spec_node *spec_node_get(const spec_node *map, const char *key);

/* spec_datagen_looks_like() : true if `root` is a DataGen recipe rather than an
 * Environment document (no apiVersion/kind/spec keys; DataGen keys present). */
bool spec_datagen_looks_like(const spec_node *root);

/* spec_datagen_import() :
 *  Rewrites a DataGen Sandbox Environment recipe (or NULL root with only a
 *  template) into an Environment-shaped tree allocated in `mem`, whose nodes
 *  keep the positions of the recipe nodes they came from. Recipe-specific
 *  problems (bad separators, URL schemes, resource values, unknown template)
 *  become findings with the recipe's own field names. `template_name` (may be
 *  NULL) overrides/provides the recipe's `template:`. `base` (may be NULL:
 *  a finding) is the approved base the recipe is placed on. Returns NULL only
 *  if nothing usable remains. */
spec_node *spec_datagen_import(arena *mem, const spec_node *root, const char *template_name,
                               const el_spec_base *base, spec_findings *fs);

/* spec_first_base() : the base a DataGen recipe goes on (the first of
 * opts' approved bases), or NULL when opts names none. */
const el_spec_base *spec_first_base(const el_spec_options *opts);

/* spec_model_build() :
 *  Checks `root` against the v1alpha1 schema and returns the normalized
 *  document (apiVersion, kind, metadata, spec with every default written
 *  out, camelCase keys) as a new json-c object the caller owns, or NULL if
 *  `root` is not a mapping (a finding says so). Also accepts snake_case
 *  spellings of keys. Built as far as possible: a field that fails its type
 *  check, or a required field that is missing, is absent from its object
 *  (every other field is always written, null included), and a list item
 *  that fails is a json null; findings say why. */
struct json_object *spec_model_build(const spec_node *root, spec_findings *fs);

/* spec_rules_check() :
 *  The rules beyond the types, in the reference's order, against the
 *  normalized document — possibly a partial one from spec_model_build(),
 *  in which case each rule skips what depends on a field that failed its
 *  type check; uses `root` only to find positions. `flags` is a set of
 *  SPEC_RULES_* bits. `bases` (n_bases of them) are the approved bases;
 *  NULL: none is known (a base ref gets a finding saying so). */
#define SPEC_RULES_DATAGEN 1u /* the spec came from a DataGen recipe: http:// indexes are allowed */
#define SPEC_RULES_RESOLVE 2u /* el_spec_options.resolve_checks: the channel and the protected pins */
void spec_rules_check(const struct json_object *doc, const spec_node *root, unsigned flags,
                      const el_spec_base *bases, size_t n_bases, spec_findings *fs);

/* spec_node_at_path() : the node for a dotted field path such as
 * "spec.packages.python.dependencies[2]" (camelCase or snake_case keys), or
 * the deepest existing ancestor; NULL only if root is NULL. */
const spec_node *spec_node_at_path(const spec_node *root, const char *path);

/* spec_jcs_serialize() :
 *  RFC 8785 canonical JSON of `value`: keys sorted by UTF-16 code units, no
 *  whitespace, minimal string escapes, ECMAScript number formatting. Returns a
 *  malloc'd string, or NULL with *err (malloc'd) for NaN/Infinity, integers
 *  beyond 2^53, or strings that are not valid UTF-8. */
char *spec_jcs_serialize(const struct json_object *value, char **err);

/* spec_datagen_field() : the recipe field an Environment field of an
 * imported recipe `root` came from ("spec.build.source" -> "baseImage"),
 * or NULL when the importer built no such node or no one recipe field
 * gives it (spec_datagen.c). Static storage. */
const char *spec_datagen_field(const spec_node *root, const char *field);

/* spec_datagen_template_names() : the DataGen built-in template names, in
 * the seed's order; static storage (spec_datagen.c). */
const char *const *spec_datagen_template_names(size_t *n);

/* spec_jcs_number() : ECMAScript Number.prototype.toString(10) of `d` into
 * out (at least 32 bytes). Returns false for NaN and infinities. */
bool spec_jcs_number(double d, char out[32]);

/* spec_document() : the normalized document of a spec without findings
 * (NULL otherwise); spec_arena() : the arena the spec's strings live in.
 * For spec_access.c. */
const struct json_object *spec_document(const el_spec *s);
arena *spec_arena(const el_spec *s);

#endif

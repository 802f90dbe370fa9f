/* envlock/spec.h — loading, validating and digesting an Environment spec
 * (apiVersion environments.datalayer.io/v1alpha1, or a DataGen Sandbox
 * Environment recipe normalized into the same model). Part of envlock.h. */
#ifndef ENVLOCK_SPEC_H
#define ENVLOCK_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "sha256:" + 64 lowercase hex + NUL */
#define EL_DIGEST_SIZE 72

typedef struct el_spec el_spec;

typedef enum el_spec_format {
    EL_SPEC_FORMAT_AUTO = 0,    /* Environment if it has apiVersion/kind/spec, else DataGen */
    EL_SPEC_FORMAT_ENVIRONMENT, /* the v1alpha1 Environment document */
    EL_SPEC_FORMAT_DATAGEN      /* a DataGen Sandbox Environment recipe */
} el_spec_format;

/* One channel of an approved base: its name ("2026.09") and the Python
 * requirement lines its contract protects there ("ipykernel==7.3.0"),
 * NULL-terminated (NULL: none). */
typedef struct el_spec_channel {
    const char *name;
    const char *const *protected_pins;
} el_spec_channel;

/* One approved base as the spec rules see it (rule 3, rule 5's Dockerfile
 * FROM, rule 14). The caller fills these from the bases catalog in use
 * (el_bases_spec_view() in envlock/bases.h); the spec module never reads a
 * catalog itself. */
typedef struct el_spec_base {
    const char *ref;          /* "datalayer/python-cpu": what spec.base.ref may say */
    const char *repository;   /* "environments/base/python-cpu": also approved in a FROM; or NULL */
    const char *python;       /* "3.13": what spec.language.version must say */
    bool cuda;                /* whether the base has CUDA (GPU size classes need it) */
    const char *cuda_version; /* "12.8"; NULL: no CUDA, or a CUDA base whose version is not
                               * known (an accelerator's `cuda` is then not compared) */
    const char *channel;      /* "2026.09": the base's newest channel in the catalog; a
                               * DataGen recipe is placed on the first base at this channel */
    const el_spec_channel *channels; /* every channel the catalog has for this base,
                                      * n_channels of them; 0: not known, and
                                      * spec.base.channel and the protected pins
                                      * are left to resolve */
    size_t n_channels;
} el_spec_base;

typedef struct el_spec_options {
    el_spec_format format;
    const char *template_name; /* DataGen built-in template to start from, or NULL */
    /* The approved bases, in the order messages list them (the catalog owns
     * them: el_bases_spec_view()). NULL (n_bases 0): none is known, and a
     * spec naming a base, or a DataGen recipe, gets a finding saying so. */
    const el_spec_base *bases;
    size_t n_bases;
    /* Also what resolve would refuse, as findings at their lines: a
     * spec.base.channel the catalog does not have for the base, and a
     * Python requirement that channel's protected pins exclude. The
     * reference's validation checks neither (a spec naming a channel that
     * is not published yet still has its digest), so `digest` and
     * `normalize` leave this false; `validate` and `resolve` set it. */
    bool resolve_checks;
} el_spec_options;

/* One problem with a spec. `field` is the camelCase dotted path with [i]
 * indexes ("spec.packages.python.dependencies[2]", "(document)" for the
 * whole document); line and column are 1-based positions of the offending
 * node in the input (0 when the problem has no position, e.g. a missing key
 * is reported at its parent mapping). */
typedef struct el_finding {
    const char *field;
    unsigned line;
    unsigned column;
    el_code code;
    const char *message;
    /* The finding is about credential text (a password in a URL, a token in
     * `env`): its source line must not be shown. */
    bool secret;
} el_finding;

/* el_spec_load_file() / el_spec_load_text() :
 *  Parse and check a spec. Returns a spec object that carries every finding
 *  (possibly none), or NULL if the file cannot be read (EL_SPEC_INVALID with
 *  detail.reason "unreadable" on ctx). `origin` names the input in messages.
 *  `opts` may be NULL (auto-detect, no template). Caller frees with
 *  el_spec_free(). */
EL_API el_spec *el_spec_load_file(el_ctx *ctx, const char *path, const el_spec_options *opts);
EL_API el_spec *el_spec_load_text(el_ctx *ctx, const char *text, size_t len,
                                  const char *origin, const el_spec_options *opts);
EL_API void el_spec_free(el_spec *spec);

/* el_spec_validate() :
 *  EL_OK if the spec has no findings. Otherwise records on ctx the overall
 *  code (DL_ENV_SPEC_INVALID if any finding has it, else the first finding's
 *  code), the message "<field>: <message>" of that finding, and
 *  detail.findings = every finding {field, line, column, message, code},
 *  ordered by position. Returns that code. */
EL_API el_code el_spec_validate(el_ctx *ctx, const el_spec *spec);

EL_API size_t el_spec_finding_count(const el_spec *spec);
/* Borrowed; valid until el_spec_free(). i < el_spec_finding_count(). */
EL_API const el_finding *el_spec_finding(const el_spec *spec, size_t i);

/* el_spec_source_line() :
 *  Line `line` (1-based) of the text the spec was loaded from, without its
 *  line break, and its length in *len; NULL past the end, for line 0, or
 *  for a spec made from a template alone. Borrowed until el_spec_free(). */
EL_API const char *el_spec_source_line(const el_spec *spec, unsigned line, size_t *len);

/* el_spec_only_uv_drift() :
 *  True if the spec has findings and every one says that its uv.lock no
 *  longer answers its pyproject.toml (DL_ENV_RESOLVE_CONFLICT at
 *  spec.build.dependencyFile.lockContent, what `uv lock --check` reports):
 *  a spec `check` answers as stale rather than refusing. */
EL_API bool el_spec_only_uv_drift(const el_spec *spec);

/* el_spec_field_reference() :
 *  The Environment field reference as Markdown (`envlock help spec`,
 *  docs/spec-fields.md): every field with its type, default and rules,
 *  written from the tables the validator checks with. Free with el_free(). */
EL_API char *el_spec_field_reference(void);

/* el_spec_name() : metadata.name, or "" if absent. Borrowed. */
EL_API const char *el_spec_name(const el_spec *spec);

/* el_spec_digest() :
 *  "sha256:" + hex(SHA-256(RFC 8785 JCS of the `spec` object with every
 *  default written out, camelCase keys)). metadata is not part of it.
 *  Refuses a spec with findings (as el_spec_validate). Writes `out`. */
EL_API el_code el_spec_digest(el_ctx *ctx, const el_spec *spec, char out[EL_DIGEST_SIZE]);

/* el_spec_canonical_json() :
 *  The JCS bytes that el_spec_digest() hashes. Caller frees with el_free().
 *  NULL with ctx set if the spec has findings. */
EL_API char *el_spec_canonical_json(el_ctx *ctx, const el_spec *spec);

/* el_spec_normalized_json() :
 *  The whole normalized document (apiVersion, kind, metadata, spec with
 *  defaults), as JSON; indented when `pretty`. Caller frees with el_free().
 *  NULL with ctx set if the spec has findings. */
EL_API char *el_spec_normalized_json(el_ctx *ctx, const el_spec *spec, bool pretty);

/* Accessors for a spec without findings (each returns NULL / *n = 0 for a
 * spec with findings, or where the spec has no such field). Arrays and
 * strings are borrowed until el_spec_free(). Defaults apply: a spec naming
 * no index gives ["https://pypi.org/simple"]. */
EL_API const char *const *el_spec_python_indexes(const el_spec *spec, size_t *n);
EL_API const char *const *el_spec_apt_sources(const el_spec *spec, size_t *n); /* spec.packages.system.sources */
EL_API const char *el_spec_npm_registry(const el_spec *spec); /* NULL without spec.packages.node */
EL_API const char *el_spec_python_version(const el_spec *spec); /* spec.language.version */
EL_API const char *el_spec_base_ref(const el_spec *spec);     /* spec.base.ref */
EL_API const char *el_spec_base_channel(const el_spec *spec); /* spec.base.channel */

/* Lists of entries a resolve starts from, with where each was written. */
typedef enum el_spec_list {
    EL_SPEC_PYTHON_DEPENDENCIES = 1u << 0, /* spec.packages.python.dependencies */
    EL_SPEC_PYTHON_CONSTRAINTS = 1u << 1,  /* spec.packages.python.constraints */
    EL_SPEC_NODE_DEPENDENCIES = 1u << 2,   /* spec.packages.node.dependencies */
    EL_SPEC_APT = 1u << 3,                 /* spec.packages.system.apt */
    EL_SPEC_VARIANTS = 1u << 4             /* compatibility.variants.required, then .optional */
} el_spec_list;

typedef struct el_spec_entry {
    el_spec_list list;  /* which list it is in */
    const char *text;   /* the entry as written (normalized document value) */
    const char *field;  /* "spec.packages.python.dependencies[3]" */
    unsigned line;      /* 1-based position in the text the spec came from; */
    unsigned column;    /* 0 until el_spec_entries_locate() found it */
} el_spec_entry;

/* el_spec_entries() :
 *  The entries of the lists selected by `lists` (EL_SPEC_* bits), list by
 *  list in the order of the bits above, each in document order. Returns a
 *  new array (caller frees with el_free(); its strings are borrowed until
 *  el_spec_free()) and its length in *n; NULL with *n = 0 for a spec with
 *  findings or when there is nothing. Positions start at 0: the spec object
 *  keeps the normalized document, not the text. */
EL_API el_spec_entry *el_spec_entries(const el_spec *spec, unsigned lists, size_t *n);

/* el_spec_entries_locate() :
 *  Fills line/column of each entry from `text`, the document the spec was
 *  loaded from (with the same `opts`), by reading it again. Entries it
 *  cannot place keep 0. */
EL_API void el_spec_entries_locate(el_spec_entry *entries, size_t n, const char *text,
                                   size_t len, const el_spec_options *opts);

/* el_spec_text() :
 *  The string at a dotted camelCase path of the normalized document
 *  ("spec.base.ref", "spec.build.source", "spec.packages.python.manager"),
 *  or NULL. Borrowed until el_spec_free(). */
EL_API const char *el_spec_text(const el_spec *spec, const char *path);

/* el_spec_locate() :
 *  The 1-based line and column, in the text the spec was loaded from, of
 *  the node at a dotted camelCase field path ("spec.env.HOME",
 *  "spec.commands.postInstall[2]"), or of its deepest ancestor the text
 *  wrote (a defaulted field points at its parent). false and 0, 0 when the
 *  text gave no position (a template alone, or no such ancestor). */
EL_API bool el_spec_locate(const el_spec *spec, const char *field, unsigned *line,
                           unsigned *column);

/* el_spec_recipe_field() :
 *  For a spec read from a DataGen recipe, the recipe's own field that the
 *  Environment `field` came from ("spec.build.source" -> "baseImage",
 *  "spec.resources.hints.cpu" -> "resources"), so a message names what
 *  the user wrote; NULL for an Environment, or a field no one recipe
 *  field gives (a default). Static storage. */
EL_API const char *el_spec_recipe_field(const el_spec *spec, const char *field);

/* el_spec_template_names() :
 *  The DataGen built-in templates, in the seed's order ("Data Science", ...).
 *  Static storage; *n receives the count. */
EL_API const char *const *el_spec_template_names(size_t *n);

#ifdef __cplusplus
}
#endif
#endif

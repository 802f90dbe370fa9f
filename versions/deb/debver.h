/* debver.h — the Debian version grammar (el_deb_grammar): versions as
 * Debian policy §5.6.12 defines them and dpkg enforces them, dpkg's ordering,
 * single relations such as ">= 1.0", and whole relationship fields
 * (Depends, Pre-Depends, Breaks, Conflicts, Provides, ...).
 *
 * Self-contained: no libsolv, no index reading. Internal to envlock (not part
 * of the public API); names carry the `deb_` prefix.
 *
 * What "valid" means. dpkg --compare-versions sorts its complaints into
 * errors (it refuses to compare: empty version, embedded blanks, epoch not a
 * number / negative / above INT_MAX, nothing after the colon, empty upstream
 * part, empty revision) and warnings (it compares anyway: upstream not
 * starting with a digit, a character outside [A-Za-z0-9.+~:-] in the upstream
 * part or outside [A-Za-z0-9.+~] in the revision). envlock calls a version
 * valid only when dpkg accepts it with neither an error nor a warning — that
 * is exactly the policy grammar. deb_version_parse() still reports which of
 * the two dpkg would do, and fills the parts in the warning case, so the
 * differential tests can compare such versions the way dpkg does.
 *
 * Deliberate deviation: dpkg reads the epoch with strtol(), so it also takes
 * leading whitespace other than blanks and a sign ("+1:2.0", "-0:2.0",
 * "\v1:2.0"). envlock requires the epoch to be ASCII digits only and reports
 * such input as DEB_REFUSED. Leading and trailing blanks (space, tab) around a
 * version are trimmed, as dpkg does. */
#ifndef EL_DEBVER_H
#define EL_DEBVER_H

#include <stdbool.h>
#include <stddef.h>

/* ---- versions ---- */

/* What dpkg would make of a version string. */
typedef enum deb_verdict {
    DEB_VALID = 0,   /* policy-conformant; dpkg accepts it silently */
    DEB_WARNED = 1,  /* dpkg warns but compares it; invalid for envlock */
    DEB_REFUSED = 2  /* dpkg refuses it (or envlock's stricter epoch rule) */
} deb_verdict;

/* A parsed version: views into the text it was parsed from (no allocation).
 * `upstream` is never NULL; `revision` is "" (length 0) when absent, which
 * compares equal to "0". */
typedef struct deb_version {
    unsigned long epoch;  /* 0 when absent; at most INT_MAX, as dpkg */
    bool has_epoch;
    const char *upstream;
    size_t upstream_len;
    const char *revision;
    size_t revision_len;
} deb_version;

/* deb_version_parse() :
 *  Parses `len` bytes of `text` (need not be NUL-terminated; a NUL byte inside
 *  is refused). Returns DEB_VALID, DEB_WARNED (and `out` filled as dpkg would
 *  parse it) or DEB_REFUSED (`out` unspecified). When `why` is not NULL and the
 *  result is not DEB_VALID, *why receives a static English reason worded like
 *  dpkg's ("version number does not start with digit"). */
deb_verdict deb_version_parse(const char *text, size_t len, deb_version *out, const char **why);

/* deb_version_valid() : deb_version_parse(s, strlen(s)) == DEB_VALID. */
bool deb_version_valid(const char *s);

/* deb_version_cmp() :
 *  dpkg's order: epoch numerically, then upstream, then revision, each part
 *  compared as alternating non-digit runs (character by character: `~` before
 *  the end of the part, the end before letters, letters before everything
 *  else, by ASCII within a class) and digit runs (numerically, leading zeros
 *  ignored). Returns -1, 0 or 1. Works on DEB_WARNED parses too. */
int deb_version_cmp(const deb_version *a, const deb_version *b);

/* deb_version_cmp_str() :
 *  Compares two version strings as dpkg --compare-versions. Returns 0 with
 *  *cmp in {-1, 0, 1}; -1 if `a` is not a valid version, -2 if `b` is not,
 *  with *err a malloc'd reason (caller frees) naming the offending side
 *  ("not a Debian version: ..."). `err` may be NULL. */
int deb_version_cmp_str(const char *a, const char *b, int *cmp, char **err);

/* ---- single relations ---- */

typedef enum deb_op {
    DEB_OP_ANY = 0, /* no version constraint */
    DEB_OP_LT,      /* << */
    DEB_OP_LE,      /* <= (also the deprecated <) */
    DEB_OP_EQ,      /* = */
    DEB_OP_GE,      /* >= (also the deprecated >) */
    DEB_OP_GT       /* >> */
} deb_op;

/* deb_op_name() : "<<", "<=", "=", ">=", ">>", or "" for DEB_OP_ANY. */
const char *deb_op_name(deb_op op);

/* deb_op_holds() : whether a comparison result `cmp` (candidate vs the
 *  relation's version) satisfies `op`. DEB_OP_ANY always holds. */
bool deb_op_holds(deb_op op, int cmp);

/* deb_filter() :
 *  keep[i] = versions[i] satisfies `range`: "OP VERSION" with OP one of
 *  << <= = >= >> (also < and >, dpkg's deprecated spellings of <= and >=),
 *  blanks optional around and between, optionally wrapped in parentheses; an
 *  empty or blank range means any version. Invalid versions never satisfy
 *  (not even the empty range). Returns 0, or -1 if the range is malformed,
 *  with *err a malloc'd reason (caller frees; `err` may be NULL). */
int deb_filter(const char *range, const char *const *versions, size_t n, bool *keep, char **err);

/* ---- relationship fields ---- */

/* Which control field a relationship list comes from; it decides what is
 * allowed: alternatives (`|`) only in Depends, Pre-Depends, Recommends,
 * Suggests, Enhances and Build-Depends(-Arch/-Indep); only `=` versions in
 * Provides; `:native` only in the Build-* fields. Architecture lists and build
 * profiles are accepted in every field (as Dpkg::Deps does). */
typedef enum deb_field {
    DEB_FIELD_DEPENDS,
    DEB_FIELD_PRE_DEPENDS,
    DEB_FIELD_RECOMMENDS,
    DEB_FIELD_SUGGESTS,
    DEB_FIELD_ENHANCES,
    DEB_FIELD_BREAKS,
    DEB_FIELD_CONFLICTS,
    DEB_FIELD_REPLACES,
    DEB_FIELD_PROVIDES,
    DEB_FIELD_BUILD_DEPENDS,
    DEB_FIELD_BUILD_CONFLICTS
} deb_field;

/* deb_field_name() : "Depends", "Pre-Depends", ... */
const char *deb_field_name(deb_field field);

/* One `[!]name` in an architecture list or a build-profile formula. */
typedef struct deb_term {
    const char *name;
    bool negated;
} deb_term;

/* One `<...>` build-profile formula: its terms all hold (AND). */
typedef struct deb_profile {
    const deb_term *terms;
    size_t n_terms;
} deb_profile;

/* One relation: `name[:archqual] [(op version)] [[arch ...]] [<profile ...> ...]`. */
typedef struct deb_rel {
    const char *name;
    const char *archqual;     /* NULL, "any", "native" or an architecture name */
    deb_op op;
    bool op_deprecated;       /* written `<` or `>` */
    const char *version;      /* NULL when op == DEB_OP_ANY */
    deb_version ver;          /* parsed `version` (views into it) */
    const deb_term *arches;   /* the [...] list, in order; n_arches == 0 if none */
    size_t n_arches;
    const deb_profile *profiles; /* the <...> formulas (OR of ANDs) */
    size_t n_profiles;
    size_t column;            /* 1-based column of the name in the field text */
} deb_rel;

/* One comma-separated group: alternatives joined by `|` (at least one). */
typedef struct deb_rel_group {
    const deb_rel *alts;
    size_t n_alts;
} deb_rel_group;

typedef struct deb_relations deb_relations;

/* deb_relations_groups() : the groups, in field order; *n receives the count
 *  (0 for an empty field). Borrowed until deb_relations_free(). */
const deb_rel_group *deb_relations_groups(const deb_relations *rels, size_t *n);

/* A parse failure: `column` is the 1-based byte column in the field text where
 * the problem is; `message` is malloc'd (caller frees) and starts with
 * "column N: ". */
typedef struct deb_parse_error {
    size_t column;
    char *message;
} deb_parse_error;

/* deb_relations_parse() :
 *  Parses a whole relationship field value. Whitespace (space, tab, newline,
 *  CR) is allowed between all tokens, so folded control-file lines parse. One
 *  trailing comma is tolerated; an empty group or alternative anywhere else is
 *  an error, and so is an empty version, an unknown operator, a bad name, an
 *  unterminated `(`, `[` or `<`, and anything the field kind forbids. Returns
 *  0 with *out set (caller frees with deb_relations_free()), or -1 with `err`
 *  filled (if not NULL) and *out NULL. */
int deb_relations_parse(const char *text, deb_field field, deb_relations **out,
                        deb_parse_error *err);
void deb_relations_free(deb_relations *rels);

/* deb_relations_format() :
 *  The canonical text: "a (>= 1.0) | b:any [amd64 !i386] <!nocheck>, c".
 *  Parsing it again gives the same relations. Caller frees. */
char *deb_relations_format(const deb_relations *rels);

/* deb_name_valid() : `^[a-z0-9][a-z0-9+.-]+$` on `len` bytes. */
bool deb_name_valid(const char *s, size_t len);

#endif

/* npm_json_prune.h — a json-c tree of only the members a reader names,
 * built by a streaming (yajl) parse that skips the rest without allocating.
 * The tree is the one json-c's strict tokener would build, minus the
 * members left out; which members a document keeps is its reader's business
 * (npm_packument.c owns the packument's list). Not used outside indexes/npm
 * and its tests. */
#ifndef EL_NPM_JSON_PRUNE_H
#define EL_NPM_JSON_PRUNE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* The nesting limit both parsers enforce (json_tokener_new_ex(64)): a value
 * nested in 64 containers is refused, an empty 64th container is not. */
#define NPM_JSON_MAX_DEPTH 64

/* One member to keep, in a list ended by an entry with neither `name` nor
 * `any`. `only` NULL keeps the member whole, whatever its type; otherwise a
 * member that is an object keeps only the members `only` names (one that is
 * not an object is kept whole). `any` matches every name. */
typedef struct npm_json_keep {
    const char *name;
    const struct npm_json_keep *only;
    bool any;
} npm_json_keep;

/* npm_json_prune_parse() :
 *  Parses body[0, len) as json_tokener_parse_ex() does with
 *  JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8 and depth
 *  NPM_JSON_MAX_DEPTH (limits and refusals checked in skipped parts too;
 *  strings with escapes and numbers decoded by json-c itself, duplicate
 *  names: the last wins in the first one's place), keeping of the top-level
 *  value only the members `keep` names. A NUL byte ends the input for both.
 *  Refused where json-c's strict mode is laxer than RFC 8259 (leading zeros,
 *  `1.`, `.5` after a minus, NaN, Infinity, raw control characters in
 *  strings): no registry writes those, and skipping them is yajl's call.
 *  @return 0 with *doc (json_object_put(); NULL for a top-level `null`), or
 *  -1 with *what, a malloc'd phrase in json-c's words where the two agree
 *  ("it ends early (truncated JSON)", "nesting too deep", ...). */
int npm_json_prune_parse(const char *body, size_t len, const npm_json_keep *keep,
                         json_object **doc, char **what);

/* npm_json_parse_full() :
 *  The same contract with json-c's tokener and the whole tree: what the
 *  packument reader did before it pruned, kept for the tests that compare
 *  the two (npm_packument_parse_full_tree()). */
int npm_json_parse_full(const char *body, size_t len, json_object **doc, char **what);

#endif

/* spec_rules_internal.h — what spec_rules.c and spec_rules_build.c share:
 * the rule context, json-c accessors for the normalized document, and the
 * small matchers several rules use. Private to the spec module. */
#ifndef EL_SPEC_RULES_INTERNAL_H
#define EL_SPEC_RULES_INTERNAL_H

#include "spec_internal.h"

struct json_object;
typedef struct json_object json_object;

typedef struct rules_ctx {
    const spec_node *root;
    spec_findings *fs;
    unsigned flags;
    const el_spec_base *bases; /* the approved bases (never NULL: the defaults if none given) */
    size_t n_bases;
    const el_spec_base *base; /* set by rule 3 when the base is approved and checked */
    const el_spec_channel *channel; /* set by rule 3 when the catalog has the spec's
                                     * channel of that base */
    struct spec_pin *pins; /* that channel's protected pins, read once (owned) */
    size_t n_pins;
} rules_ctx;

/* spec_base_find() : the approved base named `ref`, or NULL. */
const el_spec_base *spec_base_find(const rules_ctx *r, const char *ref);
/* spec_bases_list() : the approved refs for a message: "a/b, c/d". Caller
 * frees. */
char *spec_bases_list(const rules_ctx *r);

/* rules_pin_excluded() : the message when the protected pins of the
 * spec's channel (rule 3 with resolve checks) exclude the requirement
 * `text`, else NULL. Caller frees. */
char *rules_pin_excluded(const rules_ctx *r, const char *text);

/* Adds a finding for `field`, positioned at the node the path names (or its
 * nearest written ancestor). */
void rules_add(rules_ctx *r, const char *field, el_code code, const char *fmt, ...)
    EL_PRINTF(4, 5);

/* rules_add() for a finding about credential text: marked `secret`, so
 * that its source line is never shown. */
void rules_add_secret(rules_ctx *r, const char *field, const char *message);
#define CREDENTIAL_IN_URL "carries a credential in its URL; reference the credential in `buildSecrets`"

/* Accessors for the normalized document, safe on anything (NULL, a json
 * null, the wrong type). The document may be partial: a field that failed
 * its type check is absent, and a list item that failed is null, so a
 * rule reads a value only through these and skips what they do not give. */
json_object *jget(json_object *o, const char *key); /* NULL if absent or null */
const char *jstr(json_object *o, const char *key);  /* NULL if absent or not a string */
size_t jlen(json_object *arr);                       /* 0 if not an array */
const char *jat(json_object *arr, size_t i);         /* NULL if not a string */
/* jfailed() : true if field `key` of the model object `o` failed its type
 * check — it is absent, or `o` itself is not an object (it failed). Only for
 * fields the model always writes (not the extensions, which are absent
 * unless given). */
bool jfailed(json_object *o, const char *key);
/* jall_str() : true if `arr` is an array whose every item is a string
 * (none failed its type check). */
bool jall_str(json_object *arr);

bool is_blank(const char *s); /* true for NULL too */
bool is_dns_label(const char *s);
bool url_has_credential(const char *s);
bool has_control(const char *s, size_t n);
bool value_is_secretish(const char *value);
void check_url(rules_ctx *r, const char *field, const char *url, bool allow_http);

/* PEP 508 and npm package-spec checks (the ecosystems' grammars): true if
 * valid; otherwise *err gets a malloc'd message. */
bool spec_check_pep508(const char *text, char **err);
bool spec_check_npm(const char *text, char **err);
/* spec_npm_name() : the package name an npm entry asks for (`zod` of
 * `zod@^3`, `@s/p` of `@s/p@1`), malloc'd; NULL when the entry is no valid
 * registry spec (spec_check_npm() says why). */
char *spec_npm_name(const char *text);
/* spec_python_name() : the PEP 503 name of a PEP 508 entry, malloc'd; NULL
 * when it is invalid or carries a marker (entries selected per platform
 * may name one package each). */
char *spec_python_name(const char *text);

/* spec_image_ref_parse() :
 *  Parses a container image reference (docker's grammar). On success returns
 *  true and *registry (malloc'd) is its registry host, `docker.io` when none
 *  is named. Otherwise false with *err (malloc'd) saying why. */
bool spec_image_ref_parse(const char *ref, char **registry, char **err);

/* Rule 5: the checks of the chosen build source. */
void spec_rules_build(rules_ctx *r, json_object *spec);

#endif

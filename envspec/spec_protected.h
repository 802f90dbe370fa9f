/* spec_protected.h — a base's protected pins (REFERENCE §3
 * merge_requirements): which of the spec's Python requirements a pin lets
 * through. `validate` reports a requirement a pin excludes as a finding
 * (spec_rules.c) and `resolve` refuses it (base/base_request.c); both judge
 * with these functions and say it with SPEC_PIN_EXCLUDED, so the two cannot
 * disagree. Private to the spec and base stages. */
#ifndef EL_SPEC_PROTECTED_H
#define EL_SPEC_PROTECTED_H

#include <stdbool.h>
#include <stddef.h>

#include "pep508.h"

typedef struct spec_pin {
    const char *text;      /* the pin's requirement line (borrowed) */
    char *canonical;       /* its PEP 503 name, or NULL if the line did not parse */
    char *supported;       /* its specifier: "==7.3.0" */
    pypi_version *version; /* the single ==/=== version, or NULL */
} spec_pin;

/* The pins of a NULL-terminated list of requirement lines (NULL: none). A
 * line that does not parse is kept with canonical NULL: it matches nothing.
 * Free with spec_pins_free(). */
spec_pin *spec_pins_read(const char *const *lines, size_t *n);
void spec_pins_free(spec_pin *pins, size_t n);

/* The pin of the package named `canonical`, or NULL. */
const spec_pin *spec_pin_find(const spec_pin *pins, size_t n, const char *canonical);

/* The reference's "permits": the pin names no single version, or the
 * requirement gives no specifier, or its specifier set contains the pin's
 * version with pre-releases allowed. */
bool spec_pin_permits(const spec_pin *pin, const pypi_requirement *req);

/* The message for a requirement a pin excludes: the requirement's name, the
 * pin's specifier, the requirement's text. */
#define SPEC_PIN_EXCLUDED                                                                          \
    "`%s` is pinned by Datalayer to `%s`, which `%s` excludes: remove it, or ask for a version "   \
    "inside that range"

#endif

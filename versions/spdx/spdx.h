/* spdx.h — SPDX license expressions (SPDX 2.3, annex D), with no I/O: the
 * grammar a policy's license rules (policy/), the lock's recorded licenses
 * (lockfile/) and the SBOM exports share. A license identifier must be on
 * the SPDX License List (spdx/list/, compiled in; deprecated ones too), or
 * be a `LicenseRef-x` or `DocumentRef-x:LicenseRef-y`; an exception after
 * WITH must be on the list's exceptions. Anything else (`UNLICENSED`,
 * `None`, `BSD`) makes the text not an expression. */
#ifndef EL_SPDX_H
#define EL_SPDX_H
#include <stdbool.h>
#include <stddef.h>

/* spdx_expr_admits() :
 *  false when `expr` is not an SPDX license expression; else true with
 *  *admitted whether it can be met with the `allow` list: `A OR B` when
 *  either can, `A AND B` when both can, `A WITH e` when A or the whole
 *  `A WITH e` is allowed, `A+` only when `A+` is. Case-insensitive. */
bool spdx_expr_admits(const char *expr, const char *const *allow, size_t n_allow,
                      bool *admitted);

/* spdx_expr_valid() : whether `expr` is an SPDX license expression. */
bool spdx_expr_valid(const char *expr);

/* spdx_expr_is_license() :
 *  Whether `expr` is one license reference, alone or `id WITH exception`
 *  (what a policy's allow list holds: AND, OR and parentheses are for
 *  what packages declare). */
bool spdx_expr_is_license(const char *expr);

/* The SPDX License List's identifiers, sorted case-insensitively
 * (spdx_list.c, generated from spdx/list/ by the build). */
typedef struct spdx_list_entry {
    const char *id;
    bool deprecated; /* isDeprecatedLicenseId */
} spdx_list_entry;
extern const spdx_list_entry spdx_licenses[];
extern const size_t spdx_n_licenses;
extern const spdx_list_entry spdx_exceptions[];
extern const size_t spdx_n_exceptions;
extern const char spdx_list_version[]; /* "c2dbc5a of 2023-07-27" */

/* spdx_list_find() :
 *  The entry of `list` (n entries) whose id is the n_id bytes at `id`,
 *  compared case-insensitively as SPDX matches them, or NULL. */
const spdx_list_entry *spdx_list_find(const spdx_list_entry *list, size_t n, const char *id,
                                      size_t n_id);

/* spdx_expr_unlisted() :
 *  When `expr` would be an expression but for identifiers the list does
 *  not have: the first of them (a license, or after WITH an exception,
 *  that is no LicenseRef-), copied into buf (cap bytes, truncated), and
 *  true. False for an expression, and for text that is none by its syntax
 *  ("SEE LICENSE IN x"). */
bool spdx_expr_unlisted(const char *expr, char *buf, size_t cap);

/* spdx_expr_deprecated() :
 *  The first identifier of `expr` the list marks deprecated (`GPL-2.0+`,
 *  `LGPL-2.1`), copied as spdx_expr_unlisted() does; false when none. */
bool spdx_expr_deprecated(const char *expr, char *buf, size_t cap);

#endif

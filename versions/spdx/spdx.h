/* spdx.h — SPDX license expressions (SPDX 2.3, annex D), with no I/O: the
 * grammar a policy's license rules (policy/), the lock's recorded licenses
 * (lockfile/) and the SBOM exports share. Only the syntax is checked:
 * identifiers are not looked up in the SPDX license list (`UNLICENSED`
 * reads as an identifier). */
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

#endif

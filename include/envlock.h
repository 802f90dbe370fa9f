/* envlock — one spec, one solve, one deterministic lock for every sandbox variant.
 *
 * This is the only header a program includes. It pulls in the per-area
 * declarations under envlock/; each of those is part of this one public API.
 * Conventions, everywhere:
 *  - Every object comes in a create/free pair; free(NULL) is a no-op.
 *  - A `const char *` returned by a getter is borrowed: it stays valid until
 *    its owner is freed. Anything the caller owns is freed with the named
 *    function (el_free for plain strings).
 *  - Functions that can fail take an el_ctx first and return an el_code; on
 *    failure the context holds the code, a message and a detail object. */
#ifndef ENVLOCK_H
#define ENVLOCK_H

#include "envlock/error.h"
#include "envlock/version.h"
#include "envlock/spec.h"
#include "envlock/bases.h"
#include "envlock/lifecycle.h"
#include "envlock/index.h"
#include "envlock/cache.h"
#include "envlock/resolve.h"
#include "envlock/plan.h"
#include "envlock/bundle.h"
#include "envlock/audit.h"

#endif

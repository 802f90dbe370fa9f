/* envlock/lifecycle.h — the Environment Version lifecycle. Part of envlock.h.
 * (Declarations are owned by the lifecycle module; see spec/spec_lifecycle.c.) */
#ifndef ENVLOCK_LIFECYCLE_H
#define ENVLOCK_LIFECYCLE_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif

/* libenvlock.c — the anchor source of the shared library. The library's code
 * comes whole from the module archives; this file only records, in the
 * binary, which envlock it is. */
#include "util.h"

EL_API const char el_library_ident[] = "envlock " ENVLOCK_VERSION_STR;

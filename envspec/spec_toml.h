/* spec_toml.h — TOML 1.0 (https://toml.io/en/v1.0.0), read strictly with
 * the position of every value, for the dependency files a spec carries
 * (pyproject.toml, uv.lock). Debian 12 ships no C TOML library, so this is
 * the one parser of a foreign format written here; it is tested against
 * the toml-test suite and python3's tomllib. Not part of the public API. */
#ifndef EL_SPEC_TOML_H
#define EL_SPEC_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef enum toml_kind {
    TOML_STRING,
    TOML_INTEGER,
    TOML_FLOAT,
    TOML_BOOL,
    TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
    TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
    TOML_DATE_LOCAL,     /* 1979-05-27 */
    TOML_TIME_LOCAL,     /* 07:32:00 */
    TOML_ARRAY,
    TOML_TABLE
} toml_kind;

typedef struct toml_value toml_value;
struct toml_value {
    toml_kind kind;
    unsigned line, column;  /* 1-based, where the value (or a table's header) starts */
    const char *s;          /* STRING: decoded (may hold NULs: use len); date-times:
                               the text as written; INTEGER/FLOAT: as written */
    size_t len;
    int64_t i;              /* INTEGER */
    double f;               /* FLOAT */
    bool b;                 /* BOOL */
    size_t n;               /* ARRAY items, TABLE pairs */
    toml_value **items;     /* ARRAY items, TABLE values, in document order */
    const char **keys;      /* TABLE keys (decoded; NUL-terminated, but a quoted key
                               may hold NULs: key_lens), parallel to items */
    size_t *key_lens;
    unsigned flags;         /* the parser's own bookkeeping */
    size_t alloc;
};

/* toml_parse() :
 *  The root table of the TOML document text[0..len), allocated in `mem`;
 *  NULL for anything TOML 1.0 refuses (first problem only, as TOML has no
 *  recovery): *err (malloc'd) says what, *line and *column (1-based) where. */
toml_value *toml_parse(arena *mem, const char *text, size_t len, char **err, unsigned *line,
                       unsigned *column);

/* toml_get() : the value of `key` (NUL-terminated) in a TABLE, or NULL. */
const toml_value *toml_get(const toml_value *table, const char *key);

#endif

/* pep508.h — PEP 508 dependency specifiers ("requirements"), environment
 * markers and PEP 503 project names, with the exact acceptance and
 * evaluation rules of Python's `packaging` 23.0 (Requirement, Marker,
 * canonicalize_name).
 *
 * Text is UTF-8. Objects returned by *_parse are freed with the matching
 * *_free (NULL is a no-op); borrowed strings live as long as their owner.
 * Error messages (`char **err`, may be NULL) are malloc'd, caller frees, and
 * read well after "`<text>`: ". */
#ifndef EL_PYPI_PEP508_H
#define EL_PYPI_PEP508_H

#include <stdbool.h>
#include <stddef.h>

#include "pep440.h"

/* ---- names (PEP 503 / PEP 508) ---- */

/* pypi_name_canonical() : runs of `-`, `_`, `.` become one `-`, then ASCII
 *  lowercase ("Foo__Bar.baz" -> "foo-bar-baz"). Malloc'd. Any text is
 *  accepted (packaging applies it to extras in markers too). */
char *pypi_name_canonical(const char *name);

/* pypi_name_valid() : PEP 508's name rule: ASCII letters and digits, with
 *  `-_.` allowed inside but not at either end. (packaging's tokenizer also
 *  lets a requirement name end in `_`; the requirement parser follows it.) */
bool pypi_name_valid(const char *name);

/* ---- markers ---- */

typedef struct pypi_marker pypi_marker;

/* The environment a marker is evaluated in. NULL fields read as "". */
typedef struct pypi_env {
    const char *python_version;
    const char *python_full_version;
    const char *os_name;
    const char *sys_platform;
    const char *platform_release;
    const char *platform_system;
    const char *platform_version;
    const char *platform_machine;
    const char *platform_python_implementation;
    const char *implementation_name;
    const char *implementation_version;
    const char *extra;
} pypi_env;

/* pypi_marker_parse() :
 *  Parse an environment marker (`python_version >= "3.8" and extra == "x"`).
 *  Quoted strings follow Python literal rules (escapes are decoded).
 *  With `strict` false this is packaging's Marker(): text after a complete
 *  marker expression is ignored (`os_name == "a" junk` parses). With `strict`
 *  true such trailing text is an error. */
pypi_marker *pypi_marker_parse(const char *text, bool strict, char **err);
void pypi_marker_free(pypi_marker *m);

/* str(Marker): variables canonical (`os.name` -> `os_name`,
 * `python_implementation` -> `platform_python_implementation`), values in
 * double quotes, redundant outer parentheses dropped. Borrowed. */
const char *pypi_marker_str(const pypi_marker *m);

/* pypi_marker_evaluate() :
 *  Marker.evaluate(env): `or` binds looser than `and`; a comparison is a
 *  version comparison (Specifier semantics, pre-releases allowed) when
 *  `op + right-hand side` is a valid specifier, else a string comparison;
 *  `extra` values are compared after name canonicalization.
 *  @return 1 true, 0 false, -1 when packaging would raise (a comparison
 *  whose specifier applies but whose left side is not a version, `~=`/`===`
 *  between plain strings, two quoted strings the second of which is not an
 *  environment name); *err then says which. Every comparison is evaluated,
 *  as packaging does, so an error anywhere is an error. */
int pypi_marker_evaluate(const pypi_marker *m, const pypi_env *env, char **err);

/* ---- requirements ---- */

typedef struct pypi_requirement {
    char *name;            /* as written */
    char *canonical_name;  /* pypi_name_canonical(name) */
    size_t nextras;        /* extras as written, in order, duplicates dropped */
    char **extras;
    char **extras_canonical; /* canonical form of each extra */
    char *specifier;       /* specifier text as written (no parentheses) */
    pypi_specset *specset; /* parsed specifier (empty set when none) */
    char *url;             /* NULL when no `@ url` */
    pypi_marker *marker;   /* NULL when no `; marker` */
} pypi_requirement;

/* pypi_requirement_parse() :
 *  Parse `name [extras] (specifier | @ url) ; marker` as packaging's
 *  Requirement() does, including its URL check (scheme and host needed;
 *  file: URLs must survive urlparse/urlunparse unchanged).
 *  @return a new requirement, or NULL with *err. */
pypi_requirement *pypi_requirement_parse(const char *text, char **err);
void pypi_requirement_free(pypi_requirement *r);

/* pypi_requirement_check() :
 *  0 if `text` is a valid PEP 508 requirement; else -1 and *err = malloc'd
 *  message naming what is wrong. */
int pypi_requirement_check(const char *text, char **err);

#endif

/* debsources.h — apt's sources files as text (sources.list(5)): one-line
 * entries ("deb [opts] URI SUITE COMPONENT...") parsed into their parts,
 * and whole files, one-line or deb822 (.sources), turned into one-line
 * entries. Pure text, no I/O: the apt reader (indexes/apt) and the image
 * inspector (base/) both read sources through this one parser. */
#ifndef EL_DEBSOURCES_H
#define EL_DEBSOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct deb_source {
    const char *line;            /* as given (trimmed) */
    const char *uri;             /* archive URI, always ending in '/' */
    const char *suite;           /* "bookworm"; for a flat repository the
                                    directory ("./", "sub/") */
    bool flat;                   /* suite ends in '/' and no components */
    const char *const *components;
    size_t n_components;
    const char *const *arches;   /* [arch=a,b]; n_arches == 0: any */
    size_t n_arches;
    const char *signed_by;       /* keyring path, or NULL */
    bool trusted;                /* [trusted=yes] */
    int check_valid_until;       /* [check-valid-until=]: 1 yes, 0 no, -1 unset */
} deb_source;

/* deb_source_parse() :
 *  Parses one line "deb [opt=val ...] URI SUITE [COMPONENT...]" into *out,
 *  allocating in `a`. Options: arch=, signed-by= (a file path; an inline key
 *  is refused), trusted=yes|no, check-valid-until=yes|no; other apt options
 *  (lang=, target=, pdiffs=, by-hash=, ...) are accepted and ignored. URIs
 *  are http, https or file. Returns 0, or -1 with *err a static-free
 *  malloc'd sentence (caller frees) saying what is wrong. `deb-src` lines,
 *  comments and blank lines are refused: the caller passes entries. */
int deb_source_parse(const char *line, arena *a, deb_source *out, char **err);

/* deb_sources_entries() :
 *  The `deb` entries of a sources file's text[0..len), in order, as
 *  one-line entries in `a` appended to `out`: a one-line file (`deb822`
 *  false: `#` to the end of a line is a comment, blank lines skipped) as
 *  its lines; a deb822 file (`.sources`: stanzas of Types, URIs, Suites,
 *  Components, Signed-By, Architectures, Trusted, Check-Valid-Until,
 *  Enabled; `#` lines are comments, a line opening with a blank continues
 *  its field) as one entry per URI and suite, its fields as options.
 *  `deb-src` entries and stanzas with `Enabled: no` are left out; nothing
 *  is checked here: each entry goes to deb_source_parse(), which says
 *  what is wrong with it (a value holding a line break, for one). */
void deb_sources_entries(const char *text, size_t len, bool deb822, arena *a, ptrvec *out);

/* deb_source_uri_span() : where the URI of a one-line entry is (offset
 *  and length in `line`), or false when the line is no `deb` entry. */
bool deb_source_uri_span(const char *line, size_t *off, size_t *len);

#endif

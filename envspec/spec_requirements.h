/* spec_requirements.h — a requirements file (`build.dependencyFile` with
 * `sourceFormat: requirements`) read as pip reads one: logical lines after
 * `\` continuations, comments, option lines, per-requirement `--hash`, and
 * what envlock refuses of it. Shared by the spec rules (validation findings)
 * and the base stage (the resolve request); not part of the public API.
 *
 * The file is one text with nothing beside it, and a lock must not depend on
 * the environment that made it, so everything that reaches outside the text
 * (-r, -c, -e, --find-links, paths, direct URLs, VCS, ${VAR}) is a problem
 * here, never followed. */
#ifndef EL_SPEC_REQUIREMENTS_H
#define EL_SPEC_REQUIREMENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "envlock/error.h"
#include "util.h"

/* A position inside the content: 1-based line and column (bytes). */
typedef struct spec_req_problem {
    unsigned line, column;
    long index;          /* the requirement's i of `content[i]`, or -1 for an option line */
    el_code code;        /* SPEC_INVALID or CAPABILITY_UNSUPPORTED */
    const char *message; /* "`text`: why" */
} spec_req_problem;

typedef struct spec_req {
    const char *text;     /* the PEP 508 requirement, options cut off */
    unsigned index;       /* i of `content[i]`: its rank among requirement lines */
    unsigned line, column;
    unsigned file_line, file_column; /* in the spec text, once spec_reqfile_locate() ran; else 0 */
    const char **hashes;  /* "sha256:<hex>" as listed, NULL-terminated (NULL if none) */
    size_t n_hashes;
    const char *field;    /* the spec field it stands for; NULL: `content[index]`
                             (a uv.lock's packages: `lockContent`) */
} spec_req;

typedef struct spec_req_index {
    const char *url;      /* as written */
    bool extra;           /* --extra-index-url */
    unsigned line, column;
} spec_req_index;

typedef struct spec_reqfile {
    spec_req *reqs;
    size_t n_reqs;
    spec_req_index *indexes;
    size_t n_indexes;
    bool pre;             /* --pre */
    bool prefer_binary;   /* --prefer-binary */
    bool require_hashes;  /* --require-hashes, or a requirement carries --hash */
    /* --only-binary / --no-binary after pip's mutual exclusion, in pip's
     * order of application: PEP 503 names or ":all:", NULL-terminated */
    const char **only_binary;
    size_t n_only_binary;
    const char **no_binary;
    size_t n_no_binary;
    spec_req_problem *problems;
    size_t n_problems;
    const char *what;     /* how messages name the text: NULL "the requirements",
                             or "uv.lock" for a pyproject source's lock */
} spec_reqfile;

/* spec_reqfile_parse() :
 *  Reads `content` (NUL-terminated) into `mem`. Never fails: what it cannot
 *  take is a problem, in line order, and the requirement of a problem line
 *  is left out of reqs. Requirement lines are PEP 508 checked; hash mode
 *  (any --hash, or --require-hashes) needs a --hash and an `==`/`===` pin
 *  on every requirement, as pip's hash-checking mode does. Index options are
 *  collected, not judged: only the spec knows which indexes it names. */
spec_reqfile *spec_reqfile_parse(arena *mem, const char *content);

/* spec_reqfile_file_position() :
 *  Where content line `line`, column `column` is in the spec text the
 *  content node came from: a literal block scalar (`content: |`) maps line
 *  for line; any other scalar gives the node's own position. */
void spec_reqfile_file_position(unsigned node_line, unsigned node_column, unsigned body_line,
                                unsigned body_column, unsigned line, unsigned column,
                                unsigned *file_line, unsigned *file_column);

/* spec_reqfile_locate() :
 *  Sets file_line/file_column of each of `reqs` (from the string at `field`,
 *  NULL for `spec.build.dependencyFile.content`, of the spec loaded from
 *  `text` with `opts`): its position in that text (0, 0 when the text gives
 *  none). */
struct el_spec_options;
void spec_reqfile_locate(const char *text, size_t len, const struct el_spec_options *opts,
                         const char *field, spec_req *reqs, size_t n);

#endif

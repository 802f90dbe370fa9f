/* pep508_tree.h — the parsed marker tree shared by the parser
 * (pep508_parse.c) and the evaluator/printer (pep508_marker.c). Internal to
 * indexes/pypi. The shape mirrors packaging's: a list of atoms separated by
 * `and`/`or`, where an atom is a comparison or a parenthesized list. */
#ifndef EL_PYPI_PEP508_TREE_H
#define EL_PYPI_PEP508_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "pep508.h"

typedef struct pypi_mterm {
    bool is_var; /* environment variable (canonical name) or quoted value */
    char *s;
} pypi_mterm;

typedef struct pypi_mnode {
    bool is_list;
    /* comparison */
    pypi_mterm lhs, rhs;
    char *op; /* "in", "not in", "==", ... */
    /* list: n atoms; is_or[i] joins kids[i] and kids[i + 1] */
    size_t n;
    struct pypi_mnode **kids;
    bool *is_or;
} pypi_mnode;

struct pypi_marker {
    pypi_mnode *root; /* always a list */
    char *str;
};

void pypi_mnode_free(pypi_mnode *n);
/* Build the marker object from a parsed root list: applies packaging's
 * extra normalization to the first comparison and renders str(). Takes
 * ownership of root. */
pypi_marker *pypi_marker_from_tree(pypi_mnode *root);

#endif

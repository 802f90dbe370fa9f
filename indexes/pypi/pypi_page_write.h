/* pypi_page_write.h — project pages written back out (pypi_page_write.c),
 * for a static copy of an index (`envlock bundle`, docs/bundle.md). Part
 * of the PyPI reader's module: what a page holds is its knowledge. */
#ifndef EL_PYPI_PAGE_WRITE_H
#define EL_PYPI_PAGE_WRITE_H

#include "pypi_index.h"

/* pypi_page_write_json() / pypi_page_write_html() :
 *  Appends to `out` the PEP 691 JSON / PEP 503 HTML page of project `name`
 *  listing files[0..n) in that order, file i linked at hrefs[i] (any URL
 *  reference, typically relative; the HTML link carries `#sha256=` when the
 *  file has one). Kept per file: sha256, requires-python, yanked (and its
 *  reason), size and upload time (JSON), core metadata (PEP 714's key and
 *  PEP 658's older one, with its sha256). The JSON page is api-version 1.1
 *  with PEP 700's `versions` when every file has a size, else 1.0. Parsing
 *  what is written gives the same records (URLs aside). */
void pypi_page_write_json(const char *name, const pypi_file *files, size_t n,
                          const char *const *hrefs, strbuf *out);
void pypi_page_write_html(const char *name, const pypi_file *files, size_t n,
                          const char *const *hrefs, strbuf *out);

/* pypi_index_write_json() / pypi_index_write_html() :
 *  The root page of a simple index listing projects names[0..n) (PEP 503
 *  normalized, in the order given), each linked relatively as `NAME/`. */
void pypi_index_write_json(const char *const *names, size_t n, strbuf *out);
void pypi_index_write_html(const char *const *names, size_t n, strbuf *out);

#endif

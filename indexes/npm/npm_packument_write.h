/* npm_packument_write.h — a packument written back out for a static copy
 * of a registry (`envlock bundle`, docs/bundle.md): npm's wire format is
 * this module's knowledge. */
#ifndef EL_NPM_PACKUMENT_WRITE_H
#define EL_NPM_PACKUMENT_WRITE_H

#include <stddef.h>

/* npm_packument_canonical_text() :
 *  The packument `body` with every versions.*.dist.tarball that
 *  `canonical_url` maps to another URL (a mirror that rewrote them) written
 *  as that URL, everything else kept; NULL when nothing changes (the
 *  caller keeps the bytes as sent) or the text is no JSON object.
 *  *out_len its length; caller frees. The tarball URLs are no part of a
 *  packument's identity in a lock (npm_index.h), so a copy made this way
 *  resolves to the same lock. */
char *npm_packument_canonical_text(const char *body, size_t len,
                                   char *(*canonical_url)(void *user, const char *url),
                                   void *user, size_t *out_len);

#endif

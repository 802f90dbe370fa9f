/* apt_internal.h — what the apt reader's files share and nobody else sees:
 * the extra solvable attributes (control fields libsolv's Debian parser
 * drops), the loader's pool accessor for apt_index_show.c, and the
 * signature checks that consult the verdict cache (apt_verify.c). */
#ifndef EL_APT_INTERNAL_H
#define EL_APT_INTERNAL_H

#include <stddef.h>

#include "apt_index.h"

struct s_Repo;
struct s_Repodata;
struct s_Pool;
struct apt_loader;

/* Names of the extra attribute keys (written into .solv blobs). */
#define APT_KEY_PRIORITY "envlock:deb:priority"
#define APT_KEY_ESSENTIAL "envlock:deb:essential"
#define APT_KEY_SIZE "envlock:deb:size"
#define APT_KEY_BREAKS "envlock:deb:breaks"
#define APT_KEY_CONFLICTS "envlock:deb:conflicts"
#define APT_KEY_REPLACES "envlock:deb:replaces"
#define APT_KEY_DEPORDER "envlock:deb:deporder"

/* apt_extras_add() :
 *  Reads the Packages text again for Priority, Essential, Size, Breaks,
 *  Conflicts, Replaces and the order of the Pre-Depends and Depends groups
 *  (APT_KEY_DEPORDER: their first names, space-separated) and stores them on the solvables that
 *  repo_add_debpackages() just made from the same text (matched by name,
 *  version and architecture). The repodata must not be internalized yet. */
void apt_extras_add(struct s_Repo *repo, struct s_Repodata *data, const char *text, size_t len);

/* apt_verify_clearsigned_cached(), apt_verify_detached_cached() :
 *  apt_verify_clearsigned() and apt_verify_detached() with a verdict cache
 *  in `c` (NULL: none, exactly the plain checks). A GOOD verdict is
 *  recorded under the sha256 of the signed bytes (and signature), the
 *  keyring file's bytes and the gpgv that judged, for at most a day and
 *  never past the signature's expiration; a later call with the same inputs
 *  returns GOOD without starting gpgv (for an InRelease, *text is then
 *  split from `msg` again and must hash as gpgv's output did). A failure
 *  is never recorded. The caller still checks Valid-Until every time. */
apt_sig_result apt_verify_clearsigned_cached(cache *c, const char *keyring, const void *msg,
                                             size_t n, char **text, size_t *len, char **why);
apt_sig_result apt_verify_detached_cached(cache *c, const char *keyring, const void *data,
                                          size_t n, const void *sig, size_t sig_n, char **why);

struct s_Pool *apt_loader_pool_(const struct apt_loader *l);
const char *apt_loader_arch_(const struct apt_loader *l);

#endif

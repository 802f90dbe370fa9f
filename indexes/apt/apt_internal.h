/* apt_internal.h — what the apt reader's files share and nobody else sees:
 * the extra solvable attributes (control fields libsolv's Debian parser
 * drops) and the loader's pool accessor for apt_index_show.c. */
#ifndef EL_APT_INTERNAL_H
#define EL_APT_INTERNAL_H

#include <stddef.h>

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

/* apt_extras_add() :
 *  Reads the Packages text again for Priority, Essential, Size, Breaks,
 *  Conflicts and Replaces and stores them on the solvables that
 *  repo_add_debpackages() just made from the same text (matched by name,
 *  version and architecture). The repodata must not be internalized yet. */
void apt_extras_add(struct s_Repo *repo, struct s_Repodata *data, const char *text, size_t len);

struct s_Pool *apt_loader_pool_(const struct apt_loader *l);
const char *apt_loader_arch_(const struct apt_loader *l);

#endif

/* resolver_internal.h — what the resolver_*.c files share: the state of one
 * resolve (the pool, the loaders, the side tables that map solvables to real
 * versions and dependency Ids to the text and origin they came from), and
 * the rank/interval helpers. libsolv types appear only here and in
 * resolver_*.c; nothing outside resolver/ includes this header. */
#ifndef EL_RESOLVER_INTERNAL_H
#define EL_RESOLVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <solv/pool.h>
#include <solv/queue.h>
#include <solv/repo.h>
#include <solv/solver.h>
#include <solv/bitmap.h>

#include "resolver.h"
#include "pypi_index.h"
#include "npm_index.h"
#include "apt_index.h"
#include "conda_index.h"

/* ---- ranks and intervals (resolver_rank.c; no pool needed) ---- */

/* One interval [lo, hi] of indices into an ascending array of entries. */
typedef struct rsv_interval {
    size_t lo, hi;
} rsv_interval;

/* resolver_intervals() :
 *  The maximal runs of matching entries among n entries in ascending
 *  version order: keep[i] says entry i matches, present[i] (NULL: all) says
 *  it exists as a solvable. Entries that are not present are "don't care":
 *  a run continues across them, so fewer intervals describe the same set of
 *  solvables. Runs start and end on present matching entries. Writes at
 *  most n intervals into out; returns how many. */
size_t resolver_intervals(const bool *keep, const bool *present, size_t n, rsv_interval *out);

/* resolver_rank_evr() : the EVR text of rank r ("00000042"), into buf[16]. */
void resolver_rank_evr(size_t rank, char buf[16]);

/* resolver_pypi_match() :
 *  keep[i] for each of n versions (any order; NULL entries never match) that
 *  `s` admits by itself under PEP 440's per-specifier rule: pre-releases only
 *  when the specifier names one or when no final release matches at all.
 *  Not what the pool admits (that is per project: resolver_pypi_admit()); the
 *  crawl sizes metadata windows with it (a superset is harmless there). */
void resolver_pypi_match(const pypi_specset *s, const pypi_version *const *v, size_t n, bool *keep);

/* resolver_npm_match() :
 *  keep[i] for each version that node-semver's Range.test admits (loose, the
 *  pre-release gate applied, as npm does for registry ranges). */
void resolver_npm_match(const npm_range *r, const npm_semver *const *v, size_t n, bool *keep);

/* ---- the state of one resolve ---- */

enum { RSV_DEB = 0, RSV_NPM = 1, RSV_PYPI = 2, RSV_CONDA = 3 };

/* The pre-release modes (resolve_request.prereleases): uv's five, and pip's
 * rule (the default for the `pip` manager). */
enum {
    RSV_PRE_IF_NECESSARY_OR_EXPLICIT = 0,
    RSV_PRE_DISALLOW,
    RSV_PRE_ALLOW,
    RSV_PRE_IF_NECESSARY,
    RSV_PRE_EXPLICIT,
    RSV_PRE_PIP,
};

/* Our own solvables (pypi:, npm:): the real version and where it came from. */
typedef struct rsv_solv {
    int eco;                    /* RSV_PYPI or RSV_NPM; RSV_DEB unused here */
    const char *name;           /* pypi: canonical; npm: as published */
    const char *extra;          /* pypi extra solvable: the extra, else NULL */
    bool extra_missing;         /* that version does not provide the extra
                                   (pip warns and ignores it): not locked */
    const char *version;        /* real version */
    const pypi_project *pp;
    const pypi_candidate *pc;   /* NULL for a preinstalled dist the index lacks */
    const npm_packument *np;
    const npm_version *nv;
    const conda_record *crec;   /* conda: the record (a virtual package's is made up) */
    const char *cchannel;       /* conda: its channel, NULL for a virtual package */
    bool ours;                  /* set for every solvable described here */
} rsv_solv;

/* Where one dependency came from: for explanations and lock edges. */
typedef struct rsv_dep {
    Id from;                    /* the solvable that requires it; 0 for a root */
    int root;                   /* index into rq->roots, or -1 */
    Id dep;                     /* the dependency Id in the pool */
    int eco;
    const char *name;           /* target name (native spelling) */
    const char *text;           /* as written (marker included) */
    const char *short_text;     /* name[extras]specifier, no marker */
    const char *kind;           /* lock_edge kind */
    bool truncated;             /* pypi: matching candidates outside the window */
    bool nomatch;               /* nothing the index serves matches it */
    const npm_range *nrange;    /* npm: the range (or NULL with ntag) */
    const char *ntag;           /* npm: a dist-tag spec */
    const char *folder;         /* npm: the alias it is installed under
                                   (`"x": "npm:real@^1"`: "x"), else NULL */
    bool optional_peer;         /* npm: a peer marked optional: no job or
                                   requirement; the tree enforces its range
                                   when a copy is in reach */
} rsv_dep;

typedef struct rsv_pypi_name {
    char *name;                 /* canonical */
    size_t window;              /* metadata window asked for (0: all) */
    bool all;                   /* window 0 asked for */
    ptrvec extras;              /* char *, canonical, sorted as added */
    ptrvec specs;               /* const pypi_specset * (borrowed) */
    bool held;                  /* the base carries it at its protected pin: no index is asked */
    bool refused_noted;         /* its page's refused file names were noted (once, though
                                   every widening crawls again) */
    /* resolver_pypi_round()'s memo, so a crawl run costs what is new in it:
     * specs[0 .. specs_seen) are counted in spec_need against the project
     * as it was when excl_seen of its versions were excluded (exclusions
     * only grow, so an unchanged count is an unchanged project); noted[c]
     * when candidate c's requirements were noted with noted_extras extras */
    const pypi_project *memo_p;
    size_t specs_seen, excl_seen, spec_need;
    bool *noted;                /* memo_p->ncands entries */
    size_t noted_extras;
    const pypi_project *p;      /* after the crawl (NULL: never loaded) */
    /* after resolver_pypi_add(): every known version, ascending */
    size_t nent;
    const pypi_version **vers;  /* NULL where not usable (never matches) */
    const pypi_version **allv;  /* every parsed version (for "exists but") */
    size_t *ranks;
    bool *present;              /* a solvable exists at this rank */
    bool *cut;                  /* usable, but its metadata was not fetched */
    bool *yanked;               /* usable only for an exact pin (PEP 592);
                                   cleared where the spec pins it exactly */
    /* resolver_pypi_policy(): the project's pre-release admission, for
     * every requirement on it */
    pypi_prerelease pre;        /* YES, NO, or DEFAULT (pip: packaging's
                                   rule per requirement, none named one) */
    bool pre_from_deps;         /* pip: YES only because a dependency names
                                   a pre-release (rechecked after a solve) */
    bool pre_denied;            /* pip: no installed dependent named one */
    int *ci;                    /* candidate index, or -1 (preinstalled only) */
    Id inst;                    /* the preinstalled solvable, or 0 */
    const char *inst_version;
} rsv_pypi_name;

typedef struct rsv_npm_name {
    char *name;
    ptrvec ranges;              /* const npm_range * (borrowed) */
    bool any;                   /* some requirement takes any version */
    ptrvec tags;                /* const char * dist-tags asked for */
    size_t followed_ranges;     /* ranges and tags whose versions' */
    size_t followed_tags;       /* dependencies are noted already */
    bool queued;                /* in rsv.npm_todo */
    bool full;                  /* noted by a dependency edge: every admitted
                                   version is followed; else only peer sets
                                   reach it (pranges) */
    ptrvec pranges;             /* const npm_range *: ranges of peer edges
                                   (narrowed crawl) and of the peer sets
                                   arborist loads with them: only each
                                   range's picks, and only their peers; a
                                   pick the tree places is extended
                                   (resolver_npm_extend()) */
    size_t followed_pranges;
    /* ENVLOCK_DEBUG_STATS only (resolver_npm_finish()'s crawl line); they
     * decide nothing */
    unsigned depth;             /* fetches on the chain that asked for it (root = 1) */
    unsigned min_depth;         /* shortest chain from a root in the crawled graph */
    double arrived_ms;          /* since the resolve began; 0: not seen arrive */
    /* relevant()'s memo: rel[k] for candidate k of rel_p, valid while the
     * name's ranges, tags, peer ranges and picks number as counted here */
    const void *rel_p;
    unsigned char *rel;         /* 0 not relevant, 1 a peer-set pick only, 2 admitted */
    size_t rel_ranges, rel_tags, rel_pranges, rel_npicked;
    bool rel_wide;
    /* the narrowed crawl (resolver_npm_picks()): picked[k] when candidate
     * k of picked_p is a pick of a range or tag noted, or a peer's pick the
     * tree placed, its dependencies followed; npicked of them (the memo
     * above is read between the crawl's steps too) */
    const void *picked_p;
    unsigned char *picked;
    size_t npicked;
} rsv_npm_name;

typedef struct rsv_root {
    const resolve_root *r;
    int eco;
    char *name;                 /* pypi canonical, npm name, deb name */
    pypi_requirement *preq;     /* pypi */
    npm_range *nrange;          /* npm range (owned), or NULL for a tag */
    char *ntag;                 /* npm tag */
    char *dversion;             /* deb =version */
    bool skipped;               /* marker false for the target */
    Id dep;                     /* the dependency Id of its job */
} rsv_root;

typedef struct rsv {
    el_ctx *ctx;
    struct cache *c;
    const resolve_request *rq;
    arena *mem;
    Pool *pool;
    Repo *repo_pypi, *repo_npm;
    /* roots */
    rsv_root *roots;
    size_t nroots;
    bool has_pypi, has_npm, has_deb, has_conda;
    /* pypi */
    pypi_target pt;
    bool pt_ok;
    pypi_loader *pl;
    ptrvec pypi_names;          /* rsv_pypi_name * */
    ptrvec pypi_ahead;          /* names (r->mem) asked for ahead of the
                                   crawl, which it will reach (meta_arrived()) */
    ptrvec preinst;             /* pypi_requirement * of the base's preinstalled dists */
    ptrvec owned_versions;      /* pypi_version * parsed here */
    int pre_mode;               /* RSV_PRE_* of rq->prereleases */
    /* npm */
    npm_loader *nl;
    npm_target ntarget;
    ptrvec npm_names;           /* rsv_npm_name * */
    ptrvec npm_todo;            /* names with a packument and requirements
                                   not followed yet (resolver_npm.c) */
    bool npm_following;
    bool npm_wide;              /* the crawl follows every admitted version,
                                   not only the picks (resolver_npm_widen()) */
    ptrvec npm_opt_peers;       /* const npm_dep * optional peers on names
                                   not crawled (yet): noted if one is */
    void *npm_index;            /* tsearch tree of npm_names' entries, by name */
    void *npm_ranges;           /* tsearch tree of the dependency ranges read,
                                   one parse per text (resolver_npm_range()) */
    unsigned npm_cur_depth;     /* depth of the packument whose arrival is followed */
    unsigned npm_note_depth;    /* depth a name noted now gets (stats only) */
    double npm_follow_ms;       /* time spent following arrivals (stats only) */
    struct npm_tree_cache *npm_tree; /* the last npm tree built, reused while
                                   what it was built from holds
                                   (resolver_npm_tree.c) */
    unsigned npm_layouts;       /* npm trees built (stats only) */
    unsigned npm_extends;       /* rounds of resolver_npm_extend(), at most
                                   RSV_NPM_MAX_EXTENDS before widening */
    int npm_exact_lo, npm_exact_hi; /* r->job elements of npm's own tree
                                   (resolver_npm_tree_jobs()) */
    bool npm_search;            /* npm's tree does not hold: the solve searched,
                                   and the tree is built from what it installed */
    const char *npm_search_why; /* why (arena), for the note */
    const char *npm_search_name; /* the package name it is about, or NULL */
    /* apt */
    apt_loader *al;
    int apt_exact_lo, apt_exact_hi; /* r->job elements of apt's own answer
                                   (resolver_apt_mark.c) */
    bool apt_all_versions;      /* apt's candidates cannot be installed together:
                                   every version is searched (apt-candidate-only) */
    const char *apt_fallback_why; /* the package apt's walk could not install, or NULL */
    /* conda (resolver_conda.c) */
    const conda_channel_set *conda_set;  /* the channels, in priority order */
    conda_channel_set *conda_owned;      /* conda_set when resolver_conda_load() made it */
    const conda_virtual *conda_virt;     /* the target's virtual packages */
    size_t conda_nvirt;
    struct rsv_conda *conda;    /* names, records and ranks, once added */
    Repo *repo_conda;
    /* side tables */
    rsv_solv *solv;             /* indexed by Id, nsolv entries */
    size_t nsolv;
    size_t solv_lo;             /* lowest index resolver_solv() handed out;
                                   entries below it are zero (never written) */
    rsv_dep *deps;
    size_t ndeps, adeps;
    /* the job and the solver */
    Queue job;
    Solver *solver;
    /* the crawl's cache runs, for ENVLOCK_DEBUG_STATS (resolver_crawl_note()) */
    unsigned crawl_runs;
    cache_run_stats crawl_seen;   /* the cache's counters at the last note */
    unsigned solves;              /* resolver_solve_note() */
    double t0_ms;                 /* resolver_now_ms() when resolver_resolve() began */
    /* advisories and policy (resolver_advise.c) */
    Map vuln;                     /* solvables rq->affected() says are affected */
    Map deny;                     /* solvables rq->denied() says the policy denies */
    bool vuln_on;                 /* vuln and deny are built for the current pool */
    bool vuln_relaxed;            /* the excluding solve had no answer: disfavour only */
    bool deny_relaxed;            /* nothing without the denied versions: solve with them */
} rsv;

/* resolver_solv() : the side-table entry of p (grown on demand; zero until
 *  written). Readers may index r->solv[p] directly for any p < r->nsolv. */
rsv_solv *resolver_solv(rsv *r, Id p);
/* resolver_add_dep() : records where a dependency came from. */
rsv_dep *resolver_add_dep(rsv *r, Id from, int root, Id dep, int eco, const char *name,
                          const char *text, const char *short_text, const char *kind);
/* resolver_find_dep() : the record of (from, dep), or NULL. */
const rsv_dep *resolver_find_dep(const rsv *r, Id from, Id dep);

/* resolver_interval_dep() :
 *  The dependency on `name` (pool name, e.g. "pypi:numpy") admitting the
 *  solvables whose ranks are given by intervals over `ranks` (ascending):
 *  `name >= lo` REL_WITH `name <= hi`, several joined with REL_OR; the bare
 *  name when one interval covers every rank; `name = nomatch` when there is
 *  no interval (nobody provides that). */
Id resolver_interval_dep(Pool *pool, const char *name, const size_t *ranks, size_t nranks,
                         const rsv_interval *iv, size_t niv);

/* resolver_deb_dep_text() : a native dependency in Debian's notation
 *  ("libc6 (>= 2.34)", "a | b"), malloc'd. */
char *resolver_deb_dep_text(const Pool *pool, Id dep);

/* resolver_pypi.c */
void resolver_pypi_seed(rsv *r);
bool resolver_pypi_round(rsv *r);     /* true: something new was submitted */
el_code resolver_pypi_finish(rsv *r);
void resolver_pypi_widen(rsv *r, const char *name);
/* resolver_pypi_rank_of() : the rank of a conda record's `version` among
 *  PyPI name `canon`'s versions (resolver_pypi_add() laid them out with the
 *  conda records' own), 0 when it has none. */
size_t resolver_pypi_rank_of(const rsv *r, const char *canon, const char *version);
#define RSV_PYPI_CONDA (-2) /* rsv_pypi_name.ci: a conda record's version */
el_code resolver_pypi_add(rsv *r);
void resolver_pypi_jobs(rsv *r);
/* resolver_pypi_marker_true() : whether q applies on the target with
 *  `extra` ("" for the base). */
bool resolver_pypi_marker_true(const rsv *r, const pypi_requirement *q, const char *extra);
/* resolver_pypi_policy.c */
/* resolver_pypi_policy() : after the names are laid out, each project's
 *  pre-release admission and the yanked versions the spec pins exactly. */
void resolver_pypi_policy(rsv *r);
/* resolver_pypi_admit() : keep[i] for each of n's nent versions v[i] (NULL
 *  never) that `s` admits under n's pre-release admission. */
void resolver_pypi_admit(const rsv_pypi_name *n, const pypi_specset *s,
                         const pypi_version *const *v, bool *keep);
/* resolver_pypi_exact_pin() : `===`, or `==` without a wildcard (PEP 592). */
bool resolver_pypi_exact_pin(const pypi_specset *s);
/* resolver_pypi_recheck() : after a solve without problems: true when pip's
 *  rule takes back a pre-release admission (a chosen pre-release no
 *  installed requirement names one): the pool must be built again. */
bool resolver_pypi_recheck(rsv *r);
/* resolver_npm.c */
void resolver_npm_seed(rsv *r);
/* resolver_npm_free_index() : empties r->npm_index (before the names go). */
void resolver_npm_free_index(rsv *r);
/* resolver_npm_range() : dp's range (NULL without range_text), parsed
 *  once per text for the whole resolve: a widened crawl reads the same
 *  "^1.0.0" in thousands of versions. Owned by r until
 *  resolver_npm_free_ranges() (after the pool, whose deps point at them). */
const npm_range *resolver_npm_range(rsv *r, const npm_dep *dp);
void resolver_npm_free_ranges(rsv *r);
/* resolver_npm_loaded() : the npm loader's `loaded` callback (user: the rsv). */
void resolver_npm_loaded(npm_loader *l, const npm_packument *p, void *user);
bool resolver_npm_round(rsv *r);
el_code resolver_npm_finish(rsv *r);
void resolver_npm_add(rsv *r);
el_code resolver_npm_jobs(rsv *r);
/* node_modules placement of the installed npm solvables */
typedef struct rsv_npm_node rsv_npm_node;
typedef struct rsv_npm_edge {
    const rsv_dep *dep;
    rsv_npm_node *to;
} rsv_npm_edge;
typedef struct rsv_npm_edges {
    rsv_npm_edge *items;
    size_t len, alloc;
} rsv_npm_edges;
struct rsv_npm_node {
    Id p;                       /* 0 for the project itself */
    const char *name;
    char *path;                 /* "" for the project; "node_modules/a/node_modules/b" */
    rsv_npm_node *parent;       /* the node whose node_modules holds it */
    ptrvec children;            /* rsv_npm_node * placed in its node_modules */
    rsv_npm_edges edges;        /* its dependencies, bound */
    ptrvec dependents;          /* rsv_npm_node * whose edges bind here */
    bool from_spec;             /* a root binds here */
    bool bound;                 /* its edges were bound (an edge whose `to`
                                   is NULL is to be bound again) */
    const npm_bundled *bundled; /* shipped in an ancestor's tarball (p is
                                   then 0 and it has no edges): what that
                                   tarball's node_modules holds */
};
void rsv_npm_edges_push(rsv_npm_edges *v, rsv_npm_edge e);
Id resolver_npm_bind(rsv *r, Id dep);
/* resolver_npm_tree() : every node of npm's tree (the project first),
 *  owned by r: built once and reused until the pool, the solve's say in
 *  it (a search) or the advisories' strictness change. */
const ptrvec *resolver_npm_tree(rsv *r);
/* resolver_npm_tree_drop() : frees the tree kept (with the pool). */
void resolver_npm_tree_drop(rsv *r);
void resolver_npm_layout_free(ptrvec *all);
/* resolver_npm_misload() : Node's require() from each dependent walks up
 *  node_modules (its own first) and loads the first copy of the folder.
 *  Returns the first edge (nodes in `all` order, then edge order) for which
 *  that copy is not the node the edge is bound to, or is one in_range()
 *  refuses; *at its dependent, *got the copy Node loads (NULL: none).
 *  NULL when every edge loads its own copy. */
typedef bool (*rsv_npm_in_range)(void *user, const rsv_dep *d, const rsv_npm_node *got);
const rsv_npm_edge *resolver_npm_misload(const ptrvec *all, rsv_npm_in_range in_range,
                                         void *user, const rsv_npm_node **at,
                                         const rsv_npm_node **got);
/* resolver_npm_check() : after a solve, whether every peer dependency can be
 *  the one copy beside its dependent; EL_RESOLVE_CONFLICT (the pair in
 *  detail.conflict) when a copy that does not satisfy it is already there,
 *  as npm's ERESOLVE — never two versions at one node_modules path. Then
 *  Node's own resolution (resolver_npm_misload): EL_INTERNAL naming the
 *  edge, and no lock, when a dependent would load another copy. */
el_code resolver_npm_check(rsv *r);
/* resolver_npm_tree_jobs() : builds npm's own tree before the solve and
 *  pushes one SOLVER_INSTALL job per distinct solvable in it, the r->job
 *  elements [npm_exact_lo, npm_exact_hi). When npm would refuse the spec
 *  (a peer with no place: ERESOLVE; an edge no version satisfies: ETARGET)
 *  no job is pushed and npm_search is set with the reason. */
void resolver_npm_tree_jobs(rsv *r);
/* resolver_npm_bundles() : reads the bundled tree of every node of npm's
 *  tree whose version bundles dependencies (npm_loader_bundle()), building
 *  the tree again until no bundler is left unread (a bundle's packages can
 *  move where later nodes go). EL_OK, or the failure of a tarball. */
el_code resolver_npm_bundles(rsv *r);
/* resolver_npm_visible() : the node Node loads for folder `folder` from
 *  `at` (its own node_modules first, then each ancestor's), or NULL. */
rsv_npm_node *resolver_npm_visible(const rsv_npm_node *at, const char *folder);
/* resolver_npm_exact_failed() : after a solve with `nproblems` problems,
 *  whether npm's exact jobs were in it; if so they are removed from r->job
 *  (apt's range shifted) and npm_search is set, to solve again. */
bool resolver_npm_exact_failed(rsv *r, int nproblems);
/* resolver_npm_note() : after a successful solve, the note that the npm
 *  part is not the tree npm would build, when the solve searched. */
void resolver_npm_note(rsv *r);
/* resolver_npm_pick.c: npm-pick-manifest's preference rank (3 best), its
 *  `latest` shortcut, a range's test as npm applies it (a dist-tag's: the
 *  version the tag names), and the pick itself. */
int resolver_npm_rank(const npm_version *v);
bool resolver_npm_latest_ok(const npm_packument *p, const npm_version *v);
bool resolver_npm_range_admits(const npm_range *range, const npm_packument *p, const npm_version *v);
bool resolver_npm_spec_admits(const npm_range *range, const char *tag, const npm_packument *p,
                              const npm_version *v);
/* A pick's filter: whether it may take v of p (user: the caller's). */
typedef bool (*rsv_npm_take)(void *user, const npm_packument *p, const npm_version *v);
/* resolver_npm_pick() : the version of p npm picks for `range` (or, with
 *  range NULL, dist-tag `tag`) among the candidates `take` accepts (NULL:
 *  all): with `locked`, a version the previous lock has that satisfies it
 *  (npm keeps what its package-lock says while it fits; the highest when
 *  the lock has several), else the `latest` tag when the shortcut takes it
 *  (resolver_npm_latest_ok()) and it satisfies, else the highest of the
 *  best resolver_npm_rank(). NULL when none satisfies. The one place that
 *  choice is made: the tree builder binds with it, the crawl follows what
 *  it can return (resolver_npm_picks()). */
const npm_version *resolver_npm_pick(const rsv *r, const npm_packument *p, const npm_range *range,
                                     const char *tag, bool locked, rsv_npm_take take, void *user);
/* resolver_npm_picks() : every version the tree builder can bind to an edge
 *  of `range` (or `tag`) of p before any search: resolver_npm_pick() with
 *  and without the lock's preference (when the previous lock has the
 *  name; a placement check picks without it), each among every candidate
 *  and, when the request has advisories or a policy, among those they
 *  leave alone (resolver_npm_tree.c npm_pick_as()). Into out, distinct;
 *  returns how many (0 when nothing satisfies). */
#define RSV_NPM_PICKS 4
size_t resolver_npm_picks(const rsv *r, const npm_packument *p, const npm_range *range,
                          const char *tag, const npm_version *out[RSV_NPM_PICKS]);
/* resolver_npm.c: the narrowed crawl against the tree. */
/* resolver_npm_missed() : after a solve with an answer, why the tree left
 *  the narrowed crawl (the solve searched, or a node is a version whose
 *  dependencies were not followed), or NULL when it did not or the crawl
 *  is wide already. */
const char *resolver_npm_missed(rsv *r);
/* resolver_npm_widen() : the crawl follows every admitted version from now
 *  on (a stat line says why); every name is queued to be followed again.
 *  false when it did already. The caller drops the pool and crawls. */
bool resolver_npm_widen(rsv *r, const char *why);
/* Rounds of the tree extending the narrowed crawl (a generation of placed
 * peer picks each) before it is widened instead (resolver_solve.c). */
#define RSV_NPM_MAX_EXTENDS 8
/* resolver_npm_extend() : the narrowed crawl follows the dependencies of
 *  every version npm's tree placed that it followed only for its peers (a
 *  peer edge no copy in reach satisfied); true when there was one. */
bool resolver_npm_extend(rsv *r);
bool resolver_npm_bundled(const npm_version *v, const char *name);
bool resolver_npm_alias_ok(const npm_dep *dp);
/* resolver_apt.c */
el_code resolver_apt_prepare(rsv *r);
el_code resolver_apt_load(rsv *r);
void resolver_apt_jobs(rsv *r);
/* resolver_apt_multiarch_any() : after pool_createwhatprovides(), narrows
 *  every `name:any` to the providers marked Multi-Arch: allowed (the
 *  MultiArch spec; libsolv accepts any provider). */
void resolver_apt_multiarch_any(rsv *r);
/* resolver_apt_dep_name() : the name a dependency is on (its left-most name). */
Id resolver_apt_dep_name(Pool *pool, Id dep);
/* resolver_apt_provider_rank() : how apt ranks a provider that is not the
 *  dependency's own package (higher first): Essential, then Priority. */
int resolver_apt_provider_rank(Pool *pool, Id p);
/* resolver_apt_mark_jobs() (resolver_apt_mark.c) :
 *  apt-get install's own answer (candidates, its depth-first walk,
 *  Upgrade-By-Source-Package) as SOLVER_INSTALL jobs of exact solvables,
 *  r->job elements [apt_exact_lo, apt_exact_hi). When the walk cannot
 *  install a package, no job is added and apt_all_versions is set. Nothing
 *  when apt_all_versions is already set. */
void resolver_apt_mark_jobs(rsv *r);
/* resolver_apt_exact_failed() : after a failed solve, whether it had those
 *  exact jobs; if so they are removed from r->job and apt_all_versions is
 *  set, for a solve over every version. */
bool resolver_apt_exact_failed(rsv *r, int nproblems);
/* resolver_apt_note() : after a successful solve, the note that the lock
 *  is not apt-get's own answer when apt_all_versions was needed. */
void resolver_apt_note(rsv *r);
/* resolver_apt_check_roots() : refuses a root that names a purely virtual
 *  package with several providers (apt: "a virtual package provided by
 *  ...; you should explicitly select one"), EL_PACKAGE_NOT_FOUND. */
el_code resolver_apt_check_roots(rsv *r);
/* resolver_conda.c */
/* resolver_conda_add() : every record of r->conda_set (strict channel
 *  priority: a name's records come from the first channel that has it; a
 *  .conda beside a .tar.bz2 of the same build wins) as a `conda:<name>`
 *  solvable ranked in conda's order with track_features records below all
 *  others, `depends` as requirements, `constrains` as conflicts with the
 *  records they exclude; r->conda_virt as installed solvables. */
void resolver_conda_add(rsv *r);
/* resolver_conda_jobs() : one install job per conda root (its match spec);
 *  EL_SPEC_INVALID naming the root for a spec that does not parse. */
el_code resolver_conda_jobs(rsv *r);
/* resolver_conda_load.c */
/* resolver_conda_load() : the request's channels (its target's subdir and
 *  noarch) through the cache, cut at --exclude-newer by record timestamp,
 *  and the target's virtual packages (the base's arch, libc, cudaVersion):
 *  r->conda_set, r->conda_virt. The loader's failure, or
 *  EL_SPEC_INVALID for a target conda has no virtual packages for. */
el_code resolver_conda_load(rsv *r);
/* resolver_conda_unload() : what resolver_conda_load() made. */
void resolver_conda_unload(rsv *r);
/* resolver_license_of() : the license a lock records for what an index
 *  declares: the SPDX expression with its runs of spaces and tabs written
 *  as one space, or NULL (none declared, or text lock_license_problem()
 *  refuses, such as "SEE LICENSE IN LICENSE.md"). In `a`. */
const char *resolver_license_of(const char *declared, arena *a);
/* resolver_conda_lock_package() : a conda solvable as the lock records it:
 *  channel as source, build, subdir, the file with its URL, sha256, md5
 *  and size, and repodata's `license` (resolver_license_of()). */
void resolver_conda_lock_package(const rsv *r, Id p, lock_package *lp, arena *a);
/* resolver_conda_is_virtual() : p is a virtual package (a fact of the
 *  target, never locked). */
bool resolver_conda_is_virtual(const rsv *r, Id p);
/* resolver_conda_lock_inputs() : every repodata.json read, as a lock input
 *  (ecosystem "conda", its URL, "sha256:<hex>" of its bytes). */
void resolver_conda_lock_inputs(const rsv *r, void (*add)(void *user, const char *url,
                                                          const char *identity),
                                void *user);
/* resolver_conda_involved() : whether a problem of the failed solve has a
 *  conda rule (then resolver_conda_explain() tells it). */
bool resolver_conda_involved(rsv *r, int nproblems);
/* resolver_conda_not_found() : after a failed solve, EL_PACKAGE_NOT_FOUND
 *  for the first conda spec of the request that no record matches at all
 *  (detail: reason not_found when the channels lack the name, else
 *  no_match; package, requested, field, channels, versions they have),
 *  as the other ecosystems answer a requirement nothing serves; EL_OK
 *  when every spec matches some record. */
el_code resolver_conda_not_found(rsv *r);
/* resolver_conda_layout() : the conda names the roots reach with their
 *  records in preference order (r->conda), once per pool; before the PyPI
 *  names are laid out, which rank the PyPI distributions conda installs. */
void resolver_conda_layout(rsv *r);
/* resolver_conda_pypi_versions() : the versions of the conda records that
 *  install PyPI distribution `canon` (PEP 503 name): those whose repodata
 *  `purls` name it, and of records without `purls`, those of the conda
 *  name that normalizes to it which depend on `python` (a Python package,
 *  not a library that happens to share a PyPI name); an array the caller
 *  frees (strings borrowed), *n entries, NULL when none or no conda. */
const char **resolver_conda_pypi_versions(const rsv *r, const char *canon, size_t *n);
/* resolver_conda_pypi_owner() : "conda-pypi:<canon>", the name every conda
 *  record that installs PyPI distribution `canon` (as above) provides and
 *  a PyPI copy conflicts with, or NULL when none does. */
const char *resolver_conda_pypi_owner(const rsv *r, const char *canon);
/* resolver_conda_free() : what resolver_conda_add() kept. */
void resolver_conda_free(rsv *r);
/* resolver_conda_answer() : after a solve without problems, one line per
 *  installed conda record ("name version build channel/subdir/fn"), sorted. */
void resolver_conda_answer(rsv *r, strbuf *out);
/* resolver_conda_explain() : after a failed solve, EL_RESOLVE_CONFLICT
 *  naming the specs, with each rule of the problems as a sentence naming
 *  the records involved: all of them in the message without a request or
 *  with explain_full, else the first of each kind (detail.rules: all;
 *  detail.conflict: the specs as written; detail.fields: their fields). */
el_code resolver_conda_explain(rsv *r, int nproblems);
/* resolver_prefer.c: the previous lock as a preference */
/* resolver_freed() : whether --upgrade-package frees (eco, name). */
bool resolver_freed(const rsv *r, const char *eco, const char *name);
/* resolver_locked() : the previous lock's package (eco, name[, version]) if
 *  it still counts (a lock is given, not --upgrade, the name not freed), or
 *  NULL. */
const lock_package *resolver_locked(const rsv *r, const char *eco, const char *name,
                                    const char *version);
/* resolver_pypi_locked_window() : the metadata window of p that reaches its
 *  locked version (its place among the usable versions, newest first), or 0
 *  when nothing of p is locked or the locked version is not usable now. */
size_t resolver_pypi_locked_window(const rsv *r, const pypi_project *p);

/* resolver_pypi_binary_window() (resolver_pypi_binary.c) : with
 *  --prefer-binary, the metadata window of p that reaches its newest
 *  version whose file is a wheel when a newer one's is an sdist; else 0. */
size_t resolver_pypi_binary_window(const rsv *r, const pypi_project *p);

/* resolver_pypi_binary_jobs() : with --prefer-binary, the favour job for
 *  the wheel versions of the names that also have sdist versions (pip's
 *  order); nothing otherwise. Before resolver_advise_jobs(). */
void resolver_pypi_binary_jobs(rsv *r);
/* resolver_prefetch_locked() :
 *  Calls submit(r, name) for every name the previous lock lists in `eco`
 *  ("pypi" or "npm"), the names --upgrade-package frees included: a
 *  re-resolve revalidates the whole last closure in the crawl's first cache
 *  run instead of one run per dependency level. Only the loaders see these
 *  names; the crawl adds a name to r->pypi_names / r->npm_names (and so to
 *  the lock's inputs) only when it reaches it, and reads a failed prefetch
 *  (404, offline miss, network) only then. */
void resolver_prefetch_locked(rsv *r, const char *eco, void (*submit)(rsv *r, const char *name));
/* resolver_crawl_note() :
 *  Called once after every cache run of the crawl (by crawl()). With a
 *  stats callback on the request, gives it one line per run: "crawl run N:
 *  R requests, K network, V revalidated, H hits" (what the cache did since
 *  the previous note), so tests can count the runs that went to the network. */
void resolver_crawl_note(rsv *r);
/* resolver_solve_note() :
 *  Called after every solve (by resolver_resolve()), `widened` the number of
 *  PyPI names its problems widened (0 on success or when nothing can be
 *  widened). With a stats callback, gives it "solve N: S solvables, V pypi
 *  versions of K names, P problems, W names widened, T ms since the
 *  resolve began": S counts the whole pool
 *  (libsolv's two reserved solvables and every ecosystem), V the PyPI
 *  versions with a solvable. */
void resolver_solve_note(rsv *r, int nproblems, size_t widened);
/* resolver_stats_on() : whether the request gathers statistics. */
bool resolver_stats_on(const rsv *r);
/* resolver_stat() : one statistics line to the request's stats callback
 *  (printf-style; nothing without a callback). */
void resolver_stat(rsv *r, const char *fmt, ...) EL_PRINTF(2, 3);
/* resolver_now_ms() : CLOCK_MONOTONIC in milliseconds (for the stats). */
double resolver_now_ms(void);
/* resolver_prefer_jobs() : SOLVER_FAVOR for every solvable whose version is
 *  locked; pushed after every other job so they outrank the ecosystems' own
 *  preferences. */
void resolver_prefer_jobs(rsv *r);
/* resolver_explain.c */
el_code resolver_explain(rsv *r, int nproblems);

/* ---- advisories and policy (resolver_advise.c) ---- */

/* resolver_advise_mark() : fills r->vuln from rq->affected and r->deny
 *  from rq->denied for the pool just built (no-op without either). */
void resolver_advise_mark(rsv *r);
/* resolver_advise_jobs() : a lock on every affected solvable that is not
 *  in the base (keeps it out), or once relaxed one favour job for the
 *  unaffected versions of the names concerned; a lock on every denied
 *  solvable until the policy is relaxed. */
void resolver_advise_jobs(rsv *r);
/* resolver_advised() : whether solvable p is affected, or denied while
 *  the policy holds. */
bool resolver_advised(const rsv *r, Id p);
/* resolver_advise_strict() : whether the npm pick must skip affected
 *  versions altogether (the excluding solve). */
bool resolver_advise_strict(const rsv *r);
/* resolver_advise_npm() : before any pool, whether version v of npm
 *  packument p is affected or denied (what resolver_advised() will say of
 *  its solvable in the first, strict, solve). */
bool resolver_advise_npm(const rsv *r, const npm_packument *p, const npm_version *v);
/* resolver_advise_relax() : after an excluding solve without an answer:
 *  true when the next solve should only favour the unaffected (once; only
 *  when something was excluded). */
bool resolver_advise_relax(rsv *r);
/* resolver_policy_relax() : after every other way failed: true when the
 *  next solve (on a rebuilt pool) should admit the denied versions, so the
 *  caller can say which rule stands in the way (once; only when something
 *  was denied). */
bool resolver_policy_relax(rsv *r);
/* resolver_advise_requeue() : on the same pool, the locks of
 *  resolver_advise_jobs() replaced by the relaxed favour job. */
void resolver_advise_requeue(rsv *r);
/* resolver_advise_drop() : forgets the map with the pool. */
void resolver_advise_drop(rsv *r);
el_code resolver_not_found(rsv *r);
/* resolver_lock.c */
lock_doc *resolver_make_lock(rsv *r);

/* Text of a root for messages: "numpy==1.21.0 (spec line 15)". */
char *resolver_root_label(const rsv *r, int root);

#endif

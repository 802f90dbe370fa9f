/* policy.h — the organization policy gate (docs/policy.md): a policy file
 * read into memory, and its two answers: whether a PyPI index, npm registry
 * or apt source may be used, and which rule denies a package version. It
 * reads the one file it is given; no network, no stderr, no environment,
 * no clock (the instant a cooldown is measured from is the caller's).
 * Keys this envlock cannot enforce yet are refused, not skipped: a rule
 * that silently does nothing is worse than none. */
#ifndef EL_POLICY_H
#define EL_POLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "envlock/version.h"
#include "spdx.h"
#include "util.h"

#define POLICY_MAX_BYTES (1024 * 1024)

typedef enum policy_rule_kind {
    POLICY_DENY,     /* deny[]: a name and a range */
    POLICY_COOLDOWN, /* minimumReleaseAge: a release too young */
    POLICY_LICENSE,  /* licenses: a license not allowed, or none known */
} policy_rule_kind;

typedef struct policy_rule {
    policy_rule_kind kind;
    el_ecosystem eco;      /* pypi, npm or deb */
    const char *name;      /* pypi: PEP 503 normalized; npm and deb as written */
    const char *versions;  /* the ecosystem's range (PEP 440 specifiers,
                              node-semver, a dpkg relation), or NULL: all */
    const char *reason;    /* or NULL */
    const char *text;      /* "pypi requests <2.32": the rule as messages show it */
    unsigned line, column; /* where the rule starts in the file */
    int64_t min_age_s;     /* a cooldown: versions released less than this
                              before `now` are denied (name is then NULL) */
} policy_rule;

/* A name the cooldown does not apply to: exact, or a prefix ("@acme/" and "*"). */
typedef struct policy_exempt {
    el_ecosystem eco;
    const char *name;      /* pypi: PEP 503 normalized; without the '*' */
    bool prefix;
} policy_exempt;

/* A list of URL prefixes; `set` false: the key is absent, anything goes. */
typedef struct policy_urls {
    bool set;
    const char **prefixes;
    size_t n;
    unsigned line, column;
} policy_urls;

typedef struct policy {
    arena *mem;
    const char *path;
    policy_urls indexes, registries, apt_sources;
    policy_rule *deny;
    size_t n_deny;
    policy_rule cooldown[2]; /* [EL_ECO_PYPI], [EL_ECO_NPM]; min_age_s 0: none */
    policy_exempt *exempt;   /* minimumReleaseAge.exempt */
    size_t n_exempt;
    struct {
        bool set;
        const char **allow;  /* SPDX ids (or "id WITH exception"), one space */
        size_t n_allow;
        bool unknown_ok;     /* `unknown: allow`: no readable license passes */
        policy_rule rule;    /* POLICY_LICENSE, text "licenses", eco unused */
        policy_exempt *exempt;
        size_t n_exempt;
    } licenses;
} policy;

/* policy_load() :
 *  Reads and checks the file. NULL on failure: EL_SPEC_INVALID naming
 *  path:line:column and the field (detail reason invalid_policy, or
 *  unreadable), or EL_CAPABILITY_UNSUPPORTED for a key not enforced yet. */
policy *policy_load(el_ctx *ctx, const char *path);
/* policy_parse() : the same for text already read; `path` names it in
 *  messages. */
policy *policy_parse(el_ctx *ctx, const char *path, const char *text, size_t len);
void policy_free(policy *p);

/* policy_url_allowed() :
 *  true when `urls` is unset, or `url` starts with one of its prefixes at
 *  a boundary (the prefix ends in '/', or the URL goes on with '/', '?' or
 *  ends there), so https://pypi.org does not admit https://pypi.org.evil. */
bool policy_url_allowed(const policy_urls *urls, const char *url);

/* policy_denies() :
 *  The first rule that denies (eco, name, version), or NULL. A deb rule
 *  names a binary package, or a source package (src, src_version: the
 *  Packages `Source:` field, else NULL) for every binary built from it. */
const policy_rule *policy_denies(const policy *p, el_ecosystem eco, const char *name,
                                 const char *version, const char *src, const char *src_version);

/* policy_too_young() :
 *  The cooldown rule that denies a version of (eco, name) released at
 *  `published` (RFC 3339; NULL: the index gives no time, which cannot
 *  prove an age) when measured from `now` (seconds since the epoch), or
 *  NULL: no cooldown for eco, the name is exempt, or it is old enough. */
const policy_rule *policy_too_young(const policy *p, el_ecosystem eco, const char *name,
                                    const char *published, int64_t now);

/* policy_license_denies() :
 *  The licenses rule when the policy allows licenses and the declared
 *  `license` of a PyPI, npm or conda version (an SPDX expression, or NULL) cannot
 *  be met with them, or is not an SPDX expression while unknown licenses
 *  are denied; NULL otherwise (also for deb, which no index labels, and
 *  for an exempt name). */
const policy_rule *policy_license_denies(const policy *p, el_ecosystem eco, const char *name,
                                         const char *license);

/* policy_licenses_judge() :
 *  Whether the licenses rule judges versions of `eco` (PyPI, npm and conda when
 *  the policy has one): the caller must then read documents that declare
 *  licenses (npm's full packuments, not the abbreviated ones). */
bool policy_licenses_judge(const policy *p, el_ecosystem eco);


#endif

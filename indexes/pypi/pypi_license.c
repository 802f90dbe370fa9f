/* pypi_license.c — the license a distribution's core metadata declares, as
 * one text a license policy can judge (docs/policy.md, "licenses"). PEP
 * 639's License-Expression is an SPDX expression already; before it, the
 * Trove classifiers were the only structured form, so those that name one
 * SPDX license unambiguously are mapped here. A classifier that names a
 * family (`BSD License`, `GNU General Public License (GPL)`) maps to
 * nothing: guessing a member would admit what the policy may not. */
#include <string.h>

#include "pypi_index.h"

/* The part after "License :: " of a classifier, and its SPDX identifier
 * (the classifier list on pypi.org and SPDX's license list). */
static const struct {
    const char *classifier, *spdx;
} known[] = {
    { "OSI Approved :: MIT License", "MIT" },
    { "OSI Approved :: MIT No Attribution License (MIT-0)", "MIT-0" },
    { "OSI Approved :: Apache Software License", "Apache-2.0" },
    { "OSI Approved :: ISC License (ISCL)", "ISC" },
    { "OSI Approved :: Python Software Foundation License", "PSF-2.0" },
    { "OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)", "MPL-2.0" },
    { "OSI Approved :: GNU General Public License v2 (GPLv2)", "GPL-2.0-only" },
    { "OSI Approved :: GNU General Public License v2 or later (GPLv2+)", "GPL-2.0-or-later" },
    { "OSI Approved :: GNU General Public License v3 (GPLv3)", "GPL-3.0-only" },
    { "OSI Approved :: GNU General Public License v3 or later (GPLv3+)", "GPL-3.0-or-later" },
    { "OSI Approved :: GNU Lesser General Public License v2 (LGPLv2)", "LGPL-2.0-only" },
    { "OSI Approved :: GNU Lesser General Public License v2 or later (LGPLv2+)",
      "LGPL-2.0-or-later" },
    { "OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)", "LGPL-3.0-only" },
    { "OSI Approved :: GNU Lesser General Public License v3 or later (LGPLv3+)",
      "LGPL-3.0-or-later" },
    { "OSI Approved :: GNU Affero General Public License v3", "AGPL-3.0-only" },
    { "OSI Approved :: GNU Affero General Public License v3 or later (AGPLv3+)",
      "AGPL-3.0-or-later" },
    { "OSI Approved :: Boost Software License 1.0 (BSL-1.0)", "BSL-1.0" },
    { "OSI Approved :: Eclipse Public License 2.0 (EPL-2.0)", "EPL-2.0" },
    { "OSI Approved :: The Unlicense (Unlicense)", "Unlicense" },
    { "OSI Approved :: Universal Permissive License (UPL)", "UPL-1.0" },
    { "OSI Approved :: zlib/libpng License", "Zlib" },
    { "OSI Approved :: Historical Permission Notice and Disclaimer (HPND)", "HPND" },
    { "CC0 1.0 Universal (CC0 1.0) Public Domain Dedication", "CC0-1.0" },
};

static const char *spdx_of(const char *classifier)
{
    const char *rest = classifier + strlen("License :: ");
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(rest, known[i].classifier) == 0)
            return known[i].spdx;
    return NULL;
}

/* The classifiers as one expression, or NULL when any names no single
 * license (or there are none). */
static const char *from_classifiers(arena *a, const pypi_core_meta *m)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < m->n_license_classifiers; i++) {
        const char *id = spdx_of(m->license_classifiers[i]);
        if (!id) {
            sb_release(&sb);
            return NULL;
        }
        bool seen = false; /* the same license twice is once */
        for (size_t j = 0; j < i && !seen; j++)
            seen = spdx_of(m->license_classifiers[j]) == id;
        if (!seen)
            sb_addf(&sb, "%s%s", sb.len ? " AND " : "", id);
    }
    const char *out = sb.len ? arena_strdup(a, sb.buf) : NULL;
    sb_release(&sb);
    return out;
}

const char *pypi_core_meta_license(arena *a, const pypi_core_meta *m)
{
    if (m->license_expression)
        return m->license_expression;
    const char *c = from_classifiers(a, m);
    return c ? c : m->license;
}

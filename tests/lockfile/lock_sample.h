/* lock_sample.h — one small, realistic lock built by hand (PyPI with an
 * extra and a pre-release, npm with a nested copy, apt with an epoch): the
 * example in docs/lock-format.md and the starting point of the check tests.
 * Every hash and URL here is made up for the tests. sample_doc() is the
 * lock as format 2 writes it (no URL for PyPI and npm files, no PyPI sizes,
 * content identities); sample_doc_v1() the same answer as format 1 wrote it. */
#ifndef EL_TEST_LOCK_SAMPLE_H
#define EL_TEST_LOCK_SAMPLE_H

#include <stdbool.h>
#include <string.h>

#include "lock.h"

#define SAMPLE_HEX_A "4f1c7e2b9a0d3c6e5f8a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a"
#define SAMPLE_HEX_B "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
#define SAMPLE_HEX_C "5e1f0c9d8b7a69584736251403f2e1d0c9b8a79685746352413f2e1d0c9b8a79"
#define SAMPLE_HEX_D "a7c3e5f7091b3d5f7193b5d7f9e1c3a5b7d9f1e3c5a7b9d1f3e5c7a9b1d3f5e7"

static inline lock_package *sample_pkg(lock_doc *d, const char *eco, const char *name,
                                       const char *version, const char *source)
{
    lock_package *p = lock_doc_add_package(d);
    p->ecosystem = lock_strdup(d, eco);
    p->name = lock_strdup(d, name);
    p->version = lock_strdup(d, version);
    p->source = lock_strdup(d, source);
    return p;
}

static inline void sample_dep(lock_doc *d, lock_package *p, const char *name, const char *version,
                              const char *kind, const char *spec)
{
    lock_edge *e = lock_package_add_dep(d, p);
    e->ecosystem = p->ecosystem;
    e->name = lock_strdup(d, name);
    e->version = lock_strdup(d, version);
    e->kind = lock_strdup(d, kind);
    e->spec = lock_strdup(d, spec);
}

static inline void sample_art(lock_doc *d, lock_package *p, const char *file, const char *url,
                              const char *hash, uint64_t size)
{
    lock_artifact *a = lock_package_add_artifact(d, p);
    bool v1 = d->format_version == 1, deb = strcmp(p->ecosystem, "deb") == 0;
    a->file = lock_strdup(d, file);
    a->url = v1 || deb ? lock_strdup(d, url) : NULL;
    a->hash = lock_strdup(d, hash);
    a->size = v1 || strcmp(p->ecosystem, "pypi") != 0 ? size : 0;
}

/* An index document the answer was read from: every package outside the
 * base has one among the inputs (lock_unindexed()). */
static inline void sample_index(lock_doc *d, const char *eco, const char *url, const char *etag,
                                const char *hex)
{
    lock_input *in = lock_doc_add_input(d);
    in->ecosystem = lock_strdup(d, eco);
    in->url = lock_strdup(d, url);
    in->identity = d->format_version == 1 ? lock_strdup(d, etag)
                                          : lock_strdup(d, hex);
}

static inline lock_doc *sample_doc_format(int format)
{
    lock_doc *d = lock_doc_new();
    d->format_version = format;
    bool v1 = format == 1;
    const char *pypi = "https://pypi.org/simple";
    const char *npm = "https://registry.npmjs.org";
    const char *deb = "https://snapshot.debian.org/archive/debian/20260914T150000Z/ bookworm/main";
    d->spec_digest = "sha256:" SAMPLE_HEX_A;
    d->python_version = "3.13.7";
    d->platform = "manylinux_2_36_x86_64";
    d->arch = "amd64";
    d->base_ref = "datalayer/python-cpu";
    d->base_channel = "2026.09";
    lock_strv_add(d, &d->variants, "e2b");
    lock_strv_add(d, &d->variants, "datalayer");
    d->base_digests = arena_alloc(d->mem, 3 * sizeof *d->base_digests);
    d->base_digests[0] = NULL; /* e2b: unpublished */
    d->base_digests[1] = "sha256:" SAMPLE_HEX_B;
    d->exclude_newer = "2026-09-01T00:00:00Z";
    d->prereleases = "if-necessary-or-explicit";

    lock_input *in = lock_doc_add_input(d);
    in->ecosystem = "pypi";
    in->url = "https://pypi.org/simple/numpy/";
    in->identity = v1 ? "W/\"5e1f-numpy\"" : "sha256:" SAMPLE_HEX_C;
    in = lock_doc_add_input(d);
    in->ecosystem = "deb";
    in->url = "https://snapshot.debian.org/archive/debian/20260914T150000Z/dists/bookworm/Release";
    in->identity = "sha256:" SAMPLE_HEX_B;
    in->modified = "Sat, 13 Sep 2026 09:12:44 UTC";
    in = lock_doc_add_input(d);
    in->ecosystem = "npm";
    in->url = "https://registry.npmjs.org/zod";
    in->identity = v1 ? "\"a7c3\"" : "sha256:" SAMPLE_HEX_D;
    in->modified = "2026-08-30T11:02:13.512Z";
    sample_index(d, "pypi", "https://pypi.org/simple/pandas/", "W/\"5e20-pandas\"",
                 "sha256:" SAMPLE_HEX_D);
    sample_index(d, "pypi", "https://pypi.org/simple/requests/", "W/\"5e21-requests\"",
                 "sha256:" SAMPLE_HEX_A);
    sample_index(d, "pypi", "https://pypi.org/simple/pysocks/", "W/\"5e22-pysocks\"",
                 "sha256:" SAMPLE_HEX_B);
    sample_index(d, "npm", "https://registry.npmjs.org/wrap-ansi", "\"a7c4\"",
                 "sha256:" SAMPLE_HEX_C);
    sample_index(d, "npm", "https://registry.npmjs.org/ansi-styles", "\"a7c5\"",
                 "sha256:" SAMPLE_HEX_A);

    lock_package *p = sample_pkg(d, "pypi", "pandas", "2.2.3", pypi);
    lock_strv_add(d, &p->requested_by, "spec");
    sample_dep(d, p, "numpy", "1.26.4", "requires", "numpy>=1.22.4; python_version < \"3.11\"");
    sample_dep(d, p, "numpy", "1.26.4", "requires", "numpy>=1.23.2; python_version == \"3.11\"");
    sample_dep(d, p, "numpy", "1.26.4", "requires", "numpy>=1.26.0; python_version >= \"3.12\"");
    sample_art(d, p, "pandas-2.2.3-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "https://files.pythonhosted.org/packages/pandas-2.2.3-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "sha256:" SAMPLE_HEX_A, 12690000);
    p = sample_pkg(d, "pypi", "numpy", "1.26.4", pypi);
    lock_strv_add(d, &p->requested_by, "pypi:pandas@2.2.3");
    lock_strv_add(d, &p->requested_by, "spec");
    sample_art(d, p, "numpy-1.26.4-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "https://files.pythonhosted.org/packages/numpy-1.26.4-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
               "sha256:" SAMPLE_HEX_B, 18200000);
    p = sample_pkg(d, "pypi", "requests", "2.32.3", pypi);
    lock_strv_add(d, &p->extras, "socks");
    lock_strv_add(d, &p->requested_by, "spec");
    sample_dep(d, p, "pysocks", "1.7.1", "requires", "PySocks!=1.5.7,>=1.5.6; extra == \"socks\"");
    sample_art(d, p, "requests-2.32.3-py3-none-any.whl",
               "https://files.pythonhosted.org/packages/requests-2.32.3-py3-none-any.whl",
               "sha256:" SAMPLE_HEX_A, 64928);
    p = sample_pkg(d, "pypi", "pysocks", "1.7.1", pypi);
    lock_strv_add(d, &p->requested_by, "pypi:requests@2.32.3");
    sample_art(d, p, "PySocks-1.7.1-py3-none-any.whl",
               "https://files.pythonhosted.org/packages/PySocks-1.7.1-py3-none-any.whl",
               "sha256:" SAMPLE_HEX_B, 16725);
    p = sample_pkg(d, "pypi", "ipykernel", "7.0.0a1", pypi);
    lock_strv_add(d, &p->requested_by, "protected");
    p->installed_in_base = true;

    p = sample_pkg(d, "npm", "zod", "3.23.8", npm);
    p->path = "node_modules/zod";
    lock_strv_add(d, &p->requested_by, "spec");
    sample_art(d, p, "zod-3.23.8.tgz", "https://registry.npmjs.org/zod/-/zod-3.23.8.tgz",
               "sha512-XBx9AXhXktjUqnepgTiE5flcKIYWi/rme0Eaj+5Y0lftuGBq+jyRu/md4WnuxqgP1ubdpNCsYEYPxrzVHD8d6g==",
               699056);
    p = sample_pkg(d, "npm", "wrap-ansi", "7.0.0", npm);
    p->path = "node_modules/wrap-ansi";
    lock_strv_add(d, &p->requested_by, "spec");
    sample_dep(d, p, "ansi-styles", "4.3.0", "dependency", "^4.0.0");
    sample_art(d, p, "wrap-ansi-7.0.0.tgz", "https://registry.npmjs.org/wrap-ansi/-/wrap-ansi-7.0.0.tgz",
               "sha512-YVGIj2kamLSTxw6NsZjoBxfSwsn0ycdesmc4p+Q21c5zPuZ1pl+NfxVdxPtdHvmNVOQ6XSYG4AUtyt/Fi7D16Q==",
               4960);
    p = sample_pkg(d, "npm", "ansi-styles", "4.3.0", npm);
    p->path = "node_modules/wrap-ansi/node_modules/ansi-styles";
    lock_strv_add(d, &p->requested_by, "npm:wrap-ansi@7.0.0");
    sample_art(d, p, "ansi-styles-4.3.0.tgz", "https://registry.npmjs.org/ansi-styles/-/ansi-styles-4.3.0.tgz",
               "sha512-zbB9rCJAT1rbjiVDb2hqKFHNYLxgtk8NURxZ3IZwD3F6NtxbXZQCnnSi1Lkx+IDohdPlFp222wVALIheZJQSEg==",
               5383);
    p = sample_pkg(d, "npm", "ansi-styles", "6.2.1", npm);
    p->path = "node_modules/ansi-styles";
    lock_strv_add(d, &p->requested_by, "spec");
    sample_art(d, p, "ansi-styles-6.2.1.tgz", "https://registry.npmjs.org/ansi-styles/-/ansi-styles-6.2.1.tgz",
               "sha512-bN798gFfQX+viw3R7yrGWRqnrN2oRkEkUjjl4JNn4E8GxxbjtG3FbrEIIY3l8/hrwUwIeCZvi4QuOTP4MErVug==",
               7641);

    p = sample_pkg(d, "deb", "gdal-bin", "3.6.2+dfsg-1+b2", deb);
    p->arch = "amd64";
    lock_strv_add(d, &p->requested_by, "spec");
    sample_dep(d, p, "libc6", "2.36-9+deb12u8", "depends", "libc6 (>= 2.34)");
    sample_dep(d, p, "libgdal32", "3.6.2+dfsg-1+b2", "depends", "libgdal32 (>= 3.6.2)");
    sample_art(d, p, "gdal-bin_3.6.2+dfsg-1+b2_amd64.deb",
               "https://snapshot.debian.org/archive/debian/20260914T150000Z/pool/main/g/gdal/gdal-bin_3.6.2+dfsg-1+b2_amd64.deb",
               "sha256:" SAMPLE_HEX_A, 480000);
    p = sample_pkg(d, "deb", "libgdal32", "3.6.2+dfsg-1+b2", deb);
    p->arch = "amd64";
    lock_strv_add(d, &p->requested_by, "deb:gdal-bin@3.6.2+dfsg-1+b2");
    sample_dep(d, p, "libc6", "2.36-9+deb12u8", "depends", "libc6 (>= 2.35)");
    sample_art(d, p, "libgdal32_3.6.2+dfsg-1+b2_amd64.deb",
               "https://snapshot.debian.org/archive/debian/20260914T150000Z/pool/main/g/gdal/libgdal32_3.6.2+dfsg-1+b2_amd64.deb",
               "sha256:" SAMPLE_HEX_B, 7200000);
    p = sample_pkg(d, "deb", "libc6", "2.36-9+deb12u8", deb);
    p->arch = "amd64";
    p->installed_in_base = true;
    lock_strv_add(d, &p->requested_by, "deb:gdal-bin@3.6.2+dfsg-1+b2");
    lock_strv_add(d, &p->requested_by, "deb:libgdal32@3.6.2+dfsg-1+b2");
    p = sample_pkg(d, "deb", "tzdata", "1:2026a-0+deb12u1", deb);
    p->arch = "all";
    lock_strv_add(d, &p->requested_by, "spec");
    sample_art(d, p, "tzdata_2026a-0+deb12u1_all.deb",
               "https://snapshot.debian.org/archive/debian/20260914T150000Z/pool/main/t/tzdata/tzdata_2026a-0+deb12u1_all.deb",
               "sha256:" SAMPLE_HEX_A, 256000);
    return d;
}

static inline lock_doc *sample_doc(void) { return sample_doc_format(LOCK_FORMAT_VERSION); }
static inline lock_doc *sample_doc_v1(void) { return sample_doc_format(1); }

#endif

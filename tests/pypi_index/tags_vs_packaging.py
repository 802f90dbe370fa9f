#!/usr/bin/python3
"""Cross-check of the target tag list against Python's packaging (23.0).

    tags_vs_packaging.py TOOL

For each target (CPython version, platform), asks packaging for its
sys_tags()-equivalent list — cpython_tags() then compatible_tags(), with
packaging's own Linux platform list computed for a pretended glibc or musl
version (its version probes are replaced; linux_ARCH is removed, since an
index never serves such wheels) — and compares it, order included, with
`TOOL --print-tags`. Run with /usr/bin/python3 (Debian's packaging).
"""
import subprocess
import sys

try:
    from packaging import tags, _manylinux, _musllinux
except ImportError:
    print("packaging not available: skipped")
    sys.exit(77)

TARGETS = [
    ("3.13", "manylinux_2_36_x86_64"),
    ("3.13", "manylinux_2_36_aarch64"),
    ("3.12", "manylinux_2_17_x86_64"),
    ("3.9", "manylinux_2_28_aarch64"),
    ("3.13", "musllinux_1_2_x86_64"),
    ("3.11", "musllinux_1_1_aarch64"),
    ("3.14", "manylinux_2_39_x86_64"),
]


def packaging_tags(py, plat):
    major, minor = (int(x) for x in py.split("."))
    musl = plat.startswith("musllinux_")
    parts = plat.split("_")
    libc = (int(parts[1]), int(parts[2]))
    arch = "_".join(parts[3:])
    _manylinux._have_compatible_abi = lambda executable, a: True
    if musl:
        _manylinux._get_glibc_version = lambda: (-1, -1)
        _musllinux._get_musl_version = lambda executable: _musllinux._MuslVersion(*libc)
        plats = list(_musllinux.platform_tags(arch))
    else:
        _manylinux._get_glibc_version = lambda: libc
        plats = list(_manylinux.platform_tags("linux_" + arch, arch))
    interp = "cp%d%d" % (major, minor)
    out = list(tags.cpython_tags((major, minor), [interp], plats))
    out += list(tags.compatible_tags((major, minor), interp, plats))
    return [str(t) for t in out]


def main():
    tool = sys.argv[1]
    bad = 0
    for py, plat in TARGETS:
        want = packaging_tags(py, plat)
        got = subprocess.run([tool, "--print-tags", "--python", py, "--platform", plat],
                             capture_output=True, text=True, check=True).stdout.split()
        if got != want:
            bad += 1
            print("MISMATCH for", py, plat, "(%d vs %d tags)" % (len(got), len(want)))
            for i, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    print("  first difference at %d: envlock %s, packaging %s" % (i, g, w))
                    break
        else:
            print("ok", py, plat, len(got), "tags")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

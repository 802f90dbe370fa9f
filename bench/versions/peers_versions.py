#!/usr/bin/python3
"""peers_versions.py DIR — the same work as bench_versions.c through Python's
packaging (PyPI) and python3-apt's apt_pkg (Debian). Same output format."""
import functools
import sys
import time


def lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def main():
    d = sys.argv[1]
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    vs, rs = lines(f"{d}/pypi.txt"), lines(f"{d}/ranges-pypi.txt")
    t0 = time.perf_counter()
    parsed = sorted(Version(v) for v in vs)
    kept = sum(len(list(SpecifierSet(r).filter(vs))) for r in rs)
    print(f"pypi packaging {1e3 * (time.perf_counter() - t0):.1f} {kept}")
    assert len(parsed) == len(vs)

    try:
        import apt_pkg
    except ImportError:
        return
    apt_pkg.init_system()
    vs, rs = lines(f"{d}/deb.txt"), lines(f"{d}/ranges-deb.txt")
    t0 = time.perf_counter()
    sorted(vs, key=functools.cmp_to_key(apt_pkg.version_compare))
    kept = 0
    for r in rs:
        op, ver = r.split()
        kept += sum(1 for v in vs if apt_pkg.check_dep(v, op, ver))
    print(f"deb apt_pkg {1e3 * (time.perf_counter() - t0):.1f} {kept}")
    t0 = time.perf_counter()
    sorted(vs, key=functools.cmp_to_key(apt_pkg.version_compare))
    print(f"deb-sort apt_pkg {1e3 * (time.perf_counter() - t0):.1f} {len(vs)}")


main()

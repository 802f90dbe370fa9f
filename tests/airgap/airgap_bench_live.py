#!/usr/bin/env python3
"""airgap_bench_live.py ENVLOCK — the combined bench workload
(bench/resolve/specs/combined.yaml on bench/resolve/bases.yaml: the "Data
Science" template's Python packages from a fixture PyPI mirror, six npm
packages from the live npm registry, eight apt packages from live Debian
bookworm main) resolved online, its cache exported, and re-resolved
--offline inside a fresh network namespace with only loopback: the same
bytes, and `check --offline` accepts the lock (as airgap_demo.py does for
the demo; the same `site` and `bare` cases).

Opt-in: runs only with ENVLOCK_LIVE=1 and when registry.npmjs.org and
deb.debian.org answer; otherwise it skips (77) saying why, so the default
test run needs no network. It also skips when no network namespace can be
made."""

import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, HERE)
import airgap_demo as ad  # noqa: E402  the namespace re-resolution and its judging
import build_mirror  # noqa: E402
import netns  # noqa: E402
import servers  # noqa: E402

BENCH = os.path.join(ROOT, "bench", "resolve")
SPEC = os.path.join(BENCH, "specs", "combined.yaml")
BASES = os.path.join(BENCH, "bases.yaml")
SCENARIOS = [os.path.join(ROOT, "corpus", "scenarios", "bench-data-science.scn"),
             os.path.join(BENCH, "protected.scn")]
LIVE = ["https://registry.npmjs.org/zod", "http://deb.debian.org/debian/dists/bookworm/InRelease"]


def unreachable():
    """The first live index that does not answer, with why; None if all do."""
    for url in LIVE:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10) as r:
                if r.status != 200:
                    return "%s answered %d" % (url, r.status)
        except OSError as e:
            return "%s: %s" % (url, e)
    return None


def online(el, work):
    """The fixture PyPI behind nginx, npm and apt live: resolve, export."""
    build_mirror.build(SCENARIOS, os.path.join(work, "mirror"), apt=False)
    ng = servers.Nginx(os.path.join(work, "mirror"), work=os.path.join(work, "nginx"))
    ng.start()
    try:
        m = ["--mirror", "https://pypi.org=%s/pypi/pypi" % ng.url]
        r = ad.run(el, ["--cache-dir", os.path.join(work, "c-online")] + m +
                   ["resolve", SPEC, "--bases", BASES, "-o", os.path.join(work, "online.lock")])
    finally:
        ng.stop()
    if r.returncode != 0:
        ad.fail("online resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    print(r.stdout.strip().splitlines()[-1])
    r = ad.run(el, ["--cache-dir", os.path.join(work, "c-online"), "cache", "export",
                    os.path.join(work, "cache.tar.zst")])
    if r.returncode != 0:
        ad.fail("cache export exited %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    return m


def main():
    el = os.path.abspath(sys.argv[1])
    if os.environ.get("ENVLOCK_LIVE") != "1":
        print("skip: set ENVLOCK_LIVE=1 to run against the live npm registry and Debian")
        return netns.SKIP
    why = unreachable()
    if why:
        print("skip: a live index is unreachable: " + why)
        return netns.SKIP
    prefix, why = netns.namespace_prefix()
    if prefix is None:
        print("skip: no network namespace can be made here: " + why)
        return netns.SKIP
    work = tempfile.mkdtemp(prefix="envlock-airgap-bench-")
    try:
        m = online(el, work)
        if m is None:
            return 1
        if b"127.0.0.1" in open(os.path.join(work, "online.lock"), "rb").read():
            ad.fail("the online lock names the mirror (127.0.0.1)")
        ad.reresolve(el, work, prefix, m, SPEC, BASES)
    finally:
        if os.environ.get("AIRGAP_KEEP"):
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if ad.failures else 0


if __name__ == "__main__":
    sys.exit(main())

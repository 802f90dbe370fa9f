#!/usr/bin/env python3
"""airgap_bench_bundle_live.py ENVLOCK — the combined bench workload
(bench/resolve/specs/combined.yaml on bench/resolve/bases.yaml: the "Data
Science" template's Python packages from a fixture PyPI mirror behind nginx,
six npm packages from the live npm registry, eight apt packages from live
Debian bookworm main) resolved online, bundled with `envlock bundle`
(--base-url http://127.0.0.1:8080), and re-resolved inside a fresh network
namespace with only loopback from the bundle, served there by nginx with
the server block of its README, with the README's --mirror lines and a
fresh cache: the same bytes, and `check --offline` with that cache accepts
the lock (airgap_demo_bundle.py's namespace steps and judging).

Prints how long each phase took and how big the bundle is (figures for
the README; nothing timed is asserted).

Opt-in: runs only with ENVLOCK_LIVE=1 and when registry.npmjs.org and
deb.debian.org answer (airgap_bench_live.py's probe); otherwise it skips
(77) saying why. It also skips when no network namespace can be made."""

import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, HERE)
import airgap_bench_live as abl  # noqa: E402  the workload, its fixture PyPI, the live probe
import airgap_demo as ad  # noqa: E402
import airgap_demo_bundle as adb  # noqa: E402  bundle(), the namespace steps and judging
import build_mirror  # noqa: E402
import bundle_site  # noqa: E402
import netns  # noqa: E402
import servers  # noqa: E402


def tree_size(d):
    n = size = 0
    for dp, _dn, fn in os.walk(d):
        for f in fn:
            n += 1
            size += os.path.getsize(os.path.join(dp, f))
    return n, size


def online(el, work, times):
    """The fixture PyPI behind nginx, npm and apt live: resolve, then bundle
    (nginx still up). True when both worked."""
    build_mirror.build(abl.SCENARIOS, os.path.join(work, "mirror"), apt=False)
    ng = servers.Nginx(os.path.join(work, "mirror"), work=os.path.join(work, "nginx"))
    ng.start()
    try:
        m = ["--mirror", "https://pypi.org=%s/pypi/pypi" % ng.url]
        cache = os.path.join(work, "c-online")
        lock = os.path.join(work, "online.lock")
        t = time.monotonic()
        r = ad.run(el, ["--cache-dir", cache] + m + ["resolve", abl.SPEC, "--bases", abl.BASES, "-o", lock])
        times["online resolve (cold cache)"] = time.monotonic() - t
        if r.returncode != 0:
            ad.fail("online resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
            return None
        print(r.stdout.strip().splitlines()[-1])
        t = time.monotonic()
        j = adb.bundle(el, work, cache, m, lock)
        times["bundle (artifacts fetched, pages from the cache)"] = time.monotonic() - t
        return j
    finally:
        ng.stop()


def main():
    el = os.path.abspath(sys.argv[1])
    if os.environ.get("ENVLOCK_LIVE") != "1":
        print("skip: set ENVLOCK_LIVE=1 to run against the live npm registry and Debian")
        return netns.SKIP
    why = abl.unreachable()
    if why:
        print("skip: a live index is unreachable: " + why)
        return netns.SKIP
    prefix, why = netns.namespace_prefix()
    if prefix is None:
        print("skip: no network namespace can be made here: " + why)
        return netns.SKIP
    work = tempfile.mkdtemp(prefix="envlock-airgap-bench-bundle-")
    times = {}
    try:
        j = online(el, work, times)
        if j is None:
            return 1
        bdir = os.path.join(work, "bundle")
        m = bundle_site.readme_mirrors(bdir)
        if sorted(mm["ecosystem"] for mm in j["mirrors"]) != ["deb", "npm", "pypi"] or len(m) != 6:
            ad.fail("the bundle has mirrors %s and README lines %s; the workload needs PyPI, npm and apt"
                    % (json.dumps(j["mirrors"]), m))
            return 1
        t = time.monotonic()
        steps = adb.in_namespace(work, prefix, adb.site_steps(el, work, abl.SPEC, abl.BASES, m))
        times["in the namespace: resolve from the bundle (fresh cache) + check --offline"] = time.monotonic() - t
        if steps is not None:
            adb.judge_site(work, steps)
        n, size = tree_size(bdir)
        print("bundle: %d artifacts, %d files, %.1f MiB (%d bytes); fetched %s" %
              (j["artifacts"], n, size / 1048576.0, size, json.dumps(j.get("fetched"))))
        print("lock: %d bytes" % os.path.getsize(os.path.join(work, "online.lock")))
        for k, v in times.items():
            print("time: %s: %.1f s" % (k, v))
    finally:
        if os.environ.get("AIRGAP_KEEP"):
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if ad.failures else 0


if __name__ == "__main__":
    sys.exit(main())

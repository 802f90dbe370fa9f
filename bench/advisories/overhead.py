#!/usr/bin/env python3
"""overhead.py ENVLOCK [N_PYPI N_NPM] — what an advisory snapshot costs a
warm resolve (issue 22, "Tests and figures").

The workload is tests/advisories' PyPI fixture (app and requests on a local
mirror, tests/advisories/resolve_advisories.py), resolved warm (the same
cache every run, --upgrade so the previous lock is no preference) three ways:
without advisories, with the three real records of tests/advisories/records,
and with a snapshot the size of OSV's public PyPI and npm sets (default
18,000 and 22,000 records), written as OSV publishes them: one all.zip per
ecosystem. Those records are the real GHSA-9wx4-h78v-vm56 (PyPI) and
GHSA-35jh-r3h4-6jhm (npm) with a fresh id, alias and package name each, so
they have the real records' size and shape; one in 9,000 names repeats.
Prints best and median of BENCH_RUNS (default 5) interleaved rounds of wall
times per variant, and the overheads. Not part of ctest."""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "advisories"))
import resolve_advisories as ra  # noqa: E402


def snapshot(out, n_pypi, n_npm):
    for eco, rec, n in (("PyPI", "PyPI/GHSA-9wx4-h78v-vm56.json", n_pypi),
                        ("npm", "npm/GHSA-35jh-r3h4-6jhm.json", n_npm)):
        with open(os.path.join(ra.RECORDS, rec)) as f:
            tmpl = json.load(f)
        os.makedirs(os.path.join(out, eco))
        with zipfile.ZipFile(os.path.join(out, eco, "all.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for i in range(n):
                r = json.loads(json.dumps(tmpl))
                r["id"] = "GHSA-bnch-%s-%05d" % (eco.lower(), i)
                r["aliases"] = ["CVE-2099-%05d" % i]
                for a in r["affected"]:
                    a["package"]["name"] = "bench-%s-%d" % (eco.lower(), i % 9000)
                z.writestr(r["id"] + ".json", json.dumps(r, indent=2))


def main():
    envlock = os.path.abspath(sys.argv[1])
    n_pypi, n_npm = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (18000, 22000)
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    work = tempfile.mkdtemp(prefix="envlock-bench-adv-")
    snap = os.path.join(work, "snap")
    snapshot(snap, n_pypi, n_npm)
    e = ra.Env(envlock, ra.PYPI, "python", ["app"], work, "pypi")
    lock = os.path.join(e.work, "w", "envlock.lock")
    os.makedirs(os.path.dirname(lock))

    def run(*flags):
        cmd = [envlock, "--json", "--cache-dir", os.path.join(e.work, "cache")] + \
            ra.rs.mirror_flags(e.man, e.mdir) + \
            ["resolve", os.path.join(e.work, "spec.yaml"), "-o", lock, "--upgrade",
             "--bases", os.path.join(e.mdir + ".catalog", "bases.yaml")] + list(flags)
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit("resolve failed: %s %s" % (p.stdout, p.stderr))
        return dt

    variants = (("plain", ()), ("3 real records", ("--advisories", ra.RECORDS)),
                ("%d + %d records" % (n_pypi, n_npm), ("--advisories", snap)))
    for _label, flags in variants:
        run(*flags)  # warm the cache (and the page cache) first
    # interleaved rounds: a load spike on a shared machine hits every
    # variant alike instead of one
    times = {label: [] for label, _flags in variants}
    for _ in range(runs):
        for label, flags in variants:
            times[label].append(run(*flags))
    base_best = base_med = None
    print("| variant | best | median | overhead (best) | overhead (median) |\n|---|---|---|---|---|")
    for label, _flags in variants:
        best, med = min(times[label]) * 1000, statistics.median(times[label]) * 1000
        if base_best is None:
            base_best, base_med = best, med
            print("| %s | %.0f ms | %.0f ms | | |" % (label, best, med))
        else:
            print("| %s | %.0f ms | %.0f ms | %+.0f%% | %+.0f%% |" % (
                label, best, med, (best / base_best - 1) * 100, (med / base_med - 1) * 100))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Differential test of advisories/' range evaluation.

Generates versions and OSV affected entries (ECOSYSTEM and SEMVER ranges,
introduced/fixed/last_affected/limit events, explicit versions lists) for
PyPI, npm and Debian:12, orders the versions with an implementation that is
not envlock's (Python's packaging, node's semver package, dpkg
--compare-versions), evaluates each entry by the osv-schema algorithm over
that order, and compares with what osv_driver answers.

Usage: osv_diff.py OSV_DRIVER NODE_MODULES [SEED]
"""
import functools
import json
import os
import random
import subprocess
import sys

from packaging.version import Version

N_VERSIONS = 28
N_CASES = 700


def pypi_versions(rng):
    out = set()
    while len(out) < N_VERSIONS:
        v = "%d.%d" % (rng.randint(0, 2), rng.randint(0, 3))
        if rng.random() < 0.5:
            v += ".%d" % rng.randint(0, 2)
        r = rng.random()
        if r < 0.2:
            v += rng.choice(["a", "b", "rc"]) + str(rng.randint(0, 2))
        elif r < 0.3:
            v += ".post%d" % rng.randint(0, 1)
        elif r < 0.4:
            v += ".dev%d" % rng.randint(0, 1)
        if rng.random() < 0.05:
            v = "1!" + v
        out.add(v)
    return sorted(out)


def npm_versions(rng):
    out = set()
    while len(out) < N_VERSIONS:
        v = "%d.%d.%d" % (rng.randint(0, 2), rng.randint(0, 3), rng.randint(0, 2))
        r = rng.random()
        if r < 0.3:
            v += "-" + rng.choice(["alpha", "beta", "rc", "0", "alpha.1", "beta.2", "rc.1"])
        out.add(v)
    return sorted(out)


def deb_versions(rng):
    out = set()
    while len(out) < N_VERSIONS:
        v = "%d.%d" % (rng.randint(1, 2), rng.randint(0, 3))
        if rng.random() < 0.2:
            v += "~rc%d" % rng.randint(1, 2)
        v += "-%d" % rng.randint(1, 3)
        if rng.random() < 0.3:
            v += "+deb12u%d" % rng.randint(1, 3)
        if rng.random() < 0.05:
            v = "1:" + v
        out.add(v)
    return sorted(out)


def dpkg_cmp(a, b):
    if a == b:
        return 0
    for op, res in (("lt", -1), ("eq", 0)):
        if subprocess.run(["dpkg", "--compare-versions", a, op, b]).returncode == 0:
            return res
    return 1


def ranks_by(versions, cmp):
    """Rank each version by `cmp`, equal versions sharing a rank."""
    order = sorted(versions, key=functools.cmp_to_key(cmp))
    ranks, r = {}, 0
    for i, v in enumerate(order):
        if i and cmp(order[i - 1], v) != 0:
            r += 1
        ranks[v] = r
    return ranks


def npm_ranks(versions, modules):
    js = ("const s=require(require('path').join(process.argv[1],'semver'));"
          "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));"
          "const o=v.slice().sort((a,b)=>s.compare(a,b));const r={};let k=0;"
          "o.forEach((x,i)=>{if(i&&s.compare(o[i-1],x)!==0)k++;r[x]=k});"
          "console.log(JSON.stringify(r))")
    for d in (modules, "/usr/share/nodejs"):
        if os.path.isdir(os.path.join(d, "semver")):
            # semver's own dependencies (lru-cache) sit beside it: a node that
            # does not search Debian's /usr/share/nodejs by itself is told to
            env = dict(os.environ, NODE_PATH=os.path.abspath(d))
            out = subprocess.run(["node", "-e", js, os.path.abspath(d)], input=json.dumps(versions),
                                 capture_output=True, text=True, check=True, env=env).stdout
            return json.loads(out)
    sys.exit("node's semver package is in neither %s nor /usr/share/nodejs" % modules)


KIND_ORDER = {"introduced": 0, "fixed": 1, "last_affected": 2}


def included(rank, events, ranks):
    """The osv-schema walk over events sorted by version (ties in the order
    introduced, fixed, last_affected), then the limit check."""
    def key(e):
        k, v = next(iter(e.items()))
        return (-1 if (k == "introduced" and v == "0") else ranks[v], KIND_ORDER.get(k, 3))
    vulnerable = False
    for e in sorted((e for e in events if "limit" not in e), key=key):
        k, v = next(iter(e.items()))
        r = key(e)[0]
        if k == "introduced" and rank >= r:
            vulnerable = True
        elif k == "fixed" and rank >= r:
            vulnerable = False
        elif k == "last_affected" and rank > r:
            vulnerable = False
    limits = [e["limit"] for e in events if "limit" in e]
    if vulnerable and limits:
        vulnerable = any(rank < ranks[lim] for lim in limits)
    return vulnerable


def gen_range(rng, versions, rtype):
    events = [{"introduced": "0" if rng.random() < 0.3 else rng.choice(versions)}]
    for _ in range(rng.randint(0, 4)):
        kind = rng.choice(["introduced", "fixed", "fixed", "last_affected", "limit"])
        events.append({kind: rng.choice(versions)})
    rng.shuffle(events)
    return {"type": rtype, "events": events}


def gen_case(rng, eco, versions, ranks):
    ranges = [gen_range(rng, versions, "SEMVER" if eco == "npm" and rng.random() < 0.3
                        else "ECOSYSTEM") for _ in range(rng.choice([0, 1, 1, 1, 2]))]
    listed = rng.sample(versions, rng.randint(0, 3)) if rng.random() < 0.3 or not ranges else []
    if not ranges and not listed:
        listed = [rng.choice(versions)]
    probe = rng.choice(versions)
    expect = any(included(ranks[probe], r["events"], ranks) for r in ranges) or \
        any(ranks[v] == ranks[probe] for v in listed)
    aff = {"package": {"ecosystem": eco, "name": "pkg"}, "ranges": ranges}
    if listed:
        aff["versions"] = listed
    rec = {"id": "TEST-1", "modified": "2024-01-01T00:00:00Z", "affected": [aff]}
    return probe, rec, expect


def main():
    driver, modules = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261205
    rng = random.Random(seed)
    setups = []
    v = pypi_versions(rng)
    setups.append(("PyPI", v, ranks_by(v, lambda a, b: (Version(a) > Version(b)) - (Version(a) < Version(b)))))
    v = npm_versions(rng)
    setups.append(("npm", v, npm_ranks(v, modules)))
    v = deb_versions(rng)
    setups.append(("Debian:12", v, ranks_by(v, dpkg_cmp)))
    failures, total = 0, 0
    for eco, versions, ranks in setups:
        cases = [gen_case(rng, eco, versions, ranks) for _ in range(N_CASES)]
        text = "".join("%s\t%s\n" % (p, json.dumps(r)) for p, r, _ in cases)
        out = subprocess.run([driver, "eval"], input=text, capture_output=True, text=True,
                             check=True).stdout.splitlines()
        assert len(out) == len(cases), (eco, len(out))
        for (probe, rec, expect), got in zip(cases, out):
            total += 1
            if got != ("1" if expect else "0"):
                failures += 1
                if failures <= 10:
                    print("MISMATCH %s %s: want %d got %s\n  %s" % (eco, probe, expect, got,
                                                                    json.dumps(rec["affected"])))
        hits = sum(1 for c in cases if c[2])
        print("%s: %d cases, %d affected, %d versions" % (eco, len(cases), hits, len(versions)))
    print("%d passed, %d failed" % (total - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

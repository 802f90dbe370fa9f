#!/usr/bin/env python3
"""run.py ENVLOCK [RECORDS] [RUNS] — conda repodata load and solve, envlock
beside rattler (issue 23's bench).

Two channels, each served over http on 127.0.0.1 by Python's http.server:
  slice  the recorded data-science slice of tests/resolve_cli/conda/
         datascience (350 real conda-forge records);
  large  that slice plus RECORDS (default 300000) made-up linux-64 records,
         about conda-forge's linux-64 size: 30,000 names of ten records
         each (five versions, two Python builds), each depending on up to
         three other made-up names with a range, on python and libgcc,
         with sha256, md5, size, timestamp and license like a real record.
The workload on both: pandas, scipy, matplotlib-base, scikit-learn and pip
on Python 3.12 (rattler's answer: tests/conda/solve case cfds-py312), the
same answer on both channels since no real record depends on a made-up one.

Per channel and round, interleaved: envlock cold (an empty --cache-dir:
fetch, parse, write the parsed form, solve, write the lock), envlock warm
(the same cache: the parsed form read back), rattler cold (simpleSolve of
@conda-org/rattler with an empty cache directory: fetch, parse, solve)
and rattler warm (its cache kept). Wall time and peak RSS from GNU time.
Both answers are checked to be the same package set each run.

Needs node and @conda-org/rattler under build/tools/rattler/node_modules
(scripts/install-deps puts it there) or $RATTLER_MODULES, else envlock's
figures only."""

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import servers  # noqa: E402
import specs  # noqa: E402

SLICE = os.path.join(ROOT, "tests", "resolve_cli", "conda", "datascience")
MODULES = os.environ.get("RATTLER_MODULES",
                         os.path.join(ROOT, "build", "tools", "rattler", "node_modules"))
DEPS = ["python=3.12", "pandas", "scipy", "matplotlib-base", "scikit-learn", "pip"]
VIRTUAL = [("__glibc", "2.36", "0"), ("__linux", "0", "0"), ("__unix", "0", "0"),
           ("__archspec", "1", "x86_64")]


def made_up(n, rnd):
    """n made-up linux-64 records, deterministic for a seed."""
    names = ["syn-%05d" % i for i in range(n // 10)]
    recs = {}
    for i, name in enumerate(names):
        deps = sorted({names[rnd.randrange(i + 1, len(names))]
                       for _ in range(rnd.randint(0, 3)) if i + 1 < len(names)})
        for v in range(5):
            version = "%d.%d.%d" % (1 + v // 3, v % 3, rnd.randint(0, 9))
            for py in ("311", "312"):
                build = "py%sh%08x_0" % (py, rnd.getrandbits(32))
                fn = "%s-%s-%s.conda" % (name, version, build)
                recs[fn] = {
                    "build": build, "build_number": 0, "name": name, "version": version,
                    "depends": ["libgcc >=13", "python >=3.%s,<3.%d.0a0" % (py[1:], int(py[1:]) + 1),
                                "python_abi 3.%s.* *_cp%s" % (py[1:], py)] +
                               ["%s >=1.0,<3" % d for d in deps],
                    "license": "MIT", "md5": hashlib.md5(fn.encode()).hexdigest(),
                    "sha256": hashlib.sha256(fn.encode()).hexdigest(),
                    "size": rnd.randint(10000, 5000000),
                    "subdir": "linux-64", "timestamp": 1700000000000 + rnd.randint(0, 10**10)}
    return recs


def write_channel(out, extra):
    for sub in ("linux-64", "noarch"):
        doc = json.load(open(os.path.join(SLICE, "conda-forge", sub, "repodata.json")))
        if sub == "linux-64":
            doc["packages.conda"].update(extra)
        os.makedirs(os.path.join(out, "conda-forge", sub), exist_ok=True)
        with open(os.path.join(out, "conda-forge", sub, "repodata.json"), "w") as f:
            json.dump(doc, f, sort_keys=True)
    return os.path.getsize(os.path.join(out, "conda-forge", "linux-64", "repodata.json"))


def spec_text():
    body = "name: ds\nchannels:\n  - conda-forge\ndependencies:\n" + "".join(
        "  - %s\n" % d for d in DEPS[1:])
    return ("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\n"
            "metadata:\n  name: conda-bench\nspec:\n  language:\n    version: \"3.12\"\n"
            "  base:\n    ref: datalayer/python-cpu\n    channel: \"2026.09\"\n"
            "  build:\n    source: dependencyFile\n    dependencyFile:\n"
            "      sourceFormat: conda\n      content: |\n" +
            "".join("        %s\n" % ln for ln in body.splitlines()))


def timed(cmd, env=None):
    p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True,
                       text=True, env=env)
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("TIME ")][-1].split()
    if p.returncode != 0:
        raise SystemExit("%s failed: %s" % (cmd[0], p.stderr[-2000:]))
    return float(line[1]), int(line[2]) / 1024.0, p.stdout


def envlock_run(envlock, work, port, cache):
    lock = os.path.join(work, "bench.lock")
    cmd = [envlock, "--cache-dir", cache, "--mirror",
           "https://conda.anaconda.org=http://127.0.0.1:%d" % port,
           "resolve", "--bases", os.path.join(work, "bases.yaml"),
           os.path.join(work, "bench.yaml"), "-o", lock]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    env["ENVLOCK_CONFIG"] = os.path.join(work, "config")
    wall, rss, _ = timed(cmd, env)
    names = set()
    cur = None
    for ln in open(lock):
        if ln.startswith("- ecosystem: "):
            cur = ln.split()[-1]
        elif cur == "conda" and ln.startswith("  name: "):
            names.add(ln.split()[-1].strip("\""))
    return wall, rss, names


RATTLER_JS = r"""
const r = require(require.resolve("@conda-org/rattler", { paths: [process.argv[2]] }));
const base = process.argv[3], specs = JSON.parse(process.argv[4]);
r.simpleSolve(specs, [base + "conda-forge", base + "virtual"], ["linux-64", "noarch"], undefined)
  .then((res) => console.log(JSON.stringify(res.map((p) => p.packageName)
      .filter((n) => !n.startsWith("__")))))
  .catch((e) => { console.error(String(e)); process.exit(1); });
"""


def rattler_run(work, port, home):
    env = dict(os.environ, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"),
               RATTLER_CACHE_DIR=os.path.join(home, "rattler"))
    wall, rss, out = timed(["node", os.path.join(work, "solve.js"), MODULES,
                            "http://127.0.0.1:%d/" % port, json.dumps(DEPS)], env)
    return wall, rss, set(json.loads(out))


def add_virtual(root):
    for sub in ("linux-64", "noarch"):
        pk = {} if sub == "noarch" else {
            "%s-%s-%s.tar.bz2" % v: {"name": v[0], "version": v[1], "build": v[2],
                                     "build_number": 0, "depends": [], "subdir": sub}
            for v in VIRTUAL}
        os.makedirs(os.path.join(root, "virtual", sub), exist_ok=True)
        with open(os.path.join(root, "virtual", sub, "repodata.json"), "w") as f:
            json.dump({"info": {"subdir": sub}, "packages": pk, "packages.conda": {}}, f)


def bench_channel(envlock, work, label, records, runs, rattler):
    root = os.path.join(work, label)
    size = write_channel(root, made_up(records, random.Random(23)) if records else {})
    add_virtual(root)
    rows = {k: [] for k in ("envlock cold", "envlock warm", "rattler cold", "rattler warm")}
    with servers.DirServer(root) as srv:
        for k in range(runs):
            cache = os.path.join(work, "%s-cache-%d" % (label, k))
            home = os.path.join(work, "%s-home-%d" % (label, k))
            w, m, el = envlock_run(envlock, work, srv.port, cache)
            rows["envlock cold"].append((w, m))
            w, m, el2 = envlock_run(envlock, work, srv.port, cache)
            rows["envlock warm"].append((w, m))
            if rattler:
                w, m, ra = rattler_run(work, srv.port, home)
                rows["rattler cold"].append((w, m))
                w, m, ra2 = rattler_run(work, srv.port, home)
                rows["rattler warm"].append((w, m))
                if not (el == el2 == ra == ra2):
                    raise SystemExit("answers differ: envlock only %s, rattler only %s"
                                     % (sorted(el - ra), sorted(ra - el)))
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
    print("%s: %d records over the slice, linux-64 repodata.json %.1f MB, %d conda packages "
          "locked" % (label, records, size / 1e6, len(el)))
    print("| tool | best s | median s | peak RSS MiB |\n|---|---|---|---|")
    for k, v in rows.items():
        if v:
            walls = sorted(w for w, _ in v)
            print("| %s | %.2f | %.2f | %.0f |" % (k, walls[0], walls[len(walls) // 2],
                                                  max(m for _, m in v)))


def main():
    envlock = os.path.abspath(sys.argv[1])
    records = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rattler = os.path.isdir(os.path.join(MODULES, "@conda-org", "rattler"))
    work = tempfile.mkdtemp(prefix="el-bench-conda-")
    try:
        os.makedirs(os.path.join(work, "config"))
        with open(os.path.join(work, "bases.yaml"), "w") as f:
            f.write(specs.test_catalog().replace('"3.13"', '"3.12"').replace("3.13.7", "3.12.12"))
        with open(os.path.join(work, "bench.yaml"), "w") as f:
            f.write(spec_text())
        with open(os.path.join(work, "solve.js"), "w") as f:
            f.write(RATTLER_JS)
        if not rattler:
            print("@conda-org/rattler not under %s: envlock only" % MODULES)
        else:
            load = timed(["node", "-e", 'require(require.resolve("@conda-org/rattler", '
                          '{paths: [%s]}))' % json.dumps(MODULES)])
            print("node starting and loading @conda-org/rattler alone: %.2f s, %.0f MiB "
                  "(part of each rattler row)" % load[:2])
        bench_channel(envlock, work, "slice", 0, runs, rattler)
        bench_channel(envlock, work, "large", records, runs, rattler)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

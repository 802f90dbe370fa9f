#!/usr/bin/env python3
"""apps_offline.py ENVLOCK OUTDIR — the recorded real apps
(tests/agreement/npm_apps) resolved cold, one at a time, from the fixture's
packuments served on 127.0.0.1 (npm_apps.py's server and spec): per set the
packuments envlock requested (ENVLOCK_DEBUG_STATS `crawl run` lines, summed),
the names the npm crawl reached, whether the crawl was widened, peak RSS and
wall (GNU time), the outcome against npm's recorded tree as npm_apps.py
judges it (identical / paths / versions / refused; npm-refuses where npm
does not lock), and the lock, kept as OUTDIR/SET.lock so two builds' locks
can be compared byte for byte. Writes OUTDIR/apps.tsv and prints it.
NPM_APPS_ONLY=id,... picks sets; NPM_APPS_JOBS (default 1) runs that many
at once (RSS is per process either way). No network. Standard library only."""
import concurrent.futures
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "agreement", "npm_apps")
sys.path.insert(0, APPS)
import npm_apps  # noqa: E402

RUN = re.compile(r"^envlock-stats: crawl run \d+: (\d+) requests, (\d+) network")
NAMES = re.compile(r"^envlock-stats: npm crawl: (\d+) names")
RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")


def outcome(expected, manifest, s, code, lock):
    want = expected["sets"][s["id"]]
    if "npm-error" in want:
        return "npm-refuses"
    if code != 0:
        return "refused"
    sys.path.insert(0, os.path.join(APPS, "..", "..", "scenarios"))
    import run_scenarios
    tree = {}
    with open(lock, encoding="utf-8") as f:
        for line in run_scenarios.project(f.read()):
            parts = line.split()
            attrs = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
            if parts[0] == "npm" and "base" not in parts[3:]:
                tree[attrs.get("path")] = [parts[1], parts[2]]
    drop = npm_apps.through_other_platform(want, s["dependencies"], manifest)
    return npm_apps.compare(want, tree, None, drop)[0]


def one(envlock, s, work, base, node, outdir):
    d = os.path.join(work, s["id"])
    os.makedirs(d)
    lines = "\n".join("        - %s" % json.dumps("%s@%s" % (n, r))
                      for n, r in sorted(s["dependencies"].items()))
    with open(os.path.join(d, "spec.yaml"), "w") as f:
        f.write(npm_apps.SPEC % (s["id"], lines))
    with open(os.path.join(d, "bases.yaml"), "w") as f:
        f.write(npm_apps.BASES % node)
    lock = os.path.join(outdir, s["id"] + ".lock")
    cmd = ["/usr/bin/time", "-v", envlock, "--quiet", "--cache-dir", os.path.join(d, "cache"),
           "--mirror", "%s=%s" % (npm_apps.UPSTREAM, base), "resolve",
           os.path.join(d, "spec.yaml"), "-o", lock, "--bases", os.path.join(d, "bases.yaml"),
           "--exclude-newer", npm_apps.CUTOFF]
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e.update(ENVLOCK_DEBUG_STATS="1", XDG_CONFIG_HOME=os.path.join(d, "xdg"))
    t0 = time.time()
    r = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.time() - t0
    reqs = net = names = 0
    widened = "no"
    for line in r.stderr.splitlines():
        m = RUN.match(line)
        if m:
            reqs += int(m.group(1))
            net += int(m.group(2))
        m = NAMES.match(line)
        if m:
            names = int(m.group(1))  # the last crawl line: after any widening
        if "npm crawl widened" in line:
            widened = "yes"
    m = RSS.search(r.stderr)
    rss = int(m.group(1)) / 1024 if m else 0
    return [s["id"], r.returncode, reqs, net, names, widened, rss, wall, lock]


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    envlock, outdir = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    os.makedirs(outdir, exist_ok=True)
    with lzma.open(npm_apps.EXPECTED, "rt") as f:
        expected = json.load(f)
    docs = npm_apps.load_packuments(lazy=True)
    srv = npm_apps.serve(docs, tarballs=npm_apps.load_tarballs())
    sets = [s for s in npm_apps.load_sets("all") if s["id"] in expected["sets"]]
    work = tempfile.mkdtemp(prefix="apps-offline-")
    jobs = int(os.environ.get("NPM_APPS_JOBS", "1"))
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            rows = list(ex.map(lambda s: one(envlock, s, work, srv.base, expected["node"], outdir),
                               sets))
    finally:
        srv.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    manifest = npm_apps.packument_manifest(docs)
    for s, row in zip(sets, rows):
        row[-1] = outcome(expected, manifest, s, row[1], row[-1])
    out = ["set\texit\trequests\tnetwork\tnpm_names\twidened\trss_mib\twall_s\tnpm_tree"]
    out += ["%s\t%d\t%d\t%d\t%d\t%s\t%.1f\t%.1f\t%s" % tuple(row) for row in rows]
    with open(os.path.join(outdir, "apps.tsv"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

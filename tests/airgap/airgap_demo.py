#!/usr/bin/env python3
"""airgap_demo.py ENVLOCK — the demo re-resolved on a machine with no
network gives the online lock's bytes (issue 9, "Re-resolution with no
network").

Online (this namespace): the committed demo mirror (corpus/demo/mirror)
served by nginx on 127.0.0.1 (tests/fixtures/servers.py) — PyPI, the npm
registry and the apt snapshot, each mapped with --mirror — and
`envlock resolve` of corpus/demo/demo.yaml (Python, npm and apt) on the
demo catalog; then `envlock cache export`. The npm part is served as a
registry mirror serves it: GET /npm/<name> answers the packument, with its
tarball URLs rewritten to the mirror (the nginx config of servers.py).

Inside a fresh network namespace with only loopback (netns.py proves it:
only lo, no default route, public addresses unreachable, loopback works),
with no server running:
  site     `cache import` into a fresh cache, `envlock --offline resolve`
           with the site's mirror lines (the same --mirror as online; no
           server answers them): the lock must be byte-identical to the
           online one, and `envlock --offline check SPEC LOCK` (same
           mirrors) must accept it (exit 0);
  bare     the same with no mirror configuration at all. Asserted from
           lock format 2 on; under lock format 1 the lock records each npm
           tarball URL, which the cached packuments give as the mirror's
           (http://127.0.0.1:P/npm/...) when no mirror maps them back, so
           there a difference is printed as a note, not a failure.
The lock naming 127.0.0.1 anywhere is a failure too. Skips (77) only when
no network namespace can be made."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, HERE)
import netns  # noqa: E402
import servers  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")
APT_CANON = "https://snapshot.debian.org/archive/debian/20260914T150000Z"

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = "/nonexistent"  # no mirrors file
    e["XDG_CONFIG_HOME"] = "/nonexistent"
    return e


def serve_tree(work):
    """The demo mirror as nginx serves a registry: PyPI and apt as they are;
    each npm packument (a plain file npm/<name> for file://) as
    npm/<name>/packument.json and, for clients asking the abbreviated form,
    packument.install-v1 (the full document: a superset of it)."""
    tree = os.path.join(work, "tree")
    shutil.copytree(os.path.join(MIRROR, "pypi"), os.path.join(tree, "pypi"))
    shutil.copytree(os.path.join(MIRROR, "apt"), os.path.join(tree, "apt"))
    for name in sorted(os.listdir(os.path.join(MIRROR, "npm"))):
        d = os.path.join(tree, "npm", name)
        os.makedirs(d)
        for f in ("packument.json", "packument.install-v1"):
            shutil.copyfile(os.path.join(MIRROR, "npm", name), os.path.join(d, f))
    return tree


def mirrors(base):
    return ["--mirror", "https://pypi.org=%s/pypi/pypi" % base,
            "--mirror", "https://registry.npmjs.org=%s/npm" % base,
            "--mirror", "%s=%s/apt" % (APT_CANON, base)]


# A hang guard, not a timed assertion: the live bench workload's cold
# resolve and bundle under ASan (scripts/test) take about five minutes.
RUN_TIMEOUT = 1500


def run(el, args):
    """envlock ARGS; a run past RUN_TIMEOUT is a failed run (rc -1) saying so."""
    try:
        return subprocess.run([el] + args, env=env(), capture_output=True, text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([el] + args, -1, "", "no answer after %d s (killed)" % RUN_TIMEOUT)


def online(el, work, tree):
    """Resolve against the served tree and export the cache; returns the
    mirror lines used, or None after a failure."""
    ng = servers.Nginx(tree, work=os.path.join(work, "nginx"))
    ng.start()
    try:
        m = mirrors(ng.url)
        r = run(el, ["--cache-dir", os.path.join(work, "c-online")] + m +
                ["resolve", DEMO, "--bases", BASES, "-o", os.path.join(work, "online.lock")])
    finally:
        ng.stop()
    if r.returncode != 0:
        fail("online resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    r = run(el, ["--cache-dir", os.path.join(work, "c-online"), "cache", "export",
                 os.path.join(work, "cache.tar.zst")])
    if r.returncode != 0:
        fail("cache export exited %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    return m


def job_steps(el, work, name, m, spec=DEMO, bases=BASES):
    """Inside the namespace: import the exported cache into a fresh one,
    resolve --offline with mirror lines `m` into NAME.lock, check it."""
    cache = ["--cache-dir", os.path.join(work, "c-" + name)]
    lock = os.path.join(work, name + ".lock")
    return [
        {"name": name + ": cache import",
         "argv": [el] + cache + ["cache", "import", os.path.join(work, "cache.tar.zst")]},
        {"name": name + ": --offline resolve",
         "argv": [el] + cache + m + ["--offline", "resolve", spec, "--bases", bases, "-o", lock]},
        {"name": name + ": --offline check",
         "argv": [el] + cache + m + ["--offline", "check", spec, lock, "--bases", bases]},
    ]


def lock_version(data):
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("lockVersion: "):
            return int(line.split(": ", 1)[1])
    return 0


def judge(work, name, res, strict):
    steps = {s["name"]: s for s in res["steps"]}
    for s in res["steps"]:
        if s["rc"] != 0:
            (fail if strict else note)("%s exited %d: %s" % (s["name"], s["rc"],
                                                             (s["stdout"] + s["stderr"]).strip()))
    if steps.get(name + ": --offline resolve", {}).get("rc") != 0:
        return
    want = open(os.path.join(work, "online.lock"), "rb").read()
    got = open(os.path.join(work, name + ".lock"), "rb").read()
    if got == want:
        print("%s: the offline lock in the namespace is the online lock's %d bytes" % (name, len(got)))
        return
    diff = subprocess.run(["diff", os.path.join(work, "online.lock"), os.path.join(work, name + ".lock")],
                          capture_output=True, text=True).stdout
    (fail if strict else note)("%s: the offline lock differs from the online one:\n%s" % (name, diff))


def note(msg):
    print("NOTE (not asserted under lock format 1): " + msg)


def reresolve(el, work, prefix, m, spec, bases):
    """In one fresh namespace: the `site` (mirror lines m) and `bare` (none)
    offline re-resolutions, judged against work/online.lock."""
    want = open(os.path.join(work, "online.lock"), "rb").read()
    job = {"env": env(), "serve": None,
           "steps": job_steps(el, work, "site", m, spec, bases) + job_steps(el, work, "bare", [], spec, bases)}
    with open(os.path.join(work, "job.json"), "w") as f:
        json.dump(job, f)
    res = netns.run(os.path.join(work, "job.json"), os.path.join(work, "result.json"), prefix)
    for p in res["isolation"]:
        fail("the namespace is not isolated: " + p)
    if res["isolation"]:
        return
    print("namespace (`%s`): only lo, no route out, public addresses unreachable" % " ".join(prefix))
    for name in ("site", "bare"):
        sub = dict(res, steps=[s for s in res["steps"] if s["name"].startswith(name + ":")])
        judge(work, name, sub, strict=(name == "site" or lock_version(want) >= 2))


def main():
    el = os.path.abspath(sys.argv[1])
    prefix, why = netns.namespace_prefix()
    if prefix is None:
        print("skip: no network namespace can be made here: " + why)
        return netns.SKIP
    work = tempfile.mkdtemp(prefix="envlock-airgap-")
    try:
        m = online(el, work, serve_tree(work))
        if m is None:
            return 1
        want = open(os.path.join(work, "online.lock"), "rb").read()
        if b"127.0.0.1" in want:
            fail("the online lock names the mirror (127.0.0.1)")
        reresolve(el, work, prefix, m, DEMO, BASES)
    finally:
        if os.environ.get("AIRGAP_KEEP"):
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

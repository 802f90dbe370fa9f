#!/usr/bin/env python3
"""airgap_demo_bundle.py ENVLOCK — the demo re-resolved from its bundle on a
machine with no network gives the online lock's bytes (issue 9,
"Re-resolution with no network"; docs/bundle.md).

Online (this namespace): the demo scenario (corpus/demo/demo.scn, with every
artifact; tests/fixtures/bundle_site.py demo_upstream) served by nginx on
127.0.0.1, `envlock resolve` of corpus/demo/demo.yaml with PyPI, npm and apt
mapped to it, `envlock bundle` of that lock into DIR for
--base-url http://127.0.0.1:8080, and `envlock plan` of the lock with no
mirror (the online plans).

Inside a fresh network namespace with only loopback (netns.py proves it),
nginx serves DIR on 127.0.0.1:8080 with exactly the server block of
DIR/README (a fresh namespace has nothing listening, so the README's lines
apply as written), and:
  resolve   `envlock resolve` of the same spec with the --mirror lines of
            DIR/README and a fresh cache: byte-identical to the online lock
  check     `envlock --offline check SPEC LOCK` with that cache and those
            mirrors: exit 0, "up to date"
  plan      `envlock plan --mirror ...` (the README's lines) of the lock:
            the same files as the online plans; lock.txt,
            expected-packages.json and requirements.txt byte-identical; every
            pip --index-url / --extra-index-url and npm --registry of the
            Dockerfiles, every apt-sources.list `deb` URI and every
            package-lock `resolved` URL at the bundle server, exactly the
            README's installer URLs, none at a canonical index
  pip       `pip download --no-deps --require-hashes` of the plan's
            requirements.txt from the README's index URL (no pip
            configuration): every pinned file
  npm       `npm ci --ignore-scripts` of the plan's package.json and
            package-lock.json, registry the README's (private HOME and
            npmrc): node_modules holds the lock's npm versions
(bundle_e2e proves apt-get from a bundle outside a namespace; here the apt
URI is spot-checked and the resolve reads the bundle's Release and
Packages.) Skips (77) only when no network namespace can be made."""

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
import airgap_demo as ad  # noqa: E402  env(), run(), mirrors(), fail()
import bundle_site  # noqa: E402
import netns  # noqa: E402
import servers  # noqa: E402

DEMO = ad.DEMO
SITE_PORT = 8080
SITE = "http://127.0.0.1:%d" % SITE_PORT
CANONICAL = ("https://pypi.org", "https://files.pythonhosted.org", "https://registry.npmjs.org",
             "snapshot.debian.org", "deb.debian.org")


def bundle(el, work, cache, mirrors, lock):
    """Bundle LOCK into work/bundle for the site URL; the bundle's --json."""
    out = os.path.join(work, "bundle")
    r = ad.run(el, ["--json", "--cache-dir", cache] + mirrors +
               ["bundle", lock, "-o", out, "--base-url", SITE])
    if r.returncode != 0:
        ad.fail("bundle exited %d: %s %s" % (r.returncode, r.stdout.strip()[-600:], r.stderr.strip()))
        return None
    return json.loads(r.stdout)


def online(el, work):
    """The demo upstream behind nginx: resolve, bundle (nginx still up: the
    artifacts are fetched now), plan with no mirror. Returns the catalog
    path, or None after a failure."""
    mirror, bases = bundle_site.demo_upstream(work)
    ng = servers.Nginx(mirror, work=os.path.join(work, "nginx"))
    ng.start()
    try:
        m = ad.mirrors(ng.url)
        cache = os.path.join(work, "c-online")
        lock = os.path.join(work, "online.lock")
        r = ad.run(el, ["--cache-dir", cache] + m + ["resolve", DEMO, "--bases", bases, "-o", lock])
        if r.returncode != 0:
            ad.fail("online resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
            return None
        if bundle(el, work, cache, m, lock) is None:
            return None
    finally:
        ng.stop()
    r = ad.run(el, ["plan", DEMO, lock, "--bases", bases, "-o", os.path.join(work, "plan-online")])
    if r.returncode != 0:
        ad.fail("online plan exited %d: %s" % (r.returncode, r.stderr.strip()))
        return None
    return bases


def site_steps(el, work, spec, bases, m):
    """resolve from the served bundle with a fresh cache, then check
    --offline with that cache (steps `resolve`, `check`)."""
    cache = ["--cache-dir", os.path.join(work, "c-site")]
    lock = os.path.join(work, "site.lock")
    return [{"name": "resolve", "argv": [el] + cache + m + ["resolve", spec, "--bases", bases, "-o", lock]},
            {"name": "check", "argv": [el] + cache + m + ["--offline", "check", spec, lock, "--bases", bases]}]


def installer_steps(el, work, bases, m, inst):
    """plan --mirror of the online lock; pip download of its requirements and
    npm ci of its npm project from the bundle."""
    plan = os.path.join(work, "plan-site")
    proj = os.path.join(work, "npm-site")
    argv, pip_env = bundle_site.pip_download(os.path.join(work, "piphome"), inst["pypi"],
                                             os.path.join(plan, "datalayer", "requirements.txt"),
                                             os.path.join(work, "pip-dl"))
    npm_env = bundle_site.npm_env(os.path.join(work, "npmhome"), inst["npm"])
    return [{"name": "plan", "argv": [el] + m + ["plan", DEMO, os.path.join(work, "online.lock"),
                                                 "--bases", bases, "-o", plan]},
            {"name": "pip download", "argv": argv, "env": pip_env},
            {"name": "npm project", "argv": ["cp", "-r", os.path.join(plan, "datalayer"), proj]},
            {"name": "npm ci", "argv": ["npm", "ci", "--ignore-scripts"], "env": npm_env, "cwd": proj}]


def in_namespace(work, prefix, steps):
    """Runs STEPS in a fresh namespace with the bundle served on SITE_PORT;
    {step name: result}, or None when the namespace or its server failed."""
    job = {"env": ad.env(), "serve": None, "steps": steps,
           "serve_bundle": {"dir": os.path.join(work, "bundle"), "work": os.path.join(work, "nginx-site"),
                            "port": SITE_PORT}}
    with open(os.path.join(work, "job.json"), "w") as f:
        json.dump(job, f)
    res = netns.run(os.path.join(work, "job.json"), os.path.join(work, "result.json"), prefix)
    for p in res["isolation"]:
        ad.fail("the namespace is not isolated: " + p)
    if res["isolation"]:
        return None
    print("namespace (`%s`): only lo, no route out, public addresses unreachable" % " ".join(prefix))
    if res.get("error") or res.get("url") != SITE:
        ad.fail("the bundle server in the namespace: %s (url %s)" % (res.get("error"), res.get("url")))
        return None
    print("the bundle served in the namespace at %s with DIR/README's nginx block" % SITE)
    steps = {s["name"]: s for s in res["steps"]}
    for s in res["steps"]:
        if s["rc"] != 0:
            ad.fail("%s exited %d: %s" % (s["name"], s["rc"], (s["stdout"] + s["stderr"]).strip()[-800:]))
    return steps


def judge_site(work, steps):
    """The namespace's lock is the online one's bytes; check accepted it."""
    if steps["resolve"]["rc"] == 0:
        want = open(os.path.join(work, "online.lock"), "rb").read()
        got = open(os.path.join(work, "site.lock"), "rb").read()
        if got != want:
            diff = subprocess.run(["diff", os.path.join(work, "online.lock"), os.path.join(work, "site.lock")],
                                  capture_output=True, text=True).stdout
            ad.fail("the lock resolved from the bundle differs from the online one:\n" + diff[:3000])
        else:
            print("resolve: the lock from the bundle in the namespace is the online lock's %d bytes" % len(got))
    c = steps["check"]
    if c["rc"] == 0 and "up to date" not in c["stdout"] + c["stderr"]:
        ad.fail("check --offline exited 0 without saying up to date: %s" % (c["stdout"] + c["stderr"]))
    elif c["rc"] == 0:
        print("check --offline: %s" % (c["stdout"] + c["stderr"]).strip().splitlines()[-1])


def lock_npm(work):
    import yaml  # python3-yaml (scripts/install-deps)
    doc = yaml.safe_load(open(os.path.join(work, "online.lock")))
    return sorted((p["name"], str(p["version"])) for p in doc["packages"] if p["ecosystem"] == "npm")


def url_args(text, flag):
    words = text.split()
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == flag]


def plan_problems(work, inst):
    """What is wrong with the site's plans against the online ones."""
    on, site = os.path.join(work, "plan-online"), os.path.join(work, "plan-site")
    problems, seen = [], {"pypi": 0, "npm": 0, "deb": 0}
    want = {k: v.rstrip("/") for k, v in inst.items()}
    variants = sorted(os.listdir(on))
    if sorted(os.listdir(site)) != variants:
        return ["variants %s, online %s" % (sorted(os.listdir(site)), variants)]
    for v in variants:
        files = sorted(os.listdir(os.path.join(on, v)))
        if sorted(os.listdir(os.path.join(site, v))) != files:
            problems.append("%s: files %s, online %s" % (v, sorted(os.listdir(os.path.join(site, v))), files))
            continue
        for f in files:
            a = open(os.path.join(on, v, f), encoding="utf-8").read()
            b = open(os.path.join(site, v, f), encoding="utf-8").read()
            if f in ("lock.txt", "expected-packages.json", "requirements.txt") and a != b:
                problems.append("%s/%s differs from the online plan's" % (v, f))
            if f.endswith("Dockerfile"):
                for eco, flags in (("pypi", ("--index-url", "--extra-index-url")), ("npm", ("--registry",))):
                    for u in [u for fl in flags for u in url_args(b, fl)]:
                        seen[eco] += 1
                        if u.rstrip("/") != want[eco]:
                            problems.append("%s/%s: %s %s, the bundle's is %s" % (v, f, flags[0], u, want[eco]))
            if f == "apt-sources.list":
                for line in b.splitlines():
                    if line.startswith("deb "):
                        seen["deb"] += 1
                        uri = [w for w in line.split()[1:] if not w.startswith("[") and not w.endswith("]")][0]
                        if uri.rstrip("/") != want["deb"]:
                            problems.append("%s/apt-sources.list: %s, the bundle's is %s" % (v, line, want["deb"]))
            if f == "package-lock.json":
                for path, e in json.loads(b)["packages"].items():
                    if path and not e.get("resolved", "").startswith(want["npm"] + "/"):
                        problems.append("%s/package-lock.json: %s resolved %s" % (v, path, e.get("resolved")))
            if f.endswith("Dockerfile") or f in ("apt-sources.list", "package-lock.json"):
                problems += ["%s/%s names %s" % (v, f, c) for c in CANONICAL if c in b]
    problems += ["no %s URL in any plan" % eco for eco, n in sorted(seen.items()) if n == 0]
    return problems


def judge_installers(work, steps, inst):
    for p in plan_problems(work, inst):
        ad.fail("plan --mirror: " + p)
    if steps["pip download"]["rc"] == 0:
        req = os.path.join(work, "plan-site", "datalayer", "requirements.txt")
        n = len([line for line in open(req) if "==" in line])
        got = len(os.listdir(os.path.join(work, "pip-dl")))
        if got != n or n == 0:
            ad.fail("pip download from the bundle: %d files for %d pins" % (got, n))
        else:
            print("pip download --require-hashes in the namespace from %s: %d of %d" % (inst["pypi"], got, n))
    if steps["npm ci"]["rc"] == 0:
        have = []
        for name, _v in lock_npm(work):
            pj = os.path.join(work, "npm-site", "node_modules", name, "package.json")
            have.append((name, json.load(open(pj))["version"] if os.path.exists(pj) else None))
        if sorted(have) != lock_npm(work):
            ad.fail("npm ci from the bundle installed %s; the lock has %s" % (sorted(have), lock_npm(work)))
        else:
            print("npm ci in the namespace from %s: %s" % (inst["npm"], " ".join("%s@%s" % p for p in have)))


def main():
    el = os.path.abspath(sys.argv[1])
    prefix, why = netns.namespace_prefix()
    if prefix is None:
        print("skip: no network namespace can be made here: " + why)
        return netns.SKIP
    work = tempfile.mkdtemp(prefix="envlock-airgap-bundle-")
    try:
        bases = online(el, work)
        if bases is None:
            return 1
        bdir = os.path.join(work, "bundle")
        m, inst = bundle_site.readme_mirrors(bdir), bundle_site.readme_installers(bdir)
        if len(m) != 6 or sorted(inst) != ["deb", "npm", "pypi"]:
            ad.fail("DIR/README gives mirrors %s and installers %s; the demo needs PyPI, npm and apt" % (m, inst))
            return 1
        steps = in_namespace(work, prefix, site_steps(el, work, DEMO, bases, m) +
                             installer_steps(el, work, bases, m, inst))
        if steps is not None:
            judge_site(work, steps)
            judge_installers(work, steps, inst)
    finally:
        if os.environ.get("AIRGAP_KEEP"):
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if ad.failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""plan_sbom.py ENVLOCK DATA_DIR — each variant's sbom.cdx.json (issue 22,
"An exact SBOM from the lock": plan writes the SBOM of each variant beside
its other files).

The demo (corpus/demo/demo.yaml: PyPI, npm and apt on a base that already
carries some of them) is resolved from the committed mirror through
file:// and planned for every variant, twice, in two places and two time
zones. For each variant, checked from outside envlock:
  - the official CycloneDX 1.6 JSON schema validates it (the schemas of
    data/sbom-schemas/, as plan_export_sbom uses them);
  - its components are exactly what the variant's install steps install,
    read from the plan's own install inputs: requirements.txt (`name==version`
    pins), apt-packages.txt (`name=version`) and package-lock.json (npm's
    `packages`), and so nothing the base already carries (the lock's
    installedInBase packages are absent);
  - purl types match the ecosystems (pkg:pypi, pkg:npm, pkg:deb);
  - the root component is the base image by this variant's digest
    (target.base.digests in the lock), and every dependency ref names a
    component or the root;
  - both plans hold the same bytes, and no path of either leaks into them.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbom_check  # noqa: E402  (reads the same ENVLOCK DATA_DIR arguments)

ENVLOCK, DATA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "corpus", "demo")
APT = "https://snapshot.debian.org/archive/debian/20260914T150000Z"
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def env(extra=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e.update({"ENVLOCK_CONFIG": "/nonexistent", "XDG_CONFIG_HOME": "/nonexistent"})
    e.update(extra or {})
    return e


def run(args, extra=None, cwd=None):
    return subprocess.run([ENVLOCK] + args, env=env(extra), capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def validate(doc):
    """Errors of doc against CycloneDX 1.6 (sbom_check.py's validator)."""
    return sbom_check.validate(doc, "bom-1.6.schema.json",
                               ("spdx.schema.json", "jsf-0.82.schema.json"))


def pep503(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def installs(d):
    """{(ecosystem, name, version)} the variant's install steps install,
    from the plan's own install inputs."""
    out = set()
    p = os.path.join(d, "requirements.txt")
    if os.path.exists(p):
        for line in open(p):
            m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^ \\;]+)", line)
            if m:
                out.add(("pypi", pep503(m.group(1)), m.group(3)))
    p = os.path.join(d, "apt-packages.txt")
    if os.path.exists(p):
        for line in open(p):
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, version = line.partition("=")
                out.add(("deb", name, version))
    p = os.path.join(d, "package-lock.json")
    if os.path.exists(p):
        for path, meta in json.load(open(p))["packages"].items():
            if path:
                name = meta.get("name") or path.rsplit("node_modules/", 1)[1]
                out.add(("npm", name, meta["version"]))
    return out


def component_key(c):
    props = {p["name"]: p["value"] for p in c.get("properties", [])}
    return (props.get("envlock:ecosystem"), pep503(c["name"]) if props.get("envlock:ecosystem") == "pypi"
            else c["name"], c["version"])


def check_variant(v, text, d, lock):
    doc = json.loads(text)
    errs = validate(doc)
    check(not errs, "%s: schema: %s" % (v, errs[:5]))
    check(doc.get("specVersion") == "1.6", "%s: specVersion %s" % (v, doc.get("specVersion")))
    comps = doc.get("components", [])
    got = {component_key(c) for c in comps}
    want = installs(d)
    check(len(want) > 3, "%s: the plan installs only %s (the test needs each ecosystem)" % (v, sorted(want)))
    check(got == want, "%s: the SBOM lists %s beyond the install steps and lacks %s"
          % (v, sorted(got - want), sorted(want - got)))
    in_base = {(p["ecosystem"], p["name"], p["version"]) for p in lock["packages"] if p.get("installedInBase")}
    check(in_base, "the demo lock has no package in the base (the test needs one)")
    check(not (got & in_base), "%s: lists packages the base carries: %s" % (v, sorted(got & in_base)))
    for c in comps:
        eco = component_key(c)[0]
        check(c.get("purl", "").startswith("pkg:%s/" % eco), "%s: %s has purl %s" % (v, c["name"], c.get("purl")))
    root = doc["metadata"]["component"]
    digest = lock["target"]["base"]["digests"][v]
    check(root.get("type") == "container" and root.get("version") == digest,
          "%s: root %s, the lock's base for it is %s" % (v, root, digest))
    check({h["content"] for h in root.get("hashes", [])} == {digest.split(":", 1)[1]},
          "%s: root hashes %s" % (v, root.get("hashes")))
    refs = {c["bom-ref"] for c in comps} | {root["bom-ref"]}
    for dep in doc.get("dependencies", []):
        for r in [dep["ref"]] + dep.get("dependsOn", []):
            check(r in refs, "%s: dependency ref %s names no component" % (v, r))
    return len(comps)


def main():
    work = tempfile.mkdtemp(prefix="envlock-plan-sbom-")
    try:
        lock = os.path.join(work, "demo.lock")
        mirror = os.path.join(DEMO, "mirror")
        r = run(["--cache-dir", os.path.join(work, "cache"),
                 "--mirror", "https://pypi.org=file://%s/pypi/pypi" % mirror,
                 "--mirror", "https://registry.npmjs.org=file://%s/npm" % mirror,
                 "--mirror", "%s=file://%s/apt" % (APT, mirror),
                 "resolve", os.path.join(DEMO, "demo.yaml"), "--bases", os.path.join(DEMO, "bases.yaml"),
                 "-o", lock])
        if r.returncode != 0:
            sys.exit("resolve exited %d: %s" % (r.returncode, r.stderr))
        outs = []
        for tag, extra in (("a", {"TZ": "Asia/Kolkata"}), ("b", {"TZ": "America/Lima", "LC_ALL": "C"})):
            out = os.path.join(work, "plan-" + tag)
            r = run(["plan", os.path.join(DEMO, "demo.yaml"), lock, "--bases", os.path.join(DEMO, "bases.yaml"),
                     "--variant", "all", "-o", out], extra, cwd=work)
            if r.returncode != 0:
                sys.exit("plan exited %d: %s" % (r.returncode, r.stderr))
            outs.append(out)
        lock_doc = yaml.safe_load(open(lock))
        variants = sorted(os.listdir(outs[0]))
        check(len(variants) >= 2, "plan wrote only %s" % variants)
        for v in variants:
            p = [os.path.join(o, v, "sbom.cdx.json") for o in outs]
            if not all(os.path.exists(x) for x in p):
                check(False, "%s: no sbom.cdx.json beside its files" % v)
                continue
            a, b = (open(x, "rb").read() for x in p)
            check(a == b, "%s: two plans give different SBOM bytes" % v)
            for leak in outs + [work]:
                check(leak.encode() not in a, "%s: `%s` in the SBOM" % (v, leak))
            n = check_variant(v, a.decode(), os.path.join(outs[0], v), lock_doc)
            print("%s: sbom.cdx.json, %d components, %d bytes" % (v, n, len(a)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in FAILS:
        print("FAIL:", f)
    print("plan_sbom: %d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

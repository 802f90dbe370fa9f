#!/usr/bin/env python3
"""plan_sbom.py ENVLOCK DATA_DIR — each variant's sbom.cdx.json (issue 22,
"An exact SBOM from the lock": plan writes the SBOM of each variant beside
its other files).

The demo (corpus/demo/demo.yaml: PyPI, npm and apt on a base that already
carries some of them) is resolved from the committed mirror through
file:// and planned for every variant, twice, in two places and two time
zones. For each variant, checked from outside envlock:
  - the official CycloneDX 1.6 JSON schema validates it (the schemas of
    data/sbom-schemas/, as plan_export_sbom uses them), and CycloneDX's
    own library reads it back (when ENVLOCK_CDX_LIB names it);
  - its components are exactly what the variant's install steps install,
    read from the plan's own install inputs: requirements.txt (`name==version`
    pins), apt-packages.txt (`name=version`), package-lock.json (npm's
    `packages`) and the Dockerfile's wheelhouse step, and so nothing its
    image already carries (on the base, the lock's installedInBase
    packages are absent; on E2B's image, which holds none of them, the
    base's protected stack is installed from the wheelhouse and listed);
  - purl types match the ecosystems (pkg:pypi, pkg:npm, pkg:deb);
  - the root component is the image the variant's Dockerfile builds FROM,
    read from that FROM line: its repository as the name, its digest as
    version and hash when FROM pins one, else its tag; for e2b that is
    E2B's image, never the Datalayer base's e2b digest of the lock; and
    every dependency ref names a component or the root;
  - both plans hold the same bytes, and no path of either leaks into them;
  - planned again with a catalog whose `images:` entry for E2B's image has
    a digest, e2b's FROM and SBOM root both take that digest.
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
    # the base's protected stack from the wheelhouse (off the base: e2b)
    for df in [f for f in os.listdir(d) if f.endswith("Dockerfile")]:
        text = open(os.path.join(d, df)).read().replace("\\\n", " ")
        for line in text.splitlines():
            if line.startswith("RUN ") and "--find-links /opt/datalayer/wheelhouse-import" in line:
                for m in re.finditer(r" ([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
                    out.add(("pypi", pep503(m.group(1)), m.group(2)))
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


def from_line(d):
    """(repository, tag, digest) of the FROM line of the variant's
    Dockerfile, the registry prefix (a host with `.` or `:`) dropped."""
    df = [f for f in os.listdir(d) if f.endswith("Dockerfile")]
    if not df:
        return None, None, None
    ref = [ln.split()[1] for ln in open(os.path.join(d, df[0])) if ln.startswith("FROM ")][0]
    ref, _, digest = ref.partition("@")
    first, _, rest = ref.partition("/")
    if rest and ("." in first or ":" in first):
        ref = rest
    slash = ref.rfind("/")
    colon = ref.rfind(":")
    tag = ref[colon + 1:] if colon > slash else None
    return (ref[:colon] if colon > slash else ref), tag, digest or None


def component_key(c):
    props = {p["name"]: p["value"] for p in c.get("properties", [])}
    return (props.get("envlock:ecosystem"), pep503(c["name"]) if props.get("envlock:ecosystem") == "pypi"
            else c["name"], c["version"])


def check_variant(v, text, d, lock):
    doc = json.loads(text)
    errs = validate(doc)
    check(not errs, "%s: schema: %s" % (v, errs[:5]))
    lib = sbom_check.cdx_library_count(text.encode())
    check(lib is None or (lib[0] and lib[1] == str(len(doc.get("components", []))).encode()),
          "%s: cyclonedx-library read-back: %r" % (v, lib))
    check(doc.get("specVersion") == "1.6", "%s: specVersion %s" % (v, doc.get("specVersion")))
    comps = doc.get("components", [])
    got = {component_key(c) for c in comps}
    want = installs(d)
    check(len(want) > 3, "%s: the plan installs only %s (the test needs each ecosystem)" % (v, sorted(want)))
    check(got == want, "%s: the SBOM lists %s beyond the install steps and lacks %s"
          % (v, sorted(got - want), sorted(want - got)))
    in_base = {(p["ecosystem"], p["name"], p["version"]) for p in lock["packages"] if p.get("installedInBase")}
    check(in_base, "the demo lock has no package in the base (the test needs one)")
    protected = {(p["ecosystem"], p["name"], p["version"]) for p in lock["packages"]
                 if p.get("installedInBase") and "protected" in p.get("requestedBy", [])}
    # on the base its packages are left out; E2B's image holds none of them,
    # so there the plan installs the protected stack and the SBOM lists it
    held = in_base - protected if v == "e2b" else in_base
    check(not (got & held), "%s: lists packages its image carries: %s" % (v, sorted(got & held)))
    if v == "e2b":
        check(protected and protected <= got,
              "e2b: the protected stack %s is not listed" % sorted(protected - got))
    for c in comps:
        eco = component_key(c)[0]
        check(c.get("purl", "").startswith("pkg:%s/" % eco), "%s: %s has purl %s" % (v, c["name"], c.get("purl")))
    root = doc["metadata"]["component"]
    name, tag, digest = from_line(d)
    check(root.get("type") == "container" and root.get("name") == name
          and root.get("version") == (digest or tag),
          "%s: root %s, the Dockerfile builds FROM %s" % (v, root, (name, tag, digest)))
    want_hashes = {digest.split(":", 1)[1]} if digest else set()
    check({h["content"] for h in root.get("hashes", [])} == want_hashes,
          "%s: root hashes %s, FROM's digest %s" % (v, root.get("hashes"), digest))
    if v == "e2b":
        check(name == "e2bdev/code-interpreter" and digest != lock["target"]["base"]["digests"][v],
              "e2b: root %s is not E2B's image" % root)
    refs = {c["bom-ref"] for c in comps} | {root["bom-ref"]}
    for dep in doc.get("dependencies", []):
        for r in [dep["ref"]] + dep.get("dependsOn", []):
            check(r in refs, "%s: dependency ref %s names no component" % (v, r))
    return len(comps)


E2B_DIGEST = "sha256:" + "e2b0" * 16


def pinned(work, lock, lock_doc):
    """The demo's catalog with an `images:` entry for E2B's image carrying a
    digest (made up here): e2b's FROM and its SBOM root take it."""
    text = open(os.path.join(DEMO, "bases.yaml")).read()
    text = text.replace("keyring: mirror/", "keyring: %s/mirror/" % DEMO)
    text = text.replace("dpkgStatus: ../", "dpkgStatus: %s/../" % DEMO)
    text += ("images:\n  \"e2bdev/code-interpreter:latest\":\n    python: 3.12.11\n"
             "    arch: amd64\n    libc: glibc 2.36\n    platform: manylinux_2_36_x86_64\n"
             "    digest: %s\n" % E2B_DIGEST)
    bases = os.path.join(work, "bases-e2b.yaml")
    open(bases, "w").write(text)
    out = os.path.join(work, "plan-pinned")
    r = run(["plan", os.path.join(DEMO, "demo.yaml"), lock, "--bases", bases,
             "--variant", "e2b", "-o", out], cwd=work)
    if r.returncode != 0:
        check(False, "plan with the e2b image pinned exited %d: %s" % (r.returncode, r.stderr))
        return
    d = os.path.join(out, "e2b")
    check(from_line(d)[2] == E2B_DIGEST, "e2b: FROM %s, not pinned by the catalog's digest"
          % (from_line(d),))
    root = json.loads(open(os.path.join(d, "sbom.cdx.json")).read())["metadata"]["component"]
    check(root.get("version") == E2B_DIGEST, "e2b pinned: root %s" % root)
    n = check_variant("e2b", open(os.path.join(d, "sbom.cdx.json")).read(), d, lock_doc)
    print("e2b pinned: sbom.cdx.json, root %s@%s, %d components" % (root.get("name"), E2B_DIGEST, n))


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
        pinned(work, lock, lock_doc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in FAILS:
        print("FAIL:", f)
    print("plan_sbom: %d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

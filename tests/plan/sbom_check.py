#!/usr/bin/env python3
"""sbom_check.py ENVLOCK DATA_DIR

`envlock export LOCK --format cyclonedx|spdx` of data/sbom.lock, checked
from outside envlock. data/sbom.lock is export-small.lock with every hash
replaced by the sha256 (npm: sha512 integrity) of its artifact's file
name, so each is well-formed and worked out here independently.

- the official schemas validate them (python3-jsonschema; the schemas in
  data/sbom-schemas/, see its README for where each comes from);
- the licenses are the ones the lock records (data/sbom.lock's `license`
  keys: fsevents, left-pad, certifi and requests as their registries
  declare them; @scope/util and wrap 2.0.0 are made up), as CycloneDX's one
  `expression` acknowledged as `declared` and SPDX's licenseDeclared, and
  NOASSERTION (CycloneDX: no `licenses`) for the others; each identifier is
  on the SPDX license list (the CycloneDX spdx.schema.json enum);
- the package URLs, hashes and dependency edges are the ones worked out by
  hand below from the purl spec's rules (purl-spec docs/standard/
  characters-and-encoding.md and types/{pypi,npm,deb}-definition.json) and
  the lock's own text;
- the same lock gives the same bytes: twice, from two directories (as two
  machines would hold it), under two time zones and cache directories; no
  path or clock time leaks into the text;
- a hostile lock (a version carrying a quote and a brace, a newline in a
  name) is refused naming the field, as every export refuses it.
- when @cyclonedx/cyclonedx-library is installed (ENVLOCK_CDX_LIB: its
  node_modules directory), it reads the CycloneDX document back.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import jsonschema

ENVLOCK, DATA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SCHEMAS = os.path.join(DATA, "sbom-schemas")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def export(lock, fmt, cwd, env_extra):
    env = dict(os.environ, **env_extra)
    r = subprocess.run([ENVLOCK, "export", lock, "--format", fmt], cwd=cwd, env=env,
                       capture_output=True)
    if r.returncode != 0:
        sys.exit(f"export {fmt} failed: {r.stderr.decode()}")
    return r.stdout


def load_schema(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


def validate(doc, main, refs):
    schema = load_schema(main)
    store = {s["$id"]: s for s in (load_schema(n) for n in refs)}
    store[schema["$id"]] = schema
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        cls = jsonschema.validators.validator_for(schema)
        v = cls(schema, resolver=resolver, format_checker=jsonschema.FormatChecker())
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in v.iter_errors(doc)]


# ---- truth worked out by hand ----

# purl: `+` is not in the allowed set, so %2B; the npm scope's `@` is %40;
# deb takes arch and distro (bookworm is Debian 12) in key order.
PURLS = {
    "curl": "pkg:deb/debian/curl@7.88.1-10%2Bdeb12u12?arch=amd64&distro=debian-12",
    "libc6": "pkg:deb/debian/libc6@2.36-9%2Bdeb12u7?arch=amd64&distro=debian-12",
    "libcurl4": "pkg:deb/debian/libcurl4@7.88.1-10%2Bdeb12u12?arch=amd64&distro=debian-12",
    "tzdata": "pkg:deb/debian/tzdata@2025b-0%2Bdeb12u1?arch=all&distro=debian-12",
    "@scope/util": "pkg:npm/%40scope/util@1.0.0",
    "fsevents": "pkg:npm/fsevents@2.3.3",
    "left-pad": "pkg:npm/left-pad@1.3.0",
    "wrap@1": "pkg:npm/wrap@1.0.0",
    "wrap@2": "pkg:npm/wrap@2.0.0",
    "certifi": "pkg:pypi/certifi@2025.4.26",
    "ipykernel": "pkg:pypi/ipykernel@7.3.0",
    "numpy": "pkg:pypi/numpy@2.2.6",
    "requests": "pkg:pypi/requests@2.32.3",
}
# The lock's edges (npm: wrap@1.0.0 is left-pad's nested copy).
EDGES = {
    ("curl", "libc6"), ("curl", "libcurl4"), ("libcurl4", "libc6"),
    ("left-pad", "fsevents"), ("left-pad", "wrap@1"), ("wrap@1", "@scope/util"),
    ("requests", "certifi"), ("requests", "numpy"),
}
# requestedBy spec or protected: what the base image's root depends on.
ROOTS = {"curl", "tzdata", "left-pad", "wrap@2", "ipykernel", "numpy", "requests"}


def sha256_of(name):   # data/sbom.lock's synthetic hashes: sha256/sha512 of the file name
    return hashlib.sha256(name.encode()).hexdigest()


def sha512_of(name):
    return hashlib.sha512(name.encode()).hexdigest()


HASHES = {
    "curl": {("SHA-256", sha256_of("curl_7.88.1-10+deb12u12_amd64.deb"))},
    "libc6": set(),
    "@scope/util": {("SHA-512", sha512_of("util-1.0.0.tgz"))},
    "numpy": {("SHA-256", sha256_of("numpy-2.2.6-cp313-cp313-manylinux_2_17_x86_64."
                                    "manylinux2014_x86_64.whl")),
              ("SHA-256", sha256_of("numpy-2.2.6.tar.gz"))},
}
BY_PURL = {v: k for k, v in PURLS.items()}
# data/sbom.lock's `license` keys; every other package records none.
LICENSES = {
    "@scope/util": "(MIT OR Apache-2.0)",
    "fsevents": "MIT",
    "left-pad": "WTFPL",
    "wrap@2": "Apache-2.0 AND (MIT OR GPL-2.0-only WITH Classpath-exception-2.0)",
    "certifi": "MPL-2.0",
    "requests": "Apache-2.0",
}


def spdx_ids(expr):
    """The license and exception identifiers of an SPDX expression."""
    words = expr.replace("(", " ").replace(")", " ").split()
    return [w for w in words if w not in ("AND", "OR", "WITH")]


def check_license_ids():
    lst = load_schema("spdx.schema.json")["enum"]
    for key, expr in LICENSES.items():
        for i in spdx_ids(expr):
            check(i in lst, f"{key}: `{i}` is not on the SPDX license list")


def check_cyclonedx(doc):
    check(doc["serialNumber"].startswith("urn:uuid:"), "serialNumber is a urn:uuid")
    root = doc["metadata"]["component"]
    check(root["type"] == "container" and root["version"] == "sha256:" + "a" * 64,
          f"root is the base by its datalayer digest: {root}")
    check(doc["metadata"].get("timestamp") == "2026-09-01T12:30:45Z",
          "timestamp is the lock's excludeNewer")
    comps = {c["bom-ref"]: c for c in doc["components"]}
    got = {c["purl"] for c in comps.values()}
    check(got == set(PURLS.values()), f"purls: {sorted(got ^ set(PURLS.values()))}")
    for c in comps.values():
        key = BY_PURL.get(c["purl"])
        if key in HASHES:
            h = {(x["alg"], x["content"]) for x in c.get("hashes", [])}
            check(h == HASHES[key], f"hashes of {key}: {h}")
        want = [{"expression": LICENSES[key], "acknowledgement": "declared"}] \
            if key in LICENSES else None
        check(c.get("licenses") == want, f"licenses of {key}: {c.get('licenses')}")
    edges, roots = set(), set()
    for d in doc["dependencies"]:
        for t in d.get("dependsOn", []):
            if d["ref"] == root["bom-ref"]:
                roots.add(BY_PURL[comps[t]["purl"]])
            else:
                edges.add((BY_PURL[comps[d["ref"]]["purl"]], BY_PURL[comps[t]["purl"]]))
    check(edges == EDGES, f"cyclonedx edges: {sorted(edges ^ EDGES)}")
    check(roots == ROOTS, f"cyclonedx roots: {sorted(roots ^ ROOTS)}")


def check_spdx(doc):
    check(doc["documentNamespace"].startswith("urn:uuid:"), "documentNamespace")
    check(doc["creationInfo"]["created"] == "2026-09-01T12:30:45Z", "created")
    ids = {}
    for p in doc["packages"]:
        purls = [r["referenceLocator"] for r in p.get("externalRefs", [])
                 if r["referenceType"] == "purl"]
        ids[p["SPDXID"]] = BY_PURL.get(purls[0]) if purls else "ROOT"
        check(p["licenseConcluded"] == "NOASSERTION", "no license concluded")
        check(p["licenseDeclared"] == LICENSES.get(ids[p["SPDXID"]], "NOASSERTION"),
              f"licenseDeclared of {ids[p['SPDXID']]}: {p['licenseDeclared']}")
    check(set(ids.values()) == set(PURLS) | {"ROOT"}, f"spdx packages {sorted(ids.values())}")
    edges, roots = set(), set()
    for r in doc["relationships"]:
        if r["relationshipType"] != "DEPENDS_ON":
            continue
        a, b = ids[r["spdxElementId"]], ids[r["relatedSpdxElement"]]
        (roots.add(b) if a == "ROOT" else edges.add((a, b)))
    check(edges == EDGES, f"spdx edges: {sorted(edges ^ EDGES)}")
    check(roots == ROOTS, f"spdx roots: {sorted(roots ^ ROOTS)}")


def cdx_library_count(cdx_text):
    """The number of components @cyclonedx/cyclonedx-library's strict 1.6
    validator reads from cdx_text, as (ok, stdout, stderr); None when that
    library (ENVLOCK_CDX_LIB) or node is not installed."""
    lib = os.environ.get("ENVLOCK_CDX_LIB")
    if not lib or not shutil.which("node") or \
            not os.path.isdir(os.path.join(lib, "@cyclonedx", "cyclonedx-library")):
        return None
    js = ("const cdx = require('@cyclonedx/cyclonedx-library');"
          "const v = new cdx.Validation.JsonStrictValidator(cdx.Spec.Version.v1dot6);"
          "const t = require('fs').readFileSync(0, 'utf8');"
          "v.validate(t).then(e => { if (e) { console.log(JSON.stringify(e)); process.exit(1) }"
          " console.log(JSON.parse(t).components.length) },"
          " e => { console.log(String(e)); process.exit(2) })")
    r = subprocess.run(["node", "-e", js], input=cdx_text, capture_output=True,
                       env=dict(os.environ, NODE_PATH=lib))
    return r.returncode == 0, r.stdout.strip(), r.stderr


def read_back(cdx_text, tmp):
    got = cdx_library_count(cdx_text)
    if got is None:
        print("sbom_check: @cyclonedx/cyclonedx-library not installed, read-back skipped")
        return
    ok, out, err = got
    check(ok and out == str(len(PURLS)).encode(),
          f"cyclonedx-library read-back: {out!r} {err!r}")


def hostile(lock):
    text = open(lock).read()
    bad = [text.replace('version: "2.2.6"', 'version: "2.2.6\\", \\"x\\": {\\""', 1),
           text.replace('name: tzdata', 'name: "tz\\ndata"', 1),
           text.replace('license: MPL-2.0', 'license: "MPL-2.0\\", \\"x\\": \\""', 1),
           text.replace('license: MPL-2.0', 'license: "MIT\\nAND ISC"', 1)]
    with tempfile.TemporaryDirectory() as t:
        for i, b in enumerate(bad):
            check(b != text, f"hostile case {i} did not apply")
            p = os.path.join(t, f"bad{i}.lock")
            open(p, "w").write(b)
            for fmt in ("cyclonedx", "spdx"):
                r = subprocess.run([ENVLOCK, "export", p, "--format", fmt], capture_output=True)
                check(r.returncode != 0 and b"DL_ENV_SPEC_INVALID" in r.stderr and not r.stdout,
                      f"hostile lock {i} as {fmt}: rc {r.returncode} {r.stderr[:200]!r}")


def main():
    lock = os.path.join(DATA, "sbom.lock")
    with tempfile.TemporaryDirectory() as t1, tempfile.TemporaryDirectory() as t2:
        a, b = os.path.join(t1, "x", "env.lock"), os.path.join(t2, "other", "place", "l.lock")
        for p in (a, b):
            os.makedirs(os.path.dirname(p))
            shutil.copy(lock, p)
        for fmt in ("cyclonedx", "spdx"):
            r1 = export(lock, fmt, DATA, {})
            r2 = export(lock, fmt, DATA, {})
            r3 = export(a, fmt, t1, {"TZ": "Asia/Kolkata", "XDG_CACHE_HOME": t1})
            r4 = export(b, fmt, t2, {"TZ": "America/Lima", "XDG_CACHE_HOME": t2, "LC_ALL": "C"})
            check(r1 == r2 == r3 == r4, f"{fmt}: not the same bytes across runs and places")
            for leak in (t1, t2, DATA, os.path.basename(b)):
                check(leak.encode() not in r1 + r3 + r4, f"{fmt}: `{leak}` in the SBOM")
            doc = json.loads(r1)
            if fmt == "cyclonedx":
                errs = validate(doc, "bom-1.6.schema.json",
                                ["spdx.schema.json", "jsf-0.82.schema.json"])
                check_cyclonedx(doc)
                read_back(r1, t1)
            else:
                errs = validate(doc, "spdx-2.3.schema.json", [])
                check_spdx(doc)
            check(not errs, f"{fmt} schema: {errs[:5]}")
    hostile(lock)
    check_license_ids()
    for f in FAILS:
        print("FAIL:", f)
    print(f"sbom_check: {len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""resolve_advisories.py ENVLOCK PART — `envlock resolve --advisories` on
fixture mirrors (tests/fixtures/build_mirror.py, as the scenario suite
builds them) with the real OSV records of tests/advisories/records:

- GHSA-9wx4-h78v-vm56: requests, introduced 0, fixed 2.32.2 (MODERATE);
- GHSA-35jh-r3h4-6jhm: lodash, introduced 0, fixed 4.17.21 (HIGH);
- DSA-5514-1: Debian:12 source package glibc, fixed 2.36-9+deb12u3.

Every expectation below is read off those ranges, not off envlock: an
affected version is one below the record's `fixed`. PARTS: pypi (avoid
picks the dependent whose range admits an unaffected requests; block
refuses a pin below the fix, naming the advisory and the fix; --ignore
lets it through and is recorded; determinism), npm (the same for lodash),
deb (libc6 matched through its Packages `Source: glibc`), check (`check
--advisories` reports an advisory the lock did not know of), malformed (a
broken record is an error naming the file)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RECORDS = os.path.join(HERE, "records")
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
from resolve_env import Check, Env, block_of, locked  # noqa: E402,F401 (resolve_policy.py)

# app 2.0 caps requests below the fix, app 1.0 does not: only app 1.0 with
# requests 2.32.3 is free of GHSA-9wx4-h78v-vm56.
PYPI = """scenario: advisories-pypi
description: requests under GHSA-9wx4-h78v-vm56
tags: pypi

pypi app 2.0
  requires-python: >=3.8
  requires-dist: requests<2.32
  wheel: py3-none-any
pypi app 1.0
  requires-python: >=3.8
  requires-dist: requests>=2.0
  wheel: py3-none-any
pypi requests 2.32.3
  requires-python: >=3.8
  wheel: py3-none-any
pypi requests 2.32.2
  requires-python: >=3.8
  wheel: py3-none-any
pypi requests 2.31.0
  requires-python: >=3.7
  wheel: py3-none-any
pypi requests 2.30.0
  requires-python: >=3.7
  wheel: py3-none-any

"""

# tool 2.0.0 (latest) pins lodash 4.17.20, tool 1.0.0 takes ^4.17.0.
NPM = """scenario: advisories-npm
description: lodash under GHSA-35jh-r3h4-6jhm
tags: npm

npm tool 2.0.0
  dep: lodash 4.17.20
  time: 2024-01-02T00:00:00Z
npm tool 1.0.0
  dep: lodash ^4.17.0
  time: 2024-01-01T00:00:00Z
npm lodash 4.17.21
  time: 2021-02-20T15:42:16Z
npm lodash 4.17.20
  time: 2020-08-13T16:53:54Z

"""

DEB = """scenario: advisories-deb
description: libc6 (source glibc) under DSA-5514-1
tags: deb

apt-suite: bookworm url=http://deb.debian.org/debian
deb libc6 2.36-9+deb12u1
  multi-arch: same
  priority: required
  section: libs
  source: glibc
deb libc6 2.36-9+deb12u4
  multi-arch: same
  priority: required
  section: libs
  source: glibc

"""


def blocked_ok(check, what, res, advisory, aliases, package, version, fix):
    rc, js, _text, err = res
    check(rc == 19, what + ": exit status 19 (DL_ENV_SCAN_BLOCKED)", (rc, err))
    e = (js or {}).get("error", js or {})
    check(e.get("code") == "DL_ENV_SCAN_BLOCKED", what + ": the code", js)
    b = (e.get("detail") or {}).get("blocked") or [{}]
    want = {"advisory": advisory, "aliases": aliases, "package": package, "version": version}
    got = {k: b[0].get(k) for k in want}
    check(got == want, what + ": the advisory and the package", b)
    check(fix in (b[0].get("fix") or "") and fix in e.get("message", ""),
          what + ": the fix `%s` in detail and message" % fix, e)
    check("spec" in (b[0].get("chain") or ""), what + ": the chain from the spec", b)


def part_pypi(envlock, work, check):
    GH = "GHSA-9wx4-h78v-vm56"
    e = Env(envlock, PYPI, "python", ["app"], work, "pypi")
    rc, _js, plain, err = e.resolve()
    check(rc == 0 and locked(plain, "pypi", "app") == ["2.0"] and
          locked(plain, "pypi", "requests") == ["2.31.0"],
          "pypi: without advisories app 2.0 with requests 2.31.0", (rc, err, plain))
    # avoid: requests 2.31.0 < 2.32.2 is affected; app 2.0 admits only
    # requests<2.32, all affected, so app 1.0 with the newest requests
    # (2.32.3, not below the fix) is the answer
    res = e.resolve("--advisories", RECORDS)
    rc, js, text, err = res
    check(rc == 0 and locked(text, "pypi", "app") == ["1.0"] and
          locked(text, "pypi", "requests") == ["2.32.3"],
          "pypi avoid: app 1.0 with requests 2.32.3", (rc, err, text))
    check(rc == 0 and not [n for n in js.get("notes", []) if GH in n],
          "pypi avoid: no note when nothing affected is kept", js)
    res2 = e.resolve("--advisories", RECORDS, "--vulnerable", "block")
    check(res2[0] == 0 and res2[2] and locked(res2[2], "pypi", "requests") == ["2.32.3"],
          "pypi block: the same unaffected answer", res2[3])
    # determinism: the same spec and snapshot give the same bytes
    res3 = e.resolve("--advisories", RECORDS)
    check(res3[2] == text and text is not None, "pypi: two resolves, the same lock bytes")
    snap = block_of(text, "advisories")
    check(snap.get("touched") == "[%s]" % GH and snap.get("ignored") == "[]" and
          snap.get("vulnerable") == "avoid" and snap.get("newest") == '"2024-05-20T22:07:29Z"'
          and snap.get("snapshot", "").startswith('"sha256:'),
          "pypi: the lock records the snapshot, its newest record and the advisory that "
          "touched requests", snap)
    check(e.check(os.path.join(e.work, "lock2", "envlock.lock"))[0] == 0,
          "pypi: `check` accepts the lock with the advisories input",
          e.check(os.path.join(e.work, "lock2", "envlock.lock")))
    # a pin below the fix
    e2 = Env(envlock, PYPI, "python", ["requests<2.32"], work, "pypi-pin")
    rc, js, text, err = e2.resolve("--advisories", RECORDS)
    notes = [n for n in (js or {}).get("notes", []) if GH in n]
    check(rc == 0 and locked(text, "pypi", "requests") == ["2.31.0"] and notes and
          "requests@2.31.0" in notes[0], "pypi avoid: only affected versions fit: kept, noted",
          (rc, err, js))
    blocked_ok(check, "pypi block", e2.resolve("--advisories", RECORDS, "--vulnerable", "block"),
               GH, ["CVE-2024-35195"], "requests", "2.31.0",
               "raise the pin at spec line %d to `>=2.32.2`" % e2.line)
    for ign in (GH, "CVE-2024-35195"):
        rc, js, text, err = e2.resolve("--advisories", RECORDS, "--vulnerable", "block",
                                       "--ignore", ign)
        check(rc == 0 and locked(text, "pypi", "requests") == ["2.31.0"],
              "pypi block --ignore %s: let through" % ign, (rc, err))
        snap = block_of(text or "", "advisories")
        check(rc == 0 and snap.get("ignored") == "[%s]" % ign and snap.get("touched") == "[]",
              "pypi --ignore %s: recorded as ignored, not as touched" % ign, snap)
    rc, js, text, err = e2.resolve("--advisories", RECORDS, "--vulnerable", "allow")
    check(rc == 0 and locked(text, "pypi", "requests") == ["2.31.0"] and
          [n for n in js.get("notes", []) if GH in n], "pypi allow: kept and noted", (rc, js))


def part_npm(envlock, work, check):
    GH = "GHSA-35jh-r3h4-6jhm"
    e = Env(envlock, NPM, "node", ["tool@^1.0.0 || ^2.0.0"], work, "npm")
    rc, _js, plain, err = e.resolve()
    check(rc == 0 and locked(plain, "npm", "tool") == ["2.0.0"] and
          locked(plain, "npm", "lodash") == ["4.17.20"],
          "npm: without advisories tool 2.0.0 with lodash 4.17.20", (rc, err, plain))
    rc, js, text, err = e.resolve("--advisories", RECORDS)
    check(rc == 0 and locked(text, "npm", "lodash") == ["4.17.21"] and
          locked(text, "npm", "tool") == ["1.0.0"],
          "npm avoid: tool 1.0.0 with lodash 4.17.21 (not below the fix)", (rc, err, text))
    check(rc == 0 and e.resolve("--advisories", RECORDS)[2] == text,
          "npm: two resolves, the same lock bytes")
    e2 = Env(envlock, NPM, "node", ["lodash@4.17.20"], work, "npm-pin")
    blocked_ok(check, "npm block", e2.resolve("--advisories", RECORDS, "--vulnerable", "block"),
               GH, ["CVE-2021-23337"], "lodash", "4.17.20",
               "raise the pin at spec line %d to `>=4.17.21`" % e2.line)
    rc, js, text, err = e2.resolve("--advisories", RECORDS, "--vulnerable", "block",
                                   "--ignore", GH)
    check(rc == 0 and locked(text, "npm", "lodash") == ["4.17.20"] and
          block_of(text, "advisories").get("ignored") == "[%s]" % GH,
          "npm block --ignore: let through and recorded", (rc, err))


def part_deb(envlock, work, check):
    if not (shutil.which("dpkg-deb") and shutil.which("gpg")):
        print("SKIP: dpkg-deb and gpg are needed to build an apt mirror")
        return 77
    e = Env(envlock, DEB, "apt", ["libc6=2.36-9+deb12u1"], work, "deb")
    blocked_ok(check, "deb block", e.resolve("--advisories", RECORDS, "--vulnerable", "block"),
               "DSA-5514-1", [], "libc6", "2.36-9+deb12u1", "glibc 2.36-9+deb12u3")
    rc, js, text, err = e.resolve("--advisories", RECORDS)
    check(rc == 0 and [n for n in js.get("notes", []) if "DSA-5514-1" in n and "glibc" in n],
          "deb avoid: the pinned libc6 kept, the note names DSA-5514-1 and glibc", (rc, js, err))
    check(rc == 0 and "  sourcePackage: glibc\n" in text and "sourceVersion" not in text,
          "deb: the lock records libc6's source package glibc (its Packages `Source:`), "
          "no source version (the same as libc6's)", text)
    lock = os.path.join(e.work, "lock%d" % e.n, "envlock.lock")
    p = subprocess.run([envlock, "--json", "audit", lock, "--advisories", RECORDS],
                       capture_output=True, text=True)
    try:
        fs = json.loads(p.stdout).get("findings", [])
    except ValueError:
        fs = []
    check(p.returncode == 1 and
          [(f["name"], f["version"], f["advisory"], f["fixed"], f["source"]) for f in fs] ==
          [("libc6", "2.36-9+deb12u1", "DSA-5514-1", "2.36-9+deb12u3", "glibc 2.36-9+deb12u1")],
          "audit: libc6 2.36-9+deb12u1 affected by DSA-5514-1 through its source glibc, "
          "fixed in 2.36-9+deb12u3, offline", (p.returncode, p.stdout, p.stderr))
    rc2, out = e.check(lock, "--advisories", RECORDS)
    check(rc2 == 0, "check --advisories: the lock was made with DSA-5514-1 (touched)", (rc2, out))
    plain_env = Env(envlock, DEB, "apt", ["libc6=2.36-9+deb12u1"], work, "deb-plain")
    rc, js, text, err = plain_env.resolve()
    plain = os.path.join(plain_env.work, "lock%d" % plain_env.n, "envlock.lock")
    rc2, out = plain_env.check(plain, "--advisories", RECORDS)
    check(rc == 0 and rc2 == 1 and "advisory DSA-5514-1 now affects deb:libc6@2.36-9+deb12u1 "
          "(source glibc 2.36-9+deb12u1) (fixed in 2.36-9+deb12u3)" in out,
          "check --advisories: a lock made without them is stale, matched through glibc",
          (rc, err, rc2, out))
    e2 = Env(envlock, DEB, "apt", ["libc6"], work, "deb-free")
    rc, js, text, err = e2.resolve("--advisories", RECORDS, "--vulnerable", "block")
    check(rc == 0 and locked(text, "deb", "libc6") == ["2.36-9+deb12u4"],
          "deb block: libc6 2.36-9+deb12u4 (not below glibc's fix)", (rc, err))
    return 0


def part_check(envlock, work, check):
    """`check --advisories`: an advisory the lock did not know of makes it
    stale; one it was made with (touched or ignored) does not."""
    GH = "GHSA-9wx4-h78v-vm56"
    e = Env(envlock, PYPI, "python", ["requests<2.32"], work, "check")
    rc, _js, text, err = e.resolve()
    plain = os.path.join(e.work, "lock1", "envlock.lock")
    check(rc == 0 and locked(text, "pypi", "requests") == ["2.31.0"],
          "check: a lock made without advisories holds requests 2.31.0", (rc, err))
    check(e.check(plain)[0] == 0, "check: current without --advisories", e.check(plain))
    rc, out = e.check(plain, "--advisories", RECORDS)
    check(rc == 1 and "advisory %s now affects pypi:requests@2.31.0 (fixed in 2.32.2)" % GH
          in out, "check --advisories: the new advisory makes the lock stale, with its fix",
          (rc, out))
    rc, _js, _t, err = e.resolve("--advisories", RECORDS)
    known = os.path.join(e.work, "lock2", "envlock.lock")
    check(rc == 0 and e.check(known, "--advisories", RECORDS)[0] == 0,
          "check --advisories: a lock made with the snapshot knew of it (touched)",
          e.check(known, "--advisories", RECORDS))
    rc, _js, _t, err = e.resolve("--advisories", RECORDS, "--vulnerable", "block",
                                 "--ignore", "CVE-2024-35195")
    ign = os.path.join(e.work, "lock3", "envlock.lock")
    check(rc == 0 and e.check(ign, "--advisories", RECORDS)[0] == 0,
          "check --advisories: an advisory the lock ignored (by alias) is not news",
          e.check(ign, "--advisories", RECORDS))


def part_form(envlock, work, check):
    """The snapshot's parsed form in the cache: read on the second resolve
    (the same lock), and not read once a record changed: raising
    GHSA-9wx4-h78v-vm56's fix to 2.33.0 makes requests 2.32.3 affected too,
    so only a re-read snapshot moves the answer."""
    snap = os.path.join(work, "snap")
    shutil.copytree(RECORDS, snap)
    e = Env(envlock, PYPI, "python", ["app"], work, "form")
    cache = os.path.join(e.work, "shared-cache")
    stats = {"ENVLOCK_DEBUG_STATS": "1"}

    def run():
        return e.resolve("--advisories", snap, cache=cache, env_add=stats)

    rc, _js, first, err = run()
    check(rc == 0 and "advisories: snapshot parsed" in err and
          locked(first, "pypi", "requests") == ["2.32.3"],
          "a cold cache: the snapshot parsed, requests 2.32.3", (rc, err))
    rc, _js, second, err = run()
    check(rc == 0 and "advisories: parsed form read" in err and second == first,
          "warm: the parsed form read, the same lock bytes", (rc, err))
    rec = os.path.join(snap, "PyPI", "GHSA-9wx4-h78v-vm56.json")
    with open(rec) as f:
        doc = json.load(f)
    doc["affected"][0]["ranges"][0]["events"][1]["fixed"] = "2.33.0"
    with open(rec, "w") as f:
        json.dump(doc, f)
    rc, _js, third, err = run()
    check(rc == 0 and "advisories: snapshot parsed" in err and
          locked(third, "pypi", "requests") == ["2.31.0"],
          "a changed record: parsed again, every requests affected, so the avoid answer "
          "keeps app 2.0's requests 2.31.0 (noted)", (rc, err, third))


def part_malformed(envlock, work, check):
    snap = os.path.join(work, "snap")
    shutil.copytree(RECORDS, snap)
    bad = os.path.join(snap, "PyPI", "broken.json")
    with open(bad, "w") as f:
        f.write('{"id": "GHSA-xxxx-xxxx-xxxx", "modified": "2024-01-01T00:00:00Z", '
                '"affected": [{"package": {"ecosystem": "PyPI", "name": "requests"}, '
                '"ranges": [{"type": "ECOSYSTEM", "events": "not a list"}]}]}')
    e = Env(envlock, PYPI, "python", ["app"], work, "malformed")
    rc, js, _text, err = e.resolve("--advisories", snap)
    err_js = (js or {}).get("error", js or {})
    check(rc != 0 and err_js.get("code") == "DL_ENV_SPEC_INVALID" and
          "PyPI/broken.json" in err_js.get("message", ""),
          "malformed: DL_ENV_SPEC_INVALID naming PyPI/broken.json", (rc, js, err))
    rc, js, _text, err = e.resolve("--vulnerable", "block")
    check(rc == 2, "--vulnerable without --advisories: a usage error", (rc, err))
    rc, js, _text, err = e.resolve("--advisories", RECORDS, "--vulnerable", "never")
    check(rc == 2, "--vulnerable never: a usage error", (rc, err))


def main():
    envlock, part = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="envlock-adv-resolve-")
    check = Check()
    status = 0
    try:
        status = {"pypi": part_pypi, "npm": part_npm, "deb": part_deb, "check": part_check,
                  "malformed": part_malformed, "form": part_form}[part](envlock, work, check) or 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if check.failures:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())

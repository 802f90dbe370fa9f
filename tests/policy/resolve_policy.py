#!/usr/bin/env python3
"""resolve_policy.py ENVLOCK PART — `envlock resolve --policy` (docs/policy.md)
on the fixture mirrors of tests/advisories/resolve_advisories.py (the same
packages, here denied by a policy instead of affected by an advisory).

Every expectation is read off the fixtures and the rule: requests 2.30.0,
2.31.0 and 2.32.2 lie in `<2.32.2`, app 2.0 admits only requests<2.32, so
the only answer without a denied version is app 1.0 with requests 2.32.3;
lodash 4.17.20 lies in `<4.17.21`, so tool 1.0.0 (^4.17.0) with lodash
4.17.21; libc6 is built from glibc, so a rule on the source glibc
`<< 2.36-9+deb12u3` denies libc6 2.36-9+deb12u1. PARTS: deny (the three
ecosystems, the refusal and its exit status 18), sources (index, registry
and apt source prefixes), check (`check --policy` on a lock made before the
rule), malformed (the file's errors and their places), cooldown
(minimumReleaseAge against the release times the fixtures publish),
licenses (the licenses core metadata and packuments declare), licenses_full
(a registry that, like registry.npmjs.org, leaves `license` out of the
abbreviated document it serves for `Accept: application/vnd.npm.install-v1+json`),
lock_licenses (the licenses the lock records), validate (`validate
--policy`: the spec's own sources, at their lines)."""

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "advisories"))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import resolve_advisories as ra  # noqa: E402
import resolve_env  # noqa: E402 (tests/fixtures, on sys.path through resolve_advisories) (the fixture mirrors' texts)
import resolve_env as renv  # noqa: E402
import servers  # noqa: E402


def write_policy(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def error_of(js):
    return (js or {}).get("error", js or {})


def denied_ok(check, what, res, package, version, rule):
    rc, js, _text, err = res
    e = error_of(js)
    d = ((e.get("detail") or {}).get("denied") or [{}])[0]
    check(rc == 18 and e.get("code") == "DL_ENV_POLICY_DENIED",
          what + ": DL_ENV_POLICY_DENIED, exit status 18", (rc, js, err))
    check(d.get("package") == package and d.get("version") == version and
          d.get("rule") == rule, what + ": names %s %s and the rule `%s`" % (package, version, rule), d)
    check("spec" in (d.get("chain") or "") and rule in e.get("message", ""),
          what + ": the chain from the spec, the rule in the message", e)


def part_deny(envlock, work, check):
    pol = write_policy(work, "deny.yaml", """\
# what the organization refuses
deny:
  - ecosystem: pypi
    name: Requests
    versions: "<2.32.2"
    reason: CVE-2024-35195
  - ecosystem: npm
    name: lodash
    versions: "<4.17.21"
""")
    e = renv.Env(envlock, ra.PYPI, "python", ["app"], work, "pypi")
    rc, js, text, err = e.resolve("--policy", pol)
    check(rc == 0 and renv.locked(text, "pypi", "app") == ["1.0"] and
          renv.locked(text, "pypi", "requests") == ["2.32.3"],
          "pypi: the denied requests kept out: app 1.0 with requests 2.32.3", (rc, err, text))
    check(rc == 0 and e.resolve("--policy", pol)[2] == text, "pypi: two resolves, the same bytes")
    e2 = renv.Env(envlock, ra.PYPI, "python", ["requests<2.32"], work, "pypi-pin")
    denied_ok(check, "pypi pin", e2.resolve("--policy", pol), "requests", "2.31.0",
              "pypi requests <2.32.2")
    rc, js, _t, _e = e2.resolve("--policy", pol)
    check("CVE-2024-35195" in error_of(js).get("message", ""),
          "pypi pin: the rule's reason in the message", js)
    whole = write_policy(work, "whole.yaml", "deny:\n  - {ecosystem: pypi, name: app}\n")
    denied_ok(check, "pypi: a rule without versions denies every one", e.resolve("--policy", whole),
              "app", "2.0", "pypi app")

    n = renv.Env(envlock, ra.NPM, "node", ["tool@^1.0.0 || ^2.0.0"], work, "npm")
    rc, js, text, err = n.resolve("--policy", pol)
    check(rc == 0 and renv.locked(text, "npm", "tool") == ["1.0.0"] and
          renv.locked(text, "npm", "lodash") == ["4.17.21"],
          "npm: tool 1.0.0 with lodash 4.17.21", (rc, err, text))
    n2 = renv.Env(envlock, ra.NPM, "node", ["tool@2.0.0"], work, "npm-pin")
    denied_ok(check, "npm: tool 2.0.0 pins lodash 4.17.20", n2.resolve("--policy", pol),
              "lodash", "4.17.20", "npm lodash <4.17.21")
    return part_deb(envlock, work, check)


def part_deb(envlock, work, check):
    if not (shutil.which("dpkg-deb") and shutil.which("gpg")):
        print("SKIP: dpkg-deb and gpg are needed to build an apt mirror")
        return 77
    pol = write_policy(work, "deb.yaml",
                       "deny:\n  - ecosystem: deb\n    name: glibc\n    versions: '<< 2.36-9+deb12u3'\n")
    e = renv.Env(envlock, ra.DEB, "apt", ["libc6"], work, "deb")
    rc, js, text, err = e.resolve("--policy", pol)
    check(rc == 0 and renv.locked(text, "deb", "libc6") == ["2.36-9+deb12u4"],
          "deb: a rule on the source glibc leaves libc6 2.36-9+deb12u4", (rc, err, text))
    e2 = renv.Env(envlock, ra.DEB, "apt", ["libc6=2.36-9+deb12u1"], work, "deb-pin")
    denied_ok(check, "deb pin", e2.resolve("--policy", pol), "libc6", "2.36-9+deb12u1",
              "deb glibc << 2.36-9+deb12u3")
    return 0


def part_sources(envlock, work, check):
    e = renv.Env(envlock, ra.PYPI, "python", ["app"], work, "pypi")
    other = write_policy(work, "other.yaml", "indexes:\n  - https://pypi.internal.example/simple/\n")
    rc, js, _text, err = e.resolve("--policy", other)
    d = error_of(js).get("detail") or {}
    check(rc == 18 and d.get("reason") == "source_denied" and d.get("rule") == "indexes" and
          d.get("url") == "https://pypi.org/simple" and d.get("line") == 2 and
          "other.yaml:2:3" in error_of(js).get("message", ""),
          "an index outside `indexes`: source_denied at other.yaml:2:3", (rc, js, err))
    near = write_policy(work, "near.yaml", "indexes: [https://pypi.or]\n")
    rc, js, _t, err = e.resolve("--policy", near)
    check(rc == 18, "a prefix ends at a boundary: https://pypi.or does not admit pypi.org", (rc, js))
    ok = write_policy(work, "ok.yaml", "indexes: [https://pypi.org]\nregistries: [https://x.example/]\n")
    rc, js, _t, err = e.resolve("--policy", ok)
    check(rc == 0, "https://pypi.org admits https://pypi.org/simple/; registries do not "
          "matter to a spec without npm", (rc, js, err))
    os.environ["ENVLOCK_POLICY"] = other
    try:
        rc, js, _t, err = e.resolve()
        check(rc == 18 and (error_of(js).get("detail") or {}).get("rule") == "indexes",
              "ENVLOCK_POLICY: the policy without --policy", (rc, js, err))
        rc, js, _t, err = e.resolve("--policy", ok)
        check(rc == 0, "--policy wins over ENVLOCK_POLICY", (rc, js, err))
        os.environ["ENVLOCK_POLICY"] = ""
        check(e.resolve()[0] == 0, "an empty ENVLOCK_POLICY is none")
    finally:
        del os.environ["ENVLOCK_POLICY"]
    p = renv.Env(envlock, ra.PYPI, "python", ["requests<2.32"], work, "advisories-env")
    os.environ["ENVLOCK_ADVISORIES"] = ra.RECORDS
    try:
        rc, js, _t, err = p.resolve()
    finally:
        del os.environ["ENVLOCK_ADVISORIES"]
    check(rc == 0 and [x for x in js.get("notes", []) if "GHSA-9wx4-h78v-vm56" in x],
          "ENVLOCK_ADVISORIES: the snapshot without --advisories (the kept requests "
          "2.31.0 noted)", (rc, js, err))
    n = renv.Env(envlock, ra.NPM, "node", ["tool@^1.0.0"], work, "npm")
    rc, js, _t, err = n.resolve("--policy", ok)
    check(rc == 18 and (error_of(js).get("detail") or {}).get("url") == "https://registry.npmjs.org",
          "an npm registry outside `registries`", (rc, js, err))


def part_check(envlock, work, check):
    """A lock made before a rule was added is stale under it."""
    e = renv.Env(envlock, ra.PYPI, "python", ["requests<2.32"], work, "check")
    rc, _js, text, err = e.resolve()
    lock = os.path.join(e.work, "lock1", "envlock.lock")
    check(rc == 0 and renv.locked(text, "pypi", "requests") == ["2.31.0"],
          "check: the lock holds requests 2.31.0", (rc, err))
    check(e.check(lock)[0] == 0, "check: current without a policy", e.check(lock))
    rule = write_policy(work, "later.yaml", "deny:\n  - {ecosystem: pypi, name: requests, "
                        "versions: '<2.32.2'}\n")
    rc, report = e.check(lock, "--policy", rule)
    check(rc == 1 and "pypi:requests@2.31.0: denied by the policy rule `pypi requests <2.32.2`"
          in report and "later.yaml:2:5" in report, "check --policy: the denied version makes "
          "the lock stale, naming the rule and its place", (rc, report))
    other = write_policy(work, "idx.yaml", "indexes: [https://pypi.internal.example]\n")
    rc, js = e.check(lock, "--policy", other)
    check(rc == 1 and "its source https://pypi.org/simple is outside the policy's indexes"
          in js, "check --policy: a source outside the prefixes", (rc, js))
    os.environ["ENVLOCK_POLICY"] = rule
    try:
        rc, js = e.check(lock)
    finally:
        del os.environ["ENVLOCK_POLICY"]
    check(rc == 1, "check: ENVLOCK_POLICY without --policy", (rc, js))
    fine = write_policy(work, "fine.yaml", "indexes: [https://pypi.org]\ndeny:\n"
                        "  - {ecosystem: pypi, name: requests, versions: '<2'}\n")
    check(e.check(lock, "--policy", fine)[0] == 0, "check --policy: nothing denied, current",
          e.check(lock, "--policy", fine))


# Release times (PEP 700 upload-time, npm `time`) around the cutoff
# 2026-12-01T00:00:00Z: with a 7-day cooldown only what was released before
# 2026-11-24T00:00:00Z may be installed. app 2.0 and requests 2.32.3 are
# younger; fresh has a single young version; dated has no upload time.
COOL_PYPI = """scenario: cooldown-pypi
description: minimumReleaseAge on PyPI
tags: pypi

pypi app 2.0
  requires-python: >=3.8
  requires-dist: requests>=2.31
  upload-time: 2026-11-28T10:00:00Z
  wheel: py3-none-any
pypi app 1.0
  requires-python: >=3.8
  requires-dist: requests>=2.0
  upload-time: 2025-01-01T00:00:00Z
  wheel: py3-none-any
pypi requests 2.32.3
  requires-python: >=3.8
  upload-time: 2026-11-23T23:59:59Z
  wheel: py3-none-any
pypi requests 2.32.4
  requires-python: >=3.8
  upload-time: 2026-11-24T00:00:01Z
  wheel: py3-none-any
pypi fresh 1.0
  requires-python: >=3.8
  upload-time: 2026-11-30T00:00:00Z
  wheel: py3-none-any
pypi dated 1.0
  requires-python: >=3.8
  upload-time: none
  wheel: py3-none-any

"""

# tool 3.0.0 is published in 2099: younger than any cooldown measured from
# the clock, so it also shows the full packument (with `time`) is fetched
# without a cutoff.
COOL_NPM = """scenario: cooldown-npm
description: minimumReleaseAge on npm
tags: npm

npm tool 3.0.0
  dep: lodash ^4.17.0
  time: 2099-01-01T00:00:00Z
npm tool 2.0.0
  dep: lodash ^4.17.0
  time: 2026-11-29T00:00:00Z
npm tool 1.0.0
  dep: lodash ^4.17.0
  time: 2024-01-01T00:00:00Z
npm lodash 4.17.21
  time: 2021-02-20T15:42:16Z

"""

CUTOFF = ("--exclude-newer", "2026-12-01T00:00:00Z")


def part_cooldown(envlock, work, check):
    pol = write_policy(work, "cool.yaml", "minimumReleaseAge:\n  pypi: 7d\n  npm: 1w\n")
    e = renv.Env(envlock, COOL_PYPI, "python", ["app"], work, "pypi")
    rc, js, text, err = e.resolve(*CUTOFF)
    check(rc == 0 and renv.locked(text, "pypi", "app") == ["2.0"] and
          renv.locked(text, "pypi", "requests") == ["2.32.4"],
          "without a policy: app 2.0, requests 2.32.4", (rc, err, text))
    rc, js, text, err = e.resolve("--policy", pol, *CUTOFF)
    check(rc == 0 and renv.locked(text, "pypi", "app") == ["1.0"] and
          renv.locked(text, "pypi", "requests") == ["2.32.3"],
          "7d before the cutoff: app 1.0 and requests 2.32.3 (a second younger than "
          "2.32.4 would be too young)", (rc, err, text))
    check(rc == 0 and e.resolve("--policy", pol, *CUTOFF)[2] == text,
          "cooldown: two resolves, the same bytes")
    ex = write_policy(work, "exempt.yaml", "minimumReleaseAge:\n  pypi: 7d\n  exempt:\n"
                      "    - {ecosystem: pypi, name: Requests}\n")
    rc, js, text, err = e.resolve("--policy", ex, *CUTOFF)
    check(rc == 0 and renv.locked(text, "pypi", "app") == ["1.0"] and
          renv.locked(text, "pypi", "requests") == ["2.32.4"],
          "an exempt name (written unnormalized) takes its newest", (rc, err, text))
    f = renv.Env(envlock, COOL_PYPI, "python", ["fresh"], work, "fresh")
    rc, js, _t, err = f.resolve("--policy", pol, *CUTOFF)
    d = ((error_of(js).get("detail") or {}).get("denied") or [{}])[0]
    check(rc == 18 and d.get("rule") == "pypi minimumReleaseAge 7d" and
          d.get("published") == "2026-11-30T00:00:00Z" and d.get("line") == 2 and
          "released 2026-11-30T00:00:00Z" in error_of(js).get("message", ""),
          "a single young version: DL_ENV_POLICY_DENIED naming the cooldown, the release "
          "time and cool.yaml:2", (rc, js, err))
    # (a cutoff excludes a file without upload-time by itself, so no cutoff)
    u = renv.Env(envlock, COOL_PYPI, "python", ["dated"], work, "dated")
    rc, js, _t, err = u.resolve("--policy", pol)
    check(rc == 18 and "no release time" in error_of(js).get("message", ""),
          "no upload-time: its age cannot be proven, denied", (rc, js, err))
    check(u.resolve()[0] == 0, "no upload-time is fine without a cooldown")
    n = renv.Env(envlock, COOL_NPM, "node", ["tool@*"], work, "npm")
    rc, js, text, err = n.resolve("--policy", pol, *CUTOFF)
    check(rc == 0 and renv.locked(text, "npm", "tool") == ["1.0.0"],
          "npm 1w before the cutoff: tool 1.0.0", (rc, err, text))
    rc, js, text, err = n.resolve("--policy", pol)
    check(rc == 0 and renv.locked(text, "npm", "tool") == ["2.0.0"],
          "npm without a cutoff, measured from the clock: tool 2.0.0 (3.0.0 is from "
          "2099)", (rc, err, text))
    rc, js, text, err = n.resolve()
    check(rc == 0 and renv.locked(text, "npm", "tool") == ["3.0.0"],
          "npm without a policy: tool 3.0.0", (rc, err, text))


# Licenses in the forms PyPI's core metadata declares them: PEP 639's
# License-Expression, a Trove classifier, the free-text License field.
# lib 2.0 is GPL-3.0-only, lib 1.0 MIT by its classifier, so with MIT,
# Apache-2.0 and BSD-3-Clause allowed app takes lib 1.0; `BSD License`
# names a family, not a license, so vague's license is unknown.
LIC_PYPI = """scenario: licenses-pypi
description: license policy on PyPI
tags: pypi

pypi app 1.0
  requires-python: >=3.8
  requires-dist: lib
  license-expression: MIT
  wheel: py3-none-any
pypi lib 2.0
  requires-python: >=3.8
  license-expression: GPL-3.0-only
  wheel: py3-none-any
pypi lib 1.0
  requires-python: >=3.8
  classifier: License :: OSI Approved :: MIT License
  wheel: py3-none-any
pypi dual 1.0
  requires-python: >=3.8
  license-expression: GPL-2.0-only OR Apache-2.0
  wheel: py3-none-any
pypi plain 1.0
  requires-python: >=3.8
  license: BSD-3-Clause
  classifier: License :: OSI Approved :: BSD License
  wheel: py3-none-any
pypi vague 1.0
  requires-python: >=3.8
  classifier: License :: OSI Approved :: BSD License
  wheel: py3-none-any

"""

LIC_NPM = """scenario: licenses-npm
description: license policy on npm
tags: npm

npm tool 2.0.0
  license: GPL-3.0
  time: 2024-01-02T00:00:00Z
npm tool 1.0.0
  license: (MIT OR Apache-2.0)
  time: 2024-01-01T00:00:00Z

"""

# An expression whose tokens are separated by runs of spaces (SPDX allows
# any whitespace between them).
LIC_SPACED = """scenario: licenses-spaced
description: a license expression with runs of spaces
tags: pypi

pypi spaced 1.0
  requires-python: >=3.8
  license-expression: MIT   AND  (ISC  OR 0BSD)
  wheel: py3-none-any

"""


def part_licenses(envlock, work, check):
    pol = write_policy(work, "lic.yaml", "licenses:\n  allow: [MIT, Apache-2.0, BSD-3-Clause]\n")
    e = renv.Env(envlock, LIC_PYPI, "python", ["app", "dual", "plain"], work, "pypi")
    rc, js, text, err = e.resolve()
    check(rc == 0 and renv.locked(text, "pypi", "lib") == ["2.0"], "without a policy: lib 2.0",
          (rc, err))
    rc, js, text, err = e.resolve("--policy", pol)
    check(rc == 0 and renv.locked(text, "pypi", "lib") == ["1.0"] and
          renv.locked(text, "pypi", "dual") == ["1.0"] and renv.locked(text, "pypi", "plain") == ["1.0"],
          "GPL-3.0-only lib 2.0 kept out: lib 1.0 (MIT classifier); dual by its Apache-2.0 "
          "choice, plain by its License field", (rc, js, err))
    pin = renv.Env(envlock, LIC_PYPI, "python", ["lib==2.0"], work, "pin")
    rc, js, _t, err = pin.resolve("--policy", pol)
    d = ((error_of(js).get("detail") or {}).get("denied") or [{}])[0]
    check(rc == 18 and d.get("rule") == "licenses" and d.get("license") == "GPL-3.0-only" and
          d.get("line") == 2 and "`GPL-3.0-only`" in error_of(js).get("message", ""),
          "a pin on the GPL version: DL_ENV_POLICY_DENIED naming the license and lic.yaml:2",
          (rc, js, err))
    v = renv.Env(envlock, LIC_PYPI, "python", ["vague"], work, "vague")
    rc, js, _t, err = v.resolve("--policy", pol)
    d = ((error_of(js).get("detail") or {}).get("denied") or [{}])[0]
    check(rc == 18 and "license" in d and d.get("license") is None and
          "no license envlock can read" in error_of(js).get("message", ""),
          "`BSD License` alone is no license: unknown, denied", (rc, js, err))
    for name, text in (("unknown.yaml", "licenses:\n  allow: [MIT]\n  unknown: allow\n"),
                       ("exempt.yaml", "licenses:\n  allow: [MIT]\n  exempt:\n"
                        "    - {ecosystem: pypi, name: Vague}\n")):
        rc, js, _t, err = v.resolve("--policy", write_policy(work, name, text))
        check(rc == 0, "%s lets vague through" % name, (rc, js, err))
    n = renv.Env(envlock, LIC_NPM, "node", ["tool@*"], work, "npm")
    rc, js, text, err = n.resolve("--policy", pol)
    check(rc == 0 and renv.locked(text, "npm", "tool") == ["1.0.0"],
          "npm: GPL-3.0 tool 2.0.0 kept out, tool 1.0.0 `(MIT OR Apache-2.0)`", (rc, js, err))
    check(rc == 0 and not [x for x in js.get("notes", []) if "Debian" in x],
          "no Debian package, no note about them", js)
    # a deprecated SPDX id (GPL-3.0) in the allow list: accepted, with a note
    dep = write_policy(work, "lic-dep.yaml", "licenses:\n  allow: [MIT, GPL-3.0]\n")
    n2 = ra.Env(envlock, LIC_NPM, "node", ["tool@*"], work, "npm-dep")
    rc, js, text, err = n2.resolve("--policy", dep)
    check(rc == 0 and ra.locked(text, "npm", "tool") == ["2.0.0"] and
          [x for x in js.get("notes", []) if "allows `GPL-3.0`, an identifier the SPDX License "
           "List deprecates" in x],
          "a deprecated id allowed: tool 2.0.0 (`GPL-3.0`) passes, a note says it is deprecated",
          (rc, js, err))
    check(not [x for x in (n.resolve("--policy", pol)[1] or {}).get("notes", [])
               if "deprecates" in x], "no deprecated id allowed, no such note")
    if not (shutil.which("dpkg-deb") and shutil.which("gpg")):
        print("SKIP: dpkg-deb and gpg are needed to build an apt mirror")
        return 77
    d = renv.Env(envlock, ra.DEB, "apt", ["libc6"], work, "deb")
    rc, js, text, err = d.resolve("--policy", pol)
    check(rc == 0 and [x for x in js.get("notes", []) if "licenses were not checked for 1 "
                       "Debian package (libc6)" in x],
          "deb: not judged, and a note says so", (rc, js, err))
    # check --policy: the same note, in --json and as text; not stale, not a denial
    lock = os.path.join(d.work, "lock%d" % d.n, "envlock.lock")
    rc, out = d.check(lock, "--policy", pol)
    try:
        cjs = json.loads(out[:out.rindex("}") + 1]) if "}" in out else {}
    except ValueError:
        cjs = {}
    check(rc == 0 and [x for x in cjs.get("notes", []) if "licenses were not checked for 1 "
                       "Debian package (libc6)" in x],
          "check --policy --json: deb not judged, a note says so, the lock is current", (rc, out))
    cmd = [envlock, "--offline", "--cache-dir", os.path.join(d.work, "cache1")] + \
        resolve_env.rs.mirror_flags(d.man, d.mdir) + \
        ["check", os.path.join(d.work, "spec.yaml"), lock, "--bases",
         os.path.join(d.mdir + ".catalog", "bases.yaml"), "--policy", pol]
    p = subprocess.run(cmd, capture_output=True, text=True)
    check(p.returncode == 0 and "is up to date" in p.stdout and
          "note: the policy's licenses were not checked for 1 Debian package (libc6)" in p.stderr,
          "check --policy (text): the note on stderr, the lock up to date", (p.returncode, p.stdout,
                                                                        p.stderr))


class Registry:
    """An npm registry on 127.0.0.1 serving the fixture mirror's packuments
    as registry.npmjs.org serves them: the abbreviated document (no
    `license`, no `time`) to a client whose Accept names
    application/vnd.npm.install-v1+json, the full one otherwise."""

    ABBREVIATED = "application/vnd.npm.install-v1+json"

    def __init__(self, root):
        self.accepts = []
        reg = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                accept = self.headers.get("Accept") or ""
                reg.accepts.append(accept)
                name = self.path.lstrip("/").replace("%2f", "/").replace("%2F", "/")
                abbrev = reg.ABBREVIATED in accept
                path = os.path.join(root, "npm", name,
                                    "packument.install-v1" if abbrev else "packument.json")
                if ".." in name.split("/") or not os.path.isfile(path):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = open(path, "rb").read()
                self.send_response(200)
                self.send_header("Content-Type", reg.ABBREVIATED if abbrev else "application/json")
                self.send_header("Vary", "Accept")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = servers.serve_handler(H)
        self.url = self.httpd.url

    def close(self):
        servers.stop_server(self.httpd)


def resolve_via(e, registry, *flags):
    """`envlock resolve` of Env e with its npm registry read from `registry`."""
    return e.resolve(*flags, mirrors=["--mirror", "https://registry.npmjs.org=" + registry],
                     env_add={"ENVLOCK_POLICY": None, "ENVLOCK_ADVISORIES": None})


def part_licenses_full(envlock, work, check):
    """The abbreviated packument carries no `license` (registry.npmjs.org's
    install-v1 documents do not): a policy that judges npm licenses must
    read the full ones, or it would judge every version unknown. The
    fixture's tool 2.0.0 declares GPL-3.0 and 1.0.0 `(MIT OR Apache-2.0)`;
    MIT alone is allowed, unknown licenses are allowed, so only a policy
    that sees the licenses denies a pin on tool 2.0.0."""
    e = renv.Env(envlock, LIC_NPM, "node", ["tool@2.0.0"], work, "npm-full")
    reg = Registry(e.mdir)
    try:
        rc, js, text, err = resolve_via(e, reg.url)
        check(rc == 0 and renv.locked(text, "npm", "tool") == ["2.0.0"] and reg.accepts and
              all(Registry.ABBREVIATED in a for a in reg.accepts),
              "without a policy: tool 2.0.0 from the abbreviated document", (rc, js, err, reg.accepts))
        pol = write_policy(work, "mit.yaml", "licenses:\n  allow: [MIT]\n  unknown: allow\n")
        del reg.accepts[:]
        rc, js, _t, err = resolve_via(e, reg.url, "--policy", pol)
        d = ((error_of(js).get("detail") or {}).get("denied") or [{}])[0]
        check(rc == 18 and error_of(js).get("code") == "DL_ENV_POLICY_DENIED" and
              d.get("package") == "tool" and d.get("version") == "2.0.0" and
              d.get("rule") == "licenses" and d.get("license") == "GPL-3.0",
              "a licenses policy reads the full packument: GPL-3.0 tool 2.0.0 denied",
              (rc, js, err))
        check(reg.accepts and not [a for a in reg.accepts if Registry.ABBREVIATED in a],
              "with a licenses policy every packument is asked for in full", reg.accepts)
    finally:
        reg.close()


def licenses_of(text):
    """{(ecosystem, name, version): license or None} of a lock's text."""
    import yaml
    return {(k["ecosystem"], k["name"], k["version"]): k.get("license")
            for k in yaml.safe_load(text)["packages"]}


def part_lock_licenses(envlock, work, check):
    """The lock records each license as the index declares it, when it is
    an SPDX expression (docs/lock-format.md). Expected values are the
    fixtures' declarations: PyPI's License-Expression, the one license a
    classifier names (`MIT License` is MIT), else the License field; a
    family classifier alone (`BSD License`) names none. npm's `license`
    only from a full packument, asked for as such (a cutoff)."""
    e = renv.Env(envlock, LIC_PYPI, "python", ["app", "dual", "plain", "vague"], work, "lock-pypi")
    rc, js, text, err = e.resolve()
    got = licenses_of(text) if rc == 0 else {}
    want = {("pypi", "app", "1.0"): "MIT", ("pypi", "lib", "2.0"): "GPL-3.0-only",
            ("pypi", "dual", "1.0"): "GPL-2.0-only OR Apache-2.0",
            ("pypi", "plain", "1.0"): "BSD-3-Clause", ("pypi", "vague", "1.0"): None}
    check(rc == 0 and got == want, "pypi: each declared license recorded, none for vague",
          (rc, err, got))
    check(rc == 0 and 'license: "GPL-2.0-only OR Apache-2.0"' in text and
          "  license: MIT\n" in text, "pypi: written after source, quoted only when needed", text)
    check(rc == 0 and e.resolve()[2] == text, "pypi: two resolves, the same bytes")
    lock = os.path.join(e.work, "lock1", "envlock.lock")
    rc2, report = e.check(lock)
    check(rc2 == 0, "check reads a lock with licenses: up to date", (rc2, report))
    plain = text.replace('  license: "GPL-2.0-only OR Apache-2.0"\n', "")
    old = os.path.join(e.work, "old.lock")
    with open(old, "w") as f:
        f.write(plain)
    rc2, report = e.check(old)
    check(plain != text and rc2 == 0, "a lock without a license still reads and checks",
          (rc2, report))
    bad = os.path.join(e.work, "bad.lock")
    with open(bad, "w") as f:
        f.write(text.replace('license: "GPL-2.0-only OR Apache-2.0"', 'license: "GPL OR"'))
    rc2, report = e.check(bad)
    line = text.split("\n").index('  license: "GPL-2.0-only OR Apache-2.0"') + 1
    check(rc2 == 10 and "DL_ENV_SPEC_INVALID" in report and
          '"line":%d' % line in report and "license" in report and
          "not an SPDX license expression" in report,
          "a license that is not an SPDX expression: DL_ENV_SPEC_INVALID at its line %d" % line,
          (rc2, report))

    # check --policy judges the licenses the lock records, offline
    pol = write_policy(work, "lic-check.yaml", "licenses:\n  allow: [MIT, Apache-2.0, BSD-3-Clause]\n"
                       "  unknown: allow\n")
    rc2, report = e.check(lock, "--policy", pol)
    check(rc2 == 1 and "pypi:lib@2.0: its license `GPL-3.0-only` is not allowed by the policy "
          "rule `licenses` at %s:2:3" % pol in report and "pypi:dual" not in report and
          "pypi:vague" not in report and "pypi:app" not in report,
          "check --policy: the GPL-3.0-only lib 2.0 the lock records makes it stale; dual by "
          "its Apache-2.0 choice and vague (unknown, allowed) pass", (rc2, report))
    strict = write_policy(work, "lic-strict.yaml", "licenses:\n  allow: [MIT, Apache-2.0, "
                          "BSD-3-Clause, GPL-3.0-only]\n")
    rc2, report = e.check(lock, "--policy", strict)
    check(rc2 == 1 and "pypi:vague@1.0: the lock records no license for it" in report and
          "pypi:lib" not in report,
          "check --policy: with unknown denied, vague (no license recorded) is reported", (rc2, report))
    rc2, report = e.check(old, "--policy", strict)
    check(rc2 == 1 and "pypi:dual@1.0: the lock records no license" in report,
          "check --policy: a lock without dual's license (made before) is stale", (rc2, report))
    fine = write_policy(work, "lic-fine.yaml", "licenses:\n  allow: [MIT, Apache-2.0, "
                        "BSD-3-Clause, GPL-3.0-only]\n  unknown: allow\n")
    rc2, report = e.check(lock, "--policy", fine)
    check(rc2 == 0, "check --policy: every recorded license allowed: up to date", (rc2, report))

    sp = renv.Env(envlock, LIC_SPACED, "python", ["spaced"], work, "lock-spaced")
    rc, js, text, err = sp.resolve()
    check(rc == 0 and licenses_of(text) == {("pypi", "spaced", "1.0"): "MIT AND (ISC OR 0BSD)"},
          "runs of spaces in a declared expression recorded as one", (rc, err, text))

    n = renv.Env(envlock, LIC_NPM, "node", ["tool@*"], work, "lock-npm")
    reg = Registry(n.mdir)
    try:
        rc, js, text, err = resolve_via(n, reg.url)
        check(rc == 0 and licenses_of(text) == {("npm", "tool", "2.0.0"): None},
              "npm from the abbreviated document: no license", (rc, err, text))
        rc, js, text, err = resolve_via(n, reg.url, *CUTOFF)
        check(rc == 0 and licenses_of(text) == {("npm", "tool", "2.0.0"): "GPL-3.0"},
              "npm with a cutoff (the full document): tool 2.0.0 `GPL-3.0`", (rc, err, text))
    finally:
        reg.close()
    rc, js, text, err = n.resolve()
    check(rc == 0 and licenses_of(text) == {("npm", "tool", "2.0.0"): None},
          "npm: a mirror serving the full document to an abbreviated request changes nothing",
          (rc, err, text))


def validate(envlock, spec, *flags):
    p = subprocess.run([envlock, "--json", "validate", spec] + list(flags),
                       capture_output=True, text=True, env=dict(os.environ, ENVLOCK_BASES=""))
    try:
        js = json.loads(p.stdout)
    except ValueError:
        js = None
    return p.returncode, js, p.stderr


def part_validate(envlock, work, check):
    """validate --policy names each source outside the prefixes where the
    spec writes it (or, defaulted, its section): lines read off the text."""
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write("""apiVersion: environments.datalayer.io/v1alpha1
kind: Environment
metadata:
  name: sources
spec:
  language:
    name: python
    version: "3.13"
  base:
    ref: datalayer/python-cpu
    channel: "2026.09"
  packages:
    python:
      indexes:
        - https://pypi.internal.example/simple
        - https://pypi.org/simple
      dependencies: [requests]
    node:
      dependencies: [zod]
""")
    pol = write_policy(work, "idx.yaml", "indexes: [https://pypi.org]\nregistries:\n"
                       "  - https://npm.internal.example/\n")
    rc, js, err = validate(envlock, spec, "--policy", pol)
    e = error_of(js)
    fs = (e.get("detail") or {}).get("findings") or []
    got = [(f.get("field"), f.get("line"), f.get("column")) for f in fs]
    check(rc == 18 and e.get("code") == "DL_ENV_POLICY_DENIED" and
          got == [("spec.packages.python.indexes[0]", 15, 11),
                  ("spec.packages.node.registry", 19, 7)],
          "the internal index at 15:11, the default registry at its section's mapping (19:7)", (rc, js, err))
    check("idx.yaml:1:10" in (fs[0].get("message", "") if fs else ""),
          "a finding names the policy rule's place", fs)
    ok = write_policy(work, "ok.yaml", "indexes: [https://pypi.org, https://pypi.internal.example/]\n")
    rc, js, err = validate(envlock, spec, "--policy", ok)
    check(rc == 0 and (js or {}).get("valid") is True, "allowed sources: valid", (rc, js, err))
    os.environ["ENVLOCK_POLICY"] = pol
    try:
        rc, js, err = validate(envlock, spec)
    finally:
        del os.environ["ENVLOCK_POLICY"]
    check(rc == 18, "ENVLOCK_POLICY without --policy", (rc, js, err))
    rc, js, err = validate(envlock, spec, "--policy")
    check(rc == 2, "--policy without a value: a usage error", (rc, js, err))


def part_malformed(envlock, work, check):
    e = renv.Env(envlock, ra.PYPI, "python", ["app"], work, "pypi")
    cases = [
        ("unknown.yaml", "deny: []\nallow: []\n", "DL_ENV_SPEC_INVALID", "unknown.yaml:2:1"),
        ("range.yaml", "deny:\n  - ecosystem: npm\n    name: x\n    versions: '>=1 <<2'\n",
         "DL_ENV_SPEC_INVALID", "range.yaml:4:15: deny[0].versions"),
        ("eco.yaml", "deny:\n  - {ecosystem: maven, name: x}\n", "DL_ENV_SPEC_INVALID",
         "deny[0].ecosystem"),
        ("cred.yaml", "indexes: ['https://u:p@pypi.org/simple/']\n", "DL_ENV_SPEC_INVALID",
         "credentials"),
        ("licenses.yaml", "licenses:\n  allow: [MIT, Apache License]\n", "DL_ENV_SPEC_INVALID",
         "licenses.yaml:2:16: licenses.allow[1]"),
        ("syntax.yaml", "deny: [\n", "DL_ENV_SPEC_INVALID", "syntax.yaml:"),
        ("span.yaml", "minimumReleaseAge:\n  npm: 3 days\n", "DL_ENV_SPEC_INVALID",
         "span.yaml:2:8: minimumReleaseAge.npm"),
        ("debage.yaml", "minimumReleaseAge: {deb: 7d}\n", "DL_ENV_CAPABILITY_UNSUPPORTED",
         "minimumReleaseAge.deb"),
    ]
    for name, text, code, where in cases:
        rc, js, _t, err = e.resolve("--policy", write_policy(work, name, text))
        m = error_of(js)
        check(rc != 0 and m.get("code") == code and where in m.get("message", ""),
              "%s: %s naming `%s`" % (name, code, where), (rc, js, err))
    rc, js, _t, err = e.resolve("--policy", os.path.join(work, "absent.yaml"))
    check(rc != 0 and (error_of(js).get("detail") or {}).get("reason") == "unreadable",
          "a missing policy file: unreadable", (rc, js))


def main():
    envlock, part = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="envlock-policy-")
    check = renv.Check()
    status = 0
    try:
        status = {"deny": part_deny, "sources": part_sources, "check": part_check,
                  "malformed": part_malformed, "cooldown": part_cooldown,
                  "licenses": part_licenses,
                  "licenses_full": part_licenses_full, "lock_licenses": part_lock_licenses,
                  "validate": part_validate}[part](envlock, work, check) or 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if check.failures:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())

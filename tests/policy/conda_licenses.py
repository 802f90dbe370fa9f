#!/usr/bin/env python3
"""conda_licenses.py ENVLOCK — the licenses of conda packages (issue 22):
the lock records each conda package's repodata.json `license` when it is an
SPDX expression (docs/lock-format.md, "Licenses"), and a policy's
`licenses` rule judges them in the solve and in `check --policy`
(docs/policy.md).

The channel is the recorded conda-forge slice of tests/resolve_cli/conda
(README.md there), served on 127.0.0.1 by conda_source.py's server. Every
expectation is read off that repodata: each locked record's `license`
as the channel declares it; `_libgcc_mutex` 0.1 declares `None`, which is
no SPDX license identifier, so the lock records none for it; libsqlite's
newer records declare `blessing` and older ones `Unlicense` (both on the
SPDX License List), so a policy
without `blessing` locks a libsqlite whose record says `Unlicense`."""

import os
import shutil
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "resolve_cli"))
import conda_source as cs  # noqa: E402

FAILS = []


def check(cond, what, info=None):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        print("   ", str(info)[:3000])
        FAILS.append(what)


# Every license the cfl-requests answer's records declare, but `blessing`.
ALLOW = ["BSD-3-Clause", "MIT", "bzip2-1.0.6", "ISC", "GPL-3.0-only",
         "GPL-3.0-only WITH GCC-exception-3.1", "0BSD", "BSD-2-Clause", "Unlicense", "Zlib",
         "X11", "Apache-2.0", "Python-2.0", "TCL", "LicenseRef-Public-Domain"]


def conda_pkgs(lock):
    return [p for p in yaml.safe_load(open(lock))["packages"] if p["ecosystem"] == "conda"]


def resolve(run, name, deps, *flags):
    spec = os.path.join(run.work, name + ".yaml")
    with open(spec, "w") as f:
        f.write(cs.env_yml(deps))
    lock = os.path.join(run.work, name + ".lock")
    rc, js, out = run(["resolve", "--bases", cs.BASES, spec, "-o", lock] + list(flags))
    return rc, js, out, spec, lock


def main():
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="el-conda-licenses-")
    os.makedirs(os.path.join(work, "config"))
    srv = cs.servers.DirServer(cs.SLICE).start()
    try:
        run = cs.Run(envlock, work, srv.port)
        recs = cs.served_records()
        rc, js, out, spec, lock = resolve(run, "env", cs.DEPS + ["_libgcc_mutex"])
        pk = conda_pkgs(lock) if rc == 0 else []
        got = {p["name"]: p.get("license") for p in pk}
        want = {}
        for p in pk:
            declared = recs[(p["subdir"], p["artifacts"][0]["file"])].get("license")
            want[p["name"]] = None if declared == "None" else declared
        check(rc == 0 and got == want and len(got) > 30,
              "each conda package's repodata license is recorded", (rc, out, got, want))
        check(want.get("_libgcc_mutex") is None and "_libgcc_mutex" in got,
              "_libgcc_mutex declares `None`, no SPDX License List identifier: none recorded",
              got.get("_libgcc_mutex"))
        check(got.get("libsqlite") == "blessing", "without a policy: a `blessing` libsqlite",
              got.get("libsqlite"))

        pol = os.path.join(work, "p-lic.yaml")
        with open(pol, "w") as f:
            f.write("licenses:\n  allow: [%s]\n  unknown: allow\n" %
                    ", ".join('"%s"' % a for a in ALLOW))
        rc2, out2 = run(["check", "--bases", cs.BASES, spec, lock, "--policy", pol])[::2]
        libsqlite = [p for p in pk if p["name"] == "libsqlite"]
        ver = libsqlite[0]["version"] if libsqlite else "?"
        check(rc2 == 1 and "conda:libsqlite@%s: its license `blessing` is not allowed by the "
              "policy rule `licenses` at %s:2:3" % (ver, pol) in out2,
              "check --policy: the recorded `blessing` libsqlite makes the lock stale",
              (rc2, out2))

        rc, js, out, spec2, lock2 = resolve(run, "pol", cs.DEPS, "--policy", pol)
        pk = conda_pkgs(lock2) if rc == 0 else []
        sq = [p for p in pk if p["name"] == "libsqlite"]
        declared = recs[(sq[0]["subdir"], sq[0]["artifacts"][0]["file"])].get("license") \
            if sq else None
        check(rc == 0 and declared == "Unlicense" and sq[0].get("license") == "Unlicense",
              "resolve --policy: `blessing` kept out in the solve, an `Unlicense` libsqlite",
              (rc, out, sq))
        rc2, out2 = run(["check", "--bases", cs.BASES, spec2, lock2, "--policy", pol])[::2]
        check(rc2 == 0, "check --policy of that lock: up to date", (rc2, out2))

        ex = os.path.join(work, "p-exempt.yaml")
        with open(ex, "w") as f:
            f.write("licenses:\n  allow: [MIT]\n  exempt:\n" + "".join(
                "    - {ecosystem: conda, name: \"%s\"}\n" % n for n in sorted(want)))
        rc, js, out, _s, lock3 = resolve(run, "ex", cs.DEPS, "--policy", ex)
        sq = [p for p in (conda_pkgs(lock3) if rc == 0 else []) if p["name"] == "libsqlite"]
        check(rc == 0 and sq and sq[0].get("license") == "blessing",
              "licenses.exempt names conda packages", (rc, out, sq))

        strict = os.path.join(work, "p-strict.yaml")
        with open(strict, "w") as f:
            f.write("licenses:\n  allow: [MIT]\n")
        rc, js, out, _s, _l = resolve(run, "strict", cs.DEPS, "--policy", strict)
        den = ((js or {}).get("detail") or {}).get("denied") or []
        check(rc == 18 and js.get("code") == "DL_ENV_POLICY_DENIED" and
              any(d.get("ecosystem") == "conda" and d.get("rule") == "licenses" for d in den),
              "only MIT allowed: DL_ENV_POLICY_DENIED naming conda packages", (rc, out[:1500]))
    finally:
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("FAILED: %d" % len(FAILS) if FAILS else "ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

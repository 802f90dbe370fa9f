#!/usr/bin/env python3
"""held_by_base.py ENVLOCK — a spec asks nothing of an ecosystem it does
not need (issue 9): what the base carries at its protected pins comes from
the bases catalog, not from an index.

Against the demo mirror (corpus/demo/mirror, file://) with PyPI mapped to a
closed port on 127.0.0.1, so any PyPI request fails at once:
  npm-only   an npm-only spec on the demo base resolves; the lock's PyPI
             packages are exactly the base's protected pins, installed in
             the base, with no artifacts and no PyPI input;
  apt-only   the same for an apt-only spec;
  offline    the demo spec (Python + npm + apt) resolved online, the cache
             exported, imported into a fresh cache, and resolved again
             --offline with no mirror at all: the same lock, byte for byte
             (the protected stack, which the demo mirror does not serve,
             is never asked for, so nothing is missing offline).
Expected values come from the catalog (corpus/demo/bases.yaml), not from
envlock's output."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
from specs import base_spec  # noqa: E402
# the demo catalog's protected pins (corpus/demo/bases.yaml, python-cpu 2026.09)
PINS = {"ipykernel": "7.3.0", "jupyter-client": "8.9.1", "jupyter-server": "2.21.0+datalayer.1",
        "jupyter-server-nbmodel": "0.2.8", "jupyter-kernels": "1.2.23", "datalayer": "1.7.4"}

PACKAGES = {
    "npm-only": "    node:\n      dependencies:\n        - zod@^3\n",
    "apt-only": "    system:\n      apt:\n        - libpq5\n",
}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def mirrors(pypi_closed=True):
    m = ["--mirror", "https://registry.npmjs.org=file://%s/npm" % MIRROR,
         "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z=file://%s/apt" % MIRROR]
    m += ["--mirror", ("https://pypi.org=http://127.0.0.1:1/pypi" if pypi_closed
                       else "https://pypi.org=file://%s/pypi/pypi" % MIRROR)]
    return m


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = "/nonexistent"  # no mirrors file
    e["XDG_CONFIG_HOME"] = "/nonexistent"
    return e


def run(el, args, **kw):
    r = subprocess.run([el] + args, env=env(), capture_output=True, text=True, timeout=300, **kw)
    return r


def lock_packages(path):
    """(ecosystem, name) -> {version, installedInBase, artifacts} from the
    lock's block layout (docs/lock-format.md), and the input URLs."""
    pk, inputs, cur, section = {}, [], None, None
    for line in open(path, encoding="utf-8"):
        if not line.startswith(" ") and not line.startswith("-"):
            section = line.split(":")[0]
        if section == "inputs" and line.startswith("  url: "):
            inputs.append(line.split(": ", 1)[1].strip().strip('"'))
        if section != "packages":
            continue
        if line.startswith("- ecosystem: "):
            cur = {"ecosystem": line.split(": ", 1)[1].strip(), "installedInBase": False,
                   "artifacts": None}
        elif line.startswith("  name: "):
            cur["name"] = line.split(": ", 1)[1].strip()
            pk[(cur["ecosystem"], cur["name"])] = cur
        elif line.startswith("  version: "):
            cur["version"] = line.split(": ", 1)[1].strip().strip('"')
        elif line.startswith("  installedInBase: true"):
            cur["installedInBase"] = True
        elif line.startswith("  artifacts: []"):
            cur["artifacts"] = []
    return pk, inputs


def check_held(kind, lock):
    pk, inputs = lock_packages(lock)
    pypi = {n: p for (e, n), p in pk.items() if e == "pypi"}
    if set(pypi) != set(PINS):
        fail("%s: the lock's PyPI packages are %s, the base's pins %s" % (kind, sorted(pypi), sorted(PINS)))
    for n, p in pypi.items():
        if PINS.get(n) != p.get("version") or not p["installedInBase"] or p["artifacts"] != []:
            fail("%s: %s is %s (installedInBase %s, artifacts %s); the base holds %s" %
                 (kind, n, p.get("version"), p["installedInBase"], p["artifacts"], PINS.get(n)))
    asked = [u for u in inputs if u.startswith("https://pypi.org/")]
    if asked:
        fail("%s: the lock records PyPI inputs %s, though nothing was asked of PyPI" % (kind, asked))


def main():
    el = sys.argv[1]
    work = tempfile.mkdtemp(prefix="envlock-held-")
    try:
        for kind, packages in sorted(PACKAGES.items()):
            spec = os.path.join(work, kind + ".yaml")
            with open(spec, "w") as f:
                f.write(base_spec("held-" + kind, packages))
            lock = os.path.join(work, kind + ".lock")
            r = run(el, ["--cache-dir", os.path.join(work, "cache-" + kind)] + mirrors() +
                    ["resolve", spec, "--bases", BASES, "-o", lock])
            if r.returncode != 0:
                fail("%s: resolve exited %d: %s" % (kind, r.returncode, r.stderr.strip()))
                continue
            check_held(kind, lock)
            print("%s: resolved without asking PyPI" % kind)
        # the demo, online then offline from an imported cache
        online = os.path.join(work, "online.lock")
        r = run(el, ["--cache-dir", os.path.join(work, "c1")] + mirrors(pypi_closed=False) +
                ["resolve", DEMO, "--bases", BASES, "-o", online])
        if r.returncode != 0:
            fail("demo: resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
            return
        archive = os.path.join(work, "cache.tar.zst")
        r = run(el, ["--cache-dir", os.path.join(work, "c1"), "cache", "export", archive])
        if r.returncode != 0:
            fail("cache export exited %d: %s" % (r.returncode, r.stderr.strip()))
            return
        r = run(el, ["--cache-dir", os.path.join(work, "c2"), "cache", "import", archive])
        if r.returncode != 0:
            fail("cache import exited %d: %s" % (r.returncode, r.stderr.strip()))
            return
        offline = os.path.join(work, "offline.lock")
        r = run(el, ["--cache-dir", os.path.join(work, "c2"), "--offline", "resolve", DEMO,
                     "--bases", BASES, "-o", offline])
        if r.returncode != 0:
            fail("demo --offline from the imported cache exited %d: %s" % (r.returncode, r.stderr.strip()))
        elif open(online, "rb").read() != open(offline, "rb").read():
            fail("demo: the offline lock differs from the online one")
        else:
            print("demo: the offline resolve from the imported cache gives the online lock's bytes")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""mirror_layouts.py ENVLOCK — the same spec through different mirror
layouts gives the same lock, byte for byte (issue 9).

The demo mirror (corpus/demo/mirror) served by nginx on 127.0.0.1
(tests/fixtures/servers.py; PEP 691 JSON negotiated as pypi.org does) is
read through two --mirror mappings of the PyPI part:
  host      https://pypi.org        -> http://127.0.0.1:P/pypi/pypi
            (pages and files under one mapped prefix)
  simple    https://pypi.org/simple -> http://127.0.0.1:P/pypi/pypi/simple
            (only the simple index is mapped; its pages link the files
            relatively, `../../files/...`, outside the mapped prefix, as
            bandersnatch, Artifactory and Nexus trees do: the files must be
            read where the page as read points, not at the canonical host)
npm and apt come from the same tree through file://. Each layout resolves
with a fresh cache; the locks must be identical. A lock that names a
mirror URL (127.0.0.1) anywhere is a failure too."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import servers  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = "/nonexistent"
    e["XDG_CONFIG_HOME"] = "/nonexistent"
    return e


def main():
    el = sys.argv[1]
    if shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"):
        print("nginx not installed")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-layouts-")
    failures = []
    try:
        ng = servers.Nginx(MIRROR, work=os.path.join(work, "nginx"))
        os.makedirs(ng.work, exist_ok=True)
        ng.start()
        try:
            base = ng.url.rstrip("/")
            layouts = {
                "host": ["--mirror", "https://pypi.org=%s/pypi/pypi" % base],
                "simple": ["--mirror", "https://pypi.org/simple=%s/pypi/pypi/simple" % base],
            }
            common = ["--mirror", "https://registry.npmjs.org=file://%s/npm" % MIRROR,
                      "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z=file://%s/apt"
                      % MIRROR]
            locks = {}
            for name, m in sorted(layouts.items()):
                lock = os.path.join(work, name + ".lock")
                r = subprocess.run([el, "--cache-dir", os.path.join(work, "cache-" + name)] + m + common +
                                   ["resolve", DEMO, "--bases", BASES, "-o", lock],
                                   env=env(), capture_output=True, text=True, timeout=300)
                if r.returncode != 0:
                    failures.append("%s: resolve exited %d: %s" % (name, r.returncode, r.stderr.strip()))
                    continue
                locks[name] = open(lock, "rb").read()
                if b"127.0.0.1" in locks[name]:
                    failures.append("%s: the lock names the mirror (127.0.0.1)" % name)
                print("%s: %d bytes" % (name, len(locks[name])))
            if len(locks) == 2 and locks["host"] != locks["simple"]:
                failures.append("the two layouts give different locks")
                subprocess.run(["diff", os.path.join(work, "host.lock"), os.path.join(work, "simple.lock")])
        finally:
            ng.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""readme_pyproject.py ENVLOCK — the README's pyproject + uv.lock example
runs as written (issue 20: the README documents the source).

The first ```sh block under "### A pyproject + uv.lock source" is run by sh
from the repository root, unchanged, with the built envlock first on PATH
and no ENVLOCK_* variable, on an empty cache: every command succeeds. The
lock's Python packages are the ones the spec's uv.lock selects for the demo
base (Python 3.13.7 on Linux), by tests/spec/uvlock_select.py's reading
(tomllib and packaging's markers, independent of envlock); no index page is
among its inputs; check finds it up to date; the pylock export names each
file by uv.lock's URL."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib

try:
    import yaml
    from pip._vendor.packaging.markers import Marker  # noqa: F401 (the reader needs it)
except ImportError:
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUTPUTS = ["/tmp/envlock-pyproject-cache", "/tmp/pyproject.lock"]
SPEC = os.path.join(ROOT, "corpus", "demo", "pyproject.yaml")


def block():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    m = re.search(r"^### A pyproject \+ uv.lock source\n(.*?)^```sh\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise SystemExit("FAIL: no ```sh block under ### A pyproject + uv.lock source")
    return m.group(2)


def clean():
    for p in OUTPUTS:
        shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else (
            os.path.exists(p) and os.unlink(p))


def selected():
    spec = importlib.util.spec_from_file_location(
        "uvlock_select", os.path.join(ROOT, "tests", "spec", "uvlock_select.py"))
    reader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader)
    lock_text = yaml.safe_load(open(SPEC))["spec"]["build"]["dependencyFile"]["lockContent"]
    lock = tomllib.loads(lock_text)
    return {line.split()[1]: line.split()[2]
            for line in reader.select(lock, reader.env_for("3.13.7", "linux"))}


def check(out):
    failures = []
    doc = yaml.safe_load(open("/tmp/pyproject.lock"))
    got = {p["name"]: p["version"] for p in doc["packages"] if p["ecosystem"] == "pypi"}
    want = selected()
    if got != want:
        failures.append("the lock holds %s, uv.lock selects %s" % (sorted(got.items()),
                                                                  sorted(want.items())))
    if any(i["ecosystem"] == "pypi" for i in doc["inputs"]):
        failures.append("a PyPI page among the inputs: an index was asked")
    if "/tmp/pyproject.lock is up to date for corpus/demo/pyproject.yaml" not in out:
        failures.append("check did not find the lock up to date")
    for p in doc["packages"]:
        for a in p["artifacts"]:
            if 'url = "%s"' % a["url"] not in out:
                failures.append("the pylock export has no url for %s" % a["file"])
    return failures


def main():
    el = os.path.abspath(sys.argv[1])
    clean()
    try:
        env = dict(os.environ, PATH=os.path.dirname(el) + os.pathsep + os.environ.get("PATH", ""))
        for k in list(env):
            if k.startswith("ENVLOCK_"):
                del env[k]
        r = subprocess.run(["sh", "-ec", block()], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=120)
        out = r.stdout + r.stderr
        failures = ["the block exits %d" % r.returncode] if r.returncode else check(out)
        if failures:
            print(out)
    finally:
        clean()
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

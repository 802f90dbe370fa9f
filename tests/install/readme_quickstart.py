#!/usr/bin/env python3
"""readme_quickstart.py ENVLOCK — the README's quick start runs as written
(issue 21: a newcomer gets from the README to a checked lock and plans).

The first ```sh block under "## Quick start" is run by sh from the
repository root, unchanged, with the built envlock first on PATH. Every
command but the last must succeed; the last resolves the demo's deliberate
conflict, so the block ends with exit 12. What the README says each command
shows is checked in the output: a checked lock, the plan directories, the
export's hashes and the conflict's explanation."""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUTPUTS = ["/tmp/envlock-demo-cache", "/tmp/demo.lock", "/tmp/demo-plans", "/tmp/conflict.lock"]


def block():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    m = re.search(r"^## Quick start\n(.*?)^```sh\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise SystemExit("FAIL: no ```sh block under ## Quick start")
    return m.group(2)


def clean():
    for p in OUTPUTS:
        shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else (
            os.path.exists(p) and os.unlink(p))


def main():
    el = os.path.abspath(sys.argv[1])
    script = block()
    failures = []
    clean()
    try:
        env = dict(os.environ, PATH=os.path.dirname(el) + os.pathsep + os.environ.get("PATH", ""))
        for k in list(env):
            if k.startswith("ENVLOCK_"):
                del env[k]
        r = subprocess.run(["sh", "-c", script], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300)
        out = r.stdout + r.stderr
        if r.returncode != 12:
            failures.append("the block ends with exit %d, not 12 (the demo conflict)" % r.returncode)
        if "/tmp/demo.lock is up to date for corpus/demo/demo.yaml" not in out:
            failures.append("check did not find the lock up to date")
        if not os.path.isfile("/tmp/demo-plans/datalayer/Dockerfile"):
            failures.append("plan wrote no datalayer Dockerfile")
        if "--hash=sha256:" not in out:
            failures.append("export printed no hashed requirement")
        if "DL_ENV_RESOLVE_CONFLICT" not in out or "cannot both be satisfied" not in out:
            failures.append("the conflict is not explained")
        if failures:
            print(out)
    finally:
        clean()
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

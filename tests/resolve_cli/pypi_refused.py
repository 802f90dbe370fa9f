#!/usr/bin/env python3
"""pypi_refused.py ENVLOCK — a project page that lists wheel and sdist file
names outside their grammars (a shell or path character, issue 19 "Index
strings outside their grammar reach the lock"): those files are never
candidates, the resolve says so in a note naming the project, the page and
one such name, and the lock holds the valid wheel only.

The page is the demo mirror's idna page (corpus/demo/mirror) with two
extra entries, served over file://. Expected values come from the binary
distribution format's file name rule (name, build tag and tags are
[A-Za-z0-9_.], a build tag starts with a digit) and the mirror's files."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "fixtures"))
import specs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
PYPI = os.path.join(ROOT, "corpus", "demo", "mirror", "pypi", "pypi")
BAD_WHEEL = "idna-3.10-1$(id)-py3-none-any.whl"
BAD_SDIST = "idna-3.10;id.tar.gz"

SPEC = specs.spec_head("refused") + """  packages:
    python:
      dependencies:
        - idna==3.10
"""


def hostile_tree(work):
    tree = os.path.join(work, "pypi")
    shutil.copytree(PYPI, tree)
    page = os.path.join(tree, "simple", "idna")
    doc = json.load(open(os.path.join(page, "index.json")))
    good = doc["files"][0]
    for name in (BAD_WHEEL, BAD_SDIST):
        f = dict(good)
        f["filename"] = name
        f["url"] = "../../files/" + good["filename"]
        doc["files"].append(f)
    json.dump(doc, open(os.path.join(page, "index.json"), "w"), indent=1)
    html = open(os.path.join(page, "index.html")).read()
    extra = ""
    for name in (BAD_WHEEL, BAD_SDIST):
        extra += '<a href="../../files/%s#sha256=%s">x</a><br>\n' % (name, good["hashes"]["sha256"])
    open(os.path.join(page, "index.html"), "w").write(html.replace("  </body>", extra + "  </body>"))
    return tree


def main():
    el = sys.argv[1]
    work = tempfile.mkdtemp(prefix="envlock-pypi-refused-")
    failures = []
    try:
        tree = hostile_tree(work)
        spec = os.path.join(work, "refused.yaml")
        open(spec, "w").write(SPEC)
        lock = os.path.join(work, "refused.lock")
        env = dict(os.environ, HOME=work)
        env.pop("ENVLOCK_MIRRORS", None)
        r = subprocess.run([el, "--cache-dir", os.path.join(work, "cache"),
                            "--mirror", "https://pypi.org=file://" + tree,
                            "resolve", spec, "--bases", BASES, "-o", lock],
                           capture_output=True, text=True, env=env, timeout=120)
        if r.returncode != 0:
            failures.append("resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
        else:
            notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note: pypi: idna")]
            want = ("lists 2 files whose names are not a wheel or sdist file name", "simple/idna")
            if len(notes) != 1 or not all(w in notes[0] for w in want):
                failures.append("want one note naming idna's page and 2 refused files, got: %r"
                                % r.stderr)
            elif BAD_WHEEL not in notes[0] and BAD_SDIST not in notes[0]:
                failures.append("the note names neither refused file: %r" % notes[0])
            text = open(lock).read()
            if "$(" in text or ";id" in text:
                failures.append("a refused file name reached the lock")
            if "idna-3.10-py3-none-any.whl" not in text:
                failures.append("the valid wheel is not locked")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

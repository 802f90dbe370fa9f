#!/usr/bin/env python3
"""dead_ends.py ENVLOCK — a resolve with several dead ends prints one bullet
per package, the versions excluded from it one a line below, and for a
version that does not exist the versions that do (issue 21); --json keeps
one object: message on one line, detail.reason, deadEnds[].message,
versions and versionCount.

The demo base and its PyPI mirror (corpus/demo/mirror/pypi/pypi), whose
pages are read here for the facts the expected text rests on:
  numpy     2.2.6 (cp313 wheel) and 1.26.4 (cp312 wheels only)
  pandas    2.2.3 only
  urllib3   1.21 and 2.2.3
  requestz  no page (requests, asked for too, is the closest name)
Expected text is written here from those files, not from envlock."""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
PYPI = os.path.join(ROOT, "corpus", "demo", "mirror", "pypi", "pypi")
MIRROR = "file://" + PYPI
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import specs  # noqa: E402


NO_MATCH = ("The package exists but none of its versions fits the requirement: pick one of "
            "the versions available, widen the range, or see why each listed version is "
            "excluded (Python version, wheel tags, yanked, --exclude-newer)")
NOT_FOUND = ("The index has no package or file by that name: check the spelling (and any "
             "closest names given); with a --mirror, check that the mirror's path holds "
             "this index")
IDX = "https://pypi.org/simple"
NUMPY = ("No version of `numpy` that %s serves satisfies `numpy<2` (numpy<2 (spec line %d)); "
         "versions available: 2.2.6")
NUMPY_EX = ("numpy 1.26.4: no wheel for cp313 manylinux_2_36_x86_64; wheels exist for "
            "cp312-cp312-manylinux_2_17_x86_64, cp312-cp312-manylinux2014_x86_64")
PANDAS = ("No version of `pandas` that %s serves satisfies `pandas==2.2.99` "
          "(pandas==2.2.99 (spec line 17)); versions available: 2.2.3" % IDX)
REQUESTZ = ("`requestz` is not in %s, read through its mirror at %s/simple/requestz/, "
            "(requestz (spec line 16)); closest names: requests" % (IDX, MIRROR))
URLLIB3 = ("No version of `urllib3` that %s serves satisfies `urllib3>=3` "
           "(urllib3>=3 (spec line 18)); versions available: 1.21, 2.2.3" % IDX)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def resolve(el, work, deps, json_out=False):
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(specs.base_spec("dead-ends", "    python:\n      dependencies:\n" +
                                "".join("        - %s\n" % d for d in deps)))
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e.update(ENVLOCK_CONFIG=os.path.join(work, "config"), ENVLOCK_BASES=BASES,
             ENVLOCK_CACHE_DIR=os.path.join(work, "cache"))
    args = [el] + (["--json"] if json_out else []) + [
        "resolve", spec, "-o", os.path.join(work, "out.lock"), "--mirror",
        "https://pypi.org=" + MIRROR]
    return subprocess.run(args, env=e, capture_output=True, text=True, timeout=120, cwd=work)


def check_text(name, r, want):
    if r.returncode != 13:
        fail("%s: exit %d, expected 13" % (name, r.returncode))
    if r.stderr != want:
        fail("%s: stderr differs\n--- expected\n%s--- got\n%s" % (name, want, r.stderr))


def main():
    el = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="dead-ends-") as work:
        # one dead end: its sentence, the excluded version below it
        r = resolve(el, work, ["numpy<2"])
        check_text("one", r, "envlock: DL_ENV_PACKAGE_NOT_FOUND: %s\n  - %s\n  what to do: %s\n"
                   % (NUMPY % (IDX, 15), NUMPY_EX, NO_MATCH))
        # a name asked for with an extra stands for itself and its extra:
        # one requirement, named once (no closest name: none other was read)
        r = resolve(el, work, ["requestz[socks]"])
        check_text("extra", r, "envlock: DL_ENV_PACKAGE_NOT_FOUND: `requestz` is not in %s, "
                   "read through its mirror at %s/simple/requestz/, (requestz[socks] (spec "
                   "line 15))\n  what to do: %s\n"
                   % (IDX, MIRROR, NOT_FOUND))
        # four: a first line, one bullet each in name order
        deps = ["requests", "requestz", "pandas==2.2.99", "urllib3>=3", "numpy<2"]
        r = resolve(el, work, deps)
        check_text("four", r, "envlock: DL_ENV_PACKAGE_NOT_FOUND: 4 packages cannot be resolved "
                   "from what the indexes serve:\n  - %s\n      - %s\n  - %s\n  - %s\n  - %s\n"
                   "  what to do: %s\n"
                   % (NUMPY % (IDX, 19), NUMPY_EX, PANDAS, REQUESTZ, URLLIB3, NOT_FOUND))
        r = resolve(el, work, deps, json_out=True)
        try:
            o = json.loads(r.stdout)
        except ValueError as e:
            fail("--json: %s: %r" % (e, r.stdout))
            o = {}
        d = o.get("detail", {})
        if "\n" in o.get("message", "\n"):
            fail("--json: the message is not one line: %r" % o.get("message"))
        if d.get("reason") != "not_found" or o.get("userAction") != NOT_FOUND:
            fail("--json: reason %r, userAction %r" % (d.get("reason"), o.get("userAction")))
        got = [(e.get("package"), e.get("reason"), e.get("message"), e.get("versions"),
                e.get("versionCount")) for e in d.get("deadEnds", [])]
        want = [("numpy", "no_match", NUMPY % (IDX, 19), ["2.2.6"], 1),
                ("pandas", "no_match", PANDAS, ["2.2.3"], 1),
                ("requestz", "not_found", REQUESTZ, [], 0),
                ("urllib3", "no_match", URLLIB3, ["1.21", "2.2.3"], 2)]
        if got != want:
            fail("--json deadEnds:\n  expected %s\n  got      %s" % (want, got))
        if d.get("versions") != ["2.2.6"]:
            fail("--json detail.versions (the first name's): %r" % d.get("versions"))
    print("%d failure(s)" % len(failures) if failures else "dead ends: checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

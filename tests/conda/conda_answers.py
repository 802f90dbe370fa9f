#!/usr/bin/env python3
"""conda_answers.py — answers a case file (conda_diff_driver.c's format) with
conda's own VersionOrder, from conda's source file conda/models/version.py
(conda is not installable here; its version module needs only Python).

usage: conda_answers.py CONDA_VERSION_PY < cases > answered
Each I and C/S line is re-answered by conda: a version conda refuses becomes
an I line, comparisons between versions conda accepts get conda's sign.
"""
import importlib.util
import logging
import sys
import types


def load(path):
    # version.py imports InvalidVersionSpec from conda.exceptions: stub it.
    pkg = types.ModuleType("conda")
    pkg.__path__ = []
    exc = types.ModuleType("conda.exceptions")

    class InvalidVersionSpec(ValueError):
        def __init__(self, spec, reason=""):
            super().__init__(f"{spec}: {reason}")

    exc.InvalidVersionSpec = InvalidVersionSpec
    models = types.ModuleType("conda.models")
    models.__path__ = []
    sys.modules.update({"conda": pkg, "conda.exceptions": exc, "conda.models": models})
    spec = importlib.util.spec_from_file_location("conda.models.version", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["conda.models.version"] = mod
    spec.loader.exec_module(mod)
    return mod


def unesc(s):
    return s.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape")


def esc(s):
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


# The versions a spec rattler refuses is matched against (rattler_cases.js).
SAMPLE = ["0.9", "1", "1.0", "1.0.0", "1.0+1", "1.0+1.1", "1.0a1", "1.0dev1", "1.0.post1",
          "1.1", "1.1.0g", "1.1.0g_", "1.1.0h", "1.2", "1.2.0", "1.2.1", "1.2a", "1.2.3", "1.20",
          "1.3", "1.4", "1.4.2", "2", "2.0", "2.0.1", "3", "3.0", "1!0.1", "1!2.0", "2024.1.5",
          "2023.12", "1.2.3_", "1.2.3a", "1.2.3.4", "1.0-1", "1.0_1", "0.0", "10.0", "1.2+abc"]


def answer(vm, sp, spec, version, vo):
    if vo(version) is None:
        return
    try:
        m = sp.match(version)
    except Exception:
        print(f"B\t{esc(spec)}")
        return
    print(f"M\t{esc(spec)}\t{esc(version)}\t{1 if m else 0}")


def main():
    logging.disable(logging.CRITICAL)
    vm = load(sys.argv[1])
    cache = {}

    def vo(s):
        if s not in cache:
            try:
                cache[s] = vm.VersionOrder(s)
            except Exception:
                cache[s] = None
        return cache[s]

    seen_invalid = set()
    print("# Answered by conda's own VersionOrder (conda/models/version.py, conda "
          "commit 0f64223fb8da4328457a69fe6483959dbb783152) via conda_answers.py; do not edit.")
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        f = [unesc(x) for x in line.split("\t")]
        kind = f[0]
        if kind in ("B", "M"):
            try:
                sp = vm.VersionSpec(f[1])
                if kind == "B":
                    # conda refuses some specs only when matching.
                    sp.match("1.0")
            except Exception:
                print(f"B\t{esc(f[1])}")
                continue
            if kind == "B":
                for s in SAMPLE:
                    answer(vm, sp, f[1], s, vo)
                continue
            answer(vm, sp, f[1], f[2], vo)
            continue
        inputs = f[1:2] if kind == "I" else f[1:3]
        bad = [s for s in inputs if vo(s) is None]
        for s in bad:
            if s not in seen_invalid:
                seen_invalid.add(s)
                print(f"I\t{esc(s)}")
        if bad:
            continue
        if kind == "I":
            a = vo(f[1])
            print(f"V\t{esc(f[1])}\t{esc(str(a.version))}")
        elif kind == "C":
            a, b = vo(f[1]), vo(f[2])
            sign = "<" if a < b else ">" if b < a else "="
            print(f"C\t{esc(f[1])}\t{esc(f[2])}\t{sign}")
        elif kind == "S":
            print(f"S\t{esc(f[1])}\t{esc(f[2])}\t{1 if vo(f[1]).startswith(vo(f[2])) else 0}")


main()

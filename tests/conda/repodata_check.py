#!/usr/bin/env python3
"""repodata_check.py — checks indexes/conda's repodata reader against the
documents themselves, read with Python's json module.

For each real document (recorded conda channel data, see repodata/README.md)
every record must load, with the fields exactly as the JSON holds them
(timestamps in milliseconds: conda reads values up to 253402300799 as
seconds). For repodata/hostile.json every record named in
hostile.expected must be excluded with that reason and the rest load; each
repodata/refuse-*.json must be refused with the reason in its name.

usage: repodata_check.py DUMP_DRIVER REPODATA_DIR
Prints "repodata_check: N passed, M failed".
"""
import json
import os
import subprocess
import sys

driver, root = sys.argv[1], sys.argv[2]
passed = failed = 0


def fail(msg):
    global failed
    failed += 1
    if failed <= 30:
        print("FAIL:", msg)


def ok():
    global passed
    passed += 1


def dump(path, subdir=None):
    args = [driver, path] + ([subdir] if subdir else [])
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, [line.split("\t") for line in p.stdout.splitlines()]


def expected_line(fn, r, is_conda, doc_subdir):
    ts = r.get("timestamp", 0) or 0
    ts = ts if ts > 253402300799 else ts * 1000
    na = r.get("noarch")
    noarch = {None: 0, False: 0, True: 1, "generic": 1, "python": 2}[na]
    tf = r.get("track_features") or ""
    feats = [x for x in tf.replace(",", " ").split() if x]
    return ["R", fn, r["name"], r["version"], r["build"], str(r.get("build_number", 0)),
            str(ts), str(noarch), r.get("sha256") or "-", r.get("md5") or "-",
            str(r.get("size", 0)), r.get("license") or "-", r.get("subdir") or doc_subdir or "-",
            "1" if is_conda else "0", " ; ".join(r.get("depends") or []),
            " ; ".join(r.get("constrains") or []), ",".join(feats)]


def check_real(path):
    doc = json.load(open(path))
    sub = doc.get("info", {}).get("subdir")
    want = []
    for sec, is_conda in (("packages", False), ("packages.conda", True)):
        for fn, r in doc.get(sec, {}).items():
            want.append(expected_line(fn, r, is_conda, sub))
    want.sort(key=lambda line: line[1].encode())
    rc, got = dump(path, sub)
    if rc != 0:
        return fail(f"{path}: refused: {got}")
    if len(got) != len(want):
        fail(f"{path}: {len(got)} lines, want {len(want)} records")
    for w, g in zip(want, got):
        if w == g:
            ok()
        else:
            fail(f"{path}: want {w}\n      got  {g}")


def check_hostile(path, expected):
    want_x = {}
    for line in open(expected):
        line = line.strip()
        if line and not line.startswith("#"):
            fn, reason = line.split("\t")
            want_x[fn] = reason
    rc, got = dump(path)
    if rc != 0:
        return fail(f"{path}: refused: {got}")
    got_x = {g[1]: g[2] for g in got if g[0] == "X"}
    loaded = {g[1] for g in got if g[0] == "R"}
    for fn, reason in want_x.items():
        if got_x.get(fn) == reason:
            ok()
        else:
            fail(f"{path}: {fn}: want excluded as {reason}, got {got_x.get(fn, 'loaded' if fn in loaded else 'absent')}")
    for fn in got_x:
        if fn not in want_x:
            fail(f"{path}: {fn} excluded ({got_x[fn]}) but should load")
    doc = json.load(open(path))
    sub = doc.get("info", {}).get("subdir")
    lines = {g[1]: g for g in got if g[0] == "R"}
    for sec, is_conda in (("packages", False), ("packages.conda", True)):
        for fn, r in doc.get(sec, {}).items():
            if fn in want_x:
                continue
            if fn not in loaded:
                fail(f"{path}: {fn} neither loaded nor excluded")
            elif lines[fn] != expected_line(fn, r, is_conda, sub):
                fail(f"{path}: want {expected_line(fn, r, is_conda, sub)}\n      got  {lines[fn]}")
            else:
                ok()


for name in sorted(os.listdir(root)):
    path = os.path.join(root, name)
    if name.startswith("refuse-"):
        reason = name[len("refuse-"):].split(".")[0]
        subdir = "linux-64" if reason == "repodata_wrong_subdir" else None
        rc, got = dump(path, subdir)
        if rc == 1 and got and got[0][:3] == ["E", "DL_ENV_PACKAGE_NOT_FOUND", reason]:
            ok()
        else:
            fail(f"{name}: want refusal {reason}, got rc={rc} {got[:1]}")
    elif name == "hostile.json":
        check_hostile(path, os.path.join(root, "hostile.expected"))
    elif name.endswith(".json"):
        check_real(path)

print(f"repodata_check: {passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)

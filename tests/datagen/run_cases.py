#!/usr/bin/python3
"""run_cases.py — DataGen recipe case tests.

    run_cases.py tree|normalized DATAGEN_DRIVER CASES_DIR [--update]

For every case NAME in CASES_DIR: runs `DATAGEN_DRIVER MODE ARGS...`, where
ARGS are the lines of NAME.args if that file exists, else NAME.yaml; and
compares stdout byte for byte with NAME.MODE (the expected Environment tree
or normalized document, then the findings as "LINE:COL FIELD: MESSAGE").
A case without an expected file for MODE is not run in that mode.
--update writes the expected files instead (review the diff before committing).
"""
import os
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--update"]
    update = "--update" in sys.argv
    if len(args) != 3 or args[0] not in ("tree", "normalized"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, driver, cases = args
    names = sorted({f.rsplit(".", 1)[0] for f in os.listdir(cases)
                    if f.endswith(".yaml") or f.endswith(".args")})
    ran = failed = 0
    for name in names:
        want_path = os.path.join(cases, name + "." + mode)
        if not update and not os.path.exists(want_path):
            continue
        argf = os.path.join(cases, name + ".args")
        if os.path.exists(argf):
            with open(argf, encoding="utf-8") as f:
                cargs = [line.rstrip("\n") for line in f if line.strip()]
            cargs = [os.path.join(cases, a) if a.endswith(".yaml") else a for a in cargs]
        else:
            cargs = [os.path.join(cases, name + ".yaml")]
        proc = subprocess.run([driver, mode] + cargs, capture_output=True)
        got = proc.stdout.decode("utf-8")
        if proc.returncode != 0 or proc.stderr:
            print("FAIL %s: exit %d\n%s" % (name, proc.returncode, proc.stderr.decode()))
            failed += 1
            ran += 1
            continue
        if update:
            with open(want_path, "w", encoding="utf-8") as f:
                f.write(got)
            continue
        with open(want_path, encoding="utf-8") as f:
            want = f.read()
        ran += 1
        if got != want:
            failed += 1
            print("FAIL %s (%s)" % (name, mode))
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), "expected", "got"))
    print("datagen %s cases: %d run, %d failed" % (mode, ran, failed))
    return 1 if failed or (ran == 0 and not update) else 0


if __name__ == "__main__":
    sys.exit(main())

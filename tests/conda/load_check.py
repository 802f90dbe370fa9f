#!/usr/bin/env python3
"""load_check.py — checks indexes/conda's channel loader (conda_index_load.c)
through a real cache, over file:// channels laid out in a temporary
directory from the recorded repodata fixtures (repodata/README.md), with the
expected answers computed here from the JSON itself:

- a channel with noarch only: its platform subdir reads as absent (conda
  reads a missing platform subdir as empty), noarch loads every record;
- a platform subdir (the osx-arm64 fixture's records with their subdir
  renamed linux-64: the loader, not the records, is under test) and the
  arch -> subdir map (arm64 asks for linux-aarch64, i386 is refused);
- --exclude-newer: exactly the records whose timestamp (seconds below
  253402300799, else milliseconds, as conda reads them) is later than the
  cutoff are excluded, with reason after_cutoff;
- a channel without noarch fails with not_found; a broken document with
  repodata_invalid, whatever channel comes after it;
- channel names: a name is read under https://conda.anaconda.org (through
  --mirror here, so no network), credentials, `defaults` and other schemes
  refused before any fetch;
- --offline: a second run answers from the cache (from_cache 1, same
  records; a platform subdir that was absent stays absent), and a name
  never fetched is an offline_cache_miss;
- the parsed form: a second load reads it (from_parsed_form 1) and gives
  the same records and exclusions; another cutoff is parsed again.

usage: load_check.py DUMP_DRIVER REPODATA_DIR
Prints "load_check: N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

driver, fixtures = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(what, want, got):
    global passed, failed
    if want == got:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}: want {want!r} got {got!r}")


def run(cache, *args):
    p = subprocess.run([driver, cache] + list(args), capture_output=True, text=True)
    lines = [line.split("\t") for line in p.stdout.splitlines()]
    subdirs = {(l[1], l[2]): l[3:] for l in lines if l[0] == "S"}
    excluded = sorted((l[1], l[2]) for l in lines if l[0] == "X")
    err = next((l[1:] for l in lines if l[0] == "E"), None)
    return p.returncode, subdirs, excluded, err


def record_lines(cache, *args):
    """Every field of every record a load gives (the driver's R lines)."""
    p = subprocess.run([driver, cache] + list(args), capture_output=True, text=True)
    return sorted(line for line in p.stdout.splitlines() if line.startswith("R\t"))


def records(doc):
    return {**doc.get("packages", {}), **doc.get("packages.conda", {})}


def ms(ts):
    return ts * 1000 if ts <= 253402300799 else ts


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f) if not isinstance(doc, str) else f.write(doc)


def main():
    noarch = json.load(open(os.path.join(fixtures, "conda-forge-noarch.json")))
    main_noarch = json.load(open(os.path.join(fixtures, "main-noarch.json")))
    arm = json.load(open(os.path.join(fixtures, "conda-forge-osx-arm64.json")))
    linux = json.loads(json.dumps(arm).replace('"osx-arm64"', '"linux-64"'))
    tmp = tempfile.mkdtemp(prefix="conda-load-")
    try:
        root = "file://" + tmp
        write(f"{tmp}/a/noarch/repodata.json", noarch)
        write(f"{tmp}/b/noarch/repodata.json", main_noarch)
        write(f"{tmp}/b/linux-64/repodata.json", linux)
        write(f"{tmp}/b/linux-aarch64/repodata.json", {"info": {"subdir": "linux-aarch64"}})
        write(f"{tmp}/nonoarch/linux-64/repodata.json", linux)
        write(f"{tmp}/broken/noarch/repodata.json", "{\"packages\": [")
        cache = f"{tmp}/cache"

        rc, sd, ex, err = run(cache, f"{root}/a", f"{root}/b/")
        check("load a, b", 0, rc)
        check("a linux-64", ["absent", "0", "0"], sd.get((f"{root}/a", "linux-64"), [])[:3])
        check("a noarch", ["loaded", str(len(records(noarch))), "0"], sd.get((f"{root}/a", "noarch"), [])[:3])
        check("b linux-64", ["loaded", str(len(records(linux))), "0"], sd.get((f"{root}/b", "linux-64"), [])[:3])
        check("b noarch", ["loaded", str(len(records(main_noarch))), "0"], sd.get((f"{root}/b", "noarch"), [])[:3])

        rc, sd, _, err = run(cache, "--arch", "arm64", f"{root}/b")
        check("arm64 subdir", ["loaded", "0", "0"], sd.get((f"{root}/b", "linux-aarch64"), [])[:3])
        rc, sd, _, err = run(cache, "--arch", "i386", f"{root}/b")
        check("i386 refused", (1, ["DL_ENV_SPEC_INVALID", "unsupported_arch"]), (rc, err))

        every = {**records(main_noarch), **records(linux)}
        stamps = sorted(ms(r["timestamp"]) for r in every.values() if r.get("timestamp"))
        cutoff = stamps[len(stamps) // 2]
        want = sorted((fn, "after_cutoff") for fn, r in every.items()
                      if r.get("timestamp") and ms(r["timestamp"]) > cutoff)
        rc, sd, ex, err = run(cache, "--cutoff", str(cutoff), f"{root}/b")
        check("cutoff excluded", want, ex)
        check("cutoff excludes some", True, 0 < len(want) < len(every))

        rc, sd, _, err = run(cache, f"{root}/nonoarch")
        check("no noarch", (1, "not_found"), (rc, err and err[1]))
        rc, sd, _, err = run(cache, f"{root}/broken", f"{root}/a")
        check("broken document", (1, "repodata_invalid"), (rc, err and err[1]))

        for bad in ["defaults", "https://u:p@example.org/c", "https://conda.anaconda.org/t/tk-1/c",
                    "ftp://example.org/c", "a//b", "../x", "a b", ""]:
            rc, sd, _, err = run(cache, "--offline", bad)
            check(f"channel {bad!r}", (1, ["DL_ENV_SPEC_INVALID", "bad_channel"]), (rc, err))

        mirror = f"https://conda.anaconda.org/mirrored={root}/b"
        rc, sd, _, err = run(cache, "--mirror", mirror, "mirrored")
        check("by name through a mirror", ["loaded", str(len(records(main_noarch)))],
              sd.get(("https://conda.anaconda.org/mirrored", "noarch"), [])[:2])
        rc, sd, _, err = run(cache, "--offline", "mirrored")
        check("offline from the cache", ["loaded", str(len(records(main_noarch))), "0", "1", "1"],
              sd.get(("https://conda.anaconda.org/mirrored", "noarch"), []))
        rc, sd, _, err = run(cache, "--offline", f"{root}/a")
        check("offline, a subdir absent when online", ["absent", "0", "0", "1", "0"],
              sd.get((f"{root}/a", "linux-64"), []))
        rc, sd, _, err = run(cache, "--offline", "never-fetched")
        check("offline miss", (1, "offline_cache_miss"), (rc, err and err[1]))

        # the parsed form: a warm load reads it and gives the same load;
        # another cutoff is another parsed form
        warm = f"{tmp}/warm"
        cold = run(warm, "--cutoff", str(cutoff), f"{root}/b", f"{root}/a")
        again = run(warm, "--cutoff", str(cutoff), f"{root}/b", f"{root}/a")
        flags = lambda r: sorted((k[1], v[0], v[4]) for k, v in r[1].items())
        check("cold: parsed", [("linux-64", "absent", "0"), ("linux-64", "loaded", "0"),
                               ("noarch", "loaded", "0"), ("noarch", "loaded", "0")], flags(cold))
        check("warm: parsed form", [("linux-64", "absent", "0"), ("linux-64", "loaded", "1"),
                                    ("noarch", "loaded", "1"), ("noarch", "loaded", "1")], flags(again))
        strip = lambda r: (r[0], {k: v[:3] for k, v in r[1].items()}, r[2], r[3])
        check("warm load equals cold load", strip(cold), strip(again))
        check("warm load excludes", True, set(want) <= set(again[2]) and len(again[2]) > len(want))
        # every field of every record, read back name by name from the
        # form, equals what a fresh parse gives
        fresh = record_lines(f"{tmp}/fresh", "--cutoff", str(cutoff), f"{root}/b", f"{root}/a")
        check("warm records equal parsed records", fresh,
              record_lines(warm, "--cutoff", str(cutoff), f"{root}/b", f"{root}/a"))
        check("records listed", True, len(fresh) > 10)
        other = run(warm, "--cutoff", str(cutoff + 1), f"{root}/b")
        check("another cutoff parses again", "0", other[1][(f"{root}/b", "noarch")][4])
    finally:
        shutil.rmtree(tmp)
    print(f"load_check: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


main()

#!/usr/bin/env python3
"""make_slice.py PIXI_REPO OUT_DIR NAME... — the recorded conda-forge slice
served by conda_source.py, rebuilt from real records.
make_slice.py --cut RFC3339 IN_DIR OUT_DIR — the slice as a channel that
never served a record after that time (timestamp > cutoff dropped; a
record without timestamp kept): what rattler solves to give the expected
answer of `envlock resolve --exclude-newer` on the whole slice.

No conda channel is reachable from the machines envlock is tested on, so
the slice is assembled from records conda-forge served and that are kept,
field for field, in the lock files (formats 5 and 6) of the prefix-dev/pixi
repository (every `pixi.lock` at the commit given in README.md): each
linux-64 or noarch conda-forge record of those files becomes a record of
`conda-forge/<subdir>/repodata.json`, for the named packages and every
package their records depend on (by name, transitively). pixi's format 6
leaves out what a record's URL already says (name, version, build, subdir)
and a build_number equal to the build string's `_N` suffix; those are
derived back here. Nothing else is changed or made up. Standard library
and PyYAML only."""

import json
import os
import re
import subprocess
import sys

import yaml

CHANNEL = "https://conda.anaconda.org/conda-forge/"


def lock_files(repo):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [f for f in out if f.endswith("pixi.lock")]


def records(repo):
    recs = {}
    for f in sorted(lock_files(repo)):
        text = subprocess.run(["git", "-C", repo, "show", "HEAD:" + f],
                              capture_output=True, text=True, check=True).stdout
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        if not isinstance(doc, dict) or doc.get("version") not in (5, 6):
            continue
        for p in doc.get("packages") or []:
            # format 5 writes `kind: conda` and the record's `url`, with
            # every field; format 6 the URL as `conda`, some derived
            url = p.get("conda") or (p.get("url") if p.get("kind") == "conda" else None)
            if not url or not url.startswith(CHANNEL):
                continue
            subdir, fn = url[len(CHANNEL):].split("/", 1)
            if subdir in ("linux-64", "noarch") and (subdir, fn) not in recs:
                recs[(subdir, fn)] = p
    return recs


def repodata_record(subdir, fn, p):
    stem = fn[:-6] if fn.endswith(".conda") else fn[:-8]
    name, version, build = stem.rsplit("-", 2)
    m = re.search(r"_(\d+)$", build)
    rec = {"build": build,
           "build_number": p.get("build_number", int(m.group(1)) if m else 0),
           "depends": p.get("depends", []), "name": name, "version": version,
           "subdir": subdir}
    for k in ("constrains", "license", "md5", "sha256", "size", "timestamp",
              "track_features", "noarch"):
        if k in p:
            rec[k] = p[k]
    return rec


def cut(when, src, out):
    import datetime
    t = datetime.datetime.fromisoformat(when.replace("Z", "+00:00"))
    cutoff_ms = int(t.timestamp() * 1000)
    for subdir in ("linux-64", "noarch"):
        with open(os.path.join(src, "conda-forge", subdir, "repodata.json")) as f:
            doc = json.load(f)
        for sect in ("packages", "packages.conda"):
            doc[sect] = {fn: r for fn, r in doc[sect].items()
                         if r.get("timestamp", 0) <= cutoff_ms}
        os.makedirs(os.path.join(out, "conda-forge", subdir), exist_ok=True)
        with open(os.path.join(out, "conda-forge", subdir, "repodata.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")


def main():
    if sys.argv[1] == "--cut":
        cut(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    repo, out, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    recs = {k: repodata_record(k[0], k[1], p) for k, p in records(repo).items()}
    by_name = {}
    for k, r in recs.items():
        by_name.setdefault(r["name"], []).append(k)
    todo, keep = list(wanted), set()
    while todo:
        n = todo.pop()
        if n in keep or n not in by_name:
            continue
        keep.add(n)
        for k in by_name[n]:
            todo.extend(d.split()[0] for d in recs[k]["depends"])
    for subdir in ("linux-64", "noarch"):
        doc = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": {},
               "repodata_version": 1}
        for (s, fn), r in sorted(recs.items()):
            if s == subdir and r["name"] in keep:
                doc["packages.conda" if fn.endswith(".conda") else "packages"][fn] = r
        os.makedirs(os.path.join(out, "conda-forge", subdir), exist_ok=True)
        with open(os.path.join(out, "conda-forge", subdir, "repodata.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""export_readers.py UNIT_PLAN_EXPORT DATA_DIR

Runs `unit_plan_export write TMP` and reads what it wrote with the formats'
own readers, comparing every value with the lock it came from (read with
PyYAML):

- uv-pip-compile: REFERENCE §3's `locked_versions()` and `apt_pins_in()`
  (re-implemented here from their rules) give exactly the lock's pypi
  versions and installed debs; header lines come in the reference's order.
- requirements: pip's own requirements parser takes every line, each pinned
  with `==` and carrying exactly the lock's sha256 hashes.
- pylock: tomllib parses it; the required keys are there and equal the lock.
- package-lock / package.json: JSON.stringify(parse(f), null, 2) + "\\n" is
  the file byte for byte, and so is npm's own key sort (scalars first,
  preferred keys, then localeCompare) applied to it in node; the entries
  equal the lock's npm packages; the root matches package.json; and
  `npm ci --dry-run --offline` accepts the pair (when npm is installed).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

import yaml

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def canon(name):
    return re.sub(r"[-_.]+", "-", name).lower()


# ---- REFERENCE §3's readers ----

def locked_versions(text):
    joined = text.replace("\\\n", " ")
    out = {}
    for line in joined.split("\n"):
        line = re.split(r"(?:^|\s+)#", line, maxsplit=1)[0]
        line = re.sub(r"\s*--hash=\S+", "", line).strip()
        if not line or line.startswith("-"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(===|==)\s*([^\s,;]+)"
                         r"\s*(?:;.*)?", line)
        if m:
            out[canon(m.group(1))] = m.group(3)
    return out


def apt_pins_in(text):
    pins = {}
    for line in text.split("\n"):
        if line.startswith("# datalayer-apt:"):
            name, _, version = line[len("# datalayer-apt:"):].strip().partition("=")
            pins[name] = version
    return pins


HEADER_ORDER = ["resolved-at", "python", "base", "datalayer-apt", "datalayer-apt-source",
                "datalayer-apt-snapshot", "datalayer-protected"]


def check_uv(stem, text, lock):
    py = {p["name"]: p["version"] for p in lock["packages"] if p["ecosystem"] == "pypi"}
    debs = {p["name"]: p["version"] for p in lock["packages"]
            if p["ecosystem"] == "deb" and not p.get("installedInBase")}
    check(locked_versions(text) == py, f"{stem}: locked_versions {locked_versions(text)} != {py}")
    check(apt_pins_in(text) == debs, f"{stem}: apt_pins_in {apt_pins_in(text)} != {debs}")
    lines = text.split("\n")
    check(lines[0].startswith("# ") and "envlock" in lines[0] and "sha256:" in lines[0],
          f"{stem}: first line {lines[0]!r}")
    keys = []
    for line in lines[1:]:
        if not line.startswith("# "):
            break
        keys.append(line[2:].split(":", 1)[0])
    ranks = [HEADER_ORDER.index(k) for k in keys]
    check(ranks == sorted(ranks) and keys[:3] == HEADER_ORDER[:3],
          f"{stem}: header keys out of order: {keys}")
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00",
                       lines[1].split(": ", 1)[1]) is not None, f"{stem}: resolved-at {lines[1]}")
    check(text.endswith("\n") and not text.endswith("\n\n"), f"{stem}: trailing newline")


def sha256s(p):
    return sorted({a["hash"][7:] for a in p["artifacts"] if a["hash"].startswith("sha256:")})


def check_requirements(stem, path, lock):
    from pip._internal.network.session import PipSession
    from pip._internal.req.req_file import parse_requirements
    got = {}
    for r in parse_requirements(path, session=PipSession()):
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)", r.requirement.strip())
        check(m is not None, f"{stem}: not pinned: {r.requirement}")
        hashes = sorted((r.options or {}).get("hashes", {}).get("sha256", []))
        got[m.group(1)] = (m.group(2), hashes)
    want = {p["name"]: (p["version"], sha256s(p)) for p in lock["packages"]
            if p["ecosystem"] == "pypi" and sha256s(p)}
    check(got == want, f"{stem}: requirements {got} != {want}")


def check_pylock(stem, text, lock):
    doc = tomllib.loads(text)
    check(doc.get("lock-version") == "1.0", f"{stem}: lock-version")
    check(doc.get("created-by") == "envlock", f"{stem}: created-by")
    t = lock.get("target", {})
    if "python" in t:
        check(doc.get("requires-python") == "==" + t["python"], f"{stem}: requires-python")
        check(f"python_full_version == '{t['python']}'" in doc["environments"][0],
              f"{stem}: environments")
    pkgs = {p["name"]: p for p in doc.get("packages", [])}
    want = [p for p in lock["packages"] if p["ecosystem"] == "pypi"]
    check(sorted(pkgs) == sorted(p["name"] for p in want), f"{stem}: package names")
    for p in want:
        e = pkgs.get(p["name"], {})
        check(e.get("version") == p["version"], f"{stem}: {p['name']} version")
        check(e.get("index") == p.get("source"), f"{stem}: {p['name']} index")
        files = e.get("wheels", []) + ([e["sdist"]] if "sdist" in e else [])
        got = sorted((f["name"], f["url"], f.get("size", 0), f["hashes"]) for f in files)
        exp = sorted((a["file"], a["url"], a.get("size", 0), dict([a["hash"].split(":", 1)]))
                     for a in p["artifacts"])
        check(got == exp, f"{stem}: {p['name']} files {got} != {exp}")
        check(bool(files) or p.get("installedInBase"), f"{stem}: {p['name']} has no source")
        base = e.get("tool", {}).get("envlock", {}).get("installed-in-base", False)
        check(base == bool(p.get("installedInBase")), f"{stem}: {p['name']} installed-in-base")


NODE_CHECK = r"""
const fs = require('fs');
const text = fs.readFileSync(process.argv[1], 'utf8');
const data = JSON.parse(text);
if (JSON.stringify(data, null, 2) + '\n' !== text) { console.log('not JSON.stringify output'); process.exit(1); }
if (process.argv[2] === 'lock') {
  const pref = ['name', 'version', 'lockfileVersion', 'resolved', 'integrity', 'requires', 'packages', 'dependencies'];
  const isObj = v => !!v && !Array.isArray(v) && typeof v === 'object';
  const rank = k => pref.includes(k) ? pref.indexOf(k) : pref.length;
  const order = (k, v) => {
    if (!isObj(v)) return v;
    const out = {};
    for (const [a, b] of Object.entries(v).sort(([ak, av], [bk, bv]) =>
        isObj(av) !== isObj(bv) ? (isObj(av) ? 1 : -1)
        : rank(ak) !== rank(bk) ? rank(ak) - rank(bk)
        : rank(ak) < pref.length ? 0 : ak.localeCompare(bk)))
      out[a] = b;
    return out;
  };
  if (JSON.stringify(data, order, 2) + '\n' !== text) { console.log('keys not in npm order'); process.exit(1); }
}
"""


def node_check(stem, path, kind):
    r = subprocess.run(["node", "-e", NODE_CHECK, path, kind], capture_output=True, text=True)
    check(r.returncode == 0, f"{stem}: node: {r.stdout}{r.stderr}")


def check_npm(stem, lock_path, json_path, lock):
    node_check(stem, lock_path, "lock")
    node_check(stem, json_path, "json")
    pl = json.load(open(lock_path))
    pj = json.load(open(json_path))
    check(pl["lockfileVersion"] == 3 and pl["requires"] is True, f"{stem}: lockfileVersion")
    check(pl["name"] == pj["name"] == pl["packages"][""]["name"], f"{stem}: names")
    check(pl["packages"][""].get("dependencies") == pj.get("dependencies"),
          f"{stem}: root dependencies differ from package.json")
    want = {p["path"]: p for p in lock["packages"] if p["ecosystem"] == "npm"}
    got = {k: v for k, v in pl["packages"].items() if k}
    check(sorted(got) == sorted(want), f"{stem}: paths {sorted(got)} != {sorted(want)}")
    for path, p in want.items():
        e = got.get(path, {})
        check(e.get("version") == p["version"], f"{stem}: {path} version")
        check(e.get("resolved") == p["artifacts"][0]["url"], f"{stem}: {path} resolved")
        check(e.get("integrity") == p["artifacts"][0]["hash"], f"{stem}: {path} integrity")
        kinds = {"dependency": "dependencies", "optional": "optionalDependencies",
                 "peer": "peerDependencies"}
        for kind, key in kinds.items():
            exp = {d["name"]: d.get("spec", d["version"]) for d in p["dependencies"]
                   if d.get("kind") == kind}
            check(e.get(key, {}) == exp, f"{stem}: {path} {key}")
        if "spec" in p["requestedBy"] and path == "node_modules/" + p["name"]:
            check(pj["dependencies"].get(p["name"]) == p["version"], f"{stem}: root {p['name']}")


def npm_ci_dry_run(stem, lock_path, json_path):
    npm = shutil.which("npm")
    if not npm:
        return
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(lock_path, os.path.join(d, "package-lock.json"))
        shutil.copy(json_path, os.path.join(d, "package.json"))
        r = subprocess.run([npm, "ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit",
                            "--no-fund", "--cache", os.path.join(d, ".cache")],
                           cwd=d, capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"{stem}: npm ci --dry-run: {r.stdout}{r.stderr}")


def check_apt(stem, text, sources, lock):
    debs = sorted(f"{p['name']}={p['version']}" for p in lock["packages"]
                  if p["ecosystem"] == "deb" and not p.get("installedInBase"))
    check(text.splitlines() == debs, f"{stem}: apt lines")
    if debs:
        for line in sources.splitlines()[1:]:
            check(re.fullmatch(r"deb \[check-valid-until=no\] https://\S+ \S+ \S+( \S+)*", line) is not None,
                  f"{stem}: source line {line!r}")


def main():
    binary, data = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run([binary, "write", out], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            return 1
        for stem, fixture in (("demo", "demo.lock"), ("small", "export-small.lock"),
                              ("collate", "export-collate.lock")):
            lock = yaml.safe_load(open(os.path.join(data, fixture)))
            f = lambda ext: os.path.join(out, f"{stem}.{ext}")
            read = lambda ext: open(f(ext)).read() if os.path.exists(f(ext)) else ""
            check_uv(stem, read("uv-pip-compile.txt"), lock)
            check_requirements(stem, f("requirements.txt"), lock)
            check_pylock(stem, read("pylock.toml"), lock)
            if any(p["ecosystem"] == "npm" for p in lock["packages"]):
                check_npm(stem, f("package-lock.json"), f("package.json"), lock)
                npm_ci_dry_run(stem, f("package-lock.json"), f("package.json"))
            check_apt(stem, read("apt.txt"), read("sources.list"), lock)
    for m in FAILS:
        print("FAIL:", m)
    print(f"export_readers: {len(FAILS)} failure(s)")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""conflict_pairs.py — the conflicting pair envlock shows is a real conflict.

For every corpus scenario with an `expect-error |` block, resolves it once
the way the scenario suite does (run_scenarios.py's mirror, catalog and
resolve are imported, not copied), and when envlock answers
DL_ENV_RESOLVE_CONFLICT takes the pair from the `--json` error's
detail.conflict and evaluates both requirements against the scenario's own
versions of that project with the reference implementations:

  PyPI  Python `packaging` (Debian's python3-packaging): the specifier's
        contains(), pre-releases admitted (the widest reading, so a pair that
        shares even a pre-release is caught);
  npm   npm's own node-semver (satisfies, as npm's installer calls it);
  apt   `dpkg --compare-versions` for the relation's operator.

It fails when the two admissible sets intersect, or when one of them is
empty (two requirements that each admit nothing are two dead ends, which
PACKAGE_NOT_FOUND names, not a pair). A Conflicts/Breaks pair (a package's
Conflicts against a requirement) is not two requirements on one name and is
only listed. Exit 0 pass, 1 fail, 77 when packaging is missing.

  /usr/bin/python3 tests/scenarios/conflict_pairs.py BUILD/cli/envlock corpus/scenarios[/NAME.scn]
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_scenarios as rs  # noqa: E402

scn = rs.scn

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version, InvalidVersion
except ImportError:  # pragma: no cover
    Requirement = None

DEB_OPS = {">=": "ge", "<=": "le", ">>": "gt", "<<": "lt", "=": "eq"}


def npm_semver():
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        return None
    path = os.path.join(os.path.dirname(os.path.realpath(npm)), "..", "node_modules", "semver")
    return path if os.path.isdir(path) else None


def pypi_admits(sc, text):
    """(name, admitted versions) for a PyPI requirement text, or None."""
    try:
        req = Requirement(text)
    except Exception:
        return None
    name = canonicalize_name(req.name)
    versions = [s.version for s in sc.of("pypi") if canonicalize_name(s.name) == name]
    for o in sc.options:
        parts = o.split(None, 1)
        if parts[0] == "preinstalled" and len(parts) > 1:
            n, _, v = parts[1].partition("==")
            if canonicalize_name(n) == name:
                versions.append(v)
    if not versions and ("pypi", name) not in {(e, canonicalize_name(n)) for e, n in sc.empty_projects}:
        return None
    ok = set()
    for v in versions:
        try:
            Version(v)
        except InvalidVersion:
            continue
        if req.specifier.contains(v, prereleases=True):
            ok.add(v)
    return name, ok


def npm_admits(sc, text, semver):
    at = text.find("@", 1)
    if at < 0 or semver is None:
        return None
    name, rng = text[:at], text[at + 1:]
    versions = [s.version for s in sc.of("npm") if s.name == name]
    if not versions and ("npm", name) not in sc.empty_projects:
        return None
    if not versions:
        return name, set()
    js = ("const s=require(process.argv[1]);const r=process.argv[2];"
          "process.stdout.write(JSON.stringify(process.argv.slice(3).filter(v=>s.satisfies(v,r))))")
    p = subprocess.run(["node", "-e", js, semver, rng] + versions, stdout=subprocess.PIPE, text=True)
    return name, set(json.loads(p.stdout or "[]"))


def deb_admits(sc, text):
    m = re.match(r"^([a-z0-9][a-z0-9+.-]*)(?::\S+)?\s*(?:\((>=|<=|>>|<<|=)\s*([^)\s]+)\)|=(\S+))?$", text)
    if not m:
        return None
    name = m.group(1)
    versions = [s.version for s in sc.of("deb") if s.name == name]
    versions += [v for n, v in sc.installed_debs if n == name]
    if not versions:
        return None
    op, ver = (m.group(2), m.group(3)) if m.group(2) else ("=", m.group(4)) if m.group(4) else (None, None)
    if op is None:
        return name, set(versions)
    ok = {v for v in versions
          if subprocess.run(["dpkg", "--compare-versions", v, DEB_OPS[op], ver]).returncode == 0}
    return name, ok


def admitted(sc, text, semver):
    eco_order = [("pypi", lambda: pypi_admits(sc, text)), ("npm", lambda: npm_admits(sc, text, semver)),
                 ("deb", lambda: deb_admits(sc, text))]
    for eco, f in eco_order:
        if not sc.of(eco) and not any(e == eco for e, _ in sc.empty_projects) and \
                not (eco == "pypi" and any(o.startswith("preinstalled") for o in sc.options)):
            continue
        r = f()
        if r is not None:
            return (eco,) + r
    return None


def answer(sc, envlock, work, gnupg):
    """envlock's --json answer for the scenario, resolved once (plain mirror)."""
    has_deb = bool(sc.of("deb"))
    flags, cat = rs.parse_options(sc)
    prev = rs.previous_lock(sc.blocks["previous-lock"]) if "previous-lock" in sc.blocks else None
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(sc.spec_text or "")
    srv, http_base = (None, None)
    if any(o.split()[0] == "exclude-newer" for o in sc.options):
        srv, http_base = rs.serve(work)
    try:
        mdir = os.path.join(work, "mirror-plain")
        man = rs.build_mirror(sc, mdir, gnupg, False, has_deb)
        os.makedirs(mdir + ".catalog", exist_ok=True)
        rs.write_catalog(os.path.join(mdir + ".catalog", "bases.yaml"), sc, man, mdir, cat, has_deb)
        return rs.resolve(envlock, work, "plain", man, mdir, flags, prev, http_base=http_base)
    finally:
        if srv:
            srv.shutdown()
            srv.server_close()


def check_one(sc, res, semver):
    """Problems with the pair of a conflict answer (empty list: fine)."""
    if res["status"] == 0 or res.get("code") != "DL_ENV_RESOLVE_CONFLICT":
        return [], None
    err = res["json"].get("error", res["json"])
    pair = (err.get("detail") or {}).get("conflict") or []
    if "(Conflicts/Breaks)" in (res.get("message") or ""):
        return [], "Conflicts/Breaks pair %s" % pair
    if len(pair) != 2:
        return ["detail.conflict is not a pair: %r" % (pair,)], None
    sides = [admitted(sc, t, semver) for t in pair]
    for t, s in zip(pair, sides):
        if s is None:
            return ["`%s`: cannot tell which of the scenario's versions it admits" % t], None
    (ea, na, sa), (eb, nb, sb) = sides
    if (ea, na) != (eb, nb):
        return ["`%s` and `%s` are about different projects (%s %s, %s %s)" % (
            pair[0], pair[1], ea, na, eb, nb)], None
    probs = []
    for t, s in zip(pair, (sa, sb)):
        if not s:
            probs.append("`%s` admits none of %s's versions: a dead end, not half of a pair" % (t, na))
    if sa & sb:
        probs.append("`%s` and `%s` both admit %s %s: they do not conflict" % (
            pair[0], pair[1], na, ", ".join(sorted(sa & sb))))
    return probs, "%s %s: %s -> {%s} vs %s -> {%s}" % (
        ea, na, pair[0], ", ".join(sorted(sa)), pair[1], ", ".join(sorted(sb)))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    if Requirement is None:
        print("SKIP: Python packaging is not importable (Debian: python3-packaging)")
        return 77
    envlock, corpus = sys.argv[1], sys.argv[2]
    semver = npm_semver()
    root = tempfile.mkdtemp(prefix="conflict-pairs-")
    gnupg = os.path.join(root, "gnupg")
    failed, checked = [], 0
    try:
        paths = [corpus] if corpus.endswith(".scn") else sorted(glob.glob(os.path.join(corpus, "*.scn")))
        for path in paths:
            sc = scn.parse(path)
            if "expect-error" not in sc.blocks and "expect-error-file" not in sc.files:
                continue
            if sc.of("deb") and (not shutil.which("dpkg-deb") or not shutil.which("gpg")):
                print("skip %s: dpkg-deb and gpg are needed" % sc.name)
                continue
            work = os.path.join(root, sc.name)
            os.makedirs(work)
            try:
                res = answer(sc, envlock, work, gnupg)
            except rs.Failure as e:
                failed.append((sc.name, [str(e)]))
                continue
            probs, what = check_one(sc, res, semver)
            if os.environ.get("SCENARIO_SHOW") == "1":
                print("%s: %s %s" % (sc.name, res.get("code"), res.get("message")))
            if what:
                checked += 1
                print("%s %s: %s" % ("FAIL" if probs else "ok  ", sc.name, what))
            for p in probs:
                print("     " + p)
            if probs:
                failed.append((sc.name, probs))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("%d conflict answers checked, %d with a pair that is not a conflict" % (checked, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

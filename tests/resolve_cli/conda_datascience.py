#!/usr/bin/env python3
"""conda_datascience.py ENVLOCK — issue 23's real-world proof on a
data-science environment.yml (pandas, scipy, matplotlib-base, scikit-learn
and pip on Python 3.12) against the recorded conda-forge slice of
conda/datascience (README.md there: real records kept in pixi's lock
files), served on 127.0.0.1 and mapped with --mirror:

  - the lock's conda packages are exactly rattler's answer for the same
    specs and virtual packages (case cfds-py312 of tests/conda/solve/
    rattler_answers.txt, written by @conda-org/rattler), each artifact as
    the served repodata.json gives it;
  - `export --format conda-explicit` has one URL#md5 line per record of
    that answer, the md5 the served repodata gives;
  - `plan` for the four variants installs that explicit file with
    micromamba, and its SBOM names each conda package by its purl;
  - the same spec with the dependencies shuffled, and again --offline from
    the cache with the server stopped: the same lock, byte for byte.

The base of this test's catalog runs Python 3.12: the slice has no pandas
build for 3.13. The package files are not in the slice (conda-forge is not
reachable here), so the bundle of this lock is not built; the bundle of a
conda lock is proven on the hand-made channel of conda_source.py."""

import json
import os
import random
import shutil
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, HERE)
import conda_source as cs  # noqa: E402
import servers  # noqa: E402
import specs  # noqa: E402

cs.SLICE = os.path.join(HERE, "conda", "datascience")
DEPS = ["pandas", "scipy", "matplotlib-base", "scikit-learn", "pip"]
ROOTS = {"python", "pandas", "scipy", "matplotlib-base", "scikit-learn", "pip"}


def catalog(work):
    """The test catalog with Python 3.12 (3.12.12, conda-forge's newest 3.12
    in the slice) in place of 3.13."""
    path = os.path.join(work, "bases.yaml")
    with open(path, "w") as f:
        f.write(specs.test_catalog().replace('"3.13"', '"3.12"').replace("3.13.7", "3.12.12"))
    return path


def spec_text(deps):
    text = cs.plan_spec_text(deps, "")
    return text.replace('version: "3.13"', 'version: "3.12"', 1)


def want_answer():
    want = cs.rattler_answer("cfds-py312")
    if want[0] != "ok":
        raise cs.Fail("rattler's answer is not a solution: %r" % want[:2])
    return sorted(ln.replace("cfds/", "", 1) for ln in want[1:])


def check_lock(lock, want):
    doc = yaml.safe_load(open(lock))
    conda = [p for p in doc["packages"] if p["ecosystem"] == "conda"]
    got = sorted("%s %s %s %s/%s" % (p["name"], p["version"], p["build"], p["subdir"],
                                      p["artifacts"][0]["file"]) for p in conda)
    if got != want:
        raise cs.Fail("conda packages differ from rattler's:\n only envlock: %s\n only "
                      "rattler: %s" % (sorted(set(got) - set(want)),
                                       sorted(set(want) - set(got))))
    recs = cs.served_records()
    for p in conda:
        a = p["artifacts"][0]
        r = recs[(p["subdir"], a["file"])]
        if (a["hash"], a["md5"], a["size"]) != ("sha256:" + r["sha256"], r["md5"], r["size"]):
            raise cs.Fail("%s: artifact %r, repodata %r" % (p["name"], a, r))
    roots = {p["name"] for p in conda if "spec" in p["requestedBy"]}
    if roots != ROOTS:
        raise cs.Fail("requested by the spec: %r" % sorted(roots))
    return conda, recs


def check_plan(run, bases, spec, lock, conda, recs):
    out = os.path.join(run.work, "plan-out")
    rc, js, text = run(["plan", "--bases", bases, spec, lock, "-o", out])
    if rc != 0 or sorted(js.get("variants", [])) != sorted(cs.VARIANTS):
        raise cs.Fail("plan exited %d: %s" % (rc, text))
    want = sorted("http://127.0.0.1:%d/conda-forge/%s/%s#%s" % (
        run.port, p["subdir"], p["artifacts"][0]["file"],
        recs[(p["subdir"], p["artifacts"][0]["file"])]["md5"]) for p in conda)
    for v in cs.VARIANTS:
        d = os.path.join(out, v)
        files = {f: open(os.path.join(d, f)).read() for f in os.listdir(d)
                 if not f.startswith(".")}
        body = files["conda-explicit.txt"].split("@EXPLICIT\n", 1)
        if len(body) != 2 or sorted(body[1].splitlines()) != want:
            raise cs.Fail("%s: conda-explicit.txt differs from the locked records" % v)
        name = "modal_image.py" if v == "modal" else ("e2b.Dockerfile" if v == "e2b"
                                                      else "Dockerfile")
        if "micromamba" not in files[name] or "conda-explicit.txt" not in files[name]:
            raise cs.Fail("%s: %s does not install the explicit file with micromamba" % (v, name))
        sbom = json.loads(files["sbom.cdx.json"])
        purls = sorted(c["purl"] for c in sbom["components"] if c["purl"].startswith("pkg:conda/"))
        if purls != sorted(cs.conda_purl(p, p["artifacts"][0]["file"]) for p in conda):
            raise cs.Fail("%s: SBOM conda purls %r" % (v, purls))


def main():
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="el-conda-ds-")
    os.makedirs(os.path.join(work, "config"))
    srv = servers.DirServer(cs.SLICE).start()
    try:
        cs.BASES = bases = catalog(work)
        run = cs.Run(envlock, work, srv.port)
        want = want_answer()
        spec, lock, _js = run.resolve("ds", spec_text(DEPS))
        conda, recs = check_lock(lock, want)
        cs.check_explicit(run, lock, want, recs)
        check_plan(run, bases, spec, lock, conda, recs)
        rnd = random.Random(5)
        for k in range(2):
            deps = DEPS[:]
            rnd.shuffle(deps)
            _s, again, _ = run.resolve("shuffled%d" % k, spec_text(deps))
            if cs.without_digest(again) != cs.without_digest(lock):
                raise cs.Fail("dependencies %r give another lock" % deps)
        srv.stop()
        _s, offline, _ = run.resolve("offline", spec_text(DEPS), offline=True)
        if open(offline, "rb").read() != open(lock, "rb").read():
            raise cs.Fail("--offline from the cache gives another lock")
    except cs.Fail as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("data science: %d conda packages, as rattler chose; explicit export and plans of "
          "the four variants; same bytes shuffled and --offline" % len(conda))
    return 0


if __name__ == "__main__":
    sys.exit(main())

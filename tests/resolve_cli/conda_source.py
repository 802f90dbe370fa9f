#!/usr/bin/env python3
"""conda_source.py ENVLOCK PART — `build.dependencyFile` with
`sourceFormat: conda` (issue 23): an environment.yml resolved by
`envlock resolve` against the recorded conda-forge slice of conda/
(README.md there), served over http on 127.0.0.1 by this test on a free
port and mapped with --mirror onto https://conda.anaconda.org.

  resolve      the conda packages of the lock are exactly what rattler's
               solver chose for the same specs, channel and virtual
               packages (case cfl-requests of tests/conda/solve/
               rattler_answers.txt, written by @conda-org/rattler), each
               with channel, subdir, file, url, sha256, md5 and size as the
               served repodata.json gives them; the file's own `python`
               spec is dropped with a note (REFERENCE §3); `check` accepts
               the lock and names a match spec the lock no longer meets;
               `export --format conda-explicit` lists exactly those files
               with their md5; `--format conda-lock` writes CEP 37's
               conda-lock.yml (version 1) with those files, md5, sha256 and
               depends, and a pip layer added to the lock as manager: pip
               entries; the CycloneDX and SPDX exports pass their
               schemas and name each conda package by its purl; the pip
               exports refuse it rather than leave the conda packages out
               (bundle: tests/bundle/bundle_conda.py).
  plan         the lock with a pip layer planned for the four variants
               (--mirror onto the served slice and PyPI mirror): each
               installs conda-explicit.txt (one mirrored URL#md5 line per
               locked record, as the served repodata gives them) with
               micromamba into /opt/conda (create for e2b, whose image has
               none), then the pip layer's requirements.txt, which Debian's
               pip downloads with --require-hashes from the index the step
               names; lock.txt is the conda-explicit export; the SBOM
               names each conda package by its purl; same bytes twice.
  determinism  the same spec twice, the dependencies shuffled, the channel
               left to its default, and --offline from the cache with the
               server stopped: the same lock but for specDigest (the file's
               text is part of the spec), byte for byte.
  check        online and --offline, each conda artifact is confirmed
               against the served repodata.json (a wrong sha256, md5 or
               size is named); an input off the spec's channels is not
               fetched but reported.
  cutoff       --exclude-newer 2025-10-01: what rattler solves on the slice
               with every later record dropped (case cfl-requests-cut).
  mixed        the environment.yml beside the demo's npm and apt roots on
               the demo mirror: one lock with rattler's conda answer and the
               very npm and deb packages those roots lock without conda; the
               lock without conda is refused by both conda exports.
  conflict     numpy beside python=3.13, which no numpy of the slice
               serves (rattler: unsat, case cfl-numpy-py313):
               DL_ENV_RESOLVE_CONFLICT naming both specs and their fields,
               a short message (one rule of each kind), every rule in
               detail.rules and in the message with --explain.
  refusals     pip options in the `pip:` list follow a requirements file's
               rules (an index the spec does not name, `-e .`: findings at
               their entries, spec line and column); a channel that does not exist fails
               naming its repodata.json; a spec no record matches is
               PACKAGE_NOT_FOUND with the versions the channel has.
  pip          the `pip:` list (the pip layer) from the demo's PyPI mirror
               on 127.0.0.1 in the same solve: the set the served metadata
               gives and Debian's pip chooses from the same index, in the
               conda-lock (schema-checked) and conda-explicit exports; the
               conda packages as without the pip list; --offline: same bytes.
  purls        a record's repodata `purls` say which PyPI distribution it
               installs (rattler's PackageRecord.purls): `py-urllib3` with
               pkg:pypi/urllib3 meets the pip layer's urllib3, `certifi`
               with `purls: []` meets nothing (the PyPI copy is installed),
               `idna` without purls meets idna by name; the lock records
               them as pypiNames, check accepts it, the parsed form (a
               second resolve from the cache) gives the same bytes; without
               the purls, PyPI's urllib3 is installed beside py-urllib3.
  pipconda     conda wins: a pip requirement on a distribution conda
               installs is met by the conda package in the same solve
               (its version chosen to fit both), a conflict names both, a
               pip-layer package's requirement conda meets is an edge to it;
               the pip layer's markers are decided for the conda python.
Expected values come from rattler's answers, the served repodata and PyPI
metadata, and pip, not from envlock's output."""

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import servers  # noqa: E402
import specs  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
SLICE = os.path.join(HERE, "conda")
ANSWERS = os.path.join(ROOT, "tests", "conda", "solve", "rattler_answers.txt")
CHANNEL = "https://conda.anaconda.org/conda-forge"
# the demo's PyPI mirror (built from corpus/demo/demo.scn: wheels and their
# PEP 658 metadata), served on 127.0.0.1 as https://pypi.org
PYPI = os.path.join(ROOT, "corpus", "demo", "mirror", "pypi", "pypi")

HEAD = specs.conda_head("conda-env")
# case cfl-requests: python=3.13 (from spec.language.version), requests,
# packaging, tzdata; `python>=3.10` is the file's own and is dropped
DEPS = ["python>=3.10", "requests", "packaging", "tzdata"]


class Fail(Exception):
    pass


def env_yml(deps, channels=("conda-forge",), extra=""):
    text = "name: demo\n"
    if channels is not None:
        text += "channels:\n" + "".join("  - %s\n" % c for c in channels)
    text += "dependencies:\n" + "".join("  - %s\n" % d for d in deps) + extra
    return HEAD + "".join("        " + ln + "\n" for ln in text.splitlines())


def rattler_answer(case):
    lines, on = [], False
    for ln in open(ANSWERS).read().splitlines():
        if ln == "case " + case:
            on = True
        elif on and ln == "end":
            break
        elif on:
            lines.append(ln)
    if not lines:
        raise Fail("no rattler answer for " + case)
    return lines


def served_records():
    recs = {}
    for sub in ("linux-64", "noarch"):
        doc = json.load(open(os.path.join(SLICE, "conda-forge", sub, "repodata.json")))
        for sect in ("packages", "packages.conda"):
            for fn, r in doc[sect].items():
                recs[(sub, fn)] = r
    return recs


class Run:
    def __init__(self, envlock, work, port, pypi_port=None):
        self.envlock, self.work, self.port, self.pypi_port = envlock, work, port, pypi_port

    def __call__(self, args, offline=False):
        cmd = [self.envlock, "--json", "--cache-dir", os.path.join(self.work, "cache"),
               "--mirror", "https://conda.anaconda.org=http://127.0.0.1:%d" % self.port]
        if self.pypi_port:
            cmd += ["--mirror", "https://pypi.org=http://127.0.0.1:%d" % self.pypi_port]
        if offline:
            cmd.append("--offline")
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
        env["ENVLOCK_CONFIG"] = os.path.join(self.work, "config")
        p = subprocess.run(cmd + args, capture_output=True, text=True, cwd=self.work,
                           timeout=300, env=env)
        try:
            js = json.loads(p.stdout) if p.stdout.strip() else None
        except ValueError:
            js = None
        return p.returncode, js, p.stdout + p.stderr

    def resolve(self, name, text, want_rc=0, offline=False, explain=False):
        spec = os.path.join(self.work, name + ".yaml")
        with open(spec, "w") as f:
            f.write(text)
        lock = os.path.join(self.work, name + ".lock")
        rc, js, out = self(["resolve", "--bases", BASES, spec, "-o", lock] +
                           (["--explain"] if explain else []), offline)
        if rc != want_rc:
            raise Fail("%s: resolve exited %d, expected %d: %s" % (name, rc, want_rc, out))
        return spec, lock, js


def part_resolve(run):
    spec, lock, js = run.resolve("env", env_yml(DEPS))
    doc = yaml.safe_load(open(lock))
    conda = [p for p in doc["packages"] if p["ecosystem"] == "conda"]
    got = sorted("%s %s %s %s/%s" % (p["name"], p["version"], p["build"], p["subdir"],
                                      p["artifacts"][0]["file"]) for p in conda)
    want = rattler_answer("cfl-requests")
    if want[0] != "ok":
        raise Fail("rattler's answer is not a solution: %r" % want[:2])
    want = sorted(ln.replace("cfl/", "", 1) for ln in want[1:])
    if got != want:
        raise Fail("conda packages differ from rattler's:\n only envlock: %s\n only rattler: %s"
                   % (sorted(set(got) - set(want)), sorted(set(want) - set(got))))
    recs = served_records()
    for p in conda:
        a = p["artifacts"]
        r = recs.get((p["subdir"], a[0]["file"]))
        if p["source"] != CHANNEL or len(a) != 1 or r is None:
            raise Fail("%s: source %r, artifacts %r" % (p["name"], p["source"], a))
        url = "%s/%s/%s" % (CHANNEL, p["subdir"], a[0]["file"])
        if (a[0]["url"], a[0]["hash"], a[0]["md5"], a[0]["size"]) != (
                url, "sha256:" + r["sha256"], r["md5"], r["size"]):
            raise Fail("%s: artifact %r, repodata %r" % (p["name"], a[0], r))
    roots = {p["name"] for p in conda if "spec" in p["requestedBy"]}
    if roots != {"python", "requests", "packaging", "tzdata"}:
        raise Fail("requested by the spec: %r" % sorted(roots))
    ins = sorted((i["url"], i["identity"]) for i in doc["inputs"] if i["ecosystem"] == "conda")
    want_ins = [(CHANNEL + "/%s/repodata.json" % sub, "sha256:" + hashlib.sha256(
        open(os.path.join(SLICE, "conda-forge", sub, "repodata.json"), "rb").read()).hexdigest())
        for sub in ("linux-64", "noarch")]
    if ins != want_ins:
        raise Fail("conda inputs: %r" % ins)
    if js["packages"].get("conda") != len(want):
        raise Fail("resolve --json counts %r conda packages" % js["packages"].get("conda"))
    if not any("`python>=3.10`" in n and "dropped" in n for n in js.get("notes", [])):
        raise Fail("no note for the dropped python spec: %r" % js.get("notes"))
    rc, _js, out = run(["check", "--bases", BASES, spec, lock])
    if rc != 0:
        raise Fail("check of the fresh lock exited %d: %s" % (rc, out))
    stale = os.path.join(run.work, "stale.yaml")
    with open(stale, "w") as f:
        f.write(env_yml(["requests <2", "packaging", "tzdata"]))
    rc, js, out = run(["check", "--bases", BASES, stale, lock])
    if rc != 1 or "requests <2 is no longer satisfied" not in out:
        raise Fail("check against `requests <2` exited %d: %s" % (rc, out))
    check_explicit(run, lock, want, recs)
    check_conda_lock(run, lock, recs)
    check_sboms(run, lock, conda)
    for args in (["export", lock, "--format", "requirements", "--bases", BASES],
                 ["export", lock, "--format", "pylock"]):
        rc, js, out = run(args)
        if rc != 11 or not js or js.get("code") != "DL_ENV_CAPABILITY_UNSUPPORTED":
            raise Fail("%s of a conda lock exited %d (not refused): %s" % (args[0], rc, out))
    print("resolve: %d conda packages, as rattler chose; check passes; conda-explicit "
          "export; SBOMs name them by purl; pip exports refuse it" % len(conda))
    return lock


SBOM_SCHEMAS = os.path.join(ROOT, "tests", "plan", "data", "sbom-schemas")


def schema_errors(doc, main, refs):
    """`doc` against the official schema `main` (refs: the ones it uses)."""
    import warnings
    load = lambda n: json.load(open(os.path.join(SBOM_SCHEMAS, n)))  # noqa: E731
    schema = load(main)
    store = {s["$id"]: s for s in map(load, refs)}
    store[schema["$id"]] = schema
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        res = jsonschema.RefResolver.from_schema(schema, store=store)
        v = jsonschema.validators.validator_for(schema)(schema, resolver=res)
        return [e.message for e in v.iter_errors(doc)]


def check_sboms(run, lock, conda):
    """export --format cyclonedx and spdx of the conda lock: valid by the
    CycloneDX 1.6 and SPDX 2.3 schemas, each conda package by its purl
    (purl-spec's conda type: build, channel, subdir, type)."""
    want = sorted(conda_purl(p, p["artifacts"][0]["file"]) for p in conda)
    for fmt, main, refs in (("cyclonedx", "bom-1.6.schema.json",
                             ("spdx.schema.json", "jsf-0.82.schema.json")),
                            ("spdx", "spdx-2.3.schema.json", ())):
        out = os.path.join(run.work, "sbom." + fmt)
        rc, _js, text = run(["export", lock, "--format", fmt, "-o", out])
        if rc != 0:
            raise Fail("export --format %s of a conda lock exited %d: %s" % (fmt, rc, text))
        doc = json.load(open(out))
        errs = schema_errors(doc, main, refs)
        if errs:
            raise Fail("%s: schema: %s" % (fmt, errs[:3]))
        if fmt == "cyclonedx":
            purls = [c["purl"] for c in doc["components"]]
        else:
            purls = [r["referenceLocator"] for p in doc["packages"]
                     for r in p.get("externalRefs", []) if r.get("referenceType") == "purl"]
        if sorted(u for u in purls if u.startswith("pkg:conda/")) != want:
            raise Fail("%s conda purls %r, expected %r" % (fmt, purls, want))


def check_explicit(run, lock, want, recs):
    """export --format conda-explicit: conda's explicit file (what `conda
    list --explicit --md5` writes): `@EXPLICIT`, then one URL#md5 line per
    package of rattler's answer, the md5 the served repodata gives."""
    out = os.path.join(run.work, "explicit.txt")
    rc, _js, text = run(["export", lock, "--format", "conda-explicit", "-o", out])
    if rc != 0:
        raise Fail("export --format conda-explicit exited %d: %s" % (rc, text))
    lines = open(out).read().splitlines()
    if "@EXPLICIT" not in lines or "# platform: linux-64" not in lines:
        raise Fail("explicit file header: %r" % lines[:4])
    body = lines[lines.index("@EXPLICIT") + 1:]
    expect = []
    for ln in want:  # "name version build subdir/file"
        sub, fn = ln.split()[3].split("/")
        expect.append("%s/%s/%s#%s" % (CHANNEL, sub, fn, recs[(sub, fn)]["md5"]))
    if body != expect:  # both in name order
        raise Fail("explicit lines differ:\n only envlock: %s\n only expected: %s"
                   % (sorted(set(body) - set(expect)), sorted(set(expect) - set(body))))


CEP37_PACKAGE = {"name", "version", "manager", "platform", "dependencies", "url", "hash",
                 "category", "optional"}


def export_conda_lock(run, lock, name):
    """The export read with PyYAML and validated against conda-lock's own
    schema of its version 1 (conda-lock-schema/README)."""
    out = os.path.join(run.work, name)
    rc, _js, text = run(["export", lock, "--format", "conda-lock", "-o", out])
    if rc != 0:
        raise Fail("export --format conda-lock exited %d: %s" % (rc, text))
    doc = yaml.safe_load(open(out))
    schema = json.load(open(os.path.join(HERE, "conda-lock-schema", "conda-lock-v1.schema.json")))
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(doc))
    if errors:
        raise Fail("%s against conda-lock's v1 schema: %s" % (name, errors[0]))
    return doc


def check_conda_lock(run, lock, recs):
    """export --format conda-lock: CEP 37's conda-lock.yml, version 1, read
    with PyYAML. Each conda package of the lock is one entry (name order)
    with the lock's name, version and url, the served repodata's md5 and
    sha256, and the lock's edges as conda-lock writes depends (name: the
    rest of the match spec; the names are the record's depends but the
    virtual packages); metadata carries the
    sha256 of the lock file as content_hash. Then a pip layer added to the
    lock: its one package is a manager: pip entry with the lock's url and
    sha256; the base's protected pins (pypi, installedInBase) are not."""
    doc = export_conda_lock(run, lock, "conda-lock.yml")
    want_meta = {"content_hash": {"linux-64": hashlib.sha256(open(lock, "rb").read()).hexdigest()},
                 "channels": [{"url": CHANNEL, "used_env_vars": []}],
                 "platforms": ["linux-64"], "sources": []}
    if doc.get("version") != 1 or doc.get("metadata") != want_meta:
        raise Fail("conda-lock header: version %r, metadata %r" % (doc.get("version"),
                                                                 doc.get("metadata")))
    src = yaml.safe_load(open(lock))
    conda = sorted((p for p in src["packages"] if p["ecosystem"] == "conda"),
                   key=lambda p: p["name"])
    entries = doc["package"]
    if [e["name"] for e in entries] != [p["name"] for p in conda]:
        raise Fail("conda-lock names: %r" % [e["name"] for e in entries])
    for e, p in zip(entries, conda):
        r = recs[(p["subdir"], p["artifacts"][0]["file"])]
        deps = {}  # the lock's edges: name -> the rest of each match spec, joined
        for ed in p.get("dependencies", []):
            rest = " ".join(ed["spec"].split()[1:])
            deps.setdefault(ed["name"], [])
            if rest and rest not in deps[ed["name"]]:
                deps[ed["name"]].append(rest)
        deps = {k: ",".join(sorted(v)) for k, v in deps.items()}
        names = {d.split()[0] for d in r.get("depends", []) if not d.startswith("__")}
        if set(deps) != names:  # every record depends but the virtual ones
            raise Fail("%s: lock edges %r, repodata depends %r" % (p["name"], deps, names))
        want = {"name": p["name"], "version": p["version"], "manager": "conda",
                "platform": "linux-64", "dependencies": deps, "url": p["artifacts"][0]["url"],
                "hash": {"md5": r["md5"], "sha256": r["sha256"]}, "category": "main",
                "optional": False}
        if set(e) != CEP37_PACKAGE or e != want:
            raise Fail("conda-lock entry of %s:\n got  %r\n want %r" % (p["name"], e, want))
    # a pip layer added to the lock by hand (part pip resolves one)
    sha = hashlib.sha256(b"certifi").hexdigest()
    whl = "certifi-2025.4.26-py3-none-any.whl"
    url = "https://files.pythonhosted.org/packages/" + whl
    # the lock's pypi packages are the base's protected pins (installedInBase):
    # certifi goes before them, in name order
    base = [p["name"] for p in src["packages"] if p["ecosystem"] == "pypi"]
    if not base or min(base) < "certifi" or not all(
            p.get("installedInBase") for p in src["packages"] if p["ecosystem"] == "pypi"):
        raise Fail("the lock's pypi packages are not the base's, after certifi: %r" % base)
    text = open(lock).read()
    at = text.index("- ecosystem: pypi\n")
    pip_lock = os.path.join(run.work, "pip-layer.lock")
    with open(pip_lock, "w") as f:
        f.write(text[:at] + (
            "- ecosystem: pypi\n  name: certifi\n  version: \"2025.4.26\"\n"
            "  source: \"https://pypi.org/simple\"\n  requestedBy: [spec]\n"
            "  dependencies: []\n  artifacts:\n  - file: %s\n    url: \"%s\"\n"
            "    hash: \"sha256:%s\"\n") % (whl, url, sha) + text[at:])
    doc = export_conda_lock(run, pip_lock, "pip-conda-lock.yml")
    pips = [e for e in doc["package"] if e["manager"] == "pip"]
    want = [{"name": "certifi", "version": "2025.4.26", "manager": "pip",
             "platform": "linux-64", "dependencies": {}, "url": url, "hash": {"sha256": sha},
             "category": "main", "optional": False}]
    if pips != want or len(doc["package"]) != len(conda) + 1:
        raise Fail("conda-lock pip layer: %r" % pips)
    hexdigest = hashlib.sha256(open(pip_lock, "rb").read()).hexdigest()
    if doc["metadata"]["content_hash"] != {"linux-64": hexdigest}:
        raise Fail("content_hash of the pip-layer lock: %r" % doc["metadata"]["content_hash"])


def served_wheels():
    """{canonical name: {version: (file, sha256, [Requires-Dist names
    without a marker])}} of the served PyPI mirror, read from its files and
    their .metadata."""
    out = {}
    files = os.path.join(PYPI, "files")
    for fn in sorted(os.listdir(files)):
        if not fn.endswith(".whl"):
            continue
        meta = open(os.path.join(files, fn + ".metadata")).read()
        hdr = dict(ln.split(": ", 1) for ln in meta.split("\n\n")[0].splitlines()
                   if ": " in ln and not ln.startswith("Requires-Dist"))
        deps = []
        for ln in meta.splitlines():
            if ln.startswith("Requires-Dist: ") and ";" not in ln:
                deps.append(canon(re.split(r"[<>=!~ \[(]", ln[15:], 1)[0]))
        sha = hashlib.sha256(open(os.path.join(files, fn), "rb").read()).hexdigest()
        out.setdefault(canon(hdr["Name"]), {})[hdr["Version"]] = (fn, sha, deps)
    return out


def canon(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def newest(versions):
    return max(versions, key=lambda v: [int(x) for x in v.split(".")])


def pip_choice(work, reqs):
    """What Debian's pip chooses for `reqs` from the same served index
    (`pip install --dry-run --report`, for CPython 3.13 on manylinux, wheels
    only as the index has no sdist), or None without pip."""
    req = os.path.join(work, "pip-layer.txt")
    with open(req, "w") as f:
        f.write("\n".join(reqs) + "\n")
    report = os.path.join(work, "pip-report.json")
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
    env.pop("PIP_FIND_LINKS", None)
    cmd = ["/usr/bin/python3", "-m", "pip", "install", "--dry-run", "--ignore-installed",
           "--quiet", "--target", os.path.join(work, "pip-target"), "--report", report,
           "--index-url", "file://" + os.path.join(PYPI, "simple"), "--python-version", "3.13",
           "--implementation", "cp", "--abi", "cp313", "--platform", "manylinux_2_36_x86_64",
           "--platform", "manylinux_2_17_x86_64", "--only-binary", ":all:", "-r", req]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    except OSError:
        return None
    if p.returncode != 0:
        if "No module named pip" in p.stderr:
            return None
        raise Fail("pip failed: %s" % p.stderr)
    return {canon(i["metadata"]["name"]): i["metadata"]["version"]
            for i in json.load(open(report))["install"]}


PIP_LAYER = ["--index-url https://pypi.org/simple", "requests>=2.31"]
CONDA_ONLY = ["packaging", "tzdata"]  # no conda package is a PyPI dist of the pip layer


def part_pip(run, stop_servers):
    """The environment.yml's `pip:` list resolved in the same solve: the
    lock's PyPI packages outside the base are requests and what its
    metadata requires (each the newest the served index has, all of them
    admitted), what Debian's pip chooses from the same index; each with the
    served file's sha256 and source https://pypi.org/simple; the conda
    packages are rattler's answer for the conda specs alone; the conda-lock
    export has them as manager: pip entries (URL and sha256 of the served
    file) and passes conda-lock's v1 schema; conda-explicit names them as
    `# datalayer-pip:` lines; --offline from the cache gives the same bytes."""
    extra = "  - pip:\n" + "".join("    - %s\n" % q for q in PIP_LAYER)
    spec, lock, js = run.resolve("pip", env_yml(CONDA_ONLY, extra=extra))
    _s, plain, _ = run.resolve("nopip", env_yml(CONDA_ONLY))
    doc = yaml.safe_load(open(lock))
    wheels = served_wheels()
    want, todo = {}, ["requests"]
    while todo:
        n = todo.pop()
        if n not in want:
            want[n] = newest(wheels[n])
            todo += wheels[n][want[n]][2]
    pip_layer = {p["name"]: p for p in doc["packages"]
                 if p["ecosystem"] == "pypi" and not p.get("installedInBase")}
    got = {n: p["version"] for n, p in pip_layer.items()}
    if got != want:
        raise Fail("pip layer %r, expected from the metadata %r" % (got, want))
    chosen = pip_choice(run.work, PIP_LAYER[1:])
    if chosen is not None and chosen != got:
        raise Fail("pip chooses %r, the lock has %r" % (chosen, got))
    for n, p in pip_layer.items():
        fn, sha, _deps = wheels[n][p["version"]]
        if p.get("source") != "https://pypi.org/simple" or \
                [(a["file"], a["hash"]) for a in p["artifacts"]] != [(fn, "sha256:" + sha)]:
            raise Fail("pip layer package %s: %r" % (n, p))
    if "spec" not in pip_layer["requests"]["requestedBy"]:
        raise Fail("requests is not requested by the spec: %r" % pip_layer["requests"])
    if conda_lines(lock) != conda_lines(plain) or not conda_lines(lock):
        raise Fail("the conda packages beside the pip layer differ from those without it")
    cl = export_conda_lock(run, lock, "pip-layer-conda-lock.yml")
    pips = {e["name"]: e for e in cl["package"] if e["manager"] == "pip"}
    if sorted(pips) != sorted(want):
        raise Fail("conda-lock pip entries: %r" % sorted(pips))
    for n, e in pips.items():
        fn, sha, _deps = wheels[n][want[n]]
        if e["version"] != want[n] or e["hash"] != {"sha256": sha} or \
                not e["url"].endswith("/" + fn):
            raise Fail("conda-lock pip entry %s: %r" % (n, e))
    out = os.path.join(run.work, "pip-explicit.txt")
    rc, _js, text = run(["export", lock, "--format", "conda-explicit", "-o", out])
    pins = sorted(ln for ln in open(out).read().splitlines() if ln.startswith("# datalayer-pip:"))
    want_pins = sorted("# datalayer-pip: %s==%s --hash=sha256:%s" % (n, v, wheels[n][v][1])
                       for n, v in want.items())
    if rc != 0 or pins != want_pins:
        raise Fail("conda-explicit pip lines %r, expected %r (%s)" % (pins, want_pins, text))
    stop_servers()
    _s, offline, _ = run.resolve("pip-offline", env_yml(CONDA_ONLY, extra=extra), offline=True)
    if open(offline, "rb").read() != open(lock, "rb").read():
        raise Fail("--offline from the cache gives another lock")
    print("pip: the pip layer %s in the one solve%s; conda-lock and conda-explicit carry it; "
          "--offline gives the same bytes" % (sorted(got.items()),
                                              ", as pip chooses" if chosen else ""))


def purls_channel(root, with_purls):
    """A channel of Python packages whose names and PyPI names differ."""
    recs = {"linux-64": {"python-3.13.5-h2_0.conda": ("python", "3.13.5", "h2_0", [], None)},
            "noarch": {
                "py-urllib3-2.2.3-pyh_0.conda": ("py-urllib3", "2.2.3", "pyh_0", ["python >=3.8"],
                                                 ["pkg:pypi/urllib3@2.2.3", "pkg:github/x/y"]),
                "certifi-2025.4.26-pyh_0.conda": ("certifi", "2025.4.26", "pyh_0",
                                                  ["python >=3.8"], []),
                "idna-3.10-pyh_0.conda": ("idna", "3.10", "pyh_0", ["python >=3.8"], None)}}
    for sub, files in recs.items():
        doc = {"info": {"subdir": sub}, "packages": {}, "packages.conda": {}}
        for fn, (name, ver, build, deps, purls) in files.items():
            rec = {"name": name, "version": ver, "build": build, "build_number": 0,
                   "depends": deps, "subdir": sub, "md5": hashlib.md5(fn.encode()).hexdigest(),
                   "sha256": hashlib.sha256(fn.encode()).hexdigest(), "size": 1000,
                   "timestamp": 1735689600000}
            if purls is not None and with_purls:
                rec["purls"] = purls
            doc["packages.conda"][fn] = rec
        os.makedirs(os.path.join(root, "conda-forge", sub), exist_ok=True)
        with open(os.path.join(root, "conda-forge", sub, "repodata.json"), "w") as f:
            json.dump(doc, f)


def part_purls(run, work):
    """requests from the demo's PyPI beside conda's py-urllib3 (purl
    pkg:pypi/urllib3), certifi (purls: []) and idna (no purls): the pip
    layer is what requests' metadata reaches that no conda record installs."""
    wheels = served_wheels()
    extra = "  - pip:\n" + "".join("    - %s\n" % q for q in PIP_LAYER)
    want, todo = {}, ["requests"]
    while todo:
        n = todo.pop()
        if n not in want:
            want[n] = newest(wheels[n])
            todo += wheels[n][want[n]][2]
    got = {}
    for with_purls in (True, False):
        root = os.path.join(work, "purls-%s" % with_purls)
        purls_channel(root, with_purls)
        srv = servers.DirServer(root).start()
        try:
            r2 = Run(run.envlock, os.path.join(work, "p%s" % with_purls), srv.port, run.pypi_port)
            os.makedirs(r2.work)
            spec, lock, _js = r2.resolve("env", env_yml(["py-urllib3", "certifi", "idna"],
                                                        extra=extra))
            _s, again, _js = r2.resolve("again", env_yml(["py-urllib3", "certifi", "idna"],
                                                         extra=extra))
            if open(again, "rb").read() != open(lock, "rb").read():
                raise Fail("a second resolve (the parsed form) gives another lock")
            doc = yaml.safe_load(open(lock))
            got[with_purls] = {p["name"] for p in doc["packages"]
                               if p["ecosystem"] == "pypi" and not p.get("installedInBase")}
            names = {p["name"]: p.get("pypiNames") for p in doc["packages"]
                     if p["ecosystem"] == "conda"}
            want_names = {"py-urllib3": ["urllib3"], "certifi": [], "idna": None,
                          "python": None} if with_purls else \
                {"py-urllib3": None, "certifi": None, "idna": None, "python": None}
            if names != want_names:
                raise Fail("pypiNames %r, expected %r" % (names, want_names))
            rc, _js, out = r2(["check", "--bases", BASES, spec, lock])
            if rc != 0:
                raise Fail("check of the purls lock exited %d: %s" % (rc, out))
        finally:
            srv.stop()
    if got[True] != set(want) - {"urllib3", "idna"}:
        raise Fail("with purls the pip layer is %r, expected %r"
                   % (sorted(got[True]), sorted(set(want) - {"urllib3", "idna"})))
    if got[False] != set(want) - {"idna", "certifi"}:
        raise Fail("without purls the pip layer is %r, expected %r"
                   % (sorted(got[False]), sorted(set(want) - {"idna", "certifi"})))
    print("purls: with them the pip layer is %s (py-urllib3 installs urllib3, certifi none); "
          "without, %s; check accepts both; the parsed form the same bytes"
          % (sorted(got[True]), sorted(got[False])))


VARIANTS = ("datalayer", "e2b", "daytona", "modal")


def plan_spec_text(deps, extra):
    """env_yml() with the four variants, so the lock has each base digest."""
    text = env_yml(deps, extra=extra)
    return text.replace("  build:\n", "  compatibility:\n    variants:\n"
                        "      required: [datalayer]\n"
                        "      optional: [e2b, daytona, modal]\n  build:\n", 1)


def after(lines, first, *rest):
    """Whether `first`, then each of `rest`, occur in `lines` in that order."""
    try:
        i = lines.index(first)
        for ln in rest:
            i = lines.index(ln, i + 1)
    except ValueError:
        return False
    return True


def conda_plan_steps(v, files, port):
    """The variant's conda and pip-layer steps as its builder reads them."""
    mm = "/usr/local/bin/micromamba"
    verb = "create" if v == "e2b" else "install"
    conda = ("%s %s --yes --root-prefix /opt/conda --prefix /opt/conda --file "
             "/opt/datalayer/conda-explicit.txt && %s clean --all --yes" % (mm, verb, mm))
    fetch = ("curl -fsSL https://micro.mamba.pm/api/micromamba/linux-64/2.0.5 | tar -xj -C "
             "/usr/local/bin --strip-components=1 bin/micromamba")
    index = "http://127.0.0.1:%d/simple" % port
    if v == "modal":
        text = files["modal_image.py"]
        compile(text, "modal_image.py", "exec")
        want = ['.add_local_file(HERE / "conda-explicit.txt", '
                '"/opt/datalayer/conda-explicit.txt", copy=True)',
                '.run_commands(%s)' % json.dumps(fetch), '.run_commands(%s)' % json.dumps(conda),
                '.run_commands("uv pip install --python /opt/conda/bin/python --no-deps '
                '--require-hashes --no-cache --index-url %s -r '
                '/opt/datalayer/requirements.txt")' % index]
        return [ln.strip() for ln in text.splitlines()], want
    name = "e2b.Dockerfile" if v == "e2b" else "Dockerfile"
    pip = ("RUN python3 -m pip --python /opt/conda/bin/python install --no-deps "
           "--require-hashes --no-cache-dir --index-url %s -r /opt/datalayer/requirements.txt"
           % index if v == "e2b" else
           "RUN %suv pip install --python /opt/conda/bin/python --no-deps --require-hashes%s "
           "--index-url %s -r /opt/datalayer/requirements.txt"
           % ("--mount=type=cache,target=/root/.cache/uv " if v == "datalayer" else "",
              "" if v == "datalayer" else " --no-cache", index))
    want = ["COPY conda-explicit.txt /opt/datalayer/conda-explicit.txt",
            "COPY --from=mambaorg/micromamba:2.0.5 /bin/micromamba /usr/local/bin/micromamba"
            if v == "datalayer" else "RUN " + fetch,
            "RUN " + conda, "COPY requirements.txt /opt/datalayer/requirements.txt", pip]
    if v == "e2b":
        want.append("ENV PATH=/opt/conda/bin:$PATH")
    want.append("RUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json")
    return files[name].splitlines(), want


def conda_purl(p, fn):
    typ = "conda" if fn.endswith(".conda") else "tar.bz2"
    return "pkg:conda/%s@%s?build=%s&channel=conda-forge&subdir=%s&type=%s" % (
        p["name"], p["version"], p["build"], p["subdir"], typ)


def pip_download(work, req, index):
    """Debian's pip fetching requirements.txt from `index` with every hash
    required, as the pip layer's step does; None without pip."""
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
    cmd = ["/usr/bin/python3", "-m", "pip", "download", "--no-deps", "--require-hashes",
           "--quiet", "-d", os.path.join(work, "pip-dl"), "--index-url", index,
           "--python-version", "3.13", "--implementation", "cp", "--abi", "cp313",
           "--platform", "manylinux_2_36_x86_64", "--platform", "manylinux_2_17_x86_64",
           "--only-binary", ":all:", "-r", req]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0 and "No module named pip" in p.stderr:
        return None
    if p.returncode != 0:
        raise Fail("pip download of the plan's requirements.txt failed: %s" % p.stderr)
    return sorted(os.listdir(os.path.join(work, "pip-dl")))


def part_plan(run):
    extra = "  - pip:\n" + "".join("    - %s\n" % q for q in PIP_LAYER)
    spec, lock, _js = run.resolve("plan", plan_spec_text(CONDA_ONLY, extra))
    doc = yaml.safe_load(open(lock))
    recs, wheels = served_records(), served_wheels()
    conda = [p for p in doc["packages"] if p["ecosystem"] == "conda"]
    layer = {p["name"]: p["version"] for p in doc["packages"]
             if p["ecosystem"] == "pypi" and not p.get("installedInBase")}
    want_explicit = sorted("http://127.0.0.1:%d/conda-forge/%s/%s#%s" % (
        run.port, p["subdir"], p["artifacts"][0]["file"],
        recs[(p["subdir"], p["artifacts"][0]["file"])]["md5"]) for p in conda)
    want_pins = {"%s==%s" % (n, v): wheels[n][v][1] for n, v in layer.items()}
    out = os.path.join(run.work, "plan-out")
    rc, js, text = run(["plan", "--bases", BASES, spec, lock, "-o", out])
    if rc != 0 or sorted(js.get("variants", [])) != sorted(VARIANTS):
        raise Fail("plan of a conda lock exited %d: %s" % (rc, text))
    exported = os.path.join(run.work, "plan-explicit.txt")
    run(["export", lock, "--format", "conda-explicit", "-o", exported])
    for v in VARIANTS:
        d = os.path.join(out, v)
        files = {f: open(os.path.join(d, f)).read() for f in os.listdir(d)
                 if not f.startswith(".")}
        if files["lock.txt"] != open(exported).read():
            raise Fail("%s: lock.txt is not the conda-explicit export" % v)
        body = files["conda-explicit.txt"].split("@EXPLICIT\n", 1)
        if len(body) != 2 or sorted(body[1].splitlines()) != want_explicit:
            raise Fail("%s: conda-explicit.txt lines %r, expected %r"
                       % (v, body[-1].splitlines(), want_explicit))
        pins = {}
        for ent in files["requirements.txt"].replace("\\\n", " ").splitlines():
            if ent and not ent.startswith("#"):
                words = ent.split()
                pins[words[0]] = [w.split(":", 1)[1] for w in words[1:]]
        if pins != {k: [h] for k, h in want_pins.items()}:
            raise Fail("%s: requirements.txt pins %r, expected %r" % (v, pins, want_pins))
        lines, want = conda_plan_steps(v, files, run.pypi_port)
        if not after(lines, *want):
            raise Fail("%s: steps not found in this order %r:\n%s" % (v, want, "\n".join(lines)))
        sbom = json.loads(files["sbom.cdx.json"])
        errs = schema_errors(sbom, "bom-1.6.schema.json",
                             ("spdx.schema.json", "jsf-0.82.schema.json"))
        if errs:
            raise Fail("%s: sbom.cdx.json schema: %s" % (v, errs[:3]))
        purls = sorted(c["purl"] for c in sbom["components"] if c["purl"].startswith("pkg:conda/"))
        if purls != sorted(conda_purl(p, p["artifacts"][0]["file"]) for p in conda):
            raise Fail("%s: SBOM conda purls %r" % (v, purls))
    got = pip_download(run.work, os.path.join(out, "datalayer", "requirements.txt"),
                       "http://127.0.0.1:%d/simple" % run.pypi_port)
    if got is not None and got != sorted(wheels[n][ver][0] for n, ver in layer.items()):
        raise Fail("pip downloaded %r for the pip layer" % got)
    again = os.path.join(run.work, "plan-again")
    run(["plan", "--bases", BASES, spec, lock, "-o", again])
    for v in VARIANTS:
        for f in os.listdir(os.path.join(out, v)):
            if open(os.path.join(out, v, f), "rb").read() != \
                    open(os.path.join(again, v, f), "rb").read():
                raise Fail("a second plan differs in %s/%s" % (v, f))
    print("plan: %d conda packages from conda-explicit.txt and a pip layer of %d in the four "
          "variants%s; same bytes twice" % (len(conda), len(layer),
                                            "; pip fetched it by hash" if got else ""))


def pip_layer_of(lock):
    return {p["name"]: p for p in yaml.safe_load(open(lock))["packages"]
            if p["ecosystem"] == "pypi" and not p.get("installedInBase")}


def conda_of(lock, name):
    return [p for p in yaml.safe_load(open(lock))["packages"]
            if p["ecosystem"] == "conda" and p["name"] == name]


def part_pipconda(run):
    """conda wins (conda-lock's practice): a pip requirement on a PyPI
    distribution that a conda package of the environment installs (a
    record of that name that depends on python) is met by the conda
    package, in the same solve, so the version can move to fit both; one
    that no conda record can meet is one conflict naming both specs; a
    conda package that is no Python package (tzdata, the time zone data)
    leaves the PyPI name to the pip layer."""
    recs = served_records().values()
    py_names = {r["name"] for r in recs
                if any(d.split()[0] == "python" for d in r.get("depends", []))}
    if "requests" not in py_names or "idna" not in py_names or "tzdata" in py_names:
        raise Fail("the slice no longer has the records this part is about")
    spec, lock, _js = run.resolve("pc-wins", env_yml(DEPS, extra=(
        "  - pip:\n    - requests>=2.31\n    - tzdata\n")))
    layer = pip_layer_of(lock)
    req = conda_of(lock, "requests")
    if "requests" in layer or len(req) != 1 or "spec" not in req[0]["requestedBy"]:
        raise Fail("requests: pip layer %r, conda %r" % (sorted(layer), req))
    wheels = served_wheels()
    if sorted(layer) != ["tzdata"] or layer["tzdata"]["version"] != newest(wheels["tzdata"]):
        raise Fail("the pip layer beside conda's requests: %r" % sorted(layer))
    rc, _js, out = run(["check", "--bases", BASES, spec, lock])
    if rc != 0:
        raise Fail("check of a lock whose pip requirement conda meets exited %d: %s" % (rc, out))
    # requests<=2.32.4: conda's newest record that fits, not its newest
    fits = [r["version"] for r in recs if r["name"] == "requests" and
            [int(x) for x in r["version"].split(".")] <= [2, 32, 4]]
    _s, lock2, _ = run.resolve("pc-fit", env_yml(DEPS, extra="  - pip:\n    - requests<=2.32.4\n"))
    req = conda_of(lock2, "requests")
    if [p["version"] for p in req] != [newest(fits)] or "requests" in pip_layer_of(lock2):
        raise Fail("requests<=2.32.4: conda %r" % req)
    # urllib3<2: PyPI has 1.21, conda only 2.x and conda's requests needs it
    _s, _l, js = run.resolve("pc-conflict", env_yml(["requests"], extra=(
        "  - pip:\n    - urllib3<2\n")), want_rc=12)
    d = (js or {}).get("detail", {})
    if js.get("code") != "DL_ENV_RESOLVE_CONFLICT" or \
            sorted(d.get("conflict", [])) != ["requests", "urllib3<2"] or \
            "spec.build.dependencyFile.content.dependencies[1].pip[0]" not in d.get("fields", []) or \
            "urllib3 1.21 from PyPI cannot join the pip layer: conda installs urllib3 2." \
            not in js.get("message", ""):
        raise Fail("urllib3<2 beside conda's requests: %r" % js)
    # a pip-layer package whose requirement conda meets: an edge to conda
    spec4, lock4, _ = run.resolve("pc-edge", env_yml(["idna", "packaging"], extra=(
        "  - pip:\n    - requests\n")))
    layer = pip_layer_of(lock4)
    edges = {(e.get("ecosystem", "pypi"), e["name"]) for e in layer["requests"]["dependencies"]}
    if "idna" in layer or ("conda", "idna") not in edges:
        raise Fail("requests beside conda's idna: layer %r, edges %r" % (sorted(layer), edges))
    rc, _js, out = run(["check", "--bases", BASES, spec4, lock4])
    if rc != 0:
        raise Fail("check of a pip layer depending on conda's idna exited %d: %s" % (rc, out))
    cl = export_conda_lock(run, lock4, "pc-conda-lock.yml")
    pips = {e["name"]: e for e in cl["package"] if e["manager"] == "pip"}
    if "idna" in pips or pips["requests"]["dependencies"].get("idna") != "<4,>=2.5":
        raise Fail("conda-lock of a pip layer over conda's idna: %r" % pips.get("requests"))
    # the pip layer's Python is the conda python: `openssl <3.5.2` keeps
    # conda from the target's python 3.13.7 (which needs openssl >=3.5.2),
    # and the markers are decided for the python conda installs
    spec5, lock5, _ = run.resolve("pc-python", env_yml(["openssl <3.5.2", "packaging"], extra=(
        "  - pip:\n    - tzdata; python_full_version < '3.13.5'\n"
        "    - idna; python_full_version >= '3.13.5'\n")))
    py = [p["version"] for p in conda_of(lock5, "python")]
    target = yaml.safe_load(open(lock5))["target"]["python"]
    if len(py) != 1 or py[0] == target or not py[0].startswith("3.13."):
        raise Fail("conda python %r beside the target's %s" % (py, target))
    early = [int(x) for x in py[0].split(".")] < [3, 13, 5]
    if sorted(pip_layer_of(lock5)) != (["tzdata"] if early else ["idna"]):
        raise Fail("markers for conda's python %s: pip layer %r"
                   % (py[0], sorted(pip_layer_of(lock5))))
    rc, _js, out = run(["check", "--bases", BASES, spec5, lock5])
    if rc != 0:
        raise Fail("check of the lock on conda's python %s exited %d: %s" % (py[0], rc, out))
    print("pipconda: conda's requests meets the pip line (at %s for requests<=2.32.4); "
          "urllib3<2 is one conflict naming both; requests from PyPI over conda's idna; "
          "markers for conda's python %s" % (newest(fits), py[0]))


def part_check(run):
    """check online (and --offline, from the cache) confirms each conda
    artifact against the channel's repodata.json: a sha256, an md5 or a
    size the repodata does not give is named; an input off the spec's
    channels is never fetched."""
    spec, lock, _ = run.resolve("env", env_yml(DEPS))
    text = open(lock).read()
    recs = served_records()
    r = recs[("linux-64", "bzip2-1.0.8-hda65f42_9.conda")]
    for field, old, new in (("sha256", "sha256:" + r["sha256"], "sha256:" + "0" * 63 + "1"),
                            ("md5", r["md5"], "f" * 32),
                            ("size", "size: %d\n" % r["size"], "size: %d\n" % (r["size"] + 1))):
        if old not in text:
            raise Fail("the lock has no %s %s" % (field, old))
        bad = os.path.join(run.work, "bad-%s.lock" % field)
        with open(bad, "w") as f:
            f.write(text.replace(old, new, 1))
        for offline in (False, True):
            rc, _js, out = run(["check", "--bases", BASES, spec, bad], offline)
            want = "artifact not confirmed: conda bzip2 1.0.8 bzip2-1.0.8-hda65f42_9.conda"
            if rc != 1 or want not in out:
                raise Fail("check with a wrong %s (offline %s) exited %d: %s"
                           % (field, offline, rc, out))
    foreign = os.path.join(run.work, "foreign.lock")
    with open(foreign, "w") as f:
        f.write(text.replace(CHANNEL + "/noarch/repodata.json",
                             "https://conda.example.invalid/x/noarch/repodata.json", 1))
    rc, _js, out = run(["check", "--bases", BASES, spec, foreign])
    if rc != 1 or "input not from this spec's indexes: conda https://conda.example.invalid" \
            not in out:
        raise Fail("check with a foreign input exited %d: %s" % (rc, out))
    rc, _js, out = run(["check", "--bases", BASES, spec, lock])
    if rc != 0 or "not compared" in out:
        raise Fail("check of the fresh lock exited %d: %s" % (rc, out))
    print("check: sha256, md5 and size confirmed against repodata; foreign input refused")


def part_cutoff(run):
    """--exclude-newer 2025-10-01: the lock is what rattler solves on the
    slice as it stood then (records with a later timestamp dropped:
    cut-2025-10-01/, case cfl-requests-cut), and the lock records the cutoff."""
    spec = os.path.join(run.work, "cut.yaml")
    with open(spec, "w") as f:
        f.write(env_yml(DEPS))
    lock = os.path.join(run.work, "cut.lock")
    rc, _js, out = run(["resolve", "--bases", BASES, spec, "-o", lock,
                        "--exclude-newer", "2025-10-01T00:00:00Z"])
    if rc != 0:
        raise Fail("resolve --exclude-newer exited %d: %s" % (rc, out))
    doc = yaml.safe_load(open(lock))
    got = sorted("%s %s %s %s/%s" % (p["name"], p["version"], p["build"], p["subdir"],
                                      p["artifacts"][0]["file"])
                 for p in doc["packages"] if p["ecosystem"] == "conda")
    want = rattler_answer("cfl-requests-cut")
    want = sorted(ln.replace("cflcut/", "", 1) for ln in want[1:])
    if got != want:
        raise Fail("--exclude-newer: conda packages differ from rattler's on the cut slice:\n"
                   " only envlock: %s\n only rattler: %s"
                   % (sorted(set(got) - set(want)), sorted(set(want) - set(got))))
    if doc["options"].get("excludeNewer") != "2025-10-01T00:00:00Z":
        raise Fail("the lock's excludeNewer: %r" % doc["options"])
    rc, _js, out = run(["check", "--bases", BASES, spec, lock,
                        "--exclude-newer", "2025-10-01T00:00:00Z"])
    if rc != 0:
        raise Fail("check of the cut lock exited %d: %s" % (rc, out))
    # the cut lock as the preference of a resolve without the cutoff: every
    # locked record still fits, so every one is kept; --upgrade drops the
    # preference (rattler's uncut answer); --upgrade-package conda:openssl
    # frees that name alone
    again = os.path.join(run.work, "again.lock")
    shutil.copy(lock, again)
    rc, _js, out = run(["resolve", "--bases", BASES, spec, "-o", again])
    kept = sorted(p for p in conda_lines(again))
    if rc != 0 or kept != want:
        raise Fail("a re-resolve did not keep the locked conda packages (exit %d): %s\n"
                   " changed: %s" % (rc, out, sorted(set(kept) ^ set(want))))
    shutil.copy(lock, again)
    rc, _js, out = run(["resolve", "--bases", BASES, spec, "-o", again,
                        "--upgrade-package", "conda:openssl"])
    moved = set(conda_lines(again)) ^ set(want)
    if rc != 0 or {ln.split()[0] for ln in moved} != {"openssl"}:
        raise Fail("--upgrade-package conda:openssl changed %s: %s" % (sorted(moved), out))
    rc, _js, out = run(["resolve", "--bases", BASES, spec, "-o", again, "--upgrade"])
    fresh = sorted(ln.replace("cfl/", "", 1) for ln in rattler_answer("cfl-requests")[1:])
    if rc != 0 or conda_lines(again) != fresh:
        raise Fail("--upgrade did not give rattler's uncut answer: %s" % out)
    print("cutoff: %d conda packages, as rattler chose on the slice of 2025-10-01; kept as "
          "the preference, openssl alone freed, all with --upgrade" % len(got))


def conda_lines(lock):
    doc = yaml.safe_load(open(lock))
    return sorted("%s %s %s %s/%s" % (p["name"], p["version"], p["build"], p["subdir"],
                                       p["artifacts"][0]["file"])
                  for p in doc["packages"] if p["ecosystem"] == "conda")


def part_mixed(run):
    """The environment.yml beside npm and apt roots (the demo's, on the demo
    mirror): one solve, one lock holding rattler's conda answer and exactly
    the npm and deb packages the same npm and apt roots lock without conda."""
    demo = "file://" + os.path.join(ROOT, "corpus", "demo", "mirror")
    mirrors = ["--mirror", "https://registry.npmjs.org=%s/npm" % demo, "--mirror",
               "https://snapshot.debian.org/archive/debian/20260914T150000Z=%s/apt" % demo]
    others = ("  packages:\n    node:\n      dependencies: [\"zod@^3\", \"debug@^4\"]\n"
              "    system:\n      apt: [gdal-bin, libpq-dev]\n")
    mixed_text = env_yml(DEPS).replace("  build:\n", others + "  build:\n", 1)
    plain_text = HEAD.split("  build:\n")[0] + others
    locks = {}
    for name, text in (("mixed", mixed_text), ("plain", plain_text)):
        spec = os.path.join(run.work, name + ".yaml")
        with open(spec, "w") as f:
            f.write(text)
        lock = os.path.join(run.work, name + ".lock")
        rc, _js, out = run(mirrors + ["resolve", "--bases", BASES, spec, "-o", lock])
        if rc != 0:
            raise Fail("%s: resolve exited %d: %s" % (name, rc, out))
        locks[name] = yaml.safe_load(open(lock))

    def part(doc, eco):
        return sorted(json.dumps(p, sort_keys=True) for p in doc["packages"]
                      if p["ecosystem"] == eco)
    for eco in ("npm", "deb"):
        if not part(locks["plain"], eco):
            raise Fail("the plain lock has no %s package" % eco)
        if part(locks["mixed"], eco) != part(locks["plain"], eco):
            raise Fail("the %s packages differ beside conda" % eco)
    got = sorted("%s %s %s %s/%s" % (p["name"], p["version"], p["build"], p["subdir"],
                                      p["artifacts"][0]["file"])
                 for p in locks["mixed"]["packages"] if p["ecosystem"] == "conda")
    want = sorted(ln.replace("cfl/", "", 1) for ln in rattler_answer("cfl-requests")[1:])
    if got != want:
        raise Fail("the conda packages beside npm and apt differ from rattler's")
    for fmt in ("conda-explicit", "conda-lock"):  # the plain lock has no conda package
        rc, js, out = run(["export", os.path.join(run.work, "plain.lock"), "--format", fmt])
        if rc != 11 or not js or js.get("code") != "DL_ENV_CAPABILITY_UNSUPPORTED" or \
                "it has no conda packages" not in js.get("message", ""):
            raise Fail("export --format %s of a lock without conda exited %d: %s"
                       % (fmt, rc, out))
    n = {e: len(part(locks["mixed"], e)) for e in ("conda", "npm", "deb")}
    print("mixed: one lock, %(conda)d conda, %(npm)d npm, %(deb)d deb packages" % n)


def without_digest(path):
    return [ln for ln in open(path) if not ln.startswith("specDigest:")]


def part_determinism(run, stop_server):
    _s, first, _ = run.resolve("first", env_yml(DEPS))
    _s, again, _ = run.resolve("again", env_yml(DEPS))
    if open(first, "rb").read() != open(again, "rb").read():
        raise Fail("two resolves of one spec differ")
    rnd = random.Random(23)
    for k in range(3):
        deps = DEPS[:]
        rnd.shuffle(deps)
        _s, lock, _ = run.resolve("shuffled%d" % k, env_yml(deps, channels=None))
        if without_digest(lock) != without_digest(first):
            raise Fail("dependencies %r (default channel) give another lock" % deps)
    stop_server()
    _s, offline, _ = run.resolve("offline", env_yml(DEPS), offline=True)
    if open(offline, "rb").read() != open(first, "rb").read():
        raise Fail("--offline from the cache gives another lock")
    print("determinism: same bytes twice, shuffled, default channel and --offline")


def part_conflict(run):
    _s, _l, js = run.resolve("conflict", env_yml(["numpy"]), want_rc=12)
    if rattler_answer("cfl-numpy-py313")[0] != "unsat":
        raise Fail("rattler solves cfl-numpy-py313")
    if not js or js.get("code") != "DL_ENV_RESOLVE_CONFLICT":
        raise Fail("conflict: %r" % js)
    d = js.get("detail", {})
    if sorted(d.get("conflict", [])) != ["numpy", "python=3.13"]:
        raise Fail("conflict names %r" % d.get("conflict"))
    if sorted(d.get("fields", [])) != ["spec.build.dependencyFile.content.dependencies[0]",
                                       "spec.language.version"]:
        raise Fail("conflict fields %r" % d.get("fields"))
    msg = js["message"]
    # short: the two specs, and a numpy build's python_abi that constrains
    # python to another minor; every rule in detail.rules and with --explain
    if not msg.startswith("the conda specs `numpy` and `python=3.13` cannot be satisfied") or \
            "depends on `python_abi 3." not in msg or \
            "constrains `python 3." not in msg or "--explain" not in msg or len(msg) > 600:
        raise Fail("the short message: %s" % msg)
    rules = d.get("rules", [])
    want = "numpy 2.3.0 py312h6cf2f7f_0 depends on `python_abi 3.12.* *_cp312`"
    if want not in rules or len(rules) < 10:
        raise Fail("detail.rules: %r" % rules[:5])
    _s, _l, js = run.resolve("conflict", env_yml(["numpy"]), want_rc=12, explain=True)
    if want not in js["message"] or "--explain shows" in js["message"]:
        raise Fail("--explain: %s" % js["message"][:300])
    print("conflict: %s" % msg[:160])


def part_refusals(run):
    # pip options in the `pip:` list follow a requirements file's rules: an
    # index the spec does not name, and an editable install, are findings
    # at their entry with the spec line and column (HEAD is 15 lines, so
    # environment.yml line k is spec line 15 + k; entries are indented 8
    # spaces in the spec and 6 in the file, so column 7 is spec column 15)
    pip = ("  - pip:\n    - requests\n    - --index-url https://other.example/simple\n"
           "    - -e .\n")
    _s, _l, js = run.resolve("pip", env_yml(["requests"], extra=pip), want_rc=10)
    base = "spec.build.dependencyFile.content.dependencies[1].pip"
    found = {(f["field"], f["line"], f["column"], f["code"])
             for f in (js or {}).get("detail", {}).get("findings", [])}
    want = {(base + "[1]", 23, 15, "DL_ENV_SPEC_INVALID"),
            (base + "[2]", 24, 15, "DL_ENV_CAPABILITY_UNSUPPORTED")}
    if found != want or "https://other.example/simple" not in js.get("message", ""):
        raise Fail("pip options: %r" % js)
    _s, _l, js = run.resolve("nochannel", env_yml(["requests"], channels=("no-such-channel",)),
                             want_rc=13)
    want = "https://conda.anaconda.org/no-such-channel/"
    if not js or want not in json.dumps(js):
        raise Fail("a missing channel: %r" % js)
    # a spec no record matches is PACKAGE_NOT_FOUND, as for the other
    # ecosystems: the versions the channel has (numpy's, from the served
    # repodata, all plain numbers), or no such name
    served = sorted({r["version"] for r in served_records().values() if r["name"] == "numpy"},
                    key=lambda v: [int(x) for x in v.split(".")])
    for spec, reason, versions in (("numpy >=99", "no_match", served),
                                   ("nosuchpkg", "not_found", [])):
        _s, _l, js = run.resolve("nomatch", env_yml(["requests", spec]), want_rc=13)
        d = (js or {}).get("detail", {})
        if js.get("code") != "DL_ENV_PACKAGE_NOT_FOUND" or d.get("reason") != reason or \
                d.get("versions") != versions or d.get("requested") != spec or \
                d.get("field") != "spec.build.dependencyFile.content.dependencies[1]" or \
                d.get("channels") != [CHANNEL]:
            raise Fail("%s: %r" % (spec, js))
    print("refusals: pip options at their lines; a missing channel named; no record "
          "matching a spec is PACKAGE_NOT_FOUND with the versions served")


def main():
    envlock, part = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="el-conda-source-")
    os.makedirs(os.path.join(work, "config"))
    srv = servers.DirServer(SLICE).start()
    pypi = servers.DirServer(PYPI).start()

    def stop():
        srv.stop()
        pypi.stop()
    try:
        run = Run(envlock, work, srv.port, pypi.port)
        if part == "resolve":
            part_resolve(run)
        elif part == "determinism":
            part_determinism(run, stop)
        elif part == "pip":
            part_pip(run, stop)
        elif part == "purls":
            part_purls(run, work)
        elif part == "plan":
            part_plan(run)
        elif part == "pipconda":
            part_pipconda(run)
        elif part == "check":
            part_check(run)
        elif part == "cutoff":
            part_cutoff(run)
        elif part == "mixed":
            part_mixed(run)
        elif part == "conflict":
            part_conflict(run)
        elif part == "refusals":
            part_refusals(run)
        else:
            raise Fail("unknown part " + part)
    except Fail as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        stop()
        shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

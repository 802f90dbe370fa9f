#!/usr/bin/env python3
"""plan_proof_uvlock.py STATE — a lock whose Python part comes from a
pyproject.toml + uv.lock (issue 20), planned and exported, and installed
by the real pip from the plan proof's mirror served on 127.0.0.1.

Uses the plan proof's state (plan_proof.py setup: plan-proof.scn's mirror
served by nginx, its catalog with six 1.16.0 in the base). The fixture is
written here, in uv's lockfile format (version 1, revision 3), for a
project `proofapp` whose packages that mirror serves: each wheel's and
sdist's hash and size are the served file's own. It is chosen so that a
lock that did not follow uv.lock installs something else:
  dbproto 1.0   pinned by the project, where the index's newest is 1.1 (a
                re-solve would take 1.1);
  fastcodec 2.1 behind dbclient's `platform_system == 'Linux'` edge, with
                a manylinux wheel, a win_amd64 wheel and an sdist (the
                target takes the manylinux wheel); the index's 2.2 is newer;
  six 1.16.0    the base's copy (nothing to install);
  winshim 1.0   behind `sys_platform == 'win32'` (not selected; its file is
                on no mirror, so pip fails if a plan names it).

envlock resolves the spec (no PyPI index given: uv.lock is never
re-solved), `check` takes the lock, `export --format requirements` and
`uv-pip-compile` and `plan --variant datalayer --mirror` (the Python step's --index-url mapped
onto the served index) are written; then Debian's pip (/usr/bin/python3
-m pip, PIP_CONFIG_FILE=/dev/null, no PIP_* from the caller) really
installs the requirements export and the plan's requirements.txt, each into its own
--target with --no-deps --require-hashes --only-binary :all: for the
target's Python and platform, from the index the plan names. The
installed set (the target's *.dist-info) must equal uv.lock's selection,
worked out here from uv.lock's text alone (tomllib; markers with the
packaging library pip ships) minus what the base holds, and each file
pip took must be one uv.lock records. The uv-pip-compile export (the
base's copies listed without hashes, so not for a --require-hashes
install) must read, by REFERENCE §3's locked_versions rule, as the whole
selection. A tampered export (fastcodec's pin
dropped) must be caught by the same comparison."""

import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plan_proof as pp  # noqa: E402

DEBIAN_PYTHON = "/usr/bin/python3"
FILES_URL = "https://files.pythonhosted.org/packages/"
REGISTRY = "https://pypi.org/simple"

PYPROJECT = """[project]
name = "proofapp"
version = "0.1.0"
requires-python = ">=3.12"
dependencies = [
    "dbclient>=1.4",
    "dbproto==1.0",
    "winshim>=1; sys_platform == 'win32'",
]
"""

SPEC_HEAD = """apiVersion: environments.datalayer.io/v1alpha1
kind: Environment
metadata:
  name: uvlock-proof
spec:
  language:
    name: python
    version: "3.13"
  base:
    ref: datalayer/python-cpu
    channel: "2026.09"
  compatibility:
    variants:
      required: [datalayer]
  build:
    source: dependencyFile
    dependencyFile:
      sourceFormat: pyproject
"""


def file_entry(files, name, key="url"):
    path = os.path.join(files, name)
    with open(path, "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()
    return '{ %s = "%s%s", hash = "sha256:%s", size = %d }' % (key, FILES_URL, name, h,
                                                              os.path.getsize(path))


def package(name, version, wheels, deps=(), sdist=None, source=None):
    text = '[[package]]\nname = "%s"\nversion = "%s"\nsource = %s\n' % (
        name, version, source or '{ registry = "%s" }' % REGISTRY)
    if deps:
        text += "dependencies = [\n%s]\n" % "".join("    %s,\n" % d for d in deps)
    if sdist:
        text += "sdist = %s\n" % sdist
    if wheels:
        text += "wheels = [\n%s]\n" % "".join("    %s,\n" % w for w in wheels)
    return text + "\n"


def uv_lock(files):
    cp313 = "fastcodec-2.1-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    root = ('[[package]]\nname = "proofapp"\nversion = "0.1.0"\nsource = { virtual = "." }\n'
            'dependencies = [\n    { name = "dbclient" },\n    { name = "dbproto" },\n'
            '    { name = "winshim", marker = "sys_platform == \'win32\'" },\n]\n\n'
            '[package.metadata]\nrequires-dist = [\n'
            '    { name = "dbclient", specifier = ">=1.4" },\n'
            '    { name = "dbproto", specifier = "==1.0" },\n'
            '    { name = "winshim", marker = "sys_platform == \'win32\'", specifier = ">=1" },\n]\n\n')
    shim = hashlib.sha256(b"winshim 1.0: on no mirror").hexdigest()
    pkgs = [
        package("dbclient", "1.4", [file_entry(files, "dbclient-1.4-py3-none-any.whl")],
                deps=['{ name = "dbproto" }',
                      '{ name = "fastcodec", marker = "platform_system == \'Linux\'" }',
                      '{ name = "six" }']),
        package("dbproto", "1.0", [file_entry(files, "dbproto-1.0-py3-none-any.whl")]),
        package("fastcodec", "2.1",
                [file_entry(files, cp313), file_entry(files, "fastcodec-2.1-cp313-cp313-win_amd64.whl")],
                sdist=file_entry(files, "fastcodec-2.1.tar.gz")),
        root,
        package("six", "1.16.0", [file_entry(files, "six-1.16.0-py2.py3-none-any.whl")]),
        package("winshim", "1.0", ['{ url = "%swinshim-1.0-py3-none-any.whl", hash = "sha256:%s", '
                                   'size = 1000 }' % (FILES_URL, shim)]),
    ]
    return 'version = 1\nrevision = 3\nrequires-python = ">=3.12"\n\n' + "".join(pkgs)


def block(text):
    return "".join("        " + ln + "\n" if ln else "\n" for ln in text.splitlines())


def spec_text(lock_text):
    return (SPEC_HEAD + "      content: |\n" + block(PYPROJECT) + "      lockContent: |\n"
            + block(lock_text))


# ================================================================ uv.lock, read here

def marker_env(target):
    """PEP 508's environment of the lock's target (CPython on Linux)."""
    full = target["python"]
    machine = {"amd64": "x86_64", "arm64": "aarch64"}[target["arch"]]
    return {"python_version": ".".join(full.split(".")[:2]), "python_full_version": full,
            "os_name": "posix", "sys_platform": "linux", "platform_system": "Linux",
            "platform_machine": machine, "platform_release": "", "platform_version": "",
            "platform_python_implementation": "CPython", "implementation_name": "cpython",
            "implementation_version": full, "extra": ""}


def uv_selection(lock_text, env):
    """{name: (version, {sha256})}: the root's dependencies followed through
    the lock (markers against `env`, extras taken along), as uv's format
    says; every package here has one version, so no fork is read."""
    from packaging.markers import Marker
    doc = tomllib.loads(lock_text)
    by_name = {pp.canon(p["name"]): p for p in doc["package"]}
    root = next(p for p in doc["package"] if "virtual" in p["source"] or "editable" in p["source"])
    out, todo = {}, [(root, [])]
    while todo:
        pkg, extras = todo.pop()
        edges = list(pkg.get("dependencies", []))
        for x in extras:
            edges += pkg.get("optional-dependencies", {}).get(x, [])
        for d in edges:
            if "marker" in d and not Marker(d["marker"]).evaluate(env):
                continue
            dep = by_name[pp.canon(d["name"])]
            name = pp.canon(dep["name"])
            if name in out and not d.get("extra"):
                continue
            hashes = {f["hash"].split(":", 1)[1] for f in dep.get("wheels", []) + (
                [dep["sdist"]] if "sdist" in dep else [])}
            out[name] = (dep["version"], hashes)
            todo.append((dep, d.get("extra", [])))
    return out


def base_holds(catalog):
    """{name: version} the catalog's base channel has installed already."""
    doc = pp.yaml.safe_load(pp.read(catalog))
    ch = doc["bases"]["datalayer/python-cpu"]["channels"]["2026.09"]
    return dict((pp.canon(s.split("==")[0]), s.split("==")[1]) for s in ch.get("preinstalled") or [])


def locked_versions(text):
    """REFERENCE §3's reader of a uv-pip-compile text: `\\`-continued lines
    joined, comments cut at (^|\\s+)#, hashes removed, blank and option
    lines skipped, exactly one ==/=== kept: {canonical name: version}."""
    out = {}
    for ln in re.sub(r"\\\n", " ", text).split("\n"):
        ln = re.sub(r"(^|\s+)#.*$", "", ln)
        ln = re.sub(r"\s*--hash=\S+", "", ln).strip()
        if not ln or ln.startswith("-"):
            continue
        parts = re.split(r"===?", ln)
        if len(parts) == 2 and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", parts[0].strip()):
            out[pp.canon(parts[0].strip())] = parts[1].strip()
    return out


# ================================================================ Debian's pip

def pip_install(ctx, reqfile, index, tag):
    """Debian's pip installs `reqfile` for real into a fresh --target:
    ({name: version} of the installed *.dist-info, {name: sha256 taken})."""
    if not os.access(DEBIAN_PYTHON, os.X_OK) or subprocess.run(
            [DEBIAN_PYTHON, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pp.agree.skip("no Debian pip (python3-pip) at %s" % DEBIAN_PYTHON)
    home = os.path.join(ctx.work, "pip-" + tag)
    os.makedirs(home)
    e = pp.agree.clean_env(home)  # every PIP_* (PIP_FIND_LINKS too) removed, private HOME
    e["PIP_CONFIG_FILE"] = os.devnull
    e.update(https_proxy=pp.DEAD_PROXY, http_proxy=pp.DEAD_PROXY, no_proxy="127.0.0.1")
    target, report = os.path.join(home, "target"), os.path.join(home, "report.json")
    py = ctx.lock.doc["target"]["python"]
    cmd = [DEBIAN_PYTHON, "-m", "pip", "install", "--no-deps", "--require-hashes", "--no-cache-dir",
           "--disable-pip-version-check", "--no-input", "--quiet", "--target", target,
           "--report", report, "--index-url", index, "-r", reqfile,
           "--python-version", py, "--implementation", "cp",
           "--abi", "cp%s" % "".join(py.split(".")[:2]), "--abi", "abi3", "--abi", "none",
           "--only-binary", ":all:"]
    for plat in pp.agree.PIP_PLATFORMS:
        cmd += ["--platform", plat]
    r = pp.agree.run(cmd, e)
    if r.returncode != 0:
        raise pp.Fail("Debian's pip refused %s (%s):\n%s" % (tag, reqfile, (r.stdout + r.stderr)[-3000:]))
    got = {}
    for d in sorted(os.listdir(target)):
        if d.endswith(".dist-info"):
            meta = pp.read(os.path.join(target, d, "METADATA"))
            name = re.search(r"^Name: (\S+)$", meta, re.M).group(1)
            got[pp.canon(name)] = re.search(r"^Version: (\S+)$", meta, re.M).group(1)
    took = {pp.canon(i["metadata"]["name"]):
            i["download_info"]["archive_info"]["hashes"]["sha256"]
            for i in json.loads(pp.read(report))["install"]}
    print("Debian pip (%s): installed %s" % (tag, " ".join("%s==%s" % kv for kv in sorted(got.items()))))
    return got, took


def install_problems(ctx, reqfile, index, want, selected, tag):
    got, took = pip_install(ctx, reqfile, index, tag)
    problems = pp.compare_sets("%s installs" % tag, want, got)
    for name, h in sorted(took.items()):
        if name in selected and h not in selected[name][1]:
            problems.append("%s: pip took a %s file with sha256 %s, not one uv.lock records"
                            % (tag, name, h))
    return problems


# ================================================================ the test

def envlock(ctx, args, what):
    rc, js, out, err = pp.run_envlock(ctx.info, args, os.path.join(ctx.work, "home"))
    if rc != 0:
        raise pp.Fail("%s exited %d: %s %s" % (what, rc, out.strip()[:2000], err.strip()[:2000]))
    return js


def main(state):
    with open(pp.state_file(state)) as f:
        info = json.load(f)
    if info.get("skip"):
        pp.agree.skip(info["skip"])
    if info.get("error"):
        raise pp.Fail("setup failed: %s" % info["error"])
    ctx = pp.Ctx(state, info, "uvlock")
    files = os.path.join(info["mirror"], "pypi", "pypi", "files")
    lock_text = uv_lock(files)
    spec = os.path.join(ctx.work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(lock_text))
    lock = os.path.join(ctx.work, "envlock.lock")
    cat = ["--bases", info["catalog"]]
    envlock(ctx, ["--json", "resolve", spec, "-o", lock] + cat, "resolve (no index given)")
    ctx.lock = pp.Lock(lock)
    envlock(ctx, ["--json", "check", spec, lock] + cat, "check of the fresh lock")
    served = pp.env.pypi_index_urls(info["manifest"], [REGISTRY], info["url"])[0].rstrip("/")
    export = os.path.join(ctx.work, "requirements.txt")
    envlock(ctx, ["export", lock, "--format", "requirements", "-o", export] + cat, "export")
    compiled = os.path.join(ctx.work, "uv-pip-compile.txt")
    envlock(ctx, ["export", lock, "--format", "uv-pip-compile", "-o", compiled] + cat,
            "export --format uv-pip-compile")
    plan = os.path.join(ctx.work, "plan")
    envlock(ctx, ["--mirror", "%s=%s" % (REGISTRY, served), "--json", "plan", spec, lock, "-o", plan,
                  "--variant", "datalayer"] + cat, "plan")
    ctx.info = dict(ctx.info, plan={"rc": 0, "dir": plan})
    words, local = pp.python_step_of_dockerfile(ctx, "datalayer")
    index = pp.option_value(words, "--index-url", "-i")
    reqs = pp.option_value(words, "-r", "--requirement")
    problems = []
    if index != [served] or len(reqs) != 1 or not local(reqs[0]):
        return ["the plan's Python step reads %s from %s, not one copied requirements file from %s"
                % (reqs, index, served)]

    # what uv.lock selects, from its text alone, minus the base's copies
    selected = uv_selection(lock_text, marker_env(ctx.lock.doc["target"]))
    base = base_holds(info["catalog"])
    want = {n: v for n, (v, _h) in selected.items() if base.get(n) != v}
    if want != {"dbclient": "1.4", "dbproto": "1.0", "fastcodec": "2.1"}:
        return ["the test's own reading of uv.lock selects %s (the fixture is not what the "
                "docstring says)" % sorted(want.items())]
    problems += install_problems(ctx, export, served, want, selected, "requirements export")
    # the uv-pip-compile text lists the base's copies without hashes (a
    # --require-hashes install stops on them, docs/plans.md): the
    # reference's own reader of it must see all of uv.lock's selection
    problems += pp.compare_sets("uv-pip-compile export's locked_versions",
                                {n: v for n, (v, _h) in selected.items()},
                                locked_versions(pp.read(compiled)))
    problems += install_problems(ctx, local(reqs[0]), index[0], want, selected,
                                 "datalayer plan's requirements.txt")

    # the same comparison catches an export that installs less
    tampered = os.path.join(ctx.work, "tampered.txt")
    with open(tampered, "w") as f:
        f.write(re.sub(r"(?m)^fastcodec==.*\n(    --hash=.*\n)*", "", pp.read(export)))
    if not install_problems(ctx, tampered, served, want, selected, "tampered export"):
        problems.append("an export without fastcodec installed what uv.lock selects: the "
                        "comparison proves nothing")
    return problems


if __name__ == "__main__":
    try:
        probs = main(sys.argv[1])
    except pp.agree.Skip as s:
        print("SKIP: %s" % s)
        sys.exit(pp.SKIP)
    except pp.Fail as e:
        probs = [str(e)]
    for p in probs:
        print("FAIL: " + p)
    print("PASS: uv.lock's selection installed by Debian's pip from the export and the plan"
          if not probs else "")
    sys.exit(1 if probs else 0)

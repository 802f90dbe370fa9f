#!/usr/bin/env python3
"""pyproject_source.py ENVLOCK PART — `build.source: dependencyFile` with
`sourceFormat: pyproject` (issue 20) on the demo mirror
(corpus/demo/mirror over file://), npm and apt resolved beside it.

The uv.lock here is written in uv's lockfile format for a project whose
packages the demo mirror serves (real uv.lock files cannot be resolved
offline; tests/spec/uvlock_select.py reads those): its hashes are the
mirror's own files', its graph the mirror's own Requires-Dist metadata
(requests' `socks` extra, pandas -> numpy/tzdata), with a numpy fork by
`resolution-markers` as uv writes one for requires-python >=3.12.

  equivalence  the pyproject spec resolves, without asking the PyPI index
               (its mirror is not given), to what uv.lock selects for 3.13
               (what `uv export` writes, REFERENCE §3): the versions of the
               packages spec pinning them, each file with uv.lock's hash,
               size and URL, the edges and extras uv.lock records, and npm
               and apt in the same lock as that spec's; check, plan, export
               and bundle (the files fetched by uv.lock's URLs through
               --mirror) take it; check names uv.lock or pyproject.toml when
               one changed; real pip installs the export with
               --require-hashes from the mirror, exactly uv.lock's selection
               outside the base.
  refusals     drift, a protected pin missing or outside its range, a git
               source, a package with no file the target installs: each
               with its code and field, the first with its spec line."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests", "fixtures"))
import specs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
FILES = os.path.join(MIRROR, "pypi", "pypi", "files")
SIMPLE = os.path.join(MIRROR, "pypi", "pypi", "simple")
PY313 = "/root/.pyenv/versions/3.13.0/bin/python3"
LOCKFIELD = "spec.build.dependencyFile.lockContent"

HEAD = specs.spec_head("pyproject") + """  packages:
    node:
      dependencies:
        - zod@^3
    system:
      apt:
        - libpq-dev
"""

# the catalog's protected pins (corpus/demo/bases.yaml): REFERENCE §3 wants
# each locked by uv.lock inside its range, so the project asks for them
PINS = [("datalayer", "1.7.4"), ("ipykernel", "7.3.0"), ("jupyter-client", "8.9.1"),
        ("jupyter-kernels", "1.2.23"), ("jupyter-server", "2.21.0+datalayer.1"),
        ("jupyter-server-nbmodel", "0.2.8")]

PYPROJECT = """[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.12"
dependencies = [
    "requests[socks]>=2.31",
    "pandas==2.2.3",
%s]

[project.optional-dependencies]
socks = ["pysocks>=1.7"]
""" % "".join('    "%s==%s",\n' % p for p in PINS)


def sha(filename):
    with open(os.path.join(FILES, filename), "rb") as f:
        return "sha256:" + hashlib.sha256(f.read()).hexdigest()


def wheel(filename):
    return ('    { url = "https://files.pythonhosted.org/packages/%s", hash = "%s", size = %d },\n'
            % (filename, sha(filename), os.path.getsize(os.path.join(FILES, filename))))


def package(name, version, filename=None, deps=(), extra="", optional=""):
    text = '[[package]]\nname = "%s"\nversion = "%s"\n%s' % (name, version, extra)
    text += 'source = { registry = "https://pypi.org/simple" }\n'
    if deps:
        text += "dependencies = [\n%s]\n" % "".join("    %s,\n" % d for d in deps)
    if filename:
        text += "wheels = [\n%s]\n" % wheel(filename)
    else:  # the base's copy (the wheelhouse): a hash the base's file would have
        h = hashlib.sha256(("%s-%s" % (name, version)).encode()).hexdigest()
        text += ('wheels = [\n    { url = "https://files.pythonhosted.org/packages/%s-%s-py3-none-'
                 'any.whl", hash = "sha256:%s" },\n]\n' % (name.replace("-", "_"), version, h))
    return text + optional + "\n"


def uv_lock():
    cp313 = "cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    root = ('[[package]]\nname = "demo"\nversion = "0.1.0"\nsource = { virtual = "." }\n'
            "dependencies = [\n" +
            "".join('    { name = "%s" },\n' % n for n, _ in PINS) +
            '    { name = "pandas" },\n    { name = "requests", extra = ["socks"] },\n]\n\n'
            "[package.metadata]\nrequires-dist = [\n" +
            "".join('    { name = "%s", specifier = "==%s" },\n' % p for p in PINS) +
            '    { name = "pandas", specifier = "==2.2.3" },\n'
            '    { name = "pysocks", marker = "extra == \'socks\'", specifier = ">=1.7" },\n'
            '    { name = "requests", extras = ["socks"], specifier = ">=2.31" },\n]\n'
            'provides-extras = ["socks"]\n\n')
    pkgs = [
        package("certifi", "2025.4.26", "certifi-2025.4.26-py3-none-any.whl"),
        package("charset-normalizer", "3.4.0", "charset_normalizer-3.4.0-" + cp313),
        root,
        package("idna", "3.10", "idna-3.10-py3-none-any.whl"),
        package("numpy", "1.26.4", "numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                extra="resolution-markers = [\"python_full_version < '3.13'\"]\n"),
        package("numpy", "2.2.6", "numpy-2.2.6-" + cp313,
                extra="resolution-markers = [\"python_full_version >= '3.13'\"]\n"),
        package("pandas", "2.2.3", "pandas-2.2.3-" + cp313,
                deps=['{ name = "numpy", version = "1.26.4", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version < \'3.13\'" }',
                      '{ name = "numpy", version = "2.2.6", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version >= \'3.13\'" }',
                      '{ name = "tzdata" }']),
        package("pysocks", "1.7.1", "pysocks-1.7.1-py3-none-any.whl"),
        package("requests", "2.32.3", "requests-2.32.3-py3-none-any.whl",
                deps=['{ name = "certifi" }', '{ name = "charset-normalizer" }',
                      '{ name = "idna" }', '{ name = "urllib3" }'],
                optional='\n[package.optional-dependencies]\nsocks = [\n    { name = "pysocks" },\n]\n'),
        package("tzdata", "2025.2", "tzdata-2025.2-py2.py3-none-any.whl"),
        package("urllib3", "2.2.3", "urllib3-2.2.3-py3-none-any.whl"),
    ] + [package(n, v) for n, v in PINS]
    pkgs.sort(key=lambda t: t.split('"')[1])
    return ('version = 1\nrevision = 3\nrequires-python = ">=3.12"\nresolution-markers = [\n'
            "    \"python_full_version >= '3.13'\",\n    \"python_full_version < '3.13'\",\n]\n\n"
            + "".join(pkgs))


# what the uv.lock selects for Python 3.13 on Linux, by the reading of uv's
# format: the root's edges, requests' socks extra, the fork's >= 3.13 copy
SELECTED = dict(PINS + [("certifi", "2025.4.26"), ("charset-normalizer", "3.4.0"),
                        ("idna", "3.10"), ("numpy", "2.2.6"), ("pandas", "2.2.3"),
                        ("pysocks", "1.7.1"), ("requests", "2.32.3"), ("tzdata", "2025.2"),
                        ("urllib3", "2.2.3")])


def block(text):
    return "".join("        " + ln + "\n" if ln else "\n" for ln in text.splitlines())


def pyproject_spec(pyproject=PYPROJECT, lock=None, head=HEAD):
    return head + ("  build:\n    source: dependencyFile\n    dependencyFile:\n"
                   "      sourceFormat: pyproject\n      content: |\n" + block(pyproject) +
                   "      lockContent: |\n" + block(lock if lock is not None else uv_lock()))


def lock_line_in_spec(spec_text, lock_line):
    """The spec line of uv.lock line `lock_line` (a literal block maps line
    for line, starting the line after `lockContent: |`)."""
    lines = spec_text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == "lockContent: |") + 2
    return start + lock_line - 1


def packages_spec(pins):
    node = HEAD.index("  packages:\n") + len("  packages:\n")
    return HEAD[:node] + "    python:\n      dependencies:\n" + "".join(
        "        - %s==%s\n" % kv for kv in sorted(pins.items())) + HEAD[node:]


class Fail(Exception):
    pass


def run(envlock, work, args, pypi=True):
    """The demo mirror for npm and apt; for PyPI only when `pypi`: a
    pyproject source's resolve asks no index, so the index is not given."""
    pypi_mirror = ["--mirror", "https://pypi.org=file://" + os.path.join(MIRROR, "pypi", "pypi")]
    cmd = [envlock, "--json", "--cache-dir", os.path.join(work, "cache")] + (
        pypi_mirror if pypi else []) + [
           "--mirror", "https://registry.npmjs.org=file://" + os.path.join(MIRROR, "npm"),
           "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z=file://" +
           os.path.join(MIRROR, "apt")] + args
    if args[0] == "plan":  # a plan takes no file:// mirror (docs/cli.md, plan)
        cmd = cmd[:4] + args
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=work, timeout=300)
    try:
        js = json.loads(p.stdout) if p.stdout.strip() else None
    except ValueError:
        js = None
    return p.returncode, js, p.stdout + p.stderr


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def resolve(envlock, work, name, text, want_rc=0, pypi=True):
    spec = write(work, name + ".yaml", text)
    lock = os.path.join(work, name + ".lock")
    rc, js, out = run(envlock, work, ["resolve", "--bases", BASES, spec, "-o", lock], pypi=pypi)
    if rc != want_rc:
        raise Fail("%s: resolve exited %d, expected %d: %s" % (name, rc, want_rc, out))
    return spec, lock, js


FILES_URL = "https://files.pythonhosted.org/packages/"

# the edges and extras of the uv.lock above, as uv writes them: the root's
# dependencies (requests with its socks extra), requests' and pandas' own
# (pandas' numpy edge for >= 3.13), and requests' socks extra's pysocks
EDGES = {"requests": {"certifi", "charset-normalizer", "idna", "urllib3", "pysocks"},
         "pandas": {"numpy", "tzdata"}}
EXTRAS = {"requests": ["socks"]}


def not_python(doc):
    return ([p for p in doc["packages"] if p["ecosystem"] != "pypi"],
            [i for i in doc["inputs"] if i["ecosystem"] != "pypi"])


def check_python(doc):
    """Each Python package as uv.lock records it."""
    pypi = {p["name"]: p for p in doc["packages"] if p["ecosystem"] == "pypi"}
    if {n: p["version"] for n, p in pypi.items()} != SELECTED:
        raise Fail("the lock holds %s, uv.lock selects %s" % (
            sorted((n, p["version"]) for n, p in pypi.items()), sorted(SELECTED.items())))
    if [i for i in doc["inputs"] if i["ecosystem"] == "pypi"]:
        raise Fail("a PyPI page among the inputs: the index was asked")
    for name, p in pypi.items():
        if name in dict(PINS):  # the base's copies
            if not p.get("installedInBase") or p["artifacts"]:
                raise Fail("%s: the base holds it, the lock installs %s" % (name, p["artifacts"]))
            continue
        (a,) = p["artifacts"]
        want = {"file": a["file"], "url": FILES_URL + a["file"], "hash": sha(a["file"]),
                "size": os.path.getsize(os.path.join(FILES, a["file"]))}
        if a != want or p["source"] != "https://pypi.org/simple":
            raise Fail("%s: artifact %s from %s, uv.lock records %s" % (name, a, p["source"], want))
        deps = {d["name"] for d in p["dependencies"]}
        if deps != EDGES.get(name, set()) or p.get("extras", []) != EXTRAS.get(name, []):
            raise Fail("%s: edges %s extras %s" % (name, sorted(deps), p.get("extras")))
    # an edge's spec is uv.lock's record of it: the name and its marker
    numpy_edge = [d for d in pypi["pandas"]["dependencies"] if d["name"] == "numpy"]
    if numpy_edge != [{"name": "numpy", "version": "2.2.6", "kind": "requires",
                       "spec": "numpy; python_full_version >= '3.13'"}]:
        raise Fail("pandas' numpy edge: %s" % numpy_edge)
    if pypi["numpy"]["requestedBy"] != ["pypi:pandas@2.2.3"] or pypi["requests"]["requestedBy"] != ["spec"]:
        raise Fail("requestedBy: numpy %s, requests %s" % (pypi["numpy"]["requestedBy"],
                                                           pypi["requests"]["requestedBy"]))
    dep = doc.get("dependencyFile", {})
    # the spec holds it in a literal block: YAML keeps one final line break
    text = uv_lock().rstrip("\n") + "\n"
    if dep.get("lockContent") != "sha256:" + hashlib.sha256(text.encode()).hexdigest():
        raise Fail("dependencyFile %s is not uv.lock's digest" % dep)
    return pypi


def check_names(envlock, work, l_py, name, spec_text, word):
    changed = write(work, name + ".yaml", spec_text)
    rc, js, out = run(envlock, work, ["check", "--bases", BASES, changed, l_py], pypi=False)
    if rc != 1 or word not in out:
        raise Fail("check after %s changed exited %d (expected 1) without naming it: %s"
                   % (word, rc, out))


def part_equivalence(envlock, work):
    s_py, l_py, _ = resolve(envlock, work, "pyproject", pyproject_spec(), pypi=False)
    s_pk, l_pk, _ = resolve(envlock, work, "pins", packages_spec(SELECTED))
    doc = yaml.safe_load(open(l_py))
    pypi = check_python(doc)
    ecosystems = {p["ecosystem"] for p in doc["packages"]}
    if ecosystems != {"pypi", "npm", "deb"}:
        raise Fail("one lock for the three ecosystems; it holds %s" % sorted(ecosystems))
    pins = yaml.safe_load(open(l_pk))
    if not_python(doc) != not_python(pins):
        raise Fail("npm and apt differ from the packages spec's lock")
    if {p["name"]: p["version"] for p in pins["packages"] if p["ecosystem"] == "pypi"} != SELECTED:
        raise Fail("the packages spec pinning uv.lock's selection locks other versions")
    rc, js, out = run(envlock, work, ["check", "--bases", BASES, s_py, l_py], pypi=False)
    if rc != 0:
        raise Fail("check exited %d: %s" % (rc, out))
    check_names(envlock, work, l_py, "changed",
                pyproject_spec(lock=uv_lock().replace('revision = 3', 'revision = 2')),
                "uv.lock changed")
    check_names(envlock, work, l_py, "project", pyproject_spec(PYPROJECT + "# a comment\n"),
                "pyproject.toml changed")
    # a dependency added to pyproject.toml and not locked (`uv lock --check`
    # fails): the lock made from the earlier uv.lock is stale, naming it
    # (text and --json), not a refusal of the spec
    added = pyproject_spec(PYPROJECT.replace('"pandas==2.2.3",', '"pandas==2.2.3",\n    "rich>=13",'))
    check_names(envlock, work, l_py, "added", added, "`rich` is not in uv.lock")
    rc, js, out = run(envlock, work, ["check", "--bases", BASES,
                                      os.path.join(work, "added.yaml"), l_py], pypi=False)
    changes = (js or {}).get("changes", [])
    if rc != 1 or js.get("valid") is not False or len(changes) != 1 or \
            "run `uv lock`" not in changes[0]["text"] or changes[0]["kind"] != "spec":
        raise Fail("check --json after a dependency was added: %d %s" % (rc, out))
    rc, js, out = run(envlock, work, ["plan", "--bases", BASES, s_py, l_py, "-o",
                                      os.path.join(work, "plan")], pypi=False)
    if rc != 0:
        raise Fail("plan exited %d: %s" % (rc, out))
    rc, js, out = run(envlock, work, ["export", l_py, "--format", "requirements", "--bases",
                                      BASES, "-o", os.path.join(work, "reqs.txt")], pypi=False)
    if rc != 0:
        raise Fail("export exited %d: %s" % (rc, out))
    exported = open(os.path.join(work, "reqs.txt")).read()
    for name, version in SELECTED.items():
        if "%s==%s" % (name, version) not in exported and name not in dict(PINS):
            raise Fail("the export has no %s==%s" % (name, version))
    pip_installs(work, os.path.join(work, "reqs.txt"), SELECTED)
    bundle(envlock, work)
    print("equivalence: %d Python packages as uv.lock selects them (no index asked), npm and "
          "apt beside; check (naming uv.lock, pyproject.toml), plan, export, bundle pass"
          % len(pypi))


def bundle(envlock, work):
    """The demo mirror has npm packuments but no tarballs: bundle the
    Python and apt part, the Python files by uv.lock's URLs, mirrored."""
    no_npm = HEAD.replace("    node:\n      dependencies:\n        - zod@^3\n", "")
    _s, l_b, _ = resolve(envlock, work, "bundled", pyproject_spec(head=no_npm), pypi=False)
    rc, js, out = run(envlock, work, ["--mirror", FILES_URL.rstrip("/") + "=file://" + FILES,
                                      "bundle", l_b, "-o", os.path.join(work, "bundle")],
                      pypi=False)
    if rc != 0:
        raise Fail("bundle exited %d: %s" % (rc, out))
    for name in ("requests-2.32.3-py3-none-any.whl", "numpy-2.2.6-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"):
        found = [os.path.join(d, f) for d, _x, fs in os.walk(os.path.join(work, "bundle"))
                 for f in fs if f == name]
        if not found or "sha256:" + hashlib.sha256(open(found[0], "rb").read()).hexdigest() != sha(name):
            raise Fail("the bundle has no verified %s" % name)
    pages = [d for d, _x, fs in os.walk(os.path.join(work, "bundle"))
             if d.endswith("/simple/requests") and "index.html" in fs]
    if not pages or "requests-2.32.3-py3-none-any.whl" not in open(pages[0] + "/index.html").read():
        raise Fail("the bundle has no page for requests listing its file")


def pip_installs(work, exported, selected):
    """Real pip (a Python 3.13, the target's minor; the machine's
    PIP_FIND_LINKS dropped) installs the export as its header says, with
    --require-hashes against the mirror, and would install exactly what
    uv.lock selects outside the base."""
    if not os.access(PY313, os.X_OK):
        print("pip: no Python 3.13, not run")
        return
    report = os.path.join(work, "report.json")
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
    env.pop("PIP_FIND_LINKS", None)
    cmd = [PY313, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
           "--no-deps", "--require-hashes", "--target", os.path.join(work, "target"),
           "--report", report, "--index-url", "file://" + SIMPLE, "--python-version", "3.13",
           "--implementation", "cp", "--abi", "cp313", "--platform", "manylinux_2_36_x86_64",
           "--platform", "manylinux_2_17_x86_64", "--only-binary", ":all:", "-r", exported]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise Fail("pip refused the export: %s" % p.stderr)
    got = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
           for i in json.load(open(report))["install"]}
    want = {n: v for n, v in selected.items() if n not in dict(PINS)}
    if got != want:
        raise Fail("pip installs %s, uv.lock selects %s" % (sorted(got.items()),
                                                            sorted(want.items())))


def expect_error(envlock, work, name, text, rc, code, field, package=None, words=(),
                 line=None):
    spec, lock, js = resolve(envlock, work, name, text, want_rc=rc)
    if not js or js.get("code") != code:
        raise Fail("%s: %s, expected %s" % (name, js, code))
    d = js.get("detail", {})
    if d.get("field") != field:
        raise Fail("%s: field %s, expected %s" % (name, d.get("field"), field))
    # a finding names the package in its message, a resolve refusal in detail
    named = d.get("package") == package or (
        "findings" in d and "`%s`" % package in js.get("message", ""))
    if package is not None and not named:
        raise Fail("%s: package %s, expected %s" % (name, d.get("package"), package))
    if not all(w in js.get("message", "") for w in words):
        raise Fail("%s: message %r lacks %s" % (name, js.get("message"), words))
    # a refusal validate sees is a finding, its spec line in detail.findings
    got = d.get("line", (d.get("findings") or [{}])[0].get("line"))
    if line is not None and got != line:
        raise Fail("%s: line %s, expected %s" % (name, got, line))
    if os.path.exists(lock):
        raise Fail("%s: a lock was written" % name)
    return js


def part_refusals(envlock, work):
    lock = uv_lock()
    # a package whose only file is a Windows wheel: nothing the target
    # installs (packaging's tags: win_amd64 is no Linux platform), no sdist
    win = lock.replace("pysocks-1.7.1-py3-none-any.whl", "pysocks-1.7.1-cp313-cp313-win_amd64.whl")
    win_text = pyproject_spec(lock=win)
    js = expect_error(envlock, work, "no-file", win_text, 13, "DL_ENV_PACKAGE_NOT_FOUND", LOCKFIELD,
                      "pysocks", ["pysocks 1.7.1", "no file"])
    at = win.splitlines().index('name = "pysocks"') + 1  # 1-based: the name line
    if js["detail"].get("contentLine") not in (at - 1, at):
        raise Fail("no-file: contentLine %s, the package is at %d" % (js["detail"], at - 1))
    # drift names lockContent, and points at the requirement in pyproject.toml
    text = pyproject_spec(PYPROJECT.replace("requests[socks]>=2.31", "requests[socks]>=2.33"))
    req_line = text.splitlines().index('            "requests[socks]>=2.33",') + 1
    # (validate sees drift without a target: resolve refuses it as a finding,
    # the package named in the message)
    expect_error(envlock, work, "drift", text, 12, "DL_ENV_RESOLVE_CONFLICT", LOCKFIELD,
                 "requests", ["2.32.3", ">=2.33", "uv lock", "of the pyproject.toml"],
                 line=req_line)
    # a dependency added to pyproject.toml only: uv.lock does not lock it
    expect_error(envlock, work, "drift-added",
                 pyproject_spec(PYPROJECT.replace('"pandas==2.2.3",',
                                                  '"pandas==2.2.3",\n    "rich>=13",')),
                 12, "DL_ENV_RESOLVE_CONFLICT", LOCKFIELD, "rich",
                 ["`rich` is not in uv.lock", "rich>=13", "run `uv lock`"])
    expect_error(envlock, work, "drift-extra",
                 pyproject_spec(PYPROJECT.replace('socks = ["pysocks>=1.7"]', 'socks = []')),
                 12, "DL_ENV_RESOLVE_CONFLICT", LOCKFIELD, "pysocks",
                 ["optional-dependencies", "no longer asks"])
    outside = pyproject_spec(PYPROJECT.replace("ipykernel==7.3.0", "ipykernel==7.2.0"),
                             lock.replace('"ipykernel"\nversion = "7.3.0"', '"ipykernel"\nversion = "7.2.0"')
                             .replace('{ name = "ipykernel", specifier = "==7.3.0" }',
                                      '{ name = "ipykernel", specifier = "==7.2.0" }'))
    expect_error(envlock, work, "pin-outside", outside, 14, "DL_ENV_PROTECTED_PACKAGE",
                 LOCKFIELD, "ipykernel", ["7.2.0", "outside that range"])
    missing = pyproject_spec(PYPROJECT.replace('    "ipykernel==7.3.0",\n', ""),
                             lock.replace('    { name = "ipykernel" },\n', "")
                             .replace('    { name = "ipykernel", specifier = "==7.3.0" },\n', ""))
    expect_error(envlock, work, "pin-missing", missing, 14, "DL_ENV_PROTECTED_PACKAGE",
                 LOCKFIELD, "ipykernel", ["does not lock it at all"])
    git = lock.replace('name = "pysocks"\nversion = "1.7.1"\nsource = { registry = "https://pypi.org/simple" }',
                       'name = "pysocks"\nversion = "1.7.1"\nsource = { git = "https://github.com/Anorov/PySocks?tag=1.7.1#1234567" }')
    expect_error(envlock, work, "git", pyproject_spec(lock=git), 11,
                 "DL_ENV_CAPABILITY_UNSUPPORTED", LOCKFIELD, "pysocks", ["git"])
    print("refusals: a package with no file for the target, drift (with its spec line), "
          "optional-dependency drift, pin outside, pin missing, git source")


def main():
    envlock, part = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="pyproject-source-")
    try:
        {"equivalence": part_equivalence, "refusals": part_refusals}[part](envlock, work)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

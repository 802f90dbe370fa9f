#!/usr/bin/env python3
"""uvlock_offline.py ENVLOCK — issue 20's "Done means" for a `pyproject`
source, with a real uv.lock (tests/fixtures/uvlock/chonkie-140-error, see
its README) and no index at all: an empty cache, --offline, no --mirror.
Also a real uv workspace (tests/fixtures/uvlock/uv-workspace-example): its
members' dependencies locked, the members left out and named in a note.

validate -> resolve -> check -> plan (amd64: the builders'
platform) -> export, for two targets (the demo
base on x86_64, and the same base on aarch64), and the lock's Python part
against an independent reading of the same files: the selection by
tests/spec/uvlock_select.py's reader (python3's tomllib, pip's vendored
`packaging` markers), each package's file chosen as pip chooses (the
wheel whose tags come first in packaging's cpython_tags() +
compatible_tags() order for the target, else the sdist), with the hash,
size and URL uv.lock records for it. Then check names the file that
changed (pyproject.toml or uv.lock).
Skipped (77) without pip's vendored packaging or PyYAML."""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

try:
    import yaml
    from pip._vendor.packaging import tags as ptags
    from pip._vendor.packaging.utils import canonicalize_name, parse_wheel_filename
except ImportError:
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "uvlock", "chonkie-140-error")
# a uv workspace (tests/fixtures/uvlock/README.md): the project's default
# group reaches its members app, lib and lib-core
WORKSPACE = os.path.join(ROOT, "tests", "fixtures", "uvlock", "uv-workspace-example")
DEMO = os.path.join(ROOT, "corpus", "demo")

spec_ = importlib.util.spec_from_file_location(
    "uvlock_select", os.path.join(ROOT, "tests", "spec", "uvlock_select.py"))
reader = importlib.util.module_from_spec(spec_)
spec_.loader.exec_module(reader)

# (arch, machine, platform tag) of each target
TARGETS = [("amd64", "x86_64", "manylinux_2_36_x86_64"),
           ("arm64", "aarch64", "manylinux_2_36_aarch64")]


class Fail(Exception):
    pass


def catalog(work, arch, platform):
    """The demo catalog on `arch`, without protected pins or preinstalled
    distributions (a public project's uv.lock locks no Datalayer kernel),
    its relative paths made absolute."""
    cat = yaml.safe_load(open(os.path.join(DEMO, "bases.yaml")))
    for base in cat["bases"].values():
        for ch in base["channels"].values():
            ch.pop("protected", None)
            ch.pop("preinstalled", None)
            ch["arch"], ch["platform"] = arch, platform
            if "dpkgStatus" in ch:
                ch["dpkgStatus"] = os.path.normpath(os.path.join(DEMO, ch["dpkgStatus"]))
            if "keyring" in ch.get("apt", {}):
                ch["apt"]["keyring"] = os.path.normpath(os.path.join(DEMO, ch["apt"]["keyring"]))
    path = os.path.join(work, "bases-%s.yaml" % arch)
    with open(path, "w") as f:
        yaml.safe_dump(cat, f, sort_keys=False)
    return path


def block(text):
    return "".join("        " + ln + "\n" if ln else "\n" for ln in text.splitlines())


def spec_text(pyproject, lock):
    return ("apiVersion: environments.datalayer.io/v1alpha1\nkind: Environment\nmetadata:\n"
            "  name: chonkie\nspec:\n  language:\n    version: \"3.13\"\n  base:\n"
            "    ref: datalayer/python-cpu\n    channel: \"2026.09\"\n  build:\n"
            "    source: dependencyFile\n    dependencyFile:\n      sourceFormat: pyproject\n"
            "      content: |\n" + block(pyproject) + "      lockContent: |\n" + block(lock))


def supported(machine):
    """CPython 3.13 on glibc 2.36: manylinux_2_36 down to 2_17 (2_5 on
    x86_64) with the legacy aliases, in packaging's order."""
    lowest = 5 if machine == "x86_64" else 17
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    plats = []
    for minor in range(36, lowest - 1, -1):
        plats.append("manylinux_2_%d_%s" % (minor, machine))
        if minor in legacy and (machine in ("x86_64", "i686") or minor == 17):
            plats.append("%s_%s" % (legacy[minor], machine))
    order = list(ptags.cpython_tags((3, 13), ["cp313"], plats)) + \
        list(ptags.compatible_tags((3, 13), "cp313", plats))
    return {t: i for i, t in enumerate(order)}


def expected(machine, fixture=FIXTURE):
    """name -> (version, file, url, hash, size) by the independent reading
    (workspace members left out)."""
    lock = tomllib.load(open(os.path.join(fixture, "uv.lock"), "rb"))
    env = reader.env_for("3.13.7", "linux")
    env["platform_machine"] = machine
    rank = supported(machine)
    out = {}
    for line in reader.select(lock, env):
        if not line.startswith("pkg "):
            continue
        _pkg, name, version, _n = line.split()
        p = next(q for q in lock["package"]
                 if canonicalize_name(q["name"]) == name and q["version"] == version)
        best = None
        for w in p.get("wheels", []):
            fname = w["url"].rsplit("/", 1)[1]
            r = min((rank[t] for t in parse_wheel_filename(fname)[3] if t in rank), default=None)
            if r is not None and (best is None or r < best[0]):
                best = (r, w)
        f = best[1] if best else p["sdist"]
        out[name] = (version, f["url"].rsplit("/", 1)[1], f["url"], f["hash"], f["size"])
    return out


def run(envlock, work, args, want=0):
    cmd = [envlock, "--cache-dir", os.path.join(work, "cache")] + args
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=work, timeout=120)
    if p.returncode != want:
        raise Fail("%s exited %d, expected %d: %s%s" % (" ".join(args), p.returncode, want,
                                                       p.stdout, p.stderr))
    return p.stdout + p.stderr


def got(lock_path):
    doc = yaml.safe_load(open(lock_path))
    out = {}
    for p in doc["packages"]:
        if p["ecosystem"] != "pypi":
            raise Fail("a %s package in a Python-only lock" % p["ecosystem"])
        (a,) = p["artifacts"]
        out[p["name"]] = (p["version"], a["file"], a["url"], a["hash"], a["size"])
    if doc["inputs"]:
        raise Fail("inputs %s: an index was read" % doc["inputs"])
    return out, doc


def flow(envlock, work, arch, machine, platform):
    bases = catalog(work, arch, platform)
    pyproject = open(os.path.join(FIXTURE, "pyproject.toml")).read()
    lock_text = open(os.path.join(FIXTURE, "uv.lock")).read()
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(pyproject, lock_text))
    lock = os.path.join(work, "envlock-%s.lock" % arch)
    run(envlock, work, ["validate", spec])
    run(envlock, work, ["resolve", "--offline", "--bases", bases, spec, "-o", lock])
    have, doc = got(lock)
    want = expected(machine)
    if have != want:
        raise Fail("%s: the lock holds\n %s\nthe reading selects\n %s" % (
            arch, sorted(have.items()), sorted(want.items())))
    digest = "sha256:" + hashlib.sha256(lock_text.encode()).hexdigest()
    if doc.get("dependencyFile", {}).get("lockContent") != digest:
        raise Fail("dependencyFile %s is not uv.lock's %s" % (doc.get("dependencyFile"), digest))
    run(envlock, work, ["check", "--offline", "--bases", bases, spec, lock])
    if arch == "amd64":  # the datalayer builder builds linux/amd64 only
        run(envlock, work, ["plan", "--offline", "--bases", bases, spec, lock, "-o",
                            os.path.join(work, "plan-" + arch)])
    req = os.path.join(work, "req-%s.txt" % arch)
    run(envlock, work, ["export", "--offline", lock, "--format", "requirements", "--bases", bases,
                        "-o", req])
    text = open(req).read()
    for name, (version, _f, _u, h, _s) in want.items():
        if "%s==%s" % (name, version) not in text or "--hash=" + h not in text:
            raise Fail("%s: the export has no %s==%s with %s" % (arch, name, version, h))
    return bases, spec, lock, pyproject, lock_text, want


def names_changed(envlock, work, bases, spec, lock, pyproject, lock_text):
    """check names the file that changed."""
    for what, new_py, new_lock in (
            ("pyproject.toml changed", pyproject + "# edited\n", lock_text),
            ("uv.lock changed", pyproject, lock_text + "# edited\n")):
        with open(spec, "w") as f:
            f.write(spec_text(new_py, new_lock))
        out = run(envlock, work, ["check", "--offline", "--bases", bases, spec, lock], want=1)
        other = ({"pyproject.toml changed", "uv.lock changed"} - {what}).pop()
        if what not in out or other in out:
            raise Fail("check after an edit: %r should name only %s" % (out, what))


def workspace(envlock, work):
    """A uv workspace resolves with no index: the members' third-party
    dependencies locked as uv.lock records them, the members themselves
    left out with a note naming them, and check and plan take the lock."""
    bases = catalog(work, "amd64", "manylinux_2_36_x86_64")
    pyproject = open(os.path.join(WORKSPACE, "pyproject.toml")).read()
    lock_text = open(os.path.join(WORKSPACE, "uv.lock")).read()
    spec = os.path.join(work, "workspace.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(pyproject, lock_text))
    lock = os.path.join(work, "workspace.lock")
    run(envlock, work, ["validate", spec])
    out = run(envlock, work, ["--json", "resolve", "--offline", "--bases", bases, spec, "-o", lock])
    have, _doc = got(lock)
    want = expected("x86_64", WORKSPACE)
    if have != want:
        raise Fail("workspace: the lock holds\n %s\nthe reading selects\n %s" % (
            sorted(have.items()), sorted(want.items())))
    for member in ("app", "lib", "lib-core"):
        if member in have or "`%s`" % member not in out or "workspace member" not in out:
            raise Fail("workspace: member %s locked or not named in the notes: %s" % (member, out))
    # lib-core's own dependency, reached only through the members
    if "pydantic" not in have or "numpy" not in have:
        raise Fail("workspace: the members' dependencies are not locked: %s" % sorted(have))
    run(envlock, work, ["check", "--offline", "--bases", bases, spec, lock])
    run(envlock, work, ["plan", "--offline", "--bases", bases, spec, lock, "-o",
                        os.path.join(work, "plan-workspace")])
    return len(have)


def main():
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="uvlock-offline-")
    try:
        n_ws = workspace(envlock, work)
        seen = []
        for arch, machine, platform in TARGETS:
            shutil.rmtree(os.path.join(work, "cache"), ignore_errors=True)
            res = flow(envlock, work, arch, machine, platform)
            seen.append(res[-1])
        if seen[0] == seen[1]:
            raise Fail("both targets lock the same files: the fixture tests no tag choice")
        names_changed(envlock, work, *res[:5])
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("uvlock offline: %s packages per target, validate/resolve/check/plan/export with no "
          "index; check names pyproject.toml and uv.lock; a workspace: %d packages, its "
          "members left out" % ([len(s) for s in seen], n_ws))
    return 0


if __name__ == "__main__":
    sys.exit(main())

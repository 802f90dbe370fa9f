#!/usr/bin/env python3
"""uvlock_select.py DUMP FIXTURES — the `pyproject` source's selection
(envspec/spec_uvlock.c, through uvlock_dump) against an independent
reading of the same real uv.lock files (tests/fixtures/uvlock/README.md).

The reading here follows uv's documented lockfile: start at the project's
own package (source editable/virtual "."), its `dependencies` and the
`dev` group of `dev-dependencies` (uv's default group); an edge applies
when its marker holds (markers by pip's vendored `packaging`, the PEP 508
reference implementation); an edge's `extra` list follows the target's
`optional-dependencies`; where a name has several packages the edge's
`version` decides, else the one whose `resolution-markers` hold.

Then drift and refusals on edited copies of the same files, each expected
from uv's rules (`uv lock --check` compares [project] dependencies and
dependency groups with the lock's recorded metadata):
  - a pyproject.toml asking for a version the lock does not hold,
  - a dependency added to pyproject.toml only,
  - an editable path dependency (aoe2's `mgz`) refused as unsupported,
  - a registry the spec does not name (fast-dev-cli's mirror);
and sizes: generated locks of 11,000 packages, a chain and a fan, in
linear time.
Skipped (77) when pip's vendored packaging is missing."""

import os
import subprocess
import sys
import tempfile
import tomllib

try:
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.utils import canonicalize_name
except ImportError:
    sys.exit(77)


def env_for(full, platform):
    win = platform == "win32"
    return {
        "python_version": ".".join(full.split(".")[:2]),
        "python_full_version": full,
        "implementation_version": full,
        "os_name": "nt" if win else "posix",
        "sys_platform": platform,
        "platform_system": "Windows" if win else "Linux",
        "platform_machine": "AMD64" if win else "x86_64",
        "platform_python_implementation": "CPython",
        "implementation_name": "cpython",
        "platform_release": "",
        "platform_version": "",
        "extra": "",
    }


def holds(marker, env):
    return marker is None or Marker(marker).evaluate(env)


def select(lock, env):
    pkgs = lock["package"]
    root = next(i for i, p in enumerate(pkgs)
                if p.get("source", {}).get("editable") == "." or
                p.get("source", {}).get("virtual") == ".")

    def find(edge):
        name = canonicalize_name(edge["name"])
        cands = [i for i, p in enumerate(pkgs) if canonicalize_name(p["name"]) == name
                 and ("version" not in edge or p["version"] == edge["version"])]
        if len(cands) > 1:
            cands = [i for i in cands if not pkgs[i].get("resolution-markers") or
                     any(holds(m, env) for m in pkgs[i]["resolution-markers"])]
        return cands[0]

    chosen, seen = {root}, set()
    todo = list(pkgs[root].get("dependencies", []))
    todo += pkgs[root].get("dev-dependencies", {}).get("dev", [])
    while todo:
        edge = todo.pop()
        if not holds(edge.get("marker"), env):
            continue
        i = find(edge)
        if i not in chosen:
            chosen.add(i)
            todo += pkgs[i].get("dependencies", [])
        for extra in edge.get("extra", []):
            if (i, extra) not in seen:
                seen.add((i, extra))
                todo += pkgs[i].get("optional-dependencies", {}).get(extra, [])
    chosen.discard(root)
    # workspace members (uv's `[manifest] members`, from their own
    # directory) are source, not artifacts: followed, then left out
    names = {canonicalize_name(m) for m in lock.get("manifest", {}).get("members", [])}
    members = {i for i in chosen if canonicalize_name(pkgs[i]["name"]) in names and
               ({"editable", "virtual"} & set(pkgs[i].get("source", {})))}
    out = []
    for i in sorted(chosen - members):
        p = pkgs[i]
        hashes = [w["hash"] for w in p.get("wheels", []) if "hash" in w]
        if "sdist" in p and "hash" in p["sdist"]:
            hashes.append(p["sdist"]["hash"])
        out.append("pkg %s %s %d" % (canonicalize_name(p["name"]), p["version"], len(hashes)))
    return out + ["member %s" % canonicalize_name(pkgs[i]["name"]) for i in sorted(members)]


def dump(tool, pyproject, lock, full, platform, indexes):
    r = subprocess.run([tool, pyproject, lock, full, platform] + indexes,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("uvlock_dump failed: %s" % r.stderr)
    return r.stdout.splitlines()


def problems(lines):
    return [l for l in lines if l.startswith("problem ")]


# the fixture, its indexes, and the targets whose selections must differ
CASES = [
    ("chonkie-140-error", ["https://pypi.org/simple"], [("3.13.7", "linux"), ("3.13.7", "win32")]),
    ("fast-dev-cli", ["https://mirrors.cloud.tencent.com/pypi/simple/"],
     [("3.10.12", "linux"), ("3.11.2", "linux"), ("3.12.9", "linux")]),
    # a workspace: the root's default `dev` group (PEP 735 include-groups)
    # reaches the members app, lib and lib-core, whose own dependencies
    # (fastapi[standard], numpy forked at 3.10, pandas, pydantic) are locked
    ("uv-workspace-example", ["https://pypi.org/simple"],
     [("3.13.7", "linux"), ("3.9.18", "linux")]),
]


def part_select(tool, fixtures):
    for name, indexes, targets in CASES:
        d = os.path.join(fixtures, name)
        lock = tomllib.load(open(os.path.join(d, "uv.lock"), "rb"))
        seen = []
        for full, platform in targets:
            want = select(lock, env_for(full, platform))
            got = [l for l in dump(tool, os.path.join(d, "pyproject.toml"),
                                   os.path.join(d, "uv.lock"), full, platform, indexes)
                   if not l.startswith("edge ")]
            if got != want:
                raise SystemExit("%s %s %s:\n envlock %s\n reading %s" %
                                 (name, full, platform, got, want))
            seen.append(tuple(want))
        if len(set(seen)) != len(seen):
            raise SystemExit("%s: the targets select the same packages; the fixture tests "
                             "nothing" % name)
        print("%s: %s" % (name, ", ".join("%d packages" % len(s) for s in seen)))


def edited(fixtures, name, old, new, file="pyproject.toml"):
    d = os.path.join(fixtures, name)
    tmp = tempfile.mkdtemp()
    for f in ("pyproject.toml", "uv.lock"):
        text = open(os.path.join(d, f)).read()
        if f == file:
            if old not in text:
                raise SystemExit("%s/%s has no %r" % (name, f, old))
            text = text.replace(old, new, 1)
        open(os.path.join(tmp, f), "w").write(text)
    return os.path.join(tmp, "pyproject.toml"), os.path.join(tmp, "uv.lock")


def expect(tool, files, full, indexes, code, field, package, words):
    lines = problems(dump(tool, files[0], files[1], full, "linux", indexes))
    if not lines:
        raise SystemExit("expected %s for %s, got no problem" % (code, package))
    first = lines[0].split(" ", 6)
    if first[1] != code or first[2] != field or first[5] != package or \
            not all(w in first[6] for w in words):
        raise SystemExit("expected %s %s %s %s, got %s" % (code, field, package, words, lines[0]))


def part_refusals(tool, fixtures):
    pypi = ["https://pypi.org/simple"]
    lock = "spec.build.dependencyFile.lockContent"
    # the lock holds django 5.2.7; asking for >=6 is drift uv lock --check reports
    expect(tool, edited(fixtures, "chonkie-140-error", '"django>=5.2.7"', '"django>=6"'),
           "3.13.7", pypi, "DL_ENV_RESOLVE_CONFLICT", lock, "django", ["5.2.7", ">=6"])
    expect(tool, edited(fixtures, "chonkie-140-error", '"django>=5.2.7",', '"django>=5.2.7",\n    "rich",'),
           "3.13.7", pypi, "DL_ENV_RESOLVE_CONFLICT", lock, "rich", ["not in uv.lock"])
    expect(tool, edited(fixtures, "chonkie-140-error", '    "requests>=2.32.5",\n', ''),
           "3.13.7", pypi, "DL_ENV_RESOLVE_CONFLICT", lock, "requests", ["no longer asks"])
    # as recorded: consistent, so the first problem is the editable path dependency
    d = os.path.join(fixtures, "aoe2")
    expect(tool, (os.path.join(d, "pyproject.toml"), os.path.join(d, "uv.lock")), "3.13.7",
           pypi, "DL_ENV_CAPABILITY_UNSUPPORTED", lock, "mgz", ["editable", "aoc-mgz"])
    d = os.path.join(fixtures, "fast-dev-cli")
    expect(tool, (os.path.join(d, "pyproject.toml"), os.path.join(d, "uv.lock")), "3.12.9",
           pypi, "DL_ENV_SPEC_INVALID", lock, "anyio", ["mirrors.cloud.tencent.com"])
    # uv.lock's requires-python is >=3.10: a 3.9 target is not the project's
    lines = problems(dump(tool, os.path.join(d, "pyproject.toml"), os.path.join(d, "uv.lock"),
                          "3.9.18", "linux", ["https://mirrors.cloud.tencent.com/pypi/simple/"]))
    if not lines or not lines[0].startswith("problem DL_ENV_RESOLVE_CONFLICT " + lock + " 2 ") \
            or ">=3.10" not in lines[0]:
        raise SystemExit("requires-python: %s" % lines[:1])
    # consistent and from the spec's index: nothing to say
    d = os.path.join(fixtures, "chonkie-140-error")
    got = problems(dump(tool, os.path.join(d, "pyproject.toml"), os.path.join(d, "uv.lock"),
                        "3.13.7", "linux", pypi))
    if got:
        raise SystemExit("chonkie-140-error as recorded: %s" % got)
    print("refusals: version drift, added, removed, editable, foreign registry, "
          "requires-python")


def chain_lock(n):
    """A uv.lock-shaped chain: the project -> p0 -> p1 ... -> p(n-1), each
    edge asking for an extra that leads back to p0."""
    out = ['version = 1\n\n[[package]]\nname = "proj"\nversion = "0"\n'
           'source = { virtual = "." }\ndependencies = [{ name = "p0" }]\n']
    for i in range(n):
        nxt = '{ name = "p%d", extra = ["x"] }' % (i + 1) if i + 1 < n else ""
        out.append('\n[[package]]\nname = "p%d"\nversion = "1"\n'
                   'source = { registry = "https://pypi.org/simple" }\n'
                   'dependencies = [%s]\nsdist = { hash = "sha256:%064x" }\n'
                   '[package.optional-dependencies]\nx = [{ name = "p0" }]\n' % (i, nxt, i))
    return "".join(out)


def fan_lock(n):
    """The project asks for n packages directly, pyproject.toml too."""
    names = ["p%d" % i for i in range(n)]
    lock = ['version = 1\n\n[[package]]\nname = "proj"\nversion = "0"\n'
            'source = { virtual = "." }\ndependencies = [\n' +
            "".join('    { name = "%s" },\n' % m for m in names) +
            ']\n\n[package.metadata]\nrequires-dist = [\n' +
            "".join('    { name = "%s", specifier = ">=1" },\n' % m for m in names) + ']\n']
    for i, m in enumerate(names):
        lock.append('\n[[package]]\nname = "%s"\nversion = "1"\n'
                    'source = { registry = "https://pypi.org/simple" }\n'
                    'sdist = { hash = "sha256:%064x" }\n' % (m, i))
    py = '[project]\nname = "proj"\ndependencies = [\n' + "".join(
        '    "%s>=1",\n' % m for m in names) + "]\n"
    return py, "".join(lock)


def part_sizes(tool):
    """A uv.lock of some 11,000 packages (the 1 MiB a spec may carry holds
    no more): a chain as deep, and a project asking for all of them, each
    selected whole, without drift, in linear time (a scan per edge was
    minutes and gigabytes; a recursion per edge, a stack per package)."""
    import time
    tmp = tempfile.mkdtemp()
    n = 11000
    cases = [("chain", '[project]\nname = "proj"\n', chain_lock(n)), ("fan",) + fan_lock(n)]
    for name, py, lock in cases:
        pp, lp = os.path.join(tmp, name + ".toml"), os.path.join(tmp, name + ".lock")
        open(pp, "w").write(py)
        open(lp, "w").write(lock)
        t = time.monotonic()
        lines = dump(tool, pp, lp, "3.13.7", "linux", ["https://pypi.org/simple"])
        took = time.monotonic() - t
        pkgs = [l for l in lines if l.startswith("pkg ")]
        if len(pkgs) != n or problems(lines) or took > 20:
            raise SystemExit("%s: %d packages, %d problems (%s), %.1f s" %
                             (name, len(pkgs), len(problems(lines)), problems(lines)[:2], took))
        print("%s: %d packages in %.2f s" % (name, n, took))


# Two records of one pair of packages, as uv writes them when a dependency
# is asked twice (PEP 508 lets a project list one name under several
# markers, each with its own extras): `app` needs `lib` on Linux, and
# `lib[fast]` where Python is at least 3.8. Both hold on the target, so
# both are edges of the lock (uv installs lib with its `fast` extra).
TWICE_PY = '[project]\nname = "proj"\ndependencies = ["app>=1"]\n'
TWICE_LOCK = """version = 1
revision = 3
requires-python = ">=3.8"

[[package]]
name = "app"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "lib", marker = "sys_platform == 'linux'" },
    { name = "lib", extra = ["fast"], marker = "python_full_version >= '3.8'" },
    { name = "lib", marker = "sys_platform == 'win32'" },
]
sdist = { hash = "sha256:%s" }

[[package]]
name = "lib"
version = "2.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "speedup" }]
sdist = { hash = "sha256:%s" }

[package.optional-dependencies]
fast = [{ name = "speedup", marker = "sys_platform == 'linux'" }]

[[package]]
name = "proj"
version = "0"
source = { virtual = "." }
dependencies = [{ name = "app" }]

[package.metadata]
requires-dist = [{ name = "app", specifier = ">=1" }]

[[package]]
name = "speedup"
version = "3.0"
source = { registry = "https://pypi.org/simple" }
sdist = { hash = "sha256:%s" }
""" % ("1" * 64, "2" * 64, "3" * 64)


def part_edges(tool):
    tmp = tempfile.mkdtemp()
    pp, lp = os.path.join(tmp, "pyproject.toml"), os.path.join(tmp, "uv.lock")
    open(pp, "w").write(TWICE_PY)
    open(lp, "w").write(TWICE_LOCK)
    got = [l for l in dump(tool, pp, lp, "3.13.7", "linux", ["https://pypi.org/simple"])
           if l.startswith(("edge ", "problem "))]
    # each record whose marker holds on Linux, 3.13 (the win32 one does not);
    # lib's own speedup edge and its `fast` extra's are two records too
    want = ["edge - app app",
            "edge app lib lib; sys_platform == 'linux'",
            "edge app lib lib[fast]; python_full_version >= '3.8'",
            "edge lib speedup speedup",
            "edge lib speedup speedup; sys_platform == 'linux'"]
    if sorted(got) != sorted(want):
        raise SystemExit("edges:\n envlock %s\n uv.lock %s" % (got, want))
    print("edges: both records of app -> lib kept, the win32 one left out")


def main():
    tool, fixtures = sys.argv[1], sys.argv[2]
    part_edges(tool)
    part_select(tool, fixtures)
    part_refusals(tool, fixtures)
    part_sizes(tool)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""requirements_source.py ENVLOCK PART — `build.source: dependencyFile`
with `sourceFormat: requirements` (issue 20), on the demo mirror
(corpus/demo/mirror over file://).

  equivalence  a requirements file and the packages spec with the same
               requirements resolve to the same lock but for `specDigest`;
               check, plan (every file but the lock stamp), export and
               bundle take it as they take the packages lock.
  pip          pip's own reading of the same content
               (`pip install --dry-run --report`, pip run by a Python 3.13,
               the target's minor, so markers evaluate as on the target)
               against the same mirror chooses exactly the lock's packages
               that the base does not hold; skipped (77) without it.
  prefer_binary  --prefer-binary on a small index where the newest lib has
               only an sdist: pip's documented order (an older wheel before
               a newer sdist), `preferBinary` in the lock's options, and
               Debian's pip (`pip install --dry-run --report --prefer-binary`
               against the same index) choosing the same set.
  check_options  check against a spec whose file's --pre, --only-binary,
               --no-binary or --prefer-binary differ from the lock's options:
               stale (exit 1) with a line naming the option, text and
               --json; options given on resolve's command line are no
               change.
  refusals     at resolve time: a hash the index does not serve
               (RESOLVE_CONFLICT naming `content[0]`, the spec line and the
               served hash), a dependency without a hash in hash-checking
               mode, a protected pin the file excludes (PROTECTED_PACKAGE
               at `content[i]` and its spec line), --pre and --only-binary
               recorded in the lock's options, and a pyproject source whose
               uv.lock has no package for the project.
Expected values come from pip's documented requirements-file format, the
mirror's own files and the catalog, not from envlock's output."""

import hashlib
import json
import os
import re
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
SIMPLE = os.path.join(MIRROR, "pypi", "pypi", "simple")
PY313 = "/root/.pyenv/versions/3.13.0/bin/python3"

HEAD = specs.spec_head("reqs")

REQS = """# the demo's Python part, as pip reads it
--index-url https://pypi.org/simple/
requests[socks]>=2.31   # with SOCKS
pandas==2.2.3 \\
    ; python_version >= "3.9"
jupyter-server>=2.19
tomli; python_version < "3.11"
"""
# the same requirements as a packages spec: pip's continuation joins the
# pandas lines; the comment and the option line are not requirements
PACKAGES = ["requests[socks]>=2.31", 'pandas==2.2.3 ; python_version >= "3.9"',
            "jupyter-server>=2.19", 'tomli; python_version < "3.11"']


def reqs_spec(content, extra=""):
    body = "".join("        " + ln + "\n" for ln in content.splitlines())
    return HEAD + extra + ("  build:\n    source: dependencyFile\n    dependencyFile:\n"
                           "      sourceFormat: requirements\n      content: |\n") + body


def packages_spec(deps):
    return HEAD + "  packages:\n    python:\n      dependencies:\n" + "".join(
        "        - %s\n" % json.dumps(d) for d in deps)


class Fail(Exception):
    pass


def run(envlock, work, args):
    cmd = [envlock, "--json", "--cache-dir", os.path.join(work, "cache")]
    if args[0] != "plan":  # a plan takes no file:// mirror (docs/cli.md, plan)
        cmd += ["--mirror", "https://pypi.org=file://" + os.path.join(MIRROR, "pypi", "pypi")]
    cmd += args
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


def resolve(envlock, work, name, text, want_rc=0):
    spec = write(work, name + ".yaml", text)
    lock = os.path.join(work, name + ".lock")
    rc, js, out = run(envlock, work, ["resolve", "--bases", BASES, spec, "-o", lock])
    if rc != want_rc:
        raise Fail("%s: resolve exited %d, expected %d: %s" % (name, rc, want_rc, out))
    return spec, lock, js


def part_equivalence(envlock, work):
    s_req, l_req, _ = resolve(envlock, work, "reqs", reqs_spec(REQS))
    s_pkg, l_pkg, _ = resolve(envlock, work, "pkgs", packages_spec(PACKAGES))
    a = [ln for ln in open(l_req) if not ln.startswith("specDigest:")]
    b = [ln for ln in open(l_pkg) if not ln.startswith("specDigest:")]
    if a != b:
        raise Fail("the locks differ beyond specDigest")
    if open(l_req).read() == open(l_pkg).read():
        raise Fail("the locks do not even differ in specDigest")
    rc, js, out = run(envlock, work, ["check", "--bases", BASES, s_req, l_req])
    if rc != 0:
        raise Fail("check of the requirements lock exited %d: %s" % (rc, out))
    # a changed line is a changed spec
    s2 = write(work, "reqs2.yaml", reqs_spec(REQS.replace(">=2.31", ">=2.30")))
    rc, js, out = run(envlock, work, ["check", "--bases", BASES, s2, l_req])
    if rc != 1:
        raise Fail("check after a changed line exited %d, expected 1: %s" % (rc, out))
    for name, spec, lock in (("reqs", s_req, l_req), ("pkgs", s_pkg, l_pkg)):
        rc, js, out = run(envlock, work, ["plan", "--bases", BASES, spec, lock, "-o",
                                          os.path.join(work, "plan-" + name)])
        if rc != 0:
            raise Fail("plan of %s exited %d: %s" % (name, rc, out))
    # the plans name their lock by its digest; apart from that, the same
    digest = {n: "sha256:" + hashlib.sha256(open(l, "rb").read()).hexdigest()
              for n, l in (("pkgs", l_pkg), ("reqs", l_req))}
    compared = 0
    for dirpath, _dirs, files in os.walk(os.path.join(work, "plan-pkgs")):
        for f in files:
            p = os.path.join(dirpath, f)
            q = p.replace("plan-pkgs", "plan-reqs")
            if f == ".envlock-plan":
                continue  # the files' own digests, which carry the lock's
            a = open(p).read().replace(digest["pkgs"], "LOCK")
            b = open(q).read().replace(digest["reqs"], "LOCK")
            if f == "sbom.cdx.json":  # its serial is a UUID of the lock digest (docs/plans.md)
                a, b = (re.sub(r'"serialNumber": "urn:uuid:[0-9a-f-]+"', "SERIAL", t) for t in (a, b))
            if a != b:
                raise Fail("plan file %s differs" % os.path.relpath(q, work))
            compared += 1
    if compared < 4:
        raise Fail("only %d plan files compared" % compared)
    rc, js, out = run(envlock, work, ["export", l_req, "--format", "requirements", "--bases",
                                      BASES, "-o", os.path.join(work, "reqs.txt")])
    if rc != 0:
        raise Fail("export exited %d: %s" % (rc, out))
    rc, js, out = run(envlock, work, ["bundle", l_req, "-o", os.path.join(work, "bundle")])
    if rc != 0:
        raise Fail("bundle exited %d: %s" % (rc, out))
    print("equivalence: same lock but specDigest; check, plan, export, bundle pass")


def mirror_sha256(filename):
    with open(os.path.join(MIRROR, "pypi", "pypi", "files", filename), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def locked_outside_base(lock):
    doc = yaml.safe_load(open(lock))
    return {p["name"]: p["version"] for p in doc["packages"]
            if p["ecosystem"] == "pypi" and not p.get("installedInBase")}


def pip_choice(work, content):
    req = write(work, "pip-requirements.txt", content)
    report = os.path.join(work, "report.json")
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
    env.pop("PIP_FIND_LINKS", None)  # the machine sets it
    cmd = [PY313, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
           "--target", os.path.join(work, "target"), "--report", report,
           "--index-url", "file://" + SIMPLE, "--python-version", "3.13",
           "--implementation", "cp", "--abi", "cp313", "--platform", "manylinux_2_36_x86_64",
           "--platform", "manylinux_2_17_x86_64", "--only-binary", ":all:", "-r", req]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise Fail("pip failed: %s" % p.stderr)
    got = json.load(open(report))["install"]
    return {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in got}


PIP_CASES = {
    # no protected package: pip would look for the base's copy on the index
    "plain": "requests[socks]>=2.31\npandas==2.2.3 ; python_version >= \"3.9\"\n"
             "tomli; python_version < \"3.11\"  # not on 3.13\n",
    "continued": "# comment\nrequests \\\n  [socks] \\\n  >=2.31\n\n   # indented comment\n"
                 "idna<4 \\\n# a comment ends the continuation\n",
    "hashes": "certifi==2025.4.26 \\\n    --hash=sha256:%s\nidna==3.10 --hash=sha256:%s\n"
              % (mirror_sha256("certifi-2025.4.26-py3-none-any.whl"),
                 mirror_sha256("idna-3.10-py3-none-any.whl")),
    "options": "--only-binary :all:\n--pre\nurllib3>=2\n",
}


def part_pip(envlock, work):
    if not os.access(PY313, os.X_OK):
        print("SKIP: no Python 3.13 to run pip with")
        sys.exit(77)
    for name, content in sorted(PIP_CASES.items()):
        _s, lock, _ = resolve(envlock, work, "pip-" + name, reqs_spec(content))
        want = locked_outside_base(lock)
        got = pip_choice(work, content)
        canon = {k.replace("_", "-").replace(".", "-"): v for k, v in got.items()}
        if canon != want:
            raise Fail("%s: pip installs %s, the lock %s" % (name, sorted(canon.items()),
                                                            sorted(want.items())))
        print("pip %s: %s" % (name, " ".join("%s==%s" % kv for kv in sorted(want.items()))))


def expect_error(envlock, work, name, text, rc, code, field, line=None):
    spec, lock, js = resolve(envlock, work, name, text, want_rc=rc)
    if not js or js.get("code") != code:
        raise Fail("%s: %s, expected %s" % (name, js, code))
    d = js.get("detail", {})
    if d.get("field") != field:
        raise Fail("%s: field %s, expected %s" % (name, d.get("field"), field))
    if line is not None and d.get("line") != line:
        raise Fail("%s: line %s, expected %s" % (name, d.get("line"), line))
    if os.path.exists(lock):
        raise Fail("%s: a lock was written" % name)
    return js


def part_refusals(envlock, work):
    certifi = mirror_sha256("certifi-2025.4.26-py3-none-any.whl")
    idna = mirror_sha256("idna-3.10-py3-none-any.whl")
    # content line 1 is spec line 16 (HEAD has 10 lines, the build block 5)
    js = expect_error(envlock, work, "hash-wrong",
                      reqs_spec("certifi==2025.4.26 --hash=sha256:%s\nidna==3.10 --hash=sha256:%s\n"
                                % ("0" * 64, idna)),
                      12, "DL_ENV_RESOLVE_CONFLICT", "spec.build.dependencyFile.content[0]", 16)
    if js["detail"].get("served") != "sha256:" + certifi:
        raise Fail("hash-wrong: served %s, the mirror's file has %s" % (js["detail"], certifi))
    expect_error(envlock, work, "hash-transitive",
                 reqs_spec("idna==3.10 --hash=sha256:%s\nrequests==2.32.3 --hash=sha256:%s\n"
                           % (idna, mirror_sha256("requests-2.32.3-py3-none-any.whl"))),
                 12, "DL_ENV_RESOLVE_CONFLICT", "spec.build.dependencyFile.content")
    # the catalog pins jupyter-server==2.21.0+datalayer.1; line 3 is spec line 18
    expect_error(envlock, work, "protected",
                 reqs_spec("idna\n# a comment\njupyter-server<2.20\n"),
                 14, "DL_ENV_PROTECTED_PACKAGE", "spec.build.dependencyFile.content[1]", 18)
    _s, lock, _ = resolve(envlock, work, "options",
                          reqs_spec("--pre\n--only-binary=:all:\n--no-binary Numpy\nidna\n"))
    opts = yaml.safe_load(open(lock)).get("options", {})
    if opts.get("prereleases") != "allow" or opts.get("onlyBinary") != [":all:"] or \
            opts.get("noBinary") != ["numpy"]:
        raise Fail("options: the lock records %s" % opts)
    pyproject = HEAD + ("  build:\n    source: dependencyFile\n    dependencyFile:\n"
                        "      sourceFormat: pyproject\n      content: \"[project]\"\n"
                        "      lockContent: \"version = 1\"\n")
    # a pyproject source is resolved now (pyproject_source.py); a uv.lock
    # without the project's own package is not this project's lock
    expect_error(envlock, work, "pyproject", pyproject, 10, "DL_ENV_SPEC_INVALID",
                 "spec.build.dependencyFile.lockContent")
    print("refusals: hash, transitive hash, protected pin, options recorded, pyproject")


def check_lines(envlock, work, name, content, lock, want):
    """check of `lock` against a spec with `content`: (rc, changes)."""
    spec = write(work, name + ".yaml", reqs_spec(content))
    rc, js, out = run(envlock, work, ["check", "--bases", BASES, spec, lock])
    objs = (js or {}).get("changes") if js else None
    changes = [c["text"] for c in objs] if objs is not None else None
    for c in objs or []:  # an option's change names it and its two values
        if c["text"].startswith("option ") and not (
                c["kind"] == "option" and c["path"] == "options." + c["text"].split()[1] and
                c["text"].endswith("%s -> %s" % (c["before"], c["after"]))):
            raise Fail("%s: the option change as an object: %s" % (name, c))
    if rc != (1 if want else 0) or changes is None or not all(w in changes for w in want) or \
            (js.get("valid") is not (not want)):
        raise Fail("%s: check exited %d, expected %d with %s: %s"
                   % (name, rc, 1 if want else 0, want, out))
    if want:  # the text form says the same lines
        p = subprocess.run([envlock, "--cache-dir", os.path.join(work, "cache"), "--mirror",
                            "https://pypi.org=file://" + os.path.join(MIRROR, "pypi", "pypi"),
                            "check", "--bases", BASES, spec, lock],
                           capture_output=True, text=True, cwd=work, timeout=300)
        if p.returncode != 1 or not all(w in p.stdout + p.stderr for w in want):
            raise Fail("%s: check (text) exited %d without %s: %s"
                       % (name, p.returncode, want, p.stdout + p.stderr))


def part_check_options(envlock, work):
    """The lock's options (docs/lock-format.md: prereleases, onlyBinary,
    noBinary, preferBinary) against the file's options now: check's lines
    are `option NAME changed: LOCK -> NOW`."""
    _s, plain, _ = resolve(envlock, work, "plain", reqs_spec("idna\n"))
    check_lines(envlock, work, "same", "idna\n", plain, [])
    for name, content, want in (
            ("pre", "--pre\nidna\n", "option prereleases changed: if-necessary-or-explicit -> allow"),
            ("only", "--only-binary :all:\nidna\n", "option onlyBinary changed: [] -> [:all:]"),
            ("no", "--no-binary Numpy\nidna\n", "option noBinary changed: [] -> [numpy]"),
            ("prefer", "--prefer-binary\nidna\n", "option preferBinary changed: false -> true")):
        check_lines(envlock, work, name, content, plain, [want])
    _s, pref, _ = resolve(envlock, work, "pref", reqs_spec("--prefer-binary\nidna\n"))
    check_lines(envlock, work, "pref-same", "--prefer-binary\nidna\n", pref, [])
    check_lines(envlock, work, "pref-dropped", "idna\n", pref,
                ["option preferBinary changed: true -> false"])
    # the command line's options are the lock's, not the file's: no change
    spec = write(work, "cli.yaml", reqs_spec("idna\n"))
    cli = os.path.join(work, "cli.lock")
    rc, js, out = run(envlock, work, ["resolve", "--bases", BASES, "--only-binary", "idna",
                                      "--prerelease", "allow", spec, "-o", cli])
    if rc != 0:
        raise Fail("resolve with --only-binary idna: %s" % out)
    check_lines(envlock, work, "cli-same", "idna\n", cli, [])
    check_lines(envlock, work, "cli-added", "--only-binary :all:\nidna\n", cli,
                ["option onlyBinary changed: [idna] -> [:all:, idna]"])
    print("check_options: --pre, --only-binary, --no-binary, --prefer-binary (added and "
          "dropped) named; the command line's options no change")


PREFER = os.path.join(ROOT, "corpus", "scenarios", "reqfile-prefer-binary.scn")
PREFER_REQS = "--prefer-binary\napp\nlib\nboth\nsrconly\nneedy\n"


def pip_prefer(work, mirror, content):
    """pip's own answer on the same index: Debian's pip under /usr/bin/python3
    with its setuptools (--no-build-isolation: the newest srconly and srcdep
    have only sdists, whose metadata pip builds; nothing here is fetched
    from elsewhere), no configuration, no PIP_FIND_LINKS, the target's
    markers not involved (the fixture has none). None when it cannot run."""
    py = "/usr/bin/python3"
    for probe in (["-c", "import setuptools"], ["-m", "pip", "--version"]):
        if subprocess.run([py] + probe, capture_output=True).returncode:
            return None
    req = write(work, "prefer-pip.txt", content)
    report = os.path.join(work, "prefer-report.json")
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, HOME=os.path.join(work, "home"))
    env.pop("PIP_FIND_LINKS", None)
    cmd = [py, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
           "--no-cache-dir", "--no-build-isolation", "--break-system-packages",
           "--report", report, "--index-url", "file://" + mirror + "/simple", "-r", req]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise Fail("pip failed: %s" % p.stderr)
    return {i["metadata"]["name"].lower(): i["metadata"]["version"]
            for i in json.load(open(report))["install"]}


def part_prefer_binary(envlock, work):
    """--prefer-binary on corpus/scenarios/reqfile-prefer-binary.scn's index
    (lib 2.0 has only an sdist, 1.5 a wheel): the lock takes what pip's
    documented order takes (an older wheel before a newer sdist, an sdist
    version where no wheel version fits), records the option, and without
    it takes the newest version as pip does."""
    mirror_dir = os.path.join(work, "mirror")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "fixtures", "build_mirror.py"),
                    PREFER, "--out", mirror_dir, "--no-apt"], check=True, capture_output=True)
    pypi = os.path.join(mirror_dir, "pypi", "pypi")
    want = {"app": "1.0", "lib": "1.5", "both": "2.0", "srconly": "3.0", "needy": "1.0",
            "srcdep": "2.0"}
    for name, content, expect in (("prefer", PREFER_REQS, want),
                                  ("newest", PREFER_REQS.replace("--prefer-binary\n", ""),
                                   dict(want, lib="2.0"))):
        spec = write(work, name + ".yaml", reqs_spec(content))
        lock = os.path.join(work, name + ".lock")
        cmd = [envlock, "--json", "--cache-dir", os.path.join(work, "cache"), "--mirror",
               "https://pypi.org=file://" + pypi, "resolve", "--bases", BASES, spec, "-o", lock]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=work, timeout=300)
        if p.returncode != 0:
            raise Fail("%s: resolve exited %d: %s" % (name, p.returncode, p.stdout + p.stderr))
        got = locked_outside_base(lock)
        if got != expect:
            raise Fail("%s: the lock holds %s, pip's order gives %s" % (
                name, sorted(got.items()), sorted(expect.items())))
        opts = yaml.safe_load(open(lock)).get("options", {})
        if opts.get("preferBinary") is not (True if name == "prefer" else None):
            raise Fail("%s: the lock's options %s" % (name, opts))
        pip = pip_prefer(work, pypi, content)
        if pip is not None and pip != got:
            raise Fail("%s: pip installs %s, the lock %s" % (name, sorted(pip.items()),
                                                            sorted(got.items())))
        print("%s: %s%s" % (name, " ".join("%s==%s" % kv for kv in sorted(got.items())),
                            "" if pip is None else " (pip agrees)"))


def main():
    envlock, part = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="reqs-source-")
    try:
        {"equivalence": part_equivalence, "pip": part_pip, "refusals": part_refusals,
         "prefer_binary": part_prefer_binary, "check_options": part_check_options}[part](envlock, work)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

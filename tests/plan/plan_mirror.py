#!/usr/bin/env python3
"""plan_mirror.py ENVLOCK — `envlock plan` with the site's mirrors
(issue 9): the install steps read the mapped indexes, nothing else moves.

The demo (corpus/demo/demo.yaml: PyPI, npm and apt) is resolved from the
committed mirror through file:// and planned for every variant twice: with
no mirror, and with the three canonical sources the lock's installs name
mapped to an on-prem host. What the mapping must change is worked out
from the lock (its package sources) and the mapping rule of
include/envlock/cache.h (the longest CANONICAL prefix at a path boundary
replaced by its URL), never from envlock's output:
  - each Dockerfile's and modal_image.py's Python step reads the mapped
    index (`--index-url`), its npm step the mapped registry
    (`--registry`); every other byte of those files is the same;
  - apt-sources.list: each `deb` line's URI is the mapped one;
  - package-lock.json: unchanged, or each `resolved` URL mapped (npm ci
    swaps the registry host of registry.npmjs.org URLs itself);
  - every other file (lock.txt, requirements.txt, apt-packages.txt,
    package.json, expected-packages.json, template.json) byte-identical,
    the lock and its digest untouched, and no file names the canonical
    index URL in an install step any more.
Only --mirror maps a plan: the same mapping given by ENVLOCK_MIRRORS or a
mirrors file (configured for resolving) gives the plain plans, and a
--mirror onto file:// is a usage error (exit 2) that writes nothing; a mapping that matches none of the lock's
sources, or none at all, gives exactly the plain plans; the longest
prefix wins over a shorter one; a malformed mapping is a usage error
(exit 2) and writes nothing."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")
APT = "https://snapshot.debian.org/archive/debian/20260914T150000Z"
SITE = "http://mirror.site.example:8080"
# The site's mapping: CANONICAL -> URL (include/envlock/cache.h)
MAPPING = {"https://pypi.org": SITE + "/pypi/pypi",
           "https://registry.npmjs.org": SITE + "/npm",
           APT: SITE + "/apt/debian"}
STEP_FILES = ("Dockerfile", "e2b.Dockerfile", "modal_image.py")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def env(extra=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = "/nonexistent"
    e["XDG_CONFIG_HOME"] = "/nonexistent"
    e.update(extra or {})
    return e


def run(el, args, extra_env=None):
    return subprocess.run([el] + args, env=env(extra_env), capture_output=True, text=True, timeout=300)


def mapped(url, mapping):
    """The mapping rule: the longest CANONICAL that is a prefix of url at a
    path boundary (followed by nothing, /, ? or #) is replaced by its URL
    (trailing slashes of both sides dropped)."""
    best = None
    for c, t in mapping.items():
        c = c.rstrip("/")
        if url.startswith(c) and (len(url) == len(c) or url[len(c)] in "/?#"):
            if best is None or len(c) > len(best[0]):
                best = (c, t.rstrip("/"))
    return best[1] + url[len(best[0]):] if best else url


def lock_sources(path):
    """{ecosystem: [source, ...]} of the packages the plan installs (the
    lock's block layout, docs/lock-format.md)."""
    out, eco, in_base = {}, None, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("- ecosystem: "):
            eco, in_base = line.split(": ", 1)[1].strip(), False
        elif line.startswith("  installedInBase: true"):
            in_base = True
        elif line.startswith("  source: ") and eco and not in_base:
            out.setdefault(eco, []).append(json.loads(line.split(": ", 1)[1]))
    return out


def plan(el, lock, out, mirrors=(), extra_env=None):
    r = run(el, ["--json"] + list(mirrors) + ["plan", DEMO, lock, "--bases", BASES, "--variant", "all",
                                              "-o", out], extra_env)
    return r


def files_of(d):
    out = {}
    for dp, _dn, fn in os.walk(d):
        for f in fn:
            if f == ".envlock-plan":  # the plan's manifest of its own files (plan_hostile.py)
                continue
            p = os.path.join(dp, f)
            out[os.path.relpath(p, d)] = open(p, "rb").read().decode("utf-8")
    return out


def expected_step_file(text, srcs, mapping):
    """The plain file with the step arguments mapped: `--index-url SRC`,
    `--extra-index-url SRC` and `--registry SRC` (in the shell text of a
    Dockerfile, or inside a Python string of the modal module)."""
    for flag in ("--index-url", "--extra-index-url"):
        for s in srcs.get("pypi", []):
            text = text.replace("%s %s " % (flag, s), "%s %s " % (flag, mapped(s, mapping)))
    for s in set(srcs.get("npm", [])):
        text = text.replace("--registry %s " % s, "--registry %s " % mapped(s, mapping))
    return text


def expected_sources_list(text, mapping):
    out = []
    for line in text.split("\n"):
        m = re.match(r"^(deb(?: \[[^\]]*\])? )(\S+)( .*)$", line)
        out.append(m.group(1) + mapped(m.group(2), mapping) + m.group(3) if m else line)
    return "\n".join(out)


def package_lock_problems(name, plain, got, mapping):
    a, b = json.loads(plain), json.loads(got)
    problems = []
    for path in sorted(set(a.get("packages", {})) | set(b.get("packages", {}))):
        pa, pb = a["packages"].get(path), b["packages"].get(path)
        if pa is None or pb is None:
            problems.append("%s: entry %s only in one plan" % (name, path))
            continue
        ra, rb = pa.get("resolved"), pb.get("resolved")
        if ra != rb and rb != mapped(ra or "", mapping):
            problems.append("%s: %s resolves to %s; plain %s, mapped %s" % (name, path, rb, ra,
                                                                          mapped(ra or "", mapping)))
        if {k: v for k, v in pa.items() if k != "resolved"} != {k: v for k, v in pb.items() if k != "resolved"}:
            problems.append("%s: %s differs beyond `resolved`" % (name, path))
    if {k: v for k, v in a.items() if k != "packages"} != {k: v for k, v in b.items() if k != "packages"}:
        problems.append("%s: differs outside `packages`" % name)
    return problems


def compare(tag, plain, got, srcs, mapping):
    """Problems of plan `got` against what the mapping makes of `plain`."""
    problems = []
    if set(plain) != set(got):
        problems.append("%s: files %s, the plain plan has %s" % (tag, sorted(got), sorted(plain)))
    for name in sorted(set(plain) & set(got)):
        base = os.path.basename(name)
        if base in STEP_FILES:
            want = expected_step_file(plain[name], srcs, mapping)
        elif base == "apt-sources.list":
            want = expected_sources_list(plain[name], mapping)
        elif base == "package-lock.json":
            problems += ["%s: %s" % (tag, p) for p in package_lock_problems(name, plain[name], got[name], mapping)]
            continue
        else:
            want = plain[name]
        if got[name] != want:
            diff = [(a, b) for a, b in zip(want.split("\n"), got[name].split("\n")) if a != b][:3]
            problems.append("%s: %s is not the mapped plain file; first differences (want, got): %s"
                            % (tag, name, diff))
    return problems


def check_mapped_really(tag, got, srcs, mapping):
    """The mapped URLs must appear in the step files and sources (so the
    comparison above cannot pass by both plans lacking the steps)."""
    problems = []
    for name, text in sorted(got.items()):
        base = os.path.basename(name)
        if base in STEP_FILES:
            for s in set(srcs.get("pypi", [])):
                if "--index-url %s " % mapped(s, mapping) not in text:
                    problems.append("%s: %s does not read the mapped index %s" % (tag, name, mapped(s, mapping)))
            for s in set(srcs.get("npm", [])):
                if "--registry %s " % mapped(s, mapping) not in text:
                    problems.append("%s: %s does not read the mapped registry %s" % (tag, name, mapped(s, mapping)))
        if base == "apt-sources.list":
            for s in set(srcs.get("deb", [])):
                uri = mapped(s.split()[0], mapping)
                if " %s " % uri not in text:
                    problems.append("%s: %s has no source at %s" % (tag, name, uri))
    return problems


def main():
    el = sys.argv[1]
    work = tempfile.mkdtemp(prefix="envlock-plan-mirror-")
    try:
        lock = os.path.join(work, "demo.lock")
        r = run(el, ["--cache-dir", os.path.join(work, "cache"),
                     "--mirror", "https://pypi.org=file://%s/pypi/pypi" % MIRROR,
                     "--mirror", "https://registry.npmjs.org=file://%s/npm" % MIRROR,
                     "--mirror", "%s=file://%s/apt" % (APT, MIRROR),
                     "resolve", DEMO, "--bases", BASES, "-o", lock])
        if r.returncode != 0:
            fail("resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
            return 1
        lock_bytes = open(lock, "rb").read()
        digest = "sha256:" + hashlib.sha256(lock_bytes).hexdigest()
        srcs = lock_sources(lock)
        if sorted(srcs) != ["deb", "npm", "pypi"]:
            fail("the demo lock installs from %s; the test needs pypi, npm and deb" % sorted(srcs))
            return 1
        run_cases(el, work, lock, digest, srcs)
        if open(lock, "rb").read() != lock_bytes:
            fail("planning changed the lock")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def planned(el, work, lock, digest, tag, mirrors=(), extra_env=None):
    out = os.path.join(work, "plan-" + tag)
    r = plan(el, lock, out, mirrors, extra_env)
    if r.returncode != 0:
        fail("%s: plan exited %d: %s" % (tag, r.returncode, (r.stdout + r.stderr).strip()))
        return None
    js = json.loads(r.stdout)
    if js["lockDigest"] != digest:
        fail("%s: the plan names lock %s, the lock is %s" % (tag, js["lockDigest"], digest))
    return files_of(out)


def run_cases(el, work, lock, digest, srcs):
    plain = planned(el, work, lock, digest, "plain")
    if plain is None:
        return
    flags = [a for c, t in sorted(MAPPING.items()) for a in ("--mirror", "%s=%s" % (c, t))]
    pairs = ["%s=%s" % kv for kv in sorted(MAPPING.items())]
    cfg = os.path.join(work, "config")
    os.makedirs(cfg)
    with open(os.path.join(cfg, "mirrors"), "w") as f:
        f.write("# the site's mirrors\n" + "\n".join(pairs) + "\n")
    got = planned(el, work, lock, digest, "flag", flags)
    if got is not None:
        problems = compare("flag", plain, got, srcs, MAPPING) + check_mapped_really("flag", got, srcs, MAPPING)
        for p in problems:
            fail(p)
        if not problems:
            print("flag: %d files; the install steps read %s" % (len(got), SITE))
    # Mirrors configured for resolving (issue 21) do not reach a plan: they
    # are often local copies (file://, a loopback server) no builder reaches.
    local = ["https://pypi.org=file://%s/pypi/pypi" % MIRROR]
    for tag, e in (("env", {"ENVLOCK_MIRRORS": " ".join(pairs)}), ("file", {"ENVLOCK_CONFIG": cfg}),
                   ("env-file-url", {"ENVLOCK_MIRRORS": " ".join(local)})):
        got = planned(el, work, lock, digest, tag, [], e)
        if got is not None and got != plain:
            fail("%s: a mirror configured for resolving changed the plans" % tag)
        elif got is not None:
            print("%s: the plans are the plain ones" % tag)
    file_mirror(el, work, lock)
    # a mapping of nothing the lock names: the plain plans, byte for byte
    other = planned(el, work, lock, digest, "unrelated", ["--mirror", "https://pypi.org/simplex=" + SITE])
    if other is not None and other != plain:
        fail("unrelated: a mapping of no source of the lock changed the plans")
    # the longest prefix wins: the simple index mapped apart from the host
    longer = dict(MAPPING, **{"https://pypi.org/simple": SITE + "/simple-only"})
    lflags = [a for c, t in sorted(longer.items()) for a in ("--mirror", "%s=%s" % (c, t))]
    got = planned(el, work, lock, digest, "longest", lflags)
    if got is not None:
        for p in compare("longest", plain, got, srcs, longer) + check_mapped_really("longest", got, srcs, longer):
            fail(p)
    malformed(el, work, lock)


def file_mirror(el, work, lock):
    """plan --mirror onto file:// is a usage error naming the mirror, and
    writes nothing: a builder cannot read the planning machine's paths."""
    out = os.path.join(work, "plan-file-url")
    target = "file://%s/pypi/pypi" % MIRROR
    r = plan(el, lock, out, ["--mirror", "https://pypi.org=" + target])
    if r.returncode != 2:
        fail("file mirror: plan exited %d, not 2 (usage): %s" % (r.returncode, (r.stdout + r.stderr).strip()))
    elif os.path.exists(out):
        fail("file mirror: the plan directory was written")
    else:
        d = json.loads(r.stdout).get("detail", {})
        if d.get("reason") != "plan_mirror_file" or d.get("mirror") != target:
            fail("file mirror: the error does not name the mirror: %s" % r.stdout.strip())


def malformed(el, work, lock):
    out = os.path.join(work, "plan-malformed")
    r = plan(el, lock, out, ["--mirror", "pypi.org=" + SITE])
    if r.returncode != 2:
        fail("malformed: plan exited %d, not 2 (usage): %s" % (r.returncode, (r.stdout + r.stderr).strip()))
    elif os.path.exists(out):
        fail("malformed: the plan directory was written")
    else:
        js = json.loads(r.stdout)
        if js.get("detail", {}).get("mirror") != "pypi.org=" + SITE:
            fail("malformed: the error does not name the mirror: %s" % r.stdout.strip())


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""bundle_stream.py ENVLOCK — `envlock bundle` streams large artifacts to
disk (cache.h's sink requests) instead of holding them in memory.

A fixture PyPI project with one 96 MiB wheel (build_mirror's
`wheel-padding:`, incompressible bytes) beside the demo scenario, served by
nginx on 127.0.0.1, resolved, then bundled with the cache's in-memory cap
set to 4 MiB (ENVLOCK_MAX_BYTES), a 24th of the wheel:
  streamed    the bundle completes, the wheel in DIR has the sha256 hashlib
              computes over the served file, and the run's peak RSS
              (GNU time's %M, a property of the run, not a time) is
              under half the wheel's size; a held body would need all of it,
              and the cap would refuse it (too_large)
  reuse       a second bundle into a fresh DIR with the same cache fetches
              the wheel from no server (network bytes under its size) and
              writes the same bytes
  truncated   a proxy sending half the wheel under a full Content-Length,
              every attempt: DL_ENV_PACKAGE_NOT_FOUND, reason truncated; no
              wheel and no temp file in DIR, no cache file entry
  5xx         the proxy answering 500 for it: reason http_status, the same
              nothing-left checks
  wrong       other bytes of the same length: DL_ENV_ARTIFACT_MISSING
              (hash_mismatch), nothing left
  rerun       through a healthy server the same DIR and cache complete."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, HERE)
import build_mirror  # noqa: E402
import bundle_e2e as be  # noqa: E402  FaultProxy, env, mirrors_for
import servers  # noqa: E402
import specs  # noqa: E402

TIME = "/usr/bin/time"  # GNU time (scripts/install-deps: time)
PAD = 96 << 20
CAP = 4 << 20
WHEEL = "bigwheel-1.0-py3-none-any.whl"
FAILURES = []

SCN = """scenario: bundle-stream
description: one large wheel, for the bundle's streaming test
tags: pypi
pypi bigwheel 1.0
  requires-python: >=3.8
  wheel: py3-none-any
  wheel-padding: %d
""" % PAD

SPEC = specs.base_spec("bundle-stream", "    python:\n      dependencies:\n        - bigwheel==1.0\n")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def bundle_rss(el, lock, out, cache, mirrors, **kw):
    """Runs the bundle under GNU time; returns (returncode, json, peak RSS
    in KiB). (Not os.wait4 on our own child: Linux keeps a process's RSS
    high-water mark across exec, and a child spawned from this Python,
    which built the wheel in memory, would start with ours.)"""
    env = be.env(ENVLOCK_MAX_BYTES=str(CAP), **kw)
    with tempfile.NamedTemporaryFile("r") as t:
        argv = [TIME, "-f", "%M", "-o", t.name, el, "--json", "--cache-dir", cache] + mirrors + \
            ["bundle", lock, "-o", out]
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        lines = t.read().split()
    try:
        j = json.loads(r.stdout) if r.stdout.strip() else None
    except ValueError:
        j = None
    return r.returncode, j, int(lines[-1]) if lines and lines[-1].isdigit() else 1 << 40


def idle_rss(el):
    """Peak RSS in KiB of `envlock --version` under GNU time: the program's
    own footprint in this build."""
    with tempfile.NamedTemporaryFile("r") as t:
        subprocess.run([TIME, "-f", "%M", "-o", t.name, el, "--version"],
                       capture_output=True, timeout=60)
        lines = t.read().split()
    return int(lines[-1]) if lines and lines[-1].isdigit() else 0


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def found(root, name):
    return [os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs if f == name]


def leftovers(root):
    return [f for _, _, fs in os.walk(root) for f in fs if ".tmp-" in f or f == WHEEL]


def file_entries(cache):
    return [f for _, _, fs in os.walk(cache) for f in fs if f.endswith(".file")]


def write_bases(work, mirror):
    text = open(os.path.join(ROOT, "corpus", "demo", "bases.yaml")).read()
    text = text.replace("keyring: mirror/apt-keyring.gpg",
                        "keyring: %s" % os.path.join(mirror, "apt-keyring.gpg"))
    text = text.replace("dpkgStatus: ../bases/", "dpkgStatus: %s/" % os.path.join(ROOT, "corpus", "bases"))
    path = os.path.join(work, "bases.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def part_faults(el, lock, work, upstream, mirrors_ok, want):
    proxy = be.FaultProxy(upstream)
    try:
        out = os.path.join(work, "b-faults")
        cache = os.path.join(work, "cache-faults")
        fast = {"ENVLOCK_RETRY_MAX_TIME": "2"}
        proxy.target, proxy.suffix = "/" + WHEEL, True  # not its .metadata
        for mode, code, reason in (("truncate", "DL_ENV_PACKAGE_NOT_FOUND", "truncated"),
                                   ("500", "DL_ENV_PACKAGE_NOT_FOUND", "http_status"),
                                   ("wrong", "DL_ENV_ARTIFACT_MISSING", "hash_mismatch")):
            proxy.mode = mode
            rc, j, _ = bundle_rss(el, lock, out, cache, be.mirrors_for(proxy.url), **fast)
            d = (j or {}).get("detail", {})
            check(rc != 0 and j and j.get("code") == code and d.get("reason") == reason and
                  WHEEL in d.get("artifact", ""),
                  "%s mid-stream: %s, reason %s, the wheel named: %s" % (mode, code, reason, j and j.get("message")))
            check(not leftovers(out), "%s: no partial wheel, no temp file in DIR: %s" % (mode, leftovers(out)))
            check(not file_entries(cache), "%s: the cache kept no file for it" % mode)
        proxy.mode = None
        rc, j, _ = bundle_rss(el, lock, out, cache, mirrors_ok)
        got = found(out, WHEEL)
        check(rc == 0 and len(got) == 1 and sha256_file(got[0]) == want,
              "the rerun through a healthy server completes with the wheel's bytes")
    finally:
        proxy.stop()


def main():
    el = sys.argv[1]
    if not os.access(servers.NGINX, os.X_OK) or not os.access(TIME, os.X_OK):
        print("nginx or GNU time not installed")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-bundle-stream-")
    ng = None
    try:
        scn = os.path.join(work, "big.scn")
        with open(scn, "w") as f:
            f.write(SCN)
        mirror = os.path.join(work, "m")
        build_mirror.build([os.path.join(ROOT, "corpus", "demo", "demo.scn"), scn], mirror)
        served = found(os.path.join(mirror, "pypi"), WHEEL)
        if not check(len(served) == 1 and os.path.getsize(served[0]) > PAD,
                     "the fixture wheel is larger than %d MiB" % (PAD >> 20)):
            return 1
        want = sha256_file(served[0])
        bases = write_bases(work, mirror)
        spec = os.path.join(work, "spec.yaml")
        with open(spec, "w") as f:
            f.write(SPEC)
        ng = servers.Nginx(mirror, work=os.path.join(work, "nginx"))
        os.makedirs(ng.work, exist_ok=True)
        ng.start()
        mirrors = be.mirrors_for(ng.url)
        lock = os.path.join(work, "big.lock")
        r = be.run(el, ["--cache-dir", os.path.join(work, "cache-resolve")] + mirrors +
                   ["resolve", spec, "--bases", bases, "-o", lock])
        if not check(r.returncode == 0 and want in open(lock).read(),
                     "resolve locks the wheel by its sha256: %s" % r.stderr.strip()[-300:]):
            return 1
        cache = os.path.join(work, "cache")
        out = os.path.join(work, "b1")
        rc, j, rss = bundle_rss(el, lock, out, cache, mirrors)
        got = found(out, WHEEL)
        check(rc == 0 and len(got) == 1 and sha256_file(got[0]) == want,
              "bundled with a %d MiB in-memory cap: the wheel's bytes: %s"
              % (CAP >> 20, (j or {}).get("message")))
        # What the bundle adds to the program's own footprint (an ASan build
        # starts near 40 MiB, a plain one near 9) must stay under half the
        # wheel: holding it would add 96 MiB.
        base = idle_rss(el)
        check((rss - base) * 1024 < PAD // 2,
              "peak RSS %.1f MiB, %.1f MiB over `envlock --version`'s, under half the %d MiB wheel"
              % (rss / 1024, (rss - base) / 1024, PAD >> 20))
        out2 = os.path.join(work, "b2")
        rc, j, _ = bundle_rss(el, lock, out2, cache, mirrors)
        got = found(out2, WHEEL)
        net = (j or {}).get("fetched", {}).get("bytes")
        check(rc == 0 and len(got) == 1 and sha256_file(got[0]) == want and net is not None and net < PAD,
              "a second bundle from the same cache: the same bytes, not fetched again (%s bytes "
              "over the network)" % net)
        part_faults(el, lock, work, ng.url, mirrors, want)
    finally:
        if ng:
            ng.stop()
        shutil.rmtree(work, ignore_errors=True)
    for f in FAILURES:
        print("FAILED: " + f)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())

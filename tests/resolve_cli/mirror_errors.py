#!/usr/bin/env python3
"""mirror_errors.py ENVLOCK — with a mirror, a failure names the URL read
and what it mirrors (issue 21), and a relative file:// mirror is a usage
error, not a failed fetch.

A Python-only spec on the demo base, PyPI mapped onto the demo mirror
(corpus/demo/mirror/pypi/pypi) in ways a user gets wrong:
  relative    `file://corpus/...` in --mirror, in ENVLOCK_MIRRORS and in
              the mirrors file: exit 2 naming the host it would read
              (RFC 8089 reads the first segment as a host), nothing fetched
              (the cache directory stays empty); file://localhost/ABS works;
  off-file    a file:// mirror one level above the index (the directory
              holding pypi/simple): exit 13, the message names the page read
              under the mirror and the canonical index, detail.readUrl too;
  off-http    the same tree served over http on 127.0.0.1 one level off;
  closed      a mirror on a closed port: exit 25, the message names the
              mirror's URL and the canonical URL it stands for.
Expected URLs are built here from the mirror given, not from envlock's
output."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import servers  # noqa: E402
import specs  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
PYPI = os.path.join(ROOT, "corpus", "demo", "mirror", "pypi")  # holds pypi/simple

SPEC = specs.base_spec("mirror-errors", "    python:\n      dependencies:\n        - idna\n")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(el, work, args, extra_env=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = os.path.join(work, "config")
    e["ENVLOCK_BASES"] = BASES
    e["ENVLOCK_CACHE_DIR"] = os.path.join(work, "cache")
    e.update(extra_env or {})
    return subprocess.run([el] + args, env=e, capture_output=True, text=True, timeout=120,
                          cwd=cwd or work)


def resolve(el, work, spec, mirror, *, json_out=False, extra_env=None, cwd=None):
    args = (["--json"] if json_out else []) + ["resolve", spec, "-o",
                                               os.path.join(work, "out.lock")]
    if mirror:
        args += ["--mirror", mirror]
    return run(el, work, args, extra_env, cwd)


def check_relative(el, work, spec):
    shutil.rmtree(os.path.join(work, "cache"), ignore_errors=True)
    rel = "file://corpus/demo/mirror/pypi/pypi"
    ways = [("--mirror", "https://pypi.org=" + rel, None),
            ("ENVLOCK_MIRRORS", None, {"ENVLOCK_MIRRORS": "https://pypi.org=" + rel})]
    cfg = os.path.join(work, "config")
    for name, mirror, extra in ways:
        r = resolve(el, work, spec, mirror, extra_env=extra, cwd=ROOT)
        if r.returncode != 2:
            fail("relative (%s): exit %d, expected 2: %s" % (name, r.returncode, r.stderr))
        if "USAGE" not in r.stderr or "host `corpus`" not in r.stderr or "file:///" not in r.stderr:
            fail("relative (%s): stderr does not name the host and the absolute form: %s"
                 % (name, r.stderr))
    os.makedirs(cfg, exist_ok=True)
    with open(os.path.join(cfg, "mirrors"), "w") as f:
        f.write("https://pypi.org=%s\n" % rel)
    r = resolve(el, work, spec, None, cwd=ROOT)
    os.unlink(os.path.join(cfg, "mirrors"))
    if r.returncode != 2 or "host `corpus`" not in r.stderr:
        fail("relative (mirrors file): exit %d: %s" % (r.returncode, r.stderr))
    if os.path.isdir(os.path.join(work, "cache", "v1")):
        fail("relative: something was fetched into the cache")
    r = resolve(el, work, spec, "https://pypi.org=file://localhost" + os.path.join(PYPI, "pypi"))
    if r.returncode != 0:
        fail("file://localhost/ABS: exit %d: %s" % (r.returncode, r.stderr))
    print("relative: checked")


def check_off(el, work, spec, name, mirror_base):
    """mirror_base maps https://pypi.org one level above pypi/simple."""
    read = mirror_base + "/simple/idna/"
    r = resolve(el, work, spec, "https://pypi.org=" + mirror_base)
    if r.returncode != 13:
        fail("%s: exit %d, expected 13: %s" % (name, r.returncode, r.stderr))
    for want in (read, "https://pypi.org/simple", "mirror"):
        if want not in r.stderr:
            fail("%s: stderr does not name %s: %s" % (name, want, r.stderr))
    r = resolve(el, work, spec, "https://pypi.org=" + mirror_base, json_out=True)
    try:
        d = json.loads(r.stdout)["detail"]
    except (ValueError, KeyError) as e:
        fail("%s: --json: %s: %r" % (name, e, r.stdout))
        return
    if d.get("readUrl") != read or d.get("index") != "https://pypi.org/simple":
        fail("%s: detail readUrl/index: %r" % (name, d))
    print("%s: %s" % (name, r.stdout.strip()[:160]))


def check_closed(el, work, spec):
    port = servers.free_port()
    base = "http://127.0.0.1:%d/pypi" % port
    r = resolve(el, work, spec, "https://pypi.org=" + base, json_out=True)
    if r.returncode != 25:
        fail("closed: exit %d, expected 25: %s" % (r.returncode, r.stderr))
    try:
        out = json.loads(r.stdout)
    except ValueError:
        fail("closed: --json: %r" % r.stdout)
        return
    want = "%s/simple/idna/ (mirror of https://pypi.org/simple/idna/)" % base
    if want not in out.get("message", ""):
        fail("closed: message does not say %r: %r" % (want, out.get("message")))
    d = out.get("detail", {})
    if d.get("readUrl") != base + "/simple/idna/" or d.get("url") != "https://pypi.org/simple/idna/":
        fail("closed: detail url/readUrl: %r" % d)
    print("closed: %s" % out.get("message"))


def main():
    el = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="el-mirror-errors-")
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    os.makedirs(os.path.join(work, "config"))
    try:
        check_relative(el, work, spec)
        check_off(el, work, spec, "off-file", "file://" + os.path.dirname(PYPI))
        with servers.DirServer(os.path.dirname(PYPI)) as d:
            check_off(el, work, spec, "off-http", d.url)
        check_closed(el, work, spec)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

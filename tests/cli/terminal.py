#!/usr/bin/env python3
"""terminal.py ENVLOCK — the progress line on a terminal: a resolve whose
stderr is a pseudo-terminal draws it (carriage return and erase-line
sequences) when TERM names a real terminal, also while the apt indexes are
read and the solve runs, and writes no escape sequence
at all when TERM is `dumb` or unset (docs/cli.md); with --quiet, none on
any terminal. The demo spec is resolved from the demo mirror with a fresh
cache each time, so every run fetches."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASES = os.path.join(ROOT, "corpus/demo/bases.yaml")
DEMO = os.path.join(ROOT, "corpus/demo/demo.yaml")
MIRRORS = ["--mirror", "https://pypi.org=file://%s/corpus/demo/mirror/pypi/pypi" % ROOT,
           "--mirror", "https://registry.npmjs.org=file://%s/corpus/demo/mirror/npm" % ROOT,
           "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z="
           "file://%s/corpus/demo/mirror/apt" % ROOT]


def on_pty(envlock, work, tag, term, *flags):
    """stderr of one resolve run with stderr on a pseudo-terminal."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    env.pop("TERM", None)
    if term is not None:
        env["TERM"] = term
    master, slave = os.openpty()
    p = subprocess.Popen([envlock, *flags, "--cache-dir", os.path.join(work, "c-" + tag),
                          *MIRRORS, "resolve", "--bases", BASES, DEMO,
                          "-o", os.path.join(work, tag + ".lock")],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                         env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    if p.wait(timeout=120) != 0:
        raise SystemExit("FAIL: resolve (%s) exited %d: %r" % (tag, p.returncode, out))
    return out


def main():
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="el_terminal_")
    failures = []
    try:
        drawn = on_pty(envlock, work, "xterm", "xterm")
        if b"\x1b[K" not in drawn or b"fetch " not in drawn:
            failures.append("TERM=xterm: no progress line drawn: %r" % drawn[:300])
        # the line stays up between fetches: while the apt indexes are read
        # and while the solve runs, each drawn and then cleared
        for phase in (b"read apt indexes  (fetched ", b"solve  (fetched "):
            at = drawn.find(b"\r\x1b[K" + phase)
            if at < 0:
                failures.append("TERM=xterm: no %r line drawn: %r" % (phase, drawn[-600:]))
            elif b"\r\x1b[K" not in drawn[at + 4:]:
                failures.append("TERM=xterm: the %r line is never cleared" % phase)
        for tag, term, flags in (("dumb", "dumb", ()), ("unset", None, ()),
                                 ("quiet", "xterm", ("--quiet",))):
            got = on_pty(envlock, work, tag, term, *flags)
            if b"\x1b" in got or b"\r" in got.replace(b"\r\n", b""):
                failures.append("%s: escape sequences or redraws on stderr: %r" % (tag, got[:300]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check_deb.py ENVLOCK — `envlock check` confirms Debian artifacts against
the Packages index behind the lock's apt sources, as it does PyPI and npm
ones against their pages (issue 11: "a lock whose artifacts an index does
not confirm is not up to date").

Against the demo corpus's file:// mirrors (corpus/demo/mirror), one cache:
  1. The demo spec resolved; the lock's gdal-bin artifact carries the
     Filename, SHA256 and Size that the mirror's Packages file gives (read
     here with the standard library); `check` says up to date.
  2. gdal-bin given another well-formed sha256, and another size: an
     "artifact not confirmed" line for each, naming the lock line and what
     Packages gives; exit 1, online and --offline from the cache.
  3. gdal-bin's version (and file name) moved to one the index does not
     have: "the index has no version".
  4. With --exclude-newer before the snapshot's timestamp, an apt-only spec
     reads the snapshot at the cutoff (its URI rewritten to the cutoff's
     stamp, mapped to the same mirror, whose Release is dated after it:
     resolve notes that the lock reflects that date); the lock names that URI, and check
     finds its Release among the spec's inputs and confirms its artifacts
     (before, check asked for the spec's own URI and called the lock's
     input foreign).

Exit 0 pass, 1 fail. Standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from check_tamper import line_of  # noqa: E402  (one rule for a lock line)
import specs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MIRROR = os.path.join(REPO, "corpus", "demo", "mirror")
BASES = os.path.join(REPO, "corpus", "demo", "bases.yaml")
DEMO = os.path.join(REPO, "corpus", "demo", "demo.yaml")
SNAP = "https://snapshot.debian.org/archive/debian/20260914T150000Z"
CUT_SNAP = "https://snapshot.debian.org/archive/debian/20260914T000000Z"
PACKAGES = os.path.join(MIRROR, "apt", "dists", "bookworm", "main", "binary-amd64", "Packages")
FAILS = []

APT_ONLY = specs.base_spec("check-deb-cutoff", "    system:\n      apt:\n        - gdal-bin")


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def stanza(name):
    """The Packages stanza of `name` (deb822, one per blank-line block)."""
    for block in open(PACKAGES, encoding="utf-8").read().split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z0-9-]+): (.*)$", block, re.M))
        if fields.get("Package") == name:
            return fields
    raise SystemExit("no %s in %s" % (name, PACKAGES))


def main():
    envlock = sys.argv[1]
    work = tempfile.mkdtemp(prefix="check-deb-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-config")
    mirrors = ["--mirror", "https://pypi.org=file://%s/pypi/pypi" % MIRROR,
               "--mirror", "https://registry.npmjs.org=file://%s/npm" % MIRROR,
               "--mirror", "%s=file://%s/apt" % (SNAP, MIRROR),
               "--mirror", "%s=file://%s/apt" % (CUT_SNAP, MIRROR)]
    common = mirrors + ["--cache-dir", os.path.join(work, "cache")]

    def run(args, offline=False):
        p = subprocess.run([envlock] + common + (["--offline"] if offline else []) + args,
                           capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def write(name, body):
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)
        return path

    try:
        gdal = stanza("gdal-bin")
        file = gdal["Filename"].rsplit("/", 1)[1]
        lock = os.path.join(work, "demo.lock")
        rc, out, err = run(["resolve", "--bases", BASES, DEMO, "-o", lock])
        check("read through a mirror" not in err,
              "1: no note when the mirror serves the snapshot's own Release:\n%s" % err)
        check(rc == 0, "1: the demo resolves (%d %s%s)" % (rc, out, err))
        text = open(lock, encoding="utf-8").read()
        want = ("  - file: %s\n    url: \"%s/%s\"\n    hash: \"sha256:%s\"\n    size: %s\n"
                % (file, SNAP, gdal["Filename"], gdal["SHA256"], gdal["Size"]))
        check(want in text, "1: gdal-bin's artifact is what Packages gives:\n%s" % want)
        rc, out, err = run(["check", "--bases", BASES, DEMO, lock])
        check(rc == 0 and "is up to date" in out, "1: up to date (%d %s%s)" % (rc, out, err))

        # 2: another hash and size, well-formed: only Packages can tell
        other = "sha256:" + "ab" * 32
        bad_text = text.replace(want, want.replace("sha256:" + gdal["SHA256"], other)
                                .replace("size: " + gdal["Size"], "size: 4242"))
        bad = write("bad.lock", bad_text)
        who = "  artifact not confirmed: deb gdal-bin %s %s" % (gdal["Version"], file)
        hash_line = line_of(bad_text, other)
        want_lines = ["%s (line %d): the index gives sha256:%s" % (who, hash_line, gdal["SHA256"]),
                      "%s (line %d): the index gives size %s" % (who, hash_line - 2, gdal["Size"])]
        for offline in (False, True):
            rc, out, err = run(["check", "--bases", BASES, DEMO, bad], offline)
            check(rc == 1 and out.splitlines()[1:] == want_lines,
                  "2: hash and size not confirmed%s (%d):\n%s%s\nwanted:\n%s"
                  % (" offline" if offline else "", rc, out, err, "\n".join(want_lines)))

        # 3: a version the index does not have
        ver = gdal["Version"]
        moved = ver.replace("+b2", "+b9")
        gone_text = text.replace('version: "%s"\n  arch: amd64\n  source' % ver,
                                 'version: "%s"\n  arch: amd64\n  source' % moved, 1) \
                        .replace(file, file.replace(ver, moved))
        gone = write("gone.lock", gone_text)
        rc, out, err = run(["check", "--bases", BASES, DEMO, gone])
        new_file = file.replace(ver, moved)
        want3 = "  artifact not confirmed: deb gdal-bin %s %s (line %d): the index has no version %s" \
            % (moved, new_file, line_of(gone_text, "- file: " + new_file), moved)
        check(rc == 1 and want3 in out.splitlines(),
              "3: a version the index lacks (%d):\n%s%s\nwanted: %s" % (rc, out, err, want3))

        # 4: the snapshot at the cutoff, resolved and checked
        spec = write("apt-only.yaml", APT_ONLY)
        cut = os.path.join(work, "cut.lock")
        rc, out, err = run(["resolve", "--bases", BASES, spec, "-o", cut,
                            "--exclude-newer", "2026-09-14T00:00:00Z"])
        check(rc == 0, "4: the apt-only spec resolves at the cutoff (%d %s%s)" % (rc, out, err))
        # the mirror serves the snapshot of 15:00, dated after the cutoff's:
        # the lock reflects that Release, and resolve says so
        want4 = ("note: apt: %s bookworm was read through a mirror whose Release is dated "
                 "Mon, 14 Sep 2026 15:00:00 UTC, after the snapshot" % CUT_SNAP)
        check(want4 in err, "4: the note on the mirror's newer Release:\n%s" % err)
        ctext = open(cut, encoding="utf-8").read() if rc == 0 else ""
        check(CUT_SNAP + "/dists/bookworm/InRelease" in ctext and SNAP not in ctext,
              "4: the lock names the snapshot at the cutoff only")
        for offline in (False, True):
            rc, out, err = run(["check", "--bases", BASES, spec, cut], offline)
            check(rc == 0 and "is up to date" in out and err == "",
                  "4: the cutoff lock is up to date%s (%d %s%s)"
                  % (" offline" if offline else "", rc, out, err))
        tampered = write("cut-bad.lock", ctext.replace("sha256:" + gdal["SHA256"], other))
        rc, out, err = run(["check", "--bases", BASES, spec, tampered])
        check(rc == 1 and "the index gives sha256:%s" % gdal["SHA256"] in out,
              "4: a tampered artifact of the cutoff lock is not confirmed (%d %s%s)"
              % (rc, out, err))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("check_deb: %s" % ("FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""agree_live.py — envlock against `apt-get -s install` on live Debian.

Opt-in (ENVLOCK_LIVE=1; skips with 77 otherwise, or when deb.debian.org
does not answer): the python-cpu image's dpkg status
(corpus/bases/python-cpu-2026.09.status) with live bookworm main,
bookworm-updates and the security suite, and eleven ordinary workloads.
For each, `envlock resolve` of a spec naming those apt packages (a test
catalog in corpus/bases/bases.yaml's shape with those three sources) and
`apt-get -s install --no-install-recommends` in a private apt root with the
same status and sources; compared: apt's `Inst NAME (VERSION` lines against
the lock's deb packages that are not installedInBase, as the fixture pairs
of agree.py are. A difference passes only when deviations.txt lists it
under the scenario name `live-<workload>` (see README.md).

    agree_live.py ENVLOCK [WORKLOAD...]    (ENVLOCK_AGREE_KEEP=1 keeps the work dir)

Prints one line per workload and the tally ("N of M agree")."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agree  # noqa: E402
import agree_env as env  # noqa: E402

SKIP = 77
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
SOURCES = ["deb http://deb.debian.org/debian bookworm main",
           "deb http://deb.debian.org/debian bookworm-updates main",
           "deb http://deb.debian.org/debian-security bookworm-security main"]
STATUS = os.path.join(env.REPO, "corpus", "bases", "python-cpu-2026.09.status")
WORKLOADS = {
    "libssl-dev": ["libssl-dev"],
    "postgresql-client": ["postgresql-client"],
    "imagemagick-ghostscript": ["imagemagick", "ghostscript"],
    # the same two the other way round: apt walks them in the order asked,
    # and ghostscript's fonts-urw-base35 then satisfies fontconfig-config
    "ghostscript-imagemagick": ["ghostscript", "imagemagick"],
    "jdk-openssl": ["default-jdk-headless", "openssl"],
    "build-essential": ["build-essential"],
    "git-curl": ["git", "curl"],
    "libpq-dev": ["libpq-dev"],
    "libgl1-glib": ["libgl1", "libglib2.0-0"],
    "graphviz": ["graphviz"],
    "ffmpeg": ["ffmpeg"],
}


def reachable():
    try:
        urllib.request.urlopen("http://deb.debian.org/debian/dists/bookworm/InRelease", timeout=15).close()
        return True
    except OSError:
        return False


def write_catalog(path):
    lines = ["format: envlock-bases/1", "variants: [datalayer, e2b, daytona, modal]", "bases:",
             "  datalayer/python-cpu:", "    cuda: false", '    python: "3.13"', "    channels:",
             '      "2026.09":', "        python: 3.13.7", "        arch: amd64",
             "        libc: glibc 2.36", "        platform: manylinux_2_36_x86_64", "        digests:"]
    lines += ["          %s: %s" % (v, env.rs.DIGEST) for v in ("datalayer", "e2b", "daytona", "modal")]
    lines += ["        apt:", "          keyring: %s" % KEYRING, "          sources:"]
    lines += ["            - %s" % env.rs.yq(s) for s in SOURCES]
    lines.append("        dpkgStatus: %s" % env.rs.yq(STATUS))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def spec_text(name, pkgs):
    return "\n".join([
        "apiVersion: environments.datalayer.io/v1alpha1", "kind: Environment", "metadata:",
        "  name: live-%s" % name, "spec:", "  language:", "    name: python", '    version: "3.13"',
        "  base:", "    ref: datalayer/python-cpu", '    channel: "2026.09"', "  packages:", "    system:",
        "      apt:"] + ["        - %s" % p for p in pkgs]) + "\n"


def apt_root(work):
    root = os.path.join(work, "root")
    for d in ("etc/apt/apt.conf.d", "etc/apt/preferences.d", "etc/apt/sources.list.d",
              "etc/apt/trusted.gpg.d", "var/lib/apt/lists/partial", "var/cache/apt/archives/partial",
              "var/lib/dpkg"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    status = os.path.join(root, "var/lib/dpkg/status")
    shutil.copyfile(STATUS, status)
    with open(os.path.join(root, "etc/apt/sources.list"), "w") as f:
        for s in SOURCES:
            f.write(s.replace("deb ", "deb [signed-by=%s] " % KEYRING, 1) + "\n")
    conf = os.path.join(root, "apt.conf")
    with open(conf, "w") as f:
        f.write('Dir "%s/";\nDir::State::status "%s";\n' % (root, status))
    e = agree.clean_env(work)
    e["APT_CONFIG"] = conf
    base = ["apt-get", "-q", "-o", "Dir=%s/" % root, "-o", "Dir::State::status=%s" % status,
            "-o", "Dir::Etc::sourcelist=%s/etc/apt/sources.list" % root,
            "-o", "Dir::Etc::sourceparts=%s/etc/apt/sources.list.d" % root,
            "-o", "Dir::Etc::trustedparts=%s/etc/apt/trusted.gpg.d" % root] + agree.APT_OPTS
    r = agree.run(base + ["update"], e, timeout=600)
    if r.returncode != 0 or "E:" in r.stdout + r.stderr:
        raise SystemExit("apt-get update failed: " + (r.stdout + r.stderr).strip()[-600:])
    return base, e


def apt_answer(base, e, pkgs):
    r = agree.run(base + ["-s", "install", "--no-install-recommends"] + pkgs, e)
    if r.returncode != 0:
        err = [ln.strip() for ln in (r.stdout + r.stderr).splitlines() if ln.startswith(("E:", " "))]
        return None, " / ".join(err[:6]) or "exit %d" % r.returncode
    return agree.apt_inst(r.stdout), None


def envlock_answer(envlock, work, catalog, name, pkgs):
    d = os.path.join(work, "envlock", name)
    os.makedirs(d, exist_ok=True)
    spec = os.path.join(d, "spec.yaml")
    with open(spec, "w") as f:
        f.write(spec_text(name, pkgs))
    lock = os.path.join(d, "envlock.lock")
    e = dict(os.environ)
    for k in ("ENVLOCK_MIRRORS", "ENVLOCK_CONFIG", "ENVLOCK_BASES", "ENVLOCK_CACHE_DIR"):
        e.pop(k, None)
    e["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-config")
    p = subprocess.run([envlock, "--json", "--cache-dir", os.path.join(work, "cache"), "resolve", spec,
                        "-o", lock, "--bases", catalog], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=e, text=True, timeout=900)
    if p.returncode != 0:
        return None, (p.stdout.strip() or p.stderr.strip())[-400:]
    try:
        notes = json.loads(p.stdout).get("notes") or []
    except ValueError:
        notes = []
    with open(lock, encoding="utf-8") as f:
        return agree.envlock_deb(env.lock_packages(f.read())), "; ".join(notes) or None


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    if os.environ.get("ENVLOCK_LIVE") != "1":
        print("SKIP: ENVLOCK_LIVE is not 1")
        return SKIP
    if shutil.which("apt-get") is None or not os.path.exists(KEYRING):
        print("SKIP: apt-get or %s missing" % KEYRING)
        return SKIP
    if not reachable():
        print("SKIP: deb.debian.org is not reachable")
        return SKIP
    envlock = os.path.abspath(argv[1])
    names = argv[2:] or list(WORKLOADS)
    rows = {}
    for d in agree.read_deviations():
        rows.setdefault((d[0], d[1]), set()).add(d[2:5])
    work = tempfile.mkdtemp(prefix="envlock-agree-live-")
    try:
        catalog = os.path.join(work, "bases.yaml")
        write_catalog(catalog)
        base, e = apt_root(work)
        agree_n, failed = 0, []
        for name in names:
            pkgs = WORKLOADS[name]
            mine, my_note = envlock_answer(envlock, work, catalog, name, pkgs)
            theirs, their_err = apt_answer(base, e, pkgs)
            if mine is None or theirs is None:
                diffs = [] if mine is None and theirs is None else \
                    [("*", "ERROR" if mine is None else "ok", "ERROR" if theirs is None else "ok")]
            else:
                diffs = agree.diff("apt", mine, theirs)
            want = rows.get(("live-" + name, "apt"), set())
            got = set(diffs)
            ok = got == want
            agree_n += not diffs
            print("%-26s %s %s" % (name, "agrees" if not diffs else "differs", " ".join(pkgs)))
            for k, a, b in diffs:
                print("    %-34s envlock %-28s apt-get %s%s" % (k, a, b, "" if (k, a, b) in want else "   (not listed)"))
            for k, a, b in sorted(want - got):
                print("    listed but not observed: %s %s %s" % (k, a, b))
            for what, err in (("envlock", my_note), ("apt-get", their_err)):
                if err:
                    print("    %s: %s" % (what, err))
            if not ok:
                failed.append(name)
        print("%d of %d workloads agree with apt-get; %d differ other than deviations.txt lists%s"
              % (agree_n, len(names), len(failed), (": " + " ".join(failed)) if failed else ""))
        return 1 if failed else 0
    finally:
        if os.environ.get("ENVLOCK_AGREE_KEEP") == "1":
            print("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

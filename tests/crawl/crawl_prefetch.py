#!/usr/bin/env python3
"""crawl_prefetch.py ENVLOCK — the previous lock's prefetch, through the real
binary against the fixture nginx (tests/fixtures/servers.py) serving
prefetch.scn: three PyPI levels and four npm levels below the roots.

1. spec A (pf-app, pf-web, both bystanders, both ghosts) resolved cold:
   lock L;
2. the ghosts are deleted from the mirror (their pages now answer 404);
3. spec B (pf-app, pf-web) resolved with no lock, from an empty cache:
   lock F, the answer without the lock's prefetch, in one network crawl
   run all the same (each page asked for as its dependent's metadata or
   packument arrives, not one level per run);
4. spec B with L in place (the warm cache of 1), ENVLOCK_DEBUG_STATS=1:
   it must succeed with F's bytes (a name prefetched but no longer reached
   leaves no trace: no input, no package), every index page L names must
   be asked for (the ghosts' 404s included) and exactly once, and exactly
   one crawl run may go to the network: a crawl that follows one dependency
   level per cache run needs four here;
5. spec B with L in place, --offline, on the cache of 3 (which never saw
   the bystanders or the ghosts): those prefetches miss, silently; F's bytes;
6. spec B with its own lock in place: the same bytes, one network run;
7. --upgrade: lock C (spec A with pf-app==1.0, resolved in 1) in place,
   spec B with --upgrade on the warm cache: the lock is still read, but only
   to prefetch its names, never as a preference: the bytes of spec B
   --upgrade with no lock at all (pf-app 1.1, not C's 1.0), every page C
   names asked for once, one network run; --upgrade-package pf-app the same
   way (one network run, pf-app 1.1); and with --upgrade a lock that cannot
   be read is no prefetch, not an error.

Exit 0 pass, 1 fail, 77 skip (no nginx). Standard library only."""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import servers  # noqa: E402
sys.path.insert(0, HERE)
import crawl_main  # noqa: E402
import specs  # noqa: E402

SCN = os.path.join(HERE, "prefetch.scn")
STATS = re.compile(r"^envlock-stats: crawl run (\d+): (\d+) requests, (\d+) network, "
                   r"(\d+) revalidated, (\d+) hits$")
LOG = re.compile(r'"GET (\S+) HTTP/[0-9.]+" (\d{3}) ')

CATALOG = specs.test_catalog()

SPEC = specs.base_spec("crawl-prefetch", "    python:\n      dependencies: [{py}]\n"
                       "    node:\n      dependencies: [{js}]")

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


class Run:
    def __init__(self, envlock, work, url):
        self.envlock = envlock
        self.work = work
        self.url = url.rstrip("/")
        self.catalog = os.path.join(work, "bases.yaml")
        with open(self.catalog, "w") as f:
            f.write(CATALOG)

    def spec(self, name, py, js):
        path = os.path.join(self.work, name + ".yaml")
        with open(path, "w") as f:
            f.write(SPEC.format(py=", ".join(py), js=", ".join(js)))
        return path

    def resolve(self, spec, lock, cache, *flags):
        """envlock resolve; returns (exit status, stderr, crawl-run stats)."""
        cmd = [self.envlock, "--quiet", "--cache-dir", os.path.join(self.work, cache),
               "--mirror", "https://pypi.org=%s/pypi/pypi" % self.url,
               "--mirror", "https://registry.npmjs.org=%s/npm" % self.url,
               "resolve", spec, "-o", lock, "--bases", self.catalog] + list(flags)
        env = dict(os.environ)
        for k in ("ENVLOCK_MIRRORS", "ENVLOCK_CONFIG", "ENVLOCK_BASES", "ENVLOCK_CACHE_DIR"):
            env.pop(k, None)
        env["XDG_CONFIG_HOME"] = os.path.join(self.work, "xdg-config")
        env["ENVLOCK_DEBUG_STATS"] = "1"
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        err = p.stderr.decode(errors="replace")
        runs = [tuple(int(x) for x in m.groups())
                for m in (STATS.match(ln) for ln in err.splitlines()) if m]
        return p.returncode, err, runs


def read(path):
    with open(path, "rb") as f:
        return f.read()


def requests(log):
    """(path, status) of every request in nginx's access log, in order."""
    with open(log) as f:
        return [(m.group(1), m.group(2)) for m in (LOG.search(ln) for ln in f) if m]


def lock_pages(lock_text):
    """The server paths of the index pages a lock's `inputs:` name (as nginx
    logs them: a scoped packument keeps its %2f)."""
    m = re.search(r"^inputs:\n((?:[- ] .*\n)*)", lock_text, re.M)
    out = set()
    for url in re.findall(r"url: \"?(https://[^\s\"]+)", m.group(1) if m else ""):
        if url.startswith("https://pypi.org/simple/"):
            out.add("/pypi/pypi/simple/" + url[len("https://pypi.org/simple/"):])
        elif url.startswith("https://registry.npmjs.org/"):
            out.add("/npm/" + url[len("https://registry.npmjs.org/"):])
    return out


def check_one_network_run(what, runs):
    net = [r for r in runs if r[2] > 0]
    if not runs:
        fail("%s: no ENVLOCK_DEBUG_STATS lines on stderr" % what)
    elif len(net) != 1 or runs[0][2] == 0:
        fail("%s: %d crawl runs went to the network (want 1, the first): %s"
             % (what, len(net), runs))


def main():
    return crawl_main.run(__doc__, "envlock-crawl-", SCN, scenario)


def scenario(envlock, work, m):
    r = Run(envlock, work, m.nginx.url)
    log = os.path.join(m.nginx.work, "access.log")
    spec_a = r.spec("a", ["pf-app", "pf-bystander", "pf-ghost"], ["pf-web", "pf-bystander", "pf-ghost"])
    spec_b = r.spec("b", ["pf-app"], ["pf-web"])
    lock_a = os.path.join(work, "a.lock")

    # 1. the previous lock
    st, err, _ = r.resolve(spec_a, lock_a, "cache-warm")
    if st != 0:
        fail("resolving spec A exited %d:\n%s" % (st, err))
        return 1
    spec_c = r.spec("c", ["pf-app==1.0", "pf-bystander", "pf-ghost"],
                    ["pf-web", "pf-bystander", "pf-ghost"])
    lock_c = os.path.join(work, "c.lock")
    st, err, _ = r.resolve(spec_c, lock_c, "cache-warm")
    if st != 0:
        fail("resolving spec C exited %d:\n%s" % (st, err))
        return 1
    prev = read(lock_a)
    prev_pages = lock_pages(prev.decode())
    want_names = ["pf-app", "pf-lib-a", "pf-lib-b", "pf-lib-c", "pf-bystander", "pf-ghost",
                  "pf-web", "pf-mid", "pf-leaf", "pf-tip", "@pf/last"]
    if len(prev_pages) != 13:
        fail("lock A should name 13 index pages (6 PyPI, 7 npm), names %d: %s"
             % (len(prev_pages), sorted(prev_pages)))

    # 2. the ghosts are gone
    shutil.rmtree(os.path.join(m.root, "pypi", "pypi", "simple", "pf-ghost"))
    shutil.rmtree(os.path.join(m.root, "npm", "pf-ghost"))

    # 3. the answer without a prefetch
    lock_f = os.path.join(work, "fresh.lock")
    st, err, runs = r.resolve(spec_b, lock_f, "cache-fresh")
    if st != 0:
        fail("resolving spec B without a lock exited %d:\n%s" % (st, err))
        return 1
    # Cold and with no lock, too: each page is asked for when its
    # dependent's metadata (PyPI) or packument (npm) arrives, so the three
    # PyPI and four npm levels take one network run, not one per level.
    check_one_network_run("cold resolve of spec B", runs)
    fresh = read(lock_f)
    for n in ("pf-bystander", "pf-ghost"):
        if n.encode() in fresh:
            fail("spec B's lock names %s" % n)

    # 4. spec B with lock A in place, warm
    lock_r = os.path.join(work, "relock.lock")
    shutil.copyfile(lock_a, lock_r)
    open(log, "w").close()
    st, err, runs = r.resolve(spec_b, lock_r, "cache-warm")
    if st != 0:
        fail("re-resolving spec B with lock A in place exited %d (a prefetched name that is "
             "gone must not fail it):\n%s" % (st, err))
    else:
        if read(lock_r) != fresh:
            fail("the re-resolve's lock differs from the lock made without a previous lock "
                 "(a prefetched name left a trace?)")
        check_one_network_run("re-resolve with lock A", runs)
        if runs and runs[0][0] == 1 and runs[0][1] < len(want_names):
            fail("the first crawl run made %d requests, fewer than the %d names of lock A"
                 % (runs[0][1], len(want_names)))
        reqs = requests(log)
        paths = [p for p, _ in reqs]
        for p in sorted(prev_pages):
            if p not in paths:
                fail("the re-resolve never asked for %s, a page lock A names" % p)
        dup = sorted({p for p in paths if paths.count(p) > 1})
        if dup:
            fail("pages asked for more than once: %s" % dup)
        for p, want in (("/pypi/pypi/simple/pf-ghost/", "404"), ("/npm/pf-ghost", "404"),
                        ("/pypi/pypi/simple/pf-bystander/", "304"), ("/npm/pf-bystander", "304")):
            got = [s for q, s in reqs if q == p]
            if got != [want]:
                fail("%s: answered %s, expected one %s" % (p, got or "never asked", want))

    # 5. offline, lock A in place, a cache that never saw the bystanders or ghosts
    lock_o = os.path.join(work, "offline.lock")
    shutil.copyfile(lock_a, lock_o)
    st, err, runs = r.resolve(spec_b, lock_o, "cache-fresh", "--offline")
    if st != 0:
        fail("--offline with lock A in place exited %d (a prefetch that misses the cache must "
             "not fail it):\n%s" % (st, err))
    elif read(lock_o) != fresh:
        fail("the --offline re-resolve's lock differs from the lock made without a previous lock")
    elif any(x[2] for x in runs):
        fail("--offline went to the network: %s" % runs)

    # 6. spec B with its own lock in place
    if os.path.exists(lock_r) and read(lock_r) == fresh:
        st, err, runs = r.resolve(spec_b, lock_r, "cache-warm")
        if st != 0:
            fail("re-resolving spec B with its own lock exited %d:\n%s" % (st, err))
        else:
            if read(lock_r) != fresh:
                fail("re-resolving spec B with its own lock changed the bytes")
            check_one_network_run("re-resolve with its own lock", runs)

    upgrade_cases(r, work, log, lock_c)
    print("%d failure(s)" % len(FAILS) if FAILS else "ok")
    return 1 if FAILS else 0


def upgrade_cases(r, work, log, lock_c):
    """Step 7: the old lock as a prefetch list only, under --upgrade and
    --upgrade-package."""
    spec_b = os.path.join(work, "b.yaml")
    old_app = b"pf_app-1.0-py3-none-any.whl"
    c_text = read(lock_c)
    if old_app not in c_text:
        fail("lock C should lock pf-app 1.0")
    c_pages = lock_pages(c_text.decode())
    lock_u0 = os.path.join(work, "upgrade-fresh.lock")
    st, err, _ = r.resolve(spec_b, lock_u0, "cache-fresh", "--upgrade")
    if st != 0:
        fail("spec B --upgrade without a lock exited %d:\n%s" % (st, err))
        return
    want = read(lock_u0)
    if old_app in want:
        fail("spec B --upgrade without a lock locked pf-app 1.0")

    lock_u = os.path.join(work, "upgrade.lock")
    shutil.copyfile(lock_c, lock_u)
    open(log, "w").close()
    st, err, runs = r.resolve(spec_b, lock_u, "cache-warm", "--upgrade")
    if st != 0:
        fail("spec B --upgrade with lock C in place exited %d:\n%s" % (st, err))
    else:
        if read(lock_u) != want:
            fail("--upgrade with lock C in place gives other bytes than --upgrade without a "
                 "lock (the prefetch list acted as a preference?)")
        check_one_network_run("--upgrade with lock C", runs)
        paths = [p for p, _ in requests(log)]
        missing = sorted(p for p in c_pages if p not in paths)
        if missing:
            fail("--upgrade never asked for pages lock C names (no prefetch?): %s" % missing)
        dup = sorted({p for p in paths if paths.count(p) > 1})
        if dup:
            fail("--upgrade: pages asked for more than once: %s" % dup)

    lock_p = os.path.join(work, "upgrade-package.lock")
    shutil.copyfile(lock_c, lock_p)
    open(log, "w").close()
    st, err, runs = r.resolve(spec_b, lock_p, "cache-warm", "--upgrade-package", "pf-app")
    if st != 0:
        fail("spec B --upgrade-package pf-app with lock C in place exited %d:\n%s" % (st, err))
    else:
        if old_app in read(lock_p):
            fail("--upgrade-package pf-app kept pf-app 1.0")
        check_one_network_run("--upgrade-package with lock C", runs)
        paths = [p for p, _ in requests(log)]
        missing = sorted(p for p in c_pages if p not in paths)
        if missing:
            fail("--upgrade-package never asked for pages lock C names: %s" % missing)

    lock_bad = os.path.join(work, "unreadable.lock")
    with open(lock_bad, "w") as f:
        f.write("this: [is not a lock\n")
    st, err, runs = r.resolve(spec_b, lock_bad, "cache-warm", "--upgrade")
    if st != 0:
        fail("--upgrade over an unreadable lock exited %d (it is no prefetch, not an "
             "error):\n%s" % (st, err))
    elif read(lock_bad) != want:
        fail("--upgrade over an unreadable lock gives other bytes than without a lock")


if __name__ == "__main__":
    sys.exit(main())

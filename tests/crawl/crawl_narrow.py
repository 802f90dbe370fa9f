#!/usr/bin/env python3
"""crawl_narrow.py ENVLOCK — the npm crawl follows the versions npm's tree
builder picks, not every version a range admits (issue 24), through the
real binary against the fixture nginx (tests/fixtures/servers.py) serving
narrow.scn. The names each resolve may fetch are worked out by hand from
that file, as npm's arborist reaches them (a packument when the tree
reaches its name, only the picked version's dependencies followed):

1. nc-app@^1, cold: npm picks nc-app 1.2.0 (the latest), then nc-mid 2.1.0
   for its ^2.0.0, then nc-leaf 1.0.0: exactly nc-app, nc-mid and nc-leaf
   are fetched, each once (a crawl of every admitted version also fetches
   nc-old, nc-older and nc-legacy: 6), the lock is that tree, and the
   crawl is not widened;
2. nc-app@^1 with a previous lock that holds nc-mid 2.0.0 (from the spec
   nc-app@^1 + nc-mid@2.0.0): npm keeps a locked version that still
   satisfies the edge, so the tree is nc-app 1.2.0, nc-mid 2.0.0,
   nc-legacy 1.0.0; the crawl follows the locked pick and the unlocked one
   (nc-mid 2.1.0, for the placement checks), so it fetches nc-app, nc-mid,
   nc-legacy and nc-leaf, never nc-old or nc-older;
3. nw-app@^1, the widening fallback: its latest 1.1.0 needs nw-gone ^9,
   which no version satisfies (npm: ETARGET), so envlock searches; the
   narrowed crawl never reached nw-app 1.0.0's nw-lib, so it is widened
   (ENVLOCK_DEBUG_STATS says so) and the lock is the tree of the version
   the search finds, nw-app 1.0.0 with nw-lib 1.1.0 (the highest of its
   ^1.0.0), with npm's refusal in a note;
4. arrival order: nc-app@^1 with nw-app@^1 (one narrowed crawl, widened)
   through a proxy that delays each answer at random (three seeds), from
   empty caches: the lock's bytes are those of the direct resolve, whose
   tree is the two trees above; the same for np-app@^1, np-host@^1,
   np-solo2@^1 and np-zed@^1 (step 5's trees together: a peer met by
   the root, a placed one, and the crawl extended by it);
5. peers (npm fetches a peer's name, and a pick's dependencies only when
   the tree places that pick): np-app@^1 with np-host@^1 fetches np-app,
   np-lib and np-host (the root's np-host 1.0.0 satisfies np-lib's peer
   `>=1.0.0`, so np-host 2.0.0, its pick, is never placed and np-heavy
   never fetched); np-opt@^1 with np-host@^1 the same for an optional
   peer (np-opt and np-host); np-solo@^1, whose peer ^2.0.0 nothing
   satisfies, places np-host 2.0.0 at the top and so fetches np-heavy
   too: the crawl is extended by that pick (ENVLOCK_DEBUG_STATS), not
   widened; np-solo2@^1 with np-zed@^1 places np-pair 2.0.0 the same
   way, and its np-zed ^2.0.0, a range new to a name the tree already
   holds, nests np-zed 2.0.0 under it, still without widening.

Exit 0 pass, 1 fail, 77 skip (no nginx). Standard library only."""

import http.server
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
sys.path.insert(0, os.path.join(REPO, "tests", "scenarios"))
import servers  # noqa: E402
sys.path.insert(0, HERE)
import crawl_main  # noqa: E402
import specs  # noqa: E402
from run_scenarios import project  # noqa: E402

SCN = os.path.join(HERE, "narrow.scn")
LOG = re.compile(r'"GET /npm/(\S+) HTTP/[0-9.]+" (\d{3}) ')
WIDENED = "envlock-stats: npm crawl widened:"
EXTENDED = "envlock-stats: npm crawl extended:"
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


class Run:
    def __init__(self, envlock, work, url):
        self.envlock, self.work, self.url = envlock, work, url.rstrip("/")
        self.catalog = os.path.join(work, "bases.yaml")
        with open(self.catalog, "w") as f:
            f.write(specs.test_catalog())
        self.log = None

    def resolve(self, name, deps, lock, cache):
        """Resolves node dependencies `deps` into `lock` from a cache of its
        own; returns (exit status, stderr, packument names requested)."""
        spec = os.path.join(self.work, name + ".yaml")
        with open(spec, "w") as f:
            f.write(specs.base_spec("crawl-narrow", "    node:\n      dependencies: [%s]"
                                    % ", ".join('"%s"' % d for d in deps)))
        cmd = [self.envlock, "--cache-dir", os.path.join(self.work, cache),
               "--mirror", "https://registry.npmjs.org=%s/npm" % self.url,
               "resolve", spec, "-o", lock, "--bases", self.catalog]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
        env["XDG_CONFIG_HOME"] = os.path.join(self.work, "xdg-config")
        env["ENVLOCK_DEBUG_STATS"] = "1"
        open(self.log, "w").close()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        with open(self.log) as f:
            names = [m.group(1) for m in (LOG.search(ln) for ln in f) if m]
        return p.returncode, p.stderr.decode(errors="replace"), names


class Delayed(http.server.BaseHTTPRequestHandler):
    """Forwards each GET to `upstream` after a random delay (0-150 ms from
    `rng`), so packuments arrive in another order each seed."""
    upstream = None
    rng = random.Random(0)
    mutex = threading.Lock()

    def log_message(self, *args):
        pass

    def do_GET(self):
        with Delayed.mutex:
            delay = Delayed.rng.uniform(0, 0.15)
        time.sleep(delay)
        req = urllib.request.Request(Delayed.upstream + self.path,
                                     headers={"Accept": self.headers.get("Accept", "*/*")})
        try:
            with urllib.request.urlopen(req) as u:
                code, ctype, body = u.status, u.headers.get("Content-Type"), u.read()
        except urllib.error.HTTPError as e:
            code, ctype, body = e.code, e.headers.get("Content-Type"), e.read()
        self.send_response(code)
        self.send_header("Content-Type", ctype or "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def tree(lock):
    with open(lock, encoding="utf-8") as f:
        return sorted(ln for ln in project(f.read()) if ln.startswith("npm "))


def check(what, got_names, want_names, lock, want_tree, err, widened):
    if sorted(got_names) != sorted(want_names):
        fail("%s: packuments requested %s, npm reaches exactly %s"
             % (what, sorted(got_names), sorted(want_names)))
    if len(got_names) > len(want_names):
        fail("%s: %d packument requests, at most %d wanted" % (what, len(got_names), len(want_names)))
    got = tree(lock)
    if got != want_tree:
        fail("%s: lock %s, npm's tree is %s" % (what, got, want_tree))
    if (WIDENED in err) != widened:
        fail("%s: the crawl was%s widened:\n%s" % (what, "" if WIDENED in err else " not", err))


def scenario(envlock, work, m):
    r = Run(envlock, work, m.nginx.url)
    r.log = os.path.join(m.nginx.work, "access.log")

    # 1. cold, no lock
    lock = os.path.join(work, "cold.lock")
    st, err, names = r.resolve("cold", ["nc-app@^1"], lock, "cache-cold")
    if st != 0:
        fail("nc-app@^1 cold exited %d:\n%s" % (st, err))
    else:
        check("nc-app@^1 cold", names, ["nc-app", "nc-mid", "nc-leaf"], lock,
              ["npm nc-app 1.2.0 path=node_modules/nc-app",
               "npm nc-leaf 1.0.0 path=node_modules/nc-leaf",
               "npm nc-mid 2.1.0 path=node_modules/nc-mid"], err, False)

    # 2. a previous lock with nc-mid 2.0.0
    lock = os.path.join(work, "relock.lock")
    st, err, _ = r.resolve("pinned", ["nc-app@^1", "nc-mid@2.0.0"], lock, "cache-pinned")
    if st != 0:
        fail("nc-app@^1 nc-mid@2.0.0 exited %d:\n%s" % (st, err))
    else:
        st, err, names = r.resolve("relock", ["nc-app@^1"], lock, "cache-relock")
        if st != 0:
            fail("nc-app@^1 over the lock with nc-mid 2.0.0 exited %d:\n%s" % (st, err))
        else:
            check("nc-app@^1 relocked", names, ["nc-app", "nc-mid", "nc-legacy", "nc-leaf"], lock,
                  ["npm nc-app 1.2.0 path=node_modules/nc-app",
                   "npm nc-legacy 1.0.0 path=node_modules/nc-legacy",
                   "npm nc-mid 2.0.0 path=node_modules/nc-mid"], err, False)

    # 3. the widening fallback
    lock = os.path.join(work, "widen.lock")
    st, err, names = r.resolve("widen", ["nw-app@^1"], lock, "cache-widen")
    if st != 0:
        fail("nw-app@^1 exited %d:\n%s" % (st, err))
    else:
        check("nw-app@^1 (ETARGET, searched)", names, ["nw-app", "nw-gone", "nw-lib"], lock,
              ["npm nw-app 1.0.0 path=node_modules/nw-app",
               "npm nw-lib 1.1.0 path=node_modules/nw-lib"], err, True)
        if "npm install would refuse this spec (ETARGET" not in " ".join(err.split()):
            fail("nw-app@^1: no note that npm refuses (ETARGET):\n%s" % err)
    arrival_order(envlock, work, m, r)
    peers(r, work)
    print("%d failure(s)" % len(FAILS) if FAILS else "ok")
    return 1 if FAILS else 0


def peers(r, work):
    """Step 5."""
    cases = [
        ("np-app@^1 np-host@^1 (required peer met by the root)", ["np-app@^1", "np-host@^1"],
         ["np-app", "np-lib", "np-host"],
         ["npm np-app 1.0.0 path=node_modules/np-app",
          "npm np-host 1.0.0 path=node_modules/np-host",
          "npm np-lib 1.0.0 path=node_modules/np-lib"], False),
        ("np-opt@^1 np-host@^1 (optional peer met by the root)", ["np-opt@^1", "np-host@^1"],
         ["np-opt", "np-host"],
         ["npm np-host 1.0.0 path=node_modules/np-host",
          "npm np-opt 1.0.0 path=node_modules/np-opt"], False),
        ("np-solo@^1 (peer placed)", ["np-solo@^1"],
         ["np-solo", "np-host", "np-heavy"],
         ["npm np-heavy 1.0.0 path=node_modules/np-heavy",
          "npm np-host 2.0.0 path=node_modules/np-host",
          "npm np-solo 1.0.0 path=node_modules/np-solo"], True),
        ("np-solo2@^1 np-zed@^1 (placed peer, new range on a placed name)",
         ["np-solo2@^1", "np-zed@^1"], ["np-solo2", "np-pair", "np-zed"],
         ["npm np-pair 2.0.0 path=node_modules/np-pair",
          "npm np-solo2 1.0.0 path=node_modules/np-solo2",
          "npm np-zed 1.0.0 path=node_modules/np-zed",
          "npm np-zed 2.0.0 path=node_modules/np-pair/node_modules/np-zed"], True),
    ]
    for i, (what, deps, names_want, tree_want, extended) in enumerate(cases):
        lock = os.path.join(work, "peer-%d.lock" % i)
        st, err, names = r.resolve("peer-%d" % i, deps, lock, "cache-peer-%d" % i)
        if st != 0:
            fail("%s exited %d:\n%s" % (what, st, err))
            continue
        check(what, names, names_want, lock, tree_want, err, False)
        if (EXTENDED in err) != extended:
            fail("%s: the crawl was%s extended:\n%s" % (what, "" if EXTENDED in err else " not", err))


ORDER_SETS = [
    ("both", ["nc-app@^1", "nw-app@^1"],
     ["npm nc-app 1.2.0 path=node_modules/nc-app",
      "npm nc-leaf 1.0.0 path=node_modules/nc-leaf",
      "npm nc-mid 2.1.0 path=node_modules/nc-mid",
      "npm nw-app 1.0.0 path=node_modules/nw-app",
      "npm nw-lib 1.1.0 path=node_modules/nw-lib"]),
    ("peers", ["np-app@^1", "np-host@^1", "np-solo2@^1", "np-zed@^1"],
     ["npm np-app 1.0.0 path=node_modules/np-app",
      "npm np-host 1.0.0 path=node_modules/np-host",
      "npm np-lib 1.0.0 path=node_modules/np-lib",
      "npm np-pair 2.0.0 path=node_modules/np-pair",
      "npm np-solo2 1.0.0 path=node_modules/np-solo2",
      "npm np-zed 1.0.0 path=node_modules/np-zed",
      "npm np-zed 2.0.0 path=node_modules/np-pair/node_modules/np-zed"]),
]


def arrival_order(envlock, work, m, r):
    """Step 4."""
    for name, deps, want in ORDER_SETS:
        arrival_order_of(work, m, r, name, deps, want)


def arrival_order_of(work, m, r, name, deps, want):
    what = " ".join(deps)
    ref = os.path.join(work, name + ".lock")
    st, err, _ = r.resolve(name, deps, ref, "cache-" + name)
    if st != 0:
        fail("%s exited %d:\n%s" % (what, st, err))
        return
    if tree(ref) != want:
        fail("%s: lock %s, want %s" % (what, tree(ref), want))
    with open(ref, "rb") as f:
        ref_bytes = f.read()
    Delayed.upstream = m.nginx.url.rstrip("/")
    srv = servers.serve_handler(Delayed, backlog=64)
    try:
        slow = Run(r.envlock, work, srv.url)
        slow.log = r.log
        for seed in (1, 2, 3):
            Delayed.rng = random.Random(seed)
            lock = os.path.join(work, "%s-%d.lock" % (name, seed))
            st, err, _ = slow.resolve(name, deps, lock, "cache-%s-%d" % (name, seed))
            if st != 0:
                fail("%s, delays of seed %d: exited %d:\n%s" % (what, seed, st, err))
                continue
            with open(lock, "rb") as f:
                if f.read() != ref_bytes:
                    fail("%s, delays of seed %d: other bytes than the direct "
                         "resolve (the lock depends on arrival order)" % (what, seed))
    finally:
        servers.stop_server(srv)


def main():
    return crawl_main.run(__doc__, "envlock-narrow-", SCN, scenario)


if __name__ == "__main__":
    sys.exit(main())

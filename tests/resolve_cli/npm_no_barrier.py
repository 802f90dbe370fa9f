#!/usr/bin/env python3
"""npm_no_barrier.py ENVLOCK — the npm crawl has no level barriers (issue 12):
a dependency's packument is asked for as soon as its dependent's packument
arrives, not once every packument of the level has.

A registry on 127.0.0.1 (this script) serves app -> {fast, slow}, fast ->
leaf. It holds its answer for `slow` until `leaf` has been asked for (at most
20 s). A crawl that waits for the whole level (fast and slow) before asking
for leaf asks for it only after `slow` was answered: the server records the
order, and the test fails on it (not on time). The lock must still hold all
four packages."""

import base64
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import servers  # noqa: E402
import specs  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")

DEPS = {"app": {"fast": "^1.0.0", "slow": "^1.0.0"}, "fast": {"leaf": "^1.0.0"}, "slow": {}, "leaf": {}}
SPEC = specs.base_spec("no-barrier", "    node:\n      dependencies:\n        - app@^1\n")


def packument(name, base):
    integ = "sha512-" + base64.b64encode(hashlib.sha512(name.encode()).digest()).decode()
    return {"name": name, "dist-tags": {"latest": "1.0.0"}, "modified": "2024-01-01T00:00:00.000Z",
            "versions": {"1.0.0": {"name": name, "version": "1.0.0", "dependencies": DEPS[name],
                                   "dist": {"tarball": "%s/%s/-/%s-1.0.0.tgz" % (base, name, name),
                                            "integrity": integ}}}}


def main():
    el = sys.argv[1]
    events, lock = [], threading.Condition()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            name = self.path.strip("/")
            if name not in DEPS:
                self.send_error(404)
                return
            with lock:
                events.append("ask " + name)
                lock.notify_all()
                if name == "slow":
                    lock.wait_for(lambda: "ask leaf" in events, timeout=20)
            body = json.dumps(packument(name, "https://registry.npmjs.org")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with lock:
                events.append("answered " + name)

    srv = servers.serve_handler(Handler)
    work = tempfile.mkdtemp(prefix="envlock-nobarrier-")
    fails = []
    try:
        spec = os.path.join(work, "spec.yaml")
        with open(spec, "w") as f:
            f.write(SPEC)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
        env.update(ENVLOCK_CONFIG="/nonexistent", XDG_CONFIG_HOME=os.path.join(work, "xdg"))
        out = os.path.join(work, "envlock.lock")
        r = subprocess.run([el, "--cache-dir", os.path.join(work, "cache"), "--mirror",
                            "https://registry.npmjs.org=" + srv.url,
                            "resolve", spec, "--bases", BASES, "-o", out],
                           env=env, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            fails.append("resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
        else:
            text = open(out).read()
            for name in DEPS:
                if "  name: %s\n" % name not in text:
                    fails.append("the lock has no %s" % name)
        print(" / ".join(events))
        if "ask leaf" not in events or "answered slow" not in events:
            fails.append("the registry was not asked for every package: %s" % events)
        elif events.index("ask leaf") > events.index("answered slow"):
            fails.append("leaf was asked for only after slow was answered: the crawl waited "
                         "for the whole level")
    finally:
        servers.stop_server(srv)
        shutil.rmtree(work, ignore_errors=True)
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

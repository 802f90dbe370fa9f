#!/usr/bin/env python3
"""run_scenarios.py DRIVER CASE — resolve one corpus scenario twice and
compare with tests/resolver/cases/CASE.out.

CASE.req is the request (see resolver_driver.c) plus a `scenario NAME` line
naming corpus/scenarios/NAME.scn. The scenario's mirror is built twice with
tests/fixtures/build_mirror.py, the second time with --shuffle (every
index's entries in another order); both are read through file:// mirrors of
the canonical URLs (npm packuments copied to flat files, since a registry
URL names no file). Both outputs must be byte-identical (but for the apt
Release identities, which the shuffled Packages change) and equal to the
expected text, where the mirror's root in a URL read through it is written
MIRROR. A `debug-solver` line in CASE.req also passes --debug-solver
DIR and replays DIR/testcase.t with libsolv's `testsolv`; a `pypi-over-http`
line serves the PyPI mirror over HTTP (PageHandler: PEP 691 JSON pages with
upload times, ETags) instead of file://. RESOLVER_UPDATE=1 rewrites CASE.out from the first run (then
read the diff: the expected text is worked out by hand, not blessed).
Standard library only."""

import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(REPO, "tests", "fixtures", "build_mirror.py")
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import servers  # noqa: E402
from build_mirror import bundler_mirrors, flatten_npm  # noqa: E402


def replay(dbg):
    """`testsolv` (libsolv-tools) replays the testcase --debug-solver wrote:
    it must exit 0 (its result equals the recorded solver.result) and print
    that same result with -r. Returns a list of failure lines."""
    case = os.path.join(dbg, "testcase.t")
    if not os.path.isfile(case):
        return ["--debug-solver wrote no %s (contents: %s)" %
                (case, sorted(os.listdir(dbg)) if os.path.isdir(dbg) else "not a directory")]
    fails = []
    p = subprocess.run(["testsolv", case], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        fails.append("testsolv %s exited %d:\n%s" % (case, p.returncode, p.stdout.decode()))
    p = subprocess.run(["testsolv", "-r", case], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with open(os.path.join(dbg, "solver.result"), "rb") as f:
        recorded = f.read()
    if p.returncode != 0 or p.stdout != recorded or not recorded:
        fails.append("testsolv -r gives another result than solver.result:\n%s" % p.stdout.decode())
    return fails


PEP691_JSON = "application/vnd.pypi.simple.v1+json"


class PageHandler(http.server.BaseHTTPRequestHandler):
    """Serves a mirror directory as an index server would: a directory URL
    gives index.json (PEP 691, its Content-Type) when Accept names PEP 691's
    JSON type and the file exists, else index.html. Every response carries
    ETag "e:<path>" and a fixed Last-Modified, so a test can tell what a lock
    records as a page's identity without copying envlock's output."""

    root = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        local = os.path.join(self.root, path.lstrip("/"))
        ctype = "application/octet-stream"
        if path.endswith("/"):
            want_json = PEP691_JSON in self.headers.get("Accept", "")
            if want_json and os.path.isfile(os.path.join(local, "index.json")):
                local, ctype = os.path.join(local, "index.json"), PEP691_JSON
            else:
                local, ctype = os.path.join(local, "index.html"), "text/html"
        if not os.path.isfile(local):
            self.send_error(404)
            return
        etag = '"e:%s"' % path
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        with open(local, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
        self.end_headers()
        self.wfile.write(body)


def serve(mdir):
    """An HTTP server on 127.0.0.1 for mdir; returns (server, base URL)."""
    handler = type("Handler", (PageHandler,), {"root": mdir})
    server = servers.serve_handler(handler)
    return server, server.url


def run(driver, req, mdir, cache, extra=(), pypi_http=None):
    with open(os.path.join(mdir, "manifest.json")) as f:
        man = json.load(f)
    mirrors = []
    for name, url in sorted(man.get("pypi-indexes", {}).items()):
        prefix = url.rsplit("/simple", 1)[0]
        where = "%s/pypi/%s" % (pypi_http, name) if pypi_http else "file://%s/pypi/%s" % (mdir, name)
        mirrors += ["--mirror", "%s=%s" % (prefix, where)]
    mirrors += ["--mirror", "https://registry.npmjs.org=file://%s/npmflat" % mdir]
    mirrors += bundler_mirrors(mdir)
    for url in sorted(set(man.get("apt-suites", {}).values())):
        mirrors += ["--mirror", "%s=file://%s/apt" % (url.rstrip("/"), mdir)]
    cmd = [driver, "--request", req, "--cache", cache,
           "--keyring", os.path.join(mdir, "apt-keyring.gpg")] + mirrors + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr.decode())
        raise SystemExit("driver failed with status %d" % p.returncode)
    return mask_mirror(p.stdout, mdir, pypi_http)


def mask_mirror(text, mdir, http_base=None):
    """A failure read through a mirror names the URL read; the mirror's
    root (a temporary directory, an ephemeral port) is written MIRROR, as
    tests/scenarios/run_scenarios.py does, so what follows the root (the
    page read) is still compared."""
    for root in (http_base, "file://" + mdir):
        if root:
            text = text.replace(root.encode(), b"MIRROR")
    return text


def mask_release(text):
    """A shuffled Packages file is another file, so the Release that lists
    its sha256 is another Release: the one input identity that must differ."""
    return re.sub(rb'(url: "[^"]*/(?:In)?Release"\n  identity: )"sha256:[0-9a-f]{64}"',
                  rb'\1"sha256:(shuffled)"', text)


def scn_path(scenario):
    """The resolver's own scenarios (tests/resolver/scenarios) first, then
    the corpus."""
    own = os.path.join(HERE, "scenarios", scenario + ".scn")
    if os.path.exists(own):
        return own
    return os.path.join(REPO, "corpus", "scenarios", scenario + ".scn")


def main():
    driver, case = sys.argv[1], sys.argv[2]
    req = os.path.join(HERE, "cases", case + ".req")
    exp = os.path.join(HERE, "cases", case + ".out")
    scenario = None
    debug_solver = False
    pypi_over_http = False
    with open(req) as f:
        for line in f:
            if line.startswith("scenario "):
                scenario = line.split()[1]
            elif line.strip() == "debug-solver":
                debug_solver = True
            elif line.strip() == "pypi-over-http":
                pypi_over_http = True
    if not scenario:
        raise SystemExit("%s names no scenario" % req)
    if not shutil.which("dpkg-deb") or not shutil.which("gpg"):
        return 77
    if debug_solver and not shutil.which("testsolv"):
        return 77
    tmp = tempfile.mkdtemp(prefix="resolver-%s-" % case)
    try:
        outs = []
        for variant, extra in (("plain", []), ("shuffled", ["--shuffle", "7"])):
            mdir = os.path.join(tmp, variant)
            subprocess.run([sys.executable, BUILD, scn_path(scenario),
                            "--out", mdir] + extra, check=True, stdout=subprocess.DEVNULL)
            flatten_npm(mdir)
            extra = []
            if debug_solver:
                # a directory that does not exist yet, below one that does
                extra = ["--debug-solver", os.path.join(tmp, "solver-" + variant, "dump")]
            server, base = serve(mdir) if pypi_over_http else (None, None)
            try:
                outs.append(run(driver, req, mdir, os.path.join(tmp, "cache-" + variant), extra,
                                base))
            finally:
                if server:
                    servers.stop_server(server)
        if os.environ.get("RESOLVER_UPDATE") == "1":
            with open(exp, "wb") as f:
                f.write(outs[0])
        with open(exp, "rb") as f:
            want = f.read()
        ok = True
        for variant in ("plain", "shuffled") if debug_solver else ():
            for line in replay(os.path.join(tmp, "solver-" + variant, "dump")):
                print("FAIL (%s): %s" % (variant, line))
                ok = False
        if mask_release(outs[0]) != mask_release(outs[1]):
            print("FAIL: the shuffled mirror gives other bytes")
            sys.stdout.write(outs[1].decode())
            ok = False
        if outs[0] != want:
            print("FAIL: output differs from %s; got:" % exp)
            sys.stdout.write(outs[0].decode())
            ok = False
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

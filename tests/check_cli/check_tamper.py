#!/usr/bin/env python3
"""check_tamper.py ENVLOCK — `envlock check` on tampered locks, through the
demo corpus's file:// mirrors (corpus/demo/mirror) and one cache directory.

  1. The demo lock (tests/cli/cases/check_up_to_date) is up to date online;
     that run fills the cache.
  2. Its requests wheel given another (well-formed) sha256 and its zod
     tarball another sha512 integrity: "artifact not confirmed" lines naming
     what the index gives, exit 1 — online, and --offline from the cache.
  3. Its inputs pointed at a recording HTTP server on 127.0.0.1 (a PyPI
     page, a packument and an apt InRelease): "input not from this spec's
     indexes" lines, exit 1, online and --offline, and the server receives
     no request at all.

Exit 0 pass, 1 fail. Standard library only.
"""

import http.server
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import servers  # noqa: E402

CASE = os.path.join(REPO, "tests", "cli", "cases", "check_up_to_date")
FAILS = []

REQ_HASH = "sha256:de4aecebc42af3721c82fd2fc519c88771744310ff29b7fdc841f31abee201e7"
ZOD_HASH = ("sha512-aNi5TinoUnjYczsH9R81zG3dL2WXt2PldLCLJCEhdLdAb3vse4aOWLWEuhXV8nWggSF5"
            "MTVPpDHNq6xwh81+xw==")


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


class Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        Recorder.seen.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_HEAD = do_GET

    def log_message(self, *args):
        pass


def package_at(text, eco, name):
    """(eco, name, version, index, line) of a package entry of the lock text:
    its index among `packages:` and the line of its `- ecosystem:`."""
    lines = text.split("\n")
    start = lines.index("packages:")
    k = -1
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("- ecosystem: "):
            k += 1
            if (lines[i] == "- ecosystem: %s" % eco and
                    lines[i + 1] == "  name: %s" % name):
                version = lines[i + 2].split(": ", 1)[1].strip('"')
                return eco, name, version, k, i + 1
    raise KeyError(name)


def line_of(text, needle):
    """The 1-based line of the one occurrence of needle in text."""
    assert text.count(needle) == 1, needle
    return text[:text.index(needle)].count("\n") + 1


def main():
    envlock = sys.argv[1]
    work = tempfile.mkdtemp(prefix="check-tamper-")
    srv = servers.serve_handler(Recorder)
    port = srv.port
    env = dict(os.environ)
    for k in ("ENVLOCK_MIRRORS", "ENVLOCK_CONFIG", "ENVLOCK_BASES", "ENVLOCK_CACHE_DIR"):
        env.pop(k, None)
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-config")
    mirror = os.path.join(REPO, "corpus", "demo", "mirror")
    common = ["--mirror", "https://pypi.org=file://%s/pypi/pypi" % mirror,
              "--mirror", "https://registry.npmjs.org=file://%s/npm" % mirror,
              "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z=file://%s/apt"
              % mirror,
              "--cache-dir", os.path.join(work, "cache")]
    spec = os.path.join(CASE, "spec.yaml")
    bases = os.path.join(REPO, "corpus", "demo", "bases.yaml")

    def run(lock, offline=False):
        args = [envlock] + common + (["--offline"] if offline else []) + \
            ["check", "--bases", bases, spec, lock]
        p = subprocess.run(args, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
        return p.returncode, p.stdout, p.stderr

    try:
        text = open(os.path.join(CASE, "envlock.lock"), encoding="utf-8").read()

        def write(name, body):
            path = os.path.join(work, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
            return path

        good = write("good.lock", text)
        rc, out, err = run(good)
        check(rc == 0 and "is up to date" in out, "1: the demo lock is up to date online (%d %s%s)"
              % (rc, out, err))

        # 2: well-formed, wrong hashes: only the index can tell
        assert text.count(REQ_HASH) == 1 and text.count(ZOD_HASH) == 1
        bad_req, bad_zod = "sha256:" + "ab" * 32, "sha512-" + "B" * 85 + "A=="
        bad_text = text.replace(REQ_HASH, bad_req).replace(ZOD_HASH, bad_zod)
        bad = write("bad-hash.lock", bad_text)
        want = ["  artifact not confirmed: npm zod 3.23.8 zod-3.23.8.tgz (line %d): the index gives %s"
                % (line_of(bad_text, bad_zod), ZOD_HASH),
                "  artifact not confirmed: pypi requests 2.32.3 requests-2.32.3-py3-none-any.whl "
                "(line %d): the index gives %s" % (line_of(bad_text, bad_req), REQ_HASH)]
        for offline in (False, True):
            rc, out, err = run(bad, offline)
            lines = out.splitlines()[1:]
            check(rc == 1 and lines == want, "2: wrong hashes are not confirmed%s (%d %s%s)"
                  % (" offline" if offline else "", rc, out, err))

        # 3: inputs elsewhere are findings, never requests
        host = "http://127.0.0.1:%d" % port
        foreign = text.replace('url: "https://pypi.org/simple/requests/"',
                               'url: "%s/simple/requests/"' % host)
        foreign = foreign.replace('url: "https://registry.npmjs.org/zod"', 'url: "%s/zod"' % host)
        foreign = foreign.replace("inputs:\n", "inputs:\n- ecosystem: deb\n  url: \"%s/debian/dists/"
                                  "bookworm/InRelease\"\n  identity: \"\"\n" % host, 1)
        path = write("foreign.lock", foreign)
        # each finding names the line of its `- ecosystem:` entry, the one above the url
        want = ["  input not from this spec's indexes: %s (line %d)" % (what, line_of(foreign, url) - 1)
                for what, url in (("deb %s/debian/dists/bookworm/InRelease" % host,
                                   'url: "%s/debian/dists/bookworm/InRelease"' % host),
                                  ("npm %s/zod" % host, 'url: "%s/zod"' % host),
                                  ("pypi %s/simple/requests/" % host,
                                   'url: "%s/simple/requests/"' % host))]
        # and the packages those inputs served have no index of the spec's left
        want += ["  package without its index among the inputs: %s %s %s packages[%d] (line %d)"
                 % package_at(foreign, eco, name) for eco, name in (("npm", "zod"),
                                                                    ("pypi", "requests"))]
        for offline in (False, True):
            rc, out, err = run(path, offline)
            lines = out.splitlines()[1:]
            check(rc == 1 and lines == want, "3: foreign inputs are findings%s (%d %s%s)"
                  % (" offline" if offline else "", rc, out, err))
        check(Recorder.seen == [], "3: the server on 127.0.0.1 got no request (got %s)"
              % Recorder.seen)
    finally:
        servers.stop_server(srv)
        shutil.rmtree(work, ignore_errors=True)
    print("check_tamper: %s" % ("FAIL" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

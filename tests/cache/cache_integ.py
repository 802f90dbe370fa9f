#!/usr/bin/python3
"""Integration tests of cache/ against real servers on 127.0.0.1.

usage: cache_integ.py CACHE_FETCH ENVLOCK SCENARIO

A fault-injecting HTTP server (http.server + ThreadingHTTPServer) runs in this
process on a free port; CACHE_FETCH (tests/cache/cache_fetch.c) does the
fetching in child processes. Each scenario makes its own temporary cache
directory and removes it, and every process started here is stopped here.
The nginx scenario exits 77 (skipped) when nginx is not installed.
"""
import hashlib
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOOL, ENVLOCK, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]
SKIP = 77


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}      # path -> requests seen
        self.times = {}       # path -> [monotonic times]
        self.statuses = {}    # path -> [status sent]
        self.auth = {}        # path -> [Authorization header or None]
        self.stop = threading.Event()

    def seen(self, path, status, auth):
        with self.lock:
            self.counts[path] = self.counts.get(path, 0) + 1
            self.times.setdefault(path, []).append(time.monotonic())
            self.statuses.setdefault(path, []).append(status)
            self.auth.setdefault(path, []).append(auth)
            return self.counts[path]


STATE = State()


def body_for(path):
    return ("hello from %s\n" % path).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send_body(self, status, body, headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path
        auth = self.headers.get("Authorization")
        with STATE.lock:
            n = STATE.counts.get(path, 0) + 1
        if path.startswith("/flaky500/"):
            status = 500 if n == 1 else 200
        elif path.startswith("/r429/"):
            status = 429 if n == 1 else 200
        elif path.startswith("/redir-other/"):
            status = 302
        else:
            status = 200
        body = body_for(path)
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
        if path.startswith("/ok/") and self.headers.get("If-None-Match") == etag:
            status = 304
        STATE.seen(path, status, auth)

        if path.startswith("/ok/") or path.startswith("/m/"):
            if status == 304:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self.send_body(200, body, [("ETag", etag), ("Content-Type", "text/plain")])
        elif path.startswith("/flaky500/") or path.startswith("/r429/"):
            if status == 500:
                self.send_body(500, b"boom\n")
            elif status == 429:
                self.send_body(429, b"slow down\n", [("Retry-After", "2")])
            else:
                self.send_body(200, body)
        elif path.startswith("/reset-once/"):
            if n == 1:
                # Close without answering: a connection reset mid-request.
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            self.send_body(200, body)
        elif path.startswith("/truncated-once/") and n > 1:
            self.send_body(200, body)
        elif path.startswith("/truncated"):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"only ten b")
            self.wfile.flush()
            self.close_connection = True
        elif path.startswith("/stall/"):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"a few bytes")
            self.wfile.flush()
            STATE.stop.wait(30)  # bounded: the test ends before this
            self.close_connection = True
        elif path.startswith("/big/"):
            self.send_body(200, b"x" * (2 << 20))
        elif path.startswith("/bigchunked/"):
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"y" * 65536
            try:
                for _ in range(64):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            self.close_connection = True
        elif path.startswith("/range/"):
            full = bytes(range(256)) * 4
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes=-"):
                part = full[-int(rng[7:]):]
                self.send_body(206, part, [("Content-Range", "bytes %d-%d/%d" % (len(full) - len(part), len(full) - 1, len(full)))])
            else:
                self.send_body(200, full)
        elif path.startswith("/chain/"):
            k = int(path.rsplit("/", 1)[1])
            port = self.server.server_address[1]
            nxt = b"next=http://127.0.0.1:%d/chain/%d\n" % (port, k - 1) if k > 0 else b"end\n"
            self.send_body(200, nxt)
        elif path.startswith("/slow/"):
            time.sleep(0.4)
            self.send_body(200, body)
        elif path.startswith("/redir-other/"):
            port = self.server.server_address[1]
            self.send_response(302)
            self.send_header("Location", "http://localhost:%d/ok/landed" % port)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_body(404, b"no\n")


def start_server():
    # The default listen backlog (5) drops SYNs under 16 parallel connects.
    http.server.ThreadingHTTPServer.request_queue_size = 128
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def fetch(cache_dir, *args, env=None):
    """Runs the fetch tool; returns (responses, stats, exit status, seconds)."""
    t0 = time.monotonic()
    p = subprocess.run([TOOL, "--dir", cache_dir, *args], capture_output=True, text=True,
                       timeout=60, env=env)
    dt = time.monotonic() - t0
    out, stats = [], None
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if "stats" in o:
            stats = o["stats"]
        else:
            out.append(o)
    if p.returncode == 2:
        raise Fail("cache_fetch usage/engine failure: %s %s" % (p.stdout, p.stderr))
    return out, stats, p.returncode, dt


def entry_files(cache_dir):
    res = []
    for root, _, files in os.walk(os.path.join(cache_dir, "v1")):
        for f in files:
            if len(f) == 64:
                res.append(os.path.join(root, f))
    return res


def temp_files(cache_dir):
    res = []
    for root, _, files in os.walk(os.path.join(cache_dir, "v1")):
        res += [os.path.join(root, f) for f in files if f.startswith(".tmp-")]
    return res


def envlock(cache_dir, *args):
    p = subprocess.run([ENVLOCK, "--json", "--cache-dir", cache_dir, *args], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None)


# ---- scenarios ----

def sc_retry_500(base, d):
    r, st, rc, _ = fetch(d, "--retries", "3", "--retry-base", "100", base + "/flaky500/a")
    check(rc == 0 and r[0]["code"] == "OK", "500 then success should succeed: %s" % r)
    check(r[0]["attempts"] == 2 and STATE.counts["/flaky500/a"] == 2, "two attempts: %s" % r)
    check(st["retries"] == 1, "one retry counted")


def sc_retry_after_429(base, d):
    r, _, rc, dt = fetch(d, "--retries", "2", "--retry-base", "50", base + "/r429/a")
    check(rc == 0 and r[0]["code"] == "OK", "429 then success: %s" % r)
    t = STATE.times["/r429/a"]
    gap = t[1] - t[0]
    print("429 Retry-After: 2 -> measured gap %.2fs" % gap)
    check(1.8 <= gap <= 4.0, "Retry-After 2 s honoured (gap %.2f s)" % gap)


def sc_retry_after_capped(base, d):
    r, _, rc, _ = fetch(d, "--retries", "2", "--retry-cap", "300", base + "/r429/b")
    gap = STATE.times["/r429/b"][1] - STATE.times["/r429/b"][0]
    print("429 Retry-After: 2 with a 300 ms cap -> gap %.2fs" % gap)
    check(rc == 0 and gap < 1.5, "Retry-After capped (gap %.2f s)" % gap)


def sc_truncated(base, d):
    r, _, rc, _ = fetch(d, "--retries", "1", "--retry-base", "50", base + "/truncated/a")
    check(rc == 1 and r[0]["reason"] == "truncated", "truncated body fails clearly: %s" % r)
    check(r[0]["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and r[0]["retryable"], "code/retryable")
    check(r[0]["attempts"] == 2, "retried once")
    check(not entry_files(d), "nothing cached")
    r, _, rc, _ = fetch(d, "--retries", "2", "--retry-base", "50", base + "/truncated-once/b")
    check(rc == 0 and r[0]["attempts"] == 2, "truncated once, then complete: %s" % r)


def sc_reset(base, d):
    r, _, rc, _ = fetch(d, "--retries", "2", "--retry-base", "50", base + "/reset-once/a")
    check(rc == 0 and r[0]["attempts"] == 2, "reset, then success: %s" % r)
    r, _, rc, _ = fetch(d, "--retries", "1", "--retry-base", "50", "--connect-timeout-ms", "2000",
                        "http://127.0.0.1:%d/x" % free_port())
    check(rc == 1 and r[0]["reason"] == "unreachable" and r[0]["retryable"] and r[0]["attempts"] == 2,
          "connection refused ends as unreachable: %s" % r)


def sc_stall(base, d):
    r, _, rc, dt = fetch(d, "--stall", "2", "--retries", "-1", base + "/stall/a")
    print("stalled connection with a 2 s stall bound failed after %.2fs" % dt)
    check(rc == 1 and r[0]["reason"] == "timeout", "stall ends as timeout: %s" % r)
    check(r[0]["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and r[0]["retryable"], "code/retryable")
    check(dt < 6, "within the bound (%.2f s)" % dt)
    check(not entry_files(d), "nothing cached")


def sc_hash_mismatch(base, d):
    url = base + "/ok/h"
    good = hashlib.sha256(body_for("/ok/h")).hexdigest()
    r, _, rc, _ = fetch(d, "--policy", "immutable", "--sha256", "0" * 64, url)
    check(rc == 1 and r[0]["reason"] == "hash_mismatch" and not r[0]["retryable"],
          "wrong hash refused: %s" % r)
    check(not entry_files(d), "a body with the wrong hash is not cached")
    r, _, rc, _ = fetch(d, "--policy", "immutable", "--sha256", good.upper(), url)
    check(rc == 0 and r[0]["sha256"] == good, "right hash accepted: %s" % r)
    r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", "--sha256", "1" * 64, url)
    check(rc == 1 and r[0]["reason"] == "offline_cache_miss", "cached body with another hash not served")


def sc_too_large(base, d):
    r, _, rc, _ = fetch(d, "--max-bytes", "100000", base + "/big/a")
    check(rc == 1 and r[0]["reason"] == "too_large", "Content-Length over the cap: %s" % r)
    r, _, rc, _ = fetch(d, "--max-bytes", "100000", base + "/bigchunked/a")
    check(rc == 1 and r[0]["reason"] == "too_large", "chunked body over the cap: %s" % r)
    check(not entry_files(d), "nothing cached")
    r, _, rc, _ = fetch(d, "--max-bytes", str(4 << 20), base + "/big/b")
    check(rc == 0 and r[0]["len"] == 2 << 20, "under the cap is fine")


def sc_corrupt_entry(base, d):
    url = base + "/ok/c"
    r, _, rc, _ = fetch(d, "--policy", "immutable", url)
    check(rc == 0, "first fetch")
    files = entry_files(d)
    check(len(files) == 1, "one entry")
    for mode in ("flip", "truncate", "meta"):
        with open(files[0], "r+b") as f:
            data = bytearray(f.read())
            if mode == "flip":
                data[-3] ^= 0xFF
            elif mode == "truncate":
                data = data[:len(data) - 5]
            else:
                data = data[:20]
            f.seek(0)
            f.truncate()
            f.write(data)
        r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", url)
        check(rc == 1 and r[0]["reason"] == "offline_cache_miss" and "corrupt" in r[0]["message"],
              "%s: corrupt entry reported offline, not served: %s" % (mode, r))
        check(not entry_files(d), "%s: corrupt entry removed" % mode)
        before = STATE.counts[url[len(base):]]
        r, _, rc, _ = fetch(d, "--policy", "immutable", url)
        check(rc == 0 and not r[0]["from_cache"] and STATE.counts[url[len(base):]] == before + 1,
              "%s: refetched" % mode)
        r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", url)
        check(rc == 0 and r[0]["from_cache"], "%s: valid again" % mode)


def sc_concurrent8(base, d):
    url = base + "/slow/shared"
    procs = [subprocess.Popen([TOOL, "--dir", d, "--policy", "immutable", url],
                              stdout=subprocess.PIPE, text=True) for _ in range(8)]
    outs = []
    for p in procs:
        out, _ = p.communicate(timeout=60)
        outs.append((p.returncode, out))
    check(all(rc == 0 for rc, _ in outs), "all eight succeed: %s" % outs)
    n = STATE.counts["/slow/shared"]
    print("8 processes, one URL: %d request(s) reached the server" % n)
    check(n == 1, "the per-entry lock lets one process fetch (%d requests)" % n)
    check(len(entry_files(d)) == 1 and not temp_files(d), "one entry, no leftovers")
    r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", url)
    check(rc == 0, "the entry is valid")


def sc_kill9(base, d):
    url = base + "/ok/k"
    # A writer killed half way leaves no visible entry.
    p = subprocess.Popen([TOOL, "--dir", d, "--hang-writing", url], stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "writing", "writer started")
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()
    check(not entry_files(d) and len(temp_files(d)) == 1, "only a temp file remains")
    r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", url)
    check(rc == 1 and r[0]["reason"] == "offline_cache_miss", "no partial entry visible")
    rc_info, info = envlock(d, "cache", "info")
    check(rc_info == 0 and info["entries"] == 0 and info["tempFiles"] == 1, "info: %s" % info)
    # With a valid entry present, a killed rewrite leaves the old one intact.
    r, _, rc, _ = fetch(d, "--policy", "immutable", url)
    check(rc == 0, "fetch")
    p = subprocess.Popen([TOOL, "--dir", d, "--hang-writing", url], stdout=subprocess.PIPE, text=True)
    p.stdout.readline()
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()
    r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", url)
    check(rc == 0 and r[0]["body"] == body_for("/ok/k").decode(), "old entry intact: %s" % r)
    # Old leftovers go with prune.
    for t in temp_files(d):
        os.utime(t, (time.time() - 7200, time.time() - 7200))
    rc_p, pr = envlock(d, "cache", "prune")
    check(rc_p == 0 and pr["tempFiles"] == 2 and not temp_files(d), "prune removed leftovers: %s" % pr)
    check(len(entry_files(d)) == 1, "prune kept the immutable entry")


def sc_etag_revalidate(base, d):
    url = base + "/ok/e"
    r, _, rc, _ = fetch(d, url)
    check(rc == 0 and not r[0]["from_cache"] and r[0]["etag"], "first fetch: %s" % r)
    r, st, rc, _ = fetch(d, url)
    check(rc == 0 and r[0]["from_cache"] and r[0]["status"] == 200, "served after 304: %s" % r)
    check(STATE.statuses["/ok/e"] == [200, 304], "server saw 200 then 304: %s" % STATE.statuses)
    check(st["revalidated"] == 1 and r[0]["body"] == body_for("/ok/e").decode(), "stats/body")
    # Immutable: no request at all the second time.
    url = base + "/ok/i"
    fetch(d, "--policy", "immutable", url)
    r, st, rc, _ = fetch(d, "--policy", "immutable", url)
    check(rc == 0 and st["network"] == 0 and STATE.counts["/ok/i"] == 1, "immutable hit")
    # The Accept header is part of the key.
    r, _, rc, _ = fetch(d, "--policy", "immutable", "--accept", "application/json", url)
    check(rc == 0 and not r[0]["from_cache"] and STATE.counts["/ok/i"] == 2, "accept in key")


def sc_offline(base, d):
    url = base + "/ok/o"
    fetch(d, url)
    r, st, rc, _ = fetch(d, "--offline", url)
    check(rc == 0 and r[0]["from_cache"] and st["network"] == 0, "offline hit: %s" % r)
    missing = base + "/ok/not-fetched?x=1"
    r, _, rc, _ = fetch(d, "--offline", missing)
    err = r[0]["error"]
    check(rc == 1 and err["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and
          err["detail"]["reason"] == "offline_cache_miss" and err["detail"]["url"] == missing and
          missing in err["message"] and not err["retryable"], "offline miss names the URL: %s" % err)
    check(STATE.counts.get("/ok/not-fetched?x=1") is None, "no request offline")


def sc_file_url(base, d):
    tmp = tempfile.mkdtemp(prefix="el-file-")
    try:
        with open(os.path.join(tmp, "doc.txt"), "wb") as f:
            f.write(b"local document\n")
        os.mkdir(os.path.join(tmp, "dir"))
        with open(os.path.join(tmp, "dir", "index.html"), "wb") as f:
            f.write(b"<html>index</html>")
        r, _, rc, _ = fetch(d, "file://%s/doc.txt" % tmp, "file://%s/dir/" % tmp,
                            "file://%s/missing" % tmp)
        by = {o["url"]: o for o in r}
        check(by["file://%s/doc.txt" % tmp]["body"] == "local document\n", "file read: %s" % r)
        check(by["file://%s/dir/" % tmp]["body"] == "<html>index</html>", "dir/ -> index.html")
        m = by["file://%s/missing" % tmp]
        check(m["reason"] == "not_found" and m["status"] == 404, "missing file: %s" % m)
        check("content_type" not in by["file://%s/doc.txt" % tmp], "a file has no type")
        check(by["file://%s/dir/" % tmp].get("content_type") == "text/html", "dir/ page is HTML")
        # A directory with a PEP 691 page too: a request asking for that type
        # reads index.json (the form with upload times), typed as such; one
        # that does not ask, or refuses it with q=0, still reads index.html;
        # without index.json the JSON-first Accept falls back to the HTML.
        with open(os.path.join(tmp, "dir", "index.json"), "wb") as f:
            f.write(b'{"meta": {"api-version": "1.1"}}')
        os.mkdir(os.path.join(tmp, "html only"))
        with open(os.path.join(tmp, "html only", "index.html"), "wb") as f:
            f.write(b"<html>503</html>")
        pep691 = "application/vnd.pypi.simple.v1+json"
        for accept, dir_, body, ctype in (
                (pep691 + ", text/html;q=0.01", "dir/", '{"meta": {"api-version": "1.1"}}', pep691),
                ("text/html, " + pep691 + " ; q=0.5", "dir/", '{"meta": {"api-version": "1.1"}}', pep691),
                ("text/html", "dir/", "<html>index</html>", "text/html"),
                (pep691 + ";q=0, text/html", "dir/", "<html>index</html>", "text/html"),
                ("*/*", "dir/", "<html>index</html>", "text/html"),
                (pep691, "html%20only/", "<html>503</html>", "text/html")):
            url = "file://%s/%s" % (tmp, dir_)
            r, _, rc, _ = fetch(d, "--accept", accept, url)
            check(rc == 0 and r[0]["body"] == body and r[0].get("content_type") == ctype,
                  "Accept %r on %s: %s" % (accept, dir_, r))
            r, _, rc, _ = fetch(d, "--offline", "--accept", accept, url)
            check(rc == 0 and r[0]["from_cache"] and r[0].get("content_type") == ctype,
                  "the type is kept in the cache: %s" % r)
    finally:
        shutil.rmtree(tmp)


def sc_mirror(base, d):
    canon = "https://index.example.invalid/simple"
    url = canon + "/pkg/"
    r, _, rc, _ = fetch(d, "--mirror", canon + "=" + base + "/m", url)
    check(rc == 0 and STATE.counts.get("/m/pkg/") == 1, "request went to the mirror: %s" % r)
    check(r[0]["url"] == url and r[0]["final_url"] == url, "reported URL is canonical: %s" % r)
    r, _, rc, _ = fetch(d, "--offline", url)
    check(rc == 0 and r[0]["from_cache"], "cache key is the canonical URL")
    # Prefix boundary: /simplex is not under /simple.
    r, _, rc, _ = fetch(d, "--mirror", canon + "=" + base + "/m", "--retries", "-1",
                        "--connect-timeout-ms", "2000", canon + "x/a")
    check(rc == 1 and STATE.counts.get("/m/x/a") is None, "no rewrite past a boundary")
    # Environment and config file, and precedence (option > env > file).
    cfgdir = tempfile.mkdtemp(prefix="el-cfg-")
    try:
        with open(os.path.join(cfgdir, "mirrors"), "w") as f:
            f.write("# test mirrors\n%s = %s/m/from-file\n\nhttps://other.invalid=file:///nowhere\n"
                    % (canon, base))
        env = dict(os.environ, ENVLOCK_CONFIG=cfgdir)
        r, _, rc, _ = fetch(d, "--mirror-config", canon + "/env/", env=env)
        check(rc == 0 and STATE.counts.get("/m/from-file/env/") == 1, "config file: %s" % r)
        env["ENVLOCK_MIRRORS"] = "https://x.invalid=http://127.0.0.1:1, %s=%s/m/from-env" % (canon, base)
        r, _, rc, _ = fetch(d, "--mirror-config", canon + "/env2/", env=env)
        check(rc == 0 and STATE.counts.get("/m/from-env/env2/") == 1, "env beats file: %s" % r)
        r, _, rc, _ = fetch(d, "--mirror-config", "--mirror", canon + "=" + base + "/m/opt",
                            canon + "/env3/", env=env)
        check(rc == 0 and STATE.counts.get("/m/opt/env3/") == 1, "option beats env: %s" % r)
        env["ENVLOCK_MIRRORS"] = "not-a-pair"
        p = subprocess.run([TOOL, "--dir", d, "--mirror-config", canon + "/y"], env=env,
                           capture_output=True, text=True)
        check(p.returncode == 2 and "ENVLOCK_MIRRORS" in p.stdout, "malformed env refused: %s" % p.stdout)
    finally:
        shutil.rmtree(cfgdir)
    # A file:// mirror.
    tmp = tempfile.mkdtemp(prefix="el-mirror-")
    try:
        os.makedirs(os.path.join(tmp, "pkg2"))
        with open(os.path.join(tmp, "pkg2", "index.html"), "w") as f:
            f.write("file mirror page")
        r, _, rc, _ = fetch(d, "--mirror", canon + "=file://" + tmp, canon + "/pkg2/")
        check(rc == 0 and r[0]["body"] == "file mirror page" and r[0]["url"] == canon + "/pkg2/",
              "file:// mirror: %s" % r)
    finally:
        shutil.rmtree(tmp)


def sc_auth(base, d):
    port = base.rsplit(":", 1)[1]
    r, _, rc, _ = fetch(d, "--header", "Authorization: Bearer s3cret-token", base + "/redir-other/a")
    check(rc == 0 and r[0]["final_url"] == "http://localhost:%s/ok/landed" % port, "redirect: %s" % r)
    check(STATE.auth["/redir-other/a"] == ["Bearer s3cret-token"], "first host gets the header")
    check(STATE.auth["/ok/landed"] == [None], "another host never does: %s" % STATE.auth)
    for f in entry_files(d):
        check(b"s3cret" not in open(f, "rb").read(), "credentials never stored")
    # Not to a mirror on another host either.
    canon = "http://localhost:%s/ok" % port
    r, _, rc, _ = fetch(d, "--mirror", canon + "=" + base + "/m", "--header",
                        "Authorization: Bearer s3cret-token", canon + "/z")
    check(rc == 0 and STATE.auth["/m/z"] == [None], "mirror on another host: %s" % STATE.auth)
    # netrc credentials go to their host only.
    netrc = os.path.join(d, "..", os.path.basename(d) + ".netrc")
    with open(netrc, "w") as f:
        f.write("machine 127.0.0.1 login envuser password envpass\n")
    try:
        r, _, rc, _ = fetch(d, "--netrc-file", netrc, base + "/redir-other/n")
        check(rc == 0, "netrc fetch: %s" % r)
        check(STATE.auth["/redir-other/n"] == ["Basic ZW52dXNlcjplbnZwYXNz"], "netrc used: %s" % STATE.auth)
        check(STATE.auth["/ok/landed"] == [None, None], "netrc not sent elsewhere: %s" % STATE.auth)
    finally:
        os.unlink(netrc)
    # user:password in a URL is never reported.
    r, _, rc, _ = fetch(d, "--offline", "http://user:pw@127.0.0.1:1/secret")
    check("pw" not in json.dumps(r[0]["error"]), "credentials redacted: %s" % r)


def sc_parallel(base, d):
    urls = [base + "/slow/p%d" % i for i in range(32)]
    r, st, rc, dt = fetch(d, "--parallel", "16", *urls)
    print("32 requests of 0.4 s each, 16 in parallel: %.2fs" % dt)
    check(rc == 0 and len(r) == 32, "all done")
    check(dt < 2.0, "parallel (took %.2f s; 12.8 s one at a time)" % dt)


def sc_chain(base, d):
    r, st, rc, _ = fetch(d, "--chain", base + "/chain/5", base + "/chain/2")
    check(rc == 0 and len(r) == 9, "requests submitted from callbacks all complete: %s" % r)
    check(st["requests"] == 9 and st["network"] == 6 and st["hits"] == 3,
          "repeated URLs fetched once per run: %s" % st)


def sc_range(base, d):
    url = base + "/range/wheel"
    r, _, rc, _ = fetch(d, "--policy", "immutable", "--header", "Range: bytes=-100", url)
    check(rc == 0 and r[0]["status"] == 206 and r[0]["len"] == 100, "tail read: %s" % r)
    r, _, rc, _ = fetch(d, "--policy", "immutable", url)
    check(rc == 0 and r[0]["status"] == 200 and r[0]["len"] == 1024 and not r[0]["from_cache"],
          "the whole file is another entry: %s" % r)
    r, _, rc, _ = fetch(d, "--offline", "--policy", "immutable", "--header", "Range: bytes=-100", url)
    check(rc == 0 and r[0]["status"] == 206 and r[0]["len"] == 100 and r[0]["from_cache"],
          "the range is served from its own entry: %s" % r)


def sc_export_import(base, d):
    fetch(d, "--policy", "immutable", base + "/ok/x1", base + "/ok/x2")
    fetch(d, base + "/ok/x3")
    arc = os.path.join(d, "..", os.path.basename(d) + ".tar.zst")
    rc, st = envlock(d, "cache", "export", arc)
    check(rc == 0 and st["entries"] == 3, "export: %s" % st)
    d2 = tempfile.mkdtemp(prefix="el-imp-")
    try:
        rc, st = envlock(d2, "cache", "import", arc)
        check(rc == 0 and st["entries"] == 3, "import: %s" % st)
        r, _, rc, _ = fetch(d2, "--offline", base + "/ok/x3")
        check(rc == 0 and r[0]["from_cache"], "imported entry served offline")
        rc, info = envlock(d2, "cache", "info")
        check(info["entries"] == 3 and info["immutable"] == 2 and info["revalidated"] == 1, "%s" % info)
        rc, st = envlock(d2, "cache", "prune", "--all")
        check(rc == 0 and st["entries"] == 3 and not entry_files(d2), "prune --all: %s" % st)
    finally:
        shutil.rmtree(d2)
        os.unlink(arc)


# ---- nginx ----

def find_nginx():
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if not nginx:
        print("nginx not installed: skipped")
        sys.exit(SKIP)
    return nginx


def start_nginx(nginx, root, www, listen_extra="", server_extra=""):
    """Starts nginx (daemon off, private prefix in root) serving www; returns (proc, port)."""
    port = free_port()
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = os.path.join(root, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""%sdaemon off;
worker_processes 1;
pid %s/nginx.pid;
error_log %s/error.log;
events { worker_connections 64; }
http {
  log_format el '$request_uri $status $server_protocol $connection';
  access_log %s/access.log el;
  client_body_temp_path %s/tmp_body;
  proxy_temp_path %s/tmp_proxy;
  fastcgi_temp_path %s/tmp_fastcgi;
  uwsgi_temp_path %s/tmp_uwsgi;
  scgi_temp_path %s/tmp_scgi;
  gzip on;
  gzip_types text/html text/plain;
  gzip_min_length 10;
  server {
    listen 127.0.0.1:%d%s;
    root %s;
    %s
  }
}
""" % (user, root, root, root, root, root, root, root, root, port, listen_extra, www, server_extra))
    proc = subprocess.Popen([nginx, "-p", root, "-c", conf], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    stop_process(proc)
    raise Fail("nginx did not start: %s" % open(os.path.join(root, "error.log")).read())


def stop_process(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def sc_nginx(base, d):
    nginx = find_nginx()
    root = tempfile.mkdtemp(prefix="el-nginx-")
    proc = None
    try:
        www = os.path.join(root, "www")
        os.makedirs(os.path.join(www, "simple", "demo"))
        with open(os.path.join(www, "simple", "demo", "index.html"), "w") as f:
            f.write("<a href='demo-1.0.tar.gz'>demo-1.0.tar.gz</a>\n")
        with open(os.path.join(www, "blob.bin"), "wb") as f:
            f.write(os.urandom(300000))
        proc, port = start_nginx(nginx, root, www)
        nb = "http://127.0.0.1:%d" % port
        page = nb + "/simple/demo/"
        r, _, rc, _ = fetch(d, page, nb + "/blob.bin", nb + "/nothing")
        by = {o["url"]: o for o in r}
        check(by[page]["code"] == "OK" and "demo-1.0" in by[page]["body"], "GET page: %s" % r)
        sha = hashlib.sha256(open(os.path.join(www, "blob.bin"), "rb").read()).hexdigest()
        check(by[nb + "/blob.bin"]["sha256"] == sha, "binary body intact")
        check(by[nb + "/nothing"]["reason"] == "not_found", "404")
        r, st, rc, _ = fetch(d, page, nb + "/blob.bin")
        check(rc == 0 and all(o["from_cache"] for o in r) and st["revalidated"] == 2,
              "ETag revalidation against nginx: %s %s" % (r, st))
        log = open(os.path.join(root, "access.log")).read()
        check(log.count(" 304 ") == 2, "nginx answered 304 twice:\n" + log)
    finally:
        if proc:
            stop_process(proc)
        shutil.rmtree(root, ignore_errors=True)


def sc_nginx_h2(base, d):
    """HTTPS + HTTP/2 from nginx with a certificate made here: the CA bundle
    option, and multiplexing (many requests, few connections)."""
    nginx = find_nginx()
    openssl = shutil.which("openssl")
    if not openssl:
        print("openssl not installed: skipped")
        sys.exit(SKIP)
    root = tempfile.mkdtemp(prefix="el-nginx-h2-")
    proc = None
    try:
        www = os.path.join(root, "www")
        os.makedirs(www)
        for i in range(24):
            with open(os.path.join(www, "f%02d.txt" % i), "w") as f:
                f.write("file %d\n" % i * 50)
        cert, key = os.path.join(root, "cert.pem"), os.path.join(root, "key.pem")
        subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc, port = start_nginx(nginx, root, www, " ssl http2",
                                 "ssl_certificate %s; ssl_certificate_key %s;" % (cert, key))
        urls = ["https://127.0.0.1:%d/f%02d.txt" % (port, i) for i in range(24)]
        r, _, rc, _ = fetch(d, "--retries", "-1", urls[0])
        check(rc == 1 and r[0]["reason"] == "unreachable", "untrusted certificate refused: %s" % r)
        r, _, rc, dt = fetch(d, "--ca-bundle", cert, "--parallel", "8", *urls)
        check(rc == 0 and len(r) == 24, "all fetched over TLS: %s" % r[:2])
        log = open(os.path.join(root, "access.log")).read().split("\n")
        lines = [ln.split() for ln in log if ln.startswith("/f")]
        check(all(p[2] == "HTTP/2.0" for p in lines), "HTTP/2 used:\n%s" % "\n".join(log))
        conns = {p[3] for p in lines}
        print("24 requests over HTTP/2: %d connection(s), %.2fs" % (len(conns), dt))
        check(len(conns) <= 2, "multiplexed on few connections (%d)" % len(conns))
    finally:
        if proc:
            stop_process(proc)
        shutil.rmtree(root, ignore_errors=True)


def main():
    fn = globals().get("sc_" + SCENARIO)
    if not fn:
        print("unknown scenario", SCENARIO)
        return 2
    srv = start_server()
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    d = tempfile.mkdtemp(prefix="el-cache-")
    try:
        fn(base, d)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        STATE.stop.set()
        srv.shutdown()
        srv.server_close()
        shutil.rmtree(d, ignore_errors=True)
    print("ok", SCENARIO)
    return 0


if __name__ == "__main__":
    sys.exit(main())

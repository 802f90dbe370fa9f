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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import servers  # noqa: E402
import specs  # noqa: E402

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


DEMO_METADATA = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
DEMO_WHEEL = b"not really a zip, never opened by these tests\n"


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
        if path.startswith("/r429long/"):
            status = 429
        elif path.startswith("/redir-same/") or path.startswith("/redir-to/"):
            status = 301
        elif path.startswith("/flaky500/"):
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
            # "-ma" in the name: a max-age on the 200 and on the 304.
            fresh = [("Cache-Control", "max-age=1")] if "-ma" in path else []
            if status == 304:
                self.send_response(304)
                self.send_header("ETag", etag)
                for k, v in fresh:
                    self.send_header(k, v)
                self.end_headers()
                return
            self.send_body(200, body, [("ETag", etag), ("Content-Type", "text/plain")] + fresh)
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
        elif path.startswith("/nv/"):
            # No validators, no Cache-Control: every request a 200 ("chg"
            # in the name: a new body each time).
            self.send_body(200, body + (b"%d\n" % n if "chg" in path else b""),
                           [("Content-Type", "text/plain")])
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
        elif path.startswith("/redir-same/"):
            # Same host, another path (a registry normalizing a name).
            self.send_response(301)
            self.send_header("Location", "/ok/normalized")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path.startswith("/redir-to/"):
            # 302 to whatever URL follows the prefix (the https->http test).
            self.send_response(302)
            self.send_header("Location", path[len("/redir-to/"):])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path.startswith("/drip/"):
            # One byte a second of a 100000-byte body: alive, never done.
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                while not STATE.stop.wait(1.0):
                    self.wfile.write(b"d")
                    self.wfile.flush()
            except OSError:
                pass
            self.close_connection = True
        elif path.startswith("/noresp/"):
            # Reads the request, never answers (bounded by the test's end).
            STATE.stop.wait(120)
            self.close_connection = True
        elif path.startswith("/r429long/"):
            self.send_body(429, b"come back in an hour\n", [("Retry-After", "3600")])
        elif path.startswith("/trickle/"):
            # 8 KiB at about 5 KiB/s: slow, but above the minimum speed.
            self.send_response(200)
            self.send_header("Content-Length", str(8 * 1024))
            self.end_headers()
            for _ in range(8):
                self.wfile.write(b"t" * 1024)
                self.wfile.flush()
                time.sleep(0.2)
        elif path.startswith("/loop/"):
            self.send_response(302)
            self.send_header("Location", path)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/simple/demo/":
            # A one-file PyPI project page (PEP 503) with a PEP 658 .metadata.
            meta = DEMO_METADATA
            link = ('<a href="../../files/demo-1.0-py3-none-any.whl#sha256=%s" '
                    'data-dist-info-metadata="sha256=%s">demo-1.0-py3-none-any.whl</a>\n'
                    % (hashlib.sha256(DEMO_WHEEL).hexdigest(), hashlib.sha256(meta).hexdigest()))
            self.send_body(200, ("<html><body>%s</body></html>\n" % link).encode(),
                           [("Content-Type", "text/html")])
        elif path == "/files/demo-1.0-py3-none-any.whl.metadata":
            self.send_body(200, DEMO_METADATA)
        elif path == "/files/demo-1.0-py3-none-any.whl":
            self.send_body(200, DEMO_WHEEL)
        else:
            self.send_body(404, b"no\n")


# The default listen backlog (5) drops SYNs under 16 parallel connects.
BACKLOG = 128


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
                        "http://127.0.0.1:%d/x" % servers.free_port())
    check(rc == 1 and r[0]["reason"] == "connect" and r[0]["retryable"] and r[0]["attempts"] == 2,
          "connection refused ends as connect: %s" % r)


def sc_unreachable_host(base, d):
    """A host that cannot be reached is given up once per cache (issue 21):
    one request retries it while the others wait, then every request to it
    fails at once with the same reason and libcurl's words; DNS failures get
    one retry whatever --retries says. Counted in attempts, not timed."""
    closed = "http://127.0.0.1:%d" % servers.free_port()
    urls = [closed + "/p%d" % i for i in range(6)]
    r, st, rc, _ = fetch(d, "--retries", "4", "--retry-base", "50", *urls, base + "/ok/alive")
    bad = [x for x in r if x["url"] != base + "/ok/alive"]
    check(rc == 1 and len(bad) == 6 and all(x["reason"] == "connect" and x["retryable"] for x in bad),
          "every request to the closed port fails as connect: %s" % r)
    check([x["code"] for x in r if x["url"] == base + "/ok/alive"] == ["OK"],
          "another host is not affected: %s" % r)
    # 6 first attempts (all started at once), 4 retries by one request, and
    # the other host's one.
    check(st["network"] == 6 + 4 + 1 and st["retries"] == 4,
          "the closed port is retried by one request only: %s" % st)
    led = [x for x in bad if "after 5 attempts: " in x["message"]]
    rest = [x for x in bad if "not tried again" in x["message"]]
    check(len(led) == 1 and len(rest) == 5, "one request gave up, the others failed at once: %s" % bad)
    words = led[0]["message"].split(": ", 1)[1]
    check(all(words in x["message"] for x in rest), "the same words: %s" % bad)
    check(all(x["error"]["detail"]["reason"] == "connect" for x in bad), "detail.reason kept: %s" % bad)
    # One at a time: the first request uses its retries, the rest make no attempt.
    r, st, rc, _ = fetch(d, "--retries", "4", "--retry-base", "50", "--parallel", "1", *urls)
    check(rc == 1 and st["network"] == 5 and [x["attempts"] for x in r] == [5, 0, 0, 0, 0, 0],
          "later requests to a host given up make no attempt: %s %s" % (st, r))
    sc_timeout_host(d)
    # A name that does not resolve (RFC 6761 .invalid): one retry, not four.
    try:
        socket.getaddrinfo("nonexistent.invalid", 80)
        print("nonexistent.invalid resolves here: DNS part skipped")
        return
    except socket.gaierror:
        pass
    dns = ["http://nonexistent.invalid/p%d" % i for i in range(3)]
    r, st, rc, _ = fetch(d, "--retries", "4", "--retry-base", "50", "--parallel", "1", *dns)
    check(rc == 1 and all(x["reason"] == "dns" for x in r) and st["network"] == 2 and
          "after 2 attempts: Could not resolve host: nonexistent.invalid" in r[0]["message"],
          "a DNS failure is retried once, then remembered: %s %s" % (st, r))
    # A proxy whose name does not resolve: reason proxy, the same rule.
    env = env_with(http_proxy="http://nonexistent-proxy.invalid:3128")
    for k in ("no_proxy", "NO_PROXY"):
        env.pop(k, None)
    r, st, rc, _ = fetch(d, "--retries", "4", "--retry-base", "50", "--parallel", "1",
                         base + "/ok/p1", base + "/ok/p2", env=env)
    check(rc == 1 and all(x["reason"] == "proxy" for x in r) and st["network"] == 2 and
          "through the proxy after 2 attempts" in r[0]["message"],
          "an unresolvable proxy: one retry, then remembered: %s %s" % (st, r))


def blackhole():
    """A listening socket whose accept queue is full, so that the kernel
    drops further SYNs and a connect times out, as behind a firewall that
    drops packets; (listener, fillers), or None where connects do not
    time out here."""
    lsn = socket.socket()
    lsn.bind(("127.0.0.1", 0))
    lsn.listen(0)
    fillers = []
    for _ in range(3):
        f = socket.socket()
        f.setblocking(False)
        f.connect_ex(lsn.getsockname())
        fillers.append(f)
    time.sleep(0.2)
    probe = socket.socket()
    probe.settimeout(0.5)
    try:
        probe.connect(lsn.getsockname())
        timed_out = False
    except socket.timeout:
        timed_out = True
    except OSError:
        timed_out = False
    probe.close()
    if timed_out:
        return lsn, fillers
    for f in fillers + [lsn]:
        f.close()
    return None


def sc_timeout_host(d):
    """A host whose connects time out is given up like one that refuses
    them: one request uses its retries, the others fail at once with
    reason timeout (a firewall dropping packets made every request wait
    through every attempt's connect timeout)."""
    bh = blackhole()
    if not bh:
        print("connects to a full accept queue do not time out here: timeout part skipped")
        return
    try:
        url = "http://%s:%d" % bh[0].getsockname()
        urls = [url + "/t%d" % i for i in range(4)]
        r, st, rc, _ = fetch(d, "--retries", "2", "--retry-base", "50", "--parallel", "1",
                             "--connect-timeout-ms", "500", *urls)
        check(rc == 1 and all(x["reason"] == "timeout" and x["retryable"] for x in r) and
              st["network"] == 3 and [x["attempts"] for x in r] == [3, 0, 0, 0] and
              all("not tried again" in x["message"] for x in r[1:]),
              "a host whose connects time out is given up once: %s %s" % (st, r))
    finally:
        for f in bh[1] + [bh[0]]:
            f.close()


def env_with(**kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_") and k != "NETRC"}
    env.update(kw)
    return env


def detail(r):
    return r["error"]["detail"]


def sc_stall(base, d):
    r, _, rc, dt = fetch(d, "--stall", "2", "--retries", "-1", base + "/stall/a")
    print("stalled connection with a 2 s minimum-speed window failed after %.2fs" % dt)
    check(rc == 1 and r[0]["reason"] == "too_slow", "a stall is too slow: %s" % r)
    check(r[0]["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and r[0]["retryable"], "code/retryable")
    check(detail(r[0])["limit"] == "speed" and detail(r[0])["seconds"] == 2, "detail: %s" % r)
    check(dt < 6, "within the bound (%.2f s)" % dt)
    check(not entry_files(d), "nothing cached")


def sc_drip(base, d):
    """One byte a second: the old stall rule (a byte within 30 s) never
    tripped; the minimum speed and the transfer timeout both end it."""
    url = base + "/drip/a"
    r, _, rc, dt = fetch(d, "--stall", "2", "--retries", "-1", url)
    print("drip, 2 s minimum-speed window: %.2fs" % dt)
    check(rc == 1 and r[0]["reason"] == "too_slow" and r[0]["retryable"], "too slow: %s" % r)
    check(detail(r[0])["url"] == url and detail(r[0])["seconds"] == 2, "detail: %s" % r)
    check(dt < 10, "bounded (%.2f s)" % dt)
    # Defaults (1 KiB/s over 30 s) with the transfer timeout at 3 s by env.
    r, _, rc, dt = fetch(d, url, env=env_with(ENVLOCK_TRANSFER_TIMEOUT="3"))
    print("drip, ENVLOCK_TRANSFER_TIMEOUT=3: %.2fs" % dt)
    e = detail(r[0])
    check(rc == 1 and r[0]["reason"] == "timeout" and r[0]["retryable"], "timeout: %s" % r)
    check(e["limit"] == "transfer" and e["seconds"] == 3 and e["url"] == url, "detail: %s" % e)
    check("ENVLOCK_TRANSFER_TIMEOUT" in r[0]["message"], "the message names the variable")
    check(dt < 20, "bounded (%.2f s)" % dt)
    check(not entry_files(d), "nothing cached")
    # The run's bound ends every request of the run, here two that hang.
    r, _, rc, dt = fetch(d, base + "/drip/b", base + "/noresp/b", env=env_with(ENVLOCK_RUN_TIMEOUT="3"))
    print("drip + no response, ENVLOCK_RUN_TIMEOUT=3: %.2fs" % dt)
    check(rc == 1 and len(r) == 2 and all(o["reason"] == "timeout" and detail(o)["limit"] == "run"
                                          and detail(o)["seconds"] == 3 for o in r), "run: %s" % r)
    check(dt < 20, "bounded (%.2f s)" % dt)
    # Slow but above the minimum speed is fine.
    r, _, rc, dt = fetch(d, "--stall", "1", base + "/trickle/a")
    check(rc == 0 and r[0]["len"] == 8192 and r[0]["attempts"] == 1, "a slow body arrives: %s" % r)
    # A malformed bound is a usage error, not a silent default.
    p = subprocess.run([TOOL, "--dir", d, url], capture_output=True, text=True, timeout=60,
                       env=env_with(ENVLOCK_RUN_TIMEOUT="soon"))
    check(p.returncode == 2 and "ENVLOCK_RUN_TIMEOUT" in p.stdout, "malformed: %s" % p.stdout)


def sc_no_response(base, d):
    """A server that reads the request and never answers (155 s before)."""
    url = base + "/noresp/a"
    r, _, rc, dt = fetch(d, "--stall", "2", url, env=env_with(ENVLOCK_RETRY_MAX_TIME="3"))
    print("no response, 2 s window, ENVLOCK_RETRY_MAX_TIME=3: %.2fs, %d attempts" % (dt, r[0]["attempts"]))
    check(rc == 1 and r[0]["reason"] == "too_slow" and r[0]["retryable"], "too slow: %s" % r)
    check(2 <= r[0]["attempts"] <= 3, "retried within the budget only: %s" % r)
    check(dt < 15, "bounded (%.2f s)" % dt)
    r, _, rc, dt = fetch(d, url, env=env_with(ENVLOCK_TRANSFER_TIMEOUT="3"))
    print("no response, ENVLOCK_TRANSFER_TIMEOUT=3: %.2fs" % dt)
    check(rc == 1 and r[0]["reason"] == "timeout" and detail(r[0])["limit"] == "transfer", "%s" % r)
    check(dt < 20, "bounded (%.2f s)" % dt)


def sc_retry_after_long(base, d):
    """429 with Retry-After: 3600 (120 s of capped waits before): past the
    retry budget, so it is reported at once, with the time asked for."""
    url = base + "/r429long/a"
    r, _, rc, dt = fetch(d, url)
    print("429 Retry-After: 3600, default budget: %.2fs" % dt)
    e = detail(r[0])
    check(rc == 1 and r[0]["reason"] == "http_status" and r[0]["status"] == 429, "%s" % r)
    check(r[0]["retryable"] and r[0]["error"]["retryable"], "retryable: %s" % r)
    check(e["retryAfterSeconds"] == 3600 and e["url"] == url and e["status"] == 429, "detail: %s" % e)
    check(r[0]["attempts"] == 1 and STATE.counts["/r429long/a"] == 1, "no retry: %s" % r)
    check(dt < 10, "at once (%.2f s)" % dt)




def sc_retry_after_resolve(base, d):
    """The same 429 (Retry-After: 3600) behind `envlock resolve`, for a PyPI
    index and for an npm registry: the readers report the cache's failure
    whole (detail.retryAfterSeconds 3600, status 429, retryable), at once."""
    bases = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "corpus", "demo", "bases.yaml")
    # the spec's canonical index and registry, mapped to the server
    cases = (("pypi", "    python:\n      dependencies: [requests]",
              "https://pypi.org/simple=%s/r429long/simple" % base,
              "/r429long/simple/requests/", "https://pypi.org/simple/requests/"),
             ("npm", "    node:\n      dependencies: [zod]",
              "https://registry.npmjs.org=%s/r429long/npm" % base,
              "/r429long/npm/zod", "https://registry.npmjs.org/zod"))
    for eco, packages, mirror, path, canonical in cases:
        spec = os.path.join(d, "%s.yaml" % eco)
        with open(spec, "w") as f:
            f.write(specs.base_spec("retry-after", packages))
        t0 = time.monotonic()
        rc, body = envlock(os.path.join(d, "cache-" + eco), "--mirror", mirror, "resolve",
                           "--bases", bases, spec, "-o", os.path.join(d, eco + ".lock"))
        dt = time.monotonic() - t0
        print("%s resolve behind a 429 Retry-After: 3600: %.2fs" % (eco, dt))
        body = body or {}
        e = body.get("detail", {})
        check(rc == 25 and body.get("code") == "DL_ENV_PACKAGE_NOT_FOUND",
              "%s: PACKAGE_NOT_FOUND, exit 25 (%s): %s" % (eco, rc, body))
        check(body.get("retryable") is True, "%s: retryable: %s" % (eco, body))
        check(e.get("retryAfterSeconds") == 3600 and e.get("status") == 429 and
              e.get("reason") == "http_status" and e.get("url") == canonical,
              "%s: the cache's detail, whole: %s" % (eco, e))
        check(STATE.counts.get(path) == 1, "%s: asked once: %s" % (eco, STATE.counts))
        check(dt < 30, "%s: at once (%.2f s)" % (eco, dt))


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


def newest_entry(cache_dir):
    return max(entry_files(cache_dir), key=lambda e: os.stat(e).st_mtime_ns)


def sc_on_demand(base, d):
    """body_on_demand: a 304 is served from the entry's metadata alone and,
    with nothing a later run reads changed, leaves the entry file as it was;
    the body is read (and verified) only when asked for; a 304 that carries
    a max-age rewrites the entry, so that the next run needs no request."""
    url = base + "/ok/od"
    fetch(d, url)
    [entry] = entry_files(d)
    before = open(entry, "rb").read()
    st0 = os.stat(entry)
    r, st, rc, _ = fetch(d, "--on-demand", url)
    want = body_for("/ok/od")
    check(rc == 0 and r[0]["deferred"] and r[0]["status"] == 200 and r[0]["len"] == len(want) and
          r[0]["sha256"] == hashlib.sha256(want).hexdigest() and r[0]["body"] == want.decode(),
          "a deferred body, read on demand: %s" % r)
    check(STATE.statuses["/ok/od"] == [200, 304] and st["revalidated"] == 1, "revalidated: %s" % st)
    st1 = os.stat(entry)
    check((st1.st_ino, st1.st_mtime_ns) == (st0.st_ino, st0.st_mtime_ns) and
          open(entry, "rb").read() == before, "a plain 304 does not rewrite the entry")
    # Without --on-demand the body is read as before.
    r, _, rc, _ = fetch(d, url)
    check(rc == 0 and "deferred" not in r[0] and r[0]["body"] == want.decode(), "eager: %s" % r)
    # A damaged body goes unnoticed until it is read; then it is refused and removed.
    data = bytearray(before)
    data[-3] ^= 0x55
    with open(entry, "wb") as f:
        f.write(data)
    r, _, rc, _ = fetch(d, "--on-demand", "--no-read", url)
    check(rc == 0 and r[0]["deferred"] and "body" not in r[0] and os.path.exists(entry),
          "unread, the damage is not looked at: %s" % r)
    r, _, rc, _ = fetch(d, "--on-demand", url)
    check(r[0].get("body_error") and "body" not in r[0] and not os.path.exists(entry),
          "read, the damaged entry is refused and removed: %s" % r)
    # A server that sends no validators: a 200 of the body held is not
    # written again (and, on demand, served as fetched); a new body is.
    for name, rewritten in (("/nv/same", False), ("/nv/chg", True)):
        fetch(d, "--on-demand", base + name)
        entry = newest_entry(d)
        st0 = os.stat(entry)
        r, st, rc, _ = fetch(d, "--on-demand", base + name)
        st1 = os.stat(entry) if os.path.exists(entry) else None
        check(rc == 0 and st["network"] == 1 and not r[0]["from_cache"] and "deferred" not in r[0],
              "%s fetched again: %s %s" % (name, r, st))
        same = st1 is not None and (st1.st_ino, st1.st_mtime_ns) == (st0.st_ino, st0.st_mtime_ns)
        check(same != rewritten, "%s: entry rewritten %s, want %s" % (name, not same, rewritten))
    # A 304 that restarts a max-age window is written down.
    url = base + "/ok/od-ma"
    fetch(d, url)
    time.sleep(1.2)
    r, st, rc, _ = fetch(d, "--on-demand", url)
    check(rc == 0 and st["revalidated"] == 1, "stale after its max-age: %s" % st)
    r, st, rc, _ = fetch(d, "--on-demand", url)
    check(rc == 0 and st["network"] == 0 and st["hits"] == 1 and r[0]["body"] == body_for("/ok/od-ma").decode(),
          "fresh again after the 304's max-age: %s" % st)


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


def tls_server(root):
    """A second fault server, over TLS with a certificate made here."""
    openssl = shutil.which("openssl")
    if not openssl:
        return None, None
    cert, key = os.path.join(root, "cert.pem"), os.path.join(root, "key.pem")
    subprocess.run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return servers.serve_handler(Handler, tls=(cert, key), backlog=BACKLOG), cert


def sc_redirect(base, d):
    port = base.rsplit(":", 1)[1]
    # On the same host: followed; the page's URL is the redirect's.
    r, _, rc, _ = fetch(d, base + "/redir-same/a")
    check(rc == 0 and r[0]["final_url"] == base + "/ok/normalized", "same host: %s" % r)
    # Off the host: refused before anything is sent there, naming both URLs.
    url = base + "/redir-other/a"
    before = len(entry_files(d))
    r, _, rc, dt = fetch(d, url)
    e = r[0]["error"]
    check(rc == 1 and e["code"] == "DL_ENV_POLICY_DENIED" and not e["retryable"], "refused: %s" % r)
    check(e["detail"]["reason"] == "redirect_refused" and e["detail"]["url"] == url and
          e["detail"]["location"] == "http://localhost:%s/ok/landed" % port, "detail: %s" % e)
    check(url in e["message"] and "localhost:%s" % port in e["message"], "both URLs named: %s" % e)
    check("/ok/landed" not in STATE.counts, "the other host never asked")
    check(len(entry_files(d)) == before, "nothing cached")
    # Allowed by option or by ENVLOCK_REDIRECT_HOSTS: followed, and what is
    # reported stays the URL requested (a lock never names that host).
    r, _, rc, _ = fetch(d, "--redirect-host", "LocalHost", url)
    check(rc == 0 and r[0]["final_url"] == url and r[0]["body"] == body_for("/ok/landed").decode(),
          "allowed by option: %s" % r)
    r, _, rc, _ = fetch(d, base + "/redir-other/b", env=env_with(ENVLOCK_REDIRECT_HOSTS="x.invalid, localhost"))
    check(rc == 0 and r[0]["final_url"] == base + "/redir-other/b", "allowed by env: %s" % r)
    # Under a mirror: a same-host redirect maps back to canonical; an
    # off-host one is refused even though the mirror is another host.
    canon = "https://index.example.invalid/simple"
    r, _, rc, _ = fetch(d, "--mirror", canon + "=" + base, canon + "/redir-same/m")
    check(rc == 0 and r[0]["final_url"] == canon + "/ok/normalized", "mirror, same host: %s" % r)
    r, _, rc, _ = fetch(d, "--mirror", canon + "=" + base, canon + "/redir-other/m")
    check(rc == 1 and r[0]["reason"] == "redirect_refused" and detail(r[0])["url"] == canon + "/redir-other/m",
          "mirror, off host: %s" % r)
    # To file:// and in a loop.
    r, _, rc, _ = fetch(d, base + "/redir-to/file:///etc/passwd")
    check(rc == 1 and r[0]["reason"] == "redirect_refused", "file:// refused: %s" % r)
    check(r[0]["code"] == "DL_ENV_POLICY_DENIED", "what a server sent is no usage error: %s" % r)
    # A Location RFC 3986 reads as scheme `a-1.0.0+02`: refused the same way.
    r, _, rc, _ = fetch(d, base + "/redir-to/a-1.0.0+02:00")
    check(rc == 1 and r[0]["code"] == "DL_ENV_POLICY_DENIED" and r[0]["reason"] == "redirect_refused",
          "Location a-1.0.0+02:00: %s" % r)
    r, _, rc, _ = fetch(d, base + "/loop/x")
    check(rc == 1 and r[0]["reason"] == "too_many_redirects" and STATE.counts["/loop/x"] == 11,
          "a loop ends: %s %s" % (r, STATE.counts.get("/loop/x")))
    # https -> http on the same host is refused; https -> https is followed.
    root = tempfile.mkdtemp(prefix="el-tls-")
    srv = None
    try:
        srv, cert = tls_server(root)
        if srv:
            tb = srv.url
            down = tb + "/redir-to/" + base + "/ok/down"
            r, _, rc, _ = fetch(d, "--ca-bundle", cert, down)
            check(rc == 1 and r[0]["reason"] == "redirect_refused" and "https to plain http" in r[0]["message"]
                  and detail(r[0])["location"] == base + "/ok/down", "downgrade refused: %s" % r)
            check("/ok/down" not in STATE.counts, "nothing sent over plain http")
            r, _, rc, _ = fetch(d, "--ca-bundle", cert, tb + "/redir-to/" + tb + "/ok/up")
            check(rc == 0 and r[0]["final_url"] == tb + "/ok/up", "https -> https: %s" % r)
        else:
            print("openssl not installed: https -> http not tested")
    finally:
        if srv:
            servers.stop_server(srv)
        shutil.rmtree(root, ignore_errors=True)


def sc_auth(base, d):
    port = base.rsplit(":", 1)[1]
    allow = ("--redirect-host", "localhost")
    r, _, rc, _ = fetch(d, *allow, "--header", "Authorization: Bearer s3cret-token", base + "/redir-other/a")
    check(rc == 0 and r[0]["final_url"] == base + "/redir-other/a", "redirect: %s" % r)
    check(STATE.auth["/redir-other/a"] == ["Bearer s3cret-token"], "first host gets the header")
    check(STATE.auth["/ok/landed"] == [None], "another host never does: %s" % STATE.auth)
    for f in entry_files(d):
        check(b"s3cret" not in open(f, "rb").read(), "credentials never stored")
    # Not to a mirror on another host either.
    canon = "http://localhost:%s/ok" % port
    r, _, rc, _ = fetch(d, "--mirror", canon + "=" + base + "/m", "--header",
                        "Authorization: Bearer s3cret-token", canon + "/z")
    check(rc == 0 and STATE.auth["/m/z"] == [None], "mirror on another host: %s" % STATE.auth)
    # netrc credentials go to their host only, and never across a redirect
    # to another host, even one netrc names and the redirect rule allows.
    home = tempfile.mkdtemp(prefix="el-home-")
    netrc = os.path.join(home, "other.netrc")
    lines = ("machine 127.0.0.1 login envuser password envpass\n"
             "machine localhost login lhuser password lhpass\n")
    for path in (netrc, os.path.join(home, ".netrc")):
        with open(path, "w") as f:
            f.write(lines)
        os.chmod(path, 0o600)
    basic = "Basic ZW52dXNlcjplbnZwYXNz"
    try:
        r, _, rc, _ = fetch(d, *allow, "--netrc-file", netrc, base + "/redir-other/n")
        check(rc == 0, "netrc fetch: %s" % r)
        check(STATE.auth["/redir-other/n"] == [basic], "netrc used: %s" % STATE.auth)
        check(STATE.auth["/ok/landed"] == [None, None], "netrc not sent elsewhere: %s" % STATE.auth)
        # $NETRC and ~/.netrc, with nothing configured by the caller.
        r, _, rc, _ = fetch(d, base + "/ok/netrc-env", env=env_with(NETRC=netrc, HOME=d))
        check(rc == 0 and STATE.auth["/ok/netrc-env"] == [basic], "$NETRC: %s" % STATE.auth)
        r, _, rc, _ = fetch(d, base + "/ok/netrc-home", env=env_with(HOME=home))
        check(rc == 0 and STATE.auth["/ok/netrc-home"] == [basic], "~/.netrc: %s" % STATE.auth)
        r, _, rc, _ = fetch(d, *allow, base + "/redir-other/h", env=env_with(HOME=home))
        check(rc == 0 and STATE.auth["/redir-other/h"] == [basic] and
              STATE.auth["/ok/landed"] == [None, None, None], "not across a redirect: %s" % STATE.auth)
        # An off-host redirect that is not allowed is never followed at all.
        r, _, rc, _ = fetch(d, base + "/redir-other/r", env=env_with(HOME=home))
        check(rc == 1 and r[0]["reason"] == "redirect_refused" and len(STATE.auth["/ok/landed"]) == 3,
              "refused: %s" % r)
    finally:
        shutil.rmtree(home)
    # user:password in a URL is never reported.
    r, _, rc, _ = fetch(d, "--offline", "http://user:pw@127.0.0.1:1/secret")
    check("pw" not in json.dumps(r[0]["error"]), "credentials redacted: %s" % r)


SECRET = "S3cretPassw0rd"

DEMO_SPEC = specs.base_spec("secret-demo", "    python:\n      dependencies:\n        - demo\n")


def grep_tree(root, needle):
    """Files under root whose bytes contain needle."""
    hits = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                if needle.encode() in fh.read():
                    hits.append(p)
    return hits


def sc_secrets(base, d):
    """user:password in an index or mirror URL is never printed, put in a
    --json detail, stored in the cache or written to a --debug-solver dump."""
    hostport = base[len("http://"):]
    index = "http://envuser:%s@%s/simple" % (SECRET, hostport)
    env = env_with(HOME=d)
    outs = []
    for extra in ([], ["--json"]):
        p = subprocess.run([ENVLOCK, *extra, "--cache-dir", d, "index", "show", "pypi:demo", "--index", index],
                           capture_output=True, text=True, timeout=60, env=env)
        outs.append(p.stdout + p.stderr)
        check(p.returncode == 0, "index show %s: %s %s" % (extra, p.stdout, p.stderr))
    check(base + "/simple" in outs[0] and json.loads(outs[1])["index"] == base + "/simple",
          "the index is shown without its userinfo: %s" % outs)
    # The server did get the credentials (from the URL).
    check(any(a and a.startswith("Basic ") for a in STATE.auth.get("/simple/demo/", [])),
          "credentials sent: %s" % STATE.auth)
    # A failure names the index too.
    p = subprocess.run([ENVLOCK, "--json", "--cache-dir", d, "index", "show", "pypi:nothing", "--index", index],
                       capture_output=True, text=True, timeout=60, env=env)
    outs.append(p.stdout + p.stderr)
    # A resolve through a mirror with credentials, with a solver dump.
    work = tempfile.mkdtemp(prefix="el-secret-")
    try:
        spec = os.path.join(work, "spec.yaml")
        with open(spec, "w") as f:
            f.write(DEMO_SPEC)
        dump = os.path.join(work, "solver")
        p = subprocess.run([ENVLOCK, "--cache-dir", d, "--mirror", "https://pypi.org=http://envuser:%s@%s" % (SECRET, hostport),
                            "resolve", spec, "-o", os.path.join(work, "envlock.lock"),
                            "--debug-solver", dump], capture_output=True, text=True, timeout=60, env=env)
        outs.append(p.stdout + p.stderr)
        check(p.returncode == 0, "resolve through the mirror: %s" % p.stderr)
        check(os.path.isdir(dump) and os.listdir(dump), "a solver dump was written")
        hits = grep_tree(work, SECRET) + grep_tree(d, SECRET)
        check(not hits, "the password is stored in %s" % hits)
    finally:
        shutil.rmtree(work)
    for o in outs:
        check(SECRET not in o, "the password is printed: %s" % o)


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
    port = servers.free_port()
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
        check(rc == 1 and r[0]["reason"] == "tls", "untrusted certificate refused: %s" % r)
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
    srv = servers.serve_handler(Handler, backlog=BACKLOG)
    base = srv.url
    d = tempfile.mkdtemp(prefix="el-cache-")
    try:
        fn(base, d)
    except Fail as e:
        print("FAIL:", e)
        return 1
    finally:
        STATE.stop.set()
        servers.stop_server(srv)
        shutil.rmtree(d, ignore_errors=True)
    print("ok", SCENARIO)
    return 0


if __name__ == "__main__":
    sys.exit(main())

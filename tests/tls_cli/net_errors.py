#!/usr/bin/python3
"""net_errors.py ENVLOCK — each way a company network fails a fetch gets
its own detail.reason and its own "what to do" (util/reasons.def,
docs/troubleshooting.md), checked on real servers on 127.0.0.1:

  tls      nginx over https with a certificate from a CA made here
  connect  a port nothing listens on
  dns      a name under .invalid (RFC 6761: never resolves)
  auth     nginx answering 401
  proxy    HTTPS_PROXY naming a closed port, and tinyproxy refusing the
           CONNECT (403) or asking for credentials (407)
and the proxy working: tinyproxy tunnelling to nginx, and NO_PROXY
bypassing a dead proxy. The curl tool confirms each fixture first (its
exit status: 60 untrusted certificate, 7 no connection, 6 no such host,
56 CONNECT refused). The tinyproxy cases skip without tinyproxy.

Exit 0 pass, 1 fail, 77 skip (nginx, openssl or curl missing)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))
import servers  # noqa: E402
import tls_cli  # noqa: E402

FAILS = []

TINYPROXY = """Port {port}
Listen 127.0.0.1
Timeout 20
LogFile "{work}/tinyproxy{port}.log"
PidFile "{work}/tinyproxy{port}.pid"
MaxClients 10
Allow 127.0.0.1
ConnectPort {connect_port}
{extra}
"""


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def curl_status(url, ca=None, proxy=None):
    args = ["curl", "-sS", "-o", "/dev/null", "--max-time", "10"]
    args += ["--cacert", ca] if ca else []
    args += ["--proxy", proxy] if proxy else ["--noproxy", "*"]
    return subprocess.run(args + [url], capture_output=True).returncode


def envlock_json(envlock, work, n, registry, args=(), env=None):
    rc, out, err = tls_cli.run(envlock, work, n, registry, ["--json"] + list(args), env)
    try:
        j = json.loads(out)
    except ValueError:
        j = {}
    return rc, j, err


def expect(envlock, work, n, name, registry, reason, advice, args=(), env=None, status=None):
    """A failing fetch: exit 25 (docs/cli.md: no answer from the index),
    detail.reason, the advice in userAction and
    in the text's "what to do" line."""
    rc, j, _ = envlock_json(envlock, work, n, registry, args, env)
    d = j.get("detail", {})
    check(rc == 25 and d.get("reason") == reason and advice in j.get("userAction", ""),
          "%s: exit %d, %s" % (name, rc, j))
    if status:
        check(d.get("status") == status, "%s: status %s" % (name, d.get("status")))
    rc, out, err = tls_cli.run(envlock, work, n + 100, registry, list(args), env)
    check(rc == 25 and ("what to do: " + j.get("userAction", "?")) in err,
          "%s (text): exit %d, %s" % (name, rc, err))
    print("%s: exit %d, reason %s; %s" % (name, rc, d.get("reason"), err.strip().splitlines()[-1]))


def start_tinyproxy(work, connect_port, extra=""):
    for _ in range(5):
        port = servers.free_port()
        conf = os.path.join(work, "tinyproxy%d.conf" % port)
        with open(conf, "w") as f:
            f.write(TINYPROXY.format(port=port, work=work, connect_port=connect_port, extra=extra))
        if os.geteuid() == 0:
            with open(conf, "a") as f:
                f.write("User root\nGroup root\n")
        proc = subprocess.Popen([shutil.which("tinyproxy"), "-d", "-c", conf],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        if servers.wait_port(port, proc):
            return proc, port
        proc.kill()
        proc.wait()
    raise servers.ServerError("tinyproxy did not start; see %s" % work)


def proxy_cases(envlock, work, registry, ca, nginx_port):
    procs = []
    try:
        refusing, rport = start_tinyproxy(work, servers.free_port())
        procs.append(refusing)
        proxy = "http://127.0.0.1:%d" % rport
        check(curl_status(registry + "tls-probe", ca, proxy) == 56, "curl: tinyproxy did not refuse")
        expect(envlock, work, 40, "proxy refusing CONNECT", registry, "proxy", "HTTPS_PROXY",
               ["--cert", ca], {"HTTPS_PROXY": proxy})
        locked, lport = start_tinyproxy(work, nginx_port, "BasicAuth envlock secret")
        procs.append(locked)
        expect(envlock, work, 41, "proxy asking for credentials", registry, "proxy",
               "credentials", ["--cert", ca], {"HTTPS_PROXY": "http://127.0.0.1:%d" % lport})
        rc, out, err = tls_cli.run(envlock, work, 42, registry, ["--cert", ca],
                                   {"HTTPS_PROXY": "http://envlock:secret@127.0.0.1:%d" % lport})
        check(rc == 0 and "1.0.0" in out, "through the proxy with credentials: exit %d, %s" % (rc, err))
        tunnel, tport = start_tinyproxy(work, nginx_port)
        procs.append(tunnel)
        rc, out, err = tls_cli.run(envlock, work, 43, registry, ["--cert", ca],
                                   {"HTTPS_PROXY": "http://127.0.0.1:%d" % tport})
        check(rc == 0 and "1.0.0" in out, "through the proxy: exit %d, %s" % (rc, err))
        with open(os.path.join(work, "tinyproxy%d.log" % tport)) as f:
            check("CONNECT 127.0.0.1:%d" % nginx_port in f.read(), "the proxy did not carry it")
    finally:
        for p in procs:
            p.terminate()
            p.wait()


def main():
    envlock = os.path.abspath(sys.argv[1])
    if not os.access(servers.NGINX, os.X_OK) or not shutil.which("openssl") or not shutil.which("curl"):
        print("SKIP: nginx, openssl or curl missing")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-neterr-")
    root = os.path.join(work, "root")
    for sub in ("private", "auth"):
        os.makedirs(os.path.join(root, sub))
    for sub in ("", "auth"):
        with open(os.path.join(root, sub, "tls-probe"), "w") as f:
            f.write(tls_cli.PACKUMENT)
    tls_cli.make_ca(work)
    ca = os.path.join(work, "ca.pem")
    proc, port = tls_cli.start_nginx(work, root)
    try:
        registry = "https://127.0.0.1:%d/" % port
        check(curl_status(registry + "tls-probe") == 60, "curl trusted the server without the CA")
        expect(envlock, work, 1, "untrusted certificate", registry, "tls", "--cert FILE")
        closed = "https://127.0.0.1:%d/" % servers.free_port()
        check(curl_status(closed) == 7, "curl connected to the closed port")
        expect(envlock, work, 2, "closed port", closed, "connect", "firewall")
        check(curl_status("https://envlock-test.invalid/") == 6, "curl resolved a .invalid name")
        expect(envlock, work, 3, "unknown host", "https://envlock-test.invalid/", "dns", "--mirror")
        # /private/ without a client certificate: 403 from nginx; /auth/
        # without the token: 401
        expect(envlock, work, 4, "HTTP 401", registry + "auth/", "auth", "_authToken",
               ["--cert", ca], status=401)
        # ENVLOCK_NPM_TOKEN reaches the registry as a bearer token (the CLI
        # passes it to the library as an option)
        rc, out, err = tls_cli.run(envlock, work, 8, registry + "auth/", ["--cert", ca],
                                   {"ENVLOCK_NPM_TOKEN": "envlock-t0ken"})
        check(rc == 0 and "1.0.0" in out, "ENVLOCK_NPM_TOKEN: exit %d, %s" % (rc, err))
        expect(envlock, work, 5, "HTTP 403", registry + "private/", "auth", "_authToken",
               ["--cert", ca], status=403)
        dead = "http://127.0.0.1:%d" % servers.free_port()
        expect(envlock, work, 6, "proxy not listening", registry, "proxy", "HTTPS_PROXY",
               ["--cert", ca], {"HTTPS_PROXY": dead})
        rc, out, err = tls_cli.run(envlock, work, 7, registry, ["--cert", ca],
                                   {"HTTPS_PROXY": dead, "NO_PROXY": "127.0.0.1"})
        check(rc == 0 and "1.0.0" in out, "NO_PROXY bypasses the proxy: exit %d, %s" % (rc, err))
        if shutil.which("tinyproxy"):
            proxy_cases(envlock, work, registry, ca, port)
        else:
            print("tinyproxy missing: the CONNECT cases are not run")
    finally:
        proc.terminate()
        proc.wait()
    if FAILS:
        print("%d failures; work dir %s" % (len(FAILS), work))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

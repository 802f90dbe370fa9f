#!/usr/bin/python3
"""tls_cli.py ENVLOCK — trusting a company CA: an npm registry served over
https by nginx on 127.0.0.1 with a certificate from a CA made here with the
openssl tool (docs/configuration.md, "Certificates").

Python's own ssl module first confirms the fixture: it refuses the server
without the CA and accepts it with the CA. Then `envlock index show` fails
without the CA (a TLS failure naming the certificate problem) and succeeds
with each way of giving it: --cert, ENVLOCK_CERT, SSL_CERT_FILE,
CURL_CA_BUNDLE, SSL_CERT_DIR (a directory hashed by `openssl rehash`) and
npmrc `cafile`; npmrc `certfile`/`keyfile` scoped to the registry send a
client certificate nginx asks for under /private/ (403 without it, or when
scoped to another path); a CA source that names no file is a usage error
(exit 2) naming its source.

Exit 0 pass, 1 fail, 77 skip (nginx or openssl missing). Standard library
only."""
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))
import servers  # noqa: E402

FAILS = []

# A packument with one version, in the shape registry.npmjs.org serves
# (name, dist-tags, versions with dist.tarball and dist.shasum).
PACKUMENT = """{"name":"tls-probe","dist-tags":{"latest":"1.0.0"},
"versions":{"1.0.0":{"name":"tls-probe","version":"1.0.0",
"dist":{"tarball":"https://127.0.0.1/tls-probe/-/tls-probe-1.0.0.tgz",
"shasum":"da39a3ee5e6b4b0d3255bfef95601890afd80709"}}},
"time":{"1.0.0":"2020-01-01T00:00:00.000Z"}}
"""

CONF = """daemon off;
master_process on;
worker_processes 1;
{user}
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 64; }}
http {{
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    access_log {work}/access.log;
    default_type application/json;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {work}/server.pem;
        ssl_certificate_key {work}/server.key;
        root {root};
        # a client certificate from the same CA, for /private/ only
        ssl_client_certificate {work}/ca.pem;
        ssl_verify_client optional;
        location /private/ {{
            if ($ssl_client_verify != SUCCESS) {{ return 403; }}
        }}
        location /auth/ {{
            if ($http_authorization != "Bearer envlock-t0ken") {{ return 401; }}
        }}
    }}
}}
"""


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True)


def make_ca(work):
    """ca.pem (the company CA) and server.pem/server.key for 127.0.0.1."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=envlock test CA", "-keyout", "ca.key", "-out", "ca.pem", cwd=work)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "server.key", "-out", "server.csr", cwd=work)
    with open(os.path.join(work, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.pem", cwd=work)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=envlock test client",
            "-keyout", "client.key", "-out", "client.csr", cwd=work)
    openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-out", "client.pem", cwd=work)
    cadir = os.path.join(work, "cadir")
    os.mkdir(cadir)
    shutil.copy(os.path.join(work, "ca.pem"), cadir)
    openssl("rehash", cadir, cwd=work)


def start_nginx(work, root):
    user = ""
    if os.geteuid() == 0:
        import grp
        import pwd
        user = "user %s %s;" % (pwd.getpwuid(os.geteuid()).pw_name, grp.getgrgid(os.getegid()).gr_name)
    for _ in range(5):
        port = servers.free_port()
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(CONF.format(user=user, work=work, port=port, root=root))
        proc = subprocess.Popen([servers.NGINX, "-p", work, "-c", conf, "-e",
                                 os.path.join(work, "error.log")],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        if servers.wait_port(port, proc):
            return proc, port
        proc.kill()
        proc.wait()
    raise servers.ServerError("nginx did not start; see %s/error.log" % work)


def python_accepts(url, cafile):
    ctx = ssl.create_default_context(cafile=cafile)
    try:
        urllib.request.urlopen(url, context=ctx, timeout=10).read()
        return True
    except (urllib.error.URLError, ssl.SSLError):
        return False


def run(envlock, work, n, registry, extra_args=(), extra_env=None, npmrc=""):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENVLOCK_", "SSL_CERT_", "CURL_CA_", "npm_config_", "NPM_CONFIG_"))
           and k not in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")}
    home = os.path.join(work, "home%d" % n)
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, ".npmrc"), "w") as f:
        f.write(npmrc)
    env.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, "config"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), ENVLOCK_RETRY_MAX_TIME="1")
    env.update(extra_env or {})
    p = subprocess.run([envlock] + list(extra_args) +
                       ["index", "show", "npm:tls-probe", "--registry", registry],
                       capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    envlock = os.path.abspath(sys.argv[1])
    if not os.access(servers.NGINX, os.X_OK) or not shutil.which("openssl"):
        print("SKIP: nginx or openssl missing")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-tls-")
    root = os.path.join(work, "root")
    os.mkdir(root)
    os.mkdir(os.path.join(root, "private"))
    for sub in ("", "private"):
        with open(os.path.join(root, sub, "tls-probe"), "w") as f:
            f.write(PACKUMENT)
    make_ca(work)
    ca = os.path.join(work, "ca.pem")
    proc, port = start_nginx(work, root)
    try:
        registry = "https://127.0.0.1:%d/" % port
        check(not python_accepts(registry + "tls-probe", None), "python accepted the server without the CA")
        check(python_accepts(registry + "tls-probe", ca), "python refused the server with the CA")
        rc, out, err = run(envlock, work, 0, registry)
        print("without a CA: exit %d, %s" % (rc, err.strip().splitlines()[0] if err.strip() else ""))
        check(rc != 0 and "1.0.0" not in out, "resolved without the CA")
        check("certificate" in err, "the TLS failure does not name the certificate: " + err)
        ways = [
            ("--cert", ["--cert", ca], {}),
            ("--cert=", ["--cert=" + ca], {}),
            ("ENVLOCK_CERT", [], {"ENVLOCK_CERT": ca}),
            ("SSL_CERT_FILE", [], {"SSL_CERT_FILE": ca}),
            ("CURL_CA_BUNDLE", [], {"CURL_CA_BUNDLE": ca}),
            ("SSL_CERT_DIR", [], {"SSL_CERT_DIR": os.path.join(work, "cadir")}),
        ]
        for n, (name, args, env) in enumerate(ways, 1):
            rc, out, err = run(envlock, work, n, registry, args, env)
            check(rc == 0 and "1.0.0" in out, "%s: exit %d, %s%s" % (name, rc, out, err))
        # npmrc cafile: the npm registry's own CA (npm's config docs)
        rc, out, err = run(envlock, work, 10, registry, npmrc="cafile=%s\n" % ca)
        check(rc == 0 and "1.0.0" in out, "npmrc cafile: exit %d, %s%s" % (rc, out, err))
        # npmrc certfile/keyfile, scoped to the registry: nginx answers 403
        # under /private/ without a client certificate from the CA
        private = registry + "private/"
        scope = "//127.0.0.1:%d/private/" % port
        rc, out, err = run(envlock, work, 11, private, ["--cert", ca])
        check(rc != 0 and "403" in err, "no client certificate: exit %d, %s" % (rc, err))
        rc, out, err = run(envlock, work, 12, private, ["--cert", ca],
                           npmrc="%s:certfile=%s\n%s:keyfile=%s\n" % (
                               scope, os.path.join(work, "client.pem"),
                               scope, os.path.join(work, "client.key")))
        check(rc == 0 and "1.0.0" in out, "npmrc certfile/keyfile: exit %d, %s%s" % (rc, out, err))
        # scoped to another path, the certificate is not sent
        rc, out, err = run(envlock, work, 13, private, ["--cert", ca],
                           npmrc="//127.0.0.1:%d/other/:certfile=%s\n//127.0.0.1:%d/other/:keyfile=%s\n" % (
                               port, os.path.join(work, "client.pem"),
                               port, os.path.join(work, "client.key")))
        check(rc != 0 and "403" in err, "certfile of another scope was sent: exit %d, %s" % (rc, err))
        missing = os.path.join(work, "no-such.pem")
        for n, (name, args, env) in enumerate([("--cert", ["--cert", missing], {}),
                                               ("SSL_CERT_FILE", [], {"SSL_CERT_FILE": missing}),
                                               ("SSL_CERT_DIR", [], {"SSL_CERT_DIR": missing})], 20):
            rc, out, err = run(envlock, work, n, registry, args, env)
            check(rc == 2 and (name + " " + missing) in err,
                  "%s naming no file: exit %d, %s" % (name, rc, err))
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

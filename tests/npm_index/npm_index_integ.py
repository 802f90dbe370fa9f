#!/usr/bin/python3
"""Integration tests of the npm registry reader (indexes/npm).

usage: npm_index_integ.py NPM_INDEX_DRIVER SCENARIO

The fixture npm tree (corpus/scenarios/npm-*.scn) is built and served by
tests/fixtures/servers.py: nginx (static tree, abbreviated/full content
negotiation) and Verdaccio (when installed; else that scenario exits 77).
Faults and auth checks use a small http.server registry in this process.
`live` runs only with ENVLOCK_LIVE=1 and skips when the registry is
unreachable. Every server started here is stopped here; every cache
directory is a fresh temporary one.
"""
import base64
import hashlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import servers  # noqa: E402

DRIVER, SCENARIO = sys.argv[1], sys.argv[2]
SKIP = 77
SCNS = [os.path.join(REPO, "corpus", "scenarios", n) for n in ("npm-basic.scn", "npm-peers-optional.scn")]
CANON = "https://registry.npmjs.org/"


class Failed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failed(msg)


def run(args, env=None, expect=0):
    p = subprocess.run([DRIVER] + args, capture_output=True, text=True, env=env, timeout=90)
    if expect is not None and p.returncode != expect:
        raise Failed("%s -> %d (want %d)\nstdout: %s\nstderr: %s"
                     % (" ".join(args), p.returncode, expect, p.stdout, p.stderr))
    return p


def stats(p):
    for line in p.stderr.splitlines():
        if line.startswith("stats "):
            return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    raise Failed("no stats line in %r" % p.stderr)


def loads(p):
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def sri(path):
    with open(path, "rb") as f:
        return "sha512-" + base64.b64encode(hashlib.sha512(f.read()).digest()).decode()


def env_clean(home):
    """An environment with no npm credentials and a private HOME."""
    env = {k: v for k, v in os.environ.items()
           if not k.lower().startswith("npm_config") and k != "ENVLOCK_NPM_TOKEN"}
    env["HOME"] = home
    return env


# ---------------------------------------------------------------- fixture mirror

def with_mirror(fn, verdaccio=False):
    if verdaccio and not servers.verdaccio_bin():
        print("verdaccio not installed (tests/fixtures/verdaccio/install.sh)")
        return SKIP
    if not os.access(servers.NGINX, os.X_OK):
        print("nginx not installed")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="envlock-npmidx-")
    try:
        with servers.mirror(SCNS, verdaccio=verdaccio, workdir=os.path.join(tmp, "m")) as m:
            return fn(m, tmp) or 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_tree(m, tmp, registry, mirror=None):
    """The facts of npm-basic/npm-peers-optional as the reader reports them."""
    cache = os.path.join(tmp, "cache-%d" % len(os.listdir(tmp)))
    env = env_clean(tmp)
    base = ["--cache", cache] + (["--mirror", mirror] if mirror else []) + ["--registry", registry]
    z = json.loads(run(base + ["show-json", "zod"], env=env).stdout)
    check(z["dist-tags"] == {"latest": "3.23.8", "next": "4.0.0-beta.1"}, z["dist-tags"])
    check([c["version"] for c in z["candidates"]] == ["4.0.0-beta.1", "3.24.0", "3.23.8", "3.22.4"],
          z["candidates"])
    check(z["document"] == "abbreviated", z["document"])
    if m.verdaccio and registry.startswith(m.npm_url.rstrip("/")):
        check(z["etag"], z)
    canon = registry if not mirror else mirror.split("=", 1)[0]
    if not canon.endswith("/"):
        canon += "/"
    c = z["candidates"][2]
    check(c["tarball"] == canon + "zod/-/zod-3.23.8.tgz", c["tarball"])
    check(c["integrity"] == sri(os.path.join(m.root, "npm", "zod", "-", "zod-3.23.8.tgz")), c["integrity"])
    if mirror:
        check("tarball_rebased" in c["flags"], c)
        served = mirror.split("=", 1)[1].rstrip("/")
        check(served not in json.dumps(z), "no mirror URL in the JSON answer")
    d = json.loads(run(base + ["show-json", "@turf/distance"], env=env).stdout)
    check(d["url"] == canon + "@turf%2fdistance", d["url"])
    dc = d["candidates"][0]
    check(dc["dependencies"] == {"@turf/helpers": "^7.1.0", "@turf/invariant": "^7.1.0", "tslib": "^2.6.2"},
          dc["dependencies"])
    check(dc["tarball"] == canon + "@turf/distance/-/distance-7.1.0.tgz", dc["tarball"])
    w = json.loads(run(base + ["show-json", "react-widget"], env=env).stdout)["candidates"][0]
    check(w["peerDependencies"] == {"react": ">=17 <19", "react-dom": ">=17 <19"}, w)
    check(w["peerOptional"] == ["react-dom"], w)
    check(w["dependencies"] == {"js-tokens": "^3.0.0"}, w)
    wt = json.loads(run(base + ["show-json", "watcher"], env=env).stdout)["candidates"][0]
    check(wt["optionalDependencies"] == {"fswatch-native": "~2.3.2"} and
          wt["dependencies"] == {"picomatch": "^2.0.4"}, wt)
    check(wt["engines"] == {"node": ">= 8.10.0"} and "engines_unchecked" in wt["flags"], wt)
    f = json.loads(run(base + ["show-json", "fswatch-native"], env=env).stdout)
    check(f["candidates"] == [] and f["excluded"][0]["reason"] == "os_mismatch", f)
    j = json.loads(run(base + ["show-json", "js-tokens"], env=env).stdout)
    old = [c for c in j["candidates"] if c["version"] == "3.0.2"][0]
    check(old["deprecated"] == "please upgrade to js-tokens 4" and "deprecated" in old["flags"], old)
    b = json.loads(run(base + ["show-json", "bundler-demo"], env=env).stdout)["candidates"][0]
    check(b["bundleDependencies"] == ["picomatch"], b)
    return cache, env, base


def t_static(m, tmp):
    check_tree(m, tmp, m.npm_static_url)
    # the canonical registry mirrored to the static tree: records keep canonical URLs
    check_tree(m, tmp, CANON, mirror=CANON + "=" + m.npm_static_url)


def t_verdaccio(m, tmp):
    check(m.verdaccio is not None, "verdaccio did not start")
    check_tree(m, tmp, m.npm_url)
    check_tree(m, tmp, CANON, mirror=CANON + "=" + m.npm_url)


def t_scoped(m, tmp):
    env = env_clean(tmp)
    base = ["--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url]
    out = loads(run(base + ["load", "@turf/helpers", "@turf/invariant", "@turf/distance", "@turf/nope"],
                    env=env, expect=1))
    by = {o["name"]: o for o in out}
    check(by["@turf/helpers"]["versions"] == 2 and by["@turf/helpers"]["latest"] == "7.1.0", by)
    check(by["@turf/nope"]["reason"] == "not_found", by)
    # nginx logs the encoded request path
    with open(os.path.join(m.nginx.work, "access.log")) as f:
        log = f.read()
    check("/npm/@turf%2fhelpers " in log, log[-2000:])


def t_follow(m, tmp):
    """The loader's callback submits more names during the same run."""
    env = env_clean(tmp)
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url, "follow",
             "@turf/distance", "react"], env=env)
    names = [o["name"] for o in loads(p)]
    check(names[:2] == ["@turf/distance", "react"], names)
    check(sorted(names[2:]) == ["@turf/helpers", "@turf/invariant", "js-tokens", "loose-envify", "tslib"],
          names)
    check(stats(p)["requests"] == 7, p.stderr)


def t_cutoff_full(m, tmp):
    env = env_clean(tmp)
    base = ["--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url]
    z = json.loads(run(base + ["--cutoff", "2024-06-05T00:00:00Z", "show-json", "zod"], env=env).stdout)
    check(z["document"] == "full", z["document"])
    check([c["version"] for c in z["candidates"]] == ["4.0.0-beta.1", "3.23.8", "3.22.4"], z["candidates"])
    check(z["candidates"][1]["time"] == "2024-05-02T12:00:00.000Z", z["candidates"][1])
    check(z["excluded"] == [{"version": "3.24.0", "reason": "after_cutoff",
                             "message": "published 2024-06-10T00:00:00.000Z, after the cutoff 2024-06-05T00:00:00Z",
                             "time": "2024-06-10T00:00:00.000Z"}], z["excluded"])
    check(z["target"]["excludeNewer"] == "2024-06-05T00:00:00Z", z["target"])
    # the abbreviated and full documents are cached under different keys
    a = json.loads(run(base + ["show-json", "zod"], env=env).stdout)
    check(a["document"] == "abbreviated" and len(a["candidates"]) == 4, a["document"])


def t_arm64(m, tmp):
    env = env_clean(tmp)
    base = ["--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url, "--arch", "aarch64"]
    f = json.loads(run(base + ["show-json", "fswatch-native"], env=env).stdout)
    check(f["target"]["cpu"] == "arm64", f["target"])
    check(f["excluded"][0]["reason"] == "os_mismatch" and "the target is linux" in f["excluded"][0]["message"], f)


def t_show_text(m, tmp):
    env = env_clean(tmp)
    base = ["--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url]
    t = run(base + ["show", "js-tokens"], env=env).stdout
    for want in ["dist-tags: latest 4.0.0", "2 candidates, newest first:", "4.0.0 [latest]",
                 "3.0.2\n", "  deprecated: please upgrade to js-tokens 4", "  flags: deprecated",
                 "  integrity: sha512-"]:
        check(want in t, "%r not in:\n%s" % (want, t))
    t = run(base + ["show", "fswatch-native"], env=env).stdout
    check("1 excluded:\n2.3.3  os_mismatch: it supports os [darwin]; the target is linux" in t, t)
    t = run(base + ["show", "react-widget"], env=env).stdout
    check("  peerDependencies: react >=17 <19\n  peerDependencies (optional): react-dom >=17 <19\n" in t, t)
    t = run(base + ["show", "watcher"], env=env).stdout
    check("  optionalDependencies: fswatch-native ~2.3.2\n" in t and "  engines: node >= 8.10.0\n" in t, t)


def t_offline_warm(m, tmp):
    env = env_clean(tmp)
    base = ["--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url]
    names = ["zod", "react", "@turf/helpers"]
    p = run(base + ["load"] + names, env=env)
    check(stats(p)["network"] == 3, p.stderr)
    # (nginx's sub_filter drops the ETag of packuments: revalidation there is
    # by Last-Modified or nothing; the Verdaccio test checks ETags)
    etags = {o["name"]: o.get("etag") for o in loads(p)}
    m.stop()  # nothing is listening any more
    p = run(["--offline"] + base + ["load"] + names, env=env)
    out = loads(p)
    check(all(o["code"] == "OK" and o["from_cache"] for o in out), out)
    check(stats(p)["network"] == 0, p.stderr)
    check({o["name"]: o.get("etag") for o in out} == etags, out)


def t_offline_cold(m, tmp):
    env = env_clean(tmp)
    p = run(["--offline", "--cache", os.path.join(tmp, "c"), "--registry", m.npm_static_url,
             "show-json", "zod"], env=env, expect=13)
    e = json.loads(p.stdout)
    check(e["code"] == "DL_ENV_PACKAGE_NOT_FOUND", e)
    check(e["detail"]["reason"] == "offline_cache_miss", e)
    check(e["detail"]["url"] == m.npm_static_url + "zod", e)
    check(m.npm_static_url + "zod" in e["message"], e)


# ---------------------------------------------------------------- the in-process registry

def packument(name, base, versions=("1.0.0",)):
    vs = {}
    for v in versions:
        vs[v] = {"name": name, "version": v,
                 "dist": {"tarball": "%s%s/-/%s-%s.tgz" % (base, name, name.split("/")[-1], v),
                          "integrity": "sha512-" + base64.b64encode(hashlib.sha512(v.encode()).digest()).decode()}}
    return {"name": name, "dist-tags": {"latest": versions[-1]}, "versions": vs}


class Reg:
    """A registry that records Authorization headers and injects faults by path."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = []  # (path, auth, accept)
        reg = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                path = self.path
                with reg.lock:
                    reg.seen.append((path, self.headers.get("Authorization"), self.headers.get("Accept")))
                    n = sum(1 for s in reg.seen if s[0] == path)
                name = path.lstrip("/").replace("%2f", "/").replace("%2F", "/")
                base = "http://%s/" % self.headers.get("Host")
                body = json.dumps(packument(name, base)).encode()
                status, extra = 200, []
                if name.startswith("flaky") and n == 1:
                    status, body = 500, b"oops"
                elif name.startswith("missing"):
                    status, body = 404, b'{"error":"Not found"}'
                elif name.startswith("cut"):
                    # a whole HTTP response whose JSON stops half way
                    body = body[: len(body) // 2]
                elif name.startswith("short"):
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body) + 100))
                    self.end_headers()
                    self.wfile.write(body)
                    self.close_connection = True
                    return
                elif name.startswith("html"):
                    body = b"<html><body>proxy login</body></html>"
                elif name.startswith("big"):
                    body = json.dumps(packument(name, base, ["1.0.%d" % i for i in range(3000)])).encode()
                extra.append(("ETag", '"%s"' % hashlib.sha1(body).hexdigest()))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        self.srv = servers.serve_handler(H)
        self.port = self.srv.port

    def url(self, host="127.0.0.1"):
        return "http://%s:%d/" % (host, self.port)

    def stop(self):
        servers.stop_server(self.srv)


def with_reg(fn):
    tmp = tempfile.mkdtemp(prefix="envlock-npmreg-")
    reg = Reg()
    try:
        return fn(reg, tmp) or 0
    finally:
        reg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def t_auth_host(reg, tmp):
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    secret = "s3cr3t-token-value"
    with open(os.path.join(home, ".npmrc"), "w") as f:
        f.write("; credentials for the test registry only\n//127.0.0.1:%d/:_authToken=${MY_TOKEN}\n" % reg.port)
    env = env_clean(home)
    env["MY_TOKEN"] = secret
    cache = os.path.join(tmp, "c")
    # 1. .npmrc token goes to the registry's host
    p = run(["--cache", cache, "--registry", reg.url(), "load", "pkg-a", "@s/b"], env=env)
    check([o["code"] for o in loads(p)] == ["OK", "OK"], p.stdout)
    got = {s[0]: s[1] for s in reg.seen}
    check(got.get("/pkg-a") == "Bearer " + secret and got.get("/@s%2fb") == "Bearer " + secret, reg.seen)
    check(all(s[2] and s[2].startswith("application/vnd.npm.install-v1+json") for s in reg.seen), reg.seen)
    # 2. another host (localhost is not 127.0.0.1 to npm's matching): no token
    reg.seen.clear()
    run(["--cache", cache, "--registry", reg.url("localhost"), "load", "pkg-c"], env=env)
    check(reg.seen and all(s[1] is None for s in reg.seen), reg.seen)
    # 3. the canonical registry mirrored to another host: the mirror gets no token
    reg.seen.clear()
    run(["--cache", cache, "--registry", reg.url(), "--mirror", reg.url() + "=" + reg.url("localhost"),
         "load", "pkg-d"], env=env)
    check(reg.seen and all(s[1] is None for s in reg.seen), reg.seen)
    # 4. the token option (the CLI's ENVLOCK_NPM_TOKEN) wins over .npmrc; the
    # library itself does not read the variable
    reg.seen.clear()
    env2 = dict(env, ENVLOCK_NPM_TOKEN="env-token-xyz")
    run(["--cache", cache, "--registry", reg.url(), "load", "pkg-e"], env=env2)
    check([s[1] for s in reg.seen] == ["Bearer %s" % secret], reg.seen)
    reg.seen.clear()
    p = run(["--cache", cache, "--registry", reg.url(), "--npm-token", "env-token-xyz", "load",
             "pkg-e2"], env=env)
    check([s[1] for s in reg.seen] == ["Bearer env-token-xyz"], reg.seen)
    # 5. npm_config__authToken (npm's legacy unscoped token)
    reg.seen.clear()
    env3 = env_clean(os.path.join(tmp, "nohome"))
    env3["npm_config__authToken"] = "legacy-tok"
    run(["--cache", cache, "--registry", reg.url(), "load", "pkg-f"], env=env3)
    check([s[1] for s in reg.seen] == ["Bearer legacy-tok"], reg.seen)
    # never printed, never stored
    for tok in (secret, "env-token-xyz", "legacy-tok"):
        check(tok not in p.stdout and tok not in p.stderr, "token printed")
        for dirpath, _, files in os.walk(cache):
            for fn in files:
                with open(os.path.join(dirpath, fn), "rb") as f:
                    check(tok.encode() not in f.read(), "token stored in %s" % fn)


def t_fault_500(reg, tmp):
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "load", "flaky-a"],
            env=env_clean(tmp))
    check(loads(p)[0]["code"] == "OK", p.stdout)
    check(stats(p)["retries"] == 1, p.stderr)


def t_truncated(reg, tmp):
    env = env_clean(tmp)
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "--retries", "1",
             "show-json", "short-a"], env=env, expect=13)
    e = json.loads(p.stdout)
    check(e["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and e["detail"]["reason"] == "truncated", e)
    check(e["retryable"] is True, e)
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "show-json", "cut-a"],
            env=env, expect=13)
    e = json.loads(p.stdout)
    check(e["detail"]["reason"] == "invalid_packument" and "truncated JSON" in e["message"], e)
    check(e["detail"]["package"] == "cut-a" and e["retryable"] is False, e)


def t_oversized(reg, tmp):
    env = env_clean(tmp)
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "--max-bytes", "50000",
             "load", "big-a", "pkg-ok"], env=env, expect=1)
    by = {o["name"]: o for o in loads(p)}
    check(by["big-a"]["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and by["big-a"]["reason"] == "too_large", by)
    check(by["pkg-ok"]["code"] == "OK", by)
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "load", "big-a"], env=env)
    check(loads(p)[0]["versions"] == 3000, p.stdout)


def t_not_found(reg, tmp):
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "show-json", "missing-x"],
            env=env_clean(tmp), expect=13)
    e = json.loads(p.stdout)
    check(e["detail"]["reason"] == "not_found" and "missing-x" in e["message"], e)
    check(e["detail"]["status"] == 404, e)
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "show-json", "Bad Name"],
            env=env_clean(tmp), expect=10)
    e = json.loads(p.stdout)
    check(e["code"] == "DL_ENV_SPEC_INVALID" and e["detail"]["reason"] == "invalid_name", e)


def t_invalid_json(reg, tmp):
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "show-json", "html-a"],
            env=env_clean(tmp), expect=13)
    e = json.loads(p.stdout)
    check(e["detail"]["reason"] == "invalid_packument" and "not valid JSON" in e["message"], e)


def t_many(reg, tmp):
    names = ["pkg-%03d" % i for i in range(60)] + ["@scope/pkg-%02d" % i for i in range(20)]
    p = run(["--cache", os.path.join(tmp, "c"), "--registry", reg.url(), "load"] + names + names[:5],
            env=env_clean(tmp))
    out = loads(p)
    check(len(out) == 80 and all(o["code"] == "OK" for o in out), out[:3])
    check(stats(p)["network"] == 80, p.stderr)


# ---------------------------------------------------------------- live

def t_live():
    if os.environ.get("ENVLOCK_LIVE") != "1":
        print("ENVLOCK_LIVE is not 1")
        return SKIP
    try:
        socket.create_connection(("registry.npmjs.org", 443), timeout=5).close()
    except OSError as e:
        print("registry.npmjs.org unreachable: %s" % e)
        return SKIP
    tmp = tempfile.mkdtemp(prefix="envlock-npmlive-")
    try:
        names = ["react", "lodash", "zod", "express", "typescript", "@types/node"]
        p = run(["--cache", os.path.join(tmp, "c"), "load"] + names, env=env_clean(tmp), expect=None)
        out = loads(p)
        if any(o.get("reason") in ("unreachable", "timeout", "dns", "connect", "proxy", "tls") for o in out):
            print("registry unreachable: %s" % out)
            return SKIP
        check(len(out) == 6 and all(o["code"] == "OK" and o["candidates"] > 50 and o.get("latest")
                                    for o in out), out)
        z = json.loads(run(["--cache", os.path.join(tmp, "c"), "show-json", "@types/node"],
                           env=env_clean(tmp)).stdout)
        c = z["candidates"][0]
        check(c["integrity"].startswith("sha512-") and
              c["tarball"].startswith("https://registry.npmjs.org/@types/node/-/node-"), c)
        # warm: revalidated where the registry gives validators (the registry
        # reachable from some test machines sends none: then it is a refetch)
        p = run(["--cache", os.path.join(tmp, "c"), "load"] + names, env=env_clean(tmp))
        check(all(o["code"] == "OK" for o in loads(p)), p.stdout)
        with_validators = [o for o in out if o.get("etag")]
        check(stats(p)["revalidated"] + stats(p)["hits"] >= len(with_validators), p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


MIRROR_TESTS = {"static": t_static, "follow": t_follow, "scoped": t_scoped, "cutoff_full": t_cutoff_full, "arm64": t_arm64,
                "show_text": t_show_text, "offline_warm": t_offline_warm, "offline_cold": t_offline_cold}
REG_TESTS = {"auth_host": t_auth_host, "fault_500": t_fault_500, "truncated": t_truncated,
             "oversized": t_oversized, "not_found": t_not_found, "invalid_json": t_invalid_json,
             "many": t_many}


def main():
    try:
        if SCENARIO in MIRROR_TESTS:
            rc = with_mirror(MIRROR_TESTS[SCENARIO])
        elif SCENARIO == "verdaccio":
            rc = with_mirror(t_verdaccio, verdaccio=True)
        elif SCENARIO in REG_TESTS:
            rc = with_reg(REG_TESTS[SCENARIO])
        elif SCENARIO == "live":
            rc = t_live()
        else:
            print("unknown scenario %s" % SCENARIO)
            return 2
    except Failed as e:
        print("FAIL: %s" % e)
        return 1
    if rc == 0:
        print("ok %s" % SCENARIO)
    return rc


if __name__ == "__main__":
    sys.exit(main())

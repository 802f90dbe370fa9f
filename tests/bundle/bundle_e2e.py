#!/usr/bin/env python3
"""bundle_e2e.py ENVLOCK — `envlock bundle` end to end (issue 9).

The demo scenario (corpus/demo/demo.scn: PyPI, npm and apt) is built with
the fixture builder, served by nginx on 127.0.0.1 (tests/fixtures/servers.py)
and the demo spec resolved against it. Then:
  bundle      the lock bundled into DIR; every locked artifact is there with
              its lock hash (checked here with hashlib, independently)
  serve       DIR served by nginx with the server block DIR/README gives
  re-resolve  the same spec with a fresh cache and the bundle's --mirror
              lines: the same packages, versions and artifact hashes; with
              lock format 2 (no artifact URLs) the whole lock byte for byte
  pip         `pip download --no-deps --require-hashes` of the exported
              requirements from the bundle's index (isolated from any config)
  apt         `apt-get update` + `apt-get download` of every locked .deb from
              a private apt root pointing at the bundle (signature checked)
  npm         `npm ci --ignore-scripts` of the exported package-lock.json
              (resolved URLs at the bundle) with a private HOME and npmrc
  resume      one file deleted: a rerun writes exactly that one file
  corrupt     one artifact's bytes flipped: it is written again
  listed      the upstream without its uncompressed Packages files, which
              the Release still lists (as Debian's archive serves them):
              the bundle completes with the .xz the reader reads
  moved       the archive serves another Release than the lock's (re-signed,
              a new Date): DL_ENV_ARTIFACT_MISSING, reason index_changed,
              both sha256s named, no README
  wrong hash  the server sends other bytes for a wheel: DL_ENV_ARTIFACT_MISSING
              naming the artifact, its URL and the page it came from
  faults      a proxy answering 500 (then a truncated body) for one artifact:
              DL_ENV_PACKAGE_NOT_FOUND, retryable, reason http_status /
              truncated; the rerun through a healthy server completes
  disk full   DIR on a 200 KiB tmpfs: IO_ERROR (exit 74), errno ENOSPC,
              retryable, no temp file left; remounted larger, the rerun
              completes (root only; skipped otherwise)
Tools that are not installed skip their part (printed), never fail it."""

import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import bundle_site  # noqa: E402
import servers  # noqa: E402

DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")
SNAPSHOT = "https://snapshot.debian.org/archive/debian/20260914T150000Z"
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = "/nonexistent"
    e["XDG_CONFIG_HOME"] = "/nonexistent"
    e.update(extra)
    return e


def run(el, args, **kw):
    return subprocess.run([el] + args, env=env(**kw), capture_output=True, text=True, timeout=600)


def nginx_from_readme(bundle_dir, work):
    """nginx with the server block of DIR/README on a free port."""
    try:
        return bundle_site.nginx_from_readme(bundle_dir, work)
    except servers.ServerError as e:
        check(False, "nginx serves the bundle with the README's block: %s" % e)
        return None


def lock_artifacts(lock_text):
    """(ecosystem, name, version, file, hash) of every artifact, from the YAML."""
    import yaml  # python3-yaml
    doc = yaml.safe_load(lock_text)
    out = []
    for p in doc["packages"]:
        for a in p.get("artifacts") or []:
            out.append((p["ecosystem"], p["name"], p["version"], a["file"], a["hash"]))
    return doc, sorted(out)


def sri_ok(integrity, data):
    algo, _, b64 = integrity.partition("-")
    import base64
    return base64.b64encode(hashlib.new(algo, data).digest()).decode() == b64


def bundle_files_ok(bundle_dir, arts):
    bad = []
    for eco, name, version, file, h in arts:
        paths = []
        for dp, _, fs in os.walk(bundle_dir):
            if file in fs:
                paths.append(os.path.join(dp, file))
        if len(paths) != 1:
            bad.append("%s %s: %d copies" % (eco, file, len(paths)))
            continue
        data = open(paths[0], "rb").read()
        ok = (hashlib.sha256(data).hexdigest() == h[7:]) if h.startswith("sha256:") else sri_ok(h, data)
        if not ok:
            bad.append("%s %s: wrong bytes" % (eco, file))
    return bad


def bundle(el, lock, out, cache, mirrors, **kw):
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out], **kw)
    try:
        j = json.loads(r.stdout) if r.stdout.strip() else None
    except ValueError:
        j = None
    return r, j


class FaultProxy:
    """HTTP proxy in front of a server: paths containing `target` answer
    per `mode` ("500", "truncate", "wrong", None: pass through); with
    `suffix`, only paths ending in `target`."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.mode = None
        self.target = None
        self.suffix = False
        proxy = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                hit = proxy.target and (self.path.endswith(proxy.target) if proxy.suffix
                                        else proxy.target in self.path) and proxy.mode
                if hit == "500":
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                req = urllib.request.Request(proxy.upstream + self.path,
                                             headers={"Accept": self.headers.get("Accept", "*/*")})
                try:
                    with urllib.request.urlopen(req) as up:
                        status, body, ctype = up.status, up.read(), up.headers.get("Content-Type")
                except urllib.error.HTTPError as e:
                    status, body, ctype = e.code, b"", None
                if hit == "wrong":
                    body = b"not the locked bytes" + body[20:]
                self.send_response(status)
                if ctype:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if hit == "truncate":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.httpd = servers.serve_handler(H)
        self.url = self.httpd.url

    def stop(self):
        servers.stop_server(self.httpd)


def mirrors_for(base):
    return ["--mirror", "https://pypi.org=%s/pypi/pypi" % base,
            "--mirror", "https://registry.npmjs.org=%s/npm" % base,
            "--mirror", "%s=%s/apt" % (SNAPSHOT, base)]


def part_reresolve(el, work, bases, lock1, j):
    mirrors = []
    for m in j["mirrors"]:
        mirrors += ["--mirror", m["mirror"]]
    lock2 = os.path.join(work, "again.lock")
    r = run(el, ["--cache-dir", os.path.join(work, "cache-site")] + mirrors +
            ["resolve", DEMO, "--bases", bases, "-o", lock2])
    if not check(r.returncode == 0, "re-resolve from the bundle: %s" % r.stderr.strip()):
        return
    t1, t2 = open(lock1).read(), open(lock2).read()
    d1, a1 = lock_artifacts(t1)
    d2, a2 = lock_artifacts(t2)
    check(a1 == a2, "the same packages, versions, files and hashes")
    check([p["name"] + "@" + str(p["version"]) for p in d1["packages"]] ==
          [p["name"] + "@" + str(p["version"]) for p in d2["packages"]], "the same package list")
    check([i["url"] for i in d1["inputs"]] == [i["url"] for i in d2["inputs"]], "the same inputs")
    if d1.get("lockVersion", 1) >= 2:
        check(t1 == t2, "lock format 2: the whole lock byte for byte")
    else:
        print("note lock format 1: artifact URLs name where files were read, so only the above is compared")


def part_pip(el, work, lock, base):
    pip = shutil.which("pip3") or shutil.which("pip")
    if not pip:
        print("skip pip: not installed")
        return
    req = os.path.join(work, "requirements.txt")
    r = run(el, ["export", lock, "--format", "requirements", "-o", req])
    if not check(r.returncode == 0, "export requirements: %s" % r.stderr.strip()):
        return
    dl = os.path.join(work, "pip-dl")
    argv, e = bundle_site.pip_download(os.path.join(work, "piphome"), base + "/pypi/simple/", req, dl)
    p = subprocess.run(argv, env=e, capture_output=True, text=True, timeout=300)
    n = len([l for l in open(req) if "==" in l])
    got = len(os.listdir(dl)) if os.path.isdir(dl) else 0
    check(p.returncode == 0 and got == n,
          "pip download --require-hashes from the bundle: %d of %d (%s)" % (got, n, p.stderr.strip()[-300:]))


def part_apt(work, lock_doc, base, keyring):
    if not shutil.which("apt-get"):
        print("skip apt: not installed")
        return
    r = os.path.join(work, "aptroot")
    for d in ("etc/apt/sources.list.d", "etc/apt/preferences.d", "etc/apt/apt.conf.d", "var/lib/apt/lists/partial",
              "var/cache/apt/archives/partial", "var/lib/dpkg", "dl"):
        os.makedirs(os.path.join(r, d), exist_ok=True)
    open(os.path.join(r, "var/lib/dpkg/status"), "w").close()
    with open(os.path.join(r, "etc/apt/sources.list"), "w") as f:
        f.write("deb [signed-by=%s] %s/apt/ bookworm main\n" % (keyring, base))
    opts = ["-o", "Dir=%s" % r, "-o", "Dir::State::status=%s/var/lib/dpkg/status" % r,
            "-o", "Acquire::Languages=none", "-o", "Acquire::Check-Valid-Until=false",
            "-o", "APT::Architecture=amd64", "-o", "APT::Architectures::=amd64",
            "-o", "Debug::NoLocking=1", "-o", "APT::Sandbox::User=root"]
    u = subprocess.run(["apt-get"] + opts + ["update"], capture_output=True, text=True, timeout=120)
    if not check(u.returncode == 0 and "W:" not in u.stderr and "E:" not in u.stderr,
                 "apt-get update from the bundle (signature and hashes verify): %s" % u.stderr.strip()[-300:]):
        return
    debs = ["%s=%s" % (p["name"], p["version"]) for p in lock_doc["packages"]
            if p["ecosystem"] == "deb" and not p.get("installedInBase")]
    d = subprocess.run(["apt-get"] + opts + ["download"] + debs, cwd=os.path.join(r, "dl"),
                       capture_output=True, text=True, timeout=120)
    check(d.returncode == 0 and len(os.listdir(os.path.join(r, "dl"))) == len(debs),
          "apt-get download of the %d locked debs: %s" % (len(debs), d.stderr.strip()[-300:]))


def part_npm(el, work, lock, base):
    npm = shutil.which("npm")
    if not npm:
        print("skip npm: not installed")
        return
    proj = os.path.join(work, "npmproj")
    os.makedirs(proj, exist_ok=True)
    pl = os.path.join(proj, "package-lock.json")
    r = run(el, ["export", lock, "--format", "package-lock", "-o", pl])
    if not check(r.returncode == 0, "export package-lock: %s" % r.stderr.strip()):
        return
    doc = json.load(open(pl))
    # The resolved URLs at the bundle (what `plan --mirror` does for a plan).
    for k, v in doc.get("packages", {}).items():
        if k and "resolved" in v:
            v["resolved"] = v["resolved"].replace("https://registry.npmjs.org/", base + "/npm/")
    json.dump(doc, open(pl, "w"), indent=2)
    root = doc["packages"][""]
    pj = {"name": root.get("name", "bundle-test"), "version": root.get("version", "1.0.0"),
          "dependencies": root.get("dependencies", {})}
    json.dump(pj, open(os.path.join(proj, "package.json"), "w"))
    e = bundle_site.npm_env(os.path.join(work, "npmhome"), base + "/npm/")
    p = subprocess.run([npm, "ci", "--ignore-scripts", "--offline=false"], cwd=proj, env=e,
                       capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "npm ci from the bundle: %s" % (p.stderr.strip()[-400:]))


def part_resume(el, work, lock, out, cache, mirrors):
    whl = None
    for dp, _, fs in os.walk(os.path.join(out, "pypi", "files")):
        for f in fs:
            if f.endswith(".whl"):
                whl = os.path.join(dp, f)
                break
    os.unlink(whl)
    r, j = bundle(el, lock, out, cache, mirrors)
    check(r.returncode == 0 and j and j["written"]["files"] == 1 and os.path.exists(whl),
          "resume after deleting %s writes exactly it: %s" % (os.path.basename(whl), j and j["written"]))
    deb = None
    for dp, _, fs in os.walk(os.path.join(out, "apt", "pool")):
        for f in fs:
            deb = os.path.join(dp, f)
    data = bytearray(open(deb, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(deb, "wb").write(bytes(data))
    r, j = bundle(el, lock, out, cache, mirrors)
    check(r.returncode == 0 and j and j["written"]["files"] == 1 and bytes(data) != open(deb, "rb").read(),
          "a corrupted %s is written again: %s" % (os.path.basename(deb), j and j["written"]))


def part_listed_not_served(el, work, lock, mirror, arts):
    """An archive that lists forms it does not serve: Debian's Release lists
    every uncompressed Packages (for its hashes) and answers 404 for it.
    The mirror served again without the plain Packages files (and their
    by-hash copies): the bundle completes with the .xz the reader reads."""
    m2 = os.path.join(work, "m-listed")
    shutil.copytree(mirror, m2)
    gone = []
    for dp, _, fs in os.walk(os.path.join(m2, "apt", "dists")):
        for f in fs:
            if f == "Packages":
                plain = open(os.path.join(dp, f), "rb").read()
                for q in (os.path.join(dp, f), os.path.join(dp, "by-hash", "SHA256", hashlib.sha256(plain).hexdigest())):
                    if os.path.exists(q):
                        os.unlink(q)
                        gone.append(q)
    ng = servers.Nginx(m2, work=os.path.join(work, "nginx-listed"))
    ng.start()
    try:
        out = os.path.join(work, "b-listed")
        r, j = bundle(el, lock, out, os.path.join(work, "cache-listed"), mirrors_for(ng.url))
    finally:
        ng.stop()
    check(r.returncode == 0 and not bundle_files_ok(out, arts),
          "Packages listed in the Release but not served (%d files gone): the bundle completes: %s"
          % (len(gone), (j or {}).get("message")))
    xz = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(out, "apt", "dists")) for f in fs
          if f == "Packages.xz"]
    check(xz and not any(f == "Packages" for _, _, fs in os.walk(os.path.join(out, "apt", "dists")) for f in fs),
          "it carries Packages.xz (%d) and no plain Packages" % len(xz))


def part_release_moved(el, work, lock, mirror):
    """The archive re-signed since the lock was made (its Release text has
    another Date): a bundle of it would let a site re-resolve to another
    lock, so bundle refuses, naming the Release and both sha256s, and
    writes no README. Expected sha256s are hashlib's over the texts."""
    m2 = os.path.join(work, "m-moved")
    shutil.copytree(mirror, m2)
    changed = None
    for dp, _, fs in os.walk(os.path.join(m2, "apt", "dists")):
        if "InRelease" in fs:
            p = os.path.join(dp, "InRelease")
            text = open(p, "rb").read()
            start = text.index(b"\n\n") + 2          # after the clearsign header
            end = text.index(b"\n-----BEGIN PGP SIGNATURE")
            body = text[start:end].replace(b"Date: ", b"Date: Mon, 01 Jan 2029 00:00:00 UTC\nX-Old-Date: ", 1)
            open(p, "wb").write(text[:start] + body + text[end:])
            changed = "sha256:" + hashlib.sha256(body + b"\n").hexdigest()
            before = "sha256:" + hashlib.sha256(text[start:end] + b"\n").hexdigest()
    ng = servers.Nginx(m2, work=os.path.join(work, "nginx-moved"))
    ng.start()
    try:
        out = os.path.join(work, "b-moved")
        r, j = bundle(el, lock, out, os.path.join(work, "cache-moved"), mirrors_for(ng.url))
    finally:
        ng.stop()
    d = (j or {}).get("detail", {})
    check(changed and r.returncode == 21 and j and j["code"] == "DL_ENV_ARTIFACT_MISSING" and
          d.get("reason") == "index_changed" and d.get("url", "").endswith("/InRelease"),
          "a Release other than the lock's: refused, index_changed: %s" % (j and j.get("message")))
    check(d.get("actual") == changed, "the served Release's sha256 %s, not %s" % (d.get("actual"), changed))
    check(d.get("expected") == before or d.get("expected", "") in open(lock).read(),
          "the lock's identity named: %s" % d.get("expected"))
    check(not os.path.exists(os.path.join(out, "README")), "no README for the refused bundle")


def part_faults(el, work, lock, nginx_url, arts):
    proxy = FaultProxy(nginx_url)
    try:
        whl = [a for a in arts if a[0] == "pypi" and a[3].endswith(".whl")][0][3]
        fast = {"ENVLOCK_RETRY_MAX_TIME": "2"}
        cache = os.path.join(work, "cache-faults")
        out = os.path.join(work, "b-faults")
        proxy.target, proxy.mode = whl, "wrong"
        r, j = bundle(el, lock, out, cache, mirrors_for(proxy.url), **fast)
        d = (j or {}).get("detail", {})
        check(r.returncode == 21 and j and j["code"] == "DL_ENV_ARTIFACT_MISSING" and
              d.get("reason") == "hash_mismatch" and whl in d.get("artifact", "") and
              whl in j["message"] and "https://pypi.org/simple/" in d.get("source", "") and d.get("url"),
              "wrong bytes from the server: named ARTIFACT_MISSING: %s" % (j and j.get("message")))
        for mode, reason in (("500", "http_status"), ("truncate", "truncated")):
            proxy.mode = mode
            r, j = bundle(el, lock, out, cache, mirrors_for(proxy.url), **fast)
            d = (j or {}).get("detail", {})
            check(r.returncode == 25 and j and j["code"] == "DL_ENV_PACKAGE_NOT_FOUND" and j["retryable"] and
                  d.get("reason") == reason and whl in d.get("artifact", ""),
                  "%s for one wheel: reason %s, retryable, named: %s" % (mode, reason, j and j.get("message")))
            check(not any(".tmp-" in f for _, _, fs in os.walk(out) for f in fs), "%s: no temp file left" % mode)
        proxy.mode = None
        r, j = bundle(el, lock, out, cache, mirrors_for(proxy.url))
        check(r.returncode == 0 and j and os.path.exists(os.path.join(out, "README")),
              "the rerun through a healthy server completes: %s" % (j and j.get("written")))
        check(not bundle_files_ok(out, arts), "every artifact there after the faults")
    finally:
        proxy.stop()


def part_disk_full(el, work, lock, cache, mirrors, arts):
    if os.geteuid() != 0 or not shutil.which("mount"):
        print("skip disk full: needs root for a tmpfs")
        return
    mnt = os.path.join(work, "tiny")
    os.makedirs(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", mnt]).returncode != 0:
        print("skip disk full: mount failed")
        return
    try:
        out = os.path.join(mnt, "b")
        r, j = bundle(el, lock, out, cache, mirrors)
        d = (j or {}).get("detail", {})
        check(r.returncode == 74 and j and j["code"] == "IO_ERROR" and d.get("errno") == "ENOSPC" and
              j["retryable"] and d.get("path", "").startswith(out),
              "a full disk: IO_ERROR, ENOSPC, retryable, the path named: %s" % (j and j.get("message")))
        check(not any(".tmp-" in f for _, _, fs in os.walk(out) for f in fs), "no temp file left on a full disk")
        subprocess.run(["mount", "-o", "remount,size=64m", mnt], check=True)
        r, j = bundle(el, lock, out, cache, mirrors)
        check(r.returncode == 0 and not bundle_files_ok(out, arts), "with space the rerun completes: %s"
              % (j and j.get("written")))
    finally:
        subprocess.run(["umount", mnt])


def part_signed(el, work, lock, cache, mirrors):
    """--sign KEY writes SHA256SUMS (sha256sum's form, every other file) and
    its raw Ed25519 signature; --verify checks both, and stock tools agree
    (openssl pkeyutl -verify -rawin, sha256sum -c). A changed, added or
    removed file, another key and a missing signature are refused."""
    keys = os.path.join(work, "keys")
    os.makedirs(keys, exist_ok=True)
    key, pub, other = (os.path.join(keys, n) for n in ("k.pem", "k.pub.pem", "other.pem"))
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True,
                   capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out", pub], check=True)
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", other], check=True,
                   capture_output=True)
    out = os.path.join(work, "bundle-signed")
    r = run(el, ["--json", "--cache-dir", cache] + mirrors + ["bundle", lock, "-o", out,
                                                             "--sign", key])
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    files = sorted(os.path.relpath(os.path.join(dp, f), out) for dp, _, fs in os.walk(out)
                   for f in fs if os.path.relpath(os.path.join(dp, f), out)
                   not in ("SHA256SUMS", "SHA256SUMS.sig"))
    check(r.returncode == 0 and j.get("signedFiles") == len(files),
          "signed bundle: %d files listed (%s)" % (len(files), r.stdout[-300:] + r.stderr))
    sums = open(os.path.join(out, "SHA256SUMS")).read() if r.returncode == 0 else ""
    want = "".join("%s  %s\n" % (hashlib.sha256(open(os.path.join(out, f), "rb").read())
                                  .hexdigest(), f) for f in sorted(files, key=lambda x: x.encode()))
    check(sums == want, "SHA256SUMS lists every other file in byte order, as sha256sum does")
    c = subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=out, capture_output=True)
    o = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin",
                        "-in", os.path.join(out, "SHA256SUMS"),
                        "-sigfile", os.path.join(out, "SHA256SUMS.sig")], capture_output=True)
    check(c.returncode == 0 and o.returncode == 0,
          "stock tools verify it: sha256sum %d, openssl %d %s" % (c.returncode, o.returncode,
                                                                  o.stdout + o.stderr))

    def verify(key_path):
        v = run(el, ["--json", "bundle", "--verify", key_path, out])
        try:
            return v.returncode, json.loads(v.stdout)
        except ValueError:
            return v.returncode, {}
    rc, body = verify(pub)
    check(rc == 0 and body.get("verified") is True and body.get("files") == len(files),
          "--verify with the public key: %d %s" % (rc, body))
    rc, body = verify(other)
    check(rc == 18 and body.get("detail", {}).get("reason") == "bad_signature",
          "another key: bad_signature: %d %s" % (rc, body))
    readme = os.path.join(out, "README")
    keep = open(readme, "rb").read()
    for what, change, undo in (
            ("a changed file", lambda: open(readme, "ab").write(b"x"),
             lambda: open(readme, "wb").write(keep)),
            ("an added file", lambda: open(os.path.join(out, "npm", "extra"), "w").write("x"),
             lambda: os.unlink(os.path.join(out, "npm", "extra"))),
            ("a removed file", lambda: os.rename(readme, readme + ".gone"),
             lambda: os.rename(readme + ".gone", readme))):
        change()
        rc, body = verify(pub)
        d = body.get("detail", {})
        check(rc == 18 and d.get("reason") == "tampered" and d.get("file") in
              ("README", "npm/extra"), "%s: tampered, naming it: %d %s" % (what, rc, body))
        undo()
    rc, body = verify(pub)
    check(rc == 0, "restored: verifies again (%d %s)" % (rc, body))
    os.unlink(os.path.join(out, "SHA256SUMS.sig"))
    rc, body = verify(pub)
    check(rc == 18 and body.get("detail", {}).get("reason") == "unsigned",
          "no signature: unsigned: %d %s" % (rc, body))


def main():
    el = sys.argv[1]
    if not os.access(servers.NGINX, os.X_OK):
        print("nginx not installed")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-bundle-")
    ng = None
    site = None
    try:
        mirror, bases = bundle_site.demo_upstream(work)
        ng = servers.Nginx(mirror, work=os.path.join(work, "nginx"))
        os.makedirs(ng.work, exist_ok=True)
        ng.start()
        mirrors = mirrors_for(ng.url)
        cache = os.path.join(work, "cache")
        lock = os.path.join(work, "demo.lock")
        r = run(el, ["--cache-dir", cache] + mirrors + ["resolve", DEMO, "--bases", bases, "-o", lock])
        if not check(r.returncode == 0, "resolve the demo from the fixture mirror: %s" % r.stderr.strip()):
            return 1
        lock_doc, arts = lock_artifacts(open(lock).read())
        out = os.path.join(work, "bundle")
        r, j = bundle(el, lock, out, cache, mirrors)
        if not check(r.returncode == 0 and j, "bundle: %s %s" % (r.stdout.strip()[-400:], r.stderr.strip())):
            return 1
        bad = bundle_files_ok(out, arts)
        check(not bad and j["artifacts"] == len(arts), "every locked artifact, with its lock hash (%d): %s"
              % (len(arts), bad))
        check(os.path.exists(os.path.join(out, "pypi", "simple", "index.json")) and
              os.path.exists(os.path.join(out, "npm", "zod", "index.json")) and
              os.path.exists(os.path.join(out, "apt", "dists", "bookworm", "InRelease")), "the layout")
        page = json.load(open(os.path.join(out, "pypi", "simple", "numpy", "index.json")))
        check(len(page["files"]) == 2 and all(not f["url"].startswith("http") for f in page["files"]),
              "a page lists every file the original did, linked relatively")
        r2, j2 = bundle(el, lock, out, cache, mirrors)
        check(r2.returncode == 0 and j2 and j2["written"]["files"] == 0,
              "a second run writes nothing: %s" % (j2 and j2["written"]))
        started = nginx_from_readme(out, os.path.join(work, "nginx-site"))
        if started:
            site, site_url = started
            j_site = dict(j)
            j_site["mirrors"] = [dict(m, mirror="%s=%s%s" % (m["canonical"], site_url,
                                                           m["url"][len("http://localhost:8080"):]))
                                 for m in j["mirrors"]]
            part_reresolve(el, work, bases, lock, j_site)
            part_pip(el, work, lock, site_url)
            part_apt(work, lock_doc, site_url, os.path.join(mirror, "apt-keyring.gpg"))
            part_npm(el, work, lock, site_url)
        part_signed(el, work, lock, cache, mirrors)
        part_resume(el, work, lock, out, cache, mirrors)
        part_listed_not_served(el, work, lock, mirror, arts)
        part_release_moved(el, work, lock, mirror)
        part_faults(el, work, lock, ng.url, arts)
        part_disk_full(el, work, lock, cache, mirrors, arts)
    finally:
        bundle_site.stop(site)
        if ng:
            ng.stop()
        shutil.rmtree(work, ignore_errors=True)
    for f in FAILURES:
        print("FAILED: " + f)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())

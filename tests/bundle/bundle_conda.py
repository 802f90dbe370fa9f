#!/usr/bin/env python3
"""bundle_conda.py ENVLOCK [RATTLER_NODE_MODULES] — `envlock bundle` of a
conda environment's lock (issue 23): a static conda channel per channel
the lock was resolved from.

The upstream is a channel made here (no conda channel is reachable from
this machine, and the recorded conda-forge slice of tests/resolve_cli/conda
has records but no package files): real conda packages (.tar.bz2, and
.conda when the zstd tool is there) with info/index.json and
info/paths.json, and a repodata.json listing them plus records the spec
does not choose (older versions, a python of another minor), all served on
127.0.0.1 as https://conda.anaconda.org/conda-forge, beside the demo's PyPI
mirror for the environment.yml's `pip:` layer. Checked:

  - the bundle's conda/<subdir>/repodata.json is the served one byte for
    byte, every locked package file is there with the sha256 and md5 the
    served repodata gives (computed from the bytes), an unlocked one is
    not; the README names the channel's --mirror line and a conda line;
  - with the upstream stopped: the bundle served by nginx with the
    README's block and its --mirror lines, a fresh cache: `resolve` gives
    the same lock bytes, `--offline check` accepts it; and the same from
    file:// mirrors with no server at all;
  - `plan --mirror` onto the served bundle: every line of conda-explicit.txt
    fetches a file of the bundle whose md5 is the line's fragment, one per
    locked conda package; the plan's requirements.txt downloads by hash
    from the bundle's PyPI tree (Debian's pip);
  - rattler's solver (@conda-org/rattler, when installed) takes the
    bundle's channel as a channel: the locked packages' exact specs solve
    to files the bundle serves, with the hashes it holds; its answer for
    the environment's specs on the upstream is the lock's conda set;
  - a second bundle writes nothing; a channel serving another
    repodata.json is refused (index_changed) and a package file with other
    bytes is refused (ARTIFACT_MISSING), nothing wrong written.
Expected values come from the channel made here and the tools, not from
envlock's output."""

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import bundle_site  # noqa: E402
import servers  # noqa: E402
import specs  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
PYPI = os.path.join(ROOT, "corpus", "demo", "mirror", "pypi", "pypi")
CHANNEL = "https://conda.anaconda.org/conda-forge"
TS = 1735689600000  # 2025-01-01T00:00:00Z, every record's timestamp

# (subdir, name, version, build, depends, format, locked?)
PACKAGES = [
    ("linux-64", "python", "3.13.5", "h2_0", ["libzlib >=1.3.1,<2.0a0", "tzdata"], "conda", True),
    ("linux-64", "python", "3.12.9", "h2_0", ["libzlib >=1.3.1,<2.0a0", "tzdata"], "conda", False),
    ("linux-64", "libzlib", "1.3.1", "hb9d3cd8_2", [], "tar.bz2", True),
    ("linux-64", "libzlib", "1.2.13", "h4ab18f5_6", [], "tar.bz2", False),
    ("noarch", "tzdata", "2025b", "h78e105d_0", [], "conda", True),
    ("noarch", "packaging", "25.0", "pyh29332c3_1", ["python >=3.8"], "tar.bz2", True),
    ("noarch", "packaging", "24.1", "pyhd8ed1ab_0", ["python >=3.8"], "tar.bz2", False),
]
ENV_YML = """name: demo
channels:
  - conda-forge
dependencies:
  - packaging
  - tzdata
  - pip:
    - --index-url https://pypi.org/simple
    - requests>=2.31
"""
SPEC = specs.conda_spec("conda-bundle", ENV_YML)


class Fail(Exception):
    pass


def tar_bytes(members, compress):
    """A tar of {name: bytes}, fixed mtimes and owners, compressed."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:bz2" if compress == "bz2" else "w") as t:
        for name in sorted(members):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode = len(members[name]), TS // 1000, 0o644
            t.addfile(ti, io.BytesIO(members[name]))
    return buf.getvalue()


def package_bytes(subdir, name, version, build, depends, fmt):
    payload = ("%s %s\n" % (name, version)).encode()
    path = "share/%s/VERSION" % name
    index = {"arch": "x86_64" if subdir == "linux-64" else None, "build": build,
             "build_number": int(build.rsplit("_", 1)[1]), "depends": depends,
             "license": "BSD-3-Clause", "name": name,
             "platform": "linux" if subdir == "linux-64" else None, "subdir": subdir,
             "timestamp": TS, "version": version}
    if subdir == "noarch":
        index["noarch"] = "generic"
    paths = {"paths": [{"_path": path, "path_type": "hardlink",
                        "sha256": hashlib.sha256(payload).hexdigest(),
                        "size_in_bytes": len(payload)}], "paths_version": 1}
    info = {"info/index.json": json.dumps(index, sort_keys=True).encode(),
            "info/paths.json": json.dumps(paths, sort_keys=True).encode(),
            "info/files": (path + "\n").encode()}
    if fmt == "tar.bz2":
        return tar_bytes(dict(info, **{path: payload}), "bz2"), index
    stem = "%s-%s-%s" % (name, version, build)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo("metadata.json", (2025, 1, 1, 0, 0, 0)),
                   json.dumps({"conda_pkg_format_version": 2}))
        for kind, members in (("info", info), ("pkg", {path: payload})):
            zst = subprocess.run(["zstd", "-q", "-c"], input=tar_bytes(members, None),
                                 capture_output=True, check=True).stdout
            z.writestr(zipfile.ZipInfo("%s-%s.tar.zst" % (kind, stem), (2025, 1, 1, 0, 0, 0)), zst)
    return buf.getvalue(), index


def make_channel(root):
    """root/conda-forge/{linux-64,noarch}: the files and repodata.json;
    returns {(subdir, file): record} and the locked keys."""
    have_zstd = shutil.which("zstd") is not None
    recs, locked = {}, []
    docs = {s: {"info": {"subdir": s}, "packages": {}, "packages.conda": {},
                "repodata_version": 1} for s in ("linux-64", "noarch")}
    for subdir, name, version, build, depends, fmt, lock in PACKAGES:
        fmt = fmt if have_zstd else "tar.bz2"
        data, index = package_bytes(subdir, name, version, build, depends, fmt)
        fn = "%s-%s-%s.%s" % (name, version, build, fmt)
        d = os.path.join(root, "conda-forge", subdir)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, fn), "wb") as f:
            f.write(data)
        rec = {k: v for k, v in index.items() if v is not None}
        rec.update(md5=hashlib.md5(data).hexdigest(), sha256=hashlib.sha256(data).hexdigest(),
                   size=len(data))
        docs[subdir]["packages.conda" if fmt == "conda" else "packages"][fn] = rec
        recs[(subdir, fn)] = rec
        if lock:
            locked.append((subdir, fn))
    for s, doc in docs.items():
        with open(os.path.join(root, "conda-forge", s, "repodata.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
    return recs, locked


def sha(path, algo="sha256"):
    return hashlib.new(algo, open(path, "rb").read()).hexdigest()


class Env:
    def __init__(self, envlock, work):
        self.envlock, self.work = envlock, work

    def run(self, args, mirrors, cache):
        cmd = [self.envlock, "--json", "--cache-dir", os.path.join(self.work, cache)] + mirrors
        p = subprocess.run(cmd + args, capture_output=True, text=True, timeout=300)
        try:
            js = json.loads(p.stdout) if p.stdout.strip() else None
        except ValueError:
            js = None
        return p.returncode, js, p.stdout + p.stderr


def resolve(env, mirrors, cache, out):
    spec = os.path.join(env.work, "spec.yaml")
    rc, _js, text = env.run(["resolve", "--bases", BASES, spec, "-o", out], mirrors, cache)
    if rc != 0:
        raise Fail("resolve (%s) exited %d: %s" % (cache, rc, text))
    return open(out, "rb").read()


def check_tree(bundle, up, recs, locked):
    for s in ("linux-64", "noarch"):
        got = os.path.join(bundle, "conda", s, "repodata.json")
        if not os.path.exists(got) or open(got, "rb").read() != \
                open(os.path.join(up, "conda-forge", s, "repodata.json"), "rb").read():
            raise Fail("conda/%s/repodata.json is not the served one byte for byte" % s)
    for key, rec in recs.items():
        path = os.path.join(bundle, "conda", key[0], key[1])
        if key not in locked:
            if os.path.exists(path):
                raise Fail("%s/%s is not locked but was bundled" % key)
            continue
        if not os.path.exists(path) or (sha(path), sha(path, "md5"), os.path.getsize(path)) != \
                (rec["sha256"], rec["md5"], rec["size"]):
            raise Fail("%s/%s is missing or not the served file" % key)
    text = open(os.path.join(bundle, "README")).read()
    if "--mirror %s=" % CHANNEL not in text or "-c http" not in text:
        raise Fail("README lacks the conda channel's lines:\n" + text)


def check_plan(env, site_mirrors, bundle_url, lock, locked, recs):
    out = os.path.join(env.work, "plan")
    spec = os.path.join(env.work, "spec.yaml")
    rc, _js, text = env.run(["plan", "--bases", BASES, spec, lock, "-o", out], site_mirrors,
                            "cache-site")
    if rc != 0:
        raise Fail("plan --mirror onto the bundle exited %d: %s" % (rc, text))
    lines = open(os.path.join(out, "datalayer", "conda-explicit.txt")).read()
    lines = lines.split("@EXPLICIT\n", 1)[1].splitlines()
    got = set()
    for ln in lines:
        url, md5 = ln.split("#", 1)
        if not url.startswith(bundle_url + "/conda/"):
            raise Fail("explicit line %r does not name the bundle" % ln)
        data = urllib.request.urlopen(url, timeout=30).read()
        if hashlib.md5(data).hexdigest() != md5:
            raise Fail("%s: the bundle serves bytes whose md5 is not %s" % (url, md5))
        got.add(tuple(url[len(bundle_url) + 7:].split("/", 1)))
    if got != set(locked) or len(lines) != len(locked):
        raise Fail("conda-explicit.txt names %r, the locked files are %r" % (sorted(got), locked))
    if any(recs[k]["md5"] != hashlib.md5(open(os.path.join(env.work, "bundle", "conda", *k),
                                                  "rb").read()).hexdigest() for k in locked):
        raise Fail("a bundled file's md5 is not its record's")
    req = os.path.join(out, "datalayer", "requirements.txt")
    index = bundle_site.readme_installers(os.path.join(env.work, "bundle"))["pypi"]
    argv, penv = bundle_site.pip_download(os.path.join(env.work, "pip-home"), index, req,
                                          os.path.join(env.work, "pip-dl"))
    p = subprocess.run(argv, capture_output=True, text=True, env=penv, timeout=300)
    if p.returncode != 0:
        raise Fail("pip download --require-hashes from the bundle failed: %s" % p.stderr)
    return len(lines), len(os.listdir(os.path.join(env.work, "pip-dl")))


RATTLER_JS = r"""
// node -e: process.argv[1] is the first argument
const r = require(require.resolve("@conda-org/rattler", { paths: [process.argv[1]] }));
const [specs, channels] = [JSON.parse(process.argv[2]), JSON.parse(process.argv[3])];
r.simpleSolve(specs, channels, ["linux-64", "noarch"], []).then((pk) => {
  console.log(JSON.stringify(pk.map((p) => ({ url: p.url, sha256: p.sha256, md5: p.md5,
    name: p.packageName, version: p.version, build: p.build }))));
}, (e) => { console.error(String(e)); process.exit(1); });
"""


def rattler(modules, specs, channel):
    node = shutil.which("node")
    if not modules or not node or not os.path.isdir(os.path.join(modules, "@conda-org", "rattler")):
        return None
    p = subprocess.run([node, "-e", RATTLER_JS, modules, json.dumps(specs), json.dumps([channel])],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Fail("rattler could not solve from %s: %s" % (channel, p.stderr))
    return json.loads(p.stdout)


def check_rattler(modules, up_url, bundle_url, lockdoc, recs):
    conda = sorted((p["name"], p["version"], p["build"]) for p in lockdoc["packages"]
                   if p["ecosystem"] == "conda")
    ans = rattler(modules, ["python 3.13.*", "packaging", "tzdata"], up_url + "/conda-forge")
    if ans is None:
        return "rattler not installed"
    if sorted((a["name"], a["version"], a["build"]) for a in ans) != conda:
        raise Fail("rattler solves %r on the upstream, the lock has %r" % (ans, conda))
    exact = ["%s ==%s %s" % c for c in conda]
    ans = rattler(modules, exact, bundle_url + "/conda")
    for a in ans:
        data = urllib.request.urlopen(a["url"], timeout=30).read()
        if not a["url"].startswith(bundle_url + "/conda/") or \
                hashlib.sha256(data).hexdigest() != a["sha256"] or \
                hashlib.md5(data).hexdigest() != a["md5"]:
            raise Fail("rattler's %s from the bundle channel: not the bundle's file" % a["url"])
    if sorted((a["name"], a["version"], a["build"]) for a in ans) != conda:
        raise Fail("rattler solves %r from the bundle's channel" % ans)
    return "rattler solves the lock's set on the upstream and from the bundle channel"


def check_refusals(env, up, mirrors, lock):
    """Another repodata.json, then a package file with other bytes."""
    rd = os.path.join(up, "conda-forge", "noarch", "repodata.json")
    keep = open(rd, "rb").read()
    with open(rd, "ab") as f:
        f.write(b"\n")
    rc, js, text = env.run(["bundle", lock, "-o", os.path.join(env.work, "b-changed")], mirrors,
                           "cache-changed")
    with open(rd, "wb") as f:
        f.write(keep)
    if rc != 21 or (js or {}).get("detail", {}).get("reason") != "index_changed" or \
            os.path.exists(os.path.join(env.work, "b-changed", "conda", "noarch",
                                        "repodata.json")):
        raise Fail("a changed repodata.json: exit %d: %s" % (rc, text))
    victim = os.path.join(up, "conda-forge", "linux-64",
                          [f for f in os.listdir(os.path.join(up, "conda-forge", "linux-64"))
                           if f.startswith("libzlib-1.3.1")][0])
    keep = open(victim, "rb").read()
    with open(victim, "wb") as f:
        f.write(keep[:-1] + bytes([keep[-1] ^ 1]))
    out = os.path.join(env.work, "b-bad")
    rc, js, text = env.run(["bundle", lock, "-o", out], mirrors, "cache-bad")
    with open(victim, "wb") as f:
        f.write(keep)
    if rc != 21 or (js or {}).get("code") != "DL_ENV_ARTIFACT_MISSING" or \
            "libzlib" not in text or \
            os.path.exists(os.path.join(out, "conda", "linux-64", os.path.basename(victim))):
        raise Fail("a package file with other bytes: exit %d: %s" % (rc, text))


def main():
    envlock = os.path.abspath(sys.argv[1])
    modules = sys.argv[2] if len(sys.argv) > 2 else None
    work = tempfile.mkdtemp(prefix="el-bundle-conda-")
    up = os.path.join(work, "up")
    recs, locked = make_channel(up)
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(SPEC)
    env = Env(envlock, work)
    srv = servers.DirServer(up).start()
    pypi = servers.DirServer(PYPI).start()
    ngx = None
    try:
        mirrors = ["--mirror", "https://conda.anaconda.org=http://127.0.0.1:%d" % srv.port,
                   "--mirror", "https://pypi.org=http://127.0.0.1:%d" % pypi.port]
        lock = os.path.join(work, "env.lock")
        original = resolve(env, mirrors, "cache", lock)
        import yaml
        lockdoc = yaml.safe_load(original)
        conda = {(p["subdir"], p["artifacts"][0]["file"]) for p in lockdoc["packages"]
                 if p["ecosystem"] == "conda"}
        if conda != set(locked):
            raise Fail("the lock's conda files %r, expected %r" % (sorted(conda), locked))
        port = servers.free_port()
        bundle_url = "http://127.0.0.1:%d" % port
        bdir = os.path.join(work, "bundle")
        rc, js, text = env.run(["bundle", lock, "-o", bdir, "--base-url", bundle_url], mirrors,
                               "cache")
        if rc != 0:
            raise Fail("bundle exited %d: %s" % (rc, text))
        check_tree(bdir, up, recs, locked)
        rc, js2, text = env.run(["bundle", lock, "-o", bdir, "--base-url", bundle_url], mirrors,
                                "cache")
        if rc != 0 or js2.get("written", {}).get("files") != 0:
            raise Fail("a second bundle wrote files: %s" % text)
        check_refusals(env, up, mirrors, lock)
        srv.stop()
        pypi.stop()
        ngx, url = bundle_site.nginx_from_readme(bdir, os.path.join(work, "nginx"), port=port)
        site = bundle_site.readme_mirrors(bdir)
        if resolve(env, site, "cache-site", os.path.join(work, "site.lock")) != original:
            raise Fail("the lock resolved from the served bundle differs")
        rc, _js, text = env.run(["--offline", "check", "--bases", BASES,
                                 os.path.join(work, "spec.yaml"), lock], site, "cache-site")
        if rc != 0:
            raise Fail("check --offline from the bundle's cache exited %d: %s" % (rc, text))
        files = []
        for i in range(1, len(site), 2):
            canon, target = site[i].split("=", 1)
            files += ["--mirror", "%s=file://%s%s" % (canon, bdir, target[len(bundle_url):])]
        if resolve(env, files, "cache-file", os.path.join(work, "file.lock")) != original:
            raise Fail("the lock resolved from file:// mirrors of the bundle differs")
        n_conda, n_pip = check_plan(env, site, bundle_url, lock, locked, recs)
        srv2 = servers.DirServer(up).start()
        try:
            ans = check_rattler(modules, "http://127.0.0.1:%d" % srv2.port, bundle_url, lockdoc,
                                recs)
        finally:
            srv2.stop()
    except Fail as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        if ngx:
            bundle_site.stop(ngx)
        srv.stop()
        pypi.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("bundle: %d conda files and the repodata.json they came from, byte for byte; the same "
          "lock re-resolved from it (nginx, and file://), check --offline; the plan's %d explicit "
          "lines fetch the bundle's files by md5, pip fetched %d pip-layer wheels by hash; %s; "
          "a rerun writes nothing; a changed repodata.json and a bad file refused"
          % (len(locked), n_conda, n_pip, ans))
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

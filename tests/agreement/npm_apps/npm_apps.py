#!/usr/bin/env python3
"""npm_apps.py — real apps' package sets, resolved by envlock and by npm 11.

    npm_apps.py record            npm against the live registry through a
                                  recording proxy: writes expected.json.xz
                                  and packuments.jsonl.xz (README.md)
    npm_apps.py test ENVLOCK      offline: serve the recorded packuments on
                                  127.0.0.1, resolve the quick tier's sets
                                  with envlock, compare with npm's tree
    npm_apps.py test-all ENVLOCK  the same for every set (NPM_APPS_ALL=1;
                                  77 without it)
    npm_apps.py record-bundles    the bundled trees (bundleDependencies) of the
                                  bundling versions npm's trees hold, from
                                  their registry tarballs: bundles.jsonl.xz
    npm_apps.py live ENVLOCK      ENVLOCK_LIVE=1: npm and envlock both against
                                  the live registry, same cutoff (77 if the
                                  registry does not answer)

Per set the outcome is one of identical / paths (same name@version set,
other node_modules paths) / versions (other versions) / refused (envlock
refuses, npm locks). expected-failures.txt names every set whose outcome is
not `identical`, with that outcome: a set doing better or worse than listed
fails the test, so the list follows the resolver."""
import base64
import concurrent.futures
import hashlib
import http.server
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = os.path.join(HERE, "sets.json")
EXPECTED = os.path.join(HERE, "expected.json.xz")
PACKUMENTS = os.path.join(HERE, "packuments.jsonl.xz")
XFAIL = os.path.join(HERE, "expected-failures.txt")
BUNDLES = os.path.join(HERE, "bundles.jsonl.xz")
# what envlock's bundle reader keeps of a bundled package.json
# (indexes/npm/npm_bundle.c)
BUNDLE_KEEP = ("name", "version", "dependencies", "optionalDependencies", "peerDependencies",
               "peerDependenciesMeta")
UPSTREAM = "https://registry.npmjs.org"
# versions published after this are not in the fixture; npm gets --before and
# envlock --exclude-newer with it, so the live run asks the same question
CUTOFF = "2026-12-01T00:00:00.000Z"
# what envlock's reader keeps of a version (indexes/npm/npm_packument.c,
# keep_manifest) except dist, which the server makes up (README.md)
KEEP = ("dependencies", "optionalDependencies", "peerDependencies", "peerDependenciesMeta",
        "bundleDependencies", "bundledDependencies", "deprecated", "os", "cpu", "libc",
        "engines", "hasInstallScript")
SCRIPTS = ("preinstall", "install", "postinstall")


def trim(doc):
    """The packument as stored: name, dist-tags, time and the kept fields of
    every version published by CUTOFF (a version without a time is kept)."""
    times = doc.get("time") or {}
    out = {"name": doc.get("name"), "dist-tags": doc.get("dist-tags") or {}, "versions": {},
           "time": {}}
    for v, man in (doc.get("versions") or {}).items():
        t = times.get(v)
        if isinstance(t, str) and t > CUTOFF:
            continue
        if not isinstance(man, dict):
            continue
        m = {k: man[k] for k in KEEP if k in man}
        dist = man.get("dist") if isinstance(man.get("dist"), dict) else {}
        if bundles(man) and dist.get("integrity"):
            # npm reads a bundling package's tarball for the bundled tree and
            # checks it against this, so the recording proxy keeps it
            m["dist"] = {"integrity": dist["integrity"]}
        sc = man.get("scripts")
        if isinstance(sc, dict) and any(k in sc for k in SCRIPTS):
            m["scripts"] = {k: "x" for k in SCRIPTS if k in sc}
        out["versions"][v] = m
        if t is not None:
            out["time"][v] = t
    for k in ("created", "modified"):
        if k in times:
            out["time"][k] = min(times[k], CUTOFF) if k == "modified" else times[k]
    return out


def bundles(man):
    b = man.get("bundleDependencies", man.get("bundledDependencies"))
    return bool(b) and b is not False


LINE_NAME = re.compile(r'"name":"((?:[^"\\]|\\.)*)","time":')


def with_dist(doc, base, tarballs=None):
    """A stored packument served: each version gets a tarball URL on this
    server and an integrity made from name@version (never fetched: a resolve
    reads packuments only), or the registry's integrity where the recording
    kept it (bundling versions, whose tarballs npm reads), or, for a version
    whose bundled tree is recorded (tarballs: (name, version) -> bytes), the
    integrity of the tarball this server makes of it."""
    doc = json.loads(doc if isinstance(doc, str) else json.dumps(doc))
    name = doc["name"]
    for v, man in doc["versions"].items():
        h = base64.b64encode(hashlib.sha512(("%s@%s" % (name, v)).encode()).digest()).decode()
        man["name"], man["version"] = name, v
        man["dist"] = {"tarball": "%s/%s/-/%s-%s.tgz" % (base, name, name.split("/")[-1], v),
                       "integrity": (man.get("dist") or {}).get("integrity") or "sha512-" + h}
        if tarballs and (name, v) in tarballs:
            man["dist"]["integrity"] = "sha512-" + base64.b64encode(
                hashlib.sha512(tarballs[(name, v)]).digest()).decode()
    return doc


def make_tarball(name, version, packages):
    """A gzip'd tar as npm publishes one (package/...), holding a
    package.json and the recorded bundled package.json files; fixed times
    and order, so the same record gives the same bytes."""
    import gzip
    import io
    import tarfile
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        files = [("package/package.json", {"name": name, "version": version})]
        files += [("package/%s/package.json" % p, m) for p, m in sorted(packages.items())]
        for path, man in files:
            data = json.dumps(man, sort_keys=True, indent=1).encode()
            ti = tarfile.TarInfo(path)
            ti.size, ti.mtime, ti.mode = len(data), 499162500, 0o644
            tf.addfile(ti, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def load_tarballs():
    """(name, version) -> the tarball made of its recorded bundled tree."""
    out = {}
    if os.path.exists(BUNDLES):
        with lzma.open(BUNDLES, "rt") as f:
            for line in f:
                b = json.loads(line)
                out[(b["name"], b["version"])] = make_tarball(b["name"], b["version"], b["packages"])
    return out


def tarball_key(path):
    """(name, version) a /NAME/-/FILE.tgz path asks for, or None."""
    m = re.match(r"^/(.+)/-/([^/]+)\.tgz$", urllib.parse.unquote(path.split("?")[0]))
    if not m:
        return None
    name, base = m.group(1), m.group(2)
    short = name.split("/")[-1]
    return (name, base[len(short) + 1:]) if base.startswith(short + "-") else None


def packument_name(path):
    name = urllib.parse.unquote(path.split("?")[0].lstrip("/"))
    return name if name and "/-/" not in path else None


class Handler(http.server.BaseHTTPRequestHandler):
    """Serves self.server.docs; with self.server.upstream, fetches what it
    lacks from the registry first (recording), and passes tarballs through."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, code, body, ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        srv = self.server
        name = packument_name(self.path)
        if name is None:
            tgz = srv.tarballs.get(tarball_key(self.path)) if srv.tarballs else None
            if tgz is not None:
                return self.send(200, tgz, "application/octet-stream")
            if not srv.upstream:
                return self.send(404, b'{"error":"not found"}')
            try:
                with urllib.request.urlopen(srv.upstream + self.path, timeout=60) as r:
                    return self.send(200, r.read(), "application/octet-stream")
            except urllib.error.HTTPError as e:
                return self.send(e.code, b"{}")
        with srv.lock:
            body = srv.served.get(name)
            doc = srv.docs.get(name)
            if name in srv.stale:
                srv.stale.discard(name)
                doc = srv.docs.pop(name)
        if body is None:
            if doc is None and srv.upstream:
                doc = fetch_upstream(srv, name)
            if doc is None:
                return self.send(404, b'{"error":"Not found"}')
            body = json.dumps(with_dist(doc, srv.base, srv.tarballs)).encode()
            with srv.lock:
                srv.served[name] = body
        self.send(200, body)


def fetch_upstream(srv, name):
    url = "%s/%s" % (srv.upstream, urllib.parse.quote(name, safe="@"))
    for attempt in range(4):
        try:
            req = urllib.request.Request(url, headers={"Accept": "application/json"})
            with urllib.request.urlopen(req, timeout=120) as r:
                doc = trim(json.loads(r.read()))
            break
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            time.sleep(1 + attempt)
        except (urllib.error.URLError, OSError, ValueError):
            time.sleep(1 + attempt)
    else:
        return None
    with srv.lock:
        srv.docs.setdefault(name, doc)
        return srv.docs[name]


def serve(docs, upstream=None, stale=(), tarballs=None):
    """Serve docs on 127.0.0.1; with upstream, fetch (and keep) what docs
    lack and fetch the names in stale again on first use; tarballs (offline:
    load_tarballs()) served as they are."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.tarballs = tarballs
    srv.docs, srv.upstream, srv.lock, srv.served = docs, upstream, threading.Lock(), {}
    srv.stale = set(stale)
    srv.base = "http://127.0.0.1:%d" % srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def clean_env(home):
    e = {k: v for k, v in os.environ.items()
         if not (k.lower().endswith("_proxy") or k.startswith(("NPM_CONFIG_", "npm_config_", "ENVLOCK_")))}
    e.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"), LC_ALL="C",
             NO_PROXY="127.0.0.1", npm_config_userconfig="/dev/null",
             npm_config_globalconfig=os.path.join(home, "npmrc-global"), npm_config_cache=os.path.join(home, "npm-cache"),
             npm_config_update_notifier="false", npm_config_audit="false", npm_config_fund="false",
             npm_config_loglevel="error")
    return e


def run_npm(s, work, registry):
    """npm install --package-lock-only of the set: {path: [name, version,
    flags]} or an error text."""
    proj = os.path.join(work, "npm")
    os.makedirs(proj, exist_ok=True)
    with open(os.path.join(proj, "package.json"), "w") as f:
        json.dump({"name": "app", "version": "0.0.0", "private": True,
                   "dependencies": s["dependencies"]}, f, indent=1)
    cmd = ["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund",
           "--registry", registry + "/", "--before", CUTOFF]
    r = subprocess.run(cmd, cwd=proj, env=clean_env(work), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=900)
    if r.returncode != 0:
        err = [ln for ln in r.stderr.splitlines() if "ERR" in ln or ln.startswith("npm error")]
        return " / ".join(err[:3]) or "npm exit %d" % r.returncode
    with open(os.path.join(proj, "package-lock.json")) as f:
        pk = json.load(f)["packages"]
    tree = {}
    for path, e in pk.items():
        if not path or e.get("link"):
            continue
        name = e.get("name") or path.rsplit("node_modules/", 1)[-1]
        flags = []
        if e.get("inBundle"):
            flags.append("bundled")
        if e.get("optional") and (e.get("os") or e.get("cpu") or e.get("libc")) and not (
                admits(e.get("os"), "linux") and admits(e.get("cpu"), "x64") and admits(e.get("libc"), "glibc")):
            flags.append("other-platform")
        tree[path] = [name, e.get("version"), flags]
    for path in through_other_platform(tree, s["dependencies"],
                                       lambda path, n, v: pk.get(path, {})):
        tree[path][2].append("other-platform")
    return tree


DEP_FIELDS = ("dependencies", "optionalDependencies", "peerDependencies")


def node_resolve(tree, frm, name):
    """The path Node loads `name` from, required at path `frm` ("" is the
    project), or None."""
    p = frm
    while True:
        cand = (p + "/node_modules/" if p else "node_modules/") + name
        if cand in tree:
            return cand
        if not p:
            return None
        i = p.rfind("/node_modules/")
        p = p[:i] if i >= 0 else ""


def through_other_platform(tree, root_deps, manifest):
    """Paths of npm's lock that only `other-platform` entries reach:
    arborist's optional set of a node that fails its platform check, which
    npm ci leaves out with it (e.g. the wasm32 runtime a freebsd-wasm32
    binding depends on, without os/cpu of its own). manifest(path, name,
    version) gives the entry's dependency fields."""
    def reach(skip_other):
        seen, todo = set(), [("", {n: None for n in root_deps})]
        while todo:
            frm, deps = todo.pop()
            for dn in deps:
                to = node_resolve(tree, frm, dn)
                if not to or to in seen or (skip_other and "other-platform" in tree[to][2]):
                    continue
                seen.add(to)
                m = manifest(to, tree[to][0], tree[to][1]) or {}
                todo.append((to, [d for f in DEP_FIELDS for d in (m.get(f) or {})]))
        return seen
    if not any("other-platform" in e[2] for e in tree.values()):
        return set()
    return {p for p in reach(False) - reach(True) if "other-platform" not in tree[p][2]}


def packument_manifest(docs):
    """manifest() for through_other_platform() from the recorded
    packuments (docs: load_packuments(lazy=True), parsed on demand)."""
    parsed = {}

    def manifest(path, name, version):
        if name not in parsed:
            d = docs.get(name)
            parsed[name] = json.loads(d) if isinstance(d, str) else d
        return ((parsed[name] or {}).get("versions") or {}).get(version)
    return manifest


def admits(field, value):
    if not field:
        return True
    field = [field] if isinstance(field, str) else field
    if ("!" + value) in field:
        return False
    pos = [x for x in field if not x.startswith("!")]
    return not pos or value in pos


SPEC = """apiVersion: environments.datalayer.io/v1alpha1
kind: Environment
metadata:
  name: %s
spec:
  language:
    name: python
    version: "3.13"
  base:
    ref: datalayer/python-cpu
    channel: "2026.09"
  packages:
    node:
      dependencies:
%s
"""
BASES = """format: envlock-bases/1
variants: [datalayer]
bases:
  datalayer/python-cpu:
    cuda: false
    python: "3.13"
    channels:
      "2026.09":
        python: 3.13.7
        arch: amd64
        libc: glibc 2.36
        platform: manylinux_2_36_x86_64
        node: "%s"
        digests:
          datalayer: sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932c782f81c432b36
"""


def run_envlock(envlock, s, work, registry, node):
    """envlock resolve of the set: ({path: [name, version]}, None) or
    (None, error code and message)."""
    d = os.path.join(work, "envlock")
    os.makedirs(d, exist_ok=True)
    lines = "\n".join("        - %s" % json.dumps("%s@%s" % (n, r)) for n, r in sorted(s["dependencies"].items()))
    with open(os.path.join(d, "spec.yaml"), "w") as f:
        f.write(SPEC % (s["id"], lines))
    with open(os.path.join(d, "bases.yaml"), "w") as f:
        f.write(BASES % node)
    cmd = [envlock, "--json", "--cache-dir", os.path.join(d, "cache")]
    if registry != UPSTREAM:
        cmd += ["--mirror", "%s=%s" % (UPSTREAM, registry)]
    cmd += ["resolve", os.path.join(d, "spec.yaml"), "-o", os.path.join(d, "envlock.lock"),
            "--bases", os.path.join(d, "bases.yaml"), "--exclude-newer", CUTOFF]
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["XDG_CONFIG_HOME"] = os.path.join(d, "xdg")
    r = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    if r.returncode != 0:
        try:
            err = json.loads(r.stdout)
            err = err.get("error", err)
            return None, "%s (exit %d): %s" % (err.get("code"), r.returncode,
                                                " ".join((err.get("message") or "").split())[:400])
        except ValueError:
            return None, "exit %d: %s" % (r.returncode, r.stderr[-300:])
    sys.path.insert(0, os.path.join(HERE, "..", "..", "scenarios"))
    import run_scenarios as rs
    with open(os.path.join(d, "envlock.lock"), encoding="utf-8") as f:
        text = f.read()
    tree = {}
    for line in rs.project(text):
        parts = line.split()
        attrs = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
        if parts[0] == "npm" and "base" not in parts[3:]:
            tree[attrs.get("path")] = [parts[1], parts[2]]
    return tree, None


def compare(npm_tree, el_tree, el_err, drop=()):
    """(outcome, difference lines). npm's optional copies for other
    platforms, and `drop` (what only they reach), are left out first
    (deviations.txt); its bundled copies (inBundle) are compared like any
    other entry."""
    if el_err:
        return "refused", [el_err]
    want = {p: (n, v) for p, (n, v, fl) in npm_tree.items()
            if "other-platform" not in fl and p not in drop}
    got = {p: tuple(nv) for p, nv in el_tree.items()}
    diff = ["%s envlock %s npm %s" % (p, "@".join(got[p]) if p in got else "-",
                                      "@".join(want[p]) if p in want else "-")
            for p in sorted(set(want) | set(got)) if want.get(p) != got.get(p)]
    if not diff:
        return "identical", []
    if set(want.values()) == set(got.values()):
        return "paths", diff
    return "versions", diff


def xz_json_write(path, obj):
    with lzma.open(path, "wt", preset=9 | lzma.PRESET_EXTREME) as f:
        json.dump(obj, f, sort_keys=True, separators=(",", ":"))


def load_sets(tier="all"):
    """The sets of sets.json; tier "quick" keeps those marked quick (the
    default ctest run), NPM_APPS_ONLY=id,id narrows either."""
    only = os.environ.get("NPM_APPS_ONLY")
    with open(SETS) as f:
        sets = json.load(f)["sets"]
    return [s for s in sets if (tier == "all" or s.get("tier") == tier)
            and (not only or s["id"] in only.split(","))]


def node_version():
    return subprocess.run(["node", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip().lstrip("v")


def load_packuments(lazy=False):
    """name -> packument; lazy keeps each line's text, parsed when served
    (a quick run asks for a fraction of them). The stored lines have sorted
    keys, so the first "name" is the document's, before its versions."""
    docs = {}
    with lzma.open(PACKUMENTS, "rt") as f:
        for line in f:
            if lazy:
                m = LINE_NAME.search(line)
                docs[json.loads('"%s"' % m.group(1))] = line
            else:
                d = json.loads(line)
                docs[d["name"]] = d
    return docs


def cmd_record(envlock, jobs=3):
    """npm, then envlock (so the fixture holds what either crawl asks for),
    through one recording proxy; the packuments are stored once. Records the
    chosen sets (NPM_APPS_ONLY, default all) into the existing fixture: a
    stored packument is served as stored (so sets recorded at different
    times see the same data), except one whose bundling versions lack the
    registry's integrity, which is fetched again when asked for."""
    sets = load_sets()
    docs = load_packuments() if os.path.exists(PACKUMENTS) else {}
    stale = {n for n, d in docs.items() if any(bundles(m) and "dist" not in m for m in d["versions"].values())}
    srv = serve(docs, UPSTREAM, stale)
    work = tempfile.mkdtemp(prefix="npm-apps-record-")
    node = node_version()
    expected = {"sets": {}}
    if os.path.exists(EXPECTED):
        with lzma.open(EXPECTED, "rt") as f:
            expected = json.load(f)
    expected.update({"recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cutoff": CUTOFF,
                     "node": node, "npm": subprocess.run(["npm", "--version"], stdout=subprocess.PIPE,
                                                         text=True).stdout.strip()})

    def one(s):
        w = os.path.join(work, s["id"])
        t0 = time.time()
        tree = run_npm(s, w, srv.base)
        t1 = time.time()
        if envlock:
            run_envlock(envlock, s, w, srv.base, node)
        print("record %s: npm %s in %.0fs, envlock %.0fs" % (
            s["id"], "%d nodes" % len(tree) if isinstance(tree, dict) else "FAILED " + tree,
            t1 - t0, time.time() - t1), flush=True)
        return tree
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for s, tree in zip(sets, ex.map(one, sets)):
            expected["sets"][s["id"]] = tree if isinstance(tree, dict) else {"npm-error": tree}
    srv.shutdown()
    xz_json_write(EXPECTED, expected)
    with lzma.open(PACKUMENTS, "wt", preset=9 | lzma.PRESET_EXTREME) as f:
        for name in sorted(srv.docs):
            f.write(json.dumps(srv.docs[name], sort_keys=True, separators=(",", ":")) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print("recorded %d sets, %d packuments" % (len(sets), len(srv.docs)))
    return 0


# node_modules/NAME[/node_modules/NAME...]/package.json (npm_bundle.c)
BUNDLED_PATH = re.compile(r"^node_modules/(@[^/]+/)?[^/]+(/node_modules/(@[^/]+/)?[^/]+)*/package\.json$")


def cmd_record_bundles():
    """For every bundling version in npm's recorded trees, its registry
    tarball (checked against the recorded integrity), read for the bundled
    package.json files under node_modules, each trimmed to BUNDLE_KEEP."""
    import io
    import tarfile
    with lzma.open(EXPECTED, "rt") as f:
        expected = json.load(f)
    docs = load_packuments()
    want = set()
    for tree in expected["sets"].values():
        for path, (name, version, flags) in (tree.items() if "npm-error" not in tree else []):
            man = (docs.get(name) or {"versions": {}})["versions"].get(version)
            if man and bundles(man) and "bundled" not in flags:
                want.add((name, version, man["dist"]["integrity"]))
    out = []
    for name, version, integrity in sorted(want):
        url = "%s/%s/-/%s-%s.tgz" % (UPSTREAM, name, name.split("/")[-1], version)
        with urllib.request.urlopen(url, timeout=300) as r:
            data = r.read()
        algo, b64 = integrity.split("-", 1)
        if base64.b64encode(hashlib.new(algo, data).digest()).decode() != b64:
            raise SystemExit("%s: not the recorded integrity" % url)
        packages = {}
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tf:
            for m in tf.getmembers():
                parts = m.name.split("/", 1)
                if m.isfile() and len(parts) == 2 and BUNDLED_PATH.match(parts[1]):
                    man = json.loads(tf.extractfile(m).read())
                    packages[parts[1][:-len("/package.json")]] = {k: man[k] for k in BUNDLE_KEEP if k in man}
        out.append({"name": name, "version": version, "source": url, "packages": packages})
        print("bundles %s@%s: %d packages" % (name, version, len(packages)))
    with lzma.open(BUNDLES, "wt", preset=9 | lzma.PRESET_EXTREME) as f:
        for b in out:
            f.write(json.dumps(b, sort_keys=True, separators=(",", ":")) + "\n")
    return 0


def read_xfail():
    out = {}
    with open(XFAIL) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                out[line[0]] = line[1]
    return out


def report(results, xfail, npm_refuses):
    """Print per set and the tally; 1 when an outcome differs from the list
    (sets not run here are not checked)."""
    bad = []
    tally = {"identical": 0, "paths": 0, "versions": 0, "refused": 0}
    for sid, (outcome, diff, secs) in sorted(results.items()):
        tally[outcome] += 1
        want = xfail.get(sid, "identical")
        mark = "ok" if outcome == want else "UNEXPECTED (listed: %s)" % want
        if outcome != want:
            bad.append(sid)
        print("%-32s %-9s %5.1fs  %s" % (sid, outcome, secs, mark))
        for d in diff[:8]:
            print("    " + d)
        if len(diff) > 8:
            print("    ... %d more" % (len(diff) - 8))
    with open(SETS) as f:
        known = {s["id"] for s in json.load(f)["sets"]}
    for sid in sorted(set(xfail) - known):
        print("%s: listed in expected-failures.txt but not a set" % sid)
        bad.append(sid)
    for sid, err in sorted(npm_refuses.items()):
        print("%-32s npm refuses (not compared): %s" % (sid, err[:160]))
    print("npm_apps: identical on %d/%d, same versions other paths %d, other versions %d, refused %d"
          % (tally["identical"], len(results), tally["paths"], tally["versions"], tally["refused"]))
    if bad:
        print("npm_apps: outcome differs from expected-failures.txt for: %s" % " ".join(bad))
        return 1
    return 0


def cmd_test(envlock, jobs, tier):
    if tier == "all" and os.environ.get("NPM_APPS_ALL") != "1" and not os.environ.get("NPM_APPS_ONLY"):
        print("skipped: every set takes about 2 minutes; set NPM_APPS_ALL=1 (the quick tier runs in agree_npm_apps)")
        return 77
    with lzma.open(EXPECTED, "rt") as f:
        expected = json.load(f)
    docs = load_packuments(lazy=True)
    srv = serve(docs, tarballs=load_tarballs())
    manifest = packument_manifest(docs)
    work = tempfile.mkdtemp(prefix="npm-apps-")
    chosen = load_sets(tier)
    npm_refuses = {s["id"]: expected["sets"][s["id"]]["npm-error"] for s in chosen
                   if "npm-error" in expected["sets"].get(s["id"], {})}
    sets = [s for s in chosen if s["id"] in expected["sets"] and s["id"] not in npm_refuses]

    def one(s):
        t0 = time.time()
        tree, err = run_envlock(envlock, s, os.path.join(work, s["id"]), srv.base, expected["node"])
        want = expected["sets"][s["id"]]
        drop = through_other_platform(want, s["dependencies"], manifest)
        return compare(want, tree, err, drop) + (time.time() - t0,)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            results = dict(zip([s["id"] for s in sets], ex.map(one, sets)))
    finally:
        srv.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return report(results, read_xfail(), npm_refuses)


def cmd_live(envlock, jobs):
    if os.environ.get("ENVLOCK_LIVE") != "1":
        print("skipped: set ENVLOCK_LIVE=1 to run against %s" % UPSTREAM)
        return 77
    try:
        urllib.request.urlopen(UPSTREAM + "/-/ping", timeout=10).read()
    except (urllib.error.URLError, OSError) as e:
        print("skipped: %s does not answer (%s)" % (UPSTREAM, e))
        return 77
    with lzma.open(EXPECTED, "rt") as f:
        if node_version() != json.load(f)["node"]:
            print("note: node differs from the recording's; npm's engines preference may too")
    work = tempfile.mkdtemp(prefix="npm-apps-live-")
    node = node_version()

    def one(s):
        w = os.path.join(work, s["id"])
        t0 = time.time()
        tree = run_npm(s, w, UPSTREAM)
        if not isinstance(tree, dict):
            return tree
        el, err = run_envlock(envlock, s, w, UPSTREAM, node)
        res = compare(tree, el, err) + (time.time() - t0,)
        # a live run takes minutes per set: say each as it ends
        print("%-32s %-9s %5.1fs (done)" % (s["id"], res[0], res[2]), flush=True)
        return res
    sets = load_sets("all")
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        out = dict(zip([s["id"] for s in sets], ex.map(one, sets)))
    shutil.rmtree(work, ignore_errors=True)
    return report({k: r for k, r in out.items() if isinstance(r, tuple)}, read_xfail(),
                  {k: r for k, r in out.items() if not isinstance(r, tuple)})


def main(argv):
    jobs = int(os.environ.get("NPM_APPS_JOBS", "2"))
    if argv[:1] == ["record"]:
        return cmd_record(argv[1] if len(argv) > 1 else None, jobs=3)
    if argv[:1] == ["record-bundles"]:
        return cmd_record_bundles()
    if argv[:1] in (["test"], ["test-all"]) and len(argv) == 2:
        return cmd_test(argv[1], jobs, "quick" if argv[0] == "test" else "all")
    if argv[:1] == ["live"] and len(argv) == 2:
        return cmd_live(argv[1], jobs)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

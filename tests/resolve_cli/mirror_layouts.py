#!/usr/bin/env python3
"""mirror_layouts.py CASE ENVLOCK — the same spec through every common
mirror layout gives the same lock, byte for byte (issue 9; lock format 2,
docs/lock-format.md "Where a lock was made").

Every layout is served by a real server on 127.0.0.1 started here, and
resolved with a fresh cache; each lock must equal the reference layout's
and name no mirror (no 127.0.0.1, no file://).

  demo        corpus/demo/demo.yaml; npm from file://, and
    canonical   the public layout: pages at pypi.org/simple link every file
                absolutely on a separate files host (the index host and the
                file host each mapped with --mirror); apt from file://;
    host        pypi.org mapped as a whole: pages and files under one prefix;
    simple      only the simple index mapped; its pages link the files
                `../../files/...`, outside the mapped prefix (bandersnatch,
                Artifactory, Nexus);
    devpi       pages linking the files absolutely on the mirror's own host
                under another path (`/root/pypi/+f/...`, devpi and
                Artifactory style);
    html        Python's http.server (servers.DirServer): the PEP 503 HTML pages (no sizes,
                no upload times), Last-Modified and no ETags;
    file        the tree through file:// (HTML pages, no validators);
    apt-path    the apt repository served by nginx under another path.
  registries  corpus/scenarios/cross-pypi-npm-apt.scn (tests/fixtures), the
              PyPI and apt parts from nginx, and npm from
    static      nginx, whose packuments name tarballs on nginx;
    verdaccio   Verdaccio, which rewrites every tarball URL to itself
                (skipped as a layout, not as a test, when Verdaccio is not
                installed: the static layout still runs).
Exit 0 pass, 1 fail, 77 skip (nginx missing)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, os.path.join(ROOT, "tests", "scenarios"))
import servers  # noqa: E402

BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")
SNAPSHOT = "https://snapshot.debian.org/archive/debian/20260914T150000Z"
FILES_HOST = "https://files.pythonhosted.org"

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def env(work):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
    e["ENVLOCK_CONFIG"] = "/nonexistent"
    e["XDG_CONFIG_HOME"] = os.path.join(work, "xdg")
    return e


def resolve(el, work, name, args, spec, bases):
    lock = os.path.join(work, name + ".lock")
    r = subprocess.run([el, "--cache-dir", os.path.join(work, "cache-" + name)] + args +
                       ["resolve", spec, "--bases", bases, "-o", lock],
                       env=env(work), capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail("%s: resolve exited %d: %s" % (name, r.returncode, r.stderr.strip()))
        return None
    data = open(lock, "rb").read()
    for leak in (b"127.0.0.1", b"file://"):
        if leak in data:
            fail("%s: the lock names the mirror (%s)" % (name, leak.decode()))
    print("%s: %d bytes" % (name, len(data)))
    return data


def page_identity(doc):
    """A PEP 691 page's identity as docs/lock-format.md defines it ("Where a
    lock was made"), worked out here from the page itself."""
    import hashlib
    entries = []
    for f in doc.get("files", []):
        sha = (f.get("hashes") or {}).get("sha256")
        y = f.get("yanked", False)
        y = (y or True) if isinstance(y, str) else bool(y)
        cm = f.get("core-metadata", f.get("dist-info-metadata", False))
        cm = (cm.get("sha256") or True) if isinstance(cm, dict) else bool(cm)
        entries.append(json.dumps([f["filename"], sha, f.get("requires-python") or None, y, cm],
                                  separators=(",", ":"), ensure_ascii=False))
    text = "[" + ",".join(sorted(entries)) + "]"
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def check_identities(lock, simple):
    """Every PyPI input of the lock has the identity of the page in `simple`."""
    text = lock.decode()
    found = re.findall(r'- ecosystem: pypi\n  url: "https://pypi.org/simple/([^/"]+)/"\n'
                       r'  identity: "([^"]+)"', text)
    if not found:
        fail("the lock has no PyPI inputs")
    for name, ident in found:
        with open(os.path.join(simple, name, "index.json")) as f:
            want = page_identity(json.load(f))
        if ident != want:
            fail("input %s: identity %s, the page's is %s" % (name, ident, want))


def compare(work, ref, locks):
    for name, data in sorted(locks.items()):
        if data is not None and locks.get(ref) is not None and data != locks[ref]:
            fail("layout %s gives another lock than %s" % (name, ref))
            subprocess.run(["diff", os.path.join(work, ref + ".lock"),
                            os.path.join(work, name + ".lock")])


def rewrite_pages(simple, link):
    """Rewrite every project page below `simple` (index.json and
    index.html) so that each file links link(filename)."""
    for proj in os.listdir(simple):
        d = os.path.join(simple, proj)
        if not os.path.isdir(d):
            continue
        pj = os.path.join(d, "index.json")
        if os.path.exists(pj):
            with open(pj) as f:
                doc = json.load(f)
            for e in doc.get("files", []):
                e["url"] = link(e["filename"])
            with open(pj, "w") as f:
                json.dump(doc, f, indent=1)
        ph = os.path.join(d, "index.html")
        if os.path.exists(ph):
            with open(ph) as f:
                text = f.read()
            text = re.sub(r'href="\.\./\.\./files/([^"#]+)', lambda m: 'href="%s' % link(m.group(1)),
                          text)
            with open(ph, "w") as f:
                f.write(text)


def build_demo_tree(tree, port):
    """The demo mirror in the canonical, devpi and apt-path layouts, for an
    nginx on `port` (the devpi pages name their own host)."""
    src = os.path.join(MIRROR, "pypi", "pypi")
    # canonical: /canon/simple pages -> https://files.pythonhosted.org/packages/F
    shutil.copytree(os.path.join(src, "simple"), os.path.join(tree, "canon", "simple"))
    rewrite_pages(os.path.join(tree, "canon", "simple"),
                  lambda f: "%s/packages/%s" % (FILES_HOST, f))
    shutil.copytree(os.path.join(src, "files"), os.path.join(tree, "canon-files", "packages"))
    # devpi: /devpi/root/pypi/+simple pages -> http://127.0.0.1:P/devpi/root/pypi/+f/F
    dv = os.path.join(tree, "devpi", "root", "pypi")
    shutil.copytree(os.path.join(src, "simple"), os.path.join(dv, "+simple"))
    rewrite_pages(os.path.join(dv, "+simple"),
                  lambda f: "http://127.0.0.1:%d/devpi/root/pypi/+f/%s" % (port, f))
    shutil.copytree(os.path.join(src, "files"), os.path.join(dv, "+f"))
    # apt-path: the repository under /mirrors/debian/snapshot
    shutil.copytree(os.path.join(MIRROR, "apt"), os.path.join(tree, "mirrors", "debian", "snapshot"))


def case_demo(el, work):
    tree = os.path.join(work, "tree")
    os.makedirs(tree)
    ng = servers.Nginx(MIRROR, work=os.path.join(work, "nginx"))
    alt = servers.Nginx(tree, work=os.path.join(work, "nginx-alt"))
    hs = servers.DirServer(MIRROR)
    started = []
    try:
        for s in (ng, alt, hs):
            if isinstance(s, servers.Nginx):
                os.makedirs(s.work, exist_ok=True)
            s.start()
            started.append(s)
        build_demo_tree(tree, alt.port)
        npm = ["--mirror", "https://registry.npmjs.org=file://%s/npm" % MIRROR]
        apt = ["--mirror", "%s=file://%s/apt" % (SNAPSHOT, MIRROR)]
        canon = ["--mirror", "https://pypi.org/simple=%s/canon/simple" % alt.url,
                 "--mirror", "%s=%s/canon-files" % (FILES_HOST, alt.url)]
        layouts = {
            "canonical": canon + npm + apt,
            "host": ["--mirror", "https://pypi.org=%s/pypi/pypi" % ng.url] + npm + apt,
            "simple": ["--mirror", "https://pypi.org/simple=%s/pypi/pypi/simple" % ng.url] + npm + apt,
            "devpi": ["--mirror", "https://pypi.org/simple=%s/devpi/root/pypi/+simple" % alt.url]
                     + npm + apt,
            "html": ["--mirror", "https://pypi.org/simple=%s/pypi/pypi/simple" % hs.url] + npm + apt,
            "file": ["--mirror", "https://pypi.org/simple=file://%s/pypi/pypi/simple" % MIRROR]
                    + npm + apt,
            "apt-path": canon + npm + ["--mirror", "%s=%s/mirrors/debian/snapshot" % (SNAPSHOT, alt.url)],
        }
        locks = {n: resolve(el, work, n, a, DEMO, BASES) for n, a in sorted(layouts.items())}
        # each layout was really read where it says (not from a shared cache)
        with open(os.path.join(alt.work, "access.log")) as f:
            seen = f.read()
        for path in ("/canon/simple/requests/", "/canon-files/packages/", "/devpi/root/pypi/+f/",
                     "/mirrors/debian/snapshot/dists/bookworm/"):
            if path not in seen:
                fail("nobody read %s from the layout server" % path)
        if locks.get("canonical"):
            check_identities(locks["canonical"], os.path.join(MIRROR, "pypi", "pypi", "simple"))
        compare(work, "canonical", locks)
    finally:
        for s in started:
            s.stop()


def case_registries(el, work):
    import run_scenarios as rs
    import scenario as scn
    path = os.path.join(ROOT, "corpus", "scenarios", "cross-pypi-npm-apt.scn")
    sc = scn.parse(path)
    _flags, cat = rs.parse_options(sc)
    with servers.mirror([path], verdaccio="auto", workdir=os.path.join(work, "m")) as m:
        man = m.manifest
        common = []
        for name, canon in sorted(man["pypi-indexes"].items()):
            common += ["--mirror", "%s=%s/pypi/%s" % (canon[: -len("/simple")], m.nginx.url, name)]
        for name, url in sorted(man.get("apt-suites", {}).items()):
            common += ["--mirror", "%s=%s/apt" % (url.rstrip("/"), m.nginx.url)]
        catalog = os.path.join(work, "catalog", "bases.yaml")
        os.makedirs(os.path.dirname(catalog))
        rs.write_catalog(catalog, sc, man, m.root, cat, True)
        spec = os.path.join(work, "spec.yaml")
        with open(spec, "w") as f:
            f.write(sc.spec_text)
        layouts = {"static": ["--mirror", "%s=%s/npm" % (rs.NPM_DEFAULT, m.nginx.url)]}
        if m.verdaccio:
            layouts["verdaccio"] = ["--mirror", "%s=%s" % (rs.NPM_DEFAULT, m.verdaccio.url.rstrip("/"))]
        else:
            print("note: Verdaccio is not installed; the static layout only")
        locks = {n: resolve(el, work, n, common + a, spec, catalog) for n, a in sorted(layouts.items())}
        data = locks.get("static") or b""
        if b"ecosystem: npm" not in data or b"tinycolor" not in data:
            fail("the lock has the npm packages: %r" % data[:200])
        compare(work, "static", locks)


def main():
    case, el = sys.argv[1], sys.argv[2]
    if not os.path.exists(servers.NGINX):
        print("SKIP: nginx not installed")
        return 77
    work = tempfile.mkdtemp(prefix="envlock-layouts-")
    try:
        {"demo": case_demo, "registries": case_registries}[case](el, work)
    finally:
        if os.environ.get("LAYOUTS_KEEP") == "1":
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

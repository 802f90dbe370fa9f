#!/usr/bin/env python3
"""site.py — bench/bundle/run.sh's helpers (standard library and PyYAML).

    site.py debian LOCK STORE TREE
        The lock's Debian part as a local archive: InRelease, Release,
        Release.gpg and the Packages.xz of every suite/component the lock's
        debs come from (also at its by-hash path), and every locked .deb at
        its pool path, fetched ONCE from the live archive into STORE (kept
        between runs: a file already there with the right sha256 is not
        fetched again) and hard-linked into TREE/debian. Prints the archive
        URL the lock names (the canonical one, to --mirror).
    site.py debs LOCK
        `name=version` of every locked deb not in the base, one a line (what
        `apt-get download` is given).
    site.py serve-bundle DIR WORK
        nginx with the server block of DIR/README (tests/fixtures/bundle_site)
        on a free loopback port, left running; prints its pid, then the
        README's --mirror lines with the bundle's address.
"""

import concurrent.futures
import hashlib
import lzma
import os
import re
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))


def lock_debs(lock):
    import yaml  # python3-yaml
    doc = yaml.safe_load(open(lock))
    return [p for p in doc["packages"] if p["ecosystem"] == "deb" and not p.get("installedInBase")]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(url, path, sha=None):
    """url into path unless it is there (with sha, when given)."""
    if os.path.exists(path) and (sha is None or sha256_file(path) == sha):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for attempt in range(5):  # the live archive (and DNS) fail now and then
        try:
            with urllib.request.urlopen(url, timeout=120) as r:
                data = r.read()
            break
        except OSError:
            if attempt == 4:
                raise
            time.sleep(2 ** attempt)
    if sha and hashlib.sha256(data).hexdigest() != sha:
        raise SystemExit("%s: sha256 is not %s" % (url, sha))
    with open(path + ".part", "wb") as f:
        f.write(data)
    os.replace(path + ".part", path)


def release_sha(release, name):
    """The SHA256 line of Release for `name` (a path under the dist)."""
    sec = release.split("\nSHA256:", 1)[1]
    for line in sec.splitlines()[1:]:
        if not line.startswith(" "):
            break
        h, _, n = line.split()
        if n == name:
            return h
    raise SystemExit("Release lists no %s" % name)


def packages(text):
    for stanza in text.split("\n\n"):
        f = dict(re.findall(r"^([A-Za-z0-9-]+): (.*)$", stanza, re.M))
        if "Package" in f:
            yield f


def cmd_debian(lock, store, tree):
    debs = lock_debs(lock)
    dists = {}
    for p in debs:
        m = re.match(r"(\S+?)/? (\S+)/(\S+)$", p["source"])  # "http://deb.debian.org/debian/ bookworm/main"
        dists.setdefault((m.group(1), m.group(2)), set()).add(m.group(3))
    archives = set()
    want = {(p["name"], str(p["version"])) for p in debs}
    pool = {}
    for (archive, suite), comps in sorted(dists.items()):
        archives.add(archive)
        d = "dists/%s/" % suite
        # The dist's signed files, fetched again each run: a new point release
        # changes them, and the lock says which one it was made from.
        for n in ("InRelease", "Release", "Release.gpg"):
            p = os.path.join(store, d + n)
            if os.path.exists(p):
                os.unlink(p)
            fetch("%s/%s%s" % (archive, d, n), p)
        release = open(os.path.join(store, d + "Release")).read()
        for comp in sorted(comps):
            name = "%s/binary-amd64/Packages.xz" % comp
            sha = release_sha(release, name)
            p = os.path.join(store, d + name)
            fetch("%s/%s%s" % (archive, d, name), p, sha)
            byhash = os.path.join(store, d + "%s/binary-amd64/by-hash/SHA256/%s" % (comp, sha))
            os.makedirs(os.path.dirname(byhash), exist_ok=True)
            if not os.path.exists(byhash):
                os.link(p, byhash)
            for f in packages(lzma.open(p).read().decode()):
                if (f["Package"], f["Version"]) in want:
                    pool[(f["Package"], f["Version"])] = (f["Filename"], f["SHA256"])
    missing = sorted(want - set(pool))
    if missing:
        raise SystemExit("not in the archive now: %s" % missing)
    archive = sorted(archives)[0]
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        for fut in [ex.submit(fetch, "%s/%s" % (archive, fn), os.path.join(store, fn), sha)
                    for fn, sha in pool.values()]:
            fut.result()
    dst = os.path.join(tree, "debian")
    for dp, _, fs in os.walk(store):
        for f in fs:
            if f.endswith(".part"):
                continue
            rel = os.path.relpath(os.path.join(dp, f), store)
            os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
            os.link(os.path.join(dp, f), os.path.join(dst, rel))
    print(archive)


def cmd_debs(lock):
    for p in lock_debs(lock):
        print("%s=%s" % (p["name"], p["version"]))


def cmd_serve_bundle(bundle_dir, work):
    import bundle_site
    proc, url = bundle_site.nginx_from_readme(bundle_dir, work)
    print(proc.pid)
    ms = bundle_site.readme_mirrors(bundle_dir)
    print(" ".join(m.replace("http://localhost:8080", url) for m in ms))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"debian": cmd_debian, "debs": cmd_debs, "serve-bundle": cmd_serve_bundle}[cmd](*args)


if __name__ == "__main__":
    main()

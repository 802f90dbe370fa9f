#!/usr/bin/env python3
"""demo_lock.py ENVLOCK — the bundled demo (corpus/demo/demo.yaml against the
committed mirror in corpus/demo/mirror) resolved through the real binary,
checked without copying envlock's own output:

- the lock parses as YAML (PyYAML) and names exactly the packages worked out
  by hand below from the mirror's contents and the base's dpkg status;
- no file:// URL and no path of the mirror appears anywhere in it;
- resolving again with the lock in place (a preference), and again into a
  new file, gives the same bytes;
- `envlock check` says up to date, with and without --offline.
Needs /usr/bin/python3 with python3-yaml; skipped (77) without it."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Worked out by hand from corpus/demo/mirror and corpus/bases/python-cpu-2026.09.status:
#  pypi: requests[socks]>=2.31 -> 2.32.3 (the only version), whose deps take
#   the newest each: charset-normalizer 3.4.0, idna 3.10, urllib3 2.2.3 (1.21
#   is older), certifi 2025.4.26, and for the socks extra pysocks 1.7.1.
#   pandas==2.2.3 -> numpy 2.2.6 (1.26.4 has only a cp312 wheel; the target is
#   CPython 3.13) and tzdata 2025.2. The protected pins are the base's
#   preinstalled dists (jupyter-server>=2.19 agrees with its pin, dropped).
#  npm: zod@^3 -> 3.23.8 (latest), debug@^4 -> 4.4.0 (latest), its ms ^2.1.3
#   -> 2.1.3; all hoisted to node_modules/.
#  deb: gdal-bin -> libgdal32 -> libgeos-c1v5, libproj25 -> proj-data,
#   gdal-data; libpq-dev -> libpq5, libssl-dev -> libssl3; libc6, libssl3 and
#   libc6's libgcc-s1 -> gcc-12-base are in the base's dpkg status.
EXPECTED = {
    ("deb", "gcc-12-base", "12.2.0-14", None, True),
    ("deb", "gdal-bin", "3.6.2+dfsg-1+b2", None, False),
    ("deb", "gdal-data", "3.6.2+dfsg-1", None, False),
    ("deb", "libc6", "2.36-9+deb12u7", None, True),
    ("deb", "libgcc-s1", "12.2.0-14", None, True),
    ("deb", "libgdal32", "3.6.2+dfsg-1+b2", None, False),
    ("deb", "libgeos-c1v5", "3.11.1-1", None, False),
    ("deb", "libpq-dev", "15.14-0+deb12u1", None, False),
    ("deb", "libpq5", "15.14-0+deb12u1", None, False),
    ("deb", "libproj25", "9.1.1-1+b1", None, False),
    ("deb", "libssl-dev", "3.0.17-1~deb12u2", None, False),
    ("deb", "libssl3", "3.0.17-1~deb12u2", None, True),
    ("deb", "proj-data", "9.1.1-1", None, False),
    ("npm", "debug", "4.4.0", "node_modules/debug", False),
    ("npm", "ms", "2.1.3", "node_modules/ms", False),
    ("npm", "zod", "3.23.8", "node_modules/zod", False),
    ("pypi", "certifi", "2025.4.26", None, False),
    ("pypi", "charset-normalizer", "3.4.0", None, False),
    ("pypi", "datalayer", "1.7.4", None, True),
    ("pypi", "idna", "3.10", None, False),
    ("pypi", "ipykernel", "7.3.0", None, True),
    ("pypi", "jupyter-client", "8.9.1", None, True),
    ("pypi", "jupyter-kernels", "1.2.23", None, True),
    ("pypi", "jupyter-server", "2.21.0+datalayer.1", None, True),
    ("pypi", "jupyter-server-nbmodel", "0.2.8", None, True),
    ("pypi", "numpy", "2.2.6", None, False),
    ("pypi", "pandas", "2.2.3", None, False),
    ("pypi", "pysocks", "1.7.1", None, False),
    ("pypi", "requests", "2.32.3", None, False),
    ("pypi", "tzdata", "2025.2", None, False),
    ("pypi", "urllib3", "2.2.3", None, False),
}


def main():
    envlock = sys.argv[1]
    try:
        import yaml
    except ImportError:
        return 77
    tmp = tempfile.mkdtemp(prefix="demo-lock-")
    mirror = os.path.join(REPO, "corpus", "demo", "mirror")
    args = [envlock, "-q",
            "--mirror", "https://pypi.org=file://%s/pypi/pypi" % mirror,
            "--mirror", "https://registry.npmjs.org=file://%s/npm" % mirror,
            "--mirror", "https://snapshot.debian.org/archive/debian/20260914T150000Z=file://%s/apt" % mirror,
            "--cache-dir", os.path.join(tmp, "cache")]
    spec = os.path.join(REPO, "corpus", "demo", "demo.yaml")
    bases = os.path.join(REPO, "corpus", "demo", "bases.yaml")
    env = dict(os.environ, ENVLOCK_CONFIG=os.path.join(tmp, "no-config"))
    env.pop("ENVLOCK_BASES", None)
    fails = []

    def resolve(out):
        p = subprocess.run(args + ["resolve", "--bases", bases, spec, "-o", out], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise SystemExit("resolve failed (%d): %s" % (p.returncode, p.stderr.decode()))
        with open(out, "rb") as f:
            return f.read()

    lock = os.path.join(tmp, "envlock.lock")
    first = resolve(lock)
    doc = yaml.safe_load(first.decode())
    got = set()
    for p in doc["packages"]:
        got.add((p["ecosystem"], p["name"], p["version"], p.get("path"),
                 bool(p.get("installedInBase", False))))
    for x in sorted(EXPECTED - got, key=str):
        fails.append("missing from the lock: %s" % (x,))
    for x in sorted(got - EXPECTED, key=str):
        fails.append("not expected in the lock: %s" % (x,))
    requests = [p for p in doc["packages"] if p["name"] == "requests"]
    if not requests or requests[0].get("extras") != ["socks"]:
        fails.append("requests should carry extras [socks]")
    text = first.decode()
    for bad in ("file://", mirror, "/corpus/demo/mirror"):
        if bad in text:
            fails.append("the lock holds %r" % bad)
    if resolve(lock) != first:
        fails.append("resolving again with the lock in place gives other bytes")
    if resolve(os.path.join(tmp, "fresh.lock")) != first:
        fails.append("resolving into a new file gives other bytes")
    for extra in ([], ["--offline"]):
        p = subprocess.run(args + ["check", "--bases", bases] + extra + [spec, lock], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0 or b"is up to date" not in p.stdout:
            fails.append("check %s: exit %d: %s%s" % (" ".join(extra), p.returncode,
                                                      p.stdout.decode(), p.stderr.decode()))
    for f in fails:
        print("FAIL:", f)
    subprocess.run(["rm", "-rf", tmp])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

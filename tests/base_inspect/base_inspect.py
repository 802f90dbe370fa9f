#!/usr/bin/env python3
"""base_inspect — `envlock base inspect IMAGE.tar` against image archives
built here with tarfile (standard library), in both layouts:

  docker   a `docker save` tarball: manifest.json, <id>/layer.tar (plain),
           the config JSON;
  oci      an OCI image layout: oci-layout, index.json -> an image index
           (arm64 first, then amd64) -> the amd64 manifest -> config and
           gzip layers, every one under blobs/sha256/<hex>.

Both hold the same three layers, with a whiteout (`.wh.old.list`,
`.wh.Old_Pkg-1.0.dist-info`) and an opaque directory (`.wh..wh..opq`), and
must give the entry worked out by hand below (EXPECTED). Then the malformed
archives, each a DL_ENV_SPEC_INVALID with its detail.reason and the member
named; and the entry used by a resolve through --bases (RESOLVE part).

usage: base_inspect.py ENVLOCK [PART]   (PART: docker, oci, malformed, resolve)
"""
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"

STATUS_1 = (
    "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\n"
    "Version: 2.36-9+deb12u4\n\n"
)
# Layer 2 replaces the status file: libc6 was upgraded, ca-certificates added.
STATUS_2 = (
    "Package: base-files\nStatus: install ok installed\nArchitecture: amd64\n"
    "Version: 12.4+deb12u7\n\n"
    "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\n"
    "Version: 2.36-9+deb12u7\n\n"
    "Package: ca-certificates\nStatus: install ok installed\nArchitecture: all\n"
    "Version: 20230311\n"
)
DEB822 = (
    "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
    "Components: main\nSigned-By: %s\n\n"
    "Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n"
    "Components: main\nSigned-By: %s\n\n"
    "Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n"
    % (KEYRING, KEYRING)
)
SITE = "usr/local/lib/python3.11/site-packages/"


def meta(name, version):
    return "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: x\n\nbody Name: no\n" % (
        name, version)


LAYERS = [
    [  # 1: the base system and Python
        ("var/lib/dpkg/status", STATUS_1),
        ("etc/apt/sources.list",
         "# the main archive\ndeb [signed-by=%s] http://deb.debian.org/debian bookworm contrib\n"
         "deb-src http://deb.debian.org/debian bookworm main\n" % KEYRING),
        ("etc/apt/sources.list.d/old.list", "deb http://old.example/debian buster main\n"),
        ("usr/include/python3.11/patchlevel.h", '#define PY_VERSION "3.11.2"\n'),
        ("usr/local/include/python3.11/patchlevel.h",
         '/* Version as a string */\n#define PY_VERSION              "3.11.9"\n'),
        ("usr/local/bin/python3.11", "\x7fELF"),
        (SITE + "pip-24.0.dist-info/METADATA", meta("pip", "24.0")),
        (SITE + "setuptools-65.5.1.dist-info/METADATA", meta("setuptools", "65.5.1")),
        (SITE + "Old_Pkg-1.0.dist-info/METADATA", meta("Old_Pkg", "1.0")),
        ("usr/lib/python3/dist-packages/six-1.16.0.dist-info/METADATA", meta("six", "1.16.0")),
    ],
    [  # 2: whiteouts, a deb822 source, a replaced status
        ("etc/apt/sources.list.d/.wh.old.list", ""),
        ("etc/apt/sources.list.d/debian.sources", DEB822),
        (SITE + ".wh.Old_Pkg-1.0.dist-info", ""),
        (SITE + "Requests-2.31.0.dist-info/METADATA", meta("Requests", "2.31.0")),
        ("var/lib/dpkg/status", STATUS_2),
    ],
    [  # 3: an opaque directory: the lower setuptools METADATA is gone
        (SITE + "setuptools-68.0.0.dist-info/.wh..wh..opq", ""),
        (SITE + "setuptools-65.5.1.dist-info/.wh..wh..opq", ""),
        (SITE + "setuptools-68.0.0.dist-info/METADATA", meta("setuptools", "68.0.0")),
    ],
]

# Worked out by hand from the layers (URIs as sources.list(5) entries end
# in `/`, the form the apt reader's parser gives them): Python from /usr/local's patchlevel.h
# (not Debian's 3.11.2); glibc 2.36 from layer 2's libc6 2.36-9+deb12u7 ->
# manylinux_2_36_x86_64; sources: sources.list first (deb-src skipped), then
# sources.list.d by name (old.list whited out; debian.sources, one line per
# suite, deb-src skipped); every source signed by one keyring of this
# machine; dists in site-packages only (six is Debian's dist-packages),
# Old_Pkg whited out, setuptools 65.5.1's directory made opaque, Requests
# normalized.
EXPECTED = """\
# Written by `envlock base inspect` from the image archive "%(archive)s" (3 layer(s)):
# the catalog entry of the image (format: corpus/bases/README.md). Pass this
# file to --bases, or copy the entry under `images:` into a site's catalog.
# apt: the image verifies every source with "%(keyring)s", the same file of this machine is the keyring:
%(note)sformat: "envlock-bases/1"
variants: ["datalayer", "e2b", "daytona", "modal"]
bases: {}
images:
  "python:3.11-slim":
    python: "3.11.9"
    arch: "amd64"
    libc: "glibc 2.36"
    platform: "manylinux_2_36_x86_64"
    apt:
      keyring: "%(keyring)s"
      sources:
      - "deb http://deb.debian.org/debian/ bookworm contrib"
      - "deb http://deb.debian.org/debian/ bookworm main"
      - "deb http://deb.debian.org/debian/ bookworm-updates main"
      - "deb http://deb.debian.org/debian-security/ bookworm-security main"
%(status)s    preinstalled:
    - "pip==24.0"
    - "requests==2.31.0"
    - "setuptools==68.0.0"
"""
STATUS_LINE = '    dpkgStatus: "%s"\n'
NO_STATUS_NOTE = ("# dpkgStatus: the image's var/lib/dpkg/status is written beside the entry "
                  "with -o FILE\n")


class Failure(Exception):
    pass


def layer_tar(files, gz=False, extra=None):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        dirs = set()
        for path, text in files:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    ti = tarfile.TarInfo(d)
                    ti.type = tarfile.DIRTYPE
                    ti.mode = 0o755
                    t.addfile(ti)
            data = text.encode()
            ti = tarfile.TarInfo(path)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
        for ti in extra or []:
            t.addfile(ti, io.BytesIO(b"") if ti.isreg() else None)
    raw = buf.getvalue()
    return gzip.compress(raw, mtime=0) if gz else raw


def add(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))


CONFIG = json.dumps({"architecture": "amd64", "os": "linux",
                     "config": {"Env": ["PATH=/usr/local/bin:/usr/bin",
                                        "PYTHON_VERSION=3.11.9"]}}).encode()


def docker_archive(path, layers=None, manifest=None, members=None, skip=()):
    layers = layers if layers is not None else [layer_tar(f) for f in LAYERS]
    names = ["%064x/layer.tar" % (i + 1) for i in range(len(layers))]
    man = manifest if manifest is not None else [
        {"Config": "config.json", "RepoTags": ["python:3.11-slim"], "Layers": names}]
    with tarfile.open(path, "w") as t:
        for n, data in zip(names, layers):
            if n not in skip:
                add(t, n, data)
        add(t, "config.json", CONFIG)
        add(t, "manifest.json", json.dumps(man).encode())
        for n, data in (members or {}).items():
            add(t, n, data)


def blob(blobs, data):
    h = hashlib.sha256(data).hexdigest()
    blobs["blobs/sha256/" + h] = data
    return {"digest": "sha256:" + h, "size": len(data)}


def oci_archive(path, skip_manifest=False):
    blobs = {}
    cfg = blob(blobs, CONFIG)
    cfg["mediaType"] = "application/vnd.oci.image.config.v1+json"
    ls = []
    for f in LAYERS:
        d = blob(blobs, layer_tar(f, gz=True))
        d["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
        ls.append(d)
    man = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                      "config": cfg, "layers": ls}).encode()
    md = blob(blobs, man)
    if skip_manifest:
        del blobs["blobs/sha256/" + md["digest"][7:]]
    md["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
    md["platform"] = {"architecture": "amd64", "os": "linux"}
    arm = {"mediaType": "application/vnd.oci.image.manifest.v1+json",
           "digest": "sha256:" + "ab" * 32, "size": 1,
           "platform": {"architecture": "arm64", "os": "linux", "variant": "v8"}}
    nested = json.dumps({"schemaVersion": 2,
                         "mediaType": "application/vnd.oci.image.index.v1+json",
                         "manifests": [arm, md]}).encode()
    nd = blob(blobs, nested)
    nd["mediaType"] = "application/vnd.oci.image.index.v1+json"
    nd["annotations"] = {"io.containerd.image.name": "docker.io/library/python:3.11-slim",
                         "org.opencontainers.image.ref.name": "3.11-slim"}
    index = json.dumps({"schemaVersion": 2, "manifests": [nd]}).encode()
    with tarfile.open(path, "w") as t:
        add(t, "oci-layout", b'{"imageLayoutVersion": "1.0.0"}')
        add(t, "index.json", index)
        for n in sorted(blobs):
            add(t, n, blobs[n])


def run(envlock, args, cwd):
    p = subprocess.run([envlock] + args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def expect_entry(envlock, work, archive):
    rc, out, err = run(envlock, ["base", "inspect", archive], work)
    want = EXPECTED % {"archive": archive, "keyring": KEYRING, "status": "",
                       "note": NO_STATUS_NOTE}
    if rc != 0 or out != want:
        raise Failure("%s on stdout: rc %d\n--- got\n%s--- want\n%s%s" % (archive, rc, out, want, err))
    rc, out, err = run(envlock, ["base", "inspect", archive, "-o", "entry.yaml"], work)
    want = EXPECTED % {"archive": archive, "keyring": KEYRING, "note": "",
                       "status": STATUS_LINE % "entry.status"}
    got = open(os.path.join(work, "entry.yaml")).read() if rc == 0 else ""
    if rc != 0 or got != want:
        raise Failure("%s -o: rc %d\n--- got\n%s--- want\n%s%s" % (archive, rc, got, want, err))
    status = open(os.path.join(work, "entry.status")).read()
    if status != STATUS_2:
        raise Failure("%s: entry.status is not layer 2's status file:\n%s" % (archive, status))
    # The entry is a catalog envlock reads: validating against it works.
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC % {"variants": "[datalayer]"})
    rc, out, err = run(envlock, ["validate", spec, "--bases", "entry.yaml"], work)
    if rc != 0:
        raise Failure("%s: the entry is not a catalog validate takes: %s%s" % (archive, out, err))


SPEC = """\
apiVersion: environments.datalayer.io/v1alpha1
kind: Environment
metadata:
  name: from-image
spec:
  language:
    name: python
    version: "3.11"
  base:
    ref: datalayer/python-cpu
    channel: "2026.09"
  compatibility:
    variants:
      required: %(variants)s
  build:
    source: image
    image:
      reference: python:3.11-slim
  packages:
    python:
      dependencies:
        - tinypkg
"""


def part_docker(envlock, work):
    docker_archive(os.path.join(work, "docker.tar"))
    expect_entry(envlock, work, "docker.tar")
    # A keyring this machine does not have is not named (the catalog could
    # not be loaded), only said; the entry still validates.
    missing = "/usr/share/keyrings/no-such-archive-keyring.gpg"
    layers = [layer_tar([(p, t.replace(KEYRING, missing)) for p, t in f]) for f in LAYERS]
    docker_archive(os.path.join(work, "otherkey.tar"), layers=layers)
    rc, out, err = run(envlock, ["base", "inspect", "otherkey.tar", "-o", "other.yaml"], work)
    text = open(os.path.join(work, "other.yaml")).read() if rc == 0 else ""
    said = ('# apt: the image verifies every source with "%s", which this machine does '
            "not have: name a copy as keyring:\n" % missing)
    if rc != 0 or said not in text or "keyring: " in text:
        raise Failure("a keyring missing here: rc %d\n%s%s" % (rc, text, err))
    rc, out, err = run(envlock, ["validate", "spec.yaml", "--bases", "other.yaml"], work)
    if rc != 0:
        raise Failure("the entry without a keyring is not a catalog: %s%s" % (out, err))


def part_oci(envlock, work):
    oci_archive(os.path.join(work, "oci.tar"))
    expect_entry(envlock, work, "oci.tar")


def expect_error(envlock, work, archive, reason, file, words):
    rc, out, err = run(envlock, ["--json", "base", "inspect", archive], work)
    try:
        body = json.loads(out)
    except ValueError:
        raise Failure("%s: no JSON error: rc %d %s %s" % (archive, rc, out, err))
    det = body.get("detail", {})
    ok = (rc == 10 and body.get("code") == "DL_ENV_SPEC_INVALID" and det.get("reason") == reason
          and det.get("file") == file and all(w in body.get("message", "") for w in words))
    if not ok:
        raise Failure("%s: want %s naming %r (%s), got rc %d %s" % (archive, reason, file, words, rc, out))


def part_malformed(envlock, work):
    def p(name):
        return os.path.join(work, name)
    with open(p("junk.tar"), "wb") as f:
        f.write(b"this is not a tar archive at all\n" * 40)
    expect_error(envlock, work, "junk.tar", "not_an_image_archive", None, ["not an image archive"])
    with tarfile.open(p("plain.tar"), "w") as t:
        add(t, "hello.txt", b"hi\n")
    expect_error(envlock, work, "plain.tar", "not_an_image_archive", None,
                 ["manifest.json", "index.json"])
    docker_archive(p("noconfig.tar"), manifest=[{"Config": "missing.json", "Layers": []}])
    expect_error(envlock, work, "noconfig.tar", "missing_manifest", "missing.json",
                 ["missing.json", "not in the archive"])
    oci_archive(p("nomanifest.tar"), skip_manifest=True)
    rc, out, _ = run(envlock, ["--json", "base", "inspect", "nomanifest.tar"], work)
    f = json.loads(out).get("detail", {}).get("file", "")
    expect_error(envlock, work, "nomanifest.tar", "missing_manifest", f, [f, "not in the archive"])
    if not f.startswith("blobs/sha256/"):
        raise Failure("nomanifest.tar: the missing manifest is named %r" % f)
    missing = "%064x/layer.tar" % 2
    docker_archive(p("nolayer.tar"), skip=(missing,))
    expect_error(envlock, work, "nolayer.tar", "missing_layer", missing, [missing, "2 of 3"])
    bad = tarfile.TarInfo("../../etc/cron.d/evil")
    bad.size = 0
    docker_archive(p("traversal.tar"), layers=[layer_tar(LAYERS[0], extra=[bad])])
    name = "%064x/layer.tar" % 1
    expect_error(envlock, work, "traversal.tar", "path_traversal", name,
                 [name, "../../etc/cron.d/evil"])
    absolute = tarfile.TarInfo("x")
    absolute.type = tarfile.LNKTYPE
    absolute.linkname = "../../../etc/shadow"
    docker_archive(p("hardlink.tar"), layers=[layer_tar(LAYERS[0], extra=[absolute])])
    expect_error(envlock, work, "hardlink.tar", "path_traversal", name, ["../../../etc/shadow"])
    docker_archive(p("outside.tar"), manifest=[{"Config": "config.json", "Layers": ["../up.tar"]}])
    expect_error(envlock, work, "outside.tar", "path_traversal", "../up.tar", ["../up.tar"])
    # An image without glibc (no libc6 in its dpkg status) has no manylinux platform.
    docker_archive(p("noglibc.tar"), layers=[layer_tar([LAYERS[0][4]])])
    rc, out, _ = run(envlock, ["--json", "base", "inspect", "noglibc.tar"], work)
    if rc != 10 or json.loads(out)["detail"].get("reason") != "no_glibc":
        raise Failure("noglibc.tar: want no_glibc, got rc %d %s" % (rc, out))


def wheel(dirpath, name, version, requires_python):
    """A minimal wheel (zipfile, standard library) and its PEP 503 link."""
    fn = "%s-%s-py3-none-any.whl" % (name, version)
    path = os.path.join(dirpath, fn)
    info = "%s-%s.dist-info/" % (name, version)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(info + "METADATA", "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
                   "Requires-Python: %s\n" % (name, version, requires_python))
        z.writestr(info + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(info + "RECORD", "")
    h = hashlib.sha256(open(path, "rb").read()).hexdigest()
    return '<a href="%s#sha256=%s" data-requires-python="%s">%s</a>' % (
        fn, h, requires_python.replace(">", "&gt;").replace("<", "&lt;"), fn)


def part_resolve(envlock, work):
    """The entry inspected from the docker archive, passed to --bases: a spec
    building on python:3.11-slim resolves for the image's Python 3.11.9 (the
    built-in catalog has no entry at that version), so tinypkg 2.0, which
    needs Python >=3.12, is passed over for 1.0."""
    docker_archive(os.path.join(work, "docker.tar"))
    rc, _, err = run(envlock, ["base", "inspect", "docker.tar", "-o", "entry.yaml"], work)
    if rc != 0:
        raise Failure("inspect: %s" % err)
    simple = os.path.join(work, "simple", "tinypkg")
    os.makedirs(simple)
    links = [wheel(simple, "tinypkg", "2.0", ">=3.12"), wheel(simple, "tinypkg", "1.0", ">=3.9")]
    with open(os.path.join(simple, "index.html"), "w") as f:
        f.write("<!DOCTYPE html><html><body>\n%s\n</body></html>\n" % "\n".join(links))
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(SPEC % {"variants": "[datalayer]"})
    mirror = "https://pypi.org/simple=file://" + os.path.join(work, "simple")
    rc, out, err = run(envlock, ["--cache-dir", os.path.join(work, "cache"), "--mirror", mirror,
                                 "resolve", "spec.yaml", "--bases", "entry.yaml",
                                 "-o", "envlock.lock"], work)
    if rc != 0:
        raise Failure("resolve with the inspected entry: rc %d %s%s" % (rc, out, err))
    lock = open(os.path.join(work, "envlock.lock")).read()
    want = ['  python: "3.11.9"', '  image: "python:3.11-slim"', "  name: tinypkg",
            '  version: "1.0"', "tinypkg-1.0-py3-none-any.whl"]
    missing = [w for w in want if w not in lock]
    if missing or "tinypkg-2.0" in lock:
        raise Failure("the lock is not for the inspected image (%s):\n%s" % (missing, lock))
    rc, out, err = run(envlock, ["--offline", "--cache-dir", os.path.join(work, "cache"),
                                 "--mirror", mirror, "check", "spec.yaml", "envlock.lock",
                                 "--bases", "entry.yaml"], work)
    if rc != 0:
        raise Failure("check against the inspected entry: rc %d %s%s" % (rc, out, err))


def inspect_values(envlock, work, archive):
    """The entry's preinstalled list and the status written beside it."""
    rc, out, err = run(envlock, ["base", "inspect", archive, "-o", "e.yaml"], work)
    if rc != 0:
        raise Failure("%s: rc %d %s" % (archive, rc, err))
    text = open(os.path.join(work, "e.yaml")).read()
    pre = text[text.index("    preinstalled:\n"):].splitlines()[1:]
    return [l.strip()[2:].strip('"') for l in pre], open(os.path.join(work, "e.status")).read()


def part_shared(envlock, work):
    """A manifest naming one layer twice, as images sharing a layer do:
    docker applies it twice, so its second application is what shows. With
    layers [1, 2, 1] (worked out by hand): layer 1 comes back over layer 2,
    so Old_Pkg (whited out by 2) and setuptools 65.5.1 are there again, the
    status is layer 1's, and Requests (2's) stays. With [2, 1, 2]: layer 2's
    whiteouts remove Old_Pkg again, its status shows."""
    one = "%064x/layer.tar" % 1
    two = "%064x/layer.tar" % 2
    layers = [layer_tar(f) for f in LAYERS[:2]]
    cases = [([one, two, one], ["old-pkg==1.0", "pip==24.0", "requests==2.31.0",
                                "setuptools==65.5.1"], STATUS_1),
             ([two, one, two], ["pip==24.0", "requests==2.31.0", "setuptools==65.5.1"],
              STATUS_2)]
    for i, (names, dists, status) in enumerate(cases):
        archive = "shared%d.tar" % i
        docker_archive(os.path.join(work, archive), layers=layers,
                       manifest=[{"Config": "config.json", "RepoTags": ["python:3.11-slim"],
                                  "Layers": names}])
        got, got_status = inspect_values(envlock, work, archive)
        if got != dists or got_status != status:
            raise Failure("%s (%s): got %s and status\n%s" % (archive, names, got, got_status))


def gz_layer(entries):
    """A gzip layer of (name, size, byte) entries, written as a stream so
    that a large hostile layer costs the test little memory."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT,
                      compresslevel=1) as t:
        for name, size, byte in entries:
            ti = tarfile.TarInfo(name)
            ti.size = size
            t.addfile(ti, Repeat(byte, size))
    return buf.getvalue()


class Repeat(io.RawIOBase):
    """`size` copies of one byte, read as a file."""

    def __init__(self, byte, size):
        self.byte, self.left = byte, size

    def read(self, n=-1):
        n = self.left if n is None or n < 0 else min(n, self.left)
        self.left -= n
        return self.byte * n


def expect_too_large(envlock, work, archive, file, limit, words):
    rc, out, err = run(envlock, ["--json", "base", "inspect", archive], work)
    try:
        body = json.loads(out)
    except ValueError:
        raise Failure("%s: no JSON error: rc %d %s %s" % (archive, rc, out, err[-2000:]))
    det = body.get("detail", {})
    ok = (rc == 10 and body.get("code") == "DL_ENV_SPEC_INVALID" and
          det.get("reason") == "too_large" and det.get("file") == file and
          det.get("limit") == limit and all(w in body.get("message", "") for w in words))
    if not ok:
        raise Failure("%s: want too_large (limit %d) naming %r %s, got rc %d %s" % (
            archive, limit, file, words, rc, out))


def part_limits(envlock, work):
    """Hostile archives, each small on disk and refused with too_large,
    the limit and the member named: more members than an image has, a
    layer whose kept files pass the total that envlock keeps, a 45 MB dpkg
    status (was taken for "no installed libc6"), a manifest naming more
    layers than docker allows. Then 160000 METADATA files, which must be
    read (in O(n log n); the ctest timeout is the only clock here)."""
    def p(name):
        return os.path.join(work, name)
    with tarfile.open(p("members.tar.gz"), "w:gz", compresslevel=1) as t:
        for i in range(100001):
            add(t, "m%06d" % i, b"")
    expect_too_large(envlock, work, "members.tar.gz", "m100000", 100000,
                     ["100000 members", "m100000"])
    layer = "%064x/layer.tar" % 1
    site = "usr/local/lib/python3.11/site-packages/"
    many = [(site + "p%03d-1.dist-info/METADATA" % i, 1 << 20, b"A") for i in range(130)]
    docker_archive(p("kept.tar"), layers=[gz_layer(many)])
    expect_too_large(envlock, work, "kept.tar", layer, 128 << 20, ["128 MiB", layer])
    big = [("var/lib/dpkg/status", 45 * 1000 * 1000, b"\n")]
    docker_archive(p("status.tar"), layers=[gz_layer(big)])
    expect_too_large(envlock, work, "status.tar", layer, 32 << 20,
                     ["var/lib/dpkg/status", "45000000 bytes", "32 MiB"])
    docker_archive(p("layers.tar"), layers=[layer_tar(LAYERS[0])],
                   manifest=[{"Config": "config.json", "Layers": [layer] * 1025}])
    expect_too_large(envlock, work, "layers.tar", "manifest.json", 1024, ["1025 layers"])
    dists = [(site + "d%06d-1.0.dist-info/METADATA" % i, 0, b"") for i in range(160000)]
    base = layer_tar(LAYERS[0])
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as t:
        for name, _, _ in dists:
            add(t, name, meta("d%06d" % int(name[len(site) + 1:len(site) + 7]), "1.0").encode())
    docker_archive(p("dists.tar"), layers=[base, buf.getvalue()],
                   manifest=[{"Config": "config.json", "RepoTags": ["python:3.11-slim"],
                              "Layers": [layer, "%064x/layer.tar" % 2]}])
    got, _ = inspect_values(envlock, work, "dists.tar")
    want = sorted(["d%06d==1.0" % i for i in range(160000)] +
                  ["old-pkg==1.0", "pip==24.0", "setuptools==65.5.1"])
    if got != want:
        raise Failure("dists.tar: %d dists, first %s" % (len(got), got[:3]))


def part_output(envlock, work):
    """-o FILE: a symlink planted at the old temp name (FILE.tmp) is not
    written through (the temp file is exclusive, and its own); a write that
    fails (FILE is a directory) is IO_ERROR, exit 74 (was 2, usage), and
    leaves nothing behind: no FILE.status, no temp file."""
    docker_archive(os.path.join(work, "docker.tar"))
    victim = os.path.join(work, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    os.symlink(victim, os.path.join(work, "entry.yaml.tmp"))
    os.symlink(victim, os.path.join(work, "entry.status.tmp"))
    rc, out, err = run(envlock, ["base", "inspect", "docker.tar", "-o", "entry.yaml"], work)
    if open(victim).read() != "precious\n":
        raise Failure("a planted entry.yaml.tmp symlink was written through: rc %d %s" % (rc, err))
    entry = os.path.join(work, "entry.yaml")
    if rc != 0 or os.path.islink(entry) or 'dpkgStatus: "entry.status"' not in open(entry).read():
        raise Failure("-o beside planted temp names: rc %d %s" % (rc, err))
    os.mkdir(os.path.join(work, "out"))
    os.mkdir(os.path.join(work, "out", "dir.yaml"))
    rc, out, err = run(envlock, ["--json", "base", "inspect", "../docker.tar", "-o", "dir.yaml"],
                       os.path.join(work, "out"))
    left = sorted(os.listdir(os.path.join(work, "out")))
    code = json.loads(out).get("code") if out.startswith("{") else None
    if rc != 74 or code != "IO_ERROR" or left != ["dir.yaml"] or \
            os.listdir(os.path.join(work, "out", "dir.yaml")):
        raise Failure("-o onto a directory: rc %d code %s, left %s %s%s" % (rc, code, left, out, err))


def part_inject(envlock, work):
    """Control characters in what an image says, read back by the catalog
    loader as they were: a Signed-By holding carriage returns that, printed
    raw into a comment, became an apt `keyring:` line (now the parser the
    apt reader uses refuses that entry, and the header's note on it quotes
    it); URIs holding NEL,
    LS, PS and a C1 control; a reference holding LS. The loader must give
    exactly the image's values (the keyring, which this machine lacks, not
    at all), and a distribution whose version no catalog takes is left out."""
    key = "/nonexistent/k.gpg\r      keyring: /etc/hostname\r      #"
    uris = ["http://deb.example/a\u0085b", "http://deb.example/c\u2028d\u2029e\u009bf"]
    sources = ("Types: deb\nURIs: %s\nSuites: bookworm\nComponents: main\n"
               "Signed-By: /nonexistent/k.gpg\n\n"
               "Types: deb\nURIs: http://deb.example/g\nSuites: sid\nComponents: main\n"
               "Signed-By: %s\n" % (" ".join(uris), key))
    files = [LAYERS[0][0], LAYERS[0][4],
             ("etc/apt/sources.list.d/evil.sources", sources),
             (SITE + "ok-1.0.dist-info/METADATA", meta("ok", "1.0")),
             (SITE + "evil-1.0.dist-info/METADATA", meta("evil", "1.0\u2028x"))]
    ref = "python:3.11\u2028evil"
    docker_archive(os.path.join(work, "evil.tar"), layers=[layer_tar(files)],
                   manifest=[{"Config": "config.json", "RepoTags": [ref],
                              "Layers": ["%064x/layer.tar" % 1]}])
    rc, out, err = run(envlock, ["base", "inspect", "evil.tar", "-o", "evil.yaml"], work)
    if rc != 0:
        raise Failure("inspect: rc %d %s" % (rc, err))
    p = subprocess.run([os.environ["CATALOG_VALUES"], os.path.join(work, "evil.yaml"), ref],
                       capture_output=True, text=True)
    got = json.loads(p.stdout) if p.returncode == 0 else p.stderr
    want = {"image": ref, "python": "3.11.9", "arch": "amd64",
            "platform": "manylinux_2_36_x86_64", "keyring": None,
            "sources": ["deb %s/ bookworm main" % u for u in uris], "preinstalled": ["ok==1.0"]}
    if got != want:
        raise Failure("the catalog loader reads\n%r\nwhere the image says\n%r\n%s" % (
            got, want, open(os.path.join(work, "evil.yaml")).read()))


PARTS = {"docker": part_docker, "oci": part_oci, "malformed": part_malformed,
         "resolve": part_resolve, "shared": part_shared, "limits": part_limits,
         "output": part_output, "inject": part_inject}


def write_seeds(d):
    """The fuzz target's seeds (tests/fuzz/corpus/base_inspect): the small
    archives the parts above build."""
    os.makedirs(d, exist_ok=True)
    docker_archive(os.path.join(d, "docker.tar"))
    oci_archive(os.path.join(d, "oci.tar"))
    one, two = "%064x/layer.tar" % 1, "%064x/layer.tar" % 2
    docker_archive(os.path.join(d, "shared.tar"), layers=[layer_tar(f) for f in LAYERS[:2]],
                   manifest=[{"Config": "config.json", "RepoTags": ["a:1"],
                              "Layers": [one, two, one]}])
    docker_archive(os.path.join(d, "gzip.tar"), layers=[gz_layer([("var/lib/dpkg/status", 64,
                                                                   b"x")])])
    docker_archive(os.path.join(d, "nolayer.tar"), skip=(two,))
    bad = tarfile.TarInfo("../../etc/cron.d/evil")
    docker_archive(os.path.join(d, "traversal.tar"), layers=[layer_tar(LAYERS[0], extra=[bad])])


def main():
    if sys.argv[1] == "--seeds":
        write_seeds(sys.argv[2])
        return 0
    envlock = os.path.abspath(sys.argv[1])
    parts = sys.argv[2:] or sorted(PARTS)
    failed = 0
    for name in parts:
        with tempfile.TemporaryDirectory(prefix="base-inspect-") as work:
            try:
                PARTS[name](envlock, work)
                print("ok   %s" % name)
            except Failure as e:
                failed += 1
                print("FAIL %s: %s" % (name, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

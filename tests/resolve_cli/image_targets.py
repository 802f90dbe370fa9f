#!/usr/bin/env python3
"""image_targets — `envlock resolve` and `check` for specs that build on an
image (build.source image; a DataGen recipe's baseImage), from a file://
PyPI index written here (wheels made with zipfile) and a site catalog
holding the base (Python 3.13.7) and the image python:3.11-slim (3.11.9):

  single   every variant on the image: the lock's target is the image
           (target.image, its Python), check is up to date, and stale when
           the catalog's entry for the image changes its Python;
  multi    a DataGen recipe (daytona on the image, modal on the base): the
           lock lists both targets, holds one version valid on both, check
           is up to date, and stale naming the target whose Python changed;
  plan     the recipe's plan: daytona's Dockerfile builds FROM the image at
           the digest the catalog records (a floating tag, said so in the
           Dockerfile and a note, when it records none), with the locked
           installs in pip's form, the contract's user and the doctor;
           each variant's SBOM names that image (modal's the base) as its
           root and lists what its plan installs;
           modal's module builds on the base; e2b and datalayer, asked for
           by name, are refused naming the recipe's `baseImage`, and an
           Environment on an image drops an optional e2b naming
           spec.build.source;
  unreachable  the whole index unreachable (a mirror on a closed port, or
           --offline with an empty cache): the fetch failure
           (PACKAGE_NOT_FOUND with its reason), never a variant that cannot
           share the lock (issue 21);
  refused  a project with no version for modal's Python: the JSON error
           names the variant (detail.variant modal, detail.sharedWith
           [daytona]) and the package;
  fetch    a page only modal's solve reads cannot be fetched (its mirror
           is a closed port): the failure is told as modal's fetch failure
           (detail.reason connect, exit 25), never as modal being unable to
           share the lock with daytona (no detail.sharedWith);
  unknown  an image the catalog does not describe: CAPABILITY_UNSUPPORTED,
           detail.reason image_not_in_catalog, the spec's field named;
  python   a spec naming another Python than its image: SPEC_INVALID at
           spec.language.version;
  options  the build options reach every target's solve, not the first
           one's only: --no-binary of a package only modal's solve needs
           (its files are all wheels) is refused for modal; --only-binary
           and the recipe's pip pre-release rule are in the lock's options.

usage: image_targets.py ENVLOCK [PART]
"""
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import zipfile

DIGEST = "sha256:" + "3" * 64
IMAGE_DIGEST = "sha256:" + "4" * 64
CATALOG = """\
format: envlock-bases/1
variants: [datalayer, e2b, daytona, modal]
bases:
  datalayer/python-cpu:
    python: "3.13"
    channels:
      "2026.09":
        python: 3.13.7
        arch: amd64
        libc: glibc 2.36
        platform: manylinux_2_36_x86_64
        digests: {datalayer: %(d)s, e2b: %(d)s, daytona: %(d)s, modal: %(d)s}
%(protected)simages:
  "python:3.11-slim":
    python: %(py311)s
    arch: amd64
    libc: glibc 2.36
    platform: manylinux_2_36_x86_64
%(image_digest)s"""

# (name, version, requires-python, wheel tags, requires-dist)
PROJECTS = [
    ("fastlib", "2.0", ">=3.12", ["cp312-abi3-manylinux_2_17_x86_64"], []),
    ("fastlib", "1.5", ">=3.9", ["cp311-cp311-manylinux_2_17_x86_64",
                                 "cp313-cp313-manylinux_2_17_x86_64"],
     ['tomli>=1.1; python_version < "3.12"']),
    ("tomli", "2.0.1", ">=3.7", ["py3-none-any"], []),
    ("oldonly", "1.0", "<3.12", ["py3-none-any"], []),
    ("modalside", "1.0", ">=3.9", ["py3-none-any"], ['modalonly; python_version >= "3.12"']),
    ("modalonly", "1.0", ">=3.9", ["py3-none-any"], []),
]

ENV_SPEC = """\
apiVersion: environments.datalayer.io/v1alpha1
kind: Environment
metadata:
  name: on-image
spec:
  language:
    name: python
    version: "3.11"
  base:
    ref: datalayer/python-cpu
    channel: "2026.09"
  build:
    source: image
    image:
      reference: %(image)s
  packages:
    python:
      dependencies:
        - fastlib
"""
RECIPE = "name: On image\nbaseImage: python:3.11-slim\npackages:\n  pip: %s\n"


class Failure(Exception):
    pass


def write_index(root):
    pages = {}
    for name, version, rp, tags, deps in PROJECTS:
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        for tag in tags:
            fn = "%s-%s-%s.whl" % (name, version, tag)
            info = "%s-%s.dist-info/" % (name, version)
            meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nRequires-Python: %s\n" % (
                name, version, rp)
            meta += "".join("Requires-Dist: %s\n" % r for r in deps)
            with zipfile.ZipFile(os.path.join(d, fn), "w") as z:
                z.writestr(info + "METADATA", meta)
                z.writestr(info + "WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n")
                z.writestr(info + "RECORD", "")
            h = hashlib.sha256(open(os.path.join(d, fn), "rb").read()).hexdigest()
            esc = rp.replace("<", "&lt;").replace(">", "&gt;")
            pages.setdefault(name, []).append(
                '<a href="%s#sha256=%s" data-requires-python="%s">%s</a>' % (fn, h, esc, fn))
    for name, links in pages.items():
        with open(os.path.join(root, name, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n%s\n</body></html>\n" % "\n".join(links))


class Site:
    def __init__(self, envlock, work):
        self.envlock, self.work = envlock, work
        write_index(os.path.join(work, "simple"))
        self.catalog("3.11.9")

    def catalog(self, py311, name="bases.yaml", image_digest=None, protected=None):
        pin = "    digest: %s\n" % image_digest if image_digest else ""
        held = ("        preinstalled: [%s]\n        protected: [%s]\n" % (protected, protected)
                if protected else "")
        with open(os.path.join(self.work, name), "w") as f:
            f.write(CATALOG % {"d": DIGEST, "py311": py311, "image_digest": pin,
                               "protected": held})
        return name

    def run(self, *args, bases="bases.yaml", mirror=True):
        cmd = [self.envlock, "--json", "--cache-dir", os.path.join(self.work, "cache")]
        if mirror:  # plans take none: a file:// one is refused there
            cmd += ["--mirror", "https://pypi.org/simple=file://" + os.path.join(self.work, "simple")]
        cmd += list(args) + ["--bases", bases]
        p = subprocess.run(cmd, cwd=self.work, capture_output=True, text=True)
        try:
            body = json.loads(p.stdout) if p.stdout.strip() else {}
        except ValueError:
            body = {"raw": p.stdout}
        return p.returncode, body, p.stderr

    def spec(self, text, name="spec.yaml"):
        with open(os.path.join(self.work, name), "w") as f:
            f.write(text)
        return name

    def lock(self):
        return open(os.path.join(self.work, "envlock.lock")).read()


def expect_in(text, wants, what):
    missing = [w for w in wants if w not in text]
    if missing:
        raise Failure("%s lacks %s:\n%s" % (what, missing, text))


def check_stale(site, spec, words):
    rc, body, err = site.run("check", spec, "envlock.lock")
    if rc != 0:
        raise Failure("check of a fresh lock: rc %d %s %s" % (rc, body, err))
    cat = site.catalog("3.11.10", "bases-newer.yaml")
    rc, body, err = site.run("check", spec, "envlock.lock", bases=cat)
    if rc != 1 or not all(w in json.dumps(body) for w in words):
        raise Failure("check after the image's Python changed: rc %d %s %s" % (rc, body, err))


def part_single(site):
    spec = site.spec(ENV_SPEC % {"image": "docker.io/library/python:3.11-slim"})
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    if rc != 0:
        raise Failure("resolve: rc %d %s %s" % (rc, body, err))
    lock = site.lock()
    # 3.11.9: fastlib 2.0 needs >=3.12, so 1.5 and its tomli (python_version < "3.12")
    expect_in(lock, ['  python: "3.11.9"', '  image: "python:3.11-slim"', "  name: fastlib",
                     '  version: "1.5"', "  name: tomli", "cp311-cp311"], "the lock")
    if "targets:" in lock or "cp313-cp313" in lock:
        raise Failure("one target, yet:\n%s" % lock)
    check_stale(site, spec, ["target python changed: 3.11.9 -> 3.11.10"])


def part_multi(site):
    spec = site.spec(RECIPE % "fastlib")
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    if rc != 0:
        raise Failure("resolve: rc %d %s %s" % (rc, body, err))
    lock = site.lock()
    expect_in(lock, ["  targets:\n  - variants: [daytona]\n    python: \"3.11.9\"",
                     "  - variants: [modal]\n    python: \"3.13.7\"", '  version: "1.5"',
                     "fastlib-1.5-cp311-cp311", "fastlib-1.5-cp313-cp313", "  name: tomli"],
              "the lock")
    check_stale(site, spec, ["target 1 (daytona) python changed: 3.11.9 -> 3.11.10"])


def read(site, *path):
    with open(os.path.join(site.work, *path)) as f:
        return f.read()


def wheel_hash(site, name):
    with open(os.path.join(site.work, "simple", name.split("-")[0], name), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# Daytona on the image, in the order of the steps (REFERENCE §7: env, apt,
# the lock's Python by hash with pip, which the image has; then the
# contract's user and the doctor, which it lacks; files, the doctor's run).
DAYTONA_STEPS = [
    "USER root\n",
    # the base's protected stack, which the image lacks, from the wheelhouse
    "COPY wheelhouse /opt/datalayer/wheelhouse-import\n"
    "RUN python3 -m pip install --no-index --no-deps --no-cache-dir --find-links "
    "/opt/datalayer/wheelhouse-import \\\n      kernelpkg==2.0\n",
    "COPY requirements.txt /opt/datalayer/requirements.txt\n"
    "RUN python3 -m pip install --no-deps --require-hashes --no-cache-dir "
    "--index-url https://pypi.org/simple -r /opt/datalayer/requirements.txt\n",
    "COPY datalayer-sandbox /opt/datalayer/bin/datalayer-sandbox\n",
    "RUN (id -u datalayer >/dev/null 2>&1 || useradd --create-home --non-unique --uid 1000 "
    "--gid 100 --shell /bin/bash datalayer)",
    "USER 1000:100\nWORKDIR /home/datalayer/content\n",
    "RUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json\n",
]


def parsed_from(site):
    """FROM's image parts as dockerfile-ast reads them (tests/plan's
    parser proof), or None where that parser is not installed."""
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plan",
                         "dockerfile_check.js")
    p = subprocess.run(["node", check, os.path.join(site.work, "plan", "daytona", "Dockerfile")],
                       capture_output=True, text=True)
    if p.returncode == 77:
        return None
    if p.returncode != 0:
        raise Failure("dockerfile-ast cannot read daytona's Dockerfile: %s" % p.stderr)
    froms = [i["from"] for i in json.loads(p.stdout)["instructions"] if i["keyword"] == "FROM"]
    return [(f["name"], f["tag"], f["digest"]) for f in froms]


def check_daytona(site, from_line):
    df = read(site, "plan", "daytona", "Dockerfile")
    ref = from_line[len("FROM "):].split("@")
    want = [("python", "3.11-slim", ref[1] if len(ref) > 1 else None)]
    got = parsed_from(site)
    if got is not None and got != want:
        raise Failure("dockerfile-ast reads FROM as %r, want %r" % (got, want))
    froms = [ln for ln in df.splitlines() if ln.startswith("FROM ")]
    if froms != [from_line]:
        raise Failure("daytona's FROM: want %r, got %r:\n%s" % (from_line, froms, df))
    at = 0
    for step in DAYTONA_STEPS:
        at = df.find(step, at)
        if at < 0:
            raise Failure("daytona's Dockerfile lacks, in order, %r:\n%s" % (step, df))
    if not df.endswith(DAYTONA_STEPS[-1]) or "uv pip" in df:
        raise Failure("daytona's Dockerfile: the doctor last, pip not uv:\n%s" % df)
    reqs = read(site, "plan", "daytona", "requirements.txt")
    want = "--hash=sha256:" + wheel_hash(site, "fastlib-1.5-cp311-cp311-manylinux_2_17_x86_64.whl")
    expect_in(reqs, ["fastlib==1.5", want, "tomli==2.0.1"], "daytona's requirements.txt")
    if "kernelpkg" in reqs:
        raise Failure("the protected stack is the wheelhouse's, not the index's:\n%s" % reqs)
    check_sboms(site, ref[1] if len(ref) > 1 else None)
    return df


def check_sboms(site, digest):
    """Each variant's sbom.cdx.json names as its root the image its plan
    builds FROM (daytona: the image, by digest when pinned, else its tag;
    modal: the base), and lists what that plan installs: on the image the
    base's protected stack too (from the wheelhouse), on the base not."""
    for variant, name, version, protected in (
            ("daytona", "python", digest or "3.11-slim", True),
            ("modal", "environments/base/python-cpu", DIGEST, False)):
        doc = json.loads(read(site, "plan", variant, "sbom.cdx.json"))
        root = doc["metadata"]["component"]
        if (root.get("name"), root.get("version")) != (name, version):
            raise Failure("%s's SBOM root %s, want %s %s" % (variant, root, name, version))
        names = {(c["name"], c["version"]) for c in doc["components"]}
        if ("fastlib", "1.5") not in names or (("kernelpkg", "2.0") in names) != protected:
            raise Failure("%s's SBOM lists %s" % (variant, sorted(names)))


def part_plan(site):
    site.catalog("3.11.9", image_digest=IMAGE_DIGEST, protected="kernelpkg==2.0")
    spec = site.spec(RECIPE % "fastlib")
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    if rc != 0:
        raise Failure("resolve: rc %d %s %s" % (rc, body, err))
    rc, body, err = site.run("plan", spec, "envlock.lock", "-o", "plan", mirror=False)
    if rc != 0 or body.get("variants") != ["daytona", "modal"] or body.get("notes") != []:
        raise Failure("plan of an image recipe: rc %d %s %s" % (rc, body, err))
    check_daytona(site, "FROM python:3.11-slim@" + IMAGE_DIGEST)
    module = read(site, "plan", "modal", "modal_image.py")
    expect_in(module, ['DIGEST = "%s"' % DIGEST, 'REPOSITORY = "environments/base/python-cpu"',
                       "modal.Image.from_aws_ecr("], "modal's module")
    if "python:3.11-slim" in module:
        raise Failure("modal builds on the base, not the image:\n%s" % module)
    for variant, why in (("e2b", "E2B builds every template from its own"),
                         ("datalayer", "the datalayer builder's image path")):
        rc, body, err = site.run("plan", spec, "envlock.lock", "-o", "p2", "--variant", variant,
                                 mirror=False)
        det, msg = body.get("detail", {}), body.get("message", "")
        if (rc != 11 or body.get("code") != "DL_ENV_CAPABILITY_UNSUPPORTED"
                or det.get("field") != "baseImage" or det.get("line") != 2
                or not msg.startswith("baseImage: `%s` cannot build on the image "
                                      "`python:3.11-slim`: " % variant)
                or why not in msg or "spec." in msg):
            raise Failure("--variant %s of a recipe: rc %d %s %s" % (variant, rc, body, err))
    # no digest in the catalog: the tag, said so in the Dockerfile and a note
    site.catalog("3.11.9", protected="kernelpkg==2.0")
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    rc, body, err = site.run("plan", spec, "envlock.lock", "-o", "plan", mirror=False)
    if rc != 0:
        raise Failure("plan, the image by its tag: rc %d %s %s" % (rc, body, err))
    df = check_daytona(site, "FROM python:3.11-slim")
    expect_in(df, ["# Not pinned by a digest"], "daytona's Dockerfile")
    notes = body.get("notes", [])
    if len(notes) != 1 or not notes[0].startswith("daytona: Dockerfile builds FROM "
                                                  "python:3.11-slim, a floating tag"):
        raise Failure("want daytona's note on its floating tag: %s" % body)
    # an Environment on an image: an optional e2b is dropped, naming its field
    env = ENV_SPEC % {"image": "python:3.11-slim"}
    env += "  compatibility:\n    variants:\n      required: [daytona]\n      optional: [e2b]\n"
    spec = site.spec(env)
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    if rc != 0:
        raise Failure("resolve of an Environment on an image: rc %d %s %s" % (rc, body, err))
    rc, body, err = site.run("plan", spec, "envlock.lock", "-o", "plan", mirror=False)
    dropped = body.get("dropped", [])
    if (rc != 0 or body.get("variants") != ["daytona"] or len(dropped) != 1
            or dropped[0].get("field") != "spec.build.source"
            or "`e2b` cannot build on the image" not in dropped[0].get("reason", "")):
        raise Failure("plan of an Environment on an image: rc %d %s %s" % (rc, body, err))


def part_unreachable(site):
    spec = site.spec(RECIPE % "fastlib")
    dead = "https://pypi.org/simple=http://127.0.0.1:%d/simple" % closed_port()
    runs = (("connect", ("--mirror", dead)), ("offline_cache_miss", ("--offline",)))
    for reason, flags in runs:
        rc, body, err = site.run(*flags, "resolve", spec, "-o", "envlock.lock", mirror=False)
        det, msg = body.get("detail", {}), body.get("message", "")
        if (rc != 25 or body.get("code") != "DL_ENV_PACKAGE_NOT_FOUND"
                or det.get("reason") != reason or "sharedWith" in det or "cannot share" in msg
                or not msg.startswith("for `daytona`")):
            raise Failure("%s: want the fetch failure, not a variant incompatibility: "
                          "rc %d %s %s" % (" ".join(flags), rc, body, err))


def part_refused(site):
    spec = site.spec(RECIPE % "oldonly")
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    det = body.get("detail", {})
    if (rc == 0 or body.get("code") != "DL_ENV_PACKAGE_NOT_FOUND" or det.get("variant") != "modal"
            or det.get("sharedWith") != ["daytona"] or det.get("package") != "oldonly"
            or not body.get("message", "").startswith("`modal` (Python 3.13.7")):
        raise Failure("want modal named: rc %d %s %s" % (rc, body, err))
    if os.path.exists(os.path.join(site.work, "envlock.lock")):
        raise Failure("a refused resolve wrote a lock")


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def part_fetch(site):
    spec = site.spec(RECIPE % "modalside")
    dead = "https://pypi.org/simple/modalonly=http://127.0.0.1:%d/simple/modalonly" % closed_port()
    rc, body, err = site.run("--mirror", dead, "resolve", spec, "-o", "envlock.lock")
    det, msg = body.get("detail", {}), body.get("message", "")
    if (rc != 25 or det.get("reason") != "connect" or det.get("variant") != "modal"
            or "sharedWith" in det or "cannot share" in msg or not msg.startswith("for `modal`")):
        raise Failure("want modal's fetch failure, not a shared-lock refusal: rc %d %s %s"
                      % (rc, body, err))


def part_unknown(site):
    spec = site.spec(ENV_SPEC % {"image": "ghcr.io/acme/runtime:1.4"})
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    det = body.get("detail", {})
    if (rc != 11 or body.get("code") != "DL_ENV_CAPABILITY_UNSUPPORTED"
            or det.get("reason") != "image_not_in_catalog"
            or det.get("field") != "spec.build.image.reference"
            or det.get("image") != "ghcr.io/acme/runtime:1.4"):
        raise Failure("want image_not_in_catalog: rc %d %s %s" % (rc, body, err))


def part_python(site):
    spec = site.spec((ENV_SPEC % {"image": "python:3.11-slim"}).replace('version: "3.11"',
                                                                        'version: "3.12"'))
    rc, body, err = site.run("resolve", spec, "-o", "envlock.lock")
    want = ("Python 3.12 is not what `python:3.11-slim` provides (3.11); it is validated "
            "against the image, not replaced")
    if (rc != 10 or body.get("message") != want
            or body.get("detail", {}).get("field") != "spec.language.version"):
        raise Failure("want the image's Python named: rc %d %s %s" % (rc, body, err))


def part_options(site):
    spec = site.spec(RECIPE % "modalside")
    rc, body, err = site.run("resolve", "--no-binary", "modalonly", spec, "-o", "envlock.lock")
    det = body.get("detail", {})
    if rc != 13 or det.get("variant") != "modal" or det.get("package") != "modalonly":
        raise Failure("--no-binary modalonly (wheels only, wanted on modal's 3.13 only): "
                      "want modal refused: rc %d %s %s" % (rc, body, err))
    rc, body, err = site.run("resolve", "--only-binary", ":all:", spec, "-o", "envlock.lock")
    if rc != 0:
        raise Failure("resolve --only-binary :all:: rc %d %s %s" % (rc, body, err))
    # a recipe's pip list makes the manager pip: pip's pre-release rule
    expect_in(site.lock(), ['  onlyBinary: [":all:"]\n  prereleases: pip\n', "  name: modalonly"],
              "the lock")


PARTS = {"single": part_single, "python": part_python, "multi": part_multi, "refused": part_refused,
         "unknown": part_unknown, "fetch": part_fetch, "options": part_options,
         "plan": part_plan, "unreachable": part_unreachable}


def main():
    envlock = os.path.abspath(sys.argv[1])
    failed = 0
    for name in sys.argv[2:] or sorted(PARTS):
        with tempfile.TemporaryDirectory(prefix="image-targets-") as work:
            try:
                PARTS[name](Site(envlock, work))
                print("ok   %s" % name)
            except Failure as e:
                failed += 1
                print("FAIL %s: %s" % (name, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

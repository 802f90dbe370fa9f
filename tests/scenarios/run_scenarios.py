#!/usr/bin/env python3
"""run_scenarios.py ENVLOCK SCENARIO.scn — the scenario suite's runner.

Resolves one corpus scenario through the real `envlock resolve` binary, as a
user would, and compares the outcome with the scenario's `expect-lock |` or
`expect-error |` block:

1. builds the scenario's mirror twice with tests/fixtures/build_mirror.py,
   plain and `--shuffle 7` (every index's entries in another order), both
   signed with one GnuPG key (`--no-apt` when the scenario has no deb);
2. writes a bases catalog for the test target (python-cpu 2026.09's shape:
   Python 3.13.7, manylinux_2_36_x86_64, amd64) trusting the mirror's key,
   with the scenario's installed debs as its dpkg status, and no protected
   pins or preinstalled dists unless an `option:` line adds them;
3. maps every canonical URL the scenario uses (its PyPI indexes, the npm
   registry, its apt suites) to file:// paths in the mirror;
4. resolves (`envlock --json resolve SPEC -o LOCK --bases CATALOG ...`) from
   each mirror, with a fresh cache each time, then once more from the plain
   mirror with the first lock in place (re-resolving must be idempotent);
5. checks: the projection of the lock (one line per package, see below)
   equals expect-lock, or the error's code and exact message equal
   expect-error (where a message names a URL read through the mirror,
   the mirror's root is written MIRROR); the shuffled run's lock is byte-identical to the plain one
   (but for the apt Release identities, which a shuffled Packages changes);
   the re-resolve gives the same bytes.

Exit status: 0 pass, 1 fail, 77 skipped (no expect block, or a tool the
mirror needs is missing). A scenario tagged `known-bug` inverts the verdict:
its failure is expected (XFAIL, exit 0) and a pass is reported as
"unexpectedly passed" (exit 1) so the tag gets removed.

Scenario `option:` lines (more in tests/scenarios/README.md):
  exclude-newer TIME      --exclude-newer TIME
  upgrade                 --upgrade
  upgrade-package NAME    --upgrade-package NAME (repeatable)
  explain                 --explain
  prerelease MODE         --prerelease MODE
  no-build                --no-build
  only-binary V           --only-binary V (repeatable)
  no-binary V             --no-binary V (repeatable)
  protected REQ           a protected pin of the test base (repeatable)
  preinstalled NAME==VER  a Python dist preinstalled in the test base (repeatable)
  python X.Y.Z            the base's full Python version (default 3.13.7)
  platform TAG            the base's wheel platform (default manylinux_2_36_x86_64)
  arch ARCH               the base's Debian architecture (default amd64)
  image REF X.Y.Z [TAG]   a catalog `images:` entry for REF: Python X.Y.Z, wheel
                          platform TAG (default manylinux_2_36_x86_64), the
                          scenario's apt suites, no dpkg status (repeatable)
  node X.Y.Z              the base's node version (default: none, engines unchecked)
A `previous-lock |` block (projection lines, like expect-lock) is written as
an existing lock before each resolve: a minimal, valid lock naming those
versions, which re-resolving should keep where they still fit.

Environment: SCENARIO_KEEP=1 keeps the work directory (and prints it);
SCENARIO_SHOW=1 prints the projection and the error even on success.
Standard library only.
"""

import fcntl
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "fixtures")
BUILD = os.path.join(FIXTURES, "build_mirror.py")
sys.path.insert(0, FIXTURES)
import scenario as scn  # noqa: E402
import servers  # noqa: E402
from build_mirror import bundler_mirrors, flatten_npm  # noqa: E402

NPM_DEFAULT = "https://registry.npmjs.org"
DIGEST = "sha256:334adf6c2714c8919ef60beeca1db12e3531a391c9dde41932c782f81c432b36"
CATALOG_OPTIONS = ("protected", "preinstalled", "python", "platform", "arch", "node")


class Failure(Exception):
    pass


# ---- the scenario's options ----

def parse_options(sc):
    """Split option lines into resolve flags and catalog settings."""
    flags = []
    cat = {"protected": [], "preinstalled": [], "python": "3.13.7",
           "platform": "manylinux_2_36_x86_64", "arch": "amd64", "node": None}
    for line in sc.options:
        parts = line.split(None, 1)
        key, val = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if key == "exclude-newer" and val:
            flags += ["--exclude-newer", val]
        elif key == "upgrade-package" and val:
            flags += ["--upgrade-package", val]
        elif key == "upgrade" and not val:
            flags.append("--upgrade")
        elif key == "explain" and not val:
            flags.append("--explain")
        elif key == "prerelease" and val:
            flags += ["--prerelease", val]
        elif key == "no-build" and not val:
            flags.append("--no-build")
        elif key in ("only-binary", "no-binary") and val:
            flags += ["--" + key, val]
        elif key in ("protected", "preinstalled") and val:
            cat[key].append(val)
        elif key == "image" and len(val.split()) in (2, 3):
            cat.setdefault("images", []).append(val.split())
        elif key in ("python", "platform", "arch", "node") and val:
            cat[key] = val
        else:
            raise Failure("%s: unknown or malformed option %r" % (sc.path, line))
    return flags, cat


# ---- mirror, catalog, mirrors ----

PEP691 = "application/vnd.pypi.simple.v1+json"


class PypiHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the work directory's PyPI trees as an index does: a project
    directory answers with index.json (PEP 691) when the Accept header names
    it, else index.html. No ETag or Last-Modified, like the file:// mirror, so
    the plain and shuffled runs record the same (empty) page identities."""

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            js = os.path.join(path, "index.json")
            if PEP691 in self.headers.get("Accept", "") and os.path.exists(js):
                return self._file(js, PEP691)
            return self._file(os.path.join(path, "index.html"), "text/html")
        if os.path.isfile(path):
            return self._file(path, "application/octet-stream")
        self.send_error(404)
        return None

    def _file(self, path, ctype):
        try:
            f = open(path, "rb")
        except OSError:
            self.send_error(404)
            return None
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
        self.end_headers()
        return f


def serve(root):
    """An HTTP server on 127.0.0.1 for `root`; returns (server, base URL)."""
    handler = lambda *a, **k: PypiHandler(*a, directory=root, **k)  # noqa: E731
    srv = servers.serve_handler(handler)
    return srv, srv.url


def build_mirror(sc, out, gnupg, shuffle, has_deb):
    cmd = [sys.executable, BUILD, sc.path, "--out", out]
    if shuffle:
        cmd += ["--shuffle", "7"]
    if has_deb:
        cmd += ["--gnupg-home", gnupg]
    else:
        cmd.append("--no-apt")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise Failure("build_mirror failed:\n" + p.stdout.decode(errors="replace"))
    flatten_npm(out)
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def mirror_flags(man, mdir, http_base=None):
    out = []
    for name, url in sorted(man.get("pypi-indexes", {}).items()):
        prefix = url.rstrip("/")
        if prefix.endswith("/simple"):
            prefix = prefix[: -len("/simple")]
        if http_base:
            target = "%s/%s/pypi/%s" % (http_base, os.path.basename(mdir), name)
        else:
            target = "file://%s/pypi/%s" % (mdir, name)
        out += ["--mirror", "%s=%s" % (prefix, target)]
    registries = {NPM_DEFAULT}
    if man.get("npm-registry"):
        registries.add(man["npm-registry"].rstrip("/"))
    for reg in sorted(registries):
        out += ["--mirror", "%s=file://%s/npmflat" % (reg, mdir)]
        out += bundler_mirrors(mdir, reg)
    for url in sorted(set(man.get("apt-suites", {}).values())):
        out += ["--mirror", "%s=file://%s/apt" % (url.rstrip("/"), mdir)]
    return out


def yq(s):
    return json.dumps(s)


def image_lines(sc, man, mdir, cat, has_deb):
    """The catalog's `images:` entries of `image` options."""
    if not cat.get("images"):
        return []
    lines = ["images:"]
    for parts in cat["images"]:
        ref, python = parts[0], parts[1]
        platform = parts[2] if len(parts) > 2 else "manylinux_2_36_x86_64"
        lines += ["  %s:" % yq(ref), "    python: %s" % yq(python),
                  "    arch: %s" % cat["arch"], "    libc: glibc 2.36",
                  "    platform: %s" % platform]
        if has_deb:
            lines += ["    apt:",
                      "      keyring: %s" % yq(os.path.join(mdir, "apt-keyring.gpg")),
                      "      sources:"]
            for name, url in man.get("apt-suites", {}).items():
                comps = sc.apt_suites.get(name, {}).get("components", "main").replace(",", " ")
                lines.append("        - %s" % yq("deb %s %s %s" % (url, name, comps)))
    return lines


def write_catalog(path, sc, man, mdir, cat, has_deb):
    python = cat["python"]
    short = ".".join(python.split(".")[:2])
    lines = [
        "format: envlock-bases/1",
        "variants: [datalayer, e2b, daytona, modal]",
        "bases:",
        "  datalayer/python-cpu:",
        "    cuda: false",
        "    python: %s" % yq(short),
        "    channels:",
        "      \"2026.09\":",
        "        python: %s" % yq(python),
        "        arch: %s" % cat["arch"],
        "        libc: glibc 2.36",
        "        platform: %s" % cat["platform"],
        "        digests:",
    ]
    for v in ("datalayer", "e2b", "daytona", "modal"):
        lines.append("          %s: %s" % (v, DIGEST))
    if cat["node"]:
        lines.append("        node: %s" % yq(cat["node"]))
    if has_deb:
        lines += ["        apt:",
                  "          keyring: %s" % yq(os.path.join(mdir, "apt-keyring.gpg")),
                  "          sources:"]
        for name, url in man.get("apt-suites", {}).items():
            comps = sc.apt_suites.get(name, {}).get("components", "main").replace(",", " ")
            lines.append("            - %s" % yq("deb %s %s %s" % (url, name, comps)))
    if sc.installed_debs:
        status = os.path.join(os.path.dirname(path), "status")
        with open(status, "w") as f:
            for name, version in sc.installed_debs:
                src = sc.installed_deb_attrs.get(name, {}).get("source")
                f.write("Package: %s\nStatus: install ok installed\nPriority: optional\n"
                        "Section: misc\nArchitecture: %s\n%sVersion: %s\n"
                        "Description: installed in the test base\n\n"
                        % (name, cat["arch"], "Source: %s\n" % src if src else "", version))
        lines.append("        dpkgStatus: %s" % yq(status))
    for key in ("preinstalled", "protected"):
        if cat[key]:
            lines.append("        %s:" % key)
            lines += ["          - %s" % yq(r) for r in cat[key]]
    lines += image_lines(sc, man, mdir, cat, has_deb)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- locks and projections ----

def block_lines(text):
    return [ln.strip() for ln in text.split("\n") if ln.strip() and not ln.strip().startswith("#")]


def unquote(v):
    v = v.strip()
    if v.startswith('"'):
        return json.loads(v)
    return v


def project(lock_text):
    """The lock's packages as `ECO NAME VERSION [path=] [extras=] [source=] [base]`
    lines (source=: a deb's sourceVersion, the version in its `Source:`)."""
    out = []
    cur = None
    in_packages = False
    for line in lock_text.split("\n"):
        if line == "packages:" or line == "packages: []":
            in_packages = True
            continue
        if not in_packages:
            continue
        m = re.match(r"^- ecosystem: (.*)$", line)
        if m:
            cur = {"ecosystem": unquote(m.group(1))}
            out.append(cur)
            continue
        m = re.match(r"^  (name|version|path|extras|sourceVersion|installedInBase|inBundle): (.*)$",
                     line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
    lines = []
    for p in out:
        s = "%s %s %s" % (p["ecosystem"], unquote(p["name"]), unquote(p["version"]))
        if "path" in p:
            s += " path=" + unquote(p["path"])
        if "extras" in p:
            inner = p["extras"].strip()[1:-1]
            s += " extras=" + ",".join(unquote(x) for x in inner.split(",") if x.strip())
        if "sourceVersion" in p:
            s += " source=" + unquote(p["sourceVersion"])
        if p.get("installedInBase") == "true":
            s += " base"
        if p.get("inBundle") == "true":
            s += " bundled"
        lines.append(s)
    return lines


def previous_lock(text):
    """A minimal valid lock naming the projection lines' versions."""
    out = ["lockVersion: 1",
           'specDigest: "sha256:%s"' % ("0" * 64),
           "target: {}",
           "options:",
           "  upgradeAll: false",
           "inputs: []",
           "packages:"]
    rows = []
    for ln in block_lines(text):
        parts = ln.split()
        if len(parts) < 3:
            raise Failure("previous-lock: expected `ECOSYSTEM NAME VERSION ...`, got %r" % ln)
        eco, name, version = parts[:3]
        attrs = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
        rows.append((eco, name, version, attrs, "base" in parts[3:]))
    rows.sort(key=lambda r: (r[0].encode(), r[1].encode(), r[2].encode(),
                             r[3].get("path", "").encode()))
    for eco, name, version, attrs, base in rows:
        out += ["- ecosystem: %s" % eco, "  name: %s" % yq(name), "  version: %s" % yq(version)]
        if "path" in attrs:
            out.append("  path: %s" % yq(attrs["path"]))
        if "extras" in attrs:
            out.append("  extras: [%s]" % ", ".join(yq(x) for x in attrs["extras"].split(",")))
        if base:
            out.append("  installedInBase: true")
        out += ["  requestedBy: [spec]", "  dependencies: []", "  artifacts: []"]
    if not rows:
        out[-1] = "packages: []"
    return "\n".join(out) + "\n"


def mask_release(text):
    """A shuffled Packages file is another file, so the Release that lists
    its sha256 is another Release: the one input identity that may differ."""
    return re.sub(r'(url: "[^"]*/(?:In)?Release"\n  identity: )"sha256:[0-9a-f]{64}"',
                  r'\1"sha256:(shuffled)"', text)


# ---- one resolve ----

def resolve(envlock, work, tag, man, mdir, flags, prev_text, keep_lock=False, http_base=None):
    d = os.path.join(work, tag)
    os.makedirs(d, exist_ok=True)
    lock = os.path.join(d, "envlock.lock")
    if not keep_lock:
        if prev_text is not None:
            with open(lock, "w") as f:
                f.write(prev_text)
        elif os.path.exists(lock):
            os.unlink(lock)
    cmd = [envlock, "--json", "--cache-dir", os.path.join(d, "cache")] + \
        mirror_flags(man, mdir, http_base) + \
        ["resolve", os.path.join(work, "spec.yaml"), "-o", lock,
         "--bases", os.path.join(mdir + ".catalog", "bases.yaml")] + flags
    env = dict(os.environ)
    for k in ("ENVLOCK_MIRRORS", "ENVLOCK_CONFIG", "ENVLOCK_BASES", "ENVLOCK_CACHE_DIR"):
        env.pop(k, None)
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-config")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = p.stdout.decode(errors="replace")
    try:
        js = json.loads(out) if out.strip() else None
    except ValueError:
        js = None
    if js is None:
        raise Failure("envlock exited %d without a JSON answer\ncommand: %s\nstdout: %s\nstderr: %s"
                      % (p.returncode, " ".join(cmd), out, p.stderr.decode(errors="replace")))
    res = {"status": p.returncode, "json": js, "cmd": cmd}
    if p.returncode == 0:
        with open(lock, encoding="utf-8") as f:
            res["lock"] = f.read()
    else:
        err = js.get("error", js)
        # A failure through a mirror names the URL read: the mirror's place
        # (a temporary directory, an ephemeral port) is written MIRROR.
        text = json.dumps(js)
        for root in [b for b in ((http_base + "/" + os.path.basename(mdir)) if http_base else None,
                                 "file://" + mdir) if b]:
            text = text.replace(root, "MIRROR")
        res["json"] = js = json.loads(text)
        err = js.get("error", js)
        res["code"] = err.get("code")
        res["message"] = err.get("message")
    return res


def describe(res):
    if res["status"] == 0:
        return "a lock:\n  " + "\n  ".join(project(res["lock"]) or ["(no packages)"])
    return "an error (exit %d):\n  %s\n  %s" % (res["status"], res.get("code"), res.get("message"))


def check(sc, envlock, work, gnupg):
    has_deb = bool(sc.of("deb"))
    flags, cat = parse_options(sc)
    prev_text = previous_lock(sc.blocks["previous-lock"]) if "previous-lock" in sc.blocks else None
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(sc.spec_text or "")
    # PEP 700 upload times are only in the JSON pages, which a file:// mirror
    # cannot negotiate: a scenario with a cutoff reads its PyPI indexes over
    # HTTP from 127.0.0.1 instead.
    srv, http_base = (None, None)
    if any(o.split()[0] == "exclude-newer" for o in sc.options):
        srv, http_base = serve(work)
    try:
        return check_runs(sc, envlock, work, gnupg, has_deb, flags, cat, prev_text, http_base)
    finally:
        if srv:
            servers.stop_server(srv)


def check_runs(sc, envlock, work, gnupg, has_deb, flags, cat, prev_text, http_base):
    results = {}
    for variant in ("plain", "shuffled"):
        mdir = os.path.join(work, "mirror-" + variant)
        if has_deb:
            # one key for every scenario: serialize its first creation
            os.makedirs(os.path.dirname(gnupg), exist_ok=True)
            with open(gnupg + ".lock", "w") as lk:
                fcntl.flock(lk, fcntl.LOCK_EX)
                man = build_mirror(sc, mdir, gnupg, variant == "shuffled", True)
        else:
            man = build_mirror(sc, mdir, gnupg, variant == "shuffled", False)
        os.makedirs(mdir + ".catalog", exist_ok=True)
        write_catalog(os.path.join(mdir + ".catalog", "bases.yaml"), sc, man, mdir, cat, has_deb)
        results[variant] = resolve(envlock, work, variant, man, mdir, flags, prev_text,
                                   http_base=http_base)
        results[variant]["man"] = man
        results[variant]["mdir"] = mdir
    plain, shuf = results["plain"], results["shuffled"]
    problems = []
    if os.environ.get("SCENARIO_SHOW") == "1":
        print("envlock gave " + describe(plain))

    if "expect-lock" in sc.blocks or "expect-lock-file" in sc.files:
        text = sc.blocks.get("expect-lock")
        if text is None:
            with open(sc.files["expect-lock-file"], encoding="utf-8") as f:
                text = f.read()
        want = block_lines(text)
        if plain["status"] != 0:
            problems.append("expected a lock, got " + describe(plain))
        else:
            got = project(plain["lock"])
            if got != want:
                problems.append("the lock differs from expect-lock\n--- expected\n  %s\n--- got\n  %s"
                                % ("\n  ".join(want), "\n  ".join(got)))
    else:
        text = sc.blocks.get("expect-error")
        if text is None:
            with open(sc.files["expect-error-file"], encoding="utf-8") as f:
                text = f.read()
        want = block_lines(text)
        if plain["status"] == 0:
            problems.append("expected an error, got " + describe(plain))
        else:
            if plain["code"] != want[0]:
                problems.append("error code: expected %s, got %s" % (want[0], plain["code"]))
            if len(want) > 1 and plain["message"] != " ".join(want[1:]):
                problems.append("error message differs\n--- expected\n  %s\n--- got\n  %s"
                                % (" ".join(want[1:]), plain["message"]))

    if "expect-notes" in sc.blocks:
        want = " ".join(block_lines(sc.blocks["expect-notes"]))
        got = " ".join(plain["json"].get("notes") or []) if plain["status"] == 0 else None
        if got != want:
            problems.append("the notes differ from expect-notes\n--- expected\n  %s\n--- got\n  %s"
                            % (want, got))

    # order independence: the shuffled mirror gives the same answer
    if plain["status"] != shuf["status"]:
        problems.append("the shuffled mirror gives another outcome: " + describe(shuf))
    elif plain["status"] == 0 and mask_release(plain["lock"]) != mask_release(shuf["lock"]):
        problems.append("the shuffled mirror gives other lock bytes:\n" +
                        unified(plain["lock"], shuf["lock"]))
    elif plain["status"] != 0 and plain["json"] != shuf["json"]:
        problems.append("the shuffled mirror gives another error: %s" % json.dumps(shuf["json"]))

    # idempotence: re-resolving with its own lock in place gives the same bytes
    if plain["status"] == 0:
        again = resolve(envlock, work, "plain", plain["man"], plain["mdir"], flags, None,
                        keep_lock=True, http_base=http_base)
        if again["status"] != 0:
            problems.append("re-resolving with the lock in place fails: " + describe(again))
        elif again["lock"] != plain["lock"]:
            problems.append("re-resolving with the lock in place changes it:\n" +
                            unified(plain["lock"], again["lock"]))
    return problems


def unified(a, b):
    import difflib
    return "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), "first", "second"))


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: run_scenarios.py ENVLOCK SCENARIO.scn [--gnupg-home DIR]\n")
        return 2
    envlock, path = sys.argv[1], sys.argv[2]
    gnupg = None
    if len(sys.argv) >= 5 and sys.argv[3] == "--gnupg-home":
        gnupg = os.path.abspath(sys.argv[4])
    try:
        sc = scn.parse(path)
    except scn.ScenarioError as e:
        print("FAIL: %s" % e)
        return 1
    has_expect = any(k in sc.blocks for k in ("expect-lock", "expect-error")) or \
        any(k in sc.files for k in ("expect-lock-file", "expect-error-file"))
    if not has_expect:
        print("SKIP: %s has no expect-lock or expect-error block" % sc.name)
        return 77
    if sc.of("deb") and (not shutil.which("dpkg-deb") or not shutil.which("gpg")):
        print("SKIP: dpkg-deb and gpg are needed to build an apt mirror")
        return 77
    known_bug = "known-bug" in sc.tags
    work = tempfile.mkdtemp(prefix="scenario-%s-" % sc.name)
    if gnupg is None:
        gnupg = os.path.join(work, "gnupg")
    try:
        try:
            problems = check(sc, envlock, work, gnupg)
        except Failure as e:
            problems = [str(e)]
        if known_bug:
            if problems:
                print("XFAIL: %s (tagged known-bug) fails as expected:" % sc.name)
                for p in problems:
                    print("  " + p.replace("\n", "\n  "))
                return 0
            print("FAIL: %s unexpectedly passed: the bug is fixed, remove its `known-bug` tag"
                  % sc.name)
            return 1
        if problems:
            print("FAIL: %s" % sc.name)
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
            return 1
        print("PASS: %s" % sc.name)
        return 0
    finally:
        if os.environ.get("SCENARIO_KEEP") == "1":
            print("work directory kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

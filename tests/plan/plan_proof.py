#!/usr/bin/env python3
"""plan_proof.py — `envlock plan` and `envlock export`, proven by the real
installers against served fixture mirrors.

One scenario (tests/plan/plan-proof.scn: PyPI, npm and apt, with a deb and a
Python distribution the base already has, a nested npm copy and a scoped
name) is built into a fixture mirror, resolved by the real `envlock
resolve` exactly as the scenario suite does, and served on 127.0.0.1 by
nginx (and Verdaccio when installed). `envlock plan` writes every variant's
plan from that lock, `envlock export` every format; then each test hands
what the plan says to the tool that would run it and compares the tool's
answer with the lock:

  pip_export, pip_plan   pip install --dry-run --no-deps --require-hashes
                         --report on the requirements export and on each
                         variant's requirements.txt as its Python step names it
  npm_plan, npm_export   a real `npm ci --ignore-scripts` of the plan's
                         package.json + package-lock.json (and of the
                         package-lock export alone); the installed tree walked
  apt_plan               apt-get -s install of the pins (apt-packages.txt, the
                         Dockerfiles' RUN, the apt export) in a private apt
                         root over the served repository with the base's status
  modal                  modal_image.image() under a recording modal stub
  dockerfile_<variant>   dockerfile-ast's reading, instruction by instruction
  dockerfile_tampered    the same checks fail on a plan with an extra pin
  plan_outputs           the CLI's --json and text answers, the files on disk
  refuse_<case>_{required,optional}   REFERENCE §7's refusals through the CLI
  stale_lock             a spec edited after resolving

Expected values come from the lock (read with PyYAML) and the spec, never
from envlock's plan. The agreement suite's tool runners and private-root apt
setup (tests/agreement/agree.py) and the scenario suite's catalog, mirror
flags and resolve (tests/scenarios/run_scenarios.py) are imported, not copied.

    plan_proof.py list                         the test names, for CMake
    plan_proof.py setup STATE --envlock BIN    build, serve, resolve, plan, export
    plan_proof.py run STATE TEST               one test (exit 0 / 1 / 77)
    plan_proof.py cleanup STATE                stop the servers, remove STATE

Runs under /usr/bin/python3 (PyYAML). PLAN_PROOF_KEEP=1 keeps STATE."""

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
sys.path.insert(0, os.path.join(REPO, "tests", "agreement"))
import agree  # noqa: E402  the tool runners (pip's python, npm's env, the private apt root)
import servers  # noqa: E402

env = agree.env          # agree_env: build_mirror, scenario, PyYAML
rs = env.rs              # run_scenarios: catalog, mirror flags, resolve, projection
yaml = env.yaml

SKIP = 77
SCENARIO = os.path.join(HERE, "plan-proof.scn")
MODAL_STUB = os.path.join(HERE, "modal_stub")
DOCKERFILE_CHECK = os.path.join(HERE, "dockerfile_check.js")
VARIANTS = ("datalayer", "e2b", "daytona", "modal")
BUILD_FILE = {"datalayer": "Dockerfile", "daytona": "Dockerfile", "e2b": "e2b.Dockerfile",
              "modal": "modal_image.py"}
FORMATS = ("uv-pip-compile", "requirements", "pylock", "package-lock", "apt")
OPT = "/opt/datalayer"
DOCTOR = OPT + "/bin/datalayer-sandbox"
MODAL_REGISTRY = "123.dkr.ecr.example/r"
DEAD_PROXY = "http://127.0.0.1:9"
MODAL_SECRET = "sec"
# A distinct base digest per variant (and for the CUDA base the GPU cases
# use), so a plan that takes another variant's digest is caught.
DIGESTS = {v: "sha256:" + hashlib.sha256(("plan-proof base " + v).encode()).hexdigest() for v in VARIANTS}
CUDA_DIGESTS = {v: "sha256:" + hashlib.sha256(("plan-proof cuda " + v).encode()).hexdigest() for v in VARIANTS}


class Fail(Exception):
    pass


# ================================================================ the refusal cases
#
# REFERENCE §7, one case per refusal. Each is a small spec whose `#<FIELD`
# markers say on which line the spec writes FIELD's value (the line the
# refusal must name); `variant` is the one that must refuse and `host` a
# variant that must still build it when `variant` is only optional.

def _secret_lines():
    return ["  buildSecrets:",
            "    - id: dlsec_proof1   #<spec.buildSecrets #<spec.buildSecrets[0]",
            "      name: PROOF_TOKEN",
            "  commands:",
            "    postInstall:",
            "      - test -n \"$PROOF_TOKEN\""]


def _gpu_lines():
    return ["  resources:",
            "    sizeClass: gpu-small   #<spec.resources.sizeClass",
            "    accelerator:",
            "      type: nvidia-l4   #<spec.resources.accelerator",
            "      count: 1"]


def _post_lines(cmd):
    return ["  commands:",
            "    postInstall:",
            "      - echo ready",
            "      - %s   #<spec.commands.postInstall[1]" % cmd]


REFUSALS = {
    "e2b-home": {"variant": "e2b", "host": "datalayer",
                 "lines": ["  env:", "    HOME: /home/datalayer   #<spec.env.HOME"]},
    "e2b-gpu": {"variant": "e2b", "host": "daytona", "cuda": True, "lines": _gpu_lines()},
    "e2b-secrets": {"variant": "e2b", "host": "datalayer", "lines": _secret_lines()},
    "modal-volume": {"variant": "modal", "host": "datalayer", "lines": _post_lines("VOLUME /data")},
    "modal-onbuild": {"variant": "modal", "host": "datalayer", "lines": _post_lines("onbuild RUN echo hi")},
    "modal-stopsignal": {"variant": "modal", "host": "datalayer", "lines": _post_lines("STOPSIGNAL SIGTERM")},
    "modal-secrets": {"variant": "modal", "host": "datalayer", "lines": _secret_lines()},
    "daytona-secrets": {"variant": "daytona", "host": "datalayer", "lines": _secret_lines()},
    "datalayer-sizeclass": {"variant": "datalayer", "host": "daytona", "cuda": True, "lines": _gpu_lines()},
    # spec.platform.architecture admits only linux/amd64, so the refusal can
    # only come from a base channel for another architecture (the test
    # catalog's 2026.09-arm64): a lock resolved for arm64 must not become an
    # amd64 build. Every variant is amd64-only, so there is no optional case.
    "architecture": {"variant": "datalayer", "host": None, "channel": "2026.09-arm64",
                     "lines": ["  platform:", "    architecture: linux/amd64   #<spec.platform.architecture"]},
}


def refusal_spec(case, required, optional):
    """(spec text, {field: line}) for a case with these variant lists."""
    c = REFUSALS[case]
    lines = ["apiVersion: environments.datalayer.io/v1alpha1",
             "kind: Environment",
             "metadata:",
             "  name: refuse-%s" % case,
             "spec:",
             "  language:",
             "    version: \"3.13\"",
             "  base:",
             "    ref: datalayer/%s" % ("python-cuda" if c.get("cuda") else "python-cpu"),
             "    channel: \"%s\"%s" % (c.get("channel", "2026.09"),
                                      "   #<spec.base.channel" if c.get("channel") else ""),
             "  packages:",
             "    python:",
             "      dependencies:",
             "        - dbproto"]
    lines += c["lines"]
    lines += ["  compatibility:", "    variants:", "      required: [%s]" % ", ".join(required),
              "      optional: [%s]" % ", ".join(optional)]
    where = {}
    for n, ln in enumerate(lines, 1):
        for m in re.finditer(r"#<(\S+)", ln):
            where[m.group(1)] = n
    return "\n".join(lines) + "\n", where


def refusal_modes(case):
    return ("required", "optional") if REFUSALS[case]["host"] else ("required",)


def test_names():
    names = ["plan_outputs", "pip_export", "uv_pip_compile_export", "pylock_export", "pip_plan", "npm_plan", "npm_export", "apt_plan", "modal",
             "dockerfile_datalayer", "dockerfile_e2b", "dockerfile_daytona", "dockerfile_tampered"]
    for case in REFUSALS:
        names += ["refuse_%s_%s" % (case, m) for m in refusal_modes(case)]
    return names + ["refuse_named_optional", "stale_lock"]


# ================================================================ helpers

def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read(path, mode="r"):
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
        return f.read()


def canon(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def envlock_env(home):
    e = dict(os.environ)
    for k in ("ENVLOCK_MIRRORS", "ENVLOCK_CONFIG", "ENVLOCK_BASES", "ENVLOCK_CACHE_DIR"):
        e.pop(k, None)
    e["XDG_CONFIG_HOME"] = os.path.join(home, "xdg-config")
    return e


def run_envlock(info, args, home):
    """envlock ARGS; (rc, parsed stdout JSON or None, stdout, stderr)."""
    os.makedirs(home, exist_ok=True)
    p = subprocess.run([info["envlock"]] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=envlock_env(home), timeout=120)
    out = p.stdout.decode(errors="replace")
    try:
        js = json.loads(out) if out.strip() else None
    except ValueError:
        js = None
    return p.returncode, js, out, p.stderr.decode(errors="replace")


def shell_commands(text):
    """A RUN's shell text as simple commands (lists of words), split at
    && || ; | & (POSIX quoting, as sh reads it)."""
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = ""
    out, cur = [], []
    for tok in lex:
        if tok in ("&&", "||", ";", "|", "&", ";;"):
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(tok)
    if cur:
        out.append(cur)
    return out


def classify(words):
    """What a simple command installs: 'apt', 'python', 'npm', 'dpkg' or None."""
    w = [os.path.basename(x) for x in words]
    for i, x in enumerate(w):
        nxt = w[i + 1] if i + 1 < len(w) else ""
        if x in ("apt-get", "apt", "aptitude") and any(y in w[i + 1:] for y in ("upgrade", "dist-upgrade",
                                                                               "full-upgrade")):
            return "apt-upgrade"
        if x in ("apt-get", "apt", "aptitude") and "install" in w[i + 1:]:
            return "apt"
        if x in ("pip", "pip3") or re.fullmatch(r"pip3\.\d+", x):
            if "install" in w[i + 1:] or "sync" in w[i + 1:]:
                return "python"
        if x == "uv" and nxt == "pip" and any(y in w[i + 2:] for y in ("install", "sync")):
            return "python"
        if x == "npm" and nxt in ("ci", "install", "i", "add", "isntall", "clean-install"):
            return "npm"
        if x in ("yarn", "pnpm") and nxt in ("install", "add", "i"):
            return "npm"
        if x == "dpkg" and ("-i" in w or "--install" in w):
            return "dpkg"
    return None


def option_value(words, *names):
    """The values of an option given as `--name V` or `--name=V`."""
    out = []
    for i, w in enumerate(words):
        for n in names:
            if w == n and i + 1 < len(words):
                out.append(words[i + 1])
            elif w.startswith(n + "="):
                out.append(w[len(n) + 1:])
    return out


def after(words, verb):
    """The words after the first `verb`."""
    return words[words.index(verb) + 1:] if verb in words else []


# ================================================================ the lock

class Lock:
    """The lock as the proof reads it: PyYAML, not envlock."""

    def __init__(self, path):
        self.path = path
        self.bytes = read(path, "rb")
        self.digest = "sha256:" + hashlib.sha256(self.bytes).hexdigest()
        self.doc = yaml.safe_load(self.bytes.decode("utf-8"))
        self.packages = self.doc.get("packages") or []

    def of(self, eco, installs_only=False):
        return [p for p in self.packages if p["ecosystem"] == eco
                and not (installs_only and p.get("installedInBase"))]

    def deb_pins(self):
        """{name: version} of the debs the lock installs."""
        return {p["name"]: p["version"] for p in self.of("deb", True)}

    def pypi_installs(self):
        return {canon(p["name"]): p["version"] for p in self.of("pypi", True)}

    def pypi_with_artifacts(self):
        return {canon(p["name"]): p["version"] for p in self.of("pypi") if p.get("artifacts")}

    def pypi_hashes(self, name):
        for p in self.of("pypi"):
            if canon(p["name"]) == canon(name):
                return {a["hash"].split(":", 1)[1] for a in p.get("artifacts") or []
                        if a["hash"].startswith("sha256:")}
        return set()

    def npm_tree(self):
        """{path: (name, version)} of the npm packages the lock installs."""
        return {p["path"]: (p["name"], p["version"]) for p in self.of("npm", True)}

    def npm_entry(self, path):
        return next((p for p in self.of("npm") if p.get("path") == path), None)

    def base_digest(self, variant, cuda=False):
        return ((self.doc.get("target") or {}).get("base") or {}).get("digests", {}).get(variant)

    def base_repository(self):
        ref = ((self.doc.get("target") or {}).get("base") or {}).get("ref", "")
        return "environments/base/" + ref.split("/", 1)[-1]

    def pypi_sources(self):
        return sorted({p.get("source") for p in self.of("pypi", True) if p.get("source")})

    def npm_sources(self):
        return sorted({p.get("source") for p in self.of("npm", True) if p.get("source")})

    def apt_sources(self):
        """{(uri, suite, component)} of the debs the lock installs; the lock
        writes a deb's source as `URI SUITE/COMPONENT`."""
        out = set()
        for p in self.of("deb", True):
            uri, _, rest = (p.get("source") or "").partition(" ")
            suite, _, comp = rest.strip().rpartition("/")
            out.add((uri.rstrip("/"), suite, comp))
        return out


def spec_doc(path):
    return yaml.safe_load(read(path))


def spec_env(sdoc):
    return {str(k): str(v) for k, v in ((sdoc.get("spec") or {}).get("env") or {}).items()}


def spec_post(sdoc):
    return [str(x) for x in (((sdoc.get("spec") or {}).get("commands") or {}).get("postInstall") or [])]


def spec_files(sdoc):
    return [f["path"] for f in ((sdoc.get("spec") or {}).get("files") or [])]


# ================================================================ setup / cleanup

def state_file(state):
    return os.path.join(state, "state.json")


def patch_catalog(path):
    """The test catalog with a distinct digest per variant, and a CUDA base
    (the GPU refusal cases) shaped like the CPU one."""
    text = read(path)
    for v in VARIANTS:
        text = text.replace("          %s: %s\n" % (v, rs.DIGEST), "          %s: %s\n" % (v, DIGESTS[v]))
    chan = text[text.index('      "2026.09":\n'):]
    arm = chan.replace('      "2026.09":\n', '      "2026.09-arm64":\n', 1).replace("        arch: amd64\n", "        arch: arm64\n")
    arm = re.sub(r"(        platform: manylinux_\d+_\d+_)x86_64\n", r"\1aarch64\n", arm)
    text += arm
    start = text.index("  datalayer/python-cpu:\n")
    cuda = text[start:].replace("  datalayer/python-cpu:\n", "  datalayer/python-cuda:\n", 1)
    cuda = cuda.replace("    cuda: false\n", "    cuda: true\n", 1)
    for v in VARIANTS:
        cuda = cuda.replace("          %s: %s\n" % (v, DIGESTS[v]), "          %s: %s\n" % (v, CUDA_DIGESTS[v]))
    with open(path, "w") as f:
        f.write(text + cuda)


def cmd_setup(state, envlock):
    stop_servers(state)
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    state = os.path.realpath(state)
    info = {"skip": None, "error": None, "envlock": os.path.abspath(envlock), "pids": []}

    def save():
        with open(state_file(state), "w") as f:
            json.dump(info, f, indent=1)

    missing = []
    if yaml is None:
        missing.append("PyYAML (python3-yaml) for %s" % sys.executable)
    if not os.access(servers.NGINX, os.X_OK):
        missing.append("nginx at %s" % servers.NGINX)
    for tool in ("dpkg-deb", "gpg", "apt-get"):
        if shutil.which(tool) is None:
            missing.append(tool)
    if missing:
        info["skip"] = "missing: " + ", ".join(missing)
        save()
        print("setup: skipping everything: %s" % info["skip"])
        return 0
    if not os.access(envlock, os.X_OK):
        info["error"] = "envlock is not built at %s" % envlock
        save()
        print("setup: %s" % info["error"])
        return 1
    t0 = time.time()
    try:
        setup_body(state, info)
    except (Fail, rs.Failure, env.build_mirror.BuildError, servers.ServerError, OSError) as e:
        info["error"] = str(e)
        save()
        print("setup: FAILED: %s" % e)
        return 1
    save()
    print("setup: mirror, lock, servers (%s), plan rc %s, exports %s in %.1fs"
          % (info["url"], info["plan"]["rc"],
             " ".join("%s=%s" % (f, info["exports"][f]["rc"]) for f in FORMATS), time.time() - t0))
    return 0


def setup_body(state, info):
    sc = env.scn.parse(SCENARIO)
    mdir = os.path.join(state, "mirror")
    man = env.build_mirror.build([SCENARIO], mdir, apt=True)
    rs.flatten_npm(mdir)
    flags, cat = rs.parse_options(sc)
    catdir = mdir + ".catalog"
    os.makedirs(catdir)
    catalog = os.path.join(catdir, "bases.yaml")
    rs.write_catalog(catalog, sc, man, mdir, cat, True)
    patch_catalog(catalog)
    info.update(mirror=mdir, catalog=catalog, flags=flags, manifest=man)

    # the lock, resolved as the scenario suite resolves (file:// mirrors)
    work = os.path.join(state, "main")
    os.makedirs(work)
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(sc.spec_text)
    res = rs.resolve(info["envlock"], work, "out", man, mdir, flags, None)
    if res["status"] != 0:
        raise Fail("envlock resolve of %s failed: %s %s" % (SCENARIO, res.get("code"), res.get("message")))
    want = rs.block_lines(sc.blocks["expect-lock"])
    got = rs.project(res["lock"])
    if got != want:
        raise Fail("the proof's lock is not the one plan-proof.scn describes (the proof would test "
                   "less than it says):\n  expected %s\n  got      %s" % (want, got))
    info.update(spec=spec, lock=os.path.join(work, "out", "envlock.lock"))

    # the servers
    ng = servers.Nginx(mdir, work=os.path.join(state, "nginx"))
    os.makedirs(ng.work)
    ng.start()
    info["pids"].append(ng.proc.pid)
    ng.proc = None  # outlives setup; cleanup stops it by pid
    info["url"] = ng.url + "/"
    info["keyring"] = os.path.join(mdir, "apt-keyring.gpg")
    if servers.verdaccio_bin():
        vd = servers.Verdaccio(os.path.join(mdir, "npm"), work=os.path.join(state, "verdaccio"))
        os.makedirs(vd.work)
        vd.start()
        info["pids"].append(vd.proc.pid)
        vd.proc = None
        info["npm_url"], info["npm_server"] = vd.url, "verdaccio"
    else:
        # npm ci fetches the lock's tarball URLs with the registry's host
        # swapped in (replace-registry-host) and the path kept, so tarballs
        # must be at /<name>/-/<file>: nginx rooted at the npm tree
        nn = servers.Nginx(os.path.join(mdir, "npm"), work=os.path.join(state, "nginx-npm"))
        os.makedirs(nn.work)
        nn.start()
        info["pids"].append(nn.proc.pid)
        nn.proc = None
        info["npm_url"], info["npm_server"] = nn.url + "/", "nginx (static tree)"

    # the plan (JSON and text), the exports
    home = os.path.join(state, "home")
    plan_dir = os.path.join(state, "plan")
    rc, js, out, err = run_envlock(info, ["--json", "plan", spec, info["lock"], "-o", plan_dir,
                                          "--bases", catalog], home)
    info["plan"] = {"rc": rc, "json": js, "stdout": out, "stderr": err, "dir": plan_dir}
    text_dir = os.path.join(state, "plan-text")
    rc, _js, out, err = run_envlock(info, ["plan", spec, info["lock"], "-o", text_dir, "--bases", catalog], home)
    info["plan_text"] = {"rc": rc, "stdout": out, "stderr": err, "dir": text_dir}
    exp = os.path.join(state, "export")
    os.makedirs(exp)
    info["exports"] = {}
    # pylock.toml takes its download URLs from the index pages (a format-2
    # lock names none): the served PyPI indexes, through --mirror
    pages = []
    for name, url in sorted(info["manifest"].get("pypi-indexes", {}).items()):
        pages += ["--mirror", "%s=%spypi/%s/simple" % (url.rstrip("/"), info["url"], name)]
    for fmt in FORMATS:
        rc, _js, out, err = run_envlock(info, pages + ["export", info["lock"], "--format", fmt,
                                                       "--bases", catalog], home)
        path = os.path.join(exp, fmt)
        with open(path, "w") as f:
            f.write(out)
        rc2, _js, _out2, err2 = run_envlock(info, pages + ["export", info["lock"], "--format", fmt,
                                                          "--bases", catalog, "-o", path + ".o"], home)
        info["exports"][fmt] = {"rc": rc, "path": path, "stderr": err, "rc_o": rc2, "stderr_o": err2}


def stop_servers(state):
    try:
        with open(state_file(state)) as f:
            pids = json.load(f).get("pids") or []
    except (OSError, ValueError):
        return
    for pid in pids:
        agree.terminate(pid)


def cmd_cleanup(state):
    stop_servers(state)
    if os.environ.get("PLAN_PROOF_KEEP") == "1":
        print("cleanup: servers stopped, state kept in %s" % state)
    else:
        shutil.rmtree(state, ignore_errors=True)
    return 0


# ================================================================ the context of one test

class Ctx:
    def __init__(self, state, info, name):
        self.state = state
        self.info = info
        self.name = name
        self.work = os.path.join(state, "run", name)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.lock = Lock(info["lock"])
        self.spec = spec_doc(info["spec"])
        self.sc = env.scn.parse(SCENARIO)

    def plan(self):
        p = self.info["plan"]
        if p["rc"] != 0:
            raise Fail("`envlock --json plan` exited %d\nstdout: %s\nstderr: %s"
                       % (p["rc"], p["stdout"].strip()[:2000], p["stderr"].strip()[:2000]))
        return p

    def variant_dir(self, variant):
        d = os.path.join(self.plan()["dir"], variant)
        if not os.path.isdir(d):
            raise Fail("the plan has no %s/ (variants: %s)" % (variant, os.listdir(self.plan()["dir"])))
        return d

    def produced(self):
        return [v for v in VARIANTS if os.path.isdir(os.path.join(self.plan()["dir"], v))]

    def export(self, fmt):
        e = self.info["exports"][fmt]
        if e["rc"] != 0:
            raise Fail("`envlock export --format %s` exited %d: %s" % (fmt, e["rc"], e["stderr"].strip()))
        return e["path"]

    def pypi_url(self):
        srcs = self.lock.pypi_sources()
        return env.pypi_index_urls(self.info["manifest"], srcs or None, self.info["url"])[0]


# ================================================================ pip

def pip_report(ctx, reqfile, tag):
    """pip's dry-run install of reqfile (--no-deps --require-hashes) against
    the served index: ({name: version}, {name: sha256 of the file pip took})."""
    py, version = agree.pip_python()
    if py is None:
        agree.skip("no python with pip")
    home = os.path.join(ctx.work, "pip-" + tag)
    os.makedirs(home)
    e = agree.clean_env(home)          # every PIP_* removed, private HOME, no proxy
    e["PIP_CONFIG_FILE"] = os.devnull
    e.update(https_proxy=DEAD_PROXY, http_proxy=DEAD_PROXY, no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
    report = os.path.join(home, "report.json")
    cmd = [py, "-m", "pip", "install", "--dry-run", "--no-deps", "--require-hashes", "--ignore-installed",
           "--disable-pip-version-check", "--no-input", "--no-cache-dir", "--quiet", "--no-color",
           "--report", report, "--index-url", ctx.pypi_url(), "-r", reqfile,
           "--python-version", env.PYTHON, "--implementation", "cp", "--abi", "cp313", "--abi", "abi3",
           "--abi", "none", "--only-binary", ":all:", "--target", os.path.join(home, "target")]
    for plat in agree.PIP_PLATFORMS:
        cmd += ["--platform", plat]
    r = agree.run(cmd, e)
    print("pip (%s on %s): %s" % (version, py, " ".join(shlex.quote(c) for c in cmd[3:16])))
    if r.returncode != 0:
        raise Fail("pip refused %s:\n%s" % (reqfile, (r.stdout + r.stderr).strip()[-3000:]))
    rep = json.loads(read(report))
    got, took = {}, {}
    for item in rep["install"]:
        n = canon(item["metadata"]["name"])
        got[n] = item["metadata"]["version"]
        hashes = ((item.get("download_info") or {}).get("archive_info") or {}).get("hashes") or {}
        took[n] = hashes.get("sha256")
    return got, took


def requirement_lines(path):
    """{name: (version, {sha256})} of a hashed requirements file (continued
    lines joined); raises Fail on a line that is not `name==version --hash=...`."""
    text = re.sub(r"\\\n", " ", read(path))
    out = {}
    for n, ln in enumerate(text.split("\n"), 1):
        ln = ln.split(" #", 1)[0].strip() if not ln.strip().startswith("#") else ""
        if not ln:
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==(\S+?)(\s*;[^-]*)?((?:\s+--hash=sha256:[0-9a-f]{64})+)\s*$", ln)
        if not m:
            raise Fail("%s: `%s` is not a hashed pin (name==version --hash=sha256:...)" % (path, ln))
        out[canon(m.group(1))] = (m.group(3), set(re.findall(r"--hash=sha256:([0-9a-f]{64})", m.group(5))))
    return out


def compare_sets(what, want, got):
    problems = []
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            problems.append("%s %s: the lock says %s, got %s" % (what, k, want.get(k, "(nothing)"),
                                                                 got.get(k, "(nothing)")))
    return problems


def check_pip(ctx, reqfile, want, tag):
    problems = []
    lines = requirement_lines(reqfile)
    problems += compare_sets("%s pins" % tag, want, {k: v for k, (v, _h) in lines.items()})
    for name, (_v, hashes) in sorted(lines.items()):
        lh = ctx.lock.pypi_hashes(name)
        if hashes != lh:
            problems.append("%s: %s's hashes %s are not the lock's artifacts' %s"
                            % (tag, name, sorted(hashes), sorted(lh)))
    got, took = pip_report(ctx, reqfile, tag)
    problems += compare_sets("pip (%s) installs" % tag, want, got)
    for name, h in sorted(took.items()):
        if h not in ctx.lock.pypi_hashes(name):
            problems.append("pip (%s) took a %s file with sha256 %s, not a locked artifact" % (tag, name, h))
    print("pip (%s): %s" % (tag, " ".join("%s==%s" % kv for kv in sorted(got.items()))))
    return problems


def t_pip_export(ctx):
    return check_pip(ctx, ctx.export("requirements"), ctx.lock.pypi_with_artifacts(), "requirements export")


def t_uv_pip_compile_export(ctx):
    """The reference's lock text (REFERENCE §3, §10 of its facts): its header
    lines, and pip installing exactly the lock's packages from it."""
    path = ctx.export("uv-pip-compile")
    problems = []
    head = [ln for ln in read(path).split("\n") if ln.startswith("# ") and ":" in ln]
    keys = {}
    for ln in head:
        k, _, v = ln[2:].partition(":")
        keys.setdefault(k.strip(), []).append(v.strip())
    ra = keys.get("resolved-at") or []
    if len(ra) != 1 or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", ra[0]):
        problems.append("`# resolved-at:` is %s, expected one ISO time with +00:00 and no fraction" % ra)
    py = ".".join(ctx.lock.doc["target"]["python"].split(".")[:2])
    if keys.get("python") != [py]:
        problems.append("`# python:` is %s, the lock's target is %s" % (keys.get("python"), py))
    base = keys.get("base") or []
    if len(base) != 1 or not base[0].startswith(ctx.lock.base_repository() + "@sha256:") or \
            base[0].split("@", 1)[1] not in ctx.lock.doc["target"]["base"]["digests"].values():
        problems.append("`# base:` is %s, not %s@<one of the lock's digests>" % (base, ctx.lock.base_repository()))
    apt = sorted(keys.get("datalayer-apt") or [])
    if apt != ["%s=%s" % kv for kv in sorted(ctx.lock.deb_pins().items())]:
        problems.append("`# datalayer-apt:` lines %s are not the lock's installed debs" % apt)
    problems += check_pip(ctx, path, ctx.lock.pypi_with_artifacts(), "uv-pip-compile export")
    return problems


def url_serves(name, url, sha256):
    """[] when `url` serves a file with that sha256 (the served mirror)."""
    import hashlib
    import urllib.request
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url, timeout=30) as r:
            got = hashlib.sha256(r.read()).hexdigest()
    except OSError as e:
        return ["%s: the wheel URL %s does not serve: %s" % (name, url, e)]
    return [] if got == sha256 else ["%s: %s serves sha256 %s, not %s" % (name, url, got, sha256)]


def t_pylock_export(ctx):
    """The PEP 751 export, read by tomllib and held to the PEP's rules, against the lock."""
    try:
        import tomllib
    except ImportError:
        agree.skip("tomllib (Python 3.11) is not available to %s" % sys.executable)
    path = ctx.export("pylock")
    try:
        doc = tomllib.loads(read(path))
    except tomllib.TOMLDecodeError as e:
        return ["the pylock export is not TOML: %s" % e]
    problems = []
    if doc.get("lock-version") != "1.0":
        problems.append("lock-version %r, PEP 751 says \"1.0\"" % doc.get("lock-version"))
    if not isinstance(doc.get("created-by"), str):
        problems.append("no created-by (required by PEP 751)")
    got = {}
    for n, pk in enumerate(doc.get("packages") or []):
        name, ver = pk.get("name"), pk.get("version")
        if not isinstance(name, str) or canon(name) != name:
            problems.append("packages[%d].name %r is not a normalized name" % (n, name))
            continue
        got[name] = ver
        wheels = pk.get("wheels") or []
        if not wheels and "sdist" not in pk:
            problems.append("%s: neither wheels nor sdist" % name)
        want_h = ctx.lock.pypi_hashes(name)
        have_h = set()
        for w in wheels:
            if not w.get("hashes"):
                problems.append("%s: a wheel without hashes (PEP 751 requires them)" % name)
            if w.get("name") and w.get("url") and os.path.basename(w["url"]) != w["name"]:
                problems.append("%s: wheel name %s is not its url's file name" % (name, w["name"]))
            if "url" not in w and "path" not in w:
                problems.append("%s: a wheel with neither url nor path" % name)
            elif w.get("url"):
                problems += url_serves(name, w["url"], (w.get("hashes") or {}).get("sha256"))
            have_h.add((w.get("hashes") or {}).get("sha256"))
        if have_h != want_h:
            problems.append("%s: wheel hashes %s, the lock's artifacts %s" % (name, sorted(have_h), sorted(want_h)))
    problems += compare_sets("pylock package", ctx.lock.pypi_with_artifacts(), got)
    return problems


# ---- a build file's Python step ----

def copies(ins):
    """{image path: context path} of every COPY/ADD (a dest ending in / takes
    each source's base name)."""
    out = {}
    for i in ins:
        if i["keyword"] not in ("COPY", "ADD"):
            continue
        args = i.get("json") if i.get("json") is not None else shlex.split(i["content"] or "")
        if len(args) < 2:
            continue
        srcs, dest = args[:-1], args[-1]
        for s in srcs:
            target = dest.rstrip("/") + "/" + os.path.basename(s) if (dest.endswith("/") or len(srcs) > 1) else dest
            out[os.path.normpath(target)] = s
    return out


def run_steps(ins):
    """[(instruction index, words, kind)] of every simple command of every RUN."""
    out = []
    for k, i in enumerate(ins):
        if i["keyword"] != "RUN":
            continue
        for words in shell_commands(i["content"] or ""):
            out.append((k, words, classify(words)))
    return out


def python_step_of_dockerfile(ctx, variant):
    d = ctx.variant_dir(variant)
    doc = parse_dockerfile(os.path.join(d, BUILD_FILE[variant]))
    steps = [s for s in run_steps(doc["instructions"]) if s[2] == "python"]
    if len(steps) != 1:
        raise Fail("%s: %d Python install steps, expected one: %s" % (BUILD_FILE[variant], len(steps),
                                                                      [" ".join(s[1]) for s in steps]))
    words = steps[0][1]
    cp = copies(doc["instructions"])
    return words, lambda p: os.path.join(d, cp[os.path.normpath(p)]) if os.path.normpath(p) in cp else None


def python_step_of_modal(ctx):
    calls = modal_calls(ctx)
    steps = [w for c in calls if c["method"] == "run_commands" for a in c["args"]
             for w in shell_commands(a) if classify(w) == "python"]
    if len(steps) != 1:
        raise Fail("modal_image.py: %d Python install steps, expected one" % len(steps))
    d = ctx.variant_dir("modal")
    added = {os.path.normpath(c["args"][1]): c["args"][0] for c in calls if c["method"] == "add_local_file"}

    def local(p):
        p = os.path.normpath(p)
        if p not in added:
            return None
        lp = added[p]
        return lp if os.path.isabs(lp) else os.path.join(d, lp)
    return steps[0], local


def python_step_problems(ctx, words, where):
    """The Python step's own form: hashes required, no resolution, only
    requirements.txt, the lock's index."""
    problems = []
    for flag in ("--no-deps", "--require-hashes"):
        if flag not in words:
            problems.append("%s: the Python step lacks %s: %s" % (where, flag, " ".join(words)))
    reqs = option_value(words, "-r", "--requirement")
    if len(reqs) != 1 or os.path.basename(reqs[0]) != "requirements.txt":
        problems.append("%s: the Python step reads %s, not exactly one requirements.txt" % (where, reqs))
    others = option_value(words, "-c", "--constraint", "-e", "--editable", "--find-links", "-f",
                          "--extra-index-url")
    if others:
        problems.append("%s: the Python step reads more than requirements.txt: %s" % (where, others))
    # positional arguments would be packages installed outside the lock
    rest = after(words, "install") or after(words, "sync")
    skip_next = False
    for w in rest:
        if skip_next:
            skip_next = False
            continue
        if w in ("-r", "--requirement", "--index-url", "-i", "--python", "--target", "--prefix",
                 "--find-links", "-c", "--cache-dir"):
            skip_next = True
            continue
        if not w.startswith("-"):
            problems.append("%s: the Python step installs `%s`, which is not a requirements file" % (where, w))
    idx = option_value(words, "--index-url", "-i")
    want = [s.rstrip("/") for s in ctx.lock.pypi_sources()]
    if [i.rstrip("/") for i in idx] != want[:1]:
        problems.append("%s: the Python step's index %s is not the lock's %s" % (where, idx, want))
    return problems, reqs[0] if reqs else None


def t_pip_plan(ctx):
    problems = []
    want = ctx.lock.pypi_installs()
    for v in ctx.produced():
        if v == "modal":
            words, local = python_step_of_modal(ctx)
        else:
            words, local = python_step_of_dockerfile(ctx, v)
        p, req = python_step_problems(ctx, words, "%s/%s" % (v, BUILD_FILE[v]))
        problems += p
        if req is None:
            continue
        path = local(req)
        if path is None or not os.path.exists(path):
            problems.append("%s: nothing puts %s in the image (no COPY/add_local_file of a context file)" % (v, req))
            continue
        plan_req = os.path.join(ctx.variant_dir(v), "requirements.txt")
        if os.path.realpath(path) != os.path.realpath(plan_req) and read(path) != read(plan_req):
            problems.append("%s: the step's %s is not the plan's requirements.txt" % (v, req))
        problems += check_pip(ctx, path, want, "%s requirements.txt" % v)
    return problems


# ================================================================ npm

def npm_env(home):
    e = agree.clean_env(home)
    npmrc = os.path.join(home, "npmrc")
    for f in (npmrc, npmrc + "-global"):
        open(f, "w").close()
    e.update(npm_config_userconfig=npmrc, npm_config_globalconfig=npmrc + "-global",
             npm_config_cache=os.path.join(home, "cache"), npm_config_update_notifier="false",
             npm_config_audit="false", npm_config_fund="false", npm_config_fetch_retries="0",
             npm_config_loglevel="error",
             # nothing but 127.0.0.1: a tarball URL the registry swap missed
             # (the public registry is reachable here) hits a closed proxy
             npm_config_proxy=DEAD_PROXY, npm_config_https_proxy=DEAD_PROXY, npm_config_noproxy="127.0.0.1")
    return e


def installed_tree(proj):
    """{path: (name, version)} of every package under proj/node_modules, as
    npm laid it out (scoped names and nested node_modules followed)."""
    out = {}

    def walk(rel):
        nm = os.path.join(proj, rel, "node_modules") if rel else os.path.join(proj, "node_modules")
        if not os.path.isdir(nm):
            return
        for entry in sorted(os.listdir(nm)):
            if entry.startswith("."):
                continue
            names = [entry + "/" + s for s in sorted(os.listdir(os.path.join(nm, entry)))] \
                if entry.startswith("@") else [entry]
            for n in names:
                path = (rel + "/" if rel else "") + "node_modules/" + n
                pj = os.path.join(proj, path, "package.json")
                if os.path.exists(pj):
                    doc = json.loads(read(pj))
                    out[path] = (doc.get("name"), doc.get("version"))
                else:
                    out[path] = (None, None)
                walk(path)
    walk("")
    return out


def npm_ci(ctx, package_json, package_lock, tag, cmd=None, after=(), problems=None):
    if shutil.which("npm") is None or shutil.which("node") is None:
        agree.skip("npm not found")
    home = os.path.join(ctx.work, "npm-" + tag)
    proj = os.path.join(home, "project")
    os.makedirs(proj)
    shutil.copyfile(package_json, os.path.join(proj, "package.json"))
    shutil.copyfile(package_lock, os.path.join(proj, "package-lock.json"))
    cmd = list(cmd or ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"])
    cmd += ["--registry", ctx.info["npm_url"]]
    r = agree.run(cmd, npm_env(home), cwd=proj)
    print("npm (%s, %s): %s" % (tag, ctx.info["npm_server"], " ".join(cmd)))
    if r.returncode != 0:
        errs = [ln for ln in (r.stdout + r.stderr).split("\n") if ln.startswith("npm error")]
        raise Fail("npm ci (%s) failed (exit %d):\n%s" % (tag, r.returncode, "\n".join(errs[:12]) or
                                                         (r.stdout + r.stderr).strip()[-2000:]))
    for words in after:
        if words[0] not in ("rm", "npm") or classify(words):
            raise Fail("npm (%s): the npm step runs %s after npm ci" % (tag, " ".join(words)))
        r = agree.run(list(words), npm_env(home), cwd=proj)
        print("npm (%s): %s -> exit %d" % (tag, " ".join(words), r.returncode))
        if r.returncode != 0:
            raise Fail("npm (%s): %s failed: %s" % (tag, " ".join(words), (r.stdout + r.stderr).strip()[-1000:]))
    if problems is not None and after:
        problems += bin_problems(proj, tag)
    return installed_tree(proj)


def package_lock_problems(ctx, path, tag):
    """The package-lock's entries against the lock's npm packages."""
    problems = []
    doc = json.loads(read(path))
    if doc.get("lockfileVersion") != 3:
        problems.append("%s: lockfileVersion %r, not 3" % (tag, doc.get("lockfileVersion")))
    pk = doc.get("packages") or {}
    want = ctx.lock.npm_tree()
    have = {k for k in pk if k}
    for k in sorted(have - set(want)):
        problems.append("%s: an entry %s the lock has not" % (tag, k))
    for k in sorted(set(want) - have):
        problems.append("%s: no entry for the lock's %s" % (tag, k))
    for k in sorted(set(want) & have):
        e, lp = pk[k], ctx.lock.npm_entry(k)
        art = (lp.get("artifacts") or [{}])[0]
        if e.get("version") != lp["version"]:
            problems.append("%s: %s is %s, the lock says %s" % (tag, k, e.get("version"), lp["version"]))
        if e.get("integrity") != art.get("hash"):
            problems.append("%s: %s's integrity %s is not the lock's %s" % (tag, k, e.get("integrity"), art.get("hash")))
        # a format-2 lock names no tarball URL: npm's registry layout is
        # <registry>/<name>/-/<file>
        layout = art.get("url") or "%s/%s/-/%s" % (lp["source"].rstrip("/"), lp["name"], art.get("file"))
        if "resolved" in e and e["resolved"] != layout:
            problems.append("%s: %s resolves to %s, the registry layout says %s"
                            % (tag, k, e["resolved"], layout))
        if "name" in e and e["name"] != lp["name"]:
            problems.append("%s: %s is named %s, the lock says %s" % (tag, k, e["name"], lp["name"]))
    roots = sorted({p["name"] for p in ctx.lock.of("npm", True) if "spec" in (p.get("requestedBy") or [])})
    rdeps = sorted(((pk.get("") or {}).get("dependencies") or {}))
    if rdeps != roots:
        problems.append("%s: the root entry depends on %s, the lock's spec roots are %s" % (tag, rdeps, roots))
    return problems


def tree_problems(ctx, got, tag):
    want = ctx.lock.npm_tree()
    problems = []
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            problems.append("npm ci (%s) %s: the lock says %s, installed %s"
                            % (tag, k, "%s@%s" % want[k] if k in want else "(nothing)",
                               "%s@%s" % got[k] if k in got else "(nothing)"))
    print("npm ci (%s) installed: %s" % (tag, " ".join("%s=%s@%s" % (k, n, v) for k, (n, v) in sorted(got.items()))))
    return problems


def npm_step_words(ctx, variant):
    """The npm command of a Dockerfile variant's npm step, or None."""
    doc = parse_dockerfile(os.path.join(ctx.variant_dir(variant), BUILD_FILE[variant]))
    steps = [s for s in run_steps(doc["instructions"]) if s[2] == "npm"]
    return steps[0][1] if len(steps) == 1 else None


def npm_step_after(ctx, variant):
    """The simple commands of the npm step's RUN that follow `npm ci`, as the
    plan writes them (each run in the project after npm ci)."""
    doc = parse_dockerfile(os.path.join(ctx.variant_dir(variant), BUILD_FILE[variant]))
    for k, words, kind in run_steps(doc["instructions"]):
        if kind == "npm":
            cmds = shell_commands(doc["instructions"][k]["content"] or "")
            at = next(n for n, c in enumerate(cmds) if c == words)
            return cmds[at + 1:]
    return []


def bin_problems(proj, tag):
    """Every executable a top-level package declares (`bin` of its installed
    package.json) is linked in node_modules/.bin, as `npm install` links it."""
    problems, linked = [], []
    nm = os.path.join(proj, "node_modules")
    for path, (name, _v) in sorted(installed_tree(proj).items()):
        if path.count("node_modules/") != 1 or name is None:
            continue
        b = json.loads(read(os.path.join(proj, path, "package.json"))).get("bin") or {}
        if isinstance(b, str):
            b = {name.split("/")[-1]: b}
        for exe, target in sorted(b.items()):
            link = os.path.join(nm, ".bin", exe)
            if not os.path.exists(link):
                problems.append("npm (%s): %s declares the executable %s, not linked in node_modules/.bin"
                                % (tag, name, exe))
            elif os.path.realpath(link) != os.path.realpath(os.path.join(proj, path, target)):
                problems.append("npm (%s): node_modules/.bin/%s is not %s's %s" % (tag, exe, name, target))
            else:
                linked.append(exe)
    print("npm (%s): linked executables: %s" % (tag, " ".join(linked) or "(none)"))
    return problems


def t_npm_plan(ctx):
    problems = []
    seen = {}
    for v in ctx.produced():
        d = ctx.variant_dir(v)
        pj, pl = os.path.join(d, "package.json"), os.path.join(d, "package-lock.json")
        if not (os.path.exists(pj) and os.path.exists(pl)):
            problems.append("%s: no package.json + package-lock.json, though the lock installs npm packages" % v)
            continue
        problems += package_lock_problems(ctx, pl, "%s/package-lock.json" % v)
        pjd = json.loads(read(pj))
        root = (json.loads(read(pl)).get("packages") or {}).get("") or {}
        if (pjd.get("dependencies") or {}) != (root.get("dependencies") or {}):
            problems.append("%s: package.json's dependencies %s are not the package-lock root's %s"
                            % (v, pjd.get("dependencies"), root.get("dependencies")))
        key = (read(pj), read(pl))
        if key in seen:
            print("npm (%s): same project as %s" % (v, seen[key]))
            continue
        seen[key] = v
        cmd = None
        if v in ("datalayer", "daytona", "e2b"):
            words = npm_step_words(ctx, v)
            if words is None:
                problems.append("%s: no single npm step in %s" % (v, BUILD_FILE[v]))
            else:
                # the step as the plan writes it, the registry the served one
                i = words.index("npm")
                cmd, skip_next = [], False
                for w in words[i:]:
                    if skip_next:
                        skip_next = False
                        continue
                    if w == "--registry":
                        skip_next = True
                        continue
                    if w.startswith("--registry="):
                        continue
                    cmd.append(w)
        after = npm_step_after(ctx, v) if cmd is not None else ()
        if cmd is not None and not after:
            problems.append("%s: the npm step links no executables after npm ci (the lock has no `bin`)" % v)
        problems += tree_problems(ctx, npm_ci(ctx, pj, pl, v, cmd, after, problems), v)
    return problems


def t_npm_export(ctx):
    path = ctx.export("package-lock")
    problems = package_lock_problems(ctx, path, "package-lock export")
    doc = json.loads(read(path))
    root = (doc.get("packages") or {}).get("") or {}
    pj = os.path.join(ctx.work, "package.json")
    with open(pj, "w") as f:
        json.dump({"name": doc.get("name") or root.get("name") or "proof", "version": root.get("version") or "0.0.0",
                   "private": True, "dependencies": root.get("dependencies") or {}}, f, indent=1)
    problems += tree_problems(ctx, npm_ci(ctx, pj, path, "export"), "export")
    return problems


# ================================================================ apt

def pins_of_text(text):
    out = {}
    for ln in text.split("\n"):
        ln = ln.strip()
        if not ln or ln.startswith("#"):
            continue
        name, eq, ver = ln.partition("=")
        if not eq:
            raise Fail("`%s` is not name=version" % ln)
        out[name] = ver
    return out


def apt_pins_of_dockerfile(path):
    """({name: version}, problems) of the apt step of a Dockerfile: every
    argument after `install` that is not an option, and each on its own line."""
    doc = parse_dockerfile(path)
    ins = doc["instructions"]
    steps = [s for s in run_steps(ins) if s[2] == "apt"]
    problems = []
    if len(steps) != 1:
        raise Fail("%s: %d apt install steps, expected one" % (path, len(steps)))
    k, words, _ = steps[0]
    pins, skip_next = {}, False
    for w in after(words, "install"):
        if skip_next:
            skip_next = False
            continue
        if w in ("-o", "-t", "-c"):
            skip_next = True
            continue
        if w.startswith("-"):
            continue
        name, eq, ver = w.partition("=")
        if not eq:
            problems.append("%s: the apt step installs `%s` without a version" % (path, w))
        pins[name] = ver
    for flag in ("--no-install-recommends",):
        if flag not in words:
            problems.append("%s: the apt step lacks %s" % (path, flag))
    lines = read(path).split("\n")[ins[k]["line"] - 1:ins[k]["endLine"]]
    alone = {ln.strip().rstrip("\\").strip() for ln in lines}
    for name, ver in pins.items():
        if "%s=%s" % (name, ver) not in alone:
            problems.append("%s: the pin %s=%s is not on a continuation line of its own" % (path, name, ver))
    return pins, problems


def apt_simulate(ctx, pins, tag, sources=None):
    """apt-get -s install PINS in agree.py's private root (its dpkg status:
    the test base's), over the served repository or, with `sources`, over
    those lines; (Inst {name: version}, raw output)."""
    sub = os.path.join(ctx.work, "apt-" + tag)
    os.makedirs(sub)
    actx = {"work": sub, "info": {"apt_built": True, "tools": {"apt": "apt-get"}}, "cutoff": None, "mdir": ctx.info["mirror"],
            "sc": ctx.sc, "manifest": ctx.info["manifest"], "base_url": ctx.info["url"],
            "req": {"deb": ["%s=%s" % kv for kv in sorted(pins.items())]}}
    got, err = agree.run_apt(actx)
    if err:
        raise Fail("apt-get (%s): %s" % (tag, err))
    base, e = actx["apt"]
    if sources is not None:
        root = os.path.join(sub, "root")
        with open(os.path.join(root, "etc/apt/sources.list"), "w") as f:
            f.write(sources)
        r = agree.run(base + ["update"], e)
        if r.returncode != 0 or "E:" in r.stdout + r.stderr:
            raise Fail("apt-get update over the plan's apt-sources.list (%s) failed:\n%s\n--- sources\n%s"
                       % (tag, (r.stdout + r.stderr).strip(), sources))
    r = agree.run(base + ["-s", "install", "--no-install-recommends"] + actx["req"]["deb"], e)
    if r.returncode != 0:
        raise Fail("apt-get -s install (%s) refused:\n%s" % (tag, (r.stdout + r.stderr).strip()[-2000:]))
    return agree.apt_inst(r.stdout), r.stdout


def apt_problems(ctx, pins, tag, sources=None):
    want = ctx.lock.deb_pins()
    problems = compare_sets("%s pins" % tag, want, pins)
    inst, out = apt_simulate(ctx, pins, tag, sources)
    problems += compare_sets("apt-get -s (%s) Inst" % tag, want, inst)
    base = {p["name"]: p["version"] for p in ctx.lock.of("deb") if p.get("installedInBase")}
    for m in re.finditer(r"^(Remv|Purg) (\S+)", out, re.M):
        problems.append("apt-get -s (%s) removes %s" % (tag, m.group(2)))
    for name in sorted(set(inst) & set(base)):
        problems.append("apt-get -s (%s) changes the base's %s %s to %s" % (tag, name, base[name], inst[name]))
    print("apt-get -s (%s): Inst %s" % (tag, " ".join("%s=%s" % kv for kv in sorted(inst.items()))))
    return problems


def t_apt_plan(ctx):
    problems = []
    want = ctx.lock.deb_pins()
    done = {}

    def once(pins, tag, sources=None):
        key = (tuple(sorted(pins.items())), sources)
        if key in done:
            print("apt (%s): same pins as %s" % (tag, done[key]))
            return compare_sets("%s pins" % tag, want, pins)
        done[key] = tag
        return apt_problems(ctx, pins, tag, sources)

    for v in ctx.produced():
        d = ctx.variant_dir(v)
        f = os.path.join(d, "apt-packages.txt")
        if not os.path.exists(f):
            problems.append("%s: no apt-packages.txt, though the lock installs debs" % v)
            continue
        text = read(f)
        body = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("#")]
        if body != ["%s=%s" % kv for kv in sorted(want.items())]:
            problems.append("%s/apt-packages.txt is not the lock's installs as sorted name=version lines:\n%s"
                            % (v, text))
        pins = pins_of_text(text)
        problems += once(pins, "%s apt-packages.txt" % v)
        # the sources the apt step reads: the lock's, served here
        src = os.path.join(d, "apt-sources.list")
        if not os.path.exists(src):
            problems.append("%s: no apt-sources.list" % v)
        else:
            lines = [ln.split() for ln in read(src).split("\n") if ln.strip() and not ln.startswith("#")]
            got = set()
            served = []
            for w in lines:
                if not w or w[0] != "deb":
                    problems.append("%s/apt-sources.list: `%s` is not a deb line" % (v, " ".join(w)))
                    continue
                w = [x for x in w[1:] if not (x.startswith("[") or x.endswith("]") or "=" in x and not x.startswith("http"))]
                for comp in w[2:]:
                    got.add((w[0].rstrip("/"), w[1], comp))
                served.append("deb [signed-by=%s] %sapt/ %s" % (ctx.info["keyring"], ctx.info["url"], " ".join(w[1:])))
            if got != ctx.lock.apt_sources():
                problems.append("%s/apt-sources.list names %s, the lock's debs come from %s"
                                % (v, sorted(got), sorted(ctx.lock.apt_sources())))
            else:
                problems += once(pins, "%s over apt-sources.list" % v, "\n".join(served) + "\n")
        if v != "modal":
            dpins, p = apt_pins_of_dockerfile(os.path.join(d, BUILD_FILE[v]))
            problems += p
            problems += once(dpins, "%s %s RUN" % (v, BUILD_FILE[v]))
    problems += once(pins_of_text(read(ctx.export("apt"))), "apt export")
    return problems


# ================================================================ modal

def modal_calls(ctx, plan_dir=None):
    d = plan_dir or ctx.variant_dir("modal")
    mod = os.path.join(d, "modal_image.py")
    driver = ("import importlib.util, json, sys\n"
              "import modal\n"
              "assert modal.__version__ == '0.0-stub', modal.__file__\n"
              "spec = importlib.util.spec_from_file_location('modal_image', sys.argv[1])\n"
              "m = importlib.util.module_from_spec(spec)\n"
              "spec.loader.exec_module(m)\n"
              "img = m.image(sys.argv[2], sys.argv[3])\n"
              "json.dump(modal.record(img), sys.stdout)\n")
    e = dict(os.environ, PYTHONPATH=MODAL_STUB, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", driver, mod, MODAL_REGISTRY, MODAL_SECRET], cwd=ctx.work,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, timeout=60)
    if r.returncode != 0:
        raise Fail("modal_image.image(%r, %r) failed:\n%s" % (MODAL_REGISTRY, MODAL_SECRET, r.stderr.strip()[-3000:]))
    return json.loads(r.stdout)


def strings_in(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings_in(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings_in(x)


def order_problems(where, positions):
    """positions: [(step, first index, last index)] in the required order."""
    problems = []
    present = [p for p in positions if p[1] is not None]
    for (a, _af, al), (b, bf, _bl) in zip(present, present[1:]):
        if not al < bf:
            problems.append("%s: the %s step is not before the %s step (order env → apt → python → npm → "
                            "files → postInstall → doctor)" % (where, a, b))
    return problems


def t_modal(ctx):
    d = ctx.variant_dir("modal")
    return modal_problems(ctx, d, modal_calls(ctx, d))


def modal_problems(ctx, d, calls):
    problems = []
    where = "modal_image.py"
    print("modal calls: " + " → ".join(c["method"] for c in calls))
    if not calls or calls[0]["method"] != "from_aws_ecr":
        return ["%s: the image does not start from Image.from_aws_ecr: %s" % (where, calls[:1])]
    want_tag = "%s/%s@%s" % (MODAL_REGISTRY, ctx.lock.base_repository(), ctx.lock.base_digest("modal"))
    if calls[0]["args"][0] != want_tag:
        problems.append("%s: from_aws_ecr(%r), the lock's modal base is %r" % (where, calls[0]["args"][0], want_tag))
    if calls[0]["kwargs"].get("secret") != {"secret": "from_name", "name": MODAL_SECRET}:
        problems.append("%s: from_aws_ecr's secret is %r, not Secret.from_name(%r)"
                        % (where, calls[0]["kwargs"].get("secret"), MODAL_SECRET))
    for c in calls:
        if c.get("unknown"):
            problems.append("%s: calls Image.%s, which the proof does not know" % (where, c["method"]))
        if c["method"] in ("pip_install", "uv_pip_install", "pip_install_from_requirements", "dockerfile_commands"):
            problems.append("%s: Image.%s%s installs or builds outside the locked steps"
                            % (where, c["method"], tuple(c["args"])))
        for s in strings_in(c):
            if re.search(r"(?m)^\s*USER\b", s):
                problems.append("%s: a USER instruction in Image.%s: %r" % (where, c["method"], s))
    # env
    envs, env_at = {}, []
    senv = spec_env(ctx.spec)
    for k, c in enumerate(calls):
        if c["method"] == "env":
            envs.update(c["args"][0])
            if set(c["args"][0]) & set(senv):
                env_at.append(k)   # the env step: the spec's variables
    for key, val in senv.items():
        if envs.get(key) != val:
            problems.append("%s: env %s is %r, the spec says %r" % (where, key, envs.get(key), val))
    # apt
    apt_at = [k for k, c in enumerate(calls) if c["method"] == "apt_install"]
    pins = {}
    for k in apt_at:
        for a in calls[k]["args"]:
            name, eq, ver = a.partition("=")
            if not eq:
                problems.append("%s: apt_install(%r) without a version" % (where, a))
            pins[name] = ver
    problems += compare_sets("modal apt_install", ctx.lock.deb_pins(), pins)
    if pins:
        problems += apt_problems(ctx, pins, "modal apt_install")
    # what is added, and from where
    added = {}
    for k, c in enumerate(calls):
        if c["method"] in ("add_local_file", "add_local_dir"):
            local, remote = c["args"][0], c["args"][1]
            path = local if os.path.isabs(local) else os.path.join(d, local)
            if c["kwargs"].get("copy") is not True:
                problems.append("%s: %s(%r, %r) without copy=True (a later step reads it)" % (where, c["method"], local, remote))
            # a spec file's content is the build service's to supply (from its
            # contentRef); every other added file is the plan's own
            if not os.path.exists(path) and os.path.normpath(remote) not in \
                    {os.path.normpath(x) for x in spec_files(ctx.spec)}:
                problems.append("%s: %s(%r): no such file beside the module" % (where, c["method"], local))
            added[os.path.normpath(remote)] = (k, path)
    for name, remote in (("lock.txt", OPT + "/lock.txt"), ("requirements.txt", OPT + "/requirements.txt"),
                         ("package.json", OPT + "/node/package.json"),
                         ("package-lock.json", OPT + "/node/package-lock.json")):
        if remote not in added:
            problems.append("%s: %s is not added at %s" % (where, name, remote))
        elif os.path.exists(added[remote][1]) and read(added[remote][1]) != read(os.path.join(d, name)):
            problems.append("%s: what is added at %s is not the plan's %s" % (where, remote, name))
    # steps in run_commands
    runs = [(k, a) for k, c in enumerate(calls) if c["method"] == "run_commands" for a in c["args"]]
    py_at = [k for k, a in runs if any(classify(w) == "python" for w in shell_commands(a))]
    npm_at = [k for k, a in runs if any(classify(w) == "npm" for w in shell_commands(a))]
    for k, a in runs:
        for w in shell_commands(a):
            kind = classify(w)
            if kind == "python":
                p, _req = python_step_problems(ctx, w, where)
                problems += p
            elif kind == "npm":
                if w[:2] != ["npm", "ci"] or "--ignore-scripts" not in w:
                    problems.append("%s: the npm step is not `npm ci --ignore-scripts`: %s" % (where, " ".join(w)))
                regs = [r.rstrip("/") for r in option_value(w, "--registry")]
                if regs != [s.rstrip("/") for s in ctx.lock.npm_sources()]:
                    problems.append("%s: the npm step's registry %s is not the lock's %s" % (where, regs, ctx.lock.npm_sources()))
                if "cd /opt/datalayer/node" not in a and "--prefix" not in w:
                    problems.append("%s: the npm step does not run in %s/node: %s" % (where, OPT, a))
            elif kind in ("apt", "dpkg", "apt-upgrade"):
                problems.append("%s: run_commands installs debs outside apt_install: %s" % (where, " ".join(w)))
    if len(py_at) != 1:
        problems.append("%s: %d Python install steps, expected one" % (where, len(py_at)))
    if len(npm_at) != 1:
        problems.append("%s: %d npm install steps, expected one" % (where, len(npm_at)))
    post = spec_post(ctx.spec)
    post_at = []
    for cmd in post:
        hit = [k for k, a in runs if a.strip() == cmd]
        if not hit:
            problems.append("%s: the postInstall command %r is not run" % (where, cmd))
        else:
            post_at.append(hit[0])
    if post_at != sorted(post_at):
        problems.append("%s: the postInstall commands are not run in the spec's order" % where)
    doctor = [k for k, a in runs if DOCTOR + " doctor" in a]
    if not doctor:
        problems.append("%s: the doctor is not run" % where)
    files_at = []
    for fpath in spec_files(ctx.spec):
        hits = [k for k, c in enumerate(calls) if any(fpath in s for s in strings_in(c["args"]))]
        if not hits:
            problems.append("%s: the spec's file %s is not put in the image" % (where, fpath))
        else:
            files_at.append(hits[0])
    ep = [c for c in calls if c["method"] == "entrypoint"]
    if [c["args"][0] for c in ep] != [["/bin/sh", "-c", "exec $0 $@"]]:
        problems.append("%s: entrypoint %s, expected [\"/bin/sh\", \"-c\", \"exec $0 $@\"] once" % (where, [c["args"] for c in ep]))
    req_add = added.get(OPT + "/requirements.txt", (None,))[0]
    if req_add is not None and py_at and not req_add < py_at[0]:
        problems.append("%s: requirements.txt is added after the Python step reads it" % where)
    problems += order_problems(where, [
        ("env", env_at[0] if env_at else None, env_at[-1] if env_at else None),
        ("apt", apt_at[0] if apt_at else None, apt_at[-1] if apt_at else None),
        ("python", py_at[0] if py_at else None, py_at[-1] if py_at else None),
        ("npm", npm_at[0] if npm_at else None, npm_at[-1] if npm_at else None),
        ("files", min(files_at) if files_at else None, max(files_at) if files_at else None),
        ("postInstall", min(post_at) if post_at else None, max(post_at) if post_at else None),
        ("doctor", doctor[0] if doctor else None, doctor[-1] if doctor else None)])
    return problems


# ================================================================ Dockerfiles

def parse_dockerfile(path):
    if shutil.which("node") is None:
        agree.skip("node not found")
    r = subprocess.run(["node", DOCKERFILE_CHECK, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    if r.returncode == SKIP:
        agree.skip(r.stderr.strip())
    if r.returncode != 0:
        raise Fail("dockerfile_check.js %s: %s" % (path, r.stderr.strip()))
    return json.loads(r.stdout)


E2B_IMAGE = "e2bdev/code-interpreter"
E2B_TEMPLATE = "code-interpreter-v1"


def dockerfile_problems(ctx, variant, d):
    path = os.path.join(d, BUILD_FILE[variant])
    if not os.path.exists(path):
        return ["%s: no %s" % (variant, BUILD_FILE[variant])]
    doc = parse_dockerfile(path)
    ins = doc["instructions"]
    where = "%s/%s" % (variant, BUILD_FILE[variant])
    problems = []
    text = read(path)
    print("%s: %s" % (where, " ".join(i["keyword"] for i in ins)))
    if ctx.lock.digest not in text:
        problems.append("%s: does not carry the lock digest %s" % (where, ctx.lock.digest))
    # FROM: the lock's base for this variant, one stage
    froms = [k for k, i in enumerate(ins) if i["keyword"] == "FROM"]
    if len(froms) != 1 or froms[0] != 0:
        problems.append("%s: FROM at instructions %s, expected one FROM first" % (where, froms))
    if froms and variant == "e2b":
        # E2B builds the template from its own code-interpreter-v1 template
        # (REFERENCE §7), not from the lock's base: FROM is that template's
        # image, and the build id E2B gives the result is the immutable
        # reference. template.json must say which template it is.
        f = ins[froms[0]]["from"]
        if f["name"] != E2B_IMAGE:
            problems.append("%s: FROM %s, E2B's template image is %s" % (where, f["image"], E2B_IMAGE))
        tj = json.loads(read(os.path.join(d, "template.json")))
        if tj.get("fromTemplate") != E2B_TEMPLATE:
            problems.append("%s: template.json builds from %s, not %s" % (where, tj.get("fromTemplate"), E2B_TEMPLATE))
        if tj.get("fromImage") != f["image"]:
            problems.append("%s: template.json says fromImage %s, FROM says %s" % (where, tj.get("fromImage"), f["image"]))
        # pinned only by the catalog's digest of E2B's image: the lock's e2b
        # base digest is the Datalayer base's; left on the tag, it says why
        if f["digest"] and f["digest"] == ctx.lock.base_digest(variant):
            problems.append("%s: FROM %s pins E2B's image by the Datalayer base's digest" % (where, f["image"]))
        if not f["digest"] and "# Not pinned by a digest" not in text:
            problems.append("%s: FROM %s is a floating tag and the Dockerfile does not say why" % (where, f["image"]))
    elif froms:
        f = ins[froms[0]]["from"]
        if not f["digest"]:
            problems.append("%s: FROM %s is not pinned by a digest: a tag moves, so the same lock would "
                            "build another image" % (where, f["image"]))
        if f["digest"] != ctx.lock.base_digest(variant):
            problems.append("%s: FROM %s, the lock's %s base digest is %s" % (where, f["image"], variant,
                                                                              ctx.lock.base_digest(variant)))
        if f["name"] != ctx.lock.base_repository():
            problems.append("%s: FROM names %s, not the base repository %s" % (where, f["name"], ctx.lock.base_repository()))
    if variant == "datalayer":
        syn = [x["value"] for x in doc["directives"] if x["name"].lower() == "syntax"]
        if not syn or not re.match(r"^docker/dockerfile:1(\.\d+)*$", syn[0]):
            problems.append("%s: no `# syntax=docker/dockerfile:1.x` directive (BuildKit: --network, --mount)" % where)
    # ENV: the spec's, sorted by key, with the spec's values
    senv = spec_env(ctx.spec)
    env_keys, env_at, env_vals = [], [], {}
    for k, i in enumerate(ins):
        if i["keyword"] == "ENV":
            for p in i.get("properties") or []:
                if p["name"] in senv:
                    env_keys.append(p["name"])
                    env_at.append(k)
                    env_vals.setdefault(p["name"], []).append(p["value"])
    if env_keys != sorted(senv, key=lambda s: s.encode()):
        problems.append("%s: ENV sets %s, the spec's keys sorted are %s" % (where, env_keys, sorted(senv)))
    for key, val in senv.items():
        if env_vals.get(key) != [val]:
            problems.append("%s: ENV %s is %s, the spec says %r" % (where, key, env_vals.get(key), val))
    cp = copies(ins)
    steps = run_steps(ins)
    kinds = {}
    for k, words, kind in steps:
        if kind:
            kinds.setdefault(kind, []).append((k, words))
    # apt
    apt_at = [k for k, _w in kinds.get("apt", [])]
    pins, p = apt_pins_of_dockerfile(path)
    problems += p
    problems += compare_sets("%s apt pin" % where, ctx.lock.deb_pins(), pins)
    src_dest = [dst for dst, src in cp.items() if os.path.basename(src) == "apt-sources.list"]
    apt_words = [w for k, w, kind in steps if w and os.path.basename(w[0]) == "apt-get"]
    if not src_dest:
        problems.append("%s: apt-sources.list is not copied in" % where)
    else:
        for w in apt_words:
            lists = option_value(w, "-o")
            if ("Dir::Etc::SourceList=%s" % src_dest[0]) not in lists and \
                    ("Dir::Etc::sourcelist=%s" % src_dest[0]) not in lists:
                problems.append("%s: `%s` does not read only %s" % (where, " ".join(w[:3]), src_dest[0]))
    if "dpkg" in kinds:
        problems.append("%s: dpkg -i outside the apt step" % where)
    for k, w in kinds.get("apt-upgrade", []):
        problems.append("%s: line %d upgrades what the base has, which the lock keeps: %s"
                        % (where, ins[k]["line"], " ".join(w)))
    if not any(x["name"].lower() == "syntax" for x in doc["directives"]):
        for i in ins:
            bk = [fl["name"] for fl in i["flags"] if i["keyword"] == "RUN" and fl["name"] in ("mount", "network", "security")]
            if bk:
                problems.append("%s: line %d uses RUN --%s, which needs BuildKit, without a `# syntax=` directive"
                                % (where, i["line"], bk[0]))
    # python
    py = kinds.get("python", [])
    py_at = [k for k, _w in py]
    if len(py) != 1:
        problems.append("%s: %d Python install steps, expected one" % (where, len(py)))
    for _k, w in py:
        pp, req = python_step_problems(ctx, w, where)
        problems += pp
        if req and os.path.basename(cp.get(os.path.normpath(req), "")) != "requirements.txt":
            problems.append("%s: %s is not copied from the plan's requirements.txt" % (where, req))
    # npm
    npm = kinds.get("npm", [])
    npm_at = [k for k, _w in npm]
    if len(npm) != 1:
        problems.append("%s: %d npm install steps, expected one" % (where, len(npm)))
    for k, w in npm:
        i = w.index("npm") if "npm" in w else 0
        if w[i:i + 2] != ["npm", "ci"] or "--ignore-scripts" not in w:
            problems.append("%s: the npm step is not `npm ci --ignore-scripts`: %s" % (where, " ".join(w)))
        regs = [r.rstrip("/") for r in option_value(w, "--registry")]
        if regs != [s.rstrip("/") for s in ctx.lock.npm_sources()]:
            problems.append("%s: the npm step's registry %s is not the lock's %s" % (where, regs, ctx.lock.npm_sources()))
        in_node = any(c[:2] == ["cd", OPT + "/node"] for kk, c, _ in steps if kk == k) or \
            any(i2["keyword"] == "WORKDIR" and i2["content"].strip() == OPT + "/node" for i2 in ins[:k])
        if not in_node:
            problems.append("%s: the npm step does not run in %s/node" % (where, OPT))
        for f in ("package.json", "package-lock.json"):
            if os.path.basename(cp.get(OPT + "/node/" + f, "")) != f:
                problems.append("%s: %s is not copied to %s/node/" % (where, f, OPT))
    # files
    files_at = []
    for fpath in spec_files(ctx.spec):
        hit = [k for k, i in enumerate(ins) if i["keyword"] in ("COPY", "ADD") and os.path.normpath(fpath) in
               {os.path.normpath(dst) for dst, src in copies([i]).items()}]
        if not hit:
            problems.append("%s: the spec's file %s is not copied in" % (where, fpath))
        else:
            files_at.append(hit[0])
    # postInstall, each its own RUN, in order (datalayer: without network)
    post_at = []
    for cmd in spec_post(ctx.spec):
        hit = [k for k, i in enumerate(ins) if i["keyword"] == "RUN" and (i["content"] or "").strip() == cmd]
        if not hit:
            problems.append("%s: the postInstall command %r is not a RUN" % (where, cmd))
            continue
        post_at.append(hit[0])
        if variant == "datalayer" and not any(fl["name"] == "network" and fl["value"] == "none"
                                              for fl in ins[hit[0]]["flags"]):
            problems.append("%s: the postInstall RUN of %r is not --network=none" % (where, cmd))
    if post_at != sorted(post_at):
        problems.append("%s: the postInstall commands are not in the spec's order" % where)
    doctor = [k for k, i in enumerate(ins) if i["keyword"] == "RUN" and DOCTOR + " doctor" in (i["content"] or "")]
    if not doctor:
        problems.append("%s: the doctor is not run" % where)
    elif doctor[-1] != max(k for k, i in enumerate(ins) if i["keyword"] == "RUN"):
        problems.append("%s: the doctor is not the last RUN" % where)
    # nothing else installs anything
    allowed = {("apt", apt_at[0]) if apt_at else None, ("python", py_at[0]) if py_at else None,
               ("npm", npm_at[0]) if npm_at else None}
    for k, words, kind in steps:
        if kind and kind != "apt-upgrade" and (kind, k) not in allowed:
            problems.append("%s: line %d installs outside the lock's steps: %s" % (where, ins[k]["line"], " ".join(words)))
    problems += order_problems(where, [
        ("env", env_at[0] if env_at else None, env_at[-1] if env_at else None),
        ("apt", apt_at[0] if apt_at else None, apt_at[-1] if apt_at else None),
        ("python", py_at[0] if py_at else None, py_at[-1] if py_at else None),
        ("npm", npm_at[0] if npm_at else None, npm_at[-1] if npm_at else None),
        ("files", min(files_at) if files_at else None, max(files_at) if files_at else None),
        ("postInstall", min(post_at) if post_at else None, max(post_at) if post_at else None),
        ("doctor", doctor[0] if doctor else None, doctor[-1] if doctor else None)])
    return problems


def dockerfile_test(variant):
    def t(ctx):
        return dockerfile_problems(ctx, variant, ctx.variant_dir(variant))
    return t


def t_dockerfile_tampered(ctx):
    """The checker must fail a plan that installs more than the lock: an
    extra pin in the apt RUN, and (separately) an extra `pip install` RUN."""
    src = ctx.variant_dir("datalayer")
    path = os.path.join(src, "Dockerfile")
    lines = read(path).split("\n")
    pins = sorted(ctx.lock.deb_pins().items())
    first = "%s=%s" % pins[0]
    at = next((n for n, ln in enumerate(lines) if ln.strip().rstrip("\\").strip() == first), None)
    if at is None:
        raise Fail("the datalayer Dockerfile has no line of its own for the pin %s to tamper next to" % first)
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    problems = []
    doctor = next((n for n, ln in enumerate(lines) if DOCTOR in ln and ln.startswith("RUN")), len(lines))
    cases = {
        "extra-apt-pin": lines[:at + 1] + [indent + "tamperpkg=9.9-1 \\"] + lines[at + 1:],
        "extra-pip-install": lines[:doctor] + ["RUN python3 -m pip install tamperpkg==1.0"] + lines[doctor:],
    }
    for case, new in cases.items():
        d = os.path.join(ctx.work, case, "datalayer")
        shutil.copytree(src, d)
        with open(os.path.join(d, "Dockerfile"), "w") as f:
            f.write("\n".join(new))
        got = dockerfile_problems(ctx, "datalayer", d)
        named = [p for p in got if "tamperpkg" in p]
        print("%s: the checker says:\n  %s" % (case, "\n  ".join(got) or "(nothing)"))
        if not named:
            problems.append("%s: the checker passes a Dockerfile that installs tamperpkg" % case)
    # and the untampered plan passes the same checker, so the failures above are the tampering's
    clean = dockerfile_problems(ctx, "datalayer", src)
    if clean:
        problems.append("the untampered datalayer plan fails the checker too (see dockerfile_datalayer):\n  "
                        + "\n  ".join(clean))
    return problems


# ================================================================ the CLI's answers

README_FILES = {"datalayer": ["Dockerfile"], "daytona": ["Dockerfile"], "e2b": ["e2b.Dockerfile", "template.json"],
                "modal": ["modal_image.py"]}
CONTEXT_FILES = [".envlock-plan", "lock.txt", "requirements.txt", "apt-packages.txt", "apt-sources.list", "package.json",
                 "package-lock.json", "expected-packages.json", "sbom.cdx.json"]


def expected_manifest(doc):
    """The {distribution: version} part of expected-packages.json."""
    for key in ("packages", "expectedPackages", "expected_packages"):
        if isinstance(doc.get(key), dict):
            return doc[key]
    return {k: v for k, v in doc.items() if isinstance(v, str) and not k.startswith(("lock", "spec", "format"))}


def t_plan_outputs(ctx):
    p = ctx.plan()
    js = p["json"]
    problems = []
    if not isinstance(js, dict):
        return ["`envlock --json plan` printed no JSON object: %s" % p["stdout"][:500]]
    if js.get("lockDigest") != ctx.lock.digest:
        problems.append("lockDigest %s, the lock file's bytes hash to %s" % (js.get("lockDigest"), ctx.lock.digest))
    if js.get("specDigest") != ctx.lock.doc["specDigest"]:
        problems.append("specDigest %s, the lock's is %s" % (js.get("specDigest"), ctx.lock.doc["specDigest"]))
    if os.path.realpath(js.get("outDir") or "") != os.path.realpath(p["dir"]):
        problems.append("outDir %s, -o said %s" % (js.get("outDir"), p["dir"]))
    if js.get("variants") != list(VARIANTS):
        problems.append("variants %s, the spec asks for %s (required, then optional)" % (js.get("variants"), list(VARIANTS)))
    if js.get("dropped") != []:
        problems.append("dropped %s, but every variant can build this spec" % js.get("dropped"))
    listed = {}
    for f in js.get("files") or []:
        listed[os.path.realpath(f["path"])] = f
        if not os.path.exists(f["path"]):
            problems.append("files: %s is listed but not written" % f["path"])
            continue
        if f.get("sha256") != "sha256:" + sha256_file(f["path"]) and f.get("sha256") != sha256_file(f["path"]):
            problems.append("files: %s's sha256 %s is not its bytes'" % (f["path"], f.get("sha256")))
        if f.get("size") != os.path.getsize(f["path"]):
            problems.append("files: %s's size %s is not %d" % (f["path"], f.get("size"), os.path.getsize(f["path"])))
        if f.get("variant") != os.path.basename(os.path.dirname(f["path"])):
            problems.append("files: %s is listed under variant %s" % (f["path"], f.get("variant")))
    want_files = {}
    for v in VARIANTS:
        d = os.path.join(p["dir"], v)
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        want = sorted(README_FILES[v] + CONTEXT_FILES)
        if names != want:
            problems.append("%s/ holds %s; plan/README.md's table (for a lock with pypi, npm and debs) says %s"
                            % (v, names, want))
        for n in names:
            path = os.path.join(d, n)
            want_files[os.path.realpath(path)] = v
            if os.path.realpath(path) not in listed:
                problems.append("files: %s is written but not listed" % path)
            # apt-packages.txt is the apt step's arguments and package-lock.json
            # npm's own shape: neither has a place for it (plan/README.md)
            if n in ("apt-packages.txt", "package-lock.json"):
                continue
            if ctx.lock.digest not in read(path) and ctx.lock.digest.split(":", 1)[1] not in read(path):
                problems.append("%s/%s does not carry the lock digest" % (v, n))
        if os.path.isdir(d):
            if read(os.path.join(d, "lock.txt")) != read(ctx.export("uv-pip-compile")):
                problems.append("%s/lock.txt is not the uv-pip-compile export" % v)
            req = requirement_lines(os.path.join(d, "requirements.txt"))
            exp = requirement_lines(ctx.export("requirements"))
            for name, val in req.items():
                if exp.get(name) != val:
                    problems.append("%s/requirements.txt pins %s %s, the requirements export %s" % (v, name, val, exp.get(name)))
            man = expected_manifest(json.loads(read(os.path.join(d, "expected-packages.json"))))
            want_m = {canon(p["name"]): p["version"] for p in ctx.lock.of("pypi")}
            for name in ctx.lock.pypi_installs():
                if canon(name) not in {canon(k) for k in man}:
                    problems.append("%s/expected-packages.json does not expect %s" % (v, name))
            for name, ver in man.items():
                if want_m.get(canon(name)) != ver:
                    problems.append("%s/expected-packages.json expects %s %s, the lock says %s"
                                    % (v, name, ver, want_m.get(canon(name))))
    # text mode: one `sha256:<hex>  <path>` line per file, the same bytes
    t = ctx.info["plan_text"]
    if t["rc"] != 0:
        problems.append("`envlock plan` (text) exited %d: %s" % (t["rc"], t["stderr"].strip()))
    else:
        lines = [ln for ln in t["stdout"].split("\n") if ln]
        seen = set()
        for ln in lines:
            m = re.match(r"^sha256:([0-9a-f]{64})  (.+)$", ln)
            if not m:
                problems.append("text output line %r is not `sha256:<hex>  <path>`" % ln)
                continue
            if not os.path.exists(m.group(2)) or sha256_file(m.group(2)) != m.group(1):
                problems.append("text output names %s with a sha256 that is not its bytes'" % m.group(2))
            seen.add(os.path.relpath(m.group(2), t["dir"]))
        for path in want_files:
            rel = os.path.relpath(path, os.path.realpath(p["dir"]))
            other = os.path.join(t["dir"], rel)
            if rel not in seen:
                problems.append("text output does not list %s" % rel)
            if not os.path.exists(other) or read(other, "rb") != read(path, "rb"):
                problems.append("%s differs between two runs (the same lock and spec must give the same bytes)" % rel)
    for fmt in FORMATS:
        e = ctx.info["exports"][fmt]
        if e["rc"] != 0:
            problems.append("export --format %s exited %d: %s" % (fmt, e["rc"], e["stderr"].strip()))
        elif e["rc_o"] != 0 or not os.path.exists(e["path"] + ".o") or read(e["path"] + ".o") != read(e["path"]):
            problems.append("export --format %s -o FILE did not write what stdout printed" % fmt)
    return problems


# ================================================================ refusals and the stale lock

def resolve_spec(ctx, text, tag):
    work = os.path.join(ctx.work, tag)
    os.makedirs(work)
    spec = os.path.join(work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(text)
    res = rs.resolve(ctx.info["envlock"], work, "out", ctx.info["manifest"], ctx.info["mirror"],
                     ctx.info["flags"], None)
    if res["status"] != 0:
        raise Fail("envlock resolve of the %s spec failed (the refusal is the plan's to make): %s %s\n%s"
                   % (tag, res.get("code"), res.get("message"), text))
    return spec, os.path.join(work, "out", "envlock.lock")


def refusal_test(case, mode):
    c = REFUSALS[case]

    def t(ctx):
        v, host = c["variant"], c["host"]
        required, optional = ([v], []) if mode == "required" else ([host], [v])
        text, where = refusal_spec(case, required, optional)
        print("spec:\n" + "".join("%3d  %s\n" % (n, ln) for n, ln in enumerate(text.split("\n")[:-1], 1)))
        spec, lock = resolve_spec(ctx, text, case)
        out = os.path.join(ctx.work, "plan")
        rc, js, stdout, stderr = run_envlock(ctx.info, ["--json", "plan", spec, lock, "-o", out,
                                                        "--bases", ctx.info["catalog"]], os.path.join(ctx.work, "home"))
        print("envlock --json plan: exit %d\n%s%s" % (rc, stdout, stderr))
        problems = []
        fields = " or ".join(sorted(where))
        if mode == "required" and case == "architecture" and rc == 10 and isinstance(js, dict) \
                and js.get("code") == "DL_ENV_SPEC_INVALID":
            # the lock is not an answer for an amd64 spec: refusing it as
            # not fitting the spec is as right as refusing the variant
            if os.path.isdir(out) and any(os.scandir(out)):
                problems.append("a refused plan wrote files: %s" % os.listdir(out))
            return problems
        if mode == "required":
            if rc == 0:
                return ["exit 0: %s wrote a plan (%s) for a spec asking for %s; expected exit 11"
                        % (v, sorted(os.listdir(out)) if os.path.isdir(out) else "nothing", fields)]
            if rc != 11:
                problems.append("exit %d, expected 11 (%s must refuse a spec asking for %s)" % (rc, v, fields))
            if not isinstance(js, dict):
                return problems + ["no JSON error on stdout"]
            if js.get("code") != "DL_ENV_CAPABILITY_UNSUPPORTED":
                problems.append("code %s, expected DL_ENV_CAPABILITY_UNSUPPORTED" % js.get("code"))
            for k in ("message", "retryable", "userAction", "detail"):
                if k not in js:
                    problems.append("the error has no `%s`" % k)
            if js.get("retryable") is not False:
                problems.append("retryable %r, CAPABILITY_UNSUPPORTED is not retryable" % js.get("retryable"))
            det = js.get("detail") or {}
            if det.get("field") not in where:
                problems.append("detail.field %r, expected %s" % (det.get("field"), fields))
            elif det.get("line") != where[det["field"]]:
                problems.append("detail.line %r, the spec writes %s on line %d"
                                % (det.get("line"), det["field"], where[det["field"]]))
            if os.path.isdir(out) and any(os.scandir(out)):
                problems.append("a refused plan wrote files: %s" % os.listdir(out))
            return problems
        if rc != 0:
            problems.append("exit %d, expected 0 (%s is only optional; %s builds it)" % (rc, v, host))
        if not isinstance(js, dict):
            return problems + ["no JSON answer on stdout"]
        dropped = js.get("dropped") or []
        mine = [d for d in dropped if d.get("variant") == v]
        if len(mine) != 1 or len(dropped) != 1:
            problems.append("dropped %s, expected exactly %s" % (dropped, v))
        for d in mine:
            if d.get("field") not in where:
                problems.append("dropped %s: field %r, expected %s" % (v, d.get("field"), fields))
            elif d.get("line") != where[d["field"]]:
                problems.append("dropped %s: line %r, the spec writes %s on line %d"
                                % (v, d.get("line"), d["field"], where[d["field"]]))
            if not d.get("reason"):
                problems.append("dropped %s: no reason" % v)
        if js.get("variants") != [host]:
            problems.append("variants %s, expected [%s]" % (js.get("variants"), host))
        if os.path.exists(os.path.join(out, v)):
            problems.append("the dropped %s still has a directory" % v)
        hd = os.path.join(out, host)
        if not os.path.isdir(hd) or not any(n in os.listdir(hd) for n in README_FILES[host]):
            problems.append("%s's plan was not written" % host)
        elif {f["variant"] for f in js.get("files") or []} != {host}:
            problems.append("files lists variants %s" % sorted({f["variant"] for f in js.get("files") or []}))
        # the text answer: a `dropped` line on stderr naming field and line
        rc2, _js, _o, err2 = run_envlock(ctx.info, ["plan", spec, lock, "-o", out + "-text", "--bases",
                                                    ctx.info["catalog"]], os.path.join(ctx.work, "home"))
        m = re.search(r"^dropped %s: .* \((\S+), line (\d+)\)$" % re.escape(v), err2, re.M)
        if rc2 != 0 or not m:
            problems.append("text mode: exit %d, stderr has no `dropped %s: <reason> (<field>, line N)` line:\n%s"
                            % (rc2, v, err2))
        elif m.group(1) not in where or int(m.group(2)) != where[m.group(1)]:
            problems.append("text mode: `%s` names the wrong field or line" % m.group(0))
        return problems
    return t


def t_refuse_named(ctx):
    """An optional variant asked for by name (--variant) is wanted, so its
    refusal is an error, as for a required one (include/envlock/plan.h)."""
    problems = []
    for case in ("e2b-home", "modal-volume"):
        c = REFUSALS[case]
        v = c["variant"]
        text, where = refusal_spec(case, [c["host"]], [v])
        spec, lock = resolve_spec(ctx, text, case)
        out = os.path.join(ctx.work, case + "-plan")
        for args in (["--variant", v], ["--variant", c["host"], "--variant", v]):
            rc, js, stdout, stderr = run_envlock(ctx.info, ["--json", "plan", spec, lock] + args +
                                                 ["-o", out, "--bases", ctx.info["catalog"]],
                                                 os.path.join(ctx.work, "home"))
            print("%s: envlock --json plan %s: exit %d\n%s%s" % (case, " ".join(args), rc, stdout, stderr))
            det = (js or {}).get("detail") or {} if isinstance(js, dict) else {}
            if rc != 11 or js.get("code") != "DL_ENV_CAPABILITY_UNSUPPORTED" or det.get("field") not in where \
                    or det.get("line") != where.get(det.get("field")):
                problems.append("%s: plan %s: exit %d, %s; expected exit 11 DL_ENV_CAPABILITY_UNSUPPORTED naming %s "
                                "on line %s" % (case, " ".join(args), rc, (stdout or stderr).strip()[:400],
                                                " or ".join(where), sorted(set(where.values()))))
            if rc == 11 and os.path.isdir(out) and any(os.scandir(out)):
                problems.append("%s: plan %s refused but wrote %s" % (case, " ".join(args), os.listdir(out)))
            shutil.rmtree(out, ignore_errors=True)
    return problems


def t_stale_lock(ctx):
    text = read(ctx.info["spec"])
    edited = text.replace("ZETA: z", "ZETA: edited-after-resolving")
    if edited == text:
        raise Fail("the proof's spec has no `ZETA: z` to edit")
    spec = os.path.join(ctx.work, "spec.yaml")
    with open(spec, "w") as f:
        f.write(edited)
    out = os.path.join(ctx.work, "plan")
    rc, js, stdout, stderr = run_envlock(ctx.info, ["--json", "plan", spec, ctx.info["lock"], "-o", out,
                                                    "--bases", ctx.info["catalog"]], os.path.join(ctx.work, "home"))
    print("envlock --json plan (spec edited after resolving): exit %d\n%s%s" % (rc, stdout, stderr))
    problems = []
    if rc != 10:
        problems.append("exit %d, expected 10" % rc)
    if not isinstance(js, dict):
        return problems + ["no JSON error on stdout"]
    if js.get("code") != "DL_ENV_SPEC_INVALID":
        problems.append("code %s, expected DL_ENV_SPEC_INVALID" % js.get("code"))
    if (js.get("detail") or {}).get("reason") != "lock_stale":
        problems.append("detail.reason %r, expected lock_stale" % (js.get("detail") or {}).get("reason"))
    if os.path.isdir(out) and any(os.scandir(out)):
        problems.append("a stale lock's plan wrote files: %s" % os.listdir(out))
    return problems


# ================================================================ driver

TESTS = {"plan_outputs": t_plan_outputs, "pip_export": t_pip_export,
         "uv_pip_compile_export": t_uv_pip_compile_export, "pylock_export": t_pylock_export, "pip_plan": t_pip_plan,
         "npm_plan": t_npm_plan, "npm_export": t_npm_export, "apt_plan": t_apt_plan, "modal": t_modal,
         "dockerfile_datalayer": dockerfile_test("datalayer"), "dockerfile_e2b": dockerfile_test("e2b"),
         "dockerfile_daytona": dockerfile_test("daytona"), "dockerfile_tampered": t_dockerfile_tampered,
         "refuse_named_optional": t_refuse_named, "stale_lock": t_stale_lock}
for _case in REFUSALS:
    for _mode in refusal_modes(_case):
        TESTS["refuse_%s_%s" % (_case, _mode)] = refusal_test(_case, _mode)


def cmd_run(state, name):
    if name not in TESTS:
        print("unknown test %s; tests: %s" % (name, " ".join(test_names())))
        return 2
    try:
        with open(state_file(state)) as f:
            info = json.load(f)
    except (OSError, ValueError):
        print("FAIL: no state in %s (did plan_proof_setup run?)" % state)
        return 1
    if info.get("skip"):
        print("SKIP: %s" % info["skip"])
        return SKIP
    if info.get("error"):
        print("FAIL: setup failed: %s" % info["error"])
        return 1
    t0 = time.time()
    try:
        problems = TESTS[name](Ctx(state, info, name))
    except agree.Skip as s:
        print("SKIP: %s" % s)
        return SKIP
    except Fail as e:
        problems = [str(e)]
    print("(%.1fs)" % (time.time() - t0))
    if problems:
        print("FAIL: %s" % name)
        for p in problems:
            print("  " + p.replace("\n", "\n  "))
        return 1
    print("PASS: %s" % name)
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "list":
        print("\n".join(test_names()))
        return 0
    if len(argv) >= 3 and argv[1] == "setup":
        envlock = argv[argv.index("--envlock") + 1] if "--envlock" in argv else "envlock"
        return cmd_setup(os.path.abspath(argv[2]), envlock)
    if len(argv) == 4 and argv[1] == "run":
        return cmd_run(os.path.realpath(argv[2]), argv[3])
    if len(argv) == 3 and argv[1] == "cleanup":
        return cmd_cleanup(os.path.abspath(argv[2]))
    print(__doc__.split("\n\n")[-2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

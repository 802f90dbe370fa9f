#!/usr/bin/env python3
"""agree.py — does envlock choose what pip, npm and apt-get choose?

For every corpus scenario with a spec, the spec's Python requirements go to
`pip install --dry-run --report`, its node dependencies to `npm install
--package-lock-only`, its apt packages to `apt-get -s install`, all against
the same fixture mirror (served by nginx) that `envlock resolve` reads, and
each tool's answer is compared with envlock's lock: versions for pip and
apt, versions and node_modules placement for npm. Every difference must be
listed in deviations.txt, which names the rule that explains it (or marks it
a resolver bug: an expected failure until fixed). See README.md.

    agree.py list                             the (tool, scenario) pairs, for CMake
    agree.py setup STATE --envlock BIN        build the mirrors, start nginx,
                                              run envlock on every scenario
    agree.py run STATE TOOL SCENARIO          one comparison (exit 0/1/77)
    agree.py cleanup STATE                    stop nginx, print the tally

Runs under /usr/bin/python3 (PyYAML); the tools run as separate processes
with private homes and configuration, and reach nothing but 127.0.0.1."""

import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import agree_env as env  # noqa: E402

SKIP = 77
TOOLS = {"pip": "pypi", "npm": "npm", "apt": "deb"}
DEVIATIONS = os.path.join(HERE, "deviations.txt")
PIP_PLATFORMS = (["manylinux_2_%d_x86_64" % n for n in range(36, 4, -1)]
                 + ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"])


# ---------------------------------------------------------------- pairs

def eligible(sc):
    """The tools that check this scenario: it has a spec, is not tagged
    `no-agree` (or `no-agree-TOOL`), and its spec asks that tool's ecosystem
    for something."""
    if sc.spec_text is None or "no-agree" in sc.tags:
        return []
    req = env.spec_requests(env.spec_doc(sc))
    return [t for t, eco in TOOLS.items() if req[eco] and "no-agree-" + t not in sc.tags]


def read_deviations(path=DEVIATIONS):
    """[(scenario, tool, package, envlock, tool_value, rule, line)]."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split(None, 5)
            if len(parts) < 6 or parts[1] not in TOOLS:
                raise SystemExit("%s:%d: expected `SCENARIO TOOL PACKAGE ENVLOCK TOOL RULE`" % (path, n))
            out.append(tuple(parts[:5]) + (parts[5].strip(), n))
    return out


def is_bug(rule):
    return rule.startswith("bug")


def cmd_list():
    bugs = {(d[0], d[1]) for d in read_deviations() if is_bug(d[5])}
    for sc in env.load_scenarios():
        for tool in eligible(sc):
            print("%s %s%s" % (tool, sc.name, " xfail" if (sc.name, tool) in bugs else ""))
    return 0


# ---------------------------------------------------------------- setup

def state_paths(state):
    return {"mirror": os.path.join(state, "mirror"), "info": os.path.join(state, "state.json"),
            "nginx": os.path.join(state, "nginx"), "results": os.path.join(state, "results")}


def prepare(state, info, sc):
    """The scenario's mirror as the scenario suite reads it (file://, npm
    packuments flattened, the keyring beside it) and its test catalog;
    returns (manifest, mirror dir, resolve flags, catalog settings) or
    raises rs.Failure for an option the suite does not know."""
    mdir = os.path.join(info["root"], sc.name)
    with open(os.path.join(mdir, "manifest.json")) as f:
        man = json.load(f)
    flags, cat = env.rs.parse_options(sc)
    return man, mdir, flags, cat


def resolve_one(envlock, state, info, sc, spec_text=None, tag="full"):
    """`envlock resolve` of the scenario's spec (or spec_text) through the
    scenario suite's resolve(), without a previous lock; the record kept in
    the state: rc, the JSON answer, the lock's path."""
    work = os.path.join(state, "envlock", sc.name, tag)
    os.makedirs(work, exist_ok=True)
    try:
        man, mdir, flags, _cat = prepare(state, info, sc)
    except env.rs.Failure as e:
        return {"rc": None, "result": {"code": "UNSUPPORTED-OPTION", "message": str(e)}}
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(spec_text if spec_text is not None else sc.spec_text)
    t0 = time.time()
    try:
        res = env.rs.resolve(envlock, work, "out", man, mdir, flags, None)
    except env.rs.Failure as e:
        return {"rc": 70, "result": {"code": "NO-JSON", "message": str(e)}}
    return {"rc": res["status"], "result": res["json"], "seconds": round(time.time() - t0, 3),
            "lock": os.path.join(work, "out", "envlock.lock") if res["status"] == 0 else None}


def cmd_setup(state, envlock):
    import servers
    stop_nginx(state)
    remove_state(state)
    # ~10k small files: on a tmpfs when there is one (a busy disk takes
    # seconds to create and delete them); STATE is then a symlink to it
    shm = os.environ.get("ENVLOCK_AGREE_TMP", "/dev/shm")
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        os.makedirs(os.path.dirname(state), exist_ok=True)
        os.symlink(tempfile.mkdtemp(prefix="envlock-agree-", dir=shm), state)
    # every path below is the real one: npm 11 silently leaves bundled
    # dependencies out of its lock when its cache path goes through a symlink
    state = os.path.realpath(state)
    p = state_paths(state)
    os.makedirs(p["results"])
    info = {"skip": None}
    if env.yaml is None:
        info["skip"] = "PyYAML is not importable by %s" % sys.executable
    elif not os.access(servers.NGINX, os.X_OK):
        info["skip"] = "nginx not found at %s" % servers.NGINX
    elif not os.access(envlock, os.X_OK):
        info["skip"] = "envlock not built at %s" % envlock
    if info["skip"]:
        with open(p["info"], "w") as f:
            json.dump(info, f)
        print("setup: skipping everything: %s" % info["skip"])
        return 0
    t0 = time.time()
    scens = [sc for sc in env.load_scenarios() if eligible(sc)]
    apt_ok = shutil.which("dpkg-deb") is not None and shutil.which("gpg") is not None
    try:
        env.build_mirror.build([sc.path for sc in scens], p["mirror"], apt=apt_ok, per_scenario=True)
    except env.build_mirror.BuildError as e:
        # one scenario the builder refuses must not take the others down:
        # build each alone (each with its own key), dropping the refused
        print("setup: %s; building the scenarios one by one" % e)
        good = []
        for sc in scens:
            try:
                env.build_mirror.build([sc.path], os.path.join(p["mirror"], sc.name), apt=apt_ok)
                good.append(sc)
            except env.build_mirror.BuildError as e1:
                print("setup: %s: %s" % (sc.name, e1))
        scens = good
    t_build = time.time() - t0
    ng = servers.Nginx(p["mirror"], work=p["nginx"])
    os.makedirs(ng.work, exist_ok=True)
    ng.start()
    info["tools"] = tool_versions()
    info.update(root=p["mirror"], url=ng.url + "/", nginx_pid=ng.proc.pid, apt_built=apt_ok,
                keyring=os.path.join(p["mirror"], "apt-keyring.gpg"), envlock=envlock, scenarios={})
    ng.proc = None  # it outlives setup; cleanup stops it by pid
    with open(p["info"], "w") as f:
        json.dump(info, f)
    t1 = time.time()
    for sc in scens:
        # what the scenario suite's resolve() expects of a mirror directory
        mdir = os.path.join(p["mirror"], sc.name)
        env.rs.flatten_npm(mdir)
        has_deb = apt_ok and bool(sc.of("deb"))
        if has_deb and not os.path.exists(os.path.join(mdir, "apt-keyring.gpg")):
            shutil.copyfile(info["keyring"], os.path.join(mdir, "apt-keyring.gpg"))
        try:
            man, _mdir, _flags, cat = prepare(state, info, sc)
        except env.rs.Failure:
            continue
        os.makedirs(mdir + ".catalog", exist_ok=True)
        env.rs.write_catalog(os.path.join(mdir + ".catalog", "bases.yaml"), sc, man, mdir, cat, has_deb)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, 2 * (os.cpu_count() or 1))) as ex:
        futs = {sc.name: ex.submit(resolve_one, envlock, state, info, sc) for sc in scens}
        for name, fut in futs.items():
            info["scenarios"][name] = fut.result()
    with open(p["info"], "w") as f:
        json.dump(info, f, indent=1)
    ok = sum(1 for r in info["scenarios"].values() if r["rc"] == 0)
    print("setup: %d scenarios, mirrors built in %.1fs, nginx at %s, %d resolved (%d refused) in %.1fs"
          % (len(scens), t_build, info["url"], ok, len(scens) - ok, time.time() - t1))
    return 0


def tool_versions():
    """Each tool's version, asked once (npm takes a while to start)."""
    def first_line(cmd):
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            return p.stdout.splitlines()[0].strip() if p.returncode == 0 else None
        except (OSError, IndexError):
            return None
    npm = first_line(["npm", "--version"])
    node = first_line(["node", "--version"])
    return {"pip": pip_python(), "npm": "npm %s on node %s" % (npm, node) if npm else None,
            "node": node.lstrip("v") if node else None,
            "apt": first_line(["apt-get", "--version"])}


def remove_state(state):
    if os.path.islink(state):
        shutil.rmtree(os.path.realpath(state), ignore_errors=True)
        os.unlink(state)
    else:
        shutil.rmtree(state, ignore_errors=True)


def stop_nginx(state):
    try:
        with open(state_paths(state)["info"]) as f:
            pid = json.load(f).get("nginx_pid")
    except (OSError, ValueError):
        return
    if pid:
        terminate(pid)


def terminate(pid):
    """SIGTERM, up to 5 s for the process to go, then SIGKILL."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def cmd_cleanup(state):
    tally = {}
    secs = {}
    rows = []
    for path in sorted(glob.glob(os.path.join(state_paths(state)["results"], "*.json"))):
        with open(path) as f:
            r = json.load(f)
        tally[r["outcome"]] = tally.get(r["outcome"], 0) + 1
        tool = r["pair"].split()[0]
        secs[tool] = secs.get(tool, 0.0) + r.get("seconds", 0.0)
        rows += r.get("rows", [])
    stop_nginx(state)
    if tally:
        print("agreement: " + ", ".join("%s %d" % kv for kv in sorted(tally.items())))
        print("tool time: " + ", ".join("%s %.1fs" % kv for kv in sorted(secs.items())))
        for row in rows:
            print("  " + row)
    if os.environ.get("ENVLOCK_AGREE_KEEP") != "1":
        remove_state(state)
    return 0


# ---------------------------------------------------------------- the tools

def clean_env(home):
    e = {}
    for k, v in os.environ.items():
        if k.lower().endswith("_proxy") or k.startswith(("PIP_", "NPM_CONFIG_", "npm_config_", "ENVLOCK_",
                                                           "PYTHON", "VIRTUAL_ENV", "APT_CONFIG")):
            continue
        e[k] = v
    e.update(HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
             XDG_CACHE_HOME=os.path.join(home, ".cache"), LC_ALL="C", NO_PROXY="127.0.0.1")
    return e


def run(cmd, e, cwd=None, timeout=180):
    return subprocess.run(cmd, env=e, cwd=cwd, timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def pip_python():
    """A Python whose pip resolves for the target: a CPython 3.13 when one is
    installed (pip evaluates dependency markers against the interpreter it
    runs on, whatever --python-version says), else python3 on PATH.
    ENVLOCK_AGREE_PIP_PYTHON overrides. None when no pip works."""
    cands = [os.environ.get("ENVLOCK_AGREE_PIP_PYTHON")]
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3.13")), reverse=True)
    cands += ["/usr/local/bin/python3.13", "/usr/bin/python3.13", shutil.which("python3")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            p = subprocess.run([c, "-m", "pip", "--version"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            if p.returncode == 0:
                return c, p.stdout.split(" from ")[0]
    return None, None


def canon(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def run_pip(ctx):
    py, version = ctx["info"]["tools"]["pip"]
    if py is None:
        return skip("no python with pip")
    home = ctx["work"]
    e = clean_env(home)
    e.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1",
             PIP_NO_CACHE_DIR="1")
    req = ctx["req"]
    try:
        urls = env.pypi_index_urls(ctx["manifest"], req["pypi-indexes"], ctx["base_url"])
    except KeyError as err:
        return skip(str(err))
    report = os.path.join(home, "report.json")
    cmd = [py, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--no-color",
           "--report", report, "--index-url", urls[0]]
    for u in urls[1:]:
        cmd += ["--extra-index-url", u]
    if req["pypi-constraints"]:
        cfile = os.path.join(home, "constraints.txt")
        with open(cfile, "w") as f:
            f.write("\n".join(req["pypi-constraints"]) + "\n")
        cmd += ["-c", cfile]
    cmd += ["--python-version", env.PYTHON, "--implementation", "cp", "--abi", "cp313", "--abi", "abi3",
            "--abi", "none", "--only-binary", ":all:", "--target", os.path.join(home, "target")]
    if ctx.get("prerelease") == "allow":
        cmd.append("--pre")
    for plat in PIP_PLATFORMS:
        cmd += ["--platform", plat]
    cmd += req["pypi"]
    ctx["command"] = " ".join(cmd)
    ctx["tool_version"] = "%s on %s" % (version, py)
    r = run(cmd, e)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
    with open(report) as f:
        rep = json.load(f)
    got = {}
    for item in rep["install"]:
        name = canon(item["metadata"]["name"])
        got[name] = item["metadata"]["version"]
        # requested_extras echoes what was asked for; an extra the package
        # does not provide (pip warns and ignores it) installs nothing.
        provided = {canon(x) for x in item["metadata"].get("provides_extra") or []}
        for x in item.get("requested_extras") or []:
            if canon(x) in provided:
                got[name + "[" + canon(x) + "]"] = item["metadata"]["version"]
    return got, None


def envlock_pypi(pkgs):
    out = {}
    for p in pkgs:
        if p["ecosystem"] != "pypi" or p["base"]:
            continue
        out[p["name"]] = p["version"]
        for x in p["extras"]:
            out[p["name"] + "[" + x + "]"] = p["version"]
    return out


def npm_dep(text):
    """'@scope/name@^1' -> ('@scope/name', '^1'); a bare name -> (name, '*')."""
    at = text.find("@", 1)
    if at < 0:
        return text, "*"
    return text[:at], text[at + 1:] or "*"


def run_npm(ctx):
    if shutil.which("npm") is None or shutil.which("node") is None:
        return skip("npm not found")
    home = ctx["work"]
    e = clean_env(home)
    npmrc = os.path.join(home, "npmrc")
    for f in (npmrc, npmrc + "-global"):
        open(f, "w").close()
    e.update(npm_config_userconfig=npmrc, npm_config_globalconfig=npmrc + "-global",
             npm_config_cache=os.path.join(home, "cache"), npm_config_update_notifier="false",
             npm_config_audit="false", npm_config_fund="false", npm_config_fetch_retries="0",
             npm_config_loglevel="error")
    proj = os.path.join(home, "project")
    os.makedirs(proj)
    deps = dict(npm_dep(d) for d in ctx["req"]["npm"])
    with open(os.path.join(proj, "package.json"), "w") as f:
        json.dump({"name": "agree-" + ctx["scenario"], "version": "0.0.0", "private": True,
                   "dependencies": deps}, f, indent=1)
    cmd = ["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund",
           "--registry", ctx["base_url"] + "npm/"]
    if ctx["cutoff"]:
        cmd += ["--before", ctx["cutoff"]]
    ctx["command"] = " ".join(cmd) + "   # package.json dependencies: " + json.dumps(deps)
    ctx["tool_version"] = ctx["info"]["tools"]["npm"]
    r = run(cmd, e, cwd=proj)
    if r.returncode != 0:
        err = [ln for ln in r.stderr.splitlines() if ln.startswith("npm error")] or r.stderr.splitlines()
        return None, " / ".join(err[:3]) or "exit %d" % r.returncode
    with open(os.path.join(proj, "package-lock.json")) as f:
        lock = json.load(f)
    ctx["npm_lock"] = lock["packages"]
    return {k: v.get("version", "(link)") for k, v in lock["packages"].items() if k}, None


def envlock_npm(pkgs):
    return {p["path"]: p["version"] for p in pkgs if p["ecosystem"] == "npm" and not p["base"]}


APT_OPTS = ["-o", "APT::Architecture=amd64", "-o", "APT::Architectures::=amd64",
            "-o", "Acquire::Languages=none", "-o", "Acquire::Retries=0", "-o", "Acquire::http::Proxy=DIRECT",
            "-o", "APT::Sandbox::User=root", "-o", "Debug::NoLocking=1", "-o", "Dpkg::Use-Pty=0",
            "-o", "APT::Install-Recommends=false", "-o", "APT::Install-Suggests=false"]


def run_apt(ctx):
    if shutil.which("apt-get") is None:
        return skip("apt-get not found")
    if not ctx["info"].get("apt_built"):
        return skip("the apt repositories were not built (dpkg-deb or gpg missing)")
    if ctx["cutoff"]:
        return skip("apt-get 2.6 has no equivalent of --exclude-newer (the snapshot choice)")
    root = os.path.join(ctx["work"], "root")
    for d in ("etc/apt/apt.conf.d", "etc/apt/preferences.d", "etc/apt/sources.list.d",
              "etc/apt/trusted.gpg.d", "var/lib/apt/lists/partial", "var/cache/apt/archives/partial",
              "var/lib/dpkg"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    status = os.path.join(root, "var/lib/dpkg/status")
    # the dpkg status the test catalog gives envlock (the scenario's installed debs)
    cat_status = os.path.join(ctx["mdir"] + ".catalog", "status")
    if os.path.exists(cat_status):
        shutil.copyfile(cat_status, status)
    else:
        open(status, "w").close()
    keyring = os.path.join(ctx["mdir"], "apt-keyring.gpg")
    with open(os.path.join(root, "etc/apt/sources.list"), "w") as f:
        for suite, comps in env.apt_sources(ctx["sc"], ctx["manifest"]):
            f.write("deb [signed-by=%s] %sapt/ %s %s\n" % (keyring, ctx["base_url"], suite, " ".join(comps)))
    conf = os.path.join(root, "apt.conf")
    with open(conf, "w") as f:
        f.write('Dir "%s/";\nDir::State::status "%s";\n' % (root, status))
    e = clean_env(ctx["work"])
    e["APT_CONFIG"] = conf
    base = ["apt-get", "-q", "-o", "Dir=%s/" % root, "-o", "Dir::State::status=%s" % status,
            "-o", "Dir::Etc::sourcelist=%s/etc/apt/sources.list" % root,
            "-o", "Dir::Etc::sourceparts=%s/etc/apt/sources.list.d" % root,
            "-o", "Dir::Etc::trusted=%s" % keyring,
            "-o", "Dir::Etc::trustedparts=%s/etc/apt/trusted.gpg.d" % root] + APT_OPTS
    r = run(base + ["update"], e)
    if r.returncode != 0 or "E:" in r.stdout + r.stderr:
        return None, "apt-get update failed: " + (r.stdout + r.stderr).strip().replace("\n", " / ")
    ctx["apt"] = (base, e)
    cmd = base + ["-s", "install", "--no-install-recommends", *ctx["req"]["deb"]]
    ctx["command"] = "apt-get -s install --no-install-recommends " + " ".join(ctx["req"]["deb"])
    ctx["tool_version"] = ctx["info"]["tools"]["apt"]
    r = run(cmd, e)
    if r.returncode != 0:
        err = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith(("E:", " "))]
        return None, " / ".join(x.strip() for x in err[:6]) or "exit %d" % r.returncode
    return apt_inst(r.stdout), None


def apt_inst(out):
    return {m.group(1): m.group(2) for m in re.finditer(r"^Inst (\S+) (?:\[\S+\] )?\((\S+)", out, re.M)}


def envlock_deb(pkgs):
    return {p["name"]: p["version"] for p in pkgs if p["ecosystem"] == "deb" and not p["base"]}


RUNNERS = {"pip": (run_pip, envlock_pypi), "npm": (run_npm, envlock_npm), "apt": (run_apt, envlock_deb)}


class Skip(Exception):
    pass


def skip(why):
    raise Skip(why)


def same_version(tool, a, b):
    if a == b:
        return True
    if tool == "pip" and "-" not in (a, b):
        try:
            from packaging.version import Version
            return Version(a) == Version(b)
        except Exception:  # an unparsable version compares as text
            return False
    return False


def diff(tool, mine, theirs):
    out = []
    for k in sorted(set(mine) | set(theirs)):
        a, b = mine.get(k, "-"), theirs.get(k, "-")
        if not same_version(tool, a, b):
            out.append((k, a, b))
    return out


def admits(field, value):
    """npm's os/cpu lists: ['linux'], ['!win32'] ... admit value?"""
    if not field:
        return True
    neg = [x[1:] for x in field if x.startswith("!")]
    pos = [x for x in field if not x.startswith("!")]
    return value not in neg and (not pos or value in pos)


def engines_node_admits(ctx, path, version, node):
    """Whether the engines.node of the fixture's packument entry for the
    package at node_modules `path`, at `version`, admits `node`, by npm's
    own semver (npm-install-checks: satisfies with includePrerelease); True
    when it names no engines.node."""
    name = path.rsplit("node_modules/", 1)[-1]
    with open(os.path.join(ctx["mdir"], "npm", name, "packument.json")) as f:
        rng = ((json.load(f).get("versions", {}).get(version) or {}).get("engines") or {}).get("node")
    if rng is None or not node:
        return True
    semver = os.path.join(os.path.dirname(os.path.realpath(shutil.which("npm"))), "..",
                          "node_modules", "semver")
    js = "process.stdout.write(String(require(process.argv[1]).satisfies(process.argv[2], " \
         "process.argv[3], {includePrerelease: true})))"
    r = subprocess.run(["node", "-e", js, semver, node, rng], stdout=subprocess.PIPE, text=True)
    return r.stdout.strip() == "true"


def rule_fails(ctx, key, rule):
    """Why the row's rule does not describe the tool's answer (None when it
    does, or when the rule has no mechanical check)."""
    rid = rule.split(":", 1)[0]
    entry = (ctx.get("npm_lock") or {}).get(key, {})
    if rid == "apt-candidate-only":
        # envlock's answer must be what apt installs when told the versions
        base, e = ctx["apt"]
        want = ctx["mine"]
        r = run(base + ["-s", "install", "--no-install-recommends"]
                + ["%s=%s" % kv for kv in sorted(want.items())], e)
        if r.returncode != 0 or apt_inst(r.stdout) != want:
            return "apt-get -s install NAME=VERSION of envlock's lock does not install exactly it: %s" % (
                (r.stdout + r.stderr).strip().replace("\n", " / ")[-300:])
    if rid == "npm-node-unknown":
        # the base names no node: envlock's pick's engines.node must be what
        # excludes the node npm runs on (npm chose around it)
        if ctx["cat"].get("node"):
            return "the scenario's base names node %s" % ctx["cat"]["node"]
        node = ctx["info"]["tools"].get("node")
        if engines_node_admits(ctx, key, (ctx.get("mine") or {}).get(key), node):
            return "the engines.node of envlock's %s admits node %s" % (key, node)
    if rid == "npm-lock-all-platforms" and not (
            entry.get("optional") and not (admits(entry.get("os"), "linux") and admits(entry.get("cpu"), "x64"))):
        return "npm's lock entry %s is not an optional one for another os/cpu" % key
    return None


def reduced_spec(ctx, eco):
    """The scenario's spec with only `eco`'s packages (JSON, which YAML reads)."""
    doc = env.spec_doc(ctx["sc"])
    pk = doc["spec"]["packages"]
    keep = {"pypi": "python", "npm": "node", "deb": "system"}[eco]
    for k in list(pk):
        if k != keep:
            del pk[k]
    return json.dumps(doc, indent=1) + "\n"


def cmd_run(state, tool, name):
    with open(state_paths(state)["info"]) as f:
        info = json.load(f)
    if info.get("skip"):
        print("SKIP: %s" % info["skip"])
        return SKIP
    rec = info["scenarios"].get(name)
    if rec is None:
        print("SKIP: scenario %s was not set up (reconfigure?)" % name)
        return SKIP
    sc = next(s for s in env.load_scenarios() if s.name == name)
    work = os.path.join(state, "run", "%s-%s" % (tool, name))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        manifest, mdir, flags, cat = prepare(state, info, sc)
    except env.rs.Failure as e:
        print("SKIP: %s" % e)
        return SKIP
    cutoff = flags[flags.index("--exclude-newer") + 1] if "--exclude-newer" in flags else None
    prerelease = flags[flags.index("--prerelease") + 1] if "--prerelease" in flags else None
    ctx = {"scenario": name, "sc": sc, "info": info, "work": work, "manifest": manifest, "mdir": mdir,
           "base_url": info["url"] + name + "/", "req": env.spec_requests(env.spec_doc(sc)),
           "cutoff": cutoff, "cat": cat, "prerelease": prerelease, "flags": flags}
    result = {"pair": "%s %s" % (tool, name), "rows": []}
    t0 = time.time()
    try:
        code = compare(state, tool, name, info, rec, ctx, result)
    except Skip as s:
        print("SKIP: %s" % s)
        result["outcome"] = "skipped"
        code = SKIP
    result["seconds"] = round(time.time() - t0, 2)
    with open(os.path.join(state_paths(state)["results"], "%s-%s.json" % (tool, name)), "w") as f:
        json.dump(result, f)
    return code


def compare(state, tool, name, info, rec, ctx, result):
    runner, select = RUNNERS[tool]
    eco = TOOLS[tool]
    if rec["rc"] is None:
        skip("envlock cannot be given the scenario's option %s" % rec["result"]["message"])
    cat = ctx["cat"]
    if cat["protected"] or cat["preinstalled"] or (cat["python"], cat["platform"], cat["arch"]) != (
            env.PYTHON, env.PLATFORM, "amd64"):
        skip("the scenario's test base (protected pins, preinstalled dists or another target) "
             "is not something %s can be told" % tool)
    # npm's engines.node preference uses the node it runs on, which cannot be
    # told another: a test base naming another node is not comparable
    if tool == "npm" and cat.get("node") and cat["node"] != info["tools"].get("node"):
        skip("the scenario's base has node %s, npm runs on node %s" % (cat["node"], info["tools"].get("node")))
    if tool == "pip" and ctx["cutoff"]:
        skip("pip has no --exclude-newer (upload-time cutoff)")
    if tool == "pip" and ctx["prerelease"] not in (None, "allow"):
        skip("pip has no pre-release mode %s (only --pre, uv's allow)" % ctx["prerelease"])
    if tool == "pip" and "--no-binary" in ctx["flags"]:
        # --no-build and --only-binary are what the pip run has anyway
        skip("pip resolving for another platform must be given --only-binary :all:, "
             "which --no-binary contradicts")
    theirs, tool_err = runner(ctx)
    print("tool:    %s" % ctx.get("tool_version"))
    print("command: %s" % ctx.get("command"))
    print("envlock: %s" % ("lock written" if rec["rc"] == 0 else "exit %d: %s %s" % (
        rec["rc"], rec["result"].get("code"), rec["result"].get("message"))))
    if tool_err:
        print("%s refused: %s" % (tool, tool_err))
    lock = rec.get("lock")
    if rec["rc"] != 0 and tool_err is None:
        # The whole spec fails; if the failure lies in another ecosystem,
        # envlock on this ecosystem's part alone is what the tool answered.
        r2 = resolve_one(info["envlock"], state, info, ctx["sc"], reduced_spec(ctx, eco), tag="only-" + eco)
        if r2["rc"] == 0:
            print("envlock: the spec's %s part alone resolves; comparing with that lock" % eco)
            lock = r2["lock"]
    mine = None
    if lock:
        with open(lock, encoding="utf-8") as f:
            mine = select(env.lock_packages(f.read()))
    ctx["mine"] = mine
    if mine is None and theirs is None:
        diffs = []
    elif mine is None:
        diffs = [("*", "ERROR", "ok")]
        print("%s chose: %s" % (tool, " ".join("%s=%s" % kv for kv in sorted(theirs.items()))))
    elif theirs is None:
        diffs = [("*", "ok", "ERROR")]
    else:
        if tool == "pip":
            # pip's report names the extras of the requested packages only;
            # envlock's lock those of every package: compare what pip names
            mine = {k: v for k, v in mine.items() if "[" not in k or k in theirs}
        diffs = diff(tool, mine, theirs)
        print("both chose (%d): %s" % (len(mine) - len([d for d in diffs if d[1] != "-"]),
                                        " ".join("%s=%s" % (k, v) for k, v in sorted(mine.items())
                                                 if (k, v) not in {(d[0], d[1]) for d in diffs})))
    known = [d for d in read_deviations() if d[0] == name and d[1] == tool]
    ok = True
    matched = set()
    bug = False
    for k, a, b in diffs:
        hit = next((d for d in known if d[2] == k and d[3] == a and d[4] == b), None)
        row = "%-28s %-4s %-36s %-14s %-14s" % (name, tool, k, a, b)
        if hit is None:
            ok = False
            print("DIFFERS: %s  (envlock %s, %s %s) — not in deviations.txt" % (k, a, tool, b))
            result["rows"].append(row + " UNEXPLAINED")
        elif rule_fails(ctx, k, hit[5]):
            ok = False
            print("WRONG RULE: deviations.txt:%d: %s" % (hit[6], rule_fails(ctx, k, hit[5])))
            result["rows"].append(row + " WRONG RULE")
        else:
            matched.add(hit)
            bug = bug or is_bug(hit[5])
            print("%s: %s  (envlock %s, %s %s) — %s" % ("BUG" if is_bug(hit[5]) else "deviation",
                                                      k, a, tool, b, hit[5]))
            result["rows"].append(row + " " + hit[5])
    for d in known:
        if d not in matched:
            ok = False
            print("STALE: deviations.txt:%d (%s %s %s) is no longer observed%s"
                  % (d[6], d[2], d[3], d[4], " — the bug looks fixed (XPASS)" if is_bug(d[5]) else ""))
    if not ok:
        result["outcome"] = "FAILED"
        print("FAIL")
        return 1
    if bug:
        result["outcome"] = "xfail (bug)"
        print("XFAIL: a known resolver bug (deviations.txt)")
    elif diffs:
        result["outcome"] = "deviates (documented)"
        print("PASS: every difference is a documented rule")
    else:
        result["outcome"] = "agrees"
        print("PASS: %s and envlock agree" % tool)
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        return cmd_list()
    if len(argv) >= 3 and argv[1] == "setup":
        envlock = argv[argv.index("--envlock") + 1] if "--envlock" in argv else "envlock"
        return cmd_setup(os.path.abspath(argv[2]), envlock)
    if len(argv) == 5 and argv[1] == "run" and argv[3] in TOOLS:
        return cmd_run(os.path.realpath(argv[2]), argv[3], argv[4])
    if len(argv) == 3 and argv[1] == "cleanup":
        return cmd_cleanup(os.path.abspath(argv[2]))
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

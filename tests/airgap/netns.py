#!/usr/bin/env python3
"""netns.py — run steps inside a fresh network namespace that has only
loopback, for the air-gap tests (tests/airgap/README.md).

    netns.py available            exit 0 if a namespace can be made, else
                                  print why and exit 77
    netns.py run JOB RESULT       (outer) run JOB inside a new namespace
    netns.py inside JOB RESULT    (in the namespace; started by `run`)

JOB is a JSON file: {"env": {...}, "serve": DIR or null, "serve_bundle":
{"dir": BUNDLE, "work": W, "port": P} or null, "steps": [{"name": N,
"argv": [...], "env": {...} (optional, instead of the job's), "cwd": D
(optional)}...]}. Inside, loopback is brought up with `ip link set lo up`,
the namespace is proven to have no network (its only link is lo, no
default route, connects to public addresses fail, a connect to a listener
on 127.0.0.1 succeeds), then nginx serves DIR on 127.0.0.1 when asked
(servers.py's fixture config) or serves BUNDLE with the server block of
BUNDLE/README (tests/fixtures/bundle_site.py; on port P, or a free one);
its URL replaces @URL@ in the steps' arguments; then each step runs.
RESULT gets {"isolation": [...problems], "steps": [{"name", "rc",
"stdout", "stderr"}]}, when serving "url", and "error" when the server
could not start or a step could not run. Standard library only."""

import json
import os
import shutil
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import bundle_site  # noqa: E402
import servers  # noqa: E402

SKIP = 77
# Public addresses a machine with any route out would reach (Cloudflare's
# and Google's resolvers): inside the namespace each connect must fail.
PUBLIC = [(socket.AF_INET, ("1.1.1.1", 443)), (socket.AF_INET, ("8.8.8.8", 53)),
          (socket.AF_INET6, ("2606:4700:4700::1111", 443))]


def prefixes():
    """The unshare command lines to try: a network namespace alone (root),
    then one inside a user namespace (an unprivileged user)."""
    return [["unshare", "-n"], ["unshare", "-r", "-n"]]


def namespace_prefix():
    """(prefix, None) for the first unshare form that works, else (None,
    why). A missing unshare is no reason to skip: scripts/install-deps
    installs util-linux, so that is a failure (raised)."""
    if shutil.which("unshare") is None:
        raise RuntimeError("unshare not found (util-linux; scripts/install-deps installs it)")
    why = []
    for p in prefixes():
        r = subprocess.run(p + ["true"], capture_output=True, text=True)
        if r.returncode == 0:
            return p, None
        why.append("`%s true` exited %d: %s" % (" ".join(p), r.returncode, r.stderr.strip()))
    return None, "; ".join(why)


def ip(*args):
    r = subprocess.run(["ip"] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def isolation_problems():
    """Everything that shows the namespace is not loopback-only (empty if
    it is). Brings lo up first."""
    problems = []
    if shutil.which("ip") is None:
        return ["ip not found (iproute2; scripts/install-deps installs it)"]
    rc, out = ip("link", "set", "lo", "up")
    if rc != 0:
        problems.append("ip link set lo up exited %d: %s" % (rc, out.strip()))
    rc, out = ip("-o", "link", "show")
    links = [line.split(":")[1].strip() for line in out.splitlines() if ":" in line]
    if rc != 0 or links != ["lo"]:
        problems.append("the namespace's links are %s, not only lo" % links)
    for fam in ("-4", "-6"):
        rc, out = ip(fam, "route", "show")
        if "default" in out:
            problems.append("a default route (%s): %s" % (fam, out.strip()))
    for fam, addr in PUBLIC:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(addr)
            problems.append("connected to %s:%d" % addr)
        except OSError:
            pass
        finally:
            s.close()
    problems += loopback_problems()
    return problems


def loopback_problems():
    """A connect to a listener on 127.0.0.1 must succeed: the failures
    above are then the missing network, not a broken socket layer."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        c = socket.create_connection(srv.getsockname(), timeout=5)
        c.close()
        return []
    except OSError as e:
        return ["loopback does not work: %s" % e]
    finally:
        srv.close()


def run_steps(job, url):
    out = []
    for st in job["steps"]:
        argv = [a.replace("@URL@", url or "") for a in st["argv"]]
        r = subprocess.run(argv, env=st.get("env", job["env"]), cwd=st.get("cwd"),
                           capture_output=True, text=True, timeout=600)
        out.append({"name": st["name"], "rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr})
    return out


def inside(job_path, result_path):
    job = json.load(open(job_path))
    res = {"isolation": isolation_problems(), "steps": []}
    ng = bundle_proc = None
    try:
        if not res["isolation"]:
            if job.get("serve"):
                ng = servers.Nginx(job["serve"], work=job["serve_work"])
                ng.start()
                res["url"] = ng.url
            elif job.get("serve_bundle"):
                sb = job["serve_bundle"]
                bundle_proc, res["url"] = bundle_site.nginx_from_readme(sb["dir"], sb["work"], sb.get("port"))
            res["steps"] = run_steps(job, res.get("url"))
    except (servers.ServerError, OSError, subprocess.SubprocessError) as e:
        # reported in RESULT: the outer side judges it
        res["error"] = "%s: %s" % (type(e).__name__, e)
    finally:
        if ng:
            ng.stop()
        if bundle_proc:
            bundle_site.stop(bundle_proc)
        with open(result_path, "w") as f:
            json.dump(res, f)
    return 0


def run(job_path, result_path, prefix=None):
    """Runs the job in a new namespace; returns the result dict."""
    if prefix is None:
        prefix, why = namespace_prefix()
        if prefix is None:
            raise RuntimeError("no network namespace: " + why)
    r = subprocess.run(prefix + [sys.executable, os.path.abspath(__file__), "inside", job_path,
                                 result_path], capture_output=True, text=True, timeout=1800)
    if r.returncode != 0 or not os.path.exists(result_path):
        raise RuntimeError("the namespace run exited %d: %s" % (r.returncode, r.stderr.strip()))
    return json.load(open(result_path))


def main(argv):
    if len(argv) >= 1 and argv[0] == "available":
        p, why = namespace_prefix()
        if p is None:
            print("skip: no network namespace can be made here: " + why)
            return SKIP
        print("network namespaces: `%s`" % " ".join(p))
        return 0
    if len(argv) == 3 and argv[0] == "inside":
        return inside(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "run":
        print(json.dumps(run(argv[1], argv[2]), indent=1))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

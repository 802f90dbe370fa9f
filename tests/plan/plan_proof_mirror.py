#!/usr/bin/env python3
"""plan_proof_mirror.py STATE — the plans' install steps fetch from the
site's mirrors, proven by the real installers (issue 9).

Uses the plan proof's state (plan_proof.py setup: the lock of
plan-proof.scn, its mirror served by nginx and Verdaccio) and its tool
runners. `envlock plan` runs with --mirror mapping each canonical source the
lock installs from (its PyPI index, its npm registry, its apt archive) to
where the proof serves it; then the datalayer plan's own steps run with
the URLs the plan names, none supplied by the test:
  pip   `pip install --dry-run --no-deps --require-hashes` of the plan's
        requirements.txt with the Python step's --index-url;
  npm   the plan's `npm ci` with its --registry (every other address goes
        to a closed proxy);
  apt   `apt-get update` + `apt-get -s install` of the plan's pins over the
        plan's apt-sources.list (the test adds only `signed-by=` the
        fixture key, which a site's image would carry).
Each must install exactly the lock's packages, and each URL must be the
mapped one (so none of this can pass by reading the canonical index)."""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plan_proof as pp  # noqa: E402


def mapped(url, canonical, target):
    c = canonical.rstrip("/")
    return target.rstrip("/") + url[len(c):] if url.startswith(c) else url


def plan_with_mirrors(ctx, mapping):
    out = os.path.join(ctx.work, "plan")
    args = []
    for c, t in mapping:
        args += ["--mirror", "%s=%s" % (c, t)]
    rc, js, o, e = pp.run_envlock(ctx.info, args + ["--json", "plan", ctx.info["spec"], ctx.info["lock"],
                                                    "-o", out, "--bases", ctx.info["catalog"],
                                                    "--variant", "datalayer"],
                                  os.path.join(ctx.work, "home"))
    if rc != 0:
        raise pp.Fail("plan with mirrors exited %d: %s %s" % (rc, o.strip(), e.strip()))
    if js["lockDigest"] != ctx.lock.digest:
        raise pp.Fail("the plan names lock %s, not %s" % (js["lockDigest"], ctx.lock.digest))
    ctx.info = dict(ctx.info, plan={"rc": 0, "dir": out, "stdout": o, "stderr": e})


def pip_problems(ctx, served):
    words, local = pp.python_step_of_dockerfile(ctx, "datalayer")
    idx = pp.option_value(words, "--index-url", "-i")
    if idx != [served]:
        return ["the Python step reads %s, not the mapped index %s" % (idx, served)]
    ctx.pypi_url = lambda: idx[0]  # pip reads what the plan says
    req = pp.option_value(words, "-r", "--requirement")
    return pp.check_pip(ctx, local(req[0]), ctx.lock.pypi_installs(), "mirrored plan")


def npm_problems(ctx, served):
    words = pp.npm_step_words(ctx, "datalayer")
    reg = pp.option_value(words or [], "--registry")
    if reg != [served]:
        return ["the npm step's registry is %s, not the mapped %s" % (reg, served)]
    ctx.info = dict(ctx.info, npm_url=reg[0])  # npm_ci passes exactly this --registry
    cmd = [w for w in words[words.index("npm"):] if w not in ("--registry", reg[0])]
    d = ctx.variant_dir("datalayer")
    got = pp.npm_ci(ctx, os.path.join(d, "package.json"), os.path.join(d, "package-lock.json"),
                    "mirrored", cmd)
    return pp.tree_problems(ctx, got, "mirrored plan")


def apt_problems(ctx, served):
    text = pp.read(os.path.join(ctx.variant_dir("datalayer"), "apt-sources.list"))
    lines = [ln for ln in text.split("\n") if ln.startswith("deb ")]
    uris = {re.sub(r"^deb (\[[^\]]*\] )?", "", ln).split()[0].rstrip("/") for ln in lines}
    if uris != {served.rstrip("/")}:
        return ["apt-sources.list names %s, not the mapped %s" % (sorted(uris), served)]
    sources = "\n".join(re.sub(r"^deb \[([^\]]*)\]", r"deb [\1 signed-by=%s]" % ctx.info["keyring"], ln)
                        for ln in lines) + "\n"
    pins = pp.pins_of_text(pp.read(os.path.join(ctx.variant_dir("datalayer"), "apt-packages.txt")))
    return pp.apt_problems(ctx, pins, "mirrored plan", sources)


def main(state):
    with open(pp.state_file(state)) as f:
        info = json.load(f)
    ctx = pp.Ctx(state, info, "mirror")
    pypi_src, npm_src = ctx.lock.pypi_sources(), ctx.lock.npm_sources()
    apt_src = sorted({u for u, _s, _c in ctx.lock.apt_sources()})
    if len(pypi_src) != 1 or len(npm_src) != 1 or len(apt_src) != 1:
        raise pp.Fail("the proof's lock installs from %s %s %s; one source each expected"
                      % (pypi_src, npm_src, apt_src))
    served_pypi = ctx.pypi_url().rstrip("/")
    apt_target = info["url"] + "apt"
    mapping = [(pypi_src[0], served_pypi), (npm_src[0], info["npm_url"]), (apt_src[0], apt_target)]
    plan_with_mirrors(ctx, mapping)
    problems = pip_problems(ctx, mapped(pypi_src[0], pypi_src[0], served_pypi))
    problems += npm_problems(ctx, mapped(npm_src[0], npm_src[0], info["npm_url"]))
    problems += apt_problems(ctx, apt_target)
    return problems


if __name__ == "__main__":
    try:
        probs = main(sys.argv[1])
    except pp.agree.Skip as s:
        print("SKIP: %s" % s)
        sys.exit(pp.SKIP)
    except pp.Fail as e:
        probs = [str(e)]
    for p in probs:
        print("FAIL: " + p)
    sys.exit(1 if probs else 0)

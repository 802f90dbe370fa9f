#!/usr/bin/env python3
"""check_cli.py CASE ENVLOCK — `envlock check` against served fixture mirrors.

Cases:
  online       corpus/scenarios/cross-pypi-npm-apt.scn served by nginx
               (tests/fixtures/servers.py: real ETags, PEP 691 negotiation,
               abbreviated packuments, a signed apt suite). Resolve, then:
               check is up to date (every input re-read through the cache and
               the mirrors gives the identity the lock holds — the content
               identities of PyPI pages and npm packuments, InRelease sha256
               + Date); the same content in new bytes (new ETags) is still up
               to date; a project page with a file yanked and a packument with
               a new dist-tag are "input changed" lines naming them (exit 1,
               text and --json); a removed page is "input gone"; with the
               server stopped, --offline compares with the cache (a copy
               taken after the resolve: up to date; the refreshed one: the same
               changes), and a cold cache offline is up to date with one
               "not compared" note per input.
  file-cutoff  tests/check_cli/file-mirror-cutoff.scn through file:// mirrors
               with its --exclude-newer: the directory's index.json carries
               the upload times, so the too-new uploads are excluded.

Exit 0 pass, 1 fail, 77 skip (nginx, gpg or dpkg-deb missing). Standard
library only; reuses the scenario runner's catalog and mirror helpers.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
sys.path.insert(0, os.path.join(REPO, "tests", "scenarios"))
import run_scenarios as rs  # noqa: E402
import scenario as scn  # noqa: E402
import servers  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def clean_env(work):
    env = dict(os.environ)
    for k in ("ENVLOCK_MIRRORS", "ENVLOCK_CONFIG", "ENVLOCK_BASES", "ENVLOCK_CACHE_DIR"):
        env.pop(k, None)
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-config")
    return env


def run(envlock, work, args):
    p = subprocess.run([envlock] + args, capture_output=True, text=True, env=clean_env(work),
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def lock_inputs(path):
    """(ecosystem, url) of the lock's inputs, in its order."""
    out, eco = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("- ecosystem: ") and eco is None:
                eco = line.split(": ", 1)[1].strip()
            elif line.startswith("  url: ") and eco is not None:
                out.append((eco, json.loads(line.split(": ", 1)[1])))
                eco = None
            elif line.startswith("packages:"):
                break
            elif not line.startswith(" ") and not line.startswith("-"):
                eco = None
    return out


def case_online(envlock):
    if not os.path.exists(servers.NGINX):
        print("SKIP: nginx is not installed (%s)" % servers.NGINX)
        return 77
    if not shutil.which("gpg") or not shutil.which("dpkg-deb"):
        print("SKIP: gpg and dpkg-deb are needed for the apt suite")
        return 77
    path = os.path.join(REPO, "corpus", "scenarios", "cross-pypi-npm-apt.scn")
    sc = scn.parse(path)
    _flags, cat = rs.parse_options(sc)
    work = tempfile.mkdtemp(prefix="check-online-")
    try:
        with servers.mirror([path], verdaccio=False, workdir=os.path.join(work, "m")) as m:
            base = m.nginx.url
            man = m.manifest
            mirrors = []
            for name, canon in sorted(man["pypi-indexes"].items()):
                mirrors += ["--mirror", "%s=%s/pypi/%s" % (canon[: -len("/simple")], base, name)]
            mirrors += ["--mirror", "%s=%s/npm" % (rs.NPM_DEFAULT, base)]
            for url in sorted(set(man["apt-suites"].values())):
                mirrors += ["--mirror", "%s=%s/apt" % (url.rstrip("/"), base)]
            catalog = os.path.join(work, "catalog", "bases.yaml")
            os.makedirs(os.path.dirname(catalog))
            rs.write_catalog(catalog, sc, man, m.root, cat, True)
            spec = os.path.join(work, "spec.yaml")
            with open(spec, "w") as f:
                f.write(sc.spec_text)
            lock = os.path.join(work, "envlock.lock")
            cache = os.path.join(work, "cache")
            common = ["--cache-dir", cache] + mirrors
            rc, out, err = run(envlock, work, common + ["resolve", spec, "-o", lock, "--bases", catalog])
            if rc != 0:
                check(False, "resolve failed (%d): %s %s" % (rc, out, err))
                return 1
            inputs = lock_inputs(lock)
            check(sorted(e for e, _ in set(inputs)) == ["deb", "npm", "npm", "pypi", "pypi"],
                  "the lock records pages, packuments and a Release: %s" % inputs)
            chk = common + ["check", spec, lock, "--bases", catalog]

            rc, out, err = run(envlock, work, chk)
            check(rc == 0 and out == "%s is up to date for %s\n" % (lock, spec),
                  "unchanged inputs: up to date (%d): %s %s" % (rc, out, err))
            snap = os.path.join(work, "cache-after-resolve")
            shutil.copytree(cache, snap)
            log = os.path.join(m.nginx.work, "access.log")
            with open(log) as f:
                seen = f.read()
            check("/pypi/pypi/simple/dbproto/ HTTP" in seen and "/npm/tinycolor HTTP" in seen
                  and "/apt/dists/bookworm/InRelease HTTP" in seen,
                  "check asked the mirror for every input:\n" + seen)
            check(" 304 " in seen, "conditional requests answered 304:\n" + seen)

            # The same content in other bytes: nginx's ETag (mtime and size)
            # changes, the identity (what the readers take from the documents,
            # docs/lock-format.md) does not.
            page = os.path.join(m.root, "pypi", "pypi", "simple", "dbproto", "index.json")
            with open(page) as f:
                doc = json.load(f)
            doc.setdefault("meta", {})["_last-serial"] = 99
            with open(page, "w") as f:
                json.dump(doc, f, indent=1)
            leaves = [os.path.join(m.root, "npm", "tinycolor", leaf)
                      for leaf in ("packument.json", "packument.install-v1")]
            leaves = [p for p in leaves if os.path.exists(p)]
            for p in leaves:
                with open(p, "a") as f:
                    f.write("\n\n")
            rc, out, err = run(envlock, work, chk)
            check(rc == 0 and out == "%s is up to date for %s\n" % (lock, spec),
                  "new bytes, same content: up to date (%d): %s %s" % (rc, out, err))

            # Another page and packument now: a file yanked, a dist-tag added.
            doc["files"][0]["yanked"] = "withdrawn"
            with open(page, "w") as f:
                json.dump(doc, f)
            for p in leaves:
                with open(p) as f:
                    pk = json.load(f)
                pk.setdefault("dist-tags", {})["next"] = sorted(pk["versions"])[0]
                with open(p, "w") as f:
                    json.dump(pk, f)
            rc, out, err = run(envlock, work, chk)
            lines = out.splitlines()
            check(rc == 1 and lines[0] == "%s is stale for %s:" % (lock, spec),
                  "changed inputs: stale, exit 1 (%d): %s %s" % (rc, out, err))
            changed = [ln.strip() for ln in lines[1:]]
            check(len(changed) == 2 and
                  changed[0].startswith("input changed: npm https://registry.npmjs.org/tinycolor content sha256:") and
                  changed[1].startswith("input changed: pypi https://pypi.org/simple/dbproto/ content sha256:"),
                  "the two changed inputs, by canonical URL: %s" % changed)
            check(base not in out, "no mirror URL in the report: %s" % out)
            rc, out, err = run(envlock, work, ["--json"] + chk)
            js = json.loads(out)
            check(rc == 1 and js["valid"] is False and len(js["changes"]) == 2 and
                  [c["text"] for c in js["changes"]] == changed and js["notes"] == [],
                  "--json: the same changes (%d): %s" % (rc, out))
            # each change as an object: what changed (the input's canonical
            # URL) and its identity in the lock and now
            with open(lock) as f:
                locked = f.read()
            urls = ["https://registry.npmjs.org/tinycolor", "https://pypi.org/simple/dbproto/"]
            check(all(c["kind"] == "input" and c["path"] == u and c["before"] and c["after"] and
                      c["before"] != c["after"] and c["before"] in locked and
                      c["after"] not in locked for c, u in zip(js["changes"], urls)),
                  "--json changes: kind, path, before (the lock's), after: %s" % out)

            # A project page the index no longer serves.
            shutil.rmtree(os.path.join(m.root, "pypi", "pypi", "simple", "dbclient"))
            rc, out, err = run(envlock, work, chk)
            # the finding names the line of the input's entry (`- ecosystem:`, above its url)
            with open(lock) as f:
                lock_text = f.read()
            url_at = lock_text.index('url: "https://pypi.org/simple/dbclient/"')
            entry = lock_text[:url_at].count("\n")  # the line above the url, 1-based
            check(rc == 1 and "  input gone: pypi https://pypi.org/simple/dbclient/ (not found) "
                  "(line %d)\n" % entry in out, "a removed page is gone (%d): %s %s" % (rc, out, err))

            m.stop()  # from here on nothing answers
            rc, out, err = run(envlock, work, ["--offline", "--cache-dir", snap] + mirrors +
                               ["check", spec, lock, "--bases", catalog])
            check(rc == 0 and out == "%s is up to date for %s\n" % (lock, spec) and err == "",
                  "offline, the cache the resolve filled: up to date (%d): %s %s" % (rc, out, err))
            rc, out, err = run(envlock, work, ["--offline"] + chk)
            check(rc == 1 and [ln.strip() for ln in out.splitlines()[1:]] == changed,
                  "offline, the refreshed cache: the same changes (%d): %s %s" % (rc, out, err))
            cold = os.path.join(work, "cold")
            rc, out, err = run(envlock, work, ["--offline", "--cache-dir", cold] + mirrors +
                               ["check", spec, lock, "--bases", catalog])
            want = ["note: input not compared: %s %s (offline and not in the cache)" % i
                    for i in sorted(inputs)]
            # the lock downloads debs: their Packages index is not in the cold cache either
            want.append("note: deb artifacts not confirmed: an apt index is not in the cache "
                        "(offline)")
            check(rc == 0 and out == "%s is up to date for %s\n" % (lock, spec) and
                  err.splitlines() == want,
                  "offline and cold: up to date, a note per input (%d): %s %s" % (rc, out, err))
            rc, out, err = run(envlock, work, ["--json", "--offline", "--cache-dir", cold] + mirrors +
                               ["check", spec, lock, "--bases", catalog])
            js = json.loads(out)
            check(rc == 0 and js["valid"] is True and js["changes"] == [] and
                  js["notes"] == [w[len("note: "):] for w in want],
                  "--json offline and cold: the notes (%d): %s" % (rc, out))
    finally:
        if os.environ.get("CHECK_KEEP") == "1":
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if FAILS else 0


def case_file_cutoff(envlock):
    path = os.path.join(HERE, "file-mirror-cutoff.scn")
    sc = scn.parse(path)
    flags, cat = rs.parse_options(sc)
    check(flags == ["--exclude-newer", "2025-03-01T00:00:00Z"], "the scenario's cutoff: %s" % flags)
    work = tempfile.mkdtemp(prefix="check-file-cutoff-")
    try:
        with open(os.path.join(work, "spec.yaml"), "w") as f:
            f.write(sc.spec_text)
        mdir = os.path.join(work, "mirror")
        man = rs.build_mirror(sc, mdir, os.path.join(work, "gnupg"), False, False)
        os.makedirs(mdir + ".catalog")
        rs.write_catalog(os.path.join(mdir + ".catalog", "bases.yaml"), sc, man, mdir, cat, False)
        flags_ = rs.mirror_flags(man, mdir)
        check(all(not f.startswith("http") or "=file://" in f for f in flags_ if "=" in f),
              "every mirror is file://: %s" % flags_)
        res = rs.resolve(envlock, work, "file", man, mdir, flags, None)
        got = rs.project(res["lock"]) if res["status"] == 0 else [rs.describe(res)]
        want = rs.block_lines(sc.blocks["expect-lock"])
        check(got == want, "file:// mirror with a cutoff: %s, expected %s" % (got, want))
        if res["status"] == 0:
            check('excludeNewer: "2025-03-01T00:00:00Z"' in res["lock"] or
                  "excludeNewer: 2025-03-01T00:00:00Z" in res["lock"], "the cutoff is recorded")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if FAILS else 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("online", "file-cutoff"):
        sys.stderr.write("usage: check_cli.py online|file-cutoff ENVLOCK\n")
        return 2
    envlock = os.path.abspath(sys.argv[2])
    rc = case_online(envlock) if sys.argv[1] == "online" else case_file_cutoff(envlock)
    if rc == 0:
        print("PASS")
    return rc


if __name__ == "__main__":
    sys.exit(main())

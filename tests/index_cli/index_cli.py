#!/usr/bin/env python3
"""CLI tests of `envlock index show` against a fixture mirror.

    index_cli.py ENVLOCK CASE          (CASE: pypi npm deb spec bad_query offline_cold)
    index_cli.py ENVLOCK --regen       rewrite expected/*.txt from this build

The scenarios pypi-yanked-requires-python, npm-basic and deb-basic are built
and served together by nginx (tests/fixtures/servers.py). Each canonical
index (https://pypi.org, https://registry.npmjs.org, the Debian archive) is
mapped to the mirror with --mirror, as a user on-prem would. The text output
is compared with expected/<case>.txt, where @MIRROR@ stands for the mirror's
base URL (the only thing that changes between runs); the --json output is
checked for its facts and for naming no mirror URL at all: what index show
(and so a lock) records is canonical. The spec case gives the target by
--spec: a spec on the catalog's python-cpu 2026.09 base reads the same
target as no spec (expected/pypi.txt), a spec on a base the catalog does
not approve is refused, and the catalog is read once (when strace is
installed). Exit 0 pass, 1 fail, 77 skip (no nginx). Standard library
only.
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
import servers  # noqa: E402
import specs  # noqa: E402

SCN = [os.path.join(REPO, "corpus", "scenarios", n + ".scn")
       for n in ("pypi-yanked-requires-python", "npm-basic", "deb-basic")]
APT_SOURCE = "deb http://deb.debian.org/debian bookworm main"
QUERIES = {
    "pypi": ["pypi:numpy"],
    "npm": ["npm:zod"],
    "deb": ["deb:gdal-bin", "--apt-source", APT_SOURCE],
}
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


class Cli:
    def __init__(self, envlock, tmp, m=None):
        self.envlock = envlock
        self.cache = os.path.join(tmp, "cache")
        home = os.path.join(tmp, "home")
        os.makedirs(home, exist_ok=True)
        # No user config, mirrors, npm credentials or cache from the caller.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("ENVLOCK_") and not k.lower().startswith("npm_config")
                    and k not in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
        self.env.update(HOME=home, ENVLOCK_CONFIG=os.path.join(tmp, "config"))
        self.m = m
        self.base = m.nginx.url.rstrip("/") if m else "http://127.0.0.1:9"
        self.mirrors = ["--mirror", "https://pypi.org=%s/pypi/pypi" % self.base,
                        "--mirror", "https://registry.npmjs.org=%s/npm" % self.base,
                        "--mirror", "http://deb.debian.org/debian=%s/apt" % self.base]
        self.keyring = ["--keyring", m.keyring] if m else []

    def run(self, args, json_out=False, offline=False, prefix=()):
        cmd = list(prefix) + [self.envlock] + (["--json"] if json_out else [])
        cmd += ["--cache-dir", self.cache]
        cmd += (["--offline"] if offline else []) + self.mirrors + ["index", "show"] + args
        if args and args[0].startswith("deb:"):
            cmd += self.keyring
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=90)
        return p.returncode, p.stdout, p.stderr


def urls_in(doc):
    """Every string in a JSON document that looks like a URL."""
    out = []
    if isinstance(doc, dict):
        for v in doc.values():
            out += urls_in(v)
    elif isinstance(doc, list):
        for v in doc:
            out += urls_in(v)
    elif isinstance(doc, str) and "://" in doc:
        out.append(doc)
    return out


def expected_path(case):
    return os.path.join(HERE, "expected", case + ".txt")


def check_json(case, doc, cli):
    canon = {"pypi": "https://pypi.org/", "npm": "https://registry.npmjs.org/",
             "deb": "http://deb.debian.org/debian/"}[case]
    urls = urls_in(doc)
    check(urls, "%s: the JSON names URLs" % case)
    for u in urls:
        check(u.startswith(canon), "%s: URL %s is canonical (under %s)" % (case, u, canon))
    check(cli.base not in json.dumps(doc), "%s: no mirror URL anywhere in the JSON" % case)
    if case == "pypi":
        check([c["version"] for c in doc["candidates"]] == ["2.3.0", "2.2.6"], "pypi candidates")
        ex = {c["version"]: c for c in doc["excluded"]}
        check(ex["2.3.1"]["reason"] == "yanked" and ex["2.3.1"]["yanked"] == "broken ABI on manylinux",
              "pypi yanked with its reason: %s" % ex.get("2.3.1"))
        check(ex["2.4.0"]["reason"] == "requires_python", "pypi requires-python exclusion")
    elif case == "npm":
        check(doc["dist-tags"] == {"latest": "3.23.8", "next": "4.0.0-beta.1"}, "npm dist-tags")
        check(all("tarball_rebased" in c["flags"] for c in doc["candidates"]), "npm tarballs mapped back")
    else:
        c = doc["candidates"][0]
        check(c["name"] == "gdal-bin" and c["version"] == "3.6.2+dfsg-1+b2", "deb candidate")
        check(c["artifact"]["url"] ==
              "http://deb.debian.org/debian/pool/main/g/gdal/gdal-bin_3.6.2+dfsg-1+b2_amd64.deb",
              "deb artifact URL: %s" % c["artifact"]["url"])


def case_ecosystem(cli, case, regen=False):
    args = QUERIES[case]
    rc, out, err = cli.run(args)
    check(rc == 0 and not err, "%s text: exit %d, stderr %r" % (case, rc, err))
    text = out.replace(cli.base, "@MIRROR@")
    if regen:
        with open(expected_path(case), "w") as f:
            f.write(text)
        return
    with open(expected_path(case)) as f:
        want = f.read()
    if text != want:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                   "expected/%s.txt" % case, "stdout"))
    check(text == want, "%s text output as in expected/%s.txt" % (case, case))
    rc, out, err = cli.run(args, json_out=True)
    check(rc == 0, "%s --json: exit %d %s" % (case, rc, err))
    doc = json.loads(out)
    check_json(case, doc, cli)
    # warm and offline: the same answers from the cache alone
    rc, out2, err = cli.run(args, offline=True)
    check(rc == 0 and out2.replace(cli.base, "@MIRROR@") == text,
          "%s --offline from a warm cache: same text (exit %d, %s)" % (case, rc, err))
    rc, out3, err = cli.run(args, json_out=True, offline=True)
    d3 = json.loads(out3) if rc == 0 else None
    if d3 is not None:
        doc.pop("from_cache", None), d3.pop("from_cache", None)
    check(rc == 0 and d3 == doc, "%s --json --offline: same answer" % case)


def case_spec(cli, tmp):
    """--spec supplies the target: the catalog's entry for the spec's base."""
    good = os.path.join(tmp, "good.yaml")
    with open(good, "w") as f:
        f.write(specs.base_spec("index-spec", "    python:\n      dependencies:\n        - numpy\n"))
    rc, out, err = cli.run(QUERIES["pypi"] + ["--spec", good])
    with open(expected_path("pypi")) as f:
        want = f.read()
    check(rc == 0 and out.replace(cli.base, "@MIRROR@") == want,
          "--spec on python-cpu 2026.09: the text of expected/pypi.txt (exit %d, %r)" % (rc, err))
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write(specs.base_spec("index-spec", "    python:\n      dependencies:\n        - numpy\n")
                .replace("datalayer/python-cpu", "datalayer/python-unapproved"))
    rc, out, err = cli.run(QUERIES["pypi"] + ["--spec", bad])
    check(rc == 10 and out == "" and "spec.base.ref" in err and "DL_ENV_SPEC_INVALID" in err,
          "--spec on an unapproved base: refused (exit %d, %r)" % (rc, err))
    strace = shutil.which("strace")
    if strace:
        trace = os.path.join(tmp, "trace")
        # LeakSanitizer cannot run under ptrace: an ASan build traced
        # without it would abort (the sanitized runs check leaks elsewhere)
        asan = ":".join(x for x in (os.environ.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
        rc, out, err = cli.run(QUERIES["pypi"] + ["--spec", good],
                               prefix=[strace, "-f", "-e", "trace=openat", "-o", trace,
                                       "env", "ASAN_OPTIONS=" + asan])
        lines = open(trace).readlines() if os.path.exists(trace) else []
        if not lines:  # ptrace not allowed here: nothing to count
            print("strace could not trace (%r): the catalog reads are not counted" % err)
            return
        opens = [line for line in lines if "bases.yaml" in line and "ENOENT" not in line]
        check(rc == 0 and len(opens) == 1,
              "--spec: the catalog is read once (exit %d, %d opens)" % (rc, len(opens)))


def case_bad_query(cli):
    for q, msg in (("foo", "`foo` does not name a package as ECOSYSTEM:NAME"),
                   ("cargo:x", "`cargo` is not an ecosystem; the ecosystems are pypi, npm, deb")):
        rc, out, err = cli.run([q])
        check(rc == 10, "%s: exit 10, got %d" % (q, rc))
        check(out == "" and "DL_ENV_SPEC_INVALID" in err and msg in err, "%s: message %r" % (q, err))
        rc, out, err = cli.run([q], json_out=True)
        doc = json.loads(out) if out.strip() else {}
        check(rc == 10 and doc.get("code") == "DL_ENV_SPEC_INVALID" and msg in doc.get("message", "")
              and doc.get("detail", {}).get("reason") == "invalid_query", "%s --json: %r" % (q, out))
    rc, out, err = cli.run(["pypi:not a name"])
    check(rc == 10 and "is not a PyPI project name" in err, "invalid PyPI name: %d %r" % (rc, err))


def case_offline_cold(cli):
    want = {"pypi": "https://pypi.org/simple/numpy/",
            "npm": "https://registry.npmjs.org/zod",
            "deb": "http://deb.debian.org/debian/dists/bookworm/InRelease"}
    for case, url in want.items():
        rc, out, err = cli.run(QUERIES[case], offline=True)
        check(rc == 25 and "offline and %s is not in the cache" % url in err,
              "%s offline cold: exit 25 naming %s (got %d %r)" % (case, url, rc, err))
        rc, out, err = cli.run(QUERIES[case], json_out=True, offline=True)
        doc = json.loads(out) if out.strip() else {}
        check(rc == 25 and doc.get("code") == "DL_ENV_PACKAGE_NOT_FOUND"
              and doc.get("detail", {}).get("reason") == "offline_cache_miss"
              and doc.get("detail", {}).get("url") == url,
              "%s offline cold --json: %r" % (case, out))


def main():
    envlock, case = sys.argv[1], sys.argv[2]
    if not os.access(servers.NGINX, os.X_OK):
        print("nginx not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="envlock-index-cli-")
    try:
        if case in ("bad_query", "offline_cold"):
            # no server needed: nothing may be fetched
            cli = Cli(envlock, tmp)
            (case_bad_query if case == "bad_query" else case_offline_cold)(cli)
        else:
            with servers.mirror(SCN, verdaccio=False, workdir=os.path.join(tmp, "m")) as m:
                cli = Cli(envlock, tmp, m)
                if case == "--regen":
                    for c in QUERIES:
                        case_ecosystem(cli, c, regen=True)
                elif case == "spec":
                    case_spec(cli, tmp)
                else:
                    case_ecosystem(cli, case)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

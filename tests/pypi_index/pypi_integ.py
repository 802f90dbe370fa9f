#!/usr/bin/env python3
"""Integration tests of the PyPI index reader against the fixture PyPI tree
served by nginx (tests/fixtures/servers.py) or read through file:// URLs.

    pypi_integ.py TOOL CASE

TOOL is pypi_index_tool (runs pypi_index_show for one name). Every case
builds the scenario(s) it needs into a private temp dir, serves them on
127.0.0.1, maps the canonical index URLs to the mirror with --mirror (as
el_cache_options.mirrors), and checks the JSON answer or the failure.
Exit 0 pass, 1 fail, 77 skip (no nginx). Standard library only.
"""

import hashlib
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

SCN = os.path.join(REPO, "corpus", "scenarios")
TOOL = None
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(args, cache, expect_ok=True):
    cmd = [TOOL, "--cache-dir", cache, "--json"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.stderr:
        sys.stderr.write(p.stderr)
    try:
        out = json.loads(p.stdout)
    except ValueError:
        raise AssertionError("not JSON from %s: %r" % (cmd, p.stdout[:500]))
    if expect_ok and p.returncode != 0:
        raise AssertionError("%s failed: %s" % (cmd, p.stdout))
    if not expect_ok and p.returncode != 1:
        raise AssertionError("%s should fail: rc %d %s" % (cmd, p.returncode, p.stdout[:300]))
    return out


def by_version(doc):
    d = {c["version"]: c for c in doc["candidates"]}
    d.update({c["version"]: c for c in doc["excluded"]})
    return d


def access_log(m):
    with open(os.path.join(m.nginx.work, "access.log")) as f:
        return f.read()


class Env:
    """One served build of some scenarios, a cache dir and the mirror args."""

    def __init__(self, names, tmp):
        self.tmp = tmp
        self.cache = os.path.join(tmp, "cache")
        self.cm = servers.mirror([os.path.join(SCN, n + ".scn") for n in names],
                                 verdaccio=False, workdir=os.path.join(tmp, "m"))
        self.m = self.cm.__enter__()
        base = self.m.nginx.url
        self.mirrors = []
        for name, canon in self.m.manifest["pypi-indexes"].items():
            # The canonical host maps to the index's directory, so both the
            # /simple pages and the ../../files links they make resolve.
            host = canon[: -len("/simple")]
            self.mirrors += ["--mirror", "%s=%s/pypi/%s" % (host, base, name)]
        self.indexes = []
        for canon in self.m.manifest["pypi-indexes"].values():
            self.indexes += ["--index", canon]

    def file_mirrors(self):
        out = []
        for name, canon in self.m.manifest["pypi-indexes"].items():
            out += ["--mirror", "%s=file://%s/pypi/%s" % (canon[: -len("/simple")], self.m.root, name)]
        return out

    def show(self, name, *extra, expect_ok=True, cache=None, mirrors=None):
        return run(list(extra) + (self.mirrors if mirrors is None else mirrors) + self.indexes
                   + [name], cache or self.cache, expect_ok)

    def close(self):
        self.cm.__exit__(None, None, None)


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---------------------------------------------------------------- cases

def case_json_basic(tmp):
    e = Env(["pypi-basic"], tmp)
    try:
        doc = e.show("Requests")
        check(doc["format"] == "json", "PEP 691 JSON page over nginx")
        check(doc["index"] == "https://pypi.org/simple", "index recorded")
        v = by_version(doc)
        check(list(v) == ["2.31.0", "2.30.0"], "newest first: %s" % list(v))
        c = v["2.31.0"]
        check(c["metadata"] == "metadata-file", "deps from the .metadata file")
        check(c["requires_dist"][0] == "charset-normalizer<4,>=2" and len(c["requires_dist"]) == 6,
              "Requires-Dist: %s" % c["requires_dist"])
        check(c["extras"] == ["socks", "use-chardet-on-py3"], "extras %s" % c["extras"])
        check(c["upload_time"] == "2023-05-22T15:12:42Z", "upload time")
        check(c["requires_python"] == ">=3.7", "requires-python")
        whl = [a for a in c["artifacts"] if a["kind"] == "wheel"][0]
        check(c["chosen"] == whl["filename"] and whl["chosen"], "chosen wheel")
        path = os.path.join(e.m.root, "pypi", "pypi", "files", whl["filename"])
        check(whl["sha256"] == sha256_file(path), "sha256 from the page")
        check(whl["size"] == os.path.getsize(path), "size (PEP 700)")
        check(whl["url"] == "https://pypi.org/files/" + whl["filename"], "canonical URL: %s" % whl["url"])
        for a in c["artifacts"]:
            check("127.0.0.1" not in a["url"], "no mirror URL in the answer")
        log = access_log(e.m)
        check(".whl.metadata" in log, "the .metadata file was fetched")
        check(".whl HTTP" not in log, "no wheel was downloaded")
    finally:
        e.close()


def case_html_file(tmp):
    """A file:// mirror reads a project directory as an index answers: the
    PEP 691 index.json when it exists (the reader asks for JSON first; it
    carries upload times, so a cutoff works), else the PEP 503 index.html."""
    e = Env(["pypi-basic"], tmp)
    try:
        js = e.show("requests", mirrors=e.file_mirrors(), cache=os.path.join(tmp, "c-json"))
        check(js["format"] == "json", "PEP 691 JSON through file:// when index.json exists")
        check(by_version(js)["2.31.0"]["upload_time"] == "2023-05-22T15:12:42Z",
              "upload time through file://")
        for dirpath, _dirs, files in os.walk(os.path.join(e.m.root, "pypi")):
            if "index.json" in files:
                os.unlink(os.path.join(dirpath, "index.json"))
        doc = e.show("requests", mirrors=e.file_mirrors())
        check(doc["format"] == "html", "PEP 503 HTML through file:// without index.json")
        v = by_version(doc)
        check(len(v["2.31.0"]["requires_dist"]) == 6, "deps through HTML + .metadata")
        check(v["2.31.0"]["artifacts"][0]["url"].startswith("https://pypi.org/files/"),
              "canonical URLs from relative links")
        online = e.show("requests", cache=os.path.join(tmp, "c2"))
        check([c["requires_dist"] for c in online["candidates"]] ==
              [c["requires_dist"] for c in doc["candidates"]] ==
              [c["requires_dist"] for c in js["candidates"]], "HTML and JSON agree")
    finally:
        e.close()


def case_html_nginx(tmp):
    """A PEP 503-only index over HTTP: the reader asks for JSON, nginx answers
    text/html (no index.json), and Content-Type decides the parser."""
    e = Env(["pypi-basic"], tmp)
    try:
        for dirpath, _dirs, files in os.walk(os.path.join(e.m.root, "pypi")):
            if "index.json" in files:
                os.unlink(os.path.join(dirpath, "index.json"))
        doc = e.show("requests")
        check(doc["format"] == "html", "text/html page parsed as PEP 503: %s" % doc["format"])
        v = by_version(doc)
        check(len(v["2.31.0"]["requires_dist"]) == 6, "deps through HTML + .metadata over nginx")
        check(all(a["url"].startswith("https://pypi.org/files/") for a in v["2.31.0"]["artifacts"]),
              "canonical URLs from relative links")
        log = access_log(e.m)
        check("/simple/requests/ HTTP" in log, "page fetched over HTTP")
        # a warm run: the Content-Type comes from the cache entry
        again = e.show("requests")
        check(again["format"] == "html" and again["from_cache"], "cached page keeps its type: %s"
              % {k: again.get(k) for k in ("format", "from_cache")})
        # a cutoff: an HTML page has no upload times, so no file can be shown
        # to predate it and every version is out (uv's rule)
        cut = e.show("requests", "--exclude-newer", "2026-01-01T00:00:00Z")
        check(not cut["candidates"] and cut["excluded"], "HTML + cutoff: nothing usable")
        check(all(c["reason"] == "no_upload_time" and
                  c["message"] == "no upload time to compare with the cutoff 2026-01-01T00:00:00Z"
                  for c in cut["excluded"]),
              "HTML + cutoff: no_upload_time: %s" % [(c["version"], c["reason"]) for c in cut["excluded"]])
    finally:
        e.close()


def case_absolute_links(tmp):
    """A mirror whose pages link files absolutely, naming itself: the records
    (and so a lock) carry the canonical URLs, and fetches still go to it."""
    e = Env(["pypi-basic"], tmp)
    try:
        base = e.m.nginx.url.rstrip("/") + "/pypi/pypi/files/"
        for dirpath, _dirs, files in os.walk(os.path.join(e.m.root, "pypi", "pypi", "simple")):
            for f in ("index.json", "index.html"):
                if f in files:
                    p = os.path.join(dirpath, f)
                    with open(p) as fh:
                        text = fh.read()
                    with open(p, "w") as fh:
                        fh.write(text.replace("../../files/", base))
        for fmt in ("json", "html"):
            if fmt == "html":  # the same mirror without its PEP 691 pages
                for dirpath, _dirs, files in os.walk(os.path.join(e.m.root, "pypi")):
                    if "index.json" in files:
                        os.unlink(os.path.join(dirpath, "index.json"))
            doc = e.show("requests", cache=os.path.join(tmp, "c-" + fmt))
            check(doc["format"] == fmt, "format %s" % doc["format"])
            urls = [a["url"] for c in doc["candidates"] + doc["excluded"] for a in c.get("artifacts", [])]
            check(urls and all(u.startswith("https://pypi.org/files/") for u in urls),
                  "absolute mirror links mapped back (%s): %s" % (fmt, urls))
            check("127.0.0.1" not in json.dumps(doc), "no mirror URL anywhere in the answer (%s)" % fmt)
            check(len(by_version(doc)["2.31.0"]["requires_dist"]) == 6, "metadata fetched (%s)" % fmt)
        check(".whl.metadata HTTP" in access_log(e.m), "the .metadata came from the mirror")
    finally:
        e.close()


def case_multi_index(tmp):
    e = Env(["pypi-multi-index"], tmp)
    try:
        doc = e.show("acme_utils")
        check(doc["index"] == "https://pypi.internal.example/simple", "first index serves the name")
        v = by_version(doc)
        check(sorted(v) == ["1.3.2", "1.4.0"], "no version from the second index: %s" % list(v))
        check(v["1.4.0"]["metadata"] == "wheel", "no .metadata offered: read from the wheel")
        check(v["1.4.0"]["requires_dist"] == ["attrs>=23"], "wheel METADATA deps")
        check("acme_utils-1.4.0-py3-none-any.whl HTTP" in access_log(e.m), "wheel downloaded")
        attrs = e.show("attrs")
        check(attrs["index"] == "https://pypi.internal.example/simple", "attrs from internal")
        check([c["version"] for c in attrs["candidates"]] == ["22.2.0"], "no merging across indexes")
        lm = e.show("legacy-meta")
        check(lm["index"] == "https://pypi.org/simple", "second index when the first has no page")
        check(lm["candidates"][0]["metadata"] == "wheel", "no .metadata for this file: wheel")
    finally:
        e.close()


def case_sdist(tmp):
    e = Env(["pypi-wheel-tags"], tmp)
    try:
        ns = e.show("newstyle")
        c = ns["candidates"][0]
        check(c["metadata"] == "pkg-info" and c["requires_dist"] == ["pycparser>=2.20"],
              "PKG-INFO 2.2 usable: %s" % c)
        check(c["chosen"] == "newstyle-0.5.0.tar.gz", "sdist chosen")
        old = e.show("oldstyle")
        check(not old["candidates"] and old["excluded"][0]["reason"] == "sdist_needs_build",
              "PKG-INFO 2.1 needs a build")
        check("2.1" in old["excluded"][0]["message"], "message names the version")
        dyn = e.show("dynamicdeps")
        check(dyn["excluded"][0]["reason"] == "sdist_needs_build" and
              "dynamic" in dyn["excluded"][0]["message"], "dynamic Requires-Dist")
    finally:
        e.close()


def case_tags(tmp):
    e = Env(["pypi-wheel-tags"], tmp)
    try:
        fc = by_version(e.show("fastcore"))
        # 1.3.0's only wheel needs glibc 2.39: its static PKG-INFO 2.2 sdist stands in
        check(fc["1.3.0"].get("chosen") == "fastcore-1.3.0.tar.gz", "sdist fallback chosen")
        nb = by_version(e.show("fastcore", "--no-build"))
        check(nb["1.3.0"].get("reason") == "no_compatible_wheel", "glibc 2.39 wheel refused")
        check("no wheel for cp313 manylinux_2_36_x86_64; wheels exist for "
              "cp313-cp313-manylinux_2_39_x86_64; its sdist is not used (--no-build)"
              in nb["1.3.0"]["message"], nb["1.3.0"]["message"])
        ob = by_version(e.show("fastcore", "--only-binary", "FastCore"))
        check("its sdist is not used (--only-binary fastcore)" in ob["1.3.0"].get("message", ""),
              "--only-binary names the project")
        check(fc["1.2.0"]["chosen"] ==
              "fastcore-1.2.0-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
              "cp313 manylinux2014 x86_64 chosen")
        musl = by_version(e.show("fastcore", "--platform", "musllinux_1_2_x86_64"))
        check(musl["1.2.0"]["chosen"] == "fastcore-1.2.0-cp313-cp313-musllinux_1_1_x86_64.whl",
              "musllinux target")
        arm = by_version(e.show("fastcore", "--platform", "manylinux_2_36_aarch64"))
        check("aarch64" in arm["1.2.0"]["chosen"], "aarch64 target")
        py312 = by_version(e.show("fastcore", "--python", "3.12"))
        check("cp312" in py312["1.2.0"]["chosen"], "cp312 target")
        sc = e.show("stablecrypto")["candidates"][0]
        check(sc["chosen"] == "stablecrypto-44.0.0-cp39-abi3-manylinux_2_28_x86_64.whl",
              "newer abi3 preferred")
        old = e.show("stablecrypto", "--platform", "manylinux2014_x86_64")["candidates"][0]
        check(old["chosen"] == "stablecrypto-44.0.0-cp37-abi3-manylinux1_x86_64.manylinux2010_x86_64.whl",
              "legacy manylinux1 alias on an old glibc")
    finally:
        e.close()


def case_yanked_cutoff(tmp):
    e = Env(["pypi-yanked-requires-python"], tmp)
    try:
        np_ = by_version(e.show("numpy"))
        check(np_["2.4.0"].get("reason") == "requires_python" and
              np_["2.4.0"]["message"] == "needs Python >=3.14; the target is 3.13", "requires-python")
        check(np_["2.3.1"].get("reason") == "yanked" and
              np_["2.3.1"]["message"] == "yanked: broken ABI on manylinux", "yanked with reason")
        check("reason" not in np_["2.3.0"], "2.3.0 usable")
        cut = by_version(e.show("numpy", "--exclude-newer", "2026-02-15T00:00:00Z"))
        check(cut["2.3.1"].get("reason") == "after_cutoff", "after the cutoff")
        check("after the cutoff 2026-02-15T00:00:00Z" in cut["2.3.1"]["message"], cut["2.3.1"]["message"])
        check("reason" not in cut["2.3.0"], "2.3.0 before the cutoff")
        tl = by_version(e.show("tinylib"))
        check(tl["1.1.0"].get("message") == "yanked (no reason given)", "yank without a reason")
        py314 = by_version(e.show("numpy", "--python", "3.14"))
        check("reason" not in py314["2.4.0"], "3.14 target takes 2.4.0")
    finally:
        e.close()


def case_offline(tmp):
    e = Env(["pypi-basic"], tmp)
    try:
        warm = e.show("requests")
        again = e.show("requests", "--offline")
        check(not warm.pop("from_cache") and again.pop("from_cache"), "from_cache says where it came from")
        check(warm == again, "offline after a warm run: same answer")
        cold = e.show("requests", "--offline", cache=os.path.join(tmp, "cold"), expect_ok=False)
        check(cold["code"] == "DL_ENV_PACKAGE_NOT_FOUND", "cold offline code")
        check(cold["detail"]["reason"] == "offline_cache_miss", "offline_cache_miss")
        check(cold["detail"]["url"] == "https://pypi.org/simple/requests/", "names the URL")
    finally:
        e.close()


def case_fault_metadata_hash(tmp):
    e = Env(["pypi-basic"], tmp)
    try:
        path = os.path.join(e.m.root, "pypi", "pypi", "files", "requests-2.31.0-py3-none-any.whl.metadata")
        with open(path, "a") as f:
            f.write("Requires-Dist: evil\n")
        err = e.show("requests", expect_ok=False)
        check(err["code"] == "DL_ENV_PACKAGE_NOT_FOUND", "refused")
        check(err["detail"]["reason"] == "hash_mismatch", "hash_mismatch: %s" % err)
        check(err["detail"]["url"].endswith("requests-2.31.0-py3-none-any.whl.metadata"), "names the file")
        check(err["detail"]["package"] == "requests", "names the package")
    finally:
        e.close()


def case_fault_truncated_json(tmp):
    e = Env(["pypi-basic"], tmp)
    try:
        path = os.path.join(e.m.root, "pypi", "pypi", "simple", "requests", "index.json")
        with open(path) as f:
            body = f.read()
        with open(path, "w") as f:
            f.write(body[: len(body) // 2])
        err = e.show("requests", expect_ok=False)
        check(err["detail"]["reason"] == "invalid_page", "invalid_page: %s" % err)
        check("ends early" in err["message"], err["message"])
        check(err["detail"]["url"] == "https://pypi.org/simple/requests/", "canonical page URL")
    finally:
        e.close()


def case_fault_html_garbage(tmp):
    e = Env(["pypi-basic"], tmp)
    try:
        page = os.path.join(e.m.root, "pypi", "pypi", "simple", "idna", "index.html")
        with open(page) as f:
            good = f.read()
        anchor = good[good.index("<a "): good.index("</a>") + 4]
        with open(page, "wb") as f:
            f.write(b"\x00\xff<html><<<>><a href=>x</a><table><a\n" + anchor.encode() +
                    # a dead link with a hash (one with none is no_hash before it is fetched)
                    b"<a href='../../files/idna-0.0-py3-none-any.whl#sha256=" + b"ab" * 32 + b"'>" +
                    b"\xfe" * 40 +
                    b"<!-- unterminated")
        # the garbage is the page a file:// mirror reads only without index.json
        os.unlink(os.path.join(os.path.dirname(page), "index.json"))
        doc = e.show("idna", mirrors=e.file_mirrors())
        check(doc["format"] == "html", "the HTML page was read: %s" % doc["format"])
        check([c["version"] for c in doc["candidates"]] == ["3.6"], "the good link survives: %s" % doc)
        check(doc["candidates"][0]["requires_dist"] == [], "and its metadata is read")
        dead = by_version(doc)["0.0"]
        check(dead["reason"] == "missing_file" and
              "https://pypi.org/files/idna-0.0-py3-none-any.whl" in dead["message"], "dead link: %s" % dead)
    finally:
        e.close()


def case_not_found(tmp):
    e = Env(["pypi-multi-index"], tmp)
    try:
        err = e.show("no-such-project", expect_ok=False)
        check(err["code"] == "DL_ENV_PACKAGE_NOT_FOUND", "code")
        check(err["detail"]["reason"] == "not_found", "reason")
        check("https://pypi.internal.example/simple" in err["message"] and
              "https://pypi.org/simple" in err["message"], "names the indexes: " + err["message"])
        one = run(e.mirrors + ["--index", "https://pypi.org/simple", "nothing-here"], e.cache, False)
        check(one["detail"]["index"] == "https://pypi.org/simple", "detail.index")
    finally:
        e.close()


def main():
    global TOOL
    TOOL = sys.argv[1]
    case = sys.argv[2]
    if not os.access(servers.NGINX, os.X_OK):
        print("nginx not found: skipped")
        return 77
    fn = globals().get("case_" + case)
    if not fn:
        print("unknown case", case)
        return 2
    tmp = tempfile.mkdtemp(prefix="envlock-pypi-integ-")
    try:
        fn(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

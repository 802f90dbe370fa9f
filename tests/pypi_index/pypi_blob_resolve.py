#!/usr/bin/env python3
"""pypi_blob_resolve.py ENVLOCK — project pages read from their parsed form
(indexes/pypi/pypi_page_blob.c) give the lock a parse gives, through the
real binary against the fixture nginx (tests/fixtures/servers.py) in its
validators-only mode: no max-age, so every page of a warm re-resolve is
revalidated and answered 304. Two workloads: bench/resolve's Python part
(the Data Science template over corpus/scenarios/bench-data-science.scn and
bench/resolve/protected.scn: PEP 691 JSON pages) and blob_html.scn beside
this file (PEP 503 HTML only: yanked, Requires-Python, metadata hashes, an
sdist, an md5-only file). For each:

1. cold resolve, cache C: lock L; every page parsed and its parsed form
   stored (ENVLOCK_DEBUG_STATS=1: "pypi parsed forms: 0 read, N written");
   R requests in all (pages and metadata);
2. warm resolve on C: every page revalidated, every page read from its
   parsed form (N read, 0 written), R requests, L's bytes;
3. every parsed form in C damaged (its last byte flipped): the cache refuses
   them, the pages are parsed again (0 read, N written), L's bytes;
4. warm again: N read, L's bytes;
5. every stored page body damaged (a byte of its frame flipped): the pages
   are asked for on demand and, their parsed forms verifying, their bodies
   are never read: N read, L's bytes, the damaged entries still there;
6. the bodies and the parsed forms damaged: reading a body on demand finds
   it damaged (removed), the page is fetched again and parsed (0 read, N
   written; N revalidated, then N more requests, each a 200), L's bytes;
7. warm again: N read, L's bytes;
8. every stored page body removed, the parsed forms kept: each page is
   fetched again (a 200, as from an index that sends no validators) with
   the same bytes, so its parsed form is read: N read, 0 written, none
   revalidated, L's bytes;
9. a fresh cache D, resolved cold with another mirror URL for the same
   server (localhost for 127.0.0.1): L's bytes, and the warm run on D reads
   D's forms (a form is keyed by the URL the page was read from; links are
   mapped back to canonical URLs on every read).

Exit 0 pass, 1 fail, 77 skip (no nginx). Standard library only."""

import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import blob_steps  # noqa: E402
import servers  # noqa: E402
import specs  # noqa: E402

DAMAGE = blob_steps.CacheDamage("pypi-page/", "https://pypi.org/simple/")

CATALOG = specs.test_catalog()

# (tag, the fixture index's name, scenarios, the spec's dependencies, what
# the lock must pin: worked out from the scenarios)
WORKLOADS = [
    ("json", "pypi", [os.path.join(REPO, "corpus", "scenarios", "bench-data-science.scn"),
              os.path.join(REPO, "bench", "resolve", "protected.scn")],
     "pandas, numpy, scipy, scikit-learn, matplotlib, seaborn, polars, pyarrow, openpyxl, "
     "statsmodels", ["numpy", "pandas"]),
    # blobapp 2.0 needs Python 3.14; blobdep 1.3 and 1.2 are yanked, 1.0
    # has an md5 alone: blobapp 1.1 and blobdep 1.1 (its metadata from the
    # wheel: no .metadata file)
    ("html", "htmlonly", [os.path.join(HERE, "blob_html.scn")], "blobapp, blobdep",
     ["blobapp==1.1", "blobdep==1.1"]),
]

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def resolve(envlock, work, url, cache, lock):
    """envlock resolve; returns (status, stderr, [crawl runs], (read, written))."""
    with open(os.path.join(work, "index")) as f:
        index = f.read().strip()
    return blob_steps.resolve(envlock, work, cache, lock,
                              "https://pypi.org=%s/pypi/%s" % (url.rstrip("/"), index), "pypi")


def step(envlock, work, url, cache, what, want, want_forms, want_requests):
    """One warm resolve; want_requests = (requests, pages revalidated)."""
    out = os.path.join(work, what.replace(" ", "-") + ".lock")
    rc, err, runs, forms = resolve(envlock, work, url, cache, out)
    if rc != 0:
        fail("%s resolve exited %d: %s" % (what, rc, err[-2000:]))
        return
    got = (sum(r[1] for r in runs), sum(r[3] for r in runs))
    if got != want_requests:
        fail("%s: %d requests, %d pages revalidated, want %s (runs %s)"
             % (what, got[0], got[1], want_requests, runs))
    if forms != want_forms:
        fail("%s: parsed forms (read, written) %s, want %s" % (what, forms, want_forms))
    if blob_steps.read(out) != want:
        fail("%s: the lock differs from the cold resolve's" % what)
    print("%s: %d requests, %d revalidated, parsed forms %s" % (what, got[0], got[1], forms))


def cold(envlock, work, url, cache, what):
    """A cold resolve into `cache`: (lock bytes, pages parsed, requests) or None."""
    lock = os.path.join(work, cache + ".lock")
    rc, err, runs, forms = resolve(envlock, work, url, cache, lock)
    if rc != 0:
        fail("%s: cold resolve exited %d: %s" % (what, rc, err[-2000:]))
        return None
    if not forms or forms[0] != 0 or forms[1] == 0:
        fail("%s: cold resolve: want 0 parsed forms read and some written, got %s" % (what, forms))
        return None
    return blob_steps.read(lock), forms[1], sum(r[1] for r in runs)


def pins(lock_text):
    """The lock's PyPI packages as NAME==VERSION (and NAME alone)."""
    out = set()
    for m in re.finditer(r"^- ecosystem: pypi\n((?:  .*\n)*)", lock_text, re.M):
        name = re.search(r"^  name: \"?([^\s\"]+)", m.group(1), re.M)
        ver = re.search(r"^  version: \"?([^\s\"]+)", m.group(1), re.M)
        if name and ver:
            out.add(name.group(1))
            out.add("%s==%s" % (name.group(1), ver.group(1)))
    return out


def scenario(envlock, work, url, tag, index, deps, expect):
    with open(os.path.join(work, "index"), "w") as f:
        f.write(index)
    with open(os.path.join(work, "bases.yaml"), "w") as f:
        f.write(CATALOG)
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(specs.base_spec("pypi-blob-" + tag, "    python:\n      dependencies: [%s]" % deps))
    got = cold(envlock, work, url, "C", tag)
    if not got:
        return
    want, n, r = got
    have = pins(want.decode())
    missing = [p for p in expect if p not in have]
    if missing:
        fail("%s: the lock lacks %s (it pins %s)" % (tag, missing, sorted(have)))
    print("%s cold: %d pages parsed, their parsed forms stored, %d requests" % (tag, n, r))
    c = os.path.join(work, "C")
    # (what, (read, written), damage before, (requests, pages revalidated))
    steps = [("warm", (n, 0), None, (r, n)), ("damaged", (0, n), DAMAGE.damage_forms, (r, n)),
             ("warm again", (n, 0), None, (r, n)), ("bodies damaged", (n, 0), DAMAGE.damage_bodies, (r, n)),
             ("both damaged", (0, n), DAMAGE.damage_all, (r + n, n)), ("warm at last", (n, 0), None, (r, n)),
             ("bodies removed", (n, 0), DAMAGE.remove_bodies, (r, 0))]
    for what, want_forms, before, want_requests in steps:
        if before:
            k = before(c)
            if k != n:
                fail("%s %s: %d found in the cache, want %d" % (tag, what, k, n))
        step(envlock, work, url, "C", tag + " " + what, want, want_forms, want_requests)
        if before == DAMAGE.damage_bodies and len(DAMAGE.pages(c)) != n:
            fail("%s %s: the damaged bodies were read (and removed)" % (tag, what))
    # the same server under another name: another read URL, other forms
    other = url.replace("127.0.0.1", "localhost")
    if other == url:
        return
    got = cold(envlock, work, other, "D", tag + " other mirror")
    if got and got[0] != want:
        fail("%s other mirror: the lock differs from the first mirror's" % tag)
    if got:
        step(envlock, work, other, "D", tag + " other mirror warm", want, (n, 0), (r, n))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    envlock = os.path.abspath(sys.argv[1])
    top = tempfile.mkdtemp(prefix="envlock-pypi-blob-")
    try:
        for tag, index, scns, deps, expect in WORKLOADS:
            work = os.path.join(top, tag)
            os.makedirs(work)
            try:
                cm = servers.mirror(scns, verdaccio=False, workdir=os.path.join(work, "m"), apt=False)
                m = cm.__enter__()
            except (servers.ServerError, OSError) as e:
                print("SKIP: fixture nginx unavailable: %s" % e)
                return 77
            try:
                scenario(envlock, work, m.base_url, tag, index, deps, expect)
            finally:
                cm.__exit__(None, None, None)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

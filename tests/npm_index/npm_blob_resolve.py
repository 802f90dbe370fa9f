#!/usr/bin/env python3
"""npm_blob_resolve.py ENVLOCK — packuments read from their parsed form
(npm_packument_blob.c) give the lock a parse gives, through the real binary
against the fixture nginx (tests/fixtures/servers.py) in its validators-only
mode: no max-age, so every page of a warm re-resolve is revalidated and
answered 304. The workload is bench/resolve's npm part (gen_npm.py: express
5's graph, typescript and @types/node with hundreds of versions).

1. cold resolve, cache C: lock L; every packument parsed and its parsed
   form stored (ENVLOCK_DEBUG_STATS=1: "npm parsed forms: 0 read, N written");
2. warm resolve on C: every page revalidated, every packument read from its
   parsed form (N read, 0 written), L's bytes;
3. every parsed form in C damaged (its last byte flipped): the cache refuses
   them, the packuments are parsed again (0 read, N written), L's bytes;
4. warm again: N read, L's bytes;
5. every stored packument body damaged (a byte of its frame flipped): the
   bodies are asked for on demand and, their parsed forms verifying, never
   read: N read, L's bytes, the damaged entries still there;
6. the bodies and the parsed forms damaged: reading a body on demand finds
   it damaged (removed), the packument is fetched again and parsed (0 read,
   N written; N revalidated, then N more requests, each a 200), L's bytes;
7. warm again: N read, L's bytes;
8. every stored packument body removed, the parsed forms kept: each page
   is fetched again (a 200, as from a registry that sends no validators)
   with the same bytes, so its parsed form is read: N read, 0 written,
   L's bytes.

Exit 0 pass, 1 fail, 77 skip (no nginx). Standard library only."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "fixtures"))
import blob_steps  # noqa: E402
import servers  # noqa: E402
import specs  # noqa: E402

DAMAGE = blob_steps.CacheDamage("npm-packument/", "https://registry.npmjs.org/")

CATALOG = specs.test_catalog()

SPEC = specs.base_spec("npm-blob", "    node:\n      dependencies: [react, lodash, zod, express, typescript, \"@types/node\"]")

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def resolve(envlock, work, url, cache, lock):
    """envlock resolve; returns (status, stderr, [crawl runs], (read, written))."""
    return blob_steps.resolve(envlock, work, cache, lock,
                              "https://registry.npmjs.org=%s/npm" % url.rstrip("/"), "npm")


def scenario(envlock, work, url):
    with open(os.path.join(work, "bases.yaml"), "w") as f:
        f.write(CATALOG)
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(SPEC)
    lock = os.path.join(work, "L.lock")
    rc, err, runs, forms = resolve(envlock, work, url, "C", lock)
    if rc != 0:
        fail("cold resolve exited %d: %s" % (rc, err[-2000:]))
        return
    want = blob_steps.read(lock)
    if not forms or forms[0] != 0 or forms[1] == 0:
        fail("cold resolve: want 0 parsed forms read and some written, got %s" % (forms,))
        return
    n = forms[1]
    print("cold: %d packuments parsed, their parsed forms stored" % n)

    # (what, (read, written), damage before, (requests made, revalidated))
    steps = [("warm", (n, 0), None, (n, n)), ("damaged", (0, n), DAMAGE.damage_forms, (n, n)),
             ("warm again", (n, 0), None, (n, n)), ("bodies damaged", (n, 0), DAMAGE.damage_bodies, (n, n)),
             ("both damaged", (0, n), DAMAGE.damage_all, (2 * n, n)), ("warm at last", (n, 0), None, (n, n)),
             ("bodies removed", (n, 0), DAMAGE.remove_bodies, (n, 0))]
    for what, want_forms, before, want_requests in steps:
        if before:
            k = before(os.path.join(work, "C"))
            if k != n:
                fail("%s: %d parsed forms found in the cache, want %d" % (what, k, n))
        out = os.path.join(work, what.replace(" ", "-") + ".lock")
        rc, err, runs, forms = resolve(envlock, work, url, "C", out)
        if rc != 0:
            fail("%s resolve exited %d: %s" % (what, rc, err[-2000:]))
            continue
        revalidated = sum(r[3] for r in runs)
        requests = sum(r[1] for r in runs)
        if (requests, revalidated) != want_requests:
            fail("%s: %d requests, %d pages revalidated, want %s (runs %s)"
                 % (what, requests, revalidated, want_requests, runs))
        if forms != want_forms:
            fail("%s: parsed forms (read, written) %s, want %s" % (what, forms, want_forms))
        if blob_steps.read(out) != want:
            fail("%s: the lock differs from the cold resolve's" % what)
        if before == DAMAGE.damage_bodies and len(DAMAGE.pages(os.path.join(work, "C"))) != n:
            fail("%s: the damaged bodies were read (and removed)" % what)
        print("%s: %d revalidated, parsed forms %s" % (what, revalidated, forms))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="envlock-npm-blob-")
    try:
        scn = os.path.join(work, "bench-npm-six.scn")
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "resolve", "gen_npm.py"), scn],
                       check=True, stdout=subprocess.DEVNULL)
        try:
            cm = servers.mirror([scn], verdaccio=False, workdir=os.path.join(work, "m"), apt=False)
            m = cm.__enter__()
        except (servers.ServerError, OSError) as e:
            print("SKIP: fixture nginx unavailable: %s" % e)
            return 77
        try:
            scenario(envlock, work, m.base_url)
        finally:
            cm.__exit__(None, None, None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

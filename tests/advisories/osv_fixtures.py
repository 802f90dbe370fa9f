#!/usr/bin/env python3
"""advisories/ on recorded public OSV records (records/README.md says where
each is from). The expected answers are read off the advisories: requests
before 2.32.2 (GHSA-9wx4-h78v-vm56), lodash and lodash-es before 4.17.21
(GHSA-35jh-r3h4-6jhm), Debian 12's glibc before 2.36-9+deb12u3 (DSA-5514-1).
Then the same snapshot with withdrawn and malformed records beside it, as
an all.zip built by Python's zipfile, and corrupt or missing.

Usage: osv_fixtures.py OSV_DRIVER RECORDS_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

FAILS = []
PASSES = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    (PASSES if cond else FAILS).append(what)


def run(driver, *args, stdin=""):
    p = subprocess.run([driver, *args], input=stdin, capture_output=True, text=True)
    check(p.stderr == "", "%s %s writes nothing to stderr %s" % (os.path.basename(driver), args[0], p.stderr[:200]))
    return p.returncode, p.stdout


QUERIES = [
    ("pypi requests 2.31.0", "GHSA-9wx4-h78v-vm56"),
    ("pypi requests 2.32.0", "GHSA-9wx4-h78v-vm56"),
    ("pypi Requests 2.32.1", "GHSA-9wx4-h78v-vm56"),
    ("pypi requests 2.32.2", "-"),
    ("pypi requests 2.32.4", "-"),
    ("pypi urllib3 1.0", "-"),
    ("npm lodash 4.17.20", "GHSA-35jh-r3h4-6jhm"),
    ("npm lodash-es 4.17.15", "GHSA-35jh-r3h4-6jhm"),
    ("npm lodash 4.17.21", "-"),
    ("npm lodash 4.17.21-beta.1", "GHSA-35jh-r3h4-6jhm"),
    ("deb glibc 2.36-9+deb12u2", "DSA-5514-1"),
    ("deb glibc 2.36-9", "DSA-5514-1"),
    ("deb glibc 2.36-9+deb12u3", "-"),
    ("deb glibc 2.36-9+deb12u10", "-"),
    ("deb glibc 2.31-13+deb11u7", "DSA-5514-1"),
]


def check_matches(driver, snap, label):
    rc, out = run(driver, "match", snap, stdin="".join(q + "\n" for q, _ in QUERIES))
    got = out.splitlines()
    check(rc == 0 and len(got) == len(QUERIES), "%s: match answers every query" % label)
    for (q, want), g in zip(QUERIES, got):
        check(g == want, "%s: %s -> %s (got %s)" % (label, q, want, g))


def load(driver, snap):
    rc, out = run(driver, "load", snap)
    lines = out.splitlines()
    kv = dict(l.split(" ", 1) for l in lines if l.split(" ", 1)[0] in ("digest", "newest", "withdrawn"))
    return rc, kv, [l for l in lines if l.startswith("record ")], [l for l in lines if l.startswith("finding ")], out


BAD = {
    "x/y/notjson.json": "{\"id\": \"BAD-1\", ",
    "x/noid.json": json.dumps({"modified": "2024-01-01T00:00:00Z", "affected": []}),
    "x/nointro.json": json.dumps({"id": "BAD-3", "modified": "2024-01-01T00:00:00Z", "affected": [
        {"package": {"ecosystem": "PyPI", "name": "requests"},
         "ranges": [{"type": "ECOSYSTEM", "events": [{"fixed": "1.0"}]}]}]}),
    "x/twokeys.json": json.dumps({"id": "BAD-4", "modified": "2024-01-01T00:00:00Z", "affected": [
        {"package": {"ecosystem": "npm", "name": "lodash"},
         "ranges": [{"type": "SEMVER", "events": [{"introduced": "0", "fixed": "1.0.0"}]}]}]}),
    "x/noversions.json": json.dumps({"id": "BAD-5", "modified": "2024-01-01T00:00:00Z", "affected": [
        {"package": {"ecosystem": "Debian:12", "name": "glibc"}}]}),
}


def with_extras(records, tmp):
    snap = os.path.join(tmp, "snap")
    shutil.copytree(records, snap)
    rec = json.load(open(os.path.join(records, "PyPI/GHSA-9wx4-h78v-vm56.json")))
    rec.update(id="GHSA-wdrw-0000-0000", withdrawn="2024-06-01T00:00:00Z")
    rec["affected"][0]["ranges"][0]["events"][1]["fixed"] = "9.0"
    json.dump(rec, open(os.path.join(snap, "PyPI/withdrawn.json"), "w"))
    for path, text in BAD.items():
        os.makedirs(os.path.dirname(os.path.join(snap, path)), exist_ok=True)
        open(os.path.join(snap, path), "w").write(text)
    # Another ecosystem's record is no finding and no match.
    json.dump({"id": "RUSTSEC-0", "modified": "2024-01-01T00:00:00Z", "affected": [
        {"package": {"ecosystem": "crates.io", "name": "requests"}, "versions": ["2.31.0"]}]},
        open(os.path.join(snap, "x/rust.json"), "w"))
    return snap


def main():
    driver, records = sys.argv[1], sys.argv[2]
    rc, kv, recs, finds, out = load(driver, records)
    check(rc == 0 and len(recs) == 3 and not finds, "the recorded snapshot loads: 3 records, no finding")
    check(kv.get("newest") == "2024-05-20T22:07:29Z", "newest modified is requests' record")
    check("record GHSA-35jh-r3h4-6jhm npm/GHSA-35jh-r3h4-6jhm.json severity=HIGH aliases=1 affected=2" in recs,
          "lodash record: severity, alias, both packages")
    check("record DSA-5514-1 Debian/DSA-5514-1.json severity=- aliases=0 affected=1" in recs,
          "DSA-5514-1 keeps only its Debian:12 entry")
    check_matches(driver, records, "files")
    with tempfile.TemporaryDirectory() as tmp:
        snap = with_extras(records, tmp)
        rc, kv2, recs2, finds2, out2 = load(driver, snap)
        check(rc == 0 and kv2.get("withdrawn") == "1" and len(recs2) == 3,
              "withdrawn record counted, never kept")
        for path in BAD:
            check(any(f.startswith("finding %s: " % path) for f in finds2), "malformed %s is a finding" % path)
        check(len(finds2) == len(BAD), "nothing else is a finding (other ecosystems are ignored)")
        check("finding x/nointro.json: BAD-3: a range has no introduced event" in finds2,
              "the finding names the record and what is wrong")
        check_matches(driver, snap, "with extras")
        check(kv2["digest"] != kv["digest"], "the digest covers every file")
        copy = os.path.join(tmp, "copy")
        shutil.copytree(records, copy)
        check(load(driver, copy)[1]["digest"] == kv["digest"], "the digest does not depend on the directory's path")
        # The same records as OSV's all.zip archives, one per ecosystem.
        zdir = os.path.join(tmp, "zip")
        for eco in ("PyPI", "npm", "Debian"):
            os.makedirs(os.path.join(zdir, eco))
            with zipfile.ZipFile(os.path.join(zdir, eco, "all.zip"), "w", zipfile.ZIP_DEFLATED) as z:
                for name in sorted(os.listdir(os.path.join(records, eco))):
                    z.write(os.path.join(records, eco, name), name)
                if eco == "PyPI":
                    z.writestr("BAD-1.json", BAD["x/y/notjson.json"])
        rc, kvz, recsz, findsz, _ = load(driver, zdir)
        check(rc == 0 and len(recsz) == 3, "all.zip archives load the same 3 records")
        check(any(f.startswith("finding PyPI/all.zip!BAD-1.json: ") for f in findsz),
              "a malformed archive member is a finding naming archive and member")
        check_matches(driver, zdir, "all.zip")
        open(os.path.join(zdir, "npm", "all.zip"), "wb").write(b"PK\x03\x04 truncated")
        rc, out = run(driver, "load", zdir)
        check(out.startswith("failed DL_ENV_SPEC_INVALID: npm/all.zip"), "a corrupt archive fails the load: " + out.strip())
        rc, out = run(driver, "load", os.path.join(tmp, "absent"))
        check(out.startswith("failed IO_ERROR: cannot read the advisory directory"), "a missing snapshot fails the load: " + out.strip())
    print("%d passed, %d failed" % (len(PASSES), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

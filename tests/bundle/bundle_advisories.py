#!/usr/bin/env python3
"""bundle_advisories.py ENVLOCK — `envlock bundle --advisories DIR` carries
the advisory snapshot a lock was resolved with (issue 22, "Advisories in
the solve": bundle carries the snapshot so an air-gapped site audits with
exactly what the lock was made with; docs/bundle.md, "Advisories").

A fixture index (tests/advisories/resolve_advisories.py's, served from
file://) where `requests<2.32` admits only versions that the real record
GHSA-9wx4-h78v-vm56 (introduced 0, fixed 2.32.2) affects; resolved with the
recorded OSV snapshot tests/advisories/records, so the lock keeps requests
2.31.0 and records the snapshot. Then, expectations read off the records
and the files, not off envlock:
  - bundle --advisories SNAP: DIR/advisories holds exactly SNAP's record
    files, byte for byte, at the same relative paths; the signed manifest
    (SHA256SUMS, --sign) lists each with its sha256;
  - `audit` with the bundle's copy gives what it gives with SNAP (exit 1,
    the finding GHSA-9wx4-h78v-vm56 for requests 2.31.0), and `check
    --offline` takes the copy as it takes SNAP;
  - ENVLOCK_ADVISORIES is honoured as resolve's is;
  - a snapshot that differs from the lock's (one record changed, one added)
    or a lock resolved without one is refused before anything is written,
    naming `advisories.snapshot`;
  - hostile snapshots: a record that is a symbolic link to a file outside
    (same digest, since the loader reads through it) is refused by the copy;
    a record over the loader's 16 MiB cap is refused;
  - two bundles of the same lock and snapshot hold the same bytes (README
    names its own directory: equal when bundled again into the same place).
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
RECORDS = os.path.join(REPO, "tests", "advisories", "records")
sys.path.insert(0, os.path.join(REPO, "tests", "advisories"))
import resolve_advisories as ra  # noqa: E402
import resolve_env  # noqa: E402 (on sys.path once resolve_advisories is imported)
rs = resolve_env.rs
GH = "GHSA-9wx4-h78v-vm56"


def tree(d):
    """{relative path: sha256} of every file under d (links not followed)."""
    out = {}
    for dp, dn, fn in os.walk(d):
        for f in fn:
            p = os.path.join(dp, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def snapshot_files(d):
    """The record files of an OSV snapshot as audit reads them: *.json and
    *.zip, hidden names skipped."""
    return {k: v for k, v in tree(d).items()
            if k.endswith((".json", ".zip")) and not any(p.startswith(".") for p in k.split("/"))}


class Site:
    def __init__(self, envlock, work, env_ctx):
        self.el, self.work, self.e = envlock, work, env_ctx

    def run(self, *args, extra_env=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
        env["XDG_CONFIG_HOME"] = os.path.join(self.work, "xdg")
        env.update(extra_env or {})
        cmd = [self.el, "--json", "--cache-dir", os.path.join(self.e.work, "cache1")] + \
            rs.mirror_flags(self.e.man, self.e.mdir) + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def bundle(self, lock, out, *flags, extra_env=None):
        return self.run("bundle", lock, "-o", out, *flags, extra_env=extra_env)


def err_json(text):
    """The --json failure document (code, message, detail), or {}."""
    try:
        js = json.loads(text)
    except ValueError:
        return {}
    return js if isinstance(js, dict) and "code" in js else {}


def audit_findings(out):
    """The findings of `audit --format json`, without where the snapshot was."""
    js = json.loads(out)
    return sorted(json.dumps({k: v for k, v in f.items() if k not in ("snapshotDir", "advisoriesDir")},
                             sort_keys=True) for f in js.get("findings", []))


def part_carry(s, check, lock, snap):
    b1 = os.path.join(s.work, "b1")
    rc, out, err = s.bundle(lock, b1, "--advisories", snap)
    check(rc == 0, "bundle --advisories: exit 0", (rc, out, err))
    if rc != 0:
        return None
    js = json.loads(out)
    copy = os.path.join(b1, "advisories")
    want = snapshot_files(snap)
    check(tree(copy) == want and len(want) == 3,
          "DIR/advisories holds exactly the snapshot's records, byte for byte", (tree(copy), want))
    adv = js.get("advisories", {})
    check(adv.get("files") == len(want) and adv.get("dir") == "advisories",
          "--json says what was carried", js)
    check("envlock audit LOCK --advisories" in open(os.path.join(b1, "README")).read(),
          "README says how to audit with the copy")
    # audit: the same findings from the copy as from the original
    a1 = s.run("audit", lock, "--advisories", snap, "--format", "json")
    a2 = s.run("audit", lock, "--advisories", copy, "--format", "json")
    check(a1[0] == 1 and a2[0] == 1, "audit: exit 1 (findings) from both", (a1, a2))
    if a1[0] == 1 and a2[0] == 1:
        f1, f2 = audit_findings(a1[1]), audit_findings(a2[1])
        check(f1 == f2 and f1, "audit: the same findings from the copy", (f1, f2))
        check(any(GH in f and "2.31.0" in f for f in f2),
              "audit: the copy finds %s for requests 2.31.0 (below its fix 2.32.2)" % GH, f2)
    c = s.run("--offline", "check", os.path.join(s.e.work, "spec.yaml"), lock, "--bases",
              os.path.join(s.e.mdir + ".catalog", "bases.yaml"), "--advisories", copy)
    check(c[0] == 0, "check --offline --advisories COPY: the lock is current", c)
    return b1


def part_same_bytes(s, check, lock, snap, b1):
    b2 = os.path.join(s.work, "b2")
    rc, out, err = s.bundle(lock, b2, "--advisories", snap)
    t1, t2 = tree(b1), tree(b2)
    check(rc == 0 and {k: v for k, v in t1.items() if k != "README"} ==
          {k: v for k, v in t2.items() if k != "README"},
          "two bundles into two directories: the same files and bytes (but README)",
          sorted(set(t1.items()) ^ set(t2.items()))[:6])
    shutil.rmtree(b1)
    rc, out, err = s.bundle(lock, b1, "--advisories", snap)
    check(rc == 0 and tree(b1) == t1, "bundled again into the same place: byte-identical", err)
    # ENVLOCK_ADVISORIES as resolve and audit take it
    b3 = os.path.join(s.work, "b3")
    rc, out, err = s.bundle(lock, b3, extra_env={"ENVLOCK_ADVISORIES": snap})
    check(rc == 0 and tree(os.path.join(b3, "advisories")) == snapshot_files(snap),
          "ENVLOCK_ADVISORIES: the snapshot carried", (rc, err))


def part_signed(s, check, lock, snap):
    key = os.path.join(s.work, "key.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True,
                   capture_output=True)
    b = os.path.join(s.work, "signed")
    rc, out, err = s.bundle(lock, b, "--advisories", snap, "--sign", key)
    check(rc == 0, "bundle --advisories --sign: exit 0", (rc, err))
    if rc != 0:
        return
    sums = {}
    for ln in open(os.path.join(b, "SHA256SUMS")):
        hexd, path = ln.rstrip("\n").split("  ", 1)
        sums[path] = hexd
    want = {"advisories/" + k: v for k, v in snapshot_files(snap).items()}
    check(all(sums.get(k) == v for k, v in want.items()),
          "SHA256SUMS lists every carried record with its sha256", (want, sums))
    v = s.run("bundle", "--verify", key, b)
    check(v[0] == 0, "bundle --verify accepts it", v)


def refused(check, what, res, reason, b):
    rc, out, err = res
    e = err_json(out) or err_json(err)
    check(rc == 10 and e.get("code") == "DL_ENV_SPEC_INVALID" and
          (e.get("detail") or {}).get("reason") == reason and
          "advisories.snapshot" in e.get("message", ""),
          what + ": DL_ENV_SPEC_INVALID (%s) naming advisories.snapshot" % reason, (rc, err))
    check(not os.path.exists(b), what + ": nothing written", b)


def part_mismatch(s, check, lock, plain_lock, snap):
    changed = os.path.join(s.work, "snap-changed")
    shutil.copytree(snap, changed)
    rec = os.path.join(changed, "PyPI", GH + ".json")
    doc = json.load(open(rec))
    doc["modified"] = "2099-01-01T00:00:00Z"
    json.dump(doc, open(rec, "w"))
    b = os.path.join(s.work, "b-changed")
    refused(check, "a changed record", s.bundle(lock, b, "--advisories", changed),
            "advisories_mismatch", b)
    added = os.path.join(s.work, "snap-added")
    shutil.copytree(snap, added)
    shutil.copy(os.path.join(snap, "PyPI", GH + ".json"), os.path.join(added, "PyPI", "copy.json"))
    b = os.path.join(s.work, "b-added")
    refused(check, "an added record", s.bundle(lock, b, "--advisories", added),
            "advisories_mismatch", b)
    b = os.path.join(s.work, "b-env")
    refused(check, "ENVLOCK_ADVISORIES of another snapshot",
            s.bundle(lock, b, extra_env={"ENVLOCK_ADVISORIES": changed}), "advisories_mismatch", b)
    b = os.path.join(s.work, "b-plain")
    refused(check, "a lock resolved without a snapshot",
            s.bundle(plain_lock, b, "--advisories", snap), "advisories_not_locked", b)


def part_hostile(s, check, lock, snap):
    # a record that is a link to a file outside the snapshot: the loader
    # reads through it, so the digest is the lock's; the copy must refuse it
    outside = os.path.join(s.work, "outside")
    os.makedirs(outside)
    linked = os.path.join(s.work, "snap-link")
    shutil.copytree(snap, linked)
    rec = os.path.join(linked, "PyPI", GH + ".json")
    shutil.move(rec, os.path.join(outside, GH + ".json"))
    os.symlink(os.path.join(outside, GH + ".json"), rec)
    b = os.path.join(s.work, "b-link")
    rc, out, err = s.bundle(lock, b, "--advisories", linked)
    e = err_json(out) or err_json(err)
    check(rc != 0 and e.get("code") == "DL_ENV_POLICY_DENIED" and
          (e.get("detail") or {}).get("reason") == "not_a_file" and
          (e.get("detail") or {}).get("file") == "PyPI/%s.json" % GH,
          "a record linked from outside: refused (POLICY_DENIED not_a_file), naming it", (rc, err))
    check(not os.path.exists(os.path.join(b, "advisories", "PyPI", GH + ".json")) and
          not os.path.exists(os.path.join(b, "README")), "... and not carried", tree(b) if os.path.isdir(b) else None)
    huge = os.path.join(s.work, "snap-huge")
    shutil.copytree(snap, huge)
    with open(os.path.join(huge, "PyPI", "huge.json"), "wb") as f:
        f.truncate((16 << 20) + 1)
    b = os.path.join(s.work, "b-huge")
    rc, out, err = s.bundle(lock, b, "--advisories", huge)
    check(rc != 0 and not os.path.exists(b), "a record over 16 MiB: refused, nothing written", (rc, err))


def main():
    envlock = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="envlock-bundle-adv-")
    check = ra.Check()
    try:
        e = ra.Env(envlock, ra.PYPI, "python", ["requests<2.32"], work, "site")
        snap = os.path.join(work, "snap")
        shutil.copytree(RECORDS, snap, ignore=shutil.ignore_patterns("*.md"))
        rc, js, text, err = e.resolve("--advisories", snap)
        check(rc == 0 and ra.locked(text, "pypi", "requests") == ["2.31.0"] and
              ra.block_of(text, "advisories").get("touched") == "[%s]" % GH,
              "the lock keeps requests 2.31.0 (only affected versions fit) and records %s" % GH,
              (rc, err))
        if rc != 0:
            return 1
        lock = os.path.join(e.work, "lock1", "envlock.lock")
        rc, _js, _t, err = e.resolve(lock=os.path.join(e.work, "plain", "envlock.lock"))
        plain_lock = os.path.join(e.work, "plain", "envlock.lock")
        s = Site(envlock, work, e)
        b1 = part_carry(s, check, lock, snap)
        if b1:
            part_same_bytes(s, check, lock, snap, b1)
        part_signed(s, check, lock, snap)
        part_mismatch(s, check, lock, plain_lock, snap)
        part_hostile(s, check, lock, snap)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("bundle_advisories: %d failure(s)" % check.failures)
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())

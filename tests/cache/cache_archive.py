#!/usr/bin/env python3
"""Hostile archives and caches through the envlock CLI (one scenario per run):

  bomb                 a ~100 KB archive whose one member is 3 GiB of zeros,
                       its manifest honest about the size: refused, and
                       (measured) nothing over a few MB written
  bomb_lying_manifest  a 20 MB member the manifest lists as 1000 bytes, and a
                       3 GiB one it lists as 1000: refused before writing
  prune_readonly       `cache prune --all` on a cache the user cannot write:
                       exit non-zero naming the path and the errno
  killed_import        an import killed with SIGKILL leaves staging behind:
                       `cache info` counts it, prune and the next import
                       remove it once it is dead; a live one is kept
  signed_cli           `cache export --sign`, `cache import --verify`

The bombs are crafted small on disk: a zstd frame is written by hand from
raw blocks (tar headers, the manifest) and RLE blocks (128 KiB of zeros in 4
bytes each), so no 3 GiB stream is ever produced by the test. What envlock
wrote is measured twice: `wchar` of /proc/self/io across the run (the
kernel adds a reaped child's counters to its parent's) and `du` of the cache
directory afterwards. No assertion depends on time.

usage: cache_archive.py ENVLOCK SCENARIO   (exit 77: skipped)
"""
import fcntl
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

ENVLOCK = None
FAILED = []
FEW_MB = 4 << 20


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)


def run(cache, *args, preexec=None, json_out=True, exe=None, env=None):
    argv = [exe or ENVLOCK] + (["--json"] if json_out else []) + ["--cache-dir", cache] + list(args)
    p = subprocess.run(argv, capture_output=True, text=True, preexec_fn=preexec, timeout=100,
                       env=env)
    body = None
    if json_out and p.stdout.strip():
        try:
            body = json.loads(p.stdout)
        except ValueError:
            body = None
    return p.returncode, body, p


def wchar():
    try:
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def measured(cache, *args):
    """Runs envlock and returns (rc, json, bytes it wrote, or None)."""
    before = wchar()
    rc, body, p = run(cache, *args)
    after = wchar()
    wrote = after - before if before is not None and after is not None else None
    return rc, body, wrote, p


def du_bytes(path):
    total = 0
    for root, dirs, files in os.walk(path):
        for n in files + dirs:
            try:
                total += os.lstat(os.path.join(root, n)).st_blocks * 512
            except OSError:
                pass
    return total


def staging_dirs(cache):
    v1 = os.path.join(cache, "v1")
    if not os.path.isdir(v1):
        return []
    return [n for n in os.listdir(v1) if n.startswith(".import-")]


# ---- crafting ----

BLOCK = 128 << 10


class ZstdWriter:
    """One zstd frame without a content size (window 128 KiB), built from
    raw and RLE blocks; the last block is flagged when the frame is closed."""

    def __init__(self, f):
        self.f = f
        self.pending = None
        f.write(b"\x28\xb5\x2f\xfd\x00\x38")

    def _block(self, kind, size, payload):
        if self.pending:
            self._emit(*self.pending, last=False)
        self.pending = (kind, size, payload)

    def _emit(self, kind, size, payload, last):
        h = (size << 3) | (kind << 1) | (1 if last else 0)
        self.f.write(bytes([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]) + payload)

    def raw(self, data):
        for i in range(0, len(data), BLOCK):
            chunk = data[i:i + BLOCK]
            self._block(0, len(chunk), chunk)

    def zeros(self, n):
        while n:
            k = min(n, BLOCK)
            self._block(1, k, b"\x00")
            n -= k

    def close(self):
        if self.pending:
            self._emit(*self.pending, last=True)
        else:
            self._emit(0, 0, b"", last=True)


def tar_header(name, size):
    ti = tarfile.TarInfo(name)
    ti.size = size
    ti.mode = 0o644
    ti.mtime = 0
    return ti.tobuf(format=tarfile.USTAR_FORMAT)


def pad(data):
    return data + b"\x00" * (-len(data) % 512)


def member_name(seed):
    key = hashlib.sha256(seed.encode()).hexdigest()
    return "v1/%s/%s" % (key[:2], key)


def craft_bomb(path, members):
    """members: (name, real_size, listed_size) of zero-filled members; the
    manifest lists listed_size and the sha256 of an empty body (it is never
    reached)."""
    files = [{"path": n, "sha256": hashlib.sha256(b"").hexdigest(), "size": listed}
             for n, _, listed in members]
    manifest = json.dumps({"format": "envlock-cache-export", "version": 1,
                           "files": files}).encode()
    with open(path, "wb") as f:
        z = ZstdWriter(f)
        for n, real, _ in members:
            z.raw(tar_header(n, real))
            z.zeros(real + (-real % 512))
        z.raw(tar_header("manifest.json", len(manifest)) + pad(manifest))
        z.zeros(1024)
        z.close()


def entry_bytes(url, body, immutable=True):
    """An entry file as cache_store.c writes it, the body in a zstd frame of
    raw blocks with its content size."""
    meta = {"url": url, "max_age": -1, "fetched_ms": int(time.time() * 1000),
            "immutable": immutable, "size": len(body),
            "sha256": hashlib.sha256(body).hexdigest()}
    out = io.BytesIO()
    out.write(b"envlock-cache 1\n" + json.dumps(meta, separators=(",", ":")).encode() + b"\n")
    # FHD: 8-byte content size, no single segment; window 2^17
    out.write(b"\x28\xb5\x2f\xfd\xc0\x38" + len(body).to_bytes(8, "little"))
    chunks = [body[i:i + BLOCK] for i in range(0, len(body), BLOCK)] or [b""]
    for i, c in enumerate(chunks):
        h = (len(c) << 3) | (1 if i == len(chunks) - 1 else 0)
        out.write(bytes([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]) + c)
    return out.getvalue()


def put_entry(cache, url, body, immutable=True):
    key = hashlib.sha256(("GET %s\n" % url).encode()).hexdigest()
    d = os.path.join(cache, "v1", key[:2])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, key), "wb") as f:
        f.write(entry_bytes(url, body, immutable))
    return os.path.join(d, key)


# ---- scenarios ----

def sc_bomb(work):
    arc = os.path.join(work, "bomb.tar.zst")
    craft_bomb(arc, [(member_name("a"), 3 << 30, 3 << 30)])
    size = os.path.getsize(arc)
    print("bomb archive: %d bytes on disk, declaring %d" % (size, 3 << 30))
    check(size < 200 << 10, "the bomb is small on disk (%d)" % size)
    cache = os.path.join(work, "cache")
    rc, body, wrote, p = measured(cache, "cache", "import", arc)
    print("import: exit %d, wrote %s bytes, %s" % (rc, wrote, p.stdout.strip()))
    check(rc == 18, "refused with DL_ENV_POLICY_DENIED (exit %d)" % rc)
    check(body and body["detail"].get("reason") == "too_large", "reason too_large: %s" % body)
    check(wrote is None or wrote < FEW_MB, "wrote %s bytes" % wrote)
    used = du_bytes(cache)
    print("du of the cache afterwards: %d bytes" % used)
    check(used < FEW_MB, "du %d" % used)
    check(not staging_dirs(cache), "no staging left: %s" % staging_dirs(cache))
    rc, st, _ = run(cache, "cache", "info")
    check(rc == 0 and st["entries"] == 0 and st["staging"] == 0, "info: %s" % st)


def sc_bomb_lying_manifest(work):
    cache = os.path.join(work, "cache")
    for real, label in ((20 << 20, "20 MB"), (3 << 30, "3 GiB")):
        arc = os.path.join(work, "lie.tar.zst")
        craft_bomb(arc, [(member_name("b"), real, 1000)])
        rc, body, wrote, p = measured(cache, "cache", "import", arc)
        print("%s member listed as 1000 bytes: exit %d, wrote %s bytes, %s"
              % (label, rc, wrote, p.stdout.strip()))
        check(rc == 18, "%s: refused (exit %d)" % (label, rc))
        check(body and body["detail"].get("reason") in ("tampered", "too_large"),
              "%s: reason %s" % (label, body))
        check(wrote is None or wrote < FEW_MB, "%s: wrote %s bytes" % (label, wrote))
        check(du_bytes(cache) < FEW_MB, "%s: du %d" % (label, du_bytes(cache)))
        check(not staging_dirs(cache), "%s: no staging left" % label)


def nobody_copy(work):
    """envlock and libenvlock.so* (in lib/ beside cli/, the build's top directory)
    copied into work/bin, and the environment that loads that library."""
    import glob
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    exe = os.path.join(bindir, "envlock")
    shutil.copyfile(ENVLOCK, exe)
    top = os.path.dirname(os.path.dirname(os.path.abspath(ENVLOCK)))
    for lib in glob.glob(os.path.join(top, "lib", "libenvlock.so*")):
        shutil.copyfile(lib, os.path.join(bindir, os.path.basename(lib)))
    env = dict(os.environ, LD_LIBRARY_PATH=bindir)
    return exe, env


def sc_prune_readonly(work):
    cache = os.path.join(work, "cache")
    paths = [put_entry(cache, "https://h/p%d" % i, b"page %d" % i, immutable=False)
             for i in range(3)]
    rc, st, _ = run(cache, "cache", "info")
    check(rc == 0 and st["entries"] == 3, "3 entries: %s" % st)
    preexec = exe = env = None
    if os.geteuid() == 0:
        # root ignores permissions: prune as nobody a cache root owns. The
        # build tree may sit under a directory nobody cannot enter (a clone
        # in a mktemp -d), so nobody runs a copy of envlock and its library
        # from the work directory.
        exe, env = nobody_copy(work)
        for root, dirs, files in os.walk(work):
            os.chmod(root, 0o755)
            for n in files:
                os.chmod(os.path.join(root, n), 0o755 if root == os.path.dirname(exe) else 0o644)

        def preexec():
            os.setgid(65534)
            os.setuid(65534)
    else:
        for root, dirs, files in os.walk(os.path.join(cache, "v1")):
            os.chmod(root, 0o555)
    rc, body, p = run(cache, "cache", "prune", "--all", preexec=preexec, exe=exe, env=env)
    print("prune --all, read-only: exit %d, %s" % (rc, p.stdout.strip()))
    check(rc != 0, "prune on a read-only cache fails (exit %d)" % rc)
    check(rc in (74, 70), "exit 74 (IO_ERROR) or 70: %d" % rc)
    d = (body or {}).get("detail", {})
    check(d.get("path", "").startswith(cache) and d.get("errno") in (13, 30, 1),
          "names the path and errno: %s" % body)
    check("Permission denied" in (body or {}).get("message", "")
          or "Read-only" in (body or {}).get("message", ""), "says what failed: %s" % body)
    rc, body, p = run(cache, "cache", "prune", "--all", preexec=preexec, json_out=False, exe=exe,
                      env=env)
    check(rc != 0 and "removed 0 entries" not in p.stdout and cache in p.stderr,
          "text: %r %r" % (p.stdout, p.stderr))
    check(all(os.path.exists(x) for x in paths), "the entries are still there")
    for root, dirs, files in os.walk(work):
        os.chmod(root, 0o755)
    rc, st, _ = run(cache, "cache", "prune", "--all")
    check(rc == 0 and st["entries"] == 3, "writable again: prune removes them: %s" % st)


def sc_killed_import(work):
    src = os.path.join(work, "src")
    # incompressible bodies, so that staging takes a while and holds bytes
    for i in range(8):
        put_entry(src, "https://h/w%d" % i, os.urandom(6 << 20))
    arc = os.path.join(work, "x.tar.zst")
    rc, st, _ = run(src, "cache", "export", arc)
    check(rc == 0 and st["entries"] == 8, "export: %s" % st)
    cache = os.path.join(work, "cache")
    killed = False
    proc = subprocess.Popen([ENVLOCK, "--cache-dir", cache, "cache", "import", arc],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None:
        dirs = staging_dirs(cache)
        if dirs:
            path = os.path.join(cache, "v1", dirs[0])
            try:
                held = sum(os.path.getsize(os.path.join(path, n))
                           for n in os.listdir(path) if n != ".lock")
            except OSError:
                held = 0
            if held > 0:
                os.kill(proc.pid, signal.SIGKILL)
                killed = True
                break
    proc.wait()
    if not killed:
        print("note: the import finished before it could be killed; simulating its leftovers")
        shutil.rmtree(cache, ignore_errors=True)
        d = os.path.join(cache, "v1", ".import-dead00")
        os.makedirs(d)
        with open(os.path.join(d, "0" * 64), "wb") as f:
            f.write(os.urandom(1 << 20))
        open(os.path.join(d, ".lock"), "w").close()
    dirs = staging_dirs(cache)
    check(len(dirs) == 1, "the killed import left its staging: %s" % dirs)
    rc, st, _ = run(cache, "cache", "info")
    print("info after the kill: %s" % st)
    check(rc == 0 and st["staging"] == 1 and st["stagingBytes"] > 0, "info counts it: %s" % st)
    rc, _, p = run(cache, "cache", "info", json_out=False)
    check("interrupted imports: 1" in p.stdout, "text info names it: %r" % p.stdout)
    # young: kept (it could be an import that just started)
    rc, st, _ = run(cache, "cache", "prune")
    check(rc == 0 and st["staging"] == 0 and len(staging_dirs(cache)) == 1,
          "a young staging dir is kept: %s" % st)
    # a live import of another process, however old, is kept
    live = os.path.join(cache, "v1", ".import-live00")
    os.makedirs(live)
    lockf = open(os.path.join(live, ".lock"), "w")
    fcntl.flock(lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
    old = time.time() - 7200
    for d in staging_dirs(cache):
        p_ = os.path.join(cache, "v1", d)
        for n in os.listdir(p_):
            os.utime(os.path.join(p_, n), (old, old))
        os.utime(p_, (old, old))
    rc, st, _ = run(cache, "cache", "prune")
    print("prune of aged staging: %s" % st)
    check(rc == 0 and st["staging"] == 1 and st["stagingBytes"] > 0, "the dead one goes: %s" % st)
    check(staging_dirs(cache) == [".import-live00"], "the live one stays: %s" % staging_dirs(cache))
    # the next import sweeps too, once the holder is gone
    lockf.close()
    for n in os.listdir(live):
        os.utime(os.path.join(live, n), (old, old))
    os.utime(live, (old, old))
    rc, st, _ = run(cache, "cache", "import", arc)
    check(rc == 0 and st["entries"] == 8, "import: %s" % st)
    check(not staging_dirs(cache), "no staging left: %s" % staging_dirs(cache))


def sc_signed_cli(work):
    if not shutil.which("openssl"):
        print("no openssl tool: skipped")
        sys.exit(77)
    key = os.path.join(work, "k.pem")
    pub = os.path.join(work, "k.pub.pem")
    other = os.path.join(work, "o.pem")
    for cmd in (["openssl", "genpkey", "-algorithm", "ed25519", "-out", key],
                ["openssl", "pkey", "-in", key, "-pubout", "-out", pub],
                ["openssl", "genpkey", "-algorithm", "ed25519", "-out", other]):
        subprocess.run(cmd, check=True, capture_output=True)
    src = os.path.join(work, "src")
    put_entry(src, "https://h/w", b"wheel")
    arc = os.path.join(work, "s.tar.zst")
    rc, st, _ = run(src, "cache", "export", arc, "--sign", key)
    check(rc == 0 and st["entries"] == 1, "signed export: %s" % st)
    if shutil.which("zstd"):
        raw = subprocess.run(["zstd", "-dcq", arc], capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(raw)) as t:
            check(t.getnames()[-2:] == ["manifest.json", "manifest.sig"],
                  "members: %s" % t.getnames())
    dst = os.path.join(work, "dst")
    rc, st, _ = run(dst, "cache", "import", arc, "--verify", pub)
    check(rc == 0 and st["entries"] == 1, "verified import: %s" % st)
    dst2 = os.path.join(work, "dst2")
    rc, body, _ = run(dst2, "cache", "import", arc, "--verify", other)
    check(rc == 18 and body["detail"]["reason"] == "bad_signature", "another key: %s" % body)
    rc, st, _ = run(dst2, "cache", "info")
    check(st["entries"] == 0, "nothing imported: %s" % st)
    rc, _, p = run(dst2, "cache", "import", arc, "--verify", json_out=False)
    check(rc == 2, "--verify without KEY is a usage error (%d)" % rc)
    p = subprocess.run([ENVLOCK, "cache", "--help"], capture_output=True, text=True)
    check("--sign KEY" in p.stdout and "--verify KEY" in p.stdout, "help: %r" % p.stdout)


def main():
    global ENVLOCK
    ENVLOCK = sys.argv[1]
    fn = globals()["sc_" + sys.argv[2]]
    work = tempfile.mkdtemp(prefix="el-cache-archive-")
    try:
        fn(work)
    finally:
        for root, dirs, files in os.walk(work):
            try:
                os.chmod(root, 0o755)
            except OSError:
                pass
        shutil.rmtree(work, ignore_errors=True)
    if FAILED:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()

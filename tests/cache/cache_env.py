#!/usr/bin/env python3
"""Exit codes of failures that are neither envlock's bug nor the user's
command line (one scenario per run):

  no_home          HOME, ENVLOCK_CACHE_DIR and XDG_CACHE_HOME unset: every
                   command that needs the cache says so, USAGE (exit 2),
                   detail.reason no_cache_dir, never INTERNAL (70)
  import_full      `cache import` into a cache on a full disk (a small tmpfs
                   in a private mount namespace; skipped where mounting is
                   not allowed): IO_ERROR (74), retryable, errno ENOSPC,
                   never "tampered"
  bad_url          a URL libcurl refuses (what a server would have sent):
                   PACKAGE_NOT_FOUND, reason bad_url, not USAGE
  unsupported_url  a project page whose links are no http, https or file
                   URL with a host (`a-2.0.0+02:00`, `a:=3.0`, `file:/x`):
                   `index show` lists each version as excluded with reason
                   unsupported_url and the link as written; nothing fetched
  import_eio       `cache import /proc/self/mem` (a file whose read() fails
                   with EIO, as a failing disk's does): IO_ERROR (74),
                   errno EIO, never "tampered" (the archive's fault)
  no_libcurl       libcurl.so.4 that does not load (not an ELF file), one
                   that lacks the 7.84 symbols (a tiny library built with
                   cc): the first fetch is IO_ERROR (74), not retryable,
                   detail.reason libcurl_unavailable / libcurl_too_old and
                   the library named, never INTERNAL (70); a run the cache
                   answers (--offline) needs no libcurl at all

usage: cache_env.py ENVLOCK CACHE_FETCH SCENARIO   (exit 77: skipped)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cache_archive  # noqa: E402  (entry files written as the store does)

ENVLOCK = None
FETCH = None
FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)


def bare_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("HOME", "ENVLOCK_CACHE_DIR", "XDG_CACHE_HOME")}
    env["LC_ALL"] = "C"
    return env


def envlock(*args, env=None, cwd=None):
    p = subprocess.run([ENVLOCK, "--json", *args], capture_output=True, text=True,
                       env=env, cwd=cwd, timeout=100, stdin=subprocess.DEVNULL)
    try:
        body = json.loads(p.stdout) if p.stdout.strip() else None
    except ValueError:
        body = None
    return p, body


def sc_no_home(work):
    env = bare_env()
    arch = os.path.join(work, "x.tar.zst")
    with open(arch, "wb") as f:
        f.write(b"not an archive")
    for args in (["cache", "info"], ["cache", "prune", "--all"], ["cache", "import", arch],
                 ["index", "show", "pypi:a", "--index", "file://%s/simple" % work]):
        p, body = envlock(*args, env=env, cwd=work)
        what = " ".join(args[:2])
        check(p.returncode == 2, "%s without HOME: exit 2, got %d: %s%s"
              % (what, p.returncode, p.stdout, p.stderr))
        check(body is not None and body.get("code") == "USAGE", "%s: USAGE: %s" % (what, p.stdout))
        if body:
            check(body.get("detail", {}).get("reason") == "no_cache_dir",
                  "%s: detail.reason no_cache_dir: %s" % (what, body))
            check("HOME" in body.get("message", "") and "--cache-dir" in body.get("message", ""),
                  "%s: the message names HOME and --cache-dir: %s" % (what, body))


IN_TMPFS = ('m=$1; size=$2; shift 2; mount -t tmpfs -o size=$size tmpfs "$m" || exit 77; '
            '"$@"; st=$?; echo "--- left:" >&2; ls -A "$m/v1" >&2; exit $st')


def sc_import_full(work):
    unshare = shutil.which("unshare")
    mnt = os.path.join(work, "small")
    os.mkdir(mnt)
    if not unshare or subprocess.run([unshare, "-m", "sh", "-c", IN_TMPFS, "sh", mnt, "64k",
                                      "true"], capture_output=True).returncode != 0:
        print("skipped: cannot mount a tmpfs here")
        sys.exit(77)
    src = os.path.join(work, "src")
    for i in range(3):  # 3 x 256 KiB of incompressible bytes
        cache_archive.put_entry(src, "https://h.example/f%d" % i, os.urandom(256 << 10))
    arch = os.path.join(work, "c.tar.zst")
    p, body = envlock("--cache-dir", src, "cache", "export", arch)
    check(p.returncode == 0, "export: %d %s %s" % (p.returncode, p.stdout, p.stderr))
    p = subprocess.run([unshare, "-m", "sh", "-c", IN_TMPFS, "sh", mnt, "64k", ENVLOCK,
                        "--json", "--cache-dir", mnt, "cache", "import", arch],
                       capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL)
    try:
        body = json.loads(p.stdout)
    except ValueError:
        body = {}
    check(p.returncode == 74, "import onto a full disk: exit 74, got %d: %s %s"
          % (p.returncode, p.stdout, p.stderr))
    check(body.get("code") == "IO_ERROR", "IO_ERROR: %s" % body)
    check("tamper" not in p.stdout + p.stderr, "not reported as tampered: %s" % p.stdout)
    check(body.get("detail", {}).get("errno") == "ENOSPC", "errno ENOSPC: %s" % body)
    check(body.get("retryable") is True, "a full disk is retryable: %s" % body)
    left = p.stderr.split("--- left:", 1)[-1].split()
    check(not [n for n in left if n.startswith(".import")], "no staging left: %s" % left)


def sc_bad_url(work):
    p = subprocess.run([FETCH, "--dir", os.path.join(work, "c"), "gopher://h.example/x",
                        "http://[zz/x"], capture_output=True, text=True, timeout=60)
    rs = [json.loads(line) for line in p.stdout.splitlines() if '"stats"' not in line]
    check(len(rs) == 2, "two responses: %s %s" % (p.stdout, p.stderr))
    for r in rs:
        check(r.get("code") == "DL_ENV_PACKAGE_NOT_FOUND" and r.get("reason") == "bad_url",
              "a URL libcurl refuses: PACKAGE_NOT_FOUND, bad_url: %s" % r)
        check(not r.get("retryable"), "not retryable: %s" % r)


def sc_unsupported_url(work):
    proj = os.path.join(work, "simple", "a")
    os.makedirs(proj)
    page = {"meta": {"api-version": "1.1"}, "name": "a", "files": [
        {"filename": "a-1.0.tar.gz", "url": "file:/srv/a-1.0.tar.gz", "hashes": {}},
        {"filename": "a-2.0.tar.gz", "url": "a-2.0.0+02:00", "hashes": {}},
        {"filename": "a-3.0.tar.gz", "url": "a:=3.0", "hashes": {}},
    ]}
    with open(os.path.join(proj, "index.json"), "w") as f:
        json.dump(page, f)
    cache = os.path.join(work, "c")
    index = "file://%s/simple" % work
    p, body = envlock("--cache-dir", cache, "index", "show", "pypi:a", "--index", index)
    check(p.returncode in (0, 1, 13), "index show: %d %s %s" % (p.returncode, p.stdout, p.stderr))
    check(p.returncode != 2, "what a page links is no usage error")
    excl = {e["version"]: e for e in (body or {}).get("excluded", [])}
    check(sorted(excl) == ["1.0", "2.0", "3.0"], "all three excluded: %s" % p.stdout)
    for v, link in (("1.0", "file:/srv/a-1.0.tar.gz"), ("2.0", "a-2.0.0+02:00"),
                    ("3.0", "a:=3.0")):
        e = excl.get(v, {})
        check(e.get("reason") == "unsupported_url", "%s: unsupported_url: %s" % (v, e))
        check(link in e.get("message", ""), "%s: the message names `%s`: %s" % (v, link, e))
        arts = e.get("artifacts", [])
        check(len(arts) == 1 and arts[0].get("unusable") == "unsupported_url"
              and arts[0].get("url") == link, "%s: the file listed as unusable: %s" % (v, arts))
    t = subprocess.run([ENVLOCK, "--cache-dir", cache, "index", "show", "pypi:a", "--index", index],
                       capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL)
    check("2.0  unsupported_url: " in t.stdout and "`a-2.0.0+02:00`" in t.stdout,
          "text output lists the reason: %s" % t.stdout)


def sc_import_eio(work):
    cache = os.path.join(work, "c")
    p, body = envlock("--cache-dir", cache, "cache", "import", "/proc/self/mem")
    body = body or {}
    check(p.returncode == 74 and body.get("code") == "IO_ERROR",
          "a read error: IO_ERROR, exit 74, got %d: %s%s" % (p.returncode, p.stdout, p.stderr))
    check(body.get("detail", {}).get("errno") == "EIO" and
          body.get("detail", {}).get("reason") != "tampered",
          "detail.errno EIO, not tampered: %s" % p.stdout)
    check(not os.path.isdir(os.path.join(cache, "v1")) or
          not [n for n in os.listdir(os.path.join(cache, "v1")) if n.startswith(".import")],
          "no staging left behind")


def sc_no_libcurl(work):
    broken = os.path.join(work, "broken")
    old = os.path.join(work, "old")
    os.makedirs(broken)
    os.makedirs(old)
    with open(os.path.join(broken, "libcurl.so.4"), "w") as f:
        f.write("not a shared object\n")
    src = os.path.join(work, "old.c")
    with open(src, "w") as f:
        f.write("int curl_global_init(long flags) { return (int)flags * 0; }\n")
    cc = shutil.which("cc")
    if not cc:
        print("skip: no cc")
        sys.exit(77)
    subprocess.run([cc, "-shared", "-fPIC", "-o", os.path.join(old, "libcurl.so.4"), src],
                   check=True)
    index = "http://127.0.0.1:9/simple"  # never reached: the fetch cannot start
    for libdir, reason in ((broken, "libcurl_unavailable"), (old, "libcurl_too_old")):
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"]
                                           if env.get("LD_LIBRARY_PATH") else "")
        p, body = envlock("--cache-dir", os.path.join(work, "c"), "index", "show", "pypi:a",
                          "--index", index, env=env)
        check(p.returncode == 74, "%s: exit 74, got %d: %s%s"
              % (reason, p.returncode, p.stdout, p.stderr))
        body = body or {}
        check(body.get("code") == "IO_ERROR" and body.get("retryable") is False,
              "%s: IO_ERROR, not retryable: %s" % (reason, p.stdout))
        detail = body.get("detail", {})
        check(detail.get("reason") == reason and detail.get("library") == "libcurl.so.4",
              "%s: the reason and the library: %s" % (reason, p.stdout))
        check("libcurl" in body.get("message", ""), "%s: the message says libcurl: %s"
              % (reason, p.stdout))
        off, obody = envlock("--offline", "--cache-dir", os.path.join(work, "c"), "index", "show",
                             "pypi:a", "--index", index, env=env)
        check((obody or {}).get("detail", {}).get("reason") == "offline_cache_miss",
              "%s: --offline never loads libcurl: %s%s" % (reason, off.stdout, off.stderr))


def main():
    global ENVLOCK, FETCH
    ENVLOCK, FETCH = sys.argv[1], sys.argv[2]
    fn = globals()["sc_" + sys.argv[3]]
    work = tempfile.mkdtemp(prefix="el-cache-env-")
    try:
        fn(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILED:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()

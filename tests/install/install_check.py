#!/usr/bin/python3
"""install_check.py BUILD SOURCE SANITIZED — envlock as `cmake --install` leaves it.

1. `cmake --install BUILD --prefix P` puts bin/envlock, lib/libenvlock.so*
   and share/envlock/bases/ under P.
2. The library's loaded bytes (debug sections stripped, as a package ships
   them) name neither SOURCE nor BUILD: no build-machine path is compiled in.
   Not checked in a sanitizer build (SANITIZED 1): UBSan keeps each check's
   source file name in the code by design.
3. P/bin/envlock resolves a spec on the default base with no --bases and no
   ENVLOCK_BASES: offline and with an empty cache it must get as far as the
   index (DL_ENV_PACKAGE_NOT_FOUND, exit 13), so the catalog was read.
4. With P/share/envlock/bases moved away, the same command fails naming
   P/share/envlock/bases/bases.yaml: that is where the library looks, even
   when ENVLOCK_BASES names a catalog (the library reads no ENVLOCK_*
   variable; only the CLI does, and --bases wins over it).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "fixtures"))
import specs  # noqa: E402

SPEC = specs.base_spec("install-check", "    python:\n      dependencies:\n        - numpy\n")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    build, source = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                       stdout=subprocess.DEVNULL)
        for p in ("bin/envlock", "lib/libenvlock.so", "share/envlock/bases/bases.yaml",
                  "share/envlock/bases/python-cpu-2026.09.status"):
            if not os.path.exists(os.path.join(prefix, p)):
                fail("%s not installed" % p)
        stripped = os.path.join(tmp, "lib.so")
        subprocess.run(["strip", "-o", stripped, os.path.join(prefix, "lib/libenvlock.so")],
                       check=True)
        data = open(stripped, "rb").read()
        for p in (source, build):
            if sys.argv[3] != "1" and p.encode() in data:
                fail("the installed library names %s" % p)
        spec = os.path.join(tmp, "s.yaml")
        with open(spec, "w") as f:
            f.write(SPEC)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENVLOCK_")}
        env["HOME"] = tmp
        cmd = [os.path.join(prefix, "bin/envlock"), "--offline", "--cache-dir",
               os.path.join(tmp, "cache"), "--json", "resolve", spec, "-o",
               os.path.join(tmp, "s.lock")]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode != 25 or "DL_ENV_PACKAGE_NOT_FOUND" not in r.stdout:
            fail("with the installed catalog: exit %d %s %s" % (r.returncode, r.stdout, r.stderr))
        shutil.move(os.path.join(prefix, "share/envlock/bases"), os.path.join(tmp, "moved"))
        env["ENVLOCK_BASES"] = ""
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        want = os.path.join(os.path.realpath(prefix), "share/envlock/bases/bases.yaml")
        if r.returncode != 10 or want not in r.stdout:
            fail("catalog moved away: exit %d, expected it to name %s: %s"
                 % (r.returncode, want, r.stdout))
    print("ok")


main()

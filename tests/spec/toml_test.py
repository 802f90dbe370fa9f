#!/usr/bin/env python3
"""toml_test.py MODE DUMP [DIR] — envlock's TOML 1.0 reader
(envspec/spec_toml.c, printed by toml_dump as toml-test's tagged JSON)
against outside truth.

  suite    the toml-test suite's TOML 1.0 cases recorded in DIR
           (tests/fixtures/toml-test): each valid/*.toml reads as its
           .json says, each invalid/*.toml is refused.
  tomllib  python3's tomllib (the stdlib reader, TOML 1.0) on generated
           documents (seeded, so a failure replays): the same value, or
           both refuse.
Date-times compare as the instants or wall times they name (the suite
writes them normalized), floats as numbers, everything else exactly."""

import datetime
import json
import math
import os
import random
import subprocess
import sys
import tomllib


def dump(exe, data):
    p = subprocess.run([exe], input=data, capture_output=True, timeout=30)
    if p.returncode not in (0, 1) or (p.returncode == 0 and not p.stdout):
        raise SystemExit("toml_dump crashed (%d): %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout) if p.returncode == 0 else None


def norm_dt(kind, s):
    s = s.replace("t", "T").replace("z", "Z")
    if kind in ("datetime", "datetime-local") and s[10] == " ":
        s = s[:10] + "T" + s[11:]
    head, dot, frac = s.partition(".")
    if dot:  # at most microseconds, as Python keeps them
        digits = ""
        while frac and frac[0].isdigit():
            digits, frac = digits + frac[0], frac[1:]
        s = head + "." + (digits + "000000")[:6] + frac
    if kind == "time-local":
        return datetime.time.fromisoformat(s)
    if kind == "date-local":
        return datetime.date.fromisoformat(s)
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def same(a, b, path="$"):
    if isinstance(a, dict) and "type" in a and "value" in a and len(a) == 2:
        if not (isinstance(b, dict) and b.get("type") == a["type"]):
            return "%s: %s vs %s" % (path, a, b)
        t, x, y = a["type"], a["value"], b["value"]
        if t == "float":
            fx, fy = float(x), float(y)
            ok = (math.isnan(fx) and math.isnan(fy)) or fx == fy
        elif t == "integer":
            ok = int(x) == int(y)
        elif t in ("datetime", "datetime-local", "date-local", "time-local"):
            ok = norm_dt(t, x) == norm_dt(t, y)
        else:
            ok = x == y
        return None if ok else "%s: %r vs %r" % (path, a, b)
    if isinstance(a, dict):
        # toml_dump writes a NUL in a key as the six characters \u0000
        a = {k.replace("\0", "\\u0000"): v for k, v in a.items()}
        if not isinstance(b, dict) or sorted(a) != sorted(b):
            return "%s: keys %s vs %s" % (path, sorted(a) if isinstance(a, dict) else a,
                                          sorted(b) if isinstance(b, dict) else b)
        for k in a:
            d = same(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return "%s: %s vs %s" % (path, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r vs %r" % (path, a, b)


def suite(exe, root):
    bad, n = [], {"valid": 0, "invalid": 0}
    for dirpath, _dirs, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".toml"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            got = dump(exe, open(path, "rb").read())
            if rel.startswith("valid"):
                n["valid"] += 1
                want = json.load(open(path[:-5] + ".json"))
                d = "refused" if got is None else same(want, got)
                if d:
                    bad.append("%s: %s" % (rel, d))
            else:
                n["invalid"] += 1
                if got is not None:
                    bad.append("%s: accepted" % rel)
    for b in bad:
        print("FAIL", b)
    print("toml-test: %d valid, %d invalid, %d wrong" % (n["valid"], n["invalid"], len(bad)))
    return 1 if bad else 0


def tagged(v):
    if isinstance(v, dict):
        return {k: tagged(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tagged(x) for x in v]
    if isinstance(v, bool):
        return {"type": "bool", "value": "true" if v else "false"}
    if isinstance(v, int):
        return {"type": "integer", "value": str(v)}
    if isinstance(v, float):
        return {"type": "float", "value": repr(v)}
    if isinstance(v, str):
        return {"type": "string", "value": v}
    if isinstance(v, datetime.datetime):
        return {"type": "datetime" if v.tzinfo else "datetime-local", "value": v.isoformat()}
    if isinstance(v, datetime.date):
        return {"type": "date-local", "value": v.isoformat()}
    if isinstance(v, datetime.time):
        return {"type": "time-local", "value": v.isoformat()}
    raise TypeError(v)


ATOMS = ['"s"', '"a\\tb\\u00e9\\U0001F600"', "'lit\\eral'", '"""\nml\\\n   x"""', "'''a''b'''",
         "0", "-17", "+3", "1_000", "0xdead_beef", "0o755", "0b1101", "01", "1__2", "0x",
         "3.14", "-0.0", "1e10", "6.626E-34", "1.", ".5", "1e", "inf", "-nan", "+inf",
         "true", "false", "True", "1979-05-27T07:32:00Z", "1979-05-27 07:32:00.999-07:00",
         "1979-05-27T07:32:00", "1979-05-27", "07:32:00.5", "1979-02-30", "24:00:00",
         "[]", "[1, 2,]", "[1 2]", '[ "a", [1], {x = 1} ]', "{}", "{a = 1, b.c = 2}",
         "{a = 1,}", "{a = 1, a = 2}", '"\\x"', '"a\nb"', "9223372036854775807",
         "9223372036854775808", "-9223372036854775808"]
KEYS = ["a", "b.c", '"q k"', "'lit'", "a . b", "1", "-", "c.d.e", "x..y", "é"]


def gen_doc(rng):
    lines = []
    for _ in range(rng.randint(1, 8)):
        k = rng.random()
        if k < 0.2:
            lines.append(rng.choice(["[t]", "[t.u]", "[[arr]]", "[a]", "[ b . c ]", "[[a]]", "[]"]))
        elif k < 0.3:
            lines.append(rng.choice(["# comment", "", "   ", "#\x01"]))
        else:
            lines.append("%s = %s%s" % (rng.choice(KEYS), rng.choice(ATOMS),
                                        rng.choice(["", " # c", " x"]) if rng.random() < 0.3 else ""))
    text = "\n".join(lines) + rng.choice(["", "\n", "\r\n"])
    return text.encode()


def beyond_int64(v):
    """TOML 1.0 says an integer that is not a 64-bit one must be refused;
    tomllib keeps Python's unbounded int instead."""
    if isinstance(v, dict):
        return any(beyond_int64(x) for x in v.values())
    if isinstance(v, list):
        return any(beyond_int64(x) for x in v)
    return isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63


def differential(exe, n=3000):
    rng = random.Random(20)
    accepted = 0
    for i in range(n):
        data = gen_doc(rng)
        try:
            doc = tomllib.loads(data.decode())
            want = None if beyond_int64(doc) else tagged(doc)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            want = None
        got = dump(exe, data)
        if (want is None) != (got is None) or (want is not None and same(want, got)):
            print("case %d: %r\ntomllib: %s\nenvlock: %s" % (i, data, want, got))
            return 1
        accepted += want is not None
    print("tomllib: %d documents (%d valid), the same reading" % (n, accepted))
    return 0


def main():
    mode, exe = sys.argv[1], sys.argv[2]
    if mode == "suite":
        return suite(exe, sys.argv[3])
    return differential(exe)


if __name__ == "__main__":
    sys.exit(main())

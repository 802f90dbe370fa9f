#!/usr/bin/python3
"""digest_reference.py — the spec digest computed without envlock.

    digest_reference.py JCS_DIGEST_BIN DIGEST_DIR

For every NAME.yaml in DIGEST_DIR there is a hand-written NAME.spec.json: the
`spec` object of that document with every default written out, as the
Environment reference model dumps it. This script canonicalizes it with its
own small RFC 8785 writer (members sorted by UTF-16 code units, minimal
escapes, ECMAScript number text), hashes it, and compares the result with
what envlock's el_spec_digest() says for NAME.yaml (`JCS_DIGEST_BIN print`).
"""
import hashlib
import json
import math
import os
import subprocess
import sys


def es_number(x):
    """ECMAScript Number::toString for the doubles these specs hold."""
    if isinstance(x, bool):
        raise TypeError("bool is not a number")
    if isinstance(x, int):
        if abs(x) > 2 ** 53:
            raise ValueError("integer beyond 2^53")
        return str(x)
    if not math.isfinite(x):
        raise ValueError("NaN/Infinity")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr() is the shortest round-trip text; take its digits and exponent
    mant, _, exp = repr(abs(x)).partition("e")
    exp = int(exp) if exp else 0
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + exp - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    body = digits[0] + ("." + digits[1:] if k > 1 else "")
    return sign + body + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def canon(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return es_number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(v[k]) for k in keys) + "}"


def self_check():
    for x, want in [(2.0, "2"), (1.5, "1.5"), (0.5, "0.5"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
                    (1e-7, "1e-7"), (0.000001, "0.000001"), (123.456, "123.456"), (5e-324, "5e-324"),
                    (-0.0, "0"), (1000.0, "1000"), (1.7976931348623157e308, "1.7976931348623157e+308")]:
        got = es_number(x)
        assert got == want, (x, got, want)
    assert canon({"\ufb33": 1, "\U0001F600": 2, "b": 3}) == '{"b":3,"\U0001F600":2,"\ufb33":1}'


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    self_check()
    binary, folder = sys.argv[1:]
    names = sorted(f[:-len(".spec.json")] for f in os.listdir(folder) if f.endswith(".spec.json"))
    failed = 0
    for name in names:
        with open(os.path.join(folder, name + ".spec.json"), encoding="utf-8") as f:
            spec = json.load(f)
        want = "sha256:" + hashlib.sha256(canon(spec).encode("utf-8")).hexdigest()
        proc = subprocess.run([binary, "print", os.path.join(folder, name + ".yaml")],
                              capture_output=True, text=True)
        got = proc.stdout.strip()
        if got != want:
            failed += 1
            print("FAIL %s\n  reference: %s\n  envlock:   %s\n  reference bytes: %s\n%s"
                  % (name, want, got, canon(spec), proc.stderr))
        else:
            print("ok   %s %s" % (name, got))
    print("digest reference: %d specs, %d failed" % (len(names), failed))
    return 1 if failed or not names else 0


if __name__ == "__main__":
    sys.exit(main())

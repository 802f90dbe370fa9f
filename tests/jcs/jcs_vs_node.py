#!/usr/bin/python3
"""jcs_vs_node.py — differential test of spec_jcs.c against node.

    jcs_vs_node.py numbers|documents JCS_DRIVER JCS_REF_JS

Generates inputs from a fixed seed, feeds them to the C driver and to the
ECMAScript reference (jcs_ref.js under /usr/bin/node) and compares the
outputs line by line. Exits 77 (skipped) when node is missing.
"""
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys

SEED = 8785


def bits(x):
    return "%016x" % struct.unpack(">Q", struct.pack(">d", x))[0]


def number_inputs(rng):
    out = []
    # arbitrary bit patterns, NaN and infinities included
    for _ in range(4000):
        out.append("%016x" % rng.getrandbits(64))
    # short decimals across the ranges where the layout changes
    for _ in range(2500):
        digits = rng.randint(1, 17)
        mant = rng.randrange(10 ** (digits - 1), 10 ** digits)
        exp = rng.randint(-40, 40)
        x = float("%de%d" % (mant, exp))
        out.append(bits(-x if rng.random() < 0.3 else x))
    # every power of two, subnormals included
    for e in range(-1074, 1024):
        out.append(bits(math.ldexp(1.0, e)))
    # near the layout boundaries: 2^53, 1e21, 1e-6, 1e-7 and powers of ten
    for center in [2.0 ** 53, 1e21, 1e-6, 1e-7] + [10.0 ** k for k in range(-30, 31)]:
        x = center
        for _ in range(6):
            x = math.nextafter(x, math.inf)
            out.append(bits(x))
        x = center
        for _ in range(6):
            x = math.nextafter(x, -math.inf)
            out.append(bits(x))
    for i in range(-50, 51):
        out.append(bits(float(2 ** 53 + i)))
    out.append(bits(-0.0))
    out.append(bits(5e-324))
    out.append(bits(1.7976931348623157e308))
    return out


KEY_POOL = ["a", "b", "A", "_", "1", "10", "2", "", "\r", "\x01", "\x7f", "\u0080", "\u00f6",
            "\u20ac", "\ufb33", "\uffff", "\ue000", "\U0001F600", "\U00010000", "\U0010FFFF",
            "ab", "a\u00f6", "a\U0001F600", "a\uffff", "key with space", "\"", "\\", "/"]


def rand_string(rng, allow_nul=True):
    chars = []
    for _ in range(rng.randint(0, 8)):
        r = rng.random()
        if r < 0.4:
            chars.append(chr(rng.randint(0x20, 0x7e)))
        elif r < 0.55:
            c = rng.randint(0 if allow_nul else 1, 0x1f)
            chars.append(chr(c))
        elif r < 0.75:
            c = rng.randint(0x80, 0xffff)
            if 0xD800 <= c <= 0xDFFF:
                c = 0xE000
            chars.append(chr(c))
        else:
            chars.append(chr(rng.randint(0x10000, 0x10FFFF)))
    return "".join(chars)


def rand_number(rng):
    r = rng.random()
    if r < 0.3:
        return rng.randint(-(2 ** 53), 2 ** 53)
    if r < 0.4:
        return rng.randint(-1000, 1000)
    while True:
        x = struct.unpack(">d", struct.pack(">Q", rng.getrandbits(64)))[0]
        if r < 0.7:
            x = float("%de%d" % (rng.randrange(1, 10 ** rng.randint(1, 17)), rng.randint(-30, 30)))
        if math.isfinite(x):
            return x


def rand_value(rng, depth):
    r = rng.random()
    if depth < 4 and r < 0.2:
        return [rand_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    if depth < 4 and r < 0.45:
        obj = {}
        for _ in range(rng.randint(0, 7)):
            k = rng.choice(KEY_POOL) if rng.random() < 0.6 else rand_string(rng, allow_nul=False)
            obj[k] = rand_value(rng, depth + 1)
        return obj
    if r < 0.55:
        return rng.choice([None, True, False])
    if r < 0.75:
        return rand_string(rng)
    return rand_number(rng)


def document_inputs(rng):
    out = []
    for i in range(1500):
        v = rand_value(rng, 0)
        # Raw UTF-8, not \u escapes: json-c 0.16's tokener decodes some escaped
        # surrogate pairs to U+FFFD ("\udb37\ude43"), which is its business,
        # not the serializer's.
        out.append(json.dumps(v, ensure_ascii=False, separators=(",", ":") if i % 3 else None))
    return out


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("numbers", "documents"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, driver, ref = sys.argv[1:]
    node = "/usr/bin/node" if os.access("/usr/bin/node", os.X_OK) else shutil.which("node")
    if not node:
        print("node not found: skipped")
        return 77
    rng = random.Random(SEED)
    inputs = number_inputs(rng) if mode == "numbers" else document_inputs(rng)
    data = ("\n".join(inputs) + "\n").encode("utf-8")
    got = subprocess.run([driver, mode], input=data, capture_output=True, check=True).stdout
    want = subprocess.run([node, ref, mode], input=data, capture_output=True, check=True).stdout
    got_lines = got.decode("utf-8").split("\n")
    want_lines = want.decode("utf-8").split("\n")
    bad = 0
    for i, (inp, g, w) in enumerate(zip(inputs, got_lines, want_lines)):
        if g != w:
            bad += 1
            if bad <= 10:
                print("MISMATCH #%d\n  input: %s\n  envlock: %s\n  node:    %s" % (i, inp, g, w))
    if len(got_lines) != len(want_lines):
        print("line counts differ: envlock %d, node %d" % (len(got_lines), len(want_lines)))
        bad += 1
    errors = sum(1 for w in want_lines if w == "ERROR")
    print("%s: %d inputs compared (%d refused by both), %d mismatches"
          % (mode, len(inputs), errors, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

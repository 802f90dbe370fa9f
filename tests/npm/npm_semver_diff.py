#!/usr/bin/python3
"""npm_semver_diff.py — differential test of envlock's npm version grammar
against node's `semver` package.

Generates a fixed-seed mix of hand-picked edge cases (node-semver's
documented behaviour: hyphen partials, x-ranges, caret/tilde on 0.x,
prerelease gating, `||`, whitespace oddities, invalid input) and random
cases, asks node for every answer in one process (npm_semver_ref.js) and
the C side in one process (npm_semver_driver), and fails on any
disagreement. Exits 77 (ctest SKIP) when node or semver is missing, and
also when the semver found is not the 7.8 line envlock follows and it
disagrees (Debian's 7.3.5 does not trim versions, accepts `1.x.2`, ...).

Deliberate deviations, which the generator therefore does not produce:
- With loose + includePrerelease, a comparator whose normalized version is
  longer than 256 characters (a 256-character `1.2.3aaaa...`, normalized to
  `1.2.3-aaaa...`) makes node's satisfies() throw a TypeError when it is
  tested; envlock compares normally (so satisfies is false/true, never an
  exception).
- Strings with NUL bytes or invalid UTF-8 cannot reach node's API as the
  same value; envlock stops at NUL and treats stray bytes as ordinary
  non-whitespace characters.

Usage: npm_semver_diff.py --driver PATH --node PATH --modules DIR [DIR...]
       [--seed N] [--scale N] [--dump FILE]
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
PER_CATEGORY = 10000
# The node-semver release line whose answers envlock reproduces exactly.
TARGET = "7.8."

# ---------------------------------------------------------------- pieces

NUMS = ["0", "1", "2", "3", "10", "01", "00", "007", "1", "2", "0", "1", "99",
        "9007199254740991", "9007199254740992", "9007199254740990",
        "18446744073709551616", "99999999999999999999999", "123456789012345678901234"]
SMALL = ["0", "1", "2", "3", "0", "1", "2", "10"]
PRE_IDS = ["alpha", "beta", "rc", "0", "1", "2", "10", "01", "00", "-", "--", "a-b", "1a",
           "x", "X", "pre", "alpha1", "beta-2", "9007199254740991", "9007199254740992",
           "9007199254740993", "18446744073709551616", "0a", "A", "Z9", "ä", ""]
BUILD_IDS = ["build", "001", "sha", "1", "exp", "x-y", "0", "20130313144700", "", "a.b"]
WS = [" ", "  ", "\t", "\n", "\u00a0", "\ufeff", "\u2003", "\u3000", "\r\n", "\u2028", "\u0085"]
OPS = ["", "=", "<", "<=", ">", ">=", "==", "=<", "=>", "<>", "!=", ">==", "v", "=v"]
XS = ["x", "X", "*"]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def rand_num(rng, small=True):
    if small and rng.random() < 0.85:
        return pick(rng, SMALL)
    return pick(rng, NUMS)


def rand_pre(rng):
    return ".".join(pick(rng, PRE_IDS) for _ in range(rng.choice([1, 1, 1, 2, 2, 3])))


def rand_build(rng):
    return ".".join(pick(rng, BUILD_IDS) for _ in range(rng.choice([1, 1, 2])))


def rand_version(rng, small=True):
    """A version-like string: usually valid, often oddly written."""
    r = rng.random()
    parts = [rand_num(rng, small) for _ in range(3)]
    if r < 0.05:
        parts = parts[:rng.choice([1, 2])]
    elif r < 0.08:
        parts.append(rand_num(rng, small))
    s = ".".join(parts)
    if rng.random() < 0.35:
        sep = "-" if rng.random() < 0.85 else ""
        s += sep + rand_pre(rng)
    if rng.random() < 0.15:
        s += "+" + rand_build(rng)
    if rng.random() < 0.12:
        s = pick(rng, ["v", "=", "V", "v=", "=v", "==", "v ", " ", "vv"]) + s
    if rng.random() < 0.08:
        s = pick(rng, WS) + s
    if rng.random() < 0.08:
        s = s + pick(rng, WS)
    if rng.random() < 0.03:
        # splice in a random odd character
        i = rng.randrange(len(s) + 1)
        s = s[:i] + pick(rng, ["x", "*", ".", "-", "+", " ", "_", "a", "0"]) + s[i:]
    return s


def rand_partial(rng, small=True):
    """An x-range style partial version."""
    k = rng.choice([1, 2, 3, 3, 3])
    comps = []
    for i in range(k):
        comps.append(pick(rng, XS) if rng.random() < 0.2 else rand_num(rng, small))
    s = ".".join(comps)
    if k == 3 and rng.random() < 0.25:
        s += ("-" if rng.random() < 0.9 else "") + rand_pre(rng)
    if rng.random() < 0.05:
        s += "+" + rand_build(rng)
    if rng.random() < 0.06:
        s = pick(rng, ["v", "=", "v=", " "]) + s
    return s


def rand_comparator(rng):
    r = rng.random()
    if r < 0.25:
        op = pick(rng, OPS[:6]) if rng.random() < 0.9 else pick(rng, OPS)
        sp = pick(rng, ["", "", "", " ", "  ", "\t"])
        return op + sp + rand_partial(rng)
    if r < 0.45:
        op = pick(rng, ["^", "~", "~>", "^", "~"])
        sp = pick(rng, ["", "", "", " ", "  "])
        return op + sp + rand_partial(rng)
    if r < 0.58:
        a = rand_partial(rng)
        b = rand_partial(rng)
        sep = pick(rng, [" - ", " - ", "  -  ", " -", "- ", "-", " \t- "])
        return a + sep + b
    if r < 0.66:
        return pick(rng, ["*", "x", "X", "", ">=*", "<*", ">*", "=*", "x.x", "*.*.*", "1.*.2",
                          "x.1", "latest", "next", ">=0.0.0", ">=0.0.0-0", "<0.0.0-0", "<0.0.0",
                          "*-beta", "||", "-", "1.2.3 -", "- 1.2.3", ">", "<=", "~", "^", "~>"])
    if r < 0.9:
        return rand_partial(rng)
    return rand_version(rng)


def rand_set(rng):
    n = rng.choice([1, 1, 1, 2, 2, 3])
    return pick(rng, [" ", " ", " ", "  ", "\t"]).join(rand_comparator(rng) for _ in range(n))


def rand_range(rng):
    n = rng.choice([1, 1, 1, 1, 2, 2, 3])
    seps = [" || ", "||", " ||", "|| ", "  ||  ", " | ", "|||"]
    s = ""
    for i in range(n):
        if i:
            s += pick(rng, seps)
        s += rand_set(rng)
    if rng.random() < 0.05:
        s = pick(rng, WS) + s + pick(rng, WS)
    return s


# ---------------------------------------------------------------- edge cases

EDGE_VERSIONS = [
    "1.2.3", "v1.2.3", "=1.2.3", "==1.2.3", "v=1.2.3", "=v1.2.3", " v 1.2.3 ", "vv1.2.3",
    "1.2.3-", "1.2.3-.a", "1.2.3--", "1.2.3beta", "1.2.3-beta", "1.2.33.4", "1.2.345.6",
    "1.2.3.4", "1.2", "1", "", " ", "01.2.3", "1.02.3", "1.2.03", "1.2.3-01", "1.2.3-0a",
    "1.2.3+01", "1.2.3+", "1.2.3-+b", "1.2.3-a..b", "1.2.3-a.", "1.2.3+a..b", "1.2.3 -beta",
    "9007199254740991.0.0", "9007199254740992.0.0", "0.9007199254740991.0",
    "1.0.0-9007199254740991", "1.0.0-9007199254740992", "1.0.0-9007199254740993",
    "\u00a01.2.3\u00a0", "\ufeff1.2.3", "v\u00a01.2.3", "1.2.3\u2028", "\u00851.2.3",
    "1.2.3-ä", "1.2.3-alpha_1", "1.2.3-" + "a" * 250, "1.2.3-" + "a" * 251,
    "1.2.3-" + "1" * 250, "1.2.3+" + "b" * 250, "1.2.3" + "a" * 251,
    " " * 250 + "1.2.3", " " * 252 + "1.2.3", "0.0.0", "0.0.0-0", "1.2.3-0.0", "1.2.3-0-0",
    "1.2.3-a-", "v1.2.3-rc.1+build.5", "1.2.3-rc.1+build.5", "1.2.x", "1.2.*", "*",
    "99999999999999999999999.0.0", "1.2.3-x.7.z.92", "1.0.0-alpha+001", "1.0.0+20130313144700",
    "1.0.0-beta+exp.sha.5114f85", "1.0.0+21AF26D3----117B344092BD",
]

EDGE_RANGES = [
    "", " ", "*", "x", "X", "x.x", "x.x.x", "*.*", "1.x", "1.X", "1.*", "1.2.x", "1.2.*", "1.x.x",
    "1.x.2", "x.1", "x.1.2", "1.*.2", "=1.x", "=*", ">=*", "<*", ">*", "<=*",
    "1.2.3 - 2.3.4", "1.2 - 2.3.4", "1 - 2", "1.2.3 - 2.3", "1.2.3 - 2", "1.2.3 - x",
    "x - 1.2.3", "* - 2", "1.2.3-beta - 2.3.4-rc", "1.2.3 - 2.3.4-rc.1", "1.2.3 -2.3.4",
    "1.2.3- 2.3.4", "1.2.3  -  2.3.4", "= 1.2.3 - 2", "v1.2.3 - v2.3.4", "1.2.3 - 2.3.4 - 3",
    "1.2.3+build - 2.3.4+build", "1 - 2 || 3 - 4", ">=1 - 2",
    "~1.2.3", "~1.2", "~1", "~0.2.3", "~0.2", "~0", "~1.2.3-beta.2", "~>1.2.3", "~> 1.2",
    "~ 1.2.3", "~1.x", "~x", "~*", "~", "~>", "~1.2.3-beta", "~v1.2.3", "~=1.2.3",
    "^1.2.3", "^0.2.3", "^0.0.3", "^1.2.3-beta.2", "^0.0.3-beta", "^1.2.x", "^0.0.x", "^0.0",
    "^1.x", "^0.x", "^0", "^1", "^*", "^x", "^", "^ 1.2.3", "^  1.2.3", "^v1.2.3", "^=1.2.3",
    "^0.1.x", "^0.0.1-beta.1", "^01.2.3", "^1.02.3",
    ">1.2.3", ">=1.2.3", "<1.2.3", "<=1.2.3", "=1.2.3", "==1.2.3", "1.2.3", "> 1.2.3",
    ">= 1.2.3", "<  1.2.3", ">=1.2.3 <2", ">=1.2.3 <2.0.0", ">= 1.2.3 < 2", ">=1.2.3 <2.0.0-0",
    ">1", ">1.2", "<=1", "<=1.2", ">=1.2", "<1.2", ">1.x", "<=1.x", "<1.x", ">=1.x", ">*",
    ">=1.2.3-alpha <1.2.3", ">1.2.3-alpha.3", "<1.2.3-beta", "1.2.3-alpha.7",
    ">=0.0.0", ">=0.0.0-0", "<0.0.0-0", "<0.0.0", ">=0.0.0 || <0.0.0-0", "<0.0.0-0 || 1.2.3",
    "<0.0.0-0 || <0.0.0-0", "1.2.3 || *", "* || 1.2.3", "|| 1.2.3", "1.2.3 ||", "||",
    "1.2.7 || >=1.2.9 <2.0.0", ">=1.2.3 || <1.0.0 || ~2.0", "1.2.3|||1.2.4", "1.2.3 | 1.2.4",
    "latest", "next", "beta", "1.2.3 foo", "foo 1.2.3", "1.2.3 >=", ">=", "<", "=", "-",
    "1.2.3 -", "- 1.2.3", ">=1.2.3\t<2", ">=1.2.3\u00a0<2", "\u3000^1.2.3\u3000", ">=\u00a01.2.3",
    ">=1.2.3  <2.0.0", " >=1.2.3 ", ">01.2.3", ">1.02.3", "1.2.03", "1.2.3-01", "<1.2.3-01",
    ">=9007199254740991.0.0", "^9007199254740991.0.0", "~0.9007199254740991", ">9007199254740991.x",
    ">99999999999999999999999.x", "1.2.3 >99999999999999999999999.x",
    "^99999999999999999999999", "~1.99999999999999999999999", "1.2.3 - 99999999999999999999999",
    ">=1.2.3 >=1.2.3", "1.2.3 1.2.3", "* 1.2.3", "1.2.3 *", ">=1.2.3 *", "1.2.3 >=0.0.0",
    "1.2.33.4", "~1.2.33.4", "^1.2.33.4", "1.2.3beta", "^1.2.3beta", ">=1.2.3beta",
    ">==1.2.3", "<==1.2.3", ">= =1.2.3", "> = 1.2.3", "=>1.2.3", "=<1.2.3", "!=1.2.3",
    "v1.2.3", "=v1.2.3", "vv1.2.3", "v 1.2.3", "= 1.2.3", "1.2.3+build", ">1.2.3+build",
    "^1.2.3+build", "~1.2+b", "+build", "1+b", "1.2.3-pre+b.c", "1.2.3-+b",
    ">=1.0.0-beta.1 <1.0.0", "^1.0.0-0", "~1.0.0-0", ">1.0.0-0 <1.0.1", "1.0.0-alpha - 1.0.0",
]


def edge_cases():
    cases = []
    for v in EDGE_VERSIONS:
        for o in (0, 1):
            cases.append(["valid", v, o])
            cases.append(["clean", v, o])
    for r in EDGE_RANGES:
        for o in (0, 1, 2, 3):
            cases.append(["valid_range", r, o])
    probe = ["1.2.3", "1.2.4", "1.3.0", "2.0.0", "0.2.3", "0.2.9", "0.3.0", "0.0.3", "0.0.4",
             "1.2.3-beta.2", "1.2.3-beta.4", "1.2.4-beta.1", "3.4.5-alpha.9", "1.0.0-0",
             "0.0.0", "0.0.0-0", "1.0.0", "1.9.9", "2.3.4", "2.3.5", "2.3.4-rc.1", "2.3.5-rc.1",
             "1.2.0", "1.2.3-alpha.7", "1.2.3-alpha.8", "v1.2.3", " 1.2.3 ", "1.2.3beta",
             "01.2.3", "1.2", "", "invalid"]
    for r in EDGE_RANGES:
        for v in probe:
            for o in (0, 1, 2):
                cases.append(["satisfies", v, r, o])
    for a in EDGE_VERSIONS[:60]:
        for b in ("1.2.3", "1.2.3-beta", "1.0.0-9007199254740992", "1.2.3-01", "v1.2.3+b"):
            cases.append(["compare", a, b, 1])
            cases.append(["compare", b, a, 0])
    for r in EDGE_RANGES:
        cases.append(["max", probe, r, 0])
        cases.append(["min", probe, r, 0])
    return cases


# ---------------------------------------------------------------- random cases

CHAOS = "0123456789012.....xX*-+^~~<>==||vv    \tab"


def chaos(rng):
    """A short random string over the grammar's own characters."""
    return "".join(pick(rng, CHAOS) for _ in range(rng.randrange(0, 16)))


def random_cases(rng, per):
    cases = []
    for o in (0, 1):
        for _ in range(per):
            cases.append(["valid", rand_version(rng, small=rng.random() < 0.7), o])
        for _ in range(per):
            cases.append(["clean", rand_version(rng), o])
    for _ in range(per):
        o = pick(rng, [0, 1])
        cases.append(["compare", rand_version(rng), rand_version(rng), o])
    for _ in range(per // 4):
        o = pick(rng, [0, 1])
        cases.append(["compare_build", rand_version(rng), rand_version(rng), o])
    for o in (0, 1, 2, 3):
        for _ in range(per if o != 3 else per // 4):
            cases.append(["satisfies", rand_version(rng), rand_range(rng), o])
    for _ in range(per):
        cases.append(["valid_range", rand_range(rng), pick(rng, [0, 1, 2, 3])])
    for _ in range(per // 2):
        cases.append(["valid_range", chaos(rng), pick(rng, [0, 1, 2, 3])])
        cases.append(["valid", chaos(rng), pick(rng, [0, 1])])
        cases.append(["satisfies", rand_version(rng), chaos(rng), pick(rng, [0, 1, 2])])
    for k in range(per + per // 4):
        vs = [rand_version(rng) for _ in range(rng.randrange(0, 9))]
        cases.append(["max" if k < per else "min", vs, rand_range(rng), pick(rng, [0, 0, 1, 2])])
    return cases


# ---------------------------------------------------------------- running

def find_semver(dirs):
    for d in dirs:
        if d and os.path.isfile(os.path.join(d, "semver", "package.json")):
            return os.path.abspath(d)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--node", default="/usr/bin/node")
    ap.add_argument("--modules", nargs="+", default=[])
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--scale", type=int, default=PER_CATEGORY)
    ap.add_argument("--dump")
    args = ap.parse_args()

    if not os.access(args.node, os.X_OK):
        print("SKIP: node not found at %s" % args.node)
        return SKIP
    mods = find_semver(args.modules)
    if not mods:
        print("SKIP: no semver package under %s" % " ".join(args.modules))
        return SKIP
    with open(os.path.join(mods, "semver", "package.json")) as f:
        ref_version = json.load(f)["version"]
    print("reference: semver %s from %s" % (ref_version, mods))

    rng = random.Random(args.seed)
    cases = edge_cases() + random_cases(rng, args.scale)
    data = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases).encode("utf-8")
    if args.dump:
        with open(args.dump, "wb") as f:
            f.write(data)

    env = dict(os.environ)
    env["NODE_PATH"] = mods  # Debian's copy finds its own dependencies there
    ref = subprocess.run([args.node, os.path.join(HERE, "npm_semver_ref.js"), mods],
                         input=data, capture_output=True, env=env)
    if ref.returncode != 0:
        print("node failed:\n" + ref.stderr.decode("utf-8", "replace"))
        return 1
    got = subprocess.run([args.driver], input=data, capture_output=True)
    if got.returncode != 0:
        print("driver failed (%d):\n%s" % (got.returncode, got.stderr.decode("utf-8", "replace")))
        return 1
    want = ref.stdout.decode("utf-8").split("\n")[:-1]
    have = got.stdout.decode("utf-8").split("\n")[:-1]
    if len(want) != len(cases) or len(have) != len(cases):
        print("answer count mismatch: %d cases, node %d, driver %d"
              % (len(cases), len(want), len(have)))
        return 1

    counts = {}
    bad = []
    for c, w, h in zip(cases, want, have):
        key = c[0] + ("" if c[0] in ("max", "min") else "/opts=%d" % c[-1])
        counts[key] = counts.get(key, 0) + 1
        if json.loads(w) != json.loads(h):
            bad.append((c, w, h))
    for k in sorted(counts):
        print("  %-24s %6d" % (k, counts[k]))
    print("total %d cases, %d disagreements" % (len(cases), len(bad)))
    for c, w, h in bad[:40]:
        print("DIFF %s\n   node: %s\n   envlock: %s" % (json.dumps(c, ensure_ascii=False), w, h))
    if bad and not ref_version.startswith(TARGET):
        print("SKIP: the reference is semver %s; envlock follows semver %sx, whose "
              "answers differ from older releases (e.g. 7.3 does not trim versions)"
              % (ref_version, TARGET))
        return SKIP
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

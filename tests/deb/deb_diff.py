#!/usr/bin/python3
"""Differential test of envlock's Debian version grammar.

Generates a fixed-seed set of version pairs (valid ones with epochs, tildes,
letters, `+`, `.`, `:`, `-` revisions, leading zeros and long digit runs, and
broken ones made by mutating them), runs them through the C batch driver
(deb_batch: our verdicts, our comparison, libsolv's comparison) and checks:

  --against dpkg     every distinct version's verdict against dpkg's own
                     (silent / warning / error), at least 2,000 pairs compared
                     by spawning dpkg --compare-versions directly, and every
                     pair of valid versions against python3-apt's
                     apt_pkg.version_compare (the same algorithm, in-process)
                     when it is installed; without it dpkg compares them all.
  --against libsolv  every pair of valid versions against libsolv's
                     pool_evrcmp_str() on a DISTTYPE_DEB pool.

Any disagreement fails the test and is printed.
"""
import argparse
import concurrent.futures
import random
import re
import subprocess
import sys

SEED = 20260917
N_PAIRS = 15000
N_DPKG_DIRECT = 2500

DIGIT_RUNS = ["0", "00", "1", "01", "001", "2", "9", "10", "010", "99", "100",
              "2024", "20240917", "4294967296", "18446744073709551616",
              "123456789012345678901234567890"]
LETTERS = "aAbBzZ"
UP_SEPS = [".", ".", "+", "~", "~", ":", "-", ""]
REV_SEPS = [".", "+", "~", ""]
EPOCHS = ["0", "1", "2", "00", "01", "10", "2147483647", "0000000000000000000001"]
JUNK = ["_", "!", "@", "/", ",", "=", "*", "(", " ", ":", "-", "é", "\x7f"]


def digits(rng):
    if rng.random() < 0.6:
        return str(rng.randint(0, 12))
    return rng.choice(DIGIT_RUNS)


def letters(rng):
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 3)))


def tokens(rng, seps, n):
    out = []
    for _ in range(n):
        out.append(rng.choice(seps))
        out.append(digits(rng) if rng.random() < 0.55 else letters(rng))
    return "".join(out)


def gen_valid(rng):
    epoch = rng.choice(EPOCHS) + ":" if rng.random() < 0.25 else ""
    upstream = digits(rng) + tokens(rng, UP_SEPS, rng.randint(0, 4))
    if rng.random() < 0.15:
        upstream += rng.choice(["~", "~~", "+", "."])
    if not epoch:
        upstream = upstream.replace(":", ".")
    revision = ""
    if rng.random() < 0.45:
        revision = "-" + (digits(rng) if rng.random() < 0.6 else letters(rng))
        revision += tokens(rng, REV_SEPS, rng.randint(0, 2))
        if rng.random() < 0.1:
            revision += "~"
    elif "-" in upstream:
        revision = "-0"
    return epoch + upstream + revision


def mutate(rng, v):
    kind = rng.randrange(7)
    i = rng.randint(0, len(v))
    if kind == 0:
        return v[:i] + rng.choice(JUNK) + v[i:]
    if kind == 1 and v:
        return v[:i] + v[i + 1:]
    if kind == 2:
        return rng.choice(["a", "Z", "~", ".", "+", "x:", ":", "1:", "a1:"]) + v
    if kind == 3:
        return v + rng.choice(["-", ":", " ", "  ", "- ", "-~", "-a_b"])
    if kind == 4:
        return rng.choice(["2147483648:", "99999999999999999999:", "1a:", "0:-"]) + v
    if kind == 5:
        return " " + v + " "
    return v.replace(".", "", 1)


def near(rng, v):
    """A version close to v, so comparisons get past the first difference."""
    r = rng.random()
    if r < 0.25:
        return v
    if r < 0.4:
        return v + rng.choice(["~", "~~", "a", "0", ".0", "+1", "-0", "-1", "~rc1"])
    if r < 0.55 and ":" not in v:
        return rng.choice(["0:", "1:", "00:"]) + v
    if r < 0.7 and v:
        i = rng.randrange(len(v))
        if v[i].isdigit():
            return v[:i] + "0" + v[i:]
        return v[:i] + rng.choice("~.+aZ9") + v[i + 1:]
    return v.replace("-", "+", 1) if "-" in v else v + "-1"


EDGES = [
    "0", "00", "0.0", "1.0", "1.00", "1.0-0", "1.0-00", "1.0-1", "1.0~", "1.0~~", "1.0~~a",
    "1.0~rc1", "1.0+1", "1.0.1", "1.0a", "1.0A", "1.0-1~", "1:1.0", "0:1.0", "00:1.0",
    "1:1.0-1", "2147483647:0", "1.0-1.1", "1.0+dfsg-1", "1.0+dfsg1-1+deb12u1",
    "2:1.2.3~beta2+git20240101.abcdef-1ubuntu1~22.04", "1.0-a", "1.0-A", "1.0-~", "1.0-+",
    "1.0-.", "1:2:3", "1:2:3-4", "1-2-3", "1-2-3-4", "1.0-1-0", "9", "10", "010", "1~", "1~~",
    "1~a", "1a~", "1.", "1+", "1..0", "1.~0", "1.a", "1.A", "1Z", "1z", "1~z", "0~",
    "18446744073709551616", "18446744073709551615", "123456789012345678901234567890",
    "123456789012345678901234567891",
    "a", "a1", "1_0", "1.0-a_b", "1:a", "1:", "1: ", ":1", "a:1", "1a:1", "1.0-", "1.0 -1",
    "-1", "1:-1", "2147483648:1", "99999999999999999999:1", " 1.0", "1.0 ", " 1.0 ", "1 .0",
    "1.0é", "1.0\x7f", "1,0", "1=0", "1/0",
]


def generate():
    rng = random.Random(SEED)
    pool = list(EDGES)
    for _ in range(3000):
        v = gen_valid(rng)
        pool.append(v if rng.random() < 0.8 else mutate(rng, v))
    pairs = []
    for i, a in enumerate(EDGES):
        for b in EDGES[i:i + 6]:
            pairs.append((a, b))
    while len(pairs) < N_PAIRS:
        a = rng.choice(pool)
        b = near(rng, a) if rng.random() < 0.5 else rng.choice(pool)
        if rng.random() < 0.5:
            a, b = b, a
        pairs.append((a, b))
    # dpkg reads a leading `-` as an option and gives "" its own meaning;
    # the grammar's unit tests cover those.
    ok = lambda v: v and not v.startswith("-") and v != "<unknown>" and "\t" not in v
    pairs = [(a, b) for a, b in pairs if ok(a) and ok(b)]
    return pairs


def run_batch(batch, pairs):
    data = "".join(f"{a}\t{b}\n" for a, b in pairs).encode()
    out = subprocess.run([batch], input=data, stdout=subprocess.PIPE, check=True).stdout
    rows = []
    for line in out.decode().splitlines():
        va, vb, ours, solv = line.split()
        rows.append((int(va), int(vb), None if ours == "x" else int(ours), int(solv)))
    if len(rows) != len(pairs):
        sys.exit(f"batch driver answered {len(rows)} of {len(pairs)} lines")
    return rows


def dpkg_call(a, rel, b):
    p = subprocess.run(["dpkg", "--compare-versions", a, rel, b],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode(errors="replace")


def dpkg_verdict(v):
    rc, err = dpkg_call(v, "eq", v)
    if rc == 2 or "error:" in err:
        return 2
    return 1 if "warning:" in err else 0


def dpkg_compare(a, b):
    """dpkg's comparison of a and b, or None if it refuses either."""
    rc, _ = dpkg_call(a, "lt", b)
    if rc == 2:
        return None
    if rc == 0:
        return -1
    rc, _ = dpkg_call(a, "gt", b)
    if rc == 2:
        return None
    return 1 if rc == 0 else 0


def fmt(p):
    return f"{p[0]!r} vs {p[1]!r}"


def against_dpkg(pairs, rows):
    bad = []
    verdict = {}
    for (a, b), (va, vb, _, _) in zip(pairs, rows):
        verdict[a] = va
        verdict[b] = vb
    versions = sorted(verdict)
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        theirs = dict(zip(versions, ex.map(dpkg_verdict, versions)))
        for v in versions:
            if verdict[v] != theirs[v]:
                bad.append(f"verdict of {v!r}: ours {verdict[v]}, dpkg {theirs[v]}")
        # Direct comparisons, warned versions included (dpkg compares those).
        direct = [(p, r) for p, r in zip(pairs, rows) if r[2] is not None][:N_DPKG_DIRECT]
        if len(direct) < 2000:
            bad.append(f"only {len(direct)} comparable pairs for dpkg")
        results = list(ex.map(lambda pr: dpkg_compare(*pr[0]), direct))
    for (p, r), d in zip(direct, results):
        if d != r[2]:
            bad.append(f"{fmt(p)}: ours {r[2]}, dpkg {d}")
    valid = [(p, r) for p, r in zip(pairs, rows) if r[0] == 0 and r[1] == 0]
    try:
        import apt_pkg
        apt_pkg.init_system()
        for p, r in valid:
            c = apt_pkg.version_compare(p[0].strip(), p[1].strip())
            c = (c > 0) - (c < 0)
            if c != r[2]:
                bad.append(f"{fmt(p)}: ours {r[2]}, apt_pkg {c}")
        how = f"{len(valid)} valid pairs against apt_pkg"
    except ImportError:
        rest = valid[N_DPKG_DIRECT:]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
            results = list(ex.map(lambda pr: dpkg_compare(*pr[0]), rest))
        for (p, r), d in zip(rest, results):
            if d != r[2]:
                bad.append(f"{fmt(p)}: ours {r[2]}, dpkg {d}")
        how = f"{len(rest)} more valid pairs against dpkg (no apt_pkg)"
    counts = [sum(1 for v in versions if verdict[v] == k) for k in range(3)]
    print(f"{len(versions)} distinct versions (valid {counts[0]}, warned {counts[1]}, "
          f"refused {counts[2]}) checked against dpkg; {len(direct)} pairs compared by dpkg; {how}")
    return bad


def split_version(v):
    v = v.strip()
    epoch, rest = v.split(":", 1) if ":" in v else ("0", v)
    up, _, rev = rest.rpartition("-") if "-" in rest else (rest, "", "")
    return int(epoch), up, rev


def weight(c):
    if c == "" or c in "0123456789":
        return 0
    if c.isascii() and c.isalpha():
        return ord(c)
    return -1 if c == "~" else ord(c) + 256


def part_cmp(x, y, libsolv):
    """dpkg's order of one version part, written from its description. With
    `libsolv`, models libsolv's one divergence: where a digit run faces the
    end of the other part, dpkg reads the end as the number 0 (so "1.0" and
    "1." tie and "11-0" equals "11"), while libsolv ranks the digit side
    higher."""
    i = j = 0
    while i < len(x) or j < len(y):
        while (i < len(x) and not x[i].isdigit()) or (j < len(y) and not y[j].isdigit()):
            wa, wb = weight(x[i:i + 1]), weight(y[j:j + 1])
            if wa != wb:
                return -1 if wa < wb else 1
            i += 1
            j += 1
        m = re.match(r"[0-9]*", x[i:]).group()
        n = re.match(r"[0-9]*", y[j:]).group()
        if libsolv and (not m) != (not n):
            return 1 if m else -1
        va, vb = int(m or "0"), int(n or "0")
        if va != vb:
            return -1 if va < vb else 1
        i += len(m)
        j += len(n)
    return 0


def model_cmp(a, b, libsolv=False):
    ea, ua, ra = split_version(a)
    eb, ub, rb = split_version(b)
    if ea != eb:
        return -1 if ea < eb else 1
    return part_cmp(ua, ub, libsolv) or part_cmp(ra, rb, libsolv)


def against_libsolv(pairs, rows):
    bad = []
    n = known = 0
    for p, r in zip(pairs, rows):
        if r[0] == 0 and r[1] == 0:
            n += 1
            dpkg_model, libsolv_model = model_cmp(*p), model_cmp(*p, libsolv=True)
            known += dpkg_model != libsolv_model
            if r[2] != dpkg_model:
                bad.append(f"{fmt(p)}: ours {r[2]}, the Python model of dpkg {dpkg_model}")
            if r[3] != libsolv_model:
                bad.append(f"{fmt(p)}: ours {r[2]}, libsolv {r[3]} (model expects {libsolv_model})")
    print(f"{n} valid pairs compared against libsolv; {known} of them in libsolv's known "
          "divergence (a zero digit run facing the end of a part ranks higher)")
    if n < 10000:
        bad.append(f"only {n} valid pairs (need 10000)")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", required=True)
    ap.add_argument("--against", choices=["dpkg", "libsolv"], required=True)
    args = ap.parse_args()
    pairs = generate()
    rows = run_batch(args.batch, pairs)
    bad = (against_dpkg if args.against == "dpkg" else against_libsolv)(pairs, rows)
    for line in bad[:50]:
        print("MISMATCH", line)
    if bad:
        print(f"{len(bad)} mismatches")
        return 1
    print(f"{len(pairs)} pairs, no mismatch")
    return 0


if __name__ == "__main__":
    sys.exit(main())

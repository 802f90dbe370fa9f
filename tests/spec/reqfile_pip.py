#!/usr/bin/env python3
"""reqfile_pip.py DUMP [N] — envlock's reading of a requirements file
(spec_requirements.c, printed by reqfile_dump) against pip's own reader
(pip._internal.req.req_file.parse_requirements, the code `pip install -r`
runs) on N generated files (default 400, seeded, so a failure replays):
for every requirement, the line pip names it by, its text and its hashes
must agree, and envlock must report no problem for a file pip reads (but the
hash-checking mode rules, which pip applies at install time).

Files are made of the line forms pip documents that envlock accepts:
PEP 508 requirements with extras and markers, `#` comments at the start of
a line and after whitespace, `#` inside a word (not a comment), blank and
whitespace-only lines, `\\` continuations (also of a requirement onto its
--hash lines, and a comment line ending one), --hash in both spellings,
LF/CRLF line ends, a last line without a line end. Skipped (77) when pip
is not importable."""

import random
import subprocess
import sys
import tempfile

try:
    from pip._internal.network.session import PipSession
    from pip._internal.req.req_file import parse_requirements
except ImportError:
    print("SKIP: pip is not importable")
    sys.exit(77)

REQS = ["requests", "requests[socks]>=2.31", "pandas==2.2.3", "Flask_Login~=0.6",
        'numpy>=1.26; python_version >= "3.12"', "urllib3<3,>=1.21.1",
        'tomli ; python_version < "3.11"', "a.b-c[x,y] (>=1.0)", 'six; sys_platform == "a#b"',
        "zope.interface!=5.0.*", 'six; sys_platform == "linux" and extra == "a"']
COMMENTS = ["# a comment", "   # indented", "#", "#no space"]


def hexs(rng):
    return "".join(rng.choice("0123456789abcdef") for _ in range(64))


def gen_line(rng):
    k = rng.random()
    if k < 0.15:
        return rng.choice(COMMENTS)
    if k < 0.25:
        return rng.choice(["", "   ", "\t"])
    r = rng.choice(REQS)
    if rng.random() < 0.3:
        r += rng.choice(["  # why", " #", "\t# tab"])
    elif rng.random() < 0.3:
        hs = [rng.choice(["--hash=sha256:", "--hash sha256:"]) + hexs(rng)
              for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.5:
            return " \\\n    ".join([r] + hs)
        r += " " + " ".join(hs)
    elif rng.random() < 0.2:
        words = r.split(" ")
        if len(words) > 1:
            return " \\\n".join(words)
    return r


def gen_file(rng):
    lines = [gen_line(rng) for _ in range(rng.randint(1, 12))]
    if rng.random() < 0.2:
        lines.insert(rng.randrange(len(lines) + 1), "# a comment ends it \\")
    text = "\n".join(lines)
    if rng.random() < 0.7:
        text += "\n"
    if rng.random() < 0.3:
        text = text.replace("\n", "\r\n")
    return text


def pip_reads(text):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", newline="") as t:
        t.write(text)
        t.flush()
        out = []
        for r in parse_requirements(t.name, PipSession()):
            line = int(r.comes_from.rsplit("(line ", 1)[1].rstrip(")"))
            hashes = sorted("sha256:" + h for h in (r.options or {}).get("hashes", {}).get("sha256", []))
            out.append((line, r.requirement.strip(), hashes))
        return out


def envlock_reads(dump, text):
    p = subprocess.run([dump], input=text.encode(), capture_output=True, check=True)
    out, problems = [], []
    for ln in p.stdout.decode().splitlines():
        kind, _, rest = ln.partition(" ")
        if kind == "req":
            line, _col, _idx, req = rest.split(" ", 3)
            out.append((int(line), req.strip(), []))
        elif kind == "hash":
            out[-1][2].append(rest)
        elif kind == "problem":
            problems.append(rest)
    return [(a, b, sorted(c)) for a, b, c in out], problems


def main():
    dump = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rng = random.Random(20)
    reqs = 0
    for i in range(n):
        text = gen_file(rng)
        want = pip_reads(text)
        got, problems = envlock_reads(dump, text)
        # pip's reader leaves hash-checking mode to the install; envlock
        # checks it while reading (one --hash puts every line under it)
        if "--hash" in text:
            problems = [p for p in problems if "in hash-checking mode" not in p]
        if got != want or problems:
            print("case %d differs:\n%r\npip:     %s\nenvlock: %s\nproblems: %s"
                  % (i, text, want, got, problems))
            return 1
        reqs += len(want)
    print("%d files, %d requirements: envlock reads them as pip does" % (n, reqs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Measure the length of every C function definition in the product sources.

A function's length is counted from the line that holds its name to the line
of its closing brace, both included (the span a reader scrolls through). The
scan blanks comments, strings, character literals and preprocessor lines,
then takes each brace at file scope that follows a closing parenthesis as a
function body; struct, enum and initializer braces follow a name or `=` and
are skipped.

usage: funclen.py [--max N] [--over N] [--allow FILE] ROOT
  lists functions longer than --over (default 80) lines, longest first;
  exits 1 when any is longer than --max (default: no limit). --allow names
  a file of `PATH NAME LENGTH` lines: functions still waiting for their
  split, each allowed up to its recorded length and no further. An entry
  whose function is split (or gone) fails too, so the list only shrinks.
"""
import argparse
import os
import re
import sys

# Folders of the source tree that are not product code.
NOT_PRODUCT = {"tests", "scripts", "build", "corpus", "docs", ".git"}


def blank(s):
    return re.sub(r"[^\n]", " ", s)


# Comments, string and character literals, and preprocessor lines (with
# their continuations): none of them holds a brace that counts.
NOISE = re.compile(r"""
    //[^\n]*
  | /\*.*?(?:\*/|\Z)
  | "(?:[^"\\\n]|\\.)*"?
  | '(?:[^'\\\n]|\\.)*'?
  | ^[ \t]*\#(?:\\\n|[^\n])*
""", re.S | re.M | re.X)


def strip(text):
    """Blank comments, strings, char literals and preprocessor lines."""
    return NOISE.sub(lambda m: blank(m.group(0)), text)


def body_end(text, i):
    """Index of the brace that closes the one at i."""
    d = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            d += 1
        elif text[j] == "}":
            d -= 1
            if d == 0:
                return j
    return len(text) - 1


def functions(path):
    """Yield (name, first line, length) for each function defined in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip(f.read())
    depth, skip_to = 0, -1
    for m in re.finditer(r"[{}]", text):
        i = m.start()
        if i <= skip_to:
            continue
        if text[i] == "}":
            depth = max(0, depth - 1)
            continue
        if depth == 0:
            found = definition(text, i)
            if found:
                j = body_end(text, i)
                start = text.count("\n", 0, found[1]) + 1
                end = text.count("\n", 0, j) + 1
                yield found[0], start, end - start + 1
                skip_to = j
                continue
        depth += 1


def definition(text, i):
    """(name, offset) of the function whose body opens at i, or None
    when the brace opens a struct, enum or initializer."""
    k = i
    while k > 0 and text[k - 1].isspace():
        k -= 1
    if k == 0 or text[k - 1] != ")":
        return None
    p, level = k - 1, 0
    while p >= 0:
        if text[p] == ")":
            level += 1
        elif text[p] == "(":
            level -= 1
            if level == 0:
                break
        p -= 1
    base = max(0, p - 200)
    m = re.search(r"([A-Za-z_]\w*)\s*$", text[base:max(p, 0)])
    return (m.group(1), base + m.start()) if m else None


def product_sources(root):
    for top, dirs, files in os.walk(root):
        if os.path.samefile(top, root):
            dirs[:] = [d for d in dirs if d not in NOT_PRODUCT]
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.join(top, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=None)
    ap.add_argument("--over", type=int, default=80)
    ap.add_argument("--allow", default=None)
    ap.add_argument("root")
    args = ap.parse_args()
    rows = []
    for path in product_sources(args.root):
        for name, line, length in functions(path):
            rows.append((length, os.path.relpath(path, args.root), line, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    if len(rows) < 100:
        # A tree this small is a wrong root, not a tidy product.
        print(f"FAIL: only {len(rows)} functions found under {args.root}")
        return 2
    over = [r for r in rows if r[0] > args.over]
    for length, path, line, name in over:
        print(f"{length:5d} {path}:{line} {name}")
    print(f"{len(rows)} functions, {len(over)} over {args.over} lines")
    if args.max is None:
        return 0
    allowed = {}
    if args.allow:
        with open(args.allow, encoding="utf-8") as f:
            for line in f:
                words = line.split()
                if words and not words[0].startswith("#"):
                    allowed[(words[0], words[1])] = int(words[2])
    failed = 0
    for length, path, line, name in rows:
        cap = allowed.pop((path, name), None)
        if length <= args.max:
            if cap is not None:
                print(f"FAIL: {path}:{line} {name} is {length} lines now: "
                      f"drop it from {args.allow}")
                failed += 1
        elif cap is None or length > cap:
            print(f"FAIL: {path}:{line} {name} is {length} lines, over {args.max}"
                  + (f" and over its recorded {cap}" if cap is not None else ""))
            failed += 1
    for (path, name) in sorted(allowed):
        print(f"FAIL: {path} {name} is listed in {args.allow} but not found")
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""hidden_inputs.py SOURCE — the library has no hidden inputs or outputs.

1. No library source (every product folder but cli/) calls getenv() with an
   ENVLOCK_* name or writes to stderr; the one exception listed below says
   why it is still there.
2. Every ENVLOCK_* name the code reads (getenv, and the names cli/env.c
   passes to its readers) is in docs/configuration.md's table.
"""
import os
import re
import sys

LIBRARY = ["util", "versions", "cache", "indexes", "envspec", "lockfile", "base",
           "resolver", "plan", "bundle", "verbs"]
# util/alloc.c: the out-of-memory message just before abort(), when no
# caller can be told.
ALLOWED = {("util/alloc.c", "stderr")}


def sources(root, folders):
    for f in folders:
        for d, _, names in os.walk(os.path.join(root, f)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    p = os.path.join(d, n)
                    yield os.path.relpath(p, root), open(p, encoding="utf-8").read()


def main():
    root = sys.argv[1]
    bad = []
    for rel, text in sources(root, LIBRARY):
        for m in re.finditer(r'getenv(?:_fn)?\("(ENVLOCK_[A-Z_]+)"\)', text):
            if (rel, m[1]) not in ALLOWED:
                bad.append("%s reads %s" % (rel, m[1]))
        if re.search(r"\bstderr\b", re.sub(r"/\*.*?\*/", "", text, flags=re.S)) and \
                (rel, "stderr") not in ALLOWED:
            bad.append("%s writes to stderr" % rel)
    read = set()
    for rel, text in sources(root, ["cli"] + LIBRARY):
        read |= set(re.findall(r'getenv(?:_fn)?\("(ENVLOCK_[A-Z_]+)"\)', text))
        read |= set(re.findall(r'env_(?:number|text)\(\s*(?:ctx,\s*)?"(ENVLOCK_[A-Z_]+)"', text))
    doc = open(os.path.join(root, "docs", "configuration.md"), encoding="utf-8").read()
    table = set(re.findall(r"^\| `(ENVLOCK_[A-Z_]+)` \|", doc, re.M))
    for name in sorted(read - table):
        bad.append("%s is read but not in docs/configuration.md" % name)
    if len(read) < 10:
        bad.append("only %d variables found: the patterns no longer match the code" % len(read))
    for b in bad:
        print("FAIL:", b)
    print("%d variables read, all documented" % len(read) if not bad else "")
    return 1 if bad else 0


sys.exit(main())

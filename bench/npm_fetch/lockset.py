#!/usr/bin/env python3
"""bench/npm_fetch/lockset.py KIND LOCK [OUT] — the npm packages a lock holds.

KIND is envlock (an envlock lock's `ecosystem: npm` packages), npm
(package-lock.json v3's "packages", the root left out) or pnpm
(pnpm-lock.yaml's `packages:` keys). Prints "PATHS UNIQUE OPTIONAL": the
installed copies (node_modules paths; pnpm has none, so its unique count),
the distinct name@version pairs, and how many pairs only optional edges
reach (npm marks them "optional": true; pnpm `optional: true` in
snapshots; envlock never locks an optional dependency it cannot install
here). With OUT, writes the sorted name@version pairs there, one a line,
so two tools' answers can be diffed. Standard library only.
"""
import json
import re
import sys


def envlock(path):
    text = open(path, encoding="utf-8").read()
    text = text[text.find("\npackages:\n"):]
    pairs, paths = [], 0
    for m in re.finditer(r'^- ecosystem: npm\n  name: "?([^"\n]+)"?\n  version: "?([^"\n]+)"?\n'
                         r'  path: ', text, re.M):
        pairs.append("%s@%s" % (m.group(1), m.group(2)))
        paths += 1
    return paths, pairs, set()


def npm(path):
    pk = json.load(open(path, encoding="utf-8"))["packages"]
    pairs, optional = [], set()
    for p, meta in pk.items():
        if not p or meta.get("link"):
            continue
        name = meta.get("name") or p.rsplit("node_modules/", 1)[-1]
        pair = "%s@%s" % (name, meta.get("version"))
        pairs.append(pair)
        if meta.get("optional"):
            optional.add(pair)
    return len(pairs), pairs, optional


def pnpm(path):
    section, pairs, optional = None, [], set()
    key = None
    for line in open(path, encoding="utf-8"):
        if not line.startswith(" ") and line.strip():
            section = line.strip().rstrip(":")
            continue
        m = re.match(r"^  '?([^'\s][^']*?)'?:\s*$", line)
        if m:
            key = m.group(1)
            if section == "packages":
                pairs.append(key)
            continue
        if section == "snapshots" and line.strip() == "optional: true" and key:
            optional.add(re.sub(r"\(.*", "", key))
    return len(pairs), pairs, optional


def main():
    kind, path = sys.argv[1], sys.argv[2]
    paths, pairs, optional = {"envlock": envlock, "npm": npm, "pnpm": pnpm}[kind](path)
    uniq = sorted(set(pairs))
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            f.writelines(p + ("  (optional)" if p in optional else "") + "\n" for p in uniq)
    print(paths, len(uniq), len(optional & set(uniq)))


if __name__ == "__main__":
    main()

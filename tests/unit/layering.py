#!/usr/bin/env python3
"""Check that every #include of the product code points down the pipeline.

The stage order is the table of docs/architecture.md ("module | folder |
links"): a folder's files may include the headers of their own folder, of
the folders its row links (and what those link, transitively), and the
public headers (include/envlock/*); `everything above` links every row
above, as `every module` does (the anchor of the shared library), `libenvlock only` nothing but the
public headers. A quoted include is found by its path under the product
folders ("envlock/x.h" is include/envlock/x.h; a bare name, the one header
of that name outside include/). Angle-bracket includes are system or
third-party headers and are not judged.

usage: layering.py ROOT — prints each include that points up (file:line,
the header, the folders it may reach) and exits 1 if there is one."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_table(root):
    """[(folder, [linked names])] in table order, from docs/architecture.md."""
    rows = []
    with open(os.path.join(root, "docs", "architecture.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 3 or cells[0] in ("module", "---") or set(cells[0]) <= set("-"):
                continue
            folder = cells[1].rstrip("/")
            links = [re.sub(r"\s*\(.*\)", "", x).strip()
                     for x in cells[2].split(";")[0].split(",")]
            rows.append((folder, [x for x in links if x]))
    return rows


def reach(rows):
    """folder -> the set of folders its files may include."""
    folders = [f for f, _ in rows]
    direct = {}
    for i, (folder, links) in enumerate(rows):
        if links in (["everything above"], ["every module"]):
            direct[folder] = set(folders[:i])
        elif links == ["libenvlock only"]:
            direct[folder] = set()
        else:
            direct[folder] = {x for x in links if x in folders}
    out = {}
    for folder in folders:
        seen, todo = set(), list(direct[folder])
        while todo:
            g = todo.pop()
            if g not in seen:
                seen.add(g)
                todo.extend(direct.get(g, ()))
        out[folder] = seen | {folder, "include"}
    return out


def product_files(root, folders):
    for folder in folders:
        top = os.path.join(root, folder)
        if os.path.isfile(top):
            yield folder, top
            continue
        for d, _subs, files in os.walk(top):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    yield folder, os.path.join(d, name)


def header_index(root, folders):
    """relative path and bare name -> the folder that owns the header."""
    by_path, by_name = {}, {}
    for folder, path in product_files(root, folders + ["include"]):
        if not path.endswith(".h"):
            continue
        rel = os.path.relpath(path, root)
        by_path[rel] = folder
        if folder != "include":
            by_name.setdefault(os.path.basename(path), set()).add(folder)
    return by_path, by_name


def owner(inc, src, root, by_path, by_name):
    beside = os.path.relpath(os.path.join(os.path.dirname(src), inc), root)
    if beside in by_path:
        return by_path[beside]
    for rel, folder in by_path.items():
        if rel == os.path.join("include", inc) or (("/" in inc) and rel.endswith("/" + inc)):
            return folder
    found = by_name.get(os.path.basename(inc), set())
    return next(iter(found)) if len(found) == 1 else None


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    rows = read_table(root)
    may = reach(rows)
    folders = [f for f, _ in rows]
    by_path, by_name = header_index(root, folders)
    if len(rows) < 10 or not by_path:
        print("docs/architecture.md: no stage table read (%d rows): fix the table or this check"
              % len(rows))
        return 1
    bad = across = 0
    for folder, src in product_files(root, folders):
        with open(src, errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                to = owner(m.group(1), src, root, by_path, by_name)
                across += to not in (None, folder, "include")
                if to is None or to in may[folder]:
                    continue
                bad += 1
                print("%s:%d: includes \"%s\" of %s/, which %s/ may not reach (it reaches %s)"
                      % (os.path.relpath(src, root), n, m.group(1), to, folder,
                         ", ".join(sorted(may[folder]))))
    print("%d include%s across folders, %d pointing up" % (across, "" if across == 1 else "s", bad))
    if not across:
        print("no include across folders was found: the header index is wrong")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

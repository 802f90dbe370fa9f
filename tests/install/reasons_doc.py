#!/usr/bin/python3
"""reasons_doc.py SOURCE — docs/troubleshooting.md shows util/reasons.def
(every failure reason with its advice) and util/codes.def (every code with
its exit status and advice) as they are: a row missing, extra or worded
otherwise fails."""
import os
import re
import sys


def main():
    root = sys.argv[1]
    text = lambda p: open(os.path.join(root, p), encoding="utf-8").read()  # noqa: E731
    doc = text("docs/troubleshooting.md")
    reasons = re.findall(r'^R\("([a-z_]+)", (\d+), "(.*)"\)$', text("util/reasons.def"), re.M)
    codes = re.findall(r'^X\(\w+, "([A-Z_]+)", \w+, (\d+), "(.*?)", "(.*?)"\)$',
                       text("util/codes.def"), re.M)
    bad = []
    if len(reasons) < 10 or len(codes) < 18:
        bad.append("the .def patterns no longer match (%d reasons, %d codes)" % (len(reasons), len(codes)))
    doc_reasons = [(r, "0" if e == "-" else e, a) for r, e, a in
                   re.findall(r"^\| `([a-z_]+)` \| (\d+|-) \| (.*) \|$", doc, re.M)]
    if doc_reasons != reasons:
        bad.append("the reasons table differs from util/reasons.def: %s"
                   % sorted(set(doc_reasons) ^ set(reasons)))
    doc_codes = re.findall(r"^\| `([A-Z_]+)` \| (\d+) \| (.*?) \| (.*) \|$", doc, re.M)
    if doc_codes != codes:
        bad.append("the codes table differs from util/codes.def: %s" % sorted(set(doc_codes) ^ set(codes)))
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("%d reasons and %d codes, as in the code" % (len(reasons), len(codes)))
    return 1 if bad else 0


sys.exit(main())

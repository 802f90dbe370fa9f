#!/usr/bin/env python3
"""report.py RESULTS — bench/resolve's tables from run.sh's result lines.

Each line of RESULTS is `LABEL WALL_MS RSS_KIB` (one timed run) or
`LABEL FAIL|TIMEOUT SECONDS [EXIT_STATUS]`. Prints, per label: runs, best and median wall
time, peak RSS (the largest of the runs); then the targets of issue 4 as
ratios of best times measured in the same interleaved rounds. Standard
library only."""

import statistics
import sys

runs = {}
fails = {}
order = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 3:
        continue
    if f[0] not in order:
        order.append(f[0])
    if f[1] in ("FAIL", "TIMEOUT"):
        fails[f[0]] = "%s%s after %ss" % (f[1].lower(), " (exit %s)" % f[3] if len(f) > 3 else "", f[2])
        continue
    runs.setdefault(f[0], []).append((float(f[1]), int(f[2])))


def best(label):
    return min(w for w, _ in runs[label]) if label in runs else None


def rss(label):
    return max(r for _, r in runs[label]) / 1024.0 if label in runs else None


print("%-34s %4s %10s %10s %9s" % ("run", "n", "best ms", "median ms", "RSS MiB"))
for label in order:
    if label in runs:
        ws = [w for w, _ in runs[label]]
        print("%-34s %4d %10.1f %10.1f %9.1f" % (label, len(ws), min(ws), statistics.median(ws),
                                                 rss(label)))
    else:
        print("%-34s %4s %10s" % (label, "-", fails.get(label, "not run")))

# (what, envlock label, peer label, kind, target): kind "slower" is
# envlock/peer (target: at most), "faster" is peer/envlock (target: at least).
# "combined" rows time envlock's whole three-ecosystem resolve against a peer
# doing only its own part; "part" rows compare like with like. Plain rows run
# against the server that sends the registries' Cache-Control (every tool may
# reuse a fresh page, as against pypi.org and npmjs.org); "revalidate" rows
# against the one that sends validators only (every page is a conditional
# GET, for envlock and the peer alike); "(cache)" rows take envlock --offline.
# The apt part is compared offline: apt-get -s reads only its local lists.
TARGETS = [
    ("combined vs libsolv testsolv", "combined:envlock-offline", "combined:testsolv", "slower", 1.5),
    ("combined vs pip", "combined:envlock", "pypi:pip", "faster", 50),
    ("python part vs pip", "pypi:envlock", "pypi:pip", "faster", 50),
    ("python part vs pip, revalidate", "pypi:envlock-revalidate", "pypi:pip-revalidate", "faster", 50),
    ("python part (cache) vs pip", "pypi:envlock-offline", "pypi:pip", "faster", 50),
    ("python part cold vs pip cold", "pypi:envlock-cold", "pypi:pip-cold", "faster", 5),
    ("combined vs npm", "combined:envlock", "npm:npm", "faster", 20),
    ("npm part vs npm", "npm:envlock", "npm:npm", "faster", 20),
    ("npm part vs npm, revalidate", "npm:envlock-revalidate", "npm:npm-revalidate", "faster", 20),
    ("npm part (cache) vs npm", "npm:envlock-offline", "npm:npm", "faster", 20),
    ("npm part cold vs npm cold", "npm:envlock-cold", "npm:npm-cold", "faster", 3),
    ("combined vs pnpm", "combined:envlock", "npm:pnpm", "faster", 1),
    ("npm part vs pnpm", "npm:envlock", "npm:pnpm", "faster", 1),
    ("combined vs apt-get -s", "combined:envlock-offline", "apt:apt-get", "faster", 20),
    ("apt part vs apt-get -s", "apt:envlock-offline", "apt:apt-get", "faster", 20),
]
print()
print("%-30s %10s %10s %16s %8s %4s" % ("target (best of each)", "envlock ms", "peer ms",
                                         "ratio", "target", "met"))
for what, e, p, kind, target in TARGETS:
    be, bp = best(e), best(p)
    if be is None or bp is None:
        print("%-30s %10s %10s %16s" % (what, "-" if be is None else "%.1f" % be,
                                          "-" if bp is None else "%.1f" % bp, "n/a"))
        continue
    if kind == "slower":
        r = be / bp
        text, met, tt = "%.2fx libsolv" % r, r <= target, "<=%gx" % target
    else:
        r = bp / be
        text, met, tt = "%.1fx faster" % r, r >= target, ">=%gx" % target
    print("%-30s %10.1f %10.1f %16s %8s %4s" % (what, be, bp, text, tt, "yes" if met else "NO"))
r = rss("combined:envlock-offline")
if r is not None:
    print("%-30s %10.1f %10s %16s %8s %4s" % ("combined peak RSS (MiB)", r, "", "", "<=64",
                                              "yes" if r <= 64 else "NO"))

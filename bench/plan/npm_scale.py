#!/usr/bin/env python3
"""npm_scale.py N OUT.lock [HEAD.lock] — a lock of N npm packages for bench/plan (issue
19, "plan is quadratic in npm packages"): every package a spec root at
node_modules/pkg-<i>, each depending on the next one, and every tenth on a
name no package has (the lookup falls back to a search by name). Valid by
lock_validate(); about 400 bytes a package, so at most about 41,000 fit in
the 16 MiB limit. Not a resolver's answer: a shape for `envlock export --format
package-lock` and `envlock plan`, whose cost grows with it."""
import base64
import hashlib
import sys

n, out = int(sys.argv[1]), sys.argv[2]
lines = ["lockVersion: 2", 'specDigest: "sha256:%s"' % ("0" * 63 + "1"),
         "target:", '  python: "3.13.7"', "  platform: manylinux_2_36_x86_64", "  arch: amd64",
         "options:", "  upgradeAll: false", "inputs: []", "packages:"]
if len(sys.argv) > 3:  # HEAD.lock: a real lock's header (specDigest, target, options), for plan
    head = open(sys.argv[3]).read().split("\ninputs:")[0].split("\n")
    lines = [l for l in head if not l.startswith("#")] + ["inputs: []", "packages:"]
for i in range(n):
    integ = base64.b64encode(hashlib.sha512(b"%d" % i).digest()).decode()
    nxt = (i + 1) % n
    lines += ["- ecosystem: npm", "  name: pkg-%d" % i, '  version: "1.0.0"',
              "  path: node_modules/pkg-%d" % i, '  source: "https://registry.npmjs.org/"',
              "  requestedBy: [spec]", "  dependencies:",
              "  - name: pkg-%d" % nxt, '    version: "1.0.0"', "    kind: dependency", '    spec: "^1.0.0"']
    if i % 10 == 0:
        lines += ["  - name: gone-%d" % i, '    version: "1.0.0"', "    kind: dependency", '    spec: "^1.0.0"']
    lines += ["  artifacts:", "  - file: pkg-%d-1.0.0.tgz" % i, '    hash: "sha512-%s"' % integ]
open(out, "w").write("\n".join(lines) + "\n")

#!/usr/bin/env python3
"""gen_npm.py OUT.scn — the npm half of bench/resolve's combined workload.

Six packages a sandbox asks for (react, lodash, zod, express, typescript,
@types/node) and what they pull in: express 5's real dependency graph as
published (accepts, body-parser, send, router, qs and the side-channel /
get-intrinsic family, ...), react's loose-envify, @types/node's undici-types.
Every package also carries older releases (patch and minor lines below the
newest, with the same dependencies) so packuments have a realistic number of
versions: a few for small helpers, dozens to hundreds for typescript (with
nightly "-dev" pre-releases) and @types/node (one major line per Node LTS).

The graph is written from the packages' public manifests as facts (names,
ranges), not copied text. Standard library only; output is deterministic.
"""

import datetime
import sys

START = datetime.datetime(2025, 9, 1, 12, 0, 0)

# name -> (newest version, {dep: range}, number of older releases to add)
# Older releases get the same dependencies; see releases() for their numbers.
GRAPH = {
    # the six roots
    "react": ("19.1.1", {}, 40),
    "lodash": ("4.17.21", {}, 30),
    "zod": ("4.1.5", {}, 60),
    "express": ("5.1.0", {
        "accepts": "^2.0.0", "body-parser": "^2.2.0", "content-disposition": "^1.0.0",
        "content-type": "^1.0.5", "cookie": "^0.7.1", "cookie-signature": "^1.2.1",
        "debug": "^4.4.0", "encodeurl": "^2.0.0", "escape-html": "^1.0.3", "etag": "^1.8.1",
        "finalhandler": "^2.1.0", "fresh": "^2.0.0", "http-errors": "^2.0.0",
        "merge-descriptors": "^2.0.0", "mime-types": "^3.0.0", "on-finished": "^2.4.1",
        "once": "^1.4.0", "parseurl": "^1.3.3", "proxy-addr": "^2.0.7", "qs": "^6.14.0",
        "range-parser": "^1.2.1", "router": "^2.2.0", "send": "^1.1.0",
        "serve-static": "^2.2.0", "statuses": "^2.0.1", "type-is": "^2.0.1", "vary": "^1.1.2",
    }, 3),
    "typescript": ("5.9.2", {}, 120),
    "@types/node": ("24.3.0", {"undici-types": "~7.10.0"}, 60),
    # react 18 and older
    "loose-envify": ("1.4.0", {"js-tokens": "^3.0.0 || ^4.0.0"}, 4),
    "js-tokens": ("4.0.0", {}, 6),
    "object-assign": ("4.1.1", {}, 5),
    # @types/node
    "undici-types": ("7.10.0", {}, 12),
    # express 5
    "accepts": ("2.0.0", {"mime-types": "^3.0.0", "negotiator": "^1.0.0"}, 8),
    "negotiator": ("1.0.0", {}, 8),
    "body-parser": ("2.2.0", {
        "bytes": "^3.1.2", "content-type": "^1.0.5", "debug": "^4.4.0", "http-errors": "^2.0.0",
        "iconv-lite": "^0.6.3", "on-finished": "^2.4.1", "qs": "^6.14.0", "raw-body": "^3.0.0",
        "type-is": "^2.0.0"}, 4),
    "raw-body": ("3.0.0", {"bytes": "3.1.2", "http-errors": "2.0.0", "iconv-lite": "0.6.3",
                           "unpipe": "1.0.0"}, 3),
    "iconv-lite": ("0.6.3", {"safer-buffer": ">= 2.1.2 < 3.0.0"}, 10),
    "safer-buffer": ("2.1.2", {}, 3),
    "bytes": ("3.1.2", {}, 8),
    "unpipe": ("1.0.0", {}, 0),
    "content-disposition": ("1.0.0", {"safe-buffer": "5.2.1"}, 6),
    "safe-buffer": ("5.2.1", {}, 10),
    "content-type": ("1.0.5", {}, 5),
    "cookie": ("0.7.2", {}, 12),
    "cookie-signature": ("1.2.2", {}, 6),
    "debug": ("4.4.1", {"ms": "^2.1.3"}, 25),
    "ms": ("2.1.3", {}, 8),
    "encodeurl": ("2.0.0", {}, 3),
    "escape-html": ("1.0.3", {}, 3),
    "etag": ("1.8.1", {}, 8),
    "finalhandler": ("2.1.0", {
        "debug": "^4.4.0", "encodeurl": "^2.0.0", "escape-html": "^1.0.3", "on-finished": "^2.4.1",
        "parseurl": "^1.3.3", "statuses": "^2.0.1"}, 6),
    "fresh": ("2.0.0", {}, 6),
    "http-errors": ("2.0.0", {"depd": "2.0.0", "inherits": "2.0.4", "setprototypeof": "1.2.0",
                              "statuses": "2.0.1", "toidentifier": "1.0.1"}, 10),
    "depd": ("2.0.0", {}, 8),
    "inherits": ("2.0.4", {}, 5),
    "setprototypeof": ("1.2.0", {}, 4),
    "statuses": ("2.0.2", {}, 6),
    "toidentifier": ("1.0.1", {}, 1),
    "merge-descriptors": ("2.0.0", {}, 3),
    "mime-types": ("3.0.1", {"mime-db": "^1.54.0"}, 20),
    "mime-db": ("1.54.0", {}, 30),
    "on-finished": ("2.4.1", {"ee-first": "1.1.1"}, 6),
    "ee-first": ("1.1.1", {}, 2),
    "once": ("1.4.0", {"wrappy": "1"}, 4),
    "wrappy": ("1.0.2", {}, 2),
    "parseurl": ("1.3.3", {}, 5),
    "proxy-addr": ("2.0.7", {"forwarded": "0.2.0", "ipaddr.js": "1.9.1"}, 8),
    "forwarded": ("0.2.0", {}, 3),
    "ipaddr.js": ("2.2.0", {}, 30),
    "qs": ("6.14.0", {"side-channel": "^1.1.0"}, 40),
    "side-channel": ("1.1.0", {
        "es-errors": "^1.3.0", "object-inspect": "^1.13.3", "side-channel-list": "^1.0.0",
        "side-channel-map": "^1.0.1", "side-channel-weakmap": "^1.0.2"}, 6),
    "side-channel-list": ("1.0.0", {"es-errors": "^1.3.0", "object-inspect": "^1.13.3"}, 0),
    "side-channel-map": ("1.0.1", {
        "call-bound": "^1.0.2", "es-errors": "^1.3.0", "get-intrinsic": "^1.2.5",
        "object-inspect": "^1.13.3"}, 1),
    "side-channel-weakmap": ("1.0.2", {
        "call-bound": "^1.0.2", "es-errors": "^1.3.0", "get-intrinsic": "^1.2.5",
        "object-inspect": "^1.13.3", "side-channel-map": "^1.0.1"}, 2),
    "call-bound": ("1.0.4", {"call-bind-apply-helpers": "^1.0.2", "get-intrinsic": "^1.3.0"}, 3),
    "call-bind-apply-helpers": ("1.0.2", {"es-errors": "^1.3.0", "function-bind": "^1.1.2"}, 2),
    "get-intrinsic": ("1.3.0", {
        "call-bind-apply-helpers": "^1.0.2", "es-define-property": "^1.0.1", "es-errors": "^1.3.0",
        "es-object-atoms": "^1.1.1", "function-bind": "^1.1.2", "get-proto": "^1.0.1",
        "gopd": "^1.2.0", "has-symbols": "^1.1.0", "hasown": "^2.0.2",
        "math-intrinsics": "^1.1.0"}, 12),
    "get-proto": ("1.0.1", {"dunder-proto": "^1.0.1", "es-object-atoms": "^1.0.0"}, 1),
    "dunder-proto": ("1.0.1", {"call-bind-apply-helpers": "^1.0.1", "es-errors": "^1.3.0",
                               "gopd": "^1.2.0"}, 1),
    "es-object-atoms": ("1.1.1", {"es-errors": "^1.3.0"}, 2),
    "hasown": ("2.0.2", {"function-bind": "^1.1.2"}, 2),
    "es-define-property": ("1.0.1", {}, 1),
    "es-errors": ("1.3.0", {}, 3),
    "function-bind": ("1.1.2", {}, 4),
    "gopd": ("1.2.0", {}, 3),
    "has-symbols": ("1.1.0", {}, 6),
    "math-intrinsics": ("1.1.0", {}, 1),
    "object-inspect": ("1.13.4", {}, 25),
    "range-parser": ("1.2.1", {}, 4),
    "router": ("2.2.0", {"debug": "^4.4.0", "depd": "^2.0.0", "is-promise": "^4.0.0",
                         "parseurl": "^1.3.3", "path-to-regexp": "^8.0.0"}, 3),
    "is-promise": ("4.0.0", {}, 4),
    "path-to-regexp": ("8.2.0", {}, 20),
    "send": ("1.2.0", {
        "debug": "^4.3.5", "encodeurl": "^2.0.0", "escape-html": "^1.0.3", "etag": "^1.8.1",
        "fresh": "^2.0.0", "http-errors": "^2.0.0", "mime-types": "^3.0.1", "ms": "^2.1.3",
        "on-finished": "^2.4.1", "range-parser": "^1.2.1", "statuses": "^2.0.1"}, 4),
    "serve-static": ("2.2.0", {"encodeurl": "^2.0.0", "escape-html": "^1.0.3",
                               "parseurl": "^1.3.3", "send": "^1.2.0"}, 3),
    "type-is": ("2.0.1", {"content-type": "^1.0.5", "media-typer": "^1.1.0",
                          "mime-types": "^3.0.0"}, 8),
    "media-typer": ("1.1.0", {}, 3),
    "vary": ("1.1.2", {}, 3),
}

ROOTS = ["react", "lodash", "zod", "express", "typescript", "@types/node"]


def releases(newest, count, one_major=False):
    """The newest version and up to `count` older ones, newest first: patch
    releases down to .0, then earlier minors (x.(m-1).9 ... x.(m-1).0), then
    the previous major (not with one_major: other major lines are listed
    separately, with their own dependencies)."""
    major, minor, patch = (int(p) for p in newest.split("."))
    out = [newest]
    while len(out) <= count:
        if patch > 0:
            patch -= 1
        elif minor > 0:
            minor, patch = minor - 1, 9
        elif major > 0 and not one_major:
            major, minor, patch = major - 1, 9, 9
        else:
            break
        out.append("%d.%d.%d" % (major, minor, patch))
    return out


def stanza(name, version, deps, time, tags=()):
    lines = ["npm %s %s" % (name, version)]
    lines += ["  dep: %s %s" % (d, r) for d, r in sorted(deps.items())]
    lines += ["  tag: %s" % t for t in tags]
    lines.append("  time: %s" % time)
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_npm.py OUT.scn")
    out = ["# Generated by bench/resolve/gen_npm.py: do not edit.\n"
           "scenario: bench-npm-six\n"
           "description: six npm packages and their real dependency graph (resolve benchmark)\n"
           "tags: npm bench\n"]
    n = 0
    for name in sorted(GRAPH):
        newest, deps, older = GRAPH[name]
        lines = name in ("react", "@types/node", "undici-types")
        for i, v in enumerate(releases(newest, older, lines)):
            # Publish times go back a week per release from September 2025.
            time = (START - datetime.timedelta(weeks=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append(stanza(name, v, deps, time))
            n += 1
        if name == "typescript":
            # Nightlies: pre-releases of the next minor, never `latest`.
            for d in range(1, 61):
                v = "6.0.0-dev.202508%02d" % d if d <= 28 else "6.0.0-dev.202509%02d" % (d - 28)
                out.append(stanza(name, v, {}, "2025-09-01T00:00:00Z"))
                n += 1
        if name == "@types/node":
            # Older major lines with their own undici-types range, as published.
            for major, undici, count in (("22.18.0", "~6.21.0", 30), ("20.19.11", "~6.21.0", 30),
                                         ("18.19.123", "~5.26.4", 30)):
                for v in releases(major, count, True):
                    out.append(stanza(name, v, {"undici-types": undici}, "2025-06-01T00:00:00Z"))
                    n += 1
        if name == "undici-types":
            for line in ("6.21.0", "5.26.5"):
                for v in releases(line, 6, True):
                    out.append(stanza(name, v, {}, "2025-01-01T00:00:00Z"))
                    n += 1
        if name == "react":
            # react 18 and 17 pulled in loose-envify (and 17 object-assign).
            for v in releases("18.3.1", 12, True):
                out.append(stanza(name, v, {"loose-envify": "^1.1.0"}, "2024-04-26T12:00:00Z"))
                n += 1
            for v in releases("17.0.2", 6, True):
                out.append(stanza(name, v, {"loose-envify": "^1.1.0", "object-assign": "^4.1.1"},
                                  "2021-03-22T12:00:00Z"))
                n += 1
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(out))
    print("%d npm versions of %d packages" % (n, len(GRAPH)), file=sys.stderr)


if __name__ == "__main__":
    main()

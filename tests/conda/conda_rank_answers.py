#!/usr/bin/env python3
"""conda_rank_answers.py — groups of one package's records ranked by conda's
own candidate order: conda.resolve.Resolve.version_key (conda's source, run
as conda_match_answers.py runs it) with strict channel priority and one
channel, so the key is version, build_number, platform over noarch subdir,
timestamp, build string.

usage: /usr/bin/python3 conda_rank_answers.py CONDA_SOURCE_DIR COMMIT REPODATA.json...
       > conda_rank_cases.txt
Groups come from the recorded repodata (every package with several
records, records as served) and from generated records that differ only
in the later keys. Output, replayed by conda_rank_driver.c:
  G  name                                   a group begins
  r  version  build  build_number  subdir  timestamp_ms  rank
timestamps as conda's PackageRecord reads them (seconds up to 253402300799,
else milliseconds), written in milliseconds; rank 0 is
the least preferred and equal keys share a rank.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conda_match_answers import shim_old_debian_modules  # noqa: E402


def ranks(version_key, recs):
    keyed = sorted(recs, key=version_key)
    out, last, r = {}, None, -1
    for rec in keyed:
        k = version_key(rec)
        if k != last:
            r += 1
            last = k
        out[id(rec)] = r
    return [out[id(rec)] for rec in recs]


def real_groups(paths, rnd):
    by_name = {}
    for path in paths:
        doc = json.load(open(path))
        sub = doc.get("info", {}).get("subdir")
        for sec in ("packages", "packages.conda"):
            for rec in doc.get(sec, {}).values():
                r = dict(rec)
                r.setdefault("subdir", sub)
                by_name.setdefault(r["name"], []).append(r)
    names = sorted(n for n, rs in by_name.items() if len(rs) > 1)
    for name in rnd.sample(names, min(300, len(names))):
        rs = by_name[name]
        yield name, rnd.sample(rs, min(12, len(rs)))


def made_groups(rnd):
    versions = ["1.0", "1.0.0", "1.0a1", "1.0.post1", "1.1", "1!0.9", "1.0+local", "2.0"]
    for g in range(100):
        base = rnd.sample(versions, 2)
        rs = []
        for _ in range(8):
            rs.append({"name": f"made{g}", "version": rnd.choice(base),
                       "build": rnd.choice(["0", "1", "h1234_0", "py39_0", "py310_0", "pyhd8ed1ab_0"]),
                       "build_number": rnd.choice([0, 0, 1, 2]),
                       "subdir": rnd.choice(["linux-64", "noarch"]),
                       "timestamp": rnd.choice([0, 1600000000, 1600000000000, 1700000000123, 1600000001])})
        yield f"made{g}", rs


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: conda_rank_answers.py CONDA_SOURCE_DIR COMMIT REPODATA.json...")
    sys.path.insert(0, sys.argv[1])
    shim_old_debian_modules()
    import logging
    logging.disable(logging.CRITICAL)
    from types import SimpleNamespace
    from conda.base.constants import ChannelPriority
    from conda.models.records import PackageRecord
    from conda.resolve import Resolve
    me = SimpleNamespace(_channel_priorities_map={}, _channel_priority=ChannelPriority.STRICT,
                         _solver_ignore_timestamps=False)
    rnd = random.Random(7)
    print("# Ranked by conda's own Resolve.version_key (conda/resolve.py, conda commit "
          f"{sys.argv[2]}) via conda_rank_answers.py; real groups from conda's "
          "tests/data/repodata/ " + ", ".join(os.path.basename(p) for p in sys.argv[3:])
          + "; do not edit.")
    for name, group in list(real_groups(sys.argv[3:], rnd)) + list(made_groups(rnd)):
        recs = [PackageRecord(name=r["name"], version=r["version"], build=r["build"],
                              build_number=r.get("build_number", 0), subdir=r["subdir"],
                              timestamp=r.get("timestamp", 0), channel="conda-forge")
                for r in group]
        print(f"G\t{name}")
        for rec, rank in zip(recs, ranks(lambda p: Resolve.version_key(me, p), recs)):
            # conda keeps seconds (a float); envlock milliseconds: the same order
            ts_ms = int(round(float(rec.get("timestamp", 0) or 0) * 1000))
            print("\t".join(["r", rec.version, rec.build, str(rec.build_number), rec.subdir,
                             str(ts_ms), str(rank)]))


if __name__ == "__main__":
    main()

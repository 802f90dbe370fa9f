#!/usr/bin/env python3
"""make_archives.py DIR — the hostile archives of base_inspect_limits
(tests/base_inspect/base_inspect.py), written to DIR for measuring:
members.tar.gz (100,001 members), kept.tar (130 METADATA files of 1 MiB),
status.tar (a 45 MB dpkg status), dists.tar (160,000 METADATA files)."""
import io
import os
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "base_inspect"))
import base_inspect as B  # noqa: E402

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
site = "usr/local/lib/python3.11/site-packages/"
with tarfile.open(os.path.join(d, "members.tar.gz"), "w:gz", compresslevel=1) as t:
    for i in range(100001):
        B.add(t, "m%06d" % i, b"")
B.docker_archive(os.path.join(d, "kept.tar"), layers=[B.gz_layer(
    [(site + "p%03d-1.dist-info/METADATA" % i, 1 << 20, b"A") for i in range(130)])])
B.docker_archive(os.path.join(d, "status.tar"),
                 layers=[B.gz_layer([("var/lib/dpkg/status", 45 * 1000 * 1000, b"\n")])])
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as t:
    for i in range(160000):
        B.add(t, site + "d%06d-1.0.dist-info/METADATA" % i, B.meta("d%06d" % i, "1.0").encode())
B.docker_archive(os.path.join(d, "dists.tar"), layers=[B.layer_tar(B.LAYERS[0]), buf.getvalue()],
                 manifest=[{"Config": "config.json", "RepoTags": ["python:3.11-slim"],
                            "Layers": ["%064x/layer.tar" % 1, "%064x/layer.tar" % 2]}])

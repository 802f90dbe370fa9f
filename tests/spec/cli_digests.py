#!/usr/bin/python3
"""cli_digests.py — an independent check of the spec digests that the CLI
cases (tests/cli/cases/spec_*) expect.

    cli_digests.py CLI_CASES_DIR

Each spec below is written out by hand with every default (REFERENCE §2:
the `spec` object only, camelCase keys, nulls included), serialized here
with a small RFC 8785 writer of our own (keys sorted by UTF-16 code units,
no whitespace, integers only — these specs hold no fractional numbers),
and hashed with hashlib. The digest must then appear in the `stdout` of
every case that names it, so an expectation there was not merely copied
from envlock's own output. Prints `N passed, N failed`.
"""
import hashlib
import json
import os
import sys


def jcs(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        assert abs(v) <= 2 ** 53
        return str(v)
    if isinstance(v, float):
        assert v.is_integer(), "only whole floats are written here"
        return str(int(v))
    if isinstance(v, str):
        # json.dumps escapes exactly as RFC 8785 does for the text used here
        # (no control characters, no lone surrogates), keeping UTF-8 literal
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(jcs(k) + ":" + jcs(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


def digest(spec):
    return "sha256:" + hashlib.sha256(jcs(spec).encode("utf-8")).hexdigest()


def defaults(**over):
    """The spec object of a minimal document on the approved CPU base, with
    every default written out; `over` replaces top-level fields."""
    spec = {
        "contract": "sandbox-contract/v1",
        "language": {"name": "python", "version": "3.13"},
        "base": {"ref": "datalayer/python-cpu", "channel": "2026.09"},
        "platform": {"architecture": "linux/amd64"},
        "packages": {
            "python": {"manager": "uv", "dependencies": [], "constraints": [],
                       "indexes": ["https://pypi.org/simple"]},
            "system": {"apt": []},
        },
        "files": [],
        "contentsBuild": [],
        "env": {},
        "commands": {"postInstall": []},
        "buildSecrets": [],
        "resources": {"sizeClass": "small", "accelerator": "none",
                      "hints": {"cpu": None, "memoryGi": None, "diskGi": None}},
        "compatibility": {"variants": {"required": ["datalayer"], "optional": []},
                          "regions": []},
        "build": {"source": "packages", "dependencyFile": None, "dockerfile": None,
                  "image": None},
    }
    spec.update(over)
    return spec


# corpus/demo/geospatial.yaml (packages.node is envlock's extension, written
# with its defaults because the document gives it)
GEOSPATIAL = defaults(
    packages={
        "python": {"manager": "uv",
                   "dependencies": ["geopandas==1.1.1", "rasterio==1.4.3",
                                    'requests[socks]>=2.31; python_version >= "3.9"'],
                   "constraints": [], "indexes": ["https://pypi.org/simple"]},
        "system": {"apt": ["gdal-bin", "libpq-dev"]},
        "node": {"manager": "npm", "dependencies": ["@turf/turf@^7", "zod@^3"],
                 "registry": "https://registry.npmjs.org"},
    },
    env={"GDAL_DATA": "/usr/share/gdal"},
    resources={"sizeClass": "medium", "accelerator": "none",
               "hints": {"cpu": None, "memoryGi": None, "diskGi": None}},
    compatibility={"variants": {"required": ["datalayer"],
                                "optional": ["e2b", "daytona", "modal"]},
                   "regions": []},
)

# `--template "Data Science"` alone: the seed's package list, installed with
# pip (no uv list), nothing else given
DATA_SCIENCE = defaults(
    packages={
        "python": {"manager": "pip",
                   "dependencies": ["pandas", "numpy", "scipy", "scikit-learn", "matplotlib",
                                    "seaborn", "polars", "pyarrow", "openpyxl", "statsmodels"],
                   "constraints": [], "indexes": ["https://pypi.org/simple"]},
        "system": {"apt": []},
    },
)

# corpus/demo/datagen-recipe.yaml: the "Web Scraping & HTTP" template's
# packages, then the recipe's pip list; npm and apt lists; its pip index;
# cpu 2 and memory 2 GB as hints (floats in the model, printed as integers)
RECIPE = defaults(
    packages={
        "python": {"manager": "pip",
                   "dependencies": ["requests", "httpx", "beautifulsoup4", "lxml",
                                    "pandas==2.2.2", "psycopg[binary]"],
                   "constraints": [], "indexes": ["https://pypi.example.internal/simple"]},
        "system": {"apt": ["ffmpeg", "libpq-dev"]},
        "node": {"manager": "npm", "dependencies": ["@scope/tool@1.4.0", "zod@^3"],
                 "registry": "https://registry.npmjs.org"},
    },
    resources={"sizeClass": "small", "accelerator": "none",
               "hints": {"cpu": 2.0, "memoryGi": 2.0, "diskGi": None}},
)

CASES = {
    "spec_validate_valid": GEOSPATIAL,
    "spec_validate_stdin": GEOSPATIAL,
    "spec_digest": GEOSPATIAL,
    "spec_validate_template": DATA_SCIENCE,
    "spec_validate_datagen": RECIPE,
}


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    passed = failed = 0
    for case, spec in CASES.items():
        want = digest(spec)
        with open(os.path.join(sys.argv[1], case, "stdout"), encoding="utf-8") as f:
            out = f.read()
        if want in out:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {case}: {want} is not in its stdout:\n{out}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

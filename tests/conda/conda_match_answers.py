#!/usr/bin/env python3
"""conda_match_answers.py — generates conda match specs and answers them with
conda's own MatchSpec (conda/models/match_spec.py from conda's source tree;
conda is not installable here, its source runs with Debian's python3
packages: python3-packaging python3-boltons python3-ruamel.yaml
python3-platformdirs python3-pluggy python3-tqdm python3-requests
python3-frozendict python3-zstandard python3-distro).

usage: /usr/bin/python3 conda_match_answers.py CONDA_SOURCE_DIR COMMIT [REPODATA.json...]
       > conda_match_cases.txt
With recorded repodata documents (conda's tests/data/repodata/ r_linux-64.json
and main_noarch.json at the same commit), their real `depends` and
`constrains` specs are added too, each matched against real records of the
package it names.

Prints the case file conda_match_driver.c replays (format there):
  P spec name channel subdir build build_number   conda's parse ("-": absent)
  R spec name version build build_number 0|1       conda's match of a record
  X spec                                           conda refuses the spec
  D spec                                           conda accepts, envlock refuses
                                                   by design (condaspec.h)
The specs are a seeded combination of atoms (the same file on every run)
plus hand-picked shapes; the records are matched on the fields envlock's
conda_matchspec_match() covers (name, version, build, build_number).
"""
import os
import random
import sys
import types


def shim_old_debian_modules():
    # Debian 12's frozendict 1.x lacks deepfreeze/register (conda's
    # configuration module imports them) and its pluggy's HookImpl has no
    # `wrapper`; neither touches how a match spec parses or matches.
    import collections.abc  # noqa: F401 (Debian's frozendict 1.x expects it loaded)
    import frozendict as fd
    if not hasattr(fd, "deepfreeze"):
        mod = types.ModuleType("frozendict")

        class frozendict(dict):
            def __hash__(self):
                return hash(tuple(sorted(self.items(), key=repr)))

        def deepfreeze(o, *a, **k):
            if isinstance(o, dict):
                return frozendict({k2: deepfreeze(v) for k2, v in o.items()})
            if isinstance(o, (list, tuple)):
                return tuple(deepfreeze(v) for v in o)
            return o

        conv = {}
        mod.frozendict, mod.deepfreeze = frozendict, deepfreeze
        mod.getFreezeConversionMap = lambda: conv
        mod.register = lambda t, f, inverse=False: conv.__setitem__(t, f)
        sys.modules["frozendict"] = mod
    import pluggy
    HookImpl = getattr(pluggy, "HookImpl", None)
    if HookImpl is None:
        from pluggy._hooks import HookImpl
    if not hasattr(HookImpl, "wrapper"):
        HookImpl.wrapper = False


def esc(s):
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


NAMES = ["numpy", "NumPy", "python-dateutil", "_libgcc_mutex", "__glibc", "r-base",
         "ca-certificates", "py.test", "num*", "*", "x", "9lives"]
BAD_NAMES = ["-x", "a$b", "a__b", "___", "a..b", "é"]
CHANNELS = ["conda-forge", "bioconda", "my-chan", "conda-forge/linux-64", "bioconda/noarch",
            "https://conda.anaconda.org/conda-forge", "https://example.com/x/y",
            "https://example.com/x/y/osx-arm64"]
VERSIONS = ["1.2", "1.2.*", "1.2*", "=1.2", "==1.2", ">=1.2,<2", ">=1.2,<2|==3", ">=1.2, <2",
            "!=1.2", "!=1.2.*", "~=1.2", "~=1.2.3", "1.2|1.4", "1.*", "*", "<2", ">1.2.3a",
            "1.2.0", "=1", "==1.2.3", "1.2.3+1", "1!2.0", "^1\\.2.*$", "1.*.3", ">=1.2,<2.0a0",
            "(>=1,<2)|3", ">=1.0.0.dev0", "2024.1", "1.2 | 1.4", "<=1.2.3", "=1.2|=1.4",
            ">=1.2.*", ">=", "1.2,", "~1.2", "===1.2", ">==1.2", "1.2$"]
BUILDS = ["py39_0", "py*", "*_0", "^py3[0-9]+_0$", "0", "h1234_1", "*", "py39h*_1"]
BNUMS = ["3", ">=3", "<2", "!=0", "==1", "<=5", ">x", "=3"]
BNUMS_MALFORMED = [">x"]
SUBDIRS = ["linux-64", "noarch", "osx-arm64", "win-64"]
QUOTES = ["'", '"', ""]

REC_VERSIONS = ["1.2", "1.2.0", "1.2.3", "1.2a", "1.20", "1.4", "1.4.1", "2", "2.0a0", "3",
                "0.9", "1!2.0", "1.2.3+1", "1.0.0.dev0", "2024.1.5", "1.2.3.post1"]
REC_BUILDS = ["py39_0", "py310_1", "h1234_1", "0", "py39h5eee18b_1", "pyhd8ed1ab_0"]
REC_BNUMS = [0, 1, 3, 5]


def bracket(rnd, fields):
    parts = []
    for key, val in fields:
        q = rnd.choice(QUOTES) if not any(c in val for c in " ,|") else rnd.choice(["'", '"'])
        sep = rnd.choice(["=", "=", "=", " = "]) if q else "="
        parts.append(f"{key}{sep}{q}{val}{q}")
    return "[" + rnd.choice([",", ", ", " , "]).join(parts) + "]"


def gen(rnd):
    name = rnd.choice(NAMES) if rnd.random() > 0.04 else rnd.choice(BAD_NAMES)
    s = ""
    if rnd.random() < 0.2:
        s += rnd.choice(CHANNELS) + "::"
    s += name
    fields = []
    r = rnd.random()
    if r < 0.55:
        v = rnd.choice(VERSIONS)
        s += rnd.choice([" ", " ", ""]) + v if v[0] in "=<>!~" else " " + v
        if rnd.random() < 0.3:
            b = rnd.choice(BUILDS)
            s += rnd.choice([" ", "="]) + b
            fields.append(("outside build", b))
    elif r < 0.8:
        if rnd.random() < 0.7:
            fields.append(("version", rnd.choice(VERSIONS)))
        if rnd.random() < 0.4:
            fields.append(("build", rnd.choice(BUILDS)))
        if rnd.random() < 0.3:
            fields.append(("build_number", rnd.choice(BNUMS)))
        if rnd.random() < 0.15:
            fields.append(("channel", rnd.choice(CHANNELS[:3])))
        if rnd.random() < 0.15:
            fields.append(("subdir", rnd.choice(SUBDIRS)))
        rnd.shuffle(fields)
    if fields and fields[0][0] != "outside build":
        s += bracket(rnd, fields)
    fields.append(("name", name))
    if rnd.random() < 0.05:
        s += rnd.choice(["  ", "  # note"])
    return s, fields


# Shapes conda accepts that condaspec.h refuses by design: conda silently
# drops a parenthesized part outside brackets and ` if ` conditions, reads
# file names and URLs as specs, and features as `feature@`.
DELIBERATE = ["numpy[version=1.2, version=1.3]", "numpy[]", "", "::numpy", "numpy=",
              "numpy[build_number=x]", "numpy 1.2 ^py3[0-9]+_0$",
              "numpy[version=1.2] x",
              "numpy (x)", "numpy >=1 (optional)", "numpy 1.2 if __unix",
              "numpy-1.2-py39_0.tar.bz2", "numpy-1.2-py39_0.conda", "mkl@",
              "https://user:pw@example.com/c::numpy",
              "https://conda.anaconda.org/t/tk-123/conda-forge::numpy"]
FIXED = ["numpy", "numpy 1.2.*", "numpy >=1.2,<2|==3", "numpy 1.2 py39_0", "conda-forge::numpy",
         "numpy[version='>=1', build=py*]", "*", "numpy !=1.2", "numpy ~=1.2", "numpy=1.2",
         "numpy=1.2=py39*", "numpy==1.2", "numpy ==1.2", "numpy 1.2=py39_0", "numpy=1.2 py39_0",
         "numpy >=1.2 py39_0", "numpy >=1.2=py39_0", "numpy 1.2.* *_0",
         "numpy[name=scipy]", "numpy[foo=1]",
         "numpy[version=1.2", "numpy]", "numpy[version=]", "  ", "# c",
         "conda-forge::", "a:b:c", "conda-forge:numpy", "numpy 1.2 py39_0 extra",
         "numpy >= 1.2", "numpy > = 1.2", "numpy==", "numpy =1.2", "numpy = 1.2",
         "numpy 1.2,<2", "numpy<2", "numpy!=1.2", "numpy~=1.2.3", "numpy>=1.2,<2 py*",
         "numpy[build_number=3]", "numpy[build_number='>=3']",
         "numpy 1.2 ^py3.*$", "numpy[build='^py3(9|10)_.*$']", "numpy[version='1.2|1.4']",
         "numpy[version=\"1.2\"]", "numpy[version='1.2' build='py*']",
         "NUMPY 1.2", "numpy 1.2.3+1", "numpy 1!2.0", "numpy[subdir=linux-64]",
         "conda-forge/linux-64::numpy", "conda-forge/foo::numpy", "numpy[channel=conda-forge]",
         "bioconda::numpy[channel=conda-forge]", "numpy =1.2[build=py*]",
         "numpy[version='=1.2', build=py*]", "conda-forge::numpy[channel=bioconda/linux-64]",
         "conda-forge/linux-64::numpy[channel=bioconda]", "numpy[build_number='=3']",
         "bioconda/noarch::numpy[subdir=osx-arm64]", "numpy\t1.2", " numpy", "numpy 1.2  py*",
         "numpy 1.2 #x", "numpy [version=1.2]",
         "numpy >=1.2 [build=py*]", "numpy[build='^py3[0-9]+_0$']"]


def misread(m, spec, fields):
    # Where conda accepts a spec but does not read what is written, envlock
    # refuses it: a D case. conda's bracket pattern reads `key=value` only,
    # so a pair written with blanks around `=` is skipped without a word; it
    # takes the last `[` as the brackets, so a regex class in a build outside
    # brackets is cut out of it; a build_number that is no integer matches
    # nothing.
    for key, val in fields:
        if key == "name":
            if m.get_raw_value("name") != val.lower():
                return True
            continue
        if key == "outside build":
            if "[" in val and m.get_raw_value("build") != val:
                return True
            continue
        if key == "build_number" and val in BNUMS_MALFORMED:
            return True
        if (key + " = ") in spec:
            # the outside part may set channel/subdir; the rest is checked
            assert key in ("channel", "subdir") or m.get_raw_value(key) is None, spec
            return True
    return False


def answer(MatchSpec, PackageRecord, spec, fields, rnd, out):
    try:
        m = MatchSpec(spec)
        comps = m._match_components
    except Exception:
        out.append("X\t" + esc(spec))
        return
    if misread(m, spec, fields):
        out.append("D\t" + esc(spec))
        return

    def raw(key):
        v = m.get_raw_value(key)
        return "-" if v is None else str(v)

    ch = m.get_exact_value("channel")
    chan = "-" if ch is None else (ch.base_url or ch.canonical_name)
    out.append("\t".join(["P", esc(spec), esc(raw("name")), esc(chan), esc(raw("subdir")),
                          esc(raw("build")), esc(raw("build_number"))]))
    fields = ("name", "version", "build", "build_number")
    name = m.name if "*" not in m.name else "numpy"
    for _ in range(6):
        rec = PackageRecord(name=rnd.choice([name, name, name, "scipy"]),
                            version=rnd.choice(REC_VERSIONS), build=rnd.choice(REC_BUILDS),
                            build_number=rnd.choice(REC_BNUMS))
        try:
            ok = all(m._match_individual(rec, f, c) for f, c in comps.items() if f in fields)
        except Exception:
            continue  # conda fails while matching (e.g. ~=1): no answer to record
        out.append("\t".join(["R", esc(spec), rec.name, rec.version, rec.build,
                              str(rec.build_number), "1" if ok else "0"]))


def real_specs(paths, rnd):
    """(spec, records) from recorded repodata: a seeded sample of the
    distinct depends/constrains texts, each with up to 5 records of the
    package it names (name, version, build, build_number as served)."""
    import json
    by_name, specs = {}, set()
    for path in paths:
        doc = json.load(open(path))
        for sec in ("packages", "packages.conda"):
            for rec in doc.get(sec, {}).values():
                by_name.setdefault(rec["name"], []).append(rec)
                specs.update(rec.get("depends", []))
                specs.update(rec.get("constrains", []))
    out = []
    for spec in rnd.sample(sorted(specs), min(1500, len(specs))):
        name = spec.split(" ")[0].split("=")[0].split("<")[0].split(">")[0].lower()
        cands = sorted(by_name.get(name, []), key=lambda r: (r["version"], r["build"]))
        out.append((spec, rnd.sample(cands, min(5, len(cands)))))
    return out


def answer_real(MatchSpec, PackageRecord, spec, recs, out):
    try:
        m = MatchSpec(spec)
        comps = m._match_components
    except Exception:
        out.append("X\t" + esc(spec))
        return
    fields = ("name", "version", "build", "build_number")
    for r in recs:
        rec = PackageRecord(name=r["name"], version=r["version"], build=r["build"],
                            build_number=r.get("build_number", 0))
        ok = all(m._match_individual(rec, f, c) for f, c in comps.items() if f in fields)
        out.append("\t".join(["R", esc(spec), rec.name, rec.version, rec.build,
                              str(rec.build_number), "1" if ok else "0"]))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: conda_match_answers.py CONDA_SOURCE_DIR CONDA_COMMIT [REPODATA.json...]")
    sys.path.insert(0, sys.argv[1])
    shim_old_debian_modules()
    import logging
    logging.disable(logging.CRITICAL)
    import warnings
    warnings.simplefilter("ignore")
    from conda.models.match_spec import MatchSpec
    from conda.models.records import PackageRecord
    rnd = random.Random(20261205)
    specs = [(s, []) for s in FIXED] + [gen(rnd) for _ in range(2500)]
    seen, out = set(), []
    for spec, fields in specs:
        if spec in seen:
            continue
        seen.add(spec)
        answer(MatchSpec, PackageRecord, spec, fields, rnd, out)
    for spec, recs in real_specs(sys.argv[3:], random.Random(5)):
        if spec not in seen:
            seen.add(spec)
            answer_real(MatchSpec, PackageRecord, spec, recs, out)
    for spec in DELIBERATE:
        MatchSpec(spec)  # conda accepts each: a shape it would stop accepting fails here
        out.append("D\t" + esc(spec))
    print("# Answered by conda's own MatchSpec (conda/models/match_spec.py, conda commit "
          + sys.argv[2] + ") via conda_match_answers.py; do not edit.")
    if sys.argv[3:]:
        print("# Real specs and records from conda's tests/data/repodata/ at that commit: "
              + ", ".join(os.path.basename(p) for p in sys.argv[3:]))
    print("\n".join(out))


if __name__ == "__main__":
    main()

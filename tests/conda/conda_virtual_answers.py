#!/usr/bin/env python3
"""conda_virtual_answers.py — generates target cases and answers them with
conda's own virtual-package plugins (conda/plugins/virtual_packages/
{archspec,cuda,linux}.py, CondaVirtualPackage.to_virtual_package from
conda/plugins/types.py, get_archspec_name from conda/core/index.py with
the machine tables of conda/base/context.py, maybecall from
conda/auxlib/type_coercion.py), run
from conda's source (conda is not installable here). Prints the case file
conda_virtual_driver.c replays.

The target is modelled as conda running inside the image: the kernel
release and libc are what the image would report, the CUDA driver version
is what detection would return, and the subdir is not the machine conda
runs on (the target's CPU model is unknown, so __archspec takes the
subdir's generic machine name: conda's own cross-subdir answer).

usage: conda_virtual_answers.py CONDA_SOURCE_DIR > conda_virtual_cases.txt
"""
import ast
import importlib.util
import os
import random
import sys
import types


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__path__ = []
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def extract(path, names):
    """The top-level definitions `names` of a source file, as source."""
    src = open(path).read()
    tree = ast.parse(src)
    out = {}
    for node in tree.body:
        n = getattr(node, "name", None)
        if n is None and isinstance(node, ast.Assign):
            n = getattr(node.targets[0], "id", None)
        if n in names:
            out[n] = ast.get_source_segment(src, node)
    return out


class Context:
    subdir = "linux-64"
    platform_system_release = ("Linux", "")
    override_virtual_packages = {}

    def _native_subdir(self):
        return "the-host-envlock-runs-on"


def setup(src):
    ctx = Context()
    auxlib = module("conda.auxlib")
    spec = importlib.util.spec_from_file_location("conda.auxlib", os.path.join(src, "conda/auxlib/__init__.py"))
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)
    auxlib.NULL = real.NULL
    libc = {"v": (None, None)}
    consts = extract(os.path.join(src, "conda/base/context.py"), {"_arch_names", "non_x86_machines"})
    cns = {}
    for v in consts.values():
        exec(v, cns)
    module("conda")
    module("conda.base")
    module("conda.base.context", context=ctx, **cns)
    module("conda.common")
    module("conda.common._os")
    module("conda.common._os.linux", linux_get_libc_version=lambda: libc["v"])
    ins = {"context": ctx, "__name__": "conda.core.index", "__package__": "conda.core"}
    exec("from typing import *\n" + extract(os.path.join(src, "conda/core/index.py"), {"get_archspec_name"})["get_archspec_name"], ins)
    module("conda.core")
    module("conda.core.index", get_archspec_name=ins["get_archspec_name"])

    class PackageRecord:  # conda/models/records.py virtual_package(): the fields read here
        def __init__(self, name, version, build):
            self.name, self.version, self.build = name, version, build

        @classmethod
        def virtual_package(cls, name, version=None, build_string=None):
            return cls(name, version or "0", build_string or "0")

    mns = {}
    exec("from __future__ import annotations\n" + extract(os.path.join(src, "conda/auxlib/type_coercion.py"),
                                                            {"maybecall"})["maybecall"], mns)
    tns = {"NULL": real.NULL, "maybecall": mns["maybecall"], "APP_NAME": "conda",
           "PackageRecord": PackageRecord, "os": os}
    defs = extract(os.path.join(src, "conda/plugins/types.py"), {"CondaPlugin", "CondaVirtualPackage"})
    exec("from __future__ import annotations\nfrom dataclasses import dataclass\n@dataclass\n"
         + defs["CondaPlugin"] + "\n@dataclass\n" + defs["CondaVirtualPackage"], tns)
    module("conda.plugins", hookimpl=lambda f: f)
    module("conda.plugins.types", CondaVirtualPackage=tns["CondaVirtualPackage"])
    module("conda.plugins.virtual_packages")
    plugins = []
    for name in ("archspec", "cuda", "linux"):
        full = "conda.plugins.virtual_packages." + name
        spec = importlib.util.spec_from_file_location(full, os.path.join(src, f"conda/plugins/virtual_packages/{name}.py"))
        m = importlib.util.module_from_spec(spec)
        sys.modules[full] = m
        spec.loader.exec_module(m)
        plugins.append(m)
    return ctx, libc, plugins, real.NULL


SUBDIR = {"amd64": "linux-64", "arm64": "linux-aarch64", "ppc64el": "linux-ppc64le", "s390x": "linux-s390x"}
KERNELS = [None, "", "6.1.0-18-amd64", "5.15.0-1051-azure", "4.18.0-513.el8.x86_64", "6.8", "6",
           "junk", "10.2.3.4.5", "3.10.0+", "6.6.87.2-microsoft-standard-WSL2", "2.6.32-754.el6",
           "5.4.0.1.2", ".5.4", "5..4", "05.010.0001"]
LIBCS = [None, "glibc 2.36", "glibc 2.17", "glibc 2.28", "glibc 2.39", "glibc 2.31", "glibc 2.41",
         "musl 1.2.4", "glibc 2.3.4", "glibc 2"]
CUDAS = [None, "", "12.8", "11.2", "12.0", "13.0", "10.1", "12.4.1", "9"]


def answer(ctx, libc, plugins, NULL, arch, lc, cuda, kernel):
    ctx.subdir = SUBDIR[arch]
    ctx.platform_system_release = ("Linux", kernel if kernel is not None else "")
    libc["v"] = tuple(lc.split(" ")) if lc else (None, None)
    plugins[1].cached_cuda_version = (lambda: cuda) if cuda else (lambda: NULL)
    got = []
    for p in plugins:
        for vp in p.conda_virtual_packages():
            rec = vp.to_virtual_package()
            if rec is not NULL:
                got.append(f"{rec.name}={rec.version}={rec.build}")
    return " ".join(sorted(got))


def main():
    ctx, libc, plugins, NULL = setup(sys.argv[1])
    rnd = random.Random(20261205)
    cases = []
    for arch in SUBDIR:
        for lc in LIBCS:
            cases.append((arch, lc, None, "6.1.0-18-amd64"))
    for k in KERNELS:
        for cuda in CUDAS:
            cases.append(("amd64", "glibc 2.36", cuda, k))
    while len(cases) < 500:
        cases.append((rnd.choice(list(SUBDIR)), rnd.choice(LIBCS), rnd.choice(CUDAS), rnd.choice(KERNELS)))
    print("# Generated by conda_virtual_answers.py from conda's source (conda/conda"
          " 0f64223fb8da4328457a69fe6483959dbb783152); do not edit.")
    print("# arch\tlibc\tcudaVersion\tkernel\tconda's virtual packages (sorted); - is none")
    dash = lambda v: "-" if v is None else (v if v != "" else "''")
    for arch, lc, cuda, kernel in cases:
        print("\t".join([arch, dash(lc), dash(cuda), dash(kernel),
                         answer(ctx, libc, plugins, NULL, arch, lc, cuda, kernel)]))


if __name__ == "__main__":
    main()

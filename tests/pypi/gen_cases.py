#!/usr/bin/python3
"""Differential test cases for indexes/pypi, answered by Python's packaging.

Run with Debian's /usr/bin/python3 (python3-packaging 23.0). Writes one case
per line to stdout, tab-separated, each field escaped (backslash, \\t, \\n,
\\r, \\xHH for other control bytes; UTF-8 passes through):

  E  idx  <12 environment values>                 marker environments
  V  text  ok|bad  [str public base local epoch release pre dev post]
  C  a  b  -1|0|1
  P  specset  ok|bad  [str prereleases(-1|0|1|?)]
  S  specset  version  N|T|F  0|1|E|X            (E invalid set, X skipped)
  F  specset  N|T|F  kept-mask|E|X  versions...
  R  text  ok|bad  [name canonical extras spec url marker]
  M  marker  env  0|1|E|!  [str]                  (E eval error, ! parse error)

X marks cases where packaging raises for a reason we deliberately do not
copy (an `===` item that is not a version, asked whether it admits
pre-releases: packaging raises, and whether it does depends on set
iteration order). Inputs are kept inside what the C side promises to match:
no \\N{} or surrogate escapes in marker strings, no non-ASCII letters that
Python's IGNORECASE or lower() would fold, no non-ASCII URL hosts.

Usage: gen_cases.py [count-per-kind]   (default 10000)
"""
import os
import random
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import Specifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

N = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
rnd = random.Random(440508)
out = []


def esc(s):
    b = s.encode("utf-8")
    r = []
    for c in b:
        if c == 0x5C:
            r.append("\\\\")
        elif c == 9:
            r.append("\\t")
        elif c == 10:
            r.append("\\n")
        elif c == 13:
            r.append("\\r")
        elif c < 0x20 or c == 0x7F:
            r.append("\\x%02x" % c)
        else:
            r.append(chr(c))
    return "".join(r).encode("latin-1").decode("utf-8")


def emit(*fields):
    out.append("\t".join(esc(str(f)) for f in fields))


# ---------------------------------------------------------------- versions
SPACES = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2003", "\u3000", "\u2028"]
SEPS = ["", "", "", ".", "-", "_"]
PRE = ["a", "b", "c", "rc", "alpha", "beta", "pre", "preview", "A", "Alpha", "RC", "Pre", "PREVIEW", "C", "B"]
POST = ["post", "rev", "r", "POST", "Rev", "R"]
DEV = ["dev", "DEV", "Dev"]


def num():
    r = rnd.random()
    if r < 0.5:
        return str(rnd.randint(0, 3))
    if r < 0.75:
        return str(rnd.randint(0, 20))
    if r < 0.85:
        return "0" * rnd.randint(1, 3) + str(rnd.randint(0, 9))
    if r < 0.95:
        return str(rnd.randint(0, 100000))
    return str(rnd.randint(0, 10**rnd.randint(10, 40)))


def local_seg():
    alphabet = "abcxyzABZ0123456789"
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 5)))


def gen_version(valid_bias=0.85):
    parts = []
    if rnd.random() < 0.1:
        parts.append(rnd.choice(["v", "V"]))
    if rnd.random() < 0.1:
        parts.append(num() + "!")
    parts.append(".".join(num() for _ in range(rnd.choice([1, 1, 2, 2, 2, 3, 3, 4, 5]))))
    if rnd.random() < 0.35:
        parts.append(rnd.choice(SEPS) + rnd.choice(PRE) + rnd.choice(SEPS) + (num() if rnd.random() < 0.8 else ""))
    if rnd.random() < 0.25:
        if rnd.random() < 0.3:
            parts.append("-" + num())
        else:
            parts.append(rnd.choice(SEPS) + rnd.choice(POST) + rnd.choice(SEPS) + (num() if rnd.random() < 0.8 else ""))
    if rnd.random() < 0.25:
        parts.append(rnd.choice(SEPS) + rnd.choice(DEV) + rnd.choice(SEPS) + (num() if rnd.random() < 0.8 else ""))
    if rnd.random() < 0.15:
        parts.append("+" + rnd.choice(".-_").join(local_seg() for _ in range(rnd.randint(1, 4))))
    s = "".join(parts)
    if rnd.random() < 0.08:
        s = rnd.choice(SPACES) * rnd.randint(1, 2) + s
    if rnd.random() < 0.08:
        s = s + rnd.choice(SPACES) * rnd.randint(1, 2)
    if rnd.random() > valid_bias:
        s = mutate(s, "0123456789.-_+!*abcdevprostlwxyzV ~=<>\u00e9")
    return s


def mutate(s, alphabet):
    for _ in range(rnd.randint(1, 3)):
        op = rnd.random()
        i = rnd.randint(0, len(s))
        if op < 0.4:
            s = s[:i] + rnd.choice(alphabet) + s[i:]
        elif op < 0.7 and s:
            s = s[:i] + s[i + 1:]
        elif s:
            s = s[:i] + rnd.choice(alphabet) + s[i + 1:]
    return s


VERSION_EDGES = [
    "1.0", "1.0.0", "1", "0", "00", "1.01", "v1.0", "V1.0", " 1.0 ", "\t1.0\n", "1.0\n", "\u30001.0\u3000",
    "1!1.0", "0!1.0", "01!1.0", "1!", "!1.0", "1.0a", "1.0a1", "1.0-a1", "1.0_a_1", "1.0.a.1", "1.0alpha1",
    "1.0beta", "1.0c1", "1.0pre1", "1.0preview1", "1.0rc", "1.0RC1", "1.0-1", "1.0-r1", "1.0-rev1",
    "1.0.post", "1.0post1", "1.0.post.1", "1.0-post-1", "1.0_post_1", "1.0.dev", "1.0dev1", "1.0-dev-1",
    "1.0.dev.1", "1.0a1.post1.dev1", "1.0a1-1", "1.0a-1", "1.0a--1", "1.0a.-1", "1.0-", "1.0.", "1.0..0",
    "1.0a.", "1.0.post.", "1.0.dev.", "1.0+abc", "1.0+ABC.def", "1.0+abc-1_2", "1.0+", "1.0+.", "1.0+a..b",
    "1.0+01", "1.0+1.a", "1.0+a.1", "1.0++a", "1.0+a+b", "1.0.*", "1.*", "", " ", "v", "a1", "1.0a1b1",
    "1.0 a1", "1.0-dev", "1.0-1-1", "1.0.post1.post2", "1.0.dev1.dev2", "1.0rc1.post1.dev0+x", "1.0-0",
    "1.0-00", "1.0.0.0.0.0.0.0.0.0.0.1", "99999999999999999999999.0", "1.0r", "1.0rev", "1.0prerelease",
    "1.0previews", "1.0devel", "1.0.2.3a4.post5.dev6+7.eight.9", "0!0", "1.0ab", "1.0-a", "1.0_", "1.0 ",
    "1.0\u00a0", "1.0\x85", "1.0\x1c", "\x1f1.0", "1.0\u200b", "\u00e91.0", "1.0\u00e9", "1,0", "1.0;", "1.0)",
]


def version_fields(v):
    pre = "".join(str(x) for x in v.pre) if v.pre else "-"
    return [str(v), v.public, v.base_version, v.local if v.local is not None else "-", str(v.epoch),
            ".".join(str(x) for x in v.release), pre,
            str(v.dev) if v.dev is not None else "-", str(v.post) if v.post is not None else "-",
            "%d%d%d" % (v.is_prerelease, v.is_devrelease, v.is_postrelease)]


def parse_version(s):
    try:
        return Version(s)
    except Exception:
        return None


def gen_V():
    texts = VERSION_EDGES + [gen_version(0.7) for _ in range(N)]
    for t in texts:
        v = parse_version(t)
        if v is None:
            emit("V", t, "bad")
        else:
            emit("V", t, "ok", *version_fields(v))


def similar_version():
    base = rnd.choice(["1.0", "1", "1.0.0", "2.1", "0.9", "1!1.0", "1.1"])
    s = base
    if rnd.random() < 0.4:
        s += rnd.choice(["a", "b", "rc"]) + str(rnd.randint(0, 2))
    if rnd.random() < 0.3:
        s += ".post" + str(rnd.randint(0, 2))
    if rnd.random() < 0.3:
        s += ".dev" + str(rnd.randint(0, 2))
    if rnd.random() < 0.25:
        s += "+" + rnd.choice(["1", "a", "2", "a.1", "1.a", "abc", "1.0", "b", "0"])
    return s


def valid_version():
    while True:
        s = similar_version() if rnd.random() < 0.6 else gen_version(1.0)
        if parse_version(s) is not None:
            return s


def gen_C():
    for _ in range(N):
        a = valid_version()
        b = valid_version() if rnd.random() < 0.8 else a
        va, vb = Version(a), Version(b)
        emit("C", a, b, -1 if va < vb else (1 if va > vb else 0))


# ---------------------------------------------------------------- specifiers
OPS = ["==", "!=", "<=", ">=", "<", ">", "~=", "==="]


def gen_spec_item():
    op = rnd.choice(OPS)
    r = rnd.random()
    if r < 0.6:
        v = similar_version()
    elif r < 0.85:
        v = gen_version(0.9)
    else:
        v = rnd.choice(["1.0.*", "1.*", "1!1.*", "1.0a1.*", "1.0+local.*", "v1.0", "1.0.0", "foo",
                        "1.0-1", "1.4.5RC1", "1.4.5.RC1", "1.4.5c1", "1.4.5.preview1", "1.4c.5", "1",
                        "1.0.post1", "1.0.dev1", "2.0", "1.0+abc", "1.0a.", "1.0.*+x", ""])
    if rnd.random() < 0.15 and op in ("==", "!="):
        v = v.split("+")[0] + ".*"
    ws1 = rnd.choice(["", "", "", " ", "  ", "\t"])
    return op + ws1 + v


def gen_specset():
    if rnd.random() < 0.05:
        return rnd.choice(["", " ", ",", " , ", ">=1.0,", ",>=1.0", ">=1.0,,<2"])
    items = [gen_spec_item() for _ in range(rnd.choice([1, 1, 1, 2, 2, 3]))]
    s = ""
    for i, it in enumerate(items):
        if i:
            s += rnd.choice([",", ", ", " ,", " , "])
        s += it
    if rnd.random() < 0.1:
        s = " " + s + rnd.choice([" ", "\u3000", "\n"])
    if rnd.random() < 0.05:
        s = mutate(s, "=<>!~.*,+ 0123abc")
    return s


SPEC_EDGES = [
    "==1.0", "== 1.0", "==1.0.*", "==1.*", "!=1.0.*", "~=1.0", "~=1", "~=1.0.*", "~=1.4.5a4", "~=1!1.0",
    "~=v1.4.5", "~=1.4.5.RC1", "~=1.4.5c1", "~=1.4.5.preview1", "~=1.4c.5", "===1.0", "===foo", "===", "=== ",
    "===1.0,>=1", "<1.0", "<1.0a1", ">1.0", ">1.0.post1", ">=1.0+local", "<=1.0.*", "==1.0+abc", "!=1.0+abc",
    "==1.0a1", ">=1.0dev", ">= 1.0", ">=1.0 ", "=1.0", "1.0", ">>1.0", ">=", "", ",", ">=1,<2,!=1.5",
    "==1.0.*, !=1.0.1", "<2,>1a1", "==1.0a1.*", "==1.0.*.*", "~=1.0+a", "==1!2.*", "==1!2.0.*", "~=2.2.post3",
    "~=1.0.dev1", "==v1.*", ">1.0+local", "<1.0+local", "===1.0+Local",
    "==2.0.*", "==2.*", "==1.4.*", "~=1.4.5.post1", "~=1.4.post1", "~=1.4.5-1", "~=1.4.5_a1", "!=1.0",
    "==1.0.0", ">=1!1.0", "===1.0a1", "===v1.0", "==1.0a1+x", "<=1.0", "<1.0.post1", ">1.0a1", "<1!2.0",
    "~=2.2.0", "~=2.2", "~=1.4.5c1", "~=1.4.5RC1", "==1.4.5c1", "<1.0rc1", ">=1.0.dev0", "==1.0+LOCAL",
    "!=1.0+local", "==0!1.0", "==1.0.post1.*", "!=1.4.*, >=1.0a1", ">0.9,<1.0", "<=1.0.*",
]


def set_prereleases(ss):
    for s in ss:
        try:
            s.prereleases
        except Exception:
            return "?"
    p = ss.prereleases
    return "-1" if p is None else str(int(p))


def gen_P_S_F():
    specs = SPEC_EDGES + [gen_specset() for _ in range(N)]
    for t in specs:
        try:
            ss = SpecifierSet(t)
        except Exception:
            emit("P", t, "bad")
            continue
        emit("P", t, "ok", str(ss), set_prereleases(ss))
    prs = [("N", None), ("T", True), ("F", False)]
    for i in range(N):
        t = specs[i % len(specs)] if i < len(SPEC_EDGES) else gen_specset()
        v = valid_version()
        code, pr = rnd.choice(prs)
        try:
            ss = SpecifierSet(t)
        except Exception:
            emit("S", t, v, code, "E")
            continue
        if pr is None and set_prereleases(ss) == "?":
            emit("S", t, v, code, "X")
            continue
        emit("S", t, v, code, int(ss.contains(v, prereleases=pr)))
    # Every tricky specifier against versions around it, in all three modes.
    near = ["1", "1.0", "1.0.0", "1.0.1", "1.0a1", "1.0rc1", "1.0.dev0", "1.0.post1", "1.0.post1.dev1",
            "1.0+local", "1.0.1+x", "0.9", "1.1", "1.1a1", "2.0", "1!1.0", "1!2.0", "1!2.0.1", "2", "2.0.0.0",
            "1.4.5", "1.4.9", "1.5", "1.4.5a4", "1.4.5rc1", "1.4.5.post1", "1.4c0", "1.4rc0", "1.4.5c1",
            "2.2", "2.2.post3", "2.2.post4", "2.3", "3.0", "1.0a1+x", "0!1.0", "1.0.post0", "v1.0"]
    for t in SPEC_EDGES:
        try:
            ss = SpecifierSet(t)
        except Exception:
            continue
        for v in near:
            for code, pr in prs:
                if pr is None and set_prereleases(ss) == "?":
                    emit("S", t, v, code, "X")
                else:
                    emit("S", t, v, code, int(ss.contains(v, prereleases=pr)))
    for i in range(N):
        t = gen_specset() if rnd.random() < 0.8 else rnd.choice(["", " ", ">=1.0", "<1.0", "==1.0a1"])
        vs = [valid_version() if rnd.random() < 0.9 else gen_version(0.5) for _ in range(rnd.randint(0, 7))]
        code, pr = rnd.choice(prs) if rnd.random() < 0.5 else prs[0]
        try:
            ss = SpecifierSet(t)
        except Exception:
            emit("F", t, code, "E", *vs)
            continue
        if pr is None and set_prereleases(ss) == "?":
            emit("F", t, code, "X", *vs)
            continue
        valid = [x for x in vs if parse_version(x) is not None]
        kept = list(ss.filter(valid, prereleases=pr))
        # filter() returns items in order; map back by position among valid ones
        mask = []
        k = 0
        for x in vs:
            if parse_version(x) is not None and k < len(kept) and kept[k] is x:
                mask.append("1")
                k += 1
            else:
                mask.append("0")
        emit("F", t, code, "".join(mask) if mask else "-", *vs)


# ---------------------------------------------------------------- markers
VARS = ["python_version", "python_full_version", "os_name", "os.name", "sys_platform", "sys.platform",
        "platform_release", "platform_system", "platform_version", "platform.version", "platform_machine",
        "platform.machine", "platform_python_implementation", "platform.python_implementation",
        "python_implementation", "implementation_name", "implementation_version", "extra"]
MOPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in", "not  in", "not\tin"]
VALUES = ["3.8", "3.11", "3", "2.7", "3.9.0rc1", "3.11.2", "posix", "nt", "linux", "win32", "darwin",
          "x86_64", "aarch64", "Linux", "Windows", "CPython", "PyPy", "cpython", "test", "Test_Extra",
          "test-extra", "test.extra", "", " ", "3.*", "3.8.*", "1.0+local", "foo", "os_name", "extra",
          "python_version", "6.1.0", "#1 SMP", "a,b", "lin", "3.11a1", "  3.8  ", "3.8;"]
ESCAPES = ["\\n", "\\t", "\\\\", "\\'", '\\"', "\\x41", "\\x4", "\\u00e9", "\\U0001F600", "\\101",
           "\\777", "\\8", "\\d", "\\\n", "\\a", "\\U00110000", "\\u12", "\\"]


def quote(v):
    if rnd.random() < 0.05:
        v = v + rnd.choice(ESCAPES)
    if rnd.random() < 0.02:
        v = v + rnd.choice(["\n", "\r", "\x00", "\t", "\u00e9"])
    q = rnd.choice(["'", '"']) if ("'" not in v and '"' not in v) else ("'" if '"' in v else '"')
    return q + v + q


def gen_item():
    r = rnd.random()
    if r < 0.7:
        lhs, rhs = rnd.choice(VARS), quote(rnd.choice(VALUES))
    elif r < 0.85:
        lhs, rhs = quote(rnd.choice(VALUES)), rnd.choice(VARS)
    elif r < 0.93:
        lhs, rhs = rnd.choice(VARS), rnd.choice(VARS)
    else:
        lhs, rhs = quote(rnd.choice(VALUES)), quote(rnd.choice(VALUES))
    op = rnd.choice(MOPS)
    w = lambda: rnd.choice(["", " ", " ", "  ", "\t"])
    if op[0].isalpha():
        return lhs + rnd.choice([" ", "\t"]) + op + rnd.choice([" ", "\t", ""]) + rhs
    return lhs + w() + op + w() + rhs


def gen_marker(depth=0):
    n = rnd.choice([1, 1, 2, 2, 3])
    s = ""
    for i in range(n):
        if i:
            s += rnd.choice([" and ", " or ", " and ", "  or\t", ")and(" if False else " and "])
        if depth < 2 and rnd.random() < 0.2:
            s += rnd.choice(["(", "( "]) + gen_marker(depth + 1) + rnd.choice([")", " )"])
        else:
            s += gen_item()
    return s


MARKER_EDGES = [
    'os_name == "posix"', "os.name=='posix'", 'python_version >= "3.8"', 'python_version > "3.8.*"',
    'python_version == "3.*"', '"3.8" < python_version', 'extra == "Test_Extra"', 'extra == "test-extra"',
    '"test.extra" == extra', 'extra == extra', 'os_name == extra', 'extra == os_name',
    'os_name == "a" or os_name == "b" and os_name == "c"', '(os_name == "a" or os_name == "b") and os_name == "c"',
    'os_name == "a" and ((os_name == "b" or os_name == "c"))', '((os_name == "a"))', '"posix" == "os_name"',
    '"a" == "b"', 'os_name ~= "posix"', 'python_version ~= "3.8"', 'python_version === "3.11"',
    'os_name == "1.0"', 'os_name in "posix nt"', '"os" in os_name', 'os_name not in "nt"', 'os_name not  in "nt"',
    'os_name notin "nt"', 'os_name == "a" garbage', 'os_name == "a" )', "os_name == 'a\\'", 'os_name == "a\\nb"',
    'os_name == """', "os_name == '''", 'os_name=="posix"and os_name=="posix"', 'os_name=="posix"andos_name=="x"',
    'python_implementation == "CPython"', 'platform.python_implementation == "CPython"', 'platform.release == "x"',
    'platform_release >= "6"', 'python_full_version < "3.9"', 'python_full_version == "3.9.0rc1"',
    'implementation_version >= "3.11"', 'sys_platform == "linux" and platform_machine == "x86_64"',
    '', ' ', '(', ')', 'os_name', 'os_name ==', '== "a"', 'os_name = "a"', 'os_name == "a" or', '(os_name == "a"',
    'os_name == "a" extra == "b"', "python_version in '3.8 3.9'", 'extra == "Test.Extra" and extra == "x_y"',
]

ENVS = [
    dict(python_version="3.11", python_full_version="3.11.2", os_name="posix", sys_platform="linux",
         platform_release="6.1.0-13-amd64", platform_system="Linux", platform_version="#1 SMP PREEMPT_DYNAMIC",
         platform_machine="x86_64", platform_python_implementation="CPython", implementation_name="cpython",
         implementation_version="3.11.2", extra=""),
    dict(python_version="3.8", python_full_version="3.8.10", os_name="nt", sys_platform="win32",
         platform_release="10", platform_system="Windows", platform_version="10.0.19041",
         platform_machine="AMD64", platform_python_implementation="CPython", implementation_name="cpython",
         implementation_version="3.8.10", extra="test"),
    dict(python_version="3.9", python_full_version="3.9.0rc1", os_name="posix", sys_platform="darwin",
         platform_release="22.1.0", platform_system="Darwin", platform_version="Darwin Kernel Version 22.1.0",
         platform_machine="arm64", platform_python_implementation="PyPy", implementation_name="pypy",
         implementation_version="7.3.11", extra="Test_Extra"),
    dict(python_version="foo", python_full_version="3.12.0a1+local", os_name="1.0", sys_platform="linux",
         platform_release="", platform_system="", platform_version="", platform_machine="",
         platform_python_implementation="", implementation_name="", implementation_version="bar",
         extra="test.extra"),
]
ENV_KEYS = ["python_version", "python_full_version", "os_name", "sys_platform", "platform_release",
            "platform_system", "platform_version", "platform_machine", "platform_python_implementation",
            "implementation_name", "implementation_version", "extra"]


def gen_M():
    for i, e in enumerate(ENVS):
        emit("E", i, *[e[k] for k in ENV_KEYS])
    texts = MARKER_EDGES + [gen_marker() for _ in range(N)]
    for t in texts:
        if rnd.random() < 0.05:
            t = mutate(t, "()'\" =<>!~andorint.\\")
        try:
            m = Marker(t)
        except Exception:
            emit("M", t, 0, "!")
            continue
        for ei in ([0, 1, 2, 3] if len(t) < 40 else [rnd.randint(0, 3)]):
            try:
                r = str(int(m.evaluate(ENVS[ei])))
            except Exception:
                r = "E"
            emit("M", t, ei, r, str(m))


# ---------------------------------------------------------------- requirements
NAMES = ["requests", "Foo", "foo_bar", "Foo.Bar-baz", "a", "A1", "foo-", "foo_", "-foo", "_foo", "foo..bar",
         "foo__Bar", "1foo", "foo bar", "f", "zope.interface", "typing-extensions", "X-_.Y", "name\u00e9", "ab"]
URLS = ["https://example.com/pkg.tar.gz", "http://x", "git+https://github.com/a/b.git@v1#egg=b", "file:///tmp/x",
        "file://host/x", "file:/x", "file:x", "FILE:///x", "file:///x?", "file:///x#", "file:///x?a=1#f",
        "file://", "file:", "file:////x", "/local/path", "relative/path", "http:///x", "ftp://[::1]/x",
        "http://[::1/x", "http://::1]/x", "https://[v1.x]/", "http://[1.2.3.4]/", "http://[fe80::1%25eth0]/",
        "http://[fe80::1%]/", "http://user@[::1]:80/x", "http://[::1]x/", "http://a[b]/", "https://x/a;b",
        "https://x/a b", "\x01http://x", "h:", "1http://x", "http://x\n", "file:///x\n",
        "https://example.com/a,b;c", "http://x/)", "svn+ssh://host/p"]


def gen_req():
    r = rnd.random()
    name = rnd.choice(NAMES) if rnd.random() < 0.5 else "".join(
        rnd.choice("abcXYZ019-_.") for _ in range(rnd.randint(1, 8)))
    s = rnd.choice(["", "", " "]) + name
    if rnd.random() < 0.3:
        ex = [rnd.choice(["security", "Socks", "test_extra", "a.b", "dev", "x", "", "1", "-x", "x-"])
              for _ in range(rnd.randint(0, 3))]
        s += rnd.choice(["", " "]) + "[" + rnd.choice(["", " "]) + rnd.choice([",", ", ", " , ", " "]).join(ex) + \
            rnd.choice(["", " "]) + "]"
    if rnd.random() < 0.2:
        s += rnd.choice(["@", " @", " @ ", "@ "]) + rnd.choice(URLS)
        if rnd.random() < 0.4:
            s += rnd.choice([" ; ", " ;", ";", "  ;  "]) + gen_marker()
    else:
        if rnd.random() < 0.6:
            sp = gen_specset()
            if rnd.random() < 0.25:
                sp = "(" + sp + ")"
            s += rnd.choice(["", " ", "  "]) + sp
        if rnd.random() < 0.3:
            s += rnd.choice(["; ", " ; ", ";", " ;"]) + gen_marker()
    if rnd.random() < 0.05:
        s += rnd.choice([" ", "\t", "\n", "\n\n", " x", ")", ";"])
    if rnd.random() < 0.1:
        s = mutate(s, "[](),;@ =<>!~.-_abc019'\"")
    return s


REQ_EDGES = [
    "requests", "requests>=2.0", "requests >= 2.0", "requests (>=2.0)", "requests (>=2.0,<3)", "requests[security]",
    "requests [security , socks] >=2.0 ; python_version < '3.8'", "requests[]", "requests[ ]", "requests[a,]",
    "requests[a b]", "requests[,a]", "requests @ https://x/y.whl", "requests@https://x/y.whl",
    "requests @ https://x/y.whl ; os_name == 'nt'", "requests @ https://x/y.whl; os_name == 'nt'",
    "requests @", "requests @ ", "requests; ", "requests;", "requests ;os_name=='nt'", "requests>=1,",
    "requests (>=1,)", "requests (", "requests ()", "requests )", "requests==1.0.*", "requests==1.0+local",
    "requests>=1.0+local", "requests~=1", "requests===anything", "requests === any thing", "requests\n",
    "requests\n\n", "requests==1.0\n", " requests", "\trequests", "requests ", "foo_", "foo-", "_foo", "",
    "requests>=2.0 extra", "requests 2.0", "requests=2.0", "requests==2.0;", "requests==2.0 ;  ",
    "requests[Security_Extra]", "requests[a,a,A]", "Foo.Bar-_baz[x]", "name; extra == 'Foo.Bar'",
    "name; os_name == 'a' and extra == 'Foo.Bar'", "name ==1.0 or", "name (==1.0) ; os_name=='a' garbage",
    "name @ file:///x ; os_name == 'posix'", "name[x]@ git+https://h/r.git", "name (===1.0)", "name===1.0)",
]


def gen_R():
    texts = REQ_EDGES + [gen_req() for _ in range(N)]
    for t in texts:
        try:
            r = Requirement(t)
        except Exception:
            emit("R", t, "bad")
            continue
        emit("R", t, "ok", r.name, canonicalize_name(r.name), ",".join(sorted(r.extras)), str(r.specifier),
             r.url or "", str(r.marker) if r.marker is not None else "")


gen_V()
gen_C()
gen_P_S_F()
gen_M()
gen_R()
sys.stdout.write("\n".join(out) + "\n")

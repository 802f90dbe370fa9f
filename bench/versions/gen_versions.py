#!/usr/bin/env python3
"""gen_versions.py N OUTDIR — writes pypi.txt, npm.txt, deb.txt: N realistic
versions each (fixed seed), plus ranges-*.txt: the ranges the filter step uses."""
import os
import random
import sys


def pypi(r):
    rel = ".".join(str(r.randint(0, 30)) for _ in range(r.choice([2, 3, 3, 3, 4])))
    if r.random() < 0.05:
        rel = f"{r.randint(1, 2)}!{rel}"
    t = r.random()
    if t < 0.15:
        rel += r.choice(["a", "b", "rc"]) + str(r.randint(0, 5))
    elif t < 0.22:
        rel += f".post{r.randint(0, 3)}"
    elif t < 0.27:
        rel += f".dev{r.randint(0, 9)}"
    if r.random() < 0.03:
        rel += "+local." + str(r.randint(0, 9))
    return rel


def npm(r):
    v = f"{r.randint(0, 20)}.{r.randint(0, 40)}.{r.randint(0, 60)}"
    t = r.random()
    if t < 0.15:
        v += "-" + r.choice(["alpha", "beta", "rc", "next"]) + "." + str(r.randint(0, 12))
    if r.random() < 0.03:
        v += "+build." + str(r.randint(0, 99))
    return v


def deb(r):
    up = ".".join(str(r.randint(0, 30)) for _ in range(r.choice([2, 3, 3])))
    if r.random() < 0.1:
        up += "~rc" + str(r.randint(1, 4))
    if r.random() < 0.1:
        up += "+dfsg"
    v = up
    if r.random() < 0.8:
        v += "-" + str(r.randint(1, 9))
        if r.random() < 0.2:
            v += "+deb12u" + str(r.randint(1, 9))
    if r.random() < 0.1:
        v = f"{r.randint(1, 3)}:{v}"
    return v


def main():
    n = int(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    r = random.Random(20261130)
    for name, fn in (("pypi", pypi), ("npm", npm), ("deb", deb)):
        with open(os.path.join(out, name + ".txt"), "w") as f:
            for _ in range(n):
                f.write(fn(r) + "\n")
    with open(os.path.join(out, "ranges-pypi.txt"), "w") as f:
        f.write(">=1.2,<5\n~=2.3\n==3.*\n!=4.0,>=2\n>=10.0a1\n")
    with open(os.path.join(out, "ranges-npm.txt"), "w") as f:
        f.write("^1.2.3\n~2.3\n>=3.0.0 <7.0.0\n1.x || >=10.2.3-beta.1\n*\n")
    with open(os.path.join(out, "ranges-deb.txt"), "w") as f:
        f.write(">= 1.2\n<< 5.0~\n= 2.3-1\n>> 1:0\n<= 20.0-3\n")


if __name__ == "__main__":
    main()

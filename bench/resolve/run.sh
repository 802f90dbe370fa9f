#!/bin/sh
# bench/resolve/run.sh [BUILD_DIR] — speed and memory of `envlock resolve`
# (issue 4, "Speed and memory"), side by side with the ecosystems' tools on
# the same inputs, interleaved (every tool once per round, best of
# $BENCH_RUNS rounds, default 5), wall time and peak RSS (GNU time); then
# $BENCH_COLD_RUNS (default 3) cold rounds of the Python and npm parts, every
# tool from an empty cache (pypi:*-cold, npm:*-cold).
#
# The combined workload (specs/combined.yaml, a DataGen recipe): the "Data
# Science" template's ten Python packages from a fixture PyPI mirror
# (corpus/scenarios/bench-data-science.scn + protected.scn, the base's pinned
# stack), six npm packages from a fixture registry (gen_npm.py: express 5's
# real graph, ~1000 versions), eight apt packages from live Debian bookworm
# main (deb.debian.org, bases.yaml). Fixtures are served by nginx on
# 127.0.0.1 (tests/fixtures/servers.py). Every tool runs warm: one untimed
# run first fills its cache.
#   envlock   `envlock resolve` of the combined spec and of each part alone
#             (specs/{pypi,npm,apt}.yaml); `-offline` runs read only the
#             cache, the others revalidate index pages (conditional GETs,
#             deb.debian.org's InRelease included);
#   testsolv  libsolv's own load+solve of the same pool: the testcase
#             `envlock resolve --debug-solver DIR` wrote, replayed;
#   pip       `pip install --dry-run --ignore-installed --report` (CPython
#             3.13 manylinux_2_36 target, isolated: no PIP_*, no config);
#   npm       `npm install --package-lock-only` (private HOME, npmrc, cache);
#   pnpm      `pnpm install --lockfile-only` (pnpm 12's native binary,
#             installed with npm into BUILD_DIR/tools if not on PATH);
#   apt-get   `apt-get -s install` from a private apt root (apt-get update
#             once, the image's dpkg status, no recommends).
# Then a synthetic PyPI universe (gen_synthetic.py: deep backtracking,
# chained groups where the newest versions conflict, plus fillers) at the
# sizes of $BENCH_SIZES ("VERSIONS:FILLERS[:GROUPS] ...", each project having
# VERSIONS versions, 5 groups unless given; the default's last size is 10
# groups deep), envlock warm, and pip once on the first size (cut at
# $BENCH_PIP_TIMEOUT seconds, default 300).
#
# Needs nginx, testsolv (libsolv-tools), pip, npm, apt-get, and the network
# for deb.debian.org (and the npm registry to install pnpm). Not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${BENCH_RUNS:-5}
sizes=${BENCH_SIZES:-"40:20 100:100 150:200 40:20:10"}
pip_timeout=${BENCH_PIP_TIMEOUT:-300}
export apt_pkgs="curl git build-essential libpq-dev gdal-bin graphviz ffmpeg fonts-liberation"
npm_pkgs="react lodash zod express typescript @types/node"
py_pkgs="pandas numpy scipy scikit-learn matplotlib seaborn polars pyarrow openpyxl statsmodels"
servers="$root/tests/fixtures/servers.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-resolve-XXXXXX")
cleanup() {
    for s in "$work"/state*; do
        if [ -f "$s" ]; then
            /usr/bin/python3 "$servers" stop --state "$s" >/dev/null 2>&1 || true
        fi
    done
    if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

cmake --build "$build" --target envlock >/dev/null
el=$build/cli/envlock
pip_py=$(command -v python3)

# pnpm: $PNPM, else the native binary of pnpm 12 under BUILD_DIR/tools.
pnpm=${PNPM:-}
if [ -z "$pnpm" ]; then
    tools=$build/tools
    pnpm=$tools/node_modules/@pnpm/exe.linux-x64/pnpm
    if [ ! -x "$pnpm" ]; then
        mkdir -p "$tools"
        (cd "$tools" && npm install --no-audit --no-fund --loglevel error --prefix . pnpm@12 >/dev/null)
    fi
    [ -x "$pnpm" ] || pnpm=$tools/node_modules/.bin/pnpm
fi

# ---- fixtures: the mirror (PyPI + npm) behind nginx ----
/usr/bin/python3 "$here/gen_npm.py" "$work/bench-npm-six.scn" 2>/dev/null
/usr/bin/python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$work/mirror" \
    "$root/corpus/scenarios/bench-data-science.scn" "$work/bench-npm-six.scn" \
    "$here/protected.scn" >/dev/null
# Two servers of the same tree: one sends the registries' Cache-Control
# (pypi.org's simple pages max-age=600, npmjs.org's packuments max-age=300),
# as the public indexes do; the other validators only, so every client
# revalidates every page on every run ("-revalidate" rows).
/usr/bin/python3 "$servers" start --root "$work/mirror" --state "$work/state" --registry-cache >/dev/null
url=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state")
/usr/bin/python3 "$servers" start --root "$work/mirror" --state "$work/state-rv" >/dev/null
rv_url=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state-rv")

# ---- the timed runner ----
res=$work/results
: > "$res"
# timed LABEL CMD... (tools.sh) appends one result line to $res.

# The tools' functions (tools.sh) and what they read.
# shellcheck source=bench/resolve/tools.sh
. "$here/tools.sh"
export work url rv_url el here pip_py pnpm
# envlock: one cache for every spec (one per server); the mirrors map the
# canonical indexes.
export mirrors="--mirror https://pypi.org=${url}pypi/pypi --mirror https://registry.npmjs.org=${url}npm"
export rv_mirrors="--mirror https://pypi.org=${rv_url}pypi/pypi --mirror https://registry.npmjs.org=${rv_url}npm"

# pip: the Python part, isolated (as bench/pypi_fetch does).
platforms=$(n=36; while [ $n -ge 5 ]; do printf ' --platform manylinux_2_%d_x86_64' $n; n=$((n - 1)); done)
export platforms="$platforms --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux1_x86_64"

# npm and pnpm: one project each, private HOME, config and caches.
mkdir -p "$work/home" "$work/npm-proj" "$work/pnpm-proj"
: > "$work/home/.npmrc"
: > "$work/home/.npmrc-global"
for d in npm-proj pnpm-proj; do
    # shellcheck disable=SC2086
    /usr/bin/python3 - "$work/$d/package.json" $npm_pkgs <<'PY'
import json, sys
json.dump({"name": "bench", "version": "1.0.0", "private": True,
           "dependencies": {n: "*" for n in sys.argv[2:]}}, open(sys.argv[1], "w"))
PY
done

# apt-get: a private root on live Debian bookworm main, the image's status.
a=$work/apt
mkdir -p "$a/state/lists/partial" "$a/cache/archives/partial" "$a/etc/sources.list.d" \
    "$a/etc/preferences.d"
cp "$root/corpus/bases/python-cpu-2026.09.status" "$a/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
    > "$a/etc/sources.list"
# Dir::Cache::pkgcache: Docker images' apt.conf.d/docker-clean turns the
# binary cache off; a warm apt keeps it.
export aptopts="-o Dir::State=$a/state -o Dir::Cache=$a/cache -o Dir::Cache::pkgcache=pkgcache.bin
 -o Dir::Cache::srcpkgcache=srcpkgcache.bin -o Dir::Etc::sourcelist=$a/etc/sources.list
 -o Dir::Etc::sourceparts=$a/etc/sources.list.d -o Dir::Etc::preferences=$a/etc/preferences
 -o Dir::Etc::preferencesparts=$a/etc/preferences.d -o Dir::State::status=$a/status
 -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Acquire::Languages=none
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o APT::Install-Recommends=false"

# ---- cold runs: fill every cache (untimed), check the answers ----
echo "filling caches (cold runs) ..." >&2
for s in combined pypi npm apt; do
    envlock_resolve "$s" > "$work/$s.out"
    envlock_revalidate "$s" >/dev/null
    cmp -s "$work/$s.lock" "$work/$s-rv.lock" || echo "!! $s: the two servers gave different locks" >&2
done
envlock_resolve combined --offline --debug-solver "$work/dbg" >/dev/null
# bench/plan times plans and exports of this lock (with specs/combined.yaml
# and bases.yaml): keep it.
mkdir -p "$build/bench-out"
cp "$work/combined.lock" "$build/bench-out/combined.lock"
# shellcheck disable=SC2086
pip_resolve "${url}pypi/pypi/simple/" "$work/pip-cache" $py_pkgs >/dev/null
# shellcheck disable=SC2086
pip_resolve "${rv_url}pypi/pypi/simple/" "$work/pip-cache-rv" $py_pkgs >/dev/null
npm_resolve >/dev/null 2>&1
npm_revalidate >/dev/null 2>&1
pnpm_resolve >/dev/null 2>&1
# shellcheck disable=SC2086
apt-get -q $aptopts update >/dev/null
# shellcheck disable=SC2086
apt-cache $aptopts gencaches >/dev/null
apt_resolve > "$work/apt-get.out"
# The testcase carries envlock's result; testsolv prints only differences.
testsolv "$work/dbg/testcase.t" > "$work/testsolv.out" || true

count() { /usr/bin/python3 -c "$1" "$2"; }
echo "answers:"
for s in combined pypi npm apt; do
    echo "  envlock $s: $(sed -n 's/^packages: //p' "$work/$s.out")"
done
echo "  pip: $(count 'import json,sys; print(len(json.load(open(sys.argv[1]))["install"]))' "$work/pip-report.json") to install;" \
    "npm: $(count 'import json,sys; print(len(json.load(open(sys.argv[1]))["packages"]) - 1)' "$work/npm-proj/package-lock.json") packages;" \
    "pnpm: $(sed -n '/^packages:/,/^snapshots:/p' "$work/pnpm-proj/pnpm-lock.yaml" | grep -c '^  [^ ]') packages;" \
    "apt-get: $(grep -c '^Inst ' "$work/apt-get.out") to install;" \
    "testsolv: $(grep -c '^install' "$work/dbg/solver.result") installs, $(wc -l < "$work/testsolv.out") lines differ from envlock's"
echo "  npm $(npm --version), pnpm $("$pnpm" --version 2>/dev/null), $("$pip_py" -m pip --version | cut -d' ' -f1-2)," \
    "$(apt-get --version | head -1), testsolv of libsolv $(pkg-config --modversion libsolv 2>/dev/null || echo '?')"

# ---- warm rounds, interleaved ----
echo "warm rounds: $runs (load average before: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
i=0
while [ $i -lt "$runs" ]; do
    timed combined:envlock-offline envlock_resolve combined --offline
    timed combined:testsolv testsolv_replay "$work/dbg"
    timed combined:envlock envlock_resolve combined
    timed combined:envlock-revalidate envlock_revalidate combined
    timed pypi:envlock envlock_resolve pypi
    timed pypi:envlock-revalidate envlock_revalidate pypi
    timed pypi:envlock-offline envlock_resolve pypi --offline
    # shellcheck disable=SC2086
    timed pypi:pip pip_resolve "${url}pypi/pypi/simple/" "$work/pip-cache" $py_pkgs
    # shellcheck disable=SC2086
    timed pypi:pip-revalidate pip_resolve "${rv_url}pypi/pypi/simple/" "$work/pip-cache-rv" $py_pkgs
    timed npm:envlock envlock_resolve npm
    timed npm:envlock-revalidate envlock_revalidate npm
    timed npm:envlock-offline envlock_resolve npm --offline
    timed npm:npm npm_resolve
    timed npm:npm-revalidate npm_revalidate
    timed npm:pnpm pnpm_resolve
    timed apt:envlock envlock_resolve apt
    timed apt:envlock-offline envlock_resolve apt --offline
    timed apt:apt-get apt_resolve
    i=$((i + 1))
done
# ---- cold rounds: every tool from an empty cache, interleaved ----
cold=${BENCH_COLD_RUNS:-3}
i=0
while [ $i -lt "$cold" ]; do
    timed pypi:envlock-cold envlock_cold pypi
    # shellcheck disable=SC2086
    timed pypi:pip-cold pip_cold $py_pkgs
    timed npm:envlock-cold envlock_cold npm
    timed npm:npm-cold npm_cold
    i=$((i + 1))
done
for s in pypi npm; do
    cmp -s "$work/$s.lock" "$work/$s-cold.lock" || echo "!! $s: the cold lock differs from the warm one" >&2
done
load_mid=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the synthetic PyPI universe ----
first=1 first_n=
for sz in $sizes; do
    # VERSIONS:FILLERS[:GROUPS]
    v=${sz%%:*} rest=${sz#*:}
    f=${rest%%:*} g=5
    [ "$rest" != "$f" ] && g=${rest#*:}
    d=$work/syn-$v-$f-$g
    mkdir -p "$d"
    desc=$(/usr/bin/python3 "$here/gen_synthetic.py" --groups "$g" --versions "$v" --fillers "$f" \
        "$d/syn.scn" "$d/syn.yaml")
    n=$(echo "$desc" | sed -n 's/.* \([0-9]*\) versions;.*/\1/p')
    /usr/bin/python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$d/mirror" \
        "$d/syn.scn" "$here/protected.scn" >/dev/null
    /usr/bin/python3 "$servers" start --root "$d/mirror" --state "$work/state-syn-$v-$g" >/dev/null
    surl=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state-syn-$v-$g")
    timed "syn-g$g-$n:envlock-cold" syn_resolve "$d" "$surl"
    i=0
    while [ $i -lt "$runs" ]; do
        timed "syn-g$g-$n:envlock" syn_resolve "$d" "$surl"
        timed "syn-g$g-$n:envlock-offline" syn_resolve "$d" "$surl" --offline
        i=$((i + 1))
    done
    if [ "$first" = 1 ]; then
        first_n=$n
        rm -f "$work/pip-report.json"
        # pip once cold (cut at the timeout), then once warm if it finished.
        for run in cold warm; do
            # shellcheck disable=SC2086
            export BENCH_WRAP="timeout $pip_timeout"
            timed "syn-g$g-$n:pip-$run" pip_resolve "${surl}pypi/pypi/simple/" "$d/pip-cache" \
                tA-0 tB-0 tF-0
            unset BENCH_WRAP
            tail -1 "$res" | grep -q ' FAIL \| TIMEOUT ' && break
        done
        first=0
    fi
    /usr/bin/python3 "$servers" stop --state "$work/state-syn-$v-$g" >/dev/null
    rm -f "$work/state-syn-$v-$g"
    got=$(/usr/bin/python3 - "$d/syn.lock" "$work/pip-report.json" "$first_n" "$n" <<'PY'
import json, re, sys
lock = open(sys.argv[1]).read() if __import__("os").path.exists(sys.argv[1]) else ""
pick = dict(re.findall(r'name: (t[abc]-0)\n\s+version: "?([^"\n]+)', lock))
out = "envlock tA-0 %s tB-0 %s tC-0 %s" % (pick.get("ta-0"), pick.get("tb-0"), pick.get("tc-0"))
if sys.argv[3] == sys.argv[4]:
    try:
        rep = {i["metadata"]["name"].lower(): i["metadata"]["version"]
               for i in json.load(open(sys.argv[2]))["install"]}
        out += "; pip tA-0 %s tB-0 %s tC-0 %s" % (rep.get("ta-0"), rep.get("tb-0"), rep.get("tc-0"))
    except (OSError, ValueError, KeyError):
        pass
print(out)
PY
)
    echo "  syn-g$g-$n: $desc; $got" >> "$work/syn-desc"
done

echo
echo "== results (best of $runs, interleaved; wall via date +%s%N, RSS via GNU time)"
/usr/bin/python3 "$here/report.py" "$res"
echo
cat "$work/syn-desc" 2>/dev/null || true
echo "(load average: before the synthetic runs $load_mid; at the end $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs)"

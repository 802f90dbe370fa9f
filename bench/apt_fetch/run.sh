#!/bin/sh
# bench/apt_fetch/run.sh [BUILD_DIR] — Debian bookworm main amd64 (live, from
# deb.debian.org): cold and warm load through envlock's apt reader (the
# tests' apt_load driver) vs `apt-get update` into a private directory, and
# envlock's warm load from its .solv cache vs libsolv's own repo_add_solv of
# the same repo. Prints wall time, bytes and peak RSS per run. Needs the
# network; not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
load=$build/tests/apt_index/apt_load
[ -x "$load" ] || { echo "build apt_load first: cmake --build $build --target apt_load" >&2; exit 2; }
kr=/usr/share/keyrings/debian-archive-keyring.gpg
src="deb http://deb.debian.org/debian bookworm main"
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-apt-XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/solv_load" "$here/solv_load.c" $(pkg-config --cflags --libs libsolv)

timed() { # LABEL CMD... : wall seconds and peak RSS (KiB) via GNU time
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
        cat "$work/out" "$work/err" >&2; exit 1; }
    read -r wall rss < "$work/time"
    echo "$wall $rss"
}

echo "== envlock (apt_load), cache $work/cache"
for run in cold warm warm; do
    set -- $(timed "$load" --cache-dir "$work/cache" --keyring "$kr" "$src")
    stats=$(/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); s=j["stats"]; t=j["timing"]; print("bytes=%d requests=%d parsed=%d solv_hits=%d fetch_ms=%.0f load_ms=%.1f packages=%d" % (s["bytes"], s["requests"], s["parsed"], s["solv_hits"], t["fetch_ms"], t["load_ms"], j["repos"][0]["packages"]))' "$work/out")
    echo "envlock $run: wall ${1}s peak_rss ${2}KiB $stats"
done

echo "== apt-get update, private directory"
a=$work/apt
mkdir -p "$a/state/lists/partial" "$a/cache/archives/partial" "$a/etc"
: > "$a/status"
echo "deb [signed-by=$kr] http://deb.debian.org/debian bookworm main" > "$a/etc/sources.list"
aptopts="-o Dir::State=$a/state -o Dir::Cache=$a/cache -o Dir::Etc::sourcelist=$a/etc/sources.list
 -o Dir::Etc::sourceparts=- -o Dir::State::status=$a/status -o APT::Architecture=amd64
 -o APT::Architectures::=amd64 -o Acquire::Languages=none -o Debug::NoLocking=1
 -o APT::Sandbox::User=root -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false"
for run in cold warm; do
    # shellcheck disable=SC2086
    set -- $(timed apt-get -q $aptopts update)
    bytes=$(grep -o 'Fetched [0-9.]* [kMG]*B' "$work/out" || echo "Fetched 0 B")
    echo "apt-get update $run: wall ${1}s peak_rss ${2}KiB ($bytes)"
done

echo "== warm load: envlock's .solv cache vs libsolv repo_add_solv of the same repo"
# Interleaved, best of N (the machine may be busy): envlock's solv_ms is the
# blob's open + size/CRC-32 check + repo_add_solv through stdio from the cache
# entry; solv_load is libsolv's repo_add_solv of a plain .solv file.
mkdir -p "$work/solv"
"$load" --cache-dir "$work/cache" --keyring "$kr" --write-solv "$work/solv" "$src" > "$work/out"
f=$(ls "$work/solv"/*.solv | head -1)
n=${BENCH_RUNS:-9}
i=0
while [ $i -lt "$n" ]; do
    "$load" --offline --cache-dir "$work/cache" --keyring "$kr" "$src" |
        /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print("envlock %.1f %.1f" % (j["timing"]["solv_ms"], j["timing"]["load_ms"] + j["timing"]["fetch_ms"]))'
    "$work/solv_load" "$f" 1 |
        /usr/bin/python3 -c 'import json,sys; print("libsolv %.1f" % json.load(sys.stdin)["best_ms"])'
    i=$((i + 1))
done > "$work/warm"
sort -k2 -n "$work/warm" | awk '
    $1 == "envlock" { e[++ne] = $2 }
    $1 == "libsolv" { s[++ns] = $2 }
    END { printf "envlock warm .solv load (open+CRC+repo_add_solv): best %s ms median %s ms\n", e[1], e[int((ne+1)/2)]
          printf "libsolv repo_add_solv alone:                      best %s ms median %s ms\n", s[1], s[int((ns+1)/2)] }'
echo "(.solv $(stat -c %s "$f") bytes, $n runs each, offline; load average $(cut -d' ' -f1-3 /proc/loadavg))"

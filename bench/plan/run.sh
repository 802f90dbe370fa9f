#!/bin/sh
# bench/plan/run.sh [BUILD_DIR] — how long `envlock plan --variant all` and
# each `envlock export` take on the bench's combined lock (issue 8, "Speed"),
# beside the time to read the lock alone (tests/lockfile's `lock_tool read`:
# the strict reader in a program that links nothing else), which is the
# floor every plan and export pays, and envlock's start-up (`--version`). Best of $BENCH_RUNS (default 20),
# wall time via date +%s%N, peak RSS via GNU time.
#
# The lock is BUILD_DIR/bench-out/combined.lock, which bench/resolve/run.sh
# leaves behind (BENCH_RUNS=1 is enough for that); without it, the demo's
# lock (scripts/demo) is used, and the table says so. Not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build/dev}" && pwd)
runs=${BENCH_RUNS:-20}
cmake --build "$build" --target envlock lock_tool >/dev/null
el=$build/cli/envlock
tool=$build/tests/lockfile/lock_tool
lock=$build/bench-out/combined.lock
spec=$root/bench/resolve/specs/combined.yaml
bases=$root/bench/resolve/bases.yaml
what="bench/resolve combined lock"
if [ ! -f "$lock" ]; then
    lock=$root/build/demo/envlock.lock spec=$root/corpus/demo/demo.yaml
    bases=$root/corpus/demo/bases.yaml what="demo lock (run bench/resolve/run.sh for the combined one)"
    [ -f "$lock" ] || { echo "no lock: run scripts/demo or bench/resolve/run.sh first" >&2; exit 1; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-plan-XXXXXX")
trap 'rm -rf "$work"' EXIT

# best WALL_MS and RSS_KB of $runs runs of "$@"
best() {
    b=""
    rss=0
    i=0
    while [ $i -lt "$runs" ]; do
        t0=$(date +%s%N)
        /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>"$work/err" || {
            echo "failed: $*" >&2; cat "$work/err" >&2; exit 1; }
        t1=$(date +%s%N)
        t=$(( (t1 - t0) / 1000 ))
        if [ -z "$b" ] || [ $t -lt "$b" ]; then b=$t; fi
        r=$(tail -1 "$work/rss")
        [ "$r" -gt $rss ] && rss=$r
        i=$((i + 1))
    done
    awk -v us="$b" -v kb="$rss" 'BEGIN { printf "%8.2f ms %8.1f MiB\n", us / 1000, kb / 1024 }'
}

echo "lock: $what ($(wc -c < "$lock") bytes, $(grep -c '^- ecosystem:' "$lock") entries)"
printf '%-32s' "read the lock (lock_tool)"; best "$tool" read "$lock"
printf '%-32s' "plan --variant all"; best "$el" --quiet plan "$spec" "$lock" --bases "$bases" \
    --variant all -o "$work/plan"
for f in uv-pip-compile requirements pylock package-lock apt; do
    printf '%-32s' "export --format $f"; best "$el" export "$lock" --bases "$bases" --format "$f"
done
printf '%-32s' "envlock --version"; best "$el" --version
echo "(best of $runs; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg))"

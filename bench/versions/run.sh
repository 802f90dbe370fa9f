#!/bin/sh
# run.sh [N] — the version-grammar benchmark: N versions per ecosystem (default
# 100000) parsed, sorted and filtered through 5 ranges, by envlock and by the
# reference implementations, in one run. Prints a table of times and ratios.
# Needs a build (scripts/demo or scripts/test builds build/dev).
set -eu
n=${1:-100000}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${ENVLOCK_BUILD:-$root/build/dev}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/bench/versions/gen_versions.py" "$n" "$work"
cmake --build "$build" --target bench_versions >/dev/null
{
    "$build/bench/bench_versions" "$work"
    /usr/bin/python3 "$root/bench/versions/peers_versions.py" "$work"
    NODE_PATH="$root/build/tools/node_modules:/usr/share/nodejs" node "$root/bench/versions/peers_versions.js" "$work"
} >"$work/results"
echo "versions per ecosystem: $n (parse + sort + filter through 5 ranges)"
awk '
{ t[$1 " " $2] = $3; c[$1 " " $2] = $4; order[++k] = $1 " " $2 }
END {
  printf "%-10s %-11s %10s %9s %12s\n", "workload", "impl", "ms", "matches", "vs envlock"
  for (i = 1; i <= k; i++) {
    split(order[i], p, " ")
    base = t[p[1] " envlock"]
    printf "%-10s %-11s %10.1f %9s %11.1fx\n", p[1], p[2], t[order[i]], c[order[i]], t[order[i]] / base
  }
}' "$work/results"

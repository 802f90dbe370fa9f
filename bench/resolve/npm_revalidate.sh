#!/bin/sh
# bench/resolve/npm_revalidate.sh BEFORE AFTER [RUNS] — the npm part of
# bench/resolve/run.sh with the validators-only server ("npm:envlock-revalidate"
# and "npm:npm-revalidate"), two envlock binaries side by side, interleaved.
# BEFORE and AFTER are two envlock binaries (one may be a build of an older
# commit); RUNS rounds (default 5), interleaved with npm install
# --package-lock-only against the same validators-only server. Prints best and
# all wall times, user+sys CPU, peak RSS and whether the locks are identical.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/resolve
before=$1 after=$2 runs=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-npm-rv-XXXXXX")
servers=$root/tests/fixtures/servers.py
python3 "$here/gen_npm.py" "$work/bench-npm-six.scn" 2>/dev/null
python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$work/mirror" "$work/bench-npm-six.scn" >/dev/null
python3 "$servers" start --root "$work/mirror" --state "$work/state-rv" >/dev/null
trap 'python3 "$servers" stop --state "$work/state-rv" >/dev/null 2>&1; rm -rf "$work"' EXIT
rv_url=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state-rv")
mkdir -p "$work/home" "$work/npm-proj"; : > "$work/home/.npmrc"; : > "$work/home/.npmrc-global"
python3 - "$work/npm-proj/package.json" react lodash zod express typescript @types/node <<'PY'
import json, sys
json.dump({"name": "bench", "version": "1.0.0", "private": True,
           "dependencies": {n: "*" for n in sys.argv[2:]}}, open(sys.argv[1], "w"))
PY
el_rv() { # BIN TAG
    "$1" --quiet --cache-dir "$work/cache-$2" --mirror "https://registry.npmjs.org=${rv_url}npm" \
        resolve "$here/specs/npm.yaml" --bases "$here/bases.yaml" -o "$work/$2.lock"
}
npm_rv() {
    rm -f "$work/npm-proj/package-lock.json"
    (cd "$work/npm-proj" && HOME=$work/home npm_config_userconfig=$work/home/.npmrc \
        npm_config_globalconfig=$work/home/.npmrc-global npm_config_cache=$work/npm-cache \
        npm_config_update_notifier=false npm install --package-lock-only --ignore-scripts \
        --no-audit --no-fund --registry "${rv_url}npm/" >/dev/null 2>&1)
}
timed() { # LABEL CMD...
    l=$1; shift
    t0=$(date +%s%N)
    /usr/bin/time -f %M -o "$work/rss" "$@"
    t1=$(date +%s%N)
    echo "$l $(( (t1 - t0) / 1000000 )) $(tail -1 "$work/rss")" >> "$work/res"
}
el_rv "$before" before; el_rv "$after" after; npm_rv   # cold: fill the caches
cmp "$work/before.lock" "$work/after.lock" && echo "locks identical"
el_rv "$after" after
ENVLOCK_DEBUG_STATS=1 "$after" --quiet --cache-dir "$work/cache-after" --mirror "https://registry.npmjs.org=${rv_url}npm" \
    resolve "$here/specs/npm.yaml" --bases "$here/bases.yaml" -o "$work/after2.lock" 2>&1 | tail -2
: > "$work/res"
for k in 1 2 3; do for t in before after; do b=$before; [ $t = after ] && b=$after
  rm -rf "$work/cache-cold"; t0=$(date +%s%N)
  "$b" --quiet --cache-dir "$work/cache-cold" --mirror "https://registry.npmjs.org=${rv_url}npm" resolve "$here/specs/npm.yaml" --bases "$here/bases.yaml" -o "$work/cold.lock"
  t1=$(date +%s%N); echo "cold-$t $(( (t1 - t0) / 1000000 ))" >> "$work/res"; done; done
echo "load before: $(cat /proc/loadavg)"
i=0
while [ $i -lt "$runs" ]; do
    t0=$(date +%s%N); /usr/bin/time -f "before %U %S" -a -o "$work/cpu" sh -c "\"$before\" --quiet --cache-dir \"$work/cache-before\" --mirror \"https://registry.npmjs.org=${rv_url}npm\" resolve \"$here/specs/npm.yaml\" --bases \"$here/bases.yaml\" -o \"$work/before.lock\" >/dev/null"; t1=$(date +%s%N); echo "envlock-before $(( (t1 - t0) / 1000000 ))" >> "$work/res"
    t0=$(date +%s%N); /usr/bin/time -f "after %U %S" -a -o "$work/cpu" sh -c "\"$after\" --quiet --cache-dir \"$work/cache-after\" --mirror \"https://registry.npmjs.org=${rv_url}npm\" resolve \"$here/specs/npm.yaml\" --bases \"$here/bases.yaml\" -o \"$work/after.lock\" >/dev/null"; t1=$(date +%s%N); echo "envlock-after $(( (t1 - t0) / 1000000 ))" >> "$work/res"
    t0=$(date +%s%N); npm_rv; t1=$(date +%s%N); echo "npm $(( (t1 - t0) / 1000000 ))" >> "$work/res"
    i=$((i + 1))
done
echo "load after: $(cat /proc/loadavg)"
awk '{ c[$1] = c[$1] " " ($2 + $3) * 1000; if (!($1 in m) || $2 + $3 < m[$1]) m[$1] = $2 + $3 } END { for (k in m) printf "cpu %-8s best %4d ms (user+sys)  all:%s\n", k, m[k] * 1000, c[k] }' "$work/cpu"
cmp "$work/before.lock" "$work/after.lock" && echo "locks identical after rounds"
sort "$work/res" | awk '{ a[$1] = a[$1] " " $2; if (!($1 in m) || $2 < m[$1]) m[$1] = $2 } END { for (k in m) printf "%-16s best %6d ms  all:%s\n", k, m[k], a[k] }'
# peak RSS of one warm run each
for t in before after; do b=$before; [ $t = after ] && b=$after
  /usr/bin/time -f "%M KiB" -o "$work/rss" sh -c "\"$b\" --quiet --cache-dir \"$work/cache-$t\" --mirror \"https://registry.npmjs.org=${rv_url}npm\" resolve \"$here/specs/npm.yaml\" --bases \"$here/bases.yaml\" -o \"$work/x.lock\""; echo "rss $t: $(cat "$work/rss")"; done

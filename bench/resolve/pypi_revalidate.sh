#!/bin/sh
# bench/resolve/pypi_revalidate.sh BEFORE AFTER [RUNS] — the Python part of
# bench/resolve/run.sh with the validators-only server ("pypi:envlock-revalidate"
# and "pypi:pip-revalidate"), two envlock binaries side by side, interleaved.
# BEFORE and AFTER are two envlock binaries (one may be a build of an older
# commit); RUNS rounds (default 5), interleaved with pip install --dry-run
# --report (tools.sh's pip_resolve) against the same validators-only server.
# Prints best and all wall times, user+sys CPU, peak RSS, the parsed forms
# the AFTER binary read (ENVLOCK_DEBUG_STATS) and whether the locks are
# identical.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/resolve
before=$1 after=$2 runs=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-pypi-rv-XXXXXX")
servers=$root/tests/fixtures/servers.py
python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$work/mirror" \
    "$root/corpus/scenarios/bench-data-science.scn" "$here/protected.scn" >/dev/null
python3 "$servers" start --root "$work/mirror" --state "$work/state-rv" >/dev/null
trap 'python3 "$servers" stop --state "$work/state-rv" >/dev/null 2>&1; rm -rf "$work"' EXIT
rv_url=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state-rv")
py_pkgs="pandas numpy scipy scikit-learn matplotlib seaborn polars pyarrow openpyxl statsmodels"
pip_py=$(command -v python3)
platforms=$(n=36; while [ $n -ge 5 ]; do printf ' --platform manylinux_2_%d_x86_64' $n; n=$((n - 1)); done)
platforms="$platforms --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux1_x86_64"
export work pip_py platforms
# shellcheck source=bench/resolve/tools.sh
. "$here/tools.sh"
el_rv() { # BIN TAG
    "$1" --quiet --cache-dir "$work/cache-$2" --mirror "https://pypi.org=${rv_url}pypi/pypi" \
        resolve "$here/specs/pypi.yaml" --bases "$here/bases.yaml" -o "$work/$2.lock"
}
# shellcheck disable=SC2086
pip_rv() { pip_resolve "${rv_url}pypi/pypi/simple/" "$work/pip-cache-rv" $py_pkgs >/dev/null; }
el_rv "$before" before; el_rv "$after" after; pip_rv   # cold: fill the caches
cmp "$work/before.lock" "$work/after.lock" && echo "locks identical"
el_rv "$after" after
ENVLOCK_DEBUG_STATS=1 "$after" --quiet --cache-dir "$work/cache-after" --mirror "https://pypi.org=${rv_url}pypi/pypi" \
    resolve "$here/specs/pypi.yaml" --bases "$here/bases.yaml" -o "$work/after2.lock" 2>&1 | grep -E 'crawl run 1:|pypi parsed'
: > "$work/res"
: > "$work/cpu"
for k in 1 2 3; do for t in before after; do b=$before; [ $t = after ] && b=$after
  rm -rf "$work/cache-cold"; t0=$(date +%s%N)
  "$b" --quiet --cache-dir "$work/cache-cold" --mirror "https://pypi.org=${rv_url}pypi/pypi" resolve "$here/specs/pypi.yaml" --bases "$here/bases.yaml" -o "$work/cold.lock"
  t1=$(date +%s%N); echo "cold-$t $(( (t1 - t0) / 1000000 ))" >> "$work/res"; done; done
echo "load before: $(cat /proc/loadavg)"
i=0
while [ $i -lt "$runs" ]; do
    for t in before after; do b=$before; [ $t = after ] && b=$after
        t0=$(date +%s%N)
        /usr/bin/time -f "$t %U %S" -a -o "$work/cpu" sh -c "\"$b\" --quiet --cache-dir \"$work/cache-$t\" --mirror \"https://pypi.org=${rv_url}pypi/pypi\" resolve \"$here/specs/pypi.yaml\" --bases \"$here/bases.yaml\" -o \"$work/$t.lock\" >/dev/null"
        t1=$(date +%s%N); echo "envlock-$t $(( (t1 - t0) / 1000000 ))" >> "$work/res"
    done
    t0=$(date +%s%N); pip_rv; t1=$(date +%s%N); echo "pip $(( (t1 - t0) / 1000000 ))" >> "$work/res"
    i=$((i + 1))
done
echo "load after: $(cat /proc/loadavg)"
awk '{ c[$1] = c[$1] " " ($2 + $3) * 1000; if (!($1 in m) || $2 + $3 < m[$1]) m[$1] = $2 + $3 } END { for (k in m) printf "cpu %-8s best %4d ms (user+sys)  all:%s\n", k, m[k] * 1000, c[k] }' "$work/cpu"
cmp "$work/before.lock" "$work/after.lock" && echo "locks identical after rounds"
sort "$work/res" | awk '{ a[$1] = a[$1] " " $2; if (!($1 in m) || $2 < m[$1]) m[$1] = $2 } END { for (k in m) printf "%-16s best %6d ms  all:%s\n", k, m[k], a[k] }'
# peak RSS of one warm run each
for t in before after; do b=$before; [ $t = after ] && b=$after
  /usr/bin/time -f "%M KiB" -o "$work/rss" sh -c "\"$b\" --quiet --cache-dir \"$work/cache-$t\" --mirror \"https://pypi.org=${rv_url}pypi/pypi\" resolve \"$here/specs/pypi.yaml\" --bases \"$here/bases.yaml\" -o \"$work/x.lock\" >/dev/null"; echo "rss $t: $(cat "$work/rss")"; done

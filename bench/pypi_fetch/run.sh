#!/bin/sh
# bench/pypi_fetch/run.sh [BUILD_DIR] — the DataGen "Data Science" template's
# ten packages (pandas numpy scipy scikit-learn matplotlib seaborn polars
# pyarrow openpyxl statsmodels) and their dependencies, from a fixture PyPI
# mirror (corpus/scenarios/bench-data-science.scn: 44 versions of 26
# projects, cp313 manylinux and pure wheels, PEP 658 .metadata files) served
# by nginx on 127.0.0.1, cold and warm:
#   envlock: bench_pypi_fetch — one PyPI loader, all ten submitted at once,
#            then their dependencies transitively (one cache run per level of
#            the graph), https://pypi.org mapped to the mirror with --mirror;
#   pip:     `pip install --dry-run --ignore-installed --report -` for a
#            CPython 3.13 manylinux_2_36 x86_64 target (--only-binary; pip 23
#            needs every manylinux_2_N listed), with
#            every PIP_* variable unset, no config file and a private cache.
# Prints wall time, peak RSS (GNU time), requests and bytes (nginx's access
# log of that run). No network beyond 127.0.0.1; not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
drv=$build/bench/bench_pypi_fetch
[ -x "$drv" ] || { echo "build it first: cmake --build $build --target bench_pypi_fetch" >&2; exit 2; }
names="pandas numpy scipy scikit-learn matplotlib seaborn polars pyarrow openpyxl statsmodels"
pip_py=$(command -v python3)
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-pypi-XXXXXX")
cleanup() {
    /usr/bin/python3 "$root/tests/fixtures/servers.py" stop --state "$work/state" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

/usr/bin/python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$work/mirror" \
    "$root/corpus/scenarios/bench-data-science.scn" > /dev/null
/usr/bin/python3 "$root/tests/fixtures/servers.py" start --root "$work/mirror" --state "$work/state" > /dev/null
url=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state")
log=$work/state.d/nginx/access.log

timed() { # CMD... : "wall rss" via GNU time; output kept in $work/out, $work/err
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
        cat "$work/out" "$work/err" >&2; exit 1; }
    cat "$work/time"
}
mark() { wc -l < "$log"; }
traffic() { # FROM-LINE : "requests=N bytes=B status=..." of the log since FROM-LINE
    tail -n +"$(($1 + 1))" "$log" | awk '
        { n++; b += $10; s[$9]++ }
        END { printf "requests=%d bytes=%d", n, b; for (k in s) printf " http_%s=%d", k, s[k] }'
}

echo "== envlock (bench_pypi_fetch), mirror $url"
for run in cold warm warm; do
    m=$(mark)
    # shellcheck disable=SC2086
    set -- $(timed "$drv" --cache-dir "$work/envlock-cache" --mirror "https://pypi.org=${url}pypi/pypi" $names)
    info=$(/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); s=j["stats"]; print("projects=%d rounds=%d cache_hits=%d revalidated=%d" % (j["n_projects"], j["rounds"], s["hits"], s["revalidated"]))' "$work/out")
    echo "envlock $run: wall ${1}s peak_rss ${2}KiB $(traffic "$m") $info"
done
m=$(mark)
set -- $(timed "$drv" --offline --cache-dir "$work/envlock-cache" --mirror "https://pypi.org=${url}pypi/pypi" $names)
echo "envlock warm --offline: wall ${1}s peak_rss ${2}KiB $(traffic "$m")"

# pip 23 does not widen a manylinux_2_N --platform to lower N: list them all
# (as tests/fixtures/test_pip.py does) for glibc 2.36 x86_64.
platforms=$(n=36; while [ $n -ge 5 ]; do printf ' --platform manylinux_2_%d_x86_64' $n; n=$((n - 1)); done)
platforms="$platforms --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux1_x86_64"
echo "== pip $("$pip_py" -m pip --version | cut -d' ' -f2) install --dry-run --report, private cache"
for run in cold warm warm; do
    m=$(mark)
    rm -rf "$work/target"
    # shellcheck disable=SC2046
    set -- $(timed env $(env | sed -n 's/^\(PIP_[A-Za-z0-9_]*\)=.*/-u \1/p') \
        PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 HOME="$work" \
        "$pip_py" -m pip install --dry-run --ignore-installed --quiet --report - \
        --index-url "${url}pypi/pypi/simple/" --cache-dir "$work/pip-cache" \
        --python-version 3.13 --implementation cp --abi cp313 --abi abi3 --abi none \
        $platforms --only-binary=:all: --target "$work/target" $names)
    n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["install"]))' "$work/out")
    echo "pip $run: wall ${1}s peak_rss ${2}KiB $(traffic "$m") packages=$n"
done
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg))"

#!/bin/sh
# bench/npm_fetch/run.sh [BUILD_DIR] — six real npm packages' packuments
# (react lodash zod express typescript @types/node) from the public registry:
# cold and warm through envlock's npm loader (tests' npm_index_driver: one
# process, one cache run, all six submitted at once) vs `npm install
# --package-lock-only` in a temp project with a private HOME, npmrc and npm
# cache (cold: empty cache; warm: same cache, lock removed). Prints wall
# time, peak RSS, requests and bytes. Needs the network; not part of ctest.
#
# Not the same work: envlock fetches exactly the six packuments; npm resolves
# the whole tree (express alone pulls in ~60 packages), so its request count
# is reported next to its time.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
drv=$build/tests/npm_index/npm_index_driver
[ -x "$drv" ] || { echo "build it first: cmake --build $build --target npm_index_driver" >&2; exit 2; }
names="react lodash zod express typescript @types/node"
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-npm-XXXXXX")
trap 'rm -rf "$work"' EXIT

timed() { # CMD... : "wall rss" via GNU time; stdout/stderr kept in $work/out, err
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
        cat "$work/out" "$work/err" >&2; exit 1; }
    cat "$work/time"
}

echo "== envlock (npm loader, abbreviated packuments), cache $work/cache"
for run in cold warm warm; do
    # shellcheck disable=SC2086
    set -- $(HOME=$work timed "$drv" --cache "$work/cache" load $names)
    st=$(sed -n 's/^stats //p' "$work/err")
    ok=$(grep -c '"code":"OK"' "$work/out" || true)
    echo "envlock $run: wall ${1}s peak_rss ${2}KiB packuments_ok=$ok $st"
done

echo "== npm $(npm --version) install --package-lock-only, private HOME and cache"
proj=$work/proj
mkdir -p "$proj" "$work/home"
: > "$work/home/.npmrc"
/usr/bin/python3 - "$proj/package.json" $names <<'PY'
import json, sys
json.dump({"name": "bench", "version": "1.0.0", "private": True,
           "dependencies": {n: "*" for n in sys.argv[2:]}}, open(sys.argv[1], "w"))
PY
for run in cold warm; do
    rm -f "$proj/package-lock.json"
    set -- $(cd "$proj" && HOME=$work/home npm_config_userconfig=$work/home/.npmrc \
        npm_config_cache=$work/npmcache timed npm install --package-lock-only --ignore-scripts \
        --no-audit --no-fund --loglevel http)
    reqs=$(grep -c 'http fetch GET' "$work/err" || true)
    net=$(grep 'http fetch GET' "$work/err" | grep -vc '(cache' || true)
    size=$(du -sk "$work/npmcache" | cut -f1)
    pk=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["packages"]) - 1)' "$proj/package-lock.json")
    echo "npm $run: wall ${1}s peak_rss ${2}KiB fetches=$reqs network=$net cache_dir=${size}KiB packages_locked=$pk"
done

#!/bin/sh
# bench/bundle/run.sh [BUILD_DIR] — how fast `envlock bundle` fetches a lock's
# artifacts (issue 9, "Speed"), side by side with the ecosystems' own download
# tools doing the same job, interleaved (every tool once per round, best of
# $BENCH_RUNS rounds, default 3), wall time and peak RSS (GNU time), as ratios.
#
# The lock is BUILD_DIR/bench-out/combined.lock, which bench/resolve/run.sh
# leaves behind (BENCH_RUNS=1 is enough): the "Data Science" Python packages
# and six npm packages from bench/resolve's fixture mirror, eight apt packages
# and what they pull in from Debian bookworm main. Everything is served from
# 127.0.0.1 by nginx (tests/fixtures/servers.py, validators only, so warm runs
# revalidate every page): the fixture PyPI and npm trees built as
# bench/resolve builds them, and the lock's Debian part (InRelease, Release,
# Packages.xz, the locked .debs) fetched ONCE from deb.debian.org into
# BUILD_DIR/bench-out/debian (site.py debian; kept for later runs). Timed, from
# loopback only:
#   envlock   `envlock bundle LOCK -o DIR` with a fresh cache and a fresh DIR
#             (every artifact, plus the index documents a site mirror needs);
#   pip       `pip download --no-deps --require-hashes --no-cache-dir` of
#             `envlock export --format requirements` (isolated: PIP_* unset,
#             PIP_CONFIG_FILE=/dev/null, the cp313 manylinux target);
#   npm       `npm ci --ignore-scripts` of `envlock export --format
#             package-lock` (resolved URLs at the loopback registry), a fresh
#             cache and node_modules, private HOME and npmrc;
#   apt-get   `apt-get download` of every locked deb from a private apt root
#             (Dir=, `apt-get update` once, untimed) on the loopback archive.
# Then the second table: a warm re-resolution of bench/resolve's combined spec
# from the bundle (served by nginx with DIR/README's block, its --mirror
# lines) beside a warm resolve of it against the original (loopback) indexes;
# both locks are compared byte for byte.
#
# Needs nginx, pip, npm, apt-get, GNU time, python3-yaml, and the network once
# for deb.debian.org. Not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${BENCH_RUNS:-3}
servers="$root/tests/fixtures/servers.py"
lock=$build/bench-out/combined.lock
spec=$root/bench/resolve/specs/combined.yaml
bases=$root/bench/resolve/bases.yaml
[ -f "$lock" ] || { echo "no $lock: run BENCH_RUNS=1 sh bench/resolve/run.sh $build first" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-bundle-XXXXXX")
site_pid=
cleanup() {
    [ -n "$site_pid" ] && kill "$site_pid" 2>/dev/null || true
    [ -f "$work/state" ] && /usr/bin/python3 "$servers" stop --state "$work/state" >/dev/null 2>&1 || true
    if [ -n "${BENCH_KEEP:-}" ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

cmake --build "$build" --target envlock >/dev/null
el=$build/cli/envlock

# ---- the served tree: fixture PyPI + npm, the lock's Debian part ----
/usr/bin/python3 "$root/bench/resolve/gen_npm.py" "$work/bench-npm-six.scn" 2>/dev/null
/usr/bin/python3 "$root/tests/fixtures/build_mirror.py" --no-apt --out "$work/mirror" \
    "$root/corpus/scenarios/bench-data-science.scn" "$work/bench-npm-six.scn" \
    "$root/bench/resolve/protected.scn" >/dev/null
archive=$(/usr/bin/python3 "$here/site.py" debian "$lock" "$build/bench-out/debian" "$work/mirror")
/usr/bin/python3 "$servers" start --root "$work/mirror" --state "$work/state" >/dev/null
url=$(sed -n 's/^ENVLOCK_FIXTURE_URL=//p' "$work/state")
mirrors="--mirror https://pypi.org=${url}pypi/pypi --mirror https://registry.npmjs.org=${url}npm
 --mirror ${archive}=${url}debian"

# ---- the peers' inputs ----
"$el" export "$lock" --bases "$bases" --format requirements -o "$work/requirements.txt"
mkdir -p "$work/npm-proj" "$work/home"
# shellcheck disable=SC2086
"$el" $mirrors export "$lock" --bases "$bases" --format package-lock -o "$work/npm-proj/package-lock.json"
/usr/bin/python3 - "$work/npm-proj" <<'PY'
import json, os, sys
root = json.load(open(os.path.join(sys.argv[1], "package-lock.json")))["packages"][""]
json.dump({"name": root.get("name", "bench"), "version": root.get("version", "1.0.0"),
           "dependencies": root.get("dependencies", {})}, open(os.path.join(sys.argv[1], "package.json"), "w"))
PY
printf 'registry=%snpm/\naudit=false\nfund=false\nupdate-notifier=false\n' "$url" > "$work/home/.npmrc"
platforms=$(n=36; while [ $n -ge 5 ]; do printf ' --platform manylinux_2_%d_x86_64' $n; n=$((n - 1)); done)
platforms="$platforms --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux1_x86_64"
a=$work/apt
mkdir -p "$a/etc/apt/sources.list.d" "$a/etc/apt/preferences.d" "$a/etc/apt/apt.conf.d" \
    "$a/var/lib/apt/lists/partial" "$a/var/cache/apt/archives/partial" "$a/var/lib/dpkg"
: > "$a/var/lib/dpkg/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${url}debian bookworm main" \
    > "$a/etc/apt/sources.list"
aptopts="-o Dir=$a -o Dir::State::status=$a/var/lib/dpkg/status -o Acquire::Languages=none
 -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get -q $aptopts update >/dev/null
debs=$(/usr/bin/python3 "$here/site.py" debs "$lock" | tr '\n' ' ')
export el work url mirrors platforms aptopts debs spec bases lock

# ---- the tools, one function each (run under GNU time by `sh -c`) ----
cat > "$work/tools.sh" <<'EOF'
envlock_bundle() { # ROUND
    # shellcheck disable=SC2086
    "$el" --quiet --cache-dir "$work/c-bundle-$1" $mirrors bundle "$lock" -o "$work/b-$1"
}
pip_download() { # ROUND
    # shellcheck disable=SC2046,SC2086
    env $(env | sed -n 's/^\(PIP_[A-Za-z0-9_]*\)=.*/-u \1/p') PIP_CONFIG_FILE=/dev/null \
        PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 HOME="$work/home" \
        /usr/bin/python3 -m pip download --quiet --no-deps --require-hashes --no-cache-dir \
        --only-binary=:all: --python-version 3.13 --implementation cp --abi cp313 --abi abi3 \
        --abi none $platforms --index-url "${url}pypi/pypi/simple/" -d "$work/pip-$1" \
        -r "$work/requirements.txt"
}
npm_ci() { # ROUND
    rm -rf "$work/npm-proj/node_modules"
    (cd "$work/npm-proj" && HOME=$work/home npm_config_userconfig=$work/home/.npmrc \
        npm_config_cache="$work/npm-cache-$1" npm ci --ignore-scripts --no-audit --no-fund \
        --loglevel error)
}
apt_download() { # ROUND
    mkdir -p "$work/apt-$1"
    # shellcheck disable=SC2086
    (cd "$work/apt-$1" && apt-get -q $aptopts download $debs)
}
resolve_online() {
    # shellcheck disable=SC2086
    "$el" --quiet --cache-dir "$work/c-online" $mirrors resolve "$spec" --bases "$bases" \
        -o "$work/online.lock"
}
resolve_site() {
    # shellcheck disable=SC2086
    "$el" --quiet --cache-dir "$work/c-site" $site_mirrors resolve "$spec" --bases "$bases" \
        -o "$work/site.lock"
}
EOF

res=$work/results
: > "$res"
timed() { # LABEL FUNCTION ARGS... : appends "LABEL wall_ms rss_kib" to $res
    label=$1
    shift
    t0=$(date +%s%N)
    # shellcheck disable=SC2016
    if /usr/bin/time -f "%M" -o "$work/rss" sh -c '. "$work/tools.sh"; "$@"' sh "$@" \
        > "$work/out" 2> "$work/err"; then
        t1=$(date +%s%N)
        echo "$label $(( (t1 - t0) / 1000 )) $(tail -1 "$work/rss")" |
            awk '{ printf "%s %.1f %s\n", $1, $2 / 1000, $3 }' >> "$res"
    else
        echo "$label FAIL" >> "$res"
        echo "== $label failed:" >&2
        tail -n 5 "$work/out" "$work/err" >&2
    fi
}

# ---- table 1: interleaved rounds, each from nothing ----
echo "rounds: $runs (load average before: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
i=0
while [ $i -lt "$runs" ]; do
    timed bundle:envlock envlock_bundle $i
    timed bundle:pip pip_download $i
    timed bundle:npm npm_ci $i
    timed bundle:apt-get apt_download $i
    [ $i -gt 0 ] && rm -rf "$work/c-bundle-$((i - 1))" "$work/pip-$((i - 1))" "$work/npm-cache-$((i - 1))" \
        "$work/apt-$((i - 1))"
    [ $i -gt 1 ] && rm -rf "$work/b-$((i - 2))"
    i=$((i + 1))
done
# What each got (the last round): files, bytes.
counts() { find "$1" -type f -name "$2" | wc -l; }
got="envlock: $(counts "$work/b-$((runs - 1))" '*.whl') wheels, $(counts "$work/b-$((runs - 1))" '*.tgz') tarballs,"
got="$got $(counts "$work/b-$((runs - 1))" '*.deb') debs, $(du -sm "$work/b-$((runs - 1))" | cut -f1) MB in DIR;"
got="$got pip: $(counts "$work/pip-$((runs - 1))" '*'); npm: $(find "$work/npm-proj/node_modules" -name package.json -maxdepth 3 | wc -l) package.json;"
got="$got apt-get: $(counts "$work/apt-$((runs - 1))" '*.deb')"

# ---- table 2: warm re-resolution from the bundle vs warm online ----
set -- $(/usr/bin/python3 "$here/site.py" serve-bundle "$work/b-$((runs - 1))" "$work/nginx-site")
site_pid=$1
shift
site_mirrors="$*"
export site_mirrors
sh -c '. "$work/tools.sh"; resolve_online && resolve_online' >/dev/null
sh -c '. "$work/tools.sh"; resolve_site && resolve_site' >/dev/null
i=0
while [ $i -lt "$runs" ]; do
    timed warm:envlock-online resolve_online
    timed warm:envlock-bundle resolve_site
    i=$((i + 1))
done
same=different
cmp -s "$work/online.lock" "$work/site.lock" && same=identical

echo
echo "== results (best of $runs, interleaved; wall via date +%s%N, RSS via GNU time; loopback only)"
awk -v same="$same" '
$2 == "FAIL" { fail[$1] = 1; next }
{ if (!($1 in best) || $2 < best[$1]) best[$1] = $2; if ($3 > rss[$1]) rss[$1] = $3 }
END {
    printf "| %-22s | %10s | %9s | %s |\n", "run", "wall ms", "RSS MiB", "vs envlock"
    printf "|%s|%s|%s|%s|\n", "------------------------", "------------", "-----------", "------------"
    n = split("bundle:envlock bundle:pip bundle:npm bundle:apt-get warm:envlock-online warm:envlock-bundle", k, " ")
    fastest = ""
    for (i = 2; i <= 4; i++) if (k[i] in best && (fastest == "" || best[k[i]] < best[fastest])) fastest = k[i]
    for (i = 1; i <= n; i++) {
        l = k[i]
        if (l in fail) { printf "| %-22s | %10s | %9s | |\n", l, "FAIL", ""; continue }
        if (!(l in best)) continue
        ref = l ~ /^bundle:/ ? "bundle:envlock" : "warm:envlock-online"
        printf "| %-22s | %10.1f | %9.1f | %s |\n", l, best[l], rss[l] / 1024,
            l == ref ? "" : sprintf("%.2fx", best[l] / best[ref])
    }
    sum = best["bundle:pip"] + best["bundle:npm"] + best["bundle:apt-get"]
    printf "| %-22s | %10.1f | %9s | %.2fx |\n", "peers, one after another", sum, "", sum / best["bundle:envlock"]
    if (fastest != "")
        printf "\nenvlock bundle (the whole lock) vs the fastest peer (%s, its part only): %.2fx its time (%s);" \
            " vs the three peers one after another: %.2fx\n", fastest, best["bundle:envlock"] / best[fastest],
            best["bundle:envlock"] <= best[fastest] ? "at least as fast" : "slower", best["bundle:envlock"] / sum
    printf "warm re-resolution from the bundle vs warm online: %.2fx; the two locks are %s\n",
        best["warm:envlock-bundle"] / best["warm:envlock-online"], same
}' "$res"
echo "$got"
echo "($(nproc) CPUs; load at the end $(cut -d' ' -f1-3 /proc/loadavg); $(npm --version 2>/dev/null | sed 's/^/npm /')," \
    "$(/usr/bin/python3 -m pip --version | cut -d' ' -f1-2), $(apt-get --version | head -1))"

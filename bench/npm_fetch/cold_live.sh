#!/bin/sh
# bench/npm_fetch/cold_live.sh BUILD [RUNS] — issue 12's cold npm goal:
# `envlock resolve` against the live registry (https://registry.npmjs.org)
# with every cache empty, side by side with `npm install --package-lock-only`
# and pnpm 12's `install --lockfile-only`, on three workloads
# (specs/NAME.yaml for envlock, the same set as specs/NAME.package.json's
# dependencies for npm and pnpm):
#   six     bench/resolve's npm part (react lodash zod express typescript @types/node)
#   nextjs  create-next-app 16.4.3's defaults (next react react-dom + TS, ESLint, Tailwind)
#   nestjs  `nest new`'s package.json (@nestjs/schematics 12.0.6's ts template)
# and three larger real sets of tests/agreement/npm_apps (sets.json):
#   gatsby     gatsby-starter-default's dependencies
#   cra        socket.io's create-react-app example's dependencies
#   firestore  the Firebase Firestore Angular example's dependencies and devDependencies
# Every tool gets a fresh cache each run (envlock --cache-dir; npm
# npm_config_cache; pnpm --store-dir/--cache-dir) and a private HOME and
# npmrc; the tools are interleaved within each of RUNS rounds (default 3).
# Prints best and median wall, peak RSS (GNU time, largest of the runs),
# the packages each lock holds (lockset.py: installed copies, distinct
# name@version, optional-only), requests, and envlock's ENVLOCK_DEBUG_STATS
# lines of the last round (crawl depth and arrivals per depth). The last
# round's locks and name@version lists are kept in BUILD/bench-out/npm-cold.
# BENCH_TOOLS (default "envlock npm pnpm") runs fewer tools, say `envlock pnpm`
# when npm's 30-50 s a run do not fit. BENCH_PIN_DNS=0 lets each tool look
# the registry up itself (see "pinned" below). Needs the network; not part of ctest. pnpm: $PNPM, else pnpm 12 installed
# with npm into BUILD/tools as bench/resolve/run.sh does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reg=https://registry.npmjs.org/

# One run of TOOL on workload W in a fresh directory $work/W-TOOL (its
# cache inside). Leaves the lock there as `lock`.
run_envlock() {
    ENVLOCK_DEBUG_STATS=1 "$el" --quiet --cache-dir "$1/cache" resolve "$here/specs/$2.yaml" \
        --bases "$root/bench/resolve/bases.yaml" -o "$1/lock"
}
run_npm() {
    cp "$here/specs/$2.package.json" "$1/package.json"
    (cd "$1" && npm_config_cache="$1/cache" npm install --package-lock-only --ignore-scripts \
        --no-audit --no-fund --registry "$reg" && mv package-lock.json lock)
}
run_pnpm() {
    cp "$here/specs/$2.package.json" "$1/package.json"
    (cd "$1" && "$pnpm" install --lockfile-only --reporter silent --registry "$reg" \
        --store-dir "$1/store" --cache-dir "$1/cache" && mv pnpm-lock.yaml lock)
}

# `cold_live.sh [--pinned HOSTS] --run TOOL DIR W`: one run, as GNU time
# measures it (el and pnpm come from the environment); --pinned first
# mounts HOSTS on /etc/hosts (the caller made a mount namespace for it).
if [ "${1:-}" = --pinned ]; then # in a mount namespace of its own
    mount --bind "$2" /etc/hosts
    shift 2
fi
if [ "${1:-}" = --run ]; then
    "run_$2" "$3" "$4"
    exit
fi

build=$(cd "${1:?usage: cold_live.sh BUILD [RUNS]}" && pwd)
runs=${2:-3}
workloads=${BENCH_WORKLOADS:-"six nextjs nestjs gatsby cra firestore"}
tools=${BENCH_TOOLS:-"envlock npm pnpm"}
el=$build/cli/envlock
[ -x "$el" ] || { echo "build it first: cmake --build $build --target envlock" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/envlock-bench-cold-XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$build/bench-out/npm-cold
mkdir -p "$out"

pnpm=${PNPM:-}
if [ -z "$pnpm" ]; then
    pnpm=$build/tools/node_modules/@pnpm/exe.linux-x64/pnpm
    if [ ! -x "$pnpm" ]; then
        mkdir -p "$build/tools"
        (cd "$build/tools" && npm install --no-audit --no-fund --loglevel error --prefix . pnpm@12 >/dev/null)
    fi
    [ -x "$pnpm" ] || pnpm=$build/tools/node_modules/.bin/pnpm
fi

export el pnpm
mkdir -p "$work/home"
: > "$work/home/.npmrc"
: > "$work/home/.npmrc-global"
export HOME="$work/home" npm_config_userconfig="$work/home/.npmrc" \
    npm_config_globalconfig="$work/home/.npmrc-global" npm_config_update_notifier=false \
    XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache" \
    XDG_DATA_HOME="$work/home/.local"

# Requests each tool made, from what it left in its cache: envlock's stats
# line; npm's cacache index entries; pnpm's metadata files.
requests() { # TOOL DIR
    case $1 in
    envlock) sed -n 's/^envlock-stats: crawl run 1: \([0-9]*\) requests.*/\1/p' "$2/err" | head -1 ;;
    npm) find "$2/cache/_cacache/index-v5" -type f 2>/dev/null | wc -l ;;
    pnpm) find "$2/cache" -path '*metadata*' -type f 2>/dev/null | wc -l ;;
    esac
}

# The registry's address, pinned for every tool (BENCH_PIN_DNS=0: not):
# this network's DNS server drops a reply now and then under a burst of
# lookups, and glibc then waits its 5 s timeout (resolv.conf). npm and
# pnpm look the name up for each new connection, so most pnpm runs here
# stalled 4-5 s on one lookup after their last transfer (strace: the
# lookup's thread is joined before exit), a wait that is this network's,
# not pnpm's. Each run sees a private /etc/hosts naming the address
# getent found (a mount namespace: needs root and unshare).
hosts=
if [ "${BENCH_PIN_DNS:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
    rhost=$(echo "$reg" | sed 's,^https://,,; s,/.*,,')
    addr=$(getent ahostsv4 "$rhost" | awk 'NR == 1 { print $1 }')
    if [ -n "$addr" ]; then
        hosts=$work/hosts
        { cat /etc/hosts; echo "$addr $rhost"; } > "$hosts"
        unshare -m mount --bind "$hosts" /etc/hosts 2>/dev/null || hosts=
    fi
fi
# How each run starts: in its own mount namespace when pinned.
runner="sh" pin=""
[ -n "$hosts" ] && runner="unshare -m sh" pin="--pinned $hosts"

res=$work/results
: > "$res"
load0=$(cat /proc/loadavg)
r=1
while [ "$r" -le "$runs" ]; do
    for w in $workloads; do
        for t in $tools; do
            d=$work/$w-$t
            rm -rf "$d"
            mkdir -p "$d"
            t0=$(date +%s%N)
            # shellcheck disable=SC2086
            /usr/bin/time -f %M -o "$d/rss" $runner "$here/cold_live.sh" $pin --run "$t" "$d" "$w" \
                > "$d/out" 2> "$d/err" || true
            t1=$(date +%s%N)
            if [ -f "$d/lock" ]; then
                # shellcheck disable=SC2046
                set -- $(/usr/bin/python3 "$here/lockset.py" "$t" "$d/lock" "$d/pairs")
                echo "$w $t $(( (t1 - t0) / 1000000 )) $(tail -1 "$d/rss") $1 $2 $3 $(requests "$t" "$d")" >> "$res"
            else
                echo "$w $t FAIL" >> "$res"
                echo "== $w $t failed:" >&2
                tail -n 5 "$d/out" "$d/err" >&2
            fi
            echo "round $r $(tail -1 "$res")" >&2
        done
    done
    r=$((r + 1))
done
load1=$(cat /proc/loadavg)

for w in $workloads; do
    for t in $tools; do
        d=$work/$w-$t
        [ -f "$d/lock" ] && cp "$d/lock" "$out/$w.$t.lock" && cp "$d/pairs" "$out/$w.$t.pairs"
        if [ "$t" = envlock ]; then
            grep '^envlock-stats:' "$d/err" > "$out/$w.envlock.stats" || true
        fi
    done
done

echo "== cold, live registry ($reg), fresh caches, $runs interleaved rounds"
echo "   envlock $("$el" --version 2>/dev/null | head -1), npm $(npm --version), pnpm $("$pnpm" --version), $(nproc) CPUs"
echo "   load average: before $load0; after $load1"
if [ -n "$hosts" ]; then
    echo "   registry address: $addr, pinned in a private /etc/hosts for every run"
else
    echo "   registry address: looked up by each tool (not pinned)"
fi
/usr/bin/python3 - "$res" <<'PY'
import collections, statistics, sys
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((f[0], f[1]), []).append(f[2:])
print("%-8s %-8s %3s %9s %10s %8s %6s %7s %5s %6s %8s" % (
    "workload", "tool", "n", "best s", "median s", "RSS MiB", "paths", "unique", "opt", "reqs", "x best"))
best = {}
for (w, t), rs in rows.items():
    ok = [r for r in rs if r[0] != "FAIL"]
    if ok:
        best[(w, t)] = min(int(r[0]) for r in ok)
for (w, t), rs in rows.items():
    ok = [r for r in rs if r[0] != "FAIL"]
    if not ok:
        print("%-8s %-8s %3d  FAIL" % (w, t, len(rs)))
        continue
    walls = [int(r[0]) / 1000 for r in ok]
    last = ok[-1]
    peer = min([best[(w, p)] for p in ("npm", "pnpm") if (w, p) in best] or [0])
    ratio = "%.2f" % (peer / best[(w, t)]) if t == "envlock" and peer else ""
    print("%-8s %-8s %3d %9.2f %10.2f %8.1f %6s %7s %5s %6s %8s" % (
        w, t, len(ok), min(walls), statistics.median(walls),
        max(int(r[1]) for r in ok) / 1024, last[2], last[3], last[4], last[5] if len(last) > 5 else "",
        ratio))
print("(x best: the faster peer's best wall / envlock's; paths: installed copies,"
      " unique: name@version, opt: of those only optional edges reach)")
PY
for w in $workloads; do
    echo "-- $w envlock crawl:"
    grep -v 'parsed forms\|^envlock-stats: solve' "$out/$w.envlock.stats" || true
done

# bench/resolve/tools.sh — how run.sh runs each tool, one function each,
# sourced by run.sh and by the `sh -c` that GNU time measures (so the
# variables they read are exported by run.sh: work url rv_url el mirrors
# rv_mirrors here pip_py platforms pnpm aptopts apt_pkgs); and timed(), the
# runner run.sh and scale.sh time them with.
# shellcheck shell=sh disable=SC2154

envlock_resolve() { # SPEC [--offline] [--debug-solver DIR]
    # Against the server that sends the registries' Cache-Control (max-age):
    # a warm run reuses pages still fresh, as against pypi.org and npmjs.org.
    spec=$1
    shift
    # shellcheck disable=SC2086
    "$el" --quiet --cache-dir "$work/envlock-cache" $mirrors resolve "$here/specs/$spec.yaml" \
        --bases "$here/bases.yaml" -o "$work/$spec.lock" "$@"
}

envlock_revalidate() { # SPEC: against the server that sends validators only,
    # so every index page is revalidated (a conditional GET) on every run.
    spec=$1
    shift
    # shellcheck disable=SC2086
    "$el" --quiet --cache-dir "$work/envlock-cache-rv" $rv_mirrors resolve "$here/specs/$spec.yaml" \
        --bases "$here/bases.yaml" -o "$work/$spec-rv.lock" "$@"
}

envlock_cold() { # SPEC: from an empty cache (the last one removed first), so
    # every page and metadata file is fetched, against the max-age server
    rm -rf "$work/envlock-cache-cold"
    # shellcheck disable=SC2086
    "$el" --quiet --cache-dir "$work/envlock-cache-cold" $mirrors resolve "$here/specs/$1.yaml" \
        --bases "$here/bases.yaml" -o "$work/$1-cold.lock"
}

pip_cold() { # PACKAGES...: pip_resolve from an empty cache
    rm -rf "$work/pip-cache-cold"
    pip_resolve "${url}pypi/pypi/simple/" "$work/pip-cache-cold" "$@"
}

npm_cold() { # npm_resolve from an empty cache
    rm -rf "$work/npm-cache-cold"
    npm_resolve "$url" "$work/npm-cache-cold"
}

pip_resolve() { # INDEX_URL CACHE PACKAGES...
    index=$1 cache=$2
    shift 2
    rm -rf "$work/pip-target"
    # shellcheck disable=SC2046,SC2086
    ${BENCH_WRAP:-} env $(env | sed -n 's/^\(PIP_[A-Za-z0-9_]*\)=.*/-u \1/p') \
        PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 HOME="$work" \
        "$pip_py" -m pip install --dry-run --ignore-installed --quiet --report "$work/pip-report.json" \
        --index-url "$index" --cache-dir "$cache" \
        --python-version 3.13 --implementation cp --abi cp313 --abi abi3 --abi none \
        $platforms --only-binary=:all: --target "$work/pip-target" "$@"
}

npm_resolve() { # [SERVER_URL CACHE]: default the max-age server
    u=${1:-$url} cache=${2:-$work/npm-cache}
    rm -f "$work/npm-proj/package-lock.json"
    (cd "$work/npm-proj" && HOME=$work/home npm_config_userconfig=$work/home/.npmrc \
        npm_config_globalconfig=$work/home/.npmrc-global npm_config_cache=$cache \
        npm_config_update_notifier=false npm install --package-lock-only --ignore-scripts \
        --no-audit --no-fund --registry "${u}npm/")
}

npm_revalidate() {
    npm_resolve "$rv_url" "$work/npm-cache-rv"
}

pnpm_resolve() {
    rm -f "$work/pnpm-proj/pnpm-lock.yaml"
    (cd "$work/pnpm-proj" && HOME=$work/home XDG_CONFIG_HOME=$work/home/.config \
        XDG_CACHE_HOME=$work/home/.cache XDG_DATA_HOME=$work/home/.local \
        npm_config_update_notifier=false "$pnpm" install --lockfile-only --reporter silent \
        --registry "${url}npm/" --store-dir "$work/pnpm-store" --cache-dir "$work/pnpm-cache")
}

apt_resolve() {
    # shellcheck disable=SC2086
    apt-get -s $aptopts install $apt_pkgs
}

syn_resolve() { # DIR URL [--offline]: the synthetic universe's spec in DIR, served at URL
    d=$1 u=$2
    shift 2
    "$el" --quiet --cache-dir "$d/cache" --mirror "https://pypi.org=${u}pypi/pypi" \
        resolve "$d/syn.yaml" --bases "$here/bases.yaml" -o "$d/syn.lock" "$@"
}

syn_fresh() { # DIR URL [ARGS]: the same with no previous lock (every window
    # starts at its newest versions, so the deep conflicts are found by
    # failed solves that widen them)
    rm -f "$1/syn.lock"
    syn_resolve "$@"
}

testsolv_replay() { # DIR: libsolv's load+solve of envlock's testcase
    testsolv "$1/testcase.t"
}

timed() { # LABEL CMD... : appends "LABEL wall_ms rss_kib" (or FAIL) to $res;
    # the command's stdout and stderr are left in $work/out and $work/err
    label=$1
    shift
    t0=$(date +%s%N)
    # shellcheck disable=SC2016
    if /usr/bin/time -f "%M" -o "$work/rss" sh -c '. "$here/tools.sh"; "$@"' sh "$@" \
        > "$work/out" 2> "$work/err"; then
        t1=$(date +%s%N)
        echo "$label $(( (t1 - t0) / 1000 )) $(tail -1 "$work/rss")" |
            awk '{ printf "%s %.1f %s\n", $1, $2 / 1000, $3 }' >> "$res"
    else
        st=$?
        t1=$(date +%s%N)
        what=FAIL
        [ $st = 124 ] && what=TIMEOUT
        echo "$label $what $(( (t1 - t0) / 1000000000 )) $st" >> "$res"
        echo "== $label failed:" >&2
        tail -n 5 "$work/out" "$work/err" >&2
    fi
}

#!/bin/sh
# Answer cases.txt and random_cases.txt again with @conda-org/rattler's
# solver, replay envlock against those answers, and check the committed
# answer files are still what rattler answers. Exit 77 (skip) when node or
# the package is missing.
node=$1 modules=$2 driver=$3 dir=$4
if [ ! -x "$node" ] || [ ! -d "$modules/@conda-org/rattler" ]; then
    echo "@conda-org/rattler not installed under $modules: skipping"
    exit 77
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
for set in cases:rattler_answers: random_cases:random_answers:random_known.txt; do
    cases=${set%%:*}.txt rest=${set#*:}
    answers=${rest%%:*}.txt known=${rest#*:}
    "$node" "$dir/rattler_solve.js" "$modules" "$cases" > "$tmp" || exit 1
    "$driver" "$dir/$cases" "$tmp" ${known:+"$dir/$known"} | tail -1 || exit 1
    "$driver" "$dir/$cases" "$tmp" ${known:+"$dir/$known"} > /dev/null || exit 1
    if ! cmp -s "$tmp" "$dir/$answers"; then
        echo "$answers is stale: regenerate with node rattler_solve.js $modules $cases"
        exit 1
    fi
done

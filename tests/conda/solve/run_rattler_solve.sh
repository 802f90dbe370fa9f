#!/bin/sh
# Answer cases.txt again with @conda-org/rattler's solver, replay envlock
# against those answers, and check the committed rattler_answers.txt is
# still what rattler answers. Exit 77 (skip) when node or the package is
# missing.
node=$1 modules=$2 driver=$3 dir=$4
if [ ! -x "$node" ] || [ ! -d "$modules/@conda-org/rattler" ]; then
    echo "@conda-org/rattler not installed under $modules: skipping"
    exit 77
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
"$node" "$dir/rattler_solve.js" "$modules" > "$tmp" || exit 1
"$driver" "$dir/cases.txt" "$tmp" || exit 1
if ! cmp -s "$tmp" "$dir/rattler_answers.txt"; then
    echo "rattler_answers.txt is stale: regenerate with node rattler_solve.js $modules"
    exit 1
fi

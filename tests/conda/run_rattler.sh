#!/bin/sh
# Regenerate the rattler answers with @conda-org/rattler, replay them (every
# disagreement must be one where conda's own answer is what envlock gives),
# and check the committed rattler_cases.txt is still what rattler answers.
# Exit 77 (skip) when node or the package is missing.
node=$1 modules=$2 driver=$3 dir=$4
if [ ! -x "$node" ] || [ ! -d "$modules/@conda-org/rattler" ]; then
    echo "@conda-org/rattler not installed under $modules: skipping"
    exit 77
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
"$node" "$dir/rattler_cases.js" "$modules" > "$tmp" || exit 1
"$driver" "$tmp" "$dir/conda_cases.txt" || exit 1
if ! cmp -s "$tmp" "$dir/rattler_cases.txt"; then
    echo "rattler_cases.txt is stale: regenerate with node rattler_cases.js $modules"
    exit 1
fi

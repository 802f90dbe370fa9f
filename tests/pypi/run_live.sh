#!/bin/sh
# Generate differential cases with Debian's python3 + packaging, replay them
# through the C driver, and check the committed snapshot is still what the
# generator produces. Exit 77 (skip) when packaging is unavailable.
gen=$1 driver=$2 snapshot=$3
py=/usr/bin/python3
if ! $py -c 'import packaging, sys; sys.exit(packaging.__version__ != "23.0")' 2>/dev/null; then
    echo "python3-packaging 23.0 not available at $py: skipping"
    exit 77
fi
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
$py "$gen" > "$tmp" || exit 1
"$driver" "$tmp" || exit 1
if ! cmp -s "$tmp" "$snapshot"; then
    echo "cases.txt is stale: regenerate with $py $gen > $snapshot"
    exit 1
fi

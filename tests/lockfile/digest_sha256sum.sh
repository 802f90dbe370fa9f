#!/bin/sh
# The digest lock_write_file reports is sha256 over the file's exact bytes,
# as an independent program (coreutils' sha256sum) computes it; and reading
# the file back and writing it again gives the same bytes.
set -eu
tool=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/el_lock_sh.XXXXXX")
trap 'rm -rf "$dir"' EXIT
for seed in 1 2 3 17 99 1234; do
    got=$("$tool" write "$seed" "$dir/envlock.lock")
    want="sha256:$(sha256sum "$dir/envlock.lock" | cut -d' ' -f1)"
    if [ "$got" != "$want" ]; then
        echo "seed $seed: lock_write_file said $got, sha256sum says $want" >&2
        exit 1
    fi
    "$tool" reread "$dir/envlock.lock" > "$dir/again.lock"
    cmp "$dir/envlock.lock" "$dir/again.lock"
    # nothing but the lock is left in the directory
    n=$(ls -A "$dir" | wc -l)
    [ "$n" -eq 2 ] || { echo "unexpected files: $(ls -A "$dir")" >&2; exit 1; }
    rm "$dir/again.lock"
done
echo ok

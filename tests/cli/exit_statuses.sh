#!/bin/sh
# exit_statuses.sh ENVLOCK — walks the commands with the same failure and
# checks one exit status each, as docs/cli.md "Exit status" documents:
# a missing input file is 10 in every command (detail.reason file_not_found
# or lock_not_found), a bad --variant is 2, a fetch that gets no answer (a
# closed port on 127.0.0.1) is 25 and an index without the package is 13,
# both DL_ENV_PACKAGE_NOT_FOUND. Run from the repository root.
set -u
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
fail=0
# expect STATUS REASON ARGS...: exit STATUS, and with --json detail.reason REASON
expect() {
    want=$1 reason=$2
    shift 2
    "$bin" --cache-dir "$tmp/cache" --json "$@" >"$tmp/out" 2>/dev/null </dev/null
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: envlock $*: exit $got, expected $want: $(cat "$tmp/out")"
        fail=1
    elif [ "$reason" != - ] && ! grep -q "\"reason\":\"$reason\"" "$tmp/out"; then
        echo "FAIL: envlock $*: no reason $reason: $(cat "$tmp/out")"
        fail=1
    else
        echo "ok $want: envlock $*"
    fi
    if ! grep -q "^| $want |" docs/cli.md; then
        echo "FAIL: exit $want is not in docs/cli.md's table"
        fail=1
    fi
}
spec=tests/cli/cases/check_up_to_date/spec.yaml
lock=tests/cli/cases/check_up_to_date/envlock.lock
bases="--bases corpus/demo/bases.yaml"
for cmd in validate digest normalize resolve; do
    expect 10 file_not_found $cmd "$tmp/none.yaml"
done
expect 10 file_not_found check "$tmp/none.yaml" "$lock"
expect 10 file_not_found plan "$tmp/none.yaml" "$lock"
expect 10 lock_not_found check $bases "$spec" "$tmp/none.lock"
expect 10 lock_not_found plan $bases "$spec" "$tmp/none.lock" -o "$tmp/plan"
expect 10 lock_not_found export "$tmp/none.lock" --format requirements
expect 10 lock_not_found bundle "$tmp/none.lock" -o "$tmp/bundle"
expect 2 - plan $bases --variant fly "$spec" "$lock" -o "$tmp/plan"
mkdir -p "$tmp/simple"
expect 13 not_found index show pypi:nosuchpkg --index "file://$tmp/simple"
expect 25 connect index show pypi:nosuchpkg --index http://127.0.0.1:1/simple
exit $fail

#!/bin/sh
# run_case.sh ENVLOCK CASEDIR — runs `envlock <args from CASEDIR/cmd>` from the
# repository root and compares stdout, stderr (when CASEDIR/stderr exists) and
# the exit status (CASEDIR/status, default 0) byte for byte; CASEDIR/after,
# when present, is a shell script run from the root afterwards with $out the
# case's scratch directory and $stdout its output, for what bytes cannot say
# (a printed digest against the file's own sha256sum).
set -u
bin=$1
dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root" || exit 1
# cmd holds the arguments as one shell-quoted line.
eval "set -- $(cat "$dir/cmd")"
if [ -f "$dir/stdin" ]; then
    "$bin" "$@" <"$dir/stdin" >"$out/stdout" 2>"$out/stderr"
else
    "$bin" "$@" </dev/null >"$out/stdout" 2>"$out/stderr"
fi
status=$?
want=0
[ -f "$dir/status" ] && want=$(cat "$dir/status")
fail=0
if [ "$status" != "$want" ]; then
    echo "exit status $status, expected $want"
    fail=1
fi
if [ -f "$dir/stdout" ] && ! diff -u "$dir/stdout" "$out/stdout"; then
    echo "stdout differs"
    fail=1
fi
if [ -f "$dir/stderr" ] && ! diff -u "$dir/stderr" "$out/stderr"; then
    echo "stderr differs"
    fail=1
fi
if [ -f "$dir/after" ] && ! out=$out stdout=$out/stdout sh "$dir/after"; then
    echo "$dir/after failed"
    fail=1
fi
if [ $fail -ne 0 ]; then
    echo "--- stderr was:"
    cat "$out/stderr"
fi
exit $fail

#!/usr/bin/env bash
# End-to-end error test: attn must exit with CODE, print nothing on stdout, and print
# "attn: error:" and MESSAGE (a fixed string) on stderr. When an existing --json output file
# is named in the arguments it must be left exactly as it was. In ARG, @EXISTING@ stands for
# such a file, @EMPTY@ for an empty argument (CMake drops empty strings from a command) and
# @HUGE@ for a 300 MiB file (sparse: it takes no disk space), @ESC@ for the escape
# character (CMake cannot write one).
#   usage: expect_error.sh ATTN CODE MESSAGE [ARG...]
set -u
attn=$1
code=$2
message=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "precious" >"$dir/existing.json"
args=()
for a in "$@"; do
    if [ "$a" = "@EMPTY@" ]; then
        args+=("")
    elif [ "$a" = "@HUGE@" ]; then
        truncate -s 300M "$dir/huge.json"
        args+=("$dir/huge.json")
    else
        a="${a//@EXISTING@/$dir/existing.json}"
        args+=("${a//@ESC@/$'\e'}")
    fi
done

"$attn" "${args[@]}" >"$dir/out" 2>"$dir/err"
rc=$?
ok=1
if [ "$rc" -ne "$code" ]; then
    echo "FAIL: exit code $rc, expected $code"; ok=0
fi
if [ -s "$dir/out" ]; then
    echo "FAIL: stdout is not empty:"; head -5 "$dir/out"; ok=0
fi
if ! grep -q "^attn: error: " "$dir/err"; then
    echo "FAIL: stderr has no 'attn: error:' line"; ok=0
fi
if ! grep -qF -- "$message" "$dir/err"; then
    echo "FAIL: stderr does not contain: $message"; ok=0
fi
if grep -q "$(printf '\033')" "$dir/err"; then
    echo "FAIL: stderr has a raw escape character (input must be shown, not sent)"; ok=0
fi
if [ "$(cat "$dir/existing.json")" != "precious" ]; then
    echo "FAIL: the existing output file was changed"; ok=0
fi
rm -f "$dir/huge.json"
if [ "$(ls -A "$dir" | wc -l)" -ne 3 ]; then
    echo "FAIL: files were left behind:"; ls -A "$dir"; ok=0
fi
echo "--- stderr:"; cat "$dir/err"
[ "$ok" -eq 1 ] && echo "ok" && exit 0
exit 1

#!/usr/bin/env bash
# attn succeeds (exit 0) and warns on stderr: "attn: warning:" and MESSAGE (a fixed string).
#   usage: expect_warning.sh ATTN MESSAGE [ARG...]
set -u
attn=$1
message=$2
shift 2
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$attn" "$@" >/dev/null 2>"$err"
rc=$?
cat "$err"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc, expected 0"; exit 1; }
grep -qF -- "attn: warning: $message" "$err" || { echo "FAIL: no warning: $message"; exit 1; }
echo ok

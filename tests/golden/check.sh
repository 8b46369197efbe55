#!/usr/bin/env bash
# Golden test: runs attn with the given arguments and compares its stdout byte for byte
# with a file under tests/golden/. On a mismatch it prints a unified diff and fails.
#   usage: check.sh ATTN GOLDEN_FILE [ARG...]
# Regenerate after an intended change with:  ATTN_UPDATE_GOLDEN=1 ctest --preset dev -L golden
# and review the diff (git diff tests/golden) before committing.
set -u
attn=$1
golden=$2
shift 2
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT

"$attn" "$@" >"$actual"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL: attn exited with $rc (expected 0): attn $*"
    exit 1
fi
if [ ! -s "$actual" ]; then
    echo "FAIL: attn printed nothing: attn $*"
    exit 1
fi
if [ "${ATTN_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$actual" "$golden"
    echo "updated $golden"
    exit 0
fi
if [ ! -f "$golden" ]; then
    echo "FAIL: no golden file $golden (create it with ATTN_UPDATE_GOLDEN=1)"
    exit 1
fi
if ! diff -u "$golden" "$actual"; then
    echo "FAIL: output differs from $golden (diff above: - expected, + actual)"
    exit 1
fi
echo "ok: matches $golden"

#!/usr/bin/env bash
# --json FILE writes exactly what --json - prints, replaces an existing file whole, and
# leaves no temporary file behind.
#   usage: json_file.sh ATTN GOLDEN_JSON [ARG...]
set -u
attn=$1
golden=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "old contents" >"$dir/trace.json"
if ! "$attn" "$@" --json "$dir/trace.json" >"$dir/text" 2>"$dir/err"; then
    echo "FAIL: attn exited non-zero"; cat "$dir/err"; exit 1
fi
if ! diff -u "$golden" "$dir/trace.json"; then
    echo "FAIL: the written file differs from $golden"; exit 1
fi
if ! grep -q "^attn: wrote $dir/trace.json\$" "$dir/err"; then
    echo "FAIL: stderr does not say which file was written:"; cat "$dir/err"; exit 1
fi
if ! grep -q "Attention weights" "$dir/text"; then
    echo "FAIL: the text walk-through is missing from stdout"; exit 1
fi
if [ "$(find "$dir" -name '.trace.json.*' | wc -l)" -ne 0 ]; then
    echo "FAIL: a temporary file was left behind"; ls -la "$dir"; exit 1
fi
echo "ok"

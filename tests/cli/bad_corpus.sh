#!/usr/bin/env bash
# bad_corpus.sh ATTN MANIFEST FILE: runs the line of MANIFEST (tests/inputs/bad/MANIFEST.tsv)
# for FILE through expect_error.sh: attn must exit with the code and print the message given.
# bad_corpus.sh ATTN MANIFEST --complete: every file of the folder has a line, and every line
# a file, so that the corpus cannot grow untested.
set -euo pipefail
attn=$1 manifest=$2 wanted=$3
dir=$(dirname "$manifest")
here=$(dirname "$0")
if [ "$wanted" = --complete ]; then
    listed=$(grep -v '^#' "$manifest" | cut -f1 | sort)
    present=$(cd "$dir" && ls | grep -v '^MANIFEST.tsv$' | sort)
    if [ "$listed" != "$present" ]; then
        echo "FAIL: the files of $dir and the lines of $manifest differ:"
        diff <(echo "$listed") <(echo "$present") || true
        exit 1
    fi
    echo "ok: $(echo "$present" | wc -l) files, each with its expected error"
    exit 0
fi
line=$(grep -v '^#' "$manifest" | awk -F'\t' -v f="$wanted" '$1 == f')
if [ -z "$line" ]; then
    echo "FAIL: $wanted has no line in $manifest"
    exit 1
fi
IFS=$'\t' read -r file code argtext message <<<"$line"
eval "args=($argtext)"  # the manifest is ours: quoted arguments as in a shell
for i in "${!args[@]}"; do
    args[i]=${args[i]//@FILE@/$dir/$file}
done
exec bash "$here/expect_error.sh" "$attn" "$code" "$message" "${args[@]}"

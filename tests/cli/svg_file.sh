#!/usr/bin/env bash
# --svg FILE writes the same heatmap as --svg -, and it is well-formed XML.
#   usage: svg_file.sh ATTN XMLLINT SENTENCE GOLDEN
set -u
attn=$1 xmllint=$2 sentence=$3 golden=$4
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$attn" explain "$sentence" --heads 2 --svg "$d/w.svg" >/dev/null || exit 1
cmp "$d/w.svg" "$golden" || exit 1
"$xmllint" --noout "$d/w.svg" || exit 1
echo ok

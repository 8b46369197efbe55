#!/usr/bin/env bash
# --format latex gives documents that pdflatex compiles, for the features that put the most
# into formulas: heads, masks and padding, positions, hand arithmetic, PyTorch weights, and a
# what-if's marked cells (each with its value before, \underset) and closing section.
#   usage: latex.sh ATTN PDFLATEX
set -u
attn=$1
pdflatex=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cases=(
    "This is book|--heads 2 --mask causal --pad-to 4"
    "The cat sat on the mat|--lowercase --positions sinusoidal --arith hand --d-model 4"
    "This is book|--mask tests/inputs/good/mask-row-blocked.json --no-scale"
    "|--model tests/reference/torch/two_heads.json"
    "This is book|--mask causal --set X[is,d1]=2 --set mask[This,book]=1"
)
n=0
for c in "${cases[@]}"; do
    sentence=${c%%|*}
    read -r -a args <<<"${c#*|}"
    n=$((n + 1))
    if [ -n "$sentence" ]; then
        "$attn" explain "$sentence" "${args[@]}" --format latex >"$dir/t$n.tex" || exit 1
    else
        "$attn" explain "${args[@]}" --format latex >"$dir/t$n.tex" || exit 1
    fi
    (cd "$dir" && timeout 120 "$pdflatex" -interaction=nonstopmode -halt-on-error "t$n.tex" >"log$n.txt" 2>&1) \
        || { grep -A4 '^!' "$dir/log$n.txt"; echo "FAIL: case $n ($c) does not compile"; exit 1; }
done
echo "ok: $n documents compile"

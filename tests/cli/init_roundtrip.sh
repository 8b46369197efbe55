#!/usr/bin/env bash
# attn init writes a model file that explain --model reads back: the walk-through from the
# file has the same numbers as the seeded one it was made from. Only where the numbers came
# from differs: the header, and the sentences that say it.
set -u
attn=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=("The cat sat on the mat" --lowercase --mask causal --d-model 6 --d-k 4 --d-v 2)
"$attn" init "${args[@]}" -o "$dir/lesson.json" 2>"$dir/err" || { echo "FAIL: init failed"; cat "$dir/err"; exit 1; }
grep -q "attn: wrote $dir/lesson.json" "$dir/err" || { echo "FAIL: init did not say what it wrote"; exit 1; }
for mode in --quiet-text "--json -"; do
    # shellcheck disable=SC2086
    "$attn" explain --model "$dir/lesson.json" --color never --width 80 $mode >"$dir/from-file.txt" || { echo "FAIL: explain --model failed"; exit 1; }
    # shellcheck disable=SC2086
    "$attn" explain "${args[@]}" --color never --width 80 $mode >"$dir/seeded.txt" || exit 1
    # every step (headings, formulas, numbers) identical; only the sources may differ
    diff -u <(sed -n '/━━ 1 ·\|"steps"/,$p' "$dir/seeded.txt") <(sed -n '/━━ 1 ·\|"steps"/,$p' "$dir/from-file.txt") \
        || { echo "FAIL: the walk-through from the init file differs from the seeded one ($mode)"; exit 1; }
done
"$attn" explain --model "$dir/lesson.json" --color never --width 80 >"$dir/from-file.txt"
grep -q "numbers   embeddings read from $dir/lesson.json" "$dir/from-file.txt" \
    || { echo "FAIL: the header does not say the numbers came from the file"; exit 1; }
grep -q "here it is read from" "$dir/from-file.txt" \
    || { echo "FAIL: the weights do not say they came from the file"; exit 1; }
# a sentence with a newline, a tab and other control characters: the file made from it reads
# back (the command in its comment is quoted so that it stays on its line), with the numbers
# of the seeded run
for sentence in $'This is\nbook' $'This\tis \x1b[2J book\r' $'It\'s "$HOME" \\ `x`'; do
    "$attn" init "$sentence" -o "$dir/ctl.json" --force 2>"$dir/err" \
        || { echo "FAIL: init refused a sentence with control characters"; cat "$dir/err"; exit 1; }
    "$attn" explain --model "$dir/ctl.json" --color never --json - >"$dir/from-file.txt" 2>"$dir/err" \
        || { echo "FAIL: the model file init wrote for $(printf %q "$sentence") does not read back"; cat "$dir/err"; exit 1; }
    "$attn" explain "$sentence" --color never --json - >"$dir/seeded.txt" || exit 1
    diff <(sed -n '/"steps"/,$p' "$dir/seeded.txt") <(sed -n '/"steps"/,$p' "$dir/from-file.txt") >/dev/null \
        || { echo "FAIL: $(printf %q "$sentence"): the numbers from the init file differ"; exit 1; }
    # the command in the comment reproduces the file
    cmd=$(sed -n 's|^// Made by: attn init ||p' "$dir/ctl.json")
    eval "\"\$attn\" init $cmd -o \"\$dir/again.json\" --force" 2>/dev/null \
        || { echo "FAIL: the command in the comment does not run: $cmd"; exit 1; }
    cmp -s "$dir/ctl.json" "$dir/again.json" \
        || { echo "FAIL: the command in the comment does not make the same file: $cmd"; exit 1; }
done
echo ok

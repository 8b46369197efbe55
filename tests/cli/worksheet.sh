#!/usr/bin/env bash
# attn worksheet writes the three files, byte for byte as the golden ones, refuses to replace
# them without --force, and attn check accepts its answer template (all blank: exit 1).
#   usage: worksheet.sh ATTN GOLDEN_DIR
set -u
attn=$1
golden=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
"$attn" worksheet "This is book" --mask causal -o "$dir/ws" 2>"$dir/err" || { cat "$dir/err"; fail "worksheet failed"; }
grep -q "attn: wrote $dir/ws/worksheet.md and .html" "$dir/err" || fail "no note of what was written"
for f in worksheet.md answer-key.md answers.json worksheet.html answer-key.html; do
    if [ "${ATTN_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$dir/ws/$f" "$golden/worksheet-$f"
    fi
    diff -u "$golden/worksheet-$f" "$dir/ws/$f" || fail "$f differs from $golden/worksheet-$f"
done
"$attn" worksheet "This is book" -o "$dir/ws" 2>"$dir/err2" && fail "replaced files without --force"
grep -q "exists, expected a new folder or --force" "$dir/err2" || fail "no clear error for existing files"
if command -v xmllint >/dev/null; then
    xmllint --html --noout "$dir/ws/worksheet.html" 2>"$dir/lint" || fail "worksheet.html is not HTML"
    if [ -s "$dir/lint" ]; then cat "$dir/lint"; fail "xmllint complains about worksheet.html"; fi
fi
grep -q '<td class="blank"></td>' "$dir/ws/worksheet.html" || fail "no blank cells in worksheet.html"
if grep -q '<td class="blank"></td>' "$dir/ws/answer-key.html"; then fail "blank cells in the key"; fi
"$attn" check "$dir/ws/answers.json" >"$dir/report"
rc=$?
[ "$rc" -eq 1 ] || fail "check of the blank template exited $rc, expected 1"
grep -q "blank, expected" "$dir/report" || fail "blank answers are not reported"
echo ok

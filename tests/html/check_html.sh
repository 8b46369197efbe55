#!/usr/bin/env bash
# The HTML report in a real browser (Debian's chromium, headless): it loads without JavaScript
# errors, has every step of the walk-through with the right numbers, keeps tricky tokens as
# text, draws the attention bars, and renders to a screenshot.
#   usage: check_html.sh ATTN CHROMIUM
set -u
attn=$1
chromium=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
sentence='The </script> cat <b>sat</b> & "it"'
args=(explain "$sentence" --heads 2 --mask causal --d-model 6)
"$attn" "${args[@]}" --html "$dir/report.html" --json "$dir/trace.json" >/dev/null 2>"$dir/err" \
    || { cat "$dir/err"; fail "attn failed"; }
source "$(dirname "$0")/chromium_page.sh"
browser_in "$chromium"
load_page "$dir/report.html" "$dir/dom.html"
# every step of the walk-through, by the ids of the JSON dump
ids=$(grep -o '"id": "[^"]*"' "$dir/trace.json" | sed 's/"id": "\(.*\)"/\1/')
[ -n "$ids" ] || fail "no step ids in the dump"
for id in $ids; do
    grep -q "id=\"step-$id\"" "$dir/dom.html" || fail "step $id is missing from the page"
done
# the right numbers: head 2's first attention weight, exactly as in the dump
weight=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=[x for x in d['steps'] if x['id']=='head2.weights'][0]; print(repr(s['values'][2][0]))" "$dir/trace.json")
grep -q "data-v=\"$weight\"" "$dir/dom.html" || fail "head 2's weight $weight is not in the page"
# tokens stay text: no <b> element and no stray script end
grep -q '&lt;/script&gt;' "$dir/dom.html" || fail "the token </script> was not escaped"
if grep -q '<b>sat</b>' "$dir/dom.html"; then fail "the token <b> became markup"; fi
grep -q 'attends to' "$dir/dom.html" || fail "the attention bars were not drawn"
timeout 120 "${browser[@]}" --window-size=1200,1600 --screenshot="$dir/shot.png" \
    "file://$dir/report.html" >/dev/null 2>&1
[ -s "$dir/shot.png" ] || fail "no screenshot"
echo "ok: $(echo "$ids" | wc -w) steps, weight $weight, screenshot $(stat -c %s "$dir/shot.png") bytes"

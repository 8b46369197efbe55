#!/usr/bin/env bash
# Every output of a checkpoint run (tests/reference/gpt2/tiny-f32, layer 2, every head): the
# HTML report in headless Chromium (no script errors, every step of the dump, the tensor
# names, the worked arithmetic of LayerNorm and of the residual stream in the hover data),
# the SVG heatmap (well-formed, a panel per head, each cell's weight the dump's), --steps
# (only the steps asked for, in the order of the walk) and --pause through a pseudo-terminal
# (the checkpoint's steps one page at a time, the heads side by side as a page of their own).
#   usage: checkpoint_outputs.sh ATTN CHECKPOINT CHROMIUM XMLLINT
set -u
attn=$1
checkpoint=$2
chromium=$3
xmllint=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
text="He took the hat and examined it"
"$attn" explain "$text" --checkpoint "$checkpoint" --layer 2 --html "$dir/report.html" \
    --svg "$dir/heads.svg" --json "$dir/trace.json" --format none 2>"$dir/err" \
    || { cat "$dir/err"; fail "attn failed"; }

# the HTML report, in a browser
source "$(dirname "$0")/../html/chromium_page.sh"
browser_in "$chromium"
load_page "$dir/report.html" "$dir/dom.html"
ids=$(python3 -c "import json,sys; print(' '.join(s['id'] for s in json.load(open(sys.argv[1]))['steps']))" "$dir/trace.json")
for id in $ids; do
    grep -q "id=\"step-$id\"" "$dir/dom.html" || fail "step $id is missing from the page"
done
grep -q '<span class="tensor">\[h.1.attn.c_attn.weight\]</span>' "$dir/dom.html" \
    || fail "W_Q's heading does not name h.1.attn.c_attn.weight"
grep -q '<span class="tensor">\[h.1.ln_1\]</span>' "$dir/dom.html" \
    || fail "LayerNorm's heading does not name h.1.ln_1"
# the hover data: LayerNorm's output, a token's mean and the residual stream, worked out
for key in 'ln_1|3|5' 'ln_1.mean|2|0' 'residual_attn|1|1' 'embeddings|0|0' 'head2.weights|3|1'; do
    grep -qF "\"$key\":" "$dir/report.html" || fail "no worked arithmetic for $key in the page"
done
grep -qF '√(σ²[' "$dir/report.html" || fail "LayerNorm's arithmetic is not in the page"

# the SVG heatmap: a panel per head, each cell the dump's weight to 4 decimals
"$xmllint" --noout "$dir/heads.svg" || fail "the SVG is not well-formed"
grep -q 'Attention weights A of layer 2 \[h.1.attn\]' "$dir/heads.svg" || fail "the SVG does not name the layer"
python3 - "$dir/trace.json" "$dir/heads.svg" <<'EOF' || fail "the SVG's weights are not the dump's"
import json, re, sys
trace = json.load(open(sys.argv[1]))
svg = open(sys.argv[2], encoding="utf-8").read()
for head in (1, 2):
    panel = re.search(rf'<g id="head{head}">(.*?)</g>', svg, re.S)
    assert panel, f"no panel for head {head}"
    titles = re.findall(r"<title>(.*?) → (.*?): ([0-9.]+)</title>", panel[1])
    weights = [s for s in trace["steps"] if s["id"] == f"head{head}.weights"][0]["values"]
    tokens = trace["tokens"]
    assert len(titles) == len(tokens) ** 2, (head, len(titles))
    for (q, k, w), (i, j) in zip(titles, [(i, j) for i in range(len(tokens)) for j in range(len(tokens))]):
        assert (q, k) == (tokens[i], tokens[j]), (q, k, i, j)
        assert f"{weights[i][j]:.4f}" == w, (head, i, j, w, weights[i][j])
print("svg ok")
EOF

# --steps: only the steps asked for, in the walk's order, whatever the order given
"$attn" explain "$text" --checkpoint "$checkpoint" --layer 2 --steps head2.weights,ln_1.variance,wte \
    --color never >"$dir/steps.txt" || fail "--steps failed"
headings=$(grep -o '^━━ [0-9a-z]* · [^━]*' "$dir/steps.txt" | sed 's/ *$//')
expected="━━ 2a · Token embeddings E  [wte]
━━ 4c · LayerNorm: each token's variance σ²  [h.1.ln_1]
━━ 12 · Head 2 · Attention weights A_2  [h.1.attn]"
[ "$headings" = "$expected" ] || { echo "$headings"; fail "--steps did not show exactly wte, ln_1.variance and head2.weights"; }

# --pause: the checkpoint's steps, a page at a time (Enter: go on, q: quit)
printf '\n\n\n\nq\n' | script -qec "$attn explain '$text' --checkpoint $checkpoint --layer 2 --pause --color never --width 80" /dev/null >"$dir/pause.txt"
[ $? -eq 0 ] || fail "--pause: exit code not 0"
grep -q "── next: 2a · Token embeddings E  \[wte\] · Enter: go on, q: quit ──" "$dir/pause.txt" \
    || { cat -A "$dir/pause.txt" | head -40; fail "--pause: no prompt before the token embeddings"; }
grep -q "━━ 2b · Position embeddings P  \[wpe\] ━" "$dir/pause.txt" || fail "--pause: Enter did not show wpe"
grep -q "── next: 3 · What the layers below did Δ" "$dir/pause.txt" || fail "--pause: the layers below are not a page"
if grep -q "━━ 4b · LayerNorm" "$dir/pause.txt"; then fail "--pause: q did not end the walk-through"; fi
printf '%0.s\n' $(seq 1 60) | script -qec "$attn explain '$text' --checkpoint $checkpoint --layer 2 --pause --color never --width 80" /dev/null >"$dir/all.txt"
grep -q "── next: Every head, side by side" "$dir/all.txt" || fail "--pause: the heads side by side are not a page"
grep -q "━━ 17c · The layer's output H_2  \[h.1\] ━" "$dir/all.txt" || fail "--pause: the walk did not reach the layer's output"
echo "ok: $(echo "$ids" | wc -w) steps in the page, the SVG, --steps and --pause"

#!/usr/bin/env bash
# Every output of a checkpoint run (tests/reference/gpt2/tiny-f32, layer 2, every head): the
# HTML report in headless Chromium (no script errors, every step of the dump, the tensor
# names, the worked arithmetic of LayerNorm and of the residual stream in the hover data),
# the SVG heatmap (well-formed, a panel per head, each cell's weight the dump's), --steps
# (only the steps asked for, in the order of the walk) and --pause (the presenter) through a
# pseudo-terminal (keys, the step headings and "step N of M", the heads side by side as a screen of
# their own, q ending with 0 and the terminal restored) and without one (a note, the whole walk).
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

# --pause (the presenter, --present): the checkpoint's steps a screen at a time, driven by keys
# in a pseudo-terminal (tests/cli/pty_session.py, as present_pty.py drives the lesson); each
# wait has its own timeout, and timeout(1) ends the whole if it should hang all the same
timeout 120 python3 - "$(dirname "$0")" "$attn" "$checkpoint" "$text" "$dir" <<'EOF' \
    || fail "--pause in a pseudo-terminal (above)"
import os, sys
sys.path.insert(0, os.path.abspath(sys.argv[1]))
from pty_session import Session, check, failures
attn, checkpoint, text, cwd = sys.argv[2:6]
RIGHT, LEFT, END = b"\x1b[C", b"\x1b[D", b"\x1b[F"
s = Session(attn, ["explain", text, "--checkpoint", checkpoint, "--layer", "2", "--pause",
                   "--color", "never"], cwd, rows=24, cols=80)
s.wait_frames(1)
check(s.screen()[-1].startswith("── overview, 26 steps · next: 1 · Tokens"),
      f"the first screen's status: {s.screen()[-1]!r}")
# each key, the heading of the screen it shows and the start of that screen's status line
for keys, heading, status in [
        (RIGHT, "━━ 1 · Tokens", "── step 1 of 26 · next: 2a · Token embeddings E  [wte]"),
        (RIGHT, "━━ 2a · Token embeddings E  [wte]", "── step 2 of 26 "),
        (RIGHT, "━━ 2b · Position embeddings P  [wpe]", "── step 3 of 26 "),
        (LEFT, "━━ 2a · Token embeddings E  [wte]", "── step 2 of 26 "),
        (b"3", "━━ 3 · What the layers below did Δ", "── step 5 of 26 "),
        (b"5", "━━ 5a · Query weights W_Q  [h.1.attn.c_attn.weight]", "── step 12 of 26 "),
        (b"g 4b\r", "━━ 4b · LayerNorm: each token's mean μ  [h.1.ln_1]", "── step 7 of 26 "),
        (b"g 14\r", "━━ 14 · Concatenation Z  [h.1.attn]", "── step 20 of 26 "),
        (LEFT, "━━ Every head of layer 2 [h.1.attn], side by side", "── step 19 of 26 "),
        (END, "━━ 17c · The layer's output H_2  [h.1]", "── step 26 of 26 "),
]:
    os.write(s.master, keys)
    screen = s.wait_screen(heading)
    check(bool(screen) and screen[-1].startswith(status),
          f"after {keys!r}: the status {screen[-1] if screen else None!r}, expected {status!r}")
os.write(s.master, b"q")
code = s.finish()
check(code == 0, f"q: exit status {code}, expected 0")
check(s.err == "", f"q: stderr {s.err!r}")
s.restored("q")
s.close()
sys.exit(1 if failures else 0)
EOF
# without a terminal: the note, and the whole walk-through, without escapes
timeout 60 "$attn" explain "$text" --checkpoint "$checkpoint" --layer 2 --pause --color never \
    </dev/null >"$dir/all.txt" 2>"$dir/err" || fail "--pause without a terminal: exit code not 0"
grep -qF "attn: note: --present needs a terminal on stdin and stdout" "$dir/err" \
    || { cat "$dir/err"; fail "--pause without a terminal: no note"; }
grep -q "━━ Every head of layer 2 \[h.1.attn\], side by side ━" "$dir/all.txt" \
    || fail "--pause without a terminal: the heads side by side are missing"
grep -q "━━ 17c · The layer's output H_2  \[h.1\] ━" "$dir/all.txt" \
    || fail "--pause without a terminal: the walk did not reach the layer's output"
if grep -q $'\x1b' "$dir/all.txt"; then fail "--pause without a terminal: escapes in the output"; fi
echo "ok: $(echo "$ids" | wc -w) steps in the page, the SVG, --steps and --pause"

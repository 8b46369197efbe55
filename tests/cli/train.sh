#!/usr/bin/env bash
# attn train end to end: the model file it writes is one explain --model reads, with the
# learned attention; the same bytes on 1 and 2 threads; a diverging learning rate writes
# nothing and exits 2; a positions task writes its table into the model file; the shipped
# learned examples are what their recorded commands make, byte for byte.
#   usage: train.sh ATTN SOURCE_DIR
set -u
attn=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# coreference: the model reads back, and in its sentence 'it' attends most to 'hat'
"$attn" train coreference -o "$dir/a.json" --threads 1 --svg "$dir/loss.svg" >"$dir/out" 2>"$dir/err" \
    || { cat "$dir/err"; fail "attn train coreference failed"; }
grep -q "trained   W_Q and W_K; W_V and the embeddings keep their seeded numbers" "$dir/out" \
    || fail "the report does not say what is trained"
grep -q "held out  accuracy 100.0%" "$dir/out" || { cat "$dir/out"; fail "no held-out accuracy"; }
grep -q $'\r' "$dir/out" && fail "a progress line was printed to a file (only a terminal gets one)"
grep -q "attn: wrote $dir/a.json" "$dir/err" || fail "it did not say what it wrote"
grep -q '^// Made by: attn train coreference --seed 42 --steps 600 --lr 0.2 --d-model 24 --d-k 8 --d-v 8$' "$dir/a.json" \
    || fail "the model file does not record the command"
grep -q '"description": "Learned, not made by hand: attn train coreference (seed 42, 600 steps, learning rate 0.2) trained W_Q and W_K, .*held-out accuracy 100.0% (256 of 256)' "$dir/a.json" \
    || fail "the model file does not record the task, seed and accuracy"
"$attn" explain --model "$dir/a.json" --json - >"$dir/trace.json" || fail "explain --model cannot read it"
/usr/bin/python3 - "$dir/trace.json" <<'EOF' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))
weights = next(s for s in t["steps"] if s["id"] == "weights")["values"]
tokens = t["tokens"]
row = weights[tokens.index("it")]
top = max(range(len(row)), key=lambda j: row[j])
if tokens[top] != "hat" or row[top] < 0.9:
    sys.exit(f"FAIL: 'it' attends most to {tokens[top]!r} ({row[top]}), expected 'hat' above 0.9")
EOF
# Ctrl-C (SIGINT) or SIGTERM while it trains: it stops, says so, writes nothing, and exits
# 128 + the signal's number (as a shell reports it)
for sig in INT TERM; do
    "$attn" train match -o "$dir/stopped.json" --steps 1000000 >"$dir/stop.out" 2>"$dir/stop.err" &
    pid=$!
    for _ in $(seq 1 300); do
        grep -q "learning rate" "$dir/stop.out" && break
        sleep 0.1
    done
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || { cat "$dir/stop.err"; fail "SIG$sig while training: exit $rc, expected $want"; }
    grep -q "^attn: interrupted at step [0-9]* of 1000000: nothing was written$" "$dir/stop.err" \
        || { cat "$dir/stop.err"; fail "SIG$sig while training: no message saying nothing was written"; }
    [ -e "$dir/stopped.json" ] && fail "SIG$sig while training: a model file was written"
    [ -z "$(ls -A "$dir" | grep -v -e '^stop' -e '^a.json$' -e '^loss.svg$' -e '^out$' -e '^err$' -e '^trace.json$')" ] \
        || { ls -A "$dir"; fail "SIG$sig while training: files were left behind"; }
done

# the loss plot is well-formed SVG
/usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$dir/loss.svg" \
    || fail "the --svg plot is not well-formed XML"
grep -q "<polyline" "$dir/loss.svg" || fail "the --svg plot has no curve"

# the same model on 2 threads, bit for bit; the command in the file makes the same file
"$attn" train coreference -o "$dir/b.json" --threads 2 >/dev/null 2>&1 || fail "--threads 2 failed"
cmp -s "$dir/a.json" "$dir/b.json" || fail "1 and 2 threads give different model files"
cmp -s "$dir/a.json" "$src/data/examples/learned-coreference.json" \
    || fail "data/examples/learned-coreference.json is not what 'attn train coreference' makes (regenerate it: docs/training.md)"

# a learning rate that diverges: exit 2, says so, writes nothing
"$attn" train coreference -o "$dir/c.json" --lr 5 >"$dir/out" 2>"$dir/err"
code=$?
[ "$code" = 2 ] || fail "a diverging --lr exited $code, expected 2"
grep -q "attn: error: training diverged with learning rate η = 5: the mean loss of steps 1 to 16 was" "$dir/err" \
    || { cat "$dir/err"; fail "the divergence is not explained"; }
grep -q "such as this task's default, 0.2" "$dir/err" || fail "no smaller learning rate suggested"
# its losses with four decimals, as the report writes losses, and the claim true of them
/usr/bin/python3 - "$dir/err" <<'EOF' || fail "the divergence's numbers"
import re, sys
m = re.search(r"was (\d+\.\d{4}), more than ([\d.]+) times the untrained model's (\d+\.\d{4});",
              open(sys.argv[1]).read())
assert m, "no losses with four decimals"
assert float(m.group(1)) > float(m.group(2)) * float(m.group(3)), m.groups()
EOF
[ -e "$dir/c.json" ] && fail "a diverged run wrote its model file"

# an unknown task names the nearest (the tasks themselves: cli error tests)
"$attn" train previus-token -o "$dir/d.json" 2>"$dir/err" && fail "an unknown task was accepted"
grep -q "did you mean 'previous-token'?" "$dir/err" || { cat "$dir/err"; fail "no nearest task named"; }

# an existing file is not replaced without --force
echo precious >"$dir/keep.json"
"$attn" train coreference -o "$dir/keep.json" --steps 2 >/dev/null 2>"$dir/err" && fail "an existing file was replaced"
grep -q "exists, expected a new file name" "$dir/err" || fail "no reason given for refusing an existing file"
[ "$(cat "$dir/keep.json")" = precious ] || fail "the existing file changed"

# previous-token learns positions: the table goes in the model file, which explain reads
# alone; --epochs 2 is 64 steps
"$attn" train previous-token -o "$dir/p.json" --epochs 2 >"$dir/out" 2>"$dir/err" || { cat "$dir/err"; fail "previous-token failed"; }
grep -q "steps     64 of 16 examples each (2 passes" "$dir/out" || { cat "$dir/out"; fail "--epochs 2 is not 64 steps"; }
[ -e "$dir/p-positions.json" ] && fail "a positions file was written beside the model"
grep -q '"positions": \[' "$dir/p.json" || fail "the model file holds no table of positions"
grep -q "attn explain --model $dir/p.json\$" "$dir/err" || fail "no command to explain it"
"$attn" explain --model "$dir/p.json" --format none --json "$dir/p-trace.json" \
    || fail "explain cannot read the previous-token model with its positions"
grep -q '"id": "positions"' "$dir/p-trace.json" || fail "the walk-through has no positions step"

# --no-scale: the model without scaling, the same run with it beside it, both curves in the SVG
"$attn" train coreference -o "$dir/ns.json" --no-scale --d-k 32 --steps 40 --svg "$dir/ns.svg" \
    >"$dir/out" 2>"$dir/err" || { cat "$dir/err"; fail "--no-scale failed"; }
grep -q "not scaled (the model file)" "$dir/out" || { cat "$dir/out"; fail "--no-scale shows no comparison"; }
grep -q "scores / √d_k = 5.6569" "$dir/out" || fail "--no-scale shows no scaled curve"
grep -q "Held-out accuracy: .* without scaling, .* with it" "$dir/out" || fail "--no-scale compares no accuracies"
grep -q "Made by: attn train coreference .* --no-scale" "$dir/ns.json" || fail "the model file's command lacks --no-scale"
[ "$(grep -c "<polyline" "$dir/ns.svg")" -eq 2 ] || fail "the --no-scale plot has not two curves"
"$attn" explain --model "$dir/ns.json" --format none --json "$dir/ns-trace.json" || fail "explain cannot read the --no-scale model"

# the shipped learned examples are what their recorded commands make, byte for byte: the
# command in each file's "training" (the one attn examples prints), run as it is written; the
# file's "training" names what the task trains
ATTN_DATA_DIR="$src/data" "$attn" examples >"$dir/examples" || fail "attn examples failed"
for task in coreference previous-token match; do
    file="$src/data/examples/learned-$task.json"
    /usr/bin/python3 - "$file" "$task" >"$dir/command" <<'EOF' || fail "learned-$task.json: no training record"
import json, sys
text = "".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//"))
t = json.loads(text)["training"]
assert t["task"] == sys.argv[2] and t["command"].startswith("attn train " + sys.argv[2] + " "), t
assert t["held_out"]["right"] == t["held_out"]["of"] > 0, t  # 100% held out
want = {"coreference": ["W_Q", "W_K"], "previous-token": ["W_Q", "W_K", "positions"],
        "match": ["W_Q", "W_K", "embeddings"]}[sys.argv[2]]
assert t["trained"] == want, (t["trained"], want)
print(t["command"])
EOF
    command=$(cat "$dir/command")
    grep -qF "learned by: \$ ${command:0:40}" "$dir/examples" \
        || { cat "$dir/examples"; fail "attn examples does not show how learned-$task was made"; }
    read -r -a words <<<"${command#attn }"
    "$attn" "${words[@]}" -o "$dir/learned-$task.json" >/dev/null 2>&1 || fail "$command failed"
    cmp -s "$dir/learned-$task.json" "$file" \
        || fail "data/examples/learned-$task.json is not what '$command' makes (regenerate it: docs/training.md)"
done
# other weights in place of a learned model's: its description is said to be written for its
# own, and no matrix is said to be learned
/usr/bin/python3 -c 'import json; r = [[0.1 * ((i + j) % 5 - 2) for j in range(8)] for i in range(24)]
print(json.dumps({"W_Q": r, "W_K": r, "W_V": r}))' >"$dir/other-weights.json"
"$attn" explain --model "$src/data/examples/learned-coreference.json" --weights "$dir/other-weights.json" \
    --steps W_Q --width 1000 --color never >"$dir/other" 2>&1 || { cat "$dir/other"; fail "--model with --weights failed"; }
grep -q "written for its own settings, which --weights FILE changes here" "$dir/other" \
    || { cat "$dir/other"; fail "the learned description is not caveated under --weights"; }
grep -q "Here it was learned" "$dir/other" && fail "other weights are said to be learned"
# another table of positions in place of a learned model's: the description is caveated too
/usr/bin/python3 -c 'import json; print(json.dumps({"positions": [[0.1 * ((3 * i + j) % 7 - 3) for j in range(12)] for i in range(8)]}))' >"$dir/other-positions.json"
"$attn" explain --model "$src/data/examples/learned-previous-token.json" --positions "$dir/other-positions.json" \
    --steps weights --width 1000 --color never >"$dir/other-p" 2>&1 || { cat "$dir/other-p"; fail "--model with --positions failed"; }
grep -q "which --positions FILE changes here" "$dir/other-p" \
    || { cat "$dir/other-p"; fail "the learned description is not caveated under --positions FILE"; }
# a recorded command written --seed=42, or leaving a default out, agrees with its record
sed 's/--seed 42/--seed=42/; s/ --lr 0.2//' "$src/data/examples/learned-match.json" >"$dir/edited.json"
"$attn" explain --model "$dir/edited.json" --steps tokens >/dev/null 2>&1 || fail "--seed=42 or a left-out --lr is refused"
echo ok

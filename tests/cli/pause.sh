#!/usr/bin/env bash
# --pause through a pseudo-terminal (util-linux's script): Enter shows the next step, q ends.
set -u
attn=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '\n\nq\n' | script -qec "$attn explain 'This is book' --pause --color never --width 80" /dev/null >"$out"
rc=$?
fail() { echo "FAIL: $1"; cat -A "$out" | head -80; exit 1; }
[ "$rc" -eq 0 ] || fail "exit code $rc"
grep -q "── next: 2 · Embeddings X · Enter: go on, q: quit ──" "$out" || fail "no prompt before step 2"
grep -q "━━ 2 · Embeddings X ━" "$out" || fail "Enter did not show step 2"
grep -q "━━ 3a · Query weights W_Q ━" "$out" || fail "Enter did not show step 3a"
grep -q "── next: 3b · Key weights W_K" "$out" || fail "no prompt before step 3b"
if grep -q "━━ 3b · Key weights W_K ━" "$out"; then fail "q did not end the walk-through"; fi
echo ok

#!/usr/bin/env bash
# Output files are written whole or not at all: a full disk (a file size limit stands in for
# one), a read-only folder, or an interrupt (SIGINT) leave an existing file as it was and no
# temporary file behind, with an error that names the path; a closed pipe ends quietly.
#   usage: output_failures.sh ATTN
set -u
attn=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
fail() { echo "FAIL: $1"; ls -la "$dir"; exit 1; }
long=$(for i in $(seq 1 400); do printf 'w%d ' $((i % 97)); done)
leftovers() { find "$dir" -name '.attn-*' | wc -l; }

# 1. the disk fills up: the write fails, the old file stays, the temporary file goes
echo "precious" >"$dir/full.json"
(ulimit -f 64; "$attn" explain "$long" --d-model 64 --json "$dir/full.json" >/dev/null 2>"$dir/err1")
rc=$?
[ "$rc" -eq 1 ] || fail "a full disk: exit code $rc, expected 1"
grep -q "attn: error: cannot write $dir/full.json: File too large" "$dir/err1" \
    || { cat "$dir/err1"; fail "a full disk: no error naming the file"; }
[ "$(cat "$dir/full.json")" = precious ] || fail "a full disk: the old file was changed"
[ "$(leftovers)" -eq 0 ] || fail "a full disk: a temporary file was left behind"

# 2. a read-only folder (as root, permissions bind only another user)
mkdir "$dir/ro"
echo "precious" >"$dir/ro/out.json"
chmod 666 "$dir/ro/out.json"  # the file may be written (a write-protected file is refused earlier)
chmod 555 "$dir/ro"
run=("$attn")
if [ "$(id -u)" -eq 0 ]; then
    cp "$attn" "$dir/attn" && chmod 755 "$dir/attn"
    run=(setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/attn")
fi
"${run[@]}" explain "This is book" --json "$dir/ro/out.json" >/dev/null 2>"$dir/err2"
rc=$?
[ "$rc" -eq 1 ] || fail "a read-only folder: exit code $rc, expected 1"
grep -q "attn: error: cannot write $dir/ro/out.json: Permission denied" "$dir/err2" \
    || { cat "$dir/err2"; fail "a read-only folder: no error naming the file"; }
[ "$(cat "$dir/ro/out.json")" = precious ] || fail "a read-only folder: the old file was changed"
chmod 755 "$dir/ro"

# 3. an interrupt while a large dump is being written
echo "precious" >"$dir/big.json"
big=$(for i in $(seq 1 700); do printf 'v%d ' "$i"; done)
# (a script's background job starts with SIGINT ignored, and attn keeps it so: reset it)
env --default-signal "$attn" explain "$big" --d-model 256 --heads 8 --json "$dir/big.json" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do  # wait until the temporary file exists, then interrupt
    [ "$(leftovers)" -gt 0 ] && break
    sleep 0.05
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] || echo "note: attn finished before the interrupt reached it"
[ "$(cat "$dir/big.json")" = precious ] || [ "$rc" -eq 0 ] || fail "an interrupt: the old file was changed"
[ "$(leftovers)" -eq 0 ] || fail "an interrupt: a temporary file was left behind"

# 4. a closed pipe: no error spew
"$attn" explain "$long" --d-model 32 --color never 2>"$dir/err4" | head -1 >/dev/null
[ ! -s "$dir/err4" ] || { cat "$dir/err4"; fail "a closed pipe: something was printed on stderr"; }
echo ok

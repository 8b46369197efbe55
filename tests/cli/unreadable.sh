#!/usr/bin/env bash
# A file that exists but cannot be read: exit code 2 and a message naming it. Permissions do
# not stop root, so as root the test runs attn as the user nobody (setpriv, util-linux).
set -u
attn=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
echo '{"vectors": {"a": [1]}}' >"$dir/secret.json"
chmod 000 "$dir/secret.json"
run=("$attn")
if [ "$(id -u)" -eq 0 ]; then
    # a copy of the binary that nobody may run, whatever the permissions of the build tree
    cp "$attn" "$dir/attn"
    chmod 755 "$dir/attn"
    run=(setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/attn")
fi
"${run[@]}" explain a --embeddings "$dir/secret.json" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/err"
[ "$rc" -eq 2 ] || { echo "FAIL: exit code $rc, expected 2"; exit 1; }
grep -qF "attn: error: cannot read $dir/secret.json: Permission denied" "$dir/err" \
    || { echo "FAIL: the message does not name the file and the reason"; exit 1; }
[ ! -s "$dir/out" ] || { echo "FAIL: stdout is not empty"; exit 1; }
echo ok

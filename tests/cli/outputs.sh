#!/usr/bin/env bash
# What attn promises about its output files (docs/hardening.md, "What attn promises about
# outputs"): all or nothing, never over an input or another output, never replacing a FIFO,
# a device or a process's open file, modes and owners kept, write-protected files refused
# without --force, temporary files removed on every catchable signal, and no silent failure.
#   usage: outputs.sh ATTN
# A test that needs root (a device node made with mknod, another owner) fails rather than
# skips when ATTN_REQUIRE_TEST_TOOLS=1 and attn's tests do not run as root.
set -u
attn=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
fail() { echo "FAIL: $1"; ls -la "$dir"; exit 1; }
leftovers() { find "$dir" -name '.attn-*' | wc -l; }
expect() {  # expect CODE WHAT FILE-WITH-STDERR PATTERN
    [ "$1" = "$rc" ] || { cat "$3"; fail "$2: exit code $rc, expected $1"; }
    grep -qF -- "$4" "$3" || { cat "$3"; fail "$2: the message does not say: $4"; }
}
ulimit -c 0  # SIGQUIT below: no core file
is_root=0
[ "$(id -u)" -eq 0 ] && is_root=1
skipped=""
needs_root() {
    if [ "$is_root" -eq 0 ]; then
        [ "${ATTN_REQUIRE_TEST_TOOLS:-0}" = 1 ] && fail "$1 needs root (ATTN_REQUIRE_TEST_TOOLS=1)"
        skipped="$skipped; $1"
        return 1
    fi
}
long=$(for i in $(seq 1 300); do printf 'w%d ' $((i % 97)); done)

# --- all or nothing -------------------------------------------------------------------------
# 1. the third output cannot be written: the first two keep what they had
echo old-svg >"$dir/a.svg"
echo old-html >"$dir/b.html"
"$attn" explain "This is book" --svg "$dir/a.svg" --html "$dir/b.html" \
    --json "$dir/missing/c.json" >"$dir/out1" 2>"$dir/err1"
rc=$?
expect 1 "a failing third output" "$dir/err1" \
    "cannot write $dir/missing/c.json (--json): its directory does not exist; no output was changed: $dir/a.svg and $dir/b.html were left as they were"
[ "$(cat "$dir/a.svg")" = old-svg ] && [ "$(cat "$dir/b.html")" = old-html ] \
    || fail "a failing third output: an earlier output was replaced"
[ ! -s "$dir/out1" ] || fail "a failing third output: the walk-through was printed anyway"
[ "$(leftovers)" -eq 0 ] || fail "a failing third output: a temporary file was left behind"
grep -q "attn: wrote" "$dir/err1" && fail "a failing third output: attn says it wrote something"

# 2. the same under a file size limit (a full disk): the SVG fits, the HTML page does not
short="This is book a b c d e"
"$attn" explain "$short" --d-model 64 --svg "$dir/size.svg" --html "$dir/size.html" \
    --format none 2>/dev/null || fail "the size-limit run without a limit failed"
limit=$(( $(stat -c %s "$dir/size.svg") / 1024 + 4 ))
[ $(( limit * 1024 )) -lt "$(stat -c %s "$dir/size.html")" ] || fail "the HTML page is too small for this test"
echo old-svg >"$dir/a.svg"
echo old-html >"$dir/b.html"
echo old-json >"$dir/c.json"
(ulimit -f "$limit"; "$attn" explain "$short" --d-model 64 --svg "$dir/a.svg" --html "$dir/b.html" \
    --json "$dir/c.json" --format none 2>"$dir/err2")
rc=$?
expect 1 "a file size limit" "$dir/err2" \
    "cannot write $dir/b.html (--html): File too large; no output was changed: $dir/a.svg and $dir/c.json were left as they were"
[ "$(cat "$dir/a.svg")" = old-svg ] && [ "$(cat "$dir/b.html")" = old-html ] \
    && [ "$(cat "$dir/c.json")" = old-json ] || fail "a file size limit: an output was replaced"
[ "$(leftovers)" -eq 0 ] || fail "a file size limit: a temporary file was left behind"

# 3. a worksheet set under a size limit stays the earlier seed's, whole
"$attn" worksheet "This is book" --seed 1 -o "$dir/ws" 2>/dev/null || fail "worksheet failed"
sum_before=$(cat "$dir"/ws/* | md5sum)
small=$(( $(stat -c %s "$dir/ws/worksheet.md") / 1024 + 1 ))
(ulimit -f "$small"; "$attn" worksheet "This is book" --seed 2 -o "$dir/ws" --force 2>"$dir/err3")
rc=$?
expect 1 "a worksheet under a size limit" "$dir/err3" "File too large; no output was changed"
[ "$(cat "$dir"/ws/* | md5sum)" = "$sum_before" ] \
    || fail "a worksheet under a size limit: the set is no longer all from seed 1"
[ "$(leftovers)" -eq 0 ] || fail "a worksheet under a size limit: a temporary file was left"

# 4. stdout fails (a full disk): no file is replaced either, and the error says why
echo old-json >"$dir/c.json"
"$attn" explain "This is book" --json "$dir/c.json" >/dev/full 2>"$dir/err4"
rc=$?
expect 1 "stdout on a full disk" "$dir/err4" \
    "cannot write to stdout: No space left on device; no output file was changed"
[ "$(cat "$dir/c.json")" = old-json ] || fail "stdout on a full disk: the JSON was replaced"

# --- modes, owners, write protection --------------------------------------------------------
echo old >"$dir/mode.json"
chmod 640 "$dir/mode.json"
"$attn" explain "This is book" --json "$dir/mode.json" --format none 2>/dev/null \
    || fail "writing over a 0640 file failed"
[ "$(stat -c %a "$dir/mode.json")" = 640 ] || fail "the mode 0640 was not kept: $(stat -c %a "$dir/mode.json")"
if needs_root "keeping the owner"; then
    chown 65534:65534 "$dir/mode.json"
    "$attn" explain "This is book" --json "$dir/mode.json" --format none 2>/dev/null || fail "root run failed"
    [ "$(stat -c %u:%g "$dir/mode.json")" = 65534:65534 ] || fail "root did not keep the owner"
fi
echo protected >"$dir/ro.json"
chmod 444 "$dir/ro.json"
"$attn" explain "This is book" --json "$dir/ro.json" 2>"$dir/err5" >"$dir/out5"
rc=$?
expect 2 "a write-protected file" "$dir/err5" \
    "--json $dir/ro.json is write-protected (mode 0444), expected --force to replace it anyway"
[ "$(cat "$dir/ro.json")" = protected ] || fail "a write-protected file was replaced"
[ ! -s "$dir/out5" ] || fail "a write-protected file: the work was done before the refusal"
"$attn" explain "This is book" --json "$dir/ro.json" --format none --force 2>/dev/null \
    || fail "--force did not replace a write-protected file"
grep -q '"steps"' "$dir/ro.json" || fail "--force: the file is not the dump"
[ "$(stat -c %a "$dir/ro.json")" = 444 ] || fail "--force: the mode 0444 was not kept"
"$attn" init "This is book" -o "$dir/ro.json" 2>"$dir/err6"
rc=$?
expect 2 "init over an existing file" "$dir/err6" "exists, expected a new file name"

# --- clobbering: refused before any work -----------------------------------------------------
"$attn" explain "This is book" --json "$dir/x" --html "$dir/x" 2>"$dir/err7" >"$dir/out7"
rc=$?
expect 2 "the same output twice" "$dir/err7" \
    "--html $dir/x and --json $dir/x are the same file, expected a different file for each output"
[ ! -e "$dir/x" ] && [ ! -s "$dir/out7" ] || fail "the same output twice: something was written"
"$attn" explain "This is book" --svg "$dir/sub/../x.svg" --html "$dir/x.svg" 2>"$dir/err8"
rc=$?
expect 2 "the same output by two spellings" "$dir/err8" "are the same file"
"$attn" init "This is book" -o "$dir/m.json" 2>/dev/null || fail "init failed"
cp "$dir/m.json" "$dir/m.orig"
"$attn" explain --model "$dir/m.json" --json "$dir/m.json" 2>"$dir/err9"
rc=$?
expect 2 "an input as the output" "$dir/err9" \
    "--json $dir/m.json is the file --model $dir/m.json reads, expected another path"
ln "$dir/m.json" "$dir/hard.json"
ln -s m.json "$dir/soft.json"
for alias in hard soft; do
    "$attn" explain --model "$dir/m.json" --svg "$dir/$alias.json" 2>"$dir/err10"
    rc=$?
    expect 2 "an input through a $alias link" "$dir/err10" "reads, expected another path"
done
cmp -s "$dir/m.json" "$dir/m.orig" || fail "an input was changed"
# a dangling link to a file another option creates: one file named twice, as when it exists
ln -s new.json "$dir/dangling.html"
"$attn" explain "This is book" --json "$dir/new.json" --html "$dir/dangling.html" 2>"$dir/err10b"
rc=$?
expect 2 "an output and a dangling link to it" "$dir/err10b" \
    "--html $dir/dangling.html and --json $dir/new.json are the same file"
[ -L "$dir/dangling.html" ] && [ ! -e "$dir/new.json" ] || fail "a dangling link: something was written"
"$attn" explain --from "$dir/c.json" --json "$dir/c.json" 2>"$dir/err11"
rc=$?
expect 2 "--from as the output" "$dir/err11" "is the file --from $dir/c.json reads"

# an output that is where stdout goes, while attn prints there too: the walk-through would be
# lost (the file replaced under the shell's redirection) or mixed into the dump
"$attn" explain "This is book" --json "$dir/same.txt" >"$dir/same.txt" 2>"$dir/err11b"
rc=$?
expect 2 "the output is stdout's file" "$dir/err11b" \
    "--json $dir/same.txt is where stdout goes, and attn prints to stdout too, expected another path, or --format none"
"$attn" explain "This is book" --svg /dev/stdout >"$dir/same.txt" 2>"$dir/err11c"
rc=$?
expect 2 "--svg /dev/stdout beside the walk-through" "$dir/err11c" "--svg /dev/stdout is where stdout goes"
"$attn" explain "This is book" --json "$dir/same.txt" --format none >"$dir/same.txt" 2>/dev/null \
    || fail "--format none: an output may be stdout's file when nothing else is printed"

# --- special files: written into in place, never replaced ------------------------------------
mkfifo "$dir/fifo"
cat "$dir/fifo" >"$dir/from-fifo" &
reader=$!
"$attn" explain "This is book" --json "$dir/fifo" --format none 2>"$dir/err12"
rc=$?
wait "$reader"
expect 0 "a FIFO" "$dir/err12" "attn: wrote $dir/fifo (a FIFO: written into in place, not replaced)"
[ -p "$dir/fifo" ] || fail "the FIFO was replaced"
grep -q '"steps"' "$dir/from-fifo" || fail "the FIFO's reader did not get the dump"
if needs_root "a device node made with mknod"; then
    mknod "$dir/null" c 1 3
    "$attn" explain "This is book" --json "$dir/null" --svg "$dir/dev.svg" --format none 2>"$dir/err13"
    rc=$?
    expect 0 "a device" "$dir/err13" "$dir/null (a character device: written into in place, not replaced)"
    [ -c "$dir/null" ] || fail "the device node was replaced by a regular file"
    [ -s "$dir/dev.svg" ] || fail "the device run did not write its other output"
fi
"$attn" explain "This is book" --json /dev/stdout --format none >"$dir/stdout.json" 2>"$dir/err14"
rc=$?
expect 0 "/dev/stdout" "$dir/err14" "/dev/stdout (a process's open file: written into in place"
grep -q '"steps"' "$dir/stdout.json" || fail "/dev/stdout: the dump did not reach stdout"
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a link"
"$attn" explain "This is book" --svg /dev/stdout --format none 2>"$dir/err15" | grep -c '<svg' >"$dir/count15"
[ "$(cat "$dir/count15")" -ge 1 ] || { cat "$dir/err15"; fail "/dev/stdout on a pipe: no SVG"; }
grep -qF "(a FIFO: written into in place" "$dir/err15" || { cat "$dir/err15"; fail "/dev/stdout on a pipe: not said"; }
"$attn" explain "This is book" --json >(cat >"$dir/subst.json") --format none 2>"$dir/err16"
rc=$?
sleep 0.5
expect 0 "process substitution" "$dir/err16" "(a FIFO: written into in place, not replaced)"
grep -q '"steps"' "$dir/subst.json" || fail "process substitution: the dump did not arrive"

# --- temporary files: short names, removed on signals ----------------------------------------
name=$(printf 'n%.0s' $(seq 1 250)).json  # 255 bytes, the longest name a folder allows
"$attn" explain "This is book" --json "$dir/$name" --format none 2>"$dir/err17" \
    || { cat "$dir/err17"; fail "a 255-byte file name could not be written"; }
[ -s "$dir/$name" ] || fail "the 255-byte file is empty"
big=$(for i in $(seq 1 700); do printf 'v%d ' "$i"; done)
for sig in INT TERM HUP USR1 USR2 ALRM QUIT XCPU; do
    echo precious >"$dir/big.json"
    # a background job of a script starts with SIGINT and SIGQUIT ignored, and attn keeps an
    # ignored signal ignored (as nohup wants): start it with every signal at its default
    env --default-signal "$attn" explain "$big" --d-model 64 --heads 8 --json "$dir/big.json" \
        --format none 2>/dev/null &
    pid=$!
    for _ in $(seq 1 400); do  # wait until the temporary file exists, then send the signal
        [ "$(leftovers)" -gt 0 ] && break
        sleep 0.02
    done
    kill "-$sig" "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit status $rc, expected death by the signal"
    [ "$(cat "$dir/big.json")" = precious ] || fail "SIG$sig: the old file was changed"
    [ "$(leftovers)" -eq 0 ] || fail "SIG$sig: a temporary file was left behind"
done

# --- silent failures ------------------------------------------------------------------------
"$attn" explain "This is book" >/dev/full 2>"$dir/err18"
rc=$?
expect 1 "the walk-through on a full disk" "$dir/err18" "cannot write to stdout: No space left on device"
for args in "--help" "--version" "explain --help" "examples"; do
    # shellcheck disable=SC2086
    "$attn" $args >/dev/full 2>"$dir/err19"
    rc=$?
    expect 1 "attn $args on a full disk" "$dir/err19" "cannot write to stdout: No space left on device"
done
"$attn" init "This is book" >/dev/full 2>"$dir/err20"
rc=$?
expect 1 "init to a full stdout" "$dir/err20" "cannot write to stdout"
for opt in --json --svg --html --model --from; do
    "$attn" explain "This is book" "$opt" "" 2>"$dir/err21" >/dev/null
    rc=$?
    expect 2 "$opt ''" "$dir/err21" "$opt is an empty file name, expected a path"
done
"$attn" init "This is book" -o "" 2>"$dir/err22"
rc=$?
expect 2 "init -o ''" "$dir/err22" "is an empty file name"

# whole numbers are decimal: 010 is ten, 0x10 is refused; every integer option
for opt in --d-model --d-k --d-v --pad-to --precision --threads; do
    "$attn" explain "This is book" "$opt" 010 --color never >"$dir/octal" 2>&1
    "$attn" explain "This is book" "$opt" 10 --color never >"$dir/decimal" 2>&1
    cmp -s "$dir/octal" "$dir/decimal" || fail "$opt 010 is not read as 10"
    "$attn" explain "This is book" "$opt" 0x10 >/dev/null 2>"$dir/err23"
    rc=$?
    expect 2 "$opt 0x10" "$dir/err23" "$opt is '0x10', expected a whole number written in decimal"
done
"$attn" explain "This is book" --d-model 08 --heads 02 --head 02 --color never >"$dir/octal" 2>&1
"$attn" explain "This is book" --d-model 8 --heads 2 --head 2 --color never >"$dir/decimal" 2>&1
cmp -s "$dir/octal" "$dir/decimal" || fail "--heads 02 --head 02 are not read as 2"
"$attn" explain "This is book" --width 0100 --color never >"$dir/octal" 2>&1
"$attn" explain "This is book" --width 100 --color never >"$dir/decimal" 2>&1
cmp -s "$dir/octal" "$dir/decimal" || fail "--width 0100 is not read as 100"
"$attn" init "This is book" --d-model 010 >"$dir/octal" 2>&1
"$attn" init "This is book" --d-model 10 >"$dir/decimal" 2>&1
diff <(grep -v 'Made by' "$dir/octal") <(grep -v 'Made by' "$dir/decimal") >/dev/null \
    || fail "init --d-model 010 is not read as 10"
"$attn" worksheet "This is book" --d-k 0x3 -o "$dir/ws2" 2>"$dir/err24"
rc=$?
expect 2 "worksheet --d-k 0x3" "$dir/err24" "expected a whole number written in decimal"
"$attn" check "$dir/ws/answers.json" --precision 0x2 2>"$dir/err25"
rc=$?
expect 2 "check --precision 0x2" "$dir/err25" "expected a whole number written in decimal"
"$attn" explain "This is book" --d-model " 7" 2>"$dir/err26" >/dev/null
rc=$?
expect 2 "--d-model ' 7'" "$dir/err26" "expected a whole number"
# --- closed streams, stderr, links, checkpoints, empty paths ----------------------------------
# 27. stdout closed: an output through /proc/self/fd/1 is refused, and no file takes fd 1 (the
# temporary file did, and was renamed over the link, turning it into a regular file)
mkdir "$dir/fakedev"
ln -s /proc/self/fd/1 "$dir/fakedev/stdout"
"$attn" explain "This is book" --json "$dir/fakedev/stdout" --format none >&- 2>"$dir/err27"
rc=$?
expect 2 "--json to a closed stdout" "$dir/err27" "is attn's stdout, which is closed or open only for reading"
[ -L "$dir/fakedev/stdout" ] || fail "a link to /proc/self/fd/1 was replaced when stdout was closed"
"$attn" explain "This is book" >&- 2>"$dir/err27b"
rc=$?
expect 1 "the walk-through to a closed stdout" "$dir/err27b" "cannot write to stdout"
# 28. an output where stderr goes (a file): attn's messages would overwrite it
"$attn" explain "This is book" --json /dev/stderr --format none 2>"$dir/err28"
rc=$?
expect 2 "--json /dev/stderr with stderr in a file" "$dir/err28" "is where stderr goes"
# 29. an output through a link replaces the file the link points to; the link stays
echo old >"$dir/pointed.json"
ln -s pointed.json "$dir/link.json"
"$attn" explain "This is book" --json "$dir/link.json" --format none 2>"$dir/err29"
rc=$?
expect 0 "--json through a link" "$dir/err29" "wrote $dir/link.json"
[ -L "$dir/link.json" ] || fail "the link given as an output was replaced by a file"
grep -q '"schema": "attn.trace"' "$dir/pointed.json" || fail "the file behind the link was not written"
# 30. a checkpoint's files are inputs: never written over
mkdir "$dir/ck"
echo '{}' >"$dir/ck/config.json"
"$attn" explain "hello world" --checkpoint "$dir/ck" --json "$dir/ck/config.json" --format none \
    2>"$dir/err30"
rc=$?
expect 2 "--json over a checkpoint's config.json" "$dir/err30" "is the file --checkpoint"
[ "$(cat "$dir/ck/config.json")" = '{}' ] || fail "the checkpoint's config.json was changed"
# 32. a FIFO whose reader goes away: the write fails (EPIPE, SIGPIPE held back), said with
# what was left alone, instead of attn ending silently by SIGPIPE
mkfifo "$dir/gone.fifo"
echo keep >"$dir/keep.svg"
(head -c 10 "$dir/gone.fifo" >/dev/null &)
"$attn" explain "$long" --json "$dir/gone.fifo" --svg "$dir/keep.svg" --format none \
    2>"$dir/err32"
rc=$?
expect 1 "a FIFO whose reader goes away" "$dir/err32" "(--json, a FIFO): Broken pipe; it may hold part of the output"
[ "$(cat "$dir/keep.svg")" = keep ] || fail "the other output was replaced after a broken FIFO"
[ "$(leftovers)" -eq 0 ] || fail "a broken FIFO left a temporary file"
# 31. empty file names are refused, not ignored
for opt in --npz --checkpoint --target; do
    "$attn" explain "This is book" "$opt" "" >/dev/null 2>"$dir/err31"
    rc=$?
    expect 2 "$opt ''" "$dir/err31" "$opt is an empty file name"
done
if [ -n "$skipped" ]; then
    echo "skipped (needs root)${skipped}; everything else passed"
    exit 77
fi
echo ok

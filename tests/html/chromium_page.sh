# Sourced by the tests that open an attn page in headless Chromium (html/check_html.sh,
# cli/checkpoint_outputs.sh), after they define `fail MESSAGE` and a scratch folder `dir`:
#   browser_in CHROMIUM   sets `browser`, the command line every run of Chromium starts with
#                         (no network, no sandbox, a profile in $dir)
#   load_page PAGE DOM    loads PAGE, writes its DOM after its script ran to DOM, and fails
#                         unless the script finished (data-ready="ok") with no JavaScript errors
browser_in() {
    browser=("$1" --headless --no-sandbox --disable-gpu --disable-background-networking
             --disable-component-update --disable-sync --no-first-run --disable-quic
             --user-data-dir="$dir/profile")
}

load_page() {
    timeout 120 "${browser[@]}" --dump-dom "file://$1" >"$2" 2>"$dir/browser.err" \
        || { tail -5 "$dir/browser.err"; fail "chromium could not load the page"; }
    grep -q 'data-ready="ok"' "$2" || fail "the page's script did not finish (data-ready missing)"
    if grep -q 'data-errors=' "$2"; then
        grep -o 'data-errors="[^"]*"' "$2"
        fail "JavaScript errors"
    fi
}

#!/usr/bin/env bash
# cmake/EmbedAssets.cmake embeds a file byte for byte (quotes, backslashes, ';', '${x}', ')"',
# no newline at the end), and refuses one that holds the raw-string literal's closing
# sequence with a clear message.
#   usage: embed_assets.sh CMAKE CXX EMBED_ASSETS_CMAKE
set -u
cmake=$1
cxx=$2
script=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
printf 'a "quoted" \\ back;slash ${x} )" )attn" R"(x)"\n\ttab\n\xc3\xa9 no newline at the end' >"$dir/odd.txt"
printf 'body { color: red; }\n' >"$dir/plain.css"
"$cmake" -DOUTPUT="$dir/assets.hpp" -DNAMES="odd|plain" -DFILES="$dir/odd.txt|$dir/plain.css" \
    -P "$script" || fail "the odd file was not embedded"
cat >"$dir/dump.cpp" <<'CPP'
#include <cstdio>
#include <string_view>
#include "assets.hpp"
int main(int argc, char**) {
    const std::string_view s = argc > 1 ? attn::assets::plain : attn::assets::odd;
    std::fwrite(s.data(), 1, s.size(), stdout);
}
CPP
"$cxx" -std=c++20 -I"$dir" "$dir/dump.cpp" -o "$dir/dump" || fail "the generated header does not compile"
"$dir/dump" | cmp - "$dir/odd.txt" || fail "the odd file did not come back byte for byte"
"$dir/dump" plain | cmp - "$dir/plain.css" || fail "the plain file did not come back byte for byte"
printf 'x { content: "a)attn_asset" "b"; }\n' >"$dir/bad.css"
if "$cmake" -DOUTPUT="$dir/bad.hpp" -DNAMES=bad -DFILES="$dir/bad.css" -P "$script" 2>"$dir/err"; then
    fail "an asset holding )attn_asset\" was embedded"
fi
# (CMake wraps the message: compared with its lines joined)
tr -s ' \n' '  ' <"$dir/err" | grep -q "contains )attn_asset\" (at byte 15), which would end the raw string literal" \
    || { cat "$dir/err"; fail "no clear message for the delimiter"; }
[ ! -e "$dir/bad.hpp" ] || fail "a header was written for the bad asset"
echo ok

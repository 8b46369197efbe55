#!/usr/bin/env bash
# Installing: cmake --install into a temporary prefix, and the .deb that CPack makes,
# unpacked into a temporary root; attn then runs from there and finds its examples.
#   usage: install.sh BUILD_DIR
set -u
build=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
unset ATTN_DATA_DIR

cmake --install "$build" --prefix "$dir/prefix" >"$dir/install.log" 2>&1 \
    || { cat "$dir/install.log"; fail "cmake --install failed"; }
for f in bin/attn share/attn/examples/this-is-book.json share/man/man1/attn.1 \
         share/bash-completion/completions/attn share/doc/attn/README.md; do
    [ -e "$dir/prefix/$f" ] || fail "cmake --install did not install $f"
done
# every guide the man page's SEE ALSO names is installed where it says
for f in $(sed -n '/^\.SH SEE ALSO/,$p' "$dir/prefix/share/man/man1/attn.1" \
           | grep -oE '^\.I [a-z-]+\.md|^\.I schema/' | cut -c4-); do
    [ -e "$dir/prefix/share/doc/attn/$f" ] || fail "the man page names $f, which is not installed"
done
# every relative link of the installed README and guides leads to an installed file (links
# into the source tree are written as text: cmake/InstallDocs.cmake)
docdir="$dir/prefix/share/doc/attn"
[ -e "$docdir/heads-lines.png" ] || fail "the pictures of the guides are not installed"
for md in "$docdir"/*.md; do
    for target in $(grep -oE '\]\([^)#]+' "$md" | cut -c3- | grep -vE '^(https?|mailto):'); do
        [ -e "$docdir/$target" ] || fail "$(basename "$md") links $target, which is not installed"
    done
done
if grep -q "docs/" "$dir/prefix/share/man/man1/attn.1"; then
    fail "the man page sends installed users to docs/, which is not installed"
fi
groff -man -ww -z "$dir/prefix/share/man/man1/attn.1" 2>"$dir/groff" || fail "groff fails on attn.1"
[ ! -s "$dir/groff" ] || { cat "$dir/groff"; fail "groff warns about attn.1"; }
(cd / && "$dir/prefix/bin/attn" explain --model this-is-book --color never --width 300 >"$dir/out.txt") \
    || fail "the installed attn cannot explain --model this-is-book"
grep -q "read from $dir/prefix/share/attn/examples/this-is-book.json" "$dir/out.txt" \
    || fail "the installed attn did not find its examples next to itself"
"$dir/prefix/bin/attn" examples --names | grep -qx "integer-3x4" || fail "attn examples lists nothing"

(cd "$dir" && cpack --config "$build/CPackConfig.cmake" -G DEB >"$dir/cpack.log" 2>&1) \
    || { tail -20 "$dir/cpack.log"; fail "cpack failed"; }
deb=$(ls "$dir"/attn_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no .deb was made"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
echo "$depends" | grep -q "libc6" || fail "the .deb does not depend on libc6"
# the Unicode data comes from Debian's utf8proc (docs/design.md, Unicode)
echo "$depends" | grep -q "libutf8proc2" || fail "the .deb does not depend on libutf8proc2"
# the C++ runtime is linked in and fmt is header-only (quicker start, docs/design.md): the
# package needs neither
for lib in libstdc++6 libfmt9; do
    if echo "$depends" | grep -q "$lib"; then fail "the .deb depends on $lib"; fi
done
dpkg-deb -x "$deb" "$dir/root"
(cd / && "$dir/root/usr/bin/attn" explain --model integer-3x4 --steps 5 --color never --width 300 >"$dir/deb.txt") \
    || fail "attn from the .deb does not run"
grep -q "read from $dir/root/usr/share/attn/examples/integer-3x4.json" "$dir/deb.txt" \
    || fail "attn from the .deb did not find its examples"
"$dir/root/usr/bin/attn" --version | grep -q "^attn 0\." || fail "--version"
echo "ok: $(basename "$deb")"

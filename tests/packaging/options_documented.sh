#!/usr/bin/env bash
# Every option `attn SUBCOMMAND --help` lists is offered by the bash completion for that
# subcommand and described in the man page: a new option cannot be left out of either.
#   usage: options_documented.sh ATTN SOURCE_DIR
set -u
attn=$1
root=$2
completion=$root/packaging/attn.bash
man=$root/packaging/attn.1
failed=0
for sub in explain init worksheet check examples; do
    # the long options of the option lines ("  --seed N", "  -q,--quiet-text", "  --a,--b")
    options=$("$attn" "$sub" --help | grep -E '^  -' | sed -E 's/^  (-[a-zA-Z],)?//; s/[ =].*//' |
              tr ',' '\n' | grep -E '^--' | grep -v -- '^--help$' | sort -u)
    [ -n "$options" ] || { echo "FAIL: attn $sub --help lists no options"; failed=1; continue; }
    # the completion's list for the subcommand: from "SUB) opts=" to the closing quote
    offered=$(awk -v name="$sub" '$0 ~ "^ *" name "\\) opts=" {on=1} on {print} on && /" ?;;/ {exit}' \
              "$completion")
    for option in $options; do
        if ! grep -qw -- "$option" <<<"$offered"; then
            echo "FAIL: packaging/attn.bash does not offer $option for attn $sub"
            failed=1
        fi
        # groff writes a dash as \-
        if ! grep -qF -- "${option//-/\\-}" "$man"; then
            echo "FAIL: packaging/attn.1 does not describe $option (attn $sub)"
            failed=1
        fi
    done
done
[ "$failed" -eq 0 ] && echo "ok: every option is in the completion and the man page"
exit "$failed"

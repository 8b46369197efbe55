#!/usr/bin/env bash
# cmake/OptionTable.cmake: src/cli/options.json gives the C++ it should (a flag, an option with
# its checks, flag_of), and a table with a misspelt key, a bad name, a text that would end its
# literal or one field set by two flags is refused with a message that says so.
#   usage: option_table.sh CMAKE OPTION_TABLE_CMAKE
set -u
cmake=$1
script=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $1"; exit 1; }

# $1: the options of one command (a JSON list); writes $dir/out.cpp, or the error to $dir/err
generate() {
    cat >"$dir/options.json" <<JSON
{"program": {"struct": "ProgramOptions", "about": "attn", "options": [], "footer": ["a", "b"]},
 "commands": [{"name": "explain", "struct": "ExplainOptions", "about": ["one", "line"],
               "options": $1, "footer": "end"}]}
JSON
    rm -f "$dir/out.cpp"
    "$cmake" -DINPUT="$dir/options.json" -DOUTPUT="$dir/out.cpp" -P "$script" 2>"$dir/err"
}
# $1: what the error must say (CMake wraps messages: compared with its lines joined)
refused() {
    [ ! -e "$dir/out.cpp" ] || fail "a table was written for a bad entry ($1)"
    tr -s ' \n' '  ' <"$dir/err" | grep -qF "$1" || { cat "$dir/err"; fail "no message '$1'"; }
}

generate '[{"names": "--seed", "value": "N", "sets": "seed", "field": "seed", "help": ["a;", "b"]},
           {"names": "-o,--output", "value": "FILE", "sets": "input.output", "path": true,
            "show_default": true, "required": false, "help": "x"},
           {"names": "--head", "value": "N|all", "sets": "head", "aliases": {"all": "0"}, "help": "h"},
           {"names": "--ascii", "sets": "ascii", "help": "y"},
           {"names": "--present,--pause", "sets": "present", "help": "p"}]' || { cat "$dir/err"; fail "a good table was refused"; }
grep -qF 'option(*app, wanted, o.seed, {.names = "--seed", .value = "N", .help = R"attn_text(a; b)attn_text"});' "$dir/out.cpp" \
    || fail "--seed: $(grep seed "$dir/out.cpp")"
grep -qF 'option(*app, wanted, o.input.output, {.names = "-o,--output", .value = "FILE", .help = R"attn_text(x)attn_text", .path = true, .show_default = true});' "$dir/out.cpp" \
    || fail "--output: $(grep output "$dir/out.cpp")"
grep -qF '.aliases = {{"all", "0"}}' "$dir/out.cpp" || fail "--head's aliases"
grep -qF 'flag(*app, wanted, o.ascii, {.names = "--ascii", .help = R"attn_text(y)attn_text"});' "$dir/out.cpp" \
    || fail "--ascii: $(grep ascii "$dir/out.cpp")"
grep -qF 'flag(*app, wanted, o.present, {.names = "--present,--pause", .help = R"attn_text(p)attn_text"});' "$dir/out.cpp" \
    || fail "--present,--pause: $(grep present "$dir/out.cpp")"
grep -qF 'parent.add_subcommand("explain", R"attn_text(one line)attn_text");' "$dir/out.cpp" || fail "the about line"
grep -qF 'app.footer(R"attn_text(a
b)attn_text");' "$dir/out.cpp" || fail "the program's footer"
grep -A1 'case Field::seed:' "$dir/out.cpp" | grep -qF 'return "--seed";' || fail "flag_of(Field::seed)"

generate '[{"names": "--seed", "value": "N", "sets": "seed", "hepl": "x"}]'
refused 'option 0 (--seed): unknown key "hepl"'
generate '[{"names": "--Seed", "value": "N", "sets": "seed", "help": "x"}]'
refused "\"names\" is '--Seed'"
generate '[{"names": "--seed,-s", "value": "N", "sets": "seed", "help": "x"}]'
refused "\"names\" is '--seed,-s'"
generate '[{"names": "--seed", "value": "N", "sets": "seed()", "help": "x"}]'
refused "\"sets\" is 'seed()'"
generate '[{"names": "--seed", "value": "N", "sets": "seed", "path": "yes", "help": "x"}]'
refused "\"path\" is 'yes', expected true or false"
generate '[{"names": "--seed", "value": "N", "sets": "seed", "help": "a )attn_text\" b"}]'
refused "contains )attn_text\", which would end its C++ literal"
generate '[{"names": "--seed", "value": "N", "sets": "seed", "field": "seed", "help": "x"},
           {"names": "--graine", "value": "N", "sets": "seed", "field": "seed", "help": "x"}]'
refused "the field seed is set by --seed and by --graine"
generate '[{"names": "--seed", "value": "N", "sets": "seed"}]'
refused 'option 0 (--seed) has no "help"'
echo ok

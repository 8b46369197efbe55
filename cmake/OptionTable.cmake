# Writes the C++ that declares attn's command-line options from src/cli/options.json, the one
# place where every option's names, value name, help text and checks are written down (what
# --help prints; tests/packaging/check_options.py holds the man page and the bash completion
# to the same file):
#
#   cmake -DINPUT=src/cli/options.json -DOUTPUT=options_table.cpp -P OptionTable.cmake
#
# For the program and each subcommand it writes one function that declares its options in
# order, each through option() or flag() of src/cli/declare.hpp (the C++ compiler checks the
# member each one sets), and flag_of(Field), the flag named in a message about a field. The
# top CMakeLists.txt runs it from a custom command that depends on the JSON file.
#
# options.json, by example:
#   {"program": {"struct": "ProgramOptions", "about": "...", "options": [...], "footer": [...]},
#    "commands": [{"name": "explain", "struct": "ExplainOptions", "about": "...",
#                  "options": [...], "footer": [...]}, ...]}
# and each option:
#   {"names": "--seed",        CLI11's names: "-o,--output", "--present,--pause" (flag_of()
#                              names the last), or a positional's name
#    "value": "N",             the value's name in --help; without it the option is a flag
#                              (its member a bool)
#    "sets": "seed",           the member of the command's struct it sets ("input.seed")
#    "field": "seed",          the attn::Field its value is checked as: messages about that
#                              field name this option (flag_of)
#    "path": true,             a file name: an empty one is refused (non_empty_path)
#    "show_default": true,     --help shows the default
#    "required": true,         must be given
#    "aliases": {"all": "0"},  words that stand for values
#    "help": "..."}            the help text: a string, or a list of strings joined by spaces
# An "about" is a string or a list joined by spaces, a "footer" a list of lines.

set(delimiter "attn_text")

if(NOT INPUT OR NOT OUTPUT)
    message(FATAL_ERROR "usage: cmake -DINPUT=options.json -DOUTPUT=FILE.cpp -P OptionTable.cmake")
endif()
file(READ "${INPUT}" json)

function(fail what)
    message(FATAL_ERROR "attn: ${INPUT}: ${what}")
endfunction()

# `out` = the member `key` of the JSON object `object`, or "" when it has none.
function(member out object key)
    string(JSON value ERROR_VARIABLE error GET "${object}" "${key}")
    if(error)
        set(value "")
    endif()
    set(${out} "${value}" PARENT_SCOPE)
endfunction()

# `out` = the text `object`.`key` (a string, or a list of strings joined by `separator`) as a
# C++ raw string literal; `where` names it in an error.
function(text_literal out object key separator where)
    string(JSON type ERROR_VARIABLE error TYPE "${object}" "${key}")
    if(error)
        fail("${where} has no \"${key}\"")
    endif()
    if(type STREQUAL "STRING")
        string(JSON text GET "${object}" "${key}")
    elseif(type STREQUAL "ARRAY")
        string(JSON n LENGTH "${object}" "${key}")
        set(text "")
        math(EXPR last "${n} - 1")
        foreach(i RANGE ${last})
            string(JSON part GET "${object}" "${key}" ${i})
            if(i GREATER 0)
                string(APPEND text "${separator}")
            endif()
            string(APPEND text "${part}")
        endforeach()
    else()
        fail("${where}: \"${key}\" is ${type}, expected a string or a list of strings")
    endif()
    string(FIND "${text}" ")${delimiter}\"" at)
    if(NOT at EQUAL -1)
        fail("${where}: \"${key}\" contains )${delimiter}\", which would end its C++ literal")
    endif()
    set(${out} "R\"${delimiter}(${text})${delimiter}\"" PARENT_SCOPE)
endfunction()

# Field ids and the flags that name them, gathered from every command.
set(field_ids "")

# Appends to `code` the statements that declare the options of `command` (a JSON object) on
# the CLI::App `app` for the struct `o`; `where` names the command in errors.
function(declare_options command app where)
    set(code "${code}")
    string(JSON n ERROR_VARIABLE error LENGTH "${command}" options)
    if(error)
        fail("${where} has no \"options\" list")
    endif()
    if(n EQUAL 0)
        set(code "${code}" PARENT_SCOPE)
        return()
    endif()
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
        string(JSON opt GET "${command}" options ${i})
        member(names "${opt}" names)
        set(at "${where}, option ${i} (${names})")
        string(JSON n_keys LENGTH "${opt}")
        math(EXPR last_key "${n_keys} - 1")
        foreach(k RANGE ${last_key})
            string(JSON key MEMBER "${opt}" ${k})
            if(NOT key MATCHES "^(names|value|sets|field|path|show_default|required|aliases|help)$")
                fail("${at}: unknown key \"${key}\", expected names, value, sets, field, path, "
                     "show_default, required, aliases or help")
            endif()
        endforeach()
        if(NOT names MATCHES "^(-[a-z],)?(--)?[a-z][a-z0-9-]*(,--[a-z][a-z0-9-]*)*$")
            fail("${at}: \"names\" is '${names}', expected e.g. \"--seed\", \"-o,--output\", "
                 "\"--present,--pause\" or a positional's name")
        endif()
        member(sets "${opt}" sets)
        if(NOT sets MATCHES "^[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)*$")
            fail("${at}: \"sets\" is '${sets}', expected a member of ${struct} such as \"seed\"")
        endif()
        text_literal(help "${opt}" help " " "${at}")
        member(value "${opt}" value)
        if(value STREQUAL "")
            set(spec "{.names = \"${names}\", .help = ${help}")
        else()
            set(spec "{.names = \"${names}\", .value = \"${value}\", .help = ${help}")
        endif()
        foreach(rule path show_default required)
            member(on "${opt}" ${rule})
            if(on STREQUAL "ON")
                string(APPEND spec ", .${rule} = true")
            elseif(NOT on STREQUAL "" AND NOT on STREQUAL "OFF")
                fail("${at}: \"${rule}\" is '${on}', expected true or false")
            endif()
        endforeach()
        string(JSON aliases ERROR_VARIABLE error GET "${opt}" aliases)
        if(NOT error)
            string(JSON n_aliases LENGTH "${opt}" aliases)
            math(EXPR last_alias "${n_aliases} - 1")
            set(pairs "")
            foreach(a RANGE ${last_alias})
                string(JSON word MEMBER "${opt}" aliases ${a})
                string(JSON stands_for GET "${opt}" aliases "${word}")
                list(APPEND pairs "{\"${word}\", \"${stands_for}\"}")
            endforeach()
            list(JOIN pairs ", " pairs)
            string(APPEND spec ", .aliases = {${pairs}}")
        endif()
        string(APPEND spec "}")
        if(value STREQUAL "")
            string(APPEND code "    flag(${app}, wanted, o.${sets}, ${spec});\n")
        else()
            string(APPEND code "    option(${app}, wanted, o.${sets}, ${spec});\n")
        endif()
        member(field "${opt}" field)
        if(NOT field STREQUAL "")
            if(NOT field MATCHES "^[a-z_][a-z0-9_]*$")
                fail("${at}: \"field\" is '${field}', expected an attn::Field such as \"d_model\"")
            endif()
            string(REGEX REPLACE "^.*," "" flag "${names}")
            if(DEFINED flag_of_${field} AND NOT flag_of_${field} STREQUAL flag)
                fail("${at}: the field ${field} is set by ${flag_of_${field}} and by ${flag}, "
                     "expected one flag per field")
            endif()
            if(NOT DEFINED flag_of_${field})
                set(flag_of_${field} "${flag}")
                set(flag_of_${field} "${flag}" PARENT_SCOPE)
                list(APPEND field_ids ${field})
            endif()
        endif()
    endforeach()
    set(code "${code}" PARENT_SCOPE)
    set(field_ids "${field_ids}" PARENT_SCOPE)
endfunction()

set(code "// Generated by cmake/OptionTable.cmake from ${INPUT}:\n")
string(APPEND code "// edit that file, not this one.\n"
                   "#include <CLI/CLI.hpp>\n\n#include \"cli.hpp\"\n#include \"declare.hpp\"\n\n"
                   "namespace attn::cli {\n")

# the program: attn itself
string(JSON program ERROR_VARIABLE error GET "${json}" program)
if(error)
    fail("no \"program\" object")
endif()
member(struct "${program}" struct)
text_literal(about "${program}" about " " "program")
text_literal(footer "${program}" footer "\n" "program")
string(APPEND code "\nvoid declare_options(CLI::App& app, ${struct}& o) {\n"
                   "    const Wanted wanted = Wanted::all();\n"
                   "    app.description(${about});\n")
declare_options("${program}" app "program")
string(APPEND code "    app.footer(${footer});\n}\n")

# the subcommands
string(JSON n_commands LENGTH "${json}" commands)
math(EXPR last "${n_commands} - 1")
foreach(c RANGE ${last})
    string(JSON command GET "${json}" commands ${c})
    member(name "${command}" name)
    if(NOT name MATCHES "^[a-z][a-z-]*$")
        fail("command ${c}: \"name\" is '${name}', expected a subcommand's name")
    endif()
    member(struct "${command}" struct)
    if(NOT struct MATCHES "^[A-Z][A-Za-z0-9]*$")
        fail("command ${name}: \"struct\" is '${struct}', expected the options struct's name")
    endif()
    text_literal(about "${command}" about " " "command ${name}")
    text_literal(footer "${command}" footer "\n" "command ${name}")
    string(APPEND code "\nCLI::App* add_command(CLI::App& parent, ${struct}& /*options*/) {\n"
                       "    CLI::App* app = parent.add_subcommand(\"${name}\", ${about});\n"
                       "    app->footer(${footer});\n"
                       "    return app;\n}\n"
                       "\nvoid add_options(CLI::App* app, ${struct}& o, const Wanted& wanted) {\n")
    declare_options("${command}" *app "command ${name}")
    string(APPEND code "}\n")
endforeach()

# the flag that names each field in a message
string(APPEND code "\nstd::string_view flag_of(Field field) noexcept {\n    switch (field) {\n")
foreach(field IN LISTS field_ids)
    if(NOT field STREQUAL "")
        string(APPEND code "        case Field::${field}:\n            return \"${flag_of_${field}}\";\n")
    endif()
endforeach()
string(APPEND code "        default:\n            return \"\";\n    }\n}\n\n}  // namespace attn::cli\n")

# Written only when it changes, so that nothing recompiles for an unchanged table.
set(old "")
if(EXISTS "${OUTPUT}")
    file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL code)
    file(WRITE "${OUTPUT}" "${code}")
endif()

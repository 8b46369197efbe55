#!/usr/bin/env python3
"""--help, the man page and the bash completion against src/cli/options.json, the one place
where attn's options are written down.

usage: check_options.py OPTIONS_JSON ATTN_1 ATTN_BASH ATTN

- --help of attn and of each subcommand names every option of the table;
- the man page names every long option of every command, and no option that none has;
- the bash completion lists each command's long options (and no others) after the command,
  the subcommands at the start, completes a value after every option that takes one (and
  after no flag), offers exactly the keywords the value's name spells (none|causal|FILE:
  none and causal) and file names where the value is a FILE or a DIR.
Prints every disagreement, then exits 1 if there was any.
"""
import json
import re
import subprocess
import sys

options_json, man_page, completion, attn = sys.argv[1:5]
table = json.load(open(options_json, encoding="utf-8"))
commands = {"": table["program"]} | {c["name"]: c for c in table["commands"]}
problems = []


def names(option):
    return option["names"].split(",")


def long_names(command):
    return {n for o in command["options"] for n in names(o) if n.startswith("--")}


def keywords(value):
    """The words a value's name spells for itself: 'none|causal|FILE' -> {none, causal}."""
    return {w for w in value.split("|") if re.fullmatch(r"[a-z_]+", w)}


# --help
for name, command in commands.items():
    args = [attn] + ([name] if name else []) + ["--help"]
    shown = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    for option in command["options"]:
        if not re.search(r"(^|\s)" + re.escape(option["names"]) + r"(\s|$)", shown, re.M):
            problems.append(f"{' '.join(args)} does not show {option['names']}")

# the man page: every long option, written \-\-name in roff
man = open(man_page, encoding="utf-8").read()
in_man = {m.replace("\\-", "-") for m in re.findall(r"\\-\\-[a-z](?:[a-z]|\\-)*", man)}
in_man = {m.rstrip("-") for m in in_man}
every_long = set().union(*(long_names(c) for c in commands.values()))
for missing in sorted(every_long - in_man):
    problems.append(f"{man_page} does not describe {missing}")
for stale in sorted(in_man - every_long - {"--help"}):
    problems.append(f"{man_page} names {stale}, which no command has")

# the bash completion
bash = open(completion, encoding="utf-8").read()


def words_of(case_label):
    """The words of `opts="..."` in the case branch `case_label)` of the completion."""
    m = re.search(r"^\s*" + re.escape(case_label) + r'\) opts="([^"]*)"', bash, re.M)
    if not m:
        problems.append(f"{completion} has no opts list for '{case_label}'")
        return set()
    return set(m.group(1).split())


subcommands = [n for n in commands if n]
expected = set(subcommands) | long_names(commands[""]) | {"--help"}
if words_of("*") != expected:
    problems.append(f"{completion}: the words at the start are {sorted(words_of('*'))}, "
                    f"expected {sorted(expected)}")
m = re.search(r"case \$\{COMP_WORDS\[i\]\} in\s*\n\s*([a-z|-]+)\)", bash)
if not m or set(m.group(1).split("|")) != set(subcommands):
    problems.append(f"{completion} does not find the subcommand among {subcommands}")
for name in subcommands:
    listed = words_of(name)
    expected = long_names(commands[name]) | {"--help"}
    for missing in sorted(expected - listed):
        problems.append(f"{completion} does not complete {missing} after 'attn {name}'")
    for extra in sorted(listed - expected):
        problems.append(f"{completion} completes {extra} after 'attn {name}', which it does not take")

# what is completed after an option: the branches of `case $prev in`
prev = bash[bash.index("case $prev in"):bash.index("esac", bash.index("case $prev in"))]
branches = {}  # option name -> the branch's action
for label, action in re.findall(r"^\s*([-a-z|]+)\)(.*?)(?=^\s*[-a-z|]+\)|\Z)", prev, re.M | re.S):
    for n in label.split("|"):
        branches[n] = action
takes_value = {}
for name, command in commands.items():
    for option in command["options"]:
        for n in names(option):
            if not n.startswith("-"):
                continue  # a positional
            takes_value.setdefault(n, set()).add(option.get("value", ""))
for n, values in sorted(takes_value.items()):
    with_value = {v for v in values if v}
    if not with_value:
        if n in branches:
            problems.append(f"{completion} completes a value after the flag {n}")
        continue
    if n not in branches:
        problems.append(f"{completion} does not complete the value of {n}")
        continue
    action = branches[n]
    offered = set()
    for words in re.findall(r'compgen -W "([^"$]*)"', action):
        offered |= set(words.split())
    wanted = set().union(*(keywords(v) for v in with_value))
    if offered != wanted:
        problems.append(f"{completion} offers {sorted(offered)} after {n}, expected "
                        f"{sorted(wanted)} (its value: {' or '.join(sorted(with_value))})")
    if any("FILE" in v or "DIR" in v for v in with_value) and not re.search(r"compgen -[fd]", action):
        problems.append(f"{completion} does not complete file names after {n}")
for n in sorted(set(branches) - set(takes_value)):
    problems.append(f"{completion} completes after {n}, which no command has")

for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print(f"ok: {sum(len(c['options']) for c in commands.values())} options of "
      f"{len(subcommands)} commands agree in --help, {man_page} and {completion}")

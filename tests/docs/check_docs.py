#!/usr/bin/env python3
"""The documentation says what the code does: checks on README.md and docs/*.md.

1. Every excerpt of output is real. A fenced block right after a line
   `<!-- excerpt: tests/golden/NAME -->` must appear in that golden file: its lines in
   order, each run of lines between `...` lines consecutive (trailing spaces ignored). The
   golden files are themselves compared with attn's output by the golden tests, so an
   excerpt that no longer matches what attn prints fails here.
2. Every relative link points to a file or folder that exists.
3. Every "`name()` in [path](path)" names a function that the file defines or declares.

Usage: check_docs.py REPO_ROOT [FILE.md ...]   (default: README.md and docs/*.md)
A self-test (--self-test) shows that each check can fail.
"""
import pathlib
import re
import sys

EXCERPT = re.compile(r"<!--\s*excerpt:\s*(\S+)\s*-->")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s#]+)(#[^)]*)?\)")
FUNCTION_IN = re.compile(r"`([A-Za-z_][A-Za-z_0-9:]*)\(\)`(?:[^`\[]{0,40}?)\bin \[[^\]]*\]\(([^)#]+)\)")


def blocks_after_markers(text):
    """(line number, golden path, block lines) for each marked fenced block."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = EXCERPT.search(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].strip() == "":
                j += 1
            if j >= len(lines) or not lines[j].startswith("```"):
                out.append((i + 1, m.group(1), None))
                i = j
                continue
            k = j + 1
            while k < len(lines) and not lines[k].startswith("```"):
                k += 1
            out.append((i + 1, m.group(1), lines[j + 1:k]))
            i = k + 1
            continue
        i += 1
    return out


def runs(block):
    """The block cut at `...` lines into runs of consecutive lines."""
    result, current = [], []
    for line in block:
        if line.strip() in ("...", "…"):
            if current:
                result.append(current)
            current = []
        else:
            current.append(line.rstrip())
    if current:
        result.append(current)
    return result


def excerpt_problem(block, golden_lines):
    """None if the block's runs appear in order in golden_lines, else a description."""
    at = 0
    for run in runs(block):
        found = -1
        for start in range(at, len(golden_lines) - len(run) + 1):
            if golden_lines[start:start + len(run)] == run:
                found = start
                break
        if found < 0:
            # the first line of the run that is not in the rest of the file, for the message
            for line in run:
                if line not in golden_lines[at:]:
                    return f"the line {line!r} is not in it (after line {at})"
            return f"the lines from {run[0]!r} are not consecutive there (after line {at})"
        at = found + len(run)
    return None


def check_file(root, path):
    problems = []
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(root)
    for line_no, golden, block in blocks_after_markers(text):
        where = f"{rel}:{line_no}"
        if block is None:
            problems.append(f"{where}: an excerpt marker not followed by a fenced block")
            continue
        gpath = root / golden
        if not gpath.is_file():
            problems.append(f"{where}: the excerpt's source {golden} does not exist")
            continue
        glines = [l.rstrip() for l in gpath.read_text(encoding="utf-8").split("\n")]
        problem = excerpt_problem(block, glines)
        if problem:
            problems.append(f"{where}: the excerpt does not match {golden}: {problem}")
    in_code = False
    for line_no, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:
            if not (path.parent / target).exists():
                problems.append(f"{rel}:{line_no}: the link {target} points to nothing")
        for m in FUNCTION_IN.finditer(line):
            name, target = m.group(1), m.group(2)
            source = path.parent / target
            if not source.is_file():
                continue  # reported as a link above
            short = name.split("::")[-1]
            code = source.read_text(encoding="utf-8", errors="replace")
            if not re.search(r"\b" + re.escape(short) + r"\s*\(", code):
                problems.append(f"{rel}:{line_no}: {name}() is not in {target}")
    return problems


def self_test():
    golden = ["a", "b", "c", "d", "e"]
    assert excerpt_problem(["a", "b"], golden) is None
    assert excerpt_problem(["a", "...", "d", "e"], golden) is None
    assert excerpt_problem(["a", "c"], golden) is not None  # not consecutive
    assert excerpt_problem(["d", "...", "a"], golden) is not None  # out of order
    assert excerpt_problem(["x"], golden) is not None
    text = "<!-- excerpt: g.txt -->\n```\na\n```\n"
    assert blocks_after_markers(text) == [(1, "g.txt", ["a"])]
    assert blocks_after_markers("<!-- excerpt: g.txt -->\ntext\n")[0][2] is None
    m = FUNCTION_IN.search("`tokenize()` in [src/core/tokenizer.cpp](../src/core/tokenizer.cpp)")
    assert m and m.group(1) == "tokenize" and m.group(2) == "../src/core/tokenizer.cpp"
    print("self-test: each check can fail")


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        self_test()
        return 0
    root = pathlib.Path(argv[1]).resolve()
    files = [pathlib.Path(a).resolve() for a in argv[2:]] or \
        [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    problems, excerpts = [], 0
    for f in files:
        excerpts += len(blocks_after_markers(f.read_text(encoding="utf-8")))
        problems += check_file(root, f)
    for p in problems:
        print(p)
    if problems:
        print(f"check_docs: {len(problems)} problems in {len(files)} files")
        return 1
    print(f"check_docs: {len(files)} files, {excerpts} excerpts match their golden files, "
          "every link and cited function exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

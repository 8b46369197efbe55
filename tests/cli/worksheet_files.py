"""attn worksheet from a model file, a Q, K, V file and in the column layout, and attn check
of its answers, end to end (docs/classroom.md, "Worksheets from a model").

- The worksheet, the key and the answers template of `--model by-hand-6x4 --arith hand
  --layout col` are the golden files worksheet-col-*.
- Round trip: the answers filled in from the numbers of `attn explain --json` (the row
  layout, transposed here for a col sheet) are all right (exit 0); one cell changed is named
  as the sheet shows it, with the right value (exit 1).
- The answers file is self-contained: a worksheet made from a copy of a model file is still
  checked, the same, after that copy is deleted, and after it is changed.

usage: worksheet_files.py ATTN GOLDEN_DIR   (ATTN_UPDATE_GOLDEN=1 rewrites the golden files)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ATTN, GOLDEN = sys.argv[1], sys.argv[2]
FILES = ["worksheet.md", "answer-key.md", "worksheet.html", "answer-key.html", "answers.json"]


def run(*args):
    return subprocess.run([ATTN, *args], capture_output=True, text=True)


def fail(what):
    print("FAIL:", what)
    sys.exit(1)


def worksheet(folder, *args):
    r = run("worksheet", *args, "-o", folder)
    if r.returncode != 0:
        fail(f"attn worksheet {' '.join(args)} exited {r.returncode}: {r.stderr}")


def right_values(explain_args):
    """Every step's values in the row layout, by id, from attn explain's JSON dump."""
    r = run("explain", *explain_args, "--json", "-", "--format", "none")
    if r.returncode != 0:
        fail(f"attn explain {explain_args} exited {r.returncode}: {r.stderr}")
    return {s["id"]: s["values"] for s in json.loads(r.stdout)["steps"]}


def cell(x):
    return "-inf" if x is None or x == float("-inf") or x == "-inf" else x


def fill(answers_path, values, col):
    """Fills every blank of the answers file with the right values, transposed for col."""
    with open(answers_path, encoding="utf-8") as f:
        sheet = json.load(f)
    for step in sheet["answers"]:
        m = values[step]
        if col:
            m = [list(r) for r in zip(*m)]
        sheet["answers"][step] = [[cell(x) for x in row] for row in m]
    with open(answers_path, "w", encoding="utf-8") as f:
        json.dump(sheet, f)
    return sheet


def check(answers_path, expect_rc, *needles):
    r = run("check", answers_path)
    if r.returncode != expect_rc:
        fail(f"attn check {answers_path} exited {r.returncode}, expected {expect_rc}:\n"
             f"{r.stdout}{r.stderr}")
    for n in needles:
        if n not in r.stdout:
            fail(f"attn check's report has no {n!r}:\n{r.stdout}")
    return r.stdout


with tempfile.TemporaryDirectory() as tmp:
    # the exercise of data/examples/by-hand-6x4.json, tokens as columns: golden files
    col = os.path.join(tmp, "col")
    worksheet(col, "--model", "by-hand-6x4", "--arith", "hand", "--layout", "col")
    for name in FILES:
        golden = os.path.join(GOLDEN, "worksheet-col-" + name)
        if os.environ.get("ATTN_UPDATE_GOLDEN") == "1":
            shutil.copyfile(os.path.join(col, name), golden)
        with open(golden, encoding="utf-8") as g, open(os.path.join(col, name),
                                                       encoding="utf-8") as w:
            if g.read() != w.read():
                fail(f"{name} differs from {golden} (diff -u {golden} {col}/{name})")
    with open(os.path.join(col, "answers.json"), encoding="utf-8") as f:
        template = json.load(f)
    if template["worksheet"]["layout"] != "col" or "model" not in template["worksheet"]:
        fail("the col answers template does not say its layout or keep the model's numbers")
    # Q is 3 × 4 as the col sheet shows it (rows q0..q2, one column per token)
    if len(template["answers"]["Q"]) != 3 or len(template["answers"]["Q"][0]) != 4:
        fail("the col template's Q is not d_k × T")

    values = right_values(["--model", "data/examples/by-hand-6x4.json", "--arith", "hand"])
    answers = os.path.join(col, "answers.json")
    sheet = fill(answers, values, col=True)
    n = sum(len(r) for m in sheet["answers"].values() for r in m)
    check(answers, 0, f"All {n} answers are right")

    # one wrong cell: row q0, column x2 of the col sheet is Q[x2][q0] of the row layout
    right = values["Q"][1][0]
    sheet["answers"]["Q"][0][1] = right + 5
    with open(answers, "w", encoding="utf-8") as f:
        json.dump(sheet, f)
    check(answers, 1, f"Q[q0, x2]: {right + 5:.4f}, expected {right:.4f}", "1 of 12 cells")

    # the row layout of the same model, made from a copy that is then deleted, then changed
    model = os.path.join(tmp, "model.json")
    shutil.copyfile("data/examples/by-hand-6x4.json", model)
    rows = os.path.join(tmp, "rows")
    worksheet(rows, "--model", model, "--arith", "exact", "--mask", "causal")
    values = right_values(["--model", model, "--arith", "exact", "--mask", "causal"])
    answers = os.path.join(rows, "answers.json")
    sheet = fill(answers, values, col=False)
    n = sum(len(r) for m in sheet["answers"].values() for r in m)
    os.remove(model)
    report = check(answers, 0, f"All {n} answers are right")
    with open(model, "w", encoding="utf-8") as f:
        f.write('{"embeddings": {"vectors": {"x1": [9, 9, 9, 9, 9, 9]}}, "weights": {}}')
    if check(answers, 0) != report:
        fail("attn check's report changed with a file the answers do not name")
    sheet["answers"]["weights"][2][0] = 0.9
    with open(answers, "w", encoding="utf-8") as f:
        json.dump(sheet, f)
    check(answers, 1, "weights[x3, x1]: 0.9000, expected")

    # Q, K and V given: the exercise starts at the scores
    qkv = os.path.join(tmp, "qkv")
    worksheet(qkv, "--qkv", "tests/inputs/good/qkv-equal-scores.json", "--layout", "col")
    answers = os.path.join(qkv, "answers.json")
    with open(answers, encoding="utf-8") as f:
        blank = list(json.load(f)["answers"])
    if blank[0] != "scores" or "Q" in blank:
        fail(f"the --qkv worksheet leaves {blank} blank, expected the steps from the scores on")
    values = right_values(["--qkv", "tests/inputs/good/qkv-equal-scores.json", "--arith", "hand"])
    sheet = fill(answers, values, col=True)
    n = sum(len(r) for m in sheet["answers"].values() for r in m)
    check(answers, 0, f"All {n} answers are right")

print("ok")

"""attn worksheet's arithmetic for numbers from a file (docs/classroom.md, "Worksheets from a
model"): the hand rules (⌊S / r⌋, 3^x) are meant for whole numbers.

- Without --arith, a --model or --qkv file whose scores are not whole numbers gets a sheet in
  exact arithmetic (√d_k, e^x), and one note on stderr says what was found, what was done and
  how to force the hand rules (golden: worksheet-qkv-exact-note.txt); its answers check
  right against attn explain's exact numbers.
- With an explicit --arith hand, such a sheet keeps the hand rules, warns on stderr, and has
  a caveat under the rules of every file (golden: worksheet-hand-caveat-*).
- A file of whole numbers keeps the hand rules without a word, and so does a seeded sheet
  (whose bytes the golden worksheet-* files hold).

usage: worksheet_arith.py ATTN GOLDEN_DIR   (run from the source tree; ATTN_UPDATE_GOLDEN=1
rewrites the golden files)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ATTN, GOLDEN = sys.argv[1], sys.argv[2]
FILES = ["worksheet.md", "answer-key.md", "worksheet.html", "answer-key.html", "answers.json"]
ENV = dict(os.environ, ATTN_DATA_DIR=os.path.abspath("data"))
CAVEAT = "Caution: the hand rules are meant for whole numbers, and these scores are not: "


def fail(what):
    print("FAIL:", what)
    sys.exit(1)


def run(*args):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, env=ENV)


def worksheet(folder, *args):
    """Runs attn worksheet into `folder`; returns its stderr without the "wrote" line."""
    r = run("worksheet", *args, "-o", folder)
    if r.returncode != 0:
        fail(f"attn worksheet {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return "".join(line for line in r.stderr.splitlines(keepends=True)
                   if not line.startswith("attn: wrote "))


def read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def arith_of(folder):
    return json.loads(read(folder, "answers.json"))["worksheet"]["arith"]


def golden(path, text):
    if os.environ.get("ATTN_UPDATE_GOLDEN") == "1":
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    with open(path, encoding="utf-8") as g:
        if g.read() != text:
            fail(f"differs from {path}:\n{text}")


def round_trip(folder, explain_args, col):
    """Fills the blanks with attn explain's numbers: attn check must find them all right."""
    r = run("explain", *explain_args, "--json", "-", "--format", "none")
    if r.returncode != 0:
        fail(f"attn explain {explain_args} exited {r.returncode}: {r.stderr}")
    values = {s["id"]: s["values"] for s in json.loads(r.stdout)["steps"]}
    path = os.path.join(folder, "answers.json")
    sheet = json.loads(read(folder, "answers.json"))
    for step in sheet["answers"]:
        m = values[step]
        sheet["answers"][step] = [list(row) for row in (zip(*m) if col else m)]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(sheet, f)
    r = run("check", path)
    if r.returncode != 0 or "answers are right" not in r.stdout:
        fail(f"attn check {path} exited {r.returncode}:\n{r.stdout}{r.stderr}")


with tempfile.TemporaryDirectory() as tmp:
    # Q, K and V between 0 and 1 (the teacher's ex5): exact by default, with the note
    qkv = os.path.join(tmp, "qkv")
    err = worksheet(qkv, "--qkv", "chapter-2x3-qkv", "--layout", "col")
    golden(os.path.join(GOLDEN, "worksheet-qkv-exact-note.txt"), err)
    if err.count("\n") != 1 or not err.startswith("attn: note: "):
        fail(f"expected one note on stderr, got:\n{err}")
    if arith_of(qkv) != "exact":
        fail(f"the --qkv sheet of fractions is {arith_of(qkv)}, expected exact")
    for name in FILES:
        text = read(qkv, name)
        if "⌊" in text or "Caution" in text:
            fail(f"the exact --qkv sheet's {name} speaks of the hand rules")
    if "Rules: S′ = S / √d_k" not in read(qkv, "worksheet.md"):
        fail("the exact --qkv worksheet does not give the exact rules")
    round_trip(qkv, ["--qkv", "data/examples/chapter-2x3-qkv.json"], col=True)

    # a model of fractions (the teacher's ex2): exact by default, with the note
    model = os.path.join(tmp, "model")
    err = worksheet(model, "--model", "this-is-book")
    for needle in ["attn: note: the scores from this-is-book.json are not whole numbers (",
                   "so the worksheet uses exact arithmetic (S / √3 and e^x), not the hand "
                   "rules (⌊S / 2⌋ and 3^x)", "--arith hand forces the hand rules"]:
        if needle not in err:
            fail(f"no {needle!r} in the note of --model this-is-book:\n{err}")
    if err.count("\n") != 1 or arith_of(model) != "exact":
        fail(f"--model this-is-book: arith {arith_of(model)}, stderr:\n{err}")
    round_trip(model, ["--model", "data/examples/this-is-book.json"], col=False)

    # --arith hand given: kept, with a warning and the caveat in every file
    hand = os.path.join(tmp, "hand")
    err = worksheet(hand, "--model", "this-is-book", "--arith", "hand")
    for needle in ["attn: warning: the scores from this-is-book.json are not whole numbers (",
                   "the hand rules of --arith hand are meant for whole numbers: ⌊S / 2⌋ drops "
                   "their fractions (here the 9 scaled scores take only the values -1 and 0), "
                   "so the hand weights are as much as ",
                   "--arith exact uses S / √3 and e^x"]:
        if needle not in err:
            fail(f"no {needle!r} in the warning of --arith hand:\n{err}")
    if err.count("\n") != 1 or arith_of(hand) != "hand":
        fail(f"--arith hand: arith {arith_of(hand)}, stderr:\n{err}")
    for name in FILES:
        if CAVEAT not in read(hand, name):
            fail(f"the --arith hand sheet's {name} has no caveat")
        golden(os.path.join(GOLDEN, "worksheet-hand-caveat-" + name), read(hand, name))
    round_trip(hand, ["--model", "data/examples/this-is-book.json", "--arith", "hand"],
               col=False)
    hand_qkv = os.path.join(tmp, "hand-qkv")
    err = worksheet(hand_qkv, "--qkv", "chapter-2x3-qkv", "--arith", "hand")
    if "(here all 4 scaled scores are 0)" not in err or arith_of(hand_qkv) != "hand":
        fail(f"--qkv chapter-2x3-qkv --arith hand: arith {arith_of(hand_qkv)}, stderr:\n{err}")

    # whole numbers, from a file or seeded: the hand rules, without a word or a caveat
    for name, args in [("whole", ["--model", "by-hand-6x4"]),
                       ("whole-qkv", ["--qkv", "tests/inputs/good/qkv-equal-scores.json"]),
                       ("seeded", ["This is book"]),
                       ("seeded-hand", ["This is book", "--arith", "hand"])]:
        folder = os.path.join(tmp, name)
        err = worksheet(folder, *args)
        if err or arith_of(folder) != "hand":
            fail(f"{args}: arith {arith_of(folder)}, stderr:\n{err}")
        if any(CAVEAT in read(folder, f) for f in FILES):
            fail(f"{args}: a sheet of whole numbers has the caveat")

print("ok")

"""--max-memory bounds the peak resident memory of a whole run (docs/hardening.md).

Runs attn on large inputs and for large outputs of every kind under a --max-memory and reads
each run's real peak resident memory from the kernel: peak_rss (tests/cli/peak_rss.cpp, a
small C++ program, so that attn does not inherit a large parent's peak at exec) runs attn and
reports wait4's rusage, ru_maxrss, as getrusage(RUSAGE_CHILDREN) would for that one child.

Each run must either succeed with a peak under the limit plus ALLOWANCE, or be refused (exit
2, an error naming --max-memory) before it takes the memory, also under that peak. The limit
counts from start-up: everything attn allocates (its options, the files read, the matrices,
the outputs' buffers) is in it. ALLOWANCE is what is not on the heap: the code and the
libraries' pages, the stacks; the first check below measures it.

Outputs larger than the peak show that they were written as they were made, never held.

usage: peak_memory.py ATTN PEAK_RSS
"""

import json
import os
import subprocess
import sys
import tempfile

ATTN = sys.argv[1]
PEAK_RSS = sys.argv[2]
MIB = 1 << 20
# What attn takes besides its heap: the smallest run peaks at 5.6-6.0 MiB in the debug build
# (of which 0.3 MiB is heap) and 4.5 MiB in the release build; the rest of the allowance is
# for the stacks of the worker threads and the pages of code a large run touches.
ALLOWANCE = 8 * MIB

failures = []


def run(args):
    """Runs attn with `args`; returns (exit code, stderr, peak resident bytes of attn)."""
    p = subprocess.run([PEAK_RSS, ATTN] + args, capture_output=True, check=True)
    code, peak = (int(x) for x in p.stdout.split())
    return code, p.stderr.decode("utf-8", "replace"), peak


def check(name, ok, detail):
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failures.append(name)


def expect(name, args, limit, outcome, needle="", larger_than_peak=None):
    """`outcome` is "ok" (exit 0) or "refused" (exit 2 with `needle` in the message).
    `larger_than_peak`: an output file that must be larger than the run's peak (it was
    written as it was made)."""
    code, err, peak = run(args + ["--max-memory", f"{limit // MIB}M"])
    detail = f"exit {code}, peak {peak / MIB:.1f} MiB, limit {limit // MIB} MiB + {ALLOWANCE // MIB} MiB"
    check(name + ": the peak stays under the limit", peak <= limit + ALLOWANCE, detail)
    if outcome == "ok":
        check(name + ": succeeds", code == 0, detail + ("" if code == 0 else "\n" + err))
    else:
        check(
            name + ": refused with the limit named",
            code == 2 and "--max-memory" in err and needle in err,
            f"exit {code}: {err.strip()[:400]}",
        )
    if larger_than_peak is not None:
        size = os.path.getsize(larger_than_peak) if os.path.exists(larger_than_peak) else 0
        check(name + ": the output is larger than the peak (never held whole)", size > peak,
              f"{os.path.basename(larger_than_peak)} {size / MIB:.1f} MiB, peak {peak / MIB:.1f} MiB")
    return code, err, peak


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def model(path, n_tokens, d_model):
    """A model file of n_tokens distinct tokens (the sentence) and d_model × d_model weights."""
    tokens = [f"t{i}" for i in range(n_tokens)]
    number = lambda i: f"{(i * 7919 % 2001 - 1000) / 1000:.6f}"
    vectors = ",".join(f'"{t}": [' + ",".join(number(i * d_model + j) for j in range(d_model)) + "]"
                       for i, t in enumerate(tokens))
    rows = lambda k: "[" + ",".join("[" + ",".join(number(k + r * d_model + c) for c in range(d_model))
                                    + "]" for r in range(d_model)) + "]"
    return write(path, '{"schema": "attn.model", "sentence": "' + " ".join(tokens) +
                 '", "embeddings": {"vectors": {' + vectors + '}}, "weights": {"W_Q": ' + rows(1) +
                 ', "W_K": ' + rows(2) + ', "W_V": ' + rows(3) + "}}")


with tempfile.TemporaryDirectory() as tmp:
    at = lambda name: os.path.join(tmp, name)

    # what attn takes besides the heap: the smallest run fits in the allowance
    code, err, peak = run(["explain", "a b", "--format", "none"])
    check("the binary alone fits in the allowance", code == 0 and peak < ALLOWANCE,
          f"exit {code}, peak {peak / MIB:.1f} MiB, allowance {ALLOWANCE // MIB} MiB")

    # ---- inputs
    # the first example: a 50 MB file of [], under --max-memory 10M, refused by its
    # size before it is read (it peaked at 2.9 GB)
    big = write(at("big.json"), "[" + "[]," * (50 * MIB // 3) + "[]]")
    expect("a 50 MB file of [], under --max-memory 10M", ["explain", "a", "--embeddings", big],
           10 * MIB, "refused", "big.json is 50.0 MiB")

    # a file within the limit whose values would take 50 times its size: the reader counts the
    # tree it builds and stops as soon as the limit would be passed, whichever reads it
    small = write(at("brackets.json"),
                  '{"vectors": {"a": [1]}, "x": [' + "[]," * (4 * MIB // 3) + "[]]}")
    for option in ["--embeddings", "--model", "--weights"]:
        expect(f"a 4 MB file of [], as {option} under --max-memory 24M",
               ["explain", "a", option, small], 24 * MIB, "refused", "brackets.json:1:")
    expect("the same file as --from", ["explain", "--from", small], 24 * MIB, "refused",
           "brackets.json:1:")
    sheet = write(at("sheet.json"), '{"schema": "attn.answers", "answers": {"x": [' +
                  "[]," * (4 * MIB // 3) + "[]]}}")
    expect("the same file as attn check's answers", ["check", sheet], 24 * MIB, "refused",
           "sheet.json:1:")
    # strings and keys count too
    keys = write(at("keys.json"), '{"vectors": {' +
                 ",".join(f'"k{i}": [{i}]' for i in range(400000)) + "}}")
    expect("400,000 keys of one number each under --max-memory 24M",
           ["explain", "k1 k2", "--embeddings", keys], 24 * MIB, "refused", "keys.json:1:")

    # one string of 20 MB: nlohmann's lexer holds it in a buffer of its own before attn's
    # reader sees it, so the reader stops the lexer as soon as the token would pass the limit
    # (it peaked at 73 MiB under 24M), in every reader; a string within the limit is read
    long_string = write(at("long-string.json"),
                        '{"description": "' + "a" * (20 * MIB) + '", "vectors": {"a": [1, 2]}}')
    for args, what in [(["explain", "a", "--embeddings", long_string], "--embeddings"),
                       (["explain", "--qkv", long_string], "--qkv"),
                       (["check", long_string], "attn check's answers")]:
        expect(f"a string of 20 MiB as {what} under --max-memory 24M", args, 24 * MIB, "refused",
               "long-string.json:1:17")
    expect("the same string under --max-memory 100M", ["explain", "a", "--embeddings",
                                                       long_string, "--format", "none"],
           100 * MIB, "ok")
    # a what-if computes the run twice and compares the two: counted before it starts (600
    # tokens peaked at 53 MiB under --max-memory 20M)
    words600 = " ".join(f"w{i}" for i in range(600))
    for change in ["W_Q[0,0]=1", "tokens[0]=hat"]:
        expect(f"--set {change} for 600 tokens under --max-memory 20M",
               ["explain", words600, "--set", change, "--format", "none"], 20 * MIB, "refused",
               "the what-if (--set)")
    expect("--set for 600 tokens under --max-memory 60M",
           ["explain", words600, "--set", "W_Q[0,0]=1", "--format", "none"], 60 * MIB, "ok")
    # a --target file counts too (it was read without a limit: 456 MiB under 8M)
    target = write(at("target.json"), '{"target": [' + ",".join(["[1]"] * 2000000) + "]}")
    expect("a --target file of 2,000,000 rows under --max-memory 24M",
           ["explain", "a b", "--target", target, "--backward"], 24 * MIB, "refused",
           "target.json:1:")

    # a large valid file within a limit that allows it is read: 20,000 vectors of 16
    vectors = write(at("vectors.json"), '{"vectors": {' + ",".join(
        f'"w{i}": [' + ",".join(f"{(i * 16 + j) % 997 / 997:.6f}" for j in range(16)) + "]"
        for i in range(20000)) + "}}")
    expect(f"a {os.path.getsize(vectors) / MIB:.1f} MiB embeddings file under --max-memory 24M",
           ["explain", "w1 w2 w3", "--embeddings", vectors, "--format", "none"], 24 * MIB, "ok")

    # one budget for the run: what the first file leaves (a model's embeddings and weights,
    # 285,000 numbers) counts against the second (weights of 388,800 numbers), each of which
    # alone is read and run within the limit
    first = model(at("model50.json"), 50, 300)
    rows = lambda k: "[" + ",".join("[" + ",".join(f"{(k + r + c) % 17 / 17:.6f}" for c in range(360))
                                    + "]" for r in range(360)) + "]"
    weights = write(at("weights.json"), '{"W_Q": ' + rows(1) + ', "W_K": ' + rows(2) +
                    ', "W_V": ' + rows(3) + "}")
    expect("a model file of 285,000 numbers alone under --max-memory 14M",
           ["explain", "--model", first, "--format", "none"], 14 * MIB, "ok")
    expect("a weights file of 388,800 numbers alone under --max-memory 14M",
           ["explain", "w1 w2", "--weights", weights, "--format", "none"], 14 * MIB, "ok")
    expect("the weights file read after the model file, under --max-memory 14M",
           ["explain", "--model", first, "--weights", weights, "--format", "none"], 14 * MIB,
           "refused", "weights.json:1:")

    # ---- outputs: every kind written as it is made
    sentence = " ".join(f"w{i}" for i in range(320))
    # (a page of more than 40 tokens draws its T x T steps as compact heatmaps, and any matrix
    # of more than 20,000 cells is one too, smaller than the tables they replace: the
    # tables.html case below is the page larger than the peak)
    for option, name in [("--html", "page.html"), ("--svg", "heat.svg")]:
        expect(f"{option} of 320 tokens under --max-memory 8M",
               ["explain", sentence, option, at(name), "--format", "none"], 8 * MIB, "ok",
               larger_than_peak=at(name) if option == "--svg" else None)
    expect("--json of 320 tokens under --max-memory 8M",
           ["explain", sentence, "--json", at("dump.json"), "--format", "none"], 8 * MIB, "ok")
    expect("--html - of 320 tokens under --max-memory 8M", ["explain", sentence, "--html", "-"],
           8 * MIB, "ok")
    # the walk-through as text, Markdown and LaTeX elides large matrices, so it grows with the
    # sentence, not its square; long tokens make it as large as it gets, and it is written a
    # step at a time
    long_tokens = " ".join(f"{i:03d}" + "x" * 200 for i in range(300))
    for fmt_name in ["text", "markdown", "latex"]:
        expect(f"--format {fmt_name} for 300 tokens of 204 letters",
               ["explain", long_tokens, "--format", fmt_name], 12 * MIB, "ok")

    # the third example: a 4 MB model to an HTML report (it peaked at 1 GB)
    four = model(at("model4.json"), 400, 300)
    expect(f"a {os.path.getsize(four) / MIB:.1f} MB model to an HTML report under "
           "--max-memory 32M", ["explain", "--model", four, "--html", at("model4.html"),
                                "--format", "none"], 32 * MIB, "ok")
    # a page of tables only (40 tokens, 140 x 140 weights: each matrix under 20,000 cells),
    # larger than the run's peak: written as it is made
    tables = model(at("tables.json"), 40, 140)
    expect("a page of tables under --max-memory 16M",
           ["explain", "--model", tables, "--html", at("tables.html"), "--format", "none"],
           16 * MIB, "ok", larger_than_peak=at("tables.html"))
    # the walk-through in each format, written to stdout a step at a time: within the limit
    # it is written; under a limit its matrices would pass it is refused before computing,
    # with the limit named, and nothing of it is printed
    for fmt_name in ["text", "markdown", "latex"]:
        expect(f"the same model as --format {fmt_name} under --max-memory 32M",
               ["explain", "--model", four, "--format", fmt_name], 32 * MIB, "ok")
        expect(f"the same model as --format {fmt_name} under --max-memory 20M",
               ["explain", "--model", four, "--format", fmt_name], 20 * MIB, "refused",
               "for its matrices")
        p = subprocess.run([ATTN, "explain", "--model", four, "--format", fmt_name,
                            "--max-memory", "20M"], capture_output=True)
        check(f"--format {fmt_name} refused: nothing on stdout, one error on stderr",
              p.returncode == 2 and p.stdout == b"" and p.stderr.count(b"attn: error:") == 1,
              f"exit {p.returncode}, stdout {len(p.stdout)} bytes, stderr {p.stderr[:200]!r}")
    expect("the same model under --max-memory 20M: refused before computing",
           ["explain", "--model", four, "--html", at("no4.html")], 20 * MIB, "refused",
           "for its matrices")
    check("nothing is written when refused", not os.path.exists(at("no4.html")), "")

    # --from: a dump is read within what the limit leaves, and verified as the run's dump is
    # written again (never held as text); its tree is read twice, once to replay and once to
    # compare, one after the other
    code, err, _ = run(["explain", "--model", four, "--json", at("model4-dump.json"),
                        "--format", "none"])
    dump_size = os.path.getsize(at("model4-dump.json"))
    limit = 4 * dump_size // MIB * MIB + 32 * MIB
    expect(f"--from a {dump_size / MIB:.1f} MiB dump under --max-memory {limit // MIB}M",
           ["explain", "--from", at("model4-dump.json"), "--format", "none"], limit, "ok")
    expect("the same dump under --max-memory 48M",
           ["explain", "--from", at("model4-dump.json"), "--format", "none"], 48 * MIB,
           "refused", "model4-dump.json:")

    # the second example: --html for 1,000 tokens under --max-memory 47M (it peaked
    # at 658 MiB; the whole page is 420 MiB, its attention weights alone, 140 MiB, keep the
    # test quicker), and under 20M a run whose matrices would not fit is refused at once
    sentence = " ".join(f"w{i}" for i in range(1000))
    expect("--html for 1,000 tokens under --max-memory 47M",
           ["explain", sentence, "--html", at("page1000.html"), "--steps", "weights", "--format",
            "none"], 47 * MIB, "ok")
    expect("--html for 1,000 tokens under --max-memory 20M",
           ["explain", sentence, "--html", at("no.html")], 20 * MIB, "refused", "needs about")
    check("nothing is written when refused", not os.path.exists(at("no.html")), "")

    # ---- attn worksheet: its tables grow with the square of the sentence and are written as
    # they are made; the answers template (a tree) is estimated and refused first
    # (the tables are smaller than the matrices they show; written whole, the largest, 13 MiB,
    # would take the peak past the limit)
    sentence = " ".join(f"w{i}" for i in range(600))
    expect("attn worksheet of 600 tokens, Q blank, under --max-memory 20M",
           ["worksheet", sentence, "--blank", "Q", "-o", at("ws")], 20 * MIB, "ok")
    sentence = " ".join(f"w{i}" for i in range(400))
    expect("attn worksheet of 400 tokens, every step blank, under --max-memory 12M",
           ["worksheet", sentence, "-o", at("ws2")], 12 * MIB, "refused",
           "the answers template (answers.json) needs about")
    check("nothing is written when refused", not os.path.exists(at("ws2/answers.json")), "")

    # ---- attn check: 270,000 answers, every one wrong, each listed in the report, which is
    # written a line at a time
    sentence = " ".join(f"w{i}" for i in range(300))
    subprocess.run([ATTN, "worksheet", sentence, "--blank", "scores,weights,output", "-o",
                    at("ws3")], check=True, capture_output=True)
    with open(at("ws3/answers.json")) as f:
        doc = json.load(f)
    for step, rows in doc["answers"].items():
        doc["answers"][step] = [[0.5 for _ in row] for row in rows]
    with open(at("ws3/filled.json"), "w") as f:
        json.dump(doc, f)
    code, err, peak = run(["check", at("ws3/filled.json"), "--max-memory", "64M"])
    with open(at("ws3/report.txt"), "wb") as f:
        f.write(subprocess.run([ATTN, "check", at("ws3/filled.json")],
                               capture_output=True).stdout)
    report = os.path.getsize(at("ws3/report.txt"))
    check("attn check of 270,000 wrong answers under --max-memory 64M",
          code == 1 and peak <= 64 * MIB + ALLOWANCE,
          f"exit {code}, peak {peak / MIB:.1f} MiB, report {report / MIB:.1f} MiB\n{err[:300]}")
    expect("the same answers under --max-memory 16M", ["check", at("ws3/filled.json")],
           16 * MIB, "refused", "checking these answers needs about")

    # ---- a GPT-2 checkpoint (safetensors, mapped): the file's pages count as resident memory
    # while they stay in, so attn gives each block's pages back once it is converted; a 73 MiB
    # checkpoint walked through all of its 6 layers peaked at 102 MiB before that
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "reference"))
    import make_gpt2_reference  # numpy only for make_large (the module imports torch too)
    make_gpt2_reference.make_large(at("ck"), n_embd=512, n_head=8, n_layer=6, n_ctx=64,
                                   vocab_size=512)
    size = os.path.getsize(at("ck/model.safetensors"))
    check("the checkpoint is larger than the limit and the allowance", size > 48 * MIB,
          f"{size / MIB:.1f} MiB")
    walk = ["explain", "He took the hat", "--checkpoint", at("ck"), "--layer", "6", "--head",
            "1", "--format", "none"]
    _, _, walk_peak = expect(
        f"a {size / MIB:.0f} MiB checkpoint walked to layer 6 under --max-memory 40M", walk,
        40 * MIB, "ok")
    # the estimate checked before the walk counts what the walk holds, not more: the MLP's
    # weights are multiplied from the mapping, so a limit just above the walk's own peak
    # is enough (it once counted them as doubles, 8 MiB more here, and refused such a limit)
    snug = (walk_peak // MIB + 1) * MIB
    expect(f"the same walk under --max-memory {snug // MIB}M, just above its peak", walk, snug,
           "ok")
    # its HTML page too: the page's worked arithmetic for every cell is written as it is made
    # (it was built whole first, 15 MB more here)
    _, _, html_peak = expect(f"the same walk's HTML page under --max-memory {snug // MIB}M",
                             walk + ["--html", at("ck.html")], snug, "ok")
    check("the HTML page adds at most 4 MiB to the walk's peak",
          html_peak <= walk_peak + 4 * MIB,
          f"{html_peak / MIB:.1f} MiB with the page, {walk_peak / MIB:.1f} MiB without")
    expect("the same walk under --max-memory 16M", walk, 16 * MIB, "refused",
           "this walk needs about")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)

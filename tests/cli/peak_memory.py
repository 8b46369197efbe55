"""--max-memory bounds the peak resident memory of a whole run (docs/hardening.md).

Runs attn on large inputs and for large outputs under a --max-memory and reads each run's
real peak resident memory from the kernel: peak_rss (tests/cli/peak_rss.cpp, a small C++
program, so that attn does not inherit a large parent's peak at exec) runs attn and reports
wait4's rusage, ru_maxrss, as getrusage(RUSAGE_CHILDREN) would for that one child.

Each run must either succeed with a peak under the limit plus ALLOWANCE, or be refused (exit
2, an error naming --max-memory) quickly, also under that peak. ALLOWANCE is what the binary
itself takes before it reads or computes anything (code, libraries, stack, the allocator's
arenas), measured by the first check below and documented in docs/hardening.md.

usage: peak_memory.py ATTN PEAK_RSS
"""

import os
import subprocess
import sys
import tempfile

ATTN = sys.argv[1]
PEAK_RSS = sys.argv[2]
MIB = 1 << 20
# What attn takes for itself before any input counts: measured (the smallest run, below) at
# 4.8-5.0 MiB in the debug build and 4.5 MiB in the release build; the allowance leaves room
# for the allocator's arenas and the pages of the C++ and fmt libraries a run touches.
ALLOWANCE = 16 * MIB

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


def expect(name, args, limit, outcome, needle=""):
    """`outcome` is "ok" (exit 0) or "refused" (exit 2 with `needle` in the message)."""
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


with tempfile.TemporaryDirectory() as tmp:
    # the allowance: the smallest run takes less than it
    code, err, peak = run(["explain", "a b", "--format", "none"])
    check("the binary alone fits in the allowance", code == 0 and peak < ALLOWANCE,
          f"exit {code}, peak {peak / MIB:.1f} MiB, allowance {ALLOWANCE // MIB} MiB")

    # 1. a file larger than the limit: refused by its size, before it is read
    big = os.path.join(tmp, "big.json")
    with open(big, "w") as f:
        f.write("[" + "[]," * (50 * MIB // 3) + "[]]")
    expect("a 50 MB file of [], under --max-memory 10M", ["explain", "a", "--embeddings", big],
           10 * MIB, "refused", "big.json is 50.0 MiB")

    # 2. a file within the limit whose values would take 50 times its size: the reader
    # counts the tree it builds and stops as soon as the limit would be passed
    small = os.path.join(tmp, "brackets.json")
    with open(small, "w") as f:
        f.write('{"vectors": {"a": [1]}, "x": [' + "[]," * (4 * MIB // 3) + "[]]}")
    expect("a 4 MB file of [], under --max-memory 24M", ["explain", "a", "--embeddings", small],
           24 * MIB, "refused", "brackets.json:1:")
    # the same file as a dump, a model, weights: every reader counts
    for option in ["--model", "--weights"]:
        expect(f"the same file as {option}", ["explain", "a", option, small], 24 * MIB, "refused",
               "brackets.json:1:")
    expect("the same file as --from", ["explain", "--from", small], 24 * MIB, "refused",
           "brackets.json:1:")
    # strings and keys count too
    keys = os.path.join(tmp, "keys.json")
    with open(keys, "w") as f:
        f.write('{"vectors": {' + ",".join(f'"k{i}": [{i}]' for i in range(400000)) + "}}")
    expect("400,000 keys of one number each under --max-memory 24M",
           ["explain", "k1 k2", "--embeddings", keys], 24 * MIB, "refused", "keys.json:1:")

    # 3. a large valid file within a limit that allows it is read: 20,000 vectors of 16
    vectors = os.path.join(tmp, "vectors.json")
    with open(vectors, "w") as f:
        f.write('{"vectors": {' + ",".join(
            f'"w{i}": [' + ",".join(f"{(i * 16 + j) % 997 / 997:.6f}" for j in range(16)) + "]"
            for i in range(20000)) + "}}")
    size = os.path.getsize(vectors)
    expect(f"a {size / MIB:.1f} MiB embeddings file under --max-memory 64M",
           ["explain", "w1 w2 w3", "--embeddings", vectors, "--format", "none"], 64 * MIB, "ok")

    # 4. large outputs: the HTML page and the SVG are written in pieces, never held whole
    sentence = " ".join(f"w{i}" for i in range(320))
    for option, name in [("--html", "page.html"), ("--svg", "heat.svg"), ("--json", "dump.json")]:
        # (the dump of 320 tokens is smaller than the binary: only its peak is checked)
        out = os.path.join(tmp, name)
        code, err, peak = run(["explain", sentence, option, out, "--format", "none",
                               "--max-memory", "8M"])
        size = os.path.getsize(out) if os.path.exists(out) else 0
        check(f"{option} of 320 tokens under --max-memory 8M",
              code == 0 and peak <= 8 * MIB + ALLOWANCE and (option == "--json" or size > peak),
              f"exit {code}, peak {peak / MIB:.1f} MiB, the file {size / MIB:.1f} MiB (larger "
              f"than the peak: it was never held whole)\n{err}")
        os.remove(out)
    code, err, peak = run(["explain", sentence, "--html", "-", "--max-memory", "8M"])
    check("--html - of 320 tokens under --max-memory 8M",
          code == 0 and peak <= 8 * MIB + ALLOWANCE, f"exit {code}, peak {peak / MIB:.1f} MiB")

    # the walk-through as text, Markdown and LaTeX is elided (the first and last rows and
    # columns of a large matrix): its size grows with the sentence, not with its square, so
    # it is built whole; long tokens make it as large as it gets
    sentence = " ".join(f"{i:03d}" + "x" * 200 for i in range(300))
    for fmt_name in ["text", "markdown", "latex"]:
        expect(f"--format {fmt_name} for 300 tokens of 204 letters",
               ["explain", sentence, "--format", fmt_name], 16 * MIB, "ok")

    # 5. the example, 1,000 tokens under --max-memory 47M (the whole page is 420 MiB;
    # its attention weights alone, 140 MiB, keep the test quicker)
    sentence = " ".join(f"w{i}" for i in range(1000))
    page = os.path.join(tmp, "page.html")
    expect("--html for 1,000 tokens under --max-memory 47M",
           ["explain", sentence, "--html", page, "--steps", "weights", "--format", "none"],
           47 * MIB, "ok")
    check("the page of 1,000 tokens is larger than the limit", os.path.getsize(page) > 47 * MIB,
          f"{os.path.getsize(page) / MIB:.1f} MiB")
    # and a run whose matrices would not fit is refused before they are made
    expect("--html for 1,000 tokens under --max-memory 20M",
           ["explain", sentence, "--html", os.path.join(tmp, "no.html")], 20 * MIB, "refused",
           "needs about")
    check("nothing is written when refused", not os.path.exists(os.path.join(tmp, "no.html")), "")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)

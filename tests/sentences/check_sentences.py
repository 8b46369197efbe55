#!/usr/bin/python3
"""Every sentence true: runs attn explain over combinations of --layout, --scale-by (and
--no-scale), --softmax-over, --mask, --positions, --heads and --arith, with --why on several
cells (and four runs with the tables at --precision 0 and 1, whose sentences, read-outs and
--why still quote four decimals: their arithmetic and --why are checked; and four at 10 and
15 decimals, checked as at 4), and checks what it
prints:

- every worked arithmetic line holds for the numbers it shows: a / b = c, ⌊a / b⌋ = c,
  e^(a − b) = c and 3^(a − b) = c, sums of products "= a·b + c·d ... = total", "X′ = a + b = c",
  "s = |q| · |k| · cos θ = a · b · c", "from V (S) to W" when divided by d_k exactly, and
  "stays V instead of falling to W" (each number within its printed precision: the check
  works on intervals, so rounding never fails it and a wrong digit does);
- a sum said to be 1 ("Each row sums to 1 (the Σ column)") is 1 in the Σ the table prints,
  and sums said not to be 1 ("sum to between 0.63 and 1.60, not 1", "not an average") are not;
- "close to 1" and "not close to 1" hold for the band the sentence states (25%), and so do
  "close to that" (their product) and "a · b = c";
- the read-outs under the output ("0.8400 of V[book] + 0.1600 of V[is]", the very digits of the
  weights table) and under the weights
  without scaling ("largest weight 0.87", "on average ... more peaked") quote the weights
  table beside them, and comparisons ("N times smaller", "more peaked", "differ by up to")
  hold for the numbers;
- in the column layout no sentence says "row" where a token's vector is a column (X's, the
  outputs', the positions', the mask's keys);
- --why explains the cell shown on screen: its value is the one the step's table prints at
  that row and column.

Also every lesson of tests/inputs/good/qkv-*.json (ties, saturated, tiny, subnormal and huge
numbers): its arithmetic, claims (products past a double's range in decimals) and digits.

With a GPT-2 checkpoint (CHECKPOINT, the committed tests/reference/gpt2/tiny-f32), also its
walk at each layer, with every head and with --head 1, and --why on three cells of every step
that has a matrix: the sums, LayerNorm's mean, variance and output, the residual stream's
additions and the ratios of the layers below are checked as above.

usage: check_sentences.py ATTN [CHECKPOINT]
       (Debian's python3; no modules beyond the standard library)
"""

import glob
import itertools
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal, getcontext

ATTN = sys.argv[1]
CHECKPOINT = sys.argv[2] if len(sys.argv) > 2 else None
getcontext().prec = 60
NUM = r"[−-]?\d+(?:\.\d+)?(?:e[+-]\d+)?"
failures = []
checked = {"written once": 0, "significant": 0, "arithmetic": 0, "sums": 0, "columns": 0, "why": 0, "favourites": 0, "claims": 0,
           "readouts": 0}


def value(text):
    """A printed number and its uncertainty: half a unit of its last decimal; none for a whole
    number, which attn prints without decimals only when it is exactly whole."""
    text = text.replace("−", "-")
    mantissa, _, exponent = text.partition("e")  # 2.0596e-07: numbers too small for decimals
    scale = 10.0 ** int(exponent) if exponent else 1.0
    if "." not in mantissa:
        return float(text), 0.0
    return float(text), 0.5 * 10.0 ** (-len(mantissa.split(".")[1])) * scale


# Strict: the worked arithmetic of --why, whose operands attn shows with as many decimals as
# it takes for the result shown to follow from them as shown (a reader with a calculator gets
# the very digits), so its operands are read as exact numbers, not as rounded ones.
STRICT = False


def interval(text):
    x, d = value(text)
    if STRICT:
        return (x, x)
    return (x - d, x + d)


def exact(text):
    """A factor the walk-through shows with the decimals that make the product shown follow
    from it as shown: read as the exact number it is, in every mode."""
    x, _ = value(text)
    return (x, x)


def mul(a, b):
    ps = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return (min(ps), max(ps))


def add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def div(a, b):
    if b[0] <= 0 <= b[1]:
        return (-math.inf, math.inf)
    return mul(a, (1 / b[1], 1 / b[0]))


def fail(where, what):
    failures.append(f"{where}: {what}")


def holds(where, line, got, claimed, slack=1e-9):
    """`got` is an interval; the printed `claimed` number must be inside it (widened by its own
    rounding)."""
    checked["arithmetic"] += 1
    x, d = value(claimed)
    c = (x - d, x + d)
    lo = got[0] - slack * max(1.0, abs(got[0]))
    hi = got[1] + slack * max(1.0, abs(got[1]))
    if c[1] < lo or c[0] > hi:
        fail(where, f"false arithmetic: {line.strip()!r} (the left side is {got[0]:.6g}..{got[1]:.6g})")


def joined(text):
    """The text with wrapped sentences joined: a line that does not start a new item continues
    the one before."""
    out = []
    for line in text.split("\n"):
        stripped = line.strip()
        starts = (not out or not stripped or line.startswith(("━━", "==", "  ", "│")) or
                  re.match(r"^\s*(=|\+|[A-Za-z0-9_']+ +│|Σ|shade|weight)", line) or
                  not out[-1].strip() or out[-1].rstrip().endswith((".", ":", "?")))
        if starts:
            out.append(line)
        else:
            out[-1] = out[-1].rstrip() + " " + stripped
    return "\n".join(out)


def check_reused(where, total, after):
    """A worked sum's total comes back in the lines after it (a quotient, a difference) as the
    sum shows it, not with more decimals: a reader would be given two values for one number
    (the sum's '= 3.1980', then '− 3.19798')."""
    if "." not in total or "e" in total:
        return
    d = len(total.split(".")[1])
    x = float(total.replace("−", "-"))
    if x == 0.0:
        return
    for line in after:
        for n in re.findall(NUM, line):
            if "." in n and "e" not in n and len(n.split(".")[1]) > d:
                if f"{float(n.replace('−', '-')):.{d}f}" == f"{x:.{d}f}":
                    fail(where, f"the sum's total {total} comes back as {n}: {line.strip()!r}")


def check_arithmetic(where, text, strict=False):
    global STRICT
    STRICT = strict
    try:
        check_arithmetic_lines(where, text)
    finally:
        STRICT = False


def check_arithmetic_lines(where, text):
    flat = joined(text)
    for line in flat.split("\n"):
        # ⌊a / b⌋ = c
        for m in re.finditer(rf"⌊({NUM}) / ({NUM})⌋ = ({NUM})", line):
            q = div(interval(m[1]), interval(m[2]))
            holds(where, line, (math.floor(q[0]), math.floor(q[1])), m[3])
        # a / b = c (not inside ⌊ ⌋, not a fraction of the by-hand table)
        for m in re.finditer(rf"(?<![⌊\d./])({NUM}) / ({NUM}) = ({NUM})(?![\d/])", line):
            holds(where, line, div(interval(m[1]), interval(m[2])), m[3])
        # e^(a − b) = c and 3^(a − b) = c
        for m in re.finditer(rf"\b(e|3)\^\(({NUM}) − \(?({NUM})\)?\) = ({NUM})", line):
            a, b = interval(m[2]), interval(m[3])
            lo, hi = a[0] - b[1], a[1] - b[0]
            if m[1] == "e":
                got = (math.exp(lo), math.exp(hi))
            else:
                got = (3.0 ** lo, 3.0 ** hi)
            holds(where, line, got, m[4])
        # s = |q| · |k| · cos θ = a · b · c
        for m in re.finditer(rf"({NUM}) = \|q\| · \|k\| · cos.θ = ({NUM}) · ({NUM}) · ({NUM})", line):
            got = mul(mul(exact(m[2]), exact(m[3])), exact(m[4]))
            holds(where, line, got, m[1])
        # X′[r, c] = X[r, c] + P[r, c] = a + b = c (b in brackets when negative)
        for m in re.finditer(rf"= ({NUM}) \+ \(?({NUM})\)? = ({NUM})\.", line):
            holds(where, line, add(interval(m[1]), interval(m[2])), m[3])
        # a difference: "changed this number by a − b = c"
        for m in re.finditer(rf"by ({NUM}) − \(?({NUM})\)? = ({NUM})\.", line):
            a, b = interval(m[1]), interval(m[2])
            holds(where, line, (a[0] - b[1], a[1] - b[0]), m[3])

    # a layer's change against the vector it left: "has length a, so the change is r times"
    m = re.search(rf"Why is Δ\[[^\]]+\] = ({NUM})\?.*?has length ({NUM}), so the change is "
                  rf"({NUM}) times", flat, re.S)
    if m:
        holds(where, m[0], div(interval(m[1]), interval(m[2])), m[3])
    elif "Why is Δ[" in text:
        fail(where, "the change of a layer below is not compared with the vector it left")
    # LayerNorm's output, three lines: (h − μ) / √(σ² + ε) · γ + β, its parts, the value
    m = re.search(rf"  = \(({NUM}) − \(?({NUM})\)?\) / √\(({NUM}) \+ ({NUM})\) · \(?({NUM})\)? \+ "
                  rf"\(?({NUM})\)?\n  = ({NUM}) / ({NUM}) · \(?({NUM})\)? \+ \(?({NUM})\)?\n  = ({NUM})\n",
                  text)
    if m:
        h, mu, var, eps = interval(m[1]), interval(m[2]), interval(m[3]), interval(m[4])
        holds(where, m[0], (h[0] - mu[1], h[1] - mu[0]), m[7])
        root = add(var, eps)
        holds(where, m[0], (math.sqrt(max(root[0], 0.0)), math.sqrt(root[1])), m[8])
        got = add(mul(div(interval(m[7]), interval(m[8])), interval(m[9])), interval(m[10]))
        holds(where, m[0], got, m[11])
    elif "√(σ²" in text and "Why is X[" in text:
        fail(where, "LayerNorm's worked arithmetic is not in the form the checker reads")
    for line in flat.split("\n"):
        # divided by d_k (or d_model) exactly: from V (S) to W (S′)
        m = re.search(rf"Here (d_k|d_model) = (\d+).*?by \1 exactly: from ({NUM}) \(S[_\d]*\) to ({NUM})", line)
        if m:
            holds(where, line, div(interval(m[3]), (int(m[2]), int(m[2]))), m[4])
        m = re.search(rf"Here d_k = (\d+): scaling would divide.*?stays ({NUM}) instead of falling to ({NUM})(?![\d.])(?!, the variance of ⌊)", line)
        if m:
            holds(where, line, div(interval(m[2]), (int(m[1]), int(m[1]))), m[3])
        # 3^(s/2) = e^(0.549·s) and e^(s/√3) = e^(0.577·s)
        m = re.search(rf"3\^\(s/(\d+)\) = e\^\(({NUM})·s\) where the exact rule uses e\^\(s/√\w+\) = e\^\(({NUM})·s\)", line)
        if m:
            holds(where, line, (math.log(3) / int(m[1]),) * 2, m[2])
    # the worked sums of --why: "  = t + t + ..." lines then "  = total"
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("  = ") and not re.fullmatch(rf"  = {NUM}", lines[i]):
            terms = lines[i][4:]
            j = i + 1
            while j < len(lines) and lines[j].startswith("    "):
                terms += " " + lines[j].strip()
                j += 1
            if j < len(lines) and re.fullmatch(rf"  = {NUM}", lines[j]):
                total = lines[j][4:]
                # a sum of products; LayerNorm's "a / b · γ + β" is checked above
                if "more terms" not in terms and " / " not in terms:
                    got = (0.0, 0.0)
                    for term in re.split(r" \+ ", terms):
                        term = re.sub(r" \[[^\]]*\]$", "", term.strip())
                        term = re.sub(r" \(the bias \w+\)$", "", term)
                        squared = re.fullmatch(rf"\(({NUM}) − \(?({NUM})\)?\)²", term)
                        if squared:  # a variance's term: (h − μ)²
                            a, b = interval(squared[1]), interval(squared[2])
                            lo, hi = a[0] - b[1], a[1] - b[0]
                            low = 0.0 if lo <= 0.0 <= hi else min(lo * lo, hi * hi)
                            got = add(got, (low, max(lo * lo, hi * hi)))
                            continue
                        factors = [f.strip("()") for f in term.split("·")]
                        piece = (1.0, 1.0)
                        for f in factors:
                            piece = mul(piece, interval(f))
                        got = add(got, piece)
                    holds(where, terms, got, total)
                if STRICT:
                    check_reused(where, total, lines[j + 1:j + 4])
                i = j
        i += 1


def sums_table(text, start):
    """The Σ numbers of the attention table after position `start` (a column or a row)."""
    sums = []
    lines = text[start:].split("\n")
    for k, line in enumerate(lines):
        if line.startswith("━━") and k > 0:
            break
        if re.match(r"^\s+Σ\s+│", line):  # the Σ row of the column layout
            sums += re.findall(NUM, line.split("│", 1)[1])
        elif "│" in line and line.count("│") >= 2 and re.match(r"^\s+\S", line):
            tail = line.rsplit("│", 1)[1].strip()
            if re.fullmatch(NUM, tail):
                sums.append(tail)
    return sums


def check_sums(where, text):
    for m in re.finditer(r"Each (row|column) sums to 1 \(the Σ (column|row)\)", text):
        checked["sums"] += 1
        heading = text.rfind("━━", 0, m.start())
        heading = text.rfind("\n", 0, heading) + 1
        sums = sums_table(text, heading)
        if not sums:
            fail(where, f"'{m[0]}' but no Σ printed")
        for s in sums:
            if abs(float(s.replace("−", "-")) - 1.0) > 1e-4:
                fail(where, f"'{m[0]}' but a sum is {s}")


def weights_table(text, end, cols):
    """The attention table printed before position `end`: a list of (query label, weights),
    one per query, in order (in the column layout the queries are the table's columns)."""
    start = text.rfind("━━", 0, end)
    header, rows = None, []
    for line in text[start:end].split("\n"):
        if "│" not in line or line.strip().startswith("─"):
            continue
        left, right = line.split("│", 1)
        cells = [c.rstrip("█▓▒░") for c in right.replace("│", " ").split()]
        if not left.strip():
            header = cells[:cells.index("Σ")] if "Σ" in cells else cells
        elif left.strip() != "Σ":
            rows.append((left.strip(), [float(c.replace("−", "-")) for c in cells[:len(header)]]))
    if cols:  # columns are queries
        return [(q, [r[1][j] for r in rows]) for j, q in enumerate(header)]
    return rows


def check_favourites(where, text, cols):
    """'Each query's largest weight: 'a' → 'b' (0.5), ...; no token attends most to itself.'"""
    flat = joined(text)
    for m in re.finditer(r"Each query's largest weight: (.+?); (.+?)\.(?:\n|$)", flat, re.S):
        checked["favourites"] += 1
        table = weights_table(text, text.find("Each query's largest weight", m.start() - 200
                                              if m.start() > 200 else 0), cols)
        # "'a' → 'b' (0.445810, just above itself at 0.445807)": a runner-up that prints as
        # the largest at four decimals, both written with the decimals that tell them apart
        items = re.findall(r"'([^']+)'(?: at \d+)? → (.+?) \(([0-9.]+)((?:, just above (?:itself|'[^']+'(?: at \d+)?) at [0-9.]+)?)\)(?:, |$)", m[1])
        if len(items) != len(table):
            fail(where, f"{len(items)} queries in {m[0][:60]!r}, {len(table)} in the table")
            continue
        alone = 0
        tied = 0  # rows whose largest weight is shared by itself and other keys
        for i, ((query, keys, w, above), (label, weights)) in enumerate(zip(items, table)):
            others_top = [j for j, x in enumerate(weights) if abs(x - max(weights)) <= 1e-4]
            if above:
                # not a tie: the largest and the runner-up differ, in the digits shown
                second = re.search(rf"at ({NUM})$", above)[1]
                if float(second) >= float(w) or abs(float(w) - float(second)) > 1e-4:
                    fail(where, f"{query} → {keys} ({w}{above}): not a near tie")
                others_top = [j for j in others_top if j != i or keys == "itself"]
            if i in others_top and len(others_top) > 1:
                tied += 1
            top = max(weights)
            if query != label or abs(float(w) - top) > 1e-4:
                fail(where, f"{query} → {keys} ({w}) but the table's row {label} peaks at {top}")
            named = re.findall(r"'([^']+)'(?: at (\d+))?|(itself)", keys)
            if keys.startswith("both "):  # two copies of one token, both with the top weight
                copies = [j for j, (lab, _) in enumerate(table) if f"'{lab}'" == keys[5:]]
                if len(copies) < 2 or any(abs(weights[j] - top) > 1e-4 for j in copies[:2]):
                    fail(where, f"{query} → {keys} but those weights are not both {top}")
                continue
            many = re.match(r"(\d+) keys equally", keys)
            if many:
                if sum(abs(x - top) <= 1e-4 for x in weights) < int(many[1]):
                    fail(where, f"{query}: {keys} but fewer keys have {top}")
                continue
            labels = [lab for lab, _ in table]
            for key, at, itself in named:
                j = i if itself else int(at) if at else labels.index(key)
                if abs(weights[j] - top) > 1e-4:
                    fail(where, f"{query} → {key or 'itself'} but that weight is {weights[j]}")
            if [k for k in named] == [("", "", "itself")]:
                alone += 1
        verdict = m[2]
        expected = ("every token attends most to itself" if alone == len(items) else
                    "no token attends most to itself" if alone == 0 else
                    f"{alone} of the {len(items)} tokens attend")
        if not verdict.startswith(expected.split(" attend")[0]) or (
                alone not in (0, len(items)) and not verdict.startswith(f"{alone} of")):
            fail(where, f"the verdict {verdict!r}, but {alone} of {len(items)} attend to themselves")
        if alone == 0 and tied > 0 and "most to itself" in verdict:
            fail(where, f"{verdict!r}, but {tied} tie themselves for the largest weight")
        if tied > 0 and not re.search(rf"\b{tied} tie", verdict):
            fail(where, f"the verdict {verdict!r} does not say that {tied} tie themselves")
        if tied == 0 and " tie" in verdict:
            fail(where, f"the verdict {verdict!r} speaks of ties, but no row has one with itself")


def near(x, target, band):
    """Whether the printed x (an interval) may be within `band` of target (relative), and
    whether it may be outside: (can_be_in, can_be_out)."""
    lo, hi = interval(x)
    t = abs(target) * band
    return (hi >= target - t and lo <= target + t), (lo < target - t or hi > target + t)


def check_claims(where, text):
    """Claims about closeness, products and comparisons, from the numbers in the sentence."""
    flat = joined(text)
    for line in flat.split("\n"):
        # "from 7.4438 (S) to 2.4813 (S′), which is not close to 1 (more than 25% away from it)"
        m = re.search(rf"to ({NUM}) \(S′[_\d]*\), (?:which is )?(not )?close to 1 \((?:within|more than) (\d+)%", line)
        if m:
            checked["claims"] += 1
            can_in, can_out = near(m[1], 1.0, int(m[3]) / 100)
            if (m[2] and not can_out) or (not m[2] and not can_in):
                fail(where, f"'{'not ' if m[2] else ''}close to 1' but S′'s variance is {m[1]}: {line.strip()[:120]!r}")
        # "their product, 1.1634 · 0.8608 = 1.0015, and 2.4813 is close to that (within 25%)"
        m = re.search(rf"product, ({NUM}) · ({NUM}) = ({NUM})(?:, and ({NUM}) is close to that \(within (\d+)%\)|\. ({NUM}) is not close to that)", line)
        if m:
            checked["claims"] += 1
            if "e" in m[1] + m[2] + m[3]:
                # 2.765833e-322 · 1.768056e-322 = 4.8901e-644: past a float's range, in decimals
                product = Decimal(m[1]) * Decimal(m[2])
                if product.quantize(Decimal(m[3])) != Decimal(m[3]):
                    fail(where, f"{m[1]} · {m[2]} is {product:.6e}, not {m[3]}: {line.strip()[:120]!r}")
                continue
            holds(where, line, mul(exact(m[1]), exact(m[2])), m[3])
            target = value(m[3])[0]
            if m[4]:
                if not near(m[4], target, int(m[5]) / 100)[0]:
                    fail(where, f"{m[4]} 'close to' {m[3]}: {line.strip()[:120]!r}")
            elif not near(m[6], target, 0.25)[1]:
                fail(where, f"{m[6]} 'not close to' {m[3]}: {line.strip()[:120]!r}")
        # by hand: "stays 3.3333 instead of falling to 0.8889, the variance of ⌊S / 2⌋", from
        # the whole scores of the table
        m = re.search(rf"stays ({NUM}) instead of falling to ({NUM}), the variance of ⌊S / (\d+)⌋", line)
        if m:
            scores = table_numbers(text, "Scores S")
            if scores and all(x == round(x) for x in scores):
                checked["claims"] += 1
                floors = [math.floor(x / int(m[3])) for x in scores]
                for got, claimed in ((pvariance(scores), m[1]), (pvariance(floors), m[2])):
                    holds(where, line, (got, got), claimed)
        # "Dividing by √d_k = 1.7321 instead ... the scores here are 1.2910 times smaller"
        m = re.search(rf"Here d_model = (\d+).*?√d_k = ({NUM}) instead.*?are ({NUM}) times (smaller|larger) than", line)
        if m:
            checked["claims"] += 1
            d_model, sqrt_d_k = int(m[1]), value(m[2])[0]
            ratio = math.sqrt(d_model) / sqrt_d_k
            holds(where, line, (max(ratio, 1 / ratio) * (1 - 1e-4), max(ratio, 1 / ratio) * (1 + 1e-4)), m[3])
            if (m[4] == "smaller") != (ratio > 1):
                fail(where, f"'{m[4]}', but √d_model / √d_k = {ratio:.4f}: {line.strip()[:120]!r}")


def pvariance(xs):
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / len(xs)


def table_numbers(text, title):
    """Every number of the first table whose heading has `title` (e.g. "Scores S")."""
    m = re.search(rf"━━ [^\n]*{re.escape(title)}\b[^\n]*\n", text)
    if not m:
        return []
    end = text.find("\n━━", m.end())
    numbers = []
    for line in text[m.end():end if end != -1 else len(text)].split("\n"):
        if "│" in line and line.split("│", 1)[0].strip():
            numbers += [value(x)[0] for x in re.findall(NUM, line.split("│", 1)[1])]
    return numbers


def weights_tables(text):
    """Every attention-weights table of the text: (heading line, start of the table's step)."""
    return [(m.group(0), m.start()) for m in re.finditer(r"━━ [^\n]*?(Attention weights|The right weights)[^\n]*", text)]


def table_before(text, pos, cols, right=False):
    """The (right, when asked) weights table of the step before `pos`, as in weights_table."""
    best = None
    for heading, start in weights_tables(text):
        if start < pos and (("right weights" in heading) == right):
            best = start
    if best is None:
        return None
    nxt = text.find("\n━━", best + 3)
    return weights_table(text, nxt if nxt != -1 else len(text), cols)


def check_readouts(where, text, cols, precision=4):
    """'The new vector for 'is' is 0.7600 of V[This] + 0.1600 of V[is] + 0.0800 of V[book].' against
    the weights table, and the --no-scale table of largest weights."""
    flat = joined(text)
    cursor = 0  # the matches of `flat` are in the order of `text`: each found after the last
    for m in re.finditer(r"[Tt]he new vector for '([^']+)'(?: \(token (\d+)\))? is (.+?)\.(?:\n|$)", flat):
        pos = text.find(f"new vector for '{m[1]}'", cursor)
        cursor = pos + 1
        table = table_before(text, pos, cols)
        if not table:
            continue
        checked["readouts"] += 1
        labels = [lab for lab, _ in table]
        row = int(m[2]) if m[2] else labels.index(m[1])
        weights = table[row][1]
        if m[3].startswith("all zeros"):
            if any(w != 0 for w in weights):
                fail(where, f"{m[0]!r} but the row is {weights}")
            continue
        named = re.findall(rf"({NUM}) of V\[([^\]#]+)(?:#(\d+))?\]", m[3])
        shown = set()
        for w, key, at in named:
            j = int(at) if at else labels.index(key)
            shown.add(j)
            # written at the table's precision, the same digits the table shows (sentences
            # quote at least four decimals: with --precision 0 or 1, within the table's rounding)
            if abs(float(w) - weights[j]) > (1e-12 if precision >= 2 else 0.5 * 10 ** -precision + 0.005):
                fail(where, f"{m[0][:80]!r}: {w} of V[{key}], but the table has {weights[j]}")
        # the weights not named: those the table prints as 0.0000 may be masked (0) or tiny
        others = [weights[j] for j in range(len(weights)) if j not in shown]
        rest = [w for w in others if w != 0]
        if any(r > min(float(w) for w, _, _ in named) + (1e-12 if precision >= 2 else 10 ** -precision)
               for r in rest):
            fail(where, f"{m[0][:80]!r} leaves out a weight larger than those it names")
        sp = re.search(rf"\+ ({NUM}) spread over the other (\d+) tokens", m[3])
        if sp:
            if not len(rest) <= int(sp[2]) <= len(others) or \
                    abs(float(sp[1]) - sum(rest)) > 0.5 * 10 ** -min(precision, 4) * (len(others) + 1):
                fail(where, f"{m[0][:80]!r}: the rest is {sum(rest):.4f} over {len(rest)} to "
                            f"{len(others)} tokens")
        elif rest:
            fail(where, f"{m[0][:80]!r} leaves out {len(rest)} weights")
    # --no-scale: "  'This': largest weight 0.87 (entropy 0.46); with scaling 0.60 (entropy 0.95)",
    # one block per head, under its weights; the right weights (scaled) follow as step 7′
    for intro in re.finditer(r"Without scaling, how peaked each query's weights are", text):
        block = text[intro.start():]
        block = block[:block.find("\n━━") if "\n━━" in block else len(block)]
        rows = re.findall(rf"^  '([^']+)': largest weight ({NUM}) \(entropy ({NUM})\); with scaling ({NUM}) \(entropy ({NUM})\)", block, re.M)
        table = table_before(text, intro.start(), cols)
        after = [st for h, st in weights_tables(text) if st > intro.start() and "right" in h]
        right = table_before(text, after[0] + 1, cols, right=True) if after else None
        for i, (tok, top, ent, stop, sent) in enumerate(rows):
            checked["readouts"] += 1
            for got_table, t, e, name in ((table, top, ent, "without"), (right, stop, sent, "with")):
                if not got_table or i >= len(got_table):
                    fail(where, f"no weights table for '{tok}' {name} scaling")
                    continue
                ws = got_table[i][1]
                entropy = -sum(w * math.log(w) for w in ws if w > 0)
                if abs(float(t) - max(ws)) > 0.005 + 1e-4 or abs(float(e) - entropy) > 0.005 + 0.003 * len(ws):
                    fail(where, f"'{tok}' {name} scaling: largest {t} (entropy {e}), the table gives "
                                f"{max(ws):.4f} ({entropy:.4f})")
        m = re.search(rf"On average(?: \(over the (\d+) queries that have weights\))? the largest weight is ({NUM}) without scaling and ({NUM}) with it: (.{{0,60}})", joined(block))
        if m:
            checked["readouts"] += 1
            a, b, said = float(m[2]), float(m[3]), m[4]
            tops = [float(t) for _, t, _, _, _ in rows if float(t) > 0]
            if len(tops) == len(rows) and tops and abs(sum(tops) / len(tops) - a) > 0.0101:
                fail(where, f"average largest weight {a}, the lines above give {sum(tops) / len(tops):.4f}")
            if said.startswith("without scaling the weights are more peaked") and not a > b:
                fail(where, f"'more peaked' without scaling, but {a} ≤ {b}")
            if said.startswith("here scaling makes them more peaked") and not a < b:
                fail(where, f"scaling 'more peaked', but {a} ≥ {b}")
            if said.startswith("the same") and a != b:
                fail(where, f"'the same', but {a} and {b}")


def check_weight_sums(where, text):
    """Sums said not to be 1: 'a query's weights sum to between X and Y, not 1', 'each query's
    weights sum to X instead of 1', 'not an average: these weights do not sum to 1'; and 'differ
    from these by up to X' between the weights and the right ones."""
    flat = joined(text)
    cursor = 0
    for m in re.finditer(rf"weights sum to (?:between ({NUM}) and ({NUM})|({NUM}))(?:, not 1| instead of 1)", flat):
        checked["sums"] += 1
        pos = text.find("What went wrong", cursor)
        cursor = pos + 1
        heading = text.rfind("━━", 0, pos)
        sums = [float(x.replace("−", "-")) for x in sums_table(text, text.rfind("\n", 0, heading) + 1)]
        if not sums:
            continue
        lo, hi = (float(m[1]), float(m[2])) if m[1] else (float(m[3]), float(m[3]))
        if abs(min(sums) - lo) > 1e-4 or abs(max(sums) - hi) > 1e-4:
            fail(where, f"{m[0]!r}, but the Σ printed run from {min(sums)} to {max(sums)}")
    if "these weights do not sum to 1" in flat:
        checked["sums"] += 1
        pos = text.find("these weights do not sum to 1")
        heading = [st for h, st in weights_tables(text) if st < pos and "right" not in h]
        if heading:
            sums = [float(x.replace("−", "-")) for x in sums_table(text, heading[-1])]
            if sums and all(abs(x - 1) <= 1e-4 for x in sums):
                fail(where, "'these weights do not sum to 1', but every Σ printed is 1")
    m = re.search(rf"The weights computed above differ from these by up to ({NUM})", flat)
    if m:
        checked["claims"] += 1
        cols = False
        pos = text.find("The weights computed above")
        mine = table_before(text, pos, cols)
        right = table_before(text, pos, cols, right=True)  # the step this sentence is under
        if mine and right and len(mine) == len(right):
            diff = max(abs(a - b) for (_, r1), (_, r2) in zip(mine, right) for a, b in zip(r1, r2))
            if abs(diff - float(m[1])) > 1e-4 + 0.5 * 10 ** -len(m[1].split(".")[-1]):
                fail(where, f"'differ by up to {m[1]}', but the tables differ by up to {diff:.4f}")


FORBIDDEN_IN_COLUMNS = [
    r"\b[Rr]ow i\b", r"\beach row\b", r"\bEach row\b", r"\brow by row\b", r"[Rr]ows are queries",
    r"\bits row of\b", r"\brow '[^']+' of (Q|K|V|A|X|S)", r"the Σ column",
    # a token's vector, a token's output and a key's weights are columns here
    r"\brow of (X|X′|P|Q|K|V|A|Z)\b", r"\bRows [\d, and…]+ of X\b", r"\b(identical|different) rows\b",
    r"\boutput row\b", r"\bthat row's\b", r"the row with the most", r"\bevery row reads\b",
    r"their columns are 0", r"\bpair of columns\b", r"P\[pos, 2i",
]


def check_columns(where, text, over):
    if over != "rows":
        return  # softmax over keys (or everything) is, on screen, row by row: a mistake shown
    flat = joined(text)
    for line in flat.split("\n"):
        for pattern in FORBIDDEN_IN_COLUMNS:
            checked["columns"] += 1
            if re.search(pattern, line):
                fail(where, f"the column layout says {pattern!r}: {line.strip()!r}")


def run(args):
    # wide enough for a table of 15 decimals not to be split into blocks of columns
    width = "200" if "--precision" in args else "100"
    p = subprocess.run([ATTN, "explain", *args, "--color", "never", "--width", width],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def table_value(text, row, col):
    """The number a step's table prints at (row label, column label)."""
    header = None
    for line in text.split("\n"):
        if "│" not in line or line.strip().startswith("─"):
            continue
        left, right = line.split("│", 1)
        cells = right.replace("│", " ").split()
        if not left.strip():
            header = cells
            continue
        if left.strip() == row and header and col in header:
            raw = cells[header.index(col)]
            return raw.rstrip("█▓▒░")
    return None


def decimals(number):
    """The digits after the point of a printed number: 4 for '0.3750', 0 for '2'."""
    return len(number.split(".")[1]) if "." in number else 0


def configurations():
    for layout, scale, over, mask, positions, heads, arith in itertools.product(
            ["row", "col"], ["d_k", "none", "d_model", "--no-scale"], ["rows", "columns", "all"],
            ["none", "causal"], ["none", "sinusoidal"], [1, 2], ["exact", "hand"]):
        if layout == "col" and heads > 1:
            continue  # the column layout is for one plain head
        if over != "rows" and (scale != "d_k" or arith == "hand"):
            continue  # one mistake at a time keeps the run count small
        args = ["The cat sat on the mat", "--lowercase", "--layout", layout, "--softmax-over",
                over, "--mask", mask, "--positions", positions, "--heads", str(heads), "--arith",
                arith]
        args += ["--no-scale"] if scale == "--no-scale" else ["--scale-by", scale]
        if heads > 1:
            args += ["--d-model", "6"]
        yield args
    # the tables rounded to 0 or 1 decimals: the sentences and --why still quote two; and at
    # 10 and 15 decimals, where every line's digits must still hold
    for precision in ["0", "1", "10", "15"]:
        for mask in ["none", "causal"]:
            yield ["The cat sat on the mat", "--lowercase", "--layout", "row", "--softmax-over",
                   "rows", "--mask", mask, "--positions", "none", "--heads", "1", "--arith",
                   "exact", "--scale-by", "d_k", "--precision", precision]


def check_written_once(where, text):
    """A softmax's --why writes each number once, as it is used: the term divided by Σ is the
    one listed for its key ("e^(…) = 0.73755 [is]", then "0.73755 / 2.5220"), not the same
    number at other decimals ("0.7376" listed, "0.73755" divided)."""
    flat = joined(text)
    m = re.search(rf"Σ = ({NUM}), so .+? = ({NUM}) / ({NUM}) = ", flat)
    if not m:
        return
    checked["written once"] += 1
    terms = re.findall(rf"(?:e|3)\^(?:\(.*?\)|−∞) = ({NUM}) \[", flat)
    if m[3] != m[1]:
        fail(where, f"Σ is written {m[1]}, then divided by as {m[3]}")
    if terms and m[2] not in terms:
        fail(where, f"the term divided by Σ, {m[2]}, is not one of the terms as listed: {terms[:6]}")


def check_significant(where, text):
    """No number printed with more than 15 significant digits: past them a double's digits are
    the rounding of the computation (−7.116554649999999 for the exact −7.11655465)."""
    for number in re.findall(r"(?<![\w.])[−-]?\d+\.\d+(?:e[+-]\d+)?", text):
        digits = number.lstrip("−-").split("e")[0].replace(".", "").lstrip("0")
        checked["significant"] += 1
        if len(digits) > 15:
            fail(where, f"{number} has {len(digits)} significant digits, more than a double holds")


def cells_for(args, heads):
    prefix = "head2." if heads > 1 else ""
    cols = "col" in args[args.index("--layout") + 1]
    # as shown: in the column layout the scores' rows are keys, their columns queries
    dim = "2." if heads > 1 else ""  # a head's columns are labelled 2.q0, 2.z1, ...
    pairs = [("scores", "cat", "sat"), ("scaled_scores", "on", "mat"), ("weights", "sat", "mat"),
             ("weights", "mat", "cat"), ("output", "mat", dim + "z1"), ("Q", "on", dim + "q1")]
    out = []
    for step, a, b in pairs:
        if step in ("output", "Q"):
            r, c = (b, a) if cols else (a, b)  # z/q dimension labels are indices
        else:
            r, c = a, b
        out.append(f"{prefix}{step}[{r},{c}]")
    if "causal" in args:
        out.append(f"{prefix}masked_scores[{'mat' if cols else 'sat'},{'sat' if cols else 'mat'}]")
    if "sinusoidal" in args and heads == 1:
        out.append("with_positions[d1,on]" if cols else "with_positions[on,d1]")
    return out


def check(args):
    where = " ".join(args[1:])
    heads = int(args[args.index("--heads") + 1])
    code, out, err = run(args)
    if code != 0:
        fail(where, f"exit {code}: {err.strip()}")
        return
    check_arithmetic(where, out)
    cols = args[args.index("--layout") + 1] == "col"
    if "--precision" not in args or int(args[args.index("--precision") + 1]) >= 2:
        # these compare sentences with the tables to 4 decimals or more; with the tables
        # at 0 or 1, the arithmetic (in intervals), the read-outs and --why are checked
        check_sums(where, out)
        check_claims(where, out)
        check_weight_sums(where, out)
        check_favourites(where, out, cols)
    precision = int(args[args.index("--precision") + 1]) if "--precision" in args else 4
    check_readouts(where, out, cols, precision)
    if precision >= 10:
        check_significant(where, out)
    over = args[args.index("--softmax-over") + 1]
    if cols:
        check_columns(where, out, over)
    for cell in cells_for(args, heads):
        code, why, err = run([*args, "--why", cell])
        if code != 0:
            fail(where + f" --why {cell}", f"exit {code}: {err.strip()}")
            continue
        check_arithmetic(where + f" --why {cell}", why, strict=True)
        check_written_once(where + f" --why {cell}", why)
        if "--precision" in args and int(args[args.index("--precision") + 1]) >= 10:
            check_significant(where + f" --why {cell}", why)
        if cols:
            check_columns(where + f" --why {cell}", why, over)
        m = re.search(rf"Why is .+? = ({NUM}|−∞)(?: after the update)?\?", why)
        # X′[r, c] = X[r, c] + P[r, c]: the cell named as the title names it, as shown
        title = re.search(r"Why is \S+?(\[[^\]]+\])", why)
        for named in re.findall(r"X′(\[[^\]]+\]) = X(\[[^\]]+\]) \+ P(\[[^\]]+\])", why):
            if title and any(n != title[1] for n in named):
                fail(where + f" --why {cell}", f"the title names {title[1]}, the sum {named}")
        step = cell.split("[")[0]
        r, c = cell[cell.index("[") + 1:-1].split(",")
        code, shown, _ = run([*args, "--steps", step])
        printed = table_value(shown, r, c)
        checked["why"] += 1
        if not m or printed is None:
            fail(where + f" --why {cell}", f"no value to compare (why: {bool(m)}, table: {printed})")
        elif m[1] == "−∞" or printed == "−∞":
            if m[1] != printed:
                fail(where + f" --why {cell}", f"--why says {m[1]} but the table shows {printed}")
        elif abs(float(m[1].replace("−", "-")) - float(printed.replace("−", "-"))) > \
                0.5 * 10 ** -decimals(printed) + 1e-12:
            fail(where + f" --why {cell}", f"--why says {m[1]} but the table shows {printed}")


# The checker checks itself first: the false lines the issue found must fail, true ones pass.
SELF_TEST = {
    "Then scaled: S′[is, This] = S[is, This] / √d_k = 3.4729 / 1.7321 = 3.4729.": 1,
    "Then scaled: S′[is, This] = S[is, This] / √d_k = 3.4729 / 1.7321 = 2.0051.": 0,
    "Then scaled by hand: S′[x1, x2] = ⌊S[x1, x2] / 2⌋ = ⌊4 / 2⌋ = 3.": 1,
    "  = 0.1200·(-0.4000) + 2·3\n  = 5.9520": 0,
    "  = 0.1200·(-0.4000) + 2·3\n  = 6.0520": 1,
    "  e^(0.4741 − 2.0051) = 0.2163 [is]": 0,
    "  e^(0.4741 − 2.0051) = 0.2263 [is]": 1,
    "Here d_k = 3, so √d_k = 1.7321. Scaling divides the variance of the scores by d_k exactly: "
    "from 7.4438 (S) to 2.4813 (S′), close.": 0,
    "Here d_k = 3, so √d_k = 1.7321. Scaling divides the variance of the scores by d_k exactly: "
    "from 7.4438 (S) to 2.4838 (S′), close.": 1,
    # the narrative's products, strict in every mode: 0.6325 · 1.4142 · 1 gives 0.8945
    "For example, the largest score is query is against key book: 0.8944 = |q| · |k| · "
    "cos\u00A0θ = 0.6325 · 1.4142 · 1.0000.": 1,
    "For example, the largest score is query is against key book: 0.8944 = |q| · |k| · "
    "cos\u00A0θ = 0.63245 · 1.41421 · 1.00000.": 0,
}
# --why's arithmetic, strictly: the shown operands must give the shown result
SELF_TEST_STRICT = {
    "Then scaled: S′[is, book] = S[is, book] / √d_k = -0.5351 / 1.7321 = -0.3090.": 1,
    "Then scaled: S′[is, book] = S[is, book] / √d_k = -0.53514 / 1.73205 = -0.3090.": 0,
    "  = 0.3333·1000000 + 0.3333·2000000\n  = 1000000.0000": 1,
    "  = 0.333333333333·1000000 + 0.333333333333·2000000\n  = 1000000.0000": 0,
    # a total shown at 4 decimals, then used with 5
    "  = 4.234136·0.760345 + (-0.028478)·0.164485 + (-0.222664)·0.075170\n  = 3.1980\n"
    "dS′[is, book] = A[is, book]·(dA[is, book] − 3.1980) = 0.07517·(-0.22266 − 3.19798) = "
    "-0.2571.": 1,
    "  = 4.234136·0.760345 + (-0.028478)·0.164485 + (-0.222664)·0.075170\n  = 3.19798\n"
    "dS′[is, book] = A[is, book]·(dA[is, book] − 3.19798) = 0.07517·(-0.22266 − 3.19798) = "
    "-0.2571.": 0,
    "  e^(0.4741 − 2.0051) = 0.2163 [is]": 0,
}
for tests, strict in ((SELF_TEST, False), (SELF_TEST_STRICT, True)):
    for text, expected in tests.items():
        before = len(failures)
        check_arithmetic("self-test", text, strict)
        if len(failures) - before != expected:
            print(f"FAIL: the checker {'missed' if expected else 'rejected'} {text!r}"
                  f"{' (strict)' if strict else ''}")
            sys.exit(1)
failures.clear()
TABLE = """━━ 7 · Attention weights A ━━
       │    This      is    book │       Σ
  ─────┼─────────────────────────┼────────
  This │  0.0074  0.1557  0.8370 │  1.0000
  is   │  0.7603  0.1645  0.0752 │  1.0000
  book │  0.3965  0.2924  0.3110 │  1.0000
"""
FAVOURITES = {
    "Each query's largest weight: 'This' → 'book' (0.8370), 'is' → 'This' (0.7603), "
    "'book' → 'This' (0.3965); no token attends most to itself.\n": 0,
    "Each query's largest weight: 'This' → 'book' (0.8370), 'is' → itself (0.7603), "
    "'book' → 'This' (0.3965); no token attends most to itself.\n": 2,
    "Each query's largest weight: 'This' → 'book' (0.8370), 'is' → 'This' (0.7603), "
    "'book' → 'This' (0.3965); every token attends most to itself.\n": 1,
}
TIED = """━━ 7 · Attention weights A ━━
       │    This      is    book │       Σ
  ─────┼─────────────────────────┼────────
  This │  0.4000  0.4000  0.2000 │  1.0000
  is   │  0.7603  0.1645  0.0752 │  1.0000
  book │  0.3965  0.2924  0.3110 │  1.0000
"""
FAVOURITES_TIED = {
    "Each query's largest weight: 'This' → itself and 'is' (0.4000), 'is' → 'This' (0.7603), "
    "'book' → 'This' (0.3965); no token attends to itself more than to every other; 1 ties "
    "itself with another token for its largest weight.\n": 0,
    "Each query's largest weight: 'This' → itself and 'is' (0.4000), 'is' → 'This' (0.7603), "
    "'book' → 'This' (0.3965); no token attends most to itself.\n": 2,
    # a near tie (equal at four decimals), told apart: not a tie
    "Each query's largest weight: 'This' → 'is' (0.400010, just above itself at 0.400005), "
    "'is' → 'This' (0.7603), 'book' → 'This' (0.3965); no token attends most to itself.\n": 0,
    "Each query's largest weight: 'This' → 'is' (0.400010, just above itself at 0.400020), "
    "'is' → 'This' (0.7603), 'book' → 'This' (0.3965); no token attends most to itself.\n": 1,
}
for sentence, expected in FAVOURITES_TIED.items():
    check_favourites("self-test", TIED + sentence, False)
    if len(failures) != expected:
        print(f"FAIL: the checker found {len(failures)} faults, not {expected}, in {sentence!r}")
        sys.exit(1)
    failures.clear()
CLAIMS = {
    "Here d_k = 3, so √d_k = 1.7321. Scaling divides the variance of the scores by d_k exactly: "
    "from 7.4438 (S) to 2.4813 (S′), which is not close to 1 (more than 25% away from it).\n": 0,
    "Here d_k = 3, so √d_k = 1.7321. Scaling divides the variance of the scores by d_k exactly: "
    "from 3.6000 (S) to 1.2000 (S′), which is close to 1 (within 25% of it).\n": 0,
    "Here d_k = 3, so √d_k = 1.7321. Scaling divides the variance of the scores by d_k exactly: "
    "from 4.4438 (S) to 1.4813 (S′), which is close to 1 (within 25% of it).\n": 1,
    "Here d_k = 3, so √d_k = 1.7321. Scaling divides the variance of the scores by d_k exactly: "
    "from 3.6000 (S) to 1.2000 (S′), which is not close to 1 (more than 25% away from it).\n": 1,
    "S′ would have on average their product, 1.1634 · 0.8608 = 1.0015. 2.4813 is not close to "
    "that either: ...\n": 0,
    "S′ would have on average their product, 1.1634 · 0.8608 = 1.2015. 2.4813 is not close to "
    "that either: ...\n": 1,
    # past a double's range: the factors as shown must give the product as shown
    "S′ would have on average their product, 2.7658e-322 · 1.7681e-322 = 4.8901e-644. "
    "1.0948e-643 is not close to that either: ...\n": 1,
    "S′ would have on average their product, 2.765833e-322 · 1.768056e-322 = 4.8901e-644. "
    "1.0948e-643 is not close to that either: ...\n": 0,
    "S′ would have on average their product, 2.0000 · 2.0000 = 4.0000, and 3.5000 is close to "
    "that (within 25%): ...\n": 0,
    "S′ would have on average their product, 2.0000 · 2.0000 = 4.0000, and 2.5000 is close to "
    "that (within 25%): ...\n": 1,
    "Here d_model = 5, so √d_model = 2.2361. Dividing by √d_k = 1.7321 instead, as the rule says, "
    "would give 2.4813: the scores here are 1.2910 times smaller than they should be.\n": 0,
    "Here d_model = 5, so √d_model = 2.2361. Dividing by √d_k = 1.7321 instead, as the rule says, "
    "would give 2.4813: the scores here are 1.2910 times larger than they should be.\n": 1,
}
for sentence, expected in CLAIMS.items():
    check_claims("self-test", sentence)
    if len(failures) != expected:
        print(f"FAIL: the checker found {len(failures)} faults, not {expected}, in {sentence!r}")
        sys.exit(1)
    failures.clear()
READOUTS = {
    "The new vector for 'is' is 0.7603 of V[This] + 0.1645 of V[is] + 0.0752 of V[book].\n": 0,
    "The new vector for 'is' is 0.7603 of V[This] + 0.1845 of V[is] + 0.0752 of V[book].\n": 1,
    "The new vector for 'is' is 0.7603 of V[This] + 0.1645 of V[is].\n": 1,
    "The new vector for 'book' is 0.3965 of V[This] + 0.3110 of V[book] + 0.2924 of V[is].\n": 0,
    # rounded otherwise than the table: 0.3965 is shown, so 0.40 (or 0.3966) is a fault
    "The new vector for 'book' is 0.40 of V[This] + 0.3110 of V[book] + 0.2924 of V[is].\n": 1,
    "The new vector for 'book' is 0.3966 of V[This] + 0.3110 of V[book] + 0.2924 of V[is].\n": 1,
}
for sentence, expected in READOUTS.items():
    check_readouts("self-test", TABLE + sentence, False)
    if len(failures) != expected:
        print(f"FAIL: the checker found {len(failures)} faults, not {expected}, in {sentence!r}")
        sys.exit(1)
    failures.clear()
# what the column layout printed before it said "column" for a token's vector, each a fault
COLUMN_FAULTS = [
    "A repeated token, 'the' (tokens 0 and 2): each copy has the same row of X, because an "
    "embedding depends only on the token's text.",
    "Without positions, self-attention ignores order: shuffle the tokens and each output row "
    "moves with its token, unchanged.",
    "The sinusoidal table of the original Transformer uses a sine and a cosine of a different "
    "frequency in each pair of columns.",
    "P[pos, 2i] = sin(pos / 10000^(2i/d_model)), P[pos, 2i+1] = cos(pos / 10000^(2i/d_model))",
    "no token may attend to them (their columns are 0).",
    "The copies of 'the' (tokens 0 and 2) now have different rows.",
    "(That is the row with the most focused attention; every row reads the same way.)",
]
for sentence in COLUMN_FAULTS:
    check_columns("self-test", sentence + "\n", "rows")
    if not failures:
        print(f"FAIL: the checker missed the row wording of {sentence!r}")
        sys.exit(1)
    failures.clear()
check_columns("self-test", "A repeated token, 'the' (tokens 0 and 2): each copy has the same "
              "column of X. The copies now have different columns.\n", "rows")
if failures:
    print(f"FAIL: the checker rejected the column wording: {failures}")
    sys.exit(1)
for sentence, expected in FAVOURITES.items():
    check_favourites("self-test", TABLE + sentence, False)
    if len(failures) != expected:
        print(f"FAIL: the checker found {len(failures)} faults, not {expected}, in {sentence!r}")
        sys.exit(1)
    failures.clear()

def table_labels(text):
    """The row and column labels of the one table in `text` (a step shown alone), in order,
    over all of its blocks of columns."""
    rows, cols = [], []
    for line in text.split("\n"):
        if "│" not in line or line.strip().startswith("─"):
            continue
        left, right = line.split("│", 1)
        cells = [c for c in right.replace("│", " ").split() if c != "Σ"]
        if not left.strip():
            cols += [c for c in cells if c not in cols]
        elif left.strip() not in rows and left.strip() != "Σ":
            rows.append(left.strip())
    return rows, cols


def check_layers_below(args, where, out):
    """The line per layer under layers_below: each range and longest token is its row's in the
    table, and the lengths after the layer are the ones --why gives cell by cell."""
    if "What the layers below did" not in out:
        return
    _, shown, _ = run(args + ["--steps", "layers_below"])
    rows, cols = table_labels(shown)
    table = {r: [float(table_value(shown, r, c).replace("−", "-")) for c in cols] for r in rows}
    lines = re.findall(rf"Layer (\d+) \[(?:transformer\.)?h\.(\d+)\]: its attention added to each "
                       rf"token's vector a change ({NUM}) to ({NUM}) long \(the longest for '([^']+)'\), "
                       rf"its MLP one ({NUM}) to ({NUM}) long \(the longest for '([^']+)'\); after "
                       rf"the layer the vectors are ({NUM}) to ({NUM}) long\.",
                       joined(out).replace("\n", " "))
    if len(lines) != len(rows) // 2:
        fail(where, f"{len(lines)} lines for the {len(rows) // 2} layers below")
    for m in lines:
        layer = int(m[0]) - 1
        checked["arithmetic"] += 1
        if int(m[1]) != layer:
            fail(where, f"layer {m[0]} named h.{m[1]}")
        for part, (low, high, who) in (("attn", m[2:5]), ("mlp", m[5:8])):
            row = table[f"h.{layer}.{part}"]
            if abs(float(low) - min(row)) > 1e-4 or abs(float(high) - max(row)) > 1e-4 or \
                    cols[row.index(max(row))] != who:
                fail(where, f"layer {m[0]}'s {part}: {low} to {high} ({who}) but the table's row is {row}")
        after = []
        for t in range(len(cols)):
            _, why, _ = run(args + ["--why", f"layers_below[{2 * layer + 1},{t}]"])
            length = re.search(rf"has length ({NUM})", why)
            after.append(float(length[1]) if length else math.nan)
        if abs(float(m[8]) - min(after)) > 1e-4 or abs(float(m[9]) - max(after)) > 1e-4:
            fail(where, f"layer {m[0]}: the vectors are {m[8]} to {m[9]} long, but --why gives {after}")


def check_checkpoint(layer, head):
    """A GPT-2 checkpoint's walk: its text, then --why on three cells of every step."""
    args = ["He took the hat and examined it carefully", "--checkpoint", CHECKPOINT, "--layer",
            str(layer)] + (["--head", head] if head else [])
    where = " ".join(args[1:])
    code, out, err = run(args)
    if code != 0:
        fail(where, f"exit {code}: {err.strip()}")
        return
    check_arithmetic(where, out)
    check_sums(where, out)
    check_favourites(where, out, False)
    check_layers_below(args, where, out)
    code, listing, err = run(args + ["--steps", "nothing"])
    ids = re.search(r"expected one of: (.*?) \(likewise", err)
    if not ids:
        fail(where, f"no list of steps in {err.strip()!r}")
        return
    for step in ids[1].split(", "):
        if step in ("tokens", "mask") or step.startswith("head2."):
            continue
        code, shown, _ = run(args + ["--steps", step])
        rows, cols = table_labels(shown)
        if not rows or not cols:
            fail(where, f"--steps {step}: no table")
            continue
        for r, c in {(0, 0), (len(rows) - 1, len(cols) - 1), (len(rows) // 2, len(cols) // 2)}:
            cell = f"{step}[{r},{c}]"
            code, why, err = run(args + ["--why", cell])
            if code != 0:
                fail(f"{where} --why {cell}", f"exit {code}: {err.strip()}")
                continue
            check_arithmetic(f"{where} --why {cell}", why, strict=True)
            if "is an input of the walk-through" in why:
                fail(f"{where} --why {cell}", "a checkpoint's step called an input of the lesson")
            m = re.search(rf"Why is .+? = ({NUM}|−∞)\?", why)
            printed = table_value(shown, rows[r], cols[c])
            checked["why"] += 1
            if not m or printed is None:
                fail(f"{where} --why {cell}", f"no value to compare (why: {bool(m)}, table: {printed})")
            elif m[1] != printed and (m[1] == "−∞" or printed == "−∞" or abs(
                    float(m[1].replace("−", "-")) - float(printed.replace("−", "-"))) > 1e-4):
                fail(f"{where} --why {cell}", f"--why says {m[1]} but the table shows {printed}")


def check_qkv(path):
    """A lesson from Q, K and V (tests/inputs/good/qkv-*.json: ties, saturated, subnormal and
    huge numbers): its arithmetic and claims, and its numbers' significant digits."""
    args = ["--qkv", path]
    where = os.path.basename(path)
    code, out, err = run(args)
    if code != 0:
        fail(where, f"exit {code}: {err.strip()}")
        return
    check_arithmetic(where, out)
    check_claims(where, out)
    check_significant(where, out)


QKV = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs",
                                    "good", "qkv-*.json")))
if len(QKV) < 5:
    fail("tests/inputs/good", f"expected the qkv-*.json lessons, found {len(QKV)}")
configs = list(configurations())
with ThreadPoolExecutor(max_workers=4) as pool:
    list(pool.map(check, configs))
    list(pool.map(check_qkv, QKV))
    if CHECKPOINT:
        list(pool.map(lambda run: check_checkpoint(*run), [(1, None), (2, None), (2, "1")]))
for f in failures[:40]:
    print("FAIL:", f)
if failures:
    print(f"{len(failures)} failures in {len(configs)} runs")
    sys.exit(1)
print(f"ok: {len(configs)} runs; {checked['arithmetic']} arithmetic lines, {checked['sums']} sums, "
      f"{checked['why']} --why cells against their tables, {checked['written once']} softmax lines "
      f"that divide the terms as listed, {checked['columns']} column-layout checks, "
      f"{checked['favourites']} largest-weight sentences, {checked['significant']} numbers "
      f"at 10 or 15 decimals within 15 significant digits, {checked['claims']} claims of closeness "
      f"and comparison, {checked['readouts']} read-outs against the weights")

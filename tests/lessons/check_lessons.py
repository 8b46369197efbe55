#!/usr/bin/python3
"""The five tutorials attn follows (docs/lessons.md), reproduced: for each, the command of
docs/lessons.md runs on its example in data/examples/, and

  - every number the tutorial prints that attn reproduces is compared with attn's dump, to
    the tutorial's printing precision (half a unit of its last printed digit) plus 1e-8 for
    the rounding of the inputs it printed;
  - the tutorial's own code (its numpy, copied below with its mistakes) is run on the
    example's numbers and compared with attn's dump to 1e-12, with the mistake attn shows on
    purpose (--scale-by d_model, --softmax-over all) where the tutorial makes one;
  - each claim an example's description makes about its numbers is checked against them.

    check_lessons.py ATTN EXAMPLES_DIR

Needs Debian's python3 with python3-numpy.
"""
import json
import math
import pathlib
import subprocess
import sys

import numpy as np

ATTN = sys.argv[1]
EXAMPLES = pathlib.Path(sys.argv[2])
failures = []
checks = 0


def run(*args):
    """attn explain ARGS --json -: the dump."""
    out = subprocess.run([ATTN, "explain", *args, "--json", "-"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"attn explain {' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


def step(dump, sid):
    for s in dump["steps"]:
        if s["id"] == sid:
            return s
    raise SystemExit(f"no step {sid}")


def values(dump, sid):
    return np.array(step(dump, sid)["values"], dtype=float)


def decimals(text):
    """Digits after the point of a printed number, counting an exponent: 4.32998049e-26 -> 34."""
    mantissa, _, exponent = text.lower().partition("e")
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return places - (int(exponent) if exponent else 0)


def printed(what, attn_values, texts, inputs_rounding=1e-8):
    """attn's numbers against a tutorial's printed ones (given as the text it prints): they
    may differ by half a unit of the printed last digit plus `inputs_rounding` (a number, or
    one per value), how far the rounding of the inputs the tutorial printed can move them."""
    global checks
    attn_flat = np.ravel(np.asarray(attn_values, dtype=float))
    if len(attn_flat) != len(texts):
        failures.append(f"{what}: attn has {len(attn_flat)} numbers, the tutorial {len(texts)}")
        return
    worst = 0.0
    rounding = np.broadcast_to(np.asarray(inputs_rounding, dtype=float), (len(texts),))
    for a, t, r in zip(attn_flat, texts, rounding):
        tolerance = 0.5 * 10.0 ** -decimals(t) + r
        checks += 1
        worst = max(worst, abs(a - float(t)))
        if abs(a - float(t)) > tolerance:
            failures.append(f"{what}: attn {a!r}, the tutorial prints {t} (tolerance {tolerance:.1e})")
    print(f"ok: {what}: {len(texts)} printed numbers, largest difference {worst:.1e}")


def numpy8(texts):
    """An array as numpy prints it by default: each number rounded to 8 decimals, trailing
    zeros dropped (0.0280311 is 0.02803110), so each is known to half a unit of the 8th."""
    return [f"{float(t):.8f}" for t in texts]


def same(what, attn_values, expected, tolerance=1e-12):
    """attn's numbers against the tutorial's own code run on the same inputs."""
    global checks
    a = np.asarray(attn_values, dtype=float)
    e = np.asarray(expected, dtype=float)
    checks += 1
    if a.shape != e.shape:
        failures.append(f"{what}: shape {a.shape}, the tutorial's code gives {e.shape}")
        return
    diff = float(np.max(np.abs(a - e) / np.maximum(1.0, np.abs(e))))
    if diff > tolerance:
        failures.append(f"{what}: differs from the tutorial's code by {diff:.1e}")
    else:
        print(f"ok: {what}: the tutorial's code agrees to {diff:.1e}")


def claim(what, holds):
    global checks
    checks += 1
    if not holds:
        failures.append(f"claim does not hold: {what}")
    else:
        print(f"ok: claim: {what}")


def load(name):
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


# --- 000: "This is book", numpy, scaled by sqrt(5) ----------------------------------------
print("== tutorial 000: This is book (numpy; scales by sqrt(d_model))")
d = run("--model", str(EXAMPLES / "this-is-book.json"), "--scale-by", "d_model")
printed("000 embeddings", values(d, "embeddings"),
        "0.1 -0.3 0.5 -0.2 0.7 -0.6 0.2 0.9 -0.1 0.3 0.8 -0.5 -0.4 0.6 -0.9".split(), 0)
model = load("this-is-book.json")
X = values(d, "embeddings")
WQ, WK, WV = (np.array(model["weights"][k], dtype=float) for k in ("W_Q", "W_K", "W_V"))
# the tutorial's code, as written: dimension = 5
Key, Query, Values = X @ WK, X @ WQ, X @ WV
dimension = 5
Scores = Query @ Key.T / np.sqrt(dimension)
def scipy_softmax(x):  # scipy.special.softmax of one row
    e = np.exp(x - np.max(x))
    return e / e.sum()
Softmax_attention_scores = np.array([scipy_softmax(x) for x in Scores])
same("000 scores / sqrt(5)", values(d, "scaled_scores"), Scores)
same("000 softmax row by row", values(d, "weights"), Softmax_attention_scores)
same("000 output", values(d, "output"), Softmax_attention_scores @ Values)
claim("000: attn's divisor is sqrt(5) with --scale-by d_model",
      abs(step(d, "scaled_scores")["divisor"] - math.sqrt(5)) < 1e-15)
right = values(d, "correct_weights")
S = values(d, "scores")
same("000 the right weights beside them (sqrt(d_k) = sqrt(3))", right,
     np.array([scipy_softmax(x) for x in S / np.sqrt(3)]))
# "each word attends most to itself": what the example's description says about it
tokens = d["tokens"]
A = values(d, "weights")
favourite = {tokens[i]: tokens[int(np.argmax(A[i]))] for i in range(len(tokens))}
diagonal_scores = [bool(np.argmax(S[i]) == i) for i in range(len(tokens))]
claim("000: no token attends most to itself with these weights (the description says so)",
      all(favourite[t] != t for t in tokens) and "no word does" in model["description"])
claim("000: 'This' and 'is' attend most to 'book', and 'book' to 'is', as the description says",
      favourite == {"This": "book", "is": "book", "book": "is"} and
      "'This' and 'is' attend most to 'book', and 'book' to 'is'" in model["description"])
claim("000: no diagonal score is its row's largest either", not any(diagonal_scores))

# --- 001: character codes, lengths as weights, a softmax test ----------------------------
print("== tutorial 001: The weather is beautiful today in Melbourne (numpy notebook)")
d = run("--qkv", str(EXAMPLES / "weather-word-lengths-qkv.json"))
A = values(d, "weights")
printed("001 attention weights (its word lengths over 37)", A[0],
        "0.081 0.189 0.054 0.243 0.135 0.054 0.243".split(), 0)
printed("001 final vector", values(d, "output")[0], ["13.297297297297298", "7.837837837837839"])
# its code: weights len/total, then a zip that keeps the first two codes of each word
sentence = "The weather is beautiful today in Melbourne"
words = sentence.split()
embed = {w: [ord(c) - 96 for c in w.lower()] for w in words}
total = sum(len(w) for w in words)
final = [0] * len(max(embed.values(), key=len))
for w in words:
    final = [sum(x) for x in zip(final, [len(w) / total * v for v in embed[w]])]
same("001 the notebook's final vector", values(d, "output")[0], final)
claim("001: the zip truncates the final vector to 2 numbers, the shortest word's length",
      len(final) == 2 == min(len(v) for v in embed.values()))

d = run("--qkv", str(EXAMPLES / "softmax-test-qkv.json"))
printed("001 test softmax", values(d, "weights")[0], "0.65900114 0.24243297 0.09856589".split(), 0)

# its second part: softmax over the whole matrix (np.sum without an axis)
d = run("--qkv", str(EXAMPLES / "random-4x8-qkv.json"), "--softmax-over", "all")
S2 = values(d, "scaled_scores")
whole = np.exp(S2) / np.sum(np.exp(S2))
same("001 softmax over the whole matrix, as its softmax() does", values(d, "weights"), whole)
claim("001: its weights sum to 1 over the whole matrix, not per row",
      abs(values(d, "weights").sum() - 1) < 1e-12 and
      all(abs(r - 1) > 0.05 for r in values(d, "weights").sum(axis=1)))

# --- 002: random Q, K, V with a causal mask ----------------------------------------------
print("== tutorial 002: random Q, K and V, variance, causal mask (numpy notebook)")
d = run("--qkv", str(EXAMPLES / "random-4x8-qkv.json"), "--mask", "causal",
        "--softmax-over", "all")
qkv = load("random-4x8-qkv.json")
Q, K, V = (np.array(qkv[k], dtype=float) for k in "QKV")
# Q and K as printed are rounded: half a unit of each one's last digit, carried through Q K^T
half = {m: np.array([[0.5 * 10.0 ** -decimals(repr(x)) for x in row] for row in qkv[m]])
        for m in "QK"}
scores_rounding = np.abs(Q) @ half["K"].T + half["Q"] @ np.abs(K).T
printed("002 Q K^T", values(d, "scores"), numpy8("""-1.70591902 -1.37586814 1.35979172
    -0.84403445 1.9056601 1.28581105 -2.38259031 -0.49412577 1.9622213 1.83882766 0.75857093
    4.86142051 -0.07765669 0.16947995 0.46103018 0.03823273""".split()), scores_rounding.ravel())
printed("002 Q variance", step(d, "Q")["variance"], ["1.0633619664558474"])
printed("002 K variance", step(d, "K")["variance"], ["0.6293201691477228"])
printed("002 Q K^T variance", step(d, "scores")["variance"], ["2.9059453138911335"])
printed("002 normalized variance", step(d, "scaled_scores")["variance_after"],
        ["0.3632431642363916"])
printed("002 normalized", values(d, "scaled_scores"), numpy8("""-0.60313345 -0.48644285
    0.48075897 -0.29841124 0.67375259 0.45460286 -0.84237288 -0.17469984 0.69374999 0.65012375
    0.26819532 1.71877171 -0.02745579 0.05992021 0.16299878 0.01351731""".split()),
        scores_rounding.ravel() / math.sqrt(8))
masked = np.array(step(d, "masked_scores")["values"], dtype=object)
claim("002: the masked scores are -inf above the diagonal, as normalized + mask prints them",
      all((masked[i][j] == "-inf") == (j > i) for i in range(4) for j in range(4)))
attention_printed = numpy8("""0.04042334 0 0 0 0.14493617 0.11641294 0 0 0.14786369 0.14155164
    0.09661521 0 0.07188625 0.07844997 0.08696795 0.07489283""".split())
printed("002 attention (softmax over the whole matrix)", values(d, "weights"), attention_printed)
printed("002 Q as printed", values(d, "Q"), [repr(x) for x in Q.ravel()], 0)
printed("002 the printed part of V", values(d, "V")[0][:4],
        "0.99755393 1.56166281 0.2986221 0.47543551".split(), 0)
# its new_V, to its printed digits: attn's output must round to what it prints (half a unit of
# the 8th decimal, nothing more), which holds only for a V recovered from its prints
new_V_printed = numpy8("""0.04032446 0.06312763 0.0120713 0.01921869 0.03306634 0.00240532 -0.00472579
    -0.00409524 -0.13459867 0.25509703 -0.11080394 0.0280311 0.1120454 0.07629048 -0.2235742
    -0.10467009 -0.08661027 0.26311021 -0.24234362 -0.00936914 -0.06104208 -0.10105507
    -0.22962908 0.00502036 -0.03938946 0.00811048 -0.28066134 -0.01644259 -0.05047221
    -0.04874643 -0.00406434 0.0616164""".split())
printed("002 new_V = attention V (its printed digits)", values(d, "output"), new_V_printed, 0)
# V from what it prints: attention (lower-triangular) times V is new_V, so V = solve(attention,
# new_V). Both are printed with 8 decimals (each within 5e-9); to first order (the second-order
# term is below 1e-13) that leaves V[i][c] uncertain by at most
# sum_k |inv(attention)[i][k]| (5e-9 + 5e-9 sum_{j<=k} |V[j][c]|).
A_printed = np.array(attention_printed, dtype=float).reshape(4, 4)
new_V = np.array(new_V_printed, dtype=float).reshape(4, 8)
V_recovered = np.linalg.solve(A_printed, new_V)
known = np.abs(np.linalg.inv(A_printed)) @ (
    5e-9 + 5e-9 * np.tril(np.ones((4, 4))) @ np.abs(V_recovered))
# the example's V: within that bound of the recovered V, plus its own rounding to 8 decimals
checks += 1
excess = np.abs(V - V_recovered) - (known + 5e-9 + 1e-13)
if excess.max() > 0:
    i, c = np.unravel_index(int(excess.argmax()), excess.shape)
    failures.append(f"002 V[{i}][{c}] = {V[i][c]!r} is {abs(V[i][c] - V_recovered[i][c]):.1e} from "
                    f"solve(attention, new_V) = {V_recovered[i][c]!r}, more than the printed "
                    f"numbers' rounding allows ({known[i][c]:.1e})")
else:
    print(f"ok: 002 V is solve(attention, new_V) of its prints: within {np.abs(V - V_recovered).max():.1e}"
          f" (the prints' rounding allows up to {known.max():.1e})")
claim("002: the printed V[0][:4] agree with the V its attention and new_V give",
      all(abs(float(t) - v) <= k for t, v, k in zip(
          "0.99755393 1.56166281 0.2986221 0.47543551".split(), V_recovered[0], known[0])))
claim("002: V[t0][4] begins 0.81, as its truncated print of V shows",
      f"{values(d, 'V')[0][4]:.8f}".startswith("0.81"))
def short(x):
    """8.36e-07 as the description writes it: 8.4e-7."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"
claim(f"002: the description's bounds are the prints' rounding: at most {short(known.max())}, "
      f"t0's row {short(known[0].max())}",
      f"at most {short(known.max())}" in qkv["description"] and
      f"(t0's row: {short(known[0].max())})" in qkv["description"])
claim("002: V has 8 decimals, as the description says",
      all(abs(x * 1e8 - round(x * 1e8)) < 1e-6 for x in V.ravel()) and
      "stored with 8" in qkv["description"])
# its code, as written: softmax over the whole (masked) matrix
mask = np.triu(np.ones((4, 4)), k=1)
mask[mask == 1] = -np.inf
normalized = Q @ K.T / math.sqrt(8)
with np.errstate(over="ignore"):
    attention = np.exp(normalized + mask) / np.exp(normalized + mask).sum()
same("002 the notebook's attention", values(d, "weights"), attention)
same("002 the notebook's new V on the example's V", values(d, "output"), attention @ V)
claim("002: its weights' rows do not sum to 1", all(abs(r - 1) > 0.5 for r in attention.sum(axis=1)))
right = values(d, "correct_weights")
claim("002: attn's right weights sum to 1 in every row", np.allclose(right.sum(axis=1), 1))
claim("002: the description says how V was recovered and that none of it is seeded",
      "recovered" in qkv["description"] and "first four" in qkv["description"] and
      "seeded" not in qkv["description"])

# --- 003: the book chapter's formulas ----------------------------------------------------
print("== tutorial 003: the book chapter's formulas")
d = run("--qkv", str(EXAMPLES / "chapter-2x3-qkv.json"))
chapter = load("chapter-2x3-qkv.json")
Q, K, V = (np.array(chapter[k], dtype=float) for k in "QKV")
d_k = K.shape[-1]
scores = np.matmul(Q, K.T) / np.sqrt(d_k)
weights = np.exp(scores) / np.sum(np.exp(scores), axis=-1, keepdims=True)
same("003 scores / sqrt(d_k)", values(d, "scaled_scores"), scores)
same("003 weights (softmax with axis=-1)", values(d, "weights"), weights)
same("003 output", values(d, "output"), np.matmul(weights, V))
claim("003: attn's Q, K, V are between 0 and 1, like np.random.rand",
      all(0 <= x < 1 for m in (Q, K, V) for x in m.ravel()))

# --- 004: by hand, tokens as columns -----------------------------------------------------
print("== tutorial 004: self-attention by hand (column layout, floor(x/2), 3^x)")
d = run("--model", str(EXAMPLES / "by-hand-6x4.json"), "--arith", "hand", "--layout", "col")
hand = load("by-hand-6x4.json")
X = np.array([hand["embeddings"]["vectors"][t] for t in d["tokens"]], dtype=float).T  # 6 × 4
WQ, WK, WV = (np.array(hand["weights"][k], dtype=float).T for k in ("W_Q", "W_K", "W_V"))
Qc, Kc, Vc = WQ @ X, WK @ X, WV @ X  # its matrices: a column per token
S = Kc.T @ Qc  # a row per key, a column per query
Sp = np.floor(S / 2)
E = 3.0 ** (Sp - Sp.max(axis=0))
A = E / E.sum(axis=0)  # each column sums to 1
Z = Vc @ A
same("004 K^T Q (rows keys, columns queries)", values(d, "scores").T, S)
same("004 floor(S / 2)", values(d, "scaled_scores").T, Sp)
same("004 3^x, each column over its sum", values(d, "weights").T, A)
same("004 Z = V A", values(d, "output").T, Z)
claim("004: every input is a whole number", all(float(x).is_integer() for x in
                                               np.concatenate([X.ravel(), WQ.ravel()])))
# it calls the dot product a cosine similarity: attn's note gives |q| |k| cos
text = subprocess.run([ATTN, "explain", "--model", str(EXAMPLES / "by-hand-6x4.json"), "--arith",
                       "hand", "--layout", "col", "--steps", "scores", "--color", "never"],
                      capture_output=True, text=True).stdout
text = " ".join(text.split())
claim("004: attn's scores step says a score is |q| · |k| · cos θ, the cosine only for length 1",
      "|q| · |k| · cos θ" in text and "the cosine only for vectors of length 1" in text)

print(f"{checks} checks, {len(failures)} failed")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)

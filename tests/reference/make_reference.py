#!/usr/bin/python3
"""Reference values for attn's tests, computed independently with numpy in float64.

Run with Debian's python3 (the one that has python3-numpy), from the repository root:

    /usr/bin/python3 tests/reference/make_reference.py

It reads tests/reference/inputs.json (tokens, X, W_Q, W_K, W_V and the mask kind of each
case) and writes tests/reference/expected.json with every intermediate of the lesson. The
unit tests compare attn with expected.json; they never run Python themselves.
"""
import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def attention(case):
    x = np.array(case["X"], dtype=np.float64)
    w_q = np.array(case["W_Q"], dtype=np.float64)
    w_k = np.array(case["W_K"], dtype=np.float64)
    w_v = np.array(case["W_V"], dtype=np.float64)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T
    d_k = w_q.shape[1]
    scaled = scores / np.sqrt(d_k)
    n = x.shape[0]
    out = {"Q": q, "K": k, "V": v, "scores": scores, "scaled_scores": scaled}
    logits = scaled
    if case["mask"] == "causal":
        allowed = np.tril(np.ones((n, n), dtype=bool))
        logits = np.where(allowed, scaled, -np.inf)
        out["masked_scores"] = logits
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    out["weights"] = weights
    out["output"] = weights @ v
    out["variance_before"] = float(np.var(scores))
    out["variance_after"] = float(np.var(scaled))
    return out


def encode(value):
    if isinstance(value, float):
        return value
    return [[("-inf" if np.isneginf(c) else float(c)) for c in row] for row in value]


def main():
    cases = json.loads((HERE / "inputs.json").read_text())
    expected = {}
    for name, case in cases.items():
        expected[name] = {key: encode(val) for key, val in attention(case).items()}
    # one matrix row per line, so that a change shows up as a readable diff
    lines = ["{"]
    for i, (name, steps) in enumerate(expected.items()):
        lines.append(f' "{name}": {{')
        for j, (key, val) in enumerate(steps.items()):
            end = "," if j + 1 < len(steps) else ""
            if isinstance(val, float):
                lines.append(f'  "{key}": {json.dumps(val)}{end}')
            else:
                rows = ",\n   ".join(json.dumps(row) for row in val)
                lines.append(f'  "{key}": [\n   {rows}\n  ]{end}')
        lines.append(" }" + ("," if i + 1 < len(expected) else ""))
    lines.append("}")
    (HERE / "expected.json").write_text("\n".join(lines) + "\n")
    print(f"wrote {HERE / 'expected.json'} ({len(expected)} cases, numpy {np.__version__})")


if __name__ == "__main__":
    main()

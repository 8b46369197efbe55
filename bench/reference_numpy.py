#!/usr/bin/python3
"""The numpy script an engineer would write instead of attn: the same intermediates, float64.

Reads an attn model file (attn init -o FILE), computes every step of multi-head
self-attention as attn does (no mask, no positions, no biases: the benchmark's cases), and
dumps them all with json.dump, or with --no-dump only computes and prints the seconds the
math took. Run it with Debian's python3 (/usr/bin/python3) and python3-numpy.
"""
import argparse
import json
import re
import sys
import time

import numpy as np


def read_model(path):
    """An attn model file is JSON with // comment lines."""
    with open(path, encoding="utf-8") as f:
        text = "".join(line for line in f if not re.match(r"\s*//", line))
    return json.loads(text)


def attention(model):
    tokens = model["sentence"].split()
    vectors = model["embeddings"]["vectors"]
    w = model["weights"]
    heads = w.get("heads", 1)
    x = np.array([vectors[t] for t in tokens], dtype=np.float64)
    w_q, w_k, w_v = (np.array(w[k], dtype=np.float64) for k in ("W_Q", "W_K", "W_V"))
    w_o = np.array(w["W_O"], dtype=np.float64) if "W_O" in w else None
    d_k = w_q.shape[1] // heads
    d_v = w_v.shape[1] // heads
    steps = {"tokens": tokens, "X": x, "W_Q": w_q, "W_K": w_k, "W_V": w_v}
    zs = []
    for h in range(heads):
        q = x @ w_q[:, h * d_k:(h + 1) * d_k]
        k = x @ w_k[:, h * d_k:(h + 1) * d_k]
        v = x @ w_v[:, h * d_v:(h + 1) * d_v]
        s = q @ k.T
        s_scaled = s / np.sqrt(d_k)
        e = np.exp(s_scaled - s_scaled.max(axis=1, keepdims=True))
        a = e / e.sum(axis=1, keepdims=True)
        z = a @ v
        steps[f"head{h + 1}"] = {"Q": q, "K": k, "V": v, "scores": s,
                                 "scaled_scores": s_scaled, "weights": a, "output": z}
        zs.append(z)
    if w_o is not None:
        concat = np.concatenate(zs, axis=1)
        steps["concat"] = concat
        steps["W_O"] = w_o
        steps["output"] = concat @ w_o
    else:
        steps["output"] = zs[0]
    return steps


def to_lists(steps):
    """Arrays (numpy's or torch's) as nested lists, for json.dump."""
    if isinstance(steps, dict):
        return {k: to_lists(v) for k, v in steps.items()}
    if hasattr(steps, "tolist"):
        return steps.tolist()
    return steps


def run(attention, description):
    """The command line shared by the references: compute with `attention`, then dump."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model", help="an attn model file")
    parser.add_argument("--json", help="dump every intermediate to this file")
    parser.add_argument("--no-dump", action="store_true", help="compute only; print the seconds")
    args = parser.parse_args()
    if not args.no_dump and not args.json:
        parser.error("give --json FILE or --no-dump")
    model = read_model(args.model)
    start = time.perf_counter()
    steps = attention(model)
    math = time.perf_counter() - start
    if not args.no_dump:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(to_lists(steps), f)
    print(f"math {math:.6f} s", file=sys.stderr)


if __name__ == "__main__":
    run(attention, __doc__.splitlines()[0])

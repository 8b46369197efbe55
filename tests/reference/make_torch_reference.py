#!/usr/bin/python3
"""Reference values from PyTorch's nn.MultiheadAttention, in float64, for attn's tests.

Run with Debian's python3 (python3-torch), from the repository root:

    /usr/bin/python3 tests/reference/make_torch_reference.py

For every case it writes a model file under tests/reference/torch/ (embeddings, and the
weights in PyTorch's own layout: in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias,
or, for the *_attn_layout case, the same numbers in attn's layout) and the expected outputs
and per-head attention weights to tests/reference/torch/expected.json. The unit tests read
the model files with attn and compare to 1e-12; they never run Python.
"""
import json
import pathlib

import torch

HERE = pathlib.Path(__file__).resolve().parent / "torch"

CASES = [
    # name, d_model E, heads, tokens, bias, causal, <pad> tokens at the end
    ("one_head", 4, 1, 3, True, False, 0),
    ("two_heads", 6, 2, 4, True, False, 0),
    ("two_heads_no_bias", 6, 2, 4, False, False, 0),
    ("three_heads_causal", 6, 3, 5, True, True, 0),
    ("two_heads_padding", 4, 2, 5, True, False, 2),
]


def rows(t):
    return [[float(x) for x in row] for row in t]


def write_json(path, obj):
    path.write_text(json.dumps(obj, indent=1) + "\n")


def main():
    HERE.mkdir(exist_ok=True)
    torch.manual_seed(20261122)
    expected = {}
    for name, e, h, n, bias, causal, n_pad in CASES:
        mha = torch.nn.MultiheadAttention(e, h, bias=bias, batch_first=True, dtype=torch.float64)
        with torch.no_grad():
            if bias:  # PyTorch starts biases at zero; make them count
                mha.in_proj_bias.uniform_(-0.5, 0.5)
                mha.out_proj.bias.uniform_(-0.5, 0.5)
        x = torch.randn(1, n, e, dtype=torch.float64)
        x[0, n - n_pad:] = 0.0  # attn's <pad> tokens are zero vectors
        tokens = [f"t{i}" for i in range(n - n_pad)]
        # nn.MultiheadAttention's key_padding_mask: True = ignore this key
        padding = None
        if n_pad:
            padding = torch.zeros(1, n, dtype=torch.bool)
            padding[0, n - n_pad:] = True
        mask = None
        if causal:  # nn.MultiheadAttention's boolean attn_mask: True = blocked
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        out, weights = mha(x, x, x, attn_mask=mask, key_padding_mask=padding,
                           need_weights=True, average_attn_weights=False)
        sd = mha.state_dict()
        weights_obj = {"heads": h, "in_proj_weight": rows(sd["in_proj_weight"])}
        if bias:
            weights_obj["in_proj_bias"] = [float(v) for v in sd["in_proj_bias"]]
        weights_obj["out_proj.weight"] = rows(sd["out_proj.weight"])
        if bias:
            weights_obj["out_proj.bias"] = [float(v) for v in sd["out_proj.bias"]]
        model = {
            "schema": "attn.model",
            "description": f"PyTorch reference case {name}: E = {e}, {h} heads",
            "sentence": " ".join(tokens),
            "mask": "causal" if causal else "none",
            "embeddings": {"vectors": {t: [float(v) for v in x[0, i]] for i, t in enumerate(tokens)}},
            "weights": weights_obj,
        }
        if n_pad:
            model["pad_to"] = n
        write_json(HERE / f"{name}.json", model)
        expected[name] = {"output": rows(out[0]), "weights": [rows(w) for w in weights[0]]}
        if name == "two_heads":
            w = sd["in_proj_weight"]
            attn_layout = {
                "heads": h,
                "W_Q": rows(w[0:e].T), "W_K": rows(w[e:2 * e].T), "W_V": rows(w[2 * e:].T),
                "W_O": rows(sd["out_proj.weight"].T),
                "b_Q": [float(v) for v in sd["in_proj_bias"][0:e]],
                "b_K": [float(v) for v in sd["in_proj_bias"][e:2 * e]],
                "b_V": [float(v) for v in sd["in_proj_bias"][2 * e:]],
                "b_O": [float(v) for v in sd["out_proj.bias"]],
            }
            model["description"] = "PyTorch reference case two_heads, in attn's layout"
            model["weights"] = attn_layout
            write_json(HERE / "two_heads_attn_layout.json", model)
            expected["two_heads_attn_layout"] = expected[name]
    write_json(HERE / "expected.json", expected)
    print(f"wrote {len(expected)} cases to {HERE} (torch {torch.__version__})")


if __name__ == "__main__":
    main()

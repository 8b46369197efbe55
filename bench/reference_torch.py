#!/usr/bin/python3
"""The PyTorch script an engineer would write instead of attn: the same intermediates, float64.

The same steps as reference_numpy.py with torch tensors (the products are those of
nn.MultiheadAttention with need_weights=True and average_attn_weights=False), dumped with
json.dump, or with --no-dump only computed. Run it with Debian's python3 and python3-torch.
"""
import torch

from reference_numpy import read_model, run


def attention(model):
    tokens = model["sentence"].split()
    vectors = model["embeddings"]["vectors"]
    w = model["weights"]
    heads = w.get("heads", 1)
    f64 = torch.float64
    x = torch.tensor([vectors[t] for t in tokens], dtype=f64)
    w_q, w_k, w_v = (torch.tensor(w[k], dtype=f64) for k in ("W_Q", "W_K", "W_V"))
    w_o = torch.tensor(w["W_O"], dtype=f64) if "W_O" in w else None
    d_k = w_q.shape[1] // heads
    d_v = w_v.shape[1] // heads
    steps = {"tokens": tokens, "X": x, "W_Q": w_q, "W_K": w_k, "W_V": w_v}
    zs = []
    with torch.no_grad():
        for h in range(heads):
            q = x @ w_q[:, h * d_k:(h + 1) * d_k]
            k = x @ w_k[:, h * d_k:(h + 1) * d_k]
            v = x @ w_v[:, h * d_v:(h + 1) * d_v]
            s = q @ k.T
            s_scaled = s / (d_k ** 0.5)
            a = torch.softmax(s_scaled, dim=1)
            z = a @ v
            steps[f"head{h + 1}"] = {"Q": q, "K": k, "V": v, "scores": s,
                                     "scaled_scores": s_scaled, "weights": a, "output": z}
            zs.append(z)
        if w_o is not None:
            concat = torch.cat(zs, dim=1)
            steps["concat"] = concat
            steps["W_O"] = w_o
            steps["output"] = concat @ w_o
        else:
            steps["output"] = zs[0]
    return steps


if __name__ == "__main__":
    run(attention, __doc__.splitlines()[0])

#!/usr/bin/python3
"""The backward pass against PyTorch's autograd in float64, on random configurations.

Each case draws sizes, heads, a mask, biases, positions and the scaling from a fixed seed,
writes a model file and a target, runs `attn explain --target T --backward --lr 0.1 --json -`,
then runs the same forward pass in torch (float64, from the dump's own X, P and weights) and
compares the loss, every gradient step (grad.*, head*.grad.*), the update and the loss after
it with autograd's, to 1e-10 relative (the largest difference over the largest entry).
  usage: backward_torch.py ATTN [CASES]
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

TOLERANCE = 1e-10


def relative(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        sys.exit(f"FAIL: shape {got.shape}, expected {want.shape}")
    scale = max(np.abs(want).max(), 1e-300)
    return float(np.abs(got - want).max() / scale)


def draw(rng, case):
    heads = int(rng.choice([1, 1, 2, 3]))
    d_k = int(rng.integers(1, 5))
    d_v = int(rng.integers(1, 5))
    d_model = heads * int(rng.integers(1, 4)) if heads > 1 else int(rng.integers(2, 7))
    n_tokens = int(rng.integers(2, 7))
    return {
        "case": case,
        "heads": heads,
        "d_model": d_model,
        "d_k": d_k,
        "d_v": d_v,
        "tokens": [f"t{i}" for i in range(n_tokens)],
        "mask": str(rng.choice(["none", "causal"])),
        "biases": bool(rng.integers(0, 2)),
        "w_o": heads > 1 or bool(rng.integers(0, 2)),
        "positions": str(rng.choice(["none", "sinusoidal"])),
        "no_scale": bool(rng.integers(0, 4) == 0),
    }


def model_file(rng, c):
    d_model, heads, d_k, d_v = c["d_model"], c["heads"], c["d_k"], c["d_v"]

    def m(rows, cols):
        return rng.normal(0.0, 0.7, (rows, cols)).tolist()

    weights = {"heads": heads, "W_Q": m(d_model, heads * d_k), "W_K": m(d_model, heads * d_k),
               "W_V": m(d_model, heads * d_v)}
    if c["w_o"]:
        weights["W_O"] = m(heads * d_v, d_model)
    if c["biases"]:
        weights["b_Q"] = m(1, heads * d_k)[0]
        weights["b_K"] = m(1, heads * d_k)[0]
        weights["b_V"] = m(1, heads * d_v)[0]
        if c["w_o"]:
            weights["b_O"] = m(1, d_model)[0]
    vectors = {t: rng.normal(0.0, 1.0, d_model).tolist() for t in c["tokens"]}
    return {"schema": "attn.model", "sentence": " ".join(c["tokens"]),
            "embeddings": {"vectors": vectors}, "weights": weights}


def main():
    attn = sys.argv[1]
    n_cases = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    rng = np.random.default_rng(20261123)
    worst = 0.0
    compared = 0
    with tempfile.TemporaryDirectory() as work:
        for case in range(n_cases):
            c = draw(rng, case)
            model = model_file(rng, c)
            out_cols = c["d_model"] if c["w_o"] else c["d_v"]
            target = rng.normal(0.0, 1.0, (len(c["tokens"]), out_cols))
            model_path = os.path.join(work, f"model{case}.json")
            target_path = os.path.join(work, f"target{case}.json")
            with open(model_path, "w", encoding="utf-8") as f:
                json.dump(model, f)
            with open(target_path, "w", encoding="utf-8") as f:
                json.dump({"target": target.tolist()}, f)
            args = [attn, "explain", "--model", model_path, "--target", target_path,
                    "--backward", "--lr", "0.1", "--json", "-", "--mask", c["mask"],
                    "--positions", c["positions"]]
            if c["no_scale"]:
                args.append("--no-scale")
            run = subprocess.run(args, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"FAIL: case {c}: attn exited {run.returncode}: {run.stderr}")
            dump = json.loads(run.stdout)
            steps = {s["id"]: s for s in dump["steps"]}

            def value(step_id):
                return torch.tensor(steps[step_id]["values"], dtype=torch.float64)

            # the forward pass in torch, from the dump's inputs
            x = value("embeddings").requires_grad_()
            p = value("positions").requires_grad_() if c["positions"] != "none" else None
            w = {name: value(name).requires_grad_() for name in ("W_Q", "W_K", "W_V")}
            if c["w_o"]:
                w["W_O"] = value("W_O").requires_grad_()
            if c["biases"]:
                for name in ("b_Q", "b_K", "b_V") + (("b_O",) if c["w_o"] else ()):
                    w[name] = value(name).requires_grad_()
            x_in = x + p if p is not None else x
            n = len(c["tokens"])
            blocked = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
            divisor = 1.0 if c["no_scale"] else math.sqrt(c["d_k"])
            q_all = x_in @ w["W_Q"] + (w["b_Q"] if c["biases"] else 0)
            k_all = x_in @ w["W_K"] + (w["b_K"] if c["biases"] else 0)
            v_all = x_in @ w["W_V"] + (w["b_V"] if c["biases"] else 0)
            kept = {}
            outputs = []
            for h in range(c["heads"]):
                dk, dv = c["d_k"], c["d_v"]
                q = q_all[:, h * dk:(h + 1) * dk]
                k = k_all[:, h * dk:(h + 1) * dk]
                v = v_all[:, h * dv:(h + 1) * dv]
                for t in (q, k, v):
                    t.retain_grad()
                s = q @ k.T
                s.retain_grad()
                s_scaled = s / divisor
                s_scaled.retain_grad()
                s_masked = s_scaled.masked_fill(blocked, -math.inf) if c["mask"] == "causal" \
                    else s_scaled
                a = torch.softmax(s_masked, dim=-1)
                a.retain_grad()
                z = a @ v
                z.retain_grad()
                outputs.append(z)
                kept[h] = {"Q": q, "K": k, "V": v, "scores": s, "scaled_scores": s_scaled,
                           "weights": a, "output": z}
            if c["w_o"]:
                concat = torch.cat(outputs, dim=1)
                concat.retain_grad()
                out = concat @ w["W_O"] + (w["b_O"] if c["biases"] else 0)
            else:
                out = outputs[0]
            out.retain_grad()
            loss = ((out - torch.tensor(target)) ** 2).mean()
            loss.backward()

            checks = [("loss", dump["loss"], loss.item()), ("grad.output", steps["grad.output"]["values"], out.grad)]
            if c["w_o"]:
                checks.append(("grad.concat", steps["grad.concat"]["values"], concat.grad))
            for name, tensor in w.items():
                if name == "b_K":
                    # softmax ignores a shift of a whole row, and b_K shifts row i by q_i·b_K:
                    # its gradient is 0 up to rounding, in both; compared absolutely
                    got = np.abs(np.asarray(steps["grad.b_K"]["values"])).max()
                    scale = np.abs(w["W_K"].grad.numpy()).max()
                    if got > TOLERANCE * scale or np.abs(tensor.grad.numpy()).max() > TOLERANCE * scale:
                        sys.exit(f"FAIL: case {c}: grad.b_K is {got}, expected 0 up to rounding")
                    continue
                checks.append(("grad." + name, steps["grad." + name]["values"], tensor.grad))
            checks.append(("grad.X", steps["grad.X"]["values"], x.grad))
            if p is not None:
                checks.append(("grad.X as dP", steps["grad.X"]["values"], p.grad))
            for h in range(c["heads"]):
                prefix = f"head{h + 1}." if c["w_o"] else ""
                for name in ("output", "weights", "V", "scaled_scores", "scores", "Q", "K"):
                    got = steps[prefix + "grad." + name]["values"]
                    checks.append((prefix + "grad." + name, got, kept[h][name].grad))
            with torch.no_grad():
                for name, tensor in w.items():
                    checks.append(("update." + name, steps["update." + name]["values"],
                                   tensor - 0.1 * tensor.grad))
            for name, got, want in checks:
                error = relative(got, want.detach().numpy() if torch.is_tensor(want) else want)
                compared += 1
                worst = max(worst, error)
                if error > TOLERANCE:
                    sys.exit(f"FAIL: case {c}: {name} differs from PyTorch's by {error:.3g} "
                             f"relative (tolerance {TOLERANCE})")
    print(f"ok: {n_cases} random configurations, {compared} gradients and updates agree with "
          f"PyTorch autograd (float64) to {worst:.3g} relative at worst")


if __name__ == "__main__":
    main()

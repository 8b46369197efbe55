#!/usr/bin/python3
"""GPT-2-shaped checkpoints with random weights, and every intermediate of their forward pass.

    /usr/bin/python3 tests/reference/make_gpt2_reference.py OUT_DIR [--cases NAME,...]
    /usr/bin/python3 tests/reference/make_gpt2_reference.py --self-test
    /usr/bin/python3 tests/reference/make_gpt2_reference.py --large OUT_DIR
      (GPT-2 small's sizes, 124M parameters, random F32 weights, for bench/gpt2.py)
    /usr/bin/python3 tests/reference/make_gpt2_reference.py --compare DIR_A DIR_B
      (the cases of DIR_A, e.g. the committed tests/reference/gpt2, against DIR_B's)

Each case is a folder as Hugging Face saves GPT-2 (model.safetensors, config.json, vocab.json,
merges.txt) plus expected.json: the text, its token ids, and for that input every value the
walk-through shows, computed here in float64 from the weights as stored (F32, F16 or BF16,
converted back to float64 exactly), and reference.safetensors: every tensor of the model in F64,
as torch converts it, to check a reader's conversion against.

Nothing here comes from attn. The forward pass is written out by hand in torch float64 (Conv1D
layout: a weight is [in, out] and y = x·W + b); --self-test checks its pieces against torch's
own (nn.MultiheadAttention with a causal mask, F.layer_norm, F.gelu(approximate="tanh")) and the
safetensors writer against a reader written separately. Needs Debian's python3-torch and
python3-numpy; the weights come from numpy's RandomState, whose stream never changes, so a case
is the same file on every machine.
"""
import json
import math
import re
import struct
import sys
from pathlib import Path

import numpy as np
import torch

assert sys.byteorder == "little", "safetensors files are little-endian"

# name: (n_embd, n_head, n_layer, n_ctx, dtype, prefix, seed, text)
CASES = {
    "tiny-f32": (8, 2, 2, 16, "F32", "", 1, "He took the hat and examined it"),
    "small-f16": (16, 4, 3, 32, "F16", "transformer.", 2,
                  "He took the hat and examined it carefully."),
    "wide-bf16": (32, 4, 2, 32, "BF16", "", 3, "The cat sat on the mat, and the hat sat on it."),
}
TORCH_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
                "F64": torch.float64}
CORPUS = ("He took the hat and examined it carefully. The cat sat on the mat. "
          "She said that the hat on the mat is the cat's hat, and he took it.")
N_MERGES = 40
LN_EPS = 1e-5


# ---------------------------------------------------------------- the tokenizer (encoder.py)

def bytes_to_unicode():
    """GPT-2's table: printable Latin-1 stands for itself, other bytes are U+0100 + n."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


BYTE_ENCODER = bytes_to_unicode()
# GPT-2's pattern for ASCII text (Python's re has no \p{L}; the texts here are ASCII)
PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def pieces(text):
    assert text.isascii()
    return ["".join(BYTE_ENCODER[b] for b in p.encode("utf-8")) for p in PATTERN.findall(text)]


def train_bpe(corpus, n_merges):
    """The most frequent pair first, ties broken by the pair itself: a tiny, fixed merges list."""
    words = {}
    for p in pieces(corpus):
        words[tuple(p)] = words.get(tuple(p), 0) + 1
    merges = []
    for _ in range(n_merges):
        counts = {}
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        merges.append(best)
        merged = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
    return merges


def make_vocabulary():
    merges = train_bpe(CORPUS, N_MERGES)
    vocab = {c: i for i, c in enumerate(BYTE_ENCODER.values())}  # GPT-2's order of the bytes
    for a, b in merges:
        vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, merges


def bpe(piece, ranks):
    """encoder.py's bpe(): merge the lowest-ranked pair everywhere, left to right, repeatedly."""
    word = list(piece)
    while len(word) > 1:
        pairs = set(zip(word, word[1:]))
        best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                out.append(word[i] + word[i + 1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        word = out
    return word


def encode(text, vocab, merges):
    ranks = {pair: i for i, pair in enumerate(merges)}
    return [vocab[t] for p in pieces(text) for t in bpe(p, ranks)]


# ---------------------------------------------------------------- the model, by hand in float64

def make_weights(n_embd, n_layer, n_ctx, vocab_size, seed):
    """Random GPT-2 weights (float64) with non-trivial layer norms and biases."""
    rng = np.random.RandomState(seed)
    normal = lambda scale, *shape: rng.normal(0.0, scale, size=shape)
    w = {"wte.weight": normal(0.5, vocab_size, n_embd), "wpe.weight": normal(0.2, n_ctx, n_embd)}
    for l in range(n_layer):
        h = f"h.{l}."
        w[h + "ln_1.weight"] = 1 + normal(0.1, n_embd)
        w[h + "ln_1.bias"] = normal(0.1, n_embd)
        w[h + "attn.c_attn.weight"] = normal(0.3, n_embd, 3 * n_embd)
        w[h + "attn.c_attn.bias"] = normal(0.1, 3 * n_embd)
        w[h + "attn.c_proj.weight"] = normal(0.3, n_embd, n_embd)
        w[h + "attn.c_proj.bias"] = normal(0.1, n_embd)
        w[h + "ln_2.weight"] = 1 + normal(0.1, n_embd)
        w[h + "ln_2.bias"] = normal(0.1, n_embd)
        w[h + "mlp.c_fc.weight"] = normal(0.3, n_embd, 4 * n_embd)
        w[h + "mlp.c_fc.bias"] = normal(0.1, 4 * n_embd)
        w[h + "mlp.c_proj.weight"] = normal(0.3, 4 * n_embd, n_embd)
        w[h + "mlp.c_proj.bias"] = normal(0.1, n_embd)
    w["ln_f.weight"] = 1 + normal(0.1, n_embd)
    w["ln_f.bias"] = normal(0.1, n_embd)
    # tiny numbers, so that F16 files hold subnormals (below 2^-14) and -0.0 (below 2^-25)
    w[f"h.{n_layer - 1}.ln_2.bias"] *= 1e-6
    return w


def stored(weights, dtype):
    """The weights as the file stores them (torch's round to nearest even), and back in f64."""
    out = {}
    for name, value in weights.items():
        t = torch.tensor(value, dtype=torch.float64).to(TORCH_DTYPES[dtype])
        out[name] = t
    return out


def layer_norm(x, weight, bias):
    # over the last dimension: (x - mean) / sqrt(var + eps), var the biased variance
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + LN_EPS) * weight + bias


def gelu_new(x):
    # GPT-2's "gelu_new": the tanh approximation of GELU
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def attention(q, k, v, n_head):
    """Causal attention of every head: q, k, v (T, C) → per head scores, ..., output (T, d)."""
    T, C = q.shape
    d = C // n_head
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))  # True = may attend
    heads = []
    for h in range(n_head):
        cols = slice(h * d, (h + 1) * d)
        scores = q[:, cols] @ k[:, cols].T                          # (T, T)
        scaled = scores / math.sqrt(d)                              # ÷ √d_head
        masked = scaled.masked_fill(~mask, float("-inf"))
        weights = torch.exp(masked - masked.max(dim=-1, keepdim=True).values)
        weights = weights / weights.sum(dim=-1, keepdim=True)       # softmax, row by row
        heads.append({"q": q[:, cols], "k": k[:, cols], "v": v[:, cols], "scores": scores,
                      "scaled": scaled, "masked": masked, "weights": weights,
                      "output": weights @ v[:, cols]})
    return mask, heads


def forward(w, ids, n_head, n_layer):
    """Every intermediate of GPT-2's forward pass for the token ids, in float64."""
    f = {name: t.to(torch.float64) for name, t in w.items()}
    T = len(ids)
    out = {"wte_rows": f["wte.weight"][ids], "wpe_rows": f["wpe.weight"][:T]}
    x = out["wte_rows"] + out["wpe_rows"]
    out["embeddings"] = x
    layers = []
    for l in range(n_layer):
        p = lambda name: f[f"h.{l}.{name}"]
        mean = x.mean(dim=-1, keepdim=True)
        r = {"residual": x, "ln_1_mean": mean,
             "ln_1_variance": ((x - mean) ** 2).mean(dim=-1, keepdim=True),
             "ln_1_weight": p("ln_1.weight"), "ln_1_bias": p("ln_1.bias"),
             "c_attn_weight": p("attn.c_attn.weight"), "c_attn_bias": p("attn.c_attn.bias"),
             "c_proj_weight": p("attn.c_proj.weight"), "c_proj_bias": p("attn.c_proj.bias"),
             "ln_1": layer_norm(x, p("ln_1.weight"), p("ln_1.bias"))}
        r["c_attn"] = r["ln_1"] @ p("attn.c_attn.weight") + p("attn.c_attn.bias")
        q, k, v = r["c_attn"].split(x.shape[1], dim=1)
        mask, r["heads"] = attention(q, k, v, n_head)
        r["concat"] = torch.cat([h["output"] for h in r["heads"]], dim=1)
        r["attn_c_proj"] = r["concat"] @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
        r["attn_change"] = r["attn_c_proj"].norm(dim=1)  # ‖Δ‖ of each token's vector
        x = x + r["attn_c_proj"]
        r["residual_attn"] = x
        r["ln_2"] = layer_norm(x, p("ln_2.weight"), p("ln_2.bias"))
        r["c_fc"] = r["ln_2"] @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias")
        r["gelu"] = gelu_new(r["c_fc"])
        r["mlp_c_proj"] = r["gelu"] @ p("mlp.c_proj.weight") + p("mlp.c_proj.bias")
        r["mlp_change"] = r["mlp_c_proj"].norm(dim=1)
        x = x + r["mlp_c_proj"]
        r["residual_mlp"] = x
        layers.append(r)
    out["mask"] = mask
    out["layers"] = layers
    out["ln_f"] = layer_norm(x, f["ln_f.weight"], f["ln_f.bias"])
    out["logits_last"] = out["ln_f"][-1] @ f["wte.weight"].T  # the LM head is wte, tied
    return out


# ---------------------------------------------------------------- files

def safetensors_bytes(tensors, prefix=""):
    """A safetensors file: tensors in order of name, the header padded with spaces to 8 bytes."""
    names = {"F64": "F64", "F32": "F32", "F16": "F16", "BF16": "BF16"}
    dtype_of = {v: k for k, v in TORCH_DTYPES.items()}
    header, data, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = t.view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[prefix + name] = {"dtype": names[dtype_of[t.dtype]], "shape": list(t.shape),
                                 "data_offsets": [offset, offset + len(raw)]}
        data.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(data)


def read_safetensors(blob):
    """A separate reader, for the self-test: name → float64 numpy array."""
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    data = blob[8 + n:]
    kinds = {"F64": "<f8", "F32": "<f4", "F16": "<f2"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        if info["dtype"] == "BF16":
            bits = np.frombuffer(data[begin:end], dtype="<u2").astype(np.uint32) << 16
            values = bits.view(np.float32).astype(np.float64)
        else:
            values = np.frombuffer(data[begin:end], dtype=kinds[info["dtype"]]).astype(np.float64)
        out[name] = values.reshape(info["shape"])
    return out


def as_json(value):
    """Numbers as Python writes them (shortest round trip), -inf as the string "-inf"."""
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bool:
            return value.tolist()
        return as_json(value.tolist())
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, float) and math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return value


def make_case(out_dir, name):
    n_embd, n_head, n_layer, n_ctx, dtype, prefix, seed, text = CASES[name]
    vocab, merges = make_vocabulary()
    ids = encode(text, vocab, merges)
    assert len(ids) <= n_ctx, (name, len(ids))
    weights = stored(make_weights(n_embd, n_layer, n_ctx, len(vocab), seed), dtype)
    folder = Path(out_dir) / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.safetensors").write_bytes(safetensors_bytes(weights, prefix))
    as_f64 = {k: v.to(torch.float64) for k, v in weights.items()}
    (folder / "reference.safetensors").write_bytes(safetensors_bytes(as_f64, prefix))
    config = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
              "layer_norm_epsilon": LN_EPS, "model_type": "gpt2", "n_ctx": n_ctx,
              "n_embd": n_embd, "n_head": n_head, "n_inner": None, "n_layer": n_layer,
              "n_positions": n_ctx, "vocab_size": len(vocab)}
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False) + "\n")
    (folder / "merges.txt").write_text(
        "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges), encoding="utf-8")
    result = forward(weights, ids, n_head, n_layer)
    expected = {"case": name, "dtype": dtype, "prefix": prefix, "text": text, "input_ids": ids,
                "tokens": [t for p in pieces(text) for t in bpe(p, {m: i for i, m in
                                                                       enumerate(merges)})],
                **{k: v for k, v in result.items()}}
    (folder / "expected.json").write_text(json.dumps(as_json(expected), ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- checks

def self_test():
    torch.manual_seed(0)
    T, C, H = 7, 12, 3
    x = torch.randn(T, C, dtype=torch.float64)
    w_attn, b_attn = torch.randn(C, 3 * C, dtype=torch.float64), torch.randn(3 * C, dtype=torch.float64)
    w_proj, b_proj = torch.randn(C, C, dtype=torch.float64), torch.randn(C, dtype=torch.float64)
    qkv = x @ w_attn + b_attn
    q, k, v = qkv.split(C, dim=1)
    _, heads = attention(q, k, v, H)
    ours = torch.cat([h["output"] for h in heads], dim=1) @ w_proj + b_proj
    # PyTorch's own multi-head attention: in_proj is W_attnᵀ (y = x·Wᵀ there), mask True = blocked
    mha = torch.nn.MultiheadAttention(C, H, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(w_attn.T)
        mha.in_proj_bias.copy_(b_attn)
        mha.out_proj.weight.copy_(w_proj.T)
        mha.out_proj.bias.copy_(b_proj)
    blocked = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    theirs, _ = mha(x[:, None], x[:, None], x[:, None], attn_mask=blocked, need_weights=False)
    checks = {"attention == nn.MultiheadAttention with a causal mask": (ours, theirs[:, 0])}
    if hasattr(torch.nn.functional, "scaled_dot_product_attention"):  # torch 2
        sdpa = torch.nn.functional.scaled_dot_product_attention(
            q.view(T, H, C // H).transpose(0, 1), k.view(T, H, C // H).transpose(0, 1),
            v.view(T, H, C // H).transpose(0, 1), is_causal=True)
        checks["attention == scaled_dot_product_attention(is_causal=True)"] = (
            torch.cat([h["output"] for h in heads], dim=1), sdpa.transpose(0, 1).reshape(T, C))
    wl, bl = torch.randn(C, dtype=torch.float64), torch.randn(C, dtype=torch.float64)
    checks["layer_norm == F.layer_norm"] = (
        layer_norm(x, wl, bl), torch.nn.functional.layer_norm(x, (C,), wl, bl, LN_EPS))
    checks["gelu_new == F.gelu(approximate='tanh')"] = (
        gelu_new(x * 3), torch.nn.functional.gelu(x * 3, approximate="tanh"))
    failed = 0
    for what, (a, b) in checks.items():
        error = (a - b).abs().max().item()
        ok = error <= 1e-12 * max(1.0, b.abs().max().item())
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: largest difference {error:.3g}")
    # the writer, read back by the separate reader, and torch's rounding for each dtype
    for dtype in ("F32", "F16", "BF16"):
        values = torch.tensor([[1 / 3, -2.5e-8, 65504.0], [-0.0, 1e-40, 3.0]], dtype=torch.float64)
        t = values.to(TORCH_DTYPES[dtype]) if dtype != "F16" else values.clamp(-65504, 65504).to(torch.float16)
        back = read_safetensors(safetensors_bytes({"a.b": t, "c": t[0]}, "transformer."))
        same = (np.array_equal(back["transformer.a.b"], t.to(torch.float64).numpy())
                and np.array_equal(np.signbit(back["transformer.a.b"]),
                                   np.signbit(t.to(torch.float64).numpy())))
        failed += not same
        print(f"{'ok  ' if same else 'FAIL'} safetensors writer and reader agree on {dtype}")
    vocab, merges = make_vocabulary()
    ids = encode(CASES["tiny-f32"][7], vocab, merges)
    round_trip = "".join(list(vocab)[i] for i in ids) == "".join(pieces(CASES["tiny-f32"][7]))
    failed += not round_trip
    print(f"{'ok  ' if round_trip else 'FAIL'} the tokens of the text spell the text")
    return failed


def compare(dir_a, dir_b):
    """Two outputs of this script: the same files, and expected values within 1e-12."""
    failed, compared = 0, 0
    for case in CASES:
        a, b = Path(dir_a) / case, Path(dir_b) / case
        if not a.exists():
            continue  # only the cases of DIR_A (the committed one: tiny-f32)
        compared += 1
        for name in ("model.safetensors", "reference.safetensors", "config.json", "vocab.json",
                     "merges.txt"):
            if (a / name).read_bytes() != (b / name).read_bytes():
                print(f"FAIL {case}/{name} differs")
                failed += 1

        def close(x, y, where):
            if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
                return all(close(p, q, f"{where}[{i}]") for i, (p, q) in enumerate(zip(x, y)))
            if isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
                return all(close(x[k], y[k], f"{where}.{k}") for k in x)
            if isinstance(x, float) and isinstance(y, float):
                if abs(x - y) <= 1e-12 * max(1.0, abs(y)):
                    return True
            elif x == y:
                return True
            print(f"FAIL {case}/expected.json{where}: {x!r} against {y!r}")
            return False
        ea, eb = (json.loads((d / "expected.json").read_text()) for d in (a, b))
        failed += not close(ea, eb, "")
    if not compared:
        print(f"FAIL no case in {dir_a}")
    return failed if compared else 1


def make_large(out_dir, n_embd=768, n_head=12, n_layer=12, n_ctx=1024, vocab_size=50257):
    """A GPT-2-shaped checkpoint of GPT-2 small's sizes (124M parameters, F32, ~500 MB) with
    random weights, for bench/gpt2.py: written one tensor at a time (numpy only, no forward
    pass), with the small vocabulary of the test cases (its ids are below vocab_size)."""
    vocab, merges = make_vocabulary()
    rng = np.random.RandomState(7)
    shapes = {"wte.weight": (vocab_size, n_embd), "wpe.weight": (n_ctx, n_embd),
              "ln_f.weight": (n_embd,), "ln_f.bias": (n_embd,)}
    for l in range(n_layer):
        h = f"h.{l}."
        shapes.update({h + "ln_1.weight": (n_embd,), h + "ln_1.bias": (n_embd,),
                       h + "attn.c_attn.weight": (n_embd, 3 * n_embd),
                       h + "attn.c_attn.bias": (3 * n_embd,),
                       h + "attn.c_proj.weight": (n_embd, n_embd), h + "attn.c_proj.bias": (n_embd,),
                       h + "ln_2.weight": (n_embd,), h + "ln_2.bias": (n_embd,),
                       h + "mlp.c_fc.weight": (n_embd, 4 * n_embd), h + "mlp.c_fc.bias": (4 * n_embd,),
                       h + "mlp.c_proj.weight": (4 * n_embd, n_embd), h + "mlp.c_proj.bias": (n_embd,)})
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name in sorted(shapes):
        size = int(np.prod(shapes[name])) * 4
        header[name] = {"dtype": "F32", "shape": list(shapes[name]),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name in sorted(shapes):
            values = rng.normal(0.0, 0.02, size=shapes[name])  # GPT-2's initialisation
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                values += 1.0
            f.write(values.astype("<f4").tobytes())
    config = {"activation_function": "gelu_new", "layer_norm_epsilon": LN_EPS,
              "model_type": "gpt2", "n_ctx": n_ctx, "n_embd": n_embd, "n_head": n_head,
              "n_inner": None, "n_layer": n_layer, "n_positions": n_ctx,
              "vocab_size": vocab_size}
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False) + "\n")
    (folder / "merges.txt").write_text(
        "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges), encoding="utf-8")


def main(argv):
    if argv[1:2] == ["--large"] and len(argv) == 3:
        make_large(argv[2])
        print(f"wrote a 124M-parameter GPT-2-shaped checkpoint to {argv[2]}")
        return 0
    if argv[1:2] == ["--self-test"]:
        return 1 if self_test() else 0
    if argv[1:2] == ["--compare"] and len(argv) == 4:
        failed = compare(argv[2], argv[3])
        print("the same files and values" if not failed else f"{failed} differences")
        return 1 if failed else 0
    if len(argv) in (2, 4) and not argv[1].startswith("--"):
        cases = list(CASES) if len(argv) == 2 or argv[2] != "--cases" else argv[3].split(",")
        for case in cases:
            make_case(argv[1], case)
        print(f"wrote {', '.join(cases)} to {argv[1]}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

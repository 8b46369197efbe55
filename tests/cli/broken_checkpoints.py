#!/usr/bin/python3
"""Every error of a GPT-2 checkpoint that issue 15 lists, end to end: attn explain on a broken
copy of the committed checkpoint (tests/reference/gpt2/tiny-f32) must exit with 2, print
nothing on stdout, print "attn: error:" and the expected words on stderr (naming the file,
the place and what was found and expected), leave an existing output file as it was and
write no other.

    tests/cli/broken_checkpoints.py ATTN CHECKPOINT_DIR

Each case is a folder made here from the good one with one thing broken: a missing file,
the safetensors file cut short, its header length past the end or over the limit, offsets
that overlap or run past the data, an unknown or unreadable dtype, a missing or misshapen
tensor, NaN in a tensor, config.json values out of range, the tokenizer's files broken, and
a text longer than the context. Python's standard library only.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SENTENCE = "He took the hat"


def read_model(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    return header, blob[8 + n:]


def write_model(path, header, data, length=None):
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text) if length is None else length))
        f.write(text)
        f.write(data)


def tensors_in_order(header):
    return sorted((k for k in header if k != "__metadata__"),
                  key=lambda k: header[k]["data_offsets"][0])


def cases():
    """(name, change(folder), extra arguments, expected words on stderr)."""

    def remove(name):
        return lambda d: os.remove(os.path.join(d, name))

    def model(change):
        def apply(d):
            path = os.path.join(d, "model.safetensors")
            header, data = read_model(path)
            result = change(header, data)
            if result is not None:
                header, data, length = result
                write_model(path, header, data, length)
            else:
                write_model(path, header, data)
        return apply

    def config(**values):
        def apply(d):
            path = os.path.join(d, "config.json")
            with open(path) as f:
                c = json.load(f)
            c.update(values)
            with open(path, "w") as f:
                json.dump(c, f)
        return apply

    def raw(name, text):
        def apply(d):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        return apply

    def truncate(d):
        path = os.path.join(d, "model.safetensors")
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(size - 100)

    def header_length(value):
        def apply(d):
            path = os.path.join(d, "model.safetensors")
            with open(path, "r+b") as f:
                f.write(struct.pack("<Q", value))
        return apply

    def overlap(header, data):
        order = tensors_in_order(header)
        second = header[order[1]]["data_offsets"]
        header[order[1]]["data_offsets"] = [second[0] - 4, second[1] - 4]
        return None

    def past_end(header, data):
        last = header[tensors_in_order(header)[-1]]
        last["data_offsets"] = [last["data_offsets"][0] + 4, last["data_offsets"][1] + 4]
        return None

    def dtype(name, value):
        def change(header, data):
            header[name]["dtype"] = value
        return change

    def rename(old, new):
        def change(header, data):
            header[new] = header.pop(old)
        return change

    def reshape(name, shape):
        def change(header, data):
            header[name]["shape"] = shape
        return change

    def nan_in(name, element):
        def change(header, data):
            begin = header[name]["data_offsets"][0] + 4 * element
            data = data[:begin] + struct.pack("<f", float("nan")) + data[begin + 4:]
            return header, data, None
        return change

    model_file = "model.safetensors"
    return [
        ("no model.safetensors", remove(model_file), [],
         ["has no model.safetensors, expected a GPT-2 checkpoint folder"]),
        ("no config.json", remove("config.json"), [], ["has no config.json"]),
        ("no tokenizer", lambda d: (remove("vocab.json")(d), remove("merges.txt")(d)), [],
         ["has no vocab.json and merges.txt (or tokenizer.json)"]),
        ("only pytorch_model.bin",
         lambda d: (remove(model_file)(d), raw("pytorch_model.bin", "pickle")(d)), [],
         ["has pytorch_model.bin, a Python pickle, which attn does not read"]),
        ("data cut short", truncate, [],
         [model_file + " (header):", "runs past the end of the data"]),
        ("header length past the end", header_length(10 ** 6), [],
         [model_file + ": the JSON header is 1000000 bytes long, past the end of the file"]),
        ("header too large", header_length(100_000_001), [],
         ["the JSON header is 100000001 bytes long, expected at most 100000000"]),
        ("overlapping offsets", model(overlap), [],
         [model_file + " (header):1:", "overlaps tensor"]),
        ("offsets past the end", model(past_end), [],
         [model_file + " (header):1:", "runs past the end of the data"]),
        ("unknown dtype", model(dtype("wpe.weight", "F12")), [],
         ["[\"wpe.weight\"].dtype: found a string \"F12\", expected one of BOOL"]),
        ("an integer dtype", model(dtype("h.0.ln_1.weight", "I32")), [],
         ["tensor \"h.0.ln_1.weight\" has dtype I32, expected F64, F32, F16 or BF16"]),
        ("an integer dtype in a layer above the one walked",
         model(dtype("h.1.mlp.c_fc.weight", "I32")), ["--layer", "1"],
         ["tensor \"h.1.mlp.c_fc.weight\" has dtype I32, expected F64, F32, F16 or BF16"]),
        ("a missing tensor", model(rename("h.1.attn.c_proj.bias", "h.1.attn.c_proj.b")), [],
         ["has no tensor \"h.1.attn.c_proj.bias\" (nor \"transformer.h.1.attn.c_proj.bias\")",
          "\"h.1.attn.c_proj.b\""]),
        ("a misshapen tensor", model(reshape("h.0.ln_1.weight", [2, 4])), [],
         ["tensor \"h.0.ln_1.weight\" has shape [2, 4], expected [8] (n_embd, from"]),
        ("c_attn in the other layout", model(reshape("h.1.attn.c_attn.weight", [24, 8])), [],
         ["tensor \"h.1.attn.c_attn.weight\" has shape [24, 8], expected [8, 24] "
          "(n_embd × 3·n_embd"]),
        ("NaN in a weight", model(nan_in("h.0.mlp.c_fc.weight", 5)), ["--layer", "2"],
         ["tensor \"h.0.mlp.c_fc.weight\" holds NaN at element 5 ([0, 5] of shape [8, 32])"]),
        ("config: n_embd out of range", config(n_embd=5000), [],
         ["config.json:1:", "n_embd: found a number 5000, expected a whole number from 1 to 4096"]),
        ("config: n_head not a divisor", config(n_head=3), [],
         ["n_head: found 3, which does not divide n_embd = 8"]),
        ("config: no layers", config(n_layer=0), [],
         ["n_layer: found a number 0, expected a whole number from 1 to 128"]),
        ("config: a context too long", config(n_positions=9000), [],
         ["n_positions: found a number 9000, expected a whole number from 1 to 8192"]),
        ("config: epsilon 0", config(layer_norm_epsilon=0), [],
         ["layer_norm_epsilon: found 0, expected a number above 0 and below 1"]),
        ("config: not GPT-2", config(model_type="llama"), [],
         ["model_type: found a string \"llama\", expected \"gpt2\""]),
        ("config: more layers than the file", config(n_layer=3), [],
         ["has no tensor \"h.2.ln_1.weight\""]),
        ("config: a wider vocabulary than wte", config(vocab_size=300), [],
         ["tensor \"wte.weight\" has shape [297, 8], expected [300, 8] (vocab_size × n_embd"]),
        ("config.json not JSON", raw("config.json", "{\"n_embd\": 8,\n"), [],
         ["config.json:2:1: not JSON"]),
        ("vocab.json not an object of ids", raw("vocab.json", "[1, 2]"), [],
         ["vocab.json:1:1:"]),
        ("merges.txt with a broken line", raw("merges.txt", "#version: 0.2\nĠ t h\n"), [],
         ["merges.txt:2:"]),
        ("a text longer than the context", lambda d: None,
         ["--", "He took the hat and examined it carefully and then he took it back"],
         ["expected at most 16 (the model's context, n_ctx)"]),
    ]


def run_case(attn, good, work, name, change, extra, expected):
    folder = os.path.join(work, "checkpoint")
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(good, folder)
    for generated in ("expected.json", "reference.safetensors"):
        if os.path.exists(os.path.join(folder, generated)):
            os.remove(os.path.join(folder, generated))
    change(folder)
    outputs = os.path.join(work, "outputs")
    shutil.rmtree(outputs, ignore_errors=True)
    os.mkdir(outputs)
    existing = os.path.join(outputs, "existing.json")
    with open(existing, "w") as f:
        f.write("precious\n")
    sentence = [] if "--" in extra else [SENTENCE]
    cmd = [attn, "explain", *sentence, "--checkpoint", folder, "--json", existing,
           "--html", os.path.join(outputs, "new.html"), "--npz",
           os.path.join(outputs, "new.npz"), *[a for a in extra if a != "--"]]
    done = subprocess.run(cmd, capture_output=True, text=True)
    problems = []
    if done.returncode != 2:
        problems.append(f"exit code {done.returncode}, expected 2")
    if done.stdout:
        problems.append(f"stdout is not empty: {done.stdout[:200]!r}")
    if not done.stderr.startswith("attn: error: "):
        problems.append("stderr does not start with 'attn: error: '")
    for words in expected:
        if words not in done.stderr:
            problems.append(f"stderr does not contain: {words}")
    with open(existing) as f:
        if f.read() != "precious\n":
            problems.append("the existing output file was changed")
    if sorted(os.listdir(outputs)) != ["existing.json"]:
        problems.append(f"files were written: {sorted(os.listdir(outputs))}")
    print(f"{'ok  ' if not problems else 'FAIL'} {name}: {done.stderr.strip()[:300]}")
    for p in problems:
        print(f"     {p}")
    return not problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    attn, good = sys.argv[1], sys.argv[2]
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, change, extra, expected in cases():
            failed += not run_case(attn, good, work, name, change, extra, expected)
    print(f"{failed} of {len(cases())} cases failed" if failed else f"all {len(cases())} cases ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

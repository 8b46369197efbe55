#!/usr/bin/python3
"""attn explain --checkpoint's JSON dump and .npz against make_gpt2_reference.py's forward pass.

    check_gpt2_dump.py ATTN CASE_DIR...

For each case (a folder made by make_gpt2_reference.py) and each layer, with every head and
with --head 1: runs ATTN with --json and --npz, checks the dump against the trace schema
(docs/schema/attn.trace.schema.json), its token_ids and tokens against the script's, every
step's values against the float64 reference (within 1e-9, relative to the larger of the value
and its matrix's root mean square; -inf exactly), and every array of the .npz, loaded with
numpy.load, equal to the dump's values bit for bit. A step without a reference fails.
Needs Debian's python3 with numpy and jsonschema.
"""
import json
import math
import pathlib
import subprocess
import sys
import tempfile

import jsonschema
import numpy as np

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "schema"
failures = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL:", message)


def as_array(values):
    return np.array([[(-math.inf if v == "-inf" else v) for v in row] for row in values],
                    dtype=np.float64)


def reference(expected, layer, step_id):
    L = expected["layers"][layer]
    d = len(expected["embeddings"][0])
    n_head = len(L["heads"])
    d_head = d // n_head
    c_attn_w = np.array(L["c_attn_weight"])
    c_attn_b = np.array([L["c_attn_bias"]])
    block = {"Q": 0, "K": 1, "V": 2}
    head_keys = {"Q": "q", "K": "k", "V": "v", "scores": "scores", "scaled_scores": "scaled",
                 "masked_scores": "masked", "weights": "weights", "output": "output"}
    simple = {"wte": expected["wte_rows"], "wpe": expected["wpe_rows"],
              "embeddings": expected["embeddings"], "residual": L["residual"],
              "ln_1.mean": L["ln_1_mean"], "ln_1.variance": L["ln_1_variance"],
              "ln_1.weight": [L["ln_1_weight"]], "ln_1.bias": [L["ln_1_bias"]],
              "ln_1": L["ln_1"], "concat": L["concat"], "W_O": L["c_proj_weight"],
              "b_O": [L["c_proj_bias"]], "output": L["attn_c_proj"],
              "residual_attn": L["residual_attn"], "mlp": L["mlp_c_proj"],
              "residual_mlp": L["residual_mlp"], "mask": expected["mask"]}
    if step_id in simple:
        return np.array(as_array(simple[step_id]) if step_id != "mask" else simple[step_id])
    if step_id == "layers_below":
        rows = []
        for l in range(layer):
            rows.append(expected["layers"][l]["attn_change"])
            rows.append(expected["layers"][l]["mlp_change"])
        return np.array(rows)
    if step_id in ("W_Q", "W_K", "W_V"):
        b = block[step_id[2]]
        return c_attn_w[:, b * d:(b + 1) * d]
    if step_id in ("b_Q", "b_K", "b_V"):
        b = block[step_id[2]]
        return c_attn_b[:, b * d:(b + 1) * d]
    if step_id.startswith("head"):
        head, name = step_id.split(".", 1)
        h = int(head[4:]) - 1
        if name in ("W_Q", "W_K", "W_V"):
            b = block[name[2]]
            return c_attn_w[:, b * d + h * d_head:b * d + (h + 1) * d_head]
        if name in head_keys:
            return as_array(L["heads"][h][head_keys[name]])
    return None


def close(got, want, where):
    if got.shape != want.shape:
        fail(f"{where}: shape {got.shape}, expected {want.shape}")
        return
    finite = np.isfinite(want)
    if not np.array_equal(np.isfinite(got), finite) or not np.array_equal(got[~finite],
                                                                          want[~finite]):
        fail(f"{where}: the infinite cells differ")
        return
    rms = math.sqrt(float(np.mean(want[finite] ** 2))) if finite.any() else 0.0
    scale = np.maximum(np.abs(want[finite]), rms)
    error = np.abs(got[finite] - want[finite]) / np.where(scale > 0, scale, 1.0)
    if error.size and error.max() > 1e-9:
        fail(f"{where}: relative error {error.max():.3g}")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    attn, cases = argv[0], argv[1:]
    store = {}
    for p in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(p.read_text(encoding="utf-8"))
        store[schema["$id"]] = schema
    schema = store["urn:attn:schema:trace"]
    validator = jsonschema.Draft202012Validator(
        schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            expected = json.loads((pathlib.Path(case) / "expected.json").read_text("utf-8"))
            config = json.loads((pathlib.Path(case) / "config.json").read_text("utf-8"))
            for layer in range(config["n_layer"]):
                for head in ("all", "1"):
                    dump = pathlib.Path(tmp) / "dump.json"
                    npz = pathlib.Path(tmp) / "steps.npz"
                    where = f"{case} --layer {layer + 1} --head {head}"
                    run = subprocess.run(
                        [attn, "explain", expected["text"], "--checkpoint", case, "--layer",
                         str(layer + 1), "--head", head, "--json", str(dump), "--npz", str(npz),
                         "--format", "none"], capture_output=True, text=True)
                    if run.returncode != 0:
                        fail(f"{where}: exit {run.returncode}: {run.stderr}")
                        continue
                    runs += 1
                    trace = json.loads(dump.read_text("utf-8"))
                    for e in list(validator.iter_errors(trace))[:3]:
                        fail(f"{where}: schema: {'/'.join(map(str, e.path))}: {e.message}")
                    if trace["token_ids"] != expected["input_ids"]:
                        fail(f"{where}: token_ids {trace['token_ids']}")
                    if trace["checkpoint"]["token_texts"] != expected["tokens"]:
                        fail(f"{where}: token_texts {trace['checkpoint']['token_texts']}")
                    arrays = np.load(npz)
                    names = set(arrays.files)
                    if not np.array_equal(arrays["token_ids"], np.array(expected["input_ids"])):
                        fail(f"{where}: token_ids.npy")
                    names.discard("token_ids")
                    for step in trace["steps"]:
                        sid = step["id"]
                        if sid == "tokens":
                            continue
                        names.discard(sid)
                        want = reference(expected, layer, sid)
                        if want is None:
                            fail(f"{where}: {sid}: no reference for this step")
                            continue
                        if sid == "mask":
                            got = np.array(step["values"], dtype=bool)
                            if not np.array_equal(got, want) or \
                                    not np.array_equal(arrays[sid], got):
                                fail(f"{where}: mask")
                            continue
                        got = as_array(step["values"])
                        close(got, want, f"{where}: {sid}")
                        if sid not in arrays.files:
                            fail(f"{where}: {sid} is not in the .npz")
                        elif arrays[sid].dtype != np.float64 or \
                                arrays[sid].tobytes() != got.tobytes():
                            fail(f"{where}: {sid}: the .npz differs from the dump")
                    if names:
                        fail(f"{where}: arrays in the .npz that are not steps: {sorted(names)}")
    print(f"{runs} runs checked, {failures} failures")
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""Writes the seeds of fuzz_safetensors into tests/fuzz/seeds/safetensors/: small files of every
dtype and shape, with metadata, the "transformer." prefix and zero-sized tensors, in the raw
form (the 8-byte length first) and in the target's "J" form: "J" + header + NUL + data."""
import json
import struct
from pathlib import Path

HERE = Path(__file__).parent / "safetensors"


def header_and_data(tensors, metadata=None):
    header = {"__metadata__": metadata} if metadata else {}
    data, offset = b"", 0
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    return json.dumps(header).encode(), data


SEEDS = {
    "f32-matrix": [("wte.weight", "F32", [2, 3], struct.pack("<6f", 1, -2, 0.5, 3e-38, -0.0, 7))],
    "f16-subnormal": [("h.0.ln_1.bias", "F16", [4], struct.pack("<4H", 1, 0x3ff, 0x7bff, 0x8000))],
    "bf16-prefix": [("transformer.wpe.weight", "BF16", [1, 2], struct.pack("<2H", 0x3f80, 0x0001))],
    "f64-scalar": [("s", "F64", [], struct.pack("<d", 0.1))],
    "mixed": [("a", "I64", [1], struct.pack("<q", -5)), ("b", "U8", [0], b""),
              ("c", "BOOL", [2], b"\x01\x00"), ("d", "F16", [1], struct.pack("<H", 0x7e00))],
}
if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, tensors in SEEDS.items():
        header, data = header_and_data(tensors, {"format": "pt"} if name == "mixed" else None)
        padded = header + b" " * (-len(header) % 8)
        (HERE / f"{name}.safetensors").write_bytes(struct.pack("<Q", len(padded)) + padded + data)
        (HERE / f"{name}.J").write_bytes(b"J" + header + b"\0" + data)
    (HERE / "empty.J").write_bytes(b"J{}")

#!/usr/bin/python3
"""Python's json module reads the numbers of attn's dump back bit for bit.

An embeddings file of awkward doubles (-0.0, subnormals, powers of ten, integers around and
beyond 2^53) goes through `attn explain --json -`; the dump's embeddings step must hold the
same doubles, and every number in the dump must be plain JSON (no NaN or Infinity).
  usage: python_numbers.py ATTN
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

VALUES = [-0.0, 0.0, 5e-324, -1.5e-323, 2.2250738585072014e-308, 2.225073858507201e-308,
          1e-05, 0.0001, 0.00012, 0.1, 1 / 3, -2.5, 100000.0, 123456.0, 9007199254740992.0,
          9007199254740994.0, 2.0**60, 1e16, 1e20, 1e22, 25034613562271801344.0,
          123456789012345680.0, 0.30000000000000004, -0.0007626450645834362]


def bits(x):
    return struct.pack("<d", float(x))


def no_constant(name):
    sys.exit(f"FAIL: the dump holds {name}, which is not JSON")


def main():
    attn = sys.argv[1]
    rows = {"a": VALUES, "b": VALUES[::-1], "c": [-x for x in VALUES]}
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "edges.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"vectors": rows}, f)  # repr: the shortest text that reads back exactly
        dump = subprocess.run([attn, "explain", "a b c", "--embeddings", path, "--json", "-"],
                              check=True, capture_output=True, text=True).stdout
    trace = json.loads(dump, parse_constant=no_constant)
    step = next(s for s in trace["steps"] if s["id"] == "embeddings")
    for token, row in zip("abc", step["values"]):
        for got, want in zip(row, rows[token], strict=True):
            if bits(got) != bits(want) or got != want:
                sys.exit(f"FAIL: {want!r} came back from the dump as {got!r}")
            if math.copysign(1.0, got) != math.copysign(1.0, want):
                sys.exit(f"FAIL: {want!r} lost its sign: {got!r}")
    print(f"ok: {3 * len(VALUES)} numbers read back bit for bit")


if __name__ == "__main__":
    main()

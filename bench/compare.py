#!/usr/bin/env python3
"""Two attn binaries, interleaved: which is faster on the same machine at the same moment.

Usage: bench/compare.py OLD_ATTN NEW_ATTN MODEL.json [MODEL.json ...] [--runs N]

For each model file (make them as bench/bench.py does, e.g. case c:
  attn init $(seq -f 'w%g' 0 511) --d-model 256 --heads 8 --d-k 32 --d-v 32 -o c.json)
it runs `attn explain --model FILE --format none --json OUT` once per binary to warm the
caches, then N times alternating the order (old, new, new, old, ...), so that a busy
neighbour slows both alike, and prints the medians and their ratio. Whole processes, as a
user runs them. This is a measurement, never a test: it checks nothing about time.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "dump.json")
        for model in a.models:
            args = ["explain", "--model", model, "--format", "none", "--json", out]
            times = {a.old: [], a.new: []}
            for binary in (a.old, a.new):
                subprocess.run([binary] + args, capture_output=True, check=True)
            for i in range(a.runs):
                for binary in ((a.old, a.new) if i % 2 == 0 else (a.new, a.old)):
                    start = time.perf_counter()
                    subprocess.run([binary] + args, capture_output=True, check=True)
                    times[binary].append(time.perf_counter() - start)
            old, new = statistics.median(times[a.old]), statistics.median(times[a.new])
            print(f"{os.path.basename(model)}: old {old:.4f} s, new {new:.4f} s, "
                  f"new/old {new / old:.2f} (median of {a.runs} interleaved runs; old "
                  f"{min(times[a.old]):.4f}–{max(times[a.old]):.4f} s, new "
                  f"{min(times[a.new]):.4f}–{max(times[a.new]):.4f} s; load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()

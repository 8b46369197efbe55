#!/usr/bin/python3
"""attn explain --checkpoint on a 124M-parameter GPT-2-shaped checkpoint (random F32 weights,
~500 MB, made by tests/reference/make_gpt2_reference.py --large, not committed): an 8-token
sentence at the last layer (12), every head, no output (--format none), as a whole process.

    bench/gpt2.py [--attn build/release/attn] [--checkpoint DIR] [--runs 7]

Prints the median wall time of the runs (after one warm-up, so the file is in the page
cache), the peak resident memory (ru_maxrss, which counts the pages of the mapped file that
were read) and the peak of RssAnon, the memory that is not the mapped file (heap and stack),
sampled from /proc/PID/status every millisecond, against the targets of docs/performance.md:
under 1.0 s, and RssAnon under 0.3 × the checkpoint's size.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# 8 tokens with the test vocabulary (the 256 bytes and 40 merges of make_gpt2_reference.py)
SENTENCE = "He took the hat and examined"


def run_once(cmd):
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    anon = 0
    status = f"/proc/{child.pid}/status"
    while child.poll() is None:
        try:
            with open(status) as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        anon = max(anon, int(line.split()[1]) * 1024)
        except (FileNotFoundError, ProcessLookupError):
            pass
        time.sleep(0.001)
    code = child.returncode
    elapsed = time.perf_counter() - start
    if code != 0:
        sys.exit(f"bench/gpt2.py: attn failed: {child.stderr.read().decode()}")
    return elapsed, anon


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--attn", default=os.path.join(ROOT, "build", "release", "attn"))
    parser.add_argument("--checkpoint", default=os.path.join(ROOT, "build", "bench-gpt2-124m"))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    model = os.path.join(args.checkpoint, "model.safetensors")
    if not os.path.exists(model):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "reference",
                                                         "make_gpt2_reference.py"), "--large",
                        args.checkpoint], check=True)
    size = os.path.getsize(model)
    base = [args.attn, "explain", SENTENCE, "--checkpoint", args.checkpoint, "--layer", "12"]
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "dump.json")
        subprocess.run(base + ["--json", dump, "--format", "none"], check=True,
                       stderr=subprocess.DEVNULL)  # also the warm-up
        with open(dump) as f:
            n_tokens = len(json.load(f)["token_ids"])
    cmd = base + ["--format", "none"]
    times, anons, maxrss = [], [], []
    for _ in range(args.runs):
        t, anon = run_once(cmd)
        times.append(t)
        anons.append(anon)
        # ru_maxrss of a separate run, from wait4
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execv(cmd[0], cmd)
        _, _, usage = os.wait4(pid, 0)
        maxrss.append(usage.ru_maxrss * 1024)
    t = statistics.median(times)
    anon = max(anons)
    print(f"checkpoint: {model}, {size / 1e6:.1f} MB; {n_tokens} tokens; layer 12 of 12; "
          f"{args.runs} runs, cpus available: {len(os.sched_getaffinity(0))}")
    print(f"whole process: median {t:.3f} s (min {min(times):.3f}, max {max(times):.3f}); "
          f"target < 1.0 s: {'met' if t < 1.0 else 'NOT met'}")
    print(f"peak RSS (ru_maxrss, with the mapped pages read): {statistics.median(maxrss) / 1e6:.1f} MB")
    print(f"peak RssAnon (beyond the mapped file): {anon / 1e6:.1f} MB = {anon / size:.3f} x the "
          f"checkpoint; target < 0.3 x: {'met' if anon < 0.3 * size else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""attn train: the time to train a task with its defaults, its held-out accuracy, and its
memory across epochs, as whole processes (issue 16's targets: coreference reaches at least 95%
held-out accuracy in under 10 s on 2 cores, with memory flat across epochs).

    bench/train.py [--attn build/release/attn] [--baseline OTHER_ATTN] [--task coreference]
                   [--runs 5] [--threads N]

Each binary trains the task once first (the warm-up, whose report gives the accuracy); then the
timed runs alternate between the binaries (with --baseline), so that both see the same load.
It prints for each binary the median wall and CPU time (user + sys, from wait4) and its ratio
to the 10 s target, the held-out accuracy against the 95% target, and the peak RssAnon (heap
and stack, sampled from /proc/PID/status) of a run of 4 passes over the training examples and
of one of 32 passes: flat means the longer run's peak is within 5% of the shorter's. With
--baseline it prints the ratios attn / baseline.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from gpt2 import run_once

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET_SECONDS = 10.0
TARGET_ACCURACY = 95.0
FLAT = 1.05


def accuracy(binary, command):
    """Runs the command once and reads the held-out accuracy from its report."""
    out = subprocess.run([binary, *command], check=True, capture_output=True, text=True).stdout
    found = re.search(r"held out\s+accuracy ([0-9.]+)%", out)
    if not found:
        sys.exit(f"bench/train.py: no held-out accuracy in the report of {binary}:\n{out}")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--attn", default=os.path.join(ROOT, "build", "release", "attn"))
    parser.add_argument("--baseline", help="another attn binary, run interleaved with --attn")
    parser.add_argument("--task", default="coreference")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, help="attn's --threads (default: attn's own)")
    args = parser.parse_args()
    binaries = [("attn", args.attn)] + ([("baseline", args.baseline)] if args.baseline else [])
    threads = ["--threads", str(args.threads)] if args.threads else []
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.json")
        base = ["train", args.task, "-o", model, "--force"]
        command = [*base, *threads]
        accuracies = {name: accuracy(binary, command) for name, binary in binaries}
        runs = {name: [] for name, _ in binaries}
        load_before = os.getloadavg()[0]
        for _ in range(args.runs):
            for name, binary in binaries:
                runs[name].append(run_once([binary, *command]))
        memory = {name: [run_once([binary, *base, "--epochs", epochs, *threads])["anon"]
                         for epochs in ("4", "32")]
                  for name, binary in binaries}
        load_after = os.getloadavg()[0]
    print(f"attn train {args.task} with its defaults{''.join(' ' + t for t in threads)}; "
          f"{args.runs} runs each{', interleaved' if args.baseline else ''}; cpus available: "
          f"{len(os.sched_getaffinity(0))}; load average {load_before:.1f} before, "
          f"{load_after:.1f} after")
    medians = {}
    for name, binary in binaries:
        med = {k: statistics.median(r[k] for r in runs[name]) for k in ("wall", "cpu")}
        walls = [r["wall"] for r in runs[name]]
        short, long = memory[name]
        medians[name] = med
        print(f"{name} ({binary}):")
        print(f"  wall: median {med['wall']:.3f} s (min {min(walls):.3f}, max {max(walls):.3f}) "
              f"= {med['wall'] / TARGET_SECONDS:.3f} x the {TARGET_SECONDS:.0f} s target: "
              f"{'met' if med['wall'] < TARGET_SECONDS else 'NOT met'}")
        print(f"  CPU (user + sys): median {med['cpu']:.3f} s")
        print(f"  held-out accuracy: {accuracies[name]:.1f}%; target >= {TARGET_ACCURACY:.0f}%: "
              f"{'met' if accuracies[name] >= TARGET_ACCURACY else 'NOT met'}")
        print(f"  peak RssAnon: {short / 1e6:.1f} MB with --epochs 4, {long / 1e6:.1f} MB with "
              f"--epochs 32 = {long / short:.3f} x; flat (within {FLAT - 1:.0%}): "
              f"{'met' if long <= FLAT * short else 'NOT met'}")
    if args.baseline:
        a, b = medians["attn"], medians["baseline"]
        print(f"attn / baseline: wall {a['wall'] / b['wall']:.2f}, CPU {a['cpu'] / b['cpu']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

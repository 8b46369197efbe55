#!/usr/bin/python3
"""attn explain --checkpoint on a 124M-parameter GPT-2-shaped checkpoint (random F32 weights,
~500 MB, made by tests/reference/make_gpt2_reference.py --large, not committed): an 8-token
sentence at the last layer (12), every head, no output (--format none), as a whole process.

    bench/gpt2.py [--attn build/release/attn] [--baseline OTHER_ATTN] [--checkpoint DIR]
                  [--runs 7]

After one warm-up run of each binary (so the file is in the page cache), the runs alternate
between the binaries (with --baseline), so that both see the same load. For each binary it
prints the median wall time, the median CPU time (user + sys, from wait4: what the process
itself used, whatever else runs on the machine), the page faults, the peak resident memory
(ru_maxrss, which counts the pages of the mapped file that were read) and the peak of
RssAnon, the memory that is not the mapped file (heap and stack), sampled from
/proc/PID/status every millisecond; and the load average, against the targets of
docs/performance.md: under 1.0 s, and RssAnon under 0.3 × the checkpoint's size.
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
    """One run: wall seconds, CPU seconds, minor page faults, ru_maxrss and RssAnon in bytes."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    anon = 0
    status = f"/proc/{child.pid}/status"
    while True:
        pid, code, usage = os.wait4(child.pid, os.WNOHANG)
        if pid != 0:
            break
        try:
            with open(status) as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        anon = max(anon, int(line.split()[1]) * 1024)
        except (FileNotFoundError, ProcessLookupError):
            pass
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(code) != 0:
        sys.exit(f"{os.path.basename(sys.argv[0])}: attn failed: {child.stderr.read().decode()}")
    return {"wall": elapsed, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime,
            "sys": usage.ru_stime, "faults": usage.ru_minflt + usage.ru_majflt,
            "maxrss": usage.ru_maxrss * 1024, "anon": anon}


def report(name, runs, size):
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    anon = max(r["anon"] for r in runs)
    walls = [r["wall"] for r in runs]
    print(f"{name}:")
    print(f"  wall: median {med['wall']:.3f} s (min {min(walls):.3f}, max {max(walls):.3f}); "
          f"target < 1.0 s: {'met' if med['wall'] < 1.0 else 'NOT met'}")
    print(f"  CPU (user + sys): median {med['cpu']:.3f} s ({med['user']:.3f} + {med['sys']:.3f}); "
          f"page faults: median {med['faults']:.0f}")
    print(f"  peak RSS (ru_maxrss, with the mapped pages read): {med['maxrss'] / 1e6:.1f} MB")
    print(f"  peak RssAnon (beyond the mapped file): {anon / 1e6:.1f} MB = {anon / size:.3f} x "
          f"the checkpoint; target < 0.3 x: {'met' if anon < 0.3 * size else 'NOT met'}")
    return med


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--attn", default=os.path.join(ROOT, "build", "release", "attn"))
    parser.add_argument("--baseline", help="another attn binary, run interleaved with --attn")
    parser.add_argument("--checkpoint", default=os.path.join(ROOT, "build", "bench-gpt2-124m"))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    model = os.path.join(args.checkpoint, "model.safetensors")
    if not os.path.exists(model):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "reference",
                                                         "make_gpt2_reference.py"), "--large",
                        args.checkpoint], check=True)
    size = os.path.getsize(model)
    binaries = [("attn", args.attn)] + ([("baseline", args.baseline)] if args.baseline else [])
    tail = [SENTENCE, "--checkpoint", args.checkpoint, "--layer", "12"]
    n_tokens = None
    with tempfile.TemporaryDirectory() as tmp:
        for _, binary in binaries:  # also the warm-up
            dump = os.path.join(tmp, "dump.json")
            subprocess.run([binary, "explain", *tail, "--json", dump, "--format", "none"],
                           check=True, stderr=subprocess.DEVNULL)
            with open(dump) as f:
                n_tokens = len(json.load(f)["token_ids"])
    runs = {name: [] for name, _ in binaries}
    load_before = os.getloadavg()[0]
    for _ in range(args.runs):
        for name, binary in binaries:
            runs[name].append(run_once([binary, "explain", *tail, "--format", "none"]))
    load_after = os.getloadavg()[0]
    print(f"checkpoint: {model}, {size / 1e6:.1f} MB; {n_tokens} tokens; layer 12 of 12; "
          f"{args.runs} runs each{', interleaved' if args.baseline else ''}; cpus available: "
          f"{len(os.sched_getaffinity(0))}; load average {load_before:.1f} before, "
          f"{load_after:.1f} after")
    medians = {name: report(f"{name} ({binary})", runs[name], size) for name, binary in binaries}
    if args.baseline:
        a, b = medians["attn"], medians["baseline"]
        print(f"attn / baseline: wall {a['wall'] / b['wall']:.2f}, CPU {a['cpu'] / b['cpu']:.2f}, "
              f"page faults {a['faults'] / max(b['faults'], 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

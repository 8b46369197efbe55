#!/usr/bin/python3
"""Times attn against the numpy and PyTorch scripts an engineer would otherwise write.

Every run is a whole process, started fresh: the median of several runs, interleaved
(attn, numpy, torch, attn, numpy, torch, ...) after one warm-up run of each, so that a
noisy neighbour slows all of them alike. Peak memory is the child's ru_maxrss. After the
timing, attn's dump is read row by row and compared with the numpy reference computed in
this process, and PyTorch's values with numpy's, so that the tools are known to compute
the same numbers. Start it through bench/run, which installs what it needs.
"""
import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_numpy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name, tokens, d_model, heads, what is timed, the targets: (tool, at least ×)
CASES = {
    "a": (3, 4, 1, "dump", [("numpy", 30)], "classroom, whole process"),
    "b": (64, 64, 4, "dump", [], "a short passage, full JSON dump (no target)"),
    "c": (512, 256, 8, "dump", [("numpy", 20), ("torch", 10)], "paragraph, full JSON dump"),
    "d": (2048, 512, 8, "compute", [("numpy", 1 / 1.5)], "long, compute only"),
    "D": (2048, 512, 8, "dump", [("numpy", 15)], "long, full JSON dump"),
}
# --quick (CI): the same cases at small sizes, to prove the benchmark works
QUICK = {"a": (3, 4, 1), "b": (16, 16, 2), "c": (48, 32, 4), "d": (96, 64, 4), "D": (96, 64, 4)}


def run(cmd, stderr_path):
    """Runs cmd as a whole process: (seconds, stderr text). posix_spawn (vfork underneath)
    starts it as quickly as a shell would."""
    with open(stderr_path, "w+", encoding="utf-8") as err:
        actions = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
        start = time.perf_counter()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if code != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({code}):\n{text}")
    return seconds, text


def peak_memory(cmd, work):
    """The peak resident memory of cmd in bytes, from GNU time, which starts it from a small
    process: a child of this Python process would count Python's memory in its peak (the
    high-water mark survives exec)."""
    out = os.path.join(work, "peak.txt")
    run(["/usr/bin/time", "-f", "%M", "-o", out] + cmd, os.path.join(work, "stderr.txt"))
    with open(out, encoding="utf-8") as f:
        return int(f.read().split()[-1]) * 1024


def make_model(attn, work, name, tokens, d_model, heads):
    path = os.path.join(work, f"model-{name}.json")
    words = " ".join(f"w{i}" for i in range(tokens))
    d_k = d_model // heads
    subprocess.run([attn, "init", words, "--d-model", str(d_model), "--heads", str(heads),
                    "--d-k", str(d_k), "--d-v", str(d_k), "--seed", "7", "-o", path, "--force"],
                   check=True, stderr=subprocess.DEVNULL)
    return path


def commands(tool, attn, model, mode, dump):
    if tool == "attn":
        cmd = [attn, "explain", "--model", model, "--format", "none", "--stats",
               "--max-memory", "64G"]
        return cmd + (["--json", dump] if mode == "dump" else [])
    script = os.path.join(HERE, f"reference_{tool}.py")
    cmd = ["/usr/bin/python3", script, model]
    return cmd + (["--json", dump] if mode == "dump" else ["--no-dump"])


def attn_dump_rows(path):
    """Yields (step id, matrix) from attn's dump, one row per line, without loading it whole."""
    step, rows = None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith('      "id": '):
                if step is not None and rows:
                    yield step, np.array(rows)
                step, rows = line.split('"')[3], []
            elif line.startswith("        [") and not line.startswith('        ["'):
                body = line.strip().rstrip(",").strip("[]")
                if "true" in body or "false" in body or '"' in body:
                    continue
                rows.append(np.fromstring(body, sep=","))
        if step is not None and rows:
            yield step, np.array(rows)


def reference_steps(steps):
    """numpy's values under attn's step ids."""
    heads = [k for k in steps if k.startswith("head")]
    out = {"embeddings": steps["X"], "W_Q": steps["W_Q"], "W_K": steps["W_K"],
           "W_V": steps["W_V"], "output": steps["output"]}
    for h in heads:
        prefix = f"{h}." if len(heads) > 1 else ""
        for name, value in steps[h].items():
            out[prefix + name] = value
    if "concat" in steps:
        out["concat"] = steps["concat"]
        out["W_O"] = steps["W_O"]
    return out


def relative_difference(a, b):
    scale = max(float(np.max(np.abs(b))), 1e-300)
    return float(np.max(np.abs(a - b))) / scale


def check(model_path, attn_dump, torch_ok):
    """The largest relative difference of attn (and torch) from numpy over every step."""
    model = reference_numpy.read_model(model_path)
    ref = reference_steps(reference_numpy.attention(model))
    worst, compared = 0.0, set()
    for step, values in attn_dump_rows(attn_dump):
        if step in ref:
            if values.shape != ref[step].shape:
                sys.exit(f"bench: attn's {step} is {values.shape}, numpy's {ref[step].shape}")
            worst = max(worst, relative_difference(values, ref[step]))
            compared.add(step)
    missing = set(ref) - compared
    if missing:
        sys.exit(f"bench: attn's dump has no {sorted(missing)}")
    torch_worst = None
    if torch_ok:
        import reference_torch
        theirs = reference_steps(reference_numpy.to_lists(reference_torch.attention(model)))
        torch_worst = max(relative_difference(np.array(theirs[k]), ref[k]) for k in ref)
    return worst, len(compared), torch_worst


def machine():
    cpu = "unknown CPU"
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {len(os.sched_getaffinity(0))} cores, {mem:.0f} GiB, {platform.platform()}"


def versions(torch_ok):
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    line = (f"attn {commit}{' (with uncommitted changes)' if dirty else ''}, numpy "
            f"{np.__version__} (BLAS: {blas})")
    if torch_ok:
        import torch
        line += f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
    return line


def stat(text, label):
    """A number from attn --stats, e.g. stat(text, 'compute') in seconds."""
    m = re.search(rf"^  {re.escape(label)}\s+([0-9.]+)", text, re.M)
    return float(m.group(1)) if m else None


def size_of(text, label):
    m = re.search(rf"^  {re.escape(label)}\s+([0-9.]+) (KiB|MiB|GiB)", text, re.M)
    if not m:
        return None
    return float(m.group(1)) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attn", default=os.path.join(ROOT, "build", "release", "attn"))
    parser.add_argument("--cases", default="a,b,c,d,D",
                        help="a, b, c, d (compute only), D (d with the full dump)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each tool per case")
    parser.add_argument("--quick", action="store_true", help="small sizes (for CI)")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--work", help="where the dumps go (default: a temporary folder)")
    args = parser.parse_args()
    unknown = [c for c in args.cases.split(",") if c not in CASES]
    if unknown:
        parser.error(f"--cases: {', '.join(unknown)} is not a case, expected some of "
                     f"{', '.join(CASES)} separated by commas")
    if args.runs < 1:
        parser.error(f"--runs is {args.runs}, expected 1 or more")
    if not os.access(args.attn, os.X_OK):
        parser.error(f"--attn: {args.attn} is not an executable (build it: cmake --workflow "
                     "--preset release)")

    torch_ok = not args.no_torch
    if torch_ok:
        try:
            import torch  # noqa: F401
        except ImportError:
            print("bench: python3-torch is not installed; timing attn and numpy only")
            torch_ok = False
    tools = ["attn", "numpy"] + (["torch"] if torch_ok else [])
    work = args.work or tempfile.mkdtemp(prefix="attn-bench-")
    os.makedirs(work, exist_ok=True)

    print(f"# attn benchmark, {datetime.date.today()}")
    print(f"machine: {machine()}")
    print(f"versions: {versions(torch_ok)}")
    print(f"runs: median of {args.runs} interleaved runs per tool after one warm-up"
          f"{' (--quick sizes)' if args.quick else ''}\n")
    print("| case | tokens, d_model, heads | tool | median s | peak MiB | attn is × faster "
          "| target | agrees with numpy |")
    print("|---|---|---|---:|---:|---:|---|---|")

    failed = []
    for name in args.cases.split(","):
        tokens, d_model, heads, mode, targets, title = CASES[name]
        if args.quick:
            tokens, d_model, heads = QUICK[name]
        model = make_model(args.attn, work, name, tokens, d_model, heads)
        times = {t: [] for t in tools}
        peaks = {}
        errs = {}
        for rep in range(args.runs + 1):
            for tool in tools:
                dump = os.path.join(work, f"dump-{name}-{tool}.json")
                if os.path.exists(dump):  # every tool writes a new file, none replaces one
                    os.remove(dump)
                seconds, err = run(commands(tool, args.attn, model, mode, dump),
                                   os.path.join(work, "stderr.txt"))
                if rep > 0:  # run 0 warms the caches
                    times[tool].append(seconds)
                    errs.setdefault(tool, []).append(err)
                if tool != "attn" and os.path.exists(dump):
                    os.remove(dump)
        for tool in tools:  # one more run each, under GNU time, for the peak memory
            dump = os.path.join(work, f"dump-{name}-{tool}.json")
            if os.path.exists(dump):
                os.remove(dump)
            peaks[tool] = peak_memory(commands(tool, args.attn, model, mode, dump), work)
            if tool != "attn" and os.path.exists(dump):
                os.remove(dump)
        agree = ""
        if mode == "dump":
            worst, n_steps, torch_worst = check(model, os.path.join(work, f"dump-{name}-attn.json"),
                                                torch_ok)
            agree = f"{n_steps} steps, ≤ {worst:.1e} relative"
            if torch_worst is not None:
                agree += f"; torch ≤ {torch_worst:.1e}"
            if worst > 1e-12 or (torch_worst is not None and torch_worst > 1e-12):
                failed.append(f"case {name}: the tools disagree ({agree})")
            os.remove(os.path.join(work, f"dump-{name}-attn.json"))
        attn_median = statistics.median(times["attn"])
        for tool in tools:
            median = statistics.median(times[tool])
            ratio = median / attn_median
            target = next((x for t, x in targets if t == tool), None)
            mark = ""
            if target is not None:
                ok = ratio >= target
                mark = (f"≥ {target:g}× {'✓' if ok else '✗'}" if target >= 1
                        else f"attn ≤ {1 / target:g}× its time {'✓' if ok else '✗'}")
                if not ok and not args.quick:
                    failed.append(f"case {name}: attn is {ratio:.2f}× {tool}, target {mark}")
            print(f"| {name}: {title} | {tokens}, {d_model}, {heads} | {tool} | {median:.3f} | "
                  f"{peaks[tool] / 2**20:.0f} | "
                  f"{'' if tool == 'attn' else f'{ratio:.1f}×'} | {mark} | "
                  f"{agree if tool == 'attn' else ''} |")
        # attn's own view: compute seconds, and memory against the numbers it holds
        compute = statistics.median(stat(e, "compute") for e in errs["attn"])
        held = size_of(errs["attn"][0], "numbers held (the trace)")
        peak = peaks["attn"]
        line = f"  case {name}: attn computes in {compute:.3f} s"
        if mode == "compute":
            maths = [float(re.search(r"math ([0-9.]+)", e).group(1)) for e in errs["numpy"]]
            line += f"; numpy's math alone takes {statistics.median(maths):.3f} s"
        if held and held >= 2**20:  # below a MiB, start-up dominates the peak
            line += (f"; peak memory {peak / 2**20:.0f} MiB = {peak / held:.2f}× the "
                     f"{held / 2**20:.0f} MiB of numbers it holds")
        elif held:
            line += f"; peak memory {peak / 2**20:.1f} MiB"
            if name == "D" and peak / held > 1.5 and not args.quick:
                failed.append(f"case D: peak memory is {peak / held:.2f}× the numbers, target 1.5×")
        print(line, file=sys.stderr)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        print("\nbench: targets missed:\n  " + "\n  ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Tampered dumps: every field a dump carries, changed one at a time, must make
`attn explain --from` exit with 2 and an error that names the place of the change.

usage: tampered_dumps.py ATTN ATTN_BATCH

The thousands of tampered replays run in ATTN_BATCH (tests/cli/attn_batch.cpp: attn's own
run(), once per case, in one process; two such processes share the cases), since a process
per case took minutes under load. A sample of the cases (the first of each kind and one in
SAMPLE after) also runs in ATTN itself, which must give the same exit code, stdout and stderr.

Good dumps of several kinds of run are written by attn itself (seeded, causal with padding,
two heads, sinusoidal positions, hand arithmetic, embeddings from a file with a seeded unknown
token, Q, K and V given). Each is first replayed as it is (it must be accepted), then every
member of it is changed (a number moved, a string, a boolean flipped, an item dropped or
added, a member removed or added) and replayed: attn must refuse it with exit 2, print
nothing on stdout, and name the changed member's JSON path (or, where a change shows first
elsewhere, the place listed in CONSEQUENCES). Rows of numbers have their first and last
number changed, not every one. Only the members that are not claims about the run are
allowed to change: attn_version (which attn wrote it), description (a model file's words),
the path of a file a source names, and the list of a file's tokens that were seeded (attn
cannot reread the file: removing the list is accepted, but a listed token must be a token,
listed once, and its vector must be the seed's).
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ATTN = sys.argv[1]
ATTN_BATCH = sys.argv[2]
SAMPLE = 97
FREE = [r"^attn_version$", r"^description$", r"^sources\.\w+\.path$",
        r"^sources\.embeddings\.seeded_tokens$"]
# With Q, K and V given and the tokens naming their rows, nothing is seeded or tokenized: the
# seed and the tokenizer are not claims about any number.
FREE_QKV = [r"^config\.seed$", r"^config\.tokenizer"]

# Where a change shows first when it is not at its own place: (pattern of the changed path,
# pattern of the path the message may name instead).
CONSEQUENCES = [
    (r"^sentence$", r"^tokens\[\d+\]|^tokens$"),
    (r"^config\.tokenizer", r"^tokens\[\d+\]|^tokens$"),
    (r"^config\.n_pad$", r"^tokens\[\d+\]|^tokens$|^config\.n_pad$"),
    (r"^config\.(seed|arith)$", r"^steps\[\d+\]\.values"),
    (r"^config\.(d_model|d_k|d_v|n_heads)$", r"^steps"),
    (r"^config\.", r"^steps|^sources|^warnings"),
    (r"^sources\.", r"^steps\[\d+\]\.values|^sources|^tokens"),
    (r"^tokens\[\d+\]$|^tokens$", r"^tokens|^sentence$|^steps\[0\]"),
    (r"^sources\.qkv\.tokens_named$", r"^steps\[0\]|^sentence$|^tokens"),
    (r"^steps\[\d+\]\.values", r"^steps\[\d+\]\.values|^steps$|^tokens$"),
    (r"^steps", r"^steps"),
    (r"^warnings", r"^warnings"),
]


def run(args):
    return subprocess.run([ATTN, *args], capture_output=True, text=True, timeout=60)


def run_batch(runs):
    """Each of `runs` (argument lists) through ATTN_BATCH, on two processes; returns
    (code, stdout, stderr) per run, in order."""
    def one(chunk):
        lines = "".join(json.dumps(args) + "\n" for args in chunk)
        p = subprocess.run([ATTN_BATCH], input=lines, capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"attn_batch exited with {p.returncode}: {p.stderr[-2000:]}")
        results = [json.loads(line) for line in p.stdout.splitlines()]
        if len(results) != len(chunk):
            raise RuntimeError(f"attn_batch answered {len(results)} of {len(chunk)} runs")
        return [(r["code"], r["out"], r["err"]) for r in results]

    half = (len(runs) + 1) // 2
    with ThreadPoolExecutor(max_workers=2) as pool:
        parts = list(pool.map(one, [runs[:half], runs[half:]]))
    return [r for part in parts for r in part]


def path_of(parts):
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p):
            out += ("." if out else "") + p
        else:
            out += f'["{p}"]'
    return out


def get(doc, parts):
    for p in parts:
        doc = doc[p]
    return doc


def mutations(doc, parts=()):
    """(path parts, description, function that changes a deep copy) for every member."""
    node = get(doc, parts)
    if isinstance(node, dict):
        if parts:
            yield parts, "a member added", lambda d, p=parts: get(d, p).__setitem__("zz_extra", 1)
        for key in node:
            sub = (*parts, key)
            yield sub, "removed", lambda d, p=parts, k=key: get(d, p).pop(k)
            yield from mutations(doc, sub)
    elif isinstance(node, list):
        numbers = node and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in node)
        if node:
            yield parts, "the last item dropped", lambda d, p=parts: get(d, p).pop()
        yield parts, "an item added", lambda d, p=parts: get(d, p).append(
            copy.deepcopy(get(d, p)[-1]) if get(d, p) else 0)
        matrix = node and all(isinstance(x, list) for x in node)
        # a row of numbers: its first number; a matrix: its first and last rows
        indices = [0] if numbers else sorted({0, len(node) - 1}) if matrix else range(len(node))
        for i in indices:
            yield from mutations(doc, (*parts, i))
    elif isinstance(node, bool):
        yield parts, "flipped", lambda d, p=parts: set_(d, p, not get(d, p))
    elif isinstance(node, (int, float)):
        yield parts, "changed", lambda d, p=parts: set_(d, p, moved(get(d, p)))
    elif isinstance(node, str):
        yield parts, "changed", lambda d, p=parts: set_(d, p, changed_text(get(d, p)))
    elif node is None:
        yield parts, "changed", lambda d, p=parts: set_(d, p, 0)


def moved(x):
    if isinstance(x, int):
        return x + 1
    return x * 1.25 + 0.5


def changed_text(s):
    if s == "-inf":
        return "0"
    return s + "x" if s else "x"


def set_(doc, parts, value):
    get(doc, parts[:-1])[parts[-1]] = value


def allowed_places(changed):
    places = [re.escape(changed)]
    for pattern, other in CONSEQUENCES:
        if re.search(pattern, changed):
            places.append(other)
    return places


def main():
    failures = []
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        emb = os.path.join(tmp, "emb.json")
        with open(emb, "w") as f:
            json.dump({"vectors": {"This": [0.5, -1.0, 0.25], "is": [1.0, 0.0, -0.5]}}, f)
        qkv = os.path.join(tmp, "qkv.json")
        with open(qkv, "w") as f:
            json.dump({"tokens": ["a", "b"], "Q": [[1, 0], [0, 1]], "K": [[1, 1], [0, 1]],
                       "V": [[2, 0], [0, 2]]}, f)
        runs = {
            "seeded": ["explain", "This is book", "--d-model", "3", "--d-k", "2", "--d-v", "2"],
            "causal-pad": ["explain", "The cat sat", "--lowercase", "--mask", "causal",
                           "--pad-to", "4", "--d-model", "2", "--seed", "7"],
            "heads": ["explain", "A b", "--heads", "2", "--d-model", "2", "--d-k", "1",
                      "--d-v", "1"],
            "positions": ["explain", "Ab", "--chars", "--positions", "sinusoidal",
                          "--d-model", "2", "--arith", "hand"],
            "file-unknown": ["explain", "This is book", "--embeddings", emb, "--unknown",
                             "random", "--d-k", "2", "--d-v", "2"],
            "qkv": ["explain", "--qkv", qkv],
        }
        for name, args in runs.items():
            good = os.path.join(tmp, name + "-dump.json")
            r = run([*args, "--json", good, "--format", "none"])
            if r.returncode != 0:
                failures.append(f"{name}: attn could not write the dump: {r.stderr}")
                continue
            r = run(["explain", "--from", good, "--format", "none"])
            if r.returncode != 0:
                failures.append(f"{name}: the good dump is refused: {r.stderr}")
                continue
            with open(good) as f:
                text = f.read()
            doc = json.loads(text)
            cases = []
            for k, (parts, what, change) in enumerate(mutations(doc)):
                tampered = json.loads(text)  # a fresh copy: json's C parser, not deepcopy
                change(tampered)
                if tampered == doc:
                    continue
                bad = os.path.join(tmp, f"{name}-{k}-bad.json")
                with open(bad, "w") as f:
                    # on one line: json's C encoder (indent takes its Python one, 10× slower)
                    f.write(json.dumps(tampered, ensure_ascii=False))
                cases.append((parts, what, bad))
            results = run_batch([["explain", "--from", case[2]] for case in cases])
            # the batch runs what attn runs: a sample compared with attn itself
            for k in range(0, len(cases), SAMPLE):
                own = run(["explain", "--from", cases[k][2]])
                if (own.returncode, own.stdout, own.stderr) != results[k]:
                    failures.append(f"{name}: case {k}: attn_batch gave {results[k]!r}, attn "
                                    f"gave {(own.returncode, own.stdout, own.stderr)!r}")
            for (parts, what, bad), (code, out, err) in zip(cases, results):
                r = subprocess.CompletedProcess([], code, out, err)
                changed = path_of(parts)
                checked += 1
                label = f"{name}: {changed} {what}"
                free = FREE + (FREE_QKV if name == "qkv" else [])
                if any(re.search(p, changed) for p in free) and what != "a member added":
                    if r.returncode not in (0, 2):
                        failures.append(f"{label}: exit {r.returncode}: {r.stderr.strip()}")
                    continue
                if r.returncode != 2:
                    failures.append(f"{label}: exit {r.returncode}, expected 2: "
                                    f"{r.stderr.strip()[:300]}")
                    continue
                if r.stdout:
                    failures.append(f"{label}: printed on stdout: {r.stdout[:100]!r}")
                m = re.match(r"attn: error: .*?-bad\.json:\d+:\d+: (.*)", r.stderr)
                message = m.group(1) if m else ""
                place = re.match(r"([A-Za-z_][\w.\[\]\"]*): ", message)
                named = place.group(1) if place else ""
                places = allowed_places(changed)
                if what == "removed":
                    # a missing member is named in its parent, or an optional one takes its
                    # default, which the first value that disagrees with it shows: any place
                    ok = bool(m)
                elif parts[0] == "schema":
                    ok = bool(m) and "schema" in message
                else:
                    ok = bool(m) and any(re.match(p, named) for p in places)
                if not ok:
                    failures.append(f"{label}: the message names {named or 'no place'}, "
                                    f"expected {changed}: {r.stderr.strip()[:300]}")
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} tampered dumps replayed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""--present through a real pseudo-terminal: keys typed into it, screens read back from it.

    present_pty.py ATTN GOLDEN_DIR

Runs attn as the session leader of a new pseudo-terminal (its controlling terminal, so that
Ctrl-C, resizes and hangups reach it as signals), types keys into the master side and reads
each frame the presenter draws. Checks the screens (and compares two scripted sessions with
golden files: ATTN_UPDATE_GOLDEN=1 rewrites them), resizing, and that the terminal's modes are
exactly what they were before attn started after every way out: q, Ctrl-C, SIGTERM, SIGHUP,
SIGQUIT, the terminal closing, the input ending.
"""
import functools
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pty_session  # noqa: E402
from pty_session import TAKE, check, columns, failures, set_size  # noqa: E402

ATTN = os.path.abspath(sys.argv[1])
GOLDEN_DIR = os.path.abspath(sys.argv[2])
SOURCE_DIR = os.path.dirname(os.path.dirname(GOLDEN_DIR))
Session = functools.partial(pty_session.Session, ATTN, cwd=SOURCE_DIR)


def transcript(title, session, keys_and_names, rows, cols):
    """Frames of a scripted session, for a golden file: each screen as it looks."""
    out = [f"# {title} ({cols}×{rows})"]
    n = 1
    session.wait_frames(n)
    for name, keys in [("start", None)] + keys_and_names:
        if keys is not None:
            n += 1
            session.key(keys, n)
        lines = session.screen()
        check(len(lines) == rows, f"{title}, {name}: {len(lines)} lines, expected {rows}")
        for line in lines:
            check(columns(line) <= cols, f"{title}, {name}: a line wider than {cols}: {line!r}")
        out.append(f"──── after {name} " + "─" * max(0, cols - 12 - len(name)))
        out += [line.rstrip() for line in lines]
    return out


def compare_golden(name, lines):
    path = os.path.join(GOLDEN_DIR, name)
    text = "\n".join(lines) + "\n"
    if os.environ.get("ATTN_UPDATE_GOLDEN") == "1":
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("updated", path)
        return
    with open(path, encoding="utf-8") as f:
        expected = f.read()
    if expected != text:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(True), text.splitlines(True), path, "actual"))
        check(False, f"the screens differ from {path} (diff above)")


RIGHT, LEFT, ENTER, BACKSPACE = b"\x1b[C", b"\x1b[D", b"\r", b"\x7f"
LESSON = ["explain", "This is book", "--present", "--color", "never"]

# 1. The lesson at 80×24: arrows, space, back, a digit, the keys, q; a golden transcript.
s = Session(LESSON)
lines = transcript("attn explain \"This is book\" --present", s, [
    ("→", RIGHT), ("space", b" "), ("→", RIGHT), ("←", LEFT), ("Backspace", BACKSPACE),
    ("7", b"7"), ("?", b"?"), ("x (closes the keys)", b"x"), ("End", b"\x1b[F"),
], 24, 80)
os.write(s.master, b"q")
code = s.finish()
check(code == 0, f"q: exit status {code}, expected 0")
check(s.err == "", f"q: stderr {s.err!r}")
check(s.output.startswith(TAKE), "the screen was not taken first")
s.restored("q")
s.close()
compare_golden("present-lesson.txt", lines)

# 2. A long walk-through (two heads, the backward pass: 60 steps) on a small window:
#    g 12, a two-digit jump, a lettered step, a step that is not there, scrolling.
LONG = ["explain", "This is book", "--heads", "2", "--d-model", "4", "--mask", "causal",
        "--target", "data/targets/this-is-book-4.json", "--backward", "--present",
        "--color", "never"]
s = Session(LONG, rows=16, cols=60)
lines = transcript("a long walk-through: two heads and the backward pass", s, [
    ("g 1 2", b"g12"), ("Enter", ENTER), ("2 2 Enter", b"22\r"), ("g 3b Enter", b"g 3b\r"),
    ("g 99 Enter", b"g99\r"), ("g 10 Enter", b"g10\r"), ("↓", b"\x1b[B"), ("PgDn", b"\x1b[6~"),
], 16, 60)
os.write(s.master, b"q")
check(s.finish() == 0, "the long walk-through: q did not end with 0")
s.restored("the long walk-through")
s.close()
compare_golden("present-long.txt", lines)
check(any("━━ 12 · Concatenation Z" in l for l in lines), "g 12 did not show step 12")

# 3. Resizing: the frame follows the window, the same step.
s = Session(LESSON, rows=24, cols=80)
s.wait_frames(1)
s.key(RIGHT + RIGHT, 2)
for rows, cols in [(30, 110), (12, 44), (8, 30), (40, 200)]:
    n = s.frames()
    set_size(s.master, rows, cols)  # the kernel sends SIGWINCH to attn
    s.wait_frames(n + 1)
    screen = s.screen()
    check(len(screen) == rows, f"resized to {cols}×{rows}: {len(screen)} lines")
    check(all(columns(l) <= cols for l in screen), f"resized to {cols}×{rows}: a line too wide")
    check(screen[0].startswith("━━ 2 · Embeddings X"), f"resized to {cols}×{rows}: {screen[0]!r}")
    check(screen[-1].startswith("── step 2 of 12"), f"resized to {cols}×{rows}: {screen[-1]!r}")
check(columns(s.screen()[0]) == 200, "at 200 columns the heading's rule does not reach the edge")
os.write(s.master, b"q")
check(s.finish() == 0, "resize: q did not end with 0")
s.restored("resize")
s.close()

# 4. Signals: attn ends as the signal says, the terminal given back first.
for name, action, expected in [
        ("Ctrl-C", lambda s: os.write(s.master, b"\x03"), -signal.SIGINT),
        ("Ctrl-\\", lambda s: os.write(s.master, b"\x1c"), -signal.SIGQUIT),
        ("SIGTERM", lambda s: s.proc.send_signal(signal.SIGTERM), -signal.SIGTERM),
        ("SIGHUP", lambda s: s.proc.send_signal(signal.SIGHUP), -signal.SIGHUP)]:
    s = Session(LESSON)
    s.wait_frames(1)
    s.key(RIGHT, 2)
    action(s)
    code = s.finish()
    check(code == expected, f"{name}: exit status {code}, expected {expected}")
    s.restored(name)
    s.close()

# 5. The terminal closing under attn (its window closed, the ssh connection dropped): attn
#    ends (SIGHUP), and with SIGHUP ignored (nohup) it ends on its own, without spinning.
for ignore_hup in (False, True):
    s = Session(LESSON, ignore_hup=ignore_hup)
    s.wait_frames(1)
    started = time.process_time()
    os.close(s.master)
    code = s.proc.wait(timeout=20)
    what = "the terminal closed" + (" (SIGHUP ignored)" if ignore_hup else "")
    check(code in (0, -signal.SIGHUP), f"{what}: exit status {code}")
    if ignore_hup:
        check(code == 0, f"{what}: exit status {code}, expected 0")
    try:
        os.close(s.slave)
    except OSError:
        pass

# 5b. attn diff --present: the comparison one step per screen, changed cells marked, q ends it
#     and gives the terminal back.
DIFF = ["diff", "tests/golden/default.json", "tests/golden/mask-file.json", "--present",
        "--color", "never"]
s = Session(DIFF)
s.wait_frames(1)
os.write(s.master, b"g8\r")
s.wait_screen("━━ 8 ·")
screen = "\n".join(s.screen())
check(screen.startswith("━━ 8 · Attention weights"), f"diff --present, g 8: {screen[:300]!r}")
check("*" in screen and "was" in screen, "diff --present: no cell marked * on the weights' screen")
os.write(s.master, b"q")
check(s.finish() == 0, "diff --present: q did not end with 0")
s.restored("diff --present")
s.close()

# 6. Without a terminal on stdout: a note and the whole walk-through.
r = subprocess.run([ATTN] + LESSON, stdin=subprocess.DEVNULL, capture_output=True, cwd=SOURCE_DIR)
check(r.returncode == 0, "no terminal: exit status")
check(b"attn: note: --present needs a terminal on stdin and stdout (here neither is one)"
      in r.stderr, f"no terminal: stderr {r.stderr!r}")
check(b"\x1b[" not in r.stdout and b"8 \xc2\xb7 Output Z" in r.stdout,
      "no terminal: the whole walk-through, without escapes")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("ok: --present through a pseudo-terminal")

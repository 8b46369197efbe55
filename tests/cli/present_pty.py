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
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time
import fcntl
import struct
import unicodedata

ATTN = os.path.abspath(sys.argv[1])
GOLDEN_DIR = os.path.abspath(sys.argv[2])
SOURCE_DIR = os.path.dirname(os.path.dirname(GOLDEN_DIR))

FRAME_START = b"\x1b[?2026h"
FRAME_END = b"\x1b[?2026l"
TAKE = b"\x1b[?1049h\x1b[?25l\x1b[?7l"
GIVE_BACK = b"\x1b[?7h\x1b[?25h\x1b[?1049l"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def columns(line):
    width = 0
    for ch in line:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return width


class Session:
    """attn in a pseudo-terminal of rows × cols."""

    def __init__(self, args, rows=24, cols=80, ignore_hup=False):
        self.master, self.slave = os.openpty()
        set_size(self.master, rows, cols)
        self.before = termios.tcgetattr(self.slave)
        self.output = b""

        def controlling_terminal():
            # a new session (start_new_session) whose controlling terminal is the pty
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            if ignore_hup:
                signal.signal(signal.SIGHUP, signal.SIG_IGN)

        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR",
                                                                 "COLORTERM", "COLORFGBG")}
        env["TERM"] = "xterm-256color"
        self.proc = subprocess.Popen(
            [ATTN] + args, stdin=self.slave, stdout=self.slave, stderr=subprocess.PIPE,
            cwd=SOURCE_DIR, env=env, start_new_session=True, preexec_fn=controlling_terminal)

    def read_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                break
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            self.output += data

    def frames(self):
        return self.output.count(FRAME_END)

    def wait_frames(self, n, timeout=20):
        """Reads until n frames have been drawn in all."""
        end = time.monotonic() + timeout
        while self.frames() < n and time.monotonic() < end:
            self.read_for(0.05)
        check(self.frames() >= n, f"expected {n} frames, saw {self.frames()}")

    def screen(self, i=-1):
        """Frame i as its lines of text (colour codes removed)."""
        starts = [m.start() for m in re.finditer(re.escape(FRAME_START), self.output)]
        start = starts[i] + len(FRAME_START)
        body = self.output[start:self.output.index(FRAME_END, start)].decode()
        body = re.sub(r"\x1b\[[0-9;]*m", "", body)
        # each line at its row (ESC [ row ; 1 H), erased (ESC [ K), then its text
        parts = re.split(r"\x1b\[(\d+);1H", body)
        check(parts[0] == "", "a frame does not start at its first row")
        rows = [int(n) for n in parts[1::2]]
        check(rows == list(range(1, len(rows) + 1)), f"the rows of a frame: {rows}")
        lines = parts[2::2]
        check(all(line.startswith("\x1b[K") for line in lines), "a line was not erased first")
        return [line[3:] if line.startswith("\x1b[K") else line for line in lines]

    def key(self, keys, frames_after):
        os.write(self.master, keys)
        self.wait_frames(frames_after)

    def finish(self, timeout=20):
        """Waits for attn to end; reads what it wrote last. Returns its exit status."""
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self.read_for(0.05)
        if self.proc.poll() is None:
            self.proc.kill()
            check(False, "attn did not end")
        self.read_for(0.1)
        self.err = self.proc.stderr.read().decode()
        return self.proc.wait()

    def restored(self, what):
        try:
            after = termios.tcgetattr(self.slave)
        except termios.error as e:
            check(False, f"{what}: the terminal's modes cannot be read: {e}")
            return
        check(after == self.before, f"{what}: the terminal's modes were not restored")
        check(self.output.rstrip(b"\r\n").endswith(GIVE_BACK) or
              self.output.endswith(GIVE_BACK), f"{what}: the screen was not given back last")

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


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

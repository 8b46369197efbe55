"""attn in a real pseudo-terminal, for the tests that drive --present with keys.

Session(attn, args, cwd) runs attn as the session leader of a new pseudo-terminal (its
controlling terminal, so that Ctrl-C, resizes and hangups reach it as signals); key() types
into the master side, wait_frames() and screen() read back each frame the presenter draws,
finish() waits for attn to end (never longer than its timeout) and restored() checks the
terminal's modes are what they were before attn started. check() records a failure in
`failures` rather than stopping, so that one run reports every broken check.
Used by present_pty.py and checkpoint_outputs.sh.
"""
import os
import re
import select
import signal
import subprocess
import termios
import time
import fcntl
import struct
import unicodedata

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

    def __init__(self, attn, args, cwd, rows=24, cols=80, ignore_hup=False):
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
            [attn] + args, stdin=self.slave, stdout=self.slave, stderr=subprocess.PIPE,
            cwd=cwd, env=env, start_new_session=True, preexec_fn=controlling_terminal)

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

    def wait_screen(self, heading, timeout=20):
        """Reads until the last frame drawn starts with heading and returns its lines (frames
        drawn on the way, such as a jump's prompt, are passed over)."""
        end = time.monotonic() + timeout
        while True:
            drawn = self.frames()
            if drawn and self.output.count(FRAME_START) == drawn:
                lines = self.screen()
                if lines and lines[0].startswith(heading):
                    return lines
            if time.monotonic() >= end:
                break
            self.read_for(0.05)
        check(False, f"no screen starting {heading!r} within {timeout} s")
        return []

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

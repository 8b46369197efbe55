#!/usr/bin/python3
"""The hostile-strings corpus through every output kind from every input route.

usage: check_hostile.py ATTN NODE CHROMIUM XMLLINT PDFLATEX

No string that did not come from attn may reach a terminal or a page as code
(docs/hardening.md). The corpus (STRINGS, below: every C0 and C1 control, DEL, bidi
overrides and isolates, zero-width and other invisible characters, lone surrogates as JSON
escapes, the metacharacters of HTML, XML, LaTeX and Markdown, "</script>", "<!--", "]]>", and
very long strings) goes in by every route a string can take: the sentence, a model file's
description and sentence, the keys of an embeddings file and of a model file (echoed in
errors), a --target file's name, a replayed dump's tokens, a student's answers file, a worksheet. Every run must end
with 0 or, for a refused input, 2; then:
  - the terminal output (stdout and stderr, text, --why, check reports, errors) has no C0
    control but the line feed, no DEL, no C1 control, no bidi control, no invisible format
    character (the zero-width joiners of emoji aside);
  - every SVG passes xmllint; every LaTeX file compiles with pdflatex;
  - every HTML page (reports and worksheets) loads in one headless Chromium with no script of
    an input run, no console error and no request; every Markdown file renders (markdown-it,
    raw HTML and autolinks on) with no element a plain run does not make and shows the
    tokens as text (browser_check.js);
  - the JSON dump reads back (Python's json) with the tokens attn printed, and printed to the
    terminal (--json -, attn init) it has no raw control either: JSON escapes.
Strings are batched (several to a run) so that the whole test takes well under a minute.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ATTN, NODE, CHROMIUM, XMLLINT, PDFLATEX = sys.argv[1:6]
HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the corpus: (name, string). Strings with NUL or lone surrogates go only into files.
STRINGS = []
for c in range(0x00, 0x20):
    STRINGS.append((f"C0 {c:#04x}", f"a{chr(c)}b"))
STRINGS.append(("DEL", "a\x7fb"))
for c in range(0x80, 0xA0):
    STRINGS.append((f"C1 {c:#04x}", f"a{chr(c)}b"))
for c in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E,
          0x200F, 0x061C]:
    STRINGS.append((f"bidi U+{c:04X}", f"abc{chr(c)}def"))
for c in [0x200B, 0x2060, 0xFEFF, 0x00AD, 0x180E, 0x2028, 0x2029, 0x2061, 0x206A, 0xFFF9,
          0x034F, 0xE000, 0x0378, 0x3164]:
    STRINGS.append((f"invisible U+{c:04X}", f"ab{chr(c)}cd"))
STRINGS += [
    ("lone high surrogate", "\ud800"),
    ("lone low surrogate", "x\udfffy"),
    ("OSC 52 clipboard", "\x1b]52;c;aGFja2Vk\x07"),
    ("clear screen", "\x1b[2J\x1b[H"),
    ("C1 CSI", "\x9b31mred"),
    ("title", "\x1b]0;pwned\x1b\\"),
    ("script", "<script>window.__pwned=1</script>"),
    ("end script", "</script><script>window.__pwned=2</script>"),
    ("comment", "<!-- x"),
    ("end comment", "--> y"),
    ("cdata end", "]]>"),
    ("cdata", "<![CDATA[x]]>"),
    ("img onerror", "<img src=x onerror=window.__pwned=3>"),
    ("attribute break", "\"onmouseover=\"window.__pwned=4\" x='"),
    ("entities", "&amp; &lt;b&gt; &#x3c;"),
    ("svg onload", "<svg onload=window.__pwned=5>"),
    ("javascript url", "javascript:window.__pwned=6"),
    ("latex input", "\\input{/etc/passwd}"),
    ("latex write18", "\\write18{touch /tmp/attn-pwned}"),
    ("latex specials", "# $ % & ~ _ ^ \\ { }"),
    ("latex end document", "\\end{document}"),
    ("markdown link", "[click](javascript:window.__pwned=7)"),
    ("markdown image", "![x](http://127.0.0.1/x.png)"),
    ("markdown html", "<b>bold</b><i>it</i>"),
    ("markdown emphasis", "*em* _em_ `code` | pipe | ~~s~~"),
    ("markdown autolink", "<http://127.0.0.1/> www.example.com"),
    ("bare addresses", "see https://evil.example.com/x and mail a@evil.com or evil.com"),
    ("heading", "# heading"),
    ("backslashes", "\\x1b \\u202e \\n"),
    ("long word", "a" * 3000),
    ("long accented", "é" * 1500),
    ("long markup", "<" * 120),
]
assert len(STRINGS) >= 60, len(STRINGS)

FORBIDDEN = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\u00ad\u180e\ufff9-\ufffb\u034f\u0378\ue000-\uf8ff\u3164]")


def argv_safe(s):
    return "\x00" not in s and not any(0xD800 <= ord(c) <= 0xDFFF for c in s)


def groups(size=12):
    """The strings in batches; long ones alone."""
    out, batch = [], []
    for name, s in STRINGS:
        if len(s) > 200:
            out.append([(name, s)])
            continue
        batch.append((name, s))
        if len(batch) == size:
            out.append(batch)
            batch = []
    if batch:
        out.append(batch)
    return out


class Checker:
    def __init__(self, tmp):
        self.tmp = tmp
        self.failures = []
        self.pages = []
        self.markdown = []
        self.latex = []
        self.svg = []
        self.runs = 0
        self.n = 0

    def fresh(self, suffix):
        self.n += 1
        return os.path.join(self.tmp, f"f{self.n}{suffix}")

    def fail(self, what):
        self.failures.append(what)

    def attn(self, label, args, ok=(0, 2)):
        env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
        r = subprocess.run([ATTN, *args], capture_output=True, timeout=120, env=env)
        self.runs += 1
        for stream, data in (("stdout", r.stdout), ("stderr", r.stderr)):
            text = data.decode("utf-8", errors="replace")
            if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
                self.fail(f"{label}: {stream} is not UTF-8")
            m = FORBIDDEN.search(text)
            if m:
                at = m.start()
                self.fail(f"{label}: {stream} has U+{ord(m.group()):04X} raw: "
                          f"{text[max(0, at - 40):at + 20]!r}")
        if r.returncode not in ok:
            self.fail(f"{label}: exit {r.returncode}: {r.stderr.decode(errors='replace')[:300]}")
        if r.returncode == 2 and not r.stderr.startswith(b"attn: error: "):
            self.fail(f"{label}: exit 2 without an error message")
        return r

    def outputs(self, label, args, texts=(), why=True):
        """Every output kind of one run: text, --why, Markdown, LaTeX, SVG, HTML, JSON."""
        svg, html, dump = self.fresh(".svg"), self.fresh(".html"), self.fresh(".json")
        r = self.attn(f"{label} (text, svg, html, json)",
                      [*args, "--svg", svg, "--html", html, "--json", dump, "--color", "never"])
        if r.returncode != 0:
            return None
        self.svg.append((label, svg))
        self.pages.append(html)
        with open(dump, encoding="utf-8") as f:
            tokens = json.load(f)["tokens"]
        md = self.fresh(".md")
        r = self.attn(f"{label} (markdown)", [*args, "--format", "markdown"])
        with open(md, "wb") as f:
            f.write(r.stdout)
        visible = [t for t in tokens if not FORBIDDEN.search(t) and "\\" not in t and len(t) < 100]
        self.markdown.append({"file": md, "texts": visible + list(texts)})
        tex = self.fresh(".tex")
        r = self.attn(f"{label} (latex)", [*args, "--format", "latex"])
        with open(tex, "wb") as f:
            f.write(r.stdout)
        self.latex.append((label, tex))
        # the dump as --json - prints it to a terminal (the same bytes as the file): strings
        # written with \u escapes, not raw
        with open(dump, encoding="utf-8") as f:
            m = FORBIDDEN.search(f.read())
        if m:
            self.fail(f"{label}: the JSON dump has U+{ord(m.group()):04X} raw")
        if why:
            self.attn(f"{label} (--why)", [*args, "--why", "weights[0,0]", "--color", "never"])
        return dump


def route_sentence(c, batch):
    strings = [s for _, s in batch if argv_safe(s)]
    if not strings:
        return
    label = "sentence: " + ", ".join(n for n, _ in batch)
    dump = c.outputs(label, ["explain", "x " + " ".join(strings), "--d-model", "4"])
    if dump is not None:
        # the dump's tokens, replayed: every output again, from --from
        c.outputs("dump tokens: " + label, ["explain", "--from", dump], why=False)
        # a hostile token put into a dump is refused with a clean message
        with open(dump, encoding="utf-8") as f:
            doc = json.load(f)
        for name, s in batch[:3]:
            doc["tokens"][0] = s
            bad = c.fresh(".json")
            with open(bad, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            c.attn(f"tampered dump token: {name}", ["explain", "--from", bad], ok=(2,))
    c.attn(label + " (chars)", ["explain", "x " + " ".join(strings)[:200], "--chars",
                                "--d-model", "2", "--color", "never"])


def write_json(c, doc):
    path = c.fresh(".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=True)  # lone surrogates and NUL as \\u escapes
    return path


def route_model(c, batch):
    label = "model file: " + ", ".join(n for n, _ in batch)
    text = " ".join(s for _, s in batch)
    model = {"schema": "attn.model", "description": text, "sentence": "This is book",
             "embeddings": {"vectors": {"This": [1, 0], "is": [0, 1], "book": [1, 1]}}}
    c.outputs(label + " (description)", ["explain", "--model", write_json(c, model)],
              texts=[])
    # attn init's model file, printed: the description as \u escapes; it reads back the same
    if argv_safe(text):
        r = c.attn(label + " (attn init)", ["init", "This is book", "--description", text])
        if r.returncode == 0:
            made = c.fresh(".json")
            with open(made, "wb") as f:
                f.write(r.stdout)
            back = c.attn(label + " (attn init, read back)", ["explain", "--model", made, "--json",
                                                              "-"])
            if back.returncode == 0 and json.loads(back.stdout)["description"] != text:
                c.fail(f"{label}: attn init's description does not read back the same")
    # the sentence of a model file, its unknown tokens seeded
    model["sentence"] = "x " + text
    c.outputs(label + " (sentence)", ["explain", "--model", write_json(c, model),
                                      "--unknown", "random"])
    model["sentence"] = "This is book"
    # a key attn does not know, echoed (with the nearest known key) in the error
    for name, s in batch:
        m = dict(model)
        m[s] = 1
        c.attn(f"model file key: {name}", ["explain", "--model", write_json(c, m),
                                           "--format", "none"], ok=(2,))


def route_embeddings(c, batch):
    label = "embeddings keys: " + ", ".join(n for n, _ in batch)
    vectors = {"This": [1, 0], "is": [0, 1]}
    for _, s in batch:
        vectors[s] = [0.5, 0.5]
    path = write_json(c, {"vectors": vectors})
    # "book" is missing: the error lists the known tokens nearest to it
    c.attn(label + " (missing token)", ["explain", "This is book", "--embeddings", path],
           ok=(2,))
    c.attn(label + " (nearest)", ["explain", "This is b", "--embeddings", path], ok=(2,))
    strings = [s for _, s in batch if argv_safe(s)]
    if strings:
        c.outputs(label + " (looked up)", ["explain", "This is " + " ".join(strings),
                                           "--embeddings", path, "--unknown", "random"])


def route_answers(c, batch, sheet):
    label = "answers: " + ", ".join(n for n, _ in batch)
    with open(sheet, encoding="utf-8") as f:
        doc = json.load(f)
    text = " ".join(s for _, s in batch)
    doc["instructions"] = text
    c.attn(label + " (instructions)", ["check", write_json(c, doc), "--color", "never"],
           ok=(0, 1, 2))
    doc["worksheet"]["sentence"] = "x " + text
    c.attn(label + " (sentence)", ["check", write_json(c, doc), "--color", "never"],
           ok=(0, 1, 2))
    doc["answers"]["zz" + text] = 1
    c.attn(label + " (key)", ["check", write_json(c, doc)], ok=(2,))


def route_worksheet(c, batch):
    strings = [s for _, s in batch if argv_safe(s)]
    if not strings:
        return
    out = c.fresh("-ws")
    r = c.attn("worksheet: " + ", ".join(n for n, _ in batch),
               ["worksheet", "x " + " ".join(strings), "-o", out])
    if r.returncode == 0:
        for name in ("worksheet", "answer-key"):
            c.pages.append(os.path.join(out, name + ".html"))
            c.markdown.append({"file": os.path.join(out, name + ".md"), "texts": []})


def route_target(c, batch):
    """A --target file whose name is hostile: the name is shown in the backward steps."""
    name = "".join(s for _, s in batch if argv_safe(s)).replace("/", "_")
    while len(name.encode("utf-8")) > 200:  # a file name is at most 255 bytes
        name = name[:-1]
    if not name:
        return
    d = c.fresh("-target")
    os.mkdir(d)
    path = os.path.join(d, name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"target": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, f)
    args = ["explain", "This is book", "--target", path, "--backward"]
    c.outputs("target file name: " + ", ".join(n for n, _ in batch), args)
    c.attn("target file name (--why target)", [*args, "--why", "target[0,0]"])


def compile_latex(c, item):
    label, tex = item
    d = os.path.dirname(tex)
    r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                        "-output-directory", d, tex], capture_output=True, timeout=120,
                       cwd=d, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        log = r.stdout.decode(errors="replace")
        at = log.find("\n!")
        return f"{label}: pdflatex failed: {log[at:at + 300] if at >= 0 else log[-300:]}"
    return None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        c = Checker(tmp)
        sheet_dir = os.path.join(tmp, "sheet")
        subprocess.run([ATTN, "worksheet", "This is book", "-o", sheet_dir], check=True,
                       capture_output=True)
        baseline = os.path.join(tmp, "baseline.md")
        with open(baseline, "wb") as f:
            f.write(subprocess.run([ATTN, "explain", "This is book", "--format", "markdown"],
                                   capture_output=True, check=True).stdout)
        for batch in groups():
            route_sentence(c, batch)
            route_model(c, batch)
            route_embeddings(c, batch)
            route_answers(c, batch, os.path.join(sheet_dir, "answers.json"))
            route_worksheet(c, batch)
            route_target(c, batch)
        for label, svg in c.svg:
            r = subprocess.run([XMLLINT, "--noout", svg], capture_output=True)
            if r.returncode != 0:
                c.fail(f"{label}: the SVG is not well-formed XML: {r.stderr.decode()[:300]}")
        # every LaTeX export's body in one document (one pdflatex run); when it fails, each
        # file alone, to name the one that does not compile
        bodies, preamble = [], None
        for label, tex in c.latex:
            with open(tex, encoding="utf-8") as f:
                text = f.read()
            begin, end = text.find("\\begin{document}"), text.rfind("\\end{document}")
            if begin < 0 or end < 0:
                c.fail(f"{label}: the LaTeX has no document")
                continue
            preamble = preamble or text[:begin]
            bodies.append(f"% {label}\n\\clearpage\n" + text[begin + 16:end])
        combined = os.path.join(tmp, "all.tex")
        with open(combined, "w", encoding="utf-8") as f:
            f.write((preamble or "\\documentclass{article}\n") + "\\begin{document}\n" +
                    "".join(bodies) + "\\end{document}\n")
        if compile_latex(c, ("all LaTeX exports", combined)):
            with ThreadPoolExecutor(max_workers=2) as pool:
                for problem in pool.map(lambda item: compile_latex(c, item), c.latex):
                    if problem:
                        c.fail(problem)
        if os.path.exists("/tmp/attn-pwned"):
            c.fail("a LaTeX file ran \\write18")
        manifest = os.path.join(tmp, "manifest.json")
        with open(manifest, "w", encoding="utf-8") as f:
            json.dump({"pages": c.pages, "markdown": c.markdown, "baseline_markdown": baseline}, f)
        r = subprocess.run([NODE, os.path.join(HERE, "browser_check.js"), manifest, CHROMIUM],
                           capture_output=True, text=True, timeout=600)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            c.fail("browser_check.js: " + (r.stderr.strip()[-500:] or "failed"))
        for f in c.failures:
            print("FAIL:", f)
        print(f"hostile strings: {len(STRINGS)} strings, {c.runs} runs of attn, {len(c.svg)} SVG, "
              f"{len(c.latex)} LaTeX, {len(c.pages)} HTML pages, {len(c.markdown)} Markdown; "
              f"{len(c.failures)} failures")
        return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())

// The presenter (--present): its keys, its screens and its loop over a scripted console. The
// real terminal is tested through a pseudo-terminal by tests/cli/present_pty.py.
#include <catch2/catch.hpp>
#include <deque>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "attn/core/attention.hpp"
#include "attn/render/render.hpp"
#include "cli.hpp"
#include "console.hpp"
#include "keys.hpp"

namespace {

using attn::cli::Key;
using attn::cli::KeyDecoder;
using K = Key::Kind;

std::vector<K> kinds(const std::vector<Key>& keys) {
    std::vector<K> out;
    for (const auto& k : keys) {
        out.push_back(k.kind);
    }
    return out;
}

// The columns of a screen line, colour codes taking none.
std::size_t columns(const std::string& line) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == '\x1b') {
            i = line.find('m', i) + 1;
            continue;
        }
        const auto c = static_cast<unsigned char>(line[i]);
        const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        n += 1;  // the walk-through's own glyphs are all one column wide
        i += len;
    }
    return n;
}

// A console that replays events and records how it was used.
class ScriptedConsole final : public attn::cli::Console {
  public:
    std::deque<Event> events;
    Size now{24, 80};
    std::deque<Size> sizes;  // taken by each `resized` event in turn
    int entered = 0;
    int left = 0;
    bool throw_when_done = false;

    void enter() override { ++entered; }
    void leave() noexcept override {
        if (entered > left) {
            ++left;
        }
    }
    Event wait(int /*timeout_ms*/) override {
        if (events.empty()) {
            if (throw_when_done) {
                throw std::runtime_error("the scripted console broke");
            }
            return {Event::Kind::closed};
        }
        Event e = events.front();
        events.pop_front();
        if (e.kind == Event::Kind::resized && !sizes.empty()) {
            now = sizes.front();
            sizes.pop_front();
        }
        return e;
    }
    [[nodiscard]] Size size() const override { return now; }

    void keys(const std::string& bytes) { events.push_back({Event::Kind::bytes, bytes}); }
};

struct Presented {
    int code = 0;
    std::vector<std::vector<std::string>> frames;  // each frame's lines, as drawn
    std::string err;
};

// Runs attn with a console, and cuts what it drew into frames.
Presented present(const std::vector<std::string>& args, ScriptedConsole& console) {
    std::ostringstream out;
    std::ostringstream err;
    attn::cli::Io io{out, err};
    io.stdin_is_terminal = true;
    io.stdout_is_terminal = true;
    io.console = &console;
    Presented p;
    p.code = attn::cli::run(args, io);
    p.err = err.str();
    const std::string all = out.str();
    const std::string start = "\x1b[?2026h";
    const std::string end = "\x1b[?2026l";
    for (auto at = all.find(start); at != std::string::npos; at = all.find(start, at + 1)) {
        const auto stop = all.find(end, at);
        REQUIRE(stop != std::string::npos);
        const std::string body = all.substr(at + start.size(), stop - at - start.size());
        // each line at its row: ESC [ row ; 1 H, then erased (ESC [ K), then its text
        std::vector<std::string> lines;
        std::size_t pos = 0;
        while (pos < body.size()) {
            const std::string place = fmt::format("\x1b[{};1H\x1b[K", lines.size() + 1);
            REQUIRE(body.compare(pos, place.size(), place) == 0);
            pos += place.size();
            const auto next = body.find("\x1b[", pos) == std::string::npos
                                  ? body.size()
                                  : body.find(fmt::format("\x1b[{};1H", lines.size() + 2), pos);
            lines.push_back(
                body.substr(pos, (next == std::string::npos ? body.size() : next) - pos));
            pos = next == std::string::npos ? body.size() : next;
        }
        p.frames.push_back(lines);
    }
    return p;
}

attn::Trace lesson() {
    const attn::Config config;
    return attn::explain(attn::seeded_input("This is book", config), config);
}

const std::vector<std::string> plain_lesson = {"explain", "This is book", "--present", "--color",
                                               "never"};

}  // namespace

TEST_CASE("present: keys decoded from a terminal's bytes", "[present][keys]") {
    KeyDecoder d;
    CHECK(kinds(d.feed("\x1b[C\x1b[D\x1b[A\x1b[B")) ==
          std::vector{K::right, K::left, K::up, K::down});
    CHECK(kinds(d.feed("\x1bOC\x1bOD\x1bOM")) == std::vector{K::right, K::left, K::enter});
    CHECK(kinds(d.feed("\x1b[1;5C\x1b[1;2D")) == std::vector{K::right, K::left});  // Ctrl, Shift
    CHECK(kinds(d.feed("\x1b[H\x1b[F\x1b[1~\x1b[4~\x1b[7~\x1b[8~\x1bOH\x1bOF")) ==
          std::vector{K::home, K::end, K::home, K::end, K::home, K::end, K::home, K::end});
    CHECK(kinds(d.feed("\x1b[5~\x1b[6~")) == std::vector{K::page_up, K::page_down});
    CHECK(kinds(d.feed("\r\n\x7f\x08\t")) ==
          std::vector{K::enter, K::enter, K::backspace, K::backspace, K::tab});
    CHECK(d.feed("\x0c") == std::vector{Key{K::control, "l"}});
    CHECK(d.feed("q 7?") ==
          std::vector{Key{K::text, "q"}, Key{K::text, " "}, Key{K::text, "7"}, Key{K::text, "?"}});
    // sequences attn does not use are one key each, and nothing of them leaks as text
    CHECK(kinds(d.feed("\x1b[3~\x1b[15~\x1bx\x1b[200~")) ==
          std::vector{K::other, K::other, K::other, K::other});
    CHECK_FALSE(d.pending());
}

TEST_CASE("present: bytes split anywhere, a lone Escape once nothing follows", "[present][keys]") {
    KeyDecoder d;
    CHECK(d.feed("\x1b").empty());
    CHECK(d.pending());
    CHECK(d.feed("[").empty());
    CHECK(d.feed("1;5").empty());
    CHECK(kinds(d.feed("C")) == std::vector{K::right});
    CHECK_FALSE(d.pending());
    // Escape, then an arrow: the second ESC starts the sequence
    CHECK(kinds(d.feed("\x1b\x1b[D")) == std::vector{K::escape, K::left});
    // an ESC alone waits; flush() makes it the Escape key
    CHECK(d.feed("\x1b").empty());
    CHECK(kinds(d.flush()) == std::vector{K::escape});
    CHECK_FALSE(d.pending());
    // a character of several bytes in two pieces
    CHECK(d.feed("\xc3").empty());
    CHECK(d.feed("\xa9x") == std::vector{Key{K::text, "\xc3\xa9"}, Key{K::text, "x"}});
    // an unfinished sequence is dropped by flush(), not typed
    CHECK(d.feed("\x1b[1;").empty());
    CHECK(kinds(d.flush()) == std::vector{K::other});
}

TEST_CASE("present: a screen is the page, its heading on top and the footer below",
          "[present][screen]") {
    const attn::Trace trace = lesson();
    attn::TextStyle style;
    style.width = 80;
    const auto pages = attn::render_text_pages(trace, style);
    REQUIRE(pages.size() == 13);  // the overview and 12 steps
    CHECK(pages[3].number == "3a");
    CHECK(pages[0].number.empty());

    attn::ScreenView view;
    view.page = 2;
    view.rows = 24;
    view.cols = 80;
    const auto screen = attn::render_screen(pages, view, style);
    REQUIRE(screen.size() == 24);
    CHECK(screen.front().starts_with("━━ 2 · Embeddings X ━"));
    CHECK(screen.back().starts_with("── step 2 of 12 · next: 3a · Query weights W_Q ─"));
    CHECK(screen.back().ends_with("─ ? keys · q quit ──"));
    for (const auto& line : screen) {
        CHECK(columns(line) <= 80);
    }
    CHECK(columns(screen.back()) == 79);  // the last column stays free

    view.page = 0;
    CHECK(attn::render_screen(pages, view, style)
              .back()
              .starts_with("── overview, 12 steps · next: 1 · Tokens ─"));
    view.page = 12;
    CHECK(
        attn::render_screen(pages, view, style).back().starts_with("── step 12 of 12 · the end ─"));
}

TEST_CASE("present: a step taller than the screen scrolls below its heading", "[present][screen]") {
    const attn::Trace trace = lesson();
    attn::TextStyle style;
    const auto pages = attn::render_text_pages(trace, style);
    attn::ScreenView view;
    view.page = 11;  // 7 · Attention weights A
    view.rows = 10;
    view.cols = 80;
    const std::size_t limit = attn::screen_scroll_limit(pages[11], 10);
    REQUIRE(limit > 0);
    const auto top = attn::render_screen(pages, view, style);
    REQUIRE(top.size() == 10);
    CHECK(top.front().starts_with("━━ 7 · Attention weights A"));
    CHECK_THAT(top.back(), Catch::Contains(" · lines 1–8 of ") && Catch::Contains(" ↓ "));
    view.scroll = limit + 5;  // past the end: held at the last line
    const auto bottom = attn::render_screen(pages, view, style);
    CHECK(bottom.front().starts_with("━━ 7 · Attention weights A"));  // the heading stays
    CHECK_THAT(bottom.back(), Catch::Contains(" ↑ "));
    // the page's last line is the last line above the footer
    std::string text = pages[11].text;
    while (text.ends_with('\n')) {
        text.pop_back();
    }
    CHECK(bottom[8] == text.substr(text.rfind('\n') + 1));
    CHECK(bottom[1] != top[1]);
}

TEST_CASE("present: arrows, back, a digit, the keys and q", "[present][loop]") {
    ScriptedConsole console;
    console.keys("\x1b[C");   // the overview → 1
    console.keys("\x1b[C ");  // → 2, space → 3a
    console.keys("\x7f");     // Backspace → 2
    console.keys("\x1b[D");   // ← → 1
    console.keys("7");        // a digit: step 7 at once (no step has two digits)
    console.keys("?");        // the keys
    console.keys("x");        // any key closes them
    console.keys("\x1b[F");   // End: the last step
    console.keys("\r");       // Enter on the last step: stays
    console.keys("\x1b[H");   // Home: the overview
    console.keys("q");
    console.keys("\x1b[C");  // never read: q ended it
    const auto p = present(plain_lesson, console);
    CHECK(p.code == 0);
    CHECK(p.err.empty());
    CHECK(console.entered == 1);
    CHECK(console.left == 1);
    CHECK(console.events.size() == 1);
    REQUIRE(p.frames.size() == 11);  // the first, then one per event before q
    const auto heading = [&](std::size_t i) { return p.frames[i].front(); };
    const auto footer = [&](std::size_t i) { return p.frames[i].back(); };
    for (const auto& frame : p.frames) {
        CHECK(frame.size() == 24);
    }
    CHECK(heading(0) == "attn explain · self-attention, step by step");
    CHECK(footer(0).starts_with("── overview, 12 steps · next: 1 · Tokens"));
    CHECK(heading(1).starts_with("━━ 1 · Tokens ━"));
    CHECK(footer(1).starts_with("── step 1 of 12 · next: 2 · Embeddings X"));
    CHECK(heading(2).starts_with("━━ 3a · Query weights W_Q ━"));  // two keys in one read
    CHECK(footer(2).starts_with("── step 3 of 12 · next: 3b · Key weights W_K"));
    CHECK(heading(3).starts_with("━━ 2 · Embeddings X ━"));
    CHECK(heading(4).starts_with("━━ 1 · Tokens ━"));
    CHECK(heading(5).starts_with("━━ 7 · Attention weights A ━"));
    CHECK(heading(6) == "Keys");
    CHECK_THAT(p.frames[6][2],
               Catch::Contains("→  space  Enter") && Catch::Contains("the next step"));
    CHECK(footer(6).starts_with("── the keys · any key: back to the step"));
    CHECK(heading(7).starts_with("━━ 7 · Attention weights A ━"));
    CHECK(heading(8).starts_with("━━ 8 · Output Z ━"));
    CHECK(footer(8).starts_with("── step 12 of 12 · the end"));
    CHECK(heading(9).starts_with("━━ 8 · Output Z ━"));
    CHECK(heading(10) == "attn explain · self-attention, step by step");
}

TEST_CASE("present: g N, a step of two digits, a lettered step, a step that is not there",
          "[present][loop]") {
    ScriptedConsole console;
    // 2 heads and the backward pass: steps numbered up to 27
    const std::vector<std::string> args = {
        "explain",    "This is book",
        "--heads",    "2",
        "--d-model",  "4",
        "--mask",     "causal",
        "--target",   ATTN_SOURCE_DIR "/data/targets/this-is-book-4.json",
        "--backward", "--present",
        "--color",    "never"};
    console.keys("g");
    console.keys("1");
    console.keys("2");
    console.keys("\r");      // g 12 → step 12
    console.keys("1");       // "1" waits for a second digit: steps 10 to 27 exist
    console.keys("\r");      // Enter: step 1
    console.keys("g 3b\r");  // a lettered step, typed with a space
    console.keys("g99\r");   // no such step: a note, the step stays
    console.keys("5");       // no step 5x: at once, to the first of 5a, 5b, 5c
    console.keys("g1\x1b");  // Escape (once nothing follows it): no jump
    console.events.push_back({attn::cli::Console::Event::Kind::timeout, {}});
    console.keys("q");
    const auto p = present(args, console);
    REQUIRE(p.code == 0);
    REQUIRE(p.frames.size() == 12);
    const auto heading_of = [&](std::size_t i) { return p.frames[i].front(); };
    const auto footer_of = [&](std::size_t i) { return p.frames[i].back(); };
    CHECK_THAT(footer_of(0), Catch::StartsWith("── overview, 60 steps · next: 1 · Tokens"));
    CHECK_THAT(footer_of(1), Catch::StartsWith("── go to step: ▏"));
    CHECK_THAT(footer_of(1), Catch::EndsWith("Enter go · Esc cancel ──"));
    CHECK_THAT(footer_of(2), Catch::StartsWith("── go to step: 1▏"));
    CHECK_THAT(footer_of(3), Catch::StartsWith("── go to step: 12▏"));
    CHECK_THAT(heading_of(4), Catch::StartsWith("━━ 12 · Concatenation Z ━"));
    CHECK_THAT(footer_of(4), Catch::StartsWith("── step 29 of 60 · next: 13 · Output weights W_O"));
    CHECK_THAT(footer_of(5), Catch::StartsWith("── go to step: 1▏"));
    CHECK_THAT(heading_of(6), Catch::StartsWith("━━ 1 · Tokens ━"));
    CHECK_THAT(heading_of(7), Catch::StartsWith("━━ 3b · Key weights W_K ━"));
    CHECK_THAT(heading_of(8), Catch::StartsWith("━━ 3b · Key weights W_K ━"));
    CHECK_THAT(footer_of(8), Catch::StartsWith("── no step 99: the steps are 1 to 27 ─"));
    CHECK_THAT(heading_of(9), Catch::StartsWith("━━ 5a · Head 1 · Query weights W_Q_1 ━"));
    CHECK_THAT(footer_of(10), Catch::StartsWith("── go to step: 1▏"));
    CHECK_THAT(heading_of(11), Catch::StartsWith("━━ 5a · Head 1 · Query weights W_Q_1 ━"));
    CHECK_THAT(footer_of(11), Catch::StartsWith("── step 7 of 60 ·"));
}

TEST_CASE("present: a resized window is drawn again at its size", "[present][loop]") {
    ScriptedConsole console;
    console.now = {24, 100};
    console.keys("\x1b[C\x1b[C");
    console.events.push_back({attn::cli::Console::Event::Kind::resized, {}});
    console.sizes.push_back({12, 44});
    console.events.push_back({attn::cli::Console::Event::Kind::resized, {}});
    console.sizes.push_back({5, 30});
    console.keys("q");
    const auto p = present(plain_lesson, console);
    REQUIRE(p.frames.size() == 4);
    CHECK(p.frames[1].size() == 24);
    CHECK(p.frames[1].front().starts_with("━━ 2 · Embeddings X ━"));
    CHECK(columns(p.frames[1].front()) == 100);
    REQUIRE(p.frames[2].size() == 12);
    CHECK(p.frames[2].front().starts_with("━━ 2 · Embeddings X ━"));  // the same step
    REQUIRE(p.frames[3].size() == 5);
    for (const auto& line : p.frames[2]) {
        CHECK(columns(line) <= 44);
    }
    for (const auto& line : p.frames[3]) {
        CHECK(columns(line) <= 30);
    }
    INFO(p.frames[3].back());
    CHECK(p.frames[3].back().starts_with("── step 2 of 12"));
}

TEST_CASE("present: the terminal is given back on every way out", "[present][loop]") {
    {
        ScriptedConsole console;  // the input ends: as q
        const auto p = present(plain_lesson, console);
        CHECK(p.code == 0);
        CHECK(console.entered == 1);
        CHECK(console.left == 1);
    }
    {
        ScriptedConsole console;  // an exception inside the loop
        console.keys("\x1b[C");
        console.throw_when_done = true;
        const auto p = present(plain_lesson, console);
        CHECK(p.code == 1);
        CHECK_THAT(p.err, Catch::Contains("the scripted console broke"));
        CHECK(console.entered == 1);
        CHECK(console.left == 1);
    }
}

TEST_CASE("present: without a terminal, or with another output, a note and the text", "[present]") {
    std::ostringstream out;
    std::ostringstream err;
    attn::cli::Io io{out, err};
    CHECK(attn::cli::run({"explain", "This is book", "--present"}, io) == 0);
    CHECK(err.str() ==
          "attn: note: --present needs a terminal on stdin and stdout (here neither is one); "
          "printing the whole walk-through\n");
    CHECK_THAT(out.str(), Catch::Contains("━━ 8 · Output Z"));
    CHECK(out.str().find("\x1b[") == std::string::npos);

    ScriptedConsole console;
    console.keys("q");
    const auto p = present({"explain", "This is book", "--pause", "--format", "markdown"}, console);
    CHECK(p.code == 0);
    CHECK(p.frames.empty());
    CHECK(console.entered == 0);
    CHECK_THAT(p.err, Catch::Contains("--present shows the text walk-through, and --format "
                                      "markdown prints something else instead"));
}

// --present (--pause): the walk-through one step per screen, driven by single keys. The
// screens are render_screen()'s, from the pages of the text walk-through; this file reads the
// keys (keys.cpp), follows the window's size and draws, on the Console that main.cpp gives.
#include <algorithm>
#include <cctype>
#include <ostream>
#include <utility>

#include <fmt/format.h>

#include "cli.hpp"
#include "console.hpp"
#include "keys.hpp"
#include "words.hpp"

namespace attn::cli {
namespace {

// A lone ESC is the Escape key when nothing follows within this time (an arrow key's bytes
// arrive together; over ssh they may be a few milliseconds apart).
constexpr int escape_wait_ms = 60;

// Wait-for-a-second-digit keys: a step number of two digits that starts with `digit`.
bool starts_a_longer_number(const std::vector<TextPage>& pages, char digit) {
    return std::any_of(pages.begin(), pages.end(), [digit](const TextPage& page) {
        return page.number.size() > 1 && page.number[0] == digit &&
               std::isdigit(static_cast<unsigned char>(page.number[1])) != 0;
    });
}

class Presenter {
  public:
    Presenter(const Trace& trace, TextStyle style, Console::Size size)
        : trace_(trace), base_(std::move(style)) {
        resize(size);
    }

    enum class Outcome { go_on, quit };

    // The pages again at the window's new width (and height, for the rows a matrix shows).
    void resize(Console::Size size) {
        view_.rows = size.rows;
        view_.cols = size.cols;
        TextStyle style = base_;
        style.width = std::clamp<std::size_t>(size.cols, 20, 1000);
        style.max_rows =
            std::clamp<std::size_t>(size.rows > 6 ? size.rows - 6 : 6, 6, base_.max_rows);
        style_ = style;
        pages_ = render_text_pages(trace_, style_);
        clamp_scroll();
    }

    Outcome on_key(const Key& key) {
        using K = Key::Kind;
        view_.note.clear();
        if (key.kind == K::control && key.text == "c") {
            return Outcome::quit;  // Ctrl-C as a key, when the terminal's interrupt is another
        }
        if (!view_.prompt.empty()) {
            return on_prompt_key(key);
        }
        if (view_.help) {
            view_.help = false;  // any key closes the keys; q still quits
            return key.kind == K::text && (key.text == "q" || key.text == "Q") ? Outcome::quit
                                                                               : Outcome::go_on;
        }
        const std::size_t room = view_.rows > 2 ? view_.rows - 2 : 1;
        switch (key.kind) {
            case K::right:
            case K::enter:
                go(view_.page + 1);
                break;
            case K::left:
            case K::backspace:
                go(view_.page > 0 ? view_.page - 1 : 0);
                break;
            case K::home:
                go(0);
                break;
            case K::end:
                go(pages_.size() - 1);
                break;
            case K::down:
                scroll_by(1);
                break;
            case K::up:
                scroll_by(-1);
                break;
            case K::page_down:
                scroll_by(static_cast<long>(room));
                break;
            case K::page_up:
                scroll_by(-static_cast<long>(room));
                break;
            case K::text:
                return on_text(key.text);
            default:
                break;  // Ctrl-L and keys attn does not use: a redraw
        }
        return Outcome::go_on;
    }

    [[nodiscard]] std::vector<std::string> screen() const {
        return render_screen(pages_, view_, style_);
    }

  private:
    Outcome on_text(const std::string& text) {
        if (text == "q" || text == "Q") {
            return Outcome::quit;
        }
        if (text == " " || text == "n" || text == "l") {
            go(view_.page + 1);
        } else if (text == "p" || text == "h") {
            go(view_.page > 0 ? view_.page - 1 : 0);
        } else if (text == "j") {
            scroll_by(1);
        } else if (text == "k") {
            scroll_by(-1);
        } else if (text == "?") {
            view_.help = true;
        } else if (text == "g" || text == "G") {
            typed_.clear();
            view_.prompt = prompt();
        } else if (text.size() == 1 && std::isdigit(static_cast<unsigned char>(text[0])) != 0) {
            if (starts_a_longer_number(pages_, text[0])) {
                typed_ = text;
                view_.prompt = prompt();
            } else {
                jump(text);
            }
        }
        return Outcome::go_on;
    }

    Outcome on_prompt_key(const Key& key) {
        using K = Key::Kind;
        if (key.kind == K::enter) {
            view_.prompt.clear();
            if (!typed_.empty()) {
                jump(typed_);
            }
        } else if (key.kind == K::backspace) {
            if (typed_.empty()) {
                view_.prompt.clear();
            } else {
                typed_.pop_back();
                view_.prompt = prompt();
            }
        } else if (key.kind == K::text && key.text.size() == 1 &&
                   std::isalnum(static_cast<unsigned char>(key.text[0])) != 0 &&
                   typed_.size() < 8) {
            typed_ += key.text;
            view_.prompt = prompt();
        } else if (key.kind == K::text && (key.text == " " || key.text == "g")) {
            view_.prompt = prompt();  // "g 12": the space is only a separator
        } else {
            view_.prompt.clear();  // Escape, or anything else: no jump
        }
        return Outcome::go_on;
    }

    [[nodiscard]] std::string prompt() const { return "go to step: " + typed_; }

    // The page of step `number`: its number exactly ("3b"), or the first of its group ("3"
    // is 3a when the steps are 3a, 3b, 3c).
    void jump(const std::string& number) {
        const std::string wanted = lower(number);
        std::optional<std::size_t> found;
        for (std::size_t i = 1; i < pages_.size() && !found; ++i) {
            if (lower(pages_[i].number) == wanted) {
                found = i;
            }
        }
        for (std::size_t i = 1; i < pages_.size() && !found; ++i) {
            const std::string n = lower(pages_[i].number);
            if (n.size() > wanted.size() && n.starts_with(wanted) &&
                std::isalpha(static_cast<unsigned char>(n[wanted.size()])) != 0) {
                found = i;
            }
        }
        if (found) {
            go(*found);
            return;
        }
        std::string first;
        std::string last;
        for (const auto& page : pages_) {
            if (!page.number.empty()) {
                first = first.empty() ? page.number : first;
                last = page.number;
            }
        }
        view_.note = first.empty()
                         ? fmt::format("no step {}", number)
                         : fmt::format("no step {}: the steps are {} to {}", number, first, last);
    }

    void go(std::size_t page) {
        page = std::min(page, pages_.size() - 1);
        if (page != view_.page) {
            view_.scroll = 0;
        }
        view_.page = page;
    }

    void scroll_by(long lines) {
        const long now = static_cast<long>(view_.scroll);
        view_.scroll = static_cast<std::size_t>(std::max(0L, now + lines));
        clamp_scroll();
    }

    void clamp_scroll() {
        view_.page = std::min(view_.page, pages_.size() - 1);
        view_.scroll = std::min(view_.scroll, screen_scroll_limit(pages_[view_.page], view_.rows));
    }

    const Trace& trace_;
    TextStyle base_;
    TextStyle style_;
    std::vector<TextPage> pages_;
    ScreenView view_;
    std::string typed_;
};

// One frame, drawn over the previous one line by line: each line at its row (whatever the
// terminal does with a newline), erased first (erasing after a full line would take its last
// character, where the cursor stays with wrapping off), the whole between the marks of a
// synchronized update so that a terminal that knows them never shows half a frame.
void draw(const std::vector<std::string>& lines, Io& io) {
    std::string frame = "\x1b[?2026h";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        frame += fmt::format("\x1b[{};1H\x1b[K", i + 1);
        frame += lines[i];
    }
    frame += "\x1b[?2026l";
    io.out << frame;
    flush_stdout(io);
}

}  // namespace

void present(const Trace& trace, const TextStyle& style, Console& console, Io& io) {
    flush_stdout(io);
    Presenter presenter(trace, style, console.size());
    const ConsoleTaken taken(console);
    draw(presenter.screen(), io);
    KeyDecoder decoder;
    for (;;) {
        const auto event = console.wait(decoder.pending() ? escape_wait_ms : -1);
        std::vector<Key> keys;
        switch (event.kind) {
            case Console::Event::Kind::closed:
                return;  // the terminal is gone (or its input ended): nothing to show it on
            case Console::Event::Kind::resized:
                presenter.resize(console.size());
                break;
            case Console::Event::Kind::timeout:
                keys = decoder.flush();
                break;
            case Console::Event::Kind::bytes:
                keys = decoder.feed(event.bytes);
                break;
        }
        for (const auto& key : keys) {
            switch (presenter.on_key(key)) {
                case Presenter::Outcome::quit:
                    return;
                case Presenter::Outcome::go_on:
                    break;
            }
        }
        draw(presenter.screen(), io);
    }
}

}  // namespace attn::cli

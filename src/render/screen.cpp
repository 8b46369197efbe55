// The presenter's screens (--present): one page of the text walk-through (text.cpp's pages,
// the same steps and words) per screen, its heading kept at the top, and at the bottom where
// the lesson is, what comes next and the keys. The terminal itself is the cli's.
#include <algorithm>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "toolkit.hpp"

namespace attn {
namespace {

// The page's lines, without the blank lines that separate it from the page before.
std::vector<std::string> lines_of(const TextPage& page) {
    std::vector<std::string> lines;
    std::size_t pos = 0;
    while (pos < page.text.size()) {
        const auto end = std::min(page.text.find('\n', pos), page.text.size());
        lines.push_back(page.text.substr(pos, end - pos));
        pos = end + 1;
    }
    while (!lines.empty() && lines.front().empty()) {
        lines.erase(lines.begin());
    }
    while (!lines.empty() && lines.back().empty()) {
        lines.pop_back();
    }
    return lines;
}

// The body's rows on a screen: all but the heading and the footer.
std::size_t body_rows(std::size_t rows) {
    return rows > 2 ? rows - 2 : 0;
}

std::vector<std::string> help_lines(bool unicode) {
    const auto key = [](std::string_view keys, std::string_view what) {
        return fmt::format("  {:<20}{}", keys, what);
    };
    return {
        "",
        key(unicode ? "→  space  Enter" : "Right  space  Enter", "the next step"),
        key(unicode ? "←  Backspace" : "Left  Backspace", "the step before"),
        key("1 to 9", "that step (for 10 and up: both digits, Enter)"),
        key("g N Enter", "step N: g 12, or g 3b for a lettered step"),
        key("Home  End", "the overview, the last step"),
        key(unicode ? "↓ ↑  PgDn PgUp" : "Down Up  PgDn PgUp",
            "scroll a step taller than the window"),
        key("?", "these keys; any key closes them"),
        key("q", "quit (Ctrl-C too; Ctrl-Z suspends)"),
    };
}

}  // namespace

std::size_t screen_scroll_limit(const TextPage& page, std::size_t rows) {
    const auto lines = lines_of(page);
    const std::size_t body = lines.empty() ? 0 : lines.size() - 1;
    return body > body_rows(rows) ? body - body_rows(rows) : 0;
}

std::vector<std::string> render_screen(const std::vector<TextPage>& pages, const ScreenView& view,
                                       const TextStyle& style) {
    const bool unicode = style.unicode;
    const std::size_t cols = std::max<std::size_t>(view.cols, 1);
    const auto paint = [&](const std::string& s, std::string_view code) {
        return style.color ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
    };
    std::vector<std::string> screen;
    const std::size_t page_index = std::min(view.page, pages.empty() ? 0 : pages.size() - 1);
    std::vector<std::string> lines;
    if (view.help) {
        lines.push_back(paint("Keys", "1"));
        const auto help = help_lines(unicode);
        lines.insert(lines.end(), help.begin(), help.end());
    } else if (!pages.empty()) {
        lines = lines_of(pages[page_index]);
    }
    if (lines.empty()) {
        lines.emplace_back();
    }

    // the heading, then the body from the scrolled line
    const std::size_t room = body_rows(view.rows);
    const std::size_t body = lines.size() - 1;
    const std::size_t limit = body > room ? body - room : 0;
    const std::size_t scroll = view.help ? 0 : std::min(view.scroll, limit);
    if (view.rows >= 2) {
        screen.push_back(lines.front());
    }
    for (std::size_t i = 0; i < room; ++i) {
        const std::size_t at = 1 + scroll + i;
        screen.push_back(at < lines.size() ? lines[at] : std::string());
    }

    // the footer: where the lesson is, what comes next, the keys
    const std::string rule = unicode ? "─" : "-";
    const std::string dot = unicode ? " · " : " - ";
    const std::size_t n_steps = pages.empty() ? 0 : pages.size() - 1;
    std::string where;
    std::string scrolled;  // "lines 1–20 of 34" when the page scrolls
    std::string arrow;     // which way there is more
    std::string next;
    std::string keys = "? keys" + dot + "q quit";
    if (!view.prompt.empty()) {
        where = view.prompt + (unicode ? "▏" : "_");
        keys = "Enter go" + dot + "Esc cancel";
    } else if (!view.note.empty()) {
        where = view.note;
    } else if (view.help) {
        where = "the keys";
        next = "any key: back to the step";
        keys.clear();
    } else {
        where = page_index == 0 ? fmt::format("overview, {} steps", n_steps)
                                : fmt::format("step {} of {}", page_index, n_steps);
        next = page_index + 1 < pages.size()
                   ? "next: " + (unicode ? pages[page_index + 1].title
                                         : toolkit::to_ascii(pages[page_index + 1].title))
                   : "the end";
        if (limit > 0) {
            const std::size_t last = std::min(body, scroll + room);
            scrolled =
                fmt::format("lines {}{}{} of {}", scroll + 1, unicode ? "–" : "-", last, body);
            arrow =
                scroll < limit ? (unicode ? "↓" : "(Down: more)") : (unicode ? "↑" : "(Up: back)");
        }
    }
    const std::size_t usable = cols > 1 ? cols - 1 : 1;  // the last column stays empty
    // "── where · middle ───── right ──", exactly `usable` wide, or empty when it does not fit
    const auto assemble = [&](const std::string& at, const std::string& middle,
                              const std::string& right) {
        const std::string left =
            rule + rule + " " + at + (middle.empty() ? "" : dot + middle) + " ";
        const std::string tail = right.empty() ? "" : " " + right + " " + rule + rule;
        const std::size_t used = toolkit::width_of(left) + toolkit::width_of(tail);
        return used <= usable ? left + toolkit::repeat(rule, usable - used) + tail : std::string();
    };
    const std::string full = where + (scrolled.empty() ? "" : dot + scrolled + " " + arrow);
    const std::string brief = where + (arrow.empty() ? "" : " " + arrow);
    // the keys go first, then the next step's title is cut, then left out, then the lines
    std::string footer = assemble(full, next, keys);
    if (footer.empty()) {
        footer = assemble(full, next, "");
    }
    if (footer.empty() && !next.empty()) {
        const std::size_t before = toolkit::width_of(rule + rule + " " + full + dot + " ");
        const std::size_t for_next = usable > before ? usable - before : 0;
        footer = for_next >= 12 ? assemble(full, toolkit::truncate(next, for_next, unicode), "")
                                : std::string();
    }
    for (const auto& at : {full, brief}) {
        footer = footer.empty() ? assemble(at, "", "") : footer;
    }
    if (footer.empty()) {
        footer = toolkit::clip_painted(brief, usable, unicode);
    }
    if (view.rows >= 1) {
        screen.push_back(paint(footer, "7"));
    }
    for (auto& line : screen) {
        line = toolkit::clip_painted(line, cols, unicode);
    }
    return screen;
}

}  // namespace attn

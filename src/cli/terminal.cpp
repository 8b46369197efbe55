// The terminal: colour and width.
#include <charconv>
#include <ostream>
#include <string>

#include <fmt/format.h>

#include "cli.hpp"
#include "words.hpp"

namespace attn::cli {
int color_depth(const Io& io) {
    const auto colorterm = io.getenv("COLORTERM");
    return colorterm && (*colorterm == "truecolor" || *colorterm == "24bit") ? 24 : 256;
}

bool use_color(const std::string& flag, const Io& io) {
    if (flag == "always") {
        return true;
    }
    if (flag == "never") {
        return false;
    }
    const auto no_color = io.getenv("NO_COLOR");
    if (no_color && !no_color->empty()) {
        return false;
    }
    const auto force = io.getenv("FORCE_COLOR");
    if (force && !force->empty() && *force != "0") {
        return true;
    }
    const auto term = io.getenv("TERM");
    return io.stdout_is_terminal && !(term && *term == "dumb");
}

Theme theme_of(const std::string& flag, const Io& io) {
    switch (choice<ThemeChoice>(Field::theme, flag)) {
        case ThemeChoice::light:
            return Theme::light;
        case ThemeChoice::dark:
            return Theme::dark;
        case ThemeChoice::automatic:
            break;
    }
    const auto fgbg = io.getenv("COLORFGBG");
    if (!fgbg) {
        return Theme::unknown;
    }
    // "fg;bg" or "fg;default;bg" (rxvt with a background image): the last field
    const std::string bg =
        fgbg->substr(fgbg->rfind(';') == std::string::npos ? 0 : fgbg->rfind(';') + 1);
    int colour = -1;
    const auto [end, ec] = std::from_chars(bg.data(), bg.data() + bg.size(), colour);
    if (bg.empty() || ec != std::errc() || end != bg.data() + bg.size() || colour < 0 ||
        colour > 15 || fgbg->find(';') == std::string::npos) {
        return Theme::unknown;
    }
    return colour <= 6 || colour == 8 ? Theme::dark : Theme::light;
}

std::size_t text_width(int flag, const Io& io) {
    if (flag > 0) {
        return static_cast<std::size_t>(flag);
    }
    if (io.terminal_columns >= 40) {
        return io.terminal_columns;
    }
    if (const auto columns = io.getenv("COLUMNS")) {
        try {
            const int n = std::stoi(*columns);
            if (n >= 40 && n <= 1000) {
                return static_cast<std::size_t>(n);
            }
        } catch (const std::exception&) {
            // not a number: fall through to the default
        }
    }
    return 80;
}

}  // namespace attn::cli

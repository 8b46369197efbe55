#pragma once
// The terminal's text as the walk-through writes it: colour, ASCII transliteration, word wrap
// to the width (text.cpp and matrix_text.cpp).

#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "attn/render/render.hpp"
#include "notation.hpp"
#include "toolkit.hpp"

namespace attn::text {

/// Collects the lines of a walk-through in the style asked for.
class Writer {
  public:
    explicit Writer(const TextStyle& style) : style_(style) {}

    // Our own prose (explanations, glyphs): transliterated in ASCII mode.
    [[nodiscard]] std::string text(std::string_view s) const {
        return style_.unicode ? std::string(s) : toolkit::to_ascii(s);
    }
    // A formula, in Unicode or ASCII notation.
    [[nodiscard]] std::string formula(const Formula& f) const {
        return notation::formula(
            f, style_.unicode ? notation::Style::unicode : notation::Style::ascii);
    }
    [[nodiscard]] std::string paint(std::string_view s, std::string_view code) const {
        if (!style_.color || s.empty()) {
            return std::string(s);
        }
        return fmt::format("\x1b[{}m{}\x1b[0m", code, s);
    }
    void line(std::string_view s = {}) {
        // a no-break space (U+00A0) keeps "1 = may attend" on one line; print it as a space
        constexpr std::string_view nbsp = "\u00A0";
        for (auto at = s.find(nbsp); at != std::string_view::npos; at = s.find(nbsp)) {
            out_ += s.substr(0, at);
            out_ += ' ';
            s.remove_prefix(at + nbsp.size());
        }
        out_ += s;
        out_ += '\n';
    }
    // Word-wraps `body` (already in the output's notation) to the width: the first line
    // starts with `indent`, the others with `rest_indent` (the same as `indent` when not given).
    void wrapped(std::string_view body, std::string_view indent = "", std::string_view code = {},
                 std::optional<std::string_view> rest_indent = std::nullopt) {
        const std::string_view rest = rest_indent.value_or(indent);
        const auto lines =
            toolkit::wrap(body, style_.width, toolkit::width_of(indent), toolkit::width_of(rest));
        for (std::size_t i = 0; i < lines.size(); ++i) {
            line(std::string(i == 0 ? indent : rest) + paint(lines[i], code));
        }
    }
    // Our own prose, transliterated and word-wrapped.
    void paragraph(std::string_view s, std::string_view indent = "", std::string_view code = {},
                   std::optional<std::string_view> rest_indent = std::nullopt) {
        wrapped(text(s), indent, code, rest_indent);
    }
    [[nodiscard]] const TextStyle& style() const { return style_; }
    std::string take() {
        std::string text = std::move(out_);
        out_.clear();  // a moved-from string is valid but unspecified: start afresh
        return text;
    }

  private:
    const TextStyle& style_;
    std::string out_;
};

}  // namespace attn::text

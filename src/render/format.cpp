// Number formatting and the ASCII spelling of attn's glyphs, shared by the text renderers.
#include <array>
#include <cctype>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "attn/render/render.hpp"

namespace attn {

std::string format_number(double value, int precision, bool unicode) {
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        if (value < 0) {
            return unicode ? "−∞" : "-inf";
        }
        return unicode ? "∞" : "inf";
    }
    // past ten million, fixed notation gets too wide to read: 1.2346e+08
    if (std::abs(value) >= 1e7) {
        return fmt::format("{:.{}e}", value, precision);
    }
    std::string s = fmt::format("{:.{}f}", value, precision);
    // -0.00004 rounds to "-0.0000": drop the sign of a number that prints as zero
    if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) {
        s.erase(0, 1);
    }
    return s;
}

bool is_whole(double x) noexcept {
    return std::isfinite(x) && std::abs(x) < 1e15 && x == std::round(x);
}

std::string format_tidy(double value, int precision, bool unicode) {
    return format_number(value, is_whole(value) ? 0 : precision, unicode);
}

std::string to_ascii(std::string_view text) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 26> table{{
        {"⌊", "floor("}, {"⌋", ")"},  {"−∞", "-inf"}, {"∞", "inf"}, {"·", "*"},   {"ᵀ", "^T"},
        {"√", "sqrt"},   {"×", "x"},  {"→", "->"},    {"←", "<-"},  {"…", "..."}, {"⋮", ":"},
        {"Σ", "sum "},   {"≤", "<="}, {"≥", ">="},    {"≈", "~"},   {"−", "-"},   {"—", "--"},
        {"–", "-"},      {"′", "'"},  {"ₘ", "_m"},    {"‘", "'"},   {"’", "'"},   {"“", "\""},
        {"”", "\""},     {"━", "="},
    }};
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        bool replaced = false;
        if (static_cast<unsigned char>(text[i]) >= 0x80) {
            for (const auto& [from, to] : table) {
                if (text.substr(i, from.size()) == from) {
                    out += to;
                    i += from.size();
                    replaced = true;
                    if (from == "√") {
                        // "√d_k" becomes "sqrt(d_k)" and "√3" "sqrt(3)"; "√(x)" stays "sqrt(x)"
                        std::size_t end = i;
                        while (end < text.size() &&
                               (std::isalnum(static_cast<unsigned char>(text[end])) != 0 ||
                                text[end] == '_' || text[end] == '.')) {
                            ++end;
                        }
                        while (end > i && text[end - 1] == '.') {
                            --end;  // a full stop after "√d_k" ends the sentence
                        }
                        if (end > i) {
                            out += '(';
                            out += text.substr(i, end - i);
                            out += ')';
                            i = end;
                        }
                    }
                    break;
                }
            }
        }
        if (!replaced) {
            out += text[i];
            ++i;
        }
    }
    return out;
}

}  // namespace attn

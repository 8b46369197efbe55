#pragma once
// JSON text pieces shared by the writers of JSON (the dump, attn init's model files).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace attn::json_text {

/// Appends `s` as a JSON string: quotes, backslashes and control characters escaped; UTF-8
/// passes through (attn validates it on input).
inline void append_string(std::string& out, std::string_view s) {
    out += '"';
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20) {
                    fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

/// The most characters write_number() writes: "-2.2250738585072014e-308" is 24.
inline constexpr std::size_t max_number_chars = 32;

/// Writes the shortest text that reads back as the same double at `p` (room for
/// max_number_chars) and returns the end. JSON has no infinities or NaN: those become the
/// strings "-inf", "inf" and "nan" (documented, never a silent null). The format string is
/// compiled, so this goes straight to fmt's Dragonbox shortest round-trip conversion.
inline char* write_number(char* p, double x) {
    if (std::isfinite(x)) {
        return fmt::format_to(p, FMT_COMPILE("{}"), x);
    }
    const std::string_view text = std::isnan(x) ? "\"nan\"" : x < 0 ? "\"-inf\"" : "\"inf\"";
    return std::copy(text.begin(), text.end(), p);
}

/// Appends the shortest text that reads back as the same double (see write_number).
inline void append_number(std::string& out, double x) {
    std::array<char, max_number_chars> text{};
    const char* end = write_number(text.data(), x);
    out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

}  // namespace attn::json_text

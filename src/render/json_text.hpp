#pragma once
// JSON text pieces shared by the writers of JSON (the dump, attn init's model files).

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "attn/core/utf8.hpp"

namespace attn::json_text {

/// Appends `s` as a JSON string: quotes, backslashes and control characters escaped, and every
/// other character that would act on a terminal or hide (utf8::hidden: C1 controls, DEL,
/// bidirectional overrides, zero-width spaces) as \uXXXX (a pair of them past U+FFFF), so
/// that a dump printed to a terminal cannot drive it and reads back the same; other UTF-8
/// passes through (attn validates it on input).
inline void append_string(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char ch = s[i];
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x7F) {
            const auto decoded = utf8::decode(s.substr(i));
            if (decoded && !utf8::hidden(decoded->code_point)) {
                out.append(s.substr(i, decoded->length));  // a character as it is
                i += decoded->length - 1;
                continue;
            }
            if (decoded) {
                const char32_t cp = decoded->code_point;
                if (cp > 0xFFFF) {  // a surrogate pair, as JSON writes characters past U+FFFF
                    const char32_t v = cp - 0x10000;
                    fmt::format_to(std::back_inserter(out), "\\u{:04x}\\u{:04x}",
                                   0xD800U + (v >> 10U), 0xDC00U + (v & 0x3FFU));
                } else {
                    fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(cp));
                }
                i += decoded->length - 1;
                continue;
            }
        }
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

/// The room write_number() needs at its output: the longest text it writes is 24 characters
/// ("-2.2250738585072014e-308"). std::to_chars chooses fixed notation only where it is no
/// longer than the scientific one, so no double needs more.
inline constexpr std::size_t max_number_chars = 24;

/// Writes the shortest text that reads back as the same double at `p` (room for
/// max_number_chars) and returns the end. The text is std::to_chars's: the fewest characters
/// that round-trip, in fixed notation ("0.25", "12", "123456789") or, where that is shorter,
/// scientific ("1e-05", "1e+16"); both are JSON numbers. Two exceptions, because JSON has no
/// infinities or NaN and because Python's json module reads "-0" as the integer 0: the
/// strings "-inf", "inf" and "nan" (documented, never a silent null), and "-0.0" for -0.0.
inline char* write_number(char* p, double x) {
    if (!std::isfinite(x)) {
        const std::string_view text = std::isnan(x) ? "\"nan\"" : x < 0 ? "\"-inf\"" : "\"inf\"";
        return std::copy(text.begin(), text.end(), p);
    }
    if (x == 0.0 && std::signbit(x)) {
        constexpr std::string_view text = "-0.0";
        return std::copy(text.begin(), text.end(), p);
    }
    const auto [end, error] = std::to_chars(p, p + max_number_chars, x);
    if (error != std::errc()) {  // cannot happen: max_number_chars is enough for any double
        throw std::logic_error("json_text::write_number: no room for a number");
    }
    return end;
}

/// Appends the shortest text that reads back as the same double (see write_number).
inline void append_number(std::string& out, double x) {
    std::array<char, max_number_chars> text{};
    const char* end = write_number(text.data(), x);
    out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

}  // namespace attn::json_text

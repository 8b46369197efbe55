#pragma once
// JSON text pieces shared by the writers of JSON (the dump, attn init's model files).

#include <cmath>
#include <iterator>
#include <string>
#include <string_view>

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

/// Appends the shortest text that reads back as the same double. JSON has no infinities or
/// NaN: those become the strings "-inf", "inf" and "nan" (documented, never a silent null).
inline void append_number(std::string& out, double x) {
    if (std::isnan(x)) {
        out += "\"nan\"";
    } else if (std::isinf(x)) {
        out += x < 0 ? "\"-inf\"" : "\"inf\"";
    } else {
        fmt::format_to(std::back_inserter(out), "{}", x);
    }
}

}  // namespace attn::json_text

#pragma once
// Small helpers shared by the renderers.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn::render_common {

/// `s` with & < > " ' escaped for XML and HTML text and attributes.
inline std::string xml_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += ch;
        }
    }
    return out;
}

/// The indices 0..n-1 to show, with nullopt standing for the elided middle when n is more
/// than 2·edge + 1: the first and the last `edge`.
inline std::vector<std::optional<std::size_t>> shown_indices(std::size_t n, std::size_t edge) {
    std::vector<std::optional<std::size_t>> out;
    for (std::size_t i = 0; i < n; ++i) {
        if (n > 2 * edge + 1 && i == edge) {
            out.emplace_back(std::nullopt);
            i = n - edge - 1;
            continue;
        }
        out.emplace_back(i);
    }
    return out;
}

/// `s` with each `from` of `table` replaced by its `to` (first match wins, left to right);
/// every other character goes through `other`.
template <typename Other>
std::string replace_glyphs(std::string_view s,
                           std::span<const std::pair<std::string_view, std::string_view>> table,
                           Other other) {
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        bool done = false;
        for (const auto& [from, to] : table) {
            if (s.substr(i, from.size()) == from) {
                out += to;
                i += from.size();
                done = true;
                break;
            }
        }
        if (!done) {
            other(out, s[i++]);
        }
    }
    return out;
}

}  // namespace attn::render_common
